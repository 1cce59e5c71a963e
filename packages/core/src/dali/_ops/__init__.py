"""Operator implementations, one module per family. Importing this package registers them all."""

from dali._ops import constant, transfer  # noqa: F401
from dali._ops.random import generators  # noqa: F401
