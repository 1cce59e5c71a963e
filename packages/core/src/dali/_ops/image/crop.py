"""`fn.crop` and `fn.crop_mirror_normalize` (DALI §3.5, §3.6), and the crop-window arithmetic.

A crop window is an ``anchor`` and a ``shape`` in the input's own dimensions. The crop size
comes from ``crop`` (``(H, W)`` or ``(D, H, W)``) or ``crop_h``/``crop_w``/``crop_d`` (truncated
to integers; 0 keeps the whole extent); the start along each cropped axis is
``round_half_away(double(float32(pos)) · (extent − crop))`` with ``pos`` = ``crop_pos_x`` /
``crop_pos_y`` / ``crop_pos_z``, as DALI computes it (``crop_pos_y=0.7`` with 75 spare rows
starts at row 52; float64 arithmetic would give 53). ``rounding="truncate"`` truncates instead.

A window that does not fit the input is handled by ``out_of_bounds_policy``: ``"error"`` (the
default) fails naming the sample and the sizes, ``"pad"`` (or its alias ``"constant"``) fills
the outside with ``fill_values`` (one value, or one per channel), ``"trim_to_shape"`` cuts the
window down to the input. `fn.slice` shares `window_slices`, `apply_policy` and
`extract_window`.

`fn.crop_mirror_normalize` computes ``scale · (in − mean) / std + shift`` in float32 as DALI does
(``(in − mean') · inv`` with ``mean' = mean − shift·std/scale`` and ``inv = scale/std``), mirrors
horizontally *after* cropping, permutes to ``output_layout`` (default CHW), converts to ``dtype``
(default FLOAT; integers are rounded half away from zero and saturated) and optionally pads the
channels to a power of two. On the CPU a uint8 image is normalised through a 256-entry lookup
table computed with that very float32 formula (bit-identical, and ~10× faster than arithmetic).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(40 * 60 * 3, dtype=np.uint8).reshape(40, 60, 3)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.crop(x, crop=(20, 30)), fn.crop_mirror_normalize(x, mean=[128.0], std=[64.0])
    >>> crop, cmn = pipe().run()
    >>> np.array_equal(crop.as_array()[0], img[10:30, 15:45]), cmn.as_array().shape
    (True, (1, 3, 40, 60))
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.generic.cast import (
    array_module,
    batch_array,
    convert_sat,
    per_sample_scalars,
    per_sample_vectors,
    round_half_away_int,
    run_per_sample,
    same_rows,
)

__all__ = [
    "CROP_ARGS",
    "CROP_LAYOUTS",
    "Crop",
    "CropMirrorNormalize",
    "CropWindows",
    "apply_policy",
    "check_policy",
    "default_layout",
    "extract_window",
    "fill_array",
    "image_layout",
    "optional_cv2",
    "output_dtype_arg",
    "static_image_layout",
    "window_slices",
]

#: Layouts accepted by the crop operators, in DALI's order (the first of each ndim is the default
#: for an input without a layout).
CROP_LAYOUTS = ("HWC", "CHW", "DHWC", "CDHW", "FHWC", "FCHW", "CFHW", "FDHWC", "FCDHW", "CFDHW")
POLICIES = ("error", "pad", "constant", "trim_to_shape")


_CV2: list[Any] = []


def optional_cv2() -> Any:
    """OpenCV when installed (the ``image`` extra), else None: the fast CPU paths use it."""
    if not _CV2:
        try:
            import cv2
        except ImportError:
            cv2 = None
        _CV2.append(cv2)
    return _CV2[0]


# --------------------------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------------------------


def default_layout(ndim: int | None, allowed: Sequence[str]) -> str | None:
    """The layout DALI assumes for an input without one: the first allowed one of that ndim."""
    if ndim is None:
        return None
    for layout in allowed:
        if len(layout) == ndim:
            return layout
    return None


def image_layout(op: Operator, tl: Any, allowed: Sequence[str]) -> str:
    """The layout of an image batch, checked against ``allowed`` (empty → the default).

    Raises:
        OperatorError: naming the operator, for an unsupported layout or number of dimensions.
    """
    layout = tl._layout
    if layout:
        if layout not in allowed:
            raise op.error(
                f"unsupported input layout '{layout}'; expected one of "
                + ", ".join(f"'{a}'" for a in allowed)
            )
        return layout
    found = default_layout(tl._ndim, allowed)
    if found is None:
        raise op.error(
            f"the input has {tl._ndim} dimensions and no layout; expected a layout among "
            + ", ".join(f"'{a}'" for a in allowed)
        )
    return found


def static_image_layout(node: Any, allowed: Sequence[str]) -> str | None:
    """The layout an image operator's output keeps, when known at trace time."""
    src = node.inputs[0]
    if src.layout:
        return src.layout
    if src.layout == "":
        return default_layout(src.ndim, allowed)
    return None


# --------------------------------------------------------------------------------------------
# Windows: arithmetic, bounds policy, extraction with fill (numpy and CuPy alike)
# --------------------------------------------------------------------------------------------


def check_policy(op: Operator) -> str:
    policy = op.arg("out_of_bounds_policy")
    if policy not in POLICIES:
        raise op.arg_error(
            "out_of_bounds_policy",
            f'unsupported value {policy!r}; supported values are "error" (default), "pad" '
            f'and "trim_to_shape"',
        )
    return "pad" if policy == "constant" else policy


def apply_policy(
    policy: str,
    anchor: list[int],
    shape: list[int],
    in_shape: Sequence[int],
) -> tuple[list[int], list[int]] | str:
    """Apply the out-of-bounds policy; returns the window, or an error message for "error"."""
    if policy == "trim_to_shape":
        anchor, shape = list(anchor), list(shape)
        for d, n in enumerate(in_shape):
            anchor[d] = max(anchor[d], 0)
            if anchor[d] + shape[d] >= n:
                shape[d] = max(0, n - anchor[d])
        return anchor, shape
    if policy == "error":
        for d, n in enumerate(in_shape):
            end = anchor[d] + shape[d]
            if anchor[d] < 0 or anchor[d] > n or end < 0 or end > n:
                return (
                    f"the window of shape {tuple(shape)} at {tuple(anchor)} does not fit in the "
                    f'input of shape {tuple(in_shape)} (out_of_bounds_policy="error"; use '
                    f'"pad" or "trim_to_shape" to allow it)'
                )
    return anchor, shape


def window_slices(
    anchor: Sequence[int], shape: Sequence[int], in_shape: Sequence[int]
) -> tuple[tuple[slice, ...], tuple[slice, ...], bool]:
    """Source slices (in the input), destination slices (in the window), whether it is inside."""
    src, dst = [], []
    inside = True
    for a, s, n in zip(anchor, shape, in_shape):
        lo, hi = max(a, 0), min(a + s, n)
        hi = max(hi, lo)
        src.append(slice(lo, hi))
        dst.append(slice(lo - a, hi - a))
        inside = inside and a >= 0 and a + s <= n
    return tuple(src), tuple(dst), inside


def fill_array(
    op: Operator,
    values: Sequence[float],
    dtype: Any,
    ndim: int,
    channel_axis: int | None,
    channels: int | None,
) -> np.ndarray:
    """``fill_values`` as an array of ``dtype`` broadcastable against a window of ``ndim`` dims.

    One value fills everything; several values are per channel (their count must match the
    channels of the output).
    """
    vals = np.asarray(values, dtype=np.float64).reshape(-1)
    if vals.size == 0:
        vals = np.zeros(1)
    if vals.size > 1:
        if channel_axis is None:
            raise op.arg_error(
                "fill_values",
                f"{vals.size} values given but the input layout has no channel dimension",
            )
        if channels is not None and vals.size < channels:
            raise op.arg_error(
                "fill_values",
                f"give one value or one per channel: {vals.size} values for {channels} channels",
            )
        vals = vals[:channels] if channels is not None else vals
        shape = [1] * ndim
        shape[channel_axis] = vals.size
        vals = vals.reshape(shape)
    else:
        vals = vals.reshape((1,) * ndim)
    return convert_sat(np, vals, np.dtype(dtype))


def extract_window(
    xp: Any,
    x: Any,
    anchor: Sequence[int],
    shape: Sequence[int],
    fill: np.ndarray | None,
    out_dtype: Any = None,
    lead: int = 0,
    out: Any = None,
) -> Any:
    """The window of ``x`` (after ``lead`` batch axes), converted to ``out_dtype``, as a copy.

    Outside the input the window takes ``fill`` (an array of ``out_dtype`` broadcastable to the
    window, see `fill_array`). With ``out`` the result is written there.
    """
    out_dtype = np.dtype(out_dtype or x.dtype)
    pre = (slice(None),) * lead
    src, dst, inside = window_slices(anchor, shape, x.shape[lead:])
    region = x[pre + src]
    if inside:
        # DALI's crop/slice kernels truncate float to integer (conformance: 2.5 -> 2)
        converted = convert_sat(xp, region, out_dtype, truncate=True)
        if out is not None:
            out[...] = converted
            return out
        if converted is region:
            return xp.array(region, copy=True, order="C")
        return xp.ascontiguousarray(converted)
    if out is None:
        out = xp.empty(x.shape[:lead] + tuple(shape), dtype=out_dtype)
    out[...] = fill if xp is np or fill is None else xp.asarray(fill)
    if region.size:
        out[pre + dst] = convert_sat(xp, region, out_dtype, truncate=True)
    return out


class CropWindows:
    """The crop arguments of an operator (DALI's ``CropAttr``): validation and windows."""

    def __init__(self, op: Operator) -> None:
        self.op = op
        has = op.has_arg
        self.has_crop = has("crop")
        self.has_w, self.has_h, self.has_d = has("crop_w"), has("crop_h"), has("crop_d")
        self.whole = not (self.has_crop or self.has_w or self.has_h or self.has_d)
        if self.has_w != self.has_h:
            raise op.arg_error(
                "crop_w" if self.has_w else "crop_h",
                "`crop_w` and `crop_h` arguments must be provided together",
            )
        if self.has_d and not self.has_w:
            raise op.arg_error(
                "crop_d", "`crop_d` argument must be provided together with `crop_w` and `crop_h`"
            )
        if self.has_crop and (self.has_w or self.has_d):
            raise op.arg_error("crop", "`crop` argument is not compatible with `crop_h`, `crop_w`")
        if self.has_crop and not op.is_tensor_arg("crop"):
            n = len(op.arg("crop"))
            if n not in (2, 3):
                raise op.arg_error(
                    "crop", f"should have 2 or 3 elements (H, W or D, H, W); got {n}"
                )
        rounding = op.arg("rounding")
        if rounding not in ("round", "truncate"):
            raise op.arg_error(
                "rounding",
                f'value {rounding!r} is not supported; supported values are "round", "truncate"',
            )
        self.truncate = rounding == "truncate"
        for name in ("crop_pos_x", "crop_pos_y", "crop_pos_z"):
            if not op.is_tensor_arg(name):
                self._check_pos(name, op.arg(name))
        self.policy = check_policy(op)
        self.size_arg = "crop" if self.has_crop else ("crop_w" if self.has_w else "crop")

    def _check_pos(self, name: str, value: float, sample: int | None = None) -> None:
        if not 0.0 <= value <= 1.0:
            where = "" if sample is None else f"sample {sample}: "
            raise self.op.arg_error(name, f"{where}{value} is out of range [0.0, 1.0]")

    def sizes(self, ws: Any) -> list[tuple[int, int, int]]:
        """Per-sample requested (d, h, w); values <= 0 mean "the whole extent"."""
        n = ws.batch_size
        op = self.op
        if self.has_crop:
            out = []
            for i, v in enumerate(per_sample_vectors(ws, op, "crop", np.float32)):
                if v.size not in (2, 3):
                    raise op.arg_error(
                        "crop", f"sample {i}: should have 2 or 3 elements; got {v.size}"
                    )
                vals = [int(e) for e in v]  # C++ float -> int truncation
                out.append(tuple(vals) if len(vals) == 3 else (-1, vals[0], vals[1]))
            return out  # type: ignore[return-value]
        if self.has_w:
            w = per_sample_scalars(ws, op, "crop_w", np.float32).astype(np.int64)
            h = per_sample_scalars(ws, op, "crop_h", np.float32).astype(np.int64)
            d = (
                per_sample_scalars(ws, op, "crop_d", np.float32).astype(np.int64)
                if self.has_d
                else np.full(n, -1)
            )
            return [(int(d[i]), int(h[i]), int(w[i])) for i in range(n)]
        return [(-1, -1, -1)] * n

    def positions(self, ws: Any) -> np.ndarray:
        """Per-sample (z, y, x) normalised positions, as float32 (DALI's storage)."""
        cols = []
        for name in ("crop_pos_z", "crop_pos_y", "crop_pos_x"):
            v = per_sample_scalars(ws, self.op, name, np.float32)
            if ws.is_tensor_arg(name):
                for i, p in enumerate(v):
                    self._check_pos(name, float(p), i)
            cols.append(v)
        return np.stack(cols, axis=1)

    def windows(
        self, ws: Any, shapes: Sequence[tuple[int, ...]], layout: str
    ) -> list[tuple[list[int], list[int]]]:
        """The window of every sample, after the out-of-bounds policy.

        Raises:
            SampleFailure: for a window that does not fit with ``out_of_bounds_policy="error"``.
        """
        op = self.op
        n = len(shapes)
        h_dim, w_dim = layout.find("H"), layout.find("W")
        d_dim, f_dim = layout.find("D"), layout.find("F")
        if self.whole:
            return [([0] * len(s), list(s)) for s in shapes]
        sizes = self.sizes(ws)
        pos = self.positions(ws)
        out = []
        for i in range(n):
            in_shape = shapes[i]
            crop = list(in_shape)
            norm = [0.5] * len(in_shape)
            cd, ch, cw = sizes[i]
            if ch > 0:
                crop[h_dim], norm[h_dim] = ch, pos[i, 1]
            if cw > 0:
                crop[w_dim], norm[w_dim] = cw, pos[i, 2]
            if cd > 0:
                z_dim = d_dim if d_dim >= 0 else f_dim  # crop_d crops frames of a sequence
                if z_dim >= 0:
                    crop[z_dim], norm[z_dim] = cd, pos[i, 0]
            anchor = []
            for d, extent in enumerate(in_shape):
                a = float(np.float32(norm[d])) * (extent - crop[d])
                anchor.append(int(a) if self.truncate else round_half_away_int(a))
            win = apply_policy(self.policy, anchor, crop, in_shape)
            if isinstance(win, str):
                raise SampleFailure(i, op.arg_error(self.size_arg, win))
            out.append(win)
        return out


#: The crop arguments shared by `fn.crop` and `fn.crop_mirror_normalize` (DALI's CropAttr and
#: OutOfBoundsAttr).
CROP_ARGS = (
    Arg("crop", "float_vec", tensor=True, doc="Window size (H, W) or (D, H, W)."),
    Arg("crop_h", "float", default=0.0, tensor=True, doc="Window height (0: whole height)."),
    Arg("crop_w", "float", default=0.0, tensor=True, doc="Window width (0: whole width)."),
    Arg("crop_d", "float", default=0.0, tensor=True, doc="Window depth (volumes, sequences)."),
    Arg("crop_pos_x", "float", default=0.5, tensor=True, doc="Normalised horizontal start."),
    Arg("crop_pos_y", "float", default=0.5, tensor=True, doc="Normalised vertical start."),
    Arg("crop_pos_z", "float", default=0.5, tensor=True, doc="Normalised depth start."),
    Arg("rounding", "str", default="round", doc='"round" (half away from zero) or "truncate".'),
    Arg(
        "out_of_bounds_policy",
        "str",
        default="error",
        doc='"error", "pad" (fill with fill_values) or "trim_to_shape".',
    ),
    Arg("fill_values", "float_vec", default=(0.0,), doc="Padding value(s): one, or per channel."),
    Arg("image_type", "image_type", doc="Deprecated; ignored."),
)


def output_dtype_arg(op: Operator, allowed: Sequence[str] | None) -> Any:
    """The ``dtype`` argument (or its deprecated alias ``output_dtype``), checked."""
    from dali._dtypes import np_dtype, type_name

    if op.has_arg("dtype") and op.has_arg("output_dtype"):
        raise op.arg_error("output_dtype", "is a deprecated alias of `dtype`; give only `dtype`")
    name = "output_dtype" if op.has_arg("output_dtype") else "dtype"
    dtype = op.arg(name)
    if not dtype:
        return None
    try:
        np_t = np_dtype(dtype)
    except TypeError:
        raise op.arg_error(name, f"unsupported output type {type_name(dtype)}") from None
    if allowed is not None and np_t.name not in allowed:
        raise op.arg_error(
            name,
            f"unsupported output type {type_name(dtype)}; supported: "
            + ", ".join(type_name(t) for t in allowed),
        )
    return np_t


# --------------------------------------------------------------------------------------------
# fn.crop
# --------------------------------------------------------------------------------------------


@register(
    "crop",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        *CROP_ARGS,
        Arg("dtype", "dtype", doc="Output type: FLOAT, FLOAT16 or UINT8 (default: the input's)."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
    ],
)
class Crop(Operator):
    """Crop a window of ``crop`` (H, W) or ``crop_h``×``crop_w`` at ``crop_pos_x/y``.

    The window starts at ``round(crop_pos · (extent − crop))`` (halves away from zero). The
    layout and, unless ``dtype`` is given, the type are kept: ``fn.crop(img, crop=(20, 30))`` of a
    40×60 HWC image is ``img[10:30, 15:45]``.
    """

    def setup(self) -> None:
        self._win = CropWindows(self)
        self._dtype = output_dtype_arg(self, ("float32", "float16", "uint8"))

    def run_cpu(self, ws: Any) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, CROP_LAYOUTS)
        out_dtype = self._dtype or tl._np_dtype
        if len(tl) == 0:
            return tl_cls._make([], layout, dtype=out_dtype, ndim=tl._ndim)
        dense = batch_array(tl, xp)
        if dense is not None:
            wins = self._win.windows(ws, [dense.shape[1:]] * len(dense), layout)
            if all(w == wins[0] for w in wins):  # one window: one slicing of the whole batch
                anchor, shape = wins[0]
                fill = self._fill(shape, layout, out_dtype, lead=1)
                out = extract_window(xp, dense, anchor, shape, fill, out_dtype, lead=1)
                return tl_cls._make(out, layout)
        samples = tl._samples()
        if dense is None:
            wins = self._win.windows(ws, [s.shape for s in samples], layout)
        uniform = all(w[1] == wins[0][1] for w in wins)
        out = xp.empty((len(wins), *wins[0][1]), dtype=out_dtype) if uniform else None

        def one(i: int) -> Any:
            anchor, shape = wins[i]
            fill = self._fill(shape, layout, out_dtype)
            dst = None if out is None else out[i]
            return extract_window(xp, samples[i], anchor, shape, fill, out_dtype, out=dst)

        results = run_per_sample(ws, xp, one, len(wins))
        return tl_cls._make(out if out is not None else results, layout)

    def _fill(self, shape: Sequence[int], layout: str, dtype: Any, lead: int = 0) -> np.ndarray:
        c = layout.find("C")
        return fill_array(
            self,
            self.arg("fill_values"),
            dtype,
            len(shape) + lead,
            None if c < 0 else c + lead,
            None if c < 0 else shape[c],
        )

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or node.scalar_args.get("output_dtype") or src.dtype
        return [
            {
                "dtype": dali_dtype(dtype) if dtype is not None else None,
                "ndim": src.ndim,
                "layout": static_image_layout(node, CROP_LAYOUTS),
            }
        ]


# --------------------------------------------------------------------------------------------
# fn.crop_mirror_normalize
# --------------------------------------------------------------------------------------------

_CMN_OUT_TYPES = ("float32", "float16", "int8", "uint8")


def _next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def _default_out_layout(in_layout: str) -> str:
    """ "CHW" generalised to sequences and volumes: C moves before the spatial dimensions."""
    if len(in_layout) == 3:
        return "CHW"
    spatial = "".join(a for a in in_layout if a in "DHW")
    first = min(in_layout.find(a) for a in spatial)
    c = in_layout.find("C")
    if c < first:
        return in_layout
    rest = in_layout.replace("C", "")
    return rest[:first] + "C" + rest[first:]


class _LutCache:
    """Lookup tables for uint8 inputs, keyed by the normalisation parameters (thread-safe)."""

    def __init__(self) -> None:
        self._tables: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()

    def get(
        self, mean: np.ndarray, inv: np.ndarray, dtype: np.dtype[Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The table as (256, C) interleaved and (C, 1, 256) planar arrays (float16 as bits)."""
        key = (mean.tobytes(), inv.tobytes(), dtype.str)
        tables = self._tables.get(key)
        if tables is None:
            v = np.arange(256, dtype=np.float32)[:, None]
            values = (v - mean[None, :]) * inv[None, :]  # float32, exactly as the arithmetic
            table = np.ascontiguousarray(convert_sat(np, values, dtype))
            if dtype == np.float16:
                table = table.view(np.uint16)
            c = table.shape[1]
            tables = (table, np.ascontiguousarray(table.T).reshape(c, 1, 256))
            with self._lock:
                if len(self._tables) > 64:
                    self._tables.clear()
                self._tables[key] = tables
        return tables


@register(
    "crop_mirror_normalize",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        *CROP_ARGS,
        Arg("mean", "float_vec", default=(0.0,), tensor=True, doc="Mean, one or per channel."),
        Arg("std", "float_vec", default=(1.0,), tensor=True, doc="Std, one or per channel."),
        Arg("mirror", "int", default=0, tensor=True, doc="Nonzero: flip horizontally."),
        Arg("scale", "float", default=1.0, doc="Multiplies the normalised value."),
        Arg("shift", "float", default=0.0, doc="Added after scaling."),
        Arg("dtype", "dtype", doc="FLOAT (default), FLOAT16, INT8 or UINT8."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
        Arg("output_layout", "layout", default="CHW", doc="Output layout (default CHW)."),
        Arg("pad_output", "bool", default=False, doc="Pad channels to a power of two."),
    ],
)
class CropMirrorNormalize(Operator):
    """Crop, mirror, normalise, change the layout and the type in one pass.

    ``out = scale · (in − mean) / std + shift``; ``mirror`` flips the cropped window horizontally;
    the default output is FLOAT in CHW layout (``output_layout="HWC"`` keeps HWC). With
    ``mean=128, std=64, scale=64, shift=128, dtype=UINT8`` the output equals the input.
    ``mirror=fn.random.coin_flip()`` is the usual per-sample augmentation.
    """

    def setup(self) -> None:
        from dali._dtypes import DALIDataType, np_dtype

        self._win = CropWindows(self)
        dtype = output_dtype_arg(self, _CMN_OUT_TYPES)
        self._dtype = dtype if dtype is not None else np_dtype(DALIDataType.FLOAT)
        for name in ("mean", "std"):
            if not self.is_tensor_arg(name) and len(self.arg(name)) == 0:
                raise self.arg_error(name, "must not be empty")
        if not self.is_tensor_arg("std") and any(s == 0 for s in self.arg("std")):
            raise self.arg_error("std", f"must not contain zeros, got {list(self.arg('std'))}")
        self._scale = float(self.arg("scale"))
        if self._scale == 0:
            raise self.arg_error("scale", "must not be 0")
        self._shift = float(self.arg("shift"))
        self._explicit_layout = self.has_arg("output_layout")
        self._luts = _LutCache()
        self._const_rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # -- parameters --------------------------------------------------------------------------
    def _norm_params(self, ws: Any, channels: Sequence[int]) -> tuple[np.ndarray, np.ndarray, bool]:
        """Per-sample folded (mean', inv) as float32 ``(batch, C)`` arrays (C: the max channels),
        and whether every sample has the same ones."""
        n = len(channels)
        const = not (self.is_tensor_arg("mean") or self.is_tensor_arg("std"))
        if const and all(c == channels[0] for c in channels):
            c = channels[0]
            rows = self._const_rows.get(c)
            if rows is None:  # computed once per channel count
                m, s = self._fold(0, np.asarray(self.arg("mean")), np.asarray(self.arg("std")), c)
                rows = self._const_rows[c] = (m[None], s[None])
            return np.broadcast_to(rows[0], (n, c)), np.broadcast_to(rows[1], (n, c)), True
        means = per_sample_vectors(ws, self, "mean")
        stds = per_sample_vectors(ws, self, "std")
        cmax = max(channels, default=1)
        mean_out = np.zeros((n, cmax), np.float32)
        inv_out = np.zeros((n, cmax), np.float32)
        for i in range(n):
            c = channels[i]
            mean_out[i, :c], inv_out[i, :c] = self._fold(i, means[i], stds[i], c)
        uniform = same_rows(list(mean_out)) and same_rows(list(inv_out))
        return mean_out, inv_out, uniform

    def _fold(self, i: int, m: np.ndarray, s: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
        """``mean' = mean − shift·std/scale`` and ``inv = scale/std`` for ``c`` channels, in
        double precision then float32, as DALI computes them."""
        m = np.asarray(m, np.float64).reshape(-1)
        s = np.asarray(s, np.float64).reshape(-1)
        for name, v in (("mean", m), ("std", s)):
            if v.size not in (1, c):
                raise SampleFailure(
                    i,
                    self.arg_error(
                        name,
                        f"has {v.size} values for an input with {c} channels; give one value or "
                        f"one per channel",
                    ),
                )
        if np.any(s == 0):
            raise SampleFailure(i, self.arg_error("std", "must not contain zeros"))
        m = np.broadcast_to(m, (c,))
        s = np.broadcast_to(s, (c,))
        mean = (m - self._shift * (s / self._scale)).astype(np.float32)
        inv = (self._scale / s).astype(np.float32)
        return mean, inv

    def _mirror(self, ws: Any) -> np.ndarray:
        return per_sample_scalars(ws, self, "mirror", np.int64) != 0

    def _out_layout(self, in_layout: str) -> str:
        out = self.arg("output_layout") if self._explicit_layout else ""
        if not out:
            return in_layout if self._explicit_layout else _default_out_layout(in_layout)
        if sorted(out) != sorted(in_layout):
            raise self.arg_error(
                "output_layout",
                f"'{out}' is not a permutation of the input layout '{in_layout}'",
            )
        return out

    # -- running -----------------------------------------------------------------------------
    def run_cpu(self, ws: Any) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        in_layout = image_layout(self, tl, CROP_LAYOUTS)
        out_layout = self._out_layout(in_layout)
        perm = tuple(in_layout.index(a) for a in out_layout)
        c_axis, w_axis = in_layout.find("C"), in_layout.find("W")
        dense = batch_array(tl, xp)
        samples = None if dense is not None else tl._samples()
        n = len(tl)
        if n == 0:
            return tl_cls._make([], out_layout, dtype=self._dtype, ndim=tl._ndim)
        shapes = [dense.shape[1:]] * n if dense is not None else [s.shape for s in samples]
        channels = [s[c_axis] for s in shapes]
        wins = self._win.windows(ws, shapes, in_layout)
        mean, inv, same_norm = self._norm_params(ws, channels)
        mirror = self._mirror(ws)
        plan = _CmnPlan(self, in_layout, perm, c_axis, w_axis)

        if xp is np and tl._np_dtype == np.uint8 and plan.lut_ok:
            return self._run_lut(ws, tl, plan, wins, mean, inv, same_norm, mirror, out_layout)
        uniform_args = dense is not None and same_norm and all(w == wins[0] for w in wins)
        if uniform_args:
            out = plan.normalize(xp, dense, wins[0], mean[0], inv[0], mirror, channels[0], lead=1)
            return tl_cls._make(out, out_layout)
        src = samples if samples is not None else tl._samples()

        def one(i: int) -> Any:
            return plan.normalize(
                xp, src[i], wins[i], mean[i], inv[i], mirror[i : i + 1], channels[i]
            )

        return tl_cls._make(run_per_sample(ws, xp, one, n), out_layout)

    run_gpu = run_cpu

    def _run_lut(
        self,
        ws: Any,
        tl: Any,
        plan: _CmnPlan,
        wins: list[Any],
        mean: np.ndarray,
        inv: np.ndarray,
        same_norm: bool,
        mirror: np.ndarray,
        out_layout: str,
    ) -> Any:
        from dali._tensors import TensorListCPU

        samples = tl._samples()
        n = len(samples)
        out_shapes = [plan.out_shape(w[1]) for w in wins]
        uniform = all(s == out_shapes[0] for s in out_shapes)
        dtype = self._dtype
        out = np.empty((n, *out_shapes[0]), dtype) if uniform else None
        channels = [s.shape[plan.c_axis] for s in samples]
        shared = same_rows(list(mean)) and same_rows(list(inv)) and same_rows(channels)
        lut0 = (
            self._luts.get(mean[0, : channels[0]], inv[0, : channels[0]], dtype) if shared else None
        )

        def one(i: int) -> Any:
            x, (anchor, shape), c = samples[i], wins[i], channels[i]
            dst = out[i] if out is not None else np.empty(out_shapes[i], dtype)
            src, _, inside = window_slices(anchor, shape, x.shape)
            if plan.pad_output or not inside:
                # padding (of the window or the channels) is rare: the array path
                dst[...] = plan.normalize(np, x, wins[i], mean[i], inv[i], mirror[i : i + 1], c)
                return dst
            lut = lut0 if lut0 is not None else self._luts.get(mean[i, :c], inv[i, :c], dtype)
            plan.normalize_lut(x[src], lut, bool(mirror[i]), dst)
            return dst

        results = ws.map(one, n)
        return TensorListCPU._make(out if out is not None else results, out_layout)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import DALIDataType, dali_dtype

        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or node.scalar_args.get("output_dtype")
        in_layout = static_image_layout(node, CROP_LAYOUTS)
        out_layout = node.scalar_args.get("output_layout")
        if out_layout is None and in_layout:
            out_layout = _default_out_layout(in_layout)
        elif out_layout == "" and in_layout:
            out_layout = in_layout
        return [
            {
                "dtype": dali_dtype(dtype) if dtype else DALIDataType.FLOAT,
                "ndim": src.ndim,
                "layout": out_layout if in_layout else None,
            }
        ]


class _CmnPlan:
    """How one input layout maps to the output: crop, normalise, pad channels, mirror, permute."""

    def __init__(
        self,
        op: CropMirrorNormalize,
        in_layout: str,
        perm: tuple[int, ...],
        c_axis: int,
        w_axis: int,
    ) -> None:
        self.op = op
        self.perm = perm
        self.c_axis = c_axis
        self.w_axis = w_axis
        self.pad_output = bool(op.arg("pad_output"))
        self.fill_values = op.arg("fill_values")
        self.dtype = op._dtype
        # the lookup-table path: 2-D images, channels last in, HWC or CHW out
        self.lut_ok = in_layout == "HWC" and perm in ((0, 1, 2), (2, 0, 1))
        self.cv2 = optional_cv2()

    def out_channels(self, c: int) -> int:
        return _next_pow2(c) if self.pad_output else c

    def out_shape(self, win_shape: Sequence[int]) -> tuple[int, ...]:
        shape = list(win_shape)
        shape[self.c_axis] = self.out_channels(shape[self.c_axis])
        return tuple(shape[p] for p in self.perm)

    def _fill(self, ndim: int, channels: int, lead: int) -> np.ndarray:
        vals = np.asarray(self.fill_values, np.float64).reshape(-1)
        if vals.size == 0:
            vals = np.zeros(1)
        if vals.size > 1 and vals.size < channels:
            raise self.op.arg_error(
                "fill_values",
                f"give one value or one per channel: {vals.size} values for {channels} channels",
            )
        return fill_array(
            self.op,
            vals[:channels] if vals.size > 1 else vals,
            self.dtype,
            ndim + lead,
            self.c_axis + lead,
            channels,
        )

    def _pad_channels(self, xp: Any, out: Any, c: int, lead: int) -> Any:
        oc = self.out_channels(c)
        if oc == c:
            return out
        shape = list(out.shape)
        axis = self.c_axis + lead
        shape[axis] = oc
        padded = xp.empty(tuple(shape), dtype=out.dtype)
        idx: list[Any] = [slice(None)] * len(shape)
        idx[axis] = slice(0, c)
        padded[tuple(idx)] = out
        # DALI 2.4 writes 0 into the padded channels whatever fill_values says (observed by
        # the conformance session; fill_values only fills the out-of-bounds area)
        for k in range(c, oc):
            idx[axis] = k
            padded[tuple(idx)] = 0
        return padded

    def normalize(
        self,
        xp: Any,
        x: Any,
        win: tuple[list[int], list[int]],
        mean: np.ndarray,
        inv: np.ndarray,
        mirror: np.ndarray,
        channels: int,
        lead: int = 0,
    ) -> Any:
        """The array path (numpy or CuPy): one sample, or a batch (``lead=1``) with one window."""
        anchor, shape = win
        ndim = len(shape)
        src, dst, inside = window_slices(anchor, shape, x.shape[lead:])
        pre = (slice(None),) * lead
        region = x[pre + src]
        bshape = [1] * (ndim + lead)
        bshape[self.c_axis + lead] = channels
        m = mean[:channels].reshape(bshape)
        s = inv[:channels].reshape(bshape)
        if xp is not np:
            m, s = xp.asarray(m), xp.asarray(s)
        values = convert_sat(xp, (region.astype(np.float32) - m) * s, self.dtype)
        if inside:
            out = values
        else:
            out = xp.empty(x.shape[:lead] + tuple(shape), dtype=self.dtype)
            fill = self._fill(ndim, channels, lead)
            out[...] = fill if xp is np else xp.asarray(fill)
            if values.size:
                out[pre + dst] = values
        out = self._pad_channels(xp, out, channels, lead)
        out = self._mirror(xp, out, mirror, lead)
        perm = tuple(range(lead)) + tuple(p + lead for p in self.perm)
        return xp.ascontiguousarray(xp.transpose(out, perm))

    def _mirror(self, xp: Any, out: Any, mirror: np.ndarray, lead: int) -> Any:
        if not mirror.any():
            return out
        idx: list[Any] = [slice(None)] * out.ndim
        idx[self.w_axis + lead] = slice(None, None, -1)
        flipped = out[tuple(idx)]
        if lead == 0 or mirror.all():
            return flipped
        mask = mirror.reshape((-1,) + (1,) * (out.ndim - 1))
        return xp.where(xp.asarray(mask) if xp is not np else mask, flipped, out)

    def normalize_lut(
        self,
        region: np.ndarray,
        lut: tuple[np.ndarray, np.ndarray],
        mirror: bool,
        dst: np.ndarray,
    ) -> None:
        """The CPU uint8 path for a window inside the image: table lookups into ``dst``.

        OpenCV (when installed) releases the GIL, so the pool's threads run the samples in
        parallel; numpy's fancy indexing is the fallback.
        """
        cv2 = self.cv2
        c = region.shape[2]
        dst_view = dst.view(np.uint16) if dst.dtype == np.float16 else dst
        chw = self.perm == (2, 0, 1)
        if cv2 is None or c > 4:
            if mirror:
                region = region[:, ::-1]
            for k in range(c):
                looked = lut[0][:, k][region[:, :, k]]
                if chw:
                    dst_view[k] = looked
                else:
                    dst_view[:, :, k] = looked
            return
        if mirror:
            region = cv2.flip(region, 1)
            if region.ndim == 2:
                region = region[:, :, None]
        if chw:
            planes = cv2.split(region) if c > 1 else [region[:, :, 0]]
            pairs = [(planes[k], lut[1][k], dst_view[k]) for k in range(c)]
        elif c > 1:
            pairs = [(region, lut[0].reshape(1, 256, c), dst_view)]
        else:
            pairs = [(region[:, :, 0], lut[1][0], dst_view[:, :, 0])]
        for src, table, out in pairs:
            res = cv2.LUT(src, table, dst=out)
            if res.ctypes.data != out.ctypes.data:  # OpenCV did not write in place
                out[...] = res.reshape(out.shape)
