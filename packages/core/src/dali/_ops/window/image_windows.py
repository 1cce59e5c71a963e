"""Windows of images whose size is known only once decoded (the ROI decoders' windows).

A decoder's window depends on the image's (display) size and on the sample's arguments, so it
is a *function* of the decoded ``(height, width)``: a `WindowFn` returning a `Window` (an
anchor and a size, which may reach outside the image). The CPU backend calls it with the size
it decoded, the mixed backend's planner with the size in the header (`dali._ops.decoders.
_mixed_plan`), so both cut the same windows. The functions come from the attributes:
`crop_attr.CropAttr.image_windows` (``image_crop``), `slice_attr.ImageSliceAttr.image_windows`
(``image_slice``), and `random_crop.RandomCropParams.image_windows` (``image_random_crop``),
whose windows are computed for a whole batch at once from the header sizes and held in a
`BatchWindows`.

Example:
    >>> def centre(H: int, W: int) -> Window:  # a WindowFn: the central half of any image
    ...     return Window(H // 4, W // 4, H // 2, W // 2)
    >>> centre(100, 60)
    Window(y=25, x=15, h=50, w=30)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

__all__ = ["BatchWindows", "Window", "WindowFn", "Windows"]


class Window(NamedTuple):
    """A crop window in image coordinates; it may reach outside the image."""

    y: int
    x: int
    h: int
    w: int


#: A sample's window as a function of the decoded image's (height, width).
WindowFn = Callable[[int, int], Window]
#: The window functions of a batch's samples (a list, or a `BatchWindows`).
Windows = Sequence[WindowFn]


class BatchWindows(Sequence[WindowFn]):
    """The window functions of a batch (`Windows`) over windows computed together.

    Sample ``i``'s function (``wins[i]``, an integer index) gives the window of anchor
    ``anchors[i]`` and size ``sizes[i]`` (``(n, 2)`` arrays, ``(y, x)`` and ``(h, w)``) for an
    image of the size ``expected[i]`` (the size its header predicted), and ``fallback(i, H, W)``
    for any other size. The functions never raise. The mixed backend's planner takes the
    windows of many samples at once (`boxes_for`), the CPU backend calls the functions.

    Example:
        >>> wins = BatchWindows(np.array([[1, 2]]), np.array([[3, 4]]), np.array([[10, 10]]), None)
        >>> wins[0](10, 10)
        Window(y=1, x=2, h=3, w=4)
    """

    __slots__ = ("_fallback", "_lists", "anchors", "expected", "sizes")

    def __init__(
        self,
        anchors: np.ndarray,
        sizes: np.ndarray,
        expected: np.ndarray,
        fallback: Callable[[int, int, int], Window] | None,
    ) -> None:
        self.anchors, self.sizes, self.expected = anchors, sizes, expected
        self._fallback = fallback
        self._lists: tuple[list[Any], list[Any], list[Any]] | None = None

    def __len__(self) -> int:
        return len(self.anchors)

    def __getitem__(self, i: int) -> WindowFn:  # type: ignore[override]
        n = len(self.anchors)
        if not -n <= i < n:
            raise IndexError(f"sample {i} of a batch of {n}")
        return partial(self._window, i % n)

    def boxes_for(self, idx: np.ndarray, H: np.ndarray, W: np.ndarray) -> list[np.ndarray]:
        """The windows of the samples ``idx`` for images of ``H×W`` (arrays of one value per
        sample): ``self[i](h, w)`` of each, vectorised, as the columns ``[y, x, h, w]``.

        (Gathered column by column: numpy releases the GIL around the larger copies, see
        `_nvimgcodec_c.MAX_CALL`.)
        """
        cols = [a[:, k][idx] for a in (self.anchors, self.sizes) for k in (0, 1)]
        other = (self.expected[:, 0][idx] != H) | (self.expected[:, 1][idx] != W)
        if np.count_nonzero(other):
            assert self._fallback is not None
            for k in np.flatnonzero(other).tolist():
                window = self._fallback(int(idx[k]), int(H[k]), int(W[k]))
                for col, v in zip(cols, window):
                    col[k] = v
        return cols

    def _window(self, i: int, H: int, W: int) -> Window:
        lists = self._lists
        if lists is None:  # made once, by whichever thread asks first
            lists = self._lists = (
                self.expected.tolist(),
                self.anchors.tolist(),
                self.sizes.tolist(),
            )
        (eh, ew), anchor, size = lists[0][i], lists[1][i], lists[2][i]
        if eh == H and ew == W:
            return Window(*anchor, *size)
        assert self._fallback is not None
        return self._fallback(i, H, W)
