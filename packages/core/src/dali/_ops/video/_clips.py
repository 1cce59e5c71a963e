"""A batch of clips (frames of video files, by number) decoded on the CPU or the GPU.

What the video readers and decoders share once they know, per sample, which file and which
frames (`Clip`): frame numbers in any order with repeats, ``-1`` for a padding frame filled
with a constant colour. `VideoFrames` decodes them with pooled decoders (`_pool`), one run of
samples (`plan_runs`: samples of one file, in order, so that a decoder goes forward) per task
of the pipeline's threads:

* CPU: `_decode_cpu.CpuDecoder` (PyAV) converts each frame to RGB as it comes out
  (`_color.i420_to_rgb`);
* GPU: `_decode_gpu.GpuDecoder` (NVDEC) returns NV12; the valid frames of the whole batch are
  converted by ONE kernel launch (`_color.nv12_batch_to_rgb`) when the batch's frames share a
  size (else one per size), and a batch of equal sequences without padding is the converted
  buffer itself (no copy).

The output of a sample is ``(F, H, W, 3)`` uint8, layout ``FHWC``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._ops.video._color import nv12_batch_to_rgb
from dali._ops.video._container import VideoError, VideoIndex
from dali._ops.video._decode_cpu import CpuDecoder
from dali._ops.video._decode_gpu import GpuDecoder
from dali._ops.video._pool import DecoderPool

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "PAD_MODES",
    "Clip",
    "VideoFrames",
    "conversion_for",
    "pad_frames",
    "padding_colour",
    "plan_runs",
]


#: how frames past the end of a video are padded (DALI's ``pad_mode``)
PAD_MODES = ("none", "constant", "edge", "reflect_1001", "reflect_101")


def pad_frames(frames: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Frame numbers at or past ``n`` replaced as ``pad_mode`` says (-1: a constant frame).

    Example:
        >>> pad_frames(np.array([3, 4, 5, 6]), 5, "reflect_101").tolist()
        [3, 4, 3, 2]
    """
    frames = np.array(frames, np.int64)
    over = frames >= n
    if mode == "constant":
        frames[over] = -1
    elif mode == "edge":
        frames[over] = n - 1
    elif mode == "reflect_1001":
        frames[over] = np.maximum(2 * n - 1 - frames[over], 0)
    elif mode == "reflect_101":
        frames[over] = np.maximum(2 * n - 2 - frames[over], 0)
    return frames


def padding_colour(op: Any) -> np.ndarray:
    """Check an operator's ``pad_mode`` and ``fill_value``; the fill colour (3 uint8).

    Raises:
        OperatorError: ``pad_mode`` is not one of `PAD_MODES`, or ``fill_value`` is not one or
            three values in [0, 255].
    """
    mode = op.arg("pad_mode")
    if mode not in PAD_MODES:
        raise op.arg_error("pad_mode", f"must be one of {', '.join(PAD_MODES)}, got {mode!r}")
    fill = list(op.arg("fill_value"))
    if len(fill) not in (1, 3) or not all(0 <= v <= 255 for v in fill):
        raise op.arg_error("fill_value", f"must be 1 or 3 values in [0, 255], got {fill}")
    return np.asarray(fill * 3 if len(fill) == 1 else fill, np.uint8)


@dataclasses.dataclass(frozen=True)
class Clip:
    """One output sample: frames of one video."""

    index: VideoIndex
    #: frame numbers (int64); -1 is a padding frame
    frames: np.ndarray
    #: the file's bytes when it is decoded from memory (`decoders.video`), else None
    data: bytes | None = None

    @property
    def valid(self) -> np.ndarray:
        return self.frames[self.frames >= 0]


def conversion_for(index: VideoIndex, ycbcr: bool) -> str:
    """The `_color` conversion of a file: upsampled YCbCr, or RGB from its YUV range."""
    if ycbcr:
        return "ycbcr"
    return "rgb_full" if index.full_range else "rgb"


def plan_runs(
    clips: Sequence[Clip], threads: int, *, keep_consecutive: bool = True
) -> list[list[int]]:
    """The batch's samples in runs: one task of the thread pool decodes one run with one decoder.

    A run holds samples of one file in increasing order of their first frame, so that its
    decoder goes forward. Where the next sample of a file starts, a decoder that goes on from
    the previous sample decodes the frames in between, and a fresh one decodes the frames since
    the key frame before it: the samples are split there (into parallel runs) only when the
    split costs at most a quarter of a sample's frames more (a key frame at or just before the
    sample's start), else they stay in one run. Splitting every sample off would make each
    decoder seek and decode a half GOP again: on NVDEC, 8 decoders dealt consecutive 16-frame
    sequences in turn read 355 frames/s, one decoder reading them in order 748
    (``benchmarks/RESULTS.md`` "Video"). A file's segments are then grouped into up to
    ``threads // files`` runs. On the CPU (``keep_consecutive=False``) the colour conversion
    costs more than the decoding (7 against 1.5 ms a 720p frame): every sample may be its own
    run, converted in parallel. In-memory videos count as files (one per bytes object).

    Example (key frames every 10 frames; samples of 4 frames):
        >>> from types import SimpleNamespace as N
        >>> index = N(path="a", key_frame_before=lambda f: f - f % 10)
        >>> c = [Clip(index, np.arange(s, s + 4)) for s in (4, 0, 10, 14, 33)]
        >>> plan_runs(c, 1), plan_runs(c, 4)
        ([[1, 0, 2, 3, 4]], [[1, 0], [2, 3], [4]])
    """
    by_file: dict[Any, list[int]] = {}
    for i, clip in enumerate(clips):
        key = clip.index.path if clip.data is None else ("memory", id(clip.data))
        by_file.setdefault(key, []).append(i)
    share = max(1, threads // max(1, len(by_file)))
    runs: list[list[int]] = []
    for members in by_file.values():
        members.sort(key=lambda i: _first(clips[i]))
        segments: list[list[int]] = [[members[0]]]
        for prev, i in itertools.pairwise(members):
            if not keep_consecutive or share == 1:
                split = not keep_consecutive
            else:
                start = _first(clips[i])
                gap = start - 1 - (int(clips[prev].valid.max()) if len(clips[prev].valid) else 0)
                fresh = start - clips[i].index.key_frame_before(start)
                split = fresh - min(max(gap, 0), fresh) <= len(clips[i].valid) // 4
            if split:
                segments.append([i])
            else:
                segments[-1].append(i)
        groups = min(share, len(segments))
        for part in np.array_split(np.arange(len(segments)), groups):
            runs.append([i for k in part.tolist() for i in segments[k]])
    return runs


def _once(decoder: Any, work: Callable[[Any], list[Any]]) -> list[Any]:
    """``work(decoder)`` with a decoder of an in-memory video, closed after (never pooled)."""
    try:
        return work(decoder)
    finally:
        decoder.close()


def _first(clip: Clip) -> int:
    return int(clip.valid.min()) if len(clip.valid) else 0


class VideoFrames:
    """Decodes batches of `Clip` for one operator; holds its decoder pools."""

    def __init__(self, *, ycbcr: bool = False, threads: int = 4) -> None:
        self._ycbcr = ycbcr
        self._threads = max(1, threads)
        self._cpu: DecoderPool[CpuDecoder] | None = None
        self._gpu: DecoderPool[GpuDecoder] | None = None
        #: the NVDEC timestamp offset of each file (`_decode_gpu`), measured once per file
        self._offsets: dict[str, int] = {}

    def close(self) -> None:
        for pool in (self._cpu, self._gpu):
            if pool is not None:
                pool.close()

    def read_cpu(
        self, ws: Workspace, clips: Sequence[Clip], fill: np.ndarray, fail: Callable[..., Exception]
    ) -> list[np.ndarray]:
        """Every sample of the batch on the CPU, runs decoded in parallel on ``ws.map``.

        ``fail(i, clip, error)`` makes the exception raised for a run whose decoding failed
        (``i``: its first sample)."""
        return self._read(ws, clips, lambda run: self.decode_cpu(run, fill), fail, False)

    def read_gpu(
        self,
        ws: Workspace,
        clips: Sequence[Clip],
        fill: np.ndarray,
        device_id: int,
        fail: Callable[..., Exception],
    ) -> list[Any] | Any:
        """Every sample of the batch on the GPU (`batch_gpu`'s result)."""
        nv12 = self._read(ws, clips, lambda run: self.decode_nv12(run, device_id), fail, True)
        return self.batch_gpu(clips, nv12, fill)

    def _read(
        self,
        ws: Workspace,
        clips: Sequence[Clip],
        decode: Callable[[list[Clip]], list[Any]],
        fail: Callable[..., Exception],
        keep_consecutive: bool,
    ) -> list[Any]:
        runs = plan_runs(clips, self._threads, keep_consecutive=keep_consecutive)

        def task(r: int) -> list[Any] | BaseException:
            try:
                return decode([clips[i] for i in runs[r]])
            except (VideoError, OSError) as e:
                return e

        out: list[Any] = [None] * len(clips)
        for run, result in zip(runs, ws.map(task, len(runs))):
            if isinstance(result, BaseException):
                raise fail(run[0], clips[run[0]], result) from result
            for i, sample in zip(run, result):
                out[i] = sample
        return out

    # -- CPU --------------------------------------------------------------------------------
    def _cpu_pool(self) -> DecoderPool[CpuDecoder]:
        if self._cpu is None:
            from dali._ops.video._container import index_video

            self._cpu = DecoderPool(
                lambda path: CpuDecoder(index_video(path)),
                lambda d: d.position,
                lambda d: d.close(),
                per_file=self._threads,
            )
        return self._cpu

    def decode_cpu(self, clips: Sequence[Clip], fill: np.ndarray) -> list[np.ndarray]:
        """The samples ``(F, H, W, 3)`` uint8 of one run (`plan_runs`) on the CPU."""
        first = clips[0]

        def work(decoder: CpuDecoder) -> list[np.ndarray]:
            return [self._decode_clip(decoder, c, fill) for c in clips]

        if first.data is not None:
            return _once(CpuDecoder(first.index, first.data), work)
        return self._cpu_pool().use(first.index.path, _first(first), work)

    def _decode_clip(self, decoder: CpuDecoder, clip: Clip, fill: np.ndarray) -> np.ndarray:
        index = clip.index
        out = np.empty((len(clip.frames), index.height, index.width, 3), np.uint8)
        places: dict[int, list[int]] = {}
        for k, f in enumerate(clip.frames.tolist()):
            if f < 0:
                out[k] = fill
            else:
                places.setdefault(f, []).append(k)
        conversion = conversion_for(index, self._ycbcr)

        def store(number: int, frame: Any) -> None:
            first, *rest = places[number]
            decoder.to_rgb(frame, conversion, out[first])
            for k in rest:
                out[k] = out[first]

        decoder.decode(list(places), store)
        return out

    # -- GPU --------------------------------------------------------------------------------
    def _gpu_pool(self, device_id: int) -> DecoderPool[GpuDecoder]:
        if self._gpu is None:
            from dali._ops.video._container import index_video

            self._gpu = DecoderPool(
                lambda path: GpuDecoder(index_video(path), device_id, offsets=self._offsets),
                lambda d: d.position,
                lambda d: d.close(),
                per_file=self._threads,
            )
        return self._gpu

    def decode_nv12(self, clips: Sequence[Clip], device_id: int) -> list[Any]:
        """The valid frames of each sample of one run as NV12 on the GPU (a task's part)."""
        first = clips[0]

        def work(decoder: GpuDecoder) -> list[Any]:
            return [decoder.decode(c.valid) for c in clips]

        if first.data is not None:
            return _once(GpuDecoder(first.index, device_id, first.data, offsets={}), work)
        return self._gpu_pool(device_id).use(first.index.path, _first(first), work)

    def batch_gpu(
        self, clips: Sequence[Clip], nv12: Sequence[Any], fill: np.ndarray
    ) -> list[Any] | Any:
        """RGB samples from the NV12 frames of `decode_nv12`, one conversion launch per size.

        Returns a dense ``(N, F, H, W, 3)`` CuPy array when every sample has the same shape
        and no padding, else a list of per-sample arrays.
        """
        import cupy as cp

        groups: dict[tuple[int, int, str], list[int]] = {}
        for i, clip in enumerate(clips):
            key = (clip.index.height, clip.index.width, conversion_for(clip.index, self._ycbcr))
            groups.setdefault(key, []).append(i)
        converted: dict[int, Any] = {}
        for (h, w, conversion), members in groups.items():
            stacked = (
                nv12[members[0]]
                if len(members) == 1
                else cp.concatenate([nv12[i] for i in members])
            )
            rgb = nv12_batch_to_rgb(stacked, h, w, conversion)
            if len(groups) == 1 and all(
                len(c.valid) == len(c.frames) == len(clips[0].frames) for c in clips
            ):
                return rgb.reshape(len(clips), len(clips[0].frames), h, w, 3)
            start = 0
            for i in members:
                n = len(clips[i].valid)
                converted[i] = rgb[start : start + n]
                start += n
        samples = []
        fill_dev = cp.asarray(fill, cp.uint8)
        for i, clip in enumerate(clips):
            if len(clip.valid) == len(clip.frames):
                samples.append(converted[i])
                continue
            h, w = clip.index.height, clip.index.width
            out = cp.empty((len(clip.frames), h, w, 3), cp.uint8)
            valid = clip.frames >= 0
            out[cp.asarray(np.flatnonzero(valid))] = converted[i]
            out[cp.asarray(np.flatnonzero(~valid))] = fill_dev
            samples.append(out)
        return samples
