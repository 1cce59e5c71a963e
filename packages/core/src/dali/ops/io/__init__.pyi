# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.ops.io` operators (generated from the registry)."""

from dali.ops.io import file as file

__all__ = [
    "file",
]
