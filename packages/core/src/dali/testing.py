"""Test helpers for code built on dali (and for dali's plugins): checkpoint round trips.

Example:
    >>> from dali.testing import STOP, check_save_restore, step
"""

from __future__ import annotations

from dali._testing.checkpoints import (
    STOP,
    ResetAfterStop,
    assert_same_batches,
    check_pipeline_save_restore,
    check_save_restore,
    step,
)

# Plainly sorted, as every public module's `__all__` (the tests check sorted(__all__)).
__all__ = [  # noqa: RUF022 - ruff would put STOP first
    "ResetAfterStop",
    "STOP",
    "assert_same_batches",
    "check_pipeline_save_restore",
    "check_save_restore",
    "step",
]
