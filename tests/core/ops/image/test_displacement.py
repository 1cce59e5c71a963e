"""fn.water, fn.sphere, fn.jitter (the displacement filters): positions against per-pixel
references written from DALI's formulas, exact shifts, both interpolations, fill values as
C++ converts them, masks, layouts and types, errors, the Numba and numpy samplers against each
other, jitter's offsets and their distribution, and CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import _displace_jit, displacement
from dali._ops.image.displacement import convert_half_away, fill_pixel, sample, sample_numpy
from dali._ops.image.jitter import jitter_offsets
from parity import cpu_gpu, device_id, to_device

F32 = np.float32
RNG = np.random.default_rng(7)
IMG = RNG.integers(0, 256, (21, 30, 3), dtype=np.uint8)
SMALL = RNG.integers(0, 256, (9, 13, 1), dtype=np.uint8)
FIMG = (RNG.random((17, 11, 3)) * 100 - 20).astype(np.float32)


def _run(op, batch, layout="HWC", seed=11, **kwargs):
    pipe = dali.Pipeline(batch_size=len(batch), num_threads=2, device_id=None, seed=seed)
    with pipe:
        src = fn.external_source(lambda: batch, layout=layout)
        pipe.set_outputs(op(src, **kwargs))
    return pipe.run()[0]


def _samples(tl):
    return [np.asarray(tl.at(i)) for i in range(len(tl))]


# -- an independent per-pixel reference of DALI's sampler (dali/kernels/imgproc/sampler.h) ---


def _pixel(img, px, py, interp, fill):
    """One output pixel at float32 position (px, py), written out scalar by scalar."""
    h, w, c = img.shape

    def at(x, y):
        if 0 <= x < w and 0 <= y < h:
            return [F32(v) for v in img[y, x]]
        return [F32(fill)] * c

    if interp == 0:
        if not (math.isfinite(px) and math.isfinite(py)):
            return at(-1, -1)
        return at(math.floor(px), math.floor(py))
    x, y = F32(px) - F32(0.5), F32(py) - F32(0.5)
    x0, y0 = math.floor(x), math.floor(y)
    qx, qy = x - F32(x0), y - F32(y0)
    pw = F32(1) - qx
    out = []
    for ch in range(c):
        s00, s01 = at(x0, y0)[ch], at(x0 + 1, y0)[ch]
        s10, s11 = at(x0, y0 + 1)[ch], at(x0 + 1, y0 + 1)[ch]
        s0 = s00 * pw + s01 * qx
        s1 = s10 * pw + s11 * qx
        out.append(s0 + (s1 - s0) * qy)
    return out


def _reference(img, positions, interp, fill=0.0):
    h, w, c = img.shape
    out = np.zeros((h, w, c), np.float64)
    fill_value = float(fill_pixel(fill, img.dtype, 1)[0])
    for y in range(h):
        for x in range(w):
            px, py = positions(x, y, h, w)
            out[y, x] = _pixel(img, px, py, interp, fill_value)
    if img.dtype == np.uint8:  # std::round and saturation
        return np.clip(np.sign(out) * np.floor(np.abs(out) + 0.5), 0, 255).astype(np.uint8)
    return out.astype(img.dtype)


def _sphere_position(x, y, h, w):
    mid_x, mid_y = F32(w) * F32(0.5), F32(h) * F32(0.5)
    d = F32(int(max(mid_x, mid_y)))
    ty = F32(y) + F32(0.5) - mid_y
    tx = F32(x) + F32(0.5) - mid_x
    rad = F32(math.sqrt(F32(tx * tx + ty * ty))) / d
    return mid_x + rad * tx, mid_y + rad * ty


# -- sphere -----------------------------------------------------------------------------------


@pytest.mark.parametrize("interp", [0, 1])
@pytest.mark.parametrize("img", [IMG, SMALL, FIMG], ids=["u8", "u8_c1", "f32"])
def test_sphere_matches_reference(img, interp):
    out = _run(fn.sphere, [img], interp_type=types.DALIInterpType(interp), fill_value=9.0)
    assert out.layout() == "HWC" and out.dtype == (
        types.UINT8 if img.dtype == np.uint8 else types.FLOAT
    )
    ref = _reference(img, _sphere_position, interp, fill=9.0)
    np.testing.assert_array_equal(_samples(out)[0], ref)


def test_sphere_keeps_centre_and_fills_corners():
    img = np.full((10, 10, 2), 50, np.uint8)
    out = _samples(_run(fn.sphere, [img], fill_value=3))[0]
    assert (out[4:6, 4:6] == 50).all() and (out[0, 0] == 3).all()


def test_sphere_one_pixel_image_is_filled():
    # d = int(max(0.5, 0.5)) = 0: DALI divides by zero and the NaN position is outside
    out = _samples(_run(fn.sphere, [np.full((1, 1, 3), 8, np.uint8)], fill_value=2))[0]
    assert out.tolist() == [[[2, 2, 2]]]


# -- water ------------------------------------------------------------------------------------


def test_water_zero_amplitude_nn_is_identity_linear_averages_up_left():
    nn = _samples(_run(fn.water, [IMG], ampl_x=0.0, ampl_y=0.0))[0]
    np.testing.assert_array_equal(nn, IMG)
    lin = _samples(_run(fn.water, [FIMG], ampl_x=0.0, ampl_y=0.0, interp_type=types.INTERP_LINEAR))[
        0
    ]
    # position (x, y) is blended around (x - 0.5, y - 0.5): the 2x2 box up and left (fill 0)
    pad = np.pad(FIMG, ((1, 0), (1, 0), (0, 0)))
    box = (pad[:-1, :-1] + pad[:-1, 1:] + pad[1:, :-1] + pad[1:, 1:]) / 4
    np.testing.assert_allclose(lin, box, rtol=1e-6, atol=1e-5)


def test_water_constant_waves_shift_the_image():
    # sin(pi/2) = 1 and cos(0) = 1 in float32: px = x + 3, py = y - 2 exactly
    out = _samples(
        _run(fn.water, [IMG], ampl_x=3.0, freq_x=0.0, phase_x=float(np.float32(np.pi / 2)),
             ampl_y=-2.0, freq_y=0.0, phase_y=0.0, fill_value=7)
    )[0]  # fmt: skip
    ref = np.full_like(IMG, 7)
    ref[2:, :-3] = IMG[:-2, 3:]
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("interp", [0, 1])
def test_water_matches_reference(interp):
    kw = {"ampl_x": 2.5, "ampl_y": -4.0, "freq_x": 0.37, "freq_y": 0.21, "phase_x": 0.3,
          "phase_y": 1.1}  # fmt: skip

    def position(x, y, h, w):
        sx = F32(math.sin(F32(F32(kw["freq_x"]) * F32(y)) + F32(kw["phase_x"])))
        sy = F32(math.cos(F32(F32(kw["freq_y"]) * F32(x)) + F32(kw["phase_y"])))
        return F32(x) + F32(kw["ampl_x"]) * sx, F32(y) + F32(kw["ampl_y"]) * sy

    out = _samples(_run(fn.water, [IMG], interp_type=types.DALIInterpType(interp), **kw))[0]
    ref = _reference(IMG, position, interp)
    # the reference's sines are float64 ones rounded (DALI's are glibc's sinf): a last-bit
    # difference may move a blend by one unit, never more
    assert np.abs(out.astype(int) - ref).max() <= (1 if interp else 0)


@pytest.mark.parametrize("ampl", [1e10, -3e9])
def test_water_positions_beyond_int32_blend_to_zero(ampl):
    # DALI's floor_int gives INT_MIN there: NN is outside (fill), LINEAR's weights cancel
    kw = {"ampl_x": ampl, "ampl_y": 0.0, "freq_x": 0.0, "phase_x": float(np.float32(np.pi / 2))}
    nn = _samples(_run(fn.water, [FIMG], fill_value=50, **kw))[0]
    lin = _samples(_run(fn.water, [FIMG], fill_value=50, interp_type=types.INTERP_LINEAR, **kw))[0]
    assert (nn == 50).all() and (lin == 0).all()


def test_water_defaults():
    out = _samples(_run(fn.water, [IMG]))[0]
    assert out.shape == IMG.shape and not np.array_equal(out, IMG)


# -- arguments shared by the filters -----------------------------------------------------------


@pytest.mark.parametrize(
    ("fill", "expected"), [(300.0, 44), (-1.0, 255), (255.9, 255), (77.7, 77), (1e10, 0)]
)
def test_fill_value_is_converted_like_a_cpp_cast(fill, expected):
    out = _samples(_run(fn.sphere, [IMG], fill_value=fill))[0]
    assert (out[0, 0] == expected).all()
    lin = _samples(_run(fn.sphere, [IMG], fill_value=fill, interp_type=types.INTERP_LINEAR))[0]
    assert (lin[0, 0] == expected).all()


def test_float_fill_value():
    out = _samples(_run(fn.sphere, [FIMG], fill_value=-2.25))[0]
    assert (out[0, 0] == np.float32(-2.25)).all()


@pytest.mark.parametrize("op", [fn.water, fn.sphere, fn.jitter])
def test_mask_per_sample(op):
    pipe = dali.Pipeline(batch_size=3, num_threads=2, device_id=None, seed=2)
    with pipe:
        src = fn.external_source(lambda: [IMG, IMG, IMG], layout="HWC")
        mask = fn.external_source(lambda: [np.int32(0), np.int32(1), np.int32(-3)])
        pipe.set_outputs(op(src, mask=mask), op(src, mask=0))
    masked, off = pipe.run()
    a, b, c = _samples(masked)
    np.testing.assert_array_equal(a, IMG)
    assert not np.array_equal(b, IMG) and not np.array_equal(c, IMG)  # nonzero applies
    assert all(np.array_equal(s, IMG) for s in _samples(off))


def test_float_mask_is_an_error():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [IMG], layout="HWC")
        mask = fn.external_source(lambda: [np.float32(1)])
        pipe.set_outputs(fn.water(src, mask=mask))
    with pytest.raises(RuntimeError, match=r"water.*mask.*integer"):
        pipe.run()


@pytest.mark.parametrize("op", [fn.water, fn.sphere])
def test_ragged_batch_many_channels_and_no_layout(op):
    batch = [
        IMG,
        SMALL,
        RNG.integers(0, 256, (5, 4, 7), dtype=np.uint8),
        np.zeros((0, 3, 3), np.uint8),
    ]
    out = _run(op, batch, layout=None)
    assert out.layout() == "HWC"  # DALI's: the input's default layout
    assert [s.shape for s in _samples(out)] == [b.shape for b in batch]
    for x, b in zip(_samples(out), batch):  # each sample as if alone
        if b.size:
            np.testing.assert_array_equal(x, _samples(_run(op, [b]))[0])


@pytest.mark.parametrize("op", [fn.water, fn.sphere, fn.jitter])
@pytest.mark.parametrize(
    ("batch", "layout", "match"),
    [
        ([IMG], "CHW", r'layout "CHW" does not match .* Valid layouts are: HWC'),
        ([IMG[None]], "FHWC", r'layout "FHWC" does not match'),
        ([IMG[..., 0]], None, r"number of dimensions 2 does not match"),
        ([IMG.astype(np.int16)], "HWC", r"Unexpected input type int16"),
        ([IMG.astype(np.float64)], "HWC", r"Unexpected input type double"),
    ],
)
def test_input_errors(op, batch, layout, match):
    with pytest.raises(RuntimeError, match=match):
        _run(op, batch, layout=layout)


@pytest.mark.parametrize("op", [fn.water, fn.sphere, fn.jitter])
def test_cubic_is_rejected_at_build(op):
    with pytest.raises(Exception, match=r"interp_type.*only NN and LINEAR"):
        _run(op, [IMG], interp_type=types.INTERP_CUBIC)


def test_wave_arguments_are_not_per_sample():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe, pytest.raises(Exception, match="ampl_x"):
        src = fn.external_source(lambda: [IMG], layout="HWC")
        fn.water(src, ampl_x=fn.external_source(lambda: [np.float32(2)]))


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [IMG], layout="HWC", dtype=types.UINT8, ndim=3)
        out = fn.sphere(src)
        assert out.layout == "HWC" and out.ndim == 3


# -- the samplers ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.float32])
@pytest.mark.parametrize("interp", [0, 1])
@pytest.mark.parametrize("center", [False, True])
def test_numba_and_numpy_samplers_agree(dtype, interp, center):
    if not _displace_jit.available():
        pytest.skip("Numba is not installed")
    rng = np.random.default_rng(5)
    if np.dtype(dtype).kind == "f":
        src = (rng.random((13, 17, 3)) * 300 - 100).astype(dtype)
    else:
        info = np.iinfo(dtype)
        src = rng.integers(info.min, int(info.max) + 1, (13, 17, 3)).astype(dtype)
    px = rng.uniform(-3, 20, (11, 19)).astype(np.float32)
    py = rng.uniform(-3, 16, (11, 19)).astype(np.float32)
    px[0, :4] = [np.nan, np.inf, -np.inf, 1e30]  # never inside
    fill = np.full(3, 5, dtype)
    a = sample(src, px, py, interp=interp, fill=fill, center=center)
    b = sample_numpy(src, px, py, interp=interp, fill=fill, center=center)
    np.testing.assert_array_equal(a, b)
    assert (a[0, :4] == 5).all() if interp == 0 else True


def test_convert_half_away():
    v = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 254.49998, 254.5, np.nan, -7.0], np.float32)
    assert convert_half_away(v, np.uint8).tolist() == [1, 2, 3, 0, 0, 254, 255, 0, 0]
    assert convert_half_away(v, np.int16).tolist() == [1, 2, 3, -1, -2, 254, 255, 0, -7]


def test_fill_pixel():
    assert fill_pixel(-3.7, np.uint8, 2).tolist() == [253, 253]
    assert fill_pixel(float("nan"), np.uint8, 1).tolist() == [0]
    assert fill_pixel(70000.0, np.uint16, 1).tolist() == [4464]
    assert fill_pixel(1.5, np.float32, 1).tolist() == [1.5]


def test_module_constants():
    assert (displacement.NN, displacement.LINEAR) == (0, 1)


# -- jitter -----------------------------------------------------------------------------------


def _sources(out, img):
    """For every output pixel of an image whose values are its indices: where it came from."""
    h, w = img.shape[:2]
    idx = out[..., 0].astype(np.int64)
    ys, xs = np.mgrid[0:h, 0:w]
    return idx // w - ys, idx % w - xs


INDEX = np.arange(40 * 50, dtype=np.float32).reshape(40, 50, 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_jitter_offsets_stay_in_range_and_cover_it(n):
    out = _samples(_run(fn.jitter, [INDEX], nDegree=n))[0]
    dy, dx = _sources(out, INDEX)
    lo, hi = -(n // 2), n - 1 - n // 2
    inner = (slice(n, -n), slice(n, -n))  # away from the clamped border
    for d in (dx[inner], dy[inner]):
        assert d.min() == lo and d.max() == hi
        counts = np.bincount((d - lo).ravel(), minlength=n)
        expected = d.size / n  # uniform: within 6 standard deviations
        assert np.all(np.abs(counts - expected) < 6 * math.sqrt(expected) + 1)
    # the moved position is clamped into the image
    assert out.min() >= 0 and out.max() < INDEX.size


def test_jitter_channels_move_together_and_values_are_copied():
    img = np.concatenate([INDEX, INDEX * 2, INDEX + 1], axis=-1)
    out = _samples(_run(fn.jitter, [img], nDegree=5))[0]
    np.testing.assert_array_equal(out[..., 1], out[..., 0] * 2)
    np.testing.assert_array_equal(out[..., 2], out[..., 0] + 1)


def test_jitter_is_reproducible_and_seeded():
    a = _samples(_run(fn.jitter, [IMG, IMG], seed=4))
    b = _samples(_run(fn.jitter, [IMG, IMG], seed=4))
    c = _samples(_run(fn.jitter, [IMG, IMG], seed=5))
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[0], a[1])  # every sample has a stream of its own


def test_jitter_interp_and_fill_change_nothing():
    # an explicit operator seed keys the stream alone: the two operators draw the same offsets
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [IMG], layout="HWC")
        a = fn.jitter(src, nDegree=4, seed=9)
        b = fn.jitter(src, nDegree=4, seed=9, interp_type=types.INTERP_LINEAR, fill_value=100)
        pipe.set_outputs(a, b)
    a, b = (_samples(t)[0] for t in pipe.run())
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, IMG)


def test_jitter_one_degree_is_identity():
    np.testing.assert_array_equal(_samples(_run(fn.jitter, [FIMG], nDegree=1))[0], FIMG)


@pytest.mark.parametrize("n", [0, -2])
def test_jitter_needs_a_positive_degree(n):
    with pytest.raises(Exception, match=r"nDegree.*positive"):
        _run(fn.jitter, [IMG], nDegree=n)


def test_jitter_numba_and_numpy_agree(monkeypatch):
    if not _displace_jit.available():
        pytest.skip("Numba is not installed")
    batch = [IMG, RNG.integers(0, 256, (33, 20, 2), dtype=np.uint8)]
    fast = _samples(_run(fn.jitter, batch, seed=3, nDegree=6))
    monkeypatch.setattr(_displace_jit, "available", lambda: False)  # positions + sampler
    slow = _samples(_run(fn.jitter, batch, seed=3, nDegree=6))
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


def test_jitter_offsets_formula():
    bits = np.array([0, 0xFFFFFFFF_FFFFFFFF, 0x80000000_00000000, 0x00000000_80000000], np.uint64)
    dx, dy = jitter_offsets(bits, 2)
    assert dx.tolist() == [-1, 0, -1, 0] and dy.tolist() == [-1, 0, 0, -1]


# -- CPU/GPU parity -------------------------------------------------------------------------


@cpu_gpu()
def test_gpu_matches_cpu(device):
    pipe = dali.Pipeline(batch_size=3, num_threads=2, device_id=device_id(device), seed=17)
    batch = [IMG, SMALL.repeat(3, axis=-1), IMG[:5, :7].copy()]
    fbatch = [FIMG, FIMG[::-1].copy(), FIMG[:3].copy()]
    with pipe:
        u = to_device(fn.external_source(lambda: batch, layout="HWC"), device)
        f = to_device(fn.external_source(lambda: fbatch, layout="HWC"), device)
        mask = fn.external_source(lambda: [np.int32(1), np.int32(0), np.int32(1)])
        lin = types.INTERP_LINEAR
        pipe.set_outputs(
            fn.water(u), fn.water(f, interp_type=lin, ampl_x=4.5, freq_y=0.2, fill_value=3.5),
            fn.water(u, interp_type=lin, mask=mask, fill_value=300),
            fn.sphere(u, fill_value=12), fn.sphere(f, interp_type=lin, mask=mask),
            fn.jitter(u, nDegree=5), fn.jitter(f, mask=mask),
            fn.water(f, interp_type=lin, fill_value=50, ampl_x=1e10, freq_x=0.0,
                     phase_x=float(np.float32(np.pi / 2))),  # beyond int32: blends to 0
        )  # fmt: skip
    return pipe.run()
