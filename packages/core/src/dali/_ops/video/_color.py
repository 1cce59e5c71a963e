"""Decoded video frames (4:2:0 YUV) to RGB, with the same arithmetic on the CPU and the GPU.

Video decoders hand out 4:2:0 YUV: planar I420 from FFmpeg (PyAV), NV12 from NVDEC. DALI's
video operators convert it with one CUDA kernel (``dali/operators/video/color_space.cu``):

* luma is taken as is; chroma is sampled bilinearly at the position of each output pixel,
  chroma samples being centred on their 2x2 block (weights 3/4 and 1/4 in each axis, edges
  clamped), and rounded to uint8;
* then ITU-R BT.601 limited range (``Y' = 16..235``; ``1.164 (Y - 16) + 1.596 (Cr - 128)``...)
  or, for full-range ("JPEG", ``yuvj``) streams, the JPEG formulas;
* ``image_type=YCbCr`` keeps the upsampled YUV.

Both backends here implement exactly that — the GPU with one CuPy kernel per batch, the CPU with
a Numba kernel per frame that releases the GIL (`i420_to_rgb`; numpy when Numba is missing,
`i420_to_rgb_numpy`, ten times slower; ~4 ms per 720p frame with Numba on one core) — in float32 with the products and sums done one at a
time in the same order (the CUDA source uses ``__fmul_rn``/``__fadd_rn`` so that the compiler
cannot fuse them) and rounding half to even (``__float2int_rn`` in DALI's kernel), so that a
frame decoded on the CPU and on the GPU gives the same bytes: the bitstream decode itself is
exact by the codec standards. The chroma interpolation is exact in float32 (weights are
multiples of 1/16 of integers below 256).

Example:
    >>> import numpy as np
    >>> y = np.full((2, 2), 235, np.uint8); u = v = np.full((1, 1), 128, np.uint8)
    >>> i420_to_rgb(y, u, v, full_range=False)[0, 0].tolist()
    [255, 255, 255]
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = [
    "CONVERSIONS",
    "i420_to_rgb",
    "i420_to_rgb_numpy",
    "nv12_batch_to_rgb",
    "upsample_chroma",
]

#: output colour spaces: "rgb" (BT.601 limited range), "rgb_full" (JPEG), "ycbcr" (upsampled)
CONVERSIONS = ("rgb", "rgb_full", "ycbcr")

_F = np.float32
_MODES = {"rgb": 0, "rgb_full": 1, "ycbcr": 2}


def _weights(n_out: int, n_chroma: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Indices and weights of the two chroma samples under each of ``n_out`` output pixels."""
    x = np.arange(n_out)
    half, odd = x // 2, x % 2
    lo = np.where(odd == 0, half - 1, half)
    hi = lo + 1
    w_hi = np.where(odd == 0, _F(0.75), _F(0.25)).astype(_F)
    w_lo = (_F(1) - w_hi).astype(_F)
    last = n_chroma - 1
    return np.clip(lo, 0, last), np.clip(hi, 0, last), w_lo, w_hi


def upsample_chroma(c: np.ndarray, height: int, width: int) -> np.ndarray:
    """One chroma plane (``ceil(H/2) x ceil(W/2)`` uint8) at full resolution, as DALI samples it."""
    y0, y1, wy0, wy1 = _weights(height, c.shape[0])
    x0, x1, wx0, wx1 = _weights(width, c.shape[1])
    cf = c.astype(_F)
    rows = cf[y0] * wy0[:, None] + cf[y1] * wy1[:, None]  # exact: multiples of 1/4
    full = rows[:, x0] * wx0[None, :] + rows[:, x1] * wx1[None, :]  # exact: multiples of 1/16
    return np.rint(full).astype(np.uint8)


def i420_to_rgb(
    y: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    *,
    full_range: bool,
    ycbcr: bool = False,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """An HWC uint8 frame from the planes of a 4:2:0 frame (CPU backend), into ``out`` if given."""
    if out is None:
        out = np.empty((*y.shape, 3), np.uint8)
    kernel = _jit_kernel()
    if kernel is None:
        out[...] = i420_to_rgb_numpy(y, u, v, full_range=full_range, ycbcr=ycbcr)
        return out
    kernel(y, u, v, _MODES["ycbcr" if ycbcr else "rgb_full" if full_range else "rgb"], out)
    return out


def i420_to_rgb_numpy(
    y: np.ndarray, u: np.ndarray, v: np.ndarray, *, full_range: bool, ycbcr: bool = False
) -> np.ndarray:
    """`i420_to_rgb` with numpy alone (the reference the kernels are tested against)."""
    h, w = y.shape
    cb = upsample_chroma(u, h, w)
    cr = upsample_chroma(v, h, w)
    if ycbcr:
        return np.stack([y, cb, cr], axis=-1)
    yf = y.astype(_F)
    tb = cb.astype(_F) - _F(128)
    tr = cr.astype(_F) - _F(128)
    if full_range:
        r = yf + _F(1.402) * tr
        g = (yf - _F(0.34413629) * tb) - _F(0.71413629) * tr
        b = yf + _F(1.772) * tb
    else:
        ty = _F(1.164) * (yf - _F(16))
        r = ty + _F(1.596) * tr
        g = (ty - _F(0.813) * tr) - _F(0.392) * tb
        b = ty + _F(2.017) * tb
    out = np.empty((h, w, 3), np.uint8)
    for k, plane in enumerate((r, g, b)):
        np.clip(np.rint(plane), 0, 255, out=plane)
        out[..., k] = plane
    return out


@functools.cache
def _jit_kernel() -> Any:
    """The Numba kernel of `i420_to_rgb`, or None without Numba."""
    try:
        import numba
    except ImportError:  # pragma: no cover - Numba is a default dependency where it installs
        return None

    f32 = np.float32
    # x + MAGIC - MAGIC is x rounded half to even (np.rint) for |x| < 2**22, in two float32
    # additions the compiler vectorises (np.rint is a call per value)
    magic = f32(12582912.0)

    @numba.njit(nogil=True, cache=True, error_model="numpy")
    def convert(y, u, v, mode, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        h, w = y.shape
        ch, cw = u.shape
        ru = np.empty(cw + 2, np.float32)  # one row of chroma, blended vertically; the two
        rv = np.empty(cw + 2, np.float32)  # extra entries repeat the edges (clamping)
        cb = np.empty(w, np.float32)
        cr = np.empty(w, np.float32)
        rr = np.empty(w, np.float32)  # one row of each channel before rounding
        gg = np.empty(w, np.float32)
        bb = np.empty(w, np.float32)
        half = w // 2
        q1, q3 = f32(0.25), f32(0.75)
        for r in range(h):
            y0 = (r >> 1) if r & 1 else (r >> 1) - 1
            wy1 = f32(0.25) if r & 1 else f32(0.75)
            wy0 = f32(1.0) - wy1
            ya = min(max(y0, 0), ch - 1)
            yb = min(max(y0 + 1, 0), ch - 1)
            for c in range(cw):
                ru[c + 1] = f32(u[ya, c]) * wy0 + f32(u[yb, c]) * wy1
                rv[c + 1] = f32(v[ya, c]) * wy0 + f32(v[yb, c]) * wy1
            ru[0], rv[0], ru[cw + 1], rv[cw + 1] = ru[1], rv[1], ru[cw], rv[cw]
            for k in range(half):  # pixel 2k: 1/4 of column k-1, 3/4 of k; 2k+1: 3/4 k, 1/4 k+1
                cb[2 * k] = (ru[k] * q1 + ru[k + 1] * q3 + magic) - magic
                cb[2 * k + 1] = (ru[k + 1] * q3 + ru[k + 2] * q1 + magic) - magic
                cr[2 * k] = (rv[k] * q1 + rv[k + 1] * q3 + magic) - magic
                cr[2 * k + 1] = (rv[k + 1] * q3 + rv[k + 2] * q1 + magic) - magic
            if w & 1:
                cb[w - 1] = (ru[half] * q1 + ru[half + 1] * q3 + magic) - magic
                cr[w - 1] = (rv[half] * q1 + rv[half + 1] * q3 + magic) - magic
            orow = out[r]
            yrow = y[r]
            if mode == 2:
                for x in range(w):
                    orow[x, 0] = yrow[x]
                    orow[x, 1] = np.uint8(cb[x])
                    orow[x, 2] = np.uint8(cr[x])
                continue
            if mode == 1:
                for x in range(w):
                    tb, tr, yy = cb[x] - f32(128), cr[x] - f32(128), f32(yrow[x])
                    rr[x] = yy + f32(1.402) * tr
                    gg[x] = (yy - f32(0.34413629) * tb) - f32(0.71413629) * tr
                    bb[x] = yy + f32(1.772) * tb
            else:
                for x in range(w):
                    tb, tr = cb[x] - f32(128), cr[x] - f32(128)
                    ty = f32(1.164) * (f32(yrow[x]) - f32(16))
                    rr[x] = ty + f32(1.596) * tr
                    gg[x] = (ty - f32(0.813) * tr) - f32(0.392) * tb
                    bb[x] = ty + f32(2.017) * tb
            for x in range(w):
                orow[x, 0] = np.uint8(min(max((rr[x] + magic) - magic, f32(0)), f32(255)))
                orow[x, 1] = np.uint8(min(max((gg[x] + magic) - magic, f32(0)), f32(255)))
                orow[x, 2] = np.uint8(min(max((bb[x] + magic) - magic, f32(0)), f32(255)))

    return convert


# -- GPU ----------------------------------------------------------------------------------------

_KERNEL = r"""
extern "C" __global__ void dali_nv12_to_rgb(
        const unsigned char* __restrict__ nv12, unsigned char* __restrict__ out,
        int frames, int height, int width, int pitch, int mode) {
    // one thread per output pixel of every frame of the batch (one launch per batch)
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long plane = (long long)height * width;
    if (i >= plane * frames) return;
    int f = (int)(i / plane);
    int rest = (int)(i - (long long)f * plane);
    int y = rest / width, x = rest - y * width;
    const unsigned char* frame = nv12 + (long long)f * pitch * (height + (height + 1) / 2);
    const unsigned char* uv = frame + (long long)pitch * height;
    int cw = (width + 1) / 2, ch = (height + 1) / 2;
    int hx = x >> 1, hy = y >> 1;
    int x0 = (x & 1) ? hx : hx - 1, y0 = (y & 1) ? hy : hy - 1;
    float wx1 = (x & 1) ? 0.25f : 0.75f, wy1 = (y & 1) ? 0.25f : 0.75f;
    float wx0 = 1.0f - wx1, wy0 = 1.0f - wy1;
    int xa = min(max(x0, 0), cw - 1), xb = min(max(x0 + 1, 0), cw - 1);
    int ya = min(max(y0, 0), ch - 1), yb = min(max(y0 + 1, 0), ch - 1);
    float c[2];
    for (int k = 0; k < 2; ++k) {
        float r0 = uv[ya * pitch + 2 * xa + k] * wy0 + uv[yb * pitch + 2 * xa + k] * wy1;
        float r1 = uv[ya * pitch + 2 * xb + k] * wy0 + uv[yb * pitch + 2 * xb + k] * wy1;
        c[k] = __float2int_rn(r0 * wx0 + r1 * wx1);  // exact sums: multiples of 1/16
    }
    float Y = frame[y * pitch + x];
    unsigned char* o = out + i * 3;
    if (mode == 2) {
        o[0] = (unsigned char)Y; o[1] = (unsigned char)c[0]; o[2] = (unsigned char)c[1];
        return;
    }
    float tb = c[0] - 128.0f, tr = c[1] - 128.0f, r, g, b;
    if (mode == 1) {
        r = __fadd_rn(Y, __fmul_rn(1.402f, tr));
        g = __fsub_rn(__fsub_rn(Y, __fmul_rn(0.34413629f, tb)), __fmul_rn(0.71413629f, tr));
        b = __fadd_rn(Y, __fmul_rn(1.772f, tb));
    } else {
        float ty = __fmul_rn(1.164f, Y - 16.0f);
        r = __fadd_rn(ty, __fmul_rn(1.596f, tr));
        g = __fsub_rn(__fsub_rn(ty, __fmul_rn(0.813f, tr)), __fmul_rn(0.392f, tb));
        b = __fadd_rn(ty, __fmul_rn(2.017f, tb));
    }
    o[0] = (unsigned char)min(max(__float2int_rn(r), 0), 255);
    o[1] = (unsigned char)min(max(__float2int_rn(g), 0), 255);
    o[2] = (unsigned char)min(max(__float2int_rn(b), 0), 255);
}
"""


@functools.cache
def _raw_kernel(device: int) -> Any:
    import cupy as cp

    del device  # one compiled kernel per device (CuPy caches the module per device)
    return cp.RawKernel(_KERNEL, "dali_nv12_to_rgb")


def nv12_batch_to_rgb(nv12: Any, height: int, width: int, conversion: str) -> Any:
    """``(N, H + ceil(H/2), pitch)`` uint8 NV12 frames on the GPU to ``(N, H, W, 3)``, one launch.

    ``nv12`` is a C-contiguous CuPy array; the kernel runs on CuPy's current stream.
    """
    import cupy as cp

    frames, _, pitch = nv12.shape
    out = cp.empty((frames, height, width, 3), cp.uint8)
    total = frames * height * width
    if total:
        kernel = _raw_kernel(cp.cuda.runtime.getDevice())
        block = 256
        grid = (total + block - 1) // block
        kernel(
            (grid,),
            (block,),
            (
                nv12,
                out,
                np.int32(frames),
                np.int32(height),
                np.int32(width),
                np.int32(pitch),
                np.int32(_MODES[conversion]),
            ),
        )
    return out
