"""``save(filename)`` / ``restore(filename)``: CLU's checkpoint interface.

Every iterator here reads the ``label_files`` (29 files, file ``i`` has label ``i``) shuffled,
and draws one ``fn.random.uniform`` value per sample, so a restore must bring back the reader's
position, its shuffling and the RNG state. FILL without padding carries samples over into the
next epoch, so epochs differ in length.

* Round trips through files with `dali.testing.check_save_restore` (`FileState` turns its
  ``checkpoints()`` into ``save`` and its ``load_checkpoints`` into ``restore``), at 9 steps
  of the first two epochs and a bit (every epoch end, saved before and after its
  StopIteration, among them), each restored run crossing an epoch end, with
  ``auto_reset`` True and False, restored into a fresh iterator and in place into one that
  went on; and all of that with a peeked element pending at the save (beyond DALI, which
  refuses): the restored iterator's next element is that element.
* The same through ``peekable_data_iterator(sharding=...)`` over the four fake CPU devices
  (four checkpoints in one file), and ``checkpoints=`` at call time.
* The file: small JSON, one checkpoint per pipeline; ``str`` and ``etils.epath`` paths.
* Files that are not an iterator state, or of other pipelines: ``CheckpointError``, and a
  refused file leaves the iterator as it was.
* Elastic: a state saved on four devices restored onto two (FILL with ``pad_last_batch``):
  the interrupted epoch delivers every sample once (``is_nonpadding`` drops the padding), then
  the two devices' epochs follow as a fresh two-device iterator gives them.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from dali import fn, pipeline_def
from dali.author import CheckpointError
from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax.clu import DALIGenericPeekableIterator, peekable_data_iterator
from dali.testing import STOP, assert_same_batches, check_save_restore, step
from etils import epath
from jax.sharding import Mesh, NamedSharding, PartitionSpec

DROP = LastBatchPolicy.DROP
READER = "reader"
OUTPUTS = ["labels", "random"]
SEED = 1234


def _graph(files, *, pad=False, shuffle=True):
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
            initial_fill=8,
        )
        return labels, fn.random.uniform(range=[0.0, 1.0])

    return iterator_fn


def _batch_sharding(devices):
    return NamedSharding(Mesh(np.array(devices), ("batch",)), PartitionSpec("batch"))


class FileState:
    """A peekable iterator seen by `dali.testing.check_save_restore` through files:
    ``checkpoints()`` is ``save(file)`` (returning ``[file]``) and ``load_checkpoints`` is
    ``restore(file)``.

    With ``peek``, a peek is pending at every save (its element must be the next one, that
    very object) and at every restore (which must drop it). With ``reset_after_stop``, a
    StopIteration of ``next()`` is followed by ``reset()`` (the manual form of
    ``auto_reset``, as `dali.testing.ResetAfterStop`).
    """

    def __init__(self, it, directory, *, peek=False, reset_after_stop=False):
        self.it = it
        self.directory = directory
        self.peek = peek
        self.reset_after_stop = reset_after_stop
        self.pending = None
        self.saved = 0

    def __len__(self):
        return len(self.it)

    def __next__(self):
        pending, self.pending = self.pending, None
        try:
            element = next(self.it)
        except StopIteration:
            assert pending is None, "a peeked element was pending, next() ended the epoch"
            if self.reset_after_stop:
                self.it.reset()
            raise
        assert pending is None or element is pending, "next() is not the peeked element"
        return element

    def _peek(self):
        try:
            return self.it.peek()
        except StopIteration:
            return None  # the epoch's end: nothing to cache (and the auto_reset done)

    def checkpoints(self):
        if self.peek:
            self.pending = self._peek()
        path = self.directory / f"state_{id(self)}_{self.saved}.json"
        self.saved += 1
        self.it.save(path)
        return [path]

    def load_checkpoints(self, checkpoints):
        if self.peek:
            self._peek()
        self.it.restore(checkpoints[0])
        self.pending = None


def _cuts(n_steps, must, n, seed):
    """``must`` and random others of ``range(n_steps)``, ``n`` in all, sorted."""
    others = [k for k in range(n_steps) if k not in must]
    return sorted(set(must) | set(random.Random(seed).sample(others, n - len(set(must)))))


# -- round trips through files -------------------------------------------------------------------


@pytest.mark.parametrize("auto_reset", [True, False], ids=["auto_reset", "reset-by-hand"])
@pytest.mark.parametrize("peek", [False, True], ids=["no-peek", "peek-pending"])
@pytest.mark.parametrize("restore", ["fresh", "in-place"])
def test_round_trip_through_files(label_files, tmp_path, auto_reset, peek, restore):
    """Batches of 4, one pipeline: 8 batches (and StopIteration) in the first epoch, 7 or 8
    in the next (FILL carries samples over); each restored run crosses an epoch end."""
    make_pipe = pipeline_def(
        _graph(label_files),
        batch_size=4,
        num_threads=1,
        device_id=None,
        seed=SEED,
        enable_checkpointing=True,
    )

    def make(checkpoints=None):
        it = DALIGenericPeekableIterator(
            make_pipe(), OUTPUTS, reader_name=READER, auto_reset=auto_reset
        )
        state = FileState(it, tmp_path, peek=peek, reset_after_stop=not auto_reset)
        if checkpoints is not None:  # restored into a fresh iterator
            state.load_checkpoints(checkpoints)
        return state

    ends = _epoch_ends(make(), 2)
    assert ends[0] == 8 and ends[1] - ends[0] in (8, 9)
    in_place = 3 if restore == "in-place" else None
    # every epoch end (saved before its StopIteration and after it), the start, and others
    must = {0, ends[0], ends[0] + 1, ends[1], ends[1] + 1}
    for n_before in _cuts(ends[1] + 3, must, 9, seed=int(auto_reset) + 2 * peek):
        try:
            (path,) = check_save_restore(make, n_before, 11, in_place=in_place)
        except AssertionError as e:
            raise AssertionError(f"saved after {n_before} steps: {e}") from e
        assert path.exists()


def _epoch_ends(it, epochs):
    """The steps at which the first ``epochs`` epochs ended (raised StopIteration)."""
    ends = []
    for n in range(200):
        if step(it) is STOP:
            ends.append(n)
            if len(ends) == epochs:
                return ends
    raise AssertionError(f"fewer than {epochs} epoch ends in 200 steps")


def test_round_trip_drop_policy(label_files, tmp_path):
    """DROP throws the incomplete batch away: the epoch's end moves, the round trip holds."""
    make_pipe = pipeline_def(
        _graph(label_files),
        batch_size=4,
        num_threads=1,
        device_id=None,
        seed=SEED,
        enable_checkpointing=True,
    )

    def make(checkpoints=None):
        it = DALIGenericPeekableIterator(
            make_pipe(), OUTPUTS, reader_name=READER, auto_reset=True, last_batch_policy=DROP
        )
        state = FileState(it, tmp_path, peek=True)
        if checkpoints is not None:
            state.load_checkpoints(checkpoints)
        return state

    assert _epoch_ends(make(), 2) == [7, 15]
    for n_before in (0, 6, 7, 8, 13):
        check_save_restore(make, n_before, 10)


@pytest.mark.parametrize("peek", [False, True], ids=["no-peek", "peek-pending"])
def test_sharded_round_trip_through_files(label_files, cpu_devices, tmp_path, peek):
    """``peekable_data_iterator(sharding=...)`` over four devices: shards of 7, 7, 7 and 8
    samples, 2 per device and batch, so 4 batches and StopIteration an epoch."""
    iterator_fn = peekable_data_iterator(
        _graph(label_files),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=_batch_sharding(cpu_devices),
        auto_reset=True,
    )

    def make(checkpoints=None):
        it = iterator_fn(batch_size=8, num_threads=1, seed=SEED, enable_checkpointing=True)
        state = FileState(it, tmp_path, peek=peek)
        if checkpoints is not None:
            state.load_checkpoints(checkpoints)
        return state

    assert _epoch_ends(make(), 2) == [4, 9]
    # the epoch's end, saved before and after its StopIteration; the start, or mid-epoch
    # with a peek pending; restored in place or into a fresh iterator
    for n_before in (2 if peek else 0, 4, 5):
        (path,) = check_save_restore(make, n_before, 6, in_place=1 if n_before % 2 else None)
        assert len(json.loads(path.read_text())["checkpoints"]) == 4


def test_checkpoints_argument_with_a_pending_peek(label_files, cpu_devices):
    """``checkpoints()`` with a peek pending are those from before it: an iterator made with
    ``checkpoints=`` continues with the peeked element."""
    sharding = _batch_sharding(cpu_devices)
    iterator_fn = peekable_data_iterator(
        _graph(label_files),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=sharding,
        auto_reset=True,
    )
    kwargs = {"batch_size": 8, "num_threads": 1, "seed": SEED, "enable_checkpointing": True}
    it = iterator_fn(**kwargs)
    next(it)
    before = it.checkpoints()
    pending = it.peek()
    assert it.checkpoints() == before  # DALI would refuse here
    # the rest of the epoch (3 batches), its end, the next epoch's first batch
    expected = [step(it) for _ in range(5)]
    assert expected[0] is pending and expected[3] is STOP
    restored = iterator_fn(**kwargs, checkpoints=before)
    for want in expected:
        if want is STOP:
            assert step(restored) is STOP
            continue
        got = restored.peek()
        assert got["labels"].sharding == sharding
        assert next(restored) is got
        assert_same_batches(want, got)


# -- the file ------------------------------------------------------------------------------------


def test_the_file_is_small_json_one_checkpoint_per_pipeline(label_files, cpu_devices, tmp_path):
    iterator_fn = peekable_data_iterator(
        _graph(label_files),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=_batch_sharding(cpu_devices),
    )
    it = iterator_fn(batch_size=8, num_threads=1, seed=SEED, enable_checkpointing=True)
    next(it)
    it.save(tmp_path / "state.json")
    text = (tmp_path / "state.json").read_text()
    state = json.loads(text)
    assert state["format"] == "dali-clu-iterator" and state["version"] == 1
    assert [c.encode() for c in state["checkpoints"]] == it.checkpoints()
    assert len(state["checkpoints"]) == 4
    for checkpoint in state["checkpoints"]:
        assert json.loads(checkpoint)["format"] == "dali-checkpoint"
    assert len(text) < 4 * 1024, len(text)  # a few hundred bytes per pipeline


def test_str_and_epath_paths(label_files, tmp_path):
    make_pipe = pipeline_def(
        _graph(label_files),
        batch_size=4,
        num_threads=1,
        device_id=None,
        seed=SEED,
        enable_checkpointing=True,
    )
    it = DALIGenericPeekableIterator(make_pipe(), OUTPUTS, reader_name=READER)
    next(it)
    as_str, as_epath = str(tmp_path / "a.json"), epath.Path(tmp_path) / "b.json"
    it.save(as_str)
    it.save(as_epath)
    expected = next(it)
    for path in (as_str, as_epath):
        restored = DALIGenericPeekableIterator(make_pipe(), OUTPUTS, reader_name=READER)
        restored.restore(path)
        assert_same_batches(expected, next(restored))


# -- refused files -------------------------------------------------------------------------------


def _labels_iterator(files, **kwargs):
    make_pipe = pipeline_def(
        _graph(files),
        batch_size=4,
        num_threads=1,
        device_id=None,
        seed=SEED,
        enable_checkpointing=True,
    )
    return DALIGenericPeekableIterator(make_pipe(), OUTPUTS, reader_name=READER, **kwargs)


@pytest.fixture
def saved_state(label_files, tmp_path):
    it = _labels_iterator(label_files)
    next(it)
    it.save(tmp_path / "good.json")
    return (tmp_path / "good.json").read_text()


_BAD = {
    "not-json": lambda good: "this is no JSON",
    "truncated": lambda good: good[: len(good) // 2],
    "a-list": lambda good: "[1, 2]",
    "other-format": lambda good: json.dumps({**json.loads(good), "format": "tf-checkpoint"}),
    "no-format": lambda good: json.dumps(
        {k: v for k, v in json.loads(good).items() if k != "format"}
    ),
    "other-version": lambda good: json.dumps({**json.loads(good), "version": 99}),
    "no-checkpoints": lambda good: json.dumps({**json.loads(good), "checkpoints": []}),
    "checkpoints-not-a-list": lambda good: json.dumps({**json.loads(good), "checkpoints": "x"}),
}


@pytest.mark.parametrize("kind", sorted(_BAD))
def test_a_file_that_is_no_state_is_refused_and_changes_nothing(
    label_files, tmp_path, saved_state, kind
):
    path = tmp_path / f"{kind}.json"
    path.write_text(_BAD[kind](saved_state))
    it = _labels_iterator(label_files)
    reference = _labels_iterator(label_files)
    next(it), next(reference)
    pending = it.peek()
    with pytest.raises(CheckpointError, match=str(path.name)):
        it.restore(path)
    # as if restore had not been called: the peeked element, then the rest
    assert next(it) is pending
    assert_same_batches(next(reference), pending)
    assert_same_batches(next(reference), next(it))


def test_a_state_of_other_pipelines_is_refused(label_files, tmp_path):
    other = _labels_iterator(label_files[:10])  # another reader: another graph
    next(other)
    other.save(tmp_path / "other.json")

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_checkpointing=True)
    def different():
        _, labels = fn.readers.file(files=label_files, name=READER)
        return labels, fn.random.normal()  # another operator

    it = DALIGenericPeekableIterator(different(), OUTPUTS, reader_name=READER)
    with pytest.raises(CheckpointError, match="saved from another pipeline"):
        it.restore(tmp_path / "other.json")


def test_a_missing_file_is_file_not_found(label_files, tmp_path):
    it = _labels_iterator(label_files)
    with pytest.raises(FileNotFoundError):
        it.restore(tmp_path / "nothing-here.json")


def test_without_enable_checkpointing(label_files, tmp_path, saved_state):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def pipe():
        _, labels = fn.readers.file(files=label_files, name=READER)
        return labels, fn.random.uniform()

    it = DALIGenericPeekableIterator(pipe(), OUTPUTS, reader_name=READER)
    it.peek()
    with pytest.raises(ValueError, match="checkpointing disabled"):
        it.save(tmp_path / "state.json")
    assert not (tmp_path / "state.json").exists()
    (tmp_path / "good.json").write_text(saved_state)
    with pytest.raises(ValueError, match="checkpointing disabled"):
        it.restore(tmp_path / "good.json")


# -- elastic: four devices to two ----------------------------------------------------------------


def _elastic_fn(files, devices):
    return peekable_data_iterator(
        _graph(files, pad=True, shuffle=False),
        output_map=OUTPUTS,
        reader_name=READER,
        sharding=_batch_sharding(devices),
        auto_reset=True,
    )


def _real(batch, mask):
    """``(label, value)`` of the samples ``is_nonpadding`` says are real."""
    labels = np.asarray(batch["labels"]).ravel()
    values = np.asarray(batch["random"]).ravel()
    keep = np.asarray(mask)
    return list(zip(labels[keep].tolist(), values[keep].tolist()))


def _run_epochs(it, epochs):
    """Per epoch: the batches and their real samples, for the next ``epochs`` epoch ends."""
    out = [([], [])]
    while len(out) <= epochs:
        batch = step(it)
        if batch is STOP:
            out.append(([], []))
            continue
        out[-1][0].append(batch)
        out[-1][1].extend(_real(batch, it.is_nonpadding))
    return out[:epochs]


@pytest.mark.parametrize(
    ("n_before", "peek", "how"),
    [
        pytest.param(0, False, "restore", id="epoch-start"),
        pytest.param(2, False, "restore", id="mid-epoch"),
        pytest.param(2, True, "restore", id="mid-epoch-peek-pending"),
        pytest.param(3, True, "checkpoints=", id="mid-epoch-peek-pending-checkpoints-argument"),
        pytest.param(4, False, "restore", id="before-StopIteration"),
        pytest.param(5, False, "restore", id="after-StopIteration"),
        pytest.param(7, True, "restore", id="second-epoch-peek-pending"),
    ],
)
def test_elastic_restore_from_four_devices_onto_two(
    label_files, cpu_devices, tmp_path, n_before, peek, how
):
    """Global batch 8: 2 samples per device on four, 4 on two. Saved after ``n_before``
    steps (4 batches and StopIteration an epoch on four devices); restored with ``restore``
    into a fresh two-device iterator, or made with the file's checkpoints (``checkpoints=``)."""
    kwargs = {"batch_size": 8, "num_threads": 1, "seed": SEED, "enable_checkpointing": True}
    n = len(label_files)
    old = _elastic_fn(label_files, cpu_devices)(**kwargs)
    seen = []  # the real samples the old iterator gave in the interrupted epoch
    for _ in range(n_before):
        batch = step(old)
        seen = [] if batch is STOP else seen + _real(batch, old.is_nonpadding)
    epoch = n_before // 5  # the interrupted epoch
    if peek:
        old.peek()
    old.save(tmp_path / "state.json")

    new_fn = _elastic_fn(label_files, cpu_devices[:2])
    fresh = _run_epochs(new_fn(**kwargs), epoch + 3)
    if how == "restore":
        restored = new_fn(**kwargs)
        restored.restore(tmp_path / "state.json")
    else:
        saved = json.loads((tmp_path / "state.json").read_text())["checkpoints"]
        restored = new_fn(**kwargs, checkpoints=[c.encode() for c in saved])
    assert len(restored.pipelines) == 2 and restored.batch_size == 4
    assert restored.element_spec["labels"].shape == (8, 1)
    (rest_batches, rest), *after = _run_epochs(restored, 3)

    # the interrupted epoch: every sample once, what the old devices gave plus the rest
    assert sorted(label for label, _ in seen + rest) == list(range(n))
    if n_before % 5 == 4:
        assert rest_batches == []  # saved at its end: its StopIteration comes first
    # then the two devices' epochs, as a fresh two-device iterator gives them
    for e, (batches, real) in enumerate(after, start=epoch + 1):
        want_batches, want_real = fresh[e]
        assert len(batches) == len(want_batches), e
        for want, got in zip(want_batches, batches):
            assert_same_batches(want, got)
        assert sorted(label for label, _ in real) == list(range(n))
        assert real == want_real
