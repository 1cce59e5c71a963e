"""`fn.normalize` on the GPU: every sample of a batch, dense or ragged, in one kernel launch.

A *group* is one position along the kept (not reduced) axes of one sample: the values that share
a mean and a standard deviation. Block ``g`` of the grid owns group ``g`` (each block finds its
sample by a binary search over the samples' first groups) and makes three passes over the
group's values: their sum (float64), the sum of the squares of the centred values (float64),
then the outputs. Given means and standard deviations (numbers or per-sample tensors) arrive as
one float32 value per group, and the pass that would compute them is skipped.

The arithmetic is the CPU backend's: the mean is the float64 sum over the count, rounded to
float32; the centred value ``x − mean`` is float32; the variance's float64 sum takes the exact
float64 square of it; ``scale / sqrt(var / (N − ddof) + epsilon)`` is float64 (0 where the
variance is 0) rounded to float32; the output is ``d · inv + shift`` in float32, rounded once
per step (no fused multiply-add). Only the order of the float64 sums differs from numpy's, so
the outputs agree with the CPU backend's to the last bit or one float32 ulp of the mean.

Up to `MAX_DIMS` sample dimensions; a batch of more takes the array-expression path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu.kernels import (
    BLOCK,
    alloc_outputs,
    block_starts,
    c_type,
    device_id,
    input_batch,
    kernel_module,
    make_output,
    upload,
)
from dali._ops.numeric import convert_sat

__all__ = ["MAX_DIMS", "normalize_batch"]

#: The most sample dimensions the kernel addresses.
MAX_DIMS = 6

_SAMPLE = np.dtype(
    [
        ("input", np.uint64),
        ("output", np.uint64),
        ("count", np.int64),  # values per group
        ("kept_dims", np.int32),
        ("reduced_dims", np.int32),
        ("kept_extent", np.int64, MAX_DIMS),
        ("kept_stride", np.int64, MAX_DIMS),
        ("reduced_extent", np.int64, MAX_DIMS),
        ("reduced_stride", np.int64, MAX_DIMS),
    ],
    align=True,
)

_SOURCE = r"""
#define MAX_DIMS 6

struct Sample {
  unsigned long long input, output;
  i64 count;
  int kept_dims, reduced_dims;
  i64 kept_extent[MAX_DIMS], kept_stride[MAX_DIMS];
  i64 reduced_extent[MAX_DIMS], reduced_stride[MAX_DIMS];
};
static_assert(sizeof(Sample) == 8 * 3 + 4 * 2 + 8 * 4 * MAX_DIMS, "Sample layout");

template <typename T> __device__ __forceinline__ double dali_norm_load(const T* p, i64 i) {
  return (double)p[i];
}
template <> __device__ __forceinline__ double dali_norm_load(const dali_half* p, i64 i) {
  return (double)dali_half_to_float(p[i].bits);
}

// the element offset of the j-th value of a group, from the group's first value
__device__ __forceinline__ i64 dali_norm_offset(const Sample& s, i64 j) {
  i64 off = 0;
  for (int d = s.reduced_dims - 1; d >= 0; --d) {
    const i64 e = s.reduced_extent[d];
    off += (j % e) * s.reduced_stride[d];
    j /= e;
  }
  return off;
}

__device__ __forceinline__ double dali_norm_block_sum(double v, double* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const double total = partial[0];
  __syncthreads();
  return total;
}

template <typename T>
__global__ void dali_normalize(const Sample* __restrict__ samples,
                               const int* __restrict__ group_start, int n,
                               const float* __restrict__ given_mean,
                               const float* __restrict__ given_inv, int has_mean, int has_inv,
                               double scale, double epsilon, int ddof, float shift) {
  __shared__ double partial[256];
  const int g = blockIdx.x;
  const int si = dali_find_sample(group_start, n, g);
  const Sample& s = samples[si];
  const T* in = reinterpret_cast<const T*>(s.input);
  float* out = reinterpret_cast<float*>(s.output);

  // the group's first value: the kept position decomposed over the kept extents
  i64 rest = g - group_start[si], base = 0;
  for (int d = s.kept_dims - 1; d >= 0; --d) {
    const i64 e = s.kept_extent[d];
    base += (rest % e) * s.kept_stride[d];
    rest /= e;
  }
  const i64 count = s.count;

  float mean;
  if (has_mean) {
    mean = given_mean[g];
  } else {
    double sum = 0.0;
    for (i64 j = threadIdx.x; j < count; j += blockDim.x)
      sum += dali_norm_load(in, base + dali_norm_offset(s, j));
    sum = dali_norm_block_sum(sum, partial);
    mean = (float)(sum / (double)(count > 0 ? count : 1));
  }

  float inv;
  if (has_inv) {
    inv = given_inv[g];
  } else {
    double sq = 0.0;
    for (i64 j = threadIdx.x; j < count; j += blockDim.x) {
      const float x = (float)dali_norm_load(in, base + dali_norm_offset(s, j));
      const double d = (double)__fsub_rn(x, mean);
      sq += d * d;
    }
    sq = dali_norm_block_sum(sq, partial);
    double rdiv, sc = scale;
    if (count > ddof) rdiv = 1.0 / (double)(count - ddof);
    else if (epsilon == 0.0) { rdiv = 1.0; sc = 0.0; }
    else rdiv = 0.0;
    const double v = sq * rdiv + epsilon;
    inv = v > 0.0 ? (float)(sc / sqrt(v)) : 0.f;
  }

  for (i64 j = threadIdx.x; j < count; j += blockDim.x) {
    const i64 at = base + dali_norm_offset(s, j);
    const float x = (float)dali_norm_load(in, at);
    out[at] = __fadd_rn(__fmul_rn(__fsub_rn(x, mean), inv), shift);
  }
}
"""


def normalize_batch(
    tl: Any,
    axes: list[int],
    *,
    mean: float | list[np.ndarray] | None,
    inv: float | list[np.ndarray] | None,
    scale: float,
    epsilon: float,
    ddof: int,
    shift: float,
    dtype: np.dtype,
) -> Any:
    """The `TensorListGPU` of ``tl`` normalised per group (module docstring), of ``dtype``.

    ``mean``/``inv`` (the inverse standard deviation): one number for every group, an array
    per sample of its groups' values (in C order over the kept axes), or None to compute them.
    """
    ndim = tl.sample_ndim
    shapes, shape_arr, ptrs, keep = input_batch(tl)
    layout = tl.layout()
    if not shapes:
        return make_output(None, [], layout, dtype, ndim)
    flat, out_ptrs = alloc_outputs(shapes, np.float32)
    n = len(shapes)
    kept = [d for d in range(ndim) if d not in axes]
    reduced = sorted(axes)
    # element strides of C-contiguous samples: the product of the extents after each axis
    strides = np.ones_like(shape_arr)
    for d in range(ndim - 2, -1, -1):
        strides[:, d] = strides[:, d + 1] * shape_arr[:, d + 1]
    rec = gil.zeros(n, _SAMPLE)
    rec["input"] = ptrs
    rec["output"] = out_ptrs
    rec["count"] = shape_arr[:, reduced].prod(axis=1) if reduced else 1
    rec["kept_dims"] = len(kept)
    rec["reduced_dims"] = len(reduced)
    rec["kept_extent"][:, : len(kept)] = shape_arr[:, kept]
    rec["kept_stride"][:, : len(kept)] = strides[:, kept]
    rec["reduced_extent"][:, : len(reduced)] = shape_arr[:, reduced]
    rec["reduced_stride"][:, : len(reduced)] = strides[:, reduced]
    per_sample = shape_arr[:, kept].prod(axis=1) if kept else np.ones(n, np.int64)
    starts, groups = block_starts(per_sample)
    if groups:
        mean_d, inv_d = (_per_group(v, groups) for v in (mean, inv))
        rec_d, starts_d, mean_d, inv_d = upload(rec, starts, mean_d, inv_d)
        name = f"dali_normalize<{c_type(tl.np_dtype)}>"
        kernel = kernel_module(device_id(), _SOURCE, (name,))[name]
        kernel(
            (groups,),
            (BLOCK,),
            (rec_d, starts_d, np.int32(n), mean_d, inv_d, np.int32(mean is not None),
             np.int32(inv is not None), np.float64(scale), np.float64(epsilon), np.int32(ddof),
             np.float32(shift)),
        )  # fmt: skip
    del keep
    if dtype != np.float32:
        import cupy

        flat = convert_sat(cupy, flat, dtype)
    return make_output(flat, shapes, layout, dtype, ndim)


def _per_group(values: float | list[np.ndarray] | None, groups: int) -> np.ndarray:
    """The float32 value of every group (one placeholder when the kernel computes them)."""
    if values is None:
        return np.zeros(1, np.float32)
    if isinstance(values, list):
        return np.concatenate(values).astype(np.float32) if values else np.zeros(1, np.float32)
    return np.full(groups, values, np.float32)
