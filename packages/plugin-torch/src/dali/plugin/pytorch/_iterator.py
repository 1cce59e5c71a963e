"""`DALIGenericIterator` and `DALIClassificationIterator`: DALI pipelines as an iterator of
``torch.Tensor`` batches.

Each ``next()`` returns **a list with one dict per pipeline** (a list even for one pipeline),
``{name: torch.Tensor}`` in ``output_map`` order: ``batch[0]["data"]``. Every output becomes one
tensor of shape ``(batch, *sample_shape)`` (so batches must be uniform; `DALIRaggedIterator`
takes ragged ones), sharing the pipeline's memory through DLPack: on the CPU, or on
``torch.device("cuda", pipe.device_id)`` for GPU outputs, ordered on torch's current stream of
that device without a host synchronisation (`dali.plugin.pytorch._convert`).

Epochs, ``len()``, shards, every `LastBatchPolicy` (PARTIAL cuts the last batch of each
pipeline to the samples of the epoch), ``reset`` and checkpoints are the shared
`dali.author.BaseIterator`; ``state_dict()``/``load_state_dict()`` (torchdata's
``StatefulDataLoader`` convention) hold the pipelines' checkpoints.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(lambda i: np.full((2, 3), i, np.float32), batch=True)
    >>> it = DALIGenericIterator(pipe(), ["x"])
    >>> batch = next(it)
    >>> type(batch).__name__, tuple(batch[0]["x"].shape), batch[0]["x"].dtype
    ('list', (2, 3), torch.float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dali.author import BaseIterator, LastBatchPolicy
from dali.plugin.pytorch._convert import batch_to_torch

if TYPE_CHECKING:
    import torch
    from dali.pipeline import Pipeline

__all__ = ["DALIClassificationIterator", "DALIGenericIterator"]


class DALIGenericIterator(BaseIterator):
    """Iterate over DALI pipelines, getting a list with one ``dict`` of tensors per pipeline.

    Args:
        pipelines: One pipeline or a list (one per GPU); they must have the same batch size,
            and every output must be a uniform batch (all samples of one shape).
        output_map: One distinct name per pipeline output: the keys of each dict.
        size: Samples per epoch over all pipelines (legacy; prefer ``reader_name``); -1 runs
            until a Python source raises StopIteration.
        reader_name: The reader whose metadata sets the epoch (shards, padding).
        auto_reset: ``True``/``"yes"``: reset automatically at the end of each epoch.
        fill_last_batch: Deprecated: use ``last_batch_policy``.
        dynamic_shape: Accepted for backward compatibility and ignored (as in DALI).
        last_batch_padded: With ``size``: the reader pads its shards (``pad_last_batch``).
        last_batch_policy: ``LastBatchPolicy.FILL``, ``DROP`` or ``PARTIAL`` (the last batch
            of an epoch cut to its samples: a shorter tensor).
        prepare_first_batch: Prepare the first batch in the constructor.

    Raises:
        AssertionError: Duplicate names, or the checks of DALI's base iterator.
        ValueError: A ragged output (use `DALIRaggedIterator`).
        TypeError: An output type torch does not support (unsigned 16/32/64-bit).

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from dali import pipeline_def, types
        >>> @pipeline_def(batch_size=4, num_threads=1, device_id=None)
        ... def pipe():
        ...     data = fn.external_source(lambda i: np.ones((4, 2), np.uint8), batch=True)
        ...     return data, fn.cast(data, dtype=types.INT64)
        >>> (out,) = next(DALIGenericIterator([pipe()], ["data", "label"]))
        >>> sorted(out), out["label"].dtype
        (['data', 'label'], torch.int64)
    """

    def __init__(
        self,
        pipelines: Pipeline | list[Pipeline] | tuple[Pipeline, ...],
        output_map: Sequence[str],
        size: int = -1,
        reader_name: str | None = None,
        auto_reset: bool | str | None = False,
        fill_last_batch: bool | None = None,
        dynamic_shape: bool | None = False,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
    ) -> None:
        # checked before the base class runs anything (it prepares the first batch)
        assert len(set(output_map)) == len(output_map), "output_map names should be distinct"
        self.output_map = list(output_map)
        self._output_categories = set(output_map)
        super().__init__(
            pipelines,
            size,
            reader_name,
            auto_reset,
            fill_last_batch,
            last_batch_padded,
            last_batch_policy,
            prepare_first_batch,
        )

    def __next__(self) -> list[dict[str, torch.Tensor]]:
        batch: list[dict[str, torch.Tensor]] = super().__next__()
        return batch

    def _convert(self, outputs: list[tuple[Any, ...]]) -> list[dict[str, torch.Tensor]]:
        """One dict of tensors per pipeline from its TensorLists (the base's hook)."""
        return [
            {name: batch_to_torch(tl, what=what) for name, tl, what in named}
            for named in self.named_outputs(outputs, self.output_map)
        ]


class DALIClassificationIterator(DALIGenericIterator):
    """`DALIGenericIterator` with ``output_map=["data", "label"]``: for pipelines that return
    images and labels.

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from dali import pipeline_def
        >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        ... def pipe():
        ...     images = fn.external_source(lambda: np.zeros((2, 4, 4, 3), np.uint8), batch=True)
        ...     labels = fn.external_source(lambda: np.arange(2).reshape(2, 1), batch=True)
        ...     return images, labels
        >>> (out,) = next(DALIClassificationIterator(pipe()))
        >>> tuple(out["data"].shape), out["label"].ravel().tolist()
        ((2, 4, 4, 3), [0, 1])
    """

    def __init__(
        self,
        pipelines: Pipeline | list[Pipeline] | tuple[Pipeline, ...],
        size: int = -1,
        reader_name: str | None = None,
        auto_reset: bool | str | None = False,
        fill_last_batch: bool | None = None,
        dynamic_shape: bool | None = False,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
    ) -> None:
        super().__init__(
            pipelines,
            ["data", "label"],
            size=size,
            reader_name=reader_name,
            auto_reset=auto_reset,
            fill_last_batch=fill_last_batch,
            dynamic_shape=dynamic_shape,
            last_batch_padded=last_batch_padded,
            last_batch_policy=last_batch_policy,
            prepare_first_batch=prepare_first_batch,
        )
