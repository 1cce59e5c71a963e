"""The window search of `fn.random_bbox_crop`: DALI's loop, run for a whole batch at once.

For each sample DALI repeats *rounds* until it has a window:

1. draw one of the options: a value of ``thresholds``, or "no crop" (with ``allow_no_crop``);
   "no crop" ends the search with the whole image;
2. make ``num_attempts`` attempts. An attempt draws a window: a relative extent per axis uniform
   in ``scaling`` (fixed-ratio pairs of ``aspect_ratio`` then enforced, the largest extent kept),
   rejected when a ratio falls outside ``aspect_ratio``, placed uniformly inside the image; or,
   with ``crop_shape``, a window of that absolute size at a uniform integer anchor (between 0
   and ``input_shape − crop_shape``, whichever is smaller). Ratios are between relative extents,
   or between absolute ones when ``input_shape`` is given. The attempt's *metric* is the
   smallest (``all_boxes_above_threshold``) or largest IoU of the window with the boxes (or
   fraction of each box inside it, ``threshold_type="overlap"``); it is *valid* when ``>=`` the
   round's threshold. An attempt that is valid, or better than the best metric so far, becomes
   the sample's window; it succeeds when it is valid and keeps at least one box. The attempts of
   a round all run, a later one replacing an earlier one by these rules, as in DALI's loop.
   A sample without boxes takes its first window whose ratios are in range.
3. stop after a round that ends with success, or once ``total_num_attempts`` attempts were made
   (then the best window so far is used, with a warning).

Every sample draws from its own counter-based stream (``ws.rng``), one sub-stream per round, a
fixed number of values per round: its windows depend on its identity only, never on the batch,
the thread count or the sharding. The batch is searched together: each round
evaluates every attempt of every sample still searching with numpy, then applies the attempts
in order with a few vector operations per attempt.

Without ``total_num_attempts`` DALI can loop forever (a threshold no window reaches); here the
search stops with an error after `MAX_ROUNDS` rounds instead.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._ops.detection._boxes import intersection_volume, iou, volume

__all__ = ["MAX_ROUNDS", "SEARCH_STREAM", "CropParams", "SearchResult", "kept_boxes", "search"]

_F32 = np.float32

#: The sub-streams of a sample's random stream: round ``r`` draws from ``SEARCH_STREAM + r``.
SEARCH_STREAM = 0x62626F78_00000000  # "bbox"
#: Rounds after which a search without ``total_num_attempts`` gives up with an error.
MAX_ROUNDS = 10_000
#: Largest number of (attempt, box) pairs evaluated at once (bounds the temporary arrays).
_CHUNK = 1 << 20


@dataclass(frozen=True)
class CropParams:
    """The checked arguments of `fn.random_bbox_crop` that drive the search."""

    thresholds: tuple[float, ...]
    allow_no_crop: bool
    overlap: bool
    aspect_ratio: tuple[tuple[float, float], ...]
    scaling: tuple[float, float]
    num_attempts: int
    total_num_attempts: int
    all_boxes_above_threshold: bool
    prune_threshold: float | None


@dataclass
class SearchResult:
    """The window of every sample: ``(batch, ndim)`` float32 corners, relative (``rel_*``) and as
    output (``out_*``: absolute with ``crop_shape``), and how the search ended."""

    rel_lo: np.ndarray
    rel_hi: np.ndarray
    out_lo: np.ndarray
    out_hi: np.ndarray
    no_crop: np.ndarray  # the "no crop" option ended the search
    found: np.ndarray  # a window was taken (else: the empty window at 0)
    success: np.ndarray  # it met the threshold (else: the best one, after a warning)
    best: np.ndarray  # its metric
    attempts: np.ndarray  # attempts made


def kept_boxes(
    clo: np.ndarray, chi: np.ndarray, blo: np.ndarray, bhi: np.ndarray, prune: float | None
) -> np.ndarray:
    """Which boxes a window keeps (broadcast): those whose centre lies in ``[lo, hi)`` on every
    axis, or with ``prune``, those with a fraction ``>= prune`` of their volume inside (and some
    volume inside)."""
    if prune is None:
        c = (blo + bhi) * _F32(0.5)
        return ((c >= clo) & (c < chi)).all(axis=-1)
    inter = intersection_volume(clo, chi, blo, bhi)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = inter / volume(blo, bhi)
    return (inter > 0) & (frac >= _F32(prune))


def _metric(
    p: CropParams, clo: np.ndarray, chi: np.ndarray, blo: np.ndarray, bhi: np.ndarray
) -> np.ndarray:
    """The overlap of windows ``(S, K, 1, ndim)`` with boxes ``(S, 1, N, ndim)``: ``(S, K, N)``."""
    if not p.overlap:
        return iou(clo, chi, blo, bhi)
    inter = intersection_volume(clo, chi, blo, bhi)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / volume(blo, bhi)
    # a box of no volume has nothing inside any window (DALI's 0/0 NaN depends on box order)
    return np.where(np.isnan(out), _F32(0), out)


def _uniform(bits: np.ndarray) -> np.ndarray:
    """float32 in [0, 1) from the top 24 bits."""
    return (bits >> np.uint64(40)).astype(_F32) * _F32(2.0**-24)


def _below(bits: np.ndarray, n: Any) -> np.ndarray:
    """Integers uniform in ``[0, n)`` from the top 32 bits (``n`` broadcast, ``< 2**32``)."""
    u32 = np.uint64(32)
    return ((bits >> u32) * np.asarray(n).astype(np.uint64)) >> u32


def _fixed_ratios(p: CropParams, ndim: int) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """DALI's table of fixed ratios (``[d1, d0]``: the factor giving extent d1 from d0; 0: not
    fixed) and the axis pairs ``(i, j, range index)`` the ratio ranges apply to."""
    table = np.zeros((ndim, ndim), _F32)
    pairs = []
    k = 0
    for d0 in range(ndim):
        for d1 in range(d0 + 1, ndim):
            lo, hi = p.aspect_ratio[k]
            if lo == hi:
                table[d0, d1] = _F32(lo)  # (d1 from d0 reads [d1, d0]: 1 / lo below)
                table[d1, d0] = _F32(1.0 / lo) if lo else _F32(np.inf)
            pairs.append((d0, d1, k))
            k = (k + 1) % len(p.aspect_ratio)
    return table, pairs


def _relative_windows(
    p: CropParams, u_shape: np.ndarray, u_anchor: np.ndarray, u_order: np.ndarray, in_shape: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random-shape windows ``(S, K, ndim)`` from the draws: ``(lo, hi, ratios ok)``."""
    ndim = u_shape.shape[-1]
    smin, smax = _F32(p.scaling[0]), _F32(p.scaling[1])
    shape = smin + (smax - smin) * u_shape
    scale = _F32(1) if in_shape is None else in_shape[:, None, :]
    ext = shape * scale  # the ratios are between absolute extents when input_shape is given
    table, pairs = _fixed_ratios(p, ndim)
    if table.any():
        # the fixed ratios are enforced in a random order of the axes, then the extents are
        # scaled back so that the largest one is what it was
        max_before = ext.max(axis=-1, keepdims=True)
        order = np.argsort(u_order, axis=-1)
        for i0 in range(ndim):
            for i1 in range(i0 + 1, ndim):
                d0, d1 = order[..., i0 : i0 + 1], order[..., i1 : i1 + 1]
                factor = table[d1, d0]
                src = np.take_along_axis(ext, d0, axis=-1)
                cur = np.take_along_axis(ext, d1, axis=-1)
                np.put_along_axis(ext, d1, np.where(factor > 0, src * factor, cur), axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ext = max_before * ext / ext.max(axis=-1, keepdims=True)
    ok = np.ones(ext.shape[:-1], bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i, j, k in pairs:
            lo, hi = _F32(p.aspect_ratio[k][0]), _F32(p.aspect_ratio[k][1])
            r = ext[..., i] / ext[..., j]
            if lo == hi:  # enforced above, up to rounding
                ok &= np.abs(r - lo) <= _F32(1e-5) * max(abs(lo), _F32(1))
            else:
                ok &= (r >= lo) & (r <= hi)
        shape = ext / scale
    anchor = u_anchor * (_F32(1) - shape)
    return anchor, anchor + shape, ok


def _fixed_windows(
    bits: np.ndarray, in_shape: np.ndarray, crop_shape: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``crop_shape`` windows ``(S, K, ndim)``: relative and absolute corners."""
    diff = (in_shape - crop_shape)[:, None, :]
    a0 = np.minimum(diff, 0)
    span = np.abs(diff) + 1
    anchor = (a0 + _below(bits, span).astype(np.int64)).astype(_F32)
    ins = in_shape[:, None, :].astype(_F32)
    crop = crop_shape[:, None, :].astype(_F32)
    rel_lo = anchor / ins
    return rel_lo, crop / ins + rel_lo, anchor, anchor + crop


def search(
    rng: Any,
    p: CropParams,
    lo: np.ndarray,
    hi: np.ndarray,
    counts: np.ndarray,
    in_shape: np.ndarray | None,
    crop_shape: np.ndarray | None,
) -> SearchResult:
    """The windows of a batch.

    Args:
        rng: The batch's `dali._exec.rng.SampleRNG` (one stream per sample).
        p: The arguments.
        lo, hi: ``(batch, max_boxes, ndim)`` float32 box corners, padded past ``counts``.
        counts: Boxes per sample.
        in_shape: ``(batch, ndim)`` float32 image extents (``input_shape``), or None.
        crop_shape: ``(batch, ndim)`` int64 window extents (``crop_shape``), or None.

    Raises:
        RuntimeError: A sample found no window in `MAX_ROUNDS` rounds without
            ``total_num_attempts`` (the message names it: ``args[1]`` is its index).
    """
    n, nmax, ndim = lo.shape
    k_att = p.num_attempts
    res = SearchResult(
        rel_lo=np.zeros((n, ndim), _F32),
        rel_hi=np.zeros((n, ndim), _F32),
        out_lo=np.zeros((n, ndim), _F32),
        out_hi=np.zeros((n, ndim), _F32),
        no_crop=np.zeros(n, bool),
        found=np.zeros(n, bool),
        success=np.zeros(n, bool),
        best=np.full(n, -1.0, _F32),
        attempts=np.zeros(n, np.int64),
    )
    options = np.array([*p.thresholds, 0.0], _F32)
    n_options = len(p.thresholds) + (1 if p.allow_no_crop else 0)
    valid_box = np.arange(nmax)[None, :] < counts[:, None]
    per_attempt = 3 * ndim
    active = np.arange(n)
    r = 0
    while active.size:
        if p.total_num_attempts < 0 and r >= MAX_ROUNDS:
            raise RuntimeError("no window", int(active[0]), int(res.attempts[active[0]]))
        bits = rng.subset(active).bits(1 + k_att * per_attempt, stream=SEARCH_STREAM + r)
        option = _below(bits[:, 0], n_options)
        nc = option == len(p.thresholds)  # "no crop" is the last option
        if nc.any():
            done = active[nc]
            res.no_crop[done] = res.found[done] = res.success[done] = True
            res.rel_lo[done], res.rel_hi[done] = 0, 1
            res.out_lo[done] = 0
            res.out_hi[done] = 1 if in_shape is None or crop_shape is None else in_shape[done]
        rows = active[~nc]
        if rows.size:
            draws = bits[~nc, 1:].reshape(rows.size, k_att, 3, ndim)
            thr = options[option[~nc]]
            _round(res, p, rows, draws, thr, (lo, hi, valid_box, counts), in_shape, crop_shape)
        finished = res.success[active] | (
            (p.total_num_attempts >= 0) & (res.attempts[active] >= p.total_num_attempts)
        )
        active = active[~finished]
        r += 1
    return res


def _choose(
    ok: np.ndarray,
    valid: np.ndarray,
    metric: np.ndarray,
    kept: np.ndarray,
    empty: np.ndarray,
    best: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The attempts of a round taken in order, per sample: ``(best, success, chosen)``.

    An empty sample takes its first window in range; the others take every window in range
    that meets the threshold or beats the best metric so far (DALI's rules), the last one
    taken is the sample's (``chosen``, -1: none), and it succeeds when that window meets the
    threshold and keeps a box. Compiled with Numba where installed (the attempts are a scan:
    ~50 numpy passes per round otherwise).
    """
    kernel = _choose_kernel()
    if kernel is not None:
        best = best.copy()
        success = np.zeros(len(best), bool)
        chosen = np.full(len(best), -1, np.int64)
        kernel(ok, valid, metric, kept, empty, best, success, chosen)
        return best, success, chosen
    success = np.zeros(len(best), bool)
    chosen = np.full(len(best), -1, np.int64)
    for k in range(ok.shape[1]):
        upd = ok[:, k] & np.where(empty, ~success, valid[:, k] | (metric[:, k] > best))
        best = np.where(upd, metric[:, k], best)
        success = np.where(upd, empty | (valid[:, k] & (kept[:, k] > 0)), success)
        chosen = np.where(upd, k, chosen)
    return best, success, chosen


@functools.cache
def _choose_kernel() -> Any:
    """`_choose`'s scan compiled (None without Numba)."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def choose(
        ok: np.ndarray,
        valid: np.ndarray,
        metric: np.ndarray,
        kept: np.ndarray,
        empty: np.ndarray,
        best: np.ndarray,
        success: np.ndarray,
        chosen: np.ndarray,
    ) -> None:  # pragma: no cover - compiled
        for i in range(ok.shape[0]):
            for k in range(ok.shape[1]):
                if not ok[i, k]:
                    continue
                if empty[i]:
                    if success[i]:
                        continue
                elif not (valid[i, k] or metric[i, k] > best[i]):
                    continue
                best[i] = metric[i, k]
                success[i] = empty[i] or (valid[i, k] and kept[i, k] > 0)
                chosen[i] = k

    return choose


def _round(
    res: SearchResult,
    p: CropParams,
    rows: np.ndarray,
    draws: np.ndarray,
    thr: np.ndarray,
    boxes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    in_shape: np.ndarray | None,
    crop_shape: np.ndarray | None,
) -> None:
    """One round of ``num_attempts`` attempts for the samples ``rows`` (updates ``res``);
    ``boxes`` is ``(lo, hi, valid_box, counts)`` of the whole batch."""
    lo, hi, valid_box, counts = boxes
    s, k_att = draws.shape[:2]
    kernel = _attempts_kernel() if _compiled_case(p, lo, in_shape, crop_shape) else None
    if kernel is not None:
        u = _uniform(draws)
        rlo, rhi = np.empty((s, k_att, 2), _F32), np.empty((s, k_att, 2), _F32)
        ok = np.empty((s, k_att), bool)
        metric = np.empty((s, k_att), _F32)
        kept = np.empty((s, k_att), np.int64)
        smin, smax = _F32(p.scaling[0]), _F32(p.scaling[1])
        ar_lo, ar_hi = (_F32(v) for v in p.aspect_ratio[0])
        prune = _F32(0 if p.prune_threshold is None else p.prune_threshold)
        kernel(
            u, smin, smax - smin, ar_lo, ar_hi, lo, hi, counts, rows, p.overlap,
            p.all_boxes_above_threshold, p.prune_threshold is not None, prune,
            rlo, rhi, ok, metric, kept,
        )  # fmt: skip
        _take(res, rows, rlo, rhi, rlo, rhi, ok, valid_box, counts, metric, kept, thr, k_att)
        return
    if crop_shape is not None and in_shape is not None:
        rlo, rhi, olo, ohi = _fixed_windows(draws[:, :, 0], in_shape[rows], crop_shape[rows])
        ok = np.ones((s, k_att), bool)
    else:
        u = _uniform(draws)
        scale = None if in_shape is None else in_shape[rows]
        rlo, rhi, ok = _relative_windows(p, u[:, :, 0], u[:, :, 1], u[:, :, 2], scale)
        olo, ohi = rlo, rhi
    nb = lo.shape[1]
    metric = np.zeros((s, k_att), _F32)
    kept = np.zeros((s, k_att), np.int64)
    if nb:
        blo, bhi, vb = lo[rows][:, None], hi[rows][:, None], valid_box[rows][:, None]
        fill = np.inf if p.all_boxes_above_threshold else -np.inf
        step = max(1, _CHUNK // max(1, s * nb))
        for k0 in range(0, k_att, step):
            ks = slice(k0, k0 + step)
            clo, chi = rlo[:, ks, None], rhi[:, ks, None]
            m = np.where(vb, _metric(p, clo, chi, blo, bhi), _F32(fill))
            m = m.min(axis=-1) if p.all_boxes_above_threshold else m.max(axis=-1)
            metric[:, ks] = np.where(np.isfinite(m), m, _F32(0))
            kept[:, ks] = (kept_boxes(clo, chi, blo, bhi, p.prune_threshold) & vb).sum(axis=-1)
    _take(res, rows, rlo, rhi, olo, ohi, ok, valid_box, counts, metric, kept, thr, k_att)


def _take(
    res: SearchResult,
    rows: np.ndarray,
    rlo: np.ndarray,
    rhi: np.ndarray,
    olo: np.ndarray,
    ohi: np.ndarray,
    ok: np.ndarray,
    valid_box: np.ndarray,
    counts: np.ndarray,
    metric: np.ndarray,
    kept: np.ndarray,
    thr: np.ndarray,
    k_att: int,
) -> None:
    """Apply a round's evaluated attempts to ``res``, in order (`_choose`)."""
    empty = counts[rows] == 0
    valid = metric >= thr[:, None]
    best, success, chosen = _choose(ok, valid, metric, kept, empty, res.best[rows])
    res.best[rows] = best
    res.success[rows] = success
    res.attempts[rows] += k_att
    took = chosen >= 0
    if took.any():
        at, kt = rows[took], chosen[took]
        idx = np.flatnonzero(took)
        res.found[at] = True
        res.rel_lo[at], res.rel_hi[at] = rlo[idx, kt], rhi[idx, kt]
        res.out_lo[at], res.out_hi[at] = olo[idx, kt], ohi[idx, kt]


def _compiled_case(
    p: CropParams, lo: np.ndarray, in_shape: np.ndarray | None, crop_shape: np.ndarray | None
) -> bool:
    """Whether `_attempts_kernel` evaluates the round: 2-D boxes (some), relative windows of a
    random shape (no ``input_shape`` or ``crop_shape``) and an aspect-ratio range, not a fixed
    ratio. The others take the numpy expressions."""
    ratio = p.aspect_ratio[0] if p.aspect_ratio else (0.0, 0.0)
    return (
        lo.ndim == 3
        and lo.shape[2] == 2
        and lo.shape[1] > 0
        and in_shape is None
        and crop_shape is None
        and ratio[0] != ratio[1]
    )


@functools.cache
def _attempts_kernel() -> Any:
    """A round's attempts evaluated in one compiled pass (None without Numba): the windows
    (`_relative_windows`), each window's metric against the sample's boxes (`_metric`, the
    minimum or maximum as `_round` takes it) and the boxes it keeps (`kept_boxes`), with the
    numpy expressions' float32 operations in their order, so the same bits. For 2-D boxes and
    a ratio range (`_compiled_case`): ~10x faster than the expressions, which build arrays of
    ``samples x attempts x boxes`` several times over."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True, error_model="numpy")
    def evaluate(
        u: np.ndarray,
        smin: np.float32,
        span: np.float32,
        ar_lo: np.float32,
        ar_hi: np.float32,
        lo: np.ndarray,
        hi: np.ndarray,
        counts: np.ndarray,
        rows: np.ndarray,
        overlap: bool,
        all_boxes: bool,
        use_prune: bool,
        prune: np.float32,
        rlo: np.ndarray,
        rhi: np.ndarray,
        ok: np.ndarray,
        metric: np.ndarray,
        kept: np.ndarray,
    ) -> None:  # pragma: no cover - compiled
        one, half, zero = np.float32(1.0), np.float32(0.5), np.float32(0.0)
        for s in range(u.shape[0]):
            g = rows[s]
            nb = counts[g]
            for k in range(u.shape[1]):
                e0 = smin + span * u[s, k, 0, 0]
                e1 = smin + span * u[s, k, 0, 1]
                r = e0 / e1
                ok[s, k] = r >= ar_lo and r <= ar_hi
                w0lo = u[s, k, 1, 0] * (one - e0)
                w1lo = u[s, k, 1, 1] * (one - e1)
                w0hi, w1hi = w0lo + e0, w1lo + e1
                rlo[s, k, 0], rlo[s, k, 1] = w0lo, w1lo
                rhi[s, k, 0], rhi[s, k, 1] = w0hi, w1hi
                vw = (w0hi - w0lo) * (w1hi - w1lo)
                m = np.float32(np.inf) if all_boxes else np.float32(-np.inf)
                n_kept = 0
                for b in range(nb):
                    b0lo, b1lo, b0hi, b1hi = lo[g, b, 0], lo[g, b, 1], hi[g, b, 0], hi[g, b, 1]
                    l0, l1 = np.maximum(w0lo, b0lo), np.maximum(w1lo, b1lo)
                    h0, h1 = np.minimum(w0hi, b0hi), np.minimum(w1hi, b1hi)
                    inter = zero if (h0 <= l0 or h1 <= l1) else (h0 - l0) * (h1 - l1)
                    vb = (b0hi - b0lo) * (b1hi - b1lo)
                    if overlap:
                        v = inter / vb
                        if np.isnan(v):
                            v = zero
                    else:
                        v = inter / (vw + vb - inter)
                        if inter == zero:
                            v = zero
                    # (np.minimum / np.maximum: NaN wins, as np.min / np.max over the boxes)
                    m = np.minimum(m, v) if all_boxes else np.maximum(m, v)
                    if use_prune:
                        frac = inter / vb
                        n_kept += inter > zero and frac >= prune
                    else:
                        c0, c1 = (b0lo + b0hi) * half, (b1lo + b1hi) * half
                        n_kept += c0 >= w0lo and c0 < w0hi and c1 >= w1lo and c1 < w1hi
                metric[s, k] = m if np.isfinite(m) else zero
                kept[s, k] = n_kept

    return evaluate
