"""`fn.color_space_conversion`: RGB, BGR, GRAY and YCbCr images converted into one another.

DALI 2.4's arithmetic, per pixel, in float32, each result rounded half away from zero and
saturated to uint8 (the only type DALI accepts):

* RGB ↔ BGR swaps the channels; GRAY → RGB/BGR repeats the grey value.
* RGB → GRAY is the full-range luma ``0.299 R + 0.587 G + 0.114 B`` in 15-bit fixed point
  (OpenCV's ``RGB2GRAY``, which DALI calls), rounded.
* RGB → YCbCr is ITU-R BT.601 with footroom and headroom (Y in 16..235): the JPEG matrix
  scaled by 219/255 (Y) and 224/255 (Cb, Cr), ``Y ≈ 0.2568 R + 0.5041 G + 0.0979 B + 16``,
  ``Cb ≈ -0.1482 R - 0.2910 G + 0.4392 B + 128``, ``Cr ≈ 0.4392 R - 0.3678 G - 0.0714 B + 128``
  (Cb and Cr are exactly 128 for grey pixels). GRAY → YCbCr is ``Y = 219/255 · v + 16`` with
  Cb = Cr = 128.
* YCbCr → RGB is its inverse: ``y = 255/219 (Y - 16)``, ``R = y + 1.402·255/224 (Cr - 128)``,
  ``G = y - 0.3441·255/224 (Cb - 128) - 0.7141·255/224 (Cr - 128)``,
  ``B = y + 1.772·255/224 (Cb - 128)``; YCbCr → GRAY is ``255/219 (Y - 16)``.

BGR inputs are swapped to RGB first and BGR outputs swapped last. Converting a colour space into
itself, or from or to ``ANY_DATA``, is not supported, as in DALI. The layouts are ``HWC``,
``DHWC``, ``FHWC`` and ``FDHWC`` (sequences and volumes: every pixel is converted alike); the
input must have the channels of ``image_type``. A uniform batch is converted as one array (one
sequence of kernels on the GPU).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.array([[[95, 130, 194]]], dtype=np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return (
    ...         fn.color_space_conversion(x, image_type=types.RGB, output_type=types.YCbCr),
    ...         fn.color_space_conversion(x, image_type=types.RGB, output_type=types.GRAY),
    ...     )
    >>> ycbcr, gray = pipe().run()
    >>> ycbcr.as_array()[0].tolist(), gray.as_array()[0].tolist()
    ([[[125, 161, 108]]], [[[127]]])
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.image._common import (
    image_layout,
    opencv_into,
    optional_cv2,
    static_image_layout,
)
from dali._ops.numeric import array_module, batch_array, convert_sat, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ColorSpaceConversion", "convert_color_space"]

LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC")

_RGB, _BGR, _GRAY, _YCBCR = (
    int(DALIImageType.RGB),
    int(DALIImageType.BGR),
    int(DALIImageType.GRAY),
    int(DALIImageType.YCbCr),
)
_CHANNELS = {_RGB: 3, _BGR: 3, _GRAY: 1, _YCBCR: 3}
_SUPPORTED = {
    (_RGB, _BGR),
    (_BGR, _RGB),
    (_RGB, _YCBCR),
    (_BGR, _YCBCR),
    (_RGB, _GRAY),
    (_BGR, _GRAY),
    (_YCBCR, _RGB),
    (_YCBCR, _BGR),
    (_YCBCR, _GRAY),
    (_GRAY, _RGB),
    (_GRAY, _BGR),
    (_GRAY, _YCBCR),
}

_F = np.float32


# ITU-R BT.601 with footroom and headroom: the JPEG (full range) matrices scaled to 219/255
# (Y) and 224/255 (Cb, Cr), rounded once to float32 as DALI's constants are.
_Y = (0.299 * 219 / 255, 0.587 * 219 / 255, 0.114 * 219 / 255)
_CB = (-0.16873589 * 224 / 255, -0.33126411 * 224 / 255, 0.5 * 224 / 255)
_CR = (0.5 * 224 / 255, -0.41868759 * 224 / 255, -0.08131241 * 224 / 255)
_Y_SCALE = 255 / 219
_R_CR, _G_CB, _G_CR, _B_CB = (
    1.402 * 255 / 224,
    0.34413629 * 255 / 224,
    0.71413629 * 255 / 224,
    1.772 * 255 / 224,
)


#: the Y, Cb and Cr rows (float32) and the inverse's factors, for the compiled kernels
_YCBCR_ROWS = np.array([_Y, _CB, _CR], np.float32)
_TO_RGB = np.array([_Y_SCALE, _R_CR, _G_CB, _G_CR, _B_CB], np.float32)


def _dot(c: tuple[float, float, float], r: Any, g: Any, b: Any) -> Any:
    """``c0·r + c1·g + c2·b`` in float32, in DALI's order."""
    return (_F(c[0]) * r + _F(c[1]) * g) + _F(c[2]) * b


def _sat(xp: Any, x: Any) -> Any:
    return convert_sat(xp, x, np.uint8)


def _rgb_to_gray(xp: Any, x: Any) -> Any:
    """OpenCV's RGB2GRAY (what DALI calls on the CPU): 15-bit fixed point, rounded."""
    cv2 = optional_cv2() if xp is np else None
    if cv2 is not None and x.ndim >= 2 and x.size:  # the same arithmetic, compiled
        return _opencv(cv2, x, cv2.COLOR_RGB2GRAY, 1, None)[..., 0]
    r, g, b = (x[..., i].astype(np.uint32) for i in range(3))
    return ((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15).astype(np.uint8)


def _rgb_to_ycbcr(xp: Any, x: Any) -> list[Any]:
    f = x.astype(np.float32)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    y = _sat(xp, _dot(_Y, r, g, b) + _F(16))
    grey = (x[..., 0] == x[..., 1]) & (x[..., 0] == x[..., 2])
    half = np.uint8(128)
    cb = xp.where(grey, half, _sat(xp, _dot(_CB, r, g, b) + _F(128)))
    cr = xp.where(grey, half, _sat(xp, _dot(_CR, r, g, b) + _F(128)))
    return [y, cb, cr]


def _ycbcr_to_rgb(xp: Any, x: Any) -> list[Any]:
    f = x.astype(np.float32)
    ty = _F(_Y_SCALE) * (f[..., 0] - _F(16))
    tb = f[..., 1] - _F(128)
    tr = f[..., 2] - _F(128)
    return [
        _sat(xp, ty + _F(_R_CR) * tr),
        _sat(xp, (ty - _F(_G_CB) * tb) - _F(_G_CR) * tr),
        _sat(xp, ty + _F(_B_CB) * tb),
    ]


@functools.cache
def _kernels() -> Any:
    """`_color_space_jit` (one compiled pass per sample), or None when Numba is not installed."""
    try:
        from dali._ops.image import _color_space_jit
    except ImportError:
        return None
    return _color_space_jit


def _opencv(cv2: Any, x: np.ndarray, code: int, c_out: int, out: np.ndarray | None) -> Any:
    """OpenCV's ``cvtColor`` of pixels ``(..., W, C)`` to ``(..., W, c_out)``, into ``out``
    when given (contiguous): the grey conversions and the channel swaps and repeats, where
    numpy's reversed or broadcast copies of 3-byte pixels cost ~25x as much."""
    rows = np.ascontiguousarray(x).reshape(-1, x.shape[-2], x.shape[-1])
    if rows.shape[-1] == 1:
        rows = rows[..., 0]
    shape = (*x.shape[:-1], c_out)
    if out is None:
        return cv2.cvtColor(rows, code).reshape(shape)
    planes = rows.shape[:2] if c_out == 1 else (*rows.shape[:2], c_out)
    opencv_into(cv2.cvtColor, rows, code, dst=out.reshape(planes))
    return out.reshape(shape)


def _compiled(
    x: np.ndarray, image_type: int, output_type: int, out: np.ndarray | None = None
) -> np.ndarray | None:
    """`convert_color_space` of a numpy array in one compiled pass (the same bytes), into
    ``out`` when given; None where Numba (for YCbCr) or OpenCV (for the rest) is missing.
    RGB/BGR -> GRAY, the swaps and the grey repeat are OpenCV's ``cvtColor``."""
    k = _kernels()
    rgb_in, rgb_out = image_type in (_RGB, _BGR), output_type in (_RGB, _BGR)
    if (rgb_in and output_type == _GRAY) or (rgb_out and image_type != _YCBCR):
        cv2 = optional_cv2()
        if cv2 is None or x.ndim < 2:
            return None
        if output_type == _GRAY:
            code = cv2.COLOR_BGR2GRAY if image_type == _BGR else cv2.COLOR_RGB2GRAY
        elif image_type == _GRAY:
            code = cv2.COLOR_GRAY2BGR if output_type == _BGR else cv2.COLOR_GRAY2RGB
        else:
            code = cv2.COLOR_RGB2BGR  # (the same swap both ways)
        return _opencv(cv2, x, code, _CHANNELS[output_type], out)
    if k is None:
        return None
    c_out = _CHANNELS[output_type]
    src = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    if out is None:
        out = np.empty((src.shape[0], c_out), np.uint8)
    else:
        out = out.reshape(src.shape[0], c_out)
    if rgb_in:  # -> YCbCr
        k.rgb_to_ycbcr(src, image_type == _BGR, _YCBCR_ROWS, out)
    elif rgb_out:  # YCbCr ->
        k.ycbcr_to_rgb(src, _TO_RGB, output_type == _BGR, out)
    elif output_type == _GRAY:  # YCbCr -> GRAY
        k.ycbcr_to_gray(src, _F(_Y_SCALE), out)
    else:  # GRAY -> YCbCr
        k.gray_to_ycbcr(src, _F(219 / 255), out)
    return out.reshape(*x.shape[:-1], c_out)


def convert_color_space(xp: Any, x: Any, image_type: int, output_type: int, out: Any = None) -> Any:
    """Convert a uint8 array of pixels ``(..., C)`` from ``image_type`` to ``output_type``.

    On the CPU each conversion is one compiled pass: the Numba kernels of `_color_space_jit`
    for YCbCr (the `jit` extra), OpenCV's ``cvtColor`` for grey and the channel swaps; they
    equal the numpy expressions of `convert_color_space_reference` (the fallback, and CuPy's).

    Args:
        xp: numpy or CuPy.
        x: The pixels, channels last, with the channels of ``image_type``.
        image_type: The input's `DALIImageType` (as an int).
        output_type: The output's `DALIImageType` (as an int); a supported pair.
        out: Where to write the result (a contiguous uint8 array ``(..., C_out)``), or None.

    Returns:
        ``out``, or a new contiguous uint8 array ``(..., C_out)``.
    """
    if xp is np and x.size and (done := _compiled(x, image_type, output_type, out)) is not None:
        return done
    result = convert_color_space_reference(xp, x, image_type, output_type)
    if out is None:
        return result
    out[...] = result
    return out


def convert_color_space_reference(xp: Any, x: Any, image_type: int, output_type: int) -> Any:
    """`convert_color_space` in numpy or CuPy expressions (the CuPy path, and the reference of
    the compiled CPU kernels)."""
    if image_type == _BGR:
        x = x[..., ::-1]
        image_type = _RGB
    swap = output_type == _BGR
    if swap:
        output_type = _RGB
    if image_type == output_type:  # RGB <-> BGR: the swap alone
        return xp.ascontiguousarray(x[..., ::-1] if swap else x)
    chans: list[Any]
    if image_type == _RGB:
        chans = [_rgb_to_gray(xp, x)] if output_type == _GRAY else _rgb_to_ycbcr(xp, x)
    elif image_type == _GRAY:
        if output_type == _RGB:
            chans = [x[..., 0]] * 3
        else:  # YCbCr: the scaled grey, no chroma
            y = _sat(xp, x[..., 0].astype(np.float32) * _F(219 / 255) + _F(16))
            chans = [y, xp.full_like(y, 128), xp.full_like(y, 128)]
    elif output_type == _GRAY:  # from YCbCr
        chans = [_sat(xp, _F(_Y_SCALE) * (x[..., 0].astype(np.float32) - _F(16)))]
    else:  # YCbCr -> RGB
        chans = _ycbcr_to_rgb(xp, x)
    if swap:
        chans = chans[::-1]
    return xp.ascontiguousarray(xp.stack(chans, axis=-1))


def convert_flat(
    xp: Any, flat: Any, shapes: list[tuple[int, ...]], image_type: int, output_type: int
) -> tuple[Any, list[tuple[int, ...]]]:
    """`convert_color_space` of the samples of ``shapes`` lying back to back in ``flat`` (all
    with the channels of ``image_type``, last) at once: the new flat buffer and the samples'
    new shapes. The conversion is per pixel, so the samples' bounds do not matter.

    Example:
        >>> rgb, gray = int(DALIImageType.RGB), int(DALIImageType.GRAY)
        >>> out, shapes = convert_flat(np, np.zeros(15, np.uint8), [(1, 2, 3), (3, 1, 3)], rgb, gray)
        >>> shapes, out.shape
        ([(1, 2, 1), (3, 1, 1)], (5,))
    """
    total = sum(math.prod(s) for s in shapes)
    channels = shapes[0][-1] if shapes else 1
    pixels = flat[:total].reshape(-1, channels)
    out = convert_color_space(xp, pixels, image_type, output_type)
    out_c = out.shape[-1]
    return out.reshape(-1), [(*s[:-1], out_c) for s in shapes]


@register(
    "color_space_conversion",
    devices=("cpu", "gpu"),
    args=[
        Arg("image_type", "image_type", default=REQUIRED, doc="The color space of the input."),
        Arg("output_type", "image_type", default=REQUIRED, doc="The color space of the output."),
    ],
)
class ColorSpaceConversion(Operator):
    """Converts between various image color models.

    Supports RGB, BGR, GRAY (1 channel) and YCbCr (ITU-R BT.601, 16..235) uint8 images, and
    sequences (``FHWC``) and volumes (``DHWC``, ``FDHWC``) of them.
    """

    def setup(self) -> None:
        self._in = int(self.arg("image_type"))
        self._out = int(self.arg("output_type"))
        if (self._in, self._out) not in _SUPPORTED:
            names = {int(v): k for k, v in DALIImageType.__members__.items()}
            raise self.error(
                f"conversion not supported: from {names.get(self._in, self._in)} "
                f"to {names.get(self._out, self._out)}"
            )

    def _check(self, c: int, sample: int | None) -> None:
        want = _CHANNELS[self._in]
        if c != want:
            where = "" if sample is None else f" (sample {sample})"
            raise self.error(
                f"the input has {c} channels{where}; image_type "
                f"{DALIImageType(self._in).name} needs {want}"
            )

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, LAYOUTS)
        if tl.np_dtype != np.uint8:
            raise self.error(
                f"unsupported input type {tl.np_dtype.name}; color space conversion accepts "
                "only uint8"
            )
        out_c = _CHANNELS[self._out]
        if len(tl) == 0:
            return tl_cls.wrap([], layout, dtype=np.uint8, ndim=tl.sample_ndim)
        dense = batch_array(tl, xp)
        if dense is not None:
            self._check(dense.shape[-1], None)
            if xp is not np:  # one set of launches for the batch
                return tl_cls.wrap(convert_color_space(xp, dense, self._in, self._out), layout)
            out = np.empty((*dense.shape[:-1], out_c), np.uint8)
            if self._in != _YCBCR and self._out != _YCBCR:
                # OpenCV's cvtColor (grey, swaps): one call for the batch, on its own threads
                convert_color_space(np, dense, self._in, self._out, out=out)
                return tl_cls.wrap(out, layout)

            def into(i: int) -> None:  # the compiled kernels: the samples on the threads
                convert_color_space(np, dense[i], self._in, self._out, out=out[i])

            ws.map(into)
            return tl_cls.wrap(out, layout)
        samples = tl.samples()
        for i, s in enumerate(samples):
            self._check(s.shape[-1], i)
        if xp is not np and (packed := tl.flat()) is not None:
            # one set of launches for a ragged batch too: the samples' pixels back to back
            flat, shapes = packed
            out, out_shapes = convert_flat(xp, flat, shapes, self._in, self._out)
            return tl_cls.wrap_flat(out, out_shapes, layout, tl.sample_ndim)

        def one(i: int) -> Any:
            s = samples[i]
            if s.size == 0:
                return xp.zeros((*s.shape[:-1], out_c), np.uint8)
            return convert_color_space(xp, s, self._in, self._out)

        return tl_cls.wrap(run_per_sample(ws, xp, one, len(tl)), layout)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        out_c = _CHANNELS.get(int(node.scalar_args["output_type"]))
        shape = src.static_shape
        if shape is not None and len(shape) and out_c is not None:
            shape = (*shape[:-1], out_c)
        return [
            {
                "dtype": DALIDataType.UINT8,
                "ndim": src.ndim,
                "layout": static_image_layout(node, LAYOUTS),
                "static_shape": shape,
            }
        ]
