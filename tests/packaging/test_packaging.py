"""Wheels ship only their own level, and ``dali.plugin.*`` imports after wheel and editable installs.

Core owns the only ``dali/__init__.py`` and ``dali/plugin/__init__.py`` and both begin with
``pkgutil.extend_path``; a plugin ships only ``dali/plugin/<name>/``. A plain ``__init__.py`` in
core still passes the wheel install (both wheels unpack into one ``site-packages/dali/``) but
breaks the editable install, where core and plugin live in two source trees: hence both
installs are tested, each in a fresh venv (STYLE.md §2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages" / "core"
DUMMY = Path(__file__).resolve().parent / "fixtures" / "plugin-dummy"
JAX = REPO / "packages" / "plugin-jax"
EXTEND_PATH = '__path__ = __import__("pkgutil").extend_path(__path__, __name__)'

# Run in a fresh interpreter: prints where each level of the namespace was found.
IMPORT_CHECK = """
import json
import dali.plugin
import dali.plugin.dummy
print(json.dumps({
    "dali": list(dali.__path__),
    "plugin": list(dali.plugin.__path__),
    "dummy": dali.plugin.dummy.__file__,
}))
"""


# The jax plugin, installed without JAX (``--no-deps``; JAX is large and the `jax` nox session
# tests the plugin with it): where Python finds ``dali.plugin.jax`` (found without running it),
# and the ImportError its import gives, which must say what to install.
JAX_CHECK = """
import importlib.util
import json
spec = importlib.util.find_spec("dali.plugin.jax")
try:
    import dali.plugin.jax
    error = ""
except ImportError as e:
    error = str(e)
print(json.dumps({"jax": spec.origin, "error": error}))
"""


def _run(*cmd: str | Path, cwd: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run(
        [str(c) for c in cmd],
        check=False,  # the assert below reports stdout and stderr
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    )
    return proc.stdout


def _files(wheel: Path) -> list[str]:
    """Every file in ``wheel`` except its ``.dist-info`` metadata."""
    with zipfile.ZipFile(wheel) as zf:
        return [n for n in zf.namelist() if not n.split("/", 1)[0].endswith(".dist-info")]


def _first_line(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(name).decode().splitlines()[0]


def _fresh_venv(path: Path) -> Path:
    """A new venv at ``path`` (no system site-packages); returns its python."""
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(path)
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _import_check(python: Path, cwd: Path) -> dict[str, object]:
    return json.loads(_run(python, "-c", IMPORT_CHECK, cwd=cwd).splitlines()[-1])


def _jax_check(python: Path, cwd: Path) -> dict[str, str]:
    found = json.loads(_run(python, "-c", JAX_CHECK, cwd=cwd).splitlines()[-1])
    assert "pip install dali-jax jax" in found["error"], found
    return found


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    for project in (CORE, DUMMY, JAX):
        _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, project)
    (core,) = out.glob("dali_core-*.whl")
    (dummy,) = out.glob("dali_plugin_dummy-*.whl")
    (jax,) = out.glob("dali_jax-*.whl")
    return {"core": core, "dummy": dummy, "jax": jax}


def test_core_wheel_ships_dali_and_nothing_else(wheels: dict[str, Path]) -> None:
    files = _files(wheels["core"])
    assert {name.split("/", 1)[0] for name in files} == {"dali"}
    src = CORE / "src"
    expected = {
        p.relative_to(src).as_posix()
        for p in (src / "dali").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected <= set(files), f"missing from the wheel: {sorted(expected - set(files))}"
    for name in ("dali/__init__.py", "dali/plugin/__init__.py", "dali/py.typed"):
        assert name in files
    for name in ("dali/__init__.py", "dali/plugin/__init__.py"):
        assert _first_line(wheels["core"], name) == EXTEND_PATH, name


def test_plugin_wheel_ships_only_its_subpackage(wheels: dict[str, Path]) -> None:
    files = _files(wheels["dummy"])
    assert "dali/plugin/dummy/__init__.py" in files
    above = [name for name in files if not name.startswith("dali/plugin/dummy/")]
    assert above == [], f"plugin wheel ships files above dali/plugin/dummy/: {above}"


def test_jax_wheel_ships_only_dali_plugin_jax(wheels: dict[str, Path]) -> None:
    files = _files(wheels["jax"])
    above = [name for name in files if not name.startswith("dali/plugin/jax/")]
    assert above == [], f"dali-jax ships files above dali/plugin/jax/: {above}"
    src = JAX / "src"
    expected = {
        p.relative_to(src).as_posix()
        for p in (src / "dali" / "plugin" / "jax").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected == set(files), f"differs from the source: {sorted(expected ^ set(files))}"
    for name in ("dali/plugin/jax/__init__.py", "dali/plugin/jax/fn/__init__.py"):
        assert name in files
    assert "dali/plugin/jax/py.typed" in files
    # a namespace too, so that dali-clu can add dali/plugin/jax/clu/ from an editable install
    assert _first_line(wheels["jax"], "dali/plugin/jax/__init__.py") == EXTEND_PATH


def test_import_after_wheel_install(wheels: dict[str, Path], tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    # With dependencies: proves core's declared ones (numpy) are enough for ``import dali``.
    _run(python, "-m", "pip", "install", "--quiet", wheels["core"], wheels["dummy"])
    found = _import_check(python, cwd=tmp_path)
    site = tmp_path / "venv"
    assert Path(str(found["dummy"])).is_relative_to(site), found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheels["jax"])
    jax_found = _jax_check(python, cwd=tmp_path)
    assert Path(jax_found["jax"]).is_relative_to(site), jax_found


def test_import_after_editable_install(tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    _run(python, "-m", "pip", "install", "--quiet", "-e", CORE, "-e", DUMMY)
    found = _import_check(python, cwd=tmp_path)
    # Each level spans both source trees; the plugin is imported from its own checkout.
    assert str(CORE / "src" / "dali") in found["dali"], found
    assert str(DUMMY / "src" / "dali" / "plugin") in found["plugin"], found
    assert Path(str(found["dummy"])).is_relative_to(DUMMY / "src"), found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", JAX)
    jax_found = _jax_check(python, cwd=tmp_path)
    assert Path(jax_found["jax"]).is_relative_to(JAX / "src"), jax_found
