"""The examples (and so the README demo) run and save their picture."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, *args: str) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "packages/core/src"), env.get("PYTHONPATH", "")]
    )
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return out.stdout


def test_demo_saves_the_quickstart_batch(tmp_path):
    pytest.importorskip("PIL")
    out = tmp_path / "batch.png"
    stdout = _run("demo.py", "--out", str(out), "--images", str(tmp_path / "images"))
    assert "(256, 256, 3)" in stdout and "epoch size 21" in stdout
    assert stdout.rstrip().splitlines()[-1].startswith("next: examples/README.md")
    from PIL import Image

    assert Image.open(out).size == (4 * 256, 2 * 256)


def test_external_source_demo(tmp_path):
    pytest.importorskip("PIL")
    out = tmp_path / "batch.png"
    _run("external_source_demo.py", "--out", str(out))
    assert out.stat().st_size > 0


def test_ssd_example_draws_augmented_boxes(tmp_path):
    """The slides' SSD pipeline (examples/ssd) on a generated COCO-style set: the picture is
    saved, every box of the augmented batch lies in the image, and the training form's
    outputs have SSD300's shapes."""
    pytest.importorskip("PIL")
    out = tmp_path / "ssd.png"
    stdout = _run("ssd/show_ssd.py", "--out", str(out), "--data", str(tmp_path / "coco"))
    from PIL import Image

    assert Image.open(out).size == (4 * 300, 2 * 300)
    assert "augmented: 8 images (300, 300, 3)" in stdout
    assert "every box inside its image: True" in stdout
    assert "encoded boxes (8732, 4), labels (8732,)" in stdout


def test_video_example_runs_both_slide_pipelines(tmp_path):
    """The slides' video pipelines (examples/video) on generated clips: reader → crop gives the
    frames asked for, reader → optical_flow/element_extract gives a flow field per pair of
    frames and the first frame; both pictures are saved."""
    pytest.importorskip("av")
    pytest.importorskip("PIL")
    out, flow_out = tmp_path / "video.png", tmp_path / "flow.png"
    stdout = _run(
        "video/show_video.py",
        "--out",
        str(out),
        "--flow-out",
        str(flow_out),
        "--data",
        str(tmp_path / "clips"),
    )
    from PIL import Image

    assert "sequences: 2 x (8, 160, 224, 3) layout FHWC" in stdout
    assert "frame numbers: [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]" in stdout
    assert "label 0: first frame (192, 256, 3), flow (5, 48, 64, 2)" in stdout
    assert "label 1: first frame (192, 256, 3), flow (5, 48, 64, 2)" in stdout
    assert Image.open(out).size == (8 * 224, 2 * 160)
    assert Image.open(flow_out).size == (2 * 256, 2 * 192)


def test_simclr_views_example_saves_two_views(tmp_path):
    """examples/auto_aug/simclr_views.py: two independently augmented views of each generated
    image (crop, flip, colour jitter, grayscale, blur, auto_aug's solarize, with per-sample
    coin flips), saved as two rows; the training form gives normalised CHW views."""
    pytest.importorskip("PIL")
    out = tmp_path / "views.png"
    stdout = _run(
        "auto_aug/simclr_views.py", "--out", str(out), "--images", str(tmp_path / "images")
    )
    from PIL import Image

    assert "views: 2 x 8 images (160, 160, 3)" in stdout
    assert "training views: (3, 160, 160) CHW" in stdout
    assert Image.open(out).size == (8 * 160, 2 * 160)


@pytest.mark.parametrize("scheme", ["rand", "trivial", "auto"])
def test_rand_augment_example_saves_the_augmented_batch(tmp_path, scheme):
    """examples/auto_aug/rand_augment.py: a classification pipeline with RandAugment (or
    TrivialAugment Wide, AutoAugment) on generated images; the picture and the training batch."""
    pytest.importorskip("PIL")
    out = tmp_path / "batch.png"
    images = str(tmp_path / "images")
    stdout = _run(
        "auto_aug/rand_augment.py", "--out", str(out), "--images", images, "--scheme", scheme
    )
    from PIL import Image

    assert f"{scheme} augmented: 8 images (224, 224, 3)" in stdout
    assert "training batch: 8 x (3, 224, 224) CHW" in stdout
    assert Image.open(out).size == (4 * 224, 2 * 224)
