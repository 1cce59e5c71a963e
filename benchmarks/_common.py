"""Shared helpers for the benchmarks: load peers, time loops, print a ratio table."""

from __future__ import annotations

import importlib
import os
import resource
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any


def load_real_dali(*, gpu: bool = False) -> ModuleType | None:
    """NVIDIA DALI (``nvidia.dali``) if installed (the nox ``bench`` session installs 2.4);
    with ``gpu``, only if it can also run GPU pipelines here (its CUDA build and a device)."""
    try:
        real = importlib.import_module("nvidia.dali")
    except ImportError:
        return None
    if not gpu:
        return real
    try:
        from nvidia.dali.backend import GetCUDADeviceCount  # type: ignore[import-not-found]

        return real if GetCUDADeviceCount() else None
    except Exception:  # noqa: BLE001 - a CPU-only build, or no driver
        return None


def time_per_iteration(
    step: Callable[[], Any], *, warmup: int, iterations: int, repeats: int
) -> float:
    """Median over ``repeats`` of the mean seconds per call of ``step``."""
    for _ in range(warmup):
        step()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iterations):
            step()
        samples.append((time.perf_counter() - t0) / iterations)
    return statistics.median(samples)


def print_table(
    title: str, unit: str, rows: list[tuple[str, float]], *, lower_is_better: bool
) -> None:
    """Rows of (name, value); the ratio column compares each row with the first one."""
    print(f"\n{title}")
    print(f"{'library':<34}{unit:>14}{'ratio vs first':>18}")
    base = rows[0][1]
    for name, value in rows:
        ratio = (value / base) if lower_is_better else (base / value)
        print(f"{name:<34}{value:>14.3f}{ratio:>17.2f}x")


def print_columns(title: str, headers: list[str], rows: list[list[str]]) -> None:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[k])) for r in [headers, *rows]) + 2 for k in range(len(headers))]
    print(f"\n{title}")
    for r in [headers, *rows]:
        print(f"{r[0]:<{widths[0]}}" + "".join(f"{c:>{w}}" for c, w in zip(r[1:], widths[1:])))


@dataclass
class CpuSample:
    """What one timed region cost: wall seconds, the CPU seconds of this process and of its
    child processes (a loader's workers, live or exited), others' load."""

    wall: float
    cpu: float
    #: Fraction of the machine's CPUs busy with *other* processes meanwhile (None: unknown).
    foreign: float | None


def _machine_busy() -> float | None:
    """Busy CPU seconds of the whole machine since boot (Linux ``/proc/stat``), or None."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def family_cpu() -> float:
    """CPU seconds of this process and its descendants: the live ones (``/proc``, Linux) and
    the exited ones that were waited for. A difference of two readings is what the family
    spent in between, workers that lived through it or ended in it alike."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = time.process_time() + usage.ru_utime + usage.ru_stime
    me = os.getpid()
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return total
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
    for pid in pids:
        up, seen = parents.get(pid), 0
        while up is not None and up > 1 and up != me and seen < 64:
            up, seen = parents.get(up), seen + 1
        if up == me and pid != me:
            total += ticks[pid] / os.sysconf("SC_CLK_TCK")
    return total


@contextmanager
def measure_cpu() -> Iterator[list[CpuSample]]:
    """Measure the ``with`` block: ``with measure_cpu() as m: ...`` then ``m[0]``.

    ``foreign`` tells whether other processes competed for the CPUs while the block ran, which
    on a shared machine is the main source of noise (the benchmarks retry such samples).
    """
    out: list[CpuSample] = []
    busy0, cpu0, t0 = _machine_busy(), family_cpu(), time.perf_counter()
    yield out
    wall, cpu = time.perf_counter() - t0, family_cpu() - cpu0
    busy1 = _machine_busy()
    foreign = None
    if busy0 is not None and busy1 is not None and wall > 0:
        foreign = max(0.0, (busy1 - busy0 - cpu) / (wall * (os.cpu_count() or 1)))
    out.append(CpuSample(wall, cpu, foreign))


def wait_until_quiet(max_foreign: float, timeout: float) -> bool:
    """Wait (up to ``timeout`` s) for a second in which other processes use < ``max_foreign``.

    This process must be idle meanwhile (its own CPU time is subtracted anyway). Returns False
    on timeout or where the machine's load cannot be read.
    """
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        with measure_cpu() as m:
            time.sleep(1.0)
        if m[0].foreign is None:
            return False
        if m[0].foreign < max_foreign:
            return True
    return False


def alternate(
    libs: list[tuple[str, ModuleType]],
    sample: Callable[[ModuleType], tuple[CpuSample, int]],
    repeats: int,
    *,
    wait_quiet: float = 0.0,
    max_foreign: float = 0.15,
) -> list[tuple[float, float]]:
    """Per library, ``(median items/s, median CPU us/item)`` over ``repeats`` samples, the
    libraries alternating so that a slow spell of a shared machine hits all of them.

    ``sample(lib)`` times one sample: what it cost and how many items it processed. With
    ``wait_quiet`` each sample first waits (up to that many seconds) for the machine's other
    processes to use less than ``max_foreign`` of it (`wait_until_quiet`).
    """
    got: list[list[tuple[CpuSample, int]]] = [[] for _ in libs]
    for _ in range(repeats):
        for k, (_, lib) in enumerate(libs):
            if wait_quiet > 0:
                wait_until_quiet(max_foreign, wait_quiet)
            got[k].append(sample(lib))
    return [
        (
            statistics.median(n / s.wall for s, n in samples),
            statistics.median(1e6 * s.cpu / n for s, n in samples),
        )
        for samples in got
    ]
