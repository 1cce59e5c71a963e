"""DALI batches and tensors to ``torch.Tensor``: zero-copy through DLPack, or copied into a
tensor the caller owns (`feed_ndarray`).

Zero-copy is the default everywhere: ``torch.from_dlpack`` wraps the pipeline's buffer. On the
GPU, torch passes its current stream of the batch's device to ``__dlpack__``, and the batch
makes that stream wait for the pipeline's work with an event: the hand-off is ordered on the
GPU, without a host synchronisation, and the memory is not reused before torch's queued work
on it is done (the consumer stream is recorded on the output's memory). Our executor never
writes into a batch it has handed out, so aliasing is safe whatever ``exec_dynamic`` says
(DALI copies when its executor recycles buffers).

torch has no arithmetic on unsigned 16/32/64-bit integers, so DALI maps only nine types
(`to_torch_type`); an output of another type is a clear error that says which cast to add.

Example:
    >>> import numpy as np
    >>> from dali.tensors import TensorListCPU
    >>> tl = TensorListCPU(np.arange(6, dtype=np.int32).reshape(2, 3))
    >>> t = batch_to_torch(tl, what="output 'x'")
    >>> t.dtype, tuple(t.shape), t[1].tolist()
    (torch.int32, (2, 3), [3, 4, 5])
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from dali.tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU
from dali.types import DALIDataType

if TYPE_CHECKING:
    import torch

__all__ = [
    "batch_to_torch",
    "feed_ndarray",
    "samples_to_torch",
    "to_torch_tensor",
    "to_torch_type",
    "torch_device_of",
]

#: DALI's mapping, by torch dtype name (resolved when first used: no torch import here).
_TORCH_TYPES = {
    DALIDataType.FLOAT: "float32",
    DALIDataType.FLOAT64: "float64",
    DALIDataType.FLOAT16: "float16",
    DALIDataType.UINT8: "uint8",
    DALIDataType.INT8: "int8",
    DALIDataType.BOOL: "bool",
    DALIDataType.INT16: "int16",
    DALIDataType.INT32: "int32",
    DALIDataType.INT64: "int64",
}


#: Why the other types have no torch dtype, and what to do (the KeyError's and TypeError's).
_UNSUPPORTED = (
    "torch tensors of this type are not supported (torch has no arithmetic on "
    "uint16/uint32/uint64); cast the output in the pipeline, e.g. fn.cast(x, dtype=types.INT32) "
    "or types.INT64"
)


class _TorchTypes(Mapping[DALIDataType, "torch.dtype"]):
    """``to_torch_type[dali_type]`` is the torch dtype, as DALI's dict; it imports torch only
    when first read. Other types (the unsigned 16/32/64-bit ones among them) raise KeyError,
    as in DALI, with a message that says why and what to do."""

    def __getitem__(self, key: DALIDataType) -> torch.dtype:
        name = _TORCH_TYPES.get(key)
        if name is None:
            raise KeyError(f"{key}: {_UNSUPPORTED}")
        import torch

        dtype: torch.dtype = getattr(torch, name)
        return dtype

    def __iter__(self) -> Iterator[DALIDataType]:
        return iter(_TORCH_TYPES)

    def __len__(self) -> int:
        return len(_TORCH_TYPES)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: torch.{v}" for k, v in _TORCH_TYPES.items()) + "}"


#: DALI's ``to_torch_type``: DALIDataType -> torch.dtype.
to_torch_type: Mapping[DALIDataType, torch.dtype] = _TorchTypes()


def _torch_dtype(dali_type: DALIDataType, what: str) -> torch.dtype:
    try:
        return to_torch_type[dali_type]
    except KeyError as e:
        raise TypeError(f"{what} has type {dali_type}: {_UNSUPPORTED}") from e


def torch_device_of(data: Any) -> torch.device:
    """``cuda:<device of the data>`` for GPU tensors and batches, ``cpu`` otherwise."""
    import torch

    if isinstance(data, (TensorGPU, TensorListGPU)):
        return torch.device("cuda", data.device_id())
    return torch.device("cpu")


def _from_dlpack(t: Any, device: torch.device) -> torch.Tensor:
    import torch
    from torch.utils.dlpack import from_dlpack

    if device.type == "cuda":
        # torch passes its current stream *of this device* to __dlpack__: make it current
        with torch.cuda.device(device):
            return from_dlpack(t)
    return from_dlpack(t)


def batch_to_torch(tl: Any, *, what: str = "the batch") -> torch.Tensor:
    """A uniform batch as one tensor of shape ``(batch, *sample_shape)``, sharing its memory.

    Args:
        tl: A `TensorListCPU` or `TensorListGPU` whose samples all have the same shape.
        what: How to name the batch in error messages (``"output 'images'"``).

    Returns:
        The tensor, on the CPU or on ``cuda:<the batch's device>``.

    Raises:
        ValueError: The samples have different shapes.
        TypeError: A type torch does not support (`to_torch_type`).
    """
    _torch_dtype(tl.dtype, what)
    if not tl.is_dense_tensor():
        shapes = tl.shape()
        raise ValueError(
            f"{what} is a batch of samples of different shapes ({shapes[:4]}"
            f"{' ...' if len(shapes) > 4 else ''}), which one torch.Tensor cannot hold: resize, "
            "crop or pad them to one shape in the pipeline, or use DALIRaggedIterator with "
            "output_types=[..., DALIRaggedIterator.SPARSE_LIST_TAG, ...]."
        )
    return _from_dlpack(tl.as_tensor(), torch_device_of(tl))


def samples_to_torch(tl: Any, *, what: str = "the batch") -> list[torch.Tensor]:
    """One tensor per sample (any shapes), each sharing the batch's memory."""
    _torch_dtype(tl.dtype, what)
    device = torch_device_of(tl)
    return [_from_dlpack(tl[i], device) for i in range(len(tl))]


def _stream_ptr(cuda_stream: Any) -> int | None:
    """A ``cudaStream_t`` from a torch/CuPy stream object or an int (None: none given)."""
    if cuda_stream is None:
        return None
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(cuda_stream, attr):
            return int(getattr(cuda_stream, attr))
    if isinstance(cuda_stream, ctypes.c_void_p):
        return int(cuda_stream.value or 0)
    return int(cuda_stream)


def _is_dense_batch(data: Any) -> bool:
    """A non-empty batch (not a single tensor) whose samples have one shape."""
    batch = isinstance(data, (TensorListCPU, TensorListGPU))
    return batch and len(data) > 0 and bool(data.is_dense_tensor())


def feed_ndarray(
    dali_tensor: TensorCPU | TensorGPU | TensorListCPU | TensorListGPU,
    arr: torch.Tensor,
    cuda_stream: Any = None,
) -> torch.Tensor:
    """Copy a DALI tensor or batch into an existing torch tensor (DALI's ``feed_ndarray``).

    Args:
        dali_tensor: A `TensorCPU`/`TensorGPU`, or a batch (`TensorListCPU`/`TensorListGPU`,
            its samples copied back to back).
        arr: The destination: same dtype (`to_torch_type`) and shape, on the CPU for CPU data
            and on a CUDA device for GPU data, contiguous.
        cuda_stream: GPU data: the stream to copy on (a ``torch.cuda.Stream``, a CuPy stream
            or a raw ``cudaStream_t``); the copy is then asynchronous, ordered after the
            pipeline's work on that stream. Usually ``torch.cuda.current_stream()``. None:
            a synchronous copy.

    Returns:
        ``arr``.

    Raises:
        AssertionError: Another dtype or shape (DALI's messages), or a non-contiguous ``arr``.

    Example:
        >>> import numpy as np, torch
        >>> from dali.tensors import TensorCPU
        >>> feed_ndarray(TensorCPU(np.ones((2, 2), np.float32)), torch.zeros(2, 2)).sum().item()
        4.0
    """
    dali_type = to_torch_type[dali_tensor.dtype]
    assert dali_type == arr.dtype, (
        "The element type of DALI Tensor/TensorList doesn't match the element type of the "
        f"target PyTorch Tensor: {dali_type} vs {arr.dtype}"
    )
    shape: list[Any] = list(dali_tensor.shape())
    if _is_dense_batch(dali_tensor):  # (B, *sample)
        shape = [len(shape), *shape[0]]
    assert list(shape) == list(arr.size()), (
        f"Shapes do not match: DALI tensor has size {list(shape)}, but PyTorch Tensor has size "
        f"{list(arr.size())}"
    )
    assert arr.is_contiguous(), "feed_ndarray: the target PyTorch Tensor must be contiguous"
    gpu = isinstance(dali_tensor, (TensorGPU, TensorListGPU))
    assert gpu == arr.is_cuda, (
        f"feed_ndarray: the DALI data is on the {'GPU' if gpu else 'CPU'}, the target PyTorch "
        f"Tensor on {arr.device}"
    )
    ptr = ctypes.c_void_p(arr.data_ptr())
    if isinstance(dali_tensor, (TensorGPU, TensorListGPU)):
        stream = _stream_ptr(cuda_stream)
        dali_tensor.copy_to_external(ptr, stream, non_blocking=stream is not None)
    else:
        dali_tensor.copy_to_external(ptr)
    return arr


def to_torch_tensor(dali_tensor: Any, copy: bool) -> torch.Tensor:
    """A DALI tensor as a torch tensor: a copy on torch's current stream (``copy=True``) or
    a zero-copy DLPack view (DALI's ``torch_utils.to_torch_tensor``)."""
    import torch

    device = torch_device_of(dali_tensor)
    if not copy:
        return _from_dlpack(dali_tensor, device)
    out = torch.empty(dali_tensor.shape(), dtype=to_torch_type[dali_tensor.dtype], device=device)
    stream = torch.cuda.current_stream(device) if device.type == "cuda" else None
    return feed_ndarray(dali_tensor, out, cuda_stream=stream)
