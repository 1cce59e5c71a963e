# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.experimental` operators (generated from the registry)."""

from dali.ops.experimental import decoders as decoders
from dali.ops.experimental import inputs as inputs
from dali.ops.experimental import readers as readers

__all__ = [
    "decoders",
    "inputs",
    "readers",
]
