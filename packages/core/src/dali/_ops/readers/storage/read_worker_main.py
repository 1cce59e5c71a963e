"""The file-reading worker process of `fn.readers.file` (see `_read_worker`); standard library only.

Run as a script (``python -I -S _read_worker_main.py FD``) with one end of a Unix socket pair as
``FD``. Each request is a list of paths; for each, the worker copies the file's bytes into one
new anonymous memory file per batch (``memfd_create``, the copy made in the kernel with
``sendfile``), each file starting at a multiple of `ALIGN` bytes, and answers with the batch's
entries and the memory file's descriptor. It exits when the socket closes: when the pipeline
closes, or when the process that started it dies.

Messages are length-prefixed pickles (8-byte little-endian length, then the body); the reply's
descriptor travels with its first bytes (``SCM_RIGHTS``).

Request: ``(paths, map_min_bytes, heads)``. Reply: ``(entries, rows)``, the entries one per
path in order:

* ``int``: the file's size; its bytes follow the previous file's in the memory file,
  at the next multiple of `ALIGN`;
* ``None``: a regular file of ``map_min_bytes`` or more, left for the caller to map;
* ``(errno, strerror)``: the file could not be opened or read, or is not a regular file
  (`dali._ops.readers.loader.listing.open_sample`, the one rule for this process and the reader's).

``rows``: with ``heads``, each file's JPEG header fields as the GPU decoders' planning reads
them (`dali._ops.decoders.headers.jpeg_walk.header_row`, walked here over the bytes just copied, so
that the pipeline's process does not), packed as ``1 + len(ROW_FIELDS)`` little-endian int64
per path: 1 then the fields for a file read here, 0 then zeros for the others; else None.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import socket
import struct
import sys
from array import array
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

#: Each file's bytes start at a multiple of this in the batch's memory file.
ALIGN = 64

_LEN = struct.Struct("<Q")

_HERE = Path(__file__).resolve().parent
_WALK = _HERE.parents[1] / "decoders" / "headers" / "jpeg_walk.py"
_LISTING = _HERE.parent / "loader" / "listing.py"


def _load(name: str, path: Path) -> ModuleType:
    """A standard-library-only module of the package, loaded from its file (this process runs
    without site-packages, and the package's ``__init__`` imports numpy); once."""
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (a NamedTuple looks its module up)
        spec.loader.exec_module(module)
    return module


def _jpeg_walk() -> ModuleType:
    """`dali._ops.decoders.headers.jpeg_walk`."""
    return _load("_dali_jpeg_walk", _WALK)


def _listing() -> ModuleType:
    """`dali._ops.readers.loader.listing`."""
    return _load("_dali_listing", _LISTING)


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _copy(dst: int, src: int, size: int) -> int:
    """Append the regular file ``src``'s bytes to ``dst``; the count copied (less if the file
    shrank)."""
    done = 0
    try:
        while done < size:
            n = os.sendfile(dst, src, done, size - done)
            if n == 0:
                return done
            done += n
        return done
    except OSError:
        if done:
            raise
        # a file system without sendfile: read and write below (errors are the read's)
    while True:
        chunk = os.read(src, 1 << 20)
        if not chunk:
            return done
        os.write(dst, chunk)
        done += len(chunk)


def read_batch(
    paths: list[str], map_min_bytes: int | None, heads: bool = False
) -> tuple[list[Any], int | None, bytes | None]:
    """The reply entries for ``paths``, the memory file holding their bytes (None if empty)
    and, with ``heads``, the header rows (see the module docstring)."""
    entries: list[Any] = []
    starts: list[int] = []  # where each file read here starts in ``mem``
    mem = None
    end = 0
    open_sample = _listing().open_sample
    for path in paths:
        try:
            fd, info = open_sample(path)
        except OSError as e:
            entries.append((e.errno, e.strerror))
            continue
        try:
            size = info.st_size
            if map_min_bytes is not None and size >= map_min_bytes:
                entries.append(None)
                continue
            if mem is None:
                mem = os.memfd_create("dali-readers-file", os.MFD_CLOEXEC)
            start = -(-end // ALIGN) * ALIGN
            os.lseek(mem, start, os.SEEK_SET)
            try:
                got = _copy(mem, fd, size)
            except OSError as e:
                os.ftruncate(mem, start)
                entries.append((e.errno, e.strerror))
                continue
            entries.append(got)
            starts.append(start)
            end = start + got
        finally:
            os.close(fd)
    if mem is not None and os.fstat(mem).st_size != end:
        os.ftruncate(mem, end)
    return entries, mem, _header_rows(entries, iter(starts), mem) if heads else None


def _header_rows(entries: list[Any], starts: Iterator[int], mem: int | None) -> bytes:
    """The header rows of a batch (see the module docstring), walked over the bytes copied into
    ``mem`` from ``starts``, one per file read (``pread`` of a memory file copies from its
    pages: no disk access)."""
    walk = _jpeg_walk()
    absent = [0] * (1 + len(walk.ROW_FIELDS))
    rows = array("q")
    for e in entries:
        if type(e) is not int:
            rows.extend(absent)  # not read here
            continue
        start = next(starts)
        assert mem is not None  # a file read here was copied into it
        rows.append(1)
        rows.extend(walk.header_row(lambda at, k, s=start: os.pread(mem, k, s + at), e))
    if sys.byteorder != "little":
        rows.byteswap()
    return rows.tobytes()


def serve(sock: socket.socket) -> None:
    while True:
        head = _recv_exact(sock, _LEN.size)
        if head is None:
            return
        body = _recv_exact(sock, _LEN.unpack(head)[0])
        if body is None:
            return
        paths, map_min_bytes, heads = pickle.loads(body)  # from our own parent process
        entries, mem, rows = read_batch(paths, map_min_bytes, heads)
        reply = pickle.dumps((entries, rows), protocol=pickle.HIGHEST_PROTOCOL)
        data = _LEN.pack(len(reply)) + reply
        if mem is None:
            sock.sendall(data)
            continue
        try:
            sent = socket.send_fds(sock, [data], [mem])
            if sent < len(data):
                sock.sendall(data[sent:])
        finally:
            os.close(mem)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    try:
        serve(sock)
    except (BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass
    finally:
        sock.close()


if __name__ == "__main__":
    main()
