"""Rows of `operators.py`: the displacement filters on a batch of 32 images 224x224x3 uint8.

`jitter` and `experimental.remap` are GPU-only in DALI 2.4, so they have no CPU row to compare
with; their rows (`OURS_ONLY`, our column alone) are timed by running this file:
``python benchmarks/operators_displacement.py``.
"""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32
_S = " 32x224x224x3 u8"


def _images() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(1)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _float_images() -> list[list[np.ndarray]]:
    return [[(x / np.float32(255)).astype(np.float32) for x in _images()[0]]]


def _with_maps() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(2)
    ys, xs = np.mgrid[0:224, 0:224].astype(np.float32)
    mx = [(xs + rng.normal(0, 3, xs.shape)).astype(np.float32) for _ in range(_B)]
    my = [(ys + rng.normal(0, 3, ys.shape)).astype(np.float32) for _ in range(_B)]
    return [_images()[0], mx, my]


BENCHES = [
    Bench("water()" + _S, lambda fn, t, x: fn.water(x), _images, ("HWC",)),
    Bench("water(interp_type=LINEAR)" + _S,
          lambda fn, t, x: fn.water(x, interp_type=t.INTERP_LINEAR), _images, ("HWC",)),
    Bench("water(interp_type=LINEAR) 32x224x224x3 f32",
          lambda fn, t, x: fn.water(x, interp_type=t.INTERP_LINEAR), _float_images, ("HWC",)),
    Bench("sphere()" + _S, lambda fn, t, x: fn.sphere(x), _images, ("HWC",)),
    Bench("sphere(interp_type=LINEAR)" + _S,
          lambda fn, t, x: fn.sphere(x, interp_type=t.INTERP_LINEAR), _images, ("HWC",)),
]  # fmt: skip

#: GPU-only in DALI 2.4: our CPU time alone.
OURS_ONLY = [
    Bench("jitter()" + _S, lambda fn, t, x: fn.jitter(x), _images, ("HWC",)),
    Bench("jitter(nDegree=5)" + _S, lambda fn, t, x: fn.jitter(x, nDegree=5), _images, ("HWC",)),
    Bench("experimental.remap()" + _S,
          lambda fn, t, x, mx, my: fn.experimental.remap(x, mx, my), _with_maps,
          ("HWC", "", "")),
    Bench("experimental.remap(interp=NN)" + _S,
          lambda fn, t, x, mx, my: fn.experimental.remap(x, mx, my, interp=t.INTERP_NN),
          _with_maps, ("HWC", "", "")),
]  # fmt: skip


if __name__ == "__main__":
    import dali
    from operators import measure

    for bench in OURS_ONLY:
        t = measure({"dali": dali}, bench, repeats=5, iterations=10)
        print(f"{bench.name}  {t['dali'] * 1e3:.3f}", flush=True)
