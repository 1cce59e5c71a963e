"""Conformance cases of the segmentation operators against real DALI 2.4 (see README.md).

`fn.segmentation.random_object_bbox`, `fn.segmentation.random_mask_pixel`,
`fn.roi_random_crop` and `fn.random_crop_generator` are random: where the arguments leave one
outcome (one object, ``foreground_prob=0``, a threshold nothing meets, a ROI as large as the
window, a single foreground pixel...) the outputs are compared exactly; otherwise the structure
(dtypes, layouts, shapes) and the invariants (the box is the box of a blob of the chosen class,
the pixel is foreground, the window lies in bounds and holds the ROI...) are checked on both
libraries' outputs. `fn.segmentation.select_masks` is deterministic: exact. The error cases
(wrong types, ranks, argument combinations, out-of-bounds ROIs) must raise in both.

The masks are small label maps with rectangles and L-shaped objects of a few classes, 2-D
(uint8, int32, bool), 3-D (int32, DHW) and 1-D; the random graphs return the mask as a last
output so that the invariants can look at it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import Case, Ext, In, Iters, add, arrays, op, per_sample, random_checks

# -- masks ------------------------------------------------------------------------------------


def _objects(shape: tuple[int, ...], n: int, classes: int, seed: int) -> np.ndarray:
    """A label map with ``n`` boxes (some overlapping: L shapes and merged blobs)."""
    rng = np.random.default_rng(seed)
    m = np.zeros(shape, np.int32)
    for _ in range(n):
        lo = [int(rng.integers(0, s - 2)) for s in shape]
        hi = [int(min(s, a + rng.integers(2, max(3, s // 3)))) for a, s in zip(lo, shape)]
        m[tuple(slice(a, b) for a, b in zip(lo, hi))] = rng.integers(1, classes + 1)
    return m


def _masks(shapes: list[tuple[int, ...]], n: int, classes: int, dtype: Any, label: str) -> Ext:
    data = [_objects(s, n, classes, 100 + k).astype(dtype) for k, s in enumerate(shapes)]
    return Ext(lambda c: [data], None, label)


#: 3 uint8 masks of 6 objects of 3 classes (ragged: 40x56, 48x48, 33x70).
MASKS = _masks([(40, 56), (48, 48), (33, 70)], 6, 3, np.uint8, "masks_u8")
MASKS_I32 = _masks([(40, 56), (48, 48)], 8, 4, np.int32, "masks_i32")
MASKS_BOOL = _masks([(30, 40), (20, 50)], 5, 1, np.bool_, "masks_bool")
#: 2 DHW volumes (int32) with 5 objects of 2 classes.
VOLUMES = _masks([(12, 16, 20), (10, 18, 14)], 5, 2, np.int32, "volumes")
LINES = _masks([(50,), (37,)], 4, 2, np.int16, "lines")


def _single() -> list[np.ndarray]:
    a = np.zeros((20, 30), np.uint8)
    a[3:9, 5:17] = 2
    b = np.zeros((25, 18), np.uint8)
    b[10:25, 0:4] = 2
    b[10:12, 0:9] = 2  # an L shape: one blob
    return [a, b]


#: One object (class 2) per mask: every choice has one outcome.
SINGLE = Ext(lambda c: [_single()], None, "single")
SINGLE_VOL = Ext(
    lambda c: [[np.pad(np.full((3, 4, 5), 7, np.int32), ((2, 1), (0, 3), (4, 2)))]],
    None,
    "single_volume",
)
EMPTY = arrays([np.zeros((7, 9)), np.zeros((3, 4))], np.int32, label="empty_masks")


def _diagonal() -> list[np.ndarray]:
    m = np.zeros((6, 6), np.int32)
    m[1, 1] = m[2, 2] = m[3, 3] = 1  # touching corners only: three blobs of 1 element
    return [m]


DIAGONAL = Ext(lambda c: [_diagonal()], None, "diagonal")

# -- random_object_bbox ------------------------------------------------------------------------


def _bbox_graph(kw: dict[str, Any], with_mask: bool) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, mask: Any, *args: Any) -> Any:
        resolved = {k: (args[v.index - 1] if isinstance(v, In) else v) for k, v in kw.items()}
        outs = fn.segmentation.random_object_bbox(mask, **resolved)
        outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
        return (*outs, mask) if with_mask else outs

    return graph


def _box_of(outs: list[Any], s: int, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    a = outs[0].samples[s].astype(np.int64)
    if fmt == "box":
        nd = len(a) // 2
        return a[:nd], a[nd:]
    b = outs[1].samples[s].astype(np.int64)
    return (a, a + b) if fmt == "anchor_shape" else (a, b)


def _bbox_invariants(kw: dict[str, Any]) -> Callable[[Iters], list[str]]:
    """The box is the whole input or the exact box of a face-connected blob of one label
    (the output class, if given; in ``classes``; other than the background), meeting
    ``threshold``."""
    fmt = kw.get("format", "anchor_shape")
    bg = kw.get("background", 0)
    classes = kw.get("classes") if not isinstance(kw.get("classes"), In) else None
    thr = kw.get("threshold") if not isinstance(kw.get("threshold"), In) else None

    def predicate(iters: Iters) -> list[str]:
        problems = []
        for it, outs in enumerate(iters):
            masks = outs[-1].samples
            for s, mask in enumerate(masks):
                lo, hi = _box_of(outs, s, fmt)
                where = f"iter {it} sample {s}"
                if lo.tolist() == [0] * mask.ndim and hi.tolist() == list(mask.shape):
                    continue  # the whole input: always allowed (background chosen)
                if (lo < 0).any() or (hi > mask.shape).any() or (hi <= lo).any():
                    problems.append(f"{where}: box {lo}-{hi} outside {mask.shape}")
                    continue
                sub = mask[tuple(slice(a, b) for a, b in zip(lo, hi))]
                k = 1 if fmt == "box" else 2
                label = int(outs[k].samples[s]) if kw.get("output_class") else None
                cands = [label] if label is not None else [int(v) for v in np.unique(sub)]
                if not any(_is_blob_box(sub, mask, lo, hi, c) for c in cands if c != bg):
                    problems.append(f"{where}: {lo}-{hi} is no blob's box (labels {cands})")
                if label is not None and classes is not None and label not in classes:
                    problems.append(f"{where}: class {label} not in {classes}")
                if thr is not None and ((hi - lo) < thr).any():
                    problems.append(f"{where}: box {lo}-{hi} under threshold {thr}")
        return problems

    return predicate


def _is_blob_box(sub: np.ndarray, mask: np.ndarray, lo: Any, hi: Any, label: int) -> bool:
    """Whether ``[lo, hi)`` is exactly the bounding box of one face-connected blob of
    ``label`` (a flood fill from each of the label's elements in the box)."""
    eq = mask == label
    done = np.zeros(mask.shape, bool)
    for seed in np.argwhere(sub == label) + np.asarray(lo):
        if done[tuple(seed)]:
            continue
        blob = _flood(eq, tuple(int(v) for v in seed))
        done |= blob
        pts = np.argwhere(blob)
        if (pts.min(axis=0) == lo).all() and (pts.max(axis=0) + 1 == hi).all():
            return True
    return False


def _flood(eq: np.ndarray, seed: tuple[int, ...]) -> np.ndarray:
    """The face-connected blob of ``eq`` through ``seed``."""
    seen = np.zeros(eq.shape, bool)
    seen[seed] = True
    stack = [seed]
    while stack:
        p = stack.pop()
        for d in range(eq.ndim):
            for step in (-1, 1):
                q = list(p)
                q[d] += step
                t = tuple(q)
                if 0 <= q[d] < eq.shape[d] and eq[t] and not seen[t]:
                    seen[t] = True
                    stack.append(t)
    return seen


def bbox_case(
    masks: Ext, kw: dict[str, Any], *, exact: bool = False, extra: tuple[Ext, ...] = (), **o: Any
) -> Case:
    shown = ", ".join(f"{k}={'<in>' if isinstance(v, In) else v}" for k, v in kw.items())
    name = f"segmentation.random_object_bbox({masks.label}; {shown})"
    check = None if exact else random_checks(_bbox_invariants(kw), shapes=True)
    o.setdefault("iters", 2)
    return Case(name, _bbox_graph(kw, not exact), (masks, *extra), check=check, **o)


# outcomes the arguments force: exact
for fmt in ("anchor_shape", "start_end", "box"):
    add(bbox_case(SINGLE, {"format": fmt, "output_class": True}, exact=True))
add(
    bbox_case(SINGLE, {"k_largest": 1}, exact=True),
    bbox_case(SINGLE, {"ignore_class": True}, exact=True),
    bbox_case(SINGLE, {"classes": [2], "class_weights": [3.0]}, exact=True),
    bbox_case(SINGLE, {"classes": [1, 2], "output_class": True}, exact=True),  # 1 is absent
    bbox_case(SINGLE, {"class_weights": [0.0, 1.0], "output_class": True}, exact=True),
    bbox_case(SINGLE, {"threshold": [6, 4], "output_class": True}, exact=True),
    bbox_case(SINGLE, {"threshold": 30, "output_class": True}, exact=True),  # nothing meets it
    bbox_case(SINGLE, {"cache_objects": True, "output_class": True}, exact=True, iters=3),
    bbox_case(SINGLE, {"background": 2, "output_class": True}, exact=True),  # only 0 is fg
    bbox_case(MASKS, {"foreground_prob": 0.0, "output_class": True}, exact=True),
    bbox_case(MASKS, {"foreground_prob": 0.0, "output_class": True, "classes": [0, 3]}, exact=True),
    bbox_case(MASKS, {"output_class": True, "classes": [9]}, exact=True),  # absent class
    bbox_case(EMPTY, {"output_class": True}, exact=True),
    bbox_case(SINGLE_VOL, {"format": "box", "output_class": True}, exact=True),
    bbox_case(SINGLE_VOL, {"k_largest": 1, "threshold": [3, 4, 5]}, exact=True),
    # face connectivity: corners do not join, so no blob is 2 wide
    bbox_case(DIAGONAL, {"threshold": [2, 2], "output_class": True}, exact=True),
    bbox_case(DIAGONAL, {"threshold": [2, 2], "ignore_class": True}, exact=True),
    bbox_case(
        SINGLE,
        {"foreground_prob": In(1), "output_class": True},
        exact=True,
        extra=(per_sample([0.0, 1.0], label="fg01"),),
    ),
)
# random outcomes: invariants
add(
    bbox_case(MASKS, {}),
    bbox_case(MASKS, {"format": "box", "output_class": True}),
    bbox_case(MASKS, {"format": "start_end", "classes": [1, 3], "output_class": True}),
    bbox_case(MASKS, {"class_weights": [1.0, 0.0, 2.0], "output_class": True}),
    bbox_case(MASKS, {"k_largest": 2, "output_class": True}),
    bbox_case(MASKS, {"threshold": [5, 5], "output_class": True}),
    bbox_case(MASKS, {"ignore_class": True, "k_largest": 3}),
    bbox_case(MASKS, {"foreground_prob": 0.5, "output_class": True}, iters=3),
    bbox_case(MASKS, {"background": 1, "output_class": True}),
    bbox_case(MASKS, {"cache_objects": True, "output_class": True}, iters=3),
    bbox_case(MASKS_I32, {"output_class": True, "threshold": [3, 2]}),
    bbox_case(MASKS_BOOL, {"output_class": True}),
    bbox_case(VOLUMES, {"output_class": True}),
    bbox_case(VOLUMES, {"ignore_class": True, "threshold": [2, 3, 3]}),
    bbox_case(LINES, {"output_class": True, "format": "box"}),
    bbox_case(
        MASKS,
        {"classes": In(1), "output_class": True},
        extra=(
            Ext(
                lambda c: [[np.array(v, np.int32) for v in ([1], [2, 3], [3])]],
                None,
                "classes_per_sample",
            ),
        ),
    ),
    bbox_case(
        MASKS,
        {"threshold": In(1), "output_class": True},
        extra=(arrays([[4, 4], [1, 9], [8, 2]], np.int32, label="thr_per_sample"),),
    ),
)
# errors
_ROB = "segmentation.random_object_bbox"
add(
    op(_ROB, [MASKS], {"format": "xywh"}, expect_error=True),
    op(_ROB, [MASKS], {"ignore_class": True, "classes": [1]}, expect_error=True),
    op(_ROB, [MASKS], {"ignore_class": True, "output_class": True}, expect_error=True),
    op(_ROB, [MASKS], {"k_largest": 0}, expect_error=True),
    op(_ROB, [MASKS], {"classes": [0, 2], "background": 0}, expect_error=True),
    op(_ROB, [MASKS], {"classes": [1, 2], "class_weights": [1.0, 2.0, 3.0]}, expect_error=True),
    op(_ROB, [MASKS], {"threshold": [1, 2, 3]}, expect_error=True),
    op(_ROB, [arrays([np.zeros((4, 4))], np.float32, label="f32")], {}, expect_error=True),
    op(_ROB, [arrays([np.zeros((4, 4))], np.int64, label="i64")], {}, expect_error=True),
    op(_ROB, [arrays([np.zeros((1,) * 7)], np.int32, label="7d")], {}, expect_error=True),
)

# -- random_mask_pixel ---------------------------------------------------------------------------


def _pixel_graph(kw: dict[str, Any], with_mask: bool) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, mask: Any, *args: Any) -> Any:
        resolved = {k: (args[v.index - 1] if isinstance(v, In) else v) for k, v in kw.items()}
        out = fn.segmentation.random_mask_pixel(mask, **resolved)
        return (out, *args, mask) if with_mask else out

    return graph


def _pixel_invariants(kw: dict[str, Any]) -> Callable[[Iters], list[str]]:
    """In bounds; foreground (equal to ``value``, above ``threshold``) where the sample has
    some and ``foreground`` is set."""

    def predicate(iters: Iters) -> list[str]:
        problems = []
        per_sample_fg = isinstance(kw.get("foreground"), In)
        for it, outs in enumerate(iters):
            pos, masks = outs[0], outs[-1]
            for s, (p, m) in enumerate(zip(pos.samples, masks.samples)):
                where = f"iter {it} sample {s}"
                if p.shape != (m.ndim,) or (p < 0).any() or (p >= m.shape).any():
                    problems.append(f"{where}: {p} outside {m.shape}")
                    continue
                fg_arg = outs[1].samples[s] if per_sample_fg else kw.get("foreground")
                if not fg_arg:
                    continue
                if "value" in kw:
                    fg = m == kw["value"]
                else:
                    fg = m.astype(np.float32) > np.float32(kw.get("threshold", 0.0))
                if fg.any() and not fg[tuple(p)]:
                    problems.append(f"{where}: {p} is not foreground")
        return problems

    return predicate


def pixel_case(
    masks: Ext, kw: dict[str, Any], *, exact: bool = False, extra: tuple[Ext, ...] = (), **o: Any
) -> Case:
    shown = ", ".join(f"{k}={'<in>' if isinstance(v, In) else v}" for k, v in kw.items())
    name = f"segmentation.random_mask_pixel({masks.label}; {shown})"
    check = None if exact else random_checks(_pixel_invariants(kw), shapes=True)
    o.setdefault("iters", 2)
    return Case(name, _pixel_graph(kw, not exact), (masks, *extra), check=check, **o)


def _one_pixel(dtype: Any) -> Ext:
    a = np.zeros((9, 13), dtype)
    a[4, 11] = 5
    b = np.zeros((3, 5, 7), dtype)[0]
    b[2, 0] = 5
    return Ext(lambda c: [[a, b]], None, f"one_pixel_{np.dtype(dtype).name}")


ONE_PIXEL = _one_pixel(np.uint8)
ONE_VOXEL = Ext(
    lambda c: [[np.pad(np.ones((1, 1, 1), np.int32), ((3, 1), (0, 4), (2, 2)))]], None, "voxel"
)
FLOAT_MASKS = Ext(
    lambda c: [[np.random.default_rng(3).random((20, 30), dtype=np.float32)]], None, "f32_mask"
)

add(
    pixel_case(ONE_PIXEL, {"foreground": 1}, exact=True),
    pixel_case(ONE_PIXEL, {"foreground": 1, "value": 5}, exact=True),
    pixel_case(ONE_PIXEL, {"foreground": 1, "threshold": 4.5}, exact=True),
    pixel_case(_one_pixel(np.float32), {"foreground": 1, "threshold": 4.9}, exact=True),
    pixel_case(_one_pixel(np.int64), {"foreground": 1, "value": 5}, exact=True),
    pixel_case(_one_pixel(np.uint16), {"foreground": 1}, exact=True),
    pixel_case(_one_pixel(np.bool_), {"foreground": 1}, exact=True),
    pixel_case(ONE_VOXEL, {"foreground": 1}, exact=True),
    pixel_case(MASKS, {}),
    pixel_case(MASKS, {"foreground": 1}),
    pixel_case(MASKS, {"foreground": 1, "value": 2}),
    pixel_case(MASKS, {"foreground": 1, "value": 300}),  # no uint8 is 300: any element
    pixel_case(MASKS, {"foreground": 1, "threshold": 2.5}),
    pixel_case(MASKS_I32, {"foreground": 1, "value": 4}),
    pixel_case(VOLUMES, {"foreground": 1, "value": 2}),
    pixel_case(LINES, {"foreground": 1}),
    pixel_case(FLOAT_MASKS, {"foreground": 1, "threshold": 0.9}),
    pixel_case(EMPTY, {"foreground": 1}),  # no foreground: any element
    pixel_case(
        MASKS,
        {"foreground": In(1), "value": 3},
        extra=(per_sample([1, 0, 1], np.int32, label="fg_per_sample"),),
    ),
)
_RMP = "segmentation.random_mask_pixel"
add(
    op(_RMP, [MASKS], {"value": 1, "threshold": 0.5}, expect_error=True),
    op(_RMP, [arrays([np.zeros((4, 4))], np.float16, label="f16")], {}, expect_error=True),
    op(_RMP, [arrays([np.zeros((4, 4))], np.float64, label="f64")], {}, expect_error=True),
)

# -- select_masks (deterministic: exact) ------------------------------------------------------

_POLYS = np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10]], np.int32)
_VERTS = np.arange(20, dtype=np.float32).reshape(10, 2)
_POLYS_MULTI = np.array([[0, 0, 3], [1, 3, 7], [0, 7, 10]], np.int32)  # mask 0: 2 polygons


def _sel(ids: list[list[int]], polys: list[np.ndarray], verts: list[np.ndarray], label: str):
    return (
        arrays(ids, np.int32, label=f"ids{label}")
        if len({len(i) for i in ids}) == 1
        else Ext(lambda c: [[np.array(i, np.int32) for i in ids]], None, f"ids{label}"),
        Ext(lambda c: [polys], None, "polygons"),
        Ext(lambda c: [verts], None, "vertices"),
    )


def sel_case(inputs: tuple[Ext, Ext, Ext], kw: dict[str, Any] | None = None, **o: Any) -> Case:
    return op("segmentation.select_masks", list(inputs), kw or {}, **o)


add(
    sel_case(_sel([[1]], [_POLYS], [_VERTS], "[1]")),
    sel_case(_sel([[2, 0]], [_POLYS], [_VERTS], "[2,0]"), {"reindex_masks": True}),
    sel_case(_sel([[2, 0]], [_POLYS], [_VERTS], "[2,0]"), {"reindex_masks": False}),
    sel_case(_sel([[0, 1], [1, 0]], [_POLYS_MULTI] * 2, [_VERTS] * 2, "multi")),
    sel_case(
        _sel([[2, 0]], [_POLYS], [np.arange(30, dtype=np.int16).reshape(10, 3)], "i16x3"),
        {"reindex_masks": True},
    ),
    sel_case(_sel([[1]], [_POLYS], [_VERTS.astype(np.float64)], "f64")),
    sel_case(_sel([[]], [_POLYS], [_VERTS], "none")),
    sel_case(
        _sel(
            [[5], [0, 1, 2]],
            [np.array([[5, 0, 0]], np.int32), _POLYS],  # an empty polygon
            [np.zeros((0, 2), np.float32), _VERTS],
            "ragged",
        )
    ),
)
add(
    sel_case(_sel([[1, 1]], [_POLYS], [_VERTS], "dup"), expect_error=True),
    sel_case(_sel([[5]], [_POLYS], [_VERTS], "absent"), expect_error=True),
    sel_case(_sel([[2]], [np.array([[2, 7, 11]], np.int32)], [_VERTS], "oob"), expect_error=True),
    sel_case(_sel([[2]], [np.array([[2, 7, 5]], np.int32)], [_VERTS], "rev"), expect_error=True),
    sel_case(_sel([[2]], [np.zeros((3, 4), np.int32)], [_VERTS], "4cols"), expect_error=True),
    sel_case(_sel([[2]], [_POLYS.astype(np.int64)], [_VERTS], "i64polys"), expect_error=True),
    sel_case(_sel([[2]], [_POLYS], [_VERTS.ravel()], "1dverts"), expect_error=True),
    op(
        "segmentation.select_masks",
        [arrays([[2]], np.int64, label="i64ids"), *_sel([[2]], [_POLYS], [_VERTS], "")[1:]],
        expect_error=True,
    ),
)

# -- roi_random_crop ---------------------------------------------------------------------------


def _roi_graph(kw: dict[str, Any], use_input: bool) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, data: Any, *args: Any) -> Any:
        resolved = {k: (args[v.index - 1] if isinstance(v, In) else v) for k, v in kw.items()}
        out = fn.roi_random_crop(data, **resolved) if use_input else fn.roi_random_crop(**resolved)
        return out, data.shape()

    return graph


def _roi_invariants(kw: dict[str, Any], bounded: bool) -> Callable[[Iters], list[str]]:
    def per(v: Any, s: int, nd: int) -> np.ndarray:
        a = np.asarray(v[s] if isinstance(v, list) and isinstance(v[0], list) else v, np.int64)
        return np.broadcast_to(a, (nd,))

    def predicate(iters: Iters) -> list[str]:
        problems = []
        for it, (starts, shapes) in enumerate(iters):
            for s, start in enumerate(starts.samples):
                nd = len(start)
                crop = per(kw["crop_shape"], s, nd)
                lo = per(kw["roi_start"], s, nd)
                hi = (
                    per(kw["roi_end"], s, nd)
                    if "roi_end" in kw
                    else lo + per(kw["roi_shape"], s, nd)
                )
                end = start + crop
                where = f"iter {it} sample {s}"
                inside = (start >= np.minimum(lo, hi - crop)) & (start <= np.maximum(lo, hi - crop))
                if not inside.all():
                    problems.append(f"{where}: start {start} misplaced for ROI {lo}-{hi}")
                if bounded:
                    shape = (
                        per(kw["in_shape"], s, nd) if "in_shape" in kw else shapes.samples[s][:nd]
                    )
                    if (start < 0).any() or (end > shape).any():
                        problems.append(f"{where}: window {start}-{end} outside {shape}")
        return problems

    return predicate


_FRAMES = arrays([np.zeros((40, 60)), np.zeros((50, 30))], np.uint8, label="frames")
_VOLS = Ext(lambda c: [[np.zeros((20, 30, 40, 2), np.uint8)] * 2], None, "vol4d")


def roi_case(
    kw: dict[str, Any], *, use_input: bool = False, data: Ext = _FRAMES, extra=(), exact=False, **o
):
    shown = ", ".join(f"{k}={'<in>' if isinstance(v, In) else v}" for k, v in kw.items())
    name = f"roi_random_crop({data.label if use_input else ''}; {shown})"
    bounded = use_input or "in_shape" in kw
    check = None if exact else random_checks(_roi_invariants(kw, bounded), shapes=True)
    check = o.pop("check", check)
    o.setdefault("iters", 3)
    return Case(name, _roi_graph(kw, use_input), (data, *extra), check=check, **o)


add(
    roi_case({"crop_shape": [4, 6], "roi_start": [2, 3], "roi_shape": [4, 6]}, exact=True),
    roi_case({"crop_shape": [5, 5], "roi_start": [1, 7], "roi_end": [6, 12]}, exact=True),
    roi_case({"crop_shape": 5, "roi_start": 1, "roi_end": 6}, exact=True),
    roi_case({"crop_shape": [20, 20], "roi_start": [5, 10], "roi_end": [15, 25]}),
    roi_case({"crop_shape": [20, 20], "roi_start": [5, 10], "roi_end": [15, 25]}, use_input=True),
    roi_case({"crop_shape": [10, 8], "roi_start": [2, 3], "roi_shape": [30, 20]}, use_input=True),
    roi_case(
        {"crop_shape": [30, 25], "roi_start": [35, 2], "roi_shape": [4, 3], "in_shape": [40, 60]}
    ),
    roi_case({"crop_shape": [8, 8], "roi_start": [30, 55], "roi_shape": [1, 1]}, use_input=False),
    roi_case(
        {"crop_shape": [8, 8, 8], "roi_start": [5, 5, 5], "roi_shape": [3, 20, 8]},
        use_input=True,
        data=_VOLS,
    ),
    roi_case(
        {"crop_shape": In(1), "roi_start": [2, 2], "roi_end": [12, 12], "in_shape": [40, 30]},
        extra=(arrays([[4, 20], [12, 1]], np.int32, label="crop_per_sample"),),
        exact=False,
        check=random_checks(None, shapes=True),
    ),
)
add(
    roi_case({"crop_shape": [4, 4], "roi_start": [2, 3]}, exact=True, expect_error=True),
    roi_case(
        {"crop_shape": [4, 4], "roi_start": [2, 3], "roi_end": [5, 9], "roi_shape": [3, 3]},
        exact=True,
        expect_error=True,
    ),
    roi_case(
        {"crop_shape": [4, 4], "roi_start": [2, 3], "roi_end": [5, 9], "in_shape": [40, 60]},
        use_input=True,
        exact=True,
        expect_error=True,
    ),
    roi_case(
        {"crop_shape": [45, 4], "roi_start": [2, 3], "roi_end": [5, 9]},
        use_input=True,
        exact=True,
        expect_error=True,
    ),
    roi_case(
        {"crop_shape": [4, 4], "roi_start": [-1, 3], "roi_end": [5, 9]},
        use_input=True,
        exact=True,
        expect_error=True,
    ),
    roi_case(
        {"crop_shape": [4, 4], "roi_start": [2, 3], "roi_shape": [5, 90]},
        use_input=True,
        exact=True,
        expect_error=True,
    ),
    roi_case(
        {"crop_shape": 5, "roi_start": [1, 7], "roi_end": [6, 12]}, exact=True, expect_error=True
    ),
    roi_case(
        {"crop_shape": [4, 4], "roi_start": [2, 3, 1], "roi_end": [5, 9]},
        exact=True,
        expect_error=True,
    ),
)

# -- random_crop_generator ---------------------------------------------------------------------


def _crop_gen_invariants(kw: dict[str, Any]) -> Callable[[Iters], list[str]]:
    def predicate(iters: Iters) -> list[str]:
        problems = []
        for it, (anchors, shapes, ins) in enumerate(iters):
            for s, (a, sh, i) in enumerate(zip(anchors.samples, shapes.samples, ins.samples)):
                hw = i.astype(np.int64)[:2]
                if (a < 0).any() or (a + sh > hw).any() or (sh < 1).any():
                    problems.append(f"iter {it} sample {s}: window {a}+{sh} outside {hw}")
        return problems

    return predicate


def gen_case(shapes: Ext, kw: dict[str, Any], *, exact: bool = False, **o: Any) -> Case:
    def graph(fn: Any, types: Any, x: Any) -> Any:
        a, s = fn.random_crop_generator(x, **kw)
        return (a, s) if exact else (a, s, x)

    check = None if exact else random_checks(_crop_gen_invariants(kw), shapes=True)
    o.setdefault("iters", 2)
    shown = ", ".join(f"{k}={v}" for k, v in kw.items())
    return Case(
        f"random_crop_generator({shapes.label}; {shown})", graph, (shapes,), check=check, **o
    )


IMG_SHAPES = arrays([[375, 500], [480, 640, 3], [100, 100, 1], [4, 800]], np.int64, label="shapes")
IMG_SHAPES_I32 = Ext(
    lambda c: [[np.array([375, 500, 3], np.int32), np.array([60, 40], np.int32)]], None, "i32"
)
add(
    gen_case(IMG_SHAPES, {}),
    gen_case(IMG_SHAPES_I32, {"random_area": [0.5, 1.0], "random_aspect_ratio": [0.5, 2.0]}),
    gen_case(IMG_SHAPES, {"num_attempts": 1, "random_area": 0.3}),
    gen_case(
        arrays([[100, 100], [100, 100, 3]], np.uint16, label="square"),
        {"random_area": 1.0, "random_aspect_ratio": 1.0},
        exact=True,
    ),
    gen_case(arrays([[0, 20], [20, 0]], np.int32, label="zero"), {}, exact=True),
)
_RCG = "random_crop_generator"
add(
    op(_RCG, [arrays([[100, 200]], np.float32, label="f32")], {}, expect_error=True),
    op(_RCG, [arrays([[100, 200]], np.uint64, label="u64")], {}, expect_error=True),
    op(_RCG, [arrays([[100, 200, 3, 1]], np.int32, label="4vals")], {}, expect_error=True),
    op(_RCG, [arrays([[[100, 200]]], np.int32, label="2d")], {}, expect_error=True),
    op(_RCG, [IMG_SHAPES], {"random_area": [0.5, 0.1]}, expect_error=True),
    op(_RCG, [IMG_SHAPES], {"random_area": [0.1, 0.2, 0.3]}, expect_error=True),
    op(_RCG, [IMG_SHAPES], {"random_aspect_ratio": [2.0, 1.0]}, expect_error=True),
)
