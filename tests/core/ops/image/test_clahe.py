"""fn.clahe: OpenCV's CLAHE on the CPU (bit-exact, with and without OpenCV), DALI's CUDA
algorithm on the GPU (against a numpy model of it, and against the CPU within DALI's own
tolerance), luma-only RGB through L*a*b*, per-channel RGB, ragged batches, odd sizes, the
arguments and the errors."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import _clahe_cpu, _clahe_gpu
from dali._ops.image import clahe as clahe_module
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)
GREY = RNG.normal(90, 18, (30, 44, 1)).clip(0, 255).astype(np.uint8)
RGB = RNG.normal(110, 25, (27, 35, 3)).clip(0, 255).astype(np.uint8)
NOISE = RNG.integers(0, 256, (33, 41, 3), dtype=np.uint8)

# DALI's own tolerance between its GPU backend and OpenCV (dali/test/python/operator_1/
# test_clahe.py): mean squared error and mean absolute error per value
MSE_THRESHOLD = 5.0
MAE_THRESHOLD = 2.0


def _run(batch, layout="HWC", device="cpu", **kwargs):
    kwargs.setdefault("tiles_x", 4)
    kwargs.setdefault("tiles_y", 3)
    kwargs.setdefault("clip_limit", 2.0)
    pipe = dali.Pipeline(batch_size=len(batch), num_threads=2, device_id=device_id(device))
    with pipe:
        src = to_device(fn.external_source(lambda: batch, layout=layout), device)
        pipe.set_outputs(fn.clahe(src, **kwargs))
    out = pipe.run()[0]
    return out.as_cpu() if device == "gpu" else out


def _samples(tl):
    return [np.asarray(tl.at(i)) for i in range(len(tl))]


@pytest.fixture
def no_cv2(monkeypatch):
    """Run the CPU backend on its numpy implementation (as without OpenCV)."""
    monkeypatch.setattr(clahe_module, "optional_cv2", lambda: None)


# -- an independent reference: OpenCV's clahe.cpp written out pixel by pixel ------------------


def _clahe_loops(plane, tiles_x, tiles_y, clip):
    """``CLAHE_Impl::apply`` for 8-bit planes, as plain loops (small images only)."""
    h, w = plane.shape
    if w % tiles_x or h % tiles_y:
        ph, pw = h + tiles_y - h % tiles_y, w + tiles_x - w % tiles_x

        def refl(i, n):  # BORDER_REFLECT_101, repeated
            if n == 1:
                return 0
            while not 0 <= i < n:
                i = -i if i < 0 else 2 * (n - 1) - i
            return i

        ext = np.array([[plane[refl(y, h), refl(x, w)] for x in range(pw)] for y in range(ph)])
    else:
        ext = plane
    th, tw = ext.shape[0] // tiles_y, ext.shape[1] // tiles_x
    area = th * tw
    limit = max(int(float(np.float32(clip)) * area / 256), 1) if clip > 0 else 0
    scale = np.float32(255) / np.float32(area)
    luts = np.zeros((tiles_y, tiles_x, 256), np.float32)
    for ty in range(tiles_y):
        for tx in range(tiles_x):
            hist = [0] * 256
            for v in ext[ty * th : (ty + 1) * th, tx * tw : (tx + 1) * tw].ravel():
                hist[int(v)] += 1
            if limit > 0:
                clipped = 0
                for i in range(256):
                    if hist[i] > limit:
                        clipped += hist[i] - limit
                        hist[i] = limit
                batch, residual = clipped // 256, clipped % 256
                hist = [v + batch for v in hist]
                if residual:
                    step = max(256 // residual, 1)
                    i = 0
                    while i < 256 and residual > 0:
                        hist[i] += 1
                        i += step
                        residual -= 1
            total = 0
            for i in range(256):
                total += hist[i]
                luts[ty, tx, i] = np.clip(np.rint(np.float32(total) * scale), 0, 255)
    out = np.zeros((h, w), np.uint8)
    one = np.float32(1)
    for y in range(h):
        tyf = np.float32(y) * (one / np.float32(th)) - np.float32(0.5)
        ty1 = int(np.floor(tyf))
        ya = np.float32(tyf - np.float32(ty1))
        ya1 = one - ya
        ty1, ty2 = max(ty1, 0), min(ty1 + 1, tiles_y - 1)
        for x in range(w):
            txf = np.float32(x) * (one / np.float32(tw)) - np.float32(0.5)
            tx1 = int(np.floor(txf))
            xa = np.float32(txf - np.float32(tx1))
            xa1 = one - xa
            tx1, tx2 = max(tx1, 0), min(tx1 + 1, tiles_x - 1)
            v = int(plane[y, x])
            res = (luts[ty1, tx1, v] * xa1 + luts[ty1, tx2, v] * xa) * ya1 + (
                luts[ty2, tx1, v] * xa1 + luts[ty2, tx2, v] * xa
            ) * ya
            out[y, x] = np.clip(np.rint(np.float32(res)), 0, 255)
    return out


@pytest.mark.parametrize(
    ("shape", "tiles", "clip"),
    [
        ((24, 32), (4, 3), 2.0),  # divisible
        ((23, 30), (4, 3), 2.0),  # extended at the bottom and right
        ((24, 30), (4, 3), 3.0),  # only the width uneven: a whole extra tile row too
        ((5, 7), (8, 8), 2.0),  # tiles larger than the image: reflected many times
        ((1, 9), (2, 3), 1.0),  # one row
        ((16, 16), (2, 2), 0.0),  # no clipping
        ((16, 16), (2, 2), -3.0),
        ((16, 16), (2, 2), 40.0),
    ],
)
def test_plane_matches_loop_reference(shape, tiles, clip):
    plane = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    plane[: shape[0] // 2] //= 4  # uneven histograms: clipping matters
    want = _clahe_loops(plane, *tiles, clip)
    np.testing.assert_array_equal(_clahe_cpu.clahe_plane(plane, *tiles, clip), want)


@pytest.mark.parametrize("numpy_only", [False, True])
def test_grey_matches_reference(numpy_only, request):
    if numpy_only:
        request.getfixturevalue("no_cv2")
    out = _run([GREY, GREY[::-1].copy()], tiles_x=4, tiles_y=3, clip_limit=2.5)
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    got = _samples(out)
    np.testing.assert_array_equal(got[0][..., 0], _clahe_loops(GREY[..., 0], 4, 3, 2.5))
    np.testing.assert_array_equal(got[1][..., 0], _clahe_loops(GREY[::-1, :, 0], 4, 3, 2.5))


def _opencv(img, tiles, clip, luma):
    cv2 = pytest.importorskip("cv2")
    clahe = cv2.createCLAHE(clipLimit=float(np.float32(clip)), tileGridSize=tiles)
    if img.shape[2] == 1:
        return clahe.apply(img[..., 0])[..., None]
    if luma:
        lab = cv2.cvtColor(img, cv2.COLOR_RGB2Lab)
        lab[..., 0] = clahe.apply(np.ascontiguousarray(lab[..., 0]))
        return cv2.cvtColor(lab, cv2.COLOR_Lab2RGB)
    return np.stack([clahe.apply(np.ascontiguousarray(img[..., c])) for c in range(3)], -1)


@pytest.mark.parametrize("numpy_only", [False, True])
@pytest.mark.parametrize("luma_only", [True, False])
def test_rgb_matches_opencv(luma_only, numpy_only, request):
    if numpy_only:
        request.getfixturevalue("no_cv2")
    batch = [RGB, NOISE, GREY]  # ragged, mixed channel counts
    out = _run(batch, tiles_x=3, tiles_y=5, clip_limit=3.0, luma_only=luma_only)
    for got, img in zip(_samples(out), batch):
        np.testing.assert_array_equal(got, _opencv(img, (3, 5), 3.0, luma_only))


def test_luma_only_keeps_colour_and_stretches_lightness():
    shade = np.random.default_rng(1).normal(0, 4, (32, 32, 1))
    img = (np.array([120.0, 90.0, 60.0]) + shade).clip(0, 255).astype(np.uint8)  # low contrast
    got = _samples(_run([img], tiles_x=2, tiles_y=2, clip_limit=4.0))[0]
    before, after = (_clahe_cpu.rgb_to_lab(x).astype(float) for x in (img, got))
    assert after[..., 0].std() > 2 * before[..., 0].std()  # the lightness is stretched
    assert np.abs(after[..., 1:] - before[..., 1:]).mean() < 2  # a*, b*: the colour stays


def test_lab_conversions_match_opencv():
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(3)
    colours = rng.integers(0, 256, (512, 1024, 3), dtype=np.uint8)
    colours[0, :256] = np.arange(256)[:, None]  # greys, the cube root table's tie among them
    np.testing.assert_array_equal(
        _clahe_cpu.rgb_to_lab(colours), cv2.cvtColor(colours, cv2.COLOR_RGB2Lab)
    )
    np.testing.assert_array_equal(
        _clahe_cpu.lab_to_rgb(colours), cv2.cvtColor(colours, cv2.COLOR_Lab2RGB)
    )


def test_lab_tie_entry():
    # (0, 98, 254) reaches the cube root table at 324/2040, where OpenCV rounds a tie down
    px = np.array([[[0, 98, 254]]], np.uint8)
    assert _clahe_cpu.rgb_to_lab(px).tolist() == [[[119, 165, 45]]]


@pytest.mark.parametrize("numpy_only", [False, True])
def test_odd_shapes_and_many_tiles(numpy_only, request):
    if numpy_only:
        request.getfixturevalue("no_cv2")
    batch = [
        np.array([[[200]]], np.uint8),
        RNG.integers(0, 256, (3, 5, 3), dtype=np.uint8),
        RNG.integers(0, 256, (2, 40, 1), dtype=np.uint8),
    ]
    out = _run(batch, tiles_x=8, tiles_y=8, clip_limit=2.0)
    for got, img in zip(_samples(out), batch):
        assert got.shape == img.shape
        np.testing.assert_array_equal(got, _opencv(img, (8, 8), 2.0, True))


def test_constant_image_and_no_clipping():
    flat = np.full((16, 16, 1), 77, np.uint8)
    # one value per tile: the table sends it to 255 (cdf = area), clipped or not
    assert (_samples(_run([flat], tiles_x=2, tiles_y=2, clip_limit=0.0))[0] == 255).all()
    # one tile, no clipping: plain equalization through rint(cdf * 255 / area)
    got = _samples(_run([GREY], tiles_x=1, tiles_y=1, clip_limit=0.0))[0]
    cdf = np.cumsum(np.bincount(GREY.ravel(), minlength=256)).astype(np.float32)
    lut = np.rint(cdf * (np.float32(255) / np.float32(GREY.size))).astype(np.uint8)
    np.testing.assert_array_equal(got, lut[GREY])


def test_bins_is_accepted_and_unused():
    a = _samples(_run([RGB], bins=256))[0]
    b = _samples(_run([RGB], bins=64))[0]
    np.testing.assert_array_equal(a, b)


def test_no_layout_means_hwc_and_empty_samples():
    empty = np.zeros((0, 5, 3), np.uint8)
    out = _run([empty, RGB], layout=None)
    assert out.layout() == "HWC"
    got = _samples(out)
    assert got[0].shape == (0, 5, 3)
    np.testing.assert_array_equal(got[1], _opencv(RGB, (4, 3), 2.0, True))


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [RGB], layout="HWC", dtype=types.UINT8, ndim=3)
        out = fn.clahe(src, tiles_x=2, tiles_y=2, clip_limit=2.0)
        pipe.set_outputs(out)
    assert out.layout == "HWC" and out.ndim == 3 and out.dtype == types.UINT8


@pytest.mark.parametrize(
    ("data", "layout", "kwargs", "text"),
    [
        (GREY[..., 0].copy(), "HW", {}, 'layout "HW" does not match any of the allowed layouts'),
        (GREY[..., 0].copy(), None, {}, "number of dimensions 2 does not match"),
        (np.stack([RGB, RGB]), None, {}, "number of dimensions 4 does not match"),
        (RGB, "CHW", {}, 'layout "CHW" does not match'),
        (RGB.astype(np.float32), "HWC", {}, "ClaheCPU currently supports only uint8 input"),
        (RGB.astype(np.int16), "HWC", {}, "ClaheCPU currently supports only uint8 input"),
        (RGB[..., :2].copy(), "HWC", {}, "ClaheCPU supports 1 or 3 channels"),
        (np.zeros((4, 4, 4), np.uint8), "HWC", {}, "ClaheCPU supports 1 or 3 channels"),
        (RGB, "HWC", {"tiles_x": 0}, 'Argument "tiles_x" must be positive, got 0'),
        (RGB, "HWC", {"tiles_y": -2}, 'Argument "tiles_y" must be positive, got -2'),
    ],
)
def test_errors(data, layout, kwargs, text):
    with pytest.raises(Exception, match=text) as info:
        _run([data], layout, **kwargs)
    assert "clahe" in str(info.value)


@pytest.mark.parametrize("missing", ["tiles_x", "tiles_y", "clip_limit"])
def test_required_arguments(missing):
    kwargs = {"tiles_x": 2, "tiles_y": 2, "clip_limit": 2.0}
    del kwargs[missing]
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pytest.raises(Exception, match=missing):
        with pipe:
            pipe.set_outputs(fn.clahe(fn.external_source(lambda: [RGB], layout="HWC"), **kwargs))
        pipe.build()
        pipe.run()


def test_clip_limit_is_not_a_tensor_argument():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pytest.raises(Exception, match="clip_limit"), pipe:
        src = fn.external_source(lambda: [RGB], layout="HWC")
        fn.clahe(src, tiles_x=2, tiles_y=2, clip_limit=fn.random.uniform(range=(1, 2)))


# -- GPU: DALI's CUDA algorithm ---------------------------------------------------------------
#
# A numpy model of DALI 2.4's kernels (dali/operators/image/clahe/clahe_op.cu), with its
# float32 operations in the same order and the same fused multiply-adds as the CuPy kernels.

_F = np.float32
_TAB = _clahe_gpu.color_tables()
_S2L = _TAB[_clahe_gpu.SRGB_TO_LINEAR :][:256]
_L2S = _TAB[_clahe_gpu.LINEAR_TO_SRGB :][:4096]
_X2L = _TAB[_clahe_gpu.XYZ_TO_LAB :][:4096]
_L2X = _TAB[_clahe_gpu.LAB_TO_XYZ :][:4096]


def _fma(a, b, c):
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + c).astype(_F)


def _mul(a, b):
    return (np.asarray(a, _F) * np.asarray(b, _F)).astype(_F)


def _dot3(a, b, c, d, e, f):
    return _fma(e, f, _fma(a, b, _mul(c, d)))


def _lab_f(t):
    idx = np.rint(_mul(np.maximum(t, _F(0)), _F(4095))).astype(np.int64).clip(0, 4095)
    return np.where(t > 1, np.cbrt(t.astype(np.float64)).astype(_F), _X2L[idx])


def _lab_f_inv(u):
    c = np.clip(np.asarray(u, _F), _F(0), _F(1.2))
    return _L2X[np.minimum(np.rint(_mul(c, _F(4095) / _F(1.2))).astype(np.int64), 4095)]


def _norm_u8(v):
    return np.rint(_mul(_F(255), np.clip(v, _F(0), _F(1)))).astype(np.uint8)


def _rgb_xyz(img):
    m = _clahe_gpu._RGB2XYZ
    r, g, b = (_S2L[img[..., k]] for k in range(3))
    return [_dot3(m[3 * k], r, m[3 * k + 1], g, m[3 * k + 2], b) for k in range(3)]


def _dali_gpu_luts(plane, tiles_x, tiles_y, clip):
    h, w = plane.shape
    tw, th = -(-w // tiles_x), -(-h // tiles_y)
    luts = np.zeros((tiles_y, tiles_x, 256), _F)
    for ty in range(tiles_y):
        for tx in range(tiles_x):
            x0, y0 = tx * tw, ty * th
            part = plane[y0 : min(y0 + th, h), x0 : min(x0 + tw, w)]
            hist = np.bincount(part.ravel(), minlength=256).astype(np.int64)
            area = max(1, part.size)
            limit = max(int(_mul(_mul(_F(clip), _F(area)), _F(1 / 256))), 1)
            excess = int(np.maximum(hist - limit, 0).sum())
            hist = np.minimum(hist, limit) + excess // 256
            if excess % 256:  # one more to bins 0, step, 2 step, ...
                residual, i = excess % 256, np.arange(256)
                step = max(256 // residual, 1)
                hist += (i % step == 0) & (i // step < residual)
            val = _fma(np.cumsum(hist).astype(_F), _F(255) / _F(area), _F(0.5))
            luts[ty, tx] = np.clip(val, 0, 255).astype(np.uint8)
    return luts


def _dali_gpu_axis(n, tiles):
    g = _fma(np.arange(n, dtype=_F), _F(tiles) / _F(n), _F(-0.5))
    t = np.floor(g).astype(np.int64)
    t0, t1 = t.clip(0, tiles - 1), (t + 1).clip(0, tiles - 1)
    frac = np.clip((g - t.astype(_F)).astype(_F), 0, 1)
    return t0, t1, np.where(t0 == t1, _F(0), frac).astype(_F)


def _lerp(a, b, w):
    return _fma(a, (_F(1) - w).astype(_F), _mul(b, w))


def _dali_gpu(img, tiles_x, tiles_y, clip):
    """DALI 2.4's GPU CLAHE of one HWC uint8 sample (RGB: luma only)."""
    h, w, c = img.shape
    if c == 1:
        plane = img[..., 0]
    else:
        y = _rgb_xyz(img)[1]
        big_l = _fma(_F(116), _lab_f(y), _F(-16))
        plane = _norm_u8(_mul(big_l, _F(1) / _F(100)))
    luts = _dali_gpu_luts(plane, tiles_x, tiles_y, clip)
    x0, x1, fx = _dali_gpu_axis(w, tiles_x)
    y0, y1, fy = _dali_gpu_axis(h, tiles_y)
    v = plane.astype(np.int64)
    top = _lerp(luts[y0[:, None], x0, v], luts[y0[:, None], x1, v], fx)
    bottom = _lerp(luts[y1[:, None], x0, v], luts[y1[:, None], x1, v], fx)
    out = _lerp(top, bottom, fy[:, None])
    if c == 1:
        return np.rint(np.clip(out, 0, 255)).astype(np.uint8)[..., None]
    xyz = _rgb_xyz(img)
    fx_ = _lab_f(_mul(xyz[0], _F(1) / _clahe_gpu._WHITE_X))
    fy_ = _lab_f(xyz[1])
    fz_ = _lab_f(_mul(xyz[2], _F(1) / _clahe_gpu._WHITE_Z))
    a, b = _mul(_F(500), fx_ - fy_), _mul(_F(200), fy_ - fz_)
    big_l = np.clip(np.rint(_mul(out, _F(100) / _F(255))), 0, 100).astype(_F)
    fyl = _mul(big_l + _F(16), _F(1) / _F(116))
    xl = _mul(_lab_f_inv(_fma(a, _F(1) / _F(500), fyl)), _clahe_gpu._WHITE_X)
    yl = _lab_f_inv(fyl)
    zl = _mul(_lab_f_inv(_fma(-b, _F(1) / _F(200), fyl)), _clahe_gpu._WHITE_Z)
    m = _clahe_gpu._XYZ2RGB
    chans = []
    for k in range(3):
        lin = _dot3(m[3 * k], xl, m[3 * k + 1], yl, m[3 * k + 2], zl)
        idx = np.rint(_mul(np.clip(lin, _F(0), _F(1)), _F(4095))).astype(np.int64)
        chans.append(_norm_u8(_L2S[idx]))
    return np.stack(chans, -1)


def _synthetic():
    """DALI's test images (test_clahe.py's create_synthetic_test_images), 256x256."""
    rng = np.random.default_rng(0)
    i, j = np.arange(256)[:, None], np.arange(256)[None, :]
    grad = (50 + 50 * np.sin(i * 0.02) * np.cos(j * 0.02)).astype(np.int64)
    blocks = np.zeros((256, 256, 3), np.uint8)
    for a in range(0, 256, 32):
        for b in range(0, 256, 32):
            dark = (a // 32 + b // 32) % 2 == 0
            lo = 20 if dark else 200
            blocks[a : a + 32, b : b + 32] = rng.integers(lo, lo + 20, (32, 32, 3))
    dist = np.sqrt((i - 128.0) ** 2 + (j - 128.0) ** 2)
    scan = 30 + 60 * np.exp(-dist / 50) + 20 * rng.random((256, 256))
    return [
        np.repeat(grad[..., None], 3, -1).astype(np.uint8),
        blocks,
        scan.astype(np.int64).clip(0, 255).astype(np.uint8)[..., None],
    ]


def test_dali_gpu_model_within_dali_tolerance_of_cpu():
    """The model of DALI's GPU algorithm against the CPU backend, with DALI's own thresholds
    (runs everywhere: it checks the model the GPU tests below hold the kernels to)."""
    images = _synthetic()
    for tiles_x, tiles_y, clip in [(4, 4, 2.0), (8, 8, 3.0), (4, 8, 2.5), (2, 2, 1.0)]:
        cpu = _samples(_run(images, tiles_x=tiles_x, tiles_y=tiles_y, clip_limit=clip))
        for img, c in zip(images, cpu):
            g = _dali_gpu(img, tiles_x, tiles_y, clip).astype(np.float64)
            assert np.mean((g - c) ** 2) < MSE_THRESHOLD
            assert np.mean(np.abs(g - c)) < MAE_THRESHOLD


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("tiles", "clip"),
    [((4, 3), 2.0), ((8, 8), 3.0), ((1, 1), 0.0), ((7, 5), -1.0), ((16, 2), 40.0)],
)
def test_gpu_matches_dali_gpu_model(tiles, clip):
    pytest.importorskip("cupy")
    batch = [
        GREY,
        RGB,
        NOISE,
        np.array([[[9]]], np.uint8),
        RNG.integers(0, 256, (3, 70, 3), dtype=np.uint8),  # tiles past the image
        np.zeros((0, 4, 1), np.uint8),
        _synthetic()[1][:100, :128].copy(),
    ]
    out = _run(batch, device="gpu", tiles_x=tiles[0], tiles_y=tiles[1], clip_limit=clip)
    assert out.layout() == "HWC"
    for k, (got, img) in enumerate(zip(_samples(out), batch)):
        assert got.shape == img.shape and got.dtype == np.uint8
        if not img.size:
            continue
        want = _dali_gpu(img, *tiles, clip)
        diff = np.abs(got.astype(int) - want)
        # device cbrtf (only above 1: near-white) may differ from the host's by an ulp
        assert diff.max(initial=0) <= 1 and (diff > 0).mean() < 1e-3, f"sample {k}"


@pytest.mark.gpu
def test_gpu_within_dali_tolerance_of_cpu():
    pytest.importorskip("cupy")
    images = _synthetic()
    for tiles_x, tiles_y, clip in [(4, 4, 2.0), (8, 8, 3.0), (5, 7, 1.0), (4, 8, 2.5)]:
        kw = {"tiles_x": tiles_x, "tiles_y": tiles_y, "clip_limit": clip}
        cpu = _samples(_run(images, **kw))
        gpu = _samples(_run(images, device="gpu", **kw))
        for c, g in zip(cpu, gpu):
            d = g.astype(np.float64) - c
            assert np.mean(d**2) < MSE_THRESHOLD and np.mean(np.abs(d)) < MAE_THRESHOLD


@cpu_gpu(atol=2)
def test_gpu_matches_cpu_grey(device):
    """Grey images whose sides are multiples of the grid: DALI's GPU tiles are OpenCV's; the
    tables differ only in rounding (``+0.5`` truncated vs half to even), so by at most 2."""
    shapes = [(30, 44), (64, 64), (12, 85)]
    rng = np.random.default_rng(5)  # the same images on both devices
    batch = [rng.normal(100, 30, (*s, 1)).clip(0, 255).astype(np.uint8) for s in shapes]
    tiles = {"tiles_x": 1, "tiles_y": 1}
    pipe = dali.Pipeline(batch_size=3, num_threads=2, device_id=device_id(device))
    with pipe:
        src = to_device(fn.external_source(lambda: batch, layout="HWC"), device)
        pipe.set_outputs(
            fn.clahe(src, **tiles, clip_limit=2.0),
            fn.clahe(src, tiles_x=1, tiles_y=2, clip_limit=4.0),
        )
    return pipe.run()


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("data", "kwargs", "text"),
    [
        (RGB, {"luma_only": False}, "ClaheGPU RGB input requires luma_only=True"),
        (RGB.astype(np.float32), {}, "ClaheGPU currently supports only uint8 input"),
        (RGB[..., :2].copy(), {}, "ClaheGPU supports 1 or 3 channels"),
    ],
)
def test_gpu_errors(data, kwargs, text):
    pytest.importorskip("cupy")
    with pytest.raises(Exception, match=text):
        _run([data], device="gpu", **kwargs)


@pytest.mark.gpu
def test_gpu_grey_with_luma_only_false():
    pytest.importorskip("cupy")
    got = _samples(_run([GREY], device="gpu", luma_only=False))[0]
    np.testing.assert_array_equal(got, _dali_gpu(GREY, 4, 3, 2.0))
