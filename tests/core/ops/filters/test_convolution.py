"""Convolution filters: gaussian_blur, laplacian, filter (values against independent float64
references, layouts, dtypes, per-sample and per-frame arguments, errors, CPU/GPU parity)."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.filters.convolution import gaussian_window, laplacian_windows
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(3)
IMG = RNG.integers(0, 256, (20, 27, 3)).astype(np.uint8)
FIMG = RNG.random((20, 27, 3)).astype(np.float32)


def _run(build, *, batch_size=1, device_id=None):
    # (a fixed seed: the CPU and GPU pipelines of a parity test draw the same random arguments)
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id, seed=3)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _src(samples, layout):
    return fn.external_source(lambda: samples, layout=layout)


def _one(op, x, layout="HWC", **kw):
    (out,) = _run(lambda: op(_src([x], layout), **kw))
    return out, np.asarray(
        out.as_cpu().samples()[0] if hasattr(out, "as_cpu") else out.samples()[0]
    )


def _reflect(n, r):
    i = np.arange(-r, n + r)
    if n == 1:
        return np.zeros_like(i)
    p = 2 * (n - 1)
    i = np.mod(i, p)
    return np.where(i >= n, p - i, i)


def _corr(x, w, axis):
    """A float64 1-D correlation with reflect-101 borders."""
    w = np.asarray(w, np.float64)
    r = len(w) // 2
    n = x.shape[axis]
    p = np.take(x.astype(np.float64), _reflect(n, r), axis=axis)
    out = np.zeros(x.shape)
    for k in range(len(w)):
        out += w[k] * np.take(p, np.arange(k, k + n), axis=axis)
    return out


def _gauss64(sigma, size):
    x = np.arange(size) - size // 2
    g = np.exp(-(x**2) / (2.0 * sigma**2))
    return g / g.sum()


# -- windows ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma,size", [(0.5, 5), (1.0, 7), (2.3, 15), (0.8, 3)])
def test_gaussian_window_is_a_normalised_gaussian(sigma, size):
    w = gaussian_window(sigma, size)
    assert w.dtype == np.float32 and w.shape == (size,)
    np.testing.assert_allclose(w, _gauss64(sigma, size), rtol=2e-6, atol=1e-8)
    assert np.array_equal(w, w[::-1])


def test_laplacian_windows():
    d, s = laplacian_windows(7, 5)
    assert d.tolist() == [1, 2, -1, -4, -1, 2, 1]
    assert s.tolist() == [1, 4, 6, 4, 1]
    assert laplacian_windows(3, 1)[1].tolist() == [1]


# -- gaussian_blur ----------------------------------------------------------------------------


def test_gaussian_blur_float_matches_reference():
    out, y = _one(fn.gaussian_blur, FIMG, sigma=1.5)
    assert out.layout() == "HWC" and y.dtype == np.float32 and y.shape == FIMG.shape
    w = _gauss64(1.5, 2 * math.ceil(4.5) + 1)
    ref = _corr(_corr(FIMG, w, 1), w, 0)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_gaussian_blur_uint8_rounds_and_keeps_type():
    _, y = _one(fn.gaussian_blur, IMG, window_size=5)
    assert y.dtype == np.uint8
    sigma = (2 - 1) * 0.3 + 0.8
    w = _gauss64(sigma, 5)
    ref = _corr(_corr(IMG, w, 1), w, 0)
    assert np.abs(y.astype(np.float64) - ref).max() <= 0.5 + 1e-3


def test_gaussian_blur_dtype_float():
    _, y = _one(fn.gaussian_blur, IMG, sigma=1.0, dtype=types.FLOAT)
    assert y.dtype == np.float32
    w = _gauss64(1.0, 7)
    np.testing.assert_allclose(y, _corr(_corr(IMG, w, 1), w, 0), rtol=1e-5, atol=1e-4)


def test_gaussian_blur_per_axis_and_size_one_axis():
    _, y = _one(fn.gaussian_blur, FIMG, window_size=[1, 5], sigma=[0.0, 1.0])
    ref = _corr(FIMG, _gauss64(1.0, 5), 1)  # the window of size 1 is [1]: no blur along H
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_gaussian_blur_chw_sequence_and_volume():
    chw = np.ascontiguousarray(FIMG.transpose(2, 0, 1))
    _, hwc = _one(fn.gaussian_blur, FIMG, sigma=1.0)
    _, y = _one(fn.gaussian_blur, chw, "CHW", sigma=1.0)
    np.testing.assert_array_equal(y, hwc.transpose(2, 0, 1))
    video = np.stack([FIMG, FIMG[::-1].copy()])
    out, yv = _one(fn.gaussian_blur, video, "FHWC", sigma=1.0)
    assert out.layout() == "FHWC"
    np.testing.assert_array_equal(yv[0], hwc)
    vol = RNG.random((6, 7, 8)).astype(np.float32)
    _, yvol = _one(fn.gaussian_blur, vol, "DHW", sigma=[0.5, 1.0, 0.7])
    ref = _corr(_corr(_corr(vol, _gauss64(1.0, 7), 1), _gauss64(0.7, 7), 2), _gauss64(0.5, 5), 0)
    np.testing.assert_allclose(yvol, ref, rtol=1e-5, atol=1e-6)


def test_gaussian_blur_window_wider_than_image():
    x = np.array([[1.0, 2.0]], np.float32)
    _, y = _one(fn.gaussian_blur, x, "HW", sigma=2.0)
    w = _gauss64(2.0, 13)
    np.testing.assert_allclose(y, _corr(_corr(x, w, 1), w, 0), rtol=1e-5)


def test_gaussian_blur_per_sample_and_per_frame_sigma():
    imgs = [FIMG, FIMG]
    sig = [np.array(0.5, np.float32), np.array(2.0, np.float32)]
    (out,) = _run(lambda: fn.gaussian_blur(_src(imgs, "HWC"), sigma=_src(sig, None)), batch_size=2)
    for s, y in zip((0.5, 2.0), out.samples()):
        _, ref = _one(fn.gaussian_blur, FIMG, sigma=s)
        np.testing.assert_array_equal(np.asarray(y), ref)
    video = np.stack([FIMG, FIMG])
    per_frame = [np.array([0.5, 2.0], np.float32)]
    (outv,) = _run(
        lambda: fn.gaussian_blur(_src([video], "FHWC"), sigma=fn.per_frame(_src(per_frame, "F")))
    )
    yv = np.asarray(outv.samples()[0])
    _, a = _one(fn.gaussian_blur, FIMG, sigma=0.5)
    _, b = _one(fn.gaussian_blur, FIMG, sigma=2.0)
    np.testing.assert_array_equal(yv, np.stack([a, b]))


@pytest.mark.parametrize(
    "kw,text",
    [
        ({}, "shouldn't be 0 at the same time"),
        ({"sigma": -1.0}, "non-negative"),
        ({"window_size": 4}, "odd length"),
        ({"sigma": [1.0, 2.0, 3.0]}, "expected 1 or 2 values"),
        ({"sigma": 1.0, "dtype": types.INT32}, "Unsupported output data type"),
    ],
)
def test_gaussian_blur_errors(kw, text):
    with pytest.raises(Exception, match="gaussian_blur") as e:
        _one(fn.gaussian_blur, IMG, **kw)
    assert text in str(e.value)


def test_gaussian_blur_layout_errors():
    with pytest.raises(Exception, match="channel-first or channel-last"):
        _one(fn.gaussian_blur, IMG, "HCW", sigma=1.0)
    with pytest.raises(Exception, match="cannot have more than 3"):
        _one(fn.gaussian_blur, np.zeros((2, 3, 4, 5), np.uint8), None, sigma=1.0)


# -- laplacian --------------------------------------------------------------------------------


def _lap_ref(x, wins, scales):
    n = len(wins)
    total = np.zeros(x.shape)
    for i in range(n):
        t = x.astype(np.float64)
        for j in reversed(range(n)):
            t = _corr(t, wins[i][j], j)
        total += scales[i] * t
    return total


def test_laplacian_default_is_the_3x3_laplacian():
    _, y = _one(fn.laplacian, FIMG)
    d, s = laplacian_windows(3, 3)
    ref = _lap_ref(FIMG, [[d, s], [s, d]], [1.0, 1.0])
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_laplacian_smoothing_scale_normalized():
    _, y = _one(fn.laplacian, FIMG, window_size=[5, 3], smoothing_size=[3, 1], scale=[0.5, 2.0])
    d5, s3 = laplacian_windows(5, 3)
    d3, s1 = laplacian_windows(3, 1)
    ref = _lap_ref(FIMG, [[d5, s1], [s3, d3]], [0.5, 2.0])
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4)
    _, yn = _one(fn.laplacian, FIMG, window_size=5, normalized_kernel=True)
    d, s = laplacian_windows(5, 5)
    np.testing.assert_allclose(
        yn, _lap_ref(FIMG, [[d, s], [s, d]], [2.0**-6] * 2), rtol=1e-5, atol=1e-5
    )


def test_laplacian_integer_output_saturates():
    _, y = _one(fn.laplacian, IMG)
    d, s = laplacian_windows(3, 3)
    ref = np.clip(np.round(_lap_ref(IMG, [[d, s], [s, d]], [1.0, 1.0])), 0, 255)
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, ref)
    _, yf = _one(fn.laplacian, IMG, dtype=types.FLOAT)
    assert yf.dtype == np.float32 and yf.min() < 0


def test_laplacian_volume_and_sequence():
    vol = RNG.random((5, 6, 7, 2)).astype(np.float32)
    _, y = _one(fn.laplacian, vol, "DHWC")
    d, s = laplacian_windows(3, 3)
    ref = _lap_ref(vol, [[d, s, s], [s, d, s], [s, s, d]], [1.0] * 3)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    video = np.stack([FIMG, FIMG])
    out, yv = _one(fn.laplacian, video, "FHWC")
    _, one = _one(fn.laplacian, FIMG)
    assert out.layout() == "FHWC"
    np.testing.assert_array_equal(yv[1], one)


@pytest.mark.parametrize(
    "kw,text",
    [
        ({"window_size": 1}, "odd integer between 3 and 31"),
        ({"window_size": 33}, "odd integer between 3 and 31"),
        ({"smoothing_size": 4}, "between 1 and 31"),
        ({"scale": 2.0, "normalized_kernel": True}, "cannot be specified"),
        ({"dtype": types.INT16}, "Unsupported output data type"),
    ],
)
def test_laplacian_errors(kw, text):
    with pytest.raises(Exception, match="laplacian") as e:
        _one(fn.laplacian, IMG, **kw)
    assert text in str(e.value)


def test_laplacian_rejects_double():
    with pytest.raises(Exception, match="Unsupported data type"):
        _one(fn.laplacian, FIMG.astype(np.float64))


# -- filter -----------------------------------------------------------------------------------

K = (RNG.random((3, 5)) - 0.3).astype(np.float32)


def _filter_ref(x, k, anchor, mode, fill=0):
    """float64 correlation: out[y, x] = sum k[i, j] * in[y - a + i, x - b + j]."""
    a, b = anchor
    pads = [(a, k.shape[0] - a - 1), (b, k.shape[1] - b - 1)] + [(0, 0)] * (x.ndim - 2)
    kwargs = {"constant_values": fill} if mode == "constant" else {}
    p = np.pad(x.astype(np.float64), pads, mode=mode, **kwargs)
    out = np.zeros(x.shape)
    for i in range(k.shape[0]):
        for j in range(k.shape[1]):
            out += k[i, j] * p[i : i + x.shape[0], j : j + x.shape[1]]
    return out


def _filt(x, k, *extra, layout="HWC", **kw):
    def build():
        srcs = [_src([x], layout), _src([k], None)] + [_src([e], None) for e in extra]
        return fn.filter(*srcs, **kw)

    (out,) = _run(build)
    return out, np.asarray(out.samples()[0])


@pytest.mark.parametrize(
    "border,mode",
    [
        ("reflect_101", "reflect"),
        ("reflect_1001", "symmetric"),
        ("wrap", "wrap"),
        ("clamp", "edge"),
        ("constant", "constant"),
    ],
)
def test_filter_borders(border, mode):
    _, y = _filt(FIMG, K, border=border)
    np.testing.assert_allclose(y, _filter_ref(FIMG, K, (1, 2), mode), rtol=1e-5, atol=1e-5)


def test_filter_anchor_fill_and_uint8():
    _, y = _filt(FIMG, K, np.array(0.75, np.float32), border="constant", anchor=[0, 4])
    ref = _filter_ref(FIMG, K, (0, 4), "constant", 0.75)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    _, y8 = _filt(IMG, K)
    ref8 = np.clip(_filter_ref(IMG, K, (1, 2), "reflect"), 0, 255)
    assert y8.dtype == np.uint8 and np.abs(y8 - ref8).max() <= 0.5 + 1e-3
    _, yf = _filt(IMG, K, dtype=types.FLOAT)
    assert yf.dtype == np.float32


def test_filter_valid_mode():
    _, y = _filt(FIMG, K, mode="valid", anchor=[0, 0])
    assert y.shape == (18, 23, 3)
    ref = _filter_ref(FIMG, K, (1, 2), "reflect")[1:-1, 2:-2]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_filter_chw_and_video_with_per_frame_filters():
    chw = np.ascontiguousarray(FIMG.transpose(2, 0, 1))
    _, y = _filt(chw, K, layout="CHW")
    _, hwc = _filt(FIMG, K)
    np.testing.assert_allclose(y, hwc.transpose(2, 0, 1), rtol=1e-6, atol=1e-6)
    video = np.stack([FIMG, FIMG])
    ks = np.stack([K, K[::-1].copy()])

    def build():
        return fn.filter(_src([video], "FHWC"), fn.per_frame(_src([ks], "FHW")))

    (out,) = _run(build)
    yv = np.asarray(out.samples()[0])
    np.testing.assert_allclose(yv[0], hwc, rtol=1e-6, atol=1e-6)
    _, second = _filt(FIMG, ks[1])
    np.testing.assert_allclose(yv[1], second, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "kw,text",
    [
        ({"border": "mirror"}, "border_type"),
        ({"mode": "full"}, "Unknown ``mode``"),
        ({"anchor": [3, 0]}, "Anchor must lie within the filter"),
        ({"dtype": types.INT32}, "Output data type must be same as input"),
    ],
)
def test_filter_errors(kw, text):
    with pytest.raises(Exception, match="filter") as e:
        _filt(IMG, K, **kw)
    assert text in str(e.value)


def test_filter_type_and_dimension_errors():
    with pytest.raises(Exception, match="does not support input type"):
        _filt(IMG.astype(np.int32), K)
    with pytest.raises(Exception, match="Unsupported filter type"):
        _filt(IMG, K.astype(np.float64))
    with pytest.raises(Exception, match="only 2-dimensional"):
        _filt(np.zeros((4, 5, 6, 1), np.uint8), np.ones((3, 3, 3), np.float32), layout="DHWC")
    with pytest.raises(Exception, match="bigger than the sample"):
        _filt(IMG[:2], K, mode="valid")


# -- CPU/GPU parity ---------------------------------------------------------------------------

BATCH = [IMG, IMG[::-1].copy(), IMG[:, ::-1].copy()]
PARITY = {
    "gauss": lambda x: fn.gaussian_blur(x, sigma=1.3),
    "gauss_float": lambda x: fn.gaussian_blur(x, window_size=[3, 7], dtype=types.FLOAT),
    "laplacian": lambda x: fn.laplacian(x, window_size=5),
    "laplacian_smooth": lambda x: fn.laplacian(
        x, window_size=[3, 5], smoothing_size=1, dtype=types.FLOAT
    ),
    # a window wider than the image (the border reflected more than once)
    "gauss_wide": lambda x: fn.gaussian_blur(x, sigma=[9.0, 2.0]),
    # a window per sample: the samples one by one
    "gauss_per_sample": lambda x: fn.gaussian_blur(x, sigma=fn.random.uniform(range=[0.5, 4])),
}


@pytest.mark.parametrize("case", sorted(PARITY))
@cpu_gpu()  # the same float32 operations in the same order: bit-exact
def test_gpu_matches_cpu(case, device):
    return _run(
        lambda: PARITY[case](to_device(_src(BATCH, "HWC"), device)),
        batch_size=3,
        device_id=device_id(device),
    )


VOL = RNG.integers(0, 256, (6, 9, 11, 2)).astype(np.uint8)
RAGGED = {
    "ragged": (lambda: [IMG, IMG[3:, 5:].copy(), IMG[:1, :7].copy()], "HWC", {"sigma": 1.7}),
    "ragged_views": (lambda: [IMG, IMG[3:, 5:], IMG[:1, :7]], "HWC", {"sigma": 1.7}),
    "volumes": (
        lambda: [VOL, VOL[1:, ::2].copy(), VOL[:2].copy()],
        "DHWC",
        {"sigma": [1.0, 0.6, 2.5], "dtype": types.FLOAT},
    ),
}


@pytest.mark.parametrize("case", sorted(RAGGED))
@cpu_gpu()  # bit-exact: the samples one by one, one launch per axis on the GPU
def test_gpu_matches_cpu_ragged_and_volumes(case, device):
    samples, layout, kw = RAGGED[case]
    return _run(
        lambda: fn.gaussian_blur(to_device(_src(samples(), layout), device), **kw),
        batch_size=3,
        device_id=device_id(device),
    )


@pytest.mark.parametrize("border", ["reflect_101", "reflect_1001", "wrap", "clamp", "constant"])
@cpu_gpu(atol=1)  # OpenCV (CPU) and CuPy (GPU) add the products in other orders
def test_filter_gpu_matches_cpu(border, device):
    def build():
        x = to_device(_src(BATCH, "HWC"), device)
        k = _src([K, K, K], None)
        return fn.filter(x, to_device(k, device), border=border)

    return _run(build, batch_size=3, device_id=device_id(device))
