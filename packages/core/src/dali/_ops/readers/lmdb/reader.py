"""`fn.readers.caffe` and `fn.readers.caffe2`: samples from Caffe and Caffe2 LMDB databases.

Caffe (``convert_imageset``) and Caffe2 (``make_image_db``) keep a dataset in an LMDB
database: one protobuf record per image, keyed by a string. DALI reads them with one loader
(``dali/operators/reader/loader/lmdb.h``) and a parser per format; so do these readers:

* the databases (`dali._ops.readers.lmdb.database`): the ``path`` databases are opened
  read-only and listed once, at build, so a missing or unreadable database, or an empty
  dataset, is an error before the first batch. The dataset is the records of the first
  database in key order (bytewise), then the second's, and so on; a sample's ``source_info``
  is DALI's ``"<path> at key <key>"``, carried by the image output (the other outputs carry
  none, as in DALI);
* the records (`dali._ops.readers.lmdb.protos`: the protobuf wire format, decoded without the
  ``protobuf`` package; `dali._ops.readers.lmdb.records`: what DALI's parsers make of a
  ``Datum`` or a ``TensorProtos``, and where a record is an error);
* the loader (`dali._ops.readers.loader.indexed.IndexedReader`): sharding, padding,
  ``stick_to_shard``, ``reader_meta`` and checkpoints are those of every reader; with
  ``random_shuffle`` the shuffle buffer reads the records in order (DALI's LMDB loader does
  not permute them first), and neither reader has ``shuffle_after_epoch`` (nor does DALI's).

Each batch reads its records through one read transaction held for the reader's life (as
DALI holds one), as zero-copy views of the database's memory map. ``readers.caffe`` parses
them there (Python, ~5 us a ``Datum``) and copies only the images out, into one buffer for
the batch (one array when the images share a shape): one copy of the image bytes, as DALI's
loader makes one. ``readers.caffe2`` copies the batch's records into one buffer and decodes
them all at once (`dali._ops.readers.lmdb.caffe2_batch`: a Numba scan, then numpy per
output; its images are views of that buffer); records it does not take (unusual encodings,
``label_type=3``, errors) and every batch without Numba are decoded record by record in
Python (`dali._ops.readers.lmdb.records`, ~25 us a small record), with the same outputs. A
malformed record, or one that does not give the outputs asked for, is an error naming the
database and the key (`benchmarks/lmdb_read.py` has the speeds).

``dont_use_mmap``, ``read_ahead``, ``lazy_init``, ``prefetch_queue_depth``,
``skip_cached_images`` and ``tensor_init_bytes`` are accepted and change nothing (DALI's LMDB
loader always maps the database, and skips samples only for its decoder cache).

Both need the ``lmdb`` package (py-lmdb, the ``lmdb`` extra of dali-core); it is imported when
a pipeline with one of them is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.readers.lmdb.caffe2_batch import decode
from dali._ops.readers.lmdb.database import Databases, LMDBError
from dali._ops.readers.lmdb.protos import ProtoError
from dali._ops.readers.lmdb.records import (
    NO_LABEL,
    SPARSE_LABELS,
    Caffe2Spec,
    Numbers,
    RecordError,
    Sample,
    Span,
    caffe2_sample,
    caffe_sample,
)
from dali._ops.readers.loader.indexed import NON_SEMANTIC, READER_ARGS, IndexedReader
from dali._ops.readers.storage import access as _storage
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Caffe", "Caffe2"]


class _LMDBReader(IndexedReader):
    """What both readers share: the databases, reading a batch's records, making the batch."""

    # the shuffle buffer reads the records in order; no per-epoch permutation
    shuffle_kind = "archive"
    #: the name of the format, for messages
    _format = ""
    #: whether the first output is the image (the one that carries the source_info)
    _image_first = True

    def list_samples(self) -> int:
        paths = list(self.arg("path"))
        if not paths:
            raise self.arg_error("path", "no LMDB databases specified")
        urls = [p for p in paths if _storage.is_url(p)]
        if urls:  # (LMDB maps its file in memory: a local file system only, as in DALI)
            raise self.arg_error(
                "path", f"LMDB databases are local directories, not URLs: {', '.join(urls)}"
            )
        self._dbs = Databases(paths)
        try:
            n = self._dbs.list_records()
        except LMDBError as e:
            raise self.arg_error("path", str(e)) from e
        if n == 0:
            raise self.arg_error("path", f"the LMDB databases hold no records: {', '.join(paths)}")
        return n

    def source_info(self, index: int) -> str:
        return self._dbs.source_info(index)

    def batch_source_info(self, ids: np.ndarray) -> list[str]:
        return self._dbs.source_infos(ids)

    def parse(self, record: Any) -> list[Sample]:
        """The output samples of one record (a memoryview of the map)."""
        raise NotImplementedError

    def decode_batch(self, records: list[Any]) -> list[Any] | None:
        """Every output of the batch at once (arrays, or lists of sample arrays), or None:
        the records are then decoded one by one with `parse` (default: always None)."""
        return None

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        infos = self.batch_infos(ws)
        try:
            records = self._dbs.read(ids)
        except LMDBError as e:
            raise self.error(str(e)) from e
        fast = self.decode_batch(records)
        if fast is not None:
            none = [""] * len(ids)
            return tuple(
                TensorListCPU.wrap(out, "", infos if k == 0 and self._image_first else none)
                for k, out in enumerate(fast)
            )
        rows = []
        for i, record in enumerate(records):
            try:
                rows.append(self.parse(record))
            except ProtoError as e:
                err = self.error(
                    f"error while parsing {self._format} record {infos[i]} (raw data length: "
                    f"{len(record)} bytes): {e}"
                )
                raise SampleFailure(i, err) from e
            except RecordError as e:
                raise SampleFailure(i, self.error(f"{self._format} record {infos[i]}: {e}")) from e
        return tuple(
            self._batch(records, [row[k] for row in rows], infos, k)
            for k in range(len(rows[0]) if rows else 0)
        )

    def _batch(
        self, records: list[Any], samples: list[Sample], infos: list[str], k: int
    ) -> TensorListCPU:
        """Output ``k`` of the batch: image spans copied out of the records, or numbers."""
        # (each output has one kind of sample, whatever the record)
        if isinstance(samples[0], Span):
            spans = cast(list[Span], samples)
            ndim = len(spans[0].shape)
            for i, span in enumerate(spans):  # one number of dimensions, as in DALI
                if len(span.shape) != ndim:
                    raise self._mismatch(k, infos, i, f"{ndim}-D", f"{len(span.shape)}-D")
            out = _copy_images(records, spans)
            out.source_infos = infos
            return out
        numbers = cast(list[Numbers], samples)
        dtype = numbers[0].dtype
        for i, sample in enumerate(numbers):  # one type, as in DALI
            if sample.dtype != dtype:
                raise self._mismatch(k, infos, i, dtype.name, sample.dtype.name)
        values = [sample.values for sample in numbers]
        # (DALI gives only the image a source_info; an empty list keeps the executor from
        # giving these the batch's)
        none = [""] * len(values)
        n = len(values[0])
        if all(len(v) == n for v in values):
            dense = np.array(values, dtype=dtype).reshape(len(values), n)
            return TensorListCPU.wrap(dense, "", none)
        return TensorListCPU.wrap([np.array(v, dtype=dtype) for v in values], "", none)

    def _mismatch(self, k: int, infos: list[str], i: int, want: str, got: str) -> SampleFailure:
        return SampleFailure(
            i,
            self.error(
                f"output {k}: the samples of a batch must have one type and one number of "
                f"dimensions: {infos[0]} gives {want}, {infos[i]} gives {got}"
            ),
        )

    def close(self) -> None:
        dbs = getattr(self, "_dbs", None)
        if dbs is not None:
            dbs.close()


def _copy_images(records: list[Any], spans: list[Span]) -> TensorListCPU:
    """The images (uint8) of ``spans`` of ``records``, copied into one new buffer: one
    ``(B, *shape)`` array when they share a shape, else back to back."""
    shape = spans[0].shape
    if all(s.shape == shape for s in spans):
        dense = np.empty((len(spans), *shape), dtype=np.uint8)
        flat = dense.reshape(len(spans), -1)
        for i, (record, s) in enumerate(zip(records, spans)):
            flat[i] = np.frombuffer(record, np.uint8, s.end - s.start, s.start)
        return TensorListCPU.wrap(dense, "")
    sizes = [s.end - s.start for s in spans]
    buffer = np.empty(sum(sizes), dtype=np.uint8)
    pos = 0
    for record, s, size in zip(records, spans, sizes):
        buffer[pos : pos + size] = np.frombuffer(record, np.uint8, size, s.start)
        pos += size
    return TensorListCPU.wrap_flat(buffer, [s.shape for s in spans], "")


# -- readers.caffe ----------------------------------------------------------------------------


def _caffe_outputs(args: Mapping[str, Any]) -> int:
    return int(bool(args.get("image_available", True))) + int(
        bool(args.get("label_available", True))
    )


@register(
    "readers.caffe",
    devices=("cpu",),
    inputs=0,
    outputs=_caffe_outputs,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    args=[
        Arg(
            "path", "str_vec", default=REQUIRED, doc="List of paths to the Caffe LMDB directories."
        ),
        Arg(
            "image_available",
            "bool",
            default=True,
            doc="Determines whether an image is available in this LMDB.",
        ),
        Arg(
            "label_available", "bool", default=True, doc="Determines whether a label is available."
        ),
        *READER_ARGS,
    ],
)
class Caffe(_LMDBReader):
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
    """

    _format = "Caffe"

    def check_arguments(self) -> None:
        self._image = self._image_first = bool(self.arg("image_available"))
        self._label = bool(self.arg("label_available"))

    def parse(self, record: Any) -> list[Sample]:
        return caffe_sample(record, self._image, self._label)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        meta: list[dict[str, Any]] = []
        if args.get("image_available", True):
            meta.append({"dtype": DALIDataType.UINT8, "layout": ""})
        if args.get("label_available", True):
            meta.append({"dtype": DALIDataType.INT32, "ndim": 1, "layout": ""})
        return meta


# -- readers.caffe2 ---------------------------------------------------------------------------


def _caffe2_spec(args: Mapping[str, Any]) -> Caffe2Spec:
    return Caffe2Spec(
        image_available=bool(args.get("image_available", True)),
        label_type=int(args.get("label_type", 0)),
        num_labels=int(args.get("num_labels", 1)),
        additional_inputs=int(args.get("additional_inputs", 0)),
        bbox=bool(args.get("bbox", False)),
    )


def _caffe2_outputs(args: Mapping[str, Any]) -> int:
    return max(0, _caffe2_spec(args).num_outputs())


@register(
    "readers.caffe2",
    devices=("cpu",),
    inputs=0,
    outputs=_caffe2_outputs,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    args=[
        Arg(
            "path", "str_vec", default=REQUIRED, doc="List of paths to the Caffe2 LMDB directories."
        ),
        Arg(
            "num_labels",
            "int",
            default=1,
            doc="Number of classes in the dataset. Required when sparse labels are used.",
        ),
        Arg(
            "label_type",
            "int",
            default=0,
            doc="Type of label stored in dataset: 0 = SINGLE_LABEL (one integer label), "
            "1 = MULTI_LABEL_SPARSE (active label indices), 2 = MULTI_LABEL_DENSE (a dense "
            "label vector), 3 = MULTI_LABEL_WEIGHTED_SPARSE (active indices with per-label "
            "weights), 4 = NO_LABEL.",
        ),
        Arg(
            "image_available",
            "bool",
            default=True,
            doc="Determines whether an image is available in this LMDB.",
        ),
        Arg(
            "additional_inputs",
            "int",
            default=0,
            doc="Additional auxiliary data tensors that are provided for each sample.",
        ),
        Arg(
            "bbox",
            "bool",
            default=False,
            doc="Denotes whether the bounding-box information is present.",
        ),
        *READER_ARGS,
    ],
)
class Caffe2(_LMDBReader):
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
    """

    _format = "Caffe2"

    def check_arguments(self) -> None:
        names = ("image_available", "label_type", "num_labels", "additional_inputs", "bbox")
        spec = _caffe2_spec({name: self.arg(name) for name in names})
        if not 0 <= spec.label_type <= NO_LABEL:
            raise self.arg_error(
                "label_type",
                f"must be 0 (single), 1 (sparse), 2 (dense), 3 (weighted sparse) or 4 (no "
                f"label), got {spec.label_type}",
            )
        if spec.sparse and spec.num_labels < 1:
            raise self.arg_error(
                "num_labels", f"must be positive with sparse labels, got {spec.num_labels}"
            )
        if spec.additional_inputs < 0:
            raise self.arg_error(
                "additional_inputs", f"must not be negative, got {spec.additional_inputs}"
            )
        if spec.sparse and spec.bbox:
            raise self.arg_error(
                "bbox",
                f"cannot be used with sparse labels (label_type={spec.label_type}): DALI 2.4 "
                "then returns the record's last tensor (the box) as the output after the "
                "additional ones, and fails with bbox=True; leave bbox=False",
            )
        self._spec = spec
        self._image_first = spec.image_available

    def parse(self, record: Any) -> list[Sample]:
        return caffe2_sample(record, self._spec)

    def decode_batch(self, records: list[Any]) -> list[Any] | None:
        return decode(records, self._spec)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        spec = _caffe2_spec(node.scalar_args)
        meta: list[dict[str, Any]] = []
        if spec.image_available:
            meta.append({"dtype": DALIDataType.UINT8, "layout": ""})
        if spec.label_type == 3:
            shape = (spec.num_labels,)
            meta.append({"dtype": DALIDataType.FLOAT, "static_shape": shape, "layout": ""})
        elif spec.label_type in SPARSE_LABELS:
            meta.append({"static_shape": (spec.num_labels,), "layout": ""})
        elif spec.label_type != NO_LABEL:
            meta.append({"ndim": 1, "layout": ""})
        meta += [{"ndim": 1, "layout": ""} for _ in range(spec.additional_inputs)]
        if spec.bbox or spec.sparse:
            meta.append({"dtype": DALIDataType.INT32, "static_shape": (4,), "layout": ""})
        return meta[: spec.num_outputs()]
