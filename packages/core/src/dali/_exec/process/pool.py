"""`PoolExecutor`: a CPU pipeline's iterations spread over several worker processes.

One interpreter lock caps a pipeline's CPU work at a few cores, whatever ``num_threads`` says
(numpy, OpenCV and the codecs release it, but the Python between their calls does not). So a
CPU pipeline that buys many threads runs on ``P`` worker processes instead, batch-parallel as
a PyTorch ``DataLoader`` is: iteration ``k`` (in the order they are submitted) runs on worker
``k mod P``, each worker being the worker process of `dali._exec.process.executor` (the whole
plan, its own executor and threads) and its outputs coming back through host shared memory
(`dali._exec.process.shm`), without a copy.

The batches are those of the pipeline in one process:

* the consumer keeps every reader's position and *plans* each batch's samples itself, in
  iteration order, when it submits the iteration (`Operator.plan_samples`): the worker that
  runs it produces exactly those samples, and the readers' states recorded with the iteration
  (checkpoints) are the consumer's;
* random numbers are keyed by the samples' identities, not by who draws them;
* the Python sources are called by the consumer, as in one process (their batches travel with
  the request).

Everything else is the worker processes' behaviour: errors fail their iteration in order, a
dead worker raises `WorkerDied` at once and on every later call, `close` stops them all, the
kernel kills them when the consumer dies.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dali import _options as options
from dali._exec.executor import PipelineError
from dali._exec.process.executor import ProcessExecutor

if TYPE_CHECKING:
    from dali._exec.executor import IterationRequest
    from dali._graph.build import Plan

__all__ = ["PoolExecutor"]


class PoolExecutor:
    """Runs a CPU pipeline's iterations on ``workers`` processes (see the module doc); it has
    the interface of `dali._exec.executor.Executor`.

    Args:
        plan: The consumer's plan (its readers are the ones that plan the batches).
        spec: The pickled `WorkerSpec` every worker runs (`dali._exec.process.spec.dump`).
        workers: How many worker processes.
        name: How errors call the pipeline.
        depth: The pipeline's iterations ahead; the pool keeps every worker
            ``options.POOL_DEPTH_PER_WORKER`` iterations ahead beyond them (`depth`).
        stage: The steps the workers run when they are a GPU pipeline's CPU stage
            (`dali._exec.process.stage`); None: the whole plan.
    """

    def __init__(
        self,
        plan: Plan,
        spec: bytes,
        workers: int,
        name: str,
        depth: int = 1,
        stage: Sequence[int] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {workers}")
        #: iterations to keep in flight
        self.depth = depth + workers * options.POOL_DEPTH_PER_WORKER
        steps = range(len(plan.steps)) if stage is None else stage
        self._planners = [
            (si, plan.steps[si]) for si in steps if plan.steps[si].impl.implements("plan_samples")
        ]
        #: a GPU pipeline's CPU stage (`dali._exec.process.stage`): the workers' plan is the
        #: stage's, so requests name its steps (planned readers, fed sources) by operator name
        self._names = None if stage is None else {si: plan.steps[si].node.name for si in stage}
        self._workers = [
            ProcessExecutor(spec, None, f"{name} (worker {k} of {workers})") for k in range(workers)
        ]
        #: the worker of each iteration in flight, oldest first
        self._order: collections.deque[int] = collections.deque()
        self._next = 0
        self.taken: tuple[Any, dict[str, Any]] | None = None
        #: the sample identities of the outputs `get` returned last (a CPU stage's workers)
        self.metas: Any = None

    @property
    def workers(self) -> int:
        return len(self._workers)

    @property
    def in_flight(self) -> int:
        return len(self._order)

    @property
    def pid(self) -> int | None:
        """The first worker's process id (None before the first iteration); all: `pids`."""
        return self._workers[0].pid

    @property
    def pids(self) -> list[int | None]:
        return [w.pid for w in self._workers]

    @property
    def skipped(self) -> dict[str, int]:
        """The samples each ``on_error="skip"`` operator skipped, over every worker."""
        total: dict[str, int] = {}
        for w in self._workers:
            for name, n in w.skipped.items():
                total[name] = total.get(name, 0) + n
        return total

    def submit(self, req: IterationRequest) -> None:
        """Plan the iteration's reader batches here (their states recorded in the request),
        then send it to its worker."""
        planned = {}
        for si, step in self._planners:
            planned[si] = step.impl.plan_samples()
            if step.stateful:
                req.states[step.node.name] = step.impl.get_state()
        names = self._names
        if names is None:
            sent = dataclasses.replace(req, planned=planned, states=dict(req.states))
        else:  # keyed by operator name (`dali._exec.process.worker` maps them back)
            by_name: dict[Any, Any] = {names[si]: v for si, v in planned.items()}
            fed_by_name: dict[Any, Any] = {names[si]: v for si, v in req.fed.items()}
            sent = dataclasses.replace(
                req,
                planned=by_name,
                fed=fed_by_name,
                states={},
                slot=None,
                cursor=None,
                keep_metas=True,
            )
        k = self._next
        self._workers[k].submit(sent)
        self._next = (k + 1) % len(self._workers)
        self._order.append(k)

    def get(self) -> tuple[Any, ...]:
        """The outputs of the oldest iteration in flight (see `Executor.get`): a failed
        iteration is consumed; an interrupt while waiting, or a dead worker, leaves it."""
        if not self._order:
            raise RuntimeError("No iteration was scheduled.")
        worker = self._workers[self._order[0]]
        try:
            out: tuple[Any, ...] = worker.get()
        except PipelineError:
            self._take(worker)
            raise
        self._take(worker)
        return out

    def _take(self, worker: ProcessExecutor) -> None:
        self._order.popleft()
        self.taken, worker.taken = worker.taken, None
        self.metas, worker.metas = worker.metas, None

    def restored(self, seed: int, states: dict[str, Any]) -> None:
        """The pipeline was restored (nothing in flight): every worker reseeds; the readers'
        positions are the consumer's, already restored."""
        for w in self._workers:
            w.restored(seed, states)

    def call(self, name: str) -> Any:
        """A CPU pipeline's memory calls: nothing to report or release."""
        return None

    def release(self) -> None:
        for w in self._workers:
            w.release()

    def close(self) -> None:
        for w in self._workers:
            w.close()
