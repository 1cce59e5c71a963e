"""The iterator core shared by every framework plugin (``nvidia.dali.plugin.base_iterator``).

`LastBatchPolicy` chooses what happens to the last batch of an epoch; `_DaliBaseIterator` is
the base class of the framework iterators (``dali.plugin.jax``, ``dali.plugin.pytorch``, ...):
it owns epochs, ``len()``, the shard arithmetic, `reset` and the iterator state, and a plugin
only converts batches. The implementation is in `dali.plugin._iterator_core`.

Example:
    >>> from dali.plugin.base_iterator import LastBatchPolicy
    >>> [p.name for p in LastBatchPolicy]
    ['FILL', 'DROP', 'PARTIAL']
"""

from __future__ import annotations

from dali.plugin._iterator_core import LastBatchPolicy, _DaliBaseIterator

__all__ = ["LastBatchPolicy", "_DaliBaseIterator"]
