"""`DALIGenericPeekableIterator`: the JAX iterator as a real CLU ``DatasetIterator``.

DALI's peekable iterator copies CLU's peek logic onto its JAX iterator; ours also *is* a
``clu.data.dataset_iterator.DatasetIterator`` (so T5X's ``utils.prepare_train_iter`` and the
``clu.data`` helpers accept it) and keeps CLU's whole contract:

* ``peek()`` fetches the next element once and caches it: later ``peek()`` calls and the next
  ``next()`` return that very object; ``peek_async()`` is a ``concurrent.futures.Future`` of
  ``peek()`` (one worker thread, made on first use). A lock serialises them across threads.
* ``element_spec``: ``{name: clu ArraySpec}`` with the batch axis first, worked out from the
  pipeline's static output shapes and dtypes without reading any data where the graph fixes
  them (`dali.Pipeline.output_shape`); otherwise from one peeked element. Every element is
  checked against it: a change of shape or dtype is a ValueError, as in DALI (jitted steps
  would recompile).
* ``save(filename)`` / ``restore(filename)``: this process's iterator state, the small JSON
  checkpoints of its pipelines (`dali.author.BaseIterator.checkpoints`), in a file. A pending
  peeked element is part of the state: the checkpoint is the one taken before it was peeked,
  so a restored iterator's next element is that element again (DALI refuses to checkpoint
  then). ``restore`` works in place (`dali.author.BaseIterator.load_checkpoints`).
* ``get_next()`` is ``next()`` (CLU's base logs a deprecation error; Pax calls it).
* Ragged outputs (beyond DALI): ``pad_to`` / ``buckets`` pad them to one declared shape or to
  the smallest of a few (`_ragged`), instead of failing; ``element_spec`` says so.
* ``is_nonpadding``: which samples of the last batch are real (False for the padding of
  FILL), for evaluation.
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from dali.author import CheckpointError, LastBatchPolicy
from dali.plugin.jax.clu._ragged import Ragged
from dali.plugin.jax.iterator import DALIGenericIterator

from clu.data.dataset_iterator import ArraySpec, DatasetIterator

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

__all__ = ["DALIGenericPeekableIterator"]

#: The ``format`` field of the files `DALIGenericPeekableIterator.save` writes.
STATE_FORMAT = "dali-clu-iterator"
STATE_VERSION = 1


def spec_of(array: Any) -> ArraySpec:
    """The CLU ``ArraySpec`` of an array (its shape and dtype)."""
    return ArraySpec(dtype=np.dtype(array.dtype), shape=tuple(array.shape))


class DALIGenericPeekableIterator(DALIGenericIterator, DatasetIterator):
    """A peekable `dali.plugin.jax.DALIGenericIterator` that is a CLU ``DatasetIterator``.

    The arguments are `DALIGenericIterator`'s (DALI's, with ``sharding`` one per output
    allowed). Outputs must keep their shape and dtype from batch to batch, except those given
    a shape to pad to:

    Args:
        pad_to: ``{output name: sample shape}``: pad every sample of the output to that shape
            (``None`` extents are not padded).
        buckets: ``{output name: [sample shape, ...]}``: pad each batch of the output to the
            smallest of these shapes that holds its samples.
        pad_value: The value padding is filled with.

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from dali import pipeline_def
        >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        ... def pipe():
        ...     return fn.external_source(lambda i: np.full((2, 3), i, np.int32), batch=True)
        >>> it = DALIGenericPeekableIterator(pipe(), ["x"])
        >>> it.element_spec
        {'x': ArraySpec(dtype=int32, shape=(2, 3))}
        >>> it.peek() is next(it)
        True
    """

    def __init__(
        self,
        pipelines: Pipeline | list[Pipeline] | tuple[Pipeline, ...],
        output_map: Sequence[str],
        size: int = -1,
        reader_name: str | None = None,
        auto_reset: bool | str | None = False,
        last_batch_padded: bool = False,
        last_batch_policy: LastBatchPolicy = LastBatchPolicy.FILL,
        prepare_first_batch: bool = True,
        sharding: Any = None,
        pmap_compatible: bool | None = None,
        *,
        pad_to: Mapping[str, Sequence[int | None]] | None = None,
        buckets: Mapping[str, Sequence[Sequence[int | None]]] | None = None,
        pad_value: float = 0,
        **kwargs: Any,
    ) -> None:
        # set before the base class runs: its constructor prepares the first batch
        self._ragged = Ragged(pad_to, buckets, pad_value)
        unknown = sorted(set(self._ragged.names()) - set(output_map))
        if unknown:
            raise ValueError(f"pad_to/buckets name outputs not in output_map: {unknown}")
        self._mutex = threading.RLock()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._peeked: Any = None
        #: `nonpadding_counts` when the pending peeked element was read, and when the last
        #: element returned was (`is_nonpadding` describes that one, whatever was peeked since)
        self._peeked_counts: list[int] | None = None
        self._returned_counts: list[int] | None = None
        #: the pipelines' checkpoints from just before the pending peek took its element
        self._before_peek: list[bytes] | None = None
        self._element_spec: dict[str, ArraySpec] | None = None
        super().__init__(
            pipelines,
            output_map,
            size=size,
            reader_name=reader_name,
            auto_reset=auto_reset,
            last_batch_padded=last_batch_padded,
            last_batch_policy=last_batch_policy,
            prepare_first_batch=prepare_first_batch,
            sharding=sharding,
            pmap_compatible=pmap_compatible,
            **kwargs,
        )

    # -- elements ----------------------------------------------------------------------------
    def _convert(self, outputs: list[tuple[Any, ...]]) -> dict[str, Any]:
        if self._ragged:
            lists = [list(outs) for outs in outputs]
            for name in self._ragged.names():
                i = self.output_map.index(name)
                dense = self._ragged.densify(name, [outs[i] for outs in lists])
                for outs, tl in zip(lists, dense):
                    outs[i] = tl
            outputs = [tuple(outs) for outs in lists]
        return super()._convert(outputs)

    def _ragged_spec(self, name: str, dtype: Any, sample: Sequence[int | None] | None) -> ArraySpec:
        """A padded output's spec: the declared extents, the graph's where they say None."""
        shape = list(self._ragged.spec_shape(name))
        if sample is not None and len(sample) == len(shape):
            shape = [d if d is not None else sample[k] for k, d in enumerate(shape)]
        return ArraySpec(dtype=np.dtype(dtype), shape=self.batch_shape(shape))

    def _checked(self, element: dict[str, Any]) -> dict[str, Any]:
        spec = self._element_spec
        if spec is None:
            spec = {k: spec_of(v) for k, v in element.items()}
            for name in self._ragged.names():
                spec[name] = self._ragged_spec(name, spec[name].dtype, None)
            self._element_spec = spec
        lead = len(self.batch_shape(()))
        for key, value in element.items():
            got = spec_of(value)
            if key in self._ragged.shapes:
                ok = got.dtype == spec[key].dtype and self._ragged.allows(key, got.shape[lead:])
                if ok:
                    continue
                got_text = f"{got} (declared: {self._ragged.shapes[key]})"
                raise ValueError(f"output '{key}' came as {got_text}, not a declared shape")
            if got != spec[key]:
                raise ValueError(
                    "The shape or type of the output changed between iterations. This is not "
                    "supported by JAX  peekable iterator. Please make sure that the shape and "
                    f"type of the output is constant. Expected: {spec[key]}, got: {got} for "
                    f"output: {key}"
                )
        return element

    def _read(self) -> tuple[dict[str, Any], list[int] | None]:
        """A new element from the pipelines and its `nonpadding_counts` (hold the lock)."""
        element = self._checked(DALIGenericIterator.__next__(self))
        return element, (self.nonpadding_counts() if self.reader_name else None)

    def _take(self) -> dict[str, Any]:
        """The next element: the pending peeked one, or a new one (hold the lock)."""
        if self._peeked is not None:
            element: dict[str, Any] = self._peeked
            self._returned_counts = self._peeked_counts
            self._peeked = self._before_peek = self._peeked_counts = None
            return element  # (checked when it was peeked)
        element, self._returned_counts = self._read()
        return element

    def __next__(self) -> dict[str, Any]:
        with self._mutex:
            return self._take()

    def get_next(self) -> dict[str, Any]:
        """``next(self)``: CLU's deprecated spelling, which Pax calls."""
        return next(self)

    def __iter__(self) -> DALIGenericPeekableIterator:
        with self._mutex:
            if self._peeked is None:
                super().__iter__()
            return self

    def peek(self) -> dict[str, Any]:
        """The next element, without advancing: the next ``next()`` returns this object.

        Raises:
            StopIteration: At the end of the epoch (nothing is cached then).
        """
        with self._mutex:
            if self._peeked is None:
                before = self._own_checkpoints() if self.checkpointing_enabled else None
                self._peeked, self._peeked_counts = self._read()
                self._before_peek = before
            peeked: dict[str, Any] = self._peeked
            return peeked

    def peek_async(self) -> concurrent.futures.Future[dict[str, Any]]:
        """A future of `peek` (run on a worker thread; wait for it before ``next()`` if the
        next element must be this one)."""
        with self._mutex:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="dali-clu-peek"
                )
            return self._pool.submit(self.peek)

    # -- the element spec ----------------------------------------------------------------------
    @property
    def element_spec(self) -> dict[str, ArraySpec]:
        """``{name: ArraySpec(dtype, shape)}`` of the elements, batch axis first; from the
        graph when it fixes every output's shape (no data is read), else from one peek."""
        with self._mutex:
            if self._element_spec is None:
                static = self._static_spec()
                if static is not None:
                    self._element_spec = static
                else:
                    self.peek()
            assert self._element_spec is not None
            return dict(self._element_spec)

    def _static_spec(self) -> dict[str, ArraySpec] | None:
        """The spec from the pipelines' static shapes and dtypes, or None where one is not
        known. The batch axis is what `_convert` makes of the pipelines' batches."""
        pipe = self.pipelines[0]
        shapes = pipe.output_shape()
        dtypes = pipe.output_dtype()
        spec = {}
        for name, shape, dtype in zip(self.output_map, shapes, dtypes):
            np_dtype = None if dtype is None else _numpy_dtype(dtype)
            if np_dtype is None:
                return None
            if name in self._ragged.shapes:
                spec[name] = self._ragged_spec(name, np_dtype, shape)
                continue
            if shape is None or any(d is None for d in shape):
                return None
            spec[name] = ArraySpec(dtype=np_dtype, shape=self.batch_shape(shape))
        return spec

    # -- state ---------------------------------------------------------------------------------
    def _own_checkpoints(self) -> list[bytes]:
        return DALIGenericIterator.checkpoints(self)

    def checkpoints(self) -> list[bytes]:
        """The pipelines' checkpoints; with a pending peeked element, those from before it
        (beyond DALI, which refuses): a restored iterator's next element is that element."""
        with self._mutex:
            if self._peeked is not None and self._before_peek is not None:
                return list(self._before_peek)
            return self._own_checkpoints()

    def load_checkpoints(self, checkpoints: Sequence[bytes | str]) -> None:
        """Restore `checkpoints` in place (a pending peeked element is dropped)."""
        with self._mutex:
            self._peeked = self._before_peek = self._peeked_counts = None
            self._returned_counts = None
            super().load_checkpoints(checkpoints)

    def save(self, filename: Any) -> None:
        """Write this process's iterator state (its pipelines' checkpoints) to ``filename``
        (a path, ``str`` or ``etils.epath.Path``: local or any file system epath reaches).

        Raises:
            ValueError: The pipelines were made without ``enable_checkpointing=True``.
        """
        from etils import epath

        state = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "checkpoints": [c.decode() for c in self.checkpoints()],
        }
        epath.Path(filename).write_text(json.dumps(state, separators=(",", ":")))

    def restore(self, filename: Any) -> None:
        """Continue from what `save` wrote to ``filename``, in place.

        Raises:
            dali.author.CheckpointError: Not a file `save` wrote, or checkpoints of other
                pipelines.
        """
        from etils import epath

        text = epath.Path(filename).read_text()
        try:
            state = json.loads(text)
        except json.JSONDecodeError as e:
            raise CheckpointError(f"'{filename}' is not an iterator state ({e})") from e
        if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
            raise CheckpointError(f"'{filename}' was not written by save() of dali-clu")
        if state.get("version") != STATE_VERSION:
            raise CheckpointError(
                f"'{filename}' has version {state.get('version')!r}, this dali-clu reads "
                f"version {STATE_VERSION}"
            )
        checkpoints = state.get("checkpoints")
        if not isinstance(checkpoints, list) or not checkpoints:
            raise CheckpointError(f"'{filename}' holds no checkpoints")
        self.load_checkpoints(checkpoints)

    # -- evaluation ----------------------------------------------------------------------------
    @property
    def is_nonpadding(self) -> Any:
        """Which samples of the last element returned are real: a bool array laid out as the
        outputs' batch axis (``(batch · pipelines,)``, a global array with ``sharding``), False
        for the padding that completes the last batch of an epoch (FILL). Needs
        ``reader_name``."""
        batch = self.batch_size
        with self._mutex:
            counts = self._returned_counts
            if counts is None:  # nothing returned yet (or since a restore): a full batch
                counts = [batch] * len(self.nonpadding_counts())
        masks = [np.arange(batch) < n for n in counts]
        if self.output_sharding(self.output_map[0]) is None:
            return np.concatenate(masks)
        return self.assemble(self.output_map[0], masks)


def _numpy_dtype(dtype: Any) -> np.dtype[Any] | None:
    """The numpy dtype of a DALI dtype (None if it has none)."""
    from dali.types import to_numpy_type

    try:
        return np.dtype(to_numpy_type(dtype))
    except (TypeError, KeyError, ValueError):
        return None
