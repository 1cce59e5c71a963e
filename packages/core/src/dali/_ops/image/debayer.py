"""`fn.debayer` (``fn.experimental.debayer``, its deprecated alias): demosaicing.

A single-channel image of a sensor's Bayer mosaic becomes an RGB image (``HWC``, or ``FHWC`` for
sequences) of the input's type (uint8 or uint16). ``blue_position`` ``(y, x)`` places the blue
sensor in the 2×2 tile that starts at the second row and column, as OpenCV's pattern names do:
``(0, 0)`` BG, ``(0, 1)`` GB, ``(1, 0)`` GR, ``(1, 1)`` RG; it may be given per sample.

Algorithms (``algorithm``, case-insensitive), as DALI 2.4 has them:

* CPU: ``bilinear_ocv`` (the default), ``edgeaware_ocv``, ``vng_ocv`` (uint8 only) and
  ``gray_ocv`` (a one-channel output): OpenCV's ``demosaicing``, which DALI calls. Without
  OpenCV, ``bilinear_ocv`` is computed with the same integer arithmetic (below); the others
  need OpenCV.
* GPU: ``default_npp`` (the default). DALI runs NPP's bilinear demosaicing; here the GPU
  computes OpenCV's bilinear arithmetic, so a pipeline gives the CPU's results on the GPU.

Bilinear: at a red or blue site the missing colours are ``(N + S + E + W + 2) >> 2`` (green)
and the rounded mean of the four diagonal neighbours; at a green site they are the rounded
means ``(a + b + 1) >> 1`` of the horizontal and of the vertical neighbours. The border rows and
columns repeat their inner neighbours (OpenCV's rule); a 2-pixel-high or -wide image is black.

Height and width must be even. Inputs are ``HW``, ``HWC`` with one channel, ``FHW`` or
``FHWC`` with one channel (2-D inputs without a layout are ``HW``, 3-D ones ``HWC``).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> mosaic = np.array([[10, 20, 10, 20], [30, 40, 30, 40]] * 2, dtype=np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.debayer(types.Constant(mosaic, layout="HW"), blue_position=(1, 1))
    >>> out, = pipe().run()
    >>> out.as_array()[0].shape, out.as_array()[0][1, 1].tolist()
    ((4, 4, 3), [40, 25, 10])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.image._common import image_layout, opencv_into, optional_cv2
from dali._ops.numeric import array_module, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Debayer", "debayer_bilinear"]

LAYOUTS = ("HW", "HWC", "FHW", "FHWC")
CPU_ALGORITHMS = ("bilinear_ocv", "edgeaware_ocv", "vng_ocv", "gray_ocv")
GPU_ALGORITHMS = ("default_npp",)
_PATTERNS = {(0, 0): "BG", (0, 1): "GB", (1, 0): "GR", (1, 1): "RG"}
_SUFFIX = {"bilinear_ocv": "2RGB", "edgeaware_ocv": "2RGB_EA", "vng_ocv": "2RGB_VNG"}


def debayer_bilinear(xp: Any, x: Any, blue_y: int, blue_x: int) -> Any:
    """OpenCV's bilinear demosaicing of ``(..., H, W)`` mosaics into ``(..., H, W, 3)`` RGB.

    Args:
        xp: numpy or CuPy.
        x: uint8 or uint16 mosaics.
        blue_y: The row of the blue sensor in the tile at (1, 1) (0 or 1).
        blue_x: Its column (0 or 1).

    Returns:
        A new array of ``x``'s type.
    """
    h, w = x.shape[-2:]
    out = xp.zeros((*x.shape, 3), x.dtype)
    if h < 3 or w < 3:
        return out
    v = x.astype(np.int32)
    c = v[..., 1:-1, 1:-1]
    n, s = v[..., :-2, 1:-1], v[..., 2:, 1:-1]
    west, east = v[..., 1:-1, :-2], v[..., 1:-1, 2:]
    diag = (v[..., :-2, :-2] + v[..., :-2, 2:] + v[..., 2:, :-2] + v[..., 2:, 2:] + 2) >> 2
    cross = (n + s + west + east + 2) >> 2
    hor = (west + east + 1) >> 1
    ver = (n + s + 1) >> 1
    blue_row = (xp.arange(1, h - 1)[:, None] % 2) == (1 + blue_y) % 2
    blue_col = (xp.arange(1, w - 1)[None, :] % 2) == (1 + blue_x) % 2
    is_b = blue_row & blue_col
    is_r = ~blue_row & ~blue_col
    red = xp.where(is_r, c, xp.where(is_b, diag, xp.where(blue_col, hor, ver)))
    blue = xp.where(is_b, c, xp.where(is_r, diag, xp.where(blue_row, hor, ver)))
    green = xp.where(is_r | is_b, cross, c)
    out[..., 1:-1, 1:-1, :] = xp.stack([red, green, blue], -1).astype(x.dtype)
    out[..., 1:-1, 0, :] = out[..., 1:-1, 1, :]
    out[..., 1:-1, -1, :] = out[..., 1:-1, -2, :]
    out[..., 0, :, :] = out[..., 1, :, :]
    out[..., -1, :, :] = out[..., -2, :, :]
    return out


@register(
    "debayer",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=1,
    args=[
        Arg(
            "blue_position",
            "int_vec",
            default=REQUIRED,
            tensor=True,
            doc="(y, x) of the blue sensor in the 2x2 tile: (0, 0) BG ... (1, 1) RG.",
        ),
        Arg("algorithm", "str", doc="CPU: bilinear_ocv (default), edgeaware_ocv, ..."),
    ],
)
class Debayer(Operator):
    """Performs image demosaicing/debayering.

    Converts single-channel image to RGB using specified color filter array. The supported
    input types are ``uint8_t`` and ``uint16_t``; the output is ``HWC`` (``FHWC`` for
    sequences).
    """

    def setup(self) -> None:
        alg = self.arg("algorithm") if self.has_arg("algorithm") else "default"
        self._alg = str(alg).lower()
        if self._alg not in ("default", *CPU_ALGORITHMS, *GPU_ALGORITHMS):
            raise self.arg_error(
                "algorithm", f"Unsupported debayer algorithm was specified: `{self._alg}`."
            )
        if not self.is_tensor_arg("blue_position"):
            value = self.arg("blue_position")
            pos = list(value) if isinstance(value, (list, tuple)) else [value]
            if len(pos) == 1:
                pos = pos * 2
            self._check_position(pos)

    def _check_position(self, pos: Any) -> tuple[int, int]:
        if len(pos) != 2:
            raise self.arg_error(
                "blue_position",
                "must be specified with exactly two values to describe a position within 2D "
                f"tile. Got {len(pos)} values.",
            )
        y, x = int(pos[0]), int(pos[1])
        if not (0 <= y <= 1 and 0 <= x <= 1):
            raise self.arg_error(
                "blue_position", f"The position must lie within 2x2 tile, got: {y} x {x}."
            )
        return y, x

    def _positions(self, ws: Workspace) -> list[tuple[int, int]]:
        vectors = ws.arg_vectors("blue_position", np.int64)
        if not self.is_tensor_arg("blue_position"):
            vectors = [np.resize(v, 2) if v.size == 1 else v for v in vectors]
        return [self._check_position(v.tolist()) for v in vectors]

    def _check(self, tl: Any, layout: str) -> None:
        if tl.np_dtype not in (np.uint8, np.uint16):
            raise self.error(f"unsupported input type {tl.np_dtype.name}; expected uint8 or uint16")
        spatial = 1 if layout.startswith("F") else 0
        for i, shape in enumerate(tl.shape()):
            if layout.endswith("C") and shape[-1] != 1:
                raise self.error(
                    "The debayer operator expects grayscale (i.e. single channel) images, "
                    f"however the sample at idx {i} has shape {tuple(shape)}, which implies "
                    f"{shape[-1]} channels. If you are trying to process video or sequences, "
                    "please make sure to set input's layout to `FHW`."
                )
            h, w = shape[spatial], shape[spatial + 1]
            if h % 2 or w % 2:
                raise self.error(
                    "The height and width of the image to debayer must be even. However, the "
                    f"sample at idx {i} has shape {tuple(shape)}."
                )

    def _run(self, ws: Workspace, alg: str) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = image_layout(self, tl, LAYOUTS)
        self._check(tl, layout)
        if alg == "vng_ocv" and tl.np_dtype != np.uint8:
            raise self.error("VNG debayering only supported with UINT8.")
        out_layout = "FHWC" if layout.startswith("F") else "HWC"
        out_c = 1 if alg == "gray_ocv" else 3
        positions = self._positions(ws) if len(tl) else []
        cv2 = optional_cv2() if xp is np else None
        if cv2 is None and alg not in ("bilinear_ocv", "default_npp"):
            raise self.arg_error("algorithm", f"`{alg}` needs OpenCV (pip install opencv)")
        samples = tl.samples()
        shapes = tl.shape()
        mosaic = shapes[0][: -1 if layout.endswith("C") else None] if shapes else ()
        # equal shapes with OpenCV: every frame demosaiced straight into one batch array
        dense = None
        if cv2 is not None and math.prod(mosaic) and all(s == shapes[0] for s in shapes):
            dense = np.empty((len(tl), *mosaic, out_c), tl.np_dtype)

        def one(i: int) -> Any:
            x = samples[i]
            if layout.endswith("C"):
                x = x[..., 0]
            if x.size == 0:
                return xp.zeros((*x.shape, out_c), x.dtype)
            y, bx = positions[i]
            if cv2 is None:
                return debayer_bilinear(xp, x, y, bx)
            code = getattr(
                cv2,
                f"COLOR_Bayer{_PATTERNS[y, bx]}" + ("2GRAY" if alg == "gray_ocv" else _SUFFIX[alg]),
            )
            frames = x.reshape(-1, *x.shape[-2:])
            out = np.empty((*x.shape, out_c), x.dtype) if dense is None else dense[i]
            places = out.reshape(len(frames), *x.shape[-2:], out_c)
            for f, place in zip(frames, places):
                # (a one-channel output is written through its (H, W) view)
                target = place.reshape(place.shape[:2] if out_c == 1 else place.shape)
                opencv_into(cv2.demosaicing, np.ascontiguousarray(f), code, dst=target)
            return out

        results = run_per_sample(ws, xp, one, len(tl))
        return tl_cls.wrap(
            dense if dense is not None else results,
            out_layout,
            dtype=tl.np_dtype,
            ndim=len(out_layout),
        )

    def run_cpu(self, ws: Workspace) -> Any:
        if self._alg == "default_npp":
            raise self.arg_error("algorithm", "default_npp algorithm is not supported on CPU.")
        return self._run(ws, "bilinear_ocv" if self._alg == "default" else self._alg)

    def run_gpu(self, ws: Workspace) -> Any:
        if self._alg not in ("default", "default_npp"):
            raise self.arg_error(
                "algorithm", f"{self._alg} algorithm is not supported on GPU (use default_npp)."
            )
        return self._run(ws, "default_npp")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        layout = src.layout
        if not layout and src.ndim is not None:
            layout = {2: "HW", 3: "HWC", 4: "FHWC"}.get(src.ndim)
        out_layout = None if not layout else ("FHWC" if layout.startswith("F") else "HWC")
        return [
            {
                "dtype": src.dtype,
                "ndim": None if out_layout is None else len(out_layout),
                "layout": out_layout,
                "static_shape": None,
            }
        ]
