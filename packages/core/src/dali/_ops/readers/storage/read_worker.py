"""A worker process that reads `fn.readers.file`'s files, so that reading takes no GIL time.

Reading a cached file is a few system calls; each releases the GIL and must take it back. In a
GPU pipeline other Python threads (the decoders' planning, the GPU stage) hold the GIL for up to
Python's switch interval at a time, so every re-take can wait that long, and reading took
several times its CPU time. Holding the GIL for the calls instead (``ctypes.PyDLL``) avoids the
waits but makes every other thread wait for each file (``benchmarks/RESULTS.md``, "Reading in
worker processes").

So the reader hands each batch's paths to a process of its own (`ReadWorker`, running the
standard-library script `_read_worker_main`): it copies the files, in the kernel, into one new
anonymous memory file per batch and passes its descriptor back over a Unix socket. This process
maps it once (the memory file is its alone: the samples are writable and never shared with
anyone) and cuts the samples out of the mapping, which lives until the last of them is freed.
Per batch this process makes one request, one reply and one mapping.

The replies are received and mapped by threads of `ReadWorkers` ("dali-read", one per worker
process, so that the mappings are populated in parallel) as soon as they arrive, not by the
thread that asks for the batch: receiving and mapping a batch is a dozen system calls (and
populating the mappings, kernel time), each a GIL re-take that can wait up to the switch
interval, and in the asking thread they made the pipeline's CPU stage the slowest stage
(``benchmarks/RESULTS.md``, "Reading in worker processes"). With the threads, a batch asked for
ahead is ready when it is wanted.

Files of ``map_min_bytes`` or more are left to the caller, which maps them itself, and errors
come back per file (errno and message), raised by the reader as before. Linux only (memory files
and descriptor passing): `supported` says whether this platform has what it needs.
"""

from __future__ import annotations

import collections
import os
import pickle
import queue
import socket
import struct
import subprocess
import sys
import threading
import weakref
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from dali._ops.readers.storage.mapping import LIBC, map_memory
from dali._ops.readers.storage.read_worker_main import ALIGN

__all__ = ["ReadWorker", "ReadWorkers", "WorkerDied", "supported"]

_LEN = struct.Struct("<Q")
#: What a worker answers for its part of a request (`ReadWorker.receive_part`).
_Part = tuple[list[Any], np.ndarray | None]
_SCRIPT = str(Path(__file__).with_name("read_worker_main.py"))


class WorkerDied(RuntimeError):
    """The worker process exited or its socket broke."""


def supported() -> bool:
    """Whether this platform can run the worker (memory files, descriptor passing, mmap)."""
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "memfd_create")
        and hasattr(socket, "send_fds")
        and bool(sys.executable)
        and LIBC is not None
    )


class ReadWorkers:
    """Several `ReadWorker` processes that read a batch together, each a contiguous part.

    Their replies are received (and mapped) by daemon threads of this object, one per worker,
    started on the first request, so that `receive` only waits for a batch not yet there.
    """

    def __init__(self, count: int) -> None:
        self._workers: list[ReadWorker] = []
        try:
            for _ in range(max(1, count)):
                self._workers.append(ReadWorker())
        except BaseException:
            self.close()
            raise
        self._lock = threading.Lock()
        # per request, the future of each worker's part
        self._pending: collections.deque[list[Future[_Part]]] = collections.deque()
        self._jobs: list[queue.SimpleQueue[Any]] = [queue.SimpleQueue() for _ in self._workers]
        self._receivers: list[threading.Thread] = []
        # the threads hold their queues, not this object: collecting this object ends them
        weakref.finalize(self, _end_receivers, self._jobs)

    def __len__(self) -> int:
        return len(self._workers)

    def send(self, paths: list[str], map_min_bytes: int | None, heads: bool = False) -> None:
        """Ask for the files ``paths`` (the answer: `receive`, in order of the requests).

        The workers start at once, so a request sent ahead is read meanwhile, and received as
        soon as it is there. With ``heads``, they also walk each file's JPEG header
        (`receive_batch`).
        """
        n, k = len(paths), min(len(self._workers), max(1, len(paths)))
        parts = [paths[n * i // k : n * (i + 1) // k] for i in range(k)]
        with self._lock:
            try:
                for worker, part in zip(self._workers, parts):
                    worker.send(part, map_min_bytes, heads)
            except WorkerDied:
                self.close()
                raise
            if not self._receivers:
                for jobs in self._jobs:
                    thread = threading.Thread(
                        target=_receive_loop, args=(jobs,), name="dali-read", daemon=True
                    )
                    thread.start()
                    self._receivers.append(thread)
            answers: list[Future[_Part]] = []
            for worker, part, jobs in zip(self._workers, parts, self._jobs):
                answers.append(Future())
                jobs.put((worker, part, answers[-1]))
            self._pending.append(answers)

    def receive(self) -> list[np.ndarray | OSError | None]:
        """The files of the oldest request not yet received, as `ReadWorker.receive` gives
        them, in order."""
        return self.receive_batch()[0]

    def receive_batch(self) -> tuple[list[np.ndarray | OSError | None], np.ndarray | None]:
        """`receive`, and the files' header rows when the request asked for them (an
        ``(n, 1 + len(ROW_FIELDS))`` int64 array, see `ReadWorker.receive_part`), else None."""
        with self._lock:
            answers = self._pending.popleft()
        out: list[np.ndarray | OSError | None] = []
        rows: list[np.ndarray | None] = []
        try:
            for answer in answers:
                part, part_rows = answer.result()
                out.extend(part)
                rows.append(part_rows)
        except WorkerDied:
            self.close()  # the others' answers are never read: stop them all
            raise
        present = [r for r in rows if r is not None]
        if not rows or len(present) < len(rows):
            return out, None
        return out, present[0] if len(present) == 1 else np.concatenate(present)

    def read(
        self, paths: list[str], map_min_bytes: int | None, heads: bool = False
    ) -> tuple[list[np.ndarray | OSError | None], np.ndarray | None]:
        """`send` then `receive_batch` (no request may be pending)."""
        self.send(paths, map_min_bytes, heads)
        return self.receive_batch()

    def wait_pending(self, timeout: float | None = None) -> None:
        """Wait until every request sent has been received and mapped (tests)."""
        for answers in list(self._pending):
            for answer in answers:
                answer.exception(timeout)

    @property
    def pending(self) -> int:
        """Requests sent and not yet received."""
        return len(self._pending)

    def close(self) -> None:
        for worker in self._workers:
            worker.close()
        _end_receivers(self._jobs)


def _end_receivers(jobs: list[queue.SimpleQueue[Any]]) -> None:
    for q in jobs:
        q.put(None)


def _receive_loop(jobs: queue.SimpleQueue[Any]) -> None:
    """A receiving thread: each job is one worker, the paths it was asked for and the future
    of its samples. Ends at None (the `ReadWorkers` closed or collected)."""
    while True:
        job = jobs.get()
        if job is None:
            return
        _answer(*job)
        del job  # no worker stays referenced while waiting for the next job


def _answer(worker: ReadWorker, part: list[str], answer: Future[_Part]) -> None:
    try:
        out = worker.receive_part(part)
    except BaseException as e:  # noqa: BLE001 - handed to the caller of `receive`
        answer.set_exception(e)
    else:
        answer.set_result(out)


def _stop(proc: subprocess.Popen[bytes], sock: socket.socket) -> None:
    """Close the socket and end the worker (it has nothing to clean up: its memory files go
    with their last descriptor). Terminated, not left to see the end of the socket: a process
    forked from this one meanwhile holds a copy of the socket, which would keep it open."""
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread waiting in a receive on it
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ReadWorker:
    """One worker process and its socket: `send` a request, then `receive` its answer.

    The process is started here and stopped by `close`, or when this object is collected.
    """

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", _SCRIPT, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                close_fds=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._sock = ours
        #: why the process was lost, as first seen (None: alive, or closed by us)
        self._death: str | None = None
        self._finalizer = weakref.finalize(self, _stop, self._proc, ours)

    def close(self) -> None:
        self._finalizer()

    def _died(self, why: str) -> WorkerDied:
        try:  # its socket broke: the process is ending, its exit code says why
            code: int | None = self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        state = "is gone" if code is None else f"exited with code {code}"
        error = WorkerDied(f"the file-reading worker process {state} ({why})")
        if self._death is None:  # the first to see it (a receiving thread, or a send)
            self._death = str(error)
        self.close()
        return error

    def send(self, paths: list[str], map_min_bytes: int | None, heads: bool = False) -> None:
        """Ask for ``paths`` (the answer: `receive`). One request at a time per worker.
        With ``heads``, the worker also walks each file's JPEG header (`receive_part`)."""
        request = pickle.dumps((paths, map_min_bytes, heads), protocol=pickle.HIGHEST_PROTOCOL)
        if not self._finalizer.alive:
            raise WorkerDied(self._death or "the file-reading worker process was closed")
        try:
            self._sock.sendall(_LEN.pack(len(request)) + request)
        except OSError as e:
            raise self._died(str(e)) from e

    def receive(self, paths: list[str]) -> list[np.ndarray | OSError | None]:
        """Each file of the last `send` as a new 1-D uint8 array (views of one mapping).

        None for regular files of ``map_min_bytes`` or more (the caller maps them itself);
        an `OSError` (with the path) for a file that could not be read.

        Raises:
            WorkerDied: The worker is gone (killed, or closed).
        """
        return self.receive_part(paths)[0]

    def receive_part(self, paths: list[str]) -> tuple[list[Any], np.ndarray | None]:
        """`receive`, and the header rows when the request asked for them: per file, 1 then
        `dali._ops.decoders.headers.jpeg_walk.ROW_FIELDS` (walked by the worker) for a file it read,
        0 then zeros for the others, as an ``(n, 1 + len(ROW_FIELDS))`` int64 array; else None.
        """
        try:
            entries, packed_rows, mem = self._reply()
        except OSError as e:
            raise self._died(str(e)) from e
        try:
            samples = self._samples(paths, entries, mem)
        finally:
            if mem is not None:
                os.close(mem)
        rows = None
        if packed_rows is not None:
            rows = np.frombuffer(packed_rows, dtype="<i8").reshape(len(paths), -1)
        return samples, rows

    def _reply(self) -> tuple[list[Any], bytes | None, int | None]:
        sock = self._sock
        head, fds, _, _ = socket.recv_fds(sock, 1 << 16, 1)
        mem = fds[0] if fds else None
        try:
            while len(head) < _LEN.size:
                more = sock.recv(1 << 16)
                if not more:
                    raise self._died("end of file")
                head += more
            size = _LEN.unpack_from(head)[0]
            body = [head[_LEN.size :]]
            got = len(body[0])
            while got < size:
                more = sock.recv(max(1 << 16, size - got))
                if not more:
                    raise self._died("end of file")
                body.append(more)
                got += len(more)
            entries, rows = pickle.loads(b"".join(body))  # our own worker's reply
        except BaseException:
            if mem is not None:
                os.close(mem)
            raise
        return entries, rows, mem

    @staticmethod
    def _samples(paths: list[str], entries: list[Any], mem: int | None) -> list[Any]:
        # where each file's bytes start in the memory file (laid out by `read_batch`)
        spans: list[tuple[int, int] | None] = []
        end = 0
        for e in entries:
            if type(e) is int:
                start = -(-end // ALIGN) * ALIGN
                end = start + e
                spans.append((start, end))
            else:
                spans.append(None)
        flat = map_memory(mem, end) if mem is not None and end else None
        out: list[Any] = []
        for path, e, span in zip(paths, entries, spans):
            if span is not None and e:
                assert flat is not None  # the worker copied this file's bytes into `mem`
                out.append(flat[span[0] : span[1]])
            elif span is not None:
                out.append(np.empty(0, dtype=np.uint8))
            elif e is None:
                out.append(None)
            else:
                out.append(OSError(e[0], e[1], path))
        return out
