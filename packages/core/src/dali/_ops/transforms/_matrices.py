"""The float32 arithmetic of DALI's affine transform generators, for many matrices at once.

Every function takes its parameters as arrays with a leading *row* axis (one row per matrix
to make: a sample, or a frame of a sequence) and returns ``(rows, n + 1, n + 1)`` float32
homogeneous matrices (the last row ``[0, ..., 0, 1]``). A row axis of length 1 broadcasts
against any other (a constant argument is computed once).

The operations and their order are DALI's C++ ones, in float32: an angle in degrees becomes
radians as ``deg * float32(pi / 180)``; its cosine, sine and tangent are the C library's
``cosf``/``sinf``/``tanf`` (called through Numba; with numpy alone, the correctly rounded values,
which differ from those by an ulp at times); a product of matrices sums ``a[i, k] * b[k, j]`` over ``k`` in order, with no fused multiply-add.
The one known difference is the 3-D rotation axis: DALI normalises it with the SSE
reciprocal-square-root estimate and one Newton step (its result depends on the processor), this
with the exact ``1 / sqrt``: the entries may differ by an ulp or two.

With Numba, the rotations, the centring and the products run as compiled loops (`_jit`), the
same float32 operations in the same order: a batch of 64 matrices costs one call, not the
dozens of numpy calls on tiny arrays the numpy code makes (which remains without Numba).

Example:
    >>> import numpy as np
    >>> r = rotation2d(np.float32([[90.0]])[:, 0])
    >>> t = translation(np.float32([[1.0, 2.0]]))
    >>> compose(t, r)[0, :2].tolist()  # rotate by 90 degrees, then translate by (1, 2)
    [[-4.371138828673793e-08, -1.0, 1.0], [1.0, -4.371138828673793e-08, 2.0]]
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = [
    "compose",
    "cos_sin_deg",
    "crop_window",
    "deg2rad",
    "identity",
    "rotation2d",
    "rotation3d",
    "scaling",
    "shearing",
    "tan_deg",
    "translation",
    "with_center",
]

_F32 = np.float32
#: DALI's ``deg2rad(float)``: the factor rounded to float32 first.
_D2R = _F32(np.pi / 180)


def identity(rows: int, n: int) -> np.ndarray:
    """``rows`` homogeneous identity matrices of an ``n``-D transform."""
    out = np.zeros((rows, n + 1, n + 1), _F32)
    out.reshape(rows, -1)[:, :: n + 2] = 1
    return out


def _diagonal(mats: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` diagonal entries of homogeneous matrices, as a writable view."""
    return mats.reshape(len(mats), -1)[:, : n * (n + 2) : n + 2]


def _column(mats: np.ndarray, n: int) -> np.ndarray:
    """The translation column (rows ``0 … n−1`` of column ``n``), as a writable view."""
    return mats.reshape(len(mats), -1)[:, n : n * (n + 1) : n + 1]


def deg2rad(deg: np.ndarray) -> np.ndarray:
    """Degrees to radians as DALI's float overload computes it (one float32 product)."""
    return (np.asarray(deg, _F32) * _D2R).astype(_F32)


#: The JIT-compiled float32 libm kernel (`_libm`), False where Numba is missing.
_libm_kernel: Any = None
_COS, _SIN, _TAN = 0, 1, 2


def _libm() -> Any:
    """A Numba kernel calling the C library's ``cosf``/``sinf``/``tanf`` on a float32 array:
    the functions DALI's C++ calls, so the values are its own (they are not always the
    correctly rounded ones). Compiled once (cached on disk); False without Numba. It keeps the
    GIL, as the builders of `_jit` do."""
    global _libm_kernel
    if _libm_kernel is None:
        try:
            import math

            import numba
        except ImportError:  # numpy alone: correctly rounded values, within an ulp of libm's
            _libm_kernel = False
            return _libm_kernel

        @numba.njit(cache=True)
        def kernel(x: np.ndarray, which: int) -> np.ndarray:  # pragma: no cover - compiled
            out = np.empty_like(x)
            for i in range(x.size):
                v = x[i]
                if which == 0:
                    out[i] = math.cos(v)
                elif which == 1:
                    out[i] = math.sin(v)
                else:
                    out[i] = math.tan(v)
            return out

        _libm_kernel = kernel
    return _libm_kernel


def _f32(which: int, rad: np.ndarray) -> np.ndarray:
    """The cosine, sine or tangent (``which``) of float32 radians, as float32."""
    kernel = _libm()
    flat = np.ascontiguousarray(rad, _F32).reshape(-1)
    if kernel:
        return kernel(flat, which).reshape(rad.shape)
    fn = (np.cos, np.sin, np.tan)[which]
    with np.errstate(invalid="ignore"):
        return fn(flat.astype(np.float64)).astype(_F32).reshape(rad.shape)


def cos_sin_deg(deg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` and ``sin`` of ``deg2rad(deg)`` in float32, as DALI's rotations compute them."""
    rad = deg2rad(deg)
    return _f32(_COS, rad), _f32(_SIN, rad)


@functools.cache
def _jit() -> Any:
    """The compiled builders of `rotation2d`, `rotation3d`, `with_center` and `compose`
    (Numba), or None without Numba. They keep the GIL: they run for a microsecond or two,
    and a thread giving the GIL up waits far longer to take it back from a busy one.

    Each is the numpy code's float32 operations in the same order (Numba fuses no
    multiply-add), with the cosine and sine of `_libm`: the same bits, in one call instead of
    tens of numpy calls on arrays of a few dozen values. A parameter with one row serves
    every row (the broadcasting of the numpy code); none may be empty."""
    try:
        import numba
    except ImportError:
        return None
    one, zero, d2r = _F32(1), _F32(0), _D2R
    f32 = np.float32

    @numba.njit(cache=True)
    def rotation2d(angle: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
        for i in range(len(out)):
            rad = angle[i] * d2r
            c, s = f32(math.cos(rad)), f32(math.sin(rad))
            out[i, 0, 0], out[i, 0, 1], out[i, 0, 2] = c, -s, zero
            out[i, 1, 0], out[i, 1, 1], out[i, 1, 2] = s, c, zero
            out[i, 2, 0], out[i, 2, 1], out[i, 2, 2] = zero, zero, one

    # error_model="numpy": a zero axis divides by zero into inf and NaN, as numpy does
    @numba.njit(cache=True, error_model="numpy")
    def rotation3d(
        axis: np.ndarray, angle: np.ndarray, out: np.ndarray
    ) -> None:  # pragma: no cover - compiled
        out[:] = zero
        for i in range(len(out)):
            out[i, 3, 3] = one
            ax = axis[i if len(axis) > 1 else 0]
            rad = angle[i if len(angle) > 1 else 0] * d2r
            if rad == 0:  # the identity, whatever the axis
                out[i, 0, 0], out[i, 1, 1], out[i, 2, 2] = one, one, one
                continue
            c, s = f32(math.cos(rad)), f32(math.sin(rad))
            lsq = ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]
            inv = f32(1.0 / math.sqrt(np.float64(lsq)))
            u, v, w = ax[0] * inv, ax[1] * inv, ax[2] * inv
            uu, vv, ww = u * u, v * v, w * w
            uv, uw, vw = u * v, u * w, v * w
            one_c = one - c
            out[i, 0, 0] = uu + (vv + ww) * c
            out[i, 0, 1] = uv * one_c - w * s
            out[i, 0, 2] = uw * one_c + v * s
            out[i, 1, 0] = uv * one_c + w * s
            out[i, 1, 1] = vv + (uu + ww) * c
            out[i, 1, 2] = vw * one_c - u * s
            out[i, 2, 0] = uw * one_c - v * s
            out[i, 2, 1] = vw * one_c + u * s
            out[i, 2, 2] = ww + (uu + vv) * c

    @numba.njit(cache=True)
    def with_center(
        mat: np.ndarray, center: np.ndarray, out: np.ndarray
    ) -> None:  # pragma: no cover - compiled
        n = center.shape[1]
        for i in range(len(out)):
            m = mat[i if len(mat) > 1 else 0]
            cen = center[i if len(center) > 1 else 0]
            out[i] = m
            for r in range(n):
                acc = m[r, 0] * -cen[0]
                for k in range(1, n):
                    acc = acc + m[r, k] * -cen[k]
                out[i, r, n] = acc + cen[r]

    @numba.njit(cache=True)
    def compose(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
        m = out.shape[1]
        for i in range(len(out)):
            x = a[i if len(a) > 1 else 0]
            y = b[i if len(b) > 1 else 0]
            for r in range(m):
                for j in range(m):
                    acc = x[r, 0] * y[0, j]
                    for k in range(1, m):
                        acc = acc + x[r, k] * y[k, j]
                    out[i, r, j] = acc

    return SimpleNamespace(
        rotation2d=rotation2d, rotation3d=rotation3d, with_center=with_center, compose=compose
    )


def _f32_rows(a: np.ndarray) -> np.ndarray:
    """``a`` as a C-contiguous float32 array (what the compiled builders take)."""
    return np.ascontiguousarray(a, _F32)


def tan_deg(deg: np.ndarray) -> np.ndarray:
    """``tan(deg2rad(deg))`` in float32, as DALI's shear ``angles`` become factors."""
    return _f32(_TAN, deg2rad(deg))


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The products ``a @ b`` of homogeneous matrices, in DALI's float32 order.

    ``out[i, j] = a[i, 0]·b[0, j] + a[i, 1]·b[1, j] + …``, each product and sum rounded to
    float32 (numpy's ``matmul`` would use BLAS, with another order and fused operations).
    """
    m = a.shape[-1]
    jit = _jit()
    if jit is not None and a.dtype == b.dtype == _F32 and len(a) and len(b):
        out = np.empty((max(len(a), len(b)), m, m), _F32)
        jit.compose(_f32_rows(a), _f32_rows(b), out)
        return out
    acc = a[:, :, 0, None] * b[:, None, 0, :]
    for k in range(1, m):
        acc = acc + a[:, :, k, None] * b[:, None, k, :]
    return acc


def _linear(mat: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``mat[:, :n, :n] · v`` per row, summed in order (DALI's ``mat * vec``)."""
    n = v.shape[-1]
    acc = mat[:, :n, 0] * v[:, None, 0]
    for k in range(1, n):
        acc = acc + mat[:, :n, k] * v[:, None, k]
    return acc


def with_center(mat: np.ndarray, center: np.ndarray | None) -> np.ndarray:
    """``mat`` made to keep ``center`` in place: the translation ``L·(−c) + c``, where ``L``
    is the linear part (DALI's rotation and shear ``center``)."""
    if center is None:
        return mat
    n = center.shape[-1]
    out = np.empty((max(len(mat), len(center)), n + 1, n + 1), _F32)
    jit = _jit()
    if jit is not None and len(mat) and len(center):
        jit.with_center(_f32_rows(mat), _f32_rows(center), out)
        return out
    out[...] = mat
    out[:, :n, n] = _linear(mat, -center) + center
    return out


def translation(offset: np.ndarray) -> np.ndarray:
    """Translations by ``(rows, n)`` offsets."""
    rows, n = offset.shape
    out = identity(rows, n)
    _column(out, n)[...] = offset
    return out


def scaling(scale: np.ndarray, center: np.ndarray | None) -> np.ndarray:
    """Scalings by ``(rows, n)`` factors about ``center`` (``(rows, n)``, or None: the
    origin): the translation is ``center · (1 − scale)``, as DALI computes it."""
    rows = max(len(scale), 1 if center is None else len(center))
    n = scale.shape[-1]
    out = identity(rows, n)
    _diagonal(out, n)[...] = scale
    if center is not None:
        _column(out, n)[...] = center * (_F32(1) - scale)
    return out


def rotation2d(angle: np.ndarray) -> np.ndarray:
    """Counter-clockwise 2-D rotations by ``(rows,)`` angles in degrees:
    ``[[c, −s, 0], [s, c, 0]]``."""
    jit = _jit()
    if jit is not None and len(angle):
        out = np.empty((len(angle), 3, 3), _F32)
        jit.rotation2d(_f32_rows(angle), out)
        return out
    rad = deg2rad(angle)
    c, s = _f32(_COS, rad), _f32(_SIN, rad)
    out = identity(len(rad), 2)
    out[:, 0, 0] = c
    out[:, 0, 1] = -s
    out[:, 1, 0] = s
    out[:, 1, 1] = c
    return out


def rotation3d(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """3-D rotations by ``(rows,)`` angles in degrees about ``(rows, 3)`` axes (any non-zero
    length; a zero axis gives NaN), right-handed (Rodrigues' formula as DALI writes it). A
    zero angle gives the identity whatever the axis."""
    rows = max(len(axis), len(angle))
    jit = _jit()
    if jit is not None and len(axis) and len(angle):
        out = np.empty((rows, 4, 4), _F32)
        jit.rotation3d(_f32_rows(axis), _f32_rows(angle), out)
        return out
    rad = deg2rad(angle)
    c, s = _f32(_COS, rad), _f32(_SIN, rad)
    lsq = axis[:, 0] * axis[:, 0] + axis[:, 1] * axis[:, 1] + axis[:, 2] * axis[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = (1.0 / np.sqrt(lsq.astype(np.float64))).astype(_F32)
        u, v, w = (axis * inv[:, None]).T
    uu, vv, ww = u * u, v * v, w * w
    uv, uw, vw = u * v, u * w, v * w
    one_c = _F32(1) - c
    out = identity(rows, 3)
    out[:, 0, 0] = uu + (vv + ww) * c
    out[:, 0, 1] = uv * one_c - w * s
    out[:, 0, 2] = uw * one_c + v * s
    out[:, 1, 0] = uv * one_c + w * s
    out[:, 1, 1] = vv + (uu + ww) * c
    out[:, 1, 2] = vw * one_c - u * s
    out[:, 2, 0] = uw * one_c - v * s
    out[:, 2, 1] = vw * one_c + u * s
    out[:, 2, 2] = ww + (uu + vv) * c
    zero = rad == 0
    if zero.any():
        out[np.broadcast_to(zero, (rows,))] = identity(1, 3)
    return out


def shearing(factors: np.ndarray) -> np.ndarray:
    """Shears by ``(rows, n·(n−1))`` factors (n = 2 or 3), row-major off the diagonal:
    2-D ``[[1, sx], [sy, 1]]``; 3-D ``[[1, s_xy, s_xz], [s_yx, 1, s_yz], [s_zx, s_zy, 1]]``."""
    rows, k = factors.shape
    n = 2 if k == 2 else 3
    out = identity(rows, n)
    out.reshape(rows, -1)[:, _OFF_DIAGONAL[n]] = factors
    return out


#: Per n (2, 3): the flat positions, in a homogeneous matrix, of the off-diagonal entries of
#: the linear part, row-major (where `shearing` puts its factors).
_OFF_DIAGONAL = {
    n: np.array([i * (n + 1) + j for i in range(n) for j in range(n) if i != j]) for n in (2, 3)
}


def crop_window(
    from_start: np.ndarray,
    from_end: np.ndarray,
    to_start: np.ndarray,
    to_end: np.ndarray,
    absolute: bool,
) -> np.ndarray:
    """The per-axis maps taking ``[from_start, from_end]`` onto ``[to_start, to_end]`` (each
    ``(rows, n)``): ``scale = (to_end − to_start) / (from_end − from_start)``, offset
    ``to_start − scale · from_start``. ``absolute`` orders every pair first (start ≤ end).
    A zero-length source extent gives infinite factors, as in DALI."""
    fs, fe, ts, te = from_start, from_end, to_start, to_end
    if absolute:
        fs, fe = np.minimum(fs, fe), np.maximum(fs, fe)
        ts, te = np.minimum(ts, te), np.maximum(ts, te)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (te - ts) / (fe - fs)
        offset = ts - scale * fs
    rows, n = scale.shape
    out = identity(rows, n)
    _diagonal(out, n)[...] = scale
    _column(out, n)[...] = offset
    return out
