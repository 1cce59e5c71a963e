"""Which axes of a sample an operator works on: ``axes`` indices or ``axis_names`` letters.

DALI's operators name axes either way (``axes=[0, 1]``, negative counted from the end, or
``axis_names="HW"`` looked up in the input's layout); `axes_from_args` turns both into
indices, with DALI's errors naming the argument.

Example:
    >>> class Op:  # what it asks of an operator
    ...     def arg_error(self, name, message):
    ...         return ValueError(f"{name}: {message}")
    >>> axes_from_args(Op(), [-1, 0], None, 3, "HWC"), axes_from_args(Op(), None, "WH", 3, "HWC")
    ([2, 0], [1, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from dali._ops.base import Operator

__all__ = ["axes_from_args"]


def axes_from_args(
    op: Operator,
    axes: Sequence[int] | np.ndarray | None,
    names: str | None,
    ndim: int,
    layout: str,
    axes_arg: str = "axes",
) -> list[int]:
    """Axis indices from ``axes`` (negative counted from the end) or ``axis_names``; errors
    name the argument ``axes_arg``."""
    if names:
        out = []
        for a in names:
            i = layout.find(a)
            if i < 0:
                raise op.arg_error(
                    "axis_names", f"axis '{a}' is not present in the input layout '{layout}'"
                )
            out.append(i)
        return out
    if axes is None:
        return list(range(ndim))
    out = []
    for axis in axes:
        k = int(axis)
        if not -ndim <= k < ndim:
            raise op.arg_error(axes_arg, f"axis {k} is out of range for {ndim}-D input")
        out.append(k % ndim)
    return out
