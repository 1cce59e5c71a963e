"""Static per-sample shapes: the shape rules several operators' `static_meta` share.

A static shape (`dali._graph.node.StaticShape`) is what tracing knows of every sample's shape
before any data is there: one entry per dimension, an int where every sample has that extent
whatever the data, None where the data decides. An operator's `static_meta` gives it as the
``"static_shape"`` entry of an output's dict (``DataNode(static_shape=...)``); without one the
output has ``(None,) * ndim``, or None where even ``ndim`` is unknown. A rule never guesses: an
extent that depends on the data, on a per-sample argument or on an error path that could change
it stays None.

The rules here are those more than one operator applies; an operator's own rule (``resize``'s
size arguments, ``transpose``'s permutation, ...) is in its ``static_meta``.

* `with_extents`: a shape with the axes named in a layout set (``{"H": 224, "W": 224}``).
* `crop_window`: the window shape of the crop arguments, DALI's ``CropAttr`` (`fn.crop`,
  `fn.crop_mirror_normalize`, `fn.decoders.image_crop`).

Example:
    >>> with_extents((None, None, 3), "HWC", {"H": 128, "W": 128})
    (128, 128, 3)
    >>> with_extents((3, None, None), "CHW", {"W": 64})
    (3, None, 64)
    >>> with_extents((None, 3), None, {"H": 1}) is None  # the layout is unknown
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dali._graph.node import StaticShape

__all__ = ["crop_window", "like_input", "with_extents"]

#: The arguments of `CropAttr` that give the window's size.
_CROP_SIZE_ARGS = ("crop", "crop_d", "crop_h", "crop_w")


def like_input(node: Any, **changes: Any) -> list[dict[str, Any]]:
    """The static metadata of an operator with one output shaped as its first input: the
    input's dtype, ndim, layout and static shape, with ``changes`` (``dtype=``, ``layout=``)."""
    src = node.inputs[0]
    meta = {
        "dtype": src.dtype,
        "ndim": src.ndim,
        "layout": src.layout,
        "static_shape": src.static_shape,
    }
    return [{**meta, **changes}]


def with_extents(
    shape: StaticShape | None, layout: str | None, extents: Mapping[str, int | None]
) -> StaticShape | None:
    """``shape`` with the axes that ``layout`` names in ``extents`` set to those extents.

    Args:
        shape: The input's static shape (None: unknown).
        layout: The layout of ``shape`` (None or one of another length: unknown).
        extents: Axis name -> new extent (None: unknown); names the layout lacks are ignored.

    Returns:
        The new shape, or None where the shape or the layout is unknown.
    """
    if shape is None or layout is None or len(layout) != len(shape):
        return None
    return tuple(extents.get(a, e) for a, e in zip(layout, shape))


def crop_window(node: Any, shape: StaticShape | None, layout: str | None) -> StaticShape | None:
    """The shape of the windows that the crop arguments of ``node`` cut out of samples of
    ``shape`` in ``layout`` (DALI's ``CropAttr``, `dali._ops.window.crop_attr`).

    ``crop`` (``(H, W)`` or ``(D, H, W)``) or ``crop_h``/``crop_w``/``crop_d`` set those axes
    (``crop_d`` crops ``F`` where the layout has no ``D``); their values are truncated to
    integers and 0 keeps the whole extent. A window is exactly that size with the
    ``out_of_bounds_policy`` "error" (a window that does not fit fails) and "pad"; with
    "trim_to_shape" it is cut to the input (``min(crop, extent)``, known only where the extent
    is). A per-sample size (a DataNode) leaves its axes unknown.

    Example:
        >>> from types import SimpleNamespace
        >>> def node(**args): return SimpleNamespace(scalar_args=args, arg_inputs={})
        >>> crop_window(node(crop=(20.0, 30.9)), (40, 60, 3), "HWC")
        (20, 30, 3)
        >>> trim = node(crop_h=50.0, crop_w=50.0, out_of_bounds_policy="trim_to_shape")
        >>> crop_window(trim, (40, None, 3), "HWC")
        (40, None, 3)
    """
    args: dict[str, Any] = node.scalar_args
    tensors: dict[str, Any] = node.arg_inputs
    if not any(a in args or a in tensors for a in _CROP_SIZE_ARGS):
        return shape  # no window: the whole input
    sizes: list[int | None]  # (d, h, w); <= 0: the whole extent; None: per sample
    if "crop" in tensors:
        sizes = [None, None, None]
    elif "crop" in args:
        sizes = [_truncated(v) for v in args["crop"]]
        if len(sizes) == 2:
            sizes.insert(0, 0)
    else:
        sizes = [
            None if a in tensors else _truncated(args.get(a, 0.0)) for a in _CROP_SIZE_ARGS[1:]
        ]
    if len(sizes) != 3:
        return None  # an error at build
    if shape is None or layout is None or len(layout) != len(shape):
        return None
    trim = args.get("out_of_bounds_policy") == "trim_to_shape"
    depth = "D" if "D" in layout else "F"
    extents: dict[str, int | None] = {}
    for axis, size_ in zip((depth, "H", "W"), sizes):
        if axis not in layout:
            continue
        extent = shape[layout.index(axis)]
        if size_ is None:
            extents[axis] = None
        elif size_ <= 0:
            extents[axis] = extent
        elif trim:
            extents[axis] = None if extent is None else min(size_, extent)
        else:
            extents[axis] = size_
    return with_extents(shape, layout, extents)


def _truncated(size: float) -> int | None:
    """A window size as DALI reads it (a float truncated to an int); None where not finite
    (an error at build)."""
    value = np.float32(size)
    return int(value) if np.isfinite(value) else None
