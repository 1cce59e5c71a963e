"""Rows of `operators.py`: the eight `fn.reductions.*` operators on batches of realistic size.

Each operator in its common configuration: whole-sample statistics and per-channel ones (over
``H, W`` of ``HWC`` images), on 32 images of 224x224x3, uint8 (as decoded) and float32 (as
normalised); one row on a ragged batch of decoded-like images (sample by sample on the threads).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from operators import Bench

_B = 32


def _u8() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(1)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _f32() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(2)
    return [[rng.random((224, 224, 3), dtype=np.float32) for _ in range(_B)]]


def _ragged() -> list[list[np.ndarray]]:
    """32 images of 200-300 x 200-300 (decoded photos of different sizes)."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(200, 301, (_B, 2))
    return [[rng.integers(0, 256, (int(h), int(w), 3), dtype=np.uint8) for h, w in sizes]]


def _std(kind: str, **kw: Any) -> Any:
    def graph(fn: Any, types: Any, x: Any) -> Any:
        return getattr(fn.reductions, kind)(x, fn.reductions.mean(x, **kw), **kw)

    return graph


BENCHES = [
    Bench("reductions.min() 32x224x224x3 u8", lambda fn, t, x: fn.reductions.min(x), _u8, ["HWC"]),
    Bench(
        "reductions.max(HW) 32x224x224x3 f32",
        lambda fn, t, x: fn.reductions.max(x, axis_names="HW"),
        _f32,
        ["HWC"],
    ),
    Bench("reductions.sum() 32x224x224x3 u8", lambda fn, t, x: fn.reductions.sum(x), _u8, ["HWC"]),
    Bench(
        "reductions.sum(HW) 32x224x224x3 f32",
        lambda fn, t, x: fn.reductions.sum(x, axis_names="HW"),
        _f32,
        ["HWC"],
    ),
    Bench(
        "reductions.mean(HW) 32x224x224x3 u8",
        lambda fn, t, x: fn.reductions.mean(x, axis_names="HW"),
        _u8,
        ["HWC"],
    ),
    Bench(
        "reductions.mean(HW) ragged 32x~250x250x3 u8",
        lambda fn, t, x: fn.reductions.mean(x, axis_names="HW"),
        _ragged,
        ["HWC"],
    ),
    Bench(
        "reductions.mean_square() 32x224x224x3 f32",
        lambda fn, t, x: fn.reductions.mean_square(x),
        _f32,
        ["HWC"],
    ),
    Bench(
        "reductions.rms(C) 32x224x224x3 u8",
        lambda fn, t, x: fn.reductions.rms(x, axis_names="C"),
        _u8,
        ["HWC"],
    ),
    Bench(
        "reductions.std_dev(HW, mean) 32x224x224x3 u8",
        _std("std_dev", axis_names="HW"),
        _u8,
        ["HWC"],
    ),
    Bench("reductions.variance(mean) 32x224x224x3 f32", _std("variance"), _f32, ["HWC"]),
]
