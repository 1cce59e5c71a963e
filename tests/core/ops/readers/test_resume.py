"""Where a reader resumes: exact and elastic restores of its state (`_resume`).

The elastic rule, checked over many old layouts cut at every lockstep position (every whole
batch) of two epochs: the samples of the interrupted epoch that the old shards read before the
cut, plus the real samples of the new shards' remainder pieces, are the dataset exactly once;
the epochs before it were read whole; after the remainder every new shard reads the next epoch
of its own layout.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest
from dali._ops.readers.loader.resume import Layout, ResumeError, resume_info, resume_stream
from dali._ops.readers.loader.sharding import ReaderCursor, epoch_permutation
from hypothesis import given, settings
from hypothesis import strategies as st

SHUFFLE = {"epoch": 7}  # shuffle_after_epoch's seed
KEY = 1234  # a shuffle buffer's random key

_SHARDS = {1: 2, 2: 3, 3: 4, 4: 1}
_BATCH = {8: 6, 7: 3, 6: 8, 5: 2, 4: 7, 3: 5, 2: 4}

#: new layouts made from an old one
NEW_LAYOUTS = {
    "shards": lambda old: {"num_shards": _SHARDS[old.num_shards]},
    "batch": lambda old: {"batch_size": _BATCH[old.batch_size]},
    "pad": lambda old: {"pad_last_batch": not old.pad_last_batch},
    "stick": lambda old: {"stick_to_shard": not old.stick_to_shard},
    "all": lambda old: {
        "num_shards": _SHARDS[old.num_shards],
        "batch_size": _BATCH[old.batch_size],
        "pad_last_batch": not old.pad_last_batch,
        "stick_to_shard": not old.stick_to_shard,
    },
}


def _old_layouts(n):
    """Every (layout, shuffle) of shards 1..4, batch 2..8, pad, stick, shuffle_after_epoch."""
    for shards, batch, pad, stick, shuffle in itertools.product(
        range(1, 5), range(2, 9), (False, True), (False, True), (None, SHUFFLE)
    ):
        if stick and shuffle:  # `fn.readers.file` refuses them together
            continue
        yield Layout(n, shards, batch, pad, stick), shuffle


class Reads:
    """What the shards of one layout read, position by position (ids, passes, not padding)."""

    def __init__(self, streams, stop):
        self.ids, self.passes, self.real = [], [], []
        for s in streams:
            p = np.arange(stop, dtype=np.int64)
            ids, passes = s.at(p)
            real = np.ones(stop, dtype=bool)
            rest, regular = s.rest, p
            if rest is not None:
                early = p < rest.length
                real[early] = p[early] < rest.part_sizes()[s.shard_id]
                regular = p - rest.length + s.visit_start(rest.epoch + 1)
            for v in np.unique(passes).tolist():
                at = ~early & (passes == v) if rest is not None else passes == v
                real[at] &= regular[at] - s.visit_start(v) < s.visit_size(v)
            self.ids.append(ids)
            self.passes.append(passes)
            self.real.append(real)

    def of_epoch(self, epoch, stop):
        """The real samples of ``epoch`` read by every shard before position ``stop``."""
        out = []
        for ids, passes, real in zip(self.ids, self.passes, self.real):
            keep = real[:stop] & (passes[:stop] == epoch)
            out += ids[:stop][keep].tolist()
        return out


def _state(layout, position, rest=None, shard=0):
    state = {**layout.to_json(shard), "position": position}
    if rest is not None:
        state["rest"] = rest.to_json()
    return json.loads(json.dumps(state))  # as a checkpoint stores it


def _restore(state, new, shuffle, shards=None):
    """``resume_stream`` for the new shards (default: all); checks they agree on the rest."""
    shards = range(new.num_shards) if shards is None else shards
    out = [resume_stream(state, new, shard_id=j, shuffle=shuffle) for j in shards]
    rests = [s.rest for s, _ in out]
    if rests[0] is None:
        assert all(r is None for r in rests)
    else:
        assert all(r.to_json() == rests[0].to_json() for r in rests)
    return out


def _check_restored(history, restored, new, shuffle, n, fresh=None):
    """The elastic rule for the new shards ``restored`` (all of them: also read the pieces
    and what follows; only shard 0: the remainder's slots stand for its pieces).

    Args:
        history: ``(Reads, stop, last epoch counted)`` of each layout before, in order.
        restored: ``resume_stream``'s answers for new shards ``0, 1, ...``.
        new: The new layout.
        shuffle: As for ``resume_stream``.
        n: The dataset size.
        fresh: The new layout's streams from the start, if already made.
    """
    streams = [s for s, _ in restored]
    infos = [resume_info(s, p) for s, p in restored]
    epoch = infos[0]["epoch"]
    assert all(info["epoch"] == epoch for info in infos)

    def read(e):
        return [k for reads, stop, last in history if e <= last for k in reads.of_epoch(e, stop)]

    for e in range(epoch):  # the epochs before were read whole, once
        assert sorted(read(e)) == list(range(n)), e
    rest = streams[0].rest
    fresh = fresh or [new.stream(j, shuffle) for j in range(new.num_shards)]
    if rest is None:  # the epoch had not started: the new layout starts it
        assert read(epoch) == []
        for (s, position), f in zip(restored, fresh):
            assert position == f.visit_start(epoch)
            assert s.take(position, 12)[0].tolist() == f.take(position, 12)[0].tolist()
        assert infos[0] == {"epoch": epoch, "part_sizes": None, "length": 0, "saved_batch": None}
        return
    assert rest.epoch == epoch and rest.parts == new.num_shards
    assert all(position == 0 for _, position in restored)
    assert rest.length % new.batch_size == 0
    assert infos[0] == {
        "epoch": epoch,
        "part_sizes": rest.part_sizes(),
        "length": rest.length,
        "saved_batch": None,
    }
    if len(restored) < new.num_shards:
        slots = [k for a, b in rest.ranges for k in range(a, b)]
        pieces = epoch_permutation(n, shuffle["epoch"], epoch)[slots] if shuffle else slots
        assert sorted(read(epoch) + list(pieces)) == list(range(n))
        return
    pieces = Reads(streams, rest.length)
    assert all(p[: rest.length].tolist() == [epoch] * rest.length for p in pieces.passes)
    assert sorted(read(epoch) + pieces.of_epoch(epoch, rest.length)) == list(range(n))
    # then every new shard reads the next epoch of its own layout
    for s, f in zip(streams, fresh):
        start = f.visit_start(epoch + 1)
        after, expected = s.take(rest.length, 25), f.take(start, 25)
        assert after[0].tolist() == expected[0].tolist()
        assert after[1].tolist() == expected[1].tolist()
        assert after[1][0] == epoch + 1


def _cuts(old, shuffle, epochs=2):
    """The old shards' streams and every lockstep cut (whole batches) over ``epochs``."""
    streams = [old.stream(i, shuffle) for i in range(old.num_shards)]
    end = max(s.visit_start(epochs) for s in streams)
    cuts = range(0, end + old.batch_size, old.batch_size)
    return streams, cuts


@pytest.mark.parametrize("change", list(NEW_LAYOUTS))
@pytest.mark.parametrize("n", [10, 21, 37])
def test_elastic_restore_reads_the_interrupted_epoch_once(n, change):
    restores = remainders = 0
    for old, shuffle in _old_layouts(n):
        new = dataclasses.replace(old, **NEW_LAYOUTS[change](old))
        assert new != old
        streams, cuts = _cuts(old, shuffle)
        reads = Reads(streams, cuts[-1])
        fresh = [new.stream(j, shuffle) for j in range(new.num_shards)]
        for i, position in enumerate(cuts):
            # every new shard at every 6th cut; at the others shard 0 (its remainder's slots)
            every = i % 6 == 0 or i == len(cuts) - 1
            restored = _restore(_state(old, position), new, shuffle, None if every else [0])
            epoch = resume_info(*restored[0])["epoch"]
            _check_restored([(reads, position, epoch)], restored, new, shuffle, n, fresh)
            restores += 1
            remainders += restored[0][0].rest is not None
    assert restores > 600 and remainders > restores // 3


@pytest.mark.parametrize("n", [10, 21])
def test_elastic_restore_at_any_position_without_padding(n):
    # `resume_stream` takes any position (its docstring cuts batch size 2 at 3), not only
    # whole batches; without padding the rule holds at every one
    for old, shuffle in _old_layouts(n):
        if old.pad_last_batch or old.batch_size > 3:
            continue
        new = dataclasses.replace(old, num_shards=_SHARDS[old.num_shards], batch_size=4)
        streams, cuts = _cuts(old, shuffle)
        reads = Reads(streams, cuts[-1])
        for position in range(cuts[-1]):
            restored = _restore(_state(old, position), new, shuffle, [0])
            epoch = resume_info(*restored[0])["epoch"]
            _check_restored([(reads, position, epoch)], restored, new, shuffle, n)


def test_a_cut_inside_the_padding_resumes_at_the_next_epoch():
    # 10 samples, one shard, batch 3, padded: [0..9, 9, 9]; cut at 10 (all 10 read)
    old = Layout(10, 1, 3, pad_last_batch=True)
    ((stream, position),) = _restore(_state(old, 10), Layout(10, 2, 3), None, [0])
    assert stream.rest is None
    assert resume_info(stream, position)["epoch"] == 1  # (not epoch 0 again)


def test_a_cut_inside_the_remainders_padding_resumes_at_the_next_epoch():
    # pieces [8], [9, 18], [19, 20] of batch 4 (length 4): at 2 every piece is read
    restored = _restore(_state(Layout(21, 2, 4), 8), Layout(21, 3, 4), None)
    rest = restored[0][0].rest
    assert rest.part_sizes() == [1, 2, 2] and rest.length == 4
    ((stream, position),) = _restore(_state(Layout(21, 3, 4), 2, rest), Layout(21, 1, 4), None)
    assert resume_info(stream, position)["epoch"] == 1  # (not epoch 0 again)


@pytest.mark.parametrize("n", [10, 21, 37])
def test_a_cut_at_an_epoch_boundary_leaves_no_remainder(n):
    for old, shuffle in _old_layouts(n):
        streams = [old.stream(i, shuffle) for i in range(old.num_shards)]
        new = dataclasses.replace(old, num_shards=old.num_shards % 4 + 1)
        for epoch in range(3):
            starts = {s.visit_start(epoch) for s in streams}
            if len(starts) > 1:  # the shards' visits differ in size: no common boundary
                continue
            (position,) = starts
            for j, (s, p) in enumerate(_restore(_state(old, position), new, shuffle)):
                assert s.rest is None and p == new.stream(j, shuffle).visit_start(epoch)


def test_the_docstring_example():
    old = Layout(n=10, num_shards=2, batch_size=2)
    new = Layout(n=10, num_shards=3, batch_size=2)
    restored = _restore(_state(old, 3), new, None)
    rest = restored[0][0].rest
    assert rest.ranges == [(3, 5), (8, 10)] and rest.part_sizes() == [1, 1, 2]
    assert [s.take(0, 2)[0].tolist() for s, _ in restored] == [[3, 3], [4, 4], [8, 9]]


def test_shards_of_different_sizes_in_different_epochs():
    # 10 over 3 shards (3, 3, 4): at position 7 shard 0 is 1 sample into its visit 2 while
    # shards 1 and 2 start theirs; the rest of epoch 2 is theirs plus shard 0's
    old, new = Layout(10, 3, 1), Layout(10, 2, 1)
    restored = _restore(_state(old, 7), new, None)
    rest = restored[0][0].rest
    assert rest.epoch == 2 and rest.ranges == [(7, 10), (0, 6)]
    reads = Reads([old.stream(i, None) for i in range(3)], 7)
    assert sorted(reads.of_epoch(2, 7)) == [6]


@settings(max_examples=120, deadline=None, database=None)
@given(
    n=st.sampled_from([10, 21, 37]),
    layouts=st.lists(
        st.tuples(st.integers(1, 4), st.integers(2, 8), st.booleans(), st.booleans()),
        min_size=3,
        max_size=3,
    ),
    shuffle=st.sampled_from([None, SHUFFLE]),
    cut=st.integers(0, 200),
    fraction=st.floats(0, 1),
)
def test_nested_elastic_restore_still_reads_the_epoch_once(n, layouts, shuffle, cut, fraction):
    first, second, third = (
        Layout(n, s, b, pad, stick and shuffle is None) for s, b, pad, stick in layouts
    )
    # cut the first layout, restore elastically into the second
    streams, cuts = _cuts(first, shuffle)
    position = cuts[cut % len(cuts)]
    restored = _restore(_state(first, position), second, shuffle)
    epoch = resume_info(*restored[0])["epoch"]
    rest = restored[0][0].rest
    if rest is None or second == first:
        return
    history = [(Reads(streams, position), position, epoch)]
    # read part of the remainder (whole batches; all of it is an epoch boundary), cut again
    stop = round(fraction * rest.length / second.batch_size) * second.batch_size
    second_streams = [s for s, _ in restored]
    history.append((Reads(second_streams, stop), stop, epoch + 1))
    state = _state(second, stop, rest, shard=1 % second.num_shards)
    again = _restore(state, third, shuffle)
    if third == second:  # the same layout: each shard continues exactly
        for (s, p), old in zip(again, second_streams):
            assert p == stop and s.take(p, 30)[0].tolist() == old.take(stop, 30)[0].tolist()
        return
    _check_restored(history, again, third, shuffle, n)
    if stop == rest.length:
        assert again[0][0].rest is None
    else:
        assert again[0][0].rest.epoch == epoch


def test_nested_restore_example():
    # 21 over 2 shards cut at 8 (epoch 0: 8..9 and 18..20 left), spread over 3 shards;
    # one of them reads one sample, then the job moves to 1 shard
    first, second, third = Layout(21, 2, 4), Layout(21, 3, 1), Layout(21, 1, 2)
    restored = _restore(_state(first, 8), second, None)
    rest = restored[0][0].rest
    assert rest.ranges == [(8, 10), (18, 21)] and rest.part_sizes() == [1, 2, 2]
    assert [s.take(0, 2)[0].tolist() for s, _ in restored] == [[8, 8], [9, 18], [19, 20]]
    # the pieces are [8], [9, 18], [19, 20]: after one sample each, 18 and 20 are left
    ((stream, position),) = _restore(_state(second, 1, rest), third, None)
    assert stream.rest.ranges == [(18, 19), (20, 21)] and position == 0
    ids, passes = stream.take(0, 4)
    assert ids.tolist() == [18, 20, 0, 1] and passes.tolist() == [0, 0, 1, 1]


# -- the same layout ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [10, 21])
def test_the_same_layout_continues_exactly_on_any_shard(n):
    order = {"order": np.random.default_rng(3).permutation(n)}  # random_shuffle: exact only
    for old, shuffle in itertools.chain(_old_layouts(n), [(Layout(n, 3, 4), order)]):
        streams, cuts = _cuts(old, shuffle)
        for position in cuts[:: max(1, len(cuts) // 3)]:
            for saved in {0, old.num_shards - 1}:  # the shards of a job are in lockstep
                state = _state(old, position, shard=saved)
                for j, live in enumerate(streams):
                    s, p = resume_stream(state, old, shard_id=j, shuffle=shuffle)
                    assert p == position and s.rest is None
                    got, expected = s.take(p, 20), live.take(position, 20)
                    assert np.array_equal(np.stack(got), np.stack(expected))


def test_the_same_layout_keeps_its_remainder():
    first, second = Layout(21, 2, 4), Layout(21, 3, 2, pad_last_batch=True)
    restored = _restore(_state(first, 8), second, None)
    for position in (0, 2, 4):
        state = _state(second, position, restored[0][0].rest)
        for j, (live, _) in enumerate(restored):
            s, p = resume_stream(state, second, shard_id=j, shuffle=None)
            assert p == position and s.rest.to_json() == live.rest.to_json()
            assert s.take(p, 30)[0].tolist() == live.take(position, 30)[0].tolist()
            assert resume_info(s, p)["part_sizes"] == live.rest.part_sizes()


# -- errors ------------------------------------------------------------------------------------


def test_another_dataset_is_refused():
    state = _state(Layout(21, 2, 4), 8)
    for layout in (Layout(20, 2, 4), Layout(22, 1, 4), Layout(22, 2, 4)):
        with pytest.raises(ResumeError) as info:
            resume_stream(state, layout, shard_id=0, shuffle=None)
        assert "21" in str(info.value) and str(layout.n) in str(info.value)


def _shuffled(stream, fill, count, key=KEY):
    """What a shuffle buffer over ``stream`` returns in ``count`` positions: the ids and
    passes of the real samples (padding left out), and the passes of every position."""
    ids, passes = ReaderCursor(stream, fill, key).next_batch(count)
    real = ~stream.is_padding(np.arange(count))
    return ids[real], passes[real], passes


@pytest.mark.parametrize("fill", [1, 5, 64])
@pytest.mark.parametrize("change", list(NEW_LAYOUTS))
def test_elastic_restore_of_a_shuffle_buffer_reads_the_interrupted_epoch_once(change, fill):
    n = 21
    shuffle = {"order": np.random.default_rng(0).permutation(n), "fill": fill}
    restores = remainders = 0
    for shards, batch, pad, stick in itertools.product(
        (1, 2, 3), (2, 5), (False, True), (False, True)
    ):
        old = Layout(n, shards, batch, pad, stick)
        new = dataclasses.replace(old, **NEW_LAYOUTS[change](old))
        streams, cuts = _cuts(old, shuffle)
        for position in cuts:
            outs = [_shuffled(s, fill, position) for s in streams]
            state = _state(old, position)
            restored = [
                resume_stream(state, new, shard_id=j, shuffle=shuffle, key=KEY)
                for j in range(new.num_shards)
            ]
            epoch = resume_info(*restored[0])["epoch"]

            def read(e, outs=outs):
                return [k for ids, passes, _ in outs for k in ids[passes == e].tolist()]

            for e in range(epoch):  # the epochs before were returned whole, once
                assert sorted(read(e)) == list(range(n)), (old, position, e)
            rest = restored[0][0].rest
            restores += 1
            if rest is None:  # nothing of the epoch was returned: the new layout starts it
                assert read(epoch) == []
                continue
            remainders += 1
            pieces = []
            for stream, start in restored:
                assert start == 0
                ids, passes, every = _shuffled(stream, fill, rest.length + 3 * new.batch_size)
                assert every[: rest.length].tolist() == [epoch] * rest.length
                assert every[rest.length] == epoch + 1  # then the next epoch
                pieces += ids[passes == epoch].tolist()
            assert sorted(read(epoch) + pieces) == list(range(n)), (old, new, position)
    assert remainders > restores // 3


def test_the_same_layout_continues_a_shuffle_buffer_exactly():
    n, fill = 21, 6
    shuffle = {"order": np.random.default_rng(0).permutation(n), "fill": fill}
    old = Layout(n, 3, 4, pad_last_batch=True)
    for j in range(3):
        stream = old.stream(j, shuffle)
        whole = ReaderCursor(stream, fill, KEY).next_batch(60)[0].tolist()
        for position in range(0, 40, 4):
            restored, start = resume_stream(
                _state(old, position), old, shard_id=j, shuffle=shuffle, key=KEY
            )
            cursor = ReaderCursor(restored, fill, KEY)
            cursor.set_state(start)
            assert cursor.next_batch(20)[0].tolist() == whole[position : position + 20]


@pytest.mark.parametrize(
    ("state", "error"),
    [
        ({"shards": 2, "shard": 0, "batch": 4, "position": 8}, KeyError),  # no n
        ({"n": 21, "shard": 0, "batch": 4, "position": 8}, KeyError),  # no shards
        ({"n": 21, "shards": 2, "shard": 0, "position": 8}, KeyError),  # no batch
        ({"n": 21, "shards": 2, "shard": 0, "batch": 4}, KeyError),  # no position
        ({"n": 21, "shards": 2, "shard": 0, "batch": 4, "position": "x"}, ValueError),
        ({"n": "many", "shards": 2, "shard": 0, "batch": 4, "position": 8}, ValueError),
        ({"n": 21, "shards": 3, "shard": 0, "batch": 4, "position": 8, "rest": {}}, KeyError),
        (  # a remainder with no sample
            {"n": 21, "shards": 3, "shard": 0, "batch": 4, "position": 0,
             "rest": {"epoch": 0, "ranges": [[3, 3]]}},
            ValueError,
        ),
    ],
)  # fmt: skip
def test_malformed_states_are_errors(state, error):
    with pytest.raises(error):
        resume_stream(state, Layout(21, 2, 4), shard_id=0, shuffle=None)
