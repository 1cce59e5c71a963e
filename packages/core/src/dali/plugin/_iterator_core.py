"""The iterator logic every framework plugin shares: DALI's ``_DaliBaseIterator``.

A framework iterator wraps one pipeline per device and hands each batch to the training loop.
Readers never end an epoch (they stream for ever), so the iterator decides where epochs end:

* with ``reader_name=`` it reads the reader's metadata (dataset size, shards, padding) and
  counts samples per shard; with uneven shards and no padding, how far each shard has read into
  the next one is carried over, so ``size`` and ``len()`` change from epoch to epoch;
* with an explicit ``size`` (legacy) it counts samples over all pipelines;
* with neither, an epoch lasts until a Python source raises StopIteration.

The last batch of an epoch follows a `LastBatchPolicy`: FILL returns it whole (the tail is
padding or the next epoch's data), DROP reads it and throws it away, PARTIAL cuts it to the
samples of the current epoch.

Everything but the conversion to framework arrays lives here, written once. ``__next__`` is a
template method; a plugin implements the hook `_DaliBaseIterator._convert` (and
`_DaliBaseIterator._trim` when its batches are not a list of per-pipeline dicts)::

    outputs = self._get_outputs()        # share_outputs() of every pipeline, or StopIteration
    batch = self._convert(outputs)       # plugin hook: TensorLists -> framework arrays
    self._schedule_runs()                # release_outputs() + schedule_run() on every pipeline
    self._advance_and_check_drop_last()  # count the batch; DROP ends the epoch here
    counts = self._partial_counts()      # PARTIAL: the samples each pipeline keeps, or None
    return batch if counts is None else self._trim(batch, counts)

The iterator's own state (a few integers) is a small JSON document (`iterator_state`,
`load_iterator_state`): the ``iterator_data`` that DALI embeds in pipeline checkpoints
(`_DaliBaseIterator.checkpoints`). `state_dict` / `load_state_dict` (the convention of
PyTorch and torchdata's ``StatefulDataLoader``) hold those checkpoints, one per pipeline, as
JSON strings: everything needed to continue, restored in place. A checkpoint records what the
training loop received, not what was prefetched: restored, the iterator returns exactly the
batches (and epoch ends) the saved one would have returned next.

**Elastic restore** (beyond DALI). Checkpoints taken with ``S`` shards (pipelines, JAX devices
or processes) and batch size ``B`` restore into pipelines with ``S'`` shards or batch ``B'``
(the same reader otherwise; every new pipeline may take any of the saved checkpoints, since
the shards of one job move in lockstep). The rule:

1. The rest of the interrupted epoch ``e`` — its samples that no old shard had read — is split
   into ``S'`` near-equal contiguous pieces (in the old shards' order); new shard ``j`` reads
   piece ``j``, padded by repeating its last sample to whole batches of the largest piece. That
   is one *remainder epoch*: FILL returns the padding, PARTIAL cuts it, DROP drops the batches
   that would overflow the smallest piece.
2. Then every new shard starts epoch ``e + 1`` of the new layout at the start of its shard
   visit, as a fresh iterator of the new layout would after ``e + 1`` resets, except that
   nothing is carried over: FILL without padding carries how far each shard read into the
   next, and DROP may lag a batch behind the visits (it never reads a last batch that padding
   fills); both start over from the visit.
3. A checkpoint taken at the end of an epoch (before its StopIteration) restores to that
   StopIteration, then epoch ``e + 1`` of the new layout. One taken at the start of an epoch
   (right after ``reset``) restores to that epoch of the new layout, whole.

So, with ``pad_last_batch=True`` and PARTIAL, every epoch delivers every sample exactly once
across the new shards, whatever ``S'`` and ``B'``; the random values of a sample depend on its
epoch, not on the layout. Readers with ``random_shuffle`` restore exactly into
the same layout only (their shuffle buffer mixes epochs); use ``shuffle_after_epoch``.
"""

from __future__ import annotations

import json
import logging
import math
import warnings
from collections.abc import Mapping, Sequence
from enum import Enum, unique
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import PipelineAPIType

if TYPE_CHECKING:
    from dali._pipeline.pipeline import Pipeline

__all__ = ["BaseIterator", "LastBatchPolicy", "_DaliBaseIterator"]

_logger = logging.getLogger("dali.plugin.base_iterator")


_NO_DATA = (
    "It seems that there is no data in the pipeline. This may happen if last_batch_policy is "
    "set to PARTIAL and the requested batch size is greater than the shard size."
)

#: The fields of the iterator state, with DALI's names (they appear in its checkpoints).
_STATE_FIELDS = ("_counter", "_counter_per_gpu", "_shard_sizes_per_gpu", "_shards_id", "_size")
#: Only iterators with ``reader_name`` have these (one entry per shard, or per pipeline).
_READER_FIELDS = ("_counter_per_gpu", "_shard_sizes_per_gpu", "_shards_id")

#: What `_DaliBaseIterator.state_dict` returns: this format tag and version, and the checkpoints.
_STATE_FORMAT = "dali.iterator"
_STATE_VERSION = 1

#: Our field (beside DALI's) while a remainder epoch of an elastic restore runs:
#: ``[the epoch that follows it, the samples each pipeline reads in it]``.
_ELASTIC_FIELD = "_elastic"


@unique
class LastBatchPolicy(Enum):
    """What an iterator does with the last batch of an epoch when the epoch does not fill it.

    * FILL: return the whole batch; its tail is the reader's padding (copies of the shard's
      last sample, with ``pad_last_batch=True``) or the start of the next epoch's data.
    * DROP: read the batch from the pipeline and throw it away.
    * PARTIAL: return only the samples that belong to the current epoch.

    With the dataset ``[1..7]`` and batch size 2 (one shard):

    ======== ================= ============== ==================
    policy   ``pad_last_batch`` last batch     next epoch starts
    ======== ================= ============== ==================
    PARTIAL  True              ``[7]``        ``[1, 2]``
    PARTIAL  False             ``[7]``        ``[2, 3]``
    FILL     True              ``[7, 7]``     ``[1, 2]``
    FILL     False             ``[7, 1]``     ``[2, 3]``
    DROP     True              ``[5, 6]``     ``[1, 2]``
    DROP     False             ``[5, 6]``     ``[2, 3]``
    ======== ================= ============== ==================

    Example:
        >>> LastBatchPolicy.PARTIAL, LastBatchPolicy(1)
        (<LastBatchPolicy.PARTIAL: 2>, <LastBatchPolicy.DROP: 1>)
    """

    FILL = 0
    DROP = 1
    PARTIAL = 2


def _iterator_deprecation_warning() -> None:
    warnings.warn(
        "Please set `reader_name` and don't set last_batch_padded and size manually whenever "
        "possible. This may lead, in some situations, to missing some samples or returning "
        "duplicated ones. Check the Sharding section of the documentation for more details.",
        Warning,
        stacklevel=4,  # -> the caller of the plugin's constructor
    )


def _auto_reset_mode(auto_reset: Any) -> str:
    # Identity checks, as DALI: the documented string "True" is rejected, and so is 1.
    if auto_reset is False or auto_reset is None or auto_reset == "no":
        return "no"
    if auto_reset is True or auto_reset == "yes":
        return "yes"
    raise ValueError(f"Unsupported value for `auto_reset` {auto_reset}")


def _choose_worker_processes(pipes: Sequence[Any]) -> None:
    """Several GPU pipelines of one process: run each in a worker process of its own
    (`dali._exec.process`), unless the user said otherwise (``worker_process=``) or they run
    already. Their host work then shares no GIL (`options.WORKER_PROCESS_PIPELINES`)."""
    from dali import _options as options

    least = options.WORKER_PROCESS_PIPELINES
    gpu = [p for p in pipes if p._plan is not None and p._plan.uses_gpu]
    if least is not None and len(gpu) >= least:
        for p in gpu:
            p.use_worker_process(chosen=True)


def _round_up(value: int, multiple: int) -> int:
    """``ceil(value / multiple) · multiple`` in integers (exact for any size, negative too)."""
    return -(-value // multiple) * multiple


class _DaliBaseIterator:
    """DALI's base iterator: epochs, last-batch policy, sharding arithmetic, reset, state.

    Not used directly: a framework plugin subclasses it, implements `_convert` (and `_trim`
    for PARTIAL when its batches are not a list of per-pipeline dicts), and sets the attributes
    its hooks need *before* calling ``super().__init__``, because the constructor already
    prepares the first batch (``prepare_first_batch=True``).

    Args:
        pipelines: One pipeline or a list of them (one per device), all with the same
            ``max_batch_size``. They are built here.
        size: Samples per epoch over all pipelines (legacy; prefer ``reader_name``). -1: an
            epoch ends when a Python source raises StopIteration (one pipeline only; the
            policy is then FILL and ``len()`` is 0).
        reader_name: The name of the reader whose metadata (size, shards, padding,
            ``stick_to_shard``) sets the epoch length; excludes ``size`` and
            ``last_batch_padded``.
        auto_reset: ``False``/``None``/``"no"``: call `reset` (or ``iter()``) between epochs;
            ``True``/``"yes"``: `reset` is called just before StopIteration is raised.
        fill_last_batch: Deprecated (a warning): True means FILL, False means PARTIAL.
        last_batch_padded: With ``size``: whether the reader pads its shards
            (``pad_last_batch=True``), so that an epoch does not eat into the next one.
        last_batch_policy: A `LastBatchPolicy`.
        prepare_first_batch: Run the pipelines and convert the first batch in the constructor.

    Raises:
        AssertionError: Inconsistent arguments or pipelines (DALI's messages).
        ValueError: ``last_batch_policy`` is not a `LastBatchPolicy`, a bad ``auto_reset``, or
            pipelines that disagree on ``enable_checkpointing``.
        RuntimeError: ``prepare_first_batch`` found no data (e.g. DROP with a batch larger
            than a shard).

    Example:
        >>> import numpy as np
        >>> import dali
        >>> import dali.fn as fn
        >>> class Iterator(_DaliBaseIterator):
        ...     def _convert(self, outputs):  # one tuple of TensorLists per pipeline
        ...         return [[np.asarray(tl.as_tensor()) for tl in outs] for outs in outputs]
        >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        >>> with pipe:
        ...     pipe.set_outputs(fn.external_source(lambda i: np.full((2, 1), i), batch=True))
        >>> it = Iterator(pipe, size=-1)
        >>> [batch[0][0].ravel().tolist() for batch, _ in zip(it, range(3))]
        [[0, 0], [1, 1], [2, 2]]
    """

    #: The pipelines' checkpoints made in the constructor (None: none, or no longer valid).
    _initial_checkpoints: list[Any] | None

    def __init__(
        self,
        pipelines: Pipeline | list[Pipeline] | tuple[Pipeline, ...],
        size: int = -1,
        reader_name: str | None = None,
        auto_reset: bool | str | None = False,
        fill_last_batch: bool | None = None,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
    ) -> None:
        if pipelines is None:
            raise AssertionError("Number of provided pipelines has to be at least 1")
        pipes = list(pipelines) if isinstance(pipelines, (list, tuple)) else [pipelines]
        if not pipes:
            raise AssertionError("Number of provided pipelines has to be at least 1")
        self._num_gpus = len(pipes)
        batch_size = pipes[0].max_batch_size
        if any(p.max_batch_size != batch_size for p in pipes):
            raise AssertionError("All pipelines should have the same batch size set")

        self._size = int(size)
        self._auto_reset = _auto_reset_mode(auto_reset)
        self._prepare_first_batch = prepare_first_batch

        if fill_last_batch is not None:
            warnings.warn(
                "Please do not use `fill_last_batch` and use `last_batch_policy` instead.",
                Warning,
                stacklevel=3,
            )
            policy = LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.PARTIAL
        elif type(last_batch_policy) is not LastBatchPolicy:
            raise ValueError(
                f"Wrong type for `last_batch_policy`. Expected {LastBatchPolicy}, "
                f"got {type(last_batch_policy)}"
            )
        else:
            policy = last_batch_policy
        self._last_batch_policy = policy
        self._last_batch_padded = last_batch_padded

        if self._size == 0:
            raise AssertionError("Size cannot be 0")
        if self._size < 0 and not (len(pipes) == 1 or reader_name):
            raise AssertionError("Negative size is supported only for a single pipeline")
        if reader_name and self._size >= 0:
            raise AssertionError("When reader_name is provided, size should not be set")
        if reader_name and last_batch_padded:
            raise AssertionError(
                "When reader_name is provided, last_batch_padded should not be set"
            )
        if self._size < 0 and not reader_name:
            # the epoch ends with the source: there is no last batch to drop or cut
            self._last_batch_policy = LastBatchPolicy.FILL
            self._last_batch_padded = False
        if self._size > 0 and not reader_name:
            _iterator_deprecation_warning()

        self._pipes = pipes
        self._counter = 0
        #: during the remainder epoch of an elastic restore: [next epoch, samples per pipeline]
        self._elastic: list[int] | None = None
        for p in pipes:
            with p._check_api_type_scope(PipelineAPIType.ITERATOR):
                p.build()
        _choose_worker_processes(pipes)
        assert batch_size is not None  # build() rejects a pipeline without one
        # frameworks expect a public `batch_size` on their data iterators
        self.batch_size = batch_size
        self._reader_name = reader_name
        self._extract_from_reader_and_validate()
        self._ever_scheduled = False
        self._ever_consumed = False
        self._restored_in_place = False  # load_checkpoints ran and no batch was taken since
        self._first_batch: Any = None
        self._setup_checkpointing()
        # taken before the first batch is prepared, so that prepare_first_batch does not
        # shift what `iterator_state` and `checkpoints` return before anything is consumed
        self._initial_state: dict[str, Any] | None = self.iterator_state()

        # Restored at the end of an epoch, the first next() must raise StopIteration, as the
        # saved iterator would have (DALI swallows it here, so that with auto_reset a restored
        # iterator skipped the end of the epoch). An epoch already over is left to next();
        # a DROP epoch that ends on the prepared batch leaves the StopIteration pending.
        self._pending_stop = False
        # (a restored DROP iterator may stand before a StopIteration its counters do not show)
        restored = any(p.is_restored_from_checkpoint for p in pipes)
        over = 0 < self._size <= self._counter or (restored and self._epoch_over())
        if prepare_first_batch and not over:
            try:
                self._first_batch = self._next_batch()
            except StopIteration:
                self._report_no_data_in_pipeline()
                self._pending_stop = True

    # -- the hooks a plugin implements -----------------------------------------------------
    def _convert(self, outputs: list[tuple[Any, ...]]) -> Any:
        """Turn one batch into the framework's objects (the plugin's hook).

        Args:
            outputs: One tuple of TensorLists (the pipeline's outputs) per pipeline, in
                pipeline order. They stay valid until the next scheduled run is consumed.

        Returns:
            The batch the iterator returns, e.g. one dict of arrays per pipeline.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement `_convert(outputs)`")

    def _trim(self, batch: Any, counts: list[int]) -> Any:
        """Cut a converted batch for LastBatchPolicy.PARTIAL (a hook; this default is enough
        for a list with one mapping of sliceable arrays per pipeline).

        Args:
            batch: What `_convert` returned.
            counts: The samples to keep from each pipeline, in pipeline order. It may be
                shorter than the number of pipelines (legacy ``size``): the pipelines past its
                end are left out of the batch.

        Returns:
            The trimmed batch.
        """
        if isinstance(batch, Sequence) and all(isinstance(d, Mapping) for d in batch):
            return [{k: v[:n] for k, v in d.items()} for d, n in zip(batch, counts)]
        raise NotImplementedError(
            f"{type(self).__name__} returns {type(batch).__name__} batches; implement "
            f"`_trim(batch, counts)` to support LastBatchPolicy.PARTIAL"
        )

    # -- reader metadata ---------------------------------------------------------------------
    def _calculate_shard_sizes(self, shard_nums: np.ndarray) -> np.ndarray:
        # shard i covers [floor(i·N/S), floor((i+1)·N/S)): integer arithmetic, exact for any N
        n, s = self._size_no_pad, self._shards_num
        sizes: np.ndarray = (shard_nums + 1) * n // s - shard_nums * n // s
        return sizes

    def _extract_from_reader_and_validate(self) -> None:
        if not self._reader_name:
            return
        metas = [p.reader_meta(self._reader_name) for p in self._pipes]

        def same(name: str, what: str) -> Any:
            if any(m[name] != metas[0][name] for m in metas):
                raise AssertionError(
                    f"Reader Operator should have the same {what} in all the pipelines."
                )
            return metas[0][name]

        def all_or_none(name: str, what: str) -> bool:
            flags = [bool(m[name]) for m in metas]
            if any(flags) and not all(flags):
                raise AssertionError(
                    f"Reader Operator should have the same {what} in all the pipelines."
                )
            return flags[0]

        self._size_no_pad = int(same("epoch_size", "size value"))
        self._shards_num = int(same("number_of_shards", "`num_shards` argument set"))
        self._last_batch_padded = all_or_none("pad_last_batch", "`pad_last_batch` argument set")
        self._is_stick_to_shard = all_or_none("stick_to_shard", "`stick_to_shard` argument set")
        self._shards_id = np.array([m["shard_id"] for m in metas], dtype=np.int64)
        #: each pipeline's own shard (``_shards_id`` moves on every epoch unless sticking)
        self._base_shards_id = self._shards_id.copy()

        self._size = self._epoch_size()

        # Per shard position: how far into its next shard each reader already read in the
        # previous epoch (FILL without padding), and the sizes of the shards being read.
        # Indexed by shard, not by pipeline: one pipeline per process sees all shards' sizes.
        self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
        self._shard_sizes_per_gpu = self._calculate_shard_sizes(
            np.arange(self._shards_num, dtype=np.int64)
        )
        # PARTIAL indexes these by each pipeline's current shard id
        self._shard_sizes_per_gpu_initial = self._shard_sizes_per_gpu.copy()

    # -- one step ----------------------------------------------------------------------------
    def __next__(self) -> Any:
        self._ever_consumed = True
        self._restored_in_place = False
        if self._pending_stop:
            self._pending_stop = False
            raise StopIteration
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        return self._next_batch()

    def next(self) -> Any:
        """Returns the next batch of data."""
        self._ever_consumed = True
        return self.__next__()

    def _next_batch(self) -> Any:
        outputs = self._get_outputs()
        batch = self._convert(outputs)
        self._schedule_runs()
        self._advance_and_check_drop_last()
        counts = self._partial_counts()
        return batch if counts is None else self._trim(batch, counts)

    def _get_outputs(self) -> list[tuple[Any, ...]]:
        """The next outputs of every pipeline; ends the epoch when the size is reached."""
        if not self._ever_scheduled:
            self._schedule_runs(release_outputs=False)
        if 0 < self._size <= self._counter:
            self._end_iteration()
        outputs = []
        try:
            for p in self._pipes:
                with p._check_api_type_scope(PipelineAPIType.ITERATOR):
                    outputs.append(p.share_outputs())
        except StopIteration:
            # a Python source ran out of data: that is the end of the epoch
            if self._size < 0 and self._auto_reset == "yes":
                self.reset()
            raise
        self._check_batch_size(outputs)
        return outputs

    def _check_batch_size(self, outputs: list[tuple[Any, ...]]) -> None:
        if not (self._reader_name or self._size != -1):
            return
        for outs in outputs:
            for out in outs:
                if len(out) != self.batch_size:
                    raise AssertionError(
                        "Variable batch size is not supported by the iterator when reader_name "
                        "is provided or iterator size is set explicitly"
                    )

    def _end_iteration(self) -> None:
        if self._auto_reset == "yes":
            self.reset()
        raise StopIteration

    def _schedule_runs(self, release_outputs: bool = True) -> None:
        self._ever_scheduled = True
        for p in self._pipes:
            with p._check_api_type_scope(PipelineAPIType.ITERATOR):
                if release_outputs:
                    p.release_outputs()
                p.schedule_run()

    def _advance_and_check_drop_last(
        self, dry_run: bool = False, end_iteration: bool = True
    ) -> bool:
        """Count the batch just read; for DROP, tell (and end the epoch) if it overflows.

        Args:
            dry_run: Only tell whether the next batch would overflow; change nothing.
            end_iteration: Raise StopIteration (after an auto reset) on overflow.

        Returns:
            Whether the batch overflows the epoch (DROP only; otherwise False).
        """
        counter = self._counter
        drop = self._last_batch_policy == LastBatchPolicy.DROP
        if self._reader_name:
            counter += self.batch_size
            # overflowing *any* shard ends the epoch: every shard gets the same whole batches
            should_end = drop and bool(
                np.any(self._counter_per_gpu + counter > self._shard_sizes_per_gpu)
            )
        else:
            counter += self._num_gpus * self.batch_size
            should_end = drop and counter > self._size
        if not dry_run:
            self._counter = counter
            if should_end and end_iteration:
                self._end_iteration()
        return should_end

    def _partial_counts(self) -> list[int] | None:
        """PARTIAL: how many samples each pipeline keeps from this batch (None: all of them)."""
        if self._last_batch_policy != LastBatchPolicy.PARTIAL:
            return None
        batch = self.batch_size
        if self._reader_name:
            counts = self.nonpadding_counts()
            return None if all(n == batch for n in counts) else counts
        if 0 < self._size < self._counter:
            # exactly `size` samples per epoch, taking whole pipelines first
            wanted = self._num_gpus * batch - (self._counter - self._size)
            pipes = math.ceil(wanted / batch)
            return [batch] * (pipes - 1) + [wanted % batch or batch]
        return None

    def _report_no_data_in_pipeline(self) -> None:
        # A pipeline restored from a checkpoint taken at the end of an epoch has nothing to
        # give before the next reset: that is not an error.
        if not any(p.is_restored_from_checkpoint for p in self._pipes):
            raise RuntimeError(_NO_DATA)

    def named_outputs(
        self, outputs: list[tuple[Any, ...]], output_map: Sequence[str]
    ) -> list[list[tuple[str, Any, str]]]:
        """Every pipeline's outputs under their ``output_map`` names, for `_convert`: per
        pipeline, ``(name, batch, what)`` in ``output_map`` order, where ``what`` names the
        output in error messages (``"output 'x'"``, ``"... of pipeline 1"`` when there are
        several).

        Raises:
            AssertionError: A pipeline has fewer outputs than ``output_map`` has names.
        """
        named = []
        for k, outs in enumerate(outputs):
            if len(outs) < len(output_map):
                raise AssertionError(
                    f"output_map has {len(output_map)} names, but pipeline {k} has only "
                    f"{len(outs)} outputs."
                )
            which = f" of pipeline {k}" if len(outputs) > 1 else ""
            named.append(
                [(name, outs[j], f"output '{name}'{which}") for j, name in enumerate(output_map)]
            )
        return named

    def nonpadding_counts(self) -> list[int]:
        """How many samples of the batch last returned belong to the epoch, per pipeline (the
        rest of a last batch is padding, or the next epoch's samples, which FILL returns).
        For evaluation masks (dali-clu's ``is_nonpadding``); needs ``reader_name``.

        Raises:
            AssertionError: The iterator has no ``reader_name``.
        """
        if not self._reader_name:
            raise AssertionError("nonpadding_counts needs the iterator's reader_name")
        batch = self.batch_size
        left = batch - (self._counter - self._shard_sizes_per_gpu_initial[self._shards_id])
        return [int(min(max(n, 0), batch)) for n in left.tolist()]

    @property
    def pipelines(self) -> list[Pipeline]:
        """The wrapped pipelines, one per device (a copy of the list)."""
        return list(self._pipes)

    @property
    def reader_name(self) -> str | None:
        """The reader whose metadata sets the epochs (None: ``size`` does)."""
        return self._reader_name

    @property
    def checkpointing_enabled(self) -> bool:
        """Whether the pipelines were made with ``enable_checkpointing=True``."""
        return self._enable_checkpointing

    # -- epochs ------------------------------------------------------------------------------
    def reset(self) -> None:
        """Start the next epoch; only at the end of an epoch (otherwise a logged warning).

        FILL without padding with ``reader_name`` carries over how far each shard has read
        into the next one, so the next epoch's ``size`` and ``len()`` may differ.
        """
        if self._elastic is not None:
            if not self._epoch_over():
                _logger.warning(
                    "DALI iterator does not support resetting while epoch is not finished. "
                    "Ignoring..."
                )
                return
            self._pending_stop = False
            self._end_remainder_epoch()
            return
        if self._last_batch_policy == LastBatchPolicy.DROP:
            # len() told the user the epoch is over, yet the incomplete batch is still in the
            # pipeline: read it and throw it away, so that the next epoch starts after it
            should_end = self._advance_and_check_drop_last(dry_run=True, end_iteration=False)
            already_ended = 0 < self._size <= self._counter
            if should_end and not already_ended:
                self._get_outputs()
                self._schedule_runs()
                self._advance_and_check_drop_last(end_iteration=False)

        if not (self._counter >= self._size or self._size < 0):
            _logger.warning(
                "DALI iterator does not support resetting while epoch is not finished. Ignoring..."
            )
            return

        self._pending_stop = False  # the owed end of the epoch is passed
        fill_unpadded = (
            self._last_batch_policy == LastBatchPolicy.FILL and not self._last_batch_padded
        )
        if fill_unpadded and self._reader_name:
            # `_counter` started the epoch at min(_counter_per_gpu): the samples read in this
            # epoch, plus what each shard had read before, minus its shard, is how far each
            # one has read into the next shard; the next epoch starts at the smallest of them
            read = self._counter - int(self._counter_per_gpu.min())
            self._counter_per_gpu = self._counter_per_gpu + read - self._shard_sizes_per_gpu
            self._counter = int(self._counter_per_gpu.min())
        elif fill_unpadded:
            self._counter %= self._size  # legacy: the overshoot counts for the next epoch
        else:
            self._counter = 0

        if self._reader_name:
            if not self._is_stick_to_shard:
                self._shards_id = (self._shards_id + 1) % self._shards_num
            if fill_unpadded:
                if not self._is_stick_to_shard:
                    self._shard_sizes_per_gpu = np.roll(self._shard_sizes_per_gpu, 1)
                still_to_read = self._shard_sizes_per_gpu - self._counter_per_gpu
                self._size = _round_up(int(still_to_read.max()), self.batch_size)
                if self._size == 0:
                    # the previous epoch read the whole of the next one: skip it
                    self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
                    self._counter = 0
                    self._shard_sizes_per_gpu = np.roll(self._shard_sizes_per_gpu, 1)
                    self._size = _round_up(int(self._shard_sizes_per_gpu.max()), self.batch_size)

        self._reset_pipelines()

    def _reset_pipelines(self) -> None:
        for p in self._pipes:
            p.reset()
            if p.empty():  # a Python source ended the epoch: nothing is prefetched
                with p._check_api_type_scope(PipelineAPIType.ITERATOR):
                    p.schedule_run()

    # -- elastic restore (the module docstring's rule) ------------------------------------------
    def _start_layout(self, epoch: int) -> None:
        """Count epoch ``epoch`` as a fresh iterator would after ``epoch`` resets, with nothing
        carried over from the epoch before (what rule 2 of the elastic restore says)."""
        self._elastic = None
        self._counter = 0
        self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
        sizes = self._calculate_shard_sizes(np.arange(self._shards_num, dtype=np.int64))
        self._shard_sizes_per_gpu_initial = sizes.copy()
        fill_unpadded = (
            self._last_batch_policy == LastBatchPolicy.FILL and not self._last_batch_padded
        )
        if self._is_stick_to_shard:
            self._shards_id = self._base_shards_id.copy()
        else:
            self._shards_id = (self._base_shards_id + epoch) % self._shards_num
            if fill_unpadded:
                sizes = np.roll(sizes, epoch)
        self._shard_sizes_per_gpu = sizes
        self._size = self._epoch_size()

    def _epoch_size(self) -> int:
        """``size`` of a regular epoch (the formulas of DALI's iterator)."""
        if self._last_batch_policy == LastBatchPolicy.DROP:
            return self._size_no_pad // self._shards_num  # whole batches of the smallest shard
        largest = -(-self._size_no_pad // self._shards_num)
        if self._last_batch_padded:
            return largest  # padding makes every shard as long as the largest one
        return _round_up(largest, self.batch_size)  # whole batches covering the largest shard

    def _start_remainder(self, epoch: int, part_sizes: list[int], length: int) -> None:
        """Count the remainder epoch of an elastic restore (rule 1): piece ``j`` of the rest
        of epoch ``epoch`` per shard ``j``, ``length`` samples read by each pipeline."""
        sizes = np.asarray(part_sizes, dtype=np.int64)
        self._counter = 0
        self._counter_per_gpu = np.zeros(self._shards_num, dtype=np.int64)
        self._shard_sizes_per_gpu = sizes
        self._shard_sizes_per_gpu_initial = sizes.copy()
        self._shards_id = self._base_shards_id.copy()
        drop = self._last_batch_policy == LastBatchPolicy.DROP
        self._size = int(sizes.min()) if drop else int(sizes.max())
        self._elastic = [epoch + 1, int(length)]

    def _epoch_over(self) -> bool:
        """Whether the next step is the epoch's StopIteration (nothing more to read in it)."""
        if 0 < self._size <= self._counter:
            return True
        return self._last_batch_policy == LastBatchPolicy.DROP and bool(
            self._reader_name and self._advance_and_check_drop_last(dry_run=True)
        )

    def _skip_batches(self, count: int) -> None:
        """Read ``count`` batches of every pipeline and throw them away."""
        if not self._ever_scheduled:
            self._schedule_runs(release_outputs=False)
        for _ in range(count):
            for p in self._pipes:
                with p._check_api_type_scope(PipelineAPIType.ITERATOR):
                    p.share_outputs()
            self._schedule_runs()

    def _end_remainder_epoch(self) -> None:
        """`reset` after a remainder epoch: read what is left of it, start the next epoch."""
        assert self._elastic is not None
        next_epoch, length = self._elastic
        read = self._counter
        self._skip_batches(max(0, length - read) // self.batch_size)  # DROP: past the smallest
        self._start_layout(next_epoch)
        self._reset_pipelines()

    @staticmethod
    def _saved_epoch_over(
        saved: dict[str, Any] | None, policy: LastBatchPolicy, batch: int
    ) -> bool:
        """Whether an iterator with the saved state (of batch size ``batch``) was at the end
        of its epoch: its next step was StopIteration."""
        if saved is None:
            return False
        size, counter = int(saved.get("_size", 0)), int(saved.get("_counter", 0))
        if 0 < size <= counter:
            return True
        if policy != LastBatchPolicy.DROP or "_shard_sizes_per_gpu" not in saved:
            return False
        sizes = np.asarray(saved["_shard_sizes_per_gpu"], dtype=np.int64)
        carried = np.asarray(saved["_counter_per_gpu"], dtype=np.int64)
        return bool(np.any(carried + counter + batch > sizes))

    def _restore_elastic(self, info: dict[str, Any], saved: dict[str, Any] | None) -> None:
        """Count epochs after pipelines restored with another layout (`Pipeline.reader_resume`).

        ``saved``: the saved iterator state, if the checkpoint had one: a checkpoint taken when
        its epoch was over restores to that epoch's StopIteration first (rule 3); with DROP, a
        checkpoint taken at the start of an epoch (whose lag left samples of the epoch before
        unread, which DROP never returns) restores to the start of the next one.
        """
        epoch, parts, length = info["epoch"], info["part_sizes"], info["length"]
        over = self._saved_epoch_over(saved, self._last_batch_policy, info["saved_batch"])
        drop_at_start = (
            self._last_batch_policy == LastBatchPolicy.DROP
            and saved is not None
            and int(saved.get("_counter", -1)) == 0
            and _ELASTIC_FIELD not in saved
        )
        if parts is not None and (over or drop_at_start):
            # the rest of the epoch is not an epoch of its own: read past it
            self._skip_batches(length // self.batch_size)
            parts, epoch = None, epoch + 1
        self._start_layout(epoch)
        if parts is not None:
            self._start_remainder(epoch, parts, length)
        elif over:
            self._elastic = [epoch, 0]  # the owed StopIteration, then this epoch
            self._counter = self._size
        self._initial_state = None

    def __iter__(self) -> _DaliBaseIterator:
        # `for` after a consumed epoch starts the next one; a fresh iterator is not reset, so
        # that calling iter() on it does not run anything, nor is one just restored in place
        # in the middle of an epoch (`for batch in it` continues that epoch, without the
        # warning of a reset before the epoch's end)
        resumes = self._restored_in_place and not self._epoch_over()
        if self._counter != 0 and self._ever_consumed and not resumes:
            self.reset()
        return self

    @property
    def size(self) -> int:
        """Samples per epoch: per pipeline with ``reader_name``, over all pipelines otherwise."""
        return self._size

    def __len__(self) -> int:
        per_step = self.batch_size if self._reader_name else self._num_gpus * self.batch_size
        if self._last_batch_policy == LastBatchPolicy.DROP:
            return self.size // per_step
        return math.ceil(self.size / per_step)

    # -- state and checkpoints ---------------------------------------------------
    def iterator_state(self) -> dict[str, Any]:
        """The iterator's position as a small JSON-serialisable dict (DALI's field names).

        Before anything is consumed it is the state from before ``prepare_first_batch``. It
        does not include the pipelines' positions: restoring a run also needs the pipelines
        restored to the same point (see `checkpoints`).

        Example:
            ``{"_counter": 16, "_counter_per_gpu": [0, 0], "_shard_sizes_per_gpu": [10, 11],
            "_shards_id": [0, 1], "_size": 16}``
        """
        if not self._ever_consumed and getattr(self, "_initial_state", None) is not None:
            initial: dict[str, Any] = json.loads(json.dumps(self._initial_state))  # a copy
            return initial
        state: dict[str, Any] = {}
        for field in _STATE_FIELDS:
            if hasattr(self, field):
                value = getattr(self, field)
                state[field] = [int(v) for v in value] if field in _READER_FIELDS else int(value)
        if self._elastic is not None:
            state[_ELASTIC_FIELD] = list(self._elastic)
        return state

    def load_iterator_state(self, state: Mapping[str, Any]) -> None:
        """Restore what `iterator_state` returned, for an iterator configured the same way.

        The pipelines must be at the matching position (restored from the same checkpoint).
        Make the iterator with ``prepare_first_batch=False``: a batch prepared in the
        constructor was read with the old state.

        Raises:
            ValueError: A missing, unknown or ill-shaped field.
            RuntimeError: A batch prepared by the constructor is still pending.
        """
        if self._first_batch is not None:
            raise RuntimeError(
                "load_iterator_state: the constructor already prepared a batch with the old state; "
                "create the iterator with prepare_first_batch=False"
            )
        expected = [f for f in _STATE_FIELDS if hasattr(self, f)]
        missing = [f for f in expected if f not in state]
        unknown = [f for f in state if f not in expected and f != _ELASTIC_FIELD]
        if missing or unknown:
            raise ValueError(
                f"The iterator state does not match this iterator (reader_name="
                f"{self._reader_name!r}): missing fields {missing}, unknown fields {unknown}"
            )
        new: dict[str, Any] = {}
        for field in expected:
            value = state[field]
            if field in _READER_FIELDS:
                arr = np.asarray(value, dtype=np.int64)
                if arr.shape != getattr(self, field).shape:
                    raise ValueError(
                        f"The iterator state field `{field}` has {arr.size} entries, this "
                        f"iterator needs {getattr(self, field).size}"
                    )
                new[field] = arr
            else:
                new[field] = int(value)
        elastic = state.get(_ELASTIC_FIELD)
        if elastic is not None:
            if not self._reader_name or len(elastic) != 2:
                raise ValueError(f"The iterator state field `{_ELASTIC_FIELD}` is {elastic!r}")
            elastic = [int(v) for v in elastic]
        for field, value in new.items():
            setattr(self, field, value)
        self._elastic = elastic
        if elastic is not None:
            self._shard_sizes_per_gpu_initial = self._shard_sizes_per_gpu.copy()
        # what was saved before this state no longer describes the iterator
        self._initial_state = None
        self._initial_checkpoints = None

    def _setup_checkpointing(self) -> None:
        flags = [bool(getattr(p, "_enable_checkpointing", False)) for p in self._pipes]
        if any(f != flags[0] for f in flags):
            raise ValueError(
                "All wrapped pipelines must have the same value for `enable_checkpointing`."
            )
        self._enable_checkpointing = flags[0]
        self._initial_checkpoints = None
        if not self._enable_checkpointing:
            return
        restored = [p.is_restored_from_checkpoint for p in self._pipes]
        if any(restored):
            if not all(restored):
                _logger.warning(
                    "Some, but not all of the pipelines used were restored from checkpoint. "
                    "This iterator might produce unexpected results."
                )
            self._resume_from_pipelines()
        self._initial_checkpoints = self._pipeline_checkpoints()

    def _resume_from_pipelines(self) -> None:
        """Take the iterator state from the checkpoints the pipelines were restored from: the
        embedded ``iterator_data``, or, after an elastic restore, the module docstring's rule."""
        data = [p._iterator_data for p in self._pipes]
        if any(d != data[0] for d in data):
            _logger.warning(
                "The provided pipelines had different iterator data in the checkpoints "
                "they were restored from. This iterator might produce unexpected results."
            )
        resumes = (
            [p.reader_resume(self._reader_name) for p in self._pipes]
            if self._reader_name
            else [None]
        )
        if resumes[0] is not None:
            if any(r != resumes[0] for r in resumes):
                raise RuntimeError(
                    "The pipelines were restored from checkpoints at different positions: "
                    f"{resumes}. Restore every pipeline of an elastic restore from "
                    "checkpoints of one step of one job."
                )
            saved = json.loads(data[0]) if data[0] else None
            self._restore_elastic(resumes[0], saved)
        else:
            self._restore_iterator_data(data[0])

    def load_checkpoints(self, checkpoints: Sequence[bytes | str]) -> None:
        """Continue from `checkpoints` of an iterator configured the same way, in place (our
        extension; DALI restores only new pipelines made with ``checkpoint=``).

        Every pipeline drops what it computed ahead and restores its checkpoint
        (`dali.Pipeline.restore`); the next ``next()`` returns what the saved iterator returned
        after the checkpoints. Another number of checkpoints than of pipelines, or checkpoints
        of another layout, restore elastically (the module docstring's rule).

        Raises:
            ValueError: The pipelines were made without ``enable_checkpointing=True``, or no
                checkpoint was given.
            dali.author.CheckpointError: Not checkpoints of these pipelines.
        """
        if not self._enable_checkpointing:
            raise ValueError("Cannot restore checkpoints with checkpointing disabled")
        if not checkpoints:
            raise ValueError("load_checkpoints() needs the list that checkpoints() returned")
        for k, p in enumerate(self._pipes):
            p.restore(checkpoints[k % len(checkpoints)])
        self._first_batch = None
        self._pending_stop = False
        self._ever_scheduled = False  # the pipelines have nothing in flight any more
        self._elastic = None
        self._counter = 0
        self._extract_from_reader_and_validate()
        self._initial_state = None
        self._resume_from_pipelines()
        self._ever_consumed = True  # `checkpoints` now describes the restored position
        self._restored_in_place = True
        self._initial_checkpoints = None

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue from here, as a small JSON-serialisable dict: the
        convention of PyTorch modules and torchdata's ``StatefulDataLoader`` (beyond DALI).

        It holds `checkpoints` (one per pipeline, as ``str``) under a format tag; save it with
        ``torch.save``, ``json.dump`` or in any checkpoint manager, and hand it to
        `load_state_dict` of an iterator made the same way (or with another number of shards
        or batch size: an elastic restore, as `load_checkpoints`).

        Raises:
            ValueError: The pipelines were made without ``enable_checkpointing=True``.

        Example:
            ``{"format": "dali.iterator", "version": 1, "checkpoints": ["{...}", "{...}"]}``
        """
        if not self._enable_checkpointing:
            raise ValueError(
                "Cannot access checkpoints with checkpointing disabled: state_dict() needs "
                "pipelines made with enable_checkpointing=True"
            )
        return {
            "format": _STATE_FORMAT,
            "version": _STATE_VERSION,
            "checkpoints": [c.decode() for c in self.checkpoints()],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Continue, in place, from what `state_dict` returned (see `load_checkpoints`): the
        next ``next()`` returns the batch the saved iterator returned after it.

        Raises:
            ValueError: Not a `state_dict` of a dali iterator, another version of it, or
                pipelines made without ``enable_checkpointing=True``.
            dali.author.CheckpointError: Checkpoints of other pipelines.
        """
        if not isinstance(state, Mapping) or state.get("format") != _STATE_FORMAT:
            found = sorted(state) if isinstance(state, Mapping) else type(state).__name__
            raise ValueError(
                f"load_state_dict: expected the dict that state_dict() of a dali iterator "
                f"returns (format {_STATE_FORMAT!r}), got {found}"
            )
        if state.get("version") != _STATE_VERSION:
            raise ValueError(
                f"load_state_dict: the state has version {state.get('version')!r}; this "
                f"dali-core reads version {_STATE_VERSION} (written by a newer dali-core?)"
            )
        checkpoints = state.get("checkpoints")
        if not isinstance(checkpoints, (list, tuple)) or not all(
            isinstance(c, (str, bytes)) for c in checkpoints
        ):
            raise ValueError(
                "load_state_dict: `checkpoints` must be a list of checkpoint strings, got "
                f"{checkpoints!r:.80}"
            )
        self.load_checkpoints(list(checkpoints))

    def _pipeline_checkpoints(self) -> list[bytes]:
        """Every pipeline's checkpoint, each embedding the iterator state."""
        iterator_data = self._iterator_data_json()
        return [p._get_checkpoint(iterator_data=iterator_data) for p in self._pipes]

    def _iterator_data_json(self) -> str:
        return json.dumps(self.iterator_state(), sort_keys=True)

    def _restore_iterator_data(self, iterator_data: str | bytes | None) -> None:
        if not iterator_data:
            _logger.warning(
                "Iterator data was not saved in the checkpoint. "
                "This iterator might produce unexpected results."
            )
            return
        self.load_iterator_state(json.loads(iterator_data))

    def checkpoints(self) -> list[bytes]:
        """One checkpoint per pipeline (``bytes``), each embedding the iterator state.

        Restore by building each pipeline with ``checkpoint=cps[i]`` (and
        ``enable_checkpointing=True``) and making a new iterator over them: it continues
        exactly where this one stopped, at the batch after the last one returned. Before
        anything is consumed, the checkpoints made in the constructor are returned, so
        ``prepare_first_batch`` does not shift them. Pipelines with other shards or another
        batch size restore elastically (the module docstring's rule).

        Raises:
            ValueError: The pipelines were made without ``enable_checkpointing=True``.
        """
        if not self._enable_checkpointing:
            raise ValueError("Cannot access checkpoints with checkpointing disabled")
        if not self._ever_consumed and self._initial_checkpoints is not None:
            return list(self._initial_checkpoints)
        return self._pipeline_checkpoints()


#: The base class of framework iterators under its author-API name (`dali.author`); DALI's
#: name, `_DaliBaseIterator`, stays for user code written for DALI.
BaseIterator = _DaliBaseIterator
