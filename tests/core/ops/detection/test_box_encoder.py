"""`fn.box_encoder`: outputs observed in DALI 2.4 (centre-xywh, offsets, empty samples), the
matching rules (forced matches, ties, the criteria bound), errors; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, pipeline_def
from dali._ops.detection.box_encoder import encode_boxes
from detection_helpers import run1
from parity import cpu_gpu, device_id, to_device

F = np.float32
ANCHORS = [0, 0, 0.5, 0.5, 0.5, 0, 1, 0.5, 0, 0.5, 0.5, 1, 0.5, 0.5, 1, 1, 0.25, 0.25, 0.75, 0.75]
BOXES = np.array([[0.1, 0.1, 0.45, 0.4], [0.6, 0.55, 0.95, 0.9]], F)
LABELS = np.array([3, 7], np.int32)
EMPTY = (np.zeros((0, 4), F), np.zeros((0,), np.int32))

# observed in DALI 2.4 with BOXES/LABELS and ANCHORS
ANCHORS_CWH = [
    [0.25, 0.25, 0.5, 0.5],
    [0.75, 0.25, 0.5, 0.5],
    [0.25, 0.75, 0.5, 0.5],
    [0.75, 0.75, 0.5, 0.5],
    [0.5, 0.5, 0.5, 0.5],
]
DALI_PLAIN = [
    [0.2750000059604645, 0.25, 0.3499999940395355, 0.30000001192092896],
    [0.75, 0.25, 0.5, 0.5],
    [0.25, 0.75, 0.5, 0.5],
    [0.7749999761581421, 0.7250000238418579, 0.34999996423721313, 0.34999996423721313],
    [0.5, 0.5, 0.5, 0.5],
]
DALI_OFFSET = [
    [-0.49999988079071045, -2.0, -3.283374786376953, -4.554128170013428],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0],
    [-0.5000004768371582, -2.499999523162842, -3.2833755016326904, -3.7833752632141113],
    [0.0, 0.0, 0.0, 0.0],
]
OFFSET_KW = {
    "offset": True,
    "scale": 2.0,
    "means": [0.1, 0.2, 0.3, 0.4],
    "stds": [0.1, 0.1, 0.2, 0.2],
}


def _encode(boxes, labels, **kw):
    return run1(lambda b, lab: fn.box_encoder(b, lab, anchors=ANCHORS, **kw), boxes, labels)


def test_observed_centre_xywh_output():
    enc, lab = _encode([BOXES, EMPTY[0]], [LABELS, EMPTY[1]])
    np.testing.assert_array_equal(enc[0], np.array(DALI_PLAIN, F))
    np.testing.assert_array_equal(lab[0], [3, 0, 0, 7, 0])
    # no boxes: every anchor, as centre-xywh, label 0
    np.testing.assert_array_equal(enc[1], np.array(ANCHORS_CWH, F))
    np.testing.assert_array_equal(lab[1], [0, 0, 0, 0, 0])
    assert enc[0].dtype == F and lab[0].dtype == np.int32


def test_observed_offsets():
    enc, lab = _encode([BOXES, EMPTY[0]], [LABELS, EMPTY[1]], **OFFSET_KW)
    np.testing.assert_allclose(enc[0], np.array(DALI_OFFSET, F), rtol=2e-7, atol=1e-7)
    np.testing.assert_array_equal(lab[0], [3, 0, 0, 7, 0])
    np.testing.assert_array_equal(enc[1], np.zeros((5, 4), F))


def test_criteria_bounds():
    # criteria 0: the last anchor (IoU 0.092 with box 0, 0.088 with box 1) is matched to box 0
    enc, lab = _encode([BOXES], [LABELS], criteria=0.0)
    np.testing.assert_array_equal(lab[0], [3, 0, 0, 7, 3])
    np.testing.assert_array_equal(enc[0][4], enc[0][0])
    # criteria 1: only the forced matches (each box's best anchor) remain
    _, lab = _encode([BOXES], [LABELS], criteria=1.0)
    np.testing.assert_array_equal(lab[0], [3, 0, 0, 7, 0])


def test_a_box_is_matched_to_its_best_anchor_even_below_criteria():
    anchors = np.array([[0, 0, 1, 1], [0.5, 0.5, 1, 1]], F)
    box = np.array([[0.0, 0.0, 0.1, 0.1]], F)  # IoU 0.01 with anchor 0, 0 with anchor 1
    enc, lab = encode_boxes(box, np.array([5], np.int32), anchors, criteria=0.5)
    assert lab.tolist() == [5, 0]
    np.testing.assert_allclose(enc[0], [0.05, 0.05, 0.1, 0.1], atol=1e-7)


def test_ties_go_to_the_last_anchor_and_the_last_box():
    anchors = np.array([[0, 0, 0.5, 1], [0.5, 0, 1, 1]], F)
    # the box overlaps both anchors equally: the last anchor claims it
    _, lab = encode_boxes(np.array([[0.25, 0, 0.75, 1]], F), np.array([9], np.int32), anchors)
    assert lab.tolist() == [0, 9]
    # two identical boxes: the anchor takes the last one
    boxes = np.array([[0, 0, 0.5, 1], [0, 0, 0.5, 1]], F)
    _, lab = encode_boxes(boxes, np.array([1, 2], np.int32), anchors)
    assert lab.tolist() == [2, 0]


def test_labels_of_shape_n_by_1_and_ops_class():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [BOXES])
        lab = fn.external_source(source=lambda: [LABELS.reshape(2, 1)])
        return tuple(ops.BoxEncoder(anchors=ANCHORS)(b, lab))

    p = pipe()
    enc, lab = p.run()
    assert enc.layout() == "" and lab.layout() == ""
    np.testing.assert_array_equal(lab.at(0), [3, 0, 0, 7, 0])


def test_static_meta():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [BOXES])
        lab = fn.external_source(source=lambda: [LABELS])
        enc, lab = fn.box_encoder(b, lab, anchors=ANCHORS)
        assert enc.static_shape == (5, 4) and lab.static_shape == (5,)
        return enc, lab

    pipe()


@pytest.mark.parametrize(
    "kw,boxes,labels,message",
    [
        ({"criteria": 1.5}, BOXES, LABELS, "criteria <= 1"),
        ({"criteria": -0.1}, BOXES, LABELS, "criteria >= 0"),
        ({"anchors": ANCHORS[:5]}, BOXES, LABELS, "divisible by 4"),
        ({"anchors": []}, BOXES, LABELS, "must not be empty"),
        ({"means": [0, 0, 0]}, BOXES, LABELS, "4 values"),
        ({"stds": [1, 0, 1, 1]}, BOXES, LABELS, "!= 0"),
        ({}, BOXES, LABELS.astype(np.int64), "INT32"),
        ({}, BOXES.astype(np.float64), LABELS, "FLOAT"),
        ({}, BOXES, LABELS[:1], "2 boxes but labels"),
        ({}, BOXES.reshape(-1), LABELS, r"shape \[N, 4\]"),
        ({}, np.zeros((2, 5), F), LABELS, r"shape \[N, 4\]"),
    ],
)
def test_errors(kw, boxes, labels, message):
    kw = {"anchors": ANCHORS, **kw}
    with pytest.raises(Exception, match=message):
        run1(lambda b, lab: fn.box_encoder(b, lab, **kw), [boxes], [labels])


def test_anchors_are_required():
    with pytest.raises(Exception, match="anchors"):
        run1(lambda b, lab: fn.box_encoder(b, lab), [BOXES], [LABELS])


def _random_batch(seed=0):
    rng = np.random.default_rng(seed)
    boxes, labels = [], []
    for n in (7, 0, 1, 40):
        lo = rng.random((n, 2)) * 0.8
        b = np.concatenate([lo, lo + 0.02 + rng.random((n, 2)) * 0.3], axis=1).clip(0, 1)
        boxes.append(b.astype(F))
        labels.append(rng.integers(1, 80, n).astype(np.int32))
    g = np.linspace(0, 1, 9, dtype=F)
    anchors = [[x, y, x + s, y + s] for s in (F(0.1), F(0.3)) for x in g[:-1] for y in g[:-1]]
    return boxes, labels, np.array(anchors, F).reshape(-1).tolist()


@pytest.mark.parametrize("offset", [False, True])
@cpu_gpu(atol=2e-6, rtol=2e-6)
def test_parity(offset, device):
    boxes, labels, anchors = _random_batch()
    kw = {"offset": offset, "criteria": 0.3, "scale": 300.0 if offset else 1.0}
    if offset:
        kw.update(means=[0.1, 0.0, 0.2, -0.1], stds=[0.1, 0.1, 0.2, 0.2])

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device))
    def pipe():
        b = to_device(fn.external_source(source=lambda: boxes), device)
        lab = to_device(fn.external_source(source=lambda: labels), device)
        return tuple(fn.box_encoder(b, lab, anchors=anchors, **kw))

    return pipe().run()


def test_cpu_matches_a_direct_reference():
    """The vectorised CPU path against a plain loop over boxes and anchors (DALI's CPU code)."""
    boxes, labels, anchors = _random_batch(1)
    a = np.array(anchors, F).reshape(-1, 4)
    enc, lab = run1(
        lambda b, l_: fn.box_encoder(b, l_, anchors=anchors, criteria=0.4), boxes, labels
    )
    for b, l_, e, got in zip(boxes, labels, enc, lab):
        n = len(b)
        ious = np.zeros((n, len(a)), F)
        for i in range(n):
            for j in range(len(a)):
                lo = np.maximum(b[i, :2], a[j, :2])
                hi = np.minimum(b[i, 2:], a[j, 2:])
                if (hi > lo).all():
                    inter = (hi - lo)[0] * (hi - lo)[1]
                    va = (b[i, 2] - b[i, 0]) * (b[i, 3] - b[i, 1])
                    vb = (a[j, 2] - a[j, 0]) * (a[j, 3] - a[j, 1])
                    ious[i, j] = inter / (va + vb - inter)
            best = 0
            for j in range(1, len(a)):
                if ious[i, j] >= ious[i, best]:
                    best = j
            ious[i, best] = 2
        expected = np.zeros(len(a), np.int32)
        for j in range(len(a)):
            if n == 0:
                continue
            best = 0
            for i in range(1, n):
                if ious[i, j] >= ious[best, j]:
                    best = i
            if ious[best, j] > F(0.4):
                expected[j] = l_[best]
        np.testing.assert_array_equal(got, expected)
        assert e.shape == (len(a), 4)


@pytest.mark.parametrize("offset", [False, True])
def test_compiled_encoder_gives_the_numpy_path_labels_and_boxes(monkeypatch, offset):
    """The compiled CPU encoder (branch-free IoU loops, the best anchor found through the IoUs'
    bit patterns) against the numpy expressions: the same labels, and boxes equal (offsets
    within a few ulps: another log); ties, boxes with swapped corners (negative IoUs) and
    empty samples among them."""
    from dali._ops.detection import box_encoder as module

    if module._compiled() is None:
        pytest.skip("needs Numba")
    boxes, labels, anchors = _random_batch(6)
    boxes[0] = np.concatenate([boxes[0], boxes[0][:1]])  # a repeated box: ties
    labels[0] = np.concatenate([labels[0], labels[0][:1] + 1])
    boxes[0][1] = [0.3, 0.3, 0.35, 0.35]  # inside anchors of one size alike: ties
    boxes[3] = boxes[3][:, [2, 3, 0, 1]]  # swapped corners (sample 1 has no box)
    kw = {"offset": offset, "criteria": 0.3, "scale": 300.0 if offset else 1.0}

    def encoded():
        return run1(lambda b, l_: fn.box_encoder(b, l_, anchors=anchors, **kw), boxes, labels)

    compiled = encoded()
    monkeypatch.setattr(module, "_compiled", lambda: None)
    expressions = encoded()
    for got, want in zip(compiled[1], expressions[1]):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(compiled[0], expressions[0]):
        np.testing.assert_allclose(got, want, rtol=4e-7, atol=1e-7)
