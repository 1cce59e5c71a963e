"""`fn.one_hot` and `fn.copy`.

**one_hot** adds an axis of ``num_classes`` elements at ``axis`` (default: last) holding
``on_value`` where the index equals the input value and ``off_value`` elsewhere (values outside
``[0, num_classes)`` give an all-``off_value`` row; floats are truncated to integers first). For
backward compatibility, when ``axis`` is not given and every sample has a single element, the
output is 1-D ``(num_classes,)`` per sample. The output has no layout unless ``axis_name`` names
the new axis. **copy** returns a copy of its input.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.one_hot(types.Constant(np.array([2], np.int32)), num_classes=4)
    >>> pipe().run()[0].as_array()[0].tolist()
    [0.0, 0.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Copy", "OneHot"]

_ONE_HOT_TYPES: tuple[str, ...] = ("uint8", "int8", "uint16", "int16", "uint32", "int32")
_ONE_HOT_TYPES += ("uint64", "int64", "float32", "float64")


@register(
    "one_hot",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("num_classes", "int", default=0, doc="Number of classes (length of the new axis)."),
        Arg("axis", "int", default=-1, doc="Where to put the new axis (-1: last)."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Output type (default FLOAT)."),
        Arg("on_value", "float", default=1.0, doc="Value at the class index."),
        Arg("off_value", "float", default=0.0, doc="Value elsewhere."),
        Arg("axis_name", "str", doc="One-character layout name of the new axis."),
    ],
)
class OneHot(Operator):
    """One-hot encode class indices: ``fn.one_hot(label, num_classes=10)``."""

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        if self.arg("num_classes") < 0:
            raise self.arg_error(
                "num_classes", f"must not be negative, got {self.arg('num_classes')}"
            )
        dtype = self.arg("dtype")
        self._dtype = np_dtype(dtype)
        if self._dtype.name not in _ONE_HOT_TYPES:
            raise self.arg_error("dtype", f"unsupported output type {type_name(dtype)}")
        name = self.arg("axis_name") if self.has_arg("axis_name") else None
        if name is not None and len(name) != 1:
            raise self.arg_error("axis_name", f'must be a single character, got "{name}"')
        self._axis_name = name
        # float -> the output type as a C++ static_cast would (truncation)
        with np.errstate(invalid="ignore", over="ignore"):
            self._on = np.asarray(self.arg("on_value"), np.float64).astype(self._dtype)
            self._off = np.asarray(self.arg("off_value"), np.float64).astype(self._dtype)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        ndim = tl.sample_ndim
        axis = self.arg("axis")
        if not -1 <= axis <= ndim:
            raise self.arg_error(
                "axis", f"{axis} is outside of the allowed range [-1, {ndim}] for {ndim}-D input"
            )
        k = self.arg("num_classes")
        samples = tl.samples()
        scalars = not self.has_arg("axis") and all(int(np.prod(s.shape)) == 1 for s in samples)
        out_ndim = 1 if scalars else ndim + 1
        place = out_ndim - 1 if axis < 0 else axis
        layout = self._layout(tl.layout(), place, out_ndim)
        classes = xp.arange(k, dtype=np.int64)
        on, off = (
            (self._on, self._off) if xp is np else (xp.asarray(self._on), xp.asarray(self._off))
        )

        def encode(x: Any, lead: int) -> Any:
            if scalars:
                x = x.reshape(x.shape[:lead])
            idx = x.astype(np.int64) if x.dtype.kind != "f" else xp.trunc(x).astype(np.int64)
            hot = xp.where(idx[..., None] == classes, on, off).astype(self._dtype)
            return xp.ascontiguousarray(xp.moveaxis(hot, -1, lead + (0 if scalars else place)))

        dense = tl.dense()
        if dense is not None:
            return tl_cls.wrap(encode(dense, 1), layout)
        result = [encode(s, 0) for s in samples]
        return tl_cls.wrap(result, layout, dtype=self._dtype, ndim=out_ndim)

    run_gpu = run_cpu

    def _layout(self, in_layout: str, place: int, out_ndim: int) -> str:
        name = self._axis_name
        if not name:
            return ""
        if out_ndim == 1:
            return name
        if len(in_layout) + 1 == out_ndim:
            return in_layout[:place] + name + in_layout[place:]
        raise self.arg_error(
            "axis_name",
            f'the input layout "{in_layout}" should have {out_ndim - 1} dimensions to add "{name}"',
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        dtype = args.get("dtype", DALIDataType.FLOAT)
        in_shape = node.inputs[0].static_shape
        k = int(args.get("num_classes", 0))
        shape: tuple[int | None, ...] | None = None
        if in_shape is None:
            pass
        elif "axis" in args:  # the classes axis inserted at `axis` (-1: last)
            axis = int(args["axis"])
            if -1 <= axis <= len(in_shape):
                place = len(in_shape) if axis < 0 else axis
                shape = (*in_shape[:place], k, *in_shape[place:])
        elif all(e == 1 for e in in_shape):  # single-element samples count as scalars
            shape = (k,)
        elif any(e is not None and e != 1 for e in in_shape):
            shape = (*in_shape, k)
        # (else single-element samples or not: it depends on the data)
        layout = None if args.get("axis_name") else ""
        return [{"dtype": dtype, "static_shape": shape, "layout": layout}]


@register(
    "copy",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
)
class Copy(Operator):
    """A copy of the input (same shape, type and layout)."""

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        dense = tl.dense()
        if dense is not None:
            return tl_cls.wrap(xp.array(dense, copy=True, order="C"), tl.layout())
        samples = [xp.array(s, copy=True, order="C") for s in tl.samples()]
        return tl_cls.wrap(samples, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
