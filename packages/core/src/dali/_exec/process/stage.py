"""A GPU pipeline's CPU stage on worker processes: `CpuStageWorkers`.

A pipeline with GPU work runs its CPU operators (those that need nothing from the GPU:
readers, box and label arithmetic, CPU decoders, random draws) in a *CPU stage*, ahead of its
mixed and GPU stages (`dali._exec.stages.split_stages`). In one process every stage's Python
shares one interpreter lock, and the GPU stage's host work (planning, kernel launches) waits
for the CPU operators' Python: the SSD pipeline's CPU stage took 52 ms of CPU per batch of 64
beside its GPU stage's 13 ms, and the pipeline ran at the CPU stage's pace. So, from
``options.POOL_MIN_THREADS`` threads on (`Pipeline.cpu_workers` says when and why), the CPU
stage runs on worker processes, batch-parallel like a CPU pipeline's
(`dali._exec.process.pool`), and the process that owns the GPU only collects its results:

* **What the workers run.** The sub-graph of the CPU stage: every CPU operator the GPU stage
  reads from (its inputs, argument inputs and batch sources), and the pipeline outputs made
  on the CPU, are the workers' outputs (`stage_of`). Their plan is built from the same traced
  graph, so random keys, sample identities and operator names are the pipeline's.
* **What stays.** The GPU process keeps scheduling, the Python sources (their batches travel
  with the request, as to a CPU pipeline's workers) and every reader's position: it plans
  each batch's samples in order (`Operator.plan_samples`) and records the readers' states
  with the iteration, so batches and checkpoints are those of one process. It runs the mixed
  operators' host planning (``prepare``) and the mixed and GPU stages on what comes back.
* **What crosses.** Per iteration, the request (planned samples and sources' batches named by
  operator: the workers' plan is not the pipeline's) one way; the stage's outputs in a host
  shared-memory slot (`dali._exec.process.shm`, no copy on arrival), with each output's
  sample identities (`IterationRequest.metas`) the other. The GPU stage copies them to the
  device from there; CPU outputs of the pipeline stay views of the slot, which is written
  again only when every view is gone.

Errors, a dead worker, shutdown and Ctrl-C are the worker processes' (`dali._exec.process`):
an operator's error fails its iteration, in order, naming the operator and the file.

Example:
    >>> from dali import Pipeline, fn
    >>> from dali._graph.build import build_plan
    >>> p = Pipeline(batch_size=2, num_threads=1, device_id=0)
    >>> with p:
    ...     boxes = fn.random.uniform(range=[0.0, 1.0], shape=[4])
    ...     p.set_outputs(fn.bb_flip(boxes, horizontal=1), fn.random.uniform(shape=[2]).gpu())
    >>> plan = build_plan(p._graph_outputs, p._ops, pipeline_info=p._info(), seed=1)
    >>> steps, slots, nodes = stage_of(plan)
    >>> [plan.steps[si].node.schema.fn_path for si in steps]
    ['random.uniform', 'bb_flip', 'random.uniform']
    >>> len(slots), [n.device for n in nodes]
    (2, ['cpu', 'cpu'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dali._exec.process.pool import PoolExecutor
from dali._exec.stages import split_stages

if TYPE_CHECKING:
    from dali._exec.executor import IterationRequest
    from dali._exec.workspace import BatchMeta
    from dali._graph.build import Plan
    from dali._graph.node import DataNode

__all__ = ["CpuStageWorkers", "has_operators", "stage_of"]


def stage_of(plan: Plan) -> tuple[list[int], list[int], list[DataNode]]:
    """The CPU stage of a GPU pipeline's plan, as its worker processes run it.

    Returns:
        ``(steps, slots, nodes)``: the CPU stage's step indices; the slots it writes that the
        rest reads (the GPU stage's inputs, argument inputs and batch sources, and the
        pipeline's CPU outputs); and the traced output of each such slot, the outputs of the
        workers' graph. When the iteration's first source (`Plan.identity_step`, whose samples
        operators without inputs take) is in the stage, its first output comes first: the
        workers' plan then has the same first source, and the GPU process takes the
        iteration's identity from it.
    """
    cpu, gpu = split_stages(plan)
    producer = {slot: si for si in cpu for slot in plan.steps[si].outputs}
    read: set[int] = set(plan.outputs)
    for si in gpu:
        step = plan.steps[si]
        read.update(step.inputs, step.args.values())
        if step.batch is not None:
            read.add(step.batch)
    slots = sorted(s for s in read if s in producer)
    identity = plan.identity_step
    if identity is not None and identity.outputs[0] in producer:
        first = identity.outputs[0]
        slots = [first, *(s for s in slots if s != first)]
    nodes = []
    for slot in slots:
        step = plan.steps[producer[slot]]
        nodes.append(step.node.outputs[step.outputs.index(slot)])
    return cpu, slots, nodes


def has_operators(plan: Plan, steps: Sequence[int]) -> bool:
    """Whether ``steps`` include an operator with inputs (not only readers, sources and
    random draws, which cost the GPU process little: the readers' files are read ahead by
    processes of their own, `dali._ops.readers.storage.read_worker`)."""
    return any(plan.steps[si].inputs for si in steps)


class CpuStageWorkers:
    """A GPU pipeline's CPU stage run on ``workers`` processes (see the module doc), for the
    `dali._exec.executor.Executor` of the GPU process (its ``cpu_stage``).

    Args:
        plan: The pipeline's plan (its readers plan the batches here).
        spec: The pickled `WorkerSpec` of the stage (``stage=True``, outputs: `stage_of`'s nodes).
        steps: The CPU stage's step indices (`stage_of`).
        slots: The slots the workers' outputs fill, in their order (`stage_of`).
        workers: How many worker processes.
        name: How errors call the pipeline.
    """

    def __init__(
        self, plan: Plan, spec: bytes, steps: list[int], slots: list[int], workers: int, name: str
    ) -> None:
        self._pool = PoolExecutor(plan, spec, workers, name, depth=0, stage=steps)
        self._slots = slots
        identity = plan.identity_step
        #: the first output is the iteration's first source's (`stage_of`)
        self._identity = bool(slots) and identity is not None and identity.outputs[0] == slots[0]
        #: iterations to keep in the workers beyond those the GPU stages hold
        self.depth = self._pool.depth

    @property
    def workers(self) -> int:
        return self._pool.workers

    @property
    def pids(self) -> list[int | None]:
        return self._pool.pids

    @property
    def skipped(self) -> dict[str, int]:
        """The samples each ``on_error="skip"`` CPU operator skipped, over every worker."""
        return self._pool.skipped

    def submit(self, req: IterationRequest) -> None:
        """Plan the iteration's reader batches (their states go into ``req.states``) and send
        it to its worker."""
        self._pool.submit(req)

    def get(self) -> tuple[list[tuple[int, Any, BatchMeta]], BatchMeta | None]:
        """The oldest iteration's stage outputs: ``(slot, batch, sample identities)`` each,
        and the iteration's sample identity (None when the first source is not the stage's).

        Raises:
            PipelineError: A CPU operator failed the iteration (it is consumed).
            WorkerDied: A worker process is gone.
        """
        outs = self._pool.get()
        metas, _ = self._pool.metas
        return list(zip(self._slots, outs, metas)), metas[0] if self._identity else None

    def restored(self, seed: int, states: dict[str, Any]) -> None:
        """The pipeline was restored (nothing in flight): the workers reseed."""
        self._pool.restored(seed, states)

    def close(self) -> None:
        self._pool.close()
