"""The PyTorch examples (``examples/pytorch/``) and ``benchmarks/torch_loader.py`` run, small.

Each runs as a script in a subprocess, as a user runs it, with the core and dali-torch sources
on ``PYTHONPATH`` (and one OpenMP thread: the 2-core CI machine runs other work beside torch,
and torch's spinning OpenMP threads slow down many times when they are not alone).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAVE_TORCHVISION = importlib.util.find_spec("torchvision") is not None


def _run(script: str, *args: str) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(ROOT / "packages/core/src"),
            str(ROOT / "packages/plugin-torch/src"),
            env.get("PYTHONPATH", ""),
        ]
    )
    env["OMP_NUM_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, str(ROOT / script), *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, f"{script} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def test_squirrel_dali_example(tmp_path):
    pytest.importorskip("PIL")
    picture = tmp_path / "batch.png"
    stdout = _run(
        "examples/pytorch/squirrel_dali.py",
        *("--ds-len", "80", "--batch-size", "16", "--n-exp", "1", "--out", str(picture)),
    )
    assert "augmented batch: (4, 200, 200, 3) torch.float32 on cpu" in stdout
    # both batching strategies timed (benchmark_it's checks passed), CuPy skipped on the CPU
    rates = dict(re.findall(r"^  (Batched in \w+)\s+([\d.]+) img/s$", stdout, re.MULTILINE))
    assert set(rates) == {"Batched in DALI", "Batched in Squirrel"}, stdout
    assert all(float(r) > 0 for r in rates.values())
    assert "Cupy arrays on GPU: skipped" in stdout

    from PIL import Image

    grid = Image.open(picture)
    # one row of DALI's images, and torchvision's below it when it is installed
    assert grid.size == (4 * 200, (2 if HAVE_TORCHVISION else 1) * 200)
    import numpy as np

    first = np.asarray(grid)[:200, :200]
    assert first[:5, :5].max() == 0  # the rotation's corners, filled with 0
    assert first[90:110, 90:110].mean() > 20  # the image itself
    if HAVE_TORCHVISION:
        (worst,) = re.findall(r"torchvision sanity check: .* max (\S+) \(of 255\)", stdout)
        assert float(worst) < 0.1  # fn.rotate (linear) agrees with F.rotate (bilinear)


def test_train_resnet18_example_lowers_the_loss():
    pytest.importorskip("torchvision")
    steps = 45
    stdout = _run(
        "examples/pytorch/train_resnet18.py",
        *("--steps", str(steps), "--size", "48", "--threads", "2"),
    )
    assert "21 images in 3 classes, 3 batches of <= 8 per epoch, 48x48, device cpu" in stdout
    losses = [float(x) for x in re.findall(r"loss (\d+\.\d+)$", stdout, re.MULTILINE)]
    assert len(losses) == steps
    # PARTIAL: every epoch is 8 + 8 + 5 images, the last batch short
    assert re.findall(r"batch (\d+)", stdout)[:3] == ["8", "8", "5"]
    first, last = map(
        float, re.search(r"first \d+ steps (\S+), of the last \d+ steps (\S+)", stdout).groups()
    )
    assert last < 0.8 * first, stdout  # it trains (fixed seeds: the same run every time)


def test_ddp_example_shards_the_dataset():
    stdout = _run("examples/pytorch/ddp.py", "--nprocs", "2")
    # equal batch counts on both ranks; the padding cut out again (PARTIAL)
    assert "rank 0: 10 samples in 3 batches [5, 5, 0] (images 0..9)" in stdout
    assert "rank 1: 11 samples in 3 batches [5, 5, 1] (images 10..20)" in stdout
    assert "shards disjoint: True, together every one of the 21 images once: True" in stdout


def test_proxy_example_trains_on_the_servers_batches():
    pytest.importorskip("PIL")
    args = ("--workers", "2", "--steps", "3", "--size", "32", "--threads", "2", "--deterministic")
    runs = [_run("examples/pytorch/proxy.py", *args) for _ in range(2)]
    stdout = runs[0]
    assert "21 images in 3 classes, 2 batches of 8 per epoch, 2 workers, device cpu" in stdout
    steps = re.findall(r"^step (\d+): images (.*), loss (\d+\.\d+)$", stdout, re.MULTILINE)
    assert [int(s) for s, _, _ in steps] == [0, 1, 2]  # the 3rd step is in the 2nd epoch
    for _, shapes, _ in steps:
        assert shapes == "(8, 3, 32, 32) torch.float32 on cpu, labels (8,) torch.int64"
    assert stdout.rstrip().endswith("done: the server stopped, the pipeline closed")
    # --deterministic: the same random flips, so the same losses, on every run
    losses = [re.findall(r"loss (\d+\.\d+)$", out, re.MULTILINE) for out in runs]
    assert losses[0] == losses[1]


def test_recordio_resnet50_example_reads_its_shard_each_epoch(tmp_path):
    """examples/pytorch/recordio_resnet50.py: readers.mxnet (2 RecordIO files, one index,
    shard 0 of 2, shuffled) -> the ResNet-50 augmentation -> DALIClassificationIterator; an
    epoch is exactly the shard's 32 records, and SGD steps run on the batches."""
    pytest.importorskip("PIL")
    stdout = _run("examples/pytorch/recordio_resnet50.py", "--steps", "6", "--data", str(tmp_path))
    assert "64 records in 2 RecordIO files, one index: train.idx" in stdout
    steps = re.findall(
        r"^epoch (\d) step (\d): images (.*), labels \((\d+),\)", stdout, re.MULTILINE
    )
    assert [(int(e), int(s)) for e, s, _, _ in steps] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 4),
        (1, 5),
    ]
    assert {shape for _, _, shape, _ in steps} == {"(8, 3, 64, 64) torch.float32 on cpu"}
    assert "epoch 0: 32 images (shard 0 of 2)" in stdout


def test_torch_loader_benchmark_quick():
    stdout = _run("benchmarks/torch_loader.py", "--quick")
    rows = dict(
        re.findall(
            r"^(dali, CPU pipeline|torchvision DataLoader.*?)\s{2,}(\d+)", stdout, re.MULTILINE
        )
    )
    assert "dali, CPU pipeline" in rows, stdout
    if HAVE_TORCHVISION:
        assert any(name.startswith("torchvision DataLoader") for name in rows), stdout
        assert re.search(r"^torchvision DataLoader.*\s1\.00x\s", stdout, re.MULTILINE)
    else:
        assert "torchvision is not installed" in stdout


def test_jasper_speech_example(tmp_path):
    """examples/speech/jasper.py: Jasper's log-mel features through DALIGenericIterator,
    (batch, 64 mel bands, frames padded to a multiple of 16), every clip once per epoch (in a
    new order), each clip's bands normalised over time; the picture is saved."""
    pytest.importorskip("PIL")
    pytest.importorskip("soundfile")
    picture = tmp_path / "mels.png"
    stdout = _run(
        "examples/speech/jasper.py",
        *("--out", str(picture), "--data", str(tmp_path / "clips"), "--clips", "11"),
        *("--batch-size", "4", "--epochs", "2", "--threads", "1", "--show", "3"),
    )
    steps = re.findall(
        r"^epoch (\d) step \d: audio \((\d+), 64, (\d+)\) torch.float32 on cpu, frames \[(.*)\]$",
        stdout,
        re.MULTILINE,
    )
    assert [(e, int(b)) for e, b, _, _ in steps] == [(e, b) for e in "01" for b in (4, 4, 3)]
    for _, batch, width, frames in steps:
        lengths = [int(f) for f in frames.split(", ")]
        assert len(lengths) == int(batch)
        # padded to the batch's longest clip, rounded up to 16 frames; 0.5-2 s clips at 10 ms
        assert int(width) == -(-max(lengths) // 16) * 16
        assert all(20 <= n <= 201 for n in lengths)
    assert "epoch 0: 11 clips, every clip once: True" in stdout
    assert "epoch 1: 11 clips, every clip once: True" in stdout
    epochs = [[f for e, _, _, f in steps if e == k] for k in "01"]
    assert epochs[0] != epochs[1]  # shuffle_after_epoch: a new order
    clips = re.findall(
        r"^clip \d+ .*: (\d+) samples, (\d+) frames; band means (\S+), stds (\S+)$",
        stdout,
        re.MULTILINE,
    )
    assert len(clips) == 3
    for samples, frames, means, stds in clips:
        assert int(frames) <= int(samples) // 160 + 1  # trimmed, never longer than the clip
        assert float(means) < 1e-4 and abs(float(stds) - 1) < 1e-3

    from PIL import Image

    image = Image.open(picture)
    width = int(steps[0][2])  # the first batch is the one drawn
    assert image.size == (3 * width, 3 * 3 * 64)  # 3 spectrograms, 3x scaled, one per row
