"""The display size of encoded images, read from their headers before decoding.

The windows of ``image_random_crop`` are computed for the whole batch at once, before the
decode, from each image's display size (`dali._ops.window.random_crop`): `header_shapes` reads
them, JPEGs with the fast header walk (`_jpeg_header`), PNGs and BMPs with `size_hint`. Only a
hint: an image whose size is not known here (other formats, unusual headers) gets its window
computed for its decoded size.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["header_shapes", "size_hint"]


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def size_hint(data: np.ndarray) -> tuple[int, int] | None:
    """The stored ``(height, width)`` of a PNG (IHDR) or a BMP (DIB header); None otherwise.

    An EXIF orientation of 5–8 swaps the displayed size; finding it in a PNG means walking every
    chunk, so this is only a hint (`header_shapes`): the decode has the last word.

    Example:
        >>> size_hint(np.frombuffer(b"GIF89a", np.uint8)) is None
        True
    """
    if data.size < 26:
        return None
    head = bytes(data[:26])
    if head[:8] == _PNG_SIGNATURE and head[12:16] == b"IHDR":
        w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    elif head[:2] == b"BM":
        if int.from_bytes(head[14:18], "little") == 12:  # OS/2 BITMAPCOREHEADER
            w, h = int.from_bytes(head[18:20], "little"), int.from_bytes(head[20:22], "little")
        else:  # a negative height means rows stored top-down
            w = int.from_bytes(head[18:22], "little", signed=True)
            h = abs(int.from_bytes(head[22:26], "little", signed=True))
    else:
        return None
    return (h, w) if h > 0 and w > 0 else None


def header_shapes(samples: Sequence[np.ndarray], orientation: bool) -> np.ndarray:
    """Each image's display ``(height, width)`` from its header, ``(-1, -1)`` where not known.

    JPEG: the frame's size, with height and width swapped for EXIF orientations 5–8 when
    ``orientation`` is applied (the mixed backend's fast header walk); PNG and BMP: `size_hint`.
    It is a hint: a window function is called with the decoded size, and other formats, unusual
    headers and PNGs with a swapping eXIf orientation get their windows computed for that size.

    Example:
        >>> header_shapes([np.frombuffer(b"GIF89a...", np.uint8)], True).tolist()
        [[-1, -1]]
    """
    from dali._ops.decoders.headers.jpeg_header import jpeg_headers

    out = np.full((len(samples), 2), -1, dtype=np.int64)
    datas: list[np.ndarray] = []
    where: list[int] = []
    for i, data in enumerate(samples):
        if data.dtype != np.uint8 or data.ndim != 1 or data.size <= 4:
            continue
        where.append(i)
        datas.append(data if data.flags.c_contiguous else np.ascontiguousarray(data))
    hd = jpeg_headers(datas)  # not found (not an error) for data the walk does not understand
    for k in np.flatnonzero(~hd.jpeg).tolist():
        size = size_hint(datas[k])
        if size is not None:
            out[where[k]] = size
    known = hd.found & (hd.height > 0) & (hd.width > 0)
    h, w = hd.height, hd.width
    if orientation:
        swap = hd.orientation >= 5
        h, w = np.where(swap, w, h), np.where(swap, h, w)
    rows = np.asarray(where, dtype=np.int64)[known]
    out[rows, 0] = h[known]
    out[rows, 1] = w[known]
    return out
