"""`fn.erase`: fill regions of every sample with a value.

A region is an ``anchor`` (its first corner) and a ``shape`` along the axes that ``axis_names``
(or ``axes``) name, in that order; the axes left out are covered whole. Several regions are
given one after the other (``anchor=(y0, x0, y1, x1)``). Without ``axis_names``/``axes`` every
axis but ``C`` is given. Coordinates may be relative to the extent (``normalized_anchor``,
``normalized_shape`` or both with ``normalized``) and the anchor may be the region's centre
(``centered_anchor``). As DALI computes them, in float32: a region spans
``[int(anchor), int(anchor + shape))``, truncated toward zero and clipped to the sample; a
region empty along any axis erases nothing. ``fill_value`` is one value, or one per channel
(the layout must then have a ``C``), converted to the input type as C++ casts it.

Samples of 1 to 5 dimensions (images HWC/CHW, sequences FHWC, volumes DHWC) of the integer
types, float and float16.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     img = fn.external_source(lambda: [np.ones((4, 6, 1), np.uint8)], layout="HWC")
    ...     return fn.erase(img, anchor=(1, 2), shape=(2, 3), fill_value=7)
    >>> out, = pipe().run()
    >>> out.as_array()[0, :, :, 0]
    array([[1, 1, 1, 1, 1, 1],
           [1, 1, 7, 7, 7, 1],
           [1, 1, 7, 7, 7, 1],
           [1, 1, 1, 1, 1, 1]], dtype=uint8)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.noise.generators import c_cast
from dali._ops.numeric import array_module

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Erase"]

_TYPES = (
    "uint8",
    "int8",
    "uint16",
    "int16",
    "uint32",
    "int32",
    "uint64",
    "int64",
    "float32",
    "float16",
)


@register(
    "erase",
    devices=("cpu", "gpu"),
    args=[
        Arg("anchor", "float_vec", default=(), tensor=True,
            doc="Coordinates of the regions' starting points, along the axes given."),
        Arg("shape", "float_vec", default=(), tensor=True,
            doc="Extents of the regions, along the axes given."),
        Arg("axes", "int_vec", default=(1, 0),
            doc="Order of dimensions used for anchor and shape, as dimension indices."),
        Arg("axis_names", "layout", default="HW",
            doc="Order of dimensions used for anchor and shape, as layout names (wins over axes)."),
        Arg("fill_value", "float_vec", default=(0.0,), tensor=True,
            doc="Value of the erased regions: one, or one per channel."),
        Arg("normalized_anchor", "bool", default=False,
            doc="The anchor is relative to the extent ([0, 1])."),
        Arg("normalized_shape", "bool", default=False,
            doc="The shape is relative to the extent ([0, 1])."),
        Arg("normalized", "bool", default=False,
            doc="Both anchor and shape are relative (exclusive with the two above)."),
        Arg("centered_anchor", "bool", default=False,
            doc="The anchor is the centre of the region instead of its first corner."),
    ],
)  # fmt: skip
class Erase(Operator):
    """Erases one or more regions from the input tensors.

    The region is specified by an ``anchor`` (starting point) and a ``shape`` (dimensions).
    Only the relevant dimensions are specified; the others are covered whole. To specify
    multiple regions, ``anchor`` and ``shape`` hold them consecutively (``anchor`` = (y0, x0,
    y1, x1, ...), ``shape`` = (h0, w0, h1, w1, ...)), along the axes of ``axis_names`` or
    ``axes``; without them, all dimensions except ``C`` must be given. ``fill_value`` is one
    value, or one per channel. This operator allows sequence inputs and supports volumetric
    data.
    """

    def setup(self) -> None:
        if self.has_arg("normalized") and (
            self.has_arg("normalized_anchor") or self.has_arg("normalized_shape")
        ):
            raise self.arg_error(
                "normalized",
                "`normalized` argument is incompatible with providing a separate value for "
                "`normalized_anchor` and `normalized_shape`",
            )
        if self.has_arg("normalized"):
            self.norm_anchor = self.norm_shape = bool(self.arg("normalized"))
        else:
            self.norm_anchor = bool(self.arg("normalized_anchor"))
            self.norm_shape = bool(self.arg("normalized_shape"))

    def axes(self, layout: str, ndim: int) -> list[int]:
        """The axes that ``anchor`` and ``shape`` address, in their order."""
        if self.has_arg("axis_names"):
            out = []
            for name in self.arg("axis_names"):
                d = layout.find(name)
                if d < 0:
                    raise self.arg_error(
                        "axis_names", f"Axis '{name}' is not present in the input layout"
                    )
                out.append(d)
            return out
        if self.has_arg("axes"):
            out = list(self.arg("axes"))
            for a in out:
                if not -ndim <= a < ndim:
                    raise self.arg_error("axes", f"axis {a} is out of range for {ndim} dimensions")
            return [a % ndim for a in out]
        if not layout:
            raise self.error(
                "the input has no layout: give `axes` or `axis_names` to say which dimensions "
                "`anchor` and `shape` address"
            )
        return [d for d, c in enumerate(layout) if c != "C"]

    def regions(
        self, anchor: np.ndarray, shape: np.ndarray, axes: list[int], extents: tuple[int, ...]
    ) -> list[tuple[slice, ...]]:
        """One sample's regions as index tuples (clipped; empty regions are dropped)."""
        if anchor.size == 0 and shape.size:
            anchor = np.zeros_like(shape)
        if anchor.size != shape.size:
            raise self.arg_error(
                "anchor",
                f"`anchor` and `shape` must have as many values, got {anchor.size} and "
                f"{shape.size}",
            )
        if shape.size % len(axes):
            raise self.arg_error(
                "shape",
                f"expected a multiple of {len(axes)} values (one per axis of each region), "
                f"got {shape.size}",
            )
        half = np.float32(2)
        out = []
        for r in range(shape.size // len(axes)):
            lo, hi = [0] * len(extents), list(extents)
            for j, axis in enumerate(axes):
                ext = np.float32(extents[axis])
                a, s = anchor[r * len(axes) + j], shape[r * len(axes) + j]
                a = a * ext if self.norm_anchor else a
                s = s * ext if self.norm_shape else s
                if self.arg("centered_anchor"):
                    a = a - s / half
                lo[axis], hi[axis] = int(np.trunc(a)), int(np.trunc(a + s))
            lo = [max(v, 0) for v in lo]
            hi = [min(v, e) for v, e in zip(hi, extents)]
            if all(h - v >= 1 for v, h in zip(lo, hi)):
                out.append(tuple(slice(v, h) for v, h in zip(lo, hi)))
        return out

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        dtype, layout, ndim = tl.np_dtype, tl.layout(), tl.sample_ndim
        if dtype.name not in _TYPES:
            raise self.error(f"Unsupported data type: {type_name(dtype)}")
        if not 1 <= ndim <= 5:
            raise self.error(f"Unsupported number of dimensions {ndim}")
        axes = self.axes(layout, ndim)
        channel = layout.find("C") if layout else -1
        anchors = ws.arg_vectors("anchor", np.float32)
        shapes = ws.arg_vectors("shape", np.float32)
        fills = ws.arg_vectors("fill_value", np.float32)
        samples = tl.samples()
        plans = []  # per sample: (regions, fill), the fill shaped to broadcast over a region
        constant = not any(ws.is_tensor_arg(a) for a in ("anchor", "shape", "fill_value"))
        memo: dict[tuple[int, ...], Any] = {}  # constant arguments: one plan per sample shape
        for i, x in enumerate(samples):
            if constant and tuple(x.shape) in memo:
                plans.append(memo[tuple(x.shape)])
                continue
            fill = np.array([c_cast(v, dtype) for v in fills[i]], dtype)
            if fill.size > 1:
                if channel < 0:
                    raise self.arg_error(
                        "fill_value",
                        "If a multi channel fill value is provided, the input layout must "
                        "have a 'C' dimension",
                    )
                if fill.size != x.shape[channel]:
                    raise self.arg_error(
                        "fill_value",
                        f"sample {i}: Multi-channel fill value does not match the number of "
                        f"channels in the input ({fill.size} values, {x.shape[channel]} "
                        "channels)",
                    )
            regions = self.regions(anchors[i], shapes[i], axes, tuple(x.shape))
            plans.append((regions, fill))
            if constant:
                memo[tuple(x.shape)] = plans[-1]
        dense = tl.held_dense if xp is np else tl.dense()
        if dense is not None and (constant or all(_same(p, plans[0]) for p in plans)):
            # the same regions and fill for every sample: a copy and one assignment per region
            if xp is np:  # the copy sample by sample on the pipeline's threads
                out = np.empty_like(dense)
                ws.map(lambda i: np.copyto(out[i], dense[i]))
            else:
                out = dense.copy()
            for region in plans[0][0]:
                index = (slice(None), *region)
                out[index] = _fill_for(xp, plans[0][1], region, channel, ndim)
            return cls.wrap(out, layout)

        def one(i: int) -> Any:
            y = samples[i].copy()
            regions, fill = plans[i]
            for region in regions:
                y[region] = _fill_for(xp, fill, region, channel, ndim)
            return y

        out_list = ws.map(one) if xp is np else [one(i) for i in range(len(samples))]
        return cls.wrap(out_list, layout, dtype=dtype, ndim=ndim)

    run_gpu = run_cpu

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)


def _same(a: tuple[list[Any], np.ndarray], b: tuple[list[Any], np.ndarray]) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1])


#: A per-channel fill of a region up to this many elements is written out whole first: numpy
#: then copies rows into the image instead of a few channel values at a time from a broadcast
#: (37x faster for a 100x120 RGB region of a batch; RESULTS.md "Operators one by one").
_MATERIALIZE_ELEMENTS = 1 << 20


def _fill_for(xp: Any, fill: np.ndarray, region: tuple[slice, ...], channel: int, ndim: int) -> Any:
    """The value assigned to ``region``: a scalar, or the region's channels of a per-channel
    fill laid along the channel axis (channel ``c`` always takes ``fill[c]``)."""
    if fill.size == 1:
        return fill[0]
    part = fill[region[channel]].reshape([-1 if d == channel else 1 for d in range(ndim)])
    shape = tuple(r.stop - r.start for r in region)
    if xp is np and math.prod(shape) <= _MATERIALIZE_ELEMENTS:
        return np.ascontiguousarray(np.broadcast_to(part, shape))
    return xp.asarray(part)
