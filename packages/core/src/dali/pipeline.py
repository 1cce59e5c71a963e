"""Public pipeline API: `Pipeline`, `pipeline_def`, `DataNode`, `do_not_convert`."""

from dali._graph.node import DataNode
from dali._pipeline.pipeline import Pipeline
from dali._pipeline.pipeline_def import do_not_convert, pipeline_def

DataNode.__module__ = "dali.pipeline"

__all__ = ["DataNode", "Pipeline", "do_not_convert", "pipeline_def"]
