"""The windows of the image decoders: what part of each decoded image a sample keeps.

A window depends only on the image's (display) size and the sample's arguments, so the CPU
backend (`image`) and the mixed backend's planner (`_mixed_plan`) cut the same windows from the
same functions: ``image_crop``'s crop window, ``image_slice``'s positional and named slices,
and ``image_random_crop``'s random windows, computed for the whole batch at once from the sizes
in the headers (`header_shapes`) and held in a `BatchWindows`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from dali._ops.generic.cast import round_half_away_int

__all__ = [
    "BatchWindows",
    "Window",
    "WindowFn",
    "Windows",
    "header_shapes",
    "size_hint",
]


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


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def size_hint(data: np.ndarray) -> tuple[int, int] | None:
    """The stored ``(height, width)`` of a PNG (IHDR) or a BMP (DIB header); None otherwise.

    An EXIF orientation of 5–8 swaps the displayed size; finding it in a PNG means walking every
    chunk, so this is only a hint (`header_shapes`): the decode has the last word.

    Example:
        >>> size_hint(np.frombuffer(b"GIF89a", np.uint8)) is None
        True
    """
    if data.size < 26:
        return None
    head = bytes(data[:26])
    if head[:8] == _PNG_SIGNATURE and head[12:16] == b"IHDR":
        w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    elif head[:2] == b"BM":
        if int.from_bytes(head[14:18], "little") == 12:  # OS/2 BITMAPCOREHEADER
            w, h = int.from_bytes(head[18:20], "little"), int.from_bytes(head[20:22], "little")
        else:  # a negative height means rows stored top-down
            w = int.from_bytes(head[18:22], "little", signed=True)
            h = abs(int.from_bytes(head[22:26], "little", signed=True))
    else:
        return None
    return (h, w) if h > 0 and w > 0 else None


def header_shapes(samples: Sequence[np.ndarray], orientation: bool) -> np.ndarray:
    """Each image's display ``(height, width)`` from its header, ``(-1, -1)`` where not known.

    JPEG: the frame's size, with height and width swapped for EXIF orientations 5–8 when
    ``orientation`` is applied (the mixed backend's fast header walk); PNG and BMP: `size_hint`.
    It is a hint: a window function is called with the decoded size, and other formats, unusual
    headers and PNGs with a swapping eXIf orientation get their windows computed for that size.

    Example:
        >>> header_shapes([np.frombuffer(b"GIF89a...", np.uint8)], True).tolist()
        [[-1, -1]]
    """
    from dali._ops.decoders._jpeg_header import jpeg_headers

    out = np.full((len(samples), 2), -1, dtype=np.int64)
    datas: list[np.ndarray] = []
    where: list[int] = []
    for i, data in enumerate(samples):
        if data.dtype != np.uint8 or data.ndim != 1 or data.size <= 4:
            continue
        where.append(i)
        datas.append(data if data.flags.c_contiguous else np.ascontiguousarray(data))
    hd = jpeg_headers(datas)  # not found (not an error) for data the walk does not understand
    for k in np.flatnonzero(~hd.jpeg).tolist():
        size = size_hint(datas[k])
        if size is not None:
            out[where[k]] = size
    known = hd.found & (hd.height > 0) & (hd.width > 0)
    h, w = hd.height, hd.width
    if orientation:
        swap = hd.orientation >= 5
        h, w = np.where(swap, w, h), np.where(swap, h, w)
    rows = np.asarray(where, dtype=np.int64)[known]
    out[rows, 0] = h[known]
    out[rows, 1] = w[known]
    return out


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
        self._lists: tuple[list, list, list] | None = None

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


def _anchor(pos: float, spare: int, truncate: bool) -> int:
    """DALI's anchor: ``round_half_away(double(float32(pos)) · spare)`` (§10)."""
    v = pos * spare
    return int(np.trunc(v)) if truncate else round_half_away_int(v)


def _crop_window_fn(h: int, w: int, py: float, px: float, truncate: bool) -> WindowFn:
    def window(H: int, W: int) -> Window:
        ch = h if h > 0 else H
        cw = w if w > 0 else W
        return Window(_anchor(py, H - ch, truncate), _anchor(px, W - cw, truncate), ch, cw)

    return window


def _slice_window(op: Any, H: int, W: int, axes: Sequence[int], ends: dict[int, tuple]) -> Window:
    start = [0, 0]
    size = [H, W]
    for dim in axes:
        a, e = ends[dim]
        if e < a:
            raise op.error(
                f"end coordinates can't be before start coordinates (start={a}, end={e})"
            )
        start[dim] = round_half_away_int(a)
        size[dim] = round_half_away_int(e) - start[dim]
    return Window(start[0], start[1], size[0], size[1])


def _positional_slice_fn(
    op: Any,
    axes: Sequence[int],
    anchor: np.ndarray,
    shape: np.ndarray,
    norm_anchor: bool,
    norm_shape: bool,
) -> WindowFn:
    def window(H: int, W: int) -> Window:
        extent = (H, W)
        ends = {}
        for i, dim in enumerate(axes):
            a, s = float(anchor[i]), float(shape[i])
            if norm_anchor and norm_shape:  # one multiplication after the sum (DALI)
                e = (a + s) * extent[dim]
                a *= extent[dim]
            else:
                if norm_anchor:
                    a *= extent[dim]
                if norm_shape:
                    s *= extent[dim]
                e = a + s
            ends[dim] = (a, e)
        return _slice_window(op, H, W, axes, ends)

    return window


def _named_slice_fn(op: Any, axes: Sequence[int], v: dict[str, np.ndarray]) -> WindowFn:
    def window(H: int, W: int) -> Window:
        extent = (H, W)
        ends = {}
        for i, dim in enumerate(axes):
            ext = extent[dim]
            a = 0.0
            if "start" in v:
                a = float(v["start"][i])
            elif "rel_start" in v:
                a = float(v["rel_start"][i]) * ext
            e = float(ext)
            if "end" in v:
                e = float(v["end"][i])
            elif "rel_end" in v:
                e = float(v["rel_end"][i]) * ext
            elif "shape" in v:  # (>= 0: checked by the operator, `slice_shape_error`)
                e = a + float(v["shape"][i])
            elif "rel_shape" in v:
                rs = float(v["rel_shape"][i])
                if "rel_start" in v:  # one multiplication after the sum (DALI)
                    e = (float(v["rel_start"][i]) + rs) * ext
                else:
                    e = a + rs * ext
            ends[dim] = (a, e)
        return _slice_window(op, H, W, axes, ends)

    return window
