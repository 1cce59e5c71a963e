"""Which samples an operator traced inside a branch sees: the *split* side of conditionals.

Entering a branch of an ``if`` on a DataNode opens a `Scope` (pushed on
`dali._graph.context.scope_stack`). `_graph.trace` hands every operator traced while a scope is
open to `Scope.adopt`, which replaces the inputs coming from outside the branch with *split*
versions holding only the samples that take the branch (one split per node and branch, chained
through nested ``if``\\ s), and gives operators without inputs a ``batch_source`` in the branch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dali._graph import context
from dali._graph.node import DataNode, OpNode

__all__ = ["Scope", "call_internal", "in_scope"]


class Scope:
    """One branch of one ``if`` on a DataNode (or the root of a converted function).

    Args:
        parent: The scope the ``if`` is in (None for the root).
        predicate: The condition, as a node of ``parent``.
        branch: True for the ``if`` branch, False for the ``else`` branch.
        where: ``file:line`` of the ``if``, for messages.
    """

    def __init__(self, parent: Scope | None, predicate: DataNode | None, branch: bool, where: str):
        self.parent = parent
        self.predicate = predicate
        self.branch = branch
        self.where = where
        #: (producer id, output index, device) -> (producer, the node split into this scope)
        self._splits: dict[tuple[int, int, str], tuple[OpNode, DataNode]] = {}

    def describe(self) -> str:
        if self.parent is None:
            return "outside of any `if`"
        return f"the `{'if' if self.branch else 'else'}` branch of the `if` at {self.where}"

    def sees(self, scope: Scope | None) -> bool:
        """Whether nodes produced in ``scope`` can be used here (possibly after splitting)."""
        if scope is None or scope.parent is None:
            return True  # every root (also another converted function's) is the whole batch
        s: Scope | None = self
        while s is not None:
            if s is scope:
                return True
            s = s.parent
        return False

    def _root(self) -> Scope:
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def localize(self, node: DataNode) -> DataNode:
        """``node`` as seen by the samples of this scope (split on the way down if needed)."""
        ns = node.scope
        if ns is self:
            return node
        if not self.sees(ns):
            raise _leak_error(node, self)
        if self.parent is None:
            return node
        key = (id(node.source), node.index, node.device)
        hit = self._splits.get(key)
        if hit is not None:
            return hit[1]
        outer = self.parent.localize(node)
        with in_scope(self):
            split = call_internal(
                "_conditional.split",
                (outer,),
                {"predicate": self.predicate, "branch": self.branch, "device": outer.device},
            )
        self._splits[key] = (node.source, split)  # type: ignore[assignment]
        return split

    def batch_node(self) -> DataNode:
        """A node of this scope whose samples are exactly the ones taking this branch."""
        assert self.predicate is not None
        return self.localize(self.predicate)

    def adopt(self, op: OpNode) -> None:
        """Called by `_graph.trace` for every operator traced while this scope is open."""
        if op.schema.extra.get("conditional_internal"):
            return  # split/merge are wired by this module
        if op.schema.source:
            # Readers and external sources produce the whole batch wherever they are called
            # (DALI registers input-less operators in the global scope too).
            op.scope = self._root()
            return
        op.inputs = tuple(self.localize(n) for n in op.inputs)
        op.arg_inputs = {k: self.localize(n) for k, n in op.arg_inputs.items()}
        if not op.inputs and self.parent is not None:
            op.batch_source = self.batch_node()


def _leak_error(node: DataNode, scope: Scope) -> RuntimeError:
    where = node.scope.describe() if node.scope is not None else "another pipeline"
    return RuntimeError(
        f"The DataNode `{node.name}` was produced in {where} and cannot be used in "
        f"{scope.describe()}. Values computed inside a branch are visible after the `if` only "
        f"through variables assigned in the branches (they are merged with the other branch's "
        f"values); a value passed out of a branch in another way (in a list, a dict or an "
        f"attribute) cannot be merged."
    )


@contextmanager
def in_scope(scope: Scope) -> Iterator[None]:
    stack = context.scope_stack()
    depth = len(stack)
    stack.append(scope)
    try:
        yield
    finally:
        del stack[depth:]


def call_internal(fn_path: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> DataNode:
    from dali._graph.schema import get_schema
    from dali._graph.trace import call_operator

    node: DataNode = call_operator(get_schema(fn_path), inputs, kwargs)
    return node
