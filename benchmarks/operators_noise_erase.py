"""Rows of `operators.py`: noise.gaussian, noise.salt_and_pepper, noise.shot, erase and
grid_mask on a batch of 32 images 224x224x3 (uint8)."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _images() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(7)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


_NAME = "32x224x224x3 u8"
BENCHES = [
    Bench(f"noise.gaussian(stddev=10) {_NAME}",
          lambda fn, t, x: fn.noise.gaussian(x, stddev=10.0), _images, ("HWC",)),
    Bench(f"noise.salt_and_pepper() {_NAME}",
          lambda fn, t, x: fn.noise.salt_and_pepper(x), _images, ("HWC",)),
    Bench(f"noise.shot(factor=20) {_NAME}",
          lambda fn, t, x: fn.noise.shot(x, factor=20.0), _images, ("HWC",)),
    Bench(f"erase(2 regions, fill per channel) {_NAME}",
          lambda fn, t, x: fn.erase(x, anchor=(50, 50, 120, 10), shape=(80, 80, 30, 200),
                                    fill_value=(118, 185, 0)), _images, ("HWC",)),
    Bench(f"grid_mask(tile=40, angle=0.3) {_NAME}",
          lambda fn, t, x: fn.grid_mask(x, tile=40, angle=0.3), _images, ("HWC",)),
]  # fmt: skip
