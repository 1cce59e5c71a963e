"""The Numba kernels of `color_space`'s CPU conversions (importing this module needs Numba).

Each kernel converts the pixels of one sample, ``(N, C_in)`` uint8 rows, into ``(N, C_out)``
uint8 in one pass with the GIL released: the numpy path makes a float32 array per channel and
per step (a dozen passes over the image). The arithmetic is `color_space`'s, operation by
operation in float32 (LLVM does not fuse products and sums into FMAs without fast-math), and
each result is saturated and rounded half up as `numeric.convert_sat` does (clamp to
[0, 255], round, halves up): the same bytes as the numpy path, checked on every pixel value.
BGR input and output are a flag (no copy). RGB -> GRAY is not here: OpenCV's SIMD
``cvtColor`` is DALI's own call for it.

The kernels live at module level (Numba's disk cache finds them in a later process:
`dali._ops.image.resample.jit_kernels` explains why).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["gray_to_ycbcr", "rgb_to_ycbcr", "ycbcr_to_gray", "ycbcr_to_rgb"]

_F = np.float32
_jit = numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=False)


#: pixels converted per block: the block's planar float32 rows stay in the L1 cache
_BLOCK = 256


@numba.njit(nogil=True, cache=True, inline="always")
def _sat(v: np.float32) -> np.uint8:  # pragma: no cover - compiled
    """``convert_sat(v, uint8)`` of one float32: clamp to [0, 255], round half up. The
    truncation is exact and so is ``v - t`` (below 2**23): no rounding crosses the half."""
    v = min(max(v, _F(0.0)), _F(255.0))
    t = np.int32(v)
    return np.uint8(t + np.int32(v - _F(t) >= _F(0.5)))


@_jit
def rgb_to_ycbcr(
    src: np.ndarray, bgr: bool, k: np.ndarray, dst: np.ndarray
) -> None:  # pragma: no cover - compiled
    """RGB (BGR when ``bgr``) to YCbCr; ``k``: the Y, Cb and Cr coefficient rows (float32
    ``(3, 3)``). A grey pixel has Cb = Cr = 128 exactly.

    Block by block: the pixels are read into planar float32 rows, converted (a loop LLVM
    vectorises; over the interleaved pixels it did not), and written back interleaved.
    """
    n = src.shape[0]
    r = np.empty(_BLOCK, np.float32)
    g = np.empty(_BLOCK, np.float32)
    b = np.empty(_BLOCK, np.float32)
    grey = np.empty(_BLOCK, np.bool_)
    y = np.empty(_BLOCK, np.uint8)
    cb = np.empty(_BLOCK, np.uint8)
    cr = np.empty(_BLOCK, np.uint8)
    k00, k01, k02 = k[0, 0], k[0, 1], k[0, 2]
    k10, k11, k12 = k[1, 0], k[1, 1], k[1, 2]
    k20, k21, k22 = k[2, 0], k[2, 1], k[2, 2]
    first = 2 if bgr else 0
    last = 2 - first
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        for i in range(m):
            ri, gi, bi = src[start + i, first], src[start + i, 1], src[start + i, last]
            r[i], g[i], b[i] = _F(ri), _F(gi), _F(bi)
            grey[i] = (ri == gi) & (ri == bi)
        for i in range(m):
            y[i] = _sat(((k00 * r[i] + k01 * g[i]) + k02 * b[i]) + _F(16.0))
            u = ((k10 * r[i] + k11 * g[i]) + k12 * b[i]) + _F(128.0)
            v = ((k20 * r[i] + k21 * g[i]) + k22 * b[i]) + _F(128.0)
            cb[i] = _sat(_F(128.0) if grey[i] else u)
            cr[i] = _sat(_F(128.0) if grey[i] else v)
        for i in range(m):
            dst[start + i, 0] = y[i]
            dst[start + i, 1] = cb[i]
            dst[start + i, 2] = cr[i]


@_jit
def ycbcr_to_rgb(
    src: np.ndarray, k: np.ndarray, bgr: bool, dst: np.ndarray
) -> None:  # pragma: no cover - compiled
    """YCbCr to RGB (BGR when ``bgr``); ``k``: ``(Y scale, R·Cr, G·Cb, G·Cr, B·Cb)``
    float32."""
    k0, k1, k2, k3, k4 = k[0], k[1], k[2], k[3], k[4]
    first = 2 if bgr else 0
    last = 2 - first
    for p in range(src.shape[0]):
        ty = k0 * (_F(src[p, 0]) - _F(16.0))
        tb = _F(src[p, 1]) - _F(128.0)
        tr = _F(src[p, 2]) - _F(128.0)
        dst[p, first] = _sat(ty + k1 * tr)
        dst[p, 1] = _sat((ty - k2 * tb) - k3 * tr)
        dst[p, last] = _sat(ty + k4 * tb)


@_jit
def gray_to_ycbcr(src: np.ndarray, scale: np.float32, dst: np.ndarray) -> None:  # pragma: no cover
    """``Y = scale · v + 16`` (scale 219/255), Cb = Cr = 128."""
    for p in range(src.shape[0]):
        dst[p, 0] = _sat(_F(src[p, 0]) * scale + _F(16.0))
        dst[p, 1] = 128
        dst[p, 2] = 128


@_jit
def ycbcr_to_gray(src: np.ndarray, scale: np.float32, dst: np.ndarray) -> None:  # pragma: no cover
    """``v = scale · (Y - 16)`` (scale 255/219)."""
    for p in range(src.shape[0]):
        dst[p, 0] = _sat(scale * (_F(src[p, 0]) - _F(16.0)))
