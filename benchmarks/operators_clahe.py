"""Rows of `operators.py`: `fn.clahe` on a batch of 32 images 224x224 uint8 (RGB and grey).

Both libraries make the same OpenCV calls per sample on the CPU (``cvtColor`` to Lab, CLAHE on
L*, ``cvtColor`` back, for RGB with ``luma_only``), so the rows measure the per-sample dispatch
around them.
"""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _rgb() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(11)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _grey() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(12)
    return [[rng.integers(0, 256, (224, 224, 1), dtype=np.uint8) for _ in range(_B)]]


_K = {"tiles_x": 8, "tiles_y": 8, "clip_limit": 2.0}
BENCHES = [
    Bench("clahe(8x8, clip_limit=2) 32x224x224x3 u8", lambda fn, t, x: fn.clahe(x, **_K),
          _rgb, ("HWC",)),
    Bench("clahe(8x8, clip_limit=2, luma_only=False) 32x224x224x3 u8",
          lambda fn, t, x: fn.clahe(x, **_K, luma_only=False), _rgb, ("HWC",)),
    Bench("clahe(8x8, clip_limit=2) 32x224x224x1 u8", lambda fn, t, x: fn.clahe(x, **_K),
          _grey, ("HWC",)),
]  # fmt: skip
