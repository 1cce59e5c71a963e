"""`DALIGenericIterator` on one device: conversion, errors, epochs, stacking.

The epoch arithmetic itself is the shared base iterator's (tested in tests/core); here it is
checked only through the JAX iterator, with the values observed in DALI.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax import DALIGenericIterator
from dali.plugin.jax._convert import batch_to_jax
from dali.tensors import TensorListCPU
from iterator_utils import TREE_IMAGES as N


def _labels_pipe(root, batch_size=8, shard_id=0, num_shards=1, pad=False, **kwargs):
    """Labels 0..20 from the image tree's list (image i has label i), sharded as asked."""

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, **kwargs)
    def pipe():
        _, labels = fn.readers.file(
            file_list=str(root / "list.txt"),
            name="reader",
            shard_id=shard_id,
            num_shards=num_shards,
            pad_last_batch=pad,
        )
        return labels

    return pipe()


def _counter_pipe(batch_size=2, shape=(3,)):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(
            lambda i: np.full((batch_size, *shape), i, np.int32), batch=True, layout="X"
        )

    return pipe()


def _rows(arr) -> list[int]:
    return np.asarray(arr).reshape(-1).tolist()


# -- conversion --------------------------------------------------------------------------------


def test_one_pipeline_gives_plain_arrays_on_cpu_device_0():
    it = DALIGenericIterator(_counter_pipe(), ["x"])
    batch = next(it)
    assert list(batch) == ["x"]
    x = batch["x"]
    assert isinstance(x, jax.Array)
    assert x.shape == (2, 3) and x.dtype == np.int32
    assert x.devices() == {jax.devices("cpu")[0]}
    assert x.tolist() == [[0, 0, 0], [0, 0, 0]]
    assert next(it)["x"].tolist() == [[1, 1, 1], [1, 1, 1]]


def test_reader_labels_have_dali_shapes(image_tree):
    it = DALIGenericIterator(_labels_pipe(image_tree), ["labels"], reader_name="reader")
    labels = next(it)["labels"]
    assert labels.shape == (8, 1) and labels.dtype == np.int32  # as DALI's JAX iterator
    assert _rows(labels) == list(range(8))


def _aligned(shape, dtype, align=64):
    """A C-contiguous array whose data starts on an ``align``-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(nbytes + align, np.uint8)
    offset = -raw.ctypes.data % align
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def test_aligned_cpu_batches_are_shared_not_copied():
    # XLA's CPU client aliases host buffers aligned to 64 bytes (and copies others)
    data = _aligned((4, 6), np.float32)
    data[...] = np.arange(24).reshape(4, 6)
    arr = batch_to_jax(TensorListCPU(data))
    assert arr.unsafe_buffer_pointer() == data.ctypes.data
    assert arr.devices() == {jax.devices("cpu")[0]}


def test_misaligned_cpu_batches_are_copied_correctly():
    raw = _aligned((25,), np.float32)
    data = raw[1:].reshape(4, 6)  # 4 bytes past the boundary
    data[...] = np.arange(24).reshape(4, 6)
    arr = batch_to_jax(TensorListCPU(data))
    assert arr.tolist() == data.tolist()


def test_pipeline_cpu_outputs_reach_jax_without_a_copy():
    # labels, arithmetic and transposes (numpy's 16-byte aligned results) come out 64-byte
    # aligned, so XLA aliases every output (jaxlib 0.6 also warned on each copy)
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        u = fn.random.uniform(shape=[3, 5])
        return u, fn.transpose(u, perm=[1, 0]) * 2, fn.cast(u, dtype=types.INT32)

    p = pipe()
    outs = p.run()
    for tl in outs:
        dense = tl.as_tensor()
        arr = batch_to_jax(tl)
        assert arr.unsafe_buffer_pointer() == np.asarray(dense).ctypes.data


def test_leading_axis_view_is_shared_too():
    data = _aligned((4, 6), np.int16)
    data[...] = 7
    arr = batch_to_jax(TensorListCPU(data), leading_axis=True)
    assert arr.shape == (1, 4, 6)
    assert arr.unsafe_buffer_pointer() == data.ctypes.data


def test_ragged_batch_is_an_error_naming_the_output():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(
            lambda: [np.zeros((2, 3), np.uint8), np.zeros((4, 3), np.uint8)], batch=True
        )

    with pytest.raises(ValueError, match=r"output 'images'.*different shapes"):
        DALIGenericIterator(pipe(), ["images"])


# -- constructor checks -------------------------------------------------------


def test_duplicate_output_names():
    with pytest.raises(AssertionError, match="output_map names should be distinct"):
        DALIGenericIterator(_counter_pipe(), ["x", "x"])


def test_partial_is_not_supported():
    with pytest.raises(
        AssertionError, match=r"JAX iterator does not support partial last batch policy."
    ):
        DALIGenericIterator(
            _counter_pipe(), ["x"], size=10, last_batch_policy=LastBatchPolicy.PARTIAL
        )


def test_policy_must_be_the_enum():
    with pytest.raises(ValueError, match="Wrong type for `last_batch_policy`"):
        DALIGenericIterator(_counter_pipe(), ["x"], size=10, last_batch_policy="FILL")


def test_sharding_must_be_a_sharding():
    with pytest.raises(AssertionError, match=r"jax.sharding.Sharding"):
        DALIGenericIterator(_counter_pipe(), ["x"], sharding="batch")


def test_sharding_and_pmap_compatible_exclude_each_other():
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    sharding = NamedSharding(Mesh(jax.devices("cpu")[:1], ("b",)), PartitionSpec("b"))
    with pytest.raises(ValueError, match="pmap_compatible"):
        DALIGenericIterator(_counter_pipe(), ["x"], sharding=sharding, pmap_compatible=True)


def test_too_few_pipeline_outputs():
    with pytest.raises(AssertionError, match="only 1 outputs"):
        DALIGenericIterator(_counter_pipe(), ["x", "y"])


# -- epochs through the base iterator -----------------------------------------


def test_fill_unpadded_len_changes_per_epoch_two_pipelines_stacked(image_tree):
    pipes = [_labels_pipe(image_tree, shard_id=s, num_shards=2) for s in range(2)]
    it = DALIGenericIterator(pipes, ["labels"], reader_name="reader")
    epochs = []
    for _ in range(3):
        epoch = []
        for batch in it:
            labels = batch["labels"]
            # several pipelines without sharding on one device: stacked
            assert labels.shape == (2, 8, 1)
            assert labels.devices() == {jax.devices("cpu")[0]}
            epoch.append([_rows(labels[0]), _rows(labels[1])])
        epochs.append(epoch)
        it.reset()
    assert [len(e) for e in epochs] == [2, 1, 1]
    assert epochs[0] == [
        [list(range(8)), list(range(10, 18))],
        [list(range(8, 16)), [18, 19, 20, 0, 1, 2, 3, 4]],
    ]
    assert epochs[1] == [[[16, 17, 18, 19, 20, 0, 1, 2], list(range(5, 13))]]
    assert epochs[2] == [[list(range(3, 11)), list(range(13, 21))]]


def test_drop_and_auto_reset(image_tree):
    pipes = [_labels_pipe(image_tree, shard_id=s, num_shards=2, pad=True) for s in range(2)]
    it = DALIGenericIterator(
        pipes,
        ["labels"],
        reader_name="reader",
        last_batch_policy=LastBatchPolicy.DROP,
        auto_reset=True,
    )
    assert len(it) == 1
    first = [[_rows(b["labels"][0]), _rows(b["labels"][1])] for b in it]
    second = [[_rows(b["labels"][0]), _rows(b["labels"][1])] for b in it]
    assert first == [[list(range(8)), list(range(10, 18))]]
    assert second == [[list(range(10, 18)), list(range(8))]]  # the shards alternate


def test_explicit_size_and_len(image_tree):
    with pytest.warns(Warning, match="reader_name"):
        it = DALIGenericIterator(_labels_pipe(image_tree, batch_size=4), ["labels"], size=10)
    assert len(it) == 3
    assert [_rows(b["labels"]) for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_one_epoch_of_a_single_pipeline_sees_every_sample(image_tree):
    it = DALIGenericIterator(_labels_pipe(image_tree, pad=True), ["labels"], reader_name="reader")
    seen = [v for b in it for v in _rows(b["labels"])]
    assert len(it) == 3
    assert seen[:N] == list(range(N)) and set(seen[N:]) == {N - 1}  # padded with the last


def test_prepare_first_batch_false_runs_nothing_until_next():
    calls = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        def source(i):
            calls.append(i)
            return np.full((2, 1), i, np.int32)

        return fn.external_source(source, batch=True)

    it = DALIGenericIterator(pipe(), ["x"], prepare_first_batch=False)
    assert calls == []
    assert _rows(next(it)["x"]) == [0, 0]


# -- several pipelines / pmap -------------------------------------------------


def test_pmap_compatible_single_pipeline_gets_a_leading_axis():
    it = DALIGenericIterator(_counter_pipe(), ["x"], pmap_compatible=True)
    x = next(it)["x"]
    assert x.shape == (1, 2, 3)
    assert x.tolist() == [[[0, 0, 0], [0, 0, 0]]]


def test_shards_of_different_shapes():
    pipes = [_counter_pipe(shape=(3,)), _counter_pipe(shape=(4,))]
    with (
        pytest.warns(Warning, match="reader_name"),
        pytest.raises(AssertionError, match=r"Shards shapes have to be the same."),
    ):
        DALIGenericIterator(pipes, ["x"], size=8)


@pytest.mark.gpu
def test_gpu_batches_are_shared_and_stay_on_their_gpu():
    cupy = pytest.importorskip("cupy")
    if jax.default_backend() != "gpu":
        pytest.skip("this JAX has no GPU backend")
    from dali.tensors import TensorListGPU

    data = cupy.arange(24, dtype=cupy.float32).reshape(4, 6)
    arr = batch_to_jax(TensorListGPU(data))
    assert arr.unsafe_buffer_pointer() == data.data.ptr
    assert arr.devices() == {jax.devices("gpu")[0]}
    assert arr.tolist() == data.get().tolist()

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(lambda i: np.full((2, 3), i, np.int32), batch=True)
        return x.gpu(), x

    gpu, cpu = (v for v in next(DALIGenericIterator(pipe(), ["gpu", "cpu"])).values())
    assert gpu.devices() == {jax.devices("gpu")[0]}
    assert cpu.devices() == {jax.devices("cpu")[0]}
    assert gpu.tolist() == cpu.tolist() == [[0, 0, 0], [0, 0, 0]]
