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
* `static_axes`, `constant_vector`: the axes an ``axes``/``axis_names`` pair names, and a
  constant argument's values, one per axis (`fn.slice`, `fn.pad`).

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

__all__ = [
    "constant_arg",
    "constant_vector",
    "like_input",
    "static_axes",
    "with_extents",
]

#: The arguments of `CropAttr` that give the window's size.


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


def constant_arg(node: Any, name: str) -> Any:
    """The value of ``node``'s argument ``name`` when it is known at trace time: a scalar
    argument, or an argument input made of a constant (a tuple given for a tensor argument
    becomes one); None otherwise (not given, or per sample)."""
    if name in node.scalar_args:
        return node.scalar_args[name]
    arg = node.arg_inputs.get(name)
    source = None if arg is None else arg.source
    if source is not None and source.schema.fn_path == "_constant":
        return source.scalar_args.get("value")
    return None


def static_axes(
    node: Any, ndim: int | None, layout: str | None, default_names: str | None = None
) -> list[int] | None:
    """The axes ``node``'s ``axes`` or ``axis_names`` (constants) name, in an input of
    ``ndim`` dimensions in ``layout``; without either, ``default_names``' axes, or every axis.
    None where that is not known at trace time (a per-sample ``axes``, an unknown layout, a
    name the layout lacks: the operator raises that at build)."""
    if ndim is None:
        return None
    if "axes" in node.scalar_args or "axes" in node.arg_inputs:
        given = constant_arg(node, "axes")
        if given is None:
            return None
        axes = [int(a) for a in np.asarray(given).reshape(-1)]
        if not all(-ndim <= a < ndim for a in axes):
            return None
        return [a % ndim for a in axes]
    names = node.scalar_args.get("axis_names") or default_names
    if not names:
        return list(range(ndim))
    if layout is None or len(layout) != ndim or any(a not in layout for a in names):
        return None
    return [layout.index(a) for a in names]


def constant_vector(node: Any, name: str, n: int) -> np.ndarray | None:
    """A constant argument's values as ``n`` float64s (one value applies to all); None where
    it is per sample, not given, or of another length (an error at build or run)."""
    given = constant_arg(node, name)
    if given is None:
        return None
    values = np.asarray(given, np.float64).reshape(-1)
    if values.size == 1:
        values = np.repeat(values, n)
    return values if values.size == n else None
