"""Debug mode: a pipeline whose definition runs eagerly, one operator call at a time.

`PipelineDebug` is what ``@dali.pipeline.experimental.pipeline_def(debug=True)`` returns (the
user's side of it is in that module's docstring). Its ``run`` calls the pipeline definition
with itself current and an `EagerOps` as ``Pipeline._eager``, so `_graph.trace.call_operator`
hands every operator call to `EagerOps.call`, which

1. turns data the user hands in (a TensorList from ``.get()``, numpy arrays, lists of
   samples) into batches, as DALI's debug mode does;
2. traces the call as the compiled pipeline would (`_graph.trace.trace_call`: argument checks,
   constants, conditional scopes, static metadata, the `OpNode`);
3. runs it at once as a plan of one step (`_exec.executor.run_given`) whose inputs are the
   batches earlier calls produced, and returns `DataNodeDebug` nodes holding the results.

The operator implementations, workspaces, thread pool, CUDA stream and random keys are the
compiled pipeline's, so the batches are the same for the same seed:

* **One implementation per call, across runs.** A call is keyed by where the definition makes
  it and its position among the run's calls (DALI keys its operators by call site and call
  order). The first run creates the implementation (`_graph.build.instantiate`) with the random
  key the compiled pipeline gives that operator: operator identities follow creation order
  (`_graph.build.IdentityStream`), and tracing creates the operators in the same order. Later
  runs reuse it, so readers advance from run to run, and check the call against the first
  one with DALI's errors (another operator, other inputs, a changed argument).
* **Sample identity.** Random numbers are keyed by the samples' identities
  (`_exec.workspace.BatchMeta`), which travel with every batch. An operator without inputs
  (``fn.random.coin_flip()``) takes the identities of the iteration's first source, as in the
  compiled plan, where sources run first. In the first run that source may come later in the
  definition, so such an operator runs when its output is first needed (``get()``, printing,
  another operator), by which time the source has usually run; from the second run on, the
  sources run before the definition (as the compiled executor asks its sources for the
  iteration first), in the compiled plan's order. A conditional merge runs when needed as
  well: its batch source is set only after it is traced, and an unused merge, which the
  compiled plan prunes, does not run at all.
* **Transfers.** ``.gpu()`` and ``.cpu()`` copy at once, with the compiled plan's transfer
  operator (`_ops.transfer.Transfer`) on the pipeline's stream.

Not available in debug mode, as in DALI: ``with pipe:``, ``schedule_run``/``outputs``,
checkpoints, serialization, graph inspection; framework iterators need the compiled pipeline.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec import closer as _closer
from dali._exec.executor import IterationRequest, align_outputs, run_given
from dali._exec.workspace import BatchMeta
from dali._graph import context
from dali._graph.build import (
    IdentityStream,
    Plan,
    Step,
    check_required,
    identity_source,
    instantiate,
    random_key,
)
from dali._graph.node import DataNode, OpNode
from dali._graph.trace import trace_call
from dali._ops.base import Operator, PythonSource
from dali._ops.conditional import MERGE_INFO
from dali._ops.python._convert import holds_device_data, make_batch
from dali._ops.transfer import Transfer
from dali._pipeline.arguments import check_batch_settings
from dali._pipeline.outputs import normalize_outputs, validate_outputs
from dali._pipeline.pipeline import Pipeline, require_gpu
from dali._tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU

if TYPE_CHECKING:
    from dali._exec.device import CudaContext
    from dali._graph.schema import Schema

__all__ = ["DataNodeDebug", "EagerOps", "PipelineDebug"]

#: (the call's definition site, its position among the run's operator calls)
_Key = tuple[str, int]
#: a batch and the identities of its samples
_Value = tuple[Any, BatchMeta]

_ORDER_CHANGED = (
    "Debug mode does not support changing the order of operators executed within the pipeline."
)
_CONDITIONAL_DATA = (
    "Debug mode with conditional execution (when `enable_conditionals=True`) doesn't allow for "
    "modification of operator outputs by libraries other than DALI or using the TensorLists "
    "extracted via `.get()` as inputs. Expected `DataNodeDebug` as an input, got {type} {where}."
)
_INDENT = " " * 4
#: what a list of constant values holds (such a list is not a list of samples)
_SCALARS = (bool, int, float, str, np.generic)


class DataNodeDebug(DataNode):
    """A `DataNode` of a pipeline in debug mode, holding its batch.

    It is what operators return inside a debug-mode definition, and works as a DataNode there
    (arithmetic, indexing, inputs and arguments of operators), each operation running at
    once. ``get()`` gives the batch (a ``TensorListCPU`` or ``TensorListGPU``), ``print(node)``
    shows it, and ``shape()`` gives the samples' shapes (DALI's debug mode; a compiled
    pipeline's ``DataNode.shape()`` is an operator instead).
    """

    def __init__(
        self,
        node: DataNode,
        runner: EagerOps,
        *,
        value: _Value | None = None,
        pending: Callable[[], _Value] | None = None,
    ) -> None:
        super().__init__(
            node.name,
            node.device,
            node.source,
            node.index,
            node.ndim,
            node.dtype,
            node.layout,
            static_shape=node.static_shape,
        )
        self._runner = runner
        self._value = value
        #: computes the value when it is first needed (see the module docstring)
        self._pending = pending
        self._twins: dict[str, DataNodeDebug] = {}

    @property
    def is_pending(self) -> bool:
        return self._value is None

    def value(self) -> _Value:
        """The batch and its samples' identities (computed now if it was deferred)."""
        if self._value is None:
            pending, self._pending = self._pending, None
            assert pending is not None
            try:
                self._value = pending()
            except BaseException:
                self._pending = pending  # (a later use raises the error again)
                raise
        return self._value

    def get(self) -> Any:
        """The batch: a ``TensorListCPU`` or a ``TensorListGPU``."""
        return self.value()[0]

    def shape(self, *, dtype: Any = None, device: str = "cpu") -> Any:
        """The shape of every sample (a list of tuples), as DALI's debug mode gives it
        (``dtype`` and ``device``, the arguments of the compiled pipeline's operator, are
        accepted and have no effect)."""
        return self.get().shape()

    def __str__(self) -> str:
        data = str(self.get()).replace("\n", "\n" + _INDENT + " " * 5)
        return f'DataNodeDebug(\n{_INDENT}name="{self.name}",\n{_INDENT}data={data})'

    __repr__ = __str__

    def _on(self, device: str) -> DataNode:
        if device == self.device:
            return self
        twin = self._twins.get(device)
        if twin is None:
            twin = self._runner.transfer(self, device)
            self._twins[device] = twin
        return twin


@dataclass(frozen=True)
class _Sig:
    """How a call passed its inputs and keyword arguments (DALI checks it between runs):
    ``(kind, device)`` each, ``kind`` being "batch" (a node or data) or "constant"."""

    inputs: tuple[tuple[str, str], ...]
    kwargs: Mapping[str, tuple[str, str]]


def _kind(value: Any, per_sample_arg: bool = False) -> tuple[str, str]:
    """How a call passes an input (or a per-sample argument), as DALI's debug mode classifies
    it: ``(kind, device)``, ``kind`` being "batch" or "constant". As in DALI, an array given
    as an input is a "constant" (though it is used as a batch), and as an argument a batch."""
    if isinstance(value, DataNode):
        return "batch", value.device
    if isinstance(value, TensorListGPU):
        return "batch", "gpu"
    if isinstance(value, TensorListCPU):
        return "batch", "cpu"
    if isinstance(value, list):
        if not value or any(isinstance(v, _SCALARS) for v in value):
            return "constant", "cpu"
        if _is_batch(value[0]):  # a multiple input set
            return "batch", _kind(value[0])[1]
        return "batch", "gpu" if holds_device_data(value) else "cpu"  # samples
    device = "gpu" if _array_like(value) and holds_device_data(value) else "cpu"
    if per_sample_arg and _array_like(value):
        return "batch", device
    return "constant", device


def _is_batch(x: Any) -> bool:
    return isinstance(x, (DataNode, TensorListCPU, TensorListGPU))


@dataclass(eq=False)
class _Entry:
    """One operator call of the definition, kept across runs."""

    key: _Key
    schema: Schema
    sig: _Sig
    #: the call as first traced (detached from that run's batches: `_detach`)
    template: OpNode
    identity: int
    impl: Operator | None = None
    #: (layout, dtype, ndim) of each input and argument input as first seen non-empty
    seen: dict[str, tuple[str, Any, int]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.schema.fn_name

    def check(self, op: OpNode, sig: _Sig) -> None:
        """DALI's errors for a call that differs from the first run's; an argument that may
        change (a constant's value) drops the implementation, to be made again."""
        name = self.name
        if op.schema is not self.schema:
            raise RuntimeError(f"Unexpected operator '{op.schema.fn_name}'. {_ORDER_CHANGED}")
        for what, now, was in (
            ("inputs", len(sig.inputs), len(self.sig.inputs)),
            ("keyword arguments", len(sig.kwargs), len(self.sig.kwargs)),
        ):
            if now != was:
                raise RuntimeError(
                    f"Trying to use operator '{name}' with different number of {what} than "
                    f"when it was built. Expected: {was} {what}, got {now}."
                )
        pairs = [(f"Input {i}", a, b) for i, (a, b) in enumerate(zip(sig.inputs, self.sig.inputs))]
        for k, now_kind in sig.kwargs.items():
            first = self.sig.kwargs.get(k)
            if first is None:
                raise RuntimeError(
                    f"Trying to use operator '{name}' with the keyword argument '{k}', which "
                    f"was not given when it was built."
                )
            pairs.append((f"Argument {k}", now_kind, first))
        for label, (kind, device), (was_kind, was_device) in pairs:
            if kind != was_kind:
                raise RuntimeError(
                    f"{label} for operator '{name}' is a {kind} but was a {was_kind} when created."
                )
            if device != was_device:
                raise RuntimeError(
                    f"{label} for operator '{name}' is on '{device}' but was on '{was_device}' "
                    f"when created."
                )
        if self.schema.fn_path == "external_source":
            return  # DALI keeps the first run's source and ignores the arguments after it
        rebuild = False
        for k, value in op.scalar_args.items():
            old = self.template.scalar_args.get(k)
            if _same(old, value):
                continue
            if self.schema.fn_path == "_constant" or _same_code(old, value):
                rebuild = True  # a constant made from data (DALI: a batch), a fresh lambda
                continue
            raise RuntimeError(
                f"Argument '{k}' for operator '{name}' unexpectedly changed value from "
                f"'{old}' to '{value}'"
            )
        if rebuild:
            self.impl = None
            self.template = _detach(op)

    def check_data(self, label: str, tl: Any) -> None:
        """DALI's check that an input keeps its layout, type and number of dimensions."""
        if len(tl) == 0:
            return  # (an empty batch of a branch says nothing)
        now = (tl.layout(), tl.dtype, tl.sample_ndim)
        was = self.seen.setdefault(label, now)
        for what, a, b in zip(("layout", "dtype", "ndim"), now, was):
            if a != b:
                raise RuntimeError(
                    f"{label} for operator '{self.name}' has {what} = {a}, expected: {b}."
                )


def _same(a: Any, b: Any) -> bool:
    """Whether two scalar argument values are equal (NaN equals NaN, as in DALI)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a), np.asarray(b)
        nan = x.dtype.kind in "fc" and y.dtype.kind in "fc"
        return bool(
            x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=nan)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return bool(a == b or (math.isnan(a) and math.isnan(b)))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared differ
        return False


def _same_code(a: Any, b: Any) -> bool:
    """Two functions made by the same code (a lambda of the definition, made in every run)."""
    code = getattr(a, "__code__", None)
    return code is not None and code is getattr(b, "__code__", None)


def _plain(node: DataNode) -> DataNode:
    """``node``'s metadata without its producer or data."""
    return DataNode(
        node.name,
        node.device,
        None,
        node.index,
        node.ndim,
        node.dtype,
        node.layout,
        static_shape=node.static_shape,
    )


def _detach(op: OpNode) -> OpNode:
    """``op`` for an implementation kept across runs: the same call, without references to
    the run's nodes (which hold its batches)."""
    copy = dataclasses.replace(
        op,
        inputs=tuple(_plain(n) for n in op.inputs),
        arg_inputs={k: _plain(n) for k, n in op.arg_inputs.items()},
        batch_source=None if op.batch_source is None else _plain(op.batch_source),
        scope=None,
        outputs=[],
    )
    info = MERGE_INFO.get(op)
    if info is not None:  # (a merge names the variable it merges in its errors)
        MERGE_INFO[copy] = info
    return copy


def _in_root_scope(op: OpNode) -> bool:
    return op.scope is None or op.scope.parent is None


def _prefetchable(op: OpNode) -> bool:
    """A source whose batch does not depend on the definition's values."""
    return op.schema.source and not op.inputs and not op.arg_inputs


class _Pending:
    """The outputs of a deferred call, computed once for all of them."""

    def __init__(self, compute: Callable[[], list[_Value]]) -> None:
        self._compute: Callable[[], list[_Value]] | None = compute
        self._values: list[_Value] | None = None

    def output(self, i: int) -> _Value:
        if self._values is None:
            assert self._compute is not None
            self._values = self._compute()
            self._compute = None
        return self._values[i]


class _Run:
    """The state of one run of the definition."""

    def __init__(self, iteration: int, epoch: int, stream_start: int, first: bool) -> None:
        self.iteration = iteration
        self.epoch = epoch
        self.stream_start = stream_start
        #: every operator traced so far, in creation order, and their identities
        self.recorded: list[OpNode] = []
        self.identities = IdentityStream()
        #: ids of the operators handed to `EagerOps._dispatch` already
        self.done: set[int] = set()
        self.keys: dict[int, _Key] = {}
        self.calls = 0
        #: the identities of the iteration's samples (`run_given`'s ``root``)
        self.root: BatchMeta | None = None
        #: whether the next source to run sets ``root`` (the first run: sources are not
        #: known before the definition calls them)
        self.root_from_first_source = first
        #: the iteration's batch size, once an operator outside of conditionals ran, and
        #: where that operator was defined
        self.batch_size: int | None = None
        self.batch_size_from = ""
        #: the batches of the sources run before the definition, by key
        self.prefetched: dict[_Key, list[_Value]] = {}
        #: the call site of the calls made now, when not the definition's line (the
        #: constants of the outputs: made where `run()` is called, which may change)
        self.site: str | None = None


class EagerOps:
    """The operators of a pipeline in debug mode and the run of its definition (see the
    module docstring): what `_graph.trace.call_operator` hands each call to."""

    def __init__(self, pipe: PipelineDebug) -> None:
        self._info = pipe._info()
        self._seed = pipe._resolved_seed
        self._device_id = pipe._device_id
        self._cuda: CudaContext | None = pipe._cuda
        self._conditionals = pipe._conditionals
        self._batch_size = int(pipe._max_batch_size or 0)
        threads = int(pipe._num_threads or 1)
        self._pool = (
            ThreadPoolExecutor(threads, thread_name_prefix="dali-op") if threads > 1 else None
        )
        self._entries: dict[_Key, _Entry] = {}
        #: set once a run finished: the operators are known, a new call is an error
        self._sealed = False
        #: the sources run before the definition (the compiled plan's identity source first)
        self._sources: list[_Key] = []
        #: whether the first source to run sets the iteration's sample identity (until the
        #: sources are known, or when the compiled plan's first one cannot run first)
        self._first_source_rule = True
        #: batches given to `feed_input` before the external source was first called
        self._feeds: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
        self._run: _Run | None = None
        self._closed = False
        self._lock = threading.Lock()

    # -- a run -------------------------------------------------------------------------------
    def begin(self, iteration: int, epoch: int, stream_start: int) -> None:
        """Start a run: the sources known from earlier runs produce their batches first."""
        run = _Run(iteration, epoch, stream_start, first=self._first_source_rule)
        self._run = run
        ended = False
        for k, key in enumerate(self._sources):
            entry = self._entries[key]
            try:
                values = self._execute(entry, entry.template, run)
            except StopIteration:
                ended = True  # (every source is asked all the same, as `fetch_sources` does)
                continue
            run.prefetched[key] = values
            if k == 0:
                run.root = values[0][1]
        if ended:
            raise StopIteration

    def finish(self, results: Any) -> tuple[Any, ...]:
        """The pipeline outputs of the run, from what the definition returned (call it with
        the pipeline still current: constants become constant nodes, run like any call)."""
        run = self._run
        assert run is not None
        if results is None:
            items: list[Any] = []
        elif isinstance(results, (tuple, list)):
            items = list(results)
        else:
            items = [results]
        for i, item in enumerate(items):
            if isinstance(item, (tuple, list)) and any(isinstance(x, DataNode) for x in item):
                raise TypeError(
                    f"Illegal pipeline output type. The output {i} contains a nested "
                    f"`DataNodeDebug`"
                )
        run.site = "<the pipeline outputs>"
        nodes = normalize_outputs(items)
        run.site = None
        values: list[Any] = []
        metas: list[Any] = []
        for i, node in enumerate(nodes):
            if not isinstance(node, DataNodeDebug):
                raise TypeError(
                    f"Illegal pipeline output {i}: the DataNode `{node.name}` was not computed "
                    f"in this debug-mode run."
                )
            tl, meta = node.value()
            values.append(tl)
            metas.append(meta)
        if len({len(m) for m in metas}) > 1:  # (an operator that skipped samples)
            values, metas = align_outputs(values, metas)
        if run.prefetched:
            names = ", ".join(f"'{self._entries[k].name}'" for k in run.prefetched)
            raise RuntimeError(
                f"The operator(s) {names} of the earlier runs were not called in this run. "
                f"{_ORDER_CHANGED}"
            )
        if not self._sealed:
            self._seal(nodes, run)
        return tuple(values)

    def end(self) -> None:
        self._run = None

    def _seal(self, outputs: Sequence[DataNode], run: _Run) -> None:
        """After the first run: the operators are known, and so are the sources to run
        before the definition in later runs (when the one whose samples identify an
        iteration in the compiled plan can be)."""
        self._sealed = True
        first = identity_source(outputs, run.recorded)
        if first is None:  # the compiled plan has no source: the stream's positions
            self._first_source_rule = False
            return
        if not _prefetchable(first) or id(first) not in run.keys:
            return
        others = [
            run.keys[id(op)]
            for op in run.recorded
            if op is not first and _prefetchable(op) and id(op) in run.keys
        ]
        self._sources = [run.keys[id(first)], *others]
        self._first_source_rule = False

    # -- an operator call ------------------------------------------------------------------------
    def call(
        self,
        schema: Schema,
        inputs: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        name_hint: str | None,
    ) -> Any:
        """Trace one operator call and run it (`_graph.trace.EagerCalls`)."""
        run = self._run
        assert run is not None  # (the pipeline is `_eager` only while a run is under way)
        inputs, kwargs, sig = self._prepare(schema, inputs, kwargs, run)
        start = len(run.recorded)
        result = trace_call(schema, inputs, kwargs, name_hint=name_hint)
        # The calls made while tracing (constants, splits, one per multiple input set) ran
        # already; what is left is this call's own operator, if it has one.
        for op in run.recorded[start:]:
            if id(op) not in run.done:
                run.done.add(id(op))
                self._dispatch(op, sig, run)
        return _debug_nodes(result)

    def record(self, op: OpNode) -> None:
        """`Pipeline._add_op` of the debug pipeline: an operator was traced."""
        run = self._run
        if run is None:
            raise RuntimeError("Operators can be added to a debug-mode pipeline only by `run()`.")
        run.recorded.append(op)

    def _dispatch(self, op: OpNode, sig: _Sig, run: _Run) -> None:
        run.calls += 1
        key = (run.site or op.definition, run.calls)
        run.keys[id(op)] = key
        identity = run.identities.identity(op)
        entry = self._entries.get(key)
        if entry is None:
            if self._sealed:
                raise RuntimeError(f"Unexpected operator '{op.schema.fn_name}'. {_ORDER_CHANGED}")
            check_required(op)
            entry = _Entry(key, op.schema, sig, _detach(op), identity)
            self._entries[key] = entry
        else:
            entry.check(op, sig)
        values = run.prefetched.pop(key, None)
        if values is None and self._deferred(op, run):
            pending = _Pending(functools.partial(self._execute, entry, op, run))
            for i, node in enumerate(op.outputs):
                op.outputs[i] = DataNodeDebug(
                    node, self, pending=functools.partial(pending.output, i)
                )
            return
        if values is None:
            values = self._execute(entry, op, run)
        for i, node in enumerate(op.outputs):
            op.outputs[i] = DataNodeDebug(node, self, value=values[i])

    @staticmethod
    def _deferred(op: OpNode, run: _Run) -> bool:
        if op.schema.fn_path == "_conditional.merge":
            return True  # its batch source is set after the call (and unused ones never run)
        return (
            not op.inputs
            and op.batch_source is None
            and not op.schema.source
            and run.root is None
            and run.root_from_first_source
        )

    def _execute(self, entry: _Entry, op: OpNode, run: _Run) -> list[_Value]:
        """Run ``op`` (a call of ``entry``) now: a plan of one step."""
        if entry.impl is None:
            entry.impl = self._make(entry, op)
        impl = entry.impl
        given: dict[int, _Value] = {}
        inputs: list[int] = []
        for i, node in enumerate(op.inputs):
            given[len(given)] = value = _value_of(node)
            entry.check_data(f"Input {i}", value[0])
            inputs.append(len(given) - 1)
        args: dict[str, int] = {}
        for k, node in op.arg_inputs.items():
            given[len(given)] = value = _value_of(node)
            entry.check_data(f"Argument {k}", value[0])
            args[k] = len(given) - 1
        batch: int | None = inputs[0] if inputs else None
        if op.batch_source is not None:
            given[len(given)] = _value_of(op.batch_source)
            batch = len(given) - 1
        n_out = op.schema.outputs_for(op.scalar_args, len(op.inputs))
        outputs = list(range(len(given), len(given) + n_out))
        step = Step(
            impl=impl,
            device=op.device,
            inputs=inputs,
            args=args,
            batch=batch,
            outputs=outputs,
            callback_source=isinstance(impl, PythonSource),
        )
        plan = Plan(
            steps=[step],
            outputs=outputs,
            n_slots=len(given) + len(outputs),
            uses_gpu=op.device != "cpu",
        )
        fed: dict[int, Any] = {}
        if isinstance(impl, PythonSource):
            fed[0] = impl.fetch(run.iteration, run.epoch)
            self._check_source_size(len(fed[0][1]), run)
        cuda = self._cuda if plan.uses_gpu else None
        values = run_given(plan, self._request(run, fed), given, self._pool, cuda, run.root)
        if values and _in_root_scope(op):
            if op.schema.source and run.root is None and run.root_from_first_source:
                run.root = values[0][1]
            if run.batch_size is None:
                run.batch_size, run.batch_size_from = len(values[0][0]), op.definition
        return values

    def _make(self, entry: _Entry, op: OpNode) -> Operator:
        """The implementation of a call, keyed as the compiled pipeline keys it."""
        if op.device != "cpu":
            self._require_gpu(op)
        if op is not entry.template:  # (a merge's batch source is set after its call)
            entry.template = _detach(op)
        key, _ = random_key(op, self._seed, entry.identity)
        impl = instantiate(entry.template, self._info, key)
        if isinstance(impl, PythonSource):
            for data, kw in self._feeds.pop(op.name, []):
                impl.feed(data, **kw)
        return impl

    def _require_gpu(self, op: OpNode) -> None:
        step = Step(Operator(op, None), op.device, inputs=[], args={}, batch=None, outputs=[])
        require_gpu(self._device_id, Plan(steps=[step], outputs=[], n_slots=0))

    def _request(self, run: _Run | None, fed: dict[int, Any] | None = None) -> IterationRequest:
        if run is None:  # (a transfer of a node kept after its run)
            return IterationRequest(0, 0, {}, self._batch_size, 0)
        return IterationRequest(
            iteration=run.iteration,
            epoch=run.epoch,
            fed=fed or {},
            max_batch_size=self._batch_size,
            stream_start=run.stream_start,
        )

    def _check_source_size(self, n: int, run: _Run) -> None:
        if run.batch_size is not None and n != run.batch_size:
            raise RuntimeError(
                "Batch size must be uniform across an iteration. External Source operator "
                f"returned batch size: {n}, expected: {run.batch_size}.\nIf you want to use "
                "variable batch size (that is different batch size in each iteration) you must "
                "call all the external source operators at the beginning of your debug "
                "pipeline, before other DALI operators. All the external source operators are "
                "expected to return the same batch size in a given iteration, but it can change "
                "between the iterations. Other operators will use that batch size for "
                "processing."
            )

    # -- data handed in by the user ------------------------------------------------------------
    def _prepare(
        self, schema: Schema, inputs: tuple[Any, ...], kwargs: Mapping[str, Any], run: _Run
    ) -> tuple[tuple[Any, ...], dict[str, Any], _Sig]:
        """The call's inputs and arguments with user data made into nodes, and how it passed
        them (`_Sig`). As in DALI's debug mode, a TensorList, a list of samples or an array
        given as an input is a batch (the first axis: the samples); so is a TensorList or a
        list of samples given as a per-sample argument, and an array given as one counts as
        a batch too (it is a constant: the same array for every sample)."""
        name = schema.fn_name
        sig = _Sig(
            tuple(_kind(x) for x in inputs),
            {
                k: _kind(v, k in schema.args and schema.args[k].tensor)
                for k, v in kwargs.items()
                if v is not None  # (None: not given)
            },
        )
        new_inputs = tuple(self._given(x, name, run, i, "") for i, x in enumerate(inputs))
        new_kwargs: dict[str, Any] = {}
        for k, v in kwargs.items():
            if v is not None:
                per_sample = k in schema.args and schema.args[k].tensor
                new_kwargs[k] = self._given(v, name, run, None, k) if per_sample else v
        return new_inputs, new_kwargs, sig

    def _given(self, x: Any, name: str, run: _Run, position: int | None, key: str) -> Any:
        """``x`` (input ``position`` or argument ``key``), a node if it is data (a batch)."""
        label = f"Input {position}" if position is not None else f"Argument {key}"
        if isinstance(x, DataNodeDebug):
            return x
        if isinstance(x, DataNode):
            raise TypeError(
                f"{label} of operator '{name}' is the DataNode `{x.name}`, which was not "
                f"computed in this debug-mode run (it comes from another pipeline)."
            )
        if isinstance(x, list):
            if not x or any(isinstance(v, _SCALARS) for v in x):
                return x  # constant values
            batches = [_is_batch(v) for v in x]
            if all(batches):  # a multiple input set
                return [self._given(v, name, run, position, key) for v in x]
            if any(batches):
                raise RuntimeError(f"{label} has inconsistent batch classification.")
        elif not isinstance(x, (TensorListCPU, TensorListGPU)) and (
            position is None or not _array_like(x)
        ):
            return x
        if self._conditionals:
            where = f"at input {position}" if position is not None else f"for argument '{key}'"
            raise ValueError(_CONDITIONAL_DATA.format(type=type(x), where=where))
        return self._batch(x, label, name, run, position is not None)

    def _batch(self, data: Any, label: str, name: str, run: _Run, positional: bool) -> Any:
        """User data as a node of its own (a batch no operator of the run produced)."""
        if isinstance(data, (TensorListCPU, TensorListGPU)):
            tl = data
        else:
            gpu = holds_device_data(data)
            if gpu and self._cuda is None:
                raise RuntimeError(
                    f"{label} of operator '{name}' is GPU data, but the pipeline was made with "
                    f"device_id=None."
                )
            try:
                if gpu:
                    assert self._cuda is not None
                    with self._cuda.activate():
                        tl = make_batch(data, device="gpu", copy=False, what=label)
                else:
                    tl = make_batch(data, device="cpu", copy=False, what=label)
            except (TypeError, ValueError) as e:
                raise type(e)(f"Operator '{name}': {e}") from e
        n = len(tl)
        if positional:  # (DALI checks the batch size of inputs, not of arguments)
            if run.batch_size is None:
                run.batch_size, run.batch_size_from = n, ""
            elif n != run.batch_size:
                where = f" from:\n{run.batch_size_from}" if run.batch_size_from else ""
                raise RuntimeError(
                    f"Batch size must be uniform across an iteration. {label} for operator "
                    f"'{name}' has batch size = {n}. Expected batch size = {run.batch_size}"
                    f"{where}"
                )
        root = run.root
        meta = root if root is not None and len(root) == n else None
        if meta is None:
            meta = BatchMeta.stream(run.stream_start, n, run.epoch)
        node = DataNode(
            f"<{label.lower()} of {name}>",
            "gpu" if isinstance(tl, TensorListGPU) else "cpu",
            None,
            0,
            tl.sample_ndim,
            tl.dtype if n else None,
            tl.layout(),
        )
        return DataNodeDebug(node, self, value=(tl, meta))

    # -- transfers -------------------------------------------------------------------------
    def transfer(self, node: DataNodeDebug, device: str) -> DataNodeDebug:
        """``node.gpu()`` / ``node.cpu()``: a copy with the compiled plan's transfer operator."""
        producer = node.source
        if producer is None:  # (user data)
            producer = OpNode(
                schema=Transfer.schema,
                device=node.device,
                inputs=(),
                scalar_args={},
                arg_inputs={},
                name=node.name,
                auto_named=True,
                pipeline=None,
                creation_index=-1,
            )
        impl = Transfer.for_copy(producer, device)
        step = Step(impl=impl, device=device, inputs=[0], args={}, batch=0, outputs=[1])
        plan = Plan(steps=[step], outputs=[1], n_slots=2, uses_gpu=True)
        run = self._run

        def copy() -> _Value:
            value = node.value()
            require_gpu(self._device_id, plan)
            return run_given(plan, self._request(run), {0: value}, None, self._cuda)[0]

        target = DataNode(
            node.name,
            device,
            node.source,
            node.index,
            node.ndim,
            node.dtype,
            node.layout,
            static_shape=node.static_shape,
        )
        if node.is_pending:
            return DataNodeDebug(target, self, pending=copy)
        return DataNodeDebug(target, self, value=copy())

    # -- the pipeline's other services ---------------------------------------------------------
    def implementations(self) -> list[Operator]:
        return [e.impl for e in self._entries.values() if e.impl is not None]

    def feed(self, name: str, data: Any, **kwargs: Any) -> None:
        """`Pipeline.feed_input`: to the external source ``name``, or kept until it is
        first called."""
        for impl in self.implementations():
            if impl.name == name and isinstance(impl, PythonSource):
                impl.feed(data, **kwargs)
                return
        if self._sealed:
            raise RuntimeError(f'No external source named "{name}" in the pipeline.')
        self._feeds.setdefault(name, []).append((data, kwargs))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for impl in self.implementations():
            try:
                impl.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass
        if self._cuda is not None:
            try:
                self._cuda.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass


def _value_of(node: DataNode) -> _Value:
    if not isinstance(node, DataNodeDebug):  # (checked when the call was prepared)
        raise TypeError(f"The DataNode `{node.name}` holds no data in debug mode.")
    return node.value()


def _array_like(x: Any) -> bool:
    if isinstance(x, (np.ndarray, TensorCPU, TensorGPU)):
        return True
    if isinstance(x, (np.generic, bool, int, float, str, bytes)):
        return False
    return any(
        hasattr(x, a) for a in ("__array_interface__", "__cuda_array_interface__", "__dlpack__")
    )


def _debug_nodes(result: Any) -> Any:
    """What a call returns: its operator's `DataNodeDebug` outputs."""
    if isinstance(result, list):
        return [_debug_nodes(r) for r in result]
    if isinstance(result, DataNode) and not isinstance(result, DataNodeDebug):
        assert result.source is not None
        return result.source.outputs[result.index]
    return result


def _unavailable(method: str) -> Callable[..., Any]:
    def unavailable(self: PipelineDebug, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"`Pipeline.{method}` is not available in debug mode: the pipeline runs its "
            f"definition on every `run()` and has no graph (make it without `debug=True`)."
        )

    unavailable.__name__ = method
    return unavailable


class PipelineDebug(Pipeline):
    """A pipeline whose definition runs on every `run`, each operator at once (debug mode).

    Made by ``dali.pipeline.experimental.pipeline_def(debug=True)`` (that module's docstring
    tells how to use it). `run` returns the outputs of the definition; `feed_input`, `reset`,
    `epoch_size`, `reader_meta` and `close` work as for a compiled pipeline (readers are
    known from the first `run` on).

    Args:
        definition: The pipeline definition with its arguments bound (converted for
            conditionals when ``conditionals``).
        conditionals: ``enable_conditionals`` of the decorator.
        **kwargs: The `Pipeline` constructor's arguments.
    """

    def __init__(
        self, definition: Callable[[], Any], *, conditionals: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._definition = definition
        self._conditionals = conditionals
        self._runner: EagerOps | None = None

    def __enter__(self) -> Any:
        raise RuntimeError(
            "Currently pipeline in debug mode works only with `pipeline_def` decorator. "
            "Using `with` statement is not supported."
        )

    def build(self) -> None:
        """Check the settings; the operators are made by the first `run` (DALI's debug mode
        has nothing else to build)."""
        with self._run_lock:
            if self._runner is not None:
                return
            check_batch_settings(self._max_batch_size, self._num_threads)
            runner = EagerOps(self)
            self._runner = runner
            self._built = True
            _closer.start()
            _closer.track(runner)  # closed at interpreter exit if still open
            # dropped without close(): its operators are closed on the closing thread
            self._finalizer = weakref.finalize(self, _closer.defer, runner.close)

    def _add_op(self, op: OpNode) -> None:
        if self._runner is None:
            raise RuntimeError("Operators can be added to a debug-mode pipeline only by `run()`.")
        self._runner.record(op)
        self._names[op.name] = op

    def run(self, cuda_stream: Any = None, /, **pipeline_inputs: Any) -> tuple[Any, ...]:
        """Run the definition once, each operator at once, and return its outputs (a tuple
        of TensorLists).

        Raises:
            StopIteration: An external source reached the end of its data (call `reset`).
            PipelineError: An operator failed (raised where the definition called it).
            RuntimeError: The definition called other operators than in the first run
                (debug mode keys the operators by call site and order), or changed an
                operator's inputs or arguments in a way DALI's debug mode rejects.
        """
        with self._run_lock:
            for name, data in pipeline_inputs.items():
                self.feed_input(name, data)
            self.build()
            runner = self._runner
            assert runner is not None
            sched = self._sched
            if sched.end_of_data:
                raise StopIteration
            stopped = False
            self._op_counter = 0
            self._names = {}
            context.push_pipeline(self)
            self._eager = runner
            try:
                runner.begin(sched.iteration, sched.epoch, sched.stream_pos)
                out = runner.finish(self._definition())
            except StopIteration:
                stopped = True
                sched.end_of_data = True
                raise
            finally:
                self._eager = None
                context.pop_pipeline()
                runner.end()
                self._names = {}  # (they hold the run's nodes, and so its batches)
                if not stopped:
                    sched.submitted(self._max_batch_size or 0)
        validate_outputs(out, self._output_dtype, self._output_ndim, self._output_layout)
        if cuda_stream is not None:
            from dali._exec.device import stream_ptr
            from dali._tensors import order_after

            ptr = stream_ptr(cuda_stream)
            for tl in out:
                order_after(tl, ptr, keep=cuda_stream)
        return out

    def feed_input(
        self,
        data_node: Any,
        data: Any,
        layout: str | None = None,
        cuda_stream: Any = None,
        use_copy_kernel: bool = False,
    ) -> None:
        """Give one batch to a named external source (kept until its first call)."""
        self.build()
        assert self._runner is not None
        name = data_node.name if isinstance(data_node, DataNode) else data_node
        self._runner.feed(name, data, layout=layout, cuda_stream=cuda_stream)

    def reset(self) -> None:
        """Start a new epoch after an external source reported the end of its data."""
        with self._run_lock:
            sched = self._sched
            if not sched.end_of_data:
                return
            sched.new_epoch()
            assert self._runner is not None
            for impl in self._runner.implementations():
                impl.on_reset()

    def _reader_metas(self, method: str = "", name: str | None = None) -> Any:
        self.build()
        assert self._runner is not None
        metas = {
            impl.name: meta
            for impl in self._runner.implementations()
            if (meta := impl.reader_meta()) is not None
        }
        if name is None:
            return metas
        if name not in metas:
            raise RuntimeError(
                f"Pipeline.{method}: Operator {name} not found or does not expose valid "
                f"metadata (in debug mode, readers are known after the first `run()`)."
            )
        return metas[name]

    def skipped_samples(self, name: str | None = None) -> Any:
        self.build()
        assert self._runner is not None
        counts = {
            impl.name: n
            for impl in self._runner.implementations()
            if (n := impl.skipped_samples()) is not None
        }
        if name is not None:
            if name not in counts:
                raise RuntimeError(f"No operator named {name!r} can skip samples.")
            return counts[name]
        return counts

    def close(self) -> None:
        """Close the operators (readers' files and processes) and the thread pool."""
        if self._finalizer is not None and self._finalizer.detach() is not None:
            assert self._runner is not None
            self._runner.close()

    # Everything that needs the compiled graph.
    schedule_run = _unavailable("schedule_run")
    outputs = _unavailable("outputs")
    share_outputs = _unavailable("share_outputs")
    release_outputs = _unavailable("release_outputs")
    empty = _unavailable("empty")
    set_outputs = _unavailable("set_outputs")
    checkpoint = _unavailable("checkpoint")
    restore = _unavailable("restore")
    snapshot = _unavailable("snapshot")
    rewind = _unavailable("rewind")
    reader_resume = _unavailable("reader_resume")
    serialize = _unavailable("serialize")
    save_graph_to_dot_file = _unavailable("save_graph_to_dot_file")
    save_graph_picture = _unavailable("save_graph_picture")
    output_dtype = _unavailable("output_dtype")
    output_ndim = _unavailable("output_ndim")
    output_shape = _unavailable("output_shape")
    cpu_workers = _unavailable("cpu_workers")
    start_py_workers = _unavailable("start_py_workers")
