"""RecordIO files read as one stream of bytes: the files concatenated in order.

DALI's ``RecordIOLoader`` takes its ``path`` files as one piece of data: its single index
counts offsets in the files concatenated, and a record may begin in one file and end in the
next (a ``.rec`` file cut into pieces). `Concatenation` maps offsets of that data to the files
(`where`, `pieces`) and reads any range of it through `_storage` (local paths or fsspec URLs). A batch's ranges of
large local files are views of the files mapped in memory, as DALI reads them by default
(`fetch`): no copy is made.

Example:
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> paths = [os.path.join(root, n) for n in ("a.rec", "b.rec")]
    >>> for p, data in zip(paths, (b"0123", b"456789")):
    ...     _ = open(p, "wb").write(data)
    >>> data = Concatenation.open(paths)
    >>> data.total, data.read(2, 5).tobytes(), data.where(4)
    (10, b'23456', (1, 0))
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._ops.readers.loader.listing import open_sample
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage.mapping import LIBC, map_file

__all__ = ["Concatenation"]


class Concatenation:
    """The files ``paths`` of ``sizes`` bytes, concatenated in order.

    Args:
        paths: The files (local paths or URLs).
        sizes: Their sizes in bytes.
    """

    def __init__(self, paths: Sequence[str], sizes: Sequence[int]) -> None:
        self.paths = list(paths)
        #: where each file starts in the data, and (last) where the data ends
        self.starts = np.concatenate([[0], np.cumsum(np.asarray(sizes, dtype=np.int64))]).astype(
            np.int64
        )
        #: the files `fetch` asked the OS to page in (``read_ahead``: once per file, as DALI)
        self._paged_in: set[str] = set()

    @classmethod
    def open(cls, paths: Sequence[str]) -> Concatenation:
        """The files ``paths``, their sizes asked of the storage.

        Raises:
            OSError: A file that cannot be reached.
        """
        return cls(paths, [_storage.size(p) for p in paths])

    @property
    def total(self) -> int:
        """The size of the data, all files together."""
        return int(self.starts[-1])

    def where(self, offset: int) -> tuple[int, int]:
        """``(file, offset within it)`` of an offset of the data (the end: the last file's)."""
        j = int(np.searchsorted(self.starts, offset, side="right")) - 1
        j = max(0, min(j, len(self.paths) - 1))
        return j, offset - int(self.starts[j])

    def describe(self, offset: int | None) -> str:
        """The file holding ``offset`` for a message, quoted: with several files, also where
        in it, since the message's offsets count in the files concatenated."""
        if offset is None or len(self.paths) == 1:
            return f"'{self.paths[0]}'" if len(self.paths) == 1 else "the files"
        j, local = self.where(offset)
        return (
            f"'{self.paths[j]}' (offset {local} of it; the offsets below count in the files "
            "concatenated)"
        )

    def pieces(self, start: int, stop: int) -> list[_storage.Extent]:
        """The byte ranges of the files that hold ``[start, stop)`` of the data, in order."""
        starts, paths = self.starts, self.paths
        j = self.where(start)[0]
        out = []
        while start < stop and j < len(paths):
            end = min(stop, int(starts[j + 1]))
            if end > start:
                out.append(_storage.Extent(paths[j], start - int(starts[j]), end - start))
            start = end
            j += 1
        return out

    def read(self, offset: int, length: int) -> np.ndarray:
        """``length`` bytes from ``offset`` of the data (a new uint8 array).

        Raises:
            OSError: A file cannot be read, or ends early.
        """
        parts = [
            _storage.read_range(e.path, e.offset, e.length or 0)
            for e in self.pieces(offset, offset + length)
        ]
        if not parts:
            return np.empty(0, np.uint8)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def fetch(
        self,
        extents: Sequence[_storage.Extent],
        *,
        use_mmap: bool = True,
        read_ahead: bool = False,
        parallel_map: Callable[[Callable[[int], Any], int], list[Any]] | None = None,
    ) -> list[np.ndarray | OSError]:
        """The bytes of ``extents`` (ranges of the files), each an array or its `OSError`.

        With ``use_mmap``, the ranges of local files of ``options.MMAP_MIN_BYTES`` or more
        are views of the file mapped in memory (mapped afresh on every call, so that a file
        changed since, or truncated, is seen as it is now: a range past its end is an
        `OSError`); the others are read (`_storage.read_extents`: in parallel, remote ones as
        concurrent requests). ``read_ahead`` asks the OS to page a mapped file in whole, the
        first time it is mapped.
        """
        from dali import _options as options

        out: list[np.ndarray | OSError | None] = [None] * len(extents)
        if use_mmap and LIBC is not None:
            maps: dict[str, np.ndarray | OSError | None] = {}
            for k, e in enumerate(extents):
                if e.path not in maps:
                    page_in = read_ahead and e.path not in self._paged_in
                    maps[e.path] = (
                        None
                        if _storage.is_url(e.path)
                        else _map(e.path, options.MMAP_MIN_BYTES, page_in)
                    )
                    if page_in and isinstance(maps[e.path], np.ndarray):
                        self._paged_in.add(e.path)
                mapped = maps[e.path]
                if mapped is None or isinstance(mapped, OSError):
                    out[k] = mapped
                    continue
                end = e.offset + (e.length or 0)
                if end > mapped.size:
                    out[k] = OSError(
                        errno.EIO,
                        f"the file has {mapped.size} bytes, cannot read {e.length} at offset "
                        f"{e.offset} (truncated, or the index does not match it)",
                        e.path,
                    )
                    continue
                out[k] = mapped[e.offset : end]
        rest = [k for k, d in enumerate(out) if d is None]
        if rest:
            got = _storage.read_extents(
                [extents[k] for k in rest], use_mmap=use_mmap, parallel_map=parallel_map
            )
            for k, d in zip(rest, got):
                out[k] = d
        return [d for d in out if d is not None]


def _map(path: str, min_bytes: int, read_ahead: bool) -> np.ndarray | OSError | None:
    """The local file ``path`` mapped whole; None where it is smaller than ``min_bytes`` or
    cannot be mapped (it is then read), its `OSError` where it cannot be opened."""
    try:
        fd, info = open_sample(path.removeprefix("file://"))
    except OSError as e:
        return e
    try:
        if info.st_size < max(1, min_bytes):
            return None
        return map_file(fd, info.st_size, read_ahead)
    finally:
        os.close(fd)
