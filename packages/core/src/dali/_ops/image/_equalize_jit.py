"""The Numba kernel of `equalize` on the CPU (importing this module needs Numba).

`equalize_pixels` equalizes every channel of a run of interleaved pixels on its own, with
OpenCV's ``equalizeHist`` arithmetic (which DALI calls, plane by plane): one pass counts the
histograms of all channels, each channel's table is built as OpenCV builds it, and one pass
writes every output pixel from the tables. OpenCV needs the channels split into planes first and
merged after (two more copies), and a call per plane, each taking the GIL back.

The table of a channel whose smallest value is ``lo``: a plane of one value is kept; else ``v``
maps to ``round(float32(cdf(v)) · s)`` with ``cdf(v)`` the pixels in ``(lo, v]`` and
``s = 255 / float32(n - hist[lo])``, rounded half to even (``cvRound``), saturated.

The kernel lives at module level (Numba's disk cache finds it in a later process:
`dali._ops.image.resample.jit_kernels` explains why).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["equalize_pixels"]


@numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=False)
def equalize_pixels(src: np.ndarray, dst: np.ndarray) -> None:  # pragma: no cover - compiled
    """Equalize each channel of ``src`` (``(N, C)`` uint8, N pixels) into ``dst`` (the same)."""
    n, c = src.shape
    hist = np.zeros((c, 256), np.int64)
    for p in range(n):
        for ch in range(c):
            hist[ch, src[p, ch]] += 1
    lut = np.zeros((c, 256), np.uint8)
    for ch in range(c):
        lo = 0
        while hist[ch, lo] == 0:
            lo += 1
        if hist[ch, lo] == n:  # one value: kept
            for v in range(256):
                lut[ch, v] = v
            continue
        scale = np.float32(255.0) / np.float32(n - hist[ch, lo])
        total = 0
        for v in range(lo + 1, 256):
            total += hist[ch, v]
            r = np.rint(np.float32(total) * scale)
            lut[ch, v] = np.uint8(min(max(r, np.float32(0.0)), np.float32(255.0)))
    for p in range(n):
        for ch in range(c):
            dst[p, ch] = lut[ch, src[p, ch]]
