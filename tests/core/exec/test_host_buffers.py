"""`dali._exec.host_buffers.RecycledArrays`: a buffer is handed out again only once nothing
refers to it (views, arrays made from it, exports), idle buffers are bounded, small arrays
and free-threaded builds get fresh memory; the video reader's samples come from it and stay
intact while the user holds them."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from dali._exec import host_buffers
from dali._exec.host_buffers import RecycledArrays


def _address(a):
    return a.__array_interface__["data"][0]


def test_an_unreferenced_buffer_comes_back_for_the_same_size():
    pool = RecycledArrays(min_bytes=0)
    a = pool.empty((8, 8), np.float32)
    where = _address(a)
    del a
    b = pool.empty((16, 4), np.float32)
    assert _address(b) == where and b.shape == (16, 4) and b.dtype == np.float32
    assert len(pool) == 1
    c = pool.empty((16, 4), np.float32)  # b is alive: a new buffer
    assert _address(c) != where and len(pool) == 2


@pytest.mark.parametrize(
    "keep",
    [
        lambda a: a[2:],  # a view
        lambda a: a.reshape(-1),  # a view of a view
        lambda a: memoryview(a),  # the buffer protocol
        lambda a: np.from_dlpack(a),  # DLPack
        lambda a: [a],  # the array itself, elsewhere
    ],
    ids=["view", "reshaped", "memoryview", "dlpack", "held"],
)
def test_a_buffer_still_referenced_is_not_handed_out(keep):
    pool = RecycledArrays(min_bytes=0)
    a = pool.empty((64,), np.uint8)
    a[:] = 7
    kept = keep(a)
    del a
    b = pool.empty((64,), np.uint8)
    b[:] = 1
    assert np.all(np.asarray(kept if not isinstance(kept, list) else kept[0]) == 7)
    del kept, b
    pool.empty((64,), np.uint8)  # both free again: one of them comes back
    assert len(pool) == 2


def test_idle_buffers_beyond_the_bound_are_dropped():
    pool = RecycledArrays(min_bytes=0, idle_bytes=3 * 1024)
    arrays = [pool.empty((1024,), np.uint8) for _ in range(6)]
    assert len(pool) == 6
    del arrays
    big = pool.empty((4096,), np.uint8)  # no idle buffer of its size: the idle ones trimmed
    assert len(pool) == 3 + 1 and big.nbytes == 4096


def test_small_arrays_and_free_threaded_builds_get_fresh_memory(monkeypatch):
    pool = RecycledArrays(min_bytes=1024)
    assert pool.empty((100,), np.uint8).shape == (100,) and len(pool) == 0
    monkeypatch.setattr(host_buffers, "_COUNTS_EXACT", False)
    assert pool.empty((4096,), np.uint8).shape == (4096,) and len(pool) == 0


def test_threads_never_share_a_live_buffer():
    pool = RecycledArrays(min_bytes=0)
    errors = []

    def work(tag):
        held = []
        for k in range(300):
            a = pool.empty((256,), np.int64)
            a[:] = tag * 1000 + k
            held.append((a, tag * 1000 + k))
            if len(held) > 3:
                held.pop(0)
            for arr, value in held:  # another thread writing into a live buffer shows here
                if not np.all(arr == value):
                    errors.append((tag, k))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(pool) <= 8 * 5  # reused: at most what the threads held at once, and one each


def test_clear_lets_go_of_the_buffers():
    pool = RecycledArrays(min_bytes=0)
    a = pool.empty((10,), np.uint8)
    a[:] = 3
    pool.clear()
    assert len(pool) == 0 and np.all(a == 3)
