"""Numba kernels of `_fused`: one pass per sample for the float reductions (importing this
module needs Numba).

Each kernel reads ``x`` as ``(outer, R, inner)``, reduces ``R`` and computes the element step
on the fly (the value, its float32 square or its float32 centred square), so no temporary
of the squares is written. The float64 sums add in the order of numpy's reductions that
`arith.reduce_np` makes (see `_fused`), so the results are those of the numpy path bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["CENTRED", "SQUARE", "VALUE", "sum_float", "sum_int", "sum_rows"]

#: Element steps: the value, its square, the square of its difference to the mean.
VALUE, SQUARE, CENTRED = 0, 1, 2
#: Elements numpy casts per buffer in a reduction with a ``dtype`` (its default buffer size).
_BUFFER = 8192
#: numpy's pairwise summation block.
_BLOCK = 128


@numba.njit(nogil=True, cache=True, inline="always")
def _step(v, m, mode):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # the element step in float32 (numpy's float32 arithmetic), widened to float64
    f = np.float32(v)
    if mode == SQUARE:
        f = f * f
    elif mode == CENTRED:
        d = f - m
        f = d * d
    return np.float64(f)


@numba.njit(nogil=True, cache=True, inline="always")
def _leaf(row, lo, n, m, mode, acc):  # type: ignore[no-untyped-def]  # pragma: no cover
    # numpy's pairwise_sum of at most 128 steps: 8 accumulators, then the rest in order
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += _step(row[i], m, mode)
        return res
    for j in range(8):
        acc[j] = _step(row[lo + j], m, mode)
    end = lo + n - n % 8
    for i in range(lo + 8, end, 8):
        for j in range(8):
            acc[j] += _step(row[i + j], m, mode)
    res = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
    for i in range(end, lo + n):
        res += _step(row[i], m, mode)
    return res


@numba.njit(nogil=True, cache=True, inline="always")
def _pairwise(row, lo, n, m, mode, acc, frames, vals):  # type: ignore[no-untyped-def]  # pragma: no cover
    # numpy's recursive pairwise_sum of the steps of row[lo:lo + n] (halves rounded down to
    # a multiple of 8, blocks of at most 128 summed by `_leaf`), walked with an explicit
    # stack: ``frames`` rows are (start, length, state), ``vals`` the partial sums
    if n <= _BLOCK:
        return _leaf(row, lo, n, m, mode, acc)
    sp, vp = 1, 0
    frames[0, 0], frames[0, 1], frames[0, 2] = lo, n, 0
    while sp > 0:
        f = sp - 1
        start, length, state = frames[f, 0], frames[f, 1], frames[f, 2]
        half = length // 2
        half -= half % 8
        if length <= _BLOCK:
            vals[vp] = _leaf(row, start, length, m, mode, acc)
            vp += 1
            sp -= 1
        elif state == 0:  # the first half
            frames[f, 2] = 1
            frames[sp, 0], frames[sp, 1], frames[sp, 2] = start, half, 0
            sp += 1
        elif state == 1:  # the second half
            frames[f, 2] = 2
            frames[sp, 0], frames[sp, 1], frames[sp, 2] = start + half, length - half, 0
            sp += 1
        else:  # both done: their sum
            vals[vp - 2] = vals[vp - 2] + vals[vp - 1]
            vp -= 1
            sp -= 1
    return vals[0]


@numba.njit(nogil=True, cache=True)
def sum_rows(x, mean, mode, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out[o] = Σ_r step(x[o, r])`` in float64 as numpy's ``add.reduce(..., dtype=float64)``
    of a contiguous row adds: buffer by buffer, each summed pairwise."""
    outer, r = x.shape
    acc = np.empty(8, np.float64)  # numpy's 8 accumulators (in vector registers)
    frames = np.empty((64, 3), np.int64)
    vals = np.empty(64, np.float64)
    for o in range(outer):
        row = x[o]
        m = mean[o]
        res = 0.0
        lo = 0
        while lo < r:
            n = min(_BUFFER, r - lo)
            res += _pairwise(row, lo, n, m, mode, acc, frames, vals)
            lo += n
        out[o] = res


@numba.njit(nogil=True, cache=True)
def sum_float(x, mean, mode, row, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out[o, i] = Σ_r step(x[o, r, i])`` in float64, in `arith.reduce_np`'s order
    (``inner`` > 1, or ``R`` <= 8; `sum_rows` does the other rows).

    ``mean`` is ``(outer, inner)`` float32 (read in mode CENTRED only); ``row`` is `arith.ROW`.
    """
    outer, r, inner = x.shape
    k = row // inner
    for o in range(outer):
        if r <= 8:  # the first slice, then the others added in order
            for i in range(inner):
                acc = _step(x[o, 0, i], mean[o, i], mode)
                for j in range(1, r):
                    acc += _step(x[o, j, i], mean[o, i], mode)
                out[o, i] = acc
        elif k < 2 or r < 2 * k:  # row after row
            for i in range(inner):
                out[o, i] = 0.0
            for j in range(r):
                for i in range(inner):
                    out[o, i] += _step(x[o, j, i], mean[o, i], mode)
        else:  # rows of k * inner elements added in order, then their k parts, then the rest
            q = r // k
            width = k * inner
            flat = x[o].reshape(r * inner)
            means = np.empty(width, np.float32)
            for t in range(width):
                means[t] = mean[o, t % inner]
            head = np.zeros(width, np.float64)
            for p in range(q):
                base = p * width
                for t in range(width):
                    head[t] += _step(flat[base + t], means[t], mode)
            for i in range(inner):
                acc = 0.0
                for g in range(k):
                    acc += head[g * inner + i]
                if q * k < r:
                    rest = 0.0
                    for j in range(q * k, r):
                        rest += _step(x[o, j, i], mean[o, i], mode)
                    acc = acc + rest
                out[o, i] = acc


@numba.njit(nogil=True, cache=True)
def sum_int(x, row, out):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """``out[o, i] = Σ_r x[o, r, i]`` in the integer type of ``out`` (exact: any order)."""
    outer, r, inner = x.shape
    k = max(1, row // inner)
    width = k * inner
    q = r // k
    lanes = np.zeros(width, out.dtype)
    for o in range(outer):
        flat = x[o].reshape(r * inner)
        lanes[:] = 0
        for p in range(q):
            base = p * width
            for t in range(width):
                lanes[t] += flat[base + t]
        for i in range(inner):
            acc = lanes[i]
            for g in range(1, k):
                acc += lanes[g * inner + i]
            for j in range(q * k, r):
                acc += x[o, j, i]
            out[o, i] = acc
