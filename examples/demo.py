"""The README demo: the quickstart of "Getting started with JAX and DALI", on the CPU.

It generates a small image tree like the tutorial's ``images`` folder (class sub-folders of
JPEGs, written deterministically by `dali._testing.images`), runs the tutorial's quickstart
pipeline (``readers.file`` → ``decoders.image`` → ``resize`` to 256×256) and saves one batch as
a picture grid, as the tutorial's ``show_image`` does.

Run: ``python3 -m nox -s demo`` (or ``python examples/demo.py --out demo_batch.png``).
"""

from __future__ import annotations

import argparse
import os

from _show import save_grid
from dali import fn, pipeline_def
from dali._testing.images import make_image_tree


def simple_pipeline(image_dir: str, device: str):
    """The tutorial's quickstart graph; ``device="mixed"`` decodes on the GPU."""
    jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
    images = fn.decoders.image(jpegs, device=device)
    images = fn.resize(images, resize_x=256, resize_y=256)
    return images, labels


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the quickstart pipeline, save one batch.")
    parser.add_argument("--out", default="demo_batch.png")
    parser.add_argument("--images", default="demo_images", help="where the images are written")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--decoder", default="cpu", choices=["cpu", "mixed"])
    args = parser.parse_args()

    make_image_tree(args.images)
    device_id = 0 if args.decoder == "mixed" else None
    pipe = pipeline_def(
        simple_pipeline, batch_size=args.batch_size, num_threads=2, device_id=device_id
    )(os.path.abspath(args.images), args.decoder)
    images, labels = pipe.run()
    if hasattr(images, "as_cpu"):
        images = images.as_cpu()
    print(f"batch: {len(images)} images of {images.shape()[0]} {images.dtype}")
    print(
        f"labels: {labels.as_array().ravel().tolist()}; epoch size {pipe.epoch_size('image_reader')}"
    )
    save_grid(images.as_array(), args.out)
    print(f"saved {args.out}")
    print(
        "next: examples/README.md lists every example (JAX, PyTorch, TensorFlow, detection, "
        "video, speech, automatic augmentation); docs/migration.md says how a DALI program "
        "moves over; python -m dali shows what this installation can do"
    )


if __name__ == "__main__":
    main()
