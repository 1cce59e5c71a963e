"""fn.equalize (and its deprecated alias fn.experimental.equalize): OpenCV's equalizeHist per
channel and frame, every layout, ragged batches, flat and empty images, errors and CPU/GPU
parity."""

from __future__ import annotations

import warnings

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(3)
IMG = RNG.normal(100, 20, (30, 40, 3)).clip(0, 255).astype(np.uint8)


def _run(batch, layout, op=None):
    op = op or fn.equalize
    pipe = dali.Pipeline(batch_size=len(batch), num_threads=2, device_id=None)
    with pipe:
        src = fn.external_source(lambda: batch, layout=layout)
        pipe.set_outputs(op(src))
    return pipe.run()[0]


def _eq_ref(plane):
    """equalizeHist written out in float64: exact up to float32 ties, which these avoid."""
    hist = np.bincount(plane.ravel(), minlength=256)
    lo = int(np.argmax(hist > 0))
    if hist[lo] == plane.size:
        return plane.copy()
    cum = np.cumsum(hist) - hist[lo]
    lut = np.rint(cum * 255.0 / (plane.size - hist[lo])).clip(0, 255).astype(np.uint8)
    return lut[plane]


def _per_channel(x):
    return np.stack([_eq_ref(x[..., c]) for c in range(x.shape[-1])], -1)


def test_hwc_matches_reference_and_opencv():
    out = _run([IMG, IMG], "HWC")
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    np.testing.assert_array_equal(out.samples()[0], _per_channel(IMG))
    cv2 = pytest.importorskip("cv2")
    ref = np.stack([cv2.equalizeHist(np.ascontiguousarray(IMG[..., c])) for c in range(3)], -1)
    np.testing.assert_array_equal(out.samples()[1], ref)


def test_stretches_to_full_range():
    out = _run([IMG], "HWC").samples()[0]
    for c in range(3):
        assert out[..., c].min() == 0 and out[..., c].max() == 255


@pytest.mark.parametrize(
    ("layout", "data", "ref"),
    [
        ("HW", IMG[..., 0].copy(), lambda: _eq_ref(IMG[..., 0])),
        (
            "CHW",
            np.ascontiguousarray(IMG.transpose(2, 0, 1)),
            lambda: _per_channel(IMG).transpose(2, 0, 1),
        ),
        (
            "FHW",
            np.stack([IMG[..., 0], IMG[..., 1]]),
            lambda: _per_channel(IMG[..., :2]).transpose(2, 0, 1),
        ),
        (
            "FHWC",
            np.stack([IMG, IMG[::-1]]),
            lambda: np.stack([_per_channel(IMG), _per_channel(IMG)[::-1]]),
        ),
        (
            "FCHW",
            np.stack([IMG.transpose(2, 0, 1)] * 2),
            lambda: np.stack([_per_channel(IMG).transpose(2, 0, 1)] * 2),
        ),
    ],
)
def test_layouts(layout, data, ref):
    out = _run([data], layout)
    assert out.layout() == layout
    np.testing.assert_array_equal(out.samples()[0], ref())


@pytest.mark.parametrize(("ndim", "layout"), [(2, "HW"), (3, "HWC"), (4, "FHWC")])
def test_default_layouts(ndim, layout):
    data = {2: IMG[..., 0].copy(), 3: IMG, 4: IMG[None]}[ndim]
    out = _run([data], None)
    assert out.layout() == layout


def test_ragged_flat_and_empty():
    flat = np.full((4, 5, 3), 7, np.uint8)
    two = np.zeros((3, 3, 1), np.uint8)
    two[0] = 200
    empty = np.zeros((0, 4, 3), np.uint8)
    out = _run([IMG, flat, two, empty], "HWC").samples()
    np.testing.assert_array_equal(out[0], _per_channel(IMG))
    np.testing.assert_array_equal(out[1], flat)  # one value: kept
    np.testing.assert_array_equal(out[2][..., 0], [[255] * 3, [0] * 3, [0] * 3])
    assert out[3].shape == (0, 4, 3)


def test_float32_ties_round_like_opencv():
    # 255 / 6 · 3 = 127.5 exactly: OpenCV rounds half to even
    x = np.array([[0, 1, 2, 3, 4, 5, 6]], np.uint8)
    out = _run([x], "HW").samples()[0]
    np.testing.assert_array_equal(out, [[0, 42, 85, 128, 170, 212, 255]])


def test_deprecated_alias():
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out = _run([IMG], "HWC", op=fn.experimental.equalize)
    np.testing.assert_array_equal(out.samples()[0], _per_channel(IMG))


@pytest.mark.parametrize(
    ("data", "layout", "text"),
    [
        (IMG.astype(np.float32), "HWC", "Unsupported input type for equalize operator: float32"),
        (IMG.astype(np.int16), "HWC", "Expected input type: `uint8_t`"),
        (np.zeros((4, 5, 129), np.uint8), "HWC", r"\[1, 128\] channels.*index 0 has 129"),
        (np.zeros((4, 5, 0), np.uint8), "HWC", "has 0 channels"),
        (IMG, "DHW", "unsupported input layout 'DHW'"),
        (IMG[None, None], None, "5 dimensions"),
    ],
)
def test_errors(data, layout, text):
    with pytest.raises(Exception, match=text) as info:
        _run([data], layout)
    assert "equalize" in str(info.value)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    seq = np.stack([IMG, IMG[::-1]])
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        u = to_device(fn.external_source(lambda: [IMG, IMG[::-1].copy()], layout="HWC"), device)
        r = to_device(fn.external_source(lambda: [IMG, IMG[:7, :9].copy()], layout="HWC"), device)
        s = to_device(fn.external_source(lambda: [seq, seq[:1]], layout="FHWC"), device)
        pipe.set_outputs(fn.equalize(u), fn.equalize(r), fn.equalize(s))
    return pipe.run()
