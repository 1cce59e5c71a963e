"""`fn.shapes` and `fn.get_property`: a batch's metadata as data.

Both read only what describes the samples (their shapes, layout and source info), never the
data, so they accept GPU inputs on the CPU without a device-to-host copy, as DALI's metadata
inputs do: ``gpu_node.shape()`` gives a CPU node.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import types
    >>> @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.zeros((2, 3), dtype=np.uint8), layout="HW")
    ...     return x.shape(), x.property("layout")
    >>> p = pipe(); p.build()
    >>> shapes, layout = p.run()
    >>> shapes.as_array().tolist(), str(shapes.dtype), bytes(layout.at(0)).decode()
    ([[2, 3], [2, 3]], 'DALIDataType.INT64', 'HW')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["GetProperty", "Shapes"]

_PROPERTY_KEYS = ("layout", "source_info")


class _HostMetadata(Operator):
    """An operator computed from metadata on the host; the GPU backend copies the result."""

    def _host(self, ws: Workspace) -> Any:
        raise NotImplementedError

    def run_cpu(self, ws: Workspace) -> Any:
        return self._host(ws)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.transfer import to_gpu

        return to_gpu(self._host(ws))


@register(
    "_shape",
    class_name="Shapes",
    display_name="dali.fn.shapes",  # (errors name it as users know it)
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("dtype", "dtype", doc="Type of the output (default INT64)."),
        Arg("type", "dtype", doc="Deprecated alias of `dtype`."),
    ],
    metadata_inputs=True,
)
class Shapes(_HostMetadata):
    """Each sample's shape as a 1-D tensor (``[H, W, C]`` for an HWC image).

    Example: ``images.shape()`` gives INT64 ``[480, 640, 3]`` for a 480x640 RGB image (the
    deprecated ``fn.shapes(images)`` too).
    """

    def setup(self) -> None:
        from dali._dtypes import DALIDataType, np_dtype, type_name

        if self.has_arg("dtype") and self.has_arg("type"):
            raise self.arg_error("type", "`type` is a deprecated alias of `dtype`; give one")
        dtype = self.arg("dtype") or self.arg("type") or DALIDataType.INT64
        self._dtype = np_dtype(dtype)
        if self._dtype.kind not in "iuf":
            name = "dtype" if self.has_arg("dtype") else "type"
            raise self.arg_error(name, f"Data type {type_name(dtype)} is not supported")

    def _host(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        dense = tl.held_dense
        n = len(tl)
        out = np.empty((n, tl.sample_ndim), dtype=self._dtype)
        if dense is not None:
            out[:] = dense.shape[1:]
        elif n:
            out[:] = tl.shape()
        return TensorListCPU.wrap(out)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import DALIDataType

        args = node.scalar_args
        dtype = args.get("dtype") or args.get("type") or DALIDataType.INT64
        ndim = node.inputs[0].ndim  # one extent per dimension of the input
        return [{"dtype": dtype, "ndim": 1, "layout": "", "static_shape": (ndim,)}]


@register(
    "get_property",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[Arg("key", "str", default=REQUIRED, doc='"source_info" or "layout".')],
    metadata_inputs=True,
)
class GetProperty(_HostMetadata):
    """A metadata item of every sample as a 1-D UINT8 tensor (the bytes of a string).

    ``key="source_info"`` gives where the sample came from (a reader's file path, relative to
    its root; empty when unknown), ``key="layout"`` the layout string.

    Example: ``bytes(pipe.run()[0].at(0)).decode()`` turns a sample back into the string.
    """

    def setup(self) -> None:
        key = self.arg("key")
        if key not in _PROPERTY_KEYS:
            raise self.arg_error(
                "key",
                f'Unknown property key "{key}"; supported keys: '
                + ", ".join(f'"{k}"' for k in _PROPERTY_KEYS),
            )
        self._key = key

    def _host(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        n = len(tl)
        if self._key == "layout":
            row = np.frombuffer(tl.layout().encode(), dtype=np.uint8)
            return TensorListCPU.wrap(np.repeat(row[None, :], n, axis=0))
        infos = tl.source_infos
        if infos is None:
            infos = ws.meta.source_info if len(ws.meta) == n else None
        if infos is None:
            infos = [""] * n
        samples = [np.frombuffer(str(s).encode(), dtype=np.uint8).copy() for s in infos]
        return TensorListCPU.wrap(samples, dtype=np.uint8, ndim=1)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import DALIDataType

        return [{"dtype": DALIDataType.UINT8, "ndim": 1, "layout": ""}]
