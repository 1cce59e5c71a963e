"""The arithmetic of DALI's reductions, on numpy (CPU) or CuPy (GPU) arrays.

DALI 2.4's reduction kernels (``dali/kernels/reduce/reduce_cpu.h``) work in three steps, and
so does this module; the observed results of DALI 2.4 that each rule reproduces are in the
tests (``tests/core/ops/reductions``):

1. **Element step** (`square`): the value itself, its square, or ``(x - mean)²``. Squares of
   8- and 16-bit integers are C ``int`` products (a ``uint16`` of 46341 squares to a negative
   number: ``mean_square`` of ``[46341]`` is ``-2147479040.0`` in DALI), of 32-bit integers
   64-bit products, of 64-bit integers products that wrap.
2. **Accumulation** in the *output* type (`accumulate`): integer outputs wrap around
   (``sum(uint8 [200, 100], dtype=UINT8)`` is 44, ``mean`` of that is 22); float outputs are
   summed here in float64 (exactly in int64 where the values are integers that fit), which
   differs from DALI's float32 pairwise sums by their rounding only.
3. **Final step**: ``mean``-like results are ``float32(acc) * float32(1 / (n - ddof))``, ``rms``
   and ``std_dev`` their square root, and an integer output is the C++ conversion of that float
   (`to_int_like_cpp`: truncation; NaN and out-of-range values as x86-64 converts them).

``min`` and ``max`` start from the type's largest/lowest *finite* value, skip NaN and never
select an infinity that points away from it: ``min([inf])`` is ``FLT_MAX`` and ``min([nan])``
too, as in DALI (`min_max`).

Large CPU reductions over a middle axis with a short trailing extent (``H, W`` of ``HWC``) are
slow in numpy (its inner loop is the 3 channels); `reduce_np` regroups the rows so that every
numpy call reduces rows of at least `ROW` contiguous elements.

Example:
    >>> import numpy as np
    >>> x = np.array([[200, 100], [1, 2]], np.uint8)
    >>> accumulate(np, x, (1,), np.uint8).ravel().tolist()  # wraps, as DALI's uint8 sum
    [44, 3]
    >>> min_max(np, np.array([[np.inf, np.nan]], np.float32), (1,), "min").item()
    3.4028234663852886e+38
    >>> to_int_like_cpp(np, np.array([np.nan, 2.0**31, -3.7], np.float32), np.int32).tolist()
    [-2147483648, -2147483648, -3]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "ROW",
    "accumulate",
    "expand_trailing",
    "min_max",
    "reduce_np",
    "square",
    "to_int_like_cpp",
]

#: Contiguous elements per row in `reduce_np`'s regrouped reductions: long enough for numpy's
#: vectorised row additions, short enough that few rows of a sample are left over.
ROW = 1024


# -- numpy: reductions over any axes, regrouped into long rows ------------------------------------


def reduce_np(ufunc: Any, a: np.ndarray, axes: tuple[int, ...], dtype: Any = None) -> np.ndarray:
    """``ufunc.reduce`` of ``a`` over ``axes`` (sorted), keeping the reduced dimensions.

    Every extent must be at least 1 (callers handle empty reductions). Adjacent axes of one
    kind (reduced or kept) are merged and extent-1 axes dropped, then each reduced group is
    reduced from the innermost out, as an ``(outer, R, inner)`` array (`_reduce_middle`).
    The first step accumulates in ``dtype``; the result has that dtype (or ``a``'s).
    """
    if a.size == 0:  # an empty output (the reduced extents are not 0: see above)
        return np.asarray(ufunc.reduce(a, axis=axes, dtype=dtype, keepdims=True))
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    a = np.ascontiguousarray(a)
    groups: list[list[Any]] = []  # [extent, reduced]
    for d, n in enumerate(a.shape):
        if n == 1:
            continue
        red = d in axes
        if groups and groups[-1][1] == red:
            groups[-1][0] *= n
        else:
            groups.append([n, red])
    x = a
    while any(red for _, red in groups):
        j = max(k for k, (_, red) in enumerate(groups) if red)
        outer = math.prod(n for n, _ in groups[:j])
        inner = math.prod(n for n, _ in groups[j + 1 :])
        x = _reduce_middle(ufunc, x.reshape(outer, groups[j][0], inner), dtype)
        dtype = None
        del groups[j]
        if 0 < j < len(groups) and not groups[j - 1][1] and not groups[j][1]:
            groups[j - 1][0] *= groups.pop(j)[0]
    if dtype is not None and x.dtype != dtype:  # nothing to reduce: the values, converted
        x = x.astype(dtype)
    return x.reshape(out_shape)


def _reduce_middle(ufunc: Any, v: np.ndarray, dtype: Any) -> np.ndarray:
    """Reduce the middle axis of ``v`` (``(outer, R, inner)``) to ``(outer, inner)``.

    A short ``R`` (the channels of ``HWC``) is reduced slice by slice (numpy's own loop over a
    3-element axis is ~20x slower). With a short ``inner``, the rows are regrouped ``k`` at a
    time into rows of ``k * inner`` contiguous elements: one numpy reduction over those, then
    one over the ``k`` partial rows. 8-bit integers summed into a wide type are first summed
    in runs of 256 in 16 bits (they cannot overflow there), which saves most of the widening.
    """
    outer, r, inner = v.shape
    if r <= _FEW:
        acc = v[:, 0].astype(dtype or v.dtype)
        for j in range(1, r):
            ufunc(acc, v[:, j], out=acc, casting="unsafe")
        return acc
    if inner == 1:
        flat = v.reshape(outer, r)
        if (
            ufunc is np.add
            and v.dtype.itemsize == 1
            and dtype is not None
            and np.dtype(dtype).itemsize == 8
        ):
            return _sum_bytes(flat, dtype).reshape(outer, 1)
        return np.asarray(ufunc.reduce(flat, axis=1, dtype=dtype)).reshape(outer, 1)
    k = ROW // inner
    if k < 2 or r < 2 * k:
        return np.asarray(ufunc.reduce(v, axis=1, dtype=dtype))
    q = r // k
    head = ufunc.reduce(v[:, : q * k].reshape(outer, q, k * inner), axis=1, dtype=dtype)
    out = ufunc.reduce(head.reshape(outer, k, inner), axis=1)
    if q * k < r:
        out = ufunc(out, ufunc.reduce(v[:, q * k :], axis=1, dtype=dtype))
    return np.asarray(out)


#: Axes this short are reduced slice by slice in `_reduce_middle`.
_FEW = 8
#: 8-bit values summed in 16 bits at a time: 256 of them fit (255 * 256 < 2**16, -128 * 256 is
#: the int16 minimum).
_RUN = 256


def _sum_bytes(flat: np.ndarray, dtype: Any) -> np.ndarray:
    """Row sums of 8-bit integers in the 64-bit ``dtype``: runs of 256 summed in 16 bits."""
    outer, r = flat.shape
    q = r // _RUN
    mid = np.uint16 if flat.dtype.kind == "u" else np.int16
    out = np.add.reduce(flat[:, : q * _RUN].reshape(outer, q, _RUN), axis=2, dtype=mid)
    total = np.add.reduce(out, axis=1, dtype=dtype)
    if q * _RUN < r:
        total = total + np.add.reduce(flat[:, q * _RUN :], axis=1, dtype=dtype)
    return np.asarray(total)


# -- the three steps --------------------------------------------------------------------------------


def _square_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The type of DALI's square of a ``dtype`` value: C's ``int`` for 8/16-bit integers,
    64 bits for 32-bit ones, the type itself otherwise."""
    if dtype.kind in "iu" and dtype.itemsize <= 2:
        return np.dtype(np.int32)
    if dtype == np.int32:
        return np.dtype(np.int64)
    if dtype == np.uint32:
        return np.dtype(np.uint64)
    return dtype


def square(xp: Any, a: Any) -> Any:
    """DALI's element step of ``mean_square``/``rms``: ``x * x`` in `_square_dtype` (wrapping;
    float32 stays float32, as in DALI)."""
    if a.dtype.kind == "f":
        return a * a
    # one pass, the product in the wider type; integer overflow wraps silently, as in C
    return xp.multiply(a, a, dtype=_square_dtype(a.dtype))


def expand_trailing(xp: Any, m: Any, shape: tuple[int, ...]) -> Any:
    """``m`` (broadcastable to ``shape``, of its rank) repeated along the trailing axes of
    ``shape`` until they hold `ROW` // 4 elements: numpy's broadcasting loops over the
    innermost axis, and over 3 channels (a per-channel mean) that is ~8x slower."""
    size, j = 1, len(shape)
    while j > 0 and size < ROW // 4:
        j -= 1
        size *= shape[j]
    target = tuple(m.shape[:j]) + tuple(shape[j:])
    if tuple(m.shape) == target:
        return m
    return xp.ascontiguousarray(xp.broadcast_to(m, target))


def _sum(xp: Any, a: Any, axes: tuple[int, ...], dtype: Any) -> Any:
    if not axes:
        return a.astype(dtype)
    if xp is np:
        return reduce_np(np.add, a, axes, dtype)
    return xp.sum(a, axis=axes, dtype=dtype, keepdims=True)


def accumulate(xp: Any, pre: Any, axes: tuple[int, ...], out_dtype: Any) -> Any:
    """The sum of the element step's values ``pre`` over ``axes`` (keeping the dimensions)
    as DALI accumulates it in ``out_dtype``.

    An integer ``out_dtype`` wraps around (every value converted to it first, as C++ adds it
    to the accumulator). A float32 ``out_dtype`` is summed exactly where the values are
    integers of at most 32 bits (int64 sums) and in float64 otherwise; the result is float64,
    which the caller rounds to float32 once (DALI's float32 pairwise sums round at every step:
    the difference is their rounding).
    """
    out_dtype = np.dtype(out_dtype)
    n = math.prod(pre.shape[a] for a in axes)
    if out_dtype.kind in "iu":
        if n == 0:
            return xp.zeros(_kept(pre.shape, axes), out_dtype)
        if xp is not np:
            pre = pre.astype(out_dtype, copy=False)
        return _sum(xp, pre, axes, out_dtype)  # numpy's reductions cast unsafely: wrapping
    acc: type[np.generic] = np.float64
    if pre.dtype.kind in "iu" and pre.dtype.itemsize <= 4:
        acc = np.int64 if pre.dtype.kind == "i" or pre.dtype.itemsize < 4 else np.uint64
    if n == 0:
        return xp.zeros(_kept(pre.shape, axes), np.float64)
    return _sum(xp, pre, axes, acc).astype(np.float64, copy=False)


def _kept(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if d in axes else n for d, n in enumerate(shape))


def min_max(xp: Any, a: Any, axes: tuple[int, ...], kind: str) -> Any:
    """DALI's ``min``/``max`` over ``axes`` (non-empty; keeping the dimensions).

    The reduction starts from the type's largest (``min``) or lowest (``max``) finite value
    and takes a value only when it compares below (above) it: NaN never, an infinity
    pointing away from the start never (``min([inf])`` is ``FLT_MAX``), an empty
    reduction gives the start.
    """
    info = np.finfo(a.dtype) if a.dtype.kind == "f" else np.iinfo(a.dtype)
    start = a.dtype.type(info.max if kind == "min" else info.min)
    shape = _kept(a.shape, axes)
    if math.prod(a.shape[d] for d in axes) == 0:
        return xp.full(shape, start, a.dtype)
    if xp is not np:
        return _min_max_kernel(kind, a.dtype)(a, axis=axes, keepdims=True)
    ufunc = np.minimum if kind == "min" else np.maximum
    out = reduce_np(ufunc, a, axes)
    if a.dtype.kind == "f":
        if np.isnan(out).any():  # NaN propagated: reduce again without them
            out = reduce_np(ufunc, np.where(np.isnan(a), start, a), axes)
        out = ufunc(out, start)
    return out


_KERNELS: dict[tuple[str, str], Any] = {}


def _min_max_kernel(kind: str, dtype: np.dtype[Any]) -> Any:
    """A CuPy reduction with DALI's min/max rules for ``dtype`` (memoised): values that do not
    compare below (above) the start, NaN included, are mapped to the start."""
    key = (kind, np.dtype(dtype).str)
    kernel = _KERNELS.get(key)
    if kernel is None:
        import cupy

        info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
        start = info.max if kind == "min" else info.min
        if np.dtype(dtype).kind == "f":
            literal = f"(T){float(start)!r}"
        else:
            literal = f"(T){int(start)}{'ULL' if np.dtype(dtype).kind == 'u' else 'LL'}"
            if start == np.iinfo(np.int64).min:  # no such literal in C
                literal = "(T)(-9223372036854775807LL - 1)"
        cmp = "<" if kind == "min" else ">"
        kernel = cupy.ReductionKernel(
            "T x",
            "T y",
            f"(x {cmp} {literal}) ? x : {literal}",
            f"(b {cmp} a) ? b : a",
            "y = a",
            literal,
            f"dali_reduce_{kind}",
        )
        _KERNELS[key] = kernel
    return kernel


def to_int_like_cpp(xp: Any, x: Any, dtype: Any) -> Any:
    """Convert float32 ``x`` to the integer ``dtype`` as DALI's C++ ``static_cast`` does on
    x86-64: truncation toward zero; NaN and values out of range become the "integer
    indefinite" of the 32- or 64-bit conversion instruction (``INT_MIN``), of which 8- and
    16-bit targets keep the low bits (0) and ``uint32`` the low 32 bits of the 64-bit one (0);
    ``uint64`` converts values from 2**63 up by subtracting 2**63 first (DALI: NaN gives
    2**63, 2**64 gives 0).
    """
    dtype = np.dtype(dtype)
    x = x.astype(np.float32, copy=False)

    def cvt(v: Any, bits: int) -> Any:  # cvttss2si: truncate, or the indefinite value
        t = np.int32 if bits == 32 else np.int64
        lim = np.float32(2.0 ** (bits - 1))
        with np.errstate(invalid="ignore"):
            ok = (v >= -lim) & (v < lim)
            return xp.where(ok, xp.where(ok, v, 0).astype(t), t(np.iinfo(t).min))

    if dtype == np.uint64:
        big = x >= np.float32(2.0**63)
        with np.errstate(invalid="ignore"):
            low = cvt(xp.where(big, x - np.float32(2.0**63), x), 64).view(np.uint64)
        return xp.where(big, low ^ np.uint64(1 << 63), low)
    if dtype == np.int64:
        return cvt(x, 64)
    if dtype == np.uint32:
        return cvt(x, 64).astype(np.uint32)
    return cvt(x, 32).astype(dtype)
