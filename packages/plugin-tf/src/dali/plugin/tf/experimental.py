"""dali.plugin.tf.experimental: `DALIDatasetWithInputs` and `Input`, ``tf.data`` datasets
feeding a pipeline's named external sources (DALI's experimental module).

Importing it does not import TensorFlow; the first use of a name does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali.plugin.tf._inputs import DALIDatasetWithInputs, Input

__all__ = ["DALIDatasetWithInputs", "Input"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("dali.plugin.tf._inputs"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
