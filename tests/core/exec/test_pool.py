"""CPU pipelines run on several worker processes (`dali._exec.process.pool`, ``cpu_parallelism``).

The same batches as on threads in one process (the same seed: the same samples, shuffles and
random values, over epochs, and checkpoints restored from one layout into the other), outputs
in shared memory without a copy, an operator error raised in the caller naming the operator and
the file, a killed worker raised at once (never a hang), and nothing left behind — no process,
no ``/dev/shm`` entry — after ``close()``, after the pipeline is dropped, after Ctrl-C or after
the consumer's death.
"""

from __future__ import annotations

import gc
import os
import resource
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dali import Pipeline, fn, pipeline_def, types
from dali._exec.executor import PipelineError
from dali._exec.process.executor import WorkerDied
from processes import consumer, shm_entries, wait_gone, worker_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

BATCH = 4
N = 21  # images of the tree


def _resnet_like(root: Path, parallelism: str, threads: int = 3, **kwargs: Any) -> Any:
    """readers.file (shuffled) -> decode -> random crop -> random mirror normalize, labels and
    a random value per sample."""

    @pipeline_def(
        batch_size=BATCH,
        num_threads=threads,
        device_id=None,
        seed=7,
        cpu_parallelism=parallelism,
    )
    def pipe(shuffle: dict[str, Any]) -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root), name="reader", **shuffle)
        images = fn.decoders.image(jpegs)
        images = fn.random_resized_crop(images, size=(24, 24))
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT, mean=[128.0], std=[64.0], mirror=fn.random.coin_flip()
        )
        return images, labels, fn.random.uniform(range=(0, 1))

    shuffle = kwargs.pop("shuffle", {"random_shuffle": True, "initial_fill": 7})
    return pipe(shuffle, **kwargs)


def _arrays(outputs: tuple[Any, ...]) -> list[np.ndarray]:
    return [np.array(tl.as_array()) for tl in outputs]


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    for x, y in zip(_arrays(a), _arrays(b)):
        np.testing.assert_array_equal(x, y)


SHUFFLES = [
    {"random_shuffle": True, "initial_fill": 7},
    {"shuffle_after_epoch": True},
    {},
]


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("shuffle", SHUFFLES, ids=["random_shuffle", "shuffle_after_epoch", "none"])
def test_same_batches_as_threads(image_tree: Path, workers: int, shuffle: dict[str, Any]) -> None:
    pooled = _resnet_like(image_tree, "processes", threads=workers, shuffle=shuffle)
    threads = _resnet_like(image_tree, "threads", shuffle=shuffle)
    try:
        assert pooled.cpu_workers() == (workers, "cpu_parallelism='processes'")
        for _ in range(12):  # two epochs and a bit
            _same(pooled.run(), threads.run())
        pids = pooled._executor.pids
        assert len(set(pids)) == workers and os.getpid() not in pids
        assert pooled.epoch_size("reader") == threads.epoch_size("reader") == N
    finally:
        pooled.close()
        threads.close()
    assert worker_pids() == []


def test_outputs_are_shared_memory_views_and_stay_valid_while_held(image_tree: Path) -> None:
    pooled = _resnet_like(image_tree, "processes", prefetch_queue_depth=1)
    threads = _resnet_like(image_tree, "threads")
    try:
        held, expected = [], []
        for _ in range(10):  # more iterations than in flight: slots are reused meanwhile
            images, labels, _ = pooled.run()
            want = _arrays(threads.run())
            array = images.as_tensor()  # (a view of the batch, no copy)
            view = np.asarray(array)
            assert view.ctypes.data % 64 == 0  # aligned: frameworks wrap it as it is
            assert not view.flags.owndata  # the memory is the slot's
            held.append((np.asarray(images.as_tensor()), labels))
            expected.append(want)
        for (images, labels), want in zip(held, expected):
            np.testing.assert_array_equal(images, want[0])
            np.testing.assert_array_equal(labels.as_array(), want[1])
    finally:
        pooled.close()
        threads.close()
    # still readable after close (the mappings stay with the views)
    np.testing.assert_array_equal(held[-1][0], expected[-1][0])


@pytest.mark.parametrize(
    ("saved", "restored"), [("processes", "threads"), ("threads", "processes")]
)
def test_checkpoints_restore_across_layouts(image_tree: Path, saved: str, restored: str) -> None:
    first = _resnet_like(image_tree, saved, enable_checkpointing=True)
    for _ in range(7):  # into the second epoch
        first.run()
    cpt = first.checkpoint()
    expected = [first.run() for _ in range(6)]
    second = _resnet_like(image_tree, restored, checkpoint=cpt, enable_checkpointing=True)
    try:
        for want in expected:
            _same(second.run(), want)
        # restored in place, into the running pipeline
        first.restore(cpt)
        for want in expected:
            _same(first.run(), want)
    finally:
        first.close()
        second.close()


def test_operator_error_names_operator_and_file(
    edge_images: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "data" / "0"
    root.mkdir(parents=True)
    for i in range(5):
        (root / f"good_{i}.jpg").write_bytes(edge_images["jpeg_444"].read_bytes())
    (root / "zz_bad.jpg").write_bytes(edge_images["corrupt"].read_bytes())

    @pipeline_def(batch_size=2, num_threads=2, device_id=None, cpu_parallelism="processes")
    def pipe() -> Any:
        jpegs, _ = fn.readers.file(file_root=str(tmp_path / "data"))
        return fn.decoders.image(jpegs)

    p = pipe()
    try:
        p.run()
        p.run()
        with pytest.raises(PipelineError) as info:
            p.run()  # good_4, zz_bad
        message = str(info.value)
        assert "decoders.image" in message and "zz_bad.jpg" in message
        for _ in range(2):  # the next iterations (the next epoch's) are fine, on both workers
            p.run()
    finally:
        p.close()


def test_skipped_samples_are_counted_over_the_workers(
    edge_images: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "data" / "0"
    root.mkdir(parents=True)
    for i in range(3):
        (root / f"good_{i}.jpg").write_bytes(edge_images["jpeg_444"].read_bytes())
    (root / "zz_bad.jpg").write_bytes(edge_images["corrupt"].read_bytes())

    @pipeline_def(batch_size=4, num_threads=2, device_id=None, cpu_parallelism="processes")
    def pipe() -> Any:
        jpegs, _ = fn.readers.file(file_root=str(tmp_path / "data"))
        return fn.decoders.image(jpegs, on_error="skip", name="decoder")

    p = pipe()
    for _ in range(4):  # one epoch per batch, on each worker in turn
        (images,) = p.run()
        assert len(images) == 3
    assert p.skipped_samples("decoder") == 4
    p.close()


def test_python_sources_stay_with_the_consumer() -> None:
    """A lambda source does not travel: the consumer calls it, in order, and sends the batch."""
    calls: list[int] = []

    def source(info: Any) -> np.ndarray:
        calls.append(info.iteration)
        return np.full((2,), info.idx_in_epoch, dtype=np.int32)

    @pipeline_def(batch_size=3, num_threads=2, device_id=None, cpu_parallelism="processes")
    def pipe() -> Any:
        data = fn.external_source(lambda info: source(info), batch=False)
        return data * 2, fn.random.uniform(range=(0, 1))

    p = pipe()
    values = [p.run() for _ in range(4)]
    assert [v[0].as_array()[:, 0].tolist() for v in values] == [
        [0, 2, 4],
        [6, 8, 10],
        [12, 14, 16],
        [18, 20, 22],
    ]
    assert calls == sorted(calls)  # called here, in order
    p.close()


def test_killed_worker_is_an_error_not_a_hang(image_tree: Path) -> None:
    p = _resnet_like(image_tree, "processes")
    p.run()
    pid = p._executor.pids[1]
    os.kill(pid, signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(WorkerDied, match="killed by signal 9"):
        for _ in range(8):
            p.run()
    assert time.monotonic() - t0 < 30
    with pytest.raises(WorkerDied):  # and every later call
        p.run()
    p.close()
    assert wait_gone(pid)
    assert worker_pids() == []


def test_nothing_left_after_close_or_drop(image_tree: Path) -> None:
    from dali._exec import closer

    shm_before = shm_entries()
    p = _resnet_like(image_tree, "processes")
    p.run()
    pids = list(p._executor.pids)
    assert shm_entries() == shm_before  # the slots have no names
    p.close()
    assert all(wait_gone(pid) for pid in pids)
    p.close()  # idempotent

    q = _resnet_like(image_tree, "processes")
    q.run()
    pids = list(q._executor.pids)
    del q
    gc.collect()
    done = threading.Event()
    closer.defer(done.set)  # the drop's close was queued before this
    assert done.wait(30)
    assert all(wait_gone(pid) for pid in pids)
    assert worker_pids() == []
    assert shm_entries() == shm_before


def _pool_consumer(image_tree: Path, tmp_path: Path, then: str, **popen: Any) -> Any:
    script = f"""
import os, signal
from dali import fn, pipeline_def

@pipeline_def(batch_size=2, num_threads=2, device_id=None, cpu_parallelism="processes")
def pipe():
    jpegs, labels = fn.readers.file(file_root={str(image_tree)!r})
    return fn.decoders.image(jpegs), labels

p = pipe()
p.run()
print(*p._executor.pids, flush=True)
{then}
"""
    return consumer(script, tmp_path, **popen)


def test_workers_die_with_their_consumer(image_tree: Path, tmp_path: Path) -> None:
    proc = _pool_consumer(image_tree, tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err
    assert all(wait_gone(int(pid)) for pid in out.split()), "a worker outlived its consumer"


def test_ctrl_c_in_the_consumer_leaves_no_worker(image_tree: Path, tmp_path: Path) -> None:
    proc = _pool_consumer(image_tree, tmp_path, "while True:\n    p.run()", start_new_session=True)
    assert proc.stdout is not None
    pids = [int(pid) for pid in proc.stdout.readline().split()]
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)  # the whole group, as a terminal does
    _, err = proc.communicate(timeout=60)
    assert "KeyboardInterrupt" in err
    assert all(wait_gone(pid) for pid in pids), "a worker outlived a Ctrl-C'd consumer"


def test_memory_stays_flat_over_epochs(image_tree: Path) -> None:
    """50 epochs: the consumer's memory does not grow, and each worker's ring holds no more
    slots than it has iterations in flight, and one more (the one on its way back)."""
    p = _resnet_like(image_tree, "processes", threads=2)
    try:
        for _ in range(2 * 6):
            p.run()
        workers = p._executor._workers
        bound = -(-p._sched.depth // len(workers)) + 1
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(50 * 6):  # 6 batches of 4 an epoch
            p.run()
            assert all(len(w._views.host._mapped) <= bound for w in workers)
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
        assert grown_kib < 20 * 1024, f"the consumer grew by {grown_kib} KiB"
    finally:
        p.close()


# -- when processes are chosen --------------------------------------------------------------


def _plain(threads: int, **kwargs: Any) -> Pipeline:
    pipe = Pipeline(batch_size=2, num_threads=threads, device_id=None, **kwargs)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1)))
    return pipe


def test_the_automatic_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from dali._pipeline import pipeline as pipeline_module

    monkeypatch.setattr(pipeline_module, "usable_cores", lambda: 16)
    assert _plain(16).cpu_workers() == (16, "num_threads=16 on 16 usable cores")
    assert _plain(32).cpu_workers()[0] == 16  # at most one per core
    assert _plain(3).cpu_workers()[0] == 0  # few threads: threads
    assert _plain(16, cpu_parallelism="threads").cpu_workers()[0] == 0
    assert _plain(16, exec_async=False).cpu_workers()[0] == 0
    assert _plain(16, worker_process=True).cpu_workers()[0] == 0
    monkeypatch.setattr(pipeline_module, "usable_cores", lambda: 2)
    workers, why = _plain(16).cpu_workers()
    assert workers == 0 and "2 usable cores" in why
    assert _plain(2, cpu_parallelism="processes").cpu_workers()[0] == 2


def test_python_functions_keep_threads_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from dali._pipeline import pipeline as pipeline_module

    monkeypatch.setattr(pipeline_module, "usable_cores", lambda: 16)
    pipe = Pipeline(batch_size=2, num_threads=8, device_id=None)
    with pipe:
        pipe.set_outputs(fn.python_function(fn.random.uniform(range=(0, 1)), function=np.negative))
    workers, why = pipe.cpu_workers()
    assert workers == 0 and "Python code" in why


def test_processes_that_cannot_be_are_an_error() -> None:
    pipe = _plain(4, cpu_parallelism="processes", exec_pipelined=False)
    with pytest.raises(RuntimeError, match="cannot run on worker processes: it runs synchronously"):
        pipe.run()
    pipe = Pipeline(batch_size=2, num_threads=2, device_id=None, cpu_parallelism="processes")
    with pipe:
        pipe.set_outputs(fn.python_function(fn.random.uniform(range=(0, 1)), function=lambda x: -x))
    with pytest.raises(RuntimeError, match="does not pickle"):
        pipe.run()
    with pytest.raises(ValueError, match="`cpu_parallelism` must be one of"):
        Pipeline(batch_size=2, num_threads=2, cpu_parallelism="fibers")
