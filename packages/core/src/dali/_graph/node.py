"""The traced graph: `DataNode` (a symbolic batch) and `OpNode` (a recorded operator call).

Tracing records plain data: an `OpNode` is created for every operator call and never changes
afterwards; `Pipeline.build` turns the records into a runnable plan. A `DataNode` is one output
of one `OpNode` (or the same output seen on another device after `.gpu()`).

What tracing knows of a node's samples before any data is there comes from its operator's
`static_meta` (`dali._ops.base.Operator.static_meta`): ``dtype``, ``ndim``, ``layout`` and
``static_shape``, the per-sample shape with None for an extent that only the data tells
(``(None, None, 3)``: RGB images of any size). ``Pipeline.output_shape`` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from dali._graph.schema import Schema

__all__ = ["DataNode", "NewAxis", "OpNode", "StaticShape", "newaxis"]

#: A per-sample shape known at trace time: one entry per dimension, an int where the extent is
#: the same for every sample whatever the data, None where the data decides.
StaticShape: TypeAlias = tuple[int | None, ...]


@dataclass(eq=False)
class OpNode:
    """One recorded operator call (frozen after tracing)."""

    schema: Schema
    device: str
    inputs: tuple[DataNode, ...]
    scalar_args: dict[str, Any]
    arg_inputs: dict[str, DataNode]
    name: str
    auto_named: bool
    #: weakref to the Pipeline the call was traced in (None: detached)
    pipeline: Any
    creation_index: int
    definition: str = ""
    scope: Any = None
    #: For operators without inputs inside a conditional branch: a node of that branch whose
    #: samples decide the batch size and sample identity.
    batch_source: DataNode | None = None
    outputs: list[DataNode] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<{self.schema.class_name} {self.name!r} device={self.device}>"

    @property
    def display_name(self) -> str:
        return self.schema.display_name

    def upstream(self) -> list[DataNode]:
        """Every node this operator reads: inputs, argument inputs, the batch source."""
        nodes = list(self.inputs) + list(self.arg_inputs.values())
        if self.batch_source is not None:
            nodes.append(self.batch_source)
        return nodes


_ARITH_UNARY = {"__neg__": "neg", "__pos__": "pos", "__invert__": "bitnot", "__abs__": "abs"}


class DataNode:
    """A symbolic batch: one output of an operator, on "cpu" or "gpu".

    DataNodes are what `fn.*` calls take and return. They support arithmetic (``+ - * / // % **``),
    comparisons, bitwise operators, indexing and ``.shape()``, each of which adds an operator to
    the graph. They have no truth value: use ``enable_conditionals=True`` to branch on them.

    What is known before running (None: unknown) is in ``dtype``, ``ndim``, ``layout`` and
    ``static_shape``: the per-sample shape, an int per extent that every sample has and None
    for one that depends on the data; None as a whole only where ``ndim`` is unknown too
    (``.shape()`` is DALI's method: a node holding each sample's actual shape).

    Raises:
        ValueError: ``static_shape`` and ``ndim`` disagree on the number of dimensions.
    """

    __array_priority__ = 1000  # numpy scalars on the left defer to our reflected operators

    def __init__(
        self,
        name: str,
        device: str = "cpu",
        source: OpNode | None = None,
        index: int = 0,
        ndim: int | None = None,
        dtype: Any = None,
        layout: str | None = None,
        *,
        static_shape: StaticShape | None = None,
    ) -> None:
        if static_shape is not None:
            static_shape = tuple(None if e is None else int(e) for e in static_shape)
            if ndim is None:
                ndim = len(static_shape)
            elif ndim != len(static_shape):
                raise ValueError(
                    f"DataNode {name!r}: static_shape {static_shape} has {len(static_shape)} "
                    f"dimensions, ndim is {ndim}"
                )
        elif ndim is not None:
            static_shape = (None,) * ndim
        self.name = name
        self.device = device
        self.source = source
        self.index = index
        self.ndim = ndim
        self.dtype = dtype
        self.layout = layout
        self.static_shape: StaticShape | None = static_shape

    # -- identity --------------------------------------------------------------------------
    @property
    def key(self) -> tuple[int, int]:
        """The (producer, output index) pair; the same on both devices."""
        return (id(self.source), self.index)

    @property
    def scope(self) -> Any:
        return None if self.source is None else self.source.scope

    def __repr__(self) -> str:
        src = self.source.name if self.source is not None else None
        return f'DataNode(name="{self.name}", device="{self.device}", source="{src}", index="{self.index}")'

    # -- devices ---------------------------------------------------------------------------
    def _on(self, device: str) -> DataNode:
        if self.device == device:
            return self
        node = DataNode(
            self.name,
            device,
            self.source,
            self.index,
            self.ndim,
            self.dtype,
            self.layout,
            static_shape=self.static_shape,
        )
        return node

    def gpu(self) -> DataNode:
        """The same data on the GPU (the copy is inserted at build)."""
        return self._on("gpu")

    def cpu(self) -> DataNode:
        """The same data on the CPU (a device-to-host copy)."""
        return self._on("cpu")

    # -- python protocol guards ------------------------------------------------------------
    def __bool__(self) -> bool:
        raise TypeError(
            f'"DataNode" was used in conditional context - it might have been used in truth '
            f"evaluation for `if` statement, logical expression or cast to a boolean. To use "
            f"conditional execution via `if` statements you need to specify "
            f"`enable_conditionals=True` in `@pipeline_def` decorator. You can read more about "
            f"conditional execution in specific section of the Pipeline documentation. Bool "
            f"conversion can be achieved with the `cast` operator. (node: {self.name})"
        )

    def __iter__(self) -> Any:
        raise TypeError(
            f'"DataNode" ({self.name}) is not iterable: it is a symbolic batch. Multi-output '
            f"operators return a list of DataNodes, which can be unpacked."
        )

    def __len__(self) -> int:
        raise TypeError(f'"DataNode" ({self.name}) has no length: it is a symbolic batch.')

    def __hash__(self) -> int:
        return id(self)

    # -- graph sugar -----------------------------------------------------------------------
    def shape(self, *, dtype: Any = None, device: str = "cpu") -> DataNode:
        """A node holding each sample's shape (INT64 by default)."""
        from dali._graph.schema import get_schema
        from dali._graph.trace import call_operator

        kwargs: dict[str, Any] = {"device": device}
        if dtype is not None:
            kwargs["dtype"] = dtype
        out: DataNode = call_operator(get_schema("_shape"), (self,), kwargs)
        return out

    def property(self, key: str, *, device: str = "cpu") -> DataNode:
        """A node holding the per-sample metadata ``key`` ("source_info" or "layout")."""
        from dali import fn

        return fn.get_property(self, key=key, device=device)

    def source_info(self, *, device: str = "cpu") -> DataNode:
        return self.property("source_info", device=device)

    def __getitem__(self, key: Any) -> DataNode:
        from dali._ops.math.subscript import subscript

        return subscript(self, key)


def _binary(op: str, reflected: bool = False) -> Any:
    def method(self: DataNode, other: Any) -> Any:
        from dali._ops.math.arithmetic import arithmetic

        return arithmetic(op, other, self) if reflected else arithmetic(op, self, other)

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


def _unary(op: str) -> Any:
    def method(self: DataNode) -> Any:
        from dali._ops.math.arithmetic import arithmetic

        return arithmetic(op, self)

    return method


for _py, _op in {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "truediv": "fdiv",
    "floordiv": "div",
    "mod": "mod",
    "pow": "pow",
    "and": "bitand",
    "or": "bitor",
    "xor": "bitxor",
    "lshift": "lshift",
    "rshift": "rshift",
}.items():
    setattr(DataNode, f"__{_py}__", _binary(_op))
    setattr(DataNode, f"__r{_py}__", _binary(_op, reflected=True))
for _py, _op in {"eq": "eq", "ne": "neq", "lt": "lt", "le": "leq", "gt": "gt", "ge": "geq"}.items():
    setattr(DataNode, f"__{_py}__", _binary(_op))
for _py, _op in _ARITH_UNARY.items():
    setattr(DataNode, _py, _unary(_op))
del _py, _op


class NewAxis:
    """Marker for inserting an axis when indexing a DataNode: ``x[dali.newaxis]``.

    Call it with a layout name to label the new axis: ``x[dali.newaxis("C")]``.
    """

    def __init__(self, layout: str | None = None) -> None:
        self.layout = layout

    def __call__(self, layout: str | None = None) -> NewAxis:
        return NewAxis(layout)

    def __repr__(self) -> str:
        return "dali.newaxis" if self.layout is None else f"dali.newaxis({self.layout!r})"


newaxis = NewAxis()
