"""Constants in pipeline definitions: :class:`ScalarConstant` and the :func:`Constant` factory.

A Python or numpy scalar becomes a typed :class:`ScalarConstant`, which arithmetic on DataNodes
takes as a scalar argument (its type only steers type promotion); anything else (arrays, lists,
enum values, a shape, a layout, a device) becomes a constant node whose tensor,
`_constant_array`, follows DALI's typing rules. ``dali.types`` re-exports both.

Example:
    >>> from dali._constants import Constant
    >>> c = Constant(10)
    >>> c.dtype, c.uint8().dtype
    (<DALIDataType.INT32: 6>, <DALIDataType.UINT8: 0>)
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from dali._dtypes import (
    NP_BY_DALI,
    DALIDataType,
    DALIImageType,
    DALIInterpType,
    dali_dtype,
    np_dtype,
    to_dali_type,
)

__all__ = ["Constant", "ScalarConstant"]

_D = DALIDataType

_BOOL_TYPES = (_D.BOOL,)
_INT_TYPES = (_D.INT8, _D.INT16, _D.INT32, _D.INT64, _D.UINT8, _D.UINT16, _D.UINT32, _D.UINT64)
_FLOAT_TYPES = (_D.FLOAT16, _D.FLOAT, _D.FLOAT64)
_INT_LIKE_TYPES = _BOOL_TYPES + _INT_TYPES
_ALL_TYPES = _BOOL_TYPES + _INT_TYPES + _FLOAT_TYPES
_ENUM_TYPES = (DALIDataType, DALIImageType, DALIInterpType)
_ENUM_DALI_TYPES = (_D.DATA_TYPE, _D.IMAGE_TYPE, _D.INTERP_TYPE)


class ScalarConstant:
    """A typed scalar for arithmetic expressions on DataNodes (made by :func:`Constant`).

    The type only steers type promotion: ``u8_node + 10`` gives INT32 (a Python int counts as
    INT32), while ``u8_node + types.Constant(10).uint8()`` stays UINT8.

    Attributes:
        value: The Python ``bool``, ``int`` or ``float``.
        dtype: Its :class:`DALIDataType`.

    Example:
        >>> c = ScalarConstant(10)
        >>> c.dtype, c.uint8().dtype, str(c.float32())
        (<DALIDataType.INT32: 6>, <DALIDataType.UINT8: 0>, '10.0:DALIDataType.FLOAT')
    """

    __slots__ = ("dtype", "shape", "value")

    value: bool | int | float
    dtype: DALIDataType

    def __init__(self, value: Any, dtype: Any = None) -> None:
        self.shape: list[int] = []
        value_dtype = getattr(value, "dtype", None)  # numpy scalars, 0-d arrays and tensors
        if value_dtype is not None:
            kind = to_dali_type(value_dtype)
            if kind in _INT_TYPES:
                value = int(value)
            elif kind in _FLOAT_TYPES:
                value = float(value)
            elif kind in _BOOL_TYPES:
                value = bool(value)
            if dtype is None:
                dtype = kind
        if not isinstance(value, (bool, int, float)):
            raise TypeError(
                f"Expected scalar value of type 'bool', 'int' or 'float', got {type(value)}."
            )
        if dtype is not None:
            dtype = dali_dtype(dtype)
            if dtype in _BOOL_TYPES:
                value = bool(value)
            elif dtype in _INT_TYPES:
                value = int(value)
            elif dtype in _FLOAT_TYPES:
                value = float(value)
            else:
                raise TypeError(
                    f"DALI ScalarConstant can only hold one of: {list(_ALL_TYPES)} types."
                )
        elif isinstance(value, bool):
            dtype = _D.BOOL
        elif isinstance(value, int):
            dtype = _D.INT32
        else:
            dtype = _D.FLOAT
        self.value = value
        self.dtype = dtype

    def bool(self) -> ScalarConstant:
        """The same value as a BOOL constant."""
        return ScalarConstant(self.value, _D.BOOL)

    def int8(self) -> ScalarConstant:
        """The same value as an INT8 constant."""
        return ScalarConstant(self.value, _D.INT8)

    def int16(self) -> ScalarConstant:
        """The same value as an INT16 constant."""
        return ScalarConstant(self.value, _D.INT16)

    def int32(self) -> ScalarConstant:
        """The same value as an INT32 constant."""
        return ScalarConstant(self.value, _D.INT32)

    def int64(self) -> ScalarConstant:
        """The same value as an INT64 constant."""
        return ScalarConstant(self.value, _D.INT64)

    def uint8(self) -> ScalarConstant:
        """The same value as a UINT8 constant."""
        return ScalarConstant(self.value, _D.UINT8)

    def uint16(self) -> ScalarConstant:
        """The same value as a UINT16 constant."""
        return ScalarConstant(self.value, _D.UINT16)

    def uint32(self) -> ScalarConstant:
        """The same value as a UINT32 constant."""
        return ScalarConstant(self.value, _D.UINT32)

    def uint64(self) -> ScalarConstant:
        """The same value as a UINT64 constant."""
        return ScalarConstant(self.value, _D.UINT64)

    def float16(self) -> ScalarConstant:
        """The same value as a FLOAT16 constant."""
        return ScalarConstant(self.value, _D.FLOAT16)

    def float32(self) -> ScalarConstant:
        """The same value as a FLOAT constant."""
        return ScalarConstant(self.value, _D.FLOAT)

    def float64(self) -> ScalarConstant:
        """The same value as a FLOAT64 constant."""
        return ScalarConstant(self.value, _D.FLOAT64)

    # Comparing with anything else (a DataNode) is left to the other operand's reflected method.
    def __eq__(self, other: object) -> Any:
        if isinstance(other, ScalarConstant):
            return self.value == other.value and self.dtype == other.dtype
        return NotImplemented

    def __ne__(self, other: object) -> Any:
        if isinstance(other, ScalarConstant):
            return self.value != other.value or self.dtype != other.dtype
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.value, int(self.dtype)))

    # `builtins`: in the class body, `bool` is the `bool()` conversion method above
    def __bool__(self) -> builtins.bool:
        if self.dtype in _INT_LIKE_TYPES:
            return bool(self.value)
        raise TypeError(
            f"DALI ScalarConstant must be converted to one of bool or int types: "
            f"({list(_INT_LIKE_TYPES)}) explicitly before casting to builtin `bool`."
        )

    def __int__(self) -> int:
        if self.dtype in _INT_LIKE_TYPES:
            return int(self.value)
        raise TypeError(
            f"DALI ScalarConstant must be converted to one of bool or int types: "
            f"({list(_INT_LIKE_TYPES)}) explicitly before casting to builtin `int`."
        )

    def __float__(self) -> float:
        if self.dtype in _FLOAT_TYPES:
            return float(self.value)
        raise TypeError(
            f"DALI ScalarConstant must be converted to one of the float types: "
            f"({list(_FLOAT_TYPES)}) explicitly before casting to builtin `float`."
        )

    def __str__(self) -> str:
        return f"{self.value}:{self.dtype}"

    def __repr__(self) -> str:
        return f"{self.value}"


def _is_array_like(value: Any) -> bool:
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    if isinstance(value, (str, bytes, list, tuple, bool, int, float)):
        return False
    return any(
        hasattr(value, a)
        for a in ("__array_interface__", "__array__", "__cuda_array_interface__", "__dlpack__")
    )


def _is_scalar_shape(shape: Any) -> bool:
    # None, (), 1 and (1,) all count as scalar: (1,) is one of DALI's legacy "pseudo-scalars".
    if shape is None or (isinstance(shape, (int, np.integer)) and shape == 1):
        return True
    return isinstance(shape, (list, tuple)) and len(shape) <= 1 and all(s == 1 for s in shape)


def _is_true_scalar(value: Any) -> bool:
    return len(getattr(value, "shape", ())) == 0


def _to_host_array(value: Any) -> np.ndarray:
    if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
        import cupy  # a GPU constant is built on the host and copied back by the graph

        host: np.ndarray = cupy.asnumpy(value)
        return host
    return np.asarray(value)


def _flat_elements(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat_elements(v)]
    return [value]


def _list_type(elements: list[Any]) -> DALIDataType:
    """The type DALI infers for a list constant: any float -> FLOAT, else ints -> INT32."""
    has_float = has_int = has_bool = False
    enum_type: type[DALIDataType | DALIImageType | DALIInterpType] | None = None
    for x in elements:
        if isinstance(x, _ENUM_TYPES):
            if enum_type is not None and type(x) is not enum_type:
                raise TypeError(
                    f"Expected all elements of the input to be the same enum type: "
                    f"`{enum_type.__name__}` but got `{type(x).__name__}` for one of the elements."
                )
            enum_type = type(x)
        elif isinstance(x, (bool, np.bool_)):
            has_bool = True
        elif isinstance(x, (int, np.integer)):
            has_int = True
        elif isinstance(x, (float, np.floating)):
            has_float = True
        else:
            raise TypeError("Unexpected type: " + str(type(x)))
    if enum_type is not None:
        if has_float or has_int or has_bool:
            raise TypeError(
                f"Expected all elements of the input to be the same enum type: "
                f"`{enum_type.__name__}`."
            )
        return {
            DALIDataType: _D.DATA_TYPE,
            DALIImageType: _D.IMAGE_TYPE,
            DALIInterpType: _D.INTERP_TYPE,
        }[enum_type]
    if has_float:
        return _D.FLOAT
    if has_int:
        return _D.INT32
    if has_bool:
        return _D.BOOL
    return _D.FLOAT  # an empty list is a float constant


def _constant_array(value: Any, dtype: Any = None, shape: Any = None) -> np.ndarray:
    """The array a :func:`Constant` node produces for every sample.

    Follows DALI's rules: numpy arrays keep their type, except that float64 is narrowed to
    float32 and int64/uint64 to int32/uint32 when no ``dtype`` is given; lists of ints are INT32
    and lists with a float are FLOAT; enum values are stored as int32. ``shape`` reshapes the
    value, or broadcasts a single value to it.

    Args:
        value: A scalar, a (nested) list/tuple, or an array-like.
        dtype: The requested element type (anything :func:`np_dtype` accepts), or None.
        shape: The requested shape, or None to keep the value's own.

    Returns:
        A new C-contiguous numpy array.

    Raises:
        TypeError: For values of unsupported types.
        ValueError: If ``shape`` does not fit the number of elements.
    """
    target = None if dtype is None else dali_dtype(dtype)
    if _is_array_like(value):
        torch_value = type(value).__module__.startswith("torch")
        arr = _to_host_array(value)
        src = arr.dtype
        if target is None and not torch_value:
            if src == np.float64:
                arr = arr.astype(np.float32)
            elif src == np.int64:
                arr = arr.astype(np.int32)
            elif src == np.uint64:
                arr = arr.astype(np.uint32)
        dali_dtype(arr.dtype)  # reject unsupported element types
    else:
        actual = _list_type(_flat_elements(value))
        if actual in _ENUM_DALI_TYPES:
            arr = np.array(_to_ints(value), dtype=np.int32)
        else:
            arr = np.array(value, dtype=NP_BY_DALI[actual])
    if target is not None and target not in _ENUM_DALI_TYPES:
        arr = arr.astype(np_dtype(target))
    if shape is not None:
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if arr.size == math.prod(shape):
            arr = arr.reshape(shape)
        elif arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        else:
            raise ValueError(
                f"Cannot make a constant of shape {list(shape)} from {arr.size} values."
            )
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _to_ints(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_to_ints(v) for v in value]
    return int(value)


def Constant(
    value: Any,
    dtype: Any = None,
    shape: Any = None,
    layout: str | None = None,
    device: str | None = None,
    **kwargs: Any,
) -> Any:
    """Wrap a constant for use in a pipeline definition.

    A Python or numpy scalar with no ``shape``, ``layout``, ``device`` or extra arguments gives
    a :class:`ScalarConstant`, which arithmetic on DataNodes treats specially. Anything else
    (arrays, lists, enum values, a shape, a device) gives a DataNode produced by a constant
    operator that outputs the same tensor for every sample.

    Args:
        value: A bool, int, float, DALI enum value, a list/tuple of those, or an array.
        dtype: The element type of the constant (a :class:`DALIDataType`).
        shape: Shape of the output; a single value is broadcast to it.
        layout: Layout of the constant tensor, e.g. ``"HWC"``.
        device: ``"cpu"`` or ``"gpu"``; forces a constant node.
        **kwargs: Extra arguments for the constant operator (``name=``...); force a node.

    Returns:
        A :class:`ScalarConstant` or a ``DataNode``.

    Example:
        >>> Constant(10).uint8().dtype
        <DALIDataType.UINT8: 0>
    """
    target = None if dtype is None else dali_dtype(dtype)
    is_enum = isinstance(value, _ENUM_TYPES) or target in _ENUM_DALI_TYPES
    if (
        device is not None
        or (_is_array_like(value) and not _is_true_scalar(value))
        or isinstance(value, (list, tuple))
        or is_enum
        or not _is_scalar_shape(shape)
        or kwargs
        or layout is not None
    ):
        from dali._graph.trace import constant_node

        array = _constant_array(value, target, shape)
        return constant_node(array, layout=layout or "", device=device or "cpu", **kwargs)
    return ScalarConstant(value, target)
