"""TrivialAugment Wide (https://arxiv.org/abs/2103.10158): one random augmentation per sample,
of random strength.

Every sample goes through one augmentation drawn uniformly from a list, with a magnitude bin
drawn uniformly from ``[0, num_magnitude_bins - 1]`` and, where the augmentation randomly
negates magnitudes, a random sign. `trivial_augment_wide` uses the paper's wide suite
(`get_trivial_augment_wide_suite`), `apply_trivial_augment` any list of augmentations. The
pipeline needs ``enable_conditionals=True``: the batch is split between the augmentations
(`dali.auto_aug.core.select`). As DALI's ``nvidia/dali/auto_aug/trivial_augment.py``.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali.auto_aug import trivial_augment
    >>> @dali.pipeline_def(
    ...     batch_size=4, num_threads=1, device_id=None, seed=42, enable_conditionals=True
    ... )
    ... def pipe():
    ...     img = dali.types.Constant(np.full((8, 8, 3), 200, np.uint8), layout="HWC")
    ...     return trivial_augment.trivial_augment_wide(img)
    >>> (out,) = pipe().run()
    >>> out.at(0).shape, out.at(0).dtype
    ((8, 8, 3), dtype('uint8'))
"""

from __future__ import annotations

from typing import Any

from dali import fn, types
from dali.auto_aug import augmentations as a
from dali.auto_aug.core import signed_bin
from dali.auto_aug.core._args import forbid_unused_kwargs as _forbid_unused_kwargs
from dali.auto_aug.core._augmentation import Augmentation
from dali.auto_aug.core._utils import get_translations as _get_translations
from dali.auto_aug.core._utils import pretty_select as _pretty_select
from dali.data_node import DataNode as _DataNode

__all__ = ["apply_trivial_augment", "get_trivial_augment_wide_suite", "trivial_augment_wide"]


def trivial_augment_wide(
    data: _DataNode,
    num_magnitude_bins: int = 31,
    shape: _DataNode | tuple[int, int] | None = None,
    fill_value: int | None = 128,
    interp_type: types.DALIInterpType | None = None,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
    seed: int | None = None,
    excluded: list[str] | None = None,
) -> _DataNode:
    """Applies TrivialAugment Wide (https://arxiv.org/abs/2103.10158) augmentation scheme to the
    provided batch of samples.

    Args:
        data: A batch of samples to be processed. The supported samples are images of `HWC`
            layout and videos of `FHWC` layout, the supported data type is `uint8`.
        num_magnitude_bins: The number of bins to divide the magnitude ranges into.
        shape: The size (height and width) of the image or frames in the video sequence passed
            as the `data`. If specified, the magnitude of `translation` operations depends on
            the image/frame shape and spans from 0 to `max_translate_rel * shape`. Otherwise,
            the magnitude range is `[0, max_translate_abs]` for any sample.
        fill_value: A value to be used as a padding for images/frames transformed with
            warp_affine ops (translation, shear and rotate). If `None` is specified, the
            images/frames are padded with the border value repeated (clamped).
        interp_type: Interpolation method used by the warp_affine ops (translation, shear and
            rotate). Supported values are `types.INTERP_LINEAR` (default) and
            `types.INTERP_NN`.
        max_translate_abs: int or (int, int). Only valid when ``shape`` is not provided.
            Specifies the maximal shift (in pixels) in the translation augmentation. If a tuple
            is specified, the first component limits height, the second the width. Defaults to
            32, which means the maximal magnitude shifts the image by 32 pixels.
        max_translate_rel: float or (float, float). Only valid when ``shape`` argument is
            provided. Specifies the maximal shift as a fraction of image shape in the
            translation augmentations. If a tuple is specified, the first component limits the
            height, the second the width. Defaults to 1, which means the maximal magnitude
            shifts the image entirely out of the canvas.
        seed: Seed to be used to randomly sample operations (and to negate magnitudes).
        excluded: A list of names of the operations to be excluded from the default suite of
            augmentations. If, instead of just limiting the set of operations, you need to
            include some custom operations or fine-tune the existing ones, you can use the
            `apply_trivial_augment` directly, which accepts a list of augmentations.

    Returns:
        A batch of transformed samples.
    """
    aug_kwargs: dict[str, Any] = {"fill_value": fill_value, "interp_type": interp_type}
    use_shape = shape is not None
    if use_shape:
        aug_kwargs["shape"] = shape
    augmentations = get_trivial_augment_wide_suite(
        use_shape=use_shape,
        max_translate_abs=max_translate_abs,
        max_translate_rel=max_translate_rel,
    )
    augmentation_names = {aug.name for aug in augmentations}
    assert len(augmentation_names) == len(augmentations)
    excluded = excluded or []
    for name in excluded:
        if name not in augmentation_names:
            raise ValueError(
                f"The `{name}` was specified in `excluded`, but the TrivialAugmentWide suite "
                f"does not contain augmentation with this name. "
                f"The augmentations in the suite are: {', '.join(augmentation_names)}."
            )
    selected_augments = [aug for aug in augmentations if aug.name not in excluded]
    return apply_trivial_augment(
        selected_augments, data, num_magnitude_bins=num_magnitude_bins, seed=seed, **aug_kwargs
    )


def apply_trivial_augment(
    augmentations: list[Augmentation],
    data: _DataNode,
    num_magnitude_bins: int = 31,
    seed: int | None = None,
    **kwargs: Any,
) -> _DataNode:
    """Applies the list of `augmentations` in TrivialAugment (https://arxiv.org/abs/2103.10158)
    fashion. Each sample is processed with randomly selected transformation form
    `augmentations` list. The magnitude bin for every transformation is randomly selected from
    `[0, num_magnitude_bins - 1]`.

    Args:
        augmentations: List of augmentations to be sampled and applied in TrivialAugment
            fashion.
        data: A batch of samples to be processed.
        num_magnitude_bins: The number of bins to divide the magnitude ranges into.
        seed: Seed to be used to randomly sample operations (and to negate magnitudes).
        **kwargs: Any extra parameters to be passed when calling `augmentations`. The signature
            of each augmentation is checked for any extra arguments and if the name of the
            argument matches one from the `kwargs`, the value is passed as an argument. For
            example, some augmentations from the default TrivialAugment suite accept
            ``shape``, ``fill_value`` and ``interp_type``.

    Returns:
        A batch of transformed samples.
    """
    if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 1:
        raise ValueError(
            f"The `num_magnitude_bins` must be a positive integer, got {num_magnitude_bins}."
        )
    if len(augmentations) == 0:
        raise ValueError(
            "The `augmentations` list cannot be empty. "
            "Got empty list in `apply_trivial_augment` call."
        )
    magnitude_bin: Any = fn.random.uniform(
        values=list(range(num_magnitude_bins)), dtype=types.INT32, seed=seed
    )
    use_signed_magnitudes = any(aug.randomly_negate for aug in augmentations)
    if use_signed_magnitudes:
        magnitude_bin = signed_bin(magnitude_bin, seed=seed)
    _forbid_unused_kwargs(augmentations, kwargs, "apply_trivial_augment")
    op_kwargs = dict(
        data=data, magnitude_bin=magnitude_bin, num_magnitude_bins=num_magnitude_bins, **kwargs
    )
    op_idx = fn.random.uniform(values=list(range(len(augmentations))), seed=seed, dtype=types.INT32)
    return _pretty_select(
        augmentations,
        op_idx,
        op_kwargs,
        auto_aug_name="apply_trivial_augment",
        ref_suite_name="get_trivial_augment_wide_suite",
    )


def get_trivial_augment_wide_suite(
    use_shape: bool = False,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
) -> list[Augmentation]:
    """Creates a list of 14 augmentations referred as wide augmentation space in TrivialAugment
    paper (https://arxiv.org/abs/2103.10158).

    Args:
        use_shape: If true, the translation offset is computed as a percentage of the
            image/frame shape. Useful if the samples processed with the auto augment have
            different shapes. If false, the offsets range is bounded by a constant
            (`max_translate_abs`).
        max_translate_abs: int or (int, int). Only valid with use_shape=False, specifies the
            maximal shift (in pixels) in the translation augmentations. If a tuple is
            specified, the first component limits height, the second the width. Defaults to 32.
        max_translate_rel: float or (float, float). Only valid with use_shape=True, specifies
            the maximal shift as a fraction of image/frame shape in the translation
            augmentations. If a tuple is specified, the first component limits height, the
            second the width. Defaults to 1.

    Returns:
        The 14 augmentations with the wide magnitude ranges.
    """
    default_translate_abs, default_translate_rel = 32, 1.0
    # [translate_x, translate_y] with the magnitude ranges for the limits
    translations = _get_translations(
        use_shape,
        default_translate_abs,
        default_translate_rel,
        max_translate_abs,
        max_translate_rel,
    )
    # .augmentation((mag_low, mag_high), randomly_negate_mag, magnitude_to_param_mapping)
    return [
        *translations,
        a.shear_x.augmentation((0, 0.99), True),
        a.shear_y.augmentation((0, 0.99), True),
        a.rotate.augmentation((0, 135), True),
        a.brightness.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.contrast.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.color.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.sharpness.augmentation((0.01, 0.99), True, a.sharpness_kernel),
        a.posterize.augmentation((8, 2), False, a.poster_mask_uint8),
        # solarization strength increases with decreasing magnitude (threshold)
        a.solarize.augmentation((256, 0)),
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]
