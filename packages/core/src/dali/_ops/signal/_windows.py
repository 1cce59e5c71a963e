"""Short-time windows of a 1-D signal, as DALI's ``ExtractWindows`` kernels cut them.

A short-time transform (`fn.spectrogram`) cuts a signal of ``n`` samples into windows of
``window_length`` samples, ``window_step`` apart, and multiplies each by a window function:

* **centered** (``center_windows=True``): window ``w`` is centred on sample ``w * step``, so it
  starts at ``w * step - window_length // 2``; there are ``n // step + 1`` windows, and the
  samples outside the signal are mirrored (*reflect-101*, ``dcb|abcd|cba``, repeated for
  windows wider than the signal) or zero (``reflect_padding=False``);
* **not centered**: window ``w`` starts at ``w * step``; there are
  ``(n - window_length) / step + 1`` windows, the division truncated toward zero as C does
  (a signal shorter than the window by less than a step still gives one window, zero-padded;
  DALI's ``num_windows``).

The default window function is DALI's Hann window, ``0.5 * (1 - cos(2π (t + 0.5) / N))``
computed in double and stored as float32 (`hann_window`): it is *periodic and half-sample
shifted*, not numpy's symmetric ``np.hanning``. Each window value is ``window[t] * x[i]``, one
float32 product, as DALI computes it.

Example:
    >>> num_windows(1000, 512, 256, centered=True), num_windows(1000, 512, 256, centered=False)
    (4, 2)
    >>> num_windows(1000, 1010, 20, centered=False)  # (-10) / 20 truncates to 0
    1
    >>> frame_indices(4, 3, 2, centered=True, reflect=True)[0].tolist()
    [[1, 0, 1], [1, 2, 3], [3, 2, 1]]
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["frame_indices", "hann_window", "num_windows", "signal_frames"]


def num_windows(length: int, window_length: int, step: int, *, centered: bool) -> int:
    """The number of windows DALI extracts from a signal of ``length`` samples (may be <= 0:
    the signal is too short)."""
    if not centered:
        length -= window_length
    q = abs(length) // step  # C's division truncates toward zero
    return (q if length >= 0 else -q) + 1


@functools.lru_cache(maxsize=64)
def hann_window(n: int) -> np.ndarray:
    """DALI's Hann window of ``n`` samples (``HannWindow`` in
    ``dali/kernels/signal/window/window_functions.h``), read-only float32.

    Example:
        >>> hann_window(4).tolist()
        [0.1464466154575348, 0.8535534143447876, 0.8535534143447876, 0.1464466154575348]
    """
    a = 2 * math.pi / n
    w = np.array([0.5 * (1.0 - math.cos(a * (t + 0.5))) for t in range(n)], np.float32)
    w.flags.writeable = False
    return w


def _reflect_101(i: np.ndarray, n: int) -> np.ndarray:
    """Indices mirrored into ``[0, n)`` without repeating the edge, as often as needed
    (DALI's ``idx_reflect_101``; a one-sample signal: every index is 0)."""
    if n == 1:
        return np.zeros_like(i)
    period = 2 * (n - 1)
    m = np.mod(i, period)
    return np.where(m >= n, period - m, m)


def frame_indices(
    length: int, window_length: int, step: int, *, centered: bool, reflect: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """The sample index of every window element, ``(nwindows, window_length)`` int64, and
    where they fall outside the signal (a bool mask, None when none does): those elements are
    zero.

    Args:
        length: The signal's number of samples (> 0).
        window_length: Samples per window.
        step: Samples between window starts.
        centered: Windows centred on ``w * step`` (``center_windows``).
        reflect: Mirror the signal outside its bounds (centered windows only), else zeros.
    """
    nwin = num_windows(length, window_length, step, centered=centered)
    offset = window_length // 2 if centered else 0
    starts = np.arange(nwin, dtype=np.int64) * step - offset
    idx = starts[:, None] + np.arange(window_length, dtype=np.int64)[None, :]
    if centered and reflect:
        return _reflect_101(idx, length), None
    outside = (idx < 0) | (idx >= length)
    if not outside.any():
        return idx, None
    return np.where(outside, 0, idx), outside


def signal_frames(
    x: np.ndarray,
    window: np.ndarray,
    step: int,
    *,
    centered: bool,
    reflect: bool,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The windows of one signal multiplied by ``window``: ``(nwindows, window_length)``
    (into ``out`` when given, float32 or float64; the products are float32 either way).

    The signal is padded once (mirrored or with zeros) and the windows are strided views of
    it: one multiplication writes them all.

    Args:
        x: A 1-D float32 signal with at least one window.
        window: The window function, float32, ``window_length`` values.
        step: Samples between window starts.
        centered: See `frame_indices`.
        reflect: See `frame_indices`.
        out: Where to write the windows.
    """
    n = len(x)
    wl = len(window)
    nwin = num_windows(n, wl, step, centered=centered)
    left = wl // 2 if centered else 0
    if out is None:
        out = np.empty((nwin, wl), np.float32)
    right = max(0, (nwin - 1) * step - left + wl - n)
    if left or right:
        if centered and reflect:
            lo = x[_reflect_101(np.arange(-left, 0), n)]
            hi = x[_reflect_101(np.arange(n, n + right), n)]
        else:
            lo, hi = np.zeros(left, np.float32), np.zeros(right, np.float32)
        x = np.concatenate([lo, x, hi])
    views = np.lib.stride_tricks.sliding_window_view(x, wl)[::step][:nwin]
    np.multiply(views, window, out=out)
    return out
