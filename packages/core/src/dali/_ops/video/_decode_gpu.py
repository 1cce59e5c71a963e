"""Frame-exact decoding on the GPU with NVDEC, through NVIDIA's PyNvVideoCodec binding.

`GpuDecoder` decodes frames of one file by number into NV12 device buffers; `_color` turns a
batch of them into RGB in one launch, with the CPU backend's arithmetic. PyNvVideoCodec's
``SimpleDecoder`` demuxes the file (its own FFmpeg), seeks to the key frame before a wanted frame
and decodes forward in hardware; each returned frame's timestamp (less the decoder's constant
offset, measured on frame 0: PyNvVideoCodec ignores MP4 edit lists) is checked against the file's
index (`_container.VideoIndex`, the same numbering as the CPU backend), so a sequence is the
same frames on both backends or an error, never silently other frames.

The decoder works on its own CUDA stream (a non-blocking CuPy stream given to the session):
`decode` copies the frames out of the decoder's surfaces into one buffer on that stream and
waits for it, in the calling (worker) thread, so that the pipeline's stream can use the buffer
at once and the decoder may reuse its surfaces.

PyNvVideoCodec is imported when the first GPU decoder is made:
``pip install 'dali-core[video-gpu]'``; NVDEC needs the driver's ``libnvcuvid`` (containers:
``NVIDIA_DRIVER_CAPABILITIES`` must include ``video``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._ops.video._container import VideoError, VideoIndex

__all__ = ["GpuDecoder", "import_nvc"]

_SESSION_LOCK = threading.Lock()


def import_nvc() -> Any:
    """PyNvVideoCodec, or an ImportError that says which extra installs it."""
    try:
        import PyNvVideoCodec as nvc
    except ImportError as e:  # pragma: no cover - GPU installations only
        raise ImportError(
            "GPU video decoding uses NVDEC through PyNvVideoCodec: "
            "pip install 'dali-core[video-gpu]'"
        ) from e
    return nvc


class GpuDecoder:
    """Decodes frames of one video by number on GPU ``device_id``; NV12 out."""

    def __init__(
        self,
        index: VideoIndex,
        device_id: int,
        data: bytes | None = None,
        *,
        offsets: dict[str, int],
    ) -> None:
        import cupy as cp

        self.index = index
        self._device = device_id
        with cp.cuda.Device(device_id):
            self._stream = cp.cuda.Stream(non_blocking=True)
        self._source: Any = data if data is not None else index.path
        self._dec = self._open()
        self._next = -1
        #: the decoder's timestamps minus the index's (PyNvVideoCodec ignores MP4 edit lists,
        #: so its timestamps of a B-frame stream are shifted by the first decode delay)
        self._offsets = offsets  # shared by the decoders of one operator, keyed by path

    def _open(self) -> Any:
        nvc = import_nvc()
        try:
            with _SESSION_LOCK:  # session creation is not thread-safe in every driver
                return nvc.SimpleDecoder(
                    self._source,
                    gpu_id=self._device,
                    cuda_stream=self._stream.ptr,
                    use_device_memory=True,
                    output_color_type=nvc.OutputColorType.NATIVE,
                )
        except Exception as e:  # the binding raises its own exception types
            raise VideoError(f"NVDEC cannot open video file '{self.index.path}': {e}") from e

    @property
    def position(self) -> int:
        """The frame after the last one decoded (the decoder continues from there)."""
        return self._next

    def close(self) -> None:
        self._dec = None

    def decode(self, frames: Sequence[int] | np.ndarray) -> Any:
        """NV12 frames ``(len(frames), H + ceil(H/2), W)`` uint8 (CuPy), in the order asked."""
        import cupy as cp

        h, w = self.index.height, self.index.width
        rows = h + (h + 1) // 2
        wanted = sorted({int(f) for f in frames})
        with cp.cuda.Device(self._device), self._stream:
            offset = self._offsets.get(self.index.path)
            got = self._by_index(wanted)
            if got is not None and offset is None:
                # measured on frame 0, asked for on its own after the frames wanted (asked for
                # before them, the next frames come back shifted by one with B-frames)
                zero = got if wanted[0] == 0 else self._by_index([0])
                if zero is not None and wanted[0] != 0:
                    got = self._by_index(wanted)
                if zero is not None and got is not None:
                    offset = int(zero[0].getPTS()) - int(self.index.pts[0])
                    self._offsets[self.index.path] = offset
                else:
                    got = None
            buf = cp.empty((len(wanted), rows, w), cp.uint8)
            if got is None or offset is None:
                self._decode_forward(wanted, buf, offset)
            else:
                if len(got) != len(wanted):
                    raise VideoError(
                        f"NVDEC returned {len(got)} frames of the {len(wanted)} asked for from "
                        f"video file '{self.index.path}'"
                    )
                for k, (number, frame) in enumerate(zip(wanted, got)):
                    pts = int(frame.getPTS()) - offset
                    if pts != int(self.index.pts[number]):
                        raise VideoError(
                            f"NVDEC returned the frame with timestamp {pts} for frame {number} "
                            f"(timestamp {int(self.index.pts[number])}) of video file "
                            f"'{self.index.path}'"
                        )
                    _copy_nv12(buf[k], frame, h, w)
            order = {f: k for k, f in enumerate(wanted)}
            if [order[int(f)] for f in frames] != list(range(len(wanted))):
                # on the decoder's stream too: the result is complete when this returns
                buf = buf[np.asarray([order[int(f)] for f in frames])]
            self._stream.synchronize()  # synchronize!
        self._next = wanted[-1] + 1 if wanted else self._next
        return buf

    def _by_index(self, wanted: list[int]) -> list[Any] | None:
        """The frames by number, or None where the decoder could not seek to them."""
        try:
            return list(self._dec.get_batch_frames_by_index(wanted))
        except Exception as e:
            if "seek" in str(e).lower():
                return None
            raise VideoError(f"NVDEC failed on video file '{self.index.path}': {e}") from e

    def _decode_forward(self, wanted: list[int], buf: Any, offset: int | None) -> None:
        """Decode forward with a fresh session, keeping the wanted frames.

        PyNvVideoCodec 2.2 cannot seek to the last frames of some streams (an HEVC clip with
        B-frames: "End of stream reached while seeking"), and its session keeps failing after
        that. A new session decodes forward from the key frame before ``wanted[0]`` (or from the
        first frame, where the decoder's timestamp offset is not known yet or that seek fails
        too); frames are recognised by their timestamps, as on the seeking path.
        """
        h, w = self.index.height, self.index.width
        number_of = {int(t): n for n, t in enumerate(self.index.pts)}
        starts = [0] if offset is None else [self.index.key_frame_before(wanted[0]), 0]
        slot: dict[int, int] = {}
        for attempt, start in enumerate(dict.fromkeys(starts)):
            last = attempt == len(set(starts)) - 1
            slot = {f: k for k, f in enumerate(wanted)}
            try:
                self._dec = self._open()
                if start:
                    self._dec.seek_to_index(start)
                while slot:
                    chunk = self._dec.get_batch_frames(wanted[-1] + 1 - start)
                    if not chunk:
                        break
                    for frame in chunk:
                        pts = int(frame.getPTS())
                        if offset is None:  # decoding from the start: this is frame 0
                            offset = pts - int(self.index.pts[0])
                            self._offsets[self.index.path] = offset
                        number = number_of.get(pts - offset, -1)
                        k = slot.pop(number, None)
                        if k is not None:
                            _copy_nv12(buf[k], frame, h, w)
                        elif slot and number > max(slot):
                            break  # past the frames still missing: the seek landed too late
                    else:
                        continue
                    break
            except VideoError:
                raise
            except Exception as e:
                if last:
                    raise VideoError(f"NVDEC failed on video file '{self.index.path}': {e}") from e
                continue
            if not slot:
                return
        raise VideoError(
            f"NVDEC did not return frames {sorted(slot)} of video file '{self.index.path}'"
        )


def _copy_nv12(dst: Any, frame: Any, h: int, w: int) -> None:
    """Copy one decoded NV12 frame (``(H + ceil(H/2), W)``, possibly pitched) into ``dst``."""
    import cupy as cp

    a = cp.from_dlpack(frame)
    dst[...] = a.reshape(a.shape[0], -1)[: dst.shape[0], :w]
