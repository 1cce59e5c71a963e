"""`fn.preemphasis_filter`: the first-order high-pass filter applied to speech before analysis.

``Y[t] = X[t] - coeff * X[t - 1]`` boosts the high frequencies, which speech carries with less
energy. Before the first sample, ``X[-1]`` is the border value: 0 (``"zero"``), ``X[0]``
(``"clamp"``, the default) or ``X[1]`` (``"reflect"``). Every sample is filtered as one flat
signal whatever its shape; the output has the input's shape and layout and the type ``dtype``
(float32 by default).

The arithmetic is DALI's CPU one (``dali/operators/audio/preemphasis_filter_op.cc``): the
products and differences in float32 (float64 for float64 input; integers are converted to
float32 first), then a saturating conversion to ``dtype`` (rounding halves away from zero,
`dali._ops.numeric.convert_sat`); a coefficient of 0 converts the input directly. The batch's
signals are filtered back to back in one buffer: on the CPU in one pass by a Numba kernel
(numpy without Numba: the same bits), on the GPU by a few element-wise launches. (DALI's own GPU kernel converts
to integer output types without rounding or saturation; ours rounds as its CPU does.)

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> x = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.preemphasis_filter(fn.external_source(lambda: [x]), preemph_coeff=0.5,
    ...                                  border="zero")
    >>> out, = pipe().run()
    >>> out.as_array()[0].tolist()
    [1.0, 1.5, 3.0, 6.0]
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, batch_array, convert_sat

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["PreemphasisFilter", "preemphasis"]

#: The input and output types of DALI's operator (``PREEMPH_TYPES``).
TYPES = frozenset(
    np.dtype(t)
    for t in (
        np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
        np.float32, np.float64,
    )
)  # fmt: skip
BORDERS = ("zero", "clamp", "reflect")


@functools.cache
def _kernel() -> Any:
    """The compiled one-pass filter, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def run(x, coeffs, starts, ends, before, y):  # type: ignore[no-untyped-def]  # pragma: no cover
        # x, coeffs, before and y of one float type: DALI's `x[t] - coeff * x[t - 1]`, no FMA
        for s in range(starts.shape[0]):
            a, b, c = starts[s], ends[s], coeffs[s]
            y[a] = x[a] - c * before[s]
            for t in range(a + 1, b):
                y[t] = x[t] - c * x[t - 1]

    return run


def preemphasis(
    xp: Any,
    x: Any,
    coeffs: np.ndarray,
    sizes: np.ndarray,
    border: str,
    out_dtype: np.dtype[Any],
    *,
    use_numba: bool | None = None,
) -> Any:
    """Filter the signals lying back to back in the 1-D array ``x``.

    Args:
        xp: numpy or CuPy.
        x: The signals, flat, one after the other.
        coeffs: One coefficient per signal (host float32).
        sizes: The length of each signal (host int64).
        border: ``"zero"``, ``"clamp"`` or ``"reflect"``.
        out_dtype: The output type.
        use_numba: CPU: force the compiled (True) or the numpy (False) path; None: the
            compiled one when Numba is installed. Both give the same bits.

    Returns:
        A new 1-D array of ``out_dtype``.
    """
    work = np.float64 if x.dtype == np.float64 else np.float32
    xw = x.astype(work, copy=False)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    keep = sizes > 0
    starts, ends, coeffs = starts[keep], ends[keep], coeffs[keep]
    if not len(starts):
        return convert_sat(xp, xw, out_dtype)
    dev = (lambda a: a) if xp is np else xp.asarray
    first = dev(starts)
    if border == "reflect":  # X[1]; a signal of one sample has none: X[0]
        before = xw[dev(np.where(starts + 1 < ends, starts + 1, starts))]
    elif border == "clamp":
        before = xw[first]
    else:
        before = xp.zeros(len(starts), work)
    kernel = _kernel() if xp is np and use_numba is not False else None
    if kernel is not None:
        y = np.empty_like(xw)
        kernel(xw, coeffs.astype(work), starts, ends, before, y)
    else:
        if use_numba and xp is np:
            raise RuntimeError("the compiled filter needs Numba (pip install numba)")
        prev = xp.empty_like(xw)
        prev[1:] = xw[:-1]
        prev[first] = before
        same = bool((coeffs == coeffs[0]).all())
        c = work(coeffs[0]) if same else dev(np.repeat(coeffs.astype(work), ends - starts))
        y = xw - c * prev
    y = convert_sat(xp, y, out_dtype)
    if border == "zero":  # DALI converts X[0] as it is
        y[first] = convert_sat(xp, x[first], out_dtype)
    zero = coeffs == 0
    if zero.any():  # DALI converts the signal as it is: no round trip through float32
        if xp is np:
            for a, b in zip(starts[zero], ends[zero]):
                y[a:b] = convert_sat(np, x[a:b], out_dtype)
        else:
            mask = xp.asarray(np.repeat(zero, ends - starts))
            y = xp.where(mask, convert_sat(xp, x, out_dtype), y)
    return y


@register(
    "preemphasis_filter",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("preemph_coeff", "float", default=0.97, tensor=True,
            doc="Preemphasis coefficient ``coeff`` (per sample)."),
        Arg("border", "str", default="clamp",
            doc='Border value policy: "zero", "clamp" or "reflect".'),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Data type for the output."),
    ],
)  # fmt: skip
class PreemphasisFilter(Operator):
    """Applies preemphasis filter to the input data.

    This filter, in simple form, can be expressed by the formula::

      Y[t] = X[t] - coeff * X[t-1]    if t > 1
      Y[t] = X[t] - coeff * X_border  if t == 0

    with ``X`` and ``Y`` being the input and output signal, respectively.

    The value of ``X_border`` depends on the ``border`` argument::

      X_border = 0                    if border_type == 'zero'
      X_border = X[0]                 if border_type == 'clamp'
      X_border = X[1]                 if border_type == 'reflect'

    Each sample is filtered as one flat signal (any shape); the output keeps its shape and
    layout. Input and output types: all integers, float32 and float64 (default output: float32).
    A one-sample signal with ``"reflect"`` uses ``X[0]`` (it has no ``X[1]``).
    """

    def setup(self) -> None:
        border = self.arg("border")
        if border not in BORDERS:
            raise self.arg_error("border", f'``border`` mode "{border}" is not supported.')
        self._out = np.dtype(np_dtype(self.arg("dtype")))
        if self._out not in TYPES:
            raise self.arg_error("dtype", f"Unsupported output type: {type_name(self._out)}")
        self._border = border

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        if tl.np_dtype not in TYPES:
            raise self.error(f"Unsupported input type: {type_name(tl.np_dtype)}")
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=self._out, ndim=tl.sample_ndim)
        coeffs = ws.arg_scalars("preemph_coeff", np.float32)
        shapes = [tuple(int(e) for e in s) for s in tl.shape()]
        sizes = np.array([math.prod(s) for s in shapes], np.int64)
        dense = batch_array(tl, xp)
        # the batch's signals back to back in one buffer (no copy when they already are)
        if dense is not None:
            flat = dense.reshape(-1)
        else:
            packed = tl.flat()
            flat = (
                packed[0]
                if packed is not None
                else xp.concatenate([s.reshape(-1) for s in tl.samples()])
            )
        y = preemphasis(xp, flat, coeffs, sizes, self._border, self._out)
        if dense is not None:
            return cls.wrap(y.reshape(dense.shape), layout)
        return cls.wrap_flat(y, shapes, layout, tl.sample_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        dtype = node.scalar_args.get("dtype", DALIDataType.FLOAT)
        return like_input(node, dtype=dtype)
