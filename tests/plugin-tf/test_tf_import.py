"""Importing dali.plugin.tf: no TensorFlow import until a name needs it, an ImportError that
says what to install, a sorted public surface, and only dali's public modules used."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import dali.plugin.tf as dtf
import pytest
from dali.plugin.tf import _check, experimental

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "packages" / "plugin-tf" / "src"
PLUGIN = SRC / "dali" / "plugin" / "tf"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(SRC), env.get("PYTHONPATH", "")] if p)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )


def test_import_does_not_import_tensorflow():
    done = _python(
        "import sys, dali.plugin.tf as t, dali.plugin.tf.experimental\n"
        "assert 'tensorflow' not in sys.modules, 'imported'\n"
        "t.DALIDataset\n"
        "assert 'tensorflow' in sys.modules\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_missing_tensorflow_says_what_to_install():
    done = _python(
        "import importlib.util as u\n"
        "real = u.find_spec\n"
        "u.find_spec = lambda name, *a: None if name == 'tensorflow' else real(name, *a)\n"
        "import dali.plugin.tf\n"
    )
    assert done.returncode != 0
    assert "ImportError: dali.plugin.tf needs TensorFlow" in done.stderr
    assert "pip install dali-tf" in done.stderr


def test_too_old_tensorflow_says_what_to_install(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(
        importlib.metadata, "packages_distributions", lambda: {"tensorflow": ["tensorflow-cpu"]}
    )

    def version(name):
        if name == "tensorflow-cpu":
            return "2.5.0"
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    match = r"needs tensorflow>=2\.\d+, but tensorflow-cpu 2\.5\.0 is installed"
    with pytest.raises(ImportError, match=match):
        _check.require_tensorflow()


def test_the_installed_tensorflow_is_found():
    import tensorflow as tf
    from dali.plugin._requirements import installed_version

    found = installed_version("tensorflow")
    assert found is not None
    assert found[1][:2] == tuple(int(x) for x in tf.__version__.split(".")[:2])


def test_public_surface():
    assert dtf.__all__ == sorted(dtf.__all__)
    assert experimental.__all__ == sorted(experimental.__all__)
    for name in dtf.__all__:
        assert getattr(dtf, name) is not None
    assert set(dtf.__all__) <= set(dir(dtf))
    assert dtf.experimental is experimental
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = dtf.nothing
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = experimental.nothing


def test_imports_only_public_dali_modules():
    """dali-tf uses dali-core's public modules (`dali.author`, `dali.pipeline`, ...): no
    ``dali._*`` module and no underscore name from one; its own ``_*`` modules are its own."""
    own = "dali.plugin.tf"
    found = []
    for path in sorted(PLUGIN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [(a.name, []) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [(node.module, [a.name for a in node.names])]
            else:
                continue
            for module, names in modules:
                if module.split(".")[0] != "dali" or module == own or module.startswith(own + "."):
                    continue
                private = [module] if any(p.startswith("_") for p in module.split(".")) else []
                private += [f"{module}.{n}" for n in names if n.startswith("_")]
                found += [f"{path.relative_to(SRC)}:{node.lineno}: {name}" for name in private]
    assert not found, "use dali's public modules:\n" + "\n".join(found)
