"""`build`: from traced `OpNode`s to a frozen, runnable `Plan`.

Pruning keeps what the outputs depend on (a DFS from the outputs, inputs first) plus
operators marked ``preserve=True`` or declared ``no_prune``. Device copies are inserted where a
node is consumed on another device (`.gpu()`, `.cpu()`). Every operator gets a stable identity
(see `op_identities`) from which its random numbers are derived.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dali._exec.rng import combine, stable_hash
from dali._graph.node import DataNode, OpNode
from dali._graph.schema import REQUIRED
from dali._ops.base import Operator, PythonSource

__all__ = [
    "BuildError",
    "IdentityStream",
    "Plan",
    "Step",
    "build_plan",
    "check_required",
    "identity_source",
    "instantiate",
    "op_identities",
    "random_key",
    "reseed",
]

#: Arguments that never change what an operator computes.
_NON_SEMANTIC = frozenset({"name", "device", "preserve", "bytes_per_sample_hint", "seed"})


#: Marks keys derived from an explicit operator seed (kept apart from pipeline-seeded keys).
_EXPLICIT_SEED = stable_hash("explicit operator seed")


class BuildError(RuntimeError):
    """A graph that cannot run: missing arguments, bad devices, invalid values."""


@dataclass(eq=False)
class Step:
    """One operator in the plan, with the slots it reads and writes."""

    impl: Operator
    device: str
    inputs: list[int]
    args: dict[str, int]
    batch: int | None
    outputs: list[int]
    callback_source: bool = False
    #: the operator implements ``get_state``: its state is recorded after every batch
    stateful: bool = False
    #: the operator's identity when its ``key`` comes from the pipeline seed (`reseed`)
    identity: int | None = None

    @property
    def node(self) -> OpNode:
        return self.impl.node

    @property
    def key(self) -> int | None:
        """The operator's random key (`Operator.random_key`)."""
        return self.impl.random_key


@dataclass(eq=False)
class Plan:
    steps: list[Step]
    outputs: list[int]
    n_slots: int
    callback_sources: list[Step] = field(default_factory=list)
    identity_step: Step | None = None
    uses_gpu: bool = False
    by_name: dict[str, Step] = field(default_factory=dict)
    #: operator name -> its fingerprint (`op_identities(fingerprint=True)`, 8 hex digits):
    #: what a checkpoint checks its graph by
    identities: dict[str, str] = field(default_factory=dict)
    #: the slots whose batches are the user's own memory (``external_source(no_copy=True)``):
    #: outputs that must stay what the user gave, never copied (even to align them)
    user_memory: frozenset[int] = frozenset()


def _stable_repr(value: Any) -> str:
    """A repr that is the same in every process (no memory addresses)."""
    if value is None or isinstance(value, (bool, str, numbers.Number)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "(" + ",".join(_stable_repr(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_stable_repr(v)}" for k, v in sorted(value.items())) + "}"
    if hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    if hasattr(value, "value") and hasattr(value, "name"):  # enum-like
        return f"{type(value).__name__}.{value.name}"
    return type(value).__name__


def _collect(outputs: Sequence[DataNode], recorded: Sequence[OpNode]) -> list[OpNode]:
    """Operators needed by the outputs (DFS, inputs first) plus the preserved ones."""
    order: list[OpNode] = []
    seen: set[int] = set()

    def visit(op: OpNode) -> None:
        if id(op) in seen:
            return
        seen.add(id(op))
        stack: list[tuple[OpNode, int]] = [(op, 0)]
        while stack:
            cur, i = stack.pop()
            ups = cur.upstream()
            if i < len(ups):
                stack.append((cur, i + 1))
                src = ups[i].source
                if src is not None and id(src) not in seen:
                    seen.add(id(src))
                    stack.append((src, 0))
            else:
                order.append(cur)

    for out in outputs:
        if out.source is not None:
            visit(out.source)
    for op in recorded:
        if op.scalar_args.get("preserve") or op.schema.no_prune:
            visit(op)
    return order


def _structural_hasher(fingerprint: bool) -> Callable[[OpNode], int]:
    """The structural hash of `op_identities` (memoised per operator, inputs first)."""
    memo: dict[int, int] = {}

    def structural(op: OpNode) -> int:
        h = memo.get(id(op))
        if h is not None:
            return h
        if not op.auto_named and not fingerprint:
            text = f"name:{op.name}"
        else:
            # A schema may list more arguments that do not change what a sample contains
            # (a reader's shard_id/num_shards), so that they do not change its identity.
            skip = _NON_SEMANTIC.union(op.schema.extra.get("non_semantic", ()))
            args = ",".join(
                f"{k}={_stable_repr(v)}" for k, v in sorted(op.scalar_args.items()) if k not in skip
            )
            ups = []
            for label, node in [(f"in{i}", n) for i, n in enumerate(op.inputs)] + [
                (f"arg:{k}", n) for k, n in sorted(op.arg_inputs.items())
            ]:
                src = structural(node.source) if node.source is not None else 0
                ups.append(f"{label}={src}.{node.index}")
            text = f"{op.schema.fn_path}({args};{','.join(ups)})"
        h = stable_hash(text)
        memo[id(op)] = h
        return h

    return structural


def op_identities(ops: Sequence[OpNode], *, fingerprint: bool = False) -> dict[int, int]:
    """A stable 64-bit identity for each operator.

    An explicitly named operator is identified by its name. Otherwise the identity hashes the
    operator type, its semantic arguments and the identities of its inputs, so it does not
    depend on creation order, on other outputs, or on where the operator sits in the plan.
    Structurally identical operators ("twins") are told apart by their creation order.

    Args:
        ops: The operators.
        fingerprint: Hash every operator's type, arguments and inputs, its name too (the
            graph fingerprint of checkpoints, which must see an argument of a named operator
            change), instead of the identity that keys random numbers.
    """
    structural = _structural_hasher(fingerprint)
    twins: dict[int, list[OpNode]] = {}
    for op in sorted(ops, key=lambda o: o.creation_index):
        twins.setdefault(structural(op), []).append(op)
    result: dict[int, int] = {}
    for h, group in twins.items():
        for k, op in enumerate(group):
            result[id(op)] = int(combine(h, k)) if k else h
    return result


class IdentityStream:
    """`op_identities` of operators given one at a time, in creation order: each identity is
    known as soon as its operator is traced (debug mode runs every call at once,
    `dali._pipeline.debug`), and is the one `op_identities` gives for all of them together.

    Example:
        >>> from dali import fn, Pipeline
        >>> pipe = Pipeline(batch_size=1, num_threads=1)
        >>> with pipe:
        ...     a, b = fn.random.uniform(), fn.random.uniform()
        >>> stream = IdentityStream()
        >>> [stream.identity(n.source) for n in (a, b)] == [
        ...     op_identities([a.source, b.source])[id(n.source)] for n in (a, b)]
        True
    """

    def __init__(self) -> None:
        self._structural = _structural_hasher(False)
        self._twins: dict[int, int] = {}

    def identity(self, op: OpNode) -> int:
        """The identity of ``op``, traced after every operator given before it."""
        h = self._structural(op)
        k = self._twins.get(h, 0)
        self._twins[h] = k + 1
        return int(combine(h, k)) if k else h


def reseed(plan: Plan, seed: int) -> None:
    """Key the random operators of a built ``plan`` on another pipeline seed (a checkpoint
    restored into a built pipeline brings its own); explicit operator seeds stay."""
    for step in plan.steps:
        if step.identity is not None:
            step.impl.random_key = int(combine(seed, step.identity))


def check_required(op: OpNode) -> None:
    """Raise `BuildError` naming the required arguments ``op`` was not given."""
    missing = [
        name
        for name, arg in op.schema.args.items()
        if arg.default is REQUIRED and name not in op.scalar_args and name not in op.arg_inputs
    ]
    if missing:
        names = ", ".join(f'"{m}"' for m in missing)
        raise BuildError(
            f'Not all required arguments were specified for op "{op.schema.display_name}" '
            f"({op.name}). Please specify values for arguments: {names}"
            + (f"\nThe operator was defined at:\n{op.definition}" if op.definition else "")
        )


def random_key(op: OpNode, seed: int, identity: int) -> tuple[int | None, int | None]:
    """The random key of ``op`` (`Operator.random_key`) in a pipeline seeded with ``seed``,
    and the identity it derives from (None: it does not, the operator has a seed of its own
    or draws no random numbers; `reseed` leaves it alone).

    Args:
        op: The operator.
        seed: The resolved pipeline seed.
        identity: The operator's identity (`op_identities`).
    """
    if not op.schema.random:
        return None, None
    op_seed = op.scalar_args.get("seed", -1)
    if op_seed is not None and op_seed >= 0:
        # An explicit seed keys on the seed alone, as in DALI: two operators given the
        # same seed draw the same values (e.g. aligned random crops of image and mask).
        return int(combine(op_seed, _EXPLICIT_SEED)), None
    return int(combine(seed, identity)), identity


def instantiate(op: OpNode, pipeline_info: Any, key: int | None) -> Operator:
    """The implementation object of ``op``, keyed by ``key`` (`random_key`) and set up.

    Raises:
        BuildError: ``setup`` rejected the arguments (the message names the operator and
            where it was defined).
    """
    try:
        impl = op.schema.impl(op, pipeline_info)
        impl.random_key = key
        impl.setup()
    except BuildError:
        raise
    except Exception as e:
        where = f"\nThe operator was defined at:\n{op.definition}" if op.definition else ""
        raise BuildError(
            f"Error in {op.device.upper()} operator `{op.schema.display_name}` ({op.name}): "
            f"{e}{where}"
        ) from e
    return impl


def identity_source(outputs: Sequence[DataNode], recorded: Sequence[OpNode]) -> OpNode | None:
    """The source whose samples identify an iteration (`Plan.identity_step`): the first
    source `build_plan` places, None when the built graph would have none."""
    return next((op for op in _collect(outputs, recorded) if op.schema.source), None)


def build_plan(
    outputs: Sequence[DataNode],
    recorded: Sequence[OpNode],
    *,
    pipeline_info: Any,
    seed: int,
) -> Plan:
    """Prune, order, validate and instantiate the graph.

    Args:
        outputs: The pipeline outputs.
        recorded: Every operator traced in the pipeline, in creation order.
        pipeline_info: Read-only facts about the pipeline handed to each operator.
        seed: The resolved pipeline seed.
    """
    from dali._ops.transfer import Transfer

    ops = _collect(outputs, recorded)
    names: dict[str, OpNode] = {}
    for op in ops:
        check_required(op)
        other = names.setdefault(op.name, op)
        if other is not op:
            raise BuildError(f'Operator name "{op.name}" is used by two operators in the pipeline.')
    idents = op_identities(list({id(o): o for o in (*recorded, *ops)}.values()))

    # Sources first (they have no inputs, so this keeps a topological order) so that the
    # sample identity of the iteration is known before any other operator runs.
    ops = [o for o in ops if o.schema.source] + [o for o in ops if not o.schema.source]

    slots: dict[tuple[int, int, str], int] = {}
    steps: list[Step] = []
    uses_gpu = False

    def slot_for(node: DataNode) -> int:
        nonlocal uses_gpu
        src = node.source
        if src is None:
            raise BuildError(f"{node!r} has no producing operator")
        produced = "gpu" if src.device in ("gpu", "mixed") else "cpu"
        key = (id(src), node.index, node.device)
        if key in slots:
            return slots[key]
        if node.device == produced:
            raise BuildError(f"{node!r} is consumed before its operator was placed")
        # a device copy of the produced output
        base = slot_for(DataNode(node.name, produced, src, node.index))
        new = len(slots)
        slots[key] = new
        uses_gpu = True
        steps.append(
            Step(
                impl=Transfer.for_copy(src, node.device),
                device=node.device,
                inputs=[base],
                args={},
                batch=base,
                outputs=[new],
            )
        )
        return new

    for op in ops:
        key_val, identity = random_key(op, seed, idents[id(op)])
        impl = instantiate(op, pipeline_info, key_val)
        ins = [slot_for(n) for n in op.inputs]
        args = {k: slot_for(n) for k, n in op.arg_inputs.items()}
        batch = slot_for(op.batch_source) if op.batch_source is not None else None
        if batch is None and ins:
            batch = ins[0]
        if op.device in ("gpu", "mixed"):
            uses_gpu = True
        outs = []
        for i, _ in enumerate(op.outputs):
            key = (id(op), i, "gpu" if op.device in ("gpu", "mixed") else "cpu")
            slots[key] = len(slots)
            outs.append(slots[key])
        steps.append(
            Step(
                impl=impl,
                device=op.device,
                inputs=ins,
                args=args,
                batch=batch,
                outputs=outs,
                callback_source=isinstance(impl, PythonSource),
                stateful=impl.implements("get_state"),
                identity=identity,
            )
        )
    out_slots = [slot_for(n) for n in outputs]
    plan = Plan(steps=steps, outputs=out_slots, n_slots=len(slots), uses_gpu=uses_gpu)
    plan.callback_sources = [s for s in steps if s.callback_source]
    plan.user_memory = frozenset(
        slot for s in steps if s.node.scalar_args.get("no_copy") for slot in s.outputs
    )
    plan.identity_step = next((s for s in steps if s.node.schema.source), None)
    plan.by_name = {s.node.name: s for s in steps if not isinstance(s.impl, Transfer)}
    prints = op_identities([s.node for s in plan.by_name.values()], fingerprint=True)
    plan.identities = {
        name: f"{prints[id(s.node)] & 0xFFFFFFFF:08x}" for name, s in plan.by_name.items()
    }
    return plan
