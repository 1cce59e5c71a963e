"""Batched GPU resampling for `fn.resize` and `fn.random_resized_crop` (CuPy kernels).

The pixels are computed exactly as `reference.resample_reference` computes them:
the same tabulated filters, float32 weights built in the same order (``axis_weights``: the table
lookups, numpy's pairwise sum, the division), taps clamped to the border, axes processed most
shrinking first, products and sums rounded in float32 one by one (no fused multiply-add), and
``trunc(v + 0.5)`` with saturation for integer outputs. The results equal the reference's (and
the CPU backend's with Numba); the CPU's banded BLAS path, without Numba, agrees within ±1.

Two kernels do the work:

* ``dali_resample_2d`` (images: HWC, CHW, FHWC, ...): ONE launch per batch. A block makes one
  output tile of one plane of one sample: it builds the tile's filter weights in shared memory,
  resamples the input rows (or columns) the tile needs along the first axis into shared memory,
  then along the second axis into the output. The region of interest (or the random crop
  window) is just the filters' origin and scale, so cropping costs nothing extra.
* ``dali_resample_pass`` (volumes, and images whose tiles would not fit in shared memory): one
  launch per spatial axis over float32 intermediates, with the weights of every axis of every
  sample computed first by ``dali_resample_weights``.

The host plans a batch of images without a per-sample Python loop (`gpu_plan`: the records
the kernels read, `plan_batch`, and the per-sample reference the tests compare against).

Example (a GPU batch ``tl`` of HWC uint8 images; ``(n, 2)`` arrays of each sample's input size,
output size, region and filters, as `resize.Resize.run_gpu` computes them):
    >>> from dali._ops.image.resample.gpu_plan import plan_batch
    >>> plans = plan_batch(in_hw, out_hw, lo, hi, min_filter, mag_filter, True)  # doctest: +SKIP
    >>> resample_batch(tl, (0, 1), plans, np.uint8, "HWC")  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image.resample import reference
from dali._ops.image.resample.gpu_plan import (
    ITEMS,
    JOB,
    PASS,
    TABLE_KINDS,
    Images,
    PlanBatch,
    Sample,
    choose_tiles,
    descs_2d,
)

__all__ = ["filter_tables", "resample_batch"]

_F32 = np.float32

_resample_source = r"""
struct dali_axis {
  float start;     // filters: origin + 0.5 * scale - 0.5 - anchor; NN: origin
  float scale;     // input pixels per output pixel (negative: flipped)
  float tscale;    // table entries per input pixel
  int support;     // taps per output pixel (1 for NN)
  int table;       // offset of the filter table in `tables`; -1: NN
  int table_n;     // entries in the table
  int in_size;     // input extent
  int accumulate;  // NN: step the coordinate in float32 (rows, depth) instead of computing it
};

struct dali_resample2d_desc {
  const void* in;
  void* out;
  i64 in_plane, out_plane;  // elements per plane (H * W * inner)
  int planes, inner;        // planes: product of the extents before H; inner: after W
  int in_h, in_w, out_h, out_w;
  int tiles_y, tiles_x;
  int first;                // axis resampled first: 0 = rows, 1 = columns
  int zero;                 // empty input: write zeros
  dali_axis axis[2];        // rows, columns
};

struct dali_axis_job {
  dali_axis axis;
  int out_size;
  int bofs;                 // first entry in `bases`
  i64 wofs;                 // first entry in `weights`
};

struct dali_pass_desc {
  const void* in;
  void* out;
  i64 outer, inner;         // elements before / after the resampled axis
  int n_in, n_out;
  int bofs, support;
  i64 wofs;
  int zero, pad;
};

static_assert(sizeof(dali_axis) == 32, "dali_axis");
static_assert(sizeof(dali_resample2d_desc) == 136, "dali_resample2d_desc");
static_assert(sizeof(dali_axis_job) == 48, "dali_axis_job");
static_assert(sizeof(dali_pass_desc) == 64, "dali_pass_desc");

// Linear interpolation in a filter table, 0 outside (-1, n) (`reference._table_eval`).
__device__ float dali_table_eval(const float* t, int n, float x) {
  if (!(x > -1.f && x < (float)n)) return 0.f;
  const float x0 = floorf(x);
  const float d = __fsub_rn(x, x0);
  const int i0 = (int)x0, i1 = i0 + 1;
  const float f0 = (i0 >= 0 && i0 < n) ? t[i0] : 0.f;
  const float f1 = (i1 >= 0 && i1 < n) ? t[i1] : 0.f;
  return __fadd_rn(f0, __fmul_rn(d, __fsub_rn(f1, f0)));
}

// numpy's pairwise summation (what w.sum(axis=1) does), so the weights match bit for bit.
__device__ float dali_pairwise_sum(const float* a, int n) {
  if (n < 8) {
    float r = 0.f;
    for (int i = 0; i < n; i++) r = __fadd_rn(r, a[i]);
    return r;
  }
  if (n <= 128) {
    float r[8];
    for (int j = 0; j < 8; j++) r[j] = a[j];
    int i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; j++) r[j] = __fadd_rn(r[j], a[i + j]);
    float res = __fadd_rn(__fadd_rn(__fadd_rn(r[0], r[1]), __fadd_rn(r[2], r[3])),
                          __fadd_rn(__fadd_rn(r[4], r[5]), __fadd_rn(r[6], r[7])));
    for (; i < n; i++) res = __fadd_rn(res, a[i]);
    return res;
  }
  int n2 = n / 2;
  n2 -= n2 % 8;
  return __fadd_rn(dali_pairwise_sum(a, n2), dali_pairwise_sum(a + n2, n - n2));
}

// The normalised weights of output pixel x (written to w[0 .. support)); returns the first
// tap's input index (taps are clamped to the border by the caller). NN gives one tap.
__device__ int dali_axis_taps(const dali_axis& a, int x, const float* __restrict__ tables,
                              float* w) {
  if (a.table < 0) {
    float src;
    if (a.accumulate) {  // `reference.nn_indices(accumulate=True)`
      src = __fadd_rn(a.start, __fmul_rn(0.5f, a.scale));
      for (int i = 0; i < x; i++) src = __fadd_rn(src, a.scale);
    } else {
      src = __fadd_rn(a.start, __fmul_rn(__fadd_rn((float)x, 0.5f), a.scale));
    }
    w[0] = 1.f;
    return (int)fminf(fmaxf(floorf(src), 0.f), (float)(a.in_size - 1));
  }
  const float sx0f = __fadd_rn(__fmul_rn((float)x, a.scale), a.start);
  const float sx0 = ceilf(sx0f);
  const float f0 = __fsub_rn(sx0, sx0f);
  const float* t = tables + a.table;
  for (int k = 0; k < a.support; k++)
    w[k] = dali_table_eval(t, a.table_n, __fmul_rn(__fadd_rn(f0, (float)k), a.tscale));
  const float total = dali_pairwise_sum(w, a.support);
  if (total != 0.f)
    for (int k = 0; k < a.support; k++) w[k] = __fdiv_rn(w[k], total);
  return (int)fminf(fmaxf(sx0, -1e9f), 1e9f);
}

// One output tile (tile_h x tile_w pixels, all `inner` channels) of one plane per block.
template <typename In, typename Out>
__global__ void dali_resample_2d(const dali_resample2d_desc* __restrict__ descs,
                                 const int* __restrict__ block_start, int nsamples,
                                 const float* __restrict__ tables, int tile_h, int tile_w,
                                 int smem_floats) {
  extern __shared__ float dali_smem[];
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_resample2d_desc& d = descs[s];
  int b = blockIdx.x - block_start[s];
  const int tx = b % d.tiles_x;
  b /= d.tiles_x;
  const int ty = b % d.tiles_y;
  const int plane = b / d.tiles_y;
  const int y0 = ty * tile_h, x0 = tx * tile_w;
  const int ny = min(tile_h, d.out_h - y0), nx = min(tile_w, d.out_w - x0);
  const int inner = d.inner;
  Out* out = (Out*)d.out + plane * d.out_plane;
  if (d.zero) {
    for (int e = threadIdx.x; e < ny * nx * inner; e += blockDim.x) {
      const int j = e % inner, q = e / inner;
      out[((i64)(y0 + q / nx) * d.out_w + x0 + q % nx) * inner + j] = dali_round_trunc<Out>(0.f);
    }
    return;
  }
  const int a1 = d.first;  // this axis first, then the other
  const dali_axis& p1 = d.axis[a1];
  const dali_axis& p2 = d.axis[1 - a1];
  const int o1 = a1 ? x0 : y0, n1 = a1 ? nx : ny;  // the tile's outputs along the first axis
  const int o2 = a1 ? y0 : x0, n2 = a1 ? ny : nx;  // ... and along the second
  const int S1 = p1.support, S2 = p2.support;
  float* w1 = dali_smem;
  float* w2 = w1 + n1 * S1;
  int* b1 = (int*)(w2 + n2 * S2);
  int* b2 = b1 + n1;
  float* tmp = (float*)(b2 + n2);
  for (int t = threadIdx.x; t < n1 + n2; t += blockDim.x) {
    if (t < n1) b1[t] = dali_axis_taps(p1, o1 + t, tables, w1 + t * S1);
    else b2[t - n1] = dali_axis_taps(p2, o2 + t - n1, tables, w2 + (t - n1) * S2);
  }
  __syncthreads();
  const int in1 = p1.in_size, in2 = p2.in_size;
  // the input lines the tile needs along the second axis (the first taps are monotonic)
  const int lo = dali_clamp(min(b2[0], b2[n2 - 1]), 0, in2 - 1);
  const int hi = dali_clamp(max(b2[0], b2[n2 - 1]) + S2 - 1, 0, in2 - 1);
  const int cap = (smem_floats - (n1 * S1 + n2 * S2 + n1 + n2)) / (n1 * inner);
  const int R = min(hi - lo + 1, cap);  // the host sized shared memory so that this never cuts
  const i64 row = (i64)d.in_w * inner;
  const i64 st1 = a1 ? (i64)inner : row;  // input strides along the first / second axis
  const i64 st2 = a1 ? row : (i64)inner;
  const In* in = (const In*)d.in + plane * d.in_plane;
  // pass 1: tmp = the first axis resampled, on input lines lo .. lo + R - 1 of the second;
  // the fastest index runs along x in memory on both sides (coalesced, no bank conflicts)
  const int m1 = R * n1 * inner;
  for (int e = threadIdx.x; e < m1; e += blockDim.x) {
    const int j = e % inner, q = e / inner;
    int o, r, ti;
    if (a1) { o = q % n1; r = q / n1; ti = (r * n1 + o) * inner + j; }
    else { r = q % R; o = q / R; ti = (o * R + r) * inner + j; }
    const float* w = w1 + o * S1;
    const int base = b1[o];
    const In* src = in + (lo + r) * st2 + j;
    float acc = 0.f;
    for (int k = 0; k < S1; k++) {
      const int i = dali_clamp(base + k, 0, in1 - 1);
      acc = __fadd_rn(acc, __fmul_rn(dali_to_float(src[i * st1]), w[k]));
    }
    tmp[ti] = acc;
  }
  __syncthreads();
  // pass 2: along the second axis, from shared memory into the output
  const int m2 = n2 * n1 * inner;
  for (int e = threadIdx.x; e < m2; e += blockDim.x) {
    const int j = e % inner, q = e / inner;
    int u, v;  // u: the tile's output along the first axis, v: along the second
    if (a1) { u = q % n1; v = q / n1; } else { v = q % n2; u = q / n2; }
    const float* w = w2 + v * S2;
    const int base = b2[v];
    float acc = 0.f;
    for (int k = 0; k < S2; k++) {
      const int i = min(dali_clamp(base + k, 0, in2 - 1) - lo, R - 1);
      const float x = a1 ? tmp[(i * n1 + u) * inner + j] : tmp[(u * R + i) * inner + j];
      acc = __fadd_rn(acc, __fmul_rn(x, w[k]));
    }
    const int oy = a1 ? o2 + v : o1 + u;
    const int ox = a1 ? o1 + u : o2 + v;
    out[((i64)oy * d.out_w + ox) * inner + j] = dali_round_trunc<Out>(acc);
  }
}

// The weights of every (sample, axis) for the separable passes: one thread per output pixel.
extern "C" __global__ void dali_resample_weights(const dali_axis_job* __restrict__ jobs,
                                                 const int* __restrict__ block_start, int njobs,
                                                 const float* __restrict__ tables,
                                                 int* __restrict__ bases,
                                                 float* __restrict__ weights) {
  const int s = dali_find_sample(block_start, njobs, blockIdx.x);
  const dali_axis_job& jb = jobs[s];
  const int x = (blockIdx.x - block_start[s]) * blockDim.x + threadIdx.x;
  if (x >= jb.out_size) return;
  bases[jb.bofs + x] = dali_axis_taps(jb.axis, x, tables,
                                      weights + jb.wofs + (i64)x * jb.axis.support);
}

// One axis of every sample: (outer, n_in, inner) -> (outer, n_out, inner), one element a thread.
template <typename In, typename Out>
__global__ void dali_resample_pass(const dali_pass_desc* __restrict__ descs,
                                   const int* __restrict__ block_start, int nsamples,
                                   const int* __restrict__ bases,
                                   const float* __restrict__ weights, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_pass_desc& d = descs[s];
  const i64 total = d.outer * d.n_out * d.inner;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  Out* out = (Out*)d.out;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= total) return;
    if (d.zero) {
      out[e] = dali_round_trunc<Out>(0.f);
      continue;
    }
    const i64 j = e % d.inner, q = e / d.inner;
    const int x = (int)(q % d.n_out);
    const i64 o = q / d.n_out;
    const int base = bases[d.bofs + x];
    const float* w = weights + d.wofs + (i64)x * d.support;
    const In* src = (const In*)d.in + o * d.n_in * d.inner + j;
    float acc = 0.f;
    for (int k = 0; k < d.support; k++) {
      const int i = dali_clamp(base + k, 0, d.n_in - 1);
      acc = __fadd_rn(acc, __fmul_rn(dali_to_float(src[i * d.inner]), w[k]));
    }
    out[e] = dali_round_trunc<Out>(acc);
  }
}
"""


def _kernels(in_dtype: Any, out_dtype: Any) -> dict[str, Any]:
    """The resampling kernels for one (input, output) type pair on the current device."""
    src, dst = G.c_type(in_dtype), G.c_type(out_dtype)
    names = (
        f"dali_resample_2d<{src}, {dst}>",
        f"dali_resample_pass<{src}, float>",
        "dali_resample_pass<float, float>",
        f"dali_resample_pass<float, {dst}>",
        "dali_resample_weights",
    )
    return G.kernel_module(G.device_id(), _resample_source, names)


# -- filter tables ------------------------------------------------------------------------------

_device_tables: dict[int, Any] = {}


def filter_tables() -> Any:
    """The filter tables of `reference`, one float32 device array (made once per device).

    Warning: the first call for a device waits for the copy (``# synchronize!``) so that
    pipelines on other streams can use the tables at once.
    """
    import cupy

    dev = G.device_id()
    tables = _device_tables.get(dev)
    if tables is None:
        host = np.concatenate([reference.TABLES[k] for k in TABLE_KINDS]).astype(_F32)
        tables = cupy.asarray(host)
        cupy.cuda.get_current_stream().synchronize()  # synchronize! (once per device)
        _device_tables[dev] = tables
    return tables


# -- the batch ----------------------------------------------------------------------------------


def resample_batch(
    tl: Any,
    axes: Sequence[int],
    plans: Sequence[Sequence[reference.AxisPlan]] | PlanBatch,
    out_dtype: Any,
    layout: str,
    *,
    inputs: tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, list[Any]] | None = None,
) -> Any:
    """Resample every sample of a TensorListGPU with its own plans; one launch for images.

    Args:
        tl: The input batch (`TensorListGPU`).
        axes: The spatial axes of the samples, outermost first (adjacent, 2 or 3 of them).
        plans: Per sample, one `AxisPlan` per spatial axis; or all of them as a `PlanBatch`
            (`plan_batch`), which images are planned from without a per-sample loop.
        out_dtype: The output numpy dtype.
        layout: The output layout.
        inputs: ``G.input_batch(tl)``, when the caller already has it.

    Returns:
        A `TensorListGPU`, dense when all output shapes agree. Nothing waits for the GPU.
    """
    out_dtype = np.dtype(out_dtype)
    shapes, shape_arr, in_ptrs, keep = inputs if inputs is not None else G.input_batch(tl)
    if len(axes) != 2 or not shapes:
        if isinstance(plans, PlanBatch):
            plans = plans.plans()
        samples = [Sample(shape, axes, p) for shape, p in zip(shapes, plans)]
        out_shapes = [s.out_shape for s in samples]
        flat, out_ptrs = G.alloc_outputs(out_shapes, out_dtype)
        result = G.make_output(flat, out_shapes, layout, out_dtype, tl.sample_ndim)
        if not any(s.out_elements for s in samples):
            return result
        kernels = _kernels(tl.np_dtype, out_dtype)
        _run_separable(kernels, samples, in_ptrs, out_ptrs, tl.np_dtype, out_dtype)
        del keep  # the inputs were referenced until the kernels were queued
        return result
    if not isinstance(plans, PlanBatch):
        plans = PlanBatch.from_plans(plans, 2)
    geo = Images(shape_arr, axes, plans)
    out_shapes = geo.out_shapes()
    flat, out_ptrs = G.alloc_outputs(out_shapes, out_dtype)
    result = G.make_output(flat, out_shapes, layout, out_dtype, tl.sample_ndim)
    if not geo.out_elements.any():
        return result
    kernels = _kernels(tl.np_dtype, out_dtype)
    tiles = choose_tiles(geo)
    if tiles is not None:
        _run_tiled(kernels, geo, in_ptrs, out_ptrs, tiles, tl.np_dtype, out_dtype)
    else:
        samples = geo.samples(shapes, axes)
        _run_separable(kernels, samples, in_ptrs, out_ptrs, tl.np_dtype, out_dtype)
    del keep  # the inputs were referenced until the kernels were queued
    return result


def _run_tiled(
    kernels: dict[str, Any],
    geo: Images,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    tiles: tuple[int, int, int],
    in_dtype: np.dtype[Any],
    out_dtype: np.dtype[Any],
) -> None:
    th, tw, floats = tiles
    desc, blocks = descs_2d(geo, in_ptrs, out_ptrs, th, tw)
    starts, total = G.block_starts(blocks)
    d_desc, d_starts = G.upload(desc, starts)
    kernels[f"dali_resample_2d<{G.c_type(in_dtype)}, {G.c_type(out_dtype)}>"](
        (total,),
        (G.BLOCK,),
        (d_desc, d_starts, np.int32(geo.n), filter_tables(), np.int32(th), np.int32(tw),
         np.int32(floats)),
        shared_mem=4 * floats,
    )  # fmt: skip


def _run_separable(
    kernels: dict[str, Any],
    samples: Sequence[Sample],
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    in_dtype: np.dtype[Any],
    out_dtype: np.dtype[Any],
) -> None:
    """One pass per spatial axis over float32 intermediates (volumes, very large filters)."""
    import cupy

    n = len(samples)
    nsp = len(samples[0].in_sp)
    # 1. the weights of every axis of every live sample
    jobs = []
    job_blocks = []
    bofs = 0
    wofs = 0
    where: list[list[tuple[int, int]]] = []  # per sample, per axis: (bofs, wofs)
    for smp in samples:
        spots = []
        for a in range(nsp):
            spots.append((bofs, wofs))
            if smp.out_elements and not smp.zero:
                jobs.append((smp.axes[a], smp.out_sp[a], bofs, wofs))
                job_blocks.append(-(-smp.out_sp[a] // G.BLOCK))
                bofs += smp.out_sp[a]
                wofs += smp.out_sp[a] * smp.axes[a][3]
        where.append(spots)
    job_arr = np.array(jobs, dtype=JOB) if jobs else np.zeros(1, dtype=JOB)
    job_starts, job_total = G.block_starts(job_blocks or [0])
    # 2. the passes: per sample the axes go most shrinking first, like the CPU
    pass_descs = []
    pass_starts = []
    pass_totals = []
    temps = []
    cur_ptrs = in_ptrs.copy()
    sizes = [list(s.in_sp) for s in samples]
    for p in range(nsp):
        last = p == nsp - 1
        desc = gil.zeros(n, PASS)
        blocks = gil.zeros(n, np.int64)
        elems = []
        for i, smp in enumerate(samples):
            a = smp.order[p]
            live = smp.out_elements and not smp.zero
            sizes_after = list(sizes[i])
            sizes_after[a] = smp.out_sp[a]
            outer = smp.outer * math.prod(sizes[i][:a])
            inner = math.prod(sizes[i][a + 1 :]) * smp.inner
            d = desc[i]
            d["input"] = cur_ptrs[i]
            d["outer"] = outer if (live or last) else 0
            d["inner"] = inner
            d["n_in"], d["n_out"] = sizes[i][a], smp.out_sp[a]
            d["bofs"], d["wofs"] = where[i][a]
            d["support"] = smp.axes[a][3]
            d["zero"] = int(smp.zero)
            if smp.zero and last:  # zeros: one flat run over the whole output
                d["outer"], d["n_out"], d["inner"] = smp.out_elements, 1, 1
            count = int(d["outer"]) * int(d["n_out"]) * int(d["inner"])
            elems.append(count if not last else 0)
            blocks[i] = -(-count // (G.BLOCK * ITEMS))
            sizes[i] = sizes_after
        if not last:
            offsets = np.concatenate([[0], np.cumsum(elems)[:-1]]).astype(np.int64)
            tmp = cupy.empty(max(int(sum(elems)), 1), dtype=_F32)
            temps.append(tmp)
            ptrs = np.uint64(tmp.data.ptr) + offsets.astype(np.uint64) * np.uint64(4)
        else:
            ptrs = out_ptrs
        desc["output"] = ptrs
        cur_ptrs = ptrs
        starts, total = G.block_starts(blocks)
        pass_descs.append(desc)
        pass_starts.append(starts)
        pass_totals.append(total)
    bases = cupy.empty(max(bofs, 1), dtype=np.int32)
    weights = cupy.empty(max(wofs, 1), dtype=_F32)
    dev = G.upload(job_arr, job_starts, *pass_descs, *pass_starts)
    d_jobs, d_job_starts = dev[0], dev[1]
    d_descs, d_starts = dev[2 : 2 + nsp], dev[2 + nsp :]
    tables = filter_tables()
    if job_total:
        kernels["dali_resample_weights"](
            (job_total,),
            (G.BLOCK,),
            (d_jobs, d_job_starts, np.int32(len(jobs)), tables, bases, weights),
        )
    src_t, dst_t = G.c_type(in_dtype), G.c_type(out_dtype)
    for p in range(nsp):
        if not pass_totals[p]:
            continue
        src = src_t if p == 0 else "float"
        dst = dst_t if p == nsp - 1 else "float"
        kernels[f"dali_resample_pass<{src}, {dst}>"](
            (pass_totals[p],),
            (G.BLOCK,),
            (d_descs[p], d_starts[p], np.int32(n), bases, weights, np.int32(ITEMS)),
        )
    del temps  # back to the stream-ordered pool: reused only after these kernels
