"""`fn.bbox_rotate`: move bounding boxes with their image through `fn.rotate`.

`fn.rotate` turns an image counter-clockwise (as displayed, y down) about its centre and puts
the result in the middle of a canvas: just large enough to hold it (the default), the input size
(``keep_size=True``) or an explicit ``size`` ``(H, W)``. `fn.bbox_rotate` takes the boxes of the
*original* image (``input_shape``, read through ``shape_layout``; ``image.shape()`` of an HWC image
works with the default ``"HW"``), and the same ``angle``, ``keep_size`` and ``size``, and gives
the boxes on that canvas, so call it before or beside the image's `fn.rotate`.

Each box becomes its four corners, centred on the image centre (in pixels: relative boxes,
``bbox_normalized=True``, are scaled by the image size), turned by the angle, moved to the
canvas centre, and enclosed again in an axis-aligned box (``mode="expand"``, which holds the
whole turned box). ``mode="fixed"`` shrinks that box back about its centre to the original
width and height (swapped when the turn swapped the box's longer side), ``"halfway"`` half of
that. Last, the box is clipped to the canvas and dropped when less than ``remove_threshold`` of
its area is left (a box of no area is always dropped); the labels (``[N]`` or ``[N, 1]``
INT32, an optional second input) are dropped with it. Relative boxes come back relative to the
canvas.

The boxes are ``[N, 4]`` FLOAT in ``"xyXY"`` (the default) or ``"xyWH"`` (``bbox_layout``).
Every step is DALI's float32 arithmetic in DALI's order, so the results match DALI 2.4's bit for
bit; the batch is computed at once: one compiled pass over all its boxes (Numba), or one numpy
pass (`rotate_boxes`) without Numba, both giving the same values. DALI 2.4 has a CPU backend
only.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> box = np.array([[0.25, 0.0, 0.75, 0.5]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     b = types.Constant(box)
    ...     return fn.bbox_rotate(b, angle=90.0, input_shape=[40, 60])
    >>> (out,) = pipe().run()
    >>> out.at(0).round(6).tolist()  # the top of a 60×40 image goes left on a 40×60 canvas
    [[0.0, 0.25, 0.5, 0.75]]
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.detection._boxes import as_float_boxes
from dali._ops.image.rotate import rotated_canvas_size
from dali._ops.transforms._matrices import cos_sin_deg
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from collections.abc import Mapping

    from dali.author import Workspace

__all__ = ["BBoxRotate", "angle_cos_sin", "rotate_boxes"]

_F32 = np.float32
_HALF = _F32(0.5)
_MODES = ("expand", "halfway", "fixed")
#: The element types DALI 2.4 accepts for a per-sample ``size``.
_SIZE_TYPES = (np.int32, np.int64, np.uint32, np.float32)


def rotate_boxes(
    boxes: np.ndarray,
    angle: np.ndarray,
    in_wh: np.ndarray,
    out_wh: np.ndarray,
    *,
    ltrb: bool = True,
    normalized: bool = True,
    mode: str = "expand",
    remove_threshold: float = 0.1,
    cos_sin: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rotate ``(K, 4)`` float32 boxes, each with its own parameters (broadcast to ``K``).

    Args:
        boxes: The boxes, ``[x0, y0, x1, y1]`` (``ltrb``) or ``[x, y, w, h]``.
        angle: Counter-clockwise angle in degrees (float32).
        in_wh: The image's ``(width, height)``, float32.
        out_wh: The canvas's ``(width, height)``, float32.
        ltrb: The layout of ``boxes`` (and of the result).
        normalized: The boxes are relative to the image (the result to the canvas).
        mode: ``"expand"``, ``"halfway"`` or ``"fixed"``.
        remove_threshold: Boxes keeping less than this share of their area on the canvas
            are dropped.
        cos_sin: The float32 cosine and sine of ``angle`` (`angle_cos_sin`), when already known.

    Returns:
        The ``(K, 4)`` rotated boxes (clipped to the canvas) and a ``(K,)`` mask of the kept ones.

    Example:
        >>> b = np.array([[0.0, 0.0, 0.5, 0.5]], np.float32)
        >>> wh = np.float32([[100, 100]])
        >>> out, keep = rotate_boxes(b, np.float32([180]), wh, wh)
        >>> out.round(5).tolist(), keep.tolist()
        ([[0.5, 0.5, 1.0, 1.0]], [True])
    """
    boxes = np.asarray(boxes, _F32).reshape(-1, 4)
    k = len(boxes)
    if cos_sin is None:
        cos_sin = angle_cos_sin(np.broadcast_to(np.asarray(angle, _F32), (k,)))
    cos, sin = cos_sin
    in_w, in_h = np.broadcast_to(np.asarray(in_wh, _F32), (k, 2)).T
    out_w, out_h = np.broadcast_to(np.asarray(out_wh, _F32), (k, 2)).T
    x0, y0, x1, y1 = boxes.T
    if not ltrb:
        x1 = x0 + x1
        y1 = y0 + y1
    # the corner coordinates centred on the image centre, in pixels
    if normalized:
        x0, x1 = (x0 - _HALF) * in_w, (x1 - _HALF) * in_w
        y0, y1 = (y0 - _HALF) * in_h, (y1 - _HALF) * in_h
    else:
        half_w, half_h = in_w / _F32(2), in_h / _F32(2)
        x0, x1, y0, y1 = x0 - half_w, x1 - half_w, y0 - half_h, y1 - half_h
    old_w = x1 - x0
    old_h = y1 - y0
    # each corner (x, y) goes to (x·cos + y·sin, −x·sin + y·cos), then to the canvas centre;
    # the products are shared by the corners (the same float32 values as DALI's per corner)
    xc, xs = (x0 * cos, x1 * cos), (x0 * sin, x1 * sin)
    yc, ys = (y0 * cos, y1 * cos), (y0 * sin, y1 * sin)
    half_w, half_h = out_w / _F32(2), out_h / _F32(2)
    rx = [(xc[i] + ys[j]) + half_w for j in (0, 1) for i in (0, 1)]
    ry = [(yc[j] - xs[i]) + half_h for j in (0, 1) for i in (0, 1)]
    left = np.minimum(np.minimum(rx[0], rx[1]), np.minimum(rx[2], rx[3]))
    right = np.maximum(np.maximum(rx[0], rx[1]), np.maximum(rx[2], rx[3]))
    top = np.minimum(np.minimum(ry[0], ry[1]), np.minimum(ry[2], ry[3]))
    bottom = np.maximum(np.maximum(ry[0], ry[1]), np.maximum(ry[2], ry[3]))
    if mode != "expand":
        new_w = right - left
        new_h = bottom - top
        swapped = (old_w < old_h) ^ (new_w < new_h)  # the longer side turned (45° to 135°)
        dw = (new_w - np.where(swapped, old_h, old_w)) * _HALF
        dh = (new_h - np.where(swapped, old_w, old_h)) * _HALF
        if mode == "halfway":
            dw = dw * _HALF
            dh = dh * _HALF
        left, top, right, bottom = left + dw, top + dh, right - dw, bottom - dh
    zero = _F32(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        old_area = (right - left) * (bottom - top)
        left, right = np.clip(left, zero, out_w), np.clip(right, zero, out_w)
        top, bottom = np.clip(top, zero, out_h), np.clip(bottom, zero, out_h)
        remain = ((right - left) * (bottom - top)) / old_area
        keep = remain >= _F32(remove_threshold)
    if not ltrb:
        right = right - left
        bottom = bottom - top
    if normalized:
        with np.errstate(divide="ignore"):
            inv_w, inv_h = _F32(1) / out_w, _F32(1) / out_h
        left, top, right, bottom = left * inv_w, top * inv_h, right * inv_w, bottom * inv_h
    out = np.empty((k, 4), _F32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, right, bottom
    return out, keep


def angle_cos_sin(degrees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 ``cos``/``sin`` of angles in degrees as DALI computes them (``deg2rad`` in
    float32, then the C library's ``cosf``/``sinf``): the values of `fn.transforms.rotation`.

    Example:
        >>> c, s = angle_cos_sin(np.float32([0, 90, 0]))
        >>> c.tolist(), s.tolist()
        ([1.0, -4.371138828673793e-08, 1.0], [0.0, 1.0, 0.0])
    """
    return cos_sin_deg(np.asarray(degrees, _F32))


def _back_to_back(tl: Any, size: int) -> np.ndarray:
    """The ``size`` elements of a batch's samples back to back, 1-D (a view of the batch's
    dense array or flat buffer where it has one; else one copy)."""
    dense = tl.held_dense
    if dense is None:
        packed = tl.flat()
        if packed is not None:
            return packed[0][:size]
        samples = tl.samples()
        if not samples:
            return np.zeros(0, tl.np_dtype)
        return np.concatenate(samples).reshape(-1)  # the samples' trailing axes agree
    return np.ascontiguousarray(dense).reshape(-1)[:size]


@functools.cache
def _kernel() -> Any:
    """`rotate_boxes` and the removal of boxes as one compiled loop over the batch (Numba), or
    None without Numba. It keeps the GIL: a batch takes it microseconds, and a thread giving
    the GIL up waits far longer to take it back from a busy one.

    The arithmetic is `rotate_boxes`' float32 operations in the same order (no fused
    multiply-add: Numba's default), and its minimum, maximum and clip treat NaN and signed
    zeros as numpy's do, so both give the same bits."""
    try:
        import numba
    except ImportError:
        return None

    half, two, zero, one = _F32(0.5), _F32(2), _F32(0), _F32(1)

    # numpy's minimum, maximum and clip(a, 0, hi): a NaN wins, and of equal values (signed
    # zeros) the second is taken
    @numba.njit(inline="always")
    def fmin(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
        return a if (a < b or math.isnan(a)) else b

    @numba.njit(inline="always")
    def fmax(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
        return a if (a > b or math.isnan(a)) else b

    @numba.njit(inline="always")
    def clip(a: Any, hi: Any) -> Any:  # pragma: no cover - compiled
        if math.isnan(a):
            return a
        if not a > zero:
            a = zero
        if not a < hi:
            a = hi
        return a

    # error_model="numpy": a division by zero gives inf/NaN (as numpy) instead of raising
    @numba.njit(cache=True, error_model="numpy")
    def rotate(
        boxes: np.ndarray,
        labels: np.ndarray,
        counts: np.ndarray,
        cos: np.ndarray,
        sin: np.ndarray,
        in_wh: np.ndarray,
        out_wh: np.ndarray,
        ltrb: bool,
        normalized: bool,
        mode: int,
        threshold: Any,
        out: np.ndarray,
        out_labels: np.ndarray,
        kept: np.ndarray,
    ) -> None:  # pragma: no cover - compiled
        with_labels = len(labels) == len(boxes)
        k = 0
        w = 0
        for s in range(len(counts)):
            c, sn = cos[s], sin[s]
            in_w, in_h = in_wh[s, 0], in_wh[s, 1]
            out_w, out_h = out_wh[s, 0], out_wh[s, 1]
            half_w, half_h = out_w / two, out_h / two
            in_hw, in_hh = in_w / two, in_h / two
            inv_w, inv_h = one / out_w, one / out_h
            first = w
            for _ in range(counts[s]):
                x0, y0, x1, y1 = boxes[k, 0], boxes[k, 1], boxes[k, 2], boxes[k, 3]
                if not ltrb:
                    x1 = x0 + x1
                    y1 = y0 + y1
                if normalized:
                    x0, x1 = (x0 - half) * in_w, (x1 - half) * in_w
                    y0, y1 = (y0 - half) * in_h, (y1 - half) * in_h
                else:
                    x0, x1, y0, y1 = x0 - in_hw, x1 - in_hw, y0 - in_hh, y1 - in_hh
                old_w = x1 - x0
                old_h = y1 - y0
                xc0, xc1, xs0, xs1 = x0 * c, x1 * c, x0 * sn, x1 * sn
                yc0, yc1, ys0, ys1 = y0 * c, y1 * c, y0 * sn, y1 * sn
                rx0, rx1 = (xc0 + ys0) + half_w, (xc1 + ys0) + half_w
                rx2, rx3 = (xc0 + ys1) + half_w, (xc1 + ys1) + half_w
                ry0, ry1 = (yc0 - xs0) + half_h, (yc0 - xs1) + half_h
                ry2, ry3 = (yc1 - xs0) + half_h, (yc1 - xs1) + half_h
                left = fmin(fmin(rx0, rx1), fmin(rx2, rx3))
                right = fmax(fmax(rx0, rx1), fmax(rx2, rx3))
                top = fmin(fmin(ry0, ry1), fmin(ry2, ry3))
                bottom = fmax(fmax(ry0, ry1), fmax(ry2, ry3))
                if mode != 0:
                    new_w = right - left
                    new_h = bottom - top
                    swapped = (old_w < old_h) != (new_w < new_h)
                    dw = (new_w - (old_h if swapped else old_w)) * half
                    dh = (new_h - (old_w if swapped else old_h)) * half
                    if mode == 1:
                        dw = dw * half
                        dh = dh * half
                    left, top, right, bottom = left + dw, top + dh, right - dw, bottom - dh
                old_area = (right - left) * (bottom - top)
                left, right = clip(left, out_w), clip(right, out_w)
                top, bottom = clip(top, out_h), clip(bottom, out_h)
                remain = ((right - left) * (bottom - top)) / old_area
                if remain >= threshold:
                    if not ltrb:
                        right = right - left
                        bottom = bottom - top
                    if normalized:
                        left, top = left * inv_w, top * inv_h
                        right, bottom = right * inv_w, bottom * inv_h
                    out[w, 0], out[w, 1], out[w, 2], out[w, 3] = left, top, right, bottom
                    if with_labels:
                        out_labels[w] = labels[k]
                    w += 1
                k += 1
            kept[s] = w - first

    return rotate


def _outputs(args: Mapping[str, Any], num_inputs: int = 1) -> int:
    """The boxes, and the labels when they are given."""
    return num_inputs


@register(
    "bbox_rotate",
    class_name="BBoxRotate",
    devices=("cpu",),
    inputs=(1, 2),
    outputs=_outputs,
    outputs_by_inputs=True,
    input_names=("bboxes", "labels"),
    args=[
        Arg("angle", "float", default=REQUIRED, tensor=True, doc="Rotation angle in degrees."),
        Arg("input_shape", "int_vec", default=REQUIRED, tensor=True, doc="The image's shape."),
        Arg("shape_layout", "layout", default="HW", doc="The layout of `input_shape`."),
        Arg("bbox_layout", "layout", default="xyXY", doc='"xyXY" or "xyWH".'),
        Arg("bbox_normalized", "bool", default=True, doc="The boxes are relative ([0, 1])."),
        Arg("keep_size", "bool", default=False, doc="The canvas is the input size."),
        Arg("size", "float_vec", tensor=True, doc="The canvas size (H, W) of `fn.rotate`."),
        Arg("mode", "str", default="expand", doc='"expand", "halfway" or "fixed".'),
        Arg("remove_threshold", "float", default=0.1, doc="Drop boxes keeping less area."),
    ],
)
class BBoxRotate(Operator):
    """Rotate bounding boxes (and drop their labels) as `fn.rotate` rotates their image.

    Example: ``boxes, labels = fn.bbox_rotate(boxes, labels, angle=angle,
    input_shape=image.shape(), keep_size=True)``, then
    ``image = fn.rotate(image, angle=angle, keep_size=True)``.
    """

    def setup(self) -> None:
        mode = str(self.arg("mode"))
        if mode not in _MODES:
            raise self.arg_error(
                "mode", f"Unknown mode: {mode}. Supported modes are: expand, halfway, fixed."
            )
        layout = str(self.arg("bbox_layout"))
        if layout not in ("xyWH", "xyXY"):
            raise self.arg_error(
                "bbox_layout",
                f"Unknown bbox_layout: {layout}. Supported layouts are: xyWH, xyXY.",
            )
        threshold = float(self.arg("remove_threshold"))
        if not 0 <= threshold < 1:  # DALI 2.4 rejects 1 too
            raise self.arg_error(
                "remove_threshold", f"Index {threshold:f} out of range [0.000000, 1.000000)."
            )
        shape_layout = str(self.arg("shape_layout"))
        if "W" not in shape_layout or "H" not in shape_layout:
            raise self.arg_error("shape_layout", "shape_layout does not contain 'W' and/or 'H'")
        self.wh_index = (shape_layout.index("W"), shape_layout.index("H"))
        if self.arg("keep_size") and self.has_arg("size"):
            raise self.arg_error(
                "size", "fn.bbox_rotate `keep_size` is mutually exclusive with `size` argument"
            )

    # -- arguments ---------------------------------------------------------------------------
    def _angles(self, ws: Workspace) -> np.ndarray:
        """Degrees per sample, float32; a per-sample angle is one FLOAT."""
        if ws.is_tensor_arg("angle"):
            tl = ws.arg_inputs["angle"]
            if len(tl) != ws.batch_size:
                ws.arg_samples("angle")  # raises: another number of samples than the batch
            if len(tl) and tl.np_dtype != np.float32:  # one type for the batch: sample 0's
                raise self.arg_error(
                    "angle", f"sample 0: the angle must be FLOAT (float32), got {tl.np_dtype}"
                )
            dense = tl.dense()
            if dense is not None:
                sizes_ok = math.prod(dense.shape[1:]) == 1
            else:
                sizes_ok = all(math.prod(shape) == 1 for shape in tl.shape())
            if not sizes_ok:
                raise self.arg_error(
                    "angle", "Angle tensor input must be exactly one element per sample"
                )
        return ws.arg_scalars("angle", _F32)

    def _image_wh(self, ws: Workspace) -> np.ndarray:
        """``(batch, 2)`` float32 image width and height, picked from ``input_shape``."""
        need = max(self.wh_index) + 1
        if ws.is_tensor_arg("input_shape"):
            tl = ws.arg_inputs["input_shape"]
            dense = tl.dense() if len(tl) == ws.batch_size else None
            if dense is not None and len(dense) and tl.np_dtype.kind in "biu":
                rows = dense.reshape(len(dense), -1)
                if rows.shape[1] >= need:  # the whole batch at once
                    return np.ascontiguousarray(rows[:, list(self.wh_index)], _F32)
        rows_list = []
        given = ws.arg_samples("input_shape")
        if not ws.is_tensor_arg("input_shape"):
            given = given[:1]  # a constant: one row for all samples
        for i, v in enumerate(given):
            a = np.asarray(v)
            if a.dtype.kind not in "biu":
                raise self.arg_error(
                    "input_shape",
                    f"sample {i}: Unsupported type for `input_shape`:{a.dtype}. "
                    "Expected an integral type.",
                )
            flat = a.reshape(-1)
            if flat.size < need:
                raise self.arg_error(
                    "input_shape", "`input_shape` ndim is smaller than the `shape_layout` ndim"
                )
            rows_list.append([int(flat[j]) for j in self.wh_index])
        wh = np.array(rows_list, _F32).reshape(-1, 2)
        return np.repeat(wh, ws.batch_size, axis=0) if len(wh) == 1 else wh

    def _canvas_wh(self, ws: Workspace, angles: np.ndarray, image_wh: np.ndarray) -> np.ndarray:
        """``(batch, 2)`` float32 canvas width and height: the image's (``keep_size``), the
        floor of ``size`` (H, W), or `fn.rotate`'s canvas for the angle."""
        if self.arg("keep_size"):
            return image_wh
        if self.has_arg("size"):
            rows = []
            tensor = ws.is_tensor_arg("size")
            given = ws.arg_samples("size")
            for i, v in enumerate(given if tensor else given[:1]):
                a = np.asarray(v)
                if tensor and a.dtype not in _SIZE_TYPES:
                    raise self.arg_error(
                        "size", f"sample {i}: `size` must be int32, int64, uint32 or float"
                    )
                if a.size != 2:
                    kind = "tensor" if tensor else "list"
                    raise self.arg_error(
                        "size", f"`size` {kind} argument must be exactly two elements (HW)"
                    )
                h, w = np.floor(a.reshape(-1).astype(_F32)).tolist()
                rows.append([w, h])
            wh = np.array(rows, _F32).reshape(-1, 2)
            return np.repeat(wh, ws.batch_size, axis=0) if len(wh) == 1 else wh
        if len(angles) and (angles == angles[0]).all() and (image_wh == image_wh[0]).all():
            (w, h), a = image_wh[0].astype(np.int64).tolist(), angles[0].item()
            ch, cw = rotated_canvas_size(h, w, a)  # one canvas for the batch
            return np.repeat(np.array([[cw, ch]], _F32), len(angles), axis=0)
        canvases: dict[tuple[int, int, float], list[int]] = {}  # computed once per distinct key
        rows = []
        for (w, h), a in zip(image_wh.astype(np.int64).tolist(), angles.tolist()):
            key = (w, h, a)
            if key not in canvases:
                ch, cw = rotated_canvas_size(h, w, a)
                canvases[key] = [cw, ch]
            rows.append(canvases[key])
        return np.array(rows, _F32).reshape(-1, 2)

    # -- inputs ------------------------------------------------------------------------------
    def _boxes(self, tl: Any) -> tuple[np.ndarray, list[int]]:
        """Every box of the batch, back to back (``(boxes, 4)`` float32), and the number of
        boxes of each sample."""
        shapes = tl.shape()
        if not shapes:
            return np.zeros((0, 4), _F32), []
        if tl.np_dtype != np.float32:  # one type for the batch: sample 0's
            as_float_boxes(self, tl.samples()[0], 0)  # raises
        columns = list(zip(*shapes))[1] if tl.sample_ndim == 2 else ()
        if columns.count(4) != len(shapes):
            for i, shape in enumerate(shapes):
                if len(shape) != 2 or shape[1] != 4:
                    text = " x ".join(str(d) for d in shape)
                    raise self.error(
                        f"sample {i}: First input to fn.bbox_rotate should be [N,4], got {text}"
                    )
        counts = [shape[0] for shape in shapes]
        return _back_to_back(tl, sum(counts) * 4).reshape(-1, 4), counts

    def _labels(self, tl: Any, counts: list[int]) -> np.ndarray:
        """Every label of the batch, back to back (``(boxes,)`` int32), checked against the
        boxes."""
        shapes = tl.shape()
        if shapes and tl.np_dtype != np.int32:  # one type for the batch: sample 0's
            raise self.error(f"sample 0: Input labels must be int32, got {tl.np_dtype}")
        ndim = tl.sample_ndim
        extents = list(zip(*shapes)) if ndim in (1, 2) else []
        if (
            len(extents) == ndim
            and list(extents[0]) == counts
            and (ndim == 1 or extents[1].count(1) == len(shapes))
        ):
            return _back_to_back(tl, sum(counts))  # the whole batch checked at once
        for i, shape in enumerate(shapes):
            if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
                text = " x ".join(str(d) for d in shape)
                raise self.error(
                    f"sample {i}: Label input to fn.bbox_rotate should be [N] or [N, 1], got {text}"
                )
            if i < len(counts) and shape[0] != counts[i]:
                raise self.error(
                    f"sample {i}: Number of labels must match number of boxes. "
                    f"Got: {shape[0]} and {counts[i]}"
                )
        return _back_to_back(tl, sum(counts))

    # -- run ---------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> TensorListCPU | tuple[TensorListCPU, TensorListCPU]:
        flat, counts = self._boxes(ws.inputs[0])
        labels = self._labels(ws.inputs[1], counts) if len(ws.inputs) > 1 else None
        angles = self._angles(ws)
        image_wh = self._image_wh(ws)
        canvas_wh = self._canvas_wh(ws, angles, image_wh)
        cos, sin = angle_cos_sin(angles)
        ltrb = self.arg("bbox_layout") == "xyXY"
        normalized = bool(self.arg("bbox_normalized"))
        mode = str(self.arg("mode"))
        threshold = _F32(float(self.arg("remove_threshold")))
        kernel = _kernel()
        if kernel is not None:
            out = np.empty((len(flat), 4), _F32)
            out_labels = np.empty(len(flat) if labels is not None else 0, np.int32)
            kept = np.empty(len(counts), np.int64)
            kernel(
                flat,
                labels if labels is not None else out_labels,
                np.asarray(counts, np.int64),
                cos,
                sin,
                image_wh,
                canvas_wh,
                ltrb,
                normalized,
                _MODES.index(mode),
                threshold,
                out,
                out_labels,
                kept,
            )
        else:  # numpy: every box rotated, then the kept ones gathered
            reps = np.array(counts, np.int64)
            rotated, keep = rotate_boxes(
                flat,
                np.repeat(angles, reps),
                np.repeat(image_wh, reps, axis=0),
                np.repeat(canvas_wh, reps, axis=0),
                ltrb=ltrb,
                normalized=normalized,
                mode=mode,
                remove_threshold=float(threshold),
                cos_sin=(np.repeat(cos, reps), np.repeat(sin, reps)),
            )
            out = rotated[keep]
            out_labels = labels[keep] if labels is not None else np.empty(0, np.int32)
            owner = np.repeat(np.arange(len(counts)), reps)  # the sample of each box
            kept = np.bincount(owner[keep], minlength=len(counts))
        # the kept boxes (and labels) of each sample lie back to back from the start
        kept_counts = kept.tolist()
        total = sum(kept_counts)
        boxes_tl = TensorListCPU.wrap_flat(
            out[:total].reshape(-1), [(c, 4) for c in kept_counts], "", ndim=2
        )
        if labels is None:
            return boxes_tl
        ndim = ws.inputs[1].sample_ndim
        tail = (1,) if ndim == 2 else ()
        shapes = [(c, *tail) for c in kept_counts]
        return boxes_tl, TensorListCPU.wrap_flat(out_labels[:total], shapes, "", ndim=ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        metas: list[dict[str, Any]] = [
            {"dtype": DALIDataType.FLOAT, "ndim": 2, "layout": "", "static_shape": (None, 4)}
        ]
        if len(node.inputs) > 1:
            metas.append({"dtype": DALIDataType.INT32, "ndim": node.inputs[1].ndim, "layout": ""})
        return metas
