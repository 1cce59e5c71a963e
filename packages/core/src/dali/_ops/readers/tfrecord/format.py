"""The TFRecord container: record framing, CRC32C, index files and scanning a file for records.

A TFRecord file is a plain sequence of records, each framed as::

    uint64 length            (little-endian)
    uint32 masked_crc(length bytes)
    byte   data[length]      (a serialized tf.train.Example, for readers.tfrecord)
    uint32 masked_crc(data)

The CRC is CRC32C (Castagnoli), *masked* (rotated right by 15 bits plus a constant) because a
CRC of data that holds CRCs is weak. DALI never checks them; TensorFlow checks
both. A record is therefore ``length + 16`` bytes, and DALI's *index file* (written by its
``tfrecord2idx`` script, `dali.tools.tfrecord2idx` here) lists each record as one
``offset size`` line, ``size`` counting the framing. With an index the reader knows every
record at once; without one it finds them by walking the length fields (`scan_records`),
which checks the length CRC of each so that a file that is not a TFRecord, or is corrupt, is
reported where it goes wrong instead of being read as garbage records.

Example:
    >>> record = frame(b"hello")
    >>> len(record), parse_header(record, 0)
    (21, 5)
    >>> hex(crc32c(b"123456789"))  # the standard check value of CRC-32C
    '0xe3069283'
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable

import numpy as np

__all__ = [
    "FOOTER",
    "HEADER",
    "OVERHEAD",
    "TFRecordError",
    "crc32c",
    "format_index",
    "frame",
    "masked_crc",
    "parse_header",
    "parse_index",
    "scan_records",
]

#: bytes before a record's data (length, its CRC), after it (the data's CRC), and in all
HEADER = 12
FOOTER = 4
OVERHEAD = HEADER + FOOTER

_MASK_DELTA = 0xA282EAD8
_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected


class TFRecordError(ValueError):
    """A file or index that is not a well-formed TFRecord (the message says where)."""


def _make_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()
_TABLE_NP = np.array(_TABLE, dtype=np.uint32)

#: bytes per lane of the vectorized CRC (`_crc_lanes`); shorter data is done byte by byte
_LANE = 128


def _crc_bytes(reg: int, data: bytes | memoryview) -> int:
    """The raw CRC register after feeding ``data`` (no pre/post inversion), byte by byte."""
    table = _TABLE
    for b in bytes(data):
        reg = table[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


@functools.cache
def _zeros_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The linear map "feed `_LANE` zero bytes" on a raw register, as four byte-sliced tables.

    The register update is linear over GF(2), so the map is fixed by its images of the 32 unit
    registers; ``shift(r) = T0[r & 255] ^ T1[r >> 8 & 255] ^ T2[...] ^ T3[r >> 24]``.
    """
    units = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    regs = units.copy()
    for _ in range(_LANE):
        regs = _TABLE_NP[regs & 0xFF] ^ (regs >> np.uint32(8))
    tables = []
    byte_values = np.arange(256, dtype=np.uint32)
    for k in range(4):
        t = np.zeros(256, dtype=np.uint32)
        for bit in range(8):
            t ^= np.where((byte_values >> bit) & 1, regs[8 * k + bit], np.uint32(0))
        tables.append(t)
    return tables[0], tables[1], tables[2], tables[3]


def _crc_lanes(reg: int, data: np.ndarray) -> int:
    """The raw register after ``data`` (a multiple of `_LANE` bytes), all lanes at once.

    The data is cut into ``k`` lanes of `_LANE` bytes whose registers advance together (numpy
    over the lanes, one step per byte); lane ``j`` starts from zero except the first, which
    starts from ``reg``. Linearity then joins them: the register after lanes ``0..j`` is the
    one after ``0..j-1`` pushed through `_LANE` zero bytes, xor lane ``j``'s own register.
    """
    lanes = data.reshape(-1, _LANE)
    regs = np.zeros(lanes.shape[0], dtype=np.uint32)
    regs[0] = reg
    table, eight = _TABLE_NP, np.uint32(8)
    for j in range(_LANE):
        regs = table[(regs ^ lanes[:, j]) & 0xFF] ^ (regs >> eight)
    t0, t1, t2, t3 = (t.tolist() for t in _zeros_tables())
    out = 0
    for r in regs.tolist():
        out = t0[out & 0xFF] ^ t1[(out >> 8) & 0xFF] ^ t2[(out >> 16) & 0xFF] ^ t3[out >> 24] ^ r
    return out


def crc32c(data: bytes | bytearray | memoryview | np.ndarray, crc: int = 0) -> int:
    """The CRC-32C of ``data``, continuing from ``crc`` (the CRC of the bytes before it).

    Long data is done a few hundred bytes per lane in parallel with numpy (`_crc_lanes`), so a
    JPEG-sized record costs about a millisecond, not the tens a byte loop takes.

    Example:
        >>> crc32c(b"456789", crc32c(b"123")) == crc32c(b"123456789")
        True
    """
    arr = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    arr = arr.reshape(-1)
    reg = (crc ^ 0xFFFFFFFF) & 0xFFFFFFFF
    whole = (arr.size // _LANE) * _LANE if arr.size >= 4 * _LANE else 0
    if whole:
        reg = _crc_lanes(reg, arr[:whole])
    reg = _crc_bytes(reg, arr[whole:].tobytes())
    return reg ^ 0xFFFFFFFF


def masked_crc(data: bytes | bytearray | memoryview | np.ndarray) -> int:
    """The masked CRC-32C that TFRecord framing stores (TensorFlow's ``crc32c::Mask``)."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def frame(data: bytes | bytearray | memoryview) -> bytes:
    """One framed record holding ``data`` (what a TFRecord writer appends to the file)."""
    length = struct.pack("<Q", len(data))
    return b"".join(
        (
            length,
            struct.pack("<I", masked_crc(length)),
            bytes(data),
            struct.pack("<I", masked_crc(data)),
        )
    )


def parse_header(buf: bytes | memoryview, pos: int, *, check_crc: bool = True) -> int:
    """The data length of the record whose header starts at ``buf[pos]``.

    Raises:
        TFRecordError: The header's length CRC does not match (with ``check_crc``).
    """
    length = int.from_bytes(buf[pos : pos + 8], "little")
    if check_crc:
        stored = int.from_bytes(buf[pos + 8 : pos + 12], "little")
        if stored != masked_crc(bytes(buf[pos : pos + 8])):
            raise TFRecordError(
                f"the record header at offset {pos} has a bad length checksum (not a TFRecord "
                "file, or corrupt)"
            )
    return length


def scan_records(
    size: int,
    read_range: Callable[[int, int], np.ndarray],
    *,
    chunk: int = 1 << 22,
) -> tuple[np.ndarray, np.ndarray]:
    """Find every record of a TFRecord file by walking its headers: ``(offsets, sizes)``.

    The file is read in pieces of ``chunk`` bytes starting at a header; a record longer than
    the rest of a piece is skipped over, not read, so a file of large records costs about one
    read per record and one of small records one read per ``chunk``.

    Args:
        size: The file's size in bytes.
        read_range: ``read_range(offset, length)`` returns those bytes of the file.
        chunk: Bytes per read (at least a header's 12).

    Returns:
        Two int64 arrays: each record's offset and size (framing included), as an index file
        lists them.

    Raises:
        TFRecordError: A bad length checksum, or a file that ends inside a record.
        OSError: From ``read_range``.
    """
    chunk = max(chunk, HEADER)
    offsets: list[int] = []
    lengths: list[int] = []
    buf = b""
    buf_start = 0
    pos = 0
    while pos < size:
        if size - pos < HEADER:
            raise TFRecordError(
                f"the file ends inside the record header at offset {pos} ({size - pos} bytes "
                "left, a header has 12): truncated"
            )
        if not buf_start <= pos <= buf_start + len(buf) - HEADER:
            buf_start = pos
            buf = read_range(pos, min(chunk, size - pos)).tobytes()
        length = parse_header(buf, pos - buf_start)
        end = pos + length + OVERHEAD
        if end > size:
            raise TFRecordError(
                f"the record at offset {pos} claims {length} data bytes but the file ends "
                f"{size - pos - OVERHEAD} bytes after its header: truncated"
            )
        offsets.append(pos)
        lengths.append(length + OVERHEAD)
        pos = end
    return np.array(offsets, dtype=np.int64), np.array(lengths, dtype=np.int64)


def parse_index(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The ``(offsets, sizes)`` of an index file's ``offset size`` lines (blank lines skipped).

    Raises:
        TFRecordError: A line that is not two non-negative integers, or a record smaller than
            its framing; the message names the line.

    Example:
        >>> parse_index("0 21\\n21 30\\n")
        (array([ 0, 21]), array([21, 30]))
    """
    offsets: list[int] = []
    sizes: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            if len(fields) != 2:
                raise ValueError
            offset, size = int(fields[0]), int(fields[1])
        except ValueError:
            raise TFRecordError(
                f"line {number} is {line.strip()!r}, not `offset size` (two integers)"
            ) from None
        if offset < 0 or size < OVERHEAD:
            raise TFRecordError(
                f"line {number} ({line.strip()!r}) is not a record: the offset must be "
                f"non-negative and a record holds at least {OVERHEAD} bytes of framing"
            )
        offsets.append(offset)
        sizes.append(size)
    return np.array(offsets, dtype=np.int64), np.array(sizes, dtype=np.int64)


def format_index(offsets: np.ndarray, sizes: np.ndarray) -> str:
    """The text of an index file (DALI's ``tfrecord2idx`` format): ``offset size`` lines."""
    return "".join(f"{o} {s}\n" for o, s in zip(offsets.tolist(), sizes.tolist()))
