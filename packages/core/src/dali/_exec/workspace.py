"""What an operator sees while it runs one iteration."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._exec.rng import SampleRNG, combine

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
        ids = np.arange(first, first + n, dtype=np.int64)
        return BatchMeta(ids, np.full(n, epoch, dtype=np.int64))


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
        "prepared",
        "stream",
    )

    def __init__(
        self,
        op: Any,
        inputs: list[Any],
        args: dict[str, Any],
        meta: BatchMeta,
        iteration: int,
        epoch: int,
        pool: ThreadPoolExecutor | None,
        key: int | None,
        fed: Any = None,
        cuda: Any = None,
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
        self._args = args
        self._pool = pool
        self._key = key
        self._rng: SampleRNG | None = None
        # The pipeline's CudaContext, for GPU/mixed operators only (see dali._exec.device).
        self._cuda = cuda
        self.stream = cuda.stream if cuda is not None else None

    @property
    def num_threads(self) -> int:
        """How many threads `map` spreads samples over (the calling thread included)."""
        return 1 if self._pool is None else self._pool._max_workers

    # -- arguments -------------------------------------------------------------------------
    def arg(self, name: str) -> Any:
        """A scalar argument's value (or default); see `Operator.arg`."""
        return self.op.arg(name)

    def has_arg(self, name: str) -> bool:
        return self.op.has_arg(name)

    def arg_samples(self, name: str, dtype: Any = None) -> list[np.ndarray]:
        """Per-sample values of a tensor argument (a constant is repeated for every sample)."""
        tl = self._args.get(name)
        if tl is None:
            value = np.asarray(self.op.arg(name), dtype=dtype)
            return [value] * self.batch_size
        samples = tl._samples()
        if dtype is not None:
            samples = [np.asarray(s, dtype=dtype) for s in samples]
        if len(samples) != self.batch_size:
            raise self.op.arg_error(
                name,
                f"got {len(samples)} per-sample values for a batch of {self.batch_size}",
            )
        return samples

    def arg_batch(self, name: str, dtype: Any = None) -> np.ndarray:
        """A tensor argument as one ``(batch, ...)`` array (values must have equal shapes)."""
        tl = self._args.get(name)
        if tl is None:
            value = np.asarray(self.op.arg(name), dtype=dtype)
            return np.broadcast_to(value, (self.batch_size, *value.shape))
        dense = tl._dense()
        if dense is None:
            raise self.op.arg_error(name, "per-sample values must all have the same shape")
        return dense if dtype is None else dense.astype(dtype, copy=False)

    def is_tensor_arg(self, name: str) -> bool:
        return name in self._args

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
        return self.inputs[i]._samples()
