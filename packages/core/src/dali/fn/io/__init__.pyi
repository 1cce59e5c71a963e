# Generated from the operator registry by `python -m dali._graph.stubs`; do not edit.
"""`dali.fn.io` operators (generated from the registry)."""

from dali.fn.io import file as file

__all__ = [
    "file",
]
