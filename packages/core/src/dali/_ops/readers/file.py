"""`fn.readers.file`: file bytes and labels from a class tree, a list file or a list.

The reader lists its files once, at build (`_listing`), so that every user error (missing
`file_root`, an empty dataset, a list entry naming a missing file or a FIFO, impossible sharding)
is raised before the first batch; FIFOs, sockets and devices in a class tree are skipped, as DALI
skips them, but with a warning naming them. A file that vanishes (or turns into one of those)
after the listing is an error naming the operator and the file when it is read, never a hang.

It then produces an endless stream of samples (`_sharding`): each batch holds exactly
``batch_size`` samples, each a fresh 1-D uint8 array of the raw file bytes, read by
``options.READ_PROCESSES`` worker processes of the reader (``options.READ_WORKER``,
`_read_worker`: no GIL time in this process) or else by ``options.READ_THREADS`` threads
(`dali._options` says why). Files of ``options.MMAP_MIN_BYTES`` or more are
memory-mapped unless ``dont_use_mmap=True``; smaller ones (JPEGs, PNGs, audio clips) are
always read, see there why.

Any path may be an fsspec URL (``s3://bucket/train``, `_storage`): a remote ``file_root`` is
listed as a class tree of prefixes, a remote ``file_list`` read and its entries checked with a
listing per folder, and remote files are read through `_storage.read_extents` (a batch's
requests at once, the next batch's fetched ahead) instead of the worker processes.

Every sample carries its identity: the index of its file in the listed (sorted, unshuffled)
dataset and its pass over that file. Random operators downstream key their values on it, so
a file gets the same augmentation whatever the shard, the number of shards or the batch size.
"""

from __future__ import annotations

import collections
import logging
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.loader.listing import (
    DEFAULT_FILE_FILTERS,
    list_file_root,
    parse_file_list,
    unreadable_files,
)
from dali._ops.readers.loader.sharding import ReaderCursor
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage import read_worker as _read_worker
from dali._ops.readers.storage import remote as _remote
from dali._ops.readers.storage.access import Extent, is_url, read_file
from dali._ops.readers.storage.read_worker import ReadWorkers
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "File",
    "list_file_root",
    "parse_file_list",
    "read_file",
]


_INT32_MAX = 2**31 - 1

_log = logging.getLogger("dali")


# -- the operator -----------------------------------------------------------------------------


def _some(items: list[str]) -> str:
    """The first five of ``items`` joined with "; ", and how many more (for messages)."""
    more = f" (and {len(items) - 5} more)" if len(items) > 5 else ""
    return "; ".join(items[:5]) + more


@register(
    "readers.file",
    devices=("cpu",),
    inputs=0,
    outputs=2,
    source=True,
    random=True,
    non_semantic=NON_SEMANTIC,
    args=[
        Arg("file_root", "str", doc="Root folder: class subfolders, or the base of list paths."),
        Arg("file_list", "str", doc="Text file with one `path label` per line."),
        Arg("files", "str_vec", doc="File paths (relative to file_root if given)."),
        Arg("labels", "int_vec", doc="Labels for `files` (default: the index in `files`)."),
        Arg(
            "file_filters",
            "str_vec",
            default=DEFAULT_FILE_FILTERS,
            doc="Glob patterns for file names under file_root.",
        ),
        Arg("dir_filters", "str_vec", doc="Glob patterns for the class folders of file_root."),
        Arg("case_sensitive_filter", "bool", default=False, doc="Match filters case-sensitively."),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class File(IndexedReader):
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
    """

    def list_samples(self) -> int:
        rel, full, labels = self._list_files()
        self._rel = rel
        self._full = full
        self._labels = np.asarray(labels, dtype=np.int32)
        self._use_mmap = not self.arg("dont_use_mmap")
        #: some files are URLs: every batch is read through `_storage` (no worker processes)
        self._remote = any(map(is_url, full))
        self._read_ahead = bool(self.arg("read_ahead"))
        self._worker: ReadWorkers | None = None
        self._worker_off = False  # it could not start, or died: read here from then on
        self._worker_wanted: bool | None = None  # None: `READ_WORKER` decides
        # the files asked for ahead, in order, and the cursor after the last of them (None:
        # the requests in flight, if any, are not the batches that follow: drop them)
        self._ahead: collections.deque[list[str]] = collections.deque()
        self._ahead_cursor: ReaderCursor | None = None
        self._closed = False
        return len(rel)

    def source_info(self, index: int) -> str:
        return self._rel[index]

    def check_arguments(self) -> None:
        has = self.has_arg
        if has("file_list") and has("files"):
            raise self.arg_error("files", "`file_list` and `files` are mutually exclusive")
        if has("labels") and not has("files"):
            raise self.arg_error(
                "labels", "is valid only when the file paths are given with `files`"
            )
        if not (has("file_root") or has("file_list") or has("files")):
            raise self.arg_error(
                "file_root", "one of `file_root`, `file_list` or `files` must be given"
            )

    def _list_files(self) -> tuple[list[str], list[str], list[int]]:
        """``(listed paths, paths to open, labels)`` of the dataset, in index order."""
        root = self.arg("file_root") if self.has_arg("file_root") else None
        if self.has_arg("file_list"):
            return self._from_file_list(self.arg("file_list"), root)
        if self.has_arg("files"):
            return self._from_files(list(self.arg("files")), root)
        assert root is not None
        try:
            if not _storage.isdir(root):
                what = "is not a directory" if _storage.exists(root) else "does not exist"
                raise self.arg_error("file_root", f"'{root}' {what}")
            rel, labels, n_classes, skipped = (
                _remote.list_file_root if is_url(root) else list_file_root
            )(
                root,
                self.arg("file_filters"),
                self.arg("dir_filters") or None,
                bool(self.arg("case_sensitive_filter")),
            )
        except OSError as e:
            raise self.arg_error("file_root", f"cannot list '{root}': {e}") from e
        if skipped:
            # DALI skips them silently; we say so (not in reader_meta: its keys are DALI's)
            shown = ", ".join(f"'{p}' ({kind})" for p, kind in skipped[:5])
            more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
            _log.warning(
                "%s (%s): skipped %d entr%s of file_root '%s' that %s not regular files: %s%s",
                self.display_name,
                self.name,
                len(skipped),
                "y" if len(skipped) == 1 else "ies",
                root,
                "is" if len(skipped) == 1 else "are",
                shown,
                more,
            )
        if not rel:
            if n_classes == 0:
                why = "it has no class subdirectories" + (
                    f" matching dir_filters={list(self.arg('dir_filters'))}"
                    if self.has_arg("dir_filters")
                    else ""
                )
            else:
                why = (
                    f"none of its {n_classes} class subdirectories holds a file matching "
                    f"file_filters={list(self.arg('file_filters'))}"
                )
            raise self.arg_error("file_root", f"no files found under '{root}': {why}")
        return rel, [_storage.join(root, p) for p in rel], labels

    def _from_file_list(
        self, file_list: str, root: str | None
    ) -> tuple[list[str], list[str], list[int]]:
        try:
            text = _storage.read_text(file_list)
        except OSError as e:
            raise self.arg_error(
                "file_list", f"cannot read '{file_list}': {e.strerror or e}"
            ) from e
        try:
            entries = parse_file_list(text)
        except ValueError as e:
            raise self.arg_error("file_list", f"'{file_list}', {e}") from e
        if not entries:
            raise self.arg_error("file_list", f"'{file_list}' lists no files")
        for number, _path, label in entries:
            if label > _INT32_MAX:
                raise self.arg_error(
                    "file_list", f"'{file_list}', line {number}: label {label} does not fit int32"
                )
        if root is not None:
            base = root
        elif is_url(file_list):
            base = file_list.rsplit("/", 1)[0]
        else:
            base = os.path.dirname(file_list)
        rel = [p for _, p, _ in entries]
        full = [_storage.join(base, p) for p in rel]
        missing, not_regular = self._unreadable(full, "file_list")
        if missing:
            shown = _some([f"line {entries[i][0]}: '{rel[i]}' -> '{full[i]}'" for i in missing])
            raise self.arg_error(
                "file_list", f"'{file_list}' names {len(missing)} missing file(s): {shown}"
            )
        if not_regular:
            shown = _some(
                [f"line {entries[i][0]}: '{rel[i]}' -> '{full[i]}' is {k}" for i, k in not_regular]
            )
            raise self.arg_error(
                "file_list",
                f"'{file_list}' names {len(not_regular)} entr"
                f"{'y' if len(not_regular) == 1 else 'ies'} that cannot be read as a regular "
                f"file: {shown}",
            )
        return rel, full, [label for _, _, label in entries]

    def _from_files(
        self, files: list[str], root: str | None
    ) -> tuple[list[str], list[str], list[int]]:
        if not files:
            raise self.arg_error("files", "the list of files is empty")
        if self.has_arg("labels"):
            labels = [int(v) for v in self.arg("labels")]
            if len(labels) != len(files):
                raise self.arg_error(
                    "labels",
                    f"has {len(labels)} entries but `files` has {len(files)}: they must match",
                )
            bad = [v for v in labels if not -(2**31) <= v <= _INT32_MAX]
            if bad:
                raise self.arg_error("labels", f"label {bad[0]} does not fit int32")
        else:
            labels = list(range(len(files)))
        full = [_storage.join(root, p) if root is not None else p for p in files]
        missing, not_regular = self._unreadable(full, "files")
        if missing:
            shown = _some([f"'{full[i]}'" for i in missing])
            raise self.arg_error("files", f"{len(missing)} file(s) do not exist: {shown}")
        if not_regular:
            shown = _some([f"'{full[i]}' is {kind}" for i, kind in not_regular])
            raise self.arg_error(
                "files",
                f"{len(not_regular)} entr{'y' if len(not_regular) == 1 else 'ies'} cannot be "
                f"read as a regular file: {shown}",
            )
        return list(files), full, labels

    def _unreadable(self, full: list[str], arg: str) -> tuple[list[int], list[tuple[int, str]]]:
        """`unreadable_files` of ``full``, its URLs asked with a listing per folder."""
        remote = [i for i, p in enumerate(full) if is_url(p)]
        if not remote:
            return unreadable_files(full)
        local = [i for i, p in enumerate(full) if not is_url(p)]
        try:
            r_missing, r_special = _remote.missing_files([full[i] for i in remote])
        except OSError as e:
            raise self.arg_error(arg, f"cannot list '{e.filename}': {e.strerror or e}") from e
        l_missing, l_special = unreadable_files([full[i] for i in local]) if local else ([], [])
        missing = sorted([remote[j] for j in r_missing] + [local[j] for j in l_missing])
        special = sorted(
            [(remote[j], k) for j, k in r_special] + [(local[j], k) for j, k in l_special]
        )
        return missing, special

    # -- running --------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        n = self._batch_size
        ids = self.next_samples(ws)
        paths = [self._full[k] for k in ids.tolist()]
        if self._remote:
            return self._run_remote(ws, ids, paths)
        use_mmap, read_ahead = self._use_mmap, self._read_ahead
        # module constants read at each run, so that benchmarks may change them
        min_bytes, k = options.MMAP_MIN_BYTES, max(1, min(options.READ_THREADS, n))

        def read(i: int) -> np.ndarray | OSError:
            try:
                return read_file(
                    paths[i], use_mmap=use_mmap, read_ahead=read_ahead, mmap_min_bytes=min_bytes
                )
            except OSError as e:
                return e  # raised below, for the first failing sample in batch order

        worker = self._read_worker()
        heads = None
        if worker is not None:
            data, heads = self._read_by_worker(worker, paths, read)
        elif k == 1:
            data = [read(i) for i in range(n)]
        else:
            data = [None] * n
            for c, part in enumerate(ws.map(lambda c: [read(i) for i in range(c, n, k)], k)):
                data[c::k] = part
        for i, d in enumerate(data):
            if isinstance(d, OSError):
                err = self.error(f"cannot read file '{paths[i]}': {d.strerror or d}")
                err.__cause__ = d
                raise SampleFailure(i, err) from d
        source_info = self.batch_infos(ws)
        labels = self._labels[ids].reshape(n, 1)
        files = TensorListCPU.wrap(data, "", source_info)
        if heads is not None:
            # the JPEG headers the worker processes walked (`_read_worker_main`), for the GPU
            # decoders' planning (`_mixed_plan._headers`), which would otherwise walk them here
            files.derived = {"jpeg_header_rows": heads}
        return files, TensorListCPU.wrap(labels, "", source_info)

    def _run_remote(
        self, ws: Workspace, ids: np.ndarray, paths: list[str]
    ) -> tuple[TensorListCPU, TensorListCPU]:
        """A batch with URLs: read through `_storage` (concurrent requests), then the next
        batches' files asked for ahead."""
        data = _storage.read_extents(
            [Extent(p) for p in paths], use_mmap=self._use_mmap, parallel_map=ws.map
        )
        for i, d in enumerate(data):
            if isinstance(d, OSError):
                err = self.error(f"cannot read file '{paths[i]}': {d.strerror or d}")
                err.__cause__ = d
                raise SampleFailure(i, err) from d
        # the next `READ_AHEAD` batches (those asked for already are not asked again): with
        # one, a reader with little to do per batch would still wait a round trip for each
        self.hint_ahead(lambda ids: [Extent(self._full[k]) for k in ids.tolist()])
        source_info = self.batch_infos(ws)
        labels = self._labels[ids].reshape(len(paths), 1)
        return (
            TensorListCPU.wrap(data, "", source_info),
            TensorListCPU.wrap(labels, "", source_info),
        )

    def _read_worker(self) -> ReadWorkers | None:
        """The worker process reading the files (started on first use), or None (`READ_WORKER`)."""
        if self._worker is not None or self._worker_off:
            return self._worker
        wanted = options.READ_WORKER if self._worker_wanted is None else self._worker_wanted
        if wanted is None:
            wanted = self.pipeline.device_id is not None
        if not wanted or not _read_worker.supported():
            self._worker_off = True
            return None
        try:
            self._worker = _read_worker.ReadWorkers(options.READ_PROCESSES)
        except OSError as e:
            _log.warning(
                "%s: cannot start the file-reading process (%s); reading here", self.name, e
            )
            self._worker_off = True
        return self._worker

    def _read_by_worker(
        self, worker: ReadWorkers, paths: list[str], read: Any
    ) -> tuple[list[Any], np.ndarray | None]:
        """The batch read by ``worker``; files it leaves to us (large ones: mapped) read here.
        Also the files' JPEG header rows the workers walked (`ReadWorkers.receive_batch`; None
        after a worker died).

        The next `READ_AHEAD` batches' files are asked for at once (the workers read them while
        the pipeline works on this one), from a copy of the cursor; a batch asked for ahead is
        used only if it is the one wanted (it is not after the state was restored).
        """
        map_min = options.MMAP_MIN_BYTES if self._use_mmap else None
        ahead = self._ahead
        heads = None
        try:
            data = None
            if ahead and self._ahead_cursor is not None and ahead[0] == paths:
                ahead.popleft()
                data, heads = worker.receive_batch()
            else:
                while ahead:  # not the batches that follow: their answers are dropped
                    ahead.popleft()
                    worker.receive()
                self._ahead_cursor = None
                data, heads = worker.read(paths, map_min, options.WALK_HEADERS)
            if self._ahead_cursor is None:
                self._ahead_cursor = self._cursor.copy()
            while len(ahead) < max(1, options.READ_AHEAD):
                nxt, _ = self._ahead_cursor.next_batch(self._batch_size)
                ahead.append([self._full[k] for k in nxt.tolist()])
                worker.send(ahead[-1], map_min, options.WALK_HEADERS)
        except _read_worker.WorkerDied as e:
            if not self._closed:  # (closed: the pipeline drops this iteration anyway)
                _log.warning("%s: %s; reading the files here from now on", self.name, e)
            self._worker, self._worker_off, self._ahead_cursor = None, True, None
            ahead.clear()
            if data is None:
                return [read(i) for i in range(len(paths))], None
        return [read(i) if d is None else d for i, d in enumerate(data)], heads

    def close(self) -> None:
        self._closed = True
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()
        if getattr(self, "_remote", False):  # (what was fetched ahead is of no use now)
            _storage.drop_prefetched(p for p in self._full if is_url(p))

    # -- state ----------------------------------------------------------------------------
    def set_state(self, state: dict[str, Any]) -> None:
        self._ahead_cursor = None  # the batches asked for ahead may not follow any more
        super().set_state(state)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # the file's bytes (any length) and one label
        return [
            {"dtype": DALIDataType.UINT8, "static_shape": (None,), "layout": ""},
            {"dtype": DALIDataType.INT32, "static_shape": (1,), "layout": ""},
        ]
