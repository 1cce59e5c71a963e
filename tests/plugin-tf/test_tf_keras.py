"""keras.Model.fit on a DALIDataset, and the example script and the benchmark in their quick
modes (run as a user runs them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from dali import fn, pipeline_def, types
from dali.plugin.tf import DALIDataset

ROOT = Path(__file__).resolve().parents[2]
B = 8


def image_pipe(root, checkpointing=True):
    @pipeline_def(
        batch_size=B, num_threads=2, device_id=None, seed=3, enable_checkpointing=checkpointing
    )
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=16, resize_y=16)
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT, output_layout="HWC", mean=[128.0] * 3, std=[64.0] * 3
        )
        return images, labels

    return DALIDataset(
        pipe(),
        output_dtypes=(tf.float32, tf.int32),
        output_shapes=((B, 16, 16, 3), (B,)),
        batch_size=B,
        device_id=None,
    )


def small_model():
    keras = tf.keras
    model = keras.Sequential(
        [
            keras.Input((16, 16, 3)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(3),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.SGD(0.01),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


@pytest.mark.parametrize("checkpointing", [True, False])
def test_keras_fit(image_tree, checkpointing):
    """A few steps of two epochs; each epoch is a new iterator of the endless dataset."""
    ds = image_pipe(image_tree, checkpointing)
    model = small_model()
    # every iterator (fit's, evaluate's, predict's) starts at the first batch, as in DALI
    history = model.fit(ds, epochs=2, steps_per_epoch=3, shuffle=False, verbose=0)
    first = next(iter(ds))
    losses = model.evaluate(ds, steps=2, verbose=0)
    again = next(iter(ds))
    np.testing.assert_array_equal(first[0].numpy(), again[0].numpy())
    np.testing.assert_array_equal(first[1].numpy(), again[1].numpy())
    assert len(history.history["loss"]) == 2
    assert all(np.isfinite(history.history["loss"]))
    assert np.isfinite(losses)
    assert model.predict(ds.map(lambda x, y: x), steps=1, verbose=0).shape == (B, 3)


def _run(args, timeout=240):
    env = dict(os.environ)
    paths = [str(ROOT / "packages" / "plugin-tf" / "src"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_keras_example(tmp_path):
    done = _run(
        [
            "examples/tf/keras_quickstart.py",
            "--images",
            "32",
            "--epochs",
            "1",
            "--steps",
            "2",
            "--size",
            "32",
            "--out",
            str(tmp_path / "batch.png"),
            "--root",
            str(tmp_path / "img"),
        ]
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "loss" in done.stdout
    assert (tmp_path / "batch.png").exists()


def test_the_benchmark_quick_mode():
    done = _run(["benchmarks/tf_dataset.py", "--quick"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DALIDataset / pipeline" in done.stdout
    assert "tf.data" in done.stdout
