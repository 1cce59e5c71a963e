"""The planning of a batch of images for the tiled GPU resampling, compiled by Numba.

`gpu_plan` plans a batch of images with numpy column by column (`plan_batch`, `Images`,
`choose_tiles`, `descs_2d`): some 150 small operations, each in blocks of rows that keep the GIL.
At a batch of 256 that is about 1 ms of the executor's GPU thread, with the GIL held, for every
resize. These are the same computations as loops over the samples, compiled: the same float32
and float64 operations in the same order (no fused multiply-add: Numba does not contract them
without ``fastmath``), so the plans and descriptors are equal to the numpy ones byte for byte
(``tests/core/ops/image/test_gpu_planning.py`` runs both against the per-sample reference).

The functions keep the GIL (no ``nogil``): they take microseconds, and the executor's other
Python threads would otherwise wait to take it back. Importing this module needs Numba;
`gpu_plan` falls back to its numpy code without it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

__all__ = [
    "axis_rows",
    "fill_descs",
    "image_rows",
    "live_inner_max",
    "plan_rows",
    "tile_need_max",
]

_F32 = np.float32
# filter codes (`gpu_plan._KINDS`)
_NN, _CUBIC, _LANCZOS = 0, 3, 4


@numba.njit(cache=True)
def plan_rows(
    in_size: np.ndarray,
    out_size: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    min_filter: np.ndarray,
    mag_filter: np.ndarray,
    antialias: bool,
    interp_kind: np.ndarray,
) -> tuple[Any, ...]:  # pragma: no cover - compiled
    """`gpu_plan._plan_rows` of ``(n, axes)`` arrays: in_size, out_size, origin, scale, kind,
    radius, whether a filter value is unknown, and the first such value."""
    n, nsp = in_size.shape
    r_in = np.empty((n, nsp), np.int64)
    r_out = np.empty((n, nsp), np.int64)
    origin = np.empty((n, nsp), np.float64)
    scale = np.empty((n, nsp), np.float64)
    kind = np.empty((n, nsp), np.int64)
    radius = np.empty((n, nsp), np.float64)
    unknown, bad = False, 0
    for i in range(n):
        for d in range(nsp):
            size, out = in_size[i, d], out_size[i, d]
            a, b = lo[i, d], hi[i, d]
            if a == b:  # "no ROI" in DALI's kernel
                a, b = 0.0, np.float64(size)
            a32, b32 = _F32(a), _F32(b)
            span = b32 - a32
            roi = abs(span)
            down = np.float64(out) < np.float64(roi)
            filt = min_filter[i, d] if down else mag_filter[i, d]
            if filt < 0 or filt >= len(interp_kind):
                if not unknown:
                    unknown, bad = True, filt
                filt = 0
            if out != 0:
                out32 = _F32(out)
                ratio = np.float64(roi / out32)
                sc = np.float64(span / out32)
            else:
                ratio, sc = 1.0, 0.0
            widen = ratio if (antialias and down) else 1.0
            k = interp_kind[filt]
            if k == _NN:
                rad = 0.0
            elif k == _LANCZOS:
                rad = max(3.0, 3.0 * widen)
            elif k == _CUBIC:
                rad = max(2.0, 2.0 * widen)
            else:
                rad = max(0.5, widen)
            r_in[i, d], r_out[i, d] = size, out
            origin[i, d], scale[i, d] = np.float64(a32), sc
            kind[i, d], radius[i, d] = k, rad
    return r_in, r_out, origin, scale, kind, radius, unknown, bad


@numba.njit(cache=True)
def axis_rows(
    in_size: np.ndarray,
    origin: np.ndarray,
    scale: np.ndarray,
    kind: np.ndarray,
    radius: np.ndarray,
    table_n_of: np.ndarray,
    table_at_of: np.ndarray,
) -> tuple[np.ndarray, ...]:  # pragma: no cover - compiled
    """`gpu_plan._axis_rows` of ``(n, axes)`` plans: the `AXIS` fields start, scale, tscale,
    support, table, table_n, in_size, accumulate."""
    n, nsp = kind.shape
    start = np.empty((n, nsp), np.float32)
    scale32 = np.empty((n, nsp), np.float32)
    tscale = np.empty((n, nsp), np.float32)
    support = np.empty((n, nsp), np.int64)
    table = np.empty((n, nsp), np.int64)
    table_n = np.empty((n, nsp), np.int64)
    sizes = np.empty((n, nsp), np.int64)
    accumulate = np.zeros((n, nsp), np.int64)
    for i in range(n):
        for d in range(nsp):
            k = kind[i, d]
            sc, org = _F32(scale[i, d]), _F32(origin[i, d])
            scale32[i, d] = sc
            table[i, d] = table_at_of[k]
            sizes[i, d] = in_size[i, d]
            if k == _NN:
                start[i, d] = org
                tscale[i, d] = _F32(0)
                support[i, d] = 1
                table_n[i, d] = 0
                if d < nsp - 1:  # NN steps the outer coordinates in float32
                    accumulate[i, d] = 1
                continue
            tn = table_n_of[k]
            support_len = _F32(2.0 * radius[i, d])
            ts = _F32(tn - 1) / support_len
            anchor = support_len / _F32(2)
            start[i, d] = org + _F32(0.5) * sc - _F32(0.5) - anchor
            tscale[i, d] = ts
            support[i, d] = max(1, np.int64(np.ceil(_F32(tn - 1) / ts)))
            table_n[i, d] = tn
    return start, scale32, tscale, support, table, table_n, sizes, accumulate


@numba.njit(cache=True)
def image_rows(
    shapes: np.ndarray, in_size: np.ndarray, out_size: np.ndarray, a0: int, a1: int
) -> tuple[np.ndarray, ...]:  # pragma: no cover - compiled
    """`gpu_plan._image_rows`: outer, inner, in_sp, out_shape, out_elements, zero, first."""
    n, ndim = shapes.shape
    outer = np.empty(n, np.int64)
    inner = np.empty(n, np.int64)
    in_sp = np.empty((n, 2), np.int64)
    out_shape = np.empty((n, ndim), np.int64)
    out_elements = np.empty(n, np.int64)
    zero = np.empty(n, np.bool_)
    first = np.empty(n, np.int64)
    for i in range(n):
        o, c, volume, out_volume = 1, 1, 1, 1
        for d in range(ndim):
            s = shapes[i, d]
            volume *= s
            if d < a0:
                o *= s
            elif d > a1:
                c *= s
            if d == a0:
                s = out_size[i, 0]
            elif d == a1:
                s = out_size[i, 1]
            out_shape[i, d] = s
            out_volume *= s
        outer[i], inner[i] = o, c
        in_sp[i, 0], in_sp[i, 1] = shapes[i, a0], shapes[i, a1]
        out_elements[i] = out_volume
        zero[i] = volume == 0
        # `reference.axis_order`: the most shrinking axis first
        r0 = out_size[i, 0] / max(1, in_size[i, 0])
        r1 = out_size[i, 1] / max(1, in_size[i, 1])
        first[i] = 1 if r1 < r0 else 0
    return outer, inner, in_sp, out_shape, out_elements, zero, first


@numba.njit(cache=True)
def live_inner_max(
    inner: np.ndarray, out_elements: np.ndarray, zero: np.ndarray
) -> int:  # pragma: no cover - compiled
    """The most values per pixel of a sample that has output and input (1 when none has)."""
    most = 0
    for i in range(inner.shape[0]):
        if out_elements[i] != 0 and not zero[i]:
            most = max(most, inner[i])
    return most if most > 0 else 1


@numba.njit(cache=True)
def tile_need_max(
    first: np.ndarray,
    out_sp: np.ndarray,
    support: np.ndarray,
    scale: np.ndarray,
    in_sp: np.ndarray,
    inner: np.ndarray,
    out_elements: np.ndarray,
    zero: np.ndarray,
    tile_h: int,
    tile_w: int,
) -> int:  # pragma: no cover - compiled
    """The most shared-memory floats a live sample needs with ``tile_h x tile_w`` output tiles
    (`gpu_plan._tile_needs`; 0 when none is live: one with output and input)."""
    most = 0
    for i in range(first.shape[0]):
        if out_elements[i] == 0 or zero[i]:
            continue
        f = first[i]
        g = 1 - f
        t1 = min(tile_w if f == 1 else tile_h, out_sp[i, f])
        t2 = min(tile_h if f == 1 else tile_w, out_sp[i, g])
        s1, s2 = support[i, f], support[i, g]
        scale2 = abs(np.float64(scale[i, g]))
        lines = np.int64(np.ceil((t2 - 1) * scale2 * 1.001)) + s2 + 4
        lines = min(in_sp[i, g], lines)
        need = t1 * s1 + t2 * s2 + t1 + t2 + lines * t1 * inner[i]
        most = max(most, need)
    return most


@numba.njit(cache=True)
def fill_descs(
    words: np.ndarray,
    floats: np.ndarray,
    wide: np.ndarray,
    in_ptrs: np.ndarray,
    out_ptrs: np.ndarray,
    in_sp: np.ndarray,
    out_sp: np.ndarray,
    outer: np.ndarray,
    inner: np.ndarray,
    first: np.ndarray,
    zero: np.ndarray,
    out_elements: np.ndarray,
    axis: tuple[np.ndarray, ...],
    tile_h: int,
    tile_w: int,
    blocks: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """`gpu_plan.descs_2d` into a zeroed ``DESC_2D`` array seen as int32 ``words``, float32
    ``floats`` (both ``(n, 34)``) and uint64 ``wide`` (``(n, 17)``); the blocks per sample into
    ``blocks``. The field offsets are `gpu_plan.DESC_2D`'s (checked there)."""
    start, scale, tscale, support, table, table_n, in_size, accumulate = axis
    for i in range(words.shape[0]):
        h, w = in_sp[i, 0], in_sp[i, 1]
        oh, ow = out_sp[i, 0], out_sp[i, 1]
        tiles_y, tiles_x = -(-oh // tile_h), -(-ow // tile_w)
        wide[i, 0] = in_ptrs[i]
        wide[i, 1] = out_ptrs[i]
        wide[i, 2] = np.uint64(h * w * inner[i])
        wide[i, 3] = np.uint64(oh * ow * inner[i])
        words[i, 8], words[i, 9] = outer[i], inner[i]
        words[i, 10], words[i, 11], words[i, 12], words[i, 13] = h, w, oh, ow
        words[i, 14], words[i, 15] = tiles_y, tiles_x
        words[i, 16], words[i, 17] = first[i], zero[i]
        for d in range(2):
            at = 18 + 8 * d
            floats[i, at], floats[i, at + 1], floats[i, at + 2] = (
                start[i, d],
                scale[i, d],
                tscale[i, d],
            )
            words[i, at + 3], words[i, at + 4], words[i, at + 5] = (
                support[i, d],
                table[i, d],
                table_n[i, d],
            )
            words[i, at + 6], words[i, at + 7] = in_size[i, d], accumulate[i, d]
        blocks[i] = outer[i] * tiles_y * tiles_x if out_elements[i] != 0 else 0
