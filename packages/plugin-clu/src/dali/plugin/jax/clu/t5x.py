"""dali.plugin.jax.clu.t5x: DALI pipelines as T5X data sources (gin-configurable).

* `DaliDatasetConfig`: a data set (the graph function and its iterator's arguments).
* `get_dataset`, `get_eval_datasets`: T5X's ``get_dataset_fn`` and
  ``train_eval_get_dataset_fn``, host-local NumPy batches that T5X shards itself.
* `create_sharded_iterator` (T5X's ``prepare_train_iter_fn``, as JAX-Toolbox's rosetta) and
  `sharded_iterator` (from a mesh and a partition spec): global ``jax.Array`` batches.
* `T5xIterator`: what they return, a `DALIGenericPeekableIterator` (so a CLU
  ``DatasetIterator``) with T5X's endless or bounded passes.
* `register_gin_configurables`: gin without dynamic registration.

The private module ``_t5x`` explains the flow; ``examples/t5x/`` has gin files.

Example:
    >>> import tempfile, dali.fn as fn
    >>> from dali._testing.images import make_image_tree
    >>> root = tempfile.mkdtemp(); _ = make_image_tree(root)
    >>> def images(shard_id=0, num_shards=1):
    ...     jpegs, labels = fn.readers.file(file_root=root, name="reader",
    ...                                     shard_id=shard_id, num_shards=num_shards)
    ...     return fn.resize(fn.decoders.image(jpegs), size=(32, 32)), labels
    >>> cfg = DaliDatasetConfig(images, ["images", "labels"], batch_size=8, reader_name="reader")
    >>> train_iter = get_dataset(cfg, shard_id=0, num_shards=1)
    >>> batch = next(train_iter)
    >>> type(batch["images"]).__name__, batch["images"].shape
    ('ndarray', (8, 32, 32, 3))
    >>> evaluation = get_eval_datasets(cfg, 0, 1, eval_steps=2)["validation"]
    >>> len([b for b in evaluation]), len([b for b in evaluation])  # the same 2, again
    (2, 2)
"""

from dali.plugin.jax.clu._t5x import (
    DaliDatasetConfig,
    create_sharded_iterator,
    get_dataset,
    get_eval_datasets,
    register_gin_configurables,
    sharded_iterator,
)
from dali.plugin.jax.clu._t5x_iterator import T5xIterator

__all__ = [
    "DaliDatasetConfig",
    "T5xIterator",
    "create_sharded_iterator",
    "get_dataset",
    "get_eval_datasets",
    "register_gin_configurables",
    "sharded_iterator",
]
