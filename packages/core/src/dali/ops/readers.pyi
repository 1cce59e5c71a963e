# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.readers` operators (generated from the registry)."""

from collections.abc import Sequence
from os import PathLike

from dali.pipeline import DataNode

__all__ = [
    "File",
]

class File:
    """Reads file contents and returns file-label pairs.

    Three ways to name the files: ``file_root`` alone (every subfolder is a class, labelled by
    its index in sorted order), ``file_list`` (a text file of ``path label`` lines, paths
    relative to the list's folder or to ``file_root``), or ``files`` with optional ``labels``.
    Outputs ``data`` (1-D uint8, the raw bytes) and ``label`` (int32, shape ``(1,)``).

    Example:
        >>> import dali, dali.fn as fn
        >>> from dali._testing.images import make_image_tree
        >>> import tempfile
        >>> root = tempfile.mkdtemp()
        >>> _ = make_image_tree(root)
        >>> pipe = dali.Pipeline(batch_size=4, num_threads=2, device_id=None)
        >>> with pipe:
        ...     jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        ...     pipe.set_outputs(jpegs, labels)
        >>> jpegs_out, labels_out = pipe.run()
        >>> labels_out.as_array().ravel().tolist(), pipe.epoch_size("Reader")
        ([0, 0, 0, 0], 21)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        file_root (str, optional): Root folder: class subfolders, or the base of list paths.
        file_list (str, optional): Text file with one `path label` per line.
        files (str_vec, optional): File paths (relative to file_root if given).
        labels (int_vec, optional): Labels for `files` (default: the index in `files`).
        file_filters (str_vec, default ('*.jpg', '*.jpeg', '*.png', '*.bmp', '*.tif', '*.tiff', '*.pnm', '*.ppm', '*.pgm', '*.pbm', '*.jp2', '*.webp', '*.flac', '*.ogg', '*.wav')): Glob patterns for file names under file_root.
        dir_filters (str_vec, optional): Glob patterns for the class folders of file_root.
        case_sensitive_filter (bool, default False): Match filters case-sensitively.
        random_shuffle (bool, default False): Draw samples from a shuffle buffer.
        initial_fill (int, default 1024): Size of the shuffle buffer.
        shuffle_after_epoch (bool, default False): A global permutation per epoch.
        shuffle_after_epoch_seed (int, optional): Seed of the per-epoch permutations.
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
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
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
        """Set the arguments of `File`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: Sequence[int] | int | None = ...,
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
    ) -> list[DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""
