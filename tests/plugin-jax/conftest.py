"""Shared setup of the dali-jax tests: four fake CPU devices, test images, helpers.

XLA reads ``XLA_FLAGS`` when JAX first initialises its CPU backend, so the flag is set here,
before any test module imports JAX. The sharding tests use ``jax.devices("cpu")`` explicitly:
on a GPU machine the default backend is CUDA, and the CPU devices are still there.
"""

from __future__ import annotations

import os

_FLAG = "--xla_force_host_platform_device_count=4"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()

import pytest

pytest.importorskip("jax")


@pytest.fixture(scope="session")
def cpu_devices():
    """The four fake CPU devices (skips if JAX's CPU backend started before the flag was set)."""
    import jax

    devices = jax.devices("cpu")
    if len(devices) < 4:
        pytest.skip(
            f"needs 4 CPU devices; JAX's CPU backend was initialised with {len(devices)} "
            "before tests/plugin-jax/conftest.py set XLA_FLAGS"
        )
    return devices[:4]
