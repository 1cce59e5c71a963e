"""What `fn.readers.tfrecord` extracts from each ``tf.train.Example``: its feature specs.

DALI's ``nvidia.dali.tfrecord`` mirrors TensorFlow's parsing specs (public here as
`dali.tfrecord`): a feature is a *kind* of value list (`int64`, `float32` or `string`) read as

* `FixedLenFeature` ``(shape, dtype, default_value)``: exactly ``prod(shape)`` values, returned
  with ``shape`` (``[]`` gives a scalar); a string feature holds one string, returned as its
  bytes (1-D uint8). A record without the feature gets ``default_value`` in its place.
* `VarLenFeature` ``([partial_shape,] dtype, default_value)``: however many values the record
  holds, 1-D, or ``(n, *partial_shape)`` with ``partial_shape`` (the values must fill whole
  rows). A record without the feature gets an empty array. ``default_value`` is not used (DALI
  takes it all the same). Strings are not supported (DALI: "Tensors of strings are not
  supported").

The dtype constants have DALI's values (``int64 = 0``, ``string = 1``, ``float32 = 2``). A
`Feature` is an immutable tuple, so operator arguments holding it compare, hash and print by
value.

Example:
    >>> FixedLenFeature([1], int64, -1)
    FixedLenFeature([1], int64, -1)
    >>> VarLenFeature([4], float32, 0.0).partial_shape
    (4,)
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple, overload

__all__ = [
    "Feature",
    "FixedLenFeature",
    "VarLenFeature",
    "dtype_name",
    "float32",
    "int64",
    "string",
]

#: DALI's feature types (``TFUtil::FeatureType``)
int64 = 0
string = 1
float32 = 2

_NAMES = {int64: "int64", string: "string", float32: "float32"}


def dtype_name(dtype: int) -> str:
    """``"int64"``, ``"string"`` or ``"float32"``."""
    return _NAMES[dtype]


class Feature(NamedTuple):
    """A TFRecord feature to extract: build it with `FixedLenFeature` or `VarLenFeature`.

    Attributes:
        fixed: FixedLenFeature (True) or VarLenFeature (False).
        dtype: `int64`, `float32` or `string`.
        shape: The FixedLenFeature shape (``()`` for ``[]``); None for a VarLenFeature.
        partial_shape: The VarLenFeature row shape, or None.
        default_value: The value a record without the feature gets (FixedLenFeature).
    """

    fixed: bool
    dtype: int
    shape: tuple[int, ...] | None
    partial_shape: tuple[int, ...] | None
    default_value: Any

    def __repr__(self) -> str:
        value = repr(self.default_value)
        name = _NAMES[self.dtype]
        if self.fixed:
            return f"FixedLenFeature({list(self.shape or ())}, {name}, {value})"
        if self.partial_shape is not None:
            return f"VarLenFeature({list(self.partial_shape)}, {name}, {value})"
        return f"VarLenFeature({name}, {value})"


def _dims(what: str, shape: Any, *, least: int) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError(f"{what} must be a list of int, got {shape!r}")
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"{what} must be a list of int, got {shape!r}") from None
    if any(d < least for d in dims):
        raise ValueError(f"{what} must have dimensions >= {least}, got {list(dims)}")
    return dims


def _default(dtype: Any, value: Any) -> Any:
    """``value`` checked against ``dtype`` (an int for int64, a number for float32, a str)."""
    if isinstance(dtype, bool) or dtype not in _NAMES:
        raise TypeError(
            f"invalid feature type {dtype!r}: use dali.tfrecord.int64, float32 or string"
        )
    if dtype == int64:
        if isinstance(value, numbers.Integral):
            return int(value)
        raise TypeError(f"invalid type for the default value of an int64 feature: {value!r}")
    if dtype == float32:
        if isinstance(value, numbers.Real):
            return float(value)
        raise TypeError(f"invalid type for the default value of a float32 feature: {value!r}")
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    raise TypeError(f"invalid type for the default value of a string feature: {value!r}")


def FixedLenFeature(shape: Sequence[int], dtype: int, default_value: Any, /) -> Feature:
    """A feature of exactly ``prod(shape)`` values, returned with ``shape``.

    Args:
        shape: The output shape (``[]``: a scalar). A string feature holds one string:
            ``[]`` or ``[1]``, returned as its bytes.
        dtype: `int64`, `float32` or `string`.
        default_value: What a record without the feature gets (every element, for numbers).

    Example:
        >>> FixedLenFeature((), string, "")
        FixedLenFeature([], string, '')
    """
    value = _default(dtype, default_value)
    return Feature(True, int(dtype), _dims("shape", shape, least=0), None, value)


@overload
def VarLenFeature(dtype: int, default_value: Any, /) -> Feature: ...
@overload
def VarLenFeature(partial_shape: Sequence[int], dtype: int, default_value: Any, /) -> Feature: ...


def VarLenFeature(*args: Any) -> Feature:
    """A feature of any number of values: ``VarLenFeature([partial_shape,] dtype, default)``.

    Args:
        partial_shape: Optional. The shape of one row: the output is ``(n, *partial_shape)``.
        dtype: `int64` or `float32` (`string` is rejected by the reader).
        default_value: Accepted, as DALI does, and not used: a record without the feature gives
            an empty array.

    Example:
        >>> VarLenFeature(int64, 0), VarLenFeature([2, 2], float32, 0.0)
        (VarLenFeature(int64, 0), VarLenFeature([2, 2], float32, 0.0))
    """
    if len(args) == 2:
        dtype, default_value = args
        partial = None
    elif len(args) == 3:
        partial_shape, dtype, default_value = args
        partial = _dims("partial_shape", partial_shape, least=1)
    else:
        raise TypeError(
            "VarLenFeature takes (dtype, default_value) or (partial_shape, dtype, "
            f"default_value), got {len(args)} arguments"
        )
    value = _default(dtype, default_value)
    return Feature(False, int(dtype), None, partial, value)
