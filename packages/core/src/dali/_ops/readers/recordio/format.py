"""The MXNet RecordIO container: record framing, multi-part records and the image record header.

A RecordIO file (dmlc-core's ``RecordIOWriter``, MXNet's ``mx.recordio``) is a plain sequence
of records, each written as one or more *parts*::

    uint32 magic = 0xced7230a          (little-endian, as everything here)
    uint32 lrec  = cflag << 29 | length
    byte   data[length]
    byte   pad[-length % 4]            (zeros: every part starts 4-byte aligned)

The payload is written as one part (``cflag`` 0) unless it holds the magic number itself at a
4-byte aligned position: the writer then cuts the payload at every such occurrence, drops the
four magic bytes and writes the pieces as parts with ``cflag`` 1 (first), 2 (middle) and 3
(last); a reader puts the magic number back between them (`read_payload`). So a reader that
finds the magic at an aligned position is always at the start of a part. Only the last part
can have a length that is not a multiple of 4, so only the last part is padded.

The payload of an *image record* (``mx.recordio.pack``, what ``im2rec.py`` writes and
`fn.readers.mxnet` reads) starts with the 24-byte ``IRHeader``::

    uint32  flag     0: one label in ``label``; n > 0: n float32 labels follow the header
    float32 label
    uint64  id, id2  (the image's id in the list it was made from; unused by the readers)
    float32 labels[flag]
    byte    image[...]   (the encoded image: JPEG, PNG...)

`split_image_record` turns a payload into ``(label, image)`` as DALI's ``RecordIOParser``
does: the label is ``[label]`` when ``flag`` is 0, else the ``flag`` floats after the header.

Example:
    >>> payload = pack(IRHeader(0, 3.0, 7, 0), b"jpeg bytes")
    >>> record = frame(payload)
    >>> len(record) % 4, read_payload(record).tobytes() == payload
    (0, True)
    >>> label, image = split_image_record(np.frombuffer(payload, np.uint8))
    >>> label.tolist(), image.tobytes()
    ([3.0], b'jpeg bytes')
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

__all__ = [
    "IR_SIZE",
    "MAGIC",
    "IRHeader",
    "RecordIOError",
    "decode_lrec",
    "encode_lrec",
    "frame",
    "pack",
    "read_payload",
    "record_end",
    "scan_records",
    "split_image_record",
    "unpack_header",
]

#: The number every part starts with.
MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", MAGIC)
#: A part's header: magic, lrec.
_PART = struct.Struct("<II")
#: Bytes of a part's header.
PART_HEADER = _PART.size
#: The ``IRHeader`` of an image record: flag, label, id, id2 (MXNet's ``_IR_FORMAT = "IfQQ"``).
_IR = struct.Struct("<IfQQ")
IR_SIZE = _IR.size
#: ``length`` is 29 bits: a part holds less than 512 MiB.
_MAX_LENGTH = (1 << 29) - 1


class RecordIOError(ValueError):
    """A file, record or index that is not well-formed RecordIO (the message says where).

    Attributes:
        offset: Where in the data the problem is (the offset the message names), if known.
    """

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.offset = offset


class IRHeader(NamedTuple):
    """The header of an image record (MXNet's ``mx.recordio.IRHeader``).

    ``label`` is a number, or (for `pack`) a sequence of numbers: then ``flag`` becomes their
    count and they are written after the header.
    """

    flag: int
    label: float | Sequence[float] | np.ndarray
    id: int
    id2: int


def encode_lrec(cflag: int, length: int) -> int:
    """The ``lrec`` word of a part: its continuation flag and its data length."""
    return (cflag << 29) | length


def decode_lrec(lrec: int) -> tuple[int, int]:
    """``(cflag, length)`` of an ``lrec`` word."""
    return (lrec >> 29) & 7, lrec & _MAX_LENGTH


def _part(cflag: int, data: bytes) -> bytes:
    return b"".join(
        (
            _MAGIC_BYTES,
            struct.pack("<I", encode_lrec(cflag, len(data))),
            data,
            b"\0" * (-len(data) % 4),
        )
    )


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """The record holding ``payload``, as dmlc-core's ``RecordIOWriter::WriteRecord`` writes it.

    The payload is cut at every 4-byte aligned occurrence of the magic number (its parts then
    have ``cflag`` 1, 2..., 3) and the last part is padded to a multiple of 4 bytes.

    Raises:
        RecordIOError: The payload is 2**29 bytes or more (the length field has 29 bits).

    Example:
        >>> magic = MAGIC.to_bytes(4, "little")
        >>> parts = frame(b"abcd" + magic + b"xy").split(magic)[1:]
        >>> [decode_lrec(int.from_bytes(p[:4], "little")) for p in parts]
        [(1, 4), (3, 2)]
    """
    data = bytes(payload)
    if len(data) > _MAX_LENGTH:
        raise RecordIOError(f"a record holds less than 2**29 bytes, got {len(data)}")
    parts: list[bytes] = []
    start = 0
    # aligned occurrences of the magic (the writer compares whole aligned words)
    words = np.frombuffer(data, dtype="<u4", count=len(data) // 4)
    for i in (np.flatnonzero(words == MAGIC) * 4).tolist():
        parts.append(_part(1 if start == 0 else 2, data[start:i]))
        start = i + 4
    parts.append(_part(3 if parts else 0, data[start:]))
    return b"".join(parts)


def _header(buf: np.ndarray, pos: int, base: int = 0) -> tuple[int, int]:
    """``(cflag, length)`` of the part at ``buf[pos]``; checks the magic number. Messages give
    offsets as ``base + pos`` (where ``buf`` starts in its file)."""
    if pos + PART_HEADER > len(buf):
        raise RecordIOError(
            f"the data ends inside the part header at offset {base + pos} ({len(buf) - pos} "
            "bytes left, a header has 8): truncated, or the index does not match the file",
            base + pos,
        )
    magic, lrec = _PART.unpack_from(buf.data, pos)
    if magic != MAGIC:
        raise RecordIOError(
            f"no RecordIO magic number at offset {base + pos} (found {magic:#010x}, expected "
            f"{MAGIC:#010x}): not a RecordIO file, corrupt, or the index does not match the file",
            base + pos,
        )
    return decode_lrec(lrec)


def read_payload(record: np.ndarray | bytes, base: int = 0) -> np.ndarray:
    """The payload of the record at the start of ``record`` (uint8; more bytes may follow).

    A single-part record's payload is a view of ``record`` (no copy); a multi-part one is
    put together with the magic number between its parts (dmlc's ``NextRecord``).

    Args:
        record: The record's bytes, from its first part header on.
        base: Where ``record`` starts in its file (for the offsets in error messages).

    Raises:
        RecordIOError: No magic number, a part that overruns ``record``, or a part sequence
            that is not ``1, 2..., 3``.
    """
    buf = np.frombuffer(record, np.uint8) if isinstance(record, bytes) else record
    cflag, length = _header(buf, 0, base)
    end = PART_HEADER + length
    if end > len(buf):
        raise RecordIOError(_overrun(base, length, base + len(buf)), base)
    if cflag == 0:
        return buf[PART_HEADER:end]
    if cflag != 1:
        raise RecordIOError(_misplaced(base, cflag, True), base)
    pieces = [buf[PART_HEADER:end]]
    pos = end + (-length % 4)
    while cflag != 3:
        cflag, length = _header(buf, pos, base)
        if cflag not in (2, 3):
            raise RecordIOError(_misplaced(base + pos, cflag, False), base + pos)
        end = pos + PART_HEADER + length
        if end > len(buf):
            raise RecordIOError(_overrun(base + pos, length, base + len(buf)), base + pos)
        pieces.append(np.frombuffer(_MAGIC_BYTES, np.uint8))
        pieces.append(buf[pos + PART_HEADER : end])
        pos = end + (-length % 4)
    return np.concatenate(pieces)


def _misplaced(pos: int, cflag: int, first: bool) -> str:
    if first:
        return (
            f"the part at offset {pos} is a continuation (cflag {cflag}) where a record "
            "starts: corrupt, or the index does not point at the start of a record"
        )
    return (
        f"the part at offset {pos} has cflag {cflag} inside a multi-part record (expected 2 "
        "or 3): corrupt"
    )


def _overrun(pos: int, length: int, size: int) -> str:
    return (
        f"the part at offset {pos} claims {length} data bytes but only "
        f"{max(0, size - pos - PART_HEADER)} follow its header: truncated, or the index does "
        "not match the file"
    )


def record_end(read: Callable[[int, int], np.ndarray], pos: int, size: int) -> int:
    """Where the record starting at ``pos`` ends: after its last part and that part's padding
    (or at ``size``, where the data ends without the padding). ``read(offset, n)`` reads ``n``
    bytes of the data; every part header is checked.

    Raises:
        RecordIOError: As `read_payload`, or data that ends inside the record.
    """
    first = True
    while True:
        if size - pos < PART_HEADER:
            raise RecordIOError(
                f"the data ends inside the part header at offset {pos} ({size - pos} bytes "
                "left, a header has 8): truncated",
                pos,
            )
        cflag, length = _header(read(pos, PART_HEADER), 0, pos)
        if cflag not in ((0, 1) if first else (2, 3)):
            raise RecordIOError(_misplaced(pos, cflag, first), pos)
        end = pos + PART_HEADER + length
        if end > size:
            raise RecordIOError(_overrun(pos, length, size), pos)
        pos = min(size, end + (-length % 4))
        if cflag in (0, 3):
            return pos
        first = False


def scan_records(
    size: int,
    read_range: Callable[[int, int], np.ndarray],
    *,
    chunk: int = 1 << 22,
) -> np.ndarray:
    """Find every record of RecordIO data by walking its part headers: their offsets (int64).

    The data is read in pieces of ``chunk`` bytes starting at a header; a part longer than the
    rest of a piece is skipped over, not read, so data of large records costs about one read
    per part and data of small records one read per ``chunk``. A missing pad after the very
    last part is accepted (the data is complete without it).

    Args:
        size: The data's size in bytes.
        read_range: ``read_range(offset, length)`` returns those bytes.
        chunk: Bytes per read (at least a part header's 8).

    Raises:
        RecordIOError: A missing magic number, a part sequence that is not ``1, 2..., 3``, or
            data that ends inside a record (the message names the offset).
        OSError: From ``read_range``.
    """
    chunk = max(chunk, PART_HEADER)
    buf = np.empty(0, np.uint8)
    buf_start = 0

    def read(pos: int, n: int) -> np.ndarray:
        nonlocal buf, buf_start
        if not buf_start <= pos <= buf_start + len(buf) - n:
            buf_start = pos
            buf = read_range(pos, min(max(chunk, n), size - pos))
        return buf[pos - buf_start : pos - buf_start + n]

    offsets: list[int] = []
    pos = 0
    while pos < size:
        offsets.append(pos)
        pos = record_end(read, pos, size)
    return np.array(offsets, dtype=np.int64)


def pack(header: IRHeader | tuple[int, float | Sequence[float], int, int], data: bytes) -> bytes:
    """An image record's payload: ``header`` then ``data`` (MXNet's ``mx.recordio.pack``).

    A number ``label`` is written in the header with ``flag`` 0; a sequence of numbers is
    written as float32 after the header, with ``flag`` its length and ``label`` 0 (MXNet's rule,
    whatever ``flag`` the header held).

    Example:
        >>> pack(IRHeader(0, [1.0, 2.0], 5, 0), b"x")[:8]
        b'\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00'
    """
    _, label, id_, id2 = header  # (the flag follows from the label)
    if isinstance(label, (int, float, np.integer, np.floating)):
        return _IR.pack(0, float(label), id_, id2) + bytes(data)
    labels = np.asarray(label, dtype="<f4").ravel()
    return _IR.pack(labels.size, 0.0, id_, id2) + labels.tobytes() + bytes(data)


def unpack_header(payload: np.ndarray | bytes) -> IRHeader:
    """The ``IRHeader`` at the start of an image record's payload (``label`` as stored).

    Raises:
        RecordIOError: The payload is shorter than a header.
    """
    if len(payload) < IR_SIZE:
        raise RecordIOError(
            f"the record holds {len(payload)} bytes, fewer than an image record header's {IR_SIZE}"
        )
    raw = payload.data if isinstance(payload, np.ndarray) else payload
    return IRHeader(*_IR.unpack_from(raw, 0))


def split_image_record(payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(label, image)`` of an image record's payload (uint8), as DALI's ``RecordIOParser``.

    The label is float32: ``[header.label]`` when the header's ``flag`` is 0, else the ``flag``
    values after the header. The image is the rest of the payload, a view of it.

    Raises:
        RecordIOError: The payload is shorter than its header and labels.
    """
    flag, label, _, _ = unpack_header(payload)
    if flag == 0:
        return np.array([label], dtype=np.float32), payload[IR_SIZE:]
    start = IR_SIZE + 4 * flag
    if start > len(payload):
        raise RecordIOError(
            f"the record's header says {flag} labels ({4 * flag} bytes) but only "
            f"{len(payload) - IR_SIZE} bytes follow it"
        )
    # a copy: the labels are small and the view would be unaligned
    labels = payload[IR_SIZE:start].copy().view("<f4").astype(np.float32, copy=False)
    return labels, payload[start:]
