"""`fn.external_source`: data from Python.

A source is fed in one of two ways:

* **pull**: ``source`` is a callable, an iterable or a generator function. The pipeline calls
  it in the caller's thread when it *schedules* an iteration (the first `run` schedules
  ``prefetch_queue_depth`` iterations, later runs one each), exactly as DALI does. A callable
  with one parameter receives the iteration index, a `BatchInfo` (``batch_info=True``), or,
  with ``batch=False``, a `SampleInfo` for each of the ``batch_size`` samples. Raising
  ``StopIteration`` ends the epoch (see `Pipeline.reset`). With ``parallel=True`` the source
  runs in worker processes (`_parallel`).
* **push**: a named source without ``source`` gets its batches from
  ``pipe.feed_input(name, data)`` or ``pipe.run(name=data)``.

The data may be numpy, a list of samples (ragged allowed), DALI tensors or any array protocol
(`_convert`); it is copied unless ``no_copy=True``. With ``device="gpu"`` the copy is made on
the pipeline's CUDA stream when the iteration is scheduled: host data through one pinned
staging buffer, CUDA data (CuPy, torch, jax...) device to device after the stream of its
producer (``cuda_stream``, else the caller's current stream), which then waits for the copy in
turn, so buffers may be reused in stream order; with ``no_copy=True`` CUDA data is used in
place (keep it unchanged until the pipeline is done with it).

Each sample is identified by its index in the epoch (``iteration * max_batch_size + index in
batch``), which keys the random numbers of downstream operators, so results do not depend on
threads or prefetching.

`_sources` classifies the ``source`` and `_external_call` checks the call's arguments when the
graph is defined; this module is the operator that runs in the pipeline.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1)
    ... def pipe():
    ...     return fn.external_source(lambda i: np.full((2, 3), i, np.int32))
    >>> p = pipe()
    >>> p.run()[0].as_array()[:, 0]
    array([0, 0], dtype=int32)
"""

from __future__ import annotations

import collections
import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import BatchInfo, SampleInfo, type_name
from dali._exec.executor import PipelineError
from dali._exec.workspace import BatchMeta
from dali._graph.schema import Arg, register
from dali._ops.base import PythonSource
from dali._ops.python._convert import (
    OutputHistory,
    batch_size_of,
    holds_device_data,
    make_batch,
)
from dali._ops.python._external_call import external_source_call, ops_call, output_specs
from dali._ops.python._parallel import SourceSpec, WorkerError, WorkerPool, WorkerTimeout
from dali._ops.python._sources import SourceDesc, SourceThread

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ExternalSource"]


# --------------------------------------------------------------------------------------------
# One worker pool per pipeline, shared by its parallel sources
# --------------------------------------------------------------------------------------------

_POOLS: dict[int, WorkerPool] = {}


def _pool_for(info: Any) -> WorkerPool:
    """The worker pool of the pipeline described by ``info`` (one `PipelineInfo` per build)."""
    key = id(info)
    pool = _POOLS.get(key)
    if pool is None:
        pool = WorkerPool(info.py_num_workers, info.py_start_method)
        _POOLS[key] = pool
        weakref.finalize(info, _POOLS.pop, key, None)
    return pool


# --------------------------------------------------------------------------------------------
# The operator
# --------------------------------------------------------------------------------------------


@register(
    "external_source",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=lambda args: args.get("num_outputs") or 1,
    args=[
        Arg("source", "any", doc="Callable, iterable or generator function giving the data."),
        Arg("num_outputs", "int", doc="Number of outputs (the source returns a tuple of them)."),
        Arg("cycle", "any", doc='None/False/"no", True/"quiet" or "raise" (iterables).'),
        Arg("layout", "any", doc="Layout of the data (a list: one per output)."),
        Arg("dtype", "any", doc="Expected data type, checked (a list: one per output)."),
        Arg("ndim", "any", doc="Expected number of dimensions, checked (a list: one per output)."),
        Arg(
            "cuda_stream",
            "any",
            doc="The stream the source's GPU data is produced on (default: the caller's current "
            "stream); the pipeline's stream waits for it on the GPU.",
        ),
        Arg("use_copy_kernel", "bool", doc="Accepted for compatibility."),
        Arg("blocking", "bool", default=False, doc="Wait for feed_input instead of failing."),
        Arg("batch", "bool", doc="True: the source returns batches; False: one sample per call."),
        Arg("batch_info", "bool", default=False, doc="Pass BatchInfo instead of the iteration."),
        Arg(
            "repeat_last", "bool", default=False, doc="Re-use the last fed batch when none is new."
        ),
        Arg("parallel", "bool", default=False, doc="Run the source in py_num_workers processes."),
        Arg("no_copy", "bool", doc="Use the data without copying it (keep it unchanged)."),
        Arg("prefetch_queue_depth", "int", doc="Parallel only: batches computed ahead (1)."),
        Arg(
            "timeout",
            "float",
            doc="Beyond DALI: seconds to wait for a batch (from the workers, the callback or "
            "feed_input) before failing (None: for ever).",
        ),
    ],
    source=True,
    positional_args=("source", "num_outputs"),
    fn=external_source_call,
    ops_fn=ops_call,
)
class ExternalSource(PythonSource):
    """Data from Python: a callable, an iterable, a generator function, or `feed_input`.

    Example:
        >>> import numpy as np
        >>> from dali import fn, pipeline_def
        >>> @pipeline_def(batch_size=4, num_threads=1)
        ... def pipe():
        ...     return fn.external_source(source=[[np.arange(3)] * 4], cycle=True)
        >>> pipe().run()[0].shape()
        [(3,), (3,), (3,), (3,)]

    Without a declared ``dtype``, ``ndim`` or ``layout`` the first batch of each output sets
    them for the pipeline's life (`Pipeline.reset` keeps them): a later batch with another
    type, number of dimensions or layout is an error naming the source and the iteration,
    as in DALI.

    ``timeout`` (beyond DALI; parallel sources only) is how many seconds a run waits for a
    batch of this source from the worker processes: the time the workers have for it beyond
    the ``prefetch_queue_depth`` batches they compute ahead (the first batch also waits for
    the workers to start, about a second with ``py_start_method="spawn"``). The default,
    None, waits for ever, as DALI does and as PyTorch's ``DataLoader(timeout=0)`` does, since
    a callback may legitimately be slow. When it expires the run raises an error naming the
    source, the worker (index and pid) and the iteration; the unresponsive workers are killed
    (a stopped one too) and the others stopped, and the pipeline can only be closed. A worker
    that dies is reported at once, with or without a timeout. A non-parallel source with a
    ``timeout`` has its callback (or iterable) called on a thread of its own (``dali-source``),
    in order, and the run gives up on it after ``timeout`` seconds, raising an error naming the
    source and the iteration; a stuck callback cannot be stopped, so the pipeline can then only
    be closed. A ``blocking`` source fed with `feed_input` waits at most ``timeout`` for a
    batch. Without a ``timeout`` a non-parallel source runs in the thread that calls
    `Pipeline.run`, where a stuck callback can be interrupted with Ctrl-C.
    """

    def setup(self) -> None:
        args = self.node.scalar_args
        self._desc: SourceDesc | None = args.get("source")
        self._num_outputs: int | None = args.get("num_outputs")
        self._layouts, self._dtypes, self._ndims = output_specs(args)
        for k, (lay, nd) in enumerate(zip(self._layouts, self._ndims)):
            if lay and nd is not None and len(lay) != nd:
                where = f" of output {k}" if self._num_outputs is not None else ""
                raise self.arg_error(
                    "ndim",
                    f"the layout '{lay}'{where} has {len(lay)} dimensions but ndim={nd}; if "
                    f"the layout argument is provided, the ndim must match it.",
                )
        self._batch = bool(args.get("batch", True))
        self._batch_info = bool(args.get("batch_info", False))
        self._parallel = bool(args.get("parallel", False))
        self._copy = not args.get("no_copy", False) and not self._parallel
        self._repeat_last = bool(args.get("repeat_last", False))
        self._blocking = bool(args.get("blocking", False))
        self._out_device = "gpu" if self.device == "gpu" else "cpu"
        self._max_batch = int(self.pipeline.max_batch_size)
        # The type, ndim and layout of each output's first batch, for the pipeline's life.
        self._history = [OutputHistory() for _ in self._layouts]
        self._fed: collections.deque[tuple[Any, ...]] = collections.deque()
        self._last: tuple[Any, ...] | None = None
        self._cond = threading.Condition()
        self._pool: WorkerPool | None = None
        #: seconds to wait for a batch (None: for ever), and the thread that calls a
        #: non-parallel source when there is a timeout (made on the first pull)
        self._timeout: float | None = args.get("timeout")
        self._caller: SourceThread | None = None
        self._stuck: str | None = None
        self._pending: dict[int, int] = {}
        self._pending_epoch = 0
        if self._parallel:
            assert self._desc is not None
            if self.pipeline.py_num_workers <= 0:
                raise self.error(
                    "Number of Python workers for parallel ExternalSource must be positive, "
                    f"got py_num_workers={self.pipeline.py_num_workers}."
                )
            self._pool = _pool_for(self.pipeline)
            self._depth = int(args.get("prefetch_queue_depth", 1))
            self._ctx = self._pool.register(
                SourceSpec(
                    source=self._desc.source,
                    kind=self._desc.kind,
                    batch=self._batch,
                    cycle=self._desc.cycle,
                    num_outputs=self._num_outputs,
                    name=self.name,
                    timeout=args.get("timeout"),
                )
            )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        layouts, dtypes, ndims = output_specs(node.scalar_args)
        metas = []
        for lay, dt, nd in zip(layouts, dtypes, ndims):
            if nd is None and lay:
                nd = len(lay)
            metas.append({"layout": lay, "dtype": dt, "ndim": nd})
        return metas

    # -- messages --------------------------------------------------------------------------
    def _where(self) -> str:
        where = f"Error in {self.device.upper()} operator `{self.display_name}` ({self.name})"
        if self.node.definition:
            return (
                where + f", which was used in the pipeline definition at:\n{self.node.definition}\n"
            )
        return where + ": "

    def _fail(self, cls: type[Exception], message: str) -> Exception:
        return cls(self._where() + message)

    # -- the PythonSource contract (dali._ops.base) -----------------------------------------
    def fetch(self, iteration: int, epoch: int) -> tuple[Any, BatchMeta]:
        """Produce the batch(es) of ``iteration`` (called in the thread that schedules runs).

        Raises:
            StopIteration: The source reached the end of data.
        """
        if self._desc is None:
            batches = self._pop_fed()
        else:
            if self._parallel:
                raw = self._pull_parallel(iteration, epoch)
            elif self._timeout is not None:
                raw = self._pull_in_time(iteration, epoch)
            else:
                raw = self._pull(iteration, epoch)
            batches = self._to_batches(raw, f"iteration {iteration} of epoch {epoch}")
        n = len(batches[0])
        first = iteration * self._max_batch
        meta = BatchMeta(
            np.arange(first, first + n, dtype=np.int64), np.full(n, epoch, dtype=np.int64)
        )
        return (batches if self._num_outputs is not None else batches[0]), meta

    def feed(self, data: Any, layout: str | None = None, cuda_stream: Any = None) -> None:
        """Queue one batch given with `Pipeline.feed_input` (sources without ``source``).

        ``cuda_stream`` is the stream GPU data was produced on (default: the caller's current one).
        """
        if self._desc is not None:
            raise RuntimeError(
                f"Cannot use `feed_input` on the external source '{self.name}' with a `source` "
                f"argument specified."
            )
        layout = layout if layout is not None else self._layouts[0]
        batch = self._convert(data, 0, layout, self._copy, producer=cuda_stream)
        with self._cond:
            self._fed.append((batch,))
            self._cond.notify_all()

    def run_cpu(self, ws: Workspace) -> Any:
        return ws.fed

    def run_gpu(self, ws: Workspace) -> Any:
        return ws.fed

    def on_reset(self) -> None:
        self._discard_pending()

    def unrestorable(self) -> str | None:
        """DALI's rule: only a callable that takes the iteration, a `BatchInfo` or a
        `SampleInfo` resumes from a checkpoint's iteration and epoch."""
        desc = self._desc
        if desc is None:
            return "fed with `feed_input`"
        if desc.kind != "callable":
            what = "a generator function" if desc.kind == "genfunc" else "an iterable"
            return f"with {what} as a 'source'"
        if not desc.accepts_arg:
            return "with parameterless callable as a 'source'"
        return None

    def start_workers(self) -> None:
        """Start the worker processes of a parallel source now (`Pipeline.start_py_workers`)."""
        if self._pool is not None:
            self._pool.start()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._caller is not None:
            self._caller.close()

    # -- push ------------------------------------------------------------------------------
    def has_data(self) -> bool:
        """Whether `fetch` can give a batch now without failing or waiting for `feed_input`
        (the pipeline then schedules no iteration it would fail; always True with ``source``).
        Consumes nothing."""
        if self._desc is not None:
            return True
        with self._cond:
            return bool(self._fed) or (self._repeat_last and self._last is not None)

    def _pop_fed(self) -> tuple[Any, ...]:
        with self._cond:
            if not self._fed:
                if self._repeat_last and self._last is not None:
                    return self._last
                if not self._blocking:
                    raise self._fail(
                        RuntimeError,
                        f"No data was fed to the external source '{self.name}'. Call "
                        f"`pipe.feed_input('{self.name}', batch)` (or `pipe.run({self.name}="
                        "batch)`) before running the pipeline: every iteration the pipeline "
                        "schedules ahead (prefetch_queue_depth of them on the first run) needs "
                        "its own batch.",
                    )
                if not self._cond.wait_for(lambda: bool(self._fed), self._timeout):
                    raise self._fail(
                        TimeoutError,
                        f"No data was fed to the blocking external source '{self.name}' "
                        f"within its timeout of {self._timeout:g} s.",
                    )
            batch = self._fed.popleft()
            self._last = batch
            return batch

    # -- pull, in this process -------------------------------------------------------------
    def _call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        try:
            return fn(*args)
        except StopIteration:
            raise
        except Exception as e:
            raise PipelineError(
                self._where() + f"the `source` raised {type(e).__name__}: {e}"
            ) from e

    def _pull(self, iteration: int, epoch: int) -> Any:
        desc = self._desc
        assert desc is not None
        n = self._max_batch
        if desc.kind != "callable":
            assert desc.next_item is not None
            if self._batch:
                return self._call(desc.next_item, ())
            samples = []
            for _ in range(n):
                samples.append(self._call(desc.next_item, ()))
            return samples
        if self._batch:
            if not desc.accepts_arg:
                return self._call(desc.source, ())
            arg = BatchInfo(iteration, epoch) if self._batch_info else iteration
            return self._call(desc.source, (arg,))
        samples = []
        for i in range(n):
            args = (SampleInfo(iteration * n + i, i, iteration, epoch),) if desc.accepts_arg else ()
            samples.append(self._call(desc.source, args))
        return samples

    def _pull_in_time(self, iteration: int, epoch: int) -> Any:
        """`_pull` on the source's own thread, waiting at most ``timeout`` for it."""
        if self._stuck is not None:
            raise self._fail(RuntimeError, self._stuck)
        if self._caller is None:
            self._caller = SourceThread(self.name)
        assert self._timeout is not None
        try:
            return self._caller.call(
                (iteration, epoch), self._pull, self._timeout, iteration, epoch
            )
        except TimeoutError:
            self._stuck = (
                f"Timed out after {self._timeout:g} s (the `timeout` of the external source "
                f"`{self.name}`) waiting for the batch of iteration {iteration} (epoch {epoch}): "
                f"the `source` did not return; it may be stuck. It cannot be stopped, so the "
                f"pipeline cannot continue (close it and build a new one)."
            )
            raise self._fail(TimeoutError, self._stuck) from None

    # -- pull, in worker processes ---------------------------------------------------------
    def _discard_pending(self) -> None:
        if self._pool is not None:
            for task in self._pending.values():
                self._pool.discard(self._ctx, task)
        self._pending.clear()

    def _schedule(self, iteration: int, epoch: int) -> None:
        if iteration in self._pending:
            return
        assert self._pool is not None and self._desc is not None
        if self._desc.kind != "callable":
            parts: list[Any] = [None]
        elif self._batch:
            parts = [(BatchInfo(iteration, epoch) if self._batch_info else iteration,)]
        else:
            n = self._max_batch
            infos = [SampleInfo(iteration * n + i, i, iteration, epoch) for i in range(n)]
            # Enough pieces for every worker to be busy with the batches in flight; a batch
            # made by one worker comes back as one array in shared memory, with no copy.
            in_flight = self._depth + 1
            pieces = min(n, -(-self._pool.size // in_flight))
            size, extra = divmod(n, pieces)
            parts, start = [], 0
            for w in range(pieces):
                count = size + (w < extra)
                if count == 0:
                    break
                parts.append(infos[start : start + count])
                start += count
        self._pending[iteration] = self._pool.schedule(self._ctx, epoch, parts)

    def _pull_parallel(self, iteration: int, epoch: int) -> Any:
        pool = self._pool
        assert pool is not None
        waiting = f"the batch of iteration {iteration} (epoch {epoch})"
        try:
            pool.start()
            if epoch != self._pending_epoch:
                self._discard_pending()
                self._pending_epoch = epoch
            for it in range(iteration, iteration + self._depth):
                self._schedule(it, epoch)
            task = self._pending.pop(iteration)
            try:
                parts = pool.receive(self._ctx, task)
            except StopIteration:
                self._discard_pending()
                raise
            # Keep `prefetch_queue_depth` batches computing beyond the one handed out.
            self._schedule(iteration + self._depth, epoch)
        except (StopIteration, PipelineError):
            raise
        except WorkerTimeout as e:
            raise PipelineError(self._where() + f"While waiting for {waiting}: {e}") from e
        except WorkerError as e:
            raise PipelineError(self._where() + str(e)) from e
        except Exception as e:  # a worker died, the pool could not start or was closed
            raise PipelineError(
                self._where() + f"While waiting for {waiting}: {type(e).__name__}: {e}"
            ) from e
        if self._batch or (len(parts) == 1 and isinstance(parts[0], np.ndarray)):
            return parts[0]  # (one worker's samples, stacked in shared memory)
        return [sample for part in parts for sample in part]

    # -- data ------------------------------------------------------------------------------
    def _to_batches(self, raw: Any, at: str) -> tuple[Any, ...]:
        # a host batch crossing to a worker process is copied there, as the request goes
        copy = self._copy and not (self.copy_in_transport and self._out_device == "cpu")
        k = self._num_outputs
        if k is None:
            return (self._convert(raw, 0, self._layouts[0], copy, at=at),)
        if self._batch:
            if not isinstance(raw, (tuple, list)) or len(raw) != k:
                got = f"{type(raw).__name__}" + (
                    f" of length {len(raw)}" if isinstance(raw, (tuple, list)) else ""
                )
                raise self._fail(
                    TypeError,
                    f"with num_outputs={k} the `source` must return a tuple or list of {k} "
                    f"batches; got a {got}.",
                )
            per_output = list(raw)
        else:
            per_output = [[] for _ in range(k)]
            for i, sample in enumerate(raw):
                if not isinstance(sample, (tuple, list)) or len(sample) != k:
                    raise self._fail(
                        TypeError,
                        f"with num_outputs={k} and batch=False the `source` must return a "
                        f"tuple or list of {k} samples; sample {i} is a "
                        f"{type(sample).__name__}.",
                    )
                for j, value in enumerate(sample):
                    per_output[j].append(value)
        batches = tuple(
            self._convert(data, j, self._layouts[j], copy, at=at)
            for j, data in enumerate(per_output)
        )
        sizes = {len(b) for b in batches}
        if len(sizes) > 1:
            raise self._fail(
                RuntimeError,
                f"the outputs of the source have different batch sizes: {[len(b) for b in batches]}.",
            )
        return batches

    def _convert(
        self,
        data: Any,
        k: int,
        layout: str | None,
        copy: bool,
        producer: Any = None,
        at: str | None = None,
    ) -> Any:
        """User data for output ``k`` → a checked TensorList on the operator's device.

        ``at`` names the batch in messages (``"iteration 3 of epoch 0"``; None: a fed batch).
        The declared ``dtype``/``ndim``/``layout`` are checked, and without them the first
        batch's (`OutputHistory`): DALI's messages, plus the source and the batch.

        For a GPU source the conversion is enqueued on the pipeline's stream (host data through
        pinned staging), after the producer's stream for device data (``producer``, else the
        ``cuda_stream`` argument, else the caller's current stream).
        """
        what = "The batch" if self._num_outputs is None else f"The batch of output {k}"
        try:
            size = batch_size_of(data)
        except Exception:  # noqa: BLE001 - make_batch reports unusable data below
            size = 0
        if size > self._max_batch:
            raise self._fail(
                RuntimeError,
                "The external source callback returned an unexpected batch size. Expected "
                f"batch_size <= {self._max_batch}, actual: {size}",
            )
        dtype, ndim = self._dtypes[k], self._ndims[k]
        if ndim is None and layout:
            ndim = len(layout)
        cuda = getattr(self.pipeline, "cuda", None) if self._out_device == "gpu" else None
        try:
            with contextlib.ExitStack() as scope:
                if cuda is not None and holds_device_data(data):
                    if producer is None:
                        producer = self.node.scalar_args.get("cuda_stream")
                    scope.enter_context(cuda.imported(producer, copied=copy))
                elif cuda is not None:
                    scope.enter_context(cuda.activate())
                tl = make_batch(
                    data,
                    device=self._out_device,
                    layout=layout,
                    copy=copy,
                    dtype=dtype,
                    ndim=ndim,
                    what=what,
                )
        except (TypeError, ValueError) as e:
            raise self._fail(TypeError if isinstance(e, TypeError) else ValueError, str(e)) from e
        if len(tl) == 0:
            return tl
        if tl.layout() and len(tl.layout()) != tl.sample_ndim:
            raise self._fail(
                RuntimeError,
                f"The layout '{tl.layout()}' cannot describe {tl.sample_ndim}-dimensional data",
            )
        if dtype is not None and tl.dtype != dtype:
            raise self._fail(
                RuntimeError,
                'Assert on "dtype_ == DALI_NO_TYPE || dtype_ == batch.type()" failed: '
                f"ExternalSource expected data of type {type_name(dtype)} and got: "
                f"{type_name(tl.dtype)}.",
            )
        if ndim is not None and tl.sample_ndim != ndim:
            raise self._fail(
                RuntimeError,
                f"ExternalSource expected data with {ndim} dimensions and got {tl.sample_ndim} "
                "dimensions.",
            )
        declared = self._layouts[k]
        if declared and tl.layout() != declared:  # a layout given to feed_input
            raise self._fail(
                RuntimeError,
                f'Expected data with layout: "{declared}" and got: "{tl.layout()}". (The '
                f"external source '{self.name}' was declared with layout='{declared}'.)",
            )
        changed = self._history[k].change(tl)
        if changed is not None:
            output = "" if self._num_outputs is None else f", output {k}"
            at = at or "the batch given to `feed_input`"
            raise self._fail(
                RuntimeError,
                f"{changed} (External source '{self.name}'{output}, in {at}: without a declared "
                "dtype, ndim or layout, every batch must keep those of the source's first "
                "batch.)",
            )
        return tl
