"""DALI's resampling filters, the per-axis weights, and the exact numpy reference.

DALI resizes one spatial axis at a time. For an axis with ROI start ``origin``
and step ``scale = (roi_end - roi_start) / out_size`` (negative when the ROI is flipped), output
pixel ``x`` is centred on the input coordinate ``c = origin + (x + 0.5)·scale − 0.5`` (pixel
indices). The weights of the input pixels around ``c`` come from a *tabulated* filter (DALI keeps
each window as a small table and interpolates it linearly, which is what we do too):

* ``LINEAR``: a triangle of radius 1; when downscaling with ``antialias`` it becomes the
  TRIANGULAR filter of radius ``s = in/out`` (area-like averaging).
* ``TRIANGULAR``, ``GAUSSIAN``: radius ``s`` when downscaling with ``antialias``, else 1.
* ``CUBIC``: Keys' cubic with a = −0.5, radius 2 (``2·s`` when downscaling with ``antialias``).
* ``LANCZOS3``: radius 3 (``3·s`` when downscaling with ``antialias``).
* ``NN``: ``floor(origin + (x + 0.5)·scale)``; the row (and depth) coordinates are accumulated
  in float32, so at exact ties the lower source row wins (output rows 13, 22, 31 and 40 of a
  100 → 45 resize).

Taps that fall outside the image are clamped to the border pixel (replicated), then the weights
are normalised to sum 1. Intermediate results are float32; integer outputs are rounded as
``trunc(v + 0.5)`` and saturated.

`resample_reference` implements exactly that in numpy for any dtype, layout and number of
spatial axes (on a 500×375 → 256×256 photo it equals DALI 2.4's output bit for bit). The fast
CPU paths (`cpu.resample`: `jit`, `band`) and the GPU kernels (`gpu`) compute the same sums.

The per-axis geometry (`AxisPlan`, `axis_weights`, `nn_indices`) is separate from the pixel
loops so that the other paths use the same weights and run their own loops.

Example:
    >>> import numpy as np
    >>> plan = AxisPlan.make(in_size=12, out_size=4, lo=0.0, hi=12.0, interp=LINEAR)
    >>> np.round(dense_weights(plan)[0, :5], 3).tolist()
    [0.333, 0.333, 0.222, 0.111, 0.0]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "CUBIC",
    "GAUSSIAN",
    "INTERP_NAMES",
    "LANCZOS3",
    "LINEAR",
    "NN",
    "TABLES",
    "TRIANGULAR",
    "AxisPlan",
    "axis_order",
    "axis_weights",
    "convert_output",
    "dense_weights",
    "nn_indices",
    "resample_reference",
]

# DALIInterpType values (dali.types.INTERP_*)
NN, LINEAR, CUBIC, LANCZOS3, TRIANGULAR, GAUSSIAN = 0, 1, 2, 3, 4, 5
#: The DALIInterpType names by value (the operators reject other values).
INTERP_NAMES = {
    NN: "INTERP_NN",
    LINEAR: "INTERP_LINEAR",
    CUBIC: "INTERP_CUBIC",
    LANCZOS3: "INTERP_LANCZOS3",
    TRIANGULAR: "INTERP_TRIANGULAR",
    GAUSSIAN: "INTERP_GAUSSIAN",
}

_F32 = np.float32


# -- filter tables ------------------------------------------------------------------------------


def _sinc(x: np.ndarray) -> np.ndarray:
    px = np.pi * x
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, 1.0, np.sin(px) / px)


def _cubic_window(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    x2, x3 = x * x, x * x * x
    inner = 1.5 * x3 - 2.5 * x2 + 1.0
    outer = -0.5 * x3 + 2.5 * x2 - 4.0 * x + 2.0
    return np.where(x >= 2, 0.0, np.where(x > 1, outer, inner))


def _make_tables() -> dict[str, np.ndarray]:
    """The windows as DALI tabulates them (float32), each spanning its whole support."""

    def grid(n: int, half_width: float) -> np.ndarray:
        i = np.arange(n, dtype=np.float64)
        return 2 * half_width * (i - (n - 1) * 0.5) / (n - 1)

    lanczos_x = grid(2 * 3 * 32 + 1, 3.0)
    return {
        "triangular": np.array([0.0, 1.0, 0.0], dtype=_F32),
        "gaussian": np.exp(-(grid(65, 2.0) ** 2)).astype(_F32),
        "cubic": _cubic_window(grid(129, 2.0)).astype(_F32),
        "lanczos3": np.where(
            np.abs(lanczos_x) >= 3, 0.0, _sinc(lanczos_x) * _sinc(lanczos_x / 3)
        ).astype(_F32),
    }


#: The filter tables by `AxisPlan.kind` (the GPU backend copies them to the device).
TABLES = _make_tables()


def _table_eval(table: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Linear interpolation in a filter table; 0 outside ``(-1, n)`` (DALI's ResamplingFilter)."""
    n = table.shape[0]
    x0 = np.floor(x)
    d = (x - x0).astype(_F32)
    i0 = x0.astype(np.int64)
    i1 = i0 + 1
    f0 = np.where((i0 >= 0) & (i0 < n), table[np.clip(i0, 0, n - 1)], _F32(0))
    f1 = np.where((i1 >= 0) & (i1 < n), table[np.clip(i1, 0, n - 1)], _F32(0))
    out = (f0 + d * (f1 - f0)).astype(_F32)
    return np.where((x > -1) & (x < n), out, _F32(0))


# -- per-axis geometry --------------------------------------------------------------------------


@dataclass(frozen=True)
class AxisPlan:
    """How one spatial axis is resampled.

    Attributes:
        in_size: Input extent along the axis.
        out_size: Output extent.
        origin: Input coordinate of the ROI start (the output's first edge).
        scale: Input distance per output pixel (float32; negative flips the axis).
        kind: Filter after the min/mag choice: ``"nn"``, ``"triangular"`` (LINEAR and
            TRIANGULAR), ``"gaussian"``, ``"cubic"`` or ``"lanczos3"``.
        radius: Filter radius in input pixels (0 for NN).
    """

    in_size: int
    out_size: int
    origin: float
    scale: float
    kind: str
    radius: float

    @staticmethod
    def make(
        in_size: int,
        out_size: int,
        lo: float,
        hi: float,
        interp: int = LINEAR,
        *,
        mag_interp: int | None = None,
        antialias: bool = True,
    ) -> AxisPlan:
        """The plan for resampling the input ROI ``[lo, hi)`` (``lo > hi`` flips) to ``out_size``.

        Args:
            in_size: Input extent.
            out_size: Output extent (> 0).
            lo: ROI start in input coordinates.
            hi: ROI end in input coordinates.
            interp: The filter used when downscaling (DALI's ``min_filter``).
            mag_interp: The filter used otherwise (``mag_filter``); defaults to ``interp``.
            antialias: Widen the filter by the scale factor when downscaling.
        """
        mag = interp if mag_interp is None else mag_interp
        if lo == hi:  # a degenerate ROI means "no ROI" in DALI's resampling kernel
            lo, hi = 0.0, float(in_size)
        roi_size = float(_F32(abs(_F32(hi) - _F32(lo))))
        down = out_size < roi_size
        chosen = interp if down else mag
        ratio = float(_F32(roi_size) / _F32(out_size)) if out_size else 1.0
        widen = antialias and down
        scale = float(_F32(_F32(hi) - _F32(lo)) / _F32(out_size)) if out_size else 0.0
        kind, radius = _filter_kind(chosen, ratio if widen else 1.0)
        return AxisPlan(int(in_size), int(out_size), float(_F32(lo)), scale, kind, radius)

    @property
    def support_len(self) -> float:
        """The filter's full width in input pixels (DALI's ``rescale`` argument)."""
        return 2.0 * self.radius

    @property
    def is_identity(self) -> bool:
        """Every output pixel lands exactly on one input pixel, in order."""
        return (
            self.in_size == self.out_size
            and self.scale == 1.0
            and self.origin == 0.0
            and self.kind != "gaussian"  # a narrow blur, not an interpolator
        )


def _filter_kind(interp: int, widen: float) -> tuple[str, float]:
    """Filter name and radius for a DALI interpolation type; ``widen`` is 1 or ``in/out``."""
    if interp == NN:
        return "nn", 0.0
    if interp in (LINEAR, TRIANGULAR):  # LINEAR is the triangle of radius 1 unless widened
        return "triangular", max(0.5, widen)
    if interp == GAUSSIAN:
        return "gaussian", max(0.5, widen)
    if interp == CUBIC:
        return "cubic", max(2.0, 2.0 * widen)
    if interp == LANCZOS3:
        return "lanczos3", max(3.0, 3.0 * widen)
    raise ValueError(f"unknown interpolation type {interp}")


@functools.lru_cache(maxsize=4096)
def axis_weights(plan: AxisPlan) -> tuple[np.ndarray, np.ndarray]:
    """Source indices and normalised weights of every output pixel of one axis.

    Memoised (the same image sizes recur every epoch); the arrays are read-only.

    Returns:
        ``(indices, weights)``, both ``(out_size, support)``: int64 indices already clamped to
        ``[0, in_size - 1]`` (border replication) and float32 weights that sum to 1 per row.
    """
    if plan.kind == "nn":
        raise ValueError("NN has no filter weights; use nn_indices")
    table = TABLES[plan.kind]
    n = table.shape[0]
    # float32 arithmetic in DALI's order (InitializeResamplingFilter)
    tscale = _F32(n - 1) / _F32(plan.support_len)
    anchor = _F32(plan.support_len) / _F32(2)
    support = max(1, math.ceil(float(_F32(n - 1) / tscale)))
    scale = _F32(plan.scale)
    srcx0 = _F32(plan.origin) + _F32(0.5) * scale - _F32(0.5) - anchor
    x = np.arange(plan.out_size, dtype=_F32)
    sx0f = (x * scale + srcx0).astype(_F32)
    sx0 = np.ceil(sx0f)
    f0 = (sx0 - sx0f).astype(_F32)
    k = np.arange(support, dtype=_F32)
    pos = ((f0[:, None] + k[None, :]) * tscale).astype(_F32)
    w = _table_eval(table, pos)
    total = w.sum(axis=1, dtype=_F32, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(_F32)
    idx = sx0.astype(np.int64)[:, None] + np.arange(support, dtype=np.int64)[None, :]
    idx = np.clip(idx, 0, plan.in_size - 1)
    idx.flags.writeable = False
    w.flags.writeable = False
    return idx, w


def dense_weights(plan: AxisPlan) -> np.ndarray:
    """The ``(out_size, in_size)`` resampling matrix of one axis (clamped taps summed)."""
    m = np.zeros((plan.out_size, plan.in_size), dtype=np.float64)
    if plan.kind == "nn":
        m[np.arange(plan.out_size), nn_indices(plan)] = 1.0
        return m
    idx, w = axis_weights(plan)
    rows = np.repeat(np.arange(plan.out_size), idx.shape[1])
    np.add.at(m, (rows, idx.reshape(-1)), w.reshape(-1).astype(np.float64))
    return m


def nn_indices(plan: AxisPlan, *, accumulate: bool = True) -> np.ndarray:
    """Nearest-neighbour source indices (clamped) of one axis.

    DALI's NN kernel steps the row and depth coordinates by adding ``scale`` in float32
    (``accumulate=True``, the default) and computes column coordinates directly.
    """
    scale = _F32(plan.scale)
    origin = _F32(plan.origin)
    if plan.out_size == 0:
        return np.zeros(0, dtype=np.int64)
    if accumulate:
        steps = np.full(plan.out_size, scale, dtype=_F32)
        steps[0] = origin + _F32(0.5) * scale
        src = np.add.accumulate(steps, dtype=_F32)
    else:
        x = np.arange(plan.out_size, dtype=_F32)
        src = (origin + (x + _F32(0.5)) * scale).astype(_F32)
    return np.clip(np.floor(src).astype(np.int64), 0, plan.in_size - 1)


# -- numpy reference ----------------------------------------------------------------------------


def convert_output(values: np.ndarray, out_dtype: np.dtype[Any]) -> np.ndarray:
    """float32 results to the output type: integers as ``trunc(v + 0.5)``, saturated."""
    out_dtype = np.dtype(out_dtype)
    if out_dtype.kind in "iu":
        info = np.iinfo(out_dtype)
        v = np.trunc(values + _F32(0.5))
        return np.clip(v, info.min, info.max).astype(out_dtype)
    if out_dtype.kind == "b":
        return values >= 0.5
    return values.astype(out_dtype, copy=False)


def _filter_axis(data: np.ndarray, axis: int, plan: AxisPlan) -> np.ndarray:
    """Resample float32 ``data`` along ``axis`` with the plan's filter (float32 result)."""
    idx, w = axis_weights(plan)
    shape = [1] * data.ndim
    shape[axis] = plan.out_size
    if idx.shape[1] > 16:  # wide filters: one matrix product beats many gathers
        m = dense_weights(plan).astype(_F32)
        out = np.tensordot(m, data, axes=([1], [axis]))
        return np.moveaxis(out, 0, axis).astype(_F32, copy=False)
    acc = None
    for k in range(idx.shape[1]):
        term = np.take(data, idx[:, k], axis=axis) * w[:, k].reshape(shape)
        acc = term if acc is None else acc + term
    assert acc is not None
    return acc.astype(_F32, copy=False)


def axis_order(axes: Sequence[int], plans: Sequence[AxisPlan]) -> list[int]:
    """Process the most shrinking axis first: it makes the next passes cheaper."""
    return sorted(range(len(axes)), key=lambda i: plans[i].out_size / max(1, plans[i].in_size))


def resample_reference(
    data: np.ndarray,
    axes: Sequence[int],
    plans: Sequence[AxisPlan],
    out_dtype: Any,
) -> np.ndarray:
    """Resample ``data`` along ``axes`` exactly as DALI's CPU kernel does.

    Args:
        data: The input sample (any layout; the non-spatial axes are carried along).
        axes: The spatial axes, outermost first (e.g. ``(0, 1)`` for HWC).
        plans: One `AxisPlan` per spatial axis.
        out_dtype: The output numpy dtype.

    Returns:
        The resampled array, with ``plans[i].out_size`` along ``axes[i]``.
    """
    out_dtype = np.dtype(out_dtype)
    if any(p.out_size == 0 for p in plans) or data.size == 0:
        shape = list(data.shape)
        for a, p in zip(axes, plans):
            shape[a] = p.out_size
        return np.zeros(shape, dtype=out_dtype)
    if all(p.kind == "nn" for p in plans):
        out = data
        for i, (a, p) in enumerate(zip(axes, plans)):
            out = np.take(out, nn_indices(p, accumulate=i < len(axes) - 1), axis=a)
        if out.dtype == out_dtype:
            return out
        return convert_output(out.astype(_F32), out_dtype)
    cur = data.astype(_F32)
    for i in axis_order(axes, plans):
        a, p = axes[i], plans[i]
        if p.kind == "nn":
            cur = np.take(cur, nn_indices(p, accumulate=i < len(axes) - 1), axis=a)
        elif not p.is_identity:
            cur = _filter_axis(cur, a, p)
    return convert_output(cur, out_dtype)
