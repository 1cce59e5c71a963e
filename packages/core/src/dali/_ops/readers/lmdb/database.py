"""The LMDB side of `readers.caffe` / `readers.caffe2`: databases listed once, records by index.

An LMDB database is a directory holding ``data.mdb`` (a memory-mapped B+tree of key -> value
records, sorted bytewise by key) and usually ``lock.mdb``. DALI's loader
(``dali/operators/reader/loader/lmdb.h``) opens each of its ``path`` databases read-only and
without locking (``MDB_RDONLY | MDB_NOTLS | MDB_NOLOCK``: nothing is written next to the data,
so read-only media and shared folders work), counts the records, and reads them by moving one
cursor. The dataset is the records of the first database in key order, then those of the
second, and so on; a sample's ``source_info`` is ``"<path> at key <key>"``.

`Databases` does the same through the ``lmdb`` package (py-lmdb): at build it opens the
databases and lists every key once (one pass over the tree's leaves: ~0.1 us a record, a few
bytes of memory per key, kept in one buffer), so that any record, in any order (shards,
shuffling, a restored checkpoint), is one B-tree lookup away instead of a cursor walk from
where the last one stopped. A database is opened once per process and shared by the readers
that read it (`_Environments`: LMDB forbids opening it twice), each with its own read
transaction; a process that did not open it (a forked one: an environment must not be used
across ``fork``) opens it again, the pid being checked on every read.

Records are handed out as views of the memory map (`read`), valid while the reader's read
transaction lives: the reader copies out what it returns (outputs outlive the transaction),
so the image bytes are copied once, as DALI's loader copies each record once.

Example:
    >>> import tempfile
    >>> from dali._testing.lmdb_data import write_lmdb
    >>> path = str(write_lmdb(tempfile.mkdtemp() + "/db", {"b": b"2", "a": b"1"}))
    >>> dbs = Databases([path])
    >>> dbs.list_records(), dbs.key(0), [bytes(v) for v in dbs.read([1, 0])]
    (2, b'a', [b'2', b'1'])
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Databases", "LMDBError"]


class LMDBError(OSError):
    """A database that cannot be opened or read (the message names it)."""


def _lmdb() -> Any:
    try:
        import lmdb
    except ImportError as e:
        raise LMDBError(
            "readers.caffe and readers.caffe2 need the lmdb package: pip install 'dali-core[lmdb]'"
            " (or pip install lmdb)"
        ) from e
    return lmdb


class _Environments:
    """The LMDB environments open in this process, shared by every reader of a database.

    LMDB forbids opening one database twice in a process (py-lmdb refuses: "already open in
    this process"), and two pipelines reading one dataset (training and validation, a
    pipeline per GPU) are common; so each database is opened once and counted: every
    `Databases` takes its own read transaction on the shared environment, which is closed
    when its last user lets go. The table belongs to the process that filled it (an
    environment must not be used after ``fork``).
    """

    def __init__(self) -> None:
        # re-entrant: a garbage collection inside `acquire` (py-lmdb allocates while opening)
        # may finalise another `Databases`, whose `close` releases here, in the same thread
        self._lock = threading.RLock()
        self._open: dict[str, list[Any]] = {}  # real path -> [environment, users]
        self._pid = os.getpid()

    def acquire(self, path: str) -> Any:
        """The environment of the database ``path``, opened if it is not yet.

        Raises:
            LMDBError: A database that cannot be opened, naming it.
        """
        lmdb = _lmdb()
        if not os.path.isdir(path):
            what = "does not exist" if not os.path.exists(path) else "is not a directory"
            raise LMDBError(f"the LMDB database '{path}' {what}")
        real = os.path.realpath(path)
        with self._lock:
            if self._pid != os.getpid():
                self._open, self._pid = {}, os.getpid()  # (the parent's, never closed here)
            entry = self._open.get(real)
            if entry is None:
                try:
                    env = lmdb.open(
                        path,
                        readonly=True,
                        lock=False,  # (MDB_NOLOCK, as DALI: nothing is written beside the data)
                        create=False,
                        subdir=True,
                    )
                except lmdb.Error as e:
                    hint = ""
                    if "already open" in str(e):
                        hint = " (close the lmdb.Environment that this process opened on it)"
                    raise LMDBError(f"cannot open the LMDB database '{path}': {e}{hint}") from e
                entry = self._open[real] = [env, 0]
            entry[1] += 1
            return entry[0]

    def release(self, env: Any) -> None:
        """Let go of an environment `acquire` gave; the last user's release closes it."""
        with self._lock:
            for real, entry in list(self._open.items()):  # (a release may re-enter: above)
                if entry[0] is env:
                    entry[1] -= 1
                    if entry[1] == 0:
                        del self._open[real]
                        env.close()
                    return


_ENVIRONMENTS = _Environments()


class Databases:
    """The records of the LMDB databases ``paths``, numbered in path order, then key order.

    Args:
        paths: The database directories.
    """

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = [os.fspath(p) for p in paths]
        #: the first index of every database, and the total (``len(paths) + 1`` values)
        self.starts = np.zeros(1, dtype=np.int64)
        self._keys = b""  # every key, concatenated in index order
        self._key_ends = np.zeros(0, dtype=np.int64)  # where each key ends in `_keys`
        self._pid: int | None = None
        self._txns: list[Any] = []
        self._envs: list[Any] = []

    # -- listing ----------------------------------------------------------------------------
    def list_records(self) -> int:
        """Open the databases and list their keys; returns the number of records.

        Raises:
            LMDBError: A database that cannot be opened (missing, not a directory, not an
                LMDB database), naming it.
        """
        counts, keys = [], []
        self._open()
        for path, txn in zip(self.paths, self._txns):
            try:
                listed = list(txn.cursor().iternext(keys=True, values=False))
            except _lmdb().Error as e:
                raise LMDBError(f"cannot read the LMDB database '{path}': {e}") from e
            counts.append(len(listed))
            keys += listed
        self.starts = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
        self._keys = b"".join(keys)
        self._key_ends = np.cumsum(np.fromiter(map(len, keys), np.int64, len(keys)))
        return int(self.starts[-1])

    def _open(self) -> None:
        self.close()
        envs: list[Any] = []
        txns: list[Any] = []
        try:
            for path in self.paths:
                env = _ENVIRONMENTS.acquire(path)
                envs.append(env)
                # one read transaction for the reader's life, as DALI keeps one: a snapshot
                txns.append(env.begin(buffers=True))
        except BaseException:
            for txn in txns:
                txn.abort()
            for env in envs:
                _ENVIRONMENTS.release(env)
            raise
        self._envs, self._txns, self._pid = envs, txns, os.getpid()

    def close(self) -> None:
        """End the read transactions and let go of the environments (reads reopen them)."""
        if self._pid == os.getpid():  # (those of a parent process are only dropped)
            for txn in self._txns:
                txn.abort()
            for env in self._envs:
                _ENVIRONMENTS.release(env)
        self._envs, self._txns, self._pid = [], [], None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - at interpreter exit the modules may be gone
            pass

    # -- records ----------------------------------------------------------------------------
    def database_of(self, index: int) -> int:
        """The database (its position in ``paths``) that record ``index`` is in."""
        return int(np.searchsorted(self.starts, index, side="right")) - 1

    def key(self, index: int) -> bytes:
        """The key of record ``index``."""
        end = int(self._key_ends[index])
        start = int(self._key_ends[index - 1]) if index else 0
        return self._keys[start:end]

    def source_info(self, index: int) -> str:
        """DALI's ``source_info`` of record ``index``: ``"<path> at key <key>"``."""
        key = self.key(index).decode("utf-8", errors="replace")
        return f"{self.paths[self.database_of(index)]} at key {key}"

    def source_infos(self, ids: np.ndarray) -> list[str]:
        """`source_info` of every record of ``ids`` (at once: a batch's)."""
        ids = np.asarray(ids, dtype=np.int64)
        dbs = (np.searchsorted(self.starts, ids, side="right") - 1).tolist()
        ends = self._key_ends[ids].tolist()
        starts = np.where(ids > 0, self._key_ends[np.maximum(ids - 1, 0)], 0).tolist()
        keys, paths = self._keys, self.paths
        return [
            f"{paths[d]} at key {keys[a:b].decode('utf-8', errors='replace')}"
            for d, a, b in zip(dbs, starts, ends)
        ]

    def read(self, ids: Sequence[int] | np.ndarray) -> list[memoryview]:
        """The values of records ``ids``: read-only views of the database's memory map, valid
        until `close` (the transaction they belong to lives as long as the environment).

        Raises:
            LMDBError: A database that cannot be read, or a record that vanished since the
                listing (the database was rewritten), naming the database and the key.
        """
        if self._pid != os.getpid():
            self._open()
        ids = np.asarray(ids, dtype=np.int64)
        dbs = np.searchsorted(self.starts, ids, side="right") - 1
        ends = self._key_ends[ids].tolist()
        starts = np.where(ids > 0, self._key_ends[np.maximum(ids - 1, 0)], 0).tolist()
        keys, txns = self._keys, self._txns
        out = []
        try:
            for db, a, b in zip(dbs.tolist(), starts, ends):
                value = txns[db].get(keys[a:b])
                if value is None:
                    key = keys[a:b].decode("utf-8", errors="replace")
                    raise LMDBError(
                        f"the record of key '{key}' is no longer in the LMDB database "
                        f"'{self.paths[db]}' (was the database changed after the pipeline "
                        "was built?)"
                    )
                out.append(value)
        except _lmdb().Error as e:
            raise LMDBError(f"cannot read the LMDB database: {e}") from e
        return out
