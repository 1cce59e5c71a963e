"""Conformance cases of the detection operators against real DALI 2.4 (see README.md).

`fn.bb_flip`, `fn.bbox_paste`, `fn.box_encoder` and `fn.coord_transform` are deterministic: their
outputs are compared value by value (exact, floats within a few ulps) on fixed boxes fed through
``external_source``, per-sample arguments included, and both libraries must raise on the same
bad inputs and arguments.

`fn.random_bbox_crop` draws its windows from our counter-based generator, so its
random outcomes are compared by invariants, checked on both libraries' outputs: the window lies in
the image (or is the fixed ``crop_shape`` at an integer anchor in range), its aspect ratio and
size are in range, exactly the boxes whose centre (or ``bbox_prune_threshold`` share of area) is
inside are kept, in order, remapped into the window, with their labels and indices. The outcomes
that arguments force (scaling ``[1, 1]``: every window is the image; ``crop_shape`` equal to
``input_shape``; samples without boxes with ``crop_shape`` equal to the image) are compared
exactly. Last, the windows cut images with `fn.slice` (relative and absolute) and `fn.crop`.

Known difference: a per-sample scalar ``MT`` in `fn.coord_transform` (DALI 2.4 outputs ``D + 1``
components, garbage past the first sample; `dali` follows the documentation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import Case, Ext, In, Iters, Ty, add, arrays, op, per_sample, random_checks

F = np.float32


# -- inputs -----------------------------------------------------------------------------------


def _boxes(seed: int, counts: tuple[int, ...], ndim: int = 2, size=(0.05, 0.45)) -> list[Any]:
    """Random ltrb boxes in [0, 1], one array per sample (``counts`` boxes each)."""
    rng = np.random.default_rng(seed)
    out = []
    for n in counts:
        lo = rng.random((n, ndim)) * 0.7
        hi = np.minimum(lo + size[0] + rng.random((n, ndim)) * (size[1] - size[0]), 1.0)
        out.append(np.concatenate([lo, hi], axis=1).astype(F))
    return out


def _labels_for(boxes: list[Any], seed: int = 0) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 90, len(b)).astype(np.int32) for b in boxes]


BOXES = _boxes(1, (5, 0, 1, 17))
BOX_LABELS = _labels_for(BOXES)


def _ext(samples: list[Any], label: str, layout: str | None = None) -> Ext:
    data = [np.asarray(s) for s in samples]
    return Ext(lambda c: [data], layout, label)


BOX = _ext(BOXES, "boxes")
LAB = _ext(BOX_LABELS, "labels")
XYWH = _ext([np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], axis=1) for b in BOXES], "boxes_xywh")
UNIT = arrays([[[0.0, 0.0, 1.0, 1.0]], [[0.1, 0.2, 0.3, 0.4]]], F, label="unit")

# =============================================================================================
# bb_flip
# =============================================================================================

add(
    op("bb_flip", [BOX], {}),
    op("bb_flip", [BOX], {"ltrb": True}),
    op("bb_flip", [BOX], {"ltrb": True, "horizontal": 0, "vertical": 1}),
    op("bb_flip", [XYWH], {"horizontal": 0}),  # the corner round trip: w' = (x + w) - x
    op("bb_flip", [XYWH], {"horizontal": 1, "vertical": 1}),
    op(
        "bb_flip",
        [BOX, per_sample([1, 0, 1, 0], np.int32, "h"), per_sample([0, 1, 1, 0], np.int32, "v")],
        {"horizontal": In(1), "vertical": In(2), "ltrb": True},
    ),
    op("bb_flip", [arrays([np.linspace(0, 0.9, 8)], F, label="flat8")], {}),
    op("bb_flip", [arrays([[[0.1, 0.2, 0.3]]], np.float64, label="f64")], {}, expect_error=True),
)

# =============================================================================================
# bbox_paste (CPU only in DALI 2.4)
# =============================================================================================

add(
    op("bbox_paste", [UNIT], {"ratio": 2.0, "ltrb": True}),
    op("bbox_paste", [UNIT], {"ratio": 1.55, "paste_x": 0.0, "paste_y": 1.0, "ltrb": True}),
    op("bbox_paste", [UNIT], {"ratio": 7.1, "paste_x": 1.0, "paste_y": 1.0, "ltrb": True}),
    op("bbox_paste", [UNIT], {"ratio": 3.3, "paste_x": 1.0, "paste_y": 0.3}),
    op("bbox_paste", [UNIT], {"ratio": 2.0, "paste_x": 1.5}),  # the shift is clamped
    op("bbox_paste", [BOX], {"ratio": 2.7, "paste_x": 0.2, "paste_y": 0.9, "ltrb": True}),
    op(
        "bbox_paste",
        [
            BOX,
            per_sample([2.0, 1.5, 3.0, 1.1], F, "ratio"),
            per_sample([0.0, 0.5, 1.0, 0.3], F, "px"),
            per_sample([1.0, 0.5, 0.0, 0.7], F, "py"),
        ],
        {"ratio": In(1), "paste_x": In(2), "paste_y": In(3), "ltrb": True},
    ),
    op("bbox_paste", [UNIT], {}, expect_error=True),  # ratio is required
    op("bbox_paste", [arrays([np.zeros((3, 3))], F, label="3x3")], {"ratio": 2}, expect_error=True),
)

# =============================================================================================
# box_encoder
# =============================================================================================


def _grid_anchors() -> list[float]:
    """SSD-like default boxes: two scales on an 8x8 grid, clipped to [0, 1]."""
    out = []
    for s in (0.15, 0.4):
        for y in np.arange(8) / 8 + 1 / 16:
            for x in np.arange(8) / 8 + 1 / 16:
                out.append(np.clip([x - s / 2, y - s / 2, x + s / 2, y + s / 2], 0, 1))
    return np.array(out, F).reshape(-1).tolist()


ANCHORS5 = [0, 0, 0.5, 0.5, 0.5, 0, 1, 0.5, 0, 0.5, 0.5, 1, 0.5, 0.5, 1, 1, 0.25, 0.25, 0.75, 0.75]
GRID = _grid_anchors()
SMALL_BOXES = arrays(
    [[[0.1, 0.1, 0.45, 0.4], [0.6, 0.55, 0.95, 0.9]], np.zeros((0, 4))], F, None, "b2"
)
SMALL_LABELS = arrays([[3, 7], np.zeros(0)], np.int32, None, "l2")
OFFSETS = {
    "offset": True,
    "scale": 300.0,
    "means": [0.1, 0.0, 0.2, -0.1],
    "stds": [0.1, 0.1, 0.2, 0.2],
}

for anchors, name in ((ANCHORS5, "a5"), (GRID, "grid")):
    for kw in ({}, {"criteria": 0.0}, {"criteria": 1.0}, {"criteria": 0.3}, OFFSETS):
        for boxes, labels in ((SMALL_BOXES, SMALL_LABELS), (BOX, LAB)):
            add(
                op(
                    "box_encoder",
                    [boxes, labels],
                    {"anchors": anchors, **kw},
                    name=f"box_encoder({boxes.label},{labels.label}; anchors={name}, {kw})",
                )
            )
add(
    op(
        "box_encoder",
        [SMALL_BOXES, SMALL_LABELS],
        {"anchors": ANCHORS5, "criteria": 1.5},
        expect_error=True,
    ),
    op("box_encoder", [SMALL_BOXES, SMALL_LABELS], {"anchors": ANCHORS5[:5]}, expect_error=True),
    op(
        "box_encoder",
        [SMALL_BOXES, SMALL_LABELS],
        {"anchors": ANCHORS5, "stds": [1, 0, 1, 1]},
        expect_error=True,
    ),
    op(
        "box_encoder",
        [SMALL_BOXES, SMALL_LABELS],
        {"anchors": ANCHORS5, "means": [0, 0]},
        expect_error=True,
    ),
    op(
        "box_encoder",
        [SMALL_BOXES, arrays([[3, 7], np.zeros(0)], np.int64, None, "l64")],
        {"anchors": ANCHORS5},
        expect_error=True,
    ),
)

# =============================================================================================
# coord_transform
# =============================================================================================

PTS_I = arrays([[[1, 2], [3, 4], [5, 7]], [[0, -3]]], np.int32, label="pts_i32")
PTS_U8 = arrays([[[1, 2], [3, 4], [5, 7]], [[250, 0]]], np.uint8, label="pts_u8")
PTS_F = arrays([[[1, 2], [3, 4], [5, 7]], [[0.5, -3.25]]], F, label="pts_f")


def _noise_points(c: Any) -> list[list[Any]]:
    rng = np.random.default_rng(3)
    return [[(rng.standard_normal((n, 4)) * 100).astype(F) for n in (1000, 0, 3)]]


NOISE_PTS = Ext(_noise_points, None, "pts_noise4")
RNG = np.random.default_rng(9)
M34 = (RNG.standard_normal(12)).astype(F).tolist()
T3 = (RNG.standard_normal(3)).astype(F).tolist()

add(
    op("coord_transform", [PTS_I], {"M": 0.5, "dtype": Ty("INT32")}),
    op("coord_transform", [PTS_I], {"M": -0.5, "dtype": Ty("INT32")}),
    op("coord_transform", [PTS_I], {"M": 0.5}),
    op("coord_transform", [PTS_U8], {"M": 100, "dtype": Ty("UINT8")}),
    op("coord_transform", [PTS_U8], {"M": -1, "T": 0.5, "dtype": Ty("UINT8")}),
    op("coord_transform", [PTS_F], {"MT": 2.0}),
    op("coord_transform", [PTS_F], {"MT": [1, 2, 3, 4, 5, 6]}),
    op("coord_transform", [PTS_F], {"MT": [1, 2, 3]}),
    op("coord_transform", [PTS_F], {"M": [1, 2, 3, 4, 5, 6], "T": [1, 2, 3]}),
    op("coord_transform", [PTS_F], {"M": [1, 2, 3, 4, 5, 6], "T": 0.5}),
    op("coord_transform", [PTS_F], {"T": [1, 2]}),
    op("coord_transform", [PTS_F], {}),
    op("coord_transform", [NOISE_PTS], {"M": M34, "T": T3}),
    op(
        "coord_transform",
        [arrays([np.arange(12).reshape(2, 3, 2)], F, label="pts3d")],
        {"M": [1, 2, 3, 4, 5, 6]},
    ),
    op(
        "coord_transform", [arrays([np.zeros((0, 2))], F, label="empty")], {"M": [1, 2, 3, 4, 5, 6]}
    ),
    op(
        "coord_transform",
        [arrays([np.zeros((0, 3)), np.ones((2, 2))], F, label="empty+2")],
        {"M": [1, 2, 3, 4, 5, 6]},
    ),
    op(
        "coord_transform",
        [PTS_F, arrays([np.eye(2) * 2, np.ones((2, 2))], F, label="m2x2")],
        {"M": In(1)},
        name="coord_transform(pts_f; M=per-sample 2x2 matrices)",
    ),
    op(
        "coord_transform",
        [PTS_F, per_sample([2.0, 3.0], F, "m")],
        {"M": In(1)},
        name="coord_transform(pts_f; M=per-sample scalars)",
    ),
    op(
        "coord_transform",
        [PTS_F, arrays([np.ones((1, 3)), np.full((1, 3), 2)], F, label="mt")],
        {"MT": In(1)},
        name="coord_transform(pts_f; MT=per-sample 1x3 matrices)",
    ),
    op(
        "coord_transform",
        [PTS_F, arrays([[1, 2], [2, 2]], F, label="t")],
        {"T": In(1)},
        name="coord_transform(pts_f; T=per-sample vectors)",
    ),
    op(
        "coord_transform",
        [PTS_F, per_sample([1.0, 2.0], F, "t")],
        {"T": In(1), "M": [1, 0, 0, 1, 1, 1]},
        name="coord_transform(pts_f; M=3x2, T=per-sample scalars)",
    ),
    op(
        "coord_transform",
        [PTS_F, per_sample([2.0, 3.0], F, "mt")],
        {"MT": In(1)},
        name="coord_transform(pts_f; MT=per-sample scalars)",
        known="DALI 2.4 gives D + 1 components for a per-sample scalar MT (garbage past sample 0); "
        "dali applies s·I as documented",
    ),
    op("coord_transform", [arrays([[[1, 2]]], np.int64, label="i64")], {"M": 2}, expect_error=True),
    op("coord_transform", [PTS_I], {"M": 2, "dtype": Ty("INT16")}, expect_error=True),
    op("coord_transform", [PTS_F], {"M": 2, "MT": 2}, expect_error=True),
    op("coord_transform", [PTS_F], {"M": [1, 2, 3]}, expect_error=True),
    op("coord_transform", [PTS_F], {"M": [1, 2, 3, 4, 5, 6], "T": [1, 2]}, expect_error=True),
    op("coord_transform", [arrays([[1.0, 2.0]], F, label="1d")], {"M": 2}, expect_error=True),
)

# =============================================================================================
# random_bbox_crop
# =============================================================================================


def _crop_graph(kw: dict[str, Any], labels: bool = True) -> Callable[..., Any]:
    """``(input boxes, input labels, *outputs)``: the inputs go out too, for the invariants."""

    def graph(fn: Any, types: Any, boxes: Any, *rest: Any) -> Any:
        if labels:
            out = fn.random_bbox_crop(boxes, rest[0], **kw)
            return (boxes, rest[0], *out)
        return (boxes, *fn.random_bbox_crop(boxes, **kw))

    return graph


def _crop_invariants(kw: dict[str, Any], labels: bool = True) -> Callable[[Iters], list[str]]:
    """The window is legal and the outputs follow from it (see the module docstring)."""
    layout = kw.get("bbox_layout", "xyXY")
    prune = kw.get("bbox_prune_threshold")
    scaling = kw.get("scaling", (1.0, 1.0))
    ar = kw.get("aspect_ratio", (1.0, 1.0))
    crop_shape, in_shape = kw.get("crop_shape"), kw.get("input_shape")

    def check(iters: Iters) -> list[str]:
        problems = []
        for it in iters:
            outs = [o.samples for o in it]
            boxes_in = outs[0]
            k = 2 if labels else 1
            labels_in = outs[1] if labels else None
            anchor, shape, boxes_out = outs[k], outs[k + 1], outs[k + 2]
            idx = outs[-1]
            for s, b in enumerate(boxes_in):
                p = _check_sample(
                    b,
                    anchor[s],
                    shape[s],
                    boxes_out[s],
                    idx[s],
                    layout,
                    prune,
                    scaling,
                    ar,
                    crop_shape,
                    in_shape,
                )
                if labels_in is not None and not np.array_equal(
                    outs[k + 3][s], labels_in[s][idx[s]]
                ):
                    p.append("labels are not those of the kept boxes")
                problems += [f"sample {s}: {m}" for m in p]
        return problems[:5]

    return check


def _check_sample(b, a, s, out, idx, layout, prune, scaling, ar, crop_shape, in_shape) -> list[str]:
    """The problems of one sample's window and outputs (see `_crop_invariants`)."""
    ndim = len(a)
    p: list[str] = []
    starts = [layout.index(c) for c in "xyz"[:ndim]]
    extents = "X" not in layout
    ends = [layout.index(c) for c in ("WHD" if extents else "XYZ")[:ndim]]
    lo, hi = b[:, starts], b[:, ends]
    if extents:
        hi = lo + hi
    no_crop = False
    if crop_shape is not None:
        size, crop = np.array(in_shape, F), np.array(crop_shape, F)
        if not np.array_equal(s, crop):
            p.append(f"shape {s} != crop_shape {crop}")
        a_lo, a_hi = np.minimum(0, size - crop), np.maximum(0, size - crop)
        if (a != np.round(a)).any() or (a < a_lo).any() or (a > a_hi).any():
            p.append(f"anchor {a} out of range")
        clo, chi = a / size, crop / size + a / size
    else:
        # inside the image; with input_shape a window can be larger than the image on an axis,
        # then it covers the image there (its anchor is drawn in [1 - s, 0])
        a_lo, a_hi = np.minimum(0, 1 - s) - 1e-5, np.maximum(0, 1 - s) + 1e-5
        if (a < a_lo).any() or (a > a_hi).any() or ((s > 1 + 1e-5).any() and in_shape is None):
            p.append(f"window {a}+{s} outside [0, 1]")
        no_crop = bool((a == 0).all() and (s == 1).all())
        if (s == 0).all():  # no attempt had its ratios in range (total_num_attempts): nothing
            return p if len(idx) == 0 and out.size == 0 else [*p, "boxes kept by an empty window"]
        if not no_crop:
            ext = s * (np.array(in_shape, F) if in_shape is not None else F(1))
            if in_shape is None and not scaling[0] - 1e-5 <= s.max() <= scaling[1] + 1e-5:
                p.append(f"shape {s} not in scaling {scaling}")
            pairs = [(i, j) for i in range(ndim) for j in range(i + 1, ndim)]
            for n, (i, j) in enumerate(pairs):
                k = n % (len(ar) // 2)
                r = ext[i] / ext[j]
                if not ar[2 * k] * (1 - 1e-4) <= r <= ar[2 * k + 1] * (1 + 1e-4):
                    p.append(f"aspect ratio {i}/{j} {r} not in {ar[2 * k : 2 * k + 2]}")
        clo, chi = a.astype(F), (a + s).astype(F)
    if no_crop:  # the "no crop" outcome: every box, unchanged
        keep, mlo, mhi = np.arange(len(b)), lo, hi
    else:
        keep = _kept(lo, hi, clo, chi, prune)
        ext = chi - clo
        mlo = np.clip((np.maximum(clo, lo[keep]) - clo) / ext, 0, 1)
        mhi = np.clip((np.minimum(chi, hi[keep]) - clo) / ext, 0, 1)
    if not np.array_equal(idx, keep):
        return [*p, f"kept {idx.tolist()}, expected {keep.tolist()}"]
    exp = np.empty((len(keep), 2 * ndim), F)
    exp[:, starts] = mlo
    exp[:, ends] = mhi - mlo if extents else mhi
    if out.shape != exp.shape or not np.allclose(out, exp, atol=2e-5):
        p.append(f"boxes {out.tolist()[:2]} != expected {exp.tolist()[:2]}")
    return p


def _kept(lo, hi, clo, chi, prune) -> np.ndarray:
    if prune is None:
        c = (lo + hi) * F(0.5)
        return np.flatnonzero(((c >= clo) & (c < chi)).all(axis=1))
    ilo, ihi = np.maximum(lo, clo), np.minimum(hi, chi)
    inter = np.where((ihi > ilo).all(axis=1), np.prod(ihi - ilo, axis=1), 0)
    vol = np.prod(hi - lo, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.flatnonzero((inter > 0) & (inter / vol >= F(prune)))


def crop_case(
    kw: dict[str, Any], boxes: Ext = BOX, labels: Ext | None = LAB, exact=False, **opts
) -> Case:
    kw = {**kw, "output_bbox_indices": True}
    shown = ", ".join(f"{k}={v}" for k, v in kw.items() if k != "output_bbox_indices")
    name = f"random_bbox_crop({boxes.label}{'' if labels is None else ',' + labels.label}; {shown})"
    inputs = (boxes,) if labels is None else (boxes, labels)
    check = None
    if not exact:
        check = random_checks(_crop_invariants(kw, labels is not None), shapes=False)
    opts.setdefault("iters", 2)
    return Case(name, _crop_graph(kw, labels is not None), inputs, check=check, **opts)


SSD = {"scaling": [0.3, 1.0], "aspect_ratio": [0.5, 2.0], "bbox_layout": "xyXY"}
MANY = _ext(_boxes(2, (3, 1, 4, 2, 6, 1, 2, 3)), "boxes8")
MANY_LAB = _ext(_labels_for(_boxes(2, (3, 1, 4, 2, 6, 1, 2, 3))), "labels8")
BIG = _ext(_boxes(4, (2, 3, 1, 2), size=(0.3, 0.6)), "bigboxes")
BIG_LAB = _ext(_labels_for(_boxes(4, (2, 3, 1, 2), size=(0.3, 0.6))), "biglabels")
BOX3 = _ext(_boxes(5, (2, 1, 3, 2), ndim=3, size=(0.2, 0.5)), "boxes3d")
EDGE = _ext([np.array([[0.1, 0.1, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0]], F)] * 2, "edgebox")
NO_BOXES = _ext([np.zeros((0, 4), F)] * 3, "noboxes")

# outcomes the arguments force: compared exactly
add(
    crop_case({}, exact=True),
    crop_case({"allow_no_crop": False}, exact=True),
    crop_case({"thresholds": [0.0, 0.05], "threshold_type": "overlap"}, exact=True),
    crop_case({"bbox_layout": "xyWH"}, boxes=XYWH, exact=True),
    crop_case({"allow_no_crop": False}, boxes=EDGE, labels=None, exact=True),
    crop_case(
        {"allow_no_crop": False, "bbox_prune_threshold": 0.0}, boxes=EDGE, labels=None, exact=True
    ),
    crop_case({"crop_shape": [64, 48], "input_shape": [64, 48]}, exact=True),
    crop_case({"crop_shape": [48, 64], "input_shape": [48, 64], "shape_layout": "HW"}, exact=True),
    crop_case(
        {"crop_shape": [40, 30], "input_shape": [40, 30]}, boxes=NO_BOXES, labels=None, exact=True
    ),
    crop_case({"allow_no_crop": False}, boxes=BOX3, labels=None, exact=True),
    crop_case({"ltrb": False}, boxes=XYWH, exact=True),
    # no attempt has its ratios in range: the empty window at 0 and no box
    crop_case(
        {
            "aspect_ratio": [5, 6],
            "scaling": [0.3, 1],
            "allow_no_crop": False,
            "total_num_attempts": 4,
        },
        exact=True,
    ),
)
# random outcomes: compared by invariants
add(
    crop_case(
        {**SSD, "thresholds": [0.0, 0.1], "all_boxes_above_threshold": False}, MANY, MANY_LAB
    ),
    crop_case(
        {
            **SSD,
            "thresholds": [0.1, 0.3, 0.5],
            "num_attempts": 10,
            "all_boxes_above_threshold": False,
        },
        MANY,
        MANY_LAB,
    ),
    crop_case(
        {**SSD, "thresholds": [0.05], "allow_no_crop": False, "num_attempts": 5}, BIG, BIG_LAB
    ),
    crop_case(
        {
            **SSD,
            "thresholds": [1.0],
            "threshold_type": "overlap",
            "all_boxes_above_threshold": False,
            "allow_no_crop": False,
            "num_attempts": 20,
        },
        MANY,
        MANY_LAB,
    ),
    crop_case({**SSD, "bbox_prune_threshold": 0.0, "allow_no_crop": False}, MANY, MANY_LAB),
    crop_case({**SSD, "bbox_prune_threshold": 0.5, "allow_no_crop": False}, MANY, MANY_LAB),
    crop_case({"crop_shape": [30, 20], "input_shape": [80, 60]}, MANY, MANY_LAB),
    crop_case(
        {"crop_shape": [120, 20], "input_shape": [80, 60], "thresholds": [0.0]}, MANY, MANY_LAB
    ),
    crop_case(
        {
            "input_shape": [400, 100],
            "aspect_ratio": [1.0, 1.0],
            "scaling": [0.3, 0.6],
            "allow_no_crop": False,
        },
        MANY,
        MANY_LAB,
    ),
    crop_case(
        {
            "scaling": [0.5, 1.0],
            "aspect_ratio": [0.5, 2.0],
            "allow_no_crop": False,
            "bbox_layout": "xyzXYZ",
        },
        BOX3,
        None,
    ),
    crop_case({**SSD, "thresholds": [1.0], "allow_no_crop": False}, NO_BOXES, None),
    crop_case(
        {
            **SSD,
            "thresholds": [0.99],
            "allow_no_crop": False,
            "total_num_attempts": 3,
            "quiet": True,
        },
        MANY,
        MANY_LAB,
    ),
)
# errors: both libraries raise
for kw in (
    {"bbox_layout": "xyXZ"},
    {"ltrb": False, "bbox_layout": "xyXY"},
    {"crop_shape": [10, 10]},
    {"crop_shape": [10, 10], "input_shape": [20, 20], "allow_no_crop": True},
    {"crop_shape": [10, 10], "input_shape": [20, 20], "aspect_ratio": [1, 2]},
    {"thresholds": [1.5]},
    {"thresholds": []},
    {"num_attempts": 0},
    {"total_num_attempts": 0},
    {"threshold_type": "foo"},
    {"scaling": [0.5, 0.2]},
    {"aspect_ratio": [0.5, 1, 1, 2]},
    {"bbox_prune_threshold": 1.5},
    {"crop_shape": [1, 2, 3], "input_shape": [20, 20, 3]},
):
    add(crop_case(kw, iters=1, expect_error=True))
for bad, label in (
    ([np.array([[0.1, 0.1, 1.3, 0.3]], F)], "outside"),
    ([np.zeros((2, 5), F)], "5coords"),
    ([np.zeros((8,), F)], "flat"),
    ([np.zeros((2, 4))], "f64"),
):
    add(crop_case({}, boxes=_ext(bad, label), labels=None, iters=1, expect_error=True))
add(
    crop_case(
        {},
        labels=_ext([b.astype(np.int64) for b in BOX_LABELS], "labels64"),
        iters=1,
        expect_error=True,
    )
)

# -- the windows cut images: fn.slice (relative and absolute) and fn.crop -------------------------


def _coordinate_image(c: Any) -> list[list[Any]]:
    """Pixel (y, x) holds (y, x, 7): a slice tells where it comes from."""
    img = np.full((60, 80, 3), 7, np.uint8)
    img[..., 0] = np.arange(60)[:, None]
    img[..., 1] = np.arange(80)[None, :]
    return [[img] * 4]


IMG = Ext(_coordinate_image, "HWC", "img60x80")
SLICE_BOXES = _ext(_boxes(6, (2, 3, 1, 2)), "boxes4")


def _slice_graph(fn: Any, types: Any, img: Any, boxes: Any) -> Any:
    a, s, _ = fn.random_bbox_crop(boxes, allow_no_crop=False, **SSD)
    a2, s2, _ = fn.random_bbox_crop(boxes, crop_shape=[30, 20], input_shape=[80, 60])
    rel = fn.slice(img, a, s)
    ab = fn.slice(img, a2, s2, normalized_anchor=False, normalized_shape=False)
    cropped = fn.crop(img, crop_w=30, crop_h=20, crop_pos_x=a2[0] / 50, crop_pos_y=a2[1] / 40)
    return a, s, rel, a2, ab, cropped


def _slice_invariants(iters: Iters) -> list[str]:
    problems = []
    for it in iters:
        a, s, rel, a2, ab, cropped = (o.samples for o in it)
        for i in range(len(a)):
            x, y = int(a2[i][0]), int(a2[i][1])
            if ab[i].shape != (20, 30, 3) or (ab[i][0, 0, :2] != [y, x]).any():
                problems.append(f"sample {i}: absolute slice {ab[i].shape} at {ab[i][0, 0]}")
            if not np.array_equal(cropped[i], ab[i]):
                problems.append(f"sample {i}: fn.crop differs from the absolute slice")
            h, w = rel[i].shape[:2]
            y0, x0 = int(rel[i][0, 0, 0]), int(rel[i][0, 0, 1])
            if abs(x0 - a[i][0] * 80) > 1 or abs(y0 - a[i][1] * 60) > 1:
                problems.append(f"sample {i}: relative slice at {(y0, x0)}, window {a[i]}")
            if abs(w - s[i][0] * 80) > 1.01 or abs(h - s[i][1] * 60) > 1.01:
                problems.append(f"sample {i}: relative slice {h}x{w}, window {s[i]}")
    return problems


add(
    Case(
        "random_bbox_crop -> slice, crop(img60x80)",
        _slice_graph,
        (IMG, SLICE_BOXES),
        iters=2,
        check=random_checks(_slice_invariants),
    )
)
