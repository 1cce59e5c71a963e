"""Small generated video clips for tests, examples and benchmarks (written with PyAV).

Every frame shows its own number: a row of 16x16 black/white blocks at the top left spells the
frame number in binary (lossy codecs keep blocks that large intact), so a test can tell which
frame a decoder returned (`frame_number`) whatever the codec's rounding. Below it a smooth
colour gradient and a bright square that moves ``motion`` pixels per frame (for optical flow
and for the eye).

Example:
    >>> import os, tempfile
    >>> path = write_clip(os.path.join(tempfile.mkdtemp(), "c.mp4"), frames=5)
    >>> from dali._ops.video._container import index_video
    >>> index_video(path).num_frames
    5
"""

from __future__ import annotations

import fractions
import os

import numpy as np

__all__ = ["BITS", "frame_image", "frame_number", "write_clip"]

#: how many binary blocks spell a frame number (frames 0..1023)
BITS = 10
_BLOCK = 16


def frame_image(k: int, width: int, height: int, motion: tuple[int, int] = (3, 1)) -> np.ndarray:
    """Frame ``k`` of a clip: HWC uint8 RGB."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.empty((height, width, 3), np.uint8)
    img[..., 0] = (64 + 96 * xx / max(width - 1, 1)).astype(np.uint8)
    img[..., 1] = (64 + 96 * yy / max(height - 1, 1)).astype(np.uint8)
    img[..., 2] = ((k * 7) % 128 + 64) & 0xFF
    side = max(8, min(width, height) // 6)
    x0 = (width // 3 + motion[0] * k) % max(width - side, 1)
    y0 = (height // 2 + motion[1] * k) % max(height - side, 1)
    img[y0 : y0 + side, x0 : x0 + side] = (230, 200, 40)
    for b in range(BITS):
        bit = (k >> (BITS - 1 - b)) & 1
        img[0:_BLOCK, b * _BLOCK : (b + 1) * _BLOCK] = 235 if bit else 16
    return img


def frame_number(rgb: np.ndarray) -> int:
    """The number a decoded frame (HWC, RGB or YCbCr: the blocks are grey) shows."""
    k = 0
    for b in range(BITS):
        block = rgb[4 : _BLOCK - 4, b * _BLOCK + 4 : (b + 1) * _BLOCK - 4, 0]
        k = (k << 1) | int(block.mean() > 128)
    return k


def write_clip(
    path: str,
    *,
    frames: int = 30,
    width: int = 176,
    height: int = 144,
    fps: int = 25,
    codec: str = "h264",
    gop: int = 10,
    bframes: bool = True,
    vfr: bool = False,
    motion: tuple[int, int] = (3, 1),
    open_gop: bool = True,
) -> str:
    """Write a clip of ``frames`` numbered frames; returns ``path``.

    Args:
        codec: an FFmpeg encoder name or "h264" (libx264), "hevc" (libx265), "vp9", "vp8",
            "mjpeg", "mpeg4"; the container follows ``path``'s extension (.mp4, .mkv, .webm,
            .avi).
        gop: the key frame interval.
        bframes: allow B-frames (packets out of presentation order).
        vfr: variable frame rate: every third frame lasts 1.5 times as long.
        open_gop: for "hevc", x265's default open groups of pictures (frames shown before a
            key frame but stored after it, with B-frames); False closes each group.
    """
    import av

    encoder = {"h264": "libx264", "hevc": "libx265", "vp9": "libvpx-vp9", "vp8": "libvpx"}.get(
        codec, codec
    )
    pix_fmt = "yuvj420p" if codec == "mjpeg" else "yuv420p"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with av.open(path, "w") as out:
        stream = out.add_stream(encoder, rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, pix_fmt
        options = {"g": str(gop)}
        if encoder == "libx264":
            options.update({"bf": "2" if bframes else "0", "crf": "18", "preset": "veryfast"})
        elif encoder == "libx265":
            options["x265-params"] = (
                f"keyint={gop}:min-keyint={gop}:bframes="
                + ("2" if bframes else "0")
                + ("" if open_gop else ":open-gop=0")
                + ":log-level=error"
            )
        else:
            stream.bit_rate = 4_000_000
        stream.options = options
        ticks = 2 if vfr else 1  # a finer time base lets frames last 1.5 periods
        stream.codec_context.time_base = fractions.Fraction(1, fps * ticks)
        t = 0
        for k in range(frames):
            frame = av.VideoFrame.from_ndarray(frame_image(k, width, height, motion), "rgb24")
            frame.pts = t
            frame.time_base = stream.codec_context.time_base
            t += 3 if vfr and k % 3 == 2 else ticks
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path
