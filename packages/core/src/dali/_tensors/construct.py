"""The public batch constructors' work, shared by `TensorListCPU` and `TensorListGPU`.

``TensorList*(data, layout)`` shares another batch of the same kind, copies a list of samples
into one fresh contiguous buffer (checking that their types and ranks agree, as DALI does), or
wraps an array whose first axis is the batch axis (`init_batch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dali._dtypes import type_name
from dali._tensors.base import (
    _FLOAT32,
    BatchMismatchError,
    _check_layout,
    _TensorBase,
    _TensorListBase,
)

__all__ = ["init_batch"]


def init_batch(
    tl: _TensorListBase,
    data: Any,
    layout: str | None,
    same_type: type[_TensorListBase],
    convert: Any,
    device: str,
) -> None:
    """The public constructor of a batch: share another batch of ``same_type``, copy a list of
    samples, or wrap an array whose first axis is the batch axis.

    ``convert`` views one object as a C-contiguous array of the batch's device (``device``:
    ``"CPU"`` or ``"GPU"``, for messages).
    """
    if isinstance(data, same_type):
        _share(tl, data, layout)
        return
    if isinstance(data, (list, tuple)):
        samples = [_sample_from(x, i, convert, device) for i, x in enumerate(data)]
        _from_samples(tl, samples, data, layout)
        return
    arr = convert(data)
    if arr.ndim == 0:
        raise RuntimeError(
            'Assert on "info.shape.size() > 0" failed: Cannot create TensorList from 0-dim array.'
        )
    _init_dense(tl, arr, layout)


def _share(tl: _TensorListBase, src: _TensorListBase, layout: str | None) -> None:
    tl._dense_arr = src._dense_arr
    tl._slist = src._slist
    tl._lazy_shapes = src._lazy_shapes
    tl._flat_buf = src._flat_buf
    tl.np_dtype = src.np_dtype
    tl.sample_ndim = src.sample_ndim
    tl._source_info = src._source_info
    tl._layout = (
        src._layout if layout is None else _check_layout(layout, src.sample_ndim, "TensorList")
    )


def _init_dense(tl: _TensorListBase, arr: Any, layout: str | None) -> None:
    tl._dense_arr = arr
    tl._sample_list = None
    tl._flat_buf = None
    tl.np_dtype = arr.dtype
    tl.sample_ndim = arr.ndim - 1
    tl._source_info = None
    tl._layout = _check_layout(layout, tl.sample_ndim, "TensorList")


def _sample_from(x: Any, i: int, convert: Any, device: str) -> Any:
    try:
        return convert(x)
    except (TypeError, ValueError, RuntimeError, BufferError) as e:
        raise TypeError(
            f"Object at position {i} cannot be converted to Tensor{device}. ({e})"
        ) from e


def _from_samples(
    tl: _TensorListBase, samples: list[Any], originals: Sequence[Any], layout: str | None
) -> None:
    """Copy the samples into one contiguous buffer, checking they agree (DALI copies too)."""
    if samples:
        dtype, ndim = samples[0].dtype, samples[0].ndim
        for i, s in enumerate(samples):
            if s.dtype != dtype:
                raise BatchMismatchError(
                    f"Tensors cannot have different data types. Tensor at position {i} has type "
                    f"'{type_name(s.dtype)}' expected to have type '{type_name(dtype)}'."
                )
            if s.ndim != ndim:
                raise BatchMismatchError(
                    f"Tensors cannot have different numbers of dimensions. Tensor at position {i} "
                    f"has {s.ndim} dimensions, expected {ndim}."
                )
    else:
        dtype, ndim = _FLOAT32, len(layout or "")
    first = originals[0] if originals else None
    if layout is None and isinstance(first, _TensorBase):
        layout = first._layout
    infos = [x._source_info if isinstance(x, _TensorBase) else "" for x in originals]
    tl._dense_arr = None
    tl._sample_list = list(samples)
    tl._flat_buf = None
    tl.np_dtype = dtype
    tl.sample_ndim = ndim
    tl._source_info = infos if any(infos) else None
    tl._layout = _check_layout(layout, ndim, "TensorList")
    if samples:
        # Copy into one fresh buffer (stacked when uniform), as DALI does: later changes to
        # the inputs do not show through, and the batch is contiguous.
        tl._contiguous_flat()
