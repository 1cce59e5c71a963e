"""Pipeline construction, graph definition, running and errors."""

from __future__ import annotations

import gc
import threading
import time
import warnings

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._graph.schema import REQUIRED, Arg, register
from dali._graph.trace import call_operator
from dali._ops.base import Operator
from dali._tensors import TensorListCPU


@register("_test.fails_on_sample", devices=("cpu",), inputs=1, args=[Arg("bad", "int", default=2)])
class _FailsOnSample(Operator):
    def run_cpu(self, ws):
        def one(i):
            if i == self.arg("bad"):
                raise ValueError("boom in sample")
            return ws.inputs[0].samples()[i]

        return TensorListCPU.wrap(ws.map(one))


@register("_test.fails", devices=("cpu",), inputs=1)
class _Fails(Operator):
    def run_cpu(self, ws):
        raise ZeroDivisionError("whole batch failed")


@register("_test.required", devices=("cpu",), inputs=(0, 1), args=[Arg("angle", "float", REQUIRED)])
class _Required(Operator):
    def run_cpu(self, ws):
        return ws.inputs[0]


def _uniform_pipe(**kw):
    kw.setdefault("batch_size", 4)
    kw.setdefault("num_threads", 1)
    kw.setdefault("seed", 1)
    pipe = dali.Pipeline(**kw)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1)))
    return pipe


# -- constructor and properties --------------------------------------------------------------


def test_properties_and_defaults():
    pipe = dali.Pipeline(batch_size=8, num_threads=3, device_id=None, seed=5)
    assert pipe.max_batch_size == 8
    with pytest.warns(Warning, match="batch_size is deprecated"):
        assert pipe.batch_size == 8
    assert pipe.num_threads == 3
    assert pipe.device_id is None
    assert pipe.seed == 5
    assert pipe.exec_pipelined and pipe.exec_async
    assert pipe.exec_dynamic is True
    assert pipe.exec_separated is False
    assert pipe.prefetch_queue_depth == 2
    assert pipe.cpu_queue_size == pipe.gpu_queue_size == 2
    assert pipe.max_streams == -1
    assert pipe.default_cuda_stream_priority == 0
    assert pipe.py_num_workers == 1
    assert pipe.py_start_method == "fork"
    assert pipe.is_restored_from_checkpoint is False


def test_cpu_only_device_id_constant_maps_to_none():
    assert dali.Pipeline(batch_size=1, device_id=types.CPU_ONLY_DEVICE_ID).device_id is None


def test_negative_seed_warns_and_means_random():
    with pytest.warns(DeprecationWarning):
        pipe = dali.Pipeline(batch_size=1, seed=-3)
    assert pipe.seed is None


def test_separated_queues():
    pipe = dali.Pipeline(batch_size=1, prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2})
    assert pipe.exec_separated is True
    assert pipe.exec_dynamic is None
    assert (pipe.cpu_queue_size, pipe.gpu_queue_size) == (3, 2)
    with pytest.raises(ValueError):
        dali.Pipeline(
            batch_size=1, exec_async=False, prefetch_queue_depth={"cpu_size": 1, "gpu_size": 1}
        )
    with pytest.raises(TypeError):
        dali.Pipeline(batch_size=1, prefetch_queue_depth="2")


def test_exec_dynamic_only_when_async_and_pipelined():
    assert dali.Pipeline(batch_size=1, exec_async=False, exec_pipelined=False).exec_dynamic is None


def test_py_callback_pickler_requires_spawn():
    with pytest.raises(ValueError):
        dali.Pipeline(batch_size=1, py_callback_pickler=object())


def test_deprecated_stream_arguments_warn():
    with pytest.warns(DeprecationWarning):
        dali.Pipeline(batch_size=1, max_streams=4)


# -- build errors -----------------------------------------------------------------------------


def test_missing_batch_size():
    pipe = dali.Pipeline(num_threads=1)
    with pipe:
        pipe.set_outputs(fn.random.uniform())
    with pytest.raises(ValueError, match=r"The batch size must be set."):
        pipe.build()


def test_num_threads_checked_at_build():
    pipe = dali.Pipeline(batch_size=2)
    with pipe:
        pipe.set_outputs(fn.random.uniform())
    with pytest.raises(TypeError, match="num_threads"):
        pipe.build()
    pipe = dali.Pipeline(batch_size=2, num_threads=0)
    with pipe:
        pipe.set_outputs(fn.random.uniform())
    with pytest.raises(ValueError, match="num_threads"):
        pipe.build()


def test_all_cpu_pipeline_runs_with_integer_device_id():
    # Unlike DALI, device_id=0 does not need CUDA when nothing runs on the GPU.
    pipe = _uniform_pipe(device_id=0)
    (out,) = pipe.run()
    assert len(out) == 4


def test_gpu_node_without_device_id_fails_at_build():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.random.uniform().gpu())
    with pytest.raises(RuntimeError, match="CUDA-capable GPU"):
        pipe.build()


def test_gpu_operator_without_device_id_fails_at_build():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.random.uniform(device="gpu"))
    with pytest.raises(RuntimeError, match="CUDA-capable GPU"):
        pipe.build()


def test_missing_required_argument_names_operator_and_argument():
    pipe = dali.Pipeline(batch_size=2, num_threads=1)
    with pipe:
        pipe.set_outputs(call_operator(_Required.schema, (fn.random.uniform(),), {}))
    with pytest.raises(RuntimeError, match=r'Not all required arguments.*_test\.required.*"angle"'):
        pipe.build()


def test_build_is_idempotent_and_graph_frozen():
    pipe = _uniform_pipe()
    pipe.build()
    pipe.build()
    with pytest.raises(RuntimeError):
        pipe.set_outputs(fn.random.uniform())


# -- graph definition -------------------------------------------------------------------------


def test_with_context_sets_current_pipeline():
    pipe = dali.Pipeline(batch_size=1)
    assert dali.Pipeline.current() is None
    with pipe:
        assert dali.Pipeline.current() is pipe
    assert dali.Pipeline.current() is None
    dali.Pipeline.push_current(pipe)
    assert dali.Pipeline.current() is pipe
    assert dali.Pipeline.pop_current() is pipe


def test_define_graph_subclass_and_set_outputs_precedence():
    class P(dali.Pipeline):
        def define_graph(self):
            return fn.random.uniform(range=(5, 6))

    p = P(batch_size=3, num_threads=1, seed=0)
    (out,) = p.run()
    assert np.all(out.as_array() >= 5)

    q = P(batch_size=3, num_threads=1, seed=0)
    with q:
        q.set_outputs(fn.random.uniform(range=(-6, -5)))
    (out,) = q.run()
    assert np.all(out.as_array() < -4)


def test_base_define_graph_not_implemented():
    with pytest.raises(NotImplementedError):
        dali.Pipeline(batch_size=1, num_threads=1).build()


def test_run_returns_tuple_even_for_one_output():
    out = _uniform_pipe().run()
    assert isinstance(out, tuple) and len(out) == 1
    assert isinstance(out[0], dali.tensors.TensorListCPU)


def test_constant_outputs_are_normalised():
    pipe = dali.Pipeline(batch_size=2, num_threads=1)
    with pipe:
        pipe.set_outputs(
            5, np.array([1, 2], np.int64), [1.5, 2.5], types.Constant(3, dtype=types.UINT8)
        )
    a, b, c, d = pipe.run()
    assert a.dtype == types.INT32 and a.as_array().tolist() == [5, 5]
    assert b.dtype == types.INT32 and b.at(0).tolist() == [1, 2]
    assert c.dtype == types.FLOAT and c.at(1).tolist() == [1.5, 2.5]
    assert d.dtype == types.UINT8 and d.at(0) == 3


def test_nested_list_output_is_type_error():
    pipe = dali.Pipeline(batch_size=1, num_threads=1)
    with pipe, pytest.raises(TypeError, match="list/tuple expansion"):
        pipe.set_outputs([fn.random.uniform(), fn.random.uniform()])


def test_automatic_names_use_a_per_pipeline_counter():
    pipe = dali.Pipeline(batch_size=1)
    with pipe:
        a = fn.random.uniform()
        b = fn.random.coin_flip(name="flip")
        c = fn.random.normal()
    assert a.name == "__Uniform_0"
    assert b.name == "flip"
    assert c.name == "__Normal_1"
    detached = fn.random.uniform()
    assert "detached" in detached.name


def test_duplicate_operator_names_rejected():
    pipe = dali.Pipeline(batch_size=1)
    with pipe:
        fn.random.uniform(name="u")
        with pytest.raises(ValueError, match='"u" is already used'):
            fn.random.uniform(name="u")


def test_unused_operators_are_pruned_and_preserve_keeps_them():
    calls = []

    @register("_test.side_effect", devices=("cpu",), inputs=1)
    class SideEffect(Operator):
        def run_cpu(self, ws):
            calls.append(ws.iteration)
            return ws.inputs[0]

    pipe = dali.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        u = fn.random.uniform()
        call_operator(SideEffect.schema, (u,), {})
        call_operator(SideEffect.schema, (u,), {"preserve": True})
        pipe.set_outputs(u)
    pipe.run()
    pipe.close()  # (the iteration scheduled ahead runs before the executor stops)
    assert calls == [0, 1]  # only the preserved one ran (prefetch_queue_depth=2 iterations)


def test_operators_created_outside_pipeline_are_pulled_in():
    u = fn.random.uniform(range=(3, 4))
    pipe = dali.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(u)
    (out,) = pipe.run()
    assert np.all((out.as_array() >= 3) & (out.as_array() < 4))


# -- running ----------------------------------------------------------------------------------


def test_api_mixing_is_rejected():
    pipe = _uniform_pipe()
    pipe.run()
    with pytest.raises(RuntimeError, match="Mixing pipeline API type"):
        pipe.schedule_run()


def test_scheduled_api():
    pipe = _uniform_pipe()
    ref = _uniform_pipe()
    pipe.schedule_run()
    a = pipe.share_outputs()
    pipe.release_outputs()
    pipe.schedule_run()
    b = pipe.outputs()
    np.testing.assert_array_equal(a[0].as_array(), ref.run()[0].as_array())
    np.testing.assert_array_equal(b[0].as_array(), ref.run()[0].as_array())


def test_output_dtype_validation():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, output_dtype=types.INT32)
    with pipe:
        pipe.set_outputs(fn.random.uniform())
    with pytest.raises(
        RuntimeError,
        match=r"Data type in the output_idx=0 does not match. Expected: int32. Received: float.",
    ):
        pipe.run()


def test_output_spec_argument_checks():
    with pytest.raises(ValueError):
        dali.Pipeline(batch_size=1, output_dtype=types.NO_TYPE)
    with pytest.raises(TypeError):
        dali.Pipeline(batch_size=1, output_ndim="2")


def test_static_output_description():
    pipe = dali.Pipeline(batch_size=2, num_threads=1)
    with pipe:
        pipe.set_outputs(fn.random.uniform(shape=(3,)), fn.random.coin_flip())
    assert pipe.num_outputs == 2
    assert pipe.output_dtype() == [types.FLOAT, types.INT32]
    assert pipe.output_ndim() == [1, 0]


def test_epoch_size_without_readers():
    pipe = _uniform_pipe()
    assert pipe.epoch_size() == {}
    assert pipe.reader_meta() == {}
    with pytest.raises(RuntimeError, match="nope not found"):
        pipe.epoch_size("nope")


def test_readers_never_end_so_reset_is_a_noop():
    pipe = _uniform_pipe()
    first = pipe.run()[0].as_array()
    pipe.reset()
    second = pipe.run()[0].as_array()
    assert not np.array_equal(first, second)  # still the next iteration


@pytest.mark.parametrize("async_", [True, False])
def test_exec_async_off_gives_same_results(async_):
    ref = [_uniform_pipe().run()[0].as_array() for _ in range(1)]
    pipe = _uniform_pipe(exec_async=async_, exec_pipelined=async_)
    np.testing.assert_array_equal(pipe.run()[0].as_array(), ref[0])


# -- errors -----------------------------------------------------------------------------------


def test_error_in_sample_names_operator_sample_and_definition():
    pipe = dali.Pipeline(batch_size=4, num_threads=2, seed=0)
    with pipe:
        pipe.set_outputs(call_operator(_FailsOnSample.schema, (fn.random.uniform(),), {"bad": 2}))
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    msg = str(info.value)
    assert "_test.fails_on_sample" in msg
    assert "sample 2" in msg
    assert "test_pipeline.py" in msg  # where the operator was defined
    assert isinstance(info.value.__cause__, ValueError)
    # the pipeline stays usable: the next iteration runs (and fails the same way here)
    with pytest.raises(RuntimeError, match="sample 2"):
        pipe.run()


def test_error_for_whole_batch_keeps_original_traceback():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(call_operator(_Fails.schema, (fn.random.uniform(),), {}))
    with pytest.raises(RuntimeError, match="whole batch failed") as info:
        pipe.run()
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert info.value.__cause__.__traceback__ is not None


def _dali_threads():
    # a pipeline's threads; "dali-close" is the process's one closing thread (dali._exec.closer)
    return [
        t for t in threading.enumerate() if t.name.startswith("dali") and t.name != "dali-close"
    ]


def test_close_stops_every_thread():
    before = set(_dali_threads())
    pipe = _uniform_pipe(num_threads=4)
    pipe.run()
    assert set(_dali_threads()) - before
    pipe.close()
    pipe.close()  # idempotent
    assert not set(_dali_threads()) - before


def test_garbage_collection_stops_threads():
    before = set(_dali_threads())
    pipe = _uniform_pipe(num_threads=3)
    pipe.run()
    assert set(_dali_threads()) - before
    del pipe
    gc.collect()
    deadline = time.monotonic() + 5
    while set(_dali_threads()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(_dali_threads()) - before


def _threads():
    return {t for t in threading.enumerate() if t.name != "dali-close"}


def test_many_pipelines_do_not_leak_threads():
    before = _threads()
    for _ in range(20):
        _uniform_pipe(num_threads=2).run()
    gc.collect()
    deadline = time.monotonic() + 5
    while _threads() - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _threads() - before


def test_open_pipelines_are_closed_at_exit_in_the_exiting_thread():
    # weakref.finalize registers its exit handler at its first use: here before dali's, so it
    # runs after dali's closer has drained its queue (the order in which tracking matters)
    code = """
import threading
import weakref

class _Early:
    pass

_early = _Early()
weakref.finalize(_early, print, "early finalizer")
import dali
from dali import fn
from dali._exec import executor

shut_down = executor.Executor._shut_down

def spy(self):
    shut_down(self)
    print("closed on", threading.current_thread().name, flush=True)

executor.Executor._shut_down = spy
pipe = dali.Pipeline(batch_size=4, num_threads=2, device_id=None, seed=0)
with pipe:
    pipe.set_outputs(fn.random.uniform(range=(0, 1)) * 2)
pipe.run()
"""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n").count("closed on MainThread") == 1


def test_dropped_pipelines_are_closed_off_the_collector(tmp_path):
    # The collector runs finalizers wherever it is triggered, e.g. inside threading.enumerate(),
    # which holds the lock that every ending thread needs: closing there (joining threads) hung
    # CI. A dropped pipeline is now closed on the "dali-close" thread.
    code = """
import gc, threading, time
import dali
from dali import fn

def make():
    pipe = dali.Pipeline(batch_size=4, num_threads=3, device_id=None, seed=0)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1)) * 2)
    pipe.run()
    return pipe

pipe = make()
threads = [t for t in threading.enumerate() if t.name.startswith("dali-e")]
with threading._active_limbo_lock:  # as inside threading.enumerate()
    pipe.__del__()  # what the collector does with a dropped pipeline
del pipe
gc.collect()
deadline = time.monotonic() + 20
while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
    time.sleep(0.01)
print("stopped" if not any(t.is_alive() for t in threads) else "running")
"""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped"


def test_no_warnings_on_plain_run():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _uniform_pipe().run()


# -- legacy feeding and several Python sources ------------------------------------------------


def test_iter_setup_feeds_before_each_iteration():
    class P(dali.Pipeline):
        def __init__(self):
            super().__init__(batch_size=2, num_threads=1, prefetch_queue_depth=1)
            self.src = dali.ops.ExternalSource(name="inp")
            self.i = 0

        def define_graph(self):
            return self.src()

        def iter_setup(self):
            self.feed_input("inp", np.full((2, 3), self.i, dtype=np.int32))
            self.i += 1

    pipe = P()
    assert pipe.run()[0].as_array()[0, 0] == 0
    assert pipe.run()[0].as_array()[0, 0] == 1


def test_every_source_is_called_when_one_ends():
    calls = {"a": 0, "b": 0}

    def a(i):
        calls["a"] += 1
        if i == 1:
            raise StopIteration
        return np.zeros((2, 1), np.float32)

    def b(i):
        calls["b"] += 1
        return np.ones((2, 1), np.float32)

    pipe = dali.Pipeline(batch_size=2, num_threads=1, prefetch_queue_depth=1)
    with pipe:
        pipe.set_outputs(fn.external_source(source=a), fn.external_source(source=b))
    pipe.run()
    with pytest.raises(StopIteration):
        pipe.run()
    assert calls == {"a": 2, "b": 2}


def test_ops_external_source_takes_source_positionally():
    pipe = dali.Pipeline(batch_size=2, num_threads=1)
    src = dali.ops.ExternalSource(lambda i: np.full((2, 1), i, np.int64))
    with pipe:
        pipe.set_outputs(src())
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 0]
    with pytest.raises(TypeError, match="keyword arguments only"):
        dali.ops.random.Uniform((0, 1))


@register("_test.fails_on_many", devices=("cpu",), inputs=1)
class _FailsOnMany(Operator):
    def run_cpu(self, ws):
        def one(i):
            time.sleep(0.001 * (ws.batch_size - i))  # later samples finish first
            if i in (3, 5, 6):
                raise ValueError(f"bad sample {i}")
            return ws.inputs[0].samples()[i]

        return TensorListCPU.wrap(ws.map(one))


@pytest.mark.parametrize("num_threads", [1, 2, 4])
def test_first_failing_sample_is_reported_whatever_the_threads(num_threads):
    pipe = dali.Pipeline(batch_size=8, num_threads=num_threads, seed=0)
    with pipe:
        pipe.set_outputs(call_operator(_FailsOnMany.schema, (fn.random.uniform(),), {}))
    with pytest.raises(RuntimeError, match="sample 3") as info:
        pipe.run()
    assert "bad sample 3" in str(info.value)


def test_checkpointing_rejects_operators_defined_outside_the_pipeline():
    # DALI's rule: they have no stable name a checkpoint could find again
    outside = fn.random.uniform()
    pipe = dali.Pipeline(batch_size=2, num_threads=1, enable_checkpointing=True)
    with pipe:
        pipe.set_outputs(outside)
    with pytest.raises(RuntimeError, match=r"defined outside the pipeline scope:\n\['__Uniform"):
        pipe.build()
    detached = fn.random.uniform()
    plain = dali.Pipeline(batch_size=2, num_threads=1)
    with plain:
        plain.set_outputs(detached)
    assert len(plain.run()[0]) == 2  # without checkpointing they are allowed, as in DALI
