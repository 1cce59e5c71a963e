"""AutoAugment (https://arxiv.org/abs/1805.09501): a learned policy of augmentation pairs.

A policy (`Policy`) is a list of sub-policies, each a short sequence of (augmentation,
probability, magnitude bin). Every sample gets one sub-policy, chosen uniformly at random, and
goes through its steps one by one, each applied with its probability. `auto_augment` runs one
of the paper's policies (ImageNet, reduced ImageNet, SVHN, reduced CIFAR-10),
`apply_auto_augment` any `Policy`. The pipeline needs ``enable_conditionals=True``: the batch
is split between the augmentations of a step.

How it runs: per sample, `fn.random.uniform` draws the sub-policy, one number per step (run
the step if below its probability) and, where an augmentation randomly negates magnitudes, the
signs; tables (constants) indexed by the sub-policy give each step's probability, magnitude bin
and augmentation. Step ``k`` splits the samples that run it between the augmentations used at
step ``k`` by any sub-policy (`select`). As DALI's ``nvidia/dali/auto_aug/auto_augment.py``.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali.auto_aug import auto_augment
    >>> @dali.pipeline_def(
    ...     batch_size=4, num_threads=1, device_id=None, seed=42, enable_conditionals=True
    ... )
    ... def pipe():
    ...     img = dali.types.Constant(np.full((8, 8, 3), 200, np.uint8), layout="HWC")
    ...     return auto_augment.auto_augment_image_net(img)
    >>> (out,) = pipe().run()
    >>> out.at(0).shape, out.at(0).dtype
    ((8, 8, 3), dtype('uint8'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali import fn, types
from dali.auto_aug import augmentations as a
from dali.auto_aug.core import Policy, signed_bin
from dali.auto_aug.core._args import forbid_unused_kwargs as _forbid_unused_kwargs
from dali.auto_aug.core._augmentation import Augmentation
from dali.auto_aug.core._utils import get_translations as _get_translations
from dali.auto_aug.core._utils import pretty_select as _pretty_select
from dali.data_node import DataNode as _DataNode

__all__ = [
    "Policy",
    "apply_auto_augment",
    "auto_augment",
    "auto_augment_image_net",
    "get_image_net_policy",
    "get_reduced_cifar10_policy",
    "get_reduced_image_net_policy",
    "get_svhn_policy",
]


def auto_augment(
    data: _DataNode,
    policy_name: str = "image_net",
    shape: _DataNode | tuple[int, int] | None = None,
    fill_value: int | None = 128,
    interp_type: types.DALIInterpType | None = None,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
    seed: int | None = None,
) -> _DataNode:
    """Applies one of the predefined policies from the AutoAugment paper
    (https://arxiv.org/abs/1805.09501) to the provided batch of samples.

    Args:
        data: A batch of samples to be processed. The supported samples are images of `HWC`
            layout and videos of `FHWC` layout, the supported data type is `uint8`.
        policy_name: The name of predefined policy. Acceptable values are: `image_net`,
            `reduced_image_net`, `svhn`, `reduced_cifar10`. Defaults to `image_net`.
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
        max_translate_abs: int or (int, int). Only valid when `shape` is not provided.
            Specifies the maximal shift (in pixels) in the translation augmentation. If a tuple
            is specified, the first component limits height, the second the width. Defaults to
            250, which means the maximal magnitude shifts the image by 250 pixels.
        max_translate_rel: float or (float, float). Only valid when `shape` argument is
            provided. Specifies the maximal shift as a fraction of image shape in the
            translation augmentations. If a tuple is specified, the first component limits the
            height, the second the width. Defaults to 1, which means the maximal magnitude
            shifts the image entirely out of the canvas.
        seed: Seed to be used to randomly sample operations (and to negate magnitudes).

    Returns:
        A batch of transformed samples.
    """
    predefined_policies: dict[str, Any] = {
        "image_net": get_image_net_policy,
        "reduced_image_net": get_reduced_image_net_policy,
        "svhn": get_svhn_policy,
        "reduced_cifar10": get_reduced_cifar10_policy,
    }
    policies_without_translation = ("reduced_image_net",)
    shape_related_args = (
        (shape, "shape"),
        (max_translate_abs, "max_translate_abs"),
        (max_translate_rel, "max_translate_rel"),
    )
    if not isinstance(policy_name, str) or policy_name not in predefined_policies:
        policies_str = ", ".join([f"`{name}`" for name in predefined_policies])
        raise ValueError(
            f"The `policy_name` must be a string that takes one of the values: {policies_str}"
        )
    if policy_name in policies_without_translation:
        shape_arg = next((name for arg, name in shape_related_args if arg is not None), None)
        if shape_arg is not None:
            raise ValueError(
                f"The policy `{policy_name}` does not contain any augmentations that rely on the "
                f"image shape. The `{shape_arg}` argument must not be specified in that case."
            )

    aug_kwargs: dict[str, Any] = {"fill_value": fill_value, "interp_type": interp_type}
    use_shape = shape is not None
    if use_shape:
        aug_kwargs["shape"] = shape

    if policy_name in policies_without_translation:
        policy = predefined_policies[policy_name]()
    else:
        policy = predefined_policies[policy_name](
            use_shape=use_shape,
            max_translate_abs=max_translate_abs,
            max_translate_rel=max_translate_rel,
        )

    return apply_auto_augment(policy, data, seed, **aug_kwargs)


def auto_augment_image_net(
    data: _DataNode,
    shape: _DataNode | tuple[int, int] | None = None,
    fill_value: int | None = 128,
    interp_type: types.DALIInterpType | None = None,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
    seed: int | None = None,
) -> _DataNode:
    """Applies `image_net_policy` in AutoAugment (https://arxiv.org/abs/1805.09501)
    fashion to the provided batch of samples.

    Equivalent to `auto_augment` call with ``policy_name`` specified to ``'image_net'``.
    See `auto_augment` function for details.
    """
    return auto_augment(
        data,
        "image_net",
        shape,
        fill_value,
        interp_type,
        max_translate_abs,
        max_translate_rel,
        seed,
    )


def apply_auto_augment(
    policy: Policy, data: _DataNode, seed: int | None = None, **kwargs: Any
) -> _DataNode:
    """Applies AutoAugment (https://arxiv.org/abs/1805.09501) augmentation scheme to the
    provided batch of samples.

    Args:
        policy: Set of sequences of augmentations to be applied in AutoAugment fashion.
        data: A batch of samples to be processed.
        seed: Seed to be used to randomly sample operations (and to negate magnitudes).
        **kwargs: A dictionary of extra parameters to be passed when calling augmentations.
            The signature of each augmentation is checked for any extra arguments and if the
            name of the argument matches one from the `kwargs`, the value is passed as an
            argument. For example, some augmentations from the default AutoAugment suite
            accept ``shape``, ``fill_value`` and ``interp_type``.

    Returns:
        A batch of transformed samples.
    """
    if len(policy.sub_policies) == 0:
        raise ValueError(f"Cannot run empty policy. Got {policy} in `apply_auto_augment` call.")
    max_policy_len = max(len(sub_policy) for sub_policy in policy.sub_policies)
    should_run: Any = fn.random.uniform(
        range=[0, 1], shape=(max_policy_len,), dtype=types.FLOAT, seed=seed
    )
    sub_policy_id = fn.random.uniform(
        values=list(range(len(policy.sub_policies))), seed=seed, dtype=types.INT32
    )
    run_probabilities = _sub_policy_to_probability_map(policy)[sub_policy_id]
    magnitude_bins: Any = _sub_policy_to_magnitude_bin_map(policy)[sub_policy_id]
    aug_ids, augmentations = _sub_policy_to_augmentation_map(policy)
    aug_ids = aug_ids[sub_policy_id]
    if any(aug.randomly_negate for aug in policy.augmentations.values()):
        magnitude_bins = signed_bin(magnitude_bins, seed=seed, shape=(max_policy_len,))
    _forbid_unused_kwargs(policy.augmentations.values(), kwargs, "apply_auto_augment")
    for stage_id in range(max_policy_len):
        if should_run[stage_id] < run_probabilities[stage_id]:
            op_kwargs = dict(
                data=data,
                magnitude_bin=magnitude_bins[stage_id],
                num_magnitude_bins=policy.num_magnitude_bins,
                **kwargs,
            )
            data = _pretty_select(
                augmentations[stage_id],
                aug_ids[stage_id],
                op_kwargs,
                auto_aug_name="apply_auto_augment",
                ref_suite_name="get_image_net_policy",
            )
    return data


def get_image_net_policy(
    use_shape: bool = False,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
) -> Policy:
    """Creates augmentation policy tuned for the ImageNet as described in AutoAugment paper
    (https://arxiv.org/abs/1805.09501). The returned policy can be run with
    `apply_auto_augment`.

    Args:
        use_shape: If true, the translation offset is computed as a percentage of the
            image/frame shape. Useful if the samples processed with the auto augment have
            different shapes. If false, the offsets range is bounded by a constant
            (`max_translate_abs`).
        max_translate_abs: int or (int, int). Only valid with use_shape=False, specifies the
            maximal shift (in pixels) in the translation augmentations. If a tuple is
            specified, the first component limits height, the second the width. Defaults
            to 250.
        max_translate_rel: float or (float, float). Only valid with use_shape=True, specifies
            the maximal shift as a fraction of image/frame shape in the translation
            augmentations. If a tuple is specified, the first component limits height, the
            second the width. Defaults to 1.
    """
    default_translate_abs, default_translate_rel = 250, 1.0
    _, translate_y = _get_translations(
        use_shape,
        default_translate_abs,
        default_translate_rel,
        max_translate_abs,
        max_translate_rel,
    )
    shear_x = a.shear_x.augmentation((0, 0.3), True)
    shear_y = a.shear_y.augmentation((0, 0.3), True)
    rotate = a.rotate.augmentation((0, 30), True)
    color = a.color.augmentation((0.1, 1.9), False, None)
    posterize = a.posterize.augmentation((0, 4), False, a.poster_mask_uint8)
    solarize = a.solarize.augmentation((0, 256), False)
    solarize_add = a.solarize_add.augmentation((0, 110), False)
    invert = a.invert
    equalize = a.equalize
    auto_contrast = a.auto_contrast
    return Policy(
        name="ImageNetPolicy",
        num_magnitude_bins=11,
        sub_policies=[
            [(equalize, 0.8, None), (shear_y, 0.8, 4)],
            [(color, 0.4, 9), (equalize, 0.6, None)],
            [(color, 0.4, 1), (rotate, 0.6, 8)],
            [(solarize, 0.8, 3), (equalize, 0.4, None)],
            [(solarize, 0.4, 2), (solarize, 0.6, 2)],
            [(color, 0.2, 0), (equalize, 0.8, None)],
            [(equalize, 0.4, None), (solarize_add, 0.8, 3)],
            [(shear_x, 0.2, 9), (rotate, 0.6, 8)],
            [(color, 0.6, 1), (equalize, 1.0, None)],
            [(invert, 0.4, None), (rotate, 0.6, 0)],
            [(equalize, 1.0, None), (shear_y, 0.6, 3)],
            [(color, 0.4, 7), (equalize, 0.6, None)],
            [(posterize, 0.4, 6), (auto_contrast, 0.4, None)],
            [(solarize, 0.6, 8), (color, 0.6, 9)],
            [(solarize, 0.2, 4), (rotate, 0.8, 9)],
            [(rotate, 1.0, 7), (translate_y, 0.8, 9)],
            [(solarize, 0.8, 4)],
            [(shear_y, 0.8, 0), (color, 0.6, 4)],
            [(color, 1.0, 0), (rotate, 0.6, 2)],
            [(equalize, 0.8, None)],
            [(equalize, 1.0, None), (auto_contrast, 0.6, None)],
            [(shear_y, 0.4, 7), (solarize_add, 0.6, 7)],
            [(posterize, 0.8, 2), (solarize, 0.6, 10)],
            [(solarize, 0.6, 8), (equalize, 0.6, None)],
            [(color, 0.8, 6), (rotate, 0.4, 5)],
        ],
    )


def get_reduced_cifar10_policy(
    use_shape: bool = False,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
) -> Policy:
    """Creates augmentation policy tuned with the reduced CIFAR-10 as described in
    AutoAugment paper (https://arxiv.org/abs/1805.09501). The returned policy can be run with
    `apply_auto_augment`.

    Args:
        use_shape: If true, the translation offset is computed as a percentage of the
            image/frame shape. Useful if the samples processed with the auto augment have
            different shapes. If false, the offsets range is bounded by a constant
            (`max_translate_abs`).
        max_translate_abs: int or (int, int). Only valid with use_shape=False, specifies the
            maximal shift (in pixels) in the translation augmentations. If a tuple is
            specified, the first component limits height, the second the width. Defaults
            to 250.
        max_translate_rel: float or (float, float). Only valid with use_shape=True, specifies
            the maximal shift as a fraction of image/frame shape in the translation
            augmentations. If a tuple is specified, the first component limits height, the
            second the width. Defaults to 1.
    """
    default_translate_abs, default_translate_rel = 250, 1.0
    translate_x, translate_y = _get_translations(
        use_shape,
        default_translate_abs,
        default_translate_rel,
        max_translate_abs,
        max_translate_rel,
    )
    shear_y = a.shear_y.augmentation((0, 0.3), True)
    rotate = a.rotate.augmentation((0, 30), True)
    brightness = a.brightness.augmentation((0.1, 1.9), False, None)
    color = a.color.augmentation((0.1, 1.9), False, None)
    contrast = a.contrast.augmentation((0.1, 1.9), False, None)
    sharpness = a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted)
    posterize = a.posterize.augmentation((0, 4), False, a.poster_mask_uint8)
    solarize = a.solarize.augmentation((0, 256), False)
    invert = a.invert
    equalize = a.equalize
    auto_contrast = a.auto_contrast
    return Policy(
        name="ReducedCifar10Policy",
        num_magnitude_bins=11,
        sub_policies=[
            [(invert, 0.1, None), (contrast, 0.2, 6)],
            [(rotate, 0.7, 2), (translate_x, 0.3, 9)],
            [(sharpness, 0.8, 1), (sharpness, 0.9, 3)],
            [(shear_y, 0.5, 8), (translate_y, 0.7, 9)],
            [(auto_contrast, 0.5, None), (equalize, 0.9, None)],
            [(shear_y, 0.2, 7), (posterize, 0.3, 7)],
            [(color, 0.4, 3), (brightness, 0.6, 7)],
            [(sharpness, 0.3, 9), (brightness, 0.7, 9)],
            [(equalize, 0.6, None), (equalize, 0.5, None)],
            [(contrast, 0.6, 7), (sharpness, 0.6, 5)],
            [(color, 0.7, 7), (translate_x, 0.5, 8)],
            [(equalize, 0.3, None), (auto_contrast, 0.4, None)],
            [(translate_y, 0.4, 3), (sharpness, 0.2, 6)],
            [(brightness, 0.9, 6), (color, 0.2, 8)],
            [(solarize, 0.5, 2)],
            [(equalize, 0.2, None), (auto_contrast, 0.6, None)],
            [(equalize, 0.2, None), (equalize, 0.6, None)],
            [(color, 0.9, 9), (equalize, 0.6, None)],
            [(auto_contrast, 0.8, None), (solarize, 0.2, 8)],
            [(brightness, 0.1, 3), (color, 0.7, 0)],
            [(solarize, 0.4, 5), (auto_contrast, 0.9, None)],
            [(translate_y, 0.9, 9), (translate_y, 0.7, 9)],
            [(auto_contrast, 0.9, None), (solarize, 0.8, 3)],
            [(equalize, 0.8, None), (invert, 0.1, None)],
            [(translate_y, 0.7, 9), (auto_contrast, 0.9, None)],
        ],
    )


def get_svhn_policy(
    use_shape: bool = False,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
) -> Policy:
    """Creates augmentation policy tuned with the SVHN as described in AutoAugment paper
    (https://arxiv.org/abs/1805.09501). The returned policy can be run with
    `apply_auto_augment`.

    Args:
        use_shape: If true, the translation offset is computed as a percentage of the
            image/frame shape. Useful if the samples processed with the auto augment have
            different shapes. If false, the offsets range is bounded by a constant
            (`max_translate_abs`).
        max_translate_abs: int or (int, int). Only valid with use_shape=False, specifies the
            maximal shift (in pixels) in the translation augmentations. If a tuple is
            specified, the first component limits height, the second the width. Defaults
            to 250.
        max_translate_rel: float or (float, float). Only valid with use_shape=True, specifies
            the maximal shift as a fraction of image/frame shape in the translation
            augmentations. If a tuple is specified, the first component limits height, the
            second the width. Defaults to 1.
    """
    default_translate_abs, default_translate_rel = 250, 1.0
    translate_x, translate_y = _get_translations(
        use_shape,
        default_translate_abs,
        default_translate_rel,
        max_translate_abs,
        max_translate_rel,
    )
    shear_x = a.shear_x.augmentation((0, 0.3), True)
    shear_y = a.shear_y.augmentation((0, 0.3), True)
    rotate = a.rotate.augmentation((0, 30), True)
    contrast = a.contrast.augmentation((0.1, 1.9), False, None)
    solarize = a.solarize.augmentation((0, 256), False)
    invert = a.invert
    equalize = a.equalize
    auto_contrast = a.auto_contrast
    return Policy(
        name="SvhnPolicy",
        num_magnitude_bins=11,
        sub_policies=[
            [(shear_x, 0.9, 4), (invert, 0.2, None)],
            [(shear_y, 0.9, 8), (invert, 0.7, None)],
            [(equalize, 0.6, None), (solarize, 0.6, 6)],
            [(invert, 0.9, None), (equalize, 0.6, None)],
            [(equalize, 0.6, None), (rotate, 0.9, 3)],
            [(shear_x, 0.9, 4), (auto_contrast, 0.8, None)],
            [(shear_y, 0.9, 8), (invert, 0.4, None)],
            [(shear_y, 0.9, 5), (solarize, 0.2, 6)],
            [(invert, 0.9, None), (auto_contrast, 0.8, None)],
            [(equalize, 0.6, None), (rotate, 0.9, 3)],
            [(shear_x, 0.9, 4), (solarize, 0.3, 3)],
            [(shear_y, 0.8, 8), (invert, 0.7, None)],
            [(equalize, 0.9, None), (translate_y, 0.6, 6)],
            [(invert, 0.9, None), (equalize, 0.6, None)],
            [(contrast, 0.3, 3), (rotate, 0.8, 4)],
            [(invert, 0.8, None)],
            [(shear_y, 0.7, 6), (solarize, 0.4, 8)],
            [(invert, 0.6, None), (rotate, 0.8, 4)],
            [(shear_y, 0.3, 7), (translate_x, 0.9, 3)],
            [(shear_x, 0.1, 6), (invert, 0.6, None)],
            [(solarize, 0.7, 2), (translate_y, 0.6, 7)],
            [(shear_y, 0.8, 4), (invert, 0.8, None)],
            [(shear_x, 0.7, 9), (translate_y, 0.8, 3)],
            [(shear_y, 0.8, 5), (auto_contrast, 0.7, None)],
            [(shear_x, 0.7, 2), (invert, 0.1, None)],
        ],
    )


def get_reduced_image_net_policy() -> Policy:
    """Creates augmentation policy tuned with the reduced ImageNet as described in AutoAugment
    paper (https://arxiv.org/abs/1805.09501). The returned policy can be run with
    `apply_auto_augment`.
    """
    shear_x = a.shear_x.augmentation((0, 0.3), True)
    rotate = a.rotate.augmentation((0, 30), True)
    color = a.color.augmentation((0.1, 1.9), False, None)
    contrast = a.contrast.augmentation((0.1, 1.9), False, None)
    sharpness = a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted)
    posterize = a.posterize.augmentation((0, 4), False, a.poster_mask_uint8)
    solarize = a.solarize.augmentation((0, 256), False)
    invert = a.invert
    equalize = a.equalize
    auto_contrast = a.auto_contrast
    return Policy(
        name="ReducedImageNetPolicy",
        num_magnitude_bins=11,
        sub_policies=[
            [(posterize, 0.4, 8), (rotate, 0.6, 9)],
            [(solarize, 0.6, 5), (auto_contrast, 0.6, None)],
            [(equalize, 0.8, None), (equalize, 0.6, None)],
            [(posterize, 0.6, 7), (posterize, 0.6, 6)],
            [(equalize, 0.4, None), (solarize, 0.2, 4)],
            [(equalize, 0.4, None), (rotate, 0.8, 8)],
            [(solarize, 0.6, 3), (equalize, 0.6, None)],
            [(posterize, 0.8, 5), (equalize, 1.0, None)],
            [(rotate, 0.2, 3), (solarize, 0.6, 8)],
            [(equalize, 0.6, None), (posterize, 0.4, 6)],
            [(rotate, 0.8, 8), (color, 0.4, 0)],
            [(rotate, 0.4, 9), (equalize, 0.6, None)],
            [(equalize, 0.8, None)],
            [(invert, 0.6, None), (equalize, 1.0, None)],
            [(color, 0.6, 4), (contrast, 1.0, 8)],
            [(rotate, 0.8, 8), (color, 1.0, 2)],
            [(color, 0.8, 8), (solarize, 0.8, 7)],
            [(sharpness, 0.4, 7), (invert, 0.6, None)],
            [(shear_x, 0.6, 5), (equalize, 1.0, None)],
            [(color, 0.4, 0), (equalize, 0.6, None)],
            [(equalize, 0.4, None), (solarize, 0.2, 4)],
            [(solarize, 0.6, 5), (auto_contrast, 0.6, None)],
            [(invert, 0.6, None), (equalize, 1.0, None)],
            [(color, 0.6, 4), (contrast, 1.0, 8)],
            [(equalize, 0.8, None), (equalize, 0.6, None)],
        ],
    )


def _sub_policy_to_probability_map(policy: Policy) -> Any:
    """A constant ``(sub-policies, steps)`` table of the probabilities (0 past a sub-policy's
    end)."""
    sub_policies = policy.sub_policies
    max_policy_len = max(len(sub_policy) for sub_policy in sub_policies)
    prob = np.zeros((len(sub_policies), max_policy_len), dtype=np.float32)
    for sub_policy_id, sub_policy in enumerate(sub_policies):
        for stage_idx, (_aug, p, _mag) in enumerate(sub_policy):
            prob[sub_policy_id, stage_idx] = p
    return types.Constant(prob)


def _sub_policy_to_magnitude_bin_map(policy: Policy) -> Any:
    """A constant ``(sub-policies, steps)`` table of the magnitude bins."""
    sub_policies = policy.sub_policies
    max_policy_len = max(len(sub_policy) for sub_policy in sub_policies)
    magnitude_bin = np.zeros((len(sub_policies), max_policy_len), dtype=np.int32)
    for sub_policy_id, sub_policy in enumerate(sub_policies):
        for stage_idx, (_aug, _p, mag) in enumerate(sub_policy):
            # a dummy value for None: the augmentation takes no magnitude and ignores it
            magnitude_bin[sub_policy_id, stage_idx] = mag if mag is not None else -999
    return types.Constant(magnitude_bin)


def _sub_policy_to_augmentation_matrix_map(
    policy: Policy,
) -> tuple[np.ndarray, list[list[Augmentation]]]:
    """Creates a matrix of operators to be called for given sub policy at given stage.

    The output is a tuple `(m, augments)`, where `augments` is a list of augmentations per
    stage - each entry contains a reduced list of unique augmentations used in a corresponding
    stage. The `m` matrix contains the mapping from the original sub_policy_id, to the index
    within the reduced list, for every stage. I.e., for policy `sub_policy_idx`, as the
    `stage_idx`-ith operation in a sequence, the `augments[stage_idx][m[sub_policy_idx][stage_idx]]`
    operator should be called.
    """
    sub_policies = policy.sub_policies
    max_policy_len = max(len(sub_policy) for sub_policy in sub_policies)
    augmentations = []  # list of augmentations in each stage
    for stage_idx in range(max_policy_len):
        stage_augments: set[Augmentation] = set()
        stage_augments_list = []
        for sub_policy in sub_policies:
            if stage_idx < len(sub_policy):
                aug, _, _ = sub_policy[stage_idx]
                if aug not in stage_augments:
                    stage_augments.add(aug)
                    stage_augments_list.append(aug)
        augmentations.append([*stage_augments_list, a.identity])
    identity_id = [len(augments) - 1 for augments in augmentations]
    augment_to_id = [
        {augmentation: i for i, augmentation in enumerate(augments)} for augments in augmentations
    ]
    augments_by_id = np.array(
        [
            [identity_id[stage_idx] for stage_idx in range(max_policy_len)]
            for _ in range(len(sub_policies))
        ],
        dtype=np.int32,
    )
    for sub_policy_id, sub_policy in enumerate(sub_policies):
        for stage_idx, (augment, _p, _mag) in enumerate(sub_policy):
            augments_by_id[sub_policy_id, stage_idx] = augment_to_id[stage_idx][augment]
    return augments_by_id, augmentations


def _sub_policy_to_augmentation_map(policy: Policy) -> tuple[Any, list[list[Augmentation]]]:
    matrix, augments = _sub_policy_to_augmentation_matrix_map(policy)
    return types.Constant(matrix), augments
