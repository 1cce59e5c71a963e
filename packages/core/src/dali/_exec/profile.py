"""Opt-in executor profiling: per-step and per-stage wall and CPU time, stage overlap, GIL waits.

Set ``DALI_PROFILE=1`` before the pipeline is built. Every operator run is then recorded (the
executor thread that ran it, its iteration, wall time and the thread's CPU time), and each
executor thread's time spent waiting for work; `report` (printed to stderr when the pipeline
closes) gives, per step and per stage, the median and mean milliseconds per run, and how much
of the GPU stage's busy time the CPU stage was busy too (``overlap``: near 100 % when the two
stages run side by side, near 0 % when they take turns).

``DALI_PROFILE=gil`` also starts a probe thread that measures how long a Python thread waits
for the GIL (it releases and re-takes the GIL every millisecond): a mean wait near zero means
the GIL is free; waits of milliseconds mean Python threads queue for it, and every Python
section of every thread runs that much later.

Thread CPU time (``time.thread_time``) counts only the time the thread ran; a step whose wall
time is far above its CPU time waited (for the GIL, the GPU, a lock or the disk).

``DALI_TRACE=path.json`` records the same spans and writes them, when the pipeline closes, as a
Chrome trace (the JSON "Trace Event Format": open it in https://ui.perfetto.dev or
``chrome://tracing``): one track per thread (the executor stages, the consumer's ``run()``
waits), one slice per operator run and per stage of every iteration. A worker process writes
its own file, ``path.<pid>.json`` (or the path with ``{pid}`` replaced, when it has one). When
the ``nvtx`` package is installed, every span is also an NVTX range, so that Nsight Systems
shows the stages and operators beside the CUDA work.

``enable_memory_stats=True`` (the pipeline's argument) records each operator's output sizes for
``Pipeline.executor_statistics()``.

Example:
    >>> prof = Profile()
    >>> with prof.span("cpu", 0, "reader"):
    ...     pass
    >>> "reader" in prof.report()
    True
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "PROFILE_ENV",
    "TRACE_ENV",
    "Profile",
    "from_env",
    "nothing",
    "trace_path",
    "worker_trace_path",
    "write_trace",
]


#: The environment variables read here.
PROFILE_ENV = "DALI_PROFILE"
TRACE_ENV = "DALI_TRACE"


def from_env(memory: bool = False) -> Profile | None:
    """A new `Profile` when ``DALI_PROFILE`` or ``DALI_TRACE`` is set (read for each pipeline)
    or ``memory`` (``enable_memory_stats``) asks for output sizes, else None."""
    value = os.environ.get(PROFILE_ENV, "")
    report = bool(value) and value != "0"
    trace = os.environ.get(TRACE_ENV, "") or None
    if not (report or trace or memory):
        return None
    return Profile(gil_probe=value == "gil", report=report, trace=trace, memory=memory)


def _nvtx() -> Any:
    try:
        import nvtx  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    return nvtx


class Profile:
    """Spans recorded by the executor threads of one pipeline (append-only, thread-safe).

    Args:
        gil_probe: Also measure the waits for the interpreter lock.
        report: Print `report` at `finish` (``DALI_PROFILE``).
        trace: Write a Chrome trace there at `finish` (``DALI_TRACE``).
        memory: Record each operator's output sizes (`outputs`, ``enable_memory_stats``).
    """

    def __init__(
        self,
        gil_probe: bool = False,
        *,
        report: bool = True,
        trace: str | None = None,
        memory: bool = False,
    ) -> None:
        #: (stage, iteration, name, start, end, thread CPU seconds, thread id)
        self.spans: list[tuple[str, int, str, float, float, float, int]] = []
        self.gil_waits: list[float] = []
        #: thread id -> its name, for the trace's tracks
        self.threads: dict[int, str] = {}
        #: operator -> (device, [(batch bytes, largest sample bytes) per output] per run)
        self.memory: dict[str, tuple[str, list[list[tuple[int, int]]]]] | None = (
            {} if memory else None
        )
        #: stage -> (times it took an iteration, iterations left waiting in its inbox, summed)
        self.queues: dict[str, list[int]] = {}
        self.trace = trace
        self.print = report
        self._nvtx = _nvtx() if trace else None
        self._finished = False
        self._stop = threading.Event()
        self._probe: threading.Thread | None = None
        if gil_probe:
            self._probe = threading.Thread(target=self._gil_probe, name="dali-gil-probe")
            self._probe.daemon = True
            self._probe.start()

    @contextlib.contextmanager
    def span(self, stage: str, iteration: int, name: str) -> Iterator[None]:
        ident = threading.get_ident()
        if ident not in self.threads:
            self.threads[ident] = threading.current_thread().name
        nvtx = self._nvtx
        if nvtx is not None:
            nvtx.push_range(f"{stage}: {name}" if iteration < 0 else f"{stage} {iteration}: {name}")
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.spans.append(
                (stage, iteration, name, t0, time.perf_counter(), time.thread_time() - c0, ident)
            )
            if nvtx is not None:
                nvtx.pop_range()

    def queued(self, stage: str, waiting: int) -> None:
        """A stage took an iteration from its inbox and ``waiting`` more were there."""
        entry = self.queues.get(stage)
        if entry is None:
            entry = self.queues[stage] = [0, 0]
        entry[0] += 1
        entry[1] += waiting

    def outputs(self, name: str, device: str, batches: Sequence[Any]) -> None:
        """Record one run's output sizes of operator ``name`` (for `memory_statistics`)."""
        if self.memory is None:
            return
        sizes = []
        for tl in batches:
            itemsize = np.dtype(tl.np_dtype).itemsize
            per_sample = [int(np.prod(s)) * itemsize for s in tl.shape()]
            sizes.append((sum(per_sample), max(per_sample, default=0)))
        entry = self.memory.get(name)
        if entry is None:
            entry = self.memory[name] = (device, [])
        entry[1].append(sizes)

    def _gil_probe(self) -> None:
        while not self._stop.is_set():
            time.sleep(0.001)
            t0 = time.perf_counter()
            time.sleep(0)  # releases the GIL and takes it back: the wait is the queue for it
            self.gil_waits.append(time.perf_counter() - t0)

    def close(self) -> None:
        self._stop.set()

    def report(self) -> str:
        """Per step and stage, the median and mean ms per run, the stages' overlap and GIL
        waits. The median is the steady state; the mean also carries the rare long runs (the
        first, which opens decoders and loads compiled kernels; stalls)."""
        spans = list(self.spans)
        lines = [
            "dali profile (ms per run: median wall / median thread CPU, mean wall, over N runs)"
        ]
        by_name: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for stage, _, name, t0, t1, cpu, _ in spans:
            by_name.setdefault((stage, name), []).append((t1 - t0, cpu))
        for (stage, name), vals in sorted(by_name.items()):
            walls = np.array([v[0] for v in vals]) * 1e3
            cpus = np.array([v[1] for v in vals]) * 1e3
            lines.append(
                f"  [{stage}] {name:<40} {np.median(walls):8.2f} / {np.median(cpus):8.2f}"
                f"   mean {walls.mean():8.2f}   N={len(vals)}"
            )
        busy: dict[str, list[tuple[float, float]]] = {}
        for stage, _, name, t0, t1, _, _ in spans:
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

    def finish(self) -> None:
        """Stop recording; print the report (``DALI_PROFILE``) and write the trace
        (``DALI_TRACE``). Once: later calls do nothing."""
        self.close()
        if self._finished:
            return
        self._finished = True
        if self.print and self.spans:
            print(self.report(), file=sys.stderr, flush=True)
        if self.trace:
            write_trace(self, trace_path(self.trace))

    print_report = finish

    def step_times(self) -> dict[str, dict[str, Any]]:
        """Per operator: its stage, runs, and mean wall and thread-CPU milliseconds per run."""
        acc: dict[str, list[Any]] = {}
        for stage, it, name, t0, t1, cpu, _ in list(self.spans):
            if it < 0 or name.startswith("<"):
                continue
            entry = acc.setdefault(name, [stage, 0, 0.0, 0.0])
            entry[1] += 1
            entry[2] += t1 - t0
            entry[3] += cpu
        return {
            name: {
                "stage": stage,
                "runs": n,
                "mean_ms": 1e3 * wall / n,
                "mean_cpu_ms": 1e3 * cpu / n,
            }
            for name, (stage, n, wall, cpu) in acc.items()
        }

    def stage_times(self) -> dict[str, dict[str, Any]]:
        """Per stage: iterations, mean busy milliseconds per iteration, the mean milliseconds
        per iteration it waited for work, and how many iterations were waiting in its inbox,
        on average, when it took one (queue occupancy). The ``consumer`` entry is the
        pipeline's caller: ``mean_busy_ms`` is the time ``run()`` waited for its batch."""
        acc: dict[str, list[Any]] = {}
        for stage, it, name, t0, t1, _, _ in list(self.spans):
            entry = acc.setdefault(stage, [0, 0.0, 0.0])
            if name == "<stage>" or (stage == "consumer" and name == "run"):
                entry[0] += 1
                entry[1] += t1 - t0
            elif it < 0 and name.startswith("<wait"):
                entry[2] += t1 - t0
        out = {}
        for stage, (n, busy, wait) in acc.items():
            taken, waiting = self.queues.get(stage, (0, 0))
            out[stage] = {
                "iterations": n,
                "mean_busy_ms": 1e3 * busy / max(n, 1),
                "mean_wait_ms": 1e3 * wait / max(n, 1),
                "mean_queued": waiting / taken if taken else 0.0,
            }
        return out

    def memory_statistics(self) -> dict[str, dict[str, list[int]]]:
        """DALI's ``executor_statistics()`` memory keys per operator (``<DEVICE>_<name>``):
        per output, the last batch's bytes (``real_memory_size``) and largest sample
        (``max_real_memory_size``), and the most seen in any batch (``reserved_memory_size``,
        ``max_reserved_memory_size``: the pool keeps buffers that large)."""
        out: dict[str, dict[str, list[int]]] = {}
        for name, (device, runs) in list((self.memory or {}).items()):
            if not runs:
                continue
            last = runs[-1]
            out[f"{device.upper()}_{name}"] = {
                "real_memory_size": [b for b, _ in last],
                "max_real_memory_size": [m for _, m in last],
                "reserved_memory_size": [max(run[k][0] for run in runs) for k in range(len(last))],
                "max_reserved_memory_size": [
                    max(run[k][1] for run in runs) for k in range(len(last))
                ],
            }
        return out


def trace_path(path: str) -> str:
    """Where this process writes its trace: ``path`` with ``{pid}`` replaced by the process id."""
    return path.replace("{pid}", str(os.getpid()))


def worker_trace_path(path: str) -> str:
    """The ``DALI_TRACE`` value for a worker process: its own file, ``<stem>.{pid}<suffix>``."""
    if "{pid}" in path:
        return path
    root, dot, suffix = path.rpartition(".")
    return f"{root}.{{pid}}.{suffix}" if dot and "/" not in suffix else f"{path}.{{pid}}"


def write_trace(prof: Profile, path: str) -> None:
    """Write ``prof``'s spans as a Chrome trace (Trace Event Format, JSON) to ``path``."""
    pid = os.getpid()
    events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"dali (pid {pid})"}}
    ]
    for ident, name in list(prof.threads.items()):
        events.append(
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": ident, "args": {"name": name}}
        )
    for stage, it, name, t0, t1, cpu, ident in list(prof.spans):
        events.append(
            {
                "name": name,
                "cat": stage,
                "ph": "X",
                "ts": t0 * 1e6,
                "dur": (t1 - t0) * 1e6,
                "pid": pid,
                "tid": ident,
                "args": {"iteration": it, "thread_cpu_ms": round(cpu * 1e3, 3)},
            }
        )
    # written whole or not at all: a process killed while writing (a worker process whose
    # consumer exited) leaves no truncated file that a viewer cannot load
    partial = f"{path}.{pid}.partial"
    with open(partial, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
    os.replace(partial, path)


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
