"""`fn.reinterpret`: the same bytes seen with another type, shape and/or layout (no copy).

`fn.reshape` plus ``dtype``. With a new ``dtype`` and no new shape, the innermost extent is
rescaled (``HWC`` uint8 ``[h, w, 4]`` as FLOAT is ``[h, w, 1]``); it must hold a whole number of
output elements. With a shape (``shape``, ``rel_shape``, ``src_dims`` or the shape input), the
extents count output elements, and the sample's size in bytes must not change; a ``-1`` extent
takes what is left. The layout is kept when the number of dimensions is, cleared otherwise,
unless ``layout`` is given.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(np.array([[1, 0, 2, 0]], np.uint8), layout="HW")
    ...     return fn.reinterpret(x, dtype=types.UINT16), fn.reinterpret(x, dtype=types.INT16, shape=[-1])
    >>> a, b = pipe().run()
    >>> a.layout(), a.as_array()[0].tolist(), b.layout(), b.as_array()[0].tolist()
    ('HW', [[1, 2]], '', [1, 2])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import np_dtype, type_name
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.generic.layout import Reshape
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Reinterpret"]


@register(
    "reinterpret",
    devices=("cpu", "gpu"),
    inputs=(1, 2),
    input_names=("data", "shape_input"),
    args=[
        Arg("shape", "int_vec", tensor=True, doc="New shape; one extent may be -1."),
        Arg("rel_shape", "float_vec", tensor=True, doc="New shape relative to the input's."),
        Arg("layout", "layout", doc="New layout ('' clears it)."),
        Arg("src_dims", "int_vec", tensor=True, doc="Input dimensions to keep (-1: insert 1)."),
        Arg("dtype", "dtype", doc="Output type: the same bytes seen as this type."),
    ],
)
class Reinterpret(Reshape):
    """Treats content of the input as if it had a different type, shape, and/or layout.

    The buffer contents are not copied. With ``dtype`` alone the innermost dimension is
    adjusted; its size in bytes must be divisible by the size of the new type.
    """

    no_op = "is no-op: arguments specify neither new shape, layout nor type."

    def _changes_more(self) -> bool:
        return super()._changes_more() or self.has_arg("dtype")

    def setup(self) -> None:
        super().setup()
        self._out_dtype = np_dtype(self.arg("dtype")) if self.has_arg("dtype") else None

    def _in_shape(self, i: int, shape: tuple[int, ...], in_size: int, size: int) -> tuple[int, ...]:
        """The input's shape counted in output elements: the innermost extent rescaled, or
        (when that is not a whole number and a shape is given) the flat number of elements."""
        if in_size == size:
            return shape
        inner = shape[-1] if shape else 1
        if (inner * in_size) % size == 0:
            return (*shape[:-1], inner * in_size // size) if shape else (in_size // size,)
        total = math.prod(shape) * in_size
        if self._source is not None and not self.has_arg("src_dims") and total % size == 0:
            return (total // size,)
        raise SampleFailure(
            i,
            self.arg_error(
                "dtype",
                f"The size, in bytes, of the innermost dimension is not divisible by the size "
                f"of the requested output type: sample {i} of shape {shape} "
                f"({inner * in_size} bytes) as {type_name(self.arg('dtype'))} ({size} bytes)",
            ),
        )

    def run_cpu(self, ws: Workspace) -> Any:
        if self._out_dtype is None:
            return super().run_cpu(ws)
        tl = ws.inputs[0]
        _, tl_cls = array_module(tl)
        in_size, size = tl.np_dtype.itemsize, self._out_dtype.itemsize
        held = tl.held_dense
        shapes = (
            [tuple(held.shape[1:])] * held.shape[0]
            if held is not None
            else [tuple(s.shape) for s in tl.samples()]
        )
        n = len(shapes)
        per_sample = len(self.node.inputs) > 1 or any(
            ws.is_tensor_arg(a) for a in ("shape", "rel_shape", "src_dims")
        )
        if held is not None and not per_sample and n > 1:  # one shape: computed once
            shapes = shapes[:1]
        virtual = [self._in_shape(i, s, in_size, size) for i, s in enumerate(shapes)]
        req = self._requested(ws, len(shapes))
        src_dims = ws.arg_vectors("src_dims", np.int64) if self.has_arg("src_dims") else None
        outs = [
            self._out_shape(
                i,
                virtual[i],
                None if req is None else req[i],
                None if src_dims is None else src_dims[i],
            )
            for i in range(len(shapes))
        ]
        if req is None and src_dims is None:
            outs = virtual
        outs = outs * n if len(outs) == 1 < n else outs
        out_ndim = len(outs[0]) if outs else tl.sample_ndim
        if any(len(o) != out_ndim for o in outs):
            raise self.error("all samples must have the same number of dimensions")
        layout = self._layout(tl.layout(), tl.sample_ndim, out_ndim)
        dtype = self._out_dtype
        if held is not None and n and all(o == outs[0] for o in outs):
            flat = held.reshape(n, -1).view(dtype)
            return tl_cls.wrap(flat.reshape(n, *outs[0]), layout)
        samples = [s.reshape(-1).view(dtype).reshape(o) for s, o in zip(tl.samples(), outs)]
        return tl_cls.wrap(samples, layout, dtype=dtype, ndim=out_ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        from dali._dtypes import dali_dtype

        meta = Reshape.static_meta(node)[0]
        dtype = node.scalar_args.get("dtype")
        if dtype is None:
            return [meta]
        src = node.inputs[0]
        plain = not ({"shape", "rel_shape", "src_dims"} & set(node.scalar_args))
        plain = plain and len(node.inputs) == 1 and not node.arg_inputs
        meta = {**meta, "dtype": dali_dtype(dtype), "static_shape": None}
        if plain:  # only the type changes: the innermost extent is rescaled
            layout = node.scalar_args.get("layout", src.layout)
            meta.update(ndim=src.ndim, layout=layout)
        return [meta]
