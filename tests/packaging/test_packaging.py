"""Wheels ship only their own level, and ``dali.plugin.*`` imports after wheel and editable installs.

Core owns the only ``dali/__init__.py`` and ``dali/plugin/__init__.py`` and both begin with
``pkgutil.extend_path``; a plugin ships only ``dali/plugin/<name>/``. A plain ``__init__.py`` in
core still passes the wheel install (both wheels unpack into one ``site-packages/dali/``) but
breaks the editable install, where core and plugin live in two source trees: hence both
installs are tested, each in a fresh venv. dali-clu goes one level further: it
ships only ``dali/plugin/jax/clu/`` under dali-jax's ``dali/plugin/jax/`` (a namespace too),
and is found there beside dali-jax from wheels and from three editable source trees.

``pip install dali-core`` alone must give a working CPU image pipeline with the fast paths the
benchmarks measure (Numba resampling and normalisation, nvImageCodec's CPU JPEG decoder) where
their wheels exist: the core wheel, installed without extras into a fresh venv (dependencies
from its metadata only), runs the seed quickstart plus ``crop_mirror_normalize`` there.
"""

from __future__ import annotations

import json
import os
import platform
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
CLU = REPO / "packages" / "plugin-clu"
TORCH = REPO / "packages" / "plugin-torch"
TF = REPO / "packages" / "plugin-tf"
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


# The torch plugin, installed without torch (``--no-deps``: torch is large and the `torch` nox
# session tests the plugin with it): where Python finds ``dali.plugin.pytorch`` and the
# ImportError its import gives, which must say what to install.
TORCH_CHECK = JAX_CHECK.replace("dali.plugin.jax", "dali.plugin.pytorch").replace(
    '"jax": spec', '"torch": spec'
)


# The same for the TensorFlow plugin.
TF_CHECK = JAX_CHECK.replace("dali.plugin.jax", "dali.plugin.tf").replace(
    '"jax": spec', '"tf": spec'
)


# The clu plugin, installed without its dependencies (``--no-deps``: JAX, clu and flax are
# large, and the `clu` nox session tests the plugin with them): where the import system finds
# ``dali.plugin.jax.clu``. ``import dali.plugin.jax`` needs JAX, so the search is the one
# that import would make: in the directories dali-jax's ``__init__.py`` (a pkgutil namespace)
# gives ``dali.plugin.jax.__path__``. Where JAX and clu are installed, the real import.
CLU_CHECK = """
import importlib.machinery
import importlib.util
import json
import pkgutil

import dali.plugin

if importlib.util.find_spec("jax") and importlib.util.find_spec("clu"):
    import dali.plugin.jax.clu
    origin, imported = dali.plugin.jax.clu.__file__, True
else:
    path = pkgutil.extend_path([], "dali.plugin.jax")  # dali/plugin/jax/__init__.py's
    spec = importlib.machinery.PathFinder.find_spec("dali.plugin.jax.clu", path)
    origin, imported = spec.origin, False
print(json.dumps({"clu": origin, "imported": imported}))
"""


# Run in the venv of the default install, with a folder for the images as argv[1]: what
# ``import dali`` loads, then readers.file -> decoders.image (cpu) -> resize ->
# crop_mirror_normalize on a few JPEGs, counting the calls that reach each fast path and
# each fallback.
DEFAULT_PIPELINE = """
import json
import sys

import dali
import dali.fn as fn
import dali.types as types

heavy = ("cupy", "cuda", "numba", "llvmlite", "cv2", "PIL", "nvidia", "torch", "jax")
imported = sorted({m.split(".")[0] for m in sys.modules} & set(heavy))

from pathlib import Path

import numpy as np
from PIL import Image
from dali._ops.decoders.image import codecs as _codecs
from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec
from dali._ops.image import _cmn_jit
from dali._ops.image.resample import band, jit

root = Path(sys.argv[1])
rng = np.random.default_rng(0)
sizes = [(120, 160), (97, 131), (200, 150)]
for label in ("a", "b"):
    (root / label).mkdir(parents=True)
    for i, (h, w) in enumerate(sizes):
        y, x = np.mgrid[:h, :w]
        img = np.stack([x * 255 // w, y * 255 // h, (x + y) % 256], axis=-1).astype(np.uint8)
        img = np.clip(img + rng.integers(-20, 20, img.shape), 0, 255).astype(np.uint8)
        Image.fromarray(img).save(root / label / f"{i}.jpg", quality=90)

calls = dict.fromkeys(["numba_resize", "numba_cmn", "nvimgcodec_decoded", "blas_resize",
                       "opencv_decode"], 0)

def counted(module, name, key, count=lambda result: 1):
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        calls[key] += count(result)
        return result

    setattr(module, name, wrapper)

counted(jit, "resample_2d", "numba_resize")
counted(_cmn_jit, "normalize", "numba_cmn")
counted(_cpu_nvimgcodec.HostDecoders, "decode", "nvimgcodec_decoded", lambda ok: int(ok.sum()))
counted(band, "resample_2d", "blas_resize")  # the fallbacks
counted(_codecs, "decode", "opencv_decode")

MEAN, STD = [120.0, 110.0, 100.0], [60.0, 50.0, 40.0]

@dali.pipeline_def(batch_size=6, num_threads=2, device_id=None, seed=1)
def pipe():
    jpegs, labels = fn.readers.file(file_root=str(root))
    images = fn.decoders.image(jpegs, device="cpu")
    resized = fn.resize(images, resize_x=64, resize_y=48)
    out = fn.crop_mirror_normalize(
        resized, crop=(32, 32), mean=MEAN, std=STD, mirror=1,
        dtype=types.FLOAT16, output_layout="CHW",
    )
    return resized, out, labels

p = pipe()
p.build()
resized, out, labels = (o.as_array() for o in p.run())
del p  # stops the prefetching threads (the counts may include the next batches)
# the centre 32x32 of each 48x64 image, mirrored, normalised: CMN's output
window = resized[:, 8:40, 16:48, :][:, :, ::-1, :].astype(np.float32)
expected = ((window - np.float32(MEAN)) / np.float32(STD)).transpose(0, 3, 1, 2)
print(json.dumps({
    "imported_by_import_dali": imported,
    "resized": [list(resized.shape), str(resized.dtype)],
    "out": [list(out.shape), str(out.dtype)],
    "labels": labels.ravel().tolist(),
    "cmn_matches": bool(np.allclose(out.astype(np.float32), expected, rtol=1e-3, atol=1e-3)),
    "fast_paths": {
        "numba": jit.available(),
        "nvimgcodec_cpu": _cpu_nvimgcodec.enabled(),
        "calls": calls,
    },
}))
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


def _torch_check(python: Path, cwd: Path) -> dict[str, str]:
    found = json.loads(_run(python, "-c", TORCH_CHECK, cwd=cwd).splitlines()[-1])
    assert "pip install dali-torch" in found["error"], found
    return found


def _tf_check(python: Path, cwd: Path) -> dict[str, str]:
    found = json.loads(_run(python, "-c", TF_CHECK, cwd=cwd).splitlines()[-1])
    assert "pip install dali-tf" in found["error"], found
    return found


def _clu_check(python: Path, cwd: Path) -> str:
    """Where ``dali.plugin.jax.clu`` is found (its ``__init__.py``)."""
    found = json.loads(_run(python, "-c", CLU_CHECK, cwd=cwd).splitlines()[-1])
    assert found["clu"] and Path(found["clu"]).name == "__init__.py", found
    return str(found["clu"])


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    for project in (CORE, DUMMY, JAX, CLU, TORCH, TF):
        _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, project)
    (core,) = out.glob("dali_core-*.whl")
    (dummy,) = out.glob("dali_plugin_dummy-*.whl")
    (jax,) = out.glob("dali_jax-*.whl")
    (clu,) = out.glob("dali_clu-*.whl")
    (torch,) = out.glob("dali_torch-*.whl")
    (tf,) = out.glob("dali_tf-*.whl")
    return {"core": core, "dummy": dummy, "jax": jax, "clu": clu, "torch": torch, "tf": tf}


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


def _ships_exactly_its_subpackage(wheel: Path, project: Path, package: str) -> set[str]:
    """The files of a plugin's wheel, checked to be exactly its ``package`` folder's sources
    (nothing above it: the folders above belong to dali-core)."""
    files = set(_files(wheel))
    prefix = package.replace(".", "/") + "/"
    above = sorted(name for name in files if not name.startswith(prefix))
    assert above == [], f"{wheel.name} ships files above {prefix}: {above}"
    src = project / "src"
    expected = {
        p.relative_to(src).as_posix()
        for p in src.joinpath(*package.split(".")).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected == files, f"differs from the source: {sorted(expected ^ files)}"
    assert f"{prefix}__init__.py" in files and f"{prefix}py.typed" in files
    return files


def _pins_core(wheel: Path) -> list[str]:
    """The wheel's requirements, checked to pin dali-core to its own release."""
    requires = _requires(wheel)
    version = _version(CORE)
    assert f"dali-core=={version}" in requires, requires
    return requires


def test_jax_wheel_ships_only_dali_plugin_jax(wheels: dict[str, Path]) -> None:
    files = _ships_exactly_its_subpackage(wheels["jax"], JAX, "dali.plugin.jax")
    assert "dali/plugin/jax/fn/__init__.py" in files
    # a namespace too, so that dali-clu can add dali/plugin/jax/clu/ from an editable install
    assert _first_line(wheels["jax"], "dali/plugin/jax/__init__.py") == EXTEND_PATH
    assert any(r.startswith("jax>=") for r in _pins_core(wheels["jax"]))


def test_clu_wheel_ships_only_dali_plugin_jax_clu(wheels: dict[str, Path]) -> None:
    _ships_exactly_its_subpackage(wheels["clu"], CLU, "dali.plugin.jax.clu")
    # the metadata pins the two distributions it builds on
    requires = _pins_core(wheels["clu"])
    version = _version(JAX)
    assert f"dali-jax=={version}" in requires, requires
    assert any(r.startswith("clu") for r in requires), requires


def test_torch_wheel_ships_only_dali_plugin_pytorch(wheels: dict[str, Path]) -> None:
    files = _ships_exactly_its_subpackage(wheels["torch"], TORCH, "dali.plugin.pytorch")
    for name in ("fn/__init__.py", "torch_utils.py", "distributed.py"):
        assert f"dali/plugin/pytorch/{name}" in files
    assert any(r.startswith("torch>=") for r in _pins_core(wheels["torch"]))


def test_tf_wheel_ships_only_dali_plugin_tf(wheels: dict[str, Path]) -> None:
    files = _ships_exactly_its_subpackage(wheels["tf"], TF, "dali.plugin.tf")
    assert "dali/plugin/tf/experimental.py" in files
    assert any(r.startswith("tensorflow>=") for r in _pins_core(wheels["tf"]))


def _requires(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` entries of a wheel's metadata, spaces removed."""
    with zipfile.ZipFile(wheel) as zf:
        (metadata,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        lines = zf.read(metadata).decode().splitlines()
    prefix = "Requires-Dist:"
    return [line[len(prefix) :].replace(" ", "") for line in lines if line.startswith(prefix)]


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
    # dali-clu beside dali-jax: one dali/plugin/jax/ folder, dali-jax's __init__.py untouched
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheels["clu"])
    clu_found = _clu_check(python, cwd=tmp_path)
    assert Path(clu_found).parent.parent == Path(jax_found["jax"]).parent, (clu_found, jax_found)
    assert _jax_check(python, cwd=tmp_path) == jax_found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheels["torch"])
    torch_found = _torch_check(python, cwd=tmp_path)
    assert Path(torch_found["torch"]).is_relative_to(site), torch_found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheels["tf"])
    tf_found = _tf_check(python, cwd=tmp_path)
    assert Path(tf_found["tf"]).is_relative_to(site), tf_found


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
    # dali-clu from its own checkout, under dali-jax's namespace from another
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", CLU)
    clu_found = _clu_check(python, cwd=tmp_path)
    assert Path(clu_found).is_relative_to(CLU / "src"), clu_found
    assert _jax_check(python, cwd=tmp_path) == jax_found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", TORCH)
    torch_found = _torch_check(python, cwd=tmp_path)
    assert Path(torch_found["torch"]).is_relative_to(TORCH / "src"), torch_found
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", TF)
    tf_found = _tf_check(python, cwd=tmp_path)
    assert Path(tf_found["tf"]).is_relative_to(TF / "src"), tf_found


def test_default_install_runs_a_cpu_image_pipeline(wheels: dict[str, Path], tmp_path: Path) -> None:
    """The core wheel without extras, its dependencies resolved from its metadata alone."""
    python = _fresh_venv(tmp_path / "venv")
    _run(python, "-m", "pip", "install", "--quiet", wheels["core"])
    (tmp_path / "images").mkdir()
    result = json.loads(
        _run(python, "-c", DEFAULT_PIPELINE, tmp_path / "images", cwd=tmp_path).splitlines()[-1]
    )
    print("fast paths of the default install:", result["fast_paths"])
    # With every default dependency installed, ``import dali`` still loads none
    assert result["imported_by_import_dali"] == [], result
    assert result["resized"] == [[6, 48, 64, 3], "uint8"], result
    assert result["out"] == [[6, 3, 32, 32], "float16"], result
    assert result["labels"] == [0, 0, 0, 1, 1, 1], result
    assert result["cmn_matches"], result
    # Where the markers of packages/core/pyproject.toml install Numba, the pipeline runs on it:
    # at least the batch's 6 samples (prefetching may have begun the next batches) through
    # each fast path, none through a fallback. JPEGs are OpenCV's: nvImageCodec comes with
    # the extras only (`test_cuda12_installs_one_nvimgcodec`).
    fast = result["fast_paths"]
    assert not fast["nvimgcodec_cpu"] and fast["calls"]["opencv_decode"] >= 6, fast
    if (
        sys.platform == "linux"
        and platform.machine() in ("x86_64", "aarch64")
        and sys.version_info < (3, 15)
    ):
        assert fast["numba"], fast
        calls = fast["calls"]
        for path in ("numba_resize", "numba_cmn"):
            assert calls[path] >= 6, fast
        assert calls["blas_resize"] == 0, fast


@pytest.mark.skipif(
    not (sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")),
    reason="nvImageCodec has Linux wheels only",
)
def test_cuda12_installs_one_nvimgcodec(wheels: dict[str, Path], tmp_path: Path) -> None:
    """``dali-core[cuda12]`` in a fresh environment: nvImageCodec's CUDA 12 build and no other
    (the CUDA 12 and 13 wheels unpack into one folder), and its CPU decoder decodes the CPU
    pipeline's JPEGs (no GPU needed)."""
    python = _fresh_venv(tmp_path / "venv")
    _run(python, "-m", "pip", "install", "--quiet", f"{wheels['core']}[cuda12]")
    listed = json.loads(_run(python, "-m", "pip", "list", "--format", "json"))
    codecs = sorted(p["name"] for p in listed if p["name"].startswith("nvidia-nvimgcodec"))
    assert codecs == ["nvidia-nvimgcodec-cu12"], codecs
    (tmp_path / "images").mkdir()
    result = json.loads(
        _run(python, "-c", DEFAULT_PIPELINE, tmp_path / "images", cwd=tmp_path).splitlines()[-1]
    )
    fast = result["fast_paths"]
    assert result["resized"] == [[6, 48, 64, 3], "uint8"], result
    assert fast["nvimgcodec_cpu"] and fast["calls"]["nvimgcodec_decoded"] >= 6, fast


def _project_field(pyproject: Path, pattern: str) -> str:
    """One value of a pyproject.toml, by a regular expression (tomllib is Python 3.11+)."""
    import re

    found = re.search(pattern, pyproject.read_text(), re.MULTILINE)
    assert found is not None, f"{pattern!r} not in {pyproject}"
    return found.group(1)


#: Where each distribution's version is written (once: hatch reads it from there).
VERSION_FILES = {
    CORE: "src/dali/__init__.py",
    JAX: "src/dali/plugin/jax/__init__.py",
    CLU: "src/dali/plugin/jax/clu/__init__.py",
    TORCH: "src/dali/plugin/pytorch/__init__.py",
    TF: "src/dali/plugin/tf/__init__.py",
}


def _version(project: Path) -> str:
    path = _project_field(
        project / "pyproject.toml", r'^\[tool\.hatch\.version\]\npath = "([^"]+)"'
    )
    assert path == VERSION_FILES[project]
    return _project_field(project / path, r'^__version__ = "([^"]+)"')


def test_every_distribution_has_one_version_and_its_licence() -> None:
    versions = {project.name: _version(project) for project in VERSION_FILES}
    assert len(set(versions.values())) == 1, versions  # released together
    licence = (REPO / "LICENSE").read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    for project in VERSION_FILES:
        assert (project / "LICENSE").read_text() == licence, project
        text = (project / "pyproject.toml").read_text()
        assert 'license = "Apache-2.0"' in text and 'license-files = ["LICENSE"]' in text


def test_wheel_metadata(wheels: dict[str, Path]) -> None:
    """What ``pip show`` prints: version, licence, author; the licence file inside."""
    for key in ("core", "jax", "clu", "torch", "tf"):
        with zipfile.ZipFile(wheels[key]) as zf:
            (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
            text = zf.read(meta).decode()
            assert any(n.endswith("licenses/LICENSE") for n in zf.namelist()), key
        fields = dict(
            line.split(": ", 1) for line in text.split("\n\n")[0].splitlines() if ": " in line
        )
        assert fields["Version"] == _version(CORE), key
        assert fields["License-Expression"] == "Apache-2.0", key
        assert fields["Author"] == "The dali authors", key
        assert "Programming Language :: Python :: 3.13" in text, key


def test_plugins_pin_core_to_their_own_release() -> None:
    """A plugin uses core's author API, which may change between releases: each plugin names
    exactly the core release it was built with."""
    version = _version(CORE)
    plugins = sorted((REPO / "packages").glob("plugin-*"))
    assert {p.name for p in plugins} >= {"plugin-jax", "plugin-clu", "plugin-torch", "plugin-tf"}
    for plugin in plugins:
        deps = _project_field(plugin / "pyproject.toml", r"^dependencies = \[(.*)\]")
        assert f'"dali-core=={version}"' in deps, f"{plugin.name}: {deps}"


def test_clu_pins_jax_to_its_own_release() -> None:
    """dali-clu extends dali-jax's iterator through its public extension points, which may
    change between releases: it names exactly the dali-jax release it was built with."""
    version = _version(JAX)
    deps = _project_field(CLU / "pyproject.toml", r"^dependencies = \[(.*)\]")
    assert f'"dali-jax=={version}"' in deps, deps
