"""The executor: runs planned iterations ahead of the consumer on background threads.

A CPU pipeline runs its readers and external sources on a ``dali-executor-source`` thread
(`dali._exec.stages.split_sources`), ahead, and its operators on the ``dali-executor`` thread,
which takes the iterations in order from it (with no source, or nothing but sources, one thread
runs every step). A pipeline with GPU work splits each iteration in two stages
(`split_stages`; the stage functions are in `dali._exec.stages`):

* the **CPU stage** (CPU operators that need nothing from the GPU, and the Python sources)
  runs on the ``dali-executor`` thread and touches no CUDA;
* the **GPU stage** (host-to-device copies, mixed and GPU operators, and whatever depends on
  them) runs on the ``dali-executor-gpu`` thread with the pipeline's device, stream and memory
  pool current (`dali._exec.device.CudaContext.activate`). Its operators only *enqueue* work
  on the pipeline's one non-default stream; after the last one an event is recorded and put on
  every GPU output (``tl._event``), so consumers wait for it on the GPU, not on the host.

When mixed operators (decoders) are followed by GPU operators, the GPU stage is cut after the
last mixed one (`split_gpu_stage`): a ``dali-executor-mixed`` thread runs the decoders and hands
each iteration to the ``dali-executor-gpu`` thread, as DALI's CPU → mixed → GPU stages do.

So the CPU stage of iteration i+1 runs while iteration i is on the GPU, and a decode of
iteration i+1 while the GPU operators of iteration i plan and queue their kernels. Each thread
takes the iterations in order and each operator belongs to one stage, so every operator still
runs its iterations one after another, in order: results are ordered and deterministic. The executor
itself never synchronises the host with the device (see `dali._exec.device` for the few places
that do, each marked ``# synchronize!``).

Operators spread per-sample work over a pool of ``num_threads`` threads (numpy, OpenCV and codec
calls release the GIL). Each submitted iteration has a `_Slot` that its last stage fills and
`get` takes, in order. Any exception, from either stage, is carried to the consumer's thread in
iteration order, wrapped in a `PipelineError` that names the operator, the sample and where the
operator was defined, with the original exception as its cause. A failed iteration fails alone:
every stage catches the error of its iteration and goes on with the next, so the pipeline stays
usable (as DALI's does after, say, a corrupt JPEG).

The workers never hold a reference to the `Pipeline`, so dropping the pipeline closes it.
"""

from __future__ import annotations

import collections
import dataclasses
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._exec import closer as _closer
from dali._exec import profile as _profile
from dali._exec import stages as _stages
from dali._exec.affinity import pin_current_thread
from dali._exec.stages import (
    cpu_preparable,
    preparable,
    split_gpu_stage,
    split_sources,
    split_stages,
)
from dali._exec.workspace import BatchMeta, SampleFailure, Workspace

__all__ = [
    "Executor",
    "IterationRequest",
    "PipelineError",
    "preparable",
    "run_iteration",
    "split_gpu_stage",
    "split_stages",
]


class PipelineError(RuntimeError):
    """An operator failed while the pipeline ran; ``__cause__`` is the original error."""


@dataclass
class IterationRequest:
    iteration: int
    epoch: int
    #: step index -> (batch, BatchMeta) produced by a Python source at schedule time
    fed: dict[int, tuple[Any, BatchMeta]]
    max_batch_size: int
    stream_start: int
    #: where the iteration's outputs (or its `_Failure`) go; set by `Executor.submit`
    slot: _Slot | None = None


@dataclass
class _Failure:
    error: BaseException


class _Slot:
    """Where one submitted iteration's outputs go: filled by its last stage, taken by `get`.

    Why a slot per iteration rather than one queue of results: the consumer waits on the slot
    and only then removes it from the executor's deque, in one step. An interrupt
    (KeyboardInterrupt) while it waits leaves the iteration for the next `get`, and the number
    of iterations in flight (`Executor.in_flight`, the length of that deque) is right whatever
    the moment of the interrupt.
    """

    __slots__ = ("_done", "req", "value")

    def __init__(self, req: IterationRequest | None = None) -> None:
        self._done = threading.Event()
        #: the request itself, for the inline (synchronous) executor
        self.req = req
        self.value: Any = None

    def fill(self, value: Any) -> None:
        self.value = value
        self._done.set()

    def filled(self) -> bool:
        return self._done.is_set()

    def wait(self) -> None:
        self._done.wait()


def _describe(step: Any, index: int | None, meta: BatchMeta | None) -> str:
    node = step.node
    where = f"Error in {step.device.upper()} operator `{node.schema.display_name}` ({node.name})"
    if index is not None:
        where += f", sample {index}"
        info = meta.source_info if meta is not None else None
        if info is not None and index < len(info) and info[index]:
            where += f" (source: {info[index]})"
    if node.definition:
        where += f", which was used in the pipeline definition at:\n{node.definition}\n"
    return where


def _normalize_outputs(result: Any, n: int, step: Any) -> tuple[Any, ...]:
    if n == 1 and not isinstance(result, (tuple, list)):
        return (result,)
    if not isinstance(result, (tuple, list)) or len(result) != n:
        raise RuntimeError(
            f"{step.node.schema.display_name} returned {type(result).__name__}, expected {n} outputs"
        )
    return tuple(result)


class _Iteration:
    """The batches and sample identities of one iteration while its steps run."""

    __slots__ = ("metas", "prepared", "req", "root", "values")

    def __init__(self, plan: Any, req: IterationRequest) -> None:
        self.req = req
        self.values: list[Any] = [None] * plan.n_slots
        self.metas: list[BatchMeta | None] = [None] * plan.n_slots
        self.root: BatchMeta | None = None
        #: step index -> what its operator's ``prepare`` gave in the CPU stage
        self.prepared: dict[int, Any] = {}


def _workspace(
    step: Any, si: int, it: _Iteration, pool: ThreadPoolExecutor | None, cuda: Any
) -> tuple[Workspace, BatchMeta]:
    """The workspace of one step of one iteration (and the sample identities it runs on)."""
    req, values, metas = it.req, it.values, it.metas
    if step.batch is not None:
        meta = metas[step.batch]
    elif it.root is not None:
        meta = it.root
    else:
        meta = BatchMeta.stream(req.stream_start, req.max_batch_size, req.epoch)
    fed = req.fed.get(si)
    if fed is not None:
        meta = fed[1]
    ws = Workspace(
        step.impl,
        [values[i] for i in step.inputs],
        {k: values[i] for k, i in step.args.items()},
        meta,
        req.iteration,
        req.epoch,
        pool,
        step.key,
        fed[0] if fed is not None else None,
        cuda if cuda is not None and step.device != "cpu" else None,
    )
    ws.prepared = it.prepared.pop(si, None)
    return ws, meta


def _prepare_steps(
    plan: Any,
    it: _Iteration,
    indices: Any,
    pool: ThreadPoolExecutor | None,
    cuda: Any = None,
    method: str = "prepare",
) -> None:
    """Run the CPU part (``prepare``) of mixed operators in the CPU stage (see `preparable`),
    or the host planning (``prepare_cpu``) of CPU operators in the source stage
    (`cpu_preparable`).

    The workspace carries the pipeline's CUDA context (``ws.stream``), which is *not* current
    on this thread: ``prepare`` may hand device work to threads of its own that activate it
    (the image decoders start their decode there). An exception is kept and raised by the
    operator's own run, in the mixed stage, so that the error names the operator and comes in
    iteration order like any other.
    """
    for si in indices:
        ws, _ = _workspace(plan.steps[si], si, it, pool, cuda)
        try:
            it.prepared[si] = getattr(plan.steps[si].impl, method)(ws)
        except Exception as e:  # noqa: BLE001 - raised again when the operator runs
            it.prepared[si] = e


def _run_steps(
    plan: Any,
    it: _Iteration,
    indices: Any,
    pool: ThreadPoolExecutor | None,
    cuda: Any = None,
    prof: Any = None,
    stage: str = "cpu",
) -> None:
    """Run the steps ``indices`` of the plan, in order, for one iteration.

    ``prof``: a `dali._exec.profile.Profile` that records each step (``DALI_PROFILE``), or None.
    """
    req, values, metas = it.req, it.values, it.metas
    for si in indices:
        step = plan.steps[si]
        ws, meta = _workspace(step, si, it, pool, cuda)
        try:
            if prof is None:
                result = step.impl.run(ws)
            else:
                with prof.span(stage, req.iteration, step.node.name):
                    result = step.impl.run(ws)
        except SampleFailure as f:
            hint = cuda.error_hint(f.error) if cuda is not None else ""
            raise PipelineError(_describe(step, f.index, meta) + f"{f.error}{hint}") from f.error
        except PipelineError:
            raise
        except StopIteration:
            raise
        except Exception as e:
            hint = cuda.error_hint(e) if cuda is not None else ""
            raise PipelineError(_describe(step, None, None) + f"{e}{hint}") from e
        outs = _normalize_outputs(result, len(step.outputs), step)
        out_meta = ws.out_meta if ws.out_meta is not None else meta
        if step is plan.identity_step and it.root is None:
            it.root = out_meta
        for slot, value in zip(step.outputs, outs):
            values[slot] = value
            metas[slot] = out_meta


def _finish(plan: Any, it: _Iteration, cuda: Any = None) -> tuple[Any, ...]:
    """The output batches of a finished iteration (GPU ones carry the iteration's event)."""
    out_values = [it.values[slot] for slot in plan.outputs]
    out_metas = [it.metas[slot] for slot in plan.outputs]
    if len({len(m) for m in out_metas if m is not None}) > 1:
        out_values, out_metas = _align_outputs(out_values, out_metas)
    results = []
    for tl, m in zip(out_values, out_metas):
        if (
            m is not None
            and m.source_info is not None
            and getattr(tl, "_source_info", None) is None
        ):
            tl._source_info = list(m.source_info)
        results.append(tl)
    if cuda is not None:
        cuda.reap()  # memory of earlier outputs whose consumers have finished
        # One event after the iteration's last GPU work: consumers wait on it on the GPU, and
        # each output's memory is leased so that it outlives their queued work.
        event = cuda.record()
        for tl in results:
            if getattr(tl, "_device", "cpu") == "gpu":
                cuda.lease(tl)
                tl._event = event
    return tuple(results)


def run_iteration(
    plan: Any,
    req: IterationRequest,
    pool: ThreadPoolExecutor | None,
    cuda: Any = None,
    prof: Any = None,
) -> Any:
    """Run every step of the plan for one iteration; returns the output batches."""
    it = _Iteration(plan, req)
    steps = range(len(plan.steps))
    if cuda is None:
        _run_steps(plan, it, steps, pool, None, prof)
        return _finish(plan, it)
    with cuda.activate():
        _run_steps(plan, it, steps, pool, cuda, prof)
        return _finish(plan, it, cuda)


def _sample_keys(meta: BatchMeta) -> list[tuple[int, int, int]]:
    """(id, epoch, occurrence) per sample: unique even when padding repeats a sample."""
    seen: dict[tuple[int, int], int] = {}
    keys = []
    for i, e in zip(meta.ids.tolist(), meta.epochs.tolist()):
        n = seen.get((i, e), 0)
        seen[(i, e)] = n + 1
        keys.append((i, e, n))
    return keys


def _align_outputs(values: list[Any], metas: list[Any]) -> tuple[list[Any], list[Any]]:
    """Keep, in every output, only the samples present in all of them.

    An operator that drops samples (a decoder with ``on_error="skip"``) shortens its own output;
    the other outputs of the same iteration (labels, say) must lose the same samples.
    """
    key_lists = [_sample_keys(m) if m is not None else None for m in metas]
    common = set.intersection(*(set(k) for k in key_lists if k is not None))
    new_values, new_metas = [], []
    for tl, m, keys in zip(values, metas, key_lists):
        if keys is None or len(keys) == len(common):
            new_values.append(tl)
            new_metas.append(m)
            continue
        keep = [i for i, k in enumerate(keys) if k in common]
        new_values.append(_take_samples(tl, keep))
        new_metas.append(m.take(np.asarray(keep, dtype=np.int64)))
    return new_values, new_metas


def _take_samples(tl: Any, index: list[int]) -> Any:
    from dali._ops.conditional import _take

    device = "gpu" if type(tl).__name__.endswith("GPU") else "cpu"
    return _take(tl, np.asarray(index, dtype=np.int64), device)


def _fill(req: IterationRequest, out: Any) -> None:
    """Hand a finished iteration (outputs or `_Failure`) to the consumer."""
    assert req.slot is not None
    req.slot.fill(out)


#: per thread: the id of the `_WorkerState` whose pool the thread belongs to
_pool_thread = threading.local()


def _init_pool_thread(owner: int, affinity: Any) -> None:
    _pool_thread.owner = owner
    pin_current_thread(affinity)


class _WorkerState:
    """Everything the worker threads touch (no reference back to the Pipeline).

    A CPU pipeline has one worker running whole iterations, or two: the sources' (`loop`) and
    the operators' (`ops_loop`). A pipeline with GPU work has one
    worker per stage: the CPU-stage worker runs the CPU stage of each iteration and hands it to
    the GPU-side workers (one, or two when `split_gpu_stage` cuts after a mixed operator), which
    run the rest on the pipeline's stream, so the CPU stage of iteration i+1 runs while
    iteration i is on the GPU. Every worker takes iterations in order, so results stay ordered.
    """

    def __init__(self, plan: Any, num_threads: int, cuda: Any = None, affinity: Any = None) -> None:
        self.plan = plan
        self.cuda = cuda
        #: the cores every pipeline thread pins itself to (`set_affinity`), or None
        self.affinity = affinity
        self.requests: queue.Queue[IterationRequest | None] = queue.Queue()
        self.stages = split_stages(plan) if cuda is not None else None
        #: the GPU side's parts (`split_gpu_stage`) and the queue that feeds each
        self.gpu_parts = split_gpu_stage(plan, self.stages[1]) if self.stages else []
        self.handoffs: list[queue.Queue[Any]] = [queue.Queue() for _ in self.gpu_parts]
        self.prepare = preparable(plan, *self.stages) if self.stages else []
        #: a CPU pipeline's source stage and the rest (`split_sources`), or None: one stage
        self.sources: tuple[list[int], list[int]] | None = None
        if cuda is None and _stages.SOURCE_STAGE:
            sources, rest = split_sources(plan)
            if sources and rest:
                self.sources = (sources, rest)
        #: CPU steps planned in the source stage (`cpu_preparable`)
        self.prepare_cpu = cpu_preparable(plan, *self.sources) if self.sources else []
        #: iterations whose source stage ran, for `ops_loop`
        self.sourced: queue.Queue[Any] = queue.Queue()
        self.pool = (
            ThreadPoolExecutor(
                num_threads,
                thread_name_prefix="dali-op",
                initializer=_init_pool_thread,
                initargs=(id(self), affinity),
            )
            if num_threads > 1
            else None
        )
        self.profile = _profile.from_env()  # None unless DALI_PROFILE is set
        #: set when the pipeline was dropped (`Executor.release`): start no more iterations
        self.stopping = False

    def loop(self) -> None:
        pin_current_thread(self.affinity)
        prof = self.profile
        span = _profile.nothing if prof is None else prof.span
        while True:
            with span("cpu", -1, "<wait for a request>"):
                req = self.requests.get()
            if req is None:
                if self.handoffs:
                    self.handoffs[0].put(None)
                if self.sources is not None:
                    self.sourced.put(None)
                return
            if self.stopping:
                continue
            if self.sources is not None:
                try:
                    with span("source", req.iteration, "<stage>"):
                        it = _Iteration(self.plan, req)
                        _run_steps(self.plan, it, self.sources[0], self.pool, None, prof, "source")
                        if self.prepare_cpu:
                            with span("source", req.iteration, "<prepare CPU operators>"):
                                _prepare_steps(
                                    self.plan, it, self.prepare_cpu, self.pool, None, "prepare_cpu"
                                )
                except BaseException as e:  # noqa: BLE001 - handed on, in order
                    it = _Failure(e)
                self.sourced.put((req, it))
                del it
                continue
            if self.stages is None:
                try:
                    with span("cpu", req.iteration, "<stage>"):
                        out = run_iteration(self.plan, req, self.pool, None, prof)
                except BaseException as e:  # noqa: BLE001 - handed to the consumer thread
                    out = _Failure(e)
                _fill(req, out)
                del out, req
                continue
            it: Any
            try:
                with span("cpu", req.iteration, "<stage>"):
                    it = _Iteration(self.plan, req)
                    _run_steps(self.plan, it, self.stages[0], self.pool, None, prof, "cpu")
                    if self.prepare:
                        with span("cpu", req.iteration, "<prepare mixed operators>"):
                            _prepare_steps(self.plan, it, self.prepare, self.pool, self.cuda)
            except BaseException as e:  # noqa: BLE001 - handed on, in order
                it = _Failure(e)
            self.handoffs[0].put((req, it))
            del it  # the GPU stage adds its batches to it: do not keep them alive here

    def ops_loop(self) -> None:
        """The operators of a CPU pipeline whose sources run in a stage of their own (`loop`
        runs that stage and hands each iteration over)."""
        pin_current_thread(self.affinity)
        prof = self.profile
        span = _profile.nothing if prof is None else prof.span
        assert self.sources is not None
        while True:
            with span("cpu", -1, "<wait for the source stage>"):
                item = self.sourced.get()
            if item is None:
                return
            if self.stopping:
                continue
            req, it = item
            if not isinstance(it, _Failure):
                try:
                    with span("cpu", req.iteration, "<stage>"):
                        _run_steps(self.plan, it, self.sources[1], self.pool, None, prof)
                        it = _finish(self.plan, it)
                except BaseException as e:  # noqa: BLE001 - handed to the consumer thread
                    it = _Failure(e)
            _fill(req, it)
            del it, item, req  # drop this iteration's batches before waiting for the next

    def gpu_loop(self, part: int) -> None:
        pin_current_thread(self.affinity)
        last = part == len(self.gpu_parts) - 1
        inbox = self.handoffs[part]
        try:
            with self.cuda.activate():
                self._gpu_iterations(part, last)
        except BaseException as e:  # noqa: BLE001 - CUDA could not be set up: fail every iteration
            while True:
                item = inbox.get()
                if item is None:
                    if not last:
                        self.handoffs[part + 1].put(None)
                    return
                if last:
                    _fill(item[0], _Failure(e))
                else:
                    self.handoffs[part + 1].put((item[0], _Failure(e)))

    def _gpu_iterations(self, part: int, last: bool) -> None:
        prof = self.profile
        span = _profile.nothing if prof is None else prof.span
        stage = "gpu" if last else "mixed"
        steps = self.gpu_parts[part]
        inbox = self.handoffs[part]
        while True:
            with span(stage, -1, f"<wait for the {'CPU' if part == 0 else 'mixed'} stage>"):
                item = inbox.get()
            if item is None:
                if not last:
                    self.handoffs[part + 1].put(None)
                return
            if self.stopping:
                continue
            it = item[1]
            k = item[0].iteration
            if not isinstance(it, _Failure):
                try:
                    with span(stage, k, "<stage>"):
                        _run_steps(self.plan, it, steps, self.pool, self.cuda, prof, stage)
                        if last:
                            with span(stage, k, "<finish: events, leases>"):
                                it = _finish(self.plan, it, self.cuda)
                except BaseException as e:  # noqa: BLE001 - handed on to the consumer thread
                    it = _Failure(e)
            if last:
                _fill(item[0], it)
            else:
                self.handoffs[part + 1].put((item[0], it))
            with span(stage, k, "<drop the iteration's inputs>"):
                del it, item  # drop this iteration's batches before waiting for the next


class Executor:
    """Runs iterations of a plan, asynchronously (worker threads) or inline.

    Every submitted iteration is returned by `get`, in order, or raises its own error there;
    an error fails that iteration alone. The executor is not thread-safe: one thread submits
    and gets at a time (`dali.Pipeline` serialises its callers).

    Args:
        plan: The built plan.
        num_threads: Size of the per-sample thread pool.
        asynchronous: Run ahead on worker threads (else each `get` runs one iteration inline).
        cuda: The pipeline's `dali._exec.device.CudaContext` when the plan has GPU work.
        affinity: Cores every pipeline thread pins itself to (`dali._exec.affinity`), or None.
    """

    def __init__(
        self,
        plan: Any,
        *,
        num_threads: int,
        asynchronous: bool = True,
        cuda: Any = None,
        affinity: Any = None,
    ) -> None:
        self._state = _WorkerState(plan, num_threads, cuda, affinity)
        self._async = asynchronous
        #: one slot per submitted iteration not yet taken by `get`, oldest first
        self._slots: collections.deque[_Slot] = collections.deque()
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._close_lock = threading.Lock()
        #: set once `_shut_down` has finished (a second `close` waits for it)
        self._shut = threading.Event()
        _closer.track(self)  # closed at interpreter exit if still open

    @property
    def in_flight(self) -> int:
        """Iterations submitted and not yet taken by `get` (running, or finished and waiting)."""
        return len(self._slots)

    def submit(self, req: IterationRequest) -> None:
        if self._closed:
            raise RuntimeError("the pipeline was closed")
        slot = _Slot(None if self._async else req)
        if not self._async:
            self._slots.append(slot)
            return
        if not self._threads:
            self._start_threads()
        # Queued before it is counted: an interrupt between the two loses one iteration's
        # outputs but never leaves `get` waiting for an iteration that was never queued.
        self._state.requests.put(dataclasses.replace(req, slot=slot))
        self._slots.append(slot)

    def _start_threads(self) -> None:
        state = self._state
        # with a source stage, the operators keep the executor thread's name
        first = "dali-executor" if state.sources is None else "dali-executor-source"
        self._threads.append(threading.Thread(target=state.loop, name=first, daemon=True))
        if state.sources is not None:
            self._threads.append(
                threading.Thread(target=state.ops_loop, name="dali-executor", daemon=True)
            )
        names = ["dali-executor-gpu"]
        if len(state.gpu_parts) > 1:
            names = ["dali-executor-mixed", "dali-executor-gpu"]
        for part, name in enumerate(names if state.gpu_parts else []):
            self._threads.append(
                threading.Thread(target=state.gpu_loop, args=(part,), name=name, daemon=True)
            )
        for thread in self._threads:
            thread.start()

    def get(self) -> tuple[Any, ...]:
        """The outputs of the oldest iteration submitted and not yet taken (blocks).

        Raises:
            PipelineError: The iteration failed (it is consumed: the next `get` returns the
                next iteration).
            RuntimeError: No iteration is in flight, or the pipeline was closed meanwhile.
            KeyboardInterrupt: While waiting (asynchronous executor): the iteration stays in
                flight, for the next `get`.
        """
        if not self._slots:
            raise RuntimeError("No iteration was scheduled.")
        if not self._async:
            # Taken before it runs: an error or an interrupt consumes it, as a failure would.
            req = self._slots.popleft().req
            assert req is not None
            state = self._state
            return run_iteration(state.plan, req, state.pool, state.cuda, state.profile)
        slot = self._slots[0]
        slot.wait()
        self._slots.popleft()
        out, slot.value = slot.value, None  # the workers may still hold the slot: not its data
        if isinstance(out, _Failure):
            raise out.error
        return out

    def release(self) -> None:
        """What a dropped pipeline's finalizer calls: start no more iterations, and have the
        closing thread (`dali._exec.closer`) `close` the rest. Never blocks, takes no lock."""
        self._state.stopping = True
        _closer.defer(self.close)

    def close(self) -> None:
        """Stop the workers and the thread pool, and close the operators; safe to call more
        than once, and from several threads: every caller returns once the pipeline's threads
        are stopped (at interpreter exit that must be so before Python stops its threads: see
        `dali._exec.closer`). Called on one of the pipeline's own threads (where joining them
        would wait for that very thread), it hands the work to the closing thread."""
        with self._close_lock:
            own_pool = getattr(_pool_thread, "owner", None) == id(self._state)
            if own_pool or threading.current_thread() in self._threads:
                if not self._closed:
                    _closer.defer(self.close)
                return
            first = not self._closed
            self._closed = True
        if first:
            try:
                self._shut_down()
            finally:
                self._shut.set()
        else:
            self._shut.wait(_closer.JOIN_TIMEOUT)

    def _shut_down(self) -> None:
        state = self._state
        if self._threads:
            state.requests.put(None)  # each worker passes it on to the next stage
            for thread in self._threads:
                thread.join(timeout=_closer.JOIN_TIMEOUT)
        if state.pool is not None:
            state.pool.shutdown(wait=True, cancel_futures=True)
        # A consumer still waiting (close() from another thread) gets an error, not a hang.
        closed = _Failure(RuntimeError("the pipeline was closed"))
        for slot in list(self._slots):
            if not slot.filled():
                slot.fill(closed)
        if state.profile is not None:
            state.profile.print_report()
        for step in state.plan.steps:
            try:
                step.impl.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass
        if state.cuda is not None:
            try:
                state.cuda.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass
