"""pytest setup for dali-core's docstring examples: ``pytest --doctest-modules src/dali``.

Outside ``src/``, so no distribution ships it. ``--doctest-modules`` imports every module;
the ones whose import needs a dependency that is not installed are left out, as
``import dali`` leaves them unimported (each is imported only once its fast path is chosen).
"""

from __future__ import annotations

import importlib.util

# module (relative to this file) -> the distribution its import needs
_OPTIONAL = {"src/dali/_ops/image/resample/jit_kernels.py": "numba"}

collect_ignore = [
    path for path, module in _OPTIONAL.items() if importlib.util.find_spec(module) is None
]
