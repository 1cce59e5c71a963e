"""`fn.segmentation.random_mask_pixel`: the coordinates of a random (foreground) element.

For each sample of an N-D mask the operator gives the coordinates of one element, an INT64
vector with one entry per dimension (``[y, x]`` for an HW mask, ``[z, y, x]`` for DHW), drawn
uniformly:

* with ``foreground=0`` (the default) among all the elements;
* otherwise among the *foreground* elements: those above ``threshold`` (default 0.0) or, with
  ``value``, those equal to it (``value`` and ``threshold`` exclude each other). A sample with
  no foreground element (or a ``value`` its type cannot hold) gets a uniformly drawn element.

The typical use centres a crop on an object: ``center = fn.segmentation.random_mask_pixel(
mask, foreground=fn.random.coin_flip(probability=0.7))``, then ``fn.roi_random_crop`` or
``fn.slice`` around ``center``.

Comparisons follow DALI's C++: ``value`` is converted to the mask's type (integers wrap) and
``threshold`` is a float32 to which the element is converted. Supported mask types: BOOL,
(U)INT8/16/32/64 and FLOAT. The operator runs on the CPU only, as DALI's; each sample draws from
its own counter-based stream (`Workspace.rng`), so results do not depend on the batch size.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> mask = np.zeros((4, 5), np.uint8)
    >>> mask[2, 3] = 7
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, seed=1)
    ... def pipe():
    ...     return fn.segmentation.random_mask_pixel(types.Constant(mask), foreground=1)
    >>> (pos,) = pipe().run()
    >>> pos.at(0).tolist(), pos.dtype == types.INT64
    ([2, 3], True)
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["RandomMaskPixel", "foreground_of"]

_MASK_TYPES = frozenset(
    np.dtype(t)
    for t in (
        np.uint8,
        np.int8,
        np.uint16,
        np.int16,
        np.uint32,
        np.int32,
        np.uint64,
        np.int64,
        np.float32,
        np.bool_,
    )
)
_STREAM = 0x726D7078  # "rmpx": the sub-stream of the draws


def foreground_of(mask: np.ndarray, value: int | None, threshold: float) -> np.ndarray | None:
    """The foreground elements of ``mask`` (a bool array of its shape), as DALI's predicates
    see them: ``x == T(value)`` or ``float(x) > float32(threshold)``; None when ``value``
    does not survive the conversion to the mask's type and back to a C int (DALI then draws
    from all elements).

    Example:
        >>> m = np.array([0, 3, 255, 7], np.uint8)
        >>> foreground_of(m, 255, 0.0).tolist(), foreground_of(m, None, 3.0).tolist()
        ([False, False, True, False], [False, False, True, True])
        >>> foreground_of(m, 256, 0.0) is None  # no uint8 equals 256
        True
    """
    pred = _predicate(mask, value, threshold)
    if pred is None:
        return None
    data, mode, ref = pred
    if mode in ("all", "none"):
        return np.full(mask.shape, mode == "all", np.bool_)
    out: np.ndarray = data == ref if mode == "==" else data > ref
    return out


def _predicate(
    mask: np.ndarray, value: int | None, threshold: float
) -> tuple[np.ndarray, str, Any] | None:
    """`foreground_of` as ``(data, mode, ref)``: the foreground is ``data == ref`` (mode
    ``"=="``) or ``data > ref`` (``">"``), every element (``"all"``) or none (``"none"``);
    ``data`` has the mask's shape and ``ref`` its type. None as in `foreground_of`."""
    if value is not None:
        v = np.array(value, np.int64).astype(mask.dtype)
        if int(v.astype(np.int64).astype(np.int32)) != value:
            return None
        if mask.dtype.kind == "b":  # as bytes (0 or 1), for the compiled scan
            return mask.view(np.uint8), "==", np.uint8(v)
        return mask, "==", v[()]
    thr = np.float32(threshold)
    if mask.dtype.kind in "biu" and mask.dtype.itemsize <= 2:
        # for an integer x, x > t is x > floor(t): one comparison in the mask's own type
        # (against a float32, numpy would convert every element first)
        data = mask.view(np.uint8) if mask.dtype.kind == "b" else mask
        info = np.iinfo(data.dtype)
        t = float(thr)
        if math.isnan(t) or t >= info.max:  # NaN, or above every element
            return data, "none", None
        if t < info.min:
            return data, "all", None
        return data, ">", data.dtype.type(math.floor(t))
    if mask.dtype.kind == "f":
        return mask, ">", thr
    return mask.astype(np.float32), ">", thr  # C++ compares int32/int64 converted to float


@functools.cache
def _pick_kernel() -> Any:
    """The compiled scan of `_pick`, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def pick(data: np.ndarray, equal: bool, ref: Any, u: float) -> int:  # pragma: no cover
        # one pass counts the foreground of each block of 256 elements (a fixed-length loop
        # the compiler vectorises); the k-th element is then looked for in its block only
        n = data.size
        full = n >> 8
        blocks = np.empty(full + 1, np.int64)
        for b in range(full + 1):
            base = b << 8
            c = 0
            if b < full:
                if equal:
                    for j in range(256):
                        c += data[base + j] == ref
                else:
                    for j in range(256):
                        c += data[base + j] > ref
            else:
                for j in range(base, n):
                    c += (data[j] == ref) if equal else (data[j] > ref)
            blocks[b] = c
        count = blocks.sum()
        if count == 0:
            return -1
        k = min(int(u * count), count - 1)
        seen = 0
        b = 0
        while seen + blocks[b] <= k:
            seen += blocks[b]
            b += 1
        for i in range(b << 8, n):
            if (data[i] == ref) if equal else (data[i] > ref):
                if seen == k:
                    return i
                seen += 1
        return -1

    return pick


def _pick(mask: np.ndarray, value: int | None, threshold: float, u: float) -> int | None:
    """The flat index of the foreground element ``u`` (uniform in [0, 1)) picks: the
    ``min(int(u * count), count - 1)``-th of the ``count`` in raster order; None when there
    is no foreground (or no `foreground_of`). With Numba, one scan that makes no index array
    of every foreground element (most of the time of an ``np.flatnonzero``)."""
    pred = _predicate(mask, value, threshold)
    if pred is None:
        return None
    data, mode, ref = pred
    n = data.size
    if mode == "none" or n == 0:
        return None
    if mode == "all":
        return min(int(u * n), n - 1)
    kernel = _pick_kernel()
    if kernel is None:
        where = np.flatnonzero(data == ref if mode == "==" else data > ref)
        if not where.size:
            return None
        return int(where[min(int(u * where.size), where.size - 1)])
    i = int(kernel(np.ascontiguousarray(data).reshape(-1), mode == "==", ref, u))
    return None if i < 0 else i


@register(
    "segmentation.random_mask_pixel",
    class_name="RandomMaskPixel",
    devices=("cpu",),
    inputs=1,
    input_names=("input",),
    random=True,
    args=[
        Arg("value", "int", tensor=True, doc="Foreground: the elements equal to this."),
        Arg("threshold", "float", default=0.0, tensor=True, doc="Foreground: elements above."),
        Arg("foreground", "int", default=0, tensor=True, doc="Nonzero: draw from foreground."),
    ],
)
class RandomMaskPixel(Operator):
    """Random coordinates of an element of a mask, of a foreground one when ``foreground``."""

    def setup(self) -> None:
        if self.has_arg("value") and self.has_arg("threshold"):
            raise self.arg_error(
                "value", "Arguments ``value`` and ``threshold`` can not be provided together"
            )

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        n = ws.batch_size
        ndim = tl.sample_ndim
        if n and tl.np_dtype not in _MASK_TYPES:
            raise self.error(f"Unexpected data type: {type_name(dali_dtype(tl.np_dtype))}")
        foreground = ws.arg_scalars("foreground", np.int64)
        has_value = self.has_arg("value")
        values = ws.arg_scalars("value", np.int64) if has_value else None
        thresholds = ws.arg_scalars("threshold", np.float64)
        u = ws.rng.uniform(ndim + 1, stream=_STREAM)
        samples = tl.samples()
        # every element a candidate: each coordinate uniform in [0, extent), the whole batch
        shapes = np.array(tl.shape(), np.int64).reshape(n, ndim)
        out = np.minimum((u[:, 1:] * shapes).astype(np.int64), np.maximum(shapes - 1, 0))

        def one(i: int) -> np.ndarray | None:
            if not foreground[i]:
                return None
            mask = samples[i]
            v = int(values[i]) if values is not None else None
            at = _pick(mask, v, float(thresholds[i]), float(u[i, 0]))
            if at is None:
                return None
            return np.array(np.unravel_index(at, mask.shape), np.int64)

        if foreground.any():
            for i, pos in enumerate(ws.map(one)):
                if pos is not None:
                    out[i] = pos
        return TensorListCPU.wrap(out, "")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        shape = node.inputs[0].static_shape
        nd = len(shape) if shape is not None else None
        return [{"dtype": DALIDataType.INT64, "ndim": 1, "layout": "", "static_shape": (nd,)}]
