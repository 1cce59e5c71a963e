"""fn.experimental.remap: against OpenCV's cv2.remap (DALI's documented reference: "center"
origin, BORDER_CONSTANT 0) and a numpy reference, both pixel origins, NN and LINEAR, every
input type, one and three channels, sequences with per-sample and per-frame maps, the error
cases, and CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(12)
H, W = 24, 32
IMG = RNG.integers(0, 256, (H, W, 3), dtype=np.uint8)
YS, XS = np.mgrid[0:H, 0:W].astype(np.float32)
# positions on a 1/32 grid: the bilinear weights are exact in every implementation
GRID_X = (np.round(RNG.uniform(-3, W + 3, (H, W)) * 32) / 32).astype(np.float32)
GRID_Y = (np.round(RNG.uniform(-3, H + 3, (H, W)) * 32) / 32).astype(np.float32)
# random positions: no nearest-neighbour ties
RAND_X = RNG.uniform(-3, W + 3, (H, W)).astype(np.float32)
RAND_Y = RNG.uniform(-3, H + 3, (H, W)).astype(np.float32)

NN, LINEAR = types.INTERP_NN, types.INTERP_LINEAR


def _remap(images, mapx, mapy, layout="HWC", map_layout=None, **kwargs):
    pipe = dali.Pipeline(batch_size=len(images), num_threads=2, device_id=None)
    kw = {"layout": map_layout} if map_layout else {}
    with pipe:
        x = fn.external_source(lambda: images, layout=layout)
        mx = fn.external_source(lambda: mapx, **kw)
        my = fn.external_source(lambda: mapy, **kw)
        pipe.set_outputs(fn.experimental.remap(x, mx, my, **kwargs))
    out = pipe.run()[0]
    return out, [np.asarray(out.at(i)) for i in range(len(out))]


def _cv(img, mx, my, interp):
    cv2 = pytest.importorskip("cv2")
    flag = cv2.INTER_NEAREST if interp == NN else cv2.INTER_LINEAR
    out = cv2.remap(img, mx, my, flag, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(img.shape)


def _bilinear(img, mx, my):
    """float64 bilinear with pixel centres on integers, zeros outside (unrounded)."""
    h, w, _ = img.shape
    x0, y0 = np.floor(mx).astype(int), np.floor(my).astype(int)
    qx, qy = (mx - x0)[..., None], (my - y0)[..., None]

    def tap(y, x):
        ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        return np.where(ok[..., None], img[y.clip(0, h - 1), x.clip(0, w - 1)], 0).astype(float)

    top = tap(y0, x0) * (1 - qx) + tap(y0, x0 + 1) * qx
    bottom = tap(y0 + 1, x0) * (1 - qx) + tap(y0 + 1, x0 + 1) * qx
    return top * (1 - qy) + bottom * qy


def _round_half_away(v, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), info.min, info.max).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16])
@pytest.mark.parametrize("origin", ["center", "corner"])
def test_linear_matches_reference_and_opencv(dtype, origin):
    img = IMG.astype(dtype) * (200 if dtype == np.uint16 else 1) - (100 if dtype == np.int16 else 0)
    out, (o,) = _remap([img], [GRID_X], [GRID_Y], pixel_origin=origin)
    assert out.layout() == "HWC" and o.dtype == dtype and o.shape == img.shape
    shift = np.float32(0.5 if origin == "corner" else 0)  # DALI's corner: maps shifted by -0.5
    exact = _bilinear(img, GRID_X - shift, GRID_Y - shift)  # exact: 1/32-grid weights
    np.testing.assert_array_equal(o, _round_half_away(exact, dtype))
    # OpenCV rounds the exact halves to even: only there may it differ, by one
    cv = _cv(img, GRID_X - shift, GRID_Y - shift, LINEAR).astype(np.int64)
    differ = o.astype(np.int64) != cv
    assert (np.abs(o.astype(np.int64) - cv) <= 1).all()
    assert (np.abs(exact - np.trunc(exact))[differ] == 0.5).all()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
@pytest.mark.parametrize("origin", ["center", "corner"])
def test_nearest_matches_opencv(dtype, origin):
    img = IMG.astype(dtype)
    _, (o,) = _remap([img], [RAND_X], [RAND_Y], interp=NN, pixel_origin=origin)
    shift = np.float32(0.5 if origin == "corner" else 0)
    np.testing.assert_array_equal(o, _cv(img, RAND_X - shift, RAND_Y - shift, NN))


def test_float_linear_matches_numpy_reference():
    img = (RNG.random((H, W, 3)) * 10).astype(np.float32)
    _, (o,) = _remap([img], [RAND_X], [RAND_Y], pixel_origin="center")
    np.testing.assert_allclose(o, _bilinear(img, RAND_X, RAND_Y), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("interp", [NN, LINEAR])
def test_identity_maps_with_corner_origin(interp):
    # corner origin: pixel (x, y) covers [x, x + 1): its centre (x + 0.5) is the pixel itself
    _, (o,) = _remap([IMG], [XS + 0.5], [YS + 0.5], interp=interp)
    np.testing.assert_array_equal(o, IMG)
    _, (o,) = _remap([IMG], [XS], [YS], interp=NN)  # NN: floor(map)
    np.testing.assert_array_equal(o, IMG)


def test_flip_and_outside_is_zero():
    _, (o,) = _remap([IMG], [W - 1 - XS], [YS + 3], interp=NN, pixel_origin="center")
    ref = np.zeros_like(IMG)
    ref[:-3] = IMG[3:, ::-1]
    np.testing.assert_array_equal(o, ref)


def test_one_channel_hw_and_hwc_maps_ragged_batch():
    gray = IMG[..., :1].copy()
    small = IMG[:5, :7].copy()
    maps_x = [RAND_X[..., None], RAND_X[:5, :7, None].copy()]  # HWC maps with one channel
    maps_y = [RAND_Y[..., None], RAND_Y[:5, :7, None].copy()]
    _, (a, b) = _remap([gray, small], maps_x, maps_y, map_layout="HWC", interp=NN,
                       pixel_origin="center")  # fmt: skip
    np.testing.assert_array_equal(a, _cv(gray, RAND_X, RAND_Y, NN))
    np.testing.assert_array_equal(b, _cv(small, RAND_X[:5, :7].copy(), RAND_Y[:5, :7].copy(), NN))


def test_sequences_per_sample_and_per_frame_maps():
    seq = np.stack([IMG, IMG[::-1], 255 - IMG])
    # one map for all frames
    out, (o,) = _remap([seq], [GRID_X], [GRID_Y], layout="FHWC")
    assert out.layout() == "FHWC" and o.shape == seq.shape
    for k in range(3):
        ref = _round_half_away(_bilinear(seq[k], GRID_X - 0.5, GRID_Y - 0.5), np.uint8)
        np.testing.assert_array_equal(o[k], ref)
    # one map per frame
    fx = np.stack([RAND_X[::-1], RAND_X, XS])  # random: no nearest-neighbour ties
    fy = np.stack([RAND_Y[::-1], RAND_Y, YS])
    _, (o,) = _remap([seq], [fx], [fy], layout="FHWC", map_layout="FHW", interp=NN,
                     pixel_origin="center")  # fmt: skip
    for k in range(3):
        np.testing.assert_array_equal(o[k], _cv(seq[k], fx[k], fy[k], NN))


def test_empty_and_large_positions():
    big = np.full((H, W), 1e10, np.float32)
    _, (o,) = _remap([IMG], [big], [YS])
    assert (o == 0).all()
    _, (o,) = _remap([IMG[:0]], [XS[:0]], [YS[:0]])
    assert o.shape == (0, W, 3)


@pytest.mark.parametrize(
    ("images", "mapx", "mapy", "kwargs", "match"),
    [
        ([IMG[..., :2].copy()], [XS], [YS], {},
         r"Incorrect number of channels: 2\. Only images with 1 and 3 channels"),
        ([IMG.astype(np.int32)], [XS], [YS], {}, r"Unsupported input type: int32"),
        ([IMG.astype(np.float64)], [XS], [YS], {}, r"Unsupported input type: double"),
        ([IMG], [XS[:-1]], [YS[:-1]], {}, r"Output and maps shapes do not match"),
        ([IMG], [XS], [YS[:, :-1]], {}, r"Maps shapes do not match"),
        ([IMG], [XS.astype(np.float64)], [YS], {}, r"mapx.*float"),
        ([IMG], [np.stack([XS] * 2)], [np.stack([YS] * 2)], {}, r"a map must be H x W"),
        ([IMG[..., 0].copy()], [XS], [YS], {"layout": None}, r"number of dimensions 2"),
    ],
)  # fmt: skip
def test_errors(images, mapx, mapy, kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        _remap(images, mapx, mapy, **kwargs)


def test_layout_errors():
    with pytest.raises(RuntimeError, match=r'layout "CHW" does not match'):
        _remap([IMG], [XS], [YS], layout="CHW")
    with pytest.raises(RuntimeError, match=r"per-frame maps .* need a sequence input"):
        _remap([IMG], [XS[None]], [YS[None]], map_layout="FHW")
    seq = np.stack([IMG] * 3)
    with pytest.raises(RuntimeError, match=r"the maps have 2 frames, but the input has 3"):
        _remap([seq], [np.stack([XS] * 2)], [np.stack([YS] * 2)], layout="FHWC",
               map_layout="FHW")  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pixel_origin": "middle"}, r'Undefined pixel_origin parameter.*\["center", "corner"\]'),
        ({"interp": types.INTERP_CUBIC}, r"interp.*Unsupported interpolation type"),
    ],
)
def test_argument_errors(kwargs, match):
    with pytest.raises(Exception, match=match):
        _remap([IMG], [XS], [YS], **kwargs)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    seq = np.stack([IMG, IMG[::-1]])
    fimg = (IMG / 7).astype(np.float32)
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        x = to_device(fn.external_source(lambda: [IMG, IMG[:5, :7].copy()], layout="HWC"), device)
        f = to_device(
            fn.external_source(lambda: [fimg, fimg[..., :1].copy()], layout="HWC"), device
        )
        s = to_device(fn.external_source(lambda: [seq, seq[:1]], layout="FHWC"), device)
        mx = to_device(fn.external_source(lambda: [RAND_X, RAND_X[:5, :7].copy()]), device)
        my = to_device(fn.external_source(lambda: [RAND_Y, RAND_Y[:5, :7].copy()]), device)
        fmx = to_device(fn.external_source(lambda: [RAND_X, RAND_X]), device)
        fmy = to_device(fn.external_source(lambda: [RAND_Y, RAND_Y]), device)
        px = to_device(fn.external_source(lambda: [np.stack([RAND_X, XS]), RAND_X[None]],
                                          layout="FHW"), device)  # fmt: skip
        py = to_device(fn.external_source(lambda: [np.stack([RAND_Y, YS]), RAND_Y[None]],
                                          layout="FHW"), device)  # fmt: skip
        odd = RAND_X.copy()
        odd[0, :4] = [np.nan, np.inf, -np.inf, 1e10]  # never inside
        ox = to_device(fn.external_source(lambda: [odd, odd]), device)
        i16 = to_device(fn.external_source(
            lambda: [IMG.astype(np.int16) * 100 - 9000, IMG.astype(np.int16)], layout="HWC"),
            device)  # fmt: skip
        u16 = to_device(fn.external_source(
            lambda: [IMG.astype(np.uint16) * 250, IMG[..., :1].astype(np.uint16)], layout="HWC"),
            device)  # fmt: skip
        remap = fn.experimental.remap
        pipe.set_outputs(
            remap(x, mx, my), remap(x, mx, my, interp=NN, pixel_origin="center"),
            remap(f, fmx, fmy, pixel_origin="center"), remap(s, fmx, fmy),
            remap(s, px, py, interp=NN), remap(f, ox, fmy), remap(f, ox, fmy, interp=NN),
            remap(i16, fmx, fmy), remap(u16, fmx, fmy, pixel_origin="center"),
        )  # fmt: skip
    return pipe.run()
