"""The batched GPU kernel of the colour operators (`dali._ops.image.color`, CuPy).

Every colour operator is ``out = M · rgb + offset`` per pixel with a per-sample 3×4 matrix
(`color.color_matrices`), or its diagonal case, a per-sample multiply-add of every element
(brightness / contrast). ``dali_color`` does either in ONE launch per batch over ragged samples,
with the CPU path's arithmetic:

* mode 0 (the identity): only the type conversion, ``convert_sat(x, out)``;
* mode 1 (diagonal): ``x · mul + add`` per element;
* mode 2 (matrix): ``((m0·r + m1·g) + m2·b) + offset`` per output channel of 3-channel pixels;

in float32 (float64 for float64 inputs), without fused multiply-adds, then converted with
rounding half away from zero and saturation (`_convert_sat_gpu`). Which mode runs, and the values of
the coefficients (float32-rounded where the CPU rounds them), are decided on the host by
`color_plan`, shared with nothing else so that the CPU code stays as it is.

Example:
    >>> import numpy as np
    >>> mode, m = color_plan(np.array([2.0, 1.0]), np.array([0.0, 0.0]), np.dtype(np.uint8))
    >>> mode, m[:, [0, 3]].tolist()
    (1, [[2.0, 0.0], [1.0, 0.0]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image._convert_sat_gpu import CONVERT

__all__ = ["color_batch", "color_descs", "color_plan", "desc_size"]

_ITEMS = 4  # elements (modes 0, 1) or pixels (mode 2) a thread writes

_DESC = np.dtype(
    [("input", "<u8"), ("output", "<u8"), ("count", "<i8"), ("m", "<f8", (12,))], align=True
)
assert _DESC.itemsize == 120

_source = (
    CONVERT
    + r"""
struct dali_color_desc {
  const void* in;
  void* out;
  i64 count;     // elements (modes 0, 1) or 3-channel pixels (mode 2)
  double m[12];  // [M | offset], 3x4 row-major; mode 1: m[0] multiplier, m[3] offset
};
static_assert(sizeof(dali_color_desc) == 120, "dali_color_desc");

__device__ __forceinline__ float dali_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float dali_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double dali_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double dali_add(double a, double b) { return __dadd_rn(a, b); }

// the working value of an element: float32 (as numpy's astype), or the double itself
template <typename W, typename In> __device__ __forceinline__ W dali_work(In v) {
  if constexpr (dali_same<W, double>::value) return (double)v;
  else return dali_to_float(v);
}

template <typename In, typename Out, typename W, int MODE>
__global__ void dali_color(const dali_color_desc* __restrict__ descs,
                           const int* __restrict__ block_start, int nsamples, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_color_desc& d = descs[s];
  const In* in = (const In*)d.in;
  Out* out = (Out*)d.out;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  W m[12];
  if (MODE != 0) {
#pragma unroll
    for (int k = 0; k < 12; k++) m[k] = (W)d.m[k];
  }
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= d.count) return;
    if (MODE == 0) {
      out[e] = dali_convert<Out, false>(in[e]);
    } else if (MODE == 1) {
      const W v = dali_add(dali_mul(dali_work<W>(in[e]), m[0]), m[3]);
      out[e] = dali_convert<Out, false>(v);
    } else {
      const W r = dali_work<W>(in[3 * e]);
      const W g = dali_work<W>(in[3 * e + 1]);
      const W b = dali_work<W>(in[3 * e + 2]);
#pragma unroll
      for (int k = 0; k < 3; k++) {
        const W* mk = m + 4 * k;
        W v = dali_add(dali_mul(r, mk[0]), dali_mul(g, mk[1]));
        v = dali_add(dali_add(v, dali_mul(b, mk[2])), mk[3]);
        out[3 * e + k] = dali_convert<Out, false>(v);
      }
    }
  }
}
"""
)


def desc_size() -> int:
    """Bytes of one sample's description (checked against the CUDA struct)."""
    return _DESC.itemsize


def _kernel(name: str) -> Any:
    return G.kernel_module(G.device_id(), _source, (name,))[name]


def color_plan(
    mats: np.ndarray, offs: np.ndarray, in_dtype: np.dtype[Any]
) -> tuple[int, np.ndarray]:
    """The kernel mode and the per-sample ``(n, 12)`` coefficients, as the CPU path decides them.

    Args:
        mats: ``(n,)`` multipliers or ``(n, 3, 3)`` matrices (`_ColorBase.params`).
        offs: ``(n,)`` or ``(n, 3)`` offsets.
        in_dtype: The input type (float64 inputs are transformed in float64).

    Returns:
        ``(mode, m)``: 0 identity, 1 per-element multiply-add (``m[:, 0]``, ``m[:, 3]``, both
        float32 values as on the CPU), 2 matrix (``[M | offset]`` rounded to the working type).
    """
    from dali._ops.image.color import all_scalar_diag

    n = len(mats)
    if mats.ndim == 1 or all_scalar_diag(mats):
        m = gil.zeros((n, 12), np.float64)
        mul = (mats if mats.ndim == 1 else mats[:, 0, 0]).astype(np.float32)
        add = (offs if offs.ndim == 1 else offs[:, 0]).astype(np.float32)
        m[:, 0], m[:, 3] = mul, add
        identity = bool(np.all(mul == 1) and np.all(add == 0))
        return (0 if identity else 1), m
    work = np.float64 if in_dtype == np.float64 else np.float32

    def rows(mats: np.ndarray, offs: np.ndarray) -> tuple[np.ndarray]:
        m34 = np.concatenate([mats, offs[:, :, None]], axis=2).astype(work)
        return (m34.reshape(len(mats), 12).astype(np.float64),)

    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    return 2, gil.by_rows(rows, n, 12, mats, np.asarray(offs))[0]


def color_descs(
    in_ptrs: np.ndarray, out_ptrs: np.ndarray, counts: np.ndarray, coeffs: np.ndarray
) -> np.ndarray:
    """The kernel's per-sample descriptions (``dali_color_desc``), made without giving the GIL
    up (`dali._exec.gil`: a zeroed record array from Python's memory, filled in blocks of rows:
    a strided copy of more than 500 values gives it up).

    Args:
        in_ptrs, out_ptrs: The samples' device addresses (uint64).
        counts: Elements (modes 0, 1) or 3-channel pixels (mode 2) of each sample.
        coeffs: ``(n, 12)`` per-sample coefficients (`color_plan`).
    """
    desc = gil.zeros(len(counts), _DESC)
    for rows in gil.row_blocks(len(counts), 12):
        part = desc[rows]
        part["input"] = in_ptrs[rows]
        part["output"] = out_ptrs[rows]
        part["count"] = counts[rows]
        part["m"] = coeffs[rows]
    return desc


def color_batch(tl: Any, mode: int, coeffs: np.ndarray, out_dtype: Any, layout: str) -> Any:
    """Transform every sample of a TensorListGPU (channels last) in one launch.

    Args:
        tl: The input batch (ragged is fine); mode 2 needs 3 channels.
        mode: 0, 1 or 2 (see `color_plan`).
        coeffs: ``(n, 12)`` per-sample coefficients (see `color_plan`).
        out_dtype: The output type.
        layout: The output layout (the input's).

    Returns:
        A `TensorListGPU`; nothing waits for the GPU.
    """
    out_dtype = np.dtype(out_dtype)
    in_dtype = np.dtype(tl.np_dtype)
    shapes, in_ptrs, keep = G.input_pointers(tl)
    n = len(shapes)
    flat, out_ptrs = G.alloc_outputs(shapes, out_dtype)
    result = G.make_output(flat, shapes, layout, out_dtype, tl.sample_ndim)
    sizes = np.array([math.prod(s) for s in shapes], np.int64)
    counts = sizes // 3 if mode == 2 else sizes
    desc = color_descs(in_ptrs, out_ptrs, counts, coeffs)
    starts, total = G.block_starts(-(-counts // (G.BLOCK * _ITEMS)))
    if not total:
        return result
    work = "double" if in_dtype == np.float64 else "float"
    name = f"dali_color<{G.c_type(in_dtype)}, {G.c_type(out_dtype)}, {work}, {mode}>"
    d_desc, d_starts = G.upload(desc, starts)
    _kernel(name)((total,), (G.BLOCK,), (d_desc, d_starts, np.int32(n), np.int32(_ITEMS)))
    del keep
    return result
