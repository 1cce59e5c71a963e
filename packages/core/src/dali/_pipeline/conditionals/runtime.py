"""What rewritten code calls at trace time: ``if``, ``and``/``or``/``not``, comparisons, loops.

Each helper behaves like the Python construct it replaces for plain Python values; for a
DataNode condition it traces both branches (`IfStmt`, `if_exp`) or builds element-wise logical
operators that evaluate their right operand only for the samples that need it (`and_`, `or_`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from dali._graph.node import DataNode
from dali._pipeline.conditionals.merge import UNBOUND, Conditional, Poisoned, check_poisoned
from dali._pipeline.conditionals.scopes import call_internal

__all__ = [
    "IfStmt",
    "and_",
    "compare",
    "if_exp",
    "loop_iter",
    "loop_test",
    "not_",
    "or_",
]


class IfStmt:
    """Runtime side of one rewritten ``if`` statement (see `Converter.visit_If`).

    For a non-DataNode condition it only evaluates the condition's truth once; for a DataNode it
    records the variables before and after each branch and merges them.
    """

    __slots__ = ("_after", "_before", "_cond", "_names", "_test", "_truth", "_values", "traced")

    def __init__(
        self, test: Any, names: tuple[str, ...], where: str, unsupported: str | None = None
    ) -> None:
        self._names = names
        if not isinstance(test, DataNode):
            self.traced = False
            self._test = test
            return
        if unsupported:
            raise NotImplementedError(
                f"The `if` statement at {where} depends on a DataNode (a per-sample condition), "
                f"so both of its branches are traced; it cannot contain {unsupported}."
            )
        self.traced = True
        self._cond = Conditional(test, where)
        self._values: list[Any] = [UNBOUND] * len(names)
        self._before: list[Any] = self._values
        self._after: dict[bool, list[Any]] = {}

    def set(self, i: int, value: Any) -> None:
        self._values[i] = value

    def save_before(self) -> None:
        self._before = self._values
        self._values = [UNBOUND] * len(self._names)

    def enter(self, branch: bool) -> bool:
        if not self.traced:
            if branch:
                self._truth = bool(self._test)
                return self._truth
            return not self._truth
        self._cond.enter(branch)
        return True

    def restore(self) -> list[Any]:
        """The values before the ``if`` (unbound names become placeholders)."""
        return [
            Poisoned(n, f"local variable '{n}' referenced before assignment", NameError)
            if v is UNBOUND
            else v
            for n, v in zip(self._names, self._before)
        ]

    def leave(self, branch: bool) -> None:
        if not self.traced:
            return
        if branch in self._after:
            return  # (a `try/finally` may call it twice)
        self._after[branch] = self._values
        self._values = [UNBOUND] * len(self._names)
        self._cond.leave(branch)

    def merge(self) -> list[Any]:
        t = self._after.get(True, self._before)
        f = self._after.get(False, self._before)
        out = []
        for name, a, b in zip(self._names, t, f):
            v = self._cond.merge_value(name, a, b)
            if v is UNBOUND:
                v = Poisoned(
                    name, f"local variable '{name}' referenced before assignment", NameError
                )
            out.append(v)
        return out


def if_exp(test: Any, body: Callable[[], Any], orelse: Callable[[], Any], where: str) -> Any:
    """``body() if test else orelse()``, per sample when ``test`` is a DataNode."""
    if not isinstance(test, DataNode):
        return body() if test else orelse()
    cond = Conditional(test, where, "conditional expression")
    values = {}
    for branch, thunk in ((True, body), (False, orelse)):
        cond.enter(branch)
        try:
            values[branch] = thunk()
        finally:
            cond.leave(branch)
    out = cond.merge_value("<conditional expression>", values[True], values[False])
    check_poisoned(out)
    return out


def not_(x: Any) -> Any:
    """``not x``: a logical-not operator for a DataNode, Python's ``not`` otherwise."""
    if isinstance(x, DataNode):
        if x.device != "cpu":
            raise RuntimeError(_logical_gpu_message("not", "", x))
        return call_internal("_conditional.not_", (x,), {})
    return not x


def and_(where: str, first: Any, *rest: Callable[[], Any]) -> Any:
    """``a and b and ...``: per sample for DataNodes, Python's short circuit otherwise."""
    return _bool_op("and", where, first, rest)


def or_(where: str, first: Any, *rest: Callable[[], Any]) -> Any:
    """``a or b or ...``: per sample for DataNodes, Python's short circuit otherwise."""
    return _bool_op("or", where, first, rest)


def _bool_op(kind: str, where: str, value: Any, rest: tuple[Callable[[], Any], ...]) -> Any:
    for i, thunk in enumerate(rest):
        if isinstance(value, DataNode):
            return _lazy_logical(
                kind, where, value, functools.partial(_rest, kind, where, rest[i:])
            )
        if (not value) if kind == "and" else value:
            return value
        value = thunk()
    return value


def _rest(kind: str, where: str, rest: tuple[Callable[[], Any], ...]) -> Any:
    """The value of the remaining operands (evaluated inside the branch that needs them)."""
    return _bool_op(kind, where, rest[0](), rest[1:])


_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Is": operator.is_,
    "IsNot": operator.is_not,
    "In": lambda a, b: a in b,
    "NotIn": lambda a, b: a not in b,
}


def compare(where: str, left: Any, ops: tuple[str, ...], *comparators: Callable[[], Any]) -> Any:
    """A chained comparison ``a < b < c``: ``a < b and b < c``, evaluating ``b`` once."""

    def step(i: int, prev: Any) -> Any:
        cur = comparators[i]()
        result = _COMPARISONS[ops[i]](prev, cur)
        if i + 1 == len(ops):
            return result
        return _bool_op("and", where, result, (functools.partial(step, i + 1, cur),))

    return step(0, left)


def _logical_gpu_message(kind: str, side: str, node: DataNode) -> str:
    on = f" as the {side} argument" if side else ""
    return (
        f"Logical expression `{kind}` is restricted to scalar (0-d tensors) inputs of `bool` "
        f"type, that are placed on CPU. Got a GPU input{on} in logical expression "
        f"(`{node.name}`)."
    )


def _validate_logical(value: Any, kind: str, side: str) -> DataNode:
    if not isinstance(value, DataNode):
        check_poisoned(value)
        from dali.types import Constant

        value = Constant(np.bool_(bool(value)), device="cpu")
    if value.device != "cpu":
        raise RuntimeError(_logical_gpu_message(kind, side, value))
    return call_internal(
        "_conditional.validate_logical",
        (value,),
        {"expression_name": kind, "expression_side": side},
    )


def _lazy_logical(kind: str, where: str, a: DataNode, b: Callable[[], Any]) -> DataNode:
    # `a and b` is `b if a else a`, `a or b` is `a if a else b`; b runs only where needed.
    a_valid = _validate_logical(a, kind, "left")
    cond = Conditional(a_valid, where, f"`{kind}` expression")
    b_branch = kind == "and"
    cond.enter(b_branch)
    try:
        b_valid = _validate_logical(b(), kind, "right")
    finally:
        cond.leave(b_branch)
    a_side = cond.scope(not b_branch).localize(cond.predicate)
    b_side = cond.scope(b_branch).localize(b_valid)
    t, f = (b_side, a_side) if b_branch else (a_side, b_side)
    return cond.merge_nodes(f"<`{kind}` expression>", t, f)


def loop_test(value: Any, where: str) -> Any:
    """The condition of a ``while`` loop (a DataNode cannot be one)."""
    if isinstance(value, DataNode):
        raise TypeError(
            f"The `while` loop at {where} depends on a DataNode (`{value.name}`). Only `if` "
            f"statements, conditional expressions and `and`/`or`/`not` can depend on per-sample "
            f"data with `enable_conditionals=True`; loops must depend on Python values."
        )
    return value


def loop_iter(value: Any, where: str) -> Any:
    """The iterable of a ``for`` loop (a DataNode cannot be iterated)."""
    if isinstance(value, DataNode):
        raise TypeError(
            f"The `for` loop at {where} iterates over a DataNode (`{value.name}`), which is a "
            f"symbolic batch, not a sequence. Loops must iterate over Python values."
        )
    return value
