"""Merging the values of the two branches of one condition: the *merge* side of conditionals.

After both branches of an ``if`` on a DataNode, every variable assigned in either branch is
merged by `Conditional.merge_value`: two per-branch batches are interleaved back into the
original sample order; tuples, lists and dicts are merged element by element; Python numbers and
arrays become constants first (as in DALI); identical values are kept as they are. A variable
that only one branch defines, or that holds different non-mergeable Python objects, becomes a
`Poisoned` placeholder that raises DALI's explanation as soon as it is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._graph import context
from dali._graph.node import DataNode
from dali._pipeline.conditionals.rewrite import RET
from dali._pipeline.conditionals.scopes import Scope, call_internal, in_scope

__all__ = ["UNBOUND", "Conditional", "Poisoned", "check_poisoned"]

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
# Placeholders for values that cannot be merged
# ---------------------------------------------------------------------------------------------


class Poisoned:
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
    __int__ = __float__ = __index__ = __setattr__ = __abs__ = __invert__ = _raise
    # `==` raises too, but identity-based hashing keeps placeholders usable as dict keys.
    __eq__ = __ne__ = _raise
    __hash__ = object.__hash__


_OPERATORS: tuple[str, ...] = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
_OPERATORS += ("and", "or", "xor", "lshift", "rshift")
for _m in (*_OPERATORS, *(f"r{m}" for m in _OPERATORS), "lt", "le", "gt", "ge", "neg", "pos"):
    setattr(Poisoned, f"__{_m}__", Poisoned._raise)
del _m


class _Unbound:
    """The value of a name that is not bound (read as `NameError`)."""

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = _Unbound()


def _is_undefined(v: Any) -> bool:
    return v is UNBOUND or (
        isinstance(v, Poisoned) and object.__getattribute__(v, "_error") is NameError
    )


def check_poisoned(value: Any) -> None:
    if isinstance(value, Poisoned):
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


class Conditional:
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
        self.parent: Scope = stack[-1] if stack else Scope(None, None, True, "")
        self.predicate = self.parent.localize(test)
        self.where = where
        self._scopes: dict[bool, Scope] = {}

    def scope(self, branch: bool) -> Scope:
        s = self._scopes.get(branch)
        if s is None:
            s = self._scopes[branch] = Scope(self.parent, self.predicate, branch, self.where)
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
            if name == RET:
                return Poisoned(name, f"{_UNDEFINED_INTRO} Every branch must return a value.")
            missing = "if" if _is_undefined(t) else "else"
            return Poisoned(
                name,
                f"{_UNDEFINED_INTRO} Variable '{name}' must also be initialized in the "
                f"`{missing}` branch (`if` at {self.where}).",
            )
        if isinstance(t, Poisoned):
            return t
        if isinstance(f, Poisoned):
            return f
        if isinstance(t, DataNode) or isinstance(f, DataNode):
            if name == RET and (t is None or f is None):
                missing = "if" if t is None else "else"
                return Poisoned(
                    name,
                    f"{_UNDEFINED_INTRO} The `{missing}` branch must also have a return "
                    f"statement (`if` at {self.where}).",
                )
            tn = self._as_node(name, t, True)
            fn_ = self._as_node(name, f, False)
            if isinstance(tn, Poisoned):
                return tn
            if isinstance(fn_, Poisoned):
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
        return Poisoned(
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

            with in_scope(scope):
                if isinstance(value, ScalarConstant):
                    return Constant(value.value, dtype=value.dtype, device="cpu")
                return Constant(value, device="cpu")
        return Poisoned(
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
        with in_scope(self.parent):
            out = call_internal(
                "_conditional.merge",
                (t, f),
                {"predicate": self.predicate, "divergent": divergent, "device": t.device},
            )
        assert out.source is not None
        from dali._ops.conditional import MERGE_INFO

        MERGE_INFO[out.source] = ("" if name == RET else name, self.where)
        # The merged batch is the parent's: its size and sample identity come from the predicate.
        out.source.batch_source = self.predicate
        return out


def _describe_value(v: Any) -> str:
    if isinstance(v, DataNode):
        return "a DataNode"
    if v is None:
        return "None"
    return f"a `{type(v).__name__}` ({v!r:.40})"
