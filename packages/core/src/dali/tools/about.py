"""``python -m dali``: what this installation is and which of its fast paths are active.

It prints, in sections:

* **dali**: the version of every installed dali distribution (``dali-core`` and the plugins);
* **host**: Python, the platform, the cores this process may use (what ``num_threads`` and the
  CPU worker processes are measured against);
* **fast paths**: each optional library that makes a path fast or possible, whether it loads
  and its version, and what it is for (Numba's kernels, nvImageCodec's CPU and GPU decoders,
  OpenCV, CuPy, PyAV, ...);
* **GPUs**: each visible device (name, memory, compute capability) and the driver and CUDA
  runtime versions, when CuPy can see them;
* **environment**: every environment variable the library reads, its value here and what it
  does.

Nothing here starts a pipeline; it imports the optional libraries to ask their versions (CuPy
and nvImageCodec's C library are loaded, not initialised on a device beyond the queries).

Example:
    >>> text = report()
    >>> text.splitlines()[0].startswith("dali")
    True
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import sys
from collections.abc import Callable

__all__ = ["ENVIRONMENT", "main", "report"]

#: Every environment variable the library reads, and what it does.
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    (
        "DALI_PROFILE",
        (
            "1: record every operator run and print per-step and per-stage times when a "
            "pipeline closes; gil: also measure how long Python threads wait for the "
            "interpreter lock"
        ),
    ),
    (
        "DALI_TRACE",
        (
            "a file name: write a Chrome/Perfetto trace of every pipeline there when it closes "
            "(one track per thread; worker processes write <name>.<pid>.json); NVTX ranges too "
            "when the nvtx package is installed"
        ),
    ),
    (
        "DALI_CPU_JPEG_DECODER",
        "nvimgcodec (default where installed) or opencv: the CPU image decoder's JPEG library",
    ),
    (
        "DALI_NVIMGCODEC_DEBUG",
        "1 or all: nvImageCodec's own log messages (warnings and errors, or everything)",
    ),
    (
        "DALI_CACHE_DIR",
        (
            "the folder of the library's caches (readers.coco's parsed annotations in its "
            "coco/); default $XDG_CACHE_HOME/dali, that is ~/.cache/dali"
        ),
    ),
    (
        "DALI_COCO_CACHE",
        "0: readers.coco parses its annotations file at every build, without the cache",
    ),
)

#: (import name, distribution, what it is for) of the optional libraries.
_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("numba", "numba", "compiled CPU kernels (resize, crop-mirror-normalize, filters, ...)"),
    ("cv2", "opencv-python-headless", "CPU image decoding and warps"),
    ("PIL", "Pillow", "image formats OpenCV lacks"),
    ("cupy", "cupy", "every GPU operator"),
    ("av", "av", "readers.video and decoders.video on the CPU (PyAV, FFmpeg)"),
    ("PyNvVideoCodec", "PyNvVideoCodec", "video decoding on NVDEC"),
    ("lz4", "lz4", "decoders.inflate's LZ4 blocks"),
    ("soundfile", "soundfile", "decoders.audio (libsndfile)"),
    ("lmdb", "lmdb", "readers.caffe and readers.caffe2"),
    ("fsspec", "fsspec", "readers on s3://, gs:// and other URLs"),
)


def _distributions() -> list[tuple[str, str]]:
    found = []
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        if name.lower().replace("_", "-").startswith("dali-"):
            found.append((name, dist.version))
    return sorted(set(found))


def _version(module: str, dist: str) -> str:
    try:
        mod = importlib.import_module(module)
    except Exception as e:  # noqa: BLE001 - a broken install is reported, not raised
        if isinstance(e, ImportError):
            return "not installed"
        return f"fails to import ({type(e).__name__}: {e})"
    version = getattr(mod, "__version__", None)
    if version is None:
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "installed"
    return str(version)


def _nvimgcodec() -> list[tuple[str, str, str]]:
    from dali._ops.decoders.nvimgcodec import capi, cpu

    version = capi.installed_version()
    if capi.library_dir() is None or version is None:
        where = "not installed"
    else:
        where = version if capi.available() else f"{version}, but its C library does not load"
    try:
        cpu_state = "active" if cpu.enabled() else "off"
    except ValueError as e:  # a bad DALI_CPU_JPEG_DECODER value
        cpu_state = str(e)
    return [
        ("nvImageCodec", where, "the mixed image decoders (nvJPEG, NVJPG hardware decoder)"),
        ("  its CPU JPEG decoder", cpu_state, "region decodes of the CPU random-crop decoders"),
    ]


def _gpus() -> list[str]:
    try:
        import cupy
    except ImportError:
        return ["CuPy is not installed: no GPU operators (pip install 'dali-core[cuda13]')"]
    try:
        runtime = cupy.cuda.runtime
        count = runtime.getDeviceCount()
        driver, rt = runtime.driverGetVersion(), runtime.runtimeGetVersion()
        head = (
            f"driver CUDA {driver // 1000}.{driver % 1000 // 10}, "
            f"runtime CUDA {rt // 1000}.{rt % 1000 // 10}, {count} device(s)"
        )
        lines = [head]
        for k in range(count):
            props = runtime.getDeviceProperties(k)
            name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            lines.append(
                f"GPU {k}: {name}, {props['totalGlobalMem'] / 2**30:.0f} GiB, "
                f"compute capability {props['major']}.{props['minor']}"
            )
        return lines
    except Exception as e:  # noqa: BLE001 - no driver, no device: said, not raised
        return [f"no GPU visible ({type(e).__name__}: {e})"]


def _table(rows: list[tuple[str, str, str]]) -> list[str]:
    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    return [f"  {a:<{width}}  {b:<{vwidth}}  {c}" for a, b, c in rows]


def report(gpus: Callable[[], list[str]] = _gpus) -> str:
    """The text ``python -m dali`` prints (see the module docstring)."""
    from dali._exec.affinity import usable_cores

    lines = ["dali"]
    dists = _distributions()
    if dists:
        lines += [f"  {name} {version}" for name, version in dists]
    else:  # a source checkout on sys.path, not installed
        import dali

        lines.append(f"  dali (not installed as a distribution) {dali.__version__}")
    lines += [
        "host",
        f"  Python {platform.python_version()} ({sys.executable})",
        f"  {platform.platform()}",
        f"  {usable_cores()} usable cores of {os.cpu_count()}",
        "fast paths",
    ]
    rows = [(module, _version(module, dist), what) for module, dist, what in _LIBRARIES]
    rows += _nvimgcodec()
    lines += _table(rows)
    lines.append("GPUs")
    lines += [f"  {line}" for line in gpus()]
    lines.append("environment")
    lines += _table([(name, os.environ.get(name, "(not set)"), what) for name, what in ENVIRONMENT])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print `report` (``python -m dali`` and ``python -m dali.tools.about``)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m dali",
        description="Which dali distributions, fast paths, GPUs and settings this Python has.",
    )
    parser.parse_args(argv)
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
