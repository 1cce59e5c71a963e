"""DALI proxy: one DALI pipeline, in the training process, doing the processing of a
multi-process ``torch.utils.data.DataLoader`` (DALI's
``nvidia.dali.plugin.pytorch.experimental.proxy``, with ``nvidia.dali`` written ``dali``).

A `DALIServer` owns the pipeline. Its `~DALIServer.proxy` is a picklable callable that the
``Dataset`` calls in the DataLoader's worker processes in place of the transforms, with the
sample's inputs (one per named ``fn.external_source`` of the pipeline that has no
``source``): it records them and returns a marker (`DALIOutputSampleRef`) for each pipeline
output. torch's ``default_collate`` gathers a batch's markers into one `DALIOutputBatchRef`
per output and, at that moment, sends the batch's inputs to the server (see ``deterministic``
for the other way); the server feeds and runs the pipeline, one iteration per DataLoader
batch, while the DataLoader goes on. The proxy's `DataLoader` (or `DALIServer.produce_data`
on what a plain DataLoader returns) then puts the pipeline's outputs, as torch tensors, in
place of the markers, wherever they are in the batch: tuples, lists, dicts, named tuples,
objects' attributes.

So the workers only read file names, labels, metadata; decoding and augmentations run once,
batched, in the pipeline of the main process: on the GPU, one CUDA context for all of them.

* Outputs are zero-copy tensors of the pipeline's batches (`dali.plugin.pytorch`'s
  conversion), converted in the thread that asks for them: GPU outputs are ordered on that
  thread's current torch stream.
* Errors: an operator's error is raised by the training loop's ``next()`` for the batch it
  failed (the loop may go on with the next batch); a server that is not running, a request
  lost on its way, or a pipeline whose inputs went out of step raises instead of waiting for
  ever.
* ``deterministic=True``: the batch's inputs ride with the markers to the main process, which
  schedules each batch when the loop asks for it, in the DataLoader's (sampler's) order: the
  pipeline's random operators then give the same results on every run, whatever the number of
  workers and their timing, at the cost of no overlap between the pipeline and the loop.
* Shutdown: `DALIServer` is a context manager (``with``: started and stopped); stopping joins
  its two threads; its socket and folder go when it is closed or collected. The pipeline stays
  the caller's (``pipe.close()`` stops its threads).

Beyond DALI: ``num_workers=0`` works (DALI's DataLoader needs workers); the proxy pickles, so
``multiprocessing_context="spawn"``/``"forkserver"`` work (DALI's proxy is a class made
inside a function, fork only); a DataLoader iteration left early (``break``) does not leave
its prefetched batches to be taken by the next one (their ids are unique), and those not yet
run are skipped.

Example:
    >>> import numpy as np, torch
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(name="x", no_copy=True)
    ...     return x * 10
    >>> class Tens(torch.utils.data.Dataset):
    ...     def __init__(self, proxy):
    ...         self.proxy = proxy
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return {"x10": self.proxy(np.array([i], np.int32)), "i": i}
    >>> with DALIServer(pipe()) as server:
    ...     loader = DataLoader(server, Tens(server.proxy), batch_size=2, num_workers=0)
    ...     [(b["x10"].ravel().tolist(), b["i"].tolist()) for b in loader]
    [([0, 10], [0, 1]), ([20, 30], [2, 3])]
"""

from __future__ import annotations

import keyword
import os
import threading
import uuid
import weakref
from collections.abc import Iterator
from inspect import Parameter, Signature
from typing import TYPE_CHECKING, Any

import torch.utils.data as _torchdata
from dali.author import external_sources
from dali.pipeline import Pipeline
from dali.plugin.pytorch._convert import batch_to_torch
from dali.plugin.pytorch.experimental._proxy_channel import Sender
from dali.plugin.pytorch.experimental._proxy_server import BatchId, Engine
from torch.utils.data._utils.collate import default_collate_fn_map

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "DALIOutputBatchRef",
    "DALIOutputSampleRef",
    "DALIPipelineRunRef",
    "DALIServer",
    "DataLoader",
]


class DALIPipelineRunRef:
    """One pipeline iteration to be: the batch id and, until it is sent to the server, the
    inputs of its samples (``call_args``: input name -> list of samples).

    Args:
        batch_id: Identifies the batch among all the server's batches.
    """

    def __init__(self, batch_id: BatchId) -> None:
        self.batch_id = batch_id
        self.call_args: dict[str, list[Any]] = {}
        self.is_scheduled = False
        self.is_complete = False
        #: The outputs as tensors, once produced (in the main process; never pickled).
        self._produced: tuple[Any, ...] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_produced": None}

    def __repr__(self) -> str:
        return (
            f"DALIPipelineRunRef(batch_id={self.batch_id}, call_args={self.call_args} "
            f"is_scheduled={self.is_scheduled}, is_complete={self.is_complete})"
        )


class DALIOutputSampleRef:
    """What the proxy returns for one output of one sample; ``default_collate`` turns a
    batch of them into a `DALIOutputBatchRef`.

    Args:
        proxy: The proxy that made it.
        pipe_run_ref: The iteration the sample belongs to.
        output_idx: Which pipeline output.
        sample_idx: The sample's index in the batch.
    """

    def __init__(
        self,
        proxy: _DALIProxy,
        pipe_run_ref: DALIPipelineRunRef,
        output_idx: int,
        sample_idx: int,
    ) -> None:
        self.proxy = proxy
        self.pipe_run_ref = pipe_run_ref
        self.output_idx = output_idx
        self.sample_idx = sample_idx

    def __repr__(self) -> str:
        return (
            f"DALIOutputSampleRef({self.pipe_run_ref}, "
            f"output_idx={self.output_idx}, sample_idx={self.sample_idx})"
        )


class DALIOutputBatchRef:
    """One output of one pipeline iteration, before the data: `DALIServer.produce_data`
    replaces it with the output's tensor.

    Args:
        pipe_run_ref: The iteration.
        output_idx: Which pipeline output.
    """

    def __init__(self, pipe_run_ref: DALIPipelineRunRef, output_idx: int) -> None:
        self.pipe_run_ref = pipe_run_ref
        self.output_idx = output_idx

    def __repr__(self) -> str:
        return f"DALIOutputBatchRef(pipe_run_ref={self.pipe_run_ref}, output_idx={self.output_idx})"


def _collate_dali_output_sample_ref_fn(
    samples: Any, *, collate_fn_map: dict[Any, Any] | None = None
) -> DALIOutputBatchRef:
    """``default_collate``'s function for `DALIOutputSampleRef`: completes the batch and,
    unless the proxy is deterministic, sends its inputs to the server (DALI's name; a custom
    ``collate_fn`` may call it)."""
    samples = list(samples)
    if not samples:
        raise RuntimeError("Cannot collate an empty batch of DALI proxy outputs")
    first = samples[0]
    pipe_run_ref, output_idx, proxy = first.pipe_run_ref, first.output_idx, first.proxy
    for i, sample in enumerate(samples):
        if (
            sample.proxy is not proxy
            or sample.pipe_run_ref is not pipe_run_ref
            or sample.output_idx != output_idx
        ):
            raise RuntimeError("All samples should belong to the same batch")
        if sample.sample_idx != i:
            raise RuntimeError("Unexpected sample order")
    pipe_run_ref.is_complete = True
    if not proxy._deterministic and not pipe_run_ref.is_scheduled:
        proxy._schedule_batch(pipe_run_ref)
    return DALIOutputBatchRef(pipe_run_ref, output_idx)


# As DALI: torch's default_collate (and every DataLoader using it) collates the proxy's markers.
default_collate_fn_map[DALIOutputSampleRef] = _collate_dali_output_sample_ref_fn


class _WorkerData:
    """The batch being gathered in one thread of one process."""

    def __init__(self) -> None:
        info = _torchdata.get_worker_info()
        self.worker_id: Any = info.id if info is not None else "main"
        self.nonce = uuid.uuid4().hex[:12]  # unique per worker lifetime (os.urandom: fork-safe)
        self.pipe_run_ref: DALIPipelineRunRef | None = None
        self.next_worker_batch_idx = 0
        self.batch_sample_idx = 0


class _DALIProxy:
    """The callable a Dataset calls with a sample's inputs (`DALIServer.proxy`).

    Its signature has one parameter per pipeline input: positional-or-keyword when the
    pipeline has one input, keyword-only otherwise (``inspect.signature(proxy)`` shows it).
    It returns one `DALIOutputSampleRef` per pipeline output (the marker itself for one).
    Picklable (to spawned DataLoader workers); each process and thread gathers its own batch.
    """

    def __init__(
        self,
        input_names: list[str],
        num_outputs: int,
        deterministic: bool,
        sender: Sender,
        engine: Engine,
    ) -> None:
        self._input_names = list(input_names)
        self._num_outputs = num_outputs
        self._deterministic = deterministic
        self._sender = sender
        self._engine: Engine | None = engine  # requests made in the server's process
        self._server_pid = os.getpid()
        #: Set by the proxy's DataLoader while it starts its workers (`Engine.retire`).
        self._generation: int | None = None
        self._worker_data: dict[tuple[int, int], _WorkerData] = {}
        self._sig: Signature | None = None

    @property
    def __signature__(self) -> Signature:
        if self._sig is None:
            kind = (
                Parameter.POSITIONAL_OR_KEYWORD
                if len(self._input_names) == 1
                else Parameter.KEYWORD_ONLY
            )
            self._sig = Signature(
                [Parameter(name, kind) for name in self._input_names],
                return_annotation=tuple(DALIOutputSampleRef for _ in range(self._num_outputs)),
            )
        return self._sig

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        sig = self.__signature__
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as err:
            args_str = ", ".join(f"{type(arg)}" for arg in args)
            kwargs_str = ", ".join(f"{key}={type(arg)}" for key, arg in kwargs.items())
            raise ValueError(
                f"Expected signature is: {sig}. "
                f"Got: args=({args_str}), kwargs={kwargs_str}, error: {err}"
            ) from None
        return self._add_sample(bound.arguments)

    def _get_worker_data(self) -> _WorkerData:
        key = (os.getpid(), threading.get_ident())
        data = self._worker_data.get(key)
        if data is None:
            data = self._worker_data[key] = _WorkerData()
        return data

    def _add_sample(self, inputs: dict[str, Any]) -> Any:
        """Add a sample to this thread's current batch (a new one after the collate function
        marked the last complete)."""
        wd = self._get_worker_data()
        if wd.pipe_run_ref is None or wd.pipe_run_ref.is_complete:
            batch_id = (self._generation, wd.worker_id, wd.nonce, wd.next_worker_batch_idx)
            wd.pipe_run_ref = DALIPipelineRunRef(batch_id)
            wd.next_worker_batch_idx += 1
            wd.batch_sample_idx = 0
        run_ref = wd.pipe_run_ref
        for name, value in inputs.items():
            run_ref.call_args.setdefault(name, []).append(value)
        refs = tuple(
            DALIOutputSampleRef(self, run_ref, i, wd.batch_sample_idx)
            for i in range(self._num_outputs)
        )
        wd.batch_sample_idx += 1
        return refs[0] if len(refs) == 1 else refs

    def _schedule_batch(self, pipe_run_ref: DALIPipelineRunRef) -> DALIPipelineRunRef:
        """Send the batch's inputs to the server; the reference keeps only the id."""
        if not pipe_run_ref.call_args:
            raise RuntimeError("No inputs for the pipeline to run (was it already scheduled?)")
        if not pipe_run_ref.is_complete:
            raise RuntimeError("Batch is not marked as complete")
        request = (pipe_run_ref.batch_id, pipe_run_ref.call_args)
        if self._engine is not None and os.getpid() == self._server_pid:
            self._engine.submit(*request)
        else:
            self._sender.send(request)
        pipe_run_ref.call_args = {}
        pipe_run_ref.is_scheduled = True
        return pipe_run_ref

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_engine=None, _worker_data={}, _sig=None)
        return state

    def __repr__(self) -> str:
        return f"DALIProxy{self.__signature__}"


class DALIServer:
    """Runs a pipeline for the proxy (`proxy`) that a ``Dataset`` calls in DataLoader workers.

    Args:
        pipeline: The pipeline to run. Its inputs are its ``fn.external_source`` nodes
            without a ``source`` (give them ``name=``: the proxy's parameters are these
            names); its outputs replace the proxy's markers. The DataLoader's batches must
            not be larger than its ``batch_size``. Its ``prefetch_queue_depth`` is how many
            batches it runs ahead of the training loop (DALI suggests about twice the
            number of workers).
        deterministic: Schedule each batch when the training loop asks for it, in the
            DataLoader's order, so that random operators give the same results on every run
            (slower: the pipeline then runs only while the loop waits). False: each batch is
            run as soon as a worker has collated it.

    Raises:
        TypeError: ``pipeline`` is not a Pipeline.
        RuntimeError: The pipeline has no input to feed.
        ValueError: An input's name is not a Python identifier.

    Example:
        Manual use, with torch's ``default_collate``:

        >>> import numpy as np
        >>> from torch.utils.data import default_collate
        >>> import dali.fn as fn
        >>> from dali import pipeline_def
        >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        ... def add_sub():
        ...     a = fn.external_source(name="a", no_copy=True)
        ...     b = fn.external_source(name="b", no_copy=True)
        ...     return a + b, b - a
        >>> with DALIServer(add_sub()) as server:
        ...     samples = [(i, *server.proxy(a=np.float32([i]), b=np.float32([10]))) for i in range(2)]
        ...     i, plus, minus = server.produce_data(default_collate(samples))
        >>> i.tolist(), plus.ravel().tolist(), minus.ravel().tolist()
        ([0, 1], [10.0, 11.0], [10.0, 9.0])
    """

    def __init__(self, pipeline: Pipeline, deterministic: bool = False) -> None:
        if not isinstance(pipeline, Pipeline):
            raise TypeError(f"Expected a DALI pipeline, got: {pipeline}")
        self._pipe = pipeline
        self._dali_input_names = [s.name for s in external_sources(pipeline) if not s.has_source]
        if not self._dali_input_names:
            raise RuntimeError(
                "The provided pipeline doesn't have any inputs (an fn.external_source without "
                "a `source`, named with `name=`, for each input the proxy takes)"
            )
        for name in self._dali_input_names:  # the proxy's parameters are these names
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(
                    f"The pipeline input {name!r} cannot be a parameter of the proxy: name the "
                    "fn.external_source with a Python identifier (name=...)"
                )
        self._deterministic = bool(deterministic)
        self._engine = Engine(pipeline, self._dali_input_names)
        # collected or at exit: stop the threads, close the socket
        self._finalizer = weakref.finalize(self, self._engine.close)
        self._proxy: _DALIProxy | None = None

    @property
    def proxy(self) -> _DALIProxy:
        """The callable the Dataset calls with each sample's inputs (one object per server)."""
        if self._proxy is None:
            self._proxy = _DALIProxy(
                self._dali_input_names,
                self._pipe.num_outputs,
                self._deterministic,
                Sender(self._engine.listener.address),
                self._engine,
            )
        return self._proxy

    @property
    def _thread(self) -> threading.Thread | None:
        """The pipeline thread while the server runs, else None (as DALI's attribute)."""
        return self._engine.thread

    def _is_thread_running(self) -> bool:
        return self._engine.thread is not None

    def start_thread(self) -> None:
        """Start the server's threads (prefer ``with DALIServer(...)``). Idempotent."""
        self._engine.start()

    def stop_thread(self) -> None:
        """Stop the server's threads and wait for them (prefer ``with``). Requests not yet run
        are kept: a restarted server runs them. Idempotent."""
        self._engine.stop()

    def close(self) -> None:
        """Stop and release the socket for good (our extension; collecting the server does it
        too). Idempotent."""
        self._finalizer()

    def __enter__(self) -> Self:
        self.start_thread()
        return self

    def __exit__(self, exc_type: object, exc_value: object, tb: object) -> None:
        self.stop_thread()  # exceptions propagate

    # -- producing the data -----------------------------------------------------------------
    def _get_outputs(self, pipe_run_ref: DALIPipelineRunRef) -> tuple[Any, ...]:
        """The iteration's outputs as torch tensors (scheduling it first if the proxy is
        deterministic)."""
        produced: tuple[Any, ...] | None = getattr(pipe_run_ref, "_produced", None)
        if produced is not None:  # the same batch given to produce_data again
            return produced
        if not pipe_run_ref.is_scheduled:
            if not pipe_run_ref.call_args:
                raise RuntimeError(
                    f"The batch {pipe_run_ref.batch_id} was neither sent to the DALIServer nor "
                    "carries its inputs"
                )
            self._engine.submit(pipe_run_ref.batch_id, pipe_run_ref.call_args)
            pipe_run_ref.call_args = {}
            pipe_run_ref.is_scheduled = True
        outputs = self._engine.wait(pipe_run_ref.batch_id)
        produced = tuple(
            batch_to_torch(tl, what=f"output {i} of the DALIServer's pipeline")
            for i, tl in enumerate(outputs)
        )
        pipe_run_ref._produced = produced
        return produced

    @staticmethod
    def _need_conversion(obj: Any, need_conversion_cache: dict[int, bool]) -> bool:
        """Whether ``obj`` or anything in it is a `DALIOutputBatchRef`."""
        obj_id = id(obj)
        if obj_id in need_conversion_cache:
            return need_conversion_cache[obj_id]
        if isinstance(obj, DALIOutputBatchRef):
            need_conversion_cache[obj_id] = True
            return True
        if isinstance(obj, DALIOutputSampleRef):
            raise TypeError(
                f"produce_data got a sample's marker ({obj!r}), not a batch's: the DataLoader "
                "did not collate the samples (batch_size=None, or a collate_fn that does not "
                "use torch's default_collate or _collate_dali_output_sample_ref_fn)"
            )
        need_conversion_cache[obj_id] = False  # before recursing: cycles end here
        if isinstance(obj, (list, tuple)):
            items: Any = obj
        elif isinstance(obj, dict):
            items = obj.values()
        else:
            items = getattr(obj, "__dict__", {}).values()
        for item in items:
            if DALIServer._need_conversion(item, need_conversion_cache):
                need_conversion_cache[obj_id] = True
                return True
        return False

    def _produce_data_impl(
        self,
        obj: Any,
        cache: dict[int, Any],
        need_conversion_cache: dict[int, bool],
        outputs: dict[BatchId, tuple[Any, ...]],
    ) -> Any:
        """One pass: lists, dicts and objects are changed in place, tuples rebuilt."""
        obj_id = id(obj)
        if obj_id in cache:  # shared or cyclic references
            return cache[obj_id]
        if not self._need_conversion(obj, need_conversion_cache):
            cache[obj_id] = obj
            return obj
        if isinstance(obj, DALIOutputBatchRef):
            batch_id = obj.pipe_run_ref.batch_id
            if batch_id not in outputs:
                outputs[batch_id] = self._get_outputs(obj.pipe_run_ref)
            result = outputs[batch_id][obj.output_idx]
            cache[obj_id] = result
            return result
        if isinstance(obj, list):
            cache[obj_id] = obj
            for i in range(len(obj)):
                obj[i] = self._produce_data_impl(obj[i], cache, need_conversion_cache, outputs)
            return obj
        if isinstance(obj, tuple):
            items = [
                self._produce_data_impl(item, cache, need_conversion_cache, outputs) for item in obj
            ]
            if hasattr(obj, "_replace") and hasattr(obj, "_fields"):  # a named tuple
                result = obj._replace(**dict(zip(obj._fields, items)))
            else:
                result = type(obj)(items)
            cache[obj_id] = result
            return result
        if isinstance(obj, dict):
            cache[obj_id] = obj
            for key in list(obj.keys()):
                obj[key] = self._produce_data_impl(obj[key], cache, need_conversion_cache, outputs)
            return obj
        if hasattr(obj, "__dict__"):
            cache[obj_id] = obj
            for name, value in list(obj.__dict__.items()):
                setattr(
                    obj, name, self._produce_data_impl(value, cache, need_conversion_cache, outputs)
                )
            return obj
        cache[obj_id] = obj
        return obj

    def produce_data(self, obj: Any) -> Any:
        """Replace every `DALIOutputBatchRef` in ``obj`` with the pipeline's output (a torch
        tensor), waiting for the pipeline where needed.

        Lists, dicts and objects' attributes are changed in place, tuples (named ones too)
        rebuilt; shared and circular references are followed once.

        Args:
            obj: What a DataLoader returned: any nesting of containers and objects.

        Returns:
            ``obj`` with the data in place of the references.

        Raises:
            Exception: The error of the pipeline iteration of a referenced batch.
            RuntimeError: The server is not running (the data would never come).
            TypeError: ``obj`` holds uncollated sample markers (`DALIOutputSampleRef`).
        """
        return self._produce_data_impl(obj, {}, {}, {})

    def __repr__(self) -> str:
        state = "running" if self._is_thread_running() else "stopped"
        return f"DALIServer(inputs={self._dali_input_names}, {state})"


class _ProxyLoaderIter:
    """The proxy DataLoader's iterator: torch's, with the pipeline's outputs put in place."""

    def __init__(self, loader: DataLoader, it: Any, generation: int | None) -> None:
        self._loader = loader
        self._it = it
        server = loader.dali_server
        self._retire = (
            weakref.finalize(self, server._engine.retire, generation)
            if generation is not None
            else None
        )

    def __iter__(self) -> _ProxyLoaderIter:
        return self

    def __len__(self) -> int:
        return len(self._it)

    def __next__(self) -> Any:
        self._loader.ensure_server_listening()
        try:
            data = next(self._it)
        except StopIteration:
            if self._retire is not None:
                self._retire()  # nothing of this iteration is left to take
            raise
        return self._loader.dali_server.produce_data(data)


class DataLoader(_torchdata.DataLoader[Any]):
    """torch's ``DataLoader`` whose batches have the `DALIServer`'s outputs in place of the
    proxy's markers.

    Args:
        dali_server: The server whose proxy the dataset calls.
        *args: torch's ``DataLoader`` arguments (``dataset``, ``batch_size``, ...).
        **kwargs: torch's ``DataLoader`` arguments. ``num_workers=0`` works too.

    It starts the server when iterated if it is not running (and then stops it when the
    loader is collected), as DALI's.

    Raises:
        ValueError: ``batch_size`` is larger than the pipeline's.
    """

    def __init__(self, dali_server: DALIServer, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dali_server = dali_server
        self.server_started_by_loader = False
        limit = dali_server._pipe.max_batch_size
        if self.batch_size is not None and limit is not None and self.batch_size > limit:
            raise ValueError(
                f"The DataLoader's batch_size ({self.batch_size}) is larger than the batch size "
                f"of the DALIServer's pipeline ({limit}): one DataLoader batch is one pipeline "
                "iteration."
            )

    def ensure_server_listening(self) -> None:
        """Start the server if it is not running (it then stops when this loader goes)."""
        server = self.dali_server
        if not server._is_thread_running():
            server.start_thread()
            if not self.server_started_by_loader:
                self.server_started_by_loader = True
                weakref.finalize(self, server._engine.stop)

    def __iter__(self) -> Iterator[Any]:  # type: ignore[override]
        server = self.dali_server
        proxy = server.proxy
        generation = None
        if self.num_workers > 0 and not self.persistent_workers:
            # the workers started now get this generation (fork copies it, spawn pickles it)
            generation = server._engine.new_generation()
            proxy._generation = generation
        try:
            it = super().__iter__()
        finally:
            proxy._generation = None
        return _ProxyLoaderIter(self, it, generation)
