"""pytest setup for dali-core's docstring examples: ``pytest --doctest-modules src/dali``.

Outside ``src/``, so no distribution ships it. ``--doctest-modules`` imports every module;
the ones whose import needs a dependency that is not installed are left out, as
``import dali`` leaves them unimported (each is imported only once its fast path is chosen).
"""

from __future__ import annotations

import importlib.util

import pytest

# module (relative to this file) -> the distribution its import needs
_OPTIONAL = {"src/dali/_ops/image/resample/jit_kernels.py": "numba"}

collect_ignore = [
    path for path, module in _OPTIONAL.items() if importlib.util.find_spec(module) is None
]


@pytest.fixture(scope="session", autouse=True)
def _dali_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """The library's caches (readers.coco's parsed annotations, which the examples build) go to a
    temporary folder for the whole session, never to the user's ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DALI_CACHE_DIR", str(tmp_path_factory.mktemp("dali_cache")))
        yield
