"""The Python side of a DALI dataset: one pipeline, driven for each iterator of the dataset.

TensorFlow makes an iterator of a dataset for every pass over it (``iter(ds)``, a ``for``
loop in a ``tf.function``, each Keras epoch), and DALI's dataset starts every such *pass* at
the first batch: each of DALI's iterators builds its own copy of the serialized pipeline. We
do not serialize pipelines (Python operators are welcome), so one `PipelineFeed` owns the one
`Pipeline` and moves it to where the pass that asks for a batch stands:

The feed notes where the pipeline stands when it is made (`Pipeline.snapshot`: the
*consumer* position, a small JSON document; no ``enable_checkpointing`` needed). A new pass
rewinds the pipeline there (`Pipeline.rewind`), so it returns the first batches again, with
the same random values, and Python sources that take the iteration start again; a pass set
aside for another one keeps its own snapshot and resumes exactly. With a single pass at a time
(the usual loop) nothing is rewound but at the start of a later pass. What
``tf.train.Checkpoint`` saves is the same position (`PipelineFeed.position`,
`PipelineFeed.restore`), for pipelines made with ``enable_checkpointing=True`` as in DALI.

Input datasets (`dali.plugin.tf.experimental.DALIDatasetWithInputs`) are read by each pass
from their start: every iteration the pass schedules is fed first, one batch per named
external source (`Pipeline.feed_input`), and the pass ends when an input ends (a partial
batch of samples is dropped, as in DALI). Iterations computed for a pass that is set aside
are kept for it.

The pipeline is driven with `Pipeline.schedule_run` / `Pipeline.outputs`: scheduling must
follow feeding, which the shared `dali.author.BaseIterator` (it schedules after handing a
batch out) cannot do at the end of an input; and a dataset has no epochs, sizes or last-batch
policies for it to count. One lock serialises the passes: TensorFlow runs them on its own
threads.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(lambda i: np.full((2, 1), i, np.int32), batch=True)
    >>> feed = PipelineFeed(pipe(), lambda outs: int(outs[0].as_array()[0, 0]))
    >>> first, second = feed.passes(), feed.passes()
    >>> next(first), next(first), next(second), next(first)
    (0, 1, 0, 2)
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["InputSpec", "PipelineFeed"]


@dataclass(frozen=True)
class InputSpec:
    """One input dataset of `dali.plugin.tf.experimental.DALIDatasetWithInputs`.

    Attributes:
        name: The named external source it feeds.
        dataset: The ``tf.data.Dataset``; each element is one tensor.
        layout: The layout passed to ``feed_input`` (None: the source's own).
        batch: True: each element is a batch; False: one sample, ``batch_size`` per batch.
    """

    name: str
    dataset: Any
    layout: str | None
    batch: bool


@dataclass
class _Pass:
    """Where one pass over the dataset stands while another one has the pipeline."""

    #: its snapshot (`Pipeline.snapshot`): None until it has been set aside once
    position: bytes | None = None
    #: its iterators over the input datasets (made when it first runs)
    inputs: list[Iterator[Any]] | None = None
    inputs_ended: bool = False
    #: outputs the pipeline computed for it before it was set aside (inputs only), or the
    #: error computing one raised
    pending: collections.deque[Any] = field(default_factory=collections.deque)


class PipelineFeed:
    """Drives one pipeline for the passes of a dataset; `passes` is one pass's generator.

    Args:
        pipeline: The pipeline; it is built here. Nothing else should run it meanwhile.
        convert: Turns one tuple of output batches into the dataset's element (it runs under
            the feed's lock, before the next batch can be asked for).
        inputs: The input datasets and the external sources they feed.

    Raises:
        RuntimeError: The pipeline cannot be built (the message names the operator).
    """

    def __init__(
        self,
        pipeline: Pipeline,
        convert: Callable[[tuple[Any, ...]], Any],
        inputs: Sequence[InputSpec] = (),
    ) -> None:
        self._pipe = pipeline
        self._convert = convert
        self._inputs = tuple(inputs)
        pipeline.build()
        batch_size = pipeline.max_batch_size
        assert batch_size is not None  # build() rejects a pipeline without one
        self._batch_size = batch_size
        #: iterations to keep in flight when feeding inputs (DALI's prefetch depth)
        self._depth = 1
        if pipeline.exec_pipelined:
            self._depth = (
                max(pipeline.cpu_queue_size, pipeline.gpu_queue_size)
                if pipeline.exec_separated
                else pipeline.cpu_queue_size
            )
        self._lock = threading.RLock()
        self._start = pipeline.snapshot()
        #: whether the pipeline has left `_start` (else a new pass needs no restore)
        self._moved = False
        self._passes: dict[int, _Pass] = {}
        self._active: int | None = None
        self._next_id = 0
        self._in_flight = 0  # iterations scheduled for the active pass (inputs only)

    # -- one pass ------------------------------------------------------------------------
    def passes(self) -> Iterator[Any]:
        """One pass over the dataset: its elements, until a source or an input ends.

        ``tf.data.Dataset.from_generator`` calls it once per iterator of the dataset and
        closes the generator when that iterator is deleted.
        """
        with self._lock:
            key = self._next_id
            self._next_id += 1
            self._passes[key] = _Pass()
        try:
            while True:
                with self._lock:
                    self._activate(key)
                    try:
                        outputs = self._next_outputs(self._passes[key])
                    except StopIteration:
                        return
                    element = self._convert(outputs)
                yield element
        finally:
            with self._lock:
                del self._passes[key]
                if self._active == key:
                    self._active = None

    def _activate(self, key: int) -> None:
        """Give the pipeline to pass ``key``: set the active pass aside, move to ``key``."""
        if self._active == key:
            return
        current = self._passes.get(self._active) if self._active is not None else None
        if current is not None:
            self._set_aside(current)
        wanted = self._passes[key]
        target = wanted.position if wanted.position is not None else self._start
        if self._moved or target is not self._start:
            self._pipe.rewind(target)  # drops what was computed ahead
            self._in_flight = 0
            self._moved = target is not self._start
        self._active = key

    def _set_aside(self, current: _Pass) -> None:
        if self._inputs:
            # the iterations in flight were fed from this pass's inputs: keep their outputs
            while self._in_flight:
                self._in_flight -= 1
                try:
                    current.pending.append(self._pipe.outputs())
                except Exception as e:  # noqa: BLE001 - raised when the pass asks for it
                    current.pending.append(e)
        current.position = self._pipe.snapshot()

    def _next_outputs(self, current: _Pass) -> tuple[Any, ...]:
        """The next outputs of the active pass; StopIteration at the end of its data."""
        if current.pending:
            item = current.pending.popleft()
            if isinstance(item, Exception):
                raise item
            return tuple(item)
        self._moved = True
        if self._inputs:
            self._feed_ahead(current)
            if not self._in_flight:
                raise StopIteration
            self._in_flight -= 1
            try:
                return tuple(self._pipe.outputs())
            except StopIteration:  # a source with a callback ended too
                self._in_flight = 0
                raise
        if self._pipe.empty():
            self._pipe.schedule_run()  # the first time (or after a restore): depth ahead
        outputs = tuple(self._pipe.outputs())
        self._pipe.schedule_run()  # keep the queue full while the batch is converted
        return outputs

    # -- input datasets --------------------------------------------------------------------
    def _feed_ahead(self, current: _Pass) -> None:
        """Feed and schedule iterations until ``depth`` are in flight or an input ends.

        One batch is fed per `Pipeline.schedule_run`, which then schedules exactly one
        iteration (it schedules no iteration whose data is missing while others are in
        flight).
        """
        if current.inputs is None:
            current.inputs = [iter(spec.dataset) for spec in self._inputs]
        while self._in_flight < self._depth and not current.inputs_ended:
            batches = self._read_inputs(current.inputs)
            if batches is None:
                current.inputs_ended = True
                break
            for spec, data in zip(self._inputs, batches):
                self._pipe.feed_input(spec.name, data, layout=spec.layout)
            self._pipe.schedule_run()
            self._in_flight += 1

    def _read_inputs(self, iterators: list[Iterator[Any]]) -> list[Any] | None:
        """One batch of every input (None when one ends; a partial batch is dropped)."""
        out = []
        try:
            for spec, it in zip(self._inputs, iterators):
                if spec.batch:
                    out.append(_host(next(it), spec.name))
                else:
                    out.append([_host(next(it), spec.name) for _ in range(self._batch_size)])
        except StopIteration:
            return None
        return out

    # -- checkpoints (tf.train.Checkpoint) -------------------------------------------------
    def position(self) -> bytes:
        """Where the dataset's iterator stands, as the pipeline's checkpoint (JSON bytes).

        The position of the pass that ran last, if it is still open (the batches it returned,
        not those computed ahead); otherwise where a new iterator starts.

        Raises:
            RuntimeError: The pipeline was made without ``enable_checkpointing=True`` (DALI's
                error), or the dataset has input datasets (as in DALI).
        """
        if self._inputs:
            raise RuntimeError("Checkpointing is not supported for DALI dataset with inputs.")
        with self._lock:
            if self._active is not None:
                return self._pipe.checkpoint()  # without checkpointing: DALI's error
            self._pipe.checkpoint()  # (the same error)
            return self._start

    def restore(self, position: bytes | str) -> None:
        """Continue from ``position`` (what `position` returned, maybe in another process):
        the open passes and every new one continue there.

        Raises:
            RuntimeError: As `position`.
            dali.author.CheckpointError: Not a checkpoint of this pipeline.
        """
        if self._inputs:
            raise RuntimeError("Checkpointing is not supported for DALI dataset with inputs.")
        if isinstance(position, str):
            position = position.encode()
        with self._lock:
            self._pipe.restore(position)  # without checkpointing: DALI's error
            self._start = position
            self._moved = False
            self._active = None
            for p in list(self._passes.values()):
                p.position = None


def _host(value: Any, name: str) -> Any:
    """One element of an input dataset as a numpy array (or a list of them)."""
    if isinstance(value, (tuple, list, dict)):
        raise TypeError(
            f"The input dataset of the external source '{name}' gives elements of "
            f"{len(value)} tensors; only elements of one tensor are supported."
        )
    return value.numpy() if hasattr(value, "numpy") else value
