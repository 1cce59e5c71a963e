"""The `Pipeline`: graph definition, build, and the run/schedule API of DALI.

Its self-contained helpers are siblings: `arguments` (the constructor's checks), `properties`
(the read-only settings, a mixin), `outputs` (the graph outputs and the checks of every
iteration's batches) and `scheduling` (the iteration counters, asking the Python sources).
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import sys
import textwrap
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from dali import _options as options
from dali._exec import closer as _closer
from dali._exec import profile as _profile
from dali._exec.affinity import pipeline_cores, usable_cores
from dali._exec.executor import Executor
from dali._exec.process.executor import ProcessExecutor
from dali._graph import context
from dali._graph.build import BuildError, Plan, build_plan, reseed
from dali._graph.node import DataNode, OpNode
from dali._ops.base import PythonSource
from dali._pipeline import checkpoint as _cpt
from dali._pipeline.arguments import (
    CPU_PARALLELISM,
    check_batch_settings,
    check_memory_limit,
    check_output_spec,
    check_types,
    normalize_depth,
)
from dali._pipeline.inspection import Inspection
from dali._pipeline.outputs import normalize_outputs, validate_outputs
from dali._pipeline.properties import PipelineProperties
from dali._pipeline.scheduling import ScheduleState, fetch_sources, iterations_ahead, sources_ready
from dali._pipeline.serialization import Serialization

if TYPE_CHECKING:
    from typing_extensions import Self

    from dali._dtypes import PipelineAPIType
    from dali._exec.device import CudaContext
    from dali._exec.process.pool import PoolExecutor
    from dali._exec.process.stage import CpuStageWorkers
    from dali._exec.profile import Profile
    from dali._graph.trace import EagerCalls

    #: what runs a pipeline's iterations: threads here, one worker process, or a pool of them
    _AnyExecutor: TypeAlias = "Executor | ProcessExecutor | PoolExecutor"

__all__ = ["Pipeline", "PipelineInfo", "require_gpu"]

_BASIC, _ITERATOR, _SCHEDULED = "BASIC", "ITERATOR", "SCHEDULED"

_F = TypeVar("_F", bound=Callable[..., Any])


def _serialised(method: _F) -> _F:
    """Run ``method`` holding the pipeline's run lock: one thread at a time runs, schedules or
    consumes iterations. Two threads calling `Pipeline.run` at once then take turns, each
    getting its own iteration, instead of racing on the counters and the executor."""

    @functools.wraps(method)
    def locked(self: Pipeline, *args: Any, **kwargs: Any) -> Any:
        with self._run_lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]


def _gpu_users(plan: Plan) -> list[str]:
    """One line per operator of ``plan`` that needs a GPU, with where the user defined it.

    The `.gpu()` copies are listed only when no GPU or mixed operator is: the copies that feed
    a GPU operator are implied by it.
    """
    from dali._ops.transfer import Transfer

    ops = [s for s in plan.steps if s.device != "cpu" and not isinstance(s.impl, Transfer)]
    copies = [s for s in plan.steps if s.device != "cpu" and isinstance(s.impl, Transfer)]
    lines = []
    for step in ops or copies:
        node = step.node
        if isinstance(step.impl, Transfer):
            what = f"`{node.name}` (a `.gpu()` copy)"
        else:
            what = f"`{node.schema.display_name}` (device='{step.device}', {node.name})"
        line = f"  * {what} needs a GPU but device_id=None"
        if node.definition:
            line += "; defined at:\n" + textwrap.indent(node.definition.rstrip(), "    ")
        lines.append(line)
    return lines


def require_gpu(device_id: int | None, plan: Plan) -> None:
    """Check that the GPU work of ``plan`` has a GPU: the pipeline's ``device_id``, which must
    be a device of this machine.

    Raises:
        BuildError: ``device_id`` is None (the message names every operator of ``plan`` that
            needs a GPU and where it was defined).
    """
    if device_id is None:
        raise BuildError(
            "The pipeline requires a CUDA-capable GPU, but device_id=None was given:\n"
            + "\n".join(_gpu_users(plan))
            + "\nPass device_id=<GPU index> or keep every operator on the CPU."
        )
    from dali._exec import device

    device.require(device_id)


def _release(executor: _AnyExecutor, profile: Profile | None) -> None:
    """A dropped pipeline's finalizer: release the executor (`Executor.release`: it never
    blocks) and write what the consumer's profile recorded (a trace, a report)."""
    executor.release()
    if profile is not None:
        _closer.defer(profile.finish)


@dataclass(frozen=True)
class PipelineInfo:
    """Read-only facts about a pipeline that operators may use (no back-reference)."""

    max_batch_size: int
    num_threads: int
    device_id: int | None
    seed: int
    prefetch_queue_depth: int
    py_num_workers: int
    py_start_method: str
    enable_checkpointing: bool
    #: The pipeline's `dali._exec.device.CudaContext` (None when device_id is None).
    cuda: Any = None
    #: How many iterations run ahead of the consumer (one without ``exec_pipelined``).
    iterations_ahead: int = 1
    #: Whether the iterations run on threads of their own (``exec_async`` and pipelined).
    asynchronous: bool = True
    device_memory_limit: int | None = None
    pinned_memory_limit: int | None = None
    #: ``set_affinity``: a GPU pipeline's threads run on the cores nearest its GPU.
    set_affinity: bool = False


def worker_count(threads: int, cores: int, *, gpu: bool) -> tuple[int, str]:
    """How many worker processes ``num_threads=threads`` gets on ``cores`` usable cores, and
    why (`Pipeline.cpu_workers`, once the graph allows processes): none below
    ``options.POOL_MIN_THREADS`` of either, else one per thread, at most one per core, and for a
    GPU pipeline's CPU stage at most ``options.STAGE_WORKER_SHARE`` of the cores.

    Example:
        >>> worker_count(16, 16, gpu=True)[0], worker_count(16, 16, gpu=False)[0]
        (8, 16)
    """
    if threads < options.POOL_MIN_THREADS or cores < options.POOL_MIN_THREADS:
        return 0, (
            f"num_threads={threads} on {cores} usable cores (worker processes from "
            f"{options.POOL_MIN_THREADS} of both)"
        )
    if gpu:  # the GPU's process keeps cores of its own busy
        share = max(options.POOL_MIN_THREADS, int(cores * options.STAGE_WORKER_SHARE))
        if threads > share:
            return share, (
                f"num_threads={threads} on {cores} usable cores, at most "
                f"{options.STAGE_WORKER_SHARE:.0%} of them for a GPU pipeline's CPU stage"
            )
    return min(threads, cores), f"num_threads={threads} on {cores} usable cores"


class Pipeline(PipelineProperties, Inspection, Serialization):
    """A graph of operators that produces batches ahead of the training loop.

    Define the graph with ``with pipe: ... pipe.set_outputs(...)``, by overriding
    `define_graph`, or with the `pipeline_def` decorator; then call `run` (or iterate with a
    framework plugin). An all-CPU pipeline runs with any ``device_id`` on a machine without CUDA.

    GPU work runs on one CUDA stream of the pipeline, in a stage that overlaps the CPU stage of
    the next iteration; GPU outputs carry an event that DLPack / ``__cuda_array_interface__``
    consumers wait on, on the GPU (see `dali._exec.device`). Two keyword arguments beyond
    DALI's bound its memory: ``device_memory_limit`` (bytes of the pipeline's device memory
    pool; allocating more fails naming the operator) and ``pinned_memory_limit`` (bytes of
    pinned host staging in flight). `release_memory` frees what the pools cache.
    ``set_affinity=True`` pins the pipeline's threads of a GPU pipeline to the cores nearest
    its GPU (its NUMA node, `dali._exec.affinity`), as DALI does; use it with one process
    per GPU.

    ``worker_process=True`` (our extension) runs the pipeline's operators in a worker process
    of its own, so that its host work does not share the GIL of the process that consumes
    it: several GPU pipelines of one process then run in parallel. GPU outputs come back
    through CUDA IPC without a copy, and everything else stays the same: the batches, errors,
    checkpoints (`dali._exec.process`). None (the default) lets the framework iterators choose
    (they use it for several GPU pipelines); False keeps the pipeline in-process.

    ``num_threads`` is the CPU work the pipeline buys. One interpreter lock caps threads at a
    few cores, so a CPU pipeline with ``num_threads`` of 4 or more (and as many usable cores)
    runs on that many worker processes, each making whole batches that come back through
    shared memory without a copy (`cpu_workers` says what was chosen and why); a GPU
    pipeline whose CPU stage has CPU operators (box arithmetic, say) runs that stage so, and
    keeps its decoders and GPU work in this process. The batches, random values and
    checkpoints are those of threads. ``cpu_parallelism="threads"`` or ``"processes"`` (our
    extension) decides instead of that rule.

    A GPU output stays valid, never overwritten by later iterations, for as long as you hold a
    reference to it (or to a framework tensor made from it through DLPack); once you drop it,
    its memory is reused by the pipeline's stream, so work on other streams that reads it must
    be finished or ordered first.

    Example:
        >>> import dali.fn as fn
        >>> pipe = Pipeline(batch_size=4, num_threads=2, seed=1)
        >>> with pipe:
        ...     pipe.set_outputs(fn.random.uniform(range=(0, 1)))
        >>> (out,) = pipe.run()
        >>> len(out)
        4
    """

    #: Whether `pipeline_def` converted the graph function's ``if`` statements (set only by it).
    _conditionals: bool
    #: What runs operator calls at once instead of recording them: set only while a pipeline
    #: in debug mode runs its definition (`dali._pipeline.debug`; `_graph.trace.call_operator`).
    _eager: EagerCalls | None = None

    def __init__(
        self,
        batch_size: int | None = None,
        num_threads: int | None = None,
        device_id: int | None = None,
        seed: int | None = None,
        exec_pipelined: bool = True,
        prefetch_queue_depth: int | dict[str, int] = 2,
        exec_async: bool = True,
        bytes_per_sample: int = 0,
        set_affinity: bool = False,
        max_streams: int | None = None,
        default_cuda_stream_priority: int | None = None,
        *,
        enable_memory_stats: bool = False,
        enable_checkpointing: bool = False,
        checkpoint: Any = None,
        py_num_workers: int = 1,
        py_start_method: str = "fork",
        py_callback_pickler: Any = None,
        output_dtype: Any = None,
        output_ndim: Any = None,
        output_layout: Any = None,
        exec_dynamic: bool | None = None,
        experimental_exec_dynamic: bool | None = None,
        stream_policy: Any = None,
        concurrency: Any = None,
        device_memory_limit: int | None = None,
        pinned_memory_limit: int | None = None,
        worker_process: bool | None = None,
        cpu_parallelism: str = "auto",
    ) -> None:
        check_types(
            batch_size=batch_size,
            num_threads=num_threads,
            device_id=device_id,
            seed=seed,
            exec_pipelined=exec_pipelined,
            exec_async=exec_async,
            bytes_per_sample=bytes_per_sample,
            set_affinity=set_affinity,
            enable_memory_stats=enable_memory_stats,
            enable_checkpointing=enable_checkpointing,
            py_num_workers=py_num_workers,
            py_start_method=py_start_method,
            exec_dynamic=exec_dynamic,
            experimental_exec_dynamic=experimental_exec_dynamic,
            worker_process=worker_process,
            cpu_parallelism=cpu_parallelism,
        )
        if cpu_parallelism not in CPU_PARALLELISM:
            raise ValueError(
                f"`cpu_parallelism` must be one of {', '.join(map(repr, CPU_PARALLELISM))}, "
                f"got {cpu_parallelism!r}"
            )
        if max_streams is not None:
            warnings.warn("`max_streams` is deprecated and has no effect", DeprecationWarning, 2)
        if default_cuda_stream_priority is not None:
            warnings.warn(
                "`default_cuda_stream_priority` is deprecated and has no effect",
                DeprecationWarning,
                2,
            )
        if seed is not None and seed < 0:
            warnings.warn(
                "A negative seed is deprecated and treated as None (a random seed)",
                DeprecationWarning,
                2,
            )
            seed = None
        if py_start_method not in ("fork", "spawn"):
            raise ValueError(
                f'`py_start_method` must be "fork" or "spawn", got {py_start_method!r}'
            )
        if py_callback_pickler is not None and py_start_method == "fork":
            raise ValueError("`py_callback_pickler` can only be used with py_start_method='spawn'")
        self._max_batch_size = None if batch_size is None else int(batch_size)
        self._num_threads = None if num_threads is None else int(num_threads)
        self._device_id = None if device_id == -99999 else device_id
        self._seed = None if seed is None else int(seed)
        self._resolved_seed = self._seed if self._seed is not None else secrets.randbits(63)
        self._exec_pipelined = bool(exec_pipelined)
        self._exec_async = bool(exec_async)
        cpu_q, gpu_q, separated = normalize_depth(prefetch_queue_depth, self._exec_async)
        self._prefetch_queue_depth = prefetch_queue_depth
        self._cpu_queue_size, self._gpu_queue_size = cpu_q, gpu_q
        self._exec_separated = separated
        if exec_dynamic is None:
            exec_dynamic = experimental_exec_dynamic
        if exec_dynamic is None and self._exec_async and self._exec_pipelined and not separated:
            exec_dynamic = True
        self._exec_dynamic = exec_dynamic
        self._bytes_per_sample = bytes_per_sample
        self._set_affinity = set_affinity
        self._enable_memory_stats = enable_memory_stats
        self._enable_checkpointing = enable_checkpointing
        self._checkpoint = checkpoint
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method
        self._py_callback_pickler = py_callback_pickler
        self._stream_policy = stream_policy
        self._concurrency = concurrency
        self._output_dtype = check_output_spec(output_dtype, "output_dtype", "dtype")
        self._output_ndim = check_output_spec(output_ndim, "output_ndim", "ndim")
        self._output_layout = check_output_spec(output_layout, "output_layout", "layout")
        check_memory_limit("device_memory_limit", device_memory_limit)
        check_memory_limit("pinned_memory_limit", pinned_memory_limit)
        self._cuda: CudaContext | None = None
        if self._device_id is not None:
            from dali._exec.device import CudaContext

            # Cheap: CUDA is touched only when a GPU operator first runs.
            self._cuda = CudaContext(
                self._device_id,
                device_memory_limit=device_memory_limit,
                pinned_memory_limit=pinned_memory_limit,
            )

        self._ops: list[OpNode] = []
        self._names: dict[str, OpNode] = {}
        self._op_counter = 0
        self._graph_outputs: list[DataNode] | None = None
        self._plan: Plan | None = None
        self._executor: _AnyExecutor | None = None
        #: run the operators in a worker process (None: not chosen; see `use_worker_process`)
        self._worker_process = worker_process
        #: the iterator chose the worker process (it falls back to in-process when it cannot)
        self._worker_chosen = False
        #: how a CPU pipeline spreads its work: "auto", "threads" or "processes" (`_pool`)
        self._cpu_parallelism = cpu_parallelism
        self._finalizer: Any = None
        #: what records steps, stages and output sizes (None: nothing is recorded)
        self._profile: Profile | None = None
        #: iterations the consumer took (the consumer's spans in a trace)
        self._taken = 0
        self._built = False
        self._api_type: str | None = None
        self._api_check = True
        # (see schedule_run) non-pipelined execution runs one iteration per run, as DALI's
        self._ahead = iterations_ahead(self._exec_pipelined, cpu_q, gpu_q, separated)
        self._sched = ScheduleState(depth=self._ahead)
        #: held while running, scheduling or consuming iterations, and building (`_serialised`)
        self._run_lock = threading.RLock()
        self._py_pool: Any = None
        #: restored from ``checkpoint`` at build (`is_restored_from_checkpoint`)
        self._restored = False
        #: the iterator state a restored checkpoint holds (DALI's name; iterators read it)
        self._iterator_data: str | None = None
        #: where the consumer stands: (epoch, iteration, stream position) of the next
        #: iteration it gets, and every stateful operator's state after the last one it got
        self._consumed: tuple[tuple[int, int, int], dict[str, Any]] = ((0, 0, 0), {})

    # -- properties that need the graph (the others: `PipelineProperties`) ---------------
    @property
    def num_outputs(self) -> int:
        self.build()
        assert self._graph_outputs is not None
        return len(self._graph_outputs)

    def output_dtype(self) -> list[Any]:
        """The static dtype of each output (None where unknown before running)."""
        self.build()
        assert self._graph_outputs is not None
        return [n.dtype for n in self._graph_outputs]

    def output_ndim(self) -> list[int | None]:
        """The static sample ndim of each output (None where unknown before running)."""
        self.build()
        assert self._graph_outputs is not None
        return [n.ndim for n in self._graph_outputs]

    def output_shape(self) -> list[tuple[int | None, ...] | None]:
        """The static per-sample shape of each output, known before running (our extension).

        An entry is an int where every sample has that extent whatever the data, None where
        the data decides (an image's height); an output is None where not even its number of
        dimensions is known. The shapes come from the operators' arguments at trace time
        (``Operator.static_meta``): running nothing, reading no file.

        Returns:
            One shape per output, as `output_dtype` gives one type.

        Example:
            >>> import numpy as np
            >>> from dali import fn, pipeline_def, types
            >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
            ... def pipe():
            ...     image = types.Constant(np.zeros((40, 60, 3), np.uint8), layout="HWC")
            ...     square = fn.resize(image, resize_x=32, resize_y=32)
            ...     chw = fn.transpose(square, perm=[2, 0, 1])
            ...     fed = fn.external_source(lambda: [np.zeros((4, 6), np.uint8)] * 2, layout="HW")
            ...     return square, chw, fn.random.uniform(), fed, fn.resize(fed, resize_y=8)
            >>> pipe().output_shape()
            [(32, 32, 3), (3, 32, 32), (), (None, None), (8, None)]
        """
        self.build()
        assert self._graph_outputs is not None
        return [n.static_shape for n in self._graph_outputs]

    # -- graph definition ------------------------------------------------------------------
    @staticmethod
    def current() -> Pipeline | None:
        """The pipeline whose graph is being defined in this thread (or None)."""
        return context.current_pipeline()

    @staticmethod
    def push_current(pipeline: Pipeline) -> None:
        context.push_pipeline(pipeline)

    @staticmethod
    def pop_current() -> Pipeline | None:
        return context.pop_pipeline()

    def __enter__(self) -> Self:
        context.push_pipeline(self)
        return self

    def __exit__(self, *exc: object) -> None:
        context.pop_pipeline()

    def _next_op_index(self) -> int:
        i = self._op_counter
        self._op_counter += 1
        return i

    def _claim_name(self, name: str, schema: Any) -> None:
        if name in self._names:
            raise ValueError(
                f'Operator name "{name}" is already used in this pipeline (by '
                f"`{self._names[name].schema.display_name}`); names must be unique."
            )

    def _add_op(self, op: OpNode) -> None:
        if self._built:
            raise RuntimeError(
                f"Cannot add operator `{op.schema.display_name}` to a pipeline that was built."
            )
        self._ops.append(op)
        self._names[op.name] = op

    def iter_setup(self) -> None:
        """Override to feed external sources (`feed_input`) before each scheduled iteration."""

    def define_graph(self) -> Any:
        """Override in a subclass to return the pipeline outputs."""
        raise NotImplementedError

    def set_outputs(self, *outputs: Any) -> None:
        """Declare the pipeline outputs (DataNodes or constants)."""
        if self._built:
            raise RuntimeError("Cannot set the outputs of a pipeline that was already built.")
        with self:
            self._graph_outputs = normalize_outputs(list(outputs))

    # -- build -----------------------------------------------------------------------------
    def _info(self) -> PipelineInfo:
        assert self._max_batch_size is not None and self._num_threads is not None
        return PipelineInfo(
            max_batch_size=self._max_batch_size,
            num_threads=self._num_threads,
            device_id=self._device_id,
            seed=self._resolved_seed,
            prefetch_queue_depth=self._cpu_queue_size,
            py_num_workers=self._py_num_workers,
            py_start_method=self._py_start_method,
            enable_checkpointing=self._enable_checkpointing,
            cuda=self._cuda,
            iterations_ahead=self._ahead,
            asynchronous=self._exec_async and self._exec_pipelined,
            device_memory_limit=None if self._cuda is None else self._cuda.device_memory_limit,
            pinned_memory_limit=None if self._cuda is None else self._cuda.pinned_memory_limit,
            set_affinity=self._set_affinity,
        )

    def build(self) -> None:
        """Validate and freeze the graph (called automatically; idempotent)."""
        if self._built:  # without the lock: `feed_input` from another thread while a run waits
            return
        with self._run_lock:
            if not self._built:
                self._build()

    def _build(self) -> None:
        check_batch_settings(self._max_batch_size, self._num_threads)
        saved = self._read_checkpoint()
        if self._graph_outputs is None:
            with self:
                outs = self.define_graph()
                self._graph_outputs = normalize_outputs(outs)
        plan = build_plan(
            self._graph_outputs, self._ops, pipeline_info=self._info(), seed=self._resolved_seed
        )
        if plan.uses_gpu:
            self._require_gpu(plan)
        self._source_index = {id(s): i for i, s in enumerate(plan.steps)}
        if self._enable_checkpointing:
            self._require_own_operators(plan)
            self._warn_unrestorable_sources(plan)
        if saved is not None:
            self._restore(plan, saved)
        self._consumed = self._position(plan)
        self._plan = plan
        #: where the pipeline stood when built (`rewind`'s default)
        self._built_at = self._document()
        _closer.start()  # closes this pipeline if it is dropped without close()
        self._built = True

    # -- checkpoints -------------------------------------------------------------------------
    def _position(self, plan: Plan) -> tuple[tuple[int, int, int], dict[str, Any]]:
        """Where the pipeline stands now (when nothing is in flight): see ``_consumed``."""
        sched = self._sched
        return (
            (sched.epoch, sched.iteration, sched.stream_pos),
            {s.node.name: s.impl.get_state() for s in plan.steps if s.stateful},
        )

    def _require_checkpointing(self, action: str) -> None:
        """DALI's error when checkpointing is off (``action``: "save the checkpoint", ...)."""
        if not self._enable_checkpointing:
            raise RuntimeError(
                f'Assert on "checkpointing_enabled()" failed: Cannot {action}. The '
                "`enable_checkpointing` was not specified when creating the pipeline: pass "
                "enable_checkpointing=True to the Pipeline (or to @pipeline_def)"
            )

    def _read_checkpoint(self) -> dict[str, Any] | None:
        """The ``checkpoint`` given to the constructor, parsed; its seed replaces the
        pipeline's (DALI: the checkpoint's state wins)."""
        if self._checkpoint is None:
            return None
        self._require_checkpointing("restore checkpoint")
        saved = _cpt.decode(self._checkpoint)
        self._resolved_seed = saved["seed"]
        return saved

    def _restore(self, plan: Plan, saved: dict[str, Any]) -> None:
        """Put the operators and the counters where the checkpoint's consumer stood."""
        _cpt.check_graph(saved["graph"], plan.identities)
        states = saved["ops"]
        for step in plan.steps:
            if step.stateful:
                if not isinstance(states.get(step.node.name), dict):
                    raise _cpt.CheckpointError(
                        f"it holds no state for the operator '{step.node.name}'"
                    )
                step.impl.set_state(states[step.node.name])
        sched = self._sched
        sched.epoch, sched.iteration, sched.stream_pos = (
            saved["epoch_idx"],
            saved["iter"],
            saved["stream"],
        )
        self._iterator_data = saved.get("iterator_data")
        self._restored = True

    def _require_own_operators(self, plan: Plan) -> None:
        """DALI's rule: a checkpointed graph has only operators defined in this pipeline's
        scope (others have no stable name, so a checkpoint could not find them again)."""
        from dali._ops.transfer import Transfer

        foreign = [
            s.node.name
            for s in plan.steps
            if not isinstance(s.impl, Transfer)
            and (s.node.pipeline is None or s.node.pipeline() is not self)
        ]
        if foreign:
            raise RuntimeError(
                "The pipeline does not support checkpointing because it contains operator(s) "
                f"that were defined outside the pipeline scope:\n{foreign}\nAll operators "
                "should be defined while the pipeline is set as the current pipeline. This "
                "happens automatically when defining the pipeline in a function decorated "
                "with `@pipeline_def`."
            )

    @_serialised
    def restore(self, checkpoint: bytes | str) -> None:
        """Continue from ``checkpoint`` now, in this pipeline (our extension; DALI restores only
        at construction, ``Pipeline(checkpoint=...)``, which stays the way to do it).

        Iterations already computed ahead are computed to the end and dropped; then the readers,
        the counters and the seed are the checkpoint's, and the next `run` returns what the
        saved pipeline returned after the checkpoint. Framework iterators use it for their
        in-place restores (`dali.plugin.base_iterator`'s ``load_checkpoints``).

        Raises:
            RuntimeError: The pipeline was made without ``enable_checkpointing=True``.
            dali.author.CheckpointError: Not a checkpoint of this pipeline.
        """
        self._require_checkpointing("restore checkpoint")
        if not self._built:
            self._checkpoint = checkpoint
            self.build()
            return
        self._go_to(checkpoint)

    def snapshot(self) -> bytes:
        """Where the consumer stands, as `checkpoint` gives it, also for a pipeline made
        without ``enable_checkpointing`` (our extension, for framework datasets: `rewind`).

        What a checkpoint misses, a snapshot misses too (the position of a Python source that
        is an iterable), and without ``enable_checkpointing`` nothing warns of it.
        """
        self.build()
        with self._run_lock:
            return self._document()

    def rewind(self, snapshot: bytes | str | None = None) -> None:
        """Go back to ``snapshot`` (`snapshot`; default: where the pipeline stood when it was
        built), with or without ``enable_checkpointing`` (our extension).

        The next `run` returns what the pipeline returned after that point: the readers, the
        random values and the Python sources that take the iteration start there again. DALI's
        framework datasets build a fresh pipeline instance for every iterator; dali's rewind
        the one pipeline instead (``dali.plugin.tf.DALIDataset``).
        """
        self.build()
        self._go_to(self._built_at if snapshot is None else snapshot)

    def _go_to(self, checkpoint: bytes | str) -> None:
        """`restore`'s work, for a built pipeline."""
        assert self._plan is not None
        saved = _cpt.decode(checkpoint)
        _cpt.check_graph(saved["graph"], self._plan.identities)  # before anything changes
        executor = self._executor
        while executor is not None and executor.in_flight:
            try:
                executor.get()
            except Exception:  # noqa: BLE001,S110 - an iteration being dropped may fail: fine
                pass
        if executor is not None:
            executor.taken = None
        if saved["seed"] != self._resolved_seed:
            self._resolved_seed = saved["seed"]
            reseed(self._plan, self._resolved_seed)
        for step in self._plan.callback_sources:
            step.impl.on_reset()  # (parallel sources: the batches asked for ahead)
        self._restore(self._plan, saved)
        self._sched.first_scheduled = False
        self._sched.end_of_data = False
        self._consumed = self._position(self._plan)
        if executor is not None:
            executor.restored(self._resolved_seed, self._consumed[1])

    def _warn_unrestorable_sources(self, plan: Plan) -> None:
        for step in plan.callback_sources:
            assert isinstance(step.impl, PythonSource)
            reason = step.impl.unrestorable()
            if reason is not None:
                warnings.warn(
                    f"Checkpointing enabled in a pipeline with external source operator "
                    f"'{step.node.name}', {reason}. A checkpoint doesn't capture the state of "
                    "such a 'source': when a checkpoint is restored, the 'source' must be moved "
                    "by the user to the right point, otherwise it starts from the beginning, "
                    "out of step with the other data sources.",
                    stacklevel=4,
                )

    def _note_consumed(self, executor: _AnyExecutor) -> None:
        """Move the consumer position to the iteration the executor just handed out."""
        taken, executor.taken = executor.taken, None
        if taken is not None:
            cursor, states = taken
            self._consumed = (cursor, {**self._consumed[1], **states})

    def checkpoint(self, filename: str | None = None) -> bytes:
        """The pipeline's state, where its consumer stands, as a small JSON document (bytes).

        It describes the iterations returned so far, not those prefetched: a pipeline made
        with ``checkpoint=`` (and ``enable_checkpointing=True``) returns exactly the
        iterations this one would return next, with the same random values. It holds the
        seed, the epoch and iteration, each reader's position and never any data
        (`dali._pipeline.checkpoint`); ``filename``: also written to that file.

        Raises:
            RuntimeError: The pipeline was made without ``enable_checkpointing=True``.

        Example:
            >>> import dali.fn as fn
            >>> pipe = Pipeline(batch_size=2, num_threads=1, seed=3, enable_checkpointing=True)
            >>> with pipe:
            ...     pipe.set_outputs(fn.random.uniform())
            >>> _ = pipe.run()
            >>> cpt = pipe.checkpoint()
            >>> after = pipe.run()[0].as_array()
            >>> twin = Pipeline(batch_size=2, num_threads=1, enable_checkpointing=True,
            ...                 checkpoint=cpt)
            >>> with twin:
            ...     twin.set_outputs(fn.random.uniform())
            >>> bool((twin.run()[0].as_array() == after).all())
            True
        """
        self.build()
        cpt = self._get_checkpoint()
        if filename is not None:
            with open(filename, "wb") as f:
                f.write(cpt)
        return cpt

    def _get_checkpoint(self, iterator_data: str | None = None) -> bytes:
        """`checkpoint` with the framework iterator's state embedded (DALI's hook)."""
        self._require_checkpointing("save the checkpoint")
        self.build()
        with self._run_lock:
            return self._document(iterator_data)

    def _document(self, iterator_data: str | None = None) -> bytes:
        """The checkpoint document of where the consumer stands (hold the run lock)."""
        assert self._plan is not None
        (epoch, iteration, stream), states = self._consumed
        return _cpt.encode(
            _cpt.new_document(
                seed=self._resolved_seed,
                epoch=epoch,
                iteration=iteration,
                stream=stream,
                graph=self._plan.identities,
                ops=states,
                iterator_data=iterator_data,
            )
        )

    def reader_resume(self, name: str) -> dict[str, Any] | None:
        """Where the reader ``name`` resumes after an elastic restore (our extension).

        A checkpoint restored into a pipeline whose reader has other shards or another batch
        size spreads the rest of the interrupted epoch over the new shards
        (`dali._ops.readers.loader.resume`); the framework iterators read this to count that
        epoch. Returns ``{"epoch": e, "part_sizes": [...] or None, "length": L}``, or None
        when the pipeline was not restored elastically.
        """
        self.build()
        assert self._plan is not None
        step = self._plan.by_name.get(name)
        if step is None or step.impl.reader_meta() is None:
            raise RuntimeError(f"Pipeline.reader_resume: no reader named {name!r}.")
        return step.impl.resume_info()

    def _require_gpu(self, plan: Plan) -> None:
        require_gpu(self._device_id, plan)

    def _start(self) -> _AnyExecutor:
        if self._executor is None:
            assert self._plan is not None
            ex: _AnyExecutor | None = None
            self._profile = _profile.from_env(memory=self._enable_memory_stats)
            stage = None
            if self._worker_process:
                ex = self._process_executor()
            elif not self._plan.uses_gpu:
                ex = self._pool_executor()
            else:
                stage = self._stage_workers()
            if ex is None:
                info = self._info()
                ex = Executor(
                    self._plan,
                    num_threads=info.num_threads or 1,
                    asynchronous=info.asynchronous,
                    cuda=self._cuda if self._plan.uses_gpu else None,
                    affinity=pipeline_cores(info, self._plan.uses_gpu),
                    depth=info.iterations_ahead,
                    stage_queue=info.prefetch_queue_depth,
                    profile=self._profile,
                    cpu_stage=stage,
                )
            self._executor = ex
            # the executor says how far ahead it runs (a worker process: one more in flight)
            self._sched.depth = ex.depth
            for step in self._plan.callback_sources:
                if isinstance(step.impl, PythonSource):
                    step.impl.copy_in_transport = (
                        not isinstance(ex, Executor) or ex.cpu_stage is not None
                    )
            # dropped without close(): closed on the closing thread, never in the collector
            self._finalizer = weakref.finalize(self, _release, ex, self._profile)
        return self._executor

    def _process_executor(self) -> ProcessExecutor | None:
        """The executor of ``worker_process=True``; None where the iterator chose it and the
        pipeline cannot have one (then it runs in-process, with a warning)."""
        from dali._exec.process.spec import NotShippable, WorkerSpec

        why = None
        if not (self._exec_async and self._exec_pipelined):
            why = "it runs synchronously (exec_async=False or exec_pipelined=False)"
        elif not sys.platform.startswith("linux"):
            why = "worker processes need Linux"
        if why is None:
            assert self._plan is not None and self._graph_outputs is not None
            name = (
                "the pipeline"
                if self._device_id is None
                else f"the pipeline on GPU {self._device_id}"
            )
            try:
                spec = WorkerSpec.of(
                    self._ops, self._graph_outputs, self._plan, self._info(), self._consumed[1]
                )
                executor = ProcessExecutor.for_spec(spec, name)
            except NotShippable as e:
                why = str(e)
            else:
                return executor
        if not self._worker_chosen:
            raise RuntimeError(f"The pipeline cannot run in a worker process: {why}.")
        warnings.warn(
            f"The pipeline runs in this process, not a worker process: {why}.", stacklevel=4
        )
        return None

    def _pool_executor(self) -> PoolExecutor | None:
        """The executor of a CPU pipeline run on worker processes (`cpu_parallelism`), or
        None: it runs on threads here (`cpu_workers` says why)."""
        from dali._exec.process.pool import PoolExecutor

        shipped = self._worker_spec(stage=False)
        if shipped is None:
            return None
        assert self._plan is not None
        spec, workers = shipped
        return PoolExecutor(self._plan, spec, workers, "the pipeline", self._ahead)

    def _stage_workers(self) -> CpuStageWorkers | None:
        """The worker processes of a GPU pipeline's CPU stage (`cpu_parallelism`), or None:
        it runs on threads of this process (`cpu_workers` says why)."""
        from dali._exec.process.stage import CpuStageWorkers, stage_of

        shipped = self._worker_spec(stage=True)
        if shipped is None:
            return None
        assert self._plan is not None
        spec, workers = shipped
        steps, slots, _ = stage_of(self._plan)
        return CpuStageWorkers(self._plan, spec, steps, slots, workers, "the pipeline's CPU stage")

    def _worker_spec(self, *, stage: bool) -> tuple[bytes, int] | None:
        """The pickled spec of the CPU worker processes and how many (`cpu_workers`), or None
        when the CPU work stays on threads here (an error when ``cpu_parallelism`` says
        "processes")."""
        workers, why = self.cpu_workers()
        if not workers:
            if self._cpu_parallelism == "processes":
                raise RuntimeError(f"The pipeline cannot run on worker processes: {why}.")
            return None
        from dali._exec.process.spec import NotShippable, WorkerSpec, dump
        from dali._exec.process.stage import stage_of

        plan = self._plan
        assert plan is not None and self._graph_outputs is not None
        outputs = stage_of(plan)[2] if stage else self._graph_outputs
        try:
            spec = dump(
                WorkerSpec.of(
                    self._ops,
                    outputs,
                    plan,
                    self._info(),
                    self._consumed[1],
                    pooled=not stage,
                    stage=stage,
                )
            )
        except NotShippable as e:
            if self._cpu_parallelism == "processes":
                raise RuntimeError(f"The pipeline cannot run on worker processes: {e}.") from e
            return None
        return spec, workers

    def cpu_workers(self) -> tuple[int, str]:
        """How many worker processes the pipeline's CPU work runs on, and why (our extension).

        A pipeline with ``num_threads`` of ``options.POOL_MIN_THREADS`` or more runs its CPU
        work on that many worker processes (at most one per usable core) rather than on
        threads of this process: one interpreter lock caps threads at a few cores. A CPU
        pipeline's workers produce whole batches; a GPU pipeline's produce its CPU stage's
        batches (when it has CPU operators beyond readers and random draws), and this process
        keeps the decoders and the GPU work. The batches are the same either way.
        ``cpu_parallelism="threads"`` or ``"processes"`` decides instead of the rule.

        Returns:
            ``(workers, reason)``: 0 workers when the CPU work runs on threads here, and the
            reason in words.
        """
        self.build()
        plan = self._plan
        assert plan is not None
        choice = self._cpu_parallelism
        threads = self._num_threads or 1
        if choice == "threads":
            return 0, "cpu_parallelism='threads'"
        if self._worker_process:
            return 0, "it runs in one worker process (worker_process=True)"
        if not (self._exec_async and self._exec_pipelined):
            return 0, "it runs synchronously (exec_async=False or exec_pipelined=False)"
        if not sys.platform.startswith("linux"):
            return 0, "worker processes need Linux"
        steps: Sequence[int] = range(len(plan.steps))
        if plan.uses_gpu:
            from dali._exec.process.stage import has_operators, stage_of

            steps, slots, _ = stage_of(plan)
            if not slots:
                return 0, "its GPU work reads nothing from its CPU stage"
            if choice != "processes" and not has_operators(plan, steps):
                return 0, (
                    "its CPU stage has no operator with inputs (readers and random draws run "
                    "on threads of the GPU's process; readers.file reads in processes of its own)"
                )
        for si in steps:
            step = plan.steps[si]
            if step.stateful and not step.impl.implements("plan_samples"):
                return 0, f"{step.node.name} keeps a state that only one process can follow"
        if choice == "processes":
            return threads, "cpu_parallelism='processes'"
        from dali._ops.python.python_function import PythonFunction

        for si in steps:
            step = plan.steps[si]
            if isinstance(step.impl, PythonFunction):
                return 0, f"{step.node.name} runs Python code, which may have side effects"
        return worker_count(threads, usable_cores(), gpu=plan.uses_gpu)

    def use_worker_process(self, enable: bool = True, *, chosen: bool = False) -> bool:
        """Run the pipeline's operators in a worker process (`dali._exec.process`), or not.

        Our extension, for iterators and plugins: it can be set until the pipeline first runs
        (later calls change nothing). ``chosen=True`` says that the caller chose it, not the
        user: then it never overrides an explicit ``worker_process=`` of the constructor, and a
        pipeline that cannot run in a worker process (a graph argument that does not pickle)
        runs in-process with a warning rather than failing.

        Returns:
            Whether the pipeline will run in a worker process.
        """
        if self._executor is None and not (chosen and self._worker_process is not None):
            self._worker_process = bool(enable)
            self._worker_chosen = chosen
        return bool(self._worker_process) and not isinstance(self._executor, Executor)

    @property
    def worker_pid(self) -> int | None:
        """The process id of the pipeline's worker process (None: it runs in this process,
        or has not started yet). Our extension."""
        return None if self._executor is None else self._executor.pid

    # -- running ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _check_api_type_scope(self, api_type: PipelineAPIType | str = _ITERATOR) -> Iterator[None]:
        """Used by framework iterators: mixing checks are off inside."""
        prev, self._api_check = self._api_check, False
        try:
            yield
        finally:
            self._api_check = prev

    def _set_api(self, api: str) -> None:
        if not self._api_check:
            return
        if self._api_type is None:
            self._api_type = api
        elif self._api_type != api:
            raise RuntimeError(
                f"Mixing pipeline API type. Currently used: PipelineAPIType.{self._api_type}, "
                f"but trying to use PipelineAPIType.{api}"
            )

    def _in_flight(self) -> int:
        """Iterations scheduled and not yet consumed (the executor counts them)."""
        return 0 if self._executor is None else self._executor.in_flight

    def _schedule_one(self) -> bool:
        """Schedule the next iteration; False when it cannot be (end of data, or fed data
        missing while earlier iterations are still in flight: those are returned first)."""
        sched = self._sched
        if sched.end_of_data:
            return False
        assert self._plan is not None
        # A `feed_input` source with nothing fed fails only when nothing else can be returned:
        # feeding 3 batches then running 3 times returns all 3, as in DALI. An `iter_setup`
        # override feeds when called, so it is asked first, as before every iteration.
        feeds_itself = type(self).iter_setup is not Pipeline.iter_setup
        if not feeds_itself and self._in_flight() and not sources_ready(self._plan):
            return False
        self.iter_setup()
        fed = fetch_sources(self._plan, self._source_index, sched.iteration, sched.epoch)
        if fed is None:
            sched.end_of_data = True
            return False
        batch_size = self._max_batch_size or 0
        req = sched.request(fed, batch_size)
        # Counted before it is handed over: an interrupt between the two skips an iteration
        # index rather than running two iterations with the same sample identities.
        sched.submitted(batch_size)
        req.cursor = (sched.epoch, sched.iteration, sched.stream_pos)
        self._start().submit(req)
        return True

    def _schedule(self) -> None:
        self.build()
        self._start()  # (a worker process schedules deeper: `_process_executor`)
        for _ in range(self._sched.count()):
            if not self._schedule_one():
                break

    def _outputs(self, cuda_stream: Any = None) -> tuple[Any, ...]:
        if self._in_flight() == 0:
            if self._sched.end_of_data:
                raise StopIteration
            raise RuntimeError("No iteration was scheduled: call schedule_run() first.")
        # An operator's error fails its iteration alone (raised here, naming the operator and
        # the sample); an interrupt while waiting leaves the iteration for the next call.
        executor = self._start()
        prof = self._profile
        try:
            if prof is None:
                out = executor.get()
            else:
                self._taken += 1
                with prof.span("consumer", self._taken - 1, "run"):
                    out = executor.get()
        finally:
            self._note_consumed(executor)
        validate_outputs(out, self._output_dtype, self._output_ndim, self._output_layout)
        if cuda_stream is not None:
            from dali._exec.device import stream_ptr
            from dali._tensors import order_after

            ptr = stream_ptr(cuda_stream)
            for tl in out:
                order_after(tl, ptr, keep=cuda_stream)  # the stream waits, on the GPU
        return out

    @_serialised
    def run(self, cuda_stream: Any = None, /, **pipeline_inputs: Any) -> tuple[Any, ...]:
        """Run one iteration and return a tuple of TensorLists, one per output.

        The first run schedules ``prefetch_queue_depth`` iterations (one without
        ``exec_pipelined``), later runs one each, and each returns the oldest one. A run that
        fails (an operator error, an interrupt) leaves the pipeline usable: the next run
        returns the next iteration. Several threads may call it; they take turns.

        Raises:
            StopIteration: a Python source ran out of data (call `reset` to start again).
            PipelineError: an operator failed in this iteration; the message names the
                operator, the sample and its file. The iteration is consumed.
        """
        self._set_api(_BASIC)
        if pipeline_inputs:
            if self._ahead > 1:  # pipelined with a deeper queue (either one, separated)
                raise RuntimeError(
                    "When using pipeline_inputs named arguments, either prefetch_queue_depth in "
                    "Pipeline constructor shall be set to 1 (for both devices) or "
                    "exec_pipelined shall be set to False."
                )
            for name, data in pipeline_inputs.items():
                self.feed_input(name, data)
        self._schedule()
        return self._outputs(cuda_stream)

    @_serialised
    def schedule_run(self) -> None:
        """Schedule iterations (``prefetch_queue_depth`` the first time, then one; always one
        without ``exec_pipelined``)."""
        self._set_api(_SCHEDULED)
        self._schedule()

    @_serialised
    def outputs(self, cuda_stream: Any = None) -> tuple[Any, ...]:
        """The outputs of the oldest scheduled iteration.

        Args:
            cuda_stream: A stream (CuPy/torch stream or ``cudaStream_t``) made to wait, on the
                GPU, until the GPU outputs are ready. Without it the outputs still carry their
                event: DLPack and ``__cuda_array_interface__`` consumers wait on it themselves.
        """
        self._set_api(_SCHEDULED)
        return self._outputs(cuda_stream)

    @_serialised
    def share_outputs(self, cuda_stream: Any = None) -> tuple[Any, ...]:
        self._set_api(_SCHEDULED)
        return self._outputs(cuda_stream)

    def release_outputs(self) -> None:
        self._set_api(_SCHEDULED)

    def empty(self) -> bool:
        """True when no scheduled iteration is waiting to be consumed (iterators re-schedule)."""
        return self._in_flight() == 0

    def feed_input(
        self,
        data_node: Any,
        data: Any,
        layout: str | None = None,
        cuda_stream: Any = None,
        use_copy_kernel: bool = False,
    ) -> None:
        """Give one batch to a named external source that has no ``source``.

        ``cuda_stream`` is the stream GPU ``data`` was produced on (default: the caller's
        current stream); the pipeline's copy waits for it on the GPU.
        """
        self.build()
        assert self._plan is not None
        name = data_node.name if isinstance(data_node, DataNode) else data_node
        step = self._plan.by_name.get(name)
        if step is None or not isinstance(step.impl, PythonSource):
            raise RuntimeError(f'No external source named "{name}" in the pipeline.')
        step.impl.feed(data, layout=layout, cuda_stream=cuda_stream)

    @_serialised
    def reset(self) -> None:
        """Start a new epoch after a Python source reported end of data (else a no-op)."""
        if not self._sched.end_of_data:
            return
        assert self._plan is not None
        sched = self._sched
        sched.new_epoch()
        if self._in_flight() == 0:
            self._consumed = ((sched.epoch, 0, sched.stream_pos), self._consumed[1])
        for step in self._plan.steps:
            step.impl.on_reset()

    def epoch_size(self, name: str | None = None) -> Any:
        """``{reader_name: padded epoch size}``, or the size for one reader name."""
        if name is not None:
            return self._reader_metas("epoch_size", name)["epoch_size_padded"]
        return {k: v["epoch_size_padded"] for k, v in self._reader_metas().items()}

    def reader_meta(self, name: str | None = None) -> Any:
        """Reader metadata (epoch_size, number_of_shards, shard_id, ...) by reader name."""
        if name is not None:
            return self._reader_metas("reader_meta", name)
        return self._reader_metas()

    def _reader_metas(self, method: str = "", name: str | None = None) -> Any:
        """The metadata of every reader by name, or of the reader ``name`` (for ``method``)."""
        self.build()
        assert self._plan is not None
        metas = {
            s.node.name: meta
            for s in self._plan.steps
            if (meta := s.impl.reader_meta()) is not None
        }
        if name is None:
            return metas
        if name not in metas:
            raise RuntimeError(
                f"Pipeline.{method}: Operator {name} not found or does not expose valid metadata."
            )
        return metas[name]

    def skipped_samples(self, name: str | None = None) -> Any:
        """How many samples each ``on_error="skip"`` operator dropped so far.

        Returns ``{operator_name: count}``, or the count for one operator ``name``.
        """
        self.build()
        assert self._plan is not None
        counts = {
            s.node.name: n for s in self._plan.steps if (n := s.impl.skipped_samples()) is not None
        }
        if self._executor is not None:
            counts.update(self._executor.skipped)  # (the operators of a worker process)
        if name is not None:
            if name not in counts:
                raise RuntimeError(f"No operator named {name!r} can skip samples.")
            return counts[name]
        return counts

    def release_memory(self) -> None:
        """Free the device and pinned memory that the pipeline's pools cache but no array uses.

        Our extension (DALI has none). Outputs you still hold stay valid. It synchronises the
        device (``cudaFree`` does), so call it between epochs, not every iteration. A pipeline
        in a worker process (``worker_process``) frees the worker's (its output ring stays:
        every batch reuses it).
        """
        if self._cuda is not None:
            self._cuda.release_memory()
        if isinstance(self._executor, ProcessExecutor):
            self._executor.call("release_memory")

    def memory_stats(self) -> dict[str, Any]:
        """How much memory the pipeline's pools use and hold (our extension).

        Returns:
            ``device_used_bytes`` (in arrays), ``device_total_bytes`` (in use or cached),
            ``pinned_staged_bytes`` (staging copies in flight), ``device_memory_limit`` and
            ``pinned_memory_limit``; all zero before the pipeline has run GPU work. A
            pipeline in a worker process (``worker_process``) reports the worker's pools and
            its output ring (in use: the slots whose outputs you still hold).

        Example:
            >>> pipe = Pipeline(batch_size=1, num_threads=1)
            >>> pipe.memory_stats()["device_total_bytes"]
            0
        """
        if isinstance(self._executor, ProcessExecutor):
            stats: dict[str, Any] | None = self._executor.call("memory_stats")
            if stats is not None:
                return stats
        if self._cuda is None:
            return {
                "device_used_bytes": 0,
                "device_total_bytes": 0,
                "device_memory_limit": None,
                "pinned_staged_bytes": 0,
                "pinned_memory_limit": None,
            }
        return self._cuda.memory_stats()

    def executor_statistics(self) -> dict[str, Any]:
        """Per operator, the sizes of its outputs, as DALI reports them; ``{}`` unless the
        pipeline was made with ``enable_memory_stats=True``.

        Keys are ``<DEVICE>_<operator name>`` (``CPU___Resize_1``); each value has DALI's lists,
        one number per output: ``real_memory_size`` (bytes of the last batch) and
        ``max_real_memory_size`` (its largest sample), ``reserved_memory_size`` and
        ``max_reserved_memory_size`` (the most of either in any batch so far: what the
        memory pools keep). Beyond DALI's keys: ``stage`` (the executor stage that runs it),
        ``runs``, ``mean_ms`` and ``mean_cpu_ms`` (wall and thread-CPU milliseconds per run).
        `stage_statistics` has the stages' and the consumer's times. A pipeline that runs in
        worker processes (``worker_process``, or a CPU pipeline on many cores) reports
        nothing here: each worker writes its part to its ``DALI_TRACE`` file.

        Example:
            >>> import dali.fn as fn
            >>> pipe = Pipeline(batch_size=2, num_threads=1, enable_memory_stats=True)
            >>> with pipe:
            ...     pipe.set_outputs(fn.random.uniform(shape=[3], name="u"))
            >>> _ = pipe.run()
            >>> pipe.executor_statistics()["CPU_u"]["real_memory_size"]
            [24]
        """
        prof = self._profile
        if prof is None or prof.memory is None:
            return {}
        stats: dict[str, Any] = prof.memory_statistics()
        times = prof.step_times()
        for key, entry in stats.items():
            entry.update(times.get(key.split("_", 1)[1], {}))
        return stats

    def stage_statistics(self) -> dict[str, dict[str, float]]:
        """Per executor stage and for the consumer, what ``DALI_PROFILE=1`` prints, as data
        (our extension): iterations, ``mean_busy_ms`` and ``mean_wait_ms`` per iteration, and
        ``mean_queued`` (iterations waiting in the stage's inbox when it took one: near 0,
        the stage waits for the one before it; near the queue depth, it is the slow one).
        The ``consumer`` entry's ``mean_busy_ms`` is the time ``run()`` waited for its batch.
        ``{}`` unless ``DALI_PROFILE``, ``DALI_TRACE`` or ``enable_memory_stats=True`` is set.
        """
        prof = self._profile
        return {} if prof is None else prof.stage_times()

    def start_py_workers(self) -> None:
        """Start the worker processes of parallel external sources now."""
        self.build()
        assert self._plan is not None
        for step in self._plan.callback_sources:
            assert isinstance(step.impl, PythonSource)
            step.impl.start_workers()

    def close(self) -> None:
        """Stop every thread and worker process of the pipeline (at once; idempotent)."""
        if self._finalizer is not None and self._finalizer.detach() is not None:
            assert self._executor is not None  # the finalizer is made with the executor
            self._executor.close()
            if self._profile is not None:  # (the executor's, finished already, or the consumer's)
                self._profile.finish()
        if self._plan is not None:
            for step in self._plan.callback_sources:
                step.impl.close()

    def __del__(self) -> None:
        # The collector may run this anywhere (inside threading.enumerate(), on one of the
        # pipeline's threads): hand the closing to the closing thread, never join here.
        try:
            if self._finalizer is not None:
                self._finalizer()
            if self._plan is not None:
                for step in self._plan.callback_sources:
                    _closer.defer(step.impl.close)
        except Exception:  # noqa: BLE001,S110 - interpreter shutdown
            pass
