"""Numeric helpers every operator shares: DALI's conversions, rounding, and the array module.

DALI converts between element types with saturation (its ``ConvertSat``): a float becomes an
integer by rounding to nearest with halves **away from zero** and clamping to the target range
(``[-1.5, 2.5, 0.5, -0.5]`` → INT32 ``[-2, 3, 1, -1]``, → UINT8 ``[0, 3, 1, 0]``, ``300.0`` →
UINT8 ``255``), an integer that does not fit the target type is clamped, a float too large for
FLOAT16 becomes ``inf`` (``70000.0`` → ``inf``), and anything becomes BOOL as ``x != 0``
(`convert_sat`). Rounding is C's ``round``, halves away from zero (`round_half_away`,
`round_half_away_int`), as DALI's C++ computes it.

The helpers are written against an *array module* ``xp``: numpy for CPU batches, CuPy for GPU
batches (`array_module`), so that an operator's CPU and GPU backends share one body;
`batch_array` is a batch as one array when that is cheap, `run_per_sample` runs per-sample work
where the backend wants it (the thread pool, or in order on the GPU's thread).

Example:
    >>> import numpy as np
    >>> x = np.array([-1.5, 2.5, 0.5, -0.5, 300.0], dtype=np.float32)
    >>> convert_sat(np, x, np.uint8).tolist(), convert_sat(np, x, np.int32).tolist()
    ([0, 3, 1, 0, 255], [-2, 3, 1, -1, 300])
    >>> convert_sat(np, x, np.uint8, truncate=True).tolist()  # DALI's crop and slice kernels
    [0, 2, 0, 0, 255]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dali._tensors import TensorListCPU, TensorListGPU
    from dali.author import Workspace

__all__ = [
    "array_module",
    "batch_array",
    "convert_sat",
    "host_samples",
    "round_half_away",
    "round_half_away_int",
    "run_per_sample",
    "same_rows",
]


def array_module(tl: Any) -> tuple[Any, type[TensorListCPU | TensorListGPU]]:
    """The array module (numpy or CuPy) and TensorList class of a batch.

    CuPy is imported only for a GPU batch, so CPU pipelines never touch it.
    """
    from dali._tensors import TensorListCPU, TensorListGPU

    if isinstance(tl, TensorListGPU):
        import cupy

        return cupy, TensorListGPU
    return np, TensorListCPU


def batch_array(tl: Any, xp: Any) -> Any:
    """The batch as one ``(B, ...)`` array when that is cheap, else None.

    On the CPU only a batch already stored dense qualifies: stacking a list of samples (what
    per-sample producers such as decoders and resize give) would copy the whole batch before
    the operator even starts, so per-sample work is faster there. On the GPU one stack is
    cheaper than a kernel launch per sample.
    """
    if xp is np:
        return tl.held_dense
    return tl.dense()


def host_samples(tl: Any) -> list[np.ndarray]:
    """The samples of a batch as numpy arrays (a GPU batch is copied to the host)."""
    if hasattr(tl, "as_cpu") and type(tl).__name__ == "TensorListGPU":
        tl = tl.as_cpu()
    return [np.asarray(s) for s in tl.samples()]


def round_half_away_int(a: float) -> int:
    """C's ``std::round`` of one (double) value, as an int: halves away from zero.

    ``a - trunc(a)`` is exact, so no double rounding can move a value across the half.
    """
    t = float(np.trunc(a))
    frac = a - t
    return int(t + (1.0 if frac >= 0.5 else (-1.0 if frac <= -0.5 else 0.0)))


def _round_nonneg(xp: Any, a: Any) -> Any:
    """Round non-negative floats half up: ``rint`` (halves to even, one fast pass) then +1
    where a half went down, found exactly by ``rint(a) - a == -0.5``. (``floor(a + 0.5)``
    would be wrong for the float just below 0.5: the sum rounds up to 1.0.)"""
    r = xp.rint(a)
    r += (r - a) == -0.5
    return r


def round_half_away(xp: Any, x: Any) -> Any:
    """Round floats to nearest, halves away from zero (C's ``round``), keeping the dtype."""
    return xp.copysign(_round_nonneg(xp, xp.abs(x)), x)


def _int_bounds_in(dtype: np.dtype[Any], src: np.dtype[Any]) -> tuple[Any, Any] | None:
    """Clamp bounds for an integer→integer conversion, as values of ``src`` (None: none needed)."""
    ti, si = np.iinfo(dtype), np.iinfo(src)
    lo, hi = max(ti.min, si.min), min(ti.max, si.max)
    if lo <= si.min and hi >= si.max:
        return None
    return src.type(lo), src.type(hi)


def convert_sat(xp: Any, x: Any, dtype: Any, *, truncate: bool = False) -> Any:
    """Convert an array to ``dtype`` with DALI's saturating rules (see the module docstring).

    Args:
        xp: numpy or CuPy.
        x: The array (any numeric or bool dtype).
        dtype: The target numpy dtype.
        truncate: Float to integer truncates toward zero instead of rounding (what DALI's
            crop and slice kernels do; `cast` and `crop_mirror_normalize` round).

    Returns:
        A new array of ``dtype`` (or ``x`` itself when it already has that dtype).
    """
    dtype = np.dtype(dtype)
    src = x.dtype
    if src == dtype:
        return x
    if dtype.kind == "b":
        if src.kind == "f":  # DALI rounds first: 0.49 -> False, 0.5 -> True, NaN -> True
            return (xp.trunc(x) if truncate else round_half_away(xp, x)) != 0
        return x != 0
    if truncate and src.kind == "f" and dtype.kind in "iu":
        x = xp.trunc(x)
    if dtype.kind == "f" or src.kind == "b":
        with np.errstate(over="ignore", invalid="ignore"):  # float16 overflow gives inf
            return x.astype(dtype)
    if src.kind in "iu":
        bounds = _int_bounds_in(dtype, src)
        if bounds is not None:
            x = xp.clip(x, bounds[0], bounds[1])
        return x.astype(dtype)
    # float -> integer: round half away from zero, then saturate
    if src.itemsize < 4:  # float16 cannot even hold the bounds of the wider integer types
        x = x.astype(np.float32)
        src = x.dtype
    info = np.iinfo(dtype)
    lo, hi = src.type(info.min), src.type(info.max)
    if int(lo) == info.min and int(hi) == info.max:  # the bounds are exact in the float type
        # clamping first is the same (the bounds are integers) and shrinks what is rounded
        y = xp.clip(x, lo, hi)
        r = _round_nonneg(xp, y) if info.min == 0 else round_half_away(xp, y)
        with np.errstate(invalid="ignore"):
            out = r.astype(dtype)
        if src.kind == "f":
            out = xp.where(xp.isnan(x), _nan_as(dtype), out) if _may_have_nan(xp, x) else out
        return out
    # 32/64-bit targets whose limits round up in the float type: clamp by masks
    r = round_half_away(xp, x)
    with np.errstate(invalid="ignore", over="ignore"):
        out = xp.clip(r, lo, hi).astype(dtype)
    out = xp.where(r >= hi, dtype.type(info.max), out)
    out = xp.where(r <= lo, dtype.type(info.min), out)
    return xp.where(xp.isnan(x), _nan_as(dtype), out)


def _nan_as(dtype: np.dtype[Any]) -> Any:
    """NaN converted to an integer type, as DALI 2.4 does on x86: the type's minimum for signed
    types (INT32: -2147483648, checked by the conformance session), 0 for unsigned ones."""
    return dtype.type(np.iinfo(dtype).min) if dtype.kind == "i" else dtype.type(0)


def _may_have_nan(xp: Any, x: Any) -> bool:
    if xp is not np:
        return True  # checking would synchronize; the where() is cheap on the device
    return bool(np.isnan(np.min(x))) if x.size else False


def run_per_sample(ws: Workspace, xp: Any, fn: Any, n: int) -> list[Any]:
    """Run ``fn(i)`` for every sample: on the thread pool for numpy, in order for CuPy.

    GPU work stays on the calling thread (the current device and stream); an error is
    re-raised as `SampleFailure` so that the pipeline's message names the sample.
    """
    from dali._exec.workspace import SampleFailure

    if xp is np:
        return ws.map(fn, n)
    out = []
    for i in range(n):
        try:
            out.append(fn(i))
        except SampleFailure:
            raise
        except Exception as e:
            raise SampleFailure(i, e) from e
    return out


def same_rows(values: Sequence[Any]) -> bool:
    """Whether every per-sample value is equal (then a batch can be processed in one go)."""
    if not values:
        return True
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if np.shape(v) != np.shape(first) or not np.array_equal(v, first):
            return False
    return True
