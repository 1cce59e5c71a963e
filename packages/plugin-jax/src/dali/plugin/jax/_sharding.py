"""Placing the pipelines' batches in a global, sharded `jax.Array`.

A *block* is one contiguous slice of the global batch along axis 0. A sharding splits the
global batch into ``num_blocks`` blocks (a 1-D mesh over N devices: N blocks, one per device;
a 2-D ``('data', 'model')`` mesh sharded on ``'data'``: one block per ``'data'`` index, held by
every device of that row). Each pipeline produces one block, so the global batch is
``num_blocks * per_pipeline_batch`` samples, and pipeline ``k`` of a `ShardPlan` reads shard
``blocks[k]`` of ``num_blocks`` of the dataset.

Every process builds pipelines only for the blocks its own devices hold, and assembles the
global array from those addressable pieces with ``jax.make_array_from_single_device_arrays``,
as JAX's multi-process model wants. The common case (each device holds exactly its pipeline's
block) costs nothing: the batch is already on its device. Other layouts (a replicated output,
an output sharded along another mesh or along more axes) are cut from the local blocks; when a
device needs rows that only another process has read, the blocks are gathered from all
processes first (a collective, decided identically in every process).

Example:
    >>> import jax
    >>> from jax.sharding import Mesh, NamedSharding, PartitionSpec
    >>> sharding = NamedSharding(Mesh(jax.devices()[:1], ("batch",)), PartitionSpec("batch"))
    >>> plan = ShardPlan.for_sharding(sharding)
    >>> plan.blocks, plan.num_blocks
    ((0,), 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dali.plugin.jax._convert import on_device

if TYPE_CHECKING:
    import jax

__all__ = [
    "Assembler",
    "ShardPlan",
    "block_map",
    "per_output_shardings",
    "primary_sharding",
    "stack_per_device",
]

_MAX_PROBE_NDIM = 8


def _is_sharding(x: Any) -> bool:
    from jax.sharding import Sharding

    return isinstance(x, Sharding)


def per_output_shardings(sharding: Any, output_map: Sequence[str]) -> list[Any] | None:
    """One sharding per output name, from a single sharding, a dict or a matching PyTree.

    Args:
        sharding: None, a ``jax.sharding.Sharding`` (used for every output), a mapping from
            every name of ``output_map`` to a sharding, or a list/tuple with one sharding per
            output (the PyTree of ``output_map``).
        output_map: The iterator's output names.

    Returns:
        None when ``sharding`` is None, else a list aligned with ``output_map``.

    Raises:
        AssertionError: For anything else (DALI's error type for a bad ``sharding``).
    """
    if sharding is None:
        return None
    if _is_sharding(sharding):
        return [sharding] * len(output_map)
    if isinstance(sharding, Mapping):
        missing = [n for n in output_map if n not in sharding]
        extra = [k for k in sharding if k not in output_map]
        if missing or extra:
            raise AssertionError(
                "A dict of shardings needs exactly one entry per output_map name; "
                f"missing: {missing}, unknown: {extra}."
            )
        values = [sharding[n] for n in output_map]
    elif isinstance(sharding, (list, tuple)):
        if len(sharding) != len(output_map):
            raise AssertionError(
                f"A list of shardings needs one entry per output ({len(output_map)}), got "
                f"{len(sharding)}."
            )
        values = list(sharding)
    else:
        values = [sharding]
    for v in values:
        if not _is_sharding(v):
            raise AssertionError(
                "`sharding` should be a jax.sharding.Sharding (NamedSharding or "
                "PositionalSharding), or a dict / list of them keyed like `output_map`; got "
                f"{type(v).__name__}."
            )
    return values


def primary_sharding(shardings: Sequence[Any]) -> Any:
    """The sharding that decides the pipelines' layout: the first that splits the batch axis."""
    for s in shardings:
        if block_map(s)[1] > 1:
            return s
    return shardings[0]


def _row_range(index: tuple[Any, ...], rows: int) -> tuple[int, int]:
    start, stop, _ = index[0].indices(rows) if index else (0, rows, 1)
    return start, stop


def block_map(sharding: Any) -> tuple[dict[Any, int], int]:
    """``({device: block}, num_blocks)``: which block of the batch axis each device holds.

    The sharding is probed with a global shape whose every axis has as many elements as the
    sharding has devices (every partition count divides it), in as many dimensions as the
    sharding needs.

    Raises:
        ValueError: If the sharding cannot describe any array of at most 8 dimensions.
    """
    n = len(sharding.device_set)
    last: Exception | None = None
    for ndim in range(1, _MAX_PROBE_NDIM + 1):
        try:
            index_map = sharding.devices_indices_map((n,) * ndim)
        except (ValueError, TypeError, IndexError, AssertionError) as e:  # wrong rank for it
            last = e
            continue
        spans = {d: _row_range(idx, n) for d, idx in index_map.items()}
        size = next(iter(spans.values()), (0, n))
        block_rows = size[1] - size[0]
        if block_rows <= 0:
            break
        return {d: start // block_rows for d, (start, _) in spans.items()}, n // block_rows
    raise ValueError(f"Cannot work out how {sharding} splits the batch axis.") from last


def _process_index() -> int:
    import jax

    return jax.process_index()


def _device_order(sharding: Any) -> list[Any]:
    """The sharding's devices in a stable order (its own assignment order when it has one)."""
    order = getattr(sharding, "_device_assignment", None)
    if order is None:
        order = sorted(sharding.device_set, key=lambda d: d.id)
    return list(order)


@dataclass(frozen=True)
class ShardPlan:
    """Where each pipeline's batch goes.

    Attributes:
        devices: The device each pipeline's batch is put on first (its "home").
        blocks: The block of the global batch each pipeline produces (its shard id).
        num_blocks: How many blocks the global batch has, over all processes (num_shards).
        owners: For every block, the processes that produce it (decides gathers globally).
    """

    devices: tuple[Any, ...]
    blocks: tuple[int, ...]
    num_blocks: int
    owners: Mapping[int, frozenset[int]] = field(default_factory=dict)

    @classmethod
    def for_sharding(
        cls, sharding: Any, pipeline_device_ids: Sequence[Any] | None = None
    ) -> ShardPlan:
        """One pipeline per block held by this process's devices (the `data_iterator` layout).

        With ``pipeline_device_ids`` (pipelines the user built, one per entry), the pipelines
        are matched instead: one per local block in block order, or one per local device in
        block order; a GPU pipeline whose ``device_id`` names a GPU of the sharding goes to
        that GPU (its batch is already there).

        Raises:
            AssertionError: If the number of pipelines fits neither layout.
        """
        blocks, num_blocks = block_map(sharding)
        me = _process_index()
        order = _device_order(sharding)
        local = [d for d in order if d.process_index == me]
        local.sort(key=lambda d: blocks[d])  # stable: ties keep the sharding's order
        owners: dict[int, set[int]] = {}
        for d in order:
            owners.setdefault(blocks[d], set()).add(d.process_index)
        frozen_owners = {b: frozenset(p) for b, p in owners.items()}
        first_of_block: dict[int, Any] = {}
        for d in local:
            first_of_block.setdefault(blocks[d], d)
        per_block = list(first_of_block.values())
        if pipeline_device_ids is None:
            chosen = per_block
        else:
            n = len(pipeline_device_ids)
            if n == len(per_block):
                chosen = per_block
            elif n == len(local):
                chosen = local
            else:
                raise AssertionError(
                    f"The sharding has {len(per_block)} batch shard(s) on {len(local)} local "
                    f"device(s), but the iterator got {n} pipeline(s): give one pipeline per "
                    "shard or per local device."
                )
            chosen = _match_gpu_pipelines(chosen, local, pipeline_device_ids)
        return cls(
            devices=tuple(chosen),
            blocks=tuple(blocks[d] for d in chosen),
            num_blocks=num_blocks,
            owners=frozen_owners,
        )

    @classmethod
    def for_devices(cls, devices: Sequence[Any]) -> ShardPlan:
        """One pipeline per device, block ``k`` on ``devices[k]`` (the pmap layout)."""
        devices = tuple(devices)
        me = _process_index()
        return cls(
            devices=devices,
            blocks=tuple(range(len(devices))),
            num_blocks=len(devices),
            owners={k: frozenset({me}) for k in range(len(devices))},
        )


def _match_gpu_pipelines(
    chosen: list[Any], local: list[Any], device_ids: Sequence[Any]
) -> list[Any]:
    """Send a GPU pipeline to the GPU it runs on when that GPU is one of the sharding's."""
    by_hw = {getattr(d, "local_hardware_id", None): d for d in local if d.platform != "cpu"}
    if not by_hw or len(device_ids) != len(chosen):
        return chosen
    matched = [by_hw.get(i) for i in device_ids]
    if all(m is not None for m in matched) and len(set(matched)) == len(matched):
        return matched
    return chosen


def stack_per_device(arrays: Sequence[jax.Array]) -> jax.Array:
    """The pmap-compatible output: ``(num_pipelines, batch, ...)``.

    ``arrays`` already have the leading axis of size 1. On one device they are concatenated;
    on as many devices as arrays they become one array sharded over a ``'device'`` mesh axis.

    Raises:
        AssertionError: If some, but not all, arrays share a device.
    """
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    devices = [next(iter(a.devices())) for a in arrays]
    distinct = set(devices)
    if len(distinct) == 1:
        return jnp.concatenate(arrays) if len(arrays) > 1 else arrays[0]
    if len(distinct) != len(devices):
        raise AssertionError(
            "JAX iterator requires shards to be placed on different devices or all on the same "
            "device."
        )
    import numpy as np

    mesh = Mesh(np.array(devices), ("device",))
    sharding = NamedSharding(mesh, PartitionSpec("device"))
    shape = (len(arrays), *arrays[0].shape[1:])
    return jax.make_array_from_single_device_arrays(shape, sharding, list(arrays))


class Assembler:
    """Builds each output's global array from the per-pipeline blocks of one iteration.

    Args:
        plan: Where the pipelines' blocks live.
        shardings: One sharding per output.
    """

    def __init__(self, plan: ShardPlan, shardings: Sequence[Any]) -> None:
        self.plan = plan
        self.shardings = list(shardings)
        self._recipes: dict[tuple[int, tuple[int, ...]], Any] = {}
        self._first_pipeline_of_block: dict[int, int] = {}
        for k, b in enumerate(plan.blocks):
            self._first_pipeline_of_block.setdefault(b, k)

    def assemble(self, output: int, arrays: Sequence[jax.Array]) -> jax.Array:
        """The global array of output ``output`` from each pipeline's ``(batch, ...)`` array.

        Raises:
            AssertionError: If the pipelines' arrays have different shapes.
        """
        import jax

        shape = arrays[0].shape
        for a in arrays:
            assert a.shape == shape, "Shards shapes have to be the same."
        plan = self.plan
        arrays = [on_device(a, d) for a, d in zip(arrays, plan.devices)]
        global_shape = (plan.num_blocks * shape[0], *shape[1:])
        sharding = self.shardings[output]
        recipe = self._recipes.get((output, global_shape))
        if recipe is None:
            recipe = self._recipe(sharding, global_shape, shape[0])
            self._recipes[(output, global_shape)] = recipe
        gathered = self._gather(arrays, shape) if recipe["gather"] else None
        pieces = [self._piece(step, arrays, gathered) for step in recipe["steps"]]
        return jax.make_array_from_single_device_arrays(global_shape, sharding, pieces)

    # -- planning (once per output and shape) ---------------------------------------------
    def _recipe(self, sharding: Any, global_shape: tuple[int, ...], rows: int) -> dict[str, Any]:
        plan = self.plan
        full = tuple(slice(None) for _ in global_shape[1:])
        steps = []
        for device, index in sharding.addressable_devices_indices_map(global_shape).items():
            index = tuple(index) + full[len(index) - 1 :] if index else (slice(None), *full)
            r0, r1 = _row_range(index, global_shape[0])
            rest = tuple(index[1:])
            whole = all(
                s == slice(None) or s.indices(n) == (0, n, 1)
                for s, n in zip(rest, global_shape[1:])
            )
            exact = [
                k
                for k, (d, b) in enumerate(zip(plan.devices, plan.blocks))
                if d == device and (b * rows, (b + 1) * rows) == (r0, r1)
            ]
            if exact and whole:
                steps.append({"device": device, "pipeline": exact[0]})
                continue
            parts = []
            for b in range(r0 // rows, -(-r1 // rows)):
                lo, hi = max(r0, b * rows) - b * rows, min(r1, (b + 1) * rows) - b * rows
                parts.append((b, lo, hi))
            steps.append({"device": device, "parts": parts, "rest": rest})
        # Gather when any device, in any process, needs a block its process did not read.
        # Every process sees the same shardings and owners, so all decide the same way.
        gather = False
        for device, index in sharding.devices_indices_map(global_shape).items():
            r0, r1 = _row_range(tuple(index), global_shape[0])
            for b in range(r0 // rows, -(-r1 // rows)):
                if device.process_index not in plan.owners.get(b, frozenset()):
                    gather = True
        return {"steps": steps, "gather": gather}

    # -- running --------------------------------------------------------------------------
    def _gather(self, arrays: Sequence[jax.Array], shape: tuple[int, ...]) -> dict[int, Any]:
        """Every block of the global batch on the host, from all processes (a collective)."""
        import numpy as np

        from jax.experimental import multihost_utils

        local_blocks = sorted(self._first_pipeline_of_block)
        local = np.stack(
            [np.asarray(arrays[self._first_pipeline_of_block[b]]) for b in local_blocks]
        )
        ids = np.asarray(local_blocks, dtype=np.int32)
        all_ids = np.asarray(multihost_utils.process_allgather(ids))
        all_data = np.asarray(multihost_utils.process_allgather(local))
        if all_ids.ndim == 1:  # a single process: nothing was stacked
            all_ids, all_data = all_ids[None], all_data[None]
        return {
            int(b): all_data[p, j]
            for p in range(all_ids.shape[0])
            for j, b in enumerate(all_ids[p])
        }

    def _piece(self, step: dict[str, Any], arrays: Sequence[jax.Array], gathered: Any) -> jax.Array:
        import jax
        import jax.numpy as jnp

        device = step["device"]
        if "pipeline" in step:
            whole: jax.Array = arrays[step["pipeline"]]
            return whole
        parts = []
        for b, lo, hi in step["parts"]:
            k = self._first_pipeline_of_block.get(b)
            if k is not None:
                parts.append(on_device(arrays[k][lo:hi], device))
            else:
                parts.append(jax.device_put(gathered[b][lo:hi], device))
        piece = parts[0] if len(parts) == 1 else jnp.concatenate(parts)
        rest = step["rest"]
        if rest and any(s != slice(None) for s in rest):
            index = (slice(None), *rest)
            piece = piece[index]
        return on_device(piece, device)
