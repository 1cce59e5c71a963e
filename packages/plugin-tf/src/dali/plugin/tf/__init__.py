"""dali.plugin.tf: DALI pipelines as ``tf.data`` datasets (the ``dali-tf`` package), as in DALI
with ``nvidia.dali`` written ``dali``, and nothing compiled.

* `DALIDataset`: a real ``tf.data.Dataset`` (``isinstance`` holds) whose elements are tuples
  of tensors, one per pipeline output, handed over through DLPack (GPU outputs on the
  pipeline's GPU). ``prefetch``, ``take``, eager and ``tf.function`` loops,
  ``keras.Model.fit`` and ``tf.distribute`` work; ``tf.train.Checkpoint(data=dataset)`` saves
  and restores where its iterator stands (beyond DALI).
* `experimental.DALIDatasetWithInputs` / `experimental.Input`: ``tf.data`` datasets feeding
  the pipeline's named external sources.
* `DALIIterator` (legacy), `DALIRawIterator` (DALI's op, which runs a pipeline serialized by
  `serialize_pipeline`), `dataset_options` and the version checks
  ``dataset_*_compatible_tensorflow()``.

Importing it does not import TensorFlow (only checks that a recent enough one is installed,
and says what to ``pip install`` otherwise); the first use of a name that needs TensorFlow
imports it.

Example:
    >>> import tempfile
    >>> import tensorflow as tf
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> from dali._testing.images import make_image_tree
    >>> image_dir = tempfile.mkdtemp()
    >>> _ = make_image_tree(image_dir)  # 21 small JPEGs in class folders 0, 1, 2
    >>> @pipeline_def(batch_size=8, num_threads=2, device_id=None)
    ... def pipe():
    ...     jpegs, labels = fn.readers.file(file_root=image_dir, name="Reader")
    ...     images = fn.decoders.image(jpegs)
    ...     return fn.resize(images, resize_x=64, resize_y=64), labels
    >>> dataset = DALIDataset(pipe(), batch_size=8, device_id=None,
    ...                       output_dtypes=(tf.uint8, tf.int32),
    ...                       output_shapes=((8, 64, 64, 3), (8,)))
    >>> images, labels = next(iter(dataset))
    >>> images.shape, labels.dtype
    (TensorShape([8, 64, 64, 3]), tf.int32)
"""

from __future__ import annotations

__version__ = "0.2.0"

import importlib
from typing import TYPE_CHECKING, Any

from dali.plugin.tf._check import require_tensorflow as _require_tensorflow

_require_tensorflow()

from dali.plugin.tf import experimental

if TYPE_CHECKING:
    from dali.plugin.tf._dataset import DALIDataset, dataset_options
    from dali.plugin.tf._legacy import (
        DALIIterator,
        DALIRawIterator,
        dataset_compatible_tensorflow,
        dataset_distributed_compatible_tensorflow,
        dataset_inputs_compatible_tensorflow,
        serialize_pipeline,
    )

__all__ = [
    "DALIDataset",
    "DALIIterator",
    "DALIRawIterator",
    "dataset_compatible_tensorflow",
    "dataset_distributed_compatible_tensorflow",
    "dataset_inputs_compatible_tensorflow",
    "dataset_options",
    "experimental",
    "serialize_pipeline",
]

#: Where each name that needs TensorFlow lives (imported on first use).
_LAZY = {
    "DALIDataset": "dali.plugin.tf._dataset",
    "dataset_options": "dali.plugin.tf._dataset",
    "DALIIterator": "dali.plugin.tf._legacy",
    "DALIRawIterator": "dali.plugin.tf._legacy",
    "dataset_compatible_tensorflow": "dali.plugin.tf._legacy",
    "dataset_distributed_compatible_tensorflow": "dali.plugin.tf._legacy",
    "dataset_inputs_compatible_tensorflow": "dali.plugin.tf._legacy",
    "serialize_pipeline": "dali.plugin.tf._legacy",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
