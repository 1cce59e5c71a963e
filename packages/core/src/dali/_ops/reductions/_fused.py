"""One-pass CPU sums of the float reductions, when Numba is installed.

The numpy path of `dali._ops.reductions.arith` makes the element step's values (squares,
centred squares) as a temporary and sums them in float64, regrouping the rows (`reduce_np`).
`accumulate` does the same in one Numba pass per sample that reads each element once and adds
in the very order of those numpy reductions (numpy's buffered pairwise sum for a contiguous
row, row after row otherwise), so its float64 sums are the same bit for bit. It covers the
reductions over one run of adjacent axes (after dropping extent-1 axes: all of them, ``HW`` of
``HWC``, ``C``...) of 8- to 32-bit integers and float32; it returns None for the others, which
the numpy path takes.

Example:
    >>> import numpy as np
    >>> from dali._ops.reductions import arith
    >>> x = np.random.default_rng(0).random((2, 50, 60, 3), dtype=np.float32)
    >>> got = accumulate("mean_square", x, (1, 2), None)
    >>> want = arith.accumulate(np, arith.square(np, x), (1, 2), np.float32)
    >>> got is None or bool((got == want).all())
    True
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dali._ops.reductions.arith import ROW

__all__ = ["accumulate"]

_F32 = np.dtype(np.float32)


@functools.cache
def _kernels() -> Any:
    try:
        from dali._ops.reductions import _fused_jit
    except ImportError:
        return None
    return _fused_jit


def _canonical(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int, int] | None:
    """``shape`` as ``(outer, R, inner)`` with ``R`` the reduced extent, as `arith.reduce_np`
    groups it; None unless the reduced axes form one group of more than one element."""
    groups: list[list[Any]] = []  # [extent, reduced]
    for d, n in enumerate(shape):
        if n == 1:
            continue
        red = d in axes
        if groups and groups[-1][1] == red:
            groups[-1][0] *= n
        else:
            groups.append([n, red])
    reduced = [j for j, (_, red) in enumerate(groups) if red]
    if len(reduced) != 1:
        return None
    j = reduced[0]
    return (
        math.prod(n for n, _ in groups[:j]),
        int(groups[j][0]),
        math.prod(n for n, _ in groups[j + 1 :]),
    )


def accumulate(kind: str, a: np.ndarray, axes: tuple[int, ...], mean: Any) -> np.ndarray | None:
    """The float64 sum over ``axes`` (kept as extent 1) of ``kind``'s element step of ``a``,
    as `arith.accumulate` computes it into a float output; None where this path does not apply.

    Args:
        kind: ``sum``, ``mean``, ``mean_square``, ``rms``, ``std_dev`` or ``variance``.
        a: The values (numpy).
        axes: The reduced axes, sorted.
        mean: The mean (``std_dev``/``variance``), of ``a``'s rank with the reduced axes 1.
    """
    k = _kernels()
    dt = a.dtype
    if k is None or a.size == 0:
        return None
    small_int = dt.kind in "iu" and dt.itemsize <= 4
    if not (dt == _F32 or small_int):
        return None
    if kind in ("mean_square", "rms") and dt != _F32:
        return None  # integer squares wrap in C's types: the numpy path
    form = _canonical(tuple(a.shape), axes)
    if form is None:
        return None
    outer, r, inner = form
    x = np.ascontiguousarray(a).reshape(form)
    kept = tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    if kind in ("sum", "mean") and small_int:
        acc = np.uint64 if dt.kind == "u" and dt.itemsize == 4 else np.int64
        out = np.empty((outer, inner), acc)
        k.sum_int(x, ROW, out)
        return out.astype(np.float64).reshape(kept)
    mode, m = k.VALUE, np.zeros((1, 1), _F32)
    if kind in ("mean_square", "rms"):
        mode = k.SQUARE
    elif kind in ("std_dev", "variance"):
        mode = k.CENTRED
        m = np.ascontiguousarray(np.broadcast_to(mean, kept), _F32).reshape(outer, inner)
    elif dt != _F32:
        return None
    if mode != k.CENTRED:  # (the mean array is not read)
        m = np.zeros((outer, inner), _F32)
    out = np.empty((outer, inner), np.float64)
    if inner == 1 and r > 8:
        k.sum_rows(x.reshape(outer, r), m.reshape(outer), mode, out.reshape(outer))
    else:
        k.sum_float(x, m, mode, ROW, out)
    return out.reshape(kept)
