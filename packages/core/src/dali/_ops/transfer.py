"""Copies between devices, inserted by `build` where `.gpu()` / `.cpu()` move a node.

A copy to the GPU is asynchronous: it is staged through pinned memory and enqueued on the
pipeline's stream (`to_gpu`). A copy to the CPU (``.cpu()``) waits for the GPU work before it
(``as_cpu``; ``# synchronize!``), in the executor's GPU stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dali._graph.node import OpNode
from dali._graph.schema import register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Transfer", "to_gpu"]


@register("_transfer", devices=("cpu", "gpu"), inputs=1, outputs=1, class_name="Transfer")
class Transfer(Operator):
    """Copy a batch to the operator's device (host→device for "gpu", device→host for "cpu")."""

    @classmethod
    def for_copy(cls, producer: OpNode, device: str) -> Transfer:
        node = OpNode(
            schema=cls.schema,
            device=device,
            inputs=(),
            scalar_args={},
            arg_inputs={},
            name=f"{producer.name}.{device}()",
            auto_named=True,
            pipeline=None,
            creation_index=-1,
            definition=producer.definition,
        )
        return cls(node, None)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU, TensorListGPU

        src = ws.inputs[0]
        if isinstance(src, TensorListGPU):
            return src
        assert isinstance(src, TensorListCPU)
        return to_gpu(src)

    def run_cpu(self, ws: Workspace) -> Any:
        src = ws.inputs[0]
        return (
            src.as_cpu() if hasattr(src, "as_cpu") and type(src).__name__.endswith("GPU") else src
        )


def to_gpu(tl: Any) -> Any:
    """Copy a TensorListCPU to the GPU (a TensorListGPU).

    Inside a pipeline (a `dali._exec.device.CudaContext` is active in this thread) the copy goes
    through a pinned staging buffer and is enqueued on the pipeline's stream, without waiting;
    elsewhere it is a plain CuPy copy to the current device.
    """
    from dali._exec.device import current

    ctx = current()
    if ctx is not None:
        return ctx.to_device(tl)
    return tl.to_gpu()
