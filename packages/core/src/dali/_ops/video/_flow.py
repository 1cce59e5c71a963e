"""The dense optical-flow estimator behind `fn.optical_flow`: the algorithm and its CPU backend.

DALI computes optical flow on NVIDIA's optical-flow hardware (NVOF), which no Python binding
reaches here; this module is our own estimator with DALI's inputs and output format, run by
the same integer arithmetic on the CPU (numpy, below) and on the GPU (`_flow_gpu`, CuPy
kernels), so that both give IDENTICAL flow fields.

The algorithm is coarse-to-fine pyramidal block matching:

1. **Luma.** Every frame becomes 8-bit luma: ``(77 R + 150 G + 29 B + 128) >> 8`` for RGB (BGR
   reversed, RGBA/BGRA ignore alpha), the first channel for GRAY or one-channel frames.
2. **Pyramid.** Level ``l + 1`` halves level ``l`` (``ceil`` sizes) with a rounded 2x2 box
   average, the last row/column replicated for odd sizes. A frame gets up to
   `Preset.max_levels` levels while the smaller side of the next level stays >= `MIN_SIDE`
   (at most 4: on a 5th level of 1/16 size fine texture aliases into false motion, which the
   finer levels' small searches then cannot undo, measured on 640x360 frames).
3. **Matching, coarsest level first.** The flow is estimated for cells: ``step = 4`` pixels on
   the coarse levels, ``output_grid`` on level 0. A cell's cost for a displacement ``d`` is the
   sum of squared differences (SSD) between the ``win x win`` window centred on the cell in the
   first frame and the window moved by ``d`` in the second (coordinates clamped to the frame),
   plus ``PENALTY_PER_PIXEL * win * win * (|ox| + |oy|)`` for the distance ``o`` from the search
   centre, which keeps textureless cells on their prediction.
   * The prediction is the component-wise median of the 3x3 coarser cells around the cell,
     doubled (the median discards outliers; it is fused into the search, no extra pass).
   * The integer search covers ``(2 r + 1)^2`` displacements around the prediction (``r``
     larger on the coarsest level); the first minimum in row-major order wins.
   * Each hint (the external hint field, the previous pair's flow with temporal hints) gets the
     same search around it, and the lowest cost of all wins (ties keep the prediction). So a
     hint recovers motion beyond the pyramid's reach (about ``r_coarse * 2**(levels - 1) +
     r_fine * (2**(levels - 1) - 1)`` pixels: 46 px for the best preset on large frames, 7 px
     for the fastest on frames under 64 px) and a wrong hint costs nothing but time.
4. **Sub-pixel.** On level 0 a parabola through the raw SSD at ``d - 1, d, d + 1`` (per axis)
   gives the fraction, in NVOF's output unit of 1/32 pixel, rounded half up with integer
   division and clamped to +-1/2 pixel.

Everything is integer (luma, pyramid, SSD, medians, the parabola's division), so the CPU and GPU
flows are equal, not merely close. The flow is in pixels of the input frame (DALI's convention),
a multiple of 1/32 (NVOF's S10.5 fixed point).

``preset`` (DALI: 0 = best quality, 1 = fastest) picks `PRESETS` the way NVOF picks its
performance level: below 0.375 slow, below 0.75 medium, else fast.

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> tex = rng.integers(0, 256, (72, 88), dtype=np.uint8)
    >>> frames = np.stack([tex[4:68, 4:84], tex[6:70, 1:81]])[..., None]  # moved by (+3, -2)
    >>> flow = flow_sequence(frames, grid=4, image_type=2, preset=0.0)
    >>> flow.shape, np.median(flow[0, 2:-2, 2:-2], axis=(0, 1)).tolist()
    ((1, 16, 20, 2), [3.0, -2.0])
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = [
    "FLOW_UNIT",
    "MIN_SIDE",
    "PENALTY_PER_PIXEL",
    "PRESETS",
    "Preset",
    "cell_grid",
    "flow_sequence",
    "level_sizes",
    "luma",
    "preset_for",
    "pyramid",
    "quantize_hints",
]

#: Sub-pixel resolution of the flow: 1/32 pixel, NVOF's S10.5 fixed-point output.
FLOW_UNIT = 32
#: A pyramid level is added only while its smaller side stays at least this long.
MIN_SIDE = 16
#: Cell size, in pixels of their level, of the coarse (l > 0) levels.
COARSE_STEP = 4
#: Search-distance penalty, per window pixel and per pixel of displacement from the centre.
PENALTY_PER_PIXEL = 2
#: Largest sub-pixel fraction, in `FLOW_UNIT` (half a pixel: beyond, the integer search decides).
MAX_FRACTION = FLOW_UNIT // 2
#: Window pixels gathered at once on the CPU (cells x win x win): ~1 MB chunks stay in cache.
_CHUNK = 1 << 18


@dataclasses.dataclass(frozen=True)
class Preset:
    """Search parameters of one quality level.

    Attributes:
        win: Matching window side (even), in pixels of the level.
        r_coarse: Search radius on the coarsest level.
        r_fine: Search radius on the finer levels (the prediction is already close).
        max_levels: Most pyramid levels (the reach: module docstring).
    """

    win: int
    r_coarse: int
    r_fine: int
    max_levels: int


#: DALI's three quality levels: slow (best), medium, fast.
PRESETS = {
    "slow": Preset(win=12, r_coarse=4, r_fine=2, max_levels=4),
    "medium": Preset(win=8, r_coarse=4, r_fine=1, max_levels=4),
    "fast": Preset(win=8, r_coarse=3, r_fine=1, max_levels=3),
}


def preset_for(value: float) -> Preset:
    """The `Preset` of DALI's ``preset`` value (NVOF's thresholds: 0.375 and 0.75)."""
    if value < 0.375:
        return PRESETS["slow"]
    if value < 0.75:
        return PRESETS["medium"]
    return PRESETS["fast"]


def luma(frames: np.ndarray, image_type: int) -> np.ndarray:
    """8-bit luma of ``(F, H, W, C)`` uint8 frames (C = 1, 3 or 4), as ``(F, H, W)`` uint8.

    ``image_type``: 0 RGB, 1 BGR, 2 GRAY (DALI's `DALIImageType` values).
    """
    c = frames.shape[-1]
    if c == 1 or image_type == 2:
        return np.ascontiguousarray(frames[..., 0])
    x = frames.astype(np.int32)
    r, b = (x[..., 0], x[..., 2]) if image_type == 0 else (x[..., 2], x[..., 0])
    return ((77 * r + 150 * x[..., 1] + 29 * b + 128) >> 8).astype(np.uint8)


def level_sizes(h: int, w: int, max_levels: int) -> list[tuple[int, int]]:
    """``(h, w)`` of every pyramid level, level 0 first."""
    sizes = [(h, w)]
    while len(sizes) < max_levels:
        nh, nw = (sizes[-1][0] + 1) // 2, (sizes[-1][1] + 1) // 2
        if min(nh, nw) < MIN_SIDE:
            break
        sizes.append((nh, nw))
    return sizes


def pyramid(gray: np.ndarray, levels: int) -> list[np.ndarray]:
    """The levels of ``(F, H, W)`` uint8 luma: rounded 2x2 box averages, edges replicated."""
    out = [gray]
    for _ in range(levels - 1):
        g = out[-1].astype(np.int32)
        h, w = g.shape[1:]
        y0, x0 = np.arange((h + 1) // 2) * 2, np.arange((w + 1) // 2) * 2
        y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
        s = g[:, y0][:, :, x0] + g[:, y0][:, :, x1] + g[:, y1][:, :, x0] + g[:, y1][:, :, x1]
        out.append(((s + 2) >> 2).astype(np.uint8))
    return out


def cell_grid(h: int, w: int, step: int) -> tuple[int, int]:
    """Cells of a ``h x w`` level at ``step`` pixels: DALI's ``div_ceil`` of each side."""
    return -(-h // step), -(-w // step)


def quantize_hints(hints: np.ndarray) -> np.ndarray:
    """Float hint flow (pixels) as int32 in `FLOW_UNIT`: ``rint(h * 32)`` (exact scaling)."""
    q = np.rint(np.asarray(hints, np.float32) * np.float32(FLOW_UNIT))
    return np.clip(q, -(2**24), 2**24).astype(np.int32)


def _round_div(a: np.ndarray, b: int | np.ndarray) -> np.ndarray:
    """``a / b`` rounded half up, for ``b > 0`` (the GPU's ``dali_round_div``)."""
    return (2 * a + b) // (2 * b)


def _window(a: np.ndarray, cy: np.ndarray, cx: np.ndarray, win: int) -> np.ndarray:
    """The ``win x win`` windows of ``a`` around the cells ``(cy, cx)``, coordinates clamped.

    ``cy``/``cx`` broadcast to the cells' shape (rows ``(ny, 1)`` and columns ``(1, nx)``, or
    full ``(ny, nx)`` arrays); the result is ``(ny, nx, win, win)``.
    """
    h, w = a.shape
    k = np.arange(win) - win // 2
    ys = np.clip(cy[..., None] + k, 0, h - 1)
    xs = np.clip(cx[..., None] + k, 0, w - 1)
    return a[ys[..., :, None], xs[..., None, :]]


def _ssd(
    wa: np.ndarray,
    b: np.ndarray,
    cy: np.ndarray,
    cx: np.ndarray,
    dy: np.ndarray,
    dx: np.ndarray,
    win: int,
) -> np.ndarray:
    """SSD of the first frame's windows ``wa`` (`_window`) and those of ``b`` around
    ``(cy + dy, cx + dx)``; ``dy``/``dx`` have the cells' shape."""
    d = wa - _window(b, cy + dy, cx + dx, win)
    return (d * d).sum(axis=(-2, -1), dtype=np.int32)


def _median9(field: np.ndarray, iy: np.ndarray, ix: np.ndarray) -> np.ndarray:
    """Component-wise median of the 3x3 cells of ``field`` (ny, nx, 2) around (iy, ix)."""
    ny, nx = field.shape[:2]
    vals = [
        field[np.clip(iy + oy, 0, ny - 1)][:, np.clip(ix + ox, 0, nx - 1)]
        for oy in (-1, 0, 1)
        for ox in (-1, 0, 1)
    ]
    return np.sort(np.stack(vals), axis=0)[4]


def _level(
    a: np.ndarray,
    b: np.ndarray,
    level: int,
    step: int,
    coarse: np.ndarray | None,
    hints: list[tuple[np.ndarray, int]],
    p: Preset,
) -> np.ndarray:
    """The flow of one pyramid level: int32 ``(ny, nx, 2)`` (dx, dy).

    In pixels of the level, or in `FLOW_UNIT` on level 0 (sub-pixel refined). ``coarse`` is the
    next coarser level's flow; ``hints`` are ``(field in FLOW_UNIT at level 0, grid)`` pairs.
    """
    h, w = a.shape
    ny, nx = cell_grid(h, w, step)
    cy = (np.arange(ny) * step + step // 2)[:, None]
    cx = (np.arange(nx) * step + step // 2)[None, :]
    a32, b32 = a.astype(np.int32), b.astype(np.int32)

    if coarse is None:
        pred = np.zeros((ny, nx, 2), np.int32)
    else:
        cny, cnx = coarse.shape[:2]
        iy = np.minimum((cy[:, 0] // 2) // COARSE_STEP, cny - 1)
        ix = np.minimum((cx[0] // 2) // COARSE_STEP, cnx - 1)
        pred = 2 * _median9(coarse, iy, ix)
    centres = [pred]
    for field, grid in hints:
        hy = np.minimum((cy[:, 0] << level) // grid, field.shape[0] - 1)
        hx = np.minimum((cx[0] << level) // grid, field.shape[1] - 1)
        centres.append(_round_div(field[hy][:, hx], FLOW_UNIT << level).astype(np.int32))

    r = p.r_coarse if coarse is None else p.r_fine
    # rows of cells at a time: the gathered windows stay a few MB however large the frame
    rows = max(1, _CHUNK // (nx * p.win * p.win))
    out = np.empty((ny, nx, 2), np.int32)
    for y0 in range(0, ny, rows):
        sl = slice(y0, y0 + rows)
        out[sl] = _search(a32, b32, cy[sl], cx, [c[sl] for c in centres], r, level == 0, p)
    return out


def _search(
    a32: np.ndarray,
    b32: np.ndarray,
    cy: np.ndarray,
    cx: np.ndarray,
    centres: list[np.ndarray],
    r: int,
    subpixel: bool,
    p: Preset,
) -> np.ndarray:
    """The search of `_level` for some rows of cells: integer pixels, or `FLOW_UNIT` on level 0."""
    penalty = PENALTY_PER_PIXEL * p.win * p.win
    wa = _window(a32, cy, cx, p.win)  # the first frame's windows, shared by every candidate
    offsets = np.asarray([(ox, oy) for oy in range(-r, r + 1) for ox in range(-r, r + 1)], np.int32)
    d = best_cost = None
    for centre in centres:  # a search around each; the lowest cost wins, ties the earlier
        costs = [
            _ssd(wa, b32, cy, cx, centre[..., 1] + oy, centre[..., 0] + ox, p.win)
            + penalty * (abs(int(oy)) + abs(int(ox)))
            for ox, oy in offsets
        ]
        stacked = np.stack(costs)
        k = np.argmin(stacked, axis=0)  # the first minimum, row-major (dy, then dx)
        cost = np.take_along_axis(stacked, k[None], 0)[0]
        found = centre + offsets[k]
        if d is None:
            d, best_cost = found, cost
        else:
            better = cost < best_cost
            d = np.where(better[..., None], found, d)
            best_cost = np.where(better, cost, best_cost)
    assert d is not None
    if not subpixel:
        return d.astype(np.int32)

    def fraction(axis: int) -> np.ndarray:
        e = np.zeros(d.shape, np.int32)
        e[..., axis] = 1
        c0 = _ssd(wa, b32, cy, cx, d[..., 1], d[..., 0], p.win).astype(np.int64)
        cm = _ssd(wa, b32, cy, cx, d[..., 1] - e[..., 1], d[..., 0] - e[..., 0], p.win)
        cp = _ssd(wa, b32, cy, cx, d[..., 1] + e[..., 1], d[..., 0] + e[..., 0], p.win)
        cm, cp = cm.astype(np.int64), cp.astype(np.int64)
        num = FLOW_UNIT * (cm - cp)
        den = 2 * (cm + cp - 2 * c0)
        safe = np.where(den > 0, den, 1)
        q = np.where(den > 0, _round_div(num, safe), 0)
        return np.clip(q, -MAX_FRACTION, MAX_FRACTION)

    out = d.astype(np.int64) * FLOW_UNIT
    out[..., 0] += fraction(0)
    out[..., 1] += fraction(1)
    return out.astype(np.int32)


def flow_pair(
    pyr_a: list[np.ndarray],
    pyr_b: list[np.ndarray],
    grid: int,
    p: Preset,
    hints: list[tuple[np.ndarray, int]],
) -> np.ndarray:
    """The level-0 flow (int32, `FLOW_UNIT`) of one frame pair, given both pyramids."""
    coarse = None
    for level in range(len(pyr_a) - 1, -1, -1):
        step = grid if level == 0 else COARSE_STEP
        coarse = _level(pyr_a[level], pyr_b[level], level, step, coarse, hints, p)
    assert coarse is not None
    return coarse


def flow_sequence(
    frames: np.ndarray,
    *,
    grid: int,
    image_type: int,
    preset: float,
    temporal_hints: bool = False,
    hints: np.ndarray | None = None,
    hint_grid: int = 4,
) -> np.ndarray:
    """The flow of every consecutive pair of ``(F, H, W, C)`` uint8 frames.

    Args:
        frames: The sequence, F >= 2.
        grid: Output grid (1, 2, 4): one vector per ``grid x grid`` pixels.
        image_type: 0 RGB, 1 BGR, 2 GRAY.
        preset: DALI's speed/quality value, 0 (best) to 1 (fastest).
        temporal_hints: Use each pair's flow as a candidate for the next pair.
        hints: External hints, ``(F - 1, ceil(H / hint_grid), ceil(W / hint_grid), 2)``
            float32 pixels, one field per pair.
        hint_grid: The hints' grid.

    Returns:
        ``(F - 1, ceil(H / grid), ceil(W / grid), 2)`` float32 (dx, dy) in input pixels.
    """
    p = preset_for(preset)
    f, h, w = frames.shape[:3]
    levels = len(level_sizes(h, w, p.max_levels))
    pyr = pyramid(luma(frames, image_type), levels)
    qh = None if hints is None else quantize_hints(hints)
    out = []
    prev = None
    for i in range(f - 1):
        cands: list[tuple[np.ndarray, int]] = []
        if qh is not None:
            cands.append((qh[i], hint_grid))
        if temporal_hints and prev is not None:
            cands.append((prev, grid))
        prev = flow_pair([x[i] for x in pyr], [x[i + 1] for x in pyr], grid, p, cands)
        out.append(prev)
    return np.stack(out).astype(np.float32) / np.float32(FLOW_UNIT)
