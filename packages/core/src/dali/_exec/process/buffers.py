"""An iteration's outputs across the process boundary: a ring of CUDA IPC buffers.

The worker (`OutputRing`) copies every GPU output of an iteration, on the pipeline's stream,
into one device buffer of a ring (each output at a 256-byte aligned offset; a ragged batch
sample after sample), records the slot's event after the copy and sends a `Packed`
description at once: the slot, and per output its offset, dtype, shapes, layout and source
info. A slot's buffer is a plain ``cudaMalloc`` exported once (``cudaIpcGetMemHandle``), its
event an interprocess event (``cudaIpcGetEventHandle``); their handles travel with the first
batch that uses them. CPU outputs go through host shared memory (`dali._exec.process.shm`).

The consumer (`OutputViews`) maps each slot's buffer and opens its event once
(``cudaIpcOpenMemHandle``, ``cudaIpcOpenEventHandle``) and wraps the outputs as CuPy arrays on
that memory, without a copy, with the slot's event as their ``ready_event``: whoever reads them
waits for the worker's copy on the GPU, as for the outputs of a pipeline in-process. The
arrays' memory is owned by a `dali._exec.device.Lease`: when the last view of the iteration's
outputs is gone (JAX and torch keep the DLPack capsule, and with it the lease, as long as
their arrays), the lease ends, events are recorded on the streams that read the outputs
(DLPack consumers, ``run(cuda_stream=...)``, as for in-process outputs:
`dali._tensors.order_after`), and once those have completed the slot goes back to the worker
(``("release", slot)``). A slot is written again only after that, so an iteration is never
overwritten while anyone can read it; the ring grows when the consumer holds more iterations
than it has slots, and a slot too small for an iteration is replaced (the consumer unmaps the
old buffer and says so, and only then is it freed).
"""

from __future__ import annotations

import collections
import functools
import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dali._exec import closer
from dali._exec.device import Lease
from dali._exec.process.shm import HostPacked, HostRing, HostViews

__all__ = ["OutputRing", "OutputViews", "Packed"]

ALIGN = 256


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


@dataclass
class Packed:
    """One iteration's outputs as sent: where each GPU output lies in the slot, CPU ones as is."""

    #: the ring slot holding the GPU outputs (None: the iteration has none)
    slot: int | None = None
    #: the slot's buffer generation (a new one when the buffer was replaced)
    generation: int = 0
    #: the buffer's IPC handle, its size and the slot event's IPC handle, sent with the first
    #: iteration in this generation
    handle: tuple[bytes, int, bytes] | None = None
    #: per output: ("gpu", offset, dtype, batch shape or sample shapes, dense, layout,
    #: source_infos), or ("host", k): the ``k``-th output of `host`
    outputs: list[tuple[Any, ...]] = field(default_factory=list)
    #: the CPU outputs, in a host shared-memory slot (None: the iteration has none)
    host: HostPacked | None = None


@dataclass
class _Slot:
    ptr: int
    size: int
    generation: int
    handle: bytes
    #: an interprocess event, recorded after each copy into the slot
    event: Any
    event_handle: bytes
    sent: bool = False


class OutputRing:
    """The worker's side: device buffers that iterations are copied into, reused when released.

    Args:
        cuda: The worker pipeline's `dali._exec.device.CudaContext` (None: a CPU pipeline).
    """

    def __init__(self, cuda: Any) -> None:
        self._cuda = cuda
        self._slots: list[_Slot] = []
        self._free: collections.deque[int] = collections.deque()
        #: (slot, generation) -> pointer of replaced buffers the consumer may still map
        self._retired: dict[tuple[int, int], int] = {}
        self._lock = threading.Lock()

    def pack(self, outputs: tuple[Any, ...], host: HostRing) -> Packed:
        """Queue the GPU outputs' copies into a free slot, copy the CPU outputs into a slot of
        ``host``, and describe the outputs."""
        from dali._tensors import TensorListGPU

        packed = Packed()
        layout: list[tuple[int, Any]] = []
        cpu: list[Any] = []
        total = 0
        for tl in outputs:
            if isinstance(tl, TensorListGPU):
                layout.append((total, tl))
                total += _aligned(sum(int(a.nbytes) for a in _parts(tl)))
            else:
                packed.outputs.append(("host", len(cpu)))
                cpu.append(tl)
        if cpu:
            packed.host = host.pack(cpu)
        if not layout:
            return packed
        k = self._take(max(total, ALIGN))
        slot = self._slots[k]
        packed.slot, packed.generation = k, slot.generation
        if not slot.sent:
            packed.handle, slot.sent = (slot.handle, slot.size, slot.event_handle), True
        self._copy(slot, layout)
        offsets = {id(tl): off for off, tl in layout}
        host_index = iter(range(len(cpu)))
        packed.outputs = [
            _gpu(tl, offsets[id(tl)]) if id(tl) in offsets else ("host", next(host_index))
            for tl in outputs
        ]
        return packed

    def _copy(self, slot: _Slot, layout: list[tuple[int, Any]]) -> None:
        """Queue the copies into ``slot`` on the pipeline stream, then record its event.

        Called on the pipeline's last stage (the GPU stage, its device current), after the
        outputs' work on the same stream: the copies are ordered after it without a wait. The
        calls keep the GIL (`held`)."""
        import cupy

        from dali._exec import held

        stream = self._cuda.stream.ptr
        for offset, tl in layout:
            dst = slot.ptr + offset
            for arr in _parts(tl):
                arr = cupy.ascontiguousarray(arr)
                if arr.nbytes:
                    held.copy_async(dst, arr.data.ptr, arr.nbytes, stream)
                dst += arr.nbytes
        held.record(slot.event.ptr, stream)

    def _take(self, nbytes: int) -> int:
        """A free slot of at least ``nbytes`` (a new one, or a replaced buffer, if needed)."""
        import cupy

        with self._lock:
            k = self._free.popleft() if self._free else None
        if k is not None and self._slots[k].size >= nbytes:
            return k  # the usual case: no CUDA call
        with cupy.cuda.Device(self._cuda.device_id):
            if k is None:
                k = len(self._slots)
                self._slots.append(_new_slot(nbytes, 0))
            else:
                old = self._slots[k]
                with self._lock:
                    self._retired[(k, old.generation)] = old.ptr
                self._slots[k] = _new_slot(nbytes + nbytes // 4, old.generation + 1)
        return k

    def held_bytes(self) -> tuple[int, int]:
        """Bytes of the slots the consumer reads, and of every slot (replaced ones not
        counted: they are freed once the consumer unmaps them)."""
        with self._lock:
            free = set(self._free)
            sizes = [s.size for s in self._slots]
        return sum(n for k, n in enumerate(sizes) if k not in free), sum(sizes)

    def release(self, k: int) -> None:
        """The consumer no longer reads slot ``k``."""
        with self._lock:
            self._free.append(k)

    def unmapped(self, k: int, generation: int) -> None:
        """The consumer unmapped a replaced buffer: free it."""
        import cupy

        with self._lock:
            ptr = self._retired.pop((k, generation), None)
        if ptr is not None:
            with cupy.cuda.Device(self._cuda.device_id):
                cupy.cuda.runtime.free(ptr)

    def close(self) -> None:
        """Free every buffer (the process is ending; the consumer's mappings keep theirs)."""
        if not self._slots and not self._retired:
            return
        import cupy

        with cupy.cuda.Device(self._cuda.device_id):
            for ptr in [s.ptr for s in self._slots] + list(self._retired.values()):
                try:
                    cupy.cuda.runtime.free(ptr)
                except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                    pass
        self._slots.clear()
        self._retired.clear()


def _new_slot(nbytes: int, generation: int) -> _Slot:
    import cupy

    runtime = cupy.cuda.runtime
    size = _aligned(nbytes)
    ptr = runtime.malloc(size)
    event = cupy.cuda.Event(block=False, disable_timing=True, interprocess=True)
    return _Slot(
        ptr,
        size,
        generation,
        bytes(runtime.ipcGetMemHandle(ptr)),
        event,
        bytes(runtime.ipcGetEventHandle(event.ptr)),
    )


def _parts(tl: Any) -> list[Any]:
    """The arrays holding a batch's data, in sample order: one where the batch is one array
    (dense, or a flat buffer of ragged samples), else its samples."""
    if tl.held_dense is not None:
        return [tl.held_dense]
    flat = tl.flat()
    if flat is None:
        samples: list[Any] = tl.samples()
        return samples
    buf, shapes = flat
    return [buf.reshape(-1)[: sum(math.prod(s) for s in shapes)]]


def _gpu(tl: Any, offset: int) -> tuple[Any, ...]:
    """A GPU output's description: the dense batch's shape, or the samples' shapes."""
    dense = tl.held_dense
    shape = tuple(dense.shape) if dense is not None else [tuple(s) for s in tl.shape()]
    return ("gpu", offset, tl.np_dtype.str, shape, dense is not None, tl.layout(), tl.source_infos)


class _IpcEvent:
    """A slot's event opened from its IPC handle: what `dali._tensors.order_after` and host
    waits use of a CuPy event (``ptr``, ``synchronize``, ``done``)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    def synchronize(self) -> None:
        import cupy

        cupy.cuda.runtime.eventSynchronize(self.ptr)  # synchronize!

    @property
    def done(self) -> bool:
        import cupy

        return bool(cupy.cuda.runtime.eventQuery(self.ptr) == 0)

    def destroy(self) -> None:
        import cupy

        cupy.cuda.runtime.eventDestroy(self.ptr)


class OutputViews:
    """The consumer's side: the slots mapped once each, outputs wrapped as CuPy arrays.

    Args:
        device_id: The GPU the worker's pipeline runs on.
    """

    def __init__(self, device_id: int | None) -> None:
        self.device_id = device_id
        #: the host shared-memory slots of the CPU outputs
        self.host = HostViews()
        #: slot -> (generation, mapped pointer, size, its opened event)
        self._mapped: dict[int, tuple[int, int, int, _IpcEvent]] = {}
        #: slots whose leases ended: (slot, events on their consumer streams), oldest first
        self._ended: collections.deque[tuple[int, list[Any]]] = collections.deque()
        #: slots with a live lease (their mapping must stay)
        self._leased: set[int] = set()
        self._closed = False

    def unpack(self, packed: Packed) -> tuple[list[Any], list[tuple[Any, ...]]]:
        """The outputs of ``packed`` as TensorLists, and the messages for the worker (an
        unmapped buffer)."""
        from dali._tensors import TensorListGPU

        messages: list[tuple[Any, ...]] = []
        mem = event = None
        if packed.slot is not None:
            import cupy

            k = packed.slot
            with cupy.cuda.Device(self.device_id):
                if packed.handle is not None:
                    old = self._mapped.get(k)
                    if old is not None:
                        self._unmap(k)
                        messages.append(("unmapped", k, old[0]))
                    handle, size, event_handle = packed.handle
                    ptr = cupy.cuda.runtime.ipcOpenMemHandle(handle)
                    opened = _IpcEvent(cupy.cuda.runtime.ipcOpenEventHandle(event_handle))
                    self._mapped[k] = (packed.generation, ptr, size, opened)
                _, ptr, size, event = self._mapped[k]
                lease = Lease(functools.partial(self.ended, k))
                self._leased.add(k)
                mem = cupy.cuda.UnownedMemory(ptr, size, lease, self.device_id)
        cpu = [] if packed.host is None else self.host.unpack(packed.host)
        out: list[Any] = []
        for desc in packed.outputs:
            if desc[0] == "host":
                out.append(cpu[desc[1]])
                continue
            _, offset, dtype, shape, dense, layout, infos = desc
            out.append(_wrap_gpu(mem, offset, np.dtype(dtype), shape, dense, layout, infos))
            out[-1].ready_event = event
            assert isinstance(out[-1], TensorListGPU)
        return out, messages

    def ended(self, k: int, consumers: dict[int, Any]) -> None:
        """A lease ended (any thread, the garbage collector's too): release the slot once the
        work its readers queued is done."""
        events = []
        if consumers:
            import cupy

            with cupy.cuda.Device(self.device_id):
                for stream in consumers:
                    ev = cupy.cuda.Event(disable_timing=True)
                    cupy.cuda.runtime.eventRecord(ev.ptr, stream)
                    events.append(ev)
        self._ended.append((k, events))
        if self._closed:  # no executor loop asks for `releases` any more: unmap here
            closer.defer(self._drain)

    def _drain(self) -> None:
        """After `close`: unmap the slots whose leases ended, once their readers are done."""
        while self._ended:
            k, events = self._ended.popleft()
            for ev in events:
                ev.synchronize()
            self._leased.discard(k)
            self._unmap(k)

    def releases(self) -> list[tuple[Any, ...]]:
        """The slots to give back now (their readers' work is done), as messages."""
        out = self.host.releases()
        ended = self._ended
        for _ in range(len(ended)):
            k, events = ended.popleft()
            if all(ev.done for ev in events):
                self._leased.discard(k)
                out.append(("release", k))
                if self._closed:
                    self._unmap(k)
            else:
                ended.append((k, events))
        return out

    def _unmap(self, k: int) -> None:
        import cupy

        mapped = self._mapped.pop(k, None)
        if mapped is not None:
            with cupy.cuda.Device(self.device_id):
                cupy.cuda.runtime.ipcCloseMemHandle(mapped[1])
                mapped[3].destroy()

    def close(self) -> None:
        """Unmap every buffer no output uses; the others when their leases end."""
        self._closed = True
        self.host.close()
        self.releases()
        for k in list(self._mapped):
            if k not in self._leased:
                self._unmap(k)


def _wrap_gpu(
    mem: Any, offset: int, dtype: np.dtype[Any], shape: Any, dense: bool, layout: str, infos: Any
) -> Any:
    """A TensorListGPU on the slot's memory at ``offset`` (see `Packed.outputs`)."""
    import cupy

    from dali._tensors import TensorListGPU

    ptr = cupy.cuda.MemoryPointer(mem, offset)
    if dense:
        return TensorListGPU.wrap(cupy.ndarray(shape, dtype, ptr), layout, infos)
    shapes = [tuple(s) for s in shape]
    size = sum(math.prod(s) for s in shapes)
    tl = TensorListGPU.wrap_flat(cupy.ndarray((size,), dtype, ptr), shapes, layout)
    tl.source_infos = infos
    return tl
