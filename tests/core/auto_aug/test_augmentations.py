"""`dali.auto_aug.augmentations`: every augmentation of the standard suite against a numpy
(OpenCV, PIL) reference, for given magnitude bins and signs, on the CPU; CPU/GPU parity."""

from __future__ import annotations

import math
import warnings

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._testing.images import photo
from dali.auto_aug import augmentations as a
from dali.auto_aug.core import signed_bin
from parity import cpu_gpu, device_id, to_device

#: Two photo-like images of different sizes (a ragged batch).
IMAGES = [
    photo(48, 64, np.random.default_rng(1)),
    photo(41, 57, np.random.default_rng(2)),
]
NUM_BINS = 11


def run_aug(
    aug, bin_, *, sign=0, device="cpu", images=IMAGES, num_bins=NUM_BINS, raw=False, **kwargs
):
    """``aug`` applied to ``images`` with magnitude bin ``bin_``; the sign (0: +, 1: −) is fixed
    per sample for augmentations that negate magnitudes. ``kwargs`` values ``"shape"`` become
    the images' shapes. The output samples as arrays (``raw``: the batch as returned)."""

    @dali.pipeline_def(batch_size=len(images), num_threads=1, device_id=device_id(device), seed=3)
    def pipe():
        data = fn.external_source(source=lambda: images, batch=True, layout="HWC")
        extra = {k: (data.shape() if v == "shape" else v) for k, v in kwargs.items()}
        data = to_device(data, device)
        if aug.randomly_negate:
            signs = fn.external_source(source=lambda: [np.int32(sign)] * len(images), batch=True)
            bin_arg = signed_bin(bin_, random_sign=signs)
        else:
            bin_arg = bin_
        return aug(data, magnitude_bin=bin_arg, num_magnitude_bins=num_bins, **extra)

    (out,) = pipe().run()
    if raw:
        return out
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    return [np.asarray(out.at(i)) for i in range(len(out))]


def magnitude(lo, hi, bin_, sign=0, num_bins=NUM_BINS):
    """The magnitude of ``bin_``: ``linspace(lo, hi, num_bins)[bin_]`` (float32), negated."""
    return float(np.linspace(lo, hi, num_bins, dtype=np.float32)[bin_]) * (-1) ** sign


def warp_reference(img, src_to_dst, fill=128.0):
    """Bilinear warp in float64 with DALI's pixel centres: the output pixel ``(x, y)`` samples
    the source at ``inverse(src_to_dst) · (x + ½, y + ½) − ½``; outside: ``fill``."""
    h, w, c = img.shape
    inv = np.linalg.inv(np.vstack([src_to_dst, [0.0, 0.0, 1.0]]))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    sx = inv[0, 0] * (xs + 0.5) + inv[0, 1] * (ys + 0.5) + inv[0, 2] - 0.5
    sy = inv[1, 0] * (xs + 0.5) + inv[1, 1] * (ys + 0.5) + inv[1, 2] - 0.5
    x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
    qx, qy = (sx - x0)[..., None], (sy - y0)[..., None]
    padded = np.full((h + 4, w + 4, c), fill)
    padded[2:-2, 2:-2] = img

    def px(yy, xx):
        return padded[np.clip(yy + 2, 0, h + 3), np.clip(xx + 2, 0, w + 3)]

    top = px(y0, x0) * (1 - qx) + px(y0, x0 + 1) * qx
    bottom = px(y0 + 1, x0) * (1 - qx) + px(y0 + 1, x0 + 1) * qx
    return top + (bottom - top) * qy


def rotation(h, w, degrees):
    """The source→destination matrix of a counter-clockwise turn about the image centre."""
    r = math.radians(degrees)
    c, s = math.cos(r), math.sin(r)
    dst_to_src = np.array([[c, -s], [s, c]])
    centre = np.array([w / 2, h / 2])
    src_to_dst = dst_to_src.T
    return np.hstack([src_to_dst, (centre - src_to_dst @ centre)[:, None]])


def assert_close(outs, refs, atol=0):
    """Every output within ``atol`` of its (rounded) reference."""
    for out, ref in zip(outs, refs):
        ref = np.clip(np.rint(np.asarray(ref, dtype=np.float64)), 0, 255)
        assert out.shape == ref.shape
        diff = np.abs(out.astype(np.float64) - ref)
        assert diff.max() <= atol, f"max |diff| {diff.max()} > {atol}"


# -- geometry ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sign", [0, 1])
@pytest.mark.parametrize("bin_", [0, 4, 10])
def test_shear_x_and_y(bin_, sign):
    s = magnitude(0, 0.3, bin_, sign)
    outs = run_aug(a.shear_x, bin_, sign=sign)
    assert_close(outs, [warp_reference(i, np.array([[1, s, 0], [0, 1, 0]])) for i in IMAGES], 1)
    outs = run_aug(a.shear_y, bin_, sign=sign)
    assert_close(outs, [warp_reference(i, np.array([[1, 0, 0], [s, 1, 0]])) for i in IMAGES], 1)


def test_shear_fill_value_and_nearest_interpolation():
    s = magnitude(0, 0.3, 10)
    outs = run_aug(a.shear_x, 10, fill_value=0, interp_type=types.INTERP_NN)
    for out, img in zip(outs, IMAGES):
        h, w, _ = img.shape
        ys, xs = np.mgrid[0:h, 0:w]
        sx = np.floor(xs + 0.5 - s * (ys + 0.5)).astype(int)
        inside = (sx >= 0) & (sx < w)
        ref = np.where(inside[..., None], img[ys, np.clip(sx, 0, w - 1)], 0)
        np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("sign", [0, 1])
def test_translate_no_shape_shifts_by_whole_pixels(sign):
    tx = a.translate_x_no_shape.augmentation(mag_range=(0, 20))
    ty = a.translate_y_no_shape.augmentation(mag_range=(0, 20))
    d = magnitude(0, 20, 3, sign)  # 6 pixels
    outs = run_aug(tx, 3, sign=sign)
    assert_close(outs, [warp_reference(i, np.array([[1, 0, d], [0, 1, 0]])) for i in IMAGES])
    outs = run_aug(ty, 3, sign=sign)
    assert_close(outs, [warp_reference(i, np.array([[1, 0, 0], [0, 1, d]])) for i in IMAGES])
    # the image content moved: shifted right/down by 6 (sign 0) or left/up (sign 1)
    img, out = IMAGES[0], outs[0]
    if sign == 0:
        np.testing.assert_array_equal(out[6:], img[:-6])
        assert (out[:6] == 128).all()
    else:
        np.testing.assert_array_equal(out[:-6], img[6:])


@pytest.mark.parametrize("sign", [0, 1])
def test_translate_relative_to_the_shape(sign):
    rel = magnitude(0, 1, 4, sign)  # 0.4 of the extent
    outs = run_aug(a.translate_x, 4, sign=sign, shape="shape")
    refs = [warp_reference(i, np.array([[1, 0, rel * i.shape[1]], [0, 1, 0]])) for i in IMAGES]
    assert_close(outs, refs, 1)
    outs = run_aug(a.translate_y, 4, sign=sign, shape="shape")
    refs = [warp_reference(i, np.array([[1, 0, 0], [0, 1, rel * i.shape[0]]])) for i in IMAGES]
    assert_close(outs, refs, 1)


@pytest.mark.parametrize("sign", [0, 1])
@pytest.mark.parametrize("bin_", [3, 8])
def test_rotate(bin_, sign):
    deg = magnitude(0, 30, bin_, sign)
    outs = run_aug(a.rotate, bin_, sign=sign)
    refs = [warp_reference(i, rotation(i.shape[0], i.shape[1], deg)) for i in IMAGES]
    assert_close(outs, refs, 1)


def test_rotate_reference_turns_counter_clockwise():
    """The reference's direction, checked where the result is exact: 90° is ``np.rot90``."""
    img = IMAGES[0][:40, :40]
    rotate90 = a.rotate.augmentation(mag_range=(0, 90))
    (out,) = run_aug(rotate90, 1, images=[img], num_bins=2)
    np.testing.assert_array_equal(out, np.rot90(img))
    assert_close([out], [warp_reference(img, rotation(40, 40, 90.0))])


def test_rotate_without_keeping_the_size():
    (out,) = run_aug(
        a.rotate.augmentation(mag_range=(0, 90)),
        1,
        images=[IMAGES[0]],
        num_bins=2,
        rotate_keep_size=False,
    )
    np.testing.assert_array_equal(out, np.rot90(IMAGES[0]))


# -- colour -----------------------------------------------------------------------------------

_GRAY = np.array([0.299, 0.587, 0.114])


@pytest.mark.parametrize("sign", [0, 1])
def test_brightness(sign):
    factor = 1 + magnitude(0, 0.9, 6, sign)
    outs = run_aug(a.brightness, 6, sign=sign)
    assert_close(outs, [i * np.float32(factor) for i in IMAGES], 1)


@pytest.mark.parametrize("sign", [0, 1])
def test_contrast_blends_with_the_weighted_mean(sign):
    factor = 1 + magnitude(0, 0.9, 6, sign)
    outs = run_aug(a.contrast, 6, sign=sign)

    def reference(img):
        x = img.astype(np.float64)
        centre = (x.mean(axis=(0, 1)) * _GRAY).sum()
        return centre + (x - centre) * factor

    assert_close(outs, [reference(i) for i in IMAGES])


@pytest.mark.parametrize("sign", [0, 1])
def test_color_blends_with_the_gray_image(sign):
    factor = 1 + magnitude(0, 0.9, 6, sign)
    outs = run_aug(a.color, 6, sign=sign)

    def reference(img):
        x = img.astype(np.float64)
        gray = (x * _GRAY).sum(-1, keepdims=True)
        return gray + (x - gray) * factor

    assert_close(outs, [reference(i) for i in IMAGES], 1)


@pytest.mark.parametrize("sign", [0, 1])
def test_sharpness_is_pil_kernel_with_reflected_border(sign):
    cv2 = pytest.importorskip("cv2")
    m = magnitude(0, 0.9, 6, sign)
    kernel = a.sharpness_kernel(np.float32(m))
    blur = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]]) / 13
    np.testing.assert_allclose(kernel, (1 + m) * np.pad([[1.0]], 1) - m * blur, atol=1e-6)
    outs = run_aug(a.sharpness, 6, sign=sign)
    refs = [cv2.filter2D(i, -1, kernel, borderType=cv2.BORDER_REFLECT_101) for i in IMAGES]
    assert_close(outs, refs)


def test_sharpness_matches_pil_inside_the_border():
    pil = pytest.importorskip("PIL.ImageEnhance")
    from PIL import Image

    factor = 1 + magnitude(0, 0.9, 9)
    outs = run_aug(a.sharpness, 9)
    for out, img in zip(outs, IMAGES):
        ref = np.asarray(pil.Sharpness(Image.fromarray(img)).enhance(factor))
        diff = np.abs(out.astype(int) - ref)[1:-1, 1:-1]
        assert diff.max() <= 1


@pytest.mark.parametrize("bin_,bits", [(0, 1), (3, 1), (5, 2), (7, 3), (10, 4)])
def test_posterize_keeps_the_upper_bits(bin_, bits):
    # (0, 4) in 11 bins: round(0.4 * bin); 0 bits is taken for 1
    mask = 0xFF ^ (2 ** (8 - bits) - 1)
    assert int(a.poster_mask_uint8(np.float32(0.4 * bin_))) == mask
    outs = run_aug(a.posterize, bin_)
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, img & mask)


@pytest.mark.parametrize("bin_", [0, 3, 10])
def test_solarize_inverts_from_the_threshold(bin_):
    threshold = magnitude(256, 0, bin_)
    outs = run_aug(a.solarize, bin_)
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, np.where(img < threshold, img, 255 - img))


@pytest.mark.parametrize("bin_", [0, 5, 10])
def test_solarize_add_shifts_dark_values(bin_):
    shift = int(np.uint8(magnitude(0, 110, bin_)))
    outs = run_aug(a.solarize_add, bin_)
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, np.where(img < 128, img.astype(int) + shift, img))


def test_invert_equalize_identity():
    cv2 = pytest.importorskip("cv2")
    for out, img in zip(run_aug(a.invert, 0), IMAGES):
        np.testing.assert_array_equal(out, 255 - img)
    for out, img in zip(run_aug(a.equalize, 0), IMAGES):
        planes = [cv2.equalizeHist(np.ascontiguousarray(img[..., c])) for c in range(3)]
        np.testing.assert_array_equal(out, np.stack(planes, -1))
    for out, img in zip(run_aug(a.identity, 0), IMAGES):
        np.testing.assert_array_equal(out, img)


def test_auto_contrast_stretches_every_channel():
    flat = np.full((6, 7, 3), 77, np.uint8)
    flat[..., 1] = np.arange(42, dtype=np.uint8).reshape(6, 7) + 100
    images = [*IMAGES, flat]
    outs = run_aug(a.auto_contrast, 0, images=images)

    def reference(img):
        lo, hi = img.min(axis=(0, 1)).astype(float), img.max(axis=(0, 1)).astype(float)
        d = hi - lo
        scale = np.where(d > 0, 255 / np.where(d > 0, d, 1), 1.0)
        return (img - np.where(d > 0, lo, 0)) * scale

    assert_close(outs, [reference(i) for i in images], 1)
    assert outs[2][..., 1].min() == 0 and outs[2][..., 1].max() == 255
    assert (outs[2][..., 0] == 77).all()  # a flat channel stays as it is


def test_videos_fhwc():
    """The colour statistics are per frame (``HW`` of ``FHWC``)."""
    frames = np.stack([IMAGES[0], IMAGES[0] // 2])

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        video = fn.external_source(source=lambda: [frames], batch=True, layout="FHWC")
        sign = fn.external_source(source=lambda: [np.int32(0)], batch=True)
        sheared = a.shear_x(
            video, magnitude_bin=signed_bin(10, random_sign=sign), num_magnitude_bins=NUM_BINS
        )
        return a.auto_contrast(video), sheared

    stretched, sheared = (np.asarray(o.at(0)) for o in pipe().run())
    for f in range(2):
        (ref,) = run_aug(a.auto_contrast, 0, images=[frames[f]])
        np.testing.assert_array_equal(stretched[f], ref)
        (ref,) = run_aug(a.shear_x, 10, images=[frames[f]])
        np.testing.assert_array_equal(sheared[f], ref)


def test_per_sample_magnitude_bins_and_signs():
    """A batch of bins picks each sample's parameter: the rows of one constant table."""
    bins = [np.int32(b) for b in (0, 3, 10)]
    signs = [np.int32(s) for s in (0, 1, 1)]
    images = [IMAGES[0]] * 3

    @dali.pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: images, batch=True, layout="HWC")
        b = fn.external_source(source=lambda: bins, batch=True)
        s = fn.external_source(source=lambda: signs, batch=True)
        return (
            a.rotate(data, magnitude_bin=signed_bin(b, random_sign=s), num_magnitude_bins=11),
            a.solarize(data, magnitude_bin=b, num_magnitude_bins=11),
        )

    rotated, solarized = pipe().run()
    for i, (b, s) in enumerate(zip(bins, signs)):
        (ref,) = run_aug(a.rotate, int(b), sign=int(s), images=[images[i]])
        np.testing.assert_array_equal(np.asarray(rotated.at(i)), ref)
        (ref,) = run_aug(a.solarize, int(b), images=[images[i]])
        np.testing.assert_array_equal(np.asarray(solarized.at(i)), ref)


def test_unsigned_bin_for_a_negating_augmentation_warns_and_draws_signs():
    @dali.pipeline_def(batch_size=64, num_threads=1, device_id=None, seed=5)
    def pipe():
        data = types.Constant(np.full((1, 1, 3), 100, np.uint8), layout="HWC")
        return a.brightness(data, magnitude_bin=10, num_magnitude_bins=11)

    with pytest.warns(Warning, match="random_negate=True"):
        (out,) = pipe().run()
    values = {int(np.asarray(out.at(i))[0, 0, 0]) for i in range(len(out))}
    assert values == {10, 190}  # 100 * (1 -/+ 0.9)


def test_magnitude_ranges_can_be_changed():
    wide = a.shear_x.augmentation(mag_range=(0, 0.5))
    assert wide.mag_range == (0, 0.5) and wide.randomly_negate and wide.op is a.shear_x.op
    assert a.shear_x.mag_range == (0, 0.3)
    outs = run_aug(wide, 10)
    assert_close(outs, [warp_reference(i, np.array([[1, 0.5, 0], [0, 1, 0]])) for i in IMAGES], 1)
    # an explicit array of magnitudes instead of a linspace
    explicit = a.solarize.augmentation(mag_range=np.array([0.0, 50.0, 200.0]))
    outs = run_aug(explicit, 1, num_bins=3)
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, np.where(img < 50, img, 255 - img))


def test_default_setups_match_dali():
    expected = {
        "shear_x": ((0, 0.3), True),
        "shear_y": ((0, 0.3), True),
        "translate_x": ((0.0, 1.0), True),
        "translate_y": ((0.0, 1.0), True),
        "rotate": ((0, 30), True),
        "brightness": ((0, 0.9), True),
        "contrast": ((0, 0.9), True),
        "color": ((0, 0.9), True),
        "sharpness": ((0, 0.9), True),
        "posterize": ((0, 4), False),
        "solarize": ((256, 0), False),
        "solarize_add": ((0, 110), False),
        "invert": (None, False),
        "equalize": (None, False),
        "auto_contrast": (None, False),
        "identity": (None, False),
    }
    for name, (mag_range, negate) in expected.items():
        aug = getattr(a, name)
        assert (aug.name, aug.mag_range, aug.randomly_negate) == (name, mag_range, negate)
    assert a.translate_x_no_shape.name == "translate_x"
    assert a.translate_y_no_shape.mag_range == (0, 250)
    assert a.sharpness.param_device == a.posterize.param_device == "auto"
    with pytest.raises(ValueError, match="accepts shifts from 0 to 128"):
        a.solarize_add_shift(128)


def test_augmentations_run_outside_conditionals():
    """A single augmentation needs no `enable_conditionals` (no branch on DataNodes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = run_aug(a.rotate, 5)
    assert len(outs) == 2


# -- GPU ----------------------------------------------------------------------------------------

_SIGNED = ["shear_x", "shear_y", "rotate", "brightness", "contrast", "color", "sharpness"]
_PLAIN = ["posterize", "solarize", "solarize_add", "invert", "equalize", "auto_contrast"]


@pytest.mark.parametrize("name", _SIGNED + _PLAIN + ["translate_x", "translate_y_no_shape"])
@cpu_gpu(atol=1)
def test_gpu_matches_cpu(name, device):
    kwargs = {"shape": "shape"} if name == "translate_x" else {}
    return run_aug(getattr(a, name), 7, sign=1, device=device, raw=True, **kwargs)
