"""fn.jpeg_compression_distortion: an OpenCV JPEG round trip of each RGB image (or frame),
quality per sample and clamped, shapes/types/layouts kept, errors, and CPU/GPU parity."""

from __future__ import annotations

import cv2
import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

_RNG = np.random.default_rng(4)
IMG = cv2.GaussianBlur(_RNG.integers(0, 256, (40, 52, 3)).astype(np.uint8), (5, 5), 2)
IMG2 = _RNG.integers(0, 256, (17, 23, 3)).astype(np.uint8)


def _run(build, *, batch_size=2, dev=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev)
    with pipe:
        pipe.set_outputs(build())
    return pipe.run()[0]


def _jpeg(data=(IMG, IMG2), layout="HWC", **kw):
    def build():
        src = fn.external_source(lambda: list(data), layout=layout)
        return fn.jpeg_compression_distortion(src, **kw)

    return _run(build)


def _ref(img, q):
    ok, enc = cv2.imencode(".jpg", img[..., ::-1].copy(), [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)[..., ::-1]


@pytest.mark.parametrize(("quality", "used"), [(None, 50), (1, 1), (90, 90), (0, 1), (300, 100)])
def test_round_trip_through_jpeg(quality, used):
    out = _jpeg(**({} if quality is None else {"quality": quality}))
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    for got, img in zip(out.samples(), (IMG, IMG2)):
        assert got.shape == img.shape
        np.testing.assert_array_equal(got, _ref(img, used))


def test_lower_quality_distorts_more():
    err = [np.abs(_jpeg(quality=q).samples()[0].astype(int) - IMG).mean() for q in (5, 50, 100)]
    assert err[0] > err[1] > err[2]


def test_per_sample_quality_and_sequences():
    def build():
        q = fn.external_source(lambda: [np.int32(10), np.int32(95)])
        return fn.jpeg_compression_distortion(
            fn.external_source(lambda: [IMG, IMG2], layout="HWC"), quality=q
        )

    out = _run(build).samples()
    np.testing.assert_array_equal(out[0], _ref(IMG, 10))
    np.testing.assert_array_equal(out[1], _ref(IMG2, 95))
    seq = np.stack([IMG, IMG[::-1]])
    got = _jpeg((seq, seq), "FHWC", quality=20)
    assert got.layout() == "FHWC"
    np.testing.assert_array_equal(got.samples()[0][1], _ref(IMG[::-1], 20))
    assert _jpeg(layout=None).layout() == "HWC"  # no layout: HWC


@pytest.mark.parametrize(
    ("data", "layout", "text"),
    [
        ((np.zeros((8, 8, 4), np.uint8),) * 2, "HWC", "3 channels"),
        ((IMG.astype(np.float32),) * 2, "HWC", "UINT8"),
        ((IMG.transpose(2, 0, 1).copy(),) * 2, "CHW", "layout"),
        ((np.zeros((0, 8, 3), np.uint8),) * 2, "HWC", "empty"),
    ],
)
def test_errors(data, layout, text):
    with pytest.raises(Exception, match=text) as e:
        _jpeg(data, layout)
    assert "jpeg_compression_distortion" in str(e.value)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        x = to_device(fn.external_source(lambda: [IMG, IMG2], layout="HWC"), device)
        q = fn.external_source(lambda: [np.int32(10), np.int32(70)])
        pipe.set_outputs(fn.jpeg_compression_distortion(x, quality=q))
    return pipe.run()
