"""`fn.cat` and `fn.stack`: joining the samples of several inputs, sample by sample.

Sample *i* of the output joins sample *i* of every input:

* **cat** along an existing axis (``axis``, or the ``axis_name`` of the layout): the samples
  must agree in every other extent; inputs that are empty in the whole batch are skipped, as
  in DALI. The output keeps the layout.
* **stack** along a new axis inserted at ``axis`` (0: whole samples; ``ndim``: interleaved
  values): the samples must have equal shapes. The output has a layout only when the new axis
  is named (``axis_name``), which needs an input layout unless the samples are scalars.

All inputs must have the same type and number of dimensions. As DALI does, the layout that
counts is the first input's. Uniform batches are joined with one array operation for the whole
batch (one launch on the GPU), ragged ones sample by sample.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     a = types.Constant(np.zeros((2, 3), np.uint8), layout="HW")
    ...     b = types.Constant(np.ones((2, 3), np.uint8), layout="HW")
    ...     return fn.cat(a, b, axis_name="W"), fn.stack(a, b, axis=2, axis_name="C")
    >>> c, s = pipe().run()
    >>> c.layout(), c.as_array().shape, s.layout(), s.as_array().shape
    ('HW', (1, 2, 6), 'HWC', (1, 2, 3, 2))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module, run_per_sample

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Cat", "Stack", "shape_text"]

#: DALI accepts up to 999 inputs.
_MAX_INPUTS = 999


def shape_text(shape: tuple[int, ...]) -> str:
    """A sample shape as DALI's messages write it (``2 x 3``; ``scalar`` for 0-D)."""
    return " x ".join(str(d) for d in shape) if shape else "scalar"


class _Join(Operator):
    """What cat and stack share: the argument checks, the input checks, the axis."""

    new_axis = False

    def setup(self) -> None:
        if not self.new_axis and self.has_arg("axis") and self.has_arg("axis_name"):
            raise self.error("Arguments ``axis`` and ``axis_name`` cannot be used together.")
        name = self.arg("axis_name") if self.has_arg("axis_name") else None
        if self.new_axis and name is not None and len(name) != 1:
            raise self.arg_error(
                "axis_name", f"``axis_name`` must be a single character; got {name}"
            )

    def _check_inputs(self, ws: Workspace) -> tuple[Any, int]:
        first = ws.inputs[0]
        dtype, ndim = first.np_dtype, first.sample_ndim
        for i, tl in enumerate(ws.inputs[1:], 1):
            if tl.np_dtype != dtype or tl.sample_ndim != ndim:
                raise self.error(
                    "All inputs must have the same type and number of dimensions.\n"
                    f"input #0: {type_name(first.dtype)}, {ndim}-D\n"
                    f"input #{i}: {type_name(tl.dtype)}, {tl.sample_ndim}-D."
                )
        return first, ndim

    def _axis(self, layout: str, ndim: int) -> int:
        """The axis (non-negative) in the input's dimensions (cat) or the output's (stack)."""
        if self.has_arg("axis_name") and not self.new_axis:
            name = self.arg("axis_name")
            axis = layout.find(name) if len(name) == 1 else -1
            if axis < 0:
                raise self.arg_error(
                    "axis_name",
                    f"``axis_name`` specifies an undefined axis '{name}' for layout \"{layout}\"",
                )
            return axis
        axis = int(self.arg("axis"))
        top = ndim if self.new_axis else ndim - 1
        if not -ndim <= axis <= top:
            raise self.arg_error(
                "axis",
                f"Invalid axis argument, {axis} for {ndim}-D tensors. Accepted range is "
                f"[{-ndim}, {top}], with negative indices being counted from the back.",
            )
        return axis + top + 1 if axis < 0 else axis

    def _out_layout(self, layout: str, axis: int, ndim: int) -> str:
        if not self.new_axis:
            return layout
        if not self.has_arg("axis_name"):
            return ""
        if not layout and ndim > 0:
            raise self.arg_error(
                "axis_name",
                "Specifying the new axis name with ``axis_name`` with non-scalar input "
                "requires a non-empty input layout.",
            )
        return layout[:axis] + self.arg("axis_name") + layout[axis:]

    def run_cpu(self, ws: Workspace) -> Any:
        first, ndim = self._check_inputs(ws)
        layout = first.layout()
        axis = self._axis(layout, ndim)
        out_layout = self._out_layout(layout, axis, ndim)
        xp, tl_cls = array_module(first)
        inputs = list(ws.inputs)
        if not self.new_axis:  # an input empty in the whole batch adds nothing
            nonempty = [tl for tl in inputs if any(s.size for s in tl.samples())]
            inputs = nonempty or inputs[:1]
        n = ws.batch_size
        shapes = [[tuple(s.shape) for s in tl.samples()] for tl in inputs]
        for i in range(n):
            self._check_sample(i, [sh[i] for sh in shapes], axis)
        join = xp.stack if self.new_axis else xp.concatenate
        dense = [tl.held_dense for tl in inputs]
        out_ndim = ndim + self.new_axis
        if all(d is not None for d in dense):
            # one launch for the batch; an empty batch (a branch no sample took) has no sample 0
            if xp is not np or n == 0:
                return tl_cls.wrap(join(dense, axis=axis + 1), out_layout)
            # numpy: one copy per sample, on the pipeline's threads (numpy's copies release
            # the interpreter lock), into one batch array
            first_out = join([d[0] for d in dense], axis=axis)
            out = np.empty((n, *first_out.shape), first_out.dtype)
            out[0] = first_out
            ws.map(lambda i: join([d[i] for d in dense], axis=axis, out=out[i]) if i else None)
            return tl_cls.wrap(out, out_layout)
        per_input = [tl.samples() for tl in inputs]

        def one(i: int) -> Any:
            return join([samples[i] for samples in per_input], axis=axis)

        out_samples = run_per_sample(ws, xp, one, n)
        return tl_cls.wrap(out_samples, out_layout, dtype=first.np_dtype, ndim=out_ndim)

    run_gpu = run_cpu

    def _check_sample(self, i: int, shapes: list[tuple[int, ...]], axis: int) -> None:
        ref = shapes[0]
        for k, shape in enumerate(shapes[1:], 1):
            if self.new_axis:
                if shape != ref:
                    raise self.error(
                        "Tensor stacking requires that all tensors being stacked are of equal "
                        f"shape. Sample {i}: input #0 has shape {shape_text(ref)}, input #{k} "
                        f"has shape {shape_text(shape)}."
                    )
                continue
            for d, (e, r) in enumerate(zip(shape, ref)):
                if d != axis and e != r:
                    raise self.error(
                        "Concatenated tensors can differ in size only in the concatenation axis "
                        f"({axis}). Sample {i}: input #{k} has shape {shape_text(shape)}, which "
                        f"is not compatible with input #0's shape {shape_text(ref)}. Mismatch "
                        f"in axis {d}."
                    )

    @classmethod
    def static_meta(cls, node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        ndim = None if src.ndim is None else src.ndim + cls.new_axis
        layout: str | None = src.layout
        if cls.new_axis:
            name = node.scalar_args.get("axis_name")
            if not name:
                layout = ""
            elif src.layout is None or (not src.layout and src.ndim != 0):
                layout = None  # unknown, or an error at run time
            else:
                axis = int(node.scalar_args.get("axis", 0))
                axis = axis + len(src.layout) + 1 if axis < 0 else axis
                layout = src.layout[:axis] + name + src.layout[axis:]
        return [{"dtype": src.dtype, "ndim": ndim, "layout": layout}]


_AXIS_NAME_DOC = "Name of the join axis in the layout (cat) / of the new axis (stack)."


@register(
    "cat",
    devices=("cpu", "gpu"),
    inputs=(1, _MAX_INPUTS),
    args=[
        Arg("axis", "int", default=0, doc="Axis along which the inputs are concatenated."),
        Arg("axis_name", "str", doc="Name of the concatenation axis (instead of `axis`)."),
    ],
)
class Cat(_Join):
    """Joins the input tensors along an existing axis.

    The shapes of the inputs must match in all dimensions except the concatenation axis.
    ``axis`` accepts [-ndim, ndim-1]; negative indices count from the back. ``axis_name``
    (exclusive with ``axis``) names the axis in the input layout.
    """


@register(
    "stack",
    devices=("cpu", "gpu"),
    inputs=(1, _MAX_INPUTS),
    args=[
        Arg("axis", "int", default=0, doc="Position of the new axis in the output."),
        Arg("axis_name", "str", doc="One-character name of the new axis in the output layout."),
    ],
)
class Stack(_Join):
    """Joins the input tensors along a new axis.

    The shapes of respective tensors in the inputs must match. ``axis`` accepts [-ndim, ndim]:
    0 stacks whole tensors, ``ndim`` interleaves their values. ``axis_name`` names the new
    axis: ``axis=0, axis_name="C"`` on "HW" inputs gives "CHW"; without it the output has no
    layout.
    """

    new_axis = True
