"""The fused decode-and-crop operators: `image_crop`, `image_random_crop`, `image_slice`.

Each is `dali._ops.decoders.image.decoder.ImageDecoderBase` with its own windows, given by the attribute
`fn.crop` and `fn.slice` share (`dali._ops.window`): DALI's crop arguments (`CropAttr`), DALI's
random crop generator (whole batches at once, `RandomCropParams`), or DALI's slice arguments
(`ImageSliceAttr`). Decoding, region decoding, conversions and errors are the shared
implementation's (see `dali._ops.decoders.image.decoder`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import register
from dali._ops.decoders.image.decoder import DECODER_ARGS, ImageDecoderBase
from dali._ops.window.crop_attr import CROP_WINDOW_ARGS, CropAttr
from dali._ops.window.image_windows import Windows
from dali._ops.window.random_crop import RANDOM_CROP_ARGS, RandomCropParams
from dali._ops.window.slice_attr import SLICE_ARGS, ImageSliceAttr

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ImageCrop", "ImageRandomCrop", "ImageSlice"]


@register(
    "decoders.image_crop",
    devices=("cpu", "mixed"),
    inputs=1,
    input_names=("data",),
    args=[*DECODER_ARGS, *CROP_WINDOW_ARGS],
)
class ImageCrop(ImageDecoderBase):
    """Decodes images and extracts a fixed-size window at a relative anchor (like ``fn.crop``).

    The window is ``crop=(h, w)`` (or ``crop_h``/``crop_w``) placed at
    ``round(crop_pos · (extent − size))``, as `fn.crop` does on the decoded image.
    """

    def setup(self) -> None:
        super().setup()
        # DALI's CropAttr, as `fn.crop` holds it: every check of the crop arguments (pairs,
        # sizes >= 0, positions in [0, 1], rounding) and the window formula live there, once
        self._win = CropAttr(self)

    def windows(self, ws: Workspace, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        return self._win.image_windows(ws)

    @classmethod
    def static_meta(cls, node: Any) -> list[dict[str, Any]]:
        """The decoders' HWC, the height and width of a fixed crop known."""
        (meta,) = super().static_meta(node)
        return [{**meta, "static_shape": CropAttr.static_shape(node, meta["static_shape"], "HWC")}]


@register(
    "decoders.image_random_crop",
    devices=("cpu", "mixed"),
    inputs=1,
    input_names=("data",),
    args=[*DECODER_ARGS, *RANDOM_CROP_ARGS],
    random=True,
)
class ImageRandomCrop(ImageDecoderBase):
    """Decodes images and cuts a random window (area and aspect ratio in the given ranges).

    The window is drawn as DALI's ``RandomCropGenerator`` does, from a random stream keyed by the
    sample's identity: the same sample gets the same window whatever the batch size, number of
    threads, shards or backend. The output is not resized.
    """

    needs_shapes = True

    def setup(self) -> None:
        super().setup()
        self.crop_params = RandomCropParams.from_op(self)

    def windows(self, ws: Workspace, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        rng = ws.rng  # created here, in the executor thread, not in the workers
        if shapes is None:
            shapes = np.full((n, 2), -1, dtype=np.int64)
        return self.crop_params.image_windows(rng, shapes)


@register(
    "decoders.image_slice",
    devices=("cpu", "mixed"),
    inputs=(1, 3),
    input_names=("data", "anchor", "shape"),
    args=[*DECODER_ARGS, *SLICE_ARGS],
)
class ImageSlice(ImageDecoderBase):
    """Decodes images and extracts a slice given by anchor/shape inputs or start/end arguments.

    By default the ``anchor`` and ``shape`` inputs are relative and in "WH" order (x before y);
    integer inputs are absolute. The named arguments (``start``/``rel_start`` with
    ``end``/``rel_end``/``shape``/``rel_shape``) follow `fn.slice`.
    """

    def setup(self) -> None:
        super().setup()
        # DALI's SliceAttr, as `fn.slice` holds it, on H×W images
        self._slice = ImageSliceAttr(self)

    def windows(self, ws: Workspace, n: int, shapes: np.ndarray | None = None) -> Windows | None:
        return self._slice.image_windows(ws, n)
