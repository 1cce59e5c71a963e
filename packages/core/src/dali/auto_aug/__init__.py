"""Automatic augmentations (DALI's ``nvidia.dali.auto_aug``): AutoAugment, RandAugment and
TrivialAugment written with DALI operators, on the CPU or the GPU.

* `auto_augment`: ``auto_augment`` / ``auto_augment_image_net`` (the paper's policies),
  ``apply_auto_augment`` (any `core.Policy`), ``get_*_policy``;
* `rand_augment`: ``rand_augment(data, n, m)``, ``apply_rand_augment``,
  ``get_rand_augment_suite``;
* `trivial_augment`: ``trivial_augment_wide``, ``apply_trivial_augment``,
  ``get_trivial_augment_wide_suite``;
* `augmentations`: the standard suite (shear, translate, rotate, brightness, contrast, color,
  sharpness, posterize, solarize, solarize_add, invert, equalize, auto_contrast, identity);
* `core`: the `core.augmentation` decorator for custom augmentations, `core.Policy`,
  `core.signed_bin`, `core.select`.

They draw their random choices with ``fn.random.*`` (reproducible for a pipeline seed, or
their ``seed``) and split the batch between augmentations with ``if`` on DataNodes, so the
pipeline needs ``enable_conditionals=True``. Samples are ``uint8`` images (``HWC``) or videos
(``FHWC``), on the CPU or the GPU.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali.auto_aug import trivial_augment
    >>> @dali.pipeline_def(
    ...     batch_size=2, num_threads=1, device_id=None, seed=0, enable_conditionals=True
    ... )
    ... def pipe():
    ...     img = dali.types.Constant(np.full((8, 8, 3), 100, np.uint8), layout="HWC")
    ...     return trivial_augment.trivial_augment_wide(img)
    >>> (out,) = pipe().run()
    >>> len(out), out.at(0).shape
    (2, (8, 8, 3))
"""

from __future__ import annotations

from dali.auto_aug import augmentations, auto_augment, core, rand_augment, trivial_augment

__all__ = ["augmentations", "auto_augment", "core", "rand_augment", "trivial_augment"]
