"""`fn.random_resized_crop`: a random window, resized to exactly ``size``.

The windows come from the random crop generator shared with ``decoders.image_random_crop``
(`dali._ops.window.random_crop`), computed for the whole batch at once from each sample's own
random stream, so a sample gets the same window whatever the batch size, thread count or
sharding, on the CPU and the GPU. The window is then resampled as `fn.resize` does with the
window as its ROI, with the same filters (``interp_type``, ``min_filter``, ``mag_filter``,
``antialias``). All frames of a sequence share one window. On the GPU the whole batch is planned
with numpy (`resample.gpu_plan.plan_batch`) and cropped and resized in one kernel launch.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import fn, types
    >>> @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    ... def pipe():
    ...     img = types.Constant(np.zeros((60, 80, 3), dtype=np.uint8), layout="HWC")
    ...     return fn.random_resized_crop(img, size=(24, 32))
    >>> p = pipe(); p.build()
    >>> p.run()[0].shape()
    [(24, 32, 3), (24, 32, 3)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._static_shapes import with_extents
from dali._ops.image.resample.cpu import resample
from dali._ops.image.resample.reference import AxisPlan
from dali._ops.image.resize import FILTER_ARGS, ResamplingOperator, spatial_axes
from dali._ops.window.random_crop import RANDOM_CROP_ARGS, RandomCropParams, random_crop_windows
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["RandomResizedCrop"]

_LAYOUTS = ("HWC", "CHW", "FHWC", "FCHW", "CFHW")


@register(
    "random_resized_crop",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("size", "int_vec", default=REQUIRED, doc="Output size (H, W)."),
        *RANDOM_CROP_ARGS,
        *FILTER_ARGS,
    ],
    random=True,
)
class RandomResizedCrop(ResamplingOperator):
    """Crop a random window (area and aspect ratio drawn at random) and resize it to ``size``.

    Example: ``fn.random_resized_crop(images, size=(224, 224))`` is the usual ImageNet training
    augmentation; ``random_area=(0.08, 1.0)`` and ``random_aspect_ratio=(3/4, 4/3)`` by default.
    """

    def setup(self) -> None:
        self.setup_filters()
        size = [int(v) for v in self.arg("size")]
        if len(size) == 1:
            size = size * 2
        if len(size) != 2:
            raise self.arg_error("size", f"expected (height, width), got {size}")
        if any(v <= 0 for v in size):
            raise self.arg_error("size", f"sizes must be positive, got {size}")
        self.size = size
        self.params = RandomCropParams.from_op(self)

    def crop_windows(
        self, ws: Workspace, shapes: list[tuple[int, ...]], axes: tuple[int, ...]
    ) -> list[list[int]]:
        """Each sample's window ``[y, x, h, w]``, computed for the batch in one call."""
        hw = np.array([(s[axes[0]], s[axes[1]]) for s in shapes], dtype=np.int64).reshape(-1, 2)
        anchors, sizes = self.window_arrays(ws, hw)
        return np.concatenate([anchors, sizes], axis=1).tolist()

    def window_arrays(self, ws: Workspace, hw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The windows of images of ``(batch, 2)`` extents: ``(y, x)`` and ``(h, w)`` arrays."""
        empty = (hw == 0).any(axis=1)
        if empty.any():
            i = int(np.flatnonzero(empty)[0])
            H, W = hw[i].tolist()
            raise self.error(f"sample {i}: cannot crop an empty image ({H}x{W})")
        p = self.params
        return random_crop_windows(ws, hw, p.area, p.aspect_ratio, p.num_attempts)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl, allowed=(2,))
        if layout not in _LAYOUTS:
            raise self.error(
                f'unsupported input layout "{layout}"; expected one of {", ".join(_LAYOUTS)}'
            )
        samples = tl.samples()
        out_dtype = self.output_dtype(tl.np_dtype)
        filters = self.filters(ws)
        antialias = self.arg("antialias")
        out_h, out_w = self.size
        windows = self.crop_windows(ws, [x.shape for x in samples], axes)

        def one(i: int) -> np.ndarray:
            x = samples[i]
            H, W = x.shape[axes[0]], x.shape[axes[1]]
            y0, x0, h, w = windows[i]
            mn, mg = filters[i]
            plans = [
                AxisPlan.make(H, out_h, y0, y0 + h, mn, mag_interp=mg, antialias=antialias),
                AxisPlan.make(W, out_w, x0, x0 + w, mn, mag_interp=mg, antialias=antialias),
            ]
            return resample(x, axes, plans, out_dtype)

        return TensorListCPU.wrap(ws.map(one), layout=layout, dtype=out_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """The same windows as `run_cpu` (drawn on the host); crop + resize in one kernel."""
        from dali._ops.gpu import kernels
        from dali._ops.image.resample import gpu as resample_gpu
        from dali._ops.image.resample.gpu_plan import plan_batch

        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl, allowed=(2,))
        if layout not in _LAYOUTS:
            raise self.error(
                f'unsupported input layout "{layout}"; expected one of {", ".join(_LAYOUTS)}'
            )
        out_dtype = self.output_dtype(tl.np_dtype)
        antialias = self.arg("antialias")
        out_h, out_w = self.size
        inputs = kernels.input_batch(tl)
        shapes = inputs[0]
        plans: Any
        hw = inputs[1][:, list(axes)]
        if len(shapes) and hw.max() < 2**24:  # (float32 holds the windows' integers exactly)
            mins, mags = self.filter_arrays(ws)
            anchors, sizes = self.window_arrays(ws, hw)
            plans = plan_batch(
                hw, [[out_h, out_w]], anchors, anchors + sizes, mins, mags, antialias
            )
        else:  # one sample at a time, as the CPU does
            filters = self.filters(ws)
            windows = self.crop_windows(ws, shapes, axes)
            plans = []
            for i, shape in enumerate(shapes):
                H, W = shape[axes[0]], shape[axes[1]]
                y0, x0, h, w = windows[i]
                mn, mg = filters[i]
                plans.append(
                    [
                        AxisPlan.make(H, out_h, y0, y0 + h, mn, mag_interp=mg, antialias=antialias),
                        AxisPlan.make(W, out_w, x0, x0 + w, mn, mag_interp=mg, antialias=antialias),
                    ]
                )
        try:
            return resample_gpu.resample_batch(tl, axes, plans, out_dtype, layout, inputs=inputs)
        except TypeError as e:
            raise self.error(str(e)) from None

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's layout and non-spatial extents; H and W are ``size``."""
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        shape = None
        size = [int(v) for v in node.scalar_args.get("size", ())]
        if len(size) == 1:
            size *= 2
        if len(size) == 2 and src.layout is not None and src.static_shape is not None:
            try:
                layout, _ = spatial_axes(src.layout, len(src.static_shape), allowed_spatial=(2,))
            except ValueError:  # reported at run
                pass
            else:
                shape = with_extents(src.static_shape, layout, {"H": size[0], "W": size[1]})
        return [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout, "static_shape": shape}]
