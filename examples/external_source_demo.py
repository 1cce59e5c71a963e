"""The seed JAX tutorial's pipeline shape, fed by an `external_source`, on the CPU.

An `external_source` yields synthetic 256x256 RGB images and labels (as the seed tutorials feed
numpy batches from a Python iterable); the pipeline adds a random per-sample brightness and
saves the batch as a picture grid, as the tutorial's ``show_image`` does.

Run: ``python examples/external_source_demo.py --out external_source_batch.png``.
"""

from __future__ import annotations

import argparse

import dali.math as dmath
import numpy as np
from _show import save_grid
from dali import fn, pipeline_def, types

BATCH = 8


def synthetic_images(batch_size: int, size: int = 256):
    """An endless iterable of (images, labels) batches: colour gradients with a disc."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    i = 0
    while True:
        images, labels = [], []
        for _ in range(batch_size):
            hue = (i * 0.13) % 1.0
            r = 255 * (0.5 + 0.5 * np.sin(2 * np.pi * (xx + hue)))
            g = 255 * yy
            b = 255 * (0.5 + 0.5 * np.cos(2 * np.pi * (yy + xx + hue)))
            disc = ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) < (0.1 + 0.2 * hue) ** 2
            img = np.stack([r, g, b], axis=-1)
            img[disc] = 255 - img[disc]
            images.append(img.astype(np.uint8))
            labels.append(np.array([i % 3], dtype=np.int32))
            i += 1
        yield images, labels


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, seed=0)
def demo_pipeline():
    images, labels = fn.external_source(
        source=synthetic_images(BATCH),
        num_outputs=2,
        layout=["HWC", ""],
        dtype=[types.UINT8, types.INT32],
    )
    brightness = fn.random.uniform(range=(0.6, 1.4))
    images = dmath.clamp(images * brightness, 0.0, 255.0)
    return images, labels


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the demo pipeline and save one batch.")
    parser.add_argument("--out", default="external_source_batch.png")
    args = parser.parse_args()

    pipe = demo_pipeline()
    images, labels = pipe.run()
    batch = np.round(images.as_array()).astype(np.uint8)
    print(
        f"images: {images.shape()[0]} x {len(images)} {images.dtype}, labels: {labels.as_array().ravel().tolist()}"
    )
    save_grid(batch, args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
