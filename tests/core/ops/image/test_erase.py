"""fn.erase: regions, axes, normalized and centred coordinates, fill values, layouts, types,
per-sample arguments, errors, and CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(1).integers(1, 250, (10, 12, 3)).astype(np.uint8)


def _run(build, *, batch_size=2, dev=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev)
    with pipe:
        pipe.set_outputs(build())
    return pipe.run()[0]


def _erase(data=IMG, layout="HWC", **kw):
    return _run(lambda: fn.erase(fn.external_source(lambda: [data] * 2, layout=layout), **kw))


def _expect(data, *regions, fill=0):
    y = data.copy()
    for r in regions:
        y[r] = fill
    return y


@pytest.mark.parametrize(
    ("kw", "region"),
    [
        ({"anchor": (2, 3), "shape": (4, 5)}, np.s_[2:6, 3:8]),
        ({"anchor": (3, 2), "shape": (5, 4), "axis_names": "WH"}, np.s_[2:6, 3:8]),
        ({"anchor": (3, 2), "shape": (5, 4), "axes": (1, 0)}, np.s_[2:6, 3:8]),
        ({"anchor": (3,), "shape": (5,), "axis_names": "W"}, np.s_[:, 3:8]),
        ({"anchor": (0.2, 0.25), "shape": (0.4, 0.5), "normalized": True}, np.s_[2:6, 3:9]),
        ({"anchor": (0.2, 0.25), "shape": (4, 5), "normalized_anchor": True}, np.s_[2:6, 3:8]),
        ({"anchor": (5, 6), "shape": (3, 5), "centered_anchor": True}, np.s_[3:6, 3:8]),
        ({"anchor": (-2.7, -0.5), "shape": (4.6, 5.5)}, np.s_[0:1, 0:5]),
        ({"anchor": (8, 10), "shape": (50, 50)}, np.s_[8:, 10:]),
        ({"shape": (4, 5)}, np.s_[0:4, 0:5]),
    ],
)
def test_regions(kw, region):
    out = _erase(**kw)
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    np.testing.assert_array_equal(out.samples()[0], _expect(IMG, region))


def test_several_regions_and_nothing():
    out = _erase(anchor=(0, 0, 7, 9), shape=(2, 2, 10, 10), fill_value=5)
    np.testing.assert_array_equal(
        out.samples()[0], _expect(IMG, np.s_[0:2, 0:2], np.s_[7:, 9:], fill=5)
    )
    np.testing.assert_array_equal(_erase().samples()[0], IMG)
    np.testing.assert_array_equal(_erase(anchor=(20, 20), shape=(3, 3)).samples()[0], IMG)


def test_fill_values_per_channel_and_cast():
    out = _erase(anchor=(1, 1), shape=(2, 2), fill_value=(7, 8, 9)).samples()[0]
    assert out[1:3, 1:3].tolist() == [[[7, 8, 9]] * 2] * 2
    c = _erase(anchor=(1,), shape=(1,), axis_names="C", fill_value=(7, 8, 9)).samples()[0]
    assert (c[..., 1] == 8).all() and (c[..., [0, 2]] == IMG[..., [0, 2]]).all()
    w = _erase(anchor=(1, 1), shape=(2, 2), fill_value=300.0).samples()[0]
    assert (w[1:3, 1:3] == 44).all()  # C++'s cast: 300 wraps to 44


def test_layouts_types_and_volumes():
    chw = np.ascontiguousarray(IMG.transpose(2, 0, 1))
    out = _erase(chw, "CHW", anchor=(2, 3), shape=(4, 5), fill_value=(1, 2, 3)).samples()[0]
    assert (out[:, 2:6, 3:8] == np.array([1, 2, 3])[:, None, None]).all()
    vol = np.stack([IMG, IMG, IMG])
    v = _erase(vol, "DHWC", anchor=(1, 2, 3), shape=(1, 4, 5)).samples()[0]
    np.testing.assert_array_equal(v, _expect(vol, np.s_[1:2, 2:6, 3:8]))
    f = _erase(vol, "FHWC", anchor=(2, 3), shape=(4, 5), axis_names="HW").samples()[0]
    np.testing.assert_array_equal(f, _expect(vol, np.s_[:, 2:6, 3:8]))
    for dt in (np.int8, np.uint16, np.int64, np.float16, np.float32):
        o = _erase(IMG.astype(dt), anchor=(2, 3), shape=(4, 5), fill_value=2.5).samples()[0]
        assert (
            o.dtype == dt and (o[2:6, 3:8] == (2.5 if dt in (np.float16, np.float32) else 2)).all()
        )
    one = _erase(np.arange(10, dtype=np.uint8) + 1, None, anchor=(2,), shape=(3,), axes=(0,))
    assert one.samples()[0].tolist() == [1, 2, 0, 0, 0, 6, 7, 8, 9, 10]


def test_per_sample_arguments():
    def build():
        x = fn.external_source(lambda: [IMG, IMG], layout="HWC")
        a = fn.external_source(lambda: [np.float32([1, 2, 8, 8]), np.float32([3, 4])])
        s = fn.external_source(lambda: [np.float32([2, 2, 1, 1]), np.float32([1, 1])])
        f = fn.external_source(lambda: [np.float32([5]), np.float32([6, 7, 8])])
        return fn.erase(x, anchor=a, shape=s, fill_value=f)

    s0, s1 = _run(build).samples()
    np.testing.assert_array_equal(s0, _expect(IMG, np.s_[1:3, 2:4], np.s_[8:9, 8:9], fill=5))
    assert s1[3, 4].tolist() == [6, 7, 8]


@pytest.mark.parametrize(
    ("data", "layout", "kw", "match"),
    [
        (IMG, "HWC", {"anchor": (1, 2), "shape": (3, 4), "normalized": True,
                      "normalized_anchor": True}, "incompatible with providing a separate"),
        (IMG, "HWC", {"anchor": (1, 2, 3), "shape": (3, 4)}, "as many values"),
        (IMG, "HWC", {"anchor": (1, 2, 3), "shape": (3, 4, 5)}, "multiple of 2"),
        (IMG, "HWC", {"anchor": (1, 2), "shape": (3, 4), "axis_names": "XY"},
         "Axis 'X' is not present in the input layout"),
        (IMG, "HWC", {"anchor": (1, 2), "shape": (3, 4), "axes": (0, 5)}, "out of range"),
        (IMG, "HWC", {"anchor": (1, 2), "shape": (3, 4), "fill_value": (1, 2)},
         "Multi-channel fill value does not match"),
        (IMG[..., 0].copy(), "HW", {"fill_value": (1, 2, 3)}, "must have a 'C' dimension"),
        (IMG, None, {"anchor": (1, 2), "shape": (3, 4)}, "no layout"),
        (IMG.astype(np.float64), "HWC", {}, "Unsupported data type: double"),
        (np.zeros((1,) * 6, np.uint8), None, {"axes": (0,)}, "Unsupported number of dimensions 6"),
    ],
)  # fmt: skip
def test_errors(data, layout, kw, match):
    with pytest.raises(Exception, match=match):
        _erase(data, layout, **kw)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    def build():
        x = to_device(fn.external_source(lambda: [IMG, IMG[:8]], layout="HWC"), device)
        a = fn.erase(x, anchor=(1, 2, 5, 5), shape=(3, 4, 2, 2), fill_value=(1, 2, 3))
        return a

    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        u = to_device(fn.external_source(lambda: [IMG, IMG], layout="HWC"), device)
        pipe.set_outputs(build(), fn.erase(u, anchor=(0.1, 0.2), shape=(0.5, 0.5), normalized=True))
    return pipe.run()
