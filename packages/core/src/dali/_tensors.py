"""Batches and samples: TensorListCPU/GPU and TensorCPU/GPU (DALI §1.5).

A *batch* (TensorList) is a list of samples of one dtype and one number of dimensions, ragged
shapes allowed. It is stored in one of two ways, chosen by whoever made it:

* **dense**: one array of shape ``(batch, *sample_shape)``, so operators can vectorise;
* **list**: one array per sample (ragged, or uniform but produced sample by sample).

Either view is derived lazily from the other and cached: ``_dense()`` stacks a uniform list
once, ``_samples()`` slices a dense array into per-sample views. CPU batches hold numpy arrays
and GPU batches CuPy arrays; CuPy is imported only when a GPU batch is touched.

GPU batches made by a pipeline may still be computed when you get them: they carry the CUDA
event recorded after the pipeline's last GPU work (``_event``; see `dali._exec.device`), and
every way of reaching the data waits for it. DLPack (``__dlpack__(stream=s)``) makes the
consumer's stream ``s`` wait, and ``__cuda_array_interface__`` makes the reading thread's current
stream wait and names it in its ``"stream"`` key (CAI v3), both on the GPU. Reading the data on
the host (``as_cpu()``, printing) waits on the host, and so does ``data_ptr()``, because a raw
pointer carries no stream (each marked ``# synchronize!``). Samples (``tl[i]``), ``as_tensor()``
and batches made from a batch carry the same event.

The public methods copy DALI's (``tl.shape()`` is a method, ``tl.dtype`` a property,
``TensorListCPU.at`` gives numpy while ``TensorListGPU.at`` gives a TensorGPU, ...). The
executor and the operators use a small fast API instead, with no validation and no copies::

    TensorListCPU._make(data, layout="", source_info=None, *, dtype=None, ndim=None)
    tl._dense()        # (B, *sample_shape) array, or None when ragged
    tl._samples()      # list of per-sample arrays
    tl._np_dtype       # numpy dtype
    tl._layout         # str
    tl._source_info    # list[str] | None

Example:
    >>> import numpy as np
    >>> tl = TensorListCPU(np.zeros((2, 3, 4), np.uint8), "HW")
    >>> len(tl), tl.shape(), tl.dtype, tl.layout()
    (2, [(3, 4), (3, 4)], <DALIDataType.UINT8: 0>, 'HW')
    >>> tl.at(0).shape, tl[1].shape()
    ((3, 4), [3, 4])
"""

from __future__ import annotations

import ctypes
import math
import operator
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali._dtypes import _DALI_BY_KIND, DALIDataType, TensorLayout, np_dtype, type_name

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["TensorCPU", "TensorGPU", "TensorListCPU", "TensorListGPU"]

_FLOAT32 = np.dtype(np.float32)
_DLPACK_CPU = 1  # kDLCPU
_DLPACK_CUDA = 2  # kDLCUDA
_DLPACK_CUDA_HOST = 3  # kDLCUDAHost (pinned memory, readable from the CPU)


class _Ndim(int):
    """A sample's number of dimensions that also works when called.

    DALI 2.4 was observed to expose ``ndim`` as a property while later sources define it as a
    method; an int that can be called returns the same number either way.
    """

    __slots__ = ()

    def __call__(self) -> int:
        return int(self)


class NotDenseError(RuntimeError, AttributeError):
    """A ragged batch was asked for something only a uniform batch has.

    It is a RuntimeError, as in DALI, and also an AttributeError so that
    ``hasattr(ragged_batch, "__array_interface__")`` is simply False.
    """


class BatchMismatchError(TypeError, ValueError):
    """Samples of one batch disagree in dtype or number of dimensions.

    DALI raises TypeError for these; deriving from ValueError too lets callers catch either.
    """


def _dali_type(dtype: np.dtype[Any]) -> DALIDataType:
    found = _DALI_BY_KIND.get((dtype.kind, dtype.itemsize))
    if found is None:
        raise TypeError(f"Data type {dtype} is not supported by DALI.")
    return found


def _check_layout(layout: Any, ndim: int, what: str) -> str:
    """DALI's SetLayout: an empty/None layout clears; a non-empty one must match ``ndim``."""
    if layout is None:
        return ""
    if not isinstance(layout, str):
        if not isinstance(layout, TensorLayout):
            raise TypeError(f"`layout` must be a string or None, got {type(layout).__name__}.")
        layout = str(layout)
    if layout and len(layout) != ndim:
        raise ValueError(
            "A non-empty layout must have the same number of dimensions as the number of "
            f"dimensions of the {what}.\nGot: {len(layout)} ({layout})\nExpected: {ndim}."
        )
    return layout


def _ptr_value(ptr: Any) -> int:
    """The address in a ``ctypes.c_void_p`` (what DALI takes) or a plain int."""
    value = getattr(ptr, "value", ptr)
    if value is None:
        raise ValueError("The destination pointer must not be null.")
    return int(value)


def _supported(arr: Any) -> Any:
    """Reject element types DALI cannot hold; make byte order native."""
    dtype = arr.dtype
    if (dtype.kind, dtype.itemsize) not in _DALI_BY_KIND:
        raise TypeError(
            f"Data type {dtype} is not supported by DALI; expected bool, int8/16/32/64, "
            "uint8/16/32/64, float16, float32 or float64."
        )
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr


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


def _order_after(obj: Any, stream: int | None = None, keep: Any = None) -> None:
    """Make a stream wait, on the GPU, for the pipeline work that produces ``obj``.

    The stream is also recorded as a consumer of the output's memory (`dali._exec.device`), so
    the memory is reused only after the work queued on it has completed.

    Args:
        obj: A TensorGPU / TensorListGPU (anything else, or data without an event: no-op).
        stream: A ``cudaStream_t`` (1: the legacy default stream); None for this thread's
            current CuPy stream.
        keep: The stream object behind ``stream``, kept alive until the memory is released.
    """
    event = getattr(obj, "_event", None)
    if event is None:
        return
    import cupy

    current = cupy.cuda.get_current_stream()
    if stream is None or int(stream) == current.ptr:
        current.wait_event(event)
        ptr, keep = current.ptr, current
    else:
        ptr = int(stream)
        cupy.cuda.runtime.streamWaitEvent(ptr, event.ptr, 0)
    # The stream may now read the data: the output's memory must outlive its queued work.
    lease = getattr(getattr(getattr(_some_array(obj), "data", None), "mem", None), "_owner", None)
    if hasattr(lease, "add_consumer"):
        lease.add_consumer(ptr, keep)


def _some_array(obj: Any) -> Any:
    """One of the arrays holding a tensor's or a batch's data (None for an empty batch)."""
    if isinstance(obj, _TensorBase):
        return obj._array
    if obj._dense_arr is not None:
        return obj._dense_arr
    if obj._flat_buf is not None:
        return obj._flat_buf
    return obj._sample_list[0] if obj._sample_list else None


def _wait_host(obj: Any) -> None:
    """Block the calling thread until the pipeline work that produces ``obj`` is done."""
    event = getattr(obj, "_event", None)
    if event is not None:
        event.synchronize()  # synchronize!


def _to_host(arr: Any) -> np.ndarray:
    """Copy a CuPy array to numpy on this thread's current stream (after `_order_after`)."""
    import cupy

    return cupy.asnumpy(arr, stream=cupy.cuda.get_current_stream())  # synchronize!


def _export_dlpack(t: Any, arr: Any, stream: Any, dl_device: Any, kwargs: dict[str, Any]) -> Any:
    """DLPack export of ``arr`` (the data of ``t``), ordered for the consumer's ``stream``."""
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if getattr(t, "_event", None) is None or not arr.flags.c_contiguous:
        # No pipeline event, or a contiguous copy made on our current stream: CuPy orders the
        # consumer's stream after our current stream itself.
        return arr.__dlpack__(stream=stream, **kwargs)
    if dl_device is not None and int(dl_device[0]) != _DLPACK_CUDA:
        _order_after(t)  # a copy to the host, made by CuPy on our current stream
        return arr.__dlpack__(stream=None, **kwargs)
    if stream != -1:  # -1: the consumer asks for no synchronisation
        _order_after(t, 1 if stream is None else stream)  # None: the legacy default stream
    return arr.__dlpack__(stream=-1, **kwargs)


def _device_array(obj: Any) -> Any:
    """View ``obj`` as a C-contiguous CuPy array, sharing its memory where possible."""
    import cupy

    if isinstance(obj, TensorGPU):
        _order_after(obj)  # it may still be computed by a pipeline
        return obj._array
    if isinstance(obj, cupy.ndarray):
        arr = obj
    elif hasattr(obj, "__cuda_array_interface__"):
        arr = cupy.asarray(obj)
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        if int(obj.__dlpack_device__()[0]) != _DLPACK_CUDA:
            raise RuntimeError("DLPack device type doesn't match Tensor type")
        arr = cupy.from_dlpack(obj)
    else:
        raise RuntimeError("Provided object doesn't support cuda array interface protocol.")
    arr = _supported(arr)
    return arr if arr.flags.c_contiguous else cupy.ascontiguousarray(arr)


def _split_flat(flat: Any, shapes: Sequence[tuple[int, ...]]) -> list[Any]:
    """Per-sample views into a flat buffer holding the samples back to back."""
    views = []
    offset = 0
    for shape in shapes:
        n = math.prod(shape)
        views.append(flat[offset : offset + n].reshape(shape))
        offset += n
    return views


# --------------------------------------------------------------------------------------------
# Printing (DALI's _tensor_formatting: the data, then dtype, layout, device, shape)
# --------------------------------------------------------------------------------------------

_INDENT = " " * 4
_EDGE = 2


def _join(items: list[str], sep: str, crop: bool) -> str:
    if crop and len(items) > 2 * _EDGE + 1:
        items = items[:_EDGE] + ["..."] + items[-_EDGE:]
    return sep.join(items)


def _format_tensor(t: _TensorBase, show_data: bool) -> str:
    params = []
    if show_data:
        params.append(np.array2string(t._host(), prefix=_INDENT, edgeitems=_EDGE))
    params.append(f"dtype={t.dtype}")
    if t._layout:
        params.append(f'layout="{t._layout}"')
    params += [f'device="{t._device}"', f"shape={tuple(t._array.shape)})"]
    return f"{type(t).__name__}(\n{_INDENT}" + f",\n{_INDENT}".join(params)


def _format_batch(tl: _TensorListBase, show_data: bool) -> str:
    shapes = tl.shape()
    n = len(shapes)
    params = []
    if show_data:
        data_str = "[]"
        if n:
            # Print only the first and last samples when there are many large ones.
            crop = n > 2 * _EDGE + 1 and sum(max(math.prod(s), 1) for s in shapes) > 1000
            indices = [*range(_EDGE), *range(n - _EDGE, n)] if crop else range(n)
            arrays = tl._host_samples(indices)
            ndim = arrays[0].ndim
            sep = ", " if ndim == 0 else ",\n" + "\n" * (ndim - 1) + _INDENT
            strs = [np.array2string(a, prefix=_INDENT, edgeitems=_EDGE) for a in arrays]
            if crop:
                strs = strs[:_EDGE] + ["..."] + strs[_EDGE:]
            data_str = f"[{sep.join(strs)}]"
        params.append(data_str)
    shape_crop = n > 16 or (n > 2 * _EDGE + 1 and n * len(shapes[0]) > 100)
    shape_strs = [str(s) for s in shapes]
    shape_str = _join(shape_strs, ", ", shape_crop)
    if len(shape_str) > 75:  # one shape per line
        shape_str = _join(shape_strs, ", \n" + _INDENT + " " * len("shape=["), shape_crop)
    params.append(f"dtype={tl.dtype}")
    if tl._layout:
        params.append(f'layout="{tl._layout}"')
    params += [f'device="{tl._device}"', f"num_samples={n}", f"shape=[{shape_str}])"]
    return f"{type(tl).__name__}(\n{_INDENT}" + f",\n{_INDENT}".join(params)


# --------------------------------------------------------------------------------------------
# Samples
# --------------------------------------------------------------------------------------------


class _TensorBase:
    """What TensorCPU and TensorGPU share: one array, a layout and a source description."""

    __slots__ = ("__weakref__", "_array", "_layout", "_source_info")

    _device: ClassVar[str]

    _array: Any
    _layout: str
    _source_info: str

    @classmethod
    def _wrap(cls, array: Any, layout: str = "", source_info: str = "") -> Any:
        """Wrap ``array`` as is (internal: no validation, no copy)."""
        t = object.__new__(cls)
        t._array = array
        t._layout = layout
        t._source_info = source_info
        return t

    def _host(self) -> np.ndarray:
        raise NotImplementedError

    def shape(self) -> list[int]:
        """The shape of the tensor, as a list (DALI: ``[40, 60, 3]``)."""
        return list(self._array.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions (an int that may also be called, as in later DALI)."""
        return _Ndim(self._array.ndim)

    @property
    def dtype(self) -> DALIDataType:
        """The element type, a :class:`~dali.types.DALIDataType`."""
        return _dali_type(self._array.dtype)

    def layout(self) -> str:
        """The layout string, ``''`` when there is none."""
        return self._layout

    def set_layout(self, layout: str | None) -> None:
        """Set the layout; None or ``''`` clears it.

        Raises:
            ValueError: If a non-empty layout does not have one letter per dimension.
        """
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def source_info(self) -> str:
        """Where the data came from (e.g. the file path a reader loaded it from), or ``''``."""
        return self._source_info

    def get_property(self, key: str) -> str | None:
        """``"layout"`` or ``"source_info"`` (None when empty); any other key gives None."""
        if key == "layout":
            return self._layout or None
        if key == "source_info":
            return self._source_info or None
        return None

    def squeeze(self, dim: int | None = None) -> bool:
        """Remove extents of size 1 in place (only ``dim`` when given), with their layout letters.

        Returns:
            True if the shape changed.

        Raises:
            RuntimeError: If ``dim`` is out of range.
        """
        shape = self._array.shape
        if dim is None:
            keep = [d for d, extent in enumerate(shape) if extent != 1]
        else:
            ndim = len(shape)
            if not -ndim <= dim < ndim:
                raise RuntimeError(
                    f"axis {dim} is out of bound for a tensor with {ndim} dimensions."
                )
            dim %= ndim
            if shape[dim] != 1:
                return False
            keep = [d for d in range(ndim) if d != dim]
        if len(keep) == len(shape):
            return False
        self._array = self._array.reshape(tuple(shape[d] for d in keep))
        if self._layout:
            self._layout = "".join(self._layout[d] for d in keep)
        return True

    def __str__(self) -> str:
        return _format_tensor(self, show_data=True)

    def __repr__(self) -> str:
        return _format_tensor(self, show_data=False)


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

    def _as_gpu(self) -> TensorGPU:
        import cupy

        return TensorGPU._wrap(cupy.asarray(self._array), self._layout, self._source_info)

    def data_ptr(self) -> int:
        """The address of the first element."""
        return int(self._contiguous().ctypes.data)

    def copy_to_external(self, ptr: Any) -> None:
        """Copy the data to host memory at ``ptr`` (a ``ctypes.c_void_p`` or an int)."""
        arr = self._contiguous()
        if arr.nbytes:
            ctypes.memmove(_ptr_value(ptr), arr.ctypes.data, arr.nbytes)


class TensorGPU(_TensorBase):
    """One tensor in GPU memory (a CuPy array): a sample of a :class:`TensorListGPU`.

    It exposes ``__cuda_array_interface__`` and DLPack, so ``cupy.asarray(t)`` and
    ``torch.from_dlpack(t)`` share its memory.

    Args:
        data: Anything with ``__cuda_array_interface__`` or CUDA ``__dlpack__`` (CuPy, torch,
            jax GPU arrays); its memory is shared when it is C-contiguous.
        layout: The layout string, or None/``''``.
        device_id: Ignored (the data's own device is used); kept for compatibility.

    Raises:
        RuntimeError: If ``data`` is not GPU data.
    """

    __slots__ = ("_event",)
    _device = "gpu"

    def __init__(self, data: Any, layout: str | None = None, device_id: int = -1) -> None:
        self._array = _device_array(data)
        self._source_info = data._source_info if isinstance(data, TensorGPU) else ""
        self._event = getattr(data, "_event", None) if isinstance(data, TensorGPU) else None
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def _host(self) -> np.ndarray:
        _order_after(self)
        return _to_host(self._array)  # synchronize!

    def _contiguous(self) -> Any:
        if not self._array.flags.c_contiguous:
            import cupy

            _order_after(self)
            self._array = cupy.ascontiguousarray(self._array)
        return self._array

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CAI v3; its ``"stream"`` is this thread's current stream, made to wait for the data."""
        _order_after(self)
        return self._array.__cuda_array_interface__

    def __dlpack__(self, stream: Any = None, dl_device: Any = None, **kwargs: Any) -> Any:
        """DLPack export; the consumer's ``stream`` waits for the data on the GPU."""
        return _export_dlpack(self, self._contiguous(), stream, dl_device, kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_DLPACK_CUDA, int(self._array.device.id))

    def device_id(self) -> int:
        """The CUDA device the data lives on."""
        return int(self._array.device.id)

    @property
    def stream(self) -> None:
        """None: pipeline data is ordered by an event, which DLPack and CAI consumers wait on."""
        return None

    def as_cpu(self) -> TensorCPU:
        """Copy the data to host memory (waits for the GPU)."""
        return TensorCPU._wrap(self._host(), self._layout, self._source_info)

    def data_ptr(self) -> int:
        """The device address of the first element (waits on the host until it is computed)."""
        _wait_host(self)  # synchronize! (a raw pointer carries no stream)
        return int(self._contiguous().data.ptr)

    def copy_to_external(
        self,
        ptr: Any,
        cuda_stream: Any = None,
        non_blocking: bool = False,
        use_copy_kernel: bool = False,
    ) -> None:
        """Copy the data to GPU memory at ``ptr``, on ``cuda_stream`` when given."""
        _gpu_copy(self, self._contiguous(), ptr, cuda_stream, non_blocking)


def _gpu_copy(owner: Any, src: Any, ptr: Any, cuda_stream: Any, non_blocking: bool) -> None:
    import cupy

    if not src.nbytes:
        return
    runtime = cupy.cuda.runtime
    dst = _ptr_value(ptr)
    if cuda_stream is None:
        _wait_host(owner)  # synchronize! (cudaMemcpy runs on the legacy stream)
        runtime.memcpy(dst, src.data.ptr, src.nbytes, runtime.memcpyDefault)  # synchronize!
        return
    stream = _ptr_value(cuda_stream)
    _order_after(owner, stream)
    runtime.memcpyAsync(dst, src.data.ptr, src.nbytes, runtime.memcpyDefault, stream)
    if not non_blocking:
        runtime.streamSynchronize(stream)  # synchronize!


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------


class _TensorListBase:
    """What TensorListCPU and TensorListGPU share; the array module is numpy or CuPy."""

    __slots__ = (
        "__weakref__",
        "_dense_arr",
        "_flat_buf",
        "_layout",
        "_ndim",
        "_np_dtype",
        "_sample_list",
        "_source_info",
    )

    _device: ClassVar[str]
    _tensor_type: ClassVar[type[_TensorBase]]

    _dense_arr: Any
    _sample_list: list[Any] | None
    _flat_buf: Any
    _np_dtype: np.dtype[Any]
    _ndim: int
    _layout: str
    _source_info: list[str] | None

    # -- internal fast API -------------------------------------------------------------------

    @classmethod
    def _make(
        cls,
        data: Any,
        layout: str | None = "",
        source_info: list[str] | None = None,
        *,
        dtype: Any = None,
        ndim: int | None = None,
    ) -> Any:
        """Wrap a dense array (batch axis first) or a list of per-sample arrays, as is.

        Internal: no validation, no copy. ``dtype`` and ``ndim`` are used only when ``data``
        is an empty list (an empty batch has no sample to take them from).
        """
        tl = object.__new__(cls)
        if isinstance(data, (list, tuple)):
            tl._dense_arr = None
            tl._sample_list = data if isinstance(data, list) else list(data)
            if data:
                tl._np_dtype = data[0].dtype
                tl._ndim = data[0].ndim
            else:
                tl._np_dtype = _FLOAT32 if dtype is None else np_dtype(dtype)
                tl._ndim = ndim or 0
        else:
            tl._dense_arr = data
            tl._sample_list = None
            tl._np_dtype = data.dtype
            tl._ndim = data.ndim - 1
        tl._flat_buf = None
        tl._layout = layout or ""
        tl._source_info = source_info
        return tl

    @classmethod
    def _xp(cls) -> ModuleType:
        raise NotImplementedError

    def _dense(self) -> Any:
        """The batch as one ``(B, *sample_shape)`` array, or None when the shapes differ.

        A uniform list of samples is stacked once (a copy) and the samples then become views
        into the stacked array.
        """
        dense = self._dense_arr
        if dense is not None:
            return dense
        samples = self._sample_list
        xp = self._xp()
        if not samples:
            dense = xp.empty((0,) + (0,) * self._ndim, dtype=self._np_dtype)
        else:
            shape = samples[0].shape
            for s in samples:
                if s.shape != shape:
                    return None
            flat = self._flat_buf
            if flat is not None:  # already back to back in memory: no copy
                dense = flat.reshape((len(samples), *shape))
            else:
                dense = xp.stack(samples)
        self._dense_arr = dense
        self._sample_list = None
        return dense

    def _samples(self) -> list[Any]:
        """The per-sample arrays (views into the dense array when there is one)."""
        samples = self._sample_list
        if samples is None:
            dense = self._dense_arr
            if dense.ndim == 1:  # iterating would give scalars, not 0-d arrays
                samples = [dense[i, ...] for i in range(dense.shape[0])]
            else:
                samples = list(dense)
            self._sample_list = samples
        return samples

    def _contiguous_flat(self) -> Any:
        """All samples back to back in one flat C-contiguous buffer (made once if needed)."""
        xp = self._xp()
        dense = self._dense()
        if dense is not None:
            if not dense.flags.c_contiguous:
                dense = xp.ascontiguousarray(dense)
                self._dense_arr = dense
                self._sample_list = None
            return dense.reshape(-1)
        if self._flat_buf is None:
            samples = self._sample_list
            assert samples is not None
            flat = xp.empty(sum(s.size for s in samples), dtype=self._np_dtype)
            views = _split_flat(flat, [s.shape for s in samples])
            for view, s in zip(views, samples):
                view[...] = s
            self._flat_buf = flat
            self._sample_list = views
        return self._flat_buf

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        raise NotImplementedError

    def _sample_tensor(self, i: int) -> Any:
        info = self._source_info
        return self._tensor_type._wrap(
            self._samples()[i], self._layout, info[i] if info is not None else ""
        )

    def _index(self, i: Any) -> int:
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(
                f"{type(self).__name__} indices must be integers, not {type(i).__name__}"
            ) from None
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            # DALI's message names TensorListCPU for GPU batches too.
            raise IndexError("TensorListCPU index out of range")
        return i

    # -- public API --------------------------------------------------------------------------

    def __len__(self) -> int:
        dense = self._dense_arr
        if dense is not None:
            return int(dense.shape[0])
        assert self._sample_list is not None
        return len(self._sample_list)

    def __getitem__(self, i: int) -> Any:
        return self._sample_tensor(self._index(i))

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self._sample_tensor(i)

    def shape(self) -> list[tuple[int, ...]]:
        """The shape of every sample, e.g. ``[(40, 60, 3), (41, 62, 3)]``."""
        dense = self._dense_arr
        if dense is not None:
            return [tuple(dense.shape[1:])] * int(dense.shape[0])
        assert self._sample_list is not None
        return [tuple(s.shape) for s in self._sample_list]

    @property
    def dtype(self) -> DALIDataType:
        """The element type, a :class:`~dali.types.DALIDataType`."""
        return _dali_type(self._np_dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions of each sample (an int that may also be called)."""
        return _Ndim(self._ndim)

    def layout(self) -> str:
        """The layout string, ``''`` when there is none."""
        return self._layout

    def set_layout(self, layout: str | None) -> None:
        """Set the layout; None or ``''`` clears it.

        Raises:
            ValueError: If a non-empty layout does not have one letter per sample dimension.
        """
        self._layout = _check_layout(layout, self._ndim, "TensorList")

    def is_dense_tensor(self) -> bool:
        """Whether all samples have the same shape (so the batch can be viewed as one tensor)."""
        if self._dense_arr is not None:
            return True
        samples = self._sample_list
        assert samples is not None
        return all(s.shape == samples[0].shape for s in samples)

    def as_tensor(self) -> Any:
        """The batch as one tensor of shape ``[batch, *sample_shape]`` (shares memory).

        The layout gets a leading ``N`` (``"HWC"`` -> ``"NHWC"``).

        Raises:
            RuntimeError: If the samples do not all have the same shape.
        """
        dense = self._dense()
        if dense is None:
            raise NotDenseError(
                'Assert on "IsDenseTensor()" failed: The batch must be representable as a '
                "tensor - it must have uniform shape and be allocated in contiguous memory."
            )
        if len(self) == 0 and self._ndim == 0:
            raise RuntimeError(
                'Assert on "sample_dim() > 0" failed: To convert empty batch to a Tensor, '
                "valid dimensionality must be set"
            )
        layout = "N" + self._layout if len(self._layout) + 1 == dense.ndim else ""
        return self._tensor_type._wrap(dense, layout)

    def as_reshaped_tensor(self, shape: Sequence[int]) -> Any:
        """All elements, back to back, viewed as one tensor of the given shape.

        Raises:
            RuntimeError: If ``shape`` does not hold exactly as many elements as the batch.
        """
        shape = tuple(int(s) for s in shape)
        volume = math.prod(shape)
        if volume != 0 and len(self) == 0:
            raise RuntimeError(
                'Assert on "new_shape.num_elements() == 0 || num_samples() > 0" failed: '
                "To create a non-empty view Tensor, the batch must not be empty."
            )
        total = sum(math.prod(s) for s in self.shape())
        if volume != total:
            raise RuntimeError(
                'Assert on "shape().num_elements() == new_shape.num_elements()" failed: '
                "To create a view Tensor, requested shape need to have the same volume as the "
                f"batch, requested: {volume} expected: {total}"
            )
        layout = "N" + self._layout if len(self._layout) + 1 == len(shape) else ""
        return self._tensor_type._wrap(self._contiguous_flat().reshape(shape), layout)

    def reset(self) -> None:
        """Drop all samples (the batch becomes empty, with no layout)."""
        self._dense_arr = None
        self._sample_list = []
        self._flat_buf = None
        self._layout = ""
        self._source_info = None

    def __str__(self) -> str:
        return _format_batch(self, show_data=True)

    def __repr__(self) -> str:
        return _format_batch(self, show_data=False)


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
        if isinstance(data, TensorListCPU):
            _share(self, data, layout)
            return
        if isinstance(data, (list, tuple)):
            samples = [_sample_from(x, i, _host_array, "CPU") for i, x in enumerate(data)]
            _from_samples(self, samples, data, layout)
            return
        arr = _host_array(data)
        if arr.ndim == 0:
            raise RuntimeError(
                'Assert on "info.shape.size() > 0" failed: Cannot create TensorList from 0-dim '
                "array."
            )
        _init_dense(self, arr, layout)

    @classmethod
    def _xp(cls) -> ModuleType:
        return np

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        samples = self._samples()
        return [samples[i] for i in indices]

    @staticmethod
    def broadcast(sample: Any, num_samples: int) -> TensorListCPU:
        """A batch of ``num_samples`` samples that all share the memory of ``sample``."""
        t = sample if isinstance(sample, TensorCPU) else TensorCPU(sample)
        return TensorListCPU._make([t._array] * int(num_samples), t._layout)

    @classmethod
    def from_dlpack_list(cls, tensors: Sequence[Any], layout: str | None = None) -> TensorListCPU:
        """A batch made from a list of CPU DLPack-capable objects (torch/jax tensors...)."""
        return cls([np.from_dlpack(t) for t in tensors], layout)

    def at(self, i: int) -> np.ndarray:
        """Sample ``i`` as a numpy array (a view of the batch's memory)."""
        return self._samples()[self._index(i)]

    def as_array(self) -> np.ndarray:
        """The batch as one numpy array of shape ``(batch, *sample_shape)`` (shares memory).

        Raises:
            RuntimeError: If the samples do not all have the same shape.
        """
        dense = self._dense()
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

    def _as_gpu(self) -> TensorListGPU:
        import cupy

        dense = self._dense()
        if dense is not None:
            return TensorListGPU._make(cupy.asarray(dense), self._layout, self._source_info)
        flat = cupy.asarray(self._contiguous_flat())  # one host-to-device copy
        samples = _split_flat(flat, self.shape())
        return TensorListGPU._make(samples, self._layout, self._source_info)

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


class TensorListGPU(_TensorListBase):
    """A batch of samples in GPU memory (CuPy arrays): what a GPU pipeline output is.

    Unlike :class:`TensorListCPU` it has no ``as_array``, and ``at(i)`` gives a
    :class:`TensorGPU`. Use ``as_cpu()`` to copy the batch to the host.

    Args:
        data: Anything with ``__cuda_array_interface__`` / CUDA ``__dlpack__`` whose first axis
            is the batch axis (shared), a list of TensorGPU or GPU arrays (copied), another
            TensorListGPU (shared), or None for an empty batch.
        layout: The layout of each sample, or None.
        device_id: Ignored (the data's own device is used); kept for compatibility.

    A batch made by a pipeline may still be computed when it is returned; it carries the event
    that marks its end, and every way of reaching its data waits for it (module docstring).
    """

    __slots__ = ("_event",)
    _device = "gpu"
    _tensor_type = TensorGPU

    def __init__(self, data: Any = None, layout: str | None = None, device_id: int = -1) -> None:
        if data is None:
            data = []
        if isinstance(data, TensorListGPU):
            _share(self, data, layout)
            self._event = getattr(data, "_event", None)
            return
        if isinstance(data, (list, tuple)):
            samples = [_sample_from(x, i, _device_array, "GPU") for i, x in enumerate(data)]
            _from_samples(self, samples, data, layout)
            return
        arr = _device_array(data)
        if arr.ndim == 0:
            raise RuntimeError(
                'Assert on "info.shape.size() > 0" failed: Cannot create TensorList from 0-dim '
                "array."
            )
        _init_dense(self, arr, layout)

    @classmethod
    def _xp(cls) -> ModuleType:
        import cupy

        return cupy

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        _order_after(self)
        samples = self._samples()
        return [_to_host(samples[i]) for i in indices]  # synchronize!

    # Views of the batch carry its event; copies made from it are ordered after it.
    def _dense(self) -> Any:
        if self._dense_arr is None:
            _order_after(self)  # stacking reads the samples on this thread's stream
        return super()._dense()

    def _contiguous_flat(self) -> Any:
        _order_after(self)  # packing may read the samples on this thread's stream
        return super()._contiguous_flat()

    def _sample_tensor(self, i: int) -> Any:
        t = super()._sample_tensor(i)
        t._event = getattr(self, "_event", None)
        return t

    def as_tensor(self) -> TensorGPU:
        t = super().as_tensor()
        t._event = getattr(self, "_event", None)
        return t

    as_tensor.__doc__ = _TensorListBase.as_tensor.__doc__

    def as_reshaped_tensor(self, shape: Sequence[int]) -> TensorGPU:
        t = super().as_reshaped_tensor(shape)
        t._event = getattr(self, "_event", None)
        return t

    as_reshaped_tensor.__doc__ = _TensorListBase.as_reshaped_tensor.__doc__

    @staticmethod
    def broadcast(sample: Any, num_samples: int) -> TensorListGPU:
        """A batch of ``num_samples`` samples that all share the memory of ``sample``."""
        t = sample if isinstance(sample, TensorGPU) else TensorGPU(sample)
        out = TensorListGPU._make([t._array] * int(num_samples), t._layout)
        out._event = getattr(t, "_event", None)
        return out

    @classmethod
    def from_dlpack_list(cls, tensors: Sequence[Any], layout: str | None = None) -> TensorListGPU:
        """A batch made from a list of CUDA DLPack-capable objects (torch/jax tensors...)."""
        import cupy

        return cls([cupy.from_dlpack(t) for t in tensors], layout)

    def at(self, i: int) -> TensorGPU:
        """Sample ``i`` as a :class:`TensorGPU` (deprecated in DALI for ``tl[i]``)."""
        warnings.warn(
            "`TensorListGPU.at` is deprecated for `TensorListGPU.__getitem__`.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self[i]

    def as_cpu(self) -> TensorListCPU:
        """Copy the batch to host memory (one transfer; waits for the GPU)."""
        _order_after(self)
        dense = self._dense()
        if dense is not None:
            host = _to_host(dense)  # synchronize!
            return TensorListCPU._make(host, self._layout, self._source_info)
        host_flat = _to_host(self._contiguous_flat())  # synchronize!
        samples = _split_flat(host_flat, self.shape())
        return TensorListCPU._make(samples, self._layout, self._source_info)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CAI v3 of the dense batch; ``"stream"`` is this thread's current stream, made to
        wait for the data (a ragged batch has no such interface)."""
        return self.as_tensor().__cuda_array_interface__

    def __dlpack__(self, stream: Any = None, dl_device: Any = None, **kwargs: Any) -> Any:
        """DLPack export of the dense batch; the consumer's ``stream`` waits on the GPU."""
        return self.as_tensor().__dlpack__(stream, dl_device, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_DLPACK_CUDA, self.device_id())

    def device_id(self) -> int:
        """The CUDA device the batch lives on."""
        dense = self._dense_arr
        if dense is not None:
            return int(dense.device.id)
        if self._sample_list:
            return int(self._sample_list[0].device.id)
        import cupy

        return int(cupy.cuda.Device().id)

    @property
    def stream(self) -> None:
        """None: pipeline data is ordered by an event, which DLPack and CAI consumers wait on."""
        return None

    def data_ptr(self) -> int:
        """The device address of the first element (the samples are made contiguous first).

        It waits on the host until the batch is computed: a raw pointer carries no stream.
        """
        dense, packed = self._dense_arr, self._flat_buf
        flat = self._contiguous_flat()
        _wait_host(self)  # synchronize!
        if self._dense_arr is not dense or self._flat_buf is not packed:
            import cupy  # the samples were just packed, on this thread's stream

            cupy.cuda.get_current_stream().synchronize()  # synchronize!
        return int(flat.data.ptr) if flat.size else 0

    def copy_to_external(
        self,
        ptr: Any,
        cuda_stream: Any = None,
        non_blocking: bool = False,
        use_copy_kernel: bool = False,
    ) -> None:
        """Copy all samples, back to back, to GPU memory at ``ptr``."""
        _gpu_copy(self, self._contiguous_flat(), ptr, cuda_stream, non_blocking)


# --------------------------------------------------------------------------------------------
# Public constructors' helpers
# --------------------------------------------------------------------------------------------


def _share(tl: _TensorListBase, src: _TensorListBase, layout: str | None) -> None:
    tl._dense_arr = src._dense_arr
    tl._sample_list = src._sample_list
    tl._flat_buf = src._flat_buf
    tl._np_dtype = src._np_dtype
    tl._ndim = src._ndim
    tl._source_info = src._source_info
    tl._layout = src._layout if layout is None else _check_layout(layout, src._ndim, "TensorList")


def _init_dense(tl: _TensorListBase, arr: Any, layout: str | None) -> None:
    tl._dense_arr = arr
    tl._sample_list = None
    tl._flat_buf = None
    tl._np_dtype = arr.dtype
    tl._ndim = arr.ndim - 1
    tl._source_info = None
    tl._layout = _check_layout(layout, tl._ndim, "TensorList")


def _sample_from(x: Any, i: int, convert: Any, device: str) -> Any:
    try:
        return convert(x)
    except (TypeError, ValueError, RuntimeError, BufferError) as e:
        raise TypeError(
            f"Object at position {i} cannot be converted to Tensor{device}. ({e})"
        ) from e


def _from_samples(
    tl: _TensorListBase, samples: list[Any], originals: Sequence[Any], layout: str | None
) -> None:
    """Copy the samples into one contiguous buffer, checking they agree (DALI copies too)."""
    if samples:
        dtype, ndim = samples[0].dtype, samples[0].ndim
        for i, s in enumerate(samples):
            if s.dtype != dtype:
                raise BatchMismatchError(
                    f"Tensors cannot have different data types. Tensor at position {i} has type "
                    f"'{type_name(s.dtype)}' expected to have type '{type_name(dtype)}'."
                )
            if s.ndim != ndim:
                raise BatchMismatchError(
                    f"Tensors cannot have different numbers of dimensions. Tensor at position {i} "
                    f"has {s.ndim} dimensions, expected {ndim}."
                )
    else:
        dtype, ndim = _FLOAT32, len(layout or "")
    first = originals[0] if originals else None
    if layout is None and isinstance(first, _TensorBase):
        layout = first._layout
    infos = [x._source_info if isinstance(x, _TensorBase) else "" for x in originals]
    tl._dense_arr = None
    tl._sample_list = list(samples)
    tl._flat_buf = None
    tl._np_dtype = dtype
    tl._ndim = ndim
    tl._source_info = infos if any(infos) else None
    tl._layout = _check_layout(layout, ndim, "TensorList")
    if samples:
        # Copy into one fresh buffer (stacked when uniform), as DALI does: later changes to
        # the inputs do not show through, and the batch is contiguous.
        tl._contiguous_flat()
