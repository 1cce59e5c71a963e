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
a Numba kernel that converts a batch of frames per call with the GIL released, reading the
decoder's planes in place and writing into the output (`i420_frames_to_rgb`, `_color_jit`;
0.55 ms a 720p frame on one core; numpy when Numba is missing, `i420_to_rgb_numpy`, twenty
times slower) — in float32 with the products and sums done one at a time in the same order (the
CUDA source uses ``__fmul_rn``/``__fadd_rn`` so that the compiler cannot fuse them) and rounding
half to even (``__float2int_rn`` in DALI's kernel), so that a frame decoded on the CPU and on the
GPU gives the same bytes: the bitstream decode itself is exact by the codec standards. The
chroma interpolation is exact in float32 (weights are multiples of 1/16 of integers below 256),
so the CPU kernel does it in integers.

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
    "i420_frames_to_rgb",
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
    """An HWC uint8 frame from the planes of a 4:2:0 frame (CPU backend), into ``out`` if given.

    Raises:
        ValueError: the chroma planes are not ``ceil(H/2) x ceil(W/2)``, or ``out`` is not
            ``H x W x 3``.
    """
    h, w = y.shape
    if u.shape != ((h + 1) // 2, (w + 1) // 2) or v.shape != u.shape:
        raise ValueError(f"chroma planes {u.shape} and {v.shape} of a {h}x{w} 4:2:0 frame")
    if out is None:
        out = np.empty((h, w, 3), np.uint8)
    elif out.shape != (h, w, 3):
        raise ValueError(f"output {out.shape} for a {h}x{w} frame")
    conversion = "ycbcr" if ycbcr else "rgb_full" if full_range else "rgb"
    if _jit_kernel() is None:
        out[...] = i420_to_rgb_numpy(y, u, v, full_range=full_range, ycbcr=ycbcr)
        return out
    planes = [_unit_rows(p) for p in (y, u, v)]
    table = np.array([[p.ctypes.data, _pitch(p)] for p in planes], np.int64).reshape(1, 6)
    target = out if out.flags.c_contiguous else np.empty((h, w, 3), np.uint8)
    i420_frames_to_rgb(table, conversion, target[None])
    if target is not out:
        out[...] = target
    return out


def i420_frames_to_rgb(
    planes: np.ndarray, conversion: str, out: np.ndarray, dest: np.ndarray | None = None
) -> None:
    """Decoded frames, given by the addresses of their planes, into their places of ``out``.

    The batch form of `i420_to_rgb` for a decoder: one call converts many frames with the GIL
    released, reading each frame's planes where the decoder keeps them (no copy, no array
    object per frame) and writing straight into the output.

    Args:
        planes: int64 ``(N, 6)``: the address and row pitch (bytes, at least the row's width)
            of the Y, U and V planes of each frame (``H x W`` and ``ceil(H/2) x ceil(W/2)``
            uint8 samples). The memory must stay valid until the call returns: the caller
            holds the frames.
        conversion: one of `CONVERSIONS`.
        out: uint8 ``(M, H, W, 3)``, C-contiguous.
        dest: int64 ``(N,)``, the place in ``out`` of each frame; by default frame ``i`` goes
            to ``out[i]``.
    """
    n = len(planes)
    dest = np.arange(n, dtype=np.int64) if dest is None else np.asarray(dest, np.int64)
    if not out.flags.c_contiguous or out.dtype != np.uint8 or out.ndim != 4:
        raise ValueError("the output must be a C-contiguous uint8 (M, H, W, 3) array")
    if n == 0:
        return
    places = dest.tolist()  # (checked in Python: numpy's reductions cost more on a few values)
    if dest.shape != (n,) or min(places) < 0 or max(places) >= len(out):
        raise ValueError(f"{n} frames to places {places} of {len(out)}")
    mode = _MODES[conversion]
    m, h, w, _ = out.shape
    kernel = _jit_kernel()
    if kernel is not None:
        kernel(np.ascontiguousarray(planes, np.int64), mode, out.reshape(m, h, w * 3), dest)
        return
    ch, cw = (h + 1) // 2, (w + 1) // 2
    for row, k in zip(np.asarray(planes).tolist(), places):
        y, u, v = (
            _at(row[2 * p], row[2 * p + 1], rows, cols)
            for p, (rows, cols) in enumerate([(h, w), (ch, cw), (ch, cw)])
        )
        out[k] = i420_to_rgb_numpy(
            y, u, v, full_range=conversion == "rgb_full", ycbcr=conversion == "ycbcr"
        )


def _unit_rows(plane: np.ndarray) -> np.ndarray:
    """``plane`` with contiguous rows in increasing memory order (a copy when it has not)."""
    if plane.strides[1] == 1 and (plane.shape[0] == 1 or plane.strides[0] >= plane.shape[1]):
        return plane
    return np.ascontiguousarray(plane)


def _pitch(plane: np.ndarray) -> int:
    return int(plane.strides[0]) if plane.shape[0] > 1 else int(plane.shape[1])


def _at(address: int, pitch: int, rows: int, cols: int) -> np.ndarray:
    """The ``rows x cols`` uint8 plane at ``address`` (without Numba: a view through ctypes)."""
    import ctypes

    buffer = (ctypes.c_uint8 * (pitch * (rows - 1) + cols)).from_address(address)
    base = np.frombuffer(memoryview(buffer), np.uint8)
    return np.lib.stride_tricks.as_strided(base, (rows, cols), (pitch, 1))


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
    """The compiled `_color_jit.frames_to_rgb`, or None without Numba."""
    try:
        from dali._ops.video import _color_jit
    except ImportError:  # pragma: no cover - Numba is a default dependency where it installs
        return None
    return _color_jit.frames_to_rgb


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
