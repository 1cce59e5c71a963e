"""Rows of `operators.py`: `fn.tensor_resize` on batches of 32 float32 volumes (64x256x256)
resized on two axes (adjacent, apart, down and up), and on 3 axes; a uint8 row."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _volumes(dtype: type = np.float32) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(1)
    if dtype is np.float32:
        batch = [rng.random((64, 256, 256), dtype=np.float32) for _ in range(_B)]
    else:
        batch = [rng.integers(0, 256, (64, 256, 256), dtype=np.uint8) for _ in range(_B)]
    return [batch]


def _u8() -> list[list[np.ndarray]]:
    return _volumes(np.uint8)


BENCHES = [
    Bench(
        "tensor_resize(sizes=[128,128], axes=[1,2]) 32x64x256x256 f32",
        lambda fn, t, x: fn.tensor_resize(x, sizes=[128, 128], axes=[1, 2]),
        _volumes,
    ),
    Bench(
        "tensor_resize(scales=[1.5,1.5], axes=[1,2]) 32x64x256x256 f32",
        lambda fn, t, x: fn.tensor_resize(x, scales=[1.5, 1.5], axes=[1, 2]),
        _volumes,
    ),
    Bench(
        "tensor_resize(sizes=[32,128], axes=[0,2]) 32x64x256x256 f32",
        lambda fn, t, x: fn.tensor_resize(x, sizes=[32, 128], axes=[0, 2]),
        _volumes,
    ),
    Bench(
        "tensor_resize(sizes=[32,128,128]) 32x64x256x256 f32",
        lambda fn, t, x: fn.tensor_resize(x, sizes=[32, 128, 128]),
        _volumes,
    ),
    Bench(
        "tensor_resize(sizes=[128,128], axes=[1,2], NN) 32x64x256x256 u8",
        lambda fn, t, x: fn.tensor_resize(
            x, sizes=[128, 128], axes=[1, 2], interp_type=t.INTERP_NN
        ),
        _u8,
    ),
]
