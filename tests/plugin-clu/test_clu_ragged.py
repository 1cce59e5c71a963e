"""Ragged outputs padded to a declared shape or bucketed (dali-clu's `pad_to` / `buckets`)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from clu.data.dataset_iterator import ArraySpec
from dali import fn, pipeline_def, types
from dali.plugin.jax.clu import DALIGenericPeekableIterator, peekable_data_iterator
from jax.sharding import Mesh, NamedSharding, PartitionSpec

#: sample i of the epoch has i % 5 + 1 rows of [i, i]
ROWS = 5


def _sample(info):
    n = info.idx_in_epoch % ROWS + 1
    return np.full((n, 2), info.idx_in_epoch + 1, np.float32)


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def ragged_pipe():
    return fn.external_source(_sample, batch=False, ndim=2, dtype=types.FLOAT)


def _expected(step, batch=3):
    """The samples of batch ``step`` before padding."""
    return [
        np.full((i % ROWS + 1, 2), i + 1, np.float32)
        for i in range(step * batch, (step + 1) * batch)
    ]


def _check_padded(array, samples, pad_value=0):
    for row, sample in zip(np.asarray(array), samples):
        n = sample.shape[0]
        np.testing.assert_array_equal(row[:n], sample)
        assert (row[n:] == pad_value).all()


def test_without_a_rule_a_ragged_batch_fails_as_in_dali():
    with pytest.raises(ValueError, match="JAX needs uniform batches"):
        next(DALIGenericPeekableIterator(ragged_pipe(), ["x"]))


def test_pad_to_gives_one_shape_and_keeps_the_data():
    it = DALIGenericPeekableIterator(ragged_pipe(), ["x"], pad_to={"x": (6, 2)}, pad_value=-1)
    assert it.element_spec == {"x": ArraySpec(dtype=np.float32, shape=(3, 6, 2))}
    for step in range(6):
        batch = next(it)
        assert batch["x"].shape == (3, 6, 2)
        _check_padded(batch["x"], _expected(step), pad_value=-1)


def test_buckets_pick_the_smallest_that_holds_the_batch():
    it = DALIGenericPeekableIterator(ragged_pipe(), ["x"], buckets={"x": [(8, 2), (4, 2)]})
    # the extents the buckets disagree on are unknown in the spec
    assert it.element_spec == {"x": ArraySpec(dtype=np.float32, shape=(3, None, 2))}
    shapes = []
    for step in range(5):
        batch = next(it)
        longest = max(s.shape[0] for s in _expected(step))
        assert batch["x"].shape[1] == (4 if longest <= 4 else 8)
        _check_padded(batch["x"], _expected(step))
        shapes.append(batch["x"].shape)
    assert set(shapes) == {(3, 4, 2), (3, 8, 2)}  # both buckets were used


def test_an_extent_declared_none_is_none_in_the_spec_unless_the_graph_knows_it():
    # external_source knows no extents: the axis declared None stays unknown
    it = DALIGenericPeekableIterator(ragged_pipe(), ["x"], pad_to={"x": (6, None)})
    assert it.element_spec == {"x": ArraySpec(dtype=np.float32, shape=(3, 6, None))}
    assert next(it)["x"].shape == (3, 6, 2)


def test_a_sample_larger_than_declared_is_an_error_not_a_cut():
    it = DALIGenericPeekableIterator(ragged_pipe(), ["x"], pad_to={"x": (4, 2)})
    next(it)  # rows 1..3
    with pytest.raises(ValueError, match=r"output 'x': samples of up to \(5, 2\) do not fit"):
        next(it)  # rows 4, 5, 1


def test_an_axis_declared_none_must_agree():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(
            lambda info: np.zeros((2, info.idx_in_batch + 1), np.uint8), batch=False, ndim=2
        )

    with pytest.raises(ValueError, match="declared None"):
        next(DALIGenericPeekableIterator(pipe(), ["x"], pad_to={"x": (4, None)}))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pad_to": {"y": (2,)}}, r"not in output_map: \['y'\]"),
        ({"pad_to": {"x": (2,)}, "buckets": {"x": [(2,)]}}, "both pad_to and buckets"),
        ({"buckets": {"x": []}}, "is empty"),
        ({"buckets": {"x": [(2,), (2, 2)]}}, "mixes ranks"),
        ({"pad_to": {"x": (-1, 2)}}, "non-negative"),
    ],
)
def test_bad_rules_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DALIGenericPeekableIterator(ragged_pipe(), ["x"], prepare_first_batch=False, **kwargs)


def test_padded_outputs_shard_over_the_cpu_devices(tmp_path):
    # files of 1..12 bytes, read raw: a ragged 1-D output of a sharded reader
    files = []
    for i in range(12):
        path = tmp_path / f"f{i:02d}.bin"
        path.write_bytes(bytes([i + 1]) * (i + 1))
        files.append(str(path))
    devices = jax.devices("cpu")[:2]
    sharding = NamedSharding(Mesh(devices, ("batch",)), PartitionSpec("batch"))

    @peekable_data_iterator(
        output_map=["data"], sharding=sharding, reader_name="r", buckets={"data": [(4,), (12,)]}
    )
    def iterator_fn(shard_id=0, num_shards=1):
        data, _ = fn.readers.file(files=files, shard_id=shard_id, num_shards=num_shards, name="r")
        return data

    it = iterator_fn(batch_size=4)
    assert it.element_spec == {"data": ArraySpec(dtype=np.uint8, shape=(4, None))}
    # shard 0 reads files 0..5, shard 1 files 6..11: the two pipelines' batches share a bucket
    first = next(it)["data"]
    assert first.shape == (4, 12)  # files 0, 1 | 6, 7: file 7 has 8 bytes
    np.testing.assert_array_equal(np.asarray(first)[0], [1] + [0] * 11)
    np.testing.assert_array_equal(np.asarray(first)[3], [8] * 8 + [0] * 4)
    assert {s.device for s in first.addressable_shards} == set(devices)


@pytest.mark.gpu
def test_gpu_batches_are_padded_on_their_device(image_tree):
    # decoded images of the tree have different sizes: the mixed decoder's GPU batches are
    # padded where they are, and agree with the CPU decoder's padded batches
    def make(device):
        @pipeline_def(batch_size=4, num_threads=2, device_id=0 if device == "mixed" else None)
        def pipe():
            jpegs, _ = fn.readers.file(file_root=str(image_tree), name="r")
            return fn.decoders.image(jpegs, device=device)

        return DALIGenericPeekableIterator(
            pipe(), ["x"], reader_name="r", buckets={"x": [(100, 100, 3), (512, 512, 3)]}
        )

    gpu, cpu = make("mixed"), make("cpu")
    for _ in range(6):
        g, c = next(gpu)["x"], next(cpu)["x"]
        assert g.shape == c.shape and g.shape[1:] in ((100, 100, 3), (512, 512, 3))
        assert next(iter(g.devices())).platform == "gpu"
        g, c = np.asarray(g).astype(np.int16), np.asarray(c).astype(np.int16)
        assert ((g == 0) == (c == 0)).mean() > 0.99  # the same padding
        assert np.abs(g - c).mean() < 2  # the same images (two JPEG decoders)
