"""The fast JPEG header walk of the decoders' host planning (`jpeg_info`).

Both decoder backends need each JPEG's frame size, components, precision, EXIF orientation and
start-of-scan offset before decoding (for the random-crop windows, the GPU/CPU split and the
truncation check). `jpeg_info` reads them from the markers before the scan in a few
microseconds per file; where it answers, it agrees with `_codecs.decode`'s parser.
"""

from __future__ import annotations

import numpy as np

from dali._ops.decoders import _codecs

__all__ = ["JpegInfo", "jpeg_info"]


class JpegInfo:
    """What the planner needs from a JPEG header (see `jpeg_info`)."""

    __slots__ = ("height", "ncomp", "orientation", "precision", "sof", "sos", "width")

    def __init__(
        self, sof: int, precision: int, height: int, width: int, ncomp: int, orient: int, sos: int
    ) -> None:
        self.sof = sof
        self.precision = precision
        self.height = height
        self.width = width
        self.ncomp = ncomp
        self.orientation = orient
        self.sos = sos


def _walk(b: bytes) -> JpegInfo | None | bool:
    """Walk the markers of ``b`` up to SOS: the info, None (unusual file) or False (need more)."""
    i, n = 2, len(b)
    info = None
    orient = 1
    while i + 4 <= n:
        if b[i] != 0xFF:
            return None  # garbage between markers: the exact parser skips it as libjpeg does
        m = b[i + 1]
        if m == 0xFF:
            i += 1
            continue
        if m == 0x01 or 0xD0 <= m <= 0xD8:
            i += 2
            continue
        if m == 0xD9:
            return None
        if m == 0xDA:
            if info is None:
                return None
            info.orientation = orient
            info.sos = i
            return info
        seglen = (b[i + 2] << 8) | b[i + 3]
        if i + 2 + seglen > n:
            return False
        if m in _codecs._SOF_MARKERS:
            if info is not None or seglen < 8:
                return None
            h, w = (b[i + 5] << 8) | b[i + 6], (b[i + 7] << 8) | b[i + 8]
            info = JpegInfo(m, b[i + 4], h, w, b[i + 9], 1, -1)
        elif m == 0xE1 and b[i + 4 : i + 10] == b"Exif\x00\x00":
            orient = _codecs._tiff_orientation(b[i + 10 : i + 2 + seglen])
        i += 2 + seglen
    return False


def jpeg_info(data: np.ndarray) -> JpegInfo | None:
    """Frame size, components, precision, EXIF orientation and SOS offset of a JPEG.

    A fast walk over the first few KiB (the markers before the scan are usually under 1 KiB);
    None for files it does not understand, which then take the CPU backend's path. Where it
    answers, it agrees with `_codecs.decode`'s parser (the last EXIF block before the scan wins).
    """
    n = data.size
    limit = 4096
    while True:
        got = _walk(data[:limit].tobytes())
        if got is not False:
            return got  # type: ignore[return-value]
        if limit >= n:
            return None
        limit = min(n, limit * 16)
