"""`fn.reductions.*`: min, max, sum, mean, mean_square, rms, std_dev and variance over axes.

Each operator reduces every sample over the axes that ``axes`` or ``axis_names`` name (all of
them when neither is given; none with ``axes=[]``), dropping them from the shape and the layout
unless ``keep_dims`` (`dali._ops.reductions.axes`). ``std_dev`` and ``variance`` take the mean
as a second input, FLOAT, shaped as their output (the reduced axes dropped or kept as 1: what
``fn.reductions.mean`` with the same axes gives), and divide by ``N - ddof``.

Types (DALI 2.4's, checked against it; inputs: 8- to 64-bit integers and FLOAT):

==============  =========================  ==============================================
operator        default output             ``dtype`` may be
==============  =========================  ==============================================
min, max        the input's                (no ``dtype``)
sum             (U)INT64 for integers of   the input's, (U)INT64 or FLOAT for integers of
                up to 32 bits, else the    up to 32 bits; nothing else for 64-bit ones
                input's                    and FLOAT
mean, rms       FLOAT                      the input's, or FLOAT
mean_square     FLOAT                      (U)INT64 of the input's sign, or FLOAT
std_dev,        FLOAT                      (no ``dtype``)
variance
==============  =========================  ==============================================

Integer outputs are accumulated in that type and wrap around, and a mean in an integer type is
truncated, as DALI's C++ does (`dali._ops.reductions.arith`); float outputs are summed in float64
here (DALI: float32 pairwise), so they may differ from DALI's in the last bits.

The CPU backend reduces the whole batch in one vectorised call where the samples are uniform
(split over the pipeline's threads when the batch is large) and sample by sample on the
threads otherwise; the GPU backend runs the same arithmetic with CuPy.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.arange(6, dtype=np.uint8).reshape(2, 3)],
    ...                            layout="HW")
    ...     return fn.reductions.sum(x, axis_names="W"), fn.reductions.mean(x, keep_dims=True)
    >>> s, m = pipe().run()
    >>> s.at(0).tolist(), s.dtype.name, s.layout(), m.at(0).tolist(), m.layout()
    ([3, 12], 'UINT64', 'H', [[2.5]], 'HW')
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dali._dtypes import DALIDataType, dali_dtype, np_dtype, type_name
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module
from dali._ops.reductions import _fused, arith
from dali._ops.reductions.axes import ReduceAxes

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Max", "Mean", "MeanSquare", "Min", "RMS", "StdDev", "Sum", "Variance"]  # noqa: RUF022

_F32 = np.dtype(np.float32)
#: The input types of every reduction (DALI's REDUCE_TYPES).
_INPUTS = frozenset(
    np.dtype(t)
    for t in (
        np.uint8,
        np.int8,
        np.uint16,
        np.int16,
        np.uint32,
        np.int32,
        np.uint64,
        np.int64,
        np.float32,
    )
)
#: Uniform batches up to this many elements per sample are stacked for one vectorised call
#: (a list of larger samples is reduced sample by sample on the threads instead of copied).
_STACK_ELEMENTS = 1 << 16
#: Dense batches of more elements than this are split over the pipeline's threads.
_SPLIT_ELEMENTS = 1 << 18


def _wide(t: np.dtype[Any]) -> np.dtype[Any]:
    """(U)INT64 of an integer type's sign; FLOAT stays FLOAT."""
    if t.kind == "u":
        return np.dtype(np.uint64)
    if t.kind == "i":
        return np.dtype(np.int64)
    return t


def _axes_args() -> list[Arg]:
    return [
        Arg(
            "axes",
            "int_vec",
            doc="Axes to reduce (negative from the end); [] reduces none; default: all.",
        ),
        Arg("axis_names", "layout", doc='Axes to reduce, by layout name ("" reduces none).'),
        Arg("keep_dims", "bool", default=False, doc="Keep the reduced axes with extent 1."),
    ]


_DTYPE_ARG = Arg("dtype", "dtype", doc="Output (and accumulation) type.")
_DDOF_ARG = Arg("ddof", "int", default=0, doc="Delta degrees of freedom: divide by N - ddof.")


class _Reduction(Operator):
    """What the eight reductions share: the axes, the types, the batch strategy."""

    #: "min", "max", "sum", "mean", "mean_square", "rms", "std_dev" or "variance".
    KIND: ClassVar[str] = ""

    def setup(self) -> None:
        self._axes = ReduceAxes.from_op(self)
        self._dtype: np.dtype[Any] | None = None
        if self.schema.args.get("dtype") is not None and self.has_arg("dtype"):
            self._dtype = np_dtype(self.arg("dtype"))
            if self._dtype not in self._possible_outputs():
                raise self.arg_error(
                    "dtype",
                    f"{type_name(self.arg('dtype'))} is not an output type of this operator",
                )

    # -- types ------------------------------------------------------------------------------
    def _possible_outputs(self) -> frozenset[np.dtype[Any]]:
        return frozenset(o for t in _INPUTS for o in self._allowed(t))

    def _allowed(self, t: np.dtype[Any]) -> tuple[np.dtype[Any], ...]:
        """The output types the input type ``t`` may give (the default first)."""
        kind = self.KIND
        if kind in ("min", "max"):
            return (t,)
        if kind in ("std_dev", "variance"):
            return (_F32,)
        if kind == "sum":
            if t.kind == "f" or t.itemsize == 8:
                return (t,)
            return (_wide(t), t, _F32)
        if kind == "mean_square":
            return (_F32,) if t.kind == "f" else (_F32, _wide(t))
        return (_F32,) if t.kind == "f" else (_F32, t)  # mean, rms

    def _out_dtype(self, t: np.dtype[Any]) -> np.dtype[Any]:
        if t not in _INPUTS:
            raise self.error(f"Unsupported input type: {type_name(dali_dtype(t))}")
        allowed = self._allowed(t)
        if self._dtype is None:
            return allowed[0]
        if self._dtype not in allowed:
            raise self.error(
                f"Unsupported types: {type_name(dali_dtype(t))}, "
                f"{type_name(dali_dtype(self._dtype))} (`dtype` for {type_name(dali_dtype(t))} "
                f"input may be: {', '.join(type_name(dali_dtype(a)) for a in allowed)})"
            )
        return self._dtype

    # -- running ------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        out_dtype = self._out_dtype(np.dtype(tl.np_dtype))
        ndim, layout = tl.sample_ndim, tl.layout()
        axes = self._axes.resolve(self, ndim, layout)
        out_layout = self._axes.out_layout(layout, axes)
        out_ndim = ndim if self._axes.keep_dims else ndim - len(axes)
        n = len(tl)
        if n == 0:
            return tl_cls.wrap([], out_layout, dtype=out_dtype, ndim=out_ndim)
        means = self._means(ws, n, axes) if self.KIND in ("std_dev", "variance") else None
        samples = tl.samples()
        shapes = [tuple(s.shape) for s in samples]
        dense = self._dense(tl, xp, shapes)
        if dense is not None:
            out = self._run_dense(ws, xp, dense, axes, out_dtype, means)
            return tl_cls.wrap(out.reshape(n, *self._axes.out_shape(shapes[0], axes)), out_layout)

        def one(i: int) -> Any:
            s = samples[i]
            m = None if means is None else xp.asarray(means[i])[None]  # batch axis, as `a`
            r = self._compute(xp, s[None], tuple(a + 1 for a in axes), out_dtype, m)
            return xp.ascontiguousarray(r).reshape(self._axes.out_shape(s.shape, axes))

        if xp is np:
            outs = ws.map(one, n)
        else:
            outs = []
            for i in range(n):
                try:
                    outs.append(one(i))
                except Exception as e:
                    raise SampleFailure(i, e) from e
        return tl_cls.wrap(outs, out_layout)

    run_gpu = run_cpu

    @staticmethod
    def _dense(tl: Any, xp: Any, shapes: list[tuple[int, ...]]) -> Any:
        """The batch as one ``(B, ...)`` array where that is cheap, else None."""
        held = tl.held_dense
        if held is not None:
            return held
        if shapes.count(shapes[0]) != len(shapes):
            return None
        if xp is not np or math.prod(shapes[0]) <= _STACK_ELEMENTS:
            return tl.dense()
        return None

    def _run_dense(
        self,
        ws: Workspace,
        xp: Any,
        dense: Any,
        axes: tuple[int, ...],
        out_dtype: np.dtype[Any],
        means: list[Any] | None,
    ) -> Any:
        """The whole batch in one vectorised call, or in one per thread for a large batch."""
        n = dense.shape[0]
        baxes = tuple(a + 1 for a in axes)
        mean = None
        if means is not None:
            mean = xp.stack([xp.asarray(m) for m in means])
        parts = min(n, ws.num_threads) if xp is np and dense.size > _SPLIT_ELEMENTS else 1
        if parts <= 1:
            return self._compute(xp, dense, baxes, out_dtype, mean)
        bounds = np.linspace(0, n, parts + 1).astype(int)

        def part(k: int) -> Any:
            lo, hi = int(bounds[k]), int(bounds[k + 1])
            m = None if mean is None else mean[lo:hi]
            return self._compute(xp, dense[lo:hi], baxes, out_dtype, m)

        return np.concatenate(ws.map(part, parts))

    # -- the mean input of std_dev and variance ------------------------------------------------
    def _means(self, ws: Workspace, n: int, axes: tuple[int, ...]) -> list[Any] | None:
        """The mean input, one array per sample shaped for broadcasting against its sample
        (the reduced axes kept with extent 1); None where it is not read (``axes=[]``).

        Raises:
            OperatorError: The mean is not FLOAT, or its shape is not the output's.
        """
        mtl = ws.inputs[1]
        if np.dtype(mtl.np_dtype) != _F32:
            raise self.error(
                f"the mean (input 1) must be FLOAT, got {type_name(dali_dtype(mtl.np_dtype))}"
            )
        if len(mtl) != n:
            raise self.error(f"the mean (input 1) has {len(mtl)} samples, the data {n}")
        if self._axes.explicit_empty:  # not read: the output is zeros
            return None
        data_shapes = [tuple(s.shape) for s in ws.inputs[0].samples()]
        out = []
        for i, (m, shape) in enumerate(zip(mtl.samples(), data_shapes)):
            kept = tuple(1 if d in axes else e for d, e in enumerate(shape))
            reduced = self._axes.out_shape(shape, axes)
            squeezed = [e for e in m.shape if e != 1]
            if m.size != math.prod(kept) or squeezed != [e for e in kept if e != 1]:
                raise SampleFailure(
                    i,
                    self.error(
                        f"the mean (input 1) has shape {tuple(m.shape)}; it must have the "
                        f"output's shape {reduced} (the reduced axes {list(axes)} of the input "
                        f"shape {shape} dropped, or kept with extent 1: {kept})"
                    ),
                )
            out.append(m.reshape(kept))
        return out

    # -- the arithmetic ------------------------------------------------------------------------
    def _compute(
        self,
        xp: Any,
        a: Any,
        axes: tuple[int, ...],
        out_dtype: np.dtype[Any],
        mean: Any,
    ) -> Any:
        """Reduce ``a`` (batch axis first) over ``axes``, keeping the dimensions."""
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            return self._compute_values(xp, a, axes, out_dtype, mean)

    def _compute_values(
        self,
        xp: Any,
        a: Any,
        axes: tuple[int, ...],
        out_dtype: np.dtype[Any],
        mean: Any,
    ) -> Any:
        kind = self.KIND
        if kind in ("min", "max"):
            if not axes:  # nothing reduced: the values as they are (NaN, inf included)
                return a.copy()
            return arith.min_max(xp, a, axes, kind)
        if kind in ("std_dev", "variance") and self._axes.explicit_empty:
            return xp.zeros(a.shape, _F32)  # DALI fills, reading neither data nor mean
        count = math.prod(a.shape[d] for d in axes)
        acc = None
        if xp is np and out_dtype.kind == "f":  # one pass, no temporary (the same sums)
            acc = _fused.accumulate(kind, a, axes, mean)
        if acc is None:
            if kind in ("sum", "mean"):
                pre = a
            elif kind in ("mean_square", "rms"):
                pre = arith.square(xp, a)
            else:
                mean = arith.expand_trailing(xp, mean, a.shape)
                d = xp.subtract(a, mean, dtype=_F32)
                pre = d * d  # float32, as DALI; summed in float64
            acc = arith.accumulate(xp, pre, axes, out_dtype)
        if kind == "sum":
            return acc if out_dtype.kind in "iu" else acc.astype(_F32)
        ddof = int(self.arg("ddof")) if kind in ("std_dev", "variance") else 0
        norm = np.float32(np.float64(1.0) / np.float64(count - ddof))
        r = acc.astype(_F32) * norm
        if kind in ("rms", "std_dev"):
            r = xp.sqrt(r)
        if out_dtype.kind in "iu":
            return arith.to_int_like_cpp(xp, r, out_dtype)
        return r

    # -- trace time -----------------------------------------------------------------------------
    @classmethod
    def static_meta(cls, node: Any) -> list[dict[str, Any]] | None:
        src = node.inputs[0]
        red = ReduceAxes.from_node(node)
        dtype = cls._static_dtype(node, src.dtype)
        meta: dict[str, Any] = {"dtype": dtype, "ndim": None, "layout": None}
        axes = None if red is None else red.static(src.ndim, src.layout)
        if red is None or axes is None:
            return [meta]
        meta["ndim"] = src.ndim if red.keep_dims else src.ndim - len(axes)
        if src.layout is not None:
            meta["layout"] = red.out_layout(src.layout, axes)
        if src.static_shape is not None:
            meta["static_shape"] = red.out_shape(src.static_shape, axes)
        return [meta]

    @classmethod
    def _static_dtype(cls, node: Any, src_dtype: Any) -> Any:
        if cls.KIND in ("std_dev", "variance"):
            return DALIDataType.FLOAT
        if "dtype" in node.scalar_args:
            return node.scalar_args["dtype"]
        if src_dtype is None:
            return None
        if cls.KIND in ("min", "max"):
            return src_dtype
        if cls.KIND == "sum":
            t = np_dtype(src_dtype)
            return dali_dtype(_wide(t)) if t in _INPUTS else src_dtype
        return DALIDataType.FLOAT


def _register(path: str, extra: list[Arg], *, mean_input: bool = False, **kw: Any) -> Any:
    """`register` with what every reduction has: CPU and GPU, the axes arguments, one input
    (``std_dev``/``variance``: the data and its mean)."""
    return register(
        path,
        devices=("cpu", "gpu"),
        inputs=2 if mean_input else 1,
        input_names=("data", "mean") if mean_input else ("input",),
        args=[*_axes_args(), *extra],
        **kw,
    )


@_register("reductions.min", [])
class Min(_Reduction):
    """The smallest element along the reduced axes (NaN skipped)."""

    KIND = "min"


@_register("reductions.max", [])
class Max(_Reduction):
    """The largest element along the reduced axes (NaN skipped)."""

    KIND = "max"


@_register("reductions.sum", [_DTYPE_ARG])
class Sum(_Reduction):
    """The sum of the elements along the reduced axes."""

    KIND = "sum"


@_register("reductions.mean", [_DTYPE_ARG])
class Mean(_Reduction):
    """The mean of the elements along the reduced axes."""

    KIND = "mean"


@_register("reductions.mean_square", [_DTYPE_ARG])
class MeanSquare(_Reduction):
    """The mean of the squared elements along the reduced axes."""

    KIND = "mean_square"


@_register("reductions.rms", [_DTYPE_ARG], class_name="RMS")
class RMS(_Reduction):
    """The root mean square of the elements along the reduced axes."""

    KIND = "rms"


@_register("reductions.std_dev", [_DDOF_ARG], mean_input=True)
class StdDev(_Reduction):
    """The standard deviation along the reduced axes around the given ``mean`` (input 1)."""

    KIND = "std_dev"


@_register("reductions.variance", [_DDOF_ARG], mean_input=True)
class Variance(_Reduction):
    """The variance along the reduced axes around the given ``mean`` (input 1)."""

    KIND = "variance"
