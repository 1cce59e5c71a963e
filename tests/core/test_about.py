"""``python -m dali``: the installation report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import dali
from dali.tools import about

SRC = Path(dali.__file__).parent


def test_sections_and_fast_paths():
    text = about.report(gpus=lambda: ["no GPU visible (test)"])
    lines = text.splitlines()
    for section in ("dali", "host", "fast paths", "GPUs", "environment"):
        assert section in lines
    assert (
        any(line.strip().startswith("dali-core ") for line in lines) or "not installed as" in text
    )
    assert re.search(r"^  numpy|^  numba ", text, re.MULTILINE)
    assert "  no GPU visible (test)" in lines
    assert re.search(r"\d+ usable cores of \d+", text)


def test_every_environment_variable_read_is_listed():
    """The report lists every DALI_* variable the sources read (new ones must be added)."""
    read = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        read |= set(re.findall(r"environ(?:\.get)?[\[(]\s*\"(DALI_[A-Z0-9_]+)\"", text))
        read |= set(re.findall(r"^[A-Z_]*ENV = \"(DALI_[A-Z0-9_]+)\"", text, re.MULTILINE))
    assert read, "the scan found no variable: the pattern is stale"
    assert read <= {name for name, _ in about.ENVIRONMENT}


def test_environment_values_are_shown(monkeypatch):
    monkeypatch.setenv("DALI_PROFILE", "gil")
    line = next(line for line in about.report(gpus=list).splitlines() if "DALI_PROFILE" in line)
    assert line.split()[1] == "gil"


def test_python_dash_m_dali():
    done = subprocess.run(
        [sys.executable, "-m", "dali"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dali\n") and "fast paths" in done.stdout
    assert (
        subprocess.run(
            [sys.executable, "-m", "dali", "--help"], capture_output=True, timeout=120, check=False
        ).returncode
        == 0
    )
