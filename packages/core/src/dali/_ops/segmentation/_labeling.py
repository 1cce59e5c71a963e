"""Connected components of N-D label maps, and the bounding box of each, as DALI finds them.

A *blob* is a set of elements that hold the same label and touch through a face: two elements
are neighbours when their coordinates differ by one along exactly one axis (4-connectivity in
2-D, 6-connectivity in 3-D). That is DALI's rule (``LabelConnectedRegions`` merges a row with
the element at the same position of the previous row or slice, never a diagonal one), and
scipy's default ``ndimage.label`` structure.

`blob_boxes` gives each blob's box, ``[lo..., hi...]`` with ``hi`` one past the end, in the order
of the blobs' first elements in raster order, in one pass over the data:

* ``target=v``: the blobs of the elements equal to ``v`` (the objects of one class);
* ``background=b``: the blobs of every label but ``b`` (two touching elements with different
  labels belong to different blobs: DALI's ``ignore_class`` mode).

With Numba (a default dependency where it has wheels) the work is one compiled union-find
pass that releases the GIL; without it, a numpy propagation gives the same boxes, slower.
`label_values` lists the labels present in a map (DALI's ``FindLabels``).

Example:
    >>> import numpy as np
    >>> m = np.array([[1, 1, 0, 2],
    ...               [0, 1, 0, 2],
    ...               [1, 0, 1, 1]], np.uint8)
    >>> blob_boxes(m, target=1).tolist()  # [y0, x0, y1, x1]: 3 blobs (no diagonal contact)
    [[0, 0, 2, 2], [2, 0, 3, 1], [2, 2, 3, 4]]
    >>> blob_boxes(m, background=0).tolist()  # label 2 and label 1 stay apart
    [[0, 0, 2, 2], [0, 3, 2, 4], [2, 0, 3, 1], [2, 2, 3, 4]]
    >>> label_values(m).tolist()
    [0, 1, 2]
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["blob_boxes", "label_values", "numba_available"]

#: Above this many elements a flat index does not fit the int32 union-find array (DALI
#: switches its blob labels to int64 at the same size).
_INT32_ELEMENTS = 0x7FFFFFFF


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled kernels, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def boxes(
        flat: np.ndarray,
        shape: np.ndarray,
        target: Any,
        ignore: bool,
        parent: np.ndarray,
    ) -> np.ndarray:  # pragma: no cover - compiled
        # An element is foreground when it equals `target` (ignore=False) or differs from it
        # (ignore=True: `target` is the background); neighbours join when they are both
        # foreground and equal. The data is scanned row by row (the last axis); a *run* is a
        # stretch of equal foreground elements in a row, whose members point to its first
        # element. Roots are linked larger -> smaller, so a root is its blob's first element in
        # raster order, parent[i] <= i always, and every pointer names a run's first element.
        ndim = shape.size
        n = flat.size
        width = shape[ndim - 1]
        rows = n // width
        strides = np.empty(ndim, np.int64)
        s = 1
        for d in range(ndim - 1, -1, -1):
            strides[d] = s
            s *= shape[d]
        coord = np.zeros(ndim, np.int64)  # the row's coordinates (the last one unused)
        runs = 0  # at least as many as the blobs: the size of the output
        for r in range(rows):
            base = r * width
            for x in range(width):
                i = base + x
                v = flat[i]
                if (v == target) == ignore:
                    continue
                left = x > 0 and flat[i - 1] == v
                if left:
                    parent[i] = parent[i - 1]
                else:
                    parent[i] = i
                    runs += 1
                for d in range(ndim - 1):
                    if coord[d] == 0:
                        continue
                    j = i - strides[d]
                    if flat[j] != v:
                        continue
                    if left and flat[j - 1] == v:
                        continue  # joined already, through the left neighbours
                    ri = i
                    while parent[ri] != ri:  # find, halving the path
                        parent[ri] = parent[parent[ri]]
                        ri = parent[ri]
                    rj = j
                    while parent[rj] != rj:
                        parent[rj] = parent[parent[rj]]
                        rj = parent[rj]
                    if ri < rj:
                        parent[rj] = ri
                    elif rj < ri:
                        parent[ri] = rj
            d = ndim - 2
            while d >= 0:
                coord[d] += 1
                if coord[d] < shape[d]:
                    break
                coord[d] = 0
                d -= 1

        # Second pass, run by run: a run's first element gets its blob's number (a root: a
        # new one; else the number its parent, an earlier run's first element, already got)
        # and the run widens the blob's box.
        out = np.empty((runs, 2 * ndim), np.int32)  # allocated once: no array changes in
        count = 0  # the loop, whose reference counting would cost every iteration
        coord[:] = 0
        last = ndim - 1
        for r in range(rows):
            base = r * width
            x = 0
            while x < width:
                i = base + x
                v = flat[i]
                if (v == target) == ignore:
                    x += 1
                    continue
                x0 = x
                x += 1
                while x < width and flat[base + x] == v:
                    x += 1
                p = parent[i]
                if p == i:  # a new blob, numbered in order of appearance
                    lab = count
                    count += 1
                    for d in range(last):
                        out[lab, d] = coord[d]
                        out[lab, ndim + d] = coord[d] + 1
                    out[lab, last] = x0
                    out[lab, ndim + last] = x
                else:
                    lab = parent[p]
                    for d in range(last):
                        out[lab, d] = min(out[lab, d], coord[d])
                        out[lab, ndim + d] = max(out[lab, ndim + d], coord[d] + 1)
                    out[lab, last] = min(out[lab, last], x0)
                    out[lab, ndim + last] = max(out[lab, ndim + last], x)
                parent[i] = lab
            d = ndim - 2
            while d >= 0:
                coord[d] += 1
                if coord[d] < shape[d]:
                    break
                coord[d] = 0
                d -= 1
        return out[:count].copy()

    @numba.njit(nogil=True, cache=True)
    def values(flat: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
        # DALI's FindLabels: runs of one label are skipped, a set collects the rest
        seen = set()
        n = flat.size
        if n:
            prev = flat[0]
            seen.add(np.int64(prev))
            for i in range(1, n):
                v = flat[i]
                if v != prev:
                    seen.add(np.int64(v))
                    prev = v
        out = np.empty(len(seen), np.int64)
        for k, v in enumerate(seen):
            out[k] = v
        out.sort()
        return out

    return boxes, values


def numba_available() -> bool:
    """Whether the compiled kernels can be used (Numba is installed)."""
    return _kernels() is not None


def _native(mask: np.ndarray) -> np.ndarray:
    """The mask as a C-contiguous array of a type the kernels compare directly (bool as
    uint8)."""
    a = np.ascontiguousarray(mask)
    return a.view(np.uint8) if a.dtype == np.bool_ else a


def blob_boxes(
    mask: np.ndarray,
    *,
    target: int | None = None,
    background: int | None = None,
    use_numba: bool | None = None,
) -> np.ndarray:
    """The bounding boxes of the blobs of ``mask``: ``(nblobs, 2·ndim)`` int32, ``[lo, hi)``.

    Args:
        mask: An N-D integer (or bool) label map, ``ndim >= 1``.
        target: The blobs of the elements equal to this label.
        background: Or: the blobs of every label but this one (same-label neighbours join).
        use_numba: Force the compiled (True) or the numpy (False) path; None: the compiled one
            when Numba is installed.

    Returns:
        One row per blob, ordered by the blob's first element in raster order.
    """
    if (target is None) == (background is None):
        raise ValueError("give exactly one of `target` and `background`")
    ignore = target is None
    value = int(background if ignore else target)  # type: ignore[arg-type]
    a = _native(mask)
    ndim = a.ndim
    if a.size == 0 or ndim == 0:
        return np.zeros((0, 2 * max(ndim, 1)), np.int32)
    info = np.iinfo(a.dtype) if a.dtype.kind in "iu" else None
    if info is not None and not info.min <= value <= info.max:
        # a label the type cannot hold: no element equals it
        if not ignore:
            return np.zeros((0, 2 * ndim), np.int32)
        return _boxes_numpy(a, None, True)  # every element differs from the background
    kernels = _kernels() if use_numba is not False else None
    if kernels is None:
        if use_numba:
            raise RuntimeError("the compiled labelling needs Numba (pip install numba)")
        return _boxes_numpy(a, value, ignore)
    itype = np.int64 if a.size > _INT32_ELEMENTS else np.int32
    parent = np.empty(a.size, itype)
    shape = np.array(a.shape, np.int64)
    out: np.ndarray = kernels[0](a.reshape(-1), shape, a.dtype.type(value), ignore, parent)
    return out


def label_values(mask: np.ndarray, *, use_numba: bool | None = None) -> np.ndarray:
    """The distinct labels of ``mask``, sorted, as int64."""
    a = _native(mask)
    if a.dtype.itemsize == 1:  # a table of 256 is cheaper than any set
        counts = np.bincount(a.reshape(-1).view(np.uint8), minlength=256)
        present = np.flatnonzero(counts)
        if a.dtype == np.int8:
            present = np.sort(present.astype(np.int64) - 256 * (present >= 128))
        return present.astype(np.int64)
    kernels = _kernels() if use_numba is not False else None
    if kernels is None:
        return np.unique(a).astype(np.int64)
    out: np.ndarray = kernels[1](a.reshape(-1))
    return out


def _boxes_numpy(a: np.ndarray, value: int | None, ignore: bool) -> np.ndarray:
    """`blob_boxes` with numpy alone: every foreground element starts as its own flat index;
    each round takes the smallest index over same-label face neighbours, then jumps pointers
    (``lab = lab[lab]``), until nothing changes. ``value=None`` with ``ignore``: every
    element is foreground."""
    n, ndim = a.size, a.ndim
    if ignore:
        fg = np.ones(a.shape, bool) if value is None else a != a.dtype.type(value)
    else:
        fg = a == a.dtype.type(value)
    big = np.int64(n)
    lab = np.where(fg, np.arange(n, dtype=np.int64).reshape(a.shape), big)
    # the pairs of neighbours that may join, per axis: both foreground, equal labels
    joins = []
    for d in range(ndim):
        lo = tuple(slice(None, -1) if k == d else slice(None) for k in range(ndim))
        hi = tuple(slice(1, None) if k == d else slice(None) for k in range(ndim))
        joins.append((lo, hi, fg[lo] & fg[hi] & (a[lo] == a[hi])))
    flat_lab = lab.reshape(-1)
    while True:
        before = flat_lab.copy()
        for lo, hi, ok in joins:
            # labels only decrease (the views overlap: a plain assignment could raise one)
            m = np.where(ok, np.minimum(lab[lo], lab[hi]), big)
            np.minimum(lab[lo], m, out=lab[lo])
            np.minimum(lab[hi], m, out=lab[hi])
        # pointer jumping: an element takes the label of the element its label names
        while True:
            jumped = np.where(flat_lab < big, flat_lab[np.minimum(flat_lab, big - 1)], big)
            if np.array_equal(jumped, flat_lab):
                break
            flat_lab[:] = jumped
        if np.array_equal(before, flat_lab):
            break
    roots = flat_lab[fg.reshape(-1)]
    if roots.size == 0:
        return np.zeros((0, 2 * ndim), np.int32)
    uniq, inverse = np.unique(roots, return_inverse=True)  # roots = first elements: raster order
    coords = np.stack(np.unravel_index(np.flatnonzero(fg.reshape(-1)), a.shape), axis=1)
    out = np.empty((len(uniq), 2 * ndim), np.int64)
    out[:, :ndim] = np.iinfo(np.int64).max
    out[:, ndim:] = -1
    for d in range(ndim):
        np.minimum.at(out[:, d], inverse, coords[:, d])
        np.maximum.at(out[:, ndim + d], inverse, coords[:, d] + 1)
    return out.astype(np.int32)
