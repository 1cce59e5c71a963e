"""Seed 001, "T5X and DALI getting started": its program, ``nvidia.dali`` → ``dali``.

The cells run as written on the default JAX backend. On a CPU-only machine ``device="mixed"``
becomes ``"cpu"`` and ``.gpu()`` is skipped (there is no GPU to decode on or move to), and the
sharded cell shards over the four fake CPU devices (the XLA flag below); with a GPU the same
tests run the tutorial unchanged, and the ``gpu``-marked ones check that the data is on it.
The images are `make_image_tree`'s (21 images, in three class folders). ``show_image`` needs
matplotlib, as the tutorial does (that test skips without it); the example script,
``examples/t5x/seed_t5x.py``, runs last, as a user would run it.
"""

from __future__ import annotations

import os

_FLAG = "--xla_force_host_platform_device_count=4"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()

import concurrent.futures
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from parity import jax_gpu_count

jax = pytest.importorskip("jax")
pytest.importorskip("clu")

ROOT = Path(__file__).resolve().parents[2]


GPUS = jax_gpu_count()
MIXED = "mixed" if GPUS else "cpu"


@pytest.fixture(scope="module")
def image_dir(image_tree) -> str:
    return str(image_tree)


def make_iterator(image_dir: str, decoder: str = MIXED):
    """Cell [2], the only change: ``import nvidia.dali.fn`` → ``import dali.fn``."""
    import dali.fn as fn  # noqa: PLR0402 - the tutorial's import, nvidia.dali → dali
    from dali.plugin.jax.clu import peekable_data_iterator

    @peekable_data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=128, resize_y=128)
        return images, labels

    # iterator can be passed to T5X configuration as a data source
    iterator = iterator_fn(batch_size=8)
    return iterator


def peek_peek_async_next(iterator):
    """Cell [3]."""
    peeked_batch = iterator.peek()

    peeked_async_batch = iterator.peek_async()  # returns a future to the current batch
    peeked_async_batch = peeked_async_batch.result()  # blocks until the batch is ready

    batch = next(iterator)
    return peeked_batch, peeked_async_batch, batch


def assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key, value in a.items():
        np.testing.assert_array_equal(np.asarray(value), np.asarray(b[key]), err_msg=key)


def test_peekable_iterator_cells(image_dir):
    from clu.data.dataset_iterator import ArraySpec, DatasetIterator

    iterator = make_iterator(image_dir)
    assert isinstance(iterator, DatasetIterator)  # "can be passed to T5X as a data source"
    peeked_batch, peeked_async_batch, batch = peek_peek_async_next(iterator)
    # "We expect them to be the same, because peek and peek_async don't advance the iterator"
    assert peeked_batch is peeked_async_batch is batch
    assert batch["images"].shape == (8, 128, 128, 3) and batch["labels"].shape == (8, 1)
    assert iterator.element_spec == {
        "images": ArraySpec(dtype=np.dtype(np.uint8), shape=(8, 128, 128, 3)),
        "labels": ArraySpec(dtype=np.dtype(np.int32), shape=(8, 1)),
    }
    # the next batch is a new one: peeking again gives it, and next() returns it
    following = iterator.peek()
    assert following is not batch
    assert next(iterator) is following
    assert not np.array_equal(np.asarray(following["images"]), np.asarray(batch["images"]))
    # the same cells on a fresh iterator read the same data
    again = peek_peek_async_next(make_iterator(image_dir))
    for other in again:
        assert_same(other, batch)


def test_peek_async_from_several_threads(image_dir):
    """peek_async futures from many threads all resolve to the batch next() returns."""
    iterator = make_iterator(image_dir)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(lambda: iterator.peek_async().result()) for _ in range(8)]
        peeked = [f.result(timeout=60) for f in futures]
    batch = next(iterator)
    assert all(p is batch for p in peeked)


def test_show_image_cells(image_dir, tmp_path):
    """Cells [4]-[7], drawn with matplotlib's file backend."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import gridspec

    def show_image(images):
        columns = 4
        rows = (images.shape[0] + 1) // (columns)
        plt.figure(figsize=(24, (24 // columns) * rows))
        gs = gridspec.GridSpec(rows, columns)
        for j in range(rows * columns):
            plt.subplot(gs[j])
            plt.axis("off")
            plt.imshow(images[j])

    peeked_batch, peeked_async_batch, batch = peek_peek_async_next(make_iterator(image_dir))
    for k, images in enumerate(
        [batch["images"], peeked_batch["images"], peeked_async_batch["images"]]
    ):
        show_image(images)
        figure = plt.gcf()
        assert len(figure.axes) == 8  # 2 rows of 4
        figure.savefig(tmp_path / f"cell_{k}.png")
        plt.close(figure)
        assert (tmp_path / f"cell_{k}.png").stat().st_size > 0


def test_sharding_cells(image_dir, capsys):
    """Cells [8]-[10]: the iterator sharded over the devices (4 fake CPU devices here)."""
    import dali.fn as fn  # noqa: PLR0402 - the tutorial's import, nvidia.dali → dali
    from dali.plugin.jax.clu import peekable_data_iterator
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    n = len(jax.devices())
    if not GPUS and n != 4:
        pytest.skip(f"needs 4 CPU devices; JAX's CPU backend started with {n}")

    mesh = Mesh(jax.devices(), axis_names=("batch"))
    sharding = NamedSharding(mesh, PartitionSpec("batch"))

    print(sharding)
    assert capsys.readouterr().out.startswith(f"NamedSharding(mesh=Mesh('batch': {n}")

    @peekable_data_iterator(
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
        images = fn.resize(images, resize_x=128, resize_y=128)
        return images, (labels.gpu() if GPUS else labels)

    iterator = iterator_fn(batch_size=8)

    batch = next(iterator)

    try:
        import rich  # noqa: F401 - visualize_array_sharding draws with it (optional in JAX)
    except ImportError:
        pass
    else:
        jax.debug.visualize_array_sharding(batch["images"].ravel())
        drawn = capsys.readouterr().out
        platform = "GPU" if GPUS else "CPU"
        assert all(f"{platform} {k}" in drawn for k in range(n))

    images = batch["images"]
    assert images.shape == (8, 128, 128, 3)
    assert images.sharding == sharding
    assert {s.device for s in images.addressable_shards} == set(jax.devices())
    assert [s.data.shape for s in images.addressable_shards] == [(8 // n, 128, 128, 3)] * n
    # the peekable contract holds for the sharded iterator too
    peeked = iterator.peek()
    assert iterator.peek_async().result() is peeked
    assert next(iterator) is peeked
    assert iterator.element_spec["images"].shape == (8, 128, 128, 3)


@pytest.mark.gpu
@pytest.mark.skipif(not GPUS, reason="needs a CUDA build of JAX")
def test_mixed_decoding_puts_the_images_on_the_gpu(image_dir):
    """Cell [2] as written, ``device="mixed"``: the images come on the GPU, the labels on the
    host, and they match what CPU decoding gives to within decoder rounding."""
    iterator = make_iterator(image_dir, decoder="mixed")
    peeked_batch, peeked_async_batch, batch = peek_peek_async_next(iterator)
    assert peeked_batch is peeked_async_batch is batch
    assert {d.platform for d in batch["images"].devices()} == {"gpu"}
    assert batch["labels"].devices() == {jax.devices("cpu")[0]}
    cpu = next(make_iterator(image_dir, decoder="cpu"))
    np.testing.assert_array_equal(np.asarray(batch["labels"]), np.asarray(cpu["labels"]))
    diff = np.abs(np.asarray(batch["images"], np.int16) - np.asarray(cpu["images"], np.int16))
    assert diff.mean() < 3.0, diff.mean()


def test_example_script_runs(tmp_path):
    pytest.importorskip("PIL")
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)  # the script asks for its own two CPU devices
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(ROOT / "packages/core/src"),
            str(ROOT / "packages/plugin-jax/src"),
            str(ROOT / "packages/plugin-clu/src"),
            env.get("PYTHONPATH", ""),
        ]
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples/t5x/seed_t5x.py"),
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
    assert "peek, peek_async and next give the same batch: True" in proc.stdout
    assert "ArraySpec(dtype=uint8, shape=(8, 128, 128, 3))" in proc.stdout
    devices = 1 if GPUS == 1 else 2
    assert f"Shard {devices - 1} device:" in proc.stdout
    for name in ("batch", "peeked", "peeked_async", "sharded"):
        assert (tmp_path / "out" / f"{name}.png").stat().st_size > 0, name
