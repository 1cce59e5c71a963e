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
    "Dilate",
    "Erode",
    "Filter",
    "Inflate",
    "MedianBlur",
    "PeekImageShape",
    "TensorResize",
    "decoders",
    "inputs",
    "readers",
]

class Dilate:
    """Dilation: every pixel (per channel) becomes the maximum over the structuring element
    (a ``mask_size`` rectangle, ``(width, height)``, placed with its ``anchor`` point on the
    pixel; ``-1``: the centre), ``iterations`` times.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``; ``mask_size`` and
    ``anchor`` per sample or per frame. ``border_mode``: ``"constant"`` (the default; the
    outside never wins), ``"replicate"``, ``"reflect"``, ``"reflect_101"`` or ``"wrap"``.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``dilate``).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mask_size (int_or_int_vec, default (3, 3), per-sample): Size of the structuring element, (width, height) or one value for both.
        anchor (int_or_int_vec, default (-1, -1), per-sample): Anchor of the structuring element, (x, y); -1: its centre.
        iterations (int, default 1): How many times the operation is applied.
        border_mode (str, default 'constant'): 'constant' (the outside never wins), 'replicate', 'reflect', 'reflect_101' or 'wrap'.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Dilate`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Erode:
    """Erosion: every pixel (per channel) becomes the minimum over the structuring element
    (a ``mask_size`` rectangle, ``(width, height)``, placed with its ``anchor`` point on the
    pixel; ``-1``: the centre), ``iterations`` times.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``; ``mask_size`` and
    ``anchor`` per sample or per frame. ``border_mode``: ``"constant"`` (the default; the
    outside never wins), ``"replicate"``, ``"reflect"``, ``"reflect_101"`` or ``"wrap"``.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``erode``).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        mask_size (int_or_int_vec, default (3, 3), per-sample): Size of the structuring element, (width, height) or one value for both.
        anchor (int_or_int_vec, default (-1, -1), per-sample): Anchor of the structuring element, (x, y); -1: its centre.
        iterations (int, default 1): How many times the operation is applied.
        border_mode (str, default 'constant'): 'constant' (the outside never wins), 'replicate', 'reflect', 'reflect_101' or 'wrap'.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Erode`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border_mode: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        iterations: int | None = ...,
        mask_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class MedianBlur:
    """Median blur: every pixel (per channel) becomes the median of the ``window_size``
    window centred on it; the edges are repeated beyond the image.

    Input: images ``HW``, ``HWC``, ``CHW`` or sequences ``FHWC``, ``FCHW``. ``window_size``:
    ``(width, height)`` or one value for both (odd, greater than 1), per sample or per frame.
    DALI has only the GPU backend; the CPU backend is an extension (OpenCV's ``medianBlur``
    for square windows where OpenCV supports them, numpy otherwise).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        window_size (int_or_int_vec, default (3, 3), per-sample): Size of the window, (width, height) or one value for both; odd, > 1.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `MedianBlur`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input_0: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input_0: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        preserve: bool | None = ...,
        window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

@deprecated(
    "WARNING: `dali.ops.experimental.Filter` is now deprecated. Use `dali.fn.filter` instead."
)
class Filter:
    """WARNING: `dali.ops.experimental.Filter` is now deprecated. Use `dali.fn.filter` instead."""
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Filter`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        filter: DataNode | ArrayLike,
        fill_value: DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode] | DataNode | ArrayLike,
        filter: list[DataNode] | DataNode | ArrayLike,
        fill_value: list[DataNode] | DataNode | ArrayLike = ...,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        anchor: Sequence[int] | int | DataNode | ArrayLike | None = ...,
        border: str | PathLike[str] | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        mode: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

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
