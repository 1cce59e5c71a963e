"""The slides' SSD pipeline end to end on a generated COCO-style set; saves a picture.

It writes a small COCO-style detection set (`dali._testing.coco.make_coco`: photo-like images
with drawn objects and a real ``instances.json``), runs `ssd_pipeline.ssd_graph` — zoom out,
IoU-constrained crop, flip, resize, colour jitter — and saves one batch of augmented images with
their boxes drawn, then runs the full training form once (normalised CHW images, boxes encoded
against the SSD300 default boxes) and prints its shapes.

Run: ``python examples/ssd/show_ssd.py --out ssd_batch.png`` (``--device gpu`` on a GPU).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _show import save_grid
from dali import fn, pipeline_def, types
from dali._testing.coco import make_coco
from ssd_pipeline import ssd300_default_boxes, ssd_graph

#: One outline colour per label (cycled).
COLOURS = [(255, 64, 64), (64, 255, 64), (64, 128, 255), (255, 255, 64), (255, 64, 255)]


def draw_boxes(image: np.ndarray, boxes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``image`` (HWC uint8) with relative ltrb ``boxes`` outlined, a colour per label."""
    from PIL import Image, ImageDraw

    h, w = image.shape[:2]
    picture = Image.fromarray(np.ascontiguousarray(image))
    draw = ImageDraw.Draw(picture)
    for (left, top, right, bottom), label in zip(boxes.reshape(-1, 4), labels.ravel()):
        colour = COLOURS[int(label) % len(COLOURS)]
        draw.rectangle([left * w, top * h, right * w - 1, bottom * h - 1], outline=colour, width=2)
    return np.asarray(picture)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="ssd_batch.png")
    parser.add_argument("--data", default="ssd_data", help="where the COCO-style set is written")
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    dataset = make_coco(args.data, n_images=32)
    device_id = 0 if args.device == "gpu" else None
    common = {"batch_size": args.batch_size, "num_threads": 2, "device_id": device_id, "seed": 7}

    @pipeline_def(**common)
    def augmented():
        return ssd_graph(fn, types, dataset.file_root, dataset.annotations_file, device=args.device)

    pipe = augmented()
    images, bboxes, labels = pipe.run()
    if hasattr(images, "as_cpu"):
        images = images.as_cpu()
    drawn = [
        draw_boxes(np.asarray(images[i]), np.asarray(bboxes[i]), np.asarray(labels[i]))
        for i in range(len(images))
    ]
    save_grid(np.stack(drawn), args.out)
    counts = [int(np.asarray(bboxes[i]).shape[0]) for i in range(len(bboxes))]
    inside = all(
        np.all((np.asarray(bboxes[i]) >= 0) & (np.asarray(bboxes[i]) <= 1))
        for i in range(len(bboxes))
    )
    print(f"augmented: {len(images)} images {drawn[0].shape}, boxes per image {counts}")
    print(f"every box inside its image: {inside}")
    print(f"saved {args.out}")

    @pipeline_def(**common)
    def training():
        return ssd_graph(
            fn,
            types,
            dataset.file_root,
            dataset.annotations_file,
            device=args.device,
            anchors=ssd300_default_boxes(),
        )

    images, bboxes, labels = training().run()
    print(
        f"training batch: images {images.shape()[0]} {images.dtype}, "
        f"encoded boxes {bboxes.shape()[0]}, labels {labels.shape()[0]}"
    )


if __name__ == "__main__":
    main()
