"""`fn.readers.numpy`: arrays from ``.npy`` files, whole or a region of interest (DALI's
``readers.numpy``).

The dataset is listed once, at build: the files of ``file_root`` (those directly inside it,
listed first as ``./name``, then those of each subfolder in sorted order, one level deep, that
match ``file_filter``, case-sensitively), the lines of a ``file_list``, or ``files``. Each sample
is one array with the file's type and shape (0-d arrays stay 0-d) and the layout ``""``:

* a file's header (`_npy_header`: versions 1.0 to 3.0) is read once, with a small range read,
  and kept for the reader's life, then each time only its payload is read;
* a ``fortran_order`` file comes out in C order (transposed, as DALI does), a big-endian one in
  native byte order (DALI 2.4 rejects those);
* with a region of interest (``roi_start``/``rel_roi_start``, ``roi_end``/``rel_roi_end``/
  ``roi_shape``/``rel_roi_shape`` along ``roi_axes``, constants or per-sample inputs) only the
  bytes of the region are read (`_npy_read` plans the byte ranges); the region's rules are
  DALI's ``NamedSliceAttr``, shared with `fn.slice` (`dali._ops.window.slice_attr`), and a
  region outside the array follows ``out_of_bounds_policy`` (``"error"``, ``"pad"`` with
  ``fill_value``, ``"trim_to_shape"``).

All the samples of a batch must have the same type and number of dimensions (DALI's rule).

``device="gpu"``: the same reader, reading on the host, whose batch goes to the device in one
staged copy on the pipeline's stream (`dali._exec.device.CudaContext.to_device`). DALI's GPU
backend reads with GPUDirect Storage instead; the samples are the same.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dali, dali.fn as fn
    >>> root = tempfile.mkdtemp()
    >>> for k in range(3):
    ...     np.save(os.path.join(root, f"a{k}.npy"), np.arange(12).reshape(3, 4) + k)
    >>> pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None)
    >>> with pipe:
    ...     pipe.set_outputs(fn.readers.numpy(file_root=root, roi_start=[1, 1], roi_end=[3, 3]))
    >>> out, = pipe.run()
    >>> out.at(2).tolist(), out[2].source_info()
    ([[7, 8], [11, 12]], './a2.npy')
"""

from __future__ import annotations

import fnmatch
import logging
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.numeric import convert_sat
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.loader.listing import unreadable_files
from dali._ops.readers.numpy.box import BoxPlan, assemble, plan_box
from dali._ops.readers.numpy.header import NpyFormatError, NpyHeader, header_span, parse_header
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage.access import Extent
from dali._ops.window.out_of_bounds import inside_bounds
from dali._ops.window.slice_attr import SliceAttr
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Numpy"]

_log = logging.getLogger("dali")

#: The first read of a file: its header is almost always 128 bytes, rarely more than 4 KiB.
_HEADER_PROBE = 4096

#: How many region read plans the reader keeps (random regions would grow the memo forever).
_PLANS_KEPT = 1024

#: The reader's names of DALI's slice arguments (``NamedSliceAttr(spec, "roi_start", ...)``).
_ROI_NAMES = {
    "start": "roi_start",
    "rel_start": "rel_roi_start",
    "end": "roi_end",
    "rel_end": "rel_roi_end",
    "shape": "roi_shape",
    "rel_shape": "rel_roi_shape",
    "axes": "roi_axes",
    "axis_names": None,
}


def _some(items: list[str]) -> str:
    more = f" (and {len(items) - 5} more)" if len(items) > 5 else ""
    return "; ".join(items[:5]) + more


def _native(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return dtype.newbyteorder("=") if dtype.byteorder == ">" else dtype


class _Read:
    """One sample's read: its extents (in the batch's list from ``first``) and how they become
    the sample."""

    __slots__ = ("count", "file", "first", "header", "inside", "plan", "whole", "window")

    def __init__(self, header: NpyHeader) -> None:
        self.header = header
        self.first = 0
        self.count = 0
        #: the whole payload, as one extent (no region, or a region that is the whole array)
        self.whole = True
        #: read as the whole file (mapped when large), the payload or the plan's range a part of it
        self.file = False
        self.plan: BoxPlan | None = None
        #: the region: (anchor, shape) in the array's (C-order) coordinates
        self.window: tuple[list[int], list[int]] | None = None
        #: the region lies inside the array (nothing to pad)
        self.inside = True


@register(
    "readers.numpy",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=1,
    source=True,
    random=True,
    non_semantic=(*NON_SEMANTIC, "use_o_direct", "cache_header_information", "register_buffers"),
    args=[
        Arg("file_root", "str", doc="Folder of the files (traversed unless files/file_list)."),
        Arg("file_filter", "str", default="*.npy", doc="Glob for file names under file_root."),
        Arg("file_list", "str", doc="Text file with one path per line."),
        Arg("files", "str_vec", doc="File paths (relative to file_root if given)."),
        Arg("roi_start", "int_vec", tensor=True, doc="Region start, absolute."),
        Arg("rel_roi_start", "float_vec", tensor=True, doc="Region start, relative."),
        Arg("roi_end", "int_vec", tensor=True, doc="Region end, absolute."),
        Arg("rel_roi_end", "float_vec", tensor=True, doc="Region end, relative."),
        Arg("roi_shape", "int_vec", tensor=True, doc="Region shape, absolute."),
        Arg("rel_roi_shape", "float_vec", tensor=True, doc="Region shape, relative."),
        Arg("roi_axes", "int_vec", default=(), doc="Axes of the region arguments (all: empty)."),
        Arg(
            "out_of_bounds_policy",
            "str",
            default="error",
            doc='A region outside the array: "error", "pad" or "trim_to_shape".',
        ),
        Arg("fill_value", "float", default=0.0, doc='Padding value ("pad").'),
        Arg("use_o_direct", "bool", default=False, doc="Accepted (I/O tuning; no effect)."),
        Arg("cache_header_information", "bool", default=False, doc="Accepted (always cached)."),
        Arg("register_buffers", "bool", default=True, doc="Accepted (GPU I/O; no effect)."),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class Numpy(IndexedReader):
    """Reads ``.npy`` files: whole arrays, or a region of interest of each.

    Three ways to name the files: ``file_root`` (its files and those of its subfolders that
    match ``file_filter``), ``file_list`` (a text file of one path per line, relative to the
    list's folder or to ``file_root``) or ``files`` (relative to ``file_root`` if given).
    """

    # -- listing --------------------------------------------------------------------------
    def check_arguments(self) -> None:
        has = self.has_arg
        if not (has("file_root") or has("file_list") or has("files")):
            raise self.arg_error(
                "file_root", "is required when the files are not given by `files` or `file_list`"
            )
        if has("file_list") and has("files"):
            raise self.arg_error("files", "`files` and `file_list` are mutually exclusive")
        if self.arg("use_o_direct") and not self.arg("dont_use_mmap"):
            raise self.arg_error("use_o_direct", "needs dont_use_mmap=True (as in DALI)")
        self._roi = SliceAttr(self, _ROI_NAMES)
        self._fill_value = float(self.arg("fill_value"))

    def list_samples(self) -> int:
        root = self.arg("file_root") if self.has_arg("file_root") else None
        if self.has_arg("file_list"):
            rel, full = self._from_file_list(self.arg("file_list"), root)
        elif self.has_arg("files"):
            rel, full = self._from_files(list(self.arg("files")), root)
        else:
            assert root is not None
            rel, full = self._from_root(root)
        self._rel, self._full = rel, full
        self._use_mmap = not self.arg("dont_use_mmap")
        #: path -> its header, read once (DALI's cache_header_information, always on)
        self._headers: dict[str, NpyHeader] = {}
        #: the read plans of the regions seen lately (`_plan`)
        self._plans: dict[tuple[Any, ...], BoxPlan] = {}
        return len(rel)

    def source_info(self, index: int) -> str:
        return self._rel[index]

    def _from_root(self, root: str) -> tuple[list[str], list[str]]:
        try:
            if not _storage.isdir(root):
                what = "is not a directory" if _storage.exists(root) else "does not exist"
                raise self.arg_error("file_root", f"'{root}' {what}")
            entries = _storage.listdir(root)
        except OSError as e:
            raise self.arg_error("file_root", f"cannot list '{root}': {e}") from e
        pattern = self.arg("file_filter")
        rel: list[str] = []
        full: list[str] = []
        # DALI: the root's own files first ("./name"), then each subfolder's, one level deep
        for name, is_dir in entries:
            if not is_dir and fnmatch.fnmatchcase(name, pattern):
                rel.append(f"./{name}")
                full.append(_storage.join(root, name))
        for sub, is_dir in entries:
            if not is_dir:
                continue
            folder = _storage.join(root, sub)
            try:
                inner = _storage.listdir(folder)
            except OSError as e:
                raise self.arg_error("file_root", f"cannot list '{folder}': {e}") from e
            for name, d in inner:
                if not d and fnmatch.fnmatchcase(name, pattern):
                    rel.append(f"{sub}/{name}")
                    full.append(_storage.join(folder, name))
        if not _storage.is_url(root) and full:
            rel, full = self._skip_special(root, rel, full)
        if not rel:
            raise self.arg_error(
                "file_root",
                f"no files found under '{root}' (nor in its subfolders) matching "
                f"file_filter={pattern!r} (case-sensitive)",
            )
        return rel, full

    def _skip_special(
        self, root: str, rel: list[str], full: list[str]
    ) -> tuple[list[str], list[str]]:
        """Drop listed entries that are not regular files (FIFOs, sockets, broken links): DALI
        skips them silently, we say which."""
        missing, special = unreadable_files(full)
        drop = set(missing) | {i for i, _ in special}
        if not drop:
            return rel, full
        kinds = dict(special)
        shown = [f"'{rel[i]}' ({kinds.get(i, 'a broken link')})" for i in sorted(drop)]
        _log.warning(
            "%s (%s): skipped %d entr%s of file_root '%s' that %s not regular files: %s",
            self.display_name,
            self.name,
            len(drop),
            "y" if len(drop) == 1 else "ies",
            root,
            "is" if len(drop) == 1 else "are",
            _some(shown),
        )
        keep = [i for i in range(len(rel)) if i not in drop]
        return [rel[i] for i in keep], [full[i] for i in keep]

    def _from_file_list(self, file_list: str, root: str | None) -> tuple[list[str], list[str]]:
        try:
            text = _storage.read_text(file_list)
        except OSError as e:
            raise self.arg_error(
                "file_list", f"cannot read '{file_list}': {e.strerror or e}"
            ) from e
        # one path per line, as written (DALI keeps inner and trailing spaces); empty lines skip
        lines = [(n, line.removesuffix("\r")) for n, line in enumerate(text.split("\n"), 1)]
        entries = [(n, line) for n, line in lines if line]
        if not entries:
            raise self.arg_error("file_list", f"'{file_list}' lists no files")
        if root is not None:
            base = root
        elif _storage.is_url(file_list):
            base = file_list.rsplit("/", 1)[0]
        else:
            base = os.path.dirname(file_list)
        rel = [line for _, line in entries]
        full = [_storage.join(base, p) if base else p for p in rel]
        self._check_exist(full, "file_list", [f"line {n}: '{p}'" for n, p in entries], file_list)
        return rel, full

    def _from_files(self, files: list[str], root: str | None) -> tuple[list[str], list[str]]:
        if not files:
            raise self.arg_error("files", "the list of files is empty")
        full = [_storage.join(root, p) if root is not None else p for p in files]
        self._check_exist(full, "files", [f"'{p}'" for p in files], None)
        return list(files), full

    def _check_exist(
        self, full: list[str], arg: str, shown: list[str], listed_in: str | None
    ) -> None:
        """Every local file must exist and be a regular file (remote ones are not asked about:
        a request each; a missing one fails when read, naming it)."""
        local = [i for i, p in enumerate(full) if not _storage.is_url(p)]
        if not local:
            return
        missing, special = unreadable_files([full[i] for i in local])
        where = f"'{listed_in}' names" if listed_in else "names"
        if missing:
            items = [f"{shown[local[j]]} -> '{full[local[j]]}'" for j in missing]
            raise self.arg_error(arg, f"{where} {len(missing)} missing file(s): {_some(items)}")
        if special:
            items = [f"{shown[local[j]]} -> '{full[local[j]]}' is {k}" for j, k in special]
            raise self.arg_error(
                arg, f"{where} {len(special)} entr(ies) that are not regular files: {_some(items)}"
            )

    # -- headers ----------------------------------------------------------------------------
    def _read_header(self, path: str) -> NpyHeader | Exception:
        """A file's header: a small range read (and a second one for a header over 4 KiB)."""
        try:
            n = _storage.size(path)
            head = _storage.read_range(path, 0, min(n, _HEADER_PROBE))
            span = header_span(head)
            if len(head) < span <= n:
                head = _storage.read_range(path, 0, span)
            return parse_header(head, n)
        except (OSError, NpyFormatError) as e:
            return e

    def _batch_headers(self, ws: Workspace, paths: list[str]) -> list[NpyHeader | Exception]:
        """The headers of the batch's files, reading those not read before (in parallel)."""
        cache = self._headers
        todo = list(dict.fromkeys(p for p in paths if p not in cache))
        failed: dict[str, Exception] = {}
        if todo:
            k = max(1, min(options.READ_THREADS, len(todo)))
            got: list[NpyHeader | Exception]
            if k == 1:
                got = [self._read_header(p) for p in todo]
            else:
                got = [OSError()] * len(todo)
                parts = ws.map(lambda c: [self._read_header(p) for p in todo[c::k]], k)
                for c, part in enumerate(parts):
                    got[c::k] = part
            for p, h in zip(todo, got):
                if isinstance(h, NpyHeader):
                    cache[p] = h
                else:
                    failed[p] = h
        return [cache[p] if p in cache else failed[p] for p in paths]

    # -- running ----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        return self._read_batch(ws)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.transfer import to_gpu

        # read on the host, then one staged copy of the whole batch on the pipeline's stream
        return to_gpu(self._read_batch(ws))

    def _fail(self, i: int, path: str, what: str, cause: BaseException | None = None) -> Exception:
        err = self.error(f"cannot read '{path}': {what}")
        err.__cause__ = cause
        return SampleFailure(i, err)

    def _read_batch(self, ws: Workspace) -> TensorListCPU:
        ids = self.next_samples(ws)
        paths = [self._full[k] for k in ids.tolist()]
        source_info = self.batch_infos(ws)
        found = self._batch_headers(ws, paths)
        headers: list[NpyHeader] = []
        for i, h in enumerate(found):
            if not isinstance(h, NpyHeader):
                what = (h.strerror or str(h)) if isinstance(h, OSError) else str(h)
                raise self._fail(i, paths[i], what, h)
            headers.append(h)
        self._check_batch(headers, source_info)
        shapes = [h.shape for h in headers]
        wins = self._roi.windows(ws, shapes, "", len(shapes[0])) if self._roi.named else None
        # (module constants read at each batch, so that benchmarks may change them)
        remote = any(map(_storage.is_url, paths))
        gap = options.ROI_REMOTE_GAP_BYTES if remote else options.ROI_GAP_BYTES
        reads: list[_Read] = []
        extents: list[Extent] = []
        for i, h in enumerate(headers):
            r = _Read(h)
            r.first = len(extents)
            if wins is not None and not (
                all(a == 0 for a in wins[i][0]) and tuple(wins[i][1]) == h.shape
            ):
                anchor, shape = wins[i]
                bounds = inside_bounds(anchor, shape, h.shape)
                r.whole, r.window = False, (anchor, shape)
                r.inside = all(hi - lo == s for (lo, hi), s in zip(bounds, shape))
                stored = bounds[::-1] if h.fortran_order else bounds
                r.plan = self._plan(h, stored, gap)
                if (
                    len(r.plan.offsets) == 1
                    and self._use_mmap
                    and r.plan.length >= options.MMAP_MIN_BYTES
                    and not _storage.is_url(paths[i])
                ):
                    # one large range: map the file (as DALI does) rather than copy the range,
                    # gaps included; the region's copy then touches only its own pages
                    r.file = True
                    extents.append(Extent(paths[i]))
                else:
                    extents.extend(
                        Extent(paths[i], h.data_offset + int(o), r.plan.length)
                        for o in r.plan.offsets
                    )
            elif self._use_mmap and h.nbytes and not _storage.is_url(paths[i]):
                r.file = True  # the whole file: mapped when large, as DALI maps it
                extents.append(Extent(paths[i]))
            else:
                extents.append(Extent(paths[i], h.data_offset, h.nbytes))
            r.count = len(extents) - r.first
            reads.append(r)
        data = _storage.read_extents(extents, use_mmap=self._use_mmap, parallel_map=ws.map)
        parts: list[np.ndarray] = []
        for i, r in enumerate(reads):
            for d in data[r.first : r.first + r.count]:
                if isinstance(d, OSError):
                    raise self._fail(i, paths[i], d.strerror or str(d), d)
                parts.append(d)

        def sample(i: int) -> np.ndarray | SampleFailure:
            r = reads[i]
            try:
                return self._sample(i, r, parts[r.first : r.first + r.count], paths[i])
            except SampleFailure as f:
                return f

        # on the pool: transposing a Fortran-order volume or copying a region is numpy work
        # that releases the GIL
        outs = ws.map(sample, len(reads))
        for out in outs:
            if isinstance(out, SampleFailure):
                raise out
        if remote:  # (the OS reads ahead for local files)
            self._prefetch()
        return TensorListCPU.wrap(outs, "", source_info)

    def _plan(self, h: NpyHeader, bounds: list[tuple[int, int]], gap: int) -> BoxPlan:
        """`plan_box` for a box of a stored array, memoised: a constant region of arrays of one
        shape (the usual case) is planned once, not once per sample."""
        key = (h.stored_shape, h.dtype.itemsize, tuple(bounds), gap, options.ROI_MAX_EXTENTS)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLANS_KEPT:
                self._plans.clear()
            plan = plan_box(
                h.stored_shape,
                h.dtype.itemsize,
                bounds,
                gap_bytes=gap,
                max_extents=options.ROI_MAX_EXTENTS,
            )
            self._plans[key] = plan
        return plan

    def _check_batch(self, headers: list[NpyHeader], source_info: list[str]) -> None:
        """DALI's rule: one type and one number of dimensions for the whole batch."""
        h0 = headers[0]
        for i, h in enumerate(headers[1:], 1):
            if len(h.shape) != len(h0.shape):
                raise SampleFailure(
                    i,
                    self.error(
                        "inconsistent data: all samples of a batch must have the same number of "
                        f"dimensions; '{source_info[0]}' has {len(h0.shape)} and "
                        f"'{source_info[i]}' has {len(h.shape)}"
                    ),
                )
            if _native(h.dtype) != _native(h0.dtype):
                raise SampleFailure(
                    i,
                    self.error(
                        "inconsistent data: all samples of a batch must have the same type; "
                        f"'{source_info[0]}' is {_native(h0.dtype).name} and "
                        f"'{source_info[i]}' is {_native(h.dtype).name}"
                    ),
                )

    def _sample(self, i: int, r: _Read, parts: list[np.ndarray], path: str) -> np.ndarray:
        """Sample ``i`` from its extents' bytes: C order, native byte order."""
        h = r.header
        native = _native(h.dtype)
        if r.whole:
            if not h.nbytes:
                return np.empty(h.shape, native)
            buf = parts[0]
            if r.file:
                if len(buf) < h.data_offset + h.nbytes:
                    raise self._fail(
                        i, path, f"the file shrank to {len(buf)} bytes since its header was read"
                    )
                buf = buf[h.data_offset : h.data_offset + h.nbytes]
            stored = buf.view(h.dtype).reshape(h.stored_shape)
            if h.fortran_order or native != h.dtype or not stored.flags.aligned:
                out = np.empty(h.shape, native)
                out[...] = stored.T if h.fortran_order else stored
                return out
            return stored
        assert r.plan is not None and r.window is not None
        if r.file:  # the whole file, mapped: the plan's one range is a view of it
            start = h.data_offset + int(r.plan.offsets[0])
            if len(parts[0]) < start + r.plan.length:
                raise self._fail(
                    i, path, f"the file shrank to {len(parts[0])} bytes since its header was read"
                )
            parts = [parts[0][start : start + r.plan.length]]
        box = assemble(r.plan, parts, h.dtype)
        region = box.T if h.fortran_order else box
        anchor, shape = r.window
        if r.inside and not h.fortran_order and native == h.dtype:
            return region
        if r.inside:
            out = np.empty(shape, native)
            out[...] = region
            return out
        fill = convert_sat(np, np.asarray(self._fill_value, np.float32), native)
        out = np.full(shape, fill, native)
        bounds = inside_bounds(anchor, shape, h.shape)
        out[tuple(slice(lo - a, hi - a) for (lo, hi), a in zip(bounds, anchor))] = region
        return out

    def _prefetch(self) -> None:
        self.hint_ahead(self._hints)

    def _hints(self, ids: np.ndarray) -> list[Extent]:
        """What the samples ``ids`` will read: payloads of known files, headers of the others."""
        hints = []
        for k in ids.tolist():
            path = self._full[k]
            h = self._headers.get(path)
            if h is None or self._roi.named:
                hints.append(Extent(path, 0, _HEADER_PROBE if h is None else h.data_offset))
            else:
                hints.append(Extent(path, h.data_offset, h.nbytes))
        return hints

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        # the files decide the type and the number of dimensions; DALI sets no layout
        return [{"layout": ""}]
