"""The base classes of operator implementations, and every hook the library calls on them.

An operator is a subclass of `Operator` registered with `dali._graph.schema.register`. Beside
``run_<device>``, the executor and the pipeline call a few optional hooks, all declared here
with their contract; an operator implements the ones it needs, and the library asks
`Operator.implements` (never ``hasattr``) whether it did:

=================  ==========================================================================
hook               called
=================  ==========================================================================
``setup``          once at build, to check the scalar arguments
``static_meta``    at trace time, for the outputs' static dtype/ndim/layout/shape (``DataNode``)
``prepare_cpu``    CPU operators: the host planning of a batch, in the source stage, ahead
``prepare``        mixed operators: the host part of a batch, in the CPU stage, ahead
``reader_meta``    readers: epoch size, shards (``Pipeline.reader_meta``)
``plan_samples``   readers: the next batch's sample identities, in the consumer, for worker
                   processes that run the CPU stage (``ws.planned``)
``skipped_samples``  ``on_error="skip"`` operators: samples dropped (``Pipeline.skipped_samples``)
``on_reset``       after an epoch of a Python source ended (``Pipeline.reset``)
``get_state``      after each batch it ran, in its stage's thread: its state for checkpoints
``set_state``      at build, restoring a checkpoint (``Pipeline(checkpoint=...)``)
``resume_info``    readers restored elastically: where they resume (``Pipeline.reader_resume``)
``close``          when the pipeline closes
=================  ==========================================================================

Python sources (``fn.external_source``) are `PythonSource` operators: the pipeline calls their
``fetch`` when it schedules an iteration, in the caller's thread, and ``feed`` from
``Pipeline.feed_input``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali._graph.schema import REQUIRED, UNSET, Schema

if TYPE_CHECKING:
    from dali._exec.workspace import BatchMeta, Workspace
    from dali._graph.node import OpNode

__all__ = ["Operator", "OperatorError", "PythonSource"]


class OperatorError(RuntimeError):
    """An invalid argument value or combination, found at build or run time."""


class Operator:
    """One operator instance in a built pipeline.

    Subclasses are declared with `dali._graph.schema.register` and implement `run_cpu`
    (and `run_gpu` / `run_mixed` for the devices they list). `setup` runs once at build to
    validate the scalar arguments; `run_<device>` runs once per iteration with a `Workspace`.
    Operators with state that must survive checkpoints implement `get_state`/`set_state`.
    """

    schema: ClassVar[Schema]

    def __init__(self, node: OpNode, pipeline: Any) -> None:
        self.node = node
        self.pipeline = pipeline
        self.device = node.device
        self.name = node.name
        #: the key of the operator's random values (the pipeline seed and the operator's
        #: identity, or its own ``seed``), the ``ws.key`` of its batches; set at build, before
        #: `setup`, and again before `set_state` when a checkpoint brings another seed. None
        #: unless the schema is declared ``random=True``.
        self.random_key: int | None = None

    # -- arguments -------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        return self.schema.display_name

    def has_arg(self, name: str) -> bool:
        """Whether the user gave the argument (as a constant or a per-sample input)."""
        return name in self.node.scalar_args or name in self.node.arg_inputs

    def is_tensor_arg(self, name: str) -> bool:
        return name in self.node.arg_inputs

    def arg(self, name: str) -> Any:
        """The scalar value of an argument (or its default; ``UNSET`` when it has none)."""
        if name in self.node.scalar_args:
            return self.node.scalar_args[name]
        if name in self.node.arg_inputs:
            raise self.arg_error(name, "is a per-sample input here; use ws.arg_samples()")
        default = self.schema.args[name].default
        return UNSET if default is REQUIRED else default

    def arg_error(self, name: str, message: str) -> OperatorError:
        return OperatorError(
            f"Operator `{self.display_name}` ({self.name}), argument `{name}`: {message}"
        )

    def error(self, message: str) -> OperatorError:
        return OperatorError(f"Operator `{self.display_name}` ({self.name}): {message}")

    # -- hooks -----------------------------------------------------------------------------
    @classmethod
    def implements(cls, hook: str) -> bool:
        """Whether this operator class overrides the optional ``hook`` of `Operator`.

        Example:
            >>> class Reader(Operator):
            ...     def reader_meta(self):
            ...         return {"epoch_size": 10}
            >>> Reader.implements("reader_meta"), Reader.implements("prepare")
            (True, False)
        """
        return getattr(cls, hook) is not getattr(Operator, hook)

    @staticmethod
    def static_meta(node: OpNode) -> list[dict[str, Any]] | None:
        """The outputs' static metadata (``dtype``, ``ndim``, ``layout``, ``static_shape``
        keyword arguments of ``DataNode``), one dict per output, known from the arguments and
        the inputs' metadata at trace time; None: nothing is known.

        ``static_shape`` is the per-sample shape with None for an extent the data decides
        (`dali._ops._static_shapes` has the rules several operators share); without it an
        output with a known ``ndim`` has ``(None,) * ndim``. Unknown stays None: never guess.
        """
        return None

    def prepare_cpu(self, ws: Workspace) -> Any:
        """CPU operators: plan the batch on the host ahead of `run_cpu`, in the source stage
        (`dali._exec.stages.cpu_preparable`). What it returns, or the exception it raises,
        reaches `run_cpu` as ``ws.prepared``."""
        raise NotImplementedError

    def prepare(self, ws: Workspace) -> Any:
        """Mixed operators: the host part of the batch (planning, starting the decode), in the
        CPU stage ahead of `run_mixed` (`dali._exec.stages.preparable`). ``ws.stream`` is the
        pipeline's stream, *not* current on this thread. What it returns, or the exception it
        raises, reaches `run_mixed` as ``ws.prepared``."""
        raise NotImplementedError

    def reader_meta(self) -> dict[str, Any] | None:
        """Readers: ``epoch_size``, ``epoch_size_padded``, ``number_of_shards``, ``shard_id``
        ... (DALI's reader metadata); None: not a reader."""
        return None

    def plan_samples(self) -> tuple[np.ndarray, np.ndarray]:
        """Readers whose samples follow from their position: the identities of the next
        batch (sample ids and passes, int64), advancing the operator's state as a run would.

        When the CPU stage runs on several worker processes (`dali._exec.process.pool`), the
        consumer plans every batch of such a source here, in iteration order, and the worker
        that runs the iteration gets them as ``ws.planned`` and produces exactly those
        samples, leaving its own state alone: the batches (and checkpoints) are those of one
        process, whichever worker makes them.
        """
        raise NotImplementedError

    def skipped_samples(self) -> int | None:
        """Operators that drop samples (``on_error="skip"``): how many so far; None: never."""
        return None

    # -- lifecycle -------------------------------------------------------------------------
    def setup(self) -> None:
        """Validate scalar arguments at build (raise `arg_error`)."""

    def run(self, ws: Workspace) -> Any:
        return getattr(self, f"run_{self.device}")(ws)

    def run_cpu(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no CPU implementation")

    def run_gpu(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no GPU implementation")

    def run_mixed(self, ws: Workspace) -> Any:
        raise NotImplementedError(f"{self.display_name} has no mixed implementation")

    def on_reset(self) -> None:
        """Called by `Pipeline.reset()` after an epoch ended (sources restart)."""

    def get_state(self) -> dict[str, Any] | None:
        """The operator's state after the batch it just ran, for checkpoints: a small
        JSON-serialisable dict (positions and counters, never data). Called in the thread
        that ran the batch, after every batch: keep it cheap. None: stateless."""
        return None

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from what `get_state` returned (at build, before the first batch); raise
        `error` naming what does not match."""

    def resume_info(self) -> dict[str, Any] | None:
        """Readers restored with another layout (shards, batch size): where they resume, for
        the iterators (``dali._ops.readers.loader.resume.resume_info``); None otherwise."""
        return None

    def close(self) -> None:
        """Release resources (files, worker processes) when the pipeline closes."""


class PythonSource(Operator):
    """An operator whose batches come from Python at schedule time (``fn.external_source``).

    The pipeline calls `fetch` once per scheduled iteration, in the caller's thread (exactly
    as DALI calls its sources), and hands the batch to the executor with the request.
    """

    #: Whether the batches `fetch` returns are copied on their way to the executor (worker
    #: processes copy host batches into shared memory as the request is handed over): then
    #: a host batch need not be a copy of the user's data already. Set by the pipeline.
    copy_in_transport: bool = False

    def fetch(self, iteration: int, epoch: int) -> tuple[Any, BatchMeta]:
        """The batch of iteration ``iteration`` and its samples' identities.

        Raises:
            StopIteration: The source's epoch ended.
        """
        raise NotImplementedError

    def feed(self, data: Any, layout: str | None = None, cuda_stream: Any = None) -> None:
        """`Pipeline.feed_input`: queue one batch for a source without a callback."""
        raise NotImplementedError

    def has_data(self) -> bool:
        """Whether `fetch` has a batch to give now (without taking it)."""
        return True

    def start_workers(self) -> None:
        """Start worker processes now, if the source has any (`Pipeline.start_py_workers`)."""

    def unrestorable(self) -> str | None:
        """Why a checkpoint cannot capture where this source is (None: it can, because its
        batches follow from the iteration and epoch alone, which the checkpoint holds)."""
        return None
