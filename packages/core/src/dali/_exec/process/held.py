"""The worker's hand-off calls, made while keeping the GIL (``ctypes.PyDLL``).

A worker process runs a pipeline whose threads hold the GIL most of the time. A call that
releases the GIL (every CuPy runtime call, every socket send) must take it back afterwards,
and that can wait up to Python's switch interval (5 ms) behind the pipeline's threads: with
four such calls per iteration (copy, event, send, and the wake-up of a sending thread) the
hand-off capped the pipeline at about three quarters of its in-process rate (the numbers are
in ``benchmarks/RESULTS.md``, "One process, several GPUs"). The calls here return in
microseconds and never block, so they keep the GIL instead: the CUDA driver's asynchronous
copy and event record (the runtime's stream and event handles are the driver's), and a
non-blocking ``send``. Each falls back to the ordinary call where its library is missing;
`send` returns how much it sent, and the caller sends the rest the ordinary way.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import socket
from typing import Any

__all__ = ["copy_async", "record", "send"]

_MSG_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0x40)
_MSG_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0x4000)


@functools.cache
def _cuda() -> Any:
    """libcuda through PyDLL (None where it cannot be loaded)."""
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            lib = ctypes.PyDLL(name)
        except OSError:
            continue
        copy = lib.cuMemcpyDtoDAsync_v2
        copy.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p]
        copy.restype = ctypes.c_int
        rec = lib.cuEventRecord
        rec.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        rec.restype = ctypes.c_int
        return lib
    return None


@functools.cache
def _libc() -> Any:
    try:
        lib = ctypes.PyDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    fn = lib.send
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_ssize_t
    return lib


def copy_async(dst: int, src: int, nbytes: int, stream: int) -> None:
    """Queue a device-to-device copy on ``stream`` (this thread's current device)."""
    lib = _cuda()
    if lib is not None:
        status = lib.cuMemcpyDtoDAsync_v2(dst, src, nbytes, stream)
        if status == 0:
            return
    import cupy

    runtime = cupy.cuda.runtime
    runtime.memcpyAsync(dst, src, nbytes, runtime.memcpyDeviceToDevice, stream)


def record(event: int, stream: int) -> None:
    """Record ``event`` on ``stream``."""
    lib = _cuda()
    if lib is not None and lib.cuEventRecord(event, stream) == 0:
        return
    import cupy

    cupy.cuda.runtime.eventRecord(event, stream)


def send(fd: int, data: bytes) -> int:
    """Send what the socket takes now, without blocking: the number of bytes sent (0: none)."""
    lib = _libc()
    if lib is None:
        return 0
    n = lib.send(fd, data, len(data), _MSG_DONTWAIT | _MSG_NOSIGNAL)
    if n < 0:
        err = ctypes.get_errno()
        if err in (11, 35):  # EAGAIN / EWOULDBLOCK: the caller sends the ordinary way
            return 0
        raise OSError(err, os.strerror(err))
    return int(n)
