"""The Numba kernel of `_color`'s CPU conversion (importing this module needs Numba).

`frames_to_rgb` converts a batch of decoded 4:2:0 frames in one call with the GIL released,
reading each frame's planes where the decoder left them (an address and a row pitch per plane:
no copy, no array object per frame) and writing each frame into its place of a preallocated
output. The arithmetic is `_color`'s (the GPU kernel's), in an order that LLVM vectorises:

* chroma: a chroma row is widened once (``4 x`` each full-width sample: the quarters of its two
  nearest chroma samples) and two widened rows are blended for each output row (``16 x`` the
  value), in int16 (the largest sum, 16 x 255 + 8, fits; twice the lanes of int32). The
  weights are quarters, so the float32 sums of the reference are exact and these integers are
  those sums times 16: rounding half to even is exact integer work;
* colour: float32 products and sums one at a time in the reference's order (LLVM does not fuse
  them into FMAs without fast-math), rounded half to even by the conversion to int32
  (``np.rint``: the current rounding mode, to nearest even), clamped, stored as uint8 RGB.

The kernels live at module level, not in a closure, so that Numba's disk cache finds them in a
later process (`dali._ops.image.resample.jit_kernels` explains why).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.core import types as numba_types
from numba.extending import intrinsic
from numba.np.numpy_support import carray

__all__ = ["frames_to_rgb"]

_F32 = np.float32
_I32 = np.int32
_I16 = np.int16

_jit = numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=False)
#: (Numba's typing helpers, unannotated)
_types: Any = numba_types
_carray: Any = carray


def _u8_at_typing(typingctx: Any, address: Any) -> Any:  # pragma: no cover - compiled
    """The uint8 pointer at an integer address (a Numba intrinsic: `_u8_at`)."""
    if not isinstance(address, _types.Integer):
        return None
    ptr = _types.CPointer(_types.uint8)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], context.get_value_type(ptr))

    return ptr(address), codegen


_u8_at: Any = intrinsic(_u8_at_typing)


@_jit
def _plane(address: int, pitch: int, rows: int) -> np.ndarray:  # pragma: no cover - compiled
    """``rows`` rows of ``pitch`` bytes at ``address`` (a plane with its padding)."""
    return _carray(_u8_at(address), (rows, pitch))


@_jit
def _widen(c: np.ndarray, cw: int, pad: np.ndarray, row: np.ndarray) -> None:  # pragma: no cover
    # ``row[x]`` = 4 x the chroma under full-width pixel x of this chroma row: pixel 2k is
    # 1/4 of sample k-1 and 3/4 of k, pixel 2k+1 3/4 of k and 1/4 of k+1 (edges clamped)
    for k in range(cw):
        pad[k + 1] = _I16(c[k])
    pad[0] = pad[1]
    pad[cw + 1] = pad[cw]
    for k in range(cw):
        row[2 * k] = _I16(pad[k] + _I16(3) * pad[k + 1])
        row[2 * k + 1] = _I16(_I16(3) * pad[k + 1] + pad[k + 2])


@_jit
def _blend(
    a: np.ndarray, b: np.ndarray, wa: int, w: int, out: np.ndarray
) -> None:  # pragma: no cover
    # ``wa`` quarters of widened row a and the rest of b: 16 x the chroma, rounded half to
    # even. At most 16 x 255 + 8: int16, twice the lanes of int32 in a vector
    wb = _I16(4) - wa
    for x in range(w):
        s = _I16(wa * a[x] + wb * b[x])
        out[x] = _I16(_I16(s + _I16(7) + (_I16(s >> _I16(4)) & _I16(1))) >> _I16(4))


@_jit
def _ycbcr_row(
    y: np.ndarray, cb: np.ndarray, cr: np.ndarray, w: int, o: np.ndarray
) -> None:  # pragma: no cover
    for x in range(w):
        o[3 * x] = y[x]
        o[3 * x + 1] = np.uint8(cb[x])
        o[3 * x + 2] = np.uint8(cr[x])


@_jit
def _full_row(
    y: np.ndarray, cb: np.ndarray, cr: np.ndarray, w: int, o: np.ndarray
) -> None:  # pragma: no cover
    for x in range(w):
        tb = _F32(cb[x]) - _F32(128)
        tr = _F32(cr[x]) - _F32(128)
        yy = _F32(y[x])
        r = yy + _F32(1.402) * tr
        g = (yy - _F32(0.34413629) * tb) - _F32(0.71413629) * tr
        b = yy + _F32(1.772) * tb
        o[3 * x] = np.uint8(min(max(_I32(np.rint(r)), 0), 255))
        o[3 * x + 1] = np.uint8(min(max(_I32(np.rint(g)), 0), 255))
        o[3 * x + 2] = np.uint8(min(max(_I32(np.rint(b)), 0), 255))


@_jit
def _limited_row(
    y: np.ndarray, cb: np.ndarray, cr: np.ndarray, w: int, o: np.ndarray
) -> None:  # pragma: no cover
    for x in range(w):
        tb = _F32(cb[x]) - _F32(128)
        tr = _F32(cr[x]) - _F32(128)
        ty = _F32(1.164) * (_F32(y[x]) - _F32(16))
        r = ty + _F32(1.596) * tr
        g = (ty - _F32(0.813) * tr) - _F32(0.392) * tb
        b = ty + _F32(2.017) * tb
        o[3 * x] = np.uint8(min(max(_I32(np.rint(r)), 0), 255))
        o[3 * x + 1] = np.uint8(min(max(_I32(np.rint(g)), 0), 255))
        o[3 * x + 2] = np.uint8(min(max(_I32(np.rint(b)), 0), 255))


@_jit
def frames_to_rgb(
    planes: np.ndarray, mode: int, out: np.ndarray, dest: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Frame ``i`` of ``planes`` into ``out[dest[i]]``.

    Args:
        planes: int64 ``(N, 6)``: the address and the row pitch (bytes) of the Y, U and V
            planes of each frame: ``H x W`` and ``ceil(H/2) x ceil(W/2)`` uint8 samples.
        mode: 0 BT.601 limited range RGB, 1 full-range (JPEG) RGB, 2 upsampled YCbCr.
        out: uint8 ``(M, H, W * 3)``, C-contiguous.
        dest: int64 ``(N,)``: the place of each frame in ``out``.
    """
    h = out.shape[1]
    w = out.shape[2] // 3
    ch, cw = (h + 1) // 2, (w + 1) // 2
    pad = np.empty(cw + 2, np.int16)
    # widened chroma rows: u in slots 0 and 1, v in 2 and 3; ``s`` holds the upper row
    wide = np.empty((4, 2 * cw), np.int16)
    cb = np.empty(w, np.int16)
    cr = np.empty(w, np.int16)
    for i in range(planes.shape[0]):
        y = _plane(planes[i, 0], planes[i, 1], h)
        u = _plane(planes[i, 2], planes[i, 3], ch)
        v = _plane(planes[i, 4], planes[i, 5], ch)
        frame = out[dest[i]]
        upper, lower, s = -1, -1, 0
        for r in range(h):
            # output row r lies between chroma rows ya (weight 1/4 or 3/4) and yb
            y0 = (r >> 1) if r & 1 else (r >> 1) - 1
            ya = min(max(y0, 0), ch - 1)
            yb = min(max(y0 + 1, 0), ch - 1)
            if ya != upper or yb != lower:
                if ya == lower:  # moving down one chroma row: the lower row becomes the upper
                    s = 1 - s
                else:
                    _widen(u[ya], cw, pad, wide[s])
                    _widen(v[ya], cw, pad, wide[2 + s])
                _widen(u[yb], cw, pad, wide[1 - s])
                _widen(v[yb], cw, pad, wide[3 - s])
                upper, lower = ya, yb
            wa = _I16(3) if r & 1 else _I16(1)
            _blend(wide[s], wide[1 - s], wa, w, cb)
            _blend(wide[2 + s], wide[3 - s], wa, w, cr)
            if mode == 2:
                _ycbcr_row(y[r], cb, cr, w, frame[r])
            elif mode == 1:
                _full_row(y[r], cb, cr, w, frame[r])
            else:
                _limited_row(y[r], cb, cr, w, frame[r])
