"""Kernels of the arithmetic operations: array-module generic (numpy or CuPy).

`make_kernel` builds one function per operation and operand types (the operator caches it per
input types). Integer semantics are C's, as in DALI: ``//`` truncates toward zero, ``%`` takes
the sign of the dividend, ``min``/``max``/``clamp`` compare as ``l < r ? l : r``; ``rsqrt`` is
DALI's approximation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._ops.math._promotion import BOOL, F32, F64, FLOAT_FUNCS, OPS, promote

__all__ = ["Kernel", "make_kernel"]

_UFUNC2 = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "bitand": "bitwise_and",
    "bitor": "bitwise_or",
    "bitxor": "bitwise_xor",
    "lshift": "left_shift",
    "rshift": "right_shift",
    "fdiv": "true_divide",
    "fpow": "power",
    "atan2": "arctan2",
    "mod": "fmod",
    "eq": "equal",
    "neq": "not_equal",
    "lt": "less",
    "leq": "less_equal",
    "gt": "greater",
    "geq": "greater_equal",
}

Kernel = Callable[..., Any]


def _cast(x: Any, dtype: np.dtype[Any]) -> Any:
    return x if x.dtype == dtype else x.astype(dtype)


def _rsqrt(xp: Any, out: np.dtype[Any]) -> Kernel:
    """DALI's CPU ``rsqrt``: a 12-bit estimate refined by one Newton step (``rsqrt(1) < 1``).

    The estimate is ``1/sqrt(x)`` scaled by ``1 - 2**-12`` (what the SSE ``rsqrtss`` returns
    for powers of four), so ``rsqrt(1.0)`` is 0.99999994 as in DALI; the GPU backend uses the
    same formula so that both devices agree.
    """
    if out == F64:
        return lambda x: xp.reciprocal(xp.sqrt(_cast(x, out)))
    half, three_halves, scale = np.float32(0.5), np.float32(1.5), np.float32(1.0 - 2.0**-12)

    def kernel(x: Any) -> Any:
        x = _cast(x, F32)
        y = xp.reciprocal(xp.sqrt(x)) * scale
        y = y * (three_halves - x * half * y * y)
        return _cast(y, out)

    return kernel


def _trunc_div(xp: Any, out: np.dtype[Any]) -> Kernel:
    def kernel(a: Any, b: Any) -> Any:
        a, b = _cast(a, out), _cast(b, out)
        # a - fmod(a, b) is an exact multiple of b, so flooring it truncates toward zero;
        # b == 0 gives fmod 0 and a // 0 = 0.
        return xp.floor_divide(a - xp.fmod(a, b), b)

    return kernel


def _int_pow(xp: Any, out: np.dtype[Any]) -> Kernel:
    signed = out.kind == "i"

    def kernel(a: Any, b: Any) -> Any:
        a, b = _cast(a, out), _cast(b, out)
        # signed: `b` is an array or a numpy integer (`_cast` to the signed `out`)
        if not signed or (isinstance(b, np.integer) and b >= 0):
            return xp.power(a, b)
        neg = b < 0
        r = xp.power(a, xp.maximum(b, 0))
        # a ** -n truncated: 1 for a == 1, ±1 for a == -1, 0 otherwise.
        special = xp.where(a == 1, 1, xp.where(a == -1, 1 - 2 * (b & 1), 0))
        return xp.where(neg, _cast(xp.asarray(special), out), r)

    return kernel


def _select(xp: Any, out: np.dtype[Any], op: str) -> Kernel:
    # C's `l < r ? l : r` (not numpy's NaN-propagating minimum) for min, max and clamp.
    if op == "min":
        return lambda a, b: _where2(xp, out, a, b, True)
    if op == "max":
        return lambda a, b: _where2(xp, out, a, b, False)

    def clamp(v: Any, lo: Any, hi: Any) -> Any:
        v, lo, hi = _cast(v, out), _cast(lo, out), _cast(hi, out)
        return xp.where(v < lo, lo, xp.where(v > hi, hi, v))

    return clamp


def _where2(xp: Any, out: np.dtype[Any], a: Any, b: Any, less: bool) -> Any:
    a, b = _cast(a, out), _cast(b, out)
    return xp.where(a < b if less else a > b, a, b)


def _ufunc(f: Any, cast: np.dtype[Any] | None) -> Kernel:
    if cast is None:
        return f
    return lambda *args: f(*args, dtype=cast, casting="unsafe")


def make_kernel(
    op: str,
    operands: Sequence[np.dtype[Any]],
    tensors: Sequence[np.dtype[Any]],
    out: np.dtype[Any],
    xp: Any,
) -> tuple[Kernel, np.dtype[Any] | None]:
    """The kernel for ``op`` and the dtype to pre-cast the constants to.

    ``operands`` are the types of all operands, ``tensors`` those of the tensor inputs only:
    the constants are pre-cast, so a kernel casts only when a tensor input differs from the
    type it computes in.
    """
    needs_cast = any(t != out for t in tensors)
    cast = out if needs_cast else None
    if op == "neg":
        return xp.negative, out
    if op == "abs":
        return xp.absolute, out
    if op == "bitnot":
        return xp.invert, out
    if op in FLOAT_FUNCS:
        if op == "rsqrt":
            return _rsqrt(xp, out), out
        return _ufunc(getattr(xp, FLOAT_FUNCS[op]), cast), out
    if op == "div":
        if out.kind == "f":
            return _ufunc(xp.true_divide, cast), out
        if out.kind == "i":
            return _trunc_div(xp, out), out
        return _ufunc(xp.floor_divide, cast), out
    if op == "pow":
        if out.kind == "f":
            return _ufunc(xp.power, cast), out
        return _int_pow(xp, out), out
    if op in ("min", "max", "clamp"):
        return _select(xp, out, op), out
    if op == "mod" and out.kind == "f" and out != F64 and any(t.kind in "iub" for t in operands):
        # DALI computes a mixed integer/float modulo in double precision (checked against
        # DALI 2.4: (2**31 - 1) % 8.0 is 7.0, which float32 arithmetic would make 0.0)
        def mixed_mod(a: Any, b: Any) -> Any:
            return xp.fmod(_cast(a, F64), _cast(b, F64)).astype(out)

        return mixed_mod, F64
    if op in ("lshift", "rshift") and out.kind == "b":
        f = getattr(xp, _UFUNC2[op])
        return (lambda a, b: f(a, b, dtype=np.uint8, casting="unsafe").astype(BOOL)), out
    if OPS[op].rule == "bool":
        f = getattr(xp, _UFUNC2[op])
        if {t.kind for t in operands} == {"i", "u"} and any(t.itemsize == 8 for t in operands):
            # int64 cannot hold every uint64: let numpy compare by value (as DALI does)
            return f, None
        comp = operands[0]
        for t in operands[1:]:
            comp = promote(comp, t)
        if all(t == comp for t in tensors):
            return f, comp

        def compare(a: Any, b: Any) -> Any:
            return f(_cast(a, comp), _cast(b, comp))

        return compare, comp
    return _ufunc(getattr(xp, _UFUNC2[op]), cast), out
