"""Constants as graph nodes: the same array for every sample.

* ``types.Constant`` (and a numpy array or number used where a node is expected) becomes the
  hidden ``_constant`` operator, which holds the array itself;
* `fn.constant` is DALI's operator of the same job, with DALI's arguments: the values in
  ``fdata`` (floats; the default type is FLOAT) or ``idata`` (integers; INT32), reshaped to
  ``shape`` (without it: 1-D) or, when one value is given, broadcast to it; ``dtype`` converts
  them as `fn.cast` does (rounding half away from zero, saturating).

Example:
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.constant(fdata=[1.5, -2.5], dtype=types.INT32), fn.constant(idata=7, shape=[2])
    >>> a, b = pipe().run()
    >>> a.as_array().tolist(), b.as_array().tolist()
    ([[2, -3], [2, -3]], [[7, 7], [7, 7]])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Constant", "ConstantOp", "constant"]


@register(
    "_constant",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=1,
    class_name="Constant",
    args=[Arg("value", "any"), Arg("layout", "layout", default=""), Arg("dtype", "dtype")],
)
class Constant(Operator):
    """A batch in which every sample is the same (read-only) array."""

    def setup(self) -> None:
        value = np.asarray(self.arg("value"))
        dtype = self.arg("dtype")
        if dtype:
            from dali._dtypes import np_dtype

            value = value.astype(np_dtype(dtype))
        value = np.array(value, order="C")  # a copy; ascontiguousarray would make 0-d 1-d
        value.flags.writeable = False
        self._value = value
        self._cache: dict[int, Any] = {}

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        n = ws.batch_size
        dense = self._cache.get(n)
        if dense is None:
            dense = np.broadcast_to(self._value, (n, *self._value.shape))
            self._cache[n] = dense
        return TensorListCPU.wrap(dense, layout=self.arg("layout"))

    def run_gpu(self, ws: Workspace) -> Any:
        import cupy as cp

        from dali._tensors import TensorListGPU

        n = ws.batch_size
        dense = cp.broadcast_to(cp.asarray(self._value), (n, *self._value.shape))
        return TensorListGPU.wrap(dense, layout=self.arg("layout"))

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        value = np.asarray(node.scalar_args["value"])
        dtype = node.scalar_args.get("dtype") or dali_dtype(value.dtype)
        layout = node.scalar_args.get("layout", "")
        return [{"static_shape": value.shape, "dtype": dtype, "layout": layout}]


@register(
    "constant",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=1,
    class_name="Constant",
    args=[
        Arg("fdata", "float_vec", doc="The values, for floating point types."),
        Arg("idata", "int_vec", doc="The values, for integer types."),
        Arg("shape", "int_vec", doc="Shape of the output; without it the data is 1-D."),
        Arg("layout", "layout", default="", doc="Layout of the output."),
        Arg("dtype", "dtype", doc="Output type (default: FLOAT for fdata, INT32 for idata)."),
    ],
)
class ConstantOp(Constant):
    """Produces a batch of constant tensors.

    Floating point values go in ``fdata`` and integer values in ``idata`` (exactly one of
    them); a flat vector of values or a single value, reshaped to ``shape`` (a single value is
    broadcast to fill it). Without ``dtype`` the output is FLOAT for ``fdata`` and INT32 for
    ``idata``.
    """

    def setup(self) -> None:
        from dali._dtypes import np_dtype
        from dali._ops.numeric import convert_sat

        has_f, has_i = self.has_arg("fdata"), self.has_arg("idata")
        if has_f and has_i:
            raise self.error("Constant node: `fdata` and `idata` arguments are mutually exclusive")
        if not (has_f or has_i):
            raise self.error("Constant node: either `fdata` or `idata` must be present.")
        name = "fdata" if has_f else "idata"
        data = np.asarray(self.arg(name), np.float32 if has_f else np.int64).reshape(-1)
        if self.has_arg("shape"):
            shape = tuple(int(d) for d in self.arg("shape"))
            if any(d < 0 for d in shape):
                raise self.arg_error("shape", f"extents must be non-negative, got {list(shape)}")
            if data.size not in (1, math.prod(shape)):
                raise self.arg_error(
                    name,
                    f"The number of values does not match the shape specified: {data.size} "
                    f"values for shape {list(shape)}",
                )
        else:
            shape = (data.size,)
        dtype = self.arg("dtype")
        target = np_dtype(dtype) if dtype else np.dtype(np.float32 if has_f else np.int32)
        converted = convert_sat(np, data, target)
        if converted.size == math.prod(shape):
            value = np.array(converted.reshape(shape), order="C")
        else:  # one value, broadcast
            value = np.array(np.broadcast_to(converted.reshape(()), shape), order="C")
        layout = self.arg("layout")
        if layout and len(layout) != len(shape):
            raise self.arg_error(
                "layout",
                f"Layout '{layout}' has {len(layout)} dimensions but output shape has "
                f"{len(shape)} dimensions.",
            )
        value.flags.writeable = False
        self._value = value
        self._cache = {}

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import DALIDataType

        args = node.scalar_args
        data = args.get("fdata", args.get("idata", ()))
        size = len(data) if isinstance(data, (list, tuple)) else 1
        shape = tuple(args["shape"]) if "shape" in args else (size,)
        dtype = args.get("dtype") or (DALIDataType.FLOAT if "fdata" in args else DALIDataType.INT32)
        return [{"static_shape": shape, "dtype": dtype, "layout": args.get("layout", "")}]


def constant(
    value: np.ndarray, *, layout: str = "", device: str = "cpu", dtype: Any = None, **extra: Any
) -> Any:
    from dali._graph.trace import call_operator

    kwargs: dict[str, Any] = {"value": value, "layout": layout, "device": device, **extra}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return call_operator(Constant.schema, (), kwargs)
