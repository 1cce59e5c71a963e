# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.experimental` operators (generated from the registry)."""

from dali.fn.experimental import decoders as decoders
from dali.fn.experimental import inputs as inputs
from dali.fn.experimental import readers as readers

__all__ = [
    "decoders",
    "inputs",
    "readers",
]
