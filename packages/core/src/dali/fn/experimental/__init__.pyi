# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.experimental` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike, DTypeLike
from typing_extensions import deprecated

from dali.fn.experimental import decoders as decoders
from dali.fn.experimental import inputs as inputs
from dali.fn.experimental import readers as readers
from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType, DALIInterpType

__all__ = [
    "decoders",
    "inflate",
    "inputs",
    "peek_image_shape",
    "readers",
    "tensor_resize",
]

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."
)
def inflate(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    algorithm: str | PathLike[str] | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    check_output_size: bool | None = ...,
    chunk_offsets: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    chunk_sizes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    layout: str | None = ...,
    preserve: bool | None = ...,
    sequence_axis_name: str | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike,
) -> DataNode:
    """WARNING: `dali.fn.experimental.inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."
)
def inflate(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    algorithm: str | PathLike[str] | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    check_output_size: bool | None = ...,
    chunk_offsets: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    chunk_sizes: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    layout: str | None = ...,
    preserve: bool | None = ...,
    sequence_axis_name: str | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.peek_image_shape` is now deprecated. Use `dali.fn.peek_image_shape` instead."
)
def peek_image_shape(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    preserve: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.peek_image_shape` is now deprecated. Use `dali.fn.peek_image_shape` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.peek_image_shape` is now deprecated. Use `dali.fn.peek_image_shape` instead."
)
def peek_image_shape(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    preserve: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.peek_image_shape` is now deprecated. Use `dali.fn.peek_image_shape` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.tensor_resize` is now deprecated. Use `dali.fn.tensor_resize` instead."
)
def tensor_resize(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    alignment: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    antialias: bool | None = ...,
    axes: Sequence[int] | int | None = ...,
    axis_names: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    scales: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    size_rounding: str | PathLike[str] | None = ...,
    sizes: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.tensor_resize` is now deprecated. Use `dali.fn.tensor_resize` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.tensor_resize` is now deprecated. Use `dali.fn.tensor_resize` instead."
)
def tensor_resize(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    alignment: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    antialias: bool | None = ...,
    axes: Sequence[int] | int | None = ...,
    axis_names: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    scales: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    size_rounding: str | PathLike[str] | None = ...,
    sizes: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.tensor_resize` is now deprecated. Use `dali.fn.tensor_resize` instead."""
