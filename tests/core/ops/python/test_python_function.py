"""`fn.python_function`."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from dali import fn, ops, types
from dali.pipeline import Pipeline
from parity import assert_same


def make_pipe(graph, batch_size=2, depth=1, **kwargs):
    kwargs.setdefault("num_threads", 1)
    pipe = Pipeline(batch_size=batch_size, prefetch_queue_depth=depth, seed=1, **kwargs)
    with pipe:
        outs = graph()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe


def source(batch_size=2):
    """Sample i of iteration t is ``[t, i, i]`` (int32)."""
    return fn.external_source(
        lambda info: np.array([info.iteration, info.idx_in_batch, info.idx_in_batch], np.int32),
        batch=False,
    )


def test_per_sample_numpy_in_and_out():
    seen = []

    def f(a):
        seen.append(type(a))
        return a.astype(np.float32) * 2

    out = make_pipe(lambda: fn.python_function(source(), function=f)).run()[0]
    assert out.dtype == types.FLOAT
    assert out.as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert seen == [np.ndarray, np.ndarray]


def test_several_inputs_and_outputs():
    def f(a, b):
        return a + b, np.float64(a.sum())

    def graph():
        x = source()
        return fn.python_function(x, x, function=f, num_outputs=2)

    s, total = make_pipe(graph).run()
    assert s.as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert total.shape() == [(), ()] and total.dtype == types.FLOAT64
    assert total.as_array().tolist() == [0.0, 2.0]


def test_python_scalars_become_0d_arrays():
    out = make_pipe(lambda: fn.python_function(source(), function=lambda a: 1.5)).run()[0]
    assert out.shape() == [(), ()] and out.dtype == types.FLOAT64


def test_ragged_outputs():
    out = make_pipe(
        lambda: fn.python_function(source(), function=lambda a: np.zeros(a[1] + 1, np.uint8))
    ).run()[0]
    assert out.shape() == [(1,), (2,)]


def test_batch_processing_lists_in_list_or_array_out():
    seen = []

    def as_list(batch):
        seen.append((type(batch), len(batch)))
        return [s * 10 for s in batch]

    out = make_pipe(
        lambda: fn.python_function(source(), function=as_list, batch_processing=True)
    ).run()[0]
    assert out.as_array().tolist() == [[0, 0, 0], [0, 10, 10]]
    assert seen == [(list, 2)]
    dense = make_pipe(
        lambda: fn.python_function(
            source(), function=lambda batch: np.stack(batch) + 1, batch_processing=True
        )
    ).run()[0]
    assert dense.as_array().tolist() == [[1, 1, 1], [1, 2, 2]]


def test_batch_processing_wrong_batch_size_is_an_error():
    pipe = make_pipe(
        lambda: fn.python_function(source(), function=lambda b: b[:1], batch_processing=True)
    )
    with pytest.raises(RuntimeError, match=r"python_function.*has 1 samples, but the batch has 2"):
        pipe.run()


def test_wrong_number_of_outputs_names_the_operator():
    pipe = make_pipe(
        lambda: fn.python_function(source(), function=lambda a: (a, a, a), num_outputs=2)
    )
    with pytest.raises(RuntimeError, match=r"dali.fn.python_function.*sample 0") as e:
        pipe.run()
    assert isinstance(e.value.__cause__, ValueError)
    assert "got 3, expected 2" in str(e.value)
    pipe = make_pipe(lambda: fn.python_function(source(), function=lambda a: a, num_outputs=2))
    with pytest.raises(RuntimeError, match="must be a tuple") as e:
        pipe.run()
    assert isinstance(e.value.__cause__, TypeError)
    pipe = make_pipe(lambda: fn.python_function(source(), function=lambda a: (a, a)))
    with pytest.raises(RuntimeError, match="got 2, expected 1"):
        pipe.run()


def test_returning_none_with_an_output_is_an_error():
    pipe = make_pipe(lambda: fn.python_function(source(), function=lambda a: None))
    with pytest.raises(RuntimeError, match="returned None"):
        pipe.run()


def test_zero_outputs_for_side_effects_and_never_pruned():
    calls = []

    def graph():
        x = source()
        node = fn.python_function(x, function=lambda a: calls.append(a.tolist()), num_outputs=0)
        assert node is None
        unused = fn.python_function(x, function=lambda a: calls.append("unused") or a)
        assert unused is not None
        return x

    pipe = make_pipe(graph)
    pipe.run()
    assert calls.count("unused") == 2
    assert [c for c in calls if c != "unused"] == [[0, 0, 0], [0, 1, 1]]


def test_needs_a_current_pipeline():
    with pytest.raises(RuntimeError, match="Current Pipeline not set!"):
        fn.python_function(function=lambda: np.zeros(1))


def test_multiple_input_sets_are_rejected():
    with Pipeline(batch_size=1, num_threads=1):
        x = fn.external_source(lambda: [np.zeros(1)])
        with pytest.raises(TypeError, match="do not support Multiple Input Sets"):
            fn.python_function([x, x], function=lambda a: a)


def test_function_is_required():
    with (
        Pipeline(batch_size=1, num_threads=1),
        pytest.raises(TypeError, match="missing required argument: 'function'"),
    ):
        fn.python_function(fn.external_source(lambda: [np.zeros(1)]))
        with pytest.raises(TypeError, match="should be callable"):
            fn.python_function(function=3)


def test_no_inputs():
    out = make_pipe(lambda: (source(), fn.python_function(function=lambda: np.arange(2)))).run()[1]
    assert out.as_array().tolist() == [[0, 1], [0, 1]]


def test_errors_name_the_operator_and_sample():
    def f(a):
        if a[1] == 1:
            raise ArithmeticError("bad sample")
        return a

    pipe = make_pipe(lambda: fn.python_function(source(), function=f))
    with pytest.raises(RuntimeError, match=r"dali.fn.python_function.*sample 1") as e:
        pipe.run()
    assert isinstance(e.value.__cause__, ArithmeticError)
    assert "bad sample" in str(e.value)


def test_after_a_failed_sample_a_rebuilt_pipeline_works():
    failures = []

    def fails_once(a):
        if a[1] == 1 and not failures:
            failures.append(a[0])
            raise ArithmeticError("bad sample")
        return a * 2

    def graph():
        return fn.python_function(source(), function=fails_once, name="pf")

    pipe = make_pipe(graph)
    with pytest.raises(RuntimeError) as e:
        pipe.run()
    text = str(e.value)
    assert "`dali.fn.python_function` (pf), sample 1" in text and "bad sample" in text
    try:
        after = pipe.run()[0].as_array().tolist()
    except RuntimeError as again:  # a pipeline whose run failed may stay failed, as in DALI
        assert "(pf), sample 1" in str(again) and "bad sample" in str(again)
    else:  # or go on with the next iteration
        assert after == [[2, 0, 0], [2, 2, 2]]
    pipe.close()
    rebuilt = make_pipe(graph)
    assert rebuilt.run()[0].as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert rebuilt.run()[0].as_array().tolist() == [[2, 0, 0], [2, 2, 2]]
    rebuilt.close()


def test_stop_iteration_in_batch_function_does_not_end_the_epoch():
    def f(batch):
        raise StopIteration

    pipe = make_pipe(lambda: fn.python_function(source(), function=f, batch_processing=True))
    with pytest.raises(RuntimeError, match="StopIteration"):
        pipe.run()


def test_output_layouts():
    def graph():
        x = source()
        return fn.python_function(
            x, function=lambda a: (a, a[None]), num_outputs=2, output_layouts=["W"]
        )

    a, b = make_pipe(graph).run()
    assert (a.layout(), b.layout()) == ("W", "")
    pipe = make_pipe(
        lambda: fn.python_function(source(), function=lambda a: a, output_layouts="HW")
    )
    with pytest.raises(RuntimeError, match="'HW' cannot describe the 1-dimensional"):
        pipe.run()
    with Pipeline(batch_size=1, num_threads=1), pytest.raises(TypeError, match="output_layouts"):
        fn.python_function(function=lambda: 1, output_layouts=3)


def test_outputs_are_copies():
    buf = np.zeros(1, np.int64)

    def f(a):
        buf[0] = a[0]
        return buf  # the same buffer every time

    pipe = make_pipe(lambda: fn.python_function(source(), function=f), depth=3)
    got = [pipe.run()[0].as_array().reshape(-1).tolist() for _ in range(3)]
    assert got == [[0, 0], [1, 1], [2, 2]]


def test_runs_sequentially_in_the_executor_thread():
    active, overlaps, threads = [0], [0], set()
    lock = threading.Lock()

    def f(a):
        with lock:
            active[0] += 1
            overlaps[0] = max(overlaps[0], active[0])
        threads.add(threading.current_thread().name)
        time.sleep(0.002)
        with lock:
            active[0] -= 1
        return a

    pipe = make_pipe(lambda: fn.python_function(source(), function=f), batch_size=8, num_threads=4)
    pipe.run()
    assert overlaps[0] == 1
    assert threads == {"dali-executor"}


def test_the_pipeline_is_current_inside_the_function():
    seen = []

    def f(a):
        seen.append(Pipeline.current())
        return a

    pipe = make_pipe(lambda: fn.python_function(source(), function=f))
    pipe.run()
    assert seen == [pipe, pipe]


def test_ops_api():
    pipe = Pipeline(batch_size=2, num_threads=1)
    double = ops.PythonFunction(function=lambda a: a * 2)
    with pipe:
        pipe.set_outputs(double(source()))
    assert pipe.run()[0].as_array().tolist() == [[0, 0, 0], [0, 2, 2]]


@pytest.mark.gpu
def test_gpu_cupy_in_and_out_parity():
    cp = pytest.importorskip("cupy")
    seen = []

    def f(a):
        seen.append(type(a))
        return a * 3 + 1

    def graph(device):
        x = source()
        if device == "gpu":
            x = x.gpu()
        return fn.python_function(x, function=f, device=device)

    cpu = make_pipe(lambda: graph("cpu"), device_id=0).run()
    gpu = make_pipe(lambda: graph("gpu"), device_id=0).run()
    assert cp.ndarray in seen and np.ndarray in seen
    assert_same(cpu, gpu)
