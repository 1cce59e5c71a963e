"""Bounding boxes as DALI's detection operators read, measure and write them.

A box is stored as ``2·ndim`` floats whose meaning a *box layout* names, one letter per
coordinate: ``x y z`` are the start (low) corner, ``X Y Z`` the end (high) corner and ``W H D`` the
extents. ``"xyXY"`` (``ltrb``) and ``"xyWH"`` (``xywh``) are the 2-D layouts every operator knows;
`fn.random_bbox_crop` takes any permutation of ``xyXY``/``xyWH`` (``xyzXYZ``/``xyzWHD`` in 3-D).

Whatever the layout, DALI turns each box into its two corners (``lo``, ``hi``) with float32
arithmetic, works on the corners and writes them back, so an extent comes out as ``hi - lo``:
``(x + w) - x``, which is not always ``w`` in float32. `BoxLayout.read` and `BoxLayout.write` do
the same, so a round trip matches DALI's bit for bit.

The measures (`volume`, `intersection_volume`, `iou`) are DALI's ``Box`` functions in float32:
a volume is the product of the extents in axis order, an empty intersection (an extent ``<= 0``)
has volume 0, and the IoU of boxes that do not intersect is 0. They broadcast, so one call gives
the IoU of every box with every anchor or crop window.

`gpu_flat` and `gpu_output` carry the boxes of a GPU batch to a kernel and back: the samples are
one flat buffer (what the kernels index) and the outputs are carved from one.

Example:
    >>> import numpy as np
    >>> layout = BoxLayout.parse("xyWH", 2)
    >>> lo, hi = layout.read(np.array([[0.1, 0.2, 0.3, 0.4]], np.float32))
    >>> hi.tolist() == np.float32([[0.1 + 0.3, 0.2 + 0.4]]).tolist()
    True
    >>> float(iou(np.float32([0, 0]), np.float32([2, 2]), np.float32([1, 1]), np.float32([3, 3])))
    0.1428571492433548
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "BoxLayout",
    "as_float_boxes",
    "gpu_flat",
    "gpu_output",
    "intersection_volume",
    "iou",
    "volume",
]

_F32 = np.float32

#: Start letters, end letters and extent letters of each axis (x, y, z).
_STARTS, _ENDS, _EXTENTS = "xyz", "XYZ", "WHD"


@dataclass(frozen=True)
class BoxLayout:
    """Where each corner coordinate of a box is, for one box layout.

    Attributes:
        text: The layout (``"xyXY"``).
        ndim: Spatial dimensions (2 or 3).
        start: Column of the start coordinate of each axis.
        second: Column of the end coordinate (or of the extent) of each axis.
        extents: The second half holds extents (``W H D``), not end coordinates.
    """

    text: str
    ndim: int
    start: tuple[int, ...]
    second: tuple[int, ...]
    extents: bool

    @classmethod
    def parse(cls, text: str, ndim: int) -> BoxLayout:
        """The layout ``text`` of ``ndim``-D boxes.

        Raises:
            ValueError: ``text`` is not a permutation of ``xyXY``/``xyWH`` (``xyzXYZ``/``xyzWHD``
                in 3-D); the message is DALI's.
        """
        starts, ends, exts = _STARTS[:ndim], _ENDS[:ndim], _EXTENTS[:ndim]
        letters = sorted(text)
        if letters == sorted(starts + ends):
            second, extents = ends, False
        elif letters == sorted(starts + exts):
            second, extents = exts, True
        else:
            raise ValueError(
                f"`bbox_layout` should be a permutation of `{starts + ends}` or "
                f"`{starts + exts}`. Got: `{text}`"
            )
        return cls(
            text,
            ndim,
            tuple(text.index(c) for c in starts),
            tuple(text.index(c) for c in second),
            extents,
        )

    @classmethod
    def ltrb(cls, ltrb: bool, ndim: int = 2) -> BoxLayout:
        """The start-end layout (``ltrb=True``) or the start-extent one."""
        starts = _STARTS[:ndim]
        return cls.parse(starts + (_ENDS if ltrb else _EXTENTS)[:ndim], ndim)

    def read(self, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The corners ``(lo, hi)``, each ``(..., ndim)`` float32, of ``(..., 2·ndim)`` boxes."""
        coords = np.asarray(coords, dtype=_F32)
        lo = coords[..., list(self.start)]
        hi = coords[..., list(self.second)]
        if self.extents:
            hi = lo + hi
        return lo, hi

    def write(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Boxes ``(..., 2·ndim)`` float32 in this layout from their corners."""
        second = hi - lo if self.extents else hi
        out = np.empty((*lo.shape[:-1], 2 * self.ndim), dtype=_F32)
        out[..., list(self.start)] = lo
        out[..., list(self.second)] = second
        return out


def volume(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The volume (area in 2-D) of boxes: their extents multiplied in axis order, in float32."""
    ext = hi - lo
    v = ext[..., 0]
    for d in range(1, ext.shape[-1]):
        v = v * ext[..., d]
    return v


def intersection_volume(
    alo: np.ndarray, ahi: np.ndarray, blo: np.ndarray, bhi: np.ndarray
) -> np.ndarray:
    """The volume of the intersection of boxes ``a`` and ``b`` (broadcast); 0 when it is empty
    (an extent ``<= 0`` on any axis), as DALI's ``intersection`` gives an empty box then."""
    lo = np.maximum(alo, blo)
    hi = np.minimum(ahi, bhi)
    empty = (hi <= lo).any(axis=-1)
    v = volume(lo, hi)
    return np.where(empty, _F32(0), v)


def iou(alo: np.ndarray, ahi: np.ndarray, blo: np.ndarray, bhi: np.ndarray) -> np.ndarray:
    """Intersection over union of boxes ``a`` and ``b`` (broadcast), float32; 0 when they do not
    intersect. The union is ``volume(a) + volume(b) - intersection``, summed in that order."""
    inter = intersection_volume(alo, ahi, blo, bhi)
    with np.errstate(divide="ignore", invalid="ignore"):
        union = volume(alo, ahi) + volume(blo, bhi) - inter
        out = inter / union
    return np.where(inter == 0, _F32(0), out).astype(_F32, copy=False)


def as_float_boxes(op: Any, sample: np.ndarray, index: int) -> np.ndarray:
    """A sample of boxes checked to be float32 (DALI reads them as ``float`` and rejects others).

    Raises:
        OperatorError: Another element type (naming the sample).
    """
    a = np.asarray(sample)
    if a.dtype != np.float32:
        raise op.error(f"sample {index}: bounding boxes must be FLOAT (float32), got {a.dtype}")
    return a


# -- the GPU side -------------------------------------------------------------------------------


def gpu_flat(tl: Any) -> tuple[Any, list[tuple[int, ...]]]:
    """A GPU batch as ``(flat, shapes)``: every sample back to back in one C-contiguous 1-D
    CuPy array (the batch's own buffer when it has one; a device copy otherwise)."""
    import cupy

    dense = tl.held_dense
    if dense is not None:
        dense = cupy.ascontiguousarray(dense)
        return dense.reshape(-1), [tuple(dense.shape[1:])] * int(dense.shape[0])
    packed = tl.flat()
    if packed is not None:
        flat, shapes = packed
        return flat, [tuple(s) for s in shapes]
    samples = tl.samples()
    shapes = [tuple(s.shape) for s in samples]
    if not samples:
        return cupy.empty(0, tl.np_dtype), shapes
    return cupy.concatenate([cupy.ravel(s) for s in samples]), shapes


def gpu_output(
    flat: Any, shapes: Sequence[tuple[int, ...]], layout: str, dtype: Any, ndim: int
) -> Any:
    """The TensorListGPU of samples of ``shapes`` lying back to back in ``flat``."""
    from dali._ops.gpu.kernels import make_output

    return make_output(flat, list(shapes), layout, dtype, ndim)
