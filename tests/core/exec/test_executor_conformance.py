"""How the executor schedules, runs ahead, fails, recovers and shuts down, as DALI 2.4 does.

Found side by side with real DALI (tests/conformance has the cases that run through both) and
by fault injection: fed data used up by prefetching, non-pipelined execution running ahead,
an abort at interpreter exit, a pipeline made unusable by one bad sample or a Ctrl-C, wrongly
typed constructor arguments, and a GPU build error that did not say which operator needs it.
Bad files and a decoding pipeline dropped at exit are `test_faults.py`'s cases.
"""

from __future__ import annotations

import collections
import gc
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._exec.executor import PipelineError

# -- helpers ------------------------------------------------------------------------------------


def _pipeline_threads():
    return {
        t for t in threading.enumerate() if t.name.startswith("dali") and t.name != "dali-close"
    }


@pytest.fixture(autouse=True)
def _no_pipeline_thread_left_behind():
    """Every pipeline of a test is closed (explicitly, or dropped and closed by the closing
    thread) before the next test starts: a test here leaves no thread running."""
    before = _pipeline_threads()
    yield
    gc.collect()
    deadline = time.monotonic() + 20
    while _pipeline_threads() - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _pipeline_threads() - before


def _fed_pipe(**kw):
    """A pipeline with one `feed_input` source "x" (batches of 2), returning x + 0."""
    kw.setdefault("num_threads", 1)
    pipe = dali.Pipeline(batch_size=2, device_id=None, **kw)
    with pipe:
        pipe.set_outputs(fn.external_source(name="x") + 0)
    return pipe


def _batch(i):
    return np.full((2, 1), i, np.int32)


def _value(outputs):
    return int(outputs[0].as_array()[0, 0])


class _Counted:
    """A batch callback returning the iteration index; ``calls`` counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, info):
        self.calls += 1
        return [np.array([info.iteration], np.int32)] * 2


def _run_python(script, timeout=120):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# -- 1. feed_input: scheduled iterations are returned before fed data is missed ---------------


def test_feed_three_then_run_three():
    pipe = _fed_pipe()
    for i in range(3):
        pipe.feed_input("x", _batch(i))
    assert [_value(pipe.run()) for _ in range(3)] == [0, 1, 2]
    # nothing in flight and nothing fed: now it is an error, naming the source
    with pytest.raises(RuntimeError, match="No data was fed to the external source 'x'"):
        pipe.run()
    pipe.feed_input("x", _batch(3))  # and the pipeline goes on once fed
    assert _value(pipe.run()) == 3


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_one_batch_fed_per_run(depth):
    pipe = _fed_pipe(prefetch_queue_depth=depth)
    got = []
    for i in range(5):
        pipe.feed_input("x", _batch(i))
        got.append(_value(pipe.run()))
    assert got == list(range(5))


def test_feeding_ahead_and_late_mixed():
    pipe = _fed_pipe(prefetch_queue_depth=3)
    pipe.feed_input("x", _batch(0))
    assert _value(pipe.run()) == 0  # one fed: one scheduled, returned
    for i in (1, 2, 3):
        pipe.feed_input("x", _batch(i))
    assert [_value(pipe.run()) for _ in range(3)] == [1, 2, 3]


def test_scheduled_api_with_fed_batches():
    pipe = _fed_pipe()
    for i in range(3):
        pipe.feed_input("x", _batch(i))
    for _ in range(3):
        pipe.schedule_run()
    assert [_value(pipe.outputs()) for _ in range(3)] == [0, 1, 2]
    assert pipe.empty()


def test_run_with_pipeline_inputs_without_pipelining():
    pipe = _fed_pipe(exec_pipelined=False, exec_async=False)  # default prefetch_queue_depth=2
    assert [_value(pipe.run(x=_batch(i))) for i in range(4)] == [0, 1, 2, 3]


def test_iter_setup_feeds_every_scheduled_iteration():
    class Fed(dali.Pipeline):
        def __init__(self):
            super().__init__(batch_size=2, num_threads=1, device_id=None)  # depth 2
            self.calls = 0

        def define_graph(self):
            return fn.external_source(name="x") * 1

        def iter_setup(self):
            self.feed_input("x", _batch(self.calls))
            self.calls += 1

    pipe = Fed()
    assert [_value(pipe.run()) for _ in range(4)] == [0, 1, 2, 3]
    assert pipe.calls == 5  # two ahead on the first run, then one per run


def test_a_callback_source_and_a_fed_one_together():
    cb = _Counted()
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.external_source(name="x"), fn.external_source(cb, batch_info=True))
    for i in range(2):
        pipe.feed_input("x", _batch(10 + i))
    outs = [pipe.run() for _ in range(2)]
    assert [_value(o) for o in outs] == [10, 11]
    assert [int(o[1].as_array()[0, 0]) for o in outs] == [0, 1]
    # the third iteration lacked its fed batch: the callback was not asked for it
    assert cb.calls == 2


# -- 2. how many iterations run ahead ---------------------------------------------------------


def _pipeline(pipelined: bool, asynchronous: bool, **kw: Any) -> dali.Pipeline:
    """A CPU pipeline of batch 2 with the given execution flags (graph set by the caller)."""
    return dali.Pipeline(
        batch_size=2, device_id=None, exec_pipelined=pipelined, exec_async=asynchronous, **kw
    )


@pytest.mark.parametrize(
    ("pipelined", "asynchronous", "depth", "expected"),
    [
        (True, True, 2, [2, 3, 4, 5]),
        (True, True, 1, [1, 2, 3, 4]),
        (True, True, 4, [4, 5, 6, 7]),
        (True, False, 3, [3, 4, 5, 6]),
        (False, False, 2, [1, 2, 3, 4]),
        (False, True, 3, [1, 2, 3, 4]),
    ],
)
def test_callbacks_called_once_per_scheduled_iteration(pipelined, asynchronous, depth, expected):
    cb = _Counted()
    pipe = _pipeline(pipelined, asynchronous, num_threads=1, prefetch_queue_depth=depth)
    with pipe:
        pipe.set_outputs(fn.external_source(cb, batch_info=True))
    counts = []
    for i in range(4):
        assert _value(pipe.run()) == i
        counts.append(cb.calls)
    assert counts == expected


def test_non_pipelined_pipeline_fed_one_batch_per_run():
    pipe = _fed_pipe(exec_pipelined=False, exec_async=False)
    got = []
    for i in range(3):
        pipe.feed_input("x", _batch(i))
        got.append(_value(pipe.run()))
    assert got == [0, 1, 2]


def _count_runs(pipe, names):
    """Wrap the operators ``names`` of the built ``pipe`` so that their runs are counted."""
    counts = collections.Counter()
    for step in pipe._plan.steps:
        if step.node.schema.fn_path in names:
            run = step.impl.run

            def counted(ws, _run=run, _name=step.node.schema.fn_path):
                counts[_name] += 1
                return _run(ws)

            step.impl.run = counted
    return counts


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_source_stage_and_operators_never_run_more_than_scheduled(image_tree, depth):
    pipe = dali.Pipeline(
        batch_size=3, num_threads=2, device_id=None, seed=1, prefetch_queue_depth=depth
    )
    with pipe:
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        pipe.set_outputs(fn.resize(fn.decoders.image(jpegs), size=(8, 8)), labels)
    pipe.build()
    counts = _count_runs(pipe, {"readers.file", "decoders.image", "resize"})
    for run in range(1, 5):
        pipe.run()
        time.sleep(0.2)  # time to run ahead, if anything did
        scheduled = depth + run - 1
        assert pipe._executor.stages[0].label == "source"  # the reader has its own stage
        assert max(counts.values()) <= scheduled, (run, dict(counts))
        assert counts["resize"] >= run
    pipe.close()
    assert set(counts.values()) <= {depth + 3}  # every scheduled iteration ran, no more


@pytest.mark.parametrize(
    ("depth", "ahead"), [({"cpu_size": 1, "gpu_size": 4}, 3), (4, 4), (2, 2)], ids=str
)
def test_a_stage_runs_at_most_its_queue_ahead_of_the_next(image_tree, depth, ahead):
    """DALI's CPU queue (``prefetch_queue_depth``'s ``cpu_size``) bounds how many finished
    iterations the source stage holds for the stage after it: with the later stage stuck, the
    reader runs the one that stage took, the queue's, and one more waiting to be queued."""
    gate = threading.Event()

    def stuck(x):
        gate.wait(60)
        return x

    pipe = dali.Pipeline(
        batch_size=2,
        num_threads=1,
        device_id=None,
        seed=1,
        prefetch_queue_depth=depth,
        exec_dynamic=False,
        cpu_parallelism="threads",
    )
    with pipe:
        _jpegs, labels = fn.readers.file(file_root=str(image_tree))
        pipe.set_outputs(fn.python_function(labels, function=stuck), labels)
    pipe.build()
    counts = _count_runs(pipe, {"readers.file"})
    assert pipe._executor is None
    pipe.schedule_run()
    assert pipe._executor.depth == 4 if isinstance(depth, dict) else depth
    deadline = time.monotonic() + 60
    while counts["readers.file"] < ahead and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # time to run further, if anything could
    assert counts["readers.file"] == ahead
    gate.set()
    outs = [pipe.share_outputs() for _ in range(pipe._executor.depth)]
    assert [o[1].as_array().tolist() for o in outs] == [o[0].as_array().tolist() for o in outs]
    pipe.close()


@pytest.mark.parametrize(
    ("settings", "extra"),
    [
        ({}, 0),
        ({"worker_process": True}, 1),
        ({"cpu_parallelism": "processes", "num_threads": 3}, 3),
    ],
    ids=["threads", "worker", "pool"],
)
def test_the_executor_says_how_far_ahead_the_pipeline_schedules(settings, extra):
    """The executor owns the depth: the user's queue, plus what a worker process needs (the
    iteration being handed over) or a pool (every worker one ahead)."""
    cb = _Counted()
    kw = {"batch_size": 2, "num_threads": 1, "device_id": None, "prefetch_queue_depth": 2}
    pipe = dali.Pipeline(**{**kw, **settings})
    with pipe:
        pipe.set_outputs(fn.external_source(cb, batch_info=True))
    pipe.run()
    assert pipe._executor.depth == 2 + extra
    assert cb.calls == 2 + extra
    pipe.run()
    assert cb.calls == 3 + extra
    pipe.close()


@pytest.mark.gpu
def test_gpu_stages_never_run_more_than_scheduled():
    cb = _Counted()
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=0, prefetch_queue_depth=2)
    with pipe:
        x = fn.external_source(cb, batch_info=True)
        pipe.set_outputs(fn.cast(x.gpu(), dtype=types.FLOAT) * 2)
    pipe.build()
    counts = _count_runs(pipe, {"cast"})
    for run in range(1, 5):
        pipe.run()
        time.sleep(0.2)
        assert cb.calls == run + 1
        assert run <= counts["cast"] <= run + 1
    pipe.close()


# -- 3. shutdown and concurrent runs --------------------------------------------------------------


def test_close_in_progress_at_exit_finishes_before_the_interpreter_stops():
    # A pipeline dropped just before exit is closed on the "dali-close" thread. At exit that
    # close (here made slow) must finish, every pipeline thread joined, before Python stops
    # its daemon threads; otherwise a thread coming back from OpenCV aborts the process.
    script = """
    import time
    import dali
    from dali import fn
    from dali._exec import executor

    shut_down = executor.Executor._shut_down

    def slow(self):
        time.sleep(0.5)
        shut_down(self)
        print("pipeline threads stopped:", not any(t.is_alive() for t in self._threads), flush=True)

    executor.Executor._shut_down = slow
    pipe = dali.Pipeline(batch_size=4, num_threads=2, device_id=None, seed=0)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1)) * 2)
    pipe.run()
    del pipe
    time.sleep(0.1)  # the closing thread has taken it: a close in progress at exit
    """
    done = _run_python(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pipeline threads stopped: True"


def test_two_threads_calling_run_take_turns():
    seen = []

    def slow(x):
        time.sleep(0.002)
        return x

    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=None, seed=0)
    with pipe:
        pipe.set_outputs(
            fn.python_function(fn.external_source(_Counted(), batch_info=True), function=slow)
        )

    def worker():
        for _ in range(15):
            seen.append(_value(pipe.run()))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(seen) == list(range(30))  # each iteration returned once
    assert not pipe.empty()  # the one prefetched: the counts stayed right
    pipe.close()


def test_close_from_another_thread_ends_a_waiting_run():
    release = threading.Event()

    def blocked(x):
        release.wait(10)
        return x

    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(_Counted(), batch_info=True)
        pipe.set_outputs(fn.python_function(x, function=blocked))
    got = []
    thread = threading.Thread(target=lambda: got.append(_value(pipe.run())))
    thread.start()
    time.sleep(0.2)
    closer = threading.Thread(target=pipe.close)
    closer.start()  # joins the executor thread, which waits in `blocked`
    time.sleep(0.1)
    release.set()
    closer.join(30)
    thread.join(30)
    assert not thread.is_alive() and not closer.is_alive()
    assert got == [0]  # the iteration in progress was finished and returned
    with pytest.raises(RuntimeError, match="closed"):
        pipe.run()


# -- 4. recovery after an error or an interrupt --------------------------------------------------


def _fails_at(iteration):
    def f(x):
        if int(x[0]) == iteration:
            raise ValueError(f"bad sample in iteration {iteration}")
        return x

    return f


@pytest.mark.parametrize(
    ("pipelined", "asynchronous"), [(True, True), (True, False), (False, False), (False, True)]
)
def test_an_operator_error_fails_its_iteration_only(pipelined, asynchronous):
    pipe = _pipeline(pipelined, asynchronous, num_threads=2)
    with pipe:
        x = fn.external_source(_Counted(), batch_info=True)
        pipe.set_outputs(fn.python_function(x, function=_fails_at(1)))
    assert _value(pipe.run()) == 0
    with pytest.raises(PipelineError, match=r"python_function.*sample 0") as info:
        pipe.run()
    assert isinstance(info.value.__cause__, ValueError)
    assert [_value(pipe.run()) for _ in range(3)] == [2, 3, 4]


def test_keyboard_interrupt_while_waiting_leaves_the_iteration_for_the_next_run():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")

    def slow(x):
        time.sleep(0.3)
        return x

    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=1)
    with pipe:
        x = fn.external_source(lambda info: [np.array([info.iteration], np.int32)], batch_info=True)
        pipe.set_outputs(fn.python_function(x, function=slow))
    pipe.build()  # so that the interrupt lands in the wait
    timer = threading.Timer(
        0.1, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)
    )
    # Ctrl-C raises KeyboardInterrupt whatever this process inherited (a background job
    # starts with SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            pipe.run()  # waits ~0.3 s for iteration 0
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not pipe.empty()  # still in flight, not lost
    assert int(pipe.run()[0].as_array()[0, 0]) == 0  # the interrupted iteration
    assert int(pipe.run()[0].as_array()[0, 0]) == 1
    assert int(pipe.run()[0].as_array()[0, 0]) == 2


def test_keyboard_interrupt_in_the_synchronous_executor_consumes_the_iteration():
    calls = []

    def interrupted_once(x):
        calls.append(int(x[0]))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return x

    pipe = dali.Pipeline(
        batch_size=1, num_threads=1, device_id=None, exec_pipelined=False, exec_async=False
    )
    with pipe:
        x = fn.external_source(lambda info: [np.array([info.iteration], np.int32)], batch_info=True)
        pipe.set_outputs(fn.python_function(x, function=interrupted_once))
    assert _value(pipe.run()) == 0
    with pytest.raises(KeyboardInterrupt):
        pipe.run()
    assert pipe.empty()
    assert [_value(pipe.run()) for _ in range(2)] == [2, 3]


# -- 5. constructor argument types ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("seed", "abc"),
        ("seed", 1.5),
        ("batch_size", "4"),
        ("batch_size", 4.0),
        ("num_threads", "2"),
        ("device_id", "0"),
        ("device_id", 0.0),
        ("prefetch_queue_depth", 2.0),
        ("prefetch_queue_depth", {"cpu_size": "2", "gpu_size": 2}),
        ("py_num_workers", "2"),
        ("exec_async", "yes"),
        ("exec_pipelined", 2),
        ("exec_dynamic", "x"),
        ("bytes_per_sample", "x"),
    ],
)
def test_wrongly_typed_arguments_are_type_errors_naming_them(name, value):
    with pytest.raises(TypeError, match=name):
        dali.Pipeline(**{"batch_size": 2, "num_threads": 1, name: value})


def test_well_typed_arguments_are_accepted():
    pipe = dali.Pipeline(
        batch_size=np.int32(2),
        num_threads=1,
        device_id=None,
        seed=np.int64(3),
        exec_pipelined=1,
        exec_async=True,
        py_num_workers=2,
    )
    assert pipe.seed == 3
    with pipe:
        pipe.set_outputs(fn.random.uniform())
    assert len(pipe.run()[0]) == 2


# -- 6. a GPU operator without a device ----------------------------------------------------------


def test_gpu_build_error_names_the_operators_and_where_they_were_defined():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        jpegs = fn.external_source(name="jpegs")
        images = fn.decoders.image(jpegs, device="mixed")  # the line the error names
        pipe.set_outputs(fn.resize(images, size=(4, 4)))
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "CUDA-capable GPU" in msg
    assert "fn.decoders.image` (device='mixed'" in msg
    assert "fn.resize` (device='gpu'" in msg
    assert "needs a GPU but device_id=None" in msg
    assert 'images = fn.decoders.image(jpegs, device="mixed")' in msg
    assert "test_executor_conformance.py" in msg


def test_gpu_build_error_names_a_gpu_copy():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.random.uniform(name="u").gpu())
    with pytest.raises(RuntimeError, match=r"`u.gpu\(\)` \(a `.gpu\(\)` copy\) needs a GPU"):
        pipe.build()
