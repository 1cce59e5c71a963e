"""`fn.bbox_rotate`: values observed in DALI 2.4, the geometry of `fn.rotate` (canvas, centre,
direction), the modes, the removal of boxes with their labels, per-sample arguments, shapes
and errors."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, pipeline_def, types
from dali._ops.detection.bbox_rotate import rotate_boxes
from detection_helpers import run1

F = np.float32
BOX = np.array([[0.1, 0.2, 0.5, 0.6]], F)
TWO = np.array([[0.1, 0.2, 0.5, 0.6], [0.7, 0.7, 0.99, 0.95]], F)


def _rotate(boxes, **kw):
    (out,) = run1(lambda b: fn.bbox_rotate(b, **kw), [boxes])
    return out[0]


# -- values DALI 2.4 gives (angle 30°, a 200×100 image: a 224×187 canvas) -----------------------


@pytest.mark.parametrize(
    "kw,expected",
    [
        ({}, [0.12374094873666763, 0.36180445551872253, 0.5223214626312256, 0.7588310837745667]),
        (
            {"bbox_layout": "xyWH"},
            [0.12374094873666763, 0.3086129426956177, 0.520547091960907, 0.5423485040664673],
        ),
        (
            {"bbox_normalized": False},
            [0.5840606689453125, 100.62193298339844, 1.1304779052734375, 101.16835021972656],
        ),
        (
            {"mode": "halfway"},
            [0.13410036265850067, 0.4078696072101593, 0.5119620561599731, 0.7127659320831299],
        ),
        (
            {"mode": "fixed"},
            [0.1444597691297531, 0.45393478870391846, 0.5016026496887207, 0.6667007207870483],
        ),
        ({"size": [50.7, 60.2]}, [0.0, 0.0, 0.5833333730697632, 1.0]),
        ({"keep_size": True}, [0.07858986, 0.24019237, 0.525, 0.98660254]),
    ],
)
def test_reference_values(kw, expected):
    out = _rotate(BOX, angle=30.0, input_shape=[100, 200], **kw)
    np.testing.assert_array_equal(out, np.array([expected], F))


def test_reference_values_of_a_batch():
    out = _rotate(TWO, angle=30.0, input_shape=[100, 200])
    np.testing.assert_array_equal(
        out,
        np.array(
            [
                [0.12374095, 0.36180446, 0.52232146, 0.7588311],
                [0.69929034, 0.33149204, 0.97933257, 0.6009103],
            ],
            F,
        ),
    )


# -- geometry: where fn.rotate puts the pixels ----------------------------------------------------


def _content_box(img):
    """``[x0, y0, x1, y1]`` (pixel edges) of the non-zero pixels."""
    ys, xs = np.nonzero(img[..., 0])
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float64)


def _rotated_image_and_box(h, w, box, angle, **kw):
    img = np.zeros((h, w, 1), np.uint8)
    x0, y0, x1, y1 = box
    img[y0:y1, x0:x1] = 255

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        im = fn.external_source(source=lambda: [img], layout="HWC")
        b = types.Constant(np.array([box], F))
        boxes = fn.bbox_rotate(b, angle=angle, input_shape=im.shape(), bbox_normalized=False, **kw)
        rotated = fn.rotate(im, angle=angle, fill_value=0, interp_type=types.INTERP_NN, **kw)
        return rotated, boxes

    rotated, boxes = pipe().run()
    return np.array(rotated.at(0)), np.array(boxes.at(0))


@pytest.mark.parametrize("angle", [90.0, 180.0, -90.0, 270.0])
@pytest.mark.parametrize("kw", [{}, {"keep_size": True}, {"size": (70, 90)}])
def test_quarter_turns_match_rotate_exactly(angle, kw):
    img, boxes = _rotated_image_and_box(40, 60, (5, 8, 25, 20), angle, **kw)
    if kw.get("size"):
        assert img.shape[:2] == (70, 90)
    np.testing.assert_allclose(boxes[0], _content_box(img), atol=1e-4)


@pytest.mark.parametrize("angle", [30.0, -17.5, 60.0, 135.0, -200.0])
@pytest.mark.parametrize("kw", [{}, {"keep_size": True}, {"size": (81, 77)}])
def test_boxes_enclose_the_rotated_content(angle, kw):
    """The expanded box is the rotated box's bounding box: the content of a filled rectangle
    rotated by fn.rotate (nearest neighbour) is inside it, touching each side within a pixel."""
    img, boxes = _rotated_image_and_box(50, 70, (10, 12, 40, 30), angle, **kw)
    content = _content_box(img)
    box = boxes[0]
    assert np.all(np.abs(box - content) <= 1.0), (box, content)


def test_canvas_is_the_rotate_canvas():
    """Relative boxes of the whole image come back as the rotated image's place on the canvas
    (`fn.rotate`'s size, parity rule included)."""
    for h, w, angle in [(40, 60, 45.0), (41, 60, 45.0), (100, 200, 30.0), (33, 17, 100.0)]:
        img, _ = _rotated_image_and_box(h, w, (0, 0, w, h), angle)
        out = _rotate(np.array([[0, 0, 1, 1]], F), angle=angle, input_shape=[h, w])
        ch, cw = img.shape[:2]
        px = out[0].astype(np.float64) * [cw, ch, cw, ch]
        assert np.all(np.abs(px - _content_box(img)) <= 1.0)


def test_direction_is_counter_clockwise():
    # the top half of a landscape image goes to the left half after a 90° turn
    out = _rotate(np.array([[0.0, 0.0, 1.0, 0.5]], F), angle=90.0, input_shape=[40, 60])
    np.testing.assert_allclose(out, [[0.0, 0.0, 0.5, 1.0]], atol=1e-6)
    out = _rotate(np.array([[0.0, 0.0, 1.0, 0.5]], F), angle=-90.0, input_shape=[40, 60])
    np.testing.assert_allclose(out, [[0.5, 0.0, 1.0, 1.0]], atol=1e-6)


# -- modes -------------------------------------------------------------------------------------


def test_fixed_mode_keeps_the_size_and_swaps_it_with_the_longer_side():
    box = np.array([[40.0, 45.0, 60.0, 55.0]], F)  # 20×10 at the centre of 100×100
    kw = {"input_shape": [100, 100], "bbox_normalized": False, "mode": "fixed", "keep_size": True}
    out = _rotate(box, angle=20.0, **kw)[0]
    np.testing.assert_allclose(out[2:] - out[:2], [20, 10], atol=1e-4)
    out = _rotate(box, angle=80.0, **kw)[0]
    np.testing.assert_allclose(out[2:] - out[:2], [10, 20], atol=1e-4)
    np.testing.assert_allclose((out[2:] + out[:2]) / 2, [50, 50], atol=1e-4)


def test_halfway_is_between_expand_and_fixed():
    box = np.array([[30.0, 40.0, 60.0, 55.0]], F)
    kw = {"angle": 33.0, "input_shape": [100, 100], "bbox_normalized": False}
    e, h, f = (_rotate(box, mode=m, **kw)[0] for m in ("expand", "halfway", "fixed"))
    np.testing.assert_allclose(h, (e + f) / 2, atol=1e-4)


# -- removal and labels ------------------------------------------------------------------------


def test_boxes_are_clipped_and_removed_with_their_labels():
    boxes = np.array([[0.0, 0.0, 0.2, 0.2], [0.4, 0.4, 0.6, 0.6], [0.9, 0.1, 1.0, 0.3]], F)
    for labels in (np.array([1, 2, 3], np.int32), np.array([[1], [2], [3]], np.int32)):
        out, lab = run1(
            lambda b, lab: tuple(
                fn.bbox_rotate(
                    b,
                    lab,
                    angle=45.0,
                    input_shape=[100, 100],
                    keep_size=True,
                    remove_threshold=0.4,
                )
            ),
            [boxes],
            [labels],
        )
        # after a 45° turn 27% of the first box's (expanded) area is left, 36% of the last's
        assert out[0].shape == (1, 4)
        np.testing.assert_array_equal(lab[0], labels[1:2])
        assert lab[0].dtype == np.int32 and lab[0].ndim == labels.ndim
        assert np.all((out[0] >= 0) & (out[0] <= 1))


@pytest.mark.parametrize("threshold,kept", [(0.0, 2), (0.4, 2), (0.45, 1), (0.5, 1), (0.6, 0)])
def test_remove_threshold(threshold, kept):
    # no rotation (keep_size): a box half outside the canvas, and one 60% outside
    boxes = np.array([[-0.1, 0.2, 0.1, 0.4], [0.8, 0.2, 1.3, 0.4]], F)
    out = _rotate(
        boxes, angle=0.0, input_shape=[10, 10], keep_size=True, remove_threshold=threshold
    )
    assert len(out) == kept
    if kept:
        assert out[:, 0].min() >= 0 and out[:, 2].max() <= 1


def test_boxes_without_area_are_removed():
    boxes = np.array([[0.2, 0.2, 0.2, 0.5], [0.3, 0.3, 0.4, 0.4]], F)
    out = _rotate(boxes, angle=90.0, input_shape=[100, 100], remove_threshold=0.0)
    assert out.shape == (1, 4)  # 0 / 0 of the area left is below any threshold
    # turned by 10°, the line's corners enclose an area: it is kept
    assert _rotate(boxes, angle=10.0, input_shape=[100, 100]).shape == (2, 4)


def test_samples_without_boxes():
    out, lab = run1(
        lambda b, lab: tuple(fn.bbox_rotate(b, lab, angle=10.0, input_shape=[10, 20])),
        [np.zeros((0, 4), F), TWO],
        [np.zeros((0, 1), np.int32), np.array([[4], [5]], np.int32)],
    )
    assert out[0].shape == (0, 4) and lab[0].shape == (0, 1)
    assert out[1].shape == (2, 4) and lab[1].tolist() == [[4], [5]]


# -- arguments ---------------------------------------------------------------------------------


def test_per_sample_arguments():
    boxes = [BOX, TWO, BOX]
    angles = [np.array(a, F) for a in (30.0, -45.0, 200.0)]
    shapes = [np.array(s, np.int64) for s in ([100, 200, 3], [64, 48, 1], [17, 300, 3])]
    (out,) = run1(lambda b, a, s: fn.bbox_rotate(b, angle=a, input_shape=s), boxes, angles, shapes)
    for i in range(3):
        (alone,) = run1(
            lambda b, i=i: fn.bbox_rotate(
                b, angle=float(angles[i]), input_shape=shapes[i].tolist()
            ),
            [boxes[i]],
        )
        np.testing.assert_array_equal(out[i], alone[0])
    np.testing.assert_array_equal(out[0], _rotate(BOX, angle=30.0, input_shape=[100, 200]))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.float32])
def test_per_sample_size_is_floored(dtype):
    size = [np.array([50.7, 60.2]).astype(dtype)]
    (out,) = run1(
        lambda b, s: fn.bbox_rotate(b, angle=30.0, input_shape=[100, 200], size=s), [BOX], size
    )
    np.testing.assert_array_equal(
        out[0], _rotate(BOX, angle=30.0, input_shape=[100, 200], size=[50, 60])
    )


def test_shape_layout_picks_width_and_height():
    ref = _rotate(BOX, angle=30.0, input_shape=[100, 200])
    np.testing.assert_array_equal(
        _rotate(BOX, angle=30.0, input_shape=[200, 100], shape_layout="WH"), ref
    )
    np.testing.assert_array_equal(
        _rotate(BOX, angle=30.0, input_shape=[3, 100, 200], shape_layout="CHW"), ref
    )


def test_rotate_boxes_function():
    b = np.array([[10.0, 20.0, 30.0, 60.0]], F)
    wh = np.float32([[100, 100]])
    out, keep = rotate_boxes(b, np.float32([180]), wh, wh, normalized=False)
    np.testing.assert_allclose(out, [[70, 40, 90, 80]], atol=1e-4)
    assert keep.tolist() == [True]
    out, keep = rotate_boxes(np.zeros((0, 4), F), np.zeros(0, F), wh, wh)
    assert out.shape == (0, 4) and keep.shape == (0,)


def test_number_of_outputs_types_and_ops_class():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [TWO])
        lab = fn.external_source(source=lambda: [np.array([1, 2], np.int32)])
        single = fn.bbox_rotate(b, angle=10.0, input_shape=[10, 10])
        assert not isinstance(single, (list, tuple))
        assert single.shape() is not None
        outs = ops.BBoxRotate(angle=10.0, input_shape=[10, 10])(b, lab)
        assert len(outs) == 2
        return (single, *outs)

    out = pipe().run()
    assert [o.layout() for o in out] == [""] * 3
    assert [str(o.dtype).rsplit(".", 1)[-1] for o in out] == ["FLOAT", "FLOAT", "INT32"]


# -- errors ------------------------------------------------------------------------------------

SHAPE = {"input_shape": [100, 200]}


@pytest.mark.parametrize(
    "boxes,kw,message",
    [
        (BOX, {"input_shape": [1, 2]}, "angle"),
        (BOX, {"angle": 1.0}, "input_shape"),
        (BOX, {"angle": 1.0, **SHAPE, "mode": "foo"}, "Unknown mode: foo"),
        (BOX, {"angle": 1.0, **SHAPE, "bbox_layout": "xyXZ"}, "Unknown bbox_layout: xyXZ"),
        (BOX, {"angle": 1.0, **SHAPE, "shape_layout": "HC"}, "does not contain 'W' and/or 'H'"),
        (BOX, {"angle": 1.0, **SHAPE, "remove_threshold": 1.0}, r"Index 1.000000 out of range"),
        (BOX, {"angle": 1.0, **SHAPE, "remove_threshold": -0.1}, r"Index -0.100000 out of"),
        (BOX, {"angle": 1.0, "input_shape": [100]}, "ndim is smaller than the `shape_layout`"),
        (
            BOX,
            {"angle": 1.0, "input_shape": [3, 100], "shape_layout": "CHW"},
            "ndim is smaller than the `shape_layout`",
        ),
        (BOX, {"angle": 1.0, **SHAPE, "keep_size": True, "size": [5, 6]}, "mutually exclusive"),
        (BOX, {"angle": 1.0, **SHAPE, "size": [5, 6, 3]}, "exactly two elements"),
        (BOX.astype(np.float64), {"angle": 1.0, **SHAPE}, "float32"),
        (np.zeros((2, 5), F), {"angle": 1.0, **SHAPE}, r"should be \[N,4\], got 2 x 5"),
        (np.zeros((8,), F), {"angle": 1.0, **SHAPE}, r"should be \[N,4\], got 8"),
    ],
)
def test_errors(boxes, kw, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b: fn.bbox_rotate(b, **kw), [boxes])


@pytest.mark.parametrize(
    "labels,message",
    [
        (np.array([1, 2], np.int64), "must be int32"),
        (np.array([[1, 2]], np.int32), r"should be \[N\] or \[N, 1\], got 1 x 2"),
        (np.array([[1, 2], [3, 4]], np.int32), r"got 2 x 2"),
        (
            np.array([1, 2, 3], np.int32),
            "Number of labels must match number of boxes. Got: 3 and 2",
        ),
    ],
)
def test_label_errors(labels, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b, lab: tuple(fn.bbox_rotate(b, lab, angle=1.0, **SHAPE)), [TWO], [labels])


@pytest.mark.parametrize(
    "name,value,message",
    [
        ("angle", np.array([1.0, 2.0], F), "exactly one element per sample"),
        ("angle", np.array(30.0), "FLOAT"),
        ("angle", np.array(30, np.int32), "FLOAT"),
        ("input_shape", np.array([100.0, 200.0], F), "Expected an integral type"),
        ("size", np.array([50.0, 60.0]), "must be int32, int64, uint32 or float"),
        ("size", np.array([50, 60], np.uint8), "must be int32, int64, uint32 or float"),
        ("size", np.array([50, 60, 3], F), "`size` tensor argument must be exactly two"),
    ],
)
def test_per_sample_argument_errors(name, value, message):
    kw = {"angle": 1.0, **SHAPE}
    kw.pop(name, None)
    with pytest.raises(Exception, match=message):
        run1(lambda b, v: fn.bbox_rotate(b, **kw, **{name: v}), [BOX], [value])
