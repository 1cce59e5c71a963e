"""What the image operators share: the layout of an image batch, optional OpenCV, scratch buffers.

An image operator accepts a list of layouts (``("HWC", "CHW", ...)``); an input without a
layout gets the first accepted one with its number of dimensions, as in DALI.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali import _options as options
from dali._ops.base import Operator

__all__ = [
    "ThreadScratch",
    "default_layout",
    "image_layout",
    "opencv_into",
    "optional_cv2",
    "static_image_layout",
    "transpose_hw",
]

_CV2: list[Any] = []


def optional_cv2() -> Any:
    """OpenCV when installed (the ``image`` extra), else None: the fast CPU paths use it."""
    if not _CV2:
        try:
            import cv2
        except ImportError:
            _CV2.append(None)
        else:
            _CV2.append(cv2)
    return _CV2[0]


def opencv_into(call: Any, *args: Any, dst: np.ndarray) -> np.ndarray:
    """``call(*args, dst=dst)`` (an OpenCV function) with its result in ``dst``: copied there
    where OpenCV made an array of its own after all (``dst`` of another shape or type)."""
    got = call(*args, dst=dst)
    if got is not dst:
        dst[...] = got
    return dst


def default_layout(ndim: int | None, allowed: Sequence[str]) -> str | None:
    """The layout DALI assumes for an input without one: the first allowed one of that ndim."""
    if ndim is None:
        return None
    for layout in allowed:
        if len(layout) == ndim:
            return layout
    return None


def image_layout(op: Operator, tl: Any, allowed: Sequence[str]) -> str:
    """The layout of an image batch, checked against ``allowed`` (empty → the default).

    Raises:
        OperatorError: naming the operator, for an unsupported layout or number of dimensions.
    """
    layout = tl.layout()
    if layout:
        if layout not in allowed:
            raise op.error(
                f"unsupported input layout '{layout}'; expected one of "
                + ", ".join(f"'{a}'" for a in allowed)
            )
        return layout
    found = default_layout(tl.sample_ndim, allowed)
    if found is None:
        raise op.error(
            f"the input has {tl.sample_ndim} dimensions and no layout; expected a layout among "
            + ", ".join(f"'{a}'" for a in allowed)
        )
    return found


def static_image_layout(node: Any, allowed: Sequence[str]) -> str | None:
    """The layout an image operator's output keeps, when known at trace time."""
    src = node.inputs[0]
    if src.layout:
        return src.layout
    if src.layout == "":
        return default_layout(src.ndim, allowed)
    return None


class ThreadScratch(threading.local):
    """Per-thread work buffers, grown to the largest size seen and then reused.

    The CPU resampling passes need several MB of temporaries per image; allocating them per
    sample makes glibc hand the pages back to the kernel and fault them in again
    (``benchmarks/RESULTS.md``, "CPU resampling").
    """

    def __init__(self) -> None:
        self.buffers: dict[tuple[str, np.dtype[Any]], np.ndarray] = {}

    def get(self, name: str, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        """A ``shape`` view of this thread's buffer ``name`` (contents undefined)."""
        key = (name, np.dtype(dtype))
        size = math.prod(shape)
        buf = self.buffers.get(key)
        if buf is None or buf.size < size:
            buf = self.buffers[key] = np.empty(max(size, 1), key[1])
        return buf[:size].reshape(shape)


#: Bytes per cache line.
_LINE = 64

#: Element sizes OpenCV's ``cv2.transpose`` handles.
_CV_TRANSPOSE_ITEM_SIZES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


def transpose_hw(x: np.ndarray, dst: np.ndarray | None = None, *, cold: bool = False) -> np.ndarray:
    """``(A, B, C)`` → contiguous ``(B, A, C)``, into ``dst`` when given; returns it.

    OpenCV's blocked transpose where it applies (several times faster than numpy's strided copy:
    ``benchmarks/RESULTS.md``, "CPU resampling").
    ``cold``: ``x`` is probably not in the CPU caches (an operator's input, written while the
    rest of the batch was processed); it is then read in order first (see below).
    """
    if dst is None:
        dst = np.empty((x.shape[1], x.shape[0], x.shape[2]), x.dtype)
    cv2 = optional_cv2()
    if (
        cv2 is not None
        and x.dtype == dst.dtype
        and x.shape[2] <= 4
        and x.shape[2] * x.itemsize in _CV_TRANSPOSE_ITEM_SIZES
        and dst.flags.c_contiguous
    ):
        x = np.ascontiguousarray(x)
        if cold and x.nbytes >= options.PREFETCH_BYTES:
            # one read per cache line, in order, first: the hardware prefetcher then streams
            # the image into the cache, where OpenCV's column-wise walk would otherwise wait
            # on memory for each line. It pays on uint8 crops in the ResNet-50 pipeline and
            # only costs on data already cached (benchmarks/RESULTS.md, "CPU resampling"),
            # hence the flag.
            x.reshape(-1)[:: _LINE // x.itemsize].max()
        cv2.transpose(x, dst=dst)
    else:
        dst[...] = x.transpose(1, 0, 2)
    return dst
