"""Rank filters: experimental.median_blur, erode, dilate (values against independent numpy
references, the OpenCV and numpy paths against each other, layouts, errors, CPU/GPU parity)."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn
from dali._ops.filters import morphology
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)
IMG = RNG.integers(0, 256, (17, 23, 3)).astype(np.uint8)
FIMG = RNG.random((17, 23, 3)).astype(np.float32)


def _run(build, *, batch_size=1, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _one(op, x, layout="HWC", **kw):
    (out,) = _run(lambda: op(fn.external_source(lambda: [x], layout=layout), **kw))
    return out, np.asarray(out.samples()[0])


def _windows(x, kh, kw, top, left, mode, fill=0):
    pads = [(top, kh - top - 1), (left, kw - left - 1)] + [(0, 0)] * (x.ndim - 2)
    kwargs = {"constant_values": fill} if mode == "constant" else {}
    p = np.pad(x, pads, mode=mode, **kwargs)
    h, w = x.shape[:2]
    return np.stack([p[i : i + h, j : j + w] for i in range(kh) for j in range(kw)])


@pytest.fixture(params=["opencv", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(morphology, "optional_cv2", lambda: None)
    return request.param


@pytest.mark.parametrize("size", [3, 5, [3, 7]])
def test_median_blur(size, path):
    kw, kh = (size, size) if isinstance(size, int) else size
    for x in (IMG, FIMG):
        out, y = _one(fn.experimental.median_blur, x, window_size=size)
        ref = np.median(_windows(x, kh, kw, kh // 2, kw // 2, "edge"), axis=0)
        assert out.layout() == "HWC" and y.dtype == x.dtype
        np.testing.assert_array_equal(y, ref.astype(x.dtype))


def test_median_blur_layouts(path):
    chw = np.ascontiguousarray(IMG.transpose(2, 0, 1))
    _, hwc = _one(fn.experimental.median_blur, IMG)
    _, y = _one(fn.experimental.median_blur, chw, "CHW")
    np.testing.assert_array_equal(y, hwc.transpose(2, 0, 1))
    _, yv = _one(fn.experimental.median_blur, np.stack([IMG, IMG]), "FHWC")
    np.testing.assert_array_equal(yv[1], hwc)
    _, yg = _one(fn.experimental.median_blur, IMG[..., 0].copy(), "HW")
    np.testing.assert_array_equal(yg, hwc[..., 0])


@pytest.mark.parametrize("op,reduce,fill", [("erode", np.min, 255), ("dilate", np.max, 0)])
@pytest.mark.parametrize("mask,anchor", [((3, 3), (-1, -1)), ((5, 3), (0, 2)), ((1, 4), (0, 1))])
def test_erode_dilate(op, reduce, fill, mask, anchor, path):
    kw, kh = mask
    ax = kw // 2 if anchor[0] < 0 else anchor[0]
    ay = kh // 2 if anchor[1] < 0 else anchor[1]
    _, y = _one(getattr(fn.experimental, op), IMG, mask_size=list(mask), anchor=list(anchor))
    ref = reduce(_windows(IMG, kh, kw, ay, ax, "constant", fill), axis=0)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("border,mode", [("replicate", "edge"), ("reflect_101", "reflect")])
def test_dilate_borders_and_iterations(border, mode, path):
    _, y = _one(fn.experimental.dilate, IMG, border_mode=border, iterations=2)
    once = np.max(_windows(IMG, 3, 3, 1, 1, mode), axis=0)
    twice = np.max(_windows(once, 3, 3, 1, 1, mode), axis=0)
    np.testing.assert_array_equal(y, twice)


def test_morphology_errors():
    with pytest.raises(Exception, match="odd integer greater than one"):
        _one(fn.experimental.median_blur, IMG, window_size=4)
    with pytest.raises(Exception, match="border_mode"):
        _one(fn.experimental.erode, IMG, border_mode="mirror")
    with pytest.raises(Exception, match="anchor"):
        _one(fn.experimental.erode, IMG, mask_size=3, anchor=[3, 0])
    with pytest.raises(Exception, match="Unsupported input layout"):
        _one(fn.experimental.dilate, np.zeros((2, 3, 4, 5, 1), np.uint8), "DHWCX")
    with pytest.raises(Exception, match="Unsupported input type"):
        _one(fn.experimental.dilate, IMG.astype(np.uint64))


BATCH = [IMG, IMG[::-1].copy(), IMG[:, ::-1].copy()]
PARITY = {
    "median": lambda x: fn.experimental.median_blur(x, window_size=5),
    "erode": lambda x: fn.experimental.erode(x, mask_size=[5, 3], iterations=2),
    "dilate": lambda x: fn.experimental.dilate(x, border_mode="wrap"),
}


@pytest.mark.parametrize("case", sorted(PARITY))
@cpu_gpu()  # order statistics: exact
def test_gpu_matches_cpu(case, device):
    return _run(
        lambda: PARITY[case](to_device(fn.external_source(lambda: BATCH, layout="HWC"), device)),
        batch_size=3,
        device_id=device_id(device),
    )
