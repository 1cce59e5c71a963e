"""What an operator sees while it runs one iteration."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from dali._exec import gil
from dali._exec.rng import SampleRNG, combine

if TYPE_CHECKING:
    from dali._exec.device import CudaContext
    from dali._ops.base import Operator

__all__ = ["BatchMeta", "SampleFailure", "Workspace"]


@dataclass(frozen=True)
class BatchMeta:
    """Per-sample identity carried alongside a batch.

    Attributes:
        ids: int64 global identity of each sample (a reader's file index, an external source's
            index in the epoch, or the stream position).
        epochs: int64 epoch in which each sample is seen (how often it was seen before).
        source_info: per-sample source description (file path) or None.
    """

    ids: np.ndarray
    epochs: np.ndarray
    source_info: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, index: Any) -> BatchMeta:
        si = None
        if self.source_info is not None:
            idx = np.arange(len(self.ids))[index]
            si = tuple(self.source_info[int(i)] for i in idx)
        return BatchMeta(self.ids[index], self.epochs[index], si)

    @staticmethod
    def stream(first: int, n: int, epoch: int) -> BatchMeta:
        # without giving the GIL up (`dali._exec.gil`): a GPU pipeline's stage threads make
        # these for every batch while the others run Python
        ids = gil.span(first, n)
        return BatchMeta(ids, gil.full(n, epoch, np.int64))


class SampleFailure(Exception):
    """Raised by `Workspace.map` when the work for one sample fails."""

    def __init__(self, index: int, error: BaseException) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


class Workspace:
    """Inputs, arguments and services for one operator run.

    Attributes:
        inputs: The positional input batches (TensorListCPU / TensorListGPU).
        batch_size: Number of samples in this iteration's batch for this operator.
        meta: The identity of the samples (`BatchMeta`).
        iteration: Index of the iteration within the pipeline's run.
        epoch: The pipeline's epoch (incremented by `Pipeline.reset()` after end of data).
        stream: For GPU and mixed operators, the pipeline's CUDA stream (a ``cupy.cuda.Stream``;
            None for CPU operators). It is already CuPy's current stream while the operator
            runs (also in `map`), so CuPy code needs nothing; pass ``stream.ptr`` to libraries
            that take an explicit stream (nvImageCodec). Never synchronise the device: work
            queued on this stream is ordered for the consumers by the executor's event.

    Arguments: an operator reads its arguments here, whether they were given as a constant or
    per sample (an *argument input*, a DataNode, always on the CPU). Every per-sample method
    repeats a constant for every sample, so an operator has one code path for both:

    ==============================  ==========================================================
    method                          returns
    ==============================  ==========================================================
    ``arg(name)``                   the constant value, or the default (`Operator.arg`)
    ``has_arg(name)``               whether the user gave it, as a constant or per sample
    ``is_tensor_arg(name)``         whether it was given per sample
    ``arg_samples(name, dtype)``    one array per sample, as given (any shape)
    ``arg_batch(name, dtype)``      one ``(batch, ...)`` array (the samples' shapes must agree)
    ``arg_scalars(name, dtype)``    one ``(batch,)`` array: a single number per sample
    ``arg_vectors(name, dtype)``    one 1-D array per sample (a constant scalar becomes ``[v]``)
    ``arg_vectors(name, dtype, n)`` one ``(batch, n)`` array: ``n`` values per sample, or one
                                    value repeated ``n`` times (DALI's "single or repeated"
                                    arguments: one size for every axis, or one per axis)
    ==============================  ==========================================================

    The per-sample methods raise the operator's `OperatorError` naming the argument: when an
    argument input has another number of samples than the batch (``got 3 per-sample values
    for a batch of 4``), when `arg_batch`'s samples differ in shape, when a value of
    `arg_scalars` is not a single number (``sample 2: expected one value, got 3``) and when
    one of ``arg_vectors(..., n=3)`` has neither 1 nor 3 (``sample 0: expected 1 or 3
    values, got 2``; a constant: without the sample).

    Example:
        >>> from dali._tensors import TensorListCPU
        >>> class Op:  # an operator's constants and errors (`Operator.arg`, `arg_error`)
        ...     def arg(self, name):
        ...         return {"mean": 0.5, "crop": (20.0, 30.0)}[name]
        ...     def arg_error(self, name, message):
        ...         return ValueError(f"argument `{name}`: {message}")
        >>> pos = TensorListCPU.wrap(np.array([0.25, 1.0], np.float32), layout="")
        >>> ws = Workspace(Op(), [], {"pos": pos}, BatchMeta.stream(0, 2, 0), 0, 0, None, None)
        >>> ws.arg_scalars("pos").tolist(), ws.arg_scalars("mean").tolist()
        ([0.25, 1.0], [0.5, 0.5])
        >>> [v.tolist() for v in ws.arg_vectors("crop")], ws.is_tensor_arg("pos")
        ([[20.0, 30.0], [20.0, 30.0]], True)
        >>> ws.arg_vectors("pos", n=3).tolist(), ws.arg_vectors("crop", n=2).shape
        ([[0.25, 0.25, 0.25], [1.0, 1.0, 1.0]], (2, 2))
    """

    __slots__ = (
        "_args",
        "_cuda",
        "_key",
        "_pool",
        "_rng",
        "batch_size",
        "epoch",
        "fed",
        "inputs",
        "iteration",
        "meta",
        "op",
        "out_meta",
        "planned",
        "prepared",
        "stream",
    )

    def __init__(
        self,
        op: Operator,
        inputs: list[Any],
        args: dict[str, Any],
        meta: BatchMeta,
        iteration: int,
        epoch: int,
        pool: ThreadPoolExecutor | None,
        key: int | None,
        fed: Any = None,
        cuda: CudaContext | None = None,
    ) -> None:
        self.op = op
        self.inputs = inputs
        self.batch_size = len(meta)
        self.meta = meta
        self.iteration = iteration
        self.epoch = epoch
        self.fed = fed
        self.out_meta: BatchMeta | None = None
        #: what the operator's ``prepare`` returned for this iteration in the CPU stage (or
        #: the exception it raised there), for mixed operators that have one; else None
        self.prepared: Any = None
        #: the batch's sample identities (ids, passes) the consumer planned for a reader
        #: (`Operator.plan_samples`), or None: the reader takes its own next batch
        self.planned: tuple[np.ndarray, np.ndarray] | None = None
        self._args = args
        self._pool = pool
        self._key = key
        self._rng: SampleRNG | None = None
        # The pipeline's CudaContext, for GPU/mixed operators only (see dali._exec.device).
        self._cuda = cuda
        self.stream = cuda.stream if cuda is not None else None

    @property
    def cuda(self) -> CudaContext | None:
        """The pipeline's CUDA context (GPU and mixed operators; None for CPU ones), for work an
        operator hands to threads of its own: they run it with ``cuda.activate()``. While the
        operator itself runs, the context is already current (``stream`` is its stream)."""
        return self._cuda

    @property
    def num_threads(self) -> int:
        """How many threads `map` spreads samples over (the calling thread included)."""
        return 1 if self._pool is None else self._pool._max_workers

    # -- arguments (see the class docstring) -------------------------------------------------
    def arg(self, name: str) -> Any:
        """A constant argument's value (or default); see `Operator.arg`."""
        return self.op.arg(name)

    def has_arg(self, name: str) -> bool:
        """Whether the user gave the argument, as a constant or per sample."""
        return self.op.has_arg(name)

    def is_tensor_arg(self, name: str) -> bool:
        """Whether the argument was given per sample (an argument input)."""
        return name in self._args

    def arg_samples(self, name: str, dtype: Any = None) -> list[np.ndarray]:
        """Per-sample values of an argument, as given (a constant is repeated for every sample).

        Raises:
            OperatorError: An argument input with another number of samples than the batch.
        """
        tl = self._args.get(name)
        if tl is None:
            value = np.asarray(self.op.arg(name), dtype=dtype)
            return [value] * self.batch_size
        samples: list[np.ndarray] = tl.samples()
        if dtype is not None:
            samples = [np.asarray(s, dtype=dtype) for s in samples]
        if len(samples) != self.batch_size:
            raise self.op.arg_error(
                name,
                f"got {len(samples)} per-sample values for a batch of {self.batch_size}",
            )
        return samples

    def arg_batch(self, name: str, dtype: Any = None) -> np.ndarray:
        """An argument as one ``(batch, ...)`` array (a constant is broadcast, read-only).

        Raises:
            OperatorError: The per-sample values differ in shape.
        """
        tl = self._args.get(name)
        if tl is None:
            value = np.asarray(self.op.arg(name), dtype=dtype)
            return np.broadcast_to(value, (self.batch_size, *value.shape))
        dense: np.ndarray | None = tl.dense()
        if dense is None:
            raise self.op.arg_error(name, "per-sample values must all have the same shape")
        return dense if dtype is None else dense.astype(dtype, copy=False)

    def arg_scalars(self, name: str, dtype: Any = np.float64) -> np.ndarray:
        """A scalar argument as one number per sample: a new ``(batch,)`` array of ``dtype``.

        Raises:
            OperatorError: A per-sample value is not a single number (naming the sample), or
                the argument input has another number of samples than the batch.
        """
        n = self.batch_size
        if name not in self._args:
            return np.full(n, self.op.arg(name), dtype=dtype)
        rows = self._arg_rows(name)
        if rows is not None and rows.shape[1] == 1:
            return rows[:, 0].astype(dtype)
        out = np.empty(n, dtype=dtype)
        for i, v in enumerate(self.arg_samples(name)):
            v = np.asarray(v)
            if v.size != 1:
                raise self.op.arg_error(name, f"sample {i}: expected one value, got {v.size}")
            out[i] = v.reshape(())
        return out

    @overload
    def arg_vectors(self, name: str, dtype: Any = ..., n: None = ...) -> list[np.ndarray]: ...
    @overload
    def arg_vectors(
        self, name: str, dtype: Any = ..., *, n: int, what: str = ...
    ) -> np.ndarray: ...
    def arg_vectors(
        self, name: str, dtype: Any = np.float64, n: int | None = None, what: str = ""
    ) -> list[np.ndarray] | np.ndarray:
        """A vector argument per sample: without ``n``, one 1-D array of ``dtype`` per sample
        (a constant is one array, repeated; a constant scalar ``v`` is ``[v]``); with ``n``,
        one ``(batch, n)`` array of ``n`` values per sample, where a single value given (as a
        constant or for a sample) stands for all ``n``.

        ``what`` ends the error message (``" (one per spatial dimension)"``).

        Raises:
            OperatorError: The argument input has another number of samples than the batch,
                or (with ``n``) a sample has neither 1 nor ``n`` values.
        """
        if n is None:
            if name not in self._args:
                value = self.op.arg(name)
                v = np.asarray(value if isinstance(value, (list, tuple)) else [value], dtype=dtype)
                return [v] * self.batch_size
            return [np.asarray(v, dtype=dtype).reshape(-1) for v in self.arg_samples(name)]
        b = self.batch_size
        if name not in self._args:
            value = np.asarray(self.op.arg(name), dtype=dtype).reshape(-1)
            if value.size not in (1, n):
                raise self.op.arg_error(name, f"expected 1 or {n} values{what}, got {value.size}")
            repeated: np.ndarray = np.broadcast_to(value, (b, n)).copy()
            return repeated
        rows = self._arg_rows(name)
        if rows is not None and rows.shape[1] in (1, n):
            return np.broadcast_to(rows, (b, n)).astype(dtype)
        out = np.empty((b, n), dtype=dtype)
        for i, v in enumerate(self.arg_samples(name)):
            flat = np.asarray(v).reshape(-1)
            if flat.size not in (1, n):
                raise self.op.arg_error(
                    name, f"sample {i}: expected 1 or {n} values{what}, got {flat.size}"
                )
            out[i] = flat
        return out

    def _arg_rows(self, name: str) -> np.ndarray | None:
        """An argument input as ``(batch, k)`` rows, when its samples have one shape (else
        None: the callers then look at the samples one by one)."""
        tl = self._args[name]
        dense = tl.dense()
        if dense is None or len(dense) != self.batch_size:
            return None
        if self.batch_size == 0:  # (an empty batch: `-1` below would be ambiguous)
            return np.empty((0, 1), dense.dtype)
        return np.asarray(dense).reshape(self.batch_size, -1)

    @property
    def arg_inputs(self) -> dict[str, Any]:
        """The arguments given per sample: name -> batch (do not change it)."""
        return self._args

    def with_batch(self, inputs: list[Any], args: dict[str, Any], meta: BatchMeta) -> Workspace:
        """This run's services (thread pool, stream, key) over another batch: for an operator
        that runs itself on a view of its batch (the frames of sequences, `dali._ops._sequences`).
        """
        return Workspace(
            self.op,
            inputs,
            args,
            meta,
            self.iteration,
            self.epoch,
            self._pool,
            self._key,
            self.fed,
            self._cuda,
        )

    # -- services --------------------------------------------------------------------------
    @property
    def key(self) -> int | None:
        """The operator's random key (seed + identity); None unless declared random=True.

        For operators that need a random stream of their own (a reader's shuffle buffer)
        rather than one per sample.
        """
        return self._key

    @property
    def rng(self) -> SampleRNG:
        """One independent random stream per sample of this batch (random operators only)."""
        if self._rng is None:
            if self._key is None:
                raise RuntimeError(f"{self.op.display_name} is not declared random=True")
            self._rng = SampleRNG(combine(self._key, self.meta.ids, self.meta.epochs))
        return self._rng

    def source_info(self, i: int) -> str:
        si = self.meta.source_info
        return si[i] if si is not None else ""

    def map(self, fn: Callable[[int], Any], n: int | None = None) -> list[Any]:
        """Run ``fn(i)`` for every sample on the thread pool; results in sample order.

        An exception for sample ``i`` is re-raised as `SampleFailure` so that the pipeline's
        error names the sample and its source. For GPU operators ``fn`` runs with the pipeline's
        device, stream and memory pool current (CuPy keeps them per thread).
        """
        n = self.batch_size if n is None else n
        if self._pool is None or n <= 1:
            out = []
            for i in range(n):
                try:
                    out.append(fn(i))
                except Exception as e:
                    raise SampleFailure(i, e) from e
            return out

        # One task per thread (the calling thread is one of them) taking sample indices from a
        # shared counter: one task per sample would cost a pool hand-off per sample, which
        # measurably slows cheap per-sample work (benchmarks/image_cpu.py).
        cuda = self._cuda
        results: list[Any] = [None] * n
        failures: dict[int, Exception] = {}
        counter = itertools.count()
        stop = False

        def worker() -> None:
            nonlocal stop
            ctx = cuda.activate() if cuda is not None else contextlib.nullcontext()
            with ctx:  # the pool's threads start with CuPy's defaults
                while not stop:
                    i = next(counter)  # atomic under the GIL
                    if i >= n:
                        return
                    try:
                        results[i] = fn(i)
                    except Exception as e:  # noqa: BLE001 - re-raised below with the sample
                        failures[i] = e
                        stop = True

        helpers = []
        for _ in range(min(n, self.num_threads) - 1):
            try:
                helpers.append(self._pool.submit(worker))
            except RuntimeError:  # the pool is shut down (closing, interpreter exit)
                break  # the calling thread's worker below takes every sample
        worker()
        for h in helpers:
            h.result()
        if failures:
            # indices are handed out in order, so every sample before the first failure ran:
            # the smallest failing index is the same whatever the thread timing
            i = min(failures)
            raise SampleFailure(i, failures[i]) from failures[i]
        return results

    def samples(self, i: int = 0) -> Sequence[Any]:
        """The per-sample arrays of input ``i``."""
        samples: Sequence[Any] = self.inputs[i].samples()
        return samples
