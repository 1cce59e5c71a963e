"""Rows of `operators.py`: the image filters on a batch of 32 images 224x224x3 uint8.

The morphology operators (median_blur, erode, dilate) are GPU-only in DALI 2.4, so they have no
CPU row to compare with.
"""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _images() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(1)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _with_filter() -> list[list[np.ndarray]]:
    k = (np.random.default_rng(2).random((5, 5)) - 0.3).astype(np.float32)
    return [_images()[0], [k] * _B]


_S = " 32x224x224x3 u8"
BENCHES = [
    Bench("gaussian_blur(sigma=1.5)" + _S, lambda fn, t, x: fn.gaussian_blur(x, sigma=1.5),
          _images, ("HWC",)),
    Bench("gaussian_blur(window_size=3)" + _S,
          lambda fn, t, x: fn.gaussian_blur(x, window_size=3), _images, ("HWC",)),
    Bench("laplacian(window_size=3)" + _S, lambda fn, t, x: fn.laplacian(x), _images, ("HWC",)),
    Bench("laplacian(window_size=5, dtype=FLOAT)" + _S,
          lambda fn, t, x: fn.laplacian(x, window_size=5, dtype=t.FLOAT), _images, ("HWC",)),
    Bench("filter(5x5)" + _S, lambda fn, t, x, k: fn.filter(x, k), _with_filter, ("HWC", "")),
]  # fmt: skip
