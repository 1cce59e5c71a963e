"""`peekable_data_iterator`: `dali.plugin.jax.data_iterator` making peekable CLU iterators.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> @peekable_data_iterator(output_map=["x"])
    ... def iterator_fn():
    ...     return fn.external_source(lambda i: np.full((2, 1), i, np.int32), batch=True)
    >>> it = iterator_fn(batch_size=2)
    >>> it.peek()["x"].tolist(), next(it)["x"].tolist(), next(it)["x"].tolist()
    ([[0], [0]], [[0], [0]], [[1], [1]])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dali.plugin.base_iterator import LastBatchPolicy
from dali.plugin.jax.clu._peekable import DALIGenericPeekableIterator
from dali.plugin.jax.iterator import data_iterator_for

__all__ = ["peekable_data_iterator"]


def peekable_data_iterator(
    pipeline_fn: Callable[..., Any] | None = None,
    output_map: Sequence[str] = (),
    size: int = -1,
    reader_name: str | None = None,
    auto_reset: bool | str | None = False,
    last_batch_padded: bool = False,
    last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
    prepare_first_batch: bool = True,
    sharding: Any = None,
    devices: Any = None,
    pmap_compatible: bool | None = None,
    *,
    pad_to: Mapping[str, Sequence[int | None]] | None = None,
    buckets: Mapping[str, Sequence[Sequence[int | None]]] | None = None,
    pad_value: float = 0,
) -> Any:
    """`dali.plugin.jax.data_iterator` whose factory returns a `DALIGenericPeekableIterator`.

    The arguments, the call (global ``batch_size=``, ``checkpoints=``, pipeline arguments)
    and the sharding are `data_iterator`'s; ``pad_to``, ``buckets`` and ``pad_value`` are the
    iterator's (ragged outputs).
    """
    return data_iterator_for(
        DALIGenericPeekableIterator,
        pipeline_fn,
        output_map,
        size=size,
        reader_name=reader_name,
        auto_reset=auto_reset,
        last_batch_padded=last_batch_padded,
        last_batch_policy=last_batch_policy,
        prepare_first_batch=prepare_first_batch,
        sharding=sharding,
        devices=devices,
        pmap_compatible=pmap_compatible,
        iterator_kwargs={"pad_to": pad_to, "buckets": buckets, "pad_value": pad_value},
    )
