"""The Python sources' batches on their way to worker processes (`dali._exec.process.feed`).

The consumer calls the sources and copies their host batches into shared memory as it hands
the iteration over: the worker computes on exactly what the source returned when it was
called (a buffer the source reuses afterwards does not show), outputs, layouts, dtypes and
ragged shapes arrive as sent, and the slots are reused rather than grown. Each test runs on
one worker process (``worker_process=True``) and on a pool (``cpu_parallelism``), beside the
same pipeline on threads.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from dali import Pipeline, fn, pipeline_def, types

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

LAYOUTS = {
    "threads": {"cpu_parallelism": "threads"},
    "worker": {"worker_process": True},
    "pool": {"cpu_parallelism": "processes", "num_threads": 2},
}


def _build(define: Callable[[], Any], layout: str, **kwargs: Any) -> Pipeline:
    settings = {"batch_size": 3, "num_threads": 1, "device_id": None, "seed": 5, **kwargs}
    settings.update(LAYOUTS[layout])
    return pipeline_def(define, **settings)()


@pytest.mark.parametrize("layout", ["worker", "pool"])
def test_a_reused_buffer_is_taken_as_it_was_when_returned(layout: str) -> None:
    """DALI copies a source's data when it gets it: a source that refills one buffer for
    every batch still yields each batch's own values, with several iterations in flight."""
    buffer = np.zeros((3, 4, 5), dtype=np.float32)

    def source(info: Any) -> np.ndarray:
        buffer[...] = info.iteration
        return buffer

    def define() -> Any:
        data = fn.external_source(source, batch_info=True, layout="HW")
        return data + 0.5

    p = _build(define, layout, prefetch_queue_depth=3)
    for i in range(8):
        (out,) = p.run()
        np.testing.assert_array_equal(out.as_array(), np.full((3, 4, 5), i + 0.5, np.float32))
    p.close()


def _ragged_source(info: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per sample: a uint8 image of its own size and a float label pair."""
    i = info.idx_in_epoch
    image = np.arange((2 + i % 3) * 4 * 3, dtype=np.uint8).reshape(2 + i % 3, 4, 3) + i
    return image, np.array([i, -i], dtype=np.float64)


def _ragged() -> Any:
    images, labels = fn.external_source(
        _ragged_source, num_outputs=2, batch=False, layout=["HWC", ""], dtype=[types.UINT8, None]
    )
    return images, fn.flip(images, horizontal=1), labels * 2, images.shape()


@pytest.mark.parametrize("layout", ["worker", "pool"])
def test_outputs_layouts_dtypes_and_ragged_samples_arrive_as_sent(layout: str) -> None:
    p = _build(_ragged, layout)
    ref = _build(_ragged, "threads")
    for _ in range(5):
        got, want = p.run(), ref.run()
        for g, w in zip(got, want):
            assert g.layout() == w.layout()
            assert g.dtype == w.dtype
            assert len(g) == len(w)
            for a, b in zip(g, w):
                np.testing.assert_array_equal(np.array(a), np.array(b))
    p.close()
    ref.close()


@pytest.mark.parametrize("layout", ["worker", "pool"])
def test_the_slots_are_reused_not_grown(layout: str) -> None:
    """Over many iterations the consumer's slots for the sources' batches stay as many as the
    iterations in flight need: each is written again once the worker has used it."""

    def define() -> Any:
        data = fn.external_source(
            lambda info: np.full((3, 64, 64), info.iteration % 7, np.uint8), batch_info=True
        )
        return fn.cast(data, dtype=types.INT32)

    p = _build(define, layout, prefetch_queue_depth=2)
    rings = []

    def ring_bytes() -> int:
        ex = p._executor
        workers = getattr(ex, "_workers", [ex])
        rings[:] = [w._fed for w in workers]
        return sum(r.held_bytes()[1] for r in rings)

    for _ in range(10):
        p.run()
    warm = ring_bytes()
    for i in range(10, 60):
        (out,) = p.run()
        assert int(out.as_array()[0, 0, 0]) == i % 7
    assert ring_bytes() == warm
    slot = 3 * 64 * 64
    in_flight = p._in_flight()
    # per worker: the iterations it has in flight, one it finished, one being handed over
    assert warm <= slot * 2 * (in_flight + 2 * len(rings)) + 4096 * len(rings) * 8
    p.close()


@pytest.mark.parametrize("layout", ["worker", "pool"])
def test_a_source_batch_that_is_an_output(layout: str) -> None:
    """A source's batch returned as an output is copied out of its slot, which stays valid
    for the outputs the caller holds."""

    def define() -> Any:
        return fn.external_source(
            lambda info: np.full((3, 2), info.iteration, np.int64), batch_info=True
        )

    p = _build(define, layout)
    held = [p.run()[0] for _ in range(12)]
    for i, out in enumerate(held):
        np.testing.assert_array_equal(out.as_array(), np.full((3, 2), i, np.int64))
    p.close()
