"""Frame-exact decoding on the CPU with PyAV (FFmpeg): frames by number, as YUV planes or RGB.

`CpuDecoder` decodes one file. Asked for frames ``[f0, f1, ...]`` (any order, repeats allowed)
it decodes in increasing order: it seeks to the last key frame at or before the first frame it
lacks (`_container.VideoIndex.key_frame_before`) unless decoding forward from where it stands is
no longer, and identifies every decoded frame by its timestamp, so it lands on exactly the frame
asked for whatever the container's seek precision (B-frames, open GOPs, MJPEG in AVI). A reader
asking for consecutive sequences of a file thus decodes each frame once, never re-seeking.

Frames are converted to RGB (or upsampled YCbCr) by `_color.i420_frames_to_rgb`, the arithmetic
of the GPU backend, so both backends give the same bytes. Frames in other pixel formats (4:2:2,
4:4:4, 10-bit) are first converted to 8-bit 4:2:0 by FFmpeg, as DALI does.

Threads: a decoder is one thread of work (FFmpeg's ``thread_count = 1``): the operators decode
as many files and samples at once as the pipeline has threads, and FFmpeg's own threads would
add as many again per decoder (its slice threads, the default, help only streams cut into
slices). The bitstream is decoded with the GIL released (PyAV); what holds it per frame is
PyAV's frame object and the frame's lookup by timestamp. `decode_into` converts the frames of a
sample in batches (`options.VIDEO_CONVERT_BATCH`), one GIL-free call per batch, straight into the output.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali import _options as options
from dali._ops.video._color import i420_frames_to_rgb
from dali._ops.video._container import VideoError, VideoIndex, import_av

__all__ = ["CpuDecoder"]


_I420 = ("yuv420p", "yuvj420p")


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
        self._stream.thread_count = 1
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
            pts_of = self.index.pts
            number = self._next
            # frames come out in order: the expected one first, then a search (after a seek)
            if not 0 <= number < len(pts_of) or pts_of[number] != pts:
                number = int(np.searchsorted(pts_of, pts))
                if number >= len(pts_of) or pts_of[number] != pts:
                    raise VideoError(
                        f"video file '{self.index.path}' decoded a frame with timestamp {pts}, "
                        "which its index does not have (variable frame rate or a broken stream)"
                    )
        self._next = number + 1
        return number, frame

    def _frame(self, target: int) -> Any:
        """Frame ``target`` (in range), seeking first unless decoding forward is no longer."""
        if (
            self._next < 0
            or target < self._next
            or self.index.key_frame_before(target) > self._next
        ):
            self._seek(target)
        while True:
            number, frame = self._decode_next()
            if number == target:
                return frame
            if number > target:  # the seek went past it: the container lied
                raise VideoError(f"cannot seek to frame {target} of video file '{self.index.path}'")

    def decode(self, frames: Sequence[int], on_frame: Callable[[int, Any], None]) -> None:
        """Call ``on_frame(number, frame)`` once for each distinct frame number of ``frames``
        (all in range), in increasing order; ``frame`` is a PyAV frame, valid during the call."""
        for target in sorted({int(f) for f in frames}):
            on_frame(target, self._frame(target))

    def decode_into(
        self, frames: np.ndarray, conversion: str, fill: np.ndarray, out: np.ndarray
    ) -> None:
        """``out[k]`` = frame ``frames[k]`` converted (`_color.CONVERSIONS`), or ``fill`` where
        ``frames[k]`` is -1; each distinct frame decoded once, in increasing order.

        ``out`` is ``(len(frames), H, W, 3)`` uint8, C-contiguous. The frames are converted in
        batches of `options.VIDEO_CONVERT_BATCH`, each in one call that releases the GIL.
        """
        frames = np.asarray(frames, np.int64)
        places = np.flatnonzero(frames >= 0)
        if len(places) < len(frames):
            out[frames < 0] = fill
        if not len(places):
            return
        wanted, first = np.unique(frames[places], return_index=True)
        first = places[first]  # the place of each distinct frame's first copy
        table = np.empty((min(len(wanted), options.VIDEO_CONVERT_BATCH), 6), np.int64)
        held: list[Any] = []  # the frames of the table: their planes stay valid until converted
        done = 0  # frames converted

        def convert() -> None:
            nonlocal done
            i420_frames_to_rgb(table[: len(held)], conversion, out, first[done : done + len(held)])
            done += len(held)
            held.clear()

        def take(number: int, frame: Any) -> None:
            frame = self.as_i420(frame)
            table[len(held)] = _plane_table_row(frame, self.index.path)
            held.append(frame)
            if len(held) == len(table):
                convert()

        self.decode(wanted.tolist(), take)  # in increasing order: the order of ``first``
        if held:
            convert()
        if len(first) < len(places):  # repeated frames: copies of the first
            source = first[np.searchsorted(wanted, frames[places])]
            again = source != places
            out[places[again]] = out[source[again]]

    def to_rgb(self, frame: Any, conversion: str, out: np.ndarray) -> None:
        """Convert a decoded frame into ``out`` (HWC uint8, `_color.CONVERSIONS`)."""
        frame = self.as_i420(frame)
        table = np.array([_plane_table_row(frame, self.index.path)], np.int64)
        if out.flags.c_contiguous:
            i420_frames_to_rgb(table, conversion, out[None])
        else:
            rgb = np.empty((1, *out.shape), np.uint8)
            i420_frames_to_rgb(table, conversion, rgb)
            out[...] = rgb[0]

    def as_i420(self, frame: Any) -> Any:
        """``frame`` as 8-bit 4:2:0 of the index's size (FFmpeg converts other formats, and
        scales a frame of a stream whose size changed: the conversion reads the index's size)."""
        name = frame.format.name
        w, h = self.index.width, self.index.height
        if name in _I420 and frame.width == w and frame.height == h:
            return frame
        return frame.reformat(width=w, height=h, format=name if name in _I420 else "yuv420p")


def _plane_table_row(frame: Any, path: str) -> tuple[int, int, int, int, int, int]:
    """The addresses and row pitches of a 4:2:0 frame's planes (`_color.i420_frames_to_rgb`)."""
    y, u, v = frame.planes[:3]
    row = (y.buffer_ptr, y.line_size, u.buffer_ptr, u.line_size, v.buffer_ptr, v.line_size)
    if min(row[1::2]) <= 0:  # bottom-up images (negative pitches): FFmpeg's decoders make none
        raise VideoError(f"video file '{path}' decoded a frame stored bottom-up")
    return row
