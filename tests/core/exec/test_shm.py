"""Host batches in shared-memory slots (`dali._exec.process.shm`), both sides in one process.

What is written is what is read (dense, ragged, samples of one shape, empty, every dtype,
layouts), each output 64-byte aligned, a large batch copied by several threads byte-exact, a
slot reused once its views are gone and replaced (old views still valid) when too small.
"""

from __future__ import annotations

import gc
import sys
import threading
from typing import Any

import numpy as np
import pytest
from dali._exec.process import shm
from dali._exec.process.shm import ALIGN, HostRing, HostViews
from dali._tensors import TensorListCPU

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def _cross(ring: HostRing, views: HostViews, batches: list[Any]) -> list[Any]:
    """Pack ``batches`` on one side and unpack them on the other, as the processes do."""
    packed = ring.pack(batches)
    fd = ring.sent(packed.slot)
    if packed.new:
        assert fd is not None
        views.map(packed, fd)
    return views.unpack(packed)


def _equal(got: Any, want: Any) -> None:
    assert got.layout() == want.layout()
    assert got.dtype == want.dtype
    assert got.shape() == want.shape()
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.array(a), np.array(b))


def test_batches_arrive_as_written_and_aligned() -> None:
    rng = np.random.default_rng(0)
    batches = [
        TensorListCPU.wrap(rng.integers(0, 255, (3, 5, 7, 3), dtype=np.uint8), "HWC"),
        TensorListCPU.wrap([rng.random((n, 2)) for n in (1, 4, 2)], "XY"),
        TensorListCPU.wrap([np.full((3, 3), i, np.int16) for i in range(4)], "HW"),
        TensorListCPU.wrap(rng.random(5) > 0.5, ""),
        TensorListCPU.wrap([], "HW", dtype=np.float32, ndim=2),
        TensorListCPU.wrap([np.zeros((0, 3), np.float16)], ""),
    ]
    ring, views = HostRing(), HostViews()
    got = _cross(ring, views, batches)
    for g, w in zip(got, batches):
        _equal(g, w)
        start = g.held_dense if g.held_dense is not None else (g.samples() or [None])[0]
        if start is not None and start.size:  # each output starts on a cache line
            assert start.ctypes.data % ALIGN == 0
    # samples of one shape come back as one dense array
    assert got[2].held_dense is not None and got[2].held_dense.shape == (4, 3, 3)
    assert got[1].held_dense is None
    ring.close()


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_a_large_batch_copied_by_several_threads_is_byte_exact(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(threads)
    odd = [rng.integers(0, 255, (1_000_003 + k,), dtype=np.uint8) for k in range(5)]
    wide = rng.random((3, 400_001))
    assert sum(a.nbytes for a in odd) + wide.nbytes >= 8 << 20
    batches = [TensorListCPU.wrap(odd, "X"), TensorListCPU.wrap(wide, "")]
    copiers: list[str] = []
    run = shm._copy_run

    def recorded(view: Any, runs: Any) -> None:
        copiers.append(threading.current_thread().name)
        run(view, runs)

    monkeypatch.setattr(shm, "_copy_run", recorded)
    ring, views = HostRing(copy_threads=threads), HostViews()
    for g, w in zip(_cross(ring, views, batches), batches):
        _equal(g, w)
    assert len(copiers) == threads and copiers.count("dali-copy") == threads - 1
    ring.close()


def test_a_slot_is_reused_once_its_views_are_gone_and_replaced_when_too_small() -> None:
    ring, views = HostRing(), HostViews()
    small = TensorListCPU.wrap(np.arange(16, dtype=np.int32).reshape(4, 4), "")
    (first,) = _cross(ring, views, [small])
    held = first.as_array()
    del first
    gc.collect()
    assert views.releases() == []  # an array of it is still held
    del held
    gc.collect()
    for _, k in views.releases():
        ring.release(k)
    (again,) = _cross(ring, views, [small])
    assert ring.held_bytes()[1] == ring.held_bytes()[0]  # one slot, in use
    keep = again.as_array().copy()
    old = again
    del again
    for _, k in views.releases():
        ring.release(k)
    gc.collect()
    for _, k in views.releases():
        ring.release(k)
    big = TensorListCPU.wrap(np.ones((64, 1024), np.float64), "")
    (grown,) = _cross(ring, views, [big])
    _equal(grown, big)
    np.testing.assert_array_equal(old.as_array(), keep)  # the old generation's memory stays
    ring.close()
