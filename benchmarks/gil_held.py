"""Host planning of the GPU image operators: alone, and beside a busy Python thread.

A pipeline's stage threads share the GIL. numpy gives it up inside operations over more than
500 elements (and ``np.zeros`` around ``calloc`` above 1 KB); taking it back can then wait
for the switch interval (5 ms) while another thread runs Python (`dali._exec.gil`). This
prints, per step of the host side of ``resize``, ``crop_mirror_normalize`` and ``color_twist``
on a batch of ImageNet-like shapes, the time per call alone and with one other Python thread spinning: a step
that keeps the GIL costs about the same in both columns (twice at most: the spinner gets its
switch interval too), one that gives it up costs milliseconds.

No GPU needed: the device calls (allocation, upload, launch) are replaced by stand-ins.

Run: ``python benchmarks/gil_held.py [--batch 256]`` (the SSD pipeline's batch: ``--batch 64``)
"""

from __future__ import annotations

import argparse
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np


def per_call(fn: Callable[[], Any], seconds: float) -> float:
    """Microseconds per call of ``fn`` over at least ``seconds``."""
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return 1e6 * (time.perf_counter() - t0) / n


def steps(batch: int) -> dict[str, Callable[[], Any]]:
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
    th, tw, _ = RG.choose_tiles(geo)
    ptrs = np.arange(batch, dtype=np.uint64) * np.uint64(1 << 20)
    desc, blocks = RG.descs_2d(geo, ptrs, ptrs, th, tw)
    starts, _ = G.block_starts(blocks)
    wins = np.tile([224, 224, 3], (batch, 1))
    flips = np.zeros((batch, 3), bool)
    flips[::2, 1] = True
    dense = types.SimpleNamespace(
        shape=(batch, 224, 224, 3),
        itemsize=1,
        flags=types.SimpleNamespace(c_contiguous=True),
        data=types.SimpleNamespace(ptr=1 << 30),
    )
    tl = types.SimpleNamespace(held_dense=dense)
    # color_twist's random arguments (the SSD pipeline's ranges)
    twist = [rng.uniform(-0.5, 0.5, batch) * 180, rng.uniform(0.5, 1.5, batch)]
    twist += [np.ones(batch), rng.uniform(0.875, 1.125, batch), rng.uniform(0.5, 1.5, batch)]
    mats = color_matrices(*twist)
    offs = np.tile((128 - 128 * twist[4] * twist[3])[:, None], (1, 3))
    coeffs = CG.color_plan(mats, offs, np.dtype(np.uint8))[1]
    counts = np.full(batch, 300 * 300, np.int64)
    return {
        "resize: output_geometry_batch": lambda: output_geometry_batch(spatial, req),
        "resize: plan_batch": lambda: RG.plan_batch(spatial, out, lo, hi, mins, mins, True),
        "resize: Images": lambda: RG.Images(shapes, (0, 1), pb),
        "resize: out_shapes": geo.out_shapes,
        "resize: choose_tiles": lambda: RG.choose_tiles(geo),
        "resize: descs_2d": lambda: RG.descs_2d(geo, ptrs, ptrs, th, tw),
        "resize: host_image (upload bytes)": lambda: G.host_image(desc, starts),
        "cmn: input_batch (dense)": lambda: G.input_batch(tl),
        "cmn: window_descs": lambda: WG.window_descs(
            shapes, ptrs, ptrs, wins * 0, wins, flips, (2, 0, 1), shapes[:, 2]
        ),
        "color_twist: color_matrices": lambda: color_matrices(*twist),
        "color_twist: color_plan": lambda: CG.color_plan(mats, offs, np.dtype(np.uint8)),
        "color_twist: color_descs": lambda: CG.color_descs(ptrs, ptrs, counts, coeffs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=0.3, help="per step and column")
    args = parser.parse_args()
    table = steps(args.batch)
    alone = {name: per_call(fn, args.seconds) for name, fn in table.items()}
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        busy = {name: per_call(fn, args.seconds) for name, fn in table.items()}
    finally:
        stop.set()
        thread.join()
    print(f"batch {args.batch}; µs per call")
    print(f"{'step':<36}{'alone':>10}{'busy thread':>14}{'ratio':>8}")
    for name in table:
        ratio = busy[name] / alone[name]
        print(f"{name:<36}{alone[name]:>10.1f}{busy[name]:>14.1f}{ratio:>7.1f}×")
    print(
        f"{'total':<36}{sum(alone.values()):>10.1f}{sum(busy.values()):>14.1f}"
        f"{sum(busy.values()) / sum(alone.values()):>7.1f}×"
    )


if __name__ == "__main__":
    main()
