"""The real FFT and its magnitude/power spectrum, as DALI's FFT kernels produce them.

DALI's CPU kernels (``dali/kernels/signal/fft/fft_cpu_impl_ffts.cc``) transform float32 data
with FFTS, its GPU kernels with cuFFT; both keep the ``nfft // 2 + 1`` bins of the positive
frequencies and give either the power ``re² + im²`` (``power=2``) or the magnitude
``|re + i·im|`` (``power=1``) in float32. A transform longer than the data zero-pads it (DALI
centres the data in the transform; the magnitude does not depend on where the zeros go, a
circular shift only changes the phase), a shorter one keeps the first ``nfft`` values.

Here the CPU runs numpy's pocketfft in double precision (faster than its float32 transform
here, and the same with numpy 1 and 2) and rounds the spectrum to float32; the GPU runs cuFFT
in float32 through CuPy. Different FFT algorithms round differently: the bins agree with
DALI's to about 1e-6 of the largest bin of the sample (DALI's own tests allow 1e-4), not bit
for bit.

Example:
    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0, -1.0, 0.0]], np.float32)
    >>> rfft_spectrum(x, 4, power=2).tolist()
    [[0.0, 4.0, 0.0]]
    >>> rfft_spectrum(x, 4, power=1).tolist()
    [[0.0, 2.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["rfft_spectrum"]


def rfft_spectrum(
    frames: np.ndarray, nfft: int, *, power: int, out: np.ndarray | None = None
) -> np.ndarray:
    """The spectrum of every row of ``frames``: ``(rows, nfft // 2 + 1)`` float32.

    Args:
        frames: ``(rows, n)`` data (zero-padded or cut to ``nfft``; float64 rows of ``nfft``
            values are transformed without a copy).
        nfft: The transform size.
        power: 2: ``re² + im²``; 1: ``sqrt(re² + im²)``.
        out: Where to write the spectrum (float32), or None.
    """
    spec = np.fft.rfft(frames.astype(np.float64, copy=False), n=nfft, axis=-1)
    # the (re, im) pairs as plain doubles, squared in place (the transform is ours to reuse)
    pairs = np.ascontiguousarray(spec).view(np.float64)
    with np.errstate(over="ignore"):
        np.square(pairs, out=pairs)
        acc = pairs[..., 0::2] + pairs[..., 1::2]
    if power == 1:
        np.sqrt(acc, out=acc)
    if out is None:
        return acc.astype(np.float32)
    out[...] = acc
    return out
