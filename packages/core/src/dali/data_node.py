"""DALI's ``nvidia.dali.data_node`` module: `DataNode`, the symbolic output of an operator.

User code written for DALI imports it from here (``from nvidia.dali.data_node import
DataNode``, for type annotations and ``isinstance`` checks); it is the class `dali.pipeline`
exports.

Example:
    >>> from dali import data_node, pipeline
    >>> data_node.DataNode is pipeline.DataNode
    True
"""

from __future__ import annotations

from dali._graph.node import DataNode

__all__ = ["DataNode"]
