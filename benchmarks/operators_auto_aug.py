"""Rows of `operators.py`: the automatic augmentations (``auto_aug``) on a batch of 32 images
224x224x3 uint8.

Each library runs its own ``auto_aug`` package (``nvidia.dali.auto_aug``, ``dali.auto_aug``):
single augmentations with a fixed magnitude bin (one to four operators each), and the three
schemes, which draw per-sample choices and split the batch between augmentations with
conditionals (``enable_conditionals=True``).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from operators import Bench

_B = 32


def _images() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(1)
    return [[rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]]


def _auto_aug(fn: Any, module: str) -> Any:
    """The library's ``auto_aug.<module>`` (the library of this ``fn``)."""
    return importlib.import_module(f"{fn.__name__.rpartition('.')[0]}.auto_aug.{module}")


def _augmentation(name: str, bin_: int = 7) -> Any:
    def graph(fn: Any, types: Any, x: Any) -> Any:
        aug = getattr(_auto_aug(fn, "augmentations"), name)
        core = _auto_aug(fn, "core")
        magnitude_bin = bin_
        if aug.randomly_negate:
            sign = types.Constant(np.int32(0), device="cpu")
            magnitude_bin = core.signed_bin(bin_, random_sign=sign)
        return aug(x, magnitude_bin=magnitude_bin, num_magnitude_bins=11)

    return graph


def _rand_augment(fn: Any, types: Any, x: Any) -> Any:
    return _auto_aug(fn, "rand_augment").rand_augment(x, n=2, m=9)


def _trivial_augment(fn: Any, types: Any, x: Any) -> Any:
    return _auto_aug(fn, "trivial_augment").trivial_augment_wide(x)


def _auto_augment(fn: Any, types: Any, x: Any) -> Any:
    return _auto_aug(fn, "auto_augment").auto_augment_image_net(x)


_S = " 32x224x224x3 u8"
BENCHES = [
    *(
        Bench(f"auto_aug.augmentations.{name}(bin 7 of 11)" + _S, _augmentation(name), _images,
              ("HWC",))
        for name in ("shear_x", "rotate", "contrast", "sharpness", "posterize", "solarize",
                     "auto_contrast")
    ),
    Bench("auto_aug.rand_augment(n=2, m=9)" + _S, _rand_augment, _images, ("HWC",), True),
    Bench("auto_aug.trivial_augment_wide()" + _S, _trivial_augment, _images, ("HWC",), True),
    Bench("auto_aug.auto_augment_image_net()" + _S, _auto_augment, _images, ("HWC",), True),
]  # fmt: skip
