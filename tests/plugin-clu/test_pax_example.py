"""``examples/pax/pax_input.py``, run as a user runs it: a Pax-style experiment's training and
evaluation inputs over DALI pipelines (praxis is not installed here: the script's stand-in
fields), a few JAX training steps, one evaluation epoch twice around ``reset()``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("clu")
pytest.importorskip("PIL")

ROOT = Path(__file__).resolve().parents[2]


def test_pax_example_trains_and_evaluates(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            *(str(ROOT / f"packages/{p}/src") for p in ("core", "plugin-jax", "plugin-clu")),
            env.get("PYTHONPATH", ""),
        ]
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples/pax/pax_input.py"), f"--out={tmp_path}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "batch: image (8, 32, 32, 3) float32, label (8, 1)" in out
    first, last = map(float, re.search(r"training loss: (\S+) -> (\S+)", out).groups())
    assert last < first  # the classifier learned something from the batches
    # 21 images in batches of 8: 3 batches, the last padded; the padding is not counted, and
    # reset() gives the same epoch again
    assert "evaluation: 3 batches, 21 samples; the same after reset(): True" in out
    assert (tmp_path / "pax_batch.png").stat().st_size > 0
