"""Whether host planning keeps the GIL: a probe that sees where a call gives it up (never where
it does not), and the GPU operators' planning steps to try it on.

A GPU pipeline's stage threads share the interpreter lock, and numpy gives it up inside
operations over more than 500 elements (and ``np.zeros`` around ``calloc`` above 1 KB); taking
it back then waits behind the threads running Python (`dali._exec.gil`). `gives_gil_up` tells,
without timing, whether a call released it: with the switch interval set far beyond the call
and the garbage collector off, a second thread that waits for the lock (`GilProbe`) can run
only where the calling thread gives it up. `planning_steps` is the host side of ``resize``,
``crop_mirror_normalize`` and the colour operators on the GPU, with stand-ins for the device
(no GPU needed); ``tests/core/exec/test_gil.py`` asserts that none of them gives the GIL up and
``benchmarks/gil_held.py`` times them beside a busy thread.

Example:
    >>> with GilProbe() as probe:
    ...     total = sum(range(1000))  # Python alone keeps the GIL
    ...     kept = not probe.ran
    ...     while not probe.ran:  # a sleep gives it up: the probe runs at one of them
    ...         time.sleep(0.001)
    >>> kept, gives_gil_up(lambda: sum(range(100)))
    (True, False)
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["GilProbe", "gil_enabled", "gives_gil_up", "planning_steps"]

#: How long the calling thread keeps the GIL before the call, so that the probe, woken, is
#: waiting for it (a probe not yet waiting would miss a release: never a false report of one).
_SETTLE = 0.02


def gil_enabled() -> bool:
    """False on a free-threaded interpreter (nothing to keep there)."""
    is_enabled = getattr(sys, "_is_gil_enabled", None)
    return True if is_enabled is None else bool(is_enabled())


@contextlib.contextmanager
def _no_switching() -> Iterator[None]:
    """No forced switch of threads (the interval far beyond any call), no garbage collection
    (a finalizer could give the GIL up inside the call)."""
    interval, collecting = sys.getswitchinterval(), gc.isenabled()
    gc.collect()
    gc.disable()
    sys.setswitchinterval(1000.0)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        if collecting:
            gc.enable()


class GilProbe:
    """A thread that waits for the GIL while the calling thread holds it (a context manager).

    On entry a probe thread is released from an event (which it waits for without the GIL) and
    then waits for the GIL; with no forced switches (`_no_switching`) it can run only where the
    calling thread gives the lock up (numpy's loops over many elements, ``calloc``, I/O,
    blocking waits). `ran` says whether it did. A release it wins is always seen; a very short
    one may end before the probe takes the lock (then nothing is reported): it never reports a
    release that did not happen.

    Raises:
        RuntimeError: The interpreter has no GIL (`gil_enabled`), or the probe ran before the
            block (a forced switch).
    """

    def __init__(self) -> None:
        if not gil_enabled():
            raise RuntimeError("this interpreter has no GIL to give up")
        self._ran: list[bool] = []
        self._go = threading.Event()
        self._thread = threading.Thread(target=self._probe, name="dali-gil-probe", daemon=True)
        self._switching = _no_switching()

    def _probe(self) -> None:
        self._go.wait()
        self._ran.append(True)

    @property
    def ran(self) -> bool:
        """Whether the calling thread gave the GIL up since the block began."""
        return bool(self._ran)

    def __enter__(self) -> Self:
        self._switching.__enter__()
        self._thread.start()
        self._go.set()
        settle = time.perf_counter() + _SETTLE
        while time.perf_counter() < settle:  # Python only: the probe cannot run meanwhile
            pass
        if self._ran:
            self.__exit__(None, None, None)
            raise RuntimeError("the GIL probe ran before the block (a forced switch?)")
        return self

    def __exit__(self, *exc: object) -> None:
        self._switching.__exit__(None, None, None)
        self._thread.join()


def gives_gil_up(fn: Callable[[], Any], repeat: int = 1) -> bool:
    """Whether ``fn()``, called ``repeat`` times, gave the GIL up (`GilProbe`). Call ``fn``
    once before, so that first-call caches are not counted. A release shorter than the probe's
    wake-up can be missed: each call is another chance to see one."""
    with GilProbe() as probe:
        for _ in range(repeat):
            fn()
            if probe.ran:
                break
        return probe.ran


def planning_steps(batch: int) -> dict[str, Callable[[], Any]]:
    """The host planning of a batch of ``batch`` ImageNet-like samples: ``resize`` to 224x224,
    ``crop_mirror_normalize`` (a dense batch, half of it mirrored) and ``color_twist`` (the
    SSD pipeline's argument ranges). Each entry is one step of the GPU path as the operator
    runs it, its inputs computed beforehand; device addresses are stand-ins."""
    from dali._ops.gpu import kernels as G
    from dali._ops.image import _color_gpu as CG
    from dali._ops.image.color import color_matrices
    from dali._ops.image.resample import gpu_plan as RG
    from dali._ops.image.resize import output_geometry_batch
    from dali._ops.window import extract_gpu as WG

    rng = np.random.default_rng(0)
    spatial = rng.integers(300, 500, (batch, 2))
    shapes = np.concatenate([spatial, np.full((batch, 1), 3)], axis=1)
    req = np.full((batch, 2), 224.0)
    out, lo, hi, _ = output_geometry_batch(spatial, req)
    mins = np.full((batch, 1), 1)
    pb = RG.plan_batch(spatial, out, lo, hi, mins, mins, True)
    geo = RG.Images(shapes, (0, 1), pb)
    tiles = RG.choose_tiles(geo)
    assert tiles is not None  # (3 channels always fit)
    th, tw, _ = tiles
    ptrs = np.arange(batch, dtype=np.uint64) * np.uint64(1 << 20)
    desc, blocks = RG.descs_2d(geo, ptrs, ptrs, th, tw)
    starts, _ = G.block_starts(blocks)
    wins = np.tile([224, 224, 3], (batch, 1))
    anchors = np.zeros_like(wins)
    flips = np.zeros((batch, 3), bool)
    flips[::2, 1] = True
    dense = types.SimpleNamespace(
        shape=(batch, 224, 224, 3),
        itemsize=1,
        flags=types.SimpleNamespace(c_contiguous=True),
        data=types.SimpleNamespace(ptr=1 << 30),
    )
    tl = types.SimpleNamespace(held_dense=dense)
    # the decoders' output: samples of their own sizes back to back in one buffer
    flat = types.SimpleNamespace(itemsize=1, data=types.SimpleNamespace(ptr=1 << 30))
    packed = (flat, [tuple(s) for s in shapes.tolist()])
    flat_tl = types.SimpleNamespace(held_dense=None, flat=lambda: packed, sample_ndim=3)
    twist = [rng.uniform(-0.5, 0.5, batch) * 180, rng.uniform(0.5, 1.5, batch)]
    twist += [np.ones(batch), rng.uniform(0.875, 1.125, batch), rng.uniform(0.5, 1.5, batch)]
    mats = color_matrices(*twist)
    offs = np.tile((128 - 128 * twist[4] * twist[3])[:, None], (1, 3))
    coeffs = CG.color_plan(mats, offs, np.dtype(np.uint8))[1]
    counts = np.full(batch, 300 * 300, np.int64)
    return {
        "resize: input_batch (flat)": lambda: G.input_batch(flat_tl),
        "outputs: addresses (varied shapes)": lambda: G.packed_addresses(1 << 30, packed[1], 4),
        "outputs: addresses (one shape)": lambda: G.uniform_addresses(1 << 30, 224 * 224, batch),
        "kernels: block_starts": lambda: G.block_starts(blocks),
        "resize: output_geometry_batch": lambda: output_geometry_batch(spatial, req),
        "resize: plan_batch": lambda: RG.plan_batch(spatial, out, lo, hi, mins, mins, True),
        "resize: Images": lambda: RG.Images(shapes, (0, 1), pb),
        "resize: out_shapes": geo.out_shapes,
        "resize: choose_tiles": lambda: RG.choose_tiles(geo),
        "resize: descs_2d": lambda: RG.descs_2d(geo, ptrs, ptrs, th, tw),
        "resize: host_image (upload bytes)": lambda: G.host_image(desc, starts),
        "cmn: input_batch (dense)": lambda: G.input_batch(tl),
        "cmn: window_descs": lambda: WG.window_descs(
            shapes, ptrs, ptrs, anchors, wins, flips, (2, 0, 1), shapes[:, 2]
        ),
        "color_twist: color_matrices": lambda: color_matrices(*twist),
        "color_twist: color_plan": lambda: CG.color_plan(mats, offs, np.dtype(np.uint8)),
        "color_twist: color_descs": lambda: CG.color_descs(ptrs, ptrs, counts, coeffs),
    }
