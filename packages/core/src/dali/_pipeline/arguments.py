"""Checking and normalising the `Pipeline` constructor's arguments.

Each helper raises the error DALI raises for a bad value (``TypeError`` for a wrong type,
``ValueError`` for a wrong value) and returns the value in the form the pipeline keeps. The
types are checked when the pipeline is constructed (`check_types`), each error naming its
argument; values that DALI checks at build (a missing batch size) wait for the build.

Example:
    >>> check_types(batch_size=4, seed=None, exec_async=True)
    >>> check_types(seed="abc")
    Traceback (most recent call last):
        ...
    TypeError: Pipeline argument `seed` must be an int or None, got 'abc' (str)
    >>> normalize_depth({"cpu_size": 3, "gpu_size": 2}, exec_async=True)
    (3, 2, True)
    >>> check_output_spec(3, "output_ndim", "ndim")
    3
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "CPU_PARALLELISM",
    "check_batch_settings",
    "check_memory_limit",
    "check_output_spec",
    "check_types",
    "normalize_depth",
]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_flag(value: Any) -> bool:
    # DALI passes the flags to C++ as bools: True/False, and 0/1 as Python converts them
    return isinstance(value, (bool, np.bool_)) or (_is_int(value) and value in (0, 1))


#: kind -> (what the message says, the test)
_KINDS: dict[str, tuple[str, Any]] = {
    "int": ("an int", _is_int),
    "int?": ("an int or None", lambda v: v is None or _is_int(v)),
    "flag": ("a bool", _is_flag),
    "flag?": ("a bool or None", lambda v: v is None or _is_flag(v)),
    "str": ("a str", lambda v: isinstance(v, str)),
}

#: The type of each constructor argument that `check_types` checks.
_TYPES = {
    "batch_size": "int?",
    "num_threads": "int?",
    "device_id": "int?",
    "seed": "int?",
    "exec_pipelined": "flag",
    "exec_async": "flag",
    "bytes_per_sample": "int",
    "set_affinity": "flag",
    "enable_memory_stats": "flag",
    "enable_checkpointing": "flag",
    "py_num_workers": "int",
    "py_start_method": "str",
    "exec_dynamic": "flag?",
    "experimental_exec_dynamic": "flag?",
    "worker_process": "flag?",
    "cpu_parallelism": "str",
}

#: `Pipeline`'s ``cpu_parallelism``: how a CPU pipeline spreads its work (`Pipeline.cpu_workers`)
CPU_PARALLELISM = ("auto", "threads", "processes")


def check_types(**args: Any) -> None:
    """Check the types of `Pipeline` constructor arguments (``name=value``).

    Raises:
        TypeError: Naming the first argument of a wrong type (a str seed, a float batch size).
    """
    for name, value in args.items():
        what, accepts = _KINDS[_TYPES[name]]
        if not accepts(value):
            raise TypeError(
                f"Pipeline argument `{name}` must be {what}, got {value!r} ({type(value).__name__})"
            )


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
            sizes = depth["cpu_size"], depth["gpu_size"]
        except KeyError as e:
            raise ValueError(
                f"`prefetch_queue_depth` dict needs 'cpu_size' and 'gpu_size', missing {e}"
            ) from None
        if not all(_is_int(v) for v in sizes):
            raise TypeError(f"`prefetch_queue_depth` sizes must be ints, got {depth!r}")
        if min(sizes) < 1:
            raise ValueError(f"`prefetch_queue_depth` sizes must be at least 1, got {depth!r}")
        return int(sizes[0]), int(sizes[1]), True
    if not _is_int(depth):
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
    """The batch size and the number of threads, checked when the pipeline is built (as DALI
    does; their types were checked at construction, `check_types`)."""
    if max_batch_size is None:
        raise ValueError("The batch size must be set.")
    if max_batch_size < 1:
        raise ValueError(f"The batch size must be positive, got {max_batch_size}")
    if num_threads is None:
        raise TypeError("num_threads must be set (the number of CPU worker threads, at least 1)")
    if num_threads < 1:
        raise ValueError(f"num_threads must be at least 1, got {num_threads}")
