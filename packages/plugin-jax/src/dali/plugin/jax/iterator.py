"""DALI's ``nvidia.dali.plugin.jax.iterator`` module: `DALIGenericIterator` and `data_iterator`.

User code written for DALI may import the iterator from this module rather than from the
package; both give the same objects. Plugins that subclass the iterator (dali-clu) get their
decorator from `data_iterator_for`.

Example:
    >>> from dali.plugin.jax import DALIGenericIterator, iterator
    >>> iterator.DALIGenericIterator is DALIGenericIterator
    True
"""

from __future__ import annotations

from dali.plugin.jax._data_iterator import data_iterator, data_iterator_for
from dali.plugin.jax._iterator import DALIGenericIterator

__all__ = ["DALIGenericIterator", "data_iterator", "data_iterator_for"]
