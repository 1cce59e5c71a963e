"""The affine transform generators: fn.transforms.translation, scale, rotation, shear, crop and
combine, their chaining, sequences, errors, and their matrices fed to warp_affine and
coord_transform."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, ops, types
from dali._ops.base import OperatorError
from dali._ops.transforms import _matrices as mx

F = np.float32
#: float32 results compared with float64 references: a few ulps of values of order 1..100
TOL = {"rtol": 1e-6, "atol": 1e-5}


def _run(build, *, batch_size=2):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=1, device_id=None, seed=3)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _feed(samples, layout=None):
    arrays = [np.asarray(s, F) for s in samples]
    kw = {"layout": layout} if layout else {}
    return fn.external_source(lambda: arrays, batch=True, **kw)


def _samples(tl):
    return [np.asarray(s) for s in tl.samples()]


def _h(m):
    """A ``(n, n + 1)`` matrix as a float64 homogeneous one."""
    m = np.asarray(m, np.float64)
    n = m.shape[0]
    out = np.eye(n + 1)
    out[:n] = m
    return out


def _rot2(deg, center=(0.0, 0.0)):
    a = math.radians(deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    c = np.asarray(center, np.float64)
    return np.concatenate([r, (c - r @ c)[:, None]], axis=1)


# -- single transforms ---------------------------------------------------------------------------


def test_translation_2d_3d_and_1d():
    two, three, one = _run(
        lambda: (
            fn.transforms.translation(offset=[1.5, -2.0]),
            fn.transforms.translation(offset=[1.0, 2.0, 3.0]),
            fn.transforms.translation(offset=4.0),
        )
    )
    assert two.layout() == "**" and two.shape() == [(2, 3), (2, 3)]
    assert _samples(two)[0].dtype == F
    np.testing.assert_array_equal(_samples(two)[1], [[1, 0, 1.5], [0, 1, -2]])
    np.testing.assert_array_equal(_samples(three)[0][:, 3], [1, 2, 3])
    np.testing.assert_array_equal(_samples(one)[0], [[1, 4]])


def test_rotation_2d_matches_the_formula_with_center():
    (out,) = _run(lambda: fn.transforms.rotation(angle=30.0, center=[1.0, 2.0]))
    np.testing.assert_allclose(_samples(out)[0], _rot2(30.0, (1, 2)), **TOL)


def test_rotation_uses_float32_radians_like_dali():
    # cos(float32(pi/2)) is -4.37e-08, not 0: DALI's float arithmetic
    (out,) = _run(lambda: fn.transforms.rotation(angle=90.0))
    m = _samples(out)[0]
    assert m[0, 0] == F(-4.371139e-08) and m[1, 0] == 1.0 and m[0, 1] == -1.0


def test_rotation_3d_about_z_embeds_the_2d_rotation_and_normalises_the_axis():
    r2, r3 = _run(
        lambda: (
            fn.transforms.rotation(angle=40.0),
            fn.transforms.rotation(angle=40.0, axis=[0.0, 0.0, 5.0], center=[1.0, 1.0, 7.0]),
        )
    )
    m3 = _samples(r3)[0]
    assert m3.shape == (3, 4)
    np.testing.assert_allclose(m3[:2, :2], _samples(r2)[0][:, :2], atol=1e-7)
    np.testing.assert_allclose(m3[2], [0, 0, 1, 0], atol=1e-7)
    np.testing.assert_allclose(m3[:2, 3], _rot2(40.0, (1, 1))[:, 2], **TOL)


def test_rotation_3d_about_a_diagonal_permutes_axes_at_120_degrees():
    (out,) = _run(lambda: fn.transforms.rotation(angle=120.0, axis=[1.0, 1.0, 1.0]))
    np.testing.assert_allclose(
        _samples(out)[0], [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]], atol=2e-7
    )


def test_rotation_zero_axis_gives_nan_except_at_zero_angle():
    nan, ident = _run(
        lambda: (
            fn.transforms.rotation(angle=10.0, axis=[0.0, 0.0, 0.0]),
            fn.transforms.rotation(angle=0.0, axis=[0.0, 0.0, 0.0]),
        )
    )
    assert np.isnan(_samples(nan)[0][:, :3]).all()
    np.testing.assert_array_equal(_samples(ident)[0], np.eye(3, 4))


def test_scale_center_and_dimensionality_rules():
    centered, by_ndim, long_vec, zero = _run(
        lambda: (
            fn.transforms.scale(scale=[2.0, 3.0], center=[1.0, 1.0]),
            fn.transforms.scale(scale=2.0, ndim=3, center=1.0),
            fn.transforms.scale(scale=[1.0, 2.0], ndim=3),  # the vector's length wins
            fn.transforms.scale(scale=5.0, ndim=0),  # no valid ndim: 1-D
        )
    )
    np.testing.assert_array_equal(_samples(centered)[0], [[2, 0, -1], [0, 3, -2]])
    np.testing.assert_array_equal(
        _samples(by_ndim)[0], np.concatenate([2 * np.eye(3), -np.ones((3, 1))], 1)
    )
    assert long_vec.shape()[0] == (2, 3)
    np.testing.assert_array_equal(_samples(zero)[0], [[5, 0]])


def test_scale_takes_the_input_dimensionality_for_one_value():
    m3 = np.arange(12, dtype=F).reshape(3, 4)
    (out,) = _run(lambda: fn.transforms.scale(_feed([m3, m3]), scale=2.0, ndim=2))
    np.testing.assert_array_equal(_samples(out)[0], 2 * m3)


def test_shear_factors_angles_and_3d():
    two, by_angle, three = _run(
        lambda: (
            fn.transforms.shear(shear=[0.5, 0.25], center=[1.0, 2.0]),
            fn.transforms.shear(angles=[45.0, -45.0]),
            fn.transforms.shear(shear=[1, 2, 3, 4, 5, 6]),
        )
    )
    np.testing.assert_array_equal(_samples(two)[0], [[1, 0.5, -1], [0.25, 1, -0.25]])
    np.testing.assert_allclose(_samples(by_angle)[0], [[1, 1, 0], [-1, 1, 0]], atol=1e-7)
    np.testing.assert_array_equal(_samples(three)[0], [[1, 1, 2, 0], [3, 1, 4, 0], [5, 6, 1, 0]])


def test_crop_maps_the_box_and_absolute_orders_it():
    plain, absolute, broadcast = _run(
        lambda: (
            fn.transforms.crop(from_start=[1, 2], from_end=[5, 8], to_start=[0, 0], to_end=[1, 1]),
            fn.transforms.crop(from_start=[4, 1], from_end=[2, 3], absolute=True),
            fn.transforms.crop(from_end=[10.0, 20.0, 40.0], to_end=2.0),
        )
    )
    m = _samples(plain)[0].astype(np.float64)
    for a, b in [((1, 2), (0, 0)), ((5, 8), (1, 1))]:
        np.testing.assert_allclose(m[:, :2] @ a + m[:, 2], b, atol=1e-6)
    np.testing.assert_allclose(_samples(absolute)[0], [[0.5, 0, -1], [0, 0.5, -0.5]])
    np.testing.assert_allclose(np.diag(_samples(broadcast)[0][:, :3]), [0.2, 0.1, 0.05])


def test_crop_zero_extent_gives_infinity_as_dali():
    (out,) = _run(lambda: fn.transforms.crop(from_start=1.0, from_end=1.0))
    assert np.isinf(_samples(out)[0]).all()


# -- per-sample arguments --------------------------------------------------------------------------


def test_per_sample_angles_and_scalar_center():
    angles = _feed([np.float32(10), np.float32(-100)])
    centers = _feed([np.float32(3), np.float32(-2)])
    (out,) = _run(lambda: fn.transforms.rotation(angle=angles, center=centers))
    for m, a, c in zip(_samples(out), (10, -100), (3, -2)):
        np.testing.assert_allclose(m, _rot2(a, (c, c)), **TOL)


def test_per_sample_shear_matrices_of_both_shapes():
    two_by_one = _feed([[[1], [2]], [[3], [4]]])
    three_by_two = _feed([np.arange(6).reshape(3, 2)] * 2)
    a, b = _run(
        lambda: (fn.transforms.shear(shear=two_by_one), fn.transforms.shear(shear=three_by_two))
    )
    np.testing.assert_array_equal(_samples(a)[1], [[1, 3, 0], [4, 1, 0]])
    assert b.shape() == [(3, 4), (3, 4)]


def test_per_sample_offsets_of_other_lengths_are_an_error():
    offsets = _feed([[1, 2], [1, 2, 3]])
    with pytest.raises(Exception, match=r"offset.*uniform shape"):
        _run(lambda: fn.transforms.translation(offset=offsets))


def test_per_sample_center_of_one_value_is_an_error_unlike_a_scalar():
    centers = _feed([[1.0], [2.0]])
    with pytest.raises(Exception, match="center"):
        _run(lambda: fn.transforms.scale(scale=[1.0, 2.0], center=centers))


def test_per_sample_angle_must_be_a_scalar():
    with pytest.raises(Exception, match=r"angle.*dimension"):
        _run(lambda: fn.transforms.rotation(angle=_feed([[10.0], [20.0]])))


# -- chaining and combine --------------------------------------------------------------------------


def test_chaining_applies_the_new_transform_after_the_input():
    after, before = _run(
        lambda: (
            fn.transforms.rotation(fn.transforms.scale(scale=[2.0, 3.0]), angle=30.0),
            fn.transforms.rotation(
                fn.transforms.scale(scale=[2.0, 3.0]), angle=30.0, reverse_order=True
            ),
        )
    )
    r, s = _h(_rot2(30.0)), _h([[2, 0, 0], [0, 3, 0]])
    np.testing.assert_allclose(_samples(after)[0], (r @ s)[:2], **TOL)
    np.testing.assert_allclose(_samples(before)[0], (s @ r)[:2], **TOL)


def test_combine_applies_the_inputs_in_order():
    def build(reverse):
        t = fn.transforms.translation(offset=[1.0, 2.0])
        r = fn.transforms.rotation(angle=30.0)
        s = fn.transforms.scale(scale=[2.0, 3.0])
        return fn.transforms.combine(t, r, s, reverse_order=reverse)

    fwd, rev = _run(lambda: (build(False), build(True)))
    t, r, s = _h([[1, 0, 1], [0, 1, 2]]), _h(_rot2(30.0)), _h([[2, 0, 0], [0, 3, 0]])
    np.testing.assert_allclose(_samples(fwd)[0], (s @ r @ t)[:2], **TOL)
    np.testing.assert_allclose(_samples(rev)[0], (t @ r @ s)[:2], **TOL)


def test_combine_needs_two_inputs_of_one_shape():
    with pytest.raises(Exception, match="input"):
        _run(lambda: fn.transforms.combine(fn.transforms.translation(offset=[1.0, 2.0])))
    with pytest.raises(Exception, match="same shape"):
        _run(
            lambda: fn.transforms.combine(
                fn.transforms.translation(offset=[1.0, 2.0]),
                fn.transforms.translation(offset=[1.0, 2.0, 3.0]),
            )
        )


def test_products_are_summed_in_dalis_float32_order():
    rng = np.random.default_rng(1)
    a = rng.uniform(-2, 2, (5, 4, 4)).astype(F)
    b = rng.uniform(-2, 2, (5, 4, 4)).astype(F)
    expected = np.zeros((5, 4, 4), F)
    for k in range(4):
        expected = (expected + a[:, :, k, None] * b[:, None, k, :]).astype(F)
    np.testing.assert_array_equal(mx.compose(a, b), expected)


# -- sequences -------------------------------------------------------------------------------------


def test_per_frame_angles_make_one_matrix_per_frame():
    angles = _feed([[10, 20, 30], [40, 50]])
    (out,) = _run(lambda: fn.transforms.rotation(angle=fn.per_frame(angles)))
    assert out.layout() == "F**" and out.shape() == [(3, 2, 3), (2, 2, 3)]
    np.testing.assert_allclose(_samples(out)[1][1], _rot2(50.0), **TOL)


def test_sequence_input_and_a_one_frame_argument_broadcast():
    seq = [np.stack([np.eye(2, 3, dtype=F) * k for k in (1, 2, 3)])] * 2
    angles = _feed([[90.0], [0.0, 10.0, 20.0]])
    (out,) = _run(lambda: fn.transforms.rotation(_feed(seq, "F**"), angle=fn.per_frame(angles)))
    first, second = _samples(out)
    np.testing.assert_allclose(first[2], (_h(_rot2(90.0)) @ _h(seq[0][2]))[:2], **TOL)
    np.testing.assert_allclose(second[1], (_h(_rot2(10.0)) @ _h(seq[0][1]))[:2], **TOL)


def test_a_non_sequence_input_serves_every_frame():
    mats = [np.eye(2, 3, dtype=F) * 2] * 2
    offsets = _feed([[[1, 1], [2, 2]], [[3, 3], [4, 4]]])
    (out,) = _run(lambda: fn.transforms.translation(_feed(mats), offset=fn.per_frame(offsets)))
    assert out.shape() == [(2, 2, 3), (2, 2, 3)]
    np.testing.assert_array_equal(_samples(out)[1][1], [[2, 0, 4], [0, 2, 4]])


def test_per_frame_counts_must_match():
    seq = [np.zeros((3, 2, 3), F)] * 2
    angles = _feed([[1.0, 2.0], [1.0, 2.0, 3.0]])
    with pytest.raises(Exception, match=r"per-frame parameters.*3 frames"):
        _run(lambda: fn.transforms.rotation(_feed(seq, "F**"), angle=fn.per_frame(angles)))


def test_combine_of_sequences_with_other_frame_counts_fails():
    a = _feed([np.zeros((3, 2, 3))] * 2, "F**")
    b = _feed([np.zeros((2, 2, 3))] * 2, "F**")
    with pytest.raises(Exception, match="different number of frames"):
        _run(lambda: fn.transforms.combine(a, b))


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: fn.transforms.shear(shear=[1.0, 2.0], angles=[1.0, 2.0]), "One and only one"),
        (lambda: fn.transforms.shear(), "One and only one"),
        (lambda: fn.transforms.shear(shear=[1.0, 2.0, 3.0]), r"D\*\(D-1\) elements"),
        (lambda: fn.transforms.shear(angles=[100.0, 0.0]), r"range \[-90, 90\]. Got: 100"),
        (lambda: fn.transforms.rotation(angle=1.0, axis=[1.0, 2.0]), "axis.*expected shape 3"),
        (lambda: fn.transforms.rotation(angle=1.0, center=[1.0, 2.0, 3.0]), "center"),
        (lambda: fn.transforms.scale(scale=[1.0] * 7), "Unsupported number of dimensions 7"),
        (lambda: fn.transforms.translation(offset=[0.0] * 7), "Unsupported number of dimensions 7"),
        (
            lambda: fn.transforms.crop(from_start=[1.0, 2.0], to_end=[1.0, 2.0, 3.0]),
            "same number of dimensions",
        ),
        (
            lambda: fn.transforms.rotation(
                fn.transforms.translation(offset=[1.0, 2.0, 3.0]), angle=5.0
            ),
            "3D transform but other arguments suggest a 2D",
        ),
        (
            lambda: fn.transforms.translation(_feed([np.eye(2)] * 2), offset=[1.0, 2.0]),
            r"\(ndim, ndim\+1\)",
        ),
        (
            lambda: fn.transforms.translation(
                fn.external_source(lambda: [np.eye(2, 3)] * 2, batch=True), offset=[1.0, 2.0]
            ),
            "Expected float, got: double",
        ),
    ],
)
def test_errors_name_the_operator(build, pattern):
    with pytest.raises(Exception, match=pattern) as info:
        _run(build)
    assert "transforms." in str(info.value)


def test_argument_errors_are_operator_errors_naming_the_argument():
    with pytest.raises(Exception) as info:
        _run(lambda: fn.transforms.shear(angles=[100.0, 0.0]))
    err = info.value
    while err is not None and not isinstance(err, OperatorError):
        err = err.__cause__
    assert isinstance(err, OperatorError)
    assert "argument `angles`" in str(err) and "dali.fn.transforms.shear" in str(err)


def test_rotation_angle_is_required():
    with pytest.raises(Exception, match="angle"):
        _run(lambda: fn.transforms.rotation())


def test_the_operators_are_cpu_only():
    with pytest.raises(Exception, match=r"gpu|GPU"):
        _run(lambda: fn.transforms.translation(offset=[1.0, 2.0], device="gpu"))


# -- the API and trace-time metadata ---------------------------------------------------------------


def test_ops_classes_are_generated():
    rot = ops.transforms.Rotation(angle=45.0)
    comb = ops.transforms.Combine()
    (out,) = _run(lambda: comb(fn.transforms.scale(scale=[2.0, 2.0]), rot()))
    np.testing.assert_allclose(
        _samples(out)[0], (_h(_rot2(45.0)) @ _h([[2, 0, 0], [0, 2, 0]]))[:2], **TOL
    )


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        plain = fn.transforms.rotation(angle=10.0)
        seq = fn.transforms.rotation(angle=fn.per_frame(_feed([[1.0, 2.0]])))
        pipe.set_outputs(plain, seq)
    assert (plain.dtype, plain.ndim, plain.layout) == (types.FLOAT, 2, "**")
    assert seq.layout in (None, "F**")


# -- consumers ------------------------------------------------------------------------------------


def test_warp_affine_takes_the_matrix_per_sample_as_an_argument_or_input():
    img = np.random.default_rng(0).integers(0, 256, (20, 30, 3)).astype(np.uint8)
    angles = _feed([np.float32(15), np.float32(-30)])

    def build():
        images = fn.external_source(lambda: [img, img[::-1].copy()], batch=True, layout="HWC")
        mt = fn.transforms.rotation(angle=angles, center=[15.0, 10.0])
        explicit = fn.external_source(
            lambda: [_rot2(15, (15, 10)).astype(F), _rot2(-30, (15, 10)).astype(F)], batch=True
        )
        return (
            fn.warp_affine(images, matrix=mt, fill_value=0),
            fn.warp_affine(images, mt, fill_value=0),
            fn.warp_affine(images, matrix=explicit, fill_value=0),
            fn.warp_affine(images, matrix=mt, inverse_map=False, fill_value=0),
        )

    by_arg, by_input, explicit, forward = _run(build)
    for a, b, c in zip(_samples(by_arg), _samples(by_input), _samples(explicit)):
        np.testing.assert_array_equal(a, b)
        assert np.abs(a.astype(int) - c.astype(int)).max() <= 1
    # inverse_map=False reads the same matrix as source->destination: another image
    assert not np.array_equal(_samples(forward)[0], _samples(by_arg)[0])


def test_coord_transform_applies_the_matrix_as_mt():
    pts = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]], F)
    (out,) = _run(
        lambda: fn.coord_transform(
            types.Constant(pts),
            MT=fn.transforms.translation(fn.transforms.rotation(angle=90.0), offset=[10.0, 20.0]),
        ),
        batch_size=1,
    )
    expected = pts.astype(np.float64) @ _rot2(90.0)[:, :2].T + [10, 20]
    np.testing.assert_allclose(_samples(out)[0], expected, atol=1e-5)
