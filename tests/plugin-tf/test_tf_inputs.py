"""experimental.DALIDatasetWithInputs and Input: tf.data datasets feeding a pipeline's named
external sources."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from dali import fn, pipeline_def
from dali.plugin.tf import DALIDataset, experimental
from dali.plugin.tf.experimental import DALIDatasetWithInputs, Input


def scaled_pipe(batch_size=2, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, **kwargs)
    def pipe():
        return fn.external_source(name="x") * 10

    return pipe()


def samples(n):
    """``n`` samples of shape (1,): 0, 1, 2, ..."""
    return tf.data.Dataset.range(n).map(lambda v: tf.reshape(tf.cast(v, tf.int32), [1]))


def values(ds):
    return [batch[0].numpy().ravel().tolist() for batch in ds]


def test_per_sample_inputs_make_batches_and_the_partial_batch_is_dropped():
    ds = DALIDatasetWithInputs(
        scaled_pipe(), input_datasets={"x": samples(7)}, output_dtypes=tf.int32, batch_size=2
    )
    assert isinstance(ds, tf.data.Dataset)
    assert values(ds) == [[0, 10], [20, 30], [40, 50]]
    assert values(ds) == [[0, 10], [20, 30], [40, 50]]  # each pass reads the input again


def test_batch_inputs_and_layout():
    batches = tf.data.Dataset.range(3).map(lambda v: tf.fill([2, 4, 4, 3], tf.cast(v, tf.uint8)))

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(name="images")
        return fn.resize(x, resize_x=2, resize_y=2)  # needs the HWC layout given by the Input

    ds = DALIDatasetWithInputs(
        pipe(),
        input_datasets={"images": Input(batches, layout="HWC", batch=True)},
        output_dtypes=tf.uint8,
        output_shapes=(2, 2, 2, 3),
        batch_size=2,
    )
    got = [int(b[0].numpy()[0, 0, 0, 0]) for b in ds]
    assert got == [0, 1, 2]


def test_two_inputs_and_a_source_callback():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        a = fn.external_source(name="a")
        b = fn.external_source(name="b")
        c = fn.external_source(lambda i: np.full((2, 1), 100 * i, np.int32), batch=True)
        return a + b + c

    inputs = {"a": samples(6), "b": Input(samples(6), batch=False)}
    ds = DALIDatasetWithInputs(pipe(), input_datasets=inputs, output_dtypes=tf.int32, batch_size=2)
    assert values(ds) == [[0, 2], [104, 106], [208, 210]]


def test_interleaved_iterators_each_read_their_inputs():
    ds = DALIDatasetWithInputs(
        scaled_pipe(), input_datasets={"x": samples(8)}, output_dtypes=tf.int32, batch_size=2
    )
    one, two = iter(ds), iter(ds)
    got = [next(one), next(two), next(one), next(two), next(two), next(one)]
    assert [b[0].numpy().ravel().tolist() for b in got] == [
        [0, 10],
        [0, 10],
        [20, 30],
        [20, 30],
        [40, 50],
        [40, 50],
    ]


def test_in_a_tf_function():
    ds = DALIDatasetWithInputs(
        scaled_pipe(), input_datasets={"x": samples(6)}, output_dtypes=tf.int32, batch_size=2
    )

    @tf.function
    def total():
        s = tf.constant(0)
        for (x,) in ds:
            s += tf.reduce_sum(x)
        return s

    assert int(total()) == int(total()) == 150


def test_input_datasets_checks():
    with pytest.raises(TypeError, match="must be a dictionary"):
        DALIDatasetWithInputs(scaled_pipe(), input_datasets=[samples(2)], output_dtypes=tf.int32)
    with pytest.raises(TypeError, match="keys"):
        DALIDatasetWithInputs(scaled_pipe(), input_datasets={1: samples(2)}, output_dtypes=tf.int32)
    with pytest.raises(TypeError, match="values of the dictionary"):
        DALIDatasetWithInputs(
            scaled_pipe(), input_datasets={"x": np.zeros(2)}, output_dtypes=tf.int32
        )
    with pytest.raises(TypeError, match=r"must be instances of type `tf\.data\.Dataset`"):
        Input([1, 2])
    assert (
        experimental.Input is Input and experimental.DALIDatasetWithInputs is DALIDatasetWithInputs
    )


def test_names_are_checked_against_the_pipelines_sources():
    # DALI's checks, at construction: an unknown name, a placeholder left without input, a
    # source that has a `source` of its own, and placeholders in a plain DALIDataset
    with pytest.raises(ValueError, match=r"placeholder node with name='y'.*\['x'\]"):
        DALIDatasetWithInputs(
            scaled_pipe(), input_datasets={"y": samples(4)}, output_dtypes=tf.int32, batch_size=2
        )

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def two():
        own = fn.external_source(lambda: np.zeros((2, 1), np.int32), batch=True, name="own")
        return fn.external_source(name="x") + fn.external_source(name="z") + own

    with pytest.raises(
        ValueError, match=r"not assigned any inputs. Nodes without inputs: \n\['z'\]"
    ):
        DALIDatasetWithInputs(
            two(), input_datasets={"x": samples(4)}, output_dtypes=tf.int32, batch_size=2
        )
    with pytest.raises(ValueError, match="Double specification of External Source input"):
        DALIDatasetWithInputs(
            two(),
            input_datasets={"x": samples(4), "z": samples(4), "own": samples(4)},
            output_dtypes=tf.int32,
            batch_size=2,
        )
    with pytest.raises(
        ValueError, match=r"without a `source` \(\['x', 'z'\]\).*DALIDatasetWithInputs"
    ):
        DALIDataset(two(), output_dtypes=tf.int32, batch_size=2, device_id=None)


def test_input_batch_none_takes_the_sources_batch():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def per_sample():
        return fn.external_source(name="x", batch=False)

    ds = DALIDatasetWithInputs(
        per_sample(),
        input_datasets={"x": Input(samples(4), batch=None)},
        output_dtypes=tf.int32,
        batch_size=2,
        device_id=None,
    )
    first = next(iter(ds))[0].numpy()
    assert first.shape[0] == 2


def test_elements_of_several_tensors_are_rejected():
    pairs = tf.data.Dataset.from_tensors((tf.zeros([1]), tf.zeros([1]))).repeat(4)
    ds = DALIDatasetWithInputs(
        scaled_pipe(), input_datasets={"x": pairs}, output_dtypes=tf.float32, batch_size=2
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="elements of 2 tensors"):
        next(iter(ds))
