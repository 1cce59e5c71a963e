"""``enable_conditionals=True``: Python ``if`` on a DataNode becomes a per-sample split and merge.

DALI rewrites the graph-defining function with a fork of AutoGraph. We do the same with a small
`ast` transformer (no AutoGraph, no TensorFlow). The rewritten function behaves like the
original for plain Python values; when a condition is a DataNode, *both* branches are traced:

* entering a branch opens a `_Scope` (pushed on `dali._graph.context.scope_stack`). Every
  operator traced while a scope is open is handed to `_Scope.adopt`, which replaces the inputs
  coming from outside the branch with *split* versions holding only the samples that take the
  branch (one split per node and branch, chained through nested ``if``\\ s), and gives operators
  without inputs (``fn.random.uniform()``, constants) a ``batch_source`` in the branch so that
  they produce values for exactly those samples;
* after both branches, every variable assigned in either branch is *merged*: the two per-branch
  batches are interleaved back into the original sample order. Tuples, lists and dicts are
  merged element by element; Python numbers and arrays are turned into constants first (DALI
  does the same), identical values are kept as they are;
* a variable that only one branch defines, or that holds different non-mergeable Python objects,
  becomes a placeholder that raises DALI's explanation as soon as it is used (DALI finds unused
  ones by liveness analysis and ignores them; we wait for a use).

``and``, ``or`` and ``not`` on DataNodes become element-wise logical operators (``and``/``or``
evaluate their right operand only for the samples that need it, as Python does); conditional
expressions ``a if cond else b`` and chained comparisons ``0 < x < 3`` are per-sample too.

``return`` inside an ``if`` is supported (DALI restricts it): the rest of the function is moved
into the branches so that every path ends with a ``return``, and the returned values are merged
like variables; a branch that returns nothing while the other returns a DataNode is an error
when the result is used. An ``if`` on a DataNode cannot hold a ``return`` when either is inside
a loop, a ``with`` or a ``try`` block, nor ``break``/``continue`` (a clear error at tracing).
``while`` and ``for`` over a DataNode raise a clear error.

Functions called from a converted function are converted too (when their source is available
and they are not part of `dali`, the standard library or an installed package), unless
decorated with `dali.pipeline.do_not_convert`. A function whose source cannot be read (a
lambda, the REPL) is used as is, with a warning.
"""

from __future__ import annotations
import __future__

import ast
import copy
import functools
import inspect
import operator
import os
import sys
import sysconfig
import types as pytypes
import warnings
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from dali._graph import context
from dali._graph.node import DataNode, OpNode

__all__ = ["convert"]

_RT = "__dali_rt__"
_RET = "__dali_return__"
_FACTORY = "__dali_factory__"
#: Calls that depend on the caller's frame and must not be routed through `call`.
_FRAME_CALLS = frozenset(
    {"super", "locals", "globals", "vars", "dir", "eval", "exec", "breakpoint", "__import__"}
)
_UNDEFINED_INTRO = (
    "Encountered inconsistent outputs out of the `if/else` control flow statement. Variables "
    "need to be initialized in every code path (both `if` branches)."
)
_DIVERGENT_INTRO = (
    "Divergent data found in different branches of `if/else` control flow statement. Variables "
    "in all code paths are merged into common output batches. The values assigned to a given "
    "variable need to have the same nesting structure in every code path (both `if` branches)."
)


# ---------------------------------------------------------------------------------------------
# Scopes: which samples an operator sees
# ---------------------------------------------------------------------------------------------


class _Scope:
    """One branch of one ``if`` on a DataNode (or the root of a converted function).

    Args:
        parent: The scope the ``if`` is in (None for the root).
        predicate: The condition, as a node of ``parent``.
        branch: True for the ``if`` branch, False for the ``else`` branch.
        where: ``file:line`` of the ``if``, for messages.
    """

    def __init__(self, parent: _Scope | None, predicate: DataNode | None, branch: bool, where: str):
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

    def sees(self, scope: _Scope | None) -> bool:
        """Whether nodes produced in ``scope`` can be used here (possibly after splitting)."""
        if scope is None or scope.parent is None:
            return True  # every root (also another converted function's) is the whole batch
        s: _Scope | None = self
        while s is not None:
            if s is scope:
                return True
            s = s.parent
        return False

    def _root(self) -> _Scope:
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
        with _in_scope(self):
            split = _call_internal(
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


def _leak_error(node: DataNode, scope: _Scope) -> RuntimeError:
    where = node.scope.describe() if node.scope is not None else "another pipeline"
    return RuntimeError(
        f"The DataNode `{node.name}` was produced in {where} and cannot be used in "
        f"{scope.describe()}. Values computed inside a branch are visible after the `if` only "
        f"through variables assigned in the branches (they are merged with the other branch's "
        f"values); a value passed out of a branch in another way (in a list, a dict or an "
        f"attribute) cannot be merged."
    )


@contextmanager
def _in_scope(scope: _Scope) -> Iterator[None]:
    stack = context.scope_stack()
    depth = len(stack)
    stack.append(scope)
    try:
        yield
    finally:
        del stack[depth:]


def _call_internal(fn_path: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> DataNode:
    from dali._graph.schema import get_schema
    from dali._graph.trace import call_operator

    return call_operator(get_schema(fn_path), inputs, kwargs)


# ---------------------------------------------------------------------------------------------
# Placeholders for values that cannot be merged
# ---------------------------------------------------------------------------------------------


class _Poisoned:
    """A variable without a usable value after an ``if`` on a DataNode; any use raises."""

    __slots__ = ("_error", "_message", "_name")

    def __init__(self, name: str, message: str, error: type[Exception] = RuntimeError) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_message", message)
        object.__setattr__(self, "_error", error)

    def _raise(self, *_: Any, **__: Any) -> Any:
        raise object.__getattribute__(self, "_error")(object.__getattribute__(self, "_message"))

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # protocol probes (copy, pickle, numpy) see "absent"
        self._raise()

    def __repr__(self) -> str:
        return f"<undefined variable {object.__getattribute__(self, '_name')!r}>"

    __bool__ = __array__ = __iter__ = __len__ = __call__ = __getitem__ = _raise
    __int__ = __float__ = __index__ = __setattr__ = _raise


_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
_OPERATORS += ("and", "or", "xor", "lshift", "rshift")
for _m in (*_OPERATORS, *(f"r{m}" for m in _OPERATORS), "lt", "le", "gt", "ge", "neg", "pos"):
    setattr(_Poisoned, f"__{_m}__", _Poisoned._raise)
_Poisoned.__abs__ = _Poisoned.__invert__ = _Poisoned._raise  # type: ignore[method-assign]
del _m
# `==` raises too, but identity-based hashing keeps placeholders usable as dict keys.
_Poisoned.__eq__ = _Poisoned._raise  # type: ignore[assignment,method-assign]
_Poisoned.__ne__ = _Poisoned._raise  # type: ignore[assignment,method-assign]
_Poisoned.__hash__ = object.__hash__  # type: ignore[assignment,method-assign]


class _Unbound:
    """The value of a name that is not bound (read as `NameError`)."""

    def __repr__(self) -> str:
        return "<unbound>"


_UNBOUND = _Unbound()


def _is_undefined(v: Any) -> bool:
    return v is _UNBOUND or (
        isinstance(v, _Poisoned) and object.__getattribute__(v, "_error") is NameError
    )


def _check_poisoned(value: Any) -> None:
    if isinstance(value, _Poisoned):
        value._raise()


# ---------------------------------------------------------------------------------------------
# One `if` (or `and`/`or`/conditional expression) on a DataNode
# ---------------------------------------------------------------------------------------------


_CONSTANT_TYPES = (bool, int, float, np.generic, np.ndarray)


def _is_constant_like(v: Any) -> bool:
    from dali.types import ScalarConstant

    return isinstance(v, (*_CONSTANT_TYPES, ScalarConstant))


def _same_constant(a: Any, b: Any) -> bool:
    from dali.types import ScalarConstant

    if type(a) is not type(b):
        return False
    if isinstance(a, ScalarConstant):
        return bool(a.dtype == b.dtype and np.array_equal(a.value, b.value))
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(a == b)


def _equal_plain(a: Any, b: Any) -> bool:
    """Equality of two plain Python values (False when it cannot be decided)."""
    if type(a) is not type(b) or not isinstance(a, (str, bytes, type(None), type)):
        return False
    return bool(a == b)


class _Conditional:
    """The scopes of one condition and the merge of the values its branches produce."""

    def __init__(self, test: DataNode, where: str, what: str = "`if` statement") -> None:
        if test.device != "cpu":
            raise RuntimeError(
                f"Conditions inside `if` statements are restricted to scalar (0-d tensors) "
                f"inputs, that are placed on CPU. Got a GPU input as a condition of the {what} "
                f"at {where} (`{test.name}`); use `.cpu()` or compute the condition on the CPU."
            )
        stack = context.scope_stack()
        # (no scope at all only when the runtime helpers run outside a converted function)
        self.parent: _Scope = stack[-1] if stack else _Scope(None, None, True, "")
        self.predicate = self.parent.localize(test)
        self.where = where
        self._scopes: dict[bool, _Scope] = {}

    def scope(self, branch: bool) -> _Scope:
        s = self._scopes.get(branch)
        if s is None:
            s = self._scopes[branch] = _Scope(self.parent, self.predicate, branch, self.where)
        return s

    def enter(self, branch: bool) -> None:
        context.scope_stack().append(self.scope(branch))

    def leave(self, branch: bool) -> None:
        stack = context.scope_stack()
        scope = self.scope(branch)
        if stack and stack[-1] is scope:
            stack.pop()
        elif scope in stack:  # an exception unwound past nested scopes
            del stack[stack.index(scope) :]

    # -- merging -------------------------------------------------------------------------
    def merge_value(self, name: str, t: Any, f: Any) -> Any:
        """The value of ``name`` after the ``if``: ``t`` where the condition holds, else ``f``."""
        if t is f:
            return t
        if _is_undefined(t) or _is_undefined(f):
            if _is_undefined(t) and _is_undefined(f):
                return t
            if name == _RET:
                return _Poisoned(name, f"{_UNDEFINED_INTRO} Every branch must return a value.")
            missing = "if" if _is_undefined(t) else "else"
            return _Poisoned(
                name,
                f"{_UNDEFINED_INTRO} Variable '{name}' must also be initialized in the "
                f"`{missing}` branch (`if` at {self.where}).",
            )
        if isinstance(t, _Poisoned):
            return t
        if isinstance(f, _Poisoned):
            return f
        if isinstance(t, DataNode) or isinstance(f, DataNode):
            if name == _RET and (t is None or f is None):
                missing = "if" if t is None else "else"
                return _Poisoned(
                    name,
                    f"{_UNDEFINED_INTRO} The `{missing}` branch must also have a return "
                    f"statement (`if` at {self.where}).",
                )
            tn = self._as_node(name, t, True)
            fn_ = self._as_node(name, f, False)
            if isinstance(tn, _Poisoned):
                return tn
            if isinstance(fn_, _Poisoned):
                return fn_
            return self.merge_nodes(name, tn, fn_)
        if isinstance(t, (tuple, list)) and type(t) is type(f) and len(t) == len(f):
            items = [self.merge_value(name, a, b) for a, b in zip(t, f)]
            if all(a is b for a, b in zip(items, t)):
                return t
            if isinstance(t, tuple) and hasattr(t, "_fields"):
                return type(t)(*items)
            return type(t)(items)
        if isinstance(t, dict) and type(t) is type(f) and t.keys() == f.keys():
            return type(t)((k, self.merge_value(name, t[k], f[k])) for k in t)
        if _is_constant_like(t) and _is_constant_like(f):
            if _same_constant(t, f):
                return t
            return self.merge_nodes(
                name, self._as_node(name, t, True), self._as_node(name, f, False)
            )
        if _equal_plain(t, f):
            return t
        return _Poisoned(
            name,
            f"{_DIVERGENT_INTRO}\nVariable '{name}' (`if` at {self.where}) is "
            f"{_describe_value(t)} in the `if` branch and {_describe_value(f)} in the `else` "
            f"branch; DALI can merge only DataNodes, numbers and arrays, and tuples, lists and "
            f"dicts of the same structure holding them.",
            TypeError,
        )

    def _as_node(self, name: str, value: Any, branch: bool) -> Any:
        scope = self.scope(branch)
        if isinstance(value, DataNode):
            return scope.localize(value)
        if _is_constant_like(value):
            from dali.types import Constant, ScalarConstant

            with _in_scope(scope):
                if isinstance(value, ScalarConstant):
                    return Constant(value.value, dtype=value.dtype, device="cpu")
                return Constant(value, device="cpu")
        return _Poisoned(
            name,
            f"{_DIVERGENT_INTRO}\nVariable '{name}' (`if` at {self.where}) is a DataNode in one "
            f"branch and {_describe_value(value)} in the `{'if' if branch else 'else'}` branch.",
            TypeError,
        )

    def merge_nodes(self, name: str, t: DataNode, f: DataNode) -> DataNode:
        """Record the merge of two branch nodes (``t`` of the true, ``f`` of the false scope)."""
        from dali._dtypes import type_name

        if t.device != f.device:
            t, f = t.gpu(), f.gpu()
        divergent = ""
        if t.dtype is not None and f.dtype is not None and t.dtype != f.dtype:
            divergent = (
                f"{_DIVERGENT_INTRO}\nVariable '{name}' (`if` at {self.where}) has type "
                f"{type_name(t.dtype)} in the `if` branch and {type_name(f.dtype)} in the `else` "
                f"branch; both branches must produce the same type."
            )
        elif t.ndim is not None and f.ndim is not None and t.ndim != f.ndim:
            divergent = (
                f"{_DIVERGENT_INTRO}\nVariable '{name}' (`if` at {self.where}) has {t.ndim} "
                f"dimensions in the `if` branch and {f.ndim} in the `else` branch; both "
                f"branches must produce the same number of dimensions."
            )
        with _in_scope(self.parent):
            out = _call_internal(
                "_conditional.merge",
                (t, f),
                {"predicate": self.predicate, "divergent": divergent, "device": t.device},
            )
        assert out.source is not None
        from dali._ops.conditional import MERGE_INFO

        MERGE_INFO[out.source] = ("" if name == _RET else name, self.where)
        # The merged batch is the parent's: its size and sample identity come from the predicate.
        out.source.batch_source = self.predicate
        return out


def _describe_value(v: Any) -> str:
    if isinstance(v, DataNode):
        return "a DataNode"
    if v is None:
        return "None"
    return f"a `{type(v).__name__}` ({v!r:.40})"


class IfStmt:
    """Runtime side of one rewritten ``if`` statement (see `_Converter.visit_If`).

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
        self._cond = _Conditional(test, where)
        self._values: list[Any] = [_UNBOUND] * len(names)
        self._before: list[Any] = self._values
        self._after: dict[bool, list[Any]] = {}

    def set(self, i: int, value: Any) -> None:
        self._values[i] = value

    def save_before(self) -> None:
        self._before = self._values
        self._values = [_UNBOUND] * len(self._names)

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
            _Poisoned(n, f"local variable '{n}' referenced before assignment", NameError)
            if v is _UNBOUND
            else v
            for n, v in zip(self._names, self._before)
        ]

    def leave(self, branch: bool) -> None:
        if not self.traced:
            return
        if branch in self._after:
            return  # (a `try/finally` may call it twice)
        self._after[branch] = self._values
        self._values = [_UNBOUND] * len(self._names)
        self._cond.leave(branch)

    def merge(self) -> list[Any]:
        t = self._after.get(True, self._before)
        f = self._after.get(False, self._before)
        out = []
        for name, a, b in zip(self._names, t, f):
            v = self._cond.merge_value(name, a, b)
            if v is _UNBOUND:
                v = _Poisoned(
                    name, f"local variable '{name}' referenced before assignment", NameError
                )
            out.append(v)
        return out


def if_exp(test: Any, body: Callable[[], Any], orelse: Callable[[], Any], where: str) -> Any:
    """``body() if test else orelse()``, per sample when ``test`` is a DataNode."""
    if not isinstance(test, DataNode):
        return body() if test else orelse()
    cond = _Conditional(test, where, "conditional expression")
    values = {}
    for branch, thunk in ((True, body), (False, orelse)):
        cond.enter(branch)
        try:
            values[branch] = thunk()
        finally:
            cond.leave(branch)
    out = cond.merge_value("<conditional expression>", values[True], values[False])
    _check_poisoned(out)
    return out


def not_(x: Any) -> Any:
    """``not x``: a logical-not operator for a DataNode, Python's ``not`` otherwise."""
    if isinstance(x, DataNode):
        if x.device != "cpu":
            raise RuntimeError(_logical_gpu_message("not", "", x))
        return _call_internal("_conditional.not_", (x,), {})
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
        _check_poisoned(value)
        from dali.types import Constant

        value = Constant(np.bool_(bool(value)), device="cpu")
    if value.device != "cpu":
        raise RuntimeError(_logical_gpu_message(kind, side, value))
    return _call_internal(
        "_conditional.validate_logical",
        (value,),
        {"expression_name": kind, "expression_side": side},
    )


def _lazy_logical(kind: str, where: str, a: DataNode, b: Callable[[], Any]) -> DataNode:
    # `a and b` is `b if a else a`, `a or b` is `a if a else b`; b runs only where needed.
    a_valid = _validate_logical(a, kind, "left")
    cond = _Conditional(a_valid, where, f"`{kind}` expression")
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


def converted(func: Any) -> Any:
    """Mark a function created by converted code as already converted."""
    try:
        func.__dali_converted__ = True
    except (AttributeError, TypeError):
        pass
    return func


def call(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Every call in converted code: converts the callee first when it is user code."""
    for a in args:
        if isinstance(a, _Poisoned):
            a._raise()
    for a in kwargs.values():
        if isinstance(a, _Poisoned):
            a._raise()
    return _converted_callable(func)(*args, **kwargs)


class _Runtime:
    """What converted code sees as ``__dali_rt__``."""

    IfStmt = IfStmt
    if_exp = staticmethod(if_exp)
    compare = staticmethod(compare)
    not_ = staticmethod(not_)
    and_ = staticmethod(and_)
    or_ = staticmethod(or_)
    loop_test = staticmethod(loop_test)
    loop_iter = staticmethod(loop_iter)
    converted = staticmethod(converted)
    call = staticmethod(call)


_RUNTIME = _Runtime()


# ---------------------------------------------------------------------------------------------
# The AST rewrite
# ---------------------------------------------------------------------------------------------


def _rt(attr: str) -> ast.expr:
    return ast.Attribute(value=ast.Name(id=_RT, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _rt_call(attr: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_rt(attr), args=list(args), keywords=[])


def _const(v: Any) -> ast.expr:
    return ast.Constant(value=v)


def _thunk(expr: ast.expr) -> ast.Lambda:
    no_args = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    return ast.Lambda(args=no_args, body=expr)


def _is_generated(name: str) -> bool:
    return name.startswith("__dali_") and name.endswith("__") and name != _RET


def _walk_scope(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``nodes`` that belongs to the same function scope."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # the decorators and defaults are evaluated in this scope, not the body
            inner: list[ast.AST] = list(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                inner += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            else:
                inner += [*node.bases, *(k.value for k in node.keywords)]
            stack.extend(reversed(inner))
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(reversed([*node.args.defaults, *(d for d in node.args.kw_defaults if d)]))
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # only walrus targets leak out of a comprehension
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            if node.generators:
                stack.append(node.generators[0].iter)
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names bound (or deleted) by ``stmts`` in the current scope, in order of appearance."""
    names: dict[str, None] = {}
    for node in _walk_scope(list(stmts)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names[node.id] = None
        elif isinstance(node, ast.NamedExpr):
            names[node.target.id] = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name.split(".")[0]] = None
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names[node.name] = None
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names[node.rest] = None
    return [n for n in names if not _is_generated(n)]


def _unsupported_in_branch(stmts: list[ast.stmt]) -> str | None:
    """What in a branch prevents tracing both branches (control flow leaving the branch)."""

    def visit(node: ast.AST, in_loop: bool) -> str | None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        if isinstance(node, ast.Return):
            return (
                "this `return` statement (a `return` under an `if` on a DataNode is converted "
                "only when neither is inside a loop, a `with` or a `try` block)"
            )
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return "`break` or `continue` statements"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "`yield` or `await`"
        loop = in_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor))
        for child in ast.iter_child_nodes(node):
            found = visit(child, loop)
            if found:
                return found
        return None

    for s in stmts:
        found = visit(s, False)
        if found:
            return found
    return None


# -- return lifting --------------------------------------------------------------------------


def _has_liftable_return(stmts: list[ast.stmt]) -> bool:
    """Whether a ``return`` is reachable through ``if`` statements only."""
    for s in stmts:
        if isinstance(s, ast.If) and (_contains_return(s.body) or _contains_return(s.orelse)):
            return True
    return False


def _contains_return(stmts: list[ast.stmt]) -> bool:
    """Whether ``stmts`` hold a ``return`` directly or under ``if`` statements only."""
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and (_contains_return(s.body) or _contains_return(s.orelse)):
            return True
    return False


def _lift(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Move the code following an ``if`` that returns into its branches.

    Afterwards, every path through an ``if`` containing a ``return`` ends with a ``return``.
    ``stmts`` must end with a ``return``.
    """
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.append(s)
            return out  # what follows is unreachable
        if isinstance(s, ast.If) and _has_liftable_return([s]):
            rest = stmts[i + 1 :]
            s.body = _lift(s.body + rest)
            s.orelse = _lift(s.orelse + copy.deepcopy(rest))
            out.append(s)
            return out
        out.append(s)
    return out


def _returns_to_assignments(stmts: list[ast.stmt]) -> None:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else _const(None)
            stmts[i] = ast.copy_location(
                ast.Assign(targets=[ast.Name(id=_RET, ctx=ast.Store())], value=value), s
            )
        elif isinstance(s, ast.If):
            _returns_to_assignments(s.body)
            _returns_to_assignments(s.orelse)


def _lift_returns(func: ast.FunctionDef) -> None:
    """Rewrite ``return`` inside ``if`` into one merged return value (see module doc)."""
    if not _has_liftable_return(func.body):
        return
    body = list(func.body)
    if not isinstance(body[-1], ast.Return):
        body.append(ast.copy_location(ast.Return(value=None), body[-1]))
    body = _lift(body)
    last = body[-1]
    if isinstance(last, ast.If):
        _returns_to_assignments([last])
        body.append(ast.copy_location(ast.Return(value=ast.Name(id=_RET, ctx=ast.Load())), last))
    func.body = body


def _is_do_not_convert(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "do_not_convert":
            return True
    return False


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _walk_scope(list(node.body)))


class _Converter(ast.NodeTransformer):
    """Rewrites one function (and the functions nested in it)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.counter = 0
        self.depth = 0

    def where(self, node: ast.AST) -> str:
        return f"{self.filename}:{getattr(node, 'lineno', '?')}"

    # -- scopes ----------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if _is_do_not_convert(node) or _is_generator(node):
            return node
        _lift_returns(node)
        self.depth += 1
        try:
            self.generic_visit(node)
        finally:
            self.depth -= 1
        if self.depth > 0:
            node.decorator_list.append(_rt("converted"))
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node  # methods are converted when called

    # -- expressions -----------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_CALLS:
            return node
        new = ast.Call(func=_rt("call"), args=[node.func, *node.args], keywords=node.keywords)
        return ast.copy_location(new, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus(node.values[1:]):
            return node  # a lambda would change where the walrus binds
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        new = _rt_call(fn, _const(self.where(node)), node.values[0], *map(_thunk, node.values[1:]))
        return ast.copy_location(new, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_rt_call("not_", node.operand), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) < 2 or _has_walrus(node.comparators):
            return node
        # `a < b < c` is `a < b and b < c` (b evaluated once): per sample for DataNodes
        ops = ast.Tuple(elts=[_const(type(op).__name__) for op in node.ops], ctx=ast.Load())
        new = _rt_call(
            "compare", _const(self.where(node)), node.left, ops, *map(_thunk, node.comparators)
        )
        return ast.copy_location(new, node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus([node.body, node.orelse]):
            return node
        new = _rt_call(
            "if_exp", node.test, _thunk(node.body), _thunk(node.orelse), _const(self.where(node))
        )
        return ast.copy_location(new, node)

    # -- statements ------------------------------------------------------------------------
    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        node.test = ast.copy_location(
            _rt_call("loop_test", node.test, _const(self.where(node))), node.test
        )
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.iter = ast.copy_location(
            _rt_call("loop_iter", node.iter, _const(self.where(node))), node.iter
        )
        return node

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        self.generic_visit(node)
        self.counter += 1
        var = f"__dali_if_{self.counter}__"
        names = _assigned_names(node.body + node.orelse)
        unsupported = _unsupported_in_branch(node.body + node.orelse)

        def load() -> ast.expr:
            return ast.Name(id=var, ctx=ast.Load())

        def method(name: str, *args: ast.expr) -> ast.Call:
            return ast.Call(
                func=ast.Attribute(value=load(), attr=name, ctx=ast.Load()),
                args=list(args),
                keywords=[],
            )

        def when_traced(stmts: list[ast.stmt]) -> ast.stmt:
            return ast.If(
                test=ast.Attribute(value=load(), attr="traced", ctx=ast.Load()),
                body=stmts,
                orelse=[],
            )

        def read_all() -> list[ast.stmt]:
            # `try: v.set(i, x) except NameError: pass` for every name: unbound names stay unset
            return [
                ast.Try(
                    body=[ast.Expr(method("set", _const(i), ast.Name(id=n, ctx=ast.Load())))],
                    handlers=[
                        ast.ExceptHandler(
                            type=ast.Name(id="NameError", ctx=ast.Load()),
                            name=None,
                            body=[ast.Pass()],
                        )
                    ],
                    orelse=[],
                    finalbody=[],
                )
                for i, n in enumerate(names)
            ]

        def assign_all(call: ast.expr) -> ast.stmt:
            target = ast.Tuple(
                elts=[ast.Name(id=n, ctx=ast.Store()) for n in names], ctx=ast.Store()
            )
            return ast.Assign(targets=[target], value=call)

        out: list[ast.stmt] = [
            ast.Assign(
                targets=[ast.Name(id=var, ctx=ast.Store())],
                value=_rt_call(
                    "IfStmt",
                    node.test,
                    ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load()),
                    _const(self.where(node)),
                    _const(unsupported),
                ),
            )
        ]
        if names:
            out.append(when_traced([*read_all(), ast.Expr(method("save_before"))]))

        def branch(flag: bool, stmts: list[ast.stmt]) -> ast.stmt:
            # `try/finally` closes the branch's scope even when an exception leaves it
            closing = ast.Try(
                body=stmts + ([when_traced(read_all())] if names else []),
                handlers=[],
                orelse=[],
                finalbody=[ast.Expr(method("leave", _const(flag)))],
            )
            return ast.If(test=method("enter", _const(flag)), body=[closing], orelse=[])

        out.append(branch(True, list(node.body)))
        if node.orelse:
            restore = [when_traced([assign_all(method("restore"))])] if names else []
            out.append(branch(False, restore + list(node.orelse)))
        if names:
            out.append(when_traced([assign_all(method("merge"))]))
        for stmt in out:
            ast.copy_location(stmt, node)
        return [ast.fix_missing_locations(s) for s in out]


def _has_walrus(nodes: list[ast.expr]) -> bool:
    return any(isinstance(n, ast.NamedExpr) for e in nodes for n in ast.walk(e))


# ---------------------------------------------------------------------------------------------
# Converting function objects
# ---------------------------------------------------------------------------------------------


def _library_dirs() -> tuple[str, ...]:
    dirs = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # the dali package
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            dirs.add(os.path.abspath(paths[key]))
    for p in sys.path:
        if p and os.path.basename(p) in ("site-packages", "dist-packages"):
            dirs.add(os.path.abspath(p))
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


_LIBRARY_DIRS = _library_dirs()
_NOT_CONVERTIBLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_cache: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_SAME = object()
#: The user-defined `__call__` of callable objects, per type (None: not a Python function).
_call_methods: weakref.WeakKeyDictionary[type, Any] = weakref.WeakKeyDictionary()
_NEVER_CONVERTED = (type, pytypes.BuiltinFunctionType, pytypes.MethodWrapperType, functools.partial)
#: The pipeline functions converted so far (or why they could not be).
_top_cache: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
#: Fields that AST constructors need from Python 3.12 on (and reject as unknown before).
_NEW_FIELDS: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}


class _ConversionError(Exception):
    pass


def _user_function(func: Any) -> bool:
    """Whether ``func`` is user code that may be converted."""
    if not isinstance(func, pytypes.FunctionType):
        return False
    if getattr(func, "__dali_do_not_convert__", False) or getattr(
        func, "__dali_converted__", False
    ):
        return False
    if func.__name__ == "<lambda>" or hasattr(func, "__wrapped__"):
        return False
    if func.__code__.co_flags & _NOT_CONVERTIBLE:
        return False
    module = func.__module__ or ""
    if module == "dali" or module.startswith("dali."):
        return False
    filename = os.path.abspath(func.__code__.co_filename)
    return not filename.startswith(_LIBRARY_DIRS)


def _converted_callable(func: Any) -> Any:
    """``func`` or its converted version (cached)."""
    if isinstance(func, pytypes.MethodType):
        inner = _converted_callable(func.__func__)
        return func if inner is func.__func__ else pytypes.MethodType(inner, func.__self__)
    if not isinstance(func, pytypes.FunctionType):
        if isinstance(func, _NEVER_CONVERTED):
            return func
        call_method = _call_methods.get(type(func), _SAME)
        if call_method is _SAME:
            call_method = inspect.getattr_static(type(func), "__call__", None)
            if not isinstance(call_method, pytypes.FunctionType):
                call_method = None
            _call_methods[type(func)] = call_method
        if call_method is None:
            return func
        inner = _converted_callable(call_method)
        return func if inner is call_method else pytypes.MethodType(inner, func)
    hit = _cache.get(func)
    if hit is None:
        hit = _SAME
        if _user_function(func):
            try:
                hit = _convert_function(func)
            except _ConversionError:
                pass
        if not getattr(func, "__dali_converted__", False):  # (those are many and short-lived)
            _cache[func] = hit  # (`_SAME`, not `func`: a value must not keep its weak key alive)
    return func if hit is _SAME else hit


def _future_flags(func: pytypes.FunctionType) -> int:
    return func.__code__.co_flags & __future__.annotations.compiler_flag


def _parse_function(func: pytypes.FunctionType) -> tuple[ast.FunctionDef, str]:
    try:
        lines, first = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError) as e:
        raise _ConversionError(f"its source code is not available ({e})") from None
    source = "".join(lines)
    offset = first - 1
    if source[:1] in (" ", "\t"):
        # a nested function or a method: parse it inside a block rather than dedenting (which
        # fails on multi-line strings that are less indented than the code)
        source = "if 1:\n" + source
        offset -= 1
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        raise _ConversionError(f"its source code cannot be parsed ({e})") from None
    node: ast.AST = tree.body[0]
    if isinstance(node, ast.If):
        node = node.body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != func.__name__:
        raise _ConversionError("its source code could not be located")
    ast.increment_lineno(node, offset)
    return node, filename


def _find_code(code: pytypes.CodeType, name: str) -> pytypes.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType) and const.co_name == name:
            return const
    return None


def _convert_function(func: pytypes.FunctionType) -> pytypes.FunctionType:
    """A new function with the rewritten code, the same globals and the same closure cells."""
    node, filename = _parse_function(func)
    node.decorator_list = []  # already applied to `func`
    converter = _Converter(filename)
    converter.depth = 0
    new_node = converter.visit(node)
    assert isinstance(new_node, ast.FunctionDef)

    # The rewritten function is compiled inside a factory whose parameters are the original
    # free variables (and the runtime), so that they compile as closure variables; the code
    # object is then bound to the original closure cells, which keeps `nonlocal` updates shared.
    freevars = [v for v in func.__code__.co_freevars if v != "__class__"]
    holder: ast.stmt = new_node
    qual = func.__qualname__.split(".")
    cls_name = qual[-2] if len(qual) > 1 and qual[-2] != "<locals>" else None
    if cls_name is not None:
        # compiling inside a class of the same name keeps private-name mangling and `super()`
        holder = ast.ClassDef(
            name=cls_name, bases=[], keywords=[], body=[new_node], decorator_list=[], **_NEW_FIELDS
        )
    factory = ast.FunctionDef(
        name=_FACTORY,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=v) for v in [*freevars, _RT]],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[holder, ast.Pass()],
        decorator_list=[],
        returns=None,
        **_NEW_FIELDS,
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, new_node)
    if cls_name is not None:
        ast.copy_location(holder, new_node)
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec", flags=_future_flags(func), dont_inherit=True)
    except SyntaxError as e:
        raise _ConversionError(f"the rewritten code does not compile ({e})") from None
    factory_code = _find_code(code, _FACTORY)
    assert factory_code is not None
    parent = _find_code(factory_code, cls_name) if cls_name is not None else factory_code
    new_code = _find_code(parent, func.__name__) if parent is not None else None
    if new_code is None:
        raise _ConversionError("the rewritten code could not be found")

    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    closure = []
    for name in new_code.co_freevars:
        if name == _RT:
            closure.append(pytypes.CellType(_RUNTIME))
        elif name in cells:
            closure.append(cells[name])
        else:
            raise _ConversionError(f"the free variable {name!r} has no binding")
    new = pytypes.FunctionType(
        new_code, func.__globals__, func.__name__, func.__defaults__, tuple(closure) or None
    )
    new.__kwdefaults__ = copy.copy(func.__kwdefaults__)
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new.__annotations__ = func.__annotations__
    new.__dict__.update(func.__dict__)
    new.__dali_converted__ = True  # type: ignore[attr-defined]
    return new


def _check_outputs(result: Any) -> None:
    items = result if isinstance(result, (tuple, list)) else (result,)
    for item in items:
        if isinstance(item, _Poisoned):
            item._raise()
        if isinstance(item, DataNode) and item.scope is not None and item.scope.parent is not None:
            raise RuntimeError(
                f"The pipeline output `{item.name}` was produced in {item.scope.describe()} and "
                f"cannot be a pipeline output: assign it to a variable in both branches so that "
                f"it is merged."
            )


def convert(func: Callable[..., Any]) -> Callable[..., Any]:
    """The graph-defining function ``func`` with ``if`` on DataNodes made per-sample.

    Args:
        func: The function given to ``@pipeline_def(enable_conditionals=True)``.

    Returns:
        A function with the same signature; call it while the pipeline is being defined.

    Example:
        >>> import dali
        >>> from dali import fn
        >>> @dali.pipeline_def(batch_size=4, num_threads=1, enable_conditionals=True, seed=1)
        ... def pipe():
        ...     flip = fn.random.coin_flip()
        ...     if flip:
        ...         out = fn.random.uniform(range=(1, 2))
        ...     else:
        ...         out = fn.random.uniform(range=(-2, -1))
        ...     return flip, out
        >>> flip, out = pipe().run()
        >>> bool(np.all((out.as_array() > 0) == (flip.as_array() == 1)))
        True
    """
    target: Callable[..., Any] = func
    if not getattr(func, "__dali_do_not_convert__", False):
        reason = ""
        if not isinstance(func, pytypes.FunctionType) or func.__name__ == "<lambda>":
            reason = "it is not a plain function defined with `def`"
        else:
            hit = _top_cache.get(func)
            if hit is None:
                try:
                    hit = _convert_function(func)
                except _ConversionError as e:
                    hit = str(e)
                _top_cache[func] = hit
            if isinstance(hit, str):
                reason = hit
            else:
                target = hit
        if reason:
            warnings.warn(
                f"enable_conditionals=True: `{getattr(func, '__qualname__', func)}` is used as "
                f"is because {reason}; an `if` on a DataNode in it will fail.",
                stacklevel=3,
            )

    @functools.wraps(func)
    def define_graph(*args: Any, **kwargs: Any) -> Any:
        stack = context.scope_stack()
        depth = len(stack)
        stack.append(_Scope(None, None, True, ""))
        try:
            result = target(*args, **kwargs)
        finally:
            del stack[depth:]
        _check_outputs(result)
        return result

    return define_graph
