"""Recording an operator call: `fn.x(...)` and `ops.X(...)(...)` both end here."""

from __future__ import annotations

import os
import sys
import traceback
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from dali._graph import context
from dali._graph.args import (
    ArgumentError,
    UnknownArgumentError,
    convert_scalar,
    is_scalar_value,
)
from dali._graph.node import DataNode, OpNode
from dali._graph.schema import Schema

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["EagerCalls", "call_operator", "constant_node", "definition_site", "trace_call"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_detached_counter = [0]
_creation_counter = [0]


def definition_site() -> str:
    """The user's source line that created the operator: the first frame outside `dali`'s
    modules, those of core and of every plugin distribution (``dali.plugin.*``, installed
    wherever)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        fname = os.path.abspath(frame.f_code.co_filename)
        module = str(frame.f_globals.get("__name__", ""))
        ours = fname.startswith(_PKG_DIR) or module == "dali" or module.startswith("dali.")
        if not ours and "<dali-conditionals>" not in fname:
            summary = traceback.extract_stack(frame, limit=1)[-1]
            line = (summary.line or "").strip()
            return (
                f'  File "{summary.filename}", line {summary.lineno}, in {summary.name}\n    {line}'
            )
        frame = frame.f_back
    return ""


def _device_of_inputs(inputs: list[Any]) -> str:
    for x in inputs:
        if isinstance(x, DataNode) and x.device == "gpu":
            return "gpu"
    return "cpu"


def constant_node(
    value: Any, *, layout: str = "", device: str = "cpu", dtype: Any = None, **kwargs: Any
) -> DataNode:
    """A graph node holding the same array for every sample (`types.Constant`).

    Extra keyword arguments (``name``, ``preserve``) are the common operator arguments.
    """
    from dali._ops.constant import constant as _constant_op

    node: DataNode = _constant_op(
        np.asarray(value), layout=layout, device=device, dtype=dtype, **kwargs
    )
    return node


def _promote_positional(value: Any, device: str) -> DataNode:
    if isinstance(value, DataNode):
        return value
    from dali.types import ScalarConstant

    if isinstance(value, (bool, int, float)):  # DALI wraps a Python number in types.Constant
        value = ScalarConstant(value)
    if isinstance(value, ScalarConstant):
        from dali._dtypes import np_dtype

        return constant_node(np.asarray(value.value, dtype=np_dtype(value.dtype)), device=device)
    return constant_node(np.asarray(value), device=device)


def _is_input_set(value: Any) -> bool:
    """DALI's rule: a positional input is a multiple input set when it is a list holding at
    least one DataNode and nothing but DataNodes and scalar constants."""
    from dali.types import ScalarConstant

    return (
        isinstance(value, list)
        and any(isinstance(x, DataNode) for x in value)
        and all(isinstance(x, (DataNode, ScalarConstant)) for x in value)
    )


class EagerCalls(Protocol):
    """What runs operator calls at once instead of recording them: a pipeline in debug mode
    sets one as its ``_eager`` while its definition runs (`dali._pipeline.debug`)."""

    def call(
        self,
        schema: Schema,
        inputs: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        name_hint: str | None,
    ) -> Any: ...


def call_operator(
    schema: Schema,
    inputs: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    name_hint: str | None = None,
) -> Any:
    """Trace one operator call; returns a DataNode, a list of them, or None (no outputs).

    In a pipeline that runs in debug mode the call is handed to the pipeline's `EagerCalls`,
    which traces it (`trace_call`) and runs it at once.
    """
    pipe = context.current_pipeline()
    eager = pipe._eager if pipe is not None else None
    if eager is not None:
        return eager.call(schema, inputs, kwargs, name_hint)
    return trace_call(schema, inputs, kwargs, name_hint=name_hint)


def trace_call(
    schema: Schema,
    inputs: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    name_hint: str | None = None,
) -> Any:
    """Record one operator call in the current pipeline (`call_operator`, without the debug
    mode's hand-off); returns a DataNode, a list of them, or None (no outputs)."""
    op_display = schema.display_name
    kwargs = {k: v for k, v in kwargs.items() if v is not None}  # None means "not given"

    # A list of DataNodes is a "multiple input set": the operator is applied to each element.
    # Any other positional value (a tuple, a list of numbers) is a constant (`types.Constant`).
    list_sets = [x for x in inputs if _is_input_set(x)]
    if list_sets:
        n = len(list_sets[0])
        if any(len(x) != n for x in list_sets):
            raise ValueError(
                f"Operator `{op_display}`: all lists given as inputs (multiple input sets) "
                f"must have the same length."
            )
        results = []
        for i in range(n):
            one = tuple(x[i] if _is_input_set(x) else x for x in inputs)
            results.append(call_operator(schema, one, kwargs, name_hint=name_hint))
        return results

    for k in kwargs:
        if k not in schema.args:
            valid = ", ".join(sorted(a for a in schema.args))
            raise UnknownArgumentError(
                f'Argument "{k}" is not defined for operator "{op_display}". '
                f"Valid arguments are: {valid}."
            )

    device = kwargs.get("device")
    if device is None:
        device = _device_of_inputs(list(inputs))
        if device == "gpu" and "gpu" not in schema.devices:
            device = "cpu"  # e.g. a CPU-only op on GPU data: reported at build
    if not isinstance(device, str) or device not in ("cpu", "gpu", "mixed"):
        raise ValueError(
            f'Operator `{op_display}`: invalid device {device!r}; use "cpu", "gpu" or "mixed".'
        )
    if device not in schema.devices:
        raise ValueError(
            f'Operator `{op_display}` does not support device="{device}"; supported: '
            + ", ".join(f'"{d}"' for d in schema.devices)
            + "."
        )

    if not schema.min_inputs <= len(inputs) <= schema.max_inputs:
        lo, hi = schema.min_inputs, schema.max_inputs
        expect = f"{lo}" if lo == hi else f"from {lo} to {hi}"
        raise ValueError(
            f"Operator `{op_display}` expects {expect} inputs, but received {len(inputs)}."
        )
    in_device = "gpu" if device == "gpu" else "cpu"
    nodes = tuple(_promote_positional(x, in_device) for x in inputs)
    # Operators that read only metadata (shapes, layout) take GPU inputs on the CPU.
    if device == "cpu" and not schema.extra.get("metadata_inputs"):
        for i, node in enumerate(nodes):
            if node.device == "gpu":
                raise ValueError(
                    f"Operator `{op_display}`: input {i} is on the GPU, but the operator runs on "
                    f'the CPU (device="cpu"). Move the data with `.cpu()` or run the operator on '
                    f'the GPU (device="gpu").'
                )
    if device == "mixed":
        for i, node in enumerate(nodes):
            if node.device != "cpu":
                raise ValueError(
                    f'Operator `{op_display}` with device="mixed" takes CPU inputs; input {i} '
                    f"is on the GPU."
                )

    scalar_args: dict[str, Any] = {}
    arg_inputs: dict[str, DataNode] = {}
    for k, v in kwargs.items():
        if k == "device":
            continue
        arg = schema.args[k]
        if isinstance(v, DataNode):
            if not arg.tensor:
                raise ArgumentError(
                    f"The argument `{k}` for operator `{op_display}` should not be a "
                    f"'DataNode' but a '{arg.type}': it cannot take per-sample values."
                )
            if v.device != "cpu":
                raise ValueError(
                    f"Invalid device \"{v.device}\" for argument '{k}' of operator "
                    f"`{op_display}`. Named arguments must be on CPU."
                )
            arg_inputs[k] = v
        elif arg.type not in ("any", "callable") and not is_scalar_value(v):
            if arg.tensor:
                arg_inputs[k] = constant_node(np.asarray(v))
            else:
                scalar_args[k] = convert_scalar(op_display, arg, v)
        else:
            scalar_args[k] = convert_scalar(op_display, arg, v)

    return _record(schema, device, nodes, scalar_args, arg_inputs, name_hint)


def _record(
    schema: Schema,
    device: str,
    inputs: tuple[DataNode, ...],
    scalar_args: dict[str, Any],
    arg_inputs: dict[str, DataNode],
    name_hint: str | None,
) -> Any:
    pipe = context.current_pipeline()
    name: str | None = scalar_args.get("name")
    auto = name is None
    if name is None:
        if pipe is not None:
            name = f"__{schema.class_name}_{pipe._next_op_index()}"
        else:
            name = f"__{schema.class_name}_detached_{_detached_counter[0]}"
            _detached_counter[0] += 1
    elif pipe is not None:
        pipe._claim_name(name, schema)
    _creation_counter[0] += 1
    scope = context.current_scope()
    op = OpNode(
        schema=schema,
        device=device,
        inputs=inputs,
        scalar_args=scalar_args,
        arg_inputs=arg_inputs,
        name=name,
        auto_named=auto,
        pipeline=weakref.ref(pipe) if pipe is not None else None,
        creation_index=_creation_counter[0],
        definition=definition_site(),
        scope=scope,
    )
    if scope is not None:
        scope.adopt(op)
    n_out = schema.outputs_for(scalar_args, len(inputs))
    metas: Sequence[dict[str, Any] | None] = schema.impl.static_meta(op) or ()
    out_device = "gpu" if device in ("gpu", "mixed") else "cpu"
    for i in range(n_out):
        meta = metas[i] if i < len(metas) else None
        out_name = name if n_out == 1 else f"{name}[{i}]"
        op.outputs.append(DataNode(out_name, out_device, op, i, **(meta or {})))
    if pipe is not None:
        pipe._add_op(op)
    if n_out == 0:
        return None
    return op.outputs[0] if n_out == 1 else list(op.outputs)
