"""The "Getting started with JAX and DALI" tutorial as one runnable script.

Every cell of the tutorial runs in order with ``nvidia.dali`` replaced by ``dali``. On a
machine without a GPU it runs on the CPU: the decoders use ``device="cpu"`` instead of
``"mixed"``, the cells that move data to the GPU (``.gpu()``, ``device_id=1``) are skipped, and
the multi-device section shards over two fake CPU devices. With a GPU (CuPy and a CUDA build of
JAX installed) it runs the tutorial as written. The tutorial's ``.device()`` and
``.device_buffers`` (removed from JAX) are written ``.devices()`` and ``.addressable_shards``.

The test images are generated like the tutorial's ``images`` folder (`dali._testing.images`),
and ``show_image`` saves a picture grid instead of drawing with matplotlib.

Run: ``python examples/jax_getting_started.py [--out DIR] [--images DIR] [--epochs N]``.
"""

from __future__ import annotations

import os

# Two CPU devices for the multi-device section when there is no GPU. XLA reads the flag when
# JAX starts its CPU backend, so it is set before JAX is imported (GPUs are not affected).
if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    ).strip()

import argparse
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
from _show import gpu_count, save_grid
from dali import fn
from dali._testing.images import make_image_tree
from dali.pipeline import pipeline_def
from dali.plugin.jax import DALIGenericIterator, data_iterator


def show(images, path: Path) -> None:
    """The tutorial's ``show_image`` for a batch, saved as one picture."""
    save_grid(np.asarray(images), str(path))
    print(f"saved {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="where the pictures go (default: a temp dir)")
    parser.add_argument("--images", default=None, help="where the images are written")
    parser.add_argument("--epochs", type=int, default=10, help="epochs of the num_threads timing")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="jax_tutorial_"))
    out.mkdir(parents=True, exist_ok=True)
    image_dir = args.images or tempfile.mkdtemp(prefix="images_")
    make_image_tree(image_dir)

    gpus = gpu_count()
    decoder = "mixed" if gpus else "cpu"  # the tutorial's device="mixed" needs a GPU
    print(f"JAX backend: {jax.default_backend()}, devices: {jax.devices()}, decoder: {decoder}")

    # -- Quick start ---------------------------------------------------------------------------
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)  # batch of data ready to be used by JAX

    # -- Running DALI with JAX -----------------------------------------------------------------
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
    print(output.keys())
    print(type(output["images"]))
    print(output["images"].shape)
    print(type(output["labels"]))
    print(output["labels"].shape)
    print(f"Label = {output['labels'][0]}")
    output = next(iterator)
    print(f"Label = {output['labels'][0]}")

    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=1)
    print(f"Iterator size: {len(iterator)}")
    for batch_id, _batch in enumerate(iterator):
        print(batch_id)

    # -- Batching --------------------------------------------------------------------------------
    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)
    print(type(batch["images"]))
    print(batch["images"].shape)
    print(type(batch["labels"]))
    print(batch["labels"].shape)
    show(batch["images"], out / "batch.png")

    # -- GPU acceleration ----------------------------------------------------------------------
    print(f"Images backing device: {batch['images'].devices()}")
    if gpus:

        @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
        def iterator_fn():
            jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
            images = fn.decoders.image(jpegs)
            images = images.gpu()
            images = fn.resize(images, resize_x=256, resize_y=256)
            return images, labels

        iterator = iterator_fn(batch_size=8)
        if gpus > 1:
            iterator = iterator_fn(batch_size=1, device_id=1)
            batch = next(iterator)
            print(f"Images backing device: {batch['images'].devices()}")

    # -- Hardware accelerated decoding ---------------------------------------------------------
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)
    print(f"Images backing device: {batch['images'].devices()}")
    print(f"Labels backing device: {batch['labels'].devices()}")

    # -- Random shuffling ----------------------------------------------------------------------
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(
            file_root=image_dir, name="image_reader", random_shuffle=True
        )
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=8, seed=0)
    batch = next(iterator)
    show(batch["images"], out / "shuffled.png")

    # -- Augmentations -------------------------------------------------------------------------
    @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    def iterator_fn():
        jpegs, labels = fn.readers.file(
            file_root=image_dir, name="image_reader", random_shuffle=True
        )
        images = fn.decoders.image(jpegs, device=decoder)
        angle = fn.random.uniform(range=(-10.0, 10.0))
        images = fn.rotate(images, angle=angle, fill_value=0)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    iterator = iterator_fn(batch_size=8, seed=0)
    batch = next(iterator)
    show(batch["images"], out / "rotated.png")

    # -- Multiple GPUs (fake CPU devices without a GPU) ----------------------------------------
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(jax.devices(), axis_names=("batch"))
    sharding = NamedSharding(mesh, PartitionSpec("batch"))
    print(sharding)

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
        images = fn.decoders.image(jpegs, device=decoder)
        angle = fn.random.uniform(range=(-10.0, 10.0))
        images = fn.rotate(images, angle=angle, fill_value=0)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, (labels.gpu() if gpus else labels)

    iterator = iterator_fn(batch_size=8)
    batch = next(iterator)
    images = batch["images"]
    print(f"Images shape: {images.shape}")
    print(f"Images backing device: {images.devices()}")
    print(f"Images sharding: {images.sharding}")
    try:
        jax.debug.visualize_array_sharding(images.ravel())
    except ValueError as e:  # it draws with `rich`, an optional dependency of JAX
        print(f"(no sharding picture: {e})")
    for k, shard in enumerate(images.addressable_shards):
        print(f"Shard {k} device: {shard.device}, shape: {shard.data.shape}")
    show(batch["images"], out / "sharded.png")

    # -- num_threads performance considerations ------------------------------------------------
    def run_iterator(iterator, epoch_num=args.epochs):
        for _epoch in range(epoch_num):
            for _batch in iterator:
                pass

    for num_threads in (1, 8):
        iterator = iterator_fn(batch_size=64, num_threads=num_threads)
        start = time.perf_counter()
        run_iterator(iterator)
        elapsed = (time.perf_counter() - start) * 1000
        print(f"num_threads={num_threads}: {elapsed:.1f} ms for {args.epochs} epochs")

    # -- data_iterator decorator internals -----------------------------------------------------
    print(type(iterator))

    @pipeline_def
    def simple_pipeline():
        jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=256, resize_y=256)
        return images, labels

    pipeline = simple_pipeline(batch_size=8, num_threads=1, device_id=0)
    print(type(pipeline))
    iterator = DALIGenericIterator(
        pipeline, output_map=["images", "labels"], reader_name="image_reader"
    )
    print(type(iterator))
    batch = next(iterator)
    print(f"Images backing device: {batch['images'].devices()}")
    print(f"Labels backing device: {batch['labels'].devices()}")


if __name__ == "__main__":
    main()
