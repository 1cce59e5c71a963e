"""The shared iterator core, `dali.plugin.base_iterator`.

The data tables are the ones observed with real DALI 2.4: 21 files labelled 0..20, batch 8,
2 shards, one iterator over both pipelines ``[pipe0 | pipe1]``; one iterator per shard (one
pipeline per process) must give the same columns and the same ``len()``.
"""

from __future__ import annotations

import json
import logging
import warnings

import dali
import numpy as np
import pytest
from dali import fn
from dali.plugin import base_iterator
from dali.plugin.base_iterator import LastBatchPolicy, _DaliBaseIterator
from dali.testing import ResetAfterStop
from iterator_utils import (
    STOP,
    NumpyIterator,
    check_save_restore,
    labels_of,
    make_files,
    reader_pipeline,
    step,
)
from parity import to_device

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL
R = "Reader"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """21 tiny files; the reader labels them 0..20."""
    return make_files(tmp_path_factory.mktemp("iterator_files"), 21)


def shard_pipes(files, batch_size=8, num_shards=2, **kw):
    return [
        reader_pipeline(files, batch_size, shard_id=i, num_shards=num_shards, **kw)
        for i in range(num_shards)
    ]


def run_epochs(it, n_epochs):
    """``[(size, len, [[labels per pipeline] per batch])]``, one entry per epoch."""
    out = []
    for e in range(n_epochs):
        if e:
            it.reset()
        size, length = it.size, len(it)
        batches = []
        while (batch := step(it)) is not STOP:
            batches.append(labels_of(batch))
        out.append((size, length, batches))
    return out


def r(a, b):
    return list(range(a, b + 1))


def es_pipeline(source, batch_size=2, **kw):
    """A pipeline with one batch external source (``source(i)`` or an iterable)."""
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=1, device_id=None, **kw)
    with pipe:
        pipe.set_outputs(fn.external_source(source, batch=True))
    return pipe


def counting_source(n_batches, batch_size=2):
    """A source of ``n_batches`` batches (sample values = batch index), counting its calls."""
    calls = []

    def source(i):
        calls.append(i)
        if i >= n_batches:
            raise StopIteration
        return np.full((batch_size, 1), i, dtype=np.int32)

    return source, calls


# -- public surface ---------------------------------------------------------------------------


def test_public_module():
    assert base_iterator.__all__ == sorted(base_iterator.__all__)
    assert [(p.name, p.value) for p in LastBatchPolicy] == [
        ("FILL", 0),
        ("DROP", 1),
        ("PARTIAL", 2),
    ]
    assert issubclass(NumpyIterator, _DaliBaseIterator)


def test_base_class_needs_convert(files):
    with pytest.raises(NotImplementedError, match="_convert"):
        _DaliBaseIterator(reader_pipeline(files, 4), reader_name=R)


# -- constructor rules -----------------------------------------------------------


def test_wrong_policy_type(files):
    with pytest.raises(ValueError) as e:
        NumpyIterator(reader_pipeline(files, 4), ["label"], reader_name=R, last_batch_policy="FILL")
    assert str(e.value) == (
        "Wrong type for `last_batch_policy`. Expected <enum 'LastBatchPolicy'>, got <class 'str'>"
    )
    with pytest.raises(ValueError, match="Wrong type"):
        NumpyIterator(reader_pipeline(files, 4), ["label"], reader_name=R, last_batch_policy=0)


@pytest.mark.parametrize("value", [False, None, "no", True, "yes"])
def test_auto_reset_accepted(files, value):
    it = NumpyIterator(reader_pipeline(files, 4), ["label"], reader_name=R, auto_reset=value)
    assert it._auto_reset == ("yes" if value in (True, "yes") else "no")


@pytest.mark.parametrize("value", ["True", "False", 1, "auto"])
def test_auto_reset_rejected(files, value):
    with pytest.raises(ValueError, match="Unsupported value for `auto_reset`"):
        NumpyIterator(reader_pipeline(files, 4), ["label"], reader_name=R, auto_reset=value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 0}, "Size cannot be 0"),
        ({"reader_name": R, "size": 10}, "When reader_name is provided, size should not be set"),
        (
            {"reader_name": R, "last_batch_padded": True},
            "When reader_name is provided, last_batch_padded should not be set",
        ),
    ],
)
def test_assertions(files, kwargs, message):
    with pytest.raises(AssertionError) as e:
        NumpyIterator(reader_pipeline(files, 4), ["label"], **kwargs)
    assert str(e.value) == message


def test_negative_size_needs_one_pipeline(files):
    with pytest.raises(
        AssertionError, match="Negative size is supported only for a single pipeline"
    ):
        NumpyIterator(shard_pipes(files), ["label"])
    # with reader_name several pipelines are fine
    assert len(NumpyIterator(shard_pipes(files), ["label"], reader_name=R)) == 2


def test_batch_sizes_must_match(files):
    pipes = [reader_pipeline(files, 8), reader_pipeline(files, 4)]
    with pytest.raises(AssertionError, match="All pipelines should have the same batch size set"):
        NumpyIterator(pipes, ["label"], size=10)


def test_reader_meta_must_match(files):
    pipes = [
        reader_pipeline(files, 4, shard_id=0, num_shards=2),
        reader_pipeline(files, 4, shard_id=1, num_shards=3),
    ]
    with pytest.raises(AssertionError, match="same `num_shards` argument set in all the pipelines"):
        NumpyIterator(pipes, ["label"], reader_name=R)
    pipes = [
        reader_pipeline(files, 4, shard_id=0, num_shards=2, pad_last_batch=True),
        reader_pipeline(files, 4, shard_id=1, num_shards=2),
    ]
    with pytest.raises(AssertionError, match="same `pad_last_batch` argument set"):
        NumpyIterator(pipes, ["label"], reader_name=R)


def test_size_without_reader_warns(files):
    with pytest.warns(Warning, match="Please set `reader_name` and don't set last_batch_padded"):
        NumpyIterator(reader_pipeline(files, 4), ["label"], size=10)


def test_reader_name_does_not_warn(files):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NumpyIterator(shard_pipes(files), ["label"], reader_name=R)


@pytest.mark.parametrize(("fill", "trimmed"), [(True, False), (False, True)])
def test_fill_last_batch_is_deprecated(files, fill, trimmed):
    with pytest.warns(Warning, match="Please do not use `fill_last_batch`"):
        it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, fill_last_batch=fill)
    last = run_epochs(it, 1)[0][2][-1]
    assert (last == [[8, 9], [18, 19, 20]]) == trimmed
    assert it._last_batch_policy == (FILL if fill else PARTIAL)


def test_fewer_files_than_shards_is_a_build_error(files):
    # the pipelines are built in the constructor, even without prepare_first_batch
    pipes = shard_pipes(files[:2], batch_size=1, num_shards=3)
    with pytest.raises(Exception, match="num_shards"):
        NumpyIterator(pipes, ["label"], reader_name=R, prepare_first_batch=False)


@pytest.mark.parametrize(("n", "batch", "shards"), [(7, 8, 1), (21, 11, 2)])
def test_drop_with_batch_larger_than_shard_has_no_data(files, n, batch, shards):
    pipes = shard_pipes(files[:n], batch_size=batch, num_shards=shards)
    with pytest.raises(RuntimeError) as e:
        NumpyIterator(pipes, ["label"], reader_name=R, last_batch_policy=DROP)
    assert str(e.value) == (
        "It seems that there is no data in the pipeline. This may happen if last_batch_policy "
        "is set to PARTIAL and the requested batch size is greater than the shard size."
    )


def test_iterator_over_a_pipeline_used_with_run(files):
    # the iterator drives its pipelines inside `_check_api_type_scope`: no API-mixing error
    pipe = reader_pipeline(files, 4)
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 1, 2, 3]
    it = NumpyIterator(pipe, ["label"], reader_name=R)
    assert labels_of(next(it)) == [[4, 5, 6, 7]]


# -- size and len ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "pad", "size", "length"),
    [
        (FILL, False, 16, 2),
        (FILL, True, 11, 2),
        (DROP, False, 10, 1),
        (DROP, True, 10, 1),
        (PARTIAL, False, 16, 2),
        (PARTIAL, True, 11, 2),
    ],
)
def test_size_and_len_table(files, policy, pad, size, length):
    multi = NumpyIterator(
        shard_pipes(files, pad_last_batch=pad), ["label"], reader_name=R, last_batch_policy=policy
    )
    assert (multi.size, len(multi)) == (size, length)
    for shard in range(2):
        pipe = reader_pipeline(files, 8, shard_id=shard, num_shards=2, pad_last_batch=pad)
        single = NumpyIterator(pipe, ["label"], reader_name=R, last_batch_policy=policy)
        assert (single.size, len(single)) == (size, length)


def test_len_without_reader(files):
    source, _ = counting_source(3)
    assert len(NumpyIterator(es_pipeline(source), ["x"])) == 0  # size -1
    pipes = [reader_pipeline(files, 4), reader_pipeline(files, 4)]
    with pytest.warns(Warning, match="reader_name"):
        it = NumpyIterator(pipes, ["label"], size=20)
    assert len(it) == 3  # ceil(20 / (2·4))
    pipes = [reader_pipeline(files, 4), reader_pipeline(files, 4)]
    with pytest.warns(Warning, match="reader_name"):
        it = NumpyIterator(pipes, ["label"], size=20, last_batch_policy=DROP)
    assert len(it) == 2


# -- observed data per epoch -----------------------------------------------------------

TABLES = {
    # (policy, pad, stick): [(size, len, batches)] per epoch
    (FILL, False, False): [
        (16, 2, [[r(0, 7), r(10, 17)], [r(8, 15), [18, 19, 20, *r(0, 4)]]]),
        (8, 1, [[[*r(16, 20), 0, 1, 2], r(5, 12)]]),
        (8, 1, [[r(3, 10), r(13, 20)]]),
        (16, 2, None),
    ],
    (FILL, True, False): [
        (11, 2, [[r(0, 7), r(10, 17)], [[8] + [9] * 7, [18, 19] + [20] * 6]]),
        (11, 2, [[r(10, 17), r(0, 7)], [[18, 19] + [20] * 6, [8] + [9] * 7]]),
        (11, 2, [[r(0, 7), r(10, 17)], [[8] + [9] * 7, [18, 19] + [20] * 6]]),
    ],
    (DROP, False, False): [
        (10, 1, [[r(0, 7), r(10, 17)]]),
        (10, 1, [[[*r(16, 20), 0, 1, 2], r(5, 12)]]),
        (10, 1, [[r(11, 18), r(0, 7)]]),
    ],
    (DROP, True, False): [
        (10, 1, [[r(0, 7), r(10, 17)]]),
        (10, 1, [[r(10, 17), r(0, 7)]]),
        (10, 1, [[r(0, 7), r(10, 17)]]),
    ],
    (PARTIAL, False, False): [
        (16, 2, [[r(0, 7), r(10, 17)], [[8, 9], [18, 19, 20]]]),
        (16, 2, [[[*r(16, 20), 0, 1, 2], r(5, 12)], [[3, 4, 5], [13, 14]]]),
        (16, 2, [[r(11, 18), r(0, 7)], [[19, 20], [8, 9, 10]]]),
    ],
    (PARTIAL, True, False): [
        (11, 2, [[r(0, 7), r(10, 17)], [[8, 9], [18, 19, 20]]]),
        (11, 2, [[r(10, 17), r(0, 7)], [[18, 19, 20], [8, 9]]]),
    ],
    (FILL, False, True): [
        (16, 2, [[r(0, 7), r(10, 17)], [[8, 9, *r(0, 5)], [18, 19, 20, *r(10, 14)]]]),
        (8, 1, [[[6, 7, 8, 9, 0, 1, 2, 3], [*r(15, 20), 10, 11]]]),
        (16, 2, [[[*r(4, 9), 0, 1], r(12, 19)], [r(2, 9), [20, *r(10, 16)]]]),
        (8, 1, None),
    ],
    (FILL, True, True): [
        (11, 2, [[r(0, 7), r(10, 17)], [[8] + [9] * 7, [18, 19] + [20] * 6]]),
        (11, 2, [[r(0, 7), r(10, 17)], [[8] + [9] * 7, [18, 19] + [20] * 6]]),
        (11, 2, [[r(0, 7), r(10, 17)], [[8] + [9] * 7, [18, 19] + [20] * 6]]),
    ],
}


def check_table(observed, table):
    assert [(s, n) for s, n, _ in observed] == [(s, n) for s, n, _ in table]
    for e, ((_, _, got), (_, _, want)) in enumerate(zip(observed, table)):
        if want is not None:
            assert got == want, f"epoch {e}"
        assert len(got) == observed[e][1], f"epoch {e}: len() does not match the batches"


@pytest.mark.parametrize(("policy", "pad", "stick"), list(TABLES))
def test_observed_epochs_one_iterator_over_two_pipelines(files, policy, pad, stick):
    pipes = shard_pipes(files, pad_last_batch=pad, stick_to_shard=stick)
    it = NumpyIterator(pipes, ["label"], reader_name=R, last_batch_policy=policy)
    table = TABLES[policy, pad, stick]
    check_table(run_epochs(it, len(table)), table)


@pytest.mark.parametrize(("policy", "pad", "stick"), list(TABLES))
def test_observed_epochs_one_pipeline_per_process(files, policy, pad, stick):
    table = TABLES[policy, pad, stick]
    for shard in range(2):
        pipe = reader_pipeline(
            files, 8, shard_id=shard, num_shards=2, pad_last_batch=pad, stick_to_shard=stick
        )
        it = NumpyIterator(pipe, ["label"], reader_name=R, last_batch_policy=policy)
        column = [
            (s, n, None if batches is None else [[b[shard]] for b in batches])
            for s, n, batches in table
        ]
        check_table(run_epochs(it, len(table)), column)


@pytest.mark.parametrize(
    ("policy", "pad", "last", "next_first"),
    [
        (PARTIAL, True, [7], [1, 2]),
        (PARTIAL, False, [7], [2, 3]),
        (FILL, True, [7, 7], [1, 2]),
        (FILL, False, [7, 1], [2, 3]),
        (DROP, True, [5, 6], [1, 2]),
        (DROP, False, [5, 6], [2, 3]),
    ],
)
def test_documented_example(files, policy, pad, last, next_first):
    """LastBatchPolicy's docstring: the dataset [1..7] (labels 0..6, + 1) with batch 2."""
    pipe = reader_pipeline(files[:7], 2, pad_last_batch=pad)
    it = NumpyIterator(pipe, ["label"], reader_name=R, last_batch_policy=policy)
    (_, _, epoch0), (_, _, epoch1) = run_epochs(it, 2)
    assert [v + 1 for v in epoch0[-1][0]] == last
    assert [v + 1 for v in epoch1[0][0]] == next_first


@pytest.mark.parametrize(("policy", "length"), [(FILL, 3), (DROP, 2)])
def test_legacy_size(files, policy, length):
    with pytest.warns(Warning, match="reader_name"):
        it = NumpyIterator(reader_pipeline(files, 4), ["label"], size=10, last_batch_policy=policy)
    assert len(it) == length
    epochs = run_epochs(it, 2)
    if policy is FILL:
        assert epochs[0][2] == [[r(0, 3)], [r(4, 7)], [r(8, 11)]]
        assert epochs[1][2] == [[r(12, 15)], [r(16, 19)]]  # the counter became 12 % 10 = 2
    else:
        assert epochs[0][2] == [[r(0, 3)], [r(4, 7)]]  # [8..11] was read and thrown away
        assert epochs[1][2] == [[r(12, 15)], [r(16, 19)]]


def test_legacy_partial_takes_whole_pipelines_first(files):
    pipes = [reader_pipeline(files, 4), reader_pipeline(files, 4)]
    with pytest.warns(Warning):
        it = NumpyIterator(pipes, ["label"], size=10, last_batch_policy=PARTIAL)
    (_, length, batches), (_, _, next_epoch) = run_epochs(it, 2)
    assert length == 2
    # 8 samples, then exactly 2 more: only pipeline 0's dict comes back, cut to 2 samples
    assert batches == [[r(0, 3), r(0, 3)], [[4, 5]]]
    assert next_epoch[0] == [r(8, 11), r(8, 11)]


def test_legacy_partial_cuts_inside_the_last_pipeline(files):
    pipes = [reader_pipeline(files, 4) for _ in range(3)]
    with pytest.warns(Warning):
        it = NumpyIterator(pipes, ["label"], size=18, last_batch_policy=PARTIAL)
    _, _, batches = run_epochs(it, 1)[0]
    assert [len(b) for b in batches[-1]] == [4, 2]  # 12 + 4 + 2 = 18


def test_partial_batches_differ_per_pipeline(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, last_batch_policy=PARTIAL)
    next(it)
    last = next(it)
    assert [b["label"].shape for b in last] == [(2, 1), (3, 1)]
    assert last[0]["label"].dtype == np.int32


@pytest.mark.gpu
@pytest.mark.parametrize("policy", [FILL, DROP, PARTIAL])
def test_gpu_outputs_match_cpu(files, policy):
    """The same epochs whether the pipelines give CPU or GPU batches (the core is device-blind)."""
    pytest.importorskip("cupy")

    def epochs(device):
        pipes = []
        for shard in range(2):
            pipe = dali.Pipeline(batch_size=8, num_threads=1, device_id=0)
            with pipe:
                _, labels = fn.readers.file(
                    files=files, labels=list(range(21)), shard_id=shard, num_shards=2, name=R
                )
                pipe.set_outputs(to_device(labels, device))
            pipes.append(pipe)
        it = NumpyIterator(pipes, ["label"], reader_name=R, last_batch_policy=policy)
        return run_epochs(it, 3)

    assert epochs("gpu") == epochs("cpu")


# -- the per-batch step, epochs and reset ----------------------------------------


def test_stop_comes_at_the_call_after_the_size(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    next(it), next(it)
    assert it._counter >= it.size
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):  # stays ended until reset
        next(it)


def test_drop_reset_reads_and_throws_away_the_pending_batch(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, last_batch_policy=DROP)
    assert len(it) == 1
    assert labels_of(next(it)) == [r(0, 7), r(10, 17)]
    it.reset()  # without having seen StopIteration
    assert labels_of(next(it)) == [[*r(16, 20), 0, 1, 2], r(5, 12)]


def test_reset_before_the_end_is_ignored_with_a_warning(files, caplog):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    next(it)
    with caplog.at_level(logging.WARNING):
        it.reset()
    assert (
        "DALI iterator does not support resetting while epoch is not finished. Ignoring..."
        in caplog.text
    )
    assert labels_of(next(it)) == [r(8, 15), [18, 19, 20, *r(0, 4)]]


def test_for_loops_reset_through_iter(files, caplog):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    assert iter(it) is it
    assert [labels_of(b)[0][0] for b in it] == [0, 8]
    assert [labels_of(b)[0][0] for b in it] == [16]  # iter() reset it: epoch 1 has 1 batch
    # the common "for; reset(); for" resets twice: the second reset only logs a warning
    it.reset()
    with caplog.at_level(logging.WARNING):
        assert [labels_of(b)[0][0] for b in it] == [3]
    assert "does not support resetting while epoch is not finished" in caplog.text


def test_iter_on_a_fresh_iterator_does_not_reset(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    iter(it)
    assert labels_of(next(it)) == [r(0, 7), r(10, 17)]


def test_auto_reset_with_a_reader(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, auto_reset=True)
    assert [labels_of(b)[0][0] for b in it] == [0, 8]
    assert (it.size, len(it)) == (8, 1)  # reset already happened, before StopIteration
    assert [labels_of(b)[0][0] for b in it] == [16]
    assert [labels_of(b)[0][0] for b in it] == [3]


def test_external_source_ends_the_epoch(files):
    source, _ = counting_source(3)
    it = NumpyIterator(es_pipeline(source), ["x"])
    epoch = [b[0]["x"].ravel().tolist() for b in it]
    assert epoch == [[0, 0], [1, 1], [2, 2]]
    with pytest.raises(StopIteration):
        next(it)
    it.reset()
    assert [b[0]["x"].ravel().tolist() for b in it] == epoch


def test_external_source_with_auto_reset(files):
    source, _ = counting_source(3)
    it = NumpyIterator(es_pipeline(source), ["x"], auto_reset="yes")
    first = [b[0]["x"].ravel().tolist() for b in it]
    second = [b[0]["x"].ravel().tolist() for b in it]
    assert first == second == [[0, 0], [1, 1], [2, 2]]


def test_negative_size_forces_fill(files):
    # DROP would end every batch with size -1: the policy becomes FILL, padding off
    source, _ = counting_source(3)
    it = NumpyIterator(es_pipeline(source), ["x"], last_batch_policy=DROP, last_batch_padded=True)
    assert (it._last_batch_policy, it._last_batch_padded) == (FILL, False)
    assert len([b for b in it]) == 3


def test_prepare_first_batch(files):
    source, calls = counting_source(5)
    it = NumpyIterator(es_pipeline(source), ["x"], prepare_first_batch=False)
    assert calls == []  # nothing is scheduled until the first next()
    assert next(it)[0]["x"].ravel().tolist() == [0, 0]
    assert calls  # scheduled now

    source, calls = counting_source(5)
    it = NumpyIterator(es_pipeline(source), ["x"])
    assert calls[:2] == [0, 1]  # prefetch_queue_depth batches, and one more after converting
    assert it._ever_consumed is False
    assert next(it)[0]["x"].ravel().tolist() == [0, 0]
    assert it._ever_consumed is True


def test_variable_batch_size_with_explicit_size():
    def source(i):
        return np.zeros((1 if i == 1 else 2, 1), dtype=np.int32)

    with pytest.warns(Warning):
        it = NumpyIterator(es_pipeline(source), ["x"], size=10)
    with pytest.raises(AssertionError, match="Variable batch size is not supported"):
        next(it), next(it)


def test_variable_batch_size_without_size_is_fine():
    def source(i):
        if i >= 2:
            raise StopIteration
        return np.zeros((1 if i == 1 else 2, 1), dtype=np.int32)

    it = NumpyIterator(es_pipeline(source), ["x"])
    assert [b[0]["x"].shape[0] for b in it] == [2, 1]


def test_trim_needs_a_hook_for_other_batch_shapes(files):
    class TupleIterator(_DaliBaseIterator):
        def _convert(self, outputs):
            return tuple(np.asarray(o[0].as_tensor()) for o in outputs)

    with pytest.raises(NotImplementedError, match="implement `_trim"):
        it = TupleIterator(shard_pipes(files), reader_name=R, last_batch_policy=PARTIAL)
        next(it), next(it)


# -- state and checkpoints ---------------------------------------------------------------


def test_iterator_state_is_small_json(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    initial = {
        "_counter": 0,
        "_counter_per_gpu": [0, 0],
        "_shard_sizes_per_gpu": [10, 11],
        "_shards_id": [0, 1],
        "_size": 16,
    }
    assert it.iterator_state() == initial  # prepare_first_batch does not shift it
    for _ in range(2):
        next(it)
    it.reset()
    state = it.iterator_state()
    assert json.loads(json.dumps(state)) == state
    assert state == {
        "_counter": 5,
        "_counter_per_gpu": [6, 5],
        "_shard_sizes_per_gpu": [11, 10],
        "_shards_id": [1, 0],
        "_size": 8,
    }


def test_iterator_state_without_reader(files):
    with pytest.warns(Warning):
        it = NumpyIterator(reader_pipeline(files, 4), ["label"], size=10)
    next(it), next(it)
    assert it.iterator_state() == {"_counter": 8, "_size": 10}


def test_load_iterator_state_round_trip(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    run_epochs(it, 2)
    it.reset()
    fresh = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, prepare_first_batch=False)
    fresh.load_iterator_state(it.iterator_state())
    assert fresh.iterator_state() == it.iterator_state()
    assert (fresh.size, len(fresh)) == (it.size, len(it)) == (8, 1)


def test_load_iterator_state_rejects_a_mismatch(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R, prepare_first_batch=False)
    with pytest.raises(ValueError, match=r"missing fields \['_counter_per_gpu'"):
        it.load_iterator_state({"_counter": 8, "_size": 10})
    state = it.iterator_state()
    with pytest.raises(ValueError, match="`_shards_id` has 3 entries, this iterator needs 2"):
        it.load_iterator_state({**state, "_shards_id": [0, 1, 2]})
    prepared = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    with pytest.raises(RuntimeError, match="prepare_first_batch=False"):
        prepared.load_iterator_state(state)


def test_checkpoints_disabled(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    with pytest.raises(ValueError) as e:
        it.checkpoints()
    assert str(e.value) == "Cannot access checkpoints with checkpointing disabled"


def test_checkpointing_must_agree(files):
    pipes = [
        reader_pipeline(files, 8, shard_id=0, num_shards=2, enable_checkpointing=True),
        reader_pipeline(files, 8, shard_id=1, num_shards=2),
    ]
    with pytest.raises(ValueError, match="same value for `enable_checkpointing`"):
        NumpyIterator(pipes, ["label"], reader_name=R)


def replay_factory(files, policy=FILL, auto_reset=False, **kw):
    def make(checkpoints=None):
        pipes = [
            reader_pipeline(
                files,
                8,
                shard_id=i,
                num_shards=2,
                enable_checkpointing=True,
                checkpoint=None if checkpoints is None else checkpoints[i],
                **kw,
            )
            for i in range(2)
        ]
        return NumpyIterator(
            pipes, ["label"], reader_name=R, last_batch_policy=policy, auto_reset=auto_reset
        )

    return make


@pytest.mark.parametrize("n_before", [0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("policy", [FILL, DROP, PARTIAL])
@pytest.mark.parametrize(("auto_reset", "pad"), [(True, False), (False, False), (True, True)])
def test_save_restore(files, policy, n_before, auto_reset, pad):
    make = replay_factory(files, policy, auto_reset=auto_reset, pad_last_batch=pad)
    if auto_reset:
        check_save_restore(make, n_before, 6)
        return

    # without auto_reset, reset() after each StopIteration, on both iterators alike
    check_save_restore(lambda **kw: ResetAfterStop(make(**kw)), n_before, 6)


def test_save_restore_across_epochs_as_observed(files):
    # DALI: with auto_reset, calls across an epoch end (batches and StopIteration),
    # checkpoint, and the next 6 results equal those of the restored iterator
    make = replay_factory(files, FILL, auto_reset=True)
    it = make()
    results = [step(it) for _ in range(7)]
    # epochs of 2, 1, 1, 2 batches at batch 8
    assert [x is STOP for x in results] == [False, False, True, False, True, False, True]
    check_save_restore(make, 7, 6)


def test_save_restore_at_the_end_of_an_epoch(files):
    # a restored pipeline with nothing left in the epoch is not "no data in the pipeline"
    make = replay_factory(files, FILL, pad_last_batch=True)
    it = make()
    next(it), next(it)
    cps = it.checkpoints()
    restored = make(checkpoints=cps)
    assert step(restored) is STOP
    restored.reset()
    assert labels_of(next(restored)) == [r(10, 17), r(0, 7)]


def test_reset_after_restoring_at_a_drop_epoch_end(files):
    make = replay_factory(files, DROP)
    it = make()
    next(it)  # the only batch of the epoch
    restored = make(checkpoints=it.checkpoints())  # prepares, and throws away, batch 2
    restored.reset()  # the owed StopIteration is passed over
    assert labels_of(next(restored)) == [[*r(16, 20), 0, 1, 2], r(5, 12)]


def test_initial_checkpoints_do_not_move(files):
    make = replay_factory(files)
    it = make()
    assert [json.loads(c)["iter"] for c in it.checkpoints()] == [0, 0]
    next(it)
    assert [json.loads(c)["iter"] for c in it.checkpoints()] == [1, 1]
    data = json.loads(json.loads(it.checkpoints()[0])["iterator_data"])
    assert data["_counter"] == 8


def test_restore_from_some_pipelines_warns(files, caplog):
    it = replay_factory(files)()
    next(it)
    cps = it.checkpoints()
    pipes = [
        reader_pipeline(
            files,
            8,
            shard_id=i,
            num_shards=2,
            enable_checkpointing=True,
            checkpoint=cps[0] if i == 0 else None,
        )
        for i in range(2)
    ]
    with caplog.at_level(logging.WARNING):
        NumpyIterator(pipes, ["label"], reader_name=R)
    assert "Some, but not all of the pipelines used were restored from checkpoint" in caplog.text


def test_restore_without_iterator_data_warns(files, caplog):
    # a pipeline's own checkpoint (no iterator around it) after one batch
    saved = reader_pipeline(files, 8, enable_checkpointing=True)
    saved.run()
    cp = saved.checkpoint()
    pipe = reader_pipeline(files, 8, enable_checkpointing=True, checkpoint=cp)
    with caplog.at_level(logging.WARNING):
        it = NumpyIterator(pipe, ["label"], reader_name=R)
    assert "Iterator data was not saved in the checkpoint" in caplog.text
    assert labels_of(next(it)) == [r(8, 15)]


# -- state_dict / load_state_dict: the checkpoints as one JSON-able dict (beyond DALI) ---------


def test_state_dict_round_trip_in_place(files, caplog):
    saved = replay_factory(files, auto_reset=True)()  # one batch per epoch
    [labels_of(b) for b in saved]
    next(saved)
    state = saved.state_dict()
    assert state["format"] == "dali.iterator" and state["version"] == 1
    assert json.loads(json.dumps(state)) == state  # plain JSON: torch.save / json.dump keep it
    expected = [[labels_of(b) for b in saved] for _ in range(3)]

    fresh = replay_factory(files, auto_reset=True)()
    next(fresh)  # any position: load_state_dict restores in place
    fresh.load_state_dict(state)
    assert [[labels_of(b) for b in fresh] for _ in range(3)] == expected

    # restored mid-epoch, `for` continues the epoch without trying (and refusing) a reset
    mid = replay_factory(files, policy=PARTIAL, auto_reset=True)
    saved = mid()
    next(saved)
    state = saved.state_dict()
    rest = [labels_of(b) for b in saved]
    restored = mid()
    restored.load_state_dict(state)
    caplog.clear()  # (the saved iterator's own `for` above warned, as DALI's does)
    with caplog.at_level(logging.WARNING):
        assert [labels_of(b) for b in restored] == rest and rest
    assert "does not support resetting" not in caplog.text


def test_state_dict_needs_checkpointing(files):
    it = NumpyIterator(shard_pipes(files), ["label"], reader_name=R)
    with pytest.raises(ValueError, match="enable_checkpointing=True"):
        it.state_dict()


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"_counter": 0, "_size": 16}, "expected the dict that state_dict"),
        ([b"{}"], "got list"),
        ({"format": "dali.iterator", "version": 7, "checkpoints": []}, "version 7"),
        ({"format": "dali.iterator", "version": 1, "checkpoints": "{}"}, "list of checkpoint"),
    ],
)
def test_load_state_dict_rejects_other_dicts(files, state, message):
    it = replay_factory(files)()
    with pytest.raises(ValueError, match=message):
        it.load_state_dict(state)
