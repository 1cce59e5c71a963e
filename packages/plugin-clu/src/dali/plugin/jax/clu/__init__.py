"""dali.plugin.jax.clu: DALI pipelines as CLU / T5X data iterators (the ``dali-clu`` package).

* `DALIGenericPeekableIterator`: the JAX iterator with ``peek``/``peek_async``, an
  ``element_spec`` worked out from the graph, ``save``/``restore`` of its checkpoints (also
  with a peeked element pending) and ``is_nonpadding``; it is a
  ``clu.data.dataset_iterator.DatasetIterator`` (DALI's is not), so T5X accepts it.
* `peekable_data_iterator`: the `dali.plugin.jax.data_iterator` decorator making them.

Example:
    >>> import tempfile
    >>> import dali.fn as fn
    >>> from clu.data.dataset_iterator import DatasetIterator
    >>> from dali._testing.images import make_image_tree
    >>> image_dir = tempfile.mkdtemp()
    >>> _ = make_image_tree(image_dir)
    >>> @peekable_data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    ... def iterator_fn():
    ...     jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
    ...     images = fn.decoders.image(jpegs, device="cpu")
    ...     return fn.resize(images, resize_x=128, resize_y=128), labels
    >>> iterator = iterator_fn(batch_size=8)
    >>> isinstance(iterator, DatasetIterator)
    True
    >>> iterator.peek() is next(iterator)
    True
"""

__version__ = "0.2.0"


try:
    import clu.data.dataset_iterator  # noqa: F401 - the one dependency to check first
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "dali.plugin.jax.clu needs the `clu` package (CommonLoopUtils), which is not "
        "installed: `pip install dali-clu clu`."
    ) from e

from dali.plugin.jax.clu._data_iterator import peekable_data_iterator
from dali.plugin.jax.clu._peekable import DALIGenericPeekableIterator

__all__ = ["DALIGenericPeekableIterator", "peekable_data_iterator"]
