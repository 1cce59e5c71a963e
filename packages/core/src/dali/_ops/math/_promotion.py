"""The arithmetic operations and their typing rules: DALI's type promotion and type checks.

`OPS` describes every operation ``ArithmeticGenericOp`` knows (its symbol in messages, its
arity, the rule that gives its result type). `promote` is DALI's binary promotion table: the
same type stays, a float wins over any integer, two signed (or two unsigned) integers give the
wider one, and a signed ``intX`` with an unsigned ``uintY`` gives ``intX`` when ``X > Y`` and
``int(2Y)`` (capped at 64 bits) otherwise. `check_types` rejects what DALI rejects (booleans
in arithmetic, floats in bitwise operations).

Example:
    >>> result_dtype("add", [np.dtype("uint8"), np.dtype("int32")])
    dtype('int32')
    >>> result_dtype("fdiv", [np.dtype("int16"), np.dtype("int16")])
    dtype('float32')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = ["BOOL", "F32", "F64", "FLOAT_FUNCS", "OPS", "check_types", "promote", "result_dtype"]


class _OpDef(NamedTuple):
    symbol: str  # how messages spell the operation
    arity: int
    rule: str  # result type: "same", "float", "promote", "fpromote" or "bool"
    arithmetic: bool  # rejected when every input is BOOL (except `*`)
    bitwise: bool  # integral (or BOOL) inputs only


OPS: dict[str, _OpDef] = {
    "pos": _OpDef("+", 1, "same", True, False),
    "neg": _OpDef("-", 1, "same", True, False),
    "abs": _OpDef("abs", 1, "same", True, False),
    "bitnot": _OpDef("~", 1, "same", False, True),
    "add": _OpDef("+", 2, "promote", True, False),
    "sub": _OpDef("-", 2, "promote", True, False),
    "mul": _OpDef("*", 2, "promote", True, False),
    "div": _OpDef("//", 2, "promote", True, False),
    "mod": _OpDef("%", 2, "promote", True, False),
    "pow": _OpDef("**", 2, "promote", True, False),
    "min": _OpDef("min", 2, "promote", True, False),
    "max": _OpDef("max", 2, "promote", True, False),
    "fdiv": _OpDef("/", 2, "fpromote", True, False),
    "fpow": _OpDef("fpow", 2, "fpromote", True, False),
    "atan2": _OpDef("atan2", 2, "fpromote", True, False),
    "bitand": _OpDef("&", 2, "promote", False, True),
    "bitor": _OpDef("|", 2, "promote", False, True),
    "bitxor": _OpDef("^", 2, "promote", False, True),
    "lshift": _OpDef("<<", 2, "promote", False, True),
    "rshift": _OpDef(">>", 2, "promote", False, True),
    "eq": _OpDef("==", 2, "bool", False, False),
    "neq": _OpDef("!=", 2, "bool", False, False),
    "lt": _OpDef("<", 2, "bool", False, False),
    "leq": _OpDef("<=", 2, "bool", False, False),
    "gt": _OpDef(">", 2, "bool", False, False),
    "geq": _OpDef(">=", 2, "bool", False, False),
    "clamp": _OpDef("clamp", 3, "promote", True, False),
}

# Unary functions whose integer inputs give FLOAT; value: the array-module function name.
FLOAT_FUNCS = {
    "sqrt": "sqrt",
    "rsqrt": "",  # DALI's approximation, see `_rsqrt`
    "cbrt": "cbrt",
    "exp": "exp",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "fabs": "fabs",
    "floor": "floor",
    "ceil": "ceil",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
}
for _name in FLOAT_FUNCS:
    OPS[_name] = _OpDef(_name, 1, "float", True, False)
del _name

BOOL = np.dtype(np.bool_)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
_INT_BY_SIZE: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.int8),
    2: np.dtype(np.int16),
    4: np.dtype(np.int32),
    8: np.dtype(np.int64),
}
_KINDS = frozenset("biuf")


def promote(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """DALI's binary type promotion (``dali/operators/math/expressions/arithmetic_meta.h``).

    Args:
        a: The left operand's numpy dtype.
        b: The right operand's numpy dtype.

    Returns:
        The numpy dtype of the result.

    Example:
        >>> promote(np.dtype("uint8"), np.dtype("int8")), promote(np.dtype("uint32"), np.dtype("int64"))
        (dtype('int16'), dtype('int64'))
    """
    if a == b:
        return a
    ka, kb = a.kind, b.kind
    if ka == "f" or kb == "f":
        if ka == "f" and kb == "f":
            return a if a.itemsize >= b.itemsize else b
        return a if ka == "f" else b
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka == kb:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if ka == "i" else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    return _INT_BY_SIZE[min(2 * unsigned.itemsize, 8)]


def result_dtype(op: str, dtypes: Sequence[np.dtype[Any]]) -> np.dtype[Any]:
    """The numpy dtype of ``op`` applied to operands of ``dtypes``."""
    rule = OPS[op].rule
    if rule == "bool":
        return BOOL
    first = dtypes[0]
    if rule == "same":
        return first
    if rule == "float":
        return first if first.kind == "f" else F32
    out = first
    for t in dtypes[1:]:
        out = promote(out, t)
    if rule == "fpromote" and all(t.kind != "f" for t in dtypes):
        return F32
    return out


def _type_name(dtype: np.dtype[Any]) -> str:
    from dali._dtypes import type_name

    try:
        return type_name(dtype)
    except (TypeError, KeyError):
        return str(dtype)


def check_types(op: str, dtypes: Sequence[np.dtype[Any]]) -> str | None:
    """DALI's checks on the operand types; returns the error message or None."""
    d = OPS[op]
    for t in dtypes:
        if t.kind not in _KINDS:
            return (
                f"Input data type {_type_name(t)} is not supported by arithmetic operator "
                f"`{d.symbol}`."
            )
    if d.arithmetic and op != "mul" and all(t.kind == "b" for t in dtypes):
        if d.arity == 1:
            return (
                f"Input to arithmetic operator `{d.symbol}` cannot be a boolean. Consider using "
                f"bitwise operator `~` or a numeric type."
            )
        return (
            f"Inputs to arithmetic operator `{d.symbol}` cannot be booleans. Consider using "
            f"bitwise operators `|`, `&`, `^` or a numeric type as one of the inputs to force "
            f"type promotions of the booleans. Note: using `*` (multiplication) is still allowed "
            f"for boolean inputs."
        )
    if d.bitwise and any(t.kind == "f" for t in dtypes):
        return f"Inputs to bitwise operator `{d.symbol}` must be of integral type."
    return None
