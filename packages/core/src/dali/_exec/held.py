"""Short CUDA and socket calls made while keeping the GIL (``ctypes.PyDLL``).

The pipeline's threads hold the GIL most of the time. A call that releases the GIL (every
CuPy runtime call and kernel launch, every socket send) must take it back afterwards, and that
waits up to Python's switch interval (5 ms) behind whichever thread runs Python meanwhile.
The calls here return in microseconds and never block, so they keep the GIL instead:

* in a pipeline's GPU stage, the host-to-device copies of the kernels' tables from pinned
  memory, the events recorded after them and the queries of those events, and the kernel
  launches (`dali._exec.device`, `dali._ops.gpu.kernels`): a stage thread that gives the GIL up
  a few times per operator and batch may wait each time behind the threads running Python
  (the SSD pipeline on an H200 with its CPU stage in worker processes ran at the same rate
  either way: ``benchmarks/RESULTS.md``, "GIL-held CUDA calls");
* in a mixed decoder's worker, the event that joins its own stream to the pipeline's
  (`options.DECODER_STREAMS`);
* in a worker process, the hand-off of an iteration's outputs: the device-to-device copy, the
  event record and a non-blocking ``send`` (with the GIL given up by each, the hand-off
  capped the pipeline at about three quarters of its in-process rate: ``benchmarks/
  RESULTS.md``, "One process, several GPUs").

The runtime's stream and event handles are the driver's, and the runtime keeps its primary
context current on the threads that use it, so these driver calls act on the same objects.
Each falls back to the ordinary CuPy call where the driver library is missing or the call
fails (the ordinary call then raises CuPy's error); `send` returns how much it sent, and the
caller sends the rest the ordinary way.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import socket
from typing import Any

import numpy as np

from dali import _options as options

__all__ = [
    "copy_async",
    "copy_to_device_async",
    "launch",
    "query",
    "record",
    "send",
    "wait_event",
]

_MSG_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0x40)
_MSG_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0x4000)


_NOT_READY = 600  # CUDA_ERROR_NOT_READY


def _cuda() -> Any:
    """libcuda through PyDLL (None where it cannot be loaded or `options.HELD_CUDA` is off)."""
    return _driver() if options.HELD_CUDA else None


@functools.cache
def _driver() -> Any:
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            lib = ctypes.PyDLL(name)
        except OSError:
            continue
        u64, size, ptr, c_int = ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int
        signatures: tuple[tuple[Any, list[Any]], ...] = (
            (lib.cuMemcpyDtoDAsync_v2, [u64, u64, size, ptr]),
            (lib.cuMemcpyHtoDAsync_v2, [u64, ptr, size, ptr]),
            (lib.cuEventRecord, [ptr, ptr]),
            (lib.cuEventQuery, [ptr]),
            (lib.cuStreamWaitEvent, [ptr, ptr, ctypes.c_uint]),
            (
                lib.cuLaunchKernel,
                [ptr, *[ctypes.c_uint] * 7, ptr, ctypes.POINTER(ctypes.c_void_p), ptr],
            ),
        )
        for fn, args in signatures:
            fn.argtypes = args
            fn.restype = c_int
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


def copy_to_device_async(dst: int, src: int, nbytes: int, stream: int) -> None:
    """Queue a copy of ``nbytes`` from pinned host address ``src`` to device address ``dst`` on
    ``stream`` (from pinned memory the copy is asynchronous: the call never waits)."""
    lib = _cuda()
    if lib is not None and lib.cuMemcpyHtoDAsync_v2(dst, src, nbytes, stream) == 0:
        return
    import cupy

    runtime = cupy.cuda.runtime
    runtime.memcpyAsync(dst, src, nbytes, runtime.memcpyHostToDevice, stream)


def record(event: int, stream: int) -> None:
    """Record ``event`` on ``stream``."""
    lib = _cuda()
    if lib is not None and lib.cuEventRecord(event, stream) == 0:
        return
    import cupy

    cupy.cuda.runtime.eventRecord(event, stream)


def wait_event(stream: int, event: int) -> None:
    """Make ``stream`` wait (on the device) for the work before ``event``'s last record."""
    lib = _cuda()
    if lib is not None and lib.cuStreamWaitEvent(stream, event, 0) == 0:
        return
    import cupy

    cupy.cuda.runtime.streamWaitEvent(stream, event)


def query(event: int) -> bool:
    """Whether the work before ``event`` has completed (never waits)."""
    lib = _cuda()
    if lib is not None:
        status = int(lib.cuEventQuery(event))
        if status in (0, _NOT_READY):
            return status == 0
    import cupy

    try:
        cupy.cuda.runtime.eventQuery(event)
    except cupy.cuda.runtime.CUDARuntimeError as e:
        if e.status == _NOT_READY:
            return False
        raise
    return True


#: ctypes types of the kernel argument kinds `launch` passes by value, by numpy dtype
_SCALARS = {
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.uint8): ctypes.c_uint8,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.uint16): ctypes.c_uint16,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.uint32): ctypes.c_uint32,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.uint64): ctypes.c_uint64,
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.bool_): ctypes.c_bool,
}


def launch(
    function: int,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    args: tuple[Any, ...],
    shared_mem: int,
    stream: int,
) -> bool:
    """Launch the kernel ``function`` (a ``CUfunction``) on ``stream``; False where it was not
    launched (an argument other than a CuPy array or a numpy scalar, or no driver library), and
    the caller launches it the ordinary way.

    Arguments are passed as CuPy passes them to a raw kernel: an array as its data pointer, a
    numpy scalar by value in its own type.
    """
    lib = _cuda()
    if lib is None:
        return False
    values: list[Any] = []
    for a in args:
        if isinstance(a, np.generic):
            kind = _SCALARS.get(a.dtype)
            if kind is None:
                return False
            values.append(kind(a.item()))
        elif hasattr(a, "data") and hasattr(a.data, "ptr"):  # a CuPy array
            values.append(ctypes.c_void_p(a.data.ptr))
        else:
            return False
    params = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])
    g = [int(v) for v in (*grid, 1, 1)[:3]]
    b = [int(v) for v in (*block, 1, 1)[:3]]
    return int(lib.cuLaunchKernel(function, *g, *b, shared_mem, stream, params, None)) == 0


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
