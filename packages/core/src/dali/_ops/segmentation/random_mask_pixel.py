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
    if value is not None:
        v = np.array(value, np.int64).astype(mask.dtype)
        if int(v.astype(np.int64).astype(np.int32)) != value:
            return None
        out: np.ndarray = mask == v
        return out
    thr = np.float32(threshold)
    if mask.dtype.kind == "f" or mask.dtype.itemsize <= 2:
        return mask > thr  # exact: these elements convert to float32 without rounding
    return mask.astype(np.float32) > thr  # C++ compares int32/int64 converted to float


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

        def one(i: int) -> np.ndarray:
            mask = samples[i]
            shape = np.array(mask.shape, np.int64)
            if foreground[i]:
                v = int(values[i]) if values is not None else None
                fg = foreground_of(mask, v, float(thresholds[i]))
                if fg is not None:
                    where = np.flatnonzero(fg)
                    if where.size:
                        k = min(int(u[i, 0] * where.size), where.size - 1)
                        return np.array(np.unravel_index(where[k], mask.shape), np.int64)
            # every element is a candidate: each coordinate uniform in [0, extent)
            return np.minimum((u[i, 1:] * shape).astype(np.int64), np.maximum(shape - 1, 0))

        out = np.array(ws.map(one), np.int64).reshape(n, ndim)
        return TensorListCPU.wrap(out, "")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        shape = node.inputs[0].static_shape
        nd = len(shape) if shape is not None else None
        return [{"dtype": DALIDataType.INT64, "ndim": 1, "layout": "", "static_shape": (nd,)}]
