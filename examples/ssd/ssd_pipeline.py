"""The SSD training pipeline of the GTC slides (seed 004), for `dali` and for NVIDIA DALI alike.

The slides' "object detection" page augments images and their boxes together::

    images = self.paste(images, paste_x = px, paste_y = py, ratio = ratio)
    bboxes = self.bbpaste(bboxes, paste_x = px, paste_y = py, ratio = ratio)
    crop_begin, crop_size, bboxes, labels = self.prospective_crop(bboxes, labels)
    images = self.slice(images, crop_begin, crop_size)
    images = self.flip(images, horizontal = rng, vertical = rng2)
    bboxes = self.bbflip(bboxes, horizontal = rng, vertical = rng2)

`ssd_graph` is that graph, completed as SSD300 training runs it (NVIDIA's DeepLearningExamples
SSD): COCO reader with relative ltrb boxes → decode → zoom out (paste on a canvas up to 2× the
image, the mean colour around it) → IoU-constrained random crop → horizontal flip → resize to
300×300 → colour jitter → normalise to CHW float → encode the boxes against the 8,732 SSD300
default boxes. It takes the library's ``fn`` and ``types`` modules, so the same code builds the
pipeline with ``dali`` and with ``nvidia.dali`` (``benchmarks/ssd_pipeline.py`` runs both).

Example:
    >>> import dali.fn as fn, dali.types as types
    >>> len(ssd300_default_boxes())
    8732
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

#: ImageNet channel means and deviations (0..255), SSD's normalisation.
MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
STD = (0.229 * 255, 0.224 * 255, 0.225 * 255)
#: The zoom-out canvas colour: the mean, rounded (paste takes integer fill values).
FILL = tuple(round(m) for m in MEAN)


def ssd300_default_boxes() -> list[float]:
    """The SSD300 default boxes (anchors) as a flat ltrb list in [0, 1], 8,732 × 4 values.

    Six feature maps (38, 19, 10, 5, 3, 1 cells a side), two square boxes per cell (scale
    ``s_k`` and ``sqrt(s_k·s_k+1)``) and two (or four) boxes per aspect ratio 2 (and 3), as in
    the SSD paper and NVIDIA's SSD300 v1.1.
    """
    size, feat = 300, (38, 19, 10, 5, 3, 1)
    steps, scales = (8, 16, 32, 64, 100, 300), (21, 45, 99, 153, 207, 261, 315)
    ratios = ((2,), (2, 3), (2, 3), (2, 3), (2,), (2,))
    boxes = []
    for k, f in enumerate(feat):
        s1, s2 = scales[k] / size, math.sqrt(scales[k] * scales[k + 1]) / size
        shapes = [(s1, s1), (s2, s2)]
        for a in ratios[k]:
            r = math.sqrt(a)
            shapes += [(s1 * r, s1 / r), (s1 / r, s1 * r)]
        fk = size / steps[k]
        for i, j in itertools.product(range(f), repeat=2):
            cx, cy = (j + 0.5) / fk, (i + 0.5) / fk
            for w, h in shapes:
                boxes.append((cx, cy, w, h))
    xywh = np.clip(np.array(boxes, dtype=np.float64), 0.0, 1.0)
    ltrb = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1)
    return ltrb.astype(np.float32).ravel().tolist()


def ssd_graph(
    fn: Any,
    types: Any,
    file_root: str,
    annotations_file: str,
    *,
    device: str = "cpu",
    anchors: list[float] | None = None,
    shard_id: int = 0,
    num_shards: int = 1,
) -> tuple[Any, ...]:
    """The SSD training graph (call it inside a pipeline).

    Args:
        fn, types: The library's modules (``dali.fn``/``dali.types`` or NVIDIA DALI's).
        file_root, annotations_file: A COCO-style set (``dali._testing.coco.make_coco``).
        device: ``"cpu"``: everything on the CPU; ``"gpu"``: decode with ``mixed`` and augment
            the images on the GPU (boxes stay on the CPU: they are tiny).
        anchors: Default boxes (flat ltrb) to encode against; None returns the augmented
            uint8 HWC images with their relative ltrb boxes and labels instead (for pictures).
        shard_id, num_shards: The reader's shard.

    Returns:
        ``(images, bboxes, labels)``: with ``anchors``, CHW float images, ``[8732, 4]``
        encoded boxes and ``[8732]`` labels; without, 300×300 HWC uint8 images, ``[N, 4]``
        boxes and ``[N]`` labels.
    """
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root,
        annotations_file=annotations_file,
        ratio=True,
        ltrb=True,
        skip_empty=True,
        random_shuffle=True,
        shard_id=shard_id,
        num_shards=num_shards,
        name="Reader",
    )
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")

    # zoom out: the image somewhere on a canvas 1-2x its size, boxes moved with it
    ratio = fn.random.uniform(range=[1.0, 2.0])
    px, py = fn.random.uniform(range=[0.0, 1.0]), fn.random.uniform(range=[0.0, 1.0])
    images = fn.paste(images, ratio=ratio, paste_x=px, paste_y=py, fill_value=FILL)
    bboxes = fn.bbox_paste(bboxes, ratio=ratio, paste_x=px, paste_y=py, ltrb=True)

    # a crop keeping enough of some box (the "prospective crop" of the slides)
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes,
        labels,
        aspect_ratio=[0.5, 2.0],
        thresholds=[0.0, 0.1, 0.3, 0.5, 0.7, 0.9],
        scaling=[0.3, 1.0],
        bbox_layout="xyXY",
        allow_no_crop=True,
        num_attempts=50,
    )
    images = fn.slice(images, crop_begin, crop_size, out_of_bounds_policy="trim_to_shape")

    coin = fn.random.coin_flip(probability=0.5)
    images = fn.flip(images, horizontal=coin)
    bboxes = fn.bb_flip(bboxes, horizontal=coin, ltrb=True)

    images = fn.resize(images, resize_x=300, resize_y=300)
    images = fn.color_twist(
        images,
        saturation=fn.random.uniform(range=[0.5, 1.5]),
        contrast=fn.random.uniform(range=[0.5, 1.5]),
        brightness=fn.random.uniform(range=[0.875, 1.125]),
        hue=fn.random.uniform(range=[-0.5, 0.5]),
    )
    if anchors is None:
        return images, bboxes, labels
    images = fn.crop_mirror_normalize(
        images, mean=list(MEAN), std=list(STD), dtype=types.FLOAT, output_layout="CHW"
    )
    bboxes, labels = fn.box_encoder(
        bboxes,
        labels,
        anchors=anchors,
        criteria=0.5,
        offset=True,
        stds=[0.1, 0.1, 0.2, 0.2],
        scale=300,
    )
    return images, bboxes, labels
