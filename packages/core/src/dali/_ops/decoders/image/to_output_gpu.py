"""`_codecs.to_output` on the GPU: decoded uint8 RGB/gray to the decoder's output, one launch.

nvImageCodec decodes into uint8 interleaved RGB (or gray); when the operator asks for another
type, colour space (YCbCr, BGR) or a padded window, one kernel launch per batch converts every
sample into its place in the output (`convert_kernel`), with DALI's ``ConvertSatNorm``
rounding (`conversion`) and ITU-R BT.601 coefficients (`ycc_coefficients`), exactly as the
CPU backend's `_codecs.to_output` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._ops.decoders.image import codecs as _codecs

__all__ = ["MODES", "TABLE_COLS", "conversion", "convert_kernel", "ycc_coefficients"]

_CTYPES = {
    "uint8": "unsigned char",
    "int8": "signed char",
    "uint16": "unsigned short",
    "int16": "short",
    "uint32": "unsigned int",
    "int32": "int",
    "float32": "float",
}

_KERNEL_SOURCE = r"""
typedef __CTYPE__ T;
#define CONV __CONV__
#define UNSIGNED_OUT __UNSIGNED__
#define FLOAT_OUT __FLOAT_OUT__

// DALI's ConvertSat from float: round half away from zero (in double, exact), saturate.
__device__ __forceinline__ T dali_round_sat(double y) {
#if UNSIGNED_OUT
    y = floor(y + 0.5);
#else
    y = trunc(y + copysign(0.5, y));
#endif
    return (T)fmin(fmax(y, __LO__), __HI__);
}

// DALI's ConvertSatNorm of a uint8 value, as _codecs.convert_dtype computes it.
__device__ __forceinline__ T dali_cvt(unsigned char v, float factor) {
#if CONV == 0
    return (T)v;
#elif CONV == 1
    return (T)__fmul_rn((float)v, factor);
#elif CONV == 2
    return (T)((unsigned int)v * (unsigned int)factor);
#else
    return dali_round_sat((double)__fmul_rn((float)v, factor));
#endif
}

// One block row per sample (blockIdx.y); the table holds 12 int64 per sample:
// src pointer, src row pitch (bytes), src channels, dst offset (elements), out h, w, c,
// the decoded part's y, x, h, w inside the output (the rest is padding), src pixel stride.
extern "C" __global__ void __NAME__(
        const long long* __restrict__ table, T* __restrict__ out,
        const T* __restrict__ fill, const float* __restrict__ ycc, int mode, float factor) {
    const long long* p = table + 12LL * blockIdx.y;
    const unsigned char* src = (const unsigned char*)p[0];
    const long long pitch = p[1];
    const int sc = (int)p[2];
    T* dst = out + p[3];
    const int ow = (int)p[5], oc = (int)p[6];
    const int iy = (int)p[7], ix = (int)p[8], ih = (int)p[9], iw = (int)p[10];
    const int px = (int)p[11];
    const long long npix = p[4] * (long long)ow;
    const T* f = oc == 1 ? fill : fill + 1;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < npix;
         q += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(q / ow);
        const int x = (int)(q - (long long)y * ow);
        T* o = dst + q * oc;
        const int sy = y - iy, sx = x - ix;
        if (sy < 0 || sx < 0 || sy >= ih || sx >= iw) {
            for (int c = 0; c < oc; ++c) o[c] = f[c];
            continue;
        }
        const unsigned char* s = src + sy * pitch + (long long)sx * px;
        if (oc == 1) {
            o[0] = dali_cvt(s[0], factor);
            continue;
        }
        const unsigned char r = s[0], g = s[sc > 1 ? 1 : 0], b = s[sc > 2 ? 2 : 0];
        if (mode == 1) {  // BGR
            o[0] = dali_cvt(b, factor);
            o[1] = dali_cvt(g, factor);
            o[2] = dali_cvt(r, factor);
        } else if (mode == 2) {  // BT.601 YCbCr of the converted RGB, float32 step by step
            const float fr = (float)dali_cvt(r, factor);
            const float fg = (float)dali_cvt(g, factor);
            const float fb = (float)dali_cvt(b, factor);
            for (int k = 0; k < 3; ++k) {
                const float* cf = ycc + 4 * k;
                float v = __fadd_rn(__fmul_rn(fr, cf[0]), __fmul_rn(fg, cf[1]));
                v = __fadd_rn(__fadd_rn(v, __fmul_rn(fb, cf[2])), cf[3]);
#if FLOAT_OUT
                o[k] = (T)v;
#else
                o[k] = dali_round_sat((double)v);
#endif
            }
        } else {
            o[0] = dali_cvt(r, factor);
            o[1] = dali_cvt(g, factor);
            o[2] = dali_cvt(b, factor);
        }
    }
}
"""

#: int64 columns of a sample's row in the kernel's table (see the kernel source)
TABLE_COLS = 12
#: the kernel's colour mode for each ``output_type``
MODES = {"RGB": 0, "ANY_DATA": 0, "GRAY": 0, "BGR": 1, "YCbCr": 2}


def conversion(dtype: np.dtype) -> tuple[int, np.float32]:
    """``(kind, factor)`` of uint8 → ``dtype`` exactly as `_codecs.convert_dtype` does it.

    Kinds: 0 copy, 1 float (``v * factor``), 2 exact integer multiply, 3 float32 multiply then
    round and saturate.
    """
    if dtype == np.uint8:
        return 0, np.float32(1)
    src_max = _codecs.max_value(np.dtype(np.uint8))
    if dtype.kind == "f":
        return 1, np.float32(1) / np.float32(src_max)
    factor = np.float32(np.float32(_codecs.max_value(dtype)) / np.float32(src_max))
    if factor.is_integer() and src_max * float(factor) < 2**24:
        return 2, factor
    return 3, factor


def ycc_coefficients(dtype: np.dtype) -> np.ndarray:
    """The 3×4 float32 BT.601 coefficients `_codecs.rgb_to_ycbcr` uses for ``dtype``."""
    if dtype.kind == "f":
        bias_scale = 1.0
    else:
        info = np.iinfo(dtype)
        bias_scale = 2.0 * 2.0 ** (info.bits - 1 - (info.min < 0))
    coeffs = [
        (np.float32(a), np.float32(b), np.float32(c), np.float32(d * bias_scale))
        for a, b, c, d in _codecs.YCC_EXACT
    ]
    return np.asarray(coeffs, dtype=np.float32).reshape(-1)


_kernels: dict[str, Any] = {}


def convert_kernel(dtype: np.dtype) -> Any:
    """The conversion kernel for ``dtype`` (compiled once per type; CuPy caches per device)."""
    kern = _kernels.get(dtype.name)
    if kern is None:
        import cupy as cp

        kind, _ = conversion(dtype)
        if dtype.kind == "f":
            lo, hi = "0.0", "0.0"
        else:
            info = np.iinfo(dtype)
            lo, hi = f"{float(info.min)!r}", f"{float(info.max)!r}"
        name = f"dali_decoder_convert_{dtype.name}"
        src = (
            _KERNEL_SOURCE.replace("__CTYPE__", _CTYPES[dtype.name])
            .replace("__CONV__", str(kind))
            .replace("__UNSIGNED__", "1" if dtype.kind == "u" else "0")
            .replace("__FLOAT_OUT__", "1" if dtype.kind == "f" else "0")
            .replace("__LO__", lo)
            .replace("__HI__", hi)
            .replace("__NAME__", name)
        )
        kern = cp.RawKernel(src, name, options=("--std=c++11",))
        _kernels[dtype.name] = kern
    return kern
