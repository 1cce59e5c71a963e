"""Rows of `operators.py`: audio decoding, resampling and the NeMo ASR reader, on batches of
speech-length clips (`dali._testing.audio`: tones and noise, 16 kHz mono or 44.1 kHz stereo).

The reader row reads 16 WAV files from a temporary folder per batch (the feed is a dummy
input, subtracted as for every row)."""

from __future__ import annotations

import atexit
import io
import shutil
import tempfile
from pathlib import Path

import numpy as np
from operators import Bench

_B = 16


def _encoded(fmt: str, seconds: float, rate: int, channels: int) -> list[list[np.ndarray]]:
    """``_B`` clips of ``seconds`` (a little longer each), encoded in memory."""
    import soundfile
    from dali._testing.audio import FORMATS, audio_signal

    major, subtype = FORMATS[fmt]
    blobs = []
    for k in range(_B):
        buf = io.BytesIO()
        x = audio_signal(int(rate * seconds) + 97 * k, rate, channels, seed=k)
        soundfile.write(buf, x, rate, format=major, subtype=subtype)
        blobs.append(np.frombuffer(buf.getvalue(), np.uint8))
    return [blobs]


def _signals(seconds: float, rate: int, channels: int) -> list[list[np.ndarray]]:
    from dali._testing.audio import audio_signal

    out = []
    for k in range(_B):
        x = audio_signal(int(rate * seconds) + 97 * k, rate, channels, seed=k)
        out.append(x[:, 0].copy() if channels == 1 else x)
    return [out]


_MANIFEST: list[str] = []


def _manifest() -> list[list[np.ndarray]]:
    """A NeMo manifest of ``_B`` WAV clips (16 kHz mono, about 3 s); a dummy input batch."""
    from dali._testing.audio import make_nemo_dataset

    if not _MANIFEST:
        root = Path(tempfile.mkdtemp(prefix="dali-bench-nemo-"))
        atexit.register(shutil.rmtree, root, True)
        path, _ = make_nemo_dataset(root, _B, min_length=44000, max_length=52000, relative=False)
        _MANIFEST.append(str(path))
    return [[np.zeros(1, np.uint8)] * _B]


def _nemo(fn, types, dummy, **kw):  # type: ignore[no-untyped-def]
    return tuple(fn.readers.nemo_asr(manifest_filepaths=_MANIFEST, **kw))


_M16 = " 16x3s 16kHz mono"
_S44 = " 16x2s 44.1kHz stereo"
BENCHES = [
    Bench("decoders.audio wav" + _M16, lambda fn, t, x: tuple(fn.decoders.audio(x)),
          lambda: _encoded(".wav", 3.0, 16000, 1)),
    Bench("decoders.audio(dtype=INT16) wav" + _M16,
          lambda fn, t, x: tuple(fn.decoders.audio(x, dtype=t.INT16)),
          lambda: _encoded(".wav", 3.0, 16000, 1)),
    Bench("decoders.audio flac" + _M16, lambda fn, t, x: tuple(fn.decoders.audio(x)),
          lambda: _encoded(".flac", 3.0, 16000, 1)),
    Bench("decoders.audio ogg" + _M16, lambda fn, t, x: tuple(fn.decoders.audio(x)),
          lambda: _encoded(".ogg", 3.0, 16000, 1)),
    Bench("decoders.audio(downmix, sample_rate=16000) wav" + _S44,
          lambda fn, t, x: tuple(fn.decoders.audio(x, downmix=True, sample_rate=16000.0)),
          lambda: _encoded(".wav", 2.0, 44100, 2)),
    Bench("audio_resample(44100->16000) f32" + _S44.replace("stereo", "mono"),
          lambda fn, t, x: fn.audio_resample(x, in_rate=44100.0, out_rate=16000.0),
          lambda: _signals(2.0, 44100, 1)),
    Bench("audio_resample(scale=1.5, quality=100) f32" + _M16,
          lambda fn, t, x: fn.audio_resample(x, scale=1.5, quality=100.0),
          lambda: _signals(3.0, 16000, 1)),
    Bench("audio_resample(44100->16000) f32" + _S44,
          lambda fn, t, x: fn.audio_resample(x, in_rate=44100.0, out_rate=16000.0),
          lambda: _signals(2.0, 44100, 2)),
    Bench("readers.nemo_asr wav" + _M16, _nemo, _manifest),
    Bench("readers.nemo_asr(sample_rate=8000) wav" + _M16,
          lambda fn, t, d: _nemo(fn, t, d, sample_rate=8000.0), _manifest),
]  # fmt: skip
