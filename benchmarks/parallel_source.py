"""Parallel ``external_source``: this library beside NVIDIA DALI 2.4, in one process.

The source is a per-sample callback (``batch=False``) run by ``py_num_workers`` worker
processes (``parallel=True``): it returns a ``--size``² RGB uint8 sample (one of a few made
once, so that moving the samples, not making them, is what is measured), and the pipeline
returns the batch, which is read as one array (``as_tensor``, as a framework iterator does),
CPU only. The work is what DALI's shared-memory chunks do: carry every sample from a
worker into the pipeline's process.

Each library builds its pipeline once, warms it up, and runs ``--iterations`` batches per
trial; the trials of the two libraries alternate; the table gives the median samples/s and
the ratio of this library over DALI (above 1: faster).

Run: ``python benchmarks/parallel_source.py [--size 1024] [--workers 2] [--batch 16]``
(``nvidia-dali-cuda130`` for DALI's row).
"""

from __future__ import annotations

import argparse
import statistics
import time
from types import ModuleType
from typing import Any

import numpy as np
from _common import load_real_dali, print_columns

SIZE = 1024


class Ramp:
    """A picklable per-sample callback: sample ``i`` is one of 8 ``size``² RGB ramps, made
    once per worker (so that the benchmark measures moving samples, not making them)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.made: list[np.ndarray] = []

    def __getstate__(self) -> dict[str, Any]:
        return {"size": self.size, "made": []}

    def __call__(self, info: Any) -> np.ndarray:
        if not self.made:
            row = np.arange(self.size, dtype=np.uint8)
            self.made = [
                np.broadcast_to((row + k)[None, :, None], (self.size, self.size, 3)).copy()
                for k in range(8)
            ]
        return self.made[info.idx_in_epoch % 8]


def make(lib: ModuleType, args: argparse.Namespace) -> Any:
    pipe = lib.Pipeline(
        batch_size=args.batch,
        num_threads=2,
        device_id=None,
        py_num_workers=args.workers,
        py_start_method="spawn",
        prefetch_queue_depth=args.depth,
    )
    with pipe:
        pipe.set_outputs(lib.fn.external_source(Ramp(args.size), batch=False, parallel=True))
    pipe.build()
    return pipe


def trial(pipe: Any, iterations: int) -> float:
    t0 = time.perf_counter()
    for _ in range(iterations):
        (out,) = pipe.run()
        np.asarray(out.as_tensor())
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import dali

    libs: list[tuple[str, ModuleType]] = [("dali (this library)", dali)]
    real = load_real_dali()
    if real is not None:
        libs.append((f"NVIDIA DALI {real.__version__}", real))
    pipes = [(name, make(lib, args)) for name, lib in libs]
    for _, pipe in pipes:
        trial(pipe, 5)  # warm up: the workers start
    times: dict[str, list[float]] = {name: [] for name, _ in pipes}
    for _ in range(args.repeats):
        for name, pipe in pipes:
            times[name].append(trial(pipe, args.iterations))
    n = args.iterations * args.batch
    rates = {name: n / statistics.median(t) for name, t in times.items()}
    ours = rates[libs[0][0]]
    rows = [
        [name, f"{rate:,.0f}", f"{rate * args.size**2 * 3 / 2**30:.2f}", f"{ours / rate:.2f}x"]
        for name, rate in rates.items()
    ]
    print_columns(
        f"parallel external_source, {args.size}x{args.size}x3 uint8 samples, batch "
        f"{args.batch}, {args.workers} workers (ratio: this library over the row)",
        ["library", "samples/s", "GiB/s", "ratio"],
        rows,
    )
    for _, pipe in pipes:
        if hasattr(pipe, "close"):
            pipe.close()


if __name__ == "__main__":
    main()
