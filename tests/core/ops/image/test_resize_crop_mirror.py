"""fn.resize_crop_mirror: equal to resize, then crop, then flip; windows beyond the resized
image, mirror bits (per layout), per-sample arguments, types, errors; fn.experimental.resize;
CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(2).integers(0, 256, (30, 40, 3)).astype(np.uint8)


def _run(build, *, batch_size=2, dev=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev)
    with pipe:
        pipe.set_outputs(build())
    return pipe.run()[0]


def _src(data=IMG, layout="HWC"):
    return fn.external_source(lambda: [data, data], layout=layout)


def _rcm(data=IMG, layout="HWC", **kw):
    return _run(lambda: fn.resize_crop_mirror(_src(data, layout), **kw))


def _flip(x, m):
    return fn.flip(x, horizontal=m & 1, vertical=(m >> 1) & 1)


@pytest.mark.parametrize(
    "kw",
    [
        {"resize_x": 60, "resize_y": 50, "crop": (20, 30)},
        {"resize_shorter": 25, "crop": (10, 12), "crop_pos_x": 0.2, "crop_pos_y": 0.9, "mirror": 1},
        {"size": (45, 60), "crop_h": 20, "crop_w": 10, "mirror": 3, "rounding": "truncate"},
        {"resize_x": 20, "crop": (8, 8), "mirror": 2, "interp_type": types.INTERP_NN},
    ],
)
def test_equals_resize_crop_flip(kw):
    size = {k: v for k, v in kw.items() if k.startswith("resize") or k in ("size", "interp_type")}
    crop = {k: v for k, v in kw.items() if k.startswith("crop") or k == "rounding"}
    m = kw.get("mirror", 0)
    got = _rcm(**kw)
    want = _run(lambda: _flip(fn.crop(fn.resize(_src(), **size), **crop), m))
    assert got.layout() == "HWC" and got.dtype == types.UINT8
    a, b = got.samples()[0].astype(int), want.samples()[0].astype(int)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= 1


def test_identity_mirror_and_window():
    out = _rcm(size=(30, 40), crop=(10, 20), mirror=1).samples()[0]
    np.testing.assert_array_equal(out, IMG[10:20, 10:30][:, ::-1])
    out = _rcm(size=(30, 40), crop=(10, 20), mirror=2, crop_pos_x=0, crop_pos_y=1).samples()[0]
    np.testing.assert_array_equal(out, IMG[20:30, 0:20][::-1])
    out = _rcm(size=(30, 40)).samples()[0]  # no crop: the resized image
    np.testing.assert_array_equal(out, IMG)


def test_window_beyond_the_image_repeats_the_border():
    out = _rcm(size=(30, 40), crop=(30, 44)).samples()[0]  # 2 columns beyond each side
    np.testing.assert_array_equal(out[:, 2:42], IMG)
    np.testing.assert_array_equal(out[:, 0], IMG[:, 0])
    np.testing.assert_array_equal(out[:, 43], IMG[:, -1])


@pytest.mark.parametrize(
    ("data", "layout"),
    [(np.ascontiguousarray(IMG.transpose(2, 0, 1)), "CHW"), (np.stack([IMG, IMG[::-1]]), "FHWC")],
)
@pytest.mark.parametrize("mirror", [1, 2, 3])
def test_mirror_bits_follow_the_layout(data, layout, mirror):
    """Bit 1 flips W, bit 2 flips H, whichever their place in the layout."""
    size = (30, 40)
    out = _rcm(data, layout, size=size, crop=size, mirror=mirror).samples()[0]
    want = data
    if mirror & 1:
        want = np.flip(want, layout.index("W"))
    if mirror & 2:
        want = np.flip(want, layout.index("H"))
    np.testing.assert_array_equal(out, want)


def test_volume_depth_flip():
    vol = np.random.default_rng(3).integers(0, 256, (4, 6, 8, 1)).astype(np.uint8)
    out = _rcm(vol, "DHWC", size=(4, 6, 8), crop=(2, 6, 8), mirror=4).samples()[0]
    np.testing.assert_array_equal(out, vol[1:3][::-1])


def test_per_sample_arguments_and_dtype():
    def build():
        mirror = fn.external_source(lambda: [np.int32(0), np.int32(1)])
        crop = fn.external_source(lambda: [np.float32([10, 10]), np.float32([4, 6])])
        return fn.resize_crop_mirror(
            _src(), size=(30, 40), crop=crop, mirror=mirror, dtype=types.FLOAT
        )

    out = _run(build)
    assert out.dtype == types.FLOAT
    s0, s1 = out.samples()
    np.testing.assert_array_equal(s0, IMG[10:20, 15:25])
    np.testing.assert_array_equal(s1, IMG[13:17, 17:23][:, ::-1])


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"crop": (10, 10)}, "Exactly one method of specifying size"),
        ({"resize_x": 30, "crop_w": 10}, "must be provided together"),
        ({"resize_x": 30, "crop": (10, 10), "crop_pos_x": 1.5}, "out of range"),
        ({"resize_x": 30, "rounding": "floor"}, "not supported"),
        ({"resize_x": 30, "dtype": types.INT16}, "FLOAT"),
    ],
)
def test_errors(kw, text):
    with pytest.raises(Exception, match=text) as e:
        _rcm(**kw)
    assert "resize_crop_mirror" in str(e.value)


def test_experimental_resize_is_resize():
    from dali._graph.schema import get_schema

    exp, plain = get_schema("experimental.resize"), get_schema("resize")
    assert exp.devices == ("gpu",)
    assert set(exp.args) == set(plain.args)
    with pytest.raises(Exception, match='does not support device="cpu"'):
        _run(lambda: fn.experimental.resize(_src(), size=(10, 10)))


@cpu_gpu()
def test_gpu_matches_cpu(device):
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        x = to_device(fn.external_source(lambda: [IMG, IMG[:20]], layout="HWC"), device)
        m = fn.external_source(lambda: [np.int32(1), np.int32(2)])
        pipe.set_outputs(
            fn.resize_crop_mirror(x, resize_shorter=25, crop=(12, 14), mirror=m),
            fn.resize_crop_mirror(x, size=(50, 50), crop=(60, 20), dtype=types.FLOAT),
        )
    return pipe.run()
