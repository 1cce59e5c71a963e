"""`fn.resize_crop_mirror` (resize, then crop, then flip, in one resampling) and
`fn.experimental.resize` (DALI's GPU-only variant of `fn.resize`, same arguments).

`ResizeCropMirror` computes each sample's resize as `fn.resize` does (`Resize.geometry`: output
size and input region), takes the crop window of ``crop`` / ``crop_h``, ``crop_w``, ``crop_d``
at ``crop_pos_x/y/z`` in the *resized* image (`CropAttr`, no out-of-bounds policy: a window
beyond the image repeats its border, as the resampling does) and projects it back onto the input:
one resampling of that region gives the window, without resizing the rest. ``mirror`` swaps the
ends of the region along the flipped axes.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(40 * 60, dtype=np.uint8).reshape(40, 60, 1)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.resize_crop_mirror(x, size=(40, 60), crop=(10, 20), mirror=1)
    >>> (out,) = pipe().run()
    >>> np.array_equal(out.as_array()[0], img[15:25, 20:40][:, ::-1])
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.image.resample.cpu import resample
from dali._ops.image.resample.geometry import axis_plans, cached_plans
from dali._ops.image.resize import Resize
from dali._ops.window.crop_attr import CROP_WINDOW_ARGS, CropAttr
from dali._ops.window.out_of_bounds import OUT_OF_BOUNDS_ARGS
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ExperimentalResize", "ResizeCropMirror", "crop_region"]

_RESIZE_ARGS = [
    a for a in Resize.schema.args.values() if a.name not in ("save_attrs", "image_type")
]
_OOB = {a.name for a in OUT_OF_BOUNDS_ARGS}
_CROP_ARGS = [a for a in CROP_WINDOW_ARGS if a.name not in _OOB]

#: The ``mirror`` bit of each spatial axis, by its layout letter.
MIRROR_BITS = {"W": 1, "H": 2, "D": 4}


def crop_region(
    out_size: Sequence[int],
    lo: Sequence[float],
    hi: Sequence[float],
    anchor: Sequence[int],
    shape: Sequence[int],
    flip: Sequence[bool],
) -> tuple[list[int], list[float], list[float]]:
    """The input region of a window (``anchor``, ``shape``) of a resized image.

    The resize maps the input region ``[lo, hi)`` onto ``out_size`` pixels; the window's
    region is its part of ``[lo, hi)`` (float32, as DALI stores it), ends swapped where
    ``flip``.

    Example:
        >>> crop_region([20], [0.0], [10.0], [5], [10], [False])
        ([10], [2.5], [7.5])
        >>> crop_region([20], [0.0], [10.0], [5], [10], [True])
        ([10], [7.5], [2.5])
    """
    new_lo, new_hi = [], []
    for d, size in enumerate(out_size):
        ratio = (hi[d] - lo[d]) / size if size else 0.0
        a = float(np.float32(anchor[d] * ratio + lo[d]))
        b = float(np.float32((anchor[d] + shape[d]) * ratio + lo[d]))
        new_lo.append(b if flip[d] else a)
        new_hi.append(a if flip[d] else b)
    return list(shape), new_lo, new_hi


class _CropArgs:
    """The operator as `CropAttr` reads it: no ``out_of_bounds_policy`` (the window may leave
    the resized image: the resampling repeats the border there)."""

    def __init__(self, op: Operator) -> None:
        self._op = op

    def arg(self, name: str) -> Any:
        return "pad" if name == "out_of_bounds_policy" else self._op.arg(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._op, name)


@register(
    "resize_crop_mirror",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        *_RESIZE_ARGS,
        *_CROP_ARGS,
        Arg(
            "mirror",
            "int",
            default=0,
            tensor=True,
            doc="Flip mask: 1 horizontal, 2 vertical, 4 depthwise (bitwise combinations).",
        ),
    ],
)
class ResizeCropMirror(Resize):
    """Fused resize, crop and mirror: the result of ``resize``, then ``crop``, then ``flip``.

    The crop window is taken in the resized image and projected back onto the input, so only
    the window is resampled. ``mirror`` is a per-sample bit mask: 1 flips horizontally, 2
    vertically, 4 along the depth (DALI 2.4 reads the bits of inputs whose spatial axes do not
    come first, CHW or FHWC, from the wrong axis; here they mean what they document).
    """

    def setup(self) -> None:
        super().setup()
        self._win = CropAttr(_CropArgs(self))  # type: ignore[arg-type]

    def _plans(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], layout: str, axes: Sequence[int]
    ) -> list[tuple[list[int], list[float], list[float]]]:
        """Per sample: the output size and the input region of the window."""
        geoms = self.geometry(ws, shapes, tuple(axes))
        resized = []
        for shape, (out_size, _, _) in zip(shapes, geoms):
            s = list(shape)
            for a, size in zip(axes, out_size):
                s[a] = size
            resized.append(tuple(s))
        wins = self._win.windows(ws, resized, layout)
        mirror = ws.arg_scalars("mirror", np.int64).tolist()
        out = []
        for i, ((out_size, lo, hi), (anchor, extent)) in enumerate(zip(geoms, wins)):
            flip = [bool(mirror[i] & MIRROR_BITS.get(layout[a], 0)) for a in axes]
            out.append(
                crop_region(
                    out_size, lo, hi, [anchor[a] for a in axes], [extent[a] for a in axes], flip
                )
            )
        return out

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        samples = tl.samples()
        out_dtype = self.output_dtype(tl.np_dtype)
        shapes = [s.shape for s in samples]
        regions = self._plans(ws, shapes, layout, axes)
        filters = self.filters(ws)
        antialias = self.arg("antialias")

        def one(i: int) -> np.ndarray:
            in_spatial = [shapes[i][a] for a in axes]
            plans = axis_plans(in_spatial, *regions[i], *filters[i], antialias)
            return resample(samples[i], axes, plans, out_dtype)

        results = ws.map(one)
        return TensorListCPU.wrap(results, layout=layout, dtype=out_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """The geometry of `run_cpu`; the pixels in one batched kernel (`resample.gpu`)."""
        from dali._ops.gpu import kernels
        from dali._ops.image.resample import gpu as resample_gpu

        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        out_dtype = self.output_dtype(tl.np_dtype)
        inputs = kernels.input_batch(tl)
        shapes = inputs[0]
        regions = self._plans(ws, shapes, layout, axes)
        filters = self.filters(ws)
        antialias = self.arg("antialias")
        plans = [
            cached_plans(
                tuple(shape[a] for a in axes),
                tuple(size),
                tuple(lo),
                tuple(hi),
                *flt,
                antialias,
            )
            for shape, (size, lo, hi), flt in zip(shapes, regions, filters)
        ]
        try:
            return resample_gpu.resample_batch(tl, axes, plans, out_dtype, layout, inputs=inputs)
        except TypeError as e:
            raise self.error(str(e)) from None

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's layout and number of dimensions; the type (``dtype`` or the input's)."""
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        return [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout, "static_shape": None}]


@register(
    "experimental.resize",
    devices=("gpu",),
    inputs=1,
    input_names=("input",),
    outputs=lambda args: 2 if args.get("save_attrs") else 1,
    args=list(Resize.schema.args.values()),
)
class ExperimentalResize(Resize):
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results."""
