"""The framework iterators' own state and checkpoints (DALI §5): `IteratorStateMixin`.

The state of an iterator is a few integers with DALI's field names (the samples counted, per
shard with ``reader_name``, the shard sizes and ids, the epoch size): `state_dict` /
`load_state_dict` as a small JSON-serialisable dict, and the ``iterator_data`` that each
pipeline checkpoint embeds (`checkpoints`; pipelines restored from one hand it back to a new
iterator, `_setup_checkpointing`). `dali.plugin._iterator_core._DaliBaseIterator` mixes it in.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["IteratorStateMixin"]

_logger = logging.getLogger("dali.plugin.base_iterator")

#: The fields of the iterator state, with DALI's names (they appear in its checkpoints).
_STATE_FIELDS = ("_counter", "_counter_per_gpu", "_shard_sizes_per_gpu", "_shards_id", "_size")
#: Only iterators with ``reader_name`` have these (one entry per shard, or per pipeline).
_READER_FIELDS = ("_counter_per_gpu", "_shard_sizes_per_gpu", "_shards_id")

_NO_PIPELINE_CHECKPOINTS = (
    "Iterator checkpoints contain a checkpoint of every pipeline, and this dali-core does not "
    "implement pipeline checkpoints yet (`Pipeline._get_checkpoint`). The iterator's own state "
    "is available as JSON from `state_dict()` / `load_state_dict()`."
)


class IteratorStateMixin:
    """`state_dict`, `load_state_dict` and `checkpoints` of `_DaliBaseIterator`.

    It reads the iterator's counters and these attributes, which the iterator sets up.
    """

    _pipes: list[Any]
    _reader_name: str | None
    _first_batch: Any
    _ever_consumed: bool
    _initial_state: dict[str, Any] | None

    def state_dict(self) -> dict[str, Any]:
        """The iterator's position as a small JSON-serialisable dict (DALI's field names).

        Before anything is consumed it is the state from before ``prepare_first_batch``. It
        does not include the pipelines' positions: restoring a run also needs the pipelines
        restored to the same point (see `checkpoints`).

        Example:
            ``{"_counter": 16, "_counter_per_gpu": [0, 0], "_shard_sizes_per_gpu": [10, 11],
            "_shards_id": [0, 1], "_size": 16}``
        """
        if not self._ever_consumed and getattr(self, "_initial_state", None) is not None:
            return json.loads(json.dumps(self._initial_state))
        state: dict[str, Any] = {}
        for field in _STATE_FIELDS:
            if hasattr(self, field):
                value = getattr(self, field)
                state[field] = [int(v) for v in value] if field in _READER_FIELDS else int(value)
        return state

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what `state_dict` returned, for an iterator configured the same way.

        The pipelines must be at the matching position (restored from the same checkpoint).
        Make the iterator with ``prepare_first_batch=False``: a batch prepared in the
        constructor was read with the old state.

        Raises:
            ValueError: A missing, unknown or ill-shaped field.
            RuntimeError: A batch prepared by the constructor is still pending.
        """
        if self._first_batch is not None:
            raise RuntimeError(
                "load_state_dict: the constructor already prepared a batch with the old state; "
                "create the iterator with prepare_first_batch=False"
            )
        expected = [f for f in _STATE_FIELDS if hasattr(self, f)]
        missing = [f for f in expected if f not in state]
        unknown = [f for f in state if f not in expected]
        if missing or unknown:
            raise ValueError(
                f"The iterator state does not match this iterator (reader_name="
                f"{self._reader_name!r}): missing fields {missing}, unknown fields {unknown}"
            )
        new: dict[str, Any] = {}
        for field in expected:
            value = state[field]
            if field in _READER_FIELDS:
                arr = np.asarray(value, dtype=np.int64)
                if arr.shape != getattr(self, field).shape:
                    raise ValueError(
                        f"The iterator state field `{field}` has {arr.size} entries, this "
                        f"iterator needs {getattr(self, field).size}"
                    )
                new[field] = arr
            else:
                new[field] = int(value)
        for field, value in new.items():
            setattr(self, field, value)
        # what was saved before this state no longer describes the iterator
        self._initial_state = None
        self._initial_checkpoints = None

    def _setup_checkpointing(self) -> None:
        flags = [bool(getattr(p, "_enable_checkpointing", False)) for p in self._pipes]
        if any(f != flags[0] for f in flags):
            raise ValueError(
                "All wrapped pipelines must have the same value for `enable_checkpointing`."
            )
        self._enable_checkpointing = flags[0]
        self._initial_checkpoints: list[Any] | None = None
        if not self._enable_checkpointing:
            return
        restored = [bool(getattr(p, "is_restored_from_checkpoint", False)) for p in self._pipes]
        if any(restored):
            data = [getattr(p, "_iterator_data", None) for p in self._pipes]
            if not all(restored):
                _logger.warning(
                    "Some, but not all of the pipelines used were restored from checkpoint. "
                    "This iterator might produce unexpected results."
                )
            elif any(d != data[0] for d in data):
                _logger.warning(
                    "The provided pipelines had different iterator data in the checkpoints "
                    "they were restored from. This iterator might produce unexpected results."
                )
            self._restore_iterator_data(data[0])
        if self._pipelines_checkpoint():
            iterator_data = self._iterator_data_json()
            self._initial_checkpoints = [
                p._get_checkpoint(iterator_data=iterator_data) for p in self._pipes
            ]

    def _pipelines_checkpoint(self) -> bool:
        return all(callable(getattr(p, "_get_checkpoint", None)) for p in self._pipes)

    def _iterator_data_json(self) -> str:
        return json.dumps(self.state_dict(), sort_keys=True)

    def _restore_iterator_data(self, iterator_data: str | bytes | None) -> None:
        if not iterator_data:
            _logger.warning(
                "Iterator data was not saved in the checkpoint. "
                "This iterator might produce unexpected results."
            )
            return
        self.load_state_dict(json.loads(iterator_data))

    def checkpoints(self) -> list[Any]:
        """One checkpoint per pipeline, each embedding the iterator state (`state_dict`).

        Restore by building each pipeline with ``checkpoint=cps[i]`` (and
        ``enable_checkpointing=True``) and making a new iterator over them: it continues
        exactly where this one stopped. Before anything is consumed, the checkpoints made in
        the constructor are returned, so ``prepare_first_batch`` does not shift them.

        Raises:
            ValueError: The pipelines were made without ``enable_checkpointing=True``.
            NotImplementedError: The pipelines cannot make checkpoints (this dali-core has no
                pipeline checkpoints yet); `state_dict` gives the iterator's part.
        """
        if not self._enable_checkpointing:
            raise ValueError("Cannot access checkpoints with checkpointing disabled")
        if not self._pipelines_checkpoint():
            raise NotImplementedError(_NO_PIPELINE_CHECKPOINTS)
        if not self._ever_consumed and self._initial_checkpoints is not None:
            return list(self._initial_checkpoints)
        iterator_data = self._iterator_data_json()
        return [p._get_checkpoint(iterator_data=iterator_data) for p in self._pipes]
