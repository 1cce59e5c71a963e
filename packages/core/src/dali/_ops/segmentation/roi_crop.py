"""`fn.roi_random_crop` and `fn.random_crop_generator`: random crop windows, as coordinates.

Neither operator crops: each gives a window for `fn.slice` (or ``fn.crop``) to cut.

**roi_random_crop** places a window of a fixed size (``crop_shape``, any number of dimensions)
at random so that it holds as much of a region of interest as it can: the ROI is
``roi_start`` plus ``roi_shape`` (or up to ``roi_end``). Along each axis, independently:

* ROI as long as the window: the window starts at the ROI;
* ROI longer: the window is a sub-window of the ROI, its start uniform in
  ``[roi_start, roi_end - crop]``;
* ROI shorter: the window holds the whole ROI, its start uniform in
  ``[roi_end - crop, roi_start]``.

With the input's shape (``in_shape``, or the data itself as the positional input: then its first
``len(crop_shape)`` extents) the window also stays inside the input (the ROI must lie inside it,
and the window must fit); without it, it may reach outside. The output is the window's start,
INT64 ``[ndim]``: ``fn.slice(data, start, crop_shape, axes=...)``. Every argument may be given
per sample; a single value stands for every axis.

**random_crop_generator** takes an image shape (a 1-D integer tensor ``[H, W]`` or
``[H, W, C]``, as ``x.shape()`` gives it) and draws the window of ``fn.random_resized_crop``:
an area fraction uniform in ``random_area``, an aspect ratio (w/h) log-uniform in
``random_aspect_ratio``, ``num_attempts`` tries, then DALI's fallback
(`dali._ops.window.random_crop`). The outputs are the window's ``anchor`` and ``shape``, INT32
``[y, x]`` and ``[h, w]``: ``fn.slice(image, anchor, shape, axes=[0, 1])``.

Both run on the CPU only, as DALI's. Each sample draws from its own counter-based stream
(`Workspace.rng`): the same sample gets the same window whatever the batch size or threads.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=3)
    ... def pipe():
    ...     start = fn.roi_random_crop(crop_shape=[4, 4], roi_start=[2, 3], roi_end=[5, 9],
    ...                                in_shape=[10, 20])
    ...     anchor, shape = fn.random_crop_generator(types.Constant(np.array([100, 200])),
    ...                                              random_area=0.25, random_aspect_ratio=1.0)
    ...     return start, anchor, shape
    >>> start, anchor, shape = (o.at(0) for o in pipe().run())
    >>> s = start.tolist()
    >>> 1 <= s[0] <= 2 and 3 <= s[1] <= 5, shape.tolist()
    (True, [71, 71])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype, type_name
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.window.random_crop import RANDOM_CROP_ARGS, random_crop_windows
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ROIRandomCrop", "RandomCropGenerator", "roi_crop_range"]

_STREAM = 0x726F6963  # "roic": the sub-stream of roi_random_crop's draws


def roi_crop_range(
    roi_start: np.ndarray,
    roi_extent: np.ndarray,
    crop: np.ndarray,
    in_shape: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The range ``[lo, hi]`` (both included) of the window's start, element-wise (DALI's
    ``ROIRandomCrop``), for arrays of any common shape.

    Example:
        >>> lo, hi = roi_crop_range(np.array([2, 3, 8]), np.array([3, 6, 1]),
        ...                         np.array([3, 4, 8]), np.array([10, 20, 10]))
        >>> lo.tolist(), hi.tolist()  # equal, longer, shorter (kept inside 10)
        ([2, 3, 1], [2, 5, 2])
    """
    longer = roi_extent > crop
    shorter = roi_extent < crop
    lo = np.where(shorter, roi_start + roi_extent - crop, roi_start)
    hi = np.where(longer, roi_start + roi_extent - crop, roi_start)
    if in_shape is not None:
        room = in_shape - crop
        hi = np.where(longer | shorter, np.minimum(hi, room), hi)
        lo = np.where(shorter, np.maximum(lo, 0), lo)
    return lo, hi


@register(
    "roi_random_crop",
    class_name="ROIRandomCrop",
    devices=("cpu",),
    inputs=(0, 1),
    input_names=("input",),
    random=True,
    args=[
        Arg("crop_shape", "int_vec", default=REQUIRED, tensor=True, doc="The window's size."),
        Arg("roi_start", "int_vec", default=REQUIRED, tensor=True, doc="ROI start."),
        Arg("roi_end", "int_vec", tensor=True, doc="ROI end (not with roi_shape)."),
        Arg("roi_shape", "int_vec", tensor=True, doc="ROI shape (not with roi_end)."),
        Arg("in_shape", "int_vec", tensor=True, doc="The input's shape (not with an input)."),
    ],
)
class ROIRandomCrop(Operator):
    """A random start of a ``crop_shape`` window that holds as much of the ROI as it can."""

    def setup(self) -> None:
        if self.has_arg("roi_end") + self.has_arg("roi_shape") != 1:
            raise self.arg_error(
                "roi_end", "Either ROI end or ROI shape should be defined, but not both"
            )
        if self.has_arg("in_shape") and self.node.inputs:
            raise self.arg_error(
                "in_shape", "``in_shape`` argument is incompatible with providing an input."
            )

    def _crop_shapes(self, ws: Workspace) -> np.ndarray:
        if not ws.is_tensor_arg("crop_shape"):  # one shape for every sample
            ndim = len(ws.arg_vectors("crop_shape", np.int64)[0]) if ws.batch_size else 0
            return (
                ws.arg_vectors("crop_shape", np.int64, n=ndim)
                if ndim
                else np.zeros((ws.batch_size, 0), np.int64)
            )
        crops = ws.arg_vectors("crop_shape", np.int64)
        ndim = len(crops[0]) if crops else 0
        for i, c in enumerate(crops):
            if len(c) != ndim:
                raise self.arg_error(
                    "crop_shape",
                    f"sample {i}: {len(c)} dimensions, the first sample has {ndim}",
                )
        return np.array(crops, np.int64).reshape(len(crops), ndim)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        crop = self._crop_shapes(ws)
        n, ndim = crop.shape
        what = " (one per dimension of crop_shape)"
        start = ws.arg_vectors("roi_start", np.int64, n=ndim, what=what)
        by_end = self.has_arg("roi_end")
        if by_end:
            end = ws.arg_vectors("roi_end", np.int64, n=ndim, what=what)
            extent = end - start
        else:
            extent = ws.arg_vectors("roi_shape", np.int64, n=ndim, what=what)
            end = start + extent
        in_shape: np.ndarray | None = None
        if self.has_arg("in_shape"):
            in_shape = ws.arg_vectors("in_shape", np.int64, n=ndim, what=what)
        elif ws.inputs:
            shapes = ws.inputs[0].shape()
            for i, s in enumerate(shapes):
                if len(s) < ndim:
                    raise self.error(
                        f"sample {i}: the input has {len(s)} dimensions, fewer than the "
                        f"{ndim} of ``crop_shape``"
                    )
            in_shape = np.array([s[:ndim] for s in shapes], np.int64).reshape(n, ndim)
        if in_shape is not None:
            self._check_bounds(crop, start, end, extent, in_shape, by_end)
        lo, hi = roi_crop_range(start, extent, crop, in_shape)
        u = ws.rng.uniform(ndim, stream=_STREAM)
        span = (hi - lo + 1).astype(np.float64)
        out = lo + np.minimum((u * span).astype(np.int64), hi - lo)
        return TensorListCPU.wrap(out.astype(np.int64), "")

    def _check_bounds(
        self,
        crop: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        extent: np.ndarray,
        in_shape: np.ndarray,
        by_end: bool,
    ) -> None:
        """DALI's checks, sample by sample: the window fits and the ROI lies inside."""
        if not np.any((in_shape < crop) | (start < 0) | (in_shape < end)):
            return  # nothing to report: no need to go sample by sample
        for s in range(len(crop)):
            for d in range(crop.shape[1]):
                if in_shape[s, d] < crop[s, d]:
                    raise self.arg_error(
                        "crop_shape",
                        "Cropping shape can't be bigger than the input shape. Got: "
                        f"crop_shape[{crop[s, d]}] and sample_shape[{in_shape[s, d]}] for d={d}",
                    )
            for d in range(crop.shape[1]):
                if not (start[s, d] >= 0 and in_shape[s, d] >= end[s, d]):
                    second = f"roi_end[{end[s, d]}]" if by_end else f"roi_shape[{extent[s, d]}]"
                    raise self.arg_error(
                        "roi_end" if by_end else "roi_shape",
                        f"ROI can't be out of bounds. Got roi_start[{start[s, d]}], {second}, "
                        f"sample_shape[{in_shape[s, d]}], for d={d}",
                    )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        crop = node.scalar_args.get("crop_shape")
        nd = len(crop) if crop is not None else None
        return [{"dtype": DALIDataType.INT64, "ndim": 1, "layout": "", "static_shape": (nd,)}]


_SHAPE_TYPES = frozenset(
    np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.int64)
)


@register(
    "random_crop_generator",
    class_name="RandomCropGenerator",
    devices=("cpu",),
    inputs=1,
    outputs=2,
    input_names=("input",),
    random=True,
    args=list(RANDOM_CROP_ARGS),
)
class RandomCropGenerator(Operator):
    """A random crop window (``anchor``, ``shape``) of an image shape ``[H, W(, C)]``."""

    def setup(self) -> None:
        def pair(name: str) -> tuple[float, float]:
            v = [float(np.float32(x)) for x in self.arg(name)]
            if len(v) == 1:
                v = v * 2
            if len(v) != 2:
                raise self.arg_error(
                    name,
                    f'Argument "{name}" expects either a single value or a list of 2 elements. '
                    f"{len(v)} given.",
                )
            if not v[0] <= v[1]:
                raise self.arg_error(name, "Provided empty range")
            return v[0], v[1]

        self.area = pair("random_area")
        self.aspect = pair("random_aspect_ratio")
        # DALI accepts any number: 0 or fewer attempts go straight to the fallback window
        self.attempts = max(0, int(self.arg("num_attempts")))

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        tl = ws.inputs[0]
        samples = tl.samples()
        for s in samples:
            if s.ndim != 1 or s.shape[0] not in (2, 3):
                raise self.error(
                    "Expected a 1D tensor with 2 or 3 values representing an input shape "
                    "(HW or HWC)"
                )
        if samples and tl.np_dtype not in _SHAPE_TYPES:
            raise self.error(
                f"Only integer types are supported. Got: {type_name(dali_dtype(tl.np_dtype))}"
            )
        n = ws.batch_size
        # the extents as DALI reads them, C ints
        hw = np.array([s[:2] for s in samples], np.int64).reshape(n, 2).astype(np.int32)
        anchors, sizes = random_crop_windows(
            ws, hw.astype(np.int64), self.area, self.aspect, self.attempts
        )
        return (
            TensorListCPU.wrap(anchors.astype(np.int32), ""),
            TensorListCPU.wrap(sizes.astype(np.int32), ""),
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        meta = {"dtype": DALIDataType.INT32, "ndim": 1, "layout": "", "static_shape": (2,)}
        return [meta, dict(meta)]
