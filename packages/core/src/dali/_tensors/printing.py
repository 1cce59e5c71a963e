"""Printing samples and batches as DALI does (its ``_tensor_formatting``).

The data first (the first and last samples only when there are many large ones), then dtype,
layout, device and shape.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from dali._tensors.base import _TensorBase, _TensorListBase

_INDENT = " " * 4
_EDGE = 2


def _join(items: list[str], sep: str, crop: bool) -> str:
    if crop and len(items) > 2 * _EDGE + 1:
        items = [*items[:_EDGE], "...", *items[-_EDGE:]]
    return sep.join(items)


def _format_tensor(t: _TensorBase, show_data: bool) -> str:
    params = []
    if show_data:
        params.append(np.array2string(t._host(), prefix=_INDENT, edgeitems=_EDGE))
    params.append(f"dtype={t.dtype}")
    if t._layout:
        params.append(f'layout="{t._layout}"')
    params += [f'device="{t._device}"', f"shape={tuple(t._array.shape)})"]
    return f"{type(t).__name__}(\n{_INDENT}" + f",\n{_INDENT}".join(params)


def _format_batch(tl: _TensorListBase, show_data: bool) -> str:
    shapes = tl.shape()
    n = len(shapes)
    params = []
    if show_data:
        data_str = "[]"
        if n:
            # Print only the first and last samples when there are many large ones.
            crop = n > 2 * _EDGE + 1 and sum(max(math.prod(s), 1) for s in shapes) > 1000
            indices = [*range(_EDGE), *range(n - _EDGE, n)] if crop else range(n)
            arrays = tl._host_samples(indices)
            ndim = arrays[0].ndim
            sep = ", " if ndim == 0 else ",\n" + "\n" * (ndim - 1) + _INDENT
            strs = [np.array2string(a, prefix=_INDENT, edgeitems=_EDGE) for a in arrays]
            if crop:
                strs = [*strs[:_EDGE], "...", *strs[_EDGE:]]
            data_str = f"[{sep.join(strs)}]"
        params.append(data_str)
    shape_crop = n > 16 or (n > 2 * _EDGE + 1 and n * len(shapes[0]) > 100)
    shape_strs = [str(s) for s in shapes]
    shape_str = _join(shape_strs, ", ", shape_crop)
    if len(shape_str) > 75:  # one shape per line
        shape_str = _join(shape_strs, ", \n" + _INDENT + " " * len("shape=["), shape_crop)
    params.append(f"dtype={tl.dtype}")
    if tl._layout:
        params.append(f'layout="{tl._layout}"')
    params += [f'device="{tl._device}"', f"num_samples={n}", f"shape=[{shape_str}])"]
    return f"{type(tl).__name__}(\n{_INDENT}" + f",\n{_INDENT}".join(params)
