"""DALI's windowed-sinc audio resampler, bit for bit (`audio_resample`, `decoders.audio`,
`readers.nemo_asr`).

The rule (``dali/kernels/signal/resampling.h``, ``resampling_cpu.cc``): output sample ``o`` of a
signal resampled from ``in_rate`` to ``out_rate`` sits at input position ``o · in_rate /
out_rate`` and is the sum of the input samples within ``lobes`` of it, each weighted by a sinc
under a Hann envelope, ``sinc(x) · hann(x / lobes)`` at its distance ``x``. The weights are not
computed per tap: the window is tabulated once (`Window`: ``64 · lobes + 1`` values over
``[-lobes, lobes]``, a zero at each end) and interpolated linearly. ``quality`` (0..100) sets
the lobes: ``round(0.007 q² - 0.09 q + 3)`` (3 at 0, 16 at 50, 64 at 100). The output has
``ceil(n · out_rate / in_rate)`` samples (`resampled_length`); taps outside the input count as
zeros. Integer inputs are normalised to [-1, 1] (unsigned to [0, 1]) first and the result is
converted back with DALI's ``ConvertSatNorm`` (`to_output`).

To give DALI's CPU values exactly, every float32 operation is made in DALI's order:

* positions are float32 offsets from a double reference taken every 256 outputs (the input
  position of the block's first output), advanced by adding the float32 ratio sample after
  sample;
* one channel: DALI's SSE loop sums four taps at a time in four lanes (``f4 += in · w``), adds
  the lanes as ``(l0 + l2) + (l1 + l3)`` and the last ``taps mod 4`` taps one by one; the
  distances of the lanes start at ``i - pos``, ``i + 1 - pos``, ... and grow by 4;
* several channels: one tap after the other, the distance growing by 1.

`resample_cpu` computes that with numpy (vectorised over the outputs of a chunk); when Numba is
installed `_resampling_numba` runs the same loops compiled, with identical results. The GPU
kernel (`resample_gpu`, one launch per batch) is DALI's ``ResampleGPUKernel``: each output
computed on its own with fused multiply-adds, as DALI's GPU backend does, so GPU and CPU agree
to float rounding (DALI's own tests compare them with a tolerance).

Example:
    >>> import numpy as np
    >>> x = np.sin(np.arange(8, dtype=np.float32))
    >>> y = resample_cpu(x, 1.0, 2.0, resampled_length(8, 1.0, 2.0), window_for_quality(50))
    >>> y.shape, bool(np.allclose(y[::2], x, atol=0.05))
    ((16,), True)
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "Window",
    "lobes_for_quality",
    "normalize_input",
    "resample_cpu",
    "resample_numpy",
    "resampled_length",
    "to_output",
    "window_for_quality",
]

#: Outputs per block: DALI's CPU kernel restarts the position from a double every 256 outputs.
BLOCK = 256
#: Outputs computed at once by the numpy path (bounds its ``(chunk, 2·lobes)`` temporaries).
_CHUNK = 4096

_F32 = np.float32


class Window(NamedTuple):
    """A tabulated Hann-windowed sinc (DALI's ``ResamplingWindow``).

    ``lookup[k + 1]`` is the window at ``(k - center0) / scale`` for ``k`` in
    ``[0, coeffs)``, with a zero before and zeros after (``coeffs + 5`` values); a distance
    ``x`` (in input samples) maps to the fractional index ``x · scale + center``.
    """

    lookup: np.ndarray
    scale: np.float32
    center: np.float32
    lobes: int


def lobes_for_quality(quality: float) -> int:
    """The sinc lobes of a ``quality`` in [0, 100] (DALI's ``ResamplingParams::FromQuality``)."""
    q = float(quality)
    v = 0.007 * q * q - 0.09 * q + 3
    return math.floor(v + 0.5)  # std::round of a positive value


@functools.lru_cache(maxsize=1)
def _libm_sinf() -> Any:
    """The C library's ``sinf`` (None where it cannot be loaded).

    DALI tabulates the window with ``std::sin(float)``, the C library's ``sinf``, which is not
    correctly rounded: glibc's differs from the correctly rounded sine in the last bit for a
    few arguments, and those bits reach the window. Calling the same function gives DALI's
    table exactly; elsewhere the correctly rounded value is used (the table may then differ
    in the last bit of a few entries).
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m")
    if name is None:  # pragma: no cover - every Linux and macOS has one
        return None
    try:
        libm = ctypes.CDLL(name)
        fn = libm.sinf
    except (OSError, AttributeError):  # pragma: no cover
        return None
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return fn


def _sinf(x: np.float32) -> np.float32:
    fn = _libm_sinf()
    if fn is None:  # pragma: no cover
        return _F32(math.sin(float(x)))
    return _F32(fn(float(x)))


def _sinc_f32(x: np.float32) -> np.float32:
    """DALI's ``sinc(float)``: ``x *= M_PI`` (rounded to float32), then ``sinf(x) / x``
    (a Taylor term near 0)."""
    xp = _F32(float(x) * math.pi)
    if abs(xp) < _F32(1e-5):
        return _F32(_F32(1) - _F32(_F32(xp * xp) * _F32(_F32(1) / _F32(6))))
    return _F32(_sinf(xp) / xp)


@functools.lru_cache(maxsize=16)
def window_for_lobes(lobes: int) -> Window:
    """The window DALI builds for ``lobes`` (``windowed_sinc(window, 64·lobes + 1, lobes)``)."""
    coeffs = lobes * 64 + 1
    scale = _F32(_F32(2 * lobes) / _F32(coeffs - 1))
    scale_env = _F32(_F32(2) / _F32(coeffs))
    center = int(_F32(coeffs - 1) * _F32(0.5))
    lookup = np.zeros(coeffs + 5, np.float32)
    for i in range(coeffs):
        x = _F32(_F32(i - center) * scale)
        y = float(_F32(_F32(i - center) * scale_env))
        hann = 0.5 * (1 + math.cos(y * math.pi))
        lookup[i + 1] = _F32(float(_sinc_f32(x)) * hann)
    lookup.flags.writeable = False
    return Window(lookup, _F32(_F32(1) / scale), _F32(center + 1), lobes)


def window_for_quality(quality: float) -> Window:
    """The window of a resampling ``quality`` (0..100)."""
    return window_for_lobes(lobes_for_quality(quality))


def resampled_length(in_length: int, in_rate: float, out_rate: float) -> int:
    """``ceil(in_length · out_rate / in_rate)`` in double precision, as DALI computes it."""
    v = in_length * float(out_rate) / float(in_rate)
    return math.ceil(v)


# -- conversions ------------------------------------------------------------------------------


def _max_value(dtype: np.dtype[Any]) -> int:
    return int(np.iinfo(dtype).max)


def normalize_input(x: np.ndarray, out_dtype: np.dtype[Any]) -> np.ndarray:
    """The float32 signal DALI resamples (``ResampleCPU::ConvertInput``).

    Integers are scaled by ``1 / max`` (``ConvertSatNorm<float>``); when the output is
    unsigned and the input signed, the range is squeezed to [0, 1] (``(v + 1) / 2``), and when
    the output is signed and the input unsigned, half-range becomes 0 (``2v - 1``). A float
    input with a signed or float output is used as is.
    """
    src = x.dtype
    out_unsigned = out_dtype.kind == "u"
    out_signed = not out_unsigned
    if src.kind == "f":
        if out_signed:
            return np.asarray(x, np.float32)
        v = np.asarray(x, np.float32)
    else:
        v = x.astype(np.float32) * (_F32(1) / _F32(_max_value(src)))
        if out_unsigned and src.kind == "i":
            pass  # squeezed below
        elif out_signed and src.kind == "u":
            return (v * _F32(2) - _F32(1)).astype(np.float32, copy=False)
        else:
            return v
    # unsigned output of a signed (or float) input: squeeze to 0..1
    return ((v + _F32(1)) * _F32(0.5)).astype(np.float32, copy=False)


def to_output(f: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """DALI's CPU ``ConvertSatNorm<Out>(float)``: float as is; integers ``round(f · max)``
    (float32 product, halves away from zero), clamped to the type's range."""
    if dtype.kind == "f":
        return f.astype(dtype, copy=False)
    from dali._ops.numeric import convert_sat

    with np.errstate(over="ignore", invalid="ignore"):
        scaled = f * _F32(_max_value(dtype))
    return np.asarray(convert_sat(np, scaled, dtype))


# -- the CPU kernel (numpy) -------------------------------------------------------------------


def _positions(out_begin: int, out_end: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """For outputs ``[out_begin, out_end)``: the block's input origin (int64) and the float32
    offset from it, accumulated as DALI does (``in_pos += fscale`` within a block of 256)."""
    n = out_end - out_begin
    fscale = _F32(scale)
    first = (out_begin // BLOCK) * BLOCK
    nblocks = -(-(out_end - first) // BLOCK)
    starts = first + np.arange(nblocks, dtype=np.int64) * BLOCK
    with np.errstate(invalid="ignore", over="ignore"):
        block_f = starts.astype(np.float64) * scale
        block_i = np.floor(block_f)
        steps = np.full((nblocks, BLOCK), fscale, np.float32)
        steps[:, 0] = (block_f - block_i).astype(np.float32)
        pos = np.add.accumulate(steps, axis=1, dtype=np.float32)
    skip = out_begin - first
    pos_flat = pos.reshape(-1)[skip : skip + n]
    origin = np.repeat(block_i.astype(np.int64), BLOCK)[skip : skip + n]
    return origin, pos_flat


def _weights(window: Window, x: np.ndarray) -> np.ndarray:
    """The window at distances ``x`` (float32), interpolated as DALI's ``operator()``."""
    fi = x * window.scale + window.center
    fl = np.floor(fi)
    di = fi - fl
    k = fl.astype(np.int64)
    lut = window.lookup
    np.clip(k, 0, lut.size - 2, out=k)  # the taps in range never leave the table
    a = lut[k]
    return a + di * (lut[k + 1] - a)


def _chunk_one_channel(
    x: np.ndarray, origin: np.ndarray, pos: np.ndarray, window: Window
) -> np.ndarray:
    """One channel, DALI's SSE order: 4 lanes, ``(l0 + l2) + (l1 + l3)``, then the rest."""
    n_in = x.shape[0]
    lobes = window.lobes
    taps = 2 * lobes
    xc = np.ceil(pos).astype(np.int64)
    i0 = xc - lobes
    i1 = xc + lobes
    i0 = np.maximum(i0, -origin)
    i1 = np.minimum(i1, n_in - origin)
    count = np.maximum(i1 - i0, 0)
    nv = (count // 4) * 4  # taps summed by the vector loop
    base = origin + i0  # absolute input index of the first tap
    m = pos.shape[0]
    lanes = np.zeros((m, 4), np.float32)
    k4 = np.arange(4)
    # lane distances start at float(i0 + k) - pos and grow by 4 (float32 additions)
    dist = (i0[:, None] + k4).astype(np.float32) - pos[:, None]
    xpad = np.concatenate([x, np.zeros(taps + 4, np.float32)])
    for g in range(taps // 4 + 1):
        t = 4 * g
        live = (t + 3) < nv[:, None] + 0 * k4  # the whole group is inside the vector part
        if not live.any():
            break
        idx = base[:, None] + t + k4
        np.clip(idx, 0, xpad.size - 1, out=idx)
        w = _weights(window, dist)
        lanes = np.where(live, lanes + xpad[idx] * w, lanes)
        dist = dist + _F32(4)
    f = (lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3])
    # the remaining taps, one by one: x restarts at float(i) - pos
    rest_i = i0 + nv
    d = rest_i.astype(np.float32) - pos
    for r in range(3):
        live = nv + r < count
        if not live.any():
            break
        idx = np.clip(origin + rest_i + r, 0, xpad.size - 1)
        w = _weights(window, d)
        f = np.where(live, f + xpad[idx] * w, f)
        d = d + _F32(1)
    return f.astype(np.float32, copy=False)


def _chunk_channels(
    x: np.ndarray, origin: np.ndarray, pos: np.ndarray, window: Window
) -> np.ndarray:
    """Several channels: taps one by one, the distance growing by 1 (DALI's scalar loop)."""
    n_in, nch = x.shape
    lobes = window.lobes
    taps = 2 * lobes
    xc = np.ceil(pos).astype(np.int64)
    i0 = np.maximum(xc - lobes, -origin)
    i1 = np.minimum(xc + lobes, n_in - origin)
    count = np.maximum(i1 - i0, 0)
    m = pos.shape[0]
    acc = np.zeros((m, nch), np.float32)
    dist = i0.astype(np.float32) - pos
    xpad = np.concatenate([x, np.zeros((taps + 1, nch), np.float32)])
    base = origin + i0
    for t in range(taps):
        live = t < count
        if not live.any():
            break
        idx = np.clip(base + t, 0, xpad.shape[0] - 1)
        w = _weights(window, dist)
        acc = np.where(live[:, None], acc + xpad[idx] * w[:, None], acc)
        dist = dist + _F32(1)
    return acc


def resample_numpy(
    x: np.ndarray,
    in_rate: float,
    out_rate: float,
    out_length: int,
    window: Window,
    out_begin: int = 0,
) -> np.ndarray:
    """Resample a float32 signal ``(n,)`` or ``(n, channels)`` with numpy (the reference).

    Args:
        x: float32 samples, time first.
        in_rate: Input sampling rate (any unit).
        out_rate: Output sampling rate (the same unit).
        out_length: Number of output samples (from ``out_begin``).
        window: The tabulated window (`window_for_quality`).
        out_begin: The first output sample computed (a region of the output).

    Returns:
        float32 ``(out_length,)`` or ``(out_length, channels)``.
    """
    x = np.ascontiguousarray(x, np.float32)
    multi = x.ndim == 2 and x.shape[1] != 1
    nch = x.shape[1] if x.ndim == 2 else 1
    out = (
        np.zeros((out_length, nch), np.float32) if x.ndim == 2 else np.zeros(out_length, np.float32)
    )
    if out_length == 0:
        return out
    scale = float(in_rate) / float(out_rate) if out_rate else math.inf
    flat = x if multi else x.reshape(-1)
    for c0 in range(0, out_length, _CHUNK):
        c1 = min(c0 + _CHUNK, out_length)
        origin, pos = _positions(out_begin + c0, out_begin + c1, scale)
        if multi:
            out[c0:c1] = _chunk_channels(flat, origin, pos, window)
        elif x.ndim == 2:
            out[c0:c1, 0] = _chunk_one_channel(flat, origin, pos, window)
        else:
            out[c0:c1] = _chunk_one_channel(flat, origin, pos, window)
    return out


def resample_cpu(
    x: np.ndarray,
    in_rate: float,
    out_rate: float,
    out_length: int,
    window: Window,
) -> np.ndarray:
    """Resample a float32 signal as DALI's CPU backend does (Numba when installed, else numpy:
    the same values). See `resample_numpy` for the arguments."""
    from dali._ops.audio import _resampling_numba

    kernel = _resampling_numba.kernel()
    if kernel is None or out_length == 0:
        return resample_numpy(x, in_rate, out_rate, out_length, window)
    return _resampling_numba.resample(kernel, x, in_rate, out_rate, out_length, window)
