"""The GPU backend of `fn.clahe` (CuPy): DALI 2.4's CUDA algorithm, three launches per batch.

DALI's GPU operator (``dali/operators/image/clahe/clahe_op.cu``) is not OpenCV: its tiles are
``ceil(W / tiles_x) x ceil(H / tiles_y)`` pixels of the image itself (the last ones smaller, no
border extension), its clip limit is never below 1, its tables round ``cdf · 255 / area``
with ``+ 0.5`` and truncation, and tile centres sit at ``(t + 0.5) · W / tiles_x``; RGB images
are equalized on an 8-bit L* plane computed in float32 through tables (sRGB -> linear 256
entries, linear -> sRGB, the L*a*b* ``f`` and its inverse 4096 entries each, built on the host),
and every pixel is converted back from (equalized L* rounded to an integer, original a*, b*).
DALI's own tests hold it to OpenCV within a mean squared error of 5 and a mean absolute error
of 2 per value; these kernels reproduce its arithmetic, so that tolerance is the one between
this backend and the CPU one.

The batch, ragged or not, takes three launches (one kernel each, every sample at once):

1. ``dali_clahe_luma``: the L* plane of every RGB sample (one thread per pixel);
2. ``dali_clahe_luts``: one block per tile of every sample: the tile's histogram in shared
   memory, clipping, redistribution (integers: the same bins as DALI's one-thread loop),
   prefix sum and the 256-entry table;
3. ``dali_clahe_apply``: one thread per pixel: the bilinear blend of the four tables and, for
   RGB, the conversion back.

Floating-point expressions are evaluated with explicit intrinsics in the order DALI's nvcc
build contracts them (``a*b + c`` and ``a*b + c*d`` fused as ``fma(a, b, ...)``), so the
result does not depend on the compiler's choices here.

Example:
    >>> tables = color_tables()
    >>> tables.dtype, tables.shape
    (dtype('float32'), (12544,))
"""

from __future__ import annotations

import functools
import struct
from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G

__all__ = ["clahe_batch", "color_tables", "desc_size"]

_F32 = np.float32
BINS = 256
#: Offsets of the four tables in `color_tables`.
SRGB_TO_LINEAR, LINEAR_TO_SRGB, XYZ_TO_LAB, LAB_TO_XYZ = 0, 256, 256 + 4096, 256 + 2 * 4096
_TABLES_SIZE = 256 + 3 * 4096


def _raw_f32(bits: int) -> np.float32:
    """A double given by its bits, as DALI's ``CV_HEX_CONST_F`` makes it: rounded to float."""
    return _F32(struct.unpack("<d", struct.pack("<Q", bits))[0])


# DALI's constants (OpenCV's values), as float32
_RGB2XYZ = [
    _raw_f32(b)
    for b in (0x3FDA65A14488C60D, 0x3FD6E297396D0918, 0x3FC71819D2391D58,
              0x3FCB38CDA6E75FF6, 0x3FE6E297396D0918, 0x3FB279AAE6C8F755,
              0x3F93CC4AC6CDAF4B, 0x3FBE836EB4E98138, 0x3FEE68427418D691)
]  # fmt: skip
_XYZ2RGB = [
    _raw_f32(b)
    for b in (0x4009EC804102FF8F, 0xBFF8982A9930BE0E, 0xBFDFE7FF583A53B9,
              0xBFEF042528AE74F3, 0x3FFE040F23897204, 0x3FA546D3F9E7B80B,
              0x3FAC7DE5082CF52C, 0xBFCA1E14BDFD2631, 0x3FF0EABEF06B3786)
]  # fmt: skip
_WHITE_X = _raw_f32(0x3FEE6A22B3892EE8)
_WHITE_Z = _raw_f32(0x3FF16B8950763A19)


def color_tables() -> np.ndarray:
    """DALI's four colour tables (``InitColorConversionLUTs``), float32, back to back.

    ``[0, 256)`` sRGB -> linear of each 8-bit value, ``[256, 4352)`` linear -> sRGB of
    ``i / 4095``, ``[4352, 8448)`` the L*a*b* ``f(t)`` of ``i / 4095``, ``[8448, 12544)`` its
    inverse of ``i · 1.2 / 4095``; built in float32 as DALI's host code builds them.
    """
    f = _F32
    i256 = np.arange(256, dtype=f)
    cf = i256 * (f(1) / f(255))
    power = (cf + f(0.055)) * (f(1) / (f(1) + f(0.055)))
    lin = np.where(cf <= f(0.04045), cf * (f(1) / f(12.92)), _powf(power, f(2.4)))
    c = np.arange(4096, dtype=f) / f(4095)
    srgb = np.where(
        c <= f(0.0031308), f(12.92) * c, _powf(c, f(1) / f(2.4)) * (f(1) + f(0.055)) - f(0.055)
    )
    lab_f = np.where(
        c > f(0.008856451679035631),
        np.cbrt(c.astype(np.float64)).astype(f),
        f(7.787037037037037) * c + f(0.137931034482758621),
    )
    u = np.arange(4096, dtype=f) * (f(1.2) / f(4095))
    inv = np.where(
        u > f(0.206896551724137931),
        u * u * u,
        f(0.128418549346016740) * (u - f(0.137931034482758621)),
    )
    out = np.concatenate([lin, srgb, lab_f, inv]).astype(f)
    assert out.size == _TABLES_SIZE
    return out


def _powf(x: np.ndarray, y: np.float32) -> np.ndarray:
    """float32 ``powf``, correctly rounded (evaluated in double)."""
    return np.power(x.astype(np.float64), float(y)).astype(_F32)


def _lit(v: Any) -> str:
    """A float32 value as an exact CUDA literal."""
    return f"{float(_F32(v))!r}f"


_DESC = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("luma", "<u8"),
        ("pixels", "<i8"),
        ("height", "<i4"),
        ("width", "<i4"),
        ("channels", "<i4"),
        ("pad", "<i4"),
    ],
    align=True,
)
assert _DESC.itemsize == 48


def desc_size() -> int:
    """Bytes of one sample's description (checked against the CUDA struct)."""
    return _DESC.itemsize


def _source() -> str:
    consts = {
        "XR": _RGB2XYZ[0], "XG": _RGB2XYZ[1], "XB": _RGB2XYZ[2],
        "YR": _RGB2XYZ[3], "YG": _RGB2XYZ[4], "YB": _RGB2XYZ[5],
        "ZR": _RGB2XYZ[6], "ZG": _RGB2XYZ[7], "ZB": _RGB2XYZ[8],
        "LXR": _XYZ2RGB[0], "LXG": _XYZ2RGB[1], "LXB": _XYZ2RGB[2],
        "LYR": _XYZ2RGB[3], "LYG": _XYZ2RGB[4], "LYB": _XYZ2RGB[5],
        "LZR": _XYZ2RGB[6], "LZG": _XYZ2RGB[7], "LZB": _XYZ2RGB[8],
        "WX": _WHITE_X, "WZ": _WHITE_Z,
        "INV_WX": _F32(1) / _WHITE_X, "INV_WZ": _F32(1) / _WHITE_Z,
        "INV_100": _F32(1) / _F32(100), "L_TO_100": _F32(100) / _F32(255),
        "INV_116": _F32(1) / _F32(116), "INV_500": _F32(1) / _F32(500),
        "INV_200": _F32(1) / _F32(200), "LAB_INV_SCALE": _F32(4095) / _F32(1.2),
    }  # fmt: skip
    defines = "".join(f"#define DALI_CLAHE_{k} {_lit(v)}\n" for k, v in consts.items())
    return defines + _KERNELS.replace("@SRGB_TO_LINEAR@", str(SRGB_TO_LINEAR)).replace(
        "@LINEAR_TO_SRGB@", str(LINEAR_TO_SRGB)
    ).replace("@XYZ_TO_LAB@", str(XYZ_TO_LAB)).replace("@LAB_TO_XYZ@", str(LAB_TO_XYZ))


_KERNELS = r"""
struct dali_clahe_desc {
  const unsigned char* in;   // (H, W, C) uint8, C = 1 or 3
  unsigned char* out;        // same shape
  unsigned char* luma;       // RGB: the L* plane (H * W), made by dali_clahe_luma
  i64 pixels;                // H * W
  int height, width, channels, pad;
};
static_assert(sizeof(dali_clahe_desc) == 48, "dali_clahe_desc");

__device__ __forceinline__ float dali_clahe_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float dali_clahe_fma(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}

// DALI's ConvertSatNorm<uint8_t>(v) on the device: round-half-even of 255 * saturate(v)
__device__ __forceinline__ unsigned char dali_clahe_norm_u8(float v) {
  return (unsigned char)__float2int_rn(__fmul_rn(255.0f, __saturatef(v)));
}

__device__ __forceinline__ float dali_clahe_lab_f(const float* __restrict__ tab, float t) {
  if (t > 1.0f) return cbrtf(t);
  return tab[@XYZ_TO_LAB@ + __float2int_rn(__fmul_rn(fmaxf(0.0f, t), 4095.0f))];
}

__device__ __forceinline__ float dali_clahe_lab_f_inv(const float* __restrict__ tab, float u) {
  const float c = fmaxf(0.0f, fminf(u, 1.2f));
  const int idx = min(__float2int_rn(__fmul_rn(c, DALI_CLAHE_LAB_INV_SCALE)), 4095);
  return tab[@LAB_TO_XYZ@ + idx];
}

__device__ __forceinline__ float dali_clahe_to_srgb(const float* __restrict__ tab, float c) {
  const float v = fmaxf(0.0f, fminf(c, 1.0f));
  return tab[@LINEAR_TO_SRGB@ + __float2int_rn(__fmul_rn(v, 4095.0f))];
}

// a*b + c*d + e*f as nvcc contracts it: fma(e, f, fma(a, b, c*d))
__device__ __forceinline__ float dali_clahe_dot3(float a, float b, float c, float d, float e,
                                                 float f) {
  return dali_clahe_fma(e, f, dali_clahe_fma(a, b, dali_clahe_mul(c, d)));
}

__device__ __forceinline__ void dali_clahe_rgb_to_lab(const float* __restrict__ tab,
                                                      unsigned char r8, unsigned char g8,
                                                      unsigned char b8, float* L, float* A,
                                                      float* B) {
  const float r = tab[@SRGB_TO_LINEAR@ + r8];
  const float g = tab[@SRGB_TO_LINEAR@ + g8];
  const float b = tab[@SRGB_TO_LINEAR@ + b8];
  const float x = dali_clahe_mul(dali_clahe_dot3(DALI_CLAHE_XR, r, DALI_CLAHE_XG, g,
                                                 DALI_CLAHE_XB, b), DALI_CLAHE_INV_WX);
  const float y = dali_clahe_dot3(DALI_CLAHE_YR, r, DALI_CLAHE_YG, g, DALI_CLAHE_YB, b);
  const float z = dali_clahe_mul(dali_clahe_dot3(DALI_CLAHE_ZR, r, DALI_CLAHE_ZG, g,
                                                 DALI_CLAHE_ZB, b), DALI_CLAHE_INV_WZ);
  const float fx = dali_clahe_lab_f(tab, x);
  const float fy = dali_clahe_lab_f(tab, y);
  const float fz = dali_clahe_lab_f(tab, z);
  *L = dali_clahe_fma(116.0f, fy, -16.0f);
  *A = dali_clahe_mul(500.0f, __fsub_rn(fx, fy));
  *B = dali_clahe_mul(200.0f, __fsub_rn(fy, fz));
}

__device__ __forceinline__ unsigned char dali_clahe_luma_of(const float* __restrict__ tab,
                                                            const unsigned char* px) {
  const float r = tab[@SRGB_TO_LINEAR@ + px[0]];
  const float g = tab[@SRGB_TO_LINEAR@ + px[1]];
  const float b = tab[@SRGB_TO_LINEAR@ + px[2]];
  const float y = dali_clahe_dot3(DALI_CLAHE_YR, r, DALI_CLAHE_YG, g, DALI_CLAHE_YB, b);
  const float L = dali_clahe_fma(116.0f, dali_clahe_lab_f(tab, y), -16.0f);
  return dali_clahe_norm_u8(dali_clahe_mul(L, DALI_CLAHE_INV_100));
}

// 1. the L* plane of the RGB samples (grey samples own no blocks)
extern "C" __global__ void dali_clahe_luma(const dali_clahe_desc* __restrict__ descs,
                                           const int* __restrict__ block_start, int nsamples,
                                           const float* __restrict__ tab) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_clahe_desc& d = descs[s];
  const i64 p = (i64)(blockIdx.x - block_start[s]) * blockDim.x + threadIdx.x;
  if (p >= d.pixels) return;
  d.luma[p] = dali_clahe_luma_of(tab, d.in + 3 * p);
}

// 2. one block (256 threads) per tile of every sample: histogram, clip, redistribute, table
extern "C" __global__ void dali_clahe_luts(const dali_clahe_desc* __restrict__ descs,
                                           int tiles_x, int tiles_y, float clip_limit,
                                           unsigned char* __restrict__ luts) {
  __shared__ unsigned int hist[256];
  __shared__ unsigned int excess;
  const int ntiles = tiles_x * tiles_y;
  const int s = blockIdx.x / ntiles;
  const int tile = blockIdx.x - s * ntiles;
  const int ty = tile / tiles_x, tx = tile - ty * tiles_x;
  const dali_clahe_desc& d = descs[s];
  const int t = threadIdx.x;
  hist[t] = 0u;
  if (t == 0) excess = 0u;
  __syncthreads();

  const int W = d.width, H = d.height;
  const int tile_w = (W + tiles_x - 1) / tiles_x, tile_h = (H + tiles_y - 1) / tiles_y;
  const int x0 = tx * tile_w, y0 = ty * tile_h;
  // tiles past the image are empty (DALI reads out of bounds when both sides overshoot)
  const int tw = max(min(x0 + tile_w, W) - x0, 0), th = max(min(y0 + tile_h, H) - y0, 0);
  const int n = tw * th;
  const unsigned char* plane = d.channels == 1 ? d.in : d.luma;
  for (int i = t; i < n; i += blockDim.x) {
    const int dy = i / tw, dx = i - dy * tw;
    atomicAdd(&hist[plane[(i64)(y0 + dy) * W + x0 + dx]], 1u);
  }
  __syncthreads();

  const int area = max(1, n);
  const float limit_f = dali_clahe_mul(dali_clahe_mul(clip_limit, (float)area), 1.0f / 256.0f);
  const unsigned int limit = (unsigned int)max((int)limit_f, 1);
  unsigned int h = hist[t];
  if (h > limit) {
    atomicAdd(&excess, h - limit);
    h = limit;
  }
  __syncthreads();
  const unsigned int total = excess;
  h += total / 256u;
  const unsigned int residual = total % 256u;
  if (residual > 0u) {  // DALI: one more to bins 0, step, 2 step, ... residual of them
    const unsigned int step = max(256u / residual, 1u);
    if ((unsigned int)t % step == 0u && (unsigned int)t / step < residual) h += 1u;
  }
  hist[t] = h;
  __syncthreads();
  for (int off = 1; off < 256; off <<= 1) {  // inclusive prefix sum
    const unsigned int v = t >= off ? hist[t - off] : 0u;
    __syncthreads();
    hist[t] += v;
    __syncthreads();
  }
  const float scale = __fdiv_rn(255.0f, (float)area);
  const float val = dali_clahe_fma((float)hist[t], scale, 0.5f);
  luts[(i64)blockIdx.x * 256 + t] = (unsigned char)fminf(fmaxf(val, 0.0f), 255.0f);
}

// DALI's get_tile_indices_and_weights along one axis
__device__ __forceinline__ void dali_clahe_axis(int pos, int size, int tiles, int* t0, int* t1,
                                                float* f) {
  const float inv = __fdiv_rn((float)tiles, (float)size);
  const float g = dali_clahe_fma((float)pos, inv, -0.5f);
  const int t = (int)floorf(g);
  const float frac = __fsub_rn(g, (float)t);
  *t0 = max(0, min(t, tiles - 1));
  *t1 = max(0, min(t + 1, tiles - 1));
  *f = *t0 == *t1 ? 0.0f : fminf(fmaxf(frac, 0.0f), 1.0f);
}

// a * (1 - w) + b * w as nvcc contracts it
__device__ __forceinline__ float dali_clahe_lerp(float a, float b, float w) {
  return dali_clahe_fma(a, __fsub_rn(1.0f, w), dali_clahe_mul(b, w));
}

// 3. one thread per pixel: blend the four tables; RGB: back from (L*, a*, b*)
extern "C" __global__ void dali_clahe_apply(const dali_clahe_desc* __restrict__ descs,
                                            const int* __restrict__ block_start, int nsamples,
                                            int tiles_x, int tiles_y,
                                            const unsigned char* __restrict__ luts,
                                            const float* __restrict__ tab) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_clahe_desc& d = descs[s];
  const i64 p = (i64)(blockIdx.x - block_start[s]) * blockDim.x + threadIdx.x;
  if (p >= d.pixels) return;
  const int W = d.width;
  const int y = (int)(p / W), x = (int)(p - (i64)y * W);
  int tx0, tx1, ty0, ty1;
  float fx, fy;
  dali_clahe_axis(x, W, tiles_x, &tx0, &tx1, &fx);
  dali_clahe_axis(y, d.height, tiles_y, &ty0, &ty1, &fy);
  const bool rgb = d.channels == 3;
  const int v = rgb ? d.luma[p] : d.in[p];
  const unsigned char* lut = luts + (i64)s * tiles_x * tiles_y * 256 + v;
  const float tl = lut[(ty0 * tiles_x + tx0) * 256], tr = lut[(ty0 * tiles_x + tx1) * 256];
  const float bl = lut[(ty1 * tiles_x + tx0) * 256], br = lut[(ty1 * tiles_x + tx1) * 256];
  const float out = dali_clahe_lerp(dali_clahe_lerp(tl, tr, fx), dali_clahe_lerp(bl, br, fx), fy);
  if (!rgb) {
    d.out[p] = (unsigned char)rintf(fminf(fmaxf(out, 0.0f), 255.0f));
    return;
  }
  const unsigned char* px = d.in + 3 * p;
  float L0, A, B;
  dali_clahe_rgb_to_lab(tab, px[0], px[1], px[2], &L0, &A, &B);
  const float L = fminf(fmaxf(rintf(dali_clahe_mul(out, DALI_CLAHE_L_TO_100)), 0.0f), 100.0f);
  const float fyl = dali_clahe_mul(__fadd_rn(L, 16.0f), DALI_CLAHE_INV_116);
  const float fxl = dali_clahe_fma(A, DALI_CLAHE_INV_500, fyl);
  const float fzl = dali_clahe_fma(-B, DALI_CLAHE_INV_200, fyl);
  const float X = dali_clahe_mul(dali_clahe_lab_f_inv(tab, fxl), DALI_CLAHE_WX);
  const float Y = dali_clahe_lab_f_inv(tab, fyl);
  const float Z = dali_clahe_mul(dali_clahe_lab_f_inv(tab, fzl), DALI_CLAHE_WZ);
  unsigned char* o = d.out + 3 * p;
  o[0] = dali_clahe_norm_u8(dali_clahe_to_srgb(
      tab, dali_clahe_dot3(DALI_CLAHE_LXR, X, DALI_CLAHE_LXG, Y, DALI_CLAHE_LXB, Z)));
  o[1] = dali_clahe_norm_u8(dali_clahe_to_srgb(
      tab, dali_clahe_dot3(DALI_CLAHE_LYR, X, DALI_CLAHE_LYG, Y, DALI_CLAHE_LYB, Z)));
  o[2] = dali_clahe_norm_u8(dali_clahe_to_srgb(
      tab, dali_clahe_dot3(DALI_CLAHE_LZR, X, DALI_CLAHE_LZG, Y, DALI_CLAHE_LZB, Z)));
}
"""

_NAMES = ("dali_clahe_luma", "dali_clahe_luts", "dali_clahe_apply")


def _kernels() -> dict[str, Any]:
    return G.kernel_module(G.device_id(), _source(), _NAMES)


@functools.cache
def _device_tables(device: int) -> Any:
    """`color_tables` on ``device``, uploaded once."""
    import cupy

    with cupy.cuda.Device(device):
        tables = cupy.asarray(color_tables())
        # synchronize! once per device: the tables must be in place for any stream that reads
        # them, not only the one that copied them
        cupy.cuda.Device(device).synchronize()
    return tables


def clahe_batch(tl: Any, tiles_x: int, tiles_y: int, clip_limit: float) -> Any:
    """CLAHE of every sample of a uint8 ``HWC`` TensorListGPU (1 or 3 channels, RGB luma).

    Returns:
        A `TensorListGPU` with the input's shapes; nothing waits for the GPU.
    """
    shapes, in_ptrs, keep = G.input_pointers(tl)
    n = len(shapes)
    flat, out_ptrs = G.alloc_outputs(shapes, np.uint8)
    result = G.make_output(flat, shapes, "HWC", np.uint8, 3)
    if n == 0:
        return result
    import cupy

    dims = np.array(shapes, np.int64).reshape(n, 3)
    pixels = dims[:, 0] * dims[:, 1]
    rgb = dims[:, 2] == 3
    luma_sizes = np.where(rgb, pixels, 0)
    luma_off = gil.zeros(n, np.int64)
    if n > 1:
        np.cumsum(luma_sizes[:-1], out=luma_off[1:])
    luma = cupy.empty(max(int(luma_sizes.sum()), 1), np.uint8)
    ntiles = tiles_x * tiles_y
    luts = cupy.empty(n * ntiles * BINS, np.uint8)
    desc = gil.zeros(n, _DESC)
    desc["input"] = in_ptrs
    desc["output"] = out_ptrs
    desc["luma"] = np.uint64(luma.data.ptr) + luma_off.astype(np.uint64)
    desc["pixels"] = pixels
    desc["height"] = dims[:, 0]
    desc["width"] = dims[:, 1]
    desc["channels"] = dims[:, 2]
    blocks = -(-pixels // G.BLOCK)
    luma_starts, luma_total = G.block_starts(np.where(rgb, blocks, 0))
    starts, total = G.block_starts(blocks)
    if n * ntiles >= 2**31:
        raise ValueError("too many tiles for one kernel launch")
    d_desc, d_luma_starts, d_starts = G.upload(desc, luma_starts, starts)
    tables = _device_tables(G.device_id())
    k = _kernels()
    ns = np.int32(n)
    if luma_total:
        k["dali_clahe_luma"]((luma_total,), (G.BLOCK,), (d_desc, d_luma_starts, ns, tables))
    if total:
        args = (d_desc, np.int32(tiles_x), np.int32(tiles_y), _F32(clip_limit), luts)
        k["dali_clahe_luts"]((n * ntiles,), (BINS,), args)
        apply_args = (d_desc, d_starts, ns, np.int32(tiles_x), np.int32(tiles_y), luts, tables)
        k["dali_clahe_apply"]((total,), (G.BLOCK,), apply_args)
    del keep
    return result
