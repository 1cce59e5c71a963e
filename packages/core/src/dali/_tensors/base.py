"""What CPU and GPU samples and batches share: storage, validation, the public methods.

`_TensorBase` (one array) and `_TensorListBase` (a dense ``(batch, ...)`` array or a list of
samples, each derived lazily from the other) are written once for numpy and CuPy; the array
module of a class is its ``_xp()``. `dali._tensors.cpu` and `dali._tensors.gpu` add what
depends on where the memory lives; `dali._tensors.construct`, the public constructors' work.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali._dtypes import DALI_BY_KIND, DALIDataType, TensorLayout, np_dtype
from dali._tensors.printing import _format_batch, _format_tensor

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "HOST_ALIGNMENT",
    "BatchMismatchError",
    "NotDenseError",
    "aligned_copy",
    "aligned_empty",
    "host_aligned",
    "split_flat",
]

_FLOAT32 = np.dtype(np.float32)
_DLPACK_CPU = 1  # kDLCPU
_DLPACK_CUDA = 2  # kDLCUDA
_DLPACK_CUDA_HOST = 3  # kDLCUDAHost (pinned memory, readable from the CPU)


#: Alignment of host batches: XLA shares host memory only when it is 64-byte aligned.
HOST_ALIGNMENT = 64


def aligned_empty(shape: tuple[int, ...], dtype: Any, align: int = HOST_ALIGNMENT) -> np.ndarray:
    """An uninitialised numpy array whose data starts on an ``align``-byte boundary.

    numpy's allocator guarantees only 16 bytes; JAX (XLA) copies host buffers that are not
    64-byte aligned instead of sharing them.
    """
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + align, dtype=np.uint8)
    offset = (-raw.ctypes.data) % align
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def host_aligned(a: np.ndarray) -> np.ndarray:
    """``a`` itself when its data starts on a `HOST_ALIGNMENT` boundary (or it is empty), else
    an aligned copy: what the executor makes of every CPU output, so that JAX takes it through
    DLPack without a copy (and without jaxlib's "DLPack buffer is not aligned" warning). Most
    large outputs are aligned already (their operators allocate with `aligned_empty`): the
    copies are of labels, boxes and random draws, and of numpy arithmetic's results.

    Example:
        >>> host_aligned(np.arange(3, dtype=np.int32)).ctypes.data % HOST_ALIGNMENT
        0
    """
    if a.nbytes == 0 or a.ctypes.data % HOST_ALIGNMENT == 0:
        return a
    return aligned_copy(a)


def aligned_copy(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``a`` starting on a `HOST_ALIGNMENT` boundary (`aligned_empty`)."""
    out = aligned_empty(a.shape, a.dtype)
    out[...] = a
    return out


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
    found = DALI_BY_KIND.get((dtype.kind, dtype.itemsize))
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
    if (dtype.kind, dtype.itemsize) not in DALI_BY_KIND:
        raise TypeError(
            f"Data type {dtype} is not supported by DALI; expected bool, int8/16/32/64, "
            "uint8/16/32/64, float16, float32 or float64."
        )
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr


def split_flat(flat: Any, shapes: Sequence[tuple[int, ...]]) -> list[Any]:
    """Per-sample views into a flat buffer holding the samples back to back.

    A CuPy view is made directly on its memory pointer (one array per sample instead of a
    slice and a reshape: half the host time, which a GPU batch of 256 pays in the mixed stage).
    """
    views = []
    offset = 0
    if type(flat).__module__.startswith("cupy") and flat.flags.c_contiguous:
        ndarray, dtype, item, memptr = type(flat), flat.dtype, flat.itemsize, flat.data
        for shape in shapes:
            views.append(ndarray(shape, dtype, memptr + offset * item))
            offset += math.prod(shape)
        return views
    for shape in shapes:
        n = math.prod(shape)
        views.append(flat[offset : offset + n].reshape(shape))
        offset += n
    return views


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

    # -- author API (`dali.author`): no validation, no copies ----------------------------------

    @classmethod
    def wrap(cls, array: Any, layout: str = "", source_info: str = "") -> Any:
        """A tensor holding ``array`` as is: no validation, no copy.

        Args:
            array: A numpy array (TensorCPU) or CuPy array (TensorGPU) of a DALI element type.
            layout: One letter per dimension, or ``""``; not checked.
            source_info: Where the data came from, or ``""``.
        """
        t = object.__new__(cls)
        t._array = array
        t._layout = layout
        t._source_info = source_info
        return t

    @property
    def array(self) -> Any:
        """The numpy (TensorCPU) or CuPy (TensorGPU) array holding the data, as is.

        A TensorGPU's array may still be computed by the pipeline: read it on a stream that
        waited for `TensorGPU.ready_event` (`dali._tensors.order_after`).
        """
        return self._array

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


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------


class _TensorListBase:
    """What TensorListCPU and TensorListGPU share; the array module is numpy or CuPy."""

    __slots__ = (
        "__weakref__",
        "_dense_arr",
        "_derived",
        "_flat_buf",
        "_layout",
        "_lazy_shapes",
        "_slist",
        "_source_info",
        "np_dtype",
        "sample_ndim",
    )

    _device: ClassVar[str]
    _tensor_type: ClassVar[type[_TensorBase]]

    _dense_arr: Any
    _slist: list[Any] | None
    _lazy_shapes: list[tuple[int, ...]] | None
    _flat_buf: Any
    #: The element type as a numpy dtype (`dtype` is DALI's enum). Read-only.
    np_dtype: np.dtype[Any]
    #: The number of dimensions of each sample, a plain int (`ndim` is DALI's). Read-only.
    sample_ndim: int
    _layout: str
    _source_info: list[str] | None
    #: Unset, or values derived from the samples (`derived`).
    _derived: dict[str, Any] | None

    # -- author API (`dali.author`): no validation, no copies ----------------------------------
    #
    # What operators and plugins use to make and read batches. Each is as cheap as the storage
    # it reads (an attribute, or a view made once).

    @classmethod
    def wrap(
        cls,
        data: Any,
        layout: str | None = "",
        source_info: list[str] | None = None,
        *,
        dtype: Any = None,
        ndim: int | None = None,
    ) -> Any:
        """A batch holding a dense array (batch axis first) or a list of per-sample arrays, as is.

        No validation and no copy: the arrays must be numpy (CPU) or CuPy (GPU) arrays of one
        DALI element type and one number of dimensions, C-contiguous, and the caller must not
        change them afterwards.

        Args:
            data: A ``(batch, *sample_shape)`` array, or a list (or tuple) of sample arrays.
            layout: One letter per sample dimension, or ``""``/None; not checked.
            source_info: One description per sample (e.g. its file), or None.
            dtype: The element type of an empty list (an empty batch has no sample to take it
                from); float32 when not given. Ignored otherwise.
            ndim: The number of sample dimensions of an empty list (0 when not given).

        Example:
            >>> import numpy as np
            >>> from dali.tensors import TensorListCPU
            >>> TensorListCPU.wrap([np.zeros((2, 3)), np.zeros((4, 3))], "HW").shape()
            [(2, 3), (4, 3)]
        """
        tl = object.__new__(cls)
        if isinstance(data, (list, tuple)):
            tl._dense_arr = None
            tl._sample_list = data if isinstance(data, list) else list(data)
            if data:
                tl.np_dtype = data[0].dtype
                tl.sample_ndim = data[0].ndim
            else:
                tl.np_dtype = _FLOAT32 if dtype is None else np_dtype(dtype)
                tl.sample_ndim = ndim or 0
        else:
            tl._dense_arr = data
            tl._sample_list = None
            tl.np_dtype = data.dtype
            tl.sample_ndim = data.ndim - 1
        tl._flat_buf = None
        tl._layout = layout or ""
        tl._source_info = source_info
        return tl

    @classmethod
    def wrap_flat(
        cls, flat: Any, shapes: list[tuple[int, ...]], layout: str | None = "", ndim: int = 0
    ) -> Any:
        """A batch of samples of ``shapes`` lying back to back in ``flat`` (C-contiguous, 1-D).

        No validation and no copy. The per-sample views are made only when something asks
        for them (`samples`): kernels address such a batch as the buffer plus offsets
        (`flat`), and a GPU batch of 256 images would otherwise pay ~1.3 ms of Python for
        views nobody reads.

        Args:
            flat: The buffer; its dtype is the batch's.
            shapes: The shape of every sample, in order.
            layout: One letter per sample dimension, or ``""``/None; not checked.
            ndim: The number of sample dimensions when ``shapes`` is empty.
        """
        tl = object.__new__(cls)
        tl._dense_arr = None
        tl._slist = None
        tl._lazy_shapes = shapes
        tl._flat_buf = flat
        tl.np_dtype = flat.dtype
        tl.sample_ndim = len(shapes[0]) if shapes else ndim
        tl._layout = layout or ""
        tl._source_info = None
        return tl

    @property
    def source_infos(self) -> list[str] | None:
        """Where each sample came from (e.g. the files a reader read), or None when unknown."""
        return self._source_info

    @source_infos.setter
    def source_infos(self, infos: list[str] | None) -> None:
        self._source_info = infos

    @property
    def derived(self) -> dict[str, Any] | None:
        """Values derived from the samples by the operator that made the batch, or None.

        For the operators that consume the batch and would otherwise compute them:
        ``"jpeg_header_rows"`` holds the JPEG headers that `fn.readers.file`'s worker processes
        walked. Set by the producer; never carried over to another batch.
        """
        try:
            return self._derived
        except AttributeError:
            return None

    @derived.setter
    def derived(self, values: dict[str, Any] | None) -> None:
        self._derived = values

    @property
    def held_dense(self) -> Any:
        """The ``(B, *sample_shape)`` array the batch holds, or None when it holds samples.

        Unlike `dense`, it never stacks samples nor changes how the batch is held: for an
        operator that takes a fast path only when the batch already is one array.
        """
        return self._dense_arr

    @property
    def _sample_list(self) -> list[Any] | None:
        """The per-sample arrays, or None for a dense batch (made here for a lazy flat batch)."""
        samples = self._slist
        if samples is None and self._lazy_shapes is not None:
            samples = self._slist = split_flat(self._flat_buf, self._lazy_shapes)
            self._lazy_shapes = None
        return samples

    @_sample_list.setter
    def _sample_list(self, samples: list[Any] | None) -> None:
        self._slist = samples
        self._lazy_shapes = None

    def flat(self) -> tuple[Any, list[tuple[int, ...]]] | None:
        """``(buffer, shapes)`` when the samples lie back to back in one flat buffer, in order,
        else None; the per-sample views are not made."""
        flat = self._flat_buf
        if flat is None:
            return None
        shapes = self._lazy_shapes
        if shapes is None:
            samples = self._sample_list
            assert samples is not None  # a flat buffer comes with its samples or their shapes
            shapes = [s.shape for s in samples]
        return flat, shapes

    def map_storage(self, fn: Callable[[Any], Any]) -> None:
        """Replace every array holding the batch (the dense array, the flat buffer, or each
        sample) by ``fn(array)``, an array of the same shape, dtype and contents.

        For the executor, which re-points a GPU output at memory it leases (no copy).
        """
        if self._dense_arr is not None:
            self._dense_arr = fn(self._dense_arr)
            self._sample_list = None
            self._flat_buf = None
        elif (packed := self.flat()) is not None:
            flat, shapes = packed
            self._sample_list = None
            self._flat_buf = fn(flat)
            self._lazy_shapes = list(shapes)  # the views are made when asked for
        elif self._sample_list:
            self._sample_list = [fn(s) for s in self._sample_list]

    @classmethod
    def _xp(cls) -> ModuleType:
        raise NotImplementedError

    def dense(self) -> Any:
        """The batch as one ``(B, *sample_shape)`` array, or None when the shapes differ.

        A uniform list of samples is stacked once (a copy) and the samples then become views
        into the stacked array; samples back to back in a flat buffer are reshaped, not copied.
        """
        dense = self._dense_arr
        if dense is not None:
            return dense
        lazy = self._lazy_shapes
        if lazy:  # samples back to back in the flat buffer, no views made yet
            if lazy.count(lazy[0]) != len(lazy):
                return None
            dense = self._flat_buf[: len(lazy) * math.prod(lazy[0])].reshape(len(lazy), *lazy[0])
            self._dense_arr = dense
            self._sample_list = None
            return dense
        samples = self._sample_list
        xp = self._xp()
        if not samples:
            dense = xp.empty((0,) + (0,) * self.sample_ndim, dtype=self.np_dtype)
        else:
            shape = samples[0].shape
            for s in samples:
                if s.shape != shape:
                    return None
            flat = self._flat_buf
            if flat is not None:  # already back to back in memory: no copy
                dense = flat.reshape((len(samples), *shape))
            elif xp is np:
                # 64-byte aligned, so that XLA (JAX) and others can take it without a copy
                dense = aligned_empty((len(samples), *shape), self.np_dtype)
                np.stack(samples, out=dense)
            else:
                dense = xp.stack(samples)
        self._dense_arr = dense
        self._sample_list = None
        return dense

    def samples(self) -> list[Any]:
        """The per-sample arrays (views into the dense array when the batch holds one).

        The list is the batch's own (made once): do not change it.
        """
        samples = self._sample_list
        if samples is None:
            dense = self._dense_arr
            if dense.ndim == 1:  # iterating would give scalars, not 0-d arrays
                samples = [dense[i, ...] for i in range(dense.shape[0])]
            else:
                samples = list(dense)
            self._sample_list = samples
        return samples

    def take(self, index: Any) -> Any:
        """The samples ``index`` (integers, in that order, repeats allowed) as a new batch of
        the same type, layout and source infos (a gather of the dense array, or a list of the
        samples' views)."""
        idx = np.asarray(index, dtype=np.int64).reshape(-1)
        info = self._source_info
        picked_info = [info[int(i)] for i in idx] if info is not None else None
        dense = self.dense()
        if dense is not None:
            xp = self._xp()
            return type(self).wrap(dense[xp.asarray(idx)], self._layout, picked_info)
        samples = self.samples()
        return type(self).wrap(
            [samples[int(i)] for i in idx],
            self._layout,
            picked_info,
            dtype=self.np_dtype,
            ndim=self.sample_ndim,
        )

    def _contiguous_flat(self) -> Any:
        """All samples back to back in one flat C-contiguous buffer (made once if needed)."""
        xp = self._xp()
        dense = self.dense()
        if dense is not None:
            if not dense.flags.c_contiguous:
                dense = xp.ascontiguousarray(dense)
                self._dense_arr = dense
                self._sample_list = None
            return dense.reshape(-1)
        if self._flat_buf is None:
            samples = self._sample_list
            assert samples is not None
            flat = xp.empty(sum(s.size for s in samples), dtype=self.np_dtype)
            views = split_flat(flat, [s.shape for s in samples])
            for view, s in zip(views, samples):
                view[...] = s
            self._flat_buf = flat
            self._sample_list = views
        return self._flat_buf

    def _host_samples(self, indices: Any) -> list[np.ndarray]:
        raise NotImplementedError

    def _sample_tensor(self, i: int) -> Any:
        info = self._source_info
        return self._tensor_type.wrap(
            self.samples()[i], self._layout, info[i] if info is not None else ""
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
        lazy = self._lazy_shapes
        if lazy is not None:
            return len(lazy)
        assert self._slist is not None
        return len(self._slist)

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
        lazy = self._lazy_shapes
        if lazy is not None:
            return [tuple(s) for s in lazy]
        assert self._slist is not None
        return [tuple(s.shape) for s in self._slist]

    @property
    def dtype(self) -> DALIDataType:
        """The element type, a :class:`~dali.types.DALIDataType`."""
        return _dali_type(self.np_dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions of each sample (an int that may also be called)."""
        return _Ndim(self.sample_ndim)

    def layout(self) -> str:
        """The layout string, ``''`` when there is none."""
        return self._layout

    def set_layout(self, layout: str | None) -> None:
        """Set the layout; None or ``''`` clears it.

        Raises:
            ValueError: If a non-empty layout does not have one letter per sample dimension.
        """
        self._layout = _check_layout(layout, self.sample_ndim, "TensorList")

    def is_dense_tensor(self) -> bool:
        """Whether all samples have the same shape (so the batch can be viewed as one tensor)."""
        if self._dense_arr is not None:
            return True
        lazy = self._lazy_shapes
        if lazy is not None:
            return lazy.count(lazy[0]) == len(lazy) if lazy else True
        samples = self._sample_list
        assert samples is not None
        return all(s.shape == samples[0].shape for s in samples)

    def as_tensor(self) -> Any:
        """The batch as one tensor of shape ``[batch, *sample_shape]`` (shares memory).

        The layout gets a leading ``N`` (``"HWC"`` -> ``"NHWC"``).

        Raises:
            RuntimeError: If the samples do not all have the same shape.
        """
        dense = self.dense()
        if dense is None:
            raise NotDenseError(
                'Assert on "IsDenseTensor()" failed: The batch must be representable as a '
                "tensor - it must have uniform shape and be allocated in contiguous memory."
            )
        if len(self) == 0 and self.sample_ndim == 0:
            raise RuntimeError(
                'Assert on "sample_dim() > 0" failed: To convert empty batch to a Tensor, '
                "valid dimensionality must be set"
            )
        layout = "N" + self._layout if len(self._layout) + 1 == dense.ndim else ""
        return self._tensor_type.wrap(dense, layout)

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
        return self._tensor_type.wrap(self._contiguous_flat().reshape(shape), layout)

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
