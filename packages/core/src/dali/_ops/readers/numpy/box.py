"""Reading a box of a C-order array stored in a file, touching only the bytes it needs.

`fn.readers.numpy` with a region of interest reads a box ``[lo_d, hi_d)`` of the *stored* array
(the payload of a ``.npy`` file, C order; a Fortran-order file's payload is the C-order array of
the reversed shape, so its box is the reversed one). In C order a box is a set of contiguous
*runs*: along the innermost axis that the box does not cover whole (axis ``k``), each run holds
``e_k`` rows of everything inside it, and there are ``prod(e_0 .. e_{k-1})`` of them.

How to read the runs is a trade between the cost of one more read (a system call and an
open/close locally, a request remotely) and the cost of reading bytes that are not needed. The
runs can be grouped by the outer axes: `plan_box` picks a *level* ``m`` and reads one extent per
index of the axes before ``m``, each extent covering the box's part of the axes from ``m`` on
(gaps inside it included). ``m = 0`` is one covering range; ``m = k`` is one extent per run. The
gap between two extents of level ``m`` is ``stride_{m-1} - span_m`` and it shrinks as ``m``
grows, so the plan takes the deepest level whose gaps are all larger than
``options.ROI_GAP_BYTES`` (local files) or ``options.ROI_REMOTE_GAP_BYTES`` (URLs), and no more than
``options.ROI_MAX_EXTENTS`` extents.

`assemble` turns the extents' bytes back into the box, as a C-order array of the stored type.

Example:
    >>> import numpy as np
    >>> a = np.arange(6 * 8, dtype=np.int32).reshape(6, 8)
    >>> plan = plan_box(a.shape, 4, [(1, 4), (2, 7)], gap_bytes=0)
    >>> plan.level, plan.offsets.tolist(), plan.length
    (1, [40, 72, 104], 20)
    >>> raw = a.tobytes()
    >>> parts = [np.frombuffer(raw[o : o + plan.length], np.uint8) for o in plan.offsets]
    >>> np.array_equal(assemble(plan, parts, np.dtype(np.int32)), a[1:4, 2:7])
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from dali import _options as options

__all__ = ["BoxPlan", "assemble", "plan_box"]


class BoxPlan(NamedTuple):
    """How to read a box of a stored array: ``len(offsets)`` extents of ``length`` bytes."""

    #: byte offsets of the extents, from the start of the payload, in C order of the box
    offsets: np.ndarray
    #: bytes per extent
    length: int
    #: extents are one per index of the box's axes before this one
    level: int
    #: the box's extent along every axis (its shape)
    shape: tuple[int, ...]
    #: the stored array's byte strides
    strides: tuple[int, ...]


def _strides(shape: Sequence[int], itemsize: int) -> list[int]:
    out = [itemsize] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        out[d] = out[d + 1] * int(shape[d + 1])
    return out


def plan_box(
    shape: Sequence[int],
    itemsize: int,
    bounds: Sequence[tuple[int, int]],
    *,
    gap_bytes: int,
    max_extents: int | None = None,
) -> BoxPlan:
    """The extents that read the box ``bounds`` (per axis ``[lo, hi)``, inside ``shape``) of a
    C-order array of ``shape`` and ``itemsize``.

    An empty box has no extents; a 0-d array is one extent of one item.
    """
    if max_extents is None:
        max_extents = options.ROI_MAX_EXTENTS
    ndim = len(shape)
    st = _strides(shape, itemsize)
    e = [hi - lo for lo, hi in bounds]
    if any(x <= 0 for x in e):
        return BoxPlan(np.empty(0, np.int64), 0, 0, tuple(e), tuple(st))
    if ndim == 0:
        return BoxPlan(np.zeros(1, np.int64), itemsize, 0, (), ())
    base = sum(lo * s for (lo, _), s in zip(bounds, st))
    # k: the innermost axis the box does not cover whole; the axes after it are whole, so a
    # run is e_k rows of them
    k = max((d for d in range(ndim) if e[d] != shape[d]), default=0)
    # span[j]: the bytes from the box's first to its last byte along the axes j.. (j <= k)
    span = [0] * (k + 1)
    span[k] = e[k] * st[k]
    for j in range(k - 1, -1, -1):
        span[j] = (e[j] - 1) * st[j] + span[j + 1]
    # the deepest level whose gaps beat the threshold (gaps shrink as the level deepens)
    level = 0
    for j in range(1, k + 1):
        if st[j - 1] - span[j] > gap_bytes:
            level = j
        else:
            break
    while level > 0 and int(np.prod(e[:level], dtype=np.int64)) > max_extents:
        level -= 1
    offsets = np.array([base], np.int64)
    for d in range(level):
        offsets = np.add.outer(offsets, np.arange(e[d], dtype=np.int64) * st[d]).reshape(-1)
    return BoxPlan(offsets, span[level], level, tuple(e), tuple(st))


def assemble(plan: BoxPlan, parts: Sequence[np.ndarray], dtype: np.dtype[Any]) -> np.ndarray:
    """The box (C order, of ``dtype`` as stored) from the bytes of the plan's extents.

    Args:
        plan: The plan the extents were read with.
        parts: The bytes of every extent (1-D uint8 arrays of ``plan.length``), in plan order.
        dtype: The stored element type (its byte order too).
    """
    shape, level = plan.shape, plan.level
    if not len(plan.offsets):
        return np.empty(shape, dtype)
    inner_shape, inner_strides = shape[level:], plan.strides[level:]
    if len(parts) == 1 and level == 0:
        view = np.ndarray(inner_shape, dtype, parts[0], 0, inner_strides)
        if view.flags.c_contiguous:
            return view  # the extent is the box: no copy (a fresh buffer, or a private map)
    out = np.empty(shape, dtype)
    if not inner_shape:  # a 0-d array
        out[...] = np.ndarray((), dtype, parts[0])
        return out
    # copy each innermost run as one item (a void of its bytes): numpy's strided copy of short
    # runs goes element by element, ~4x slower for runs of 16 bytes
    run = np.dtype((np.void, inner_shape[-1] * dtype.itemsize))
    outer = out.view(np.uint8).reshape(-1, *inner_shape[:-1], run.itemsize).view(run)
    for i, part in enumerate(parts):
        outer[i, ..., 0] = np.ndarray(inner_shape[:-1], run, part, 0, inner_strides[:-1])
    return out
