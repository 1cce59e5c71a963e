"""The JPEG marker walk of one file, standard library only (`_jpeg_header`, the read worker).

`walk` reads what the decoders plan with (frame size, components, precision, EXIF orientation,
start of scan) from the markers before the scan; `header_row` gives, for one file, the row of
`_jpeg_header.jpeg_headers`' fields. It imports nothing outside the standard library so that
`fn.readers.file`'s worker process (`dali._ops.readers.storage.read_worker_main`, which runs without
site-packages) can walk each file it reads, out of the pipeline's process and its GIL: the GPU
decoders then take the headers from the batch instead of walking the files themselves.

Example:
    >>> data = bytes.fromhex("ffd8" "ffc0000b080003000401011100" "ffda0008010100003f00" "00ffd9")
    >>> walk(data)
    JpegInfo(sof=192, precision=8, height=3, width=4, ncomp=1, orientation=1, sos=15)
    >>> header_row(lambda at, count: data[at : at + count], len(data))
    (1, 1, 192, 8, 3, 4, 1, 1, 15, 1)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import NamedTuple

__all__ = [
    "PREFIX",
    "ROW_FIELDS",
    "SOF_MARKERS",
    "JpegInfo",
    "header_row",
    "tiff_orientation",
    "walk",
    "walk_file",
]


class JpegInfo(NamedTuple):
    """What the planner needs from a JPEG header (see `_jpeg_header.jpeg_info`)."""

    sof: int
    precision: int
    height: int
    width: int
    ncomp: int
    orientation: int
    sos: int


#: Bytes of each file the walks read first. The markers before the scan of a typical JPEG end
#: within 1 KiB (ImageNet-like files: about 600 bytes); longer headers (an ICC profile, an EXIF
#: thumbnail) are read again with 16 times more, until the file ends.
PREFIX = 1024

#: The start-of-frame markers (SOF0-3, 5-7, 9-11, 13-15).
SOF_MARKERS = frozenset(
    {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
)

#: `header_row`'s fields, in order (`_jpeg_header.JpegHeaders`' ``jpeg`` .. ``sos``, ``ends``).
ROW_FIELDS = (
    "jpeg", "found", "sof", "precision", "height", "width", "ncomp", "orientation", "sos", "ends",
)  # fmt: skip

# What a marker means to the walk: a segment it skips, the frame header (SOFn), the scan (SOS),
# an APP1 segment (maybe EXIF), the end of the image, a fill byte, a marker without a length
# (TEM, RSTn, SOI). `_jpeg_header.jpeg_headers` takes the first three itself.
SEGMENT, SOF, SOS, APP1, EOI, FILL, BARE = range(7)
_KINDS = [SEGMENT] * 256
for _m in SOF_MARKERS:
    _KINDS[_m] = SOF
for _m in (0x01, *range(0xD0, 0xD9)):
    _KINDS[_m] = BARE
_KINDS[0xDA], _KINDS[0xE1], _KINDS[0xD9], _KINDS[0xFF] = SOS, APP1, EOI, FILL
#: the kind of each marker (its second byte)
MARKER_KIND = tuple(_KINDS)
del _KINDS, _m

_MARKER = struct.Struct(">BBH").unpack_from  # 0xFF, marker, segment length
_FRAME = struct.Struct(">BHHB").unpack_from  # precision, height, width, components


def tiff_orientation(buf: bytes, start: int = 0) -> int:
    """The Orientation tag (274) of the TIFF structure at ``buf[start:]`` (1 if absent/corrupt)."""
    try:
        order = buf[start : start + 2]
        if order == b"II":
            e = "<"
        elif order == b"MM":
            e = ">"
        else:
            return 1
        ifd = start + struct.unpack_from(e + "I", buf, start + 4)[0]
        (count,) = struct.unpack_from(e + "H", buf, ifd)
        for k in range(min(count, 1024)):
            entry = ifd + 2 + 12 * k
            tag, typ = struct.unpack_from(e + "HH", buf, entry)
            if tag == 0x0112:
                if typ == 3:  # SHORT
                    value = struct.unpack_from(e + "H", buf, entry + 8)[0]
                elif typ == 4:  # LONG
                    value = struct.unpack_from(e + "I", buf, entry + 8)[0]
                else:
                    return 1
                return value if 1 <= value <= 8 else 1
    except struct.error:
        return 1
    return 1


def walk(b: bytes) -> JpegInfo | bool | None:
    """Walk the markers of ``b`` up to SOS: the info, None (unusual file) or False (need more)."""
    i, n = 2, len(b)
    last = n - 4  # a marker and its segment length must lie within ``b``
    frame = None
    orient = 1
    kinds = MARKER_KIND
    while i <= last:
        ff, m, seglen = _MARKER(b, i)
        if ff != 0xFF:
            return None  # garbage between markers: the exact parser skips it as libjpeg does
        kind = kinds[m]
        if kind == SEGMENT:
            i += 2 + seglen  # (past the end of ``b``, the loop ends: more is needed)
            continue
        if kind == SOS:
            if frame is None:
                return None
            return JpegInfo._make((*frame, orient, i))
        if kind == FILL:
            i += 1
            continue
        if kind == BARE:
            i += 2
            continue
        if kind == EOI:
            return None
        if i + 2 + seglen > n:
            return False
        if kind == SOF:
            if frame is not None or seglen < 8:
                return None
            frame = (m, *_FRAME(b, i + 4))
        elif b[i + 4 : i + 10] == b"Exif\x00\x00":  # APP1
            orient = tiff_orientation(b[i + 10 : i + 2 + seglen])
        i += 2 + seglen
    return False


def walk_file(read: Callable[[int], bytes], size: int) -> JpegInfo | None:
    """`walk` over the first `PREFIX` bytes of a file of ``size`` bytes (``read(count)`` gives
    its first ``count``), read again with 16 times more while more is needed; None where the
    walk does not answer."""
    limit = PREFIX
    while True:
        got = walk(read(min(limit, size)))
        if got is not False:
            return got  # type: ignore[return-value]
        if limit >= size:
            return None
        limit = min(size, limit * 16)


def header_row(read: Callable[[int, int], bytes], size: int) -> tuple[int, ...]:
    """One file's `ROW_FIELDS`, as `_jpeg_header.jpeg_headers(..., ends=True)` gives them.

    ``read(offset, count)`` gives ``count`` bytes of the file (of ``size`` bytes) from
    ``offset``. ``jpeg``: more than 4 bytes, starting with the start-of-image marker;
    ``found`` and the fields after it: `walk_file`'s answer for a ``jpeg`` (0 elsewhere, and
    for the orientation too); ``ends``: the last two bytes are the end-of-image marker.
    """
    ends = int(size >= 2 and read(size - 2, 2) == b"\xff\xd9")
    jpeg = size > 4 and read(0, 2) == b"\xff\xd8"
    info = walk_file(lambda count: read(0, count), size) if jpeg else None
    if info is None:
        return (int(jpeg), 0, 0, 0, 0, 0, 0, 0, 0, ends)
    return (1, 1, *info, ends)
