"""`fn.grid_mask`: the GridMask augmentation (https://arxiv.org/abs/2001.04086).

A grid of black squares is laid over the image: squares of side ``ratio * tile`` repeating every
``tile`` pixels in both directions, rotated by ``angle`` (radians) around the origin and then
shifted by ``(shift_x, shift_y)``. Pixel ``(x, y)`` is mapped to grid coordinates

    fx = (-shift_x - y sin a + x cos a) / tile
    fy = (-shift_y + y cos a + x sin a) / tile

and zeroed when the fractional parts of both are below ``ratio``. As DALI computes it, in
float32 with the same order of operations, so the masks are identical. On the CPU with Numba
(the `jit` extra) an image is one compiled pass (`_grid_mask_jit`), the same arithmetic.

The samples are HWC images (three dimensions, whatever the layout says: DALI reads the first
two as height and width) of uint8, int16, int32 or float.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     img = fn.external_source(lambda: [np.ones((4, 8, 1), np.uint8)], layout="HWC")
    ...     return fn.grid_mask(img, tile=4, ratio=0.5)
    >>> out, = pipe().run()
    >>> out.as_array()[0, :, :, 0]
    array([[0, 0, 1, 1, 0, 0, 1, 1],
           [0, 0, 1, 1, 0, 0, 1, 1],
           [1, 1, 1, 1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1, 1, 1, 1]], dtype=uint8)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["GridMask", "grid_mask"]

_TYPES = ("uint8", "int16", "int32", "float32")


def grid_coefficients(tile: Any, angle: Any, shift_x: Any, shift_y: Any) -> tuple[Any, ...]:
    """``cos(angle)``, ``sin(angle)``, ``shift_x`` and ``shift_y``, each divided by the tile,
    in float32 as DALI's kernel takes them (scalars for scalars, arrays for arrays)."""
    f32 = np.float32
    ca = (np.cos(np.asarray(angle, np.float64)).astype(f32) / tile).astype(f32)
    sa = (np.sin(np.asarray(angle, np.float64)).astype(f32) / tile).astype(f32)
    sx = (np.asarray(shift_x, f32) / tile).astype(f32)
    sy = (np.asarray(shift_y, f32) / tile).astype(f32)
    return ca, sa, sx, sy


def grid_mask(
    xp: Any, x: Any, tile: Any, ratio: Any, angle: Any, shift_x: Any, shift_y: Any
) -> Any:
    """``x`` (H, W, C), or a batch (B, H, W, C) with ``(B, 1, 1)`` parameters, masked.

    The parameters are float32 (``tile`` an integer value); the arithmetic is DALI's kernel's.

    Example:
        >>> x = np.ones((2, 4, 1), np.float32)
        >>> f = np.float32
        >>> grid_mask(np, x, f(2), f(0.5), f(0), f(0), f(0))[..., 0]
        array([[0., 1., 0., 1.],
               [1., 1., 1., 1.]], dtype=float32)
    """
    f32 = np.float32
    ca, sa, sx, sy = grid_coefficients(tile, angle, shift_x, shift_y)
    h, w = x.shape[-3], x.shape[-2]
    ys = xp.arange(h, dtype=f32)[:, None]
    xs = xp.arange(w, dtype=f32)[None, :]
    ca, sa, sx, sy, ratio = (xp.asarray(v, f32) for v in (ca, sa, sx, sy, ratio))
    fx = (-sx + ys * -sa) + xs * ca
    fy = (-sy + ys * ca) + xs * sa
    keep = (fx - xp.floor(fx) >= ratio) | (fy - xp.floor(fy) >= ratio)
    return x * keep[..., None].astype(x.dtype)


@functools.cache
def _kernel() -> Any:
    """`_grid_mask_jit.grid_mask_into`, or None when Numba is not installed."""
    try:
        from dali._ops.image._grid_mask_jit import grid_mask_into
    except ImportError:
        return None
    return grid_mask_into


@register(
    "grid_mask",
    devices=("cpu", "gpu"),
    args=[
        Arg("tile", "int", default=100, tensor=True,
            doc="The length of a single tile (black square plus the spacing)."),
        Arg("ratio", "float", default=0.5, tensor=True,
            doc="The ratio between black square width and tile width."),
        Arg("angle", "float", default=0.0, tensor=True,
            doc="Angle, in radians, by which the grid is rotated."),
        Arg("shift_x", "float", default=0.0, tensor=True,
            doc="The x component of the translation vector, applied after rotation."),
        Arg("shift_y", "float", default=0.0, tensor=True,
            doc="The y component of the translation vector, applied after rotation."),
    ],
)  # fmt: skip
class GridMask(Operator):
    """Performs the gridmask augmentation (https://arxiv.org/abs/2001.04086).

    Zeroes out pixels of an image in a grid-like fashion. The grid consists of squares
    repeating in x and y directions, with the same spacing in both directions. Can be rotated
    around the origin.
    """

    def setup(self) -> None:
        if not self.is_tensor_arg("tile") and self.arg("tile") <= 0:
            raise self.arg_error("tile", "Tile argument must be positive")

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        if tl.np_dtype.name not in _TYPES:
            raise self.error(f"Unsupported input type: {type_name(tl.np_dtype)}")
        if tl.sample_ndim != 3:
            raise self.error(
                f"expected images of 3 dimensions (HWC), got {tl.sample_ndim} dimensions"
            )
        tile = ws.arg_scalars("tile", np.int64)
        if np.any(tile <= 0):
            raise self.arg_error("tile", "Tile argument must be positive")
        params = [tile.astype(np.float32)] + [
            ws.arg_scalars(name, np.float32) for name in ("ratio", "angle", "shift_x", "shift_y")
        ]
        dense = tl.dense() if xp is not np else None
        if dense is not None:  # the GPU: the batch in one go
            cols = [p.reshape(-1, 1, 1) for p in params]
            return cls.wrap(grid_mask(xp, dense, *cols), tl.layout())
        samples = tl.samples()
        kernel = _kernel() if xp is np else None
        if kernel is None:
            out = ws.map(lambda i: grid_mask(xp, samples[i], *(p[i] for p in params)))
            return cls.wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=3)
        shapes = tl.shape()
        dense_out = None  # equal shapes: one batch array
        if all(s == shapes[0] for s in shapes):
            dense_out = np.empty((len(tl), *shapes[0]), tl.np_dtype)
        tiles, ratios, angles, shifts_x, shifts_y = params

        def one(i: int) -> Any:  # one compiled pass (`_grid_mask_jit`), the same arithmetic
            x = np.ascontiguousarray(samples[i])
            y = dense_out[i] if dense_out is not None else np.empty(x.shape, x.dtype)
            coefficients = grid_coefficients(tiles[i], angles[i], shifts_x[i], shifts_y[i])
            kernel(x, *(np.float32(c) for c in coefficients), ratios[i], y)
            return y

        out = ws.map(one)
        if dense_out is not None:
            return cls.wrap(dense_out, tl.layout())
        return cls.wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=3)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
