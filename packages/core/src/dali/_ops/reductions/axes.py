"""Which axes a reduction reduces, and what that leaves: DALI's ``axes``/``axis_names``/``keep_dims``.

Every ``fn.reductions.*`` operator takes the same three arguments, read here once (DALI's
``AxesHelper`` in ``dali/operators/generic/reduce/axes_helper.h``):

* ``axes`` absent and ``axis_names`` absent: every axis is reduced (one value per sample);
* ``axes=[]`` or ``axis_names=""``: *no* axis is reduced (the values pass through the
  reduction's element step: ``mean_square`` squares them, ``std_dev``/``variance`` give zeros);
* ``axes`` and ``axis_names`` together are an error, even empty;
* negative axes count from the end; an axis out of ``[-ndim, ndim - 1]``, an axis given twice or
  a name the input's layout lacks is an error;
* the reduced axes are dropped from the shape and the layout unless ``keep_dims``, which keeps
  them with extent 1. A full reduction without ``keep_dims`` gives 0-d samples with no layout.

Example:
    >>> class Op:  # what it asks of an operator (`dali._ops.base.Operator`)
    ...     def __init__(self, **args):
    ...         self.args = args
    ...     def has_arg(self, name):
    ...         return name in self.args
    ...     def arg(self, name):
    ...         return self.args.get(name, False)
    ...     def arg_error(self, name, message):
    ...         return ValueError(f"{name}: {message}")
    >>> op = Op(axis_names="HW")
    >>> red = ReduceAxes.from_op(op)
    >>> axes = red.resolve(op, 3, "HWC")
    >>> axes, red.out_shape((4, 6, 3), axes), red.out_layout("HWC", axes)
    ((0, 1), (3,), 'C')
    >>> op = Op(axes=[], keep_dims=True)
    >>> ReduceAxes.from_op(op).resolve(op, 3, "HWC"), ReduceAxes.from_op(op).explicit_empty
    ((), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dali._ops.window.axes import axes_from_args

if TYPE_CHECKING:
    from dali._ops.base import Operator

__all__ = ["ReduceAxes"]


@dataclass(frozen=True)
class ReduceAxes:
    """The reduction arguments of one operator, checked once at build.

    Attributes:
        axes: The ``axes`` given (None: not given).
        names: The ``axis_names`` given (None: not given).
        keep_dims: Keep the reduced axes with extent 1.
    """

    axes: tuple[int, ...] | None
    names: str | None
    keep_dims: bool

    @classmethod
    def from_op(cls, op: Operator) -> ReduceAxes:
        """The operator's ``axes``, ``axis_names`` and ``keep_dims``.

        Raises:
            OperatorError: ``axes`` and ``axis_names`` are both given.
        """
        has_axes, has_names = op.has_arg("axes"), op.has_arg("axis_names")
        if has_axes and has_names:
            raise op.arg_error(
                "axis_names", "arguments `axes` and `axis_names` are mutually exclusive"
            )
        axes = tuple(int(a) for a in op.arg("axes")) if has_axes else None
        names = str(op.arg("axis_names")) if has_names else None
        return cls(axes, names, bool(op.arg("keep_dims")))

    @property
    def explicit_empty(self) -> bool:
        """``axes=[]`` or ``axis_names=""``: nothing is reduced (not the same as no argument,
        which reduces everything)."""
        return self.axes == () or self.names == ""

    def resolve(self, op: Operator, ndim: int, layout: str) -> tuple[int, ...]:
        """The reduced axes of an input of ``ndim`` dimensions in ``layout``, sorted.

        Raises:
            OperatorError: An axis out of range, given twice, or not in the layout.
        """
        if self.explicit_empty:
            return ()
        if self.names is not None:
            found = axes_from_args(op, None, self.names, ndim, layout)
            arg = "axis_names"
        elif self.axes is not None:
            found = axes_from_args(op, self.axes, None, ndim, layout)
            arg = "axes"
        else:
            return tuple(range(ndim))
        for k, a in enumerate(found):
            if a in found[:k]:
                given = self.names[k] if self.names is not None else a
                raise op.arg_error(arg, f"axis {given!r} is given more than once")
        return tuple(sorted(found))

    def out_shape(self, shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
        """The shape of the reduction of a sample of ``shape`` over ``axes``."""
        if self.keep_dims:
            return tuple(1 if d in axes else n for d, n in enumerate(shape))
        return tuple(n for d, n in enumerate(shape) if d not in axes)

    def out_layout(self, layout: str, axes: Sequence[int]) -> str:
        """The output's layout: ``layout`` without the reduced axes (all of it with
        ``keep_dims``; "" stays "")."""
        if self.keep_dims or not layout:
            return layout
        return "".join(c for d, c in enumerate(layout) if d not in axes)

    def static(self, ndim: int | None, layout: str | None) -> tuple[int, ...] | None:
        """The reduced axes known at trace time, or None (unknown ``ndim``, an unknown layout
        for ``axis_names``, or an argument the operator will reject at run time)."""
        if ndim is None:
            return None
        if self.explicit_empty:
            return ()
        if self.names is not None:
            if layout is None or len(layout) != ndim or any(a not in layout for a in self.names):
                return None
            found = [layout.index(a) for a in self.names]
        elif self.axes is not None:
            if not all(-ndim <= a < ndim for a in self.axes):
                return None
            found = [a % ndim for a in self.axes]
        else:
            return tuple(range(ndim))
        return tuple(sorted(found)) if len(set(found)) == len(found) else None

    @classmethod
    def from_node(cls, node: Any) -> ReduceAxes | None:
        """The arguments of a traced node (for ``static_meta``); None when an argument is
        missing from its scalar arguments in a way only the build would report."""
        args = node.scalar_args
        if "axes" in args and "axis_names" in args:
            return None
        axes = tuple(int(a) for a in args["axes"]) if "axes" in args else None
        names = str(args["axis_names"]) if "axis_names" in args else None
        return cls(axes, names, bool(args.get("keep_dims", False)))
