"""Rows of `operators.py`: lookup_table, coord_flip, permute_batch, batch_permutation,
random.choice, random.beta and peek_image_shape, each on a batch of realistic size."""

from __future__ import annotations

import io

import numpy as np
from operators import Bench

_B = 64


def _labels() -> list[list[np.ndarray]]:
    """64 segmentation masks of 224x224 class ids (uint8), remapped by a table."""
    rng = np.random.default_rng(1)
    return [[rng.integers(0, 200, (224, 224), dtype=np.uint8) for _ in range(_B)]]


def _points() -> list[list[np.ndarray]]:
    """256 samples of 0-40 keypoints (x, y), as after a detection reader."""
    rng = np.random.default_rng(2)
    return [[rng.random((int(n), 2)).astype(np.float32) for n in rng.integers(0, 41, 256)]]


def _images() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(3)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _tokens() -> list[list[np.ndarray]]:
    """256 samples, each choosing among 10 candidate values (a scalar per sample)."""
    return [[np.arange(10, dtype=np.int32) * 3] * 256]


def _jpegs() -> list[list[np.ndarray]]:
    """64 encoded JPEGs (8 distinct photos-sized files, 300-500 px)."""
    from PIL import Image

    rng = np.random.default_rng(4)
    files = []
    for k in range(8):
        h, w = 300 + 25 * k, 500 - 20 * k
        img = Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=85)
        files.append(np.frombuffer(buf.getvalue(), np.uint8))
    return [[files[i % 8] for i in range(_B)]]


_KEYS = list(range(200))
_VALUES = [float((k * 7) % 19) for k in _KEYS]
_P = [0.1] * 10

BENCHES = [
    Bench(
        "lookup_table(200 keys) 64x224x224 u8->f32",
        lambda fn, t, x: fn.lookup_table(x, keys=_KEYS, values=_VALUES, default_value=-1.0),
        _labels,
    ),
    Bench(
        "coord_flip(flip_x, flip_y) 256x[0-40]x2 f32",
        lambda fn, t, x: fn.coord_flip(x, flip_x=1, flip_y=1, center_y=0.4),
        _points,
    ),
    Bench(
        "permute_batch(batch_permutation) 64x224x224x3 u8",
        lambda fn, t, x: fn.permute_batch(x, indices=fn.batch_permutation()),
        _images,
        ("HWC",),
    ),
    Bench(
        "batch_permutation(no_fixed_points) bs=256",
        lambda fn, t, x: fn.batch_permutation(no_fixed_points=True),
        _tokens,
    ),
    Bench(
        "random.choice(10 values, p) bs=256", lambda fn, t, x: fn.random.choice(x, p=_P), _tokens
    ),
    Bench(
        "random.beta(alpha=0.4, beta=0.4) bs=256",
        lambda fn, t, x: fn.random.beta(alpha=0.4, beta=0.4),
        _tokens,
    ),
    Bench("peek_image_shape 64 JPEGs", lambda fn, t, x: fn.peek_image_shape(x), _jpegs),
]
