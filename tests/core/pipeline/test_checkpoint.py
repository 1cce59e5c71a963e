"""Pipeline checkpoints: save/restore round trips at random cut
points, the document itself, and the errors of checkpoints that cannot be restored.

Every round trip is `dali.testing.check_pipeline_save_restore`: a pipeline runs ``cut`` times,
saves ``checkpoint()`` and runs ``N_AFTER`` more; a pipeline restored from that checkpoint must
give the same ``N_AFTER`` runs (a run that raises StopIteration counts, and resets the
pipeline). Each configuration is checked at 20 deterministic random cut points spread over
several epochs, with ``prefetch_queue_depth`` 1 and 4: the checkpoint must describe what the
consumer got, never what was prefetched. Random operators downstream check that augmentations
continue too, not only the data.
"""

from __future__ import annotations

import json
import random
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dali
import numpy as np
import pytest
from dali import fn, types
from dali.author import CheckpointError, OperatorError
from dali.testing import STOP, assert_same_batches, check_pipeline_save_restore
from iterator_utils import TREE_IMAGES, make_files

#: Files read by the reader pipelines, and their batch size: 23 samples in batches of 4 make
#: 5.75 iterations an epoch (most epoch ends fall inside a batch); shards of 7, 8 and 8.
N_FILES = 23
BATCH = 4
#: Runs compared after each restore (more than one epoch of a shard).
N_AFTER = 6
#: Cut points are drawn from ``range(CUT_RANGE)``: 40 runs of 4 are 7 epochs of 23 samples.
CUT_RANGE = 40
#: The executor settings of the round trips: the consumer is behind the prefetch position.
EXECUTORS = {
    "depth1": {"prefetch_queue_depth": 1},
    "depth4": {"prefetch_queue_depth": 4},
    "sync": {"prefetch_queue_depth": 1, "exec_async": False, "exec_pipelined": False},
}
DEPTHS = ["depth1", "depth4"]


def cut_points(seed: int, stop: int = CUT_RANGE, count: int = 20) -> list[int]:
    """``count`` distinct cut points in ``[0, stop)``, sorted; the same on every run."""
    return sorted(random.Random(seed).sample(range(stop), count))


def check_cuts(make: Callable[..., Any], cuts: list[int], n_after: int = N_AFTER) -> list[bytes]:
    """`check_pipeline_save_restore` at each cut point; a failure names its cut point.

    Returns:
        The checkpoints, one per cut point.
    """
    cpts = []
    for cut in cuts:
        try:
            cpts.append(check_pipeline_save_restore(make, cut, n_after))
        except AssertionError as e:
            raise AssertionError(f"checkpoint saved after {cut} runs: {e}") from None
    return cpts


def run_once(pipe: dali.Pipeline) -> Any:
    """One run as `check_pipeline_save_restore` sees it: per output a list of numpy samples
    (CPU copies), or `STOP` for StopIteration (the pipeline is then reset)."""
    try:
        outs = pipe.run()
    except StopIteration:
        pipe.reset()
        return STOP
    cpu = [tl.as_cpu() if hasattr(tl, "as_cpu") else tl for tl in outs]
    return [[np.array(tl[i]) for i in range(len(tl))] for tl in cpu]


def run_n(pipe: dali.Pipeline, n: int) -> list[Any]:
    """``n`` runs (`run_once`)."""
    return [run_once(pipe) for _ in range(n)]


def first_values(runs: list[Any], output: int) -> list[list[float]]:
    """The first element of every sample of one output, run by run (`STOP` kept)."""
    return [
        run if run is STOP else [np.asarray(s).ravel()[0].item() for s in run[output]]
        for run in runs
    ]


# -- 1. fn.readers.file ------------------------------------------------------------------------

READERS = {
    "plain": {},
    "sharded": {"num_shards": 3, "shard_id": 1},
    "pad_last_batch": {"pad_last_batch": True},
    "sharded_pad_last_batch": {"num_shards": 3, "shard_id": 2, "pad_last_batch": True},
    "stick_to_shard": {"num_shards": 3, "shard_id": 1, "stick_to_shard": True},
    "random_shuffle_fill16": {"random_shuffle": True, "initial_fill": 16},
    "random_shuffle": {"random_shuffle": True},  # initial_fill 1024: 44 epochs in the buffer
    "shuffle_after_epoch": {"shuffle_after_epoch": True},
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return make_files(tmp_path_factory.mktemp("checkpoint_files"), N_FILES)


def reader_pipe(
    files: list[str],
    reader: dict[str, Any] | None = None,
    *,
    seed: int = 11,
    random_op: str = "uniform",
    random_args: dict[str, Any] | None = None,
    flip: bool = True,
    named: bool = True,
    **pipe_kwargs: Any,
) -> dali.Pipeline:
    """``readers.file`` (label, data) + ``random.uniform`` (+ ``random.coin_flip``).

    With ``named`` the operators are named ``Reader``, ``Uniform`` and ``Flip`` (else they get
    automatic names); ``random_op`` and ``random_args`` replace the uniform and its arguments;
    ``pipe_kwargs`` go to the pipeline (checkpointing is on unless they say not).
    """
    pipe_kwargs.setdefault("enable_checkpointing", True)
    pipe = dali.Pipeline(batch_size=BATCH, num_threads=2, device_id=None, seed=seed, **pipe_kwargs)

    def name(n: str) -> dict[str, str]:
        return {"name": n} if named else {}

    with pipe:
        data, labels = fn.readers.file(
            files=files, labels=list(range(len(files))), **name("Reader"), **(reader or {})
        )
        random_op_fn = getattr(fn.random, random_op)
        outs = [labels, data, random_op_fn(**name("Uniform"), **(random_args or {}))]
        if flip:
            outs.append(fn.random.coin_flip(**name("Flip")))
        pipe.set_outputs(*outs)
    return pipe


_READER_CASES = [(r, d) for r in READERS for d in DEPTHS] + [("plain", "sync")]


@pytest.mark.parametrize(("reader", "executor"), _READER_CASES, ids=lambda v: v)
def test_reader_round_trips(files, reader, executor):
    def make(**kw):
        return reader_pipe(files, READERS[reader], **EXECUTORS[executor], **kw)

    cuts = cut_points(seed=zlib.crc32(reader.encode()))
    assert cuts[-1] >= 4 * (N_FILES // BATCH)  # the cut points span several epochs
    check_cuts(make, cuts)


@pytest.mark.parametrize("reader", list(READERS))
def test_reader_configurations_do_what_they_say(files, reader):
    """The round trips above are only as good as their configurations: each reader changes
    its stream as intended (else a restore could pass by accident)."""
    runs = run_n(reader_pipe(files, READERS[reader]), 12)
    labels = [label for batch in first_values(runs, 0) for label in batch]
    plain = [i % N_FILES for i in range(len(labels))]
    if reader == "plain":
        assert labels == plain
    elif reader == "sharded":  # shard 1 first, then the next shards: the whole dataset in turn
        assert labels == [(7 + i) % N_FILES for i in range(len(labels))]
    elif reader == "pad_last_batch":  # 23 + 1 padding sample (the last) a epoch
        assert labels[:24] == [*range(23), 22] and labels[24:48] == labels[:24]
    elif reader == "sharded_pad_last_batch":  # shard 2 (8 samples), then shard 0 (7 + 1 pad)
        assert labels[:16] == [*range(15, 23), *range(7), 6]
    elif reader == "stick_to_shard":  # shard 1 only: samples 7..14 again and again
        assert labels == [7 + i % 8 for i in range(len(labels))]
    elif reader == "shuffle_after_epoch":  # every epoch a new permutation of the dataset
        epochs = [labels[i : i + N_FILES] for i in range(0, 2 * N_FILES, N_FILES)]
        assert all(sorted(e) == list(range(N_FILES)) for e in epochs)
        assert epochs[0] != epochs[1] and epochs[0] != list(range(N_FILES))
    else:  # random_shuffle: a shuffle buffer, samples of several epochs mixed
        assert labels[:N_FILES] != list(range(N_FILES))
        assert set(labels) <= set(range(N_FILES))
        assert len(set(labels)) > N_FILES // 2
    uniforms = [u for batch in first_values(runs, 2) for u in batch]
    # the augmentation differs sample by sample (a padding sample repeats its original's)
    assert len(set(uniforms)) > len(uniforms) - 4
    assert {u for batch in first_values(runs, 3) for u in batch} == {0, 1}


# -- 2. fn.external_source ---------------------------------------------------------------------

#: Samples an epoch of the sources that end epochs with StopIteration: 3 batches of 4 (the
#: 4th run of every epoch raises StopIteration).
ES_EPOCH = 12


def _sample_source(info: types.SampleInfo) -> np.ndarray:
    return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx])


def _sample_source_with_end(info: types.SampleInfo) -> np.ndarray:
    if info.idx_in_epoch >= ES_EPOCH:
        raise StopIteration
    return _sample_source(info)


def _batch_info_source(info: types.BatchInfo) -> list[np.ndarray]:
    return [np.array([info.iteration, info.epoch_idx, k], np.int32) for k in range(BATCH)]


def _batch_info_source_with_end(info: types.BatchInfo) -> list[np.ndarray]:
    if info.iteration >= ES_EPOCH // BATCH:
        raise StopIteration
    return _batch_info_source(info)


def _iteration_source(i: int) -> np.ndarray:
    return np.arange(BATCH * 3, dtype=np.float32).reshape(BATCH, 3) + 100 * i


#: ``name: (source, external_source kwargs)``.
SOURCES: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "sample_info": (_sample_source, {"batch": False}),
    "batch_info": (_batch_info_source, {"batch_info": True}),
    "iteration": (_iteration_source, {}),
    "sample_info_stop": (_sample_source_with_end, {"batch": False}),
    "batch_info_stop": (_batch_info_source_with_end, {"batch_info": True}),
}


def source_pipe(source: str, *, seed: int = 3, **pipe_kwargs: Any) -> dali.Pipeline:
    """The source, then random operators: one of its data, two of its batch."""
    callback, es_kwargs = SOURCES[source]
    pipe = dali.Pipeline(
        batch_size=BATCH,
        num_threads=1,
        device_id=None,
        seed=seed,
        enable_checkpointing=True,
        **pipe_kwargs,
    )
    with pipe:
        data = fn.external_source(callback, name="src", **es_kwargs)
        noisy = fn.cast(data, dtype=types.FLOAT) + fn.random.normal(data, stddev=0.5)
        pipe.set_outputs(data, noisy, fn.random.uniform(), fn.random.coin_flip(probability=0.3))
    return pipe


@pytest.mark.parametrize("executor", DEPTHS)
@pytest.mark.parametrize("source", list(SOURCES))
def test_external_source_round_trips(source, executor):
    def make(**kw):
        return source_pipe(source, **EXECUTORS[executor], **kw)

    cuts = cut_points(seed=zlib.crc32(source.encode()))
    if source.endswith("_stop"):
        # 4 runs an epoch (3 batches, then StopIteration): cut just before the end (2), at it
        # (3: the next run raises) and just after it (4, 7, 8), besides the random ones
        cuts = sorted({*cuts, 2, 3, 4, 6, 7, 8})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a callable with one parameter is restorable
        check_cuts(make, cuts)


@pytest.mark.parametrize("source", ["sample_info_stop", "batch_info_stop"])
def test_stop_iteration_ends_every_epoch_of_the_sources(source):
    runs = run_n(source_pipe(source), 9)
    assert [run is STOP for run in runs] == [False, False, False, True] * 2 + [False]
    column = 3 if source == "sample_info_stop" else 1  # the epoch_idx the source was given
    epochs = [int(np.asarray(run[0][0])[column]) for run in runs if run is not STOP]
    assert epochs == [0, 0, 0, 1, 1, 1, 2]


def test_restore_at_an_epoch_end_raises_stop_iteration_first():
    # explicit, not only inside check_cuts: 3 batches read, the 4th run ends the epoch
    pipe = source_pipe("sample_info_stop")
    run_n(pipe, 3)
    restored = source_pipe("sample_info_stop", checkpoint=pipe.checkpoint())
    with pytest.raises(StopIteration):
        restored.run()
    restored.reset()
    first = restored.run()[0]
    assert [np.asarray(first[i]).tolist() for i in range(BATCH)] == [
        [k, k, 0, 1] for k in range(BATCH)
    ]


# -- 3. decoders.image_random_crop + resize + crop_mirror_normalize ----------------------------


def image_pipe(root: Path, device: str, *, seed: int = 5, **pipe_kwargs: Any) -> dali.Pipeline:
    """The ResNet-50 training body on the 21-image tree (``device``: the decoder's)."""
    pipe = dali.Pipeline(
        batch_size=BATCH,
        num_threads=2,
        device_id=0 if device == "mixed" else None,
        seed=seed,
        enable_checkpointing=True,
        **pipe_kwargs,
    )
    with pipe:
        jpegs, labels = fn.readers.file(
            file_root=str(root),
            file_list=str(root / "list.txt"),
            shuffle_after_epoch=True,
            name="Reader",
        )
        images = fn.decoders.image_random_crop(jpegs, device=device, output_type=types.RGB)
        images = fn.resize(images, resize_x=24, resize_y=20)
        out = fn.crop_mirror_normalize(
            images,
            crop=(16, 16),
            crop_pos_x=fn.random.uniform(range=(0, 1)),
            mirror=fn.random.coin_flip(),
            mean=[128.0, 128.0, 128.0],
            std=[64.0, 64.0, 64.0],
            output_layout="CHW",
        )
        pipe.set_outputs(out, labels)
    return pipe


#: 21 images in batches of 4: cut points in [0, 24) span 4.5 epochs.
IMAGE_CUT_RANGE = 24
IMAGE_N_AFTER = 3


def _check_image_round_trips(root: Path, device: str, executor: str) -> None:
    def make(**kw):
        return image_pipe(root, device, **EXECUTORS[executor], **kw)

    runs = run_n(make(), 2 * TREE_IMAGES // BATCH)
    labels = [label for batch in first_values(runs, 1) for label in batch]
    assert sorted(labels[:TREE_IMAGES]) == list(range(TREE_IMAGES))  # the reader's epochs
    assert labels[:TREE_IMAGES] != list(range(TREE_IMAGES))  # shuffled
    check_cuts(make, cut_points(seed=21, stop=IMAGE_CUT_RANGE), IMAGE_N_AFTER)


@pytest.mark.parametrize("executor", DEPTHS)
def test_image_pipeline_round_trips_cpu(image_tree, executor):
    _check_image_round_trips(image_tree, "cpu", executor)


@pytest.mark.gpu
@pytest.mark.parametrize("executor", DEPTHS)
def test_image_pipeline_round_trips_gpu(image_tree, executor):
    pytest.importorskip("cupy")
    _check_image_round_trips(image_tree, "mixed", executor)


# -- 4. the checkpoint document and the restore --------------------------------------------------


def test_checkpoint_before_any_run_restores_to_the_very_start(files):
    pipe = reader_pipe(files, READERS["shuffle_after_epoch"])
    cpt = pipe.checkpoint()
    assert not pipe.is_restored_from_checkpoint
    fresh = run_n(reader_pipe(files, READERS["shuffle_after_epoch"]), 8)
    restored = run_n(reader_pipe(files, READERS["shuffle_after_epoch"], checkpoint=cpt), 8)
    assert_same_batches(fresh, restored)
    # and the pipeline that saved it, run afterwards, gives the same too
    assert_same_batches(fresh, run_n(pipe, 8))
    assert json.loads(cpt)["iter"] == 0 and json.loads(cpt)["epoch_idx"] == 0


def test_checkpoint_to_a_file_writes_the_same_bytes(files, tmp_path):
    pipe = reader_pipe(files)
    run_n(pipe, 3)
    path = tmp_path / "pipe.cpt"
    cpt = pipe.checkpoint(filename=str(path))
    assert isinstance(cpt, bytes)
    assert path.read_bytes() == cpt == pipe.checkpoint()
    expected = run_n(pipe, 4)
    restored = reader_pipe(files, checkpoint=path.read_bytes())
    assert_same_batches(expected, run_n(restored, 4))


def test_restore_from_str(files):
    pipe = reader_pipe(files, READERS["random_shuffle_fill16"])
    run_n(pipe, 5)
    cpt = pipe.checkpoint()
    expected = run_n(pipe, 4)
    restored = reader_pipe(files, READERS["random_shuffle_fill16"], checkpoint=cpt.decode())
    assert_same_batches(expected, run_n(restored, 4))
    assert restored.checkpoint() != cpt  # it moved on...
    # ...and the bytes of a restored pipeline that has not run are the ones it was given
    assert reader_pipe(files, READERS["random_shuffle_fill16"], checkpoint=cpt).checkpoint() == cpt


def test_the_checkpoints_seed_wins_over_the_restored_pipelines(files):
    pipe = reader_pipe(files, READERS["shuffle_after_epoch"], seed=5)
    run_n(pipe, 3)
    cpt = pipe.checkpoint()
    expected = run_n(pipe, 4)
    restored = reader_pipe(files, READERS["shuffle_after_epoch"], seed=99, checkpoint=cpt)
    assert_same_batches(expected, run_n(restored, 4))
    assert json.loads(restored.checkpoint())["seed"] == 5
    # the seed matters: without the checkpoint, seed 99 gives other random values
    other = run_n(reader_pipe(files, READERS["shuffle_after_epoch"], seed=99), 7)[3:]
    assert first_values(other, 2) != first_values(expected, 2)


def test_is_restored_from_checkpoint_is_set_at_build(files):
    cpt = reader_pipe(files).checkpoint()
    pipe = reader_pipe(files, checkpoint=cpt)
    assert pipe.is_restored_from_checkpoint is False
    pipe.build()
    assert pipe.is_restored_from_checkpoint is True
    plain = reader_pipe(files)
    plain.build()
    assert plain.is_restored_from_checkpoint is False


def _leaves(x: Any) -> list[Any]:
    """The values of a JSON document below its objects (a list is one value)."""
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _leaves(v)]
    return [x]


@pytest.mark.parametrize("reader", list(READERS))
def test_the_checkpoint_is_small_json_without_arrays(files, reader):
    pipe = reader_pipe(files, READERS[reader], prefetch_queue_depth=4)
    run_n(pipe, 13)  # mid-epoch, a shuffle buffer full, several prefetched runs
    cpt = pipe.checkpoint()
    assert isinstance(cpt, bytes)
    doc = json.loads(cpt)
    assert doc["format"] == "dali-checkpoint" and doc["version"] == 1
    assert (doc["seed"], doc["iter"]) == (11, 13)
    leaves = _leaves(doc)
    assert all(isinstance(v, (int, str)) for v in leaves), leaves  # no list, no null
    assert all(len(v) < 40 for v in leaves if isinstance(v, str)), leaves  # no blob
    assert set(doc["ops"]) == {"Reader"}  # counter-based random operators keep no state
    assert len(cpt) < 1024, len(cpt)


# -- 5. errors ---------------------------------------------------------------------------------


def test_checkpoint_without_enable_checkpointing(files):
    pipe = reader_pipe(files, enable_checkpointing=False)
    with pytest.raises(
        RuntimeError,
        match=r'Assert on "checkpointing_enabled\(\)" failed: Cannot save the checkpoint\. '
        r"The `enable_checkpointing` was not specified when creating the pipeline",
    ):
        pipe.checkpoint()


def test_restore_without_enable_checkpointing_fails_at_build(files):
    cpt = reader_pipe(files).checkpoint()
    pipe = reader_pipe(files, enable_checkpointing=False, checkpoint=cpt)  # not yet
    with pytest.raises(
        RuntimeError,
        match=r'Assert on "checkpointing_enabled\(\)" failed: Cannot restore checkpoint\. '
        r"The `enable_checkpointing` was not specified",
    ):
        pipe.build()


def _edited(cpt: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    doc = json.loads(cpt)
    edit(doc)
    return json.dumps(doc).encode()


@pytest.fixture
def saved(files) -> bytes:
    """A checkpoint of `reader_pipe` after 3 runs."""
    pipe = reader_pipe(files)
    run_n(pipe, 3)
    return pipe.checkpoint()


def _build_error(files, checkpoint: Any, **kw: Any) -> pytest.ExceptionInfo:
    pipe = reader_pipe(files, checkpoint=checkpoint, **kw)
    with pytest.raises(Exception) as info:
        pipe.build()
    return info


@pytest.mark.parametrize(
    ("make_bad", "match"),
    [
        pytest.param(lambda c: c[:-1], r"it is truncated", id="last_byte_cut"),
        pytest.param(
            lambda c: _edited(c, lambda d: d.update(version=2)),
            r"it has version 2, this dali-core reads version 1 \(written by a newer",
            id="newer_version",
        ),
        pytest.param(
            lambda c: _edited(c, lambda d: d.update(version=0)),
            r"it has version 0, this dali-core reads version 1$",
            id="older_version",
        ),
        pytest.param(
            lambda c: b"sample 1,2,3",
            r"it is not a dali checkpoint: dali reads its own JSON checkpoints",
            id="not_json",
        ),
        pytest.param(
            lambda c: b"\x0a\x06Reader\x12\x02\x08\x01",
            r"looks like an NVIDIA DALI checkpoint \(protobuf\)",
            id="protobuf_ascii",
        ),
        pytest.param(lambda c: b"{1: 2}", r"it is not valid JSON", id="bad_json"),
        pytest.param(
            lambda c: b"\x0a\x8f\x01\x12\x05Reader\xff", r"it is not UTF-8 JSON", id="protobuf"
        ),
        pytest.param(
            lambda c: b'{"iter": 3, "epoch_idx": 0}',
            r"it is JSON but not a dali checkpoint",
            id="json_not_ours",
        ),
        pytest.param(lambda c: b"[1, 2, 3]", r"it is JSON but not a dali checkpoint", id="list"),
        pytest.param(
            lambda c: _edited(c, lambda d: d.pop("ops")),
            r"the field 'ops' is missing, expected dict",
            id="missing_field",
        ),
        pytest.param(
            lambda c: _edited(c, lambda d: d["ops"].pop("Reader")),
            r"it holds no state for the operator 'Reader'",
            id="missing_reader_state",
        ),
    ],
)
def test_unreadable_checkpoints(files, saved, make_bad, match):
    info = _build_error(files, make_bad(saved))
    assert info.type is CheckpointError, info.value
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith("Cannot restore the checkpoint: ")
    assert info.match(match)


def test_every_truncation_is_refused(files, saved):
    for k in range(0, len(saved), 4):
        info = _build_error(files, saved[:k])
        assert info.type is CheckpointError, (k, info.value)
        assert info.match(r"^Cannot restore the checkpoint: it is (truncated|not valid JSON) \(")


def test_every_truncation_is_reported_as_truncated(files, saved):
    wrong = {}
    for k in range(0, len(saved), 4):
        message = str(_build_error(files, saved[:k]).value)
        if "it is truncated" not in message:
            wrong[k] = message
    assert not wrong, f"{len(wrong)} of {len(range(0, len(saved), 4))}: {wrong}"


@pytest.mark.parametrize("bad", [None, 42, {"iter": 3}, ["x"]], ids=lambda b: type(b).__name__)
def test_a_checkpoint_that_is_not_bytes_or_str(files, saved, bad):
    if bad is None:  # None means "no checkpoint": the pipeline starts from the beginning
        pipe = reader_pipe(files, checkpoint=None)
        pipe.build()
        assert not pipe.is_restored_from_checkpoint
        return
    info = _build_error(files, bad)
    assert info.type is TypeError
    assert info.match(rf"A checkpoint is bytes or str .*got {type(bad).__name__}")


def test_bytearray_and_memoryview_are_bytes(files, saved):
    for cpt in (bytearray(saved), memoryview(saved)):
        pipe = reader_pipe(files, checkpoint=cpt)
        pipe.build()
        assert pipe.checkpoint() == saved


@pytest.mark.parametrize(
    ("other", "auto_named", "named"),
    [
        pytest.param(
            {"flip": False},
            r"operators not in this pipeline: \['__CoinFlip_\d+'\]\)",
            r"operators not in this pipeline: \['Flip'\]\)",
            id="operator_removed",
        ),
        pytest.param(
            {"random_args": {"range": (0.0, 2.0)}},
            r"operators whose type, arguments or inputs changed: \['__Uniform_\d+'\]\)",
            r"operators whose type, arguments or inputs changed: \['Uniform'\]\)",
            id="argument_changed",
        ),
        pytest.param(
            {"random_op": "normal"},
            r"operators not in this pipeline: \['__Uniform_\d+'\]; operators of this pipeline "
            r"not in the saved one: \['__Normal_\d+'\]\)",
            r"operators whose type, arguments or inputs changed: \['Uniform'\]\)",
            id="type_changed",
        ),
    ],
)
@pytest.mark.parametrize("naming", ["auto_named", "named"])
def test_a_checkpoint_of_another_pipeline(files, other, auto_named, named, naming):
    pipe = reader_pipe(files, named=naming == "named")
    run_n(pipe, 3)
    info = _build_error(files, pipe.checkpoint(), named=naming == "named", **other)
    assert info.type is CheckpointError, info.value
    assert info.match(r"^Cannot restore the checkpoint: it was saved from another pipeline \(")
    assert info.match(auto_named if naming == "auto_named" else named)
    assert info.match(r"Restore it into a pipeline defined as the saved one")


@pytest.mark.parametrize("named", [False, True], ids=["auto_named", "named"])
def test_a_checkpoint_of_a_pipeline_with_an_operator_less(files, named):
    small = reader_pipe(files, flip=False, named=named)
    run_n(small, 2)
    # restored into one with a coin flip more
    info = _build_error(files, small.checkpoint(), named=named)
    assert info.type is CheckpointError
    flip = r"'Flip'" if named else r"'__CoinFlip_\d+'"
    assert info.match(rf"operators of this pipeline not in the saved one: \[{flip}\]\)")
    assert "not in this pipeline:" not in str(info.value)
    assert "changed" not in str(info.value)


def test_a_named_reader_with_other_arguments(files, saved):
    # found by the reader itself, which checks how the saved one shuffled
    info = _build_error(files, saved, reader={"shuffle_after_epoch": True})
    assert info.type is OperatorError
    assert info.match(r"readers\.file` \(Reader\): cannot restore the reader state")
    assert info.match(r"the saved reader shuffled as 'none', this one as 'epoch:")


def test_a_reader_state_of_another_dataset_size(files, saved):
    # the graph is the same (a reader of `files`), only the saved reader read more samples
    bad = _edited(saved, lambda d: d["ops"]["Reader"].update(n=N_FILES + 5))
    info = _build_error(files, bad)
    assert info.type is OperatorError
    assert info.match(r"readers\.file")
    assert info.match(r"Reader")
    assert info.match(rf"read {N_FILES + 5} samples, this one reads {N_FILES}")


def test_a_random_shuffle_state_into_a_reader_that_does_not_shuffle(files, saved):
    shuffled = reader_pipe(files, READERS["random_shuffle_fill16"])
    run_n(shuffled, 2)
    state = json.loads(shuffled.checkpoint())["ops"]["Reader"]
    bad = _edited(saved, lambda d: d["ops"].update(Reader=state))
    info = _build_error(files, bad)
    assert info.type is OperatorError
    assert info.match(r"readers\.file")
    assert info.match(r"shuffled as 'buffer:16', this one as 'none'")


# -- 6. external sources a checkpoint cannot restore --------------------------------------------


def _generator() -> Any:
    yield [np.zeros(2, np.int32)] * 2


def _es_pipe(kind: str, enable: bool) -> dali.Pipeline:
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=enable)
    batch = [np.zeros(2, np.int32)] * 2
    sources: dict[str, dict[str, Any]] = {
        "iterable": {"source": [batch] * 3},
        "parameterless": {"source": lambda: batch},
        "generator": {"source": _generator},
        "feed_input": {},
        "one_parameter": {"source": lambda i: batch},
        "sample_info": {"source": lambda info: np.zeros(2, np.int32), "batch": False},
    }
    with pipe:
        pipe.set_outputs(fn.external_source(name=f"src_{kind}", **sources[kind]))
    return pipe


def _build_warnings(pipe: dali.Pipeline) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe.build()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("iterable", "with an iterable as a 'source'"),
        ("parameterless", "with parameterless callable as a 'source'"),
        ("feed_input", "fed with `feed_input`"),
        ("generator", "with a generator function as a 'source'"),
    ],
)
def test_unrestorable_external_sources_warn_at_build(kind, reason):
    pipe = _es_pipe(kind, enable=True)
    messages = _build_warnings(pipe)
    assert len(messages) == 1, messages
    assert f"'src_{kind}'" in messages[0]
    assert reason in messages[0]
    assert "A checkpoint doesn't capture the state" in messages[0]


@pytest.mark.parametrize(
    "kind", ["iterable", "parameterless", "feed_input", "generator", "one_parameter", "sample_info"]
)
def test_no_warning_without_checkpointing(kind):
    assert _build_warnings(_es_pipe(kind, enable=False)) == []


@pytest.mark.parametrize("kind", ["one_parameter", "sample_info"])
def test_restorable_external_sources_do_not_warn(kind):
    assert _build_warnings(_es_pipe(kind, enable=True)) == []


# -- 7. restoring into a running pipeline (Pipeline.restore, our extension) ---------------------


@pytest.mark.parametrize("config", ["plain", "random_shuffle_fill16", "shuffle_after_epoch"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_restore_in_place_continues_exactly(files, config, depth):
    # the pipeline restored into has run ahead (prefetched) on its own, with another seed
    for cut in cut_points(zlib.crc32(config.encode()), count=6):
        saved = reader_pipe(files, READERS[config], **EXECUTORS[depth])
        run_n(saved, cut)
        cpt = saved.checkpoint()
        expected = run_n(saved, N_AFTER)
        other = reader_pipe(files, READERS[config], seed=99, **EXECUTORS[depth])
        run_n(other, (cut * 7) % 11 + 1)
        other.restore(cpt)
        assert other.is_restored_from_checkpoint
        assert other.checkpoint() == cpt  # nothing consumed since: the same position
        try:
            assert_same_batches(expected, run_n(other, N_AFTER))
        except AssertionError as e:
            raise AssertionError(f"checkpoint saved after {cut} runs: {e}") from None


def test_restore_in_place_before_build_and_its_errors(files):
    saved = reader_pipe(files)
    run_n(saved, 3)
    cpt = saved.checkpoint()
    expected = run_n(saved, 2)
    fresh = reader_pipe(files)
    fresh.restore(cpt)  # not built yet: restored at build, as with checkpoint=
    assert fresh.is_restored_from_checkpoint
    assert_same_batches(expected, run_n(fresh, 2))
    off = reader_pipe(files, enable_checkpointing=False)
    run_n(off, 1)
    with pytest.raises(RuntimeError, match="Cannot restore checkpoint"):
        off.restore(cpt)
    other = reader_pipe(files, flip=False)
    run_n(other, 1)
    before = other.checkpoint()
    with pytest.raises(CheckpointError, match="another pipeline"):
        other.restore(cpt)
    assert other.checkpoint() == before  # a refused checkpoint changes nothing


# -- snapshot and rewind (our extension; no enable_checkpointing needed) ------------------------


@pytest.mark.parametrize("parallelism", ["threads", "processes"])
def test_rewind_goes_back_to_the_start_or_to_a_snapshot(files, parallelism):
    def make():
        pipe = dali.Pipeline(
            batch_size=3, num_threads=2, device_id=None, seed=11, cpu_parallelism=parallelism
        )
        with pipe:
            _, labels = fn.readers.file(files=files, random_shuffle=True, initial_fill=4)
            counter = fn.external_source(lambda i: np.full((3, 1), i, np.int32), batch=True)
            pipe.set_outputs(labels, counter, fn.random.uniform(range=(0.0, 1.0)))
        return pipe

    pipe = make()
    try:
        first = [[o.as_array().copy() for o in pipe.run()] for _ in range(5)]
        pipe.rewind()  # where it stood when built
        again = [[o.as_array().copy() for o in pipe.run()] for _ in range(2)]
        snap = pipe.snapshot()
        later = [[o.as_array().copy() for o in pipe.run()] for _ in range(3)]
        pipe.rewind(snap)
        replay = [[o.as_array().copy() for o in pipe.run()] for _ in range(3)]
        for got, want in zip([*again, *later], first):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)
        for got, want in zip(replay, later):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)
        with pytest.raises(RuntimeError, match="enable_checkpointing"):
            pipe.checkpoint()  # (a checkpoint still needs it, as in DALI)
    finally:
        pipe.close()
