# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.experimental.decoders` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike, DTypeLike
from typing_extensions import deprecated

from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType

__all__ = [
    "image",
    "image_crop",
    "image_random_crop",
    "image_slice",
    "video",
]

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image` is now deprecated. Use `dali.fn.decoders.image` instead."
)
def image(
    data: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    cache_batch_copy: bool | None = ...,
    cache_debug: bool | None = ...,
    cache_size: int | None = ...,
    cache_threshold: int | None = ...,
    cache_type: str | PathLike[str] | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.decoders.image` is now deprecated. Use `dali.fn.decoders.image` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image` is now deprecated. Use `dali.fn.decoders.image` instead."
)
def image(
    data: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    cache_batch_copy: bool | None = ...,
    cache_debug: bool | None = ...,
    cache_size: int | None = ...,
    cache_threshold: int | None = ...,
    cache_type: str | PathLike[str] | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.decoders.image` is now deprecated. Use `dali.fn.decoders.image` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_crop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."
)
def image_crop(
    data: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    crop_d: float | DataNode | ArrayLike | None = ...,
    crop_h: float | DataNode | ArrayLike | None = ...,
    crop_pos_x: float | DataNode | ArrayLike | None = ...,
    crop_pos_y: float | DataNode | ArrayLike | None = ...,
    crop_pos_z: float | DataNode | ArrayLike | None = ...,
    crop_w: float | DataNode | ArrayLike | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    fill_values: Sequence[float] | float | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    out_of_bounds_policy: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    rounding: str | PathLike[str] | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.decoders.image_crop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_crop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."
)
def image_crop(
    data: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    crop: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    crop_d: float | DataNode | ArrayLike | None = ...,
    crop_h: float | DataNode | ArrayLike | None = ...,
    crop_pos_x: float | DataNode | ArrayLike | None = ...,
    crop_pos_y: float | DataNode | ArrayLike | None = ...,
    crop_pos_z: float | DataNode | ArrayLike | None = ...,
    crop_w: float | DataNode | ArrayLike | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    fill_values: Sequence[float] | float | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    out_of_bounds_policy: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    rounding: str | PathLike[str] | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.decoders.image_crop` is now deprecated. Use `dali.fn.decoders.image_crop` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_random_crop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."
)
def image_random_crop(
    data: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    num_attempts: int | None = ...,
    on_error: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    random_area: Sequence[float] | float | None = ...,
    random_aspect_ratio: Sequence[float] | float | None = ...,
    seed: int | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.decoders.image_random_crop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_random_crop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."
)
def image_random_crop(
    data: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    num_attempts: int | None = ...,
    on_error: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    random_area: Sequence[float] | float | None = ...,
    random_aspect_ratio: Sequence[float] | float | None = ...,
    seed: int | None = ...,
    split_stages: bool | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.decoders.image_random_crop` is now deprecated. Use `dali.fn.decoders.image_random_crop` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_slice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."
)
def image_slice(
    data: DataNode | ArrayLike,
    anchor: DataNode | ArrayLike = ...,
    shape_input: DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    axes: Sequence[int] | int | None = ...,
    axis_names: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    fill_values: Sequence[float] | float | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    normalized_anchor: bool | None = ...,
    normalized_shape: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    out_of_bounds_policy: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    split_stages: bool | None = ...,
    start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.decoders.image_slice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.image_slice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."
)
def image_slice(
    data: list[DataNode] | DataNode | ArrayLike,
    anchor: list[DataNode] | DataNode | ArrayLike = ...,
    shape_input: list[DataNode] | DataNode | ArrayLike = ...,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    adjust_orientation: bool | None = ...,
    affine: bool | None = ...,
    axes: Sequence[int] | int | None = ...,
    axis_names: str | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    device_memory_padding: int | None = ...,
    device_memory_padding_jpeg2k: int | None = ...,
    dtype: DALIDataType | DTypeLike | None = ...,
    end: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    fill_values: Sequence[float] | float | None = ...,
    host_memory_padding: int | None = ...,
    host_memory_padding_jpeg2k: int | None = ...,
    hw_decoder_load: float | None = ...,
    hybrid_huffman_threshold: int | None = ...,
    jpeg_fancy_upsampling: bool | None = ...,
    memory_stats: bool | None = ...,
    normalized_anchor: bool | None = ...,
    normalized_shape: bool | None = ...,
    on_error: str | PathLike[str] | None = ...,
    out_of_bounds_policy: str | PathLike[str] | None = ...,
    output_type: DALIImageType | int | None = ...,
    preallocate_height_hint: int | None = ...,
    preallocate_width_hint: int | None = ...,
    preserve: bool | None = ...,
    rel_end: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    rel_shape: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    rel_start: Sequence[float] | float | DataNode | ArrayLike | None = ...,
    shape: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    split_stages: bool | None = ...,
    start: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    use_chunk_allocator: bool | None = ...,
    use_fast_idct: bool | None = ...,
) -> DataNode | list[DataNode]:
    """WARNING: `dali.fn.experimental.decoders.image_slice` is now deprecated. Use `dali.fn.decoders.image_slice` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.video` is now deprecated. Use `dali.fn.decoders.video` instead."
)
def video(
    encoded: DataNode | ArrayLike,
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    affine: bool | None = ...,
    build_index: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    end_frame: int | DataNode | ArrayLike | None = ...,
    fill_value: Sequence[int] | int | None = ...,
    frames: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    pad_mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    sequence_length: int | DataNode | ArrayLike | None = ...,
    start_frame: int | DataNode | ArrayLike | None = ...,
    stride: int | DataNode | ArrayLike | None = ...,
) -> DataNode:
    """WARNING: `dali.fn.experimental.decoders.video` is now deprecated. Use `dali.fn.decoders.video` instead."""

@overload
@deprecated(
    "WARNING: `dali.fn.experimental.decoders.video` is now deprecated. Use `dali.fn.decoders.video` instead."
)
def video(
    encoded: list[DataNode],
    /,
    *,
    device: str | None = ...,
    name: str | None = ...,
    affine: bool | None = ...,
    build_index: bool | None = ...,
    bytes_per_sample_hint: Sequence[int] | int | None = ...,
    end_frame: int | DataNode | ArrayLike | None = ...,
    fill_value: Sequence[int] | int | None = ...,
    frames: Sequence[int] | int | DataNode | ArrayLike | None = ...,
    pad_mode: str | PathLike[str] | None = ...,
    preserve: bool | None = ...,
    sequence_length: int | DataNode | ArrayLike | None = ...,
    start_frame: int | DataNode | ArrayLike | None = ...,
    stride: int | DataNode | ArrayLike | None = ...,
) -> list[DataNode]:
    """WARNING: `dali.fn.experimental.decoders.video` is now deprecated. Use `dali.fn.decoders.video` instead."""
