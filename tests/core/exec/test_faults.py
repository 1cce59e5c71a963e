"""Fault injection: bad files, failing sources and operators, killed workers, concurrent use,
teardown loops and long runs.

Every fault ends in bounded time, either with a clear error that names the operator
and the sample (the file, for reader data) or, with ``on_error="skip"``, with the sample skipped
and counted; and afterwards the same pipeline (or, where the data itself is gone, a rebuilt one)
still works. Cases that could take the test process down with them (an abort at interpreter
exit, concurrent ``run()``) run in a subprocess. Each case is bounded by `bounded`: a hang fails
the test instead of hanging CI.

The bad files land at seeded random positions of an otherwise good class tree (`_dataset`).
"""

from __future__ import annotations

import collections
import gc
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dali
import numpy as np
import pytest
from dali import fn, types

pytest.importorskip("PIL")

#: seconds any one fault case may take before it counts as a hang
BOUND = 60.0
#: the pipelines' batch size
BATCH = 4


# -- helpers ------------------------------------------------------------------------------------


def bounded(fn_: Callable[[], Any], seconds: float = BOUND) -> Any:
    """Run ``fn_`` on a daemon thread; fail the test if it does not end within ``seconds``."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = fn_()
        except BaseException as e:  # noqa: BLE001 - re-raised in the test's thread
            result["error"] = e

    thread = threading.Thread(target=target, name="fault-case", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the fault case did not end within {seconds:.0f} s (hang)")
    if "error" in result:
        raise result["error"]
    return result.get("value")


def _jpeg(seed: int, h: int = 24, w: int = 32) -> bytes:
    from PIL import Image

    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=90)
    return out.getvalue()


def _huge_declared(data: bytes, h: int = 65000, w: int = 65000) -> bytes:
    """``data`` (a baseline JPEG) with its SOF0 header declaring ``h`` x ``w``."""
    sof = data.index(b"\xff\xc0")
    out = bytearray(data)
    out[sof + 5 : sof + 7] = h.to_bytes(2, "big")
    out[sof + 7 : sof + 9] = w.to_bytes(2, "big")
    return bytes(out)


def _bad_bytes(kind: str, seed: int) -> bytes:
    good = _jpeg(seed)
    if kind == "corrupt":  # a JPEG start, then noise without markers
        noise = np.random.default_rng(seed).integers(0, 256, 2048, dtype=np.uint8).tobytes()
        return b"\xff\xd8" + noise.replace(b"\xff", b"\x00")
    if kind == "truncated":
        return good[: len(good) // 2]
    if kind == "empty":
        return b""
    if kind == "text":
        return b"This is a text file, not an image.\n"
    if kind == "huge":
        return _huge_declared(good)
    raise ValueError(kind)


BAD_KINDS = ["corrupt", "truncated", "empty", "text", "huge"]


def _dataset(root: Path, n_good: int, bad: list[str], seed: int = 0) -> dict[str, str]:
    """A two-class tree of ``n_good`` small JPEGs plus one file per entry of ``bad``, at seeded
    random positions of the (sorted) file order. Returns ``{relative path: kind}`` of every
    file ("good" or the bad kind)."""
    rng = random.Random(seed)
    kinds = ["good"] * n_good
    for kind in bad:
        kinds.insert(rng.randrange(len(kinds) + 1), kind)
    files: dict[str, str] = {}
    for i, kind in enumerate(kinds):
        rel = f"{i % 2}/img_{i:03d}.jpg"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_jpeg(i) if kind == "good" else _bad_bytes(kind, i))
        files[rel] = kind
    return files


def _decode_pipeline(root: Path, on_error: str = "raise", **kw: Any) -> Any:
    @dali.pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, seed=3, **kw)
    def pipe() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root), name="reader")
        images = fn.decoders.image(jpegs, on_error=on_error, name="decoder")
        images = fn.resize(images, size=(16, 16))
        return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW"), labels

    return pipe()


def _first_error(pipe: Any, runs: int) -> str:
    """Run ``pipe`` up to ``runs`` times (bounded); the message of the first error, or ""."""

    def until_error() -> str:
        for _ in range(runs):
            try:
                pipe.run()
            except Exception as e:  # noqa: BLE001 - the caller checks the message
                return str(e)
        return ""

    return bounded(until_error)


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _pipeline_threads() -> collections.Counter[str]:
    """Live threads the library started, by name (the one process-wide closing thread aside).

    Compare with ``<=``: no thread beyond those alive before. (Pipelines of earlier tests may
    still be closing when the "before" is taken, so fewer threads afterwards is fine.)
    """
    return collections.Counter(
        t.name
        for t in threading.enumerate()
        if t.name.startswith("dali") and t.name != "dali-close"
    )


def _run_script(script: str, timeout: float = BOUND, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env},
        check=False,
    )


# -- bad files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_bad_file_names_operator_and_file_then_pipeline_goes_on(tmp_path: Path, kind: str) -> None:
    """The iteration holding the bad file fails, naming the decoder and the file; every other
    iteration of the epoch, before and after it, is returned; the next epoch fails again."""
    files = _dataset(tmp_path, n_good=11, bad=[kind], seed=len(kind))
    bad = next(rel for rel, k in files.items() if k != "good")
    bad_iteration = sorted(files).index(bad) // BATCH
    iterations = -(-len(files) // BATCH)
    pipe = _decode_pipeline(tmp_path)

    def two_epochs() -> list[str]:
        outcomes = []
        for _ in range(2 * iterations):
            try:
                images, _labels = pipe.run()
            except Exception as e:  # noqa: BLE001 - checked below
                outcomes.append(str(e))
                continue
            assert images.as_array().shape == (BATCH, 3, 16, 16)
            outcomes.append("ok")
        return outcomes

    outcomes = bounded(two_epochs)
    failed = [i for i, o in enumerate(outcomes) if o != "ok"]
    assert failed == [bad_iteration, bad_iteration + iterations], outcomes
    message = outcomes[bad_iteration]
    assert "decoders.image" in message and "decoder" in message
    assert bad in message, message
    pipe.close()


def test_bad_files_at_random_positions_are_skipped_and_counted(tmp_path: Path) -> None:
    """``on_error="skip"``: every epoch returns the good samples with their own labels, and the
    decoder counts each bad file once per epoch."""
    files = _dataset(tmp_path, n_good=13, bad=[*BAD_KINDS, "corrupt", "empty"], seed=5)
    n_bad = sum(k != "good" for k in files.values())
    good_labels = sorted(int(rel[0]) for rel, k in files.items() if k == "good")
    iterations = -(-len(files) // BATCH)
    pipe = _decode_pipeline(tmp_path, on_error="skip")

    def epochs(n: int) -> list[list[int]]:
        seen = []
        for _ in range(n):
            labels_epoch: list[int] = []
            for _ in range(iterations):
                images, labels = pipe.run()
                assert len(images) == len(labels)
                labels_epoch += np.asarray(labels.as_array()).ravel().tolist()
            seen.append(sorted(labels_epoch))
        return seen

    for labels_epoch in bounded(lambda: epochs(2)):
        assert labels_epoch == good_labels
    # prefetch_queue_depth=2: the first batch of the third epoch was scheduled too, no more
    # (closing lets it finish, so the count is final)
    pipe.close()
    ahead = sum(files[rel] != "good" for rel in sorted(files)[:BATCH])
    assert pipe.skipped_samples("decoder") == 2 * n_bad + ahead


def test_directory_removed_mid_epoch(tmp_path: Path) -> None:
    """A class directory deleted while the pipeline runs: a clear error naming the reader and
    the missing file; a pipeline rebuilt on what is left works."""
    _dataset(tmp_path, n_good=24, bad=[])
    pipe = _decode_pipeline(tmp_path)
    pipe.run()
    shutil.rmtree(tmp_path / "1")

    message = _first_error(pipe, runs=24 // BATCH * 2)
    assert "readers.file" in message, message
    assert "1/img_" in message, message
    pipe.close()
    rebuilt = _decode_pipeline(tmp_path)
    _images, labels = bounded(rebuilt.run)
    assert np.asarray(labels.as_array()).ravel().tolist() == [0] * BATCH
    rebuilt.close()


# -- sources and Python operators --------------------------------------------------------------


def test_source_that_raises_names_it_and_the_pipeline_goes_on() -> None:
    """A callback that fails once: the error names the source; the next run asks it for the same
    iteration again (nothing skipped) and the stream goes on."""
    failed = []

    def source(info: types.BatchInfo) -> list[np.ndarray]:
        if info.iteration == 3 and not failed:
            failed.append(True)
            raise ValueError("the dataset server went away")
        return [np.full((2,), info.iteration, np.int32)] * BATCH

    @dali.pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe() -> Any:
        return fn.external_source(source, batch_info=True, name="feeder")

    p = pipe()

    def run_all() -> list[Any]:
        out: list[Any] = []
        for _ in range(6):
            try:
                (batch,) = p.run()
                out.append(int(batch.as_array()[0, 0]))
            except Exception as e:  # noqa: BLE001 - checked below
                out.append(e)
        return out

    out = bounded(run_all)
    assert isinstance(out[3], Exception), out
    assert "feeder" in str(out[3]) and "dataset server went away" in str(out[3])
    assert out[:3] + out[4:] == [0, 1, 2, 3, 4]
    p.close()


def test_source_that_changes_dtype_mid_stream() -> None:
    def source(i: int) -> np.ndarray:
        return np.zeros((BATCH, 2), np.float32 if i < 2 else np.int32)

    @dali.pipeline_def(batch_size=BATCH, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe() -> Any:
        return fn.external_source(source, name="changing")

    p = pipe()
    p.run()
    p.run()
    with pytest.raises(Exception, match="changing") as info:
        bounded(p.run)
    assert "int32" in str(info.value) and "float" in str(info.value).lower()
    p.close()


def test_python_function_raising_on_one_sample() -> None:
    def maybe_fail(x: np.ndarray) -> np.ndarray:
        if int(x[0]) == 6:
            raise ZeroDivisionError("sample six is cursed")
        return x * 2

    def source(info: types.SampleInfo) -> np.ndarray:
        return np.array([info.idx_in_epoch], np.int64)

    @dali.pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, prefetch_queue_depth=1)
    def pipe() -> Any:
        x = fn.external_source(source, batch=False)
        return fn.python_function(x, function=maybe_fail, name="doubler")

    p = pipe()

    def run_all() -> list[Any]:
        out = []
        for _ in range(3):
            try:
                (batch,) = p.run()
                out.append(np.asarray(batch.as_array()).ravel().tolist())
            except Exception as e:  # noqa: BLE001 - checked below
                out.append(e)
        return out

    first, second, third = bounded(run_all)
    assert first == [0, 2, 4, 6]
    assert isinstance(second, Exception)
    assert "python_function" in str(second) and "doubler" in str(second)
    assert "sample 2" in str(second) and "sample six is cursed" in str(second)
    assert third == [16, 18, 20, 22]
    p.close()


def _killing_source(info: types.SampleInfo) -> np.ndarray:
    if info.idx_in_epoch == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return np.array([info.idx_in_epoch], np.int32)


def test_killed_parallel_worker(tmp_path: Path) -> None:
    """A worker process killed mid-epoch: an error naming the source, in bounded time; a
    rebuilt pipeline works."""

    def build(source: Any) -> Any:
        @dali.pipeline_def(
            batch_size=BATCH,
            num_threads=1,
            device_id=None,
            py_num_workers=2,
            py_start_method="fork",
            prefetch_queue_depth=1,
        )
        def pipe() -> Any:
            return fn.external_source(source, batch=False, parallel=True, name="workers")

        return pipe()

    p = build(_killing_source)

    message = _first_error(p, runs=4)
    assert "workers" in message, message
    bounded(p.close)
    rebuilt = build(lambda info: np.array([info.idx_in_epoch], np.int32))
    (batch,) = bounded(rebuilt.run)
    assert np.asarray(batch.as_array()).ravel().tolist() == [0, 1, 2, 3]
    bounded(rebuilt.close)


# -- concurrency, interrupts, teardown -------------------------------------------------------


def test_concurrent_run_from_two_threads(tmp_path: Path) -> None:
    """Two threads calling ``run()`` on one pipeline: no crash, every result a whole batch, and
    together they return consecutive iterations (each once)."""
    from dali._testing.images import make_image_tree

    make_image_tree(tmp_path)
    script = f"""
    import collections
    import threading
    import numpy as np
    import dali, dali.fn as fn
    @dali.pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_list={str(tmp_path / "list.txt")!r})
        return fn.resize(fn.decoders.image(jpegs), size=(40, 40)), labels
    p = pipe()
    got = []
    def worker():
        for _ in range(14):
            images, labels = p.run()
            assert images.as_array().shape == (3, 40, 40, 3)
            got.append(tuple(np.asarray(labels.as_array()).ravel().tolist()))
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads: t.start()
    for t in threads: t.join()
    # 21 files, batch 3: 7 distinct batches an epoch; 28 runs are 4 whole epochs
    print(sorted(collections.Counter(got).values()))
    """
    proc = _run_script(script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == str([4] * 7), proc.stdout


def test_dropped_pipeline_at_interpreter_exit(tmp_path: Path) -> None:
    """A reader + decode + resize pipeline dropped without ``close()`` right before the
    interpreter exits: a clean exit, every time."""
    from dali._testing.images import make_image_tree

    make_image_tree(tmp_path)
    script = f"""
    import dali, dali.fn as fn
    @dali.pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root={str(tmp_path)!r}, random_shuffle=True)
        return fn.resize(fn.decoders.image(jpegs), resize_shorter=300), labels
    p = pipe()
    p.run()
    del p
    """
    for _ in range(5):
        proc = _run_script(script)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
        assert "terminate called" not in proc.stderr


def test_close_gc_rebuild_loops_leave_nothing_behind(tmp_path: Path) -> None:
    """Build, run and drop (by ``close()``, by ``del`` + collection, or not at all before a
    rebuild) 30 times: no thread and no file descriptor is left behind."""
    _dataset(tmp_path, n_good=16, bad=[])
    _decode_pipeline(tmp_path).close()  # warm caches (imports, Numba) before counting
    gc.collect()
    threads, fds = _pipeline_threads(), _open_fds()

    def loops() -> None:
        pipe = None
        for i in range(30):
            pipe = _decode_pipeline(tmp_path)
            pipe.run()
            if i % 3 == 0:
                pipe.close()
            elif i % 3 == 1:
                del pipe
                gc.collect()
            # else: dropped when the name is rebound
        del pipe
        gc.collect()

    bounded(loops)
    import time

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (
        _pipeline_threads() <= threads and _open_fds() <= fds
    ):
        time.sleep(0.1)  # the closing thread joins dropped pipelines' threads
    assert _pipeline_threads() <= threads
    assert _open_fds() <= fds


def test_rss_threads_fds_flat_over_200_epochs(tmp_path: Path) -> None:
    """200 epochs of a shuffled decode pipeline with a bad file skipped each epoch: resident
    memory, threads and file descriptors stay flat."""
    files = _dataset(tmp_path, n_good=7, bad=["truncated"], seed=2)
    pipe = _decode_pipeline(tmp_path, on_error="skip")
    iterations = 2  # 8 files, batch 4

    def epochs(n: int) -> None:
        for _ in range(n * iterations):
            pipe.run()

    bounded(lambda: epochs(20))  # warm up: pools, caches, allocator arenas
    gc.collect()
    rss, threads, fds = _rss_bytes(), _pipeline_threads(), _open_fds()
    bounded(lambda: epochs(180), seconds=3 * BOUND)
    gc.collect()
    assert _pipeline_threads() <= threads
    assert _open_fds() <= fds
    growth = _rss_bytes() - rss
    assert growth < 16 * 2**20, f"RSS grew by {growth / 2**20:.1f} MiB over 180 epochs"
    # prefetch_queue_depth=2: the first batch of epoch 201 was scheduled too, no more (closing
    # lets it finish, so the count is final)
    pipe.close()
    ahead = sum(files[rel] != "good" for rel in sorted(files)[:BATCH])
    assert pipe.skipped_samples("decoder") == 200 + ahead
