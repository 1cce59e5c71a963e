"""Rows of `operators.py`: the spectral audio operators on a batch of 32 clips of 1 s at 16 kHz
(ragged: 0.75 to 1.25 s), float32, and on the spectrograms an ASR front end makes of them."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32
_RATE = 16000


def _clips() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(3)
    out = []
    for k in range(_B):
        n = int(_RATE * (0.75 + 0.5 * k / (_B - 1)))
        t = np.arange(n) / _RATE
        x = 0.5 * np.sin(2 * np.pi * (300 + 20 * k) * t) + 0.05 * rng.standard_normal(n)
        x[: n // 5] *= 1e-3  # quiet lead-in: nonsilent_region has something to cut
        out.append(x.astype(np.float32))
    return [out]


def _spectrograms() -> list[list[np.ndarray]]:
    """Power spectrograms (257 bins, ``ft``), as `spectrogram(nfft=512, 400, 160)` makes them."""
    rng = np.random.default_rng(4)
    return [[(10 ** rng.uniform(-6, 2, (257, 76 + k))).astype(np.float32) for k in range(_B)]]


def _log_mel() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(5)
    return [[rng.normal(-30, 10, (64, 76 + k)).astype(np.float32) for k in range(_B)]]


def _asr(fn, t, x):  # type: ignore[no-untyped-def]
    x = fn.preemphasis_filter(x)
    spec = fn.spectrogram(x, nfft=512, window_length=400, window_step=160)
    mel = fn.mel_filter_bank(spec, sample_rate=_RATE, nfilter=64)
    return fn.mfcc(fn.to_decibels(mel, cutoff_db=-80.0), n_mfcc=20)


_S = " 32x16k f32"
_SPEC = " 32x257x(76-107) f32"
BENCHES = [
    Bench("preemphasis_filter()" + _S, lambda fn, t, x: fn.preemphasis_filter(x), _clips, ("",)),
    Bench("preemphasis_filter(border=zero, dtype=INT16)" + _S,
          lambda fn, t, x: fn.preemphasis_filter(x, border="zero", dtype=t.INT16), _clips, ("",)),
    Bench("spectrogram(nfft=512, 400, 160)" + _S,
          lambda fn, t, x: fn.spectrogram(x, nfft=512, window_length=400, window_step=160),
          _clips, ("",)),
    Bench("spectrogram(default 512/256, tf, power=1)" + _S,
          lambda fn, t, x: fn.spectrogram(x, layout="tf", power=1), _clips, ("",)),
    Bench("power_spectrum(nfft=512) 32x(30x320) f32",
          lambda fn, t, x: fn.power_spectrum(x, nfft=512),
          lambda: [[c[: 30 * 320].reshape(30, 320) for c in _clips()[0]]], ("",)),
    Bench("mel_filter_bank(nfilter=64, 16 kHz)" + _SPEC,
          lambda fn, t, x: fn.mel_filter_bank(x, nfilter=64, sample_rate=_RATE),
          _spectrograms, ("ft",)),
    Bench("mel_filter_bank(nfilter=128, htk) tf" + _SPEC,
          lambda fn, t, x: fn.mel_filter_bank(x, nfilter=128, mel_formula="htk"),
          lambda: [[np.ascontiguousarray(s.T) for s in _spectrograms()[0]]], ("tf",)),
    Bench("to_decibels(cutoff_db=-80)" + _SPEC,
          lambda fn, t, x: fn.to_decibels(x, cutoff_db=-80.0), _spectrograms, ("ft",)),
    Bench("mfcc(n_mfcc=20) 32x64x(76-107) f32", lambda fn, t, x: fn.mfcc(x, n_mfcc=20),
          _log_mel, ("",)),
    Bench("mfcc(40, ortho, lifter=22) 32x64x(76-107) f32",
          lambda fn, t, x: fn.mfcc(x, n_mfcc=40, normalize=True, lifter=22.0), _log_mel, ("",)),
    Bench("nonsilent_region()" + _S, lambda fn, t, x: tuple(fn.nonsilent_region(x)), _clips,
          ("",)),
    Bench("nonsilent_region(window_length=256, reset_interval=-1)" + _S,
          lambda fn, t, x: tuple(fn.nonsilent_region(x, window_length=256, reset_interval=-1)),
          _clips, ("",)),
    Bench("ASR front end (preemph > spectrogram > mel > dB > mfcc)" + _S, _asr, _clips, ("",)),
]  # fmt: skip
