"""Memory-mapped samples of the readers: files mapped in place, and the readers' batch memory.

A mapping is made with libc's ``mmap`` through ctypes, not Python's `mmap.mmap`, which keeps a
duplicate of the file descriptor open for as long as the mapping lives (before Python 3.13):
zero-copy samples would each hold a descriptor and a deep prefetch could exhaust the process's
limit. Here the descriptor is closed at once and the mapping is unmapped when the last array
using its bytes is freed (`Mapping`), by a thread of its own for the batches the read workers
fill (`BatchMapping`).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import queue
import threading
from typing import Any, NamedTuple

import numpy as np

__all__ = ["LIBC", "BatchMapping", "Mapping", "map_file", "map_memory"]


class _Libc(NamedTuple):
    mmap: Any
    munmap: Any
    madvise: Any  # None where libc has none


def _load_libc() -> _Libc | None:
    """libc's mmap/munmap/madvise through ctypes, or None where they are not there."""
    if os.name != "posix" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        do_mmap, do_munmap = libc.mmap, libc.munmap
    except (OSError, AttributeError):
        return None
    do_mmap.restype = ctypes.c_void_p
    do_mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int64,
    ]
    do_munmap.restype = ctypes.c_int
    do_munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    do_madvise = getattr(libc, "madvise", None)
    if do_madvise is not None:
        do_madvise.restype = ctypes.c_int
        do_madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return _Libc(do_mmap, do_munmap, do_madvise)


LIBC = _load_libc()
_MAP_FAILED = ctypes.c_void_p(-1).value


class Mapping:
    """Owns one private mapping; the numpy arrays made from it keep it alive."""

    __slots__ = ("__array_interface__", "_addr", "_size")
    # bound here, not looked up in module globals: __del__ may run at interpreter shutdown
    _munmap = None if LIBC is None else LIBC.munmap

    def __init__(self, addr: int, size: int) -> None:
        self._addr = addr
        self._size = size
        self.__array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            # writable: the mapping is private (copy-on-write), writes never reach the file
            "data": (addr, False),
            "version": 3,
        }

    def __del__(self) -> None:
        if self._munmap is not None:
            self._munmap(self._addr, self._size)


class _Unmapper:
    """Unmaps batch mappings in a daemon thread of its own, started on first use.

    Unmapping a batch (21 MB for 256 ImageNet JPEGs) tears down its page tables and frees its
    memory: kernel work that fell on whichever pipeline thread dropped the batch last (the GPU
    stage), which then also had to take the GIL back (``benchmarks/RESULTS.md``, "Reading in
    worker processes").
    """

    def __init__(self, munmap: Any) -> None:
        self._munmap = munmap
        self._queue: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, addr: int, size: int) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    thread = threading.Thread(target=self._loop, name="dali-unmap", daemon=True)
                    thread.start()
                    self._thread = thread
        self._queue.put((addr, size))

    def _loop(self) -> None:
        get, munmap = self._queue.get, self._munmap
        while True:
            addr, size = get()
            munmap(addr, size)


class BatchMapping(Mapping):
    """A batch's mapping (`map_memory`), unmapped by the `_Unmapper` thread."""

    __slots__ = ()
    _munmap = None if LIBC is None else _Unmapper(LIBC.munmap)


def map_file(fd: int, size: int, read_ahead: bool) -> np.ndarray | None:
    """Map ``size`` bytes of ``fd``; None when the file cannot be mapped (pipes, some FUSE)."""
    assert LIBC is not None
    addr = LIBC.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_PRIVATE, fd, 0)
    if addr is None or addr == _MAP_FAILED:
        return None
    owner = Mapping(addr, size)
    if read_ahead and LIBC.madvise is not None and hasattr(mmap, "MADV_WILLNEED"):
        LIBC.madvise(addr, size, mmap.MADV_WILLNEED)
    return np.asarray(owner)


def map_memory(fd: int, size: int) -> np.ndarray:
    """The first ``size`` bytes of the memory file ``fd`` as a writable uint8 array that unmaps
    when the last view of it is freed.

    The memory file must be this process's alone (the read workers close theirs once sent), so
    a shared mapping is as private as a copy-on-write one, without its cost: it is populated at
    once, writable, with no copies (a populated writable *private* mapping copies every page,
    and a read-only one made writable afterwards spends as long again in ``mprotect``) and
    without the page faults that Python code reading the headers would otherwise take with the
    GIL held (``benchmarks/RESULTS.md``, "Reading in worker processes").
    """
    assert LIBC is not None
    flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
    addr = LIBC.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE, flags, fd, 0)
    if addr is None or addr == _MAP_FAILED:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return np.asarray(BatchMapping(addr, size))  # unmaps when freed
