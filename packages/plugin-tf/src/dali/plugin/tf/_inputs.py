"""`DALIDatasetWithInputs` and `Input`: ``tf.data`` datasets feeding named external sources.

``experimental.DALIDatasetWithInputs(pipeline, input_datasets={name: dataset}, ...)`` is a
`DALIDataset` whose pipeline takes its data from ``tf.data``: each entry of
``input_datasets`` feeds the ``fn.external_source(name=name)`` of the pipeline (one without a
``source``), either with a ``tf.data.Dataset`` (each element one sample; ``batch_size`` of them
make a batch) or with an `Input` wrapper that can say the elements are whole batches and give
the layout. Each iterator of the dataset reads its inputs from their start; the dataset ends
when an input ends (a partial batch of samples is dropped), as in DALI.

External sources with a ``source`` callback run inside the pipeline, as they do anywhere
else (DALI turns them into ``from_generator`` datasets because its pipeline is serialized).
Unlike DALI's, ``cycle="raise"`` sources work too: a new iterator starts them again.

Example:
    >>> import numpy as np, tensorflow as tf
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(name="x") * 10
    >>> numbers = tf.data.Dataset.range(5).map(lambda v: tf.reshape(tf.cast(v, tf.int32), [1]))
    >>> ds = DALIDatasetWithInputs(pipe(), input_datasets={"x": numbers},
    ...                            output_dtypes=tf.int32, batch_size=2, device_id=None)
    >>> [batch[0].numpy().ravel().tolist() for batch in ds]  # the 5th sample is dropped
    [[0, 10], [20, 30]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import tensorflow as tf
from dali.author import external_sources
from dali.plugin.tf._dataset import DatasetBase
from dali.plugin.tf._feed import InputSpec

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["DALIDatasetWithInputs", "Input"]

_INPUTS_MUST_BE = (
    "`input_datasets` must be a dictionary that maps input names (the `name` specified for "
    "External Source node in DALI pipeline) to input datasets objects (`tf.data.Dataset`) or "
    "`dali.plugin.tf.experimental.Input` wrapper objects"
)


class Input:
    """An input dataset with its options (DALI's ``experimental.Input``).

    Args:
        dataset: The ``tf.data.Dataset``; each element is one tensor.
        layout: The layout of the data (None: the external source's own).
        batch: False: each element is one sample, ``batch_size`` of them make a batch; True:
            each element is a batch (the outer dimension is the samples); None: as the
            external source's ``batch`` says (DALI's default for external sources: True).

    Raises:
        TypeError: ``dataset`` is not a ``tf.data.Dataset``.

    Example:
        >>> import tensorflow as tf
        >>> Input(tf.data.Dataset.range(3), layout="", batch=True).batch
        True
    """

    def __init__(self, dataset: Any, *, layout: str | None = None, batch: bool | None = False):
        if not isinstance(dataset, tf.data.Dataset):
            raise TypeError(
                "The inputs specified to DALIDataset must be instances of type "
                f"`tf.data.Dataset` got: `{dataset}` of type: {type(dataset)} instead."
            )
        self.dataset = dataset
        self.layout = layout
        self.batch = batch


def input_specs(pipeline: Pipeline, input_datasets: Any) -> list[InputSpec]:
    """Check ``input_datasets`` against the pipeline's external sources (DALI's checks) and
    normalise it: one `InputSpec` per placeholder source (one without a ``source``).

    Raises:
        TypeError: Not a mapping of ``str`` to ``tf.data.Dataset`` or `Input`.
        ValueError: A name that is no placeholder source of the pipeline, one that has a
            ``source`` already, or a placeholder left without an input.
    """
    if input_datasets is None:
        input_datasets = {}
    if not isinstance(input_datasets, Mapping):
        raise TypeError(
            f"{_INPUTS_MUST_BE}, got: `{input_datasets}` of type: {type(input_datasets)} instead."
        )
    sources = external_sources(pipeline)
    placeholders = {s.name: s for s in sources if not s.has_source}
    with_source = {s.name for s in sources if s.has_source}
    specs = []
    for name, value in input_datasets.items():
        if not isinstance(name, str):
            raise TypeError(
                f"{_INPUTS_MUST_BE}. Expected the keys (representing the input names) to be of "
                f"type `str`, got: `{name}` of type: {type(name)} instead."
            )
        if isinstance(value, tf.data.Dataset):
            value = Input(value, layout=None, batch=False)
        elif not isinstance(value, Input):
            raise TypeError(
                f"{_INPUTS_MUST_BE}. Expected the values of the dictionary (representing the "
                "inputs) to be of type `tf.data.Dataset` or `dali.plugin.tf.experimental.Input` "
                f"got: `{value}` of type: {type(value)} instead."
            )
        if name in with_source:
            raise ValueError(
                "Double specification of External Source input is not allowed. External Source "
                f"nodes named: `{{{name!r}}}` got inputs specified via `input_datasets` "
                "DALIDataset argument and ExternalSource `source` argument at the same time."
            )
        source = placeholders.get(name)
        if source is None:
            raise ValueError(
                f"Did not find an External Source placeholder node with name='{name}' in the "
                "provided pipeline - required by the name specified in the `input_datasets`. "
                "Names of available placeholder External Source nodes are: "
                f"{list(placeholders)}. Placeholder nodes cannot have `source` argument specified."
            )
        batch = source.batch if value.batch is None else bool(value.batch)
        specs.append(InputSpec(name, value.dataset, value.layout, batch))
    missing = [name for name in placeholders if name not in input_datasets]
    if missing:
        raise ValueError(
            "Found External Source nodes in the Pipeline, that were not assigned any inputs. "
            f"Nodes without inputs: \n{missing}.\nNodes that were assigned inputs:\n"
            f"{list(input_datasets)}."
        )
    return specs


class DALIDatasetWithInputs(DatasetBase):
    """A `DALIDataset` whose named external sources read ``tf.data`` datasets (DALI's
    ``experimental.DALIDatasetWithInputs``).

    Args:
        pipeline: The pipeline; each key of ``input_datasets`` names one of its
            ``fn.external_source(name=...)`` without a ``source``.
        input_datasets: ``{name: tf.data.Dataset or Input}``; a plain dataset gives samples.
        output_dtypes, output_shapes, fail_on_device_mismatch, batch_size, ...: As
            `DALIDataset`.

    Raises:
        TypeError: A bad ``input_datasets`` (or the checks of `DALIDataset`).
        ValueError: A name that is not a placeholder external source of the pipeline (one
            without ``source``), or a placeholder left without an input (DALI's messages).

    Checkpointing (``tf.train.Checkpoint``) is not supported with inputs, as in DALI.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        output_dtypes: Any = None,
        output_shapes: Any = None,
        fail_on_device_mismatch: bool = True,
        *,
        input_datasets: Mapping[str, Any] | None = None,
        batch_size: int = 1,
        num_threads: int = 4,
        device_id: int | None = 0,
        exec_separated: bool = False,
        exec_dynamic: bool = False,
        prefetch_queue_depth: int = 2,
        cpu_prefetch_queue_depth: int = 2,
        gpu_prefetch_queue_depth: int = 2,
        dtypes: Any = None,
        shapes: Any = None,
    ) -> None:
        super().__init__(
            pipeline,
            output_dtypes,
            output_shapes,
            fail_on_device_mismatch,
            batch_size,
            dtypes,
            shapes,
            inputs=input_specs(pipeline, input_datasets),
        )
