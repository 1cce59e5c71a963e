"""DALIDataset: a real tf.data.Dataset, its element structure and argument checks, passes,
loops, end of data and the run-time checks of types and shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tensorflow as tf
from dali import fn, pipeline_def, types
from dali.plugin.tf import DALIDataset, dataset_options
from dali.plugin.tf._convert import batch_to_tf
from dali.tensors import TensorListCPU

B = 4


def counter_pipe(batch_size=B, checkpointing=True, stop_after=None, **kwargs):
    """Output 0: the iteration index in every sample (``(B, 1)`` int32); output 1: a random
    float per sample. ``stop_after``: the source ends after that many iterations."""

    def source(i):
        if stop_after is not None and i >= stop_after:
            raise StopIteration
        return np.full((batch_size, 1), i, np.int32)

    @pipeline_def(
        batch_size=batch_size,
        num_threads=1,
        device_id=None,
        seed=5,
        enable_checkpointing=checkpointing,
        **kwargs,
    )
    def pipe():
        return fn.external_source(source, batch=True), fn.random.uniform(range=(0, 1))

    return pipe()


def counter_dataset(pipe=None, **kwargs):
    pipe = pipe if pipe is not None else counter_pipe()
    return DALIDataset(
        pipe,
        output_dtypes=(tf.int32, tf.float32),
        output_shapes=((B, 1), (B,)),
        batch_size=pipe.max_batch_size,
        device_id=None,
        **kwargs,
    )


def ids(batches):
    """The iteration index of each batch (output 0)."""
    return [int(b[0].numpy()[0, 0]) for b in batches]


# -- a real tf.data.Dataset ---------------------------------------------------------------------


def test_is_a_dataset_with_element_spec():
    ds = counter_dataset()
    assert isinstance(ds, tf.data.Dataset) and isinstance(ds, DALIDataset)
    assert ds.element_spec == (
        tf.TensorSpec((B, 1), tf.int32),
        tf.TensorSpec((B,), tf.float32),
    )
    first = next(iter(ds))
    assert isinstance(first, tuple) and len(first) == 2
    assert first[0].dtype == tf.int32 and first[0].shape == (B, 1)
    assert first[1].dtype == tf.float32 and first[1].shape == (B,)
    assert ds.options().autotune.enabled is False
    assert ds.options().experimental_optimization.apply_default_optimizations is False


def test_prefetch_take_map_and_eager_loops():
    ds = counter_dataset()
    assert ids(ds.take(3)) == [0, 1, 2]
    assert ids(ds.prefetch(2).take(4)) == [0, 1, 2, 3]
    doubled = ds.map(lambda a, b: (a * 2, b)).take(2)
    assert ids(doubled) == [0, 2]
    for k, (labels, _) in enumerate(ds):  # an eager loop over the endless dataset
        assert int(labels[0, 0]) == k
        if k == 5:
            break


def test_tf_function_loops():
    ds = counter_dataset()

    @tf.function
    def total(dataset):
        s = tf.constant(0)
        for labels, _ in dataset.take(3):
            s += tf.reduce_sum(labels)
        return s

    # every call makes a new iterator: it starts at the first batch, as in DALI
    assert int(total(ds)) == int(total(ds)) == B * (0 + 1 + 2)

    @tf.function
    def step(iterator):
        return next(iterator)[0][0, 0]

    it = iter(ds)
    assert [int(step(it)) for _ in range(3)] == [0, 1, 2]


@pytest.mark.parametrize("checkpointing", [True, False])
def test_each_iterator_starts_at_the_first_batch(checkpointing):
    ds = counter_dataset(counter_pipe(checkpointing=checkpointing))
    first = [(b[0].numpy(), b[1].numpy()) for b in ds.take(3)]
    again = [(b[0].numpy(), b[1].numpy()) for b in ds.take(3)]
    for (a0, a1), (b0, b1) in zip(first, again):  # same data, same random values
        np.testing.assert_array_equal(a0, b0)
        np.testing.assert_array_equal(a1, b1)
    one, two = iter(ds), iter(ds)
    got = [next(one), next(one), next(two), next(one), next(two)]
    assert ids(got) == [0, 1, 0, 2, 1]  # interleaved iterators each keep their place
    np.testing.assert_array_equal(got[2][1].numpy(), first[0][1])


@pytest.mark.parametrize("checkpointing", [True, False])
def test_every_kind_of_new_iterator_starts_at_the_first_batch(checkpointing):
    """As DALI's fresh pipeline per iterator: a loop, prefetch, a tf.function loop, with or
    without enable_checkpointing, and nothing to warn about."""
    ds = counter_dataset(counter_pipe(checkpointing=checkpointing))

    @tf.function
    def first_ids(dataset):
        out = tf.TensorArray(tf.int32, size=3)
        for k, (labels, _) in enumerate(dataset.take(3)):
            out = out.write(tf.cast(k, tf.int32), labels[0, 0])
        return out.stack()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ids(ds.take(2)) == [0, 1]
        assert ids(ds.take(2)) == [0, 1]
        assert ids(ds.prefetch(3).take(3)) == [0, 1, 2]
        assert first_ids(ds).numpy().tolist() == first_ids(ds).numpy().tolist() == [0, 1, 2]


def test_end_of_data_ends_the_dataset_and_a_new_pass_starts_again():
    ds = counter_dataset(counter_pipe(stop_after=3))
    assert ids(ds) == [0, 1, 2]
    assert ids(ds) == [0, 1, 2]
    it = iter(ds)
    for _ in range(3):
        next(it)
    with pytest.raises(StopIteration):
        next(it)

    # without checkpointing too
    plain = counter_dataset(counter_pipe(checkpointing=False, stop_after=2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ids(plain) == [0, 1]
        assert ids(plain) == [0, 1]


def test_python_operators_are_allowed():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda i: np.full((2, 3), i, np.float32), batch=True)
        return fn.python_function(x, function=lambda a: a + 0.5)

    ds = DALIDataset(pipe(), output_dtypes=tf.float32, batch_size=2, device_id=None)
    (x,) = next(iter(ds))
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 0.5, np.float32))


def test_image_pipeline(image_tree):
    @pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        return fn.resize(images, resize_x=32, resize_y=24), labels

    ds = DALIDataset(
        pipe(),
        output_dtypes=(tf.uint8, tf.int32),
        output_shapes=((8, 24, 32, 3), (8,)),
        batch_size=8,
        device_id=None,
    )
    batches = list(ds.take(3))  # the reader wraps around: 21 images, 24 samples
    assert [tuple(b[0].shape) for b in batches] == [(8, 24, 32, 3)] * 3
    labels = np.concatenate([b[1].numpy() for b in batches])
    assert sorted(set(labels[:21].tolist())) == [0, 1, 2]


# -- element structure and argument checks ------------------------------------------------------


def one_output_pipe(shape=(2, 3), dtype=np.float32, batch_size=2):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(lambda: np.zeros((batch_size, *shape), dtype), batch=True)

    return pipe()


def test_one_dtype_gives_one_tuples():
    ds = DALIDataset(one_output_pipe(), output_dtypes=tf.float32, batch_size=2, device_id=None)
    assert ds.element_spec == (tf.TensorSpec(None, tf.float32),)
    (x,) = next(iter(ds))
    assert x.shape == (2, 2, 3)
    one = DALIDataset(
        one_output_pipe(), output_dtypes=(tf.float32,), output_shapes=((2, None, 3),), batch_size=2
    )
    assert one.element_spec == (tf.TensorSpec((2, None, 3), tf.float32),)


def test_output_dtypes_must_be_a_dtype_or_a_tuple():
    with pytest.raises(TypeError, match=r"single tf\.DType value or a tuple"):
        DALIDataset(one_output_pipe(), output_dtypes=[tf.float32], batch_size=2)
    with pytest.raises(TypeError, match=r"single tf\.DType value or a tuple"):
        DALIDataset(one_output_pipe(), output_dtypes="float32", batch_size=2)
    with pytest.raises(TypeError, match="tuple of shapes"):
        DALIDataset(
            counter_pipe(), output_dtypes=(tf.int32, tf.float32), output_shapes=[None, None]
        )
    with pytest.raises(ValueError, match="one shape per output"):
        DALIDataset(counter_pipe(), output_dtypes=(tf.int32, tf.float32), output_shapes=(None,))


def test_output_dtypes_default_to_the_pipelines_types():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def known():
        x = fn.external_source(lambda: np.zeros((2, 3), np.uint8), batch=True, dtype=types.UINT8)
        return x, fn.random.uniform(range=(0, 1))

    ds = DALIDataset(known(), batch_size=2, device_id=None)
    assert [s.dtype for s in ds.element_spec] == [tf.uint8, tf.float32]
    assert [t.dtype for t in next(iter(ds))] == [tf.uint8, tf.float32]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def unknown():
        return fn.external_source(lambda: np.zeros((2, 3), np.float32), batch=True)

    with pytest.raises(TypeError, match="Got value `None`"):
        DALIDataset(unknown(), batch_size=2)  # a source's type is known only when it runs


def test_deprecated_dtypes_and_shapes():
    with pytest.warns(Warning) as caught:
        ds = DALIDataset(one_output_pipe(), dtypes=tf.float32, shapes=(2, 2, 3), batch_size=2)
    assert ds.element_spec == (tf.TensorSpec((2, 2, 3), tf.float32),)
    messages = sorted(str(w.message) for w in caught)
    assert len(messages) == 2 and all(w.category is Warning for w in caught)
    assert messages[0].startswith("Use of argument `dtypes` is deprecated")
    assert messages[1].startswith("Use of argument `shapes` is deprecated")
    assert all(w.filename == __file__ for w in caught)  # they point at the caller
    with pytest.warns(Warning):
        listed = DALIDataset(
            counter_pipe(), dtypes=[tf.int32, tf.float32], shapes=[(B, 1), (B,)], batch_size=B
        )
    assert len(listed.element_spec) == 2
    with pytest.raises(ValueError, match="Both arguments were provided"):
        DALIDataset(one_output_pipe(), output_dtypes=tf.float32, dtypes=tf.float32, batch_size=2)
    with pytest.raises(ValueError, match="Usage of `shapes` is deprecated"):
        DALIDataset(
            one_output_pipe(),
            output_dtypes=tf.float32,
            output_shapes=(2, 2, 3),
            shapes=(2, 2, 3),
            batch_size=2,
        )


def test_input_datasets_and_batch_size_checks():
    with pytest.raises(TypeError, match="DALIDatasetWithInputs"):
        DALIDataset(one_output_pipe(), output_dtypes=tf.float32, input_datasets={})
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        DALIDataset(one_output_pipe(), output_dtypes=tf.float32, bogus=1)
    with pytest.raises(ValueError, match="pass batch_size=2"):
        DALIDataset(one_output_pipe(), output_dtypes=tf.float32)  # DALI's default batch_size=1


# -- run-time checks ----------------------------------------------------------------------------


def test_wrong_dtype_names_the_output():
    ds = DALIDataset(
        counter_pipe(), output_dtypes=(tf.int32, tf.float64), batch_size=B, device_id=None
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"output `1`.*float64.*float32"):
        next(iter(ds))


def test_wrong_shape_names_the_output():
    ds = DALIDataset(
        counter_pipe(),
        output_dtypes=(tf.int32, tf.float32),
        output_shapes=((B, 2), (B,)),
        batch_size=B,
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"output `0`.*\[4,2\].*\[4,1\]"):
        next(iter(ds))


@pytest.mark.parametrize(
    ("declared", "expected"),
    [((B,), (B,)), ((None,), (B,)), ((B, 1), (B, 1)), (None, (B, 1)), ((None, None), (B, 1))],
)
def test_size_one_dimensions_may_be_left_out(declared, expected):
    ds = DALIDataset(
        counter_pipe(),
        output_dtypes=(tf.int32, tf.float32),
        output_shapes=(declared, None),
        batch_size=B,
    )
    labels, _ = next(iter(ds))
    assert tuple(labels.shape) == expected


def test_batch_size_one_may_leave_out_the_batch():
    ds = DALIDataset(
        one_output_pipe(shape=(2, 3), batch_size=1),
        output_dtypes=tf.float32,
        output_shapes=(2, 3),
        batch_size=1,
    )
    (x,) = next(iter(ds))
    assert tuple(x.shape) == (2, 3)


def test_ragged_batch_is_an_error():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(lambda: [np.zeros(2, np.float32), np.zeros(3, np.float32)])

    ds = DALIDataset(pipe(), output_dtypes=tf.float32, batch_size=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not uniform"):
        next(iter(ds))


def test_wrong_number_of_outputs():
    ds = DALIDataset(counter_pipe(), output_dtypes=tf.int32, batch_size=B)
    with pytest.raises(tf.errors.InvalidArgumentError, match="2 outputs"):
        next(iter(ds))


def _aligned(shape, dtype, align=64):
    """A numpy array whose data starts at a multiple of ``align`` bytes."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = np.empty(size + align, np.uint8)
    start = -buf.ctypes.data % align
    return buf[start : start + size].view(dtype).reshape(shape)


def _pointer(tensor):
    """The address of a CPU ``tf.Tensor``'s data."""
    return np.from_dlpack(_Capsule(tf.experimental.dlpack.to_dlpack(tensor))).ctypes.data


def test_outputs_share_the_pipelines_memory_when_aligned():
    """A batch reaches TensorFlow through DLPack: shared when its buffer is 64-byte aligned,
    else copied once into an aligned buffer (TensorFlow's kernels need the alignment)."""
    aligned = _aligned((2, 1000), np.float32)
    aligned[:] = 1
    tensor = batch_to_tf(
        TensorListCPU(aligned), dtype=tf.float32, shape=None, batch_size=2, index=0
    )
    assert _pointer(tensor) == aligned.ctypes.data

    buffer = np.ones(2000 + 16, np.float32)
    start = next(k for k in range(16) if (buffer.ctypes.data + 4 * k) % 64)
    misaligned = buffer[start : start + 2000].reshape(2, 1000)
    tensor = batch_to_tf(
        TensorListCPU(misaligned), dtype=tf.float32, shape=None, batch_size=2, index=0
    )
    assert _pointer(tensor) % 64 == 0 and _pointer(tensor) != misaligned.ctypes.data
    np.testing.assert_array_equal(tensor.numpy(), misaligned)
    assert float(tensor[1, 2]) == 1.0  # a slice: TensorFlow checks the alignment there


def test_through_the_dataset_the_values_arrive():
    def source(i):
        out = _aligned((2, 1000), np.float32)
        out[:] = i
        return out

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source, batch=True, no_copy=True)

    ds = DALIDataset(pipe(), output_dtypes=tf.float32, batch_size=2, device_id=None)
    assert [float(x[0][1, 999]) for x in ds.take(3)] == [0.0, 1.0, 2.0]


class _Capsule:
    """A DLPack capsule with the protocol numpy's ``from_dlpack`` reads."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_dataset_options():
    options = dataset_options()
    assert options.experimental_optimization.apply_default_optimizations is False
    assert options.autotune.enabled is False


# -- GPU (TensorFlow with CUDA and a CUDA device) -----------------------------------------------


def _tf_gpus():
    return tf.config.list_physical_devices("GPU")


@pytest.mark.gpu
def test_gpu_outputs_stay_on_the_gpu():
    if not _tf_gpus():
        pytest.skip("this TensorFlow sees no GPU")

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(lambda i: np.full((2, 3), i, np.float32), batch=True)
        return x.gpu() * 2

    with tf.device("/gpu:0"):
        ds = DALIDataset(pipe(), output_dtypes=tf.float32, batch_size=2, device_id=0)
        (x,) = next(iter(ds))
    assert "GPU" in x.device
    np.testing.assert_array_equal(x.numpy(), np.zeros((2, 3), np.float32))


@pytest.mark.gpu
def test_gpu_outputs_in_a_cpu_dataset_fail_on_device_mismatch():
    if not _tf_gpus():
        pytest.skip("this TensorFlow sees no GPU")

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        return fn.external_source(lambda: np.zeros((2, 3), np.float32), batch=True).gpu()

    with tf.device("/cpu:0"):
        ds = DALIDataset(pipe(), output_dtypes=tf.float32, batch_size=2, device_id=0)
        with pytest.raises(tf.errors.UnknownError, match="device mismatch"):
            next(iter(ds))
