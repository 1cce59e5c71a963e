"""Element-wise arithmetic on DataNodes: ``x + 1``, ``x < y``, ``dali.math.sqrt(x)``.

Every expression becomes one ``ArithmeticGenericOp`` node (`_arithmetic_generic_op`). Python
constants are *not* graph nodes: they travel as a scalar argument with their DALI type, so
``x * 2.0`` costs one vectorised numpy call over the whole ``(batch, ...)`` array.

Types follow DALI's promotion table (`_promotion.promote`): the same type stays, a float wins over any
integer, two signed (or two unsigned) integers give the wider one, and a signed ``intX`` with an
unsigned ``uintY`` gives ``intX`` when ``X > Y`` and ``int(2Y)`` (capped at 64 bits) otherwise.
A Python ``int`` counts as INT32, a Python ``float`` as FLOAT, a ``bool`` as BOOL; numpy scalars
and ``types.Constant(...)`` keep their own type. ``/`` always gives a float (FLOAT unless an
operand is wider), comparisons give BOOL.

Integer semantics are C's: ``//`` truncates toward zero, ``%`` takes the sign of the dividend,
narrow types wrap (``uint8 250 + 250 = 244``). Integer ``//`` and ``%`` by zero give 0 (DALI
leaves it undefined; numpy and CuPy give 0 too, so the CPU and GPU results agree). Integer
``**`` with a negative exponent gives the truncated result (``1``, ``±1`` or ``0``).

Shapes broadcast per sample as in numpy (aligned to the right; a scalar or one-element operand
is broadcast to the other); anything else is an error naming the operator and the shapes.

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import types
    >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.array([250, 3], dtype=np.uint8))
    ...     return x + x, x + 10, x // 2, x / 2
    >>> p = pipe(); p.build()
    >>> [o.as_array()[0].tolist() for o in p.run()]
    [[244, 6], [260, 13], [125, 1], [125.0, 1.5]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._graph.node import DataNode
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.math._kernels import Kernel, make_kernel
from dali._ops.math._promotion import OPS, check_types, result_dtype
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ArithmeticGenericOp", "arithmetic"]

# --------------------------------------------------------------------------------------------
# The operator (its kernels: `_kernels`; its typing rules: `_promotion`)
# --------------------------------------------------------------------------------------------

_IN = object()  # marks a tensor input's place among the operands


class _Plan(NamedTuple):
    out: np.dtype[Any]
    fn: Kernel  # takes the tensor inputs only (constants are bound)


def _bind(kernel: Kernel, template: Sequence[Any]) -> Kernel:
    """Bind the constants of ``template`` so that the result takes the tensor inputs only."""
    if all(t is _IN for t in template):
        return kernel
    if len(template) == 2:
        a, b = template
        if a is _IN:
            return lambda x: kernel(x, b)
        return lambda x: kernel(a, x)

    def bound(*inputs: Any) -> Any:
        it = iter(inputs)
        return kernel(*[next(it) if t is _IN else t for t in template])

    return bound


def _broadcast_message(op: str, shapes: Sequence[tuple[int, ...]], sample: int | None) -> str:
    where = f" in sample {sample}" if sample is not None else ""
    listed = ", ".join(str(tuple(s)) for s in shapes)
    return (
        f"Can't broadcast shapes{where} for arithmetic operator `{OPS[op].symbol}`: {listed}. "
        f"Shapes must be equal, or broadcastable (aligned to the right, with extents that are "
        f"equal or 1)."
    )


def _np_of(dtype: Any) -> np.dtype[Any] | None:
    if dtype is None:
        return None
    from dali._dtypes import np_dtype

    try:
        return np_dtype(dtype)
    except TypeError:
        return np.dtype(object)  # never a valid arithmetic type: reported by check_types


@register(
    "_arithmetic_generic_op",
    devices=("cpu", "gpu"),
    inputs=(1, 3),
    class_name="ArithmeticGenericOp",
    args=[
        Arg("op", "str", doc="The operation: add, sub, mul, fdiv, div, mod, pow, eq, sqrt, ..."),
        Arg("constants", "any", default=(), doc="(position, value, DALIDataType) of constants."),
    ],
)
class ArithmeticGenericOp(Operator):
    """An element-wise arithmetic expression (made by DataNode operators and ``dali.math``)."""

    def setup(self) -> None:
        op = self.arg("op")
        if op not in OPS:
            raise self.arg_error("op", f"unknown arithmetic operation {op!r}")
        self._op = op
        from dali._dtypes import np_dtype

        consts = {pos: (value, np_dtype(dtype)) for pos, value, dtype in self.arg("constants")}
        self._consts = consts
        self._arity = len(self.node.inputs) + len(consts)
        if self._arity != OPS[op].arity:
            raise self.error(
                f"arithmetic operator `{OPS[op].symbol}` takes {OPS[op].arity} operands, "
                f"got {self._arity}"
            )
        # keyed by the input dtype (one input) or the tuple of input dtypes
        self._plans: dict[Any, _Plan] = {}
        static = [_np_of(n.dtype) for n in self.node.inputs]
        if all(t is not None for t in static):
            message = check_types(op, self._operand_dtypes(static))  # type: ignore[arg-type]
            if message is not None:
                raise self.error(message)

    def _operand_dtypes(self, input_dtypes: Sequence[np.dtype[Any]]) -> list[np.dtype[Any]]:
        it = iter(input_dtypes)
        consts = self._consts
        return [consts[i][1] if i in consts else next(it) for i in range(self._arity)]

    def _plan(self, key: tuple[np.dtype[Any], ...], xp: Any) -> _Plan:
        op = self._op
        dtypes = self._operand_dtypes(key)
        message = check_types(op, dtypes)
        if message is not None:
            raise self.error(message)
        out = result_dtype(op, dtypes)
        kernel, const_dtype = make_kernel(op, dtypes, key, out, xp)
        template: list[Any] = []
        it = iter(key)
        for i in range(self._arity):
            if i not in self._consts:
                next(it)
                template.append(_IN)
                continue
            value, dtype = self._consts[i]
            # A wrapping cast, as DALI's (a uint8 constant 300 is 44).
            const = np.asarray(value).astype(dtype).astype(const_dtype or dtype)[()]
            template.append(const if xp is np else xp.asarray(const))
        plan = _Plan(out, _bind(kernel, template))
        self._plans[key[0] if len(key) == 1 else key] = plan
        return plan

    # -- running -----------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        ins = ws.inputs
        if len(ins) == 1:  # the hot path: one node and constants, a uniform batch
            tl = ins[0]
            dense = tl.held_dense
            if dense is not None:
                plan = self._plans.get(tl.np_dtype)
                if plan is None:
                    plan = self._plan((tl.np_dtype,), np)
                with np.errstate(all="ignore"):  # numpy would warn where C is silent
                    return TensorListCPU.wrap(plan.fn(dense), tl.layout())
        return self._run(ws, np, TensorListCPU)

    def run_gpu(self, ws: Workspace) -> Any:
        import cupy

        from dali._tensors import TensorListGPU

        return self._run(ws, cupy, TensorListGPU)

    def _run(self, ws: Workspace, xp: Any, tl_cls: Any) -> Any:
        ins = ws.inputs
        if len(ins) == 1:
            tl = ins[0]
            plan = self._plans.get(tl.np_dtype) or self._plan((tl.np_dtype,), xp)
            dense = tl.dense()
            if dense is not None:
                with np.errstate(all="ignore"):
                    return tl_cls.wrap(plan.fn(dense), tl.layout())
            if (packed := _flat_inputs(ins)) is not None:
                return self._on_flat(plan, packed, tl_cls, tl.layout())
            return self._per_sample(ws, plan, ins, xp, tl_cls, tl.layout())
        key = tuple(tl.np_dtype for tl in ins)
        plan = self._plans.get(key) or self._plan(key, xp)
        n = len(ins[0])
        for i, tl in enumerate(ins[1:], 1):
            if len(tl) != n:
                raise self.error(
                    f"Every input shall have the same batch size; input 0 has {n} samples and "
                    f"input {i} has {len(tl)}."
                )
        out_ndim = max(tl.sample_ndim for tl in ins)
        layout = self._layout(ins, out_ndim)
        denses = [tl.dense() for tl in ins]
        # (an empty batch goes sample by sample: its dense arrays' shapes need not broadcast)
        if n and all(d is not None for d in denses):
            if any(d.ndim != out_ndim + 1 for d in denses):
                # align the sample dimensions to the right, leaving the batch axis first
                denses = [
                    d.reshape(d.shape[:1] + (1,) * (out_ndim + 1 - d.ndim) + d.shape[1:])
                    for d in denses
                ]
            try:
                with np.errstate(all="ignore"):
                    return tl_cls.wrap(plan.fn(*denses), layout)
            except ValueError:
                shapes = [tl.shape()[0] if n else () for tl in ins]
                if _broadcastable(shapes):
                    raise
                raise self.error(_broadcast_message(self._op, shapes, 0 if n else None)) from None
        if (packed := _flat_inputs(ins)) is not None:
            return self._on_flat(plan, packed, tl_cls, layout)
        return self._per_sample(ws, plan, ins, xp, tl_cls, layout, out_ndim)

    @staticmethod
    def _on_flat(
        plan: _Plan, packed: tuple[list[Any], list[tuple[int, ...]]], tl_cls: Any, layout: str
    ) -> Any:
        """The expression over the inputs' flat buffers at once: one call for a ragged batch
        (on the GPU, one kernel instead of one per sample)."""
        buffers, shapes = packed
        with np.errstate(all="ignore"):
            out = plan.fn(*buffers)
        return tl_cls.wrap_flat(out, shapes, layout)

    def _per_sample(
        self,
        ws: Workspace,
        plan: _Plan,
        ins: Sequence[Any],
        xp: Any,
        tl_cls: Any,
        layout: str,
        out_ndim: int | None = None,
    ) -> Any:
        samples = [tl.samples() for tl in ins]
        fn = plan.fn
        op = self._op

        def one(i: int) -> Any:
            args = [s[i] for s in samples]
            try:
                with np.errstate(all="ignore"):
                    return xp.asarray(fn(*args))
            except ValueError:
                shapes = [tuple(a.shape) for a in args]
                if _broadcastable(shapes):
                    raise
                raise ValueError(_broadcast_message(op, shapes, i)) from None

        n = len(samples[0])
        out = ws.map(one, n)
        ndim = ins[0].sample_ndim if out_ndim is None else out_ndim
        return tl_cls.wrap(out, layout, dtype=plan.out, ndim=ndim)

    def _layout(self, ins: Sequence[Any], out_ndim: int) -> str:
        """The layout the inputs agree on (DALI: non-empty layouts must match)."""
        layout = ""
        for tl in ins:
            lay = tl.layout()
            if not lay or tl.sample_ndim != out_ndim:
                continue
            if layout and lay != layout:
                raise self.error(
                    f"Layouts of the inputs of arithmetic operator `{OPS[self._op].symbol}` do "
                    f'not match: "{layout}" and "{lay}".'
                )
            layout = lay
        return layout

    # -- tracing -----------------------------------------------------------------------------
    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        op = node.scalar_args["op"]
        consts = {pos: dtype for pos, _, dtype in node.scalar_args.get("constants", ())}
        inputs = iter(node.inputs)
        arity = len(node.inputs) + len(consts)
        dtypes: list[Any] = []
        for i in range(arity):
            dtypes.append(_np_of(consts[i]) if i in consts else _np_of(next(inputs).dtype))
        dtype = None
        if all(t is not None for t in dtypes) and check_types(op, dtypes) is None:
            dtype = dali_dtype(result_dtype(op, dtypes))
        ndims = [n.ndim for n in node.inputs]
        ndim = max(ndims) if all(d is not None for d in ndims) else None
        layout = None
        if ndim is not None and all(n.layout is not None for n in node.inputs):
            same = {n.layout for n in node.inputs if n.layout and n.ndim == ndim}
            layout = same.pop() if len(same) == 1 else ("" if not same else None)
        shape = _static_broadcast([n.static_shape for n in node.inputs])
        return [{"dtype": dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]


def _flat_inputs(ins: Sequence[Any]) -> tuple[list[Any], list[tuple[int, ...]]] | None:
    """Each input's flat buffer and the samples' shapes, when every input holds its samples
    back to back and all have the same shapes (elementwise, nothing to broadcast); else None."""
    packed = [tl.flat() for tl in ins]
    if any(p is None for p in packed):
        return None
    shapes = list(packed[0][1])
    if not shapes or any(list(p[1]) != shapes for p in packed[1:]):
        return None
    buffers = [p[0] for p in packed]
    if any(b.size != buffers[0].size for b in buffers[1:]):
        return None
    return buffers, shapes


def _static_broadcast(
    shapes: Sequence[tuple[int | None, ...] | None],
) -> tuple[int | None, ...] | None:
    """The shapes broadcast as `_run` does (numpy's rule, aligned to the right), where known.

    An extent is known where every operand's is, or where one operand has an extent other
    than 1: the others are then 1 or that extent (or the run fails). Shapes that cannot
    broadcast give None (the error is reported at run).

    Example:
        >>> _static_broadcast([(None, None, 3), ()]), _static_broadcast([(None, 4), (3, 1)])
        ((None, None, 3), (3, 4))
        >>> _static_broadcast([(None,), (1,)]), _static_broadcast([(2,), (3,)])
        ((None,), None)
    """
    if any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    ndim = max((len(s) for s in known), default=0)
    out: list[int | None] = []
    for d in range(ndim):
        extents = [s[len(s) - ndim + d] for s in known if len(s) - ndim + d >= 0]
        big = {e for e in extents if e is not None and e != 1}
        if len(big) > 1:
            return None
        if big:
            out.append(big.pop())
        elif None in extents:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def _broadcastable(shapes: Sequence[tuple[int, ...]]) -> bool:
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Tracing: DataNode operators and dali.math end here
# --------------------------------------------------------------------------------------------

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _unsupported(value: Any) -> TypeError:
    return TypeError(
        f"Argument to arithmetic operation not supported. Got {type(value)}, expected a return "
        f"value from other DALI Operator or a constant value of type 'bool', 'int', 'float' or "
        f"'dali.types.Constant'."
    )


def _classify(value: Any) -> DataNode | tuple[Any, Any]:
    """A DataNode, or the (value, DALIDataType) of a constant operand."""
    from dali._dtypes import DALIDataType
    from dali.types import Constant, ScalarConstant

    if isinstance(value, DataNode):
        return value
    t = type(value)
    if t is bool:
        return (value, DALIDataType.BOOL)
    if t is int:
        # A Python int is an INT32 constant; one that does not fit is kept exact as INT64.
        small = _INT32_MIN <= value <= _INT32_MAX
        return (value, DALIDataType.INT32 if small else DALIDataType.INT64)
    if t is float:
        return (value, DALIDataType.FLOAT)
    if isinstance(value, (float, int)) and not isinstance(value, np.generic):
        raise _unsupported(value)  # subclasses (an IntEnum, ...) are not DALI constants
    if isinstance(value, np.floating) and value.dtype == np.float64:
        # DALI refuses these: np.float64 is a `float` subclass but not a float constant.
        raise _unsupported(value)
    if not isinstance(value, ScalarConstant):
        try:
            value = Constant(value)
        except (TypeError, ValueError):
            raise _unsupported(value) from None
        if isinstance(value, DataNode):
            return value
    if not isinstance(value, ScalarConstant):
        raise _unsupported(value)
    return (value.value, value.dtype)


def arithmetic(op: str, *operands: Any) -> DataNode:
    """Trace one element-wise operation (DataNode operators and ``dali.math`` call this).

    Args:
        op: The operation name (``"add"``, ``"fdiv"``, ``"sqrt"``, ``"clamp"``...).
        *operands: DataNodes, Python bool/int/float, numpy scalars, ``types.Constant`` values or
            constant arrays (which become constant nodes). At least one must be a DataNode.

    Returns:
        The DataNode of the result, on the GPU if any operand is.

    Raises:
        TypeError: For an operand that is not a valid constant (a float64 numpy scalar is not),
            or when no operand is a DataNode.

    Example:
        >>> from dali import fn
        >>> import dali
        >>> with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        ...     y = arithmetic("add", fn.random.uniform(), 1)
        >>> y.dtype
        <DALIDataType.FLOAT: 9>
    """
    d = OPS.get(op)
    if d is None:
        raise ValueError(f"unknown arithmetic operation {op!r}")
    if len(operands) != d.arity:
        raise TypeError(f"arithmetic operator `{d.symbol}` takes {d.arity} operands")
    if op == "pos" and isinstance(operands[0], DataNode):
        return operands[0]  # DALI short-circuits unary `+`
    nodes: list[DataNode] = []
    constants: list[tuple[int, Any, Any]] = []
    for i, x in enumerate(operands):
        c = _classify(x)
        if isinstance(c, DataNode):
            nodes.append(c)
        else:
            constants.append((i, c[0], c[1]))
    if not nodes:
        raise TypeError(
            f"arithmetic operator `{d.symbol}`: at least one argument must be a DataNode (the "
            f"output of a DALI operator); got only constants."
        )
    device = "gpu" if any(n.device == "gpu" for n in nodes) else "cpu"
    if device == "gpu":
        nodes = [n.gpu() for n in nodes]
    from dali._graph.trace import call_operator

    kwargs: dict[str, Any] = {"op": op, "device": device}
    if constants:
        kwargs["constants"] = tuple(constants)
    return call_operator(ArithmeticGenericOp.schema, tuple(nodes), kwargs)
