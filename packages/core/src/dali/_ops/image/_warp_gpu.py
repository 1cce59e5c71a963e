"""Batched GPU kernels for `fn.warp_affine`, `fn.rotate` and `fn.paste` (CuPy).

``dali_warp`` maps every destination pixel to the source with the sample's matrix and samples
there, one thread per output pixel (all channels), ONE launch per batch. It reproduces
`dali._ops.image.warp_affine.warp_sample` bit for bit: the source coordinates are stepped along
each row in float32 exactly as DALI's CPU kernel steps them (restarting from a checkpoint every
256 pixels), which decides nearest-neighbour ties; bilinear blending keeps the CPU's order of
float32 operations; taps outside the input take the fill value (converted to the input type) or
the border pixel; results are rounded to nearest even and saturated.

``dali_paste`` writes each canvas in one pass: the image where it lands, the fill colour
elsewhere.

Example:
    >>> import numpy as np
    >>> warp_desc_size()
    112
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as G

__all__ = ["paste_batch", "warp_batch", "warp_desc_size"]

_ITEMS = 4  # runs of 8 pixels (warp) or pixels (paste) per thread
_RUN = 8  # consecutive output pixels of a warp thread (``DALI_RUN``)

_WARP = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("in_frame", "<i8"),
        ("out_frame", "<i8"),
        ("frames", "<i4"),
        ("channels", "<i4"),
        ("in_d", "<i4"),
        ("in_h", "<i4"),
        ("in_w", "<i4"),
        ("out_d", "<i4"),
        ("out_h", "<i4"),
        ("out_w", "<i4"),
        ("m", "<f4", (12,)),
    ],
    align=True,
)

_PASTE = np.dtype(
    [
        ("input", "<u8"),
        ("output", "<u8"),
        ("h", "<i4"),
        ("w", "<i4"),
        ("c", "<i4"),
        ("canvas_h", "<i4"),
        ("canvas_w", "<i4"),
        ("y", "<i4"),
        ("x", "<i4"),
        ("pad", "<i4"),
    ],
    align=True,
)

assert (_WARP.itemsize, _PASTE.itemsize) == (112, 48)

_warp_source = r"""
struct dali_warp_desc {
  const void* in;
  void* out;
  i64 in_frame, out_frame;  // elements per frame
  int frames, channels;
  int in_d, in_h, in_w;     // in_d = out_d = 1 for images
  int out_d, out_h, out_w;
  float m[12];              // nsp x (nsp + 1), row-major: destination -> source
};
static_assert(sizeof(dali_warp_desc) == 112, "dali_warp_desc");

template <typename In>
__device__ __forceinline__ float dali_tap(const In* in, int z, int y, int x, const dali_warp_desc& d,
                                          int c, bool use_fill, In fill) {
  const int C = d.channels;
  if (use_fill && (z < 0 || z >= d.in_d || y < 0 || y >= d.in_h || x < 0 || x >= d.in_w))
    return dali_to_float(fill);
  z = dali_clamp(z, 0, d.in_d - 1);
  y = dali_clamp(y, 0, d.in_h - 1);
  x = dali_clamp(x, 0, d.in_w - 1);
  return dali_to_float(in[(((i64)z * d.in_h + y) * d.in_w + x) * C + c]);
}

__device__ __forceinline__ int dali_floor_int(float v) {
  return (int)fminf(fmaxf(floorf(v), -1e9f), 1e9f);
}

template <typename In, typename Out>
__device__ __forceinline__ void dali_warp_pixel(const In* in, Out* out, const dali_warp_desc& d,
                                                const float* pos, int nsp, int linear,
                                                bool use_fill, In fill) {
  const int C = d.channels;
  if (!linear) {
    const int ix = dali_floor_int(pos[0]), iy = dali_floor_int(pos[1]);
    const int iz = nsp == 3 ? dali_floor_int(pos[2]) : 0;
    const bool inside = ix >= 0 && ix < d.in_w && iy >= 0 && iy < d.in_h && iz >= 0 &&
                        iz < d.in_d;
    const In* px = in + (((i64)dali_clamp(iz, 0, d.in_d - 1) * d.in_h +
                          dali_clamp(iy, 0, d.in_h - 1)) * d.in_w +
                         dali_clamp(ix, 0, d.in_w - 1)) * C;
    for (int c = 0; c < C; c++) {
      const In v = (use_fill && !inside) ? fill : px[c];
      if (dali_same<In, Out>::value) out[c] = *(const Out*)&v;
      else out[c] = dali_round_even<Out>(dali_to_float(v));
    }
    return;
  }
  // bilinear (trilinear): taps around pos - 0.5, blended in the CPU's float32 order
  float q3[3] = {0.f, 0.f, 0.f};
  int lo[3] = {0, 0, 0};
  for (int r = 0; r < nsp; r++) {
    const float p = __fsub_rn(pos[r], 0.5f);
    lo[r] = dali_floor_int(p);
    q3[r] = __fsub_rn(p, floorf(p));
  }
  const float qx = q3[0], qy = q3[1];
  const float px_ = __fsub_rn(1.f, qx);
  for (int c = 0; c < C; c++) {
    float res;
    if (nsp == 2) {
      const float t00 = dali_tap(in, 0, lo[1], lo[0], d, c, use_fill, fill);
      const float t01 = dali_tap(in, 0, lo[1], lo[0] + 1, d, c, use_fill, fill);
      const float t10 = dali_tap(in, 0, lo[1] + 1, lo[0], d, c, use_fill, fill);
      const float t11 = dali_tap(in, 0, lo[1] + 1, lo[0] + 1, d, c, use_fill, fill);
      const float s0 = __fadd_rn(__fmul_rn(t00, px_), __fmul_rn(t01, qx));
      const float s1 = __fadd_rn(__fmul_rn(t10, px_), __fmul_rn(t11, qx));
      res = __fadd_rn(s0, __fmul_rn(__fsub_rn(s1, s0), qy));
    } else {
      const float qz = q3[2];
      const float py = __fsub_rn(1.f, qy);
      float sv[4];
      for (int zy = 0; zy < 4; zy++) {
        const int zz = lo[2] + (zy >> 1), yy = lo[1] + (zy & 1);
        const float a = dali_tap(in, zz, yy, lo[0], d, c, use_fill, fill);
        const float b = dali_tap(in, zz, yy, lo[0] + 1, d, c, use_fill, fill);
        sv[zy] = __fadd_rn(__fmul_rn(a, px_), __fmul_rn(b, qx));
      }
      const float s0 = __fadd_rn(__fmul_rn(sv[0], py), __fmul_rn(sv[1], qy));
      const float s1 = __fadd_rn(__fmul_rn(sv[2], py), __fmul_rn(sv[3], qy));
      res = __fadd_rn(s0, __fmul_rn(__fsub_rn(s1, s0), qz));
    }
    out[c] = dali_round_even<Out>(res);
  }
}

// A thread makes runs of DALI_RUN consecutive pixels of a row: the source coordinates are
// stepped along x in float32 exactly as the CPU kernel steps them (from a checkpoint every 256
// pixels; DALI_RUN divides 256, so a run never crosses one), and the stepping is shared.
#define DALI_RUN 8
template <typename In, typename Out>
__global__ void dali_warp(const dali_warp_desc* __restrict__ descs,
                          const int* __restrict__ block_start, int nsamples, int nsp, int linear,
                          int use_fill, float fill_value, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_warp_desc& d = descs[s];
  const int runs_per_row = (d.out_w + DALI_RUN - 1) / DALI_RUN;
  const i64 nruns = (i64)d.frames * d.out_d * d.out_h * runs_per_row;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  const In fill = dali_round_even<In>(fill_value);  // the host rounded it to the input type
  const int C = d.channels;
  for (int it = 0; it < items; it++) {
    const i64 run = first + (i64)it * blockDim.x + threadIdx.x;
    if (run >= nruns) return;
    const int x0 = (int)(run % runs_per_row) * DALI_RUN;
    i64 q = run / runs_per_row;
    const int y = (int)(q % d.out_h);
    q /= d.out_h;
    const int z = (int)(q % d.out_d);
    const int f = (int)(q / d.out_d);
    // source coordinates (x, y[, z]) of pixel x0, as `warp_affine.source_coords` computes them
    float pos[3] = {0.f, 0.f, 0.f};
    float step[3] = {0.f, 0.f, 0.f};
    for (int r = 0; r < nsp; r++) {
      const float* mr = d.m + r * (nsp + 1);
      float v = __fmul_rn(mr[0], 0.5f);
      v = __fadd_rn(v, __fmul_rn(mr[1], __fadd_rn((float)y, 0.5f)));
      if (nsp == 3) v = __fadd_rn(v, __fmul_rn(mr[2], __fadd_rn((float)z, 0.5f)));
      v = __fadd_rn(v, mr[nsp]);
      step[r] = mr[0];
      const float tile_step = __fmul_rn(256.f, step[r]);
      for (int t = 0; t < x0 / 256; t++) v = __fadd_rn(v, tile_step);
      for (int k = 0; k < x0 % 256; k++) v = __fadd_rn(v, step[r]);
      pos[r] = v;
    }
    const In* in = (const In*)d.in + f * d.in_frame;
    Out* out = (Out*)d.out + f * d.out_frame + (((i64)z * d.out_h + y) * d.out_w + x0) * C;
    const int n = min(DALI_RUN, d.out_w - x0);
    for (int k = 0; k < n; k++) {
      if (k)
        for (int r = 0; r < nsp; r++) pos[r] = __fadd_rn(pos[r], step[r]);
      dali_warp_pixel<In, Out>(in, out + k * C, d, pos, nsp, linear, use_fill != 0, fill);
    }
  }
}

struct dali_paste_desc {
  const unsigned char* in;
  unsigned char* out;
  int h, w, c, canvas_h, canvas_w, y, x, pad;
};
static_assert(sizeof(dali_paste_desc) == 48, "dali_paste_desc");

extern "C" __global__ void dali_paste(const dali_paste_desc* __restrict__ descs,
                                      const int* __restrict__ block_start, int nsamples,
                                      const unsigned char* __restrict__ fill, int items) {
  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_paste_desc& d = descs[s];
  const i64 npix = (i64)d.canvas_h * d.canvas_w;
  const i64 first = (i64)(blockIdx.x - block_start[s]) * blockDim.x * items;
  const int C = d.c;
  for (int it = 0; it < items; it++) {
    const i64 e = first + (i64)it * blockDim.x + threadIdx.x;
    if (e >= npix) return;
    const int sx = (int)(e % d.canvas_w) - d.x;
    const int sy = (int)(e / d.canvas_w) - d.y;
    unsigned char* out = d.out + e * C;
    if (sy >= 0 && sy < d.h && sx >= 0 && sx < d.w) {
      const unsigned char* src = d.in + ((i64)sy * d.w + sx) * C;
      for (int c = 0; c < C; c++) out[c] = src[c];
    } else {
      for (int c = 0; c < C; c++) out[c] = fill[c];
    }
  }
}
"""


def warp_desc_size() -> int:
    """Bytes of one sample's description in ``dali_warp`` (checked against the CUDA struct)."""
    return _WARP.itemsize


def _kernel(name: str) -> Any:
    names = (name,)
    return G.kernel_module(G.device_id(), _warp_source, names)[name]


def warp_batch(
    tl: Any,
    matrices: Sequence[np.ndarray],
    out_shapes: Sequence[Sequence[int]],
    *,
    nsp: int,
    frames: bool,
    interp: int,
    fill: float | None,
    out_dtype: Any,
    layout: str,
) -> Any:
    """Warp every sample of a TensorListGPU (``HWC``, ``FHWC``, ``DHWC``, ``FDHWC``).

    Args:
        tl: The input batch.
        matrices: Per sample, the ``nsp × (nsp + 1)`` destination→source matrix.
        out_shapes: Per sample, the output spatial shape (``(H, W)`` or ``(D, H, W)``).
        nsp: 2 (images) or 3 (volumes).
        frames: Whether the samples have a leading ``F`` axis (one matrix for all frames).
        interp: 0 (NN) or 1 (LINEAR).
        fill: The value outside the input, or None to replicate the border.
        out_dtype: The output numpy dtype.
        layout: The output layout.

    Returns:
        A `TensorListGPU`; nothing waits for the GPU.

    Raises:
        ValueError: An empty sample would have to fill a non-empty output.
    """
    from dali._ops.image.warp_affine import convert_sat

    out_dtype = np.dtype(out_dtype)
    in_dtype = np.dtype(tl.np_dtype)
    shapes, in_ptrs, keep = G.input_pointers(tl)
    first = 1 if frames else 0
    full_out = []
    for i, shape in enumerate(shapes):
        f = shape[:first]
        full_out.append((*f, *(int(v) for v in out_shapes[i]), shape[-1]))
    flat, out_ptrs = G.alloc_outputs(full_out, out_dtype)
    result = G.make_output(flat, full_out, layout, out_dtype, tl.sample_ndim)
    rows = []
    blocks = []
    empty = (0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, (0.0,) * 12)
    for i, (shape, src, dst) in enumerate(zip(shapes, in_ptrs.tolist(), out_ptrs.tolist())):
        sp_in = list(shape[first : first + nsp])
        sp_out = [int(v) for v in out_shapes[i]]
        nframes = shape[0] if frames else 1
        channels = shape[-1]
        if nframes * math.prod(sp_out) == 0 or channels == 0:
            rows.append(empty)
            blocks.append(0)
            continue
        if math.prod(sp_in) == 0:
            raise ValueError(f"sample {i}: cannot warp an empty image to a non-empty output")
        if nsp == 2:
            sp_in, sp_out = [1, *sp_in], [1, *sp_out]
        m = np.zeros(12, dtype=np.float32)
        flat_m = np.asarray(matrices[i], dtype=np.float32).reshape(-1)
        m[: flat_m.size] = flat_m
        rows.append(
            (src, dst, math.prod(sp_in) * channels, math.prod(sp_out) * channels, nframes,
             channels, *sp_in, *sp_out, tuple(m.tolist()))
        )  # fmt: skip
        runs = nframes * sp_out[0] * sp_out[1] * -(-sp_out[2] // _RUN)
        blocks.append(-(-runs // (G.BLOCK * _ITEMS)))
    desc = np.array(rows, dtype=_WARP)
    starts, total = G.block_starts(blocks)
    if not total:
        return result
    fill_value = 0.0
    if fill is not None:  # the fill pixel in the input type, as the CPU kernel makes it
        fill_value = float(convert_sat(np.full(1, fill, dtype=np.float64), in_dtype)[0])
    d_desc, d_starts = G.upload(desc, starts)
    name = f"dali_warp<{G.c_type(in_dtype)}, {G.c_type(out_dtype)}>"
    _kernel(name)(
        (total,),
        (G.BLOCK,),
        (d_desc, d_starts, np.int32(len(rows)), np.int32(nsp), np.int32(interp),
         np.int32(fill is not None), np.float32(fill_value), np.int32(_ITEMS)),
    )  # fmt: skip
    del keep
    return result


def paste_batch(tl: Any, geometry: np.ndarray, fill: np.ndarray) -> Any:
    """Paste every uint8 HWC sample onto its canvas.

    Args:
        tl: The input batch (uint8, HWC).
        geometry: int ``[n, 4]``: per sample ``(canvas_h, canvas_w, y, x)`` (see
            `paste.paste_geometries`).
        fill: The canvas colour, one uint8 per channel.

    Returns:
        A `TensorListGPU` of the canvases; nothing waits for the GPU.
    """
    shapes, shape_arr, in_ptrs, keep = G.input_batch(tl)
    n = len(shapes)
    geometry = np.asarray(geometry, np.int64).reshape(n, 4)
    out_arr = np.stack([geometry[:, 0], geometry[:, 1], shape_arr[:, 2]], axis=1)
    out_shapes = [tuple(s) for s in out_arr.tolist()]
    flat, out_ptrs = G.alloc_outputs(out_shapes, np.uint8)
    result = G.make_output(flat, out_shapes, "HWC", np.uint8, 3)
    desc = gil.zeros(n, _PASTE)
    desc["input"], desc["output"] = in_ptrs, out_ptrs
    for k, name in enumerate(("h", "w", "c")):
        desc[name] = shape_arr[:, k]
    for k, name in enumerate(("canvas_h", "canvas_w", "y", "x")):
        desc[name] = geometry[:, k]
    blocks = -(-(geometry[:, 0] * geometry[:, 1]) // (G.BLOCK * _ITEMS))
    starts, total = G.block_starts(blocks)
    if not total:
        return result
    d_desc, d_starts, d_fill = G.upload(desc, starts, np.asarray(fill, dtype=np.uint8))
    _kernel("dali_paste")(
        (total,),
        (G.BLOCK,),
        (d_desc, d_starts, np.int32(n), d_fill, np.int32(_ITEMS)),
    )
    del keep
    return result
