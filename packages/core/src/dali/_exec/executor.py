"""The executor: runs planned iterations ahead of the consumer on background threads.

Each iteration goes through a few *stages* (`dali._exec.stages.plan_stages`), each run by a
thread of its own with one loop (`_Stages.run`): take the next iteration from the stage before,
run the stage's steps on it, hand it on. So while one thread works on iteration i, the one
before it already works on iteration i+1. The stages:

* a CPU pipeline runs its readers and external sources on a ``dali-executor-source`` thread,
  ahead, and its operators on the ``dali-executor`` thread (with no source, or nothing but
  sources, one ``dali-executor`` thread runs every step);
* a pipeline with GPU work runs a **CPU stage** on ``dali-executor`` (CPU operators that need
  nothing from the GPU, and the Python sources; it touches no CUDA) and a **GPU stage** on
  ``dali-executor-gpu`` (host-to-device copies, mixed and GPU operators, and whatever depends on
  them), with the pipeline's device, stream and memory pool current
  (`dali._exec.device.CudaContext.activate`). Its operators only *enqueue* work on the
  pipeline's one non-default stream; after the last one an event is recorded and put on every
  GPU output, so consumers wait for it on the GPU, not on the host. When mixed operators
  (decoders) are followed by GPU operators, a ``dali-executor-mixed`` thread runs the decoders
  and hands each iteration to ``dali-executor-gpu``, as DALI's CPU → mixed → GPU stages do.
  With ``cpu_stage`` (worker processes, `dali._exec.process.stage`) the CPU stage's steps run
  there, and ``dali-executor`` only sends each iteration and collects its results in order.

Each thread takes the iterations in order and each operator belongs to one stage, so every
operator still runs its iterations one after another, in order: results are ordered and
deterministic. The executor itself never synchronises the host with the device (see
`dali._exec.device` for the few places that do, each marked ``# synchronize!``).

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
import contextlib
import dataclasses
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._exec import closer as _closer
from dali._exec import profile as _profile
from dali._exec.affinity import pin_current_thread
from dali._exec.stages import (
    PrepareHook,
    Stage,
    plan_stages,
    preparable,
    split_gpu_stage,
    split_stages,
)
from dali._exec.workspace import BatchMeta, SampleFailure, Workspace
from dali._tensors import TensorListCPU, TensorListGPU
from dali._tensors.base import host_aligned

if TYPE_CHECKING:
    from dali._exec.device import CudaContext
    from dali._exec.process.stage import CpuStageWorkers
    from dali._exec.profile import Profile
    from dali._graph.build import Plan, Step

__all__ = [
    "Executor",
    "IterationRequest",
    "PipelineError",
    "Stage",
    "align_outputs",
    "preparable",
    "run_given",
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
    #: step index -> (ids, passes) of a reader's batch, planned by the consumer
    #: (`Operator.plan_samples`; CPU-stage worker processes, `dali._exec.process.pool`)
    planned: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: where the iteration's outputs (or its `_Failure`) go; set by `Executor.submit`
    slot: _Slot | None = None
    #: where the pipeline stands once this iteration is consumed (opaque here; checkpoints)
    cursor: Any = None
    #: operator name -> its ``get_state`` after this iteration's batch, filled as steps run
    states: dict[str, Any] = field(default_factory=dict)
    #: the outputs are a GPU pipeline's CPU stage (`dali._exec.process.stage`): keep every
    #: output's samples (no `align_outputs`) and fill `metas`
    keep_metas: bool = False
    #: with `keep_metas`, set by `_finish`: each output's sample identities, and the
    #: iteration's (what its first source produced, or None)
    metas: tuple[list[BatchMeta | None], BatchMeta | None] | None = None


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

    __slots__ = ("_done", "cursor", "req", "states", "value")

    def __init__(self, req: IterationRequest, *, keep_request: bool) -> None:
        self._done = threading.Event()
        #: the request itself, for the inline (synchronous) executor
        self.req = req if keep_request else None
        #: the request's position and operator states (its `Executor.taken` once consumed)
        self.cursor, self.states = req.cursor, req.states
        self.value: Any = None

    def fill(self, value: Any) -> None:
        self.value = value
        self._done.set()

    def filled(self) -> bool:
        return self._done.is_set()

    def wait(self) -> None:
        self._done.wait()


def _describe(step: Step, index: int | None, meta: BatchMeta | None) -> str:
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


def _normalize_outputs(result: Any, n: int, step: Step) -> tuple[Any, ...]:
    if n == 1 and not isinstance(result, (tuple, list)):
        return (result,)
    if not isinstance(result, (tuple, list)) or len(result) != n:
        raise RuntimeError(
            f"{step.node.schema.display_name} returned {type(result).__name__}, "
            f"expected {n} outputs"
        )
    return tuple(result)


class _Iteration:
    """The batches and sample identities of one iteration while its steps run."""

    __slots__ = ("metas", "prepared", "req", "root", "values")

    def __init__(self, plan: Plan, req: IterationRequest) -> None:
        self.req = req
        self.values: list[Any] = [None] * plan.n_slots
        self.metas: list[BatchMeta | None] = [None] * plan.n_slots
        self.root: BatchMeta | None = None
        #: step index -> what its operator's ``prepare`` gave in the CPU stage
        self.prepared: dict[int, Any] = {}


def _workspace(
    step: Step, si: int, it: _Iteration, pool: ThreadPoolExecutor | None, cuda: CudaContext | None
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
    assert meta is not None  # the steps run in order: an earlier one filled `step.batch`
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
    ws.planned = req.planned.get(si)
    return ws, meta


def _prepare_steps(
    plan: Plan,
    it: _Iteration,
    indices: Sequence[int],
    pool: ThreadPoolExecutor | None,
    cuda: CudaContext | None,
    hook: PrepareHook,
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
            impl = plan.steps[si].impl
            it.prepared[si] = impl.prepare(ws) if hook == "prepare" else impl.prepare_cpu(ws)
        except Exception as e:  # noqa: BLE001 - raised again when the operator runs
            it.prepared[si] = e


def _run_steps(
    plan: Plan,
    it: _Iteration,
    indices: Sequence[int],
    pool: ThreadPoolExecutor | None,
    cuda: CudaContext | None = None,
    prof: Profile | None = None,
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
            try:
                if prof is None:
                    result = step.impl.run(ws)
                else:
                    with prof.span(stage, req.iteration, step.node.name):
                        result = step.impl.run(ws)
            finally:
                if step.stateful and si not in req.planned:
                    # after every batch, failed ones too: a reader moved on all the same
                    # (a planned one did not: the consumer recorded its state)
                    req.states[step.node.name] = step.impl.get_state()
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
        if prof is not None and prof.memory is not None:
            prof.outputs(step.node.name, step.device, outs)
        for slot, value in zip(step.outputs, outs):
            values[slot] = value
            metas[slot] = out_meta


def _finish(
    plan: Plan, it: _Iteration, cuda: CudaContext | None = None, align: bool = True
) -> tuple[Any, ...]:
    """The output batches of a finished iteration (GPU ones carry the iteration's event).

    ``align``: dense CPU outputs start on 64-byte boundaries (`host_aligned`); a worker
    process's executor does not ask for it (its outputs are copied into aligned shared memory).
    """
    out_values = [it.values[slot] for slot in plan.outputs]
    out_metas = [it.metas[slot] for slot in plan.outputs]
    if it.req.keep_metas:  # a CPU stage: the GPU stage reads each batch with its own samples
        it.req.metas = out_metas, it.root
    elif len({len(m) for m in out_metas if m is not None}) > 1:
        out_values, out_metas = align_outputs(out_values, out_metas)
    results = []
    for slot, tl, m in zip(plan.outputs, out_values, out_metas):
        if m is not None and m.source_info is not None and tl.source_infos is None:
            tl.source_infos = list(m.source_info)
        if (
            align
            and isinstance(tl, TensorListCPU)
            and tl.held_dense is not None
            and slot not in plan.user_memory
        ):
            # JAX shares only 64-byte aligned host memory; a ragged batch it cannot take as is
            # (its samples may be views of a reader's memory map: left as they are), and a
            # `no_copy` source's batch is the user's own memory
            tl.map_storage(host_aligned)
        results.append(tl)
    if cuda is not None:
        cuda.reap()  # memory of earlier outputs whose consumers have finished
        # One event after the iteration's last GPU work: consumers wait on it on the GPU, and
        # each output's memory is leased so that it outlives their queued work.
        event = cuda.record()
        for tl in results:
            if isinstance(tl, TensorListGPU):
                cuda.lease(tl)
                tl.ready_event = event
    return tuple(results)


def run_iteration(
    plan: Plan,
    req: IterationRequest,
    pool: ThreadPoolExecutor | None,
    cuda: CudaContext | None = None,
    prof: Profile | None = None,
) -> tuple[Any, ...]:
    """Run every step of the plan for one iteration, on the calling thread (the synchronous
    executor); returns the output batches."""
    it = _Iteration(plan, req)
    steps = range(len(plan.steps))
    if cuda is None:
        _run_steps(plan, it, steps, pool, None, prof)
        return _finish(plan, it)
    with cuda.activate():
        _run_steps(plan, it, steps, pool, cuda, prof)
        return _finish(plan, it, cuda)


def run_given(
    plan: Plan,
    req: IterationRequest,
    given: dict[int, tuple[Any, BatchMeta]],
    pool: ThreadPoolExecutor | None,
    cuda: CudaContext | None = None,
    root: BatchMeta | None = None,
) -> list[tuple[Any, BatchMeta]]:
    """Run every step of the plan for one iteration whose input slots were filled elsewhere,
    on the calling thread; returns each output batch with its samples' identities.

    Debug mode (`dali._pipeline.debug`) runs each operator call this way as soon as it is
    made: a plan of one operator whose inputs are the batches earlier calls produced.

    Args:
        plan: The plan; ``given`` fills the slots its steps read and no step writes.
        req: The iteration (its index, epoch, Python sources' batches, stream position).
        given: Slot -> (batch, sample identities).
        pool: The per-sample thread pool (`Workspace.map`), or None.
        cuda: The pipeline's CUDA context, made current while the steps run (GPU work).
        root: The iteration's sample identity (what its first source produced), which
            operators without inputs take (None: the position in the sample stream).
    """
    it = _Iteration(plan, req)
    it.root = root
    for slot, (value, meta) in given.items():
        it.values[slot] = value
        it.metas[slot] = meta
    steps = range(len(plan.steps))
    with cuda.activate() if cuda is not None else contextlib.nullcontext():
        _run_steps(plan, it, steps, pool, cuda)
        outs = _finish(plan, it, cuda)
    result = []
    for out, slot in zip(outs, plan.outputs):
        out_meta = it.metas[slot]
        assert out_meta is not None  # (a step gives its outputs the identities it ran on)
        result.append((out, out_meta))
    return result


def _sample_keys(meta: BatchMeta) -> list[tuple[int, int, int]]:
    """(id, epoch, occurrence) per sample: unique even when padding repeats a sample."""
    seen: dict[tuple[int, int], int] = {}
    keys = []
    for i, e in zip(meta.ids.tolist(), meta.epochs.tolist()):
        n = seen.get((i, e), 0)
        seen[(i, e)] = n + 1
        keys.append((i, e, n))
    return keys


def align_outputs(values: list[Any], metas: list[Any]) -> tuple[list[Any], list[Any]]:
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
        new_values.append(tl.take(keep))
        new_metas.append(m.take(np.asarray(keep, dtype=np.int64)))
    return new_values, new_metas


#: Where a finished iteration goes instead of its slot (`Executor(deliver=...)`): called on
#: the last stage's thread with the request and the outputs, or None and the error.
Deliver = Callable[[IterationRequest, tuple[Any, ...] | None, BaseException | None], None]


def _fill(req: IterationRequest, out: Any, deliver: Deliver | None = None) -> None:
    """Hand a finished iteration (outputs or `_Failure`) to the consumer."""
    if deliver is not None:
        failed = isinstance(out, _Failure)
        deliver(req, None if failed else out, out.error if failed else None)
        return
    assert req.slot is not None
    req.slot.fill(out)


#: per thread: the id of the `_Stages` whose pool the thread belongs to
_pool_thread = threading.local()


def _init_pool_thread(owner: int, affinity: frozenset[int] | None) -> None:
    _pool_thread.owner = owner
    pin_current_thread(affinity)


class _Stages:
    """The stages of one pipeline and everything their threads touch (no reference back to the
    Pipeline, so that dropping the pipeline closes it).

    ``inboxes[k]`` feeds stage ``k``: ``(request, iteration)`` pairs, the iteration None for the
    first stage (it starts it) and a `_Failure` once a stage failed it (later stages only pass
    it on); None tells a stage to stop, and it passes None on.
    """

    def __init__(
        self,
        plan: Plan,
        num_threads: int,
        cuda: CudaContext | None = None,
        affinity: frozenset[int] | None = None,
        stage_queue: int = 0,
        profile: Profile | None = None,
        cpu_stage: CpuStageWorkers | None = None,
    ) -> None:
        self.plan = plan
        self.cuda = cuda
        #: the worker processes that run the CPU stage's steps (a GPU pipeline), or None
        self.cpu_stage = cpu_stage
        #: the cores every pipeline thread pins itself to (`set_affinity`), or None
        self.affinity = affinity
        self.stages = plan_stages(plan, gpu=cuda is not None)
        # the first stage's inbox takes what is submitted (bounded by the depth); a later
        # stage's holds at most ``stage_queue`` iterations the stage before it finished
        self.inboxes: list[queue.Queue[tuple[IterationRequest, Any] | None]] = [
            queue.Queue(0 if k == 0 else stage_queue) for k in range(len(self.stages))
        ]
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
        #: the pipeline's `Profile` (``DALI_PROFILE``, ``DALI_TRACE``, ``enable_memory_stats``);
        #: else one from the environment (a worker process's executor)
        self.profile = profile if profile is not None else _profile.from_env()
        #: where finished iterations go instead of their slots (`Executor`'s ``deliver``)
        self.deliver: Deliver | None = None
        #: set when the pipeline was dropped (`Executor.release`): start no more iterations
        self.stopping = False

    def run(self, k: int) -> None:
        """The loop of stage ``k``'s thread, until it is told to stop."""
        pin_current_thread(self.affinity)
        stage = self.stages[k]
        if k == 0 and self.cpu_stage is not None:
            self._collect_cpu_stage(self.cpu_stage)
            return
        try:
            device = self.cuda.activate() if stage.on_device and self.cuda else None
            with device if device is not None else contextlib.nullcontext():
                self._iterations(k)
        except BaseException as e:  # noqa: BLE001 - CUDA could not be set up: fail every iteration
            self._fail_all(k, e)

    def _iterations(self, k: int) -> None:
        stage, plan, prof = self.stages[k], self.plan, self.profile
        span = _profile.nothing if prof is None else prof.span
        last = k == len(self.stages) - 1
        inbox, outbox = self.inboxes[k], None if last else self.inboxes[k + 1]
        cuda = self.cuda if stage.on_device else None
        waiting = (
            "<wait for a request>" if k == 0 else f"<wait for the {self.stages[k - 1].label} stage>"
        )
        while True:
            with span(stage.label, -1, waiting):
                item = inbox.get()
            if prof is not None:
                prof.queued(stage.label, inbox.qsize())
            if item is None:
                if outbox is not None:
                    outbox.put(None)
                return
            if self.stopping:
                continue
            req, it = item
            if not isinstance(it, _Failure):
                try:
                    with span(stage.label, req.iteration, "<stage>"):
                        if it is None:
                            it = _Iteration(plan, req)
                        _run_steps(plan, it, stage.steps, self.pool, cuda, prof, stage.label)
                        if stage.prepare:
                            with span(stage.label, req.iteration, f"<{stage.hook}>"):
                                _prepare_steps(
                                    plan, it, stage.prepare, self.pool, self.cuda, stage.hook
                                )
                        if last:
                            with span(stage.label, req.iteration, "<finish>"):
                                it = _finish(plan, it, cuda, align=self.deliver is None)
                except BaseException as e:  # noqa: BLE001 - handed on, to the consumer thread
                    it = _Failure(e)
            if outbox is None:
                _fill(req, it, self.deliver)
            else:
                outbox.put((req, it))
            with span(stage.label, req.iteration, "<drop the iteration's inputs>"):
                del it, item, req  # drop this iteration's batches before waiting for the next

    def _collect_cpu_stage(self, workers: CpuStageWorkers) -> None:
        """The loop of the first stage when worker processes run its steps (``cpu_stage``):
        each request goes to them as soon as it comes (up to their depth), and their results
        are taken in order, the mixed operators' host part (``prepare``) run on them, and
        handed to the next stage. On the way to stopping, what the workers still make is
        dropped (nobody takes it)."""
        stage, plan, prof = self.stages[0], self.plan, self.profile
        span = _profile.nothing if prof is None else prof.span
        inbox, outbox = self.inboxes[0], self.inboxes[1]
        #: the iterations sent (or that failed to be), oldest first
        sent: collections.deque[tuple[IterationRequest, _Failure | None]] = collections.deque()
        while True:
            item: Any = ()
            while len(sent) < workers.depth:
                if sent:
                    try:
                        item = inbox.get_nowait()
                    except queue.Empty:
                        break
                else:
                    with span(stage.label, -1, "<wait for a request>"):
                        item = inbox.get()
                if item is None:
                    break
                if self.stopping:
                    continue
                try:
                    workers.submit(item[0])
                    sent.append((item[0], None))
                except BaseException as e:  # noqa: BLE001 - that iteration's error, in order
                    sent.append((item[0], _Failure(e)))
            if item is None:
                outbox.put(None)
                return
            if not sent:
                continue
            req, failed = sent.popleft()
            outs: Any = None
            it: _Iteration | _Failure
            if failed is not None:
                it = failed
            else:
                try:
                    with span(stage.label, req.iteration, "<wait for the worker processes>"):
                        outs, root = workers.get()
                    fresh = _Iteration(plan, req)
                    fresh.root = root
                    for slot, value, meta in outs:
                        fresh.values[slot] = value
                        fresh.metas[slot] = meta
                    if stage.prepare:
                        with span(stage.label, req.iteration, f"<{stage.hook}>"):
                            _prepare_steps(
                                plan, fresh, stage.prepare, self.pool, self.cuda, stage.hook
                            )
                    it = fresh
                except BaseException as e:  # noqa: BLE001 - handed on, to the consumer thread
                    it = _Failure(e)
            outbox.put((req, it))
            del it, req, outs, failed  # drop this iteration's batches before the next

    def _fail_all(self, k: int, error: BaseException) -> None:
        """Fail every iteration that reaches stage ``k`` with ``error`` (until told to stop)."""
        last = k == len(self.stages) - 1
        inbox = self.inboxes[k]
        while True:
            item = inbox.get()
            if item is None:
                if not last:
                    self.inboxes[k + 1].put(None)
                return
            if last:
                _fill(item[0], _Failure(error), self.deliver)
            else:
                self.inboxes[k + 1].put((item[0], _Failure(error)))


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
        deliver: Hand each finished iteration to this function, on the last stage's thread, in
            order, instead of keeping it for `get` (asynchronous only): a worker process sends
            it from there (`dali._exec.process.worker`) without waking another thread.
        depth: How many iterations to keep in flight (`depth`): the pipeline schedules that
            many on its first run, then one per iteration taken (``prefetch_queue_depth``).
        stage_queue: How many finished iterations a stage may hold for the next one before it
            waits (DALI's CPU queue, ``prefetch_queue_depth``'s ``cpu_size``); 0: no bound.
        profile: What records the steps and stages (`dali._exec.profile`); None: one from the
            environment when ``DALI_PROFILE`` or ``DALI_TRACE`` is set.
        cpu_stage: Worker processes that run the CPU stage's steps of a GPU pipeline
            (`dali._exec.process.stage`); its thread then sends them the iterations and
            collects their results. None: the steps run here.
    """

    def __init__(
        self,
        plan: Plan,
        *,
        num_threads: int,
        asynchronous: bool = True,
        cuda: CudaContext | None = None,
        affinity: frozenset[int] | None = None,
        deliver: Deliver | None = None,
        depth: int = 1,
        stage_queue: int = 0,
        profile: Profile | None = None,
        cpu_stage: CpuStageWorkers | None = None,
    ) -> None:
        self._state = _Stages(plan, num_threads, cuda, affinity, stage_queue, profile, cpu_stage)
        self._state.deliver = deliver
        self._async = asynchronous
        #: iterations the executor keeps in flight (submitted and not yet taken): with worker
        #: processes for the CPU stage, also those they make ahead
        self.depth = max(1, depth) + (cpu_stage.depth if cpu_stage is not None else 0)
        #: one slot per submitted iteration not yet taken by `get`, oldest first
        self._slots: collections.deque[_Slot] = collections.deque()
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._close_lock = threading.Lock()
        #: set once `_shut_down` has finished (a second `close` waits for it)
        self._shut = threading.Event()
        #: the last iteration `get` took (failed ones too): its request's ``cursor`` and the
        #: operators' ``states`` after it: where a checkpoint of the consumer stands
        self.taken: tuple[Any, dict[str, Any]] | None = None
        _closer.track(self)  # closed at interpreter exit if still open

    @property
    def in_flight(self) -> int:
        """Iterations submitted and not yet taken by `get` (running, or finished and waiting)."""
        return len(self._slots)

    def submit(self, req: IterationRequest) -> None:
        if self._closed:
            raise RuntimeError("the pipeline was closed")
        slot = _Slot(req, keep_request=not self._async)
        if not self._async:
            self._slots.append(slot)
            return
        if not self._threads:
            self._start_threads()
        # Queued before it is counted: an interrupt between the two loses one iteration's
        # outputs but never leaves `get` waiting for an iteration that was never queued.
        self._state.inboxes[0].put((dataclasses.replace(req, slot=slot), None))
        if self._state.deliver is None:
            self._slots.append(slot)

    @property
    def stages(self) -> list[Stage]:
        """The stages, first to last, each run by a thread of its own (when asynchronous)."""
        return self._state.stages

    def _start_threads(self) -> None:
        state = self._state
        for k, stage in enumerate(state.stages):
            self._threads.append(
                threading.Thread(target=state.run, args=(k,), name=stage.thread, daemon=True)
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
            taken = self._slots.popleft()
            self.taken = taken.cursor, taken.states  # (the states fill as it runs)
            req = taken.req
            assert req is not None
            state = self._state
            return run_iteration(state.plan, req, state.pool, state.cuda, state.profile)
        slot = self._slots[0]
        slot.wait()
        self._slots.popleft()
        self.taken = slot.cursor, slot.states
        out: tuple[Any, ...] | _Failure = slot.value
        slot.value = None  # the workers may still hold the slot: not its data
        if isinstance(out, _Failure):
            raise out.error
        return out

    def restored(self, seed: int, states: dict[str, Any]) -> None:
        """The pipeline restored its plan's operators (nothing is in flight). They are this
        executor's own (the plan is shared): nothing to do but reseed the CPU stage's worker
        processes, if any. A `ProcessExecutor` sends them on."""
        if self._state.cpu_stage is not None:
            self._state.cpu_stage.restored(seed, states)

    @property
    def pid(self) -> int | None:
        """The worker process running the iterations: None, this process runs them."""
        return None

    @property
    def cpu_stage(self) -> CpuStageWorkers | None:
        """The worker processes of the CPU stage (a GPU pipeline's), or None: it runs here."""
        return self._state.cpu_stage

    @property
    def skipped(self) -> dict[str, int]:
        """What the CPU stage's worker processes skipped (`ProcessExecutor.skipped`); the
        plan's operators count for themselves."""
        return {} if self._state.cpu_stage is None else self._state.cpu_stage.skipped

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
            self._shut.wait(options.JOIN_TIMEOUT)

    def _shut_down(self) -> None:
        state = self._state
        if self._threads:
            state.inboxes[0].put(None)  # each stage passes it on to the next
            for thread in self._threads:
                thread.join(timeout=options.JOIN_TIMEOUT)
        if state.pool is not None:
            state.pool.shutdown(wait=True, cancel_futures=True)
        if state.cpu_stage is not None:
            state.cpu_stage.close()
        # A consumer still waiting (close() from another thread) gets an error, not a hang.
        closed = _Failure(RuntimeError("the pipeline was closed"))
        for slot in list(self._slots):
            if not slot.filled():
                slot.fill(closed)
        if state.profile is not None:
            state.profile.finish()
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
