"""The worker process of a pipeline: ``python -m dali._exec.process.worker FD``.

``FD`` is one end of a Unix socket pair; messages are pickles framed by
`multiprocessing.connection.Connection`. The consumer (`ProcessExecutor`) sends first its
``sys.path`` (so that the modules its graph names import here as they do there), then the
`WorkerSpec`; the worker builds the plan, restores the operators' states and answers
``("ready", pid)`` or ``("failed", message)``. Then:

========================  ===================================================================
consumer -> worker        what it does
========================  ===================================================================
``("submit", req, fed)``  run one iteration (`IterationRequest`); ``fed``: the host slot its
                          sources' batches are in (`feed`), its descriptor following the
                          list when new, or None
``("release", k)``        the consumer no longer reads ring slot ``k``
``("hrelease", k)``       the consumer no longer reads host slot ``k`` (`shm`)
``("unmapped", k, g)``    the consumer unmapped generation ``g`` of slot ``k``: free it
``("restore", seed, s)``  reseed and set the operators' states (nothing is in flight)
``("call", name)``        answer ``("reply", result, error)``: `CALLS` (memory statistics,
                          releasing cached memory), on the receiving thread
``("close",)``            stop; the end of the socket means the same
========================  ===================================================================

The consumer sends a list of such messages at a time (slots handed back with the next
request). The worker answers each iteration, in order, with ``("batch", packed, states,
skipped, metas)`` (`Packed` outputs; the operators' states after it, for checkpoints; the
samples skipped so far by operator; for a GPU pipeline's CPU stage, its outputs' sample
identities, else None; a new host slot's descriptor follows the message, `shm.send_fd`)
or ``("error", message, cause, states)``, preceded by ``("fed", slots)`` when the sources'
slots of finished iterations can be written again (`feed`), sent by the executor's
last stage as the iteration finishes (`Executor`'s ``deliver``; the copies, the event and the
send keep the GIL: `held`). It ignores SIGINT (a Ctrl-C in the terminal reaches the consumer,
which closes it) and is killed by the kernel if the consumer dies (``PR_SET_PDEATHSIG``); its
socket's end ends it too.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pickle
import signal
import socket
import struct
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["main"]

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Have the kernel kill this process when the process that started it dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the socket's end still stops it
        pass


def describe(error: BaseException) -> tuple[str, bytes | None]:
    """An error as (message, the pickled cause or None) for the consumer."""
    cause = error.__cause__ if error.__cause__ is not None else error
    pickled: bytes | None
    try:
        data = pickle.dumps(cause)
        pickle.loads(data)  # some errors pickle but do not load back
        pickled = data
    except Exception:  # noqa: BLE001 - the message still names operator and sample
        pickled = None
    return str(error) or f"{type(error).__name__}", pickled


class _Worker:
    def __init__(self, spec: Any, conn: Connection) -> None:
        from dali._exec.affinity import pipeline_cores
        from dali._exec.device import CudaContext
        from dali._exec.executor import Executor
        from dali._exec.process.buffers import OutputRing
        from dali._exec.process.shm import HostRing, HostViews
        from dali._graph.build import build_plan

        self.conn = conn
        if spec.pooled:
            from dali import _options as options

            # one of many workers, each making whole batches: no read workers of its own
            options.READ_WORKER = False
        info = spec.info
        cuda = None
        if info.device_id is not None:
            cuda = CudaContext(
                info.device_id,
                device_memory_limit=info.device_memory_limit,
                pinned_memory_limit=info.pinned_memory_limit,
            )
        info = dataclasses.replace(info, cuda=cuda)
        plan = build_plan(spec.outputs, spec.ops, pipeline_info=info, seed=info.seed)
        self.plan = plan
        #: a GPU pipeline's CPU stage (`dali._exec.process.stage`): its requests name the
        #: planned readers and the fed sources by operator name (this plan is not theirs)
        self.index: dict[str, int] | None = None
        if spec.stage:
            self.index = {s.node.name: i for i, s in enumerate(plan.steps)}
        self.restore(info.seed, spec.states, reseed=False)
        cuda = cuda if plan.uses_gpu else None
        self.cuda = cuda
        self.ring = OutputRing(cuda)
        self.host = HostRing()
        #: the slots the consumer puts the sources' batches in (`feed`)
        self.fed = HostViews()
        #: the socket again, for the shared-memory slots' descriptors (`shm.send_fd`)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(conn.fileno()))
        self.send_lock = threading.Lock()
        self.executor = Executor(
            plan,
            num_threads=info.num_threads or 1,
            asynchronous=True,
            cuda=cuda,
            affinity=pipeline_cores(info, plan.uses_gpu),
            deliver=self.deliver,
            stage_queue=info.prefetch_queue_depth,
        )

    def restore(self, seed: int, states: dict[str, Any], *, reseed: bool = True) -> None:
        if reseed:
            from dali._graph.build import reseed as reseed_plan

            reseed_plan(self.plan, seed)
        for step in self.plan.steps:
            if step.stateful and step.node.name in states:
                step.impl.set_state(states[step.node.name])

    def send(self, message: Any, fd: int | None = None) -> None:
        """Send one message the way `Connection.recv` reads it (a 4-byte big-endian length,
        then the pickle), without giving up the GIL where the socket takes it at once; then
        the descriptor ``fd``, if any (`shm.send_fd`: the consumer reads it right after)."""
        from dali._exec import held
        from dali._exec.process.shm import send_fd

        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        frame = struct.pack("!i", len(data)) + data
        with self.send_lock:
            fileno = self.conn.fileno()
            sent = held.send(fileno, frame)
            view = memoryview(frame)[sent:]
            while view:
                view = view[os.write(fileno, view) :]
            if fd is not None:
                try:
                    send_fd(self.sock, fd)
                finally:
                    os.close(fd)

    def skipped(self) -> dict[str, int]:
        """How many samples each ``on_error="skip"`` operator dropped so far."""
        return {
            s.node.name: n for s in self.plan.steps if (n := s.impl.skipped_samples()) is not None
        }

    def memory_stats(self) -> dict[str, Any] | None:
        """`Pipeline.memory_stats` of this process: the pools, and the output ring's buffers
        (in use: those the consumer still reads); None for a CPU pipeline."""
        if self.cuda is None:
            return None
        stats = self.cuda.memory_stats()
        used, total = self.ring.held_bytes()
        stats["device_used_bytes"] = (stats["device_used_bytes"] or 0) + used
        stats["device_total_bytes"] = (stats["device_total_bytes"] or 0) + total
        return stats

    def release_memory(self) -> None:
        """`Pipeline.release_memory` here: the pools' cached blocks (the ring's buffers stay,
        every batch reuses them)."""
        if self.cuda is not None:
            self.cuda.release_memory()

    def call(self, name: str) -> None:
        """Answer the consumer's ``("call", name)`` with ``("reply", result, error)``."""
        result, error = None, None
        try:
            result = CALLS[name](self)
        except Exception as e:  # noqa: BLE001 - raised in the consumer
            error = describe(e)[0]
        self.send(("reply", result, error))

    def deliver(self, req: Any, out: tuple[Any, ...] | None, error: BaseException | None) -> None:
        """A finished iteration, on the executor's last stage thread: its outputs copied into
        the ring and described, or its error, sent in order (after the sources' slots that
        are free again, its own among them unless a source's batch is an output)."""
        states = req.states
        try:
            message: tuple[Any, ...]
            fd = None
            if error is not None:
                message = ("error", *describe(error), states)
            else:
                assert out is not None
                try:
                    packed = self.ring.pack(out, self.host)
                except Exception as e:  # noqa: BLE001 - e.g. out of device memory for the ring
                    message = ("error", *describe(e), states)
                else:
                    fd = None if packed.host is None else self.host.sent(packed.host.slot)
                    message = ("batch", packed, states, self.skipped(), req.metas)
            req.fed = {}  # (the batches' last reference, as a rule: their slot is free now)
            freed = [k for _, k in self.fed.releases()]
            if freed:
                self.send(("fed", freed))
            self.send(message, fd)
        except OSError:  # the consumer is gone; the main thread sees the socket's end
            pass

    def submit(self, req: Any, fed: Any) -> None:
        """Run an iteration, its sources' batches taken from their host slot (`feed`)."""
        if fed is not None:
            from dali._exec.process.feed import unshare_fed
            from dali._exec.process.shm import recv_fd

            if fed.new:  # its descriptor follows the messages
                self.fed.map(fed, recv_fd(self.sock))
            req = unshare_fed(req, fed, self.fed)
        if self.index is not None:
            index = self.index
            req = dataclasses.replace(
                req,
                planned={index[name]: v for name, v in req.planned.items()},
                fed={index[name]: v for name, v in req.fed.items()},
            )
        self.executor.submit(req)

    def serve(self) -> None:
        try:
            while True:
                try:
                    messages = self.conn.recv()
                except (EOFError, OSError):
                    return
                for message in messages:
                    kind = message[0]
                    if kind == "submit":
                        self.submit(message[1], message[2])
                    elif kind == "release":
                        self.ring.release(message[1])
                    elif kind == "hrelease":
                        self.host.release(message[1])
                    elif kind == "unmapped":
                        self.ring.unmapped(message[1], message[2])
                    elif kind == "restore":
                        self.restore(message[1], message[2])
                    elif kind == "call":
                        self.call(message[1])
                    elif kind == "close":
                        return
        finally:
            self.executor.close()
            self.ring.close()
            self.host.close()
            self.fed.close()
            self.sock.close()


#: what the consumer may ``("call", name)``: `ProcessExecutor.call`
CALLS = {"memory_stats": _Worker.memory_stats, "release_memory": _Worker.release_memory}


def main(fd: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    conn = Connection(fd)
    try:
        sys.path[:] = conn.recv()
        from dali._exec.process.spec import load

        spec = load(conn.recv_bytes())
        worker = _Worker(spec, conn)
    except BaseException as e:  # noqa: BLE001 - reported to the consumer, which raises it
        message, cause = describe(e)
        try:
            conn.send(("failed", message, cause))
        finally:
            conn.close()
        return
    conn.send(("ready", os.getpid()))
    worker.serve()
    conn.close()


if __name__ == "__main__":
    main(int(sys.argv[1]))
