"""Worker processes for parallel external sources (``parallel=True``).

All parallel sources of one pipeline share one `WorkerPool` of ``py_num_workers`` processes,
started with the pipeline's ``py_start_method`` (``"fork"`` or ``"spawn"``):

* a per-sample callback (``batch=False``) has each batch split into contiguous slices of
  samples, as many as it takes to keep every worker busy with the batches in flight (one,
  when there are as many batches in flight as workers: the batch then comes back as one
  array), the slices of successive batches going round the workers;
* a batch callback sends each batch, whole, to the least busy worker, so that with a
  ``prefetch_queue_depth`` above 1 several batches are computed at once;
* an iterable or a generator function has state, so it lives in one dedicated worker that calls
  ``next`` in the order the batches were asked for.

Tasks travel through pipes; results through shared memory: a worker copies the arrays a
callback returned into a slot of its ring (`dali._exec.process.shm`, the descriptor passed
once over its socket) and sends their description, and the pipeline's process wraps them as
numpy arrays on the slot, without a copy, handing the slot back when the last of them is
dropped. (A result that is not plain numpy arrays is pickled.) Every task has an id; results
are put back together in task order, so the data never depends on which worker finished
first. A task carries the epoch it was scheduled in: a worker restarts an exhausted iterable
(``cycle="raise"``) when it sees a task of a later epoch, and the main process drops the results
of tasks scheduled before `Pipeline.reset`.

A failure in a worker comes back as the worker's traceback text and is raised in the pipeline's
thread. A worker that dies (a crash, SIGKILL) is noticed at once through its process sentinel.
A worker that stops answering (a callback stuck for ever, a stopped process) is noticed only by
a source's ``timeout`` (`SourceSpec.timeout`; None: wait for ever, as DALI does): the waiting
`WorkerPool.receive` raises `WorkerTimeout` naming the worker and its pid, kills that worker and
closes the pool. Either way the pool is then unusable and says why. Closing the pool (or
dropping it) stops every process, a stopped one too (SIGKILL after a grace period); a worker
whose parent died exits on its own.

Example:
    >>> pool = WorkerPool(num_workers=2, start_method="fork")
    >>> ctx = pool.register(SourceSpec(source=lambda i: [i], kind="callable", batch=True))
    >>> task = pool.schedule(ctx, epoch=0, parts=[(7,)])
    >>> pool.receive(ctx, task)
    [array([7])]
    >>> pool.close()
"""

from __future__ import annotations

import functools
import inspect
import multiprocessing
import os
import pickle
import signal
import socket
import time
import traceback
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from dali._exec.process.shm import HostViews, recv_fd

__all__ = ["SourceSpec", "WorkerError", "WorkerPool", "WorkerTimeout", "is_generator_function"]

_OK, _STOP, _ERROR = 0, 1, 2


class WorkerError(RuntimeError):
    """A source callback failed in a worker process; the message holds the worker's traceback."""


class WorkerTimeout(WorkerError, TimeoutError):
    """A worker gave no result within its source's ``timeout``; the pool was closed."""


@dataclass
class SourceSpec:
    """What a worker needs to run one parallel source (pickled for ``"spawn"``).

    Attributes:
        source: The callable, iterable or generator function the user gave.
        kind: ``"callable"``, ``"iterable"`` or ``"genfunc"``.
        batch: Whether the source produces whole batches (else one sample per call).
        cycle: ``None``, ``"quiet"`` or ``"raise"`` (iterables and generator functions).
        num_outputs: The number of outputs, or None for a single-output source.
        name: The operator's name, for messages.
        timeout: Seconds `WorkerPool.receive` waits for a batch of this source before it gives
            up on the workers computing it (None: for ever).
    """

    source: Any
    kind: str
    batch: bool = True
    cycle: str | None = None
    num_outputs: int | None = None
    name: str = ""
    timeout: float | None = None

    @property
    def stateful(self) -> bool:
        return self.kind != "callable"


def is_generator_function(x: Any, _depth: int = 0) -> bool:
    """Whether ``x`` is a generator function (or a partial of / an object calling one)."""
    if inspect.isgeneratorfunction(x):
        return True
    if isinstance(x, functools.partial):
        return is_generator_function(x.func, _depth + 1)
    if x is None or inspect.isfunction(x) or inspect.ismethod(x) or inspect.isbuiltin(x):
        return False
    call = getattr(x, "__call__", None)  # noqa: B004 - the bound method, not callable()
    # Builtin wrappers have a `__call__` that is a new wrapper every time: stop after a few.
    if call is None or call is x or _depth > 3:
        return False
    return is_generator_function(call, _depth + 1)


# --------------------------------------------------------------------------------------------
# The worker process
# --------------------------------------------------------------------------------------------


def _to_host(value: Any, spec: SourceSpec, batch: bool) -> Any:
    """Callback output as numpy, so that it pickles compactly and needs no framework to load."""
    from dali._ops.python._convert import host_array, host_batch

    convert = host_batch if batch else host_array
    if spec.num_outputs is None:
        return convert(value)
    if isinstance(value, (tuple, list)) and len(value) == spec.num_outputs:
        return tuple(convert(v) for v in value)
    return value  # wrong structure: the main process reports it with the operator's name


class _IterableRunner:
    """Runs an iterable or generator function, applying the ``cycle`` policy across epochs."""

    def __init__(self, spec: SourceSpec) -> None:
        self.spec = spec
        self.it: Any = None
        self.epoch = -1
        self.exhausted = False

    def _new_iter(self) -> Any:
        source = self.spec.source
        return iter(source() if is_generator_function(source) else source)

    def __call__(self, epoch: int, payload: Any) -> Any:
        if self.it is None:
            self.it, self.epoch = self._new_iter(), epoch
        elif self.exhausted:
            if self.spec.cycle == "raise" and epoch > self.epoch:
                self.it, self.epoch, self.exhausted = self._new_iter(), epoch, False
            else:
                raise StopIteration
        try:
            value = next(self.it)
        except StopIteration:
            self.exhausted = True
            if self.spec.cycle != "quiet":
                raise
            self.it = self._new_iter()
            value = next(self.it)
            self.exhausted = False
        return _to_host(value, self.spec, batch=True)


class _CallableRunner:
    def __init__(self, spec: SourceSpec) -> None:
        self.spec = spec

    def __call__(self, epoch: int, payload: Any) -> Any:
        fn = self.spec.source
        if self.spec.batch:
            return _to_host(fn(*payload), self.spec, batch=True)
        return [_to_host(fn(info), self.spec, batch=False) for info in payload]


def _error_payload(e: BaseException) -> tuple[bytes | None, str, str]:
    tb = traceback.format_exc()
    try:
        pickled: bytes | None = pickle.dumps(e)
    except Exception:  # noqa: BLE001 - the traceback text is enough
        pickled = None
    return pickled, f"{type(e).__name__}: {e}", tb


@dataclass
class _Shared:
    """A result whose arrays are in a shared-memory slot: ``tree`` is the result with every
    array replaced by its index in ``packed``'s outputs."""

    tree: Any
    packed: Any


def _flatten(value: Any, arrays: list[Any]) -> Any:
    """``value`` with its numpy arrays (in lists and tuples) replaced by their index."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        arrays.append(value)
        return len(arrays) - 1
    if isinstance(value, (list, tuple)):
        return type(value)(_flatten(v, arrays) for v in value)
    raise TypeError("not plain arrays")  # pickled as it is


def _unflatten(tree: Any, arrays: list[Any]) -> Any:
    if isinstance(tree, int):
        return arrays[tree]
    return type(tree)(_unflatten(t, arrays) for t in tree)


def _shared(value: Any, ring: Any) -> Any:
    """``value`` (a callback's numpy result) copied into ``ring``: a `_Shared`, or ``value``
    itself when it is not only numpy arrays (then it is pickled)."""
    arrays: list[Any] = []
    try:
        tree = _flatten(value, arrays)
    except TypeError:
        return value
    return _Shared(tree, ring.pack_arrays(arrays))


def _worker_main(
    worker_id: int,
    specs: dict[int, SourceSpec],
    tasks: Any,
    results: Any,
    inherited: list[Any],
) -> None:
    """Entry point of a worker process: run tasks until told to stop or orphaned."""
    import socket

    from dali._exec.process.shm import HostRing, send_fd

    # Ctrl-C is for the main process; it stops the workers through `WorkerPool.close`.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for conn in inherited:  # with "fork" we got the parent's ends of every pipe: drop them
        conn.close()
    parent = os.getppid()
    runners: dict[int, Any] = {
        i: _IterableRunner(s) if s.stateful else _CallableRunner(s) for i, s in specs.items()
    }
    ring = HostRing()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(results.fileno()))
    while True:
        try:
            if not tasks.poll(1.0):
                if os.getppid() != parent:  # the pipeline's process is gone
                    return
                continue
            msg = tasks.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if msg[0] == "hrelease":
            ring.release(msg[1])
            continue
        ctx, task_id, part, epoch, payload = msg
        fd = None
        try:
            result = _shared(runners[ctx](epoch, payload), ring)
            if isinstance(result, _Shared):
                fd = ring.sent(result.packed.slot)
            reply = (ctx, task_id, part, _OK, result)
        except StopIteration:
            reply = (ctx, task_id, part, _STOP, None)
        except BaseException as e:  # noqa: BLE001 - reported to the main process
            reply = (ctx, task_id, part, _ERROR, _error_payload(e))
        try:
            try:
                results.send(reply)
            except (pickle.PicklingError, TypeError, AttributeError) as e:
                # Nothing was written: Connection.send pickles before writing.
                results.send((ctx, task_id, part, _ERROR, _error_payload(e)))
            if fd is not None:  # the slot's descriptor follows its first result
                send_fd(sock, fd)
        except (BrokenPipeError, EOFError, OSError):
            return
        finally:
            if fd is not None:
                os.close(fd)


# --------------------------------------------------------------------------------------------
# The pool, in the pipeline's process
# --------------------------------------------------------------------------------------------


def _sent(conn: Connection, message: Any) -> bool:
    """Send ``message``; False where the worker is gone (a broken pipe).

    The caller raises its own error after this returns, not inside the send's ``except``: an
    error raised there keeps the failed send's frames as its context, and with them the
    ``BytesIO`` that multiprocessing pickled the message into, exported as a memoryview;
    collecting that cycle later printed "BufferError: Existing exports of data".
    """
    try:
        conn.send(message)
    except OSError:  # BrokenPipeError, ConnectionResetError
        return False
    return True


@dataclass
class _Task:
    n_parts: int
    parts: dict[int, tuple[int, Any]] = field(default_factory=dict)
    workers: dict[int, int] = field(default_factory=dict)  # part -> the worker computing it


def _shutdown(
    procs: list[Any], task_conns: list[Any], result_conns: list[Any], socks: Sequence[Any] = ()
) -> None:
    """Stop the workers: ask politely, then terminate whatever is still running."""
    procs = [p for p in procs if p.pid is not None]  # never started: nothing to stop
    # Closing our read ends first unblocks a worker stuck sending a large result.
    for conn in [*result_conns, *socks]:
        conn.close()
    for conn in task_conns:
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
        conn.close()
    deadline = time.monotonic() + 2.0
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    resume = getattr(signal, "SIGCONT", None)
    for p in procs:
        if p.is_alive():
            p.terminate()
            if resume is not None:  # a stopped worker acts on SIGTERM only once resumed
                try:
                    os.kill(p.pid, resume)
                except OSError:
                    pass
    for p in procs:
        p.join(1.0)
        if p.is_alive():
            p.kill()
            p.join()


class WorkerPool:
    """Worker processes that run the parallel sources of one pipeline.

    Register every source with `register` before the pool starts (`start`, or the first
    `schedule`). Then `schedule` a task (a batch, split in parts) and `receive` its result.

    Args:
        num_workers: The number of processes (``py_num_workers``); must be positive.
        start_method: ``"fork"`` or ``"spawn"`` (``py_start_method``).
    """

    def __init__(self, num_workers: int, start_method: str = "fork") -> None:
        if num_workers < 1:
            raise RuntimeError(
                f"Number of Python workers for parallel ExternalSource must be positive, got "
                f"py_num_workers={num_workers}."
            )
        self.num_workers = num_workers
        self.start_method = start_method
        self._specs: list[SourceSpec] = []
        self._dedicated: list[int | None] = []
        self._procs: list[Any] = []
        self._task_conns: list[Any] = []
        self._result_conns: list[Any] = []
        #: per worker: its result socket again (for the slots' descriptors) and its slots
        self._socks: list[Any] = []
        self._views: list[HostViews] = []
        self._outstanding: list[int] = []
        self._tasks: dict[tuple[int, int], _Task] = {}
        self._next_task = 0
        self._next_worker = 0
        self._started = False
        self._closed = False
        self._broken: str | None = None
        self._finalizer: Any = None

    # -- setup -----------------------------------------------------------------------------
    def register(self, spec: SourceSpec) -> int:
        """Add a source; returns its context index (used by `schedule` and `receive`)."""
        if self._started:
            raise RuntimeError("Cannot add a parallel source to a worker pool that was started.")
        self._specs.append(spec)
        return len(self._specs) - 1

    @property
    def started(self) -> bool:
        return self._started

    @property
    def size(self) -> int:
        """The number of worker processes (after `start`; fewer than asked when every source
        is an iterable, which runs in its own worker only)."""
        return len(self._procs)

    def pids(self) -> list[int]:
        """The process ids of the workers (empty before `start`)."""
        return [p.pid for p in self._procs]

    def start(self) -> None:
        """Start the worker processes (idempotent)."""
        if self._started:
            return
        if self._closed:
            raise RuntimeError("The Python worker pool of the pipeline was closed.")
        self._started = True
        n_stateful = sum(s.stateful for s in self._specs)
        n = self.num_workers
        if n_stateful == len(self._specs):
            n = min(n, n_stateful)  # only dedicated workers would ever get work (DALI does this)
        k = 0
        for spec in self._specs:
            self._dedicated.append(k % n if spec.stateful else None)
            k += spec.stateful
        mp = multiprocessing.get_context(self.start_method)
        parent_ends: list[Any] = []
        try:
            for w in range(n):
                task_r, task_w = mp.Pipe(duplex=False)
                res_r, res_w = mp.Pipe(duplex=True)  # a socket pair: descriptors pass
                parent_ends += [task_w, res_r]
                specs = {i: s for i, s in enumerate(self._specs) if self._dedicated[i] in (None, w)}
                inherited = list(parent_ends) if self.start_method == "fork" else []
                # typeshed gives get_context(str) the base class, which lacks the `Process`
                # that every start method's context has
                proc = mp.Process(  # type: ignore[attr-defined]
                    target=_worker_main,
                    args=(w, specs, task_r, res_w, inherited),
                    name=f"dali-py-worker-{w}",
                    daemon=True,
                )
                self._procs.append(proc)
                self._task_conns.append(task_w)
                self._result_conns.append(res_r)
                self._socks.append(
                    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(res_r.fileno()))
                )
                self._views.append(HostViews())
                self._outstanding.append(0)
                try:
                    proc.start()
                finally:
                    task_r.close()
                    res_w.close()
        except Exception as e:
            _shutdown(self._procs, self._task_conns, self._result_conns)
            self._closed = True
            names = ", ".join(f"`{s.name}`" for s in self._specs)
            if self.start_method == "spawn":
                raise RuntimeError(
                    f"Could not start the Python workers of the parallel external source(s) "
                    f"{names} with py_start_method='spawn': the source must be picklable "
                    f"(defined at module level, not a lambda or a local function); "
                    f"py_start_method='fork' has no such limit. ({type(e).__name__}: {e})"
                ) from e
            raise
        self._finalizer = weakref.finalize(
            self, _shutdown, self._procs, self._task_conns, self._result_conns, self._socks
        )

    # -- running ---------------------------------------------------------------------------
    def _check_usable(self) -> None:
        if self._broken is not None:
            raise RuntimeError(self._broken)
        if self._closed:
            raise RuntimeError("The Python worker pool of the pipeline was closed.")

    def schedule(self, ctx: int, epoch: int, parts: list[Any]) -> int:
        """Send one task (a batch) in parts; returns the task id.

        For a per-sample source each part is a list of SampleInfo and goes to its own worker;
        for a batch source ``parts`` is ``[args]`` and goes to the least busy worker (or the
        source's dedicated worker).
        """
        self.start()
        self._check_usable()
        self._hand_back()
        task_id = self._next_task
        self._next_task += 1
        task = self._tasks[(ctx, task_id)] = _Task(len(parts))
        dedicated = self._dedicated[ctx]
        first = self._next_worker  # the parts of successive batches go round the workers
        self._next_worker = (first + len(parts)) % len(self._procs)
        for part, payload in enumerate(parts):
            if dedicated is not None:
                w = dedicated
            elif len(parts) > 1:
                w = (first + part) % len(self._procs)
            else:
                w = min(range(len(self._procs)), key=lambda i: self._outstanding[i])
            self._outstanding[w] += 1
            task.workers[part] = w
            if not _sent(self._task_conns[w], (ctx, task_id, part, epoch, payload)):
                self._worker_died(w)  # (outside the send's `except`: see `_sent`)
        return task_id

    def discard(self, ctx: int, task_id: int) -> None:
        """Forget a task: its result is dropped when it arrives."""
        self._tasks.pop((ctx, task_id), None)

    def receive(self, ctx: int, task_id: int) -> list[Any]:
        """The result of a task: one entry per part, in order.

        Raises:
            StopIteration: The source reported the end of data for this batch.
            WorkerError: The source raised in a worker; the message holds its traceback and the
                original exception (when it could be pickled) is the ``__cause__``.
            WorkerTimeout: No result within the source's ``timeout``; the pool is closed.
            RuntimeError: A worker died or the pool was closed.
        """
        self._check_usable()
        self._hand_back()
        key = (ctx, task_id)
        task = self._tasks[key]
        timeout = self._specs[ctx].timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        while len(task.parts) < task.n_parts:
            if not self._pump(deadline):
                self._timed_out(ctx, task)
        del self._tasks[key]
        result = []
        for part in range(task.n_parts):
            status, data = task.parts[part]
            if status == _STOP:
                raise StopIteration
            if status == _ERROR:
                self._raise_error(data)
            result.append(data)
        return result

    def _raise_error(self, data: tuple[bytes | None, str, str]) -> None:
        pickled, summary, tb = data
        cause: BaseException | None = None
        if pickled is not None:
            try:
                cause = pickle.loads(pickled)
            except Exception:  # noqa: BLE001 - an exception class that cannot be rebuilt
                cause = None
        err = WorkerError(f"{summary}\n\nException traceback received from worker process:\n\n{tb}")
        raise err from cause

    def _pump(self, deadline: float | None = None) -> bool:
        """Wait for at least one message from the workers and file it under its task.

        Returns False when ``deadline`` (a `time.monotonic` value) passed with nothing to read.
        """
        sentinels = {p.sentinel: i for i, p in enumerate(self._procs)}
        conns = {id(c): i for i, c in enumerate(self._result_conns)}
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready = wait([*self._result_conns, *sentinels], timeout=left)
        if not ready:
            return False
        got_result = False
        for r in ready:
            if id(r) not in conns:
                continue
            w = conns[id(r)]
            try:
                # `r` itself: `wait` types what it returns as any waitable
                ctx, task_id, part, status, data = self._result_conns[w].recv()
                if isinstance(data, _Shared):
                    views = self._views[w]
                    if data.packed.new:  # its slot's descriptor follows
                        views.map(data.packed, recv_fd(self._socks[w]))
                    stacked = None
                    if data.tree == list(range(len(data.packed.outputs))):  # samples
                        stacked = views.unpack_stacked(data.packed)
                    if stacked is not None:
                        data = stacked  # (iterating it gives the samples, as the list would)
                    else:
                        data = _unflatten(data.tree, views.unpack_arrays(data.packed))
            except (EOFError, OSError):
                self._worker_died(w)
            got_result = True
            self._outstanding[w] -= 1
            task = self._tasks.get((ctx, task_id))
            if task is not None:
                task.parts[part] = (status, data)
        if not got_result:
            for r in ready:
                if r in sentinels:
                    self._worker_died(sentinels[r])
        return True

    def _hand_back(self) -> None:
        """Tell every worker which of its slots no result uses any more."""
        for w, views in enumerate(self._views):
            for message in views.releases():
                if not _sent(self._task_conns[w], message):
                    return  # the worker is gone: `receive` finds out

    def _sources_of(self, w: int) -> str:
        """The names of the sources worker ``w`` runs, for messages."""
        names = [
            f"`{s.name}`" for i, s in enumerate(self._specs) if self._dedicated[i] in (None, w)
        ]
        return ("source " if len(names) == 1 else "sources ") + ", ".join(names)

    def _worker_died(self, w: int) -> None:
        proc = self._procs[w]
        proc.join(0.1)
        self._broken = (
            f"Python worker process {w} (pid {proc.pid}) of the parallel external "
            f"{self._sources_of(w)} exited unexpectedly (exit code {proc.exitcode}); the "
            f"pipeline cannot continue."
        )
        self.close()
        raise RuntimeError(self._broken)

    def _timed_out(self, ctx: int, task: _Task) -> None:
        """Give up on the workers that owe ``task`` a part: kill them, close the pool, raise."""
        spec = self._specs[ctx]
        late = sorted({w for part, w in task.workers.items() if part not in task.parts})
        who = ", ".join(f"{w} (pid {self._procs[w].pid})" for w in late)
        self._broken = (
            f"Timed out after {spec.timeout:g} s (the `timeout` of the parallel external source "
            f"`{spec.name}`): Python worker process{'es' if len(late) > 1 else ''} {who} gave "
            f"no result; the source callback may be stuck, or the process stopped. The worker "
            f"processes were stopped; the pipeline cannot continue (close it and build a new "
            f"one)."
        )
        for w in late:  # stuck or stopped: no grace period (SIGKILL also ends a stopped one)
            self._procs[w].kill()
        self.close()
        raise WorkerTimeout(self._broken)

    def close(self) -> None:
        """Stop every worker process (idempotent; also done when the pool is dropped)."""
        self._closed = True
        self._tasks.clear()
        if self._finalizer is not None:
            self._finalizer()
