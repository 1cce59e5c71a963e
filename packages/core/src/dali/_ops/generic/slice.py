"""`fn.slice` (DALI §3.18): extract a sub-tensor given by coordinates.

The window is given either by two extra positional inputs, ``anchor`` and ``shape`` (floats are
relative to the input extents when ``normalized_anchor``/``normalized_shape`` are set, the
default; integers are always absolute), or by named arguments: ``start``/``rel_start`` with
``end``/``rel_end``/``shape``/``rel_shape``. The values apply to the dimensions named by
``axis_names`` (default ``"WH"``: x first, then y) or given by ``axes``. As in DALI, the start
and end are computed in double precision and rounded to the nearest integer (halves away from
zero); with both relative, the end is ``(rel_start + rel_shape) · extent`` to keep the error
small. A window outside the input follows ``out_of_bounds_policy`` ("error", "pad" with
``fill_values``, "trim_to_shape"), exactly as `fn.crop`.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def, types
    >>> img = np.arange(4 * 6 * 1, dtype=np.uint8).reshape(4, 6, 1)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = types.Constant(img, layout="HWC")
    ...     return fn.slice(x, start=[1, 2], shape=[3, 2]), fn.slice(x, rel_start=[0.5, 0.5], rel_end=[1, 1])
    >>> a, b = pipe().run()
    >>> np.array_equal(a.as_array()[0], img[2:4, 1:4]), np.array_equal(b.as_array()[0], img[2:, 3:])
    (True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.generic.cast import (
    array_module,
    batch_array,
    host_samples,
    per_sample_vectors,
    round_half_away_int,
)
from dali._ops.generic.layout import axes_from_args
from dali._ops.image._window import (
    SLICE_ARGS,
    apply_policy,
    check_policy,
    extract_windows,
    output_dtype_arg,
    slice_shape_error,
    window_meta,
)

__all__ = ["Slice"]

_I64 = float(2**63)
_NAMED = ("start", "rel_start", "end", "rel_end", "shape", "rel_shape")


@register(
    "slice",
    devices=("cpu", "gpu"),
    inputs=(1, 3),
    input_names=("data", "anchor", "shape"),
    args=[
        *SLICE_ARGS,
        Arg("dtype", "dtype", doc="Output type (default: the input's)."),
        Arg("image_type", "image_type", doc="Deprecated; ignored."),
        Arg("output_dtype", "dtype", doc="Deprecated alias of `dtype`."),
    ],
)
class Slice(Operator):
    """Extract a slice: ``fn.slice(x, anchor, shape)`` or ``fn.slice(x, start=..., end=...)``.

    With the default ``axis_names="WH"`` the coordinates are (x, y): ``start=[1, 2],
    shape=[3, 2]`` of an HWC image is ``img[2:4, 1:4]``.
    """

    def setup(self) -> None:
        n_in = len(self.node.inputs)
        if n_in == 2:
            raise self.error("expects the anchor and the shape as two extra inputs, got only one")
        named = [k for k in _NAMED if self.has_arg(k)]
        if n_in == 3 and named:
            raise self.arg_error(
                named[0],
                "named arguments start/end/shape are not compatible with the positional anchor "
                "and shape inputs",
            )
        if n_in == 1 and not named:
            raise self.error(
                "expected named slice arguments (e.g. start/end, start/shape) or positional "
                "inputs (anchor, shape)"
            )
        if self.has_arg("start") and self.has_arg("rel_start"):
            raise self.arg_error("rel_start", '"start" and "rel_start" are mutually exclusive')
        ends = [k for k in ("end", "rel_end", "shape", "rel_shape") if self.has_arg(k)]
        if len(ends) > 1:
            raise self.arg_error(
                ends[1], '"end", "rel_end", "shape" and "rel_shape" are mutually exclusive'
            )
        if self.has_arg("axes") and self.has_arg("axis_names"):
            raise self.arg_error("axis_names", '"axes" and "axis_names" are mutually exclusive')
        for name in ("shape", "rel_shape"):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                err = slice_shape_error(self, name, self.arg(name))
                if err is not None:
                    raise err
        self._named = named
        self._policy = check_policy(self)
        self._dtype = output_dtype_arg(self, None)

    def _axes(self, ndim: int, layout: str) -> list[int]:
        if self.has_arg("axes"):
            return axes_from_args(self, self.arg("axes"), None, ndim, layout)
        return axes_from_args(self, None, self.arg("axis_names"), ndim, layout)

    def _positional(self, ws: Any, n: int, naxes: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per-sample (anchor, shape) from the two extra inputs, checked."""
        out = []
        anchors, shapes = host_samples(ws.inputs[1]), host_samples(ws.inputs[2])
        for i in range(n):
            a, s = np.asarray(anchors[i]), np.asarray(shapes[i])
            if a.dtype != s.dtype:
                raise self.error(
                    f"anchor and shape should have the same type; got {a.dtype} and {s.dtype}"
                )
            if a.ndim > 1 or a.shape != s.shape:
                raise SampleFailure(
                    i, self.error("anchor and shape must be 1-D tensors of the same shape")
                )
            a, s = a.reshape(-1), s.reshape(-1)
            if a.size != naxes:
                raise SampleFailure(
                    i, self.error(f"unexpected number of arguments {a.size} vs {naxes} axes")
                )
            out.append((a, s))
        return out

    def _get(self, ws: Any, name: str, naxes: int) -> list[np.ndarray] | None:
        if not self.has_arg(name):
            return None
        values = per_sample_vectors(ws, self, name, np.float64)
        for i, v in enumerate(values):
            if v.size != naxes:
                raise SampleFailure(
                    i, self.arg_error(name, f"has {v.size} values for {naxes} sliced axes")
                )
        return values

    def _window(
        self, i: int, in_shape: tuple[int, ...], axes: list[int], start: Any, end: Any
    ) -> tuple[list[int], list[int]]:
        anchor = [0] * len(in_shape)
        shape = list(in_shape)
        for k, dim in enumerate(axes):
            a, e = float(start[k]), float(end[k])
            if not (-_I64 <= a <= _I64):
                raise SampleFailure(i, self.error(f"anchor value out of range; got {a}"))
            if not (-_I64 <= e <= _I64):
                raise SampleFailure(i, self.error(f"end coordinates out of range; got {e}"))
            if e < a:
                raise SampleFailure(
                    i,
                    self.error(f"end coordinates can't be before start coordinates; got {a}, {e}"),
                )
            anchor[dim] = round_half_away_int(a)
            shape[dim] = round_half_away_int(e) - anchor[dim]
        return anchor, shape

    def _windows(self, ws: Any, shapes: list[tuple[int, ...]], layout: str, ndim: int) -> list[Any]:
        axes = self._axes(ndim, layout)
        naxes = len(axes)
        n = len(shapes)
        wins = []
        if len(self.node.inputs) == 3:
            for i, (a, s) in enumerate(self._positional(ws, n, naxes)):
                err = slice_shape_error(self, "shape input", s)
                if err is not None:
                    raise SampleFailure(i, err)
                ext = np.array([shapes[i][d] for d in axes], np.float64)
                norm_a = a.dtype.kind == "f" and self.arg("normalized_anchor")
                norm_s = s.dtype.kind == "f" and self.arg("normalized_shape")
                a64, s64 = a.astype(np.float64), s.astype(np.float64)
                if norm_a and norm_s:
                    end = (a64 + s64) * ext
                    start = a64 * ext
                else:
                    start = a64 * ext if norm_a else a64
                    end = start + (s64 * ext if norm_s else s64)
                wins.append(self._window(i, shapes[i], axes, start, end))
            return wins
        start_v, rel_start_v = self._get(ws, "start", naxes), self._get(ws, "rel_start", naxes)
        end_v, rel_end_v = self._get(ws, "end", naxes), self._get(ws, "rel_end", naxes)
        shape_v, rel_shape_v = self._get(ws, "shape", naxes), self._get(ws, "rel_shape", naxes)
        for i, in_shape in enumerate(shapes):
            ext = np.array([in_shape[d] for d in axes], np.float64)
            if start_v is not None:
                start = start_v[i]
            elif rel_start_v is not None:
                start = rel_start_v[i] * ext
            else:
                start = np.zeros(naxes)
            if end_v is not None:
                end = end_v[i]
            elif rel_end_v is not None:
                end = rel_end_v[i] * ext
            elif shape_v is not None:
                err = slice_shape_error(self, "shape", shape_v[i])
                if err is not None:
                    raise SampleFailure(i, err)
                end = start + shape_v[i]
            elif rel_shape_v is not None:
                err = slice_shape_error(self, "rel_shape", rel_shape_v[i])
                if err is not None:
                    raise SampleFailure(i, err)
                if rel_start_v is not None:  # one multiplication, as DALI, for less rounding
                    end = (rel_start_v[i] + rel_shape_v[i]) * ext
                else:
                    end = start + rel_shape_v[i] * ext
            else:
                end = ext
            wins.append(self._window(i, in_shape, axes, start, end))
        return wins

    def run_cpu(self, ws: Any) -> Any:
        tl = ws.inputs[0]
        xp, tl_cls = array_module(tl)
        layout = tl._layout
        ndim = tl._ndim
        out_dtype = self._dtype or tl._np_dtype
        n = len(tl)
        if n == 0:
            return tl_cls._make([], layout, dtype=out_dtype, ndim=ndim)
        dense = batch_array(tl, xp)
        shapes = (
            [tuple(dense.shape[1:])] * n
            if dense is not None
            else [tuple(s.shape) for s in tl._samples()]
        )
        wins = []
        for i, (anchor, shape) in enumerate(self._windows(ws, shapes, layout, ndim)):
            w = apply_policy(self._policy, anchor, shape, shapes[i])
            if isinstance(w, str):
                raise SampleFailure(i, self.arg_error("out_of_bounds_policy", w))
            wins.append(w)
        return extract_windows(self, ws, tl, dense, wins, out_dtype, layout)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return window_meta(node, node.inputs[0].layout)
