"""The displacement sampler (`displacement.sample`) and jitter as one Numba call per image
(the `jit` extra).

The numpy reference (`displacement.sample_numpy`) makes a dozen full-size temporaries per
image (positions, masks, four gathers); this kernel reads each output pixel's taps once and
releases the GIL. It does the same float32 operations in the same order (Numba does not fuse a
multiplication and an addition without fast-math), so the two give the same values.

Example:
    >>> import numpy as np
    >>> src = np.arange(6, dtype=np.uint8).reshape(2, 3, 1)
    >>> px = np.array([[0.0, 2.5, 3.0]], np.float32)
    >>> py = np.zeros((1, 3), np.float32)
    >>> out = np.empty((1, 3, 1), np.uint8)
    >>> if available():
    ...     sample(src, px, py, 0, False, np.zeros(1, np.uint8), out)
    ...     assert out[0, :, 0].tolist() == [0, 2, 0]
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["available", "jitter", "sample"]

# SplitMix64 (`dali._exec.rng.SampleRNG.bits`): value k of a stream with key K is
# mix(K + (k + 1) * golden); the jitter test checks that both give the same values
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


@functools.cache
def _kernel() -> Any:
    """The compiled sampler, or None when Numba is not installed."""
    kernels = _kernels()
    return None if kernels is None else kernels[0]


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled kernels (sampler, jitter), or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    f32 = np.float32

    @numba.njit(nogil=True, cache=True, inline="always")
    def convert(v, lo, hi, is_int):  # type: ignore[no-untyped-def]  # pragma: no cover
        # std::round (half away from zero) and saturation; NaN -> 0 (`convert_half_away`)
        if not is_int:
            return v
        if np.isnan(v):
            return f32(0)
        t = np.trunc(v)
        if abs(v - t) >= f32(0.5):
            t = t + (f32(1) if v > 0 else f32(-1))
        return min(max(t, lo), hi)

    @numba.njit(nogil=True, cache=True)
    def sample(src, px, py, interp, center, fill, lo, hi, integer, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        h, w, c = src.shape
        oh, ow = px.shape
        fw, fh = f32(w), f32(h)
        half = f32(0.5)
        one = f32(1)
        int_min = f32(-(2.0**31))
        for y in range(oh):
            for x in range(ow):
                fx = px[y, x]
                fy = py[y, x]
                if interp == 0:
                    if center:
                        fx = fx + half
                        fy = fy + half
                    ix = np.floor(fx)
                    iy = np.floor(fy)
                    if ix >= 0 and ix < fw and iy >= 0 and iy < fh:
                        jx = int(ix)
                        jy = int(iy)
                        for ch in range(c):
                            out[y, x, ch] = src[jy, jx, ch]
                    else:
                        for ch in range(c):
                            out[y, x, ch] = fill[ch]
                    continue
                if not center:
                    fx = fx - half
                    fy = fy - half
                x0 = np.floor(fx)
                y0 = np.floor(fy)
                if not (x0 >= int_min and x0 < -int_min):  # DALI's floor_int: INT_MIN
                    x0 = int_min
                if not (y0 >= int_min and y0 < -int_min):
                    y0 = int_min
                qx = fx - x0
                qy = fy - y0
                pw = one - qx
                x1 = x0 + one
                y1 = y0 + one
                in_x0 = x0 >= 0 and x0 < fw
                in_x1 = x1 >= 0 and x1 < fw
                in_y0 = y0 >= 0 and y0 < fh
                in_y1 = y1 >= 0 and y1 < fh
                jx0 = int(x0) if in_x0 else 0
                jx1 = int(x1) if in_x1 else 0
                jy0 = int(y0) if in_y0 else 0
                jy1 = int(y1) if in_y1 else 0
                for ch in range(c):
                    f = f32(fill[ch])
                    s00 = f32(src[jy0, jx0, ch]) if in_y0 and in_x0 else f
                    s01 = f32(src[jy0, jx1, ch]) if in_y0 and in_x1 else f
                    s10 = f32(src[jy1, jx0, ch]) if in_y1 and in_x0 else f
                    s11 = f32(src[jy1, jx1, ch]) if in_y1 and in_x1 else f
                    s0 = s00 * pw + s01 * qx
                    s1 = s10 * pw + s11 * qx
                    r = s0 + (s1 - s0) * qy
                    out[y, x, ch] = convert(r, lo, hi, integer)

    golden, m1, m2 = np.uint64(_GOLDEN), np.uint64(_M1), np.uint64(_M2)
    low, s27, s30, s31, s32 = (np.uint64(v) for v in (0xFFFFFFFF, 27, 30, 31, 32))

    @numba.njit(nogil=True, cache=True)
    def jitter(src, key, n, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        h, w, c = src.shape
        start = -(n >> 1)
        un = np.uint64(n)
        for y in range(h):
            for x in range(w):
                z = key + np.uint64(y * w + x + 1) * golden
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                z = z ^ (z >> s31)
                sx = x + np.int64(((z & low) * un) >> s32) + start
                sy = y + np.int64(((z >> s32) * un) >> s32) + start
                sx = min(max(sx, 0), w - 1)
                sy = min(max(sy, 0), h - 1)
                for ch in range(c):
                    out[y, x, ch] = src[sy, sx, ch]

    return sample, jitter


def available() -> bool:
    """Whether Numba is installed (the `jit` extra)."""
    return _kernels() is not None


def jitter(src: np.ndarray, key: int, n_degree: int, out: np.ndarray) -> None:
    """Write `fn.jitter`'s output for one image into ``out``: pixel ``k`` (row-major) moved by
    the offsets of value ``k`` of the stream ``key`` (`jitter.jitter_offsets`), clamped.

    Raises:
        RuntimeError: Numba is not installed (check `available` first).
    """
    kernels = _kernels()
    if kernels is None:
        raise RuntimeError("the jit jitter kernel needs Numba (pip install numba)")
    kernels[1](src, np.uint64(key), int(n_degree), out)


def sample(
    src: np.ndarray,
    px: np.ndarray,
    py: np.ndarray,
    interp: int,
    center: bool,
    fill: np.ndarray,
    out: np.ndarray,
) -> None:
    """Write `displacement.sample`'s result into ``out``.

    Args:
        src: ``(H, W, C)`` C-contiguous image: uint8, int16, uint16 or float32.
        px, py: ``(H', W')`` C-contiguous float32 positions.
        interp: 0 (NN) or 1 (LINEAR).
        center: Pixel centres on integers (else on ``+0.5``).
        fill: ``C`` values of ``src``'s type: the value outside the image.
        out: ``(H', W', C)`` of ``src``'s type.

    Raises:
        RuntimeError: Numba is not installed (check `available` first).
    """
    kernel = _kernel()
    if kernel is None:
        raise RuntimeError("the jit displacement sampler needs Numba (pip install numba)")
    integer = out.dtype.kind in "iu"
    info = np.iinfo(out.dtype) if integer else None
    lo = np.float32(info.min if info is not None else 0)
    hi = np.float32(info.max if info is not None else 0)
    kernel(src, px, py, int(interp), bool(center), fill, lo, hi, integer, out)
