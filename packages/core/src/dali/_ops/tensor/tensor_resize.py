"""`fn.tensor_resize`: resampling of any dimensions of a tensor, on `fn.resize`'s engine.

`fn.resize` finds the spatial axes of an image in its layout (``HW`` of ``HWC``, ``DHW`` of
``DHWC``). `fn.tensor_resize` has no such notion: every dimension of the sample may be resized,
and ``sizes``/``scales`` name the output extents of the dimensions that ``axes`` (or
``axis_names``, letters of the layout) pick; the others keep their extent. The arguments
follow the tensor's order (``sizes=[1, 1, 7, 8]`` on an NCHW sample), as ONNX's ``Resize``
does, which the operator was written for.

How it maps onto the resampling engine (`dali._ops.image.resample`), as DALI maps it onto
its ``ResizeBase``:

1. *Geometry.* Every dimension is a "spatial" axis of `resample.geometry.output_geometry`:
   a dimension not in ``axes`` asks for its own extent (scale 1, region ``[0, extent)``), so
   it is left alone in modes "default" and "stretch"; "not_larger"/"not_smaller" keep the
   aspect ratio of the whole tensor. ``scales`` become requested sizes
   (``scale * extent``, in float32), ``size_rounding`` and ``alignment`` decide how a
   fractional size is rounded and which point of the region stays put (0: its start, 0.5:
   its centre, 1: its end).
2. *The resized block.* Leading and trailing dimensions that no sample changes are dropped
   (keeping at least two); what remains is a block of consecutive dimensions, the spatial
   axes the engine resamples: the dimensions before it are looped over like frames, those
   after it are carried along like channels. A block of more than 3 dimensions is an error
   (DALI's kernels resample 2-D and 3-D blocks); a 1-D sample is resampled as a ``(1, n)``
   image. Unchanged dimensions inside the block are resampled with an identity plan, which
   the CPU path skips (so two resized dimensions with an untouched one between them still
   take the fast 2-D path, moved next to each other).
3. *Pixels.* `resample.cpu.resample` per sample (the thread pool), or one batched
   `resample.gpu.resample_batch` call on the GPU.

Inputs are uint8, int16, uint16 or float; the output is the input type or FLOAT (``dtype``).

Example:
    >>> import numpy as np
    >>> import dali
    >>> from dali import fn
    >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [np.ones((4, 6, 5), np.float32)])
    ...     return fn.tensor_resize(x, scales=[0.5, 2.0], axes=[0, 2])
    >>> p = pipe(); p.build()
    >>> p.run()[0].shape()
    [(2, 6, 10)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._dtypes import dali_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.image.resample.cpu import resample, separable_3d
from dali._ops.image.resample.geometry import (
    MODES,
    ROUNDINGS,
    cached_geometry,
    cached_plans,
    f32,
    f32_array,
)
from dali._ops.image.resample.reference import AxisPlan
from dali._ops.image.resize import FILTER_ARGS, ResamplingOperator
from dali._ops.window.axes import axes_from_args
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["TensorResize", "resized_block"]

#: The input types DALI's resampling kernels take.
_INPUT_TYPES = (np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.uint16), np.dtype(np.float32))
#: DALI's "no limit" of the dimensions ``max_size`` does not name: the largest float below
#: INT_MAX (``nextafter(float(INT_MAX), 0)``).
_NO_MAX_SIZE = float(np.nextafter(np.float32(2**31 - 1), np.float32(0)))
#: The most consecutive dimensions the kernels resample at once.
_MAX_BLOCK = 3

Geometry = tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]


class BatchPlan(NamedTuple):
    """The geometry of one batch, every sample seen with at least 2 dimensions.

    Attributes:
        lead: Leading extents of 1 added to the samples (1 for 1-D samples, else 0).
        shapes: The (expanded) input shapes.
        geoms: Per sample ``(out_size, lo, hi)`` of every dimension (`output_geometry`).
        first: The first dimension of the resized block.
        nsp: The number of dimensions in the block (2 or 3).
    """

    lead: int
    shapes: list[tuple[int, ...]]
    geoms: list[Geometry]
    first: int
    nsp: int

    @property
    def axes(self) -> tuple[int, ...]:
        """The block's dimensions: the engine's spatial axes."""
        return tuple(range(self.first, self.first + self.nsp))

    def block(
        self, i: int
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[float, ...], tuple[float, ...]]:
        """Sample ``i``'s block: input extents, output extents, region starts and ends."""
        lo_d, hi_d = self.first, self.first + self.nsp
        out, lo, hi = self.geoms[i]
        return self.shapes[i][lo_d:hi_d], out[lo_d:hi_d], lo[lo_d:hi_d], hi[lo_d:hi_d]

    def out_shape(self, i: int) -> tuple[int, ...]:
        """Sample ``i``'s output shape, without the added leading extent."""
        return self.geoms[i][0][self.lead :]


def resized_block(
    shapes: Sequence[Sequence[int]], geoms: Sequence[Geometry], min_ndim: int = 2
) -> tuple[int, int]:
    """The block of consecutive dimensions that some sample changes: ``(first, count)``.

    Leading and trailing dimensions that keep their extent and whole region in every sample
    are dropped, as long as ``min_ndim`` remain. A dimension counts as unchanged when its
    output extent is the input's and its region, cast to integers as DALI casts it
    (truncated), is ``[0, extent)``.

    Example:
        >>> g = ((4, 3, 5), (0.0, 0.0, 0.0), (4.0, 6.0, 5.0))
        >>> resized_block([(4, 6, 5)], [g])  # the middle one changes: 2 of 3 kept, leading first
        (1, 2)
        >>> resized_block([(2, 4, 6, 5)], [((2, 4, 3, 5), (0.0,) * 4, (2.0, 4.0, 6.0, 5.0))])
        (2, 2)
    """
    ndim = len(shapes[0]) if shapes else min_ndim

    def unchanged(d: int) -> bool:
        for shape, (out, lo, hi) in zip(shapes, geoms):
            extent = shape[d]
            if out[d] != extent or math.trunc(lo[d]) != 0 or math.trunc(hi[d]) != extent:
                return False
        return True

    can_trim = max(0, ndim - min_ndim)
    first, end = 0, ndim
    while can_trim and unchanged(first):
        first += 1
        can_trim -= 1
    while can_trim and end - 1 > first and unchanged(end - 1):
        end -= 1
        can_trim -= 1
    return first, end - first


def _cpu_axes(axes: Sequence[int], plans: Sequence[AxisPlan]) -> tuple[list[int], list[AxisPlan]]:
    """The block axes the CPU has to resample: all but those with an identity plan.

    The innermost spatial axis computes its NN coordinates directly, the others step them in
    float32 (`reference.nn_indices`): when dropping the innermost axis would make an NN axis
    innermost, nothing is dropped.
    """
    keep = [k for k, p in enumerate(plans) if not p.is_identity]
    if keep and keep[-1] != len(plans) - 1 and plans[keep[-1]].kind == "nn":
        keep = list(range(len(plans)))
    return [axes[k] for k in keep], [plans[k] for k in keep]


def _resample_cpu(
    x: np.ndarray, axes: Sequence[int], plans: Sequence[AxisPlan], out_dtype: np.dtype[Any]
) -> np.ndarray:
    """Resample one sample along its block ``axes`` (skipping identity axes; two axes apart
    are moved next to each other for the fast 2-D paths, which compute what the reference
    computes; a block of three whose passes allow it takes the engine's 3-D path, which
    moves nothing)."""
    if separable_3d(x, axes, plans):
        return resample(x, axes, plans, out_dtype)
    axes, plans = _cpu_axes(axes, plans)
    if not axes:
        return x.astype(out_dtype)
    if len(axes) == 2 and axes[1] != axes[0] + 1:
        moved = np.moveaxis(x, axes[1], axes[0] + 1)
        out = resample(moved, (axes[0], axes[0] + 1), plans, out_dtype)
        return np.ascontiguousarray(np.moveaxis(out, axes[0] + 1, axes[1]))
    return resample(x, axes, plans, out_dtype)


# -- the operator ------------------------------------------------------------------------------


#: How its size errors say what the values must be (DALI crashes on NaN sizes).
_FINITE = "finite numbers"


@register(
    "tensor_resize",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("sizes", "float_vec", tensor=True, doc="Output sizes of the `axes` (0: from others)."),
        Arg("scales", "float_vec", tensor=True, doc="Scale factors of the `axes`."),
        Arg("axes", "int_vec", doc="Dimensions the size arguments refer to (default: all)."),
        Arg("axis_names", "layout", doc="Layout letters of those dimensions (or `axes`)."),
        Arg(
            "alignment",
            "float_vec",
            default=(0.5,),
            tensor=True,
            doc="Point of the ROI kept in place when the size is rounded (0, 0.5, 1).",
        ),
        Arg("size_rounding", "str", default="round", doc="round, truncate or ceil."),
        Arg("mode", "str", default="default", doc="default, stretch, not_larger, not_smaller."),
        Arg("max_size", "float_vec", doc="Limit of the output size (one value or per axis)."),
        Arg("subpixel_scale", "bool", default=True, doc="Keep fractional scales exact."),
        Arg("roi_start", "float_vec", tensor=True, doc="Input ROI origin (start > end flips)."),
        Arg("roi_end", "float_vec", tensor=True, doc="Input ROI end."),
        Arg("roi_relative", "bool", default=False, doc="ROI given as fractions of the size."),
        *FILTER_ARGS,
    ],
)
class TensorResize(ResamplingOperator):
    """Resize tensors: any dimensions, named by ``axes`` or ``axis_names``.

    Exactly one of ``sizes`` and ``scales`` gives the output extents of the chosen dimensions
    (all of them by default); one value stands for all. With ``sizes``, a 0 extent follows the
    others' scale (mode "default") and a negative one flips the dimension; with ``scales``,
    ``size_rounding`` rounds ``scale * extent`` and ``alignment`` tells which point of the
    input region keeps its place. ``roi_start``/``roi_end``/``max_size``/``alignment`` refer to
    the same dimensions. The resized dimensions must lie within 3 consecutive ones. Sequences
    are tensors like others: the frame dimension is resized when ``axes`` names it.

    Example:
        >>> import numpy as np
        >>> import dali
        >>> from dali import fn, types
        >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
        ... def pipe():
        ...     x = types.Constant(np.array([[[[1, 2], [3, 4]]]], np.float32))  # 1x1x2x2
        ...     return fn.tensor_resize(x, scales=[1, 1, 2, 3], alignment=0,
        ...                             interp_type=types.INTERP_NN)
        >>> p = pipe(); p.build()
        >>> p.run()[0].as_array()[0, 0, 0]
        array([[1., 1., 1., 2., 2., 2.],
               [1., 1., 1., 2., 2., 2.],
               [3., 3., 3., 4., 4., 4.],
               [3., 3., 3., 4., 4., 4.]], dtype=float32)
    """

    def setup(self) -> None:
        self.setup_filters()
        if self.has_arg("sizes") == self.has_arg("scales"):
            raise self.error("Need one of ``scales`` or ``sizes``, but not both")
        if self.has_arg("roi_start") != self.has_arg("roi_end"):
            missing = "roi_end" if self.has_arg("roi_start") else "roi_start"
            raise self.arg_error(
                missing, "``roi_start`` and ``roi_end`` must be specified together"
            )
        self.mode = self.arg("mode")
        if self.mode not in MODES:
            raise self.arg_error(
                "mode", f"Invalid resize mode: {self.mode} (expected one of {', '.join(MODES)})"
            )
        if self.mode in ("not_larger", "not_smaller") and self.has_arg("scales"):
            raise self.arg_error(
                "scales",
                "Providing ``scales`` is incompatible with not-smaller or not-larger modes",
            )
        rounding = self.arg("size_rounding")
        if rounding not in ROUNDINGS:
            raise self.arg_error(
                "size_rounding",
                f'``rounding`` value {rounding} is not supported. Supported values are "round", '
                '"truncate", or "ceil".',
            )
        if self.has_arg("axes") and self.has_arg("axis_names"):
            raise self.error("Arguments `axes` and `axis_names` are mutually exclusive")
        if self.has_arg("axes"):
            axes = [int(a) for a in self.arg("axes")]
            dup = [a for i, a in enumerate(axes) if a in axes[:i]]
            if dup:
                raise self.arg_error("axes", f"Duplicate axis index {dup[0]}")
        for name in ("sizes", "scales"):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                self._check_finite(
                    name, np.asarray(self.arg(name), np.float64).reshape(1, -1), _FINITE
                )

    # -- arguments -----------------------------------------------------------------------------
    def _axes(self, ndim: int, layout: str) -> list[int]:
        """The dimensions the size arguments refer to (all by default)."""
        axes_arg = self.arg("axes") if self.has_arg("axes") else None
        names = self.arg("axis_names") if self.has_arg("axis_names") else None
        axes = axes_from_args(self, axes_arg, names or None, ndim, layout)
        dup = [a for i, a in enumerate(axes) if a in axes[:i]]
        if dup:
            name = "axis_names" if names else "axes"
            raise self.arg_error(name, f"Duplicate axis index {dup[0]}")
        return axes

    def _full(self, ws: Workspace, name: str, axes: list[int], default: np.ndarray) -> np.ndarray:
        """An argument with one value per axis of ``axes`` (or one for all), per sample, as
        ``(batch, ndim)`` float32 values: ``default`` in the dimensions it does not name."""
        values = ws.arg_vectors(
            name, np.float64, n=len(axes), what=" (one per axis in `axes`/`axis_names`)"
        )
        out = default.copy()
        out[:, axes] = f32_array(values)
        return out

    def _max_size(self, nargs: int, axes: list[int], ndim: int) -> tuple[float, ...] | None:
        if not self.has_arg("max_size"):
            return None
        ms = [f32(v) for v in self.arg("max_size")]
        if len(ms) == 1:
            ms = ms * nargs
        if len(ms) != nargs:
            raise self.arg_error(
                "max_size",
                f"expects either a single value or a list of {nargs} elements. {len(ms)} given.",
            )
        full = [_NO_MAX_SIZE] * ndim
        for a, v in zip(axes, ms):
            full[a] = v
        return tuple(full)

    def check_input(self, tl: Any) -> None:
        """The input type and number of dimensions DALI's kernels take."""
        if tl.sample_ndim < 1:
            raise self.error("Input must be at least 1D")
        if np.dtype(tl.np_dtype) not in _INPUT_TYPES:
            raise self.error(
                f"Unsupported type: {type_name(dali_dtype(tl.np_dtype))}. Supported types are: uint8, int16, "
                "uint16 and float"
            )

    def plan(self, ws: Workspace, tl: Any) -> BatchPlan:
        """The batch's geometry: every sample's output size and region, and the block."""
        self.check_input(tl)
        ndim = tl.sample_ndim
        axes = self._axes(ndim, tl.layout())
        nargs = len(axes)
        lead = max(0, 2 - ndim)  # 1-D samples are (1, n) images
        full_ndim = ndim + lead
        axes = [a + lead for a in axes]
        shapes = [(1,) * lead + tuple(s) for s in tl.shape()]
        b = len(shapes)
        extents = np.array(shapes, np.float64).reshape(b, full_ndim)
        if self.has_arg("sizes"):
            requested = self._full(ws, "sizes", axes, extents)
            self._check_finite("sizes", requested, _FINITE)
        else:
            scales = self._full(ws, "scales", axes, np.ones((b, full_ndim)))
            self._check_finite("scales", scales, _FINITE)
            # float32 scale times the extent, in float32 (DALI's arithmetic)
            requested = (scales.astype(np.float32) * extents.astype(np.float32)).astype(np.float64)
        alignment = None
        if self.has_arg("alignment"):  # (not given: 0.5, the centre, on every dimension)
            alignment = self._full(ws, "alignment", axes, np.zeros((b, full_ndim))).tolist()
        roi_start = roi_end = None
        roi_relative = bool(self.arg("roi_relative"))
        if self.has_arg("roi_start"):
            roi_start = self._full(ws, "roi_start", axes, np.zeros((b, full_ndim))).tolist()
            ends = np.ones((b, full_ndim)) if roi_relative else extents
            roi_end = self._full(ws, "roi_end", axes, ends).tolist()
        max_size = self._max_size(nargs, axes, full_ndim)
        rounding = self.arg("size_rounding")
        subpixel_scale = bool(self.arg("subpixel_scale"))
        req_rows = requested.tolist()
        geoms: list[Geometry] = []
        for i, shape in enumerate(shapes):
            try:
                geoms.append(
                    cached_geometry(
                        shape,
                        tuple(req_rows[i]),
                        self.mode,
                        max_size,
                        tuple(roi_start[i]) if roi_start is not None else None,
                        tuple(roi_end[i]) if roi_end is not None else None,
                        roi_relative,
                        subpixel_scale,
                        tuple(alignment[i]) if alignment is not None else None,
                        rounding,
                    )
                )
            except ValueError as e:
                raise self.error(f"sample {i}: {e}") from None
        first, nsp = resized_block(shapes, geoms)
        if nsp > _MAX_BLOCK:
            raise self.error(
                "TensorResize can not resize more than 3 consecutive spatial dimensions. The "
                "input may contain extra leading and trailing dimensions which are not resized. "
                f"Got: {nsp} spatial dimensions starting at dim {first - lead} (all dimensions "
                "from the first to the last resized one count)."
            )
        return BatchPlan(lead, shapes, geoms, first, nsp)

    # -- running -------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        bp = self.plan(ws, tl)
        out_dtype = self.output_dtype(tl.np_dtype)
        samples = tl.samples()
        filters = self.filters(ws)
        antialias = bool(self.arg("antialias"))
        axes = bp.axes

        def one(i: int) -> np.ndarray:
            in_sp, out_sp, lo, hi = bp.block(i)
            plans = cached_plans(in_sp, out_sp, lo, hi, *filters[i], antialias)
            x = samples[i].reshape(bp.shapes[i])
            return _resample_cpu(x, axes, plans, out_dtype).reshape(bp.out_shape(i))

        results = ws.map(one)
        return TensorListCPU.wrap(results, layout=tl.layout(), dtype=out_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        """The same plans as `run_cpu`, resampled in one batched call (`resample.gpu`).

        Identity dimensions inside the block are resampled too (DALI's kernels do the same;
        an identity plan reproduces its input exactly, except the Gaussian blur's).
        """
        from dali._ops.gpu import kernels
        from dali._ops.image.resample import gpu as resample_gpu
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        bp = self.plan(ws, tl)
        out_dtype = self.output_dtype(tl.np_dtype)
        filters = self.filters(ws)
        antialias = bool(self.arg("antialias"))
        layout = tl.layout()
        plans = [cached_plans(*bp.block(i), *filters[i], antialias) for i in range(len(bp.shapes))]
        src = tl
        if bp.lead:  # 1-D samples as (1, n) images: views of the same memory
            src = TensorListGPU.wrap(
                [s.reshape(shape) for s, shape in zip(tl.samples(), bp.shapes)],
                layout="",
                dtype=tl.np_dtype,
                ndim=len(bp.shapes[0]) if bp.shapes else 2,
            )
        try:
            out = resample_gpu.resample_batch(
                src, bp.axes, plans, out_dtype, "" if bp.lead else layout,
                inputs=kernels.input_batch(src),
            )  # fmt: skip
        except TypeError as e:
            raise self.error(str(e)) from None
        if not bp.lead:
            return out
        return TensorListGPU.wrap(
            [s.reshape(bp.out_shape(i)) for i, s in enumerate(out.samples())],
            layout=layout,
            dtype=out_dtype,
            ndim=tl.sample_ndim,
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's dtype (or ``dtype``), ndim and layout; in modes "default" and
        "stretch", the extents of the dimensions that the size arguments do not name."""
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        shape = None
        args = node.scalar_args
        if (
            src.static_shape is not None
            and args.get("mode", "default") in ("default", "stretch")
            and not ("axes" in args and "axis_names" in args)
        ):
            ndim = len(src.static_shape)
            axes: list[int] | None = None
            if "axis_names" in args:
                layout = src.layout or ""
                if all(c in layout for c in args["axis_names"]):
                    axes = [layout.index(c) for c in args["axis_names"]]
            elif "axes" in args:
                if all(-ndim <= int(a) < ndim for a in args["axes"]):
                    axes = [int(a) % ndim for a in args["axes"]]
            else:
                axes = list(range(ndim))
            if axes is not None:
                shape = tuple(None if d in axes else e for d, e in enumerate(src.static_shape))
        return [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout, "static_shape": shape}]
