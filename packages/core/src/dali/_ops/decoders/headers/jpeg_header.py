"""The fast JPEG header walk of the decoders' host planning (`jpeg_info`, `jpeg_headers`).

Both decoder backends need each JPEG's frame size, components, precision, EXIF orientation and
start-of-scan offset before decoding (for the random-crop windows, the GPU/CPU split and the
truncation check). `jpeg_info` reads them from the markers before the scan; where it answers,
it agrees with `_codecs.decode`'s parser. `jpeg_headers` gives the same answers for a whole
batch at once: it walks every file's markers together with numpy, one segment of every file per
step, over the first `PREFIX` bytes of each, and leaves anything unusual (an EXIF block, fill
bytes, a header longer than the prefix, ...) to `jpeg_info`. A typical JPEG's header is about
ten segments, so a batch of 256 takes about ten steps instead of 2,500 Python-level segments.

Example:
    >>> import numpy as np
    >>> data = np.frombuffer(bytes.fromhex(
    ...     "ffd8" "ffc0000b080003000401011100" "ffda0008010100003f00" "00ffd9"), np.uint8)
    >>> jpeg_info(data)
    JpegInfo(sof=192, precision=8, height=3, width=4, ncomp=1, orientation=1, sos=15)
    >>> jpeg_headers([data]).height.tolist()
    [3]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from dali._exec import gil
from dali._ops.decoders.headers.jpeg_walk import (
    APP1,
    MARKER_KIND,
    PREFIX,
    ROW_FIELDS,
    SEGMENT,
    SOF,
    SOS,
    JpegInfo,
)
from dali._ops.decoders.headers.jpeg_walk import walk as _walk

__all__ = ["PREFIX", "JpegHeaders", "JpegInfo", "headers_from_rows", "jpeg_headers", "jpeg_info"]


#: `jpeg_headers`' kind of the 16-bit word at a marker position (``0xFF``, then the marker):
#: `SEGMENT`, `SOF`, `SOS`, or `APP1` for everything it leaves to `jpeg_info` (a word not
#: starting with 0xFF included)
_PAIR_KIND = np.full(1 << 16, APP1, dtype=np.uint8)
_PAIR_KIND[0xFF00:] = np.minimum(MARKER_KIND, APP1)


def jpeg_info(data: np.ndarray) -> JpegInfo | None:
    """Frame size, components, precision, EXIF orientation and SOS offset of a JPEG.

    A fast walk over the first `PREFIX` bytes (read again with more where the header is
    longer); None for files it does not understand, which then take the CPU backend's path.
    Where it answers, it agrees with `_codecs.decode`'s parser (the last EXIF block before the
    scan wins).
    """
    n = data.size
    limit = PREFIX
    while True:
        got = _walk(data[:limit].tobytes())
        if got is not False:
            return got  # type: ignore[return-value]
        if limit >= n:
            return None
        limit = min(n, limit * 16)


class JpegHeaders(NamedTuple):
    """The headers of a batch (`jpeg_headers`): ``(n,)`` arrays, one entry per sample.

    ``jpeg``: at least 5 bytes starting with the start-of-image marker (``FF D8``); ``found``:
    `jpeg_info` answers, and ``sof`` .. ``sos`` are its fields (0 elsewhere); ``ends``: the
    last two bytes are the end-of-image marker (``FF D9``; only when asked for, else None).
    """

    jpeg: np.ndarray
    found: np.ndarray
    sof: np.ndarray
    precision: np.ndarray
    height: np.ndarray
    width: np.ndarray
    ncomp: np.ndarray
    orientation: np.ndarray
    sos: np.ndarray
    ends: np.ndarray | None

    def info(self, i: int) -> JpegInfo | None:
        """Sample ``i``'s `jpeg_info`."""
        if not self.found[i]:
            return None
        return JpegInfo(*(int(a[i]) for a in self[2:9]))


def headers_from_rows(rows: np.ndarray) -> JpegHeaders:
    """The `JpegHeaders` of a batch from its ``(n, len(ROW_FIELDS))`` int64 rows, one per sample
    as `_jpeg_walk.header_row` gives them (what `fn.readers.file`'s worker processes attach to a
    batch): the same arrays `jpeg_headers` (with ``ends=True``) computes from the bytes."""
    cols = dict(zip(ROW_FIELDS, rows.T))
    flags = {"jpeg", "found", "ends"}
    return JpegHeaders(**{k: (v != 0) if k in flags else v for k, v in cols.items()})


def jpeg_headers(datas: Sequence[np.ndarray], *, ends: bool = False) -> JpegHeaders:
    """`jpeg_info` of every sample of a batch at once; the same answers, as arrays.

    Args:
        datas: Encoded files, each a C-contiguous 1-D uint8 array (any format: the non-JPEGs
            are marked as such).
        ends: Also tell which files end with the end-of-image marker (the truncation check).

    The first `PREFIX` bytes of the files are joined into one buffer (the last two of each
    too, with ``ends``) and walked together: per step, every file still walking reads the
    marker at its position and goes past its segment, its frame header recorded on the way;
    it stops at the scan. A file showing anything else (an APP1 segment, which may hold the EXIF
    orientation, fill bytes, markers without a length, garbage, a second frame header, a
    header longer than the prefix) is left to `jpeg_info`. Every array has at most
    ``len(datas)`` elements, so that numpy keeps the GIL for a batch of up to 500 (see
    `_nvimgcodec_c.MAX_CALL`).
    """
    n = len(datas)
    i64 = np.int64
    sizes = np.fromiter(map(len, datas), i64, n)
    lens = np.minimum(sizes, PREFIX)
    # buffers: numpy's stubs make an array a `Buffer` only from Python 3.12
    parts: list[Any] = [d[:PREFIX] for d in datas]
    if ends:
        parts += [d[-2:] for d in datas]
    parts.append(bytes(16))  # every read below stays inside the buffer
    buf = b"".join(parts)
    starts = np.cumsum(lens) - lens
    # big-endian views at every byte offset (unaligned): one gather reads a marker and its length
    b8 = np.frombuffer(buf, dtype=np.uint8)
    b16 = np.ndarray((len(buf) - 1,), dtype=">u2", buffer=buf, strides=(1,))
    b32 = np.ndarray((len(buf) - 3,), dtype=">u4", buffer=buf, strides=(1,))
    tails = None
    if ends:  # after the prefixes, the last (up to) two bytes of each file
        tail = np.minimum(sizes, 2)
        tail_at = np.cumsum(tail) - tail + (int(starts[-1] + lens[-1]) if n else 0)
        tails = (b16[tail_at] == 0xFFD9) & (sizes >= 2)
    jpeg = (sizes > 4) & (b16[starts] == 0xFFD8)

    sof, precision, height, width, ncomp, sos = (gil.zeros(n, i64) for _ in range(6))
    found = np.zeros(n, dtype=bool)
    slow = np.zeros(n, dtype=bool)
    # the files still walking: their index, the position of their next marker in ``buf``, the
    # last position a marker can be read at, whether their frame header was seen
    idx = np.flatnonzero(jpeg)
    at = starts[idx] + 2
    last = starts[idx] + lens[idx] - 4
    framed = np.zeros(idx.size, dtype=bool)
    leave = at > last
    if np.count_nonzero(leave):
        slow[idx[leave]] = True
        keep = ~leave
        idx, at, last, framed = idx[keep], at[keep], last[keep], framed[keep]
    while idx.size:
        word = b32[at].astype(i64)
        kind = _PAIR_KIND[word >> 16]
        nxt = at + (word & 0xFFFF) + 2
        leave = nxt > last
        if np.count_nonzero(kind):  # a frame header, the scan, or something for `jpeg_info`
            leave |= kind != SEGMENT
            sel = np.flatnonzero(kind == SOF)
            if sel.size:
                good = ~framed[sel] & ((word[sel] & 0xFFFF) >= 8)
                framed[sel] = True
                sel = sel[good]
                s_at, i = at[sel], idx[sel]
                # (each read cast before the fancy assignment: a casting one gives the GIL up)
                sof[i] = (word[sel] >> 16) & 0xFF
                precision[i] = b8[s_at + 4].astype(i64)
                height[i] = b16[s_at + 5].astype(i64)
                width[i] = b16[s_at + 7].astype(i64)
                ncomp[i] = b8[s_at + 9].astype(i64)
                leave[sel] = nxt[sel] > last[sel]
            done = (kind == SOS) & framed
            i = idx[done]
            found[i] = True
            sos[i] = at[done] - starts[i]
            slow[idx[leave & ~done]] = True
        elif np.count_nonzero(leave):
            slow[idx[leave]] = True
        else:
            at = nxt
            continue
        keep = ~leave
        idx, at, last, framed = idx[keep], nxt[keep], last[keep], framed[keep]

    orientation = found.astype(i64)  # 1 where found: no APP1 segment on the way
    for i in np.flatnonzero(slow).tolist():
        info = jpeg_info(datas[i])
        found[i] = info is not None
        if info is not None:
            sof[i], precision[i], height[i], width[i], ncomp[i], orientation[i], sos[i] = info
        else:
            sof[i] = precision[i] = height[i] = width[i] = ncomp[i] = sos[i] = 0
    return JpegHeaders(
        jpeg,
        found,
        sof,
        precision,
        height,
        width,
        ncomp,
        orientation,
        sos,
        tails,
    )
