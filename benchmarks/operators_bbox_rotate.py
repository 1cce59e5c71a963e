"""Rows of `operators.py`: `fn.bbox_rotate` on detection batches of realistic size (COCO-like:
up to 50 boxes per image), with constant and per-sample arguments, with and without labels."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 64


def _boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    lo = rng.random((n, 2)) * 0.8
    return np.concatenate([lo, lo + 0.02 + rng.random((n, 2)) * 0.3], axis=1).astype(np.float32)


def _detection() -> list[list[np.ndarray]]:
    """64 samples of 1-50 ltrb boxes, their int32 labels, angles (float32) and HWC shapes."""
    rng = np.random.default_rng(11)
    counts = rng.integers(1, 51, _B)
    boxes = [_boxes(rng, int(n)) for n in counts]
    labels = [rng.integers(1, 91, int(n)).astype(np.int32) for n in counts]
    angles = [np.array(a, np.float32) for a in rng.uniform(-30, 30, _B)]
    shapes = [np.array([h, w, 3], np.int64) for h, w in rng.integers(300, 640, (_B, 2))]
    return [boxes, labels, angles, shapes]


def _boxes_only() -> list[list[np.ndarray]]:
    return _detection()[:1]


BENCHES: list[Bench] = [
    Bench(
        "bbox_rotate(angle=30, input_shape=[480, 640]) 64x(1-50)x4",
        lambda fn, types, b: fn.bbox_rotate(b, angle=30.0, input_shape=[480, 640]),
        _boxes_only,
    ),
    Bench(
        "bbox_rotate(boxes, labels; per-sample angle, input_shape, keep_size) 64x(1-50)x4",
        lambda fn, types, b, lab, a, s: tuple(
            fn.bbox_rotate(b, lab, angle=a, input_shape=s, keep_size=True)
        ),
        _detection,
    ),
    Bench(
        "bbox_rotate(mode=halfway, xyWH, size=[512, 512]) 64x(1-50)x4",
        lambda fn, types, b: fn.bbox_rotate(
            b,
            angle=-75.0,
            input_shape=[480, 640],
            mode="halfway",
            bbox_layout="xyWH",
            size=[512, 512],
        ),
        _boxes_only,
    ),
]
