"""`fn.readers.tfrecord`: the features of ``tf.train.Example`` records in TFRecord files.

The dataset is the records of the ``path`` files, in file order and then in record order; a
sample is one record, and the outputs are the requested ``features`` (`dali.tfrecord`), one per
feature, returned as a dict keyed by feature name in the order of ``features`` (DALI's
``fn.readers.tfrecord`` returns a dict too, the ``ops`` class's call as well).

The records are listed once, at build (`_tfrecord_format`): from DALI's index files
(``index_path``, one ``offset size`` line per record, written by ``tfrecord2idx``), or, without
``index_path`` (beyond DALI, which requires it), by walking the files' record headers, whose
length checksums are checked on the way so that a file that is not a TFRecord, or a corrupt
one, is reported at build with the offset where it goes wrong. The data checksums are never
checked (DALI does not check them either). Every user error (missing files, an
index file per file, an unreadable or inconsistent index, empty datasets, unsupported features)
is raised at build.

Each batch then reads its records through `_storage` (local files or fsspec URLs, in
parallel), one byte range per run of consecutive records of a file (a batch's records usually
are: `TFRecord._runs`), and parses only the requested features (`_tfrecord_example`) in place,
through a ``memoryview`` of the run's array: string outputs are views of it, no record is
copied. What
DALI leaves undefined is defined here: a record without a fixed-length feature gets the
feature's default value (DALI returns uninitialised memory), one without a variable-length
feature an empty array; a feature stored with another type than requested (DALI: garbage for
a FixedLenFeature, an empty array for a VarLenFeature), or with another number of values than
a FixedLenFeature's shape (DALI: garbage when fewer, an error when more), is an error naming
the file, the record's offset and the feature. A malformed record, or an index entry that does
not frame a record, is an error naming the file and the offset.

``source_info`` is DALI's: ``"<path> at index <offset>"``, the record's byte offset.
Shuffling is DALI's: ``random_shuffle`` draws from a buffer filled with the records in order,
``shuffle_after_epoch`` permutes the files every epoch (each file's records stay in order, so
reads stay sequential), and the two may be combined.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._graph.trace import call_operator
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.tfrecord.example import ExampleError, ExampleParser, check_feature
from dali._ops.readers.tfrecord.features import Feature, float32, int64, string
from dali._ops.readers.tfrecord.format import (
    HEADER,
    OVERHEAD,
    TFRecordError,
    parse_index,
    scan_records,
)
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["TFRecord"]

_DTYPES = {
    int64: (DALIDataType.INT64, np.int64),
    float32: (DALIDataType.FLOAT, np.float32),
    string: (DALIDataType.UINT8, np.uint8),
}

_DISPLAY = "dali.fn.readers.tfrecord"


def _check_features(features: Any) -> None:
    """The checks DALI's Python wrapper makes on ``features`` when the operator is called."""
    if not isinstance(features, Mapping):
        raise TypeError(
            f"`{_DISPLAY}`: `features` must be a dict of feature name -> "
            "dali.tfrecord.FixedLenFeature/VarLenFeature, got "
            f"{type(features).__name__}"
        )
    if not features:
        raise ValueError(f"`{_DISPLAY}`: `features` is empty: name at least one feature")
    for name, feature in features.items():
        if not isinstance(name, str):
            raise TypeError(f"`{_DISPLAY}`: feature names must be str, got {name!r}")
        if not isinstance(feature, Feature):
            raise TypeError(
                f'Expected `dali.tfrecord.Feature` for the "{name}", but got '
                f"{type(feature)}. Use `dali.tfrecord.FixedLenFeature` or "
                "`dali.tfrecord.VarLenFeature` to define the features to extract."
            )


def _tfrecord_call(schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn.readers.tfrecord(...)``: the outputs as a dict keyed by feature name."""
    missing = [a for a in ("path", "features") if kwargs.get(a) is None]
    if missing:
        names = " and ".join(f"`{a}`" for a in missing)
        raise TypeError(f"`{_DISPLAY}` is missing the required argument(s) {names}")
    features = kwargs["features"]
    _check_features(features)
    # a plain dict (in the caller's order): the graph's argument values are plain data
    kwargs = {**kwargs, "features": dict(features)}
    out = call_operator(schema, inputs, kwargs)
    nodes = out if isinstance(out, list) else [out]
    return dict(zip(features, nodes))


def _num_outputs(args: Mapping[str, Any]) -> int:
    return len(args.get("features") or ()) or 1


@register(
    "readers.tfrecord",
    devices=("cpu",),
    inputs=0,
    outputs=_num_outputs,
    source=True,
    random=True,
    class_name="TFRecord",
    # the index only says where the records are: with or without it, the samples are the same
    non_semantic=(*NON_SEMANTIC, "use_o_direct", "index_path"),
    positional_args=("path", "index_path", "features"),
    fn=_tfrecord_call,
    stub_result="dict[str, DataNode]",
    args=[
        Arg("path", "str_vec", default=REQUIRED, doc="TFRecord files (paths or URLs)."),
        Arg(
            "index_path",
            "str_vec",
            doc="One index file per path (`tfrecord2idx`); without it the files are scanned.",
        ),
        Arg(
            "features",
            "any",
            default=REQUIRED,
            doc="Dict of feature name -> dali.tfrecord.FixedLenFeature/VarLenFeature.",
        ),
        Arg(
            "use_o_direct",
            "bool",
            default=False,
            doc="Accepted (I/O hint; needs dont_use_mmap=True, as in DALI).",
        ),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class TFRecord(IndexedReader):
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
    """

    shuffle_kind = "archive"

    def check_arguments(self) -> None:
        if self.arg("use_o_direct") and not self.arg("dont_use_mmap"):
            raise self.arg_error(
                "use_o_direct", "cannot be used with `dont_use_mmap=False` (set it to True)"
            )
        if not self.arg("path"):
            raise self.arg_error("path", "no files specified")
        if self.has_arg("index_path") and len(self.arg("index_path")) != len(self.arg("path")):
            raise self.arg_error(
                "index_path",
                f"has {len(self.arg('index_path'))} entries but `path` has "
                f"{len(self.arg('path'))}: give one index file per TFRecord file",
            )
        features = self.arg("features")
        try:
            _check_features(features)
            for name, f in features.items():
                check_feature(name, f)
        except (TypeError, ValueError) as e:
            raise self.arg_error("features", str(e)) from e

    def archive_starts(self) -> np.ndarray:
        files = self._files
        return np.concatenate([[0], np.flatnonzero(np.diff(files)) + 1])

    def list_samples(self) -> int:
        self._paths = list(self.arg("path"))
        self._parser = ExampleParser(list(self.arg("features").items()))
        self._use_mmap = not self.arg("dont_use_mmap")
        self._remote = [p for p in self._paths if _storage.is_url(p)]
        offsets, sizes, files = [], [], []
        indexes = list(self.arg("index_path")) if self.has_arg("index_path") else None
        for j, path in enumerate(self._paths):
            size = self._file_size(path)
            if indexes is not None:
                o, s = self._read_index(indexes[j], path, size)
            else:
                o, s = self._scan(path, size)
            offsets.append(o)
            sizes.append(s)
            files.append(np.full(len(o), j, dtype=np.int32))
        self._offsets = np.concatenate(offsets)
        self._sizes = np.concatenate(sizes)
        self._files = np.concatenate(files)
        if not len(self._offsets):
            if indexes is not None:
                raise self.arg_error(
                    "index_path", f"the index files list no records: {', '.join(indexes)}"
                )
            raise self.arg_error("path", f"the files hold no records: {', '.join(self._paths)}")
        return len(self._offsets)

    def _file_size(self, path: str) -> int:
        try:
            if _storage.isdir(path):
                raise self.arg_error("path", f"'{path}' is a directory, not a TFRecord file")
            return _storage.size(path)
        except FileNotFoundError as e:
            raise self.arg_error("path", f"'{path}' does not exist") from e
        except OSError as e:
            raise self.arg_error("path", f"cannot read '{path}': {e.strerror or e}") from e

    def _read_index(self, index: str, path: str, size: int) -> tuple[np.ndarray, np.ndarray]:
        try:
            text = _storage.read_text(index)
        except FileNotFoundError as e:
            raise self.arg_error("index_path", f"'{index}' does not exist") from e
        except OSError as e:
            raise self.arg_error("index_path", f"cannot read '{index}': {e.strerror or e}") from e
        try:
            offsets, sizes = parse_index(text)
        except TFRecordError as e:
            raise self.arg_error("index_path", f"'{index}', {e}") from e
        past = np.flatnonzero(offsets + sizes > size)
        if past.size:
            k = int(past[0])
            raise self.arg_error(
                "index_path",
                f"'{index}' does not match '{path}': its record {k} (offset {offsets[k]}, "
                f"{sizes[k]} bytes) ends past the end of the file ({size} bytes)",
            )
        return offsets, sizes

    def _scan(self, path: str, size: int) -> tuple[np.ndarray, np.ndarray]:
        try:
            return scan_records(size, lambda offset, n: _storage.read_range(path, offset, n))
        except TFRecordError as e:
            raise self.arg_error("path", f"'{path}' is not a valid TFRecord file: {e}") from e
        except OSError as e:
            raise self.arg_error("path", f"cannot read '{path}': {e.strerror or e}") from e

    def source_info(self, index: int) -> str:
        return f"{self._paths[self._files[index]]} at index {self._offsets[index]}"

    def _extents(self, ids: np.ndarray) -> list[_storage.Extent]:
        paths, files = self._paths, self._files[ids].tolist()
        offsets, sizes = self._offsets[ids].tolist(), self._sizes[ids].tolist()
        return [_storage.Extent(paths[f], o, s) for f, o, s in zip(files, offsets, sizes)]

    # -- running --------------------------------------------------------------------------
    def _runs(self, ids: np.ndarray) -> list[tuple[int, int]]:
        """The batch's records grouped as ``(first, stop)`` positions of runs of consecutive
        records of one file, each read as one extent.

        Records of a batch are usually contiguous (unshuffled, or shuffled with
        ``initial_fill`` but read in file order), so a batch is a few reads instead of one per
        record. The runs are cut into at least ``READ_THREADS`` parts so that the reads still
        go in parallel.
        """
        from dali import _options as options

        n = len(ids)
        offsets, sizes, files = self._offsets[ids], self._sizes[ids], self._files[ids]
        breaks = np.flatnonzero(
            (files[1:] != files[:-1]) | (offsets[1:] != offsets[:-1] + sizes[:-1])
        )
        bounds = [0, *(breaks + 1).tolist(), n]
        cap = max(1, -(-n // max(1, options.READ_THREADS)))
        runs = []
        for lo, hi in itertools.pairwise(bounds):
            for a in range(lo, hi, cap):
                runs.append((a, min(hi, a + cap)))
        return runs

    def _read(
        self, ids: np.ndarray, extents: list[_storage.Extent], parallel_map: Any
    ) -> list[Any]:
        """Every record of the batch as a uint8 view of its run's array, or its `OSError`."""
        runs = self._runs(ids)
        if len(runs) == len(extents):
            return _storage.read_extents(
                extents, use_mmap=self._use_mmap, parallel_map=parallel_map
            )
        spans = [
            _storage.Extent(
                extents[a].path,
                extents[a].offset,
                extents[b - 1].offset + (extents[b - 1].length or 0) - extents[a].offset,
            )
            for a, b in runs
        ]
        records: list[Any] = [None] * len(extents)
        for (a, b), data in zip(
            runs, _storage.read_extents(spans, use_mmap=self._use_mmap, parallel_map=parallel_map)
        ):
            if isinstance(data, OSError):  # which record: read them one by one
                records[a:b] = _storage.read_extents(extents[a:b], use_mmap=self._use_mmap)
                continue
            base = extents[a].offset
            for i in range(a, b):
                start = extents[i].offset - base
                records[i] = data[start : start + (extents[i].length or 0)]
        return records

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        extents = self._extents(ids)
        records = self._read(ids, extents, ws.map)
        features = self._parser.features
        n = len(ids)
        # fixed-size numbers go straight into one batch array; the rest are lists of samples
        columns: list[Any] = []
        for _, f in features:
            if f.fixed and f.dtype != string:
                columns.append(np.empty((n, *(f.shape or ())), dtype=_DTYPES[f.dtype][1]))
            else:
                columns.append([None] * n)
        for i, record in enumerate(records):
            extent = extents[i]
            if isinstance(record, OSError):
                err = self.error(
                    f"cannot read the record at offset {extent.offset} of '{extent.path}': "
                    f"{record.strerror or record}"
                )
                err.__cause__ = record
                raise SampleFailure(i, err) from record
            try:
                values = self._parse(record)
            except (ExampleError, TFRecordError) as e:
                err = self.error(f"'{extent.path}' at index {extent.offset}: {e}")
                raise SampleFailure(i, err) from e
            for column, value in zip(columns, values):
                column[i] = value
        if self._remote:  # (local files: the OS reads ahead)
            self.hint_ahead(self._extents)
        source_info = self.batch_infos(ws)
        return tuple(TensorListCPU.wrap(c, "", source_info) for c in columns)

    def _parse(self, record: np.ndarray) -> list[np.ndarray]:
        """The requested features of one framed record (uint8, as the index frames it)."""
        # parsed in place through a memoryview: no copy of the record (string outputs are
        # views of the batch's arrays)
        # (a memoryview: indexed and sliced as bytes are, typed as them for the parser)
        buf = cast(bytes, record.data)
        length = int.from_bytes(buf[:8], "little")
        if length + OVERHEAD != len(buf):
            raise TFRecordError(
                f"the record's length field says {length} data bytes, its index entry frames "
                f"{len(buf) - OVERHEAD} (the index does not match the file)"
            )
        return self._parser.parse(buf, record, HEADER, HEADER + length)

    def close(self) -> None:
        if getattr(self, "_remote", None):
            _storage.drop_prefetched(self._remote)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        features = node.scalar_args.get("features")
        if not isinstance(features, Mapping):
            return []
        meta: list[dict[str, Any]] = []
        for f in features.values():
            if not isinstance(f, Feature) or f.dtype not in _DTYPES:
                meta.append({})
                continue
            if f.dtype == string:
                shape: tuple[int | None, ...] = (None,)
            elif f.fixed:
                shape = tuple(f.shape or ())
            else:
                shape = (None, *(f.partial_shape or ()))
            meta.append({"dtype": _DTYPES[f.dtype][0], "static_shape": shape, "layout": ""})
        return meta
