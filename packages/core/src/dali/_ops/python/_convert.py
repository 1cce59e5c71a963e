"""Turning what Python code hands to DALI into batches.

`external_source` callbacks, `feed_input` and `python_function` all give us "user data", which
can be, without any framework being imported here:

* a ``TensorListCPU`` / ``TensorListGPU``;
* a dense array whose first axis is the batch axis: numpy, anything with
  ``__array_interface__`` / ``__array__`` (torch CPU tensors, jax CPU arrays),
  ``__cuda_array_interface__`` (CuPy, torch CUDA tensors, Numba) or DLPack
  (``__dlpack__`` + ``__dlpack_device__``);
* a list or tuple of samples of those kinds, ``TensorCPU`` / ``TensorGPU`` or Python scalars
  (ragged shapes are fine; every sample must have the same number of dimensions and dtype).

`make_batch` places the data where the operator runs: host data given to a GPU operator is
copied to the device, device data given to a CPU operator is copied to the host. Unless told
otherwise it copies the data, as DALI's ``feed_input`` does, so that a callback may reuse its
buffers while the pipeline still holds the batch.

GPU data is taken without a copy where it can be (``copy=False``): CuPy arrays as they are,
torch/jax/other CUDA arrays through DLPack, which orders the producer's work before this
thread's current stream on the GPU, else through ``__cuda_array_interface__`` (CuPy then
synchronises with the ``"stream"`` the producer names, CAI v3). Host data for the GPU is packed
into one pinned staging buffer and copied asynchronously (`dali._ops.transfer.to_gpu`); inside a
pipeline all of this is enqueued on the pipeline's stream (the caller activates its
`dali._exec.device.CudaContext`).

A source's batches must agree with each other too: `OutputHistory` keeps the type, the number
of dimensions and the layout of a source output's first batch and reports a later batch that
differs, in DALI's words.

Example:
    >>> import numpy as np
    >>> tl = make_batch([np.zeros((2, 3), np.uint8), np.ones((4, 3), np.uint8)])
    >>> tl.shape(), tl.dtype
    ([(2, 3), (4, 3)], <DALIDataType.UINT8: 0>)
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._dtypes import dali_dtype, np_dtype, type_name
from dali._tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU, order_after
from dali._tensors.base import aligned_copy, aligned_empty

__all__ = [
    "OutputHistory",
    "batch_size_of",
    "holds_device_data",
    "host_array",
    "host_batch",
    "is_device_data",
    "make_batch",
    "sample_array",
]

_DLPACK_CUDA = 2  # kDLCUDA
_DLPACK_CUDA_MANAGED = 13  # kDLCUDAManaged


def is_device_data(x: Any) -> bool:
    """Whether ``x`` lives in GPU memory (checked without importing any framework)."""
    if isinstance(x, (np.ndarray, np.generic, TensorCPU, TensorListCPU)):
        return False
    if isinstance(x, (TensorGPU, TensorListGPU)):
        return True
    if type(x).__module__.startswith("cupy"):
        return True
    try:
        # A CPU torch tensor raises AttributeError here, so hasattr is False for it.
        if hasattr(x, "__cuda_array_interface__"):
            return True
    except Exception:  # noqa: BLE001 - an odd property must not break the type sniffing
        return False
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        try:
            return int(dev()[0]) in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED)
        except Exception:  # noqa: BLE001 - not a usable DLPack object: treat as host data
            return False
    return False


def holds_device_data(data: Any) -> bool:
    """Whether user data (a batch, or a list of samples) has any part in GPU memory."""
    if isinstance(data, (list, tuple)):
        return any(is_device_data(x) for x in data)
    return is_device_data(data)


def _checked(arr: Any, what: str) -> Any:
    """Reject element types DALI cannot hold; make the byte order native."""
    dtype = arr.dtype
    try:
        dali_dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{what} has elements of type {dtype}, which DALI cannot hold; expected bool, "
            f"int8/16/32/64, uint8/16/32/64, float16, float32 or float64 data."
        ) from None
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr


def host_array(x: Any, what: str = "The data") -> np.ndarray:
    """``x`` (a sample or a dense batch) as a numpy array, sharing memory where possible."""
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, TensorCPU):
        arr = np.asarray(x)
    elif is_device_data(x):
        arr = _device_array(x, what).get()  # synchronize!
    elif (
        isinstance(x, (numbers.Number, np.generic))
        or hasattr(x, "__array_interface__")
        or hasattr(x, "__array__")
    ):
        arr = np.asarray(x)
    elif hasattr(x, "__dlpack__"):
        arr = np.from_dlpack(x)
    elif isinstance(x, (str, bytes, dict, set)) or x is None:
        raise TypeError(f"{what} is a {type(x).__name__}, not an array or a number.")
    else:
        arr = np.asarray(x)
    return _checked(arr, what)


def _device_array(x: Any, what: str) -> Any:
    """``x`` as a CuPy array on the current device (host data is copied there).

    Device data is shared, ordered before this thread's current stream (see the module doc).
    """
    import cupy

    if isinstance(x, cupy.ndarray):
        arr = x
    elif isinstance(x, TensorGPU):
        order_after(x)  # a pipeline's sample may still be computed: wait on the GPU
        arr = x.array
    elif is_device_data(x) and hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        arr = cupy.from_dlpack(x)  # hands the producer our current stream to order its work
    elif is_device_data(x):
        arr = cupy.asarray(x)  # __cuda_array_interface__: CuPy syncs on its "stream"
    else:
        arr = cupy.asarray(host_array(x, what))
    return _checked(arr, what)


def sample_array(x: Any, device: str, what: str = "The sample") -> Any:
    """One sample as a numpy (``device="cpu"``) or CuPy (``device="gpu"``) array."""
    return _device_array(x, what) if device == "gpu" else host_array(x, what)


def batch_size_of(data: Any) -> int:
    """The number of samples in user data, without converting it."""
    if isinstance(data, (list, tuple, TensorListCPU, TensorListGPU)):
        return len(data)
    shape = getattr(data, "shape", None)
    if callable(shape):
        shape = shape()
    if shape is None:
        shape = np.shape(data)
    return int(shape[0]) if len(shape) else 0


def host_batch(data: Any, what: str = "The batch") -> Any:
    """User data as host numpy: a dense array or a list of per-sample arrays (for pickling)."""
    if isinstance(data, (TensorListCPU, TensorListGPU)):
        tl = data.as_cpu()
        dense = tl.dense()
        return dense if dense is not None else list(tl.samples())
    if isinstance(data, (list, tuple)):
        return [host_array(x, f"{what}: sample {i}") for i, x in enumerate(data)]
    return host_array(data, what)


def _layout_of(data: Any) -> str:
    if isinstance(data, (TensorListCPU, TensorListGPU)):
        return data.layout()
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (TensorCPU, TensorGPU)):
        return data[0].layout()
    return ""


def make_batch(
    data: Any,
    *,
    device: str = "cpu",
    layout: str | None = None,
    copy: bool = True,
    dtype: Any = None,
    ndim: int | None = None,
    what: str = "The batch",
) -> Any:
    """Build a TensorList on ``device`` from user data.

    Args:
        data: A TensorList, a dense batch-first array or a list/tuple of samples (see module doc).
        device: ``"cpu"`` (a ``TensorListCPU``) or ``"gpu"`` (a ``TensorListGPU``).
        layout: The layout to set; None keeps the layout of TensorList/Tensor data (else ``""``).
        copy: Copy the data even where it could be shared (DALI copies fed data).
        dtype: Element type of an empty batch (there is no sample to take it from).
        ndim: Number of dimensions of an empty batch.
        what: How to call the data in error messages.

    Returns:
        A ``TensorListCPU`` or ``TensorListGPU``; the layout is not checked against the data.

    Raises:
        TypeError: For data that is not array-like, unsupported element types, or samples of
            different dtypes.
        ValueError: For samples with different numbers of dimensions or a 0-d dense batch.
    """
    out_layout = _layout_of(data) if layout is None else layout
    gpu = device == "gpu"
    if gpu and not holds_device_data(data):
        from dali._ops.transfer import to_gpu

        # Host data for the GPU: the host batch (shared), then one staged copy, which is also
        # the copy that lets the caller reuse its buffers.
        host = make_batch(
            data, device="cpu", layout=out_layout, copy=False, dtype=dtype, ndim=ndim, what=what
        )
        return to_gpu(host)
    convert = _device_array if gpu else host_array
    if isinstance(data, TensorListGPU):
        order_after(data)  # a pipeline's batch may still be computed
    if isinstance(data, (TensorListCPU, TensorListGPU)):
        dense = data.dense()
        items: Any = dense if dense is not None else list(data.samples())
    else:
        items = data
    if isinstance(items, (list, tuple)):
        samples = [convert(x, f"{what}: sample {i}") for i, x in enumerate(items)]
        return _from_samples(samples, out_layout, gpu, copy, dtype, ndim, what)
    arr = convert(items, what)
    if arr.ndim == 0:
        raise ValueError(
            f"{what} is a 0-dimensional array; a batch needs a leading batch axis (return a "
            f"list of samples, or an array of shape (batch_size, ...))."
        )
    if copy and is_device_data(items) == gpu:  # a copy between devices is already fresh
        arr = arr.copy() if gpu else aligned_copy(arr)  # C-contiguous
    else:
        arr = _contiguous(arr)
    cls = TensorListGPU if gpu else TensorListCPU
    return cls.wrap(arr, out_layout)


def _contiguous(arr: Any) -> Any:
    # Not `ascontiguousarray`: it turns a 0-d sample into a 1-d one.
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _xp(gpu: bool) -> Any:
    if gpu:
        import cupy

        return cupy
    return np


def _from_samples(
    samples: Sequence[Any],
    layout: str,
    gpu: bool,
    copy: bool,
    dtype: Any,
    ndim: int | None,
    what: str,
) -> Any:
    cls = TensorListGPU if gpu else TensorListCPU
    if not samples:
        empty_dtype = np_dtype(dtype) if dtype is not None else None
        return cls.wrap([], layout, dtype=empty_dtype, ndim=ndim)
    first = samples[0]
    for i, s in enumerate(samples):
        if s.dtype != first.dtype:
            raise TypeError(
                f"{what}: samples cannot have different data types. Sample {i} has type "
                f"'{type_name(s.dtype)}', expected '{type_name(first.dtype)}' (the type of "
                f"sample 0)."
            )
        if s.ndim != first.ndim:
            raise ValueError(
                f"{what}: all tensors in a batch must have the same number of dimensions. "
                f"Sample {i} has {s.ndim} dimensions, sample 0 has {first.ndim}."
            )
    xp = _xp(gpu)
    if all(s.shape == first.shape for s in samples):
        if copy or len(samples) == 1:
            # One stacked copy: contiguous, and later changes to the user's arrays don't show
            # (on the host 64-byte aligned, as the pipeline's outputs are: `host_aligned`)
            if gpu:
                return cls.wrap(xp.stack(samples), layout)
            stacked = aligned_empty((len(samples), *first.shape), first.dtype)
            np.stack(samples, out=stacked)
            return cls.wrap(stacked, layout)
        return cls.wrap([_contiguous(s) for s in samples], layout)
    if copy:
        return cls.wrap([s.copy() for s in samples], layout)
    return cls.wrap([_contiguous(s) for s in samples], layout)


class OutputHistory:
    """What one output of a source has been so far, which every later batch must keep.

    DALI (``ExternalSource::ValidateInputData``) fixes the type and the number of dimensions
    of a source's output with its first batch, and its layout with the first batch that has
    one: a later batch that differs is an error, for the pipeline's life (`Pipeline.reset`
    does not forget it). Empty batches say nothing and are not recorded.

    Example:
        >>> h = OutputHistory()
        >>> h.change(make_batch([np.zeros(2, np.float32)])) is None
        True
        >>> print(h.change(make_batch([np.zeros(2, np.int32)])))  # doctest: +NORMALIZE_WHITESPACE
        Type of the data fed to the external source has changed from the previous iteration.
        Type in the previous iteration was float and the current type is int32.
    """

    __slots__ = ("dtype", "layout", "ndim")

    def __init__(self) -> None:
        self.dtype: Any = None
        self.ndim: int | None = None
        self.layout = ""

    def change(self, batch: Any) -> str | None:
        """Record ``batch`` (a TensorList); DALI's message if it differs from the earlier ones.

        A batch that differs is not recorded: the first batch's properties stay the source's.
        """
        if len(batch) == 0:
            return None
        dtype, ndim, layout = batch.dtype, batch.sample_ndim, batch.layout()
        if self.dtype is not None and dtype != self.dtype:
            return (
                "Type of the data fed to the external source has changed from the previous "
                f"iteration. Type in the previous iteration was {type_name(self.dtype)} and the "
                f"current type is {type_name(dtype)}."
            )
        if self.ndim is not None and ndim != self.ndim:
            return (
                "Number of dimensions of the data fed to the external source has changed from "
                f"previous iteration. Dimensionality in the previous iteration was {self.ndim} "
                f"and the current is {ndim}."
            )
        if self.layout and layout != self.layout:
            return (
                "Layout of the data fed to the external source has changed from previous "
                f'iteration. Layout in the previous iteration was "{self.layout}" and the '
                f'current is "{layout}".'
            )
        self.dtype, self.ndim = dtype, ndim
        self.layout = layout or self.layout
        return None
