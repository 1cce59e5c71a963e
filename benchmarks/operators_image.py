"""Rows of `operators.py`: image operators (colour, demosaicing, perspective warp,
resize-crop-mirror, JPEG distortion) on a batch of 32 images."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _images(shape: tuple[int, ...] = (224, 224, 3), seed: int = 1) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    # smooth content (a gradient plus noise), as photos compress, not uniform noise
    y, x = np.mgrid[: shape[0], : shape[1]]
    base = ((x + y) * 255 // (shape[0] + shape[1])).astype(np.uint8)
    out = []
    for _ in range(_B):
        noise = rng.integers(0, 32, shape, dtype=np.uint8)
        img = (base.reshape(*shape[:2], *([1] * (len(shape) - 2))) + noise).astype(np.uint8)
        out.append(np.ascontiguousarray(img))
    return [out]


#: A mild homography (row-major 3x3).
_M = [1.0, 0.1, -10.0, 0.05, 0.95, 5.0, 0.0002, 0.0001, 1.0]

BENCHES = [
    Bench(
        "color_space_conversion(RGB->YCbCr) 32x224x224x3 u8",
        lambda fn, t, x: fn.color_space_conversion(x, image_type=t.RGB, output_type=t.YCbCr),
        _images,
        ("HWC",),
    ),
    Bench(
        "color_space_conversion(RGB->GRAY) 32x224x224x3 u8",
        lambda fn, t, x: fn.color_space_conversion(x, image_type=t.RGB, output_type=t.GRAY),
        _images,
        ("HWC",),
    ),
    Bench("equalize 32x224x224x3 u8", lambda fn, t, x: fn.equalize(x), _images, ("HWC",)),
    Bench(
        "debayer(blue_position=[0, 0]) 32x224x224 u8",
        lambda fn, t, x: fn.debayer(x, blue_position=[0, 0]),
        lambda: _images((224, 224)),
        ("HW",),
    ),
    Bench(
        "experimental.warp_perspective(matrix) 32x224x224x3 u8",
        lambda fn, t, x: fn.experimental.warp_perspective(x, matrix=_M),
        _images,
        ("HWC",),
    ),
    Bench(
        "resize_crop_mirror(resize_shorter=256, crop=224, mirror=1) 32x300x400x3 u8",
        lambda fn, t, x: fn.resize_crop_mirror(x, resize_shorter=256, crop=(224, 224), mirror=1),
        lambda: _images((300, 400, 3)),
        ("HWC",),
    ),
    Bench(
        "jpeg_compression_distortion(quality=50) 32x224x224x3 u8",
        lambda fn, t, x: fn.jpeg_compression_distortion(x, quality=50),
        _images,
        ("HWC",),
    ),
]
