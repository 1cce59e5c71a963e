"""The read-only settings of a `Pipeline`, as properties.

They only report what the constructor was given (or its normalised form); the class is a mixin
of `Pipeline`, which sets the attributes.

Example:
    >>> from dali import Pipeline
    >>> depth = {"cpu_size": 3, "gpu_size": 2}
    >>> pipe = Pipeline(batch_size=8, num_threads=2, prefetch_queue_depth=depth)
    >>> pipe.max_batch_size, pipe.cpu_queue_size, pipe.gpu_queue_size, pipe.exec_separated
    (8, 3, 2, True)
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["PipelineProperties"]


class PipelineProperties:
    """The settings of a `Pipeline` that do not depend on its graph."""

    _max_batch_size: int | None
    _num_threads: int | None
    _device_id: int | None
    _seed: int | None
    _exec_pipelined: bool
    _exec_async: bool
    _exec_dynamic: bool | None
    _exec_separated: bool
    _stream_policy: Any
    _concurrency: Any
    _set_affinity: bool
    _prefetch_queue_depth: Any
    _cpu_queue_size: int
    _gpu_queue_size: int
    _enable_memory_stats: bool
    _py_num_workers: int
    _py_start_method: str

    @property
    def max_batch_size(self) -> int | None:
        return self._max_batch_size

    @property
    def batch_size(self) -> int | None:
        warnings.warn("batch_size is deprecated, please use max_batch_size instead", Warning, 2)
        return self._max_batch_size

    @property
    def num_threads(self) -> int | None:
        return self._num_threads

    @property
    def device_id(self) -> int | None:
        return self._device_id

    @property
    def seed(self) -> int | None:
        return self._seed

    @property
    def exec_pipelined(self) -> bool:
        return self._exec_pipelined

    @property
    def exec_async(self) -> bool:
        return self._exec_async

    @property
    def exec_dynamic(self) -> bool | None:
        return self._exec_dynamic

    @property
    def exec_separated(self) -> bool:
        return self._exec_separated

    @property
    def stream_policy(self) -> Any:
        return self._stream_policy

    @property
    def concurrency(self) -> Any:
        return self._concurrency

    @property
    def set_affinity(self) -> bool:
        return self._set_affinity

    @property
    def max_streams(self) -> int:
        return -1

    @property
    def prefetch_queue_depth(self) -> Any:
        return self._prefetch_queue_depth

    @property
    def cpu_queue_size(self) -> int:
        return self._cpu_queue_size

    @property
    def gpu_queue_size(self) -> int:
        return self._gpu_queue_size

    @property
    def default_cuda_stream_priority(self) -> int:
        return 0

    @property
    def enable_memory_stats(self) -> bool:
        return self._enable_memory_stats

    @property
    def py_num_workers(self) -> int:
        return self._py_num_workers

    @property
    def py_start_method(self) -> str:
        return self._py_start_method

    @property
    def is_restored_from_checkpoint(self) -> bool:
        """Whether the pipeline was built from a ``checkpoint`` (False before `build`)."""
        return bool(getattr(self, "_restored", False))
