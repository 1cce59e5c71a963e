"""DALI's ``nvidia.dali.plugin.pytorch.torch_utils``: dtype mapping and copies into torch.

* `to_torch_type`: ``DALIDataType`` -> ``torch.dtype`` (nine types, as DALI; others KeyError).
* `feed_ndarray`: copy a DALI tensor or batch into an existing torch tensor.
* `to_torch_tensor`: a DALI tensor as a torch tensor, copied or shared (DLPack).

Example:
    >>> from dali import types
    >>> to_torch_type[types.FLOAT16]
    torch.float16
"""

from dali.plugin.pytorch._convert import feed_ndarray, to_torch_tensor, to_torch_type

__all__ = ["feed_ndarray", "to_torch_tensor", "to_torch_type"]
