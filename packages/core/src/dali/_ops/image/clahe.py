"""`fn.clahe`: Contrast Limited Adaptive Histogram Equalization.

Plain histogram equalization (`fn.equalize`) maps every pixel through one table made from the
whole image's histogram. CLAHE makes one table per tile of a ``tiles_x x tiles_y`` grid, so the
contrast is stretched locally, and limits the stretch: a tile's histogram is clipped at
``clip_limit · tile_area / 256`` and the clipped pixels are spread over all bins before the
cumulative histogram becomes the table (a flat region gets a gentle table, not one that
amplifies its noise). Each pixel then blends the tables of its four nearest tile centres
bilinearly, so no tile edges show.

Inputs are uint8 ``HWC`` images (a 3-D input without a layout is ``HWC``) with 1 or 3
channels. A 3-channel image must be RGB: with ``luma_only`` (the default) only its lightness
is equalized, on the L* channel of CIE L*a*b*, and the colour is kept; otherwise each channel
is equalized on its own. The output has the input's shape, type and layout.

The two backends are DALI 2.4's two algorithms:

* CPU: OpenCV's (``cv::CLAHE``, ``cvtColor`` RGB <-> Lab), which DALI's CPU backend calls;
  with OpenCV installed the same calls are made here, without it `_clahe_cpu` computes the
  same bytes in numpy (bit-exact with DALI's CPU backend either way);
* GPU: DALI's CUDA kernels, re-implemented in CuPy (`_clahe_gpu`): tiles cut without border
  extension, its own rounding and a float L*a*b* conversion. As DALI's GPU backend, it
  supports RGB only with ``luma_only=True``, and it differs from the CPU backend within
  DALI's own tolerance (mean squared error below 5, mean absolute error below 2 per value).

``bins`` is accepted and, as in DALI 2.4, not used: both backends work with 256 bins.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.tile(np.arange(100, 132, dtype=np.uint8), (32, 1))[:, :, None]
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.clahe(types.Constant(img, layout="HWC"), tiles_x=2, tiles_y=2, clip_limit=4.0)
    >>> out, = pipe().run()
    >>> out.as_array()[0].shape, int(out.as_array()[0].max()) > int(img.max())
    ((32, 32, 1), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.image._clahe_cpu import clahe_sample
from dali._ops.image._common import optional_cv2

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Clahe"]

LAYOUT = "HWC"


@register(
    "clahe",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=1,
    input_names=("input",),
    args=[
        Arg(
            "tiles_x",
            "int",
            default=REQUIRED,
            doc="Number of tiles along the image width. Higher values provide more localized "
            "enhancement but may introduce artifacts; typical values range from 4 to 16. "
            "Must be positive.",
        ),
        Arg(
            "tiles_y",
            "int",
            default=REQUIRED,
            doc="Number of tiles along the image height. Higher values provide more localized "
            "enhancement but may introduce artifacts; typical values range from 4 to 16. "
            "Must be positive.",
        ),
        Arg(
            "clip_limit",
            "float",
            default=REQUIRED,
            doc="Relative clip limit multiplier for histogram bins: the actual clip limit is "
            "clip_limit * (tile_area / bins). Values > 1.0 enhance contrast, values close to "
            "1.0 provide minimal enhancement; typical values range from 1.5 to 4.0. On the "
            "CPU, a value <= 0 disables clipping (OpenCV); on the GPU the limit is at least 1.",
        ),
        Arg(
            "bins",
            "int",
            default=256,
            doc="Number of histogram bins for CLAHE computation (documented as a power of 2). "
            "As in DALI 2.4, both backends use 256 bins whatever the value.",
        ),
        Arg(
            "luma_only",
            "bool",
            default=True,
            doc="For RGB inputs, apply CLAHE to the luminance (L* of CIE L*a*b*) only, "
            "preserving color relationships; when False, to each channel independently. "
            "The GPU backend supports only luma_only=True for RGB images.",
        ),
    ],
)
class Clahe(Operator):
    """Contrast Limited Adaptive Histogram Equalization (CLAHE) operator.

    Performs local histogram equalization with clipping and bilinear blending of lookup
    tables (LUTs) between neighboring tiles. This technique enhances local contrast while
    preventing over-amplification of noise. Attempts to use same algorithm as OpenCV
    (https://docs.opencv.org/4.x/d5/daf/tutorial_py_histogram_equalization.html). The input
    image is divided into rectangular tiles, and histogram equalization is applied to each
    tile independently. To avoid artifacts at tile boundaries, the lookup tables are
    bilinearly interpolated between neighboring tiles. Supports both grayscale (1-channel)
    and RGB (3-channel) uint8 images in HWC layout.

    **IMPORTANT COLOR ORDER REQUIREMENT**: For 3-channel images, the channels must be in RGB
    order (Red, Green, Blue). BGR images (common in OpenCV) will produce incorrect results
    when luma_only=True, as the luminance calculation assumes RGB channel order.

    For RGB images, by default CLAHE is applied to the luminance channel only
    (luma_only=True), preserving color relationships. When luma_only=False, CLAHE is applied
    to each color channel independently (CPU only).

    The CPU backend gives OpenCV's results bit for bit; the GPU backend is DALI's own CUDA
    algorithm, within a mean squared error of 5 and a mean absolute error of 2 of it.

    Example usage::

        # Grayscale image
        clahe_out = fn.clahe(grayscale_image, tiles_x=8, tiles_y=8, clip_limit=2.0)

        # RGB image with luminance-only processing (default)
        clahe_out = fn.clahe(rgb_image, tiles_x=8, tiles_y=8, clip_limit=3.0, luma_only=True)

        # RGB image with per-channel processing (CPU)
        clahe_out = fn.clahe(rgb_image, tiles_x=8, tiles_y=8, clip_limit=2.0, luma_only=False)
    """

    def setup(self) -> None:
        for name in ("tiles_x", "tiles_y"):
            value = int(self.arg(name))
            if value <= 0:  # DALI 2.4 crashes on 0 (division) and OpenCV rejects < 0
                raise self.arg_error(name, f'Argument "{name}" must be positive, got {value}.')
        self.tiles = (int(self.arg("tiles_x")), int(self.arg("tiles_y")))
        self.clip_limit = float(np.float32(self.arg("clip_limit")))
        self.luma_only = bool(self.arg("luma_only"))

    def _check(self, tl: Any, backend: str) -> None:
        """DALI's checks, in its order: the layout (the schema's), the type, on the GPU
        ``luma_only`` with RGB samples, the channels."""
        layout = tl.layout()
        if layout and layout != LAYOUT:
            raise self.error(
                f'The layout "{layout}" does not match any of the allowed layouts for input 0. '
                f"Valid layouts are: {LAYOUT}"
            )
        if not layout and tl.sample_ndim != 3:
            raise self.error(
                f"The number of dimensions {tl.sample_ndim} does not match any of the allowed "
                f"layouts for input 0. Valid layouts are: {LAYOUT}"
            )
        if np.dtype(tl.np_dtype) != np.uint8:
            raise self.error(f"Clahe{backend} currently supports only uint8 input.")
        shapes = tl.shape()
        if backend == "GPU" and not self.luma_only and any(s[2] == 3 for s in shapes):
            raise self.error(
                "ClaheGPU RGB input requires luma_only=True; per-channel mode "
                "(luma_only=False) is not supported on GPU. Use CPU backend for per-channel "
                "processing."
            )
        if any(s[2] not in (1, 3) for s in shapes):
            raise self.error(f"Clahe{backend} supports 1 or 3 channels.")

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        self._check(tl, "CPU")
        if len(tl) == 0:
            return TensorListCPU.wrap([], LAYOUT, dtype=np.uint8, ndim=3)
        cv2 = optional_cv2()
        samples = tl.samples()
        dense = tl.held_dense
        out = np.empty(dense.shape, np.uint8) if dense is not None else None
        tx, ty = self.tiles

        def one(i: int) -> np.ndarray:
            x = samples[i]
            dst = out[i] if out is not None else np.empty(x.shape, np.uint8)
            return clahe_sample(x, dst, tx, ty, self.clip_limit, self.luma_only, cv2)

        results = ws.map(one)
        return TensorListCPU.wrap(out if out is not None else results, LAYOUT)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.image._clahe_gpu import clahe_batch

        tl = ws.inputs[0]
        self._check(tl, "GPU")
        return clahe_batch(tl, self.tiles[0], self.tiles[1], self.clip_limit)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, layout=LAYOUT)
