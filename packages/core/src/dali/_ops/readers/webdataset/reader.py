"""`fn.readers.webdataset`: samples made of the files of tar shards (DALI's ``readers.webdataset``).

A webdataset is a list of tar archives ("shards"); a sample is a run of consecutive files of one
shard sharing a key, the name up to the first dot of the base name, and each file is a
*component* named by the rest, its extension (`_wds_index`: ``000123.jpg``, ``000123.cls`` and
``000123.seg.png`` are the components ``jpg``, ``cls`` and ``seg.png`` of sample ``000123``).
Hidden files and entries that are not regular files are not components.

The reader has one output per entry of ``ext``: a set of extensions separated by ``;``
(``"cls;json"`` takes whichever the sample has; the first one in the shard when it has both),
matched case-sensitively unless ``case_sensitive_extensions=False``. Each output sample is the
component's bytes as a 1-D array, of ``uint8`` or of the output's entry of ``dtypes`` (the bytes
reinterpreted, little-endian as stored; the component's size must be a multiple of the type's).
A sample without a component for an output follows ``missing_component_behavior``: ``"empty"``
(the default, also ``""``) gives an empty array, ``"skip"`` drops the sample from the dataset,
``"error"`` refuses the dataset at build, naming the sample.

The shards are listed once, at build: from their index files (``index_paths``, DALI's
``wds2idx`` format v1.1 or v1.2, made by `dali.tools.wds2idx`) or, without them, by reading the
tar headers only (`_wds_tar`: the data is skipped, so this costs one small read per member).
Every user error is raised then, naming the file: a missing shard, a file that is not a tar or is
truncated, a malformed index or one that does not match its shard, a component whose size does
not fit its ``dtypes`` entry, a sample missing a component with ``"error"``.

Each batch then reads one byte range per component (`_storage.read_extents`, in parallel), local
or remote (``s3://...``: the same listing and samples through fsspec). ``source_info`` of an
output sample is ``"<shard>:<data offset>:<member name>"`` as in DALI (the name is empty with a
v1.1 index), and empty for an empty output.

Where DALI 2.4 differs (its documented intent is followed; the conformance cases list them):
it takes a hidden file inside a directory (``sub/.keep``) for a sample when it scans a shard
(its ``wds2idx`` skips it), makes an empty sample of a shard's leading hidden file and of an
archive without files (an error here), cannot read pax headers (Python's default tar format),
treats every sample as incomplete when one extension is in two outputs' sets (``"skip"`` then
skips them all).

Shuffling is DALI's: ``random_shuffle`` draws from a buffer filled with the samples in order,
``shuffle_after_epoch`` permutes the archives every epoch (each archive's samples stay in
order), and the two may be combined.

Example:
    >>> import io, os, tarfile, tempfile
    >>> import dali, dali.fn as fn
    >>> path = os.path.join(tempfile.mkdtemp(), "shard.tar")
    >>> with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
    ...     for name, data in (("000.jpg", b"JPEG"), ("000.cls", b"3"), ("001.jpg", b"PNG")):
    ...         info = tarfile.TarInfo(name)
    ...         info.size = len(data)
    ...         tar.addfile(info, io.BytesIO(data))
    >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    >>> with pipe:
    ...     images, labels = fn.readers.webdataset(paths=[path], ext=["jpg", "cls"])
    ...     pipe.set_outputs(images, labels)
    >>> images_out, labels_out = pipe.run()
    >>> [bytes(images_out.at(i)) for i in range(2)], [bytes(labels_out.at(i)) for i in range(2)]
    ([b'JPEG', b'PNG'], [b'3', b''])
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import NP_BY_DALI, DALIDataType, type_name
from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage.access import Extent
from dali._ops.readers.webdataset.index import (
    Component,
    IndexFormatError,
    check_against_tar,
    parse_index,
    scan_samples,
    split_name,
)
from dali._ops.readers.webdataset.tar import TarFormatError
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Webdataset"]

_log = logging.getLogger("dali")

#: The output types DALI 2.4 accepts (``kSupportedTypes``): numbers, not BOOL or strings.
SUPPORTED_DTYPES = (
    DALIDataType.UINT8,
    DALIDataType.UINT16,
    DALIDataType.UINT32,
    DALIDataType.UINT64,
    DALIDataType.INT8,
    DALIDataType.INT16,
    DALIDataType.INT32,
    DALIDataType.INT64,
    DALIDataType.FLOAT16,
    DALIDataType.FLOAT,
    DALIDataType.FLOAT64,
)

_MISSING = {"": "empty", "empty": "empty", "skip": "skip", "error": "error"}


def _ext_sets(exts: tuple[str, ...], case_sensitive: bool) -> list[list[str]]:
    """Each ``ext`` entry split at ``;`` (without repeats; a trailing ``;`` adds nothing)."""
    out = []
    for entry in exts:
        parts = entry.split(";")
        if parts and parts[-1] == "":  # DALI splits with getline: "a;" is ["a"], "" is []
            parts.pop()
        seen: list[str] = []
        for p in parts:
            p = p if case_sensitive else p.lower()
            if p not in seen:
                seen.append(p)
        out.append(seen)
    return out


@register(
    "readers.webdataset",
    devices=("cpu",),
    inputs=0,
    outputs=lambda args: len(args.get("ext") or ()),
    source=True,
    random=True,
    # an index only spares the scan: the samples are the same with or without it
    non_semantic=(*NON_SEMANTIC, "index_paths"),
    args=[
        Arg("paths", "str_vec", default=REQUIRED, doc="The tar archives (shards) of the dataset."),
        Arg(
            "ext",
            "str_vec",
            default=REQUIRED,
            doc='One extension set per output; ";" separates alternatives ("cls;json").',
        ),
        Arg(
            "index_paths",
            "str_vec",
            default=(),
            doc="Index files of the shards (wds2idx format); without them the tars are scanned.",
        ),
        Arg(
            "missing_component_behavior",
            "str",
            default="",
            doc='Sample without a component for an output: "empty" (default), "skip", "error".',
        ),
        Arg("dtypes", "dtype_vec", doc="Type of each output (default UINT8): the bytes as it."),
        Arg(
            "case_sensitive_extensions",
            "bool",
            default=True,
            doc="Match the extensions of `ext` case-sensitively.",
        ),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class Webdataset(IndexedReader):
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
    """

    shuffle_kind = "archive"

    # -- listing ------------------------------------------------------------------------------
    def check_arguments(self) -> None:
        paths = tuple(self.arg("paths"))
        if not paths:
            raise self.arg_error("paths", "no webdataset archives given (the list is empty)")
        index_paths = tuple(self.arg("index_paths"))
        if index_paths and len(index_paths) != len(paths):
            raise self.arg_error(
                "index_paths",
                f"has {len(index_paths)} entries but `paths` has {len(paths)}: give one index "
                "file per archive, or none (the archives are then scanned)",
            )
        exts = tuple(self.arg("ext"))
        if not exts:
            raise self.arg_error("ext", "give at least one extension set (one per output)")
        behavior = self.arg("missing_component_behavior")
        if behavior.lower() not in _MISSING:
            raise self.arg_error(
                "missing_component_behavior",
                f"invalid value {behavior!r}; possible values are: empty, skip, error",
            )
        self._missing = _MISSING[behavior.lower()]
        dtypes = tuple(self.arg("dtypes")) if self.has_arg("dtypes") else ()
        for dt in dtypes:
            if dt not in SUPPORTED_DTYPES:
                raise self.arg_error(
                    "dtypes",
                    f"unsupported output type {type_name(dt)}; supported types are: "
                    + ", ".join(type_name(t) for t in SUPPORTED_DTYPES),
                )
        if dtypes and len(dtypes) != len(exts):
            raise self.arg_error(
                "dtypes",
                f"has {len(dtypes)} types but `ext` has {len(exts)} extension sets: give one "
                "type per output",
            )
        self._dtypes = [NP_BY_DALI[dt] for dt in dtypes] or [np.dtype(np.uint8)] * len(exts)
        self._case_sensitive = bool(self.arg("case_sensitive_extensions"))
        self._exts = _ext_sets(exts, self._case_sensitive)

    def archive_starts(self) -> np.ndarray:
        files = np.asarray(self._ctar, dtype=np.int64)[self._first]
        return np.concatenate([[0], np.flatnonzero(np.diff(files)) + 1])

    def list_samples(self) -> int:
        self._paths = [str(p) for p in self.arg("paths")]
        self._remote = any(_storage.is_url(p) for p in self._paths)
        index_paths = [str(p) for p in self.arg("index_paths")]
        k = len(self._exts)
        self._ext_map: dict[str, list[int]] = {}
        for o, alternatives in enumerate(self._exts):
            for e in alternatives:
                self._ext_map.setdefault(e, []).append(o)
        # the components kept (those an output takes, and each sample's first, for its
        # source_info) as flat columns; per sample and output, the component it takes
        self._ctar: list[int] = []
        self._coff: list[int] = []
        self._csize: list[int] = []
        self._cname: list[str] = []
        self._seen_exts: set[str] = set()
        self._warned_twice = False
        table: list[list[int]] = []
        first: list[int] = []
        skipped = 0
        for t, path in enumerate(self._paths):
            index = index_paths[t] if index_paths else None
            for s, comps in enumerate(self._shard_samples(path, index)):
                kept = len(self._coff)
                row, first_id = self._take(t, comps, (path, index, s))
                missing = [o for o in range(k) if row[o] < 0]
                if missing and self._missing == "skip":
                    skipped += 1
                    del self._ctar[kept:], self._coff[kept:], self._csize[kept:]
                    del self._cname[kept:]
                    continue
                if missing and self._missing == "error":
                    wanted = ", ".join(f"output {o} (ext {self.arg('ext')[o]!r})" for o in missing)
                    raise self.arg_error(
                        "missing_component_behavior",
                        f"'error': {self._where(path, index, s, comps)} has no component for "
                        f"{wanted}",
                    )
                table.append(row)
                first.append(first_id)
        if not table:
            why = (
                f"{skipped} samples skipped for a missing component"
                if skipped
                else "no regular, non-hidden files"
            )
            raise self.arg_error("paths", f"the archives hold no samples ({why}): {self._paths}")
        self._table = np.asarray(table, dtype=np.int64).reshape(len(table), k)
        self._first = np.asarray(first, dtype=np.int64)
        self._warn_unmatched()
        return len(table)

    def _take(
        self, tar: int, comps: list[Component], at: tuple[str, str | None, int]
    ) -> tuple[list[int], int]:
        """Which component each output takes from a sample (-1: none), and the id of its first
        component. A component goes to every output whose set has its extension, unless an
        earlier component of the sample took that output (DALI warns, once). ``at`` is the
        shard, index and position of the sample (for `_where`)."""
        row = [-1] * len(self._exts)
        first_id = -1
        for c in comps:
            ext = c.ext if self._case_sensitive else c.ext.lower()
            self._seen_exts.add(ext)
            cid = -1
            for o in self._ext_map.get(ext, ()):
                if row[o] >= 0:
                    if not self._warned_twice:
                        self._warned_twice = True
                        _log.warning(
                            "%s (%s): %s has several components for output %d (ext %r); the "
                            "first one is used",
                            self.display_name,
                            self.name,
                            self._where(*at, comps),
                            o,
                            self.arg("ext")[o],
                        )
                    continue
                itemsize = self._dtypes[o].itemsize
                if c.size % itemsize:
                    raise self.arg_error(
                        "dtypes",
                        f"component '{c.name or c.ext}' of {self._where(*at, comps)} has "
                        f"{c.size} bytes, not a multiple of the {itemsize}-byte "
                        f"{self._dtypes[o].name} of output {o}",
                    )
                if cid < 0:
                    cid = self._add(tar, c)
                row[o] = cid
            if first_id < 0:
                first_id = cid if cid >= 0 else self._add(tar, c)
        return row, first_id

    def _warn_unmatched(self) -> None:
        """Warn about outputs no component matched: they are always empty (DALI is silent)."""
        taken = (self._table >= 0).any(axis=0)
        for o in np.flatnonzero(~taken).tolist():
            _log.warning(
                "%s (%s): ext %r (output %d) matches no component of the dataset; that output "
                "is always empty (the extensions found: %s)",
                self.display_name,
                self.name,
                self.arg("ext")[o],
                o,
                ", ".join(sorted(self._seen_exts)[:20]) or "none",
            )

    def _add(self, tar: int, c: Component) -> int:
        """Keep component ``c`` of shard ``tar``; its id."""
        self._ctar.append(tar)
        self._coff.append(c.offset)
        self._csize.append(c.size)
        self._cname.append(c.name)
        return len(self._coff) - 1

    def _shard_samples(self, path: str, index: str | None) -> list[list[Component]]:
        """The samples of one shard, from its index or its headers; errors name the files."""
        if index is None:
            try:
                return scan_samples(path)
            except TarFormatError as e:
                raise self.arg_error("paths", str(e)) from e
            except OSError as e:
                raise self.arg_error("paths", f"cannot read '{path}': {e.strerror or e}") from e
        try:
            text = _storage.read_text(index)
        except OSError as e:
            raise self.arg_error("index_paths", f"cannot read '{index}': {e.strerror or e}") from e
        try:
            samples = parse_index(text, index)
            check_against_tar(samples, path, index)
        except IndexFormatError as e:
            raise self.arg_error("index_paths", str(e)) from e
        except OSError as e:
            raise self.arg_error("paths", f"cannot read '{path}': {e.strerror or e}") from e
        return samples

    @staticmethod
    def _where(path: str, index: str | None, s: int, comps: list[Component]) -> str:
        """A sample for messages: its key and shard, or its line of the index."""
        if index is not None:
            return f"the sample of index file '{index}' line {s + 2} (archive '{path}')"
        return f"sample '{split_name(comps[0].name)[0]}' of '{path}'"

    def _info(self, c: int) -> str:
        return f"{self._paths[self._ctar[c]]}:{self._coff[c]}:{self._cname[c]}"

    def source_info(self, index: int) -> str:
        return self._info(int(self._first[index]))

    # -- reading ------------------------------------------------------------------------------
    def _extents(self, ids: np.ndarray) -> tuple[list[Extent], list[list[int]]]:
        """One extent per component the samples ``ids`` take (a component two outputs take is
        read once), and, per sample and output, the index of its extent (-1: empty)."""
        extents: list[Extent] = []
        where: list[list[int]] = []
        for row in self._table[ids].tolist():
            mine: dict[int, int] = {}
            slots = []
            for c in row:
                if c < 0:
                    slots.append(-1)
                    continue
                if c not in mine:
                    mine[c] = len(extents)
                    extents.append(
                        Extent(self._paths[self._ctar[c]], self._coff[c], self._csize[c])
                    )
                slots.append(mine[c])
            where.append(slots)
        return extents, where

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        extents, where = self._extents(ids)
        data = _storage.read_extents(extents, use_mmap=False, parallel_map=ws.map)
        rows = self._table[ids].tolist()
        arrays: list[np.ndarray] = []
        for e, d in enumerate(data):
            if isinstance(d, OSError):
                # the first sample (in batch order) taking the extent that failed
                i, o = next((i, s.index(e)) for i, s in enumerate(where) if e in s)
                c = rows[i][o]
                failure = self.error(
                    f"cannot read component '{self._cname[c] or extents[e].offset}' "
                    f"({extents[e].length} bytes at offset {extents[e].offset}) of "
                    f"'{extents[e].path}': {d.strerror or d}"
                )
                failure.__cause__ = d
                raise SampleFailure(i, failure) from d
            arrays.append(d)
        outputs = []
        for o, dtype in enumerate(self._dtypes):
            samples = []
            infos = []
            for i, slots in enumerate(where):
                e = slots[o]
                if e < 0:
                    samples.append(np.empty(0, dtype=dtype))
                    infos.append("")
                else:
                    raw = arrays[e]
                    samples.append(raw if dtype == np.uint8 else raw.view(dtype))
                    infos.append(self._info(rows[i][o]))
            outputs.append(TensorListCPU.wrap(samples, "", infos))
        if self._remote:  # (the OS reads ahead for local files)
            self.hint_ahead(lambda ids: self._extents(ids)[0])
        return tuple(outputs)

    def close(self) -> None:
        # what was fetched ahead for remote shards is of no use any more
        if getattr(self, "_remote", False):  # (False: closed before it listed the shards)
            _storage.drop_prefetched(p for p in self._paths if _storage.is_url(p))

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        n = len(args.get("ext") or ())
        dtypes = list(args.get("dtypes") or ()) or [DALIDataType.UINT8] * n
        if len(dtypes) != n:  # an error at build; nothing is known
            return [{} for _ in range(n)]
        return [{"dtype": dt, "static_shape": (None,), "layout": ""} for dt in dtypes]
