"""`fn.random.uniform`, `fn.random.coin_flip`, `fn.random.normal`.

Each sample's values come from its own counter-based stream (`Workspace.rng`), so a sample gets
the same values whatever the batch size, thread count or sharding. The GPU backends produce the
very same values (generated on the host, then copied: these tensors are small).

A ragged batch (a ``shape_like`` input of audio clips, say) gets only the values its samples
hold, not a rectangle padded to the longest one; ``fn.random.normal``'s values come from
`SampleRNG.normal_rows` (compiled passes with Numba), spread over the pipeline's threads in
ranges of samples.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import np_dtype, type_name
from dali._exec import gil
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["CoinFlip", "Normal", "RandomBase", "Uniform"]

#: Fewest normal values per task when a batch's draws are split over the pipeline's threads.
_VALUES_PER_TASK = 1 << 15


def round_half_away(x: np.ndarray) -> np.ndarray:
    """Round to nearest, halves away from zero (DALI's float→int conversion)."""
    return np.trunc(x + np.copysign(0.5, x))


def convert_float(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Convert float64 values to ``dtype``: integers are rounded and saturated."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(round_half_away(values), info.min, info.max).astype(dtype)
    if dtype.kind == "b":
        return values != 0
    return values.astype(dtype)


class RandomBase(Operator):
    """Shared shape handling: ``shape`` argument, ``shape_like`` input, or scalars."""

    default_dtype: Any = np.float32
    allowed_kinds = "biuf"
    #: The position of the ``shape_like`` input (after the data inputs of `fn.random.choice`).
    shape_like_index = 0

    def has_shape_like(self) -> bool:
        return len(self.node.inputs) > self.shape_like_index

    def setup(self) -> None:
        if self.has_shape_like() and self.has_arg("shape"):
            raise self.arg_error("shape", "cannot be used together with a `shape_like` input")
        dtype = self.arg("dtype")
        self.out_dtype = np.dtype(self.default_dtype) if not dtype else np_dtype(dtype)
        if self.out_dtype.kind not in self.allowed_kinds:
            raise self.arg_error(
                "dtype", f"Data type {type_name(dtype)} is currently not supported"
            )
        if self.has_arg("shape") and not self.is_tensor_arg("shape"):
            shape = tuple(self.arg("shape"))
            if any(d < 0 for d in shape):
                raise self.arg_error("shape", f"extents must be non-negative, got {shape}")

    def uniform_shape(self, ws: Workspace) -> tuple[int, ...] | None:
        """The sample shape when every sample has the same one (the fast, vectorised case)."""
        if self.has_shape_like():
            dense = ws.inputs[self.shape_like_index].dense()
            return tuple(dense.shape[1:]) if dense is not None else None
        if not self.has_arg("shape"):
            return ()
        if not ws.is_tensor_arg("shape"):
            return tuple(self.arg("shape"))
        return None

    def sample_shapes(self, ws: Workspace) -> list[tuple[int, ...]]:
        if self.has_shape_like():
            return [tuple(s.shape) for s in ws.inputs[self.shape_like_index].samples()]
        shapes = []
        for i, s in enumerate(ws.arg_samples("shape")):
            shape = tuple(int(d) for d in np.asarray(s).reshape(-1))
            if any(d < 0 for d in shape):
                raise self.arg_error(
                    "shape", f"sample {i}: extents must be non-negative, got {shape}"
                )
            shapes.append(shape)
        return shapes

    def draw(self, ws: Workspace, n: int) -> np.ndarray:
        """``(batch, n)`` float64 values before conversion to the output type."""
        raise NotImplementedError

    def draw_samples(self, ws: Workspace, sizes: np.ndarray, n: int) -> np.ndarray:
        """The first ``sizes[i]`` values of row ``i`` of `draw` ``(ws, n)`` in the output
        type, the samples back to back. A generator that can skip the rest overrides it."""
        values = convert_float(self.draw(ws, n), self.out_dtype)
        if (sizes == n).all():
            return values.reshape(-1)
        flat: np.ndarray = values[gil.arange(n) < sizes[:, None]]
        return flat

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        b = ws.batch_size
        shape = self.uniform_shape(ws)
        if shape is not None:
            size = math.prod(shape)
            flat = self.draw_samples(ws, np.full(b, size, np.int64), size)
            return TensorListCPU.wrap(
                flat.reshape(b, *shape), dtype=self.out_dtype, ndim=len(shape)
            )
        shapes = self.sample_shapes(ws)
        sizes = np.array([math.prod(s) for s in shapes], np.int64)
        flat = self.draw_samples(ws, sizes, int(sizes.max(initial=0)))
        if all(s == shapes[0] for s in shapes):
            return TensorListCPU.wrap(flat.reshape(b, *shapes[0]))
        return TensorListCPU.wrap_flat(flat, shapes)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.transfer import to_gpu

        return to_gpu(self.run_cpu(ws))

    @classmethod
    def static_meta(cls, node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        dtype = node.scalar_args.get("dtype") or dali_dtype(np.dtype(cls.default_dtype))
        shape: tuple[int | None, ...] | None
        if len(node.inputs) > cls.shape_like_index:  # shape_like
            shape = node.inputs[cls.shape_like_index].static_shape
        elif "shape" in node.scalar_args:
            shape = tuple(int(d) for d in node.scalar_args["shape"])
        elif "shape" in node.arg_inputs:
            shape = None
        else:
            shape = ()  # one scalar per sample
        return [{"dtype": dtype, "static_shape": shape, "layout": ""}]


@register(
    "random.uniform",
    devices=("cpu", "gpu"),
    inputs=(0, 1),
    input_names=("shape_like",),
    args=[
        Arg("range", "float_vec", default=(-1.0, 1.0), tensor=True, doc="[min, max) interval."),
        Arg("values", "float_vec", tensor=True, doc="Discrete values to draw from instead."),
        Arg("shape", "int_vec", tensor=True, doc="Shape of each sample (default: scalar)."),
        Arg("dtype", "dtype", doc="Output type (default FLOAT); integers are rounded."),
    ],
    random=True,
)
class Uniform(RandomBase):
    """Uniformly distributed values in ``[range[0], range[1])``, or drawn from ``values``."""

    def setup(self) -> None:
        super().setup()
        if self.has_arg("range") and self.has_arg("values"):
            raise self.arg_error("values", "`range` and `values` are mutually exclusive")
        if self.has_arg("range") and not self.is_tensor_arg("range"):
            rng = self.arg("range")
            if len(rng) != 2:
                raise self.arg_error("range", f"must have 2 elements [min, max], got {list(rng)}")
            if rng[0] > rng[1]:
                raise self.arg_error("range", f"min must not exceed max, got {list(rng)}")
        if self.has_arg("values") and not self.is_tensor_arg("values") and not self.arg("values"):
            raise self.arg_error("values", "must not be empty")

    def draw(self, ws: Workspace, n: int) -> np.ndarray:
        u = ws.rng.uniform(n)
        if self.has_arg("values"):
            out = np.empty_like(u)
            for i, vals in enumerate(ws.arg_samples("values", np.float64)):
                vals = vals.reshape(-1)
                if vals.size == 0:
                    raise self.arg_error("values", f"sample {i}: must not be empty")
                out[i] = vals[np.minimum((u[i] * vals.size).astype(np.int64), vals.size - 1)]
            return out
        rng = ws.arg_batch("range", np.float64)
        rng = rng.reshape(ws.batch_size, -1 if ws.batch_size else 2)
        if rng.shape[1] != 2:
            raise self.arg_error("range", f"must have 2 elements per sample, got {rng.shape[1]}")
        lo, hi = rng[:, :1], rng[:, 1:]
        if np.any(lo > hi):
            raise self.arg_error("range", "min must not exceed max")
        out = lo + u * (hi - lo)
        if self.out_dtype.kind == "f" and self.out_dtype.itemsize < 8:
            # rounding to a narrower float must not reach the (open) upper bound
            top = np.nextafter(hi.astype(self.out_dtype), lo.astype(self.out_dtype)).astype(
                np.float64
            )
            out = np.where(hi > lo, np.minimum(out, top), lo)
        return out


@register(
    "random.coin_flip",
    devices=("cpu", "gpu"),
    inputs=(0, 1),
    input_names=("shape_like",),
    args=[
        Arg("probability", "float", default=0.5, tensor=True, doc="Probability of a 1."),
        Arg("shape", "int_vec", tensor=True, doc="Shape of each sample (default: scalar)."),
        Arg("dtype", "dtype", doc="BOOL, UINT8 or INT32 (default)."),
    ],
    random=True,
)
class CoinFlip(RandomBase):
    """Bernoulli draws: 1 with probability ``probability``, else 0."""

    default_dtype = np.int32
    allowed_kinds = "biu"

    def setup(self) -> None:
        super().setup()
        if self.out_dtype not in (np.dtype(np.bool_), np.dtype(np.uint8), np.dtype(np.int32)):
            raise self.arg_error(
                "dtype", f"Data type {type_name(self.arg('dtype'))} is currently not supported"
            )
        if not self.is_tensor_arg("probability"):
            p = self.arg("probability")
            if not 0.0 <= p <= 1.0:
                raise self.arg_error("probability", f"must be in [0, 1], got {p}")

    def draw(self, ws: Workspace, n: int) -> np.ndarray:
        p = ws.arg_batch("probability", np.float64).reshape(ws.batch_size, 1)
        if np.any((p < 0) | (p > 1)):
            raise self.arg_error("probability", "must be in [0, 1]")
        return (ws.rng.uniform(n) < p).astype(np.float64)


@register(
    "random.normal",
    devices=("cpu", "gpu"),
    inputs=(0, 1),
    input_names=("shape_like",),
    args=[
        Arg("mean", "float", default=0.0, tensor=True, doc="Mean of the distribution."),
        Arg("stddev", "float", default=1.0, tensor=True, doc="Standard deviation."),
        Arg("shape", "int_vec", tensor=True, doc="Shape of each sample (default: scalar)."),
        Arg("dtype", "dtype", doc="Output type (default FLOAT); integers are rounded."),
    ],
    random=True,
)
class Normal(RandomBase):
    """Normally distributed values with the given ``mean`` and ``stddev``."""

    def setup(self) -> None:
        super().setup()
        if not self.is_tensor_arg("stddev") and self.arg("stddev") < 0:
            raise self.arg_error("stddev", f"must be non-negative, got {self.arg('stddev')}")

    def _mean_std(self, ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
        mean = ws.arg_batch("mean", np.float64).reshape(ws.batch_size)
        std = ws.arg_batch("stddev", np.float64).reshape(ws.batch_size)
        if np.any(std < 0):
            raise self.arg_error("stddev", "must be non-negative")
        return mean, std

    def draw_samples(self, ws: Workspace, sizes: np.ndarray, n: int) -> np.ndarray:
        mean, std = self._mean_std(ws)
        direct = self.out_dtype in (np.float32, np.float64)  # else rounded from float64
        out = np.empty(int(sizes.sum()), self.out_dtype if direct else np.float64)
        rng = ws.rng
        # sample ranges of about equal sizes, one per thread (the passes release the GIL)
        parts = min(ws.num_threads, len(sizes), max(1, len(out) // _VALUES_PER_TASK))
        ends = np.cumsum(sizes)
        cuts = [
            0,
            *np.searchsorted(ends, np.arange(1, parts) * len(out) / parts).tolist(),
            len(sizes),
        ]
        starts = np.concatenate([[0], ends]).tolist()

        def part(j: int) -> None:
            a, b = cuts[j], cuts[j + 1]
            rng.subset(slice(a, b)).normal_rows(
                sizes[a:b], n, loc=mean[a:b], scale=std[a:b], out=out[starts[a] : starts[b]]
            )

        ws.map(part, parts)
        return out if direct else convert_float(out, self.out_dtype)
