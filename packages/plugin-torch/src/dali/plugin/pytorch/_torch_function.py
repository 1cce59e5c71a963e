"""`torch_python_function`: a Python function on ``torch.Tensor`` as a pipeline operator.

It is ``fn.python_function`` with torch tensors in place of numpy/CuPy arrays, as DALI's
``nvidia.dali.plugin.pytorch.fn.torch_python_function`` (class `TorchPythonFunction`): the
function gets one tensor per input and sample (with ``batch_processing=True``, one list of
per-sample tensors per input) and returns one tensor per output (a tuple when
``num_outputs > 1``; with ``batch_processing=True`` a list of samples or a batch-first tensor
per output). Anything ``fn.python_function`` accepts may be returned too (numpy arrays,
Python scalars). Like it, the operator needs a current pipeline when it is defined, is never
pruned (``num_outputs=0`` runs a function for its side effects) and copies its outputs.

The inputs share the pipeline's memory (``torch.from_dlpack``, no copy): keep them only for
the duration of the call and do not modify them in place (other operators may read the same
batch). The outputs are copied into the pipeline's memory, so the function may return views
of its inputs or reuse its buffers.

GPU (``device="gpu"``): the inputs are tensors on ``cuda:<device_id>`` of the pipeline, and
the function runs with a ``torch.cuda.Stream`` of its own as torch's current stream, so its
kernels go to that stream and never to torch's default stream (the training loop's). The
stream is created on the operator's first GPU batch, one per operator (one per call of
`torch_python_function` or of a `TorchPythonFunction` object), where DALI creates it when the
operator is defined. Every hand-over between the pipeline's stream (``ws.stream``) and the
torch stream is an event wait on the GPU; unlike DALI, which synchronises the torch stream
after each call, nothing waits on the host:

1. the torch stream waits for the pipeline's stream (``wait_stream``), so the inputs are
   computed before the function reads them (the DLPack hand-over of each input, made while the
   torch stream is current, orders it too);
2. the outputs go back through DLPack while the torch stream is still current, so the
   pipeline's stream waits for the torch stream before it copies them into its own memory;
3. after the batch the pipeline's stream waits for the torch stream again, so that work the
   function queued without returning it (``num_outputs=0``, reads of the inputs) is done
   before the pipeline reuses the inputs' memory.

Memory: the output tensors are allocated by torch's caching allocator on the torch stream and
read on the pipeline's stream by the copies. Each output tensor is recorded on the pipeline's
stream (``Tensor.record_stream``) before it is copied, so the allocator gives its memory to
new work only once the copies queued by then have run. (The alternative, keeping the torch
tensors as the output batch without a copy, would leave torch's memory in the pipeline's
batches for as long as a consumer holds them; the copy keeps the pipeline's memory rules, as
``fn.python_function`` does.)

The operator is registered in the core registry under the hidden path ``_torch_python_function``
(so it is not in `dali.fn`); its errors name ``dali.plugin.pytorch.fn.torch_python_function``.
torch is imported only when the operator is used.

Example:
    >>> import numpy as np
    >>> import torch
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.arange(3, dtype=np.float32)] * 2, layout="W")
    ...     return torch_python_function(x, function=lambda t: torch.flip(t, [0]) * 2,
    ...                                  output_layouts="W")
    >>> out, = pipe().run()
    >>> out.layout(), out.as_array().tolist()
    ('W', [[4.0, 2.0, 0.0], [4.0, 2.0, 0.0]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dali.author import PythonFunction, Workspace, get_schema, register

if TYPE_CHECKING:
    import torch

__all__ = ["TorchPythonFunction", "torch_python_function"]

_DISPLAY = "dali.plugin.pytorch.fn.torch_python_function"
_FN_PATH = "_torch_python_function"

#: torch dtypes a DALI batch can hold (by name: resolved without importing torch here).
_DALI_TORCH_TYPES = frozenset(
    f"torch.{name}"
    for name in (
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
    )
)

_BASE = PythonFunction.schema


@register(
    _FN_PATH,
    devices=("cpu", "gpu"),
    inputs=(_BASE.min_inputs, _BASE.max_inputs),
    outputs=_BASE.num_outputs,
    args=_BASE.args.values(),  # the arguments of fn.python_function
    no_prune=True,
    class_name="TorchPythonFunction",
    display_name=_DISPLAY,
)
class _TorchPythonFunctionImpl(PythonFunction):
    """Run a Python function on ``torch.Tensor`` samples or batches, on the CPU or the GPU."""

    def setup(self) -> None:
        super().setup()
        # Created on the first GPU batch: the torch stream the function runs on, and the
        # pipeline's stream as torch sees it.
        self._torch_stream: torch.cuda.Stream | None = None
        self._pipeline_stream: torch.cuda.ExternalStream | None = None

    # -- the hooks of PythonFunction -------------------------------------------------------
    def to_user(self, sample: Any) -> torch.Tensor:
        """A numpy (CPU) or CuPy (GPU) sample as a tensor sharing its memory."""
        from torch.utils.dlpack import from_dlpack

        # On the GPU torch hands its current stream (the operator's, see run_gpu) to
        # __dlpack__, which makes it wait for the pipeline's stream.
        return from_dlpack(sample)

    def from_user(self, value: Any) -> Any:
        """A returned tensor (or list of tensors: a batch) as data ``make_batch`` copies."""
        if isinstance(value, list):
            return [self._from_tensor(v) for v in value]
        return self._from_tensor(value)

    def _from_tensor(self, value: Any) -> Any:
        import torch

        if not isinstance(value, torch.Tensor):
            return value  # numpy, CuPy, Python scalars: fn.python_function's rules
        if str(value.dtype) not in _DALI_TORCH_TYPES:
            raise TypeError(
                f"The function returned a tensor of type {value.dtype}, which DALI cannot "
                "hold; convert it in the function (e.g. `.float()`): bool, (u)int8/16/32/64, "
                "float16, float32 and float64 are supported."
            )
        t = value.detach()
        if self.device == "gpu" and t.is_cuda:
            import cupy

            assert self._pipeline_stream is not None  # run_gpu made it
            # The pipeline's stream reads the tensor (the copy in make_batch): torch must not
            # give its memory to new work before that copy has run.
            t.record_stream(self._pipeline_stream)
            # DLPack while the torch stream is current: the pipeline's stream (CuPy's current
            # one) waits for an event recorded on the torch stream, on the GPU.
            return cupy.from_dlpack(t)
        if t.is_cuda:
            t = t.cpu()  # synchronize! (a CPU operator's function returned a CUDA tensor)
        return t.numpy()  # shares the tensor's memory; make_batch copies it

    # -- running -----------------------------------------------------------------------------
    def _streams(self, ws: Workspace) -> tuple[torch.cuda.Stream, torch.cuda.ExternalStream]:
        """The operator's torch stream and the pipeline's stream, made on the first batch."""
        import torch

        if self._torch_stream is None or self._pipeline_stream is None:
            if not torch.cuda.is_available():
                raise self.error(
                    'device="gpu" needs a CUDA build of torch that sees a GPU, but '
                    "torch.cuda.is_available() is False."
                )
            cuda = ws.cuda
            assert cuda is not None and ws.stream is not None  # a GPU operator's workspace
            device = torch.device("cuda", cuda.device_id)
            # (torch's stubs leave the stream constructors unannotated)
            self._pipeline_stream = torch.cuda.ExternalStream(  # type: ignore[no-untyped-call]
                ws.stream.ptr, device=device
            )
            self._torch_stream = torch.cuda.Stream(device=device)  # type: ignore[no-untyped-call]
        return self._torch_stream, self._pipeline_stream

    def run_gpu(self, ws: Workspace) -> tuple[Any, ...]:
        import torch

        stream, pipeline_stream = self._streams(ws)
        stream.wait_stream(pipeline_stream)  # 1. the inputs are computed first
        try:
            with torch.cuda.stream(stream):  # 2. the function, and DLPack both ways
                outputs: tuple[Any, ...] = super().run_gpu(ws)
        finally:
            pipeline_stream.wait_stream(stream)  # 3. all the function's work, before reuse
        return outputs


def torch_python_function(
    *inputs: Any,
    function: Callable[..., Any],
    num_outputs: int = 1,
    device: str = "cpu",
    batch_processing: bool = False,
    output_layouts: str | Sequence[str] | None = None,
    **kwargs: Any,
) -> Any:
    """Run ``function`` on torch tensors inside the pipeline (DALI's
    ``fn.torch_python_function``).

    Must be called while a pipeline is current (in a ``@pipeline_def`` function, or
    ``with pipe:``).

    Args:
        *inputs: DataNodes; each gives the function one tensor per sample (or one list of
            tensors with ``batch_processing``). On the GPU they must be GPU DataNodes.
        function: Takes one argument per input and returns ``num_outputs`` tensors (a tuple
            when more than one; None for ``num_outputs=0``). Called once per sample, or once
            per batch with ``batch_processing``, in the pipeline's thread, with the pipeline
            current; on the GPU with the operator's own ``torch.cuda.Stream`` current.
        num_outputs: How many outputs the function returns (0: called for side effects).
        device: ``"cpu"`` (CPU tensors) or ``"gpu"`` (tensors on ``cuda:<device_id>``).
        batch_processing: Call the function once per batch, with one list of per-sample
            tensors per input; it returns a list of samples or a batch-first tensor per
            output.
        output_layouts: The layout of every output (one str) or of each (a list of str).
        **kwargs: The arguments every operator takes (``name``, ``preserve``, ...).

    Returns:
        A DataNode, a list of ``num_outputs`` DataNodes, or None for ``num_outputs=0``.

    Raises:
        RuntimeError: No current pipeline.
        TypeError: ``function`` is not callable, or a bad ``output_layouts``.
        ValueError: A bad ``num_outputs`` or ``device``, or inputs on another device.

    Example:
        >>> import torch
        >>> def normalize(images):  # one HWC uint8 image -> CHW float32
        ...     return images.permute(2, 0, 1).float().div(255)
        >>> # in a pipeline: torch_python_function(images, function=normalize,
        >>> #                                      output_layouts="CHW")
    """
    kwargs.update(
        function=function,
        num_outputs=num_outputs,
        device=device,
        batch_processing=batch_processing,
        output_layouts=output_layouts,
    )
    return PythonFunction.call_operator(get_schema(_FN_PATH), inputs, kwargs)


class TorchPythonFunction:
    """The ops-style form of `torch_python_function` (DALI's ``TorchPythonFunction``).

    Construct it with the arguments, then call it on DataNodes inside the pipeline
    definition; arguments given to the call are added to (and override) those of the
    constructor. Every call defines a new operator, with its own torch stream on the GPU.

    Args:
        function: See `torch_python_function`.
        num_outputs: See `torch_python_function`.
        device: See `torch_python_function`.
        batch_processing: See `torch_python_function`.
        **kwargs: Other arguments of `torch_python_function` (``output_layouts``, ``name``).

    Example:
        >>> import numpy as np
        >>> from dali import fn, pipeline_def
        >>> double = TorchPythonFunction(function=lambda t: t * 2)
        >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        ... def pipe():
        ...     return double(fn.external_source(lambda: [np.ones(2, np.int64)]))
        >>> pipe().run()[0].as_array().tolist()
        [[2, 2]]
    """

    def __init__(
        self,
        function: Callable[..., Any],
        num_outputs: int = 1,
        device: str = "cpu",
        batch_processing: bool = False,
        **kwargs: Any,
    ) -> None:
        self._kwargs: dict[str, Any] = {
            "function": function,
            "num_outputs": num_outputs,
            "device": device,
            "batch_processing": batch_processing,
            **kwargs,
        }

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        return torch_python_function(*inputs, **{**self._kwargs, **kwargs})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"TorchPythonFunction({args})"
