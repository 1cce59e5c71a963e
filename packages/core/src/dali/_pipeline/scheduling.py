"""Where a pipeline is in its stream of iterations, and asking its Python sources for data.

DALI's rules: the first ``schedule_run`` schedules ``prefetch_queue_depth`` iterations and later
ones one each (`iterations_ahead`: always one without ``exec_pipelined``); before an iteration
is handed to the executor every Python source (external source callback) is asked for its
batch in the caller's thread, and one that raises ``StopIteration`` ends the epoch
(`Pipeline.reset` starts the next one). An iteration whose ``feed_input`` data is not there yet
waits while earlier ones can be returned (`sources_ready`). Each sample's identity is its index
in the stream of samples, which keys the random numbers of the operators.

Example:
    >>> state = ScheduleState(depth=iterations_ahead(True, 2, 2, separated=False))
    >>> state.count(), state.count()
    (2, 1)
    >>> iterations_ahead(False, 2, 2, separated=False)
    1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dali._exec.executor import IterationRequest

__all__ = ["ScheduleState", "fetch_sources", "iterations_ahead", "sources_ready"]


def iterations_ahead(pipelined: bool, cpu_size: int, gpu_size: int, separated: bool) -> int:
    """How many iterations the first ``schedule_run`` schedules (DALI's ``_prefetch``).

    ``prefetch_queue_depth`` (the larger queue when they are separated); one without
    ``exec_pipelined``: non-pipelined execution runs exactly one iteration per run, so that a
    pipeline fed one batch per run works.
    """
    if not pipelined:
        return 1
    return max(cpu_size, gpu_size) if separated else cpu_size


@dataclass
class ScheduleState:
    """The scheduling counters of one pipeline.

    The iterations in flight are counted by the executor (`Executor.in_flight`), which knows
    when one is taken.

    Attributes:
        depth: How many iterations the epoch's first scheduling schedules (`iterations_ahead`).
        epoch: The current epoch (counted from 0).
        iteration: The next iteration to schedule, counted from the start of the epoch.
        stream_pos: The index of the first sample of that iteration, counted from the start.
        first_scheduled: Whether the epoch's first (deep) scheduling has happened.
        end_of_data: Whether a Python source reported the end of the epoch.
    """

    depth: int = 1
    epoch: int = 0
    iteration: int = 0
    stream_pos: int = 0
    first_scheduled: bool = False
    end_of_data: bool = False

    def count(self) -> int:
        """How many iterations to schedule now: ``depth`` the first time, then one."""
        n = 1 if self.first_scheduled else self.depth
        self.first_scheduled = True
        return n

    def request(self, fed: dict[int, Any], max_batch_size: int) -> IterationRequest:
        """The executor's request for the next iteration, with the sources' batches ``fed``."""
        return IterationRequest(
            iteration=self.iteration,
            epoch=self.epoch,
            fed=fed,
            max_batch_size=max_batch_size,
            stream_start=self.stream_pos,
        )

    def submitted(self, max_batch_size: int) -> None:
        """Count the iteration being handed to the executor."""
        self.iteration += 1
        self.stream_pos += max_batch_size

    def new_epoch(self) -> None:
        """Start the next epoch (after the end of the data)."""
        self.epoch += 1
        self.iteration = 0
        self.first_scheduled = False
        self.end_of_data = False


def sources_ready(plan: Any) -> bool:
    """Whether every Python source of ``plan`` can give its batch now without failing or
    waiting for want of ``feed_input`` data (sources with a ``source`` always can)."""
    return all(step.impl.has_data() for step in plan.callback_sources)


def fetch_sources(
    plan: Any, source_index: dict[int, int], iteration: int, epoch: int
) -> dict[int, Any] | None:
    """The batch of every Python source of ``plan`` for one iteration, by step index.

    Every source is asked, as DALI does, even when an earlier one reports the end of the data.

    Returns:
        ``{step index: (batch, BatchMeta)}``, or None when a source reported the end of data.

    Raises:
        RuntimeError: If the sources returned batches of different sizes.
    """
    fed: dict[int, Any] = {}
    ended = False
    for step in plan.callback_sources:
        try:
            fed[source_index[id(step)]] = step.impl.fetch(iteration, epoch)
        except StopIteration:
            ended = True
    if ended:
        return None
    batch_sizes = {len(m) for _, m in fed.values()}
    if len(batch_sizes) > 1:
        raise RuntimeError(
            "The Python sources of the pipeline returned batches of different sizes in "
            f"iteration {iteration}: {sorted(batch_sizes)}"
        )
    return fed
