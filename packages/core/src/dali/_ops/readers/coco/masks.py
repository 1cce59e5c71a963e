"""COCO masks as run-length encodings, and `readers.coco`'s pixelwise masks rasterised as DALI's.

COCO stores an object's mask as polygons (``[[x0, y0, x1, y1, ...], ...]`` in pixels) or as a
run-length encoding (RLE) of the ``h × w`` binary mask read **column by column** (Fortran
order): ``counts`` alternate runs of 0s and 1s, starting with 0s (a first count of 0 means the
first pixel is set). An RLE is either a list of counts or the compressed string of the COCO API
(6 bits a character, counts after the second stored as differences).

DALI's ``pixelwise_masks`` rasterise both with the COCO API's C functions (``maskApi.c``), and
this module reproduces them exactly:

* `rle_from_polygon` is ``rleFrPoly``: the outline is drawn at 5× resolution, then for every
  pixel column the points where the boundary crosses the column's centre are kept; a pixel is
  inside when its centre is below an odd number of crossings. The C code's integer conversions
  (truncation toward zero, ``NaN`` → ``INT_MIN`` for a zero-length edge) are kept.
* `rle_from_string` is ``rleFrString``.
* `pixelwise_mask` is DALI's ``COCOReader::PixelwiseMasks``: one binary mask per label (the
  union of the label's polygons; else the label's last RLE), then the labels merged in
  increasing order, a larger label over a smaller one, with DALI's quirks: where the last run
  of the merged mask (the end of the last column) overlaps the new label, the old label stays;
  and when the smallest label of an image has no mask at all, the whole mask is 0.

The merge is done on whole arrays when every RLE is canonical (no empty run but the first:
what the COCO API writes), and with DALI's run-by-run loop otherwise (`_merge_runs`), so that
odd RLEs give DALI's result too.

Example:
    >>> counts = rle_from_polygon(np.array([1.0, 1.0, 3.0, 1.0, 3.0, 3.0, 1.0, 3.0]), 4, 5)
    >>> decode(counts, 4, 5).astype(int)
    array([[0, 0, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 0, 0, 0]])
    >>> rle_from_string(rle_to_string(counts)).tolist() == counts.tolist()
    True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "decode",
    "is_canonical",
    "pixelwise_mask",
    "rle_encode",
    "rle_from_polygon",
    "rle_from_string",
    "rle_to_string",
]

_SCALE = 5.0  # rleFrPoly's upsampling of the outline
_INT_MIN = -(2**31)  # what x86 gives for (int)NaN


# -- run-length encodings ---------------------------------------------------------------------


def rle_from_string(s: str) -> np.ndarray:
    """The counts (uint32) of a compressed COCO RLE string (``rleFrString``).

    Each count is a little-endian base-32 number of 5-bit groups (a character is ``48 + group``,
    plus 32 when more groups follow), sign-extended; from the fourth count on it is the
    difference to the count two before.
    """
    counts: list[int] = []
    p, n = 0, len(s)
    while p < n:
        x = k = 0
        more = True
        while more and p < n:
            c = ((ord(s[p]) - 48 + 128) & 0xFF) - 128  # C's signed char
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and c & 0x10:
                x |= -1 << (5 * k)
        if len(counts) > 2:
            x += counts[-2]
        counts.append(x & 0xFFFFFFFF)  # (uint) x
    return np.asarray(counts, dtype=np.uint32)


def rle_to_string(counts: Sequence[int] | np.ndarray) -> str:
    """The compressed COCO string of ``counts`` (``rleToString``; the inverse of the above)."""
    out = []
    cnts = [int(c) for c in counts]
    for i, c in enumerate(cnts):
        x = c - cnts[i - 2] if i > 2 else c
        more = True
        while more:
            ch = x & 0x1F
            x >>= 5
            more = (x != -1) if ch & 0x10 else (x != 0)
            if more:
                ch |= 0x20
            out.append(chr(ch + 48))
    return "".join(out)


def rle_encode(mask: np.ndarray) -> np.ndarray:
    """The counts (uint32) of a 2-D binary ``mask`` (``h × w``), read column by column."""
    flat = np.asarray(mask, dtype=bool).ravel(order="F")
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    edges = np.concatenate(([0], change, [flat.size]))
    counts = np.diff(edges)
    if flat.size and flat[0]:
        counts = np.concatenate(([0], counts))
    return counts.astype(np.uint32)


def decode(counts: np.ndarray, h: int, w: int) -> np.ndarray:
    """The ``h × w`` boolean mask of ``counts`` (runs past ``h·w`` are cut, a short RLE padded)."""
    flat = _decode_flat(counts, h * w)
    return flat.reshape(w, h).T


def _decode_flat(counts: np.ndarray, n: int) -> np.ndarray:
    values = np.arange(len(counts)) % 2 == 1
    flat = np.repeat(values, np.asarray(counts, dtype=np.int64))[:n]
    if flat.size < n:
        flat = np.concatenate((flat, np.zeros(n - flat.size, dtype=bool)))
    return flat


def is_canonical(counts: np.ndarray, n: int) -> bool:
    """Whether ``counts`` cover exactly ``n`` pixels with no empty run but the first."""
    c = np.asarray(counts, dtype=np.int64)
    return bool(c.size > 0 and int(c.sum()) == n and (c.size == 1 or c[1:].min() > 0))


def rle_from_polygon(xy: np.ndarray, h: int, w: int) -> np.ndarray:
    """The counts (uint32) of polygon ``xy`` (flat ``x0, y0, x1, y1, ...``) on ``h × w`` pixels.

    ``rleFrPoly`` of the COCO API, bit for bit: vertices scaled by 5 and rounded as C does
    (``(int)(5x + .5)``), every edge walked along its major axis, and the boundary points
    where the outline crosses a pixel column's centre kept, rounded up to the next pixel row.
    """
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    k = len(xy)
    if k == 0:
        return np.asarray([h * w], dtype=np.uint32)
    x = np.trunc(_SCALE * xy[:, 0] + 0.5).astype(np.int64)
    y = np.trunc(_SCALE * xy[:, 1] + 0.5).astype(np.int64)
    xs, ys = x, y
    xe, ye = np.roll(x, -1), np.roll(y, -1)
    dx, dy = np.abs(xe - xs), np.abs(ys - ye)
    major_x = dx >= dy
    flip = (major_x & (xs > xe)) | (~major_x & (ys > ye))
    # walk every edge from its lower end (the C code swaps the ends when flipped)
    sx, ex = np.where(flip, xe, xs), np.where(flip, xs, xe)
    sy, ey = np.where(flip, ye, ys), np.where(flip, ys, ye)
    steps = np.where(major_x, dx, dy)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(
            major_x, (ey - sy).astype(np.float64) / dx, (ex - sx).astype(np.float64) / dy
        )
    # one point per step d = 0..steps of each edge, in the order the C code writes them
    npts = steps + 1
    edge = np.repeat(np.arange(k), npts)
    first = np.concatenate(([0], np.cumsum(npts)[:-1]))
    d = np.arange(int(npts.sum())) - first[edge]
    t = np.where(flip[edge], steps[edge] - d, d)
    tf = t.astype(np.float64)
    e_sx, e_sy, e_s = sx[edge], sy[edge], slope[edge]
    with np.errstate(invalid="ignore"):
        minor_x = e_sx + e_s * tf + 0.5
        minor_y = e_sy + e_s * tf + 0.5
    mx = major_x[edge]
    u = np.where(mx, t + e_sx, _c_int(minor_x))
    v = np.where(mx, _c_int(minor_y), t + e_sy)

    # the points where u changes: boundary crossings of a pixel column's centre
    if len(u) < 2:
        return np.asarray([h * w], dtype=np.uint32)
    u0, u1, v0, v1 = u[:-1], u[1:], v[:-1], v[1:]
    moved = u1 != u0
    xd = np.where(u1 < u0, u1, u1 - 1).astype(np.float64)
    xd = (xd + 0.5) / _SCALE - 0.5
    yd = np.where(v1 < v0, v1, v0).astype(np.float64)
    yd = (yd + 0.5) / _SCALE - 0.5
    keep = moved & (np.floor(xd) == xd) & (xd >= 0) & (xd <= w - 1)
    yd = np.ceil(np.clip(yd, 0, h))
    pos = xd[keep].astype(np.int64) * h + yd[keep].astype(np.int64)
    # C sorts the uint32 positions; points at the same position toggle the mask back and forth,
    # so only those with an odd multiplicity change it (and none at or after h*w)
    pos = pos & 0xFFFFFFFF
    values, mult = np.unique(pos, return_counts=True)
    toggles = values[(mult % 2 == 1) & (values < h * w)]
    counts = np.diff(np.concatenate(([0], toggles, [h * w])))
    return counts.astype(np.uint32)


def _c_int(v: np.ndarray) -> np.ndarray:
    """C's ``(int)`` of doubles: truncation toward zero, NaN as x86 gives it (``INT_MIN``)."""
    out = np.full(v.shape, _INT_MIN, dtype=np.int64)
    ok = np.isfinite(v)
    out[ok] = np.trunc(v[ok]).astype(np.int64)
    return out


# -- DALI's pixelwise masks -------------------------------------------------------------------


def pixelwise_mask(
    h: int,
    w: int,
    labels: np.ndarray,
    polygons: np.ndarray,
    vertices: np.ndarray,
    rles: Sequence[np.ndarray],
    rle_objects: Sequence[int],
) -> np.ndarray:
    """One image's ``h × w × 1`` int32 mask of labels, as DALI's ``pixelwise_masks`` output.

    Args:
        h, w: The image's size (from the annotations).
        labels: The label of every object of the image (int32 ``[N]``).
        polygons: ``[P, 3]`` rows ``(object, first vertex, end vertex)``.
        vertices: ``[V, 2]`` float32 vertices in pixels (with ``ratio``, DALI's relative
            vertices multiplied back by ``(w, h)`` in float32, as DALI does).
        rles: The RLE counts of the objects that have one, each covering ``h·w`` pixels.
        rle_objects: The object of each RLE.
    """
    n = h * w
    out = np.zeros((h, w, 1), dtype=np.int32)
    labels = np.asarray(labels)
    if labels.size == 0 or n == 0:
        return out
    masks: dict[int, np.ndarray] = {}  # label -> counts of its mask (DALI's R[label])
    # a label's RLEs: the last one wins; then its polygons replace them (DALI's rleMerge
    # overwrites the label's RLE)
    for counts, obj in zip(rles, rle_objects):
        masks[int(labels[obj])] = np.asarray(counts, dtype=np.uint32)
    by_label: dict[int, list[np.ndarray]] = {}
    for obj, start, end in np.asarray(polygons).reshape(-1, 3).tolist():
        xy = np.asarray(vertices[start:end], dtype=np.float64).ravel()
        by_label.setdefault(int(labels[obj]), []).append(rle_from_polygon(xy, h, w))
    for label, parts in by_label.items():
        if len(parts) == 1:
            masks[label] = parts[0]
        else:
            union = np.zeros(n, dtype=bool)
            for p in parts:
                union |= _decode_flat(p, n)
            masks[label] = rle_encode(union.reshape(w, h).T)
    order = sorted(set(labels.tolist()))
    if all(is_canonical(m, n) for m in masks.values()):
        flat = _merge_masks(order, masks, n)
    else:
        flat = _merge_runs(order, masks, n)
    out[..., 0] = flat.reshape(w, h).T
    return out


def _merge_masks(order: list[int], masks: dict[int, np.ndarray], n: int) -> np.ndarray:
    """DALI's label merge on whole arrays (every RLE canonical): the flat column-major labels.

    What DALI's run loop computes, stated per pixel: a label's pixels take the label, except in
    the final stretch where neither the merged runs nor the label's runs change any more
    (from the later of their last run starts to the end), where an older label stays.
    """
    first = masks.get(order[0])
    if first is None:  # DALI: the merge then starts from no runs and leaves everything at 0
        return np.zeros(n, dtype=np.int32)
    flat = np.where(_decode_flat(first, n), np.int32(order[0]), np.int32(0))
    last = n - int(first[-1])  # where the merged runs' last run starts
    for label in order[1:]:
        counts = masks.get(label)
        if counts is None:
            continue
        b = _decode_flat(counts, n)
        b_last = n - int(counts[-1])
        tail = max(last, b_last)
        head = flat[:tail]
        head[b[:tail]] = label
        rest = flat[tail:]
        rest[b[tail:] & (rest == 0)] = label
        last = tail
    return flat


def _merge_runs(order: list[int], masks: dict[int, np.ndarray], n: int) -> np.ndarray:
    """DALI's label merge run by run, as its C++ loop does it (any RLE, even odd ones)."""
    first = masks.get(order[0])
    a_cnts = [int(c) for c in first] if first is not None else []
    a_vals = [order[0] if i % 2 else 0 for i in range(len(a_cnts))]
    for label in order[1:]:
        b = masks.get(label)
        if b is None or len(b) == 0:
            continue
        b_cnts = [int(c) for c in b]
        a_m, b_m = len(a_cnts), len(b_cnts)
        cnt_a = a_cnts[0] if a_m else 0
        cnt_b = b_cnts[0]
        next_val_a = val_a = a_vals[0] if a_m else 0
        next_vb = vb = False
        seq_a = seq_b = 1
        cnts: list[int] = []
        vals: list[int] = []
        total = 1
        guard = 2 * (a_m + b_m) + 4  # DALI loops for ever when B ends first: stop instead
        while total > 0 and guard > 0:
            guard -= 1
            c = min(cnt_a, cnt_b)
            total = 0
            cnt_a -= c
            if not cnt_a and seq_a < a_m:
                cnt_a, next_val_a = a_cnts[seq_a], a_vals[seq_a]
                seq_a += 1
            total += cnt_a
            cnt_b -= c
            if not cnt_b and seq_b < b_m:
                cnt_b = b_cnts[seq_b]
                seq_b += 1
                next_vb = not next_vb
            total += cnt_b
            if val_a and vb:  # both: the new label, but the old one at the very end
                vals.append(val_a if not cnt_a else label)
            elif val_a:
                vals.append(val_a)
            else:
                vals.append(label if vb else 0)
            cnts.append(c)
            val_a, vb = next_val_a, next_vb
            if cnt_a == 0:
                break
        a_cnts, a_vals = cnts, vals
    flat = np.repeat(np.asarray(a_vals, dtype=np.int32), np.asarray(a_cnts, dtype=np.int64))[:n]
    if flat.size < n:
        flat = np.concatenate((flat, np.zeros(n - flat.size, dtype=np.int32)))
    return flat
