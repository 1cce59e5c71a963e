"""Batch arithmetic in numpy that keeps the GIL: blocks of at most ``options.HELD_ELEMENTS``
values.

numpy gives the GIL up inside an operation over more than 500 elements (its
``NPY_BEGIN_THREADS_THRESHOLDED``), and ``np.zeros`` does around ``calloc`` for more than 1 KB.
Taking the GIL back then waits until the thread holding it gives it up, for as long as Python's
switch interval (5 ms) when that thread runs Python. A pipeline always has such threads (the
decoders' planning, the other stages), so the per-batch arithmetic of the stage threads, dozens
of small numpy operations over ``(batch, 2)`` arrays, can spend far more time waiting than
computing (``benchmarks/RESULTS.md``, "GIL-held numpy"). Row-wise arithmetic over a
batch is therefore done in blocks of rows (`by_rows`): the same results, with the GIL held
throughout. Zeroed and filled arrays of any size come
from `zeros` and `full` (Python's own memory) rather than ``np.zeros`` and ``np.full``, and
counting arrays from `arange` and `span` (``np.arange`` gives the GIL up whatever its size).

Example:
    >>> import numpy as np
    >>> [(s.start, s.stop) for s in row_blocks(600, 2)]
    [(0, 250), (250, 500), (500, 600)]
    >>> by_rows(lambda a, b: (a + b, a * b), 600, 2, np.ones((600, 2)), np.ones((600, 2)))[0].shape
    (600, 2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from dali import _options as options

__all__ = ["arange", "by_rows", "full", "row_blocks", "span", "zeros"]


def row_blocks(n: int, width: int) -> list[slice]:
    """``range(n)`` as slices of at most ``options.HELD_ELEMENTS // width`` rows (one when n
    fits)."""
    step = max(1, options.HELD_ELEMENTS // max(1, width))
    if n <= step:
        return [slice(0, n)]
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def by_rows(
    fn: Callable[..., tuple[np.ndarray, ...]], n: int, width: int, *arrays: Any
) -> tuple[np.ndarray, ...]:
    """``fn(*arrays)`` computed on blocks of rows (`row_blocks`) and put back together.

    ``fn`` must treat each row on its own; it returns a tuple of arrays whose first axis is
    the rows. ``width`` is the widest row (elements) of the arrays it works on. Arrays of
    ``n`` rows are cut into blocks; anything else (None, scalars, a row shared by all) is
    passed as it is.
    """
    blocks = row_blocks(n, width)
    if len(blocks) == 1:
        return tuple(fn(*arrays))
    rowwise = [isinstance(a, np.ndarray) and a.ndim >= 1 and len(a) == n for a in arrays]
    parts = [fn(*(a[rows] if cut else a for a, cut in zip(arrays, rowwise))) for rows in blocks]
    return tuple(_join_rows(column) for column in zip(*parts))


def _join_rows(parts: tuple[np.ndarray, ...]) -> np.ndarray:
    """``np.concatenate(parts)`` (along the rows), copied with the GIL held: the blocks' bytes
    joined by Python (numpy's copy of a large result gives the GIL up)."""
    first = parts[0]
    if 0 in first.shape[1:] or any(
        p.dtype != first.dtype or p.shape[1:] != first.shape[1:] for p in parts
    ):
        return np.concatenate(parts)  # (empty rows, or mixed types: numpy's promotion)
    data = bytearray(b"".join(p.tobytes() for p in parts))
    return np.frombuffer(data, first.dtype).reshape(-1, *first.shape[1:])


def zeros(shape: int | np.integer[Any] | tuple[int, ...], dtype: Any) -> np.ndarray:
    """``np.zeros(shape, dtype)`` without giving the GIL up (a writable array over a zeroed
    ``bytearray``; ``np.zeros`` calls ``calloc`` without the GIL above 1 KB)."""
    dtype = np.dtype(dtype)
    shape = _shape(shape)
    return np.frombuffer(bytearray(_count(shape) * dtype.itemsize), dtype).reshape(shape)


def full(shape: int | np.integer[Any] | tuple[int, ...], value: Any, dtype: Any) -> np.ndarray:
    """``np.full(shape, value, dtype)`` without giving the GIL up (the value's bytes repeated
    by Python; numpy's fill gives it up above 500 values)."""
    dtype = np.dtype(dtype)
    shape = _shape(shape)
    one = np.array(value, dtype).tobytes()
    return np.frombuffer(bytearray(one * _count(shape)), dtype).reshape(shape)


def _shape(shape: int | np.integer[Any] | tuple[int, ...]) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _count(shape: tuple[int, ...]) -> int:
    count = 1
    for v in shape:
        count *= v
    return count


def span(start: int, count: int) -> np.ndarray:
    """``np.arange(start, start + count, dtype=np.int64)`` (writable) without giving the GIL
    up: `arange`'s cached counts plus ``start``, in blocks of rows."""
    offset = np.int64(start)
    return by_rows(lambda k: (k + offset,), count, 1, arange(count))[0]


@functools.lru_cache(maxsize=64)
def arange(n: int, dtype: Any = np.int64) -> np.ndarray:
    """``np.arange(n, dtype=dtype)``, read-only and made once per ``(n, dtype)`` (``np.arange``
    gives the GIL up while it fills the array, whatever its size)."""
    out = np.arange(n, dtype=dtype)
    out.flags.writeable = False
    return out
