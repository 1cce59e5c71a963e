"""The stages of the executor: which steps of a plan each of its threads runs.

The executor (`dali._exec.executor`) runs one thread per `Stage`, all with the same loop: take
an iteration from the stage before (the first stage: from the consumer), run the stage's steps
on it, hand it to the next stage (the last: to the consumer). `plan_stages` cuts a plan into
stages. Every function returns step indices in plan order, so running the stages one after
another keeps a topological order; each stage's thread takes the iterations in order, so every
operator still runs its iterations one after another and results stay ordered and
deterministic.

* CPU-only pipelines: `split_sources` puts the readers and external sources in a *source
  stage* that runs ahead, on its own thread, while the operators work on earlier iterations
  (DALI's readers also fill their prefetch queue from a thread of their own); `cpu_preparable`
  CPU operators plan their batch there too.
* Pipelines with GPU work: `split_stages` (a CPU stage and a GPU stage), `split_gpu_stage`
  (the GPU stage cut after its last mixed operator) and `preparable` (mixed operators whose
  host part runs in the CPU stage).

Example:
    >>> stage = Stage("dali-executor-gpu", "gpu", (3, 4), on_device=True)
    >>> stage.thread, stage.steps, stage.prepare
    ('dali-executor-gpu', (3, 4), ())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from dali import _options as options

if TYPE_CHECKING:
    from dali._graph.build import Plan, Step

__all__ = [
    "Stage",
    "cpu_preparable",
    "plan_stages",
    "preparable",
    "split_gpu_stage",
    "split_sources",
    "split_stages",
]

#: The host-side planning hooks of `dali._ops.base.Operator` a stage can run ahead.
PrepareHook = Literal["prepare", "prepare_cpu"]


@dataclass(frozen=True)
class Stage:
    """One executor thread's share of every iteration.

    Attributes:
        thread: The thread's name (``dali-executor``, ``dali-executor-source``, ...).
        label: The stage's name in profiles (``source``, ``cpu``, ``mixed``, ``gpu``).
        steps: The plan's step indices the stage runs, in plan order.
        prepare: Steps of *later* stages whose host part (`hook`) this stage runs after its
            own steps, as soon as their inputs exist (what it returns reaches their run as
            ``ws.prepared``).
        hook: The operator method that part is: ``prepare`` or ``prepare_cpu``.
        on_device: Whether the stage runs with the pipeline's device, stream and memory pool
            current (GPU and mixed operators).
    """

    thread: str
    label: str
    steps: tuple[int, ...]
    prepare: tuple[int, ...] = ()
    hook: PrepareHook = "prepare"
    on_device: bool = False


def plan_stages(plan: Plan, gpu: bool) -> list[Stage]:
    """The stages of a plan, first to last, each run by a thread of its own.

    ``gpu``: the pipeline has a device (then the plan's GPU work gets stages of its own).
    """
    every = tuple(range(len(plan.steps)))
    if not gpu:
        if options.SOURCE_STAGE:
            sources, rest = split_sources(plan)
            if sources and rest:
                ahead = cpu_preparable(plan, sources, rest)
                return [
                    Stage(
                        "dali-executor-source",
                        "source",
                        tuple(sources),
                        tuple(ahead),
                        "prepare_cpu",
                    ),
                    Stage("dali-executor", "cpu", tuple(rest)),
                ]
        return [Stage("dali-executor", "cpu", every)]
    cpu, gpu_steps = split_stages(plan)
    stages = [Stage("dali-executor", "cpu", tuple(cpu), tuple(preparable(plan, cpu, gpu_steps)))]
    parts = split_gpu_stage(plan, gpu_steps)
    names = [("dali-executor-gpu", "gpu")]
    if len(parts) > 1:
        names = [("dali-executor-mixed", "mixed"), ("dali-executor-gpu", "gpu")]
    for (thread, label), part in zip(names, parts):
        stages.append(Stage(thread, label, tuple(part), on_device=True))
    return stages


def _deps(step: Step, inputs: bool = True) -> list[int]:
    """The slots a step reads: its inputs (with ``inputs``), argument inputs and batch subset."""
    deps = [*step.inputs, *step.args.values()] if inputs else list(step.args.values())
    if step.batch is not None:
        deps.append(step.batch)
    return deps


def _fed_by(
    plan: Plan, producers: Sequence[int], candidates: Sequence[int], device: str, hook: PrepareHook
) -> list[int]:
    """The ``candidates`` on ``device`` that implement ``hook`` and read only what the
    ``producers`` write."""
    slots = {slot for si in producers for slot in plan.steps[si].outputs}
    return [
        si
        for si in candidates
        if plan.steps[si].device == device
        and plan.steps[si].impl.implements(hook)
        and all(d in slots for d in _deps(plan.steps[si]))
    ]


def split_sources(plan: Plan) -> tuple[list[int], list[int]]:
    """Step indices of the source stage and of the rest of a CPU-only pipeline.

    The source stage holds the source operators (readers, external sources) whose arguments
    come from the source stage too; everything else (every operator with inputs, random
    generators, Python functions) stays with the operators, in the executor thread. Either
    list may be empty: then there is one stage (also when the first source, which gives the
    iteration its sample identity, cannot run in the source stage).

    Why: a reader reads a batch on one thread while the thread pool waits, and the pool is what
    makes a CPU pipeline fast (``benchmarks/RESULTS.md``, "Source stage": ResNet-50 +6 to
    +10 %).
    """
    slots: set[int] = set()
    sources: list[int] = []
    rest: list[int] = []
    for si, step in enumerate(plan.steps):
        source = step.device == "cpu" and step.node.schema.source and not step.inputs
        if source and all(d in slots for d in _deps(step, inputs=False)):
            sources.append(si)
            slots.update(step.outputs)
        else:
            rest.append(si)
    identity = plan.identity_step
    if identity is not None and plan.steps.index(identity) not in sources:
        # the iteration's sample identity comes from its first source: keep the one stage
        return [], list(range(len(plan.steps)))
    return sources, rest


def cpu_preparable(plan: Plan, sources: Sequence[int], rest: Sequence[int]) -> list[int]:
    """CPU steps whose host planning can run in the source stage: they define
    ``prepare_cpu`` and every input and argument comes from the source stage.

    The image decoders' ``prepare_cpu`` reads the batch's JPEG headers and computes the crop
    windows (`_mixed_plan.plan_batch`, ~1.3 ms per batch of 64 random crops on the 2-core
    machine), which would otherwise run on the operators' thread while the pool waits. What it
    returns, or the exception it raised, reaches the operator's run as ``ws.prepared``
    (``benchmarks/RESULTS.md``, "Decoder planning in the source stage").
    """
    return _fed_by(plan, sources, rest, "cpu", "prepare_cpu")


def preparable(plan: Plan, cpu_stage: Sequence[int], gpu_stage: Sequence[int]) -> list[int]:
    """Mixed steps whose CPU part can run in the CPU stage: they define ``prepare`` and every
    input and argument comes from the CPU stage.

    A decoder's ``prepare`` then starts the batch's host planning (headers, windows) and its
    decode ahead, on a worker of the decoder's own, as soon as the CPU stage has the batch: the
    decodes of consecutive iterations overlap, and the mixed stage only collects the result.
    """
    return _fed_by(plan, cpu_stage, gpu_stage, "mixed", "prepare")


def split_stages(plan: Plan) -> tuple[list[int], list[int]]:
    """Step indices of the CPU stage and of the GPU stage, each in plan order.

    The CPU stage holds the CPU operators that depend on no GPU or mixed operator, and the
    Python sources (their data was made when the iteration was scheduled); everything else (H2D
    copies, mixed and GPU operators, CPU operators fed from the GPU) is the GPU stage. Running
    the CPU stage and then the GPU stage keeps a topological order.
    """
    gpu_slots: set[int] = set()
    cpu_stage: list[int] = []
    gpu_stage: list[int] = []
    identity_on_gpu = False
    for si, step in enumerate(plan.steps):
        # A step with no batch takes the sample identity of the first source (`root`).
        on_gpu = (
            step.device != "cpu"
            or any(d in gpu_slots for d in _deps(step))
            or (step.batch is None and identity_on_gpu)
        )
        if on_gpu and not step.callback_source:
            gpu_stage.append(si)
            gpu_slots.update(step.outputs)
            identity_on_gpu = identity_on_gpu or step is plan.identity_step
        else:
            cpu_stage.append(si)
    return cpu_stage, gpu_stage


def split_gpu_stage(plan: Plan, gpu_stage: Sequence[int]) -> list[list[int]]:
    """The GPU stage cut after its last mixed operator: ``[mixed part, GPU part]``.

    A mixed operator (a decoder) spends its time in one blocking library call, while the GPU
    operators after it spend theirs planning on the host and queueing kernels. Run by two
    threads, the decode of iteration i+1 overlaps the GPU operators of iteration i (DALI's
    executor has the same three stages: CPU, mixed, GPU). Both threads queue work on the
    pipeline's one stream, and iteration i's GPU part is queued after its mixed part, so the
    device sees every dependency in order. Without a mixed operator, or when nothing follows
    the last one, there is one part.
    """
    last = max(
        (k for k, si in enumerate(gpu_stage) if plan.steps[si].device == "mixed"), default=-1
    )
    if last < 0 or last == len(gpu_stage) - 1:
        return [list(gpu_stage)]
    return [list(gpu_stage[: last + 1]), list(gpu_stage[last + 1 :])]
