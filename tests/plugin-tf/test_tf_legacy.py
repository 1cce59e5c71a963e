"""DALI's older entry points: DALIIterator continues the stream (eager and in tf.function),
sparse outputs and their checks. Serialized pipelines (serialize_pipeline, DALIRawIterator)
are in test_tf_serialized.py."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from dali import fn, pipeline_def
from dali.plugin.tf import (
    DALIIterator,
    dataset_compatible_tensorflow,
    dataset_distributed_compatible_tensorflow,
    dataset_inputs_compatible_tensorflow,
)


def counter(batch_size=2):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(lambda i: np.full((batch_size, 3), i, np.float32), batch=True)

    return pipe()


def two_outputs():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: np.zeros((2, 3), np.float32), batch=True)
        return x, x

    return pipe()


def test_repeated_calls_continue_the_stream():
    daliop = DALIIterator()
    pipe = counter()
    got = [daliop(pipeline=pipe, shapes=[(2, 3)], dtypes=[tf.float32]) for _ in range(3)]
    assert all(isinstance(out, list) and len(out) == 1 for out in got)
    assert [float(out[0][0, 0]) for out in got] == [0.0, 1.0, 2.0]
    assert got[0][0].shape == (2, 3)


def test_in_a_tf_function_each_call_is_the_next_batch():
    daliop = DALIIterator()
    pipe = counter()

    @tf.function
    def step():
        (x,) = daliop(pipeline=pipe, batch_size=2, dtypes=[tf.float32])
        return tf.reduce_max(x)

    assert [float(step()) for _ in range(3)] == [0.0, 1.0, 2.0]


def test_sparse_outputs():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        boxes = fn.external_source(lambda: [np.array([1, 2, 3], np.int32), np.array([4], np.int32)])
        return boxes, fn.external_source(lambda: np.zeros((2, 1), np.int32), batch=True)

    sparse, dense = DALIIterator()(
        pipeline=pipe(),
        sparse=[True],
        shapes=[(), (2, 1)],
        dtypes=[tf.int32, tf.int32],
        batch_size=2,
    )
    assert isinstance(sparse, tf.SparseTensor)
    np.testing.assert_array_equal(
        tf.sparse.to_dense(sparse).numpy(), np.array([[1, 2, 3], [4, 0, 0]], np.int32)
    )
    assert dense.shape == (2, 1)


def test_checks():
    daliop = DALIIterator()
    with pytest.raises(ValueError, match="batch_size"):
        daliop(pipeline=counter(), dtypes=[tf.float32])
    with pytest.raises(ValueError, match="pipeline="):
        daliop(shapes=[(2, 3)], dtypes=[tf.float32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="output `0`"):
        daliop(pipeline=counter(), shapes=[(2, 3)], dtypes=[tf.int32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="2 outputs, and `dtypes` describes 1"):
        daliop(pipeline=two_outputs(), shapes=[(2, 3)], dtypes=[tf.float32])


def test_version_checks():
    assert dataset_compatible_tensorflow()
    assert dataset_inputs_compatible_tensorflow()
    assert dataset_distributed_compatible_tensorflow()


def test_version_helpers_say_false_on_an_older_tensorflow(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.5.0")
    assert not dataset_compatible_tensorflow()
    assert not dataset_inputs_compatible_tensorflow()
