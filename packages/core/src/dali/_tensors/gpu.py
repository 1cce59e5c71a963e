"""Samples and batches in GPU memory: `TensorGPU` and `TensorListGPU` (CuPy arrays).

CuPy is imported only when GPU data is touched. Data made by a pipeline carries the CUDA event
recorded after the pipeline's GPU work (``ready_event``); `order_after` makes a stream wait for it
on the GPU, `_wait_host` makes the calling thread wait (each such wait is marked
``# synchronize!``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._tensors.base import (
    _DLPACK_CUDA,
    _check_layout,
    _ptr_value,
    _supported,
    _TensorBase,
    _TensorListBase,
    split_flat,
)
from dali._tensors.construct import init_batch
from dali._tensors.cpu import TensorCPU, TensorListCPU

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["TensorGPU", "TensorListGPU", "order_after"]


def order_after(obj: Any, stream: int | None = None, keep: Any = None) -> None:
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
    if lease is not None and hasattr(lease, "add_consumer"):
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


def _get_event(obj: Any) -> Any:
    try:
        return obj._event
    except AttributeError:  # made by `wrap`, never given one
        return None


def _set_event(obj: Any, event: Any) -> None:
    obj._event = event


#: `TensorGPU.ready_event` and `TensorListGPU.ready_event`.
_READY_EVENT = property(
    _get_event,
    _set_event,
    doc="""The CUDA event recorded after the pipeline work that computes the data, or None.

    The executor sets it on every GPU output; samples, views and copies of the data carry it
    on. Before reading the arrays on a stream of your own, make that stream wait for it
    (`order_after`, on the GPU); DLPack and ``__cuda_array_interface__`` consumers already
    do.""",
)


def _wait_host(obj: Any) -> None:
    """Block the calling thread until the pipeline work that produces ``obj`` is done."""
    event = getattr(obj, "_event", None)
    if event is not None:
        event.synchronize()  # synchronize!


def _to_host(arr: Any) -> np.ndarray:
    """Copy a CuPy array to numpy on this thread's current stream (after `order_after`)."""
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
        order_after(t)  # a copy to the host, made by CuPy on our current stream
        return arr.__dlpack__(stream=None, **kwargs)
    if stream != -1:  # -1: the consumer asks for no synchronisation
        order_after(t, 1 if stream is None else stream)  # None: the legacy default stream
    return arr.__dlpack__(stream=-1, **kwargs)


def _device_array(obj: Any) -> Any:
    """View ``obj`` as a C-contiguous CuPy array, sharing its memory where possible."""
    import cupy

    if isinstance(obj, TensorGPU):
        order_after(obj)  # it may still be computed by a pipeline
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

    ready_event = _READY_EVENT

    def __init__(self, data: Any, layout: str | None = None, device_id: int = -1) -> None:
        self._array = _device_array(data)
        self._source_info = data._source_info if isinstance(data, TensorGPU) else ""
        self._event = getattr(data, "_event", None) if isinstance(data, TensorGPU) else None
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def _host(self) -> np.ndarray:
        order_after(self)
        return _to_host(self._array)  # synchronize!

    def _contiguous(self) -> Any:
        if not self._array.flags.c_contiguous:
            import cupy

            order_after(self)
            self._array = cupy.ascontiguousarray(self._array)
        return self._array

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CAI v3; its ``"stream"`` is this thread's current stream, made to wait for the data."""
        order_after(self)
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
        return TensorCPU.wrap(self._host(), self._layout, self._source_info)

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
    order_after(owner, stream)
    runtime.memcpyAsync(dst, src.data.ptr, src.nbytes, runtime.memcpyDefault, stream)
    if not non_blocking:
        runtime.streamSynchronize(stream)  # synchronize!


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

    ready_event = _READY_EVENT

    def __init__(self, data: Any = None, layout: str | None = None, device_id: int = -1) -> None:
        if data is None:
            data = []
        init_batch(self, data, layout, TensorListGPU, _device_array, "GPU")
        if isinstance(data, TensorListGPU):
            self._event = getattr(data, "_event", None)

    @classmethod
    def _xp(cls) -> ModuleType:
        import cupy

        return cupy

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        order_after(self)
        samples = self.samples()
        return [_to_host(samples[i]) for i in indices]  # synchronize!

    # Views of the batch carry its event; copies made from it are ordered after it.
    def dense(self) -> Any:
        if self._dense_arr is None:
            order_after(self)  # stacking reads the samples on this thread's stream
        return super().dense()

    dense.__doc__ = _TensorListBase.dense.__doc__

    def _contiguous_flat(self) -> Any:
        order_after(self)  # packing may read the samples on this thread's stream
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
        out = TensorListGPU.wrap([t._array] * int(num_samples), t._layout)
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
        order_after(self)
        dense = self.dense()
        if dense is not None:
            host = _to_host(dense)  # synchronize!
            return TensorListCPU.wrap(host, self._layout, self._source_info)
        host_flat = _to_host(self._contiguous_flat())  # synchronize!
        samples = split_flat(host_flat, self.shape())
        return TensorListCPU.wrap(samples, self._layout, self._source_info)

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
