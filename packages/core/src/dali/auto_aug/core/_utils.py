"""What the predefined suites and policies share: the translation augmentations for a maximal
shift (absolute, or relative to the image shape) and `select` with a clear message when the
image shape is missing. As DALI's ``nvidia/dali/auto_aug/core/_utils.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dali.auto_aug import augmentations as a
from dali.auto_aug.core._args import MissingArgException
from dali.auto_aug.core._augmentation import Augmentation
from dali.auto_aug.core._select import select
from dali.data_node import DataNode as _DataNode

__all__ = ["get_translations", "max_translate_hw", "parse_validate_offset", "pretty_select"]


def max_translate_hw(max_translate: Any) -> tuple[Any, Any]:
    """``(height, width)`` limits from one value or a pair of them."""
    if isinstance(max_translate, (tuple, list)):
        height, width = max_translate
        return height, width
    return max_translate, max_translate


def parse_validate_offset(
    use_shape: bool,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
    default_translate_abs: Any = 250,
    default_translate_rel: Any = 1.0,
) -> tuple[Any, Any]:
    """The ``(height, width)`` translation limits: relative with ``use_shape``, else absolute."""
    # a DataNode (image shapes, say) passed here would otherwise give a vague error
    if not isinstance(use_shape, bool):
        raise TypeError(
            f"The `use_shape` is a flag that should be set to either True or False, "
            f"got {use_shape}."
        )
    if use_shape:
        if max_translate_abs is not None:
            raise ValueError(
                "The argument `max_translate_abs` cannot be used with image shapes. "
                "You may use `max_translate_rel` instead."
            )
        if max_translate_rel is None:
            max_translate_rel = default_translate_rel
        return max_translate_hw(max_translate_rel)
    if max_translate_rel is not None:
        raise ValueError(
            "The argument `max_translate_rel` cannot be used without image shapes. "
            "You may use `max_translate_abs` instead."
        )
    if max_translate_abs is None:
        max_translate_abs = default_translate_abs
    return max_translate_hw(max_translate_abs)


def get_translations(
    use_shape: bool,
    default_translate_abs: int,
    default_translate_rel: float,
    max_translate_abs: Any = None,
    max_translate_rel: Any = None,
) -> list[Augmentation]:
    """``[translate_x, translate_y]`` with magnitude ranges for the given limits."""
    max_translate_height, max_translate_width = parse_validate_offset(
        use_shape,
        max_translate_abs=max_translate_abs,
        max_translate_rel=max_translate_rel,
        default_translate_abs=default_translate_abs,
        default_translate_rel=default_translate_rel,
    )
    if use_shape:
        translate_x = a.translate_x.augmentation((0, max_translate_width), True)
        translate_y = a.translate_y.augmentation((0, max_translate_height), True)
        return [translate_x, translate_y]
    translate_x = a.translate_x_no_shape.augmentation((0, max_translate_width), True)
    translate_y = a.translate_y_no_shape.augmentation((0, max_translate_height), True)
    return [translate_x, translate_y]


def pretty_select(
    augmentations: Sequence[Augmentation],
    aug_ids: _DataNode,
    op_kwargs: dict[str, Any],
    auto_aug_name: str,
    ref_suite_name: str,
) -> _DataNode:
    """`select`, explaining a missing ``shape`` of the shape-relative translations."""
    try:
        return select(augmentations, aug_ids, **op_kwargs)
    except MissingArgException as e:
        if e.missing_args != ["shape"] or e.augmentation.op not in [
            a.translate_x.op,
            a.translate_y.op,
        ]:
            raise
        raise TypeError(
            f"The augmentation `{e.augmentation.name}` requires `shape` argument that "
            f"describes image shape (in HWC layout). Please provide it as `shape` argument "
            f"to `{auto_aug_name}` call. You can get the image shape from encoded "
            f"images with `fn.peek_image_shape`. Alternatively, you can use "
            f"`translate_x_no_shape`/`translate_y_no_shape` that does not rely on image "
            f"shape, but uses offset from fixed range: for reference see `{ref_suite_name}` "
            f"and its `use_shape` argument. "
        ) from e
