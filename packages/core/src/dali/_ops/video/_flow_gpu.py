"""The GPU backend of `fn.optical_flow`: `_flow`'s algorithm as batched CuPy kernels.

The same integer arithmetic as the CPU backend (`_flow`), so the two give equal flows. Kernel
launches, whatever the batch:

* ``dali_flow_luma``: one launch, every frame of every sequence to 8-bit luma;
* ``dali_flow_down``: one launch per pyramid level above 0, every frame;
* ``dali_flow_level``: one launch per pyramid level, every frame pair of every sequence (one
  thread per output cell). With ``enable_temporal_hints`` pair ``k`` starts from pair ``k - 1``'s
  flow, so the pairs go in waves: one launch per level per pair index, all sequences together.

Each launch finds its frame or pair from a table of int64 rows (``dali_flow_row``, a binary
search over each row's first thread), so ragged batches (sequences of different lengths and
frame sizes) waste no threads. All tables travel in ONE host-to-device copy before the first
launch; nothing waits for the GPU (hints are quantized on the device).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._ops.gpu.kernels import (
    BLOCK,
    device_id,
    input_batch,
    kernel_module,
    make_output,
    upload,
)
from dali._ops.video._flow import (
    COARSE_STEP,
    FLOW_UNIT,
    MAX_FRACTION,
    PENALTY_PER_PIXEL,
    Preset,
    cell_grid,
    level_sizes,
)

__all__ = ["flow_batch_gpu"]

#: int64 columns of a frame row (luma and pyramid launches).
_FRAME_COLS = 8
#: int64 columns of a pair row (matching launches).
_PAIR_COLS = 21

_SOURCE = r"""
// The row of a table (stride `cols`) that owns thread t: the last with row[0] <= t.
__device__ __forceinline__ int dali_flow_row(const i64* rows, int n, int cols, i64 t) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (rows[(i64)mid * cols] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

__device__ __forceinline__ i64 dali_flow_floordiv(i64 a, i64 b) {
  i64 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// a / b rounded half up (b > 0): numpy's (2a + b) // (2b)
__device__ __forceinline__ i64 dali_flow_round_div(i64 a, i64 b) {
  return dali_flow_floordiv(2 * a + b, 2 * b);
}

// frame rows: [first thread, input address, h, w, c, output offset, 0, 0]
extern "C" __global__ void dali_flow_luma(const i64* __restrict__ rows, int n, i64 total,
                                          int image_type, unsigned char* __restrict__ pyr) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  const i64* r = rows + (i64)dali_flow_row(rows, n, 8, t) * 8;
  const i64 p = t - r[0];
  const int c = (int)r[4];
  const unsigned char* px = (const unsigned char*)r[1] + p * c;
  int v;
  if (c == 1 || image_type == 2) {
    v = px[0];
  } else {
    const int red = image_type == 0 ? px[0] : px[2];
    const int blue = image_type == 0 ? px[2] : px[0];
    v = (77 * red + 150 * px[1] + 29 * blue + 128) >> 8;
  }
  pyr[r[5] + p] = (unsigned char)v;
}

// frame rows: [first thread, source offset, sh, sw, destination offset, dh, dw, 0]
// the rounded 2x2 box average, the last row/column replicated (`_flow.pyramid`)
extern "C" __global__ void dali_flow_down(const i64* __restrict__ rows, int n, i64 total,
                                          unsigned char* __restrict__ pyr) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  const i64* r = rows + (i64)dali_flow_row(rows, n, 8, t) * 8;
  const i64 p = t - r[0];
  const int sh = (int)r[2], sw = (int)r[3], dw = (int)r[6];
  const int y = (int)(p / dw), x = (int)(p % dw);
  const int y0 = 2 * y, x0 = 2 * x;
  const int y1 = min(y0 + 1, sh - 1), x1 = min(x0 + 1, sw - 1);
  const unsigned char* s = pyr + r[1];
  const int sum = s[(i64)y0 * sw + x0] + s[(i64)y0 * sw + x1] + s[(i64)y1 * sw + x0] +
                  s[(i64)y1 * sw + x1];
  pyr[r[4] + p] = (unsigned char)((sum + 2) >> 2);
}

__device__ int dali_flow_ssd(const unsigned char* __restrict__ a,
                             const unsigned char* __restrict__ b, int h, int w, int cy, int cx,
                             int dy, int dx, int win) {
  const int half = win / 2;
  int s = 0;
  for (int ky = 0; ky < win; ++ky) {
    const unsigned char* ra = a + (i64)dali_clamp(cy - half + ky, 0, h - 1) * w;
    const unsigned char* rb = b + (i64)dali_clamp(cy + dy - half + ky, 0, h - 1) * w;
    for (int kx = 0; kx < win; ++kx) {
      const int d = (int)ra[dali_clamp(cx - half + kx, 0, w - 1)] -
                    (int)rb[dali_clamp(cx + dx - half + kx, 0, w - 1)];
      s += d * d;
    }
  }
  return s;
}

__device__ __forceinline__ int dali_flow_median9(int* v) {
  for (int i = 1; i < 9; ++i) {
    const int x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; --j; }
    v[j + 1] = x;
  }
  return v[4];
}

// pair rows: [0 first thread, 1 a offset, 2 b offset, 3 h, 4 w, 5 step, 6 ny, 7 nx, 8 level,
//   9 output offset (flow0 on level 0, else flowc), 10 coarse offset (flowc, -1: none),
//   11 cny, 12 cnx, 13 external hint offset (ehints, -1: none), 14 eny, 15 enx, 16 egrid,
//   17 temporal hint offset (flow0, -1: none), 18 tny, 19 tnx, 20 tgrid]
extern "C" __global__ void dali_flow_level(
    const i64* __restrict__ rows, int n, i64 total, const unsigned char* __restrict__ pyr,
    int* __restrict__ flow0, int* __restrict__ flowc, const int* __restrict__ ehints, int win,
    int r_coarse, int r_fine, int penalty) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  const i64* r = rows + (i64)dali_flow_row(rows, n, 21, t) * 21;
  const i64 cell = t - r[0];
  const unsigned char* a = pyr + r[1];
  const unsigned char* b = pyr + r[2];
  const int h = (int)r[3], w = (int)r[4], step = (int)r[5], nx = (int)r[7];
  const int level = (int)r[8];
  const int iy = (int)(cell / nx), ix = (int)(cell % nx);
  const int cy = iy * step + step / 2, cx = ix * step + step / 2;

  int px = 0, py = 0;
  if (r[10] >= 0) {  // the median of the 3x3 coarser cells, doubled
    const int cny = (int)r[11], cnx = (int)r[12];
    const int ky = min((cy / 2) / COARSE_STEP, cny - 1), kx = min((cx / 2) / COARSE_STEP, cnx - 1);
    const int* cf = flowc + r[10];
    int vx[9], vy[9];
    int k = 0;
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox, ++k) {
        const i64 idx = ((i64)dali_clamp(ky + oy, 0, cny - 1) * cnx +
                         dali_clamp(kx + ox, 0, cnx - 1)) * 2;
        vx[k] = cf[idx];
        vy[k] = cf[idx + 1];
      }
    px = 2 * dali_flow_median9(vx);
    py = 2 * dali_flow_median9(vy);
  }
  // a search around the prediction and around each hint (external first, then temporal, as
  // the CPU); the lowest cost wins, ties the earlier
  const int rad = r[10] < 0 ? r_coarse : r_fine;
  int bc = 0x7fffffff, dx = px, dy = py;
  for (int cand = 0; cand < 3; ++cand) {
    int qx = px, qy = py;
    if (cand > 0) {
      const i64* hr = r + 13 + 4 * (cand - 1);
      if (hr[0] < 0) continue;
      const int* field = (cand == 1 ? ehints : flow0) + hr[0];
      const int hny = (int)hr[1], hnx = (int)hr[2], grid = (int)hr[3];
      const int hy = min((cy << level) / grid, hny - 1), hx = min((cx << level) / grid, hnx - 1);
      const i64 unit = (i64)FLOW_UNIT << level;
      qx = (int)dali_flow_round_div(field[((i64)hy * hnx + hx) * 2], unit);
      qy = (int)dali_flow_round_div(field[((i64)hy * hnx + hx) * 2 + 1], unit);
    }
    for (int oy = -rad; oy <= rad; ++oy)
      for (int ox = -rad; ox <= rad; ++ox) {
        const int c = dali_flow_ssd(a, b, h, w, cy, cx, qy + oy, qx + ox, win) +
                      penalty * (abs(oy) + abs(ox));
        if (c < bc) { bc = c; dx = qx + ox; dy = qy + oy; }
      }
  }
  if (level > 0) {
    int* out = flowc + r[9] + cell * 2;
    out[0] = dx;
    out[1] = dy;
    return;
  }
  const i64 c0 = dali_flow_ssd(a, b, h, w, cy, cx, dy, dx, win);
  i64 frac[2];
  for (int axis = 0; axis < 2; ++axis) {
    const int ex = axis == 0, ey = axis == 1;
    const i64 cm = dali_flow_ssd(a, b, h, w, cy, cx, dy - ey, dx - ex, win);
    const i64 cp = dali_flow_ssd(a, b, h, w, cy, cx, dy + ey, dx + ex, win);
    const i64 num = (i64)FLOW_UNIT * (cm - cp), den = 2 * (cm + cp - 2 * c0);
    i64 q = den > 0 ? dali_flow_round_div(num, den) : 0;
    frac[axis] = q < -MAX_FRACTION ? -MAX_FRACTION : (q > MAX_FRACTION ? MAX_FRACTION : q);
  }
  int* out = flow0 + r[9] + cell * 2;
  out[0] = (int)((i64)dx * FLOW_UNIT + frac[0]);
  out[1] = (int)((i64)dy * FLOW_UNIT + frac[1]);
}
"""

_NAMES = ("dali_flow_luma", "dali_flow_down", "dali_flow_level")


def _kernels() -> dict[str, Any]:
    defines = (
        f"#define COARSE_STEP {COARSE_STEP}\n#define FLOW_UNIT {FLOW_UNIT}\n"
        f"#define MAX_FRACTION {MAX_FRACTION}\n"
    )
    return kernel_module(device_id(), defines + _SOURCE, _NAMES)


def _table(rows: list[list[int]], cols: int) -> np.ndarray:
    return np.asarray(rows, np.int64).reshape(len(rows), cols)


def flow_batch_gpu(
    tl: Any,
    *,
    grid: int,
    image_type: int,
    preset: Preset,
    temporal_hints: bool,
    hints: list[Any] | None,
    hint_grid: int,
    layout: str,
) -> Any:
    """The flow of every sequence of a `TensorListGPU` of ``(F, H, W, C)`` uint8 sequences.

    Args:
        tl: The validated input batch (F >= 2, C in 1, 3, 4).
        grid: Output grid.
        image_type: 0 RGB, 1 BGR, 2 GRAY.
        preset: The search parameters.
        temporal_hints: Start every pair from the previous pair's flow too.
        hints: Per sequence, the validated ``(F - 1, hh, hw, 2)`` float32 CuPy hint field.
        hint_grid: The hints' grid.
        layout: The output's layout.

    Returns:
        A `TensorListGPU` of ``(F - 1, ceil(H / grid), ceil(W / grid), 2)`` float32 flows.
    """
    import cupy

    shapes, _, ptrs, keep = input_batch(tl)
    n = len(shapes)
    out_shapes = [(f - 1, *cell_grid(h, w, grid), 2) for f, h, w, _ in (tuple(s) for s in shapes)]
    if n == 0:
        return make_output(cupy.empty(0, np.float32), [], layout, np.float32, 4)
    kern = _kernels()

    # the pyramid: every frame's levels in one uint8 buffer
    seq_levels = [level_sizes(s[1], s[2], preset.max_levels) for s in shapes]
    max_levels = max(len(lv) for lv in seq_levels)
    pyr_off: list[list[list[int]]] = []  # [sequence][frame][level] -> offset
    size = 0
    for s, lv in zip(shapes, seq_levels):
        frames = []
        for _ in range(s[0]):
            offs = []
            for h, w in lv:
                offs.append(size)
                size += h * w
            frames.append(offs)
        pyr_off.append(frames)

    luma_rows: list[list[int]] = []
    start = 0
    for i, s in enumerate(shapes):
        f, h, w, c = s
        for k in range(f):
            addr = int(ptrs[i]) + k * h * w * c
            luma_rows.append([start, addr, h, w, c, pyr_off[i][k][0], 0, 0])
            start += h * w
    launches: list[tuple[str, list[list[int]], int, int]] = [("luma", luma_rows, start, 8)]
    for level in range(1, max_levels):
        rows, start = [], 0
        for i, (s, lv) in enumerate(zip(shapes, seq_levels)):
            if len(lv) <= level:
                continue
            (sh, sw), (dh, dw) = lv[level - 1], lv[level]
            for k in range(s[0]):
                offs = pyr_off[i][k]
                rows.append([start, offs[level - 1], sh, sw, offs[level], dh, dw, 0])
                start += dh * dw
        launches.append(("down", rows, start, 8))

    # flows: level 0 of every pair back to back in sequence order (= the output), coarse apart
    flow0_off, flowc_off, ehint_off = [], [], []
    size0 = sizec = sizee = 0
    for i, (s, lv) in enumerate(zip(shapes, seq_levels)):
        seq0, seqc, seqe = [], [], []
        ny0, nx0 = cell_grid(s[1], s[2], grid)
        for _ in range(s[0] - 1):
            seq0.append(size0)
            size0 += ny0 * nx0 * 2
            offs = [-1]
            for h, w in lv[1:]:
                offs.append(sizec)
                cy, cx = cell_grid(h, w, COARSE_STEP)
                sizec += cy * cx * 2
            seqc.append(offs)
            if hints is not None:
                seqe.append(sizee)
                sizee += int(np.prod(hints[i].shape[1:]))
        flow0_off.append(seq0)
        flowc_off.append(seqc)
        ehint_off.append(seqe)

    max_pairs = max(s[0] for s in shapes) - 1
    waves = [[k] for k in range(max_pairs)] if temporal_hints else [list(range(max_pairs))]
    for wave in waves:
        for level in range(max_levels - 1, -1, -1):
            rows, start = [], 0
            for i, (s, lv) in enumerate(zip(shapes, seq_levels)):
                if len(lv) <= level:
                    continue
                h, w = lv[level]
                step = grid if level == 0 else COARSE_STEP
                ny, nx = cell_grid(h, w, step)
                ny0, nx0 = cell_grid(s[1], s[2], grid)
                for k in wave:
                    if k >= s[0] - 1:
                        continue
                    out = flow0_off[i][k] if level == 0 else flowc_off[i][k][level]
                    if level + 1 < len(lv):
                        coarse = [
                            flowc_off[i][k][level + 1],
                            *cell_grid(*lv[level + 1], COARSE_STEP),
                        ]
                    else:
                        coarse = [-1, 0, 0]
                    ext = [-1, 0, 0, 1]
                    if hints is not None:
                        ext = [ehint_off[i][k], *hints[i].shape[1:3], hint_grid]
                    tmp = [-1, 0, 0, 1]
                    if temporal_hints and k > 0:
                        tmp = [flow0_off[i][k - 1], ny0, nx0, grid]
                    a, b = pyr_off[i][k][level], pyr_off[i][k + 1][level]
                    rows.append([start, a, b, h, w, step, ny, nx, level, out, *coarse, *ext, *tmp])
                    start += ny * nx
            launches.append(("level", rows, start, _PAIR_COLS))

    tables = [_table(rows, cols) for _, rows, _, cols in launches]
    dev_tables = upload(*tables)  # ONE host-to-device copy for every launch's table
    pyr = cupy.empty(max(size, 1), np.uint8)
    flow0 = cupy.empty(max(size0, 1), np.int32)
    flowc = cupy.empty(max(sizec, 1), np.int32)
    if hints is not None:
        # rint(h * 32), as `_flow.quantize_hints`; on the device, so nothing waits
        parts = [
            cupy.clip(cupy.rint(hv.astype(np.float32) * np.float32(FLOW_UNIT)), -(2**24), 2**24)
            .astype(np.int32)
            .reshape(-1)
            for hv in hints
        ]
        ehints = cupy.concatenate(parts) if parts else cupy.zeros(1, np.int32)
    else:
        ehints = cupy.zeros(1, np.int32)
    penalty = PENALTY_PER_PIXEL * preset.win * preset.win
    for (kind, rows, total, _), table in zip(launches, dev_tables):
        if total == 0:
            continue
        blocks = (total + BLOCK - 1) // BLOCK
        nrows, total64 = np.int32(len(rows)), np.int64(total)
        if kind == "luma":
            args: tuple[Any, ...] = (table, nrows, total64, np.int32(image_type), pyr)
            kern["dali_flow_luma"]((blocks,), (BLOCK,), args)
        elif kind == "down":
            kern["dali_flow_down"]((blocks,), (BLOCK,), (table, nrows, total64, pyr))
        else:
            args = (
                table,
                nrows,
                total64,
                pyr,
                flow0,
                flowc,
                ehints,
                np.int32(preset.win),
                np.int32(preset.r_coarse),
                np.int32(preset.r_fine),
                np.int32(penalty),
            )
            kern["dali_flow_level"]((blocks,), (BLOCK,), args)
    del keep  # (the inputs stay referenced until every launch is queued)
    out = flow0[:size0].astype(np.float32) / np.float32(FLOW_UNIT)
    return make_output(out, out_shapes, layout, np.float32, 4)
