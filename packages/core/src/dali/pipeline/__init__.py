"""Public pipeline API: `Pipeline`, `pipeline_def`, `DataNode`, `do_not_convert`.

`dali.pipeline.experimental` holds DALI's experimental `pipeline_def`, whose ``debug=True``
runs the pipeline definition eagerly, one operator at a time (debug mode).
"""

from dali._graph.node import DataNode
from dali._pipeline.pipeline import Pipeline
from dali._pipeline.pipeline_def import do_not_convert, pipeline_def

# (imported so that `dali.pipeline.experimental` is there after `import dali`, as in DALI)
from . import experimental as experimental

DataNode.__module__ = "dali.pipeline"

__all__ = ["DataNode", "Pipeline", "do_not_convert", "pipeline_def"]
