"""DALI's saturating conversions in CUDA: the device twin of `dali._ops.numeric.convert_sat`.

`CONVERT` is CUDA source appended to `dali._ops.gpu.kernels.PRELUDE` by the kernels that convert element
types (`window.extract_gpu`: crop, crop_mirror_normalize, flip; `_color_gpu`: the colour
operators).
``dali_convert<Out, TRUNC>(v)`` converts one element exactly as ``convert_sat`` does on the host:

* float → integer: rounded half away from zero (``TRUNC``: truncated toward zero, what DALI's
  crop and slice kernels do), then saturated; NaN becomes the type's minimum for signed types and
  0 for unsigned ones (``fmax(NaN, lo)`` is ``lo``); float16 goes through float32 first;
* integer → integer: clamped to the target range;
* → float16: round to nearest even (overflow gives inf), from double directly (no double
  rounding through float32), as numpy's ``astype``;
* → float/double: C's conversions (round to nearest), as numpy's ``astype``.

The float paths keep the source's precision: a double is rounded and clamped as a double.

Example:
    >>> "dali_convert" in CONVERT
    True
"""

from __future__ import annotations

__all__ = ["CONVERT"]

#: CUDA source (after `dali._ops.gpu.kernels.PRELUDE`): element traits and ``dali_convert``.
CONVERT = r"""
// float64 -> float16 bits in one rounding (numpy's astype does not go through float32)
__device__ __forceinline__ unsigned short dali_double_to_half(double v) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  unsigned short h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(v));
  return h;
#else
  return dali_emu_double_to_half(v);
#endif
}

template <typename T> struct dali_traits;
#define DALI_INT_TRAITS(T, SIGNED, LO, HI)                                       \
  template <> struct dali_traits<T> {                                            \
    static constexpr bool is_float = false;                                      \
    static constexpr bool is_signed = SIGNED;                                    \
    static constexpr long long lo = LO;                                          \
    static constexpr unsigned long long hi = HI;                                 \
  };
DALI_INT_TRAITS(bool, false, 0, 1ull)
DALI_INT_TRAITS(unsigned char, false, 0, 255ull)
DALI_INT_TRAITS(signed char, true, -128, 127ull)
DALI_INT_TRAITS(unsigned short, false, 0, 65535ull)
DALI_INT_TRAITS(short, true, -32768, 32767ull)
DALI_INT_TRAITS(unsigned int, false, 0, 4294967295ull)
DALI_INT_TRAITS(int, true, -2147483647ll - 1, 2147483647ull)
DALI_INT_TRAITS(unsigned long long, false, 0, 18446744073709551615ull)
DALI_INT_TRAITS(long long, true, -9223372036854775807ll - 1, 9223372036854775807ull)
#define DALI_FLOAT_TRAITS(T)                                                     \
  template <> struct dali_traits<T> {                                            \
    static constexpr bool is_float = true;                                       \
    static constexpr bool is_signed = true;                                      \
  };
DALI_FLOAT_TRAITS(dali_half)
DALI_FLOAT_TRAITS(float)
DALI_FLOAT_TRAITS(double)

__device__ __forceinline__ float dali_round_mode(float v, bool trunc) {
  return trunc ? truncf(v) : roundf(v);  // roundf: halves away from zero
}
__device__ __forceinline__ double dali_round_mode(double v, bool trunc) {
  return trunc ? ::trunc(v) : ::round(v);
}
__device__ __forceinline__ float dali_fclamp(float v, float lo, float hi) {
  return fminf(fmaxf(v, lo), hi);  // NaN -> lo
}
__device__ __forceinline__ double dali_fclamp(double v, double lo, double hi) {
  return fmin(fmax(v, lo), hi);
}

// float or double -> integer: round (or truncate), then saturate. The bounds are integers, so
// clamping after rounding equals the host's clamping before; a bound that rounds up in the
// float type (2^31 for INT32 in float32) is saturated by the conversion instruction itself.
template <typename Out, bool TRUNC, typename F>
__device__ __forceinline__ Out dali_float_to_int(F v) {
  const F r = dali_round_mode(v, TRUNC);
  return (Out)dali_fclamp(r, (F)dali_traits<Out>::lo, (F)dali_traits<Out>::hi);
}

template <typename Out, typename In>
__device__ __forceinline__ Out dali_int_to_int(In v) {
  if constexpr (dali_same<In, bool>::value) {
    return (Out)(v ? 1 : 0);
  } else {
    if constexpr (dali_traits<In>::is_signed) {
      if ((long long)v < dali_traits<Out>::lo) return (Out)dali_traits<Out>::lo;
    }
    if (v > 0 && (unsigned long long)v > dali_traits<Out>::hi) return (Out)dali_traits<Out>::hi;
    return (Out)v;
  }
}

// One element, converted as `convert_sat(xp, v, Out, truncate=TRUNC)`.
template <typename Out, bool TRUNC, typename In>
__device__ __forceinline__ Out dali_convert(In v) {
  if constexpr (dali_same<In, Out>::value) {
    return v;
  } else if constexpr (dali_same<Out, dali_half>::value) {
    dali_half h;
    if constexpr (dali_same<In, double>::value) h.bits = dali_double_to_half(v);
    else h.bits = dali_float_to_half(dali_to_float(v));
    return h;
  } else if constexpr (dali_same<Out, bool>::value) {
    if constexpr (dali_traits<In>::is_float) {
      if constexpr (dali_same<In, double>::value) return dali_round_mode(v, TRUNC) != 0.0;
      else return dali_round_mode(dali_to_float(v), TRUNC) != 0.f;  // NaN -> true
    } else {
      return v != 0;
    }
  } else if constexpr (dali_traits<Out>::is_float) {
    if constexpr (dali_same<In, dali_half>::value) return (Out)dali_half_to_float(v.bits);
    else return (Out)v;
  } else if constexpr (dali_traits<In>::is_float) {
    if constexpr (dali_same<In, double>::value) return dali_float_to_int<Out, TRUNC>(v);
    else return dali_float_to_int<Out, TRUNC>(dali_to_float(v));
  } else {
    return dali_int_to_int<Out>(v);
  }
}
"""
