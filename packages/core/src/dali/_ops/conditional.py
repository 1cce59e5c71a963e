"""Internal operators behind ``enable_conditionals=True`` (`dali._pipeline.conditionals`).

An ``if`` on a DataNode is run per sample: every batch that a branch reads is first *split* by
the condition (the samples whose condition is true go to the ``if`` branch, the others to the
``else`` branch), each branch runs on its part of the batch, and every variable assigned in the
branches is *merged* back into the original sample order. The split keeps the identity of the
samples it takes (`BatchMeta.take`), so random operators in a branch draw the same values for a
sample as they would outside of it. ``and``, ``or`` and ``not`` on DataNodes become the logical
operators below (``and``/``or`` short-circuit per sample through a split and a merge).

The fn paths start with ``_`` so none of these appears in `dali.fn`.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import REQUIRED, Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "MERGE_INFO",
    "LogicalNot",
    "Merge",
    "Split",
    "ValidateLogical",
    "condition_mask",
]

#: The variable a merge op is for and where its `if` is, for messages. Kept out of the scalar
#: arguments so that the identity (and the random numbers) of the operators downstream does not
#: depend on variable names or line numbers.
MERGE_INFO: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()

_CONDITION_ERROR = (
    "Conditions inside `if` statements are restricted to scalar (0-d tensors) inputs, that are "
    "placed on CPU. Got a {ndim}-d input as a condition of the `if` statement."
)


def condition_mask(op: Operator, ws: Workspace) -> np.ndarray:
    """The per-sample truth value of the ``predicate`` argument (nonzero is true).

    Raises:
        OperatorError: If the predicate samples are not scalars (DALI's message).
    """
    samples = ws.arg_samples("predicate")
    if len(samples) == 0:
        return np.zeros(0, dtype=bool)
    ndim = samples[0].ndim
    if ndim != 0:
        raise op.error(_CONDITION_ERROR.format(ndim=ndim))
    return np.asarray(samples) != 0


def _tl_class(device: str) -> Any:
    from dali._tensors import TensorListCPU, TensorListGPU

    return TensorListGPU if device == "gpu" else TensorListCPU


@register(
    "_conditional.split",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=1,
    class_name="Split",
    args=[
        Arg("predicate", "bool", default=REQUIRED, tensor=True, doc="0-d condition per sample."),
        Arg("branch", "bool", default=True, doc="Keep the samples whose condition is this."),
    ],
    conditional_internal=True,
)
class Split(Operator):
    """The samples of the input whose ``predicate`` equals ``branch`` (nonzero is true).

    The output batch keeps the identity of the samples it holds, so operators in a branch see
    the same sample identities (and draw the same random numbers) as outside of it.
    """

    def _run(self, ws: Workspace, device: str) -> Any:
        mask = condition_mask(self, ws)
        src = ws.inputs[0]
        if len(src) != len(mask):
            raise self.error(
                f"the condition has {len(mask)} samples but the data has {len(src)} "
                f"(the condition and the data come from different batches)"
            )
        keep = mask if self.arg("branch") else ~mask
        if keep.all():
            return src
        idx = np.flatnonzero(keep)
        ws.out_meta = ws.meta.take(idx)
        return src.take(idx)

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws, "cpu")

    def run_gpu(self, ws: Workspace) -> Any:
        return self._run(ws, "gpu")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)  # some of the samples, as they are


@register(
    "_conditional.merge",
    devices=("cpu", "gpu"),
    inputs=2,
    outputs=1,
    class_name="Merge",
    args=[
        Arg("predicate", "bool", default=REQUIRED, tensor=True, doc="0-d condition per sample."),
        Arg("divergent", "str", default="", doc="A type mismatch found when tracing."),
    ],
    conditional_internal=True,
)
class Merge(Operator):
    """Interleave the ``if`` batch (input 0) and the ``else`` batch (input 1) by ``predicate``.

    The output has the samples of the whole batch in their original order (and the identity of
    the batch the predicate belongs to). Both inputs must have the same type and number of
    dimensions; layouts must match (an unlabelled side takes the other's layout).
    """

    def setup(self) -> None:
        # A mismatch seen when tracing is reported only if the merged value is used: a variable
        # that differs between branches but is never read after the `if` is harmless.
        if self.arg("divergent"):
            raise self.error(self.arg("divergent"))

    def _what(self) -> str:
        var, where = MERGE_INFO.get(self.node, ("", ""))
        return (f"variable `{var}`" if var else "a value") + (
            f" (`if` at {where})" if where else ""
        )

    def _run(self, ws: Workspace, device: str) -> Any:
        mask = condition_mask(self, ws)
        t, f = ws.inputs
        n = len(mask)
        nt = int(mask.sum())
        if len(t) != nt or len(f) != n - nt:
            raise self.error(
                f"the branches produced {len(t)} and {len(f)} samples for {n} conditions "
                f"({nt} true) when merging {self._what()}"
            )
        # An empty side says nothing about types and layouts (an operator given no samples may
        # not know them), so only two non-empty sides are compared.
        both = nt and n - nt
        if both and (t.np_dtype != f.np_dtype or t.sample_ndim != f.sample_ndim):
            from dali._dtypes import type_name

            raise self.error(
                f"Divergent data found in different branches of an `if/else` statement for "
                f"{self._what()}: the `if` branch gives {type_name(t.np_dtype)} data with "
                f"{t.sample_ndim} dimensions and the `else` branch {type_name(f.np_dtype)} data "
                f"with {f.sample_ndim} dimensions. Both branches must produce the same type and "
                f"number of dimensions."
            )
        if nt == 0 or (both and not t.layout()):
            layout = f.layout()
        elif nt == n or t.layout() == f.layout() or not f.layout():
            layout = t.layout()
        else:
            raise self.error(
                f"the branches of an `if/else` statement give different layouts for "
                f"{self._what()}: {t.layout()!r} and {f.layout()!r}"
            )
        if nt == n:
            return t if t.layout() == layout else _relabel(t, layout, device)
        if nt == 0:
            return f if f.layout() == layout else _relabel(f, layout, device)
        info = None
        if t.source_infos is not None and f.source_infos is not None:
            ti, fi = iter(t.source_infos), iter(f.source_infos)
            info = [next(ti) if m else next(fi) for m in mask]
        cls = _tl_class(device)
        td, fd = t.dense(), f.dense()
        if td is not None and fd is not None and td.shape[1:] == fd.shape[1:]:
            if device == "gpu":
                import cupy as cp

                out = cp.empty((n, *td.shape[1:]), dtype=td.dtype)
                out[cp.asarray(np.flatnonzero(mask))] = td
                out[cp.asarray(np.flatnonzero(~mask))] = fd
            else:
                out = np.empty((n, *td.shape[1:]), dtype=td.dtype)
                out[mask] = td
                out[~mask] = fd
            return cls.wrap(out, layout=layout, source_info=info)
        ts, fs = iter(t.samples()), iter(f.samples())
        samples = [next(ts) if m else next(fs) for m in mask]
        return cls.wrap(samples, layout=layout, source_info=info)

    def run_cpu(self, ws: Workspace) -> Any:
        return self._run(ws, "cpu")

    def run_gpu(self, ws: Workspace) -> Any:
        return self._run(ws, "gpu")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        t, f = node.inputs
        if node.scalar_args.get("divergent"):
            return [{"dtype": None, "ndim": None, "layout": None}]
        dtype = t.dtype if t.dtype is not None else f.dtype
        ndim = t.ndim if t.ndim is not None else f.ndim
        layout = t.layout if t.layout else f.layout
        shape = None  # an extent both branches have (one branch unknown: the other's ndim)
        if t.static_shape is not None and f.static_shape is not None and t.ndim == f.ndim:
            shape = tuple(a if a == b else None for a, b in zip(t.static_shape, f.static_shape))
        return [{"dtype": dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]


def _relabel(tl: Any, layout: str, device: str) -> Any:
    cls = _tl_class(device)
    dense = tl.dense()
    if dense is not None:
        return cls.wrap(dense, layout=layout, source_info=tl.source_infos)
    return cls.wrap(
        tl.samples(),
        layout=layout,
        source_info=tl.source_infos,
        dtype=tl.np_dtype,
        ndim=tl.sample_ndim,
    )


def _logical_input(op: Operator, ws: Workspace, name: str, side: str) -> np.ndarray:
    src = ws.inputs[0]
    if src.sample_ndim != 0:
        on = f" on the {side}" if side else ""
        raise op.error(
            f"Logical expression ``{name}`` is restricted to scalar (0-d tensors) inputs. Got a "
            f"{src.sample_ndim}-d input{on}.\n\nThis input restriction allows the logical expressions "
            f"to always return scalar boolean outputs and to be used in unambiguous way in DALI "
            f"conditionals. You may use bitwise arithmetic operators ``&``, ``|`` or compare "
            f"with zero (``== 0``) if you need to process inputs of higher dimensionality - "
            f"those operations performed on boolean inputs are equivalent to logical "
            f"expressions."
        )
    dense = src.dense()
    return np.asarray(dense).reshape(len(src)) != 0


def _bool_meta(node: Any) -> list[dict[str, Any]]:
    from dali._dtypes import DALIDataType

    return [{"dtype": DALIDataType.BOOL, "ndim": 0, "layout": ""}]


@register(
    "_conditional.validate_logical",
    devices=("cpu",),
    inputs=1,
    outputs=1,
    class_name="ValidateLogical",
    args=[
        Arg("expression_name", "str", default="", doc='"and" or "or".'),
        Arg("expression_side", "str", default="", doc='"left" or "right".'),
    ],
)
class ValidateLogical(Operator):
    """An operand of ``and``/``or`` on DataNodes: checks it is 0-d, gives it as BOOL.

    DALI also requires a BOOL operand; here any numeric scalar is accepted (nonzero is true),
    as for ``if`` conditions.
    """

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        mask = _logical_input(
            self, ws, self.arg("expression_name") or "and", self.arg("expression_side")
        )
        return TensorListCPU.wrap(mask)

    static_meta = staticmethod(_bool_meta)


@register("_conditional.not_", devices=("cpu",), inputs=1, outputs=1, class_name="Not")
class LogicalNot(Operator):
    """``not x`` on a DataNode: the logical negation of a 0-d condition, as BOOL."""

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        return TensorListCPU.wrap(~_logical_input(self, ws, "not", ""))

    static_meta = staticmethod(_bool_meta)
