"""The short-time Fourier transform of a CPU batch with Numba around numpy's FFT.

`fn.spectrogram`'s numpy path cuts the windows of every signal into one float32 buffer, casts it
to double for numpy's FFT, squares the bins in two more passes and transposes each sample:
half a dozen passes over buffers of several megabytes. Here the batch's windows go through in
blocks of `_BLOCK_ROWS` that stay in the cache:

1. ``frames`` writes a block's windows straight in double (``window[t] * x[i]``, one float32
   product as DALI computes it, then widened: what the numpy path's cast gives), the
   elements past ``window_length`` zero and the signal mirrored or zero-padded at its ends
   (`dali._ops.signal._windows`);
2. ``numpy.fft.rfft`` transforms the block (the numpy path's transform, row for row);
3. ``spectrum`` turns each bin into ``re² + im²`` (or its square root), rounds it to float32
   and writes it into the sample's output, frequency-major (``ft``: transposed on the way) or
   time-major (``tf``).

The values are the numpy path's bit for bit (the same float32 products, the same transform of
each row, the same double operations; Numba does not fuse a multiplication and an addition
without fast-math). Blocks are spread over the pipeline's threads; both kernels release the GIL.

Example:
    >>> import numpy as np
    >>> x = np.sin(np.arange(64, dtype=np.float32))
    >>> w = np.ones(16, np.float32)
    >>> out = stft_cpu(x, [64], w, step=8, nfft=16, centered=True, reflect=True, power=2,
    ...                time_major=False)
    >>> None if out is None else out.shape  # 9 bins x 9 windows, back to back per sample
    (81,)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["numba_available", "stft_cpu"]

#: Windows per block: the double windows and their transform (~1 MB at nfft 512) stay in the
#: cache between the three passes.
_BLOCK_ROWS = 128


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled window and spectrum passes, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def frames(x, starts, lengths, bounds, window, step, left, reflect, r0, r1, buf):  # type: ignore[no-untyped-def]  # pragma: no cover
        # windows r0 .. r1 of the batch (sample s has windows bounds[s] .. bounds[s + 1] and
        # its signal at x[starts[s] : starts[s] + lengths[s]]) into the rows of buf (their
        # elements past the window stay as they are: zero)
        wl = window.shape[0]
        s = np.searchsorted(bounds, r0, side="right") - 1
        for r in range(r0, r1):
            while bounds[s + 1] <= r:
                s += 1
            n = lengths[s]
            base = starts[s]
            start = (r - bounds[s]) * step - left
            row = buf[r - r0]
            if start >= 0 and start + wl <= n:  # inside the signal
                for t in range(wl):
                    row[t] = window[t] * x[base + start + t]
            else:
                period = 2 * (n - 1)
                for t in range(wl):
                    i = start + t
                    if i < 0 or i >= n:
                        if not reflect:
                            row[t] = window[t] * np.float32(0.0)
                            continue
                        if n == 1:
                            i = 0
                        else:
                            i = i % period  # non-negative (Python's modulo)
                            if i >= n:
                                i = period - i
                    row[t] = window[t] * x[base + i]

    @numba.njit(nogil=True, cache=True)
    def spectrum(spec, bounds, r0, r1, magnitude, time_major, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        # the bins of windows r0 .. r1 as float32 power (or magnitude) into the samples'
        # outputs, back to back in `out` (sample s: bins x windows, or windows x bins)
        bins = spec.shape[1]
        s = np.searchsorted(bounds, r0, side="right") - 1
        for r in range(r0, r1):
            while bounds[s + 1] <= r:
                s += 1
            w = r - bounds[s]
            count = bounds[s + 1] - bounds[s]
            at = bins * bounds[s]
            for f in range(bins):
                v = spec[r - r0, f]
                acc = v.real * v.real + v.imag * v.imag
                if magnitude:
                    acc = np.sqrt(acc)
                if time_major:
                    out[at + w * bins + f] = acc
                else:
                    out[at + f * count + w] = acc

    return frames, spectrum


def numba_available() -> bool:
    """Whether `stft_cpu` can run (Numba is installed)."""
    return _kernels() is not None


def stft_cpu(
    x: np.ndarray,
    lengths: Any,
    window: np.ndarray,
    *,
    step: int,
    nfft: int,
    centered: bool,
    reflect: bool,
    power: int,
    time_major: bool,
    counts: Any = None,
    run: Callable[[Callable[[int], None], int], Any] | None = None,
    threads: int = 1,
) -> np.ndarray | None:
    """The spectrograms of a batch of float32 signals lying back to back in ``x``: one flat
    float32 array, each sample's ``(nfft // 2 + 1, windows)`` (or ``(windows, bins)`` when
    ``time_major``) after the other; None when Numba is not installed.

    Args:
        x: The signals back to back (1-D float32).
        lengths: Each signal's number of samples (> 0).
        window: The window function (float32, ``window_length`` values).
        step: Samples between windows.
        nfft: The transform size (``>= window_length``).
        centered: Windows centred on multiples of ``step`` (see `dali._ops.signal._windows`).
        reflect: Mirror the signal outside its bounds (centered windows only), else zeros.
        power: 2: ``re² + im²``; 1: its square root.
        time_major: The layout of each sample's output.
        counts: Each signal's number of windows (``num_windows``), or None to compute them.
        run: ``run(fn, n)`` calls ``fn(0) .. fn(n - 1)``, in parallel or not (`Workspace.map`).
        threads: How many tasks ``run`` may run at once.
    """
    kernels = _kernels()
    if kernels is None:
        return None
    frames, spectrum = kernels
    from dali._ops.signal._windows import num_windows

    lengths = np.asarray(lengths, np.int64).reshape(-1)
    wl = len(window)
    if counts is None:
        counts = [num_windows(int(n), wl, step, centered=centered) for n in lengths]
    bounds = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(counts, out=bounds[1:])
    starts = np.zeros(len(lengths), np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    rows = int(bounds[-1])
    bins = nfft // 2 + 1
    out = np.empty(rows * bins, np.float32)
    window = np.ascontiguousarray(window, np.float32)
    left = wl // 2 if centered else 0
    reflect = centered and reflect
    blocks = list(range(0, rows, _BLOCK_ROWS))
    parts = max(1, min(threads, len(blocks)))
    cuts = np.linspace(0, len(blocks), parts + 1).astype(int).tolist()

    def part(j: int) -> None:
        buf = np.zeros((min(_BLOCK_ROWS, rows), nfft), np.float64)  # the tails stay zero
        for r0 in blocks[cuts[j] : cuts[j + 1]]:
            r1 = min(r0 + _BLOCK_ROWS, rows)
            frames(x, starts, lengths, bounds, window, step, left, reflect, r0, r1, buf)
            spec = np.fft.rfft(buf[: r1 - r0], axis=-1)
            spectrum(spec, bounds, r0, r1, power == 1, time_major, out)

    if run is None or parts == 1:
        for j in range(parts):
            part(j)
    else:
        run(part, parts)
    return out
