"""`fn.bbox_paste`: values observed in DALI 2.4, the shift clamp, agreement with `fn.paste`, per-
sample arguments and errors. DALI 2.4 has no GPU backend for it; neither has `dali`."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops
from dali._ops.detection.bbox_paste import paste_transform
from detection_helpers import run1

F = np.float32
UNIT = np.array([[0.0, 0.0, 1.0, 1.0]], F)


@pytest.mark.parametrize(
    "kw,expected",
    [
        # observed in DALI 2.4 (ltrb [0, 0, 1, 1] and xywh boxes)
        ({"ratio": 2.0, "ltrb": True}, [0.25, 0.25, 0.75, 0.75]),
        (
            {"ratio": 1.55, "paste_x": 0.0, "paste_y": 1.0, "ltrb": True},
            [0.0, 0.3548387, 0.64516133, 1.0],
        ),
        (
            {"ratio": 7.1, "paste_x": 1.0, "paste_y": 1.0, "ltrb": True},
            [0.85915494, 0.85915494, 1.0, 1.0],
        ),
        (
            {"ratio": 3.3, "paste_x": 1.0, "paste_y": 0.3},
            [0.6969697, 0.20909092, 0.3030303, 0.3030303],
        ),
        ({"ratio": 1.0, "paste_x": 0.7, "paste_y": 0.2, "ltrb": True}, [0.0, 0.0, 1.0, 1.0]),
        ({"ratio": 2.0, "paste_x": 1.5}, [0.5, 0.25, 0.5, 0.5]),  # the shift is clamped
    ],
)
def test_observed_values(kw, expected):
    (out,) = run1(lambda b: fn.bbox_paste(b, **kw), [UNIT])
    np.testing.assert_array_equal(out[0], np.array([expected], F))


def test_formula_in_float32():
    rng = np.random.default_rng(0)
    boxes = (rng.random((500, 4)) * 0.5).astype(F)
    boxes[:, 2:] += boxes[:, :2]
    (out,) = run1(
        lambda b: fn.bbox_paste(b, ratio=3.3, paste_x=0.2, paste_y=0.9, ltrb=True), [boxes]
    )
    scale = F(1) / F(3.3)
    mul = (F(3.3) - F(1)) / F(3.3)
    sx, sy = F(0.2) * mul, F(0.9) * mul
    exp = boxes * scale + np.array([sx, sy, sx, sy], F)
    np.testing.assert_array_equal(out[0], exp)


def test_shift_keeps_the_unit_box_inside():
    for ratio in np.linspace(1.0, 9.0, 801, dtype=F):
        scale, sx, sy = paste_transform(ratio, 1.0, 1.0)
        assert scale + sx <= 1 and scale + sy <= 1
        assert sx >= 0  # and is not pushed further than needed: the next float is too far
        assert scale + np.nextafter(sx, F(2)) > 1 or sx == F(1) * (ratio - 1) / ratio


def test_boxes_follow_the_pasted_image():
    """A white rectangle's pixel box, pasted with fn.paste and moved by fn.bbox_paste with the
    same (per-sample) arguments, still frames the rectangle on the canvas (within a pixel)."""
    h, w = 40, 60
    rects = [(5, 10, 20, 35), (0, 0, 40, 60), (22, 41, 39, 59)]  # y0, x0, y1, x1 (exclusive)
    imgs, boxes = [], []
    for y0, x0, y1, x1 in rects:
        img = np.zeros((h, w, 3), np.uint8)
        img[y0:y1, x0:x1] = 255
        imgs.append(img)
        boxes.append(np.array([[x0 / w, y0 / h, x1 / w, y1 / h]], F))
    ratio = [F(2.0), F(1.55), F(3.3)]
    px = [F(0.5), F(0.0), F(1.0)]
    py = [F(0.5), F(1.0), F(0.25)]

    def graph(im, b, r, x, y):
        pasted = fn.paste(im, ratio=r, paste_x=x, paste_y=y, fill_value=0)
        return pasted, fn.bbox_paste(b, ratio=r, paste_x=x, paste_y=y, ltrb=True)

    pasted, moved = run1(graph, imgs, boxes, ratio, px, py, layouts=["HWC"])
    for canvas, box in zip(pasted, moved):
        ys, xs = np.nonzero(canvas[..., 0])
        ch, cw = canvas.shape[:2]
        l, t, r, b = box[0] * F([cw, ch, cw, ch])
        assert abs(l - xs.min()) <= 1 and abs(r - (xs.max() + 1)) <= 1
        assert abs(t - ys.min()) <= 1 and abs(b - (ys.max() + 1)) <= 1


def test_per_sample_arguments_and_xywh():
    boxes = [np.array([[0.1, 0.2, 0.3, 0.4]], F), np.zeros((0, 4), F), UNIT]
    ratio = [F(2), F(3), F(4)]
    (out,) = run1(lambda b, r: fn.bbox_paste(b, ratio=r, paste_x=0.0, paste_y=1.0), boxes, ratio)
    np.testing.assert_allclose(out[0], [[0.05, 0.6, 0.15, 0.2]], atol=1e-7)
    assert out[1].shape == (0, 4)
    np.testing.assert_allclose(out[2], [[0.0, 0.75, 0.25, 0.25]], atol=1e-7)


def test_ops_class_and_layout():
    from dali import pipeline_def

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [UNIT], layout="NB")
        return ops.BBoxPaste(ratio=2, ltrb=True)(b)

    (out,) = pipe().run()
    assert out.layout() == "NB"
    np.testing.assert_array_equal(out.at(0), [[0.25, 0.25, 0.75, 0.75]])


@pytest.mark.parametrize(
    "sample,kw,message",
    [
        (UNIT, {}, "ratio"),  # required
        (UNIT, {"ratio": 0.0}, "must be positive"),
        (np.zeros((3, 3), F), {"ratio": 2.0}, "not a multiple of 4"),
        (UNIT.astype(np.float64), {"ratio": 2.0}, "FLOAT"),
    ],
)
def test_errors(sample, kw, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b: fn.bbox_paste(b, **kw), [sample])


def test_no_gpu_backend():
    with pytest.raises(Exception, match=r"does not support device=\"gpu\""):
        fn.bbox_paste(None, ratio=2, device="gpu")
