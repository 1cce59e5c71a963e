"""Shared pytest setup: ``gpu``-marked tests are skipped when no CUDA device is visible,
``--doctest-modules`` leaves the conftest.py files alone, and the ``image_tree`` fixture (the
class tree of JPEGs the tutorials read) serves every package's tests.

``conftest`` is not a module to import from: helpers shared by test modules live beside this
file (``graph_utils``, ``iterator_utils``, ``parity``).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def image_tree(tmp_path_factory: pytest.TempPathFactory):
    """The 21-image class tree of `dali._testing.images.make_image_tree`; returns its root.

    Image ``i`` is ``<root>/<i % 3>/img_<i:02d>.jpg``; ``<root>/list.txt`` maps it to label ``i``.
    """
    pytest.importorskip("PIL")
    from dali._testing.images import make_image_tree

    root = tmp_path_factory.mktemp("image_tree")
    make_image_tree(root)
    return root


@pytest.fixture(scope="session", autouse=True)
def _dali_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """The library's caches (readers.coco's parsed annotations) go to a temporary folder for the
    whole session, never to the user's ~/.cache; processes the tests start inherit it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DALI_CACHE_DIR", str(tmp_path_factory.mktemp("dali_cache")))
        yield


def _cuda_device_visible() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except (ImportError, OSError, RuntimeError):  # no CuPy, no CUDA library, no driver/device
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    # CuPy is imported only when a gpu test was collected: core must run with numpy alone.
    if not gpu_items or _cuda_device_visible():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device; none is visible")
    for item in gpu_items:
        item.add_marker(skip)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # conftest.py files hold no tests; `--doctest-modules` would import each one again as a
    # module named "conftest", which is another conftest.py's where several are loaded
    return True if collection_path.name == "conftest.py" else None
