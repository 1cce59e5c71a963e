"""`fn.crop`: a window of an image, volume or sequence.

The window (``crop`` / ``crop_h``, ``crop_w``, ``crop_d`` at ``crop_pos_x/y/z``, with
``out_of_bounds_policy`` and ``fill_values``) is computed as DALI does, by DALI's ``CropAttr``
(`dali._ops.window.crop_attr`). The layout and, unless ``dtype`` is given, the type are kept. On
the GPU the batch, ragged or not, is one kernel launch (`dali._ops.window.extract_gpu`).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(40 * 60 * 3, dtype=np.uint8).reshape(40, 60, 3)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.crop(types.Constant(img, layout="HWC"), crop=(20, 30))
    >>> (crop,) = pipe().run()
    >>> np.array_equal(crop.as_array()[0], img[10:30, 15:45])
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.image._common import image_layout, static_image_layout
from dali._ops.numeric import array_module, batch_array
from dali._ops.window import extract_gpu
from dali._ops.window.crop_attr import CROP_ARGS, CROP_LAYOUTS, CropAttr
from dali._ops.window.extract import extract_windows, output_dtype_arg, window_meta, window_slices
from dali._ops.window.out_of_bounds import gpu_fill_values

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Crop"]


@register(
    "crop",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        *CROP_ARGS,
        Arg("dtype", "dtype", doc="Output type: FLOAT, FLOAT16 or UINT8 (default: the input's)."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
    ],
)
class Crop(Operator):
    """Crop a window of ``crop`` (H, W) or ``crop_h``×``crop_w`` at ``crop_pos_x/y``.

    The window starts at ``round(crop_pos · (extent − crop))`` (halves away from zero). The
    layout and, unless ``dtype`` is given, the type are kept: ``fn.crop(img, crop=(20, 30))`` of a
    40×60 HWC image is ``img[10:30, 15:45]``.
    """

    def setup(self) -> None:
        self._win = CropAttr(self)
        self._dtype = output_dtype_arg(self, ("float32", "float16", "uint8"))

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, CROP_LAYOUTS)
        out_dtype = self._dtype or tl.np_dtype
        if len(tl) == 0:
            return tl_cls.wrap([], layout, dtype=out_dtype, ndim=tl.sample_ndim)
        dense = batch_array(tl, xp)
        n = len(tl)
        shapes = [dense.shape[1:]] * n if dense is not None else [s.shape for s in tl.samples()]
        wins = self._win.windows(ws, shapes, layout)
        return extract_windows(self, ws, tl, dense, wins, out_dtype, layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One kernel launch for the batch (`extract_gpu.crop_batch`), ragged or not; one window
        inside a dense batch without conversion is one strided CuPy copy."""
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        layout = image_layout(self, tl, CROP_LAYOUTS)
        out_dtype = np.dtype(self._dtype or tl.np_dtype)
        n = len(tl)
        if n == 0:
            return TensorListGPU.wrap([], layout, dtype=out_dtype, ndim=tl.sample_ndim)
        dense = tl.held_dense
        if dense is not None:
            shapes = [tuple(dense.shape[1:])] * n
        else:
            shapes = [tuple(s.shape) for s in tl.samples()]
        wins = self._win.windows(ws, shapes, layout)
        if (
            dense is not None
            and out_dtype == tl.np_dtype
            and all(w == wins[0] for w in wins)
            and window_slices(wins[0][0], wins[0][1], shapes[0])[2]
        ):
            # one window inside every sample of a dense batch, no conversion: one strided CuPy
            # copy, ~20x cheaper on the host than packing the kernel's descriptions and about
            # as fast on the GPU (benchmarks/image_kernels_gpu.py)
            return extract_windows(self, ws, tl, dense, wins, out_dtype, layout)
        uniform = dense is not None and all(w == wins[0] for w in wins)
        fill = gpu_fill_values(self, wins, layout, out_dtype, uniform)
        src = extract_gpu.gpu_batch(tl)
        return extract_gpu.crop_batch(src, wins, layout=layout, out_dtype=out_dtype, fill=fill)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's layout, its extents with the cropped ones set (`CropAttr.static_shape`)."""
        layout = static_image_layout(node, CROP_LAYOUTS)
        (meta,) = window_meta(node, layout)
        return [
            {
                **meta,
                "static_shape": CropAttr.static_shape(node, node.inputs[0].static_shape, layout),
            }
        ]
