"""`fn.random.choice` and `fn.random.beta`: draws from a discrete set and from the beta law.

**choice** draws elements of its input ``a``. A 0-D (scalar) integer ``a`` stands for the
values ``0 .. a - 1``; an array of one or more dimensions for its entries along the first axis
(the rows of a 2-D array, say), of any type. ``p`` gives their probabilities (one per entry,
each in ``[0, 1]``, summing to 1 within ``1e-4``; a constant list, or one FLOAT array per
sample), uniform without it. Each sample draws ``shape`` entries (or as many as the
``shape_like`` input's sample has elements, or one); the output has the shape ``shape +
a.shape[1:]`` and the type of ``a``.

**beta** draws from the beta distribution with parameters ``alpha`` and ``beta`` (positive
float32 numbers, constants or per sample), as FLOAT (default) or FLOAT64 values in ``[0, 1]``.
It is ``X / (X + Y)`` for gamma variates ``X ~ Γ(alpha)`` and ``Y ~ Γ(beta)``, computed from
their logarithms (``1 / (1 + exp(log Y - log X))``) so that tiny parameters, whose variates
underflow, still give values at 0 and 1. The gamma variates come from Marsaglia and Tsang's
method (with ``Γ(a) = Γ(a + 1) · U^(1/a)`` for ``a < 1``), every proposal of every element
drawn at once and the first accepted one kept.

Both draw from this library's counter-based per-sample streams (`Workspace.rng`): a sample's
values depend only on the seed and its identity, not on the batch, the threads or the other
samples, so they differ from DALI's numbers (which come from one generator per thread) while
following the same distributions. The shape arguments are those of the other random
generators (`dali._ops.random.generators`). DALI 2.4 has CPU backends only, as here.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=3)
    ... def pipe():
    ...     words = fn.external_source(lambda: [np.array([10, 20, 30], np.int16)] * 2)
    ...     return (fn.random.choice(words, p=[0.0, 0.5, 0.5], shape=4),
    ...             fn.random.beta(alpha=2.0, beta=5.0, shape=3))
    >>> picks, b = pipe().run()
    >>> picks.dtype, picks.shape(), set(picks.as_array().ravel().tolist()) <= {20, 30}
    (<DALIDataType.INT16: 5>, [(4,), (4,)], True)
    >>> b.shape(), bool(((b.as_array() >= 0) & (b.as_array() <= 1)).all())
    ([(3,), (3,)], True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops.random.generators import RandomBase
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali._exec.rng import SampleRNG
    from dali.author import Workspace

__all__ = ["Beta", "Choice", "log_gamma_variates"]

#: How far the probabilities of `fn.random.choice` may sum from 1 (DALI's tolerance).
P_SUM_TOLERANCE = 1e-4
#: Proposal rounds of the gamma sampler; each accepts more than 95 % of what is left.
_GAMMA_ROUNDS = 64
#: Sub-streams of a gamma sampler: ``base * _STREAMS_PER_SAMPLER + ...``.
_STREAMS_PER_SAMPLER = 4 * _GAMMA_ROUNDS + 8
_INT_NAMES = "uint8, uint16, uint32, uint64, int8, int16, int32, int64"


def _normal(rng: SampleRNG, n: int, stream: int) -> np.ndarray:
    """``(batch, n)`` standard normal values (Box–Muller) from two sub-streams."""
    u1 = 1.0 - rng.uniform(n, stream=stream)  # (0, 1]: finite logarithm
    u2 = rng.uniform(n, stream=stream + 1)
    out: np.ndarray = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return out


def log_gamma_variates(rng: SampleRNG, shape: np.ndarray, n: int, base: int) -> np.ndarray:
    """``(batch, n)`` logarithms of Γ(``shape``) variates (``shape``: ``(batch, 1)``, > 0).

    Marsaglia and Tsang's method; ``base`` chooses the sub-streams, so two samplers with
    different bases are independent.

    Example:
        >>> from dali._exec.rng import SampleRNG, combine
        >>> rng = SampleRNG(combine(5, np.arange(2)))
        >>> g = np.exp(log_gamma_variates(rng, np.array([[3.0], [0.5]]), 20000, base=1))
        >>> np.round(g.mean(axis=1), 1).tolist()  # the mean of Γ(a) is a
        [3.0, 0.5]
    """
    b = len(rng)
    shape = np.asarray(shape, dtype=np.float64).reshape(b, 1)
    boost = shape < 1.0
    a = np.where(boost, shape + 1.0, shape)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.zeros((b, n), dtype=np.float64)
    pending = np.ones((b, n), dtype=bool)
    rows = np.arange(b)
    first = base * _STREAMS_PER_SAMPLER
    for r in range(_GAMMA_ROUNDS):
        if not rows.size:
            break
        sub = rng.subset(rows)
        stream = first + 3 * r
        x = _normal(sub, n, stream)
        u = 1.0 - sub.uniform(n, stream=stream + 2)
        dd, cc = d[rows], c[rows]
        v = (1.0 + cc * x) ** 3
        positive = v > 0
        log_v = np.log(np.where(positive, v, 1.0))
        accept = positive & (np.log(u) < 0.5 * x * x + dd - dd * v + dd * log_v)
        take = accept & pending[rows]
        block = out[rows]
        block[take] = np.broadcast_to(np.log(dd) + log_v, take.shape)[take]
        out[rows] = block
        pending[rows] &= ~take
        rows = rows[pending[rows].any(axis=1)]
    if rows.size:  # never in practice: the mean of the law, rather than an endless loop
        out[pending] = np.broadcast_to(np.log(a), (b, n))[pending]
    if boost.any():
        u = 1.0 - rng.uniform(n, stream=first + 3 * _GAMMA_ROUNDS + 1)
        out = np.where(boost, out + np.log(u) / shape, out)
    return out


def _check_float_scalars(op: Any, ws: Workspace, name: str) -> np.ndarray:
    """A positive float32 argument, one value per sample (DALI's message on a bad value)."""
    if ws.is_tensor_arg(name):
        for i, v in enumerate(ws.arg_samples(name)):
            v = np.asarray(v)
            if v.dtype != np.float32:
                raise op.arg_error(name, f"sample {i}: expected FLOAT (float32), got {v.dtype}")
            if v.ndim != 0:
                raise op.arg_error(name, f"sample {i}: expected a scalar, got shape {v.shape}")
    values = ws.arg_scalars(name, np.float32)
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
    if bad.size:
        i = int(bad[0])
        raise op.arg_error(
            name,
            f"The `{name}` must be a positive float32, got `{values[i]:g}` for sample at "
            f"index {i}.",
        )
    return values.astype(np.float64)


@register(
    "random.beta",
    devices=("cpu",),
    inputs=(0, 1),
    input_names=("shape_like",),
    args=[
        Arg("alpha", "float", default=1.0, tensor=True, doc="The alpha parameter (> 0)."),
        Arg("beta", "float", default=1.0, tensor=True, doc="The beta parameter (> 0)."),
        Arg("shape", "int_vec", tensor=True, doc="Shape of each sample (default: scalar)."),
        Arg("dtype", "dtype", doc="FLOAT (default) or FLOAT64."),
    ],
    random=True,
)
class Beta(RandomBase):
    """Generates a random number from ``[0, 1]`` range following the beta distribution."""

    allowed_kinds = "f"

    def setup(self) -> None:
        dtype = self.arg("dtype")
        if dtype:
            from dali._dtypes import np_dtype

            if np_dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
                raise self.arg_error(
                    "dtype",
                    f"Data type {type_name(dtype)} is not supported. Supported types are : "
                    "float, double",
                )
        super().setup()
        for name in ("alpha", "beta"):
            if not self.is_tensor_arg(name):
                v = np.float32(self.arg(name))
                if not (np.isfinite(v) and v > 0):
                    raise self.arg_error(
                        name, f"The `{name}` must be a positive float32, got `{v:g}`."
                    )

    def draw(self, ws: Workspace, n: int) -> np.ndarray:
        alpha = _check_float_scalars(self, ws, "alpha").reshape(-1, 1)
        beta = _check_float_scalars(self, ws, "beta").reshape(-1, 1)
        if not n or not ws.batch_size:
            return np.zeros((ws.batch_size, n))
        log_x = log_gamma_variates(ws.rng, alpha, n, base=1)
        log_y = log_gamma_variates(ws.rng, beta, n, base=2)
        # X / (X + Y) = 1 / (1 + exp(log Y - log X)), finite where X and Y underflow
        out: np.ndarray = np.exp(-np.logaddexp(0.0, log_y - log_x))
        return out


@register(
    "random.choice",
    devices=("cpu",),
    inputs=(1, 2),
    input_names=("a", "shape_like"),
    args=[
        Arg("p", "float_or_float_vec", tensor=True, doc="The probability of each entry."),
        Arg("shape", "int_or_int_vec", tensor=True, doc="Shape of each sample (default: one)."),
    ],
    random=True,
)
class Choice(RandomBase):
    """Generates a random sample from a given 1D array (or from ``0 .. a - 1`` for a scalar
    ``a``), with the probabilities ``p``."""

    shape_like_index = 1

    def setup(self) -> None:
        if self.has_shape_like() and self.has_arg("shape"):
            raise self.arg_error(
                "shape",
                'Providing argument "shape" is incompatible with providing a shape-like input',
            )
        if self.has_arg("shape") and not self.is_tensor_arg("shape"):
            shape = self._const_shape()
            if any(d < 0 for d in shape):
                raise self.arg_error(
                    "shape", f"Input size less than zero not supported, got {shape}"
                )
        if self.has_arg("p") and not self.is_tensor_arg("p"):
            self._check_p(self._const_p(), None)

    def _const_shape(self) -> tuple[int, ...]:
        value = self.arg("shape")
        return tuple(int(d) for d in (value if isinstance(value, (list, tuple)) else [value]))

    def _const_p(self) -> np.ndarray:
        value = self.arg("p")
        return np.asarray(value if isinstance(value, (list, tuple)) else [value], np.float64)

    def _check_p(self, p: np.ndarray, sample: int | None) -> None:
        where = "" if sample is None else f" for sample: {sample}"
        bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
        if bad.size:
            i = int(bad[0])
            raise self.arg_error(
                "p",
                f"Probabilities must be in range [0, 1], but got: {p[i]:g}{where} at index {i}.",
            )
        total = float(np.sum(p, dtype=np.float64))
        if abs(total - 1.0) >= P_SUM_TOLERANCE:
            raise self.arg_error(
                "p", f"Sum of probabilities must be 1.0, but got {total:g}{where}."
            )

    def uniform_shape(self, ws: Workspace) -> tuple[int, ...] | None:
        if self.has_arg("shape") and not ws.is_tensor_arg("shape"):
            return self._const_shape()
        return super().uniform_shape(ws)

    def _counts(self, ws: Workspace) -> tuple[np.ndarray, list[Any], Any]:
        """Entries per sample, the samples and the dense batch (or None)."""
        tl = ws.inputs[0]
        dtype = tl.np_dtype
        dense = tl.dense()
        samples = tl.samples() if dense is None else None
        if tl.sample_ndim == 0:
            if dtype.kind not in "iu":
                raise self.error(
                    f"Data type {type_name(dtype)} is not supported for 0D inputs. Supported "
                    f"types are: {_INT_NAMES}."
                )
            values = dense if dense is not None else np.array([int(s) for s in samples or []])
            counts = np.asarray(values, dtype=np.int64).reshape(-1)
        elif dense is not None:
            counts = np.full(len(dense), dense.shape[1], dtype=np.int64)
        else:
            counts = np.array([s.shape[0] for s in samples or []], dtype=np.int64)
        bad = np.flatnonzero(counts <= 0)
        if bad.size:
            i = int(bad[0])
            raise self.error(
                f"Expected positive number of elements for sampling, got: {counts[i]} for "
                f"sample: {i}."
            )
        return counts, samples or [], dense

    def _probabilities(
        self, ws: Workspace, counts: np.ndarray
    ) -> np.ndarray | list[np.ndarray] | None:
        """The ``p`` of the samples (float64), checked: one ``(k,)`` array for every sample (a
        constant), a ``(batch, k)`` array, or one array per sample; None: uniform."""
        if not self.has_arg("p"):
            return None
        if not ws.is_tensor_arg("p"):
            p = self._const_p()
            if np.any(counts != counts[0]):
                raise self.arg_error(
                    "p",
                    f"Can't interpret argument p. Provided an constant argument with {p.size} "
                    "elements but the expected shape is not uniform.",
                )
            if p.size != counts[0]:
                raise self.arg_error(
                    "p",
                    f'Argument "p" expected shape {counts[0]} but got {p.size} values, which '
                    "can't be interpreted as the expected shape.",
                )
            return p
        given = ws.arg_inputs["p"]
        dense = given.dense() if len(given) == ws.batch_size else None
        if dense is not None and dense.dtype == np.float32 and dense.ndim == 2:
            rows = dense.astype(np.float64)
            # the whole batch at once where it is clearly valid (the margin covers the order
            # of the summation); else the checks sample by sample, for the message
            total = rows.sum(axis=1)
            if (
                (dense.shape[1] == counts).all()
                and ((rows >= 0.0) & (rows <= 1.0)).all()
                and (np.abs(total - 1.0) < P_SUM_TOLERANCE / 2).all()
            ):
                return rows
        out = []
        for i, v in enumerate(ws.arg_samples("p")):
            v = np.asarray(v)
            if v.dtype != np.float32:
                raise self.arg_error("p", f"sample {i}: expected FLOAT (float32), got {v.dtype}")
            if v.shape != (counts[i],):
                raise self.arg_error(
                    "p",
                    f'Unexpected shape for argument "p" at sample {i}: expected '
                    f"({counts[i]},), got {v.shape}",
                )
            p = v.astype(np.float64)
            self._check_p(p, i)
            out.append(p)
        return out

    def _indices(
        self,
        ws: Workspace,
        counts: np.ndarray,
        p: np.ndarray | list[np.ndarray] | None,
        n: int,
    ) -> np.ndarray:
        """``(batch, n)`` int64 indices of the chosen entries."""
        u = ws.rng.uniform(n)
        k = counts.reshape(-1, 1)
        if p is None:
            idx: np.ndarray = np.minimum((u * k).astype(np.int64), k - 1)
            return idx
        if np.all(counts == counts[0]):
            # one search over the batch: sample i's cumulative sums are shifted by i
            if isinstance(p, np.ndarray) and p.ndim == 1:  # one p: one cumulative sum
                cdf = np.cumsum(p)[None, :]
                cdf = cdf / cdf[:, -1:]
            else:
                cdf = np.cumsum(p if isinstance(p, np.ndarray) else np.stack(p), axis=1)
                cdf /= cdf[:, -1:]
            shift = np.arange(len(counts), dtype=np.float64).reshape(-1, 1)
            flat = np.searchsorted((cdf + shift).ravel(), (u + shift).ravel(), side="right")
            idx = flat.reshape(u.shape) - shift.astype(np.int64) * counts[0]
        else:
            idx = np.empty(u.shape, dtype=np.int64)
            for i, pi in enumerate(p):
                cdf = np.cumsum(pi)
                idx[i] = np.searchsorted(cdf / cdf[-1], u[i], side="right")
        return np.minimum(idx, k - 1)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        b = ws.batch_size
        counts, samples, dense = self._counts(ws)
        p = self._probabilities(ws, counts)
        shape = self.uniform_shape(ws)
        if shape is not None:  # one size for the batch
            size = math.prod(shape)
            idx = self._indices(ws, counts, p, size)
            shapes = [shape] * b
            sizes = [size] * b
        else:
            shapes = self.sample_shapes(ws)
            sizes = [math.prod(s) for s in shapes]
            idx = self._indices(ws, counts, p, max(sizes, default=0))
        dtype = tl.np_dtype
        if tl.sample_ndim == 0:
            values = idx.astype(dtype)
            if shape is not None:
                return TensorListCPU.wrap(values.reshape(b, *shape))
            return TensorListCPU.wrap(
                [values[i, : sizes[i]].reshape(shapes[i]) for i in range(b)], dtype=dtype
            )
        if shape is not None and dense is not None:  # one gather for the batch
            size = sizes[0] if sizes else 0
            picked = dense[np.arange(b).reshape(-1, 1), idx[:, :size]]
            return TensorListCPU.wrap(picked.reshape(b, *shape, *dense.shape[2:]))
        if dense is not None:
            samples = list(dense)
        out = [
            samples[i][idx[i, : sizes[i]]].reshape((*shapes[i], *samples[i].shape[1:]))
            for i in range(b)
        ]
        ndim = tl.sample_ndim - 1 + (len(shapes[0]) if shapes else 0)
        return TensorListCPU.wrap(out, dtype=dtype, ndim=ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        shape: tuple[int | None, ...] | None
        if len(node.inputs) > 1:  # shape_like
            shape = node.inputs[1].static_shape
        elif "shape" in node.scalar_args:
            value = node.scalar_args["shape"]
            shape = tuple(int(d) for d in (value if isinstance(value, (list, tuple)) else [value]))
        elif "shape" in node.arg_inputs:
            shape = None
        else:
            shape = ()  # one entry per sample
        inner = src.static_shape
        meta: dict[str, Any] = {"dtype": src.dtype, "layout": ""}
        if shape is not None and inner is not None:
            meta["static_shape"] = tuple(shape) + tuple(inner[1:])
        elif shape is not None and src.ndim is not None:
            meta["ndim"] = len(shape) + max(src.ndim - 1, 0)
        return [meta]
