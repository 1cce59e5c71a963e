"""Element-wise math on DataNodes: ``dali.math.sqrt(x)``, ``dali.math.clamp(x, 0, 1)``."""

from dali._ops.math.functions import *
from dali._ops.math.functions import __all__  # noqa: F401
