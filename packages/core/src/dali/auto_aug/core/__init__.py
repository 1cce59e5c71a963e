"""The building blocks of automatic augmentations (DALI's ``nvidia.dali.auto_aug.core``).

* `augmentation`: the decorator that turns a function of DALI operators, ``f(data, parameter)``,
  into an `Augmentation` driven by a magnitude bin (``mag_range``, ``randomly_negate``,
  ``mag_to_param``, ``param_device``);
* `signed_bin`: magnitude bins paired with random signs, drawn once before a batch is split;
* `select`: every sample through the augmentation its index names (conditional execution:
  the pipeline needs ``enable_conditionals=True``);
* `Policy`: AutoAugment's sub-policies.

Example:
    >>> from dali import fn
    >>> from dali.auto_aug import core
    >>> @core.augmentation(mag_range=(0, 0.5), randomly_negate=True)
    ... def my_brightness(data, delta):
    ...     return fn.brightness(data, brightness_shift=delta)
    >>> my_brightness.name, my_brightness.mag_range
    ('my_brightness', (0, 0.5))
"""

from __future__ import annotations

from dali.auto_aug.core._augmentation import Augmentation as _Augmentation
from dali.auto_aug.core._augmentation import signed_bin
from dali.auto_aug.core._select import select
from dali.auto_aug.core.decorator import augmentation
from dali.auto_aug.core.policy import Policy

__all__ = ["Policy", "_Augmentation", "augmentation", "select", "signed_bin"]
