"""The "T5X and DALI getting started" tutorial as one runnable script.

Every cell of the tutorial runs in order with ``nvidia.dali`` replaced by ``dali``: a peekable
iterator (`dali.plugin.jax.clu.peekable_data_iterator`, the kind T5X takes as a data source),
``peek`` / ``peek_async`` / ``next``, the batches as pictures, and the same iterator sharded
over the devices. On a machine without a GPU it runs on the CPU: ``device="mixed"`` becomes
``"cpu"``, ``.gpu()`` is skipped and the sharded section uses two fake CPU devices. With a GPU
(CuPy and a CUDA build of JAX) it runs the tutorial as written.

The images are generated like the tutorial's ``images`` folder (`dali._testing.images`);
``show_image`` draws with matplotlib as in the tutorial and saves each figure to a file, or,
without matplotlib, saves the batch as one picture with Pillow.

Run: ``python examples/t5x/seed_t5x.py [--out DIR] [--images DIR]``. ``dali_t5x.gin`` beside
it wires the same pipeline into T5X as its data source.
"""

from __future__ import annotations

import os

# Two CPU devices for the sharded section when there is no GPU. XLA reads the flag when JAX
# starts its CPU backend, so it is set before JAX is imported (GPUs are not affected).
if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    ).strip()

import argparse
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np
from dali._testing.images import make_image_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/_show.py
from _show import gpu_count, save_grid


def make_show_image(out: Path):
    """The tutorial's ``show_image(images)``, saving each call's picture in ``out``."""
    counter = iter(range(1_000))
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: draw into files
        import matplotlib.pyplot as plt
        from matplotlib import gridspec
    except ImportError:
        plt = None

    def show_image(images, name: str | None = None) -> Path:
        path = out / f"{name or f'batch_{next(counter)}'}.png"
        if plt is None:
            save_grid(np.asarray(images), str(path))
        else:  # the tutorial's cell [4], then saved
            columns = 4
            rows = (images.shape[0] + 1) // (columns)
            plt.figure(figsize=(24, (24 // columns) * rows))
            gs = gridspec.GridSpec(rows, columns)
            for j in range(rows * columns):
                plt.subplot(gs[j])
                plt.axis("off")
                plt.imshow(images[j])
            plt.savefig(path, dpi=50)  # (the figure is 24 inches wide)
            plt.close()
        print(f"saved {path}")
        return path

    return show_image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="where the pictures go (default: a temp dir)")
    parser.add_argument("--images", default=None, help="where the images are written")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="t5x_tutorial_"))
    out.mkdir(parents=True, exist_ok=True)
    gpus = gpu_count()
    decoder = "mixed" if gpus else "cpu"  # the tutorial's device="mixed" needs a GPU
    print(f"JAX backend: {jax.default_backend()}, devices: {jax.devices()}, decoder: {decoder}")

    # [1]
    image_dir = args.images or tempfile.mkdtemp(prefix="images_")
    make_image_tree(image_dir)

    # -- Peekable iterator for T5X: [2] ------------------------------------------------------
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

    # [3]
    peeked_batch = iterator.peek()

    peeked_async_batch = iterator.peek_async()  # returns a future to the current batch
    peeked_async_batch = peeked_async_batch.result()  # blocks until the batch is ready

    batch = next(iterator)
    same = all(
        np.array_equal(np.asarray(batch[k]), np.asarray(peeked_batch[k]))
        and np.array_equal(np.asarray(batch[k]), np.asarray(peeked_async_batch[k]))
        for k in batch
    )
    print(f"peek, peek_async and next give the same batch: {same}")
    print(f"element_spec: {iterator.element_spec}")

    # [4]-[7]
    show_image = make_show_image(out)
    show_image(batch["images"], "batch")
    show_image(peeked_batch["images"], "peeked")
    batch = peeked_async_batch
    show_image(batch["images"], "peeked_async")

    # -- Sharding: [8] -----------------------------------------------------------------------
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(jax.devices(), axis_names=("batch"))
    sharding = NamedSharding(mesh, PartitionSpec("batch"))

    print(sharding)

    # [9]
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
        images = fn.decoders.image(jpegs, device=decoder)
        images = fn.resize(images, resize_x=128, resize_y=128)
        return images, (labels.gpu() if gpus else labels)

    iterator = iterator_fn(batch_size=8)

    # [10]
    batch = next(iterator)

    try:
        jax.debug.visualize_array_sharding(batch["images"].ravel())
    except (ImportError, ValueError) as e:  # it draws with `rich`, an optional dependency of JAX
        print(f"(no sharding picture: {e})")
    for k, shard in enumerate(batch["images"].addressable_shards):
        print(f"Shard {k} device: {shard.device}, shape: {shard.data.shape}")

    # [11]
    show_image(batch["images"], "sharded")


if __name__ == "__main__":
    main()
