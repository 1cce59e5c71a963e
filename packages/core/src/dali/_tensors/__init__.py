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

# `X as X`: re-exported for the rest of the package (the internal fast API), not public.
from dali._tensors.base import BatchMismatchError as BatchMismatchError
from dali._tensors.base import NotDenseError as NotDenseError
from dali._tensors.base import _split_flat as _split_flat
from dali._tensors.cpu import TensorCPU, TensorListCPU
from dali._tensors.gpu import TensorGPU, TensorListGPU
from dali._tensors.gpu import _order_after as _order_after

__all__ = ["TensorCPU", "TensorGPU", "TensorListCPU", "TensorListGPU"]
