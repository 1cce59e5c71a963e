"""The batched GPU kernel of the displacement filters and remap (CuPy): ONE launch per batch.

``dali_displace`` makes every output pixel (all its channels) in one thread: it computes the
pixel's source position by the sample's *kind* and samples the input there with
`displacement.sample`'s rules, in the same float32 operations (``__fadd_rn`` & co., so nothing
is fused into an FMA): the GPU output equals the CPU's. The kinds:

* ``COPY``: a sample whose ``mask`` is 0 is copied;
* ``WATER``: ``(x + tx[y], y + ty[x])``, the wave offsets computed on the host (glibc's
  ``sinf``/``cosf``, as DALI's CPU backend) and uploaded with the descriptions;
* ``SPHERE``: the radial stretch, computed in the kernel;
* ``JITTER``: integer offsets drawn from the sample's counter-based stream (SplitMix64 of the
  sample key and the pixel index: the CPU draws the same numbers with `SampleRNG.bits`);
* ``REMAP``: the positions read from ``mapx``/``mapy`` (per frame of a sequence, or one map for
  all frames).

Samples may have any shape and channel count; frames of a sequence (remap) are handled by the
same thread layout.

Example:
    >>> desc_size()
    80
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._ops.gpu import kernels as G

__all__ = ["COPY", "JITTER", "REMAP", "SPHERE", "WATER", "desc_size", "displace_batch"]

COPY, WATER, SPHERE, JITTER, REMAP = 0, 1, 2, 3, 4
_ITEMS = 4  # output pixels per thread

_DESC = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("mapx", "<u8"),
        ("mapy", "<u8"),
        ("key", "<u8"),
        ("frame", "<i8"),
        ("map_frame", "<i8"),
        ("frames", "<i4"),
        ("h", "<i4"),
        ("w", "<i4"),
        ("c", "<i4"),
        ("kind", "<i4"),
        ("ndeg", "<i4"),
    ],
    align=True,
)
assert _DESC.itemsize == 80

_source = r"""
struct dali_disp_desc {
  const void* in;
  void* out;
  const float* mapx;       // REMAP: the x map
  const float* mapy;       // REMAP: the y map
  unsigned long long key;  // JITTER: the sample's random key
  i64 frame;               // elements per frame (input and output)
  i64 map_frame;           // floats per frame of the maps (0: one map for every frame)
  int frames, h, w, c;
  int kind, ndeg;
};
static_assert(sizeof(dali_disp_desc) == 80, "dali_disp_desc");

#define DALI_COPY 0
#define DALI_WATER 1
#define DALI_SPHERE 2
#define DALI_JITTER 3

// float32 -> T: std::round (half away from zero) and saturation, NaN -> 0 (`convert_half_away`)
template <typename T> __device__ T dali_round_away(float v);
#define DALI_ROUND_AWAY(T, LO, HI)                                             \
  template <> __device__ __forceinline__ T dali_round_away<T>(float v) {       \
    if (v != v) return (T)0;                                                   \
    float t = truncf(v);                                                       \
    if (fabsf(__fsub_rn(v, t)) >= 0.5f) t = __fadd_rn(t, copysignf(1.f, v));   \
    return (T)fminf(fmaxf(t, LO), HI);                                         \
  }
DALI_ROUND_AWAY(unsigned char, 0.f, 255.f)
DALI_ROUND_AWAY(short, -32768.f, 32767.f)
DALI_ROUND_AWAY(unsigned short, 0.f, 65535.f)
template <> __device__ __forceinline__ float dali_round_away<float>(float v) { return v; }

// `displacement.sample` for one pixel: NN or LINEAR, corner or centre origin, fill outside
template <typename T>
__device__ __forceinline__ void dali_disp_sample(const T* in, int h, int w, int C, float px,
                                                 float py, int interp, int center, T fill,
                                                 T* out) {
  const float fw = (float)w, fh = (float)h;
  if (interp == 0) {
    if (center) {
      px = __fadd_rn(px, 0.5f);
      py = __fadd_rn(py, 0.5f);
    }
    const float fx = floorf(px), fy = floorf(py);
    if (fx >= 0.f && fx < fw && fy >= 0.f && fy < fh) {
      const T* p = in + ((i64)(int)fy * w + (int)fx) * C;
      for (int c = 0; c < C; c++) out[c] = p[c];
    } else {
      for (int c = 0; c < C; c++) out[c] = fill;
    }
    return;
  }
  if (!center) {
    px = __fsub_rn(px, 0.5f);
    py = __fsub_rn(py, 0.5f);
  }
  float x0 = floorf(px), y0 = floorf(py);
  // DALI's floor_int on x86: INT_MIN beyond int32 and for NaN (it decides the weights too)
  if (!(x0 >= -2147483648.f && x0 < 2147483648.f)) x0 = -2147483648.f;
  if (!(y0 >= -2147483648.f && y0 < 2147483648.f)) y0 = -2147483648.f;
  const float qx = __fsub_rn(px, x0), qy = __fsub_rn(py, y0);
  const float pw = __fsub_rn(1.f, qx);
  const float x1 = __fadd_rn(x0, 1.f), y1 = __fadd_rn(y0, 1.f);
  const bool in_x0 = x0 >= 0.f && x0 < fw, in_x1 = x1 >= 0.f && x1 < fw;
  const bool in_y0 = y0 >= 0.f && y0 < fh, in_y1 = y1 >= 0.f && y1 < fh;
  const i64 r0 = (i64)(in_y0 ? (int)y0 : 0) * w, r1 = (i64)(in_y1 ? (int)y1 : 0) * w;
  const int jx0 = in_x0 ? (int)x0 : 0, jx1 = in_x1 ? (int)x1 : 0;
  const float f = dali_to_float(fill);
  for (int c = 0; c < C; c++) {
    const float s00 = (in_y0 && in_x0) ? dali_to_float(in[(r0 + jx0) * C + c]) : f;
    const float s01 = (in_y0 && in_x1) ? dali_to_float(in[(r0 + jx1) * C + c]) : f;
    const float s10 = (in_y1 && in_x0) ? dali_to_float(in[(r1 + jx0) * C + c]) : f;
    const float s11 = (in_y1 && in_x1) ? dali_to_float(in[(r1 + jx1) * C + c]) : f;
    const float s0 = __fadd_rn(__fmul_rn(s00, pw), __fmul_rn(s01, qx));
    const float s1 = __fadd_rn(__fmul_rn(s10, pw), __fmul_rn(s11, qx));
    out[c] = dali_round_away<T>(__fadd_rn(s0, __fmul_rn(__fsub_rn(s1, s0), qy)));
  }
}

template <typename T>
__global__ void dali_displace(const dali_disp_desc* __restrict__ descs,
                              const int* __restrict__ block_start, int nsamples,
                              const float* __restrict__ table, int table_split, int interp,
                              int center, float fill_value, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_disp_desc& d = descs[s];
  const i64 hw = (i64)d.h * d.w;
  const i64 npix = hw * d.frames;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  const T fill = dali_round_away<T>(fill_value);  // the host made it a value of T
  const int C = d.c;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= npix) return;
    const int f = (int)(e / hw);
    const i64 r = e - (i64)f * hw;  // the pixel within its frame
    const int y = (int)(r / d.w), x = (int)(r - (i64)y * d.w);
    const T* in = (const T*)d.in + f * d.frame;
    T* out = (T*)d.out + e * C;
    float px, py;
    if (d.kind == DALI_COPY || d.kind == DALI_JITTER) {
      i64 src = r;
      if (d.kind == DALI_JITTER) {  // SplitMix64(key + (pixel + 1) * golden), as SampleRNG.bits
        unsigned long long z = d.key + (unsigned long long)(r + 1) * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        const unsigned long long n = (unsigned long long)(unsigned)d.ndeg;
        const i64 start = -(i64)(d.ndeg >> 1);
        i64 jx = x + start + (i64)(((z & 0xffffffffULL) * n) >> 32);
        i64 jy = y + start + (i64)(((z >> 32) * n) >> 32);
        jx = jx < 0 ? 0 : (jx >= d.w ? d.w - 1 : jx);
        jy = jy < 0 ? 0 : (jy >= d.h ? d.h - 1 : jy);
        src = jy * d.w + jx;
      }
      const T* p = in + src * C;
      for (int c = 0; c < C; c++) out[c] = p[c];
      continue;
    }
    if (d.kind == DALI_WATER) {
      px = __fadd_rn((float)x, table[y]);  // the x offset of the row
      py = __fadd_rn((float)y, table[table_split + x]);  // the y offset of the column
    } else if (d.kind == DALI_SPHERE) {  // DALI's SphereAugment, in float32
      const float mid_x = __fmul_rn((float)d.w, 0.5f), mid_y = __fmul_rn((float)d.h, 0.5f);
      const int dd = (int)(mid_x > mid_y ? mid_x : mid_y);
      const float ty = __fsub_rn(__fadd_rn((float)y, 0.5f), mid_y);
      const float tx = __fsub_rn(__fadd_rn((float)x, 0.5f), mid_x);
      const float rad =
          __fdiv_rn(__fsqrt_rn(__fadd_rn(__fmul_rn(tx, tx), __fmul_rn(ty, ty))), (float)dd);
      px = __fadd_rn(mid_x, __fmul_rn(rad, tx));
      py = __fadd_rn(mid_y, __fmul_rn(rad, ty));
    } else {  // REMAP
      px = d.mapx[f * d.map_frame + r];
      py = d.mapy[f * d.map_frame + r];
    }
    dali_disp_sample<T>(in, d.h, d.w, C, px, py, interp, center, fill, out);
  }
}
"""


def desc_size() -> int:
    """Bytes of one sample's description (checked against the CUDA struct)."""
    return _DESC.itemsize


def _kernel(name: str) -> Any:
    return G.kernel_module(G.device_id(), _source, (name,))[name]


def displace_batch(
    tl: Any,
    kinds: Sequence[int],
    *,
    interp: int,
    center: bool,
    fill: float,
    layout: str,
    table: np.ndarray | None = None,
    table_split: int = 0,
    keys: np.ndarray | None = None,
    ndeg: int = 0,
    maps: tuple[Any, Any] | None = None,
    map_per_frame: Sequence[bool] = (),
    frames: bool = False,
) -> Any:
    """Displace every sample of a TensorListGPU (``HWC``, or ``FHWC`` with ``frames``).

    Args:
        tl: The input batch (uint8, int16, uint16 or float32).
        kinds: Per sample, what to do (`COPY`, `WATER`, `SPHERE`, `JITTER`, `REMAP`).
        interp: 0 (NN) or 1 (LINEAR).
        center: Pixel centres on integers (remap's ``pixel_origin="center"``).
        fill: The value outside the input, already a value of the input type.
        layout: The output layout.
        table: WATER: float32 offsets, ``table[:table_split]`` by row (x offsets), the rest by
            column (y offsets), long enough for every sample (one table: the offsets depend
            only on the operator's arguments).
        table_split: Where the column offsets start in ``table``.
        keys: JITTER: each sample's uint64 random key.
        ndeg: JITTER: the number of offsets (``nDegree``).
        maps: REMAP: the batches ``(mapx, mapy)`` (float32, C-contiguous on the GPU, shaped
            as the operator checked them: ``H × W`` floats per frame).
        map_per_frame: REMAP: per sample, whether its maps hold one ``H × W`` map per frame
            (else one map serves every frame).
        frames: The samples are sequences (a leading ``F`` axis).

    Returns:
        A `TensorListGPU` of the input's shapes and type; nothing waits for the GPU.
    """
    dtype = np.dtype(tl.np_dtype)
    shapes, in_ptrs, keep = G.input_pointers(tl)
    out_shapes = [tuple(int(v) for v in s) for s in shapes]
    flat, out_ptrs = G.alloc_outputs(out_shapes, dtype)
    result = G.make_output(flat, out_shapes, layout, dtype, tl.sample_ndim)
    map_rows: list[tuple[int, int, int]] = []
    if maps is not None:
        _, mx_ptrs, keep_x = G.input_pointers(maps[0])
        _, my_ptrs, keep_y = G.input_pointers(maps[1])
        keep = [*keep, *keep_x, *keep_y]
        for shape, px, py, per_frame in zip(
            out_shapes, mx_ptrs.tolist(), my_ptrs.tolist(), map_per_frame
        ):
            map_rows.append((px, py, math.prod(shape[-3:-1]) if per_frame else 0))
    rows = []
    blocks = []
    for i, (shape, src, dst) in enumerate(zip(out_shapes, in_ptrs.tolist(), out_ptrs.tolist())):
        nframes = shape[0] if frames else 1
        h, w, c = shape[-3:]
        kind = int(kinds[i])
        key = int(keys[i]) if keys is not None else 0
        mx, my, map_frame = map_rows[i] if map_rows else (0, 0, 0)
        rows.append((src, dst, mx, my, key, h * w * c, map_frame, nframes, h, w, c, kind, ndeg))
        blocks.append(-(-(nframes * h * w) // (G.BLOCK * _ITEMS)) if c else 0)
    desc = np.array(rows, dtype=_DESC)
    starts, total = G.block_starts(blocks)
    if not total:
        return result
    offsets = np.zeros(1, np.float32) if table is None else np.asarray(table, np.float32)
    d_desc, d_starts, d_table = G.upload(desc, starts, offsets)
    name = f"dali_displace<{G.c_type(dtype)}>"
    _kernel(name)(
        (total,),
        (G.BLOCK,),
        (d_desc, d_starts, np.int32(len(rows)), d_table, np.int32(table_split),
         np.int32(interp), np.int32(bool(center)), np.float32(fill), np.int32(_ITEMS)),
    )  # fmt: skip
    del keep
    return result
