"""`types.Constant` as a graph node: the same array for every sample."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Constant", "constant"]


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


def constant(
    value: np.ndarray, *, layout: str = "", device: str = "cpu", dtype: Any = None, **extra: Any
) -> Any:
    from dali._graph.trace import call_operator

    kwargs: dict[str, Any] = {"value": value, "layout": layout, "device": device, **extra}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return call_operator(Constant.schema, (), kwargs)
