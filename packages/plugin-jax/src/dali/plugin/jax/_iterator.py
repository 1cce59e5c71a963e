"""`DALIGenericIterator`: DALI pipelines as an iterator of dicts of `jax.Array`.

The epoch arithmetic (``reader_name``, ``size``, last-batch policy, ``reset``, checkpoints) is
the shared `dali.author.BaseIterator` (DALI's ``_DaliBaseIterator``); this class only implements its
conversion hook, turning every pipeline's outputs into one array per ``output_map`` name:

* one pipeline, no sharding: the batch itself, ``(batch, *sample_shape)``, zero-copy;
* ``sharding=``: one global array of ``(num_shards * batch, ...)`` samples laid out as the
  sharding says (a sharding per output is allowed: a dict keyed by name or a list in
  ``output_map`` order), each pipeline's batch first put on its device;
* several pipelines without sharding, or ``pmap_compatible=True``: ``(num_pipelines, batch,
  ...)``, stacked on one device, or split over the pipelines' devices for ``jax.pmap``.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.external_source(lambda i: np.full((2, 3), i, np.int32), batch=True)
    >>> it = DALIGenericIterator(pipe(), ["x"])
    >>> batch = next(it)
    >>> batch["x"].shape, batch["x"].tolist()[1]
    ((2, 3), [0, 0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dali.author import BaseIterator, LastBatchPolicy
from dali.plugin.jax._convert import batch_to_jax, on_device
from dali.plugin.jax._sharding import (
    Assembler,
    ShardPlan,
    per_output_shardings,
    primary_sharding,
    stack_per_device,
)

if TYPE_CHECKING:
    from dali.pipeline import Pipeline

    import jax

__all__ = ["DALIGenericIterator"]


class DALIGenericIterator(BaseIterator):
    """Iterate over DALI pipelines, getting a ``dict`` of ``jax.Array`` per batch.

    Args:
        pipelines: One pipeline or a list (one per device); they must have the same batch
            size, and every output must be a uniform batch (all samples of one shape).
        output_map: One distinct name per pipeline output: the keys of each returned dict.
        size: Samples per epoch over all pipelines (legacy; prefer ``reader_name``); -1 runs
            until a Python source raises StopIteration.
        reader_name: The reader whose metadata sets the epoch (shards, padding).
        auto_reset: ``True``/``"yes"``: reset automatically at the end of each epoch.
        last_batch_padded: With ``size``: the reader pads its shards (``pad_last_batch``).
        last_batch_policy: ``LastBatchPolicy.FILL`` or ``DROP`` (PARTIAL would give arrays of
            a new shape at the end of every epoch, recompiling jitted functions).
        prepare_first_batch: Prepare the first batch in the constructor.
        sharding: A ``jax.sharding.Sharding`` for all outputs, or one per output: a dict
            keyed by the ``output_map`` names or a list in their order (a replicated sharding
            gives every device the whole global batch of that output). Pipeline ``k`` holds
            shard ``k`` of the batch axis (see `dali.plugin.jax.data_iterator`, which builds
            the pipelines to match).
        pmap_compatible: Return ``(num_pipelines, batch, ...)`` arrays, one slice per device,
            for ``jax.pmap``, even for one pipeline.

    Raises:
        AssertionError: Duplicate names, PARTIAL, a bad ``sharding``, or the other checks of
            DALI's base iterator.
        ValueError: ``sharding`` together with ``pmap_compatible=True``.

    Example:
        >>> import jax
        >>> from jax.sharding import Mesh, NamedSharding, PartitionSpec
        >>> mesh = Mesh(jax.devices()[:1], ("batch",))
        >>> sharding = NamedSharding(mesh, PartitionSpec("batch"))
        >>> import numpy as np
        >>> import dali.fn as fn
        >>> from dali import pipeline_def
        >>> @pipeline_def(batch_size=4, num_threads=1, device_id=None)
        ... def pipe():
        ...     return fn.external_source(lambda i: np.ones((4, 2), np.float32), batch=True)
        >>> it = DALIGenericIterator([pipe()], ["x"], sharding=sharding)
        >>> next(it)["x"].sharding == sharding
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
        _devices: Sequence[jax.Device] | None = None,
    ) -> None:
        # Checked before the base class runs anything (it prepares the first batch).
        if len(set(output_map)) != len(output_map):
            raise AssertionError("output_map names should be distinct")
        self.output_map = list(output_map)
        self._output_categories = set(output_map)
        shardings = per_output_shardings(sharding, self.output_map)
        if shardings is not None and pmap_compatible:
            raise ValueError(
                "`sharding` gives global arrays and `pmap_compatible=True` gives per-device "
                "stacks: use only one of them."
            )
        assert last_batch_policy != LastBatchPolicy.PARTIAL, (
            "JAX iterator does not support partial last batch policy."
        )
        pipes = list(pipelines) if isinstance(pipelines, (list, tuple)) else [pipelines]
        self._sharding = sharding
        self._pmap_compatible = bool(pmap_compatible)
        self._assembler: Assembler | None = None
        self._devices: tuple[Any, ...] | None = None
        if shardings is not None:
            pipe_devices = None if _devices is not None else [p.device_id for p in pipes]
            plan = ShardPlan.for_sharding(primary_sharding(shardings), pipe_devices)
            self._assembler = Assembler(plan, shardings)
            self._devices = plan.devices
        elif _devices is not None:
            # data_iterator(devices=...): one pipeline per device, pmap-compatible by default
            self._devices = tuple(_devices)
            self._pmap_compatible = pmap_compatible is None or bool(pmap_compatible)
        super().__init__(
            pipes,
            size,
            reader_name,
            auto_reset,
            None,  # fill_last_batch: deprecated, not taken by the JAX iterator
            last_batch_padded,
            last_batch_policy,
            prepare_first_batch,
        )

    def batch_shape(self, sample_shape: Sequence[int | None]) -> tuple[int | None, ...]:
        """The shape of the array an output with samples of ``sample_shape`` comes as: the
        batch axes (the global batch with ``sharding``; ``(pipelines, batch)`` when stacked)
        followed by the sample's. For plugins that describe elements before any data.

        Example:
            >>> import numpy as np, dali.fn as fn
            >>> from dali import pipeline_def
            >>> @pipeline_def(batch_size=4, num_threads=1, device_id=None)
            ... def pipe():
            ...     return fn.external_source(lambda i: np.zeros((4, 2), np.int8), batch=True)
            >>> DALIGenericIterator(pipe(), ["x"]).batch_shape((2,))
            (4, 2)
        """
        batch, pipes = self.batch_size, len(self._pipes)
        if self._assembler is not None:
            return (self._assembler.plan.num_blocks * batch, *sample_shape)
        if pipes > 1 or self._pmap_compatible:
            return (pipes, batch, *sample_shape)
        return (batch, *sample_shape)

    def output_sharding(self, name: str) -> Any:
        """The sharding of output ``name``'s global arrays (None without ``sharding``)."""
        if self._assembler is None:
            return None
        return self._assembler.shardings[self.output_map.index(name)]

    def assemble(self, name: str, arrays: Sequence[Any]) -> Any:
        """One array per pipeline (batch axis first) laid out as output ``name`` is: the
        global array of its sharding (multi-process jobs included), else what ``next()``
        gives without one. For plugins that return per-sample data beside the outputs
        (dali-clu's ``is_nonpadding``)."""
        import jax.numpy as jnp

        jarrays = [jnp.asarray(a) for a in arrays]
        if self._assembler is not None:
            return self._assembler.assemble(self.output_map.index(name), jarrays)
        if len(jarrays) > 1 or self._pmap_compatible:
            return jnp.stack(jarrays)
        return jarrays[0]

    def _convert(self, outputs: list[tuple[Any, ...]]) -> dict[str, jax.Array]:
        """One array per output name from every pipeline's TensorLists (the base's hook)."""
        result: dict[str, jax.Array] = {}
        n_pipes = len(outputs)
        stacked = self._assembler is None and (n_pipes > 1 or self._pmap_compatible)
        named = self.named_outputs(outputs, self.output_map)
        for i, name in enumerate(self.output_map):
            arrays = []
            for k, per_pipeline in enumerate(named):
                _, tl, what = per_pipeline[i]
                arr = batch_to_jax(tl, what=what, leading_axis=stacked)
                if self._devices is not None and self._assembler is None:
                    arr = on_device(arr, self._devices[k])
                arrays.append(arr)
            if self._assembler is not None:
                result[name] = self._assembler.assemble(i, arrays)
            elif stacked:
                shape = arrays[0].shape
                for a in arrays:
                    assert a.shape == shape, "Shards shapes have to be the same."
                result[name] = stack_per_device(arrays)
            else:
                result[name] = arrays[0]
        return result
