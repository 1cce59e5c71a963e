"""Two augmented views per image, as SimCLR and BYOL train on; saves a picture of a batch.

Each image is decoded once and augmented twice, independently (BYOL's two asymmetric view
recipes; SimCLR uses the first for both): a random resized crop with a horizontal flip, colour
jitter (brightness, contrast, saturation, hue) with probability 0.8, grayscale with probability
0.2, a Gaussian blur (probability 1.0 in the first view, 0.1 in the second) and solarization
(only in the second view, probability 0.2; `dali.auto_aug.augmentations.solarize`). The random
choices are per sample: ``if`` on a coin flip splits the batch (``enable_conditionals=True``).

The images are generated (`dali._testing.images.make_imagenet_like`: photo-like JPEGs). The
picture shows the first view of each image in the top row and its second view below.

Run: ``python examples/auto_aug/simclr_views.py --out simclr_views.png`` (``--device gpu`` on
a GPU: decoding and augmentations there).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _show import save_grid
from dali import fn, pipeline_def, types
from dali._testing.images import make_imagenet_like
from dali.auto_aug import augmentations

#: ImageNet's channel statistics (0..255), for the normalised training outputs.
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def colour_jitter(images, strength: float = 0.5):
    """SimCLR's colour jitter: brightness, contrast, saturation by up to ``0.8·strength`` and
    hue by up to ``0.2·strength`` (in turns: ×360 degrees), each drawn per sample."""
    s = 0.8 * strength
    return fn.color_twist(
        images,
        brightness=fn.random.uniform(range=[1 - s, 1 + s]),
        contrast=fn.random.uniform(range=[1 - s, 1 + s]),
        saturation=fn.random.uniform(range=[1 - s, 1 + s]),
        hue=fn.random.uniform(range=[-0.2 * strength * 360, 0.2 * strength * 360]),
    )


def view(images, size: int, blur_p: float, solarize_p: float):
    """One augmented view of ``images`` (HWC uint8)."""
    images = fn.random_resized_crop(images, size=size, random_area=[0.08, 1.0])
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    if fn.random.coin_flip(probability=0.8):
        images = colour_jitter(images)
    if fn.random.coin_flip(probability=0.2):
        images = fn.hsv(images, saturation=0.0)  # grayscale, kept as three channels
    if fn.random.coin_flip(probability=blur_p):
        # torchvision's kernel of 10% of the image size; sigma in [0.1, 2.0]
        window = size // 10 * 2 + 1
        images = fn.gaussian_blur(
            images, window_size=window, sigma=fn.random.uniform(range=[0.1, 2.0])
        )
    if fn.random.coin_flip(probability=solarize_p):
        # the auto_aug solarization with threshold 128: magnitudes (256, 0) in 3 bins, bin 1
        images = augmentations.solarize(images, magnitude_bin=1, num_magnitude_bins=3)
    return images


def two_views(file_root: str, size: int, device: str, train: bool):
    """Both views of each image; ``train``: normalised float CHW, else HWC uint8 to look at."""
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")
    first = view(images, size, blur_p=1.0, solarize_p=0.0)
    second = view(images, size, blur_p=0.1, solarize_p=0.2)
    if train:
        first, second = (
            fn.crop_mirror_normalize(v, dtype=types.FLOAT, output_layout="CHW", mean=MEAN, std=STD)
            for v in (first, second)
        )
    return first, second, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="simclr_views.png")
    parser.add_argument("--images", default="simclr_images", help="where images are written")
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--size", type=int, default=160, help="the views' side")
    args = parser.parse_args()

    make_imagenet_like(args.images, n=args.batch_size, processes=1)
    common = {
        "batch_size": args.batch_size,
        "num_threads": 2,
        "device_id": 0 if args.device == "gpu" else None,
        "seed": 12,
        "enable_conditionals": True,
    }
    root = os.path.abspath(args.images)
    pipe = pipeline_def(two_views, **common)(root, args.size, args.device, train=False)
    first, second, _ = pipe.run()
    first, second = (v.as_cpu() if hasattr(v, "as_cpu") else v for v in (first, second))
    print(f"views: 2 x {len(first)} images {first.shape()[0]} {first.dtype}")
    save_grid(np.concatenate([first.as_array(), second.as_array()]), args.out, args.batch_size)
    print(f"saved {args.out}")

    train = pipeline_def(two_views, **common)(root, args.size, args.device, train=True)
    first, second, labels = train.run()
    first = first.as_cpu() if hasattr(first, "as_cpu") else first
    print(f"training views: {first.shape()[0]} {first.layout()} {first.dtype}")
    print(f"labels: {labels.as_array().ravel().tolist()}")


if __name__ == "__main__":
    main()
