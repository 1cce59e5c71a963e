# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.readers` operators (generated from the registry)."""

from collections.abc import Sequence as _Sequence
from os import PathLike
from typing import Any

from numpy.typing import ArrayLike, DTypeLike

from dali.pipeline import DataNode
from dali.types import DALIDataType, DALIImageType, DALIInterpType

__all__ = [
    "COCO",
    "Caffe",
    "Caffe2",
    "File",
    "MXNet",
    "NemoAsr",
    "Numpy",
    "Sequence",
    "TFRecord",
    "Video",
    "VideoResize",
    "Webdataset",
]

class Caffe:
    """Reads (Image, label) pairs from a Caffe LMDB.

    The records are Caffe ``Datum`` messages (what ``convert_imageset`` writes), read from
    the ``path`` databases in order, each in key order. Outputs, in this order:

    * with ``image_available``: the image, uint8: the encoded bytes (1-D), or, for a record
      with ``encoded: false``, the raw pixels shaped ``(height, width, channels)``; a record
      without image data gives an empty image;
    * with ``label_available``: the label, int32, shape ``(1,)`` (empty for a record without
      one).

    ``source_info`` is ``"<path> at key <key>"`` (on the image). Needs the ``lmdb`` package.

    Example:
        >>> import tempfile
        >>> import dali, dali.fn as fn
        >>> from dali._testing.lmdb_data import make_caffe_lmdb
        >>> path = str(make_caffe_lmdb(tempfile.mkdtemp() + "/train_lmdb", n=5))
        >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        >>> with pipe:
        ...     jpegs, labels = fn.readers.caffe(path=path, name="Reader")
        ...     pipe.set_outputs(jpegs, labels)
        >>> jpegs_out, labels_out = pipe.run()
        >>> labels_out.as_array().tolist(), pipe.epoch_size("Reader")
        ([[0], [1]], 5)
        >>> jpegs_out[1].source_info().rsplit("/", 1)[-1]
        'train_lmdb at key 00000001_img00001.jpg'

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        path (str_vec, required): List of paths to the Caffe LMDB directories.
        image_available (bool, default True): Determines whether an image is available in this LMDB.
        label_available (bool, default True): Determines whether a label is available.
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
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_available: bool | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `Caffe`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_available: bool | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Caffe2:
    """Reads sample data from a Caffe2 Lightning Memory-Mapped Database (LMDB).

    The records are Caffe2 ``TensorProtos`` messages (lists of tensors), read from the
    ``path`` databases in order, each in key order. Outputs, in this order:

    * with ``image_available``: the image, uint8, from the record's first tensor: a
      ``STRING`` tensor's encoded bytes (1-D), or a ``BYTE`` tensor's raw pixels shaped
      ``(H, W, C)`` by its dims (``[H, W]``: ``C = 1``);
    * the label, from the next tensor (``FLOAT``: float32, ``INT32``: int32), by
      ``label_type``: 0, one value, shape ``(1,)``; 1, the active class indices as a
      multi-hot vector of ``num_labels`` values; 2, the vector as stored; 3, a float32
      multi-hot vector of the weights held by the tensor after the indices; 4: no label
      output;
    * ``additional_inputs`` outputs, one per further tensor (FLOAT, INT32 or INT64, 1-D),
      after the weights of type 3 (type 1 skips one tensor there too, as DALI does);
    * with ``bbox``: the record's last tensor (INT32, 4 values). With sparse labels (1, 3)
      DALI counts two label outputs and returns that last tensor as the last output: a record
      must end with one, and ``bbox`` must be False.

    ``source_info`` is ``"<path> at key <key>"`` (on the image). Needs the ``lmdb`` package.

    Example:
        >>> import tempfile
        >>> import dali, dali.fn as fn
        >>> from dali._testing.lmdb_data import Caffe2Layout, make_caffe2_lmdb
        >>> layout = Caffe2Layout(label_type=1, num_labels=5)
        >>> path = str(make_caffe2_lmdb(tempfile.mkdtemp(), n=4, layout=layout))
        >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        >>> with pipe:
        ...     images, labels, boxes = fn.readers.caffe2(path=path, label_type=1, num_labels=5)
        ...     pipe.set_outputs(labels, boxes)
        >>> labels_out, boxes_out = pipe.run()
        >>> labels_out.as_array().shape, boxes_out.as_array()[1].tolist()
        ((2, 5), [1, 2, 11, 22])

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        path (str_vec, required): List of paths to the Caffe2 LMDB directories.
        num_labels (int, default 1): Number of classes in the dataset. Required when sparse labels are used.
        label_type (int, default 0): Type of label stored in dataset: 0 = SINGLE_LABEL (one integer label), 1 = MULTI_LABEL_SPARSE (active label indices), 2 = MULTI_LABEL_DENSE (a dense label vector), 3 = MULTI_LABEL_WEIGHTED_SPARSE (active indices with per-label weights), 4 = NO_LABEL.
        image_available (bool, default True): Determines whether an image is available in this LMDB.
        additional_inputs (int, default 0): Additional auxiliary data tensors that are provided for each sample.
        bbox (bool, default False): Denotes whether the bounding-box information is present.
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
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_inputs: int | None = ...,
        bbox: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_type: int | None = ...,
        lazy_init: bool | None = ...,
        num_labels: int | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `Caffe2`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_inputs: int | None = ...,
        bbox: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        image_available: bool | None = ...,
        initial_fill: int | None = ...,
        label_type: int | None = ...,
        lazy_init: bool | None = ...,
        num_labels: int | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class COCO:
    """Reads images and their annotations from a COCO dataset.

    Outputs ``images, bboxes, labels``, then ``polygons, vertices`` (``polygon_masks``) or
    ``pixelwise_masks``, then ``image_ids`` (``image_ids``); see the module docstring.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        file_root (str, optional): Folder the images' file names are relative to.
        annotations_file (str, optional): The COCO JSON annotations file.
        preprocessed_annotations (str, optional): Folder of saved preprocessed annotations.
        ltrb (bool, default False): Boxes as [l, t, r, b] instead of [x, y, w, h].
        ratio (bool, default False): Box and vertex coordinates relative to the image.
        skip_empty (bool, default False): Skip images with no object.
        size_threshold (float, default 0.1): Drop objects whose box width or height is below this (pixels).
        avoid_class_remapping (bool, default False): Labels are the category ids, not 1..N in the categories' order.
        include_iscrowd (bool, default True): Keep objects marked iscrowd=1.
        image_ids (bool, default False): Add an output with the image ids.
        images (str_vec, optional): Only these image files (as in the JSON), in this order.
        polygon_masks (bool, default False): Add polygons and vertices outputs.
        pixelwise_masks (bool, default False): Add a pixelwise label mask output.
        save_preprocessed_annotations (bool, default False): Save the parsed annotations (DALI's binary format).
        save_preprocessed_annotations_dir (str, optional): Where to save them.
        masks (bool, default False): Deprecated: polygons with coordinate indices.
        save_img_ids (bool, optional): Deprecated alias of `image_ids`.
        dump_meta_files (bool, optional): Deprecated alias of `save_preprocessed_annotations`.
        dump_meta_files_path (str, optional): Deprecated alias of `save_preprocessed_annotations_dir`.
        meta_files_path (str, optional): Deprecated alias of `preprocessed_annotations`.
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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        annotations_file: str | PathLike[str] | None = ...,
        avoid_class_remapping: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dump_meta_files: bool | None = ...,
        dump_meta_files_path: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_ids: bool | None = ...,
        images: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        include_iscrowd: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        ltrb: bool | None = ...,
        masks: bool | None = ...,
        meta_files_path: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pixelwise_masks: bool | None = ...,
        polygon_masks: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preprocessed_annotations: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        ratio: bool | None = ...,
        read_ahead: bool | None = ...,
        save_img_ids: bool | None = ...,
        save_preprocessed_annotations: bool | None = ...,
        save_preprocessed_annotations_dir: str | PathLike[str] | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        size_threshold: float | None = ...,
        skip_cached_images: bool | None = ...,
        skip_empty: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `COCO`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        annotations_file: str | PathLike[str] | None = ...,
        avoid_class_remapping: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        dump_meta_files: bool | None = ...,
        dump_meta_files_path: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_ids: bool | None = ...,
        images: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        include_iscrowd: bool | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        ltrb: bool | None = ...,
        masks: bool | None = ...,
        meta_files_path: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pixelwise_masks: bool | None = ...,
        polygon_masks: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preprocessed_annotations: str | PathLike[str] | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        ratio: bool | None = ...,
        read_ahead: bool | None = ...,
        save_img_ids: bool | None = ...,
        save_preprocessed_annotations: bool | None = ...,
        save_preprocessed_annotations_dir: str | PathLike[str] | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        size_threshold: float | None = ...,
        skip_cached_images: bool | None = ...,
        skip_empty: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: _Sequence[int] | int | None = ...,
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
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        case_sensitive_filter: bool | None = ...,
        dir_filters: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filters: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        labels: _Sequence[int] | int | None = ...,
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

class MXNet:
    """Reads the data from an MXNet RecordIO.

    Returns the encoded images (1-D uint8) and the labels (1-D float32: one label, or the
    ``flag`` labels of a multi-label record). ``index_path`` is a list of one index file,
    written by MXNet's ``im2rec.py`` or by ``rec2idx`` (`dali.tools.rec2idx`), whose offsets
    count in the ``path`` files concatenated; it may be left out (beyond DALI): the files are
    then scanned at build.

    Example:
        >>> import os, tempfile
        >>> import dali, dali.fn as fn
        >>> from dali._testing.recordio import write_recordio
        >>> path = os.path.join(tempfile.mkdtemp(), "data.rec")
        >>> _ = write_recordio(path, [((0, float(i), i, 0), b"image %d" % i) for i in range(5)])
        >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        >>> with pipe:
        ...     images, labels = fn.readers.mxnet(
        ...         path=[path], index_path=[path[:-4] + ".idx"], name="Reader")
        ...     pipe.set_outputs(images, labels)
        >>> images, labels = pipe.run()
        >>> labels.as_array().tolist(), bytes(images.at(1)), pipe.epoch_size("Reader")
        ([[0.0], [1.0]], b'image 1', 5)
        >>> images[1].source_info().rsplit(os.sep, 1)[-1]  # the record's byte offset
        'data.rec at index 40'

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        path (str_vec, required): RecordIO (.rec) files (paths or URLs).
        index_path (str_vec, optional): One index (.idx) file for all the files (`rec2idx`); without it they are scanned.
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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        index_path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
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
        """Set the arguments of `MXNet`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        index_path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
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

class NemoAsr:
    """Reads automatic speech recognition (ASR) data (audio, text) from an NVIDIA NeMo
    compatible manifest.

    Example manifest file::

        {"audio_filepath": "path/to/audio1.wav", "duration": 3.45, "text": "this is a nemo tutorial"}
        {"audio_filepath": "path/to/audio1.wav", "offset": 3.45, "duration": 1.45, "text": "same audio file but using offset"}
        {"audio_filepath": "path/to/audio2.wav", "duration": 3.45, "text": "third transcript in this example"}

    Only ``audio_filepath`` is mandatory. Without ``duration`` the audio is read to the end
    of the file (from ``offset``); a missing ``text`` gives an empty transcript.

    This reader produces between 1 and 4 outputs:

    - Decoded audio data: ``dtype``, ``(audio_length,)`` (``(audio_length, channels)`` with
      ``downmix=False``)
    - (optional, if ``read_sample_rate=True``) Audio sample rate: float, a scalar
    - (optional, if ``read_text=True``) Transcript text as UTF-8 bytes: uint8, ``(text_len,)``
    - (optional, if ``read_idxs=True``) Index of the manifest entry: int64, ``(1,)``

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        manifest_filepaths (str_vec, required): NeMo manifest files.
        read_sample_rate (bool, default True): Output the sampling rate.
        read_text (bool, default True): Output the transcript (UTF-8 bytes).
        read_idxs (bool, default False): Output the entry's index in its manifest.
        max_duration (float, default 0.0): If > 0, drop longer entries (s).
        min_duration (float, default 0.0): If > 0, drop shorter entries (s).
        sample_rate (float, default -1.0): If > 0, resample to this rate (Hz).
        quality (float, default 50.0): Resampling quality 0..100 (3..64 lobes).
        downmix (bool, default True): Average the channels (1-D output).
        dtype (dtype, default <DALIDataType.FLOAT: 9>): Output type: INT16, INT32, FLOAT.
        normalize_text (bool, optional): Deprecated; no longer used.
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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        manifest_filepaths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        max_duration: float | None = ...,
        min_duration: float | None = ...,
        normalize_text: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        read_idxs: bool | None = ...,
        read_sample_rate: bool | None = ...,
        read_text: bool | None = ...,
        sample_rate: float | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `NemoAsr`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        downmix: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        manifest_filepaths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        max_duration: float | None = ...,
        min_duration: float | None = ...,
        normalize_text: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        quality: float | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        read_idxs: bool | None = ...,
        read_sample_rate: bool | None = ...,
        read_text: bool | None = ...,
        sample_rate: float | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Numpy:
    """Reads ``.npy`` files: whole arrays, or a region of interest of each.

    Three ways to name the files: ``file_root`` (its files and those of its subfolders that
    match ``file_filter``), ``file_list`` (a text file of one path per line, relative to the
    list's folder or to ``file_root``) or ``files`` (relative to ``file_root`` if given).

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        file_root (str, optional): Folder of the files (traversed unless files/file_list).
        file_filter (str, default '*.npy'): Glob for file names under file_root.
        file_list (str, optional): Text file with one path per line.
        files (str_vec, optional): File paths (relative to file_root if given).
        roi_start (int_vec, optional, per-sample): Region start, absolute.
        rel_roi_start (float_vec, optional, per-sample): Region start, relative.
        roi_end (int_vec, optional, per-sample): Region end, absolute.
        rel_roi_end (float_vec, optional, per-sample): Region end, relative.
        roi_shape (int_vec, optional, per-sample): Region shape, absolute.
        rel_roi_shape (float_vec, optional, per-sample): Region shape, relative.
        roi_axes (int_vec, default ()): Axes of the region arguments (all: empty).
        out_of_bounds_policy (str, default 'error'): A region outside the array: "error", "pad" or "trim_to_shape".
        fill_value (float, default 0.0): Padding value ("pad").
        use_o_direct (bool, default False): Accepted (I/O tuning; no effect).
        cache_header_information (bool, default False): Accepted (always cached).
        register_buffers (bool, default True): Accepted (GPU I/O; no effect).
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
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        cache_header_information: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: float | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        register_buffers: bool | None = ...,
        rel_roi_end: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_shape: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_start: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_axes: _Sequence[int] | int | None = ...,
        roi_end: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> None:
        """Set the arguments of `Numpy`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        cache_header_information: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        file_filter: str | PathLike[str] | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_root: str | PathLike[str] | None = ...,
        files: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        fill_value: float | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        out_of_bounds_policy: str | PathLike[str] | None = ...,
        pad_last_batch: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        register_buffers: bool | None = ...,
        rel_roi_end: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_shape: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        rel_roi_start: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_axes: _Sequence[int] | int | None = ...,
        roi_end: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_shape: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        roi_start: _Sequence[int] | int | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        shard_id: int | None = ...,
        shuffle_after_epoch: bool | None = ...,
        shuffle_after_epoch_seed: int | None = ...,
        skip_cached_images: bool | None = ...,
        stick_to_shard: bool | None = ...,
        tensor_init_bytes: int | None = ...,
        use_o_direct: bool | None = ...,
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Sequence:
    """Reads [Frame] sequences from a directory representing a collection of streams.

    .. warning::
        This operator is deprecated (as in DALI) and may be removed in future releases.
        `fn.external_source` can implement custom reading patterns; for video sequences use
        `fn.readers.video`, `fn.experimental.readers.video`, `fn.experimental.decoders.video` or
        `fn.experimental.inputs.video`.

    This operator expects ``file_root`` to contain a set of directories, where each directory
    represents an extracted video stream. This stream is represented by one file for each frame,
    sorted lexicographically. Sequences do not cross the stream boundary and only complete
    sequences are considered, so there is no padding.

    Example directory structure::

      - file_root
        - 0
          - 00001.png
          - 00002.png
          ....
        - 1
          - 00001.png
          - 00002.png
          ....

    Each sample is a uint8 ``FHWC`` sequence of ``sequence_length`` frames decoded into
    ``image_type``; a sequence's frames must all have the same shape. This operator is an
    analogue of the video reader working on frames extracted as separate images; its main
    purpose is a test baseline.

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        file_root (str, required): Folder of the streams: one subfolder of frame images per stream.
        sequence_length (int, required): Frames per sequence.
        step (int, default 1): Distance between first frames of consecutive sequences.
        stride (int, default 1): Distance between consecutive frames in a sequence.
        image_type (image_type, default <DALIImageType.RGB: 0>): Colour space of the frames: RGB, BGR, GRAY or ANY_DATA.
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
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
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
    ) -> None:
        """Set the arguments of `Sequence`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
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
    ) -> DataNode:
        """Add the operator to the pipeline being defined; returns its outputs."""

class TFRecord:
    """Reads ``tf.train.Example`` records from TFRecord files.

    Returns a dict of outputs keyed by feature name, in the order of ``features``: int64
    features as int64, float32 as float32, strings as their bytes (1-D uint8). A record without
    a FixedLenFeature gets its default value, one without a VarLenFeature an empty array.
    ``index_path`` (one index file per TFRecord file, from ``tfrecord2idx``) may be left out:
    the files are then scanned at build.

    Example:
        >>> import os, tempfile
        >>> import dali, dali.fn as fn, dali.tfrecord as tfrec
        >>> from dali._testing.tfrecords import write_tfrecord
        >>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
        >>> _ = write_tfrecord(path, [{"label": [i], "name": f"r{i}"} for i in range(5)])
        >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        >>> with pipe:
        ...     out = fn.readers.tfrecord(
        ...         path=path,
        ...         index_path=path + ".idx",
        ...         features={"label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
        ...                   "name": tfrec.FixedLenFeature([], tfrec.string, "")},
        ...         name="Reader")
        ...     pipe.set_outputs(out["label"], out["name"])
        >>> labels, names = pipe.run()
        >>> labels.as_array().ravel().tolist(), bytes(names.at(1)), pipe.epoch_size("Reader")
        ([0, 1], b'r1', 5)
        >>> labels[1].source_info().rsplit(os.sep, 1)[-1]  # the record's byte offset
        'data.tfrecord at index 50'

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        path (str_vec, required): TFRecord files (paths or URLs).
        index_path (str_vec, optional): One index file per path (`tfrecord2idx`); without it the files are scanned.
        features (any, required): Dict of feature name -> dali.tfrecord.FixedLenFeature/VarLenFeature.
        use_o_direct (bool, default False): Accepted (I/O hint; needs dont_use_mmap=True, as in DALI).
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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        features: Any = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
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
        use_o_direct: bool | None = ...,
    ) -> None:
        """Set the arguments of `TFRecord`; the call may give any of them too."""
    def __call__(
        self,
        path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_path: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        features: Any = ...,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        dont_use_mmap: bool | None = ...,
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
        use_o_direct: bool | None = ...,
    ) -> dict[str, DataNode]:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Video:
    """DALI's ``readers.video`` (the legacy NVDEC reader), on the CPU and the GPU.

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
        pad_sequences (bool, default False): Add sequences padded past the end.
        dtype (dtype, default <DALIDataType.UINT8: 0>): UINT8 or FLOAT.
        normalized (bool, default False): FLOAT output in [0, 1].
        channels (int, default 3): Colour channels (3).
        skip_vfr_check (bool, default False): Accept variable-frame-rate files.
        file_list_frame_num (bool, default False): file_list start/end are frames.
        file_list_include_preceding_frame (bool, default False): Round file_list times outwards.
        additional_decode_surfaces (int, default 2): Accepted (NVDEC tuning).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: _Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `Video`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        labels: _Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class VideoResize:
    """DALI's ``readers.video_resize``: ``readers.video`` with every sequence resized.

    Takes the arguments of ``readers.video`` and the size and filter arguments of
    ``fn.resize`` (exactly one way of giving the size); each sequence is resized as one
    ``FHWC`` sample of ``fn.resize``. The outputs are those of ``readers.video`` (the video,
    then ``label``, ``frame_num`` and ``timestamps`` where enabled). DALI runs it on the GPU
    only; the CPU backend is this library's.

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
        pad_sequences (bool, default False): Add sequences padded past the end.
        dtype (dtype, default <DALIDataType.UINT8: 0>): UINT8 or FLOAT.
        normalized (bool, default False): FLOAT output in [0, 1].
        channels (int, default 3): Colour channels (3).
        skip_vfr_check (bool, default False): Accept variable-frame-rate files.
        file_list_frame_num (bool, default False): file_list start/end are frames.
        file_list_include_preceding_frame (bool, default False): Round file_list times outwards.
        additional_decode_surfaces (int, default 2): Accepted (NVDEC tuning).
        seed (int, default -1): Operator seed; -1 derives it from the pipeline.
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
        minibatch_size (int, default 32): Ignored (GPU kernel batching).
        temp_buffer_hint (int, default 0): Ignored (temporary buffer size).
        subpixel_scale (bool, default True): Keep fractional scales exact.
        roi_start (float_vec, optional, per-sample): Input ROI origin (start > end flips).
        roi_end (float_vec, optional, per-sample): Input ROI end.
        roi_relative (bool, default False): ROI given as fractions of the size.

    Devices: cpu, gpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        labels: _Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: _Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        size: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> None:
        """Set the arguments of `VideoResize`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        additional_decode_surfaces: int | None = ...,
        antialias: bool | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        channels: int | None = ...,
        dont_use_mmap: bool | None = ...,
        dtype: DALIDataType | DTypeLike | None = ...,
        enable_frame_num: Any = ...,
        enable_timestamps: bool | None = ...,
        file_list: str | PathLike[str] | None = ...,
        file_list_frame_num: bool | None = ...,
        file_list_include_preceding_frame: bool | None = ...,
        file_root: str | PathLike[str] | None = ...,
        filenames: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        image_type: DALIImageType | int | None = ...,
        initial_fill: int | None = ...,
        interp_type: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        labels: _Sequence[int] | int | None = ...,
        lazy_init: bool | None = ...,
        mag_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        max_size: _Sequence[float] | float | None = ...,
        min_filter: DALIInterpType | int | DataNode | ArrayLike | None = ...,
        minibatch_size: int | None = ...,
        mode: str | PathLike[str] | None = ...,
        normalized: bool | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        pad_sequences: bool | None = ...,
        prefetch_queue_depth: int | None = ...,
        preserve: bool | None = ...,
        random_shuffle: bool | None = ...,
        read_ahead: bool | None = ...,
        resize_longer: float | DataNode | ArrayLike | None = ...,
        resize_shorter: float | DataNode | ArrayLike | None = ...,
        resize_x: float | DataNode | ArrayLike | None = ...,
        resize_y: float | DataNode | ArrayLike | None = ...,
        resize_z: float | DataNode | ArrayLike | None = ...,
        roi_end: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        roi_relative: bool | None = ...,
        roi_start: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        seed: int | None = ...,
        sequence_length: int | None = ...,
        shard_id: int | None = ...,
        size: _Sequence[float] | float | DataNode | ArrayLike | None = ...,
        skip_cached_images: bool | None = ...,
        skip_vfr_check: bool | None = ...,
        step: int | None = ...,
        stick_to_shard: bool | None = ...,
        stride: int | None = ...,
        subpixel_scale: bool | None = ...,
        temp_buffer_hint: int | None = ...,
        tensor_init_bytes: int | None = ...,
    ) -> DataNode | list[DataNode] | None:
        """Add the operator to the pipeline being defined; returns its outputs."""

class Webdataset:
    """Reads samples from webdataset tar shards: one output per extension set of ``ext``.

    Each output sample is a component's bytes as a 1-D array (``dtypes`` reinterprets them),
    empty where the sample lacks the component (``missing_component_behavior``). ``index_paths``
    (DALI's ``wds2idx`` files, one per shard) spare the scan of the tars' headers at build.

    Example:
        >>> import dali, dali.fn as fn
        >>> from dali._testing.webdataset import make_wds_dataset
        >>> import tempfile
        >>> ds = make_wds_dataset(tempfile.mkdtemp(), n=6, shards=2)
        >>> pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None)
        >>> with pipe:
        ...     jpegs, labels = fn.readers.webdataset(
        ...         paths=ds.tars, index_paths=ds.indices, ext=["jpg", "cls"], name="Reader")
        ...     pipe.set_outputs(jpegs, labels)
        >>> _, labels_out = pipe.run()
        >>> [bytes(labels_out.at(i)).decode() for i in range(3)], pipe.epoch_size("Reader")
        (['0', '1', '2'], 6)

    Args:
        name (str, optional): Operator name, used by reader_meta/epoch_size and feed_input.
        device (str, optional): "cpu", "gpu" or "mixed".
        preserve (bool, default False): Keep the operator even if unused.
        bytes_per_sample_hint (int_or_int_vec, default (0,)): Ignored (memory hint).
        paths (str_vec, required): The tar archives (shards) of the dataset.
        ext (str_vec, required): One extension set per output; ";" separates alternatives ("cls;json").
        index_paths (str_vec, default ()): Index files of the shards (wds2idx format); without them the tars are scanned.
        missing_component_behavior (str, default ''): Sample without a component for an output: "empty" (default), "skip", "error".
        dtypes (dtype_vec, optional): Type of each output (default UINT8): the bytes as it.
        case_sensitive_extensions (bool, default True): Match the extensions of `ext` case-sensitively.
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

    Devices: cpu. Inputs: 0..0.
    Construct with scalar arguments, then call with inputs inside define_graph.
    """
    def __init__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        case_sensitive_extensions: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        dtypes: _Sequence[DALIDataType | DTypeLike] | DALIDataType | DTypeLike | None = ...,
        ext: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_paths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        missing_component_behavior: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        paths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
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
        """Set the arguments of `Webdataset`; the call may give any of them too."""
    def __call__(
        self,
        *,
        device: str | None = ...,
        name: str | None = ...,
        bytes_per_sample_hint: _Sequence[int] | int | None = ...,
        case_sensitive_extensions: bool | None = ...,
        dont_use_mmap: bool | None = ...,
        dtypes: _Sequence[DALIDataType | DTypeLike] | DALIDataType | DTypeLike | None = ...,
        ext: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        index_paths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
        initial_fill: int | None = ...,
        lazy_init: bool | None = ...,
        missing_component_behavior: str | PathLike[str] | None = ...,
        num_shards: int | None = ...,
        pad_last_batch: bool | None = ...,
        paths: _Sequence[str | PathLike[str]] | str | PathLike[str] | None = ...,
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
