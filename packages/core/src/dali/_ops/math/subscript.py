"""Indexing DataNodes: ``x[0]``, ``x[:, 1:-1]``, ``x[::-1]``, ``x[dali.newaxis]``.

An index is applied to every sample. Integers (negative ones count from the end) remove the
dimension; slices keep it (steps, negative ones too, follow Python's rules and are clamped to
the extent); ``dali.newaxis`` inserts a dimension of extent 1 (``dali.newaxis("C")`` names it
in the layout; unnamed new axes clear the layout, as DALI's ``expand_dims`` does). As in DALI,
``None`` is a full-range slice (``x[None]`` is ``x[:]``), *not* a new axis, and ``...`` is not
supported. An index or slice bound may also be a DataNode holding one 0-d integer per sample.

The whole subscript is one operator (`_tensor_subscript`, DALI's ``TensorSubscript``); a
uniform batch with constant indices is sliced with one array operation.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import types
    >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.arange(6, dtype=np.int32).reshape(2, 3))
    ...     return x[0], x[:, 1], x[1, ::-1], x[dali.newaxis, -1]
    >>> p = pipe(); p.build()
    >>> [o.as_array()[0].tolist() for o in p.run()]
    [[0, 1, 2], [1, 4], [5, 4, 3], [[3, 4, 5]]]
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.node import DataNode, NewAxis
from dali._graph.schema import Arg, register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["TensorSubscript", "subscript"]

#: The most subscripts an index may have (DALI's ``kMaxSubscripts``).
MAX_SUBSCRIPTS = 32


def _subscript_args() -> list[Arg]:
    args = [
        Arg("num_subscripts", "int", default=0, doc="Number of indexed dimensions."),
        Arg("new_axes", "int_vec", default=(), doc="Output positions of inserted axes."),
        Arg("new_axis_names", "str", default="", doc="Layout names of the inserted axes."),
    ]
    for i in range(MAX_SUBSCRIPTS):
        args += [
            Arg(f"at_{i}", "int", tensor=True, doc=f"Index in dimension {i}."),
            Arg(f"lo_{i}", "int", tensor=True, doc=f"Slice start in dimension {i}."),
            Arg(f"hi_{i}", "int", tensor=True, doc=f"Slice end in dimension {i}."),
            Arg(f"step_{i}", "int", tensor=True, doc=f"Slice step in dimension {i}."),
        ]
    return args


def _shape_str(shape: Sequence[int]) -> str:
    return ", ".join(str(int(e)) for e in shape)


@register(
    "_tensor_subscript",
    devices=("cpu", "gpu"),
    inputs=1,
    class_name="TensorSubscript",
    args=_subscript_args(),
)
class TensorSubscript(Operator):
    """Index every sample: integers remove a dimension, slices keep it, new axes insert one."""

    def setup(self) -> None:
        nsub = self.arg("num_subscripts")
        dims: list[tuple[str, tuple[str, ...]]] = []
        for d in range(nsub):
            if self.has_arg(f"at_{d}"):
                for other in (f"lo_{d}", f"hi_{d}", f"step_{d}"):
                    if self.has_arg(other):
                        raise self.arg_error(
                            other, f"dimension {d} is indexed with `at_{d}`: it has no range"
                        )
                dims.append(("at", (f"at_{d}",)))
            else:
                dims.append(("range", (f"lo_{d}", f"hi_{d}", f"step_{d}")))
            step = dims[-1][1][-1] if dims[-1][0] == "range" else None
            if step and self.has_arg(step) and not self.is_tensor_arg(step) and not self.arg(step):
                raise self.arg_error(step, "slice step cannot be zero")
        self._dims = dims
        self._n_at = sum(kind == "at" for kind, _ in dims)
        self._new_axes = tuple(self.arg("new_axes"))
        names = self.arg("new_axis_names")
        if names and len(names) != len(self._new_axes):
            raise self.arg_error(
                "new_axis_names",
                f"{len(names)} names for {len(self._new_axes)} new axes; name all or none",
            )
        self._names = names
        self._per_sample = any(self.is_tensor_arg(name) for _, names_ in dims for name in names_)
        self._index_cache: dict[tuple[int, ...], tuple[Any, ...]] = {}
        self._layout_cache: dict[str, str] = {}

    # -- index computation ---------------------------------------------------------------------
    def _index(
        self, shape: Sequence[int], value: Callable[[str], Any], sample: int
    ) -> tuple[Any, ...]:
        """The numpy index of one sample of ``shape`` (``value(name)`` gives an argument)."""
        ndim = len(shape)
        if ndim == 0 and self._dims:
            raise ValueError("Cannot apply an index to a scalar.")
        if ndim < len(self._dims):
            raise ValueError(f"Too many indices ({len(self._dims)}) for a {ndim}D tensor.")
        index: list[Any] = []
        for d, (kind, names) in enumerate(self._dims):
            extent = int(shape[d])
            if kind == "at":
                at = value(names[0])
                j = at + extent if at < 0 else at
                if not 0 <= j < extent:
                    raise IndexError(
                        f"Index {at} is out of range for axis {d} of length {extent}\n"
                        f"Detected while processing sample #{sample} of shape "
                        f"({_shape_str(shape)})"
                    )
                index.append(j)
            else:
                lo, hi, step = (value(n) for n in names)
                if step == 0:
                    raise ValueError(f"slice step cannot be zero (dimension {d})")
                index.append(slice(lo, hi, step))
        return tuple(index)

    def _scalar(self, name: str) -> Any:
        return self.arg(name) if self.has_arg(name) else None

    def _out_layout(self, layout: str) -> str:
        out = self._layout_cache.get(layout)
        if out is None:
            if not layout:
                out = ""
            else:
                kept = [
                    c
                    for d, c in enumerate(layout)
                    if d >= len(self._dims) or self._dims[d][0] != "at"
                ]
                if self._new_axes:
                    if not self._names:
                        kept = []  # DALI's expand_dims clears an unnamed layout
                    else:
                        for pos, name in zip(self._new_axes, self._names):
                            kept.insert(pos, name)
                out = "".join(kept)
            self._layout_cache[layout] = out
        return out

    def _arg_values(self, ws: Workspace, n: int) -> dict[str, list[Any]]:
        values: dict[str, list[Any]] = {}
        for _, names in self._dims:
            for name in names:
                if not self.has_arg(name):
                    values[name] = [None] * n
                elif not self.is_tensor_arg(name):
                    values[name] = [self.arg(name)] * n
                else:
                    per_sample = []
                    for s in ws.arg_samples(name):
                        s = np.asarray(s)
                        if s.ndim != 0:
                            raise self.arg_error(
                                name, f"Array indices must be scalar (0D). Got {s.ndim}D tensor."
                            )
                        if s.dtype.kind not in "iu":
                            raise self.arg_error(
                                name, f"Array index must be of integral type. Got: {s.dtype}"
                            )
                        per_sample.append(int(s))
                    values[name] = per_sample
        return values

    # -- running -------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        return self._run(ws, np, TensorListCPU)

    def run_gpu(self, ws: Workspace) -> Any:
        import cupy

        from dali._tensors import TensorListGPU

        return self._run(ws, cupy, TensorListGPU)

    def _run(self, ws: Workspace, xp: Any, tl_cls: Any) -> Any:
        tl = ws.inputs[0]
        layout = self._out_layout(tl.layout())
        out_ndim = tl.sample_ndim - self._n_at + len(self._new_axes)
        dense = tl.dense() if not self._per_sample else None
        if dense is not None:
            shape = tuple(dense.shape[1:])
            index = self._index_cache.get(shape)
            if index is None:
                try:
                    index = self._index(shape, self._scalar, 0)
                except (IndexError, ValueError) as e:
                    if len(dense) == 0:
                        index = None
                    else:
                        raise self.error(str(e)) from None
                if index is not None:
                    self._index_cache[shape] = index
            if index is not None:
                per_sample = (slice(None), *index)  # the same index in every sample
                out = dense[per_sample]
                if self._new_axes:
                    out = xp.expand_dims(out, tuple(a + 1 for a in self._new_axes))
                return tl_cls.wrap(xp.ascontiguousarray(out), layout)
        samples = tl.samples()
        n = len(samples)
        values = self._arg_values(ws, n)

        def one(i: int) -> Any:
            s = samples[i]
            index = self._index(s.shape, lambda name: values[name][i], i)
            out = xp.asarray(s[index])  # an integer index of a 1-D sample gives a scalar
            if self._new_axes:
                out = xp.expand_dims(out, self._new_axes)
            # not ascontiguousarray: it would turn a 0-d result into shape (1,)
            return out if out.flags.c_contiguous else out.copy()

        return tl_cls.wrap(ws.map(one, n), layout, dtype=tl.np_dtype, ndim=out_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        args = node.scalar_args
        nsub = args.get("num_subscripts", 0)
        n_at = sum(1 for d in range(nsub) if f"at_{d}" in args or f"at_{d}" in node.arg_inputs)
        new_axes = tuple(args.get("new_axes", ()))
        ndim = None if src.ndim is None else src.ndim - n_at + len(new_axes)
        layout = None
        if src.layout is not None:
            if not src.layout or (new_axes and not args.get("new_axis_names")):
                layout = ""
            else:
                kept = [
                    c
                    for d, c in enumerate(src.layout)
                    if not (d < nsub and (f"at_{d}" in args or f"at_{d}" in node.arg_inputs))
                ]
                for pos, name in zip(new_axes, args.get("new_axis_names", "")):
                    kept.insert(pos, name)
                layout = "".join(kept)
        shape = None
        if src.static_shape is not None and nsub <= len(src.static_shape):
            dims = [_static_extent(node, d, e) for d, e in enumerate(src.static_shape)]
            out = [e for kept, e in dims if kept]
            for pos in new_axes:
                out.insert(pos, 1)
            shape = tuple(out)
        return [{"dtype": src.dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]


def _static_extent(node: Any, d: int, extent: int | None) -> tuple[bool, int | None]:
    """Whether dimension ``d`` of ``extent`` stays (an index removes it), and its extent then:
    the length of a slice of scalar bounds (numpy's), None for per-sample bounds."""
    args, tensors = node.scalar_args, node.arg_inputs
    if f"at_{d}" in args or f"at_{d}" in tensors:
        return False, None
    parts = [f"{p}_{d}" for p in ("lo", "hi", "step")]
    if not any(p in args or p in tensors for p in parts):
        return True, extent  # the whole dimension (or beyond the subscripts)
    if extent is None or any(p in tensors for p in parts) or args.get(parts[2]) == 0:
        return True, None
    return True, len(range(*slice(*(args.get(p) for p in parts)).indices(extent)))


def _index_value(value: Any, what: str) -> Any:
    """An index or slice bound: None, an int, or a DataNode (checked at run)."""
    if value is None or isinstance(value, DataNode):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iub":
        return int(value)
    raise TypeError(
        f"Invalid type for an index ({what}): {type(value).__name__}. Use an int, a slice, "
        f"dali.newaxis or a DataNode of 0-d integers."
    )


def subscript(node: DataNode, key: Any) -> DataNode:
    """Trace ``node[key]`` (called by ``DataNode.__getitem__``).

    Args:
        node: The indexed DataNode.
        key: An int, slice, ``dali.newaxis``, ``None`` (a full-range slice, as in DALI), a
            DataNode of per-sample 0-d integer indices, or a tuple of those.

    Returns:
        A DataNode with the indexed samples.

    Raises:
        NotImplementedError: For ``...`` (Ellipsis), which DALI does not support.
        TypeError: For indices of other types (floats, strings, arrays).
        ValueError: For a mix of named and unnamed new axes, or too many subscripts.

    Example:
        >>> from dali import fn
        >>> import dali
        >>> with dali.Pipeline(batch_size=2, num_threads=1, device_id=None):
        ...     row = fn.random.uniform(shape=(3, 4))[1]
        >>> row.ndim
        1
    """
    if not isinstance(key, tuple):
        key = (key,)
    kwargs: dict[str, Any] = {}
    new_axes: list[int] = []
    names: list[str] = []
    nsub = 0
    out_dim = 0
    for k in key:
        if isinstance(k, NewAxis):
            name = k.layout
            if name is not None:
                if not isinstance(name, str):
                    raise TypeError("Axis name must be a single-character string")
                if len(name) != 1:
                    raise ValueError("Axis name must be a single-character string")
                names.append(name)
            new_axes.append(out_dim)
            out_dim += 1
            continue
        if k is Ellipsis:
            raise NotImplementedError("Ellipsis in indexing is not implemented")
        if k is None or isinstance(k, slice):
            if k is not None:
                for part, value in (("lo", k.start), ("hi", k.stop), ("step", k.step)):
                    value = _index_value(value, f"slice {part}")
                    if value is not None:
                        kwargs[f"{part}_{nsub}"] = value
            out_dim += 1
        else:
            kwargs[f"at_{nsub}"] = _index_value(k, "index")
        nsub += 1
    if nsub > MAX_SUBSCRIPTS:
        raise ValueError(f"Too many subscripts ({nsub}); at most {MAX_SUBSCRIPTS} are supported.")
    if names and len(names) != len(new_axes):
        raise ValueError("New axis name must be specified for all axes or none.")
    kwargs["num_subscripts"] = nsub
    if new_axes:
        kwargs["new_axes"] = new_axes
    if names:
        kwargs["new_axis_names"] = "".join(names)
    kwargs["device"] = node.device
    from dali._graph.trace import call_operator

    return call_operator(TensorSubscript.schema, (node,), kwargs)
