"""Fixtures shared by the core tests (append new fixtures; keep each one self-contained)."""

from __future__ import annotations

import pytest

# -- test images (dali._testing.images) --------------------------------------------------------


@pytest.fixture(scope="session")
def edge_images(tmp_path_factory: pytest.TempPathFactory):
    """``{name: path}`` of `dali._testing.images.make_edge_cases` (PNG, CMYK, corrupt, ...)."""
    pytest.importorskip("PIL")
    from dali._testing.images import make_edge_cases

    return make_edge_cases(tmp_path_factory.mktemp("edge_images"))
