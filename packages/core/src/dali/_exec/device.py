"""CUDA for a pipeline: availability checks, and each pipeline's stream, memory pools and staging.

CuPy is imported only when a pipeline really does GPU work: a `CudaContext` is a cheap holder
until `activate` first runs, so a CPU pipeline built with ``device_id=0`` never touches CUDA.

Streams and events:

* Each pipeline has **one non-default, non-blocking stream** (`CudaContext.stream`). Every GPU and
  mixed operator, every host-to-device copy and every device-to-device copy of fed data is
  enqueued on it. The executor runs GPU operators inside `CudaContext.activate`, which makes the
  pipeline's device, stream and memory pool current *for CuPy in that thread*, so operator code
  simply calls CuPy (``ws.stream`` is there for libraries that take an explicit stream, such as
  nvImageCodec).
* After the last GPU operator of an iteration the executor records an event on the stream and
  attaches it to every GPU output (``tl.ready_event``). Consumers wait for it **on the GPU**:
  ``__dlpack__(stream=s)`` makes ``s`` wait, ``__cuda_array_interface__`` makes the reading
  thread's current stream wait and names that stream in its ``"stream"`` key. Only reading the
  data on the host (``as_cpu()``, printing) or asking for a raw pointer (``data_ptr()``) waits
  on the host.
* Device data handed in from outside (`external_source(device="gpu")`, `feed_input`) is ordered
  the other way: the pipeline stream waits for an event recorded on the producer's stream (the
  ``cuda_stream`` given, else the caller's current stream; DLPack producers are handed our
  stream; for ``__cuda_array_interface__`` objects CuPy synchronises on their ``"stream"``).

Memory:

* Device memory comes from a CuPy ``MemoryPool`` owned by the pipeline, bounded by
  ``device_memory_limit`` (bytes, None = unbounded). Allocating past the bound raises CuPy's
  ``OutOfMemoryError``; the executor reports it naming the operator and the limit.
* Every iteration allocates new output buffers, so an output is **never overwritten while you
  hold a reference to it** (the batch, a sample, a CuPy view, or a framework tensor made from it
  through DLPack, which keeps it alive). Intermediate buffers go back to the pool as soon as the
  iteration drops them; the pool reuses a block only for later work on the same stream, so that
  needs no sync.
* Outputs are also safe from *consumers' pending work*: `lease` re-points each GPU output at
  memory owned by a `Lease`, which records every stream made to wait for the data (DLPack's
  consumer stream, the stream that read ``__cuda_array_interface__``, ``run(cuda_stream=)``).
  When the last reference to the output goes, the lease records an event on each of those
  streams and the memory returns to the pool only once they have completed (`reap`), so a
  training step still queued on torch's stream never sees its input reused. Only a raw pointer
  (``data_ptr()``) escapes this: finish the work that uses it before dropping the batch.
* Host-to-device copies go through **pinned staging buffers** from the pipeline's pinned pool:
  the batch is packed into one pinned buffer (a host copy, so the caller may reuse its arrays at
  once) and copied with one ``cudaMemcpyAsync`` on the pipeline stream. The buffer returns to the
  pool once an event recorded after the copy has completed. ``pinned_memory_limit`` bounds the
  staged bytes in flight.
* Requests of 1 MiB and more are rounded up to one of 4 sizes per power of two
  (`size_class`, at most 25 % more). Ragged batches (random crops) ask for a slightly
  different size each iteration, and a plain pool keeps a new block whenever a request beats
  every cached one, so it kept growing over the epochs. With size classes a few classes cover
  those requests and the cached blocks are reused; 4 per power of two held the least memory, and
  the same amount every epoch (``benchmarks/RESULTS.md``, "GPU memory pool and uploads").
* `CudaContext.release_memory` (``Pipeline.release_memory()``) frees the cached blocks that no
  array uses.

Host–device synchronisations (each marked ``# synchronize!`` in the code):

* staging waits for the oldest staged copy when ``pinned_memory_limit`` would be exceeded;
* `release_memory` and `close` free cached blocks (``cudaFree`` synchronises the device), and
  `close` first waits for the pipeline stream;
* a lease whose consumer stream cannot take an event any more waits for the whole device.

The executor and the operators never synchronise; `dali._tensors` lists the waits of the
consumer side (``as_cpu``, ``data_ptr``, ``copy_to_external`` without a stream).

Example:
    >>> ctx = CudaContext(0, device_memory_limit=1 << 30)  # nothing touches CUDA yet
    >>> ctx.initialized
    False
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from dali._exec import held

__all__ = ["CudaContext", "Lease", "current", "require", "size_class", "stream_ptr"]

_local = threading.local()


def require(device_id: int) -> None:
    """Raise a clear error unless CuPy is installed and ``device_id`` is a visible GPU."""
    from dali._graph.build import BuildError

    try:
        import cupy
    except ImportError as e:
        raise BuildError(
            "The pipeline requires a CUDA-capable GPU, but CuPy is not installed: install "
            "dali-core[cuda13] (or [cuda12]), or keep every operator on the CPU."
        ) from e
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise BuildError(
            "The pipeline requires a CUDA-capable GPU but the CUDA driver is not installed or "
            f"no device is visible ({e}). Set device_id=None and keep every operator on the CPU."
        ) from e
    if not 0 <= device_id < count:
        raise BuildError(f"device_id={device_id} is not a visible CUDA device ({count} visible).")


def size_class(nbytes: int) -> int:
    """``nbytes`` rounded up to one of 4 sizes per power of two from 1 MiB on (see above).

    Example:
        >>> size_class(1000), size_class(1 << 20), size_class((1 << 20) + 1)
        (1000, 1048576, 1310720)
    """
    if nbytes <= 1 << 20:
        return nbytes
    step = 1 << (nbytes.bit_length() - 3)
    return -(-nbytes // step) * step


def current() -> CudaContext | None:
    """The pipeline CUDA context active in this thread (inside `CudaContext.activate`), or None."""
    return getattr(_local, "ctx", None)


def _record_on(stream: int) -> Any:
    """An event recorded now on the stream with handle ``stream``."""
    import cupy

    event = cupy.cuda.Event(disable_timing=True)
    cupy.cuda.runtime.eventRecord(event.ptr, stream)
    return event


def stream_ptr(stream: Any) -> int:
    """The ``cudaStream_t`` of a CuPy/torch stream, a ``ctypes.c_void_p`` or an int."""
    for attr in ("ptr", "cuda_stream", "value"):  # CuPy, torch, ctypes
        value = getattr(stream, attr, None)
        if value is not None:
            return int(value)
    return int(stream)


class Lease:
    """Owns the memory of one GPU output while it is used, then says which streams read it.

    The output's arrays are views of ``UnownedMemory`` whose owner is the lease, so the lease
    lives exactly as long as any view of the output (CuPy, DLPack capsules) does. ``consumers``
    are the streams made to wait for the data (`dali._tensors.order_after` records them); when
    the last view goes, ``on_end(consumers)`` is called, and the memory must be reused only
    after the work queued on them by then has completed: a pipeline's pool memory
    (`CudaContext.lease`), a worker process's ring slot (`dali._exec.process.buffers`).

    An event is recorded on each consumer stream when the lease ends, so the stream must still
    exist then: the CuPy stream objects we are given are kept alive here; torch's and JAX's
    streams live as long as the process; a raw handle given to ``run(cuda_stream=...)`` must
    outlive the data read on it.
    """

    __slots__ = ("__weakref__", "consumers", "on_end")

    def __init__(self, on_end: Callable[[dict[int, Any]], None]) -> None:
        self.on_end = on_end
        self.consumers: dict[int, Any] = {}

    def add_consumer(self, stream: int, keep: Any = None) -> None:
        """Record a consumer stream (``keep``: its stream object, kept alive until the end)."""
        if self.consumers.get(int(stream)) is None:
            self.consumers[int(stream)] = keep

    def __del__(self) -> None:
        try:
            self.on_end(self.consumers)
        except Exception:  # noqa: BLE001,S110 - interpreter shutdown; nothing left to order
            pass


class CudaContext:
    """The CUDA resources of one pipeline: device, stream, memory pools, staging buffers.

    Args:
        device_id: The CUDA device every GPU operator and copy of the pipeline runs on.
        device_memory_limit: Bound, in bytes, of the pipeline's device memory pool (None: no
            bound). Allocations beyond it fail with a clear error.
        pinned_memory_limit: Bound, in bytes, of the pinned staging memory in flight (None: no
            bound); beyond it a host-to-device copy first waits for older copies to finish.
        name: How errors call the pipeline.
    """

    def __init__(
        self,
        device_id: int,
        *,
        device_memory_limit: int | None = None,
        pinned_memory_limit: int | None = None,
        name: str = "the pipeline",
    ) -> None:
        self.device_id = device_id
        self.device_memory_limit = device_memory_limit
        self.pinned_memory_limit = pinned_memory_limit
        self.name = name
        self.stream: Any = None
        self.pool: Any = None
        self.pinned_pool: Any = None
        # Re-entrant: a lease may be released (by the garbage collector) inside a locked block.
        self._lock = threading.RLock()
        self._staged: collections.deque[tuple[Any, Any, int]] = collections.deque()
        self._staged_bytes = 0
        #: the staging copies' events, reused once their copy has completed
        self._free_events: list[Any] = []
        #: (events on consumer streams, pool arrays) of released outputs not yet reusable.
        self._deferred: list[tuple[list[Any], list[Any]]] = []

    @property
    def initialized(self) -> bool:
        return self.stream is not None

    def _init(self) -> None:
        with self._lock:
            if self.stream is not None:
                return
            import cupy

            with cupy.cuda.Device(self.device_id):
                pool = cupy.cuda.MemoryPool()
                if self.device_memory_limit is not None:
                    pool.set_limit(size=int(self.device_memory_limit))
                self.pool = pool
                self.pinned_pool = cupy.cuda.PinnedMemoryPool()
                self.stream = cupy.cuda.Stream(non_blocking=True)

    def _malloc(self, nbytes: int) -> Any:
        return self.pool.malloc(size_class(nbytes))

    @contextlib.contextmanager
    def activate(self) -> Iterator[CudaContext]:
        """Make the pipeline's device, stream and memory pool current for CuPy in this thread."""
        if self.stream is None:
            self._init()
        import cupy

        prev = current()
        with (
            cupy.cuda.Device(self.device_id),
            self.stream,
            cupy.cuda.using_allocator(self._malloc),
        ):
            _local.ctx = self
            try:
                yield self
            finally:
                _local.ctx = prev

    # -- events ------------------------------------------------------------------------------
    def record(self, stream: Any = None) -> Any:
        """An event recorded now on ``stream`` (default: the pipeline stream)."""
        import cupy

        event = cupy.cuda.Event(disable_timing=True)
        event.record(self.stream if stream is None else stream)
        return event

    @contextlib.contextmanager
    def imported(self, producer: Any = None, *, copied: bool = True) -> Iterator[CudaContext]:
        """Convert device data made outside the pipeline, in stream order on both sides.

        The pipeline stream first waits for the producer's stream (``producer``: a stream or a
        ``cudaStream_t``; default: the caller's current stream) and the block runs under
        `activate`. When the block ``copied`` the data, the producer's stream then waits for the
        pipeline stream, so that the caller may reuse its buffers in stream order.
        """
        import cupy

        if self.stream is None:
            self._init()
        with cupy.cuda.Device(self.device_id):
            if producer is None:
                source = cupy.cuda.get_current_stream().ptr
            else:
                source = stream_ptr(producer)
            self.stream.wait_event(_record_on(source))
            with self.activate():
                yield self
            if copied:
                copy_done = self.record()  # kept alive until the wait is enqueued
                cupy.cuda.runtime.streamWaitEvent(source, copy_done.ptr, 0)

    # -- host to device ----------------------------------------------------------------------
    def to_device(self, tl: Any) -> Any:
        """Copy a TensorListCPU to the device, on the pipeline stream, through pinned staging.

        The samples are packed into one pinned buffer (after this returns the host batch may
        change) and copied with one asynchronous copy; a ragged batch becomes per-sample views
        of one device buffer.
        """
        import cupy

        from dali._tensors import TensorListGPU, split_flat

        dtype = tl.np_dtype
        shapes = tl.shape()
        n = len(shapes)
        dense = tl.held_dense
        if n == 0:
            with self.activate():
                empty = cupy.empty(dense.shape, dtype) if dense is not None else []
            return TensorListGPU.wrap(
                empty, tl.layout(), tl.source_infos, dtype=dtype, ndim=tl.sample_ndim
            )
        sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
        total = sum(sizes)
        # On the pipeline stream: the pool reuses a block only for work on the stream that
        # allocated it, so the allocation and the copy must both be on it.
        with self.activate():
            flat = cupy.empty(total, dtype)
            if total:
                pinned = self._stage(total * dtype.itemsize)
                host = np.frombuffer(pinned, dtype, total)
                if dense is not None:
                    host.reshape(dense.shape)[...] = dense
                elif (packed := tl.flat()) is not None:  # back to back already: one copy
                    host[...] = packed[0][:total]
                else:
                    for view, sample in zip(split_flat(host, shapes), tl.samples()):
                        view[...] = sample
                self._copy_staged(flat.data.ptr, pinned, total * dtype.itemsize)
        if dense is not None or all(s == shapes[0] for s in shapes):
            out = TensorListGPU.wrap(flat.reshape(n, *shapes[0]), tl.layout(), tl.source_infos)
        else:
            out = TensorListGPU.wrap_flat(flat, shapes, tl.layout())
            out.source_infos = tl.source_infos
        return out

    def upload_bytes(self, dst: int, data: Any) -> None:
        """Copy the bytes ``data`` (a contiguous buffer) to device address ``dst``, on the
        pipeline stream, through a pinned staging buffer (the caller may reuse ``data`` at once).

        The kernels' small per-batch tables take this path rather than ``cupy.asarray``: the
        copy into pinned memory is a ``memoryview`` assignment (a memcpy that keeps the GIL, where
        numpy's and ctypes' copies give it up), and the staging buffer goes back to the pool
        through this context's in-order queue of copies. ``cupy.asarray`` took half of the
        ResNet-50 GPU stage's time (``benchmarks/RESULTS.md``, "GPU memory pool and uploads").
        """
        nbytes = memoryview(data).nbytes
        if not nbytes:
            return
        pinned = self._stage(nbytes)
        memoryview(pinned).cast("B")[:nbytes] = memoryview(data).cast("B")
        self._copy_staged(dst, pinned, nbytes)

    def _copy_staged(self, dst: int, pinned: Any, nbytes: int) -> None:
        """Copy a filled staging buffer (`_stage`) to ``dst`` on the pipeline stream; the buffer
        goes back to the pool once the copy has completed.

        The copy, its event and the event's query keep the GIL (`dali._exec.held`); the
        events are reused once their copy has completed (creating one gives the GIL up too)."""
        import cupy

        stream = self.stream.ptr
        held.copy_to_device_async(dst, pinned.ptr, nbytes, stream)
        with self._lock:
            free = self._free_events
            event = free.pop() if free else cupy.cuda.Event(disable_timing=True)
            held.record(event.ptr, stream)
            self._staged.append((event, pinned, nbytes))

    def _stage(self, nbytes: int) -> Any:
        """A pinned buffer of ``nbytes`` (counted as in flight), within ``pinned_memory_limit``."""
        limit = self.pinned_memory_limit
        with self._lock:
            self._reap()
            if limit is not None:
                if nbytes > limit:
                    raise MemoryError(
                        f"A batch of {nbytes:,} bytes does not fit in pinned_memory_limit="
                        f"{limit:,} of {self.name}; raise the limit."
                    )
                while self._staged and self._staged_bytes + nbytes > limit:
                    event, _, size = self._staged.popleft()
                    event.synchronize()  # synchronize! (the staging bound is reached)
                    self._staged_bytes -= size
                    self._free_events.append(event)
            pinned = self.pinned_pool.malloc(nbytes)
            self._staged_bytes += nbytes
        return pinned

    def _reap(self) -> None:
        """Give back the staging buffers whose copies finished (the caller holds the lock)."""
        staged = self._staged
        # The copies run in order on one stream, so the finished ones are at the front.
        while staged and held.query(staged[0][0].ptr):
            event, _, size = staged.popleft()
            self._staged_bytes -= size
            self._free_events.append(event)

    # -- outputs -----------------------------------------------------------------------------
    def lease(self, tl: Any) -> None:
        """Re-point the arrays of a GPU output at memory owned by a new `Lease` (no copy)."""
        import cupy

        arrays: list[Any] = []
        lease = Lease(functools.partial(self._release, arrays))
        owned: dict[int, Any] = {}

        def wrap(arr: Any) -> Any:
            arrays.append(arr)
            mem = arr.data.mem
            um = owned.get(id(mem))
            if um is None:
                um = cupy.cuda.UnownedMemory(mem.ptr, mem.size, lease, self.device_id)
                owned[id(mem)] = um
            ptr = cupy.cuda.MemoryPointer(um, arr.data.ptr - mem.ptr)
            return cupy.ndarray(arr.shape, arr.dtype, ptr, strides=arr.strides)

        tl.map_storage(wrap)

    def _release(self, arrays: list[Any], consumers: dict[int, Any]) -> None:
        """A lease ended: give its arrays back once its consumers' queued work is done."""
        if not consumers:
            return  # nothing outside the pipeline stream used them: back to the pool now
        import cupy

        try:
            with cupy.cuda.Device(self.device_id):
                events = [_record_on(ptr) for ptr in consumers]
        except Exception:  # noqa: BLE001 - a consumer stream is gone: wait for everything
            with cupy.cuda.Device(self.device_id):
                cupy.cuda.runtime.deviceSynchronize()  # synchronize!
            return
        with self._lock:
            self._deferred.append((events, arrays))

    def reap(self) -> None:
        """Return to the pool what finished consumers and finished staging copies hold."""
        done = []
        with self._lock:
            self._reap()
            pending = self._deferred
            i = 0
            while i < len(pending):  # in place: a lease may end (and append) meanwhile
                if all(held.query(event.ptr) for event in pending[i][0]):
                    done.append(pending.pop(i))
                else:
                    i += 1
        del done  # outside the lock: freeing may end other leases

    # -- memory ------------------------------------------------------------------------------
    def release_memory(self) -> None:
        """Free the device and pinned blocks that the pools keep cached but no array uses."""
        if self.stream is None:
            return
        import cupy

        self.reap()
        with cupy.cuda.Device(self.device_id):
            self.pool.free_all_blocks()  # synchronize! (cudaFree)
        self.pinned_pool.free_all_blocks()

    def memory_stats(self) -> dict[str, int | None]:
        """Bytes in use and held by the pools (all zero before the first GPU work)."""
        stats: dict[str, int | None] = {
            "device_used_bytes": 0,
            "device_total_bytes": 0,
            "device_memory_limit": self.device_memory_limit,
            "pinned_staged_bytes": self._staged_bytes,
            "pinned_memory_limit": self.pinned_memory_limit,
        }
        if self.stream is not None:
            import cupy

            self.reap()
            with cupy.cuda.Device(self.device_id):
                stats["device_used_bytes"] = int(self.pool.used_bytes())
                stats["device_total_bytes"] = int(self.pool.total_bytes())
        return stats

    def error_hint(self, error: BaseException) -> str:
        """Extra words for an operator's error: the memory bound, when it was hit."""
        if type(error).__name__ != "OutOfMemoryError":
            return ""
        limit = self.device_memory_limit
        if limit is None:
            return f" (out of GPU memory on device {self.device_id})"
        return (
            f" ({self.name} has device_memory_limit={limit:,} bytes; raise it, or pass None "
            "for no bound)"
        )

    def close(self) -> None:
        """Free cached memory. Outputs still held stay valid: their leases keep this alive."""
        if self.stream is None:
            return
        import cupy

        with cupy.cuda.Device(self.device_id):
            self.stream.synchronize()  # synchronize! (pending copies still read staging)
        self.release_memory()
