"""Checking and converting operator arguments against their schema."""

from __future__ import annotations

import enum
import numbers
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._graph.schema import Arg

__all__ = ["ArgumentError", "UnknownArgumentError", "convert_scalar", "is_scalar_value"]


class ArgumentError(TypeError):
    """A wrong argument value or type; names the operator and the argument."""


class UnknownArgumentError(KeyError, TypeError):
    """An argument the operator does not define (DALI raises KeyError; we list the valid names)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


def _is_array_like(value: Any) -> bool:
    return hasattr(value, "__array_interface__") or hasattr(value, "__array__")


def is_scalar_value(value: Any) -> bool:
    """DALI's split between scalar arguments and argument inputs for non-DataNode values.

    `str`, `list`, `tuple`, Python bool/int/float and ScalarConstant are scalar; numpy (or torch)
    values are scalar when their shape is ``()``, ``(1,)``; any other array-like is an argument
    input (a per-sample constant).
    """
    from dali.types import ScalarConstant

    if isinstance(value, (str, list, tuple, bool, int, float, ScalarConstant)):
        return True
    if isinstance(value, np.generic):
        return True
    if _is_array_like(value) and not callable(value):
        shape = tuple(np.shape(value))
        return shape in ((), (1,))
    return True


def _fail(op: str, arg: Arg, expected: str, value: Any) -> ArgumentError:
    return ArgumentError(
        f"The argument `{arg.name}` for operator `{op}` should be {expected}, "
        f"got {value!r} ({type(value).__name__})."
    )


def _scalar(value: Any) -> Any:
    from dali.types import ScalarConstant

    if isinstance(value, enum.Enum):  # DALIImageType.RGB, DALIInterpType.INTERP_LINEAR, ...
        return value.value
    if isinstance(value, ScalarConstant):
        value = value.value
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, np.generic):
        value = value.item()
    return value


def _to_int(op: str, arg: Arg, value: Any) -> int:
    v = _scalar(value)
    if isinstance(v, (bool, numbers.Integral)):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise _fail(op, arg, "an int", value)


def _to_float(op: str, arg: Arg, value: Any) -> float:
    v = _scalar(value)
    if isinstance(v, numbers.Real):
        return float(v)
    raise _fail(op, arg, "a float", value)


def _to_bool(op: str, arg: Arg, value: Any) -> bool:
    v = _scalar(value)
    if isinstance(v, (bool, numbers.Integral)):
        return bool(v)
    raise _fail(op, arg, "a bool", value)


def _as_seq(value: Any) -> Sequence[Any] | None:
    if isinstance(value, (list, tuple)):
        return value
    if isinstance(value, np.ndarray):
        flat: list[Any] = value.reshape(-1).tolist()
        return flat
    if _is_array_like(value) and not isinstance(value, str):
        flat = np.asarray(value).reshape(-1).tolist()
        return flat
    return None


def _vec(op: str, arg: Arg, value: Any, conv: Any, what: str) -> tuple[Any, ...]:
    seq = _as_seq(value)
    if seq is None:  # a single value becomes a one-element list (DALI's _FLOAT_VEC rule)
        return (conv(op, arg, value),)
    try:
        return tuple(conv(op, arg, v) for v in seq)
    except ArgumentError:
        raise _fail(op, arg, what, value) from None


def convert_scalar(op: str, arg: Arg, value: Any) -> Any:
    """Convert a scalar argument value to its schema type (raises ArgumentError)."""
    from dali import types
    from dali._dtypes import dali_dtype

    t = arg.type
    if t == "any" or t == "callable":
        return value
    if t == "int":
        return _to_int(op, arg, value)
    if t == "float":
        return _to_float(op, arg, value)
    if t == "bool":
        return _to_bool(op, arg, value)
    if t in ("str", "layout"):
        if isinstance(value, str):
            return str(value)
        if t == "str" and isinstance(value, os.PathLike):  # DALI converts with str()
            return os.fspath(value)
        raise _fail(op, arg, "a str", value)
    if t == "int_vec":
        return _vec(op, arg, value, _to_int, "an int or a list of int")
    if t == "float_vec":
        return _vec(op, arg, value, _to_float, "a float or a list of float")
    if t == "bool_vec":
        return _vec(op, arg, value, _to_bool, "a bool or a list of bool")
    if t in ("str_vec", "layout_vec"):
        if t == "str_vec" and isinstance(value, os.PathLike):
            value = os.fspath(value)
        if isinstance(value, str):
            return (value,)
        if t == "str_vec" and isinstance(value, (list, tuple)):
            value = [os.fspath(v) if isinstance(v, os.PathLike) else v for v in value]
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise _fail(op, arg, "a str or a list of str", value)
    if t == "int_or_int_vec":
        seq = _as_seq(value)
        return _vec(op, arg, value, _to_int, "int") if seq is not None else _to_int(op, arg, value)
    if t == "float_or_float_vec":
        seq = _as_seq(value)
        if seq is not None:
            return _vec(op, arg, value, _to_float, "float")
        return _to_float(op, arg, value)
    if t == "dtype":
        try:
            return dali_dtype(value)
        except TypeError:
            raise _fail(op, arg, "a data type (dali.types.DALIDataType)", value) from None
    if t == "dtype_vec":
        seq = value if isinstance(value, (list, tuple)) else [value]
        try:
            return tuple(dali_dtype(v) for v in seq)
        except TypeError:
            raise _fail(op, arg, "a list of data types", value) from None
    if t == "image_type":
        try:
            return types.DALIImageType(_to_int(op, arg, value))
        except (ValueError, ArgumentError):
            raise _fail(op, arg, "a dali.types.DALIImageType", value) from None
    if t == "interp_type":
        try:
            return types.DALIInterpType(_to_int(op, arg, value))
        except (ValueError, ArgumentError):
            raise _fail(op, arg, "a dali.types.DALIInterpType", value) from None
    raise AssertionError(f"unhandled argument type {t}")
