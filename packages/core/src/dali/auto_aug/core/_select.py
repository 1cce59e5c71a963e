"""`select`: each sample goes through the augmentation its index names.

The batch is split by ``if`` on the per-sample index, halving the range of candidates at every
level (a binary tree of conditional branches, depth ``log2(len(ops))``), so each augmentation
runs once, on the samples that chose it. It needs ``enable_conditionals=True``.
As DALI's ``nvidia/dali/auto_aug/core/_select.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dali.auto_aug.core._augmentation import Augmentation
from dali.data_node import DataNode as _DataNode

__all__ = ["select", "split_samples_among_ops"]


def split_samples_among_ops(
    op_range_lo: int,
    op_range_hi: int,
    ops: Sequence[Augmentation],
    selected_op_idx: _DataNode,
    op_args: Sequence[Any],
    op_kwargs: dict[str, Any],
) -> _DataNode:
    """Apply ``ops[selected_op_idx]`` where the index lies in ``[op_range_lo, op_range_hi]``."""
    assert op_range_lo <= op_range_hi
    if op_range_lo == op_range_hi:
        return ops[op_range_lo](*op_args, **op_kwargs)
    mid = (op_range_lo + op_range_hi) // 2
    # a per-sample `if`: the samples split between the two halves (Any: DataNode's comparison
    # operators are attached at import, unseen by the type checker)
    idx: Any = selected_op_idx
    if idx <= mid:
        return split_samples_among_ops(op_range_lo, mid, ops, selected_op_idx, op_args, op_kwargs)
    else:
        return split_samples_among_ops(
            mid + 1, op_range_hi, ops, selected_op_idx, op_args, op_kwargs
        )


def select(
    ops: Sequence[Augmentation], selected_op_idx: _DataNode, *op_args: Any, **op_kwargs: Any
) -> _DataNode:
    """Applies the operator from the operators list based on the provided index as if by
    calling `ops[selected_op_idx](**op_kwargs)`.

    The `selected_op_idx` must be a batch of indices from [0, len(ops) - 1] range. The
    `op_kwargs` can contain other data nodes, they will be split into partial batches
    accordingly.
    """
    return split_samples_among_ops(0, len(ops) - 1, ops, selected_op_idx, op_args, op_kwargs)
