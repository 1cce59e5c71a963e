"""Importing the plugin: the public surface, no eager JAX import, a clear error without JAX."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(ROOT / "packages/core/src"),
            str(ROOT / "packages/plugin-jax/src"),
            env.get("PYTHONPATH", ""),
        ]
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_public_surface_is_sorted_and_complete():
    import dali.plugin.jax as dax
    import dali.plugin.jax.fn as dax_fn

    assert dax.__all__ == sorted(dax.__all__) == ["DALIGenericIterator", "data_iterator", "fn"]
    assert dax_fn.__all__ == ["jax_function"]
    assert dax.fn is dax_fn


def test_importing_the_plugin_does_not_import_jax():
    proc = _python("import sys, dali.plugin.jax; print('jax' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_without_jax_the_error_says_what_to_install():
    # As if JAX were not installed: the plugin checks with importlib.util.find_spec.
    proc = _python(
        "import importlib.util\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'jax' else real(name, *a)\n"
        "import dali.plugin.jax\n"
    )
    assert proc.returncode != 0
    assert "ImportError: dali.plugin.jax needs JAX" in proc.stderr
    assert "pip install dali-jax jax" in proc.stderr


def test_too_old_jax_is_refused(monkeypatch):
    import importlib.metadata

    from dali.plugin.jax import _check

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.4.13")
    with pytest.raises(ImportError, match=r"needs jax>=0\.4\.26, but jax 0\.4\.13"):
        _check.require_jax()


def test_namespace_lets_other_distributions_add_subpackages():
    import dali.plugin.jax as dax

    first = (
        (ROOT / "packages/plugin-jax/src/dali/plugin/jax/__init__.py").read_text().splitlines()[0]
    )
    assert first == '__path__ = __import__("pkgutil").extend_path(__path__, __name__)'
    assert str(ROOT / "packages/plugin-jax/src/dali/plugin/jax") in list(dax.__path__)


def test_dalis_iterator_module_path():
    """``from nvidia.dali.plugin.jax.iterator import DALIGenericIterator`` works unchanged."""
    from dali.plugin import jax as plugin
    from dali.plugin.jax import iterator

    assert iterator.DALIGenericIterator is plugin.DALIGenericIterator
    assert iterator.data_iterator is plugin.data_iterator
    assert sorted(iterator.__all__) == iterator.__all__
