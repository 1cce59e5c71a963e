# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.decoders` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import overload

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType

__all__ = [
    "Audio",
    "Image",
    "ImageCrop",
    "ImageRandomCrop",
    "ImageSlice",
    "Inflate",
    "Numpy",
    "Video",
]

class Audio:
    """Decodes waveforms from encoded audio data.

    It supports the following audio formats: WAV, FLAC, and OGG (including both OGG Vorbis
    and OGG Opus), and the other formats libsndfile reads.

    This operator produces the following outputs:

    * output[0]: A batch of decoded data: ``(frames, channels)``, or ``(frames,)`` with
      ``downmix=True``.
    * output[1]: A batch of sampling rates [Hz] (float scalars): the files', or
      ``sample_rate`` when it is given.

    ``sample_rate`` resamples each clip whose rate differs with a Hann-windowed sinc filter
    (``quality``: 0 gives 3 lobes, 50 gives 16 lobes, 100 gives 64 lobes), the filter of
    `fn.audio_resample`.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        downmix (bool, default False): Average all channels into one (1-D output).
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Output type: INT16, INT32, FLOAT.
        sample_rate (float, default 0.0, per-sample): If given, the target rate in Hz the audio is resampled to.
        quality (float, default 50.0): Resampling quality 0..100 (3..64 sinc lobes).

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> None:
        """Set the arguments of `Audio`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        input: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        input: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        sample_rate: float | DataNode | ArrayLike | None = ...,
    ) -> list[list[DataNode]]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Image:
    """Decodes images (JPEG, JPEG 2000, TIFF, PNG, BMP, PNM, WebP) to HWC.

    The output is HWC with 3 channels for RGB, BGR and YCbCr, 1 for GRAY and the native count for
    ANY_DATA; ``dtype`` rescales to the type's range (FLOAT: [0, 1]). EXIF orientation is applied
    unless ``adjust_orientation=False``.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        output_type (image_type, default <DALIImageType.RGB: 0>): Colour space of the output.
        dtype (dtype, default <DALIDataType.UINT8: 0>): Output type; values are rescaled.
        adjust_orientation (bool, default True): Apply the EXIF orientation.
        use_fast_idct (bool, default False): Accepted; the CPU decode is always exact.
        jpeg_fancy_upsampling (bool, default False): Mixed backend only.
        hw_decoder_load (float, default 0.65): Mixed backend: share of JPEGs for the hardware decoder (unset: a measured default).
        preallocate_width_hint (int, default 0): Mixed backend only.
        preallocate_height_hint (int, default 0): Mixed backend only.
        hybrid_huffman_threshold (int, default 1000000): Mixed backend only.
        device_memory_padding (int, default 16777216): Mixed backend only.
        host_memory_padding (int, default 8388608): Mixed backend only.
        device_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        host_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        affine (bool, default True): Mixed backend only.
        memory_stats (bool, default False): Deprecated, ignored.
        split_stages (bool, default False): Deprecated, ignored.
        use_chunk_allocator (bool, default False): Deprecated, ignored.
        on_error (str, default 'raise'): Extension: "raise" (default) or "skip" undecodable samples (dropped and counted).
        cache_size (int, default 0): Mixed backend only.
        cache_threshold (int, default 0): Mixed backend only.
        cache_type (str, default ''): Mixed backend only.
        cache_debug (bool, default False): Mixed backend only.
        cache_batch_copy (bool, default True): Mixed backend only.

    Devices: cpu, mixed. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `Image`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class ImageCrop:
    """Decodes images and extracts a fixed-size window at a relative anchor (like ``fn.crop``).

    The window is ``crop=(h, w)`` (or ``crop_h``/``crop_w``) placed at
    ``round(crop_pos · (extent − size))``, as `fn.crop` does on the decoded image.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        output_type (image_type, default <DALIImageType.RGB: 0>): Colour space of the output.
        dtype (dtype, default <DALIDataType.UINT8: 0>): Output type; values are rescaled.
        adjust_orientation (bool, default True): Apply the EXIF orientation.
        use_fast_idct (bool, default False): Accepted; the CPU decode is always exact.
        jpeg_fancy_upsampling (bool, default False): Mixed backend only.
        hw_decoder_load (float, default 0.65): Mixed backend: share of JPEGs for the hardware decoder (unset: a measured default).
        preallocate_width_hint (int, default 0): Mixed backend only.
        preallocate_height_hint (int, default 0): Mixed backend only.
        hybrid_huffman_threshold (int, default 1000000): Mixed backend only.
        device_memory_padding (int, default 16777216): Mixed backend only.
        host_memory_padding (int, default 8388608): Mixed backend only.
        device_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        host_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        affine (bool, default True): Mixed backend only.
        memory_stats (bool, default False): Deprecated, ignored.
        split_stages (bool, default False): Deprecated, ignored.
        use_chunk_allocator (bool, default False): Deprecated, ignored.
        on_error (str, default 'raise'): Extension: "raise" (default) or "skip" undecodable samples (dropped and counted).
        crop (float_vec, optional, per-sample): Window size (H, W) or (D, H, W).
        crop_h (float, default 0.0, per-sample): Window height (0: whole height).
        crop_w (float, default 0.0, per-sample): Window width (0: whole width).
        crop_d (float, default 0.0, per-sample): Window depth (volumes, sequences).
        crop_pos_x (float, default 0.5, per-sample): Normalised horizontal start.
        crop_pos_y (float, default 0.5, per-sample): Normalised vertical start.
        crop_pos_z (float, default 0.5, per-sample): Normalised depth start.
        rounding (str, default 'round'): "round" (half away from zero) or "truncate".
        out_of_bounds_policy (str, default 'error'): "error", "pad" (fill with fill_values) or "trim_to_shape".
        fill_values (float_vec, default (0.0,)): Padding value(s): one, or per channel.

    Devices: cpu, mixed. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `ImageCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class ImageRandomCrop:
    """Decodes images and cuts a random window (area and aspect ratio in the given ranges).

    The window is drawn as DALI's ``RandomCropGenerator`` does, from a random stream keyed by the
    sample's identity: the same sample gets the same window whatever the batch size, number of
    threads, shards or backend. The output is not resized.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        output_type (image_type, default <DALIImageType.RGB: 0>): Colour space of the output.
        dtype (dtype, default <DALIDataType.UINT8: 0>): Output type; values are rescaled.
        adjust_orientation (bool, default True): Apply the EXIF orientation.
        use_fast_idct (bool, default False): Accepted; the CPU decode is always exact.
        jpeg_fancy_upsampling (bool, default False): Mixed backend only.
        hw_decoder_load (float, default 0.65): Mixed backend: share of JPEGs for the hardware decoder (unset: a measured default).
        preallocate_width_hint (int, default 0): Mixed backend only.
        preallocate_height_hint (int, default 0): Mixed backend only.
        hybrid_huffman_threshold (int, default 1000000): Mixed backend only.
        device_memory_padding (int, default 16777216): Mixed backend only.
        host_memory_padding (int, default 8388608): Mixed backend only.
        device_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        host_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        affine (bool, default True): Mixed backend only.
        memory_stats (bool, default False): Deprecated, ignored.
        split_stages (bool, default False): Deprecated, ignored.
        use_chunk_allocator (bool, default False): Deprecated, ignored.
        on_error (str, default 'raise'): Extension: "raise" (default) or "skip" undecodable samples (dropped and counted).
        random_area (float_vec, default (0.08, 1.0)): Range of the crop area as a fraction of the image area.
        random_aspect_ratio (float_vec, default (0.75, 1.3333333333333333)): Range of the crop aspect ratio (width / height).
        num_attempts (int, default 10): Attempts to find a window before the fallback.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, mixed. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `ImageRandomCrop`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class ImageSlice:
    """Decodes images and extracts a slice given by anchor/shape inputs or start/end arguments.

    By default the ``anchor`` and ``shape`` inputs are relative and in "WH" order (x before y);
    integer inputs are absolute. The named arguments (``start``/``rel_start`` with
    ``end``/``rel_end``/``shape``/``rel_shape``) follow `fn.slice`.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        output_type (image_type, default <DALIImageType.RGB: 0>): Colour space of the output.
        dtype (dtype, default <DALIDataType.UINT8: 0>): Output type; values are rescaled.
        adjust_orientation (bool, default True): Apply the EXIF orientation.
        use_fast_idct (bool, default False): Accepted; the CPU decode is always exact.
        jpeg_fancy_upsampling (bool, default False): Mixed backend only.
        hw_decoder_load (float, default 0.65): Mixed backend: share of JPEGs for the hardware decoder (unset: a measured default).
        preallocate_width_hint (int, default 0): Mixed backend only.
        preallocate_height_hint (int, default 0): Mixed backend only.
        hybrid_huffman_threshold (int, default 1000000): Mixed backend only.
        device_memory_padding (int, default 16777216): Mixed backend only.
        host_memory_padding (int, default 8388608): Mixed backend only.
        device_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        host_memory_padding_jpeg2k (int, default 0): Mixed backend only.
        affine (bool, default True): Mixed backend only.
        memory_stats (bool, default False): Deprecated, ignored.
        split_stages (bool, default False): Deprecated, ignored.
        use_chunk_allocator (bool, default False): Deprecated, ignored.
        on_error (str, default 'raise'): Extension: "raise" (default) or "skip" undecodable samples (dropped and counted).
        start (int_vec, optional, per-sample): Absolute start coordinates.
        rel_start (float_vec, optional, per-sample): Relative start coordinates.
        end (int_vec, optional, per-sample): Absolute end coordinates.
        rel_end (float_vec, optional, per-sample): Relative end coordinates.
        shape (int_vec, optional, per-sample): Absolute shape of the slice.
        rel_shape (float_vec, optional, per-sample): Relative shape of the slice.
        axes (int_vec, default (1, 0)): Dimensions the coordinates refer to.
        axis_names (layout, default 'WH'): Same, by layout name (takes priority).
        normalized_anchor (bool, default True): Float anchor input is relative.
        normalized_shape (bool, default True): Float shape input is relative.
        out_of_bounds_policy (str, default 'error'): "error", "pad" (fill with fill_values) or "trim_to_shape".
        fill_values (float_vec, default (0.0,)): Padding value(s): one, or per channel.

    Devices: cpu, mixed. Inputs: 1..3.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `ImageSlice`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""

class Inflate:
    """Decompresses the input using the specified decompression algorithm (LZ4 blocks).

    The input is 1-D ``uint8``; ``shape`` and ``dtype`` give what one chunk inflates to. A
    sample of several chunks (``chunk_offsets``/``chunk_sizes``) becomes their stack, with
    ``sequence_axis_name`` in front of ``layout``. DALI 2.4: GPU only; the CPU backend is an
    extension of this library, and the GPU backend decompresses on the host.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        shape (int_vec, required, per-sample): The shape of the output (inflated) chunk.
        dtype (dtype, default <DALIDataType.UINT8: 0>): The output (inflated) type.
        chunk_offsets (int_vec, optional, per-sample): Where the chunks begin in the input sample (sizes inferred if not given).
        chunk_sizes (int_vec, optional, per-sample): The sizes of the input chunks (densely packed if no offsets are given).
        algorithm (str, default 'LZ4'): The decompression algorithm: "LZ4".
        layout (layout, default ''): Layout of the output (inflated) chunk.
        sequence_axis_name (layout, default 'F'): The name of the chunks' axis (with layout, for samples of chunks).
        check_output_size (bool, default False): A chunk that inflates to more than the output chunk is an error.

    Devices: cpu, gpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
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

class Numpy:
    """Decodes NumPy arrays from the bytes of serialized ``.npy`` files.

    Each input sample is one file's bytes (1-D ``uint8``); each output sample is its array, C
    order, with the file's type, or converted to ``dtype``. All samples of a batch must have
    the same number of dimensions and, without ``dtype``, the same type. Format version 1.0,
    C or Fortran order, little-endian ``bool``, integer and float types.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        dtype (dtype, optional): Output type (samples are converted to it); inferred from the data if not set.

    Devices: cpu. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> None:
        """Set the arguments of `Numpy`; the call may give any of them too."""
    @overload
    def __call__(
        self,
        data: DataNode | ArrayLike,
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
        data: list[DataNode],
        /,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        preserve: bool | None = ...,
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Video:
    """Decodes in-memory video files into frame sequences (CPU: PyAV; mixed: NVDEC).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        frames (int_vec, optional, per-sample): Frame numbers to decode (any order).
        start_frame (int, optional, per-sample): First frame (default 0).
        end_frame (int, optional, per-sample): End of the frames (exclusive).
        sequence_length (int, optional, per-sample): Number of frames from start_frame.
        stride (int, optional, per-sample): Distance between frames (default 1).
        pad_mode (str, default 'constant'): none, constant, edge, reflect_*.
        fill_value (int_vec, default [0]): Colour of constant padding frames.
        build_index (bool, default True): Accepted (an index is always built).
        affine (bool, default True): Accepted (thread pinning; no effect).

    Devices: cpu, mixed. Inputs: 1..1.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
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
    ) -> None:
        """Set the arguments of `Video`; the call may give any of them too."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
    @overload
    def __call__(
        self,
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
        """Add the operator to the pipeline being defined; returns its outputs."""
