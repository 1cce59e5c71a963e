"""`fn.random_bbox_crop`: deterministic outcomes, the invariants of random
windows (inside the image, in range, boxes kept and remapped as DALI does), fixed-shape windows,
3-D boxes, empty samples, determinism per sample, the warning and the errors, and the windows
feeding `fn.slice` and `fn.crop`."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from dali import fn, ops, pipeline_def
from dali._ops.detection import _crop_search
from dali._ops.detection._boxes import BoxLayout, intersection_volume, iou, volume
from detection_helpers import run, run1

F = np.float32
BOXES = np.array([[0.1, 0.1, 0.3, 0.3], [0.5, 0.5, 0.9, 0.8], [0.2, 0.6, 0.4, 0.9]], F)
LABELS = np.array([1, 2, 3], np.int32)
SSD = {"scaling": [0.3, 1.0], "aspect_ratio": [0.5, 2.0], "bbox_layout": "xyXY"}


def _random_boxes(n_samples, seed=0, ndim=2, max_boxes=6, size=(0.05, 0.45)):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_samples):
        n = int(rng.integers(1, max_boxes + 1))
        lo = rng.random((n, ndim)) * 0.7
        hi = np.minimum(lo + size[0] + rng.random((n, ndim)) * (size[1] - size[0]), 1.0)
        out.append(np.concatenate([lo, hi], axis=1).astype(F))
    return out


def _check_kept(anchor, shape, boxes_in, boxes_out, indices, prune=None, layout="xyXY"):
    """The kept boxes are those whose centre (or enough area) is inside, remapped as DALI does."""
    lay = BoxLayout.parse(layout, len(anchor))
    lo, hi = lay.read(boxes_in)
    clo, chi = anchor.astype(F), (anchor + shape).astype(F)
    if prune is None:
        c = (lo + hi) * F(0.5)
        keep = np.flatnonzero(((c >= clo) & (c < chi)).all(axis=1))
    else:
        inter = intersection_volume(clo, chi, lo, hi)
        keep = np.flatnonzero((inter > 0) & (inter / volume(lo, hi) >= F(prune)))
    np.testing.assert_array_equal(indices, keep)
    ext = chi - clo
    exp_lo = np.clip((np.maximum(clo, lo[keep]) - clo) / ext, 0, 1)
    exp_hi = np.clip((np.minimum(chi, hi[keep]) - clo) / ext, 0, 1)
    np.testing.assert_allclose(boxes_out, lay.write(exp_lo, exp_hi), atol=2e-6)


def test_default_arguments_never_crop():
    """scaling [1, 1] makes every window the whole image: anchor 0, shape 1, every box."""
    for kw in ({}, {"allow_no_crop": False}, {"thresholds": [0.0, 0.05]}):
        anchor, shape, boxes, labels = run1(
            lambda b, lab, kw=kw: fn.random_bbox_crop(b, lab, **kw), [BOXES] * 3, [LABELS] * 3
        )
        for i in range(3):
            np.testing.assert_array_equal(anchor[i], [0, 0])
            np.testing.assert_array_equal(shape[i], [1, 1])
            np.testing.assert_array_equal(boxes[i], BOXES)
            np.testing.assert_array_equal(labels[i], LABELS)
            assert anchor[i].dtype == F and labels[i].dtype == np.int32


def test_a_window_drops_a_box_whose_centre_is_on_its_far_edge():
    """Centres are kept in [lo, hi): a point box at (1, 1) survives only the "no crop" outcome."""
    boxes = np.array([[0.1, 0.1, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0]], F)
    _, _, out, idx = run1(
        lambda b: fn.random_bbox_crop(b, allow_no_crop=False, output_bbox_indices=True), [boxes]
    )
    np.testing.assert_array_equal(idx[0], [0])
    np.testing.assert_array_equal(out[0], boxes[:1])


def test_xywh_boxes_are_written_back_through_their_corners():
    boxes = np.array([[0.1, 0.2, 0.3, 0.4], [0.55, 0.05, 0.2, 0.6]], F)
    _, _, out = run1(lambda b: fn.random_bbox_crop(b, bbox_layout="xyWH"), [boxes])
    lo, hi = boxes[:, :2], boxes[:, :2] + boxes[:, 2:]
    np.testing.assert_array_equal(out[0], np.concatenate([lo, hi - lo], axis=1))


@pytest.mark.parametrize("all_above", [True, False])
def test_random_windows_invariants(all_above):
    thr = 0.05 if all_above else 0.3
    boxes = _random_boxes(24, seed=1, max_boxes=4, size=(0.3, 0.6))
    labels = [np.arange(len(b), dtype=np.int32) * 10 for b in boxes]
    kw = {**SSD, "thresholds": [thr], "allow_no_crop": False, "num_attempts": 5}
    anchor, shape, out, lab, idx = run1(
        lambda b, lab: fn.random_bbox_crop(
            b, lab, all_boxes_above_threshold=all_above, output_bbox_indices=True, **kw
        ),
        boxes,
        labels,
    )
    for i, b in enumerate(boxes):
        a, s = anchor[i], shape[i]
        assert (a >= 0).all() and (a + s <= 1 + 1e-6).all()
        assert 0.3 - 1e-6 <= s.max() <= 1.0 + 1e-6
        assert 0.5 - 1e-6 <= s[0] / s[1] <= 2.0 + 1e-6
        _check_kept(a, s, b, out[i], idx[i])
        np.testing.assert_array_equal(lab[i], labels[i][idx[i]])
        assert len(idx[i]) > 0 and idx[i].dtype == np.int32
        m = iou(a.astype(F), (a + s).astype(F), b[:, :2], b[:, 2:])
        assert (m.min() if all_above else m.max()) >= thr - 1e-6


def test_overlap_threshold_one_keeps_a_box_entirely_inside():
    boxes = _random_boxes(16, seed=2, max_boxes=3)
    anchor, shape, _ = run1(
        lambda b: fn.random_bbox_crop(
            b,
            threshold_type="overlap",
            thresholds=[1.0],
            all_boxes_above_threshold=False,
            allow_no_crop=False,
            num_attempts=20,
            scaling=[0.3, 1.0],
            aspect_ratio=[0.5, 2.0],
        ),
        boxes,
    )
    for a, s, b in zip(anchor, shape, boxes):
        inside = ((b[:, :2] >= a - 1e-6) & (b[:, 2:] <= a + s + 1e-6)).all(axis=1)
        assert inside.any()


@pytest.mark.parametrize("prune", [0.0, 0.5])
def test_prune_threshold_keeps_boxes_by_area(prune):
    boxes = _random_boxes(16, seed=3)
    anchor, shape, out, idx = run1(
        lambda b: fn.random_bbox_crop(
            b, bbox_prune_threshold=prune, allow_no_crop=False, output_bbox_indices=True, **SSD
        ),
        boxes,
    )
    for i, b in enumerate(boxes):
        _check_kept(anchor[i], shape[i], b, out[i], idx[i], prune=prune)


def test_fixed_crop_shape_windows():
    boxes = _random_boxes(16, seed=4)
    cases = [([30, 20], [80, 60], None), ([120, 20], [80, 60], None), ([20, 30], [60, 80], "HW")]
    for crop, inp, shape_layout in cases:
        kw = {"crop_shape": crop, "input_shape": inp}
        if shape_layout:
            kw["shape_layout"] = shape_layout
        anchor, shape, out, idx = run1(
            lambda b, kw=kw: fn.random_bbox_crop(b, output_bbox_indices=True, **kw), boxes
        )
        w_h = np.array(crop if shape_layout is None else crop[::-1], F)
        size = np.array(inp if shape_layout is None else inp[::-1], F)
        for i, b in enumerate(boxes):
            a = anchor[i]
            np.testing.assert_array_equal(shape[i], w_h)
            assert (a == np.round(a)).all()
            lo, hi = np.minimum(0, size - w_h), np.maximum(0, size - w_h)
            assert ((a >= lo) & (a <= hi)).all()
            _check_kept(a / size, w_h / size, b, out[i], idx[i])
            assert len(idx[i]) > 0
        if crop == [120, 20]:  # wider than the image: anchors from -40 to 0
            assert (np.array(anchor)[:, 0] < 0).any()


def test_crop_shape_per_sample():
    shapes = [np.array([10, 10], np.int32), np.array([40, 30], np.int32)]
    anchor, shape, _ = run1(
        lambda b, c: fn.random_bbox_crop(b, crop_shape=c, input_shape=[40, 30]), [BOXES] * 2, shapes
    )
    np.testing.assert_array_equal(shape[0], [10, 10])
    np.testing.assert_array_equal(shape[1], [40, 30])
    np.testing.assert_array_equal(anchor[1], [0, 0])  # the whole image: one place only


def test_input_shape_makes_ratios_absolute():
    boxes = _random_boxes(8, seed=5)
    _, shape, _ = run1(
        lambda b: fn.random_bbox_crop(
            b,
            input_shape=[400, 100],
            aspect_ratio=[1.0, 1.0],
            scaling=[0.3, 0.6],
            allow_no_crop=False,
        ),
        boxes,
    )
    for s in shape:
        np.testing.assert_allclose(s[0] * 400, s[1] * 100, rtol=1e-5)


def test_three_dimensional_boxes():
    boxes = _random_boxes(12, seed=6, ndim=3)
    labels = [np.arange(len(b), dtype=np.int32) for b in boxes]
    kw = {
        "scaling": [0.5, 1.0],
        "aspect_ratio": [0.5, 2.0, 0.6, 2.1, 0.4, 1.9],
        "bbox_layout": "xyzXYZ",
    }
    anchor, shape, out, lab, idx = run1(
        lambda b, lab: fn.random_bbox_crop(
            b, lab, allow_no_crop=False, output_bbox_indices=True, **kw
        ),
        boxes,
        labels,
    )
    for i, b in enumerate(boxes):
        s = shape[i]
        assert anchor[i].shape == (3,) and out[i].shape[1] == 6
        assert 0.5 - 1e-6 <= s[0] / s[1] <= 2 + 1e-6 and 0.6 - 1e-6 <= s[0] / s[2] <= 2.1 + 1e-6
        assert 0.4 - 1e-6 <= s[1] / s[2] <= 1.9 + 1e-6
        _check_kept(anchor[i], s, b, out[i], idx[i], layout="xyzXYZ")
        np.testing.assert_array_equal(lab[i], idx[i])


def test_fixed_3d_aspect_ratios():
    boxes = _random_boxes(8, seed=7, ndim=3)
    _, shape, _ = run1(
        lambda b: fn.random_bbox_crop(
            b,
            aspect_ratio=[0.5, 0.5, 0.25, 0.25, 0.5, 0.5],
            scaling=[0.3, 1.0],
            allow_no_crop=False,
        ),
        boxes,
    )
    for s in shape:
        np.testing.assert_allclose(
            [s[0] / s[1], s[0] / s[2], s[1] / s[2]], [0.5, 0.25, 0.5], rtol=1e-5
        )
        assert 0.3 - 1e-6 <= s.max() <= 1 + 1e-6


def test_samples_without_boxes_take_a_window_in_range():
    empty = [np.zeros((0, 4), F)] * 6
    anchor, shape, out, lab = run1(
        lambda b, lab: fn.random_bbox_crop(
            b, lab, thresholds=[1.0], allow_no_crop=False, scaling=[0.3, 0.5], aspect_ratio=[0.5, 2]
        ),
        empty,
        [np.zeros((0,), np.int32)] * 6,
    )
    for a, s, o, la in zip(anchor, shape, out, lab):
        assert o.shape == (0, 4) and la.shape == (0,)
        assert (s >= 0.3 - 1e-6).all() and (s <= 0.5 + 1e-6).all() and (a + s <= 1 + 1e-6).all()


def test_the_same_sample_gets_the_same_window_whatever_the_batch():
    boxes = _random_boxes(8, seed=8)
    kw = {**SSD, "thresholds": [0.0, 0.1], "num_attempts": 3, "all_boxes_above_threshold": False}

    def graph(b):
        return fn.random_bbox_crop(b, output_bbox_indices=True, **kw)

    whole = run(graph, boxes, batch_size=8, seed=11)[0]
    halves = run(graph, [boxes[:4], boxes[4:]], batch_size=4, seed=11, iters=2)
    quarters = run(
        graph, [boxes[i : i + 2] for i in range(0, 8, 2)], batch_size=2, seed=11, iters=4
    )
    for k in range(4):
        got = [s for it in halves for s in it[k]]
        np.testing.assert_array_equal(np.concatenate(got), np.concatenate(whole[k]))
        got = [s for it in quarters for s in it[k]]
        np.testing.assert_array_equal(np.concatenate(got), np.concatenate(whole[k]))
    assert len({tuple(a) for a in whole[0]}) > 2  # windows, not the whole image
    other = run(graph, boxes, batch_size=8, seed=12)[0]
    assert not np.array_equal(np.stack(other[0]), np.stack(whole[0]))  # the seed matters


def test_allow_no_crop_is_one_more_option():
    boxes = _random_boxes(64, seed=9)
    anchor, shape, _ = run1(lambda b: fn.random_bbox_crop(b, thresholds=[0.0], **SSD), boxes)
    whole = np.array([(a == 0).all() and (s == 1).all() for a, s in zip(anchor, shape)])
    assert 0.3 < whole.mean() < 0.7  # two options, drawn uniformly


def test_best_window_and_warning(caplog):
    box = [np.array([[0.45, 0.45, 0.55, 0.55]], F)] * 2
    kw = {**SSD, "thresholds": [0.99], "allow_no_crop": False, "total_num_attempts": 3}
    with caplog.at_level(logging.WARNING, logger="dali"):
        anchor, shape, _ = run1(lambda b: fn.random_bbox_crop(b, **kw), box)
    warnings = [r.getMessage() for r in caplog.records if "best cropping window" in r.getMessage()]
    # (one per sample and iteration; the pipeline may have run ahead)
    assert len(warnings) >= 2 and all("attempted 3 times" in w for w in warnings)
    for a, s in zip(anchor, shape):
        assert (s > 0).all() and (a + s <= 1 + 1e-6).all()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dali"):
        run1(lambda b: fn.random_bbox_crop(b, quiet=True, **kw), box)
    assert not [r for r in caplog.records if "best cropping window" in r.getMessage()]


def test_an_endless_search_is_an_error(monkeypatch):
    monkeypatch.setattr(_crop_search, "MAX_ROUNDS", 30)
    box = [np.array([[0.45, 0.45, 0.55, 0.55]], F)]
    with pytest.raises(Exception, match="total_num_attempts"):
        run1(lambda b: fn.random_bbox_crop(b, thresholds=[0.99], allow_no_crop=False, **SSD), box)


def test_number_of_outputs_and_ops_class():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [BOXES])
        lab = fn.external_source(source=lambda: [LABELS])
        assert len(fn.random_bbox_crop(b)) == 3
        assert len(fn.random_bbox_crop(b, output_bbox_indices=True)) == 4
        assert len(fn.random_bbox_crop(b, lab)) == 4
        outs = ops.RandomBBoxCrop(output_bbox_indices=True)(b, lab)
        assert len(outs) == 5
        return tuple(outs)

    p = pipe()
    out = p.run()
    assert [o.layout() for o in out] == [""] * 5
    assert [str(o.dtype).rsplit(".", 1)[-1] for o in out] == ["FLOAT"] * 3 + ["INT32"] * 2


@pytest.mark.parametrize(
    "inputs,kw,message",
    [
        ([BOXES], {"bbox_layout": "xyXZ"}, "permutation of `xyXY` or `xyWH`"),
        ([BOXES], {"ltrb": False, "bbox_layout": "xyXY"}, "can't be provided at the same time"),
        ([BOXES], {"crop_shape": [10, 10]}, "`input_shape` must be provided"),
        (
            [BOXES],
            {"crop_shape": [10, 10], "input_shape": [20, 20], "allow_no_crop": True},
            "incompatible",
        ),
        (
            [BOXES],
            {"crop_shape": [10, 10], "input_shape": [20, 20], "scaling": [0.5, 1]},
            "incompatible",
        ),
        ([BOXES], {"thresholds": [1.5]}, r"\[0.0, 1.0\]"),
        ([BOXES], {"thresholds": []}, "at least one threshold"),
        ([BOXES], {"num_attempts": 0}, "greater than zero"),
        ([BOXES], {"total_num_attempts": 0}, "greater than zero"),
        ([BOXES], {"threshold_type": "foo"}, "unsupported value"),
        ([BOXES], {"scaling": [0.5, 0.2]}, "min <= max"),
        ([BOXES], {"scaling": [0.5, 0.2, 0.3]}, "Got 3 values"),
        ([BOXES], {"aspect_ratio": [0.5, 1, 1, 2]}, "got 4"),
        ([BOXES], {"aspect_ratio": [-0.5, 1]}, "min <= max"),
        ([BOXES], {"bbox_prune_threshold": 1.5}, r"in \[0, 1\]"),
        ([np.array([[0.1, 0.1, 1.3, 0.3]], F)], {}, "out of bounds"),
        ([np.array([[0.5, 0.5, 0.6, 0.3]], F)], {"bbox_layout": "xyWH"}, "out of bounds"),
        ([np.zeros((2, 5), F)], {}, "coordinates per box"),
        ([np.zeros((8,), F)], {}, r"shape \[N, 4\]"),
        ([BOXES.astype(np.float64)], {}, "FLOAT"),
        ([BOXES], {"crop_shape": [1, 2, 3], "input_shape": [20, 20, 3]}, "2D vector"),
        (
            [BOXES],
            {"crop_shape": [10, 10], "input_shape": [20, 20], "shape_layout": "HD"},
            "permutation",
        ),
    ],
)
def test_errors(inputs, kw, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b: fn.random_bbox_crop(b, **kw), inputs)


@pytest.mark.parametrize(
    "labels,message",
    [
        (LABELS[:2], "3 boxes but labels"),
        (LABELS.astype(np.int64), "INT32"),
        (LABELS.astype(F), "INT32"),
    ],
)
def test_label_errors(labels, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b, lab: fn.random_bbox_crop(b, lab), [BOXES], [labels])


def test_inverted_boxes_are_accepted():
    box = np.array([[0.5, 0.1, 0.3, 0.3]], F)  # DALI 2.4 accepts lo > hi
    _, _, out = run1(lambda b: fn.random_bbox_crop(b), [box])
    np.testing.assert_array_equal(out[0], box)


# -- the windows feed fn.slice and fn.crop -----------------------------------------------------


def _image(h=60, w=80):
    """Pixel (y, x) holds (y, x, 7): a slice tells where it comes from."""
    img = np.full((h, w, 3), 7, np.uint8)
    img[..., 0] = np.arange(h)[:, None]
    img[..., 1] = np.arange(w)[None, :]
    return img


def test_relative_windows_feed_slice():
    img = _image()
    boxes = _random_boxes(4, seed=10)

    def graph(im, b):
        anchor, shape, _ = fn.random_bbox_crop(b, allow_no_crop=False, **SSD)
        return anchor, shape, fn.slice(im, anchor, shape)

    anchor, shape, out = run1(graph, [img] * 4, boxes, layouts=["HWC"])
    for a, s, o in zip(anchor, shape, out):
        # slice's rounding of a relative window: start = round(a·size), end = round((a+s)·size)
        x0, y0 = np.round(a.astype(np.float64) * [80, 60]).astype(int)
        x1, y1 = np.round((a.astype(np.float64) + s) * [80, 60]).astype(int)
        assert abs(o.shape[1] - (x1 - x0)) <= 1 and abs(o.shape[0] - (y1 - y0)) <= 1
        y, x = int(o[0, 0, 0]), int(o[0, 0, 1])  # where the slice starts
        assert abs(x - a[0] * 80) <= 1 and abs(y - a[1] * 60) <= 1
        np.testing.assert_array_equal(o, img[y : y + o.shape[0], x : x + o.shape[1]])


def test_absolute_windows_feed_slice_and_crop():
    img = _image()
    boxes = _random_boxes(4, seed=11)

    def graph(im, b):
        anchor, shape, _ = fn.random_bbox_crop(b, crop_shape=[30, 20], input_shape=[80, 60])
        sliced = fn.slice(im, anchor, shape, normalized_anchor=False, normalized_shape=False)
        # fn.crop places a window by its relative position in the free range
        pos_x = anchor[0] / (80 - 30)
        pos_y = anchor[1] / (60 - 20)
        cropped = fn.crop(im, crop_w=30, crop_h=20, crop_pos_x=pos_x, crop_pos_y=pos_y)
        return anchor, sliced, cropped

    anchor, sliced, cropped = run1(graph, [img] * 4, boxes, layouts=["HWC"])
    for a, s, c in zip(anchor, sliced, cropped):
        x, y = int(a[0]), int(a[1])
        np.testing.assert_array_equal(s, img[y : y + 20, x : x + 30])
        np.testing.assert_array_equal(c, s)


@pytest.mark.gpu
def test_windows_feed_slice_on_the_gpu():
    pytest.importorskip("cupy")
    img = _image()
    boxes = _random_boxes(4, seed=12)

    def graph(im, b):
        anchor, shape, _ = fn.random_bbox_crop(b, allow_no_crop=False, **SSD)
        a2, s2, _ = fn.random_bbox_crop(b, crop_shape=[30, 20], input_shape=[80, 60])
        rel = fn.slice(im, anchor, shape), fn.slice(im.gpu(), anchor, shape)
        ab = fn.slice(im.gpu(), a2, s2, normalized_anchor=False, normalized_shape=False)
        return (*rel, ab, a2)

    @pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=3)
    def pipe():
        im = fn.external_source(source=lambda: [img] * 4, layout="HWC")
        b = fn.external_source(source=lambda: boxes)
        return graph(im, b)

    cpu, gpu, ab, a2 = pipe().run()
    for i in range(4):
        np.testing.assert_array_equal(np.asarray(gpu.as_cpu().at(i)), cpu.at(i))
        x, y = (int(v) for v in a2.at(i))
        np.testing.assert_array_equal(np.asarray(ab.as_cpu().at(i)), img[y : y + 20, x : x + 30])


@pytest.mark.skipif(_crop_search._attempts_kernel() is None, reason="needs Numba")
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"all_boxes_above_threshold": False},
        {"threshold_type": "overlap"},
        {"threshold_type": "overlap", "all_boxes_above_threshold": False},
        {"bbox_prune_threshold": 0.3},
        {
            "allow_no_crop": False,
            "thresholds": [0.5, 0.9],
            "num_attempts": 7,
            "total_num_attempts": 60,
        },
    ],
)
def test_compiled_attempts_give_the_numpy_windows(monkeypatch, kw):
    """A round's attempts evaluated by the compiled pass (2-D boxes, a ratio range): the same
    windows, boxes, labels and indices as the numpy expressions, samples without boxes, boxes
    of no area and inverted boxes among them."""
    samples = _random_boxes(24, seed=4, max_boxes=9)
    samples[3] = np.zeros((0, 4), F)
    samples[5][0] = [0.4, 0.4, 0.4, 0.6]  # no area
    samples[7][1] = [0.6, 0.6, 0.3, 0.2]  # inverted
    labels = [np.arange(len(b), dtype=np.int32) for b in samples]
    args = {"thresholds": [0.0, 0.1, 0.3, 0.5, 0.7, 0.9], "num_attempts": 20, **SSD, **kw}

    def windows():
        return run(
            lambda b, lab: fn.random_bbox_crop(b, lab, output_bbox_indices=True, **args),
            samples,
            labels,
        )

    calls = []
    kernel = _crop_search._attempts_kernel()

    def counting():
        calls.append(1)
        return kernel

    monkeypatch.setattr(_crop_search, "_attempts_kernel", counting)
    compiled = windows()
    assert calls
    monkeypatch.setattr(_crop_search, "_attempts_kernel", lambda: None)
    expressions = windows()
    for got_out, want_out in zip(compiled[0], expressions[0]):  # (one iteration)
        for a, b in zip(got_out, want_out):
            assert a.shape == b.shape and a.tobytes() == b.tobytes()
