"""How the executor splits a plan into stages, each run by a thread of its own.

Every function returns step indices in plan order, so running the stages one after another
keeps a topological order; each stage's thread takes the iterations in order, so every operator
still runs its iterations one after another and results stay ordered and deterministic.

* CPU-only pipelines: `split_sources` puts the readers and external sources in a *source
  stage* that runs ahead, on its own thread, while the operators work on earlier iterations
  (DALI's readers also fill their prefetch queue from a thread of their own).
* Pipelines with GPU work: `split_stages` (a CPU stage and a GPU stage), `split_gpu_stage`
  (the GPU stage cut after its last mixed operator) and `preparable` (mixed operators whose
  host part runs in the CPU stage).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "cpu_preparable",
    "preparable",
    "split_gpu_stage",
    "split_sources",
    "split_stages",
]

#: Whether CPU-only pipelines run their sources in a stage of their own (`split_sources`); read
#: when a pipeline is built.
SOURCE_STAGE = True


def _deps(step: Any, inputs: bool = True) -> list[int]:
    """The slots a step reads: its inputs (with ``inputs``), argument inputs and batch subset."""
    deps = [*step.inputs, *step.args.values()] if inputs else list(step.args.values())
    if step.batch is not None:
        deps.append(step.batch)
    return deps


def _fed_by(
    plan: Any, producers: list[int], candidates: list[int], device: str, method: str
) -> list[int]:
    """The ``candidates`` on ``device`` that define ``method`` and read only what the
    ``producers`` write."""
    slots = {slot for si in producers for slot in plan.steps[si].outputs}
    return [
        si
        for si in candidates
        if plan.steps[si].device == device
        and getattr(plan.steps[si].impl, method, None) is not None
        and all(d in slots for d in _deps(plan.steps[si]))
    ]


def split_sources(plan: Any) -> tuple[list[int], list[int]]:
    """Step indices of the source stage and of the rest of a CPU-only pipeline.

    The source stage holds the source operators (readers, external sources) whose arguments
    come from the source stage too; everything else (every operator with inputs, random
    generators, Python functions) stays with the operators, in the executor thread. Either
    list may be empty: then there is one stage (also when the first source, which gives the
    iteration its sample identity, cannot run in the source stage).

    Why: a reader reads a batch on one thread (~2 ms for 64 JPEGs on the 2-core machine) while
    the thread pool waits, and the pool is what makes a CPU pipeline fast. With the reader of
    iteration i + 1 running beside the operators of iteration i, in-process A/B of
    `benchmarks/image_cpu.py`'s pipelines (2 threads, medians of 6 rounds, three runs):
    ResNet-50 +7.9 %, +6.4 % and +10.3 %, quickstart +6.0 %, -1.1 % and +8.5 %, decode only
    -4.8 %, +0.9 % and -2.3 % (with nothing but a decoder after the reader, the extra thread
    costs about what it saves). A pipeline whose reader is its bottleneck pays for the hand-off
    between the threads: readers.file → cast of the labels, 1.59 against 1.48 ms per batch of
    64 files.
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


def cpu_preparable(plan: Any, sources: list[int], rest: list[int]) -> list[int]:
    """CPU steps whose host planning can run in the source stage: they define
    ``prepare_cpu`` and every input and argument comes from the source stage.

    The image decoders' ``prepare_cpu`` reads the batch's JPEG headers and computes the crop
    windows (`_mixed_plan.plan_batch`, ~1.3 ms per batch of 64 random crops on the 2-core
    machine), which would otherwise run on the operators' thread while the pool waits. What it
    returns, or the exception it raised, reaches the operator's run as ``ws.prepared``.
    In-process A/B (2 threads, medians of 6 rounds, two runs): ResNet-50 +4.4 % and +0.4 %,
    quickstart -2.8 % and +2.3 %, decode only -1.6 % and +3.5 % — about the 2 % expected from
    the time moved, within this machine's noise.
    """
    return _fed_by(plan, sources, rest, "cpu", "prepare_cpu")


def preparable(plan: Any, cpu_stage: list[int], gpu_stage: list[int]) -> list[int]:
    """Mixed steps whose CPU part can run in the CPU stage: they define ``prepare`` and every
    input and argument comes from the CPU stage.

    A decoder's ``prepare`` then starts the batch's host planning (headers, windows) and its
    decode ahead, on a worker of the decoder's own, as soon as the CPU stage has the batch: the
    decodes of consecutive iterations overlap, and the mixed stage only collects the result.
    """
    return _fed_by(plan, cpu_stage, gpu_stage, "mixed", "prepare")


def split_stages(plan: Any) -> tuple[list[int], list[int]]:
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


def split_gpu_stage(plan: Any, gpu_stage: list[int]) -> list[list[int]]:
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
        return [gpu_stage]
    return [gpu_stage[: last + 1], gpu_stage[last + 1 :]]
