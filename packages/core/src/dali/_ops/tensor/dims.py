"""`fn.squeeze` and `fn.expand_dims`: removing and inserting dimensions of extent 1 (no copy).

* **squeeze** removes the dimensions given by index (``axes``, a list or one list per sample)
  or by name (``axis_names``, letters of the input layout); exactly one of the two. A removed
  dimension must have extent 1, unless the sample is empty before and after. The layout loses
  the removed letters.
* **expand_dims** inserts dimensions of extent 1 at the positions ``axes`` of the *output*
  (``axes=[0, 3]`` on an ``HWC`` sample gives ``1 x H x W x 1 x C``). ``new_axis_names`` names
  them in the layout (one letter per axis, in the order of ``axes``); without it the output has
  no layout. Naming needs an input layout, unless the samples are scalars.

Both work on sequences and volumes alike: they only look at the dimension indices.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.zeros((1, 4, 1), np.uint8), layout="HWC")
    ...     return fn.squeeze(x, axis_names="HC"), fn.expand_dims(x, axes=[0], new_axis_names="F")
    >>> s, e = pipe().run()
    >>> s.layout(), s.as_array().shape, e.layout(), e.as_array().shape
    ('W', (1, 4), 'FHWC', (1, 1, 1, 4, 1))
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import REQUIRED, Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ExpandDims", "Squeeze"]


def _reshaped(tl: Any, shapes: list[tuple[int, ...]], layout: str, ndim: int) -> Any:
    """The batch viewed with new sample shapes (one reshape of a dense batch)."""
    _, tl_cls = array_module(tl)
    held = tl.held_dense
    if held is not None and shapes and all(s == shapes[0] for s in shapes):
        return tl_cls.wrap(held.reshape(len(shapes), *shapes[0]), layout)
    out = [s.reshape(shape) for s, shape in zip(tl.samples(), shapes)]
    return tl_cls.wrap(out, layout, dtype=tl.np_dtype, ndim=ndim)


@register(
    "squeeze",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("data",),
    args=[
        Arg("axes", "int_vec", tensor=True, doc="Indices of the dimensions to remove."),
        Arg("axis_names", "layout", doc="Layout letters of the dimensions to remove."),
    ],
)
class Squeeze(Operator):
    """Removes the dimensions given as ``axes`` or ``axis_names``.

    It is an error to remove a dimension that would change the total volume: every removed
    dimension must have extent 1, unless the volume is 0 before and after.
    """

    def setup(self) -> None:
        has_axes, has_names = self.has_arg("axes"), self.has_arg("axis_names")
        if has_axes and has_names:
            raise self.error("Provided both ``axes`` and ``axis_names`` arguments")
        if not (has_axes or has_names):
            raise self.error("Missing argument ``axes`` or ``axis_names``.")
        if has_axes and not self.is_tensor_arg("axes"):
            self._check_axes(list(self.arg("axes")), None)

    def _check_axes(self, axes: list[int], ndim: int | None, sample: int | None = None) -> None:
        where = "" if sample is None else f"sample {sample}: "
        if len(set(axes)) != len(axes):
            raise self.arg_error(
                "axes", f"{where}Specified at least twice same dimension to remove."
            )
        for a in axes:
            if a < 0 or (ndim is not None and a >= ndim):
                bound = "" if ndim is None else f" [0, {ndim - 1}]"
                raise self.arg_error(
                    "axes",
                    f"{where}Dimension passed in axes is out of the bounds{bound}: {a}",
                )

    def _axes(self, ws: Workspace, layout: str, ndim: int) -> list[tuple[int, ...]]:
        """The axes to remove, per sample (one tuple, repeated, unless given per sample)."""
        if self.has_arg("axis_names"):
            names = self.arg("axis_names")
            for c in names:
                if c not in layout:
                    raise self.arg_error(
                        "axis_names", f"Axis '{c}' is not present in the input layout \"{layout}\""
                    )
            return [tuple(d for d, c in enumerate(layout) if c in names)] * ws.batch_size
        if not ws.is_tensor_arg("axes"):
            axes = tuple(int(a) for a in self.arg("axes"))
            self._check_axes(list(axes), ndim)
            return [axes] * ws.batch_size
        per_sample = [tuple(int(a) for a in v) for v in ws.arg_vectors("axes", np.int64)]
        for i, axes in enumerate(per_sample):
            self._check_axes(list(axes), ndim, i)
        return per_sample

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        ndim, layout = tl.sample_ndim, tl.layout()
        per_sample = self._axes(ws, layout, ndim)
        removed = set(per_sample[0]) if per_sample else set()
        if any(len(a) != len(removed) for a in per_sample):
            raise self.arg_error("axes", "all samples must remove the same number of dimensions")
        out_ndim = ndim - len(removed)
        out_shapes = []
        memo: dict[tuple[Any, ...], tuple[int, ...]] = {}  # a uniform batch: one computation
        for i, (shape, axes) in enumerate(zip(tl.shape(), per_sample)):
            out = memo.get((shape, axes))
            if out is None:
                out = tuple(e for d, e in enumerate(shape) if d not in axes)
                if math.prod(out) != math.prod(shape):
                    raise SampleFailure(
                        i,
                        self.error(
                            "The volume of the new shape should match the one of the original "
                            f"shape. Requested a shape with {math.prod(out)} elements but the "
                            f"original shape has {math.prod(shape)} elements (sample {i}: shape "
                            f"{shape}, axes {sorted(axes)})."
                        ),
                    )
                memo[shape, axes] = out
            out_shapes.append(out)
        out_layout = "".join(c for d, c in enumerate(layout) if d not in removed)
        return _reshaped(tl, out_shapes, out_layout, out_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        args = node.scalar_args
        if "axis_names" in args and src.layout:
            names = args["axis_names"]
            removed = {d for d, c in enumerate(src.layout) if c in names}
        elif "axes" in args and src.ndim is not None:
            removed = {int(a) for a in args["axes"]}
            if any(not 0 <= a < src.ndim for a in removed):
                return [{"dtype": src.dtype}]  # an error at run time
        else:
            return [{"dtype": src.dtype}]
        ndim = None if src.ndim is None else src.ndim - len(removed)
        layout = src.layout
        if layout:
            layout = "".join(c for d, c in enumerate(layout) if d not in removed)
        shape = src.static_shape
        if shape is not None:
            shape = tuple(e for d, e in enumerate(shape) if d not in removed)
        return [{"dtype": src.dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]


@register(
    "expand_dims",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("data",),
    args=[
        Arg("axes", "int_vec", default=REQUIRED, doc="Output positions of the new dimensions."),
        Arg("new_axis_names", "layout", default="", doc="Layout letters of the new dimensions."),
    ],
)
class ExpandDims(Operator):
    """Insert new dimension(s) with extent 1 to the data shape.

    The new dimensions are inserted at the positions specified by ``axes`` (positions in the
    output). With ``new_axis_names`` (one letter per axis) their names are inserted in the
    layout at the same positions; without it the output layout is empty.
    """

    def setup(self) -> None:
        axes = [int(a) for a in self.arg("axes")]
        for a in axes:
            if a < 0:
                raise self.arg_error("axes", f"Axis value can't be negative: {a}")
        if len(set(axes)) != len(axes):
            raise self.arg_error("axes", f"Duplicate axis index found: {axes}")
        names = self.arg("new_axis_names")
        if names and len(names) != len(axes):
            raise self.arg_error(
                "new_axis_names",
                f"Specified {len(axes)} new dimensions, but layout contains only {len(names)} "
                "new dimension names",
            )
        order = sorted(range(len(axes)), key=lambda k: axes[k])
        self._axes = [axes[k] for k in order]
        self._names = "".join(names[k] for k in order) if names else ""

    def _out(self, shape: tuple[int, ...], layout: str) -> tuple[tuple[int, ...], str]:
        ndim = len(shape) + len(self._axes)
        for a in self._axes:
            if a >= ndim:
                raise self.arg_error(
                    "axes",
                    "Data has not enough dimensions to add new axes at specified indices: "
                    f"axis {a} for a {len(shape)}-D input ({ndim}-D output).",
                )
        dims, names = iter(shape), iter(layout)
        new = dict(zip(self._axes, self._names or " " * len(self._axes)))
        out_shape, out_layout = [], []
        for d in range(ndim):
            if d in new:
                out_shape.append(1)
                out_layout.append(new[d])
            else:
                out_shape.append(next(dims))
                out_layout.append(next(names, ""))
        return tuple(out_shape), "".join(out_layout) if self._names else ""

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        layout = tl.layout()
        if self._names and not layout and tl.sample_ndim > 0:
            raise self.arg_error(
                "new_axis_names",
                "Specifying ``new_axis_names`` requires an input with a proper layout.",
            )
        memo: dict[tuple[int, ...], tuple[tuple[int, ...], str]] = {}
        outs = []
        for shape in tl.shape():  # a uniform batch: one computation
            out = memo.get(shape)
            if out is None:
                out = memo[shape] = self._out(shape, layout)
            outs.append(out)
        out_layout = outs[0][1] if outs else self._out((0,) * tl.sample_ndim, layout)[1]
        ndim = tl.sample_ndim + len(self._axes)
        return _reshaped(tl, [o[0] for o in outs], out_layout, ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        axes = sorted(int(a) for a in node.scalar_args.get("axes", ()))
        names = node.scalar_args.get("new_axis_names", "")
        if (
            len(set(axes)) != len(axes)
            or any(a < 0 for a in axes)
            or len(names) not in (0, len(axes))
        ):
            return [{"dtype": src.dtype}]  # an error at build
        ndim = None if src.ndim is None else src.ndim + len(axes)
        layout = "" if not names else None
        if names and src.layout is not None and ndim is not None and len(src.layout) == src.ndim:
            order = sorted(range(len(axes)), key=lambda k: node.scalar_args["axes"][k])
            new = {node.scalar_args["axes"][k]: names[k] for k in order}
            rest = iter(src.layout)
            layout = "".join(new[d] if d in new else next(rest, "") for d in range(ndim))
        shape = src.static_shape
        if shape is not None and ndim is not None and all(a < ndim for a in axes):
            rest_shape = iter(shape)
            shape = tuple(1 if d in axes else next(rest_shape) for d in range(ndim))
        else:
            shape = None
        return [{"dtype": src.dtype, "ndim": ndim, "layout": layout, "static_shape": shape}]
