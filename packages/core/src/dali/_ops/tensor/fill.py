"""`fn.zeros`, `fn.ones`, `fn.full` and their ``*_like`` twins: new data filled with a value.

* **zeros / ones** make samples of ``shape`` (a list, or one per sample as an argument input;
  without it: scalars) and ``dtype`` (default INT32), with an optional ``layout``.
* **full** fills ``shape`` with its input, the fill value, broadcast NumPy-style (extents
  compared from the innermost; each must match or one of them be 1); the output has the fill
  value's type. One fill value per sample.
* **zeros_like / ones_like / full_like** take the shape, type and layout of their first input
  (``dtype`` overrides the type of zeros_like/ones_like; full_like converts the fill value to
  the input's type).

DALI has these on the CPU only; so does this library. A batch whose samples share one shape is
one array operation.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.zeros((2, 3), np.uint8), layout="HW")
    ...     row = types.Constant(np.array([1.0, 2.0, 3.0], np.float32))
    ...     return fn.ones(shape=[2], dtype=types.FLOAT), fn.full(row, shape=[2, 3]), fn.full_like(x, 7)
    >>> ones, full, like = pipe().run()
    >>> ones.as_array().tolist(), full.as_array()[0].tolist(), like.layout(), like.as_array()[0].tolist()
    ([[1.0, 1.0]], [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], 'HW', [[7, 7, 7], [7, 7, 7]])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, np_dtype
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import convert_sat
from dali._ops.tensor.join import shape_text
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Full", "FullLike", "Ones", "OnesLike", "Zeros", "ZerosLike"]

_SHAPE = Arg("shape", "int_vec", tensor=True, doc="Shape of the output (default: a scalar).")
_LAYOUT = Arg("layout", "layout", doc="Output layout; must match the output's dimensions.")


class _Filled(Operator):
    """Samples of a requested shape (the ``shape`` argument) and ``layout``."""

    def setup(self) -> None:
        if self.has_arg("shape") and not self.is_tensor_arg("shape"):
            self._check_shape(list(self.arg("shape")))
            layout = self.arg("layout") if self.has_arg("layout") else ""
            if layout and len(layout) != len(self.arg("shape")):
                raise self._layout_error(layout, len(self.arg("shape")))

    def _check_shape(self, shape: list[int], sample: int | None = None) -> None:
        if any(d < 0 for d in shape):
            where = "" if sample is None else f"sample {sample}: "
            raise self.arg_error("shape", f"{where}extents must be non-negative, got {shape}")

    def _layout_error(self, layout: str, ndim: int) -> Exception:
        return self.arg_error(
            "layout",
            f"Layout '{layout}' has {len(layout)} dimensions but output shape has {ndim} "
            "dimensions.",
        )

    def shapes(self, ws: Workspace) -> list[tuple[int, ...]]:
        if not self.has_arg("shape"):
            return [()] * ws.batch_size
        shapes = [tuple(int(d) for d in v) for v in ws.arg_vectors("shape", np.int64)]
        if ws.is_tensor_arg("shape"):
            for i, s in enumerate(shapes):
                self._check_shape(list(s), i)
        return shapes

    def layout(self, ndim: int) -> str:
        layout: str = self.arg("layout") if self.has_arg("layout") else ""
        if layout and len(layout) != ndim:
            raise self._layout_error(layout, ndim)
        return layout


class _Constant(_Filled):
    """zeros and ones: one value of ``dtype``."""

    value = 0

    def run_cpu(self, ws: Workspace) -> Any:
        dtype = np_dtype(self.arg("dtype"))
        shapes = self.shapes(ws)
        ndim = len(shapes[0]) if shapes else 0
        if any(len(s) != ndim for s in shapes):
            raise self.arg_error("shape", "all samples must have the same number of dimensions")
        layout = self.layout(ndim)
        if all(s == shapes[0] for s in shapes):
            shape = (len(shapes), *(shapes[0] if shapes else ()))
            if self.value == 0:  # zeroed pages from the system, not a pass over the memory
                return TensorListCPU.wrap(np.zeros(shape, dtype), layout)
            dense = np.empty(shape, dtype)
            ws.map(lambda i: dense[i].fill(self.value))
            return TensorListCPU.wrap(dense, layout)
        samples = [np.full(s, self.value, dtype) for s in shapes]
        return TensorListCPU.wrap(samples, layout, dtype=dtype, ndim=ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        args = node.scalar_args
        shape = tuple(args["shape"]) if "shape" in args else (None if node.arg_inputs else ())
        meta = {
            "dtype": dali_dtype(args.get("dtype", DALIDataType.INT32)),
            "layout": args.get("layout"),
        }
        if shape is None:
            return [{**meta, "ndim": None}]
        return [{**meta, "ndim": len(shape), "static_shape": shape}]


_DTYPE = Arg("dtype", "dtype", default=DALIDataType.INT32, doc="Output data type.")


@register("zeros", args=[_SHAPE, _DTYPE, _LAYOUT], inputs=0)
class Zeros(_Constant):
    """Returns new data of given shape and type, filled with zeros."""


@register("ones", args=[_SHAPE, _DTYPE, _LAYOUT], inputs=0)
class Ones(_Constant):
    """Returns new data of given shape and type, filled with ones."""

    value = 1


def _broadcast(op: Operator, i: int, value: Any, shape: tuple[int, ...]) -> Any:
    """``value`` broadcast NumPy-style to ``shape`` (a read-only view), or DALI's error."""
    try:
        return np.broadcast_to(value, shape)
    except ValueError:
        raise SampleFailure(
            i,
            op.error(
                f"Shapes {shape_text(shape)} and {shape_text(tuple(value.shape))} can't be "
                "broadcast."
            ),
        ) from None


def _fill_dense(op: Operator, ws: Workspace, values: Any, shape: tuple[int, ...]) -> Any:
    """A ``(batch, *shape)`` array: sample ``i`` is ``values[i]`` broadcast to ``shape``,
    written on the pipeline's threads (numpy's copies release the interpreter lock)."""
    for i in range(len(values)):
        _broadcast(op, i, values[i], tuple(shape))  # DALI's message if one does not broadcast
    out = np.empty((len(values), *shape), values.dtype)
    if not shape:  # scalars: the values themselves (a sample of ``out`` is no array to fill)
        out[...] = values
        return out
    ws.map(lambda i: np.copyto(out[i], _tile(values[i], tuple(shape))))
    return out


#: Elements of the block `_tile` makes: enough for numpy's inner copy loop to run at memory
#: speed (a fill value of 3 channels broadcast element by element is ~5x slower).
_TILE = 4096


def _tile(value: Any, shape: tuple[int, ...]) -> Any:
    """``value`` broadcast over the innermost dimensions of ``shape`` into a contiguous block
    of at least `_TILE` elements (or all of ``shape``), which broadcasts to ``shape``."""
    value = np.asarray(value)
    padded = value.reshape((1,) * (len(shape) - value.ndim) + value.shape)
    start = len(shape)
    while start > 0 and (padded.shape[start - 1] != 1 or math.prod(shape[start:]) < _TILE):
        start -= 1
    return np.ascontiguousarray(np.broadcast_to(padded[start:], shape[start:]))


def _fill(op: Operator, values: list[Any], shapes: list[tuple[int, ...]], dtype: Any) -> list[Any]:
    """One sample per (value, shape): a broadcast copy of the value, converted to ``dtype``."""
    return [
        np.array(_broadcast(op, i, convert_sat(np, np.asarray(v), dtype), s))
        for i, (v, s) in enumerate(zip(values, shapes))
    ]


@register(
    "full",
    inputs=1,
    input_names=("fill_value",),
    args=[_SHAPE, Arg("layout", "layout", doc="Output layout.")],
)
class Full(_Filled):
    """Returns new data of given shape and type, filled with a fill value.

    A fill value that is not a scalar must be broadcastable to the output shape (NumPy-style:
    extents compared from the innermost, each equal or one of them 1). The output has the fill
    value's type.
    """

    def run_cpu(self, ws: Workspace) -> Any:
        fill = ws.inputs[0]
        shapes = self.shapes(ws)
        ndim = len(shapes[0]) if shapes else 0
        if any(len(s) != ndim for s in shapes):
            raise self.arg_error("shape", "all samples must have the same number of dimensions")
        layout = self.layout(ndim)
        dense = fill.dense()
        if dense is not None and shapes and all(s == shapes[0] for s in shapes):
            return TensorListCPU.wrap(_fill_dense(self, ws, dense, shapes[0]), layout)
        samples = _fill(self, fill.samples(), shapes, fill.np_dtype)
        return TensorListCPU.wrap(samples, layout, dtype=fill.np_dtype, ndim=ndim)


class _Like(Operator):
    """zeros_like, ones_like: the first input's shape and layout, ``dtype`` or its type."""

    value = 0

    def run_cpu(self, ws: Workspace) -> Any:
        like = ws.inputs[0]
        dtype = np_dtype(self.arg("dtype")) if self.has_arg("dtype") else like.np_dtype
        held = like.held_dense
        if held is not None:
            return TensorListCPU.wrap(np.full(held.shape, self.value, dtype), like.layout())
        samples = [np.full(s.shape, self.value, dtype) for s in like.samples()]
        return TensorListCPU.wrap(samples, like.layout(), dtype=dtype, ndim=like.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype")
        meta = {
            "dtype": src.dtype if dtype is None else dali_dtype(dtype),
            "ndim": src.ndim,
            "layout": src.layout,
        }
        return [{**meta, "static_shape": src.static_shape}]


_LIKE_INPUT = ("data_like",)
_LIKE_DTYPE = Arg("dtype", "dtype", doc="Overrides the output data type.")


@register("zeros_like", inputs=1, input_names=_LIKE_INPUT, args=[_LIKE_DTYPE])
class ZerosLike(_Like):
    """Returns new data with the same shape, type and layout as the input, filled with zeros."""


@register("ones_like", inputs=1, input_names=_LIKE_INPUT, args=[_LIKE_DTYPE])
class OnesLike(_Like):
    """Returns new data with the same shape, type and layout as the input, filled with ones."""

    value = 1


@register("full_like", inputs=2, input_names=("data_like", "fill_value"))
class FullLike(Operator):
    """Returns new data with the same shape, type and layout as the input data, filled with
    a fill value (broadcast NumPy-style to the shape, converted to the input's type)."""

    def run_cpu(self, ws: Workspace) -> Any:
        like, fill = ws.inputs
        dtype = like.np_dtype
        held, fill_dense = like.held_dense, fill.dense()
        if held is not None and fill_dense is not None:
            values = convert_sat(np, fill_dense, dtype)  # the few fill values, not the output
            return TensorListCPU.wrap(_fill_dense(self, ws, values, held.shape[1:]), like.layout())
        shapes = [tuple(s.shape) for s in like.samples()]
        samples = _fill(self, fill.samples(), shapes, dtype)
        return TensorListCPU.wrap(samples, like.layout(), dtype=dtype, ndim=like.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        meta = {"dtype": src.dtype, "ndim": src.ndim, "layout": src.layout}
        return [{**meta, "static_shape": src.static_shape}]
