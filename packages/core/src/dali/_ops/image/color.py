"""Colour operators: one linear colour transform behind all of them.

Every operator here computes ``out = M · rgb + offset`` per pixel, in float32, then converts to
the output type (integers rounded half away from zero and saturated):

* `fn.hsv`, `fn.hue`, `fn.saturation` and `fn.color_twist` work in YIQ space, as DALI does:
  ``M = brightness · contrast · YIQ→RGB · H(hue) · S(saturation) · V(value) · RGB→YIQ``, where the
  hue (degrees) rotates the I/Q plane, the saturation scales I and Q and the value scales all
  three; ``YIQ→RGB`` is the exact inverse of DALI's ``RGB→YIQ`` matrix. ``color_twist`` adds
  ``offset = (half − half · contrast) · brightness`` (``half`` is 128 for integer inputs, 0.5 for
  floats). The defaults give exactly the identity; ``saturation=0`` gives grey (the BT.601 luma).
* `fn.brightness_contrast`, `fn.brightness` and `fn.contrast` are the diagonal case:
  ``out = brightness_shift · range + brightness · (center + contrast · (in − center))``, with
  ``range`` the output type's maximum (1 for floats) and ``center`` (``contrast_center``) by
  default half the input type's positive range (128 for uint8, 0.5 for floats). ``dtype=FLOAT``
  on a uint8 input does not rescale.

Arguments may be per sample; a uniform batch is still transformed in one batched matrix product.
On sequences (FHWC) every argument may also be per frame (``fn.per_frame``): the frames are then
transformed as one batch of images (`dali._ops._sequences`).
On the GPU every batch, ragged or not, is one kernel launch (`dali._ops.image._color_gpu`).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.array([[[10, 200, 30]]], dtype=np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.color_twist(x), fn.brightness(x, brightness=0.5), fn.saturation(x, saturation=0)
    >>> same, half, grey = pipe().run()
    >>> same.as_array()[0].tolist(), half.as_array()[0].tolist(), grey.as_array()[0].tolist()
    ([[[10, 200, 30]]], [[[5, 100, 15]]], [[[124, 124, 124]]])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec import gil
from dali._graph.schema import Arg, register
from dali._ops._sequences import unfold
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image import _color_gpu
from dali._ops.image._common import image_layout, optional_cv2, static_image_layout
from dali._ops.numeric import array_module, batch_array, convert_sat, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "Brightness",
    "BrightnessContrast",
    "ColorTwist",
    "Contrast",
    "Hsv",
    "Hue",
    "Saturation",
    "all_scalar_diag",
    "color_matrices",
]

COLOR_LAYOUTS = ("HWC", "FHWC", "DHWC")

#: DALI's RGB→YIQ matrix (float32 constants); YIQ→RGB is its exact inverse.
_RGB2YIQ = np.array(
    [[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]], dtype=np.float32
).astype(np.float64)
_YIQ2RGB = np.linalg.inv(_RGB2YIQ)
_EYE = np.eye(3)


def color_matrices(
    hue: np.ndarray,
    saturation: np.ndarray,
    value: np.ndarray,
    brightness: np.ndarray,
    contrast: np.ndarray,
) -> np.ndarray:
    """The per-sample ``(n, 3, 3)`` RGB transforms (float64) for the given parameters.

    Entries within 1e-12 of an integer are snapped to it, so that the defaults are exactly the
    identity (the product of the YIQ matrices is the identity only up to rounding).

    Each entry is computed for the whole batch at once from the hue's cosine and sine (the
    product ``YIQ→RGB · H · S · RGB→YIQ`` written out), in blocks of rows small enough for numpy
    to keep the GIL (`dali._exec.gil`): the GPU stage plans a batch on a thread that shares it
    with the pipeline's other threads, and an operation over more than 500 elements (a batched
    matrix product over a few samples already) could wait milliseconds to take it back.
    """
    n = len(hue)
    columns = [
        np.broadcast_to(np.asarray(v, np.float64), (n,))
        for v in (hue, saturation, value, brightness, contrast)
    ]
    return gil.by_rows(lambda *a: (_matrix_rows(*a),), n, 1, *columns)[0]


#: ``YIQ→RGB · H · S · RGB→YIQ`` entry by entry: ``_P0 + sat·cos·_P1 + sat·sin·_P2``.
_P0 = np.outer(_YIQ2RGB[:, 0], _RGB2YIQ[0])
_P1 = np.outer(_YIQ2RGB[:, 1], _RGB2YIQ[1]) + np.outer(_YIQ2RGB[:, 2], _RGB2YIQ[2])
_P2 = np.outer(_YIQ2RGB[:, 1], _RGB2YIQ[2]) - np.outer(_YIQ2RGB[:, 2], _RGB2YIQ[1])


def _matrix_rows(
    hue: np.ndarray,
    sat: np.ndarray,
    value: np.ndarray,
    brightness: np.ndarray,
    contrast: np.ndarray,
) -> np.ndarray:
    """`color_matrices` of a block of rows, one entry (a vector over the rows) at a time."""
    rad = hue * (math.pi / 180.0)
    cs, ss = np.cos(rad) * sat, np.sin(rad) * sat
    scale = value * brightness * contrast
    m = gil.zeros((len(hue), 3, 3), np.float64)
    for i in range(3):
        for j in range(3):
            v = (_P0[i, j] + cs * _P1[i, j] + ss * _P2[i, j]) * scale
            r = np.rint(v)
            m[:, i, j] = np.where(np.abs(v - r) < 1e-12, r, v)
    return m


def _half_range(dtype: np.dtype[Any]) -> float:
    """DALI's ``HalfRange``: half the positive range of an integer type, 0.5 for floats."""
    if dtype.kind in "iu":
        return float(1 << (8 * dtype.itemsize - (1 if dtype.kind == "i" else 0) - 1))
    return 0.5


def _full_range(dtype: np.dtype[Any]) -> float:
    """DALI's ``FullRange``: the maximum of an integer type, 1 for floats."""
    return float(np.iinfo(dtype).max) if dtype.kind in "iu" else 1.0


class _ColorBase(Operator):
    """Shared running: per-sample (M, offset), then one batched transform."""

    #: default output type (None: the input's)
    default_dtype: Any = None
    #: the transform is a full 3×3 matrix over RGB (False: per-element multiply-add)
    needs_rgb = True
    #: the operator's tensor arguments (all of them may be given per frame)
    knobs: tuple[str, ...] = ()

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        dtype = self.arg("dtype") or self.default_dtype
        self._dtype = None
        if dtype:
            try:
                self._dtype = np_dtype(dtype)
            except TypeError:
                raise self.arg_error(
                    "dtype", f"unsupported output type {type_name(dtype)}"
                ) from None
            if self._dtype.kind == "b":
                raise self.arg_error("dtype", "unsupported output type bool")

    def params(
        self, ws: Workspace, in_dtype: np.dtype[Any], out_dtype: np.dtype[Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per-sample float32 ``(n, 3, 3)`` matrices (or ``(n,)`` multipliers) and offsets."""
        raise NotImplementedError

    def run(self, ws: Workspace) -> Any:
        # per-frame `knobs` (DALI accepts them all per frame): the frames run as a batch of
        # images, so the GPU still makes one launch
        frames = unfold(self, ws, self.knobs)
        if frames is not None:
            return frames.fold(frames.run(super().run))
        return super().run(ws)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, COLOR_LAYOUTS)
        in_dtype = tl.np_dtype
        if in_dtype.kind not in "iuf":
            raise self.error(f"unsupported input type {in_dtype.name}")
        out_dtype = self._dtype or in_dtype
        n = len(tl)
        if n == 0:
            return tl_cls.wrap([], layout, dtype=out_dtype, ndim=tl.sample_ndim)
        mats, offs = self.params(ws, in_dtype, out_dtype)
        dense = batch_array(tl, xp)
        if dense is not None:
            self._check_channels(dense.shape[-1], None)
            return tl_cls.wrap(self._apply(xp, dense, mats, offs, out_dtype), layout)
        samples = tl.samples()

        def one(i: int) -> Any:
            self._check_channels(samples[i].shape[-1], i)
            return self._apply(xp, samples[i][None], mats[i : i + 1], offs[i : i + 1], out_dtype)[0]

        return tl_cls.wrap(run_per_sample(ws, xp, one, n), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One kernel launch for the batch (`_color_gpu.color_batch`), ragged or not, with the
        per-sample coefficients of the CPU path."""
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        layout = image_layout(self, tl, COLOR_LAYOUTS)
        in_dtype = tl.np_dtype
        if in_dtype.kind not in "iuf":
            raise self.error(f"unsupported input type {in_dtype.name}")
        out_dtype = self._dtype or in_dtype
        if len(tl) == 0:
            return TensorListGPU.wrap([], layout, dtype=out_dtype, ndim=tl.sample_ndim)
        mats, offs = self.params(ws, in_dtype, out_dtype)
        shapes = tl.shape()
        if tl.held_dense is not None:
            self._check_channels(shapes[0][-1], None)
        else:
            for i, shape in enumerate(shapes):
                self._check_channels(shape[-1], i)
        mode, coeffs = _color_gpu.color_plan(mats, offs, in_dtype)
        return _color_gpu.color_batch(tl, mode, coeffs, out_dtype, layout)

    def _check_channels(self, c: int, sample: int | None) -> None:
        if self.needs_rgb and c != 3:
            where = "" if sample is None else f"sample {sample}: "
            raise self.error(f"{where}expects 3-channel (RGB) images, got {c} channels")

    def _apply(
        self, xp: Any, x: Any, mats: np.ndarray, offs: np.ndarray, out_dtype: np.dtype[Any]
    ) -> Any:
        """Transform a ``(n, ..., C)`` array; ``mats``/``offs`` have one row per sample."""
        n = x.shape[0]
        work = np.float64 if x.dtype == np.float64 else np.float32
        if mats.ndim == 1 or all_scalar_diag(mats):
            mul = (mats if mats.ndim == 1 else mats[:, 0, 0]).astype(np.float32)
            add = (offs if offs.ndim == 1 else offs[:, 0]).astype(np.float32)
            if np.all(mul == 1) and np.all(add == 0):  # the identity: exact, just the type
                y = convert_sat(xp, x, out_dtype)
                return xp.array(y, copy=True) if y is x else xp.ascontiguousarray(y)
            if xp is np and x.dtype == np.uint8:
                out = _lookup_multiply_add(x, mul, add, out_dtype)
                if out is not None:
                    return out
            shape = (n,) + (1,) * (x.ndim - 1)
            m, a = mul.reshape(shape), add.reshape(shape)
            if xp is not np:
                m, a = xp.asarray(m), xp.asarray(a)
            y = x.astype(work) * m + a
            return xp.ascontiguousarray(convert_sat(xp, y, out_dtype))
        m34 = np.concatenate([mats, offs[:, :, None]], axis=2).astype(work)  # (n, 3, 4)
        uniform = all(np.array_equal(m34[0], m) for m in m34[1:])
        cv2 = optional_cv2() if xp is np else None
        if cv2 is not None:  # OpenCV's transform: float arithmetic, one pass, no GIL
            xf = np.ascontiguousarray(x, dtype=work)
            rows = xf.shape[-2] if xf.ndim >= 3 else 1
            if uniform:
                y = cv2.transform(xf.reshape(-1, rows, 3), m34[0]).reshape(x.shape)
            else:
                y = np.empty(x.shape, work)
                for i in range(n):
                    y[i] = cv2.transform(xf[i].reshape(-1, rows, 3), m34[i]).reshape(x.shape[1:])
            return np.ascontiguousarray(convert_sat(np, y, out_dtype))
        flat = x.reshape(n, -1, 3).astype(work)
        mt = np.ascontiguousarray(m34[:, :, :3].transpose(0, 2, 1))
        o = m34[:, None, :, 3]
        if xp is not np:
            mt, o = xp.asarray(mt), xp.asarray(o)
        y = xp.matmul(flat, mt[:1] if uniform else mt) + o
        return xp.ascontiguousarray(convert_sat(xp, y, out_dtype).reshape(x.shape))

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        impl = node.schema.impl
        dtype = node.scalar_args.get("dtype") or impl.default_dtype or src.dtype
        return like_input(node, dtype=dtype, layout=static_image_layout(node, COLOR_LAYOUTS))


#: Output types OpenCV's LUT can produce (float16 travels as its uint16 bits).
_LUT_TYPES = ("uint8", "int8", "uint16", "int16", "int32", "float32", "float64", "float16")


def _lookup_multiply_add(
    x: np.ndarray, mul: np.ndarray, add: np.ndarray, out_dtype: np.dtype[Any]
) -> np.ndarray | None:
    """``x · mul + add`` of a uint8 batch through 256-entry tables (None: not possible here).

    Each table entry is computed with the very float32 arithmetic of the array path, so the
    result is identical, ~10× faster.
    """
    cv2 = optional_cv2()
    if cv2 is None or out_dtype.name not in _LUT_TYPES or x.ndim < 2:
        return None
    levels = np.arange(256, dtype=np.float32)
    f16 = out_dtype == np.float16
    tables = [convert_sat(np, levels * mul[i] + add[i], out_dtype) for i in range(len(mul))]
    if f16:
        tables = [t.view(np.uint16) for t in tables]
    tables = [t.reshape(1, 256) for t in tables]
    x = np.ascontiguousarray(x)
    out = np.empty(x.shape, out_dtype)
    view = out.view(np.uint16) if f16 else out
    uniform = np.all(mul == mul[0]) and np.all(add == add[0])
    parts = [(x, view)] if uniform else list(zip(x, view))
    for i, (src, dst) in enumerate(parts):
        flat_src = src.reshape(-1, src.shape[-1])
        flat_dst = dst.reshape(flat_src.shape)
        res = cv2.LUT(flat_src, tables[i], dst=flat_dst)
        if res.ctypes.data != flat_dst.ctypes.data:
            flat_dst[...] = res
    return out


def all_scalar_diag(mats: np.ndarray) -> bool:
    """Whether every matrix is a multiple of the identity (a per-element multiply)."""
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    return all(_scalar_diag_rows(mats[rows]) for rows in gil.row_blocks(len(mats), 9))


def _scalar_diag_rows(mats: np.ndarray) -> bool:
    """Whether every matrix of a block of rows is a multiple of the identity."""
    return bool((mats == mats[:, 0, 0][:, None, None] * _EYE).all())


def _arg(ws: Workspace, name: str) -> np.ndarray:
    return ws.arg_scalars(name, np.float32).astype(np.float64)


class _YiqOp(_ColorBase):
    """hsv / hue / saturation / color_twist: the YIQ-space matrices."""

    #: the arguments this operator has (the others keep their identity values)
    knobs: tuple[str, ...] = ()
    #: whether brightness/contrast add color_twist's offset
    twist_offset = False

    def params(
        self, ws: Workspace, in_dtype: np.dtype[Any], out_dtype: np.dtype[Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        n = ws.batch_size
        vals = {
            k: (_arg(ws, k) if k in self.knobs else np.full(n, v))
            for k, v in (
                ("hue", 0.0),
                ("saturation", 1.0),
                ("value", 1.0),
                ("brightness", 1.0),
                ("contrast", 1.0),
            )
        }
        mats = color_matrices(
            vals["hue"], vals["saturation"], vals["value"], vals["brightness"], vals["contrast"]
        )
        offs = gil.zeros((n, 3), np.float64)
        if self.twist_offset:
            half = 0.5 if in_dtype.kind == "f" else 128.0
            off = (half - half * vals["contrast"]) * vals["brightness"]
            for ch in range(3):  # a column at a time: n values, not 3n (`dali._exec.gil`)
                offs[:, ch] = off
        return mats, offs


_IMAGE_TYPE = Arg("image_type", "image_type", default=0, doc="Colour space (RGB); kept as is.")


@register(
    "hsv",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("hue", "float", default=0.0, tensor=True, doc="Hue delta in degrees."),
        Arg("saturation", "float", default=1.0, tensor=True, doc="Saturation multiplier."),
        Arg("value", "float", default=1.0, tensor=True, doc="Value multiplier."),
        Arg("dtype", "dtype", doc="Output type (default UINT8)."),
    ],
)
class Hsv(_YiqOp):
    """Adjust hue (additive, degrees), saturation and value (multiplicative) of RGB images.

    As in DALI the HSV change is approximated by a linear transform in YIQ space. The output is
    UINT8 unless ``dtype`` says otherwise.
    """

    knobs = ("hue", "saturation", "value")
    default_dtype = DALIDataType.UINT8


@register(
    "hue",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("hue", "float", default=0.0, tensor=True, doc="Hue change in degrees."),
        _IMAGE_TYPE,
        Arg("dtype", "dtype", doc="Output type (default: the input's)."),
    ],
)
class Hue(_YiqOp):
    """Rotate the hue of RGB images by ``hue`` degrees (a rotation in YIQ space)."""

    knobs = ("hue",)


@register(
    "saturation",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("saturation", "float", default=1.0, tensor=True, doc="0: grey, 1: unchanged."),
        _IMAGE_TYPE,
        Arg("dtype", "dtype", doc="Output type (default: the input's)."),
    ],
)
class Saturation(_YiqOp):
    """Scale the saturation of RGB images (``saturation=0`` gives grey)."""

    knobs = ("saturation",)


@register(
    "color_twist",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("brightness", "float", default=1.0, tensor=True, doc="Brightness multiplier."),
        Arg("contrast", "float", default=1.0, tensor=True, doc="Contrast factor (0: grey)."),
        Arg("saturation", "float", default=1.0, tensor=True, doc="Saturation factor (0: grey)."),
        Arg("hue", "float", default=0.0, tensor=True, doc="Hue change in degrees."),
        _IMAGE_TYPE,
        Arg("dtype", "dtype", doc="Output type (default: the input's)."),
    ],
)
class ColorTwist(_YiqOp):
    """Adjust hue, saturation, brightness and contrast of RGB images in one transform.

    The defaults are exactly the identity; ``brightness=0.5`` halves and rounds;
    ``saturation=0`` gives grey.
    """

    knobs = ("hue", "saturation", "brightness", "contrast")
    twist_offset = True


class _MultiplyAdd(_ColorBase):
    """brightness / contrast / brightness_contrast: a per-sample multiply-add of every element."""

    needs_rgb = False
    knobs: tuple[str, ...] = ()

    def params(
        self, ws: Workspace, in_dtype: np.dtype[Any], out_dtype: np.dtype[Any]
    ) -> tuple[np.ndarray, np.ndarray]:
        n = ws.batch_size
        f32 = np.float32
        ones, zeros = np.ones(n, f32), np.zeros(n, f32)
        b = ws.arg_scalars("brightness", f32) if "brightness" in self.knobs else ones
        shift = (
            ws.arg_scalars("brightness_shift", f32) if "brightness_shift" in self.knobs else zeros
        )
        c = ws.arg_scalars("contrast", f32) if "contrast" in self.knobs else ones
        if "contrast_center" in self.knobs and self.has_arg("contrast_center"):
            center = ws.arg_scalars("contrast_center", f32)
        else:
            center = np.full(n, _half_range(in_dtype), f32)
        # float32 arithmetic in DALI's order (its OpArgsToKernelArgs)
        add = shift * f32(_full_range(out_dtype)) + b * (center - c * center)
        mul = b * c
        return mul.astype(np.float64), add.astype(np.float64)


_BRIGHTNESS_ARGS = [
    Arg("brightness", "float", default=1.0, tensor=True, doc="Brightness multiplier."),
    Arg(
        "brightness_shift",
        "float",
        default=0.0,
        tensor=True,
        doc="Shift, in units of the output range (1 = the type's maximum).",
    ),
]
_CONTRAST_ARGS = [
    Arg("contrast", "float", default=1.0, tensor=True, doc="Contrast multiplier (0: flat)."),
    Arg(
        "contrast_center",
        "float",
        default=0.5,
        tensor=True,
        doc="Level unaffected by contrast (default: half the input type's range).",
    ),
]
_DTYPE = Arg("dtype", "dtype", doc="Output type (default: the input's).")


@register(
    "brightness_contrast",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[*_BRIGHTNESS_ARGS, *_CONTRAST_ARGS, _DTYPE],
)
class BrightnessContrast(_MultiplyAdd):
    """``out = brightness_shift·range + brightness·(center + contrast·(in − center))``.

    ``range`` is 1 for float outputs and the type's maximum for integers; ``center`` defaults to
    half the input type's positive range (128 for uint8, 0.5 for floats).
    """

    knobs = ("brightness", "brightness_shift", "contrast", "contrast_center")


@register(
    "brightness",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[*_BRIGHTNESS_ARGS, _DTYPE],
)
class Brightness(_MultiplyAdd):
    """``out = brightness_shift · range + brightness · in`` (range: 1, or the type's maximum)."""

    knobs = ("brightness", "brightness_shift")


@register(
    "contrast",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[*_CONTRAST_ARGS, _DTYPE],
)
class Contrast(_MultiplyAdd):
    """``out = center + contrast · (in − center)`` (center: half the input type's range)."""

    knobs = ("contrast", "contrast_center")
