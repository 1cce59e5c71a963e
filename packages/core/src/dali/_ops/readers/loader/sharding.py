"""Shards, padding and the endless sample stream shared by every reader.

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
shard or the batch size, and new values in every epoch.

A stream may start with a `Remainder`: the rest of an interrupted epoch, spread over a new set
of shards by an elastic restore (`dali._ops.readers.loader.resume`); after it the stream goes on with
the next epoch's visit.

Example:
    >>> stream = SampleStream(21, num_shards=2, shard_id=1, batch_size=8)
    >>> ids, passes = stream.take(0, 8)
    >>> ids.tolist(), passes.tolist()
    ([10, 11, 12, 13, 14, 15, 16, 17], [0, 0, 0, 0, 0, 0, 0, 0])
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from dali._exec import gil
from dali._exec.rng import combine

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


def epoch_permutation(
    n: int, seed: int, epoch: int, groups: np.ndarray | None = None
) -> np.ndarray:
    """The global permutation of ``range(n)`` for one epoch (identical on every shard).

    Args:
        n: The number of samples.
        seed: The ``shuffle_after_epoch_seed``.
        epoch: The epoch.
        groups: The first sample of every group (a file of records), ascending from 0: the
            groups are permuted whole and each keeps its samples in order. None: the samples
            are permuted.

    Example:
        >>> order = epoch_permutation(5, 7, 0, groups=np.array([0, 2]))
        >>> order.tolist() in ([0, 1, 2, 3, 4], [2, 3, 4, 0, 1])
        True
    """
    gen = np.random.Generator(np.random.Philox(key=int(combine(seed, epoch))))
    if groups is None:
        return gen.permutation(n).astype(np.int64)
    starts = np.asarray(groups, dtype=np.int64)
    sizes = np.diff(np.append(starts, n))
    chosen = gen.permutation(len(starts))
    # sample k of the permuted order: its group's first sample plus its offset in the group
    first_out = np.cumsum(sizes[chosen]) - sizes[chosen]
    out: np.ndarray = np.repeat(starts[chosen] - first_out, sizes[chosen]) + np.arange(n)
    return out


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

    Some positions are *padding*: the repeats that fill a visit up to ``visit_length`` with
    ``pad_last_batch``, and those that fill a `Remainder`'s piece. The others are the stream's
    *real* samples; `unpadded` is the stream of those alone, which a shuffle buffer reads.

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
            reads the shard's slice of ``epoch_permutation(n, seed, v, epoch_groups)``;
            implies sticking.
        epoch_groups: The groups ``shuffle_after_epoch`` permutes whole (`epoch_permutation`).
        rest: A `Remainder` read first (its ``length`` positions), for this shard; the
            regular stream then starts at the visit of epoch ``rest.epoch + 1``.
        pad_rest: Whether the remainder's piece is padded to ``rest.length`` (False: only its
            real samples, as `unpadded` reads it).
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
        epoch_groups: np.ndarray | None = None,
        rest: Remainder | None = None,
        pad_rest: bool = True,
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
        self.epoch_groups = epoch_groups
        self._bounds = np.array(
            [i * n // num_shards for i in range(num_shards + 1)], dtype=np.int64
        )
        #: samples per padded shard visit: every shard is padded to whole batches of the
        #: largest shard, ceil(ceil(n/S)/batch)·batch
        largest = -(-n // num_shards)
        self.visit_length = -(-largest // batch_size) * batch_size
        self._perms: dict[int, np.ndarray] = {}
        self.rest = rest
        self.pad_rest = pad_rest
        #: the remainder's positions, and how many of them are real samples
        self._rest_real = 0 if rest is None else rest.part_sizes()[shard_id]
        self._rest_length = 0
        if rest is not None:
            self._rest_length = rest.length if pad_rest else self._rest_real
        #: where the regular stream starts, after the remainder
        self._regular_start = 0 if rest is None else self.visit_start(rest.epoch + 1)

    def unpadded(self) -> SampleStream:
        """The stream of this one's real samples alone, in order (no padding).

        Example:
            >>> stream = SampleStream(5, num_shards=2, batch_size=2, pad_last_batch=True)
            >>> stream.take(0, 8)[0].tolist(), stream.unpadded().take(0, 5)[0].tolist()
            ([0, 1, 1, 1, 2, 3, 4, 4], [0, 1, 2, 3, 4])
        """
        if not self.pad_last_batch and (self.rest is None or not self.pad_rest):
            return self
        return SampleStream(
            self.n,
            num_shards=self.num_shards,
            shard_id=self.shard_id,
            batch_size=self.batch_size,
            stick_to_shard=self.stick_to_shard and self.epoch_shuffle_seed is None,
            order=self.order,
            epoch_shuffle_seed=self.epoch_shuffle_seed,
            epoch_groups=self.epoch_groups,
            rest=self.rest,
            pad_rest=False,
        )

    # -- visits -----------------------------------------------------------------------------
    def _shard_of_visit(self, v: Any) -> Any:
        return self.shard_id if self.stick_to_shard else (self.shard_id + v) % self.num_shards

    def visit_size(self, v: int) -> int:
        """The real (unpadded) samples of visit ``v``: the size of the shard it reads."""
        shard = int(self._shard_of_visit(v))
        return int(self._bounds[shard + 1] - self._bounds[shard])

    def visit_start(self, v: int) -> int:
        """The regular stream's position where visit (epoch) ``v`` starts.

        Example:
            >>> stream = SampleStream(21, num_shards=2, shard_id=1)
            >>> [stream.visit_start(v) for v in range(4)]
            [0, 11, 21, 32]
        """
        if self.pad_last_batch:
            return v * self.visit_length
        return self._real_visit_start(v)

    def _real_visit_start(self, v: int) -> int:
        """The real samples of the visits before visit ``v`` (the regular stream's)."""
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

    def pass_bounds(self, position: int) -> tuple[int, int]:
        """The ``[begin, end)`` positions of the pass (epoch) that ``position`` is in."""
        if position < self._rest_length:
            return 0, self._rest_length
        regular = position - self._rest_length + self._regular_start
        v = self.visit_of(regular)
        shift = self._rest_length - self._regular_start
        return self.visit_start(v) + shift, self.visit_start(v + 1) + shift

    # -- positions --------------------------------------------------------------------------
    def take(self, position: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The indices and passes of stream positions ``[position, position + count)``.

        Returns:
            ``(ids, passes)``, two int64 arrays of length ``count``.
        """
        return self.at(gil.span(position, count))  # (np.arange gives the GIL up)

    def at(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The indices and passes of any stream positions (an int64 array)."""
        slots, passes = self.slots_at(positions)
        if self.epoch_shuffle_seed is not None:
            return self._epoch_ids(slots, passes), passes
        if self.order is not None:
            return self.order[slots], passes
        return slots, passes

    def slots_at(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The slots (indices before `order` or the epoch's permutation) and passes."""
        p = np.asarray(positions, dtype=np.int64)
        if self.rest is None:
            return self._regular(p)
        early = p < self._rest_length
        late_slots, late_passes = self._regular(p[~early] - self._rest_length + self._regular_start)
        slots = np.empty_like(p)
        passes = np.empty_like(p)
        slots[early] = self.rest.slots(self.shard_id, p[early])
        passes[early] = self.rest.epoch
        slots[~early], passes[~early] = late_slots, late_passes
        return slots, passes

    def is_padding(self, positions: np.ndarray) -> np.ndarray:
        """Which of ``positions`` repeat a sample to pad a visit or the remainder (bool)."""
        p = np.asarray(positions, dtype=np.int64)
        out = np.zeros(p.shape, dtype=bool)
        early = p < self._rest_length
        out[early] = p[early] >= self._rest_real
        if self.pad_last_batch:
            visit, q = np.divmod(
                p[~early] - self._rest_length + self._regular_start, self.visit_length
            )
            shard = self._shard_of_visit(visit)
            out[~early] = q >= self._bounds[shard + 1] - self._bounds[shard]
        return out

    def real_before(self, position: int) -> int:
        """How many of the positions before ``position`` are real samples (not padding).

        Example:
            >>> stream = SampleStream(5, num_shards=2, batch_size=2, pad_last_batch=True)
            >>> [stream.real_before(p) for p in range(7)]
            [0, 1, 2, 2, 2, 3, 4]
        """
        if position <= self._rest_length:
            return min(position, self._rest_real)
        regular = position - self._rest_length + self._regular_start
        return (
            self._rest_real + self._regular_real(regular) - self._regular_real(self._regular_start)
        )

    def _regular_real(self, p: int) -> int:
        """How many of the regular stream's positions before ``p`` are real samples."""
        if not self.pad_last_batch:
            return p
        v, q = divmod(p, self.visit_length)
        return self._real_visit_start(v) + min(q, self.visit_size(v))

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
        if self.num_shards == 1:
            return slots, cycles
        # each slot's shard by bisection in Python: np.searchsorted gives the GIL up, whatever
        # the size (`dali._exec.gil`), and this runs for every batch
        bounds = self._bounds.tolist()
        shard = np.array([bisect.bisect_right(bounds, v) - 1 for v in slots.tolist()], np.int64)
        return slots, cycles * self.num_shards + (shard - self.shard_id) % self.num_shards

    def _epoch_ids(self, slots: np.ndarray, passes: np.ndarray) -> np.ndarray:
        ids = np.empty_like(slots)
        for v in sorted(set(passes.tolist())):  # (np.unique sorts without the GIL)
            perm = self._perms.get(v)
            if perm is None:
                # a batch spans at most two passes: keep the current and the next permutation
                for old in [k for k in self._perms if k < v - 1]:
                    del self._perms[old]
                assert self.epoch_shuffle_seed is not None
                perm = epoch_permutation(self.n, self.epoch_shuffle_seed, v, self.epoch_groups)
                self._perms[v] = perm
            mask = passes == v
            ids[mask] = perm[slots[mask]]
        return ids


class ReaderCursor:
    """A reader's position in its `SampleStream`, drawn through a shuffle buffer or not.

    Without shuffling, batch ``b`` is simply the stream's positions ``[b·B, (b+1)·B)``. With
    ``random_shuffle``'s buffer (`dali._ops.readers.loader.shuffle.ShuffleBuffer`), every real
    position of the stream is drawn from the buffer, which reads the stream's real samples in
    order; a padding position repeats the sample drawn last, as DALI's loaders repeat it.

    The state is the position alone (`get_state`): the buffer follows from it.

    Args:
        stream: The stream to read.
        shuffle_buffer: The buffer size for ``random_shuffle`` (``initial_fill``), or None.
        key: The reader's random key (needed with a shuffle buffer).

    Example:
        >>> cursor = ReaderCursor(SampleStream(5, batch_size=3))
        >>> [cursor.next_batch(3)[0].tolist() for _ in range(2)]
        [[0, 1, 2], [3, 4, 0]]
        >>> cursor.get_state()
        {'position': 6}
    """

    def __init__(
        self, stream: SampleStream, shuffle_buffer: int | None = None, key: int | None = None
    ) -> None:
        from dali._ops.readers.loader.shuffle import ShuffleBuffer

        self.stream = stream
        self.shuffle_buffer = shuffle_buffer
        self.position = 0
        self._buffer: ShuffleBuffer | None = None
        if shuffle_buffer is not None:
            if key is None:
                raise ValueError("a shuffling reader needs a random key")
            self._buffer = ShuffleBuffer(stream.unpadded(), shuffle_buffer, key)

    def next_batch(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The ids and passes of the next ``count`` samples; advances the cursor."""
        buffer = self._buffer
        if buffer is None:
            out = self.stream.take(self.position, count)
            self.position += count
            return out
        positions = gil.span(self.position, count)
        self.position += count
        padding = self.stream.is_padding(positions)
        before = -1 if buffer.last is None else buffer.last
        drawn = buffer.draw(count - int(padding.sum()))
        if not padding.any():
            return buffer.reads.at(drawn)
        # a padding position repeats the last sample drawn before it (-1: none yet)
        reads = np.concatenate([[before], drawn])[np.cumsum(~padding)]
        ids, passes = buffer.reads.at(np.maximum(reads, 0))
        none = reads < 0  # nothing drawn yet (an empty remainder piece): the stream's own
        if none.any():
            ids[none], passes[none] = self.stream.at(positions[none])
        return ids, passes

    def copy(self) -> ReaderCursor:
        """An independent cursor at the same place (the stream is shared, not copied)."""
        other = ReaderCursor(self.stream)
        other.shuffle_buffer, other.position = self.shuffle_buffer, self.position
        other._buffer = None if self._buffer is None else self._buffer.copy()
        return other

    def get_state(self) -> dict[str, int]:
        """The cursor's position in its stream."""
        return {"position": self.position}

    def set_state(self, position: int) -> None:
        """Move to what `get_state` returned (a shuffle buffer is rebuilt: `ShuffleBuffer.seek`).

        Raises:
            ValueError: A negative position.
        """
        if position < 0:
            raise ValueError(f"position {position} must not be negative")
        self.position = int(position)
        if self._buffer is not None:
            self._buffer.seek(self.stream.real_before(self.position))
