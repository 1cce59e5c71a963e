"""``dali.math``: element-wise mathematical functions on DataNodes.

Each function adds one arithmetic node to the graph (see `dali._ops.math.arithmetic`), with
the same type rules as the Python operators: functions such as ``sqrt``, ``exp`` or ``floor``
give FLOAT for integer inputs (and keep a floating-point input's type), ``abs``, ``min``,
``max``, ``pow`` and ``clamp`` keep the promoted input type. Arguments may be DataNodes or
constants; at least one must be a DataNode.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import math, types
    >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.array([-2, 0, 5], dtype=np.int32))
    ...     return math.clamp(x, 0, 1), math.floor(x), math.sqrt(math.abs(x))
    >>> p = pipe(); p.build()
    >>> [(str(o.dtype), o.as_array()[0].tolist()) for o in p.run()]  # doctest: +NORMALIZE_WHITESPACE
    [('DALIDataType.INT32', [0, 0, 1]), ('DALIDataType.FLOAT', [-2.0, 0.0, 5.0]),
     ('DALIDataType.FLOAT', [1.4142135381698608, 0.0, 2.2360680103302])]
"""

from __future__ import annotations

from typing import Any

from dali._ops.math.arithmetic import arithmetic

__all__ = [  # noqa: RUF022 - plain sorted() order, as every public __all__
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "exp",
    "fabs",
    "floor",
    "fpow",
    "log",
    "log10",
    "log2",
    "max",
    "min",
    "pow",
    "rsqrt",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
]


def abs(input: Any) -> Any:
    """Absolute value, keeping the input type (``abs(int8(-128))`` wraps to -128).

    Example: ``dali.math.abs(x)`` is the same as ``abs(x)``.
    """
    return arithmetic("abs", input)


def fabs(input: Any) -> Any:
    """Absolute value as a floating-point number (FLOAT for integer inputs)."""
    return arithmetic("fabs", input)


def floor(input: Any) -> Any:
    """Round down; integer inputs give FLOAT (``floor(int32 3)`` is ``3.0``)."""
    return arithmetic("floor", input)


def ceil(input: Any) -> Any:
    """Round up; integer inputs give FLOAT."""
    return arithmetic("ceil", input)


def pow(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` in the promoted type (integer powers stay integers).

    Example: ``dali.math.pow(x, 2)`` squares an INT32 node into INT32.
    """
    return arithmetic("pow", base, exponent)


def fpow(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` computed in floating point (FLOAT when both are integers)."""
    return arithmetic("fpow", base, exponent)


def min(left: Any, right: Any) -> Any:
    """Element-wise minimum in the promoted type (C's ``l < r ? l : r``)."""
    return arithmetic("min", left, right)


def max(left: Any, right: Any) -> Any:
    """Element-wise maximum in the promoted type (C's ``l > r ? l : r``)."""
    return arithmetic("max", left, right)


def clamp(value: Any, lo: Any, hi: Any) -> Any:
    """Clamp ``value`` to ``[lo, hi]`` in the type promoted from all three arguments.

    Example: ``dali.math.clamp(int32_node, 0, 1)`` stays INT32.
    """
    return arithmetic("clamp", value, lo, hi)


def sqrt(input: Any) -> Any:
    """Square root (FLOAT for integer inputs)."""
    return arithmetic("sqrt", input)


def rsqrt(input: Any) -> Any:
    """Reciprocal square root, approximate as DALI's (``rsqrt(1.0)`` is 0.99999994)."""
    return arithmetic("rsqrt", input)


def cbrt(input: Any) -> Any:
    """Cube root (FLOAT for integer inputs)."""
    return arithmetic("cbrt", input)


def exp(input: Any) -> Any:
    """Natural exponential (FLOAT for integer inputs)."""
    return arithmetic("exp", input)


def log(input: Any) -> Any:
    """Natural logarithm (FLOAT for integer inputs)."""
    return arithmetic("log", input)


def log2(input: Any) -> Any:
    """Base-2 logarithm (FLOAT for integer inputs)."""
    return arithmetic("log2", input)


def log10(input: Any) -> Any:
    """Base-10 logarithm (FLOAT for integer inputs)."""
    return arithmetic("log10", input)


def sin(input: Any) -> Any:
    """Sine of an angle in radians (FLOAT for integer inputs)."""
    return arithmetic("sin", input)


def cos(input: Any) -> Any:
    """Cosine of an angle in radians (FLOAT for integer inputs)."""
    return arithmetic("cos", input)


def tan(input: Any) -> Any:
    """Tangent of an angle in radians (FLOAT for integer inputs)."""
    return arithmetic("tan", input)


def asin(input: Any) -> Any:
    """Arcsine in radians (FLOAT for integer inputs)."""
    return arithmetic("asin", input)


def acos(input: Any) -> Any:
    """Arccosine in radians (FLOAT for integer inputs)."""
    return arithmetic("acos", input)


def atan(input: Any) -> Any:
    """Arctangent in radians (FLOAT for integer inputs)."""
    return arithmetic("atan", input)


def atan2(x: Any, y: Any) -> Any:
    """``atan2(x, y)``: the angle of the point ``(y, x)``, as C's ``atan2(x, y)``.

    Integer inputs give FLOAT.
    """
    return arithmetic("atan2", x, y)


def sinh(input: Any) -> Any:
    """Hyperbolic sine (FLOAT for integer inputs)."""
    return arithmetic("sinh", input)


def cosh(input: Any) -> Any:
    """Hyperbolic cosine (FLOAT for integer inputs)."""
    return arithmetic("cosh", input)


def tanh(input: Any) -> Any:
    """Hyperbolic tangent (FLOAT for integer inputs)."""
    return arithmetic("tanh", input)


def asinh(input: Any) -> Any:
    """Inverse hyperbolic sine (FLOAT for integer inputs)."""
    return arithmetic("asinh", input)


def acosh(input: Any) -> Any:
    """Inverse hyperbolic cosine (FLOAT for integer inputs)."""
    return arithmetic("acosh", input)


def atanh(input: Any) -> Any:
    """Inverse hyperbolic tangent (FLOAT for integer inputs)."""
    return arithmetic("atanh", input)
