"""`fn.sphere`: bulge an image as if it were printed on a sphere.

A displacement filter (`displacement`). With the image's centre ``(W/2, H/2)`` and ``d`` the
larger half-extent truncated to an integer, output pixel ``(x, y)`` at offset
``t = (x + 0.5 − W/2, y + 0.5 − H/2)`` from the centre samples the input at

    p = centre + (|t| / d) · t

so the centre stays, and points move outwards by the square of their distance: the middle of the
image is magnified and its rim pushed out of view (filled with ``fill_value``). The arithmetic
is DALI's (``dali/operators/image/remap/sphere.h``) in float32, bit-exact with DALI's CPU. The
positions depend only on the image's size and are computed once per size.

uint8 and float ``HWC`` images, any number of channels; ``mask`` per sample.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> img = np.full((8, 8, 1), 7, np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.sphere(fn.external_source(lambda: [img], layout="HWC"), fill_value=1)
    >>> out = pipe().run()[0].as_array()[0, :, :, 0]
    >>> int(out[4, 4]), int(out[0, 0])  # the centre stays, the corners are pushed out
    (7, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dali._graph.schema import register
from dali._ops.image import _displace_gpu
from dali._ops.image.displacement import DISPLACEMENT_ARGS, CoordinateCache, DisplacementFilter

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Sphere", "sphere_positions"]

_F32 = np.float32


def sphere_positions(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(h, w)`` float32 source positions ``px``, ``py`` of the sphere effect.

    Example:
        >>> px, py = sphere_positions(4, 4)
        >>> [round(v, 2) for v in px[0].tolist()]  # pixel centres 0.5 ... 3.5, pushed outwards
        [0.41, 1.6, 2.4, 3.59]
    """
    mid_x, mid_y = _F32(w) * _F32(0.5), _F32(h) * _F32(0.5)
    d = _F32(int(max(mid_x, mid_y)))
    ty = (np.arange(h, dtype=_F32) + _F32(0.5) - mid_y)[:, None]
    tx = (np.arange(w, dtype=_F32) + _F32(0.5) - mid_x)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):  # d = 0 for a 1x1 image: NaN (fill)
        rad = np.sqrt(tx * tx + ty * ty) / d
    return mid_x + rad * tx, mid_y + rad * ty


@register("sphere", devices=("cpu", "gpu"), args=DISPLACEMENT_ARGS)
class Sphere(DisplacementFilter):
    """Performs a sphere augmentation.

    Output pixel ``(x, y)`` samples the input at ``c + (|t| / d)·t``, where ``c`` is the image's
    centre, ``t`` the pixel centre's offset from it and ``d`` the larger half-extent: the middle
    is magnified and the rim pushed out (``fill_value``). ``interp_type`` is INTERP_NN or
    INTERP_LINEAR; ``mask`` (per sample) 0 leaves a sample unchanged. Input: ``HWC`` uint8 or
    float images.
    """

    def setup(self) -> None:
        super().setup()
        self._positions = CoordinateCache(sphere_positions)

    def positions(self, ws: Workspace, i: int, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
        return self._positions(h, w)

    def gpu_kind(self) -> int:
        return _displace_gpu.SPHERE
