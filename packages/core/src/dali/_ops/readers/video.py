"""`fn.readers.video` and `fn.experimental.readers.video`: sequences of frames from video files.

Both list their files at build (``filenames``, a class tree ``file_root`` or a ``file_list`` of
``path label [start [end]]`` lines), index every file (`_ops.video._container`: frame count,
key frames, timestamps; every unreadable, corrupt, unsupported or — for the legacy reader —
variable-frame-rate file is an error naming it, where DALI skips it with a warning) and
enumerate the samples: sequences of ``sequence_length`` frames ``stride`` apart, one every
``step`` frames, with each reader's own rules (DALI keeps both):

* ``readers.video`` (DALI's legacy NVDEC reader): a sequence spans ``(sequence_length - 1) *
  stride + 1`` frames; ``step`` defaults to ``sequence_length``; ``pad_sequences`` adds the
  sequences that run past the end, their missing frames black (timestamps -1); ``dtype``
  UINT8 or FLOAT (``normalized`` to [0, 1]);
* ``experimental.readers.video``: a sequence needs ``stride * sequence_length`` frames;
  ``step`` defaults to that; ``pad_mode`` ("constant" with ``fill_value``, "edge",
  "reflect_1001", "reflect_101") adds the sequences that start before the end of the file
  while the previous one did not reach it; ``uniform_sample`` takes one sequence per file,
  ``sequence_length`` frames evenly spread over it.

The samples are then read like any other reader's (`_indexed.IndexedReader`: sharding, both
shuffles, padding, checkpoints) and decoded frame-exactly (`_ops.video._clips`): on the CPU
with PyAV, on the GPU with NVDEC, the same frames and — by the shared colour conversion — the
same bytes. While a batch is read, the samples of the next batches
(`IndexedReader.upcoming_batches`: at least ``options.VIDEO_DECODE_AHEAD``, more while they
give the threads few runs, `_ops.video._clips.window_ahead`) are decoded ahead on threads of
their own (`_ops.video._ahead`): a batch of consecutive sequences comes from one or two files,
so the next batches' files keep the other decoders busy. The batches are the same with or without
it, after a checkpoint restore or an epoch's reshuffle too (a sample decoded ahead is kept
under its dataset index and frames); in worker processes (the consumer plans the batches)
each batch is decoded on its own. DALI runs the legacy reader on the GPU only and the CPU backend of the new one only
for VP8, VP9 and MJPEG; here both run on both backends for every codec in
`_container.CODECS`.

Outputs: ``video`` (``FHWC``), then ``label`` (int32 ``(1,)``) when there are labels
(``labels`` with ``filenames``, ``file_root`` or ``file_list``), ``frame_num`` (int32: the first
frame ``(1,)``, or with ``enable_frame_num="sequence"`` every frame ``(F,)``, -1 for padding)
and ``timestamps`` (float64 seconds ``(F,)``, -1 for padding) when enabled.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.readers.loader.indexed import NON_SEMANTIC, READER_ARGS, IndexedReader
from dali._ops.readers.loader.listing import list_file_root
from dali._ops.video._clips import Clip, VideoFrames, pad_frames, padding_colour
from dali._ops.video._container import VideoError, VideoIndex, index_video
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ExperimentalVideoReader", "LegacyVideoReader"]

_INDEX_THREADS = 8


def _frame_num_policy(value: Any) -> str:
    if value is True:
        return "scalar"
    if value is False or value is None:
        return "none"
    return str(value).lower()


def _has_labels(args: Mapping[str, Any]) -> bool:
    return bool(args.get("labels") is not None and args.get("filenames")) or bool(
        args.get("file_root") or args.get("file_list")
    )


def _legacy_outputs(args: Mapping[str, Any]) -> int:
    n = 1 + _has_labels(args)
    if args.get("file_list") or args.get("filenames"):
        n += _frame_num_policy(args.get("enable_frame_num", "none")) != "none"
        n += bool(args.get("enable_timestamps", False))
    return n


def _experimental_outputs(args: Mapping[str, Any]) -> int:
    n = 1 + _has_labels(args)
    n += _frame_num_policy(args.get("enable_frame_num", "none")) != "none"
    n += bool(args.get("enable_timestamps", False))
    return n


_SOURCE_ARGS = [
    Arg("filenames", "str_vec", default=[], doc="Video files."),
    Arg("labels", "int_vec", doc="A label per file of ``filenames``."),
    Arg("file_root", "str", default="", doc="A class tree: one subdirectory per label."),
    Arg("file_list", "str", default="", doc="Lines of ``path label [start [end]]``."),
    Arg("sequence_length", "int", default=REQUIRED, doc="Frames per sequence."),
    Arg("stride", "int", default=1, doc="Distance between consecutive frames of a sequence."),
    Arg("step", "int", default=-1, doc="Frames between the starts of consecutive sequences."),
    Arg("enable_frame_num", "any", default="none", doc="Output frame numbers (see above)."),
    Arg("enable_timestamps", "bool", default=False, doc="Output the frames' timestamps."),
    Arg("image_type", "image_type", default=DALIImageType.RGB, doc="RGB or YCbCr."),
]


class _VideoReader(IndexedReader):
    """What both video readers share: listing, indexing, decoding; subclasses enumerate."""

    legacy = True

    # -- listing ----------------------------------------------------------------------------
    def check_arguments(self) -> None:
        given = [n for n in ("filenames", "file_root", "file_list") if self.arg(n)]
        if len(given) != 1:
            raise self.error(
                "exactly one of `filenames`, `file_root` or `file_list` must be given, got "
                + (", ".join(f"`{n}`" for n in given) or "none")
            )
        if self.arg("sequence_length") < 1:
            raise self.arg_error(
                "sequence_length", f"must be >= 1, got {self.arg('sequence_length')}"
            )
        if self.arg("stride") < 1:
            raise self.arg_error("stride", f"must be >= 1, got {self.arg('stride')}")
        if self.arg("step") == 0:
            raise self.arg_error("step", "must not be 0")
        if self.has_arg("labels") and not self.arg("filenames"):
            raise self.arg_error("labels", "is valid only with `filenames`")
        labels = self.arg("labels") if self.has_arg("labels") else None
        if labels is not None and len(labels) and len(labels) != len(self.arg("filenames")):
            raise self.arg_error(
                "labels",
                f"{len(labels)} labels for {len(self.arg('filenames'))} files",
            )
        policy = _frame_num_policy(self.arg("enable_frame_num"))
        if policy not in ("none", "scalar", "sequence"):
            raise self.arg_error(
                "enable_frame_num", f"must be 'none', 'scalar' or 'sequence', got {policy!r}"
            )
        self._frame_num = policy
        image_type = self.arg("image_type")
        if image_type not in (DALIImageType.RGB, DALIImageType.YCbCr):
            raise self.arg_error("image_type", f"must be RGB or YCbCr, got {image_type}")
        self._ycbcr = image_type == DALIImageType.YCbCr
        self.check_reader_arguments()

    def check_reader_arguments(self) -> None:
        """The subclass's own argument checks."""

    def _entries(self) -> list[tuple[str, int, float, float]]:
        """``(path, label, start, end)`` of every file (start = end = 0: the whole file)."""
        if self.arg("filenames"):
            files = list(self.arg("filenames"))
            labels = self.arg("labels") if self.has_arg("labels") else None
            labels = list(labels) if labels else [0] * len(files)
            return [(f, int(lab), 0.0, 0.0) for f, lab in zip(files, labels)]
        if self.arg("file_root"):
            root = self.arg("file_root")
            if not os.path.isdir(root):
                raise self.arg_error("file_root", f"'{root}' is not a directory")
            listing = list_file_root(root, file_filters=("*",))
            return [
                (os.path.join(root, p), lab, 0.0, 0.0)
                for p, lab in zip(listing.paths, listing.labels)
            ]
        path = self.arg("file_list")
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise self.arg_error("file_list", f"cannot read '{path}': {e.strerror or e}") from e
        base = os.path.dirname(path)
        entries = []
        for number, line in enumerate(lines, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) < 2 or len(parts) > 4:
                raise self.arg_error(
                    "file_list", f"line {number} of '{path}' is not `path label [start [end]]`"
                )
            try:
                label = int(parts[1])
                start = float(parts[2]) if len(parts) > 2 else 0.0
                end = float(parts[3]) if len(parts) > 3 else 0.0
            except ValueError:
                raise self.arg_error(
                    "file_list", f"line {number} of '{path}' has a bad label, start or end"
                ) from None
            file = parts[0] if os.path.isabs(parts[0]) else os.path.join(base, parts[0])
            entries.append((file, label, start, end))
        return entries

    def _index(self, paths: list[str]) -> list[VideoIndex]:
        def one(path: str) -> VideoIndex | Exception:
            try:
                return index_video(path)
            except (VideoError, ImportError) as e:
                return e

        with concurrent.futures.ThreadPoolExecutor(min(_INDEX_THREADS, len(paths) or 1)) as ex:
            found = list(ex.map(one, paths))
        arg = next(n for n in ("filenames", "file_root", "file_list") if self.arg(n))
        for item in found:
            if isinstance(item, ImportError):
                raise self.error(str(item)) from item
            if isinstance(item, Exception):
                raise self.arg_error(arg, str(item)) from item
        return found  # type: ignore[return-value]

    def list_samples(self) -> int:
        entries = self._entries()
        if not entries:
            raise self.error("no video files were found")
        self._files = self._index([e[0] for e in entries])
        self._labels = np.asarray([e[1] for e in entries], np.int32)
        length, stride = int(self.arg("sequence_length")), int(self.arg("stride"))
        files, starts, counts = [], [], []
        for i, (index, entry) in enumerate(zip(self._files, entries)):
            first, end = self.frame_range(index, entry[2], entry[3])
            for s, count in self.sequences(index.num_frames, first, end, length, stride):
                files.append(i)
                starts.append(s)
                counts.append(count)
        if not files:
            raise self.error(
                "there are no valid sequences in the dataset: the videos are shorter than "
                f"`sequence_length` ({length}) frames `stride` ({stride}) apart"
            )
        self._sample_file = np.asarray(files, np.int64)
        self._sample_start = np.asarray(starts, np.int64)
        self._sample_count = np.asarray(counts, np.int64)
        self._frames = VideoFrames(ycbcr=self._ycbcr, threads=self.pipeline.num_threads)
        return len(files)

    def frame_range(self, index: VideoIndex, start: float, end: float) -> tuple[int, int]:
        """Frames ``[first, end)`` of a file_list entry (the whole file when both are 0)."""
        raise NotImplementedError

    def sequences(
        self, n: int, first: int, end: int, length: int, stride: int
    ) -> list[tuple[int, int]]:
        """``(start, valid frames)`` of the sequences of a file of ``n`` frames."""
        raise NotImplementedError

    def frames_of(self, k: int) -> np.ndarray:
        """The frame numbers of sample ``k`` (-1: a constant padding frame)."""
        raise NotImplementedError

    def source_info(self, index: int) -> str:
        return self._files[int(self._sample_file[index])].path

    # -- reading ----------------------------------------------------------------------------
    def _clips(self, ids: np.ndarray) -> list[Clip]:
        return [
            Clip(self._files[int(self._sample_file[k])], self.frames_of(int(k)))
            for k in ids.tolist()
        ]

    def fill_value(self) -> np.ndarray:
        return np.zeros(3, np.uint8)

    def _fail(self, i: int, clip: Clip, e: BaseException) -> SampleFailure:
        """The error of sample ``i`` whose frames could not be decoded."""
        err = self.error(f"cannot decode frames of '{clip.index.path}': {e}")
        err.__cause__ = e
        return SampleFailure(i, err)

    def _keys(self, ids: np.ndarray, clips: list[Clip]) -> list[tuple[int, bytes]]:
        """What each sample decodes: its dataset index and its frame numbers."""
        return [(int(k), c.frames.tobytes()) for k, c in zip(ids.tolist(), clips)]

    def _upcoming(self) -> Iterator[tuple[list[tuple[int, bytes]], list[Clip]]]:
        """The keys and clips of the next batches, as many as `_clips.window_ahead` takes (none
        when the consumer plans the batches: worker processes)."""
        for ids in self.upcoming_batches():
            clips = self._clips(ids)
            yield self._keys(ids, clips), clips

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        clips = self._clips(ids)
        videos = self._frames.read_cpu(
            ws,
            clips,
            self.fill_value(),
            self._fail,
            keys=self._keys(ids, clips),
            upcoming=self._upcoming(),
        )
        source_info = self.batch_infos(ws)
        video = TensorListCPU.wrap([self.convert_video(v) for v in videos], "FHWC", source_info)
        return (video, *self._extras(ids, clips, source_info))

    def run_gpu(self, ws: Workspace) -> tuple[Any, ...]:
        from dali._ops.gpu.kernels import device_id
        from dali._ops.transfer import to_gpu
        from dali._tensors import TensorListGPU

        ids = self.next_samples(ws)
        clips = self._clips(ids)
        rgb = self._frames.read_gpu(
            ws,
            clips,
            self.fill_value(),
            device_id(),
            self._fail,
            keys=self._keys(ids, clips),
            upcoming=self._upcoming(),
        )
        source_info = self.batch_infos(ws)
        if isinstance(rgb, list):
            data: Any = [self.convert_video(s) for s in rgb]
        else:
            data = self.convert_video(rgb)
        video = TensorListGPU.wrap(data, "FHWC", source_info)
        extras = self._extras(ids, clips, source_info)
        return (video, *(to_gpu(e) for e in extras))

    def convert_video(self, frames: Any) -> Any:
        """The video output of decoded uint8 frames (the legacy reader's ``dtype``)."""
        return frames

    def _extras(
        self, ids: np.ndarray, clips: list[Clip], source_info: list[str]
    ) -> list[TensorListCPU]:
        out = []
        if self._label_output():
            labels = self._labels[self._sample_file[ids]].reshape(-1, 1)
            out.append(TensorListCPU.wrap(labels, "", source_info))
        if self._frame_num != "none" and self._extra_outputs():
            if self._frame_num == "scalar":
                nums = self._sample_start[ids].astype(np.int32).reshape(-1, 1)
                out.append(TensorListCPU.wrap(nums, "", source_info))
            else:
                out.append(
                    TensorListCPU.wrap(
                        [self.frame_numbers(int(k), c) for k, c in zip(ids.tolist(), clips)],
                        "",
                        source_info,
                    )
                )
        if self.arg("enable_timestamps") and self._extra_outputs():
            out.append(
                TensorListCPU.wrap(
                    [
                        c.index.timestamps(self.frame_numbers(int(k), c))
                        for k, c in zip(ids.tolist(), clips)
                    ],
                    "",
                    source_info,
                )
            )
        return out

    def frame_numbers(self, k: int, clip: Clip) -> np.ndarray:
        """The ``frame_num`` "sequence" output of sample ``k`` (int32, -1 for padding)."""
        return clip.frames.astype(np.int32)

    def _label_output(self) -> bool:
        return _has_labels(self.node.scalar_args)

    def _extra_outputs(self) -> bool:
        return True

    def close(self) -> None:
        frames = getattr(self, "_frames", None)
        if frames is not None:
            frames.close()

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return _metas(node.scalar_args, legacy=issubclass(node.schema.impl, LegacyVideoReader))


def _metas(args: Mapping[str, Any], *, legacy: bool) -> list[dict[str, Any]]:
    """The outputs' static metadata (one dict per output, as `_legacy_outputs` counts them)."""
    metas: list[dict[str, Any]] = [
        {
            "dtype": args.get("dtype", DALIDataType.UINT8),
            "static_shape": (None, None, None, 3),
            "layout": "FHWC",
        }
    ]
    if _has_labels(args):
        metas.append({"dtype": DALIDataType.INT32, "static_shape": (1,), "layout": ""})
    if legacy and not (args.get("file_list") or args.get("filenames")):
        return metas
    policy = _frame_num_policy(args.get("enable_frame_num", "none"))
    if policy != "none":
        shape = (1,) if policy == "scalar" else (None,)
        metas.append({"dtype": DALIDataType.INT32, "static_shape": shape, "layout": ""})
    if args.get("enable_timestamps"):
        metas.append({"dtype": DALIDataType.FLOAT64, "static_shape": (None,), "layout": ""})
    return metas


@register(
    "readers.video",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=_legacy_outputs,
    source=True,
    random=True,
    class_name="Video",
    non_semantic=(*NON_SEMANTIC, "additional_decode_surfaces", "skip_vfr_check"),
    args=[
        *_SOURCE_ARGS,
        *READER_ARGS,
        Arg("pad_sequences", "bool", default=False, doc="Add sequences padded past the end."),
        Arg("dtype", "dtype", default=DALIDataType.UINT8, doc="UINT8 or FLOAT."),
        Arg("normalized", "bool", default=False, doc="FLOAT output in [0, 1]."),
        Arg("channels", "int", default=3, doc="Colour channels (3)."),
        Arg("skip_vfr_check", "bool", default=False, doc="Accept variable-frame-rate files."),
        Arg("file_list_frame_num", "bool", default=False, doc="file_list start/end are frames."),
        Arg(
            "file_list_include_preceding_frame",
            "bool",
            default=False,
            doc="Round file_list times outwards.",
        ),
        Arg("additional_decode_surfaces", "int", default=2, doc="Accepted (NVDEC tuning)."),
    ],
)
class LegacyVideoReader(_VideoReader):
    """DALI's ``readers.video`` (the legacy NVDEC reader), on the CPU and the GPU."""

    def check_reader_arguments(self) -> None:
        dtype = self.arg("dtype")
        if dtype not in (DALIDataType.UINT8, DALIDataType.FLOAT):
            raise self.arg_error("dtype", f"must be UINT8 or FLOAT, got {dtype}")
        if self.arg("channels") != 3:
            raise self.arg_error(
                "channels", f"only 3 channels are supported, got {self.arg('channels')}"
            )
        self._float = dtype == DALIDataType.FLOAT
        self._step = self.arg("step") if self.arg("step") > 0 else self.arg("sequence_length")
        if (self._frame_num != "none" or self.arg("enable_timestamps")) and not (
            self.arg("file_list") or (self.arg("filenames") and self.has_arg("labels"))
        ):
            name = "enable_frame_num" if self._frame_num != "none" else "enable_timestamps"
            raise self.arg_error(
                name, "is valid only with `file_list`, or `filenames` with `labels`"
            )

    def _index(self, paths: list[str]) -> list[VideoIndex]:
        files = super()._index(paths)
        if not self.arg("skip_vfr_check"):
            for v in files:
                if not v.constant_rate:
                    raise self.arg_error(
                        "skip_vfr_check",
                        f"variable frame rate videos are unsupported: '{v.path}' (the check "
                        "can be disabled with skip_vfr_check=True)",
                    )
        return files

    def frame_range(self, index: VideoIndex, start: float, end: float) -> tuple[int, int]:
        n = index.num_frames
        if start == 0 and end == 0:
            return 0, n
        if self.arg("file_list_frame_num"):
            first = int(start) if start >= 0 else n + int(start)
            last = int(end) if end > 0 else n + int(end)
        else:
            fps = float(index.frame_rate)
            outward = self.arg("file_list_include_preceding_frame")
            lo, hi = (math.floor, math.ceil) if outward else (math.ceil, math.floor)
            first = lo(start * fps) if start >= 0 else n + lo(start * fps)
            last = hi(end * fps) if end > 0 else n + hi(end * fps)
        if not 0 <= first <= last <= n:
            raise self.arg_error(
                "file_list",
                f"frames [{first}, {last}) are not within the {n} frames of '{index.path}'",
            )
        return first, last

    def sequences(
        self, n: int, first: int, end: int, length: int, stride: int
    ) -> list[tuple[int, int]]:
        span = (length - 1) * stride + 1
        out = []
        s = first
        while s < end and s + span <= end:
            out.append((s, length))
            s += self._step
        if self.arg("pad_sequences"):
            while s < end:
                out.append((s, 1 + (end - 1 - s) // stride))
                s += self._step
        return out

    def frames_of(self, k: int) -> np.ndarray:
        length, stride = int(self.arg("sequence_length")), int(self.arg("stride"))
        frames = self._sample_start[k] + stride * np.arange(length, dtype=np.int64)
        frames[int(self._sample_count[k]) :] = -1
        return frames

    def convert_video(self, frames: Any) -> Any:
        if not self._float:
            return frames
        out = frames.astype(np.float32)
        if self.arg("normalized"):
            out *= np.float32(1 / 255)
        return out

    def _extra_outputs(self) -> bool:
        # DALI writes frame numbers and timestamps only next to labels
        return self._label_output()


@register(
    "experimental.readers.video",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=_experimental_outputs,
    source=True,
    random=True,
    class_name="Video",
    non_semantic=NON_SEMANTIC,
    args=[
        *_SOURCE_ARGS,
        *READER_ARGS,
        Arg("pad_mode", "str", default="none", doc="none, constant, edge, reflect_1001/101."),
        Arg("fill_value", "int_vec", default=[0], doc="Colour of constant padding frames."),
        Arg("uniform_sample", "bool", default=False, doc="One evenly spread sequence per file."),
        Arg("file_list_format", "str", default="timestamps", doc="timestamps or frames."),
        Arg("file_list_include_end", "bool", default=True, doc="Include the end frame."),
        Arg("file_list_rounding", "str", default="start_down_end_up", doc="Time rounding."),
    ],
)
class ExperimentalVideoReader(_VideoReader):
    """DALI's ``experimental.readers.video``, on the CPU and the GPU for every codec."""

    def check_reader_arguments(self) -> None:
        self._fill_colour = padding_colour(self)
        length, stride = int(self.arg("sequence_length")), int(self.arg("stride"))
        self._step = self.arg("step") if self.arg("step") > 0 else stride * length
        fmt = self.arg("file_list_format")
        if fmt not in ("timestamps", "timestamp", "frames", "frame_index"):
            raise self.arg_error(
                "file_list_format", f"must be 'timestamps' or 'frames', got {fmt!r}"
            )
        rounding = self.arg("file_list_rounding")
        parts = rounding.split("_")
        if (
            len(parts) != 4
            or parts[0] != "start"
            or parts[2] != "end"
            or not {parts[1], parts[3]} <= {"up", "down"}
        ):
            raise self.arg_error(
                "file_list_rounding",
                f"must be start_(up|down)_end_(up|down), got {rounding!r}",
            )

    def fill_value(self) -> np.ndarray:
        return self._fill_colour

    def frame_range(self, index: VideoIndex, start: float, end: float) -> tuple[int, int]:
        n = index.num_frames
        if start == 0 and end == 0:
            return 0, n
        if self.arg("file_list_format") in ("frames", "frame_index"):
            first, last = int(start), int(end) if end else n
        else:
            fps = float(index.frame_rate)
            _, s_round, _, e_round = self.arg("file_list_rounding").split("_")
            first = (math.floor if s_round == "down" else math.ceil)(start * fps)
            last = (math.floor if e_round == "down" else math.ceil)(end * fps) if end else n
            if end and self.arg("file_list_include_end"):
                last += 1
        first, last = max(first, 0), min(last, n)
        return first, last

    def sequences(
        self, n: int, first: int, end: int, length: int, stride: int
    ) -> list[tuple[int, int]]:
        if first >= end:
            return []
        if self.arg("uniform_sample"):
            return [(first, length)]
        need = stride * length
        out = []
        s = first
        padded = self.arg("pad_mode") != "none"
        while s < end and (s + need <= end or (padded and s + need < end + self._step)):
            out.append((s, min(length, 1 + (end - 1 - s) // stride)))
            s += self._step
        return out

    def frames_of(self, k: int) -> np.ndarray:
        length, stride = int(self.arg("sequence_length")), int(self.arg("stride"))
        index = self._files[int(self._sample_file[k])]
        start = int(self._sample_start[k])
        if self.arg("uniform_sample"):
            end = index.num_frames
            return np.rint(np.linspace(start, end - 1, length)).astype(np.int64)
        frames = start + stride * np.arange(length, dtype=np.int64)
        return pad_frames(frames, index.num_frames, self.arg("pad_mode"))
