"""Walking a tar archive by its headers: the members' names, sizes and data offsets, no data.

A tar file is a sequence of members, each a 512-byte header followed by its data padded to a
multiple of 512 bytes, ended by a zero block (or by the end of the file). `scan` reads only the
headers and seeks over the data, so listing a 1 GB shard costs one small read per member; the
data is read later, one byte range per component (`_storage.Extent`).

The formats met in webdatasets are all understood:

* **ustar** (POSIX.1-1988): the name is ``prefix + "/" + name`` (155 + 100 bytes);
* **GNU**: a longer name is the data of a preceding ``L`` entry (``././@LongLink``); sizes of
  8 GiB and more are written in base-256;
* **pax** (POSIX.1-2001, Python's default): an ``x`` entry before the member holds
  ``path=`` and ``size=`` records that override the header's fields; ``g`` (global) entries are
  skipped.

Only regular files are members of a webdataset sample; directories, links, devices, FIFOs,
sparse files and volume labels are returned with ``regular=False`` for the caller to skip.

Errors are `TarFormatError`\\ s naming the archive and the byte offset: a header that is not a tar
header (bad checksum: not a tar file, or a corrupted one), a file that ends inside a header, and
a member whose data runs past the end of the file (a truncated archive). A scan never hangs: each
step moves forward by at least one block.

Example:
    >>> import io, os, tarfile, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "shard.tar")
    >>> with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
    ...     for name, data in (("000.jpg", b"abc"), ("000.cls", b"7")):
    ...         info = tarfile.TarInfo(name)
    ...         info.size = len(data)
    ...         tar.addfile(info, io.BytesIO(data))
    >>> [(m.name, m.offset, m.size) for m in scan(path)]
    [('000.jpg', 512, 3), ('000.cls', 1536, 1)]
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from dali._ops.readers.loader.listing import open_sample
from dali._ops.readers.storage import access as _storage

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["BLOCK", "Member", "TarFormatError", "TarSource", "parse_header", "scan"]

#: The tar block: headers start, and data is padded, at multiples of it.
BLOCK = 512

#: Longest name or pax header we accept (a larger one is a corrupted size field, not a name).
_MAX_META_BYTES = 1 << 20

#: Type flags of regular files: ``'0'``, the old ``'\\0'`` and contiguous files ``'7'``.
_REGULAR = frozenset(b"07\0")

#: Type flags of entries without data: hard and symbolic links, devices, directories, FIFOs.
_NO_DATA = frozenset(b"123456")


class TarFormatError(ValueError):
    """The archive is not a (complete) tar file; the message names it and the byte offset."""


class Member(NamedTuple):
    """One entry of an archive, as its headers describe it."""

    #: the full name (long GNU names and pax ``path`` records applied)
    name: str
    #: where the data starts (a multiple of 512)
    offset: int
    #: the data's length in bytes
    size: int
    #: whether it is a regular file (not a directory, link, device, FIFO, sparse file...)
    regular: bool


class TarSource:
    """Random access to an archive's bytes for the scan: its size and ``read(offset, n)``.

    A local file is opened once (`_listing.open_sample`: a regular file, never a FIFO) and read
    with ``pread``: a header costs ~1 µs instead of the ~10 µs of opening the file for each
    (`_storage.read_range`), which matters for shards of a million members. Remote archives
    (``s3://...``) go through `_storage.read_range`, one request per header.

    Use it as a context manager, or call `close`.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        if _storage.is_url(path):
            self.size = _storage.size(path)
        else:
            self._fd, info = open_sample(path.removeprefix("file://"))
            self.size = int(info.st_size)

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes from ``offset`` (fewer only at the end of the file)."""
        length = max(0, min(length, self.size - offset))
        if length == 0:
            return b""
        if self._fd is None:
            return _storage.read_range(self.path, offset, length).tobytes()
        parts = []
        got = 0
        while got < length:
            chunk = os.pread(self._fd, length - got, offset + got)
            if not chunk:  # the file shrank since it was opened
                break
            parts.append(chunk)
            got += len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- one header -------------------------------------------------------------------------------


def _number(field: bytes) -> int:
    """A numeric header field: octal ASCII (NUL/space terminated), or GNU base-256."""
    if field and field[0] & 0x80:
        # base-256: the top bit flags it, the other bits are a big-endian two's complement
        bits = 8 * len(field) - 1
        value = int.from_bytes(field, "big") & ((1 << bits) - 1)
        return value - (1 << bits) if value >> (bits - 1) else value
    text = field.split(b"\0", 1)[0].strip(b" \0")
    if not text:
        return 0
    return int(text, 8)


def _text(field: bytes) -> str:
    return field.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


class Header(NamedTuple):
    """The fields of one 512-byte header that the scan needs."""

    name: str
    size: int
    typeflag: int


def parse_header(block: bytes) -> Header | None:
    """The header in ``block`` (512 bytes); None for a zero block (the end of the archive).

    Raises:
        ValueError: The block is not a tar header (its checksum does not match, or a numeric
            field is not a number).
    """
    if block.count(0) == BLOCK:
        return None
    try:
        stored = _number(block[148:156])
        size = _number(block[124:136])
    except ValueError:
        raise ValueError("not a tar header (a numeric field is not octal)") from None
    # the checksum is the sum of the header's bytes with its own field read as 8 spaces; some
    # old writers summed signed chars, so both sums are accepted (as GNU tar does)
    unsigned = sum(block) - sum(block[148:156]) + 8 * 32
    if stored != unsigned:
        signed = unsigned - 256 * sum(1 for b in block if b >= 128)
        signed += 256 * sum(1 for b in block[148:156] if b >= 128)
        if stored != signed:
            raise ValueError("not a tar header (checksum mismatch)")
    if size < 0:
        raise ValueError(f"not a tar header (negative size {size})")
    name = block[0:100]
    typeflag = block[156]
    if block[257:263] == b"ustar\0":  # POSIX ustar: a prefix field extends the name
        prefix = block[345:500].split(b"\0", 1)[0]
        if prefix:
            name = prefix + b"/" + name.split(b"\0", 1)[0]
    return Header(_text(name), size, typeflag)


def _pax_records(data: bytes) -> dict[str, str]:
    """The ``"<length> <key>=<value>\\n"`` records of a pax extended header."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        if data[pos] == 0:  # NUL padding after the last record
            break
        space = data.find(b" ", pos)
        if space < 0:
            raise ValueError("malformed pax record (no length)")
        length = int(data[pos:space])
        if length <= 0 or pos + length > len(data):
            raise ValueError("malformed pax record (bad length)")
        record = data[space + 1 : pos + length - 1]  # without the trailing newline
        key, sep, value = record.partition(b"=")
        if not sep:
            raise ValueError("malformed pax record (no '=')")
        out[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
        pos += length
    return out


# -- the walk ---------------------------------------------------------------------------------


def _round_up(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK * BLOCK


def scan(path: str, source: TarSource | None = None) -> Iterator[Member]:
    """Every entry of the archive at ``path`` in order, read from its headers only.

    Args:
        path: A local path or an fsspec URL.
        source: An open `TarSource` for ``path`` (one is opened, and closed, otherwise).

    Raises:
        TarFormatError: Naming ``path`` and the offset: not a tar file, a corrupted header, a
            file ending inside a header or inside a member's data.
        OSError: The archive cannot be opened or read.
    """
    own = source is None
    src = TarSource(path) if source is None else source
    try:
        yield from _walk(path, src)
    finally:
        if own:
            src.close()


def _walk(path: str, src: TarSource) -> Iterator[Member]:
    end = src.size
    pos = 0
    long_name: str | None = None
    pax: dict[str, str] = {}
    while pos < end:
        block = src.read(pos, BLOCK)
        if pos == 0 and block[:2] == b"\x1f\x8b":
            raise TarFormatError(
                f"'{path}' is not a tar archive: it is gzip-compressed (shards must be "
                "uncompressed tar files)"
            )
        if len(block) < BLOCK:
            what = "is not a tar archive" if pos == 0 else "is truncated"
            raise TarFormatError(
                f"'{path}' {what}: it ends inside a tar header at byte {pos} "
                f"({len(block)} of {BLOCK} bytes)"
            )
        try:
            header = parse_header(block)
        except ValueError as e:
            what = "is not a tar archive" if pos == 0 else "has a corrupted tar header"
            raise TarFormatError(f"'{path}' {what}: {e} at byte {pos}") from None
        if header is None:  # the end-of-archive marker
            return
        data = pos + BLOCK
        size = header.size
        if "size" in pax:
            try:
                size = int(pax["size"])
            except ValueError:
                raise TarFormatError(
                    f"'{path}': the pax header before byte {pos} has a bad size {pax['size']!r}"
                ) from None
        flag = header.typeflag
        if flag in b"LKxg":
            # metadata about the next member: its long name, link name or pax records
            if size > _MAX_META_BYTES:
                raise TarFormatError(
                    f"'{path}' has a corrupted tar header at byte {pos}: a {chr(flag)!r} "
                    f"entry of {size} bytes"
                )
            payload = src.read(data, size)
            if len(payload) < size:
                raise TarFormatError(
                    f"'{path}' is truncated: the {chr(flag)!r} entry at byte {pos} runs past "
                    f"the end of the file ({end} bytes)"
                )
            if flag == ord("L"):
                long_name = payload.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            elif flag == ord("x"):
                try:
                    pax = _pax_records(payload)
                except ValueError as e:
                    raise TarFormatError(f"'{path}': {e} at byte {data}") from None
            pos = data + _round_up(size)
            continue
        name = header.name
        if long_name is not None:
            name = long_name
        if "path" in pax:
            name = pax["path"]
        regular = flag in _REGULAR and not name.endswith("/")  # (old tars flag dirs by "/")
        if regular and data + size > end:
            raise TarFormatError(
                f"'{path}' is truncated: member '{name}' (header at byte {pos}) has {size} "
                f"bytes of data from byte {data}, but the file ends at byte {end}"
            )
        yield Member(name, data, size, regular)
        long_name = None
        pax = {}
        # links, directories, devices and FIFOs have no data whatever their size field says
        # (Python's tarfile and GNU tar skip none for them); everything else is followed by
        # its data
        pos = data + (0 if flag in _NO_DATA else _round_up(size))
