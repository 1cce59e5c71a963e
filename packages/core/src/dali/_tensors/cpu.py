"""Samples and batches in host memory: `TensorCPU` and `TensorListCPU` (numpy arrays)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._tensors.base import (
    _DLPACK_CPU,
    _DLPACK_CUDA_HOST,
    NotDenseError,
    _check_layout,
    _ptr_value,
    _supported,
    _TensorBase,
    _TensorListBase,
    split_flat,
)
from dali._tensors.construct import init_batch

if TYPE_CHECKING:
    from types import ModuleType

    from dali._tensors.gpu import TensorGPU, TensorListGPU

__all__ = ["TensorCPU", "TensorListCPU"]


def _host_array(obj: Any) -> np.ndarray:
    """View ``obj`` as a C-contiguous numpy array, sharing its memory where possible."""
    if isinstance(obj, TensorCPU):
        return obj._array
    if isinstance(obj, np.ndarray):
        arr = obj
    elif hasattr(obj, "__array_interface__"):
        arr = np.asarray(obj)
    elif hasattr(obj, "__dlpack__"):  # torch / jax CPU tensors, without importing them
        device = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else _DLPACK_CPU
        if int(device) not in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
            raise TypeError("DLPack device type doesn't match Tensor type (expected CPU memory).")
        arr = np.from_dlpack(obj)
    elif hasattr(obj, "__cuda_array_interface__"):
        raise TypeError(
            f"{type(obj).__name__} lives in GPU memory; wrap it in a TensorGPU / TensorListGPU."
        )
    else:
        arr = np.asarray(obj)
    arr = _supported(arr)
    return arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)


class TensorCPU(_TensorBase):
    """One tensor in host memory: a sample of a :class:`TensorListCPU`, or user data.

    ``np.array(t)`` works (``__array_interface__``), as does DLPack (``np.from_dlpack(t)``,
    ``torch.from_dlpack(t)``).

    Args:
        data: A numpy array or anything with ``__array_interface__`` or CPU ``__dlpack__``
            (torch and jax CPU tensors); its memory is shared when it is C-contiguous.
        layout: The layout string, one letter per dimension, or None/``''``.

    Raises:
        TypeError: For GPU data or unsupported element types.
        ValueError: If the layout does not match the number of dimensions.

    Example:
        >>> t = TensorCPU(np.ones((2, 3), np.float32), "HW")
        >>> t.shape(), t.dtype, t.layout(), float(np.array(t).sum())
        ([2, 3], <DALIDataType.FLOAT: 9>, 'HW', 6.0)
    """

    __slots__ = ()
    _device = "cpu"

    def __init__(self, data: Any, layout: str | None = None) -> None:
        self._array = _host_array(data)
        self._source_info = data._source_info if isinstance(data, TensorCPU) else ""
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def _host(self) -> np.ndarray:
        return self._array

    def _contiguous(self) -> np.ndarray:
        if not self._array.flags.c_contiguous:
            self._array = np.ascontiguousarray(self._array)
        return self._array

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self._array.__array_interface__

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self._array
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, stream: Any = None, dl_device: Any = None, **kwargs: Any) -> Any:
        if stream not in (None, -1):
            raise BufferError("A CPU tensor cannot be exported on a CUDA stream.")
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        arr = self._contiguous()
        try:
            return arr.__dlpack__(**kwargs)
        except BufferError:
            # Older numpy refuses read-only arrays (constants are read-only); export a copy.
            return np.array(arr).__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_DLPACK_CPU, 0)

    def as_cpu(self) -> TensorCPU:
        """Return self: the data is already in host memory."""
        return self

    def to_gpu(self) -> TensorGPU:
        """A copy of the tensor in GPU memory, on the current CUDA device and stream."""
        import cupy

        from dali._tensors.gpu import TensorGPU

        return TensorGPU.wrap(cupy.asarray(self._array), self._layout, self._source_info)

    _as_gpu = to_gpu  # DALI's name

    def data_ptr(self) -> int:
        """The address of the first element."""
        return int(self._contiguous().ctypes.data)

    def copy_to_external(self, ptr: Any) -> None:
        """Copy the data to host memory at ``ptr`` (a ``ctypes.c_void_p`` or an int)."""
        arr = self._contiguous()
        if arr.nbytes:
            ctypes.memmove(_ptr_value(ptr), arr.ctypes.data, arr.nbytes)


class TensorListCPU(_TensorListBase):
    """A batch of samples in host memory: what a CPU pipeline output is.

    Args:
        data: A numpy array (or anything with ``__array_interface__`` / CPU ``__dlpack__``)
            whose first axis is the batch axis (memory is shared when C-contiguous), a list of
            arrays or TensorCPU (copied; shapes may differ), or another TensorListCPU (shared).
        layout: The layout of each sample, or None (``''``; for a TensorListCPU source, keep
            its layout).

    Raises:
        TypeError: If the samples have different dtypes or numbers of dimensions (the error is
            also a ValueError), or for unsupported element types.
        ValueError: If the layout does not have one letter per sample dimension.
        RuntimeError: For a 0-d array.

    Example:
        >>> tl = TensorListCPU([np.zeros((2, 3)), np.ones((4, 3))], "HW")
        >>> tl.shape(), tl.is_dense_tensor(), float(tl.at(1).sum())
        ([(2, 3), (4, 3)], False, 12.0)
    """

    __slots__ = ()
    _device = "cpu"
    _tensor_type = TensorCPU

    def __init__(self, data: Any, layout: str | None = None) -> None:
        init_batch(self, data, layout, TensorListCPU, _host_array, "CPU")

    @classmethod
    def _xp(cls) -> ModuleType:
        return np

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        samples = self.samples()
        return [samples[i] for i in indices]

    @staticmethod
    def broadcast(sample: Any, num_samples: int) -> TensorListCPU:
        """A batch of ``num_samples`` samples that all share the memory of ``sample``."""
        t = sample if isinstance(sample, TensorCPU) else TensorCPU(sample)
        return TensorListCPU.wrap([t._array] * int(num_samples), t._layout)

    @classmethod
    def from_dlpack_list(cls, tensors: Sequence[Any], layout: str | None = None) -> TensorListCPU:
        """A batch made from a list of CPU DLPack-capable objects (torch/jax tensors...)."""
        return cls([np.from_dlpack(t) for t in tensors], layout)

    def at(self, i: int) -> np.ndarray:
        """Sample ``i`` as a numpy array (a view of the batch's memory)."""
        return self.samples()[self._index(i)]

    def as_array(self) -> np.ndarray:
        """The batch as one numpy array of shape ``(batch, *sample_shape)`` (shares memory).

        Raises:
            RuntimeError: If the samples do not all have the same shape.
        """
        dense = self.dense()
        if dense is None:
            shapes = self.shape()
            raise NotDenseError(
                'Assert on "tl.IsDenseTensor()" failed: Cannot produce a numpy array: the tensors '
                "in the list do not all have the same shape. Got shapes "
                f"{shapes[:4]}{' ...' if len(shapes) > 4 else ''}. Use `at(i)` or `tl[i]` to get "
                "the samples one by one."
            )
        return dense

    def as_cpu(self) -> TensorListCPU:
        """Return self: the batch is already in host memory."""
        return self

    def to_gpu(self) -> TensorListGPU:
        """A copy of the batch in GPU memory (one host-to-device copy), on the current CUDA
        device and stream."""
        import cupy

        from dali._tensors.gpu import TensorListGPU

        dense = self.dense()
        if dense is not None:
            return TensorListGPU.wrap(cupy.asarray(dense), self._layout, self._source_info)
        flat = cupy.asarray(self._contiguous_flat())  # one host-to-device copy
        samples = split_flat(flat, self.shape())
        return TensorListGPU.wrap(samples, self._layout, self._source_info)

    _as_gpu = to_gpu  # DALI's name

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self.as_array().__array_interface__

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.as_array()  # a ragged batch raises here, with DALI's message
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, stream: Any = None, dl_device: Any = None, **kwargs: Any) -> Any:
        return self.as_tensor().__dlpack__(stream, dl_device, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_DLPACK_CPU, 0)

    def data_ptr(self) -> int:
        """The address of the first element (the samples are made contiguous first)."""
        flat = self._contiguous_flat()
        return int(flat.ctypes.data) if flat.size else 0

    def copy_to_external(self, ptr: Any) -> None:
        """Copy all samples, back to back, to host memory at ``ptr`` (``ctypes.c_void_p``)."""
        flat = self._contiguous_flat()
        if flat.nbytes:
            ctypes.memmove(_ptr_value(ptr), flat.ctypes.data, flat.nbytes)
