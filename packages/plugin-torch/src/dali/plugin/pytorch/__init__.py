"""dali.plugin.pytorch: DALI pipelines as iterators of ``torch.Tensor`` (the ``dali-torch``
package), as in DALI with ``nvidia.dali`` written ``dali``.

* `DALIGenericIterator`: a list with one ``{name: torch.Tensor}`` dict per pipeline, every
  tensor sharing the pipeline's memory (DLPack; GPU outputs on ``cuda:<device_id>``, ordered
  on torch's current stream); `DALIClassificationIterator` names the outputs
  ``data``/``label``; `DALIRaggedIterator` also gives ragged outputs as lists or sparse COO
  tensors. Every `LastBatchPolicy`, PARTIAL included. ``state_dict()`` /
  ``load_state_dict()`` save and restore the position exactly (torchdata's
  ``StatefulDataLoader`` convention).
* `feed_ndarray`, `to_torch_type` (and `torch_utils`): DALI's copy helpers.
* `fn.torch_python_function` / `TorchPythonFunction`: a function on torch tensors as a
  pipeline operator, CPU and GPU.
* `distributed.shard_info`: each ``torch.distributed`` rank's ``shard_id``/``num_shards``.
* `experimental.proxy` (imported on its own): DALI's proxy, one pipeline in the training
  process serving the batches of a multi-process ``torch.utils.data.DataLoader``.

Importing it does not import torch (only checks that a recent enough one is installed).

Example:
    >>> import tempfile
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
    >>> it = DALIClassificationIterator(pipe(), reader_name="Reader",
    ...                                 last_batch_policy=LastBatchPolicy.PARTIAL)
    >>> [tuple(b[0]["data"].shape) for b in it]
    [(8, 64, 64, 3), (8, 64, 64, 3), (5, 64, 64, 3)]
"""

__version__ = "0.2.0"


from dali.plugin.pytorch._check import require_torch as _require_torch

_require_torch()

from dali.author import LastBatchPolicy
from dali.plugin.pytorch import distributed, fn, torch_utils
from dali.plugin.pytorch._convert import feed_ndarray, to_torch_type
from dali.plugin.pytorch._iterator import DALIClassificationIterator, DALIGenericIterator
from dali.plugin.pytorch._ragged import DALIRaggedIterator
from dali.plugin.pytorch._torch_function import TorchPythonFunction

__all__ = [
    "DALIClassificationIterator",
    "DALIGenericIterator",
    "DALIRaggedIterator",
    "LastBatchPolicy",
    "TorchPythonFunction",
    "distributed",
    "feed_ndarray",
    "fn",
    "to_torch_type",
    "torch_utils",
]
