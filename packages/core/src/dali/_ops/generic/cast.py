"""`fn.cast` and `fn.cast_like` (DALI §3.18), and the conversion helpers every operator shares.

DALI converts between element types with saturation (its ``ConvertSat``): a float becomes an
integer by rounding to nearest with halves **away from zero** and clamping to the target range
(``[-1.5, 2.5, 0.5, -0.5]`` → INT32 ``[-2, 3, 1, -1]``, → UINT8 ``[0, 3, 1, 0]``, ``300.0`` →
UINT8 ``255``), an integer that does not fit the target type is clamped, a float too large for
FLOAT16 becomes ``inf`` (``70000.0`` → ``inf``), and anything becomes BOOL as ``x != 0``.

The helpers are written against an *array module* ``xp`` (numpy for CPU batches, CuPy for GPU
batches, see `array_module`), so an operator's CPU and GPU backends share one body. They also
hold the small argument plumbing the image and generic operators share (per-sample scalar and
vector arguments, uniformity checks).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.array([-1.5, 2.5, 0.5, -0.5, 300.0], dtype=np.float32))
    ...     return fn.cast(x, dtype=types.UINT8), fn.cast(x, dtype=types.INT32)
    >>> u8, i32 = pipe().run()
    >>> u8.as_array()[0].tolist(), i32.as_array()[0].tolist()
    ([0, 3, 1, 0, 255], [-2, 3, 1, -1, 300])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator

__all__ = [
    "Cast",
    "CastLike",
    "array_module",
    "batch_array",
    "convert_sat",
    "host_samples",
    "per_sample_scalars",
    "per_sample_vectors",
    "round_half_away",
    "round_half_away_int",
    "run_per_sample",
    "same_rows",
]


# --------------------------------------------------------------------------------------------
# Array module and conversions
# --------------------------------------------------------------------------------------------


def array_module(tl: Any) -> tuple[Any, type]:
    """The array module (numpy or CuPy) and TensorList class of a batch.

    CuPy is imported only for a GPU batch, so CPU pipelines never touch it.
    """
    from dali._tensors import TensorListCPU, TensorListGPU

    if isinstance(tl, TensorListGPU):
        import cupy

        return cupy, TensorListGPU
    return np, TensorListCPU


def batch_array(tl: Any, xp: Any) -> Any:
    """The batch as one ``(B, ...)`` array when that is cheap, else None.

    On the CPU only a batch already stored dense qualifies: stacking a list of samples (what
    per-sample producers such as decoders and resize give) would copy the whole batch before
    the operator even starts, so per-sample work is faster there. On the GPU one stack is
    cheaper than a kernel launch per sample.
    """
    if xp is np:
        return tl._dense_arr
    return tl._dense()


def host_samples(tl: Any) -> list[np.ndarray]:
    """The samples of a batch as numpy arrays (a GPU batch is copied to the host)."""
    if hasattr(tl, "as_cpu") and type(tl).__name__ == "TensorListGPU":
        tl = tl.as_cpu()
    return [np.asarray(s) for s in tl._samples()]


def round_half_away_int(a: float) -> int:
    """C's ``std::round`` of one (double) value, as an int: halves away from zero.

    ``a - trunc(a)`` is exact, so no double rounding can move a value across the half.
    """
    t = float(np.trunc(a))
    frac = a - t
    return int(t + (1.0 if frac >= 0.5 else (-1.0 if frac <= -0.5 else 0.0)))


def _round_nonneg(xp: Any, a: Any) -> Any:
    """Round non-negative floats half up: ``rint`` (halves to even, one fast pass) then +1
    where a half went down, found exactly by ``rint(a) - a == -0.5``. (``floor(a + 0.5)``
    would be wrong for the float just below 0.5: the sum rounds up to 1.0.)"""
    r = xp.rint(a)
    r += (r - a) == -0.5
    return r


def round_half_away(xp: Any, x: Any) -> Any:
    """Round floats to nearest, halves away from zero (C's ``round``), keeping the dtype."""
    return xp.copysign(_round_nonneg(xp, xp.abs(x)), x)


def _int_bounds_in(dtype: np.dtype[Any], src: np.dtype[Any]) -> tuple[Any, Any] | None:
    """Clamp bounds for an integer→integer conversion, as values of ``src`` (None: none needed)."""
    ti, si = np.iinfo(dtype), np.iinfo(src)
    lo, hi = max(ti.min, si.min), min(ti.max, si.max)
    if lo <= si.min and hi >= si.max:
        return None
    return src.type(lo), src.type(hi)


def convert_sat(xp: Any, x: Any, dtype: Any, *, truncate: bool = False) -> Any:
    """Convert an array to ``dtype`` with DALI's saturating rules (see the module docstring).

    Args:
        xp: numpy or CuPy.
        x: The array (any numeric or bool dtype).
        dtype: The target numpy dtype.
        truncate: Float to integer truncates toward zero instead of rounding (what DALI's
            crop and slice kernels do; `cast` and `crop_mirror_normalize` round).

    Returns:
        A new array of ``dtype`` (or ``x`` itself when it already has that dtype).
    """
    dtype = np.dtype(dtype)
    src = x.dtype
    if src == dtype:
        return x
    if dtype.kind == "b":
        if src.kind == "f":  # DALI rounds first: 0.49 -> False, 0.5 -> True, NaN -> True
            return (xp.trunc(x) if truncate else round_half_away(xp, x)) != 0
        return x != 0
    if truncate and src.kind == "f" and dtype.kind in "iu":
        x = xp.trunc(x)
    if dtype.kind == "f" or src.kind == "b":
        with np.errstate(over="ignore", invalid="ignore"):  # float16 overflow gives inf
            return x.astype(dtype)
    if src.kind in "iu":
        bounds = _int_bounds_in(dtype, src)
        if bounds is not None:
            x = xp.clip(x, bounds[0], bounds[1])
        return x.astype(dtype)
    # float -> integer: round half away from zero, then saturate
    if src.itemsize < 4:  # float16 cannot even hold the bounds of the wider integer types
        x = x.astype(np.float32)
        src = x.dtype
    info = np.iinfo(dtype)
    lo, hi = src.type(info.min), src.type(info.max)
    if int(lo) == info.min and int(hi) == info.max:  # the bounds are exact in the float type
        # clamping first is the same (the bounds are integers) and shrinks what is rounded
        y = xp.clip(x, lo, hi)
        r = _round_nonneg(xp, y) if info.min == 0 else round_half_away(xp, y)
        with np.errstate(invalid="ignore"):
            out = r.astype(dtype)
        if src.kind == "f":
            out = xp.where(xp.isnan(x), _nan_as(dtype), out) if _may_have_nan(xp, x) else out
        return out
    # 32/64-bit targets whose limits round up in the float type: clamp by masks
    r = round_half_away(xp, x)
    with np.errstate(invalid="ignore", over="ignore"):
        out = xp.clip(r, lo, hi).astype(dtype)
    out = xp.where(r >= hi, dtype.type(info.max), out)
    out = xp.where(r <= lo, dtype.type(info.min), out)
    return xp.where(xp.isnan(x), _nan_as(dtype), out)


def _nan_as(dtype: np.dtype[Any]) -> Any:
    """NaN converted to an integer type, as DALI 2.4 does on x86: the type's minimum for signed
    types (INT32: -2147483648, checked by the conformance session), 0 for unsigned ones."""
    return dtype.type(np.iinfo(dtype).min) if dtype.kind == "i" else dtype.type(0)


def _may_have_nan(xp: Any, x: Any) -> bool:
    if xp is not np:
        return True  # checking would synchronize; the where() is cheap on the device
    return bool(np.isnan(np.min(x))) if x.size else False


def run_per_sample(ws: Any, xp: Any, fn: Any, n: int) -> list[Any]:
    """Run ``fn(i)`` for every sample: on the thread pool for numpy, in order for CuPy.

    GPU work stays on the calling thread (the current device and stream); an error is
    re-raised as `SampleFailure` so that the pipeline's message names the sample.
    """
    from dali._exec.workspace import SampleFailure

    if xp is np:
        return ws.map(fn, n)
    out = []
    for i in range(n):
        try:
            out.append(fn(i))
        except SampleFailure:
            raise
        except Exception as e:
            raise SampleFailure(i, e) from e
    return out


# --------------------------------------------------------------------------------------------
# Per-sample argument helpers (argument inputs always live on the CPU)
# --------------------------------------------------------------------------------------------


def per_sample_scalars(ws: Any, op: Operator, name: str, dtype: Any = np.float64) -> np.ndarray:
    """A scalar argument as one value per sample: a ``(batch,)`` array.

    Raises:
        OperatorError: naming the argument, when a per-sample value is not a single number.
    """
    n = ws.batch_size
    if not ws.is_tensor_arg(name):
        return np.full(n, op.arg(name), dtype=dtype)
    out = np.empty(n, dtype=dtype)
    for i, v in enumerate(ws.arg_samples(name)):
        v = np.asarray(v)
        if v.size != 1:
            raise op.arg_error(
                name, f"sample {i}: expected a scalar per sample, got shape {tuple(v.shape)}"
            )
        out[i] = v.reshape(())
    return out


def per_sample_vectors(ws: Any, op: Operator, name: str, dtype: Any = np.float64) -> list[Any]:
    """A vector argument as one 1-D array per sample (constants are repeated)."""
    if not ws.is_tensor_arg(name):
        value = op.arg(name)
        v = np.asarray(value if isinstance(value, (list, tuple)) else [value], dtype=dtype)
        return [v] * ws.batch_size
    return [np.asarray(v, dtype=dtype).reshape(-1) for v in ws.arg_samples(name)]


def same_rows(values: Sequence[Any]) -> bool:
    """Whether every per-sample value is equal (then a batch can be processed in one go)."""
    if not values:
        return True
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if np.shape(v) != np.shape(first) or not np.array_equal(v, first):
            return False
    return True


# --------------------------------------------------------------------------------------------
# The operators
# --------------------------------------------------------------------------------------------


def _cast_batch(tl: Any, dtype: np.dtype[Any]) -> Any:
    xp, tl_cls = array_module(tl)
    if tl._np_dtype == dtype:
        dense = tl._dense()
        if dense is not None:
            return tl_cls._make(xp.array(dense, copy=True), tl._layout)
        return tl_cls._make([xp.array(s, copy=True) for s in tl._samples()], tl._layout)
    dense = tl._dense()
    if dense is not None:
        return tl_cls._make(xp.ascontiguousarray(convert_sat(xp, dense, dtype)), tl._layout)
    samples = [convert_sat(xp, s, dtype) for s in tl._samples()]
    return tl_cls._make(samples, tl._layout, dtype=dtype, ndim=tl._ndim)


@register(
    "cast",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[Arg("dtype", "dtype", default=REQUIRED, doc="The output data type.")],
)
class Cast(Operator):
    """Cast the data to ``dtype``: floats round half away from zero, integers saturate.

    ``fn.cast(x, dtype=types.UINT8)`` maps ``[-1.5, 2.5, 300.0]`` to ``[0, 3, 255]``; casting
    ``70000.0`` to FLOAT16 gives ``inf``; any type cast to BOOL is ``x != 0``.
    """

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        dtype = self.arg("dtype")
        if not dtype:
            raise self.arg_error("dtype", "is required")
        try:
            self._dtype = np_dtype(dtype)
        except TypeError:
            raise self.arg_error(
                "dtype", f"cannot cast to {type_name(dtype)}: not a numeric type"
            ) from None

    def run_cpu(self, ws: Any) -> Any:
        return _cast_batch(ws.inputs[0], self._dtype)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [{"dtype": node.scalar_args.get("dtype"), "ndim": src.ndim, "layout": src.layout}]


@register(
    "cast_like",
    devices=("cpu", "gpu"),
    inputs=2,
    input_names=("input", "like"),
)
class CastLike(Operator):
    """Cast the first input to the data type of the second (same rules as `fn.cast`)."""

    def run_cpu(self, ws: Any) -> Any:
        return _cast_batch(ws.inputs[0], ws.inputs[1]._np_dtype)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src, like = node.inputs
        return [{"dtype": like.dtype, "ndim": src.ndim, "layout": src.layout}]
