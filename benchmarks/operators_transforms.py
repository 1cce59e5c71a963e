"""Rows of `operators.py`: the affine transform generators (``fn.transforms.*``).

Each makes one small float32 matrix per sample, so a row measures the per-batch overhead of
the operator on a batch of 64: per-sample arguments (angles, offsets, ...) fed by
``external_source``, or (``combine``) per-sample input matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from operators import Bench

_B = 64
_rng = np.random.default_rng(0)


def _vectors(n: int, lo: float, hi: float) -> list[np.ndarray]:
    return [_rng.uniform(lo, hi, n).astype(np.float32) for _ in range(_B)]


def _scalars(lo: float, hi: float) -> list[np.ndarray]:
    return [np.array(v, np.float32) for v in _rng.uniform(lo, hi, _B)]


def _matrices() -> list[np.ndarray]:
    return [_rng.uniform(-2, 2, (2, 3)).astype(np.float32) for _ in range(_B)]


ANGLES = _scalars(-180, 180)
OFFSETS = _vectors(2, -50, 50)
SCALES = _vectors(2, 0.5, 2)
SHEAR_ANGLES = _vectors(2, -30, 30)
STARTS = _vectors(2, 0, 0.4)
ENDS = _vectors(2, 0.6, 1)


def _rotation(fn: Any, types: Any, angle: Any) -> Any:
    return fn.transforms.rotation(angle=angle, center=[112.0, 112.0])


def _rotation3d(fn: Any, types: Any, angle: Any) -> Any:
    return fn.transforms.rotation(angle=angle, axis=[1.0, 2.0, 3.0], center=[8.0, 8.0, 8.0])


BENCHES: list[Bench] = [
    Bench(
        "transforms.translation(offset=per-sample) 64",
        lambda fn, types, off: fn.transforms.translation(offset=off),
        lambda: [OFFSETS],
    ),
    Bench(
        "transforms.scale(scale=per-sample, center) 64",
        lambda fn, types, s: fn.transforms.scale(scale=s, center=[112.0, 112.0]),
        lambda: [SCALES],
    ),
    Bench("transforms.rotation(angle=per-sample, center) 64", _rotation, lambda: [ANGLES]),
    Bench("transforms.rotation(3-D, angle=per-sample) 64", _rotation3d, lambda: [ANGLES]),
    Bench(
        "transforms.shear(angles=per-sample) 64",
        lambda fn, types, a: fn.transforms.shear(angles=a, center=[0.5, 0.5]),
        lambda: [SHEAR_ANGLES],
    ),
    Bench(
        "transforms.crop(from_start, from_end per-sample) 64",
        lambda fn, types, a, b: fn.transforms.crop(from_start=a, from_end=b, to_end=224.0),
        lambda: [STARTS, ENDS],
    ),
    Bench(
        "transforms.combine(2 per-sample inputs) 64",
        lambda fn, types, a, b: fn.transforms.combine(a, b),
        lambda: [_matrices(), _matrices()],
    ),
    Bench(
        "transforms.rotation(input, angle=per-sample) 64",
        lambda fn, types, m, a: fn.transforms.rotation(m, angle=a),
        lambda: [_matrices(), ANGLES],
    ),
]
