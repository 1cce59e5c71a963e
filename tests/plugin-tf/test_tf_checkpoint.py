"""tf.train.Checkpoint saves and restores where a DALIDataset's iterator stands (beyond DALI):
the pipeline's checkpoint JSON, so that the batches after a restore are the batches the saved
iterator returned after the save."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
from dali import fn, pipeline_def, types
from dali.plugin.tf import DALIDataset
from dali.plugin.tf.experimental import DALIDatasetWithInputs

B = 4


def training_pipe(root, checkpointing=True):
    """A shuffled reader and random augmentations: restoring must bring back both."""

    @pipeline_def(
        batch_size=B, num_threads=2, device_id=None, seed=7, enable_checkpointing=checkpointing
    )
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=16, resize_y=16)
        flip = fn.random.coin_flip()
        return fn.flip(images, horizontal=flip), labels, fn.random.uniform(range=(0, 1))

    return pipe()


def dataset(pipe):
    return DALIDataset(
        pipe,
        output_dtypes=(tf.uint8, tf.int32, tf.float32),
        output_shapes=((B, 16, 16, 3), (B,), (B,)),
        batch_size=B,
        device_id=None,
    )


def as_numpy(batch):
    return [t.numpy() for t in batch]


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)


def test_round_trip_mid_epoch(image_tree, tmp_path):
    # 21 images, batch 4: the save after 3 batches is mid-epoch, and the 5 batches after it
    # cross into the next epoch (the reader reshuffles there)
    model = tf.Variable(1.0)
    ds = dataset(training_pipe(image_tree))
    it = iter(ds)
    for _ in range(3):
        next(it)
    path = tf.train.Checkpoint(model=model, data=ds).save(str(tmp_path / "ckpt"))
    after = [as_numpy(next(it)) for _ in range(5)]

    fresh = dataset(training_pipe(image_tree))
    model2 = tf.Variable(0.0)
    tf.train.Checkpoint(model=model2, data=fresh).restore(path).assert_consumed()
    assert float(model2.numpy()) == 1.0
    restored = iter(fresh)
    assert_same([as_numpy(next(restored)) for _ in range(5)], after)


def test_the_saved_position_is_the_pipelines_checkpoint(image_tree, tmp_path):
    ds = dataset(training_pipe(image_tree))
    it = iter(ds)
    next(it)
    tf.train.Checkpoint(data=ds).write(str(tmp_path / "ckpt"))
    reader = tf.train.load_checkpoint(str(tmp_path / "ckpt"))
    (key,) = [k for k in reader.get_variable_to_shape_map() if k.startswith("data/")]
    doc = json.loads(reader.get_tensor(key))
    assert doc["format"] == "dali-checkpoint" and doc["iter"] == 1
    # and a pipeline made from that JSON continues there too, without TensorFlow's help
    want = as_numpy(next(it))

    @pipeline_def(batch_size=B, num_threads=2, device_id=None, enable_checkpointing=True)
    def again():
        jpegs, labels = fn.readers.file(
            file_root=str(image_tree), random_shuffle=True, name="Reader"
        )
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=16, resize_y=16)
        flip = fn.random.coin_flip()
        return fn.flip(images, horizontal=flip), labels, fn.random.uniform(range=(0, 1))

    got = dataset(again(checkpoint=reader.get_tensor(key)))
    assert_same([as_numpy(next(iter(got)))], [want])


def test_restore_into_a_running_iterator_and_with_a_manager(image_tree, tmp_path):
    ds = dataset(training_pipe(image_tree))
    ckpt = tf.train.Checkpoint(data=ds)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    it = iter(ds)
    next(it)
    manager.save()
    want = [as_numpy(next(it)) for _ in range(2)]
    for _ in range(3):
        next(it)
    ckpt.restore(manager.latest_checkpoint)
    # the open iterator and any new one continue from the saved position
    assert_same([as_numpy(next(it)) for _ in range(2)], want)
    assert_same([as_numpy(b) for b in ds.take(2)], want)


def test_before_any_batch_the_start_is_saved(image_tree, tmp_path):
    ds = dataset(training_pipe(image_tree))
    want = [as_numpy(b) for b in ds.take(2)]
    path = tf.train.Checkpoint(data=ds).save(str(tmp_path / "ckpt"))  # no iterator is open
    fresh = dataset(training_pipe(image_tree))
    tf.train.Checkpoint(data=fresh).restore(path)
    assert_same([as_numpy(b) for b in fresh.take(2)], want)


def test_checkpointing_needs_enable_checkpointing(image_tree, tmp_path):
    ds = dataset(training_pipe(image_tree, checkpointing=False))
    next(iter(ds))
    with pytest.raises(Exception, match="enable_checkpointing"):
        tf.train.Checkpoint(data=ds).save(str(tmp_path / "ckpt"))


def test_not_with_input_datasets(tmp_path):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(name="x")

    inputs = {"x": tf.data.Dataset.range(8).map(lambda v: tf.reshape(v, [1]))}
    ds = DALIDatasetWithInputs(pipe(), input_datasets=inputs, output_dtypes=tf.int64, batch_size=2)
    with pytest.raises(Exception, match="not supported for DALI dataset with inputs"):
        tf.train.Checkpoint(data=ds).save(str(tmp_path / "ckpt"))
