"""`Pipeline.serialize` and `Pipeline.deserialize`: a pipeline as a document and back.

A mixin of `Pipeline`; the document's format is `dali._graph.serialize`'s (versioned JSON, not
DALI's protobuf). DALI's signatures: ``serialize(define_graph=None, filename=None)`` returns
the bytes (and writes them to ``filename`` when given); ``Pipeline.deserialize(
serialized_pipeline=None, filename=None, **kwargs)`` makes a new pipeline, the keyword
arguments overriding the document's settings (``batch_size``, ``device_id``, ...).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self

    from dali._graph.node import DataNode, OpNode

__all__ = ["Serialization"]


class Serialization:
    """`Pipeline`'s serialization (a mixin; see the module docstring)."""

    _ops: list[OpNode]
    _names: dict[str, OpNode]
    _graph_outputs: list[DataNode] | None
    _built: bool
    _max_batch_size: int | None
    _num_threads: int | None
    _device_id: int | None
    _resolved_seed: int
    _exec_pipelined: bool
    _exec_async: bool
    _prefetch_queue_depth: Any
    _bytes_per_sample: int
    _enable_memory_stats: bool
    _enable_checkpointing: bool
    _py_num_workers: int
    _py_start_method: str
    _op_counter: int

    if TYPE_CHECKING:

        def build(self) -> None: ...

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def _settings(self) -> dict[str, Any]:
        from dali._graph.serialize import SETTINGS

        values = {
            "batch_size": self._max_batch_size,
            "num_threads": self._num_threads,
            "device_id": self._device_id,
            # the seed the pipeline draws with (a random one when none was given), so that a
            # deserialized pipeline gives the same batches
            "seed": self._resolved_seed,
            "exec_pipelined": self._exec_pipelined,
            "prefetch_queue_depth": self._prefetch_queue_depth,
            "exec_async": self._exec_async,
            "bytes_per_sample": self._bytes_per_sample,
            "enable_memory_stats": self._enable_memory_stats,
            "enable_checkpointing": self._enable_checkpointing,
            "py_num_workers": self._py_num_workers,
            "py_start_method": self._py_start_method,
        }
        assert tuple(values) == SETTINGS
        return values

    def serialize(self, define_graph: Any = None, filename: str | Path | None = None) -> bytes:
        """The pipeline as a document (bytes of versioned JSON), as DALI's ``serialize``.

        Every built-in operator and argument round-trips; a Python callable (a
        ``python_function``'s ``function``, an ``external_source``'s ``source``) is stored
        by the name it is imported by (``module:qualified.name``).

        Args:
            define_graph: Deprecated in DALI; must be None (the graph is the pipeline's).
            filename: Also write the bytes to this file.

        Raises:
            SerializationError: A lambda, a closure or another value that has no document
                form; the message names the operator and the argument.
        """
        from dali._graph.serialize import dumps, to_document

        if define_graph is not None:
            raise TypeError(
                "serialize(define_graph=...) is not supported: define the graph on the pipeline"
            )
        self.build()
        assert self._graph_outputs is not None
        data = dumps(to_document(self._ops, self._graph_outputs, self._settings()))
        if filename is not None:
            Path(filename).write_bytes(data)
        return data

    @classmethod
    def deserialize(
        cls,
        serialized_pipeline: bytes | str | None = None,
        filename: str | Path | None = None,
        **kwargs: Any,
    ) -> Self:
        """A new pipeline from `serialize`'s bytes (or the file ``filename``), as DALI's.

        Args:
            serialized_pipeline: The document.
            filename: Read it from this file instead.
            **kwargs: Constructor arguments that replace the document's settings
                (``batch_size``, ``num_threads``, ``device_id``, ``seed``, ...) or add to them.

        Raises:
            SerializationError: Not a document of this library (an NVIDIA DALI protobuf, say),
                a newer format version, or an operator or callable that cannot be imported.
        """
        from dali._graph.serialize import decode_value, from_document, loads

        if (serialized_pipeline is None) == (filename is None):
            raise ValueError(
                "Pipeline.deserialize: give exactly one of serialized_pipeline and filename"
            )
        data = Path(filename).read_bytes() if filename is not None else serialized_pipeline
        assert data is not None
        doc = loads(data)
        settings = {k: decode_value(v, f"setting `{k}`") for k, v in doc["settings"].items()}
        settings.update(kwargs)
        pipe = cls(**settings)
        ops, outputs = from_document(doc, pipe)
        pipe._ops = ops
        pipe._names = {op.name: op for op in ops}
        pipe._op_counter = max((op.creation_index for op in ops), default=-1) + 1
        pipe._graph_outputs = outputs
        return pipe

    def deserialize_and_build(self, serialized_pipeline: bytes | str) -> None:
        """Deprecated in DALI: replace this pipeline's graph with the document's and build."""
        warnings.warn(
            "deserialize_and_build is deprecated; use Pipeline.deserialize(...) instead",
            DeprecationWarning,
            stacklevel=2,
        )
        from dali._graph.serialize import from_document, loads

        if self._built:
            raise RuntimeError("deserialize_and_build: the pipeline was already built")
        ops, outputs = from_document(loads(serialized_pipeline), self)
        self._ops = ops
        self._names = {op.name: op for op in ops}
        self._graph_outputs = outputs
        self.build()
