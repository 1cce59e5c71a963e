__path__ = __import__("pkgutil").extend_path(__path__, __name__)
__doc__ = """dali: NVIDIA DALI's Python API in pure Python (``dali`` for ``nvidia.dali``).

The first line makes ``dali`` a pkgutil-style namespace package, so framework plugins installed
as separate distributions (wheel or editable) can add ``dali/plugin/<name>/``.
"""

from dali import backend, data_node, fn, math, ops, tensors, tfrecord, types
from dali._graph.node import newaxis
from dali.pipeline import DataNode, Pipeline, do_not_convert, pipeline_def

__version__ = "0.2.0"

__all__ = [
    "DataNode",
    "Pipeline",
    "backend",
    "data_node",
    "do_not_convert",
    "fn",
    "math",
    "newaxis",
    "ops",
    "pipeline",
    "pipeline_def",
    "tensors",
    "tfrecord",
    "types",
]
