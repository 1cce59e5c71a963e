"""Pipelines run by worker processes (`dali._exec.process`, ``worker_process=True``).

The same batches as in-process (the same seed: the same values, epochs and checkpoints), an
operator error raised in the caller naming operator and file, a killed worker raised (never a
hang), and no process left after ``close()``, after the pipeline is dropped, or after the
consumer dies. Each body runs on the CPU and, marked ``gpu``, on the GPU (CUDA IPC outputs).
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._exec.executor import PipelineError
from dali._exec.process.executor import WorkerDied
from parity import device_id
from processes import consumer, wait_gone, worker_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
BATCH = 4


def _resnet_like(root: Path, device: str, **kwargs: Any) -> Any:
    """readers.file -> decode -> random crop/resize -> random mirror normalize, and labels."""

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=device_id(device), seed=7)
    def pipe() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, name="reader")
        images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")
        images = fn.random_resized_crop(images, size=(32, 32))
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT, mean=[128.0], std=[64.0], mirror=fn.random.coin_flip()
        )
        return images, labels

    return pipe(**kwargs)


def _host(outputs: tuple[Any, ...]) -> list[np.ndarray]:
    return [
        np.asarray(tl.as_cpu().as_array() if hasattr(tl, "as_cpu") else tl.as_array())
        for tl in outputs
    ]


def _consumer(image_tree: Path, tmp_path: Path, then: str, **popen: Any) -> subprocess.Popen[str]:
    """A consumer process with a worker pipeline: it prints the worker's pid, then runs
    ``then`` (Python source)."""
    script = f"""
import os, signal, sys
from dali import fn, pipeline_def

@pipeline_def(batch_size=2, num_threads=1, device_id=None, worker_process=True)
def pipe():
    jpegs, labels = fn.readers.file(file_root={str(image_tree)!r})
    return fn.decoders.image(jpegs), labels

p = pipe()
p.run()
print(p.worker_pid, flush=True)
"""
    return consumer(script + textwrap.dedent(then), tmp_path, **popen)


@pytest.mark.parametrize("device", DEVICES)
def test_same_batches_as_in_process(image_tree: Path, device: str) -> None:
    ours = _resnet_like(image_tree, device, worker_process=True)
    theirs = _resnet_like(image_tree, device, worker_process=False)
    try:
        for _ in range(12):  # two epochs and a bit of 21 images
            a, b = ours.run(), theirs.run()
            assert type(a[0]) is type(b[0])
            for x, y in zip(_host(a), _host(b)):
                np.testing.assert_array_equal(x, y)
        assert ours.worker_pid is not None and ours.worker_pid != os.getpid()
        assert theirs.worker_pid is None
        assert ours.epoch_size("reader") == theirs.epoch_size("reader")
    finally:
        ours.close()
        theirs.close()
    assert worker_pids() == []


@pytest.mark.parametrize("device", DEVICES)
def test_checkpoints_restore_into_a_worker(image_tree: Path, device: str) -> None:
    first = _resnet_like(image_tree, device, worker_process=True, enable_checkpointing=True)
    for _ in range(3):
        first.run()
    cpt = first.checkpoint()
    expected = [_host(first.run()) for _ in range(4)]
    # restored at construction, in a new worker
    second = _resnet_like(
        image_tree, device, worker_process=True, checkpoint=cpt, enable_checkpointing=True
    )
    for want in expected:
        for x, y in zip(_host(second.run()), want):
            np.testing.assert_array_equal(x, y)
    # restored in place: the worker takes the restored states
    first.restore(cpt)
    for want in expected:
        for x, y in zip(_host(first.run()), want):
            np.testing.assert_array_equal(x, y)
    first.close()
    second.close()


@pytest.mark.parametrize("device", DEVICES)
def test_memory_calls_reach_the_worker_between_iterations(image_tree: Path, device: str) -> None:
    ours = _resnet_like(image_tree, device, worker_process=True, prefetch_queue_depth=3)
    theirs = _resnet_like(image_tree, device, worker_process=False)
    zero = theirs.memory_stats()  # before any run: zeros (and the limits)
    assert ours.memory_stats() == zero  # no worker yet: the consumer answers
    try:
        for k in range(8):  # calls while iterations are in flight: batches stay in order
            a, b = ours.run(), theirs.run()
            for x, y in zip(_host(a), _host(b)):
                np.testing.assert_array_equal(x, y)
            stats = ours.memory_stats()
            assert set(stats) == set(zero)
            if device == "cpu":
                assert stats == zero
            else:  # the worker's pools, and the ring slot of the outputs held here
                images = _host(a)[0]  # (the GPU output, as its host copy)
                assert stats["device_used_bytes"] >= images.nbytes > 0
                assert stats["device_total_bytes"] >= stats["device_used_bytes"]
                assert theirs.memory_stats()["device_total_bytes"] > 0
            if k % 3 == 2:
                before = ours.memory_stats()["device_total_bytes"]
                ours.release_memory()
                assert ours.memory_stats()["device_total_bytes"] <= before
    finally:
        ours.close()
        theirs.close()
    assert ours.memory_stats() == zero  # closed: the consumer answers again


def test_a_failed_call_is_raised_and_the_iterations_go_on(image_tree: Path) -> None:
    ours = _resnet_like(image_tree, "cpu", worker_process=True)
    theirs = _resnet_like(image_tree, "cpu", worker_process=False)
    try:
        for k in range(4):
            a, b = ours.run(), theirs.run()
            for x, y in zip(_host(a), _host(b)):
                np.testing.assert_array_equal(x, y)
            if k == 1:  # with iterations in flight
                with pytest.raises(RuntimeError, match="no_such_call in the worker process"):
                    ours._executor.call("no_such_call")
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("device", DEVICES)
def test_operator_error_names_operator_and_file(
    edge_images: dict[str, Path], device: str, tmp_path: Path
) -> None:
    root = tmp_path / "data" / "0"
    root.mkdir(parents=True)
    good, bad = edge_images["jpeg_444"], edge_images["corrupt"]
    for i in range(3):
        (root / f"good_{i}.jpg").write_bytes(Path(good).read_bytes())
    (root / "zz_bad.jpg").write_bytes(Path(bad).read_bytes())

    @pipeline_def(batch_size=2, num_threads=1, device_id=device_id(device), worker_process=True)
    def pipe() -> Any:
        jpegs, _ = fn.readers.file(file_root=str(tmp_path / "data"))
        return fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")

    p = pipe()
    try:
        p.run()  # good_0, good_1
        with pytest.raises(PipelineError) as info:
            p.run()  # good_2, zz_bad
        message = str(info.value)
        assert "decoders.image" in message and "zz_bad.jpg" in message
        p.run()  # the next iteration is fine (a new epoch)
    finally:
        p.close()


def test_killed_worker_is_an_error_not_a_hang(image_tree: Path) -> None:
    p = _resnet_like(image_tree, "cpu", worker_process=True)
    p.run()
    pid = p.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(WorkerDied, match="killed by signal 9"):
        for _ in range(5):
            p.run()
    assert time.monotonic() - t0 < 30
    with pytest.raises(WorkerDied):  # and every later call
        p.run()
    p.close()
    assert wait_gone(pid)


def test_worker_ignores_ctrl_c(image_tree: Path) -> None:
    p = _resnet_like(image_tree, "cpu", worker_process=True)
    p.run()
    assert p.worker_pid is not None
    os.kill(p.worker_pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    time.sleep(0.2)
    p.run()
    p.close()


def test_no_process_left_after_close_or_drop(image_tree: Path) -> None:
    from dali._exec import closer

    p = _resnet_like(image_tree, "cpu", worker_process=True)
    p.run()
    pid = p.worker_pid
    p.close()
    assert pid is not None and wait_gone(pid)
    p.close()  # idempotent

    q = _resnet_like(image_tree, "cpu", worker_process=True)
    q.run()
    pid = q.worker_pid
    del q
    gc.collect()
    done = __import__("threading").Event()
    closer.defer(done.set)  # the drop's close was queued before this
    assert done.wait(30)
    assert pid is not None and wait_gone(pid)
    assert worker_pids() == []


def test_worker_dies_with_its_consumer(image_tree: Path, tmp_path: Path) -> None:
    proc = _consumer(image_tree, tmp_path, "os.kill(os.getpid(), signal.SIGKILL)\n")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err
    assert wait_gone(int(out.split()[0])), "the worker outlived its consumer"


def test_python_sources_stay_with_the_consumer() -> None:
    """A lambda source does not travel: the consumer calls it and sends the batch."""
    calls: list[int] = []

    def batches(info: Any) -> list[np.ndarray]:
        calls.append(info.iteration)
        return [np.full((2,), info.iteration * 10 + k, np.int32) for k in range(BATCH)]

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, worker_process=True)
    def pipe() -> Any:
        data = fn.external_source(lambda info: batches(info), batch_info=True)
        return data * 2 + fn.random.uniform(range=(0, 0), dtype=types.INT32)

    p = pipe()
    out = [p.run()[0].as_array() for _ in range(3)]
    p.close()
    assert calls[:3] == [0, 1, 2]
    np.testing.assert_array_equal(out[2][3], [2 * 23, 2 * 23])


def test_synchronous_pipelines_cannot_use_a_worker() -> None:
    @pipeline_def(
        batch_size=2,
        num_threads=1,
        device_id=None,
        exec_async=False,
        exec_pipelined=False,
        worker_process=True,
    )
    def pipe() -> Any:
        return fn.random.uniform()

    p = pipe()
    with pytest.raises(RuntimeError, match="runs synchronously"):
        p.run()


def test_chosen_by_an_iterator_falls_back_with_a_warning() -> None:
    @pipeline_def(
        batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    def pipe() -> Any:
        return fn.random.uniform()

    p = pipe()
    p.build()
    assert p.use_worker_process(chosen=True)
    with pytest.warns(UserWarning, match="not a worker process"):
        p.run()
    assert p.worker_pid is None
    assert not p.use_worker_process(chosen=True)

    explicit = pipe(worker_process=False)
    assert not explicit.use_worker_process(chosen=True)  # the user's choice stands


def test_build_error_in_the_worker_is_raised(
    image_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that cannot build says why (here: its reader's files vanished meanwhile)."""
    import shutil

    root = image_tree.parent / "vanishing"
    shutil.copytree(image_tree, root)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, worker_process=True)
    def pipe() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root))
        return jpegs, labels

    p = pipe()
    p.build()
    shutil.rmtree(root)
    with pytest.raises(WorkerDied, match="could not start"):
        p.run()
    p.close()


# -- GPU outputs through CUDA IPC ----------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_outputs_stay_valid_while_held_and_the_ring_stays_small(image_tree: Path) -> None:
    from dali.tensors import TensorListGPU

    p = _resnet_like(image_tree, "gpu", worker_process=True)
    held = []
    for _ in range(6):
        images, labels = p.run()
        assert isinstance(images, TensorListGPU) and images.device_id() == 0
        held.append((images, _host((images, labels))))
    for _ in range(10):  # the worker runs on; the held batches' slots are not reused
        p.run()
    for images, (want, _) in held:
        np.testing.assert_array_equal(_host((images,))[0], want)
    # a slot per held batch, per iteration in flight, and one on its way back (the worker
    # may have made slots whose iterations have not reached us yet: at most that many)
    bound = len(held) + p._sched.depth + 1
    assert len(p._executor._views._mapped) <= bound
    del images
    held.clear()
    gc.collect()
    for _ in range(10):
        p.run()
    steady = len(p._executor._views._mapped)
    for _ in range(20):
        p.run()
    # released slots are reused: the ring keeps its size, it does not grow
    assert len(p._executor._views._mapped) == steady <= bound
    p.close()


@pytest.mark.gpu
def test_gpu_outputs_go_to_torch_and_cupy_without_a_copy(image_tree: Path) -> None:
    cupy = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    p = _resnet_like(image_tree, "gpu", worker_process=True)
    images, _ = p.run()
    arr = cupy.asarray(images.as_tensor())
    t = torch.from_dlpack(images.as_tensor())
    assert t.data_ptr() == arr.data.ptr
    np.testing.assert_array_equal(t.cpu().numpy(), cupy.asnumpy(arr))
    p.close()


@pytest.mark.gpu
def test_gpu_outputs_outlive_the_worker_and_its_memory_goes(image_tree: Path) -> None:
    pytest.importorskip("cupy")
    p = _resnet_like(image_tree, "gpu", worker_process=True)
    images, labels = p.run()
    want = _host((images, labels))
    pid = p.worker_pid
    views = p._executor._views  # the consumer's mappings of the worker's buffers
    p.close()
    assert pid is not None and wait_gone(pid)
    assert views._mapped  # the outputs still held keep their buffer mapped
    got = _host((images, labels))  # read after the worker exited
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)
    del images, labels, got
    gc.collect()
    # the last output gone, its buffer is unmapped (the memory goes with the last mapping)
    deadline = time.monotonic() + 20
    while views._mapped and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not views._mapped


def test_skipped_samples_are_counted_by_the_worker(
    edge_images: dict[str, Path], tmp_path: Path
) -> None:
    root = tmp_path / "data" / "0"
    root.mkdir(parents=True)
    for i in range(3):
        (root / f"good_{i}.jpg").write_bytes(edge_images["jpeg_444"].read_bytes())
    (root / "zz_bad.jpg").write_bytes(edge_images["corrupt"].read_bytes())

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, worker_process=True)
    def pipe() -> Any:
        jpegs, _ = fn.readers.file(file_root=str(tmp_path / "data"))
        return fn.decoders.image(jpegs, on_error="skip", name="decoder")

    p = pipe()
    (images,) = p.run()
    assert len(images) == 3
    assert p.skipped_samples("decoder") == 1
    p.close()


def test_ctrl_c_in_the_consumer_leaves_no_worker(image_tree: Path, tmp_path: Path) -> None:
    """Ctrl-C while the consumer iterates: KeyboardInterrupt ends it, and its exit closes the
    worker (the terminal's SIGINT reaches the worker too, which ignores it)."""
    proc = _consumer(image_tree, tmp_path, "while True:\n    p.run()\n", start_new_session=True)
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)  # the whole group, as a terminal does
    _, err = proc.communicate(timeout=60)
    assert "KeyboardInterrupt" in err
    assert wait_gone(pid), "the worker outlived a Ctrl-C'd consumer"
