"""Parsed COCO annotation files kept as numpy files: a set built again skips the JSON.

Parsing the annotation file is most of ``readers.coco``'s build (seconds for COCO 2017 train,
whose images are only listed then). `save` keeps what `parse_coco` made of a file (a
`CocoAnnotations`: per-sample offsets into flat tables) as ``.npy`` files, and `load` reads
them back, memory-mapped, for every later build of the same set: each training run, each
process of a multi-process job.

* **Where**: ``$DALI_CACHE_DIR/coco/``; without it ``$XDG_CACHE_HOME/dali/coco/``, which is
  ``~/.cache/dali/coco/`` by default. ``DALI_COCO_CACHE=0`` turns the cache off: nothing is
  read or written. Deleting the folder is always safe.
* **Key**: an entry is a folder named after the annotation file's real path, its size and
  modification time (in nanoseconds), `FORMAT` and the library's version, and the arguments
  that change the tables (`CocoOptions`). A file that changes is another key: its entry is
  parsed and saved again, and the saving removes the entries of the file's earlier versions.
* **Safe**: an entry is written into a temporary folder and renamed into place whole, so a
  reader sees all of it or nothing; processes that build the same set at once each parse and
  write their own, and the first rename wins. ``meta.json`` repeats the key and holds each
  table's dtype, shape and CRC-32: an entry that does not match, cannot be read or fails a
  checksum is ignored (a debug message on the ``dali`` logger), removed and parsed again. A
  cache that cannot be written (a read-only home, a full disk) costs only the parse.

The tables are the arrays of `CocoAnnotations`, one ``.npy`` file each (no pickle); its two
lists are each kept as one array and the ends of its items: the file names (their UTF-8
concatenation and the end of each name, in characters) and the RLEs (their counts
concatenated, and the end of each).

Example:
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from dali._ops.readers.coco.annotations import CocoOptions, parse_coco
    >>> folder = Path(tempfile.mkdtemp())  # (the cache's folder: `cache_dir` by default)
    >>> path = os.path.join(tempfile.mkdtemp(), "instances.json")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": '
    ...                 '[{"image_id": 1, "category_id": 5, "bbox": [1, 2, 3, 4]}]}')
    >>> options = CocoOptions(avoid_class_remapping=True)
    >>> load(path, options, folder=folder) is None  # not saved yet
    True
    >>> save(path, options, parse_coco(open(path).read(), options), folder=folder)
    >>> back = load(path, options, folder=folder)
    >>> back.filenames, back.sample_boxes(0).tolist(), back.sample_labels(0).tolist()
    (['a.jpg'], [[1.0, 2.0, 3.0, 4.0]], [5])
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import shutil
import time
import uuid
import zlib
from pathlib import Path
from typing import Any, Literal

import numpy as np

from dali._ops.readers.coco.annotations import CocoAnnotations, CocoOptions

__all__ = ["DIR_ENV", "ENV", "FORMAT", "cache_dir", "enabled", "load", "save"]

_log = logging.getLogger("dali")

#: ``0``, ``false``, ``no`` or ``off`` turns the cache off.
ENV = "DALI_COCO_CACHE"
#: The folder of the library's caches (this one is its ``coco/``).
DIR_ENV = "DALI_CACHE_DIR"
#: The version of the entries: bump it when the tables or `parse_coco`'s rules change, so that
#: no entry saved before is read.
FORMAT = 1
#: A temporary folder older than this (seconds) was left by a process that died writing it.
_ABANDONED = 3600.0
_OFF = frozenset({"0", "false", "no", "off"})
#: The tables of an entry: one per field of `CocoAnnotations`, and the ends of the items of its
#: lists (file names, RLEs).
_TABLES = frozenset({f.name for f in dataclasses.fields(CocoAnnotations)}) | {
    "filename_ends",
    "rle_ends",
}


def enabled() -> bool:
    """Whether the cache is on (`ENV` is not ``0``, ``false``, ``no`` or ``off``)."""
    return os.environ.get(ENV, "").strip().lower() not in _OFF


def cache_dir() -> Path:
    """The folder of the entries: ``$DALI_CACHE_DIR/coco``, else ``$XDG_CACHE_HOME/dali/coco``
    (an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says), else
    ``~/.cache/dali/coco``."""
    root = os.environ.get(DIR_ENV)
    if root:
        return Path(root) / "coco"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "dali" / "coco"


def load(path: str, options: CocoOptions, *, folder: Path | None = None) -> CocoAnnotations | None:
    """The saved tables of the annotation file ``path`` parsed with ``options``, or None when
    there are none (or they cannot be read: the entry is removed). ``folder``: the cache's
    folder, `cache_dir` by default."""
    try:
        name, key = _key(path, options)
        entry = (folder or cache_dir()) / name
        text = (entry / "meta.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, RuntimeError) as e:  # RuntimeError: no home folder
        _log.debug("readers.coco: no cache for '%s' (%s)", path, e)
        return None
    try:
        ann = _read(entry, key, json.loads(text))
    except (OSError, ValueError, KeyError, TypeError) as e:
        _log.debug("readers.coco: ignoring the cache entry %s of '%s': %s", entry, path, e)
        shutil.rmtree(entry, ignore_errors=True)
        return None
    _log.debug("readers.coco: '%s' read from the cache entry %s", path, entry)
    return ann


def save(
    path: str, options: CocoOptions, ann: CocoAnnotations, *, folder: Path | None = None
) -> None:
    """Save ``ann``, the tables of the annotation file ``path`` parsed with ``options``, into
    ``folder`` (`cache_dir` by default); when that cannot be done, log why (debug) and
    return."""
    try:
        name, key = _key(path, options)
        folder = folder or cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".tmp-{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            tables = {}
            for table, array in _tables(ann).items():
                np.save(tmp / f"{table}.npy", array, allow_pickle=False)
                tables[table] = {
                    "dtype": array.dtype.str,
                    "shape": list(array.shape),
                    "crc32": _crc32(array),
                }
            with open(tmp / "meta.json", "w", encoding="utf-8") as f:
                json.dump({**key, "tables": tables}, f)
            try:
                os.rename(tmp, folder / name)
            except OSError:
                if not (folder / name).is_dir():
                    raise
                _log.debug("readers.coco: '%s' was cached by another process", path)
                return
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    except (OSError, RuntimeError, ValueError) as e:  # RuntimeError: no home folder
        _log.debug("readers.coco: not caching '%s': %s", path, e)
        return
    _log.debug("readers.coco: '%s' saved as the cache entry %s", path, folder / name)
    _remove_stale(folder, name)


# -- the entries ------------------------------------------------------------------------------


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)  # ASCII: surrogates are escaped
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _key(path: str, options: CocoOptions) -> tuple[str, dict[str, Any]]:
    """The entry's folder name (``<path>-<version of the file>-<options>``, each a digest) and
    the key that its ``meta.json`` repeats."""
    from dali import __version__

    source = os.path.realpath(path)
    st = os.stat(source)
    version = [FORMAT, __version__, st.st_size, st.st_mtime_ns]
    settings = dataclasses.asdict(options)
    name = f"{_digest(source)}-{_digest(version)}-{_digest(settings)}"
    key = {
        "format": FORMAT,
        "dali": __version__,
        "source": source,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "options": settings,
    }
    return name, json.loads(json.dumps(key))  # as it reads back (tuples are lists)


def _crc32(array: np.ndarray) -> int:
    return zlib.crc32(array.reshape(-1).view(np.uint8).data)


def _tables(ann: CocoAnnotations) -> dict[str, np.ndarray]:
    """Every array of ``ann``, its lists as arrays (module docstring), contiguous."""
    tables = {
        f.name: getattr(ann, f.name)
        for f in dataclasses.fields(ann)
        if isinstance(getattr(ann, f.name), np.ndarray)
    }
    names = "".join(ann.filenames).encode("utf-8", "surrogatepass")
    tables["filenames"] = np.frombuffer(names, np.uint8)
    tables["filename_ends"] = np.cumsum([len(f) for f in ann.filenames], dtype=np.int64)
    rles = ann.rles
    tables["rles"] = np.concatenate(rles).astype(np.uint32) if rles else np.zeros(0, np.uint32)
    tables["rle_ends"] = np.cumsum([len(r) for r in rles], dtype=np.int64)
    tables["rle_sizes"] = np.asarray(ann.rle_sizes, dtype=np.int64).reshape(-1, 2)
    return {k: np.ascontiguousarray(v) for k, v in tables.items()}


def _read(entry: Path, key: dict[str, Any], meta: Any) -> CocoAnnotations:
    """The `CocoAnnotations` of ``entry``, whose ``meta.json`` holds ``meta`` (`ValueError` or
    `TypeError` unless it matches ``key`` and its checksums)."""
    if not isinstance(meta, dict):
        raise TypeError("its meta.json is not an object")
    if {k: v for k, v in meta.items() if k != "tables"} != key:
        raise ValueError("its meta.json holds another key")
    if set(meta["tables"]) != _TABLES:
        raise ValueError(f"it holds the tables {sorted(meta['tables'])}")
    arrays: dict[str, np.ndarray] = {}
    for table, saved in meta["tables"].items():
        shape = tuple(saved["shape"])
        # memory-mapped (processes that read one entry share its pages), a plain read-only
        # ndarray; an empty array has nothing to map
        mode: Literal["r"] | None = "r" if np.prod(shape) else None
        array = np.asarray(np.load(entry / f"{table}.npy", mmap_mode=mode, allow_pickle=False))
        if array.dtype.str != saved["dtype"] or array.shape != shape:
            raise ValueError(f"{table}.npy holds {array.dtype.str} {array.shape}")
        if _crc32(array) != saved["crc32"]:
            raise ValueError(f"{table}.npy fails its checksum")
        arrays[table] = array
    text = arrays.pop("filenames").tobytes().decode("utf-8", "surrogatepass")
    ends = arrays.pop("filename_ends").tolist()
    filenames = [text[a:b] for a, b in zip([0, *ends], ends)]
    counts, rle_ends = arrays.pop("rles"), arrays.pop("rle_ends")
    rles = np.split(counts, rle_ends[:-1]) if len(rle_ends) else []
    sizes = [(h, w) for h, w in arrays.pop("rle_sizes").tolist()]
    return CocoAnnotations(filenames=filenames, rles=rles, rle_sizes=sizes, **arrays)


def _remove_stale(folder: Path, name: str) -> None:
    """Remove the entries of the earlier versions of ``name``'s file (another file digest) and
    the temporary folders of processes that died writing."""
    path, version, _ = name.split("-")
    now = time.time()
    try:
        found = list(os.scandir(folder))
    except OSError:
        return
    for item in found:
        parts = item.name.split("-")
        stale = len(parts) == 3 and parts[0] == path and parts[1] != version
        try:
            abandoned = item.name.startswith(".tmp-") and now - item.stat().st_mtime > _ABANDONED
        except OSError:
            continue
        if stale or abandoned:
            _log.debug("readers.coco: removing the stale cache entry %s", item.path)
            shutil.rmtree(item.path, ignore_errors=True)
