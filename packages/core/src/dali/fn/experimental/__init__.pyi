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
from dali.types import DALIDataType, DALIImageType

__all__ = [
    "decoders",
    "inflate",
    "inputs",
    "peek_image_shape",
    "readers",
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
