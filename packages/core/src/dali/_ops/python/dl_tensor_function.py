"""`fn.dl_tensor_python_function`: a Python function on DLPack capsules, for any framework.

As DALI's: the function receives each sample as a DLPack capsule (``PyCapsule`` named
``"dltensor"``) that a framework imports without a copy (``torch.utils.dlpack.from_dlpack``,
``cupy.from_dlpack``, ``jax.dlpack.from_dlpack``), and returns capsules (or any object with
``__dlpack__``: a tensor or an array), from which the outputs are copied. A capsule can be
imported once: return a capsule of its own for each output sample. By default
(``batch_processing=True``, unlike ``fn.python_function``) it is called once per batch with one
list of capsules per input and returns one list per output; with ``batch_processing=False``,
once per sample. Everything else is ``fn.python_function``'s (`PythonFunction`): the
arguments, ``num_outputs``, ``output_layouts``, the checks and errors, the current pipeline while
it runs, never pruned.

On the GPU the capsules describe device memory on the pipeline's device; the pipeline's stream
is synchronised before the call (``synchronize_stream``, as DALI does by default), so a
framework may read the data on any stream.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> def reverse(batch):  # a list of capsules in, a list of capsules out
    ...     return batch[::-1]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.arange(3), np.ones(3, np.int64)])
    ...     return fn.dl_tensor_python_function(x, function=reverse)
    >>> pipe().run()[0].as_array().tolist()
    [[1, 1, 1], [0, 1, 2]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dali._graph.schema import Arg, register
from dali._ops.python.python_function import PythonFunction

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["DLTensorPythonFunction"]

_BASE = PythonFunction.schema

#: DLPack's device types (``DLDeviceType``): CPU and CUDA.
_DL_CPU, _DL_CUDA = 1, 2


class _Capsule:
    """A bare DLPack capsule as an object NumPy and CuPy import (``__dlpack__``)."""

    __slots__ = ("capsule", "device")

    def __init__(self, capsule: Any, device: tuple[int, int] = (_DL_CPU, 0)) -> None:
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


def _is_capsule(value: Any) -> bool:
    return type(value).__name__ == "PyCapsule"


@register(
    "dl_tensor_python_function",
    devices=("cpu", "gpu"),
    inputs=(_BASE.min_inputs, _BASE.max_inputs),
    outputs=_BASE.num_outputs,
    args=[
        *(a for a in _BASE.args.values() if a.name != "batch_processing"),
        Arg(
            "batch_processing",
            "bool",
            default=True,
            doc="Call once per batch with lists of capsules (True, the default) or per sample.",
        ),
    ],
    no_prune=True,
    fn=PythonFunction.call_operator,  # fn.python_function's checks at definition
    class_name="DLTensorPythonFunction",
)
class DLTensorPythonFunction(PythonFunction):
    """Run a Python function on DLPack capsules (`dl_tensor_function`'s docstring)."""

    def to_user(self, sample: Any) -> Any:
        """A numpy (CPU) or CuPy (GPU) sample as a DLPack capsule sharing its memory."""
        return sample.__dlpack__()

    def from_user(self, value: Any) -> Any:
        """A returned capsule (or list of them: a batch) as an array ``make_batch`` copies."""
        if isinstance(value, list):
            return [self._array(v) for v in value]
        return self._array(value)

    def _array(self, value: Any) -> Any:
        if self.device == "gpu":
            import cupy

            if _is_capsule(value):
                device = cupy.cuda.Device().id
                return cupy.from_dlpack(_Capsule(value, (_DL_CUDA, device)))
            return cupy.from_dlpack(value) if hasattr(value, "__dlpack__") else value
        import numpy as np

        if _is_capsule(value):
            return np.from_dlpack(_Capsule(value))
        return np.from_dlpack(value) if hasattr(value, "__dlpack__") else value

    def run_gpu(self, ws: Workspace) -> tuple[Any, ...]:
        if self.arg("synchronize_stream"):
            import cupy

            cupy.cuda.get_current_stream().synchronize()  # synchronize! (DALI's default)
        return super().run_gpu(ws)
