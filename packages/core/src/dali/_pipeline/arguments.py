"""Checking and normalising the `Pipeline` constructor's arguments.

Each helper raises the error DALI raises for a bad value (``TypeError`` for a wrong type,
``ValueError`` for a wrong value) and returns the value in the form the pipeline keeps.

Example:
    >>> normalize_depth({"cpu_size": 3, "gpu_size": 2}, exec_async=True)
    (3, 2, True)
    >>> check_output_spec(3, "output_ndim", "ndim")
    3
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_batch_settings", "check_memory_limit", "check_output_spec", "normalize_depth"]


def normalize_depth(depth: Any, exec_async: bool) -> tuple[int, int, bool]:
    """``prefetch_queue_depth`` as (CPU queue size, GPU queue size, whether they are separate).

    Raises:
        TypeError: Neither an int nor a dict.
        ValueError: A dict without ``exec_async`` or without both sizes; a depth below 1.
    """
    if isinstance(depth, dict):
        if not exec_async:
            raise ValueError(
                "`prefetch_queue_depth` given as a dict (separated queues) requires exec_async=True"
            )
        try:
            return int(depth["cpu_size"]), int(depth["gpu_size"]), True
        except KeyError as e:
            raise ValueError(
                f"`prefetch_queue_depth` dict needs 'cpu_size' and 'gpu_size', missing {e}"
            ) from None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(
            f"`prefetch_queue_depth` must be an int or a dict with 'cpu_size' and 'gpu_size', "
            f"got {type(depth).__name__}"
        )
    if depth < 1:
        raise ValueError(f"`prefetch_queue_depth` must be at least 1, got {depth}")
    return int(depth), int(depth), False


def check_output_spec(value: Any, name: str, kind: str) -> Any:
    """``output_dtype`` / ``output_ndim`` / ``output_layout`` (``kind``: "dtype", "ndim" or
    "layout"): one value for every output, or a list with one per output (None: unchecked)."""
    from dali import types

    if value is None:
        return None
    seq = value if isinstance(value, (list, tuple)) else None
    items = seq if seq is not None else [value]
    for v in items:
        if v is None:
            continue
        if kind == "dtype":
            if not isinstance(v, (types.DALIDataType, int)) or isinstance(v, bool):
                raise TypeError(f"`{name}` entries must be dali.types.DALIDataType, got {v!r}")
            if int(v) == int(types.NO_TYPE):
                raise ValueError(f"`{name}` cannot be NO_TYPE; use None for 'any type'")
        elif kind == "ndim":
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise TypeError(f"`{name}` entries must be non-negative ints, got {v!r}")
        elif not isinstance(v, str):
            raise TypeError(f"`{name}` entries must be layout strings, got {v!r}")
    return list(items) if seq is not None else value


def check_memory_limit(what: str, limit: Any) -> None:
    """``device_memory_limit`` / ``pinned_memory_limit``: a number of bytes, or None."""
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 0
    ):
        raise ValueError(f"`{what}` must be a number of bytes (>= 0) or None, got {limit!r}")


def check_batch_settings(max_batch_size: Any, num_threads: Any) -> None:
    """The batch size and the number of threads, checked when the pipeline is built."""
    if max_batch_size is None:
        raise ValueError("The batch size must be set.")
    if isinstance(max_batch_size, bool) or not isinstance(max_batch_size, (int, np.integer)):
        raise TypeError(f"batch_size must be an int, got {max_batch_size!r}")
    if max_batch_size < 1:
        raise ValueError(f"The batch size must be positive, got {max_batch_size}")
    if num_threads is None:
        raise TypeError("num_threads must be set (the number of CPU worker threads, at least 1)")
    if num_threads < 1:
        raise ValueError(f"num_threads must be at least 1, got {num_threads}")
