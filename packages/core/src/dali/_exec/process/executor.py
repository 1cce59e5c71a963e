"""`ProcessExecutor`: the consumer's side of a pipeline run by a worker process.

It has the interface of `dali._exec.executor.Executor` (`submit`, `get`, `in_flight`,
`taken`, `release`, `close`), so `Pipeline` schedules, checkpoints and restores as it does
in-process; `restored` passes a restore on to the worker, and `call` asks it for its memory
statistics or to release cached memory (the iterations' messages that come meanwhile wait
for `get`).

* **Start.** The worker is started with the first iteration (``python -m
  dali._exec.process.worker``, a fresh interpreter that imports nothing of the consumer's
  ``__main__``), given the `WorkerSpec`, and builds the plan; a build error there is raised by
  the first `get`.
* **Errors.** An operator error fails its iteration, raised by `get` as a `PipelineError` with
  the worker's message (operator, sample, file) and, where it pickles, the original error as
  ``__cause__``; the next `get` returns the next iteration. A worker that dies (killed, out of
  memory) fails `get` with a `WorkerDied` naming the pipeline's device and how the process
  ended, and every later call too.
* **Shutdown.** `close` asks the worker to stop, waits for it (`options.JOIN_TIMEOUT`), kills
  it if it does not, and unmaps the output buffers no output uses any more. A dropped pipeline
  is closed on the closing thread (`release`, `dali._exec.closer`), at interpreter exit too; a
  consumer that dies takes its workers with it (``PR_SET_PDEATHSIG`` and the socket's end).
* **Ctrl-C.** The worker ignores SIGINT; a `KeyboardInterrupt` in the consumer while `get`
  waits leaves the iteration in flight, as in-process.
"""

from __future__ import annotations

import collections
import os
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dali import _options as options
from dali._exec import closer as _closer
from dali._exec.affinity import usable_cores
from dali._exec.executor import IterationRequest, PipelineError
from dali._exec.process.buffers import OutputViews
from dali._exec.process.feed import share_fed
from dali._exec.process.shm import HostRing, recv_fd, send_fd
from dali._exec.profile import TRACE_ENV, worker_trace_path

if TYPE_CHECKING:
    from dali._exec.process.spec import WorkerSpec

__all__ = ["ProcessExecutor", "WorkerDied"]

#: At most this many threads copy a large batch of the sources into shared memory.
_COPY_THREADS = 4

#: Seconds between checks, while waiting for an iteration, that the worker is alive (and
#: between hand-backs of the ring slots whose readers finished).
_POLL = 0.005


class WorkerDied(RuntimeError):
    """The worker process of a pipeline ended while the pipeline was open."""


def _stop(
    proc: subprocess.Popen[bytes], conn: Connection, sock: socket.socket, timeout: float
) -> None:
    """Ask the worker to stop and close our end at once: a worker blocked sending outputs
    nobody reads any more (the socket full) gets an error instead of waiting, and stops too."""
    try:
        conn.send([("close",)])
    except (OSError, ValueError):
        pass
    conn.close()
    sock.close()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ProcessExecutor:
    """Runs a pipeline's iterations in a worker process (see the module doc).

    Args:
        spec: What the worker runs (`WorkerSpec.of(pipeline)`), already pickled
            (`dali._exec.process.spec.dump`, which says early when it cannot be).
        device_id: The GPU of the pipeline (None: a CPU pipeline), to map its outputs on.
        name: How errors call the pipeline.
        depth: The pipeline's iterations ahead; the executor keeps
            ``options.WORKER_EXTRA_DEPTH`` more in flight (`depth`): the one being handed over.
    """

    def __init__(self, spec: bytes, device_id: int | None, name: str, depth: int = 1) -> None:
        #: iterations to keep in flight
        self.depth = depth + options.WORKER_EXTRA_DEPTH
        self._spec = spec
        self._name = name
        self._views = OutputViews(device_id)
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._sock: socket.socket | None = None
        self._ready = False
        self._death: str | None = None
        #: the cursors of the iterations submitted and not yet taken, oldest first
        self._cursors: collections.deque[Any] = collections.deque()
        self._closed = False
        self._close_lock = threading.Lock()
        self._finalizer: Any = None
        #: messages for the worker, sent together by `_flush`, then the descriptors of the
        #: new host slots they use, in order
        self._outbox: list[tuple[Any, ...]] = []
        self._fds: list[int] = []
        #: the host slots the Python sources' batches cross in (`dali._exec.process.feed`)
        self._fed = HostRing(copy_threads=min(_COPY_THREADS, usable_cores()))
        #: the worker's messages that came while `call` waited for its reply, oldest first
        self._inbox: collections.deque[Any] = collections.deque()
        #: the samples each ``on_error="skip"`` operator of the worker skipped so far
        self.skipped: dict[str, int] = {}
        #: a GPU pipeline's CPU stage (`dali._exec.process.stage`): the sample identities of
        #: the outputs `get` returned last (`IterationRequest.metas`), else None
        self.metas: Any = None
        self.taken: tuple[Any, dict[str, Any]] | None = None
        _closer.track(self)

    @classmethod
    def for_spec(cls, spec: WorkerSpec, name: str) -> ProcessExecutor:
        from dali._exec.process.spec import dump

        return cls(dump(spec), spec.info.device_id, name, spec.info.iterations_ahead)

    # -- the worker ----------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The worker's process id (None before the first iteration)."""
        return None if self._proc is None else self._proc.pid

    def _start(self) -> None:
        """Start the worker (once) and send it the spec."""
        if self._conn is not None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # `-m` must find this package before the consumer's sys.path arrives
        core = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [core, env.get("PYTHONPATH")]))
        if env.get(TRACE_ENV):  # a trace file of its own
            env[TRACE_ENV] = worker_trace_path(env[TRACE_ENV])
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "dali._exec.process.worker", str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                close_fds=True,
                env=env,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        conn = Connection(ours.detach())
        # the socket again, for the host slots' descriptors (`shm.recv_fd`)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(conn.fileno()))
        self._proc, self._conn, self._sock = proc, conn, sock
        self._finalizer = weakref.finalize(self, _stop, proc, conn, sock, options.JOIN_TIMEOUT)
        conn.send(list(sys.path))
        conn.send_bytes(self._spec)

    def _died(self) -> WorkerDied:
        if self._death is None:
            assert self._proc is not None
            try:
                code = self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            if code is None:
                how = "stopped answering"
            elif code < 0:
                how = f"was killed by signal {-code}"
            else:
                how = f"exited with code {code}"
            self._death = (
                f"The worker process of {self._name} (pid {self._proc.pid}) {how}; the "
                f"iterations in flight are lost. Close the pipeline (or the iterator) and make "
                f"a new one, or restore a checkpoint."
            )
        return WorkerDied(self._death)

    def _receive(self) -> Any:
        """The worker's next message, handing back finished slots while waiting."""
        conn = self._conn
        assert conn is not None and self._proc is not None
        while True:
            self._hand_back()
            self._flush()
            try:
                if conn.poll(_POLL):
                    message = conn.recv()
                    if message[0] == "fed":  # the worker no longer reads these slots
                        for k in message[1]:
                            self._fed.release(k)
                        continue
                    if message[0] == "batch" and message[1].host is not None:
                        host = message[1].host
                        if host.new:  # its slot's descriptor follows
                            assert self._sock is not None
                            self._views.host.map(host, recv_fd(self._sock))
                    return message
            except (EOFError, OSError) as e:
                raise self._died() from e
            if self._proc.poll() is not None and not conn.poll(0):
                raise self._died()

    def _next(self) -> Any:
        """The worker's next message about an iteration (or its start)."""
        while True:
            message = self._inbox.popleft() if self._inbox else self._receive()
            if message[0] != "reply":  # (one whose `call` was interrupted)
                return message

    def _hand_back(self) -> None:
        self._outbox += self._views.releases()

    def _flush(self) -> None:
        """Send the queued messages, as one list (one wake-up of the worker)."""
        if not self._outbox:
            return
        assert self._conn is not None and self._sock is not None
        messages, self._outbox = self._outbox, []
        fds, self._fds = self._fds, []
        try:
            self._conn.send(messages)
            for fd in fds:
                send_fd(self._sock, fd)
        except (OSError, ValueError) as e:
            raise self._died() from e
        finally:
            for fd in fds:
                os.close(fd)

    # -- the Executor interface --------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        return len(self._cursors)

    def submit(self, req: IterationRequest) -> None:
        if self._closed:
            raise RuntimeError("the pipeline was closed")
        if self._death is not None:
            raise WorkerDied(self._death)
        self._start()
        self._hand_back()
        req, shared = share_fed(req, self._fed)
        if shared is not None and (fd := self._fed.sent(shared.slot)) is not None:
            self._fds.append(fd)
        self._outbox.append(("submit", req, shared))
        self._flush()
        self._cursors.append(req.cursor)

    def get(self) -> tuple[Any, ...]:
        """The outputs of the oldest iteration in flight (see `Executor.get`).

        Raises:
            PipelineError: The iteration failed (consumed).
            WorkerDied: The worker process is gone.
            RuntimeError: Nothing is in flight, or the pipeline was closed.
        """
        if not self._cursors:
            raise RuntimeError("No iteration was scheduled.")
        if self._closed:
            raise RuntimeError("the pipeline was closed")
        if self._death is not None:
            raise WorkerDied(self._death)
        if not self._ready:
            first = self._next()
            if first[0] == "failed":
                self._death = f"The worker process of {self._name} could not start: {first[1]}"
                error = WorkerDied(self._death)
                raise error from _cause(first[2])
            self._ready = True
        message = self._next()
        cursor = self._cursors.popleft()
        if message[0] == "error":
            _, text, cause, states = message
            self.taken = cursor, states
            raise PipelineError(text) from _cause(cause)
        _, packed, states, self.skipped, self.metas = message
        self.taken = cursor, states
        out, notes = self._views.unpack(packed)
        self._outbox += notes  # sent with the next request
        return tuple(out)

    def call(self, name: str) -> Any:
        """Run the worker's ``name`` (``"memory_stats"``, ``"release_memory"``) and return
        what it returns; None before the worker started, after close, or when it could not
        start (the next `get` raises that).

        Raises:
            WorkerDied: The worker process is gone.
            RuntimeError: The call failed in the worker (its message).
        """
        if self._closed or self._conn is None:
            return None
        if self._death is not None:
            raise WorkerDied(self._death)
        self._outbox.append(("call", name))
        self._flush()
        while True:
            message = self._receive()
            if message[0] == "reply":
                _, result, error = message
                if error is not None:
                    raise RuntimeError(f"{name} in the worker process of {self._name}: {error}")
                return result
            self._inbox.append(message)  # an iteration's, for `get`
            if message[0] == "failed":
                return None

    def restored(self, seed: int, states: dict[str, Any]) -> None:
        """The pipeline was restored (nothing in flight): the worker takes the same state."""
        if self._conn is not None and self._death is None:
            self._outbox.append(("restore", seed, states))
            self._flush()

    def release(self) -> None:
        """A dropped pipeline's finalizer: close on the closing thread (never blocks)."""
        _closer.defer(self.close)

    def close(self) -> None:
        """Stop the worker (waits for it; kills it after `options.JOIN_TIMEOUT`); idempotent."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        if self._finalizer is not None:
            self._finalizer()
        self._views.close()
        self._fed.close()


def _cause(pickled: bytes | None) -> BaseException | None:
    if pickled is None:
        return None
    import pickle

    try:
        cause = pickle.loads(pickled)
    except Exception:  # noqa: BLE001 - the message is still there
        return None
    return cause if isinstance(cause, BaseException) else None
