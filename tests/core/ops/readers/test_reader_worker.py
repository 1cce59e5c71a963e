"""`fn.readers.file` reading through worker processes (`dali._ops.readers.storage.read_worker`).

Issue 4: in a GPU pipeline every GIL re-take of the reader's system calls waited behind the other
Python threads; the worker processes read with no GIL time here. Same bytes, same errors.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn
from dali._ops.readers.storage import read_worker as _read_worker

pytestmark = pytest.mark.skipif(
    not _read_worker.supported(), reason="the read worker needs Linux (memfd, SCM_RIGHTS)"
)


def _pipe(batch, *, worker, device_id=None, **kw):
    pipe = dali.Pipeline(
        batch_size=batch,
        num_threads=2,
        device_id=device_id,
        seed=3,
        exec_async=False,
        exec_pipelined=False,
    )
    with pipe:
        data, label = fn.readers.file(name="Reader", **kw)
        pipe.set_outputs(data, label)
    pipe.build()
    impl = pipe._plan.by_name["Reader"].impl
    impl._worker_wanted = worker  # this reader's own READ_WORKER
    return pipe, impl


def _batches(pipe, n):
    out = []
    for _ in range(n):
        data, label = pipe.run()
        out.append(
            (
                [data.at(i).tobytes() for i in range(len(data))],
                label.as_array().ravel().tolist(),
                [data[i].source_info() for i in range(len(data))],
            )
        )
    return out


@pytest.mark.parametrize("processes", [1, 3])
def test_worker_batches_equal_reading_here(image_tree, monkeypatch, processes):
    monkeypatch.setattr(options, "READ_PROCESSES", processes)
    here, _ = _pipe(8, worker=False, file_root=str(image_tree), random_shuffle=True)
    there, impl = _pipe(8, worker=True, file_root=str(image_tree), random_shuffle=True)
    assert _batches(there, 5) == _batches(here, 5)
    assert impl._worker is not None and len(impl._worker) == processes
    there.close()
    here.close()


def test_worker_samples_are_aligned_writable_and_their_own(image_tree):
    pipe, _ = _pipe(21, worker=True, file_root=str(image_tree))
    data, _ = pipe.run()
    kept = [data.at(i) for i in range(21)]
    for _ in range(3):
        pipe.run()
    for i, arr in enumerate(kept):
        assert arr.dtype == np.uint8 and arr.ndim == 1
        assert arr.ctypes.data % _read_worker.ALIGN == 0
        assert arr.tobytes() == (image_tree / data[i].source_info()).read_bytes()
        for other in kept[:i]:
            assert not np.shares_memory(arr, other)
    path = image_tree / data[0].source_info()
    before = path.read_bytes()
    kept[0][:4] = 0  # copy-on-write: neither the file nor the next sample changes
    assert path.read_bytes() == before
    assert kept[1].tobytes() == (image_tree / data[1].source_info()).read_bytes()
    pipe.close()


def test_worker_empty_large_and_unmapped_files(tmp_path, monkeypatch):
    monkeypatch.setattr(options, "MMAP_MIN_BYTES", 1000)
    (tmp_path / "c").mkdir()
    sizes = [0, 10, 999, 1000, 5000, 3]
    for i, size in enumerate(sizes):
        (tmp_path / "c" / f"{i}.bin").write_bytes(bytes([i + 1]) * size)
    for dont in (False, True):
        pipe, _ = _pipe(
            len(sizes),
            worker=True,
            file_root=str(tmp_path),
            file_filters=["*.bin"],
            dont_use_mmap=dont,
        )
        data, _ = pipe.run()
        assert data.shape() == [(s,) for s in sizes]
        for i, size in enumerate(sizes):
            assert data.at(i).tobytes() == bytes([i + 1]) * size
        with open("/proc/self/maps") as f:
            mapped = f.read()
        # files of MMAP_MIN_BYTES or more are mapped by this process itself, unless told not to
        assert (str(tmp_path / "c" / "3.bin") in mapped) is not dont
        del data
        pipe.close()


def test_worker_error_names_the_vanished_file(image_tree, tmp_path):
    for name in ("a.jpg", "b.jpg"):
        shutil.copy(image_tree / "0" / "img_00.jpg", tmp_path / name)
    pipe, impl = _pipe(2, worker=True, files=[str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg")])
    pipe.run()  # the next batch is being read ahead: it may be read before the file goes
    os.remove(tmp_path / "b.jpg")
    with pytest.raises(RuntimeError, match=r"dali\.fn\.readers\.file.*b\.jpg.*No such file"):
        for _ in range(options.READ_AHEAD + 1):
            pipe.run()
    assert impl._worker is not None  # a bad file is not a broken worker


def test_a_file_turned_directory_is_an_error_naming_it(tmp_path):
    (tmp_path / "ok.jpg").write_bytes(b"abc")
    (tmp_path / "d.jpg").write_bytes(b"abc")
    files = [str(tmp_path / "ok.jpg"), str(tmp_path / "d.jpg")]
    (pipe, _), (worker_pipe, impl) = (_pipe(2, worker=w, files=files) for w in (False, True))
    pipes = [pipe, worker_pipe]
    for pipe in pipes:
        pipe.run()
    impl._worker.wait_pending(10)  # the batches read ahead are read before the change
    os.remove(tmp_path / "d.jpg")
    (tmp_path / "d.jpg").mkdir()
    messages = []
    for pipe in pipes:
        with pytest.raises(RuntimeError, match=r"d\.jpg.*Is a directory") as info:
            for _ in range(options.READ_AHEAD + 1):  # (batches read ahead predate it)
                pipe.run()
        messages.append(str(info.value))
    assert messages[0] == messages[1]  # the same error, read here or by the worker


def test_a_killed_worker_warns_and_reading_goes_on_here(image_tree, caplog):
    pipe, impl = _pipe(4, worker=True, file_root=str(image_tree))
    ref, _ = _pipe(4, worker=False, file_root=str(image_tree))
    assert _batches(pipe, 1) == _batches(ref, 1)
    proc = impl._worker._workers[0]._proc  # one of READ_PROCESSES (1 on 2 cores, 4 on 16)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with caplog.at_level(logging.WARNING, logger="dali"):
        assert _batches(pipe, 2) == _batches(ref, 2)
    assert "file-reading worker process exited with code -9" in caplog.text
    assert impl._worker is None and impl._worker_off
    pipe.close()


def test_close_stops_the_workers(image_tree, monkeypatch):
    monkeypatch.setattr(options, "READ_PROCESSES", 2)
    pipe, impl = _pipe(4, worker=True, file_root=str(image_tree))
    pipe.run()
    procs = [w._proc for w in impl._worker._workers]
    assert all(p.poll() is None for p in procs)
    pipe.close()
    assert all(p.poll() is not None for p in procs)


def test_a_dropped_reader_stops_its_worker(image_tree):
    pipe, impl = _pipe(4, worker=True, file_root=str(image_tree))
    pipe.run()
    procs = [w._proc for w in impl._worker._workers]
    del pipe, impl
    deadline = time.monotonic() + 10
    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert all(p.poll() is not None for p in procs)


def test_replies_are_received_and_mapped_by_the_read_thread(image_tree, monkeypatch):
    # the batch asked for ahead is mapped off the pipeline's thread, as soon as it arrives
    mapped_by = []
    real = _read_worker.map_memory

    def spy(fd, size):
        mapped_by.append(threading.current_thread().name)
        return real(fd, size)

    monkeypatch.setattr(_read_worker, "map_memory", spy)
    pipe, impl = _pipe(4, worker=True, file_root=str(image_tree))
    ref, _ = _pipe(4, worker=False, file_root=str(image_tree))
    assert _batches(pipe, 3) == _batches(ref, 3)
    assert mapped_by and set(mapped_by) == {"dali-read"}
    assert impl._worker.pending == options.READ_AHEAD  # the next batches, asked for ahead
    impl._worker.wait_pending(10)  # received with nobody waiting for them
    assert len(mapped_by) == (3 + options.READ_AHEAD) * len(impl._worker)
    pipe.close()


def test_the_read_threads_end_with_their_workers(image_tree):
    paths = sorted(str(p) for p in image_tree.rglob("*.jpg"))[:4]
    workers = _read_worker.ReadWorkers(2)
    assert [a.tobytes() for a in workers.read(paths, None)[0]] == [
        Path(p).read_bytes() for p in paths
    ]
    threads = list(workers._receivers)  # one per worker process
    assert len(threads) == 2
    assert all(t.name == "dali-read" and t.is_alive() for t in threads)
    workers.close()
    for thread in threads:
        thread.join(10)
    assert not any(t.is_alive() for t in threads)
    # dropped without close: the threads end too (they hold no reference to the workers)
    workers = _read_worker.ReadWorkers(2)
    workers.send(paths, None)
    threads, procs = list(workers._receivers), [w._proc for w in workers._workers]
    del workers
    deadline = time.monotonic() + 10
    while (any(t.is_alive() for t in threads) or any(p.poll() is None for p in procs)) and (
        time.monotonic() < deadline
    ):
        gc.collect()
        time.sleep(0.02)
    assert not any(t.is_alive() for t in threads)
    assert all(p.poll() is not None for p in procs)


def test_a_worker_killed_while_its_reply_is_awaited(image_tree):
    workers = _read_worker.ReadWorkers(1)
    proc = workers._workers[0]._proc
    os.kill(proc.pid, signal.SIGSTOP)  # the request waits, unanswered
    try:
        workers.send(sorted(str(p) for p in image_tree.rglob("*.jpg"))[:2], None)
        time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        with pytest.raises(_read_worker.WorkerDied, match=r"exited with code -9|is gone"):
            workers.receive()
    finally:
        workers.close()


@pytest.mark.parametrize(
    ("setting", "device_id", "expected"),
    [(None, None, False), (None, 0, True), (False, 0, False), (True, None, True)],
)
def test_read_worker_setting(image_tree, monkeypatch, setting, device_id, expected):
    monkeypatch.setattr(options, "READ_WORKER", setting)
    pipe = dali.Pipeline(
        batch_size=2, num_threads=1, device_id=device_id, exec_async=False, exec_pipelined=False
    )
    with pipe:
        data, label = fn.readers.file(file_root=str(image_tree), name="Reader")
        pipe.set_outputs(data, label)
    pipe.run()
    impl = pipe._plan.by_name["Reader"].impl
    assert (impl._worker is not None) is expected
    pipe.close()


def test_worker_script_needs_only_the_standard_library():
    # it runs with `python -I -S`: no site-packages, so no numpy and no dali
    script = _read_worker._SCRIPT
    code = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import runpy; runpy.run_path({script!r})"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert code.returncode == 0, code.stderr


def _batch_mappings():
    with open("/proc/self/maps") as f:
        return sum("memfd:dali-readers-file" in line for line in f)


def test_batch_mappings_are_unmapped_once_their_samples_are_gone(image_tree):
    pipe, _ = _pipe(8, worker=True, file_root=str(image_tree))
    kept = [pipe.run()[0] for _ in range(3)]
    assert _batch_mappings() >= 3  # each batch lives in a mapping of its own
    pipe.close()
    sample = kept[0].at(0)
    del kept, pipe
    gc.collect()
    deadline = time.monotonic() + 10
    while _batch_mappings() > 1 and time.monotonic() < deadline:
        time.sleep(0.02)  # unmapped by the "dali-unmap" thread
    assert _batch_mappings() == 1  # the one that still has a sample alive
    # unmapped off the pipeline's threads, by the unmapping thread
    assert "dali-unmap" in [t.name for t in threading.enumerate()]
    del sample
    while _batch_mappings() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _batch_mappings() == 0


@pytest.mark.parametrize("ahead", [1, 2, 3])
@pytest.mark.parametrize("shuffle", [False, True])
def test_reading_ahead_follows_restored_state(image_tree, monkeypatch, shuffle, ahead):
    # the workers read batches ahead; a restored state makes them the wrong ones
    monkeypatch.setattr(options, "READ_AHEAD", ahead)

    def pipe(worker):
        return _pipe(5, worker=worker, file_root=str(image_tree), random_shuffle=shuffle)

    here, _ = pipe(False)
    there, impl = pipe(True)
    assert _batches(there, 2) == _batches(here, 2)
    state = impl.get_state()
    assert impl._worker.pending == ahead  # the next batches are being read
    expected = _batches(here, 3)
    assert _batches(there, 3) == expected
    impl.set_state(state)
    assert _batches(there, 3) == expected  # the read-ahead batches were dropped, not served
    assert impl._worker.pending == ahead
    impl.set_state(state)  # restored to where the batches asked for ahead do follow
    assert _batches(there, 3) == expected
    there.close()
    here.close()
