"""Audio decoding as DALI does it: libsndfile, then downmixing, resampling, conversion.

DALI decodes audio with libsndfile (WAV, FLAC, OGG/Vorbis and Opus, and the other formats it
reads); so does this module, through ``soundfile`` (whose wheels bundle libsndfile), imported
when the first such clip is opened. PCM and float WAV files, the common case, are read with
numpy instead (`dali._ops.audio._wav`: libsndfile's values, without its per-call costs), so
they need no libsndfile. `decode_clip` is the one rule `decoders.audio` and
`readers.nemo_asr` share (DALI's ``DecodeAudio``):

* nothing to do (no resampling, no downmixing): the frames are read in the output type
  (``sf_readf_short/int/float``: libsndfile's own conversions);
* otherwise they are read as float32 in [-1, 1]; ``downmix`` averages the channels with
  weights ``float32(1 / channels)`` summed channel after channel; a target rate that differs
  from the file's resamples (`dali._ops.audio._resampling`, the windowed sinc of
  `audio_resample`); the result is converted with ``ConvertSatNorm`` (``round(v · 32767)``
  for INT16, saturated).

The decoded array is ``(frames,)`` when ``downmix`` (even for a mono file) and
``(frames, channels)`` otherwise (mono files included), as DALI shapes it.

Example:
    >>> import io, numpy as np, soundfile
    >>> buf = io.BytesIO()
    >>> soundfile.write(buf, np.zeros((100, 2), np.float32), 8000, format="WAV")
    >>> clip = open_clip(np.frombuffer(buf.getvalue(), np.uint8))
    >>> clip.frames, clip.rate, clip.channels
    (100, 8000, 2)
    >>> decode_clip(clip, dtype=np.dtype(np.int16), downmix=True, target_rate=16000.0).shape
    (200,)
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._ops.audio import _wav
from dali._ops.audio._resampling import (
    resample_cpu,
    resampled_length,
    to_output,
    window_for_quality,
)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "SUPPORTED_DTYPES",
    "AudioError",
    "Clip",
    "decode_clip",
    "decoded_length",
    "downmix_channels",
    "open_clip",
    "soundfile_module",
]

#: The output types of the decoders (DALI: INT16, INT32, FLOAT).
SUPPORTED_DTYPES = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.float32))

_SF_DTYPE = {
    np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32",
    np.dtype(np.float32): "float32",
}


class AudioError(ValueError):
    """A clip that cannot be opened or decoded (the message says why, as DALI's)."""


def soundfile_module() -> Any:
    """The ``soundfile`` module, or an ImportError that says how to install it."""
    try:
        import soundfile  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "audio decoding needs the soundfile package (libsndfile): "
            "pip install soundfile  (or: pip install 'dali-core[audio]')"
        ) from e
    except OSError as e:  # pragma: no cover - soundfile without its library
        raise ImportError(f"soundfile could not load libsndfile: {e}") from e
    return soundfile


class Clip:
    """An open audio clip: what its header says, and a read position.

    Two kinds: PCM WAV read with numpy (`dali._ops.audio._wav`: libsndfile's values, without
    its per-call costs) and everything else through libsndfile.

    Attributes:
        frames: Samples per channel.
        rate: Sampling rate in Hz.
        channels: Number of channels.
        name: The clip's file (or ``""``), for messages.
    """

    __slots__ = ("channels", "frames", "handle", "name", "position", "rate", "wav", "wav_data")

    def __init__(self, name: str) -> None:
        self.name = name
        self.handle: Any = None
        self.wav: _wav.WavInfo | None = None
        self.wav_data: np.ndarray | None = None
        self.position = 0
        self.frames = self.rate = self.channels = 0

    @classmethod
    def of_wav(cls, data: np.ndarray, info: _wav.WavInfo, name: str) -> Clip:
        clip = cls(name)
        clip.wav, clip.wav_data = info, data
        clip.frames, clip.rate, clip.channels = info.frames, info.rate, info.channels
        return clip

    @classmethod
    def of_handle(cls, handle: Any, name: str) -> Clip:
        clip = cls(name)
        clip.handle = handle
        clip.frames = int(handle.frames)
        clip.rate = int(handle.samplerate)
        clip.channels = int(handle.channels)
        return clip

    def seek(self, frame: int) -> None:
        """Move the read position to ``frame``."""
        self.position = frame
        if self.handle is not None:
            self.handle.seek(frame)

    def read(self, frames: int, dtype: np.dtype[Any]) -> np.ndarray:
        """``frames`` frames from the read position, ``(frames, channels)`` of ``dtype``
        (float32, int16, int32), with libsndfile's conversions.

        Raises:
            AudioError: The clip ends early, or libsndfile fails.
        """
        data: np.ndarray | None = None
        if self.wav is not None:
            assert self.wav_data is not None
            frames_here = max(0, min(frames, self.frames - self.position))
            data = _wav.read_frames(self.wav_data, self.wav, self.position, frames_here, dtype)
            if data is None:  # a conversion libsndfile must make
                self.handle = soundfile_module().SoundFile(io.BytesIO(self.wav_data.data))
                self.handle.seek(self.position)
                self.wav = None
        if data is None:
            try:
                data = np.asarray(
                    self.handle.read(frames, dtype=_SF_DTYPE[np.dtype(dtype)], always_2d=True)
                )
            except Exception as e:
                raise AudioError(f"Error decoding audio file {self.name}: {e}") from e
        self.position += data.shape[0]
        if data.shape[0] != frames:
            raise AudioError(
                f"Error decoding audio file {self.name}. Requested {frames} samples but got "
                f"{data.shape[0]} samples."
            )
        return data

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None
        self.wav_data = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_clip(
    source: np.ndarray | bytes | str | os.PathLike[str], name: str = "", path: str | None = None
) -> Clip:
    """Open an encoded clip: its bytes (a uint8 array, as read by a reader) or a local path.

    Args:
        source: The encoded bytes, or the path of a local file.
        name: The clip's name in messages (default: the path).
        path: With ``source`` the bytes of a local file: that file, which libsndfile opens
            itself when the clip is not a PCM WAV (no in-memory file to go through).

    Raises:
        AudioError: libsndfile does not recognise the data (DALI's "Failed to open encoded
            data: ..."), or the file cannot be opened.
    """
    data: np.ndarray | None = None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = name or path
        try:
            with open(path, "rb") as f:
                head = f.read(12)
                if head[:4] == b"RIFF" and head[8:12] == b"WAVE":  # maybe ours: read it all
                    f.seek(0)
                    data = np.fromfile(f, np.uint8)
        except OSError as e:
            raise AudioError(
                f"Failed to open encoded data: System error : {e.strerror}., filepath: {path}"
            ) from e
        if data is None:
            return _open_with_libsndfile(path, name)
    name = name or path or ""
    if data is None:
        if isinstance(source, np.ndarray):
            data = np.ascontiguousarray(source, np.uint8).reshape(-1)
        else:
            data = np.frombuffer(source, np.uint8)  # type: ignore[arg-type]
    info = _wav.parse_header(data)
    if info is not None:
        return Clip.of_wav(data, info, name)
    return _open_with_libsndfile(path if path is not None else io.BytesIO(data.data), name)


def _open_with_libsndfile(target: Any, name: str) -> Clip:
    sf = soundfile_module()
    try:
        handle = sf.SoundFile(target)
    except Exception as e:  # soundfile.LibsndfileError, RuntimeError, OSError
        what = getattr(e, "error_string", None) or str(e)
        where = f", filepath: {name}" if name else ""
        raise AudioError(f"Failed to open encoded data: {what}{where}") from e
    return Clip.of_handle(handle, name)


def downmix_channels(x: np.ndarray) -> np.ndarray:
    """Average the channels of a float32 ``(frames, channels)`` array as DALI's ``Downmix``:
    ``x0·w + x1·w + ...`` with ``w = float32(1 / channels)``, summed in float32 in channel
    order."""
    channels = x.shape[1]
    w = np.float32(1) / np.float32(channels)
    out = x[:, 0] * w
    for c in range(1, channels):
        out += x[:, c] * w
    return out


def decoded_length(clip: Clip, frames: int, target_rate: float) -> int:
    """The decoded length of ``frames`` of ``clip`` at ``target_rate`` (<= 0: no resampling)."""
    if target_rate > 0 and clip.rate != target_rate:
        return resampled_length(frames, clip.rate, target_rate)
    return frames


def decode_clip(
    clip: Clip,
    *,
    dtype: np.dtype[Any],
    downmix: bool,
    target_rate: float = 0.0,
    quality: float = 50.0,
    offset: int = 0,
    frames: int | None = None,
) -> np.ndarray:
    """Decode ``frames`` frames of ``clip`` from frame ``offset`` (DALI's ``DecodeAudio``).

    Args:
        clip: The open clip (its read position is moved).
        dtype: The output type (one of `SUPPORTED_DTYPES`).
        downmix: Average the channels into one (the result is then 1-D).
        target_rate: Resample to this rate when > 0 and different from the clip's.
        quality: Resampling quality, 0..100.
        offset: First frame to decode.
        frames: Frames to decode (default: to the end).

    Returns:
        ``(length,)`` with ``downmix``, else ``(length, channels)``.

    Raises:
        AudioError: The clip has fewer frames than its header promised.
    """
    if frames is None:
        frames = clip.frames - offset
    if offset > 0:
        clip.seek(offset)
    should_resample = target_rate > 0 and clip.rate != target_rate
    should_downmix = downmix and clip.channels > 1
    if frames <= 0:
        length = decoded_length(clip, max(frames, 0), target_rate)
        shape = (length,) if downmix else (length, clip.channels)
        return np.zeros(shape, dtype)
    if not should_resample and not should_downmix:
        data = clip.read(frames, np.dtype(dtype))
        return data[:, 0] if downmix else data
    data = clip.read(frames, np.dtype(np.float32))
    signal = downmix_channels(data) if should_downmix else data
    if should_resample:
        length = resampled_length(frames, clip.rate, target_rate)
        signal = resample_cpu(
            signal, float(clip.rate), float(target_rate), length, window_for_quality(quality)
        )
    out = to_output(signal, np.dtype(dtype))
    if downmix and out.ndim == 2:  # a mono clip, resampled
        out = out[:, 0]
    return out
