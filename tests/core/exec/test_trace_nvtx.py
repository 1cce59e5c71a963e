"""With ``DALI_TRACE`` set and the ``nvtx`` package installed, every recorded span is also an
NVTX range (``"<stage> <iteration>: <operator>"``), so that Nsight Systems shows the pipeline's
stages and operators on its timeline.

The first test replaces the ``nvtx`` module with a recorder (it runs everywhere); the second
runs a pipeline under Nsight Systems itself (``nsys profile --trace=nvtx``) and reads the ranges
back from its report: it runs where ``nsys`` is on ``PATH`` and ``nvtx`` is installed.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import types

import numpy as np
import pytest
from dali import fn, pipeline_def


def _pipe():
    @pipeline_def(batch_size=2, num_threads=2, device_id=None, seed=1)
    def pipe():
        data = fn.external_source(lambda: [np.zeros((4, 4), np.float32)] * 2, name="src")
        return fn.cast(data * 2, dtype=np.int32, name="double")

    return pipe()


class _Recorder:
    """Stands in for the ``nvtx`` module: what each thread pushed and popped, in order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[int, str, str | None]] = []

    def push_range(self, message: str) -> None:
        with self.lock:
            self.events.append((threading.get_ident(), "push", message))

    def pop_range(self) -> None:
        with self.lock:
            self.events.append((threading.get_ident(), "pop", None))


def test_every_traced_span_is_a_balanced_nvtx_range(tmp_path, monkeypatch):
    recorder = _Recorder()
    module = types.ModuleType("nvtx")
    module.push_range = recorder.push_range  # type: ignore[attr-defined]
    module.pop_range = recorder.pop_range  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nvtx", module)
    monkeypatch.setenv("DALI_TRACE", str(tmp_path / "trace.json"))
    p = _pipe()
    for _ in range(3):
        p.run()
    p.close()
    depth: dict[int, int] = {}
    names = []
    for thread, kind, message in recorder.events:
        depth[thread] = depth.get(thread, 0) + (1 if kind == "push" else -1)
        assert depth[thread] >= 0, "a range popped that this thread did not push"
        if message is not None:
            names.append(message)
    assert all(d == 0 for d in depth.values()), "ranges left open"
    for iteration in range(3):
        assert f"source {iteration}: src" in names
        assert f"cpu {iteration}: double" in names


def test_no_nvtx_range_without_a_trace(monkeypatch):
    recorder = _Recorder()
    module = types.ModuleType("nvtx")
    module.push_range = recorder.push_range  # type: ignore[attr-defined]
    module.pop_range = recorder.pop_range  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nvtx", module)
    monkeypatch.delenv("DALI_TRACE", raising=False)
    monkeypatch.delenv("DALI_PROFILE", raising=False)
    p = _pipe()
    p.run()
    p.close()
    assert recorder.events == []


_NSYS = shutil.which("nsys")


def _has_nvtx() -> bool:
    try:
        import nvtx  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(_NSYS is None or not _has_nvtx(), reason="needs nsys and the nvtx package")
@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_nsight_systems_shows_the_pipeline_ranges(tmp_path, device):
    script = tmp_path / "run.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import numpy as np
            from dali import fn, pipeline_def

            @pipeline_def(batch_size=2, num_threads=2, device_id={0 if device == "gpu" else None})
            def pipe():
                data = fn.external_source(lambda: [np.zeros((4, 4), np.float32)] * 2, name="src")
                data = data.gpu() if {device == "gpu"} else data
                return fn.cast(data * 2, dtype=np.int32, name="double")

            p = pipe()
            for _ in range(3):
                p.run()
            p.close()
            """
        )
    )
    env = dict(os.environ, DALI_TRACE=str(tmp_path / "trace.json"))
    report = tmp_path / "report"
    assert _NSYS is not None
    subprocess.run(
        [_NSYS, "profile", "--trace=nvtx", "--sample=none", "--cpuctxsw=none",
         "--output", str(report), sys.executable, str(script)],
        check=True, env=env, capture_output=True, timeout=300,
    )  # fmt: skip
    rep = next(tmp_path.glob("report.*rep"))
    ranges: set[str] = set()
    for name in ("nvtx_sum", "nvtxsum"):  # the report's name changed in Nsight Systems 2023
        got = subprocess.run(
            [_NSYS, "stats", "--report", name, "--format", "csv", "--output", "-", str(rep)],
            check=False, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        lines = [line for line in got.stdout.splitlines() if line.count(",") >= 3]
        for row in csv.DictReader(io.StringIO("\n".join(lines))):
            ranges.add((row.get("Range") or row.get("Name") or "").lstrip(":"))
        if ranges:
            break
    # "<stage> <iteration>: <operator>" for each operator and iteration
    for op in ("src", "double"):
        for iteration in range(3):
            assert any(r.endswith(f" {iteration}: {op}") for r in ranges), (op, sorted(ranges))
    if device == "gpu":
        assert any(r.startswith("gpu") and r.endswith(": double") for r in ranges), sorted(ranges)
