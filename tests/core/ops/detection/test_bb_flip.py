"""`fn.bb_flip`: values observed in DALI 2.4, the corner round trip, per-sample
flags, shapes and errors; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops
from detection_helpers import run1
from parity import cpu_gpu, device_id, to_device

F = np.float32


def test_reference_values():
    box = np.array([[0.1, 0.2, 0.3, 0.4]], F)
    xywh, ltrb = run1(lambda b: (fn.bb_flip(b), fn.bb_flip(b, ltrb=True)), [box])
    # DALI's documented example: xywh -> [0.6, 0.2, 0.3, 0.4], ltrb -> [0.7, 0.2, 0.9, 0.4]
    one = F(1)
    x, y, w, h = box[0]
    np.testing.assert_array_equal(
        xywh[0], [[one - (x + w), y, (one - x) - (one - (x + w)), (y + h) - y]]
    )
    np.testing.assert_array_equal(ltrb[0], [[one - F(0.3), y, one - x, F(0.4)]])
    np.testing.assert_allclose(xywh[0], [[0.6, 0.2, 0.3, 0.4]], atol=1e-7)


def test_xywh_boxes_round_trip_through_their_corners():
    """DALI 2.4 (observed on 2000 boxes) writes every xywh box back as ``(x + w) - x`` in
    float32, flipped or not."""
    rng = np.random.default_rng(0)
    boxes = (rng.random((2000, 4)) * 0.5).astype(F)
    (out,) = run1(lambda b: fn.bb_flip(b, horizontal=0), [boxes])
    x, y, w, h = boxes.T
    expected = np.stack([x, y, (x + w) - x, (y + h) - y], axis=1)
    np.testing.assert_array_equal(out[0], expected)
    assert not np.array_equal(out[0], boxes)  # the round trip does change some widths


def test_both_axes_and_no_clamping():
    boxes = np.array([[0.25, 0.5, 0.5, 0.25], [0.9, 0.8, 0.3, 0.4]], F)
    (out,) = run1(lambda b: fn.bb_flip(b, horizontal=1, vertical=1), [boxes])
    np.testing.assert_allclose(out[0], [[0.25, 0.25, 0.5, 0.25], [-0.2, -0.2, 0.3, 0.4]], 1e-6)
    (ltrb,) = run1(lambda b: fn.bb_flip(b, ltrb=True, horizontal=0, vertical=1), [boxes])
    np.testing.assert_allclose(ltrb[0], [[0.25, 0.75, 0.5, 0.5], [0.9, 0.6, 0.3, 0.2]], 1e-6)


def _expected(s, fh, fv):
    b = s.reshape(-1, 4)
    exp = b.copy()
    if fh:
        exp[:, 0], exp[:, 2] = F(1) - b[:, 2], F(1) - b[:, 0]
    if fv:
        exp[:, 1], exp[:, 3] = F(1) - b[:, 3], F(1) - b[:, 1]
    return exp.reshape(s.shape)


def test_per_sample_flags():
    rng = np.random.default_rng(1)
    samples = [rng.random((n, 4)).astype(F) for n in (3, 0, 2, 1)]
    h = [np.int32(v) for v in (1, 1, 0, 0)]
    v = [np.int32(v) for v in (0, 1, 1, 0)]
    (out,) = run1(
        lambda b, hh, vv: fn.bb_flip(b, horizontal=hh, vertical=vv, ltrb=True), samples, h, v
    )
    for s, o, fh, fv in zip(samples, out, h, v):
        assert o.shape == s.shape and o.dtype == F
        np.testing.assert_array_equal(o, _expected(s, fh, fv))


@pytest.mark.parametrize("shape", [(8,), (1, 2, 4), (0,)])
def test_any_shape_of_a_multiple_of_4_values_is_kept(shape):
    s = np.random.default_rng(2).random(shape).astype(F)
    (out,) = run1(lambda b: fn.bb_flip(b, ltrb=True, vertical=1), [s])
    assert out[0].shape == s.shape
    np.testing.assert_array_equal(out[0], _expected(s, 1, 1))


def test_layout_passes_through():
    from dali import pipeline_def

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        b = fn.external_source(source=lambda: [np.zeros((2, 4), F)], layout="NB")
        return fn.bb_flip(b), ops.BbFlip(vertical=1)(b)

    a, b = pipe().run()
    assert a.layout() == "NB" and b.layout() == "NB"


@pytest.mark.parametrize(
    "sample,kw,message",
    [
        (np.zeros((3, 3), F), {}, "not a multiple of 4"),
        (np.zeros((2, 4), np.float64), {}, "FLOAT"),
    ],
)
def test_errors(sample, kw, message):
    with pytest.raises(Exception, match=message):
        run1(lambda b: fn.bb_flip(b, **kw), [sample])


def test_per_sample_flags_must_be_integers():
    with pytest.raises(Exception, match=r"horizontal.*integer flag"):
        run1(lambda b, h: fn.bb_flip(b, horizontal=h), [np.zeros((1, 4), F)], [np.float32(0.5)])


def _flip_batch():
    rng = np.random.default_rng(3)
    return [rng.random((n, 4)).astype(F) * F(0.6) for n in (5, 0, 1, 130)]


@pytest.mark.parametrize("ltrb", [False, True])
@cpu_gpu()
def test_parity(ltrb, device):
    from dali import pipeline_def

    boxes = _flip_batch()

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device))
    def pipe():
        b = to_device(fn.external_source(source=lambda: boxes), device)
        h = fn.external_source(source=lambda: [np.int32(v) for v in (1, 0, 1, 0)])
        v = fn.external_source(source=lambda: [np.int32(v) for v in (1, 1, 0, 0)])
        return fn.bb_flip(b, horizontal=h, vertical=v, ltrb=ltrb), fn.bb_flip(b, ltrb=ltrb)

    return pipe().run()
