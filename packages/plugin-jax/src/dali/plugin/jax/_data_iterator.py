"""`data_iterator`: turn a graph function into a factory of JAX iterators.

The decorated function is a plain graph function (what `pipeline_def` takes). Calling the
result builds the pipelines and returns a `DALIGenericIterator`:

* without ``sharding``/``devices``: one pipeline with ``device_id=0`` unless given (an all-CPU
  pipeline runs with it on a machine without CUDA, unlike DALI);
* with ``sharding``: one pipeline per batch shard held by this process's devices (per local
  device for the usual 1-D mesh), each told its ``shard_id`` (the position of its shard in the
  global batch) and ``num_shards``, and given ``batch_size // num_shards`` samples; every
  process of a multi-process job does the same for its own devices and the iterator returns
  the global array;
* with ``devices``: one pipeline per device, pmap-compatible output.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> @data_iterator(output_map=["x"])
    ... def iterator_fn():
    ...     return fn.external_source(lambda i: np.full((2, 1), i, np.int32), batch=True)
    >>> it = iterator_fn(batch_size=2)
    >>> next(it)["x"].tolist(), next(it)["x"].tolist()
    ([[0], [0]], [[1], [1]])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dali.pipeline import pipeline_def
from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax._iterator import DALIGenericIterator
from dali.plugin.jax._sharding import ShardPlan, per_output_shardings, primary_sharding

if TYPE_CHECKING:
    import jax

__all__ = ["data_iterator", "data_iterator_for", "default_num_threads_value"]


def default_num_threads_value() -> int:
    """The ``num_threads`` a `data_iterator` pipeline gets when the call does not say (4).

    Not tuned for any workload: set ``num_threads`` for the best speed.
    """
    return 4


def _device_id(device: Any, k: int) -> int:
    """The pipeline's ``device_id`` for the ``k``-th local device it feeds.

    DALI passes ``k``; for a GPU the CUDA ordinal is the same in the usual case (all local
    GPUs, in order) and right in the others (a subset of the GPUs).
    """
    if device.platform != "cpu":
        hw = getattr(device, "local_hardware_id", None)
        if hw is not None:
            return int(hw)
    return k


def _data_iterator_impl(
    iterator_type: type[DALIGenericIterator],
    pipeline_fn: Callable[..., Any] | None,
    output_map: Sequence[str],
    size: int = -1,
    reader_name: str | None = None,
    auto_reset: bool | str | None = False,
    last_batch_padded: bool = False,
    last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
    prepare_first_batch: bool = True,
    sharding: Any = None,
    devices: Sequence[jax.Device] | None = None,
    pmap_compatible: bool | None = None,
    extra: dict[str, Any] | None = None,
) -> Any:
    """`data_iterator` for any iterator class (the peekable CLU iterator reuses it);
    ``extra``: more keyword arguments of ``iterator_type``'s constructor."""
    if sharding is not None and devices is not None:
        raise ValueError("Only one of `sharding` and `devices` arguments can be provided.")
    output_map = list(output_map)
    iterator_kwargs: dict[str, Any] = {
        "output_map": output_map,
        "size": size,
        "reader_name": reader_name,
        "auto_reset": auto_reset,
        "last_batch_padded": last_batch_padded,
        "last_batch_policy": last_batch_policy,
        "prepare_first_batch": prepare_first_batch,
        **(extra or {}),
    }

    def decorate(func: Callable[..., Any]) -> Callable[..., DALIGenericIterator]:
        if getattr(func, "_is_pipeline_def", False):
            raise TypeError(
                "data_iterator decorates the graph function itself: remove @pipeline_def (the "
                "iterator passes batch_size, num_threads, device_id, ... to the pipeline)."
            )

        @functools.wraps(func)
        def create_iterator(
            *args: Any, checkpoints: Sequence[Any] | None = None, **kwargs: Any
        ) -> DALIGenericIterator:
            make_pipeline = pipeline_def(func)
            kwargs.setdefault("num_threads", default_num_threads_value())
            if sharding is None and devices is None:
                kwargs.setdefault("device_id", 0)
                checkpoint = checkpoints[0] if checkpoints else None
                pipe = make_pipeline(*args, checkpoint=checkpoint, **kwargs)
                return iterator_type([pipe], **iterator_kwargs, pmap_compatible=pmap_compatible)

            if "batch_size" not in kwargs:
                raise TypeError(
                    f"{func.__name__}() needs the global batch size as a keyword argument: "
                    "batch_size=..."
                )
            global_batch = kwargs["batch_size"]
            if devices is not None:
                import jax

                if jax.local_device_count() != jax.device_count():
                    raise RuntimeError(
                        "Iterator compatible with pmapped JAX functions does not support "
                        "running in multiprocess mode. Use `sharding` argument instead."
                    )
                plan = ShardPlan.for_devices(devices)
            else:
                shardings = per_output_shardings(sharding, output_map)
                assert shardings is not None
                plan = ShardPlan.for_sharding(primary_sharding(shardings))
            kwargs["batch_size"] = global_batch // plan.num_blocks
            if kwargs["batch_size"] < 1:
                raise ValueError(
                    f"batch_size={global_batch} is smaller than the number of shards "
                    f"({plan.num_blocks}): every shard needs at least one sample."
                )
            # As many checkpoints as devices: each pipeline resumes its own. Another number: the
            # job's layout changed (other devices or processes), an elastic restore, in which
            # any checkpoint of the saved step serves every pipeline (dali-core's iterator
            # docs give the rule).
            pipes = []
            for k, (device, shard) in enumerate(zip(plan.devices, plan.blocks)):
                pipes.append(
                    make_pipeline(
                        *args,
                        **kwargs,
                        device_id=_device_id(device, k),
                        shard_id=shard,
                        num_shards=plan.num_blocks,
                        checkpoint=checkpoints[k % len(checkpoints)] if checkpoints else None,
                    )
                )
            return iterator_type(
                pipes,
                **iterator_kwargs,
                sharding=sharding,
                pmap_compatible=pmap_compatible,
                _devices=plan.devices,
            )

        return create_iterator

    return decorate(pipeline_fn) if pipeline_fn is not None else decorate


def data_iterator(
    pipeline_fn: Callable[..., Any] | None = None,
    output_map: Sequence[str] = (),
    size: int = -1,
    reader_name: str | None = None,
    auto_reset: bool | str | None = False,
    last_batch_padded: bool = False,
    last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
    prepare_first_batch: bool = True,
    sharding: Any = None,
    devices: Sequence[jax.Device] | None = None,
    pmap_compatible: bool | None = None,
) -> Any:
    """Decorate a graph function so that calling it returns a `DALIGenericIterator`.

    Usable bare (``@data_iterator``), with arguments (``@data_iterator(output_map=[...])``)
    or called (``data_iterator(fn, output_map=[...])``). The returned function takes the
    graph function's own arguments plus the `Pipeline` arguments (``batch_size`` — the global
    batch —, ``num_threads`` (default 4), ``device_id``, ``seed``, ``prefetch_queue_depth``,
    ...) and ``checkpoints=`` (a list from ``it.checkpoints()``, one per pipeline; from a job
    with another number of devices or another batch size, the restore is elastic: see
    `dali.plugin.base_iterator`).

    Args:
        pipeline_fn: The graph function (not wrapped with `pipeline_def`). With ``sharding``
            or ``devices`` it must take ``shard_id`` and ``num_shards`` and pass them to its
            reader.
        output_map: The names of the outputs (the keys of every batch).
        size: See `DALIGenericIterator`.
        reader_name: See `DALIGenericIterator`.
        auto_reset: See `DALIGenericIterator`.
        last_batch_padded: See `DALIGenericIterator`.
        last_batch_policy: See `DALIGenericIterator`.
        prepare_first_batch: See `DALIGenericIterator`.
        sharding: A sharding (or one per output, as a dict keyed by name or a list): one
            pipeline per batch shard on this process's devices, and global arrays.
        devices: Devices to run one pipeline each on (one process only); the output is
            pmap-compatible, ``(len(devices), batch_size // len(devices), ...)``.
        pmap_compatible: See `DALIGenericIterator` (True by default with ``devices``).

    Returns:
        The iterator factory (or, without ``pipeline_fn``, a decorator making one).

    Raises:
        ValueError: Both ``sharding`` and ``devices``.
        RuntimeError: ``devices`` in a multi-process job.
        dali.author.CheckpointError: ``checkpoints`` that are not checkpoints of this
            pipeline (at the first call, when the pipelines are built).

    Example:
        >>> import jax
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from jax.sharding import Mesh, NamedSharding, PartitionSpec
        >>> sharding = NamedSharding(Mesh(jax.devices()[:1], ("batch",)), PartitionSpec("batch"))
        >>> @data_iterator(output_map=["x"], sharding=sharding)
        ... def iterator_fn(shard_id=0, num_shards=1):
        ...     return fn.external_source(lambda i: np.zeros((4, 2), np.float32), batch=True)
        >>> next(iterator_fn(batch_size=4))["x"].shape
        (4, 2)
    """
    return _data_iterator_impl(
        DALIGenericIterator,
        pipeline_fn,
        output_map,
        size,
        reader_name,
        auto_reset,
        last_batch_padded,
        last_batch_policy,
        prepare_first_batch,
        sharding,
        devices,
        pmap_compatible,
    )


def data_iterator_for(
    iterator_type: type[DALIGenericIterator],
    pipeline_fn: Callable[..., Any] | None = None,
    output_map: Sequence[str] = (),
    *,
    iterator_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """`data_iterator` making ``iterator_type`` iterators: the extension point for plugins.

    ``iterator_type`` is a `DALIGenericIterator` subclass whose constructor takes
    `DALIGenericIterator`'s arguments (dali-clu's peekable iterator is one), plus
    ``iterator_kwargs`` if given; the other arguments are `data_iterator`'s.

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> class Counting(DALIGenericIterator):
        ...     pass
        >>> @data_iterator_for(Counting, output_map=["x"])
        ... def iterator_fn():
        ...     return fn.external_source(lambda i: np.zeros((2, 1), np.int32), batch=True)
        >>> type(iterator_fn(batch_size=2)).__name__
        'Counting'
    """
    return _data_iterator_impl(
        iterator_type, pipeline_fn, output_map, **kwargs, extra=iterator_kwargs
    )
