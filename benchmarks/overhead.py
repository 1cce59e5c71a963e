"""Per-iteration overhead: 41 small arithmetic operators on a batch of 256 tiny samples (CPU).

The graph is ``fn.random.uniform(shape=(16,))`` followed by 41 element-wise arithmetic
operators, batch 256, CPU only (``device_id=None``). The same graph runs through `dali` and,
when it is installed (``python3 -m nox -s bench``), through NVIDIA DALI 2.4 in the same process.
Target: at least 10x fewer ms/iteration than DALI.

Run: ``python benchmarks/overhead.py [--threads 2] [--iterations 200]``
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any

import dali
from _common import load_real_dali, print_table, time_per_iteration

BATCH = 256
N_OPS = 41


def graph(fn: ModuleType) -> Any:
    """uniform(shape=(16,)) then 41 cheap arithmetic operators that keep values bounded."""
    x = fn.random.uniform(range=(0.0, 1.0), shape=(16,))
    steps = [
        lambda v: v + 1.5,
        lambda v: v * 0.5,
        lambda v: v - 0.25,
        lambda v: v / 1.25,
    ]
    for i in range(N_OPS):
        x = steps[i % len(steps)](x)
    return x


def make_pipeline(lib: ModuleType, threads: int) -> Any:
    pipe = lib.Pipeline(batch_size=BATCH, num_threads=threads, device_id=None, seed=1)
    with pipe:
        pipe.set_outputs(graph(lib.fn))
    pipe.build()
    return pipe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    libs: list[tuple[str, ModuleType]] = [("dali (this project)", dali)]
    real = load_real_dali()
    if real is not None:
        libs.append((f"NVIDIA DALI {real.__version__}", real))
    else:
        print("NVIDIA DALI is not installed: run `python3 -m nox -s bench` for the comparison.")

    rows = []
    for name, lib in libs:
        pipe = make_pipeline(lib, args.threads)
        sec = time_per_iteration(
            pipe.run, warmup=20, iterations=args.iterations, repeats=args.repeats
        )
        rows.append((name, sec * 1e3))
        del pipe
    print_table(
        f"{N_OPS} arithmetic ops on uniform(shape=(16,)), batch {BATCH}, CPU, "
        f"{args.threads} threads",
        "ms/iteration",
        rows,
        lower_is_better=True,
    )
    if len(rows) > 1:
        print(f"\ndali is {rows[1][1] / rows[0][1]:.1f}x faster than NVIDIA DALI (target >= 10x)")


if __name__ == "__main__":
    main()
