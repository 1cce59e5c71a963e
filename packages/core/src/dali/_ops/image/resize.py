"""`fn.resize`: the operator, on CPU and GPU, and what `random_resized_crop` shares.

The work splits in three layers, each usable alone (the GPU backend reuses the first two):

1. *Layout* and 2. *Geometry*: `resample.geometry` (`spatial_axes`, `output_geometry`,
   `output_geometry_batch`, `axis_plans`; re-exported here): the spatial axes of a layout, the
   size arguments turned into output sizes, input regions and per-axis filter plans, with
   DALI's float32 arithmetic.
3. *Pixels*: `resample.cpu.resample` (the numpy reference, or its fast 2-D paths: Numba row
   passes with the `jit` extra, else banded BLAS products), and `resample.gpu` on the GPU; the
   package's docstring tells which runs when.

This module holds the operators' shared base `ResamplingOperator` (filter and output-type
arguments) and `Resize`: its arguments (per-sample tensors included), batch geometry through
the memoised `cached_geometry` / `cached_plans`, and the per-sample dispatch.

Example:
    >>> output_geometry([100, 200], [0.0, 50.0])  # resize_x=50 on a 100x200 image
    ([25, 50], [0.0, 0.0], [100.0, 200.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import dali_dtype, np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import with_extents
from dali._ops.base import Operator
from dali._ops.image.resample.cpu import resample
from dali._ops.image.resample.geometry import (
    MODES,
    axis_plans,
    cached_geometry,
    cached_plans,
    f32,
    f32_array,
    output_geometry,
    output_geometry_batch,
    spatial_axes,
)
from dali._ops.image.resample.reference import INTERP_NAMES, LINEAR, TRIANGULAR
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = [
    "FILTER_ARGS",
    "ResamplingOperator",
    "Resize",
    "axis_plans",
    "output_geometry",
    "output_geometry_batch",
    "spatial_axes",
]


# -- shared by resize and random_resized_crop ----------------------------------------------------

#: The filter and output-type arguments of every resampling operator.
FILTER_ARGS = [
    Arg(
        "interp_type",
        "interp_type",
        default=1,
        tensor=True,
        doc="Interpolation (sets both min_filter and mag_filter); INTERP_LINEAR by default.",
    ),
    Arg("min_filter", "interp_type", default=1, tensor=True, doc="Filter used when shrinking."),
    Arg("mag_filter", "interp_type", default=1, tensor=True, doc="Filter used when enlarging."),
    Arg("antialias", "bool", default=True, doc="Widen the filter when downscaling (not NN)."),
    Arg("dtype", "dtype", doc="Output type: the input type (default) or FLOAT."),
    Arg("minibatch_size", "int", default=32, doc="Ignored (GPU kernel batching)."),
    Arg("temp_buffer_hint", "int", default=0, doc="Ignored (temporary buffer size)."),
]


class ResamplingOperator(Operator):
    """The base of `resize` and `random_resized_crop`: their `FILTER_ARGS`, checked and read.

    The operators differ in how they find each sample's input region and output size; they
    share the choice of filters (per sample), the output type and the layout rules.
    """

    def _check_finite(self, name: str, rows: np.ndarray, what: str = "a finite number") -> None:
        """A size argument's values (one row per sample) must be finite: NaN or infinity
        makes no extent (DALI crashes on NaN and makes 1x1 of infinity)."""
        bad = ~np.isfinite(rows)
        if bad.any():
            i = int(np.flatnonzero(bad.any(axis=1))[0])
            where = f"sample {i}: " if self.is_tensor_arg(name) else ""
            values = rows[i].tolist()
            got = values[0] if len(values) == 1 else values
            raise self.arg_error(name, f"{where}must be {what}, got {got}")

    def _int_samples(self, ws: Workspace, name: str) -> list[int]:
        if not self.has_arg(name):
            return []
        values: list[int] = ws.arg_scalars(name, np.int64).tolist()
        return values

    def filters(self, ws: Workspace) -> list[tuple[int, int]]:
        """Per sample ``(min_filter, mag_filter)`` as DALIInterpType values."""
        n = ws.batch_size
        interp = self._int_samples(ws, "interp_type")
        mins = self._int_samples(ws, "min_filter") or interp or [TRIANGULAR] * n
        mags = self._int_samples(ws, "mag_filter") or interp or [LINEAR] * n
        for name, values in (("interp_type", interp), ("min_filter", mins), ("mag_filter", mags)):
            for i, v in enumerate(values):
                if v not in INTERP_NAMES:
                    raise self.arg_error(name, f"sample {i}: unknown interpolation type {v}")
        return list(zip(mins, mags))

    def filter_arrays(self, ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
        """`filters` as two ``(batch, 1)`` int64 arrays: min and mag filters.

        Scalar arguments (the usual case) cost no per-sample work.
        """
        n = ws.batch_size
        if any(ws.is_tensor_arg(a) for a in ("interp_type", "min_filter", "mag_filter")):
            pairs = np.array(self.filters(ws), np.int64).reshape(n, 2)
            return pairs[:, :1], pairs[:, 1:]
        interp = int(self.arg("interp_type")) if self.has_arg("interp_type") else None
        chosen = {}
        for name, default in (
            ("min_filter", TRIANGULAR),
            ("mag_filter", LINEAR),
        ):
            if self.has_arg(name):
                chosen[name] = int(self.arg(name))
            else:
                chosen[name] = interp if interp is not None else default
        given = {"interp_type": interp, **chosen}
        for name, v in given.items():
            if n and v is not None and v not in INTERP_NAMES:
                raise self.arg_error(name, f"sample 0: unknown interpolation type {v}")
        return (
            np.full((n, 1), chosen["min_filter"], np.int64),
            np.full((n, 1), chosen["mag_filter"], np.int64),
        )

    def output_dtype(self, in_dtype: np.dtype[Any]) -> np.dtype[Any]:
        dtype = self.arg("dtype")
        if not dtype:
            return np.dtype(in_dtype)
        out = np_dtype(dtype)
        if out not in (np.dtype(in_dtype), np.dtype(np.float32)):
            raise self.arg_error(
                "dtype",
                f"the output type must be the input type ({type_name(dali_dtype(in_dtype))}) "
                f"or FLOAT, got {type_name(dtype)}",
            )
        return out

    def setup_filters(self) -> None:
        for name in ("interp_type", "min_filter", "mag_filter"):
            if (
                self.has_arg(name)
                and not self.is_tensor_arg(name)
                and int(self.arg(name)) not in INTERP_NAMES
            ):
                raise self.arg_error(name, f"unknown interpolation type {self.arg(name)}")
        dtype = self.arg("dtype")
        if dtype and np_dtype(dtype).kind not in "biuf":
            raise self.arg_error("dtype", f"unsupported output type {type_name(dtype)}")

    def layout_of(self, tl: Any, allowed: Sequence[int] = (2, 3)) -> tuple[str, tuple[int, ...]]:
        try:
            return spatial_axes(tl.layout(), tl.sample_ndim, allowed_spatial=allowed)
        except ValueError as e:
            raise self.error(str(e)) from None


# -- the operator ------------------------------------------------------------------------------


@register(
    "resize",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    outputs=lambda args: 2 if args.get("save_attrs") else 1,
    args=[
        Arg("resize_x", "float", default=0.0, tensor=True, doc="Output width (0: from others)."),
        Arg("resize_y", "float", default=0.0, tensor=True, doc="Output height."),
        Arg("resize_z", "float", default=0.0, tensor=True, doc="Output depth (volumes)."),
        Arg("size", "float_vec", tensor=True, doc="Output size, (H, W) or (D, H, W)."),
        Arg("resize_shorter", "float", default=0.0, tensor=True, doc="Length of the shorter side."),
        Arg("resize_longer", "float", default=0.0, tensor=True, doc="Length of the longer side."),
        Arg("mode", "str", default="default", doc="default, stretch, not_larger, not_smaller."),
        Arg("max_size", "float_vec", doc="Limit of the output size (one value or per axis)."),
        *FILTER_ARGS,
        Arg("subpixel_scale", "bool", default=True, doc="Keep fractional scales exact."),
        Arg("roi_start", "float_vec", tensor=True, doc="Input ROI origin (start > end flips)."),
        Arg("roi_end", "float_vec", tensor=True, doc="Input ROI end."),
        Arg("roi_relative", "bool", default=False, doc="ROI given as fractions of the size."),
        Arg("save_attrs", "bool", default=False, doc="Also output the input spatial shape."),
        Arg("image_type", "image_type", doc="Deprecated and ignored."),
    ],
)
class Resize(ResamplingOperator):
    """Resize images or volumes (HWC, CHW, FHWC, DHWC, ...) with DALI's resampling filters.

    Exactly one way of giving the size is allowed: ``resize_x``/``resize_y``/``resize_z``,
    ``size``, ``resize_shorter`` or ``resize_longer``. Missing extents keep the aspect ratio
    (``mode="default"``); a negative size flips the axis.

    Example:
        >>> import numpy as np
        >>> import dali
        >>> from dali import fn, types
        >>> @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
        ... def pipe():
        ...     img = types.Constant(np.zeros((100, 200, 3), dtype=np.uint8), layout="HWC")
        ...     return fn.resize(img, resize_x=50)
        >>> p = pipe(); p.build()
        >>> p.run()[0].shape()
        [(25, 50, 3)]
    """

    def setup(self) -> None:
        self.setup_filters()
        separate = [a for a in ("resize_x", "resize_y", "resize_z") if self.has_arg(a)]
        methods = [bool(separate)] + [
            self.has_arg(a) for a in ("size", "resize_shorter", "resize_longer")
        ]
        if sum(methods) != 1:
            given = separate + [
                a for a in ("size", "resize_shorter", "resize_longer") if self.has_arg(a)
            ]
            raise self.error(
                "Exactly one method of specifying size must be used"
                + (f" (got: {', '.join(given)})" if given else " (no size argument given)")
                + ". The available methods: separate resize_x, resize_y, resize_z arguments; "
                "the size argument; resize_longer; resize_shorter."
            )
        if sum(self.has_arg(a) for a in ("resize_shorter", "resize_longer", "mode")) > 1:
            name = "resize_shorter" if self.has_arg("resize_shorter") else "resize_longer"
            raise self.arg_error(
                name, "`resize_shorter`, `resize_longer` and `mode` are mutually exclusive"
            )
        for name in ("resize_x", "resize_y", "resize_z", "size", "resize_shorter", "resize_longer"):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                self._check_finite(name, np.asarray(self.arg(name), np.float64).reshape(1, -1))
        for name in ("resize_shorter", "resize_longer"):
            if self.has_arg(name) and not self.is_tensor_arg(name):
                self._check_side(name, [float(self.arg(name))])
        if self.has_arg("resize_shorter"):
            self.mode = "not_smaller"
        elif self.has_arg("resize_longer"):
            self.mode = "not_larger"
        else:
            self.mode = self.arg("mode")
            if self.mode not in MODES:
                raise self.arg_error(
                    "mode", f"invalid resize mode {self.mode!r}; expected one of {MODES}"
                )
        if self.has_arg("roi_start") != self.has_arg("roi_end"):
            missing = "roi_end" if self.has_arg("roi_start") else "roi_start"
            raise self.arg_error(missing, "`roi_start` and `roi_end` must be specified together")
        if self.has_arg("max_size"):
            ms = tuple(self.arg("max_size"))
            if not ms:
                raise self.arg_error("max_size", "must not be empty")
            if any(v < 0 for v in ms):
                raise self.arg_error("max_size", f"must not be negative, got {list(ms)}")

    def _check_side(self, name: str, values: Sequence[float]) -> None:
        """``resize_shorter`` / ``resize_longer`` must not be negative (0: not given).

        DALI lets the sign through to every axis (both flip), an accident of its code rather
        than a documented meaning (unlike ``resize_x``/``size``, where a negative extent is
        documented to flip that axis): a negative side is far likelier a bug, so it is an
        error here, naming the sample when the value came per sample.
        """
        bad = [i for i, v in enumerate(values) if v < 0]
        if bad:
            where = f"sample {bad[0]}: " if self.is_tensor_arg(name) else ""
            raise self.arg_error(
                name, f"{where}must not be negative, got {values[bad[0]]:g} (0: not given)"
            )

    # -- per-sample argument values ------------------------------------------------------------
    def _vector_array(self, ws: Workspace, name: str, n: int) -> np.ndarray:
        """``n`` values per sample as a ``(batch, n)`` float64 array of float32 values (one
        value stands for every axis)."""
        values = ws.arg_vectors(name, np.float64, n=n, what=" (one per spatial dimension)")
        return f32_array(values)

    def requested_sizes(self, ws: Workspace, n: int) -> list[list[float]]:
        """The requested output extents of every sample, outermost axis first."""
        sizes: list[list[float]] = self.requested_array(ws, n).tolist()
        return sizes

    def requested_array(self, ws: Workspace, n: int) -> np.ndarray:
        """`requested_sizes` as a ``(batch, n)`` float64 array."""
        if self.has_arg("size"):
            out = self._vector_array(ws, "size", n)
            self._check_finite("size", out)
            return out
        if self.has_arg("resize_shorter") or self.has_arg("resize_longer"):
            name = "resize_shorter" if self.has_arg("resize_shorter") else "resize_longer"
            sides = ws.arg_scalars(name)
            self._check_finite(name, sides[:, None])
            if (sides < 0).any():
                self._check_side(name, sides.tolist())
            return np.repeat(sides[:, None], n, axis=1)
        names = ["resize_z", "resize_y", "resize_x"][3 - n :]
        b = ws.batch_size
        cols = []
        for a in names:
            col = ws.arg_scalars(a) if self.has_arg(a) else np.zeros(b)
            self._check_finite(a, col[:, None])
            cols.append(col)
        return np.stack(cols, axis=1)

    def _max_size(self, n: int) -> list[float] | None:
        if not self.has_arg("max_size"):
            return None
        ms = list(self.arg("max_size"))
        if len(ms) == 1:
            ms = ms * n
        if len(ms) != n:
            raise self.arg_error(
                "max_size", f"expected 1 or {n} values (one per spatial dimension)"
            )
        return [f32(v) for v in ms]

    def geometry_arrays(
        self, ws: Workspace, in_spatial: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`geometry` of images (2 spatial axes) as ``(batch, 2)`` arrays: out_size, lo, hi.

        Equal to `geometry`, computed for the batch at once (`output_geometry_batch`); the
        rare samples it flags go through `output_geometry` one by one.
        """
        n = in_spatial.shape[1]
        requested = self.requested_array(ws, n)
        max_size = self._max_size(n)
        roi_start = roi_end = None
        if self.has_arg("roi_start"):
            roi_start = self._vector_array(ws, "roi_start", n)
            roi_end = self._vector_array(ws, "roi_end", n)
        roi_relative = self.arg("roi_relative")
        subpixel_scale = self.arg("subpixel_scale")
        out, lo, hi, rare = output_geometry_batch(
            in_spatial,
            requested,
            mode=self.mode,
            max_size=max_size,
            roi_start=roi_start,
            roi_end=roi_end,
            roi_relative=roi_relative,
            subpixel_scale=subpixel_scale,
        )
        for i in np.flatnonzero(rare).tolist():
            try:
                out[i], lo[i], hi[i] = cached_geometry(
                    tuple(in_spatial[i].tolist()),
                    tuple(requested[i].tolist()),
                    self.mode,
                    tuple(max_size) if max_size is not None else None,
                    tuple(roi_start[i].tolist()) if roi_start is not None else None,
                    tuple(roi_end[i].tolist()) if roi_end is not None else None,
                    roi_relative,
                    subpixel_scale,
                )
            except ValueError as e:
                raise self.error(f"sample {i}: {e}") from None
        return out, lo, hi

    def geometry(
        self, ws: Workspace, shapes: Sequence[tuple[int, ...]], axes: tuple[int, ...]
    ) -> list[tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]]:
        """Per sample ``(out_size, lo, hi)`` (see `output_geometry`)."""
        n = len(axes)
        requested = self.requested_sizes(ws, n)
        max_size = self._max_size(n)
        roi_start = roi_end = None
        if self.has_arg("roi_start"):
            roi_start = self._vector_array(ws, "roi_start", n).tolist()
            roi_end = self._vector_array(ws, "roi_end", n).tolist()
        out = []
        max_size_key = tuple(max_size) if max_size is not None else None
        for i, shape in enumerate(shapes):
            in_spatial = tuple(shape[a] for a in axes)
            try:
                out.append(
                    cached_geometry(
                        in_spatial,
                        tuple(requested[i]),
                        self.mode,
                        max_size_key,
                        tuple(roi_start[i]) if roi_start else None,
                        tuple(roi_end[i]) if roi_end else None,
                        self.arg("roi_relative"),
                        self.arg("subpixel_scale"),
                    )
                )
            except ValueError as e:
                raise self.error(f"sample {i}: {e}") from None
        return out

    # -- running -------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> Any:
        out = self.resize_cpu(ws)
        if not self.arg("save_attrs"):
            return out
        return out, TensorListCPU.wrap(self._input_sizes(ws.inputs[0]), layout="")

    def run_gpu(self, ws: Workspace) -> Any:
        out = self.resize_gpu(ws)
        if not self.arg("save_attrs"):
            return out
        import cupy

        from dali._tensors import TensorListGPU

        attrs = cupy.asarray(self._input_sizes(ws.inputs[0]))
        return out, TensorListGPU.wrap(attrs, layout="")

    def _input_sizes(self, tl: Any) -> np.ndarray:
        """``save_attrs``: the input's spatial extents, int32 ``(batch, spatial axes)``."""
        _, axes = self.layout_of(tl)
        shapes = tl.shape()
        attrs = np.array([[s[a] for a in axes] for s in shapes], dtype=np.int32)
        return attrs.reshape(len(shapes), len(axes))

    def resize_cpu(self, ws: Workspace) -> TensorListCPU:
        """The batch ``ws.inputs[0]`` resized (`run_cpu` without ``save_attrs``); also the
        resize of the operators that resize a batch of their own (`readers.video_resize`)."""
        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        samples = tl.samples()
        out_dtype = self.output_dtype(tl.np_dtype)
        shapes = [s.shape for s in samples]
        if len(axes) == 2 and len(shapes) > 1:
            # the batch at once: per-sample geometry is serial Python work in the executor
            # thread while the pool waits (random crops miss `cached_geometry`)
            spatial = np.array([[s[a] for a in axes] for s in shapes], dtype=np.int64)
            out_size, lo, hi = self.geometry_arrays(ws, spatial)
            geoms: list[Any] = list(zip(out_size.tolist(), lo.tolist(), hi.tolist()))
        else:
            geoms = self.geometry(ws, shapes, axes)
        filters = self.filters(ws)
        antialias = self.arg("antialias")

        def one(i: int) -> np.ndarray:
            out_size, lo, hi = geoms[i]
            in_spatial = [shapes[i][a] for a in axes]
            plans = axis_plans(in_spatial, out_size, lo, hi, *filters[i], antialias)
            return resample(samples[i], axes, plans, out_dtype)

        results = ws.map(one)
        return TensorListCPU.wrap(results, layout=layout, dtype=out_dtype, ndim=tl.sample_ndim)

    def resize_gpu(self, ws: Workspace) -> Any:
        """`resize_cpu` on the GPU: the same geometry; the pixels in one batched kernel
        (`resample.gpu`).

        Images (2 spatial axes) are planned for the whole batch at once with numpy
        (`geometry_arrays`, `resample.gpu_plan.plan_batch`): the executor's GPU thread does no
        per-sample Python work, which would cost more than the kernel.
        """
        from dali._ops.gpu import kernels
        from dali._ops.image.resample import gpu as resample_gpu
        from dali._ops.image.resample.gpu_plan import plan_batch

        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        out_dtype = self.output_dtype(tl.np_dtype)
        inputs = kernels.input_batch(tl)
        shapes = inputs[0]
        antialias = self.arg("antialias")
        plans: Any
        if len(axes) == 2 and shapes:
            # (a view: the spatial axes are adjacent, and 2-D fancy indexing gives the GIL up)
            spatial = inputs[1][:, axes[0] : axes[0] + 2]
            out_size, lo, hi = self.geometry_arrays(ws, spatial)
            mins, mags = self.filter_arrays(ws)
            plans = plan_batch(spatial, out_size, lo, hi, mins, mags, antialias)
        else:
            geoms = self.geometry(ws, shapes, axes)
            filters = self.filters(ws)
            plans = [
                cached_plans(tuple(shape[a] for a in axes), *geom, *flt, antialias)
                for shape, geom, flt in zip(shapes, geoms, filters)
            ]
        try:
            return resample_gpu.resample_batch(tl, axes, plans, out_dtype, layout, inputs=inputs)
        except TypeError as e:
            raise self.error(str(e)) from None

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The input's layout and non-spatial extents; each spatial extent that the size
        arguments fix whatever the image (`static_sizes`); ``save_attrs``: one int32 per
        spatial axis."""
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        shape = attrs = None
        if src.layout is not None and src.static_shape is not None:
            try:
                layout, axes = spatial_axes(src.layout, len(src.static_shape))
            except ValueError:  # reported at run
                pass
            else:
                in_spatial = [src.static_shape[a] for a in axes]
                sizes = static_sizes(node.scalar_args, node.arg_inputs, in_spatial)
                spatial = {layout[a]: size for a, size in zip(axes, sizes)}
                shape = with_extents(src.static_shape, layout, spatial)
                attrs = (len(axes),)
        meta = [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout, "static_shape": shape}]
        if node.scalar_args.get("save_attrs"):
            meta.append(
                {"dtype": dali_dtype(np.int32), "ndim": 1, "layout": "", "static_shape": attrs}
            )
        return meta


def static_sizes(
    args: dict[str, Any], tensors: dict[str, Any], in_spatial: Sequence[int | None]
) -> list[int | None]:
    """The output extents of `fn.resize` that its scalar arguments fix for every input (None:
    the input or a per-sample argument decides), outermost spatial axis first.

    An extent is fixed where it is given (``resize_x/y/z`` or an entry of ``size``, nonzero) in
    the modes "default" and "stretch": it is that size, capped by ``max_size`` and rounded
    (halves away from zero), a negative size flipping without changing it. An extent not given
    is the input's in mode "stretch" without an ROI; in mode "default" it follows the scale of
    the others, and ``resize_shorter``, ``resize_longer``, "not_larger" and "not_smaller" keep
    the aspect ratio: the input decides. (An input with an empty spatial extent stays empty.)

    Example:
        >>> static_sizes({"resize_x": 128.0, "resize_y": 96.0}, {}, [None, None])
        [96, 128]
        >>> static_sizes({"resize_x": 50.0}, {}, [100, 200])  # resize_y: from the scale
        [None, 50]
        >>> static_sizes({"size": (30.0, 0.0), "mode": "stretch"}, {}, [100, 200])
        [30, 200]
        >>> static_sizes({"resize_shorter": 256.0}, {}, [None, None])
        [None, None]
    """
    n = len(in_spatial)
    mode = args.get("mode", "default")
    if mode not in ("default", "stretch") or any(
        a in args or a in tensors for a in ("resize_shorter", "resize_longer")
    ):
        return [None] * n
    requested: list[float | None]
    if "size" in tensors:
        return [None] * n
    if "size" in args:
        requested = [float(v) for v in args["size"]]
        if len(requested) == 1:
            requested *= n
    else:
        names = ["resize_z", "resize_y", "resize_x"][3 - n :]
        requested = [None if a in tensors else float(args.get(a, 0.0)) for a in names]
    max_size: list[float] | None = None
    if "max_size" in args:
        max_size = [f32(v) for v in args["max_size"]]
        if len(max_size) == 1:
            max_size *= n
    if len(requested) != n or (max_size is not None and len(max_size) != n):
        return [None] * n  # an error at run
    roi = "roi_start" in args or "roi_start" in tensors
    out: list[int | None] = []
    for d in range(n):
        r = requested[d]
        if r is None or not math.isfinite(r):  # (a non-finite size: an error at build)
            out.append(None)
            continue
        size = abs(f32(r))
        if size == 0:  # not given: the input's extent in mode "stretch", else from the scale
            extent = in_spatial[d] if mode == "stretch" and not roi else None
            if extent is None:
                out.append(None)
                continue
            size = float(extent)
        if max_size is not None and max_size[d] > 0 and size > max_size[d]:
            size = max_size[d]
        rounded = math.floor(size + 0.5)
        # a size that rounds to 0 is 1, or 0 for an empty input
        out.append(rounded if rounded > 0 or size == 0 else None)
    return out
