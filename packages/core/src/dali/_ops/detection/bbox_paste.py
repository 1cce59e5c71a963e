"""`fn.bbox_paste` (CPU only, as in DALI 2.4): move boxes with an image pasted on a canvas.

`fn.paste` puts an image on a canvas ``ratio`` times larger, at ``paste_x``/``paste_y`` (0: left
or top edge, 1: right or bottom edge). The boxes, relative to the image, become relative to the
canvas: every coordinate is divided by ``ratio`` and the corners are shifted by

    ``paste_x' = paste_x · (ratio − 1) / ratio``  (``paste_y'`` likewise),

in float32, as DALI computes it. ``ltrb=False`` (the default) reads ``[x, y, w, h]`` boxes, whose
widths and heights are only scaled; ``ltrb=True`` reads ``[l, t, r, b]``. Where ``1/ratio +
paste_x'`` exceeds 1 by rounding, DALI lowers the shift to the largest float that keeps boxes
of ``[0, 1]`` inside ``[0, 1]``; so does this.

The shift is the canvas fraction `fn.paste` leaves before the image, up to `fn.paste`'s rounding
of the canvas and of the position to whole pixels (``int(ratio · W)``, ``int(paste_x · (canvas_w
− W))``): a box corner lands within a pixel of the same image content on the pasted canvas.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> box = np.array([[0.0, 0.0, 1.0, 1.0]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.bbox_paste(types.Constant(box), ratio=2.0, ltrb=True)
    >>> pipe().run()[0].at(0).tolist()
    [[0.25, 0.25, 0.75, 0.75]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.detection._boxes import as_float_boxes
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["BBoxPaste", "paste_transform"]

_F32 = np.float32


def paste_transform(ratio: float, paste_x: float, paste_y: float) -> tuple[Any, Any, Any]:
    """``(scale, shift_x, shift_y)`` of boxes pasted with these arguments (float32).

    Example:
        >>> [float(v) for v in paste_transform(2.0, 0.5, 1.0)]
        [0.5, 0.25, 0.5]
    """
    ratio32 = _F32(ratio)
    scale = _F32(1) / ratio32
    mul = (ratio32 - _F32(1)) / ratio32
    shifts = []
    for p in (paste_x, paste_y):
        shift = _F32(p) * mul
        # keep the boxes of [0, 1] inside [0, 1] whatever the rounding: DALI steps the shift
        # down float by float from 1 - scale until scale + shift <= 1
        if scale + shift > _F32(1):
            shift = _F32(1) - scale
            while scale + shift > _F32(1):
                shift = np.nextafter(shift, _F32(-1))
        shifts.append(shift)
    return scale, shifts[0], shifts[1]


@register(
    "bbox_paste",
    class_name="BBoxPaste",
    devices=("cpu",),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "ratio",
            "float",
            default=REQUIRED,
            tensor=True,
            doc="Canvas size / image size, as given to fn.paste (at least 1).",
        ),
        Arg("paste_x", "float", default=0.5, tensor=True, doc="Horizontal paste position, 0..1."),
        Arg("paste_y", "float", default=0.5, tensor=True, doc="Vertical paste position, 0..1."),
        Arg("ltrb", "bool", default=False, doc="Boxes are [l, t, r, b] (else [x, y, w, h])."),
    ],
)
class BBoxPaste(Operator):
    """Transform relative boxes so that they follow an image pasted by `fn.paste`.

    Give both operators the same ``ratio``, ``paste_x`` and ``paste_y`` (per-sample values too).
    """

    def setup(self) -> None:
        if self.has_arg("ratio") and not self.is_tensor_arg("ratio"):
            self._check_ratio(float(self.arg("ratio")), None)

    def _check_ratio(self, ratio: float, i: int | None) -> None:
        # DALI divides by it unchecked (inf and NaN boxes); a ratio below 1 is only documented
        # as invalid there and shrinks the boxes consistently, so it is kept as DALI runs it
        if not ratio > 0:
            where = "" if i is None else f"sample {i}: "
            raise self.arg_error("ratio", f"{where}must be positive, got {ratio}")

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        ratio = ws.arg_scalars("ratio", np.float32)
        px = ws.arg_scalars("paste_x", np.float32)
        py = ws.arg_scalars("paste_y", np.float32)
        ltrb = bool(self.arg("ltrb"))
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            boxes = as_float_boxes(self, samples[i], i)
            if boxes.size % 4:
                raise self.error(
                    f"sample {i}: bounding boxes are 4 floats each, but the sample has shape "
                    f"{boxes.shape} ({boxes.size} values, not a multiple of 4)"
                )
            self._check_ratio(float(ratio[i]), i)
            scale, sx, sy = paste_transform(ratio[i], px[i], py[i])
            b = boxes.reshape(-1, 4)
            out = np.empty_like(b)
            out[:, 0] = b[:, 0] * scale + sx
            out[:, 1] = b[:, 1] * scale + sy
            out[:, 2] = b[:, 2] * scale + (sx if ltrb else _F32(0))
            out[:, 3] = b[:, 3] * scale + (sy if ltrb else _F32(0))
            return out.reshape(boxes.shape)

        return TensorListCPU.wrap(
            [one(i) for i in range(len(samples))], tl.layout(), dtype=np.float32
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
