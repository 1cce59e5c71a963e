"""Large host arrays handed out again once nothing references them.

A CPU operator whose samples are large pays more for a fresh array than for filling it: glibc
serves an allocation above its largest mmap threshold (32 MiB) with a new mapping, returns it
to the kernel when freed, and the first write to each 4 KiB page of the next one faults and
zeroes the page. A sequence of sixteen 720p RGB frames is 44 MB: writing into a fresh one cost
~0.5 ms a frame, a sixth of decoding it (``benchmarks/RESULTS.md``, "Video").

`RecycledArrays.empty` returns an array over a buffer the pool keeps. The buffer is handed out
again once nothing but the pool refers to it: no view of it, no array or tensor made from it,
no export of it (DLPack, the buffer protocol) is alive. numpy makes every view hold its base
and every export hold the array, so the interpreter's reference count of the buffer says
exactly that on builds with the GIL; free-threaded builds count references per thread and
are given fresh arrays (so are arrays below ``min_bytes``: glibc's heap reuses those).

Example:
    >>> pool = RecycledArrays(min_bytes=0)
    >>> a = pool.empty((4, 4), np.uint8)
    >>> address = a.ctypes.data
    >>> del a
    >>> pool.empty((2, 8), np.uint8).ctypes.data == address  # same size: the same memory
    True
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

__all__ = ["MIN_BYTES", "RecycledArrays"]

#: The default ``min_bytes``: below it glibc's heap reuses freed memory itself.
MIN_BYTES = 4 << 20

#: Whether reference counts are exact here (False on a free-threaded build running without
#: the GIL, where a count read by one thread may miss another thread's references).
_COUNTS_EXACT = getattr(sys, "_is_gil_enabled", lambda: True)()


class RecycledArrays:
    """A pool of large host buffers, each handed out again once unreferenced (thread-safe).

    Args:
        min_bytes: Arrays smaller than this are plain ``np.empty`` (default `MIN_BYTES`).
        idle_bytes: At most this many bytes of unreferenced buffers are kept; beyond it the
            least recently made go back to the system.
    """

    def __init__(self, *, min_bytes: int | None = None, idle_bytes: int = 1 << 30) -> None:
        self.min_bytes = MIN_BYTES if min_bytes is None else min_bytes
        self.idle_bytes = idle_bytes
        self._buffers: list[np.ndarray] = []  # flat uint8, oldest first
        self._lock = threading.Lock()

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """An uninitialised C-contiguous array of ``shape`` and ``dtype``."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes < self.min_bytes or not _COUNTS_EXACT:
            return np.empty(shape, dtype)
        with self._lock:
            found = self._take(nbytes)
            if found is None:
                found = np.empty(max(nbytes, 1), np.uint8)
                self._buffers.append(found)
        out: np.ndarray = found[:nbytes].view(dtype).reshape(shape)
        return out

    def _take(self, nbytes: int) -> np.ndarray | None:
        """An unreferenced buffer of ``nbytes`` (the idle ones beyond ``idle_bytes`` dropped)."""
        buffers = self._buffers
        found = None
        idle = 0
        for i in reversed(range(len(buffers))):  # newest first: the warmest memory
            # 2: the list's reference and the call's argument
            if sys.getrefcount(buffers[i]) != 2:
                continue
            if found is None and buffers[i].nbytes == max(nbytes, 1):
                found = buffers[i]
                continue
            idle += buffers[i].nbytes
            if idle > self.idle_bytes:
                idle -= buffers[i].nbytes
                del buffers[i]
        return found

    def clear(self) -> None:
        """Let go of every buffer: each goes back to the system once its arrays are gone."""
        with self._lock:
            self._buffers.clear()

    def __len__(self) -> int:
        """How many buffers the pool holds (in use and idle)."""
        return len(self._buffers)
