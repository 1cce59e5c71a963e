"""A Pax input over a DALI data set: praxis ``BaseInput``'s ``get_next`` / ``reset``.

Pax (paxml) makes one input per host from ``praxis.base_input.BaseInput`` fields
(``batch_size`` per process, ``num_infeed_hosts``, ``infeed_host_index``, ``is_training``,
``reset_for_eval``, ``input_random_seed``) and then calls ``get_next()`` once a step:

* training, and evaluation without ``reset_for_eval``: ``get_next()`` never ends; at the end
  of an epoch the iterator is reset and the next batch read (DALI's Pax example);
* evaluation with ``reset_for_eval``: ``get_next()`` raises StopIteration after one epoch
  (padded by the reader; ``is_nonpadding`` flags the padding) and Pax then calls ``reset()``,
  which goes back to the first batch, so every evaluation reads the same data.

``reset()`` resets the iterator in place; DALI's example assigns the ``None`` that
``DALIGenericIterator.reset()`` returns to its iterator. Batches are host-local
``numpy.ndarray`` dicts (Pax puts them on the devices), from the same `T5xIterator` the T5X
factories make, so ``peek()``, ``element_spec`` and ``save``/``restore`` come with it.

`DaliInputMixin` carries the behaviour and needs nothing from praxis; `DaliInput` is it
standalone. With praxis, mix it into a ``BaseInput`` subclass and start it from the fields::

    from praxis import base_input

    class ImageInput(DaliInputMixin, base_input.BaseInput):
        dali_config: DaliDatasetConfig | None = None

        def __post_init__(self):
            super().__post_init__()
            self.start_dali(
                self.dali_config,
                batch_size=self.batch_size,
                num_infeed_hosts=self.num_infeed_hosts,
                infeed_host_index=self.infeed_host_index,
                is_training=self.is_training,
                reset_for_eval=self.reset_for_eval,
                input_random_seed=self.input_random_seed,
            )

and return ``pax_fiddle.Config(ImageInput, dali_config=..., batch_size=..., is_training=True)``
from the experiment's ``datasets()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from dali.plugin.jax.clu._t5x import DaliDatasetConfig, Recipe, build_iterator
from dali.plugin.jax.clu._t5x_iterator import T5xIterator

__all__ = ["DaliInput", "DaliInputMixin"]


class DaliInputMixin:
    """``get_next`` / ``reset`` / ``peek`` of a Pax input over a DALI data set.

    Call `start_dali` once (from ``__init__`` or praxis' ``__post_init__``) before the rest.
    The mixin declares no class attributes, so that a dataclass (praxis' fiddle-configured
    inputs) takes none of its names for fields.
    """

    def start_dali(
        self,
        config: DaliDatasetConfig,
        *,
        batch_size: int | None = None,
        num_infeed_hosts: int = 1,
        infeed_host_index: int = 0,
        is_training: bool = True,
        reset_for_eval: bool = False,
        input_random_seed: int | None = None,
    ) -> None:
        """Build the iterator of this host's share of ``config``.

        Args:
            config: The data set (its ``batch_size`` is global).
            batch_size: Pax's per-process batch size; replaces ``config.batch_size`` (then
                ``batch_size * num_infeed_hosts``). None: ``config.batch_size //
                num_infeed_hosts``.
            num_infeed_hosts: Hosts sharing the data (0, Pax's unset value, is 1).
            infeed_host_index: This host's share.
            is_training: A training input (never ends).
            reset_for_eval: For evaluation: one epoch per pass, then StopIteration.
            input_random_seed: The pipelines' seed where ``config.seed`` is None.

        Raises:
            TypeError: ``config`` is not a `DaliDatasetConfig`.
        """
        if not isinstance(config, DaliDatasetConfig):
            raise TypeError(f"config must be a DaliDatasetConfig, got {type(config).__name__}")
        hosts = int(num_infeed_hosts) or 1
        if batch_size is not None:
            config = dataclasses.replace(config, batch_size=int(batch_size) * hosts)
        if input_random_seed is not None and config.seed is None:
            config = dataclasses.replace(config, seed=int(input_random_seed))
        finite = bool(reset_for_eval) and not is_training
        recipe = Recipe(
            config,
            shard_id=int(infeed_host_index),
            num_shards=hosts,
            epochs=1,
            rewind=finite,
            checkpointing=True,
        )
        self._dali = build_iterator(recipe)
        self._dali_finite = finite

    @property
    def dali_iterator(self) -> T5xIterator:
        """The iterator (`T5xIterator`): ``element_spec``, ``save``/``restore``, ...

        Raises:
            RuntimeError: `start_dali` was not called.
        """
        iterator: T5xIterator | None = getattr(self, "_dali", None)
        if iterator is None:
            raise RuntimeError("call start_dali(config, ...) first")
        return iterator

    def _read(self, take: Any) -> dict[str, Any]:
        try:
            return take()  # type: ignore[no-any-return]
        except StopIteration:
            if self._dali_finite:
                raise
            self.dali_iterator.reset()  # the end of an epoch: the next one
            return take()  # type: ignore[no-any-return]

    def get_next(self) -> dict[str, Any]:
        """The next batch (``{name: numpy.ndarray}``).

        Raises:
            StopIteration: Only with ``reset_for_eval``, at the end of the epoch.
        """
        iterator = self.dali_iterator
        return self._read(lambda: next(iterator))

    def peek(self) -> dict[str, Any]:
        """The batch the next `get_next` returns, without advancing."""
        return self._read(self.dali_iterator.peek)

    def reset(self) -> None:
        """Start again: from the first batch with ``reset_for_eval``, else the next epoch
        (DALI's ``reset``, at the end of one)."""
        self.dali_iterator.reset()


class DaliInput(DaliInputMixin):
    """A Pax-style input over a DALI data set, without praxis (`DaliInputMixin`).

    The arguments are `DaliInputMixin.start_dali`'s.

    Example:
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> def counter():  # epochs of two batches
        ...     def source(info):
        ...         if info.iteration >= 2:
        ...             raise StopIteration
        ...         return np.full((2, 1), 10 * info.epoch_idx + info.iteration, np.int32)
        ...     return fn.external_source(source, batch=True, batch_info=True)
        >>> cfg = DaliDatasetConfig(counter, ["x"], batch_size=2)
        >>> train = DaliInput(cfg, is_training=True)
        >>> [int(train.get_next()["x"][0, 0]) for _ in range(5)]  # on through the epochs
        [0, 1, 10, 11, 20]
    """

    def __init__(
        self,
        config: DaliDatasetConfig,
        *,
        batch_size: int | None = None,
        num_infeed_hosts: int = 1,
        infeed_host_index: int = 0,
        is_training: bool = True,
        reset_for_eval: bool = False,
        input_random_seed: int | None = None,
    ) -> None:
        self.start_dali(
            config,
            batch_size=batch_size,
            num_infeed_hosts=num_infeed_hosts,
            infeed_host_index=infeed_host_index,
            is_training=is_training,
            reset_for_eval=reset_for_eval,
            input_random_seed=input_random_seed,
        )
        #: Pax's fields, as given (``batch_size`` per process).
        self.batch_size = self.dali_iterator.batch_size
        self.num_infeed_hosts = int(num_infeed_hosts) or 1
        self.infeed_host_index = int(infeed_host_index)
        self.is_training = bool(is_training)
        self.reset_for_eval = bool(reset_for_eval)
