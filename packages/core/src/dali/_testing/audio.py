"""Deterministic audio clips and NeMo ASR manifests for tests, conformance cases and examples.

Every function is a pure function of its arguments: the same seed gives the same samples, and
(with one libsndfile build) the same file bytes, so tests can compare decoded samples between
runs and between this library and DALI. Files are written with ``soundfile`` (libsndfile, the
library DALI decodes audio with), imported only when a file is written.

* `audio_signal`: a ``(length, channels)`` float32 clip in [-1, 1]: a few harmonics of a
  per-channel pitch, an amplitude envelope and a little noise, optionally framed by silence
  (for silence detection).
* `write_clip`: `audio_signal` written as WAV (16-bit PCM unless told), FLAC or OGG/Vorbis,
  chosen by the file's extension.
* `make_nemo_dataset`: ``n`` clips and a NeMo JSON-lines manifest naming them, with
  durations, transcripts and offsets, as `fn.readers.nemo_asr` reads.

Example:
    >>> import tempfile, os
    >>> path = write_clip(os.path.join(tempfile.mkdtemp(), "a.wav"), length=1000, rate=16000)
    >>> import soundfile
    >>> soundfile.info(str(path)).frames, soundfile.info(str(path)).samplerate
    (1000, 16000)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMATS", "audio_signal", "make_nemo_dataset", "write_clip"]

#: File extension -> (libsndfile major format, default subtype).
FORMATS: dict[str, tuple[str, str]] = {
    ".wav": ("WAV", "PCM_16"),
    ".flac": ("FLAC", "PCM_16"),
    ".ogg": ("OGG", "VORBIS"),
}


def _soundfile() -> Any:
    try:
        import soundfile  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("dali._testing.audio needs soundfile: pip install soundfile") from e
    return soundfile


def audio_signal(
    length: int,
    rate: int = 16000,
    channels: int = 1,
    seed: int = 0,
    *,
    silence: int = 0,
    amplitude: float = 0.5,
) -> np.ndarray:
    """A deterministic ``(length, channels)`` float32 clip with values in [-1, 1].

    Each channel is three harmonics of its own pitch (between 110 and 880 Hz, below the
    Nyquist frequency of ``rate``) under a slow amplitude envelope, plus white noise 40 dB
    below the tone. ``silence`` frames at each end are exact zeros.

    Args:
        length: Number of frames (samples per channel).
        rate: Sampling rate in Hz (sets the pitch in cycles per sample).
        channels: Number of channels.
        seed: Selects the pitches, phases and noise.
        silence: Frames of zeros at the start and at the end (within ``length``).
        amplitude: Peak amplitude of the tone (before noise).

    Returns:
        float32 array of shape ``(length, channels)``.
    """
    rng = np.random.default_rng(seed)
    t = np.arange(length, dtype=np.float64) / rate
    out = np.zeros((length, channels), np.float64)
    nyquist = rate / 2
    for c in range(channels):
        f0 = min(float(rng.uniform(110.0, 880.0)), nyquist / 4)
        phases = rng.uniform(0, 2 * np.pi, 3)
        tone = sum(
            np.sin(2 * np.pi * f0 * (k + 1) * t + phases[k]) / (k + 1)
            for k in range(3)
            if f0 * (k + 1) < nyquist
        )
        envelope = 0.6 + 0.4 * np.sin(2 * np.pi * float(rng.uniform(0.5, 3.0)) * t)
        out[:, c] = amplitude * envelope * np.asarray(tone) / 1.84
        out[:, c] += 0.01 * amplitude * rng.standard_normal(length)
    if silence:
        out[: min(silence, length)] = 0
        out[max(length - silence, 0) :] = 0
    return np.clip(out, -1.0, 1.0).astype(np.float32)


def write_clip(
    path: str | os.PathLike[str],
    *,
    length: int,
    rate: int = 16000,
    channels: int = 1,
    seed: int = 0,
    subtype: str | None = None,
    silence: int = 0,
) -> Path:
    """Write `audio_signal` to ``path``; the format follows the extension (.wav, .flac, .ogg).

    Args:
        path: Output file; its folder must exist.
        length: Number of frames.
        rate: Sampling rate in Hz stored in the file.
        channels: Number of channels.
        seed: Selects the content (see `audio_signal`).
        subtype: libsndfile subtype (``"PCM_16"``, ``"PCM_24"``, ``"PCM_32"``, ``"FLOAT"``,
            ``"VORBIS"``, ...); by default 16-bit PCM for WAV and FLAC, Vorbis for OGG.
        silence: Frames of zeros at each end.

    Returns:
        The path written.
    """
    sf = _soundfile()
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"unknown audio extension {ext!r}; expected one of {sorted(FORMATS)}")
    fmt, default_subtype = FORMATS[ext]
    data = audio_signal(length, rate, channels, seed, silence=silence)
    sf.write(str(path), data, rate, format=fmt, subtype=subtype or default_subtype)
    return path


_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")


def make_nemo_dataset(
    root: str | os.PathLike[str],
    n: int = 8,
    *,
    rate: int = 16000,
    channels: int = 1,
    ext: str = ".wav",
    min_length: int = 1600,
    max_length: int = 8000,
    seed: int = 0,
    offsets: bool = False,
    relative: bool = True,
    manifest: str = "manifest.json",
) -> tuple[Path, list[dict[str, Any]]]:
    """Write ``n`` clips under ``root`` and a NeMo JSON-lines manifest naming them.

    Each manifest line has ``audio_filepath`` (absolute, or with ``relative`` for odd entries
    only the file name: DALI opens it from the current folder), ``duration`` (seconds), ``text``
    (a few words, with one non-ASCII character in every third transcript) and, with
    ``offsets``, an ``offset`` into the file (seconds) with a shorter ``duration``.

    Args:
        root: Folder to write into (created if missing).
        n: Number of clips.
        rate: Sampling rate of every clip.
        channels: Channels of every clip.
        ext: File format by extension (.wav, .flac, .ogg).
        min_length: Shortest clip, frames.
        max_length: Longest clip, frames.
        seed: Selects lengths, contents and transcripts.
        offsets: Give every entry an ``offset`` and a ``duration`` shorter than the file.
        relative: Name odd entries' files by their name alone.
        manifest: Manifest file name within ``root``.

    Returns:
        ``(manifest path, entries)``; each entry is the manifest line as a dict plus
        ``"frames"`` (the file's length) and ``"path"`` (absolute).
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    entries: list[dict[str, Any]] = []
    lines: list[str] = []
    for i in range(n):
        frames = int(rng.integers(min_length, max_length + 1))
        path = write_clip(
            root / f"clip_{i:03d}{ext}",
            length=frames,
            rate=rate,
            channels=channels,
            seed=seed * 1000 + i,
        )
        words = [_WORDS[int(k)] for k in rng.integers(0, len(_WORDS), 1 + i % 4)]
        text = " ".join(words) + (" café" if i % 3 == 2 else "")
        line: dict[str, Any] = {
            "audio_filepath": path.name if relative and i % 2 else str(path),
            "duration": frames / rate,
            "text": text,
        }
        if offsets:
            start = int(rng.integers(0, frames // 4 + 1))
            line["offset"] = start / rate
            line["duration"] = (frames - start) / 2 / rate
        lines.append(json.dumps(line, ensure_ascii=False))
        entries.append({**line, "frames": frames, "path": str(path)})
    manifest_path = root / manifest
    manifest_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest_path, entries
