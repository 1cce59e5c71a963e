# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.experimental.readers` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike
from typing import Any

from numpy.typing import DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType

__all__ = [
    "Fits",
    "Video",
]

class Fits:
    """Reads Fits image HDUs from a directory.

    This operator can be used in the following modes:

    1. Read all files from a directory indicated by ``file_root`` that match given
       ``file_filter``.
    2. Read file names from a text file indicated in ``file_list`` argument.
    3. Read files listed in ``files`` argument.
    4. Number of outputs per sample corresponds to the length of ``hdu_indices`` argument. By
       default, first HDU with data is read from each file, so the number of outputs defaults
       to 1.

    Each output sample is the image of its HDU: the HDU's type (``BSCALE``/``BZERO`` applied,
    as cfitsio does) and its axes reversed (C order), tile-compressed images decompressed.
    Needs the ``fitsio`` package.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        file_root (str, optional): Folder of the files (traversed unless files/file_list).
        file_filter (str, default '*.fits'): Glob for file names under file_root.
        file_list (str, optional): Text file with one path per line.
        files (str_vec, optional): File paths (relative to file_root if given).
        hdu_indices (int_vec, default (2,)): HDUs to read (1-based: 1 is the primary HDU); one output each.
        dtypes (dtype_vec, optional): A type per HDU index, checked but not applied (as in DALI 2.4: the outputs have the files' types).
        random_shuffle (bool, default False): Draw samples from a shuffle buffer.
        initial_fill (int, default 1024): Size of the shuffle buffer.
        shard_id (int, default 0): Index of this shard.
        num_shards (int, default 1): Number of shards the dataset is split into.
        pad_last_batch (bool, default False): Pad each shard with its last sample.
        stick_to_shard (bool, default False): Read only this shard, for ever.
        dont_use_mmap (bool, default False): Read every file (by default files of 1 MiB or more are mapped).
        read_ahead (bool, default False): Page mapped files in at once.
        lazy_init (bool, default False): Accepted (I/O tuning; no effect).
        prefetch_queue_depth (int, default 1): Accepted (I/O tuning; no effect).
        skip_cached_images (bool, default False): Accepted (no effect).
        tensor_init_bytes (int, default 1048576): Accepted (memory hint).
        shuffle_after_epoch (bool, default False): A global permutation per epoch.
        shuffle_after_epoch_seed (int, optional): Seed of the per-epoch permutations.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtypes: Sequence[DALIDataType | DTypeLike] | DALIDataType | DTypeLike | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        hdu_indices: Sequence[int] | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `Fits`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtypes: Sequence[DALIDataType | DTypeLike] | DALIDataType | DTypeLike | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        hdu_indices: Sequence[int] | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Video:
    """DALI's ``experimental.readers.video``, on the CPU and the GPU for every codec.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        filenames (str_vec, default []): Video files.
        labels (int_vec, optional): A label per file of ``filenames``.
        file_root (str, default ''): A class tree: one subdirectory per label.
        file_list (str, default ''): Lines of ``path label [start [end]]``.
        sequence_length (int, required): Frames per sequence.
        stride (int, default 1): Distance between consecutive frames of a sequence.
        step (int, default -1): Frames between the starts of consecutive sequences.
        enable_frame_num (any, default 'none'): Output frame numbers (see above).
        enable_timestamps (bool, default False): Output the frames' timestamps.
        image_type (image_type, default <DALIImageType.RGB: 0>): RGB or YCbCr.
        random_shuffle (bool, default False): Draw samples from a shuffle buffer.
        initial_fill (int, default 1024): Size of the shuffle buffer.
        shard_id (int, default 0): Index of this shard.
        num_shards (int, default 1): Number of shards the dataset is split into.
        pad_last_batch (bool, default False): Pad each shard with its last sample.
        stick_to_shard (bool, default False): Read only this shard, for ever.
        dont_use_mmap (bool, default False): Read every file (by default files of 1 MiB or more are mapped).
        read_ahead (bool, default False): Page mapped files in at once.
        lazy_init (bool, default False): Accepted (I/O tuning; no effect).
        prefetch_queue_depth (int, default 1): Accepted (I/O tuning; no effect).
        skip_cached_images (bool, default False): Accepted (no effect).
        tensor_init_bytes (int, default 1048576): Accepted (memory hint).
        pad_mode (str, default 'none'): none, constant, edge, reflect_1001/101.
        fill_value (int_vec, default [0]): Colour of constant padding frames.
        uniform_sample (bool, default False): One evenly spread sequence per file.
        file_list_format (str, default 'timestamps'): timestamps or frames.
        file_list_include_end (bool, default True): Include the end frame.
        file_list_rounding (str, default 'start_down_end_up'): Time rounding.
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_format: str | PathLike[str] | None = ...,
        file_list_include_end: bool | None = ...,
        file_list_rounding: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_mode: str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
        uniform_sample: bool | None = ...,
    ) -> None:
        """Set the arguments of `Video`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_format: str | PathLike[str] | None = ...,
        file_list_include_end: bool | None = ...,
        file_list_rounding: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: Sequence[int] | int | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_mode: str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
        uniform_sample: bool | None = ...,
    ) -> DataNode | list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
