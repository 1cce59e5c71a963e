"""`fn.batch_permutation` and `fn.permute_batch`: reorder the samples of a batch.

``fn.permute_batch(x, indices=idx)`` builds a batch from the samples of ``x``:
``out[i] = x[idx[i]]``, any index in ``[0, batch_size)``, repetitions and omissions allowed.
``indices`` is a list with one index per sample (a constant list must match the batch size) or
a per-sample argument of INT32 scalars, typically ``fn.batch_permutation()``, which draws one
random permutation per batch: ``indices`` that shuffle the batch, e.g. to mix samples with
their shuffled partners (MixUp, CutMix). ``allow_repetitions=True`` draws each index
independently (repetitions and omissions); ``no_fixed_points=True`` never maps an index to
itself (a *derangement*; ignored for a batch of one sample).

The permutation is drawn from the samples' own random streams (`Workspace.rng`): each sample
draws a key, and the order of the keys is the permutation, so it depends only on the seed and
the samples' identities. A derangement is drawn by rejection (a new draw until no index is
fixed, e.g. 2.7 draws on average), which keeps every derangement equally likely.

On the CPU the permuted batch holds the input's samples, or a copy of a dense batch (one copy
per sample, on the pipeline's threads); on the GPU a dense batch is gathered with one indexing
operation.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=7)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.array([v], np.int32) for v in range(4)])
    ...     perm = fn.batch_permutation(no_fixed_points=True)
    ...     return perm, fn.permute_batch(x, indices=perm), fn.permute_batch(x, indices=[3, 3, 0, 1])
    >>> perm, shuffled, fixed = pipe().run()
    >>> sorted(int(p) for p in perm.as_array()), all(int(perm.at(i)) != i for i in range(4))
    ([0, 1, 2, 3], True)
    >>> [int(shuffled.at(i)[0]) for i in range(4)] == [int(p) for p in perm.as_array()]
    True
    >>> fixed.as_array().ravel().tolist()
    [3, 3, 0, 1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module
from dali._tensors import TensorListCPU, aligned_empty

if TYPE_CHECKING:
    from dali._exec.rng import SampleRNG
    from dali.author import Workspace

__all__ = ["BatchPermutation", "PermuteBatch", "draw_permutation"]

#: Rejection rounds before a derangement is built deterministically instead (the chance of
#: getting there is about (1 - 1/e)^64, i.e. never).
_MAX_ROUNDS = 64
#: From this size on, a dense CPU batch is copied sample by sample on the pipeline's threads
#: (below, handing the samples to threads costs more than the copy).
_THREADED_BYTES = 1 << 20


def draw_permutation(
    rng: SampleRNG, *, allow_repetitions: bool, no_fixed_points: bool
) -> np.ndarray:
    """One ``(n,)`` int32 index array for a batch of ``n = len(rng)`` samples.

    Example:
        >>> from dali._exec.rng import SampleRNG, combine
        >>> rng = SampleRNG(combine(1, np.arange(5)))
        >>> p = draw_permutation(rng, allow_repetitions=False, no_fixed_points=True)
        >>> sorted(p.tolist()), bool(np.any(p == np.arange(5)))
        ([0, 1, 2, 3, 4], False)
    """
    n = len(rng)
    arange = np.arange(n)
    if n <= 1:
        return arange.astype(np.int32)
    if allow_repetitions:
        u = rng.uniform(1)[:, 0]
        if not no_fixed_points:
            return np.minimum((u * n).astype(np.int64), n - 1).astype(np.int32)
        # one of the n - 1 other samples, uniformly
        k = np.minimum((u * (n - 1)).astype(np.int64), n - 2)
        return (k + (k >= arange)).astype(np.int32)
    for round_ in range(_MAX_ROUNDS if no_fixed_points else 1):
        perm = np.argsort(rng.bits(1, stream=round_ + 1)[:, 0], kind="stable")
        if not no_fixed_points or not np.any(perm == arange):
            return perm.astype(np.int32)
    return np.roll(arange, 1).astype(np.int32)  # a derangement, should rejection ever fail


@register(
    "batch_permutation",
    devices=("cpu",),
    inputs=0,
    args=[
        Arg(
            "allow_repetitions",
            "bool",
            default=False,
            doc="The output may contain repetitions and omissions.",
        ),
        Arg(
            "no_fixed_points",
            "bool",
            default=False,
            doc="out[i] != i (ignored for a batch of one sample).",
        ),
    ],
    random=True,
)
class BatchPermutation(Operator):
    """Produces a batch of random integers which can be used as indices for indexing samples
    in the batch."""

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        perm = draw_permutation(
            ws.rng,
            allow_repetitions=bool(self.arg("allow_repetitions")),
            no_fixed_points=bool(self.arg("no_fixed_points")),
        )
        return TensorListCPU.wrap(perm)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return [{"dtype": DALIDataType.INT32, "static_shape": (), "layout": ""}]


@register(
    "permute_batch",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg(
            "indices",
            "int_or_int_vec",
            default=REQUIRED,
            tensor=True,
            doc="One index per output sample, in [0, batch_size).",
        ),
    ],
)
class PermuteBatch(Operator):
    """Returns a batch of tensors constructed by selecting tensors from the input based on
    indices given in `indices` argument: ``out_tensor[i] = in_tensor[indices[i]]``."""

    def _indices(self, ws: Workspace, n: int) -> np.ndarray:
        b = ws.batch_size
        if ws.is_tensor_arg("indices"):
            samples = ws.arg_samples("indices")
            for i, v in enumerate(samples):
                v = np.asarray(v)
                if v.dtype != np.int32:
                    raise self.arg_error(
                        "indices", f"sample {i}: expected an INT32 scalar, got {v.dtype}"
                    )
                if v.ndim != 0:
                    raise self.arg_error(
                        "indices", f"sample {i}: expected a scalar, got shape {v.shape}"
                    )
            idx = np.array([int(v) for v in samples], dtype=np.int64)
        else:
            value = self.arg("indices")
            idx = np.asarray(value if isinstance(value, (list, tuple)) else [value], np.int64)
            if idx.size != b:
                raise self.arg_error(
                    "indices",
                    f"The number of sample indices {idx.size} does not match the current "
                    f"batch size, which is {b}",
                )
        bad = np.flatnonzero((idx < 0) | (idx >= n))
        if bad.size:
            i = int(bad[0])
            raise self.arg_error(
                "indices",
                f"Sample index out of range. indices[{i}] = {idx[i]} is not a valid index for "
                f"an input batch of {n} tensors.",
            )
        return idx

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        idx = self._indices(ws, len(tl))
        dense = tl.held_dense if xp is np else tl.dense()
        if dense is not None and xp is np and dense.nbytes >= _THREADED_BYTES:
            # a copy, as DALI's: one per sample, on the pipeline's threads
            gathered = aligned_empty((len(idx), *dense.shape[1:]), dense.dtype)
            src = idx.tolist()

            def copy(i: int) -> None:
                gathered[i] = dense[src[i]]  # numpy copies without the GIL

            ws.map(copy, len(src))
            out = tl_cls.wrap(gathered, tl.layout())
        elif dense is not None:  # one gather (on the GPU, or a small batch)
            out = tl_cls.wrap(dense[xp.asarray(idx)], tl.layout())
        else:  # the input's own samples, in the new order
            samples = tl.samples()
            out = tl_cls.wrap(
                [samples[i] for i in idx.tolist()],
                tl.layout(),
                dtype=tl.np_dtype,
                ndim=tl.sample_ndim,
            )
        infos = tl.source_infos
        if infos is not None:
            out.source_infos = [infos[i] for i in idx.tolist()]
        return out

    run_gpu = run_cpu  # the same indexing on CuPy arrays

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
