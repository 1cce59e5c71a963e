"""Parallel external sources: ``parallel=True`` runs the source in worker processes.

Kept fast (fork start, small batches); the one "spawn" start is about a second.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import signal
import threading
import time

import numpy as np
import pytest
from dali import fn, ops
from dali.pipeline import Pipeline


def per_sample(info):
    return np.array(
        [info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx, os.getpid()],
        np.int64,
    )


def per_sample_until_10(info):
    if info.idx_in_epoch >= 10:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.epoch_idx], np.int64)


def batch_dense(i):
    if i >= 3:
        raise StopIteration
    return np.full((4, 2), i, np.int32)  # one dense ndarray: crashes DALI 2.4, works here


def batch_info_list(info):
    return [np.array([info.iteration, info.epoch_idx])] * 2


def gen_three():
    for i in range(3):
        yield [np.array([i]), np.array([i])]


def two_outputs(info):
    return np.array([info.idx_in_epoch]), np.array(info.idx_in_epoch * 0.5)


def fails(info):
    if info.idx_in_epoch == 5:
        raise ValueError("sample five is broken")
    return np.zeros(1)


def dies(info):
    os._exit(3)


def float_then_int(i):
    return [np.zeros(1, np.float32 if i < 2 else np.int32)] * 2


def stuck_at_iteration_1(info):
    if info.iteration == 1:
        time.sleep(300)  # killed by the timeout
    return np.zeros(1)


def stuck(i):
    time.sleep(300)  # killed by the test
    return [np.zeros(1)]


def batch_ok(i):
    return [np.full(1, i)] * 2


def make_pipe(graph, batch_size=4, depth=2, workers=2, start="fork", **kwargs):
    pipe = Pipeline(
        batch_size=batch_size,
        num_threads=1,
        prefetch_queue_depth=depth,
        py_num_workers=workers,
        py_start_method=start,
        seed=1,
        **kwargs,
    )
    with pipe:
        outs = graph()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe


@pytest.fixture(autouse=True)
def no_leaked_workers():
    yield
    gc.collect()
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert multiprocessing.active_children() == []


def bounded(fn, limit=20.0):
    """The exception ``fn()`` raised (None if none), failing the test instead of hanging."""
    out = {}

    def target():
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), f"still blocked after {limit} s"
    return out.get("error")


def run_epoch(pipe, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append([o.as_array().tolist() for o in pipe.run()])
        except StopIteration:
            return out
    return out


def test_per_sample_callback_is_split_across_workers():
    # 4 workers, 2 batches in flight (the source's prefetch depth 1, and the next): each
    # batch in two contiguous slices, the slices of the next batch on the other two workers
    pipe = make_pipe(lambda: fn.external_source(per_sample, batch=False, parallel=True), workers=4)
    a = pipe.run()[0].as_array()
    b = pipe.run()[0].as_array()
    assert a[:, :4].tolist() == [[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0]]
    assert b[:, :4].tolist() == [[4, 0, 1, 0], [5, 1, 1, 0], [6, 2, 1, 0], [7, 3, 1, 0]]
    pids = [a[:, 4].tolist(), b[:, 4].tolist()]
    assert len({*pids[0], *pids[1]}) == 4 and os.getpid() not in pids[0]
    assert all(p[0] == p[1] and p[2] == p[3] != p[0] for p in pids)  # contiguous slices
    pipe.close()


def test_a_batch_made_by_one_worker_comes_back_as_one_array():
    # as many batches in flight as workers: each batch is one worker's, stacked in shared
    # memory, and the pipeline's batch is a view of it (no copy)
    pipe = make_pipe(lambda: fn.external_source(per_sample, batch=False, parallel=True), workers=2)
    for k in range(4):
        (out,) = pipe.run()
        batch = np.asarray(out.as_tensor())
        assert batch[:, 0].tolist() == [4 * k + i for i in range(4)]
        assert len(set(batch[:, 4].tolist())) == 1  # one worker
        assert not batch.flags.owndata and batch.ctypes.data % 64 == 0
    pipe.close()


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("es_depth", [1, 3])
def test_parallel_matches_sequential(workers, es_depth):
    def graph(parallel):
        kwargs = {"prefetch_queue_depth": es_depth} if parallel else {}
        a = fn.external_source(per_sample_until_10, batch=False, parallel=parallel, **kwargs)
        return a, fn.random.uniform(range=(0.0, 1.0))

    par = make_pipe(lambda: graph(True), batch_size=3, workers=workers)
    seq = make_pipe(lambda: graph(False), batch_size=3, depth=1)
    for _ in range(2):
        got, expected = run_epoch(par), run_epoch(seq)
        assert got == expected and len(got) == 3  # 10 samples: 3 full batches, then the end
        par.reset()
        seq.reset()
    assert got[0][0] == [[0, 1], [1, 1], [2, 1]]  # epoch_idx 1 after the reset
    par.close()


def test_batch_callable_dense_array_and_end_of_data():
    pipe = make_pipe(lambda: fn.external_source(batch_dense, parallel=True, prefetch_queue_depth=2))
    epoch = run_epoch(pipe)
    assert [b[0][0][0] for b in epoch] == [0, 1, 2]
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert [b[0][0][0] for b in run_epoch(pipe)] == [0, 1, 2]
    pipe.close()


def test_batch_info_and_multiple_outputs():
    pipe = make_pipe(
        lambda: [
            fn.external_source(batch_info_list, parallel=True, batch_info=True),
            *fn.external_source(two_outputs, num_outputs=2, batch=False, parallel=True),
        ],
        batch_size=2,
    )
    pipe.run()
    info, ids, halves = pipe.run()
    assert info.as_array().tolist() == [[1, 0], [1, 0]]
    assert ids.as_array().tolist() == [[2], [3]] and halves.as_array().tolist() == [1.0, 1.5]
    pipe.close()


@pytest.mark.parametrize("cycle", [None, "raise", "quiet"])
def test_generator_function_in_a_dedicated_worker(cycle):
    pipe = make_pipe(
        lambda: fn.external_source(gen_three, parallel=True, cycle=cycle, prefetch_queue_depth=2),
        batch_size=2,
    )
    if cycle == "quiet":
        got = [pipe.run()[0].as_array()[:, 0].tolist() for _ in range(5)]
        assert got == [[0, 0], [1, 1], [2, 2], [0, 0], [1, 1]]
        pipe.close()
        return
    first = run_epoch(pipe)
    assert [b[0] for b in first] == [[[0], [0]], [[1], [1]], [[2], [2]]]
    pipe.reset()
    second = run_epoch(pipe)
    assert second == (first if cycle == "raise" else [])
    pipe.close()


def test_iterable_source():
    data = [[np.array([i])] for i in range(3)]
    pipe = make_pipe(lambda: fn.external_source(data, parallel=True), batch_size=1)
    assert [b[0] for b in run_epoch(pipe)] == [[[0]], [[1]], [[2]]]
    pipe.close()


def test_prefetch_queue_depth_computes_batches_ahead(tmp_path):
    log = tmp_path / "calls"

    def logged(i):
        with open(log, "a") as f:
            f.write(f"{i}\n")
        return [np.array([i])]

    pipe = make_pipe(
        lambda: fn.external_source(logged, parallel=True, prefetch_queue_depth=3),
        batch_size=1,
        depth=1,
    )
    assert pipe.run()[0].as_array().tolist() == [[0]]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().split()) < 4):
        time.sleep(0.01)
    time.sleep(0.1)
    assert sorted(int(x) for x in log.read_text().split()) == [0, 1, 2, 3]
    pipe.close()


def test_invalid_parallel_sources():
    with Pipeline(batch_size=1, num_threads=1):
        with pytest.raises(TypeError, match="must accept exactly one argument"):
            fn.external_source(lambda: np.zeros((1, 1)), parallel=True)
        with pytest.raises(TypeError, match="with an iterable must be run in a batch mode"):
            fn.external_source([np.zeros((1, 1))], parallel=True, batch=False)
        with pytest.raises(TypeError, match="with a generator function must be run in a batch"):
            fn.external_source(gen_three, parallel=True, batch=False)
        with pytest.raises(ValueError, match="``no_copy`` cannot be specified to False"):
            fn.external_source(per_sample, parallel=True, no_copy=False)
        with pytest.raises(ValueError, match="``prefetch_queue_depth`` must be a positive"):
            fn.external_source(per_sample, parallel=True, prefetch_queue_depth=0)
        with pytest.raises(ValueError, match="``bytes_per_sample_hint`` must be a positive"):
            fn.external_source(per_sample, parallel=True, bytes_per_sample_hint=0)
        fn.external_source(per_sample, parallel=True, bytes_per_sample_hint=1024)


@pytest.mark.parametrize("workers", [0, -1])
def test_no_workers_is_a_build_error(workers):
    pipe = make_pipe(lambda: fn.external_source(per_sample, parallel=True), workers=workers)
    with pytest.raises(RuntimeError, match=r"Number of Python workers .* must be positive"):
        pipe.build()


def test_worker_exception_carries_the_original_traceback():
    pipe = make_pipe(lambda: fn.external_source(fails, batch=False, parallel=True, name="bad"))
    with pytest.raises(RuntimeError) as e:
        pipe.run()
    text = str(e.value)
    assert "dali.fn.external_source` (bad)" in text
    assert "Exception traceback received from worker process" in text
    assert 'raise ValueError("sample five is broken")' in text and "in fails" in text
    assert isinstance(e.value.__cause__.__cause__, ValueError)
    pipe.close()


def test_dead_worker_is_an_error_not_a_hang():
    pipe = make_pipe(lambda: fn.external_source(dies, batch=False, parallel=True))
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        pipe.run()
    pipe.close()


def test_close_and_garbage_collection_stop_the_workers():
    pipe = make_pipe(lambda: fn.external_source(per_sample, batch=False, parallel=True))
    pipe.start_py_workers()
    procs = multiprocessing.active_children()
    assert len(procs) == 2 and all(p.is_alive() for p in procs)
    pipe.run()
    pipe.close()
    assert not any(p.is_alive() for p in procs)

    pipe = make_pipe(lambda: fn.external_source(per_sample, batch=False, parallel=True))
    pipe.run()
    procs = multiprocessing.active_children()
    assert len(procs) == 2
    del pipe
    gc.collect()  # a dropped pipeline is closed on the "dali-close" thread (dali._exec.closer)
    deadline = time.monotonic() + 10
    while any(p.is_alive() for p in procs) and time.monotonic() < deadline:
        time.sleep(0.02)  # polled, not joined: that thread joins them (waitpid is not shared)
    assert not any(p.is_alive() for p in procs)


def test_sources_of_a_pipeline_share_py_num_workers_processes():
    pipe = make_pipe(
        lambda: [
            fn.external_source(per_sample, batch=False, parallel=True),
            fn.external_source(batch_info_list, parallel=True, batch_info=True),
            fn.external_source(gen_three, parallel=True),
        ],
        batch_size=2,
        workers=3,
    )
    pipe.run()
    assert len(multiprocessing.active_children()) == 3
    pipe.close()


def test_ops_api_defaults_to_per_sample_when_parallel():
    pipe = Pipeline(batch_size=2, num_threads=1, py_num_workers=1)
    src = ops.ExternalSource(source=per_sample, parallel=True)
    with pipe:
        pipe.set_outputs(src())
    assert pipe.run()[0].as_array()[:, :2].tolist() == [[0, 0], [1, 1]]
    pipe.close()


def test_spawn_needs_a_picklable_source():
    pipe = make_pipe(
        lambda: fn.external_source(lambda i: [np.zeros(1)], parallel=True), start="spawn"
    )
    with pytest.raises(RuntimeError, match="must be picklable"):
        pipe.run()
    pipe.close()


def test_spawn_start_method():
    pipe = make_pipe(
        lambda: fn.external_source(per_sample, batch=False, parallel=True),
        start="spawn",
        workers=1,
        depth=1,
    )
    out = pipe.run()[0].as_array()
    assert out[:, :4].tolist() == [[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0]]
    assert out[0, 4] != os.getpid()
    pipe.close()


# --------------------------------------------------------------------------------------------
# A source's dtype stays that of its first batch; timeouts and killed workers (beyond DALI)
# --------------------------------------------------------------------------------------------


def test_a_dtype_change_mid_stream_names_the_source_and_iteration():
    pipe = make_pipe(lambda: fn.external_source(float_then_int, parallel=True, name="p"), 2)
    error = bounded(lambda: [pipe.run() for _ in range(4)])
    text = str(error)
    assert "Type in the previous iteration was float and the current type is int32." in text
    assert "`dali.fn.external_source` (p)" in text and "iteration 2 of epoch 0" in text
    pipe.close()


def test_timeout_names_the_source_the_workers_and_the_iteration():
    pipe = make_pipe(
        lambda: fn.external_source(
            stuck_at_iteration_1, batch=False, parallel=True, name="slow", timeout=0.5
        )
    )
    pipe.start_py_workers()
    pids = {p.pid for p in multiprocessing.active_children()}
    start = time.monotonic()
    error = bounded(lambda: [pipe.run() for _ in range(3)])
    assert time.monotonic() - start < 10
    text = str(error)
    assert isinstance(error, RuntimeError) and isinstance(error.__cause__, TimeoutError)
    assert "`dali.fn.external_source` (slow)" in text and "external source `slow`" in text
    assert "Timed out after 0.5 s" in text and "iteration 1 (epoch 0)" in text
    # the workers that had iteration 1's samples, named with their pids
    named = re.search(r"process(?:es)? ((?:\d \(pid \d+\)(?:, )?)+) gave no result", text)
    assert named is not None, text
    assert {int(p) for p in re.findall(r"pid (\d+)", named.group(1))} <= pids
    assert not any(p.is_alive() for p in multiprocessing.active_children())  # killed
    again = bounded(pipe.run)  # the pool is closed for good: an error, not a hang
    assert isinstance(again, RuntimeError) and "Timed out" in str(again)
    assert bounded(pipe.close) is None


def test_a_stopped_worker_times_out_and_the_pipeline_closes():
    pipe = make_pipe(
        lambda: fn.external_source(batch_ok, parallel=True, name="s", timeout=0.5), workers=1
    )
    pipe.start_py_workers()
    (proc,) = multiprocessing.active_children()
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        error = bounded(pipe.run)
        assert f"Python worker process 0 (pid {proc.pid}) gave no result" in str(error)
        assert "the process stopped" in str(error) and "`s`" in str(error)
        start = time.monotonic()
        assert bounded(pipe.close) is None
        assert time.monotonic() - start < 3 and not proc.is_alive()
    finally:
        if proc.is_alive():  # never leave a stopped child: exiting would wait for it
            proc.kill()


def test_close_kills_a_stopped_worker_without_a_timeout():
    pipe = make_pipe(lambda: fn.external_source(batch_ok, parallel=True), workers=1)
    assert pipe.run()[0].as_array().tolist() == [[0], [0]]
    (proc,) = multiprocessing.active_children()
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        assert bounded(pipe.close, limit=15) is None
        assert not proc.is_alive()
    finally:
        if proc.is_alive():
            proc.kill()


# the error raised inside the failed send's `except` kept its frames, whose collection printed
# "BufferError: Existing exports of data" (Python 3.13)
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("when", ["before the run", "while it waits"])
def test_a_killed_worker_is_an_error_naming_the_worker_and_iteration(when):
    pipe = make_pipe(lambda: fn.external_source(stuck, parallel=True, name="k"), workers=1)
    pipe.start_py_workers()
    (proc,) = multiprocessing.active_children()
    if when == "before the run":
        proc.kill()
        proc.join(5)
    else:
        threading.Timer(0.3, proc.kill).start()
    error = bounded(pipe.run)
    text = str(error)
    assert isinstance(error, RuntimeError) and "`dali.fn.external_source` (k)" in text
    assert f"Python worker process 0 (pid {proc.pid}) of the parallel external source `k`" in text
    assert "exited unexpectedly (exit code -9)" in text
    assert "the batch of iteration 0 (epoch 0)" in text
    pipe.close()


def test_a_timeout_that_does_not_expire_changes_nothing():
    pipe = make_pipe(
        lambda: fn.external_source(batch_ok, parallel=True, timeout=5, prefetch_queue_depth=2)
    )
    got = [pipe.run()[0].as_array()[:, 0].tolist() for _ in range(3)]
    assert got == [[0, 0], [1, 1], [2, 2]]
    pipe.close()


def test_timeout_argument_checks():
    with Pipeline(batch_size=1, num_threads=1):
        fn.external_source(lambda: np.zeros((1, 1)), timeout=1)  # (any source may have one)
        for parallel in (True, False):
            for bad in (0, -1.0, float("inf"), float("nan")):
                with pytest.raises(ValueError, match="`timeout` must be a positive, finite"):
                    fn.external_source(per_sample, parallel=parallel, timeout=bad)
            for bad in ("1", True):
                with pytest.raises(TypeError, match="`timeout` should be a number of seconds"):
                    fn.external_source(per_sample, parallel=parallel, timeout=bad)
        fn.external_source(per_sample, parallel=True, timeout=None)
