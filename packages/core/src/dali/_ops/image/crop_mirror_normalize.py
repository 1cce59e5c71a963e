"""`fn.crop_mirror_normalize`: crop, mirror, normalise, permute and convert at once.

The window is that of `fn.crop` (`dali._ops.window.crop_attr`). The values are
``scale · (in − mean) / std + shift``, computed in float32 as DALI does
(``(in − mean') · inv`` with ``mean' = mean − shift·std/scale`` and ``inv = scale/std``); the
window is mirrored horizontally *after* cropping, permuted to ``output_layout`` (default CHW),
converted to ``dtype`` (default FLOAT; integers are rounded half away from zero and saturated)
and optionally padded to a power of two channels. On the CPU a uint8 image is normalised
through a 256-entry lookup table computed with that very float32 formula (bit-identical, and
~10× faster than arithmetic). On the GPU the whole batch, ragged or not, is one fused kernel
launch (`dali._ops.window.extract_gpu`) with the same arithmetic.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     img = types.Constant(np.full((4, 6, 3), 192, np.uint8), layout="HWC")
    ...     return fn.crop_mirror_normalize(img, crop=(2, 2), mean=[128.0], std=[64.0])
    >>> (cmn,) = pipe().run()
    >>> cmn.layout(), cmn.as_array().shape, float(cmn.as_array().max())
    ('CHW', (1, 3, 2, 2), 1.0)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec import gil
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator, OperatorError
from dali._ops.image import _cmn_jit
from dali._ops.image._common import image_layout, optional_cv2, static_image_layout
from dali._ops.numeric import array_module, batch_array, convert_sat, run_per_sample, same_rows
from dali._ops.window import extract_gpu
from dali._ops.window.crop_attr import CROP_ARGS, CROP_LAYOUTS, CropAttr
from dali._ops.window.extract import output_dtype_arg, window_slices
from dali._ops.window.out_of_bounds import fill_array

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["CropMirrorNormalize"]


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

        self._win = CropAttr(self)
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
    def _norm_params(
        self, ws: Workspace, channels: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, bool]:
        """Per-sample folded (mean', inv) as float32 ``(batch, C)`` arrays (C: the max channels),
        and whether every sample has the same ones."""
        n = len(channels)
        const = not (self.is_tensor_arg("mean") or self.is_tensor_arg("std"))
        if const and list(channels).count(channels[0]) == n:
            c = channels[0]
            rows = self._const_rows.get(c)
            if rows is None:  # computed once per channel count
                m, s = self._fold(0, np.asarray(self.arg("mean")), np.asarray(self.arg("std")), c)
                rows = self._const_rows[c] = (m[None], s[None])
            return np.broadcast_to(rows[0], (n, c)), np.broadcast_to(rows[1], (n, c)), True
        means = ws.arg_vectors("mean")
        stds = ws.arg_vectors("std")
        cmax = max(channels, default=1)
        mean_out = gil.zeros((n, cmax), np.float32)  # (np.zeros gives the GIL up)
        inv_out = gil.zeros((n, cmax), np.float32)
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

    def _mirror(self, ws: Workspace) -> np.ndarray:
        """Per-sample mirror flags; integer flags in one array (`fn.random.coin_flip`) are read
        without a per-sample loop."""
        if ws.is_tensor_arg("mirror") and ws.batch_size:
            try:
                flags = np.asarray(ws.arg_batch("mirror"))
            except OperatorError:  # the samples differ in shape: checked one by one below
                flags = None
            if flags is not None and flags.dtype.kind in "biu" and flags.size == ws.batch_size:
                return flags.reshape(-1) != 0
        return ws.arg_scalars("mirror", np.int64) != 0

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
    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        in_layout = image_layout(self, tl, CROP_LAYOUTS)
        out_layout = self._out_layout(in_layout)
        perm = tuple(in_layout.index(a) for a in out_layout)
        c_axis, w_axis = in_layout.find("C"), in_layout.find("W")
        dense = batch_array(tl, xp)
        samples = None if dense is not None else tl.samples()
        n = len(tl)
        if n == 0:
            return tl_cls.wrap([], out_layout, dtype=self._dtype, ndim=tl.sample_ndim)
        shapes = [dense.shape[1:]] * n if samples is None else [s.shape for s in samples]
        channels = [s[c_axis] for s in shapes]
        wins = self._win.windows(ws, shapes, in_layout)
        mean, inv, same_norm = self._norm_params(ws, channels)
        mirror = self._mirror(ws)
        plan = _CmnPlan(self, in_layout, perm, c_axis, w_axis)

        if xp is np and tl.np_dtype == np.uint8 and plan.lut_ok:
            return self._run_lut(ws, tl, plan, wins, mean, inv, same_norm, mirror, out_layout)
        uniform_args = dense is not None and same_norm and all(w == wins[0] for w in wins)
        if uniform_args:
            out = plan.normalize(xp, dense, wins[0], mean[0], inv[0], mirror, channels[0], lead=1)
            return tl_cls.wrap(out, out_layout)
        src = samples if samples is not None else tl.samples()

        def one(i: int) -> Any:
            return plan.normalize(
                xp, src[i], wins[i], mean[i], inv[i], mirror[i : i + 1], channels[i]
            )

        return tl_cls.wrap(run_per_sample(ws, xp, one, n), out_layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One fused kernel launch for the batch (`extract_gpu.cmn_batch`), ragged or not.

        The windows, the folded mean/std and the mirror flags are computed on the host by the
        CPU path's code; the kernel reads each input element once and writes the output in its
        final layout and type (uint8 HWC → float16 CHW in one pass).
        """
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        in_layout = image_layout(self, tl, CROP_LAYOUTS)
        out_layout = self._out_layout(in_layout)
        n = len(tl)
        if n == 0:
            return TensorListGPU.wrap([], out_layout, dtype=self._dtype, ndim=tl.sample_ndim)
        src = extract_gpu.gpu_batch(tl)
        c_axis = in_layout.find("C")
        shape_arr = src.shape_array()
        channel_arr = shape_arr[:, c_axis]
        channels = channel_arr.tolist()
        wins: Any
        if self._win.whole:  # the whole input: no per-sample window lists
            wins = extract_gpu.WindowArrays(np.zeros_like(shape_arr), shape_arr)
        else:
            wins = self._win.windows(ws, src.shapes, in_layout)
        mean, inv, same_norm = self._norm_params(ws, channels)
        if self.arg("pad_output"):
            out_channels = np.array([_next_pow2(c) for c in channels], np.int64)
        else:
            out_channels = channel_arr
        fill = self._gpu_fill(src.shapes, wins, channels, in_layout)
        return extract_gpu.cmn_batch(
            src,
            wins,
            in_layout=in_layout,
            out_layout=out_layout,
            out_dtype=self._dtype,
            mirror=self._mirror(ws),
            mean=mean,
            inv=inv,
            uniform_norm=same_norm,
            out_channels=out_channels,
            fill=fill,
        )

    def _gpu_fill(
        self,
        shapes: Sequence[tuple[int, ...]],
        wins: Sequence[tuple[list[int], list[int]]] | extract_gpu.WindowArrays,
        channels: Sequence[int],
        in_layout: str,
    ) -> np.ndarray:
        """The out-of-bounds values in the output type: one, or one per channel.

        ``fill_values`` is checked against the channels of every sample whose window leaves
        the input, as the CPU path checks it (only those samples use it).
        """
        values = np.asarray(self.arg("fill_values"), np.float64).reshape(-1)
        c_axis = in_layout.find("C")
        if values.size > 1:
            if isinstance(wins, extract_gpu.WindowArrays):
                wins = list(zip(wins.anchors.tolist(), wins.shapes.tolist()))
            checked = set()
            for i, (anchor, shape) in enumerate(wins):
                c = channels[i]
                if c in checked or window_slices(anchor, shape, shapes[i])[2]:
                    continue
                try:
                    fill_array(self, values, self._dtype, len(shape), c_axis, c)
                except Exception as e:
                    raise SampleFailure(i, e) from e
                checked.add(c)
        return convert_sat(np, values if values.size else np.zeros(1), self._dtype)

    def _run_lut(
        self,
        ws: Workspace,
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
        from dali._tensors.base import aligned_empty

        samples = tl.samples()
        n = len(samples)
        out_shapes = [plan.out_shape(w[1]) for w in wins]
        uniform = all(s == out_shapes[0] for s in out_shapes)
        dtype = self._dtype
        # aligned: this batch is usually handed to a framework (XLA shares only aligned memory)
        out = aligned_empty((n, *out_shapes[0]), dtype) if uniform else None
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
        return TensorListCPU.wrap(out if out is not None else results, out_layout)

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
        # the window (`CropAttr.static_shape`), its channels padded, permuted to the output layout
        shape = CropAttr.static_shape(node, src.static_shape, in_layout)
        if shape is None or not in_layout or sorted(out_layout or "") != sorted(in_layout):
            shape = None
        else:
            c = in_layout.find("C")
            channels = shape[c] if c >= 0 else None
            if channels is not None and node.scalar_args.get("pad_output"):
                shape = (*shape[:c], _next_pow2(channels), *shape[c + 1 :])
            shape = tuple(shape[in_layout.index(a)] for a in out_layout)
        return [
            {
                "dtype": dali_dtype(dtype) if dtype else DALIDataType.FLOAT,
                "ndim": src.ndim,
                "layout": out_layout if in_layout else None,
                "static_shape": shape,
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
        return fill_array(
            self.op, self.fill_values, self.dtype, ndim + lead, self.c_axis + lead, channels
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

        One Numba call with the `jit` extra (`_cmn_jit`); else OpenCV (flip, split and one LUT
        per channel, each releasing the GIL), and numpy's fancy indexing without it.
        """
        cv2 = self.cv2
        c = region.shape[2]
        dst_view = dst.view(np.uint16) if dst.dtype == np.float16 else dst
        chw = self.perm == (2, 0, 1)
        if _cmn_jit.available():  # one GIL-free call (see `_cmn_jit`)
            _cmn_jit.normalize(region, lut[1].reshape(c, 256), mirror, dst_view, chw=chw)
            return
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
