"""The Numba kernel of `grid_mask` on the CPU (importing this module needs Numba).

`grid_mask_into` masks one HWC image in a single pass with the GIL released: the numpy path
makes the two float32 coordinate planes, their floors, the comparisons and the product, each a
pass of its own. The arithmetic is `grid_mask.grid_mask`'s, operation by operation in float32
(LLVM does not fuse products and sums into FMAs without fast-math), and a pixel is multiplied by
1 or 0 of its type as there (a float pixel keeps the product's sign and NaN): the same values.

The kernel lives at module level (Numba's disk cache finds it in a later process:
`dali._ops.image.resample.jit_kernels` explains why).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["grid_mask_into"]

_F = np.float32


@numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=False)
def grid_mask_into(
    src: np.ndarray,
    ca: np.float32,
    sa: np.float32,
    sx: np.float32,
    sy: np.float32,
    ratio: np.float32,
    dst: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``dst = src · keep`` for an ``(H, W, C)`` image; ``ca``, ``sa``, ``sx``, ``sy``: the
    cosine, sine and shifts already divided by the tile."""
    h, w, c = src.shape
    one = src.dtype.type(1)
    zero = src.dtype.type(0)
    for y in range(h):
        fy = _F(y)
        bx = -sx + fy * -sa
        by = -sy + fy * ca
        for x in range(w):
            fx = _F(x)
            u = bx + fx * ca
            v = by + fx * sa
            keep = (u - np.floor(u) >= ratio) | (v - np.floor(v) >= ratio)
            k = one if keep else zero
            for ch in range(c):
                dst[y, x, ch] = src[y, x, ch] * k
