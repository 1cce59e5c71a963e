"""Displacement filters: what `fn.water`, `fn.sphere`, `fn.jitter` and `fn.experimental.remap`
share.

A *displacement filter* makes every output pixel ``(x, y)`` from the input at a displaced
position ``p(x, y) = (px, py)``: the output keeps the input's shape and only the rule that gives
``p`` differs (a wave for `water`, a radial stretch for `sphere`, a random offset for `jitter`,
two per-pixel maps for `remap`). This module holds the sampling every one of them uses, in
DALI's float32 arithmetic (``dali/kernels/imgproc/sampler.h``), and the operator base class of
the three filters that DALI derives from its ``DisplacementFilter``
(``dali/operators/image/remap/displacement_filter_impl_cpu.h``).

Sampling at ``p``, with pixel ``(i, j)`` covering ``[i, i + 1) × [j, j + 1)`` (*corner*
origin, the displacement filters' and remap's default):

* ``INTERP_NN`` takes pixel ``(floor(px), floor(py))``;
* ``INTERP_LINEAR`` blends the four pixels around ``p − 0.5`` in float32, in DALI's order:
  ``s0 = s00·(1−qx) + s01·qx``, ``s1 = s10·(1−qx) + s11·qx``, ``s0 + (s1 − s0)·qy``;
* a pixel outside the input takes the fill value (`fill_pixel`: ``fill_value`` converted as
  C++ converts a float to the input type, or 0 for remap);
* integer results are rounded half away from zero and saturated (DALI's CPU ``ConvertSat``);
* a position beyond the int32 range becomes ``INT_MIN``, as DALI's ``floor_int`` makes it on
  x86: outside for NN, and for LINEAR weights that blend the fill values to 0.

With the *center* origin (remap's ``pixel_origin="center"``, OpenCV's convention) pixel
centres sit on integers: NN takes ``floor(p + 0.5)`` and LINEAR blends around ``p`` itself.

The filters evaluate their displacement at integer pixel indices ``(x, y)`` (not at pixel
centres), so a zero displacement with ``INTERP_LINEAR`` averages each pixel with its upper-left
neighbours, as DALI does. ``mask`` 0 switches a sample's filter off: the sample is copied. (DALI
2.4 reads ``mask`` only when it is given per sample, and displaces every sample for a constant
``mask=0``; here a constant 0 does what the documentation says.)

`sample` runs a Numba kernel when Numba is installed (`_displace_jit`) and the numpy reference
`sample_numpy` otherwise: the same float32 operations, the same results. The GPU backends run
one CuPy kernel per batch (`_displace_gpu`), with the same arithmetic again.

Example:
    >>> import numpy as np
    >>> img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    >>> ys, xs = np.mgrid[0:3, 0:4].astype(np.float32)
    >>> sample(img, xs + 1, ys, interp=NN, fill=fill_pixel(0.0, img.dtype, 1))[..., 0]
    array([[ 1,  2,  3,  0],
           [ 5,  6,  7,  0],
           [ 9, 10, 11,  0]], dtype=uint8)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image import _displace_jit
from dali._ops.image._common import static_image_layout
from dali._ops.noise.generators import c_cast
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "DISPLACEMENT_ARGS",
    "LINEAR",
    "NN",
    "CoordinateCache",
    "DisplacementFilter",
    "convert_half_away",
    "fill_pixel",
    "sample",
    "sample_numpy",
]

NN, LINEAR = 0, 1
_F32 = np.float32
_HALF = _F32(0.5)
_INT_MIN = _F32(-(2.0**31))

#: The arguments of DALI's ``DisplacementFilter`` schema, shared by water, sphere and jitter.
DISPLACEMENT_ARGS = [
    Arg("mask", "int", default=1, tensor=True,
        doc="Whether to apply the augmentation to a sample: 0 copies it, nonzero applies it."),
    Arg("interp_type", "interp_type", default=NN,
        doc="Type of interpolation used: INTERP_NN (default) or INTERP_LINEAR."),
    Arg("fill_value", "float", default=0.0,
        doc="Color value that is used for padding (outside the input)."),
]  # fmt: skip


def fill_pixel(fill: float, dtype: Any, channels: int) -> np.ndarray:
    """The fill pixel (``channels`` values of ``dtype``), as DALI's filters make it: the float
    converted with a C++ cast, toward zero and wrapped to the type's width (``300`` → uint8
    ``44``, ``-1`` → ``255``); values beyond int32 and NaN give 0, as x86's conversion does.

    Example:
        >>> fill_pixel(300.0, np.uint8, 2).tolist(), fill_pixel(-2.5, np.float32, 1).tolist()
        ([44, 44], [-2.5])
    """
    dtype = np.dtype(dtype)
    value = _F32(fill)
    if dtype.kind in "iu" and not (np.isfinite(value) and abs(float(value)) < 2.0**31):
        return np.zeros(channels, dtype)  # cvttss2si gives INT_MIN: its low bytes are 0
    return np.full(channels, c_cast(float(value), dtype), dtype)


def convert_half_away(values: np.ndarray, dtype: Any) -> np.ndarray:
    """float32 results → ``dtype``: integers rounded half away from zero (``std::round``) and
    saturated, NaN → 0; floats kept.

    Example:
        >>> convert_half_away(np.array([0.5, 1.5, -0.5, 254.5, 300.0], np.float32), np.uint8)
        array([  1,   2,   0, 255, 255], dtype=uint8)
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return values.astype(dtype, copy=False)
    t = np.trunc(values)
    step = (np.abs(values - t) >= _HALF).astype(_F32)
    t += np.copysign(step, values)
    info = np.iinfo(dtype)
    t = np.where(np.isnan(t), _F32(0), t)
    return np.clip(t, _F32(info.min), _F32(info.max)).astype(dtype)


def _taps_nn(
    flat: np.ndarray, fx: np.ndarray, fy: np.ndarray, h: int, w: int, fill: np.ndarray
) -> np.ndarray:
    """The pixels at floor-ed float coordinates (``(..., C)``); outside (and NaN): ``fill``."""
    inside = (fx >= 0) & (fx < w) & (fy >= 0) & (fy < h)
    ix = np.where(inside, fx, 0).astype(np.intp)
    iy = np.where(inside, fy, 0).astype(np.intp)
    out = np.take(flat, iy * w + ix, axis=0)
    if not inside.all():
        out[~inside] = fill
    return out


def _floor_int(v: np.ndarray) -> np.ndarray:
    """``floor`` as DALI's ``floor_int`` makes it an int on x86: beyond int32 (and NaN) it is
    INT_MIN, which then also decides the blend's weights (huge positions blend to 0)."""
    f = np.floor(v)
    return np.where((f >= _INT_MIN) & (f < -_INT_MIN), f, _INT_MIN)


def sample_numpy(
    src: np.ndarray,
    px: np.ndarray,
    py: np.ndarray,
    *,
    interp: int,
    fill: np.ndarray,
    center: bool = False,
) -> np.ndarray:
    """The numpy reference of `sample` (same arguments and result)."""
    h, w, c = src.shape
    flat = np.ascontiguousarray(src).reshape(h * w, c)
    px = np.asarray(px, _F32)
    py = np.asarray(py, _F32)
    if interp == NN:
        if center:
            px, py = px + _HALF, py + _HALF
        return _taps_nn(flat, np.floor(px), np.floor(py), h, w, fill)
    x, y = (px, py) if center else (px - _HALF, py - _HALF)
    x0, y0 = _floor_int(x), _floor_int(y)
    x1, y1 = x0 + _F32(1), y0 + _F32(1)
    s00 = _taps_nn(flat, x0, y0, h, w, fill).astype(_F32)
    s01 = _taps_nn(flat, x1, y0, h, w, fill).astype(_F32)
    s10 = _taps_nn(flat, x0, y1, h, w, fill).astype(_F32)
    s11 = _taps_nn(flat, x1, y1, h, w, fill).astype(_F32)
    with np.errstate(invalid="ignore", over="ignore"):  # non-finite positions: NaN blends
        qx = (x - x0)[..., None]
        qy = (y - y0)[..., None]
        pw = _F32(1) - qx
        s0 = s00 * pw + s01 * qx
        s1 = s10 * pw + s11 * qx
        r = s0 + (s1 - s0) * qy
    return convert_half_away(r, src.dtype)


def sample(
    src: np.ndarray,
    px: np.ndarray,
    py: np.ndarray,
    *,
    interp: int,
    fill: np.ndarray,
    center: bool = False,
) -> np.ndarray:
    """Sample an image at float32 positions (see the module docstring for the rules).

    Args:
        src: ``(H, W, C)`` image (uint8, int16, uint16 or float32).
        px, py: ``(H', W')`` float32 positions, x (column) and y (row), for every output pixel.
        interp: `NN` or `LINEAR`.
        fill: The value outside the input, one per channel, of ``src``'s type (`fill_pixel`).
        center: Pixel centres sit on integers (remap's ``pixel_origin="center"``); else on
            ``+0.5`` (the corner origin).

    Returns:
        The ``(H', W', C)`` output, of ``src``'s type.
    """
    if _displace_jit.available():
        out = np.empty((*px.shape, src.shape[2]), src.dtype)
        _displace_jit.sample(
            np.ascontiguousarray(src),
            np.ascontiguousarray(px, _F32),
            np.ascontiguousarray(py, _F32),
            interp,
            center,
            np.ascontiguousarray(fill, src.dtype),
            out,
        )
        return out
    return sample_numpy(src, px, py, interp=interp, fill=fill, center=center)


class CoordinateCache:
    """The displacement positions of the last image shapes seen, made once per shape.

    Water's and sphere's positions depend only on the operator's (scalar) arguments and the
    image's height and width, so a batch of equal shapes computes them once. Safe to share
    between the pool's threads: a shape computed twice at once is computed twice, not wrongly.
    """

    def __init__(self, make: Callable[[int, int], tuple[np.ndarray, np.ndarray]], size: int = 8):
        self._make = make
        self._size = size
        self._items: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()

    def __call__(self, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        key = (h, w)
        with self._lock:
            found = self._items.get(key)
        if found is not None:
            return found
        made = self._make(h, w)
        for a in made:
            a.flags.writeable = False
        with self._lock:
            if len(self._items) >= self._size:
                self._items.pop(next(iter(self._items)))
            self._items[key] = made
        return made


class DisplacementFilter(Operator):
    """The operator of a displacement filter (water, sphere, jitter): an ``HWC`` uint8 or float
    batch in (a 3-D batch without a layout is ``HWC``), the same shapes out, each sample
    displaced unless its ``mask`` is 0.

    A subclass gives the positions (`positions`, or the whole sample: `displace`, CPU) and its
    GPU description (`gpu_kind`, `gpu_batch`); the sampling, the mask, the checks and the
    kernel launch are here.
    """

    #: Integer positions (jitter): the sampler's NN path whatever ``interp_type`` says (DALI's
    #: sampler, given integer coordinates, reads the pixel).
    integer_positions = False

    def setup(self) -> None:
        interp = int(self.arg("interp_type"))
        if interp not in (NN, LINEAR):
            raise self.arg_error(
                "interp_type",
                "Unsupported interpolation type, only NN and LINEAR are supported for this "
                "operation",
            )
        self.interp = NN if self.integer_positions else interp

    # -- what a filter defines ---------------------------------------------------------------
    def positions(self, ws: Workspace, i: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        """Sample ``i``'s ``(h, w)`` float32 positions ``px``, ``py`` (CPU)."""
        raise NotImplementedError

    def displace(self, ws: Workspace, i: int, x: np.ndarray, fill_value: float) -> np.ndarray:
        """Sample ``i``'s output (CPU): the image sampled at its `positions`."""
        h, w, c = x.shape
        px, py = self.positions(ws, i, h, w)
        fill = fill_pixel(fill_value, x.dtype, c)
        return sample(x, px, py, interp=self.interp, fill=fill)

    def gpu_kind(self) -> int:
        """The filter's kind in the GPU kernel (`_displace_gpu.WATER` ...)."""
        raise NotImplementedError

    def gpu_batch(self, ws: Workspace, shapes: list[tuple[int, ...]]) -> dict[str, Any]:
        """What the GPU kernel needs beyond the images: ``{"table": float32 array}`` (water's
        offsets) or ``{"keys": uint64 per sample}`` (jitter); ``{}`` for none."""
        return {}

    # -- the operator ------------------------------------------------------------------------
    def check_input(self, tl: Any) -> None:
        """DALI's checks: the ``HWC`` layout (or none, with 3 dimensions), uint8 or float."""
        layout = tl.layout()
        if layout and layout != "HWC":
            raise self.error(
                f'The layout "{layout}" does not match any of the allowed layouts for input 0. '
                "Valid layouts are: HWC"
            )
        if tl.sample_ndim != 3:
            raise self.error(
                f"The number of dimensions {tl.sample_ndim} does not match any of the allowed "
                "layouts for input 0. Valid layouts are: HWC"
            )
        if tl.np_dtype not in (np.dtype(np.uint8), np.dtype(np.float32)):
            raise self.error(f"Unexpected input type {type_name(tl.np_dtype)}")

    def masks(self, ws: Workspace) -> np.ndarray:
        """Whether each sample is displaced (``mask`` nonzero), one bool per sample."""
        if ws.is_tensor_arg("mask"):
            dtype = ws.arg_inputs["mask"].np_dtype
            if dtype.kind not in "iub":
                raise self.arg_error(
                    "mask", f"expected integer (int32) values per sample, got {type_name(dtype)}"
                )
        return ws.arg_scalars("mask", np.int64) != 0

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self.check_input(tl)
        masks = self.masks(ws)
        samples = tl.samples()
        fill_value = float(self.arg("fill_value"))

        def one(i: int) -> np.ndarray:
            x = samples[i]
            if not masks[i] or x.size == 0:
                return np.array(x, copy=True)
            return self.displace(ws, i, x, fill_value)

        out = ws.map(one)
        return TensorListCPU.wrap(out, "HWC", dtype=tl.np_dtype, ndim=3)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.image import _displace_gpu

        tl = ws.inputs[0]
        self.check_input(tl)
        masks = self.masks(ws)
        shapes = [tuple(int(v) for v in s) for s in tl.shape()]
        extra = self.gpu_batch(ws, shapes)
        kinds = [self.gpu_kind() if m else _displace_gpu.COPY for m in masks.tolist()]
        fill = fill_pixel(float(self.arg("fill_value")), tl.np_dtype, 1)[0]
        return _displace_gpu.displace_batch(
            tl,
            kinds,
            interp=self.interp,
            center=False,
            fill=float(fill),
            layout="HWC",
            **extra,
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # an input without a layout is HWC (DALI gives the output that layout)
        return like_input(node, layout=static_image_layout(node, ("HWC",)))
