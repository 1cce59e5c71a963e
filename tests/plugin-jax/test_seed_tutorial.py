"""Seed 000, "Getting started with JAX and DALI": its programs, ``nvidia.dali`` → ``dali``.

The cells run as written on the default JAX backend. On a CPU-only machine ``device="mixed"``
becomes ``"cpu"`` (there is nothing to decode on), the ``.gpu()`` cells are skipped, and the
multi-device cell shards over the four fake CPU devices of conftest.py; with a GPU the same
test runs the tutorial unchanged. The tutorial's ``.device()``/``.device_buffers`` (removed
from JAX) are ``.devices()``/``.addressable_shards``. The images are `make_image_tree`'s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from dali import fn
from dali.pipeline import pipeline_def
from dali.plugin.jax import DALIGenericIterator, data_iterator
from iterator_utils import TREE_IMAGES as N
from parity import jax_gpu_count

ROOT = Path(__file__).resolve().parents[2]


GPUS = jax_gpu_count()
MIXED = "mixed" if GPUS else "cpu"


@pytest.fixture(scope="module")
def image_dir(image_tree) -> str:
    return str(image_tree)


def test_quick_start(image_dir):
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=MIXED)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)  # batch of data ready to be used by JAX
    assert batch["images"].shape == (8, 256, 256, 3)


def test_running_dali_with_jax_batching_and_len(image_dir):
    def simple_pipeline():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator_fn = data_iterator(
        simple_pipeline, output_map=["images", "labels"], reader_name="image_reader"
    )
    iterator = iterator_fn(batch_size=1)
    output = next(iterator)
    assert list(output.keys()) == ["images", "labels"]
    assert isinstance(output["images"], jax.Array) and isinstance(output["labels"], jax.Array)
    assert output["images"].shape == (1, 256, 256, 3)
    assert output["labels"].shape == (1, 1)
    assert output["labels"][0].tolist() == [0]  # Label = [0]
    output = next(iterator)
    assert output["labels"][0].tolist() == [0]  # the second file is in class 0 too

    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=1)
    assert len(iterator) == N  # Iterator size: 21
    assert [batch_id for batch_id, batch in enumerate(iterator)] == list(range(N))

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)
    assert batch["images"].shape == (8, 256, 256, 3)
    assert batch["labels"].shape == (8, 1)
    if not GPUS:
        assert batch["images"].devices() == {jax.devices("cpu")[0]}  # TFRT_CPU_0


@pytest.mark.skipif(not GPUS, reason="the GPU acceleration cells need a GPU")
def test_gpu_acceleration(image_dir):
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs)
        images = images.gpu()
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    batch = next(iterator_fn(batch_size=8))
    assert {d.platform for d in batch["images"].devices()} == {"gpu"}
    if GPUS > 1:
        batch = next(iterator_fn(batch_size=1, device_id=1))
        assert batch["images"].devices() == {jax.devices()[1]}  # cuda:1


def test_hardware_decoding_shuffling_and_augmentations(image_dir):
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=MIXED)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    batch = next(iterator_fn(batch_size=8))
    assert batch["labels"].devices() == {jax.devices("cpu")[0]}  # labels stay on the host
    expected = "gpu" if GPUS else "cpu"
    assert {d.platform for d in batch["images"].devices()} == {expected}

    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(
            file_root=image_dir, name="image_reader", random_shuffle=True
        )
        images = fn.decoders.image(jpegs, device=MIXED)
        angle = fn.random.uniform(range=(-10.0, 10.0))
        images = fn.rotate(images, angle=angle, fill_value=0)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    first = next(iterator_fn(batch_size=8, seed=0))
    again = next(iterator_fn(batch_size=8, seed=0))
    assert first["images"].shape == (8, 256, 256, 3)
    np.testing.assert_array_equal(np.asarray(first["images"]), np.asarray(again["images"]))
    np.testing.assert_array_equal(np.asarray(first["labels"]), np.asarray(again["labels"]))


def test_multiple_devices(image_dir):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(jax.devices(), axis_names=("batch"))
    sharding = NamedSharding(mesh, PartitionSpec("batch"))
    n = len(jax.devices())
    assert str(sharding).startswith(f"NamedSharding(mesh=Mesh('batch': {n}")

    @data_iterator(
        output_map=["images", "labels"],
        reader_name="image_reader",
        sharding=sharding,
    )
    def iterator_fn(num_shards=1, shard_id=0):
        jpegs, labels = fn.readers.file(
            file_root=image_dir,
            name="image_reader",
            num_shards=num_shards,
            shard_id=shard_id,
        )
        images = fn.decoders.image(jpegs, device=MIXED)
        angle = fn.random.uniform(range=(-10.0, 10.0))
        images = fn.rotate(images, angle=angle, fill_value=0)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, (labels.gpu() if GPUS else labels)

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)
    images = batch["images"]
    assert images.shape == (8, 256, 256, 3)
    assert images.devices() == set(jax.devices())
    assert images.sharding == sharding
    shards = images.addressable_shards
    assert [s.data.shape for s in shards] == [(8 // n, 256, 256, 3)] * n
    assert {s.device for s in shards} == set(jax.devices())

    # num_threads performance considerations: the same iterator with 1 and 8 threads
    def run_iterator(iterator, epoch_num=1):
        for _epoch in range(epoch_num):
            for _batch in iterator:
                pass

    for num_threads in (1, 8):
        run_iterator(iterator_fn(batch_size=64, num_threads=num_threads))
    assert type(iterator) is DALIGenericIterator


def test_iterator_from_a_pipeline_object(image_dir):
    @pipeline_def
    def simple_pipeline():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=MIXED)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    # device_id=0 as in the tutorial: an all-CPU pipeline runs with it without CUDA
    pipeline = simple_pipeline(batch_size=8, num_threads=1, device_id=0)
    iterator = DALIGenericIterator(
        pipeline, output_map=["images", "labels"], reader_name="image_reader"
    )
    batch = next(iterator)
    assert batch["images"].shape == (8, 256, 256, 3)
    assert batch["labels"].devices() == {jax.devices("cpu")[0]}


def test_example_script_runs(tmp_path):
    pytest.importorskip("PIL")
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)  # the script asks for its own two CPU devices
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(ROOT / "packages/core/src"),
            str(ROOT / "packages/plugin-jax/src"),
            env.get("PYTHONPATH", ""),
        ]
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples/jax_getting_started.py"),
            "--epochs=1",
            f"--out={tmp_path / 'out'}",
            f"--images={tmp_path / 'images'}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Iterator size: 21" in proc.stdout
    assert "Images shape: (8, 256, 256, 3)" in proc.stdout
    assert (tmp_path / "out" / "sharded.png").stat().st_size > 0
