"""The CPU resampling loops of `_resampling`, compiled with Numba (optional).

The same float32 operations in the same order as DALI's ``ResampleCPUImpl`` (and as the numpy
reference `_resampling.resample_numpy`, which the tests compare with this bit for bit): one
channel sums four taps at a time in four lanes, several channels tap by tap. Numba compiles
without ``fastmath``, so no multiply-add is fused and every intermediate is rounded to float32
as in DALI's SSE code. `kernel` is None when Numba is not installed.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dali._ops.audio._resampling import Window

__all__ = ["kernel", "resample"]


@functools.cache
def kernel() -> Any:
    """The compiled ``(mono, channels)`` kernels, or None without Numba."""
    try:
        import numba
    except ImportError:  # pragma: no cover - depends on the environment
        return None

    f32 = np.float32
    # unsigned indices: numba then skips the negative-index wraparound of every access
    u64 = np.uint64

    @numba.njit(nogil=True, cache=True, inline="always")
    def weight(lookup: Any, wscale: Any, wcenter: Any, x: Any) -> Any:  # pragma: no cover
        fi = x * wscale + wcenter
        k = u64(fi)  # fi > 0: truncation is the floor (DALI's SSE path truncates too)
        di = fi - f32(k)
        a = lookup[k]
        return a + di * (lookup[k + u64(1)] - a)

    @numba.njit(nogil=True, cache=True)
    def mono(
        x: Any, out: Any, scale: float, lookup: Any, wscale: Any, wcenter: Any, lobes: int
    ) -> None:  # pragma: no cover - compiled
        n_in = x.shape[0]
        n_out = out.shape[0]
        fscale = f32(scale)
        four = f32(4.0)
        one = f32(1.0)
        zero = f32(0.0)
        for out_block in range(0, n_out, 256):
            block_end = min(out_block + 256, n_out)
            in_block_f = out_block * scale
            in_block_i = math.floor(in_block_f)
            in_pos = f32(in_block_f - in_block_i)
            for o in range(out_block, block_end):
                xc = int(np.ceil(in_pos))
                i0 = xc - lobes
                i1 = xc + lobes
                if i0 + in_block_i < 0:
                    i0 = -in_block_i
                if i1 + in_block_i > n_in:
                    i1 = n_in - in_block_i
                i = i0
                l0 = zero
                l1 = zero
                l2 = zero
                l3 = zero
                x0 = f32(i) - in_pos
                x1 = f32(i + 1) - in_pos
                x2 = f32(i + 2) - in_pos
                x3 = f32(i + 3) - in_pos
                while i + 3 < i1:
                    b = u64(in_block_i + i)
                    l0 = l0 + x[b] * weight(lookup, wscale, wcenter, x0)
                    l1 = l1 + x[b + u64(1)] * weight(lookup, wscale, wcenter, x1)
                    l2 = l2 + x[b + u64(2)] * weight(lookup, wscale, wcenter, x2)
                    l3 = l3 + x[b + u64(3)] * weight(lookup, wscale, wcenter, x3)
                    x0 = x0 + four
                    x1 = x1 + four
                    x2 = x2 + four
                    x3 = x3 + four
                    i += 4
                f = (l0 + l2) + (l1 + l3)
                d = f32(i) - in_pos
                while i < i1:
                    f = f + x[u64(in_block_i + i)] * weight(lookup, wscale, wcenter, d)
                    d = d + one
                    i += 1
                out[o] = f
                in_pos = in_pos + fscale

    @numba.njit(nogil=True, cache=True)
    def channels(
        x: Any, out: Any, scale: float, lookup: Any, wscale: Any, wcenter: Any, lobes: int
    ) -> None:  # pragma: no cover - compiled
        n_in = x.shape[0]
        nch = x.shape[1]
        n_out = out.shape[0]
        fscale = f32(scale)
        one = f32(1.0)
        tmp = np.zeros(nch, np.float32)
        for out_block in range(0, n_out, 256):
            block_end = min(out_block + 256, n_out)
            in_block_f = out_block * scale
            in_block_i = math.floor(in_block_f)
            in_pos = f32(in_block_f - in_block_i)
            for o in range(out_block, block_end):
                xc = int(np.ceil(in_pos))
                i0 = xc - lobes
                i1 = xc + lobes
                if i0 + in_block_i < 0:
                    i0 = -in_block_i
                if i1 + in_block_i > n_in:
                    i1 = n_in - in_block_i
                d = f32(i0) - in_pos
                if nch == 2:  # stereo: the two sums stay in registers
                    t0 = f32(0.0)
                    t1 = f32(0.0)
                    for i in range(i0, i1):
                        w = weight(lookup, wscale, wcenter, d)
                        b = u64(in_block_i + i)
                        t0 = t0 + x[b, 0] * w
                        t1 = t1 + x[b, 1] * w
                        d = d + one
                    out[o, 0] = t0
                    out[o, 1] = t1
                else:
                    tmp[:] = 0
                    for i in range(i0, i1):
                        w = weight(lookup, wscale, wcenter, d)
                        b = u64(in_block_i + i)
                        for c in range(nch):
                            tmp[c] = tmp[c] + x[b, c] * w
                        d = d + one
                    for c in range(nch):
                        out[o, c] = tmp[c]
                in_pos = in_pos + fscale

    return mono, channels


def resample(
    kernels: Any,
    x: np.ndarray,
    in_rate: float,
    out_rate: float,
    out_length: int,
    window: Window,
) -> np.ndarray:
    """`_resampling.resample_numpy` with the compiled loops (same arguments, same values)."""
    mono, channels = kernels
    x = np.ascontiguousarray(x, np.float32)
    scale = float(in_rate) / float(out_rate)
    args = (scale, window.lookup, window.scale, window.center, window.lobes)
    if x.ndim == 2 and x.shape[1] != 1:
        several = np.empty((out_length, x.shape[1]), np.float32)
        channels(x, several, *args)
        return several
    one = np.empty(out_length, np.float32)
    mono(x.reshape(-1), one, *args)
    return one.reshape(out_length, 1) if x.ndim == 2 else one
