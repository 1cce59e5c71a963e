"""dali.plugin.jax.clu.t5x: T5X's data-source entry points, with fakes of T5X's objects.

T5X is not installed: its partitioner, data layout and checkpoint config are stand-ins with the
attributes T5X's have, and upstream ``utils.prepare_train_iter`` is re-enacted with the real
clu classes it uses. The sharded tests run on four fake CPU devices (the XLA flag below, set
before JAX starts its CPU backend). The gin tests parse the gin files of ``examples/t5x``
against a stand-in of T5X's ``train()`` (skipped without gin-config). Images: the 21-image tree
of `make_image_tree`, read through its ``list.txt`` so that every label names its image.
"""

from __future__ import annotations

import os

_FLAG = "--xla_force_host_platform_device_count=4"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()

import dataclasses
import inspect
import logging
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("clu")

from clu.data.dataset_iterator import ArraySpec, DatasetIterator, PeekableDatasetIterator
from dali import fn
from dali.pipeline import pipeline_def
from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax.clu import DALIGenericPeekableIterator, t5x
from dali.testing import check_save_restore
from jax.sharding import Mesh, NamedSharding, PartitionSpec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "t5x"
N = 21  # images in the tree
SIZE = 16


# -- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("PIL")
    from dali._testing.images import make_image_tree

    root = tmp_path_factory.mktemp("t5x_images")
    make_image_tree(root)
    return str(root)


@pytest.fixture(scope="module")
def devices() -> list[Any]:
    cpus = jax.devices("cpu")
    if len(cpus) < 4:
        pytest.skip(f"needs 4 CPU devices; JAX's CPU backend started with {len(cpus)}")
    return cpus[:4]


def images(file_root, shard_id=0, num_shards=1, pad_last_batch=False):
    """Image ``i`` of the tree with label ``i``, 16×16."""
    jpegs, labels = fn.readers.file(
        file_root=file_root,
        file_list=os.path.join(file_root, "list.txt"),
        name="reader",
        shard_id=shard_id,
        num_shards=num_shards,
        pad_last_batch=pad_last_batch,
    )
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.resize(images, resize_x=SIZE, resize_y=SIZE), labels


def unsharded(file_root):
    jpegs, labels = fn.readers.file(file_root=file_root, name="reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=SIZE, resize_y=SIZE), labels


def config(image_dir: str, **kwargs: Any) -> t5x.DaliDatasetConfig:
    pipeline_kwargs = {"file_root": image_dir, **kwargs.pop("pipeline_kwargs", {})}
    return t5x.DaliDatasetConfig(
        kwargs.pop("pipeline", images),
        ["images", "labels"],
        batch_size=kwargs.pop("batch_size", 8),
        reader_name="reader",
        pipeline_kwargs=pipeline_kwargs,
        **kwargs,
    )


def labels(batch: dict[str, Any]) -> list[int]:
    return np.asarray(batch["labels"]).ravel().tolist()


def cyclic(start: int, n: int) -> list[int]:
    return [(start + k) % N for k in range(n)]


# Stand-ins of T5X's objects: the attributes T5X's partitioner, DataLayout and checkpoint
# configs have (t5x/partitioning.py, t5x/utils.py).
@dataclasses.dataclass
class Partitioner:
    mesh: Any
    data_partition_spec: Any = dataclasses.field(default_factory=lambda: PartitionSpec("data"))


@dataclasses.dataclass
class DataLayout:
    batch_size: int
    shard_id: int = 0
    num_shards: int = 1
    is_first_host_in_replica_set: bool = True


@dataclasses.dataclass
class SaveCheckpointConfig:
    dtype: str = "float32"
    save_dataset: bool = False


@dataclasses.dataclass
class RestoreCheckpointConfig:
    path: Any
    mode: str = "latest"
    restore_dataset: bool = False


@dataclasses.dataclass
class CheckpointConfig:
    save: SaveCheckpointConfig | None = None
    restore: RestoreCheckpointConfig | None = None


def mesh_1d(devices: list[Any]) -> Mesh:
    return Mesh(np.array(devices), ("data",))


# -- DaliDatasetConfig ----------------------------------------------------------------------


def test_config_normalises_and_checks(image_dir):
    cfg = config(image_dir, last_batch_policy="drop")
    assert cfg.last_batch_policy is LastBatchPolicy.DROP
    assert cfg.output_map == ["images", "labels"] and cfg.name == "validation"
    with pytest.raises(ValueError, match="PARTIAL"):
        config(image_dir, last_batch_policy=LastBatchPolicy.PARTIAL)
    with pytest.raises(ValueError, match="FILL, DROP"):
        config(image_dir, last_batch_policy="sometimes")
    with pytest.raises(ValueError, match=r"\['batch_size', 'shard_id'\]"):
        config(image_dir, pipeline_kwargs={"shard_id": 1, "batch_size": 2})
    with pytest.raises(ValueError, match="batch_size"):
        config(image_dir, batch_size=0)
    with pytest.raises(ValueError, match="output_map"):
        t5x.DaliDatasetConfig(images, "images", batch_size=8)
    with pytest.raises(TypeError, match="remove @pipeline_def"):
        t5x.DaliDatasetConfig(pipeline_def(images), ["images", "labels"], batch_size=8)
    with pytest.raises(TypeError, match="graph function"):
        t5x.DaliDatasetConfig("images", ["images"], batch_size=8)


# -- get_dataset: host-local training data ----------------------------------------------------


def test_get_dataset_is_an_endless_host_local_clu_iterator(image_dir):
    it = t5x.get_dataset(config(image_dir), 0, 1, None)
    assert isinstance(it, DatasetIterator)
    assert isinstance(it, DALIGenericPeekableIterator)
    assert it.element_spec == {
        "images": ArraySpec(dtype=np.dtype(np.uint8), shape=(8, SIZE, SIZE, 3)),
        "labels": ArraySpec(dtype=np.dtype(np.int32), shape=(8, 1)),
    }
    seen = []
    for _ in range(7):  # 56 samples: through two epoch ends, no StopIteration
        batch = next(it)
        assert all(type(v) is np.ndarray for v in batch.values())
        seen += labels(batch)
    assert seen == cyclic(0, 56)  # FILL: the next epoch goes on where one ends
    assert iter(it) is it
    assert labels(next(it)) == cyclic(56, 8)  # iter() restarted nothing


def test_get_dataset_reads_this_hosts_shard(image_dir):
    cfg = config(image_dir)
    host0, host1 = (t5x.get_dataset(cfg, k, 2) for k in range(2))
    assert host1.element_spec["images"].shape == (4, SIZE, SIZE, 3)  # 8 // 2 per host
    assert labels(next(host0)) == [0, 1, 2, 3]
    assert labels(next(host1)) == [10, 11, 12, 13]  # reader shard 1 of 2: images 10..20


def test_get_dataset_num_epochs_and_peek_at_the_end(image_dir):
    it = t5x.get_dataset(config(image_dir), 0, 1, None, num_epochs=2)
    got = []
    while True:
        try:
            peeked = it.peek()
        except StopIteration:
            break
        batch = next(it)
        assert batch is peeked
        got += labels(batch)
    assert got == cyclic(0, 48)  # two epochs of 3 batches (FILL carries over)
    with pytest.raises(StopIteration):
        next(it)
    it.reset()  # the next pass: two more epochs
    assert labels(next(it)) == cyclic(48, 8)


def test_get_dataset_argument_errors(image_dir, caplog):
    with pytest.raises(ValueError, match=r"Batch size \(8\) must be divisible"):
        t5x.get_dataset(config(image_dir), 0, 3)
    with pytest.raises(TypeError, match="must take shard_id and num_shards"):
        t5x.get_dataset(config(image_dir, pipeline=unsharded), 1, 2)
    with pytest.raises(ValueError, match=r"shard_id 2 is not in \[0, 2\)"):
        t5x.get_dataset(config(image_dir), 2, 2)
    # one host: a graph function without shard arguments is fine
    it = t5x.get_dataset(config(image_dir, pipeline=unsharded), 0, 1)
    assert next(it)["images"].shape == (8, SIZE, SIZE, 3)
    with caplog.at_level(logging.WARNING, logger="dali.plugin.jax.clu._t5x"):
        t5x.get_dataset(config(image_dir), 0, 1, feature_converter_cls=object)
    assert "does not apply feature_converter_cls" in caplog.text


def test_get_dataset_save_restore_round_trip(image_dir, tmp_path):
    cfg = config(image_dir)

    def make(checkpoints=None):
        assert checkpoints is None  # restored in place below
        return t5x.get_dataset(cfg, 1, 2)

    # across the epoch ends of the endless stream, restored into a used iterator
    check_save_restore(make, 2, 5, in_place=1)
    # save(filename) with a peeked element pending: the restored iterator returns it next
    it = make()
    next(it)
    pending = it.peek()
    it.save(tmp_path / "ds.json")
    expected = [labels(next(it)) for _ in range(4)]
    assert expected[0] == labels(pending)
    restored = make()
    restored.restore(tmp_path / "ds.json")
    assert [labels(next(restored)) for _ in range(4)] == expected


def test_next_peek_and_element_spec_from_several_threads(image_dir):
    """The pass counters and the base class's state under one lock order."""
    from concurrent.futures import ThreadPoolExecutor

    it = t5x.get_dataset(config(image_dir), 0, 1)
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(lambda: labels(next(it))) for _ in range(12)]
        futures += [pool.submit(lambda: it.element_spec) for _ in range(4)]
        futures += [pool.submit(lambda: labels(it.peek_async().result())) for _ in range(4)]
        results = [f.result(timeout=60) for f in futures]
    taken = sorted(results[:12])
    assert taken == sorted(cyclic(8 * k, 8) for k in range(12))  # each batch once
    assert all(spec["labels"].shape == (8, 1) for spec in results[12:16])

    # a spec from data (external_source declares no shape): element_spec peeks under the
    # lock while other threads take elements
    def numbers():
        return fn.external_source(lambda i: np.full((2, 3), i, np.int32), batch=True)

    cfg = t5x.DaliDatasetConfig(numbers, ["x"], batch_size=2)
    for _ in range(3):
        it = t5x.get_dataset(cfg, 0, 1, continue_from_last_checkpoint=False)
        with ThreadPoolExecutor(4) as pool:
            nexts = [pool.submit(lambda it=it: int(next(it)["x"][0, 0])) for _ in range(6)]
            specs = [pool.submit(lambda it=it: it.element_spec) for _ in range(2)]
            assert sorted(f.result(timeout=60) for f in nexts) == list(range(6))
            assert all(f.result(timeout=60)["x"].shape == (2, 3) for f in specs)


def test_get_dataset_without_checkpointing(image_dir):
    it = t5x.get_dataset(config(image_dir), 0, 1, continue_from_last_checkpoint=False)
    assert not it.checkpointing_enabled
    with pytest.raises(ValueError, match="checkpointing disabled"):
        it.checkpoints()


# -- get_eval_datasets ------------------------------------------------------------------------


def test_eval_one_epoch_with_padding_mask_and_rewind(image_dir):
    cfg = config(image_dir, pipeline_kwargs={"pad_last_batch": True}, name="images_eval")
    datasets = t5x.get_eval_datasets(cfg, 0, 1, None, None)
    assert list(datasets) == ["images_eval"]
    ds = datasets["images_eval"]
    passes = []
    for _ in range(2):  # T5X iterates the same object at every evaluation
        passes.append([(labels(b), ds.is_nonpadding.tolist()) for b in ds])
    assert passes[0] == passes[1]
    assert [lab for lab, _ in passes[0]] == [
        list(range(8)),
        list(range(8, 16)),
        [16, 17, 18, 19, 20, 20, 20, 20],  # the reader pads with the last image
    ]
    assert passes[0][2][1] == [True] * 5 + [False] * 3
    assert all(mask == [True] * 8 for _, mask in passes[0][:2])


def test_eval_steps_wrap_epochs_and_reset_rewinds(image_dir):
    ds = t5x.get_eval_datasets(config(image_dir), 1, 2, eval_steps=5)["validation"]
    first = [labels(b) for b in ds]
    assert first == [cyclic(10, 4), cyclic(14, 4), cyclic(18, 4), cyclic(1, 4), cyclic(5, 4)]
    with pytest.raises(StopIteration):
        ds.peek()
    assert [labels(b) for b in ds] == first  # iter() rewinds
    assert labels(next(iter(ds))) == first[0]
    assert labels(next(ds)) == first[1]
    ds.reset()  # mid-pass: back to the first batch
    assert labels(ds.peek()) == first[0]
    assert [labels(b) for b in ds] == first  # (iter() keeps the peeked first batch)
    with pytest.raises(ValueError, match="eval_steps"):
        t5x.get_eval_datasets(config(image_dir), 0, 1, eval_steps=0)


def _get_zeros_batch_like_dataset(dataset, batch_size=None):
    """T5X's ``utils.get_zeros_batch_like_dataset``, as it is written (it takes a
    ``tf.data.Dataset``): the element spec's ``shape`` and ``dtype.as_numpy_dtype``."""
    import jax.numpy as jnp

    reshape = lambda s: (batch_size, *s[1:]) if batch_size else tuple(s)
    batch_spec = {
        k: jax.ShapeDtypeStruct(reshape(t.shape), t.dtype.as_numpy_dtype)
        for k, t in dataset.element_spec.items()
    }
    return {k: jnp.zeros(t.shape, t.dtype) for k, t in batch_spec.items()}


def test_t5x_training_eval_loop_runs(image_dir):
    """What T5X's ``train()`` does with ``train_eval_get_dataset_fn``'s data sets: it
    compiles the eval step from zeros shaped like their ``element_spec``, then at every
    evaluation iterates ``ds.as_numpy_iterator()`` to the end."""
    train_ds = t5x.get_dataset(config(image_dir), 0, 1)
    eval_sets = t5x.get_eval_datasets(config(image_dir), 0, 1, eval_steps=3)
    compiled = {task: _get_zeros_batch_like_dataset(ds) for task, ds in eval_sets.items()}
    zeros = compiled["validation"]
    assert zeros["images"].shape == (8, SIZE, SIZE, 3) and zeros["images"].dtype == np.uint8
    spec = eval_sets["validation"].element_spec["images"]
    assert spec.dtype == np.uint8 and np.dtype(spec.dtype) == np.uint8  # still a NumPy dtype
    evaluations = []
    for _ in range(2):  # training steps between evaluations
        next(train_ds)
        next(train_ds)
        for task, ds in eval_sets.items():
            batches = list(ds.as_numpy_iterator())
            assert all(isinstance(b["images"], np.ndarray) for b in batches)
            assert all(b["images"].shape == zeros["images"].shape for b in batches)
            evaluations.append((task, [labels(b) for b in batches]))
    assert evaluations[0] == evaluations[1]  # every evaluation reads the same batches
    assert len(evaluations[0][1]) == 3


def test_eval_fewer_steps_than_an_epoch(image_dir):
    ds = t5x.get_eval_datasets(config(image_dir), 0, 1, 2)["validation"]
    assert [labels(b) for b in ds] == [list(range(8)), list(range(8, 16))]
    assert ds.is_nonpadding.tolist() == [True] * 8


# -- upstream T5X: utils.prepare_train_iter re-enacted -----------------------------------------


class ShardedDatasetIterator(DatasetIterator):
    """T5X's ``utils.ShardedDatasetIterator``: host-local batches → global jax.Arrays."""

    def __init__(self, iterator, sharding, global_shapes):
        self._iterator, self._sharding, self._shapes = iterator, sharding, global_shapes

    def __next__(self):
        local = next(self._iterator)
        return {
            k: jax.make_array_from_process_local_data(self._sharding, v, self._shapes[k])
            for k, v in local.items()
        }

    @property
    def element_spec(self):
        return self._iterator.element_spec

    def save(self, filename):
        self._iterator.save(filename)

    def restore(self, filename):
        self._iterator.restore(filename)


def prepare_train_iter(train_iter, *, partitioner, checkpoint_cfg, data_layout):
    """What upstream ``t5x.utils.prepare_train_iter`` does with a non-tf.data iterator."""
    del checkpoint_cfg
    if not isinstance(train_iter, DatasetIterator):
        raise ValueError(  # noqa: TRY004 - T5X's own exception
            f"get_dataset_fn returned unsupported type {type(train_iter)}."
        )
    input_shapes = jax.tree.map(
        lambda x: (data_layout.batch_size, *x.shape[1:]), train_iter.element_spec
    )
    sharding = NamedSharding(partitioner.mesh, partitioner.data_partition_spec)
    return PeekableDatasetIterator(ShardedDatasetIterator(train_iter, sharding, input_shapes))


def test_upstream_t5x_prepares_the_host_local_iterator(image_dir, devices, tmp_path):
    layout = DataLayout(batch_size=8)
    train_iter = prepare_train_iter(
        t5x.get_dataset(config(image_dir), layout.shard_id, layout.num_shards, None),
        partitioner=Partitioner(mesh_1d(devices)),
        checkpoint_cfg=CheckpointConfig(),
        data_layout=layout,
    )
    assert train_iter.element_spec["images"].shape == (8, SIZE, SIZE, 3)
    warm = train_iter.peek_async().result()  # T5X warms the pipeline up this way
    batch = next(train_iter)
    assert batch is warm
    assert batch["labels"].sharding == NamedSharding(mesh_1d(devices), PartitionSpec("data"))
    assert [s.data.shape for s in batch["labels"].addressable_shards] == [(2, 1)] * 4
    # T5X's Checkpointer saves and restores through the wrappers
    train_iter.save(tmp_path / "train_ds-000-of-001")
    expected = [labels(next(train_iter)) for _ in range(3)]
    train_iter.restore(tmp_path / "train_ds-000-of-001")
    assert [labels(next(train_iter)) for _ in range(3)] == expected


# -- create_sharded_iterator: global jax.Arrays -----------------------------------------------


def test_create_sharded_iterator_over_four_devices(image_dir, devices):
    mesh = mesh_1d(devices)
    host_local = t5x.get_dataset(config(image_dir, prepare_first_batch=False), 0, 1)
    it = t5x.create_sharded_iterator(
        host_local, partitioner=Partitioner(mesh), data_layout=DataLayout(batch_size=8)
    )
    assert isinstance(it, t5x.T5xIterator) and it is not host_local
    assert len(it.pipelines) == 4
    assert it.element_spec["images"] == ArraySpec(np.dtype(np.uint8), (8, SIZE, SIZE, 3))
    batch = next(it)
    images = batch["images"]
    assert isinstance(images, jax.Array)
    assert images.sharding == NamedSharding(mesh, PartitionSpec("data"))
    assert images.shape == (8, SIZE, SIZE, 3)
    # pipeline k reads reader shard k of 4 (images 0-4, 5-9, 10-14, 15-20): 2 samples each
    shards = sorted(batch["labels"].addressable_shards, key=lambda s: s.device.id)
    assert [np.asarray(s.data).ravel().tolist() for s in shards] == [
        [0, 1],
        [5, 6],
        [10, 11],
        [15, 16],
    ]
    for _ in range(5):  # endless, as the host-local stream was
        next(it)


def test_create_sharded_iterator_model_parallel_mesh(image_dir, devices):
    """T5X's 2-D mesh: the batch split over 'data', replicated over 'model'."""
    mesh = Mesh(np.array(devices).reshape(2, 2), ("data", "model"))
    it = t5x.create_sharded_iterator(
        config(image_dir), Partitioner(mesh), CheckpointConfig(), DataLayout(8)
    )
    assert len(it.pipelines) == 2  # one per batch shard
    batch = next(it)
    per_device = {
        s.device.id: np.asarray(s.data).ravel().tolist() for s in batch["labels"].addressable_shards
    }
    assert per_device == {0: [0, 1, 2, 3], 1: [0, 1, 2, 3], 2: [10, 11, 12, 13], 3: cyclic(10, 4)}


def test_create_sharded_eval_iterator_keeps_its_passes(image_dir, devices):
    mesh = mesh_1d(devices)
    ds = t5x.get_eval_datasets(config(image_dir), 0, 1, None)["validation"]
    it = t5x.create_sharded_iterator(ds, Partitioner(mesh), None, DataLayout(8))
    first = [(labels(b), np.asarray(it.is_nonpadding).tolist()) for b in it]
    assert [lab for lab, _ in first] == [
        [0, 1, 5, 6, 10, 11, 15, 16],
        [2, 3, 7, 8, 12, 13, 17, 18],
        [4, 5, 9, 10, 14, 15, 19, 20],  # shards of 5, 5, 5 and 6 images; FILL
    ]
    assert first[2][1] == [True, False, True, False, True, False, True, True]
    assert isinstance(it.is_nonpadding, jax.Array)
    assert [(labels(b), np.asarray(it.is_nonpadding).tolist()) for b in it] == first


def test_create_sharded_iterator_checks_the_batch_size(image_dir, devices):
    with pytest.raises(ValueError, match="batch_size=16"):
        t5x.create_sharded_iterator(
            config(image_dir), Partitioner(mesh_1d(devices)), None, DataLayout(16)
        )
    with pytest.raises(TypeError, match="one pipeline per batch shard"):
        t5x.create_sharded_iterator(
            config(image_dir, pipeline=unsharded), Partitioner(mesh_1d(devices)), None, None
        )
    with pytest.raises(TypeError, match="get_dataset or get_eval_datasets"):
        t5x.create_sharded_iterator(object(), Partitioner(mesh_1d(devices)))


def test_create_sharded_iterator_restores_the_dataset_checkpoint(image_dir, devices, tmp_path):
    """T5X's layout: <model_dir>/checkpoint_<step>/train_ds-<shard>-of-<shards>."""
    partitioner, layout = Partitioner(mesh_1d(devices)), DataLayout(8)
    fresh = CheckpointConfig(save=SaveCheckpointConfig(save_dataset=True))
    # no checkpointing asked of get_dataset: T5X's save_dataset turns it on
    source = t5x.get_dataset(config(image_dir), 0, 1, continue_from_last_checkpoint=False)
    it = t5x.create_sharded_iterator(source, partitioner, fresh, layout)
    assert it.checkpointing_enabled
    for _ in range(4):
        next(it)
    model_dir = tmp_path / "model"
    (model_dir / "checkpoint_4").mkdir(parents=True)
    (model_dir / "checkpoint_2").mkdir()  # older: not the one "latest" picks
    it.save(model_dir / "checkpoint_4" / "train_ds-000-of-001")
    expected = [labels(next(it)) for _ in range(3)]

    for restore in (
        RestoreCheckpointConfig(path=str(model_dir), restore_dataset=True),
        RestoreCheckpointConfig(
            path=[str(model_dir / "checkpoint_4")], mode="specific", restore_dataset=True
        ),
        RestoreCheckpointConfig(
            path=str(model_dir / "checkpoint_4" / "checkpoint"),
            mode="specific",
            restore_dataset=True,
        ),
    ):
        cfg = CheckpointConfig(save=fresh.save, restore=restore)
        restored = t5x.create_sharded_iterator(config(image_dir), partitioner, cfg, layout)
        assert [labels(next(restored)) for _ in range(3)] == expected, restore

    # restore_dataset off, or nothing saved yet under a "latest" path: from the start
    for restore in (
        RestoreCheckpointConfig(path=str(model_dir)),
        RestoreCheckpointConfig(path=str(tmp_path / "empty"), restore_dataset=True),
        RestoreCheckpointConfig(path=[], restore_dataset=True),
    ):
        cfg = CheckpointConfig(restore=restore)
        it = t5x.create_sharded_iterator(config(image_dir), partitioner, cfg, layout)
        assert labels(next(it)) == [0, 1, 5, 6, 10, 11, 15, 16]
    # T5X fails where the checkpoint has no dataset file for this host; so do we
    missing = RestoreCheckpointConfig(
        path=str(model_dir / "checkpoint_2"), mode="specific", restore_dataset=True
    )
    with pytest.raises(FileNotFoundError, match="train_ds-000-of-001"):
        t5x.create_sharded_iterator(
            config(image_dir), partitioner, CheckpointConfig(restore=missing), layout
        )
    # the host's shard names its file
    host1 = RestoreCheckpointConfig(path=str(model_dir), restore_dataset=True)
    with pytest.raises(FileNotFoundError, match="train_ds-001-of-002"):
        t5x.create_sharded_iterator(
            config(image_dir), partitioner, CheckpointConfig(restore=host1), DataLayout(8, 1, 2)
        )


def test_eval_iterators_ignore_the_dataset_checkpoint(image_dir, devices, tmp_path):
    restore = RestoreCheckpointConfig(path=str(tmp_path), mode="specific", restore_dataset=True)
    ds = t5x.get_eval_datasets(config(image_dir), 0, 1, 1)["validation"]
    it = t5x.create_sharded_iterator(
        ds, Partitioner(mesh_1d(devices)), CheckpointConfig(restore=restore), DataLayout(8)
    )
    assert [labels(b) for b in it] == [[0, 1, 5, 6, 10, 11, 15, 16]]


def test_sharded_iterator_from_a_mesh(image_dir, devices, tmp_path):
    mesh = mesh_1d(devices[:2])
    it = t5x.sharded_iterator(config(image_dir), mesh, PartitionSpec("data"))
    assert len(it.pipelines) == 2
    next(it)
    it.save(tmp_path / "state.json")
    expected = [labels(next(it)) for _ in range(4)]
    restored = t5x.sharded_iterator(
        config(image_dir), mesh, PartitionSpec("data"), restore_from=tmp_path / "state.json"
    )
    assert [labels(next(restored)) for _ in range(4)] == expected
    # a checkpoint of a host-local iterator restores elastically into the sharded one
    host_local = t5x.get_dataset(config(image_dir), 0, 1)
    next(host_local)
    host_local.save(tmp_path / "host.json")
    restored = t5x.sharded_iterator(
        config(image_dir), mesh, PartitionSpec("data"), restore_from=tmp_path / "host.json"
    )
    assert isinstance(next(restored)["images"], jax.Array)


@pytest.mark.gpu
def test_mixed_decoding_host_local_and_sharded_on_the_gpu(image_dir):
    """The factories over a GPU pipeline: host-local batches come back to the host as NumPy,
    sharded ones stay on the GPUs; both hold the images CPU decoding gives (to rounding)."""
    if jax.default_backend() != "gpu":
        pytest.skip("needs a CUDA build of JAX")

    def gpu_images(file_root, shard_id=0, num_shards=1):
        jpegs, labels = fn.readers.file(
            file_root=file_root,
            file_list=os.path.join(file_root, "list.txt"),
            name="reader",
            shard_id=shard_id,
            num_shards=num_shards,
        )
        images = fn.decoders.image(jpegs, device="mixed")
        return fn.resize(images, resize_x=SIZE, resize_y=SIZE), labels.gpu()

    cpu = next(t5x.get_dataset(config(image_dir), 0, 1))
    host = next(t5x.get_dataset(config(image_dir, pipeline=gpu_images), 0, 1))
    assert all(type(v) is np.ndarray for v in host.values())
    assert labels(host) == labels(cpu) == list(range(8))
    diff = np.abs(host["images"].astype(np.int16) - cpu["images"].astype(np.int16))
    assert diff.mean() < 3.0, diff.mean()

    gpus = jax.devices("gpu")
    mesh = Mesh(np.array(gpus), ("data",))
    it = t5x.create_sharded_iterator(
        config(image_dir, pipeline=gpu_images), Partitioner(mesh), None, DataLayout(8)
    )
    batch = next(it)
    assert batch["images"].sharding == NamedSharding(mesh, PartitionSpec("data"))
    assert {d.platform for d in batch["images"].devices()} == {"gpu"}
    if len(gpus) == 1:
        assert labels(batch) == list(range(8))
        diff = np.abs(np.asarray(batch["images"], np.int16) - cpu["images"].astype(np.int16))
        assert diff.mean() < 3.0, diff.mean()


# -- gin ------------------------------------------------------------------------------------

# The parameters of T5X's train() that gin files bind (t5x/train.py), and the three the
# DALI patch of JAX-Toolbox adds; the stand-ins accept exactly these.
_T5X_TRAIN = """
def train(*, model=None, train_dataset_cfg=None, train_eval_dataset_cfg=None,
          infer_eval_dataset_cfg=None, checkpoint_cfg=None, partitioner=None,
          trainer_cls=None, model_dir=None, total_steps=None, eval_steps=None,
          eval_period=None, random_seed=None, summarize_config_fn=None,
          get_dataset_fn=None, train_eval_get_dataset_fn=None,
          run_eval_before_training=False{extra}):
    return dict(locals())
"""
_PATCH = ", prepare_train_iter_fn=None, prepare_eval_iter_fn=None, run_dali_eval=False"


@pytest.fixture
def gin_main(monkeypatch):
    """gin with a stand-in ``__main__`` (T5X's train script); returns a function making its
    ``train`` (upstream, or patched by JAX-Toolbox)."""
    gin = pytest.importorskip("gin")
    monkeypatch.syspath_prepend(str(EXAMPLES))  # `import t5x_data`
    main = types.ModuleType("__main__")
    monkeypatch.setitem(sys.modules, "__main__", main)
    gin.clear_config()
    # each test registers its own stand-in as `__main__.train`
    gin.enter_interactive_mode()

    def make_train(patched: bool):
        namespace: dict[str, Any] = {"__name__": "__main__"}
        exec(_T5X_TRAIN.format(extra=_PATCH if patched else ""), namespace)  # noqa: S102
        main.train = namespace["train"]
        return gin, main.train

    yield make_train
    gin.exit_interactive_mode()
    gin.clear_config()


def _parse(gin: Any, name: str, image_dir: str) -> None:
    gin.parse_config_files_and_bindings(
        [str(EXAMPLES / name)],
        [f"IMAGE_DIR = '{image_dir}'", "DECODER = 'cpu'", f"IMAGE_SIZE = {SIZE}"],
    )


def test_gin_file_wires_the_factories_into_upstream_t5x(gin_main, image_dir):
    gin, train = gin_main(patched=False)
    _parse(gin, "dali_t5x.gin", image_dir)
    bound = gin.get_configurable(train)()
    # (gin passes its wrappers of our functions)
    assert inspect.unwrap(bound["get_dataset_fn"]) is t5x.get_dataset
    assert inspect.unwrap(bound["train_eval_get_dataset_fn"]) is t5x.get_eval_datasets
    cfg, eval_cfg = bound["train_dataset_cfg"], bound["train_eval_dataset_cfg"]
    assert isinstance(cfg, t5x.DaliDatasetConfig)
    assert cfg.pipeline_kwargs["random_shuffle"] is True and cfg.seed == 0
    # what T5X's train() then calls
    train_iter = bound["get_dataset_fn"](cfg, 0, 1, None)
    assert train_iter.element_spec["images"].shape == (8, SIZE, SIZE, 3)
    assert next(train_iter)["images"].dtype == np.uint8
    ((name, ds),) = bound["train_eval_get_dataset_fn"](eval_cfg, 0, 1, None, None).items()
    assert name == "validation"
    assert sum(np.asarray(ds.is_nonpadding).sum() for _ in ds) == N  # every image once


def test_gin_file_for_the_patched_t5x_builds_sharded_iterators(gin_main, image_dir, devices):
    gin, train = gin_main(patched=True)
    gin.add_config_file_search_path(str(EXAMPLES))  # for its `include`
    _parse(gin, "dali_t5x_sharded.gin", image_dir)
    bound = gin.get_configurable(train)()
    assert inspect.unwrap(bound["prepare_train_iter_fn"]) is t5x.create_sharded_iterator
    assert inspect.unwrap(bound["prepare_eval_iter_fn"]) is t5x.create_sharded_iterator
    assert bound["train_dataset_cfg"].prepare_first_batch is False
    # the patched train(): get_dataset_fn, then prepare_train_iter_fn with keywords
    train_iter = bound["get_dataset_fn"](bound["train_dataset_cfg"], 0, 1, None)
    train_iter = bound["prepare_train_iter_fn"](
        train_iter,
        checkpoint_cfg=CheckpointConfig(),
        partitioner=Partitioner(mesh_1d(devices)),
        data_layout=DataLayout(8),
    )
    batch = next(train_iter)
    assert isinstance(batch["images"], jax.Array) and len(batch["images"].devices()) == 4


def test_sharded_gin_file_is_rejected_by_upstream_t5x(gin_main, image_dir):
    gin, _ = gin_main(patched=False)
    gin.add_config_file_search_path(str(EXAMPLES))
    with pytest.raises(ValueError, match="prepare_train_iter_fn"):
        _parse(gin, "dali_t5x_sharded.gin", image_dir)


def test_register_gin_configurables_for_legacy_gin_files(gin_main, image_dir):
    gin, _ = gin_main(patched=False)
    t5x.register_gin_configurables()
    t5x.register_gin_configurables()  # once is enough; twice is harmless
    gin.parse_config(
        [
            "dali.plugin.jax.clu.t5x.DaliDatasetConfig.batch_size = 4",
            "dali.plugin.jax.clu.t5x.DaliDatasetConfig.output_map = ['images', 'labels']",
            "dali.plugin.jax.clu.t5x.get_dataset.num_epochs = 1",
        ]
    )
    make_config = gin.get_configurable("dali.plugin.jax.clu.t5x.DaliDatasetConfig")
    cfg = make_config(images, pipeline_kwargs={"file_root": image_dir}, reader_name="reader")
    assert isinstance(cfg, t5x.DaliDatasetConfig) and cfg.batch_size == 4
    get_dataset = gin.get_configurable("dali.plugin.jax.clu.t5x.get_dataset")
    assert len([labels(b) for b in get_dataset(cfg, 0, 1)]) == 6  # one epoch: num_epochs=1


def test_public_modules_are_sorted():
    from dali.plugin.jax.clu import pax

    for module in (t5x, pax):
        assert sorted(module.__all__) == module.__all__
        assert all(hasattr(module, name) for name in module.__all__)
