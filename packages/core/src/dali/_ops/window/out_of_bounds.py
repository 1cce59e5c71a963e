"""A window that does not fit its input: DALI's ``OutOfBoundsAttr`` (policy and fill values).

``out_of_bounds_policy`` says what a crop or slice window reaching outside the input gives:
``"error"`` (the default) fails naming the sample and the sizes, ``"pad"`` (or its alias
``"constant"``) fills the outside with ``fill_values`` (one value, or one per channel, converted
to the output type as DALI converts them), ``"trim_to_shape"`` cuts the window down to the
input. `check_policy` reads the argument, `apply_policy` applies it to one window, `fill_array`
and `window_fill` make the fill values for a window.

Example:
    >>> apply_policy("trim_to_shape", [2, 3], [10, 5], (10, 6))
    ([2, 3], [8, 3])
    >>> apply_policy("error", [8, 0], [4, 4], (10, 6))[:40]
    'the window of shape (4, 4) at (8, 0) doe'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg
from dali._ops.base import Operator
from dali._ops.numeric import convert_sat

__all__ = [
    "OUT_OF_BOUNDS_ARGS",
    "POLICIES",
    "apply_policy",
    "apply_policy_batch",
    "check_policy",
    "fill_array",
    "gpu_fill_values",
    "inside_bounds",
    "window_fill",
]

#: The values of ``out_of_bounds_policy`` (``"constant"`` is DALI's alias of ``"pad"``).
POLICIES = ("error", "pad", "constant", "trim_to_shape")

#: DALI's OutOfBoundsAttr: what to do with a window that does not fit the input.
OUT_OF_BOUNDS_ARGS = (
    Arg(
        "out_of_bounds_policy",
        "str",
        default="error",
        doc='"error", "pad" (fill with fill_values) or "trim_to_shape".',
    ),
    Arg("fill_values", "float_vec", default=(0.0,), doc="Padding value(s): one, or per channel."),
)


def check_policy(op: Operator) -> str:
    """The operator's ``out_of_bounds_policy``, checked (``"constant"`` is returned as ``"pad"``).

    Raises:
        OperatorError: An unknown policy.
    """
    policy = op.arg("out_of_bounds_policy")
    if policy not in POLICIES:
        raise op.arg_error(
            "out_of_bounds_policy",
            f'unsupported value {policy!r}; supported values are "error" (default), "pad" '
            f'and "trim_to_shape"',
        )
    return "pad" if policy == "constant" else policy


def inside_bounds(
    anchor: Sequence[int], shape: Sequence[int], in_shape: Sequence[int]
) -> list[tuple[int, int]]:
    """Per axis, the ``[start, end)`` of the part of a window inside its input (empty: start ==
    end). What ``trim_to_shape`` keeps, and what `extract.window_slices` copies.

    Example:
        >>> inside_bounds([-2, 3, 7], [5, 4, 2], (10, 6, 5))
        [(0, 3), (3, 6), (7, 7)]
    """
    bounds = []
    for a, s, n in zip(anchor, shape, in_shape):
        lo = max(a, 0)
        bounds.append((lo, max(min(a + s, n), lo)))
    return bounds


def apply_policy(
    policy: str,
    anchor: list[int],
    shape: list[int],
    in_shape: Sequence[int],
) -> tuple[list[int], list[int]] | str:
    """Apply the out-of-bounds policy; returns the window, or an error message for "error"."""
    if policy == "trim_to_shape":
        # the part inside the input, as DALI's ApplySliceBoundsPolicy clamps both ends: a window
        # starting before the input loses what lies before it (anchor -2, shape 5 -> [0, 3))
        bounds = inside_bounds(anchor, shape, in_shape)
        return [lo for lo, _ in bounds], [hi - lo for lo, hi in bounds]
    if policy == "error":
        for d, n in enumerate(in_shape):
            end = anchor[d] + shape[d]
            if anchor[d] < 0 or anchor[d] > n or end < 0 or end > n:
                return (
                    f"the window of shape {tuple(shape)} at {tuple(anchor)} does not fit in the "
                    f'input of shape {tuple(in_shape)} (out_of_bounds_policy="error"; use '
                    f'"pad" or "trim_to_shape" to allow it)'
                )
    return anchor, shape


def fill_array(
    op: Operator,
    values: Sequence[float] | np.ndarray,
    dtype: Any,
    ndim: int,
    channel_axis: int | None,
    channels: int | None,
) -> np.ndarray:
    """``fill_values`` as an array of ``dtype`` broadcastable against a window of ``ndim`` dims.

    One value fills everything; several values are per channel (their count must match the
    channels of the output).

    Raises:
        OperatorError: Several values for an input without channels, or fewer than its
            channels.
    """
    vals: np.ndarray = np.asarray(values, dtype=np.float64).reshape(-1)
    if vals.size == 0:
        vals = np.zeros(1)
    if vals.size > 1:
        if channel_axis is None:
            raise op.arg_error(
                "fill_values",
                f"{vals.size} values given but the input layout has no channel dimension",
            )
        if channels is not None and vals.size < channels:
            raise op.arg_error(
                "fill_values",
                f"give one value or one per channel: {vals.size} values for {channels} channels",
            )
        vals = vals[:channels] if channels is not None else vals
        shape = [1] * ndim
        shape[channel_axis] = vals.size
        vals = vals.reshape(shape)
    else:
        vals = vals.reshape((1,) * ndim)
    return convert_sat(np, vals, np.dtype(dtype))


def window_fill(
    op: Operator, shape: Sequence[int], layout: str, dtype: Any, lead: int = 0
) -> np.ndarray:
    """The op's ``fill_values`` for a window of ``shape`` in ``layout`` (see `fill_array`)."""
    c = layout.find("C")
    return fill_array(
        op,
        op.arg("fill_values"),
        dtype,
        len(shape) + lead,
        None if c < 0 else c + lead,
        None if c < 0 else shape[c],
    )


def gpu_fill_values(
    op: Operator,
    wins: Sequence[tuple[Sequence[int], Sequence[int]]],
    layout: str,
    dtype: Any,
    uniform: bool,
) -> np.ndarray:
    """``fill_values`` in ``dtype`` (one, or one per channel) for the batched GPU window
    kernel (`extract_gpu.crop_batch`), checked against the channels of every window as the
    CPU path (`window_fill`) checks them.

    Args:
        op: The operator (its ``fill_values``).
        wins: Per sample ``(anchor, shape)``.
        layout: The batch's layout.
        dtype: The output type.
        uniform: One window for a dense batch: an error is the batch's, not a sample's.

    Raises:
        SampleFailure: Several values that do not fit a sample's window (``uniform``: the
            `OperatorError` itself).
    """
    values = np.asarray(op.arg("fill_values"), np.float64).reshape(-1)
    if values.size > 1:
        checked = set()
        for i, (_, shape) in enumerate(wins):
            key = tuple(shape)
            if key in checked:
                continue
            try:
                window_fill(op, shape, layout, dtype)
            except Exception as e:
                if uniform:
                    raise
                raise SampleFailure(i, e) from e
            checked.add(key)
    return convert_sat(np, values if values.size else np.zeros(1), np.dtype(dtype))


def apply_policy_batch(
    policy: str, anchor: np.ndarray, shape: np.ndarray, in_shape: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """`apply_policy` of a batch of windows at once: int64 ``[n, ndim]`` anchors, shapes and
    input shapes. None when ``"error"`` refuses a window (`apply_policy` of each then gives
    the message).

    Example:
        >>> a, s = apply_policy_batch(
        ...     "trim_to_shape", np.array([[-2, 3, 7]]), np.array([[5, 4, 2]]), np.array([[10, 6, 5]])
        ... )
        >>> a.tolist(), s.tolist()
        ([[0, 3, 7]], [[3, 3, 0]])
    """
    if policy == "trim_to_shape":  # `inside_bounds`
        lo = np.maximum(anchor, 0)
        return lo, np.maximum(np.minimum(anchor + shape, in_shape), lo) - lo
    if policy == "error":
        end = anchor + shape
        if np.any((anchor < 0) | (anchor > in_shape) | (end < 0) | (end > in_shape)):
            return None
    return anchor, shape
