# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.experimental` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike, DTypeLike
from typing_extensions import deprecated

from dali.ops.experimental import decoders as decoders
from dali.ops.experimental import inputs as inputs
from dali.ops.experimental import readers as readers
from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType, DALIInterpType

__all__ = [
    "Inflate",
    "PeekImageShape",
    "TensorResize",
    "decoders",
    "inputs",
    "readers",
]

@deprecated(
    "WARNING: `dali.ops.experimental.Inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."
)
class Inflate:
    """WARNING: `dali.ops.experimental.Inflate` is now deprecated. Use `dali.fn.decoders.inflate` instead."""
    def __init__(
        self,
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
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Inflate`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.experimental.PeekImageShape` is now deprecated. Use `dali.fn.peek_image_shape` instead."
)
class PeekImageShape:
    """WARNING: `dali.ops.experimental.PeekImageShape` is now deprecated. Use `dali.fn.peek_image_shape` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        adjust_orientation: bool | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        image_type: DALIImageType | int | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `PeekImageShape`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.experimental.TensorResize` is now deprecated. Use `dali.fn.tensor_resize` instead."
)
class TensorResize:
    """WARNING: `dali.ops.experimental.TensorResize` is now deprecated. Use `dali.fn.tensor_resize` instead."""
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `TensorResize`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
