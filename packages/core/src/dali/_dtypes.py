"""Data types and enums behind the public :mod:`dali.types` module.

DALI describes element types with :class:`DALIDataType`, a pybind11 enum whose members compare
equal to plain ints. We store data in numpy (CPU) and CuPy (GPU) arrays, so this module is the
one place that translates between the two vocabularies:

* :func:`np_dtype` turns anything that names a type (a ``DALIDataType``, its int value, a numpy
  dtype or scalar type, a name such as ``"float32"`` or ``"double"``, a torch dtype) into a
  ``numpy.dtype``;
* :func:`dali_dtype` goes the other way;
* :func:`type_name` gives the spelling DALI uses in its error messages (``"float"`` for FLOAT,
  ``"double"`` for FLOAT64).

It also holds the small value classes that ``dali.types`` re-exports: :class:`TensorLayout`,
:class:`SampleInfo` and :class:`BatchInfo`. Constants (:class:`ScalarConstant` and the
:func:`Constant` factory) live in `dali._constants`.

Example:
    >>> from dali._dtypes import DALIDataType, dali_dtype, np_dtype, type_name
    >>> np_dtype(DALIDataType.FLOAT)
    dtype('float32')
    >>> dali_dtype("uint8")
    <DALIDataType.UINT8: 0>
    >>> type_name(DALIDataType.FLOAT64)
    'double'
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "DALI_BY_KIND",
    "NP_BY_DALI",
    "BatchInfo",
    "DALIDataType",
    "DALIImageType",
    "DALIInterpType",
    "PipelineAPIType",
    "SampleInfo",
    "TensorLayout",
    "dali_dtype",
    "np_dtype",
    "to_dali_type",
    "to_numpy_type",
    "type_name",
]


# --------------------------------------------------------------------------------------------
# pybind11-style enums
# --------------------------------------------------------------------------------------------


class _PybindEnumMeta(enum.EnumMeta):
    """Makes the enum *class* behave like a pybind11 enum type: not iterable, no ``len``.

    Real DALI enums are pybind11 types; ``iter(DALIDataType)`` raises TypeError there and users
    go through ``__members__``. Python's Enum machinery reads ``_member_map_`` directly, so
    refusing iteration here does not break it.
    """

    def __iter__(cls) -> Any:
        raise TypeError(
            f"'{cls.__name__}' is not iterable; use {cls.__name__}.__members__ to list its members"
        )

    def __reversed__(cls) -> Any:
        raise TypeError(f"'{cls.__name__}' is not reversible")

    def __len__(cls) -> int:
        raise TypeError(f"object of type '{cls.__name__}' has no len()")

    def __contains__(cls, value: object) -> bool:
        raise TypeError(f"argument of type '{cls.__name__}' is not iterable")

    def __getitem__(cls, name: str) -> Any:
        raise TypeError(f"'{cls.__name__}' object is not subscriptable")


class _PybindEnum(enum.Enum, metaclass=_PybindEnumMeta):
    """Enum members that behave like pybind11's: equal to (and hashed like) their int value.

    Unlike ``IntEnum``, members are not ints: ``bool(DALIDataType.UINT8)`` is True (its value is
    0), they do not support arithmetic or ordering, and ``str()`` gives ``"Class.NAME"``.
    """

    _value_: int

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _PybindEnum):
            return self._value_ == other._value_
        if isinstance(other, (str, float)):
            return False
        try:
            return self._value_ == operator.index(other)  # type: ignore[arg-type]
        except TypeError:
            return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(self._value_)

    def __int__(self) -> int:
        return self._value_

    def __index__(self) -> int:
        return self._value_

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self._name_}: {self._value_}>"

    def __format__(self, format_spec: str) -> str:
        return format(str(self), format_spec)


class DALIDataType(_PybindEnum):
    """Element type of DALI tensors and of operator arguments.

    Members compare equal to their int values (``DALIDataType.FLOAT == 9``). The class is not
    iterable: list the members with ``DALIDataType.__members__``.

    Example:
        >>> DALIDataType.FLOAT
        <DALIDataType.FLOAT: 9>
        >>> str(DALIDataType.FLOAT), DALIDataType(9) is DALIDataType.FLOAT
        ('DALIDataType.FLOAT', True)
    """

    NO_TYPE = -1
    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    UINT64 = 3
    INT8 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    FLOAT16 = 8
    FLOAT = 9
    FLOAT64 = 10
    BOOL = 11
    STRING = 12
    _BOOL_VEC = 13
    _INT32_VEC = 14
    _STRING_VEC = 15
    _FLOAT_VEC = 16
    FEATURE = 17
    _FEATURE_VEC = 18
    _FEATURE_DICT = 19
    IMAGE_TYPE = 20
    DATA_TYPE = 21
    INTERP_TYPE = 22
    TENSOR_LAYOUT = 23
    PYTHON_OBJECT = 24
    _TENSOR_LAYOUT_VEC = 25
    _DATA_TYPE_VEC = 26
    _INT64_VEC = 27


class DALIImageType(_PybindEnum):
    """Colour space of decoded images (``types.RGB``, ``types.GRAY``, ...)."""

    RGB = 0
    BGR = 1
    GRAY = 2
    YCbCr = 3
    ANY_DATA = 4


class DALIInterpType(_PybindEnum):
    """Interpolation method of resampling operators (``types.INTERP_LINEAR``, ...)."""

    INTERP_NN = 0
    INTERP_LINEAR = 1
    INTERP_CUBIC = 2
    INTERP_LANCZOS3 = 3
    INTERP_TRIANGULAR = 4
    INTERP_GAUSSIAN = 5


@enum.unique
class PipelineAPIType(enum.Enum):
    """Which API a pipeline is driven with (kept for compatibility; it changes nothing here)."""

    BASIC = 0
    ITERATOR = 1
    SCHEDULED = 2


# --------------------------------------------------------------------------------------------
# numpy <-> DALIDataType
# --------------------------------------------------------------------------------------------

_D = DALIDataType

# Keyed by (kind, itemsize) rather than by dtype: np.dtype("q") and np.dtype("l") are distinct
# objects with the same meaning on 64-bit Linux, and byte order does not matter for the type.
DALI_BY_KIND: dict[tuple[str, int], DALIDataType] = {
    ("u", 1): _D.UINT8,
    ("u", 2): _D.UINT16,
    ("u", 4): _D.UINT32,
    ("u", 8): _D.UINT64,
    ("i", 1): _D.INT8,
    ("i", 2): _D.INT16,
    ("i", 4): _D.INT32,
    ("i", 8): _D.INT64,
    ("f", 2): _D.FLOAT16,
    ("f", 4): _D.FLOAT,
    ("f", 8): _D.FLOAT64,
    ("b", 1): _D.BOOL,
}

NP_BY_DALI: dict[DALIDataType, np.dtype[Any]] = {
    _D.UINT8: np.dtype(np.uint8),
    _D.UINT16: np.dtype(np.uint16),
    _D.UINT32: np.dtype(np.uint32),
    _D.UINT64: np.dtype(np.uint64),
    _D.INT8: np.dtype(np.int8),
    _D.INT16: np.dtype(np.int16),
    _D.INT32: np.dtype(np.int32),
    _D.INT64: np.dtype(np.int64),
    _D.FLOAT16: np.dtype(np.float16),
    _D.FLOAT: np.dtype(np.float32),
    _D.FLOAT64: np.dtype(np.float64),
    _D.BOOL: np.dtype(np.bool_),
}

# The names DALI's own ``to_dali_type`` understands (numpy's and torch's spellings). Note that
# "float" means float32 here, as in DALI and torch, not float64 as in numpy.
_DALI_BY_NAME: dict[str, DALIDataType] = {
    "bool": _D.BOOL,
    "boolean": _D.BOOL,
    "int8": _D.INT8,
    "sbyte": _D.INT8,
    "uint8": _D.UINT8,
    "byte": _D.UINT8,
    "ubyte": _D.UINT8,
    "int16": _D.INT16,
    "short": _D.INT16,
    "uint16": _D.UINT16,
    "ushort": _D.UINT16,
    "int32": _D.INT32,
    "uint32": _D.UINT32,
    "int64": _D.INT64,
    "long": _D.INT64,
    "uint64": _D.UINT64,
    "ulong": _D.UINT64,
    "half": _D.FLOAT16,
    "float16": _D.FLOAT16,
    "float": _D.FLOAT,
    "float32": _D.FLOAT,
    "float64": _D.FLOAT64,
    "double": _D.FLOAT64,
}

# DALI's C++ names (daliDataTypeName), used in its error messages.
_TYPE_NAMES: dict[DALIDataType, str] = {
    _D.NO_TYPE: "<no_type>",
    _D.UINT8: "uint8",
    _D.UINT16: "uint16",
    _D.UINT32: "uint32",
    _D.UINT64: "uint64",
    _D.INT8: "int8",
    _D.INT16: "int16",
    _D.INT32: "int32",
    _D.INT64: "int64",
    _D.FLOAT16: "float16",
    _D.FLOAT: "float",
    _D.FLOAT64: "double",
    _D.BOOL: "bool",
    _D.STRING: "string",
    _D._BOOL_VEC: "list of bool",
    _D._INT32_VEC: "list of int",
    _D._STRING_VEC: "list of string",
    _D._FLOAT_VEC: "list of float",
    _D.FEATURE: "TFUtil::Feature",
    _D._FEATURE_VEC: "list of TFUtil::Feature",
    _D._FEATURE_DICT: "dictionary of TFUtil::Feature",
    _D.IMAGE_TYPE: "DALIImageType",
    _D.DATA_TYPE: "DALIDataType",
    _D.INTERP_TYPE: "DALIInterpType",
    _D.TENSOR_LAYOUT: "TensorLayout",
    _D.PYTHON_OBJECT: "Python object",
    _D._TENSOR_LAYOUT_VEC: "list of TensorLayout",
    _D._DATA_TYPE_VEC: "list of DALIDataType",
    _D._INT64_VEC: "list of int64",
}

_SUPPORTED = "bool, int8/16/32/64, uint8/16/32/64, float16, float32 or float64"


def _from_int(value: int) -> DALIDataType:
    try:
        return DALIDataType(value)
    except ValueError:
        raise TypeError(f"{value} is not a valid DALIDataType value.") from None


def _from_name(name: str) -> DALIDataType | None:
    key = name.removeprefix("torch.")
    return _DALI_BY_NAME.get(key)


def _numpy_to_dali(dtype: np.dtype[Any], original: Any) -> DALIDataType:
    found = DALI_BY_KIND.get((dtype.kind, dtype.itemsize))
    if found is None:
        raise TypeError(f"Data type {original!r} is not supported by DALI; expected {_SUPPORTED}.")
    return found


def dali_dtype(x: Any) -> DALIDataType:
    """Convert anything that names an element type to a :class:`DALIDataType`.

    Args:
        x: A ``DALIDataType`` (returned as is, internal types included), its int value, a numpy
            dtype or scalar type (``np.float32``), a name (``"uint8"``, ``"float"``,
            ``"double"``, ``"torch.int64"``) or a torch dtype.

    Returns:
        The matching ``DALIDataType``.

    Raises:
        TypeError: If ``x`` names no type DALI can store.

    Example:
        >>> dali_dtype(np.float32), dali_dtype("double"), dali_dtype(6)
        (<DALIDataType.FLOAT: 9>, <DALIDataType.FLOAT64: 10>, <DALIDataType.INT32: 6>)
    """
    if isinstance(x, DALIDataType):
        return x
    if isinstance(x, np.dtype):  # (the common case, first: every fed sample asks)
        return _numpy_to_dali(x, x)
    if isinstance(x, _PybindEnum):
        raise TypeError(f"{x} is not a data type.")
    if x is None or isinstance(x, bool):
        raise TypeError(f"{x!r} is not a data type.")
    if isinstance(x, (int, np.integer)):
        return _from_int(int(x))
    if isinstance(x, str):
        found = _from_name(x)
        if found is not None:
            return found
    elif type(x).__module__ == "torch" or str(x).startswith("torch."):
        found = _from_name(str(x))  # torch.float32 and friends, without importing torch
        if found is not None:
            return found
        raise TypeError(f"Data type {x!r} is not supported by DALI; expected {_SUPPORTED}.")
    try:
        dtype = np.dtype(x)
    except (TypeError, ValueError):
        raise TypeError(
            f"Cannot interpret {x!r} as a data type; expected a DALIDataType, a numpy dtype or "
            f"a type name such as 'float32'."
        ) from None
    return _numpy_to_dali(dtype, x)


def np_dtype(x: Any) -> np.dtype[Any]:
    """Convert anything that names an element type to a ``numpy.dtype``.

    Args:
        x: Anything :func:`dali_dtype` accepts.

    Returns:
        The numpy dtype that stores that type (``DALIDataType.FLOAT`` -> ``float32``).

    Raises:
        TypeError: If ``x`` names no type, or a DALI type with no numpy equivalent
            (``NO_TYPE``, ``STRING``, the enum and vector types).

    Example:
        >>> np_dtype(DALIDataType.FLOAT16), np_dtype("float"), np_dtype(np.uint8)
        (dtype('float16'), dtype('float32'), dtype('uint8'))
    """
    if isinstance(x, np.dtype) and (x.kind, x.itemsize) in DALI_BY_KIND:
        return x if x.isnative else x.newbyteorder("=")
    dali = dali_dtype(x)
    found = NP_BY_DALI.get(dali)
    if found is None:
        raise TypeError(f"{dali} has no numpy equivalent; expected {_SUPPORTED}.")
    return found


def type_name(x: Any) -> str:
    """DALI's spelling of a type in its error messages.

    Args:
        x: Anything :func:`dali_dtype` accepts.

    Returns:
        ``"uint8"``, ``"int32"``, ``"float"`` (FLOAT), ``"double"`` (FLOAT64), ``"float16"``,
        ``"bool"``, ``"list of int"``, ...

    Example:
        >>> type_name(np.float32), type_name(DALIDataType.FLOAT64), type_name("uint8")
        ('float', 'double', 'uint8')
    """
    return _TYPE_NAMES[dali_dtype(x)]


def to_numpy_type(dali_type: Any) -> type:
    """Convert a :class:`DALIDataType` to the numpy scalar type (``FLOAT`` -> ``np.float32``).

    Args:
        dali_type: The DALI type (or its int value).

    Returns:
        The numpy scalar type, e.g. ``numpy.float32``.

    Raises:
        TypeError: For types with no numpy equivalent.
    """
    return np_dtype(dali_type).type


def to_dali_type(framework_type: Any) -> DALIDataType:
    """Convert a numpy or torch dtype (or its name) to a :class:`DALIDataType`.

    Torch dtypes are recognised by their ``str()`` (``"torch.float32"``), so torch is never
    imported.

    Args:
        framework_type: ``np.dtype("float32")``, ``np.float32``, ``torch.uint8``, ``"int64"``...

    Returns:
        The matching ``DALIDataType``.

    Raises:
        TypeError: ``"'<x>' could not be converted into any known DALIDataType."``
    """
    found = _from_name(str(framework_type))
    if found is None and not isinstance(framework_type, (str, int, np.integer, _PybindEnum)):
        try:  # numpy scalar types (np.float32), which DALI itself does not take
            found = dali_dtype(framework_type)
        except TypeError:
            pass
    if found is None:
        raise TypeError(f"'{framework_type}' could not be converted into any known DALIDataType.")
    return found


# --------------------------------------------------------------------------------------------
# Layouts and sample/batch descriptors
# --------------------------------------------------------------------------------------------


class TensorLayout:
    """A layout string such as ``"HWC"``: compares equal to ``str``, has ``len()``, no indexing.

    Operator arguments take plain strings; this class exists for compatibility with code that
    builds layouts explicitly.

    Example:
        >>> TensorLayout("HWC") == "HWC", len(TensorLayout("HWC")), str(TensorLayout("HW"))
        (True, 3, 'HW')
    """

    __slots__ = ("_s",)

    def __init__(self, layout: str | TensorLayout) -> None:
        if not isinstance(layout, (str, TensorLayout)):
            raise TypeError(f"TensorLayout expects a str, got {type(layout).__name__}.")
        self._s = str(layout)

    def __str__(self) -> str:
        return self._s

    def __repr__(self) -> str:
        return f"dali.types.TensorLayout({self._s!r})"

    def __len__(self) -> int:
        return len(self._s)

    def __hash__(self) -> int:
        return hash(self._s)

    def _compare(self, other: object, op: Callable[[str, str], bool], if_none: bool) -> bool:
        # With None, the results are those of DALI's bindings (`TensorLayout("HW") < None`).
        if other is None:
            return if_none
        if not isinstance(other, (str, TensorLayout)):
            # for the operator methods to return; typeshed types the constant Any
            return NotImplemented  # type: ignore[no-any-return]
        return op(self._s, str(other))

    def __eq__(self, other: object) -> bool:
        return self._compare(other, operator.eq, False)

    def __ne__(self, other: object) -> bool:
        return self._compare(other, operator.ne, True)

    def __lt__(self, other: object) -> bool:
        return self._compare(other, operator.lt, True)

    def __le__(self, other: object) -> bool:
        return self._compare(other, operator.le, True)

    def __gt__(self, other: object) -> bool:
        return self._compare(other, operator.gt, False)

    def __ge__(self, other: object) -> bool:
        return self._compare(other, operator.ge, False)


class SampleInfo(NamedTuple):
    """Which sample an ``external_source`` per-sample callback is asked for.

    Attributes:
        idx_in_epoch: 0-based index of the sample within the epoch.
        idx_in_batch: 0-based index of the sample within the batch.
        iteration: Number of the current batch within the epoch.
        epoch_idx: Number of the current epoch.
    """

    idx_in_epoch: int
    idx_in_batch: int
    iteration: int
    epoch_idx: int


class BatchInfo(NamedTuple):
    """Which batch an ``external_source`` batch callback (``batch_info=True``) is asked for.

    Attributes:
        iteration: Number of the current batch within the epoch.
        epoch_idx: Number of the current epoch.
    """

    iteration: int
    epoch_idx: int
