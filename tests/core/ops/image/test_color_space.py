"""fn.color_space_conversion: every supported pair against independent references (OpenCV's
grey conversion, BT.601 in float64), layouts, sequences, volumes, ragged batches, errors and
CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)
IMG = RNG.integers(0, 256, (16, 20, 3)).astype(np.uint8)
IMG[0, :16] = np.arange(0, 256, 16, dtype=np.uint8)[:, None]  # grey pixels
CH = {"RGB": 3, "BGR": 3, "GRAY": 1, "YCbCr": 3}


def _run(data, it, ot, layout="HWC", batch=None):
    batch = batch or [data, data]
    pipe = dali.Pipeline(batch_size=len(batch), num_threads=2, device_id=None)
    with pipe:
        src = fn.external_source(lambda: batch, layout=layout)
        pipe.set_outputs(
            fn.color_space_conversion(
                src, image_type=getattr(types, it), output_type=getattr(types, ot)
            )
        )
    return pipe.run()[0]


def _rgb_to_ycbcr(rgb):
    f = rgb.astype(np.float64)
    y = 16 + 219 / 255 * (f @ [0.299, 0.587, 0.114])
    cb = 128 + 224 / 255 * (f @ [-0.168736, -0.331264, 0.5])
    cr = 128 + 224 / 255 * (f @ [0.5, -0.418688, -0.081312])
    return np.stack([y, cb, cr], -1)


def _ycbcr_to_rgb(ycc):
    y = (ycc[..., 0].astype(np.float64) - 16) * 255 / 219
    cb = (ycc[..., 1].astype(np.float64) - 128) * 255 / 224
    cr = (ycc[..., 2].astype(np.float64) - 128) * 255 / 224
    rgb = np.stack([y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb], -1)
    return np.clip(rgb, 0, 255)


def test_rgb_bgr_and_gray_expansion():
    out = _run(IMG, "RGB", "BGR")
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    np.testing.assert_array_equal(out.samples()[0], IMG[..., ::-1])
    np.testing.assert_array_equal(_run(IMG, "BGR", "RGB").samples()[0], IMG[..., ::-1])
    gray = IMG[..., :1].copy()
    for ot in ("RGB", "BGR"):
        np.testing.assert_array_equal(_run(gray, "GRAY", ot).samples()[0], np.repeat(gray, 3, 2))


def test_rgb_to_gray_is_opencv():
    cv2 = pytest.importorskip("cv2")
    out = _run(IMG, "RGB", "GRAY").samples()[0]
    assert out.shape == (16, 20, 1)
    np.testing.assert_array_equal(out[..., 0], cv2.cvtColor(IMG, cv2.COLOR_RGB2GRAY))
    bgr = _run(IMG[..., ::-1].copy(), "BGR", "GRAY").samples()[0]
    np.testing.assert_array_equal(bgr, out)


def test_rgb_to_gray_without_opencv_is_exact():
    cv2 = pytest.importorskip("cv2")
    from dali._ops.image.color_space import convert_color_space

    grid = np.stack(np.meshgrid(*[np.arange(0, 256, 3)] * 3, indexing="ij"), -1)
    grid = grid.reshape(-1, 1, 3).astype(np.uint8)
    ours = convert_color_space(np, grid, int(types.RGB), int(types.GRAY))
    np.testing.assert_array_equal(ours[..., 0], cv2.cvtColor(grid, cv2.COLOR_RGB2GRAY))


def test_rgb_to_ycbcr_bt601():
    out = _run(IMG, "RGB", "YCbCr").samples()[0].astype(np.float64)
    assert np.abs(out - _rgb_to_ycbcr(IMG)).max() <= 0.5 + 1e-3
    assert (out[0, :16, 1:] == 128).all()  # grey: no chroma
    bgr = _run(IMG[..., ::-1].copy(), "BGR", "YCbCr").samples()[0]
    np.testing.assert_array_equal(bgr, out)


def test_ycbcr_to_rgb_and_gray():
    ycc = RNG.integers(16, 236, (8, 9, 3)).astype(np.uint8)
    rgb = _run(ycc, "YCbCr", "RGB").samples()[0].astype(np.float64)
    assert np.abs(rgb - _ycbcr_to_rgb(ycc)).max() <= 0.5 + 1e-3
    bgr = _run(ycc, "YCbCr", "BGR").samples()[0]
    np.testing.assert_array_equal(bgr, rgb[..., ::-1])
    gray = _run(ycc, "YCbCr", "GRAY").samples()[0]
    ref = np.clip(np.floor((ycc[..., :1] - 16.0) * 255 / 219 + 0.5), 0, 255)
    np.testing.assert_array_equal(gray, ref)


def test_gray_to_ycbcr():
    g = np.arange(256, dtype=np.uint8).reshape(16, 16, 1)
    out = _run(g, "GRAY", "YCbCr").samples()[0]
    np.testing.assert_array_equal(
        out[..., 0], np.floor(g[..., 0].astype(np.float64) * 219 / 255 + 16.5)
    )
    assert (out[..., 1:] == 128).all()
    assert out[0, 0, 0] == 16 and out[-1, -1, 0] == 235


def test_round_trip_is_close():
    ycc = _run(IMG, "RGB", "YCbCr").samples()[0]
    back = _run(ycc, "YCbCr", "RGB").samples()[0].astype(int)
    assert np.abs(back - IMG).max() <= 2


@pytest.mark.parametrize(
    ("shape", "layout", "out_layout"),
    [
        ((3, 4, 5, 3), "FHWC", "FHWC"),
        ((2, 4, 5, 3), "DHWC", "DHWC"),
        ((2, 2, 4, 5, 3), "FDHWC", "FDHWC"),
        ((4, 5, 3), None, "HWC"),
        ((2, 4, 5, 3), None, "FHWC"),
    ],
)
def test_sequences_and_volumes(shape, layout, out_layout):
    data = RNG.integers(0, 256, shape).astype(np.uint8)
    out = _run(data, "RGB", "YCbCr", layout)
    assert out.layout() == out_layout
    flat = _run(data.reshape(-1, 5, 3), "RGB", "YCbCr").samples()[0]
    np.testing.assert_array_equal(out.samples()[0], flat.reshape(shape))
    assert _run(data, "RGB", "GRAY", layout).samples()[0].shape == (*shape[:-1], 1)


def test_ragged_batch_and_empty_sample():
    a, b = IMG, IMG[:5, :7].copy()
    empty = np.zeros((0, 4, 3), np.uint8)
    out = _run(None, "RGB", "YCbCr", batch=[a, b, empty])
    assert [s.shape for s in out.samples()] == [(16, 20, 3), (5, 7, 3), (0, 4, 3)]
    np.testing.assert_array_equal(out.samples()[1], _run(b, "RGB", "YCbCr").samples()[0])
    gray = _run(None, "RGB", "GRAY", batch=[b, empty])
    assert gray.samples()[1].shape == (0, 4, 1)


def test_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [IMG], layout="HWC")
        y = fn.color_space_conversion(x, image_type=types.RGB, output_type=types.GRAY)
        assert y.dtype == types.UINT8
        pipe.set_outputs(y)
    assert pipe.run()[0].samples()[0].shape == (16, 20, 1)


@pytest.mark.parametrize(
    ("data", "it", "ot", "layout", "text"),
    [
        (IMG, "RGB", "RGB", "HWC", "conversion not supported"),
        (IMG, "YCbCr", "YCbCr", "HWC", "conversion not supported"),
        (IMG, "ANY_DATA", "RGB", "HWC", "conversion not supported"),
        (IMG, "RGB", "ANY_DATA", "HWC", "conversion not supported"),
        (IMG[..., :2].copy(), "RGB", "BGR", "HWC", "has 2 channels"),
        (IMG, "GRAY", "RGB", "HWC", "GRAY needs 1"),
        (IMG.astype(np.float32), "RGB", "YCbCr", "HWC", "only uint8"),
        (IMG.astype(np.int16), "RGB", "BGR", "HWC", "only uint8"),
        (IMG, "RGB", "BGR", "CHW", "unsupported input layout 'CHW'"),
        (IMG[..., 0].copy(), "RGB", "BGR", "HW", "unsupported input layout 'HW'"),
    ],
)
def test_errors(data, it, ot, layout, text):
    with pytest.raises(Exception, match=text) as info:
        _run(data, it, ot, layout)
    assert "color_space_conversion" in str(info.value)


def test_ragged_channel_error_names_sample():
    with pytest.raises(Exception, match=r"2 channels \(sample 1\)"):
        _run(None, "RGB", "YCbCr", batch=[IMG, IMG[..., :2].copy()])


def test_missing_arguments():
    with pytest.raises(Exception, match="output_type"):
        fn.color_space_conversion(types.Constant(IMG, layout="HWC"), image_type=types.RGB)


@cpu_gpu()
@pytest.mark.parametrize(
    ("it", "ot"),
    [(a, b) for a in CH for b in CH if a != b],
)
def test_gpu_matches_cpu(it, ot, device):
    data = np.ascontiguousarray(IMG[..., : CH[it]])
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        u = to_device(fn.external_source(lambda: [data, data], layout="HWC"), device)
        r = to_device(fn.external_source(lambda: [data, data[:5]], layout="HWC"), device)
        kw = {"image_type": getattr(types, it), "output_type": getattr(types, ot)}
        pipe.set_outputs(fn.color_space_conversion(u, **kw), fn.color_space_conversion(r, **kw))
    return pipe.run()


@pytest.mark.parametrize(("it", "ot"), [(a, b) for a in CH for b in CH if a != b])
def test_flat_conversion_of_a_ragged_batch_is_the_per_sample_one(it, ot):
    # the GPU converts a ragged batch's pixels at once, from its flat buffer
    from dali._ops.image.color_space import convert_color_space, convert_flat

    it_, ot_ = int(getattr(types, it)), int(getattr(types, ot))
    c = CH[it]
    samples = [IMG[..., :c], IMG[3:, 5:, :c], np.zeros((0, 4, c), np.uint8), IMG[:1, :1, :c]]
    flat = np.concatenate([np.ascontiguousarray(s).reshape(-1) for s in samples])
    out, shapes = convert_flat(np, flat, [s.shape for s in samples], it_, ot_)
    at = 0
    for s, shape in zip(samples, shapes):
        expected = convert_color_space(np, np.ascontiguousarray(s), it_, ot_)
        assert shape == expected.shape
        n = int(np.prod(shape))
        np.testing.assert_array_equal(out[at : at + n].reshape(shape), expected)
        at += n
    assert at == out.size


@pytest.mark.parametrize(
    ("it", "ot"),
    [
        ("RGB", "YCbCr"),
        ("BGR", "YCbCr"),
        ("YCbCr", "RGB"),
        ("YCbCr", "BGR"),
        ("YCbCr", "GRAY"),
        ("GRAY", "YCbCr"),
        ("RGB", "BGR"),
        ("BGR", "RGB"),
        ("GRAY", "RGB"),
        ("GRAY", "BGR"),
        ("RGB", "GRAY"),
        ("BGR", "GRAY"),
    ],
)
def test_fast_conversions_are_the_numpy_expressions(it, ot):
    # the Numba kernels (YCbCr) and OpenCV's cvtColor (the rest) against the numpy path they
    # replace, bit for bit: every value of the first channel against a lattice of the others
    # (every value too in the full check made when the kernels were written), grey pixels too
    pytest.importorskip("numba")
    pytest.importorskip("cv2")
    from dali._ops.image import color_space as cs

    assert cs._kernels() is not None
    v = np.arange(256, dtype=np.uint8)
    if CH[it] == 1:
        pixels = v[:, None]
    else:
        grid = np.meshgrid(v, v[1::5], v[2::3], indexing="ij")
        pixels = np.concatenate([np.stack(grid, -1).reshape(-1, 3), np.repeat(v[:, None], 3, 1)])
    a, b = int(getattr(types, it)), int(getattr(types, ot))
    got = cs.convert_color_space(np, pixels, a, b)
    want = cs.convert_color_space_reference(np, pixels, a, b)
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
