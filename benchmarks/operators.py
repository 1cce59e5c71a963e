"""Operators one by one: CPU time per batch, this library beside NVIDIA DALI 2.4.

Each row is one operator call on a fixed batch of realistic size, written once as
``graph(fn, types, *inputs)`` so that both libraries run the same program. The inputs are
numpy batches fed by ``fn.external_source`` (the same arrays in both libraries); every row
also times a pipeline of the inputs alone (``feed only``) and subtracts it, so the columns are
what the operator itself costs per batch. ``num_threads=2``, CPU only (``device_id=None``).

The rows live beside this script, one file per operator family (``operators_<family>.py``,
each a list ``BENCHES`` of `Bench`); ``-k`` keeps the rows whose name contains a substring.
The libraries alternate between samples; the median of ``--repeats`` samples is reported.
The ratio is DALI's time over ours (above 1: ours is faster).

Run: ``python benchmarks/operators.py [-k NAME] [--repeats 5] [--iterations 20]``
(``python3 -m nox -s bench`` installs NVIDIA DALI 2.4 beside this library; without it only
our column is printed).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_real_dali, print_columns


@dataclass(frozen=True)
class Bench:
    """One row: ``graph(fn, types, *nodes)`` on the batches ``inputs()`` makes.

    Attributes:
        name: Shown in the table, e.g. ``"reductions.sum(axes=0) 64x224x224x3 u8"``.
        graph: Builds the operator call from the input nodes; returns a node or a tuple.
        inputs: Makes the input batches, each a list of numpy samples (called once).
        layouts: The layout of each input ("" for none).
        conditionals: Build the pipelines with ``enable_conditionals=True`` (graphs that
            branch on DataNodes, such as the automatic augmentations; ``graph`` must then be a
            ``def`` function: the calls in a lambda are not converted).
    """

    name: str
    graph: Callable[..., Any]
    inputs: Callable[[], Sequence[Sequence[np.ndarray]]]
    layouts: Sequence[str] = ()
    conditionals: bool = False


def all_benches() -> list[Bench]:
    """Every row of the ``operators_<family>.py`` files beside this script, by family."""
    benches: list[Bench] = []
    for path in sorted(Path(__file__).resolve().parent.glob("operators_*.py")):
        benches.extend(importlib.import_module(path.stem).BENCHES)
    return benches


def _repeat(batch: Sequence[np.ndarray]) -> Callable[[], list[np.ndarray]]:
    """The source of one input: the same batch every iteration (no argument: a parameter
    would receive the iteration number)."""
    return lambda: list(batch)


def _pipeline(lib: ModuleType, bench: Bench, batches: Sequence[Sequence[np.ndarray]], op: bool):
    fn, types = lib.fn, lib.types
    batch_size = len(batches[0])

    @lib.pipeline_def(
        batch_size=batch_size,
        num_threads=2,
        device_id=None,
        seed=1234,
        enable_conditionals=bench.conditionals,
    )
    def pipe() -> Any:
        nodes = []
        for k, batch in enumerate(batches):
            layout = bench.layouts[k] if k < len(bench.layouts) else ""
            nodes.append(fn.external_source(source=_repeat(batch), layout=layout or None))
        if not op:
            return tuple(nodes)
        out = bench.graph(fn, types, *nodes)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    return p


def _seconds(pipe: Any, iterations: int, min_seconds: float) -> float:
    """Mean seconds per ``run()`` over at least ``iterations`` runs and ``min_seconds``."""
    runs, t0 = 0, time.perf_counter()
    while True:
        pipe.run()
        runs += 1
        elapsed = time.perf_counter() - t0
        if runs >= iterations and elapsed >= min_seconds:
            return elapsed / runs


def measure(
    libs: dict[str, ModuleType],
    bench: Bench,
    *,
    repeats: int,
    iterations: int,
    min_seconds: float = 0.2,
) -> dict[str, float]:
    """Per library: the median over ``repeats`` of (pipeline with the operator - feed only),
    the two timed back to back, each over at least ``min_seconds`` (a sub-millisecond
    operator needs hundreds of runs to stand out of the feed's own noise)."""
    batches = bench.inputs()
    pipes = {
        name: (_pipeline(lib, bench, batches, True), _pipeline(lib, bench, batches, False))
        for name, lib in libs.items()
    }
    for with_op, feed in pipes.values():  # warm up: first runs allocate, compile, cache
        for _ in range(3):
            with_op.run()
            feed.run()
    samples: dict[str, list[float]] = {name: [] for name in libs}
    for _ in range(repeats):
        for name, (with_op, feed) in pipes.items():
            op_time = _seconds(with_op, iterations, min_seconds)
            feed_time = _seconds(feed, iterations, min_seconds)
            samples[name].append(op_time - feed_time)
    return {name: max(statistics.median(s), 1e-6) for name, s in samples.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", action="append", default=[], help="rows whose name contains this")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=10, help="runs per timing, at least")
    parser.add_argument("--min-seconds", type=float, default=0.2, help="per timing, at least")
    args = parser.parse_args(argv)

    import dali

    libs: dict[str, ModuleType] = {"dali": dali}
    real = load_real_dali()
    if real is not None:
        libs["DALI"] = real
    rows = []
    for bench in all_benches():
        if args.k and not any(k in bench.name for k in args.k):
            continue
        t = measure(
            libs,
            bench,
            repeats=args.repeats,
            iterations=args.iterations,
            min_seconds=args.min_seconds,
        )
        row = [bench.name, f"{t['dali'] * 1e3:.3f}"]  # 0.001: below what can be told apart
        if "DALI" in t:
            row += [f"{t['DALI'] * 1e3:.3f}", f"{t['DALI'] / t['dali']:.2f}x"]
        rows.append(row)
        print("  ".join(row), flush=True)
    headers = ["operator", "dali ms/batch"] + (["DALI ms/batch", "DALI/dali"] if real else [])
    print_columns("CPU time per batch (feed subtracted), num_threads=2", headers, rows)


if __name__ == "__main__":
    main()
