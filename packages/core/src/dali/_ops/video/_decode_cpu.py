"""Frame-exact decoding on the CPU with PyAV (FFmpeg): frames by number, as YUV planes or RGB.

`CpuDecoder` decodes one file. Asked for frames ``[f0, f1, ...]`` (any order, repeats allowed)
it decodes in increasing order: it seeks to the last key frame at or before the first frame it
lacks (`_container.VideoIndex.key_frame_before`) unless decoding forward from where it stands is
no longer, and identifies every decoded frame by its timestamp, so it lands on exactly the frame
asked for whatever the container's seek precision (B-frames, open GOPs, MJPEG in AVI). A reader
asking for consecutive sequences of a file thus decodes each frame once, never re-seeking.

Frames are converted to RGB (or upsampled YCbCr) by `_color.i420_to_rgb`, the arithmetic of the
GPU backend, so both backends give the same bytes. Frames in other pixel formats (4:2:2, 4:4:4,
10-bit) are first converted to 8-bit 4:2:0 by FFmpeg, as DALI does.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._ops.video._color import i420_to_rgb
from dali._ops.video._container import VideoError, VideoIndex, import_av

__all__ = ["CpuDecoder"]


class CpuDecoder:
    """Decodes frames of one video by number; keeps its position between calls."""

    def __init__(self, index: VideoIndex, data: bytes | None = None) -> None:
        av = import_av()
        self.index = index
        self._av = av
        try:
            self._container = av.open(io.BytesIO(data) if data is not None else index.path, "r")
        except (av.FFmpegError, OSError) as e:
            raise VideoError(f"cannot open video file '{index.path}': {e}") from e
        self._stream = self._container.streams.video[0]
        # frame threading deadlocks on in-memory (Python file object) input; the operators
        # decode several samples at once instead
        self._stream.thread_type = "SLICE"
        self._frames: Any = None
        #: the number of the next frame the decoder will output (-1: must seek first)
        self._next = -1

    def close(self) -> None:
        self._container.close()

    @property
    def position(self) -> int:
        """The next frame this decoder outputs without seeking (-1 when it must seek)."""
        return self._next

    def _seek(self, frame: int) -> None:
        key = self.index.key_frame_before(frame)
        self._container.seek(
            int(self.index.pts[key]), stream=self._stream, backward=True, any_frame=False
        )
        self._frames = self._container.decode(self._stream)
        self._next = -1  # known once the first frame comes out

    def _decode_next(self) -> tuple[int, Any]:
        try:
            frame = next(self._frames)
        except StopIteration:
            raise VideoError(
                f"video file '{self.index.path}' ended before frame {self._next} "
                f"of {self.index.num_frames}"
            ) from None
        except self._av.FFmpegError as e:
            raise VideoError(f"corrupt video file '{self.index.path}': {e}") from e
        pts = frame.pts
        if pts is None:
            number = self._next
        else:
            number = int(np.searchsorted(self.index.pts, pts))
            if number >= self.index.num_frames or self.index.pts[number] != pts:
                raise VideoError(
                    f"video file '{self.index.path}' decoded a frame with timestamp {pts}, "
                    "which its index does not have (variable frame rate or a broken stream)"
                )
        self._next = number + 1
        return number, frame

    def decode(self, frames: Sequence[int], on_frame: Callable[[int, Any], None]) -> None:
        """Call ``on_frame(number, frame)`` once for each distinct frame number of ``frames``
        (all in range), in increasing order; ``frame`` is a PyAV frame, valid during the call."""
        for target in sorted({int(f) for f in frames}):
            if (
                self._next < 0
                or target < self._next
                or self.index.key_frame_before(target) > self._next
            ):
                self._seek(target)
            while True:
                number, frame = self._decode_next()
                if number == target:
                    on_frame(target, frame)
                    break
                if number > target:  # the seek went past it: the container lied
                    raise VideoError(
                        f"cannot seek to frame {target} of video file '{self.index.path}'"
                    )

    def to_rgb(self, frame: Any, conversion: str, out: np.ndarray) -> None:
        """Convert a decoded frame into ``out`` (HWC uint8, `_color.CONVERSIONS`)."""
        if frame.format.name not in ("yuv420p", "yuvj420p"):
            frame = frame.reformat(format="yuv420p")
        h, w = self.index.height, self.index.width
        ch, cw = (h + 1) // 2, (w + 1) // 2
        i420_to_rgb(
            _plane(frame.planes[0], h, w),
            _plane(frame.planes[1], ch, cw),
            _plane(frame.planes[2], ch, cw),
            full_range=conversion == "rgb_full",
            ycbcr=conversion == "ycbcr",
            out=out,
        )


def _plane(plane: Any, rows: int, cols: int) -> np.ndarray:
    a = np.frombuffer(plane, np.uint8)
    return a.reshape(-1, plane.line_size)[:rows, :cols]
