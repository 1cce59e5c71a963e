"""One pass of the separable convolution on the GPU: one kernel launch per axis.

`dali._ops.filters.convolution` convolves along one axis at a time with reflect-101 borders,
adding the taps in order in float32 (``acc = x[j0]·w[0]; acc += x[j1]·w[1]; ...``, DALI's
arithmetic). As CuPy expressions that is two launches and two passes over the batch per tap
(a gaussian_blur with sigma 1.5 is 11 taps on each of two axes: ~50 launches, 0.11x of
`cupyx.scipy.ndimage.gaussian_filter` on a batch of 32 224×224 images); here a thread computes
one output element with every tap in registers, multiplying and adding with round-to-nearest
intrinsics (no fused multiply-add), so the values are the CPU path's bit for bit.

Example (needs a GPU)::

    y = correlate_axis(cupy.asarray(x, cupy.float32), window, axis=1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._ops.gpu import kernels as g

__all__ = ["correlate_axis"]

_BLOCK = 256

_KERNEL = r"""
// The index j (any integer) mirrored into [0, n) without repeating the edge, repeatedly for
// windows wider than the axis (reflect-101); n == 1: 0.
__device__ __forceinline__ i64 dali_reflect_101(i64 j, i64 n) {
  if (n == 1) return 0;
  const i64 period = 2 * (n - 1);
  j %= period;
  if (j < 0) j += period;
  return j >= n ? period - j : j;
}

// y[o, i, r] = sum_k x[o, reflect(i - radius + k), r] * w[k], the taps added in order in
// float32; x and y are C-contiguous (outer, n, inner).
extern "C" __global__ void dali_correlate_axis(
    const float* __restrict__ x, float* __restrict__ y, i64 outer, i64 n, i64 inner,
    const float* __restrict__ w, int taps) {
  const i64 total = outer * n * inner;
  const int radius = (taps - 1) / 2;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)blockDim.x * gridDim.x) {
    const i64 in = idx % inner;
    const i64 t = idx / inner;
    const i64 i = t % n;
    const float* base = x + (t / n) * n * inner + in;
    float acc = __fmul_rn(base[dali_reflect_101(i - radius, n) * inner], w[0]);
    for (int k = 1; k < taps; k++) {
      const float v = __fmul_rn(base[dali_reflect_101(i - radius + k, n) * inner], w[k]);
      acc = __fadd_rn(acc, v);
    }
    y[idx] = acc;
  }
}
"""


def correlate_axis(x: Any, w: np.ndarray, axis: int) -> Any:
    """``x`` (a float32 CuPy array) correlated with the float32 window ``w`` along ``axis``,
    reflect-101 borders, in one launch on the current stream; a new float32 array."""
    import cupy

    x = cupy.ascontiguousarray(x)
    shape = x.shape
    axis %= x.ndim
    n = int(shape[axis])
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    y = cupy.empty(shape, cupy.float32)
    total = outer * n * inner
    if total == 0:
        return y
    dev = g.device_id()
    kernel = g.kernel_module(dev, _KERNEL, ("dali_correlate_axis",))["dali_correlate_axis"]
    # (a plain copy on the current stream: samples may be blurred on several pool threads at
    # once, and the batched staging of `kernels.upload` belongs to the operator's thread)
    d_w = cupy.asarray(np.ascontiguousarray(w, np.float32))
    blocks = min(-(-total // _BLOCK), 1 << 20)
    kernel(
        (blocks,),
        (_BLOCK,),
        (x, y, np.int64(outer), np.int64(n), np.int64(inner), d_w, np.int32(len(w))),
    )
    return y
