"""`fn.resize`: size rules, ROI, flips, filters, rounding, layouts, errors."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image.resample import reference as R
from dali._ops.image.resample.cpu import resample
from dali._ops.image.resize import axis_plans, output_geometry, spatial_axes
from parity import assert_same, device_id, to_device

# -- helpers -----------------------------------------------------------------------------------


def _image(h: int = 100, w: int = 200, c: int = 3, seed: int = 0) -> np.ndarray:
    """A smooth image with some texture (values spread over 0..255)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    base = 127 + 100 * np.sin(xx / 7.0 + seed) * np.cos(yy / 5.0)
    img = base[..., None] + rng.normal(0, 20, (h, w, c))
    return np.clip(img, 0, 255).astype(np.uint8)


def run(op, batch, layout="HWC", *, args=None, batch_size=None, num_threads=2):
    """Run ``op(data, **arg_nodes)`` on one batch fed by external_source; returns the outputs.

    ``args`` maps argument names to per-sample lists (fed as argument inputs).
    """
    batch = list(batch)
    args = args or {}
    bs = batch_size or len(batch)

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    @dali.pipeline_def(batch_size=bs, num_threads=num_threads, device_id=None, seed=7)
    def pipe():
        data = fn.external_source(source=feeder(batch), layout=layout)
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in args.items()}
        out = op(data, **nodes)
        return tuple(out) if isinstance(out, list) else out

    p = pipe()
    p.build()
    return p.run()


def run1(op, img, layout="HWC", **kw):
    return run(op, [img], layout, **kw)[0].as_array()[0]


def reference(
    img, out_hw, lo=None, hi=None, interp=R.LINEAR, mag=None, antialias=True, dtype=np.uint8
):
    h, w = img.shape[:2]
    lo = lo or (0.0, 0.0)
    hi = hi or (float(h), float(w))
    mag = interp if mag is None else mag
    plans = axis_plans((h, w), out_hw, lo, hi, interp, mag, antialias)
    return R.resample_reference(img, (0, 1), plans, dtype)


# -- the size table of DALI's resize documentation (100x200 image) ------------------------------

SIZE_TABLE = [
    ({"resize_x": 50}, (25, 50)),
    ({"resize_y": 50}, (50, 100)),
    ({"resize_x": 50, "resize_y": 30}, (30, 50)),
    ({"resize_x": 50, "resize_y": 0}, (25, 50)),
    ({"resize_x": 50, "mode": "stretch"}, (100, 50)),
    ({"size": (30, 50)}, (30, 50)),
    ({"size": 30}, (30, 30)),
    ({"size": [30]}, (30, 30)),
    ({"size": (0, 50)}, (25, 50)),
    ({"resize_shorter": 50}, (50, 100)),
    ({"resize_shorter": 51.2}, (51, 102)),
    ({"resize_longer": 50}, (25, 50)),
    ({"resize_longer": 300}, (150, 300)),
    ({"resize_shorter": 50, "max_size": 80}, (40, 80)),
    ({"resize_shorter": 50, "max_size": 90}, (45, 90)),
    ({"size": (50, 50), "mode": "not_larger"}, (25, 50)),
    ({"size": (50, 50), "mode": "not_smaller"}, (50, 100)),
    ({"size": (50, 50), "mode": "not_smaller", "max_size": (60, 80)}, (40, 80)),
    ({"size": (60, 60), "mode": "not_smaller", "max_size": 100}, (50, 100)),
    ({"size": (50, 50), "mode": "stretch"}, (50, 50)),
    ({"resize_x": 33.3}, (17, 33)),
    ({"resize_x": 33.5}, (17, 34)),
    ({"resize_x": -50}, (25, 50)),
    ({"size": (30, 50), "roi_start": (10, 20), "roi_end": (60, 120)}, (30, 50)),
]


@pytest.mark.parametrize("kwargs,expected", SIZE_TABLE, ids=[str(k) for k, _ in SIZE_TABLE])
def test_size_table(kwargs, expected):
    out = run(lambda x: fn.resize(x, **kwargs), [_image()])[0]
    assert out.shape() == [(*expected, 3)]
    assert out.dtype == types.UINT8 and out.layout() == "HWC"


def test_negative_size_flips():
    img = _image()
    flipped = run1(lambda x: fn.resize(x, resize_x=-50), img)
    plain = run1(lambda x: fn.resize(x, resize_x=50), img)
    assert np.abs(flipped.astype(int) - plain[:, ::-1]).max() <= 1
    assert np.mean(flipped == plain[:, ::-1]) > 0.99


# DALI documents a meaning for a negative requested extent: "a negative value flips the image"
# (resize_x/y/z; its ``ResizeAttr`` treats each extent of ``size`` alike: the sign survives
# ``AdjustOutputSize``, then ``CalculateSampleParams`` swaps that axis' source range). We do the
# same on CPU and GPU. (A negative resize_shorter / resize_longer also flips both axes in DALI,
# undocumented: an error here, `test_negative_shorter_or_longer_side_is_an_error`.)
NEGATIVE_SIZES = [
    # (negative request, the same request positive, axes flipped)
    ({"resize_y": -30}, {"resize_y": 30}, (0,)),
    ({"size": (-30, 50)}, {"size": (30, 50)}, (0,)),
    ({"size": (30, -50)}, {"size": (30, 50)}, (1,)),
    (
        {"size": (-40, -40), "mode": "not_smaller"},
        {"size": (40, 40), "mode": "not_smaller"},
        (0, 1),
    ),
]


def _flip(a, axes):
    for ax in axes:
        a = np.flip(a, ax)
    return a


@pytest.mark.parametrize(
    ("neg", "pos", "axes"), NEGATIVE_SIZES, ids=[str(n) for n, _, _ in NEGATIVE_SIZES]
)
def test_negative_sizes_flip_like_dali(neg, pos, axes):
    img = _image()
    flipped = run1(lambda x: fn.resize(x, **neg), img)
    plain = run1(lambda x: fn.resize(x, **pos), img)
    assert flipped.shape == plain.shape
    expected = _flip(plain, axes)
    assert np.abs(flipped.astype(int) - expected).max() <= 1
    assert np.mean(flipped == expected) > 0.99


def test_negative_per_sample_size_flips_that_sample():
    imgs = [_image(seed=1), _image(seed=2)]
    out = run(
        lambda x, resize_x: fn.resize(x, resize_x=resize_x),
        imgs,
        args={"resize_x": [np.float32(50), np.float32(-50)]},
    )[0]
    plain = run(lambda x: fn.resize(x, resize_x=50), imgs)[0]
    np.testing.assert_array_equal(out.at(0), plain.at(0))
    assert np.abs(out.at(1).astype(int) - plain.at(1)[:, ::-1]).max() <= 1


@pytest.mark.parametrize("name", ["resize_shorter", "resize_longer"])
def test_negative_shorter_or_longer_side_is_an_error(name):
    img = _image()
    with pytest.raises(RuntimeError) as e:
        run(lambda x: fn.resize(x, **{name: -5}), [img])
    message = str(e.value)
    assert "dali.fn.resize" in message and f"argument `{name}`" in message
    assert "must not be negative, got -5" in message
    # per sample: names the sample; a sample with 0 (not given) or a positive side is fine
    with pytest.raises(RuntimeError) as e:
        run(
            lambda x, side: fn.resize(x, **{name: side}),
            [img, img],
            args={"side": [np.float32(40), np.float32(-40)]},
        )
    assert f"argument `{name}`" in str(e.value) and "sample 1: must not be negative" in str(e.value)


def test_max_size_must_not_be_negative_and_zero_means_no_limit():
    img = _image()
    with pytest.raises(RuntimeError) as e:
        run(lambda x: fn.resize(x, resize_shorter=50, max_size=(-80, 80)), [img])
    pipe_error = str(e.value)
    assert "dali.fn.resize" in pipe_error and "argument `max_size`" in pipe_error
    assert "negative" in pipe_error
    # DALI: a max_size of 0 puts no limit on that axis
    out = run1(lambda x: fn.resize(x, resize_shorter=50, max_size=(0, 80)), img)
    assert out.shape == (40, 80, 3)
    out = run1(lambda x: fn.resize(x, resize_shorter=50, max_size=0), img)
    assert out.shape == (50, 100, 3)


@pytest.mark.gpu
def test_negative_sizes_flip_on_gpu_as_on_cpu():
    pytest.importorskip("cupy")
    imgs = [_image(seed=1), _image(60, 45, seed=2)]

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    def one(op, device, args):
        @dali.pipeline_def(batch_size=2, num_threads=2, device_id=device_id(device), seed=7)
        def pipe():
            data = to_device(fn.external_source(source=lambda: imgs, layout="HWC"), device)
            nodes = {k: fn.external_source(source=feeder(v)) for k, v in args.items()}
            return op(data, **nodes)

        p = pipe()
        p.build()
        return p.run()

    cases = [(lambda x, n=neg: fn.resize(x, **n), {}) for neg, _, _ in NEGATIVE_SIZES]
    cases.append(
        (
            lambda x, resize_x: fn.resize(x, resize_x=resize_x),
            {"resize_x": [np.float32(-50), np.float32(33)]},
        )
    )
    for k, (op, args) in enumerate(cases):
        cpu, gpu = one(op, "cpu", args), one(op, "gpu", args)
        assert_same(cpu, gpu, atol=1, name=f"negative_sizes_{k}")


def test_roi_absolute_relative_and_flipped():
    img = _image()
    roi = run1(lambda x: fn.resize(x, size=(30, 50), roi_start=(10, 20), roi_end=(60, 120)), img)
    ref = reference(img, (30, 50), (10.0, 20.0), (60.0, 120.0))
    assert np.abs(roi.astype(int) - ref).max() <= 1
    rel = run1(
        lambda x: fn.resize(
            x, size=(30, 50), roi_start=(0.1, 0.1), roi_end=(0.6, 0.6), roi_relative=True
        ),
        img,
    )
    # 0.6 * 100 in float32 is 60.0000038: the windows differ by a hair
    assert np.abs(rel.astype(int) - roi).max() <= 1
    flipped = run1(
        lambda x: fn.resize(x, size=(30, 50), roi_start=(60, 120), roi_end=(10, 20)), img
    )
    assert np.abs(flipped.astype(int) - roi[::-1, ::-1]).max() <= 1
    # the ROI restricts the input: a constant region gives a constant output
    img2 = img.copy()
    img2[10:60, 20:120] = 77
    const = run1(lambda x: fn.resize(x, size=(30, 50), roi_start=(12, 22), roi_end=(58, 118)), img2)
    assert np.all(const == 77)


def test_geometry_subpixel_scale():
    # resize_shorter=51.2 on 100x200: the output is 51x102, the ROI keeps the exact scale
    size, lo, hi = output_geometry([100, 200], [51.2, 51.2], mode="not_smaller")
    assert size == [51, 102]
    assert lo[0] == pytest.approx(50 - 50 * 51 / 51.2, abs=1e-4)
    assert (hi[0] - lo[0]) / 51 == pytest.approx(100 / 51.2, rel=1e-5)
    assert (hi[1] - lo[1]) / 102 == pytest.approx(200 / 102.4, rel=1e-5)
    size, lo, hi = output_geometry(
        [100, 200], [51.2, 51.2], mode="not_smaller", subpixel_scale=False
    )
    assert size == [51, 102] and lo == [0.0, 0.0] and hi == [100.0, 200.0]
    img = _image()
    a = run1(lambda x: fn.resize(x, resize_shorter=51.2), img)
    b = run1(lambda x: fn.resize(x, resize_shorter=51.2, subpixel_scale=False), img)
    assert a.shape == b.shape == (51, 102, 3)
    assert not np.array_equal(a, b)
    ref_a = reference(
        img, (51, 102), *output_geometry([100, 200], [51.2, 51.2], mode="not_smaller")[1:]
    )
    assert np.abs(a.astype(int) - ref_a).max() <= 1


def test_geometry_flip_and_empty():
    size, lo, hi = output_geometry([100, 200], [0.0, -50.0])
    assert size == [25, 50] and (lo[1], hi[1]) == (200.0, 0.0)
    # an empty input gives an empty extent (no minimum of 1)
    assert output_geometry([0, 10], [5.0, 5.0])[0] == [0, 5]
    assert output_geometry([0, 10], [0.0, 5.0])[0] == [0, 5]


def test_max_size_default_mode_clamps_per_axis():
    out = run(lambda x: fn.resize(x, resize_x=400, max_size=150), [_image()])[0]
    assert out.shape() == [(150, 150, 3)]  # y from the mean scale (200), then both capped


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"resize_x": 10, "size": (10, 10)},
        {"size": 10, "resize_shorter": 5},
        {"resize_shorter": 5, "resize_longer": 7},
    ],
)
def test_exactly_one_size_method(kwargs):
    with pytest.raises(
        RuntimeError, match="Exactly one method of specifying size must be used"
    ) as e:
        run(lambda x: fn.resize(x, **kwargs), [_image()])
    assert "dali.fn.resize" in str(e.value)


def test_argument_errors():
    img = _image()
    with pytest.raises(RuntimeError, match="mutually exclusive") as e:
        run(lambda x: fn.resize(x, resize_shorter=10, mode="stretch"), [img])
    assert "resize_shorter" in str(e.value) and "dali.fn.resize" in str(e.value)
    with pytest.raises(RuntimeError, match=r"`mode`.*invalid resize mode"):
        run(lambda x: fn.resize(x, size=10, mode="bogus"), [img])
    with pytest.raises(RuntimeError, match=r"`roi_end`.*together"):
        run(lambda x: fn.resize(x, size=10, roi_start=(1, 1)), [img])
    with pytest.raises(RuntimeError, match=r"`dtype`.*input type"):
        run(lambda x: fn.resize(x, size=10, dtype=types.INT16), [img])
    with pytest.raises(RuntimeError, match=r"`size`.*1 or 2 values"):
        run(lambda x: fn.resize(x, size=(1, 2, 3)), [img])
    with pytest.raises(RuntimeError, match="`max_size`"):
        run(lambda x: fn.resize(x, resize_shorter=10, max_size=(1, 2, 3)), [img])
    with pytest.raises(KeyError, match="bogus"):
        fn.resize(types.Constant(img, layout="HWC"), size=10, bogus=1)


def test_layout_rules():
    assert spatial_axes("HWC", 3) == ("HWC", (0, 1))
    assert spatial_axes("CHW", 3) == ("CHW", (1, 2))
    assert spatial_axes("FCHW", 4) == ("FCHW", (2, 3))
    assert spatial_axes("CFHW", 4) == ("CFHW", (2, 3))
    assert spatial_axes("DHWC", 4) == ("DHWC", (0, 1, 2))
    assert spatial_axes("FCDHW", 5) == ("FCDHW", (2, 3, 4))
    assert spatial_axes("", 3) == ("HWC", (0, 1))
    with pytest.raises(ValueError, match='"HWC" has 3 dimensions but the samples have 2'):
        spatial_axes("HWC", 2)
    with pytest.raises(ValueError, match="adjacent"):
        spatial_axes("HCW", 3)
    with pytest.raises(ValueError, match="unsupported layout"):
        spatial_axes("XYC", 3)


def test_2d_array_with_hwc_layout_is_rejected():
    with pytest.raises(Exception, match="HWC"):
        run(lambda x: fn.resize(x, size=10), [np.zeros((4, 5), np.uint8)], layout="HWC")


def test_layouts_agree():
    img = _image(40, 60)
    hwc = run1(lambda x: fn.resize(x, size=(20, 25)), img)
    chw = run1(lambda x: fn.resize(x, size=(20, 25)), img.transpose(2, 0, 1).copy(), "CHW")
    np.testing.assert_array_equal(chw.transpose(1, 2, 0), hwc)
    frames = np.stack([img, img[::-1].copy()])
    fhwc = run1(lambda x: fn.resize(x, size=(20, 25)), frames, "FHWC")
    assert fhwc.shape == (2, 20, 25, 3)
    np.testing.assert_array_equal(fhwc[0], hwc)
    fchw = run1(lambda x: fn.resize(x, size=(20, 25)), frames.transpose(0, 3, 1, 2).copy(), "FCHW")
    np.testing.assert_array_equal(fchw.transpose(0, 2, 3, 1), fhwc)
    hw = run1(lambda x: fn.resize(x, size=(20, 25)), img[:, :, 0].copy(), "HW")
    assert hw.shape == (20, 25)
    assert np.abs(hw.astype(int) - hwc[:, :, 0]).max() <= 1


def test_volumes_dhwc():
    rng = np.random.default_rng(3)
    vol = rng.integers(0, 256, (6, 8, 10, 2), dtype=np.uint8)
    out = run(lambda x: fn.resize(x, resize_x=5, resize_y=4, resize_z=3), [vol], "DHWC")[0]
    assert out.shape() == [(3, 4, 5, 2)] and out.layout() == "DHWC"
    plans = axis_plans((6, 8, 10), (3, 4, 5), (0, 0, 0), (6, 8, 10), R.TRIANGULAR, R.LINEAR, True)
    ref = R.resample_reference(vol, (0, 1, 2), plans, np.uint8)
    np.testing.assert_array_equal(out.as_array()[0], ref)
    # only resize_z: x and y follow its scale in the default mode
    out = run(lambda x: fn.resize(x, resize_z=3), [vol], "DHWC")[0]
    assert out.shape() == [(3, 4, 5, 2)]
    cdhw = run1(lambda x: fn.resize(x, size=(3, 4, 5)), vol.transpose(3, 0, 1, 2).copy(), "CDHW")
    np.testing.assert_array_equal(cdhw.transpose(1, 2, 3, 0), ref)


# -- filters: the exact reference against DALI's observed weights ----------------------------------


def test_observed_weights_12_to_4_and_10_to_4_and_4_to_10():
    w = R.dense_weights(R.AxisPlan.make(12, 4, 0.0, 12.0, R.LINEAR))
    np.testing.assert_allclose(w[0, :4], [0.333, 0.333, 0.222, 0.111], atol=1e-3)
    np.testing.assert_allclose(w[1, :7], [0, 0, 0.111, 0.222, 0.333, 0.222, 0.111], atol=1e-3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-6)
    w = R.dense_weights(R.AxisPlan.make(10, 4, 0.0, 10.0, R.LINEAR))
    np.testing.assert_allclose(w[0, :4], [0.4, 0.36, 0.2, 0.04], atol=1e-4)
    w = R.dense_weights(R.AxisPlan.make(4, 10, 0.0, 4.0, R.LINEAR))
    np.testing.assert_allclose(w[1, :2], [0.9, 0.1], atol=1e-5)
    np.testing.assert_allclose(w[4, :3], [0.0, 0.7, 0.3], atol=1e-5)


def test_cubic_downscale_weights_and_radii():
    w = R.dense_weights(R.AxisPlan.make(12, 4, 0.0, 12.0, R.CUBIC))
    np.testing.assert_allclose(
        w[1, 4:10], [0.3333, 0.2593, 0.1111, 0.0, -0.0247, -0.0123], atol=2e-4
    )
    assert R.AxisPlan.make(12, 4, 0, 12, R.CUBIC).radius == pytest.approx(6.0)
    assert R.AxisPlan.make(4, 12, 0, 4, R.CUBIC).radius == 2.0
    assert R.AxisPlan.make(12, 4, 0, 12, R.LANCZOS3).radius == pytest.approx(9.0)
    assert R.AxisPlan.make(12, 4, 0, 12, R.LINEAR, antialias=False).radius == 1.0
    assert R.AxisPlan.make(12, 4, 0, 12, R.CUBIC, antialias=False).radius == 2.0
    assert R.AxisPlan.make(12, 4, 0, 12, R.GAUSSIAN).radius == pytest.approx(3.0)
    # min filter when shrinking, mag filter when enlarging
    assert R.AxisPlan.make(12, 4, 0, 12, R.NN, mag_interp=R.CUBIC).kind == "nn"
    assert R.AxisPlan.make(4, 12, 0, 4, R.NN, mag_interp=R.CUBIC).kind == "cubic"


def test_linear_upscale_is_plain_bilinear_with_replicated_border():
    img = np.array([[0, 100, 200, 50]], dtype=np.float32)[..., None]
    out = run1(lambda x: fn.resize(x, size=(1, 8)), img)
    centres = (np.arange(8) + 0.5) * 0.5 - 0.5
    expected = np.interp(centres, np.arange(4), img[0, :, 0])
    np.testing.assert_allclose(out[0, :, 0], expected, atol=1e-4)


def test_antialias_off_uses_plain_linear_when_downscaling():
    img = _image(40, 60, seed=2)
    on = run1(lambda x: fn.resize(x, size=(13, 20), dtype=types.FLOAT), img)
    off = run1(lambda x: fn.resize(x, size=(13, 20), antialias=False, dtype=types.FLOAT), img)
    np.testing.assert_allclose(
        off, reference(img, (13, 20), antialias=False, dtype=np.float32), atol=2e-3
    )
    np.testing.assert_allclose(on, reference(img, (13, 20), dtype=np.float32), atol=2e-3)
    assert np.abs(on - off).max() > 5


def test_nn_float32_accumulation_picks_lower_row_at_ties():
    col = np.arange(100, dtype=np.uint8)[:, None, None]
    img = np.repeat(np.repeat(col, 3, axis=1), 1, axis=2)
    out = run1(lambda x: fn.resize(x, size=(45, 3), interp_type=types.INTERP_NN), img)
    rows = out[:, 0, 0]
    # exact ties at (x + 0.5) * 100/45 for x = 13, 22, 31, 40 land on the lower row
    assert rows[[13, 22, 31, 40]].tolist() == [29, 49, 69, 89]
    assert rows[4] == 10
    plan = R.AxisPlan.make(100, 45, 0.0, 100.0, R.NN)
    np.testing.assert_array_equal(rows, R.nn_indices(plan))
    # columns are computed directly: exact ties round up
    row = np.arange(100, dtype=np.uint8)[None, :, None]
    out = run1(lambda x: fn.resize(x, size=(1, 45), interp_type=types.INTERP_NN), row)
    assert out[0, [13, 22, 31, 40], 0].tolist() == [30, 50, 70, 90]


def test_nn_matches_index_gathering_and_flip():
    img = _image(37, 53)
    out = run1(lambda x: fn.resize(x, size=(20, 80), interp_type=types.INTERP_NN), img)
    yi = R.nn_indices(R.AxisPlan.make(37, 20, 0, 37, R.NN))
    xi = R.nn_indices(R.AxisPlan.make(53, 80, 0, 53, R.NN), accumulate=False)
    np.testing.assert_array_equal(out, img[yi][:, xi])
    flipped = run1(lambda x: fn.resize(x, size=(37, -53), interp_type=types.INTERP_NN), img)
    np.testing.assert_array_equal(flipped, img[:, ::-1])


@pytest.mark.parametrize(
    "interp",
    [
        types.INTERP_LINEAR,
        types.INTERP_CUBIC,
        types.INTERP_LANCZOS3,
        types.INTERP_TRIANGULAR,
        types.INTERP_GAUSSIAN,
    ],
)
@pytest.mark.parametrize("size", [(256, 256), (600, 700), (100, 37)])
def test_filters_match_reference(interp, size):
    img = _image(375, 500, seed=1)
    out = run1(lambda x: fn.resize(x, size=size, interp_type=interp), img)
    ref = reference(img, size, interp=int(interp))
    assert np.abs(out.astype(int) - ref).max() <= 1
    outf = run1(lambda x: fn.resize(x, size=size, interp_type=interp, dtype=types.FLOAT), img)
    reff = reference(img, size, interp=int(interp), dtype=np.float32)
    # DALI's cubic/Lanczos windows are tables: Pillow's exact windows differ by < 0.2
    assert np.abs(outf - reff).max() < 0.2
    assert outf.dtype == np.float32


def test_uint8_rounding_and_clamping():
    step = np.zeros((1, 8, 1), dtype=np.uint8)
    step[:, 4:] = 255
    f = run1(
        lambda x: fn.resize(x, size=(1, 29), interp_type=types.INTERP_CUBIC, dtype=types.FLOAT),
        step,
    )
    u = run1(lambda x: fn.resize(x, size=(1, 29), interp_type=types.INTERP_CUBIC), step)
    assert f.min() < -1 and f.max() > 256  # cubic overshoots in float
    assert u.min() == 0 and u.max() == 255
    expected = np.clip(np.trunc(f + 0.5), 0, 255)
    assert np.abs(u.astype(int) - expected).max() <= 1
    # the reference itself rounds half up and saturates
    np.testing.assert_array_equal(
        R.convert_output(np.array([0.49, 0.5, 254.5, 300.0, -3.0], np.float32), np.uint8),
        [0, 1, 255, 255, 0],
    )
    np.testing.assert_array_equal(
        R.convert_output(np.array([-1.7, 1.5], np.float32), np.int16), [-1, 2]
    )


def test_other_input_types_use_the_reference():
    img = (_image(30, 40).astype(np.int16) - 128) * 3
    out = run1(lambda x: fn.resize(x, size=(12, 17)), img)
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out, reference(img, (12, 17), dtype=np.int16))
    f = (img / 7).astype(np.float32)
    outf = run1(lambda x: fn.resize(x, size=(50, 70), interp_type=types.INTERP_CUBIC), f)
    np.testing.assert_allclose(
        outf, reference(f, (50, 70), interp=R.CUBIC, dtype=np.float32), atol=0.05
    )


# -- per-sample (tensor) arguments -----------------------------------------------------------------


def test_per_sample_sizes_and_filters():
    imgs = [_image(100, 200, seed=s) for s in range(3)]
    out = run(
        lambda x, rx: fn.resize(x, resize_x=rx),
        imgs,
        args={"rx": [np.float32(50), np.float32(100), np.float32(-20)]},
    )[0]
    assert out.shape() == [(25, 50, 3), (50, 100, 3), (10, 20, 3)]
    out = run(
        lambda x, s: fn.resize(x, size=s),
        imgs,
        args={
            "s": [
                np.array([10, 20], np.float32),
                np.array([30, 0], np.float32),
                np.array([7], np.float32),
            ]
        },
    )[0]
    assert out.shape() == [(10, 20, 3), (30, 60, 3), (7, 7, 3)]
    interp = [
        np.int32(types.INTERP_NN),
        np.int32(types.INTERP_LINEAR),
        np.int32(types.INTERP_CUBIC),
    ]
    out = run(lambda x, it: fn.resize(x, size=(31, 47), interp_type=it), imgs, args={"it": interp})[
        0
    ]
    for i, kind in enumerate([R.NN, R.LINEAR, R.CUBIC]):
        ref = reference(imgs[i], (31, 47), interp=kind)
        assert np.abs(out.as_array()[i].astype(int) - ref).max() <= 1
    out = run(
        lambda x, a, b: fn.resize(x, size=(20, 20), roi_start=a, roi_end=b),
        imgs[:2],
        args={
            "a": [np.array([0, 0], np.float32), np.array([50, 100], np.float32)],
            "b": [np.array([50, 100], np.float32), np.array([0, 0], np.float32)],
        },
    )[0]
    a0, a1 = out.as_array()
    assert np.abs(a0.astype(int) - reference(imgs[0], (20, 20), (0, 0), (50, 100))).max() <= 1
    assert np.abs(a1.astype(int) - reference(imgs[1], (20, 20), (50, 100), (0, 0))).max() <= 1


def test_min_and_mag_filters():
    img = _image(40, 60)
    out = run1(
        lambda x: fn.resize(
            x,
            size=(80, 30),
            min_filter=types.INTERP_NN,
            mag_filter=types.INTERP_CUBIC,
            dtype=types.FLOAT,
        ),
        img,
    )
    ref = reference(img, (80, 30), interp=R.NN, mag=R.CUBIC, dtype=np.float32)
    np.testing.assert_allclose(out, ref, atol=1e-3)


def test_save_attrs_and_ignored_arguments():
    imgs = [_image(100, 200), _image(50, 60)]
    out, attrs = run(
        lambda x: fn.resize(
            x, size=(10, 10), save_attrs=True, minibatch_size=4, temp_buffer_hint=1 << 20
        ),
        imgs,
    )
    assert out.shape() == [(10, 10, 3), (10, 10, 3)]
    assert attrs.dtype == types.INT32
    assert attrs.as_array().tolist() == [[100, 200], [50, 60]]


def test_static_metadata():
    node = fn.resize(
        types.Constant(np.zeros((4, 4, 3), np.uint8), layout="HWC"), size=2, dtype=types.FLOAT
    )
    assert node.dtype == types.FLOAT and node.layout == "HWC" and node.ndim == 3


# -- the fast path against the exact reference -----------------------------------------------------


FAST_CASES = [
    ((51, 64), (0, 0), (75, 100)),  # shrink
    ((160, 130), (3.3, 7.7), (60.2, 90.1)),  # enlarge a fractional ROI
    ((40, 40), (70, 95), (2, 4)),  # flipped ROI on both axes
    ((75, 33), (0, 0), (75, 100)),  # one axis left as is
    ((20, 300), (-10.5, 0), (80, 100)),  # a ROI reaching outside the image
]


def _fast_paths():
    """Both 2-D fast paths: banded BLAS always, the Numba one when the `jit` extra is in."""
    from dali._ops.image.resample import band, jit

    paths = [pytest.param(band.resample_2d, id="band")]
    marks = [] if jit.available() else [pytest.mark.skip(reason="needs numba")]
    paths.append(pytest.param(jit.resample_2d, id="jit", marks=marks))
    return paths


@pytest.mark.parametrize("resample_2d", _fast_paths())
@pytest.mark.parametrize("interp", [R.LINEAR, R.CUBIC, R.LANCZOS3, R.TRIANGULAR, R.GAUSSIAN, R.NN])
@pytest.mark.parametrize("antialias", [True, False])
def test_fast_paths_equal_reference_on_noise(resample_2d, interp, antialias):
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (75, 100, 3), dtype=np.uint8)
    for out_hw, lo, hi in FAST_CASES:
        plans = axis_plans((75, 100), out_hw, lo, hi, interp, interp, antialias)
        fast = resample_2d(img, 0, plans, np.uint8)
        ref = R.resample_reference(img, (0, 1), plans, np.uint8)
        assert fast.shape == ref.shape and fast.dtype == np.uint8
        # float32 sums in another order: a rare pixel rounds the other way
        assert np.abs(fast.astype(int) - ref).max() <= 1
        assert np.mean(fast != ref) < 1e-3
        fastf = resample_2d(img, 0, plans, np.float32)
        reff = R.resample_reference(img, (0, 1), plans, np.float32)
        np.testing.assert_allclose(fastf, reff, atol=2e-3)
        assert fastf.dtype == np.float32
        fasti = resample_2d(img.astype(np.int16) - 128, 0, plans, np.int16)
        refi = R.resample_reference(img.astype(np.int16) - 128, (0, 1), plans, np.int16)
        assert np.abs(fasti.astype(int) - refi).max() <= 1


def test_jit_path_is_bit_exact_on_a_photo_sized_image():
    from dali._ops.image.resample import jit

    if not jit.available():
        pytest.skip("needs numba (the jit extra)")
    rng = np.random.default_rng(8)
    img = rng.integers(0, 256, (375, 500, 3), dtype=np.uint8)
    for out_hw in [(256, 256), (224, 150), (100, 400)]:  # height or width shrinking more
        plans = axis_plans((375, 500), out_hw, (0, 0), (375, 500), R.LINEAR, R.LINEAR, True)
        out = jit.resample_2d(img, 0, plans, np.uint8)
        np.testing.assert_array_equal(out, R.resample_reference(img, (0, 1), plans, np.uint8))
        np.testing.assert_array_equal(resample(img, (0, 1), plans, np.uint8), out)


@pytest.mark.parametrize(
    "shape, axes, dtype",
    [
        ((75, 100), (0, 1), np.uint8),  # HW
        ((4, 75, 100), (1, 2), np.float32),  # CHW
        ((2, 75, 100, 5), (1, 2), np.int16),  # FHWC, 5 channels
        ((75, 100, 1), (0, 1), np.uint16),
    ],
)
@pytest.mark.parametrize("resample_2d", _fast_paths())
def test_fast_path_layouts_and_dtypes(resample_2d, shape, axes, dtype):
    rng = np.random.default_rng(6)
    img = rng.integers(0, 200, shape).astype(dtype)
    plans = axis_plans((75, 100), (31, 140), (2, 3), (70, 99), R.LINEAR, R.CUBIC, True)
    fast = resample_2d(img, axes[0], plans, dtype)
    ref = R.resample_reference(img, axes, plans, dtype)
    assert fast.shape == ref.shape and fast.dtype == ref.dtype
    assert np.abs(fast.astype(np.int64) - ref).max() <= 1


def test_fast_path_mixes_nn_and_filters():
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (45, 60, 3), dtype=np.uint8)
    plans = [
        R.AxisPlan.make(45, 20, 0.0, 45.0, R.NN),
        R.AxisPlan.make(60, 90, 0.0, 60.0, R.CUBIC),
    ]
    fast = resample(img, (0, 1), plans, np.uint8)
    ref = R.resample_reference(img, (0, 1), plans, np.uint8)
    assert np.abs(fast.astype(int) - ref).max() <= 1


def test_band_blocks_cover_every_tap():
    from dali._ops.image.resample import band as RB

    for in_size, out_size, lo, hi in [(100, 40, 0, 100), (37, 200, 5.5, 30), (64, 64, 64, 0)]:
        plan = R.AxisPlan.make(in_size, out_size, lo, hi, R.LANCZOS3)
        b = RB.band(plan)
        nblk, width, span = b.weights.shape
        # unfold the band into the dense matrix it stands for
        dense = np.zeros((nblk * width, max(b.rows, in_size)))
        for k in range(nblk):
            dense[k * width : (k + 1) * width, k * b.step : k * b.step + span] = b.weights[k]
        rows = dense if b.order is None else dense[b.order]
        np.testing.assert_allclose(
            rows[:out_size, :in_size], R.dense_weights(plan), rtol=0, atol=1e-6
        )


def test_axis_weights_memoised_and_read_only():
    plan = R.AxisPlan.make(500, 224, 0.0, 500.0)
    idx, w = R.axis_weights(plan)
    again = R.axis_weights(R.AxisPlan.make(500, 224, 0.0, 500.0))
    assert again[0] is idx and again[1] is w  # an equal plan hits the cache
    with pytest.raises(ValueError):
        w[0, 0] = 0  # a caller cannot corrupt the cached weights


def test_thread_scratch_reuses_per_thread_buffers():
    import threading

    from dali._ops.image._common import ThreadScratch

    scratch = ThreadScratch()
    big = scratch.get("x", (10, 20))
    small = scratch.get("x", (4, 5))
    assert np.shares_memory(big, small)  # a smaller request reuses the buffer
    assert scratch.get("x", (4, 5), np.uint8).dtype == np.uint8  # one buffer per dtype
    other = []
    t = threading.Thread(target=lambda: other.append(scratch.get("x", (4, 5))))
    t.start()
    t.join()
    assert not np.shares_memory(other[0], small)  # threads never share a buffer


@pytest.mark.parametrize("channels, dtype", [(3, np.uint8), (3, np.float32), (5, np.float32)])
def test_transpose_hw(channels, dtype):
    from dali._ops.image._common import transpose_hw

    x = np.arange(7 * 9 * channels).reshape(7, 9, channels).astype(dtype)
    np.testing.assert_array_equal(transpose_hw(x), x.transpose(1, 0, 2))
    dst = np.empty((9, 7, channels), dtype)
    assert transpose_hw(x[:, :, :], dst) is dst
    np.testing.assert_array_equal(dst, x.transpose(1, 0, 2))
