"""`fn.resize` (DALI §3.4): output size rules, ROI, flips and DALI's resampling filters.

The work splits in three layers, each usable alone (the GPU backend reuses the first two):

1. *Layout*: `spatial_axes` finds the spatial dimensions (``HW`` or ``DHW``) in the layout
   (``HWC``, ``FHWC``, ``CHW``, ``FCHW``, ``CFHW``, ``DHWC``, ...).
2. *Geometry*: `output_geometry` turns the size arguments (``resize_x/y/z``, ``size``,
   ``resize_shorter``, ``resize_longer``, ``mode``, ``max_size``, ROI, ``subpixel_scale``) into
   the output size and the input region per axis, with DALI's float32 arithmetic; `axis_plans`
   adds the filter choice (min/mag filter, antialiasing).
3. *Pixels*: `dali._ops.image._resample.resample` (numpy reference; fast 2-D paths in
   `_resample_jit` (Numba, the `jit` extra) and `_resample_band` (banded BLAS products)).

Example:
    >>> output_geometry([100, 200], [0.0, 50.0])  # resize_x=50 on a 100x200 image
    ([25, 50], [0.0, 0.0], [100.0, 200.0])
    >>> output_geometry([100, 200], [51.2, 51.2], mode="not_smaller")[0]  # resize_shorter=51.2
    [51, 102]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._dtypes import dali_dtype, np_dtype, type_name
from dali._exec import gil
from dali._graph.schema import Arg, register
from dali._ops.base import Operator, OperatorError
from dali._ops.image import _resample
from dali._tensors import TensorListCPU

__all__ = [
    "ResamplingMixin",
    "Resize",
    "axis_plans",
    "output_geometry",
    "output_geometry_batch",
    "spatial_axes",
]

_F32 = np.float32
_MODES = ("default", "stretch", "not_larger", "not_smaller")
_DEFAULT_LAYOUTS = {2: "HW", 3: "HWC", 4: "DHWC"}


# -- layout -----------------------------------------------------------------------------------


def spatial_axes(
    layout: str, ndim: int, *, allowed_spatial: Sequence[int] = (2, 3)
) -> tuple[str, tuple[int, ...]]:
    """The spatial axes of a sample with ``layout``, outermost first.

    An empty layout is taken as ``HW`` (2-D), ``HWC`` (3-D) or ``DHWC`` (4-D).

    Args:
        layout: The input layout (``"HWC"``, ``"FCHW"``, ...).
        ndim: The number of dimensions of the samples.
        allowed_spatial: Accepted numbers of spatial dimensions.

    Returns:
        ``(layout, axes)``: the (possibly defaulted) layout and the indices of ``D``/``H``/``W``.

    Raises:
        ValueError: The layout does not match ``ndim``, has unknown or repeated dimension
            names, or its spatial dimensions are not adjacent ``HW``/``DHW``.
    """
    if not layout:
        if ndim not in _DEFAULT_LAYOUTS:
            raise ValueError(f"cannot infer the layout of {ndim}-D samples; set a layout")
        layout = _DEFAULT_LAYOUTS[ndim]
    if len(layout) != ndim:
        raise ValueError(
            f'the input layout "{layout}" has {len(layout)} dimensions but the samples have '
            f'{ndim} (a {ndim}-D array cannot be "{layout}")'
        )
    if any(c not in "DHWCF" for c in layout) or len(set(layout)) != len(layout):
        raise ValueError(f'unsupported layout "{layout}"; expected e.g. HWC, CHW, FHWC, DHWC')
    axes = tuple(i for i, c in enumerate(layout) if c in "DHW")
    spatial = "".join(layout[i] for i in axes)
    if spatial not in ("HW", "DHW") or axes[-1] - axes[0] != len(axes) - 1:
        raise ValueError(
            f'unsupported layout "{layout}": the spatial dimensions must be adjacent, in HW or '
            f"DHW order"
        )
    if len(axes) not in allowed_spatial:
        raise ValueError(f'unsupported layout "{layout}" ({len(axes)} spatial dimensions)')
    return layout, axes


# -- size rules -------------------------------------------------------------------------------


def _round_half_away(x: float) -> int:
    return math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)


def _f32(x: float) -> float:
    return float(_F32(x))


def _adjust_output_size(
    out: list[float], in_size: Sequence[float], mode: str, max_size: Sequence[float] | None
) -> None:
    """DALI's ``ResizeAttr::AdjustOutputSize`` (float32 sizes, double scales), in place."""
    n = len(out)
    mask = [out[d] != 0 and in_size[d] != 0 for d in range(n)]
    scale = [_f32(_F32(out[d]) / _F32(in_size[d])) if in_size[d] else 1.0 for d in range(n)]
    provided = sum(mask)
    if provided == 0:  # no size at all: keep the input size
        out[:] = list(in_size)
        return

    def clamp_to_max() -> None:
        if max_size is None:
            return
        for d in range(n):
            if max_size[d] > 0 and abs(out[d]) > max_size[d]:
                out[d] = math.copysign(max_size[d], out[d])
                scale[d] = _f32(_F32(out[d]) / _F32(in_size[d]))

    if mode == "default":
        if provided < n:  # missing extents get the (geometric) mean scale of the given ones
            avg = 1.0
            for d in range(n):
                if mask[d]:
                    avg *= abs(scale[d])
            if provided > 1:
                avg = avg ** (1.0 / provided)
            for d in range(n):
                if not mask[d]:
                    scale[d] = avg
                    out[d] = _f32(in_size[d] * avg)
        clamp_to_max()
    elif mode == "stretch":
        for d in range(n):
            if not mask[d]:
                scale[d] = 1.0
                out[d] = in_size[d]
        clamp_to_max()
    else:  # not_larger / not_smaller: one scale for all axes
        final = 0.0
        first = True
        for d in range(n):
            if mask[d]:
                s = _f32(abs(scale[d]))
                if (
                    first
                    or (mode == "not_smaller" and s > final)
                    or (mode == "not_larger" and s < final)
                ):
                    final = s
                first = False
        if max_size is not None:
            for d in range(n):
                if max_size[d] > 0:
                    final = min(final, max_size[d] / in_size[d])
        for d in range(n):
            if not mask[d] or abs(scale[d]) != final:
                scale[d] = math.copysign(final, scale[d])
                out[d] = _f32(in_size[d] * scale[d])


def output_geometry(
    in_shape: Sequence[int],
    requested: Sequence[float],
    *,
    mode: str = "default",
    max_size: Sequence[float] | None = None,
    roi_start: Sequence[float] | None = None,
    roi_end: Sequence[float] | None = None,
    roi_relative: bool = False,
    subpixel_scale: bool = True,
) -> tuple[list[int], list[float], list[float]]:
    """Output size and input region of one sample (DALI's ``CalculateSampleParams``).

    Args:
        in_shape: The spatial input extents, outermost first (``[H, W]`` or ``[D, H, W]``).
        requested: The requested extents in the same order; 0 means "not given", a negative
            value flips that axis.
        mode: ``"default"``, ``"stretch"``, ``"not_larger"`` or ``"not_smaller"``.
        max_size: Per-axis limits (0: none), or None.
        roi_start: ROI start per axis (absolute, or relative with ``roi_relative``), or None.
        roi_end: ROI end per axis; ``start > end`` flips the axis.
        roi_relative: ROI coordinates are fractions of the input extent.
        subpixel_scale: Keep the exact (fractional) scale and adjust the ROI around its centre
            when the output size is rounded.

    Returns:
        ``(out_size, lo, hi)``: integer output extents and, per axis, the input coordinates
        mapped to the output's first and last edge (``lo > hi`` when flipped).

    Raises:
        ValueError: A non-empty output was requested from an empty input region.
    """
    n = len(in_shape)
    lo: list[float] = []
    hi: list[float] = []
    for d in range(n):
        if roi_start is not None and roi_end is not None and in_shape[d] > 0:
            a, b = float(roi_start[d]), float(roi_end[d])
            if roi_relative:
                a *= in_shape[d]
                b *= in_shape[d]
            if abs(b - a) < 1e-3:  # a zero-size ROI samples one point rather than failing
                off = 0.5e-3 if a <= b else -0.5e-3
                a -= off
                b += off
            lo.append(_f32(a))
            hi.append(_f32(b))
        else:
            lo.append(0.0)
            hi.append(float(in_shape[d]))
    req = [_f32(r) for r in requested]
    in_size = []
    for d in range(n):
        sz = _f32(hi[d] - lo[d])
        if sz < 0:
            lo[d], hi[d] = hi[d], lo[d]
            req[d] = -req[d]
            sz = -sz
        in_size.append(sz)
    _adjust_output_size(req, in_size, mode, max_size)
    for d in range(n):
        if lo[d] == hi[d] and req[d] != 0:
            raise ValueError("Cannot produce non-empty output from empty input")
    min_size = 0 if math.prod(in_shape) == 0 else 1
    out_size: list[int] = []
    src_lo, src_hi = list(lo), list(hi)
    for d in range(n):
        r = req[d]
        size = max(min_size, _round_half_away(abs(r)))
        out_size.append(size)
        if r < 0:
            src_lo[d], src_hi[d] = src_hi[d], src_lo[d]
        if subpixel_scale and size != abs(r) and r != 0:
            adjustment = min(max(size / abs(r), -10.0), 10.0)
            center = (src_lo[d] + src_hi[d]) * 0.5
            src_lo[d] = _f32(min(max(center + (src_lo[d] - center) * adjustment, -1e9), 1e9))
            src_hi[d] = _f32(min(max(center + (src_hi[d] - center) * adjustment, -1e9), 1e9))
    return out_size, src_lo, src_hi


def _f32_array(x: np.ndarray) -> np.ndarray:
    """Round float64 values to float32 and back (what `_f32` does to one value)."""
    return x.astype(_F32).astype(np.float64)


def output_geometry_batch(
    in_shape: np.ndarray,
    requested: np.ndarray,
    *,
    mode: str = "default",
    max_size: Sequence[float] | None = None,
    roi_start: np.ndarray | None = None,
    roi_end: np.ndarray | None = None,
    roi_relative: bool = False,
    subpixel_scale: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`output_geometry` of a batch of images (2 spatial axes), without a per-sample loop.

    The float32/float64 arithmetic is `output_geometry`'s, operation for operation. Samples
    that take a rare path there (an empty input or ROI, which may fail; non-finite or huge
    values) are only flagged: compute those with `output_geometry`.

    Args:
        in_shape: ``(n, 2)`` spatial input extents.
        requested: ``(n, 2)`` requested extents (0: not given, negative: flip).
        mode, max_size, roi_relative, subpixel_scale: As in `output_geometry`.
        roi_start, roi_end: ``(n, 2)`` ROI coordinates, or None.

    Returns:
        ``(out_size, lo, hi, rare)``: ``(n, 2)`` int64 output extents, ``(n, 2)`` float64 input
        coordinates of the output's edges, and the ``(n,)`` bool mask of the samples to compute
        with `output_geometry` instead (their rows here are meaningless).

    Example:
        >>> out, lo, hi, rare = output_geometry_batch([[100, 200]], [[0.0, 50.0]])
        >>> out.tolist(), lo.tolist(), hi.tolist(), rare.tolist()
        ([[25, 50]], [[0.0, 0.0]], [[100.0, 200.0]], [False])
    """
    in_shape = np.asarray(in_shape, np.int64)

    def rows(
        in_shape: np.ndarray, requested: np.ndarray, roi_start: Any, roi_end: Any
    ) -> tuple[np.ndarray, ...]:
        return _geometry_rows(
            in_shape, requested, mode, max_size, roi_start, roi_end, roi_relative, subpixel_scale
        )

    with np.errstate(all="ignore"):  # the rare rows may divide by zero; they are redone
        # in blocks of rows, each small enough for numpy to keep the GIL (`dali._exec.gil`)
        return gil.by_rows(
            rows,
            len(in_shape),
            2,
            in_shape,
            np.asarray(requested, np.float64),
            None if roi_start is None else np.asarray(roi_start, np.float64),
            None if roi_end is None else np.asarray(roi_end, np.float64),
        )


def _geometry_rows(
    in_shape: np.ndarray,
    requested: np.ndarray,
    mode: str,
    max_size: Sequence[float] | None,
    roi_start: np.ndarray | None,
    roi_end: np.ndarray | None,
    roi_relative: bool,
    subpixel_scale: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    extent = in_shape.astype(np.float64)
    if roi_start is not None and roi_end is not None:
        a = np.asarray(roi_start, np.float64)
        b = np.asarray(roi_end, np.float64)
        if roi_relative:
            a = a * extent
            b = b * extent
        point = np.abs(b - a) < 1e-3  # a zero-size ROI samples one point
        off = np.where(a <= b, 0.5e-3, -0.5e-3)
        a = np.where(point, a - off, a)
        b = np.where(point, b + off, b)
        has_roi = in_shape > 0
        lo = np.where(has_roi, _f32_array(a), 0.0)
        hi = np.where(has_roi, _f32_array(b), extent)
    else:
        lo = np.zeros_like(extent)  # (np.zeros gives the GIL up around calloc)
        hi = extent
    req = _f32_array(requested)
    sz = _f32_array(hi - lo)
    flipped = sz < 0
    lo, hi = np.where(flipped, hi, lo), np.where(flipped, lo, hi)
    req = np.where(flipped, -req, req)
    in_size = np.where(flipped, -sz, sz)
    # rare: an empty input or region (errors, divisions by zero), non-finite or huge values
    # (NaN fails every comparison, so "not all below the limit" catches it too)
    limit = 2.0**30
    rare = (in_size == 0).any(axis=1) | ~(np.abs(req) + np.abs(lo) + np.abs(hi) < limit).all(axis=1)
    req = _adjust_rows(req, in_size, mode, max_size)
    rare |= ~(np.abs(req) < limit).all(axis=1)
    # the output size, and the region adjusted to it (`output_geometry`'s last loop)
    size = np.maximum(1, np.floor(np.abs(req) + 0.5)).astype(np.int64)
    neg = req < 0
    src_lo = np.where(neg, hi, lo)
    src_hi = np.where(neg, lo, hi)
    if subpixel_scale:
        adjust = (size != np.abs(req)) & (req != 0)
        factor = np.clip(size / np.abs(req), -10.0, 10.0)
        center = (src_lo + src_hi) * 0.5
        new_lo = _f32_array(np.clip(center + (src_lo - center) * factor, -1e9, 1e9))
        new_hi = _f32_array(np.clip(center + (src_hi - center) * factor, -1e9, 1e9))
        src_lo = np.where(adjust, new_lo, src_lo)
        src_hi = np.where(adjust, new_hi, src_hi)
    return size, src_lo, src_hi, rare


def _adjust_rows(
    out: np.ndarray, in_size: np.ndarray, mode: str, max_size: Sequence[float] | None
) -> np.ndarray:
    """`_adjust_output_size` of every row of a 2-axis batch (``in_size`` is nonzero)."""
    mask = (out != 0) & (in_size != 0)
    scale = np.where(
        in_size != 0, (out.astype(_F32) / in_size.astype(_F32)).astype(np.float64), 1.0
    )
    provided = mask.sum(axis=1, keepdims=True)

    def clamp_to_max(x: np.ndarray) -> np.ndarray:
        if max_size is None:
            return x
        for d, limit in enumerate(max_size):
            if limit > 0:
                col = x[:, d]
                x[:, d] = np.where(np.abs(col) > limit, np.copysign(limit, col), col)
        return x

    if mode == "default":  # one given extent (2 axes): the other gets its scale
        avg = np.abs(np.where(mask[:, :1], scale[:, :1], scale[:, 1:]))
        res = clamp_to_max(np.where(mask, out, _f32_array(in_size * avg)))
    elif mode == "stretch":
        res = clamp_to_max(np.where(mask, out, in_size))
    else:  # not_larger / not_smaller: one scale for all axes
        s = np.abs(scale)
        if mode == "not_smaller":
            final = np.where(mask, s, -np.inf).max(axis=1, keepdims=True)
        else:
            final = np.where(mask, s, np.inf).min(axis=1, keepdims=True)
        if max_size is not None:
            for d, limit in enumerate(max_size):
                if limit > 0:
                    final = np.minimum(final, limit / in_size[:, d : d + 1])
        change = ~mask | (np.abs(scale) != final)
        res = np.where(change, _f32_array(in_size * np.copysign(final, scale)), out)
    return np.where(provided == 0, in_size, res)  # no size at all: keep the input size


def axis_plans(
    in_shape: Sequence[int],
    out_size: Sequence[int],
    lo: Sequence[float],
    hi: Sequence[float],
    min_filter: int,
    mag_filter: int,
    antialias: bool,
) -> list[_resample.AxisPlan]:
    """One `AxisPlan` per spatial axis (the filter is chosen per axis: min when shrinking)."""
    return [
        _resample.AxisPlan.make(
            in_shape[d],
            out_size[d],
            lo[d],
            hi[d],
            min_filter,
            mag_interp=mag_filter,
            antialias=antialias,
        )
        for d in range(len(in_shape))
    ]


@functools.lru_cache(maxsize=8192)
def _cached_geometry(
    in_spatial: tuple[int, ...],
    requested: tuple[float, ...],
    mode: str,
    max_size: tuple[float, ...] | None,
    roi_start: tuple[float, ...] | None,
    roi_end: tuple[float, ...] | None,
    roi_relative: bool,
    subpixel_scale: bool,
) -> tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]:
    """`output_geometry`, memoised: batches repeat image sizes, and it is a pure function."""
    out_size, lo, hi = output_geometry(
        in_spatial,
        requested,
        mode=mode,
        max_size=max_size,
        roi_start=roi_start,
        roi_end=roi_end,
        roi_relative=roi_relative,
        subpixel_scale=subpixel_scale,
    )
    return tuple(out_size), tuple(lo), tuple(hi)


@functools.lru_cache(maxsize=8192)
def _cached_plans(
    in_spatial: tuple[int, ...],
    out_size: tuple[int, ...],
    lo: tuple[float, ...],
    hi: tuple[float, ...],
    min_filter: int,
    mag_filter: int,
    antialias: bool,
) -> tuple[_resample.AxisPlan, ...]:
    """`axis_plans`, memoised (the GPU backend builds them on the executor's thread)."""
    return tuple(axis_plans(in_spatial, out_size, lo, hi, min_filter, mag_filter, antialias))


# -- shared by resize and random_resized_crop ----------------------------------------------------

_FILTER_ARGS = [
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


class ResamplingMixin(Operator):
    """Filter and output-type arguments shared by `resize` and `random_resized_crop`."""

    def _int_samples(self, ws: Any, name: str) -> list[int]:
        if not self.has_arg(name):
            return []
        if not ws.is_tensor_arg(name):
            return [int(self.arg(name))] * ws.batch_size
        out = []
        for i, v in enumerate(ws.arg_samples(name)):
            flat = np.asarray(v).reshape(-1)
            if flat.size != 1:
                raise self.arg_error(name, f"sample {i}: expected one value, got {flat.size}")
            out.append(int(flat[0]))
        return out

    def filters(self, ws: Any) -> list[tuple[int, int]]:
        """Per sample ``(min_filter, mag_filter)`` as DALIInterpType values."""
        n = ws.batch_size
        interp = self._int_samples(ws, "interp_type")
        mins = self._int_samples(ws, "min_filter") or interp or [_resample.TRIANGULAR] * n
        mags = self._int_samples(ws, "mag_filter") or interp or [_resample.LINEAR] * n
        for name, values in (("interp_type", interp), ("min_filter", mins), ("mag_filter", mags)):
            for i, v in enumerate(values):
                if v not in _resample.INTERP_NAMES:
                    raise self.arg_error(name, f"sample {i}: unknown interpolation type {v}")
        return list(zip(mins, mags))

    def filter_arrays(self, ws: Any) -> tuple[np.ndarray, np.ndarray]:
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
            ("min_filter", _resample.TRIANGULAR),
            ("mag_filter", _resample.LINEAR),
        ):
            if self.has_arg(name):
                chosen[name] = int(self.arg(name))
            else:
                chosen[name] = interp if interp is not None else default
        given = {"interp_type": interp, **chosen}
        for name, v in given.items():
            if n and v is not None and v not in _resample.INTERP_NAMES:
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
                and int(self.arg(name)) not in _resample.INTERP_NAMES
            ):
                raise self.arg_error(name, f"unknown interpolation type {self.arg(name)}")
        dtype = self.arg("dtype")
        if dtype and np_dtype(dtype).kind not in "biuf":
            raise self.arg_error("dtype", f"unsupported output type {type_name(dtype)}")

    def layout_of(self, tl: Any, allowed: Sequence[int] = (2, 3)) -> tuple[str, tuple[int, ...]]:
        try:
            return spatial_axes(tl._layout, tl._ndim, allowed_spatial=allowed)
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
        *_FILTER_ARGS,
        Arg("subpixel_scale", "bool", default=True, doc="Keep fractional scales exact."),
        Arg("roi_start", "float_vec", tensor=True, doc="Input ROI origin (start > end flips)."),
        Arg("roi_end", "float_vec", tensor=True, doc="Input ROI end."),
        Arg("roi_relative", "bool", default=False, doc="ROI given as fractions of the size."),
        Arg("save_attrs", "bool", default=False, doc="Also output the input spatial shape."),
        Arg("image_type", "image_type", doc="Deprecated and ignored."),
    ],
    aliases=("Resize",),
)
class Resize(ResamplingMixin):
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
        if self.has_arg("resize_shorter"):
            self.mode = "not_smaller"
        elif self.has_arg("resize_longer"):
            self.mode = "not_larger"
        else:
            self.mode = self.arg("mode")
            if self.mode not in _MODES:
                raise self.arg_error(
                    "mode", f"invalid resize mode {self.mode!r}; expected one of {_MODES}"
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

    # -- per-sample argument values ------------------------------------------------------------
    def _scalars(self, ws: Any, name: str) -> list[float]:
        if not ws.is_tensor_arg(name):
            return [float(self.arg(name))] * ws.batch_size
        out = []
        for i, v in enumerate(ws.arg_samples(name)):
            flat = np.asarray(v, dtype=np.float64).reshape(-1)
            if flat.size != 1:
                raise self.arg_error(name, f"sample {i}: expected one value, got {flat.size}")
            out.append(float(flat[0]))
        return out

    def _vectors(self, ws: Any, name: str, n: int) -> list[list[float]]:
        """Per-sample vectors of ``n`` values; one value is repeated for every axis."""
        if not ws.is_tensor_arg(name):
            values = [list(self.arg(name))] * ws.batch_size
        else:
            values = [
                np.asarray(v, dtype=np.float64).reshape(-1).tolist() for v in ws.arg_samples(name)
            ]
        out = []
        for i, v in enumerate(values):
            if len(v) == 1:
                v = v * n
            if len(v) != n:
                raise self.arg_error(
                    name,
                    f"sample {i}: expected 1 or {n} values (one per spatial dimension), "
                    f"got {len(v)}",
                )
            out.append([_f32(x) for x in v])
        return out

    def requested_sizes(self, ws: Any, n: int) -> list[list[float]]:
        """The requested output extents of every sample, outermost axis first."""
        b = ws.batch_size
        if self.has_arg("size"):
            return self._vectors(ws, "size", n)
        if self.has_arg("resize_shorter") or self.has_arg("resize_longer"):
            name = "resize_shorter" if self.has_arg("resize_shorter") else "resize_longer"
            return [[v] * n for v in self._scalars(ws, name)]
        names = ["resize_z", "resize_y", "resize_x"][3 - n :]
        cols = [self._scalars(ws, a) if self.has_arg(a) else [0.0] * b for a in names]
        return [[cols[d][i] for d in range(n)] for i in range(b)]

    def _arg_rows(self, ws: Any, name: str) -> np.ndarray | None:
        """A tensor argument as ``(batch, k)`` float64 rows; None when the samples differ in
        shape (the per-sample helpers then check them one by one)."""
        try:
            batch = ws.arg_batch(name)
        except OperatorError:
            return None
        return np.asarray(batch, np.float64).reshape(ws.batch_size, -1)

    def _scalar_array(self, ws: Any, name: str) -> np.ndarray:
        """`_scalars` as a ``(batch,)`` float64 array."""
        if not ws.is_tensor_arg(name):
            return np.full(ws.batch_size, float(self.arg(name)))
        rows = self._arg_rows(ws, name)
        if rows is not None and rows.shape[1] == 1:
            return rows[:, 0]
        return np.array(self._scalars(ws, name), np.float64)

    def _vector_array(self, ws: Any, name: str, n: int) -> np.ndarray:
        """`_vectors` as a ``(batch, n)`` float64 array (float32 values)."""
        b = ws.batch_size
        if not ws.is_tensor_arg(name):
            v = list(self.arg(name))
            if len(v) == 1:
                v = v * n
            if len(v) != n:
                return np.array(self._vectors(ws, name, n), np.float64)  # raises the error
            return np.broadcast_to(_f32_array(np.array(v, np.float64)), (b, n))
        rows = self._arg_rows(ws, name)
        if rows is not None and rows.shape[1] in (1, n):
            return _f32_array(np.broadcast_to(rows, (b, n)))
        return np.array(self._vectors(ws, name, n), np.float64).reshape(b, n)

    def requested_array(self, ws: Any, n: int) -> np.ndarray:
        """`requested_sizes` as a ``(batch, n)`` float64 array."""
        if self.has_arg("size"):
            return self._vector_array(ws, "size", n)
        if self.has_arg("resize_shorter") or self.has_arg("resize_longer"):
            name = "resize_shorter" if self.has_arg("resize_shorter") else "resize_longer"
            return np.repeat(self._scalar_array(ws, name)[:, None], n, axis=1)
        names = ["resize_z", "resize_y", "resize_x"][3 - n :]
        b = ws.batch_size
        cols = [self._scalar_array(ws, a) if self.has_arg(a) else np.zeros(b) for a in names]
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
        return [_f32(v) for v in ms]

    def geometry_arrays(
        self, ws: Any, in_spatial: np.ndarray
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
                out[i], lo[i], hi[i] = _cached_geometry(
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
        self, ws: Any, shapes: Sequence[tuple[int, ...]], axes: tuple[int, ...]
    ) -> list[tuple[list[int], list[float], list[float]]]:
        """Per sample ``(out_size, lo, hi)`` (see `output_geometry`)."""
        n = len(axes)
        requested = self.requested_sizes(ws, n)
        max_size = self._max_size(n)
        roi_start = roi_end = None
        if self.has_arg("roi_start"):
            roi_start = self._vectors(ws, "roi_start", n)
            roi_end = self._vectors(ws, "roi_end", n)
        out = []
        max_size_key = tuple(max_size) if max_size is not None else None
        for i, shape in enumerate(shapes):
            in_spatial = tuple(shape[a] for a in axes)
            try:
                out.append(
                    _cached_geometry(
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
    def run_cpu(self, ws: Any) -> Any:
        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        samples = tl._samples()
        out_dtype = self.output_dtype(tl._np_dtype)
        shapes = [s.shape for s in samples]
        if len(axes) == 2 and len(shapes) > 1:
            # the batch at once: per-sample geometry is serial Python work in the executor
            # thread while the pool waits (random crops miss `_cached_geometry`)
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
            return _resample.resample(samples[i], axes, plans, out_dtype)

        results = ws.map(one)
        out = TensorListCPU._make(results, layout=layout, dtype=out_dtype, ndim=tl._ndim)
        if not self.arg("save_attrs"):
            return out
        attrs = np.array([[s[a] for a in axes] for s in shapes], dtype=np.int32)
        attrs = attrs.reshape(len(shapes), len(axes))
        return out, TensorListCPU._make(attrs, layout="")

    def run_gpu(self, ws: Any) -> Any:
        """Same geometry as `run_cpu`; the pixels in one batched kernel (`_resample_gpu`).

        Images (2 spatial axes) are planned for the whole batch at once with numpy
        (`geometry_arrays`, `_resample_gpu.plan_batch`): the executor's GPU thread does no
        per-sample Python work, which would cost more than the kernel.
        """
        from dali._ops.image import _gpu_common, _resample_gpu
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        layout, axes = self.layout_of(tl)
        out_dtype = self.output_dtype(tl._np_dtype)
        inputs = _gpu_common.input_batch(tl)
        shapes = inputs[0]
        antialias = self.arg("antialias")
        plans: Any
        if len(axes) == 2 and shapes:
            # (a view: the spatial axes are adjacent, and 2-D fancy indexing gives the GIL up)
            spatial = inputs[1][:, axes[0] : axes[0] + 2]
            out_size, lo, hi = self.geometry_arrays(ws, spatial)
            mins, mags = self.filter_arrays(ws)
            plans = _resample_gpu.plan_batch(spatial, out_size, lo, hi, mins, mags, antialias)
        else:
            geoms = self.geometry(ws, shapes, axes)
            filters = self.filters(ws)
            plans = [
                _cached_plans(tuple(shape[a] for a in axes), *geom, *flt, antialias)
                for shape, geom, flt in zip(shapes, geoms, filters)
            ]
        try:
            out = _resample_gpu.resample_batch(tl, axes, plans, out_dtype, layout, inputs=inputs)
        except TypeError as e:
            raise self.error(str(e)) from None
        if not self.arg("save_attrs"):
            return out
        import cupy

        attrs = np.array([[s[a] for a in axes] for s in shapes], dtype=np.int32)
        attrs = attrs.reshape(len(shapes), len(axes))
        return out, TensorListGPU._make(cupy.asarray(attrs), layout="")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        meta = [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout}]
        if node.scalar_args.get("save_attrs"):
            meta.append({"dtype": dali_dtype(np.int32), "ndim": 1, "layout": ""})
        return meta
