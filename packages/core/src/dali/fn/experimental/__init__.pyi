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
    "dilate",
    "erode",
    "filter",
    "inflate",
    "inputs",
    "median_blur",
    "peek_image_shape",
    "readers",
    "tensor_resize",
]

@overload
def dilate(
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
    """

@overload
def dilate(
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
    """

@overload
def erode(
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
    """

@overload
def erode(
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
    """

@overload
def median_blur(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> DataNode:
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
    """

@overload
def median_blur(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
    window_size: Sequence[int] | int | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
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
    """

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.filter` is now deprecated. Use `dali.fn.filter` instead."
)
def filter(
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
    """WARNING: `dali.fn.experimental.filter` is now deprecated. Use `dali.fn.filter` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.filter` is now deprecated. Use `dali.fn.filter` instead."
)
def filter(
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
    """WARNING: `dali.fn.experimental.filter` is now deprecated. Use `dali.fn.filter` instead."""

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
