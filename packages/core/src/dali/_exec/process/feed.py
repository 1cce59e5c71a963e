"""The Python sources' batches on their way to a worker process, in host shared memory.

A pipeline's Python sources (``fn.external_source``) are called by the consumer, in the
thread that schedules the iteration, and their batches travel with the iteration's request.
Pickled, a batch of 512 one-megabyte images is copied four times (pickle, socket, unpickle,
the source's own copy); here it is copied once, by the consumer, into one slot of a
`dali._exec.process.shm.HostRing` of its own, and the worker wraps the slot as the batches
(`HostViews`): the request carries a placeholder per batch (`share_fed`, `unshare_fed`).

When the worker no longer reads a slot (the iteration finished and its operators dropped
the batches) it sends ``("fed", [slots])`` and the consumer writes the slot again. The copy
into the slot is the copy DALI makes of a source's data, so the source does not make its
own (`dali._ops.base.PythonSource.copy_in_transport`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._exec.executor import IterationRequest
    from dali._exec.process.shm import HostPacked, HostRing, HostViews

__all__ = ["share_fed", "unshare_fed"]


@dataclasses.dataclass(frozen=True)
class _Shared:
    """Where a source's batch was: the index of its item in the request's host slot."""

    index: int


def share_fed(req: IterationRequest, ring: HostRing) -> tuple[IterationRequest, HostPacked | None]:
    """``req`` with its sources' host batches copied into a slot of ``ring`` and replaced by
    placeholders, and the slot's description (None, and ``req`` as is, when it has none)."""
    batches: list[TensorListCPU] = []
    fed = {si: (_hide(batch, batches), meta) for si, (batch, meta) in req.fed.items()}
    if not batches:
        return req, None
    packed = ring.pack(batches)
    return dataclasses.replace(req, fed=fed), packed


def unshare_fed(req: IterationRequest, packed: HostPacked, views: HostViews) -> IterationRequest:
    """The request as `share_fed` got it: the placeholders replaced by views of the slot
    (mapped already)."""
    batches = views.unpack(packed)
    fed = {si: (_show(batch, batches), meta) for si, (batch, meta) in req.fed.items()}
    return dataclasses.replace(req, fed=fed)


# (module functions, not closures: a recursive closure is a reference cycle, and the batches
# in it would wait for the garbage collector to let their slot go)
def _hide(value: Any, batches: list[TensorListCPU]) -> Any:
    if isinstance(value, TensorListCPU):
        batches.append(value)
        return _Shared(len(batches) - 1)
    if isinstance(value, tuple):  # a source's outputs (``num_outputs``)
        return tuple(_hide(v, batches) for v in value)
    return value


def _show(value: Any, batches: list[TensorListCPU]) -> Any:
    if isinstance(value, _Shared):
        return batches[value.index]
    if isinstance(value, tuple):
        return tuple(_show(v, batches) for v in value)
    return value
