"""Batches and samples of the DALI API (``nvidia.dali.tensors`` -> ``dali.tensors``).

A pipeline's ``run()`` returns one :class:`TensorListCPU` (or :class:`TensorListGPU`) per
output; indexing a batch gives a :class:`TensorCPU` (or :class:`TensorGPU`).

Example:
    >>> import numpy as np
    >>> from dali.tensors import TensorListCPU
    >>> tl = TensorListCPU(np.arange(6, dtype=np.int32).reshape(2, 3))
    >>> tl.as_array().tolist(), tl[1].shape()
    ([[0, 1, 2], [3, 4, 5]], [3])
"""

from __future__ import annotations

from dali._tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU

__all__ = ["TensorCPU", "TensorGPU", "TensorListCPU", "TensorListGPU"]
