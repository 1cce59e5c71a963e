"""A video file's frame index: what every video operator knows about a file before decoding it.

A video reader lists its files once, at build, and enumerates sequences of frames from them; a
decoder seeks to a sequence's first frame and must land on exactly that frame, on the CPU
(FFmpeg through PyAV) and on the GPU (NVDEC) alike. Both need the same numbering of frames, so
it is made once, here, by demuxing the file's video stream (packets only, no decoding: tens of
milliseconds for a minute of video):

* frame ``k`` is the ``k``-th presentation timestamp in increasing order (B-frames reorder
  packets, so packet order is not frame order);
* the key frames are known by frame number, so that a decoder seeks to the last key frame at or
  before the first wanted frame and decodes forward to it (frame-exact seeking);
* the leading frames: frames shown before a key frame but stored (and decoded) after it, in an
  "open GOP" (x265's default, for one); decoding forward from the key frame before them still
  reaches them, but PyNvVideoCodec's frame access does not (`_decode_gpu`);
* the frame rate (``avg_frame_rate``), the time base and whether the timestamps are evenly
  spaced (a constant frame rate: the legacy ``readers.video`` refuses other files unless
  ``skip_vfr_check``), the size, codec and colour range.

PyAV is imported when the first file is indexed: ``pip install dali-core[video]``.
Errors are `VideoError` (an unreadable, corrupt or empty file, no video stream) or
`UnsupportedCodec`, each naming the file; the operators turn them into their own errors.

Example:
    >>> import tempfile, os
    >>> from dali._testing.videos import write_clip
    >>> path = write_clip(os.path.join(tempfile.mkdtemp(), "a.mp4"), frames=12)
    >>> v = index_video(path)
    >>> v.num_frames, v.codec, v.key_frames[0]
    (12, 'h264', 0)
"""

from __future__ import annotations

import bisect
import dataclasses
import fractions
import threading
from typing import Any

import numpy as np

__all__ = [
    "CODECS",
    "UnsupportedCodec",
    "VideoError",
    "VideoIndex",
    "import_av",
    "index_video",
]

#: codecs the operators decode (FFmpeg names), on the CPU through PyAV and on the GPU through
#: NVDEC. DALI 2.4's own CPU backend decodes only VP8, VP9 and MJPEG (its libavcodec has no
#: H.264/HEVC); ours decodes all of them on both backends.
CODECS = ("h264", "hevc", "vp8", "vp9", "mjpeg", "av1", "mpeg4")


class VideoError(ValueError):
    """A file that cannot be read as a video (missing, corrupt, empty, no video stream)."""


class UnsupportedCodec(VideoError):
    """A video stream in a codec the operators do not decode."""


def import_av() -> Any:
    """PyAV, or an ImportError that says which extra installs it."""
    try:
        import av
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            "the video operators decode with PyAV (FFmpeg): pip install 'dali-core[video]'"
        ) from e
    av.logging.set_level(av.logging.ERROR)
    return av


@dataclasses.dataclass(frozen=True)
class VideoIndex:
    """The frame numbering of one file's (first) video stream."""

    path: str
    codec: str
    width: int
    height: int
    #: presentation timestamps in frame order (stream time base units)
    pts: np.ndarray
    #: frame numbers of the key frames, increasing
    key_frames: tuple[int, ...]
    time_base: fractions.Fraction
    #: ``avg_frame_rate`` of the stream (frames per second)
    frame_rate: fractions.Fraction
    #: whether the timestamps are evenly spaced (a constant frame rate)
    constant_rate: bool
    #: full-range ("JPEG") YUV rather than BT.601 limited range
    full_range: bool
    stream_index: int
    #: frame numbers of the leading frames (shown before a key frame, decoded after it),
    #: increasing; empty in a stream of closed groups of pictures
    leading_frames: tuple[int, ...] = ()

    @property
    def num_frames(self) -> int:
        return len(self.pts)

    def key_frame_before(self, frame: int) -> int:
        """The last key frame at or before ``frame`` (where decoding must start)."""
        k = bisect.bisect_right(self.key_frames, frame) - 1
        return self.key_frames[max(k, 0)]

    def timestamps(self, frames: np.ndarray) -> np.ndarray:
        """Seconds (float64) of the given frame numbers; -1 for padding (negative numbers)."""
        frames = np.asarray(frames, np.int64)
        t = self.pts[np.clip(frames, 0, self.num_frames - 1)] * float(self.time_base)
        return np.where(frames < 0, -1.0, t)


def _frame_rate(stream: Any, pts: np.ndarray, time_base: fractions.Fraction) -> fractions.Fraction:
    rate = stream.average_rate or stream.guessed_rate
    if rate:
        return fractions.Fraction(rate)
    if len(pts) > 1:  # no rate in the container: from the timestamps
        return fractions.Fraction(len(pts) - 1) / ((int(pts[-1]) - int(pts[0])) * time_base)
    return fractions.Fraction(1)


_INDEX_CACHE: dict[tuple[str, float, int], VideoIndex] = {}
_INDEX_LOCK = threading.Lock()


def index_video(path: str, data: bytes | None = None) -> VideoIndex:
    """Demux ``path`` (or the in-memory file ``data``) and number its frames.

    Raises:
        VideoError: the file cannot be opened or holds no decodable video frames.
        UnsupportedCodec: its video stream is in a codec not in `CODECS`.
    """
    import os

    key = None
    if data is None:
        try:
            st = os.stat(path)
        except OSError as e:
            raise VideoError(f"cannot open video file '{path}': {e.strerror or e}") from e
        key = (path, st.st_mtime, st.st_size)
        with _INDEX_LOCK:
            if key in _INDEX_CACHE:
                return _INDEX_CACHE[key]
    av = import_av()
    import io

    try:
        container = av.open(io.BytesIO(data) if data is not None else path, "r")
    except (av.FFmpegError, OSError, UnicodeDecodeError) as e:
        raise VideoError(f"cannot open video file '{path}': {e}") from e
    try:
        index = _index(container, path)
    except av.FFmpegError as e:
        raise VideoError(f"corrupt video file '{path}': {e}") from e
    finally:
        container.close()
    if key is not None:
        with _INDEX_LOCK:
            _INDEX_CACHE[key] = index
    return index


def _index(container: Any, path: str) -> VideoIndex:
    if not container.streams.video:
        raise VideoError(f"no video stream in '{path}'")
    stream = container.streams.video[0]
    ctx = stream.codec_context
    codec = ctx.name
    if codec not in CODECS:
        raise UnsupportedCodec(
            f"unsupported video codec '{codec}' in '{path}' (supported: {', '.join(CODECS)})"
        )
    pts_list: list[int] = []  # in packet (decoding) order
    key_flags: list[bool] = []
    for packet in container.demux(stream):
        if packet.size == 0:  # the flush packet at the end
            continue
        t = packet.pts if packet.pts is not None else packet.dts
        if t is None:
            t = pts_list[-1] + 1 if pts_list else 0
        pts_list.append(int(t))
        key_flags.append(bool(packet.is_keyframe))
    if not pts_list:
        raise VideoError(f"no video frames in '{path}'")
    pts = np.unique(np.asarray(pts_list, np.int64))
    if len(pts) != len(pts_list):
        raise VideoError(f"corrupt video file '{path}': repeated frame timestamps")
    in_packet_order = np.searchsorted(pts, np.asarray(pts_list, np.int64))
    is_key = np.asarray(key_flags, bool)
    keys = tuple(int(f) for f in np.sort(in_packet_order[is_key])) or (0,)
    # a leading frame: a packet after a key frame's packet that is shown before it
    last_key = np.maximum.accumulate(np.where(is_key, in_packet_order, -1))
    leading = tuple(
        int(f) for f in np.sort(in_packet_order[~is_key & (in_packet_order < last_key)])
    )
    if keys[0] != 0:
        # the first frames depend on nothing before them in a file that starts on a non-key
        # packet only when the stream is broken; decoding must still start at the beginning
        keys = (0, *keys)
    time_base = fractions.Fraction(stream.time_base)
    steps = np.diff(pts)
    constant = bool(len(steps) == 0 or steps.max() - steps.min() <= 1)
    full = ctx.color_range == 2 or (ctx.pix_fmt or "").startswith("yuvj")
    return VideoIndex(
        path=path,
        codec=codec,
        width=int(ctx.width),
        height=int(ctx.height),
        pts=pts,
        key_frames=keys,
        time_base=time_base,
        frame_rate=_frame_rate(stream, pts, time_base),
        constant_rate=constant,
        full_range=bool(full),
        stream_index=int(stream.index),
        leading_frames=leading,
    )
