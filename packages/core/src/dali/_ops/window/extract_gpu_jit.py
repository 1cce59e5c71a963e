"""The window kernels' per-sample descriptions (`extract_gpu.window_descs`), compiled by Numba.

The numpy code fills the ``dali_win_desc`` records column by column, in blocks of rows that keep
the GIL; for a batch of 256 that is about 60 small operations on every crop, flip, slice and
crop_mirror_normalize of a GPU stage. This is the same filling as one loop over the samples,
compiled: integers only, so the records are equal byte for byte
(``tests/core/ops/window/test_window_descs.py`` compares the two). It keeps the GIL (no
``nogil``: it takes microseconds). Importing this module needs Numba; `extract_gpu` falls back
to its numpy code without it.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["fill_window_descs"]


@numba.njit(cache=True)
def fill_window_descs(
    words: np.ndarray,
    wide: np.ndarray,
    in_shape: np.ndarray,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    anchors: np.ndarray,
    win_shapes: np.ndarray,
    flips: np.ndarray,
    channels: np.ndarray,
    order: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """`extract_gpu._desc_rows` into zeroed records seen as int32 ``words`` ``(n, 36)`` and
    int64 ``wide`` ``(n, 18)``. The field offsets are `extract_gpu._DESC`'s (checked there):
    input and output at wide 0 and 1, ``in_stride`` from wide 2, ``out_shape``, ``anchor`` and
    ``in_extent`` from words 16, 22 and 28, ``flip`` and ``channels`` at words 34 and 35."""
    n, ndim = in_shape.shape
    strides = np.empty(ndim, np.int64)
    for i in range(n):
        s = 1
        for a in range(ndim - 1, -1, -1):
            strides[a] = s
            s *= in_shape[i, a]
        wide[i, 0] = np.int64(in_ptrs[i])
        wide[i, 1] = np.int64(out_ptrs[i])
        flip = 0
        for d in range(order.shape[0]):
            a = order[d]
            wide[i, 2 + d] = strides[a]
            words[i, 16 + d] = win_shapes[i, a]
            words[i, 22 + d] = anchors[i, a]
            words[i, 28 + d] = in_shape[i, a]
            if flips[i, a]:
                flip |= 1 << d
        words[i, 34] = flip
        words[i, 35] = channels[i]
