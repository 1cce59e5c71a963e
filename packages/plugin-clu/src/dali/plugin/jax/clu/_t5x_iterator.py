"""`T5xIterator`: the peekable CLU iterator as T5X and Pax consume it.

T5X reads a data set as one long stream of batches (training), or as the same few batches at
every evaluation; DALI's iterators stop at every epoch end. This subclass of
`DALIGenericPeekableIterator` bridges the two, and nothing else changes (peek, element_spec,
save/restore are the base class's):

* **Passes.** A *pass* is what ``next()`` returns before StopIteration. It runs through
  ``epochs`` epochs (None: without end; the next epoch starts where one ends, as T5X's
  ``repeat()``) and stops after ``steps`` elements (None: no limit); `bound` sets them.
* **Rewinding** (``rewind=True``, for evaluation): every pass returns the same elements.
  ``reset()`` and ``iter()`` after something was consumed go back to the first element, by
  restoring the checkpoints taken when the iterator was made (so the pipelines need
  ``enable_checkpointing=True``). Without rewinding, ``reset()`` is DALI's (the next epoch,
  at the end of one).
* **Host-local NumPy** without ``sharding``: elements are dicts of ``numpy.ndarray``, what
  T5X's ``ShardedDatasetIterator`` (and Pax) put on devices themselves. With ``sharding`` they
  are the global ``jax.Array`` of the base class.
* **What T5X's in-training evaluation reads of a data set**, which it takes for a
  ``tf.data.Dataset``: ``as_numpy_iterator()`` (a pass, from its start), and, of each
  ``element_spec`` entry, ``shape`` and ``dtype.as_numpy_dtype`` (`SpecDType`: a NumPy dtype
  that also has TensorFlow's ``DType`` attributes, and equals the dtype).

The pass counters (epochs ended, elements returned) are not part of `save`'s state: a restored
iterator starts a new pass at the restored position. Locking: one lock of this class, always
taken before the base class's, guards the counters.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from dali.plugin.jax.clu._peekable import DALIGenericPeekableIterator

if TYPE_CHECKING:
    from clu.data.dataset_iterator import ArraySpec

__all__ = ["SpecDType", "T5xIterator"]


class SpecDType:
    """The dtype of an ``element_spec`` entry: a NumPy dtype to NumPy, JAX and CLU (it has a
    ``dtype``, so ``np.dtype(spec.dtype)`` is that dtype, and it equals it), which also answers
    what T5X asks of TensorFlow's ``DType`` (``as_numpy_dtype``, ``name``).

    Example:
        >>> import numpy as np
        >>> d = SpecDType(np.float32)
        >>> d == np.float32, np.dtype(d), d.as_numpy_dtype, np.zeros(2, d).dtype
        (True, dtype('float32'), <class 'numpy.float32'>, dtype('float32'))
    """

    __slots__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)

    @property
    def as_numpy_dtype(self) -> type:
        """TensorFlow's ``DType.as_numpy_dtype``: the NumPy scalar type."""
        scalar: type = self.dtype.type
        return scalar

    def __getattr__(self, name: str) -> Any:  # name, itemsize, kind, ... of the NumPy dtype
        return getattr(self.dtype, name)

    def __eq__(self, other: object) -> bool:
        try:
            return self.dtype == np.dtype(other)  # type: ignore[call-overload,no-any-return]
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return repr(self.dtype)


class T5xIterator(DALIGenericPeekableIterator):
    """A `DALIGenericPeekableIterator` with T5X's passes; made by `dali.plugin.jax.clu.t5x`.

    The constructor is the base class's; `bound` then sets how long a pass is. Made without
    ``sharding`` it returns host-local ``numpy.ndarray`` batches.

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from dali.plugin.jax.iterator import data_iterator_for
        >>> def source(info):  # epochs of two batches: 0, 1, then 10, 11, ...
        ...     if info.iteration >= 2:
        ...         raise StopIteration
        ...     return np.full((2, 1), 10 * info.epoch_idx + info.iteration, np.int32)
        >>> @data_iterator_for(T5xIterator, output_map=["x"])
        ... def iterator_fn():
        ...     return fn.external_source(source, batch=True, batch_info=True)
        >>> it = iterator_fn(batch_size=2).bound(epochs=None)  # endless, as T5X trains
        >>> [int(next(it)["x"][0, 0]) for _ in range(5)]
        [0, 1, 10, 11, 20]
        >>> type(next(it)["x"]).__name__
        'ndarray'
    """

    #: What `dali.plugin.jax.clu.t5x` made this iterator from (to rebuild it sharded).
    dataset_recipe: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # set before the base class runs: its constructor converts the first batch
        self._pass_lock = threading.RLock()
        self._epochs: int | None = 1
        self._steps: int | None = None
        self._rewind = False
        self._start: list[bytes] | None = None
        self._epochs_ended = 0
        self._taken = 0
        super().__init__(*args, **kwargs)

    def bound(
        self, *, epochs: int | None = 1, steps: int | None = None, rewind: bool = False
    ) -> T5xIterator:
        """Set the passes (the module docstring); call before taking any element.

        Args:
            epochs: Epochs a pass runs through; None: no end.
            steps: Elements a pass returns at most; None: no limit.
            rewind: Every pass starts from the first element (needs the pipelines made with
                ``enable_checkpointing=True``).

        Returns:
            This iterator.

        Raises:
            ValueError: ``epochs`` or ``steps`` below 1, or ``rewind`` without checkpointing.
        """
        for name, value in (("epochs", epochs), ("steps", steps)):
            if value is not None and int(value) < 1:
                raise ValueError(f"{name} must be at least 1 (or None), got {value}")
        with self._pass_lock:
            if rewind and not self.checkpointing_enabled:
                raise ValueError(
                    "rewind=True restores the iterator's first checkpoints: make the "
                    "pipelines with enable_checkpointing=True"
                )
            self._epochs = None if epochs is None else int(epochs)
            self._steps = None if steps is None else int(steps)
            self._rewind = bool(rewind)
            self._start = self.checkpoints() if rewind else None
            self._epochs_ended = self._taken = 0
        return self

    # -- conversion ------------------------------------------------------------------------------
    def _convert(self, outputs: list[tuple[Any, ...]]) -> dict[str, Any]:
        batch = super()._convert(outputs)
        if self.output_sharding(self.output_map[0]) is not None:
            return batch  # global jax.Arrays
        return {name: np.asarray(array) for name, array in batch.items()}

    # -- passes ----------------------------------------------------------------------------------
    def _through_epochs(self, fetch: Any) -> Any:
        """``fetch()``, going on into the next epoch where one ends and the pass goes on."""
        if self._steps is not None and self._taken >= self._steps:
            raise StopIteration
        just_reset = False
        while True:
            try:
                return fetch()
            except StopIteration:
                over = self._epochs is not None and self._epochs_ended + 1 >= self._epochs
                if over or just_reset:  # (an epoch without a batch would loop for ever)
                    raise
                DALIGenericPeekableIterator.reset(self)  # DALI's: the next epoch
                self._epochs_ended += 1
                just_reset = True

    def __next__(self) -> dict[str, Any]:
        with self._pass_lock:
            element = self._through_epochs(super().__next__)
            self._taken += 1
            return element  # type: ignore[no-any-return]

    def peek(self) -> dict[str, Any]:
        """The next element of the pass, without advancing (see the base class).

        Raises:
            StopIteration: The pass is over.
        """
        with self._pass_lock:
            return self._through_epochs(super().peek)  # type: ignore[no-any-return]

    def __iter__(self) -> T5xIterator:
        with self._pass_lock:
            if self._rewind:
                if self._taken:
                    self._go_to_start()
                return self
            if self._epochs is None:
                return self  # one endless pass: nothing to start again
            super().__iter__()
            return self

    def reset(self) -> None:
        """Start the next pass: from the first element when rewinding, else DALI's
        ``reset`` (the next epoch; only at the end of one)."""
        with self._pass_lock:
            if self._rewind:
                self._go_to_start()
                return
            super().reset()
            self._epochs_ended = self._taken = 0

    def _go_to_start(self) -> None:
        assert self._start is not None
        self.load_checkpoints(self._start)

    def load_checkpoints(self, checkpoints: Sequence[bytes | str]) -> None:
        """Restore in place (see the base class); a new pass starts there."""
        with self._pass_lock:
            super().load_checkpoints(checkpoints)
            self._epochs_ended = self._taken = 0

    @property
    def element_spec(self) -> dict[str, ArraySpec]:
        """See the base class (taken under this class's lock, which comes first); each dtype a
        `SpecDType`, for T5X."""
        with self._pass_lock:
            spec = super().element_spec
        return {k: dataclasses.replace(v, dtype=SpecDType(v.dtype)) for k, v in spec.items()}

    def as_numpy_iterator(self) -> Iterator[dict[str, np.ndarray]]:
        """A pass as host NumPy arrays, from its start (``tf.data.Dataset``'s method, which
        T5X's in-training evaluation calls each time it evaluates)."""
        for element in iter(self):
            yield {k: np.asarray(v) for k, v in element.items()}
