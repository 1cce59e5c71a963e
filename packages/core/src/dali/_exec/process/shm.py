"""Host batches across the process boundary: a ring of shared-memory slots, zero-copy.

A worker process (`HostRing`) copies an iteration's CPU outputs into one slot of its ring:
each output at a 64-byte aligned offset (so numpy, torch, JAX and TensorFlow wrap it without a
copy), a ragged batch sample after sample, and describes them (`HostPacked`). A slot is an
anonymous memory file (``memfd_create``): it has no name, so nothing is ever left in
``/dev/shm`` — its memory is freed when the last process that maps it unmaps it, however the
processes end. Its descriptor travels once, over the worker's Unix socket (``SCM_RIGHTS``,
`send_fd`), right after the first message that uses the slot.

The consumer (`HostViews`) maps each slot once and wraps the outputs as numpy arrays on it.
The arrays of one iteration share one owner (a ``ctypes`` view of the slot), so the slot stays
the iteration's as long as any of them (or a framework tensor made from them) lives; when the
last goes, the slot is handed back (``("hrelease", slot)``) and the worker writes it again.
The ring grows when the consumer holds more iterations than it has slots, and a slot too
small for an iteration is replaced by a larger one: the worker drops its mapping of the old
one at once, and its memory goes when the consumer's views of it are gone.

Linux only (``memfd_create``), as the worker processes are.
"""

from __future__ import annotations

import collections
import ctypes
import math
import mmap
import os
import socket
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ALIGN", "HostPacked", "HostRing", "HostViews", "recv_fd", "send_fd"]

#: Byte alignment of every output in a slot (a cache line; what DLPack consumers want).
ALIGN = 64


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def send_fd(sock: socket.socket, fd: int) -> None:
    """Send a file descriptor over a Unix socket (one byte with ``SCM_RIGHTS``)."""
    socket.send_fds(sock, [b"F"], [fd])


def recv_fd(sock: socket.socket) -> int:
    """Receive the file descriptor `send_fd` sent (a new descriptor of this process)."""
    _, fds, _, _ = socket.recv_fds(sock, 1, 1)
    if len(fds) != 1:
        raise OSError("the worker process sent no shared-memory descriptor")
    return int(fds[0])


@dataclass
class HostPacked:
    """An iteration's CPU outputs in a host slot, as the worker describes them."""

    slot: int
    generation: int
    #: the slot's size: with a new generation, its descriptor follows the message (`send_fd`)
    size: int
    new: bool
    #: per output: (offset, dtype, dense shape or sample shapes, dense, extra), ``extra`` a
    #: batch's (layout, source_infos, sample ndim), None for a plain array
    outputs: list[tuple[Any, ...]] = field(default_factory=list)


#: Bytes from which a batch is copied into its slot by several threads (`HostRing`).
_PARALLEL_COPY = 8 << 20


def _copy(view: mmap.mmap, copies: list[tuple[int, np.ndarray]], threads: int) -> None:
    """Copy each (offset, C-contiguous array) into ``view``, over ``threads`` threads: the
    bytes cut into as many equal runs, across and within the arrays."""
    runs: list[tuple[int, np.ndarray]] = [(at, a.reshape(-1).view(np.uint8)) for at, a in copies]
    if threads > 1:
        total = sum(int(src.size) for _, src in runs)
        share = -(-total // threads)
        pieces: list[list[tuple[int, np.ndarray]]] = [[]]
        room = share
        for at, src in runs:
            while src.size:
                if room == 0:
                    pieces.append([])
                    room = share
                n = min(room, int(src.size))
                pieces[-1].append((at, src[:n]))
                at, src, room = at + n, src[n:], room - n
        workers = [
            threading.Thread(target=_copy_run, args=(view, p), name="dali-copy", daemon=True)
            for p in pieces[1:]
        ]
        for w in workers:
            w.start()
        try:
            _copy_run(view, pieces[0])
        finally:
            for w in workers:
                w.join()
        return
    _copy_run(view, runs)


def _copy_run(view: mmap.mmap, runs: list[tuple[int, np.ndarray]]) -> None:
    for at, src in runs:
        np.copyto(np.frombuffer(view, np.uint8, src.size, at), src)


@dataclass
class _Slot:
    view: mmap.mmap
    size: int
    generation: int
    fd: int | None  # until sent


def _parts(tl: Any) -> list[np.ndarray]:
    """The arrays of a CPU batch in sample order: the dense array, or its samples."""
    dense = tl.held_dense
    if dense is not None:
        return [dense]
    samples: list[np.ndarray] = tl.samples()
    return samples


class HostRing:
    """The side that writes: host slots that iterations' batches are copied into.

    Args:
        copy_threads: Threads that copy a large batch (8 MiB or more) into its slot together
            (one memory copy is several times faster on several cores); started for the
            copy and ended with it.
    """

    def __init__(self, copy_threads: int = 1) -> None:
        self._copy_threads = max(1, copy_threads)
        self._slots: list[_Slot] = []
        self._free: collections.deque[int] = collections.deque()
        self._lock = threading.Lock()

    def pack(self, outputs: list[Any]) -> HostPacked:
        """Copy the CPU batches ``outputs`` into a free slot and describe them."""
        return self._pack(
            [
                (
                    _parts(tl),
                    tl.held_dense is not None,
                    tl.np_dtype.str,
                    (tl.layout(), tl.source_infos, tl.sample_ndim),
                )
                for tl in outputs
            ]
        )

    def pack_arrays(self, arrays: list[np.ndarray]) -> HostPacked:
        """Copy plain numpy arrays into a free slot and describe them (`HostViews.unpack_arrays`)."""
        return self._pack([([a], True, a.dtype.str, None) for a in arrays])

    def _pack(self, items: list[tuple[list[np.ndarray], bool, str, Any]]) -> HostPacked:
        """Copy each item's arrays (one dense array, or its samples) into a free slot, each
        item at an aligned offset, and describe them."""
        placed = []
        total = 0
        for parts, dense, dtype, extra in items:
            placed.append((total, parts, dense, dtype, extra))
            total += _aligned(sum(int(a.nbytes) for a in parts))
        k = self._take(max(total, ALIGN))
        slot = self._slots[k]
        described = []
        copies: list[tuple[int, np.ndarray]] = []
        for offset, parts, dense, dtype, extra in placed:
            at = offset
            for a in parts:
                if a.nbytes:
                    copies.append((at, a))
                at += a.nbytes
            if not dense and parts and all(a.shape == parts[0].shape for a in parts):
                # samples of one shape lie back to back: one dense array on the other side
                dense = True
                shape: Any = (len(parts), *parts[0].shape)
            else:
                shape = tuple(parts[0].shape) if dense else [tuple(a.shape) for a in parts]
            described.append((offset, dtype, shape, dense, extra))
        _copy(slot.view, copies, self._copy_threads if total >= _PARALLEL_COPY else 1)
        return HostPacked(k, slot.generation, slot.size, slot.fd is not None, described)

    def sent(self, k: int) -> int | None:
        """The descriptor of slot ``k`` to send after the message, once (then closed here:
        the mapping stays); None when it was sent already."""
        slot = self._slots[k]
        fd, slot.fd = slot.fd, None
        return fd

    def _take(self, nbytes: int) -> int:
        with self._lock:
            k = self._free.popleft() if self._free else None
        if k is not None and self._slots[k].size >= nbytes:
            return k
        if k is None:
            k = len(self._slots)
            self._slots.append(_new_slot(nbytes, 0))
        else:  # too small: a larger one; the consumer's views keep the old memory
            old = self._slots[k]
            self._slots[k] = _new_slot(nbytes + nbytes // 4, old.generation + 1)
            _close(old)
        return k

    def release(self, k: int) -> None:
        """The consumer no longer reads slot ``k``."""
        with self._lock:
            self._free.append(k)

    def held_bytes(self) -> tuple[int, int]:
        """Bytes of the slots the consumer reads, and of every slot."""
        with self._lock:
            free = set(self._free)
            sizes = [s.size for s in self._slots]
        return sum(n for k, n in enumerate(sizes) if k not in free), sum(sizes)

    def close(self) -> None:
        for slot in self._slots:
            _close(slot)
        self._slots.clear()


def _new_slot(nbytes: int, generation: int) -> _Slot:
    size = -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE
    fd = os.memfd_create("dali-batch", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        view = mmap.mmap(fd, size)
    except BaseException:
        os.close(fd)
        raise
    return _Slot(view, size, generation, fd)


def _close(slot: _Slot) -> None:
    if slot.fd is not None:
        os.close(slot.fd)
        slot.fd = None
    try:
        slot.view.close()
    except BufferError:  # (an output still being copied; the process is ending)
        pass


class HostViews:
    """The consumer's side: each slot mapped once, outputs wrapped as numpy arrays on it."""

    def __init__(self) -> None:
        #: slot -> (generation, mapping)
        self._mapped: dict[int, tuple[int, mmap.mmap]] = {}
        #: slots whose iteration's arrays are all gone, oldest first (any thread appends)
        self._ended: collections.deque[int] = collections.deque()

    def map(self, packed: HostPacked, fd: int) -> None:
        """Map a new slot (or generation) from the descriptor the worker sent."""
        try:
            view = mmap.mmap(fd, packed.size)
        finally:
            os.close(fd)
        # (a replaced generation's mapping goes with the last view of it)
        self._mapped[packed.slot] = (packed.generation, view)

    def unpack(self, packed: HostPacked) -> list[Any]:
        """The outputs of `HostRing.pack` as TensorListCPU views of the slot."""
        from dali._tensors import TensorListCPU

        out = []
        for data, dtype, (layout, infos, ndim) in self._views(packed):
            out.append(TensorListCPU.wrap(data, layout, infos, dtype=dtype, ndim=ndim))
        return out

    def unpack_arrays(self, packed: HostPacked) -> list[np.ndarray]:
        """The arrays of `HostRing.pack_arrays`, as views of the slot."""
        return [data for data, _, _ in self._views(packed)]

    def unpack_stacked(self, packed: HostPacked) -> np.ndarray | None:
        """The arrays of `HostRing.pack_arrays` as one ``(n, *shape)`` view, when they have
        one shape and dtype and lie back to back (a batch of samples); else None."""
        items = packed.outputs
        if not items or any(not dense or extra is not None for _, _, _, dense, extra in items):
            return None
        first, dtype, shape = items[0][0], items[0][1], items[0][2]
        nbytes = math.prod(shape) * np.dtype(dtype).itemsize
        for k, (offset, dt, sh, _, _) in enumerate(items):
            if dt != dtype or sh != shape or offset != first + k * nbytes:
                return None
        generation, view = self._mapped[packed.slot]
        assert generation == packed.generation, "a slot's new generation came without its fd"
        owner: Any = (ctypes.c_char * packed.size).from_buffer(view)
        weakref.finalize(owner, self._ended.append, packed.slot)
        n = len(items)
        return np.frombuffer(owner, dtype, n * math.prod(shape), first).reshape(n, *shape)

    def _views(self, packed: HostPacked) -> list[tuple[Any, np.dtype[Any], Any]]:
        """Per item: its dense array or its samples, viewed on the slot; its dtype; its extra."""
        generation, view = self._mapped[packed.slot]
        assert generation == packed.generation, "a slot's new generation came without its fd"
        owner: Any = (ctypes.c_char * packed.size).from_buffer(view)
        weakref.finalize(owner, self._ended.append, packed.slot)
        out = []
        for offset, dtype, shape, dense, extra in packed.outputs:
            dt = np.dtype(dtype)
            if dense:
                data: Any = np.frombuffer(owner, dt, math.prod(shape), offset).reshape(shape)
            else:
                data, at = [], offset
                for s in shape:
                    n = math.prod(s)
                    data.append(np.frombuffer(owner, dt, n, at).reshape(s))
                    at += n * dt.itemsize
            out.append((data, dt, extra))
        return out

    def releases(self) -> list[tuple[Any, ...]]:
        """The slots to hand back now, as messages for the worker."""
        out = []
        while self._ended:
            out.append(("hrelease", self._ended.popleft()))
        return out

    def close(self) -> None:
        """Drop the mappings (the memory of outputs still held stays, with their views)."""
        self._mapped.clear()
