"""The Numba row passes of `jit` (importing this module needs Numba: the `jit` extra).

The kernels live at module level, not in a closure: Numba's on-disk cache keys a function by
its code and the pickled contents of its closure, and a closure holding another compiled
function (a dispatcher, pickled with a fresh id in every process) never matched, so each process
recompiled every signature (about 0.8 s before the first resized image) and added entries to the
cache files. Module globals are not part of the key; with them the second process loads the
compiled code from ``__pycache__``.

Both passes compute output row ``j`` as ``Σ_k w[j, k] · src[idx[j, k], :]`` (taps in order,
float32), along a whole contiguous row, so LLVM vectorises the inner loop.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["rows_float", "rows_int"]


@numba.njit(nogil=True, cache=True, inline="always")
def _accumulate(
    src: np.ndarray, idx: np.ndarray, w: np.ndarray, j: int, acc: np.ndarray
) -> None:  # pragma: no cover - compiled
    # acc = Σ_k w[j, k] · src[idx[j, k]], taps in order, float32
    for i in range(acc.shape[0]):
        acc[i] = 0.0
    for k in range(idx.shape[1]):
        wk = w[j, k]
        row = src[idx[j, k]]
        for i in range(acc.shape[0]):
            acc[i] += wk * np.float32(row[i])


@numba.njit(nogil=True, cache=True)
def rows_float(
    src: np.ndarray, idx: np.ndarray, w: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``out[j] = Σ_k w[j, k] · src[idx[j, k]]`` for every row ``j``, float32 ``out``."""
    for j in range(idx.shape[0]):
        _accumulate(src, idx, w, j, out[j])


@numba.njit(nogil=True, cache=True)
def rows_int(
    src: np.ndarray,
    idx: np.ndarray,
    w: np.ndarray,
    out: np.ndarray,
    acc: np.ndarray,
    lo: np.float32,
    hi: np.float32,
) -> None:  # pragma: no cover - compiled
    """The same sums, written to an integer ``out`` as ``trunc(v + 0.5)`` saturated to
    ``[lo, hi]``; ``acc`` is a float32 row of scratch."""
    for j in range(idx.shape[0]):
        _accumulate(src, idx, w, j, acc)
        o = out[j]
        for i in range(acc.shape[0]):
            v = np.trunc(acc[i] + np.float32(0.5))
            o[i] = min(max(v, lo), hi)
