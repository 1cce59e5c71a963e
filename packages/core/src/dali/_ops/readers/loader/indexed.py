"""The base of every reader: a dataset listed once, read as an endless sharded sample stream.

DALI's readers share one loader: the same sharding, shuffling, padding and epoch arithmetic
whatever they read. Here that loader is `IndexedReader`. A reader lists its
dataset at build (`list_samples`: the number of samples, every user error raised before the
first batch) and then, each batch, asks `next_samples` which samples to produce: their indices
in the listed (unshuffled) dataset. It only turns indices into outputs.

Everything else lives here, once: the loader arguments (`READER_ARGS`, and
`SHUFFLE_AFTER_EPOCH_ARGS` for the readers that have them) and their checks, the stream of
indices (`_sharding`), ``reader_meta``, and the checkpoint state (a few integers, `_resume`),
including elastic restores onto another sharding.

Every sample carries its identity (its index and its pass over the dataset,
`dali._exec.workspace.BatchMeta`): random operators downstream key their values on it, so a
sample gets the same augmentation whatever the shard, the number of shards or the batch size.

A reader built on it (outline; `readers.file` is the full example)::

    @register("readers.lines", devices=("cpu",), inputs=0, outputs=1, source=True,
              random=True, non_semantic=NON_SEMANTIC,
              args=[Arg("path", "str", required=True), *READER_ARGS])
    class Lines(IndexedReader):
        def list_samples(self) -> int:
            self._lines = read_text(self.arg("path")).splitlines()
            return len(self._lines)

        def source_info(self, index: int) -> str:
            return f"{self.arg('path')}:{index}"

        def run_cpu(self, ws):
            ids = self.next_samples(ws)
            return TensorListCPU.wrap([...], "", self.batch_source_info(ids))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali import _options as options
from dali._exec.workspace import BatchMeta
from dali._graph.schema import Arg
from dali._ops.base import Operator
from dali._ops.readers.loader.resume import Layout, ResumeError, resume_info, resume_stream
from dali._ops.readers.loader.sharding import (
    DEFAULT_SHUFFLE_SEED,
    ReaderCursor,
    check_sharding,
    epoch_permutation,
    reader_meta,
)
from dali._ops.readers.storage import access as _storage

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["NON_SEMANTIC", "READER_ARGS", "SHUFFLE_AFTER_EPOCH_ARGS", "IndexedReader"]

#: The loader arguments every DALI reader has (DALI's ``LoaderBase`` schema).
READER_ARGS = [
    Arg("random_shuffle", "bool", default=False, doc="Draw samples from a shuffle buffer."),
    Arg("initial_fill", "int", default=1024, doc="Size of the shuffle buffer."),
    Arg("shard_id", "int", default=0, doc="Index of this shard."),
    Arg("num_shards", "int", default=1, doc="Number of shards the dataset is split into."),
    Arg("pad_last_batch", "bool", default=False, doc="Pad each shard with its last sample."),
    Arg("stick_to_shard", "bool", default=False, doc="Read only this shard, for ever."),
    Arg(
        "dont_use_mmap",
        "bool",
        default=False,
        doc="Read every file (by default files of 1 MiB or more are mapped).",
    ),
    Arg("read_ahead", "bool", default=False, doc="Page mapped files in at once."),
    Arg("lazy_init", "bool", default=False, doc="Accepted (I/O tuning; no effect)."),
    Arg("prefetch_queue_depth", "int", default=1, doc="Accepted (I/O tuning; no effect)."),
    Arg("skip_cached_images", "bool", default=False, doc="Accepted (no effect)."),
    Arg("tensor_init_bytes", "int", default=1048576, doc="Accepted (memory hint)."),
]

#: ``shuffle_after_epoch``: every DALI 2.4 reader lists it (and every one of ours takes it);
#: kept apart from `READER_ARGS` so that a reader's schema shows where it comes from.
SHUFFLE_AFTER_EPOCH_ARGS = [
    Arg("shuffle_after_epoch", "bool", default=False, doc="A global permutation per epoch."),
    Arg("shuffle_after_epoch_seed", "int", doc="Seed of the per-epoch permutations."),
]

#: Arguments that decide *which* sample an index means are semantic; these only decide the
#: order, the sharding or the I/O, so they do not enter the reader's identity: a sample gets
#: the same random values downstream whatever the shard or the shuffling. A reader passes them
#: (and its own I/O-only arguments) as ``register(non_semantic=...)``.
NON_SEMANTIC = (
    "shard_id",
    "num_shards",
    "pad_last_batch",
    "stick_to_shard",
    "random_shuffle",
    "initial_fill",
    "shuffle_after_epoch",
    "shuffle_after_epoch_seed",
    "dont_use_mmap",
    "read_ahead",
    "lazy_init",
    "prefetch_queue_depth",
    "skip_cached_images",
    "tensor_init_bytes",
)


class IndexedReader(Operator):
    """A reader of a dataset of ``n`` samples listed at build; subclasses produce the samples.

    Subclasses implement `list_samples` (and optionally `check_arguments`, called before it)
    and `source_info`, and in ``run_cpu`` call `next_samples` for the indices of the batch.
    They must not override `setup`, ``reader_meta``, ``get_state`` or ``set_state``.
    """

    #: How the reader shuffles, as DALI's loader of it does. ``"list"`` (files, numpy, COCO,
    #: video): ``random_shuffle`` permutes the sample list once at start (the same on every
    #: shard) before the shuffle buffer draws from it, ``shuffle_after_epoch`` permutes the
    #: samples every epoch, and the two are refused together. ``"archive"`` (TFRecord,
    #: WebDataset): the shuffle buffer reads the samples in order, ``shuffle_after_epoch``
    #: permutes whole archive files every epoch (each file's samples stay in order, see
    #: `archive_starts`), and the two may be combined.
    shuffle_kind: ClassVar[str] = "list"

    # -- the subclass's part ------------------------------------------------------------------
    def check_arguments(self) -> None:
        """Reader-specific argument checks, before the dataset is listed (default: none)."""

    def list_samples(self) -> int:
        """List the dataset (once, at build) and return its number of samples (>= 1).

        Raise ``self.arg_error(...)`` for every user error: a missing path, an empty dataset,
        an unreadable index.
        """
        raise NotImplementedError

    def source_info(self, index: int) -> str:
        """The ``source_info`` of sample ``index`` (a file path, ``archive:member``...)."""
        raise NotImplementedError

    def archive_starts(self) -> np.ndarray:
        """``"archive"`` readers: the first sample of every archive file, ascending from 0
        (what ``shuffle_after_epoch`` permutes whole)."""
        raise NotImplementedError

    # -- the loader ---------------------------------------------------------------------------
    def setup(self) -> None:
        self._check_loader_arguments()
        self.check_arguments()
        n = int(self.list_samples())
        num_shards, shard_id = self.arg("num_shards"), self.arg("shard_id")
        check_sharding(self, shard_id, num_shards, n)
        self._num_samples = n
        self._batch_size = int(self.pipeline.max_batch_size)
        shuffle_after = self.has_shuffle_after_epoch() and bool(self.arg("shuffle_after_epoch"))
        #: how the stream is shuffled (`_resume.resume_stream`), and its tag in the state
        shuffle: dict[str, Any] = {}
        tags = []
        if shuffle_after:
            epoch_seed = DEFAULT_SHUFFLE_SEED
            if self.has_arg("shuffle_after_epoch_seed"):
                epoch_seed = int(self.arg("shuffle_after_epoch_seed"))
            shuffle["epoch"] = epoch_seed
            tags.append(f"epoch:{epoch_seed}")
            if self.shuffle_kind == "archive":
                shuffle["groups"] = np.asarray(self.archive_starts(), dtype=np.int64)
        self._fill: int | None = None
        if self.arg("random_shuffle"):
            self._fill = int(self.arg("initial_fill"))
            shuffle["fill"] = self._fill
            tags.append(f"buffer:{self._fill}")
            if self.shuffle_kind == "list":
                # one fixed permutation, the same on every shard, so the shards stay disjoint
                shuffle["order"] = epoch_permutation(n, DEFAULT_SHUFFLE_SEED, 0)
        self._shuffle = shuffle or None
        self._shuffle_tag = ",".join(tags)
        self._layout = Layout(
            n,
            num_shards=num_shards,
            batch_size=self._batch_size,
            pad_last_batch=bool(self.arg("pad_last_batch")),
            stick_to_shard=bool(self.arg("stick_to_shard")),
        )
        self._shard_id = shard_id
        self._cursor = self._new_cursor(self._layout.stream(shard_id, self._shuffle))
        self._planned = False
        self._resumed: dict[str, Any] | None = None
        self._meta = reader_meta(
            n,
            num_shards=num_shards,
            shard_id=shard_id,
            pad_last_batch=bool(self.arg("pad_last_batch")),
            # shuffle_after_epoch reads its own slice of every permutation: it sticks [observed]
            stick_to_shard=bool(self.arg("stick_to_shard")) or shuffle_after,
        )

    def _new_cursor(self, stream: Any) -> ReaderCursor:
        return ReaderCursor(stream, self._fill, self.random_key)

    def has_shuffle_after_epoch(self) -> bool:
        """Whether this reader's schema has ``shuffle_after_epoch`` (`SHUFFLE_AFTER_EPOCH_ARGS`)."""
        return "shuffle_after_epoch" in self.schema.args

    def _check_loader_arguments(self) -> None:
        if self.has_shuffle_after_epoch() and self.arg("shuffle_after_epoch"):
            if self.arg("random_shuffle") and self.shuffle_kind == "list":
                raise self.arg_error(
                    "shuffle_after_epoch", "cannot be used together with `random_shuffle`"
                )
            if self.arg("stick_to_shard"):
                raise self.arg_error(
                    "shuffle_after_epoch", "cannot be used together with `stick_to_shard`"
                )
        check_sharding(self, self.arg("shard_id"), self.arg("num_shards"))
        for name, least in (("initial_fill", 1), ("prefetch_queue_depth", 1)):
            if self.arg(name) < least:
                raise self.arg_error(name, f"must be positive, got {self.arg(name)}")
        if self.arg("tensor_init_bytes") < 0:
            raise self.arg_error(
                "tensor_init_bytes", f"must be non-negative, got {self.arg('tensor_init_bytes')}"
            )

    @property
    def num_samples(self) -> int:
        """The size of the listed dataset (all shards)."""
        return self._num_samples

    def next_samples(self, ws: Workspace) -> np.ndarray:
        """The dataset indices (int64, ``batch_size`` of them) of this batch, in batch order.

        Also records the batch's identity (``ws.out_meta``) with `source_info`.
        """
        planned = ws.planned
        ids, passes = self._cursor.next_batch(self._batch_size) if planned is None else planned
        #: the consumer plans the batches (worker processes): this cursor knows nothing ahead
        self._planned = planned is not None
        ws.out_meta = BatchMeta(ids, passes, tuple(self.batch_source_info(ids)))
        return ids

    @staticmethod
    def batch_infos(ws: Workspace) -> list[str]:
        """The source_info of the batch `next_samples` gave (one string per sample)."""
        meta = ws.out_meta
        assert meta is not None and meta.source_info is not None, "next_samples() first"
        return list(meta.source_info)

    def plan_samples(self) -> tuple[np.ndarray, np.ndarray]:
        """The next batch's ids and passes, advancing the cursor (`Operator.plan_samples`)."""
        return self._cursor.next_batch(self._batch_size)

    def upcoming_samples(self, batches: int = 1) -> list[np.ndarray]:
        """The indices of the ``batches`` batches after the last one `next_samples` gave."""
        return list(itertools.islice(self.upcoming_batches(), batches))

    def upcoming_batches(self) -> Iterator[np.ndarray]:
        """The indices of the batches after the last one `next_samples` gave, one batch at a
        time, as many as asked for (the epochs go on).

        For read-ahead: the cursor is copied when the first batch is asked for, never moved.
        None are known when the consumer plans the batches (`plan_samples`): this process runs
        only some of them.
        """
        if self._planned:
            return
        cursor = self._cursor.copy()
        while True:
            yield cursor.next_batch(self._batch_size)[0]

    def hint_ahead(self, extents_of: Callable[[np.ndarray], Iterable[_storage.Extent]]) -> None:
        """Tell `_storage` what the next ``options.READ_AHEAD`` batches will read.

        ``extents_of(ids)`` gives the byte ranges of the samples ``ids``. Remote ranges are then
        fetched in the background (a round trip costs tens of milliseconds; two batches ahead
        hide it where one does not: RESULTS.md "Object storage"); local ones are left to the OS.
        """
        ahead = self.upcoming_samples(max(1, options.READ_AHEAD))
        _storage.prefetch([e for ids in ahead for e in extents_of(ids)])

    def batch_source_info(self, ids: np.ndarray) -> list[str]:
        """`source_info` of every index in ``ids``."""
        return [self.source_info(k) for k in ids.tolist()]

    # -- metadata and state -------------------------------------------------------------------
    def reader_meta(self) -> dict[str, int]:
        """``epoch_size``, ``epoch_size_padded``, shards and flags (ints) for the Pipeline."""
        return dict(self._meta)

    def get_state(self) -> dict[str, Any]:
        """The reader's layout and position (`_resume`): a few integers, never the data."""
        state = self._layout.to_json(self._shard_id)
        cursor = self._cursor
        state["position"] = cursor.position
        if cursor.stream.rest is not None:
            state["rest"] = cursor.stream.rest.to_json()
        if self._shuffle_tag:
            state["shuffle"] = self._shuffle_tag
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        """Resume from `get_state` of this reader, or of one with another layout (elastic)."""
        try:
            saved_tag = state.get("shuffle", "")
            if saved_tag != self._shuffle_tag:
                raise ResumeError(
                    f"the saved reader shuffled as {saved_tag or 'none'!r}, this one as "
                    f"{self._shuffle_tag or 'none'!r} (random_shuffle/initial_fill and "
                    "shuffle_after_epoch/shuffle_after_epoch_seed must be the same)"
                )
            if "draws" in state:
                raise ResumeError(
                    "the state was saved by an earlier dali, whose shuffle buffer mixed epochs"
                )
            stream, position = resume_stream(
                state,
                self._layout,
                shard_id=self._shard_id,
                shuffle=self._shuffle,
                key=self.random_key,
            )
            cursor = self._new_cursor(stream)
            cursor.set_state(position)
        except (KeyError, TypeError, ValueError) as e:
            what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
            raise self.error(f"cannot restore the reader state: {what}") from e
        self._cursor = cursor
        saved = Layout.from_json(state)
        self._resumed = resume_info(stream, position, saved) if saved != self._layout else None

    def resume_info(self) -> dict[str, Any] | None:
        """After an elastic restore, where the reader resumes (`_resume.resume_info`)."""
        return self._resumed
