"""Shared setup of the dali-clu tests: four fake CPU devices, test files and images, helpers.

XLA reads ``XLA_FLAGS`` when JAX first initialises its CPU backend, so the flag is set here,
before any test module imports JAX (as in tests/plugin-jax/conftest.py). The sharding tests
use ``jax.devices("cpu")`` explicitly: on a GPU machine the default backend is CUDA, and the
CPU devices are still there.

The test modules of this folder have names of their own (``test_clu_*.py`` where
tests/plugin-jax has a module of that name): tests/ has no packages, so pytest refuses two
test modules with one basename in one run.
"""

from __future__ import annotations

import os

_FLAG = "--xla_force_host_platform_device_count=4"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()

import pytest

pytest.importorskip("jax")
pytest.importorskip("clu")

#: Files of the ``label_files`` fixture: 29 makes uneven shards over four devices (7, 7, 7, 8),
#: so FILL pads, and epochs differ between layouts.
N_FILES = 29


@pytest.fixture(scope="session")
def label_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``N_FILES`` tiny files; read with ``labels=range(N_FILES)``, file ``i`` has label ``i``."""
    from iterator_utils import make_files

    return make_files(tmp_path_factory.mktemp("label_files"), N_FILES)


@pytest.fixture(scope="session")
def cpu_devices():
    """The four fake CPU devices (skips if JAX's CPU backend started before the flag was set)."""
    import jax

    devices = jax.devices("cpu")
    if len(devices) < 4:
        pytest.skip(
            f"needs 4 CPU devices; JAX's CPU backend was initialised with {len(devices)} "
            "before tests/plugin-clu/conftest.py set XLA_FLAGS"
        )
    return devices[:4]
