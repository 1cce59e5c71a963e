"""Every check this repository runs, in one place.

``python3 -m nox`` runs the default sessions (core, interop, jax, clu, torch, tf, lint,
packaging, typecheck);
``python3 -m nox -s demo`` runs the demo; ``python3 -m nox -s core -- -k resize`` passes
``-k resize`` on to pytest;
``python3 -m nox -s conformance`` compares dali with real NVIDIA DALI 2.4 (not a default session).
Most sessions use the interpreter nox runs on. The oldest and the newest Python the packages
support (``OLDEST``, ``NEWEST``) each run core's tests and dali-jax's: ``core`` on the newest,
``interop`` (core without its fast paths) on the oldest, and ``jax`` on both. Each is found as
``python3.10`` on ``PATH``, pyenv's installed versions first; a missing one fails the session.

Every session installs dali-core with its default dependencies, the install users get from
``pip install dali-core`` (OpenCV, Pillow, and where wheels exist Numba and nvImageCodec's CPU
decoder); ``interop`` then removes Numba and nvImageCodec to test the fallbacks.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

import nox

nox.options.sessions = [
    "core",
    "interop",
    "jax",
    "clu",
    "torch",
    "tf",
    "lint",
    "packaging",
    "typecheck",
    "docs",
]
# Fresh virtualenvs every run, so CI never passes on a stale install.
nox.options.reuse_existing_virtualenvs = False
# A session whose Python is missing fails (nox's default outside CI is to skip it).
nox.options.error_on_missing_interpreters = True

# None: the interpreter running nox.
PYTHONS: list[str] | None = None


def _pyenv_first(*versions: str) -> None:
    """Put pyenv's newest installed ``3.10.x`` (for each version) first on ``PATH``, so that
    nox finds ``python3.10`` there rather than a pyenv shim (which fails unless that version is
    selected); nothing changes where pyenv is absent."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for version in versions:
        found = sorted(
            glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")),
            key=lambda path: [int(p) for p in path.split(os.sep)[-3].split(".") if p.isdigit()],
        )
        if found:
            os.environ["PATH"] = os.path.dirname(found[-1]) + os.pathsep + os.environ["PATH"]


# The oldest and newest Python the packages support (`requires-python` and the classifiers).
OLDEST, NEWEST = "3.10", "3.13"
_pyenv_first(OLDEST, NEWEST)

CORE = "packages/core"
JAX_PLUGIN = "packages/plugin-jax"
CLU_PLUGIN = "packages/plugin-clu"
TORCH_PLUGIN = "packages/plugin-torch"
TF_PLUGIN = "packages/plugin-tf"
# Each JAX dali-jax is tested with, and its Python: the oldest JAX dali-jax supports (its
# pyproject.toml; the first that imports with NumPy 2) on the oldest Python, the newest JAX on
# the newest Python. jaxlib is pinned alongside: old jax releases do not pull it in.
JAX_VERSIONS = [(OLDEST, "0.4.26"), (NEWEST, "0.10.2")]
# The JAX `interop` installs on the oldest Python: the newest for it (JAX 0.7 and newer need
# Python 3.11), which warned of every unaligned DLPack buffer; `interop` runs dali-jax's tests
# with it too.
INTEROP_JAX = "0.6.2"
# What the dali-clu session installs beside the three packages, pinned: CI must not change
# under us. clu 0.0.12 is the oldest dali-clu supports (its pyproject.toml) and the newest
# released; it pulls in flax (and its orbax/tensorstore), the bulk of the session's install
# time. ml_collections is a clu dependency T5X configs use; gin-config parses the T5X gin file;
# matplotlib draws the seed tutorial's image cells (tests/plugin-clu/test_seed_t5x.py).
CLU_PINS = ["jax==0.10.2", "jaxlib==0.10.2", "clu==0.0.12"]
CLU_DEPS = [*CLU_PINS, "ml_collections==1.1.0", "gin-config==0.5.0", "matplotlib==3.11.2"]
# The oldest PyTorch dali-torch supports (its pyproject.toml) and the newest tested, each with
# what it is installed beside: torchvision for the ResNet-18 example and the benchmark's peer
# (the tests skip what needs it where it is missing). Pinned: CI must not change under us.
# Both are CUDA builds from PyPI (tested on the CPU here), about 2.5 and 1.5 minutes to install.
TORCH_VERSIONS = {"2.4.1": [], "2.14.1": ["torchvision==0.29.1"]}
# The torch mypy reads dali-torch's types from: a CPU build (the one `interop` installs), small.
TYPECHECK_TORCH = "torch==2.13.0"
# The oldest TensorFlow dali-tf supports (its pyproject.toml; it comes with NumPy 1) and the
# newest, as the CPU-only wheel (the plugin installed --no-deps, as its README tells CPU users:
# its metadata asks for the `tensorflow` distribution, which would pull in the full wheel).
TF_VERSIONS = ["2.12.0", "2.21.0"]
# The dependencies of dali-core that only speed it up: without them resize runs banded BLAS
# products (`resample/band.py`) instead of Numba row passes, CMN uses OpenCV, and OpenCV
# decodes every JPEG instead of nvImageCodec's libjpeg-turbo decoder (same pixels).
FAST_PATHS = ["numba", "llvmlite", "nvidia-nvimgcodec-cu13"]
# The documentation site's builder, pinned: CI must not change under us.
DOCS_DEPS = ["mkdocs==1.6.1", "pymdown-extensions==13.1.2"]
LINT_PATHS = [
    "packages",
    "tests",
    "benchmarks",
    "examples",
    "docs/hooks.py",
    "docs/linkcheck.py",
    "noxfile.py",
]
# pytest-xdist: on the 2-core CI machine two pytest processes take core's ~2,800 tests in 2.5
# minutes instead of 5.3 (many tests wait on threads and processes), the JAX, clu and torch
# 2.14 plugin tests in 25-30 % less time; TensorFlow's took longer (its own thread pools fill
# the cores) and stay serial. Pinned: CI must not change under us.
PARALLEL = ["pytest-xdist==3.8.0"]
PARALLEL_ARGS = ["--numprocesses", "auto", "--maxprocesses", "4"]


def _install(session: nox.Session, *args: str) -> None:
    """``pip install`` into the session's venv, without byte-compiling: pip compiles every
    module of what it installs (torch, TensorFlow and JAX have tens of thousands), ~20 s of a
    torch install on the 2-core CI machine; Python compiles the few the tests import."""
    session.install("--no-compile", *args)


def _pytest(
    session: nox.Session,
    tests: str,
    *install: str,
    uninstall: Sequence[str] = (),
    doctest: str | None = None,
    parallel: bool = False,
) -> None:
    """Install ``install`` plus pytest, remove ``uninstall`` (pulled in as dependencies), then
    run pytest on ``tests`` with ``-- args`` appended; with ``doctest``, the docstring examples
    of the modules there run in the same pytest (``--doctest-modules``); ``parallel``: in
    several pytest processes (`PARALLEL`)."""
    _install(session, *install, "pytest", *(PARALLEL if parallel else []))
    if uninstall:
        session.run("python", "-m", "pip", "uninstall", "--yes", *uninstall)
    doctests = [doctest, "--doctest-modules"] if doctest else []
    xdist = PARALLEL_ARGS if parallel else []
    session.run("pytest", tests, *doctests, *xdist, *session.posargs)


@nox.session(python=NEWEST)
def core(session: nox.Session) -> None:
    """Core tests and the docstring examples of dali-core on the default install (OpenCV,
    Pillow, Numba) with nvImageCodec's CPU decoder (the `nvimgcodec` extra, which the GPU
    extras bring too), on the newest Python; gpu tests skip themselves without a GPU.

    hypothesis drives the property tests of the iterator arithmetic. (`interop` runs the same
    tests without Numba and nvImageCodec, so both CPU resampling paths and both CPU JPEG
    decoders are covered.)
    """
    # moto[server] and s3fs (pinned): the object-storage tests read from a real S3 server on
    # localhost (tests/core/ops/readers/test_storage_s3.py); without them they skip. The video
    # extra (PyAV) for the video operators' tests.
    _pytest(
        session,
        "tests/core",
        "-e",
        f"{CORE}[video,nvimgcodec,inflate,lmdb,audio,fits]",
        "hypothesis",
        "moto[server]==5.2.1",
        "s3fs==2026.9.0",
        doctest=f"{CORE}/src/dali",
        parallel=True,
    )


@nox.session(python=OLDEST)
def interop(session: nox.Session) -> None:
    """Core tests again with torch and jax installed, without Numba and nvImageCodec, on the
    oldest Python: DLPack/array inputs and outputs, the banded-BLAS resampling path and OpenCV
    JPEG decoding; then dali-jax's tests with that JAX (`INTEROP_JAX`).

    Numba is a default dependency but has no wheels on some platforms, and nvImageCodec comes
    only with extras (and only on Linux): dali-core falls back to these paths without them,
    and uninstalling them here keeps the fallbacks tested."""
    # pinned: CI must not change under us (on this Python, PyPI's torch is a CUDA build)
    _install(session, "torch==2.13.0", f"jax=={INTEROP_JAX}", f"jaxlib=={INTEROP_JAX}")
    _pytest(session, "tests/core", "-e", CORE, "hypothesis", uninstall=FAST_PATHS, parallel=True)
    _install(session, "--no-deps", "-e", JAX_PLUGIN)
    session.run("pytest", "tests/plugin-jax", *PARALLEL_ARGS, *session.posargs)


@nox.session
@nox.parametrize(("python", "jax_version"), JAX_VERSIONS)
def jax(session: nox.Session, jax_version: str) -> None:
    """dali-jax tests (4 fake CPU devices, a 2-process jax.distributed job) and the docstring
    examples of dali-jax, on each JAX and its Python (`JAX_VERSIONS`)."""
    _install(session, f"jax=={jax_version}", f"jaxlib=={jax_version}")
    _pytest(session, "tests/plugin-jax", "-e", CORE, "-e", JAX_PLUGIN, parallel=True)
    # The docstring examples in a pytest of their own: `dali` is a namespace package across
    # distributions, and pytest names the plugin's modules `dali.plugin.jax.*`
    # rather than `jax.*` (JAX's name) only with consider_namespace_packages, an option that
    # would also rename the test modules after the folders above them (tests/ has no packages).
    session.run(
        "pytest",
        f"{JAX_PLUGIN}/src/dali/plugin/jax",
        "--doctest-modules",
        "-o",
        "consider_namespace_packages=true",
    )


@nox.session(python=PYTHONS)
def clu(session: nox.Session) -> None:
    """dali-clu tests with the real clu package (4 fake CPU devices, a 2-process
    jax.distributed job, the T5X/Pax entry points) and the docstring examples of dali-clu."""
    _pytest(
        session,
        "tests/plugin-clu",
        "-e",
        CORE,
        "-e",
        JAX_PLUGIN,
        "-e",
        CLU_PLUGIN,
        *CLU_DEPS,
        parallel=True,
    )
    # as in `jax`: the namespace package needs consider_namespace_packages for the doctests
    session.run(
        "pytest",
        f"{CLU_PLUGIN}/src/dali/plugin/jax/clu",
        "--doctest-modules",
        "-o",
        "consider_namespace_packages=true",
    )


@nox.session(python=PYTHONS)
@nox.parametrize("torch_version", list(TORCH_VERSIONS))
def torch(session: nox.Session, torch_version: str) -> None:
    """dali-torch tests (CPU torch: iterators, a 2-process gloo job, the examples and the
    seed-002 benchmark in its quick mode) and the docstring examples of dali-torch, on each
    PyTorch."""
    extra = TORCH_VERSIONS[torch_version]
    _pytest(
        session,
        "tests/plugin-torch",
        "-e",
        f"{CORE}[audio]",  # the speech example's clips are written with soundfile
        "-e",
        TORCH_PLUGIN,
        f"torch=={torch_version}",
        *extra,
        parallel=True,
    )
    # as in `jax`: the namespace package needs consider_namespace_packages for the doctests
    session.run(
        "pytest",
        f"{TORCH_PLUGIN}/src/dali/plugin/pytorch",
        "--doctest-modules",
        "-o",
        "consider_namespace_packages=true",
    )


@nox.session(python=PYTHONS)
@nox.parametrize("tf_version", TF_VERSIONS)
def tf(session: nox.Session, tf_version: str) -> None:
    """dali-tf tests on CPU TensorFlow (datasets, input datasets, tf.distribute over 2 logical
    CPUs, tf.train.Checkpoint, Keras fit, the example and the benchmark's quick mode) and the
    docstring examples of dali-tf, on each TensorFlow."""
    _install(session, "-e", CORE, f"tensorflow-cpu=={tf_version}", "pytest")
    _install(session, "--no-deps", "-e", TF_PLUGIN)
    session.run("pytest", "tests/plugin-tf", *session.posargs)
    # as in `jax`: the namespace package needs consider_namespace_packages for the doctests
    session.run(
        "pytest",
        f"{TF_PLUGIN}/src/dali/plugin/tf",
        "--doctest-modules",
        "-o",
        "consider_namespace_packages=true",
    )


@nox.session(python=PYTHONS)
def lint(session: nox.Session) -> None:
    """ruff lint and format check (settings in the root pyproject.toml)."""
    _install(session, "ruff==0.17.6")  # pinned: ruff's default rules change between releases
    session.run("ruff", "check", *LINT_PATHS)
    session.run("ruff", "format", "--check", *LINT_PATHS)


@nox.session(python=PYTHONS)
def typecheck(session: nox.Session) -> None:
    """mypy over the five packages (settings in the root pyproject.toml), after the stub
    tests: the committed `dali.fn`/`dali.ops` stubs are current, and a user program
    type-checks with them.

    dali-clu's dependencies are installed (the `clu` session's pins of JAX and clu): mypy
    reads clu's and etils' sources for their types (they ship no py.typed); and a CPU torch
    for dali-torch's; PyAV (the `video` extra: it ships types) for the video operators.
    TensorFlow ships no types (mypy's config ignores it): not installed.
    """
    # mypy pinned: each release finds new errors.
    plugins = ["-e", JAX_PLUGIN, "-e", CLU_PLUGIN, "-e", TORCH_PLUGIN, *CLU_PINS, TYPECHECK_TORCH]
    _pytest(
        session, "tests/core/graph/test_stubs.py", "-e", f"{CORE}[video]", *plugins, "mypy==2.4.1"
    )
    session.run("mypy")


@nox.session(python=PYTHONS)
def packaging(session: nox.Session) -> None:
    """Build every wheel, install it (wheel and editable) into fresh venvs, import it; run a CPU
    image pipeline on the core wheel's default install (its fast paths active on Linux)."""
    _pytest(session, "tests/packaging")


@nox.session(python=PYTHONS)
def docs(session: nox.Session) -> None:
    """The documentation site (MkDocs, ``mkdocs.yml``) built with warnings as errors: every
    internal link and included file checked; the compatibility page must be current."""
    _install(session, "-e", CORE, *DOCS_DEPS)
    session.run("python", "-m", "dali.tools.compatibility", "--check")
    _build_site(session)


def _build_site(session: nox.Session) -> str:
    """``mkdocs build --strict`` into the session's temporary folder; returns the site's path."""
    site = str(Path(session.create_tmp()) / "site")
    session.run("mkdocs", "build", "--strict", "--site-dir", site)
    return site


@nox.session(python=PYTHONS, default=False)
def build(session: nox.Session) -> None:
    """The wheels and source distributions of the five packages, into ``dist/`` (not default;
    `packaging` builds and installs them in its tests)."""
    _install(session, "build==1.6.1")  # pinned: CI must not change under us
    for package in (CORE, JAX_PLUGIN, CLU_PLUGIN, TORCH_PLUGIN, TF_PLUGIN):
        session.run("python", "-m", "build", "--outdir", "dist", package)


@nox.session(python=PYTHONS, default=False)
def linkcheck(session: nox.Session) -> None:
    """The documentation site's external links, each asked for (not default: it needs the
    network, which CI lacks; `docs` checks every link inside the site)."""
    _install(session, "-e", CORE, *DOCS_DEPS)
    session.run("python", "docs/linkcheck.py", _build_site(session))


@nox.session(python=PYTHONS)
def demo(session: nox.Session) -> None:
    """Run the demo pipeline; it saves a picture of one batch to demo_batch.png."""
    _install(session, "-e", CORE)
    session.run("python", "examples/demo.py", *session.posargs)


@nox.session(python=PYTHONS, default=False)
def conformance(session: nox.Session) -> None:
    """Run the same pipelines through real NVIDIA DALI 2.4 and dali, and compare (not default).

    DALI runs CPU-only (device_id=None), so no GPU is needed. Prints one line per case and ends
    with ``N passed, M failed``; ``-- -k resize`` selects cases (tests/conformance/README.md).
    """
    _install(
        session, "-e", f"{CORE}[video,lmdb,audio,fits]", "nvidia-dali-cuda130==2.4.0", "pytest"
    )
    session.run("python", "tests/conformance/run.py", *session.posargs)
    if not session.posargs:  # the operator names `dali.fn`/`dali.ops` answer for are DALI's
        session.run("python", "-m", "pytest", "-q", "tests/core/graph/test_catalogue.py")


@nox.session(python=PYTHONS, default=False)
def bench(session: nox.Session) -> None:
    """CPU benchmarks side by side with real NVIDIA DALI 2.4 in the same process (not default).

    DALI runs CPU-only (device_id=None), so no GPU is needed. dali-core is installed as
    ``pip install dali-core`` installs it (a wheel, no extras), so the tables are those of the
    default install; NVIDIA DALI adds only its own dependencies (nvImageCodec's GPU
    extensions among them, which the CPU pipelines do not load).
    """
    _install(session, CORE, "nvidia-dali-cuda130==2.4.0")
    session.run("python", "benchmarks/overhead.py", *session.posargs)
    # decode / quickstart / ResNet-50 on an ImageNet-like JPEG set (generated and cached once)
    session.run("python", "benchmarks/image_cpu.py")


@nox.session(python=PYTHONS, name="bench-gpu", default=False)
def bench_gpu(session: nox.Session) -> None:
    """The GPU ResNet-50 input pipeline benchmark on one CUDA GPU (not default; needs a GPU).

    Raw nvImageCodec batch decode (the ceiling), this library's pipeline and torchvision, in one
    process on the same generated JPEGs; ``-- --sweep`` adds the ``hw_decoder_load`` sweep.
    """
    _install(session, "-e", f"{CORE}[cuda13]", "nvidia-nvjpeg", "torch", "torchvision")
    session.run("python", "benchmarks/gpu_resnet.py", *session.posargs)
