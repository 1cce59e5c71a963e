"""`crop_mirror_normalize` of uint8 images as one Numba call per sample (the `jit` extra).

A uint8 input takes 256 values, so CMN's arithmetic (``(x - mean) * inv_std``, converted to the
output type) is a per-channel lookup table (`crop_mirror_normalize._LutCache`, float16 tables
as their bits). This kernel reads the window once and writes every output element from the
table, in the output layout (CHW or HWC), mirrored or not: one call that releases the GIL.

Why not OpenCV: its path is five calls per sample (flip, split, one LUT per channel), each
releasing and re-taking the GIL: in the CPU ResNet-50 pipeline the threads queued for the GIL
between those calls, and alone this kernel is faster too (``benchmarks/RESULTS.md``, "CPU
resampling").

Example:
    >>> import numpy as np
    >>> x = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    >>> lut = np.tile(np.arange(256, dtype=np.float32), (3, 1))  # identity tables
    >>> out = np.empty((3, 2, 4), np.float32)
    >>> if available():
    ...     normalize(x, lut, True, out, chw=True)
    ...     assert (out == x[:, ::-1].transpose(2, 0, 1)).all()
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["available", "normalize"]


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled kernels, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def lut_chw(
        src: np.ndarray, lut: np.ndarray, mirror: bool, dst: np.ndarray
    ) -> None:  # pragma: no cover - compiled
        # dst[ch, y, x] = lut[ch, src[y, x', ch]], x' = x or its mirror
        h, w, c = src.shape
        for ch in range(c):
            table = lut[ch]
            for y in range(h):
                row = src[y]
                out = dst[ch, y]
                for x in range(w):
                    out[x] = table[row[x, ch]]
                if mirror:  # reversing the finished row vectorises; a reversed gather did not
                    for x in range(w // 2):
                        t = out[x]
                        out[x] = out[w - 1 - x]
                        out[w - 1 - x] = t

    @numba.njit(nogil=True, cache=True)
    def lut_hwc(
        src: np.ndarray, lut: np.ndarray, mirror: bool, dst: np.ndarray
    ) -> None:  # pragma: no cover - compiled
        h, w, c = src.shape
        for y in range(h):
            row = src[y]
            out = dst[y]
            for x in range(w):
                xo = w - 1 - x if mirror else x
                for ch in range(c):
                    out[xo, ch] = lut[ch, row[x, ch]]

    return lut_chw, lut_hwc


def available() -> bool:
    """Whether Numba is installed (the `jit` extra)."""
    return _kernels() is not None


def normalize(
    src: np.ndarray, lut: np.ndarray, mirror: bool, dst: np.ndarray, *, chw: bool
) -> None:
    """Write ``lut[ch][src]`` into ``dst``, mirrored along the width when ``mirror``.

    Args:
        src: ``(H, W, C)`` uint8, the window (any strides).
        lut: ``(C, 256)`` table per channel, of ``dst``'s type (float16 tables as uint16 bits,
            with ``dst`` viewed as uint16).
        mirror: Flip horizontally.
        dst: ``(C, H, W)`` when ``chw``, else ``(H, W, C)``.

    Raises:
        RuntimeError: Numba is not installed (check `available` first).
    """
    kernels = _kernels()
    if kernels is None:
        raise RuntimeError("the jit CMN path needs Numba (pip install numba)")
    kernels[0 if chw else 1](src, lut, bool(mirror), dst)
