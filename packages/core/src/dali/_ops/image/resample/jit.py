"""The fastest CPU path of separable resampling: two row passes compiled by Numba.

When the optional `jit` extra (Numba) is installed, `cpu.resample` runs 2-D samples here. Each
axis pass is the same loop: output row ``j`` is ``Σ_k w[j, k] · src[idx[j, k], :]`` with the
taps and normalised weights of `reference.axis_weights` (DALI's tabulated filters, borders
clamped). The inner loop runs along a whole contiguous row, so LLVM vectorises it, and the
taps are visited in the same order with the same float32 arithmetic as `resample_reference`:
the results equal the reference bit for bit (the banded BLAS path of `band` only within float32
reordering).

The width pass needs the width as rows: its input is transposed first (OpenCV's blocked
transpose), filtered, transposed back; the last pass writes the output type directly
(``trunc(v + 0.5)``, saturated, for integers). A row pass and OpenCV's transpose are faster
than a first pass that stores its rows transposed itself, and this path is faster than Pillow and
than the BLAS path (``benchmarks/RESULTS.md``, "CPU resampling").

The kernels are compiled on first use (about a second; Numba caches them on disk for later
processes) and release the GIL.

Example:
    >>> import numpy as np
    >>> from dali._ops.image.resample import reference as R
    >>> img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    >>> plans = [R.AxisPlan.make(4, 2, 0.0, 4.0), R.AxisPlan.make(4, 2, 0.0, 4.0)]
    >>> if available():
    ...     out = resample_2d(img, 0, plans, np.uint8)
    ...     assert (out == R.resample_reference(img, (0, 1), plans, np.uint8)).all()
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._ops.image._common import ThreadScratch, transpose_hw
from dali._ops.image.resample.cpu import each_image
from dali._ops.image.resample.reference import (
    AxisPlan,
    axis_weights,
    convert_output,
    nn_indices,
)

__all__ = ["available", "resample_2d", "resample_outer"]

_F32 = np.float32
#: Input dtypes the kernels are compiled for; others are converted to float32 first.
_NATIVE_INPUTS = (np.dtype(np.uint8), np.dtype(np.float32))


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled row passes (`jit_kernels`), or None when Numba is not installed."""
    try:
        from dali._ops.image.resample import jit_kernels as k
    except ImportError:
        return None
    return k.rows_float, k.rows_int


def available() -> bool:
    """Whether Numba is installed (the `jit` extra)."""
    return _kernels() is not None


_scratch = ThreadScratch()


def resample_2d(
    data: np.ndarray, first: int, plans: Sequence[AxisPlan], out_dtype: Any
) -> np.ndarray:
    """Resample the adjacent spatial axes ``first, first + 1`` of ``data`` (any dtype).

    Axes before ``first`` (frames, planar channels) are looped over; axes after ``first + 1``
    (interleaved channels) travel inside the rows. NN axes are gathered, the others filtered.

    Args:
        data: One sample.
        first: Its first spatial axis.
        plans: The two axes' `AxisPlan`.
        out_dtype: The output numpy dtype.

    Returns:
        The resampled sample, ``plans[i].out_size`` along axis ``first + i``.

    Raises:
        RuntimeError: Numba is not installed (check `available` first).
    """
    kernels = _kernels()
    if kernels is None:
        raise RuntimeError("the jit resampling path needs Numba (pip install numba)")
    out_dtype = np.dtype(out_dtype)
    if data.dtype not in _NATIVE_INPUTS:
        data = data.astype(_F32)
    taps = [None if p.kind == "nn" or p.is_identity else axis_weights(p) for p in plans]
    return each_image(data, first, plans, lambda img: _image(img, plans, taps, out_dtype, kernels))


def _image(
    img: np.ndarray,
    plans: Sequence[AxisPlan],
    taps: Sequence[tuple[np.ndarray, np.ndarray] | None],
    out_dtype: np.dtype[Any],
    kernels: tuple[Any, Any],
) -> np.ndarray:
    """One ``(H, W, C)`` image (NN axes already gathered) → ``(H', W', C)`` of ``out_dtype``.

    The axes are filtered in the reference's order (the most shrinking first), so the float32
    sums are the same; the last pass writes the output type.
    """
    py, px = plans
    ty, tx = taps
    img = np.ascontiguousarray(img)
    if tx is None and ty is None:
        return convert_output(img.astype(_F32), out_dtype)
    height_first = ty is not None and (
        tx is None or py.out_size / max(1, py.in_size) <= px.out_size / max(1, px.in_size)
    )
    if height_first:
        assert ty is not None  # (height_first says so)
        if tx is None:
            return _pass(img, ty, out_dtype, kernels, "down")
        # the height pass, transposed: the width pass then runs on rows
        t = _pass_transposed(img, ty, kernels)
    else:
        assert tx is not None  # else both are None (returned above) or only ty: height first
        flipped = (img.shape[1], img.shape[0], img.shape[2])
        t = transpose_hw(img, _scratch.get("transposed", flipped, img.dtype), cold=True)
        if ty is not None:  # the width pass, transposed back, then the height pass on rows
            return _pass(_pass_transposed(t, tx, kernels), ty, out_dtype, kernels, "down")
    return transpose_hw(_pass(t, tx, out_dtype, kernels, "across"))


def _pass_transposed(
    img: np.ndarray, taps: tuple[np.ndarray, np.ndarray], kernels: tuple[Any, Any]
) -> np.ndarray:
    """Filter axis 0 of ``(H, W, C)`` and return ``(W, H', C)`` float32 (thread scratch).

    A row pass, then OpenCV's blocked transpose: faster than storing the pass's rows transposed
    from the kernel (16-row tiles) (``benchmarks/RESULTS.md``, "CPU resampling").
    """
    filtered = _pass(img, taps, None, kernels, "before-transpose")
    h2, wd, c = filtered.shape
    return transpose_hw(filtered, _scratch.get("transposed-out", (wd, h2, c)))


def _pass(
    img: np.ndarray,
    taps: tuple[np.ndarray, np.ndarray],
    final: np.dtype[Any] | None,
    kernels: tuple[Any, Any],
    name: str,
) -> np.ndarray:
    """Filter axis 0 of ``(H, W, C)``: float32 scratch, or a new array of ``final``."""
    rows_float, rows_int = kernels
    idx, w = taps
    h, wd, c = img.shape
    n_out = idx.shape[0]
    src = img.reshape(h, wd * c)
    if final is not None and final.kind in "iu" and final.itemsize <= 2:
        out = np.empty((n_out, wd * c), final)
        info = np.iinfo(final)
        acc = _scratch.get("acc", (wd * c,))
        rows_int(src, idx, w, out, acc, _F32(info.min), _F32(info.max))
        return out.reshape(n_out, wd, c)
    if final is not None:
        out = np.empty((n_out, wd * c), _F32)
        rows_float(src, idx, w, out)
        return convert_output(out, final).reshape(n_out, wd, c)
    out = _scratch.get(name, (n_out, wd * c))
    rows_float(src, idx, w, out)
    return out.reshape(n_out, wd, c)


def resample_outer(
    data: np.ndarray, axis: int, plan: AxisPlan, out_dtype: np.dtype[Any] | None
) -> np.ndarray:
    """Resample ``data`` along ``axis`` alone, whose rows are whole (contiguous) slices: the
    outermost of three spatial axes. NN gathers (coordinates stepped in float32, as the
    reference's outer axes); an identity plan copies.

    Args:
        data: One sample (any dtype), or the float32 result of the other passes.
        axis: The axis.
        plan: Its `AxisPlan`.
        out_dtype: The output dtype (the last pass), or None: float32 for a next pass.

    Raises:
        RuntimeError: Numba is not installed (check `available` first).
    """
    kernels = _kernels()
    if kernels is None:
        raise RuntimeError("the jit resampling path needs Numba (pip install numba)")
    if plan.kind == "nn" or plan.is_identity:
        out = data
        if not plan.is_identity:
            out = np.take(data, nn_indices(plan, accumulate=True), axis=axis)
        return convert_output(out.astype(_F32, copy=False), out_dtype or np.dtype(_F32))
    if data.dtype not in _NATIVE_INPUTS:
        data = data.astype(_F32)
    data = np.ascontiguousarray(data)
    lead, n = data.shape[:axis], data.shape[axis]
    rest = data.shape[axis + 1 :]
    planes = data.reshape(-1, n, int(np.prod(rest, dtype=np.int64)), 1)
    idx, w = axis_weights(plan)
    final = None if out_dtype is None else np.dtype(out_dtype)
    # a new array of ``final`` per plane (float32 for a next pass), not thread scratch
    done = [_pass(p, (idx, w), final or np.dtype(_F32), kernels, "outer") for p in planes]
    result = done[0][None] if len(done) == 1 else np.stack(done)
    return result.reshape(*lead, plan.out_size, *rest)
