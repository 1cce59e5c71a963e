"""`fn.resize`'s geometry: layouts, output size rules, ROI and per-axis plans.

Pure functions of the sizes and arguments, shared by the CPU and GPU backends of `resize` and
by `random_resized_crop`:

* `spatial_axes` finds the spatial dimensions (``HW`` or ``DHW``) in a layout (``HWC``,
  ``FHWC``, ``CHW``, ``FCHW``, ``CFHW``, ``DHWC``, ...);
* `output_geometry` turns the size arguments (``resize_x/y/z``, ``size``, ``resize_shorter``,
  ``resize_longer``, ``mode``, ``max_size``, ROI, ``subpixel_scale``) into the output size and
  the input region per axis, with DALI's float32 arithmetic; `output_geometry_batch` does the
  same for a whole batch of images in numpy. Any number of axes: `fn.tensor_resize` passes
  every dimension of its samples, with its ``alignment`` and ``size_rounding`` (keywords that
  `fn.resize` leaves at DALI's centre alignment and round-half-away);
* `axis_plans` adds the filter choice (min/mag filter, antialiasing) as
  `reference.AxisPlan` per axis.

Example:
    >>> output_geometry([100, 200], [0.0, 50.0])  # resize_x=50 on a 100x200 image
    ([25, 50], [0.0, 0.0], [100.0, 200.0])
    >>> output_geometry([100, 200], [51.2, 51.2], mode="not_smaller")[0]  # resize_shorter=51.2
    [51, 102]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.image.resample.reference import AxisPlan

__all__ = [
    "MODES",
    "ROUNDINGS",
    "axis_plans",
    "cached_geometry",
    "cached_plans",
    "f32",
    "f32_array",
    "output_geometry",
    "output_geometry_batch",
    "spatial_axes",
]

_F32 = np.float32
#: The values of ``mode``.
MODES = ("default", "stretch", "not_larger", "not_smaller")
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


#: The output size rounding rules (of a non-negative size), by ``size_rounding`` name:
#: DALI's ``round_int`` (halves away from zero), a cast to int, ``std::ceil``.
_ROUNDING: dict[str, Callable[[float], int]] = {
    "round": _round_half_away,
    "truncate": math.trunc,
    "ceil": math.ceil,
}
#: The values of ``size_rounding`` (`fn.tensor_resize`).
ROUNDINGS = tuple(_ROUNDING)


def f32(x: float) -> float:
    """``x`` rounded to float32 (DALI computes sizes and scales in float)."""
    return float(_F32(x))


def _adjust_output_size(
    out: list[float], in_size: Sequence[float], mode: str, max_size: Sequence[float] | None
) -> None:
    """DALI's ``ResizeAttr::AdjustOutputSize`` (float32 sizes, double scales), in place."""
    n = len(out)
    mask = [out[d] != 0 and in_size[d] != 0 for d in range(n)]
    scale = [f32(_F32(out[d]) / _F32(in_size[d])) if in_size[d] else 1.0 for d in range(n)]
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
                scale[d] = f32(_F32(out[d]) / _F32(in_size[d]))

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
                    out[d] = f32(in_size[d] * avg)
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
                s = f32(abs(scale[d]))
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
                out[d] = f32(in_size[d] * scale[d])


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
    alignment: Sequence[float] | None = None,
    rounding: str = "round",
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
        alignment: Per axis, the point of the region that keeps its place when the ROI is
            adjusted: 0 its start, 0.5 its centre (None: 0.5 on every axis), 1 its end
            (`fn.tensor_resize`'s ``alignment``).
        rounding: How a fractional output size becomes an integer: ``"round"`` (halves away
            from zero, `fn.resize`), ``"truncate"`` or ``"ceil"`` (`fn.tensor_resize`'s
            ``size_rounding``).

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
            lo.append(f32(a))
            hi.append(f32(b))
        else:
            lo.append(0.0)
            hi.append(float(in_shape[d]))
    req = [f32(r) for r in requested]
    in_size = []
    for d in range(n):
        sz = f32(hi[d] - lo[d])
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
    round_size = _ROUNDING[rounding]
    for d in range(n):
        r = req[d]
        size = max(min_size, round_size(abs(r)))
        out_size.append(size)
        if r < 0:
            src_lo[d], src_hi[d] = src_hi[d], src_lo[d]
        if subpixel_scale and size != abs(r) and r != 0:
            adjustment = min(max(size / abs(r), -10.0), 10.0)
            if alignment is None:
                center = (src_lo[d] + src_hi[d]) * 0.5
            else:  # the aligned point keeps its place (0.5: the centre, as above)
                a = alignment[d]
                center = (1.0 - a) * src_lo[d] + a * src_hi[d]
            src_lo[d] = f32(min(max(center + (src_lo[d] - center) * adjustment, -1e9), 1e9))
            src_hi[d] = f32(min(max(center + (src_hi[d] - center) * adjustment, -1e9), 1e9))
    return out_size, src_lo, src_hi


def f32_array(x: np.ndarray) -> np.ndarray:
    """Round float64 values to float32 and back (what `f32` does to one value)."""
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
    plain = _plain_request(in_shape, requested, mode, max_size, roi_start, roi_end)
    if plain is not None:
        with np.errstate(all="ignore"):
            out_size, lo, hi, rare = gil.by_rows(
                lambda ext: _plain_rows(ext, plain), len(in_shape), 2, in_shape
            )
        return out_size, lo, hi, rare

    def rows(
        in_shape: np.ndarray, requested: np.ndarray, roi_start: Any, roi_end: Any
    ) -> tuple[np.ndarray, ...]:
        return _geometry_rows(
            in_shape, requested, mode, max_size, roi_start, roi_end, roi_relative, subpixel_scale
        )

    with np.errstate(all="ignore"):  # the rare rows may divide by zero; they are redone
        # in blocks of rows, each small enough for numpy to keep the GIL (`dali._exec.gil`)
        out_size, lo, hi, rare = gil.by_rows(
            rows,
            len(in_shape),
            2,
            in_shape,
            np.asarray(requested, np.float64),
            None if roi_start is None else np.asarray(roi_start, np.float64),
            None if roi_end is None else np.asarray(roi_end, np.float64),
        )
    return out_size, lo, hi, rare


def _plain_request(
    in_shape: np.ndarray,
    requested: Any,
    mode: str,
    max_size: Sequence[float] | None,
    roi_start: Any,
    roi_end: Any,
) -> np.ndarray | None:
    """The one ``(1, 2)`` request of every sample when the batch asks for the common case, a
    fixed output size in whole pixels (``resize_x`` and ``resize_y`` given, no ROI, no
    ``max_size``, mode "default" or "stretch"); else None.

    Every image then gets exactly that size and its whole extent as the region: what
    `_geometry_rows` computes for it, found without its ~50 operations a block of rows.
    """
    if roi_start is not None or roi_end is not None or max_size is not None:
        return None
    if mode not in ("default", "stretch") or in_shape.ndim != 2 or in_shape.shape[1] != 2:
        return None
    req = np.asarray(requested, np.float64)
    if req.shape != in_shape.shape or not len(req):
        return None
    first = req[:1]
    size = np.abs(first)
    whole = (size >= 1) & (size < 2.0**24) & (np.floor(size) == size)
    if not whole.all():
        return None
    # the same request in every row: compared as bytes (a comparison of more than 500 values
    # in numpy gives the GIL up, `dali._exec.gil`)
    if np.ascontiguousarray(req).tobytes() != first.tobytes() * len(req):
        return None
    return first


def _plain_rows(
    in_shape: np.ndarray, request: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_geometry_rows` of a block of rows for a `_plain_request`: the requested size, the
    whole extent as the region (flipped where the request is negative). Extents of 0 or of
    2^24 and more (which float32 does not hold exactly) are flagged rare."""
    n = len(in_shape)
    size = np.empty((n, 2), np.int64)
    size[...] = np.abs(request).astype(np.int64)
    extent = in_shape.astype(np.float64)
    none = extent * 0.0
    neg = request < 0
    lo = np.where(neg, extent, none)
    hi = np.where(neg, none, extent)
    rare = np.asarray(~((in_shape > 0) & (in_shape < 2**24)).all(axis=1))
    return size, lo, hi, rare


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
        lo = np.where(has_roi, f32_array(a), 0.0)
        hi = np.where(has_roi, f32_array(b), extent)
    else:
        lo = np.zeros_like(extent)  # (np.zeros gives the GIL up around calloc)
        hi = extent
    req = f32_array(requested)
    sz = f32_array(hi - lo)
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
        new_lo = f32_array(np.clip(center + (src_lo - center) * factor, -1e9, 1e9))
        new_hi = f32_array(np.clip(center + (src_hi - center) * factor, -1e9, 1e9))
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
        res = clamp_to_max(np.where(mask, out, f32_array(in_size * avg)))
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
        res = np.where(change, f32_array(in_size * np.copysign(final, scale)), out)
    return np.where(provided == 0, in_size, res)  # no size at all: keep the input size


def axis_plans(
    in_shape: Sequence[int],
    out_size: Sequence[int],
    lo: Sequence[float],
    hi: Sequence[float],
    min_filter: int,
    mag_filter: int,
    antialias: bool,
) -> list[AxisPlan]:
    """One `AxisPlan` per spatial axis (the filter is chosen per axis: min when shrinking)."""
    return [
        AxisPlan.make(
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
def cached_geometry(
    in_spatial: tuple[int, ...],
    requested: tuple[float, ...],
    mode: str,
    max_size: tuple[float, ...] | None,
    roi_start: tuple[float, ...] | None,
    roi_end: tuple[float, ...] | None,
    roi_relative: bool,
    subpixel_scale: bool,
    alignment: tuple[float, ...] | None = None,
    rounding: str = "round",
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
        alignment=alignment,
        rounding=rounding,
    )
    return tuple(out_size), tuple(lo), tuple(hi)


@functools.lru_cache(maxsize=8192)
def cached_plans(
    in_spatial: tuple[int, ...],
    out_size: tuple[int, ...],
    lo: tuple[float, ...],
    hi: tuple[float, ...],
    min_filter: int,
    mag_filter: int,
    antialias: bool,
) -> tuple[AxisPlan, ...]:
    """`axis_plans`, memoised (the GPU backend builds them on the executor's thread)."""
    return tuple(axis_plans(in_spatial, out_size, lo, hi, min_filter, mag_filter, antialias))
