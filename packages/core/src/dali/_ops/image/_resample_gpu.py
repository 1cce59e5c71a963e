"""Batched GPU resampling for `fn.resize` and `fn.random_resized_crop` (CuPy kernels).

The pixels are computed exactly as `dali._ops.image._resample.resample_reference` computes them:
the same tabulated filters, float32 weights built in the same order (``axis_weights``: the table
lookups, numpy's pairwise sum, the division), taps clamped to the border, axes processed most
shrinking first, products and sums rounded in float32 one by one (no fused multiply-add), and
``trunc(v + 0.5)`` with saturation for integer outputs. Where the CPU backend takes its Pillow
fast path, both agree within ±1 per uint8 pixel.

Two kernels do the work:

* ``dali_resample_2d`` (images: HWC, CHW, FHWC, ...): ONE launch per batch. A block makes one
  output tile of one plane of one sample: it builds the tile's filter weights in shared memory,
  resamples the input rows (or columns) the tile needs along the first axis into shared memory,
  then along the second axis into the output. The region of interest (or the random crop
  window) is just the filters' origin and scale, so cropping costs nothing extra.
* ``dali_resample_pass`` (volumes, and images whose tiles would not fit in shared memory): one
  launch per spatial axis over float32 intermediates, with the weights of every axis of every
  sample computed first by ``dali_resample_weights``.

The host plans a batch of images without a per-sample Python loop, which would cost far more
than the kernel (tens of milliseconds for 256 images): `plan_batch` is `AxisPlan.make` on
``(samples, axes)`` arrays, `_Images` and `_descs_2d` fill the descriptors column by column, with
the same float32 operations in the same order, so the descriptors are byte for byte those of the
per-sample code. That code (`_Sample`, `_descs_2d_reference`) remains for volumes and the
separable passes, and as the reference the tests compare against.

Example:
    >>> import numpy as np
    >>> from dali._ops.image import _resample
    >>> plan = _resample.AxisPlan.make(in_size=12, out_size=4, lo=0.0, hi=12.0)
    >>> rec = axis_record(plan, accumulate=False)
    >>> int(rec["support"]), int(rec["table_n"])  # a triangle 3 input pixels wide each side
    (6, 3)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from dali._exec import gil
from dali._ops.image import _gpu_common as G
from dali._ops.image import _resample

__all__ = ["AXIS", "PlanBatch", "axis_record", "filter_tables", "plan_batch", "resample_batch"]

_F32 = np.float32
_SMEM_LIMIT = 48 * 1024  # the default dynamic shared memory a block may use
_MAX_INNER = 64  # channels per pixel the tiled kernel takes (more: the separable passes)
_ITEMS = 4  # elements per thread of the separable passes

#: One spatial axis of one sample (``struct dali_axis``).
AXIS = np.dtype(
    [
        ("start", "<f4"),
        ("scale", "<f4"),
        ("tscale", "<f4"),
        ("support", "<i4"),
        ("table", "<i4"),
        ("table_n", "<i4"),
        ("in_size", "<i4"),
        ("accumulate", "<i4"),
    ],
    align=True,
)

#: One sample of the tiled 2-D kernel (``struct dali_resample2d_desc``).
_DESC_2D = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("in_plane", "<i8"),
        ("out_plane", "<i8"),
        ("planes", "<i4"),
        ("inner", "<i4"),
        ("in_h", "<i4"),
        ("in_w", "<i4"),
        ("out_h", "<i4"),
        ("out_w", "<i4"),
        ("tiles_y", "<i4"),
        ("tiles_x", "<i4"),
        ("first", "<i4"),
        ("zero", "<i4"),
        ("axis", AXIS, (2,)),
    ],
    align=True,
)

#: The weights of one axis of one sample for the separable passes (``struct dali_axis_job``).
_JOB = np.dtype([("axis", AXIS), ("out_size", "<i4"), ("bofs", "<i4"), ("wofs", "<i8")], align=True)

#: One sample of one separable pass (``struct dali_pass_desc``).
_PASS = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("outer", "<i8"),
        ("inner", "<i8"),
        ("n_in", "<i4"),
        ("n_out", "<i4"),
        ("bofs", "<i4"),
        ("support", "<i4"),
        ("wofs", "<i8"),
        ("zero", "<i4"),
        ("pad", "<i4"),
    ],
    align=True,
)

assert (AXIS.itemsize, _DESC_2D.itemsize, _JOB.itemsize, _PASS.itemsize) == (32, 136, 48, 64)

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

// Linear interpolation in a filter table, 0 outside (-1, n) (`_resample._table_eval`).
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
    if (a.accumulate) {  // `_resample.nn_indices(accumulate=True)`
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

_TABLE_KINDS = tuple(sorted(_resample._TABLES))
_TABLE_OFFSETS = dict(
    zip(
        _TABLE_KINDS,
        np.cumsum([0] + [len(_resample._TABLES[k]) for k in _TABLE_KINDS[:-1]]).tolist(),
    )
)
_device_tables: dict[int, Any] = {}


def filter_tables() -> Any:
    """The filter tables of `_resample`, one float32 device array (made once per device).

    Warning: the first call for a device waits for the copy (``# synchronize!``) so that
    pipelines on other streams can use the tables at once.
    """
    import cupy

    dev = G.device_id()
    tables = _device_tables.get(dev)
    if tables is None:
        host = np.concatenate([_resample._TABLES[k] for k in _TABLE_KINDS]).astype(_F32)
        tables = cupy.asarray(host)
        cupy.cuda.get_current_stream().synchronize()  # synchronize! (once per device)
        _device_tables[dev] = tables
    return tables


def axis_record(plan: _resample.AxisPlan, *, accumulate: bool) -> np.ndarray:
    """The kernels' description of one axis (float32 values as `axis_weights` computes them)."""
    return np.array(_axis_tuple(plan, accumulate), dtype=AXIS)


@functools.lru_cache(maxsize=16384)
def _axis_tuple(plan: _resample.AxisPlan, accumulate: bool) -> tuple[Any, ...]:
    """`axis_record` as a tuple (cached: batches repeat sizes, and plans are hashable)."""
    scale = _F32(plan.scale)
    if plan.kind == "nn":
        return (_F32(plan.origin), scale, _F32(0), 1, -1, 0, plan.in_size, int(accumulate))
    n = _resample._TABLES[plan.kind].shape[0]
    tscale = _F32(n - 1) / _F32(plan.support_len)
    anchor = _F32(plan.support_len) / _F32(2)
    start = _F32(plan.origin) + _F32(0.5) * scale - _F32(0.5) - anchor
    support = max(1, math.ceil(float(_F32(n - 1) / tscale)))
    return (start, scale, tscale, support, _TABLE_OFFSETS[plan.kind], n, plan.in_size, 0)


# -- planning a batch of images, vectorised -----------------------------------------------------

#: `AxisPlan.kind` values by code (the vectorised planning keeps codes, not names).
_KINDS = ("nn", "triangular", "gaussian", "cubic", "lanczos3")
_KIND_CODES = {k: i for i, k in enumerate(_KINDS)}
_NN, _TRI, _GAUSS, _CUBIC, _LANCZOS = range(5)
_KIND_TABLE_N = np.array([1] + [len(_resample._TABLES[k]) for k in _KINDS[1:]], np.int64)
_KIND_TABLE_AT = np.array([-1] + [_TABLE_OFFSETS[k] for k in _KINDS[1:]], np.int64)
#: DALIInterpType → filter code (`_resample._filter_kind`).
_INTERP_KIND = np.array([_NN, _TRI, _CUBIC, _LANCZOS, _TRI, _GAUSS], np.int64)


class PlanBatch(NamedTuple):
    """The `AxisPlan` of every spatial axis of every sample, as ``(n, axes)`` arrays.

    Row ``i``, column ``d`` holds sample ``i``'s plan of spatial axis ``d`` (outermost first),
    with the values `AxisPlan` holds: float32 values are stored in float64 arrays, as `AxisPlan`
    stores them in Python floats.

    Example:
        >>> pb = plan_batch([[12, 8]], [[4, 8]], [[0.0, 0.0]], [[12.0, 8.0]], 1, 1, True)
        >>> pb.plans()[0][0] == _resample.AxisPlan.make(12, 4, 0.0, 12.0)
        True
    """

    in_size: np.ndarray  # int64
    out_size: np.ndarray  # int64
    origin: np.ndarray  # float64 (float32 values)
    scale: np.ndarray  # float64 (float32 values)
    kind: np.ndarray  # int64, index into _KINDS
    radius: np.ndarray  # float64

    @staticmethod
    def from_plans(plans: Sequence[Sequence[_resample.AxisPlan]], nsp: int) -> PlanBatch:
        """The arrays of per-sample `AxisPlan` lists (one Python loop: for callers with plans)."""
        flat = [p for row in plans for p in row]
        n = len(plans)

        def col(values: list[Any], dtype: Any) -> np.ndarray:
            return np.array(values, dtype).reshape(n, nsp)

        return PlanBatch(
            col([p.in_size for p in flat], np.int64),
            col([p.out_size for p in flat], np.int64),
            col([p.origin for p in flat], np.float64),
            col([p.scale for p in flat], np.float64),
            col([_KIND_CODES[p.kind] for p in flat], np.int64),
            col([p.radius for p in flat], np.float64),
        )

    def plans(self) -> list[list[_resample.AxisPlan]]:
        """The per-sample `AxisPlan` lists (equal to what `AxisPlan.make` gives)."""
        cols = zip(*(a.reshape(-1).tolist() for a in self))
        flat = [_resample.AxisPlan(i, o, org, sc, _KINDS[k], r) for i, o, org, sc, k, r in cols]
        nsp = self.in_size.shape[-1]
        return [flat[i : i + nsp] for i in range(0, len(flat), nsp)]


def plan_batch(
    in_size: Any,
    out_size: Any,
    lo: Any,
    hi: Any,
    min_filter: Any,
    mag_filter: Any,
    antialias: bool,
) -> PlanBatch:
    """`AxisPlan.make` for every axis of every sample at once (arguments broadcast together).

    The float32 arithmetic is `AxisPlan.make`'s, operation for operation, so the plans are
    equal to the per-sample ones (``PlanBatch.plans()`` compares equal to them).

    Args:
        in_size: ``(n, axes)`` input extents.
        out_size: ``(n, axes)`` output extents.
        lo: ``(n, axes)`` ROI starts (float32 values or integers below 2**24).
        hi: ``(n, axes)`` ROI ends (``lo > hi`` flips).
        min_filter: DALIInterpType used when shrinking: one, or ``(n, 1)`` per sample.
        mag_filter: DALIInterpType used otherwise: one, or ``(n, 1)`` per sample.
        antialias: Widen the filter when shrinking.

    Raises:
        ValueError: An unknown interpolation type.
    """
    in_size = np.asarray(in_size, np.int64)
    out_size = np.asarray(out_size, np.int64)
    lo = np.asarray(lo, np.float64)
    hi = np.asarray(hi, np.float64)
    shape = np.broadcast_shapes(in_size.shape, out_size.shape, lo.shape, hi.shape)
    min_filter = np.asarray(min_filter, np.int64)
    mag_filter = np.asarray(mag_filter, np.int64)
    if len(shape) < 2:  # (one plan, or one sample's axes)
        return PlanBatch(*_plan_rows(shape, in_size, out_size, lo, hi, min_filter, mag_filter,
                                     antialias))  # fmt: skip
    n = shape[0]
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    rows = gil.by_rows(
        lambda *a: _plan_rows((len(a[0]), *shape[1:]), *a, antialias),
        n,
        shape[-1],
        *(np.broadcast_to(a, shape) for a in (in_size, out_size, lo, hi)),
        *(np.broadcast_to(f, (n, 1)) if f.ndim == 2 else f for f in (min_filter, mag_filter)),
    )
    return PlanBatch(*rows)


def _plan_rows(
    shape: tuple[int, ...],
    in_size: np.ndarray,
    out_size: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    min_filter: np.ndarray,
    mag_filter: np.ndarray,
    antialias: bool,
) -> tuple[np.ndarray, ...]:
    """`plan_batch` of a block of rows (``shape``: the block's)."""
    f32 = _F32
    in_size = np.broadcast_to(in_size, shape)
    out_size = np.broadcast_to(out_size, shape)
    degenerate = lo == hi  # "no ROI" in DALI's kernel
    lo = np.where(degenerate, 0.0, lo)
    hi = np.where(degenerate, in_size, hi)
    lo32, hi32 = lo.astype(f32), hi.astype(f32)
    span = hi32 - lo32
    roi_size = np.abs(span)
    down = out_size < roi_size.astype(np.float64)
    filters = np.where(down, min_filter, mag_filter)
    unknown = (filters < 0) | (filters >= len(_INTERP_KIND))
    if unknown.any():
        raise ValueError(f"unknown interpolation type {int(filters[unknown][0])}")
    has_out = out_size != 0
    out32 = np.where(has_out, out_size, 1).astype(f32)
    ratio = np.where(has_out, (roi_size / out32).astype(np.float64), 1.0)
    scale = np.where(has_out, (span / out32).astype(np.float64), 0.0)
    widen = np.where(down, ratio, 1.0) if antialias else np.ones_like(ratio)
    kind = _INTERP_KIND[filters]
    radius = np.where(kind == _CUBIC, np.maximum(2.0, 2.0 * widen), np.maximum(0.5, widen))
    radius = np.where(kind == _LANCZOS, np.maximum(3.0, 3.0 * widen), radius)
    radius = np.where(kind == _NN, 0.0, radius)
    return in_size.copy(), out_size.copy(), lo32.astype(np.float64), scale, kind, radius


#: The `AXIS` fields `_axis_rows` computes, in its order.
_AXIS_FIELDS = ("start", "scale", "tscale", "support", "table", "table_n", "in_size", "accumulate")


def _axis_arrays(pb: PlanBatch) -> dict[str, np.ndarray]:
    """`_axis_tuple` of every plan (``(n, axes)`` arrays keyed by the `AXIS` field names)."""
    n, nsp = pb.kind.shape
    return dict(zip(_AXIS_FIELDS, gil.by_rows(_axis_rows, n, nsp, *pb)))


def _axis_rows(
    in_size: np.ndarray,
    out_size: np.ndarray,
    origin: np.ndarray,
    scale: np.ndarray,
    kind: np.ndarray,
    radius: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """`_axis_arrays` of a block of rows (`PlanBatch`'s arrays), in `_AXIS_FIELDS` order."""
    f32 = _F32
    nn = kind == _NN
    scale = scale.astype(f32)
    origin = origin.astype(f32)
    table_n = _KIND_TABLE_N[kind]
    # the filters' float32 geometry, in `_axis_tuple`'s order (NN rows are replaced below)
    support_len = np.where(nn, 1.0, 2.0 * radius).astype(f32)
    tscale = (table_n - 1).astype(f32) / support_len
    anchor = support_len / f32(2)
    start = origin + f32(0.5) * scale - f32(0.5) - anchor
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.ceil((table_n - 1).astype(f32) / np.where(nn, f32(1), tscale))
    support = np.maximum(1, np.where(nn, 1, steps.astype(np.int64)))
    accumulate = np.zeros_like(kind)
    accumulate[:, :-1] = nn[:, :-1]  # NN steps the outer coordinates in float32
    return (
        np.where(nn, origin, start),
        scale,
        np.where(nn, f32(0), tscale),
        support,
        _KIND_TABLE_AT[kind],
        np.where(nn, 0, table_n),
        in_size,
        accumulate,
    )


class _Images:
    """The host-side geometry of a batch of images (2 spatial axes), one array per quantity.

    What `_Sample` holds for one sample, for all of them at once.
    """

    __slots__ = ("axis", "first", "in_sp", "inner", "n", "out_elements", "out_shape", "out_sp",
                 "outer", "pb", "zero")  # fmt: skip

    def __init__(self, shapes: np.ndarray, axes: Sequence[int], pb: PlanBatch) -> None:
        self.n = len(shapes)
        self.pb = pb
        # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
        rows = gil.by_rows(
            lambda s, i, o: _image_rows(s, i, o, axes), self.n, shapes.shape[1],
            shapes, pb.in_size, pb.out_size,
        )  # fmt: skip
        (self.outer, self.inner, self.in_sp, self.out_shape, self.out_elements, self.zero,
         self.first) = rows  # fmt: skip
        self.out_sp = pb.out_size
        self.axis = _axis_arrays(pb)

    def out_shapes(self) -> list[tuple[int, ...]]:
        out = self.out_shape
        if 0 < self.n <= gil.HELD_ELEMENTS:  # all alike (resize to one size): no tuple each
            first = out[0].tolist()
            if all((out[:, k] == v).all() for k, v in enumerate(first)):
                return [tuple(first)] * self.n
        rows = list(map(tuple, out.tolist()))  # (numpy would give the GIL up)
        return [rows[0]] * self.n if G._uniform(rows) else rows

    def rows(self, blocks: slice) -> _Images:
        """The same geometry for the samples ``blocks`` only (views)."""
        part = object.__new__(_Images)
        for name in ("outer", "inner", "in_sp", "out_shape", "out_elements", "zero", "first",
                     "out_sp"):  # fmt: skip
            setattr(part, name, getattr(self, name)[blocks])
        part.axis = {k: v[blocks] for k, v in self.axis.items()}
        part.pb = PlanBatch(*(a[blocks] for a in self.pb))
        part.n = len(part.first)
        return part

    def samples(self, shapes: Sequence[tuple[int, ...]], axes: Sequence[int]) -> list[_Sample]:
        """The per-sample `_Sample` objects (for the separable passes)."""
        return [_Sample(s, axes, p) for s, p in zip(shapes, self.pb.plans())]


def _image_rows(
    shapes: np.ndarray, in_size: np.ndarray, out_size: np.ndarray, axes: Sequence[int]
) -> tuple[np.ndarray, ...]:
    """`_Images`' per-sample arrays for a block of rows: outer, inner, in_sp, out_shape,
    out_elements, zero, first."""
    a0, a1 = axes
    outer = shapes[:, :a0].prod(axis=1)
    inner = shapes[:, a1 + 1 :].prod(axis=1)
    out_shape = shapes.copy()
    out_shape[:, a0] = out_size[:, 0]  # (a fancy index in two dimensions gives the GIL up)
    out_shape[:, a1] = out_size[:, 1]
    # `_resample._axis_order`: the most shrinking axis first (a stable sort of 2 keys)
    ratio = out_size / np.maximum(1, in_size)
    first = (ratio[:, 1] < ratio[:, 0]).astype(np.int64)
    in_sp = np.stack([shapes[:, a0], shapes[:, a1]], axis=1)
    return (outer, inner, in_sp, out_shape, out_shape.prod(axis=1), shapes.prod(axis=1) == 0,
            first)  # fmt: skip


def _column(values: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``values[i, second[i]]`` of an ``(n, 2)`` array (a fancy index in two dimensions would
    give the GIL up, whatever its size)."""
    return np.where(second, values[:, 1], values[:, 0])


def _tile_needs(geo: _Images, tile_h: int, tile_w: int) -> np.ndarray:
    """`_tile_need` of every sample."""
    a1 = geo.first == 1
    a2 = ~a1
    t1 = np.minimum(np.where(a1, tile_w, tile_h), _column(geo.out_sp, a1))
    t2 = np.minimum(np.where(a1, tile_h, tile_w), _column(geo.out_sp, a2))
    support = geo.axis["support"]
    s1, s2 = _column(support, a1), _column(support, a2)
    scale2 = np.abs(_column(geo.axis["scale"], a2).astype(np.float64))
    lines = np.ceil((t2 - 1) * scale2 * 1.001).astype(np.int64) + s2 + 4
    lines = np.minimum(_column(geo.in_sp, a2), lines)
    return t1 * s1 + t2 * s2 + t1 + t2 + lines * t1 * geo.inner


def _choose_tiles(geo: _Images) -> tuple[int, int, int] | None:
    """``(tile_h, tile_w, shared floats)`` for the tiled kernel, or None if it cannot run."""
    live = (geo.out_elements != 0) & ~geo.zero
    inner = int(geo.inner[live].max()) if live.any() else 1
    # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`)
    parts = [(geo.rows(b), live[b]) for b in gil.row_blocks(geo.n, 2)]
    for th, tw in _tile_candidates(inner):
        need = max(
            (int(_tile_needs(part, th, tw)[on].max()) for part, on in parts if on.any()),
            default=0,
        )
        # zero-fill blocks need no shared memory, but every launch gets the same amount
        if 4 * need <= _SMEM_LIMIT:
            return th, tw, need
    return None


def _tile_candidates(inner: int) -> list[tuple[int, int]]:
    """Tile shapes to try, largest first (none when a pixel has too many channels)."""
    if inner > _MAX_INNER:
        return []
    if inner <= 2:
        return [(32, 64), (16, 64), (16, 32), (8, 32), (8, 16), (4, 16)]
    if inner <= 4:
        return [(32, 32), (16, 32), (16, 16), (8, 16), (8, 8), (4, 8)]
    return [(16, 16), (8, 16), (8, 8), (4, 8), (4, 4), (2, 4)]


def _descs_2d(
    geo: _Images, in_ptrs: np.ndarray, out_ptrs: np.ndarray, th: int, tw: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``dali_resample2d_desc`` of every sample and its number of blocks."""
    blocks = gil.row_blocks(geo.n, 2)
    if len(blocks) > 1:  # in blocks of rows small enough for numpy to keep the GIL
        parts = [_descs_2d(geo.rows(b), in_ptrs[b], out_ptrs[b], th, tw) for b in blocks]
        return np.concatenate([d for d, _ in parts]), np.concatenate([k for _, k in parts])
    desc = gil.zeros(geo.n, _DESC_2D)
    (h, w), (oh, ow) = geo.in_sp.T, geo.out_sp.T
    tiles_y, tiles_x = -(-oh // th), -(-ow // tw)
    desc["input"] = in_ptrs
    desc["output"] = out_ptrs
    desc["in_plane"] = h * w * geo.inner
    desc["out_plane"] = oh * ow * geo.inner
    desc["planes"] = geo.outer
    desc["inner"] = geo.inner
    desc["in_h"], desc["in_w"], desc["out_h"], desc["out_w"] = h, w, oh, ow
    desc["tiles_y"], desc["tiles_x"] = tiles_y, tiles_x
    desc["first"] = geo.first
    desc["zero"] = geo.zero
    axis = desc["axis"]
    for name, values in geo.axis.items():
        axis[name] = values
    blocks = np.where(geo.out_elements != 0, geo.outer * tiles_y * tiles_x, 0)
    return desc, blocks


# -- the per-sample reference (volumes, the separable passes, the tests' oracle) ----------------


class _Sample:
    """The host-side geometry of one sample."""

    __slots__ = ("axes", "in_sp", "inner", "order", "out_shape", "out_sp", "outer", "plans", "zero")

    def __init__(
        self, shape: tuple[int, ...], axes: Sequence[int], plans: Sequence[_resample.AxisPlan]
    ) -> None:
        self.plans = list(plans)
        self.outer = math.prod(shape[: axes[0]])
        self.inner = math.prod(shape[axes[-1] + 1 :])
        self.in_sp = [shape[a] for a in axes]
        self.out_sp = [p.out_size for p in plans]
        out_shape = list(shape)
        for a, p in zip(axes, plans):
            out_shape[a] = p.out_size
        self.out_shape = tuple(out_shape)
        self.zero = math.prod(shape) == 0
        self.order = _resample._axis_order(axes, plans)
        nsp = len(axes)
        self.axes = [_axis_tuple(p, i < nsp - 1) for i, p in enumerate(plans)]

    @property
    def out_elements(self) -> int:
        return math.prod(self.out_shape)


def _tile_need(smp: _Sample, tile_h: int, tile_w: int) -> int:
    """Shared-memory floats a tile of ``smp`` may need (the bound the kernel relies on)."""
    a1 = smp.order[0]
    a2 = 1 - a1
    t1 = min(tile_w if a1 else tile_h, smp.out_sp[a1])
    t2 = min(tile_h if a1 else tile_w, smp.out_sp[a2])
    s1, s2 = smp.axes[a1][3], smp.axes[a2][3]  # supports
    scale2 = abs(float(smp.axes[a2][1]))
    lines = min(smp.in_sp[a2], math.ceil((t2 - 1) * scale2 * 1.001) + s2 + 4)
    return t1 * s1 + t2 * s2 + t1 + t2 + lines * t1 * smp.inner


def _choose_tiles_reference(samples: Sequence[_Sample]) -> tuple[int, int, int] | None:
    """`_choose_tiles`, one sample at a time."""
    live = [s for s in samples if s.out_elements and not s.zero]
    inner = max([s.inner for s in live], default=1)
    for th, tw in _tile_candidates(inner):
        need = max([_tile_need(s, th, tw) for s in live], default=0)
        if 4 * need <= _SMEM_LIMIT:
            return th, tw, need
    return None


def _descs_2d_reference(
    samples: Sequence[_Sample], in_ptrs: np.ndarray, out_ptrs: np.ndarray, th: int, tw: int
) -> tuple[np.ndarray, np.ndarray]:
    """`_descs_2d`, one sample at a time."""
    rows = []
    blocks = []
    for smp, src, dst in zip(samples, in_ptrs.tolist(), out_ptrs.tolist()):
        (h, w), (oh, ow) = smp.in_sp, smp.out_sp
        tiles_y, tiles_x = -(-oh // th), -(-ow // tw)
        inner = smp.inner
        rows.append(
            (src, dst, h * w * inner, oh * ow * inner, smp.outer, inner, h, w, oh, ow,
             tiles_y, tiles_x, smp.order[0], int(smp.zero), smp.axes)
        )  # fmt: skip
        blocks.append(smp.outer * tiles_y * tiles_x if smp.out_elements else 0)
    return np.array(rows, dtype=_DESC_2D).reshape(len(rows)), np.array(blocks, np.int64)


# -- the batch ----------------------------------------------------------------------------------


def resample_batch(
    tl: Any,
    axes: Sequence[int],
    plans: Sequence[Sequence[_resample.AxisPlan]] | PlanBatch,
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
        samples = [_Sample(shape, axes, p) for shape, p in zip(shapes, plans)]
        out_shapes = [s.out_shape for s in samples]
        flat, out_ptrs = G.alloc_outputs(out_shapes, out_dtype)
        result = G.make_output(flat, out_shapes, layout, out_dtype, tl._ndim)
        if not any(s.out_elements for s in samples):
            return result
        kernels = _kernels(tl._np_dtype, out_dtype)
        _run_separable(kernels, samples, in_ptrs, out_ptrs, tl._np_dtype, out_dtype)
        del keep  # the inputs were referenced until the kernels were queued
        return result
    if not isinstance(plans, PlanBatch):
        plans = PlanBatch.from_plans(plans, 2)
    geo = _Images(shape_arr, axes, plans)
    out_shapes = geo.out_shapes()
    flat, out_ptrs = G.alloc_outputs(out_shapes, out_dtype)
    result = G.make_output(flat, out_shapes, layout, out_dtype, tl._ndim)
    if not geo.out_elements.any():
        return result
    kernels = _kernels(tl._np_dtype, out_dtype)
    tiles = _choose_tiles(geo)
    if tiles is not None:
        _run_tiled(kernels, geo, in_ptrs, out_ptrs, tiles, tl._np_dtype, out_dtype)
    else:
        samples = geo.samples(shapes, axes)
        _run_separable(kernels, samples, in_ptrs, out_ptrs, tl._np_dtype, out_dtype)
    del keep  # the inputs were referenced until the kernels were queued
    return result


def _run_tiled(
    kernels: dict[str, Any],
    geo: _Images,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    tiles: tuple[int, int, int],
    in_dtype: np.dtype[Any],
    out_dtype: np.dtype[Any],
) -> None:
    th, tw, floats = tiles
    desc, blocks = _descs_2d(geo, in_ptrs, out_ptrs, th, tw)
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
    samples: Sequence[_Sample],
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
    job_arr = np.array(jobs, dtype=_JOB) if jobs else np.zeros(1, dtype=_JOB)
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
        desc = np.zeros(n, dtype=_PASS)
        blocks = np.zeros(n, dtype=np.int64)
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
            blocks[i] = -(-count // (G.BLOCK * _ITEMS))
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
        a = src_t if p == 0 else "float"
        b = dst_t if p == nsp - 1 else "float"
        kernels[f"dali_resample_pass<{a}, {b}>"](
            (pass_totals[p],),
            (G.BLOCK,),
            (d_descs[p], d_starts[p], np.int32(n), bases, weights, np.int32(_ITEMS)),
        )
    del temps  # back to the stream-ordered pool: reused only after these kernels
