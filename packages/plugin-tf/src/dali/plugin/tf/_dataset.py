"""`DALIDataset`: a DALI pipeline as a real ``tf.data.Dataset``, in pure Python.

DALI's dataset is a compiled TensorFlow op that deserializes the pipeline in C++. Ours is a
``tf.data.Dataset`` subclass around the dataset TensorFlow builds for Python generators
(``tf.data.Dataset.from_generator``: a ``py_function`` per element, a fresh generator per
iterator). The generator is one pass of a `dali.plugin.tf._feed.PipelineFeed`, which runs
the `Pipeline` object itself, in this process: Python operators work, nothing is compiled,
and any TensorFlow release with ``from_generator`` and DLPack works the same way. Each
element is a tuple of tensors, one per pipeline output, that share the pipeline's buffers
(`dali.plugin.tf._convert`).

The dataset turns tf.data's default optimisations and autotuning off (`dataset_options`), as
DALI's does: the pipeline already runs ahead of the consumer (``prefetch_queue_depth``).

Beyond DALI, the dataset is a checkpointable object: ``tf.train.Checkpoint(model=model,
data=dataset)`` saves where its iterator stands (the pipeline's checkpoint JSON, for
pipelines made with ``enable_checkpointing=True``) and restores it, so training resumes at
the exact next batch (TensorFlow's own iterator checkpoints cannot save a ``py_function``
dataset).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import tensorflow as tf
from dali.author import external_sources
from dali.plugin.tf._convert import batch_to_tf, is_gpu
from dali.plugin.tf._feed import InputSpec, PipelineFeed
from dali.plugin.tf._spec import element_spec, output_structure, shape_tuple

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["DALIDataset", "DatasetBase", "dataset_options"]


def dataset_options() -> Any:
    """DALI's options for its datasets: tf.data's default optimisations and autotuning off.

    Example:
        >>> options = dataset_options()
        >>> options.experimental_optimization.apply_default_optimizations, options.autotune.enabled
        (False, False)
    """
    options = tf.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    options.autotune.enabled = False
    return options


def _device_type() -> str | None:
    """The type of the device TensorFlow places ops on here ("CPU", "GPU"), or None when
    building a graph (DALI's best guess too)."""
    if not tf.executing_eagerly():
        return None
    with tf.init_scope():
        return str(tf.DeviceSpec.from_string(tf.identity(0).device).device_type)


class _Converter:
    """The dataset's element from one iteration's outputs: one checked tensor per output."""

    def __init__(
        self,
        dtypes: tuple[Any, ...],
        shapes: tuple[Any, ...],
        batch_size: int,
        device_type: str | None,
        fail_on_device_mismatch: bool,
    ) -> None:
        self._dtypes = dtypes
        self._shapes = [shape_tuple(s) for s in shapes]
        self._batch_size = batch_size
        self._device_type = device_type
        self._fail = fail_on_device_mismatch
        self._checked = False

    def __call__(self, outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(outputs) != len(self._dtypes):
            raise ValueError(
                f"The pipeline has {len(outputs)} outputs, but `output_dtypes` describes "
                f"{len(self._dtypes)}: give one type (and shape) per output."
            )
        if not self._checked:
            self._checked = True
            self._check_devices(outputs)
        return tuple(
            batch_to_tf(tl, dtype=dtype, shape=shape, batch_size=self._batch_size, index=k)
            for k, (tl, dtype, shape) in enumerate(zip(outputs, self._dtypes, self._shapes))
        )

    def _check_devices(self, outputs: tuple[Any, ...]) -> None:
        """DALI's device check: a GPU output in a dataset placed on the CPU, or the reverse."""
        if self._device_type is None:
            return
        for k, tl in enumerate(outputs):
            dali = "GPU" if is_gpu(tl) else "CPU"
            tf_device = "GPU" if self._device_type == "GPU" else "CPU"
            if dali != tf_device:
                message = (
                    f"TF device and DALI device mismatch. TF device: {tf_device}, DALI device: "
                    f"{dali} for output {k}"
                )
                if self._fail:
                    raise RuntimeError(
                        message + ". Make the dataset under `with tf.device('/gpu:<id>')` for "
                        "GPU outputs (else TensorFlow copies them to the host), or pass "
                        "fail_on_device_mismatch=False."
                    )
                warnings.warn(message, stacklevel=2)


class DatasetBase(tf.data.Dataset):  # type: ignore[misc]  # TensorFlow ships no types
    """What `DALIDataset` and `DALIDatasetWithInputs` share: the checks, the feed, the
    ``tf.data`` plumbing and the checkpoint hooks."""

    def __init__(
        self,
        pipeline: Pipeline,
        output_dtypes: Any,
        output_shapes: Any,
        fail_on_device_mismatch: bool,
        batch_size: int,
        dtypes: Any,
        shapes: Any,
        inputs: Sequence[InputSpec],
    ) -> None:
        dtypes_, shapes_ = output_structure(
            output_dtypes, output_shapes, dtypes, shapes, pipeline=pipeline
        )
        pipe_batch = pipeline.max_batch_size
        if pipe_batch != batch_size:
            raise ValueError(
                f"DALIDataset(batch_size={batch_size}) but the pipeline's batch size is "
                f"{pipe_batch}: the dataset runs the pipeline object it is given, so pass "
                f"batch_size={pipe_batch} (DALI rebuilds the pipeline with the dataset's)."
            )
        self._structure = element_spec(dtypes_, shapes_)
        convert = _Converter(
            dtypes_, shapes_, batch_size, _device_type(), bool(fail_on_device_mismatch)
        )
        self._feed = PipelineFeed(pipeline, convert, inputs)
        self._pipeline = pipeline
        self._source = tf.data.Dataset.from_generator(
            self._feed.passes, output_signature=self._structure
        ).with_options(dataset_options())
        # DatasetV2's documented constructor takes the variant tensor that the subclass made
        super().__init__(self._source._variant_tensor)

    @property
    def element_spec(self) -> tuple[Any, ...]:
        """One ``tf.TensorSpec`` per pipeline output, as a tuple (1-tuples for one output)."""
        return self._structure

    @property
    def pipeline(self) -> Pipeline:
        """The pipeline the dataset runs."""
        return self._pipeline

    def _inputs(self) -> list[Any]:
        return [self._source]

    # -- tf.train.Checkpoint (beyond DALI) ---------------------------------------------------
    def _serialize_to_tensors(self) -> dict[str, Any]:
        """The iterator's position for ``tf.train.Checkpoint`` (the pipeline's checkpoint)."""
        position = tf.py_function(lambda: tf.constant(self._feed.position()), [], tf.string)
        return {"position": position}

    def _restore_from_tensors(self, restored_tensors: Mapping[str, Any]) -> Any:
        """Continue from a position `_serialize_to_tensors` saved."""

        def restore(position: Any) -> Any:
            self._feed.restore(bytes(position.numpy()))
            return tf.constant(True)

        return tf.py_function(restore, [restored_tensors["position"]], tf.bool)


class DALIDataset(DatasetBase):
    """A DALI pipeline as a ``tf.data.Dataset`` (DALI's ``DALIDataset``).

    Each element is a tuple with one tensor per pipeline output (a 1-tuple for one output),
    of shape ``(batch_size, *sample_shape)``; GPU outputs are handed over on the pipeline's GPU
    (DLPack, no copy; untested: see the package README). It works with ``prefetch``, ``take``, eager loops, ``tf.function`` loops,
    ``keras.Model.fit`` and ``tf.distribute`` (one pipeline per replica with
    ``distribute_datasets_from_function`` in ``InputReplicationMode.PER_REPLICA``, DALI's
    recipe; the ``PER_WORKER`` mode's MultiDeviceIterator can deadlock when deleted, as with
    any ``py_function`` dataset). Every new iterator starts at the first batch, as in DALI
    (which builds a fresh pipeline instance per iterator; dali rewinds the one pipeline,
    `dali.pipeline.Pipeline.rewind`, with or without ``enable_checkpointing``). Unlike DALI
    the pipeline is not serialized: Python operators (``fn.python_function`` ...) are
    allowed.

    Args:
        pipeline: The pipeline (built here). It should be driven by this dataset only.
        output_dtypes: One ``tf.DType``, or a tuple with one per output (a list is a
            TypeError). None (beyond DALI): the pipeline's output types, where known before
            running.
        output_shapes: One shape, or a tuple of them matching ``output_dtypes``; None or None
            dimensions where unknown. The batch is the outermost dimension; size-1 dimensions
            of the batch may be left out ((B, 1) labels declared (B,); with batch_size=1 the
            batch dimension).
        fail_on_device_mismatch: A GPU output in a dataset made outside a GPU device scope
            (or a CPU output inside one) fails the first batch; False: a warning.
        batch_size: The pipeline's batch size (checked: a different one is a ValueError).
        num_threads, device_id, exec_separated, exec_dynamic, prefetch_queue_depth,
            cpu_prefetch_queue_depth, gpu_prefetch_queue_depth: Accepted for DALI's signature;
            the pipeline runs with its own settings.
        dtypes, shapes: Deprecated aliases of ``output_dtypes``/``output_shapes`` (a
            ``Warning``; both forms: ValueError).

    Raises:
        TypeError: A bad ``output_dtypes``/``output_shapes``, or ``input_datasets`` (use
            `dali.plugin.tf.experimental.DALIDatasetWithInputs`).
        ValueError: An alias with its new name, or another batch size than the pipeline's.

    A wrong dtype or shape fails the first batch with an ``InvalidArgumentError`` naming the
    output; a Python source that ends ends the dataset (``OutOfRangeError`` / the loop ends).

    Example:
        >>> import numpy as np, tensorflow as tf
        >>> from dali import fn, pipeline_def, types
        >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=True)
        ... def pipe():
        ...     image = types.Constant(np.zeros((4, 4, 3), np.uint8))
        ...     return image, fn.random.uniform(range=(0, 1))
        >>> ds = DALIDataset(pipe(), output_dtypes=(tf.uint8, tf.float32),
        ...                  output_shapes=((2, 4, 4, 3), (2,)), batch_size=2, device_id=None)
        >>> isinstance(ds, tf.data.Dataset), [tuple(t.shape) for t in next(iter(ds))]
        (True, [(2, 4, 4, 3), (2,)])
    """

    def __init__(
        self,
        pipeline: Pipeline,
        output_dtypes: Any = None,
        output_shapes: Any = None,
        fail_on_device_mismatch: bool = True,
        *,
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
        **kwargs: Any,
    ) -> None:
        if "input_datasets" in kwargs:
            raise TypeError(
                "__init__() got an unexpected keyword argument 'input_datasets'. Dataset inputs "
                "are allowed only in 'experimental.DALIDatasetWithInputs'."
            )
        if kwargs:
            raise TypeError(f"__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        placeholders = [s.name for s in external_sources(pipeline) if not s.has_source]
        if placeholders:
            raise ValueError(
                "DALIDataset got a DALI pipeline containing External Source operator nodes "
                f"without a `source` ({placeholders}): they are placeholders for tf.data.Dataset "
                "inputs, allowed only in 'experimental.DALIDatasetWithInputs'. (External sources "
                "with a `source` run in the pipeline, as Python operators do.)"
            )
        super().__init__(
            pipeline,
            output_dtypes,
            output_shapes,
            fail_on_device_mismatch,
            batch_size,
            dtypes,
            shapes,
            inputs=(),
        )
