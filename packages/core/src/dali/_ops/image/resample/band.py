"""The CPU fast path of separable resampling: each axis pass is one batched matrix product.

Resampling one axis is a matrix product: output row ``j`` is ``Σ_k w[j, k] · x[idx[j, k]]``
over the few taps `reference.axis_weights` gives it (DALI's tabulated filters, clamped at the
borders). Done tap by tap in numpy that is many slow gathers; done as one dense product it is
mostly multiplications by zero. The middle road used here is a *banded* product that BLAS runs
at full speed:

* the input rows (the resampled axis, every other value of the sample flattened into each row)
  are cut into windows of ``L`` rows that start every ``step`` rows, all seen through one
  strided view ``(nblk, L, N)`` without copying;
* the outputs whose first tap falls in window ``b`` form block ``b``; their weights, shifted
  to the window, fill a small dense ``(nblk, B, L)`` tensor;
* ``numpy.matmul`` of the two runs ``nblk`` small SGEMMs (about 40 GMAC/s on one AVX-512
  core) and the rows are put back in output order.

A 2-D image takes two passes: the rows of a ``(H, W, C)`` array are its ``H`` axis, so the
width pass works on the transpose ``(W, H, C)`` (OpenCV's blocked ``transpose`` when installed).
The intermediate is float32 as in DALI, so results equal `resample_reference` except where
float32 sums in a different order round differently (a few pixels per million, by 1).

It is faster than Pillow's resize (``benchmarks/RESULTS.md``, "CPU resampling"), whose 8-bit
path also rounds its first pass (16% of Pillow's pixels are off by 1).

Example:
    >>> import numpy as np
    >>> from dali._ops.image.resample import reference as R
    >>> img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    >>> plans = [R.AxisPlan.make(4, 2, 0.0, 4.0), R.AxisPlan.make(4, 2, 0.0, 4.0)]
    >>> out = resample_2d(img, 0, plans, np.uint8)
    >>> bool((out == R.resample_reference(img, (0, 1), plans, np.uint8)).all())
    True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from dali import _options as options
from dali._ops.image._common import ThreadScratch, transpose_hw
from dali._ops.image.resample.cpu import each_image
from dali._ops.image.resample.reference import AxisPlan, axis_weights, convert_output

__all__ = ["Band", "band", "resample_2d"]

_F32 = np.float32


class Band(NamedTuple):
    """The banded form of one axis' resampling matrix.

    Attributes:
        weights: ``(nblk, B, L)`` float32: block ``b`` maps input rows
            ``[b·step, b·step + L)`` to its (up to) ``B`` outputs.
        step: Input rows between the starts of consecutive windows.
        rows: Input rows the strided view spans, ``(nblk - 1)·step + L`` (the caller pads the
            input with zero rows up to this).
        order: Where each output row lies in the ``(nblk·B)`` product rows, or None when they are
            already in order.
    """

    weights: np.ndarray
    step: int
    rows: int
    order: np.ndarray | None


def _step(plan: AxisPlan, taps: int) -> int:
    """Window spacing: a few output pixels per block keeps both B·L and the SGEMM count small."""
    return int(min(64, max(4, round(3 * abs(plan.scale)), taps)))


@functools.lru_cache(maxsize=512)
def band(plan: AxisPlan) -> Band:
    """The banded weights of one (non-NN) axis; see the module docstring.

    Example:
        >>> from dali._ops.image.resample import reference as R
        >>> b = band(R.AxisPlan.make(100, 40, 0.0, 100.0))
        >>> b.step, b.weights.shape[0] * b.step >= 100
        (8, True)
    """
    idx, w = axis_weights(plan)
    n_out, taps = idx.shape
    step = _step(plan, taps)
    lo = idx.min(axis=1)
    blk = lo // step
    nblk = int(blk.max()) + 1
    counts = np.bincount(blk, minlength=nblk)
    width = int(counts.max())
    if np.all(blk[1:] >= blk[:-1]):  # the usual case: outputs in input order
        rank = np.arange(n_out) - (np.cumsum(counts) - counts)[blk]
    else:  # a flipped ROI: rank each output inside its block in output order
        perm = np.argsort(blk, kind="stable")
        rank = np.empty(n_out, np.int64)
        rank[perm] = np.arange(n_out) - (np.cumsum(counts) - counts)[blk[perm]]
    span = int((idx.max(axis=1) + 1 - blk * step).max())
    # clamped taps repeat a border index: bincount sums them where a scatter would keep one
    slot_row = (blk * width + rank) * span - blk * step
    flat = (slot_row[:, None] + idx).ravel()
    size = nblk * width * span
    weights = np.bincount(flat, w.ravel(), minlength=size).astype(_F32).reshape(nblk, width, span)
    slot = blk * width + rank
    in_order = slot.shape[0] == nblk * width and bool(np.all(slot == np.arange(n_out)))
    return Band(weights, step, (nblk - 1) * step + span, None if in_order else slot)


_scratch = ThreadScratch()


def _rows_pass(src: np.ndarray, b: Band, out_size: int, name: str) -> np.ndarray:
    """Apply ``b`` to the rows of ``src`` (already padded to ``b.rows``) → ``(out_size, N)``.

    The result is a view of the thread's scratch buffer ``name``.
    """
    n = src.shape[1]
    nblk, width, span = b.weights.shape
    prod = _scratch.get(name + "-prod", (nblk, width, n))
    chunk = max(1, options.ONE_THREAD_MACS // max(1, width * span))
    for c0 in range(0, n, chunk):
        c1 = min(n, c0 + chunk)
        view = as_strided(
            src[:, c0:],
            shape=(nblk, span, c1 - c0),
            strides=(b.step * src.strides[0], src.strides[0], src.strides[1]),
            writeable=False,
        )
        np.matmul(b.weights, view, out=prod[:, :, c0:c1])
    flat = prod.reshape(nblk * width, n)
    if b.order is None:
        return flat[:out_size]
    return np.take(flat, b.order, axis=0, out=_scratch.get(name + "-rows", (out_size, n)))


def _padded(name: str, b: Band, n_in: int, n: int) -> np.ndarray:
    """A scratch ``(max(b.rows, n_in), n)`` input whose rows past ``n_in`` are zero."""
    src = _scratch.get(name, (max(b.rows, n_in), n))
    src[n_in:] = 0
    return src


def _convert(x: np.ndarray, out_dtype: np.dtype[Any]) -> np.ndarray:
    """`convert_output` of a scratch float32 array, in place for integers; never the scratch."""
    if out_dtype.kind in "iu":
        info = np.iinfo(out_dtype)
        np.add(x, _F32(0.5), out=x)
        np.trunc(x, out=x)
        np.clip(x, info.min, info.max, out=x)
        return x.astype(out_dtype)
    out = convert_output(x, out_dtype)
    return out.copy() if out is x else out


def resample_2d(
    data: np.ndarray, first: int, plans: Sequence[AxisPlan], out_dtype: Any
) -> np.ndarray:
    """Resample the adjacent spatial axes ``first, first + 1`` of ``data`` (any dtype).

    Axes before ``first`` (frames, planar channels) are looped over; axes after ``first + 1``
    (interleaved channels) travel inside the rows. NN axes are gathered, the others filtered
    by banded products; the most shrinking axis goes first, as in DALI.

    Args:
        data: One sample.
        first: Its first spatial axis.
        plans: The two axes' `AxisPlan`.
        out_dtype: The output numpy dtype.

    Returns:
        The resampled sample, ``plans[i].out_size`` along axis ``first + i``.
    """
    out_dtype = np.dtype(out_dtype)
    bands = [None if p.kind == "nn" or p.is_identity else band(p) for p in plans]
    return each_image(data, first, plans, lambda img: _image(img, plans, bands, out_dtype))


def _image(
    img: np.ndarray,
    plans: Sequence[AxisPlan],
    bands: Sequence[Band | None],
    out_dtype: np.dtype[Any],
) -> np.ndarray:
    """One ``(H, W, C)`` image (NN axes already gathered) → ``(H', W', C)`` of ``out_dtype``."""
    py, px = plans
    by, bx = bands
    h, w, c = img.shape
    if bx is None:
        if by is None:
            return _convert(img.astype(_F32), out_dtype)
        src = _padded("a", by, h, w * c)
        src[:h] = img.reshape(h, w * c)
        y = _rows_pass(src, by, py.out_size, "a")
        return _convert(y, out_dtype).reshape(py.out_size, w, c)
    if by is None or py.out_size / max(1, h) > px.out_size / max(1, w):
        # the width first: transpose the input, filter its rows, transpose back
        src = _padded("a", bx, w, h * c)
        src[:w] = transpose_hw(img).reshape(w, h * c)
        x = _rows_pass(src, bx, px.out_size, "a").reshape(px.out_size, h, c)
        if by is None:
            return transpose_hw(_convert(x, out_dtype))
        src = _padded("b", by, h, px.out_size * c)
        transpose_hw(x, src[:h].reshape(h, px.out_size, c))
        y = _rows_pass(src, by, py.out_size, "b")
        return _convert(y, out_dtype).reshape(py.out_size, px.out_size, c)
    # the height first (it shrinks more), then the width on the transpose
    src = _padded("a", by, h, w * c)
    src[:h] = img.reshape(h, w * c)
    y = _rows_pass(src, by, py.out_size, "a").reshape(py.out_size, w, c)
    src = _padded("b", bx, w, py.out_size * c)
    transpose_hw(y, src[:w].reshape(w, py.out_size, c))
    x = _rows_pass(src, bx, px.out_size, "b").reshape(px.out_size, py.out_size, c)
    return transpose_hw(_convert(x, out_dtype))
