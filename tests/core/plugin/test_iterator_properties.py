"""Property tests of the iterator arithmetic over many configurations.

For (dataset size, batch size, shards, policy, ``pad_last_batch``, ``stick_to_shard``), one
iterator over one pipeline per shard runs several epochs, and so does one iterator per shard
(one pipeline per process). Checked for every epoch:

* ``len()`` is the number of batches the epoch yields (and ``size`` stays positive);
* each pipeline's batches are the reader's stream, batch by batch: FILL returns every batch,
  PARTIAL cuts the last one, DROP skips the one it throws away;
* no sample is lost or duplicated where the policy says so: PARTIAL with padding or
  ``stick_to_shard`` yields every sample exactly once per epoch, FILL with padding yields
  every shard (plus copies of its last sample), FILL without padding covers a whole shard
  more per epoch per pipeline, DROP yields whole batches of distinct samples;
* one pipeline per process gives the same columns and ``len()``.
"""

from __future__ import annotations

import pytest
from dali._ops.readers.loader.sharding import SampleStream, shard_range
from dali.plugin.base_iterator import LastBatchPolicy
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

hypothesis = pytest.importorskip("hypothesis")
st = pytest.importorskip("hypothesis.strategies")
given, settings = hypothesis.given, hypothesis.settings

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL
MAX_FILES = 23
EPOCHS = 4
R = "Reader"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("property_files"), MAX_FILES)


@st.composite
def reader_configs(draw):
    shards = draw(st.integers(1, 4))
    return {
        "n": draw(st.integers(shards, MAX_FILES)),
        "batch": draw(st.integers(1, 9)),
        "shards": shards,
        "policy": draw(st.sampled_from(list(LastBatchPolicy))),
        "pad": draw(st.booleans()),
        "stick": draw(st.booleans()),
    }


def run(it, epochs):
    """Per epoch: ``(size, len, columns)``, ``columns[j]`` = pipeline j's batches (labels)."""
    out = []
    for e in range(epochs):
        if e:
            it.reset()
        size, length = it.size, len(it)
        columns = [[] for _ in it._pipes]
        while (batch := step(it)) is not STOP:
            labels = labels_of(batch)
            # fewer dicts only in the legacy PARTIAL batch that ends the epoch
            assert 1 <= len(labels) <= len(columns)
            for column, values in zip(columns, labels):
                column.append(values)
        out.append((size, length, columns))
    return out


def make(files, cfg, shard_ids):
    pipes = [
        reader_pipeline(
            files[: cfg["n"]],
            cfg["batch"],
            shard_id=j,
            num_shards=cfg["shards"],
            pad_last_batch=cfg["pad"],
            stick_to_shard=cfg["stick"],
        )
        for j in shard_ids
    ]
    return NumpyIterator(pipes, ["label"], reader_name=R, last_batch_policy=cfg["policy"])


def stream_batches(cfg, shard_id, count):
    stream = SampleStream(
        cfg["n"],
        num_shards=cfg["shards"],
        shard_id=shard_id,
        batch_size=cfg["batch"],
        pad_last_batch=cfg["pad"],
        stick_to_shard=cfg["stick"],
    )
    b = cfg["batch"]
    return [stream.take(k * b, b)[0].tolist() for k in range(count)]


def shard_of(cfg, j, epoch):
    """The shard pipeline j reads in an epoch when every epoch is one whole shard visit."""
    return j if cfg["stick"] else (j + epoch) % cfg["shards"]


def shard_list(cfg, shard):
    begin, end = shard_range(shard, cfg["shards"], cfg["n"])
    return list(range(begin, end))


def check_stream(cfg, epochs):
    """Every pipeline's batches are its reader's stream: whole, cut (PARTIAL) or skipped (DROP)."""
    b = cfg["batch"]
    for j in range(cfg["shards"]):
        read = []  # (epoch, batch index in epoch) of every batch read from the pipeline
        for e, (size, length, _columns) in enumerate(epochs):
            reads = -(-size // b) if cfg["policy"] is DROP else length
            read += [(e, i) for i in range(reads)]
        expected = stream_batches(cfg, j, len(read))
        for (e, i), want in zip(read, expected):
            columns = epochs[e][2][j]
            if i >= len(columns):
                assert cfg["policy"] is DROP and i == len(columns)  # the batch thrown away
                continue
            got = columns[i]
            if cfg["policy"] is PARTIAL:
                assert got == want[: len(got)], (e, i)
            else:
                assert got == want, (e, i)


def check_samples(cfg, epochs):
    n, b, shards, policy = cfg["n"], cfg["batch"], cfg["shards"], cfg["policy"]
    total_read = 0
    for e, (size, length, columns) in enumerate(epochs):
        assert size > 0
        assert length >= 1
        for j, column in enumerate(columns):
            assert len(column) == length, f"epoch {e}: len() {length}, {len(column)} batches"
            flat = [v for batch in column for v in batch]
            if policy is not PARTIAL:
                assert all(len(batch) == b for batch in column)
            else:
                assert all(len(batch) == b for batch in column[:-1])
            shard = shard_list(cfg, shard_of(cfg, j, e))
            if policy is PARTIAL and (cfg["pad"] or cfg["stick"]):
                assert sorted(flat) == shard, f"epoch {e}, pipeline {j}"
            elif policy is PARTIAL:
                # as many distinct samples as the shard the pipeline is on (it wraps the dataset)
                assert len(flat) == len(shard) and len(set(flat)) == len(flat)
            elif policy is FILL and cfg["pad"]:
                assert sorted(set(flat)) == shard
                assert len(flat) - len(shard) == flat.count(shard[-1]) - 1  # only padding repeats
            elif policy is DROP:
                assert len(flat) == length * b <= n // shards
                if not cfg["pad"]:
                    assert len(set(flat)) == len(flat)
        if (policy is PARTIAL and (cfg["pad"] or cfg["stick"])) or (policy is FILL and cfg["pad"]):
            together = sorted({v for column in columns for batch in column for v in batch})
            assert together == list(range(n)), f"epoch {e}: some sample is missing"
        if policy is PARTIAL and not cfg["pad"] and not cfg["stick"]:
            assert sum(len(batch) for column in columns for batch in column) == n
        if policy is FILL and not cfg["pad"]:
            # every epoch completes at least one more whole shard visit of every reader
            total_read += length * b
            for j in range(shards):
                visits, done = 0, 0
                while done + len(shard_list(cfg, shard_of(cfg, j, visits))) <= total_read:
                    done += len(shard_list(cfg, shard_of(cfg, j, visits)))
                    visits += 1
                assert visits >= e + 1, f"epoch {e}, pipeline {j}: a shard is not covered"


@settings(max_examples=150, deadline=None, database=None)
@given(cfg=reader_configs())
def test_reader_iterator_properties(files, cfg):
    no_data = cfg["policy"] is DROP and cfg["batch"] > cfg["n"] // cfg["shards"]
    if no_data:
        with pytest.raises(RuntimeError, match="no data in the pipeline"):
            make(files, cfg, range(cfg["shards"]))
        return
    epochs = run(make(files, cfg, range(cfg["shards"])), EPOCHS)
    check_samples(cfg, epochs)
    check_stream(cfg, epochs)
    for j in range(cfg["shards"]):
        single = run(make(files, cfg, [j]), EPOCHS)
        assert [(s, n) for s, n, _ in single] == [(s, n) for s, n, _ in epochs]
        assert [c[0] for _, _, c in single] == [c[j] for _, _, c in epochs]


@settings(max_examples=60, deadline=None, database=None)
@given(
    n=st.integers(1, MAX_FILES),
    batch=st.integers(1, 6),
    pipelines=st.integers(1, 3),
    size=st.integers(1, 40),
    policy=st.sampled_from(list(LastBatchPolicy)),
)
def test_legacy_size_properties(files, n, batch, pipelines, size, policy):
    """Explicit ``size`` (no reader_name): counted over all pipelines together."""
    pipes = [reader_pipeline(files[:n], batch) for _ in range(pipelines)]
    per_step = pipelines * batch
    if policy is DROP and per_step > size:
        with pytest.warns(Warning), pytest.raises(RuntimeError, match="no data"):
            NumpyIterator(pipes, ["label"], size=size, last_batch_policy=policy)
        return
    with pytest.warns(Warning, match="reader_name"):
        it = NumpyIterator(pipes, ["label"], size=size, last_batch_policy=policy)
    epochs = run(it, EPOCHS)
    carried = 0
    for _, length, columns in epochs:
        samples = sum(len(b) for column in columns for b in column)
        batches = len(columns[0])
        if policy is PARTIAL:
            assert batches == length and samples == size  # exactly `size` samples
        elif policy is DROP:
            assert batches == length == size // per_step and samples == length * per_step
        else:
            # the overshoot of an epoch counts for the next one (modulo the size)
            assert batches <= length
            assert batches == -(-(size - carried) // per_step)
            carried = (carried + samples) % size
    if policy is FILL:
        # nothing is lost: every pipeline's batches are its reader's stream
        cfg = {"n": n, "batch": batch, "shards": 1, "pad": False, "stick": False}
        for j in range(pipelines):
            got = [b for _, _, cols in epochs for b in cols[j]]
            assert got == stream_batches(cfg, 0, len(got))


@settings(max_examples=40, deadline=None, database=None)
@given(cfg=reader_configs(), n_before=st.integers(0, 8), auto_reset=st.booleans())
def test_save_restore_properties(files, cfg, n_before, auto_reset):
    """A restored iterator continues exactly, wherever the checkpoint was taken."""
    if cfg["policy"] is DROP and cfg["batch"] > cfg["n"] // cfg["shards"]:
        return

    def make_iterator(checkpoints=None):
        pipes = [
            reader_pipeline(
                files[: cfg["n"]],
                cfg["batch"],
                shard_id=j,
                num_shards=cfg["shards"],
                pad_last_batch=cfg["pad"],
                stick_to_shard=cfg["stick"],
                enable_checkpointing=True,
                checkpoint=None if checkpoints is None else checkpoints[j],
            )
            for j in range(cfg["shards"])
        ]
        it = NumpyIterator(
            pipes, ["label"], reader_name=R, last_batch_policy=cfg["policy"], auto_reset=auto_reset
        )
        return it if auto_reset else ResetAfterStop(it)

    check_save_restore(make_iterator, n_before, 6)
