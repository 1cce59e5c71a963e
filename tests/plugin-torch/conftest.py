"""Shared setup of the dali-torch tests: torch must be installed (the `torch` nox session)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
