"""Shards, padding and the endless sample stream shared by every reader (DALI §4.1).

A reader over ``n`` samples split into ``num_shards`` shards never ends an epoch: it produces an
endless *stream* of sample indices, and each batch is the next ``batch_size`` of them. Shard
``i`` covers the index range ``[floor(i·n/S), floor((i+1)·n/S))``. Four stream shapes exist:

* default: start at the shard's first index and wrap around the whole dataset (``[0..n)``);
* ``stick_to_shard``: loop over the own shard only;
* ``pad_last_batch``: every shard visit is padded by repeating its last sample until it holds
  ``ceil(ceil(n/S)/batch)·batch`` samples, then the next shard (``shard_id+1 mod S``) follows,
  or the own shard again with ``stick_to_shard``;
* ``shuffle_after_epoch``: like ``stick_to_shard``, but pass ``v`` over the shard reads the
  shard's slice of a fresh global permutation of the dataset (the same on every shard).

Everything here is arithmetic on the stream *position* (how many samples the stream has
produced), so a reader's state is a few integers, and a batch is computed with numpy.

Besides the index, the stream gives each sample its *pass*: the epoch in which the sample is
read, counted as the shard *visits* before it (a visit is one read of one shard; in epoch ``e``
every pipeline makes its ``e``-th visit, the padding repeats of a sample count with the sample
they repeat). It is the sample's epoch in `dali._exec.workspace.BatchMeta`, so that random
operators give sample ``k`` in epoch ``e`` the same values whatever the number of shards, the
shard or the batch size (DESIGN §5.1), and new values in every epoch.

A stream may start with a `Remainder`: the rest of an interrupted epoch, spread over a new set
of shards by an elastic restore (`dali._ops.readers._resume`); after it the stream goes on with
the next epoch's visit.

Example:
    >>> stream = SampleStream(21, num_shards=2, shard_id=1, batch_size=8)
    >>> ids, passes = stream.take(0, 8)
    >>> ids.tolist(), passes.tolist()
    ([10, 11, 12, 13, 14, 15, 16, 17], [0, 0, 0, 0, 0, 0, 0, 0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._exec.rng import SampleRNG, combine

__all__ = [
    "DEFAULT_SHUFFLE_SEED",
    "ReaderCursor",
    "Remainder",
    "SampleStream",
    "check_sharding",
    "epoch_permutation",
    "padded_epoch_size",
    "reader_meta",
    "shard_range",
]

#: DALI's fixed data-loader seed (``kDaliDataloaderSeed``): the one-off shuffle of
#: ``random_shuffle`` and the default ``shuffle_after_epoch_seed`` (the same on every shard).
DEFAULT_SHUFFLE_SEED = 524287


def shard_range(shard_id: int, num_shards: int, n: int) -> tuple[int, int]:
    """The ``[begin, end)`` index range of one shard.

    Example:
        >>> [shard_range(i, 4, 21) for i in range(4)]
        [(0, 5), (5, 10), (10, 15), (15, 21)]
    """
    return shard_id * n // num_shards, (shard_id + 1) * n // num_shards


def padded_epoch_size(n: int, num_shards: int, pad_last_batch: bool) -> int:
    """``epoch_size_padded`` of `reader_meta`: ``S·ceil(n/S)`` with padding, else ``n``."""
    if not pad_last_batch:
        return n
    return num_shards * -(-n // num_shards)


def reader_meta(
    n: int, *, num_shards: int, shard_id: int, pad_last_batch: bool, stick_to_shard: bool
) -> dict[str, int]:
    """The dict `Pipeline.reader_meta` returns for one reader; the flags are ints (DALI).

    Example:
        >>> reader_meta(21, num_shards=2, shard_id=0, pad_last_batch=True, stick_to_shard=False)
        {'epoch_size': 21, 'epoch_size_padded': 22, 'number_of_shards': 2, 'shard_id': 0, \
'pad_last_batch': 1, 'stick_to_shard': 0}
    """
    return {
        "epoch_size": n,
        "epoch_size_padded": padded_epoch_size(n, num_shards, pad_last_batch),
        "number_of_shards": num_shards,
        "shard_id": shard_id,
        "pad_last_batch": int(bool(pad_last_batch)),
        "stick_to_shard": int(bool(stick_to_shard)),
    }


def check_sharding(op: Any, shard_id: int, num_shards: int, n: int | None = None) -> None:
    """Raise ``op.arg_error`` for an impossible shard configuration.

    Args:
        op: The reader (a `dali._ops.base.Operator`), for messages that name it.
        shard_id: The reader's shard.
        num_shards: The number of shards.
        n: The number of samples, once known (every shard needs at least one).
    """
    if num_shards < 1:
        raise op.arg_error("num_shards", f"must be at least 1, got {num_shards}")
    if not 0 <= shard_id < num_shards:
        raise op.arg_error(
            "shard_id",
            f"must be in [0, num_shards) = [0, {num_shards}), got shard_id={shard_id}",
        )
    if n is not None and n < num_shards:
        raise op.arg_error(
            "num_shards",
            f"the dataset has {n} samples, fewer than num_shards={num_shards}: "
            f"every shard needs at least one sample",
        )


def epoch_permutation(n: int, seed: int, epoch: int) -> np.ndarray:
    """The global permutation of ``range(n)`` for one epoch (identical on every shard)."""
    gen = np.random.Generator(np.random.Philox(key=int(combine(seed, epoch))))
    return gen.permutation(n).astype(np.int64)


class Remainder:
    """The rest of an interrupted epoch, spread over ``parts`` shards (an elastic restore).

    The samples are ``ranges`` of *slots* (positions in the epoch's order: the dataset index,
    or the index into the epoch's permutation with ``shuffle_after_epoch``), in order. Shard
    ``j`` reads the ``j``-th of ``parts`` near-equal contiguous pieces of them, padded by
    repeating its last sample to ``length`` samples (whole batches of the largest piece), so
    that every shard reads the same number of batches.

    Args:
        epoch: The interrupted epoch (the samples' pass).
        ranges: ``[begin, end)`` slot ranges, in order; together not empty.
        parts: The number of shards the rest is spread over.
        batch_size: The new batch size.

    Example:
        >>> rest = Remainder(3, [(5, 8), (12, 14)], parts=2, batch_size=2)
        >>> rest.part_sizes(), rest.length
        ([2, 3], 4)
        >>> rest.slots(1, np.arange(4)).tolist()
        [7, 12, 13, 13]
    """

    def __init__(self, epoch: int, ranges: Any, *, parts: int, batch_size: int) -> None:
        self.epoch = int(epoch)
        self.ranges = [(int(a), int(b)) for a, b in ranges if int(b) > int(a)]
        if not self.ranges:
            raise ValueError("a remainder needs at least one sample")
        self.parts = int(parts)
        self.batch_size = int(batch_size)
        lengths = np.array([b - a for a, b in self.ranges], dtype=np.int64)
        self._starts = np.concatenate([[0], np.cumsum(lengths)])
        self._begins = np.array([a for a, _ in self.ranges], dtype=np.int64)
        self.total = int(self._starts[-1])
        largest = max(self.part_sizes())
        #: samples each shard reads from the remainder, padding included
        self.length = -(-largest // self.batch_size) * self.batch_size

    def part_range(self, j: int) -> tuple[int, int]:
        """The ``[begin, end)`` indices into the remainder's samples of shard ``j``'s piece."""
        return shard_range(j, self.parts, self.total)

    def part_sizes(self) -> list[int]:
        """The real (unpadded) samples of every shard's piece, by shard."""
        return [b - a for a, b in (self.part_range(j) for j in range(self.parts))]

    def slots(self, j: int, q: np.ndarray) -> np.ndarray:
        """The slots of positions ``q`` (``0 <= q < length``) of shard ``j``'s padded piece.

        An empty piece (fewer samples than shards) repeats the sample before it.
        """
        begin, end = self.part_range(j)
        r = (
            np.minimum(begin + q, max(end - 1, 0))
            if end > begin
            else np.full_like(q, max(begin - 1, 0))
        )
        k = np.searchsorted(self._starts, r, side="right") - 1
        return self._begins[k] + (r - self._starts[k])

    def slot_ranges(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The slot ranges of the remainder's samples ``[lo, hi)`` (indices, not padded)."""
        out = []
        for (a, b), start in zip(self.ranges, self._starts.tolist()):
            first, last = max(lo, start), min(hi, start + b - a)
            if first < last:
                out.append((a + first - start, a + last - start))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "ranges": [list(r) for r in self.ranges]}


class SampleStream:
    """The endless stream of one reader's sample indices, as a function of the position.

    Args:
        n: Number of samples in the dataset.
        num_shards: Number of shards.
        shard_id: This reader's shard.
        batch_size: The pipeline's batch size (padding fills whole batches).
        pad_last_batch: Pad every shard visit with its last sample (see the module docs).
        stick_to_shard: Loop over the own shard only.
        order: A fixed permutation applied to the stream's indices (``random_shuffle``'s
            one-off shuffle); the shards are contiguous ranges of the permuted list.
        epoch_shuffle_seed: Not None for ``shuffle_after_epoch``: pass ``v`` over the shard
            reads the shard's slice of ``epoch_permutation(n, seed, v)``; implies sticking.
        rest: A `Remainder` read first (its ``length`` positions), for this shard; the
            regular stream then starts at the visit of epoch ``rest.epoch + 1``.
    """

    def __init__(
        self,
        n: int,
        *,
        num_shards: int = 1,
        shard_id: int = 0,
        batch_size: int = 1,
        pad_last_batch: bool = False,
        stick_to_shard: bool = False,
        order: np.ndarray | None = None,
        epoch_shuffle_seed: int | None = None,
        rest: Remainder | None = None,
    ) -> None:
        if n < num_shards or not 0 <= shard_id < num_shards or batch_size < 1:
            raise ValueError(f"invalid stream: n={n}, shard {shard_id} of {num_shards}")
        self.n = n
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.batch_size = batch_size
        self.pad_last_batch = pad_last_batch
        self.stick_to_shard = stick_to_shard or epoch_shuffle_seed is not None
        self.order = None if order is None else np.asarray(order, dtype=np.int64)
        self.epoch_shuffle_seed = epoch_shuffle_seed
        self._bounds = np.array(
            [i * n // num_shards for i in range(num_shards + 1)], dtype=np.int64
        )
        #: samples per padded shard visit: every shard is padded to whole batches of the
        #: largest shard, ceil(ceil(n/S)/batch)·batch
        largest = -(-n // num_shards)
        self.visit_length = -(-largest // batch_size) * batch_size
        self._perms: dict[int, np.ndarray] = {}
        self.rest = rest
        #: where the regular stream starts, after the remainder
        self._regular_start = 0 if rest is None else self.visit_start(rest.epoch + 1)

    def with_rest(self, rest: Remainder | None) -> SampleStream:
        """The same stream (same shards and batch), starting with ``rest``."""
        return SampleStream(
            self.n,
            num_shards=self.num_shards,
            shard_id=self.shard_id,
            batch_size=self.batch_size,
            pad_last_batch=self.pad_last_batch,
            stick_to_shard=self.stick_to_shard and self.epoch_shuffle_seed is None,
            order=self.order,
            epoch_shuffle_seed=self.epoch_shuffle_seed,
            rest=rest,
        )

    # -- visits -----------------------------------------------------------------------------
    def _shard_of_visit(self, v: Any) -> Any:
        return self.shard_id if self.stick_to_shard else (self.shard_id + v) % self.num_shards

    def visit_size(self, v: int) -> int:
        """The real (unpadded) samples of visit ``v``: the size of the shard it reads."""
        shard = int(self._shard_of_visit(v))
        return int(self._bounds[shard + 1] - self._bounds[shard])

    def _visit_length(self, v: int) -> int:
        return self.visit_length if self.pad_last_batch else self.visit_size(v)

    def visit_start(self, v: int) -> int:
        """The regular stream's position where visit (epoch) ``v`` starts.

        Example:
            >>> stream = SampleStream(21, num_shards=2, shard_id=1)
            >>> [stream.visit_start(v) for v in range(4)]
            [0, 11, 21, 32]
        """
        if self.pad_last_batch:
            return v * self.visit_length
        if self.stick_to_shard:
            return v * self.visit_size(0)
        cycles, u = divmod(v, self.num_shards)
        first = self._bounds[self.shard_id]
        end = self.shard_id + u
        offset = (
            self._bounds[end] - first
            if end <= self.num_shards
            else self.n - first + self._bounds[end - self.num_shards]
        )
        return int(cycles * self.n + offset)

    def visit_of(self, position: int) -> int:
        """The visit (epoch) of the regular stream's ``position``."""
        return int(self._regular(np.array([position], dtype=np.int64))[1][0])

    # -- positions --------------------------------------------------------------------------
    def take(self, position: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The indices and passes of stream positions ``[position, position + count)``.

        Returns:
            ``(ids, passes)``, two int64 arrays of length ``count``.
        """
        return self.at(np.arange(position, position + count, dtype=np.int64))

    def at(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The indices and passes of any stream positions (an int64 array)."""
        p = np.asarray(positions, dtype=np.int64)
        rest = self.rest
        if rest is None:
            slots, passes = self._regular(p)
        else:
            early = p < rest.length
            late_slots, late_passes = self._regular(p[~early] - rest.length + self._regular_start)
            slots = np.empty_like(p)
            passes = np.empty_like(p)
            slots[early] = rest.slots(self.shard_id, p[early])
            passes[early] = rest.epoch
            slots[~early], passes[~early] = late_slots, late_passes
        if self.epoch_shuffle_seed is not None:
            return self._epoch_ids(slots, passes), passes
        if self.order is not None:
            return self.order[slots], passes
        return slots, passes

    def _regular(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The slots and passes (visits) of positions of the regular stream."""
        begin, end = shard_range(self.shard_id, self.num_shards, self.n)
        if self.pad_last_batch or self.epoch_shuffle_seed is not None:
            length = self.visit_length if self.pad_last_batch else end - begin
            visit, q = np.divmod(p, length)
            shard = self._shard_of_visit(visit)
            first = self._bounds[shard]
            size = self._bounds[shard + 1] - first
            return first + np.minimum(q, size - 1), visit
        if self.stick_to_shard:
            visit, q = np.divmod(p, end - begin)
            return begin + q, visit
        cycles, q = np.divmod(p, self.n)
        slots = (begin + q) % self.n
        shard = np.searchsorted(self._bounds, slots, side="right") - 1
        return slots, cycles * self.num_shards + (shard - self.shard_id) % self.num_shards

    def _epoch_ids(self, slots: np.ndarray, passes: np.ndarray) -> np.ndarray:
        ids = np.empty_like(slots)
        for v in np.unique(passes).tolist():
            perm = self._perms.get(v)
            if perm is None:
                # a batch spans at most two passes: keep the current and the next permutation
                for old in [k for k in self._perms if k < v - 1]:
                    del self._perms[old]
                assert self.epoch_shuffle_seed is not None
                perm = epoch_permutation(self.n, self.epoch_shuffle_seed, v)
                self._perms[v] = perm
            mask = passes == v
            ids[mask] = perm[slots[mask]]
        return ids


class ReaderCursor:
    """A reader's position in its `SampleStream`, plus ``random_shuffle``'s shuffle buffer.

    Without shuffling, batch ``b`` is simply the stream's positions ``[b·B, (b+1)·B)``. With a
    shuffle buffer of ``initial_fill`` samples (as DALI's loaders do), the buffer is first
    filled from the stream; then each sample is drawn from a random slot of the buffer, and
    the slot is refilled with the next sample of the stream. The random slot of the ``t``-th
    draw is a pure function of the reader's key and ``t``, so the buffer after ``t`` draws is
    too: each slot holds the sample put there by the last draw that picked it. The state is
    therefore two integers (`get_state`), and a restored cursor rebuilds its buffer from them.

    Args:
        stream: The stream to read.
        shuffle_buffer: The buffer size for ``random_shuffle`` (``initial_fill``), or None.

    Example:
        >>> cursor = ReaderCursor(SampleStream(5, batch_size=3))
        >>> [cursor.next_batch(3)[0].tolist() for _ in range(2)]
        [[0, 1, 2], [3, 4, 0]]
        >>> cursor.get_state()
        {'position': 6, 'draws': 0}
    """

    #: draws examined at a time when a buffer is rebuilt, newest first
    _REBUILD_CHUNK = 8192

    def __init__(self, stream: SampleStream, shuffle_buffer: int | None = None) -> None:
        if shuffle_buffer is not None and shuffle_buffer < 1:
            raise ValueError(f"shuffle buffer size must be positive, got {shuffle_buffer}")
        self.stream = stream
        self.shuffle_buffer = shuffle_buffer
        self.position = 0
        self.draws = 0
        self._buf_ids: list[int] | None = None
        self._buf_passes: list[int] | None = None

    def _slots(self, key: int, draws: np.ndarray) -> np.ndarray:
        """The buffer slot of each draw in ``draws``."""
        assert self.shuffle_buffer is not None
        u = SampleRNG(combine(key, draws)).uniform(1)[:, 0]
        out: np.ndarray = (u * self.shuffle_buffer).astype(np.int64)
        return out

    def _fill(self, key: int) -> None:
        """Fill the buffer: from the stream, or as it was after ``draws`` draws."""
        fill = self.shuffle_buffer
        assert fill is not None
        first = self.position - fill - self.draws  # where the buffer's first fill started
        if self.draws == 0:
            first = self.position
            self.position += fill
        # the draw that last refilled each slot (-1: none, it holds its first sample)
        owner = np.full(fill, -1, dtype=np.int64)
        hi = self.draws
        while hi > 0 and (owner < 0).any():
            lo = max(0, hi - self._REBUILD_CHUNK)
            draws = np.arange(hi - 1, lo - 1, -1, dtype=np.int64)  # newest first
            slots, newest = np.unique(self._slots(key, draws), return_index=True)
            unset = owner[slots] < 0
            owner[slots[unset]] = draws[newest[unset]]
            hi = lo
        positions = np.where(owner >= 0, first + fill + owner, first + np.arange(fill))
        ids, passes = self.stream.at(positions)
        self._buf_ids, self._buf_passes = ids.tolist(), passes.tolist()

    def next_batch(self, count: int, key: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ids and passes of the next ``count`` samples; advances the cursor.

        Args:
            count: The batch size.
            key: The reader's random key (needed with a shuffle buffer).
        """
        if self.shuffle_buffer is None:
            out = self.stream.take(self.position, count)
            self.position += count
            return out
        if key is None:
            raise ValueError("a shuffling reader needs a random key")
        if count == 0:  # (not even the buffer's fill: the state must still say "not filled")
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        if self._buf_ids is None:
            self._fill(key)
        buf_ids, buf_passes = self._buf_ids, self._buf_passes
        assert buf_ids is not None and buf_passes is not None
        refill_ids, refill_passes = self.stream.take(self.position, count)
        self.position += count
        slots = self._slots(key, np.arange(self.draws, self.draws + count, dtype=np.int64))
        self.draws += count
        # (Python lists: an item assignment into a numpy array costs ten times a list's)
        out_ids: list[int] = []
        out_passes: list[int] = []
        for j, new_id, new_pass in zip(slots.tolist(), refill_ids.tolist(), refill_passes.tolist()):
            out_ids.append(buf_ids[j])
            out_passes.append(buf_passes[j])
            buf_ids[j] = new_id
            buf_passes[j] = new_pass
        return np.array(out_ids, dtype=np.int64), np.array(out_passes, dtype=np.int64)

    def copy(self) -> ReaderCursor:
        """An independent cursor at the same place (the stream is shared, not copied)."""
        other = ReaderCursor(self.stream, self.shuffle_buffer)
        other.position, other.draws = self.position, self.draws
        if self._buf_ids is not None:
            other._buf_ids = list(self._buf_ids)
            other._buf_passes = list(self._buf_passes or ())
        return other

    def get_state(self) -> dict[str, int]:
        """The cursor as two integers: the stream position and the buffer's draws."""
        return {"position": self.position, "draws": self.draws}

    def set_state(self, position: int, draws: int = 0) -> None:
        """Move to what `get_state` returned; a shuffle buffer is rebuilt on the next batch.

        Raises:
            ValueError: Negative values, or draws without a shuffle buffer.
        """
        if position < 0 or draws < 0:
            raise ValueError(f"position {position} and draws {draws} must not be negative")
        if draws and self.shuffle_buffer is None:
            raise ValueError("the saved reader shuffled (random_shuffle), this one does not")
        if self.shuffle_buffer is not None and draws and position != draws + self.shuffle_buffer:
            raise ValueError(
                f"position {position} does not follow {draws} draws from a buffer of "
                f"{self.shuffle_buffer}"
            )
        self.position, self.draws = int(position), int(draws)
        self._buf_ids = self._buf_passes = None
