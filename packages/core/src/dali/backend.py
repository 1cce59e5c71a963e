"""DALI's ``nvidia.dali.backend`` module, for the names user code takes from it: the batch and
sample types `TensorListCPU`, `TensorListGPU`, `TensorCPU` and `TensorGPU`.

DALI's module is its C++ binding and holds much more (device queries, library loading); code
that reaches for those has no counterpart here. The types are the ones `dali.tensors` exports.

Example:
    >>> import numpy as np
    >>> from dali.backend import TensorListCPU
    >>> TensorListCPU(np.zeros((2, 3), dtype=np.uint8)).shape()
    [(3,), (3,)]
"""

from __future__ import annotations

from dali._tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU

__all__ = ["TensorCPU", "TensorGPU", "TensorListCPU", "TensorListGPU"]
