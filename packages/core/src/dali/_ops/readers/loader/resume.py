"""Where a reader resumes: its checkpoint state, and the elastic restore.

A reader's state is its *layout* (shards, its shard, batch size, padding, sticking), its
position in its `SampleStream` and, in the epoch after an elastic restore, the `Remainder` it
reads first. The shuffle orders are not stored: they follow from the seeds and the epoch.

Restoring with the same layout (any shard of it: the shards of one job move in lockstep, so
they all are at the same position) continues exactly. Restoring with another layout (other
shards, another batch size, padding or sticking) is *elastic*: the rest of the interrupted
epoch — the samples of that epoch that no old shard has read yet, in the old shards' order —
is spread over the new shards in near-equal contiguous pieces, each padded to whole batches
with its last sample; then every new shard starts the next epoch of its own layout. Per epoch,
every sample is read once (what the iterators' last-batch policy then does with padding and
partial batches is theirs). With ``random_shuffle``, the rest of the epoch is what the old
shards' shuffle buffers had not returned yet (`_shuffle.ShuffleBuffer.unread`): a buffer
never mixes epochs, so it is known from the saved position alone.

Example:
    >>> old = Layout(n=10, num_shards=2, batch_size=2)
    >>> state = {**old.to_json(0), "position": 3}  # both old shards read 3 of their 5
    >>> new = Layout(n=10, num_shards=3, batch_size=2)
    >>> stream, position = resume_stream(state, new, shard_id=0, shuffle=None)
    >>> rest = stream.rest
    >>> rest.ranges, rest.part_sizes(), position
    ([(3, 5), (8, 10)], [1, 1, 2], 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._ops.readers.loader.sharding import Remainder, SampleStream
from dali._ops.readers.loader.shuffle import ShuffleBuffer

__all__ = ["Layout", "ResumeError", "resume_info", "resume_stream"]


class ResumeError(ValueError):
    """A saved reader state that cannot be restored into this reader (the message says why)."""


@dataclass(frozen=True)
class Layout:
    """How a reader splits its dataset into a stream (what a checkpoint records of it)."""

    n: int
    num_shards: int = 1
    batch_size: int = 1
    pad_last_batch: bool = False
    stick_to_shard: bool = False

    def to_json(self, shard_id: int) -> dict[str, Any]:
        """The layout's fields of the reader state (flags only when set, to stay small)."""
        out: dict[str, Any] = {
            "n": self.n,
            "shards": self.num_shards,
            "shard": shard_id,
            "batch": self.batch_size,
        }
        if self.pad_last_batch:
            out["pad"] = True
        if self.stick_to_shard:
            out["stick"] = True
        return out

    @staticmethod
    def from_json(state: dict[str, Any]) -> Layout:
        return Layout(
            n=int(state["n"]),
            num_shards=int(state["shards"]),
            batch_size=int(state["batch"]),
            pad_last_batch=bool(state.get("pad", False)),
            stick_to_shard=bool(state.get("stick", False)),
        )

    def stream(
        self, shard_id: int, shuffle: dict[str, Any] | None, rest: Remainder | None = None
    ) -> SampleStream:
        shuffle = shuffle or {}
        return SampleStream(
            self.n,
            num_shards=self.num_shards,
            shard_id=shard_id,
            batch_size=self.batch_size,
            pad_last_batch=self.pad_last_batch,
            stick_to_shard=self.stick_to_shard,
            order=shuffle.get("order"),
            epoch_shuffle_seed=shuffle.get("epoch"),
            epoch_groups=shuffle.get("groups"),
            rest=rest,
        )


def _rest_from_json(state: dict[str, Any], layout: Layout) -> Remainder | None:
    rest = state.get("rest")
    if rest is None:
        return None
    return Remainder(
        rest["epoch"], rest["ranges"], parts=layout.num_shards, batch_size=layout.batch_size
    )


def _unread(rest: Remainder, position: int) -> list[tuple[int, int]]:
    """The slot ranges of ``rest`` that no shard has read at ``position`` (in order)."""
    out: list[tuple[int, int]] = []
    for j in range(rest.parts):
        begin, end = rest.part_range(j)
        out += rest.slot_ranges(begin + min(position, end - begin), end)
    return _merge(out)


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _remainder(
    old: Layout, state: dict[str, Any], shuffle: dict[str, Any] | None
) -> tuple[int, list[tuple[int, int]]]:
    """The interrupted epoch and its unread slot ranges, from a saved state of layout ``old``.

    Every old shard is at the saved position (lockstep). An empty list: the epoch had not
    started (resume at its start).
    """
    position = int(state["position"])
    rest = _rest_from_json(state, old)
    if rest is not None and position < rest.length:
        unread = _unread(rest, position)
        # (nothing unread: only padding was left of it, resume at the next epoch)
        return (rest.epoch, unread) if unread else (rest.epoch + 1, [])
    streams = [old.stream(i, shuffle, rest) for i in range(old.num_shards)]
    regular = [
        position if rest is None else position - rest.length + s.visit_start(rest.epoch + 1)
        for s in streams
    ]
    visits = [s.visit_of(p) for s, p in zip(streams, regular)]
    epoch = min(visits)
    ranges: list[tuple[int, int]] = []
    started = False
    for s, p, v in zip(streams, regular, visits):
        if v != epoch:
            started = True  # this shard read its whole visit (and some of the next)
            continue
        read = p - s.visit_start(epoch)
        started = started or read > 0
        shard = s.shard_id if s.stick_to_shard else (s.shard_id + epoch) % s.num_shards
        begin = shard * old.n // old.num_shards
        end = (shard + 1) * old.n // old.num_shards
        if begin + read < end:
            ranges.append((begin + read, end))
    if not started:
        return epoch, []  # nothing of the epoch read: resume at its start
    if not ranges:
        return epoch + 1, []  # only padding was left of it: resume at the next one
    return epoch, _merge(ranges)


def _buffered_remainder(
    old: Layout, state: dict[str, Any], shuffle: dict[str, Any], key: int
) -> tuple[int, list[tuple[int, int]]]:
    """`_remainder` of readers with a shuffle buffer: what the old buffers had not returned."""
    position = int(state["position"])
    rest = _rest_from_json(state, old)
    streams = [old.stream(i, shuffle, rest) for i in range(old.num_shards)]
    passes = [int(s.at(np.array([position]))[1][0]) for s in streams]
    epoch = min(passes)
    slots: list[np.ndarray] = []
    started = False
    for stream, v in zip(streams, passes):
        begin, end = stream.pass_bounds(position)
        if v != epoch:
            started = True  # this shard returned its whole pass (and some of the next)
            continue
        started = started or position > begin
        drawn = stream.real_before(position)
        if drawn < stream.real_before(end):  # (else only padding was left of it)
            buffer = ShuffleBuffer(stream.unpadded(), int(shuffle["fill"]), key)
            buffer.seek(drawn)
            slots.append(buffer.reads.slots_at(buffer.unread())[0])
    if not started:
        return epoch, []
    if not slots:
        return epoch + 1, []
    order = np.sort(np.concatenate(slots))
    breaks = np.flatnonzero(np.diff(order) != 1) + 1
    ranges = [(int(r[0]), int(r[-1]) + 1) for r in np.split(order, breaks)]
    return epoch, ranges


def resume_stream(
    state: dict[str, Any],
    layout: Layout,
    *,
    shard_id: int,
    shuffle: dict[str, Any] | None,
    key: int | None = None,
) -> tuple[SampleStream, int]:
    """The stream and position a reader of ``layout`` resumes at from a saved ``state``.

    Args:
        state: The saved reader state (`Layout.to_json` plus ``position``, maybe ``rest``).
        layout: The restored reader's layout.
        shard_id: The restored reader's shard.
        shuffle: How the reader shuffles, the same for the saved reader (checked by the
            caller), None for not at all: ``"epoch"`` (``shuffle_after_epoch``'s seed) and
            ``"groups"`` (what it permutes whole), ``"order"`` (the one-off permutation of
            ``random_shuffle``) and ``"fill"`` (its shuffle buffer's size).
        key: The reader's random key (for a shuffle buffer).

    Returns:
        ``(stream, position)``; an elastic restore's stream starts with a `Remainder`.

    Raises:
        ResumeError: Another dataset size.
        KeyError, ValueError, TypeError: A malformed state.
    """
    old = Layout.from_json(state)
    if old.n != layout.n:
        raise ResumeError(
            f"the saved reader read {old.n} samples, this one reads {layout.n}: another dataset"
        )
    if old == layout:
        return layout.stream(shard_id, shuffle, _rest_from_json(state, old)), int(state["position"])
    if shuffle is not None and "fill" in shuffle:
        if key is None:
            raise ValueError("a shuffle buffer needs the reader's random key")
        epoch, ranges = _buffered_remainder(old, state, shuffle, key)
    else:
        epoch, ranges = _remainder(old, state, shuffle)
    if not ranges:
        fresh = layout.stream(shard_id, shuffle)
        return fresh, fresh.visit_start(epoch)
    rest = Remainder(epoch, ranges, parts=layout.num_shards, batch_size=layout.batch_size)
    return layout.stream(shard_id, shuffle, rest), 0


def resume_info(stream: SampleStream, position: int, saved: Layout | None = None) -> dict[str, Any]:
    """What an iterator needs to know of a reader restored elastically.

    Args:
        stream: The restored reader's stream.
        position: Its position in it.
        saved: The layout of the reader the state was saved from (for ``saved_batch``).

    Returns:
        ``{"epoch": e, "part_sizes": [...], "length": L, "saved_batch": B}`` while the stream
        starts with the rest of epoch ``e`` (its pieces' sizes, by new shard, and how many
        samples each shard reads of it, padding included), else ``part_sizes`` None and
        ``length`` 0: the reader starts epoch ``e`` of its own layout. ``saved_batch``: the
        saved reader's batch size.
    """
    rest = stream.rest
    info: dict[str, Any] = {"epoch": stream.visit_of(position), "part_sizes": None, "length": 0}
    if rest is not None:
        info = {"epoch": rest.epoch, "part_sizes": rest.part_sizes(), "length": rest.length}
    info["saved_batch"] = None if saved is None else saved.batch_size
    return info
