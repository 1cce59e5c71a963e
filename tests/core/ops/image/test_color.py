"""Colour operators: color_twist, hsv, hue, saturation,
brightness_contrast, brightness, contrast."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(11).integers(0, 256, (24, 32, 3)).astype(np.uint8)
RGB2YIQ = np.array(
    [[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]], dtype=np.float32
).astype(np.float64)


def _run(build, *, batch_size=2, device_id=None, seed=5):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _img(value=IMG, layout="HWC"):
    return types.Constant(value, layout=layout)


def _round(x):
    return np.trunc(x + np.copysign(0.5, x))


def _yiq_reference(img, hue=0.0, sat=1.0, value=1.0):
    """The YIQ-space transform computed independently in float64."""
    h = math.radians(hue)
    rot = np.array(
        [[1, 0, 0], [0, math.cos(h), math.sin(h)], [0, -math.sin(h), math.cos(h)]]
    ) @ np.diag([1, sat, sat])
    m = np.linalg.inv(RGB2YIQ) @ rot @ RGB2YIQ * value
    return img.astype(np.float64) @ m.T


def _to_u8(x):
    return np.clip(_round(x), 0, 255).astype(np.uint8)


# -- color_twist and the YIQ family ----------------------------------------------------------------


def test_color_twist_defaults_are_the_exact_identity():
    f32 = IMG.astype(np.float32) / 255
    (a, b) = _run(lambda: (fn.color_twist(_img()), fn.color_twist(_img(f32))))
    assert a.dtype == types.UINT8 and a.layout() == "HWC"
    np.testing.assert_array_equal(a.as_array()[0], IMG)
    assert b.dtype == types.FLOAT
    np.testing.assert_array_equal(b.as_array()[0], f32)


def test_brightness_half_multiplies_and_rounds():
    (a, b) = _run(
        lambda: (fn.color_twist(_img(), brightness=0.5), fn.brightness(_img(), brightness=0.5))
    )
    expected = _round(IMG * 0.5).astype(np.uint8)  # halves round up
    np.testing.assert_array_equal(a.as_array()[0], expected)
    np.testing.assert_array_equal(b.as_array()[0], expected)


def test_saturation_zero_gives_bt601_grey():
    (a, b) = _run(
        lambda: (fn.saturation(_img(), saturation=0), fn.color_twist(_img(), saturation=0))
    )
    grey = a.as_array()[0].astype(int)
    assert np.ptp(grey, axis=2).max() <= 1  # all three channels equal to within 1
    luma = IMG.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    diff = np.abs(grey - luma[..., None])
    # YIQ->RGB (the exact inverse) maps Y to (0.9997, 0.9996, 1.0028) x Y: rounding + 0.3 %
    assert diff.mean() < 0.6 and diff.max() < 0.5 + 0.003 * 255
    np.testing.assert_array_equal(b.as_array()[0], a.as_array()[0])


@pytest.mark.parametrize("hue", [30.0, 90.0, -45.0, 180.0])
def test_hue_rotates_in_yiq_space_in_degrees(hue):
    (a, b, c) = _run(
        lambda: (
            fn.hue(_img(), hue=hue),
            fn.hsv(_img(), hue=hue),
            fn.color_twist(_img(), hue=hue),
        )
    )
    ref = _to_u8(_yiq_reference(IMG, hue=hue))
    for out in (a, b, c):
        assert np.abs(out.as_array()[0].astype(int) - ref.astype(int)).max() <= 1


def test_hue_full_turn_is_identity():
    (a,) = _run(lambda: fn.hue(_img(), hue=360))
    np.testing.assert_array_equal(a.as_array()[0], IMG)


def test_hsv_saturation_value_and_default_dtype():
    f32 = IMG.astype(np.float32)
    (a, b, c) = _run(
        lambda: (
            fn.hsv(_img(), saturation=0.5, value=0.8),
            fn.hsv(_img(f32), value=0.5),
            fn.hsv(_img(f32), value=0.5, dtype=types.FLOAT),
        )
    )
    ref = _to_u8(_yiq_reference(IMG, sat=0.5, value=0.8))
    assert np.abs(a.as_array()[0].astype(int) - ref.astype(int)).max() <= 1
    assert b.dtype == types.UINT8  # hsv's dtype defaults to UINT8, whatever the input
    assert c.dtype == types.FLOAT
    np.testing.assert_allclose(c.as_array()[0], f32 * 0.5, atol=1e-3)


def test_color_twist_contrast_uses_half_range():
    f = IMG.astype(np.float32) / 255
    (a, b, c) = _run(
        lambda: (
            fn.color_twist(_img(), contrast=0),
            fn.color_twist(_img(), contrast=0.5, brightness=1.2),
            fn.color_twist(_img(f), contrast=0),
        )
    )
    assert np.all(a.as_array()[0] == 128)
    ref = _to_u8(1.2 * (0.5 * IMG.astype(np.float64) + 64))
    assert np.abs(b.as_array()[0].astype(int) - ref.astype(int)).max() <= 1
    np.testing.assert_allclose(c.as_array()[0], 0.5, atol=1e-6)


def test_color_twist_per_sample_arguments():
    def build():
        b = fn.random.uniform(range=(0.5, 1.5))
        return fn.color_twist(_img(), brightness=b), b

    out, b = _run(build, batch_size=4)
    for i in range(4):
        ref = _to_u8(IMG.astype(np.float64) * float(b.at(i)))
        assert np.abs(out.at(i).astype(int) - ref.astype(int)).max() <= 1


def test_color_twist_ragged_and_sequences():
    a = IMG[:10, :7]
    c = IMG[:5, :20]
    seq = np.stack([IMG, IMG[::-1]])
    (r, s) = _run(
        lambda: (
            fn.color_twist(fn.external_source(lambda: [a.copy(), c.copy()], layout="HWC"), hue=30),
            fn.saturation(_img(seq, "FHWC"), saturation=0),
        )
    )
    for i, img in enumerate((a, c)):
        ref = _to_u8(_yiq_reference(img, hue=30))
        assert np.abs(r.at(i).astype(int) - ref.astype(int)).max() <= 1
    assert s.layout() == "FHWC" and np.ptp(s.as_array()[0].astype(int), axis=3).max() <= 1


def test_color_without_opencv_matches(monkeypatch):
    def build():
        b = fn.random.uniform(range=(0.5, 1.5))
        return (
            fn.brightness_contrast(_img(), brightness=b, contrast=0.7),
            fn.brightness(_img(), brightness=1.3, dtype=types.FLOAT16),
            fn.hsv(_img(), hue=40, saturation=0.5),
        )

    with_cv2 = _run(build, batch_size=3)
    import importlib

    common = importlib.import_module("dali._ops.image._common")
    monkeypatch.setattr(common, "_CV2", [None])  # as if OpenCV were missing
    without = _run(build, batch_size=3)
    for k, (a, b) in enumerate(zip(with_cv2, without)):
        diff = np.abs(a.as_array().astype(np.float64) - b.as_array().astype(np.float64))
        assert diff.max() <= (1 if k == 2 else 0)  # the lookup tables are exact


def test_color_ops_need_three_channels():
    rgba = np.zeros((4, 4, 4), np.uint8)
    with pytest.raises(RuntimeError, match=r"dali.fn.hsv.*3-channel"):
        _run(lambda: fn.hsv(_img(rgba), hue=10))


@pytest.mark.parametrize("op", [fn.color_twist, fn.hsv, fn.brightness_contrast])
def test_color_dtype_errors_name_the_argument(op):
    with pytest.raises(Exception) as e:
        _run(lambda: op(_img(), dtype=types.BOOL))
    assert "`dtype`" in str(e.value) and op.__name__ in str(e.value)


def test_color_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        h = fn.hsv(_img(IMG.astype(np.float32)))
        t = fn.color_twist(_img(), dtype=types.FLOAT)
        b = fn.brightness(_img())
    assert (h.dtype, h.layout) == (types.UINT8, "HWC")
    assert t.dtype == types.FLOAT and b.dtype == types.UINT8


# -- brightness_contrast, brightness, contrast ---------------------------------------------------


def test_brightness_contrast_observed_formula():
    x = np.arange(256, dtype=np.uint8).reshape(16, 16, 1)
    (out,) = _run(lambda: fn.brightness_contrast(_img(x), brightness=1.5, contrast=0.5))
    xf = x.astype(np.float64)
    expected = np.clip(np.floor(1.5 * (128 + 0.5 * (xf - 128)) + 0.5), 0, 255)
    np.testing.assert_array_equal(out.as_array()[0], expected)
    centre_127_5 = np.clip(np.floor(1.5 * (127.5 + 0.5 * (xf - 127.5)) + 0.5), 0, 255)
    assert np.any(out.as_array()[0] != centre_127_5)  # the centre is 128, not 127.5


def test_brightness_contrast_float_output_does_not_rescale():
    (out,) = _run(lambda: fn.brightness_contrast(_img(), dtype=types.FLOAT))
    assert out.dtype == types.FLOAT and out.as_array().max() == 255.0
    np.testing.assert_array_equal(out.as_array()[0], IMG.astype(np.float32))


def test_brightness_shift_uses_output_range():
    f = IMG.astype(np.float32) / 255
    (u8, fl, u8f) = _run(
        lambda: (
            fn.brightness(_img(), brightness_shift=0.1),
            fn.brightness(_img(f), brightness_shift=0.1),
            fn.brightness(_img(), brightness_shift=0.1, dtype=types.FLOAT),
        )
    )
    np.testing.assert_array_equal(u8.as_array()[0], _to_u8(IMG + np.float32(25.5)))
    np.testing.assert_allclose(fl.as_array()[0], f + 0.1, atol=1e-6)
    np.testing.assert_allclose(u8f.as_array()[0], IMG + 0.1, atol=1e-4)  # range of FLOAT is 1


def test_contrast_centre_default_and_explicit():
    f = np.linspace(0, 1, 24 * 32 * 3, dtype=np.float32).reshape(24, 32, 3)
    (a, b, c) = _run(
        lambda: (
            fn.contrast(_img(), contrast=0),
            fn.contrast(_img(f), contrast=2),
            fn.contrast(_img(), contrast=0, contrast_center=50),
        )
    )
    assert np.all(a.as_array()[0] == 128)
    np.testing.assert_allclose(b.as_array()[0], 0.5 + 2 * (f - 0.5), atol=1e-6)
    assert np.all(c.as_array()[0] == 50)


def test_brightness_contrast_per_sample_and_int16():
    x16 = (IMG.astype(np.int16) - 128) * 100

    def build():
        c = fn.random.uniform(range=(0.5, 2.0))
        return fn.brightness_contrast(_img(x16), contrast=c), c

    out, c = _run(build, batch_size=3)
    for i in range(3):
        cf = np.float32(c.at(i))
        add = np.float32(1.0) * (np.float32(16384) - cf * np.float32(16384))
        ref = np.clip(_round(x16.astype(np.float32) * cf + add), -32768, 32767)
        assert np.abs(out.at(i).astype(int) - ref.astype(int)).max() <= 1


def test_brightness_contrast_keeps_any_channel_count():
    gray = IMG[..., :1]
    (out,) = _run(lambda: fn.brightness(_img(gray), brightness=2))
    np.testing.assert_array_equal(out.as_array()[0], np.clip(gray.astype(int) * 2, 0, 255))


# -- CPU / GPU parity -------------------------------------------------------------------------------

GPU_CASES = {
    "color_twist": lambda x: fn.color_twist(x, hue=30, saturation=0.7, contrast=1.2),
    "hsv": lambda x: fn.hsv(x, hue=fn.random.uniform(range=(-90, 90)), value=0.9),
    "brightness_contrast": lambda x: fn.brightness_contrast(
        x, brightness=1.5, contrast=0.5, brightness_shift=0.05
    ),
    "brightness_float": lambda x: fn.brightness(x, brightness=0.5, dtype=types.FLOAT),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
@cpu_gpu(atol=1)  # float32 sums may differ in the last bit, which can round
def test_gpu_matches_cpu(case, device):
    op = GPU_CASES[case]
    return _run(lambda: op(to_device(_img(), device)), batch_size=4, device_id=device_id(device))
