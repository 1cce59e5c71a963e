"""`fn.external_source`: data from Python (DALI §3.10).

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
import functools
import inspect
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._dtypes import BatchInfo, DALIDataType, SampleInfo, dali_dtype, type_name
from dali._exec.executor import PipelineError
from dali._exec.workspace import BatchMeta
from dali._graph.schema import Arg, register
from dali._graph.trace import call_operator
from dali._ops.base import Operator
from dali._ops.python._convert import batch_size_of, holds_device_data, make_batch
from dali._ops.python._parallel import SourceSpec, WorkerError, WorkerPool, is_generator_function

__all__ = ["ExternalSource", "accepted_arg_count", "describe_source"]

_DISPLAY = "dali.fn.external_source"


# --------------------------------------------------------------------------------------------
# What kind of source the user gave (checked when the graph is defined, as DALI does)
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _SourceDesc:
    """The user's ``source`` and how to pull from it in the pipeline's process.

    Attributes:
        kind: ``"callable"``, ``"iterable"`` or ``"genfunc"``.
        source: What the user gave.
        cycle: ``None``, ``"quiet"`` or ``"raise"``.
        accepts_arg: A callable takes the iteration / BatchInfo / SampleInfo.
        next_item: Iterables and generators: returns the next item (applies ``cycle``).
    """

    kind: str
    source: Any
    cycle: str | None = None
    accepts_arg: bool = False
    next_item: Callable[[], Any] | None = None

    def __repr__(self) -> str:  # stable across processes: no addresses (op identities)
        return f"<{self.kind} source>"


class _Cycle:
    """Restart an iterable when it is exhausted: quietly, or after raising StopIteration."""

    def __init__(self, make_iter: Callable[[], Any], mode: str) -> None:
        self._make_iter = make_iter
        self._signal = mode == "raise"
        self._it = make_iter()

    def __call__(self) -> Any:
        try:
            return next(self._it)
        except StopIteration:
            self._it = self._make_iter()
            if self._signal:
                raise
            return next(self._it)


def _cycle_mode(cycle: Any) -> str | None:
    if cycle is None or cycle is False or cycle == "no":
        return None
    if cycle is True or cycle == "quiet":
        return "quiet"
    if cycle == "raise":
        return "raise"
    raise ValueError(
        f"Invalid value {cycle!r} for the argument `cycle`. Valid values are\n"
        '  - "no", False or None - cycling disabled\n'
        '  - "quiet", True - quietly rewind the data\n'
        '  - "raise" - raise StopIteration on each rewind.'
    )


def accepted_arg_count(source: Callable[..., Any]) -> int:
    """The number of positional parameters of a ``source`` callable (0 or 1).

    Parameters with defaults count. Bound methods and callable objects do not count ``self``.

    Raises:
        TypeError: For ``*args``, ``**kwargs``, keyword-only or more than one parameter.
    """
    try:
        signature = inspect.signature(source)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Cannot inspect the parameters of the `source` callable: {e}") from None
    msg = (
        "The `source` callable must accept either 0 or 1 positional arguments to indicate "
        "whether it accepts the batch or sample indexing information."
    )
    for p in signature.parameters.values():
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(
                f"{msg} Found var-positional argument `*{p.name}` which is not allowed."
            )
        if p.kind == inspect.Parameter.VAR_KEYWORD:
            raise TypeError(f"{msg} Found var-keyword argument `**{p.name}` which is not allowed.")
        if p.kind == inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{msg} Found keyword-only argument `{p.name}` which is not allowed.")
    n = len(signature.parameters)
    if n > 1:
        raise TypeError(f"{msg} Found more than one positional argument, which is not allowed.")
    return n


def _not_iterable(e: TypeError) -> bool:
    return "not iterable" in str(e)


def describe_source(source: Any, cycle: Any = None) -> _SourceDesc:
    """Classify ``source`` and prepare pulling from it (DALI's ``get_callback_from_source``).

    An iterable gets its iterator now, and a generator function (without ``cycle``) is called
    now, as in DALI; a callable is only inspected.

    Raises:
        TypeError: A generator object with ``cycle``, a callable with a wrong signature, or
            something neither callable nor iterable.
        ValueError: An invalid ``cycle``, or ``cycle`` with a callable.
    """
    mode = _cycle_mode(cycle)
    cycle_error = "The argument `cycle` can only be specified if `source` is iterable."
    if mode is not None:
        if inspect.isgenerator(source):
            raise TypeError(
                "Cannot cycle through a generator - if the generator is a result of calling a "
                "generator function, pass that function instead as `source`."
            )
        if is_generator_function(source):
            return _SourceDesc("genfunc", source, mode, next_item=_Cycle(lambda: source(), mode))
        try:
            cycler = _Cycle(lambda: iter(source), mode)
        except TypeError as e:
            if not _not_iterable(e):
                raise
            raise ValueError(cycle_error) from None
        return _SourceDesc("iterable", source, mode, next_item=cycler)
    if is_generator_function(source):
        gen = source()
        return _SourceDesc("genfunc", source, None, next_item=functools.partial(next, gen))
    try:
        it = iter(source)
    except TypeError as e:
        if not _not_iterable(e):
            raise
        if cycle is not None:
            raise ValueError(cycle_error) from None
        if not callable(source):
            raise TypeError(
                "The `source` must be callable, iterable or a parameterless generator function."
            ) from None
        return _SourceDesc("callable", source, accepts_arg=accepted_arg_count(source) > 0)
    return _SourceDesc("iterable", source, None, next_item=functools.partial(next, it))


# --------------------------------------------------------------------------------------------
# Per-output layout / dtype / ndim
# --------------------------------------------------------------------------------------------


def _per_output(value: Any, n: int, missing: Any, name: str, multi: bool) -> list[Any]:
    if isinstance(value, (list, tuple)):
        if not multi:
            raise TypeError(
                f"`{_DISPLAY}`: the argument `{name}` can be a list only together with "
                f"`num_outputs` (one value per output); got {value!r}."
            )
        return [*value[:n], *([missing] * (n - len(value)))]
    return [value] * n


def _output_specs(args: Mapping[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """(layouts, dtypes, ndims), one entry per output; None means "not given"."""
    num = args.get("num_outputs")
    n, multi = (num or 1), num is not None
    layouts = _per_output(args.get("layout"), n, "", "layout", multi)
    dtypes = _per_output(args.get("dtype"), n, None, "dtype", multi)
    ndims = _per_output(args.get("ndim"), n, None, "ndim", multi)
    out_layouts: list[str | None] = []
    for lay in layouts:
        if lay is not None and not isinstance(lay, str):
            if type(lay).__name__ != "TensorLayout":
                raise TypeError(
                    f"`{_DISPLAY}`: the argument `layout` should be a str (or a list of str "
                    f"per output), got {lay!r}."
                )
            lay = str(lay)
        out_layouts.append(lay)
    out_dtypes: list[DALIDataType | None] = []
    for dt in dtypes:
        if dt is None:
            out_dtypes.append(None)
            continue
        try:
            d = dali_dtype(dt)
        except TypeError:
            raise TypeError(
                f"`{_DISPLAY}`: the argument `dtype` should be a data type "
                f"(dali.types.DALIDataType), got {dt!r}."
            ) from None
        out_dtypes.append(None if d == DALIDataType.NO_TYPE else d)
    out_ndims: list[int | None] = []
    for nd in ndims:
        if nd is not None and (
            isinstance(nd, bool) or not isinstance(nd, (int, np.integer)) or nd < 0
        ):
            raise TypeError(
                f"`{_DISPLAY}`: the argument `ndim` should be a non-negative int, got {nd!r}."
            )
        out_ndims.append(None if nd is None else int(nd))
    return out_layouts, out_dtypes, out_ndims


# --------------------------------------------------------------------------------------------
# The call: `fn.external_source(...)` / `ops.ExternalSource(...)(...)`
# --------------------------------------------------------------------------------------------


def _external_source_call(
    schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any], *, ops_api: bool = False
) -> Any:
    if inputs:
        raise TypeError(f"`{_DISPLAY}` takes no inputs; got {len(inputs)}.")
    kw = {k: v for k, v in kwargs.items() if v is not None}
    source = kw.get("source")
    num_outputs = kw.get("num_outputs")
    if num_outputs is not None:
        if isinstance(num_outputs, bool) or not isinstance(num_outputs, (int, np.integer)):
            raise TypeError(f"`num_outputs` must be an int, got {num_outputs!r}.")
        if num_outputs < 1:
            raise ValueError(f"`num_outputs` must be positive, got {num_outputs}.")
        if source is None:
            raise ValueError(
                "The parameter ``num_outputs`` is only valid when using ``source`` to provide "
                "data. To feed multiple external sources in ``feed_input``, use multiple "
                f"`{_DISPLAY}` nodes."
            )
        if "name" in kw:
            raise ValueError(f"`num_outputs` is not compatible with named `{_DISPLAY}`")
        kw["num_outputs"] = int(num_outputs)
    parallel = bool(kw.get("parallel", False))
    batch = kw.get("batch")
    if (
        batch is None
    ):  # fn.external_source defaults to batches; ops.ExternalSource to `not parallel`
        batch = not parallel if ops_api else True
    batch = bool(batch)
    desc = describe_source(source, kw.get("cycle")) if source is not None else None
    kw.pop("cycle", None)
    if desc is not None and kw.get("repeat_last"):
        raise ValueError(
            "``repeat_last`` must not be set when using the ``source`` argument. It's usable "
            f"only with manually fed `{_DISPLAY}`."
        )
    no_copy = kw.get("no_copy")
    if parallel:
        if desc is None:
            raise ValueError(
                f"`{_DISPLAY}` with ``parallel=True`` needs a ``source`` to run in the workers."
            )
        depth = kw.get("prefetch_queue_depth", 1)
        if no_copy is None:
            no_copy = True
        if not no_copy:
            raise ValueError(
                "The argument ``no_copy`` cannot be specified to False when used with "
                "``parallel=True``."
            )
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"``prefetch_queue_depth`` must be a positive integer, got {depth}.")
        hint = kw.get("bytes_per_sample_hint")
        if hint is not None and (not isinstance(hint, (int, np.integer)) or hint < 1):
            raise ValueError(f"``bytes_per_sample_hint`` must be a positive integer, got {hint}.")
        if desc.kind == "callable" and not desc.accepts_arg:
            raise TypeError(
                "Callable passed to External Source in parallel mode (when `parallel=True`) "
                "must accept exactly one argument: `dali.types.SampleInfo` if run with "
                "`batch=False` or either `dali.types.BatchInfo` or integer that represents the "
                "index of the batch within the epoch if `batch=True`. Got a callable that does "
                "not accept arguments instead."
            )
        if desc.kind != "callable" and not batch:
            what = "an iterable" if desc.kind == "iterable" else "a generator function"
            raise TypeError(
                f"Parallel external source with {what} must be run in a batch mode (specify "
                "`batch=True` in the external source definition and make sure your source "
                "returns batches)"
            )
        kw["prefetch_queue_depth"] = int(depth)
    else:
        for arg in ("prefetch_queue_depth", "bytes_per_sample_hint"):
            if arg in kw:
                raise ValueError(
                    f"The argument `{arg}` is valid only for parallel external sources (when "
                    "``parallel`` is True)."
                )
    _output_specs(kw)  # type checks now; the layout/ndim agreement is checked at build
    kw.update(batch=batch, parallel=parallel, no_copy=bool(no_copy))
    if desc is not None:
        kw["source"] = desc
    return call_operator(schema, (), kw)


def _ops_call(schema: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return _external_source_call(schema, inputs, kwargs, ops_api=True)


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
    ],
    source=True,
    positional_args=("source", "num_outputs"),
    fn=_external_source_call,
    ops_fn=_ops_call,
)
class ExternalSource(Operator):
    """Data from Python: a callable, an iterable, a generator function, or `feed_input`.

    Example:
        >>> from dali import fn, pipeline_def
        >>> @pipeline_def(batch_size=4, num_threads=1)
        ... def pipe():
        ...     return fn.external_source(source=[[np.arange(3)] * 4], cycle=True)
        >>> pipe().run()[0].shape()
        [(3,), (3,), (3,), (3,)]
    """

    def setup(self) -> None:
        args = self.node.scalar_args
        self._desc: _SourceDesc | None = args.get("source")
        self._num_outputs: int | None = args.get("num_outputs")
        self._layouts, self._dtypes, self._ndims = _output_specs(args)
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
        self._seen_ndim: list[int | None] = [None] * len(self._layouts)
        self._fed: collections.deque[tuple[Any, ...]] = collections.deque()
        self._last: tuple[Any, ...] | None = None
        self._cond = threading.Condition()
        self._pool: WorkerPool | None = None
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
                )
            )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        layouts, dtypes, ndims = _output_specs(node.scalar_args)
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

    # -- the engine's callback-source contract ---------------------------------------------
    def fetch(self, iteration: int, epoch: int) -> tuple[Any, BatchMeta]:
        """Produce the batch(es) of ``iteration`` (called in the thread that schedules runs).

        Raises:
            StopIteration: The source reached the end of data.
        """
        if self._desc is None:
            batches = self._pop_fed()
        else:
            raw = (
                self._pull_parallel(iteration, epoch)
                if self._parallel
                else self._pull(iteration, epoch)
            )
            batches = self._to_batches(raw)
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

    def run_cpu(self, ws: Any) -> Any:
        return ws.fed

    def run_gpu(self, ws: Any) -> Any:
        return ws.fed

    def on_reset(self) -> None:
        self._discard_pending()

    def start_workers(self) -> None:
        """Start the worker processes of a parallel source now (`Pipeline.start_py_workers`)."""
        if self._pool is not None:
            self._pool.start()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()

    # -- push ------------------------------------------------------------------------------
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
                while not self._fed:
                    self._cond.wait()
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
            workers = self._pool.size
            size, extra = divmod(n, workers)
            parts, start = [], 0
            for w in range(workers):
                count = size + (w < extra)
                if count == 0:
                    break
                parts.append(infos[start : start + count])
                start += count
        self._pending[iteration] = self._pool.schedule(self._ctx, epoch, parts)

    def _pull_parallel(self, iteration: int, epoch: int) -> Any:
        pool = self._pool
        assert pool is not None
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
        except WorkerError as e:
            raise PipelineError(self._where() + str(e)) from e
        except Exception as e:
            raise PipelineError(self._where() + f"{type(e).__name__}: {e}") from e
        if self._batch:
            return parts[0]
        return [sample for part in parts for sample in part]

    # -- data ------------------------------------------------------------------------------
    def _to_batches(self, raw: Any) -> tuple[Any, ...]:
        k = self._num_outputs
        if k is None:
            return (self._convert(raw, 0, self._layouts[0], self._copy),)
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
            self._convert(data, j, self._layouts[j], self._copy)
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
        self, data: Any, k: int, layout: str | None, copy: bool, producer: Any = None
    ) -> Any:
        """User data for output ``k`` → a checked TensorList on the operator's device.

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
        if tl._layout and len(tl._layout) != tl._ndim:
            raise self._fail(
                RuntimeError,
                f"The layout '{tl._layout}' cannot describe {tl._ndim}-dimensional data",
            )
        if dtype is not None and tl.dtype != dtype:
            raise self._fail(
                RuntimeError,
                'Assert on "dtype_ == DALI_NO_TYPE || dtype_ == batch.type()" failed: '
                f"ExternalSource expected data of type {type_name(dtype)} and got: "
                f"{type_name(tl.dtype)}.",
            )
        if ndim is not None and tl._ndim != ndim:
            raise self._fail(
                RuntimeError,
                f"ExternalSource expected data with {ndim} dimensions and got {tl._ndim} "
                "dimensions.",
            )
        seen = self._seen_ndim[k]
        if seen is not None and seen != tl._ndim:
            raise self._fail(
                RuntimeError,
                f"{what} has {tl._ndim} dimensions per sample, but an earlier batch had "
                f"{seen}: the number of dimensions must not change between iterations.",
            )
        self._seen_ndim[k] = tl._ndim
        return tl
