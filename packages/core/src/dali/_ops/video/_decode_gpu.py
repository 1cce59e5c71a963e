"""Frame-exact decoding on the GPU with NVDEC, through NVIDIA's PyNvVideoCodec binding.

`GpuDecoder` decodes frames of one file by number into NV12 device buffers; `_color` turns a
batch of them into RGB in one launch, with the CPU backend's arithmetic. PyNvVideoCodec's
``SimpleDecoder`` demuxes the file (its own FFmpeg), seeks to the key frame before a wanted frame
and decodes forward in hardware; each returned frame's timestamp (less the decoder's constant
offset, measured on frame 0: PyNvVideoCodec ignores MP4 edit lists) is checked against the file's
index (`_container.VideoIndex`, the same numbering as the CPU backend), so a sequence is the
same frames on both backends or an error, never silently other frames.

Some files are decoded by FFmpeg instead, and the frames copied to the device as NV12
(`GpuDecoder._decode_on_cpu`; decoding is exact, so the bytes are NVDEC's):
* a stream with leading frames (an "open GOP": frames shown before a key frame but stored after
  it, x265's default), from the start: PyNvVideoCodec 2.2's frame access returns the key
  frame's picture under a leading frame's timestamp, which no check can see, and cannot reach
  the leading frames of the last key frame at all;
* a file where PyNvVideoCodec could not seek to a frame, or returned other frames than those
  asked for, from then on (for every decoder of the operator).

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

__all__ = ["FileNotes", "GpuDecoder", "import_nvc"]

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


class FileNotes:
    """What the GPU decoders of one operator learned of its files, shared by them: each file's
    timestamp offset, and the files FFmpeg decodes from now on (keyed by path)."""

    def __init__(self) -> None:
        #: the decoder's timestamps minus the index's (PyNvVideoCodec ignores MP4 edit lists,
        #: so its timestamps of a B-frame stream are shifted by the first decode delay)
        self.offsets: dict[str, int] = {}
        self.on_cpu: set[str] = set()


class GpuDecoder:
    """Decodes frames of one video by number on GPU ``device_id``; NV12 out."""

    def __init__(
        self,
        index: VideoIndex,
        device_id: int,
        data: bytes | None = None,
        *,
        notes: FileNotes,
    ) -> None:
        import cupy as cp

        self.index = index
        self._device = device_id
        with cp.cuda.Device(device_id):
            self._stream = cp.cuda.Stream(non_blocking=True)
        self._source: Any = data if data is not None else index.path
        # FFmpeg decodes a stream with leading frames (see the module's docstring)
        self._dec: Any = None if index.leading_frames else self._open()
        self._next = -1
        self._notes = notes  # shared by the decoders of one operator
        #: FFmpeg's decoder of this file, once its frames are decoded on the CPU: kept open, so
        #: that the next frames continue from the last ones instead of seeking
        self._cpu: Any = None

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
        if self._cpu is not None:
            self._cpu.close()
            self._cpu = None

    def decode(self, frames: Sequence[int] | np.ndarray) -> Any:
        """NV12 frames ``(len(frames), H + ceil(H/2), W)`` uint8 (CuPy), in the order asked."""
        import cupy as cp

        h, w = self.index.height, self.index.width
        rows = h + (h + 1) // 2
        wanted = sorted({int(f) for f in frames})
        path = self.index.path
        with cp.cuda.Device(self._device), self._stream:
            offset = self._notes.offsets.get(path)
            nvdec = self._dec is not None and path not in self._notes.on_cpu
            got = self._by_index(wanted) if nvdec else None
            if got is not None and offset is None:
                # measured on frame 0, asked for on its own after the frames wanted (asked for
                # before them, the next frames come back shifted by one with B-frames)
                zero = got if wanted[0] == 0 else self._by_index([0])
                if zero is not None and wanted[0] != 0:
                    got = self._by_index(wanted)
                if zero is not None and got is not None:
                    offset = int(zero[0].getPTS()) - int(self.index.pts[0])
                    self._notes.offsets[path] = offset
                else:
                    got = None
            buf = cp.empty((len(wanted), rows, w), cp.uint8)
            if got is None or offset is None:
                if nvdec:
                    self._give_up()
                self._decode_on_cpu(wanted, buf)
            else:
                if len(got) != len(wanted):
                    raise VideoError(
                        f"NVDEC returned {len(got)} frames of the {len(wanted)} asked for from "
                        f"video file '{self.index.path}'"
                    )
                stamps = [int(frame.getPTS()) - offset for frame in got]
                if stamps != [int(self.index.pts[f]) for f in wanted]:
                    # other frames than those asked for (PyNvVideoCodec's numbering of some
                    # streams is off by one after a seek): FFmpeg decodes them by timestamp
                    self._give_up()
                    self._decode_on_cpu(wanted, buf)
                else:
                    for k, frame in enumerate(got):
                        _copy_nv12(buf[k], frame, h, w)
            order = {f: k for k, f in enumerate(wanted)}
            if [order[int(f)] for f in frames] != list(range(len(wanted))):
                # on the decoder's stream too: the result is complete when this returns
                buf = buf[np.asarray([order[int(f)] for f in frames])]
            self._stream.synchronize()  # synchronize!
        self._next = wanted[-1] + 1 if wanted else self._next
        return buf

    def _give_up(self) -> None:
        """NVDEC failed on this file: its frames are FFmpeg's from now on, for every decoder
        of the operator (after such a failure PyNvVideoCodec also returned pictures under
        other frames' timestamps, which no check here can see)."""
        self._notes.on_cpu.add(self.index.path)

    def _by_index(self, wanted: list[int]) -> list[Any] | None:
        """The frames by number, or None where the decoder could not seek to them."""
        try:
            return list(self._dec.get_batch_frames_by_index(wanted))
        except Exception as e:
            if "seek" in str(e).lower():
                return None
            raise VideoError(f"NVDEC failed on video file '{self.index.path}': {e}") from e

    def _decode_on_cpu(self, wanted: list[int], buf: Any) -> None:
        """Decode ``wanted`` with FFmpeg (`_decode_cpu.CpuDecoder`) into ``buf`` as NV12.

        Decoding is exact, so FFmpeg's planes are the bytes NVDEC gives; each frame is put in
        8-bit 4:2:0 of the index's size by the CPU backend's rule, interleaved into NV12 and
        copied to the device.
        """
        import cupy as cp

        from dali._ops.video._decode_cpu import CpuDecoder

        h, w = self.index.height, self.index.width
        ch = (h + 1) // 2
        host = np.empty((len(wanted), h + ch, w), np.uint8)
        slot = {f: k for k, f in enumerate(wanted)}
        if self._cpu is None:
            data = self._source if isinstance(self._source, bytes) else None
            self._cpu = CpuDecoder(self.index, data)
        dec = self._cpu

        def take(number: int, frame: Any) -> None:
            frame = dec.as_i420(frame)
            out = host[slot[number]]
            out[:h] = _plane(frame.planes[0], h, w)
            uv = out[h:]
            uv[:, 0::2] = _plane(frame.planes[1], ch, (w + 1) // 2)
            uv[:, 1::2] = _plane(frame.planes[2], ch, w // 2)

        try:
            dec.decode(wanted, take)
        except BaseException:
            self._cpu = None  # where it stopped is unknown: a fresh one next time
            dec.close()
            raise
        buf[...] = cp.asarray(host)


def _copy_nv12(dst: Any, frame: Any, h: int, w: int) -> None:
    """Copy one decoded NV12 frame (``(H + ceil(H/2), W)``, possibly pitched) into ``dst``."""
    import cupy as cp

    a = cp.from_dlpack(frame)
    dst[...] = a.reshape(a.shape[0], -1)[: dst.shape[0], :w]


def _plane(plane: Any, rows: int, cols: int) -> np.ndarray:
    """A PyAV frame plane as a ``(rows, cols)`` array (its row padding cut)."""
    a = np.frombuffer(plane, np.uint8)
    return a.reshape(-1, plane.line_size)[:rows, :cols]
