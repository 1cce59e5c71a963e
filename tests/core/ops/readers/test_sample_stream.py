"""The sample stream, its passes, the elastic remainder and the reader cursor (`_sharding`).

The expected streams are written out by hand from DALI's sharding rules (shard ``i`` is
``[floor(i·n/S), floor((i+1)·n/S))``; visit ``v`` of shard ``s`` reads shard ``s+v mod S``, or
``s`` when sticking; padding repeats the last sample to whole batches of the largest shard) and
Our rule for passes (a sample's pass is the epoch in which it is read: the index of its visit).
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest
from dali._exec.rng import SampleRNG, combine
from dali._ops.readers.loader.sharding import (
    ReaderCursor,
    Remainder,
    SampleStream,
    epoch_permutation,
)
from hypothesis import given, settings
from hypothesis import strategies as st

SEED = 99  # shuffle_after_epoch_seed of the shuffling modes
VISITS = 4

#: the stream shapes, as `SampleStream` keywords (``order`` is filled in per dataset size)
MODES = {
    "default": {},
    "stick": {"stick_to_shard": True},
    "pad": {"pad_last_batch": True},
    "pad_stick": {"pad_last_batch": True, "stick_to_shard": True},
    "shuffle_after_epoch": {"epoch_shuffle_seed": SEED},
    "shuffle_after_epoch_pad": {"epoch_shuffle_seed": SEED, "pad_last_batch": True},
    "random_shuffle_order": {"order": None},
}


def _kw(mode, n):
    kw = dict(MODES[mode])
    if "order" in kw:
        kw["order"] = np.random.default_rng(n).permutation(n)
    return kw


def _by_hand(n, shards, shard, batch, kw, visits):
    """``[(ids, passes, real)]`` per visit: the stream written out from the rules."""
    bounds = [i * n // shards for i in range(shards + 1)]
    largest = max(b - a for a, b in itertools.pairwise(bounds))
    padded = -(-largest // batch) * batch
    sticks = kw.get("stick_to_shard", False) or "epoch_shuffle_seed" in kw
    out = []
    for v in range(visits):
        s = shard if sticks else (shard + v) % shards
        slots = list(range(bounds[s], bounds[s + 1]))
        real = [True] * len(slots)
        if kw.get("pad_last_batch"):
            real += [False] * (padded - len(slots))
            slots += [slots[-1]] * (padded - len(slots))
        if "epoch_shuffle_seed" in kw:
            ids = epoch_permutation(n, SEED, v)[slots].tolist()
        elif kw.get("order") is not None:
            ids = kw["order"][slots].tolist()
        else:
            ids = slots
        out.append((ids, [v] * len(ids), real))
    return out


# -- the stream --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [10, 21])
@pytest.mark.parametrize("mode", list(MODES))
def test_stream_and_visits_follow_the_rules(mode, n):
    for shards in range(1, 5):
        for shard in range(shards):
            for batch in range(1, 9):
                kw = _kw(mode, n)
                stream = SampleStream(n, num_shards=shards, shard_id=shard, batch_size=batch, **kw)
                visits = _by_hand(n, shards, shard, batch, kw, VISITS)
                starts = np.cumsum([0] + [len(ids) for ids, _, _ in visits]).tolist()
                ids, passes = stream.take(0, starts[-1])
                where = (mode, shards, shard, batch)
                assert ids.tolist() == [k for v in visits for k in v[0]], where
                assert passes.tolist() == [e for v in visits for e in v[1]], where
                for v in range(VISITS):
                    assert stream.visit_start(v) == starts[v], (where, v)
                    assert stream.visit_size(v) == sum(visits[v][2]), (where, v)
                    assert stream.visit_of(starts[v]) == v
                    assert stream.visit_of(starts[v + 1] - 1) == v
                    if v:
                        assert stream.visit_of(starts[v] - 1) == v - 1
                # `at` is `take` for any positions, in any order
                p = np.random.default_rng(batch).permutation(starts[-1])
                at_ids, at_passes = stream.at(p)
                assert at_ids.tolist() == ids[p].tolist()
                assert at_passes.tolist() == passes[p].tolist()


def test_stream_doc_example_and_the_passes_of_two_shards():
    # shard 1 of 2 over 21: 10..20 in epoch 0, 0..9 in epoch 1, 10..20 in epoch 2 (before the
    # pass counted visits of the whole dataset: 0..9 were read twice with pass 0)
    stream = SampleStream(21, num_shards=2, shard_id=1, batch_size=8)
    ids, passes = stream.take(0, 32)
    assert ids.tolist() == [*range(10, 21), *range(10), *range(10, 21)]
    assert passes.tolist() == [0] * 11 + [1] * 10 + [2] * 11
    assert [stream.visit_start(v) for v in range(4)] == [0, 11, 21, 32]
    assert [stream.visit_size(v) for v in range(4)] == [11, 10, 11, 10]


@pytest.mark.parametrize("n", [10, 21])
@pytest.mark.parametrize("mode", list(MODES))
def test_passes_are_the_epoch_whatever_the_number_of_shards(mode, n):
    """All shards in lockstep for E epochs read every (sample, epoch) pair, for any S."""
    epochs = 3
    for batch in range(1, 9):
        sets = {}
        for shards in range(1, 5):
            kw = _kw(mode, n)
            streams = [
                SampleStream(n, num_shards=shards, shard_id=i, batch_size=batch, **kw)
                for i in range(shards)
            ]
            # lockstep: every shard reads as many whole batches as the slowest needs
            end = max(s.visit_start(epochs) for s in streams)
            end = -(-end // batch) * batch
            read: collections.Counter = collections.Counter()
            for s in streams:
                ids, passes = s.take(0, end)
                # each shard read exactly its own first E visits before pass E
                assert (passes < epochs).sum() == s.visit_start(epochs)
                read.update(zip(ids[passes < epochs].tolist(), passes[passes < epochs].tolist()))
            sets[shards] = set(read)
            assert sets[shards] == {(k, e) for k in range(n) for e in range(epochs)}
            if not kw.get("pad_last_batch"):
                assert set(read.values()) == {1}, (mode, batch, shards)  # once per epoch
        assert len(set(map(frozenset, sets.values()))) == 1


def test_shuffle_after_epoch_reads_a_new_permutation_each_epoch():
    stream = SampleStream(21, num_shards=3, shard_id=2, batch_size=4, epoch_shuffle_seed=SEED)
    ids, passes = stream.take(0, 21)
    by_epoch = [ids[passes == e].tolist() for e in range(3)]
    assert by_epoch[0] == epoch_permutation(21, SEED, 0)[14:21].tolist()
    assert by_epoch[1] == epoch_permutation(21, SEED, 1)[14:21].tolist()
    assert by_epoch[0] != by_epoch[1] != by_epoch[2]


def test_stream_rejects_impossible_configurations():
    for kw in (
        {"n": 3, "num_shards": 4},
        {"n": 10, "num_shards": 2, "shard_id": 2},
        {"n": 10, "shard_id": -1},
        {"n": 10, "batch_size": 0},
    ):
        with pytest.raises(ValueError, match="invalid stream"):
            SampleStream(**kw)


# -- the remainder of an interrupted epoch -----------------------------------------------------


def test_remainder_doc_example():
    rest = Remainder(3, [(5, 8), (12, 14)], parts=2, batch_size=2)
    assert (rest.total, rest.part_sizes(), rest.length) == (5, [2, 3], 4)
    assert [rest.part_range(j) for j in range(2)] == [(0, 2), (2, 5)]
    assert rest.slots(0, np.arange(4)).tolist() == [5, 6, 6, 6]  # padded with its last
    assert rest.slots(1, np.arange(4)).tolist() == [7, 12, 13, 13]
    assert rest.to_json() == {"epoch": 3, "ranges": [[5, 8], [12, 14]]}


def test_remainder_drops_empty_ranges_and_needs_a_sample():
    rest = Remainder(0, [(4, 4), (2, 6), (9, 7)], parts=1, batch_size=3)
    assert rest.ranges == [(2, 6)] and rest.length == 6
    with pytest.raises(ValueError, match="at least one sample"):
        Remainder(0, [(3, 3)], parts=2, batch_size=1)
    with pytest.raises(ValueError, match="at least one sample"):
        Remainder(0, [], parts=2, batch_size=1)


def test_remainder_with_fewer_samples_than_shards():
    # two samples over four shards: two pieces are empty; their shards still read one whole
    # batch (every shard reads `length` samples), repeating a sample of the remainder
    rest = Remainder(1, [(4, 6)], parts=4, batch_size=3)
    assert rest.part_sizes() == [0, 1, 0, 1] and rest.length == 3
    pieces = [rest.slots(j, np.arange(3)).tolist() for j in range(4)]
    assert pieces[1] == [4, 4, 4] and pieces[3] == [5, 5, 5]
    for j in (0, 2):
        assert len(set(pieces[j])) == 1 and pieces[j][0] in (4, 5)
    assert pieces[2] == [4, 4, 4]  # the sample before it


@st.composite
def remainders(draw):
    cuts = sorted(draw(st.lists(st.integers(0, 60), min_size=2, max_size=8, unique=True)))
    pairs = [(a, b) for a, b in zip(cuts[::2], cuts[1::2])]
    pairs = draw(st.permutations(pairs))  # an order of the old shards, not sorted
    return Remainder(
        draw(st.integers(0, 5)),
        pairs,
        parts=draw(st.integers(1, 6)),
        batch_size=draw(st.integers(1, 9)),
    )


@settings(max_examples=300, deadline=None, database=None)
@given(rest=remainders(), window=st.tuples(st.integers(0, 70), st.integers(0, 70)))
def test_remainder_pieces_cover_the_slots_in_order(rest, window):
    flat = [s for a, b in rest.ranges for s in range(a, b)]
    assert rest.total == len(flat)
    sizes = rest.part_sizes()
    assert sum(sizes) == len(flat) and max(sizes) - min(sizes) <= 1
    assert rest.length % rest.batch_size == 0
    assert max(sizes) <= rest.length < max(sizes) + rest.batch_size
    real = []
    for j in range(rest.parts):
        begin, end = rest.part_range(j)
        assert end - begin == sizes[j]
        piece = rest.slots(j, np.arange(rest.length)).tolist()
        real += piece[: sizes[j]]
        assert set(piece[sizes[j] :]) <= set(flat)  # padding repeats a sample of the rest
        if sizes[j]:
            assert set(piece[sizes[j] :]) <= {piece[sizes[j] - 1]}
    assert real == flat  # contiguous pieces, in order, every slot once
    lo, hi = sorted(window)
    got = [s for a, b in rest.slot_ranges(lo, hi) for s in range(a, b)]
    assert got == flat[lo:hi]
    assert all(b > a for a, b in rest.slot_ranges(lo, hi))


@pytest.mark.parametrize("mode", ["default", "pad", "shuffle_after_epoch", "random_shuffle_order"])
def test_stream_reads_its_remainder_then_the_next_epoch(mode):
    n, epoch = 21, 2
    rest = Remainder(epoch, [(15, 21), (3, 8)], parts=3, batch_size=4)
    assert rest.part_sizes() == [3, 4, 4] and rest.length == 4
    kw = _kw(mode, n)
    for shard in range(3):
        plain = SampleStream(n, num_shards=3, shard_id=shard, batch_size=4, **kw)
        stream = SampleStream(n, num_shards=3, shard_id=shard, batch_size=4, rest=rest, **kw)
        ids, passes = stream.take(0, rest.length + 30)
        slots = rest.slots(shard, np.arange(rest.length))
        if "epoch_shuffle_seed" in kw:
            expected = epoch_permutation(n, SEED, epoch)[slots]
        elif "order" in kw:
            expected = kw["order"][slots]
        else:
            expected = slots
        assert ids[: rest.length].tolist() == expected.tolist()
        assert passes[: rest.length].tolist() == [epoch] * rest.length
        # then the regular stream from the visit of the next epoch
        start = plain.visit_start(epoch + 1)
        after_ids, after_passes = plain.take(start, 30)
        assert ids[rest.length :].tolist() == after_ids.tolist()
        assert passes[rest.length :].tolist() == after_passes.tolist()
        assert passes[rest.length] == epoch + 1
        # the remainder's padding, and the unpadded stream of the real samples alone
        real = [q < rest.part_sizes()[shard] for q in range(rest.length)]
        padding = stream.is_padding(np.arange(rest.length + 30))
        assert (
            padding.tolist()
            == [not r for r in real] + plain.is_padding(np.arange(start, start + 30)).tolist()
        )
        real_ids = ids[~padding].tolist()
        assert stream.unpadded().take(0, len(real_ids))[0].tolist() == real_ids


# -- padding and the real samples -------------------------------------------------------------


@pytest.mark.parametrize("n", [10, 21])
@pytest.mark.parametrize("mode", list(MODES))
def test_padding_positions_and_the_unpadded_stream(mode, n):
    for shards in (1, 3):
        for shard in range(shards):
            for batch in (1, 4):
                kw = _kw(mode, n)
                stream = SampleStream(n, num_shards=shards, shard_id=shard, batch_size=batch, **kw)
                visits = _by_hand(n, shards, shard, batch, kw, VISITS)
                real = [r for v in visits for r in v[2]]
                end = len(real)
                assert stream.is_padding(np.arange(end)).tolist() == [not r for r in real]
                assert [stream.real_before(p) for p in range(end + 1)] == np.cumsum(
                    [0, *real]
                ).tolist()
                ids, passes = stream.take(0, end)
                unpadded = stream.unpadded()
                count = sum(real)
                u_ids, u_passes = unpadded.take(0, count)
                assert u_ids.tolist() == ids[np.array(real)].tolist()
                assert u_passes.tolist() == passes[np.array(real)].tolist()
                # a pass's bounds, in both streams
                starts = np.cumsum([0] + [len(v[0]) for v in visits]).tolist()
                real_starts = np.cumsum([0] + [sum(v[2]) for v in visits]).tolist()
                for v in range(VISITS):
                    for p in (starts[v], starts[v + 1] - 1):
                        assert stream.pass_bounds(p) == (starts[v], starts[v + 1])
                    assert unpadded.pass_bounds(real_starts[v]) == (
                        real_starts[v],
                        real_starts[v + 1],
                    )


# -- the cursor and its shuffle buffer ---------------------------------------------------------


def test_cursor_without_buffer_is_the_stream_batch_by_batch():
    stream = SampleStream(21, num_shards=2, shard_id=1, batch_size=5, pad_last_batch=True)
    cursor = ReaderCursor(stream)
    out = [cursor.next_batch(5) for _ in range(6)]
    assert np.concatenate([i for i, _ in out]).tolist() == stream.take(0, 30)[0].tolist()
    assert np.concatenate([p for _, p in out]).tolist() == stream.take(0, 30)[1].tolist()
    assert cursor.get_state() == {"position": 30}
    other = ReaderCursor(stream)
    other.set_state(**cursor.get_state())
    assert other.next_batch(5)[0].tolist() == cursor.next_batch(5)[0].tolist()


def _offset(key, t, length):
    """The buffer's random choice for draw ``t`` among ``length`` candidates."""
    bits = int(SampleRNG(combine(key, np.array([t]))).bits(1)[0, 0])
    return ((bits >> 32) * length) >> 32


def _dali_loader(stream, fill, key, count):
    """DALI's loader (``Loader::ReadOne``), transcribed with its data structures: a circular
    buffer of ``fill`` reads and a deque of per-pass ``[start, end)`` ranges of read numbers,
    the choice of a draw made by `_offset`. Returns the ``(ids, passes)`` of ``count`` samples
    of ``stream`` (a padding position returns the last sample again)."""
    reads = stream.unpadded()
    buffer, ranges, read = [], collections.deque(), 0
    read_pass = None

    def read_one():
        nonlocal read, read_pass
        _, p = reads.at(np.array([read]))
        if p[0] != read_pass:  # the reader crossed into the next pass: a new range
            start = ranges[-1][1] if ranges else 0
            ranges.append([start, start])
            read_pass = int(p[0])
        ranges[-1][1] += 1
        read += 1
        return read - 1

    for _ in range(fill):
        buffer.append(read_one())
    out, last, t = [], None, 0
    for position in range(count):
        if stream.is_padding(np.array([position]))[0]:
            out.append(last)
            continue
        if ranges[0][0] == ranges[0][1]:
            ranges.popleft()
        front = ranges[0]
        offset = _offset(key, t, front[1] - front[0])
        idx = (front[0] + offset) % fill
        here = front[0] % fill
        buffer[idx], buffer[here] = buffer[here], buffer[idx]
        last = buffer[here]
        buffer[here] = read_one()  # the new read enters where the drawn sample was
        front[0] += 1
        out.append(last)
        t += 1
    return reads.at(np.array(out))


STREAMS = {
    "one shard": {"n": 21},
    "shard 1 of 3": {"n": 21, "num_shards": 3, "shard_id": 1, "batch_size": 4},
    "padded": {"n": 21, "num_shards": 5, "shard_id": 0, "batch_size": 3, "pad_last_batch": True},
    "sticky": {"n": 24, "num_shards": 5, "shard_id": 0, "stick_to_shard": True},
    "with a remainder": {
        "n": 21,
        "num_shards": 3,
        "shard_id": 2,
        "batch_size": 4,
        "rest": Remainder(2, [(15, 21), (3, 8)], parts=3, batch_size=4),
    },
    "empty remainder piece": {
        "n": 21,
        "num_shards": 3,
        "shard_id": 1,
        "batch_size": 2,
        "rest": Remainder(0, [(20, 21)], parts=3, batch_size=2),
    },
    "epoch shuffle": {"n": 21, "num_shards": 2, "shard_id": 1, "epoch_shuffle_seed": SEED},
}


@pytest.mark.parametrize("fill", [1, 2, 5, 24, 1024])
@pytest.mark.parametrize("name", [k for k in STREAMS if k != "empty remainder piece"])
def test_the_shuffle_buffer_is_dalis_loader(name, fill):
    stream = SampleStream(**STREAMS[name])
    count = 3 * 24 + 5
    ids, passes = _dali_loader(stream, fill, 77, count)
    cursor = ReaderCursor(stream, fill, key=77)
    batches = [cursor.next_batch(k) for k in (5, 1, 7, 0, 64)]
    assert np.concatenate([b[0] for b in batches]).tolist() == ids.tolist()
    assert np.concatenate([b[1] for b in batches]).tolist() == passes.tolist()


@pytest.mark.parametrize("fill", [1, 3, 8, 1024])
@pytest.mark.parametrize("name", list(STREAMS))
def test_every_pass_gives_its_samples_once_each(name, fill):
    stream = SampleStream(**STREAMS[name])
    count = 100
    cursor = ReaderCursor(stream, fill, key=5)
    ids, passes = cursor.next_batch(count)
    plain_ids, plain_passes = stream.take(0, count)
    padding = stream.is_padding(np.arange(count))
    assert passes.tolist() == plain_passes.tolist()  # the passes come in the stream's order
    for v in np.unique(passes).tolist():
        mine = (passes == v) & ~padding
        full = stream.pass_bounds(int(np.flatnonzero(passes == v)[-1]))[1] <= count
        if full:  # a whole pass: the same samples as the stream's, each once
            assert sorted(ids[mine].tolist()) == sorted(plain_ids[mine].tolist())
    # padding repeats the sample returned before it
    for p in np.flatnonzero(padding).tolist():
        if p and stream.real_before(p):
            assert ids[p] == ids[p - 1]


def test_an_empty_remainder_piece_repeats_the_streams_sample():
    # (only an elastic restore makes a piece with no sample: a shard of a 1-sample rest)
    stream = SampleStream(**STREAMS["empty remainder piece"])
    ids, passes = ReaderCursor(stream, 4, key=1).next_batch(2)
    assert (ids.tolist(), passes.tolist()) == tuple(a.tolist() for a in stream.take(0, 2))


@pytest.mark.parametrize("fill", [1, 4, 9])
def test_sample_k_comes_from_the_first_fill_plus_k_reads(fill):
    stream = SampleStream(30, num_shards=2, shard_id=0, batch_size=4)
    reads = stream.unpadded().take(0, 200)[0].tolist()
    cursor = ReaderCursor(stream, fill, key=3)
    ids = cursor.next_batch(120)[0].tolist()
    seen: collections.Counter = collections.Counter()
    for k, sample in enumerate(ids):
        # the k-th sample is one of the reads not returned yet among the first fill + k
        available = collections.Counter(reads[: fill + k]) - seen
        assert available[sample] > 0, k
        seen[sample] += 1


def test_shuffle_depends_on_the_key_and_mixes_within_the_epoch():
    stream = SampleStream(1000)
    a = ReaderCursor(stream, 1024, key=1).next_batch(1000)[0]
    b = ReaderCursor(stream, 1024, key=2).next_batch(1000)[0]
    assert sorted(a.tolist()) == sorted(b.tolist()) == list(range(1000))
    assert a.tolist() != b.tolist()
    # with a buffer as large as the epoch, the order is a uniform shuffle: no sample stays
    # near its place, on average
    assert abs(np.mean(np.abs(a - np.arange(1000))) - 333) < 40


@pytest.mark.parametrize("fill", [1, 6, 1024])
@pytest.mark.parametrize("name", list(STREAMS))
def test_a_restored_cursor_continues_exactly(name, fill):
    stream = SampleStream(**STREAMS[name])
    live = ReaderCursor(stream, fill, key=11)
    rng = np.random.default_rng(fill)
    for _ in range(25):
        live.next_batch(int(rng.integers(0, 9)))
        state = live.get_state()
        assert set(state) == {"position"}
        restored = ReaderCursor(stream, fill, key=11)
        restored.set_state(**state)
        ahead = live.copy()
        for count in (1, 7, 3, 30):
            a, b = ahead.next_batch(count), restored.next_batch(count)
            assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


def test_a_copy_moves_on_its_own():
    stream = SampleStream(21, batch_size=4)
    live = ReaderCursor(stream, 8, key=1)
    live.next_batch(10)
    copy = live.copy()
    first = copy.next_batch(15)[0].tolist()
    assert live.get_state() == {"position": 10}
    assert live.next_batch(15)[0].tolist() == first


def test_cursor_state_errors():
    stream = SampleStream(21, batch_size=4)
    plain = ReaderCursor(stream)
    with pytest.raises(ValueError, match="must not be negative"):
        plain.set_state(-1)
    with pytest.raises(ValueError, match="random key"):
        ReaderCursor(stream, 16)
    with pytest.raises(ValueError, match="must be positive"):
        ReaderCursor(stream, 0, key=1)
    # a failed set_state leaves the cursor where it was
    plain.next_batch(4)
    with pytest.raises(ValueError):
        plain.set_state(-3)
    assert plain.get_state() == {"position": 4}
