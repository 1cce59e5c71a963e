"""A batch of clips (frames of video files, by number) decoded on the CPU or the GPU.

What the video readers and decoders share once they know, per sample, which file and which
frames (`Clip`): frame numbers in any order with repeats, ``-1`` for a padding frame filled
with a constant colour. `VideoFrames` decodes them with pooled decoders (`_pool`), one run of
samples (`plan_runs`: samples of one file, in order, so that a decoder goes forward) per task,
each sample's result (or error) delivered as its run reaches it (`VideoFrames._run`):

* a batch alone (`decoders.video`, `experimental.inputs.video`, a reader in a worker process,
  ``options.VIDEO_DECODE_AHEAD = 0``): its runs are the tasks of the pipeline's threads
  (``ws.map``), and the batch is done when they are;
* decoding ahead (the readers, given their next batches): the runs of the batch being read,
  then of the next batches (as many as give each thread a few runs: `window_ahead`), go to
  threads of their own (`_ahead.DecodeAhead`), so that the
  decoders of the next batches' files work while this batch waits for its own and while it is
  used. A batch of consecutive sequences comes from one or two files: alone it keeps one or two
  decoders busy. Every batch's runs are planned on their own; on the CPU a run then keeps a
  file's consecutive samples (as on the GPU) instead of one sample per run: the next batches
  give the threads their work, and a run's decoder goes on where its last sample ended.

* CPU: `_decode_cpu.CpuDecoder` (PyAV) decodes a sample's frames and converts them to RGB
  in batches straight into the sample's array (`CpuDecoder.decode_into`);
* GPU: `_decode_gpu.GpuDecoder` (NVDEC) returns NV12; the valid frames of the whole batch are
  converted by ONE kernel launch (`_color.nv12_batch_to_rgb`) when the batch's frames share a
  size (else one per size), and a batch of equal sequences without padding is the converted
  buffer itself (no copy).

The output of a sample is ``(F, H, W, 3)`` uint8, layout ``FHWC``.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import itertools
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from dali import _options as options
from dali._exec.host_buffers import RecycledArrays
from dali._exec.workspace import SampleFailure
from dali._ops.video._ahead import DecodeAhead
from dali._ops.video._color import nv12_batch_to_rgb
from dali._ops.video._container import VideoError, VideoIndex
from dali._ops.video._decode_cpu import CpuDecoder
from dali._ops.video._decode_gpu import FileNotes, GpuDecoder
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
    "window_ahead",
]

_R = TypeVar("_R")


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
    ``threads // files`` runs. On the CPU without decoding ahead (``keep_consecutive=False``)
    every sample may be its own run, decoded and converted in parallel: chosen when the colour
    conversion cost more than the decoding (7 against 1.5 ms a 720p frame), and still faster
    with the conversion at 0.55 ms (two threads: 560 against 497 frames/s, RESULTS.md "Video";
    not compared on many cores). Decoding ahead, the default, keeps consecutive samples on the
    CPU too. In-memory videos count as files (one per bytes object).

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
    # each clip's first and last valid frame and how many: (0, 0, 0) for padding alone
    spans = [_span(clip) for clip in clips]
    runs: list[list[int]] = []
    for members in by_file.values():
        members.sort(key=lambda i: spans[i][0])
        segments: list[list[int]] = [[members[0]]]
        for prev, i in itertools.pairwise(members):
            if not keep_consecutive or share == 1:
                split = not keep_consecutive
            else:
                start, _, count = spans[i]
                gap = start - 1 - spans[prev][1]
                fresh = start - clips[i].index.key_frame_before(start)
                split = fresh - min(max(gap, 0), fresh) <= count // 4
            if split:
                segments.append([i])
            else:
                segments[-1].append(i)
        # the segments in ``min(share, len)`` consecutive groups, the first ones one longer
        groups = min(share, len(segments))
        size, extra = divmod(len(segments), groups)
        at = 0
        for g in range(groups):
            end = at + size + (g < extra)
            runs.append([i for segment in segments[at:end] for i in segment])
            at = end
    return runs


def _span(clip: Clip) -> tuple[int, int, int]:
    """A clip's first and last valid frame numbers and how many valid frames it has."""
    valid = clip.valid
    if not len(valid):
        return 0, 0, 0
    return int(valid.min()), int(valid.max()), len(valid)


def _plan_window(
    samples: list[tuple[int, int]], clips: list[Clip], threads: int
) -> list[list[int]]:
    """The runs (`plan_runs`) of samples of several batches (``(batch, position)``, in order),
    planned batch by batch: the runs of an earlier batch come first."""
    runs: list[list[int]] = []
    for _, group in itertools.groupby(range(len(samples)), key=lambda i: samples[i][0]):
        members = list(group)
        for run in plan_runs([clips[i] for i in members], threads):
            runs.append([members[j] for j in run])
    return runs


def window_ahead(
    upcoming: Iterable[tuple[Sequence[Hashable], Sequence[Clip]]],
    threads: int,
    frame_bytes: Callable[[VideoIndex], float],
    counts: dict[tuple[Hashable, ...], int] | None = None,
) -> list[tuple[Sequence[Hashable], Sequence[Clip]]]:
    """The next batches to decode ahead, taken from ``upcoming`` (a reader's next batches, in
    order, as many as asked for).

    At least ``options.VIDEO_DECODE_AHEAD`` batches (none when it is 0); then more, one batch at
    a time, while their runs (`plan_runs`) give the ``threads`` decoders fewer than
    ``options.VIDEO_DECODE_AHEAD_RUNS`` each and their decoded frames (``frame_bytes(index)``
    a frame of a file) stay within ``options.VIDEO_DECODE_AHEAD_BYTES``. A batch of consecutive
    sequences is one or two files cut at their key frames: a few runs, fewer than a host's
    threads, so a window counted in batches leaves decoders idle on many cores.

    ``counts`` (kept by the caller from batch to batch) holds the runs of the batches taken, by
    their keys: the next call plans only the batch that joins the window.

    Example (files of one run a batch, 1 MB a frame, 4 threads):
        >>> from types import SimpleNamespace as N
        >>> index = N(path="a", key_frame_before=lambda f: 0)
        >>> batches = (([k], [Clip(index, np.arange(4 * k, 4 * k + 4))]) for k in range(100))
        >>> len(window_ahead(batches, 4, lambda index: 1e6))
        8
    """
    least = options.VIDEO_DECODE_AHEAD
    if least <= 0:
        return []
    wanted = threads * options.VIDEO_DECODE_AHEAD_RUNS
    taken: list[tuple[Sequence[Hashable], Sequence[Clip]]] = []
    runs, held = 0, 0.0
    known = {} if counts is None else counts
    seen: dict[tuple[Hashable, ...], int] = {}
    for keys, clips in upcoming:
        size = sum(len(c.frames) * frame_bytes(c.index) for c in clips)
        if len(taken) >= least and (
            runs >= wanted or held + size > options.VIDEO_DECODE_AHEAD_BYTES
        ):
            break
        taken.append((keys, clips))
        key = tuple(keys)
        n = known.get(key)
        seen[key] = n = len(plan_runs(clips, threads)) if n is None else n
        runs += n
        held += size
    if counts is not None:
        counts.clear()
        counts.update(seen)
    return taken


def _rgb_bytes(index: VideoIndex) -> float:
    """Bytes of a decoded frame on the CPU (RGB)."""
    return 3.0 * index.width * index.height


def _nv12_bytes(index: VideoIndex) -> float:
    """Bytes of a decoded frame held on the GPU (NV12)."""
    return 1.5 * index.width * index.height


def _decode_nv12(decoder: GpuDecoder, clip: Clip) -> Any:
    """The valid frames of one sample as NV12 on the GPU (`_run`'s part)."""
    return decoder.decode(clip.valid)


def _once(decoder: Any, work: Callable[[Any], _R]) -> _R:
    """``work(decoder)`` with a decoder of an in-memory video, closed after (never pooled)."""
    try:
        return work(decoder)
    finally:
        decoder.close()


def _first(clip: Clip) -> int:
    return int(clip.valid.min()) if len(clip.valid) else 0


def _settle(future: Future[Any], error: BaseException) -> None:
    """Give ``future`` the error unless it is done or was cancelled (by a moved window)."""
    if not future.done():
        try:
            future.set_exception(error)
        except InvalidStateError:  # cancelled meanwhile
            pass


#: one sample's part of a run: ``decode(decoder, clip)``
Decode = Callable[[Any, Clip], Any]
#: ``use(clip, work)``: ``work(decoder)`` with a decoder of the clip's file (pooled or in memory)
Use = Callable[[Clip, Callable[[Any], None]], None]
#: the next batches of a reader: the samples' keys (what they decode) and clips, in order, as
#: many as taken (a generator: `window_ahead` takes what it needs)
Upcoming = Iterable[tuple[Sequence[Hashable], Sequence[Clip]]]


class VideoFrames:
    """Decodes batches of `Clip` for one operator; holds its decoder pools and `DecodeAhead`."""

    def __init__(self, *, ycbcr: bool = False, threads: int = 4) -> None:
        self._ycbcr = ycbcr
        self._threads = max(1, threads)
        self._cpu: DecoderPool[CpuDecoder] | None = None
        self._gpu: DecoderPool[GpuDecoder] | None = None
        #: the CPU samples' memory, reused once the user drops a batch (a 720p sequence is
        #: tens of MB: fresh memory faults on every page, `dali._exec.host_buffers`)
        self._host = RecycledArrays()
        #: what the GPU decoders learned of each file (`_decode_gpu.FileNotes`)
        self._notes = FileNotes()
        self._ahead: DecodeAhead | None = None
        #: the runs of each batch in the window ahead, by its keys (`window_ahead`)
        self._window_runs: dict[tuple[Hashable, ...], int] = {}
        #: NV12 buffers read by conversions still queued on the pipeline's stream, each batch's
        #: with an event recorded after them: a buffer comes from its decoder's stream, where
        #: the pool would hand its memory to the next decode as soon as it is dropped
        self._reading: collections.deque[tuple[Any, Sequence[Any]]] = collections.deque()

    def close(self) -> None:
        if self._ahead is not None:
            self._ahead.close()  # first: its threads use the pools' decoders
        for pool in (self._cpu, self._gpu):
            if pool is not None:
                pool.close()
        self._reading.clear()
        self._host.clear()

    def read_cpu(
        self,
        ws: Workspace,
        clips: Sequence[Clip],
        fill: np.ndarray,
        fail: Callable[..., Exception],
        *,
        keys: Sequence[Hashable] | None = None,
        upcoming: Upcoming = (),
    ) -> list[np.ndarray]:
        """Every sample of the batch on the CPU, its runs decoded in parallel.

        ``fail(i, clip, error)`` makes the exception raised for sample ``i`` whose decoding
        failed (a `VideoError` or an `OSError`; any other error is raised as the
        `SampleFailure` of its sample). A reader gives the ``keys`` of the samples (their
        dataset index and frames) and the ``upcoming`` batches (`IndexedReader.upcoming_batches`):
        those that `window_ahead` takes are then decoded ahead on threads of their own
        (`_ahead`); without them the runs are decoded on ``ws.map``.
        """
        ahead = self._window(keys, upcoming, _rgb_bytes)
        results = self._read(
            ws, clips, self._use_cpu, self._decode_cpu(fill), fail, False, keys, ahead
        )
        # a sample that comes again in the window is decoded once: each place gets a copy
        return [r.copy() if shared else r for r, shared in results]

    def read_gpu(
        self,
        ws: Workspace,
        clips: Sequence[Clip],
        fill: np.ndarray,
        device_id: int,
        fail: Callable[..., Exception],
        *,
        keys: Sequence[Hashable] | None = None,
        upcoming: Upcoming = (),
    ) -> list[Any] | Any:
        """Every sample of the batch on the GPU (`batch_gpu`'s result); as `read_cpu`.

        Decoded ahead, a sample's NV12 frames wait in device memory (the decoders' threads
        run with the pipeline's device and memory pool current, ``ws.cuda``).
        """
        ahead = self._window(keys, upcoming, _nv12_bytes)
        results = self._read(
            ws, clips, self._use_gpu(device_id), _decode_nv12, fail, True, keys, ahead
        )
        nv12 = [r for r, _ in results]
        out = self.batch_gpu(clips, nv12, fill)
        self._keep_until_read(nv12)
        return out

    def _window(
        self,
        keys: Sequence[Hashable] | None,
        upcoming: Upcoming,
        frame_bytes: Callable[[VideoIndex], float],
    ) -> list[tuple[Sequence[Hashable], Sequence[Clip]]]:
        """The batches to decode ahead (`window_ahead`; none for a batch without keys)."""
        if keys is None:
            return []
        return window_ahead(upcoming, self._threads, frame_bytes, self._window_runs)

    def _read(
        self,
        ws: Workspace,
        clips: Sequence[Clip],
        use: Use,
        decode: Decode,
        fail: Callable[..., Exception],
        keep_consecutive: bool,
        keys: Sequence[Hashable] | None,
        upcoming: list[tuple[Sequence[Hashable], Sequence[Clip]]],
    ) -> list[tuple[Any, bool]]:
        """Each sample's result, and whether it is shared with another place of the window
        (decoding ahead ``upcoming``, `window_ahead`'s batches)."""
        if keys is None or not upcoming:
            futures: list[Future[Any]] = [Future() for _ in clips]
            shared = [False] * len(clips)
            runs = plan_runs(clips, self._threads, keep_consecutive=keep_consecutive)
            ws.map(
                lambda r: self._run(
                    [clips[i] for i in runs[r]], [futures[i] for i in runs[r]], use, decode
                ),
                len(runs),
            )
        else:
            batches = [(keys, clips), *upcoming]
            cuda = ws.cuda

            def schedule(
                samples: list[tuple[int, int]], made: list[Future[Any]]
            ) -> list[Callable[[], None]]:
                window = [batches[b][1][p] for b, p in samples]
                return [
                    functools.partial(
                        self._run_ahead,
                        [window[i] for i in run],
                        [made[i] for i in run],
                        use,
                        decode,
                        cuda,
                    )
                    # the next batches give the threads work: a run keeps its file's
                    # consecutive samples, on the CPU too (RESULTS.md "Video")
                    for run in _plan_window(samples, window, self._threads)
                ]

            if self._ahead is None:
                self._ahead = DecodeAhead(self._threads)
            got = self._ahead.futures([list(k) for k, _ in batches], schedule)
            futures, shared = got.futures, got.shared
        out = []
        for i, future in enumerate(futures):
            try:
                out.append((future.result(), shared[i]))
            except (VideoError, OSError) as e:
                raise fail(i, clips[i], e) from e
            except Exception as e:
                raise SampleFailure(i, e) from e
        return out

    def _run_ahead(
        self, clips: list[Clip], futures: list[Future[Any]], use: Use, decode: Decode, cuda: Any
    ) -> None:
        """`_run` on a thread of `DecodeAhead` (with the pipeline's CUDA context on the GPU)."""
        try:
            with cuda.activate() if cuda is not None else contextlib.nullcontext():
                self._run(clips, futures, use, decode)
        except Exception as e:  # noqa: BLE001 - the context failed: no sample may wait for ever
            for future in futures:
                _settle(future, e)

    @staticmethod
    def _run(clips: list[Clip], futures: list[Future[Any]], use: Use, decode: Decode) -> None:
        """Decode one run (`plan_runs`) with one decoder, completing each sample's future as it
        comes: a sample whose future was cancelled (decoding ahead: no batch wants it any more)
        is skipped. A sample that fails gets the error; the decoder is closed (its position is
        unknown) and the run goes on with a fresh one, so that the error stays with its sample.
        """
        k = 0
        try:
            while k < len(clips):
                while k < len(clips) and futures[k].cancelled():
                    k += 1
                if k == len(clips):
                    return
                at = k

                def work(decoder: Any) -> None:
                    nonlocal at
                    while at < len(clips):
                        if futures[at].set_running_or_notify_cancel():
                            futures[at].set_result(decode(decoder, clips[at]))
                        at += 1

                try:
                    use(clips[k], work)
                    return
                except Exception as e:  # noqa: BLE001 - kept by the sample's future
                    if at < len(clips):  # else the decoder failed after the last sample
                        _settle(futures[at], e)
                    k = at + 1
        except BaseException as e:  # no sample of the run may wait for ever
            for future in futures:
                _settle(future, e)
            raise

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

    def _use_cpu(self, clip: Clip, work: Callable[[Any], None]) -> None:
        if clip.data is not None:
            _once(CpuDecoder(clip.index, clip.data), work)
        else:
            self._cpu_pool().use(clip.index.path, _first(clip), work)

    def _decode_cpu(self, fill: np.ndarray) -> Decode:
        """One sample ``(F, H, W, 3)`` uint8 of a run on the CPU (`_run`'s part)."""
        return lambda decoder, clip: self._decode_clip(decoder, clip, fill)

    def _decode_clip(self, decoder: CpuDecoder, clip: Clip, fill: np.ndarray) -> np.ndarray:
        index = clip.index
        out = self._host.empty((len(clip.frames), index.height, index.width, 3), np.uint8)
        decoder.decode_into(clip.frames, conversion_for(index, self._ycbcr), fill, out)
        return out

    # -- GPU --------------------------------------------------------------------------------
    def _gpu_pool(self, device_id: int) -> DecoderPool[GpuDecoder]:
        if self._gpu is None:
            from dali._ops.video._container import index_video

            self._gpu = DecoderPool(
                lambda path: GpuDecoder(index_video(path), device_id, notes=self._notes),
                lambda d: d.position,
                lambda d: d.close(),
                per_file=self._threads,
            )
        return self._gpu

    def _use_gpu(self, device_id: int) -> Use:
        def use(clip: Clip, work: Callable[[Any], None]) -> None:
            if clip.data is not None:
                # an in-memory video: its own notes (another sample may carry the same name)
                _once(GpuDecoder(clip.index, device_id, clip.data, notes=FileNotes()), work)
            else:
                self._gpu_pool(device_id).use(clip.index.path, _first(clip), work)

        return use

    def _keep_until_read(self, nv12: Sequence[Any]) -> None:
        """Hold the batch's NV12 buffers until the pipeline's stream has converted them."""
        import cupy as cp

        event = cp.cuda.Event(disable_timing=True)
        event.record()  # on the current stream: the pipeline's
        self._reading.append((event, nv12))
        while self._reading and self._reading[0][0].done:
            self._reading.popleft()

    def batch_gpu(
        self, clips: Sequence[Clip], nv12: Sequence[Any], fill: np.ndarray
    ) -> list[Any] | Any:
        """RGB samples from the NV12 frames of each sample, one conversion launch per size.

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
