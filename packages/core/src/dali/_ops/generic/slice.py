"""`fn.slice`: extract a sub-tensor given by coordinates.

The window is given either by two extra positional inputs, ``anchor`` and ``shape`` (floats are
relative to the input extents when ``normalized_anchor``/``normalized_shape`` are set, the
default; integers are always absolute), or by named arguments: ``start``/``rel_start`` with
``end``/``rel_end``/``shape``/``rel_shape``, along the dimensions named by ``axis_names``
(default ``"WH"``: x first, then y) or given by ``axes``. The arguments, their checks and the
window arithmetic are DALI's ``SliceAttr`` (`dali._ops.window.slice_attr`), which
`fn.decoders.image_slice` shares. A window outside the input follows ``out_of_bounds_policy``
("error", "pad" with ``fill_values``, "trim_to_shape"), exactly as `fn.crop`.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(4 * 6 * 1, dtype=np.uint8).reshape(4, 6, 1)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.slice(x, start=[1, 2], shape=[3, 2]), fn.slice(x, rel_start=[0.5, 0.5], rel_end=[1, 1])
    >>> a, b = pipe().run()
    >>> np.array_equal(a.as_array()[0], img[2:4, 1:4]), np.array_equal(b.as_array()[0], img[2:, 3:])
    (True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module, batch_array
from dali._ops.window import extract_gpu
from dali._ops.window.extract import extract_windows, output_dtype_arg, window_meta, window_slices
from dali._ops.window.out_of_bounds import gpu_fill_values
from dali._ops.window.slice_attr import SLICE_ARGS, SliceAttr, static_slice_shape

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Slice"]


@register(
    "slice",
    devices=("cpu", "gpu"),
    inputs=(1, 3),
    input_names=("data", "anchor", "shape"),
    args=[
        *SLICE_ARGS,
        Arg("dtype", "dtype", doc="Output type (default: the input's)."),
        Arg("image_type", "image_type", doc="Deprecated; ignored."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
    ],
)
class Slice(Operator):
    """Extract a slice: ``fn.slice(x, anchor, shape)`` or ``fn.slice(x, start=..., end=...)``.

    With the default ``axis_names="WH"`` the coordinates are (x, y): ``start=[1, 2],
    shape=[3, 2]`` of an HWC image is ``img[2:4, 1:4]``.
    """

    def setup(self) -> None:
        self._slice = SliceAttr(self)
        self._dtype = output_dtype_arg(self, None)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = tl.layout()
        ndim = tl.sample_ndim
        out_dtype = self._dtype or tl.np_dtype
        n = len(tl)
        if n == 0:
            return tl_cls.wrap([], layout, dtype=out_dtype, ndim=ndim)
        dense = batch_array(tl, xp)
        shapes = (
            [tuple(dense.shape[1:])] * n
            if dense is not None
            else [tuple(s.shape) for s in tl.samples()]
        )
        wins = self._slice.windows(ws, shapes, layout, ndim)
        return extract_windows(self, ws, tl, dense, wins, out_dtype, layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One kernel launch for the batch (`extract_gpu.crop_batch`), ragged or not, as
        `fn.crop`; one window inside a dense batch without conversion is one strided CuPy
        copy, and what the kernel does not handle (more than 6 dimensions, other element
        types) is cut sample by sample."""
        from dali._ops.gpu.kernels import C_TYPES
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        layout = tl.layout()
        ndim = tl.sample_ndim
        out_dtype = np.dtype(self._dtype or tl.np_dtype)
        n = len(tl)
        if n == 0:
            return TensorListGPU.wrap([], layout, dtype=out_dtype, ndim=ndim)
        shapes = tl.shape()  # (a flat batch's shapes, without making its sample views)
        dense = tl.held_dense
        wins = self._slice.windows(ws, shapes, layout, ndim)
        uniform = dense is not None and all(w == wins[0] for w in wins)
        if (
            (uniform and out_dtype == tl.np_dtype and window_slices(*wins[0], shapes[0])[2])
            or not 0 < ndim <= extract_gpu.MAX_DIMS
            or tl.np_dtype not in C_TYPES
            or out_dtype not in C_TYPES
        ):
            return extract_windows(self, ws, tl, dense, wins, out_dtype, layout)
        fill = gpu_fill_values(self, wins, layout, out_dtype, uniform)
        src = extract_gpu.gpu_batch(tl)
        return extract_gpu.crop_batch(src, wins, layout=layout, out_dtype=out_dtype, fill=fill)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        meta = window_meta(node, node.inputs[0].layout)
        meta[0]["static_shape"] = static_slice_shape(node)
        return meta
