"""A matrix applied along one axis of every sample: what mel filter banks and the DCT share.

`fn.mel_filter_bank` (a bank of triangular filters over the frequency bins) and `fn.mfcc` (a
table of cosines) both replace the ``n`` values of each 1-D slice of a sample along one axis by
``M @ slice``, ``m`` values, optionally each multiplied afterwards by a factor per row (the
filters' normalisation in DALI's time-major mel kernel, the MFCC lifter). A sample is seen as
``(outer, n, inner)`` around that axis; the output is ``(outer, m, inner)``.

Every output value is DALI's float32 sum: ``acc = 0``, then ``acc += M[r, k] * x[k]`` for the
``k`` of the row's non-zero span in increasing order (a mel filter touches a few bins), each
product and sum rounded to float32, then ``acc *= scale[r]`` (``dali/kernels/audio/mel_scale/
mel_filter_bank_cpu.cc``, ``dali/kernels/signal/dct/dct_cpu.cc``), so that the results are
DALI's bit for bit:

* CPU: a Numba kernel per sample on the pipeline's threads (the loops in DALI's order, the
  inner positions vectorised); without Numba, numpy, one step per span position over the whole
  batch (or sample) at once: ``acc += M[:, k] * x[span_k]`` for every row and every
  outer/inner position together. Both give the same bits;
* GPU: one kernel launch for the whole batch, ragged or not (`dali_apply_matrix`): a thread per
  output value, the same sum in the same order (no fused multiply-add).

Example:
    >>> import numpy as np
    >>> m = np.array([[1, 1, 0], [0, 1, -1]], np.float32)
    >>> x = np.arange(6, dtype=np.float32).reshape(3, 2)  # n = 3 along axis 0
    >>> apply_matrix_cpu(x, m, axis=0).tolist()
    [[2.0, 4.0], [-2.0, -2.0]]
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

__all__ = ["apply_matrix_cpu", "apply_matrix_gpu", "numba_available", "row_spans"]


def row_spans(matrix: np.ndarray) -> np.ndarray:
    """``(m, 2)`` int32: the first and one-past-last column of each row's non-zero values
    (an all-zero row: ``[0, 0]``)."""
    nz = matrix != 0
    any_nz = nz.any(axis=1)
    first = np.where(any_nz, nz.argmax(axis=1), 0)
    last = np.where(any_nz, matrix.shape[1] - nz[:, ::-1].argmax(axis=1), 0)
    return np.stack([first, last], axis=1).astype(np.int32)


@functools.lru_cache(maxsize=64)
def _gather_plan(key: bytes, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(index, weight)``, both ``(m, K)``: for span position ``k`` of row ``r`` the column
    and the matrix value (past the row's span: the extra zero column ``n``, weight 0)."""
    matrix = np.frombuffer(key, np.float32).reshape(shape)
    spans = row_spans(matrix)
    width = int((spans[:, 1] - spans[:, 0]).max(initial=0))
    k = np.arange(width)[None, :]
    cols = spans[:, :1] + k
    inside = cols < spans[:, 1:]
    index = np.where(inside, cols, shape[1])
    padded = np.concatenate([matrix, np.zeros((shape[0], 1), np.float32)], axis=1)
    weight = np.take_along_axis(padded, index, axis=1)
    index.flags.writeable = False
    weight.flags.writeable = False
    return index, weight


@functools.cache
def _kernel() -> Any:
    """The compiled kernel, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def apply(x3, matrix, spans, scale, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        # float32 throughout, no fused multiply-add (Numba's default): DALI's sums, bit for bit
        outer, _, inner = x3.shape
        m = matrix.shape[0]
        scaled = scale.shape[0] > 0
        for p in range(outer):
            for r in range(m):
                lo, hi = spans[r, 0], spans[r, 1]
                if inner == 1:  # one sum: a scalar accumulator
                    acc = np.float32(0)
                    for k in range(lo, hi):
                        acc += matrix[r, k] * x3[p, k, 0]
                    if scaled:
                        acc *= scale[r]
                    out[p, r, 0] = acc
                    continue
                for q in range(inner):
                    out[p, r, q] = 0
                for k in range(lo, hi):
                    w = matrix[r, k]
                    for q in range(inner):
                        out[p, r, q] += w * x3[p, k, q]
                if scaled:
                    f = scale[r]
                    for q in range(inner):
                        out[p, r, q] *= f

    return apply


def numba_available() -> bool:
    """Whether the compiled kernel can be used (Numba is installed)."""
    return _kernel() is not None


@functools.lru_cache(maxsize=64)
def _spans(key: bytes, shape: tuple[int, int]) -> np.ndarray:
    out = row_spans(np.frombuffer(key, np.float32).reshape(shape)).astype(np.int64)
    out.flags.writeable = False
    return out


def apply_matrix_cpu(
    x: np.ndarray,
    matrix: np.ndarray,
    axis: int,
    scale: np.ndarray | None = None,
    *,
    use_numba: bool | None = None,
) -> np.ndarray:
    """``matrix`` (``(m, n)`` float32) applied along ``axis`` of ``x`` (float32, extent ``n``
    there), each output row then multiplied by ``scale[row]`` when given; a new C-contiguous
    float32 array, DALI's sums bit for bit.

    ``use_numba``: force the compiled (True) or the numpy (False) path; None: the compiled one
    when Numba is installed.
    """
    shape = x.shape
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1 :])
    m, n = matrix.shape
    matrix = np.ascontiguousarray(matrix, np.float32)
    kernel = _kernel() if use_numba is not False else None
    if kernel is not None:
        x3 = np.ascontiguousarray(x, np.float32).reshape(outer, n, inner)
        out = np.empty((outer, m, inner), np.float32)
        factors = np.zeros(0, np.float32) if scale is None else np.asarray(scale, np.float32)
        kernel(x3, matrix, _spans(matrix.tobytes(), (m, n)), factors, out)
        return out.reshape(*shape[:axis], m, *shape[axis + 1 :])
    if use_numba:
        raise RuntimeError("the compiled kernel needs Numba (pip install numba)")
    index, weight = _gather_plan(matrix.tobytes(), (m, n))
    # an extra zero column for the positions past a row's span (0 * 0 leaves the sum as is)
    x3 = np.concatenate(
        [x.reshape(outer, n, inner), np.zeros((outer, 1, inner), np.float32)], axis=1
    )
    acc = np.zeros((outer, m, inner), np.float32)
    tmp = np.empty_like(acc)
    for k in range(index.shape[1]):
        np.multiply(x3[:, index[:, k], :], weight[None, :, k, None], out=tmp)
        acc += tmp
    if scale is not None:
        acc *= np.asarray(scale, np.float32)[None, :, None]
    return acc.reshape(*shape[:axis], m, *shape[axis + 1 :])


_GPU_SOURCE = r"""
struct dali_matrix_sample {  // one sample of the batch, seen as (outer, n, inner)
  unsigned long long in, out;
  long long outer, inner;
  long long matrix;  // offset of the sample's matrix in `matrices`
  long long rows;    // index of its first row in `spans` and `scale`
  long long n;
};

extern "C" __global__ void dali_apply_matrix(
    const dali_matrix_sample* __restrict__ samples, const int* __restrict__ block_start,
    int nsamples, const float* __restrict__ matrices, const int* __restrict__ spans,
    const float* __restrict__ scale, int m) {
  // scale: one factor per matrix row (ones where the operator has none)
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_matrix_sample d = samples[s];
  const long long idx = (long long)(blockIdx.x - block_start[s]) * blockDim.x + threadIdx.x;
  const long long total = d.outer * m * d.inner;
  if (idx >= total) return;
  const long long q = idx % d.inner;
  const long long r = (idx / d.inner) % m;
  const long long p = idx / (d.inner * m);
  const float* x = reinterpret_cast<const float*>(d.in) + p * d.n * d.inner + q;
  const float* row = matrices + d.matrix + r * d.n;
  const int lo = spans[2 * (d.rows + r)], hi = spans[2 * (d.rows + r) + 1];
  float acc = 0.f;
  for (int k = lo; k < hi; k++)
    acc = __fadd_rn(acc, __fmul_rn(row[k], x[k * d.inner]));
  acc = __fmul_rn(acc, scale[d.rows + r]);
  reinterpret_cast<float*>(d.out)[idx] = acc;
}
"""

_SAMPLE = np.dtype(
    [
        ("in", np.uint64),
        ("out", np.uint64),
        ("outer", np.int64),
        ("inner", np.int64),
        ("matrix", np.int64),
        ("rows", np.int64),
        ("n", np.int64),
    ],
    align=True,
)


def apply_matrix_gpu(
    tl: Any,
    axis: int,
    pairs: list[tuple[np.ndarray, np.ndarray | None]],
    which: list[int],
    layout: str,
) -> Any:
    """`apply_matrix_cpu` for every sample of a TensorListGPU of float32, in one launch.

    Args:
        tl: The batch.
        axis: The axis the matrices apply along.
        pairs: The distinct ``(matrix, scale)`` pairs: ``(m, n_j)`` float32 matrices (one
            ``m`` for all) and ``m`` factors applied to the sums, or None.
        which: The index in ``pairs`` of each sample's pair (the matrix's ``n`` is the
            sample's extent along ``axis``).
        layout: The output's layout.

    Returns:
        A TensorListGPU (dense when the output shapes agree).
    """
    from dali._ops.gpu.kernels import (
        BLOCK,
        alloc_outputs,
        block_starts,
        device_id,
        input_pointers,
        kernel_module,
        make_output,
        upload,
    )

    shapes, ptrs, keep = input_pointers(tl)
    matrices = [mat for mat, _ in pairs]
    m = matrices[0].shape[0]
    out_shapes = [(*s[:axis], m, *s[axis + 1 :]) for s in shapes]
    flat, out_ptrs = alloc_outputs(out_shapes, np.float32)
    ndim = len(out_shapes[0]) if out_shapes else tl.sample_ndim
    bases = np.zeros(len(matrices), np.int64)
    if len(matrices) > 1:
        np.cumsum([mat.size for mat in matrices[:-1]], out=bases[1:])
    pick = np.asarray(which, np.int64)
    table = np.zeros(len(shapes), _SAMPLE)
    table["in"] = ptrs
    table["out"] = out_ptrs
    table["outer"] = [math.prod(s[:axis]) for s in shapes]
    table["inner"] = [math.prod(s[axis + 1 :]) for s in shapes]
    table["matrix"] = bases[pick]
    table["rows"] = pick * m
    table["n"] = [s[axis] for s in shapes]
    blocks = [-(-math.prod(s) // BLOCK) for s in out_shapes]
    starts, total = block_starts(blocks)
    if total == 0:
        return make_output(flat, out_shapes, layout, np.float32, ndim)
    spans = np.concatenate([row_spans(mat) for mat in matrices])
    mats = np.concatenate([mat.reshape(-1) for mat in matrices]).astype(np.float32)
    factors = np.concatenate(
        [np.ones(m, np.float32) if sc is None else np.asarray(sc, np.float32) for _, sc in pairs]
    )
    dev = upload(table, starts, mats, spans, factors)
    kernel = kernel_module(device_id(), _GPU_SOURCE, ("dali_apply_matrix",))
    kernel["dali_apply_matrix"](
        (total,),
        (BLOCK,),
        (dev[0], dev[1], np.int32(len(shapes)), dev[2], dev[3], dev[4], np.int32(m)),
    )
    del keep
    return make_output(flat, out_shapes, layout, np.float32, ndim)
