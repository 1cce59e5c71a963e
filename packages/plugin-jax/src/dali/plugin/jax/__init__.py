__path__ = __import__("pkgutil").extend_path(__path__, __name__)
__doc__ = """dali.plugin.jax: DALI pipelines as iterators of ``jax.Array`` (the ``dali-jax`` package).

* `DALIGenericIterator`: wraps pipelines and returns a dict of ``jax.Array`` per batch, with
  zero-copy conversion, sharded global arrays (one sharding, or one per output) and
  pmap-compatible stacks.
* `data_iterator`: a decorator that turns a graph function into a factory of such iterators,
  building one pipeline per device (or per batch shard) and telling each reader its shard.
* `dali.plugin.jax.fn.jax_function`: a JAX function as a pipeline operator.

The first line makes this a pkgutil-style namespace, like ``dali`` and ``dali.plugin``, so the
separately installed ``dali-clu`` can add ``dali.plugin.jax.clu`` (wheel and editable installs).

Example:
    >>> import tempfile
    >>> import dali.fn as fn
    >>> from dali._testing.images import make_image_tree
    >>> from dali.plugin.jax import data_iterator
    >>> image_dir = tempfile.mkdtemp()
    >>> _ = make_image_tree(image_dir)  # 21 small JPEGs in class folders 0, 1, 2
    >>> @data_iterator(output_map=["images", "labels"], reader_name="image_reader")
    ... def iterator_fn():
    ...     jpegs, labels = fn.readers.file(file_root=image_dir, name="image_reader")
    ...     images = fn.decoders.image(jpegs)
    ...     return fn.resize(images, resize_x=256, resize_y=256), labels
    >>> batch = next(iterator_fn(batch_size=8))
    >>> batch["images"].shape, batch["labels"].shape
    ((8, 256, 256, 3), (8, 1))
"""

__version__ = "0.2.0"

from dali.plugin.jax._check import require_jax as _require_jax

_require_jax()

from dali.plugin.jax import fn
from dali.plugin.jax._data_iterator import data_iterator
from dali.plugin.jax._iterator import DALIGenericIterator

__all__ = ["DALIGenericIterator", "data_iterator", "fn"]
