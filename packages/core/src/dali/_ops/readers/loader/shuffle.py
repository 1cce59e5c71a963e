"""``random_shuffle``'s shuffle buffer, as DALI's loaders keep it, as a function of the draws.

DALI's readers shuffle with a buffer of ``initial_fill`` samples: they read the (sharded)
samples in order, first ``initial_fill`` of them, and then for every sample they return they
draw one from the buffer and read the next into its place. Draws only ever choose among the
buffered samples of the *oldest* epoch (pass) in it: samples of the next epoch wait until the
current one is used up. So every epoch gives each of its samples exactly once, in an order
where the ``k``-th sample returned is one of the first ``initial_fill + k`` read.

Numbered by the order of reading, the buffer is a window of reads ``[t, t + fill)`` before draw
``t``: the draw swaps a random read of the window's current epoch into place ``t`` and returns
it, and read ``t + fill`` takes its place. Reads of later epochs never move, and at the start
of an epoch the window is in order. That makes the buffer after ``t`` draws a
pure function of ``t`` (the random choice of draw ``t`` is keyed on the reader's key and
``t``): it is rebuilt by replaying the draws since its epoch began (`ShuffleBuffer.seek`), as
DALI fast-forwards its loader from the epoch's snapshot, and a checkpoint needs only the
position.

Example:
    >>> from dali._ops.readers.loader.sharding import SampleStream
    >>> buffer = ShuffleBuffer(SampleStream(6), size=3, key=7)
    >>> epoch = buffer.draw(6)
    >>> sorted(epoch.tolist()), sorted(buffer.draw(6).tolist())
    ([0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11])
"""

from __future__ import annotations

import numpy as np

from dali._exec import gil
from dali._exec.rng import SampleRNG, combine
from dali._ops.readers.loader.sharding import SampleStream

__all__ = ["ShuffleBuffer"]


class ShuffleBuffer:
    """The shuffle buffer over a stream of reads; draws return read numbers (positions in it).

    The buffer is DALI's circular one: read ``a`` of the window ``[t, t + size)`` sits in slot
    ``a % size`` until a draw swaps it.

    Args:
        reads: The stream the buffer reads, in order (a `SampleStream` without padding).
        size: The buffer's size (``initial_fill``, less than 2**32).
        key: The reader's random key.
    """

    def __init__(self, reads: SampleStream, size: int, key: int) -> None:
        if not 1 <= size < 2**32:
            raise ValueError(f"shuffle buffer size must be positive (below 2**32), got {size}")
        self.reads = reads
        self.size = size
        self.key = key
        #: draws made so far
        self.draws = 0
        #: the read number the last draw returned (None: none yet)
        self.last: int | None = None
        self._slots = list(range(size))  # the window [draws, draws + size), slot a % size

    def _choices(self, t0: int, count: int) -> list[int]:
        """The slot that each of draws ``t0 ..`` swaps into place: a uniform one among the
        buffered reads of the draw's epoch, ``[t, min(t + size, epoch end))``."""
        t = gil.span(t0, count)  # (np.arange gives the GIL up)
        end = np.empty_like(t)
        k = 0
        while k < count:  # the epochs' ends, an epoch at a time
            e = self.reads.pass_bounds(t0 + k)[1]
            stop = min(count, e - t0)
            end[k:stop] = e
            k = stop
        candidates = np.minimum(self.size, end - t).astype(np.uint64)
        bits = SampleRNG(combine(self.key, t)).bits(1)[:, 0]
        offset = ((bits >> np.uint64(32)) * candidates) >> np.uint64(32)
        out: list[int] = ((t + offset.astype(np.int64)) % self.size).tolist()
        return out

    def draw(self, count: int) -> np.ndarray:
        """The read numbers of the next ``count`` draws (int64)."""
        if count <= 0:
            return np.empty(0, dtype=np.int64)
        t0, size, slots = self.draws, self.size, self._slots
        out = []
        for t, j in enumerate(self._choices(t0, count), t0):
            i = t % size
            out.append(slots[j])
            slots[j] = slots[i]
            slots[i] = t + size  # the next read enters where the drawn one was
        self.draws = t0 + count
        self.last = out[-1]
        return np.array(out, dtype=np.int64)

    def seek(self, draws: int) -> None:
        """Put the buffer where it is after ``draws`` draws (replaying its epoch's draws)."""
        if draws < 0:
            raise ValueError(f"draws {draws} must not be negative")
        # from where the last draw's epoch began: the window is in order there
        start = self.reads.pass_bounds(draws - 1)[0] if draws else 0
        size = self.size
        self._slots = [0] * size
        for a in range(start, start + size):
            self._slots[a % size] = a
        self.draws, self.last = start, None
        self.draw(draws - start)

    def unread(self) -> np.ndarray:
        """The read numbers of the next draw's epoch that no draw has returned yet (sorted)."""
        t = self.draws
        end = self.reads.pass_bounds(t)[1]
        window_end = min(t + self.size, end)
        window = sorted(self._slots[a % self.size] for a in range(t, window_end))
        return np.concatenate(
            [np.array(window, dtype=np.int64), gil.span(window_end, max(0, end - window_end))]
        )

    def copy(self) -> ShuffleBuffer:
        """An independent buffer in the same state (the stream is shared)."""
        other = ShuffleBuffer(self.reads, self.size, self.key)
        other.draws, other.last, other._slots = self.draws, self.last, list(self._slots)
        return other
