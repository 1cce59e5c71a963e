"""Matching a batch's shape to the shape declared for its output (DALI's rule).

A batch of ``B`` samples of shape ``s`` has the shape ``(B, *s)``. The shape declared in
``output_shapes`` may have unknown dimensions (None) or an unknown rank (None), and it may
leave out dimensions of size 1: labels of shape ``(B, 1)`` may be declared ``(B,)``, and with
``batch_size=1`` the batch dimension itself may be left out. `match_shape` finds the one way
to read the batch's shape as the declared one, dropping size-1 dimensions only; none, or more
than one, is an error naming the output. Pure Python: no TensorFlow here.

Example:
    >>> match_shape((8,), (8, 1), batch_size=8, index=1)
    (8,)
    >>> match_shape(None, (8, 224, 224, 3), batch_size=8, index=0)
    (8, 224, 224, 3)
    >>> match_shape((None, 3), (1, 2, 3), batch_size=1, index=0)
    (2, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["Shape", "match_shape"]

#: A declared shape: None (unknown rank), or one entry per dimension, None where unknown.
Shape = tuple[int | None, ...] | None


def _fmt(shape: Sequence[int | None]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _fits(declared: int | None, actual: int) -> bool:
    return declared is None or declared == actual


def _matches(declared: tuple[int | None, ...], actual: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every way to read ``actual`` as ``declared`` by dropping size-1 dimensions of
    ``actual`` (the result of each: the kept dimensions)."""
    if not declared:
        return [()] if all(d == 1 for d in actual) else []
    if len(actual) < len(declared):
        return []
    found = []
    head, rest = actual[0], actual[1:]
    if _fits(declared[0], head):
        found += [(head, *m) for m in _matches(declared[1:], rest)]
    if head == 1:
        found += _matches(declared, rest)
    return found


def match_shape(
    declared: Shape, actual: tuple[int, ...], *, batch_size: int, index: int
) -> tuple[int, ...]:
    """The shape the batch takes for its declared shape (DALI's ``GetCompatibleShape``).

    Args:
        declared: The shape declared for the output (None: any shape).
        actual: The batch's shape, ``(number of samples, *sample shape)``.
        batch_size: The dataset's batch size.
        index: The output's index, for the error messages.

    Returns:
        ``actual`` itself when it fits the declared shape as it is, else ``actual`` with
        size-1 dimensions dropped so that it does.

    Raises:
        ValueError: The shapes cannot be matched, or only in more than one way.
    """
    if declared is None or (
        len(declared) == len(actual) and all(_fits(d, a) for d, a in zip(declared, actual))
    ):
        return actual
    mismatch = (
        f"The shape provided for output `{index}` is not compatible with the shape returned by "
        f"DALI Pipeline. Expected (output_shapes[{index}]): {_fmt(declared)}, got from "
        f"Pipeline: {_fmt(actual)}."
    )
    if len(declared) >= len(actual):
        raise ValueError(mismatch)
    if batch_size != 1:
        if actual[0] != batch_size:
            raise ValueError(
                f"The shape returned by DALI Pipeline for output `{index}` has different "
                f"`batch_size` than the one specified in `DALIDataset`. Specified `batch_size`: "
                f"{batch_size}, got from Pipeline: {actual[0]} in shape: {_fmt(actual)}."
            )
        if declared and not _fits(declared[0], batch_size):
            raise ValueError(
                f"The shape provided for output `{index}` is not compatible with the "
                f"`batch_size` argument that was specified in `DALIDataset`. Specified "
                f"`batch_size`: {batch_size}, got: {declared[0]} in shape: {_fmt(declared)}."
            )
    known = [d for d in declared if d is not None]
    if math.prod(actual) == 1 and len(known) == len(declared) and math.prod(known) == 1:
        return tuple(known)
    found = _matches(declared, actual)
    if len(found) != 1:
        raise ValueError(
            f"The shape provided for output `{index}` is not compatible with the shape returned "
            f"by DALI Pipeline in an unambiguous way. Expected (output_shapes[{index}]): "
            f"{_fmt(declared)}, got from Pipeline: {_fmt(actual)}."
        )
    return found[0]
