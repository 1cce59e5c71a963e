"""Rows of `operators.py`: the tensor-manipulation operators on a batch of 64 images."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 64


def _images(seed: int, shape: tuple[int, ...] = (224, 224, 3)) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(_B)]


def _two() -> list[list[np.ndarray]]:
    return [_images(1), _images(2)]


def _unit() -> list[list[np.ndarray]]:
    return [_images(3, (1, 224, 224, 3))]


def _frames() -> list[list[np.ndarray]]:
    return [_images(4, (8, 64, 64, 3))]


def _fill() -> list[list[np.ndarray]]:
    return [_images(5), [np.array([1.0, 2.0, 3.0], np.float32)] * _B]


_HWC = ("HWC", "HWC")
BENCHES = [
    Bench("cat(axis=2) 2x 64x224x224x3 u8", lambda fn, t, a, b: fn.cat(a, b, axis=2), _two, _HWC),
    Bench("stack(axis=0) 2x 64x224x224x3 u8", lambda fn, t, a, b: fn.stack(a, b), _two, _HWC),
    Bench(
        "squeeze(axes=[0]) 64x1x224x224x3 u8",
        lambda fn, t, x: fn.squeeze(x, axes=[0]),
        _unit,
        ("FHWC",),
    ),
    Bench(
        "expand_dims(axes=[0]) 64x224x224x3 u8",
        lambda fn, t, x: fn.expand_dims(x, axes=[0], new_axis_names="F"),
        lambda: [_images(6)],
        ("HWC",),
    ),
    Bench(
        "reinterpret(dtype=INT16) 64x224x224x3 u8",
        lambda fn, t, x: fn.reinterpret(x, dtype=t.INT16, shape=[-1]),
        lambda: [_images(7)],
        ("HWC",),
    ),
    Bench(
        "sequence_rearrange 64x8x64x64x3 u8",
        lambda fn, t, x: fn.sequence_rearrange(x, new_order=[7, 0, 3, 3, 1]),
        _frames,
        ("FHWC",),
    ),
    Bench(
        "zeros(shape=[224,224,3], FLOAT) x64",
        lambda fn, t, x: fn.zeros(shape=[224, 224, 3], dtype=t.FLOAT),
        lambda: [[np.zeros(1, np.uint8)] * _B],
    ),
    Bench(
        "ones_like 64x224x224x3 u8",
        lambda fn, t, x: fn.ones_like(x),
        lambda: [_images(8)],
        ("HWC",),
    ),
    Bench(
        "full(shape=[224,224,3]) fill 3 floats x64",
        lambda fn, t, x, v: fn.full(v, shape=[224, 224, 3]),
        _fill,
    ),
    Bench(
        "full_like 64x224x224x3 u8, fill 3 floats",
        lambda fn, t, x, v: fn.full_like(x, v),
        _fill,
        ("HWC", ""),
    ),
]
