"""Checkpoints of the JAX iterators: save, restore, go on exactly.

Every iterator here reads ``N = 29`` tiny files whose labels are their indices (a label names
its sample) and draws one ``fn.random.uniform`` value per sample, so a restore must bring back
the RNG state as well as the reader position. 29 files make uneven shards (7, 7, 7, 8 on four
devices): FILL without padding carries samples over into the next epoch, DROP throws a batch
away, and epochs differ in length.

* `DALIGenericIterator` over one pipeline and over four pipelines laid out by a
  ``NamedSharding`` on the four fake CPU devices: `dali.testing.check_save_restore` at >= 20
  cut points spanning 3 epochs (every epoch end included), FILL and DROP, ``auto_reset=True``.
  The JAX iterator refuses PARTIAL, so PARTIAL is tested only as that refusal.
* `data_iterator(sharding=...)`: the same round trip through ``checkpoints=`` at call time.
* Elastic restore (the rule in `dali.plugin.base_iterator`'s docstring): checkpoints of four
  devices restored onto two and onto one, FILL with ``pad_last_batch=True`` (PARTIAL being
  refused): the interrupted epoch delivers every sample once, padding aside, then the new
  layout's epochs follow.
* ``checkpoints()`` and ``checkpoints=`` without ``enable_checkpointing``.

`data_iterator` offers no peekable iterator (it lives in ``dali.plugin.jax.clu``,
which this repository does not ship), so ``peek`` while a checkpoint is taken is not tested.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from dali import fn, pipeline_def
from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax import DALIGenericIterator, data_iterator
from dali.testing import STOP, assert_same_batches, check_save_restore, step
from iterator_utils import make_files
from jax.sharding import Mesh, NamedSharding, PartitionSpec

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL

N = 29
READER = "reader"
OUTPUTS = ["labels", "random"]
SEED = 1234
#: Cut points per round-trip test: every epoch end, and random steps for the rest.
CUTS = 20


@pytest.fixture(scope="module")
def label_files(tmp_path_factory):
    """``N`` tiny files; the reader gives file ``i`` the label ``i``."""
    return make_files(tmp_path_factory.mktemp("checkpoint_files"), N)


def _graph(files, *, pad=False, shuffle=False):
    """The graph function of every iterator here: the labels and a random value per sample."""

    def iterator_fn(num_shards=1, shard_id=0):
        _, labels = fn.readers.file(
            files=files,
            labels=list(range(len(files))),
            name=READER,
            num_shards=num_shards,
            shard_id=shard_id,
            pad_last_batch=pad,
            random_shuffle=shuffle,
        )
        return labels, fn.random.uniform(range=[0.0, 1.0])

    return iterator_fn


def _batch_sharding(devices):
    return NamedSharding(Mesh(np.array(devices), ("batch",)), PartitionSpec("batch"))


# -- the round trip at many cut points ---------------------------------------------------------


def _cut_points(make_iterator, seed, epochs=3):
    """Where to save: ``CUTS`` steps of the first ``epochs`` epochs, each epoch's end (saved
    before the step that raises StopIteration, and after it) and random others.

    Returns:
        The sorted steps, and the steps of the longest epoch (StopIteration included).
    """
    it = make_iterator()
    stops = []
    for n in range(1000):
        if step(it) is STOP:
            stops.append(n)
            if len(stops) == epochs:
                break
    assert len(stops) == epochs, f"{len(stops)} epoch ends in 1000 steps"
    span = stops[-1] + 1
    cuts = set(stops) | {s + 1 for s in stops}
    others = [n for n in range(span + 1) if n not in cuts]
    cuts |= set(random.Random(seed).sample(others, CUTS - len(cuts)))
    longest = max(b - a for a, b in zip([-1, *stops], stops))
    return sorted(cuts), longest


def _check_round_trips(make_iterator, seed):
    """`check_save_restore` at every cut point; each restored run crosses an epoch end.

    Returns:
        The cut points, and the checkpoints of the last one.
    """
    cuts, epoch_steps = _cut_points(make_iterator, seed)
    cps = None
    for n_before in cuts:
        try:
            cps = check_save_restore(make_iterator, n_before, epoch_steps + 2, to_numpy=np.asarray)
        except AssertionError as e:
            raise AssertionError(f"saved after {n_before} steps: {e}") from e
    return cuts, cps


@pytest.mark.parametrize(
    ("n_pipes", "policy", "shuffle"),
    [
        pytest.param(1, FILL, False, id="one-pipeline-FILL"),
        pytest.param(1, DROP, False, id="one-pipeline-DROP"),
        pytest.param(1, FILL, True, id="one-pipeline-FILL-random_shuffle"),
        pytest.param(1, DROP, True, id="one-pipeline-DROP-random_shuffle"),
        pytest.param(4, FILL, False, id="4-sharded-pipelines-FILL"),
        pytest.param(4, DROP, False, id="4-sharded-pipelines-DROP"),
        pytest.param(4, FILL, True, id="4-sharded-pipelines-FILL-random_shuffle"),
    ],
)
def test_generic_iterator_round_trip(label_files, cpu_devices, n_pipes, policy, shuffle):
    # batch 4 over one pipeline, 1 per device over four: 8 or 9 steps per epoch
    batch = 4 // n_pipes
    make_pipe = pipeline_def(
        _graph(label_files, shuffle=shuffle),
        batch_size=batch,
        num_threads=1,
        device_id=None,
        seed=SEED,
        enable_checkpointing=True,
    )
    sharding = _batch_sharding(cpu_devices) if n_pipes > 1 else None

    def make(checkpoints=None):
        pipes = [
            make_pipe(
                num_shards=n_pipes,
                shard_id=k,
                checkpoint=None if checkpoints is None else checkpoints[k],
            )
            for k in range(n_pipes)
        ]
        return DALIGenericIterator(
            pipes if sharding is not None else pipes[0],
            OUTPUTS,
            reader_name=READER,
            auto_reset=True,
            last_batch_policy=policy,
            sharding=sharding,
        )

    cuts, cps = _check_round_trips(make, seed=n_pipes * 10 + policy.value)
    assert len(cuts) >= CUTS
    assert len(cps) == n_pipes and all(isinstance(c, bytes) for c in cps)


def test_partial_is_refused_with_sharding_and_padding(label_files, cpu_devices):
    # DALI: no PARTIAL in the JAX iterator, hence FILL (and DROP) everywhere here
    iterator_fn = data_iterator(
        _graph(label_files, pad=True),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=_batch_sharding(cpu_devices),
        last_batch_policy=PARTIAL,
    )
    with pytest.raises(
        AssertionError, match=re.escape("JAX iterator does not support partial last batch policy.")
    ):
        iterator_fn(batch_size=8, num_threads=1, enable_checkpointing=True)


# -- data_iterator: checkpoints= at call time ---------------------------------------------------


def _sharded_iterator_fn(files, devices, policy=FILL, pad=False):
    return data_iterator(
        _graph(files, pad=pad),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=_batch_sharding(devices),
        auto_reset=True,
        last_batch_policy=policy,
    )


def test_data_iterator_round_trip(label_files, cpu_devices):
    # FILL only: DROP is the same base iterator code, covered by DALIGenericIterator above,
    # and every data_iterator pipeline starts its own file-reading process (a slow build)
    iterator_fn = _sharded_iterator_fn(label_files, cpu_devices)

    def make(checkpoints=None):
        return iterator_fn(
            batch_size=4,
            num_threads=1,
            seed=SEED,
            enable_checkpointing=True,
            checkpoints=checkpoints,
        )

    cuts, cps = _check_round_trips(make, seed=100)
    assert len(cuts) >= CUTS
    assert len(cps) == 4  # one per device


def test_data_iterator_restore_keeps_the_sharding_and_the_saved_seed(label_files, cpu_devices):
    sharding = _batch_sharding(cpu_devices)
    iterator_fn = _sharded_iterator_fn(label_files, cpu_devices)
    it = iterator_fn(batch_size=4, num_threads=1, seed=SEED, enable_checkpointing=True)
    for _ in range(5):
        next(it)
    cps = it.checkpoints()
    expected = [next(it) for _ in range(3)]
    # DALI: the checkpoint's seed wins over the seed given at restore
    restored = iterator_fn(
        batch_size=4, num_threads=1, seed=SEED + 1, enable_checkpointing=True, checkpoints=cps
    )
    assert all(p.is_restored_from_checkpoint for p in restored._pipes)
    for want in expected:
        got = next(restored)
        assert got["labels"].sharding == sharding and got["random"].sharding == sharding
        assert_same_batches(want, got)
    # the other seed does give other values: the test above can tell the seeds apart
    other = iterator_fn(batch_size=4, num_threads=1, seed=SEED + 1, enable_checkpointing=True)
    for _ in range(5):
        next(other)
    assert not np.array_equal(np.asarray(next(other)["random"]), np.asarray(expected[0]["random"]))


# -- elastic restore through data_iterator ------------------------------------------------------

#: The global batch: 2 samples per device on four devices (4 batches an epoch), 4 on two, 8 on
#: one.
ELASTIC_BATCH = 8
#: Save points: every step of the first two epochs of four devices (5 steps each with
#: StopIteration), so mid-epoch, before and after each epoch end.
ELASTIC_CUTS = range(11)


def _epochs(results):
    """Step results split at each StopIteration: one list of batches per epoch."""
    out = [[]]
    for r in results:
        if r is STOP:
            out.append([])
        else:
            out[-1].append(r)
    return out


def _run_epochs(it, epochs):
    """Steps until ``epochs`` StopIterations; the batches of each of these epochs."""
    results = []
    for _ in range(200):
        results.append(step(it))
        if sum(r is STOP for r in results) == epochs:
            return _epochs(results)[:epochs]
    raise AssertionError(f"fewer than {epochs} epoch ends in 200 steps")


def _streams(batches, n_blocks):
    """What each block of the batch axis (one per device) got: ``[(label, value), ...]``."""
    streams = [[] for _ in range(n_blocks)]
    for b in batches:
        labels = np.asarray(b["labels"]).reshape(n_blocks, -1).tolist()
        values = np.asarray(b["random"]).reshape(n_blocks, -1).tolist()
        for k in range(n_blocks):
            streams[k] += zip(labels[k], values[k])
    return streams


def _unpadded(stream):
    """A stream without its padding, the repeats of its last sample at its end."""
    end = len(stream)
    while end > 1 and stream[end - 1][0] == stream[end - 2][0]:
        end -= 1
    return stream[:end]


def _labels(streams):
    return [label for s in streams for label, _ in s]


def _values_per_epoch(epochs, n_blocks):
    """``{label: value}`` per epoch; padding must repeat its sample's value too."""
    out = []
    for batches in epochs:
        values = {}
        for label, value in [x for s in _streams(batches, n_blocks) for x in s]:
            assert values.setdefault(label, value) == value, f"label {label}: two values"
        assert sorted(values) == list(range(N))
        out.append(values)
    return out


@pytest.mark.parametrize("n_devices", [2, 1])
def test_elastic_restore_onto_fewer_devices(label_files, cpu_devices, n_devices):
    """FILL with ``pad_last_batch=True`` (the JAX iterator has no PARTIAL): per epoch, every
    label once when the padding (the repeats of each device's last sample) is left out.

    Saved mid-epoch, the rest of the epoch is spread over the new devices (rule 1 of the
    elastic restore); saved at an epoch's start, the new layout's epoch comes whole; saved at
    its end, its StopIteration (rule 3). Then the new layout's epochs (rule 2). Each save is
    restored from all four checkpoints and from one of them: any count is an elastic restore.
    """
    old_fn = _sharded_iterator_fn(label_files, cpu_devices, pad=True)
    new_fn = _sharded_iterator_fn(label_files, cpu_devices[:n_devices], pad=True)
    kwargs = {"batch_size": ELASTIC_BATCH, "num_threads": 1, "seed": SEED}
    # uninterrupted runs: the four devices', and a fresh one of the new layout
    reference = _run_epochs(old_fn(**kwargs, enable_checkpointing=True), 5)
    ref_streams = [[_unpadded(s) for s in _streams(batches, 4)] for batches in reference]
    ref_values = _values_per_epoch(reference, 4)
    fresh = _run_epochs(new_fn(**kwargs, enable_checkpointing=True), 5)
    for batches in fresh:
        assert sorted(_labels(map(_unpadded, _streams(batches, n_devices)))) == list(range(N))

    for n_before in ELASTIC_CUTS:
        old = old_fn(**kwargs, enable_checkpointing=True)
        saved_epochs = _epochs([step(old) for _ in range(n_before)])
        epoch = len(saved_epochs) - 1  # the interrupted epoch (for the messages)
        cps = old.checkpoints()
        for which, restore_from in [("all 4 checkpoints", cps), ("checkpoint 2", cps[2:3])]:
            where = f"saved after {n_before} steps (epoch {epoch}), restored from {which}"
            _check_elastic_restore(
                new_fn(**kwargs, enable_checkpointing=True, checkpoints=restore_from),
                n_devices,
                saved_epochs,
                (ref_streams, ref_values),
                fresh,
                where,
            )


def _check_elastic_restore(restored, n_devices, saved_epochs, reference, fresh, where):
    """The checks of `test_elastic_restore_onto_fewer_devices` for one restored iterator.

    Args:
        restored: The iterator restored onto ``n_devices`` devices.
        saved_epochs: The batches the saved iterator gave before its checkpoints, per epoch.
        reference: What the uninterrupted four-device iterator gave, per epoch: each
            device's samples without padding, and ``{label: random value}``.
        fresh: The batches of a fresh iterator of the new layout, per epoch.
        where: Says which restore this is, in failure messages.
    """
    epoch = len(saved_epochs) - 1  # the interrupted epoch
    ref_streams, ref_values = reference
    assert len(restored._pipes) == n_devices, where
    assert all(p.is_restored_from_checkpoint for p in restored._pipes), where
    length = len(restored)
    rest, *after = _run_epochs(restored, 3)

    # the interrupted epoch: what the old devices got, then the rest on the new ones
    old_streams = [_unpadded(s) for s in _streams(saved_epochs[-1], 4)]
    new_streams = _streams(rest, n_devices)
    pieces = [_unpadded(s) for s in new_streams]
    assert sorted(_labels(old_streams) + _labels(pieces)) == list(range(N)), where
    # a sample's random value depends on its epoch, not on the layout
    for label, value in [x for s in new_streams for x in s]:
        assert value == ref_values[epoch][label], (where, label)
    if not saved_epochs[-1]:
        # saved at the epoch's start: nothing of it to spread, the new layout's epoch
        _assert_same_epoch(fresh[epoch], rest, where)
    elif rest:
        # near-equal contiguous pieces of what the old devices had not read, in the old
        # devices' order, each padded to as many whole batches as the largest
        unread = []
        for k in range(4):
            got, visit = old_streams[k], ref_streams[epoch][k]
            assert got == visit[: len(got)], where
            unread += visit[len(got) :]
        assert _labels(pieces) == _labels([unread]), where
        sizes = [len(p) for p in pieces]
        assert max(sizes) - min(sizes) <= 1, (where, sizes)
        assert len(rest) == -(-max(sizes) // (ELASTIC_BATCH // n_devices)), (where, sizes)
        assert length == len(rest), where
    else:
        # saved at the epoch's end: its StopIteration first (rule 3)
        assert old_streams == ref_streams[epoch], where

    # then the new layout's next epochs, as a fresh iterator of it gives them
    for e, batches in enumerate(after, start=epoch + 1):
        _assert_same_epoch(fresh[e], batches, f"{where}, epoch {e}")
        for label, value in [x for s in _streams(batches, n_devices) for x in s]:
            assert value == ref_values[e][label], (where, e, label)


def _assert_same_epoch(expected, actual, where):
    assert len(actual) == len(expected), f"{where}: {len(actual)} batches, not {len(expected)}"
    for i, (want, got) in enumerate(zip(expected, actual)):
        try:
            assert_same_batches(want, got)
        except AssertionError as e:
            raise AssertionError(f"{where}, batch {i}: {e}") from e


# -- checkpointing disabled -----------------------------------------------------------------------


def test_checkpoints_without_enable_checkpointing(label_files, cpu_devices):
    message = "^Cannot access checkpoints with checkpointing disabled$"
    pipe = pipeline_def(_graph(label_files), batch_size=4, num_threads=1, device_id=None)()
    it = DALIGenericIterator(pipe, OUTPUTS, reader_name=READER)
    next(it)
    with pytest.raises(ValueError, match=message):
        it.checkpoints()
    sharded = _sharded_iterator_fn(label_files, cpu_devices)(batch_size=4, num_threads=1)
    with pytest.raises(ValueError, match=message):
        sharded.checkpoints()


def test_checkpoints_argument_without_enable_checkpointing(label_files, cpu_devices):
    iterator_fn = _sharded_iterator_fn(label_files, cpu_devices)
    cps = iterator_fn(batch_size=4, num_threads=1, enable_checkpointing=True).checkpoints()
    # DALI's build error for a checkpoint given to a pipeline made without it
    with pytest.raises(RuntimeError, match="Cannot restore checkpoint"):
        iterator_fn(batch_size=4, num_threads=1, checkpoints=cps)
