"""Host planning of the GPU image operators: alone, and beside a busy Python thread.

A pipeline's stage threads share the GIL. numpy gives it up inside operations over more than
500 elements (and ``np.zeros`` around ``calloc`` above 1 KB); taking it back can then wait
for the switch interval (5 ms) while another thread runs Python (`dali._exec.gil`). This
prints, per step of the host side of ``resize``, ``crop_mirror_normalize`` and ``color_twist``
on a batch of ImageNet-like shapes, the time per call alone and with one other Python thread spinning: a step
that keeps the GIL costs about the same in both columns (twice at most: the spinner gets its
switch interval too), one that gives it up costs milliseconds.

No GPU needed: the device calls (allocation, upload, launch) are replaced by stand-ins
(`dali._testing.gil.planning_steps`; ``tests/core/exec/test_gil.py`` asserts, without timing,
that none of these steps gives the GIL up).

Run: ``python benchmarks/gil_held.py [--batch 256]`` (the SSD pipeline's batch: ``--batch 64``)
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from typing import Any

from dali._testing.gil import planning_steps


def per_call(fn: Callable[[], Any], seconds: float) -> float:
    """Microseconds per call of ``fn`` over at least ``seconds``."""
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return 1e6 * (time.perf_counter() - t0) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=0.3, help="per step and column")
    args = parser.parse_args()
    table = planning_steps(args.batch)
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
