"""Opt-in executor profiling: per-step and per-stage wall and CPU time, stage overlap, GIL waits.

Set ``DALI_PROFILE=1`` before the pipeline is built. Every operator run is then recorded (the
executor thread that ran it, its iteration, wall time and the thread's CPU time), and each
executor thread's time spent waiting for work; `report` (printed to stderr when the pipeline
closes) gives, per step and per stage, the mean milliseconds per iteration, and how much of the
GPU stage's busy time the CPU stage was busy too (``overlap``: near 100 % when the two stages
run side by side, near 0 % when they take turns).

``DALI_PROFILE=gil`` also starts a probe thread that measures how long a Python thread waits
for the GIL (it releases and re-takes the GIL every millisecond): a mean wait near zero means
the GIL is free; waits of milliseconds mean Python threads queue for it, and every Python
section of every thread runs that much later.

Thread CPU time (``time.thread_time``) counts only the time the thread ran; a step whose wall
time is far above its CPU time waited (for the GIL, the GPU, a lock or the disk).

Example:
    >>> prof = Profile()
    >>> with prof.span("cpu", 0, "reader"):
    ...     pass
    >>> "reader" in prof.report()
    True
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator

__all__ = ["Profile", "from_env", "nothing"]


def from_env() -> Profile | None:
    """A new `Profile` when ``DALI_PROFILE`` is set (read for each pipeline), else None."""
    value = os.environ.get("DALI_PROFILE", "")
    if not value or value == "0":
        return None
    return Profile(gil_probe=value == "gil")


class Profile:
    """Spans recorded by the executor threads of one pipeline (append-only, thread-safe)."""

    def __init__(self, gil_probe: bool = False) -> None:
        #: (stage, iteration, name, start, end, thread CPU seconds)
        self.spans: list[tuple[str, int, str, float, float, float]] = []
        self.gil_waits: list[float] = []
        self._stop = threading.Event()
        self._probe: threading.Thread | None = None
        if gil_probe:
            self._probe = threading.Thread(target=self._gil_probe, name="dali-gil-probe")
            self._probe.daemon = True
            self._probe.start()

    @contextlib.contextmanager
    def span(self, stage: str, iteration: int, name: str) -> Iterator[None]:
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.spans.append(
                (stage, iteration, name, t0, time.perf_counter(), time.thread_time() - c0)
            )

    def _gil_probe(self) -> None:
        while not self._stop.is_set():
            time.sleep(0.001)
            t0 = time.perf_counter()
            time.sleep(0)  # releases the GIL and takes it back: the wait is the queue for it
            self.gil_waits.append(time.perf_counter() - t0)

    def close(self) -> None:
        self._stop.set()

    def report(self) -> str:
        """Mean ms per iteration of each step and stage, the stages' overlap and GIL waits."""
        spans = list(self.spans)
        lines = ["dali profile (ms per iteration: wall / thread CPU, over N iterations)"]
        by_name: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for stage, _, name, t0, t1, cpu in spans:
            by_name.setdefault((stage, name), []).append((t1 - t0, cpu))
        for (stage, name), vals in sorted(by_name.items()):
            n = len(vals)
            wall = 1e3 * sum(v[0] for v in vals) / n
            cpu = 1e3 * sum(v[1] for v in vals) / n
            lines.append(f"  [{stage}] {name:<40} {wall:8.2f} / {cpu:8.2f}   N={n}")
        busy: dict[str, list[tuple[float, float]]] = {}
        for stage, _, name, t0, t1, _ in spans:
            if name == "<stage>":
                busy.setdefault(stage, []).append((t0, t1))
        pairs = (("source", "cpu"), ("cpu", "gpu"), ("cpu", "mixed"), ("mixed", "gpu"))
        for first, second in pairs:
            if first in busy and second in busy:
                lines.append(_overlap_line(first, second, busy[first], busy[second]))
        waits = sorted(self.gil_waits)
        if waits:
            n = len(waits)
            lines.append(
                f"  GIL probe: {n} waits, mean {1e3 * sum(waits) / n:.3f} ms, median "
                f"{1e3 * waits[n // 2]:.3f}, p90 {1e3 * waits[int(n * 0.9)]:.3f}, max "
                f"{1e3 * waits[-1]:.3f}"
            )
        return "\n".join(lines)

    def print_report(self) -> None:
        self.close()
        if self.spans:
            print(self.report(), file=sys.stderr, flush=True)


def _overlap_line(
    first: str, second: str, a: list[tuple[float, float]], b: list[tuple[float, float]]
) -> str:
    a_iv, b_iv = sorted(a), sorted(b)
    both = _intersection(a_iv, b_iv)
    b_total = sum(hi - lo for lo, hi in b_iv)
    lo = min(a_iv[0][0], b_iv[0][0])
    hi = max(a_iv[-1][1], b_iv[-1][1])
    return (
        f"  stages: {first.upper()} busy {_share(a_iv, lo, hi):.0%} and {second.upper()} busy "
        f"{_share(b_iv, lo, hi):.0%} of {hi - lo:.2f} s; overlap ({first.upper()} stage busy "
        f"while the {second.upper()} stage is) {both / max(b_total, 1e-9):.0%}"
    )


def _share(iv: list[tuple[float, float]], lo: float, hi: float) -> float:
    return sum(b - a for a, b in iv) / max(hi - lo, 1e-9)


def _intersection(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Total length of the intersection of two sorted lists of disjoint intervals."""
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


_NULL = contextlib.nullcontext()


def nothing(*_: object) -> contextlib.nullcontext[None]:
    """The stand-in for `Profile.span` when profiling is off (a reusable no-op context)."""
    return _NULL
