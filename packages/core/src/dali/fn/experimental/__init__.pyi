# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.experimental` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import Literal, overload

from numpy.typing import ArrayLike, DTypeLike
from typing_extensions import deprecated

from dali.fn.experimental import decoders as decoders
from dali.fn.experimental import inputs as inputs
from dali.fn.experimental import readers as readers
from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType, DALIInterpType

__all__ = [
    "audio_resample",
    "debayer",
    "decoders",
    "dilate",
    "equalize",
    "erode",
    "filter",
    "inflate",
    "inputs",
    "median_blur",
    "peek_image_shape",
    "readers",
    "remap",
    "resize",
    "tensor_resize",
    "warp_perspective",
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
def remap(
    input: DataNode | ArrayLike,
    mapx: DataNode | ArrayLike,
    mapy: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    interp: DALIInterpType | int | None = ...,
    pixel_origin: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
) -> DataNode:
    """The remap operation applies a generic geometrical transformation to an image.

    In other words, it takes pixels from one place in the input image and puts them in another
    place in the output image. The transformation is described by ``mapx`` and ``mapy``
    parameters, where: ``output(x,y) = input(mapx(x,y),mapy(x,y))``. The type of the output
    tensor will match the type of the input tensor. Handles only HWC layout (and FHWC
    sequences, with one map per sample or per frame). Picking a border policy is not
    supported: the border is always ``CONSTANT`` with the value ``0``. ``pixel_origin``
    (``"corner"`` or ``"center"``) says which part of a pixel is its position; to match
    OpenCV, pick ``"center"``. (DALI 2.4 runs it on the GPU only; here on the CPU too.)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        interp (interp_type, default 1): Interpolation type: INTERP_NN or INTERP_LINEAR (default).
        pixel_origin (str, default 'corner'): Pixel origin: "corner" (default) or "center" (OpenCV's convention).

    Devices: cpu, gpu. Inputs: 3..3.
    """

@overload
def remap(
    input: list[DataNode] | DataNode | ArrayLike,
    mapx: list[DataNode] | DataNode | ArrayLike,
    mapy: list[DataNode] | DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    interp: DALIInterpType | int | None = ...,
    pixel_origin: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
) -> DataNode | list[DataNode]:
    """The remap operation applies a generic geometrical transformation to an image.

    In other words, it takes pixels from one place in the input image and puts them in another
    place in the output image. The transformation is described by ``mapx`` and ``mapy``
    parameters, where: ``output(x,y) = input(mapx(x,y),mapy(x,y))``. The type of the output
    tensor will match the type of the input tensor. Handles only HWC layout (and FHWC
    sequences, with one map per sample or per frame). Picking a border policy is not
    supported: the border is always ``CONSTANT`` with the value ``0``. ``pixel_origin``
    (``"corner"`` or ``"center"``) says which part of a pixel is its position; to match
    OpenCV, pick ``"center"``. (DALI 2.4 runs it on the GPU only; here on the CPU too.)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        interp (interp_type, default 1): Interpolation type: INTERP_NN or INTERP_LINEAR (default).
        pixel_origin (str, default 'corner'): Pixel origin: "corner" (default) or "center" (OpenCV's convention).

    Devices: cpu, gpu. Inputs: 3..3.
    """

@overload
def resize(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: Literal[False] | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> DataNode:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def resize(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: Literal[True],
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> list[DataNode]:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def resize(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: bool | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> DataNode | list[DataNode]:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def resize(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: Literal[False] | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> list[DataNode]:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def resize(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: Literal[True],
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> list[list[DataNode]]:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def resize(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    antialias: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    image_type: DALIImageType | int | None = ...,
    interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    max_size: Sequence[float] | float | None = ...,
    min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
    minibatch_size: int | None = ...,
    mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    resize_longer: float | DataNode | ArrayLike | None = ...,
    resize_shorter: float | DataNode | ArrayLike | None = ...,
    resize_x: float | DataNode | ArrayLike | None = ...,
    resize_y: float | DataNode | ArrayLike | None = ...,
    resize_z: float | DataNode | ArrayLike | None = ...,
    roi_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    roi_relative: bool | None = ...,
    roi_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    save_attrs: bool | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    subpixel_scale: bool | None = ...,
    temp_buffer_hint: int | None = ...,
) -> list[DataNode | list[DataNode]]:
    """Resize images (DALI 2.4's GPU-only ``experimental.resize``): `fn.resize` itself, with
    the same arguments, outputs and results.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        resize_x (float, default 0.0, per-sample): Output width (0: from others).
        resize_y (float, default 0.0, per-sample): Output height.
        resize_z (float, default 0.0, per-sample): Output depth (volumes).
        size (float_vec, optional, per-sample): Output size, (H, W) or (D, H, W).
        resize_shorter (float, default 0.0, per-sample): Length of the shorter side.
        resize_longer (float, default 0.0, per-sample): Length of the longer side.
        mode (str, default 'default'): default, stretch, not_larger, not_smaller.
        max_size (float_vec, optional): Limit of the output size (one value or per axis).
        interp_type (interp_type, default 1, per-sample): Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.
        min_filter (interp_type, default 1, per-sample): Filter used when shrinking.
        mag_filter (interp_type, default 1, per-sample): Filter used when enlarging.
        antialias (bool, default True): Widen the filter when downscaling (not NN).
        dtype (dtype, optional): Output type: the input type (default) or FLOAT.
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.
        save_attrs (bool, default False): Also output the input spatial shape.
        image_type (image_type, optional): Deprecated and ignored.

    Devices: gpu. Inputs: 1..1.
    """

@overload
def warp_perspective(
    input: DataNode | ArrayLike,
    matrix_input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    border_mode: str | PathLike[str] | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    fill_value: Sequence[float] | float | None = ...,
    interp_type: DALIInterpType | int | None = ...,
    inverse_map: bool | None = ...,
    matrix: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    pixel_origin: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """Perform a perspective transform on images (HW, HWC, CHW, or sequences FHWC, FCHW).

    ``matrix`` (nine values, or the second input: a float32 ``3×3`` tensor per sample) maps
    destination to source coordinates (``inverse_map=False``: source to destination), like
    OpenCV's ``warpPerspective`` with ``WARP_INVERSE_MAP``. ``pixel_origin="corner"`` puts
    ``(0, 0)`` at the corner of the first pixel, ``"center"`` at its centre (OpenCV).
    ``size`` sets the output's (H, W) (rounded, at least 1); pixels mapped outside the input
    follow ``border_mode`` (``constant`` uses ``fill_value``: one value or one per channel,
    default 0). Inputs are uint8, int16, uint16 or float with at most 4 channels; the output
    has the input's type and layout. ``matrix`` may be per frame (``fn.per_frame``).

    Example: ``fn.experimental.warp_perspective(images, matrix=[1, 0, 5, 0, 1, 3, 0, 0, 1])``
    gives ``dst[y, x] = src[y + 3, x + 5]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        matrix (float_vec, optional, per-sample): 3×3 matrix, destination→source.
        size (float_vec, optional, per-sample): Output size (H, W); default: the input's.
        border_mode (str, default 'constant'): constant, replicate, reflect, ...
        fill_value (float_or_float_vec, default ()): Constant border value(s).
        interp_type (interp_type, default 1): INTERP_NN, LINEAR (default), CUBIC.
        inverse_map (bool, default True): The matrix maps destination to source.
        pixel_origin (str, default 'corner'): "corner" (default) or "center".

    Devices: cpu, gpu. Inputs: 1..2.
    """

@overload
def warp_perspective(
    input: list[DataNode] | DataNode | ArrayLike,
    matrix_input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    border_mode: str | PathLike[str] | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    fill_value: Sequence[float] | float | None = ...,
    interp_type: DALIInterpType | int | None = ...,
    inverse_map: bool | None = ...,
    matrix: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    pixel_origin: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    size: Sequence[float] | float | DataNode | ArrayLike | None = ...,
) -> DataNode | list[DataNode]:
    """Perform a perspective transform on images (HW, HWC, CHW, or sequences FHWC, FCHW).

    ``matrix`` (nine values, or the second input: a float32 ``3×3`` tensor per sample) maps
    destination to source coordinates (``inverse_map=False``: source to destination), like
    OpenCV's ``warpPerspective`` with ``WARP_INVERSE_MAP``. ``pixel_origin="corner"`` puts
    ``(0, 0)`` at the corner of the first pixel, ``"center"`` at its centre (OpenCV).
    ``size`` sets the output's (H, W) (rounded, at least 1); pixels mapped outside the input
    follow ``border_mode`` (``constant`` uses ``fill_value``: one value or one per channel,
    default 0). Inputs are uint8, int16, uint16 or float with at most 4 channels; the output
    has the input's type and layout. ``matrix`` may be per frame (``fn.per_frame``).

    Example: ``fn.experimental.warp_perspective(images, matrix=[1, 0, 5, 0, 1, 3, 0, 0, 1])``
    gives ``dst[y, x] = src[y + 3, x + 5]``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        matrix (float_vec, optional, per-sample): 3×3 matrix, destination→source.
        size (float_vec, optional, per-sample): Output size (H, W); default: the input's.
        border_mode (str, default 'constant'): constant, replicate, reflect, ...
        fill_value (float_or_float_vec, default ()): Constant border value(s).
        interp_type (interp_type, default 1): INTERP_NN, LINEAR (default), CUBIC.
        inverse_map (bool, default True): The matrix maps destination to source.
        pixel_origin (str, default 'corner'): "corner" (default) or "center".

    Devices: cpu, gpu. Inputs: 1..2.
    """

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.audio_resample` is now deprecated. Use `dali.fn.audio_resample` instead."
)
def audio_resample(
    input: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    in_rate: float | DataNode | ArrayLike | None = ...,
    out_length: int | DataNode | ArrayLike | None = ...,
    out_rate: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    quality: float | None = ...,
    scale: float | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.audio_resample` is now deprecated. Use `dali.fn.audio_resample` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.audio_resample` is now deprecated. Use `dali.fn.audio_resample` instead."
)
def audio_resample(
    input: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    in_rate: float | DataNode | ArrayLike | None = ...,
    out_length: int | DataNode | ArrayLike | None = ...,
    out_rate: float | DataNode | ArrayLike | None = ...,
    preserve: bool | None = ...,
    quality: float | None = ...,
    scale: float | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.audio_resample` is now deprecated. Use `dali.fn.audio_resample` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.debayer` is now deprecated. Use `dali.fn.debayer` instead."
)
def debayer(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    algorithm: str | PathLike[str] | None = ...,
    blue_position: Sequence[int] | int | DataNode | ArrayLike,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.debayer` is now deprecated. Use `dali.fn.debayer` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.debayer` is now deprecated. Use `dali.fn.debayer` instead."
)
def debayer(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    algorithm: str | PathLike[str] | None = ...,
    blue_position: Sequence[int] | int | DataNode | ArrayLike,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.debayer` is now deprecated. Use `dali.fn.debayer` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.equalize` is now deprecated. Use `dali.fn.equalize` instead."
)
def equalize(
    input_0: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.equalize` is now deprecated. Use `dali.fn.equalize` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.equalize` is now deprecated. Use `dali.fn.equalize` instead."
)
def equalize(
    input_0: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    preserve: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.equalize` is now deprecated. Use `dali.fn.equalize` instead."""

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
