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

__all__ = [
    "ResetAfterStop",
    "STOP",
    "assert_same_batches",
    "check_pipeline_save_restore",
    "check_save_restore",
    "step",
]
