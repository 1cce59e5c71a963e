"""Convolution filters: `fn.gaussian_blur`, `fn.laplacian` and `fn.filter`.

A convolution filter replaces every element with a weighted sum of its neighbours. Along the
*data axes* of a sample (``H``, ``W`` and ``D``; never the channels ``C`` nor the frames
``F``, which are processed one by one) DALI blurs and differentiates with **separable**
filters: one 1-D window per axis, applied from the innermost axis to the outermost, the
passes between them kept in float32 and only the last pass converted to the output type
(rounding to nearest, saturating: `dali._ops.numeric.convert_sat`). Out-of-range neighbours
are mirrored without repeating the edge (*reflect-101*: ``dcb|abcdefgh|gfe``).

* `fn.gaussian_blur`: the Gaussian window of ``sigma`` (diameter ``2 * ceil(3 * sigma) + 1``
  when only ``sigma`` is given; ``sigma = 0.3 * (radius - 1) + 0.8`` when only
  ``window_size`` is given), normalised to sum 1 in float32 as DALI computes it.
* `fn.laplacian`: the sum over the data axes of second derivatives, each a separable
  convolution with the derivative window (``[1, -2, 1]`` composed with binomial smoothing)
  along its own axis and binomial smoothing windows along the others, scaled by ``scale`` (or
  ``2 ** -(sum of window sizes - ndim - 2)`` with ``normalized_kernel``), the partial sums
  accumulated in float32.
* `fn.filter`: a correlation with a user-given 2-D (or 3-D) filter, with ``border`` modes
  (``reflect_101``, ``reflect_1001``, ``wrap``, ``clamp``, ``constant`` with a fill value)
  and the ``valid`` mode, which crops to the positions where the filter lies inside the sample.

The separable filters add the window's taps one after the other in float32, as DALI's CPU
kernels do, so that the results equal DALI's bit for bit (the GPU backend runs the same
arithmetic with CuPy, one pass over the whole batch at a time). `fn.filter` runs on OpenCV's
``filter2D`` on the CPU, as DALI's CPU operator does.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.zeros((5, 5, 1), np.float32)
    >>> img[2, 2] = 1.0
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [img], layout="HWC", batch=True)
    ...     return fn.gaussian_blur(x, window_size=3), fn.laplacian(x)
    >>> blur, lap = pipe().run()
    >>> np.round(blur.as_array()[0, 1:4, 1:4, 0].astype(float), 3).tolist()
    [[0.057, 0.125, 0.057], [0.125, 0.272, 0.125], [0.057, 0.125, 0.057]]
    >>> lap.as_array()[0, 1:4, 1:4, 0].tolist()
    [[2.0, 0.0, 2.0], [0.0, -8.0, 0.0], [2.0, 0.0, 2.0]]
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._graph.schema import Arg, register
from dali._ops._sequences import unfold
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._common import optional_cv2
from dali._ops.numeric import array_module, convert_sat, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Filter", "GaussianBlur", "Laplacian", "gaussian_window", "laplacian_windows"]

_U8, _I8, _U16, _I16 = (
    np.dtype(np.uint8),
    np.dtype(np.int8),
    np.dtype(np.uint16),
    np.dtype(np.int16),
)
_U32, _I32, _U64, _I64 = (np.dtype(t) for t in (np.uint32, np.int32, np.uint64, np.int64))
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_INTS = (_U8, _I8, _U16, _I16, _U32, _I32, _U64, _I64)
#: input types of gaussian_blur (DALI's GPU backend lacks float16; ours has it)
_GAUSS_TYPES = frozenset((*_INTS, _F16, _F32, _F64))
#: input types of laplacian (DALI's GPU backend lacks float16; ours has it)
_LAPLACIAN_TYPES = frozenset((*_INTS, _F16, _F32))
#: input types of filter: DALI's CPU backend, and its GPU backend (which ours follows)
_FILTER_TYPES_CPU = frozenset((_U8, _U16, _I16, _F32))
_FILTER_TYPES_GPU = frozenset((_U8, _I8, _U16, _I16, _F16, _F32))
#: DALI's upper bound of the Laplacian's window sizes (`laplacian_params.h`)
_MAX_LAPLACIAN_WINDOW = 31
_MAX_DATA_AXES = 3


def _type_name(dtype: np.dtype[Any]) -> str:
    from dali._dtypes import type_name

    return str(type_name(dtype))


def _out_dtype(op: Operator, in_dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The output type: the input's, or float32 (the only other type DALI allows)."""
    from dali._dtypes import np_dtype

    dtype = op.arg("dtype")
    if not dtype:
        return in_dtype
    out = np.dtype(np_dtype(dtype))
    if out != in_dtype and out != _F32:
        raise op.arg_error(
            "dtype",
            "Unsupported output data type. Output type can be same as input (inferred "
            "automatically) or set to float.",
        )
    return out


def data_axes(op: Operator, layout: str, ndim: int) -> tuple[int, int, bool]:
    """The data axes of a sample: ``(first, count, channel_last)`` (DALI's
    ``ParseAndValidateDim``): leading ``F``/``C`` dimensions (frames, channel-first planes)
    and a trailing ``C`` are not data axes; at most 3 data axes.

    Raises:
        OperatorError: The layout puts channels or frames elsewhere, or has too many axes.
    """
    if not layout:
        if ndim > _MAX_DATA_AXES:
            raise op.error(
                f"Input data with empty layout cannot have more than {_MAX_DATA_AXES} "
                f"dimensions, got input with {ndim} dimensions."
            )
        return 0, ndim, False
    channel_last = layout[-1] == "C" and ndim > 1
    count = ndim - channel_last
    first = 0
    rest = layout
    while rest[:1] in ("C", "F") and not (channel_last and len(rest) == 1):
        first += 1
        count -= 1
        rest = rest[1:]
    body = rest[:-1] if channel_last else rest
    if "C" in body:
        raise op.error(f"Only channel-first or channel-last layouts are supported, got: {layout}.")
    if "F" in body:
        raise op.error(f"For sequences, layout should begin with 'F' or 'CF', got: {layout}.")
    if first > 2:
        raise op.error(f"Found more the one occurrence of 'F' or 'C' axes in layout: {layout}.")
    if count > _MAX_DATA_AXES:
        raise op.error(
            f"Too many dimensions, found: {count} data axes, maximum supported is: "
            f"{_MAX_DATA_AXES}."
        )
    return first, count, channel_last


# -- windows ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def gaussian_window(sigma: float, size: int) -> np.ndarray:
    """DALI's Gaussian window (``FillGaussian``): ``exp(-x² / 2σ²)`` normalised to sum 1,
    computed in float32 as DALI does (half the window summed, doubled, plus the centre).

    Example:
        >>> gaussian_window(1.0, 3).tolist()
        [0.2740686237812042, 0.45186275243759155, 0.2740686237812042]
    """
    r = (size - 1) // 2
    f32 = np.float32
    sig = f32(sigma)
    exp_scale = f32(0.5) / (sig * sig) if sig != 0 else f32(np.inf)
    w = np.empty(size, np.float32)
    total = f32(0)
    for x in range(-r, 0):
        w[x + r] = f32(math.exp(-float(f32(x * x) * exp_scale)))
        total = f32(total + w[x + r])
    total = f32(f32(total * f32(2)) + f32(1))
    scale = f32(1) / total
    w[r] = scale
    for x in range(r):
        w[x] = f32(w[x] * scale)
        w[2 * r - x] = w[x]
    w.flags.writeable = False
    return w


def _smoothing(size: int) -> np.ndarray:
    """Binomial smoothing window of odd ``size`` (``[1]``, ``[1, 2, 1]``, ``[1, 4, 6, 4, 1]``...)."""
    w = np.array([1.0])
    while len(w) < size:
        w = np.convolve(w, [1.0, 1.0])
    return w


@functools.lru_cache(maxsize=64)
def laplacian_windows(deriv: int, smooth: int) -> tuple[np.ndarray, np.ndarray]:
    """DALI's Laplacian windows: the second-derivative window of size ``deriv`` (``[1, -2,
    1]`` convolved with binomial smoothing) and the smoothing window of size ``smooth``.

    Example:
        >>> [w.tolist() for w in laplacian_windows(5, 3)]
        [[1.0, 0.0, -2.0, 0.0, 1.0], [1.0, 2.0, 1.0]]
    """
    d = np.convolve(_smoothing(deriv - 2), [1.0, -2.0, 1.0]).astype(np.float32)
    s = _smoothing(smooth).astype(np.float32)
    d.flags.writeable = False
    s.flags.writeable = False
    return d, s


# -- the separable kernel ---------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _reflect_101(n: int, before: int, after: int) -> np.ndarray:
    """Indices ``-before .. n + after - 1`` mirrored into ``[0, n)`` without repeating the edge
    (repeatedly, for windows wider than the axis; ``n == 1``: all 0)."""
    i = np.arange(-before, n + after)
    if n == 1:
        return np.zeros_like(i)
    period = 2 * (n - 1)
    i = np.mod(i, period)
    out = np.where(i >= n, period - i, i)
    out.flags.writeable = False
    return out


def _correlate_axis(xp: Any, x: Any, w: np.ndarray, axis: int, wide: bool) -> Any:
    """One 1-D pass of DALI's separable convolution along ``axis`` with reflect-101 borders:
    ``acc = Σ_k w[k] · x[i - r + k]``, the taps added in order in float32 (``wide``: each
    product and sum in float64, rounded to float32 after every tap, as DALI computes
    double inputs). ``x`` is float32 (float64 when ``wide``); the result is float32."""
    n = x.shape[axis]
    d = len(w)
    r = (d - 1) // 2
    if d == 1 and not wide:
        return x * w[0]
    if (
        options.CONVOLUTION_KERNEL
        and xp is not np
        and not wide
        and x.dtype == w.dtype == np.float32
    ):
        from dali._ops.filters._correlate_gpu import correlate_axis

        return correlate_axis(x, w, axis)  # one launch, the same arithmetic
    idx = _reflect_101(n, r, r)
    padded = xp.take(x, xp.asarray(idx) if xp is not np else idx, axis=axis)
    lead = (slice(None),) * (axis % x.ndim)

    def tap(k: int) -> Any:
        key = (*lead, slice(k, k + n))
        return padded[key]

    if wide:
        acc = (tap(0) * np.float64(w[0])).astype(np.float32)
        for k in range(1, d):
            acc = (acc.astype(np.float64) + tap(k) * np.float64(w[k])).astype(np.float32)
        return acc
    acc = tap(0) * w[0]
    tmp = xp.empty_like(acc)
    for k in range(1, d):
        xp.multiply(tap(k), w[k], out=tmp)
        xp.add(acc, tmp, out=acc)
    return acc


def _as_work(xp: Any, x: Any, wide: bool) -> Any:
    """The input as the pass's working type: float32 (DALI converts every input element to
    float before multiplying by the float window), float64 for double inputs."""
    return x.astype(np.float64 if wide else np.float32, copy=False)


def _separable(xp: Any, x: Any, windows: list[np.ndarray], axes: list[int], wide: bool) -> Any:
    """The separable convolution of ``x`` with ``windows[j]`` along ``axes[j]``, innermost
    axis first; the float32 result before the final conversion."""
    t = _as_work(xp, x, wide)
    for w, a in sorted(zip(windows, axes), key=lambda p: -p[1]):
        t = _correlate_axis(xp, t, w, a, wide)
        if wide:
            t = t.astype(np.float64)
    return t


def _dense_or_samples(tl: Any, xp: Any, uniform: bool) -> Any:
    """The batch as one array when the GPU can process it in one go, else None."""
    if xp is np or not uniform:
        return None
    return tl.dense()


def _empty_like_out(xp: Any, x: Any, dtype: np.dtype[Any]) -> Any:
    return xp.empty(x.shape, dtype=dtype)


# -- gaussian_blur ----------------------------------------------------------------------------


@register(
    "gaussian_blur",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("sigma", "float_or_float_vec", default=(0.0,), tensor=True,
            doc="Sigma of the Gaussian kernel: one value, or one per data axis (outermost "
            "first); per sample and per frame."),
        Arg("window_size", "int_or_int_vec", default=(0,), tensor=True,
            doc="Diameter of the kernel: one value or one per data axis; per sample and "
            "per frame."),
        Arg("dtype", "dtype", doc="Output type: FLOAT, or the input's type (the default)."),
    ],
)  # fmt: skip
class GaussianBlur(Operator):
    """Applies a Gaussian blur to the input.

    A separable convolution with Gaussian windows, from the innermost data axis to the
    outermost. With only ``sigma`` the window's diameter is ``2 * ceil(3 * sigma) + 1``; with
    only ``window_size``, ``sigma = (radius - 1) * 0.3 + 0.8`` where ``radius = (window_size -
    1) / 2``. Both may be one value for all data axes or one per axis, ordered as in the
    layout (``HWC``: ``sigma=(sigma_h, sigma_w)``), and per sample (tensor arguments) or per
    frame (``fn.per_frame``). The channels ``C`` and frames ``F`` are not data axes; channels
    must come first or last. Sequences (``F...``) and volumes (``DHW``, ``DHWC``) are
    supported. Borders are reflected without repeating the edge (reflect-101); the output has
    the input's shape and layout and its type, or float32 (``dtype=FLOAT``).

    Supported input types: all integers, float16 (the GPU backend's float16 is an extension:
    DALI's GPU backend has none), float32 and float64.
    """

    def run(self, ws: Workspace) -> Any:
        frames = unfold(self, ws, ("sigma", "window_size"))
        if frames is not None:
            return frames.fold(frames.run(super().run))
        return super().run(ws)

    def _params(self, ws: Workspace, nax: int) -> tuple[np.ndarray, np.ndarray]:
        """Per-sample ``(sigmas, sizes)``, both ``(batch, nax)``, filled in as DALI does."""
        what = " (one per data axis)"
        sigmas = ws.arg_vectors("sigma", np.float32, n=nax, what=what)
        sizes = ws.arg_vectors("window_size", np.int64, n=nax, what=what)
        for i in range(ws.batch_size):
            for a in range(nax):
                s, d = sigmas[i, a], sizes[i, a]
                if s == 0 and d == 0:
                    raise self.error(
                        "`sigma` and `window_size` shouldn't be 0 at the same time for sample: "
                        f"{i}, axis: {a}."
                    )
                if s < 0:
                    raise self.arg_error(
                        "sigma",
                        f"`sigma` must have non-negative values, got {s:g} for sample: {i}, "
                        f"axis: {a}.",
                    )
                if d < 0:
                    raise self.arg_error(
                        "window_size",
                        f"`window_size` must have non-negative values, got {d} for sample: "
                        f"{i}, axis : {a}.",
                    )
                if d % 2 == 0 and d > 0:
                    raise self.arg_error(
                        "window_size", f"Kernel window should have odd length, got: {d}."
                    )
                if d == 0:
                    sizes[i, a] = 2 * math.ceil(float(np.float32(s) * np.float32(3))) + 1
                elif s == 0:
                    sigmas[i, a] = np.float32(((d - 1) // 2 - 1) * 0.3 + 0.8)
        return sigmas, sizes

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        in_dtype = tl.np_dtype
        if in_dtype not in _GAUSS_TYPES:
            raise self.error(f"Unsupported data type: {_type_name(in_dtype)}")
        out_dtype = _out_dtype(self, in_dtype)
        layout = tl.layout() or ""
        first, nax, _ = data_axes(self, layout, tl.sample_ndim)
        sigmas, sizes = self._params(ws, nax)
        wide = in_dtype == _F64
        axes = list(range(first, first + nax))
        keys = [tuple(zip(sigmas[i].tolist(), sizes[i].tolist())) for i in range(ws.batch_size)]

        def windows(i: int) -> list[np.ndarray]:
            return [gaussian_window(s, int(d)) for s, d in keys[i]]

        def blur(x: Any, ws_: list[np.ndarray], ax: list[int]) -> Any:
            if x.size == 0:
                return _empty_like_out(xp, x, out_dtype)
            return convert_sat(xp, _separable(xp, x, ws_, ax, wide), out_dtype)

        dense = _dense_or_samples(tl, xp, len(set(keys)) <= 1)
        if dense is not None and ws.batch_size:
            out = blur(dense, windows(0), [a + 1 for a in axes])
            return cls.wrap(out, layout)
        samples = tl.samples()
        outs = run_per_sample(ws, xp, lambda i: blur(samples[i], windows(i), axes), len(samples))
        return cls.wrap(outs, layout, dtype=out_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, dtype=node.scalar_args.get("dtype") or node.inputs[0].dtype)


# -- laplacian --------------------------------------------------------------------------------


@register(
    "laplacian",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("window_size", "int_or_int_vec", default=(3,), tensor=True,
            doc="Size of the derivative windows: odd, 3 to 31; one, or one per data axis."),
        Arg("smoothing_size", "int_or_int_vec", tensor=True,
            doc="Size of the smoothing windows: odd, 1 to 31; one, or one per data axis "
            "(default: the derivative window's size)."),
        Arg("scale", "float_or_float_vec", default=(1.0,), tensor=True,
            doc="Factors of the partial derivatives: one, or one per data axis."),
        Arg("normalized_kernel", "bool", default=False,
            doc="Scale every partial derivative by 2^-(sum of its window sizes - ndim - 2)."),
        Arg("dtype", "dtype", doc="Output type: FLOAT, or the input's type (the default)."),
    ],
)  # fmt: skip
class Laplacian(Operator):
    """Computes the Laplacian of the input: the sum over the data axes of the second partial
    derivatives.

    Each partial derivative is a separable convolution: the derivative window (size
    ``window_size``) along its axis and binomial smoothing windows (size ``smoothing_size``,
    by default the derivative window's size; ``1``: no smoothing) along the other axes. For a
    volume with ``window_size=[dz, dy, dx]`` and ``smoothing_size=[sz, sy, sx]`` the ``z``
    derivative uses ``dz`` along ``z`` and ``sy``, ``sx`` along ``y``, ``x``. The derivatives
    are multiplied by ``scale`` (one, or one per axis), or with ``normalized_kernel=True`` by
    ``2^-(s - n - 2)``, ``s`` the sum of the derivative's window sizes and ``n`` the number of
    data axes, and summed in float32. Window sizes may be given per sample and per frame.
    Channels and frames are not data axes; sequences and volumes are supported; borders are
    reflected without repeating the edge. The output has the input's type (saturated) or
    float32 (``dtype=FLOAT``).

    Supported input types: all integers, float16 (the GPU backend's float16 is an extension)
    and float32.
    """

    def setup(self) -> None:
        if self.arg("normalized_kernel") and self.has_arg("scale"):
            raise self.arg_error(
                "scale",
                "Parameter ``scale`` cannot be specified when ``normalized_kernel`` is set to True",
            )

    def run(self, ws: Workspace) -> Any:
        frames = unfold(self, ws, ("window_size", "smoothing_size", "scale"))
        if frames is not None:
            return frames.fold(frames.run(super().run))
        return super().run(ws)

    def _params(
        self, ws: Workspace, nax: int
    ) -> list[tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]]:
        """Per sample: the window sizes ``[i][j]`` (window ``j`` of derivative ``i``) and the
        scales, as DALI's ``LaplacianArgs`` fills them in."""
        what = " (one per data axis)"
        deriv = ws.arg_vectors("window_size", np.int64, n=nax, what=what)
        smooth = (
            ws.arg_vectors("smoothing_size", np.int64, n=nax, what=what)
            if ws.has_arg("smoothing_size")
            else None
        )
        normalize = bool(self.arg("normalized_kernel"))
        scales = None if normalize else ws.arg_vectors("scale", np.float32, n=nax, what=what)
        out = []
        for i in range(ws.batch_size):
            for d in deriv[i].tolist():
                if not (3 <= d <= _MAX_LAPLACIAN_WINDOW and d % 2 == 1):
                    raise self.arg_error(
                        "window_size",
                        f"Window size must be an odd integer between 3 and "
                        f"{_MAX_LAPLACIAN_WINDOW}, got {d} for sample: {i}.",
                    )
            if smooth is not None:
                for s in smooth[i].tolist():
                    if not (1 <= s <= _MAX_LAPLACIAN_WINDOW and s % 2 == 1):
                        raise self.arg_error(
                            "smoothing_size",
                            f"Smoothing window size must be an odd integer between 1 and "
                            f"{_MAX_LAPLACIAN_WINDOW}, got {s} for sample: {i}.",
                        )
            sizes = tuple(
                tuple(
                    int(deriv[i, a]) if (a == b or smooth is None) else int(smooth[i, b])
                    for b in range(nax)
                )
                if smooth is not None
                else (int(deriv[i, a]),) * nax
                for a in range(nax)
            )
            if normalize:
                sc = tuple(float(np.exp2(np.float32(-(sum(s) - nax - 2)))) for s in sizes)
            else:
                assert scales is not None
                sc = tuple(float(v) for v in scales[i])
            out.append((sizes, sc))
        return out

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        in_dtype = tl.np_dtype
        if in_dtype not in _LAPLACIAN_TYPES:
            raise self.error(f"Unsupported data type: {_type_name(in_dtype)}")
        out_dtype = _out_dtype(self, in_dtype)
        layout = tl.layout() or ""
        first, nax, _ = data_axes(self, layout, tl.sample_ndim)
        params = self._params(ws, nax)
        axes = list(range(first, first + nax))

        def laplacian(x: Any, p: Any, ax: list[int]) -> Any:
            if x.size == 0:
                return _empty_like_out(xp, x, out_dtype)
            return convert_sat(xp, _laplacian(xp, x, p[0], p[1], ax), out_dtype)

        dense = _dense_or_samples(tl, xp, len(set(params)) <= 1)
        if dense is not None and ws.batch_size:
            return cls.wrap(laplacian(dense, params[0], [a + 1 for a in axes]), layout)
        samples = tl.samples()
        outs = run_per_sample(
            ws, xp, lambda i: laplacian(samples[i], params[i], axes), len(samples)
        )
        return cls.wrap(outs, layout, dtype=out_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, dtype=node.scalar_args.get("dtype") or node.inputs[0].dtype)


def _laplacian(
    xp: Any, x: Any, sizes: tuple[tuple[int, ...], ...], scales: tuple[float, ...], axes: list[int]
) -> Any:
    """DALI's ``LaplacianCpu``: partial derivative ``i`` (one axis-wise pass when every
    smoothing window is 1, else a separable convolution), ``acc = d_0 · s_0``, then
    ``acc = d_i · s_i + acc`` in float32."""
    nax = len(axes)
    acc = None
    for i in range(nax):
        windows = [
            laplacian_windows(sizes[i][j], 1)[0] if i == j else laplacian_windows(3, sizes[i][j])[1]
            for j in range(nax)
        ]
        if all(sizes[i][j] == 1 for j in range(nax) if j != i):
            val = _correlate_axis(xp, _as_work(xp, x, False), windows[i], axes[i], False)
        else:
            val = _separable(xp, x, windows, axes, False)
        scaled = val * np.float32(scales[i])
        acc = scaled if acc is None else xp.add(scaled, acc, out=scaled)
    return acc


# -- filter -----------------------------------------------------------------------------------

_BORDERS = ("reflect_101", "reflect_1001", "wrap", "clamp", "constant")
#: numpy/CuPy ``pad`` modes of DALI's borders
_PAD_MODES = {
    "reflect_101": "reflect",
    "reflect_1001": "symmetric",
    "wrap": "wrap",
    "clamp": "edge",
    "constant": "constant",
}


@register(
    "filter",
    devices=("cpu", "gpu"),
    inputs=(2, 3),
    input_names=("data", "filter", "fill_value"),
    args=[
        Arg("anchor", "int_or_int_vec", default=(-1,), tensor=True,
            doc="Position of the filter over the input, per filter extent; -1: the middle. "
            "Per sample and per frame; ignored in 'valid' mode."),
        Arg("border", "str", default="reflect_101",
            doc="'reflect_101', 'reflect_1001', 'wrap', 'clamp' or 'constant'."),
        Arg("mode", "str", default="same", doc="'same' or 'valid'."),
        Arg("dtype", "dtype", doc="Output type: FLOAT, or the input's type (the default)."),
    ],
)  # fmt: skip
class Filter(Operator):
    """Convolves the image with the provided filter (a correlation: the filter is not
    flipped).

    Inputs: ``data`` (images ``HW``/``HWC``/``CHW``, sequences ``F...``, volumes on the GPU),
    ``filter`` (float32, one 2-D array per sample, or per frame: a sequence of 2-D filters
    for a video; 3-D for volumes) and an optional ``fill_value`` (a scalar of the input's
    type per sample, or per frame) used by ``border="constant"`` (0 without it).

    With the filter of shape ``(r, s)`` and ``anchor=(a, b)``, the output at ``(y, x)`` is
    the sum of the filter times the input window from ``(y - a, x - b)`` to ``(y - a + r - 1,
    x - b + s - 1)``; ``anchor=-1`` centres the filter (the middle, rounded down). ``border``
    says how out-of-range positions read the input: ``reflect_101`` (``dcb|abcd``, the
    default), ``reflect_1001`` (``cba|abcd``), ``wrap``, ``clamp`` or ``constant``.
    ``mode="valid"`` crops the output by ``filter_extent - 1`` to the positions where the
    filter lies inside the sample (``anchor`` is then ignored). The computation is in float32;
    an integer output is rounded and saturated.

    Supported types: CPU uint8, uint16, int16, float32 with 2 data axes; GPU also int8,
    float16 and volumes (3 data axes).
    """

    def setup(self) -> None:
        border = self.arg("border")
        if border not in _BORDERS:
            raise self.arg_error("border", f"Unknown ``border_type`` was provided: ``{border}``.")
        mode = str(self.arg("mode")).lower()
        if mode not in ("same", "valid"):
            raise self.arg_error(
                "mode",
                f"Unknown ``mode`` was provided: ``{self.arg('mode')}``. Supported modes are "
                "``same`` and ``valid``.",
            )
        self._valid = mode == "valid"

    def _desc(self, layout: str, ndim: int) -> tuple[int, int, bool]:
        """``(leading non-data dims, data axes, channel_last)`` (DALI's ``setup_input_desc``)."""
        f = layout.find("F")
        if f > 0:
            raise self.error(
                "When the input is video-like (i.e. contains frames), the frames must be an "
                f"outermost dimension. However, got input with `{layout}` layout."
            )
        if not layout:
            if ndim not in (2, 3):
                raise self.error(
                    f"The filter operator got intput with {ndim} dimensions. However, only 2D "
                    "and 3D convolutions are supported. If the input has non-spatial "
                    "dimensions, such as channels or frames (for video sequences), please make "
                    "sure the input batch has a proper layout set."
                )
            return 0, ndim, False
        pos = 0
        while pos < len(layout) and layout[pos] in "CF":
            pos += 1
        seq = pos
        while pos < len(layout) and layout[pos] not in "CF":
            pos += 1
        nax = pos - seq
        channel_last = layout[-1] == "C"
        if seq + nax + channel_last != ndim:
            raise self.error(
                f"Filter operator encountered input with unsupported layout: `{layout}`."
            )
        return seq, nax, channel_last

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws, gpu=False)

    def run_gpu(self, ws: Workspace) -> Any:
        return self._run(ws, gpu=True)

    def _run(self, ws: Workspace, gpu: bool) -> Any:
        tl, ftl = ws.inputs[0], ws.inputs[1]
        xp, cls = array_module(tl)
        in_dtype = tl.np_dtype
        layout = tl.layout() or ""
        seq, nax, channel_last = self._desc(layout, tl.sample_ndim)
        types = _FILTER_TYPES_GPU if gpu else _FILTER_TYPES_CPU
        if in_dtype not in types:
            where = "GPU" if gpu else "CPU"
            raise self.error(f"Filter {where} does not support input type {_type_name(in_dtype)}.")
        if ftl.np_dtype != _F32:
            raise self.error(f"Unsupported filter type: {_type_name(ftl.np_dtype)}.")
        out_dtype = in_dtype
        if self.arg("dtype"):
            from dali._dtypes import np_dtype

            out_dtype = np.dtype(np_dtype(self.arg("dtype")))
            if out_dtype not in (in_dtype, _F32):
                raise self.arg_error(
                    "dtype",
                    "Output data type must be same as input, FLOAT or skipped (defaults to "
                    "input type)",
                )
        if not gpu and nax != 2:
            hint = (
                " If you are processing images with channels, please make sure to mark the "
                "layout accordingly (`HWC` or `CHW`)."
                if nax == 3
                else ""
            )
            raise self.error(
                f"Unsupported input data dimensionality. Got input with {nax} spatial "
                "dimensions. CPU filter operator supports only 2-dimensional convolutions." + hint
            )
        if nax not in (2, 3):
            raise self.error(
                f"Unsupported input data dimensionality. Got input with {nax} spatial "
                "dimensions. The filter operator supports 2- and 3-dimensional convolutions."
            )
        per_frame_filter = bool(layout[:1] == "F" and (ftl.layout() or "")[:1] == "F")
        filters = ftl.samples()
        fshape_ndim = ftl.sample_ndim - per_frame_filter
        if fshape_ndim != nax:
            raise self.error(
                "Filter dimensionality must match the number of spatial dimensions in the input "
                f"samples. Got {nax} spatial dimensions but the filter is {fshape_ndim} "
                "dimensional."
            )
        border = str(self.arg("border"))
        fills = self._fills(ws, in_dtype, border)
        anchors = self._anchors(ws, nax)
        samples = tl.samples()
        n = len(samples)
        if len(filters) != n:
            raise self.error(f"got {len(filters)} filters for a batch of {n}")
        for i in range(n):
            fshape = filters[i].shape[per_frame_filter:]
            if self._valid:
                for a in range(nax):
                    if fshape[a] <= 0:
                        raise self.error(
                            "Filter of volume zero is not supported, got zero-volume filter "
                            f"for sample of idx {i}."
                        )
                    if samples[i].shape[seq + a] - fshape[a] + 1 <= 0:
                        raise self.error(
                            f"Filter for sample of idx {i} is bigger than the sample. This is not "
                            "allowed if ``mode`` is set to ``valid``."
                        )
            for anchor in anchors[i]:
                if any(not (-1 <= a < s) for a, s in zip(anchor, fshape)):
                    raise self.error(
                        "Anchor must lie within the filter. Got anchor "
                        f"{_vec(anchor)} with a filter of shape {_shape(fshape)} for sample of "
                        f"idx {i}."
                    )
        cv2 = None if gpu else optional_cv2()

        def one(i: int) -> Any:
            return self._sample(
                xp, cv2, samples[i], filters[i], anchors[i], fills[i], out_dtype,
                seq, nax, channel_last, per_frame_filter, border,
            )  # fmt: skip

        outs = run_per_sample(ws, xp, one, n)
        return cls.wrap(outs, layout, dtype=out_dtype, ndim=tl.sample_ndim)

    def _fills(self, ws: Workspace, in_dtype: np.dtype[Any], border: str) -> list[Any]:
        """Per sample: the fill value(s) (an array, one per frame or one), or None."""
        n = ws.batch_size
        if len(ws.inputs) < 3:
            return [None] * n
        ftl = ws.inputs[2]
        if ftl.np_dtype != in_dtype:
            raise self.error(
                "The padding scalars (third positional argument) must be of the same time as "
                f"the input samples. Got {_type_name(ftl.np_dtype)} for pad values while the "
                f"input samples are of type {_type_name(in_dtype)}."
            )
        out = []
        seq_fill = (ftl.layout() or "")[:1] == "F"
        for i, v in enumerate(ftl.samples()):
            v = np.asarray(v.get() if hasattr(v, "get") else v)  # synchronize! (tiny scalars)
            if not seq_fill and v.size != 1:
                raise self.error(
                    f"Padding values must be scalars, got {v.size} elements for a sample of idx "
                    f"{i}."
                )
            out.append(v.reshape(-1))
        return out

    def _anchors(self, ws: Workspace, nax: int) -> list[list[tuple[int, ...]]]:
        """Per sample: the anchors, one per frame (per-frame argument) or one."""
        per_frame = (
            ws.is_tensor_arg("anchor") and (ws.arg_inputs["anchor"].layout() or "")[:1] == "F"
        )
        out = []
        for i, v in enumerate(ws.arg_samples("anchor", np.int64)):
            rows = v.reshape(-1, v.shape[-1]) if per_frame and v.ndim > 1 else v.reshape(1, -1)
            anchors = []
            for row in rows:
                if row.size not in (1, nax):
                    raise self.arg_error(
                        "anchor",
                        f"sample {i}: expected 1 or {nax} values (one per data axis), got "
                        f"{row.size}",
                    )
                anchors.append(tuple(np.broadcast_to(row, (nax,)).tolist()))
            out.append(anchors)
        return out

    def _sample(
        self,
        xp: Any,
        cv2: Any,
        x: Any,
        flt: Any,
        anchors: list[tuple[int, ...]],
        fill: Any,
        out_dtype: np.dtype[Any],
        seq: int,
        nax: int,
        channel_last: bool,
        per_frame_filter: bool,
        border: str,
    ) -> Any:
        lead = x.shape[:seq]
        planes = x.reshape(-1, *x.shape[seq:]) if seq else x[None]
        frames = x.shape[0] if seq else 1
        per_plane = planes.shape[0] // max(frames, 1) if frames else 1
        if self._valid:
            fs = flt.shape[per_frame_filter:]
            spatial = tuple(s - f + 1 for s, f in zip(x.shape[seq : seq + nax], fs))
            out_shape = (*lead, *spatial, *x.shape[seq + nax :])
        else:
            out_shape = x.shape
        out = xp.empty(out_shape, dtype=out_dtype)
        if x.size == 0 or out.size == 0:
            return out
        flat_out = out.reshape(-1, *out.shape[seq:]) if seq else out[None]
        for p in range(planes.shape[0]):
            f = p // per_plane if seq else 0
            w = flt[f if flt.shape[0] > 1 else 0] if per_frame_filter else flt
            anchor = anchors[f if len(anchors) > 1 else 0]
            fv = 0 if fill is None else fill[f if fill.size > 1 else 0]
            flat_out[p] = self._plane(xp, cv2, planes[p], w, anchor, fv, out_dtype, nax, border)
        return out

    def _plane(
        self,
        xp: Any,
        cv2: Any,
        x: Any,
        w: Any,
        anchor: tuple[int, ...],
        fill: Any,
        out_dtype: np.dtype[Any],
        nax: int,
        border: str,
    ) -> Any:
        """One image (``nax`` data axes, maybe channels last) filtered."""
        fshape = w.shape
        anchor = tuple(fshape[a] // 2 if anchor[a] < 0 else anchor[a] for a in range(nax))
        if self._valid:
            anchor = tuple(s // 2 for s in fshape)
            before = [(0, 0)] * nax
            crop = tuple(slice(a, a + n - s + 1) for a, n, s in zip(anchor, x.shape, fshape))
        else:
            before = [(a, s - a - 1) for a, s in zip(anchor, fshape)]
            crop = None
        if cv2 is not None:
            return self._plane_cv2(cv2, x, w, anchor, fill, out_dtype, border, before, crop)
        if crop is not None:
            pad = x
        else:
            pad_width = [*before, *([(0, 0)] * (x.ndim - nax))]
            mode = _PAD_MODES[border]
            kw = {"constant_values": fill} if mode == "constant" else {}
            pad = xp.pad(x, pad_width, mode=mode, **kw)
        pad = pad.astype(np.float32, copy=False)
        spatial = tuple(n - s + 1 for n, s in zip(pad.shape, fshape))
        acc = None
        wh = np.asarray(w.get() if hasattr(w, "get") else w, np.float32)  # synchronize! (small)
        for k in np.ndindex(*fshape):
            sl = tuple(slice(o, o + n) for o, n in zip(k, spatial))
            term = pad[sl] * wh[k]
            acc = term if acc is None else xp.add(acc, term, out=acc)
        assert acc is not None
        return convert_sat(xp, acc, out_dtype)

    @staticmethod
    def _plane_cv2(
        cv2: Any,
        x: np.ndarray,
        w: np.ndarray,
        anchor: tuple[int, ...],
        fill: Any,
        out_dtype: np.dtype[Any],
        border: str,
        before: list[tuple[int, int]],
        crop: tuple[slice, ...] | None,
    ) -> np.ndarray:
        """DALI's CPU filter: OpenCV's ``filter2D`` (borders it lacks made by padding)."""
        ddepth = -1 if out_dtype == x.dtype else cv2.CV_32F
        kernel = np.ascontiguousarray(w, np.float32)
        ocv_anchor = (anchor[1], anchor[0])
        if x.ndim == 3 and x.shape[2] > 4:
            x = np.ascontiguousarray(x)
        if crop is not None:
            out = cv2.filter2D(
                x, ddepth, kernel, anchor=ocv_anchor, borderType=cv2.BORDER_REFLECT_101
            )
            out = out[crop]
        elif border == "wrap" or (border == "constant" and fill != 0):
            pad_width = [*before, *([(0, 0)] * (x.ndim - 2))]
            if border == "wrap":
                padded = np.pad(x, pad_width, mode="wrap")
            else:
                padded = np.pad(x, pad_width, mode="constant", constant_values=fill)
            out = cv2.filter2D(padded, ddepth, kernel, anchor=ocv_anchor)
            (t, _), (lft, _) = before
            out = out[t : t + x.shape[0], lft : lft + x.shape[1]]
        else:
            flag = {
                "reflect_101": cv2.BORDER_REFLECT_101,
                "reflect_1001": cv2.BORDER_REFLECT,
                "clamp": cv2.BORDER_REPLICATE,
                "constant": cv2.BORDER_CONSTANT,
            }[border]
            out = cv2.filter2D(x, ddepth, kernel, anchor=ocv_anchor, borderType=flag)
        return out.reshape(out.shape[:2] + x.shape[2:])

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        meta = like_input(node, dtype=node.scalar_args.get("dtype") or node.inputs[0].dtype)
        if str(node.scalar_args.get("mode", "same")).lower() == "valid":
            meta[0]["static_shape"] = None
        return meta


def _vec(v: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(a) for a in v) + "}"


def _shape(s: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(a) for a in s) + "}"
