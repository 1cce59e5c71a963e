"""Batches and samples: TensorListCPU/GPU and TensorCPU/GPU.

A *batch* (TensorList) is a list of samples of one dtype and one number of dimensions, ragged
shapes allowed. It is stored in one of two ways, chosen by whoever made it:

* **dense**: one array of shape ``(batch, *sample_shape)``, so operators can vectorise;
* **list**: one array per sample (ragged, or uniform but produced sample by sample).

Either view is derived lazily from the other and cached: ``dense()`` stacks a uniform list
once, ``samples()`` slices a dense array into per-sample views. CPU batches hold numpy arrays
and GPU batches CuPy arrays; CuPy is imported only when a GPU batch is touched.

GPU batches made by a pipeline may still be computed when you get them: they carry the CUDA
event recorded after the pipeline's last GPU work (``ready_event``; see `dali._exec.device`),
and every way of reaching the data waits for it. DLPack (``__dlpack__(stream=s)``) makes the
consumer's stream ``s`` wait, and ``__cuda_array_interface__`` makes the reading thread's
current stream wait and names it in its ``"stream"`` key (CAI v3), both on the GPU. Reading the
data on the host (``as_cpu()``, printing) waits on the host, and so does ``data_ptr()``, because
a raw pointer carries no stream (each marked ``# synchronize!``). Samples (``tl[i]``),
``as_tensor()`` and batches made from a batch carry the same event.

The public methods copy DALI's (``tl.shape()`` is a method, ``tl.dtype`` a property,
``TensorListCPU.at`` gives numpy while ``TensorListGPU.at`` gives a TensorGPU, ...). Operators,
the executor and plugins use the *author API* (`dali.author`) instead, with no validation and
no copies; its names do not collide with DALI's::

    TensorListCPU.wrap(data, layout="", source_info=None, *, dtype=None, ndim=None)
    TensorListGPU.wrap_flat(flat, shapes, layout="")   # samples back to back in one buffer
    tl.dense()         # (B, *sample_shape) array, or None when ragged (stacks a uniform list)
    tl.held_dense      # the dense array the batch holds, or None (never stacks)
    tl.samples()       # list of per-sample arrays (views)
    tl.take(index)     # the samples ``index`` (in that order) as a new batch
    tl.flat()          # (buffer, shapes) when the samples lie back to back, else None
    tl.np_dtype        # numpy dtype
    tl.sample_ndim     # int
    tl.layout()        # str
    tl.source_infos    # list[str] | None (settable)
    tl.derived         # dict of values derived from the samples, or None (settable)
    tl.ready_event     # GPU: the CUDA event of the work computing the data (settable)
    tl.to_gpu()        # CPU: a copy in GPU memory
    tl.map_storage(fn) # re-point every array holding the batch (the executor's leases)
    TensorCPU.wrap(array, layout="", source_info=""), t.array

The underscore names (``_dense_arr``, ``_sample_list``, ``_flat_buf`` ...) are the storage,
for this package's own code only.

The code: `base` (what CPU and GPU share: storage, validation, the public methods), `cpu`
and `gpu` (what depends on where the memory lives), `printing` (DALI's ``str``/``repr``).

Example:
    >>> import numpy as np
    >>> tl = TensorListCPU(np.zeros((2, 3, 4), np.uint8), "HW")
    >>> len(tl), tl.shape(), tl.dtype, tl.layout()
    (2, [(3, 4), (3, 4)], <DALIDataType.UINT8: 0>, 'HW')
    >>> tl.at(0).shape, tl[1].shape()
    ((3, 4), [3, 4])
"""

from __future__ import annotations

from dali._tensors.base import (
    HOST_ALIGNMENT,
    BatchMismatchError,
    NotDenseError,
    aligned_empty,
    split_flat,
)
from dali._tensors.cpu import TensorCPU, TensorListCPU
from dali._tensors.gpu import TensorGPU, TensorListGPU, order_after

# The former names, for the tests that use them.
_split_flat = split_flat
_order_after = order_after

__all__ = [
    "HOST_ALIGNMENT",
    "BatchMismatchError",
    "NotDenseError",
    "TensorCPU",
    "TensorGPU",
    "TensorListCPU",
    "TensorListGPU",
    "aligned_empty",
    "order_after",
    "split_flat",
]
