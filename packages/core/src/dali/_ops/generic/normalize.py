"""`fn.normalize`: ``out = scale · (in − mean) / stddev + shift``.

``mean`` and ``stddev`` are given (a number, or per-sample tensors of the input's rank whose
extents are 1 along the reduced axes) or computed over the reduced axes (``axes`` /
``axis_names``; by default all of them, or those where a given ``mean``/``stddev`` has extent 1),
per sample or, with ``batch=True``, over the whole batch. The variance divides by ``N − ddof``
and gets ``epsilon`` added before the square root. As in DALI, a zero standard deviation (with
no ``epsilon``) maps every value to ``shift`` instead of dividing by zero. Arithmetic is float32
(statistics are accumulated in float64); integer outputs are rounded half away from zero and
saturated.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.normalize(types.Constant(np.array([1.0, 2.0, 3.0], np.float32)))
    >>> [round(float(v), 4) for v in pipe().run()[0].as_array()[0]]
    [-1.2247, 0.0, 1.2247]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, convert_sat, run_per_sample
from dali._ops.window.axes import axes_from_args

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Normalize"]


def _sum(xp: Any, a: Any, axes: tuple[int, ...], squared: bool = False) -> Any:
    """Sum (of squares) over ``axes`` in float64, keeping the dimensions.

    numpy's ``einsum`` is ~2× faster than ``sum`` over strided axes (HW of an HWC image) and
    needs no float64 copy of the data.
    """
    if xp is not np:
        return (a * a if squared else a).sum(axis=axes, keepdims=True, dtype=np.float64)
    letters = "abcdefghijklmnopqrstuvwxyz"[: a.ndim]
    kept = "".join(c for i, c in enumerate(letters) if i not in axes)
    spec = f"{letters},{letters}->{kept}" if squared else f"{letters}->{kept}"
    operands = (a, a) if squared else (a,)
    total = np.einsum(spec, *operands, dtype=np.float64, casting="unsafe")
    return np.asarray(total).reshape([1 if i in axes else n for i, n in enumerate(a.shape)])


@register(
    "normalize",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("mean", "float", tensor=True, doc="Mean to subtract (default: computed)."),
        Arg("stddev", "float", tensor=True, doc="Standard deviation (default: computed)."),
        Arg("axes", "int_vec", default=(), doc="Reduced axes (default: all)."),
        Arg("axis_names", "layout", default="", doc="Reduced axes, by layout name."),
        Arg("batch", "bool", default=False, doc="Compute the statistics over the whole batch."),
        Arg("ddof", "int", default=0, doc="Delta degrees of freedom of the variance."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Output type (default FLOAT)."),
        Arg("epsilon", "float", default=0.0, doc="Added to the variance."),
        Arg("scale", "float", default=1.0, doc="Multiplies the normalised value."),
        Arg("shift", "float", default=0.0, doc="Added to the scaled value."),
    ],
)
class Normalize(Operator):
    """Normalise to zero mean and unit standard deviation (or the given ``mean``/``stddev``).

    ``fn.normalize(x)`` uses all axes of each sample; ``fn.normalize(img, axes=[0, 1])``
    normalises every channel of an HWC image separately; ``batch=True`` uses the statistics of
    the whole batch.
    """

    def setup(self) -> None:
        from dali._dtypes import np_dtype, type_name

        if self.has_arg("axes") and self.has_arg("axis_names"):
            raise self.arg_error("axis_names", "`axes` and `axis_names` are mutually exclusive")
        if self.arg("batch"):
            for name in ("mean", "stddev"):
                if self.is_tensor_arg(name):
                    raise self.arg_error(
                        name, "a non-scalar value cannot be used together with batch=True"
                    )
        if self.arg("epsilon") < 0:
            raise self.arg_error("epsilon", f"must not be negative, got {self.arg('epsilon')}")
        dtype = self.arg("dtype")
        self._dtype = np_dtype(dtype)
        if self._dtype.kind not in "iuf":
            raise self.arg_error("dtype", f"unsupported output type {type_name(dtype)}")
        if self.has_arg("stddev") and not self.is_tensor_arg("stddev") and self.arg("stddev") < 0:
            raise self.arg_error("stddev", f"must not be negative, got {self.arg('stddev')}")

    # -- reduced axes ------------------------------------------------------------------------
    def _axes(
        self, ws: Workspace, ndim: int, layout: str, shapes: list[tuple[int, ...]]
    ) -> list[int]:
        if self.has_arg("axis_names"):
            return axes_from_args(self, None, self.arg("axis_names"), ndim, layout)
        if self.has_arg("axes"):
            return sorted(set(axes_from_args(self, self.arg("axes"), None, ndim, layout)))
        for name in ("mean", "stddev"):
            if self.is_tensor_arg(name):
                return self._infer_axes(ws, name, ndim, shapes)
        return list(range(ndim))

    def _infer_axes(
        self, ws: Workspace, name: str, ndim: int, shapes: list[tuple[int, ...]]
    ) -> list[int]:
        found = None
        for i, p in enumerate(ws.arg_samples(name)):
            p = np.asarray(p)
            if p.ndim != ndim:
                raise SampleFailure(
                    i,
                    self.arg_error(
                        name, f"has {p.ndim} dimensions; it must have the input's {ndim}"
                    ),
                )
            axes = [d for d in range(ndim) if p.shape[d] == 1 and shapes[i][d] != 1]
            if found is None:
                found = axes
            elif axes != found:
                raise self.arg_error(
                    name, "the set of reduced axes must be the same for every sample"
                )
        return found or []

    def _param(
        self, ws: Workspace, name: str, i: int, shape: tuple[int, ...], axes: list[int]
    ) -> Any:
        p = np.asarray(ws.arg_samples(name)[i], dtype=np.float32)
        if p.size == 1 and p.ndim != len(shape):
            return p.reshape((1,) * len(shape))
        expect = tuple(1 if d in axes else shape[d] for d in range(len(shape)))
        if p.shape != expect and p.shape != tuple(1 for _ in shape):
            raise SampleFailure(
                i,
                self.arg_error(
                    name,
                    f"shape {p.shape} does not match the input shape {shape} with reduced axes "
                    f"{axes} (expected {expect})",
                ),
            )
        return p

    # -- statistics ----------------------------------------------------------------------------
    def _inv_from_var(self, xp: Any, var_sum: Any, count: int) -> Any:
        """DALI's ScaleRSqrtKeepZero: ``scale / sqrt(var + eps)``, 0 where that is 0."""
        eps = float(self.arg("epsilon"))
        scale = float(self.arg("scale"))
        ddof = int(self.arg("ddof"))
        if count > ddof:
            rdiv = 1.0 / (count - ddof)
        elif eps == 0:
            rdiv, scale = 1.0, 0.0
        else:
            rdiv = 0.0
        v = var_sum * rdiv + eps
        safe = xp.where(v > 0, v, 1.0)
        return xp.where(v > 0, scale / xp.sqrt(safe), 0.0).astype(np.float32)

    def _inv_from_std(self, xp: Any, std: Any) -> Any:
        eps = float(self.arg("epsilon"))
        scale = float(self.arg("scale"))
        std = xp.asarray(std, dtype=np.float64)
        v = std * std + eps if eps else std
        safe = xp.where(v != 0, v, 1.0)
        inv = scale / (xp.sqrt(safe) if eps else safe)
        return xp.where(v != 0, inv, 0.0).astype(np.float32)

    def _compute(
        self, xp: Any, x: Any, axes: tuple[int, ...], mean: Any, inv: Any, count: int
    ) -> Any:
        """Normalise ``x``; a ``mean``/``inv`` that is None is computed over ``axes`` (keepdims).

        The centred data ``x − mean`` is made once, in float32, and serves both the variance and
        the output (no float64 copy of the data).
        """
        if mean is None:
            mean = (_sum(xp, x, axes) / max(count, 1)).astype(np.float32)
        elif xp is not np:
            mean = xp.asarray(mean)
        d = xp.subtract(x, mean, dtype=np.float32)
        if inv is None:
            inv = self._inv_from_var(xp, _sum(xp, d, axes, squared=True), count)
        elif xp is not np:
            inv = xp.asarray(inv)
        d *= inv
        d += np.float32(self.arg("shift"))
        return xp.ascontiguousarray(convert_sat(xp, d, self._dtype))

    # -- running -----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        n, ndim, layout = len(tl), tl.sample_ndim, tl.layout()
        if n == 0:
            return tl_cls.wrap([], layout, dtype=self._dtype, ndim=ndim)
        samples = tl.samples()
        shapes = [tuple(s.shape) for s in samples]
        axes = self._axes(ws, ndim, layout, shapes)
        if self.arg("batch"):
            return tl_cls.wrap(self._run_batch(xp, tl, axes, shapes), layout)
        scalar_mean = self.has_arg("mean") and not self.is_tensor_arg("mean")
        scalar_std = self.has_arg("stddev") and not self.is_tensor_arg("stddev")

        def params(i: int) -> tuple[Any, Any]:
            shape = shapes[i]
            mean = None
            if scalar_mean:
                mean = np.full((1,) * ndim, self.arg("mean"), np.float32)
            elif self.has_arg("mean"):
                mean = self._param(ws, "mean", i, shape, axes)
            inv = None
            if scalar_std:
                inv = self._inv_from_std(np, np.full((1,) * ndim, self.arg("stddev")))
            elif self.has_arg("stddev"):
                inv = self._inv_from_std(np, self._param(ws, "stddev", i, shape, axes))
            return mean, inv

        def count(shape: tuple[int, ...]) -> int:
            return int(np.prod([shape[a] for a in axes])) if axes else 1

        dense = tl.dense()
        if dense is not None and not (self.is_tensor_arg("mean") or self.is_tensor_arg("stddev")):
            # one set of arguments: every sample's statistics in one reduction
            mean, inv = params(0)
            bm = None if mean is None else mean[None]
            binv = None if inv is None else inv[None]
            lead_axes = tuple(a + 1 for a in axes)
            out = self._compute(xp, dense, lead_axes, bm, binv, count(shapes[0]))
            return tl_cls.wrap(out, layout)

        def one(i: int) -> Any:
            mean, inv = params(i)
            return self._compute(xp, samples[i], tuple(axes), mean, inv, count(shapes[i]))

        return tl_cls.wrap(run_per_sample(ws, xp, one, n), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        """One kernel launch for the batch (`_normalize_gpu`); ``batch=True`` and samples of
        more than its dimensions take the array expressions of `run_cpu`."""
        from dali._ops.generic._normalize_gpu import MAX_DIMS, normalize_batch

        tl = ws.inputs[0]
        ndim = tl.sample_ndim
        if self.arg("batch") or ndim > MAX_DIMS:
            return self.run_cpu(ws)
        tensors = self.is_tensor_arg("mean") or self.is_tensor_arg("stddev")
        shapes = [tuple(s.shape) for s in tl.samples()] if tensors else []
        axes = self._axes(ws, ndim, tl.layout(), shapes)

        def groups(values: Any, shape: tuple[int, ...]) -> np.ndarray:
            """A sample's parameter at each of its groups, in C order over the kept axes."""
            kept_shape = tuple(1 if d in axes else shape[d] for d in range(ndim))
            return np.broadcast_to(values, kept_shape).reshape(-1)

        mean: Any = None
        if self.is_tensor_arg("mean"):
            mean = [groups(self._param(ws, "mean", i, s, axes), s) for i, s in enumerate(shapes)]
        elif self.has_arg("mean"):
            mean = float(np.float32(self.arg("mean")))
        inv: Any = None
        if self.is_tensor_arg("stddev"):
            inv = [
                groups(self._inv_from_std(np, self._param(ws, "stddev", i, s, axes)), s)
                for i, s in enumerate(shapes)
            ]
        elif self.has_arg("stddev"):
            inv = float(self._inv_from_std(np, np.float64(self.arg("stddev"))))
        return normalize_batch(
            tl,
            axes,
            mean=mean,
            inv=inv,
            scale=float(self.arg("scale")),
            epsilon=float(self.arg("epsilon")),
            ddof=int(self.arg("ddof")),
            shift=float(self.arg("shift")),
            dtype=self._dtype,
        )

    def _run_batch(self, xp: Any, tl: Any, axes: list[int], shapes: list[Any]) -> Any:
        ndim = tl.sample_ndim
        kept = [d for d in range(ndim) if d not in axes]
        ref = [shapes[0][d] for d in kept]
        for i, s in enumerate(shapes):
            if [s[d] for d in kept] != ref:
                raise SampleFailure(
                    i,
                    self.error(
                        f"batch=True needs equal extents in the non-reduced axes {kept}; sample "
                        f"{i} has shape {s}, sample 0 {shapes[0]}"
                    ),
                )
        samples = tl.samples()
        count = sum(int(np.prod([s[a] for a in axes])) if axes else 1 for s in shapes)
        ax = tuple(axes)
        if self.has_arg("mean"):
            mean = np.full((1,) * ndim, self.arg("mean"), np.float32)
            mean = mean if xp is np else xp.asarray(mean)
        else:
            total = sum(_sum(xp, s, ax) for s in samples)
            mean = (total / max(count, 1)).astype(np.float32)
        if self.has_arg("stddev"):
            inv = self._inv_from_std(xp, xp.full((1,) * ndim, self.arg("stddev")))
        else:
            var_sum = 0
            for s in samples:
                d = xp.subtract(s, mean, dtype=np.float32)
                var_sum = var_sum + _sum(xp, d, ax, squared=True)
            inv = self._inv_from_var(xp, var_sum, count)
        dense = tl.dense()
        if dense is not None:
            return self._compute(xp, dense, (), mean[None], inv[None], 1)
        return [self._compute(xp, s, (), mean, inv, 1) for s in samples]

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, dtype=node.scalar_args.get("dtype", DALIDataType.FLOAT))
