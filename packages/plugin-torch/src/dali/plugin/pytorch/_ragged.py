"""`DALIRaggedIterator`: outputs whose samples differ in shape, as dense tensors, lists of
tensors or sparse COO tensors.

``output_types`` tags each output:

* ``DENSE_TAG`` (``"dense"``, the default): one ``(batch, *sample_shape)`` tensor, as
  `DALIGenericIterator`;
* ``SPARSE_LIST_TAG`` (``"sparse_list"``): a Python list with one tensor per sample, each
  sharing the batch's memory;
* ``SPARSE_COO_TAG`` (``"sparse_coo"``): a ``torch.sparse_coo_tensor`` whose entry
  ``(i, j)`` is element ``j`` of sample ``i`` (the samples' rows concatenated, DALI's
  layout): a variable-length batch such as bounding boxes or token ids as one sparse tensor.
  Its size is given explicitly, ``(batch, longest sample, *rest)``, so trailing empty samples
  keep their rows (DALI lets torch infer it from the largest index).

PARTIAL cuts every kind: dense tensors and lists to their first ``n`` samples, COO tensors
to the entries of those samples.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(lambda: [np.array([1, 2, 3]), np.array([4])])
    >>> it = DALIRaggedIterator(pipe(), ["x"], output_types=[DALIRaggedIterator.SPARSE_COO_TAG])
    >>> x = next(it)[0]["x"]
    >>> x.to_dense().tolist()
    [[1, 2, 3], [4, 0, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dali.author import LastBatchPolicy
from dali.plugin.pytorch._convert import batch_to_torch, samples_to_torch
from dali.plugin.pytorch._iterator import DALIGenericIterator

if TYPE_CHECKING:
    import torch
    from dali.pipeline import Pipeline

__all__ = ["DALIRaggedIterator"]


def _sparse_coo(samples: list[torch.Tensor], what: str) -> torch.Tensor:
    """The samples' rows as the entries ``(sample, row)`` of one sparse COO tensor."""
    import torch

    if any(s.dim() == 0 for s in samples):
        raise ValueError(
            f"{what}: SPARSE_COO_TAG needs samples with at least one dimension (their rows are "
            "the tensor's entries); its samples are scalars: use DENSE_TAG."
        )
    device = samples[0].device if samples else torch.device("cpu")
    lengths = torch.tensor([s.shape[0] for s in samples], dtype=torch.int64)
    rows = torch.repeat_interleave(torch.arange(len(samples)), lengths)
    cols = torch.cat([torch.arange(int(n)) for n in lengths]) if samples else lengths
    indices = torch.stack([rows, cols]).to(device)
    values = torch.cat(samples) if samples else torch.empty(0)
    longest = int(lengths.max()) if len(samples) else 0
    size = (len(samples), longest, *(samples[0].shape[1:] if samples else ()))
    return torch.sparse_coo_tensor(indices, values, size, is_coalesced=True, check_invariants=False)


def _first_samples_of_coo(coo: torch.Tensor, n: int) -> torch.Tensor:
    """The entries of the first ``n`` samples of a COO tensor made by `_sparse_coo`."""
    import torch

    indices, values = coo._indices(), coo._values()
    keep = indices[0] < n
    size = (n, *coo.shape[1:])
    return torch.sparse_coo_tensor(
        indices[:, keep], values[keep], size, is_coalesced=True, check_invariants=False
    )


class DALIRaggedIterator(DALIGenericIterator):
    """Iterate over DALI pipelines whose outputs may be ragged; each output comes as its
    ``output_types`` tag says (module docstring).

    Args:
        pipelines: One pipeline or a list (one per GPU).
        output_map: One distinct name per pipeline output.
        size, reader_name, auto_reset, fill_last_batch, dynamic_shape, last_batch_padded,
        last_batch_policy, prepare_first_batch: As `DALIGenericIterator`.
        output_types: One tag per output (`DENSE_TAG`, `SPARSE_LIST_TAG`, `SPARSE_COO_TAG`);
            None: all dense.

    Raises:
        AssertionError: Duplicate names or an unknown tag (DALI's messages), or a number of
            tags other than of names.
    """

    DENSE_TAG: str = "dense"
    SPARSE_LIST_TAG: str = "sparse_list"
    SPARSE_COO_TAG: str = "sparse_coo"

    def __init__(
        self,
        pipelines: Pipeline | list[Pipeline] | tuple[Pipeline, ...],
        output_map: Sequence[str],
        size: int = -1,
        reader_name: str | None = None,
        output_types: Sequence[str] | None = None,
        auto_reset: bool | str | None = False,
        fill_last_batch: bool | None = None,
        dynamic_shape: bool | None = False,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
    ) -> None:
        tags = {self.DENSE_TAG, self.SPARSE_LIST_TAG, self.SPARSE_COO_TAG}
        assert len(set(output_map)) == len(output_map), "output_map names should be distinct"
        assert output_types is None or set(output_types) <= tags, (
            "Only DENSE_TAG, SPARSE_LIST_TAG and SPARSE_COO_TAG are allowed"
        )
        assert output_types is None or len(output_types) == len(output_map), (
            f"output_types has {len(output_types or ())} tags for {len(output_map)} outputs: "
            "give one tag per output_map name"
        )
        types = list(output_types) if output_types is not None else None
        self._tags = dict(zip(output_map, types or [self.DENSE_TAG] * len(output_map)))
        super().__init__(
            pipelines,
            output_map,
            size=size,
            reader_name=reader_name,
            auto_reset=auto_reset,
            fill_last_batch=fill_last_batch,
            dynamic_shape=dynamic_shape,
            last_batch_padded=last_batch_padded,
            last_batch_policy=last_batch_policy,
            prepare_first_batch=prepare_first_batch,
        )

    def _convert(self, outputs: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        batches: list[dict[str, Any]] = []
        for named in self.named_outputs(outputs, self.output_map):
            batch: dict[str, Any] = {}
            for name, tl, what in named:
                tag = self._tags[name]
                if tag == self.DENSE_TAG:
                    batch[name] = batch_to_torch(tl, what=what)
                elif tag == self.SPARSE_LIST_TAG:
                    batch[name] = samples_to_torch(tl, what=what)
                else:
                    batch[name] = _sparse_coo(samples_to_torch(tl, what=what), what)
            batches.append(batch)
        return batches

    def _trim(self, batch: Any, counts: list[int]) -> Any:
        """PARTIAL: the first ``n`` samples of each pipeline's outputs, COO ones included."""
        trimmed = []
        for d, n in zip(batch, counts):
            trimmed.append(
                {
                    name: _first_samples_of_coo(v, n)
                    if self._tags[name] == self.SPARSE_COO_TAG
                    else v[:n]
                    for name, v in d.items()
                }
            )
        return trimmed
