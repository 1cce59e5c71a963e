"""Shared helpers for the benchmarks: load peers, time loops, print a ratio table."""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any


def load_real_dali() -> ModuleType | None:
    """NVIDIA DALI (``nvidia.dali``) if installed (the nox ``bench`` session installs 2.4)."""
    try:
        return importlib.import_module("nvidia.dali")
    except ImportError:
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
