"""Where readers get their bytes: local paths, and any fsspec URL (``s3://``, ``gs://``, ``http://``).

Every reader reaches its files through this module and nothing else, so a dataset on object
storage reads as one on disk: the same listing, the same samples, the same errors. A path with a
scheme (``s3://bucket/key``) goes through `fsspec` (an optional dependency: ``pip install
"dali-core[s3]"``, ``[gcs]``, ``[remote]`` for the rest); a plain path, or ``file://``, through
the OS (memory-mapped above ``options.MMAP_MIN_BYTES``, as `readers.file` does).

The unit of I/O is an `Extent`: a byte range of one file (the whole file when ``length`` is
None). A reader turns a batch into extents (a tfrecord record, a tar member, a ``.npy`` payload
or a whole image) and reads them with `read_extents`, which reads them in parallel; `prefetch`
is the read-ahead hint for the batches that follow. Remote reads are latency-bound, so for URLs
both do real work (`_remote`): a batch's extents go out as concurrent requests, nearby ranges
of one object coalesced into one, and `prefetch` starts the next batch's requests in the
background (a small bounded cache that `read_extents`, `read_range` and `read_bytes` take
from; `drop_prefetched` empties it when a reader closes). Local paths are read as before:
`prefetch` ignores them.

Credentials and endpoints come from the standard environment of each filesystem (S3:
``AWS_ACCESS_KEY_ID``, ``AWS_PROFILE``, ``AWS_ENDPOINT_URL_S3``... as botocore reads them).

Errors are `OSError`s naming the path or URL (`FileNotFoundError` for a missing file or object,
`PermissionError` for a refused request or missing credentials, ...); readers turn them into
operator errors naming the argument or the sample. A missing fsspec (or s3fs, gcsfs) is an
`ImportError` naming the extra to install.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.bin")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(bytes(range(10)))
    >>> read_range(path, 2, 3).tolist(), size(path), is_url(path), is_url("s3://b/k")
    ([2, 3, 4], 10, False, True)
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from dali._ops.readers.loader.listing import open_sample
from dali._ops.readers.storage import remote as _remote
from dali._ops.readers.storage.mapping import LIBC, map_file

__all__ = [
    "Extent",
    "drop_prefetched",
    "exists",
    "is_url",
    "isdir",
    "join",
    "listdir",
    "prefetch",
    "read_bytes",
    "read_extents",
    "read_file",
    "read_range",
    "read_text",
    "size",
    "write_text",
]


class Extent(NamedTuple):
    """A byte range of one file: ``length`` bytes from ``offset`` (None: to the end)."""

    path: str
    offset: int = 0
    length: int | None = None


def is_url(path: str) -> bool:
    """Whether ``path`` names a remote object (``scheme://...``, any scheme but ``file``)."""
    head, sep, _ = path.partition("://")
    return bool(sep) and head.isidentifier() and head.lower() != "file" and len(head) > 1


def _local(path: str) -> str:
    return path.removeprefix("file://")


def join(base: str, *parts: str) -> str:
    """``parts`` joined onto ``base`` with ``/`` for URLs, `os.path.join` for local paths."""
    if not is_url(base):
        return os.path.join(base, *parts)
    out = base
    for p in parts:
        if is_url(p):
            out = p
        else:
            out = out.rstrip("/") + "/" + p.lstrip("/")
    return out


def _fs(path: str) -> tuple[Any, str]:
    """The fsspec filesystem of a URL and the path within it (`_remote.filesystem`)."""
    return _remote.filesystem(path)


# -- local reads ------------------------------------------------------------------------------


def _read_plain(fd: int, size: int) -> np.ndarray:
    out = np.empty(size, dtype=np.uint8)
    view = out.data
    got = os.readv(fd, [view])  # one call reads a regular file whole
    if got == size:
        return out
    while got < size:
        n = os.readv(fd, [view[got:]])
        if n == 0:  # the file shrank since fstat
            return out[:got].copy()
        got += n
    return out


def read_file(
    path: str, *, use_mmap: bool = True, read_ahead: bool = False, mmap_min_bytes: int = 0
) -> np.ndarray:
    """The bytes of a local file as a new 1-D uint8 array (no buffer is ever reused).

    Args:
        path: The file to read.
        use_mmap: Map the file (zero-copy; the array is a private copy-on-write mapping, so
            writing to it never changes the file) instead of reading it.
        read_ahead: Ask the OS to page a mapped file in at once (``MADV_WILLNEED``).
        mmap_min_bytes: With ``use_mmap``, files smaller than this are read instead (the
            reader passes `MMAP_MIN_BYTES`).

    Raises:
        OSError: The file cannot be opened or read, or is not a regular file
            (`_listing.open_sample`: a FIFO would block, a device never end).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        ...     _ = f.write(b"abc"); f.flush()
        ...     read_file(f.name).tolist()
        [97, 98, 99]
    """
    fd, info = open_sample(path)
    try:
        size = info.st_size
        if size == 0:
            return np.empty(0, dtype=np.uint8)
        if use_mmap and LIBC is not None and size >= mmap_min_bytes:
            out = map_file(fd, size, read_ahead)
            if out is not None:
                return out
        return _read_plain(fd, size)
    finally:
        os.close(fd)


def _read_local_range(path: str, offset: int, length: int) -> np.ndarray:
    fd, info = open_sample(path)
    try:
        if offset + length > info.st_size:
            raise OSError(
                errno.EIO,
                f"the file has {info.st_size} bytes, cannot read {length} at offset {offset} "
                "(truncated, or the index does not match it)",
                path,
            )
        out = np.empty(length, dtype=np.uint8)
        got = 0
        while got < length:
            n = os.preadv(fd, [out.data[got:]], offset + got)
            if n == 0:
                raise OSError(errno.EIO, f"the file ended at byte {offset + got}", path)
            got += n
        return out
    finally:
        os.close(fd)


# -- the API ----------------------------------------------------------------------------------


def read_bytes(path: str, *, use_mmap: bool = True, read_ahead: bool = False) -> np.ndarray:
    """The whole file or object as a new 1-D uint8 array."""
    from dali import _options as options

    if not is_url(path):
        return read_file(
            _local(path),
            use_mmap=use_mmap,
            read_ahead=read_ahead,
            mmap_min_bytes=options.MMAP_MIN_BYTES,
        )
    return _remote_one(Extent(path, 0, None))


def read_range(path: str, offset: int, length: int) -> np.ndarray:
    """``length`` bytes from ``offset`` (a new array); an `OSError` if the file is shorter."""
    if length == 0:
        return np.empty(0, dtype=np.uint8)
    if not is_url(path):
        return _read_local_range(_local(path), offset, length)
    return _remote_one(Extent(path, offset, length))


def read_text(path: str) -> str:
    """A text file (a file list, an index, annotations) decoded as UTF-8."""
    if not is_url(path):
        with open(_local(path), encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    return _remote_one(Extent(path, 0, None)).tobytes().decode("utf-8", errors="surrogateescape")


def write_text(path: str, text: str) -> None:
    """Write a text file (an index) whole: a local one through a temporary file renamed over it,
    so that a reader never sees half of it; a URL with one fsspec write."""
    if is_url(path):
        fs, key = _fs(path)
        fs.pipe_file(key, text.encode("utf-8", errors="surrogateescape"))
        return
    local = _local(path)
    tmp = f"{local}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    os.replace(tmp, local)


def size(path: str) -> int:
    """The size in bytes of a file or object."""
    if not is_url(path):
        return os.stat(_local(path)).st_size
    return int(_remote.call(path, "size"))


def exists(path: str) -> bool:
    if not is_url(path):
        return os.path.exists(_local(path))
    return bool(_remote.call(path, "exists"))


def isdir(path: str) -> bool:
    if not is_url(path):
        return os.path.isdir(_local(path))
    return bool(_remote.call(path, "isdir"))


def listdir(path: str) -> list[tuple[str, bool]]:
    """The entries of a folder (or prefix) as sorted ``(name, is_dir)`` pairs."""
    if not is_url(path):
        with os.scandir(_local(path)) as it:
            return sorted((e.name, e.is_dir()) for e in it)
    out = []
    for info in _remote.call(path, "ls", detail=True):
        name = info["name"].rstrip("/").rsplit("/", 1)[-1]
        out.append((name, info.get("type") == "directory"))
    return sorted(out)


def read_extents(
    extents: Sequence[Extent],
    *,
    use_mmap: bool = True,
    parallel_map: Callable[[Callable[[int], Any], int], list[Any]] | None = None,
) -> list[np.ndarray | OSError]:
    """Read every extent; a failed one gives its `OSError` in its place (raise it with context).

    Local extents are read as `read_bytes`/`read_range` read them, on ``options.READ_THREADS``
    of ``parallel_map``'s workers; remote ones all at once, as concurrent requests (nearby
    ranges of one object as one), taking what `prefetch` fetched ahead.

    Args:
        extents: What to read, in output order.
        use_mmap: Local whole files may be memory-mapped (`read_bytes`).
        parallel_map: ``parallel_map(f, k)`` runs ``f(0..k-1)`` on ``k`` workers and returns the
            results in order (``ws.map`` of the executor); None reads serially.
    """
    remote = [i for i, e in enumerate(extents) if "://" in e.path and is_url(e.path)]
    if remote:
        return _read_mixed(extents, remote, use_mmap, parallel_map)

    def one(e: Extent) -> np.ndarray | OSError:
        try:
            if e.length is None and e.offset == 0:
                return read_bytes(e.path, use_mmap=use_mmap)
            if e.length is None:
                return read_range(e.path, e.offset, size(e.path) - e.offset)
            return read_range(e.path, e.offset, e.length)
        except OSError as err:
            return err

    n = len(extents)
    if parallel_map is None or n < 2:
        return [one(e) for e in extents]
    from dali import _options as options

    k = max(1, min(options.READ_THREADS, n))
    out: list[Any] = [None] * n
    for c, part in enumerate(parallel_map(lambda c: [one(extents[i]) for i in range(c, n, k)], k)):
        out[c::k] = part
    return out


def _read_mixed(
    extents: Sequence[Extent],
    remote: list[int],
    use_mmap: bool,
    parallel_map: Callable[[Callable[[int], Any], int], list[Any]] | None,
) -> list[np.ndarray | OSError]:
    """`read_extents` of a batch with URLs: the remote ones (``remote``, their indices) at
    once, the local ones as `read_extents` reads them."""
    out: list[Any] = [None] * len(extents)
    got = _remote.fetch([extents[i] for i in remote])
    for i, d in zip(remote, got):
        out[i] = d
    if len(remote) < len(extents):
        taken = set(remote)
        local = [i for i in range(len(extents)) if i not in taken]
        for i, d in zip(
            local,
            read_extents([extents[i] for i in local], use_mmap=use_mmap, parallel_map=parallel_map),
        ):
            out[i] = d
    return out


def _remote_one(e: Extent) -> np.ndarray:
    (d,) = _remote.fetch([e])
    if isinstance(d, OSError):
        raise d
    return d


def prefetch(extents: Sequence[Extent]) -> None:
    """A hint: these extents will be read soon (remote ones are fetched in the background).

    Local extents are ignored (the OS reads ahead for them). Remote ones start downloading
    now, into a cache bounded by ``options.REMOTE_PREFETCH_BYTES`` that `read_extents` (and
    `read_range`, `read_bytes`) take them from; a failed download is raised when its extent
    is read, never here.
    """
    if any("://" in e.path and is_url(e.path) for e in extents):
        _remote.read_ahead.prefetch([e for e in extents if is_url(e.path)])


def drop_prefetched(paths: Iterable[str] | None = None) -> None:
    """Forget what `prefetch` fetched or is fetching for ``paths`` (everything: None), and
    cancel its requests not yet sent: a reader calls it with its URLs when it closes."""
    if _remote.read_ahead:
        _remote.read_ahead.discard(paths)
