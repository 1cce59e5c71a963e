"""Shared pytest setup: ``gpu``-marked tests are skipped when no CUDA device is visible."""

from __future__ import annotations

import pytest


def _cuda_device_visible() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except (ImportError, OSError, RuntimeError):  # no CuPy, no CUDA library, no driver/device
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    # CuPy is imported only when a gpu test was collected: core must run with numpy alone.
    if not gpu_items or _cuda_device_visible():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device; none is visible")
    for item in gpu_items:
        item.add_marker(skip)
