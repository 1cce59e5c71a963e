"""Where a pipeline is in its stream of iterations, and asking its Python sources for data.

DALI's rules: the first ``schedule_run`` schedules ``prefetch_queue_depth`` iterations and later
ones one each; before an iteration is handed to the executor every Python source (external
source callback) is asked for its batch in the caller's thread, and one that raises
``StopIteration`` ends the epoch (`Pipeline.reset` starts the next one). Each sample's identity
is its index in the stream of samples, which keys the random numbers of the operators.

Example:
    >>> state = ScheduleState()
    >>> state.count(queue_size=2), state.count(queue_size=2)
    (2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dali._exec.executor import IterationRequest

__all__ = ["ScheduleState", "fetch_sources"]


@dataclass
class ScheduleState:
    """The scheduling counters of one pipeline.

    Attributes:
        epoch: The current epoch (counted from 0).
        iteration: The next iteration to schedule, counted from the start of the epoch.
        stream_pos: The index of the first sample of that iteration, counted from the start.
        first_scheduled: Whether the epoch's first (deep) scheduling has happened.
        in_flight: Iterations scheduled but not yet consumed.
        end_of_data: Whether a Python source reported the end of the epoch.
    """

    epoch: int = 0
    iteration: int = 0
    stream_pos: int = 0
    first_scheduled: bool = False
    in_flight: int = 0
    end_of_data: bool = False

    def count(self, queue_size: int) -> int:
        """How many iterations to schedule now: ``queue_size`` the first time, then one."""
        n = 1 if self.first_scheduled else queue_size
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
        """Count the iteration just handed to the executor."""
        self.iteration += 1
        self.stream_pos += max_batch_size
        self.in_flight += 1

    def new_epoch(self) -> None:
        """Start the next epoch (after the end of the data)."""
        self.epoch += 1
        self.iteration = 0
        self.first_scheduled = False
        self.end_of_data = False


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
