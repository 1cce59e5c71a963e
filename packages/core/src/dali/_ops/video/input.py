"""`fn.experimental.inputs.video`: a long video fed from memory, streamed as batches of sequences.

The pipeline is fed encoded videos with ``Pipeline.feed_input(name, [video])`` (one 1-D uint8
sample per feed; several feeds queue up). Each run then returns the next ``max_batch_size``
sequences of ``sequence_length`` consecutive frames of the current video, decoded then and only
then (a 5-minute 4K video is never decoded whole, which is what `decoders.video` would do). The
last batch of a video may hold fewer sequences, and its last sequence fewer frames
(``last_sequence_policy="partial"``) or padding frames of zeros (``"pad"``); the next run
starts the next queued video. Running with no video left is an error (or, with
``blocking=True``, waits for `feed_input`).

Decoding is `_clips`'s: PyAV on the CPU, NVDEC with ``device="mixed"``, frame-exact, the same
bytes on both. The video is indexed once when it is fed (`_container.index_video`), so a bad
file fails in `feed_input`, naming the operator.
"""

from __future__ import annotations

import collections
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import BatchMeta
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import PythonSource
from dali._ops.video._clips import Clip, VideoFrames
from dali._ops.video._container import VideoError, VideoIndex, index_video
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["VideoInput"]


class _Fed:
    """A fed video and how far its sequences have been handed out."""

    def __init__(self, index: VideoIndex, data: bytes) -> None:
        self.index, self.data, self.next_frame = index, data, 0


@register(
    "experimental.inputs.video",
    devices=("cpu", "mixed"),
    inputs=0,
    outputs=1,
    source=True,
    class_name="Video",
    args=[
        Arg("sequence_length", "int", default=REQUIRED, doc="Frames per sequence."),
        Arg("last_sequence_policy", "str", default="partial", doc="partial or pad."),
        Arg("blocking", "bool", default=False, doc="Wait for feed_input instead of failing."),
        Arg("no_copy", "bool", default=False, doc="Accepted (the video is read in place)."),
        Arg("affine", "bool", default=True, doc="Accepted (thread pinning; no effect)."),
    ],
)
class VideoInput(PythonSource):
    """Streams fed videos as batches of frame sequences (CPU: PyAV; mixed: NVDEC)."""

    def setup(self) -> None:
        if self.arg("sequence_length") < 1:
            raise self.arg_error(
                "sequence_length", f"must be >= 1, got {self.arg('sequence_length')}"
            )
        if self.arg("last_sequence_policy") not in ("partial", "pad"):
            raise self.arg_error(
                "last_sequence_policy",
                f"must be 'partial' or 'pad', got {self.arg('last_sequence_policy')!r}",
            )
        self._max_batch = int(self.pipeline.max_batch_size)
        self._queue: collections.deque[_Fed] = collections.deque()
        self._cond = threading.Condition()
        self._frames = VideoFrames(threads=self.pipeline.num_threads)
        self._fed_count = 0

    # -- feeding ----------------------------------------------------------------------------
    def feed(self, data: Any, layout: str | None = None, cuda_stream: Any = None) -> None:
        samples = list(data) if isinstance(data, (list, tuple)) else [data]
        if len(samples) != 1:
            raise self.error(
                f"takes one encoded video per feed_input (input_batch_size=1), got {len(samples)}"
            )
        video = np.asarray(samples[0])
        if video.dtype != np.uint8 or video.ndim != 1:
            raise self.error(
                "expects an encoded video as a 1-D uint8 array (file bytes), got "
                f"{video.dtype} of shape {tuple(video.shape)}"
            )
        self._fed_count += 1
        raw = video.tobytes()
        try:
            index = index_video(f"<fed video {self._fed_count}>", raw)
        except VideoError as e:
            raise self.error(str(e)) from e
        with self._cond:
            self._queue.append(_Fed(index, raw))
            self._cond.notify_all()

    def has_data(self) -> bool:
        with self._cond:
            return bool(self._queue)

    # -- scheduling ---------------------------------------------------------------------------
    def fetch(self, iteration: int, epoch: int) -> tuple[Any, BatchMeta]:
        with self._cond:
            if not self._queue:
                if not self.arg("blocking"):
                    raise self.error(
                        "no video to decode: feed one with "
                        f"`pipe.feed_input('{self.name}', [encoded_video])` before running"
                    )
                while not self._queue:
                    self._cond.wait()
            current = self._queue[0]
            clips = self._next_batch(current)
            if current.next_frame >= current.index.num_frames:
                self._queue.popleft()  # the next run starts the next video
        first = iteration * self._max_batch
        n = len(clips)
        meta = BatchMeta(
            np.arange(first, first + n, dtype=np.int64), np.full(n, epoch, dtype=np.int64)
        )
        return clips, meta

    def _next_batch(self, fed: _Fed) -> list[Clip]:
        length, total = int(self.arg("sequence_length")), fed.index.num_frames
        pad = self.arg("last_sequence_policy") == "pad"
        clips: list[Clip] = []
        while len(clips) < self._max_batch and fed.next_frame < total:
            frames = fed.next_frame + np.arange(length, dtype=np.int64)
            if pad:
                frames[frames >= total] = -1
            else:
                frames = frames[frames < total]
            clips.append(Clip(fed.index, frames, fed.data))
            fed.next_frame += length
        return clips

    # -- decoding -----------------------------------------------------------------------------
    def _fail(self, i: int, clip: Clip, e: BaseException) -> Exception:
        err = self.error(f"cannot decode frames of {clip.index.path}: {e}")
        err.__cause__ = e
        return err

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        clips = ws.fed
        fill = np.zeros(3, np.uint8)
        videos = self._frames.read_cpu(ws, clips, fill, self._fail)
        return TensorListCPU.wrap(videos, "FHWC", dtype=DALIDataType.UINT8, ndim=4)

    def run_mixed(self, ws: Workspace) -> Any:
        from dali._ops.gpu.kernels import device_id
        from dali._tensors import TensorListGPU

        clips = ws.fed
        fill = np.zeros(3, np.uint8)
        rgb = self._frames.read_gpu(ws, clips, fill, device_id(), self._fail)
        return TensorListGPU.wrap(rgb, "FHWC", dtype=DALIDataType.UINT8, ndim=4)

    def on_reset(self) -> None:
        with self._cond:
            self._queue.clear()

    def unrestorable(self) -> str | None:
        return "fed with `feed_input`"

    def close(self) -> None:
        self._frames.close()

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return [
            {"dtype": DALIDataType.UINT8, "static_shape": (None, None, None, 3), "layout": "FHWC"}
        ]
