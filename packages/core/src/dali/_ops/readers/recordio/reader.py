"""`fn.readers.mxnet`: the image records of MXNet RecordIO files.

The dataset is the records of the ``path`` files taken as one stream of data (the files
concatenated in order), as DALI's ``RecordIOLoader`` takes them; a sample is one record, and
the outputs are its encoded image (1-D uint8, the bytes after the header and labels) and its
label (1-D float32: ``[label]`` for a record whose header's ``flag`` is 0, else the ``flag``
labels written after the header), as DALI's ``RecordIOParser`` gives them.

The records are listed once, at build: from the one index file DALI takes (``index_path``,
``key offset`` lines, offsets counted in the files concatenated; `index`), or, without
``index_path`` (beyond DALI, which requires it), by walking the part headers of the data
(`format.scan_records`), which checks each magic number on the way so that a file that is not
RecordIO, or a corrupt one, is reported at build with the offset where it goes wrong. Every
user error (missing files, not one index file, an unreadable or empty index, an offset past
the end of the files, empty datasets) is raised at build. As in DALI, a record spans from its
offset to the next one listed, and may run on from one file into the next (`stream`).

Each batch then gets its records as one byte range per run of consecutive records of a file
(`stream.Concatenation.fetch`): a view of the file mapped in memory for local files of 1 MiB
or more (DALI's default; ``dont_use_mmap`` reads them), else read through `_storage` (local
files or fsspec URLs, in parallel). The records are parsed in place: the image of a
single-part record is a view of those bytes, no record is copied. A record written in several
parts (its payload held the magic number at an aligned place) is put back together with the
magic number between the parts, as MXNet reads it (`format.read_payload`). A record whose
framing does not fit the bytes the index gives it is an error naming the file and the offset
(DALI reads past it).

``source_info`` is DALI's: the image's is ``"<path> at index <offset>"``, the record's byte
offset in the file it starts in; the label's is empty. Shuffling is DALI's:
``random_shuffle`` draws from a buffer filled with the records in order,
``shuffle_after_epoch`` permutes the files every epoch (each file's records stay in order, so
reads stay sequential), and the two may be combined.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.recordio.format import (
    RecordIOError,
    read_payload,
    scan_records,
    split_image_record,
)
from dali._ops.readers.recordio.index import Records, locate, parse_index
from dali._ops.readers.recordio.stream import Concatenation
from dali._ops.readers.storage import access as _storage
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["MXNet"]


@register(
    "readers.mxnet",
    devices=("cpu",),
    inputs=0,
    outputs=2,
    source=True,
    random=True,
    class_name="MXNet",
    # the index only says where the records are: with or without it, the samples are the same
    non_semantic=(*NON_SEMANTIC, "index_path"),
    args=[
        Arg("path", "str_vec", default=REQUIRED, doc="RecordIO (.rec) files (paths or URLs)."),
        Arg(
            "index_path",
            "str_vec",
            doc="One index (.idx) file for all the files (`rec2idx`); without it they are scanned.",
        ),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class MXNet(IndexedReader):
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
    """

    shuffle_kind = "archive"

    def check_arguments(self) -> None:
        if not self.arg("path"):
            raise self.arg_error("path", "no files specified")
        if self.has_arg("index_path") and len(self.arg("index_path")) != 1:
            raise self.arg_error(
                "index_path",
                f"has {len(self.arg('index_path'))} entries: give a list of one index file, "
                "whose offsets count in the `path` files concatenated (RecordIO takes a single "
                "index file; `rec2idx` writes one for several files)",
            )

    def archive_starts(self) -> np.ndarray:
        files = self._records.files
        return np.concatenate([[0], np.flatnonzero(np.diff(files)) + 1])

    # -- listing ----------------------------------------------------------------------------
    def list_samples(self) -> int:
        paths = list(self.arg("path"))
        self._paths = paths
        self._use_mmap = not self.arg("dont_use_mmap")
        self._read_ahead = bool(self.arg("read_ahead"))
        self._remote = [p for p in paths if _storage.is_url(p)]
        sizes = [self._file_size(p) for p in paths]
        self._data = Concatenation(paths, sizes)
        if self.has_arg("index_path"):
            (index,) = self.arg("index_path")
            starts = self._read_index(index)
            try:
                records = locate(starts, sizes)
            except RecordIOError as e:
                raise self.arg_error("index_path", f"'{index}' does not match `path`: {e}") from e
        else:
            records = locate(self._scan(), sizes)
        self._records: Records = records
        return len(records.starts)

    def _file_size(self, path: str) -> int:
        try:
            if _storage.isdir(path):
                raise self.arg_error("path", f"'{path}' is a directory, not a RecordIO file")
            return _storage.size(path)
        except FileNotFoundError as e:
            raise self.arg_error("path", f"'{path}' does not exist") from e
        except OSError as e:
            raise self.arg_error("path", f"cannot read '{path}': {e.strerror or e}") from e

    def _read_index(self, index: str) -> np.ndarray:
        try:
            text = _storage.read_text(index)
        except FileNotFoundError as e:
            raise self.arg_error("index_path", f"'{index}' does not exist") from e
        except OSError as e:
            raise self.arg_error("index_path", f"cannot read '{index}': {e.strerror or e}") from e
        try:
            starts = parse_index(text)
        except RecordIOError as e:
            raise self.arg_error("index_path", f"'{index}', {e}") from e
        if not starts.size:
            raise self.arg_error("index_path", f"'{index}' lists no records")
        return starts

    def _scan(self) -> np.ndarray:
        data = self._data
        if data.total == 0:
            raise self.arg_error("path", f"the files hold no records: {', '.join(self._paths)}")
        try:
            return scan_records(data.total, data.read)
        except RecordIOError as e:
            where = data.describe(e.offset)
            raise self.arg_error("path", f"{where} is not a valid RecordIO file: {e}") from e
        except OSError as e:
            what = e.filename or ", ".join(self._paths)
            raise self.arg_error("path", f"cannot read '{what}': {e.strerror or e}") from e

    def source_info(self, index: int) -> str:
        return self.batch_source_info(np.array([index]))[0]

    def batch_source_info(self, ids: np.ndarray) -> list[str]:
        # (Python ints: formatting numpy scalars one by one costs more than the parse)
        r, paths = self._records, self._paths
        files, offsets = r.files[ids].tolist(), r.offsets[ids].tolist()
        return [f"{paths[f]} at index {o}" for f, o in zip(files, offsets)]

    def _extents(self, ids: np.ndarray) -> list[_storage.Extent]:
        """Every byte range the records ``ids`` read (for the read-ahead hints)."""
        starts, sizes = self._records.starts[ids].tolist(), self._records.sizes[ids].tolist()
        return [e for s, n in zip(starts, sizes) for e in self._data.pieces(s, s + n)]

    # -- running --------------------------------------------------------------------------
    def _runs(self, ids: np.ndarray) -> list[tuple[int, int]]:
        """The batch's records grouped as ``(first, stop)`` positions of runs of consecutive
        records starting in one file, each read as one byte range.

        A record spans to the next one, so consecutive indices are consecutive bytes. The runs
        are cut into at least ``READ_THREADS`` parts so that the reads still go in parallel.
        """
        from dali import _options as options

        n = len(ids)
        files = self._records.files[ids]
        breaks = np.flatnonzero((ids[1:] != ids[:-1] + 1) | (files[1:] != files[:-1]))
        bounds = [0, *(breaks + 1).tolist(), n]
        cap = max(1, -(-n // max(1, options.READ_THREADS)))
        return [
            (a, min(hi, a + cap))
            for lo, hi in itertools.pairwise(bounds)
            for a in range(lo, hi, cap)
        ]

    def _read(self, ids: np.ndarray, parallel_map: Any) -> list[np.ndarray | OSError]:
        """Every record of the batch as a uint8 view of its run's bytes, or its `OSError`."""
        starts, sizes = self._records.starts, self._records.sizes
        runs = self._runs(ids)
        spans = []
        for a, b in runs:
            spans.append((int(starts[ids[a]]), int(starts[ids[b - 1]] + sizes[ids[b - 1]])))
        pieces = [self._data.pieces(lo, hi) for lo, hi in spans]
        flat = [e for p in pieces for e in p]
        got = iter(self._fetch(flat, parallel_map))
        records: list[np.ndarray | OSError] = [np.empty(0, np.uint8)] * len(ids)
        for (a, b), (lo, _), p in zip(runs, spans, pieces):
            data = _joined([next(got) for _ in p])
            if isinstance(data, OSError):  # which record: one by one
                for i in range(a, b):
                    records[i] = self._read_one(int(starts[ids[i]]), int(sizes[ids[i]]))
                continue
            for i in range(a, b):
                first = int(starts[ids[i]]) - lo
                records[i] = data[first : first + int(sizes[ids[i]])]
        return records

    def _read_one(self, start: int, size: int) -> np.ndarray | OSError:
        return _joined(self._fetch(self._data.pieces(start, start + size), None))

    def _fetch(
        self, extents: list[_storage.Extent], parallel_map: Any
    ) -> list[np.ndarray | OSError]:
        return self._data.fetch(
            extents,
            use_mmap=self._use_mmap,
            read_ahead=self._read_ahead,
            parallel_map=parallel_map,
        )

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        ids = self.next_samples(ws)
        records = self._read(ids, ws.map)
        r = self._records
        images: list[np.ndarray] = []
        labels: list[np.ndarray] = []
        for i, record in enumerate(records):
            path, offset = self._paths[r.files[ids[i]]], int(r.offsets[ids[i]])
            if isinstance(record, OSError):
                err = self.error(
                    f"cannot read the record at offset {offset} of '{path}': "
                    f"{record.strerror or record}"
                )
                err.__cause__ = record
                raise SampleFailure(i, err) from record
            try:
                label, image = split_image_record(read_payload(record, offset))
            except RecordIOError as e:
                err = self.error(f"'{path}' at index {offset}: {e}")
                raise SampleFailure(i, err) from e
            images.append(image)
            labels.append(label)
        if self._remote:  # (local files: the OS reads ahead)
            self.hint_ahead(self._extents)
        source_info = self.batch_infos(ws)
        # one label each (the usual case): one dense batch array
        dense = all(lab.shape == (1,) for lab in labels)
        label_data: Any = np.concatenate(labels).reshape(-1, 1) if dense else labels
        # DALI gives the images their record's source_info and the labels none (an explicit
        # empty one: the executor would give a batch without any the sample's)
        return (
            TensorListCPU.wrap(images, "", source_info),
            TensorListCPU.wrap(label_data, "", [""] * len(ids)),
        )

    def close(self) -> None:
        if getattr(self, "_remote", None):
            _storage.drop_prefetched(self._remote)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # the image's bytes and its labels (one, or the record's flag of them)
        return [
            {"dtype": DALIDataType.UINT8, "static_shape": (None,), "layout": ""},
            {"dtype": DALIDataType.FLOAT, "static_shape": (None,), "layout": ""},
        ]


def _joined(parts: list[np.ndarray | OSError]) -> np.ndarray | OSError:
    """The pieces of one byte range read from several files, as one array (or the first
    piece's `OSError`); a single piece is returned as is (no copy)."""
    arrays: list[np.ndarray] = []
    for d in parts:
        if isinstance(d, OSError):
            return d
        arrays.append(d)
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
