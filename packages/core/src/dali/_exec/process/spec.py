"""What a pipeline's worker process is given once: the traced graph and the settings.

The graph travels as the `OpNode` records the pipeline traced (all of them: the operators'
identities, which seed their random numbers, are computed over every traced call), pickled
with three substitutions:

* an operator's `Schema` travels as its registered name and the module that registers it
  (a plugin's operators are registered when that module is imported in the worker);
* the weak reference of each record to its `Pipeline` travels as nothing (the worker has no
  Pipeline: it builds a plan and runs an `Executor`);
* a Python source (``external_source`` with a ``source``) travels without its callback: the
  consumer calls it when it schedules an iteration, as in-process, and the iteration request
  carries the batch (`IterationRequest.fed`).

Every other argument must pickle as it is (a module-level function for a ``source`` kept by
another operator, say); `NotShippable` says which operator's argument does not, and the
pipeline then runs in-process.

Example:
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.random.uniform(shape=[2])
    >>> p = pipe()
    >>> p.build()
    >>> spec = WorkerSpec.of(p._ops, p._graph_outputs, p._plan, p._info(), {})
    >>> len(spec.ops), spec.info.max_batch_size
    (1, 2)
    >>> ops = load(dump(spec)).ops
    >>> ops[0].name == p._ops[0].name, ops[0].pipeline is None
    (True, True)
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import pickle
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dali._graph.node import OpNode
from dali._graph.schema import Schema, get_schema

if TYPE_CHECKING:
    from dali._graph.build import Plan
    from dali._pipeline.pipeline import PipelineInfo

__all__ = ["NotShippable", "WorkerSpec", "dump", "load"]

#: The arguments of a Python source that stay with the consumer (it calls the callback).
_CONSUMER_ARGS = ("source", "parallel")


class NotShippable(TypeError):
    """The graph cannot be sent to a worker process (an argument does not pickle)."""


@dataclass
class WorkerSpec:
    """Everything the worker needs to run the pipeline's iterations."""

    #: every traced operator, in creation order (`Pipeline._ops`)
    ops: list[OpNode]
    #: the pipeline's outputs (`Pipeline._graph_outputs`)
    outputs: list[Any]
    #: the pipeline's settings (`PipelineInfo`, its seed resolved) without its CUDA context
    info: PipelineInfo
    #: operator name -> state, for the stateful operators (a restored checkpoint's)
    states: dict[str, Any]
    #: names of the operators that are Python sources (fed by the consumer)
    fed: frozenset[str]
    #: one of several workers of a CPU pipeline (`dali._exec.process.pool`): the consumer
    #: plans the readers' batches, and the worker starts no processes of its own
    pooled: bool = False
    #: the CPU stage of a GPU pipeline (`dali._exec.process.stage`): ``outputs`` are what its
    #: GPU stage reads, and each iteration's outputs come back with their sample identities
    stage: bool = False

    @classmethod
    def of(
        cls,
        ops: list[OpNode],
        outputs: list[Any],
        plan: Plan,
        info: PipelineInfo,
        states: dict[str, Any],
        *,
        pooled: bool = False,
        stage: bool = False,
    ) -> WorkerSpec:
        """The spec of a built pipeline: its traced graph and settings, and where its
        consumer stands now.

        Args:
            ops: Every traced operator, in creation order.
            outputs: The pipeline's outputs.
            plan: The consumer's plan (which operators are Python sources).
            info: The pipeline's settings (its CUDA context stays here: the worker makes one).
            states: The stateful operators' states to start from.
            pooled: One of several workers of a CPU pipeline (each on one thread).
            stage: Workers of a GPU pipeline's CPU stage (pooled, without a device).
        """
        if pooled or stage:
            info = dataclasses.replace(info, num_threads=1)
        if stage:
            info = dataclasses.replace(info, device_id=None)
        return cls(
            ops=list(ops),
            outputs=list(outputs),
            info=dataclasses.replace(info, cuda=None),
            states=dict(states),
            fed=frozenset(s.node.name for s in plan.callback_sources),
            pooled=pooled or stage,
            stage=stage,
        )


def _schema(fn_path: str, module: str) -> Schema:
    importlib.import_module(module)  # registers the operator (a plugin's, say)
    return get_schema(fn_path)


def _detached() -> None:
    return None


def _new_opnode() -> OpNode:
    return OpNode.__new__(OpNode)


class _GraphPickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, fed: frozenset[str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._fed = fed

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Schema):
            return _schema, (obj.fn_path, obj.impl.__module__)
        if isinstance(obj, weakref.ReferenceType):
            return _detached, ()
        if isinstance(obj, OpNode) and obj.name in self._fed:
            state = dict(vars(obj))
            state["scalar_args"] = {
                k: v for k, v in obj.scalar_args.items() if k not in _CONSUMER_ARGS
            }
            return _new_opnode, (), state
        return NotImplemented


def dump(spec: WorkerSpec) -> bytes:
    """``spec`` as bytes for the worker.

    Raises:
        NotShippable: An operator's argument does not pickle; the message names it.
    """
    buf = io.BytesIO()
    try:
        _GraphPickler(buf, spec.fed).dump(spec)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise NotShippable(f"{_culprit(spec)}{e}") from e
    return buf.getvalue()


def _culprit(spec: WorkerSpec) -> str:
    """The first operator argument that does not pickle, as words ("" if none is found)."""
    for op in spec.ops:
        if op.name in spec.fed:
            continue
        for name, value in op.scalar_args.items():
            try:
                pickle.dumps(value)
            except Exception:  # noqa: BLE001 - any failure names the culprit
                return f"the argument `{name}` of {op.display_name} ({op.name}) does not pickle: "
    return ""


def load(data: bytes) -> WorkerSpec:
    spec: WorkerSpec = pickle.loads(data)
    return spec
