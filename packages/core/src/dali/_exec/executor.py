"""The executor: runs planned iterations ahead of the consumer on a background thread.

One worker thread takes iteration requests in order and runs every step of the plan; the
operators spread per-sample work over a pool of ``num_threads`` threads (numpy, OpenCV and codec
calls release the GIL). Finished iterations wait in a queue for `get`. Any exception is carried
to the consumer's thread, wrapped in a `PipelineError` that names the operator, the sample and
where the operator was defined, with the original exception as its cause.

The worker never holds a reference to the `Pipeline`, so dropping the pipeline closes it.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._exec.workspace import BatchMeta, SampleFailure, Workspace

__all__ = ["Executor", "IterationRequest", "PipelineError"]


class PipelineError(RuntimeError):
    """An operator failed while the pipeline ran; ``__cause__`` is the original error."""


@dataclass
class IterationRequest:
    iteration: int
    epoch: int
    #: step index -> (batch, BatchMeta) produced by a Python source at schedule time
    fed: dict[int, tuple[Any, BatchMeta]]
    max_batch_size: int
    stream_start: int


@dataclass
class _Failure:
    error: BaseException


def _describe(step: Any, index: int | None, meta: BatchMeta | None) -> str:
    node = step.node
    where = f"Error in {step.device.upper()} operator `{node.schema.display_name}` ({node.name})"
    if index is not None:
        where += f", sample {index}"
        info = meta.source_info if meta is not None else None
        if info is not None and index < len(info) and info[index]:
            where += f" (source: {info[index]})"
    if node.definition:
        where += f", which was used in the pipeline definition at:\n{node.definition}\n"
    return where


def _normalize_outputs(result: Any, n: int, step: Any) -> tuple[Any, ...]:
    if n == 1 and not isinstance(result, (tuple, list)):
        return (result,)
    if not isinstance(result, (tuple, list)) or len(result) != n:
        raise RuntimeError(
            f"{step.node.schema.display_name} returned {type(result).__name__}, expected {n} outputs"
        )
    return tuple(result)


def run_iteration(plan: Any, req: IterationRequest, pool: ThreadPoolExecutor | None) -> Any:
    """Run every step of the plan for one iteration; returns the output batches."""
    values: list[Any] = [None] * plan.n_slots
    metas: list[BatchMeta | None] = [None] * plan.n_slots
    root: BatchMeta | None = None
    for si, step in enumerate(plan.steps):
        if step.batch is not None:
            meta = metas[step.batch]
        elif root is not None:
            meta = root
        else:
            meta = BatchMeta.stream(req.stream_start, req.max_batch_size, req.epoch)
        fed = req.fed.get(si)
        if fed is not None:
            meta = fed[1]
        ws = Workspace(
            step.impl,
            [values[i] for i in step.inputs],
            {k: values[i] for k, i in step.args.items()},
            meta,
            req.iteration,
            req.epoch,
            pool,
            step.key,
            fed[0] if fed is not None else None,
        )
        try:
            result = step.impl.run(ws)
        except SampleFailure as f:
            raise PipelineError(_describe(step, f.index, meta) + f"{f.error}") from f.error
        except PipelineError:
            raise
        except StopIteration:
            raise
        except Exception as e:
            raise PipelineError(_describe(step, None, None) + f"{e}") from e
        outs = _normalize_outputs(result, len(step.outputs), step)
        out_meta = ws.out_meta if ws.out_meta is not None else meta
        if step is plan.identity_step and root is None:
            root = out_meta
        for slot, value in zip(step.outputs, outs):
            values[slot] = value
            metas[slot] = out_meta
    out_values = [values[slot] for slot in plan.outputs]
    out_metas = [metas[slot] for slot in plan.outputs]
    if len({len(m) for m in out_metas if m is not None}) > 1:
        out_values, out_metas = _align_outputs(out_values, out_metas)
    results = []
    for tl, m in zip(out_values, out_metas):
        if (
            m is not None
            and m.source_info is not None
            and getattr(tl, "_source_info", None) is None
        ):
            tl._source_info = list(m.source_info)
        results.append(tl)
    return tuple(results)


def _sample_keys(meta: BatchMeta) -> list[tuple[int, int, int]]:
    """(id, epoch, occurrence) per sample: unique even when padding repeats a sample."""
    seen: dict[tuple[int, int], int] = {}
    keys = []
    for i, e in zip(meta.ids.tolist(), meta.epochs.tolist()):
        n = seen.get((i, e), 0)
        seen[(i, e)] = n + 1
        keys.append((i, e, n))
    return keys


def _align_outputs(values: list[Any], metas: list[Any]) -> tuple[list[Any], list[Any]]:
    """Keep, in every output, only the samples present in all of them.

    An operator that drops samples (a decoder with ``on_error="skip"``) shortens its own output;
    the other outputs of the same iteration (labels, say) must lose the same samples.
    """
    key_lists = [_sample_keys(m) if m is not None else None for m in metas]
    common = set.intersection(*(set(k) for k in key_lists if k is not None))
    new_values, new_metas = [], []
    for tl, m, keys in zip(values, metas, key_lists):
        if keys is None or len(keys) == len(common):
            new_values.append(tl)
            new_metas.append(m)
            continue
        keep = [i for i, k in enumerate(keys) if k in common]
        new_values.append(_take_samples(tl, keep))
        new_metas.append(m.take(np.asarray(keep, dtype=np.int64)))
    return new_values, new_metas


def _take_samples(tl: Any, index: list[int]) -> Any:
    dense = tl._dense()
    if dense is not None:
        data = dense[np.asarray(index, dtype=np.int64)]
    else:
        samples = tl._samples()
        data = [samples[i] for i in index]
    return type(tl)._make(data, layout=tl._layout, dtype=tl._np_dtype, ndim=tl.ndim)


class _WorkerState:
    """Everything the worker thread touches (no reference back to the Pipeline)."""

    def __init__(self, plan: Any, num_threads: int) -> None:
        self.plan = plan
        self.requests: queue.Queue[IterationRequest | None] = queue.Queue()
        self.results: queue.Queue[Any] = queue.Queue()
        self.pool = (
            ThreadPoolExecutor(num_threads, thread_name_prefix="dali-op")
            if num_threads > 1
            else None
        )

    def loop(self) -> None:
        while True:
            req = self.requests.get()
            if req is None:
                return
            try:
                out = run_iteration(self.plan, req, self.pool)
            except BaseException as e:  # noqa: BLE001 - handed to the consumer thread
                out = _Failure(e)
            self.results.put(out)


class Executor:
    """Runs iterations of a plan, asynchronously (a worker thread) or inline."""

    def __init__(self, plan: Any, *, num_threads: int, asynchronous: bool = True) -> None:
        self._state = _WorkerState(plan, num_threads)
        self._async = asynchronous
        self._pending: list[IterationRequest] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, req: IterationRequest) -> None:
        if self._closed:
            raise RuntimeError("the pipeline was closed")
        if not self._async:
            self._pending.append(req)
            return
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._state.loop, name="dali-executor", daemon=True
            )
            self._thread.start()
        self._state.requests.put(req)

    def get(self) -> tuple[Any, ...]:
        """The next finished iteration (blocks); re-raises the iteration's error."""
        if not self._async:
            req = self._pending.pop(0)
            return run_iteration(self._state.plan, req, self._state.pool)
        out = self._state.results.get()
        if isinstance(out, _Failure):
            raise out.error
        return out

    def close(self) -> None:
        """Stop the worker and the thread pool; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        state = self._state
        if self._thread is not None:
            state.requests.put(None)
            if self._thread is not threading.current_thread():
                self._thread.join(timeout=60)
        if state.pool is not None:
            state.pool.shutdown(wait=True, cancel_futures=True)
        for step in state.plan.steps:
            try:
                step.impl.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass
