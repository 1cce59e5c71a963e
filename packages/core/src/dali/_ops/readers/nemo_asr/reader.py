"""`fn.readers.nemo_asr` (``fn.nemo_asr_reader``, its deprecated alias): speech and transcripts
from NVIDIA NeMo manifests.

A NeMo manifest is a JSON-lines file, one clip a line::

    {"audio_filepath": "clips/a.wav", "duration": 3.45, "text": "this is a nemo tutorial"}
    {"audio_filepath": "clips/a.wav", "offset": 3.45, "duration": 1.45, "text": "same file"}

The reader lists its manifests once, at build (in order, each line in order), as DALI's
``NemoAsrLoader`` does:

* a line that is not a JSON object, or has no ``audio_filepath``, is skipped with a warning;
  other fields are ignored;
* ``max_duration`` / ``min_duration`` (when > 0) drop the entries whose ``duration`` is longer /
  shorter (an entry without a ``duration`` counts as -1 s: dropped by ``min_duration``);
* ``read_idxs`` gives each entry's index among the kept entries of *its* manifest (the count
  restarts with every manifest);
* ``audio_filepath`` is opened as written (a relative path is relative to the current folder,
  as in DALI), or is an fsspec URL.

Every sample is then one entry, decoded when its batch is made (on the pipeline's threads):
from frame ``int(offset · rate)``, ``int(duration · rate)`` frames (to the end of the file
without a ``duration``), decoded as `fn.decoders.audio` decodes (`dali._ops.audio.codecs`):
``downmix`` (default True: 1-D output), ``sample_rate`` (resampling when > 0), ``quality``,
``dtype`` (FLOAT, INT16, INT32). The outputs are, in order:

* the audio: ``(frames,)``, or ``(frames, channels)`` with ``downmix=False``;
* with ``read_sample_rate`` (default True): the file's sampling rate, a float32 scalar (DALI
  reports the file's rate even when ``sample_rate`` resamples);
* with ``read_text`` (default True): the transcript's UTF-8 bytes, uint8 ``(len,)``;
* with ``read_idxs``: the entry's index, int64 ``(1,)``.

Sharding, ``random_shuffle``, ``shuffle_after_epoch``, ``pad_last_batch``, ``stick_to_shard``,
``reader_meta`` and checkpoints are those of every reader here (`dali._ops.readers.loader`).
Each sample's ``source_info`` is its ``audio_filepath`` (DALI 2.4 leaves it empty).

Example:
    >>> import os, tempfile
    >>> from dali import fn, pipeline_def
    >>> from dali._testing.audio import make_nemo_dataset
    >>> manifest, entries = make_nemo_dataset(tempfile.mkdtemp(), 4)
    >>> here = os.getcwd(); os.chdir(manifest.parent)  # relative paths: from the current folder
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     audio, rate, text = fn.readers.nemo_asr(manifest_filepaths=[str(manifest)])
    ...     return audio, rate, text
    >>> audio, rate, text = pipe().run()
    >>> os.chdir(here)
    >>> audio.at(0).shape == (entries[0]["frames"],), float(rate.at(0)), bytes(text.at(1))
    (True, 16000.0, b'charlie charlie')
"""

from __future__ import annotations

import json
import logging
import math
import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.audio.codecs import AudioError, decode_clip, open_clip
from dali._ops.audio.decoder import check_output_dtype, check_quality
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.storage import access as _storage
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ManifestEntry", "NemoAsr", "parse_manifest"]

_log = logging.getLogger("dali")


class ManifestEntry(NamedTuple):
    """One kept manifest line."""

    audio_filepath: str
    #: seconds; -1 when the line has none
    duration: float
    #: seconds
    offset: float
    #: the index among the kept entries of its manifest (``read_idxs``)
    idx: int
    text: str


def _number(value: Any, default: float) -> float | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def parse_manifest(
    text: str,
    *,
    min_duration: float = 0.0,
    max_duration: float = 0.0,
    read_text: bool = True,
    source: str = "",
) -> tuple[list[ManifestEntry], list[str]]:
    """The entries of one NeMo manifest (DALI's ``detail::ParseManifest``) and the warnings
    about the lines it skipped.

    Raises:
        ValueError: A field has the wrong JSON type (DALI 2.4 aborts on those), naming the line.
    """
    entries: list[ManifestEntry] = []
    skipped: list[str] = []
    index = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line is not a line (as std::getline reads them)
    for number, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            skipped.append(f"Skipping invalid manifest line {number}: {line}")
            continue
        path = obj.get("audio_filepath")
        if path is not None and not isinstance(path, str):
            raise ValueError(f"{source} line {number}: `audio_filepath` must be a string")
        if not path:
            skipped.append(f"Skipping manifest line {number} without an audio filepath: {line}")
            continue
        duration = _number(obj.get("duration"), -1.0)
        offset = _number(obj.get("offset"), 0.0)
        if duration is None or offset is None:
            bad = "duration" if duration is None else "offset"
            raise ValueError(f"{source} line {number}: `{bad}` must be a number")
        transcript = ""
        if read_text and "text" in obj:
            if not isinstance(obj["text"], str):
                raise ValueError(f"{source} line {number}: `text` must be a string")
            transcript = obj["text"]
        if (max_duration > 0 and duration > max_duration) or (
            min_duration > 0 and duration < min_duration
        ):
            continue
        entries.append(ManifestEntry(path, duration, offset, index, transcript))
        index += 1
    return entries, skipped


def _outputs(args: Any) -> int:
    return (
        1
        + bool(args.get("read_sample_rate", True))
        + bool(args.get("read_text", True))
        + bool(args.get("read_idxs", False))
    )


@register(
    "readers.nemo_asr",
    devices=("cpu",),
    inputs=0,
    outputs=_outputs,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    args=[
        Arg("manifest_filepaths", "str_vec", default=REQUIRED, doc="NeMo manifest files."),
        Arg("read_sample_rate", "bool", default=True, doc="Output the sampling rate."),
        Arg("read_text", "bool", default=True, doc="Output the transcript (UTF-8 bytes)."),
        Arg("read_idxs", "bool", default=False, doc="Output the entry's index in its manifest."),
        Arg("max_duration", "float", default=0.0, doc="If > 0, drop longer entries (s)."),
        Arg("min_duration", "float", default=0.0, doc="If > 0, drop shorter entries (s)."),
        Arg("sample_rate", "float", default=-1.0, doc="If > 0, resample to this rate (Hz)."),
        Arg("quality", "float", default=50.0, doc="Resampling quality 0..100 (3..64 lobes)."),
        Arg("downmix", "bool", default=True, doc="Average the channels (1-D output)."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Output type: INT16, INT32, FLOAT."),
        Arg("normalize_text", "bool", doc="Deprecated; no longer used."),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class NemoAsr(IndexedReader):
    """Reads automatic speech recognition (ASR) data (audio, text) from an NVIDIA NeMo
    compatible manifest.

    Example manifest file::

        {"audio_filepath": "path/to/audio1.wav", "duration": 3.45, "text": "this is a nemo tutorial"}
        {"audio_filepath": "path/to/audio1.wav", "offset": 3.45, "duration": 1.45, "text": "same audio file but using offset"}
        {"audio_filepath": "path/to/audio2.wav", "duration": 3.45, "text": "third transcript in this example"}

    Only ``audio_filepath`` is mandatory. Without ``duration`` the audio is read to the end
    of the file (from ``offset``); a missing ``text`` gives an empty transcript.

    This reader produces between 1 and 4 outputs:

    - Decoded audio data: ``dtype``, ``(audio_length,)`` (``(audio_length, channels)`` with
      ``downmix=False``)
    - (optional, if ``read_sample_rate=True``) Audio sample rate: float, a scalar
    - (optional, if ``read_text=True``) Transcript text as UTF-8 bytes: uint8, ``(text_len,)``
    - (optional, if ``read_idxs=True``) Index of the manifest entry: int64, ``(1,)``
    """

    # -- listing --------------------------------------------------------------------------
    def check_arguments(self) -> None:
        if not list(self.arg("manifest_filepaths")):
            raise self.arg_error("manifest_filepaths", "``manifest_filepaths`` can not be empty")
        self._dtype = check_output_dtype(self)
        self._quality = check_quality(self)
        self._downmix = bool(self.arg("downmix"))
        self._target = float(np.float32(self.arg("sample_rate")))
        self._outs = (
            bool(self.arg("read_sample_rate")),
            bool(self.arg("read_text")),
            bool(self.arg("read_idxs")),
        )
        if self.has_arg("normalize_text"):
            warnings.warn(
                "The argument `normalize_text` is no longer used and will be removed in a "
                "future release.",
                DeprecationWarning,
                stacklevel=2,
            )
        if self.has_arg("shuffle_after_epoch_seed") and not self.arg("shuffle_after_epoch"):
            _log.warning(
                "%s (%s): `shuffle_after_epoch_seed` has no effect when `shuffle_after_epoch` "
                "is False.",
                self.display_name,
                self.name,
            )

    def list_samples(self) -> int:
        entries: list[ManifestEntry] = []
        for path in self.arg("manifest_filepaths"):
            try:
                text = _storage.read_text(path)
            except OSError as e:
                raise self.arg_error(
                    "manifest_filepaths", f'Could not open NEMO ASR manifest file: "{path}"'
                ) from e
            try:
                found, skipped = parse_manifest(
                    text,
                    min_duration=float(np.float32(self.arg("min_duration"))),
                    max_duration=float(np.float32(self.arg("max_duration"))),
                    read_text=self._outs[1],
                    source=path,
                )
            except ValueError as e:
                raise self.arg_error("manifest_filepaths", str(e)) from e
            for message in skipped:
                _log.warning("%s (%s): %s: %s", self.display_name, self.name, path, message)
            entries.extend(found)
        if not entries:
            raise self.arg_error("manifest_filepaths", "No files found.")
        self._entries = entries
        self._texts = [np.frombuffer(e.text.encode("utf-8"), np.uint8) for e in entries]
        return len(entries)

    def source_info(self, index: int) -> str:
        return self._entries[index].audio_filepath

    # -- reading --------------------------------------------------------------------------
    def _decode(self, entry: ManifestEntry) -> tuple[np.ndarray, float]:
        path = entry.audio_filepath
        source: Any = path
        if _storage.is_url(path):
            source = _storage.read_bytes(path)
        if math.isnan(entry.duration) or math.isnan(entry.offset):
            raise AudioError(f"the offset or duration of {path} is NaN")
        with open_clip(source, path) as clip:
            rate = clip.rate
            # DALI's ProcessOffsetAndLength: truncated products, clipped to the file
            offset = int(entry.offset * rate) if entry.offset >= 0 else 0
            length = int(entry.duration * rate) if entry.duration >= 0 else clip.frames
            if offset + length > clip.frames:
                length = clip.frames - offset
            if length < 0 or offset < 0:
                raise AudioError(
                    f"the offset {entry.offset:g} s (frame {offset}) lies beyond the end of "
                    f"{path} ({clip.frames} frames)"
                )
            audio = decode_clip(
                clip,
                dtype=self._dtype,
                downmix=self._downmix,
                target_rate=self._target,
                quality=self._quality,
                offset=offset,
                frames=length,
            )
        return audio, float(rate)

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        infos = self.batch_infos(ws)
        picked = [self._entries[k] for k in ids.tolist()]

        def one(i: int) -> tuple[np.ndarray, float]:
            try:
                return self._decode(picked[i])
            except (AudioError, OSError) as e:
                raise SampleFailure(i, self.error(str(e))) from e

        results = ws.map(one, len(picked))
        ndim = 1 if self._downmix else 2
        outs = [
            TensorListCPU.wrap([a for a, _ in results], "", infos, dtype=self._dtype, ndim=ndim)
        ]
        read_rate, read_text, read_idxs = self._outs
        if read_rate:
            rates = np.array([r for _, r in results], np.float32)
            outs.append(TensorListCPU.wrap(rates, "", infos))
        if read_text:
            texts = [self._texts[k] for k in ids.tolist()]
            outs.append(TensorListCPU.wrap(texts, "", infos, dtype=np.uint8, ndim=1))
        if read_idxs:
            idx = np.array([[e.idx] for e in picked], np.int64)
            outs.append(TensorListCPU.wrap(idx, "", infos))
        return tuple(outs)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        downmix = bool(args.get("downmix", True))
        metas: list[dict[str, Any]] = [
            {
                "dtype": args.get("dtype", DALIDataType.FLOAT),
                "static_shape": (None,) if downmix else (None, None),
                "layout": "",
            }
        ]
        if args.get("read_sample_rate", True):
            metas.append({"dtype": DALIDataType.FLOAT, "static_shape": (), "layout": ""})
        if args.get("read_text", True):
            metas.append({"dtype": DALIDataType.UINT8, "static_shape": (None,), "layout": ""})
        if args.get("read_idxs", False):
            metas.append({"dtype": DALIDataType.INT64, "static_shape": (1,), "layout": ""})
        return metas
