"""Shards for ``torch.distributed``: each rank reads its own part of the dataset.

`shard_info` gives the arguments a rank passes to its pipeline and reader: ``shard_id`` = its
rank, ``num_shards`` = the world size, and ``device_id`` = its local GPU. A
``DistributedSampler`` user gets what they expect from it, with two differences worth knowing:

* **Equal lengths.** Collective calls (DDP's gradient all-reduce) need every rank to take
  as many steps, or the ranks that go on wait for ever. ``DistributedSampler`` pads every
  rank to the same number of samples; an iterator with ``reader_name`` gives every rank
  ``len(it) == ceil(largest shard / batch)`` batches (the shards differ by at most one
  sample), padded or not. The reader's ``pad_last_batch=True`` decides what fills the
  shorter shards' last batch: copies of the shard's last sample, which PARTIAL cuts out
  (FILL returns them; DROP drops the batch). Without it, FILL takes the samples that follow
  in the dataset (the next shard's: seen twice in the epoch) and later epochs start where the
  last one stopped. With the legacy ``size=`` instead of ``reader_name`` the iterator does
  not know the shards: use ``reader_name``.
* **Contiguous shards.** Shard ``r`` is the ``r``-th contiguous slice of the file list
  (``DistributedSampler`` strides: ``r, r + world, ...``). Shuffle with
  ``shuffle_after_epoch=True`` (the same permutation on every rank each epoch, the
  equivalent of ``sampler.set_epoch(epoch)``; no call needed) or ``random_shuffle=True``.

The rank comes from ``torch.distributed`` when a process group is initialised, else from the
environment ``torchrun`` sets (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``), else it is rank 0 of
1.

Example:
    >>> info = shard_info()  # no process group here: rank 0 of 1
    >>> info.shard_id, info.num_shards
    (0, 1)

    In a training script (one process per GPU, e.g. under ``torchrun``)::

        shard_id, num_shards, device_id = shard_info()
        pipe = train_pipeline(batch_size=64, num_threads=4, device_id=device_id,
                              shard_id=shard_id, num_shards=num_shards)
        it = DALIClassificationIterator(pipe, reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL)
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

__all__ = ["ShardInfo", "shard_info"]


class ShardInfo(NamedTuple):
    """This rank's part of the data: pass the fields to the pipeline and its reader."""

    #: The reader's ``shard_id``: this process's rank in the group.
    shard_id: int
    #: The reader's ``num_shards``: the number of ranks in the group.
    num_shards: int
    #: The pipeline's ``device_id``: the local rank's GPU, or None without CUDA.
    device_id: int | None


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(
            f"shard_info: the environment variable {name}={value!r} is not an int"
        ) from None


def shard_info(group: Any = None) -> ShardInfo:
    """This process's ``shard_id``, ``num_shards`` and ``device_id`` (module docstring).

    Args:
        group: A ``torch.distributed`` process group (None: the default group).

    Returns:
        A `ShardInfo`; ``device_id`` is ``LOCAL_RANK`` (else the rank modulo the number of
        GPUs) when CUDA is available, else None.

    Raises:
        ValueError: ``RANK``/``WORLD_SIZE``/``LOCAL_RANK`` set to something other than ints,
            or a rank outside ``[0, WORLD_SIZE)``.
    """
    import torch
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        rank, world = dist.get_rank(group), dist.get_world_size(group)
    else:
        rank, world = _env_int("RANK") or 0, _env_int("WORLD_SIZE") or 1
    if not 0 <= rank < world:
        raise ValueError(f"shard_info: rank {rank} is outside [0, {world}) (RANK, WORLD_SIZE)")
    device_id: int | None = None
    if torch.cuda.is_available():
        local = _env_int("LOCAL_RANK")
        device_id = local if local is not None else rank % torch.cuda.device_count()
    return ShardInfo(rank, world, device_id)
