"""DALI's older TensorFlow entry points: `DALIIterator`, `DALIRawIterator`,
`serialize_pipeline` and the version checks.

``DALIIterator()`` returns ``DALIIteratorWrapper``, a function that gives the pipeline's next
batch as a list of tensors each time it runs: eagerly, each call; in a ``tf.function``, each
call of the function (it is a ``tf.py_function``). Repeated calls continue the pipeline's
stream (batches 0, 1, 2, ... as DALI's op does), and outputs flagged in ``sparse`` become
``tf.SparseTensor``\\ s of the batch's samples (which may differ in shape).

``DALIRawIterator()`` returns DALI's raw op: it takes `serialize_pipeline`'s bytes
(`Pipeline.serialize`, this library's JSON document, not DALI's protobuf), makes its own
pipeline from them with the op's settings (``batch_size``, ``num_threads``, ``device_id``,
the prefetch depths) and gives a flat list of tensors, three per sparse output (indices,
values, dense shape), as DALI's op. Like a TensorFlow kernel, one op keeps its pipeline:
eager calls with the same arguments continue one stream (TensorFlow caches one kernel per op
and attributes), and each call traced into a ``tf.function`` is a node with a pipeline of its
own. ``DALIIterator()(serialized_pipeline=...)`` runs through it, as in DALI.

Both run one code path: a ``tf.py_function`` that takes the next outputs of a
`dali.plugin.tf._feed.PipelineFeed` and converts them with `dali.plugin.tf._convert`
(DALI's type and shape checks, DLPack).

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

import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf
from dali.author import SerializationError
from dali.plugin.tf._check import require_tensorflow
from dali.plugin.tf._convert import batch_to_tf, check_dtype
from dali.plugin.tf._feed import PipelineFeed
from dali.plugin.tf._shapes import Shape

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

#: The raw op's pipelines made by eager calls, one per serialized pipeline and settings:
#: TensorFlow runs an eager op through a kernel it caches per op and attributes (for the
#: life of the process), and DALI's kernel holds its pipeline, so the same call again
#: continues the same stream.
_EAGER_STREAMS: dict[tuple[Any, ...], Iterator[tuple[Any, ...]]] = {}
_EAGER_LOCK = threading.Lock()


def serialize_pipeline(pipeline: Pipeline) -> bytes:
    """The pipeline as a document, for `DALIRawIterator` (DALI's: ``pipeline.serialize()``).

    The bytes are `Pipeline.serialize`'s (this library's versioned JSON); NVIDIA DALI cannot
    read them, nor this library DALI's protobuf.

    Args:
        pipeline: The pipeline (built here if it is not).

    Returns:
        The serialized pipeline.

    Raises:
        RuntimeError: The pipeline cannot be serialized (DALI's type), from the
            ``SerializationError`` that names the operator and argument: a lambda or a
            closure as a Python callback, say. `DALIDataset` and
            ``DALIIterator()(pipeline=...)`` run the `Pipeline` object itself and take those.
    """
    try:
        return pipeline.serialize()
    except SerializationError as e:
        raise RuntimeError(
            f"The pipeline cannot be serialized: {e} (Python callbacks are serialized by the "
            "name they are imported by.) DALIDataset and DALIIterator()(pipeline=...) run the "
            "Pipeline object itself and take any Python operator."
        ) from e


@dataclass(frozen=True)
class _Output:
    """How the op gives one pipeline output: dense (one tensor of ``dtype``, checked against
    ``shape``) or sparse (indices, values of ``dtype``, dense shape)."""

    sparse: bool
    dtype: tf.DType
    shape: Shape = None


def _declared(shape: Any) -> Shape:
    """A declared shape as a tuple; None for an unknown rank and, as in DALI's op, rank 0."""
    dims = tf.TensorShape(shape)
    return None if not dims.rank else tuple(dims.as_list())


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


def _run_op(
    stream: Iterator[tuple[Any, ...]],
    plan: Sequence[_Output],
    *,
    batch_size: int,
    name: str | None = None,
) -> list[Any]:
    """The op both entry points run: a ``tf.py_function`` giving the next outputs of
    ``stream`` as a flat list of tensors, one per dense output and three per sparse one."""

    def step() -> list[Any]:
        outputs = next(stream)
        if len(outputs) != len(plan):
            raise ValueError(
                f"The DALI pipeline has {len(outputs)} outputs, and `dtypes` describes "
                f"{len(plan)} (three entries for each sparse output)."
            )
        flat: list[Any] = []
        for k, (tl, out) in enumerate(zip(outputs, plan)):
            if out.sparse:
                check_dtype(tl, out.dtype, k)
                flat += _sparse_parts(tl)
            else:
                flat.append(
                    batch_to_tf(
                        tl, dtype=out.dtype, shape=out.shape, batch_size=batch_size, index=k
                    )
                )
        return flat

    tout: list[Any] = []
    for out in plan:
        tout += [tf.int64, out.dtype, tf.int64] if out.sparse else [out.dtype]
    flat = list(tf.py_function(step, [], tout, name=name))
    j = 0
    for out in plan:
        if out.sparse:
            flat[j].set_shape((None, None))
            flat[j + 1].set_shape((None,))
            flat[j + 2].set_shape((None,))
            j += 3
        else:
            if out.shape is not None:
                flat[j].set_shape(out.shape)
            j += 1
    return flat


def _plan(dtypes: Sequence[Any], shapes: Sequence[Any], sparse: Sequence[bool]) -> list[_Output]:
    """The raw op's outputs from its flat ``dtypes`` and ``shapes`` (one entry per tensor)."""
    plan: list[_Output] = []
    j = 0
    while j < len(dtypes):
        k = len(plan)
        if k < len(sparse) and sparse[k]:
            parts = dtypes[j : j + 3]
            if len(parts) < 3 or parts[0] != tf.int64 or parts[2] != tf.int64:
                raise ValueError(
                    f"Sparse output {k} is three tensors: `dtypes` needs tf.int64 (indices), "
                    f"its values' type, tf.int64 (dense shape) from entry {j}, got "
                    f"{[d.name for d in parts]}"
                )
            plan.append(_Output(True, parts[1]))
            j += 3
        else:
            shape = _declared(shapes[j]) if j < len(shapes) else None
            plan.append(_Output(False, dtypes[j], shape))
            j += 1
    return plan


def _batch_size_from(shapes: Sequence[Any]) -> int:
    first = _declared(shapes[0]) if shapes else None
    if not first or first[0] is None:
        raise ValueError(
            "shapes and batch_size arguments cannot be empty, please provide at leas one "
            "shape argument element with the BATCH size or set batch_size"
        )
    return first[0]


def _raw_pipeline(serialized_pipeline: bytes | str, settings: dict[str, Any]) -> Pipeline:
    from dali.pipeline import Pipeline

    return Pipeline.deserialize(serialized_pipeline, **settings)


def _dali_op(
    serialized_pipeline: bytes | str,
    shapes: Sequence[Any],
    dtypes: Sequence[Any],
    num_threads: int = -1,
    device_id: int = -1,
    exec_separated: bool = False,
    exec_dynamic: bool = False,
    gpu_prefetch_queue_depth: int = 2,
    cpu_prefetch_queue_depth: int = 2,
    sparse: Sequence[bool] = (),
    batch_size: int = -1,
    enable_memory_stats: bool = False,
    name: str | None = None,
) -> list[Any]:
    """DALI TensorFlow plugin: runs a serialized pipeline (DALI's ``Dali`` op).

    Makes a pipeline from ``serialized_pipeline`` (`serialize_pipeline`'s bytes) and gives
    its next outputs at each run, as a flat list of tensors: one per dense output, three per
    sparse output (int64 indices, the values, the int64 dense shape), as DALI's op.

    Args:
        serialized_pipeline: The serialized pipeline (bytes or str).
        shapes: Per tensor: its shape (None, or ``()`` as in DALI: not checked); the first
            gives the batch size when ``batch_size`` is -1. At least one.
        dtypes: Per tensor: its ``tf.DType`` (a sparse output's three are ``tf.int64``, the
            values' type, ``tf.int64``). At least one.
        num_threads: Worker threads (-1: the serialized pipeline's).
        device_id: The GPU (-1: the serialized pipeline's).
        exec_separated: Separate CPU and GPU queues, of ``cpu_prefetch_queue_depth`` and
            ``gpu_prefetch_queue_depth`` batches; else one of ``gpu_prefetch_queue_depth``.
        exec_dynamic: DALI's dynamic executor flag (stored on the pipeline).
        gpu_prefetch_queue_depth, cpu_prefetch_queue_depth: See ``exec_separated``.
        sparse: Per pipeline output: True gives it as three tensors.
        batch_size: The batch size (-1: the first dimension of ``shapes[0]``).
        enable_memory_stats: Passed on to the pipeline.
        name: The name of the op (its ``tf.py_function``).

    Returns:
        The tensors.

    Raises:
        ValueError: Empty ``shapes`` or ``dtypes``, no batch size, or a sparse output
            without its three types; a document this library cannot read (a
            ``SerializationError``: DALI's protobuf, a newer format, an operator or callable
            that does not import).
    """
    if not len(shapes) or not len(dtypes):
        which = "shapes" if not len(shapes) else "dtypes"
        raise ValueError(
            f"Attr '{which}' of 'Dali' Op passed list of length 0 less than minimum 1."
        )
    dtypes = [tf.as_dtype(d) for d in dtypes]
    plan = _plan(dtypes, shapes, [bool(f) for f in sparse])
    if batch_size < 0:
        batch_size = _batch_size_from(shapes)
    depth: int | dict[str, int] = gpu_prefetch_queue_depth
    if exec_separated:
        depth = {"cpu_size": cpu_prefetch_queue_depth, "gpu_size": gpu_prefetch_queue_depth}
    settings: dict[str, Any] = {
        "batch_size": batch_size,
        "prefetch_queue_depth": depth,
        "exec_dynamic": bool(exec_dynamic),
        "enable_memory_stats": bool(enable_memory_stats),
    }
    if num_threads >= 1:
        settings["num_threads"] = num_threads
    if device_id >= 0:
        settings["device_id"] = device_id
    if tf.executing_eagerly():
        doc = serialized_pipeline
        key = (doc.encode() if isinstance(doc, str) else bytes(doc), repr(settings), *plan)
        with _EAGER_LOCK:
            stream = _EAGER_STREAMS.get(key)
            if stream is None:
                stream = _new_stream(_raw_pipeline(serialized_pipeline, settings))
                _EAGER_STREAMS[key] = stream
    else:
        stream = _new_stream(_raw_pipeline(serialized_pipeline, settings))
    return _run_op(stream, plan, batch_size=batch_size, name=name)


def DALIRawIterator() -> Callable[..., list[Any]]:
    """DALI's raw TensorFlow op, which runs a serialized pipeline (`serialize_pipeline`).

    The op: ``op(serialized_pipeline, shapes, dtypes, num_threads=-1, device_id=-1,
    exec_separated=False, exec_dynamic=False, gpu_prefetch_queue_depth=2,
    cpu_prefetch_queue_depth=2, sparse=[], batch_size=-1, enable_memory_stats=False,
    name=None)``, DALI's attributes; it returns a flat list of tensors (three per sparse
    output). Eager calls with the same arguments continue one pipeline's stream; each call
    traced into a ``tf.function`` is an op with a pipeline of its own.

    Example:
        >>> import numpy as np, tensorflow as tf
        >>> from dali import Pipeline, fn
        >>> pipe = Pipeline(batch_size=2, num_threads=1, device_id=None, seed=7)
        >>> with pipe:
        ...     pipe.set_outputs(fn.random.uniform(range=(0, 1), shape=[3]))
        >>> data = serialize_pipeline(pipe)
        >>> daliop = DALIRawIterator()
        >>> for _ in range(2):  # the same pipeline's first two batches, in order
        ...     (x,) = daliop(serialized_pipeline=data, shapes=[(2, 3)], dtypes=[tf.float32])
        ...     print(np.array_equal(x.numpy(), pipe.run()[0].as_array()))
        True
        True
    """
    return _dali_op


def _new_stream(pipeline: Pipeline) -> Iterator[tuple[Any, ...]]:
    return PipelineFeed(pipeline, lambda outputs: outputs).passes()


def _stream(pipeline: Pipeline) -> Iterator[tuple[Any, ...]]:
    stream = _STREAMS.get(pipeline)
    if stream is None:
        stream = _new_stream(pipeline)
        _STREAMS[pipeline] = stream
    return stream


def DALIIteratorWrapper(
    pipeline: Pipeline | None = None,
    serialized_pipeline: bytes | str | None = None,
    sparse: Sequence[bool] = (),
    shapes: Sequence[Any] = (),
    dtypes: Sequence[Any] = (),
    batch_size: int = -1,
    prefetch_queue_depth: int | dict[str, int] = 2,
    exec_dynamic: bool | None = None,
    **kwargs: Any,
) -> list[Any]:
    """The pipeline's next batch as a list of tensors, one per output (DALI's wrapper).

    Args:
        pipeline: The pipeline, run as it is (its stream continues from call to call; Python
            operators welcome). Not serialized, unlike in DALI.
        serialized_pipeline: A serialized pipeline (`serialize_pipeline`), run by
            `DALIRawIterator`'s op; it wins over ``pipeline``, as in DALI.
        sparse: Per output: True gives a ``tf.SparseTensor`` of the samples.
        shapes: Per dense output: its shape (the batch first), as in `DALIDataset`.
        dtypes: Per output: its ``tf.DType``.
        batch_size: The batch size (-1: the first entry of ``shapes`` gives it).
        prefetch_queue_depth: An int, or DALI's ``{"cpu_size": n, "gpu_size": m}`` for
            separate queues (for a serialized pipeline; ``pipeline`` keeps its own).
        exec_dynamic: DALI's executor flag; True with separate queues is DALI's ValueError.
        **kwargs: The op's other arguments (``num_threads``, ``device_id``,
            ``enable_memory_stats``) for a serialized pipeline; accepted and unused with
            ``pipeline``, which runs with its own settings.

    Returns:
        One ``tf.Tensor`` (or ``tf.SparseTensor``) per output.

    Raises:
        ValueError: Neither a pipeline nor a serialized one, neither ``shapes`` nor
            ``batch_size``, or separate queues with ``exec_dynamic=True``.
    """
    if isinstance(prefetch_queue_depth, dict):
        exec_separated = True
        cpu_depth = prefetch_queue_depth["cpu_size"]
        gpu_depth = prefetch_queue_depth["gpu_size"]
        if exec_dynamic:
            raise ValueError(
                "Separated queues are incompatible with the default execution model. Please "
                "set ``exec_dynamic=False`` in the pipeline constructor or @pipeline_def."
            )
    else:
        exec_separated = False
        cpu_depth = gpu_depth = prefetch_queue_depth
        if exec_dynamic is None:
            exec_dynamic = True
    if pipeline is not None and pipeline.exec_dynamic:
        exec_dynamic = True
    if pipeline is None and serialized_pipeline is None:
        raise ValueError(
            "DALIIterator needs `pipeline=` (a Pipeline) or `serialized_pipeline=` (from "
            "serialize_pipeline)."
        )
    if batch_size == -1:
        batch_size = _batch_size_from(shapes)
    dtypes = [tf.as_dtype(d) for d in dtypes]
    flags = [k < len(sparse) and bool(sparse[k]) for k in range(len(dtypes))]
    if serialized_pipeline is not None:
        # DALI's flattening: three tensors per sparse output
        flat_dtypes: list[Any] = []
        flat_shapes: list[Any] = []
        for k, dtype in enumerate(dtypes):
            if flags[k]:
                flat_dtypes += [tf.int64, dtype, tf.int64]
                flat_shapes += [None, None, None]
            else:
                flat_dtypes.append(dtype)
                flat_shapes.append(shapes[k] if k < len(shapes) else None)
        flat = _dali_op(
            serialized_pipeline,
            flat_shapes,
            flat_dtypes,
            sparse=flags,
            batch_size=batch_size,
            exec_separated=exec_separated,
            exec_dynamic=bool(exec_dynamic),
            gpu_prefetch_queue_depth=gpu_depth,
            cpu_prefetch_queue_depth=cpu_depth,
            **kwargs,
        )
    else:
        assert pipeline is not None
        plan = [
            _Output(flags[k], dtype, None if k >= len(shapes) else _declared(shapes[k]))
            for k, dtype in enumerate(dtypes)
        ]
        flat = _run_op(_stream(pipeline), plan, batch_size=batch_size)
    out: list[Any] = []
    j = 0
    for is_sparse in flags:
        if is_sparse:
            out.append(tf.SparseTensor(flat[j], flat[j + 1], flat[j + 2]))
            j += 3
        else:
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
