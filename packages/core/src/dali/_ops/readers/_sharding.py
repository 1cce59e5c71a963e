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

Besides the index, the stream gives each sample its *pass*: how many times the sample was
produced before, where the padding repeats of a sample count with the sample they repeat.
It is the sample's epoch in `dali._exec.workspace.BatchMeta`, so that random operators give
the ``m``-th visit of sample ``k`` the same values whatever the number of shards, the shard
or the batch size (DESIGN §5.1).

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

    def take(self, position: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The indices and passes of stream positions ``[position, position + count)``.

        Returns:
            ``(ids, passes)``, two int64 arrays of length ``count``.
        """
        p = np.arange(position, position + count, dtype=np.int64)
        begin, end = shard_range(self.shard_id, self.num_shards, self.n)
        if self.pad_last_batch or self.epoch_shuffle_seed is not None:
            length = self.visit_length if self.pad_last_batch else end - begin
            visit, q = np.divmod(p, length)
            if self.stick_to_shard:
                shard = np.full_like(p, self.shard_id)
                passes = visit
            else:
                shard = (self.shard_id + visit) % self.num_shards
                passes = visit // self.num_shards
            first = self._bounds[shard]
            size = self._bounds[shard + 1] - first
            slots = first + np.minimum(q, size - 1)
        elif self.stick_to_shard:
            passes, q = np.divmod(p, end - begin)
            slots = begin + q
        else:
            passes, q = np.divmod(p, self.n)
            slots = (begin + q) % self.n
        if self.epoch_shuffle_seed is not None:
            return self._epoch_ids(slots, passes), passes
        if self.order is not None:
            return self.order[slots], passes
        return slots, passes

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
    draw is a pure function of the reader's key and ``t``, so the state is the stream
    position, the draw count and the buffer: plain ints, JSON-serialisable.

    Args:
        stream: The stream to read.
        shuffle_buffer: The buffer size for ``random_shuffle`` (``initial_fill``), or None.

    Example:
        >>> cursor = ReaderCursor(SampleStream(5, batch_size=3))
        >>> [cursor.next_batch(3)[0].tolist() for _ in range(2)]
        [[0, 1, 2], [3, 4, 0]]
        >>> cursor.get_state()["position"]
        6
    """

    def __init__(self, stream: SampleStream, shuffle_buffer: int | None = None) -> None:
        if shuffle_buffer is not None and shuffle_buffer < 1:
            raise ValueError(f"shuffle buffer size must be positive, got {shuffle_buffer}")
        self.stream = stream
        self.shuffle_buffer = shuffle_buffer
        self.position = 0
        self.draws = 0
        self._buf_ids: list[int] | None = None
        self._buf_passes: list[int] | None = None

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
        if self._buf_ids is None:
            ids, passes = self.stream.take(self.position, self.shuffle_buffer)
            self.position += self.shuffle_buffer
            self._buf_ids, self._buf_passes = ids.tolist(), passes.tolist()
        buf_ids, buf_passes = self._buf_ids, self._buf_passes
        assert buf_passes is not None
        refill_ids, refill_passes = self.stream.take(self.position, count)
        self.position += count
        counters = np.arange(self.draws, self.draws + count, dtype=np.int64)
        self.draws += count
        slots = (SampleRNG(combine(key, counters)).uniform(1)[:, 0] * len(buf_ids)).astype(np.int64)
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

    def get_state(self) -> dict[str, Any]:
        """The cursor as a JSON-serialisable dict."""
        state: dict[str, Any] = {
            "n": self.stream.n,
            "position": self.position,
            "draws": self.draws,
        }
        if self._buf_ids is not None:
            state["buffer_ids"] = list(self._buf_ids)
            state["buffer_passes"] = list(self._buf_passes or ())
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore what `get_state` returned (for the same dataset)."""
        if int(state["n"]) != self.stream.n:
            raise ValueError(
                f"the saved reader state is for {state['n']} samples, this reader has "
                f"{self.stream.n}"
            )
        self.position = int(state["position"])
        self.draws = int(state.get("draws", 0))
        if "buffer_ids" in state:
            ids = [int(v) for v in state["buffer_ids"]]
            passes = [int(v) for v in state["buffer_passes"]]
            if (
                self.shuffle_buffer is None
                or len(ids) != self.shuffle_buffer
                or len(passes) != len(ids)
            ):
                raise ValueError("the saved reader state does not match this reader's shuffling")
            self._buf_ids, self._buf_passes = ids, passes
        else:
            self._buf_ids = self._buf_passes = None
