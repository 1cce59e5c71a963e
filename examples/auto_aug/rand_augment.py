"""A RandAugment classification pipeline, as DALI's EfficientNet and ResNet examples train with;
saves a picture grid of an augmented batch.

Images are read and decoded, randomly resized and cropped to 224×224, flipped, then augmented
by RandAugment (`dali.auto_aug.rand_augment`: ``n`` operations per image, drawn from 14, each
with magnitude ``m`` of 31 bins; translations relative to the image size) and normalised to the
float CHW tensors a network takes. ``--scheme trivial`` uses TrivialAugment Wide and
``--scheme auto`` AutoAugment's ImageNet policy instead. The schemes split the batch between
augmentations with ``if`` on per-sample draws, so the pipeline has ``enable_conditionals=True``.

The images are generated (`dali._testing.images.make_imagenet_like`: photo-like JPEGs in 10
class folders).

Run: ``python examples/auto_aug/rand_augment.py --out rand_augment.png`` (``--device gpu`` on a
GPU: decoding and augmentations there).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _show import save_grid
from dali import fn, pipeline_def, types
from dali._testing.images import make_imagenet_like
from dali.auto_aug import auto_augment, rand_augment, trivial_augment

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def training_pipeline(
    file_root: str, device: str, scheme: str, n: int, m: int, size: int, normalize: bool
):
    """Read, decode, crop, flip and augment; ``normalize``: float CHW, else HWC uint8."""
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")
    images = fn.random_resized_crop(images, size=size)
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    # the images' shapes (on the CPU) make the translations relative to the image size
    shape = images.shape(device="cpu")
    if scheme == "rand":
        images = rand_augment.rand_augment(images, n=n, m=m, shape=shape)
    elif scheme == "trivial":
        images = trivial_augment.trivial_augment_wide(images, shape=shape)
    else:
        images = auto_augment.auto_augment_image_net(images, shape=shape)
    if normalize:
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT, output_layout="CHW", mean=MEAN, std=STD
        )
    return images, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="rand_augment.png")
    parser.add_argument("--images", default="rand_augment_images", help="where images go")
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--scheme", default="rand", choices=["rand", "trivial", "auto"])
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--n", type=int, default=2, help="RandAugment's operations per image")
    parser.add_argument("--m", type=int, default=9, help="RandAugment's magnitude bin (0-30)")
    parser.add_argument("--size", type=int, default=224)
    args = parser.parse_args()

    make_imagenet_like(args.images, n=args.batch_size, processes=1)
    common = {
        "batch_size": args.batch_size,
        "num_threads": 2,
        "device_id": 0 if args.device == "gpu" else None,
        "seed": 3,
        "enable_conditionals": True,
    }
    graph = (os.path.abspath(args.images), args.device, args.scheme, args.n, args.m, args.size)

    pipe = pipeline_def(training_pipeline, **common)(*graph, normalize=False)
    images, labels = pipe.run()
    images = images.as_cpu() if hasattr(images, "as_cpu") else images
    print(f"{args.scheme} augmented: {len(images)} images {images.shape()[0]} {images.dtype}")
    print(f"labels: {labels.as_array().ravel().tolist()}")
    save_grid(images.as_array(), args.out)
    print(f"saved {args.out}")

    train = pipeline_def(training_pipeline, **common)(*graph, normalize=True)
    images, _ = train.run()
    images = images.as_cpu() if hasattr(images, "as_cpu") else images
    print(f"training batch: {len(images)} x {images.shape()[0]} {images.layout()} {images.dtype}")


if __name__ == "__main__":
    main()
