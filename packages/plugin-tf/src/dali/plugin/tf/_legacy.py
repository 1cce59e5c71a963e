"""DALI's older TensorFlow entry points, as thin wrappers: `DALIIterator`, `DALIRawIterator`,
`serialize_pipeline` and the version checks.

``DALIIterator()`` returns ``DALIIteratorWrapper``, a function that gives the pipeline's next
batch as a list of tensors each time it runs: eagerly, each call; in a ``tf.function``, each
call of the function (it is a ``tf.py_function``). Repeated calls continue the pipeline's
stream (batches 0, 1, 2, ... as DALI's op does), and outputs flagged in ``sparse`` become
``tf.SparseTensor``\\ s of the batch's samples (which may differ in shape). DALI's raw op and
serialized pipelines have no pure-Python counterpart: the wrappers say so.

Example:
    >>> import numpy as np, tensorflow as tf
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(lambda i: np.full((2, 3), i, np.float32), batch=True)
    >>> daliop = DALIIterator()
    >>> p = pipe()
    >>> [float(daliop(pipeline=p, shapes=[(2, 3)], dtypes=[tf.float32])[0][0, 0]) for _ in range(3)]
    [0.0, 1.0, 2.0]
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf
from dali.plugin.tf._check import require_tensorflow
from dali.plugin.tf._convert import batch_to_tf
from dali.plugin.tf._feed import PipelineFeed

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = [
    "DALIIterator",
    "DALIIteratorWrapper",
    "DALIRawIterator",
    "dataset_compatible_tensorflow",
    "dataset_distributed_compatible_tensorflow",
    "dataset_inputs_compatible_tensorflow",
    "serialize_pipeline",
]

#: One stream per pipeline, so that repeated calls continue it (DALI's op keeps its pipeline).
_STREAMS: weakref.WeakKeyDictionary[Any, Iterator[tuple[Any, ...]]] = weakref.WeakKeyDictionary()


def serialize_pipeline(pipeline: Pipeline) -> bytes:
    """DALI's pipeline serialization, which this library does not have.

    Raises:
        NotImplementedError: Always: `DALIDataset` and `DALIIterator` take the `Pipeline`
            object itself (which is why Python operators work in them).
    """
    raise NotImplementedError(
        "dali pipelines are not serialized: DALIDataset and DALIIterator run the Pipeline "
        "object itself, in this process (so Python operators work). Pass the pipeline."
    )


def DALIRawIterator() -> Callable[..., Any]:
    """DALI's raw TensorFlow op, which takes a serialized pipeline: not available here.

    Raises:
        NotImplementedError: Always; use ``DALIIterator()(pipeline=pipe, ...)`` or
            `DALIDataset`.
    """
    raise NotImplementedError(
        "DALIRawIterator is DALI's compiled TensorFlow op, which runs serialized pipelines; "
        "this pure-Python plugin has none. Use DALIIterator()(pipeline=pipe, shapes=..., "
        "dtypes=...) or DALIDataset(pipe, ...)."
    )


def _stream(pipeline: Pipeline) -> Iterator[tuple[Any, ...]]:
    stream = _STREAMS.get(pipeline)
    if stream is None:
        stream = PipelineFeed(pipeline, lambda outputs: outputs).passes()
        _STREAMS[pipeline] = stream
    return stream


def _sparse_parts(tl: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of samples (any shapes, one rank) as a SparseTensor's indices, values and
    dense shape: the batch index first, then each sample's own coordinates."""
    samples = [np.asarray(s) for s in tl.as_cpu().samples()]
    ndim = samples[0].ndim if samples else 0
    indices, values = [], []
    for k, s in enumerate(samples):
        coords = np.indices(s.shape).reshape(ndim, -1).T
        indices.append(np.concatenate([np.full((len(coords), 1), k), coords], axis=1))
        values.append(s.reshape(-1))
    extents = np.max([s.shape for s in samples], axis=0) if samples else np.zeros(ndim)
    return (
        np.concatenate(indices).astype(np.int64) if indices else np.zeros((0, ndim + 1), np.int64),
        np.concatenate(values) if values else np.zeros(0, tl.np_dtype),
        np.array([len(samples), *extents], np.int64),
    )


def _declared(shape: Any) -> tuple[int | None, ...] | None:
    dims = tf.TensorShape(shape)
    return None if dims.rank is None else tuple(dims.as_list())


def DALIIteratorWrapper(
    pipeline: Pipeline | None = None,
    serialized_pipeline: Any = None,
    sparse: Sequence[bool] = (),
    shapes: Sequence[Any] = (),
    dtypes: Sequence[Any] = (),
    batch_size: int = -1,
    prefetch_queue_depth: int = 2,
    exec_dynamic: bool | None = None,
    **kwargs: Any,
) -> list[Any]:
    """The pipeline's next batch as a list of tensors, one per output (DALI's wrapper).

    Args:
        pipeline: The pipeline (its stream continues from call to call).
        serialized_pipeline: Not supported (a ValueError): pass ``pipeline``.
        sparse: Per output: True gives a ``tf.SparseTensor`` of the samples.
        shapes: Per dense output: its shape (the batch first), as in `DALIDataset`.
        dtypes: Per output: its ``tf.DType``.
        batch_size: The batch size (-1: the first entry of ``shapes`` gives it).
        prefetch_queue_depth, exec_dynamic, **kwargs: Accepted for DALI's signature
            (``device_id``, ``num_threads``, ...); the pipeline runs with its own settings.

    Returns:
        One ``tf.Tensor`` (or ``tf.SparseTensor``) per output.

    Raises:
        ValueError: No pipeline, or neither ``shapes`` nor ``batch_size``.
    """
    if pipeline is None:
        raise ValueError(
            "DALIIterator needs `pipeline=`: serialized pipelines cannot be run by this "
            "pure-Python plugin."
        )
    if batch_size == -1:
        first = _declared(shapes[0]) if shapes else None
        if not first or first[0] is None:
            raise ValueError(
                "shapes and batch_size arguments cannot be empty, please provide at leas one "
                "shape argument element with the BATCH size or set batch_size"
            )
        batch_size = first[0]
    dtypes = list(dtypes)
    flags = [k < len(sparse) and bool(sparse[k]) for k in range(len(dtypes))]
    declared = [_declared(shapes[k]) if k < len(shapes) else None for k in range(len(dtypes))]
    stream = _stream(pipeline)

    def step() -> list[Any]:
        outputs = next(stream)
        flat: list[Any] = []
        for k, (tl, dtype) in enumerate(zip(outputs, dtypes)):
            if flags[k]:
                flat += list(_sparse_parts(tl))
            else:
                flat.append(
                    batch_to_tf(tl, dtype=dtype, shape=declared[k], batch_size=batch_size, index=k)
                )
        return flat

    tout: list[Any] = []
    for dtype, is_sparse in zip(dtypes, flags):
        tout += [tf.int64, dtype, tf.int64] if is_sparse else [dtype]
    flat = tf.py_function(step, [], tout)
    out: list[Any] = []
    j = 0
    for k, is_sparse in enumerate(flags):
        if is_sparse:
            out.append(tf.SparseTensor(flat[j], flat[j + 1], flat[j + 2]))
            j += 3
        else:
            if declared[k] is not None:
                flat[j].set_shape(declared[k])
            out.append(flat[j])
            j += 1
    return out


def DALIIterator() -> Callable[..., list[Any]]:
    """DALI's legacy TensorFlow entry point: returns `DALIIteratorWrapper`."""
    return DALIIteratorWrapper


def _supported() -> bool:
    """The import-time check (`dali.plugin.tf._check`) again: True unless TensorFlow is older
    than the oldest this plugin supports."""
    try:
        require_tensorflow()
    except ImportError:
        return False
    return True


def dataset_compatible_tensorflow() -> bool:
    """Whether this TensorFlow supports `DALIDataset` (True for every release this plugin
    supports: nothing is compiled against it)."""
    return _supported()


def dataset_inputs_compatible_tensorflow() -> bool:
    """Whether this TensorFlow supports `DALIDatasetWithInputs` (as
    `dataset_compatible_tensorflow`)."""
    return _supported()


def dataset_distributed_compatible_tensorflow() -> bool:
    """Whether ``tf.distribute`` works with `DALIDataset` here (as
    `dataset_compatible_tensorflow`)."""
    return _supported()
