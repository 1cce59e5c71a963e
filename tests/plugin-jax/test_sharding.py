"""Sharded global arrays on four fake CPU devices.

Image ``i`` of the tree has label ``i``, so every shard's labels say which samples it holds.
With 4 shards of 21 files, shard ``k`` starts at file ``floor(21k/4)``: 0, 5, 10, 15.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from dali import fn, pipeline_def
from dali.author import CheckpointError
from dali.plugin.jax import DALIGenericIterator, data_iterator
from iterator_utils import TREE_IMAGES as N
from jax.sharding import Mesh, NamedSharding, PartitionSpec

SHARD_STARTS = [0, 5, 10, 15]
SIZE = 16  # images are resized to SIZE×SIZE


def _graph(root, randomized=False):
    """The graph function of the sharded iterators: images and labels of shard ``shard_id``.

    ``randomized``: shuffled, random crops and mirrors, decoded on the GPU where JAX has one
    (what a seed must reproduce in a worker process)."""

    def iterator_fn(num_shards=1, shard_id=0):
        jpegs, labels = fn.readers.file(
            file_list=str(root / "list.txt"),
            name="reader",
            num_shards=num_shards,
            shard_id=shard_id,
            random_shuffle=randomized,
        )
        if not randomized:
            images = fn.decoders.image(jpegs)
            return fn.resize(images, resize_x=SIZE, resize_y=SIZE), labels
        gpu = _on_gpu()
        images = fn.decoders.image(jpegs, device="mixed" if gpu else "cpu")
        images = fn.random_resized_crop(images, size=(SIZE, SIZE))
        images = fn.flip(images, horizontal=fn.random.coin_flip())
        return images, labels.gpu() if gpu else labels

    return iterator_fn


@pytest.fixture(scope="module")
def reference(image_tree):
    """Every image of the tree, decoded and resized by one unsharded pipeline: ``[N, ...]``."""
    pipe = pipeline_def(_graph(image_tree), batch_size=N, num_threads=2, device_id=None)()
    images, labels = pipe.run()
    assert labels.as_array().ravel().tolist() == list(range(N))
    return images.as_array()


def _batch_sharding(devices, axis="batch"):
    return NamedSharding(Mesh(np.array(devices), (axis,)), PartitionSpec(axis))


def _shards(arr):
    """``[(device, first row, labels or rows)]`` of an array's addressable shards, by row."""
    out = []
    for s in arr.addressable_shards:
        start = s.index[0].start or 0
        out.append((s.device, start, np.asarray(s.data)))
    return sorted(out, key=lambda t: (t[1], t[0].id))


def _labels(data) -> list[int]:
    return data.reshape(-1).tolist()


# -- one NamedSharding for all outputs -------------------------------------------------------


def test_named_sharding_gives_global_arrays_with_each_shard_on_its_device(
    image_tree, cpu_devices, reference
):
    sharding = _batch_sharding(cpu_devices)
    iterator_fn = data_iterator(
        _graph(image_tree), output_map=["images", "labels"], reader_name="reader", sharding=sharding
    )
    it = iterator_fn(batch_size=8)
    assert len(it) == 3  # ceil(ceil(21/4)/2): every shard is read in batches of 8/4 = 2
    for step in range(2):
        batch = next(it)
        images, labels = batch["images"], batch["labels"]
        assert images.shape == (8, SIZE, SIZE, 3) and images.dtype == np.uint8
        assert labels.shape == (8, 1) and labels.dtype == np.int32
        assert images.sharding == sharding and labels.sharding == sharding
        assert images.devices() == set(cpu_devices)
        for k, (device, start, data) in enumerate(_shards(labels)):
            assert device == cpu_devices[k] and start == 2 * k
            first = SHARD_STARTS[k] + 2 * step
            assert _labels(data) == [first, first + 1]
        for _device, start, data in _shards(images):
            rows = _labels(np.asarray(labels[start : start + 2]))
            np.testing.assert_array_equal(data, reference[rows])
    # the arrays work in jitted code, sharded as they are
    total = jax.jit(lambda x: x.astype(np.float32).sum())(images)
    assert float(total) == float(np.asarray(images, np.float32).sum())


def test_one_epoch_over_all_shards_sees_every_sample(image_tree, cpu_devices):
    iterator_fn = data_iterator(
        _graph(image_tree),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding=_batch_sharding(cpu_devices),
    )
    it = iterator_fn(batch_size=8)
    seen = [v for batch in it for v in _labels(np.asarray(batch["labels"]))]
    assert len(seen) == 3 * 8
    assert set(seen) == set(range(N))  # FILL: the short shards wrap into their neighbours


def test_data_iterator_injects_shards_devices_threads_and_batch(image_tree, cpu_devices):
    calls = []
    graph = _graph(image_tree)

    def iterator_fn(num_shards=1, shard_id=0):
        calls.append((shard_id, num_shards))
        return graph(num_shards, shard_id)

    it = data_iterator(
        iterator_fn,
        output_map=["i", "l"],
        reader_name="reader",
        sharding=_batch_sharding(cpu_devices),
    )(batch_size=16)
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert [p.device_id for p in it._pipes] == [0, 1, 2, 3]
    assert [p.max_batch_size for p in it._pipes] == [4] * 4  # 16 // 4 devices
    assert [p.num_threads for p in it._pipes] == [4] * 4  # default_num_threads_value()
    assert next(it)["l"].shape == (16, 1)


def test_sharding_over_some_devices(image_tree, cpu_devices):
    sharding = _batch_sharding(cpu_devices[2:])
    it = data_iterator(
        _graph(image_tree), output_map=["i", "l"], reader_name="reader", sharding=sharding
    )(batch_size=8)
    labels = next(it)["l"]
    assert labels.shape == (8, 1) and labels.sharding == sharding
    got = [(d, _labels(x)) for d, _, x in _shards(labels)]
    assert got == [(cpu_devices[2], [0, 1, 2, 3]), (cpu_devices[3], [10, 11, 12, 13])]


def test_2d_mesh_replicates_each_shard_over_the_model_axis(image_tree, cpu_devices):
    mesh = Mesh(np.array(cpu_devices).reshape(2, 2), ("data", "model"))
    sharding = NamedSharding(mesh, PartitionSpec("data"))
    it = data_iterator(
        _graph(image_tree), output_map=["i", "l"], reader_name="reader", sharding=sharding
    )(batch_size=8)
    assert len(it._pipes) == 2  # one pipeline per batch shard, not per device
    labels = next(it)["l"]
    assert labels.shape == (8, 1) and labels.sharding == sharding
    got = [(d.id, start, _labels(x)) for d, start, x in _shards(labels)]
    first, second = [0, 1, 2, 3], [10, 11, 12, 13]  # shards 0 and 1 of 2
    ids = [d.id for d in cpu_devices]
    assert got == [
        (ids[0], 0, first),
        (ids[1], 0, first),
        (ids[2], 4, second),
        (ids[3], 4, second),
    ]


def test_user_pipelines_go_to_the_devices_of_the_sharding_in_order(image_tree, cpu_devices):
    make = pipeline_def(_graph(image_tree), batch_size=2, num_threads=1, device_id=None)
    pipes = [make(num_shards=4, shard_id=k) for k in range(4)]
    sharding = _batch_sharding(cpu_devices)
    it = DALIGenericIterator(pipes, ["i", "l"], reader_name="reader", sharding=sharding)
    labels = next(it)["l"]
    got = [(d, _labels(x)) for d, _, x in _shards(labels)]
    assert got == [(cpu_devices[k], [s, s + 1]) for k, s in enumerate(SHARD_STARTS)]


def test_positional_sharding(image_tree, cpu_devices):
    if not hasattr(jax.sharding, "PositionalSharding"):
        pytest.skip(f"jax {jax.__version__} has no PositionalSharding")
    positional = jax.sharding.PositionalSharding(cpu_devices)
    # a PositionalSharding has the rank of the array: one per output
    sharding = {"i": positional.reshape(4, 1, 1, 1), "l": positional.reshape(4, 1)}
    it = data_iterator(
        _graph(image_tree), output_map=["i", "l"], reader_name="reader", sharding=sharding
    )(batch_size=8)
    labels = next(it)["l"]
    assert labels.shape == (8, 1) and labels.sharding == sharding["l"]
    got = [(d, _labels(x)) for d, _, x in _shards(labels)]
    assert got == [(cpu_devices[k], [s, s + 1]) for k, s in enumerate(SHARD_STARTS)]


# -- per-output shardings (our extension) ---------------------------------------


def test_per_output_dict_with_a_replicated_output(image_tree, cpu_devices, reference):
    mesh = Mesh(np.array(cpu_devices), ("batch",))
    images_sharding = NamedSharding(mesh, PartitionSpec("batch"))
    replicated = NamedSharding(mesh, PartitionSpec())
    it = data_iterator(
        _graph(image_tree),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding={"labels": replicated, "images": images_sharding},
    )(batch_size=8)
    batch = next(it)
    images, labels = batch["images"], batch["labels"]
    assert images.sharding == images_sharding and labels.sharding == replicated
    everything = [0, 1, 5, 6, 10, 11, 15, 16]
    assert labels.shape == (8, 1) and _labels(np.asarray(labels)) == everything
    for _device, start, data in _shards(labels):
        assert start == 0 and _labels(data) == everything  # every device has the whole batch
    assert len(labels.addressable_shards) == 4
    for k, (device, _start, data) in enumerate(_shards(images)):
        assert device == cpu_devices[k]
        np.testing.assert_array_equal(data, reference[everything[2 * k : 2 * k + 2]])


def test_per_output_list_with_another_mesh(image_tree, cpu_devices):
    images_sharding = _batch_sharding(cpu_devices)
    labels_sharding = _batch_sharding(cpu_devices[2:], axis="pairs")
    it = data_iterator(
        _graph(image_tree),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding=[images_sharding, labels_sharding],
    )(batch_size=8)
    batch = next(it)
    assert len(it._pipes) == 4  # the first output's sharding lays out the pipelines
    labels = batch["labels"]
    assert labels.sharding == labels_sharding
    got = [(d, _labels(x)) for d, _, x in _shards(labels)]
    assert got == [(cpu_devices[2], [0, 1, 5, 6]), (cpu_devices[3], [10, 11, 15, 16])]


def test_per_output_sharding_of_a_sample_axis(image_tree, cpu_devices, reference):
    mesh = Mesh(np.array(cpu_devices).reshape(2, 2), ("data", "model"))
    rows_and_width = NamedSharding(mesh, PartitionSpec("data", None, "model"))
    labels_sharding = NamedSharding(mesh, PartitionSpec("data"))
    it = data_iterator(
        _graph(image_tree),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding={"images": rows_and_width, "labels": labels_sharding},
    )(batch_size=8)
    images = next(it)["images"]
    assert images.sharding == rows_and_width
    np.testing.assert_array_equal(np.asarray(images), reference[[0, 1, 2, 3, 10, 11, 12, 13]])
    for s in images.addressable_shards:
        assert s.data.shape == (4, SIZE, SIZE // 2, 3)


def test_per_output_mapping_must_name_every_output(image_tree, cpu_devices):
    with pytest.raises(AssertionError, match="missing: \\['labels'\\]"):
        data_iterator(
            _graph(image_tree),
            output_map=["images", "labels"],
            sharding={"images": _batch_sharding(cpu_devices)},
        )(batch_size=8)


# -- devices= (pmap) and argument errors ------------------------------------


def test_devices_give_pmap_compatible_arrays(image_tree, cpu_devices):
    it = data_iterator(
        _graph(image_tree), output_map=["i", "l"], reader_name="reader", devices=cpu_devices
    )(batch_size=8)
    labels = next(it)["l"]
    assert labels.shape == (4, 2, 1)
    assert labels.sharding.spec == PartitionSpec("device")
    for k, (device, start, data) in enumerate(_shards(labels)):
        assert device == cpu_devices[k] and start == k
        assert _labels(data) == [SHARD_STARTS[k], SHARD_STARTS[k] + 1]
    sums = jax.pmap(lambda x: x.sum(), devices=cpu_devices)(labels)
    assert sums.tolist() == [2 * s + 1 for s in SHARD_STARTS]


def test_sharding_and_devices_exclude_each_other(cpu_devices):
    with pytest.raises(
        ValueError, match=r"Only one of `sharding` and `devices` arguments can be provided."
    ):
        data_iterator(output_map=["x"], sharding=_batch_sharding(cpu_devices), devices=cpu_devices)


def test_sharded_call_needs_the_batch_size_as_keyword(image_tree, cpu_devices):
    iterator_fn = data_iterator(
        _graph(image_tree),
        output_map=["i", "l"],
        reader_name="reader",
        sharding=_batch_sharding(cpu_devices),
    )
    with pytest.raises(TypeError, match="batch_size"):
        iterator_fn()


def test_checkpoints_that_are_not_checkpoints_are_refused(image_tree, cpu_devices):
    iterator_fn = data_iterator(
        _graph(image_tree),
        output_map=["i", "l"],
        reader_name="reader",
        sharding=_batch_sharding(cpu_devices),
    )
    # one checkpoint for 4 devices is an elastic restore (any count is), but b"x" is no checkpoint
    with pytest.raises(CheckpointError, match="it is not a dali checkpoint"):
        iterator_fn(batch_size=8, enable_checkpointing=True, checkpoints=[b"x"])


# -- pipelines in worker processes (dali._exec.process) ------------------------------------------


def _on_gpu() -> bool:
    return jax.default_backend() == "gpu"


def _two_epochs(iterator_fn, sharding, **kwargs):
    it = iterator_fn(batch_size=8, seed=5, **kwargs)
    out = []
    for _ in range(2):
        out += [{k: np.asarray(v) for k, v in b.items()} for b in it]
        it.reset()
    pids = [p.worker_pid for p in it._pipes]
    for p in it._pipes:
        p.close()
    return out, pids


def test_worker_processes_give_the_batches_of_in_process_pipelines(image_tree, cpu_devices):
    sharding = _batch_sharding(cpu_devices[:2])
    iterator_fn = data_iterator(
        _graph(image_tree, randomized=True),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding=sharding,
    )
    ours, pids = _two_epochs(iterator_fn, sharding, worker_process=True)
    theirs, none = _two_epochs(iterator_fn, sharding, worker_process=False)
    assert all(pids) and len(set(pids)) == 2 and none == [None, None]
    assert len(ours) == len(theirs) == 6
    for a, b in zip(ours, theirs):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.gpu
def test_several_gpu_pipelines_run_in_worker_processes(image_tree):
    """On a GPU machine the iterator chooses worker processes for two or more GPU pipelines
    (one GPU: forced), and the global arrays are those of in-process pipelines."""
    if not _on_gpu():
        pytest.skip("this JAX has no GPU backend")
    gpus = jax.devices("gpu")[:2]
    sharding = _batch_sharding(gpus)
    iterator_fn = data_iterator(
        _graph(image_tree, randomized=True),
        output_map=["images", "labels"],
        reader_name="reader",
        sharding=sharding,
    )
    chosen = None if len(gpus) > 1 else True
    ours, pids = _two_epochs(iterator_fn, sharding, worker_process=chosen)
    theirs, none = _two_epochs(iterator_fn, sharding, worker_process=False)
    assert all(pids) and none == [None] * len(gpus)
    for a, b in zip(ours, theirs):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
