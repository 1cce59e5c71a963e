"""Serialized pipelines in TensorFlow: `serialize_pipeline`, DALI's raw op (`DALIRawIterator`)
and ``DALIIterator()(serialized_pipeline=...)``.

The op makes its own pipeline from the document; its batches are compared with those of the
pipeline it was serialized from (the same seed draws the same random numbers). Eager calls with
the same document and arguments continue one pipeline for the life of the process, as
TensorFlow's kernel cache keeps DALI's op: each test serializes pipelines of its own seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from dali import Pipeline, fn, pipeline_def, types
from dali.author import SerializationError
from dali.plugin.tf import DALIIterator, DALIRawIterator, serialize_pipeline

N_FILES = 8


def double(x):
    """A module-level function: serialized by the name it is imported by."""
    return x * 2


def uniform(batch_size=2, *, seed):
    """Random values (different in every batch) and a Python function of them."""

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, seed=seed)
    def pipe():
        x = fn.random.uniform(range=(0, 1), shape=[3])
        return x, fn.python_function(x, function=double)

    return pipe()


def batches(pipe, n):
    """The first ``n`` batches of ``pipe``, as numpy arrays per output."""
    return [[tl.as_cpu().as_array() for tl in pipe.run()] for _ in range(n)]


def values(tensors):
    return [t.numpy() for t in tensors]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Files of 1 to N_FILES bytes: a reader gives samples of different lengths."""
    root = tmp_path_factory.mktemp("ragged")
    paths = []
    for i in range(N_FILES):
        path = root / f"f{i}.bin"
        path.write_bytes(bytes(range(1, i + 2)))
        paths.append(str(path))
    return paths


def reader(files, batch_size=3):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        data, labels = fn.readers.file(files=files, labels=list(range(len(files))))
        return data, labels

    return pipe()


# -- serialize_pipeline ------------------------------------------------------------------------


def test_serialize_pipeline_is_the_pipelines_document():
    pipe = uniform(seed=101)
    data = serialize_pipeline(pipe)
    assert isinstance(data, bytes)
    assert data == pipe.serialize()
    twin = Pipeline.deserialize(data)
    for got, want in zip(batches(twin, 2), batches(uniform(seed=101), 2)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_serialize_pipeline_names_what_cannot_be_serialized():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.random.uniform(range=(0, 1), shape=[3])
        return fn.python_function(x, function=lambda x: x, name="py")

    with pytest.raises(
        RuntimeError, match=r"cannot be serialized.*\(py\), argument `function`"
    ) as info:
        serialize_pipeline(pipe())
    assert isinstance(info.value.__cause__, SerializationError)
    assert "DALIIterator()(pipeline=...)" in str(info.value)


# -- the raw op --------------------------------------------------------------------------------


def test_raw_op_gives_the_serialized_pipelines_batches_in_order():
    data = serialize_pipeline(uniform(seed=103))
    daliop = DALIRawIterator()
    got = [
        values(daliop(serialized_pipeline=data, shapes=[(2, 3), (2, 3)], dtypes=[tf.float32] * 2))
        for _ in range(3)
    ]
    want = batches(uniform(seed=103), 3)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[0], w[0])
        np.testing.assert_array_equal(g[1], 2 * w[0])
    assert not np.array_equal(got[0][0], got[1][0])  # a stream, not one batch again


def test_raw_op_takes_positional_arguments_and_a_str_document():
    data = serialize_pipeline(uniform(seed=104)).decode()
    (x, _) = DALIRawIterator()(data, [(2, 3), None], [tf.float32, tf.float32])
    np.testing.assert_array_equal(x.numpy(), batches(uniform(seed=104), 1)[0][0])


def test_eager_calls_with_other_arguments_have_their_own_pipeline():
    data = serialize_pipeline(uniform(batch_size=4, seed=105))
    daliop = DALIRawIterator()
    first = daliop(serialized_pipeline=data, shapes=[(4, 3), ()], dtypes=[tf.float32] * 2)
    # batch_size from the op: another pipeline (of 2 samples), from its first batch
    small = daliop(serialized_pipeline=data, shapes=[(2, 3), ()], dtypes=[tf.float32] * 2)
    again = daliop(serialized_pipeline=data, shapes=[(4, 3), ()], dtypes=[tf.float32] * 2)
    want = batches(uniform(batch_size=4, seed=105), 2)
    np.testing.assert_array_equal(first[0].numpy(), want[0][0])
    np.testing.assert_array_equal(again[0].numpy(), want[1][0])
    np.testing.assert_array_equal(
        small[0].numpy(), batches(uniform(batch_size=2, seed=105), 1)[0][0]
    )


def test_in_a_tf_function_each_traced_op_has_its_own_pipeline():
    data = serialize_pipeline(uniform(seed=106))
    daliop = DALIRawIterator()

    def step():
        x, _ = daliop(serialized_pipeline=data, shapes=[(2, 3), (2, 3)], dtypes=[tf.float32] * 2)
        return x

    f, g = tf.function(step), tf.function(step)
    want = [b[0] for b in batches(uniform(seed=106), 3)]
    from_f = [f().numpy() for _ in range(3)]
    from_g = g().numpy()
    for got, w in zip(from_f, want):
        np.testing.assert_array_equal(got, w)
    np.testing.assert_array_equal(from_g, want[0])
    assert f().shape == (2, 3)  # the static shape from `shapes`
    assert f.get_concrete_function().structured_outputs.shape == (2, 3)


def test_op_settings_reach_the_pipeline(monkeypatch):
    made = []
    deserialize = Pipeline.deserialize.__func__

    def spy(cls, *args, **kwargs):
        made.append(kwargs)
        return deserialize(cls, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "deserialize", classmethod(spy))
    data = serialize_pipeline(uniform(seed=107))
    daliop = DALIRawIterator()
    args = {"serialized_pipeline": data, "shapes": [(), ()], "dtypes": [tf.float32] * 2}
    daliop(**args, batch_size=3, num_threads=2, exec_dynamic=True)
    daliop(
        **args,
        batch_size=5,
        exec_separated=True,
        cpu_prefetch_queue_depth=3,
        gpu_prefetch_queue_depth=1,
    )
    assert made == [
        {
            "batch_size": 3,
            "prefetch_queue_depth": 2,
            "exec_dynamic": True,
            "enable_memory_stats": False,
            "num_threads": 2,
        },
        {
            "batch_size": 5,
            "prefetch_queue_depth": {"cpu_size": 3, "gpu_size": 1},
            "exec_dynamic": False,
            "enable_memory_stats": False,
        },
    ]


def test_raw_op_sparse_outputs_are_three_tensors(files):
    data = serialize_pipeline(reader(files))
    indices, vals, dense_shape, labels = DALIRawIterator()(
        serialized_pipeline=data,
        shapes=[(3, 1), (), (), (3,)],  # DALI's wrapper puts the batch in a sparse output's slot
        dtypes=[tf.int64, tf.uint8, tf.int64, tf.int32],
        sparse=[True],
        batch_size=3,
    )
    sparse = tf.SparseTensor(indices, vals, dense_shape)
    want = [np.arange(1, i + 2, dtype=np.uint8) for i in range(3)]
    dense = tf.sparse.to_dense(sparse).numpy()
    assert dense.shape == (3, 3)
    for k, w in enumerate(want):
        np.testing.assert_array_equal(dense[k, : len(w)], w)
        assert not dense[k, len(w) :].any()
    assert labels.numpy().ravel().tolist() == [0, 1, 2]


def test_wrapper_runs_a_serialized_pipeline_through_the_op(files):
    daliop = DALIIterator()
    data = serialize_pipeline(reader(files))
    got = [
        daliop(
            serialized_pipeline=data,
            sparse=[True],
            shapes=[(), (3,)],
            dtypes=[tf.uint8, tf.int32],
            batch_size=3,
        )
        for _ in range(2)
    ]
    assert isinstance(got[0][0], tf.SparseTensor)
    assert [out[1].numpy().tolist() for out in got] == [[0, 1, 2], [3, 4, 5]]
    np.testing.assert_array_equal(
        tf.sparse.to_dense(got[1][0]).numpy()[2], np.arange(1, 7, dtype=np.uint8)
    )


def test_wrapper_prefers_the_serialized_pipeline_as_dali():
    data = serialize_pipeline(uniform(seed=110))
    other = uniform(seed=99)
    x, _ = DALIIterator()(
        pipeline=other, serialized_pipeline=data, shapes=[(2, 3), (2, 3)], dtypes=[tf.float32] * 2
    )
    np.testing.assert_array_equal(x.numpy(), batches(uniform(seed=110), 1)[0][0])


# -- errors ------------------------------------------------------------------------------------


def test_a_document_this_library_cannot_read():
    daliop = DALIRawIterator()
    with pytest.raises(SerializationError, match="protobuf"):
        daliop(serialized_pipeline=b"\n\x07pipe", shapes=[(2,)], dtypes=[tf.float32])


def test_argument_checks():
    data = serialize_pipeline(uniform(seed=112))
    daliop = DALIRawIterator()
    with pytest.raises(ValueError, match=r"'shapes'.*minimum 1"):
        daliop(serialized_pipeline=data, shapes=[], dtypes=[tf.float32])
    with pytest.raises(ValueError, match=r"'dtypes'.*minimum 1"):
        daliop(serialized_pipeline=data, shapes=[(2, 3)], dtypes=[])
    with pytest.raises(ValueError, match="BATCH size"):
        daliop(serialized_pipeline=data, shapes=[(None, 3)], dtypes=[tf.float32] * 2)
    with pytest.raises(ValueError, match="Sparse output 0 is three tensors"):
        daliop(serialized_pipeline=data, shapes=[(2,)], dtypes=[tf.float32], sparse=[True])
    with pytest.raises(ValueError, match="exec_dynamic=False"):
        DALIIterator()(
            serialized_pipeline=data,
            shapes=[(2, 3)],
            dtypes=[tf.float32] * 2,
            prefetch_queue_depth={"cpu_size": 2, "gpu_size": 2},
            exec_dynamic=True,
        )


def test_checks_of_the_batches():
    data = serialize_pipeline(uniform(seed=113))
    daliop = DALIRawIterator()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"output `1`.*float32"):
        daliop(serialized_pipeline=data, shapes=[(2, 3)], dtypes=[tf.float32, tf.int32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="output `0`"):
        daliop(serialized_pipeline=data, shapes=[(2, 4)], dtypes=[tf.float32] * 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="2 outputs, and `dtypes` describes 3"):
        daliop(serialized_pipeline=data, shapes=[(2, 3)], dtypes=[tf.float32] * 3)


def test_ragged_dense_output_is_dalis_error(files):
    data = serialize_pipeline(reader(files))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not uniform"):
        DALIRawIterator()(
            serialized_pipeline=data, shapes=[(3,)], dtypes=[tf.uint8, tf.int32], batch_size=3
        )


def test_a_dtype_argument_round_trips():
    """A document keeps a DALIDataType argument: the op's pipeline casts as the original."""

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=3)
    def pipe():
        return fn.cast(fn.random.uniform(range=(0, 100), shape=[2]), dtype=types.INT16)

    (x,) = DALIRawIterator()(
        serialized_pipeline=serialize_pipeline(pipe()), shapes=[(2, 2)], dtypes=[tf.int16]
    )
    np.testing.assert_array_equal(x.numpy(), batches(pipe(), 1)[0][0])
