"""`fn.paste`: put each image on a larger canvas filled with a colour.

The canvas is ``int(ratio · extent)`` per axis, computed in float32 as DALI does (so
``int(90 · 1.3) = 116``), and at least ``int(min_canvas_size)``. The image's top-left corner
lands at ``(int(paste_y · (canvas_h − H)), int(paste_x · (canvas_w − W)))``.

Example:
    >>> paste_geometry(40, 60, ratio=1.55, paste_x=0.0, paste_y=1.0)
    (62, 93, 22, 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.image._common import optional_cv2
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Paste", "paste_geometry"]

_F32 = np.float32


def paste_geometry(
    height: int,
    width: int,
    *,
    ratio: float,
    paste_x: float = 0.5,
    paste_y: float = 0.5,
    min_canvas_size: float = 0.0,
) -> tuple[int, int, int, int]:
    """``(canvas_h, canvas_w, y, x)`` for an image of ``height × width`` (float32 arithmetic)."""
    g = paste_geometries(
        np.array([height]), np.array([width]), [ratio], [paste_x], [paste_y], [min_canvas_size]
    )
    canvas_h, canvas_w, y, x = g[0].tolist()
    return canvas_h, canvas_w, y, x


def paste_geometries(
    heights: Any, widths: Any, ratio: Any, paste_x: Any, paste_y: Any, min_canvas_size: Any
) -> np.ndarray:
    """`paste_geometry` of a batch: int64 ``[n, 4]`` rows ``(canvas_h, canvas_w, y, x)``, from
    per-sample sizes and arguments, with the same float32 products truncated toward zero."""
    h = np.asarray(heights, np.int64)
    w = np.asarray(widths, np.int64)
    r = np.asarray(ratio, _F32)
    min_size = np.trunc(np.asarray(min_canvas_size, _F32)).astype(np.int64)
    canvas_h = np.maximum(np.trunc(r * h.astype(_F32)).astype(np.int64), min_size)
    canvas_w = np.maximum(np.trunc(r * w.astype(_F32)).astype(np.int64), min_size)
    y = np.trunc(np.asarray(paste_y, _F32) * (canvas_h - h).astype(_F32)).astype(np.int64)
    x = np.trunc(np.asarray(paste_x, _F32) * (canvas_w - w).astype(_F32)).astype(np.int64)
    return np.stack([canvas_h, canvas_w, y, x], axis=1)


@register(
    "paste",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "ratio", "float", default=REQUIRED, tensor=True, doc="Canvas size / input size (>= 1)."
        ),
        Arg("fill_value", "int_vec", default=REQUIRED, doc="Canvas colour, one value per channel."),
        Arg("paste_x", "float", default=0.5, tensor=True, doc="Horizontal position, 0..1."),
        Arg("paste_y", "float", default=0.5, tensor=True, doc="Vertical position, 0..1."),
        Arg("min_canvas_size", "float", default=0.0, tensor=True, doc="Minimum canvas extent."),
        Arg("n_channels", "int", default=3, doc="Number of channels of the images."),
    ],
)
class Paste(Operator):
    """Paste UINT8 HWC images onto a canvas ``ratio`` times larger, filled with ``fill_value``.

    Example: ``fn.paste(images, ratio=2, fill_value=(0, 0, 0))`` turns a 40×60 image into an
    80×120 one with the image at rows 20–59, columns 30–89.
    """

    def setup(self) -> None:
        n = self.arg("n_channels")
        if n < 1 or n > 1024:
            raise self.arg_error("n_channels", f"must be in [1, 1024], got {n}")
        fill = list(self.arg("fill_value") or ())
        if len(fill) == 1:
            fill = fill * n
        if len(fill) != n:
            raise self.arg_error(
                "fill_value",
                f"expected 1 or n_channels={n} values (one per channel), got {len(fill)}",
            )
        if any(not 0 <= v <= 255 for v in fill):
            raise self.arg_error("fill_value", f"values must be in [0, 255] (UINT8), got {fill}")
        self.fill_value = np.array(fill, dtype=np.uint8)
        for name, lo, hi in (
            ("ratio", 1.0, None),
            ("paste_x", 0.0, 1.0),
            ("paste_y", 0.0, 1.0),
            ("min_canvas_size", 0.0, None),
        ):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                self._check(name, float(self.arg(name)), lo, hi, None)

    def _check(self, name: str, v: float, lo: float, hi: float | None, i: int | None) -> float:
        where = "" if i is None else f"sample {i}: "
        if v < lo or (hi is not None and v > hi):
            bound = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise self.arg_error(name, f"{where}must be {bound}, got {v}")
        return v

    def _values(self, ws: Workspace, name: str, lo: float, hi: float | None) -> list[float]:
        values = ws.arg_scalars(name, np.float32)
        bad = (values < lo) | (values > hi if hi is not None else False)
        for i in np.flatnonzero(bad).tolist()[:1]:
            self._check(name, float(values[i]), lo, hi, i)
        out: list[float] = values.astype(np.float64).tolist()
        return out

    def _check_input(self, tl: Any) -> None:
        if tl.layout() not in ("HWC", "") or tl.sample_ndim != 3:
            raise self.error(
                f'expects HWC images, got {tl.sample_ndim}-D samples with layout "{tl.layout()}"'
            )
        if tl.np_dtype != np.uint8:
            raise self.error(f"supports only UINT8 images, got {tl.np_dtype}")

    def _check_channels(self, c: int) -> None:
        if c != self.fill_value.size:
            raise self.arg_error(
                "n_channels",
                f"the image has {c} channels but n_channels / fill_value give "
                f"{self.fill_value.size}",
            )

    def _params(self, ws: Workspace) -> tuple[list[float], list[float], list[float], list[float]]:
        return (
            self._values(ws, "ratio", 1.0, None),
            self._values(ws, "paste_x", 0.0, 1.0),
            self._values(ws, "paste_y", 0.0, 1.0),
            self._values(ws, "min_canvas_size", 0.0, None),
        )

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        self._check_input(tl)
        ratio, px, py, min_size = self._params(ws)
        samples = tl.samples()
        shapes = np.array(tl.shape(), np.int64).reshape(-1, 3)
        geometry = paste_geometries(shapes[:, 0], shapes[:, 1], ratio, px, py, min_size).tolist()
        fill = self.fill_value
        fill_value = tuple(float(v) for v in fill[:4])
        cv2 = optional_cv2()

        def one(i: int) -> np.ndarray:
            img = samples[i]
            h, w, c = img.shape
            self._check_channels(c)
            ch, cw, y, x = geometry[i]
            if cv2 is not None and c <= 4 and h and w:  # one pass, without the GIL
                border = (y, ch - h - y, x, cw - w - x)
                out = cv2.copyMakeBorder(
                    np.ascontiguousarray(img), *border, cv2.BORDER_CONSTANT, value=fill_value
                )
                return out.reshape(ch, cw, c)
            out = np.empty((ch, cw, c), dtype=np.uint8)
            out[...] = fill
            out[y : y + h, x : x + w] = img
            return out

        return TensorListCPU.wrap(ws.map(one), layout="HWC", dtype=np.uint8, ndim=3)

    def run_gpu(self, ws: Workspace) -> Any:
        """Same checks and geometry as `run_cpu`; all canvases in one kernel."""
        from dali._ops.image import _warp_gpu

        tl = ws.inputs[0]
        self._check_input(tl)
        ratio, px, py, min_size = self._params(ws)
        shapes = np.array(tl.shape(), np.int64).reshape(-1, 3)
        for c in np.unique(shapes[:, 2]).tolist():
            self._check_channels(c)
        geometry = paste_geometries(shapes[:, 0], shapes[:, 1], ratio, px, py, min_size)
        return _warp_gpu.paste_batch(tl, geometry, self.fill_value)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The canvas extents where the input's are static and ``ratio`` and
        ``min_canvas_size`` are constants (`paste_geometry`), the input's channels."""
        src = node.inputs[0]
        shape = src.static_shape
        static: tuple[int | None, ...] | None = None
        if shape is not None and len(shape) == 3:
            h, w, c = shape
            args = node.scalar_args
            constant = all(a not in node.arg_inputs for a in ("ratio", "min_canvas_size"))
            if constant and h is not None and w is not None and "ratio" in args:
                canvas_h, canvas_w, _, _ = paste_geometry(
                    h,
                    w,
                    ratio=float(args["ratio"]),
                    min_canvas_size=float(args.get("min_canvas_size", 0.0)),
                )
                static = (canvas_h, canvas_w, c)
            else:
                static = (None, None, c)
        return [{"dtype": src.dtype, "ndim": src.ndim, "layout": "HWC", "static_shape": static}]
