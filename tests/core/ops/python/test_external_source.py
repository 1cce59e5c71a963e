"""`fn.external_source` (end of data, SampleInfo/BatchInfo)."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, types
from dali.pipeline import Pipeline
from dali.tensors import TensorCPU, TensorListCPU
from parity import assert_same


def make_pipe(graph, batch_size=3, depth=2, **kwargs):
    """A pipeline whose graph is ``graph()`` (returns the outputs)."""
    kwargs.setdefault("num_threads", 1)
    pipe = Pipeline(batch_size=batch_size, prefetch_queue_depth=depth, seed=7, **kwargs)
    with pipe:
        outs = graph()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe


def first_values(pipe, n):
    """``n`` runs of a one-output pipeline: the first element of each sample."""
    return [pipe.run()[0].as_array().reshape(-1).tolist() for _ in range(n)]


# --------------------------------------------------------------------------------------------
# Callables: parameters, iteration index, BatchInfo, SampleInfo
# --------------------------------------------------------------------------------------------


def test_callable_without_parameters_is_called_each_iteration():
    counter = iter(range(100))

    def src():
        v = next(counter)
        return np.full((3, 2), v, np.int32)

    pipe = make_pipe(lambda: fn.external_source(src))
    out = [pipe.run()[0].as_array()[:, 0].tolist() for _ in range(3)]
    assert out == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]


def test_one_parameter_gets_the_iteration_index():
    seen = []

    def src(i):
        seen.append(i)
        return np.full((3, 1), i, np.int64)

    pipe = make_pipe(lambda: fn.external_source(src), depth=1)
    assert first_values(pipe, 3) == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]
    assert seen == [0, 1, 2]


def test_parameter_with_default_counts():
    seen = []

    def src(i=100):
        seen.append(i)
        return [np.array([i])] * 3

    pipe = make_pipe(lambda: fn.external_source(src), depth=1)
    pipe.run()
    assert seen == [0]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (lambda a, b: None, "more than one positional argument"),
        (lambda a, b=1: None, "more than one positional argument"),
        (lambda *args: None, "var-positional argument `*args`"),
        (lambda **kw: None, "var-keyword argument `**kw`"),
        (lambda *, k: None, "keyword-only argument `k`"),
    ],
)
def test_bad_callable_signatures_are_type_errors(source, found):
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="must accept either 0 or 1 positional arguments") as e,
    ):
        fn.external_source(source)
    assert found in str(e.value)


def test_bound_methods_and_callable_objects_do_not_count_self():
    class Src:
        def __call__(self, i):
            return [np.array([i])]

        def method(self, i):
            return [np.array([10 + i])]

    obj = Src()
    pipe = make_pipe(lambda: (fn.external_source(obj), fn.external_source(obj.method)), 1, 1)
    a, b = pipe.run()
    assert a.as_array().tolist() == [[0]] and b.as_array().tolist() == [[10]]


def test_batch_info_gives_iteration_and_epoch():
    seen = []

    def src(info):
        seen.append(info)
        if info.iteration == 2:
            raise StopIteration
        return [np.array([info.iteration])]

    pipe = make_pipe(lambda: fn.external_source(src, batch_info=True), batch_size=1, depth=1)
    pipe.run()
    pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    pipe.run()
    assert all(isinstance(s, types.BatchInfo) for s in seen)
    assert [tuple(s) for s in seen] == [(0, 0), (1, 0), (2, 0), (0, 1)]


def test_per_sample_mode_gets_sample_info():
    seen = []

    def src(info):
        seen.append(list(info))
        return np.array(info.idx_in_epoch, np.int32)

    pipe = make_pipe(lambda: fn.external_source(src, batch=False), batch_size=3, depth=1)
    out = pipe.run()[0]
    pipe.run()
    assert seen[:4] == [[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [3, 0, 1, 0]]  # observed
    assert seen == [
        [0, 0, 0, 0],
        [1, 1, 0, 0],
        [2, 2, 0, 0],
        [3, 0, 1, 0],
        [4, 1, 1, 0],
        [5, 2, 1, 0],
    ]
    assert isinstance(types.SampleInfo(0, 0, 0, 0), tuple)
    assert out.shape() == [(), (), ()] and out.as_array().tolist() == [0, 1, 2]


def test_per_sample_mode_without_parameter():
    values = iter(range(100))
    pipe = make_pipe(
        lambda: fn.external_source(lambda: np.array([next(values)]), batch=False), depth=1
    )
    assert first_values(pipe, 2) == [[0, 1, 2], [3, 4, 5]]


def test_per_sample_stop_iteration_mid_batch_ends_the_epoch():
    def src(info):
        if info.idx_in_epoch == 4:
            raise StopIteration
        return np.array([info.idx_in_epoch, info.epoch_idx])

    pipe = make_pipe(lambda: fn.external_source(src, batch=False), batch_size=3, depth=1)
    assert pipe.run()[0].as_array()[:, 0].tolist() == [0, 1, 2]
    with pytest.raises(StopIteration):
        pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert pipe.run()[0].as_array().tolist() == [[0, 1], [1, 1], [2, 1]]


# --------------------------------------------------------------------------------------------
# End of data and reset
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_end_of_data_and_reset_exactly_as_observed(depth):
    def src(i):
        if i == 2:
            raise StopIteration
        return [np.array([i], np.int32)]

    pipe = make_pipe(lambda: fn.external_source(src), batch_size=1, depth=depth)
    assert pipe.run()[0].as_array().tolist() == [[0]]
    assert pipe.run()[0].as_array().tolist() == [[1]]
    for _ in range(2):
        with pytest.raises(StopIteration):
            pipe.run()
    pipe.reset()
    assert pipe.run()[0].as_array().tolist() == [[0]]
    assert pipe.run()[0].as_array().tolist() == [[1]]
    with pytest.raises(StopIteration):
        pipe.run()


def test_reset_without_end_of_data_is_a_no_op():
    pipe = make_pipe(lambda: fn.external_source(lambda i: [np.array([i])]), batch_size=1)
    pipe.run()
    pipe.reset()
    assert pipe.run()[0].as_array().tolist() == [[1]]


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_callback_runs_prefetch_queue_depth_times_before_first_run_returns(depth):
    calls = []

    def src(i):
        calls.append(i)
        return [np.array([i])]

    pipe = make_pipe(lambda: fn.external_source(src), batch_size=1, depth=depth)
    pipe.run()
    assert calls == list(range(depth))
    pipe.run()
    assert calls == list(range(depth + 1))


def test_schedule_run_calls_callbacks_at_schedule_time():
    calls = []
    pipe = make_pipe(
        lambda: fn.external_source(lambda i: calls.append(i) or [np.array([i])]),
        batch_size=1,
        depth=2,
    )
    pipe.schedule_run()
    assert calls == [0, 1]
    assert pipe.outputs()[0].as_array().tolist() == [[0]]


# --------------------------------------------------------------------------------------------
# Iterables, generators, cycle
# --------------------------------------------------------------------------------------------


def batches(n, batch_size=2):
    return [np.full((batch_size, 1), i, np.int32) for i in range(n)]


def test_iterable_without_cycle_ends_and_stays_exhausted():
    pipe = make_pipe(lambda: fn.external_source(batches(3)), batch_size=2, depth=1)
    assert first_values(pipe, 3) == [[0, 0], [1, 1], [2, 2]]
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    with pytest.raises(StopIteration):
        pipe.run()


@pytest.mark.parametrize("cycle", [True, "quiet"])
def test_cycle_quiet_repeats_for_ever(cycle):
    pipe = make_pipe(lambda: fn.external_source(batches(2), cycle=cycle), batch_size=2)
    assert first_values(pipe, 5) == [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]]


@pytest.mark.parametrize("cycle", [None, False, "no"])
def test_cycle_disabled_values(cycle):
    pipe = make_pipe(lambda: fn.external_source(batches(1), cycle=cycle), batch_size=2, depth=1)
    pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()


def test_cycle_raise_stops_then_restarts_after_reset():
    pipe = make_pipe(lambda: fn.external_source(batches(2), cycle="raise"), batch_size=2)
    assert first_values(pipe, 2) == [[0, 0], [1, 1]]
    with pytest.raises(StopIteration):
        pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert first_values(pipe, 2) == [[0, 0], [1, 1]]
    with pytest.raises(StopIteration):
        pipe.run()


def test_generator_function_is_called_again_when_cycling():
    calls = []

    def gen():
        calls.append(1)
        yield from batches(2)

    pipe = make_pipe(lambda: fn.external_source(gen, cycle="quiet"), batch_size=2, depth=1)
    assert first_values(pipe, 5) == [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]]
    assert len(calls) == 3


def test_generator_function_without_cycle_runs_once():
    def gen():
        yield from batches(2)

    pipe = make_pipe(lambda: fn.external_source(gen), batch_size=2, depth=1)
    assert first_values(pipe, 2) == [[0, 0], [1, 1]]
    with pytest.raises(StopIteration):
        pipe.run()


def test_generator_object_works_once_but_cannot_cycle():
    def gen():
        yield from batches(1)

    pipe = make_pipe(lambda: fn.external_source(gen()), batch_size=2, depth=1)
    assert first_values(pipe, 1) == [[0, 0]]
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="Cannot cycle through a generator"),
    ):
        fn.external_source(gen(), cycle=True)


@pytest.mark.parametrize("cycle", [True, "raise", False])
def test_cycle_with_a_callable_is_a_value_error(cycle):
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(ValueError, match="`cycle` can only be specified if `source` is"),
    ):
        fn.external_source(lambda: None, cycle=cycle)


def test_invalid_cycle_value():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(ValueError, match="Invalid value 'always' for the argument `cycle`"),
    ):
        fn.external_source(batches(1), cycle="always")


def test_source_neither_callable_nor_iterable():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="must be callable, iterable or a parameterless"),
    ):
        fn.external_source(42)


def test_per_sample_iterable():
    samples = [np.array([i]) for i in range(5)]
    pipe = make_pipe(lambda: fn.external_source(samples, batch=False), batch_size=2, depth=1)
    assert first_values(pipe, 2) == [[0, 1], [2, 3]]
    with pytest.raises(StopIteration):  # the 5th sample alone does not make a batch
        pipe.run()


# --------------------------------------------------------------------------------------------
# Data kinds, dtype, batch size
# --------------------------------------------------------------------------------------------


def run_once(data, batch_size=4, **kwargs):
    pipe = make_pipe(lambda: fn.external_source(lambda: data, **kwargs), batch_size, depth=1)
    return pipe.run()[0]


def test_dense_numpy_first_axis_is_the_batch():
    out = run_once(np.arange(24, dtype=np.uint8).reshape(4, 2, 3))
    assert isinstance(out, TensorListCPU)
    assert out.shape() == [(2, 3)] * 4 and out.dtype == types.UINT8
    assert out.at(3).tolist() == [[18, 19, 20], [21, 22, 23]]


def test_float64_stays_float64():
    assert run_once(np.zeros((2, 2))).dtype == types.FLOAT64  # observed


def test_ragged_list_of_arrays():
    out = run_once([np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)])
    assert out.shape() == [(2, 3), (4, 3)] and not out.is_dense_tensor()


def test_samples_with_different_dtypes_are_rejected():
    with pytest.raises(TypeError, match="different data types"):
        run_once([np.zeros(2, np.float32), np.zeros(2, np.int32)])


def test_samples_with_different_ndim_are_rejected():
    with pytest.raises(ValueError, match="same number of dimensions"):
        run_once([np.zeros((2, 2)), np.zeros(2)])


def test_python_scalars_become_0d_samples():
    out = run_once([1.5, 2.5])
    assert out.shape() == [(), ()] and out.dtype == types.FLOAT64


def test_tensor_list_and_tensors_keep_their_layout():
    tl = TensorListCPU(np.zeros((2, 4, 4, 3), np.uint8), "HWC")
    assert run_once(tl).layout() == "HWC"
    tensors = [TensorCPU(np.zeros((4, 3), np.int16), "HW")] * 3
    out = run_once(tensors)
    assert out.layout() == "HW" and len(out) == 3 and out.dtype == types.INT16


class ArrayInterfaceOnly:
    """Like a foreign CPU array: only ``__array_interface__``."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


class DLPackOnly:
    """Like a torch/jax CPU tensor seen through DLPack only."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, *args, **kwargs):
        return self._arr.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_array_protocols_without_frameworks():
    base = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert run_once(ArrayInterfaceOnly(base)).as_array().tolist() == base.tolist()
    assert run_once(DLPackOnly(base)).as_array().tolist() == base.tolist()
    out = run_once([DLPackOnly(base[0]), ArrayInterfaceOnly(base[1])])
    assert out.as_array().tolist() == base.tolist()


def test_unsupported_data_is_a_type_error_naming_the_operator():
    with pytest.raises(TypeError, match=r"dali.fn.external_source"):
        run_once(["a", "b"])
    with pytest.raises(TypeError, match="cannot hold"):
        run_once(np.zeros(2, np.complex64))


def test_batch_larger_than_max_batch_size_is_an_error():
    with pytest.raises(RuntimeError, match="Expected batch_size <= 4, actual: 5"):
        run_once(np.zeros((5, 1)))


def test_smaller_batch_is_fine():
    out = run_once(np.zeros((2, 1)))
    assert len(out) == 2


def test_0d_dense_batch_is_rejected():
    with pytest.raises(ValueError, match="0-dimensional"):
        run_once(np.float32(3.0))


def test_data_is_copied_unless_no_copy():
    buf = np.zeros((2, 1), np.int32)

    def src(i):
        buf[:] = i  # the callback reuses its buffer: fine, DALI copies fed data
        return buf

    pipe = make_pipe(lambda: fn.external_source(src), batch_size=2, depth=3)
    assert first_values(pipe, 3) == [[0, 0], [1, 1], [2, 2]]
    shared = run_once(buf, batch_size=2, no_copy=True)
    assert np.shares_memory(shared.as_array(), buf)
    assert not np.shares_memory(run_once(buf, batch_size=2).as_array(), buf)


def test_compatibility_arguments_are_accepted():
    out = run_once(np.zeros((1, 1)), blocking=False, use_copy_kernel=True, cuda_stream=0)
    assert len(out) == 1


# --------------------------------------------------------------------------------------------
# num_outputs, layout, dtype, ndim
# --------------------------------------------------------------------------------------------


def test_num_outputs_tuple_or_list_of_batches():
    def src(i):
        return np.full((2, 1), i), [np.array([1.0]), np.array([2.0, 3.0])]

    pipe = make_pipe(lambda: fn.external_source(src, num_outputs=2), batch_size=2)
    a, b = pipe.run()
    assert a.as_array().tolist() == [[0], [0]] and b.shape() == [(1,), (2,)]
    pipe2 = make_pipe(
        lambda: fn.external_source(lambda: [np.zeros((1, 1))], num_outputs=1), batch_size=1
    )
    assert len(pipe2.run()) == 1


def test_positional_num_outputs():
    with Pipeline(batch_size=1, num_threads=1):
        nodes = fn.external_source(lambda: (np.zeros((1, 1)),) * 3, 3)
    assert isinstance(nodes, list) and len(nodes) == 3


def test_num_outputs_per_sample_mode():
    def src(info):
        return np.array([info.idx_in_batch]), np.array([[info.iteration]], np.uint8)

    pipe = make_pipe(lambda: fn.external_source(src, num_outputs=2, batch=False), batch_size=2)
    a, b = pipe.run()
    assert a.as_array().tolist() == [[0], [1]] and b.dtype == types.UINT8


def test_num_outputs_wrong_structure():
    with pytest.raises(TypeError, match="tuple or list of 2 batches"):
        make_pipe(lambda: fn.external_source(lambda: np.zeros((1, 1)), num_outputs=2), 1).run()
    with pytest.raises(TypeError, match="tuple or list of 2 samples"):
        make_pipe(
            lambda: fn.external_source(lambda: np.zeros(1), num_outputs=2, batch=False), 1
        ).run()


def test_num_outputs_with_name_or_without_source():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(ValueError, match="not compatible with named"),
    ):
        fn.external_source(lambda: None, num_outputs=2, name="x")
        with pytest.raises(ValueError, match="only valid when using ``source``"):
            fn.external_source(num_outputs=2)


def test_layout_is_set_and_checked_against_ndim():
    out = run_once(np.zeros((1, 2, 2, 3)), layout="HWC")
    assert out.layout() == "HWC"
    with pytest.raises(RuntimeError, match="The layout 'HWC' cannot describe 2-dimensional data"):
        run_once(np.zeros((1, 2, 2)), layout="HWC")


def test_layout_dtype_ndim_per_output():
    def src():
        return np.zeros((1, 2, 2), np.uint8), np.zeros((1, 3), np.float32), np.zeros((1, 1))

    def graph():
        return fn.external_source(
            src, num_outputs=3, layout=["HW", "C"], dtype=[types.UINT8, types.FLOAT], ndim=[2]
        )

    a, b, c = make_pipe(graph, 1).run()
    assert (a.layout(), b.layout(), c.layout()) == ("HW", "C", "")
    with Pipeline(batch_size=1, num_threads=1):
        x, y, z = graph()
    assert (x.dtype, y.dtype, z.dtype) == (types.UINT8, types.FLOAT, None)
    assert (x.ndim, y.ndim, z.ndim) == (2, 1, None)
    assert (x.layout, y.layout, z.layout) == ("HW", "C", "")


def test_list_argument_without_num_outputs_is_rejected():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="only together with `num_outputs`"),
    ):
        fn.external_source(lambda: None, layout=["HW"])


def test_dtype_is_checked():
    assert run_once(np.zeros((1, 2), np.float32), dtype=types.FLOAT).dtype == types.FLOAT
    with pytest.raises(RuntimeError, match=r"dtype_ == DALI_NO_TYPE \|\| dtype_ == batch.type"):
        run_once(np.zeros((1, 2), np.uint8), dtype=types.FLOAT)
    assert run_once(np.zeros((1, 2), np.uint8), dtype=types.NO_TYPE).dtype == types.UINT8


def test_dtype_and_ndim_give_static_metadata():
    pipe = make_pipe(
        lambda: fn.external_source(lambda: np.zeros((1, 2, 2)), dtype=types.FLOAT64, ndim=2), 1
    )
    assert pipe.output_dtype() == [types.FLOAT64] and pipe.output_ndim() == [2]
    with Pipeline(batch_size=1, num_threads=1):
        assert fn.external_source(lambda: None, layout="HWC").ndim == 3


def test_ndim_is_checked():
    assert len(run_once(np.zeros((1, 2)), ndim=1)) == 1
    with pytest.raises(RuntimeError, match="expected data with 2 dimensions and got 1"):
        run_once(np.zeros((1, 2)), ndim=2)


# A source's batches keep the type, ndim and layout of its first batch (DALI's messages).

DTYPE_CHANGED = (
    "Type of the data fed to the external source has changed from the previous iteration. "
    "Type in the previous iteration was float and the current type is int32."
)
NDIM_CHANGED = (
    "Number of dimensions of the data fed to the external source has changed from previous "
    "iteration. Dimensionality in the previous iteration was 2 and the current is 1."
)
LAYOUT_CHANGED = (
    "Layout of the data fed to the external source has changed from previous iteration. "
    'Layout in the previous iteration was "HW" and the current is "WH".'
)


def changing_batch(change, at=3):
    """Batches of 2 samples (2, 2) float32 "HW"; from iteration ``at`` on, ``change`` differs."""

    def batch(i):
        dtype = np.int32 if change == "dtype" and i >= at else np.float32
        shape = (2,) if change == "ndim" and i >= at else (2, 2)
        layout = "WH" if change == "layout" and i >= at else "HW" if change != "ndim" else ""
        return TensorListCPU(np.zeros((2, *shape), dtype), layout=layout)

    return batch


def assert_changed(text, message, name, where):
    assert message in text
    assert f"`dali.fn.external_source` ({name})" in text and f"External source '{name}'" in text
    assert where in text


def run_until_error(pipe, limit=10):
    with pytest.raises(RuntimeError) as e:
        for _ in range(limit):
            pipe.run()
    return str(e.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [("dtype", DTYPE_CHANGED), ("ndim", NDIM_CHANGED), ("layout", LAYOUT_CHANGED)],
)
def test_a_change_mid_stream_is_an_error_naming_the_source_and_iteration(change, message):
    pipe = make_pipe(lambda: fn.external_source(changing_batch(change), name="src"), 2)
    assert_changed(run_until_error(pipe), message, "src", "in iteration 3 of epoch 0")


@pytest.mark.parametrize("kind", ["iterable", "generator", "per-sample"])
def test_every_source_kind_keeps_its_first_dtype(kind):
    batches = [np.zeros((2, 1), np.float32)] * 2 + [np.zeros((2, 1), np.int32)]

    def gen():
        yield from batches

    def per_sample(info):
        return batches[min(info.iteration, 2)][0]

    source = {"iterable": batches, "generator": gen, "per-sample": per_sample}[kind]
    batch = kind != "per-sample"
    pipe = make_pipe(lambda: fn.external_source(source, batch=batch, name="s"), 2)
    assert_changed(run_until_error(pipe), DTYPE_CHANGED, "s", "in iteration 2 of epoch 0")


def test_each_output_of_a_multi_output_source_keeps_its_own():
    def src(i):
        return np.zeros((2, 1), np.uint8), np.zeros((2, 1), np.float32 if i < 1 else np.int32)

    pipe = make_pipe(lambda: fn.external_source(src, num_outputs=2), 2)
    text = run_until_error(pipe)
    assert DTYPE_CHANGED in text and ", output 1, in iteration 1 of epoch 0" in text


def test_fed_batches_keep_their_first_dtype_ndim_and_layout():
    pipe = make_pipe(lambda: fn.external_source(name="x"), 2, depth=1)
    pipe.feed_input("x", np.zeros((2, 2, 2), np.float32), layout="HW")
    with pytest.raises(RuntimeError) as e:
        pipe.feed_input("x", np.zeros((2, 2, 2), np.int32), layout="HW")
    assert_changed(str(e.value), DTYPE_CHANGED, "x", "in the batch given to `feed_input`")
    with pytest.raises(RuntimeError, match=NDIM_CHANGED):
        pipe.feed_input("x", np.zeros((2, 2), np.float32), layout="H")
    with pytest.raises(RuntimeError, match=LAYOUT_CHANGED):
        pipe.feed_input("x", np.zeros((2, 2, 2), np.float32), layout="WH")
    # A rejected batch is not queued and changes nothing: the pipeline goes on.
    pipe.feed_input("x", np.ones((2, 2, 2), np.float32), layout="HW")
    assert pipe.run()[0].as_array().tolist() == np.zeros((2, 2, 2)).tolist()
    assert pipe.run()[0].as_array().tolist() == np.ones((2, 2, 2)).tolist()


def test_a_fed_layout_must_match_the_declared_one():
    pipe = make_pipe(lambda: fn.external_source(name="x", layout="HW"), 1, depth=1)
    with pytest.raises(RuntimeError, match='Expected data with layout: "HW" and got: "WH"'):
        pipe.feed_input("x", np.zeros((1, 2, 2)), layout="WH")
    pipe.feed_input("x", np.zeros((1, 2, 2)), layout="HW")
    assert pipe.run()[0].layout() == "HW"


def test_a_layout_may_appear_but_not_disappear():
    # As in DALI: no layout, then one, is fine; once a batch had one, every batch needs it.
    batches = [np.zeros((1, 2, 2)), TensorListCPU(np.zeros((1, 2, 2)), layout="HW")]
    pipe = make_pipe(lambda: fn.external_source(batches + batches[:1], name="s"), 1, depth=1)
    assert [pipe.run()[0].layout() for _ in range(2)] == ["", "HW"]
    with pytest.raises(RuntimeError, match='previous iteration was "HW" and the current is ""'):
        pipe.run()


def test_the_first_batch_is_remembered_across_reset():
    def src(info):
        if info.iteration == 1:
            raise StopIteration
        return np.zeros((2, 1), np.float32 if info.epoch_idx == 0 else np.int32)

    pipe = make_pipe(lambda: fn.external_source(src, batch_info=True, name="s"), 2, depth=1)
    pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert_changed(run_until_error(pipe), DTYPE_CHANGED, "s", "in iteration 0 of epoch 1")


def test_empty_batches_do_not_set_the_type():
    data = [[], [np.zeros(1, np.int32)], [np.zeros(1, np.int32)]]
    pipe = make_pipe(lambda: fn.external_source(data, dtype=None), 1, depth=1)
    assert [pipe.run()[0].dtype for _ in range(3)][1:] == [types.INT32, types.INT32]


def test_layout_and_ndim_arguments_must_agree():
    pipe = make_pipe(lambda: fn.external_source(lambda: None, layout="HWC", ndim=2), 1)
    with pytest.raises(RuntimeError, match="ndim must match"):
        pipe.build()


def test_bad_argument_types_are_type_errors():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="`dtype` should be a data type"),
    ):
        fn.external_source(lambda: None, dtype="nope")
        with pytest.raises(TypeError, match="`ndim` should be a non-negative int"):
            fn.external_source(lambda: None, ndim=-1)


# --------------------------------------------------------------------------------------------
# Arguments only valid in some modes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arg", ["prefetch_queue_depth", "bytes_per_sample_hint"])
def test_parallel_only_arguments_without_parallel(arg):
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(ValueError, match=f"The argument `{arg}` is valid only for parallel"),
    ):
        fn.external_source(lambda i: None, **{arg: 2})


def test_repeat_last_with_source_is_a_value_error():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(ValueError, match="``repeat_last`` must not be set"),
    ):
        fn.external_source(lambda: None, repeat_last=True)


# --------------------------------------------------------------------------------------------
# Manual feeding
# --------------------------------------------------------------------------------------------


def test_feed_input_by_name_and_by_node():
    pipe = Pipeline(batch_size=2, num_threads=1, prefetch_queue_depth=2)
    with pipe:
        node = fn.external_source(name="inp", layout="W")
        pipe.set_outputs(node)
    pipe.feed_input("inp", np.zeros((2, 3), np.float32))
    pipe.feed_input(node, [np.ones(1, np.float32), np.ones(2, np.float32)])
    first = pipe.run()[0]
    pipe.feed_input("inp", np.zeros((1, 3), np.float32))  # the second run schedules one more
    assert first.layout() == "W" and first.as_array().shape == (2, 3)
    assert pipe.run()[0].shape() == [(1,), (2,)]


def test_feed_input_layout_argument():
    pipe = make_pipe(lambda: fn.external_source(name="x"), batch_size=1, depth=1)
    pipe.feed_input("x", np.zeros((1, 2, 2)), layout="HW")
    assert pipe.run()[0].layout() == "HW"


def test_a_run_returns_what_was_fed_then_names_the_empty_source():
    """Fewer batches fed than ``prefetch_queue_depth``: the run returns what was fed (as DALI
    does); only a run with nothing fed and nothing in flight fails, naming the source."""
    pipe = make_pipe(lambda: fn.external_source(name="inp"), batch_size=1, depth=2)
    pipe.feed_input("inp", np.full((1, 1), 7))
    assert pipe.run()[0].as_array().tolist() == [[7]]
    with pytest.raises(
        RuntimeError, match=r"No data was fed to the external source 'inp'.*feed_input"
    ):
        pipe.run()


def test_nothing_fed_names_the_source():
    pipe = make_pipe(lambda: fn.external_source(name="images"), batch_size=1, depth=1)
    with pytest.raises(RuntimeError, match=r"'images'.*feed_input"):
        pipe.run()


def test_run_with_pipeline_inputs():
    pipe = make_pipe(lambda: fn.external_source(name="inp"), batch_size=2, depth=1)
    for i in range(3):
        assert pipe.run(inp=np.full((2, 1), i))[0].as_array()[:, 0].tolist() == [i, i]


def test_run_with_pipeline_inputs_needs_depth_1():
    pipe = make_pipe(lambda: fn.external_source(name="inp"), batch_size=2, depth=2)
    with pytest.raises(RuntimeError, match="prefetch_queue_depth"):
        pipe.run(inp=np.zeros((2, 1)))


def test_feed_input_on_a_source_with_callback_is_an_error():
    pipe = make_pipe(lambda: fn.external_source(lambda: None, name="cb"), batch_size=1)
    with pytest.raises(RuntimeError, match="Cannot use `feed_input` on the external source 'cb'"):
        pipe.feed_input("cb", np.zeros((1, 1)))


def test_feed_input_checks_the_data():
    pipe = make_pipe(lambda: fn.external_source(name="x", dtype=types.INT32), 2, depth=1)
    with pytest.raises(RuntimeError, match="Expected batch_size <= 2, actual: 3"):
        pipe.feed_input("x", np.zeros((3, 1), np.int32))
    with pytest.raises(RuntimeError, match="expected data of type int32"):
        pipe.feed_input("x", np.zeros((2, 1), np.float32))


def test_repeat_last_repeats_the_last_fed_batch():
    pipe = make_pipe(lambda: fn.external_source(name="x", repeat_last=True), 1, depth=1)
    pipe.feed_input("x", np.full((1, 1), 5))
    assert first_values(pipe, 3) == [[5], [5], [5]]
    pipe.feed_input("x", np.full((1, 1), 6))
    assert first_values(pipe, 2) == [[6], [6]]


def test_fed_data_is_copied():
    pipe = make_pipe(lambda: fn.external_source(name="x"), 1, depth=1)
    buf = np.zeros((1, 1))
    pipe.feed_input("x", buf)
    buf[:] = 9
    assert first_values(pipe, 1) == [[0.0]]


def test_ops_api():
    pipe = Pipeline(batch_size=1, num_threads=1, prefetch_queue_depth=1)
    src = ops.ExternalSource(source=lambda i: [np.array([i])])
    feed = ops.ExternalSource()
    with pipe:
        a = src()
        b = feed(name="fed")
        pipe.set_outputs(a, b)
    pipe.feed_input("fed", [np.array([7])])
    a_out, b_out = pipe.run()
    assert a_out.as_array().tolist() == [[0]] and b_out.as_array().tolist() == [[7]]


# --------------------------------------------------------------------------------------------
# Errors from callbacks, determinism
# --------------------------------------------------------------------------------------------


def test_callback_errors_name_the_source_and_chain_the_original():
    def broken(i):
        raise KeyError("no such sample")

    pipe = make_pipe(lambda: fn.external_source(broken, name="reader"), 1)
    with pytest.raises(RuntimeError, match=r"dali.fn.external_source` \(reader\)") as e:
        pipe.run()
    assert isinstance(e.value.__cause__, KeyError)
    assert "no such sample" in str(e.value)
    assert "test_external_source.py" in str(e.value)  # where the source was defined


def graph_with_random():
    def src(info):
        return np.full((2,), info.idx_in_epoch, np.float32)

    x = fn.external_source(src, batch=False)
    noise = fn.random.uniform(range=(0.0, 1.0))
    doubled = fn.python_function(x, function=lambda a: a * 2)
    return x, noise, doubled


@pytest.mark.parametrize("num_threads", [1, 2, 4])
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_results_do_not_depend_on_threads_or_prefetch(num_threads, depth):
    pipe = make_pipe(graph_with_random, batch_size=4, depth=depth, num_threads=num_threads)
    got = [[o.as_array().tolist() for o in pipe.run()] for _ in range(3)]
    ref = make_pipe(graph_with_random, batch_size=4, depth=1, num_threads=1)
    expected = [[o.as_array().tolist() for o in ref.run()] for _ in range(3)]
    assert got == expected
    assert got[0][0][3] == [3.0, 3.0] and got[2][2][1] == [18.0, 18.0]


def test_sample_identity_is_the_index_in_the_epoch():
    """BatchMeta ids are ``iteration * max_batch_size + index``, epochs the epoch index."""
    pipe = make_pipe(lambda: fn.external_source(lambda i: np.zeros((2, 1))), batch_size=3)
    pipe.build()
    (step,) = pipe._plan.callback_sources
    batch, meta = step.impl.fetch(3, 1)
    assert len(batch) == 2
    assert meta.ids.tolist() == [9, 10] and meta.epochs.tolist() == [1, 1]


def test_random_values_follow_the_sample_not_the_batching():
    def graph():
        x = fn.external_source(lambda info: np.array(info.idx_in_epoch), batch=False)
        return x, fn.random.uniform(range=(0.0, 1.0))

    small = make_pipe(graph, batch_size=2, depth=1)
    large = make_pipe(graph, batch_size=4, depth=3)
    values = [v for _ in range(2) for v in small.run()[1].as_array().tolist()]
    assert values == large.run()[1].as_array().tolist()
    assert len(set(values)) == 4


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_source_copies_host_data_to_the_device_parity():
    cp = pytest.importorskip("cupy")

    def graph(device):
        return fn.external_source(
            lambda i: [np.full((2, 3), i, np.float32), np.ones((1, 3), np.float32)],
            device=device,
            layout="HW",
        )

    cpu = make_pipe(lambda: graph("cpu"), batch_size=2, device_id=0)
    gpu = make_pipe(lambda: graph("gpu"), batch_size=2, device_id=0)
    for _ in range(2):
        (c,), (g,) = cpu.run(), gpu.run()
        assert g.layout() == "HW"
        assert_same(c, g)
    assert cp.cuda.runtime.getDeviceCount() > 0


@pytest.mark.gpu
@pytest.mark.parametrize("data", ["numpy", "cupy"])
def test_gpu_source_keeps_its_first_dtype(data):
    cp = pytest.importorskip("cupy")
    xp = cp if data == "cupy" else np

    def src(i):
        return xp.zeros((2, 3), xp.float32 if i < 1 else xp.int32)

    pipe = make_pipe(lambda: fn.external_source(src, device="gpu", name="g"), 2, device_id=0)
    text = run_until_error(pipe)
    assert DTYPE_CHANGED in text and "GPU operator `dali.fn.external_source` (g)" in text
    assert "in iteration 1 of epoch 0" in text


@pytest.mark.gpu
def test_gpu_source_keeps_cupy_data_and_cpu_source_copies_it_to_host():
    cp = pytest.importorskip("cupy")
    data = cp.arange(6, dtype=cp.int32).reshape(2, 3)
    gpu = make_pipe(lambda: fn.external_source(lambda: data, device="gpu"), 2, device_id=0)
    (g,) = gpu.run()
    assert isinstance(g.as_tensor()._array, cp.ndarray)
    cp.testing.assert_array_equal(g.as_tensor()._array, data)
    cpu = make_pipe(lambda: fn.external_source(lambda: [data[0], data[1]]), 2, device_id=0)
    assert cpu.run()[0].as_array().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_no_copy_keeps_0d_samples_0d():
    out = run_once([np.float32(1.0), np.float32(2.0)], batch_size=2, no_copy=True)
    assert out.shape() == [(), ()] and out.as_array().tolist() == [1.0, 2.0]


def test_empty_batch_takes_dtype_from_the_argument():
    out = run_once([], dtype=types.INT16, ndim=2)
    assert len(out) == 0 and out.dtype == types.INT16


def test_blocking_waits_for_a_feed_from_another_thread():
    import threading

    pipe = make_pipe(lambda: fn.external_source(name="x", blocking=True), 1, depth=1)
    pipe.build()
    feeder = threading.Timer(0.05, pipe.feed_input, ("x", np.full((1, 1), 4)))
    feeder.start()
    assert first_values(pipe, 1) == [[4]]
    feeder.join()


# --------------------------------------------------------------------------------------------
# Framework data (skipped where the framework is not installed)
# --------------------------------------------------------------------------------------------


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    out = run_once(t, batch_size=2)
    assert out.dtype == types.FLOAT64 and out.as_array().tolist() == t.tolist()
    ragged = run_once([t[0], t[1][:2]], batch_size=2)
    assert ragged.shape() == [(3,), (2,)]


def test_jax_cpu_arrays():
    jax = pytest.importorskip("jax")
    x = jax.device_put(np.arange(4, dtype=np.int32).reshape(2, 2), jax.devices("cpu")[0])
    out = run_once(x, batch_size=2)
    assert out.dtype == types.INT32 and out.as_array().tolist() == [[0, 1], [2, 3]]


@pytest.mark.gpu
def test_torch_cuda_tensors_on_cpu_and_gpu_sources():
    torch = pytest.importorskip("torch")
    pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    t = torch.arange(6, dtype=torch.int32, device="cuda").reshape(2, 3)
    cpu = make_pipe(lambda: fn.external_source(lambda: t), 2, device_id=0).run()[0]
    assert cpu.as_array().tolist() == [[0, 1, 2], [3, 4, 5]]
    gpu = make_pipe(lambda: fn.external_source(lambda: t, device="gpu"), 2, device_id=0)
    assert gpu.run()[0].as_cpu().as_array().tolist() == [[0, 1, 2], [3, 4, 5]]


# --------------------------------------------------------------------------------------------
# timeout: a stuck source is an error naming it and the iteration, never a hang
# --------------------------------------------------------------------------------------------


def _stuck_at(iteration, release):
    """A source that waits for ``release`` (an Event) at ``iteration``."""

    def src(info):
        if info.iteration == iteration:
            release.wait()
        return np.full((3, 2), info.iteration, np.int32)

    return src


def test_a_stuck_callback_times_out_naming_the_source_and_the_iteration():
    import threading
    import time

    release = threading.Event()
    pipe = make_pipe(
        lambda: fn.external_source(
            _stuck_at(2, release), batch_info=True, timeout=0.5, name="slow"
        ),
        depth=1,  # (run k calls the source for iteration k)
    )
    try:
        assert first_values(pipe, 2) == [[0] * 6, [1] * 6]
        t0 = time.monotonic()
        with pytest.raises(TimeoutError) as info:
            for _ in range(3):
                pipe.run()
        assert time.monotonic() - t0 < 10
        message = str(info.value)
        assert "`slow`" in message and "iteration 2 (epoch 0)" in message
        assert "Timed out after 0.5 s" in message
        with pytest.raises(RuntimeError, match="Timed out"):  # and later runs: not a hang
            for _ in range(3):
                pipe.run()
    finally:
        release.set()
        pipe.close()
    names = [t.name for t in threading.enumerate()]
    assert all(not n.startswith("dali-source-slow") for n in names) or release.is_set()


def test_a_source_with_a_timeout_gives_the_same_batches():
    def src(info):
        return np.full((3, 2), info.iteration * 10 + info.epoch_idx, np.int32)

    timed = make_pipe(lambda: fn.external_source(src, batch_info=True, timeout=30.0))
    plain = make_pipe(lambda: fn.external_source(src, batch_info=True))
    assert first_values(timed, 5) == first_values(plain, 5)
    timed.close()


def test_a_blocking_source_times_out_waiting_for_feed_input():
    pipe = make_pipe(lambda: fn.external_source(name="fed", blocking=True, timeout=0.3), depth=1)
    pipe.feed_input("fed", [np.zeros(2, np.int32)] * 3)
    pipe.run()
    with pytest.raises(TimeoutError, match="blocking external source 'fed' within its timeout"):
        pipe.run()
    pipe.close()


def test_the_iterator_error_names_the_stuck_source():
    import threading

    from iterator_utils import NumpyIterator

    release = threading.Event()
    pipe = make_pipe(
        lambda: fn.external_source(
            _stuck_at(2, release), batch_info=True, timeout=0.3, name="stuck_reader"
        ),
        depth=1,
    )
    try:
        with pytest.raises(TimeoutError, match=r"`stuck_reader`.*iteration 2"):
            it = NumpyIterator([pipe], ["data"], size=30)
            for _ in range(5):
                next(it)
    finally:
        release.set()
        pipe.close()
