"""`fn.rotate` and `fn.warp_affine`: sizes, mapping, borders, errors."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import warp_affine as W
from dali._ops.image.rotate import (
    rotated_canvas_size,
    rotated_canvas_size_3d,
    rotation_matrix_2d,
)


def _image(h: int = 40, w: int = 60, c: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (h, w, c), dtype=np.uint8)


def run(op, batch, layout="HWC", *, args=None, inputs=None, seed=7):
    """Run ``op(data, *extra_inputs, **arg_nodes)`` on one external_source batch."""
    batch = list(batch)

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    @dali.pipeline_def(batch_size=len(batch), num_threads=2, device_id=None, seed=seed)
    def pipe():
        data = fn.external_source(source=feeder(batch), layout=layout)
        extra = [fn.external_source(source=feeder(v)) for v in (inputs or [])]
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in (args or {}).items()}
        return op(data, *extra, **nodes)

    p = pipe()
    p.build()
    return p.run()[0]


def run1(op, img, layout="HWC", **kw):
    return run(op, [img], layout, **kw).as_array()[0]


def slow_warp(src, m, out_hw, *, linear=True, fill=None):
    """Per-pixel float64 reference of DALI's warp: ``src = M · (x + ½, y + ½, 1)``."""
    h, w, c = src.shape
    out = np.zeros((*out_hw, c))

    def px(y, x):
        if 0 <= y < h and 0 <= x < w:
            return src[y, x].astype(np.float64)
        if fill is not None:
            return np.full(c, fill, dtype=np.float64)
        return src[min(max(y, 0), h - 1), min(max(x, 0), w - 1)].astype(np.float64)

    for y in range(out_hw[0]):
        for x in range(out_hw[1]):
            sx = m[0, 0] * (x + 0.5) + m[0, 1] * (y + 0.5) + m[0, 2]
            sy = m[1, 0] * (x + 0.5) + m[1, 1] * (y + 0.5) + m[1, 2]
            if not linear:
                out[y, x] = px(math.floor(sy), math.floor(sx))
                continue
            fx, fy = sx - 0.5, sy - 0.5
            x0, y0 = math.floor(fx), math.floor(fy)
            qx, qy = fx - x0, fy - y0
            top = px(y0, x0) * (1 - qx) + px(y0, x0 + 1) * qx
            bot = px(y0 + 1, x0) * (1 - qx) + px(y0 + 1, x0 + 1) * qx
            out[y, x] = top + (bot - top) * qy
    return out


# -- rotate: sizes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,shape",
    [
        ({"angle": 90}, (60, 40)),
        ({"angle": 45}, (72, 72)),
        ({"angle": 10}, (50, 68)),
        ({"angle": 45, "size": (20, 20)}, (20, 20)),
        ({"angle": 45, "keep_size": True}, (40, 60)),
        ({"angle": -90}, (60, 40)),
        ({"angle": 180}, (40, 60)),
    ],
)
def test_rotate_output_sizes(kwargs, shape):
    out = run(lambda x: fn.rotate(x, **kwargs), [_image()])
    assert out.shape() == [(*shape, 3)]
    assert out.layout() == "HWC" and out.dtype == types.UINT8


def test_canvas_parity_rule_at_45_degrees_uses_float32_radians():
    # at exactly 45° float32 radians give sin > cos: the swapped parity applies
    assert rotated_canvas_size(41, 60, 45.0) == (72, 73)
    assert rotated_canvas_size(40, 60, 45.0) == (72, 72)
    assert rotated_canvas_size(40, 60, 30.0) == (66, 72)
    out = run(lambda x: fn.rotate(x, angle=45), [_image(41, 60)])
    assert out.shape() == [(72, 73, 3)]


def test_rotate_multiples_of_90_are_exact():
    img = _image(13, 20)
    for angle, k in [(90, 1), (180, 2), (270, 3), (-90, 3), (360, 0)]:
        for interp in (types.INTERP_LINEAR, types.INTERP_NN):
            out = run1(lambda x, a=angle, i=interp: fn.rotate(x, angle=a, interp_type=i), img)
            np.testing.assert_array_equal(out, np.rot90(img, k))


def test_rotate_matches_per_pixel_reference():
    img = _image(13, 17, seed=3)
    for angle in (10.0, 33.3, 45.0, -120.0):
        out_hw = rotated_canvas_size(13, 17, angle)
        m = rotation_matrix_2d((13, 17), out_hw, angle)
        for fill in (None, 0.0):
            kw = {} if fill is None else {"fill_value": fill}
            out = run1(lambda x, a=angle, k=kw: fn.rotate(x, angle=a, **k), img)
            ref = slow_warp(img, m.astype(np.float64), out_hw, fill=fill)
            assert np.abs(out.astype(int) - np.rint(ref)).max() <= 1
            out_nn = run1(
                lambda x, a=angle, k=kw: fn.rotate(x, angle=a, interp_type=types.INTERP_NN, **k),
                img,
            )
            ref_nn = slow_warp(img, m.astype(np.float64), out_hw, linear=False, fill=fill)
            # exact ties (a source coordinate on a pixel edge) may go either way in float32
            yy, xx = np.mgrid[0 : out_hw[0], 0 : out_hw[1]] + 0.5
            sx = m[0, 0] * xx + m[0, 1] * yy + m[0, 2]
            sy = m[1, 0] * xx + m[1, 1] * yy + m[1, 2]
            tie = (np.abs(sx - np.rint(sx)) < 1e-4) | (np.abs(sy - np.rint(sy)) < 1e-4)
            np.testing.assert_array_equal(out_nn[~tie], ref_nn[~tie])


def test_rotate_is_counter_clockwise_about_the_centre():
    img = np.zeros((21, 21, 1), np.uint8)
    img[10, 15] = 255  # right of the centre
    out = run1(lambda x: fn.rotate(x, angle=90, interp_type=types.INTERP_NN), img)
    assert np.argwhere(out[..., 0] == 255).tolist() == [[5, 10]]  # now above the centre


def test_rotate_fill_value_and_border_replication():
    img = _image()
    filled = run1(lambda x: fn.rotate(x, angle=45, fill_value=0), img)
    assert filled[0, 0].tolist() == [0, 0, 0]
    clamped = run1(lambda x: fn.rotate(x, angle=45), img)
    # the corner maps above the image: its taps clamp to row 0 (replicated content)
    m = rotation_matrix_2d((40, 60), (72, 72), 45.0)
    ref = slow_warp(img, m.astype(np.float64), (72, 72))
    assert np.abs(clamped[0, 0].astype(int) - np.rint(ref[0, 0])).max() <= 1
    row0 = img[0].astype(int)
    lo, hi = row0.min(axis=0), row0.max(axis=0)
    assert np.all((clamped[0, 0] >= lo) & (clamped[0, 0] <= hi)) and clamped[0, 0].any()
    filled7 = run1(lambda x: fn.rotate(x, angle=45, fill_value=7), img)
    assert filled7[0, 0].tolist() == [7, 7, 7]


def test_rotate_per_sample_angles_dtype_and_frames():
    imgs = [_image(seed=s) for s in range(3)]
    angles = [np.float32(0), np.float32(90), np.float32(10)]
    out = run(lambda x, a: fn.rotate(x, angle=a), imgs, args={"a": angles})
    assert out.shape() == [(40, 60, 3), (60, 40, 3), (50, 68, 3)]
    np.testing.assert_array_equal(np.asarray(out.at(0)), imgs[0])
    f = run1(lambda x: fn.rotate(x, angle=90, dtype=types.FLOAT), imgs[0])
    assert f.dtype == np.float32
    # cos(float32(pi/2)) is not quite 0: float outputs blend by ~1e-6 of a neighbour
    np.testing.assert_allclose(f, np.rot90(imgs[0]).astype(np.float32), atol=2e-3)
    frames = np.stack(imgs[:2])
    seq = run1(lambda x: fn.rotate(x, angle=90), frames, "FHWC")
    assert seq.shape == (2, 60, 40, 3)
    for k in range(2):
        np.testing.assert_array_equal(seq[k], np.rot90(imgs[k]))


def test_rotate_volumes():
    rng = np.random.default_rng(1)
    vol = rng.integers(0, 256, (4, 6, 8, 2), dtype=np.uint8)
    out = run1(lambda x: fn.rotate(x, angle=90, axis=(0, 0, 1)), vol, "DHWC")
    # a right-handed turn about z (x→y) is clockwise on screen for y pointing down
    assert out.shape == (4, 8, 6, 2)
    for d in range(4):
        np.testing.assert_array_equal(out[d], np.rot90(vol[d], -1))
    assert rotated_canvas_size_3d((4, 6, 8), (0, 0, 1), 90.0) == (4, 8, 6)
    keep = run(lambda x: fn.rotate(x, angle=30, axis=(1, 1, 0), keep_size=True), [vol], "DHWC")
    assert keep.shape() == [(4, 6, 8, 2)]
    with pytest.raises(RuntimeError, match=r"`axis`.*required"):
        run(lambda x: fn.rotate(x, angle=30), [vol], "DHWC")
    with pytest.raises(RuntimeError, match=r"`axis`.*non-zero"):
        run(lambda x: fn.rotate(x, angle=30, axis=(0, 0, 0)), [vol], "DHWC")


def test_rotate_errors():
    img = _image()
    with pytest.raises(RuntimeError, match=r'Not all required arguments.*"angle"'):
        run(lambda x: fn.rotate(x), [img])
    with pytest.raises(RuntimeError, match=r"`interp_type`.*INTERP_NN and INTERP_LINEAR") as e:
        run(lambda x: fn.rotate(x, angle=3, interp_type=types.INTERP_CUBIC), [img])
    assert "dali.fn.rotate" in str(e.value)
    with pytest.raises(RuntimeError, match=r"`size`.*2 values"):
        run(lambda x: fn.rotate(x, angle=3, size=(1, 2, 3)), [img])
    with pytest.raises(RuntimeError, match="unsupported input layout"):
        run(lambda x: fn.rotate(x, angle=3), [img.transpose(2, 0, 1).copy()], "CHW")
    with pytest.raises(KeyError, match="bogus"):
        fn.rotate(types.Constant(img, layout="HWC"), angle=3, bogus=1)


# -- warp_affine ----------------------------------------------------------------------------------


def test_warp_affine_observed_translation():
    img = _image()
    for interp in (types.INTERP_LINEAR, types.INTERP_NN):
        out = run1(
            lambda x, i=interp: fn.warp_affine(x, matrix=[1, 0, 5, 0, 1, 3], interp_type=i), img
        )
        np.testing.assert_array_equal(out[:37, :55], img[3:, 5:])
        # without fill_value the border is replicated
        np.testing.assert_array_equal(out[:37, 55:], np.repeat(img[3:, 59:60], 5, axis=1))
    inv = run1(
        lambda x: fn.warp_affine(x, matrix=[1, 0, 5, 0, 1, 3], inverse_map=False, fill_value=0),
        img,
    )
    np.testing.assert_array_equal(inv[3:, 5:], img[:37, :55])
    assert not inv[:3].any() and not inv[:, :5].any()


def test_warp_affine_general_matrix_matches_reference():
    img = _image(17, 23, seed=4)
    m = np.array([[0.9, 0.3, -2.0], [-0.2, 1.1, 1.5]], dtype=np.float32)
    for fill in (None, 11.0):
        kw = {} if fill is None else {"fill_value": fill}
        out = run1(lambda x, k=kw: fn.warp_affine(x, matrix=m.reshape(-1).tolist(), **k), img)
        ref = slow_warp(img, m.astype(np.float64), (17, 23), fill=fill)
        assert np.abs(out.astype(int) - np.rint(ref)).max() <= 1
    out = run1(lambda x: fn.warp_affine(x, matrix=m.reshape(-1).tolist(), size=(9, 31.6)), img)
    assert out.shape == (9, 32, 3)  # sizes are rounded


def test_warp_affine_mtx_input_and_per_sample_matrix():
    imgs = [_image(seed=s) for s in range(2)]
    mats = [
        np.array([[1, 0, 5], [0, 1, 3]], np.float32),
        np.array([[1, 0, 0], [0, 1, 0]], np.float32),
    ]
    out = run(lambda x, m: fn.warp_affine(x, m), imgs, inputs=[mats])
    np.testing.assert_array_equal(out.as_array()[0][:37, :55], imgs[0][3:, 5:])
    np.testing.assert_array_equal(out.as_array()[1], imgs[1])
    out = run(
        lambda x, m: fn.warp_affine(x, matrix=m), imgs, args={"m": [m.reshape(-1) for m in mats]}
    )
    np.testing.assert_array_equal(out.as_array()[1], imgs[1])
    out = run(
        lambda x, s: fn.warp_affine(x, matrix=[1, 0, 0, 0, 1, 0], size=s),
        imgs,
        args={"s": [np.array([10, 20], np.float32), np.array([5, 7], np.float32)]},
    )
    assert out.shape() == [(10, 20, 3), (5, 7, 3)]


def test_warp_affine_volumes_and_dtype():
    rng = np.random.default_rng(2)
    vol = rng.integers(0, 256, (5, 6, 7, 1), dtype=np.uint8)
    m = [1, 0, 0, 2, 0, 1, 0, 1, 0, 0, 1, 1]  # x+2, y+1, z+1
    out = run1(lambda x: fn.warp_affine(x, matrix=m, fill_value=0), vol, "DHWC")
    np.testing.assert_array_equal(out[:4, :5, :5], vol[1:, 1:, 2:])
    assert not out[4:].any()
    f = run1(
        lambda x: fn.warp_affine(x, matrix=[1, 0, 0.5, 0, 1, 0], dtype=types.FLOAT), _image(4, 5, 1)
    )
    assert f.dtype == np.float32 and f.shape == (4, 5, 1)


def test_warp_affine_errors():
    img = _image()
    with pytest.raises(RuntimeError, match=r"`matrix`.*transform is required"):
        run(lambda x: fn.warp_affine(x), [img])
    with pytest.raises(RuntimeError, match=r"`matrix`.*6 \(2-D\) or 12"):
        run(lambda x: fn.warp_affine(x, matrix=[1, 2, 3]), [img])
    with pytest.raises(RuntimeError, match=r"`matrix`.*singular"):
        run(lambda x: fn.warp_affine(x, matrix=[0, 0, 1, 0, 0, 1], inverse_map=False), [img])
    with pytest.raises(RuntimeError, match=r"`matrix`.*12 values"):
        run(lambda x: fn.warp_affine(x, matrix=[1, 0, 0, 0, 1, 0]), [_image(3, 4, 5)[None]], "DHWC")
    with pytest.raises(RuntimeError, match="`interp_type`"):
        run(
            lambda x: fn.warp_affine(
                x, matrix=[1, 0, 0, 0, 1, 0], interp_type=types.INTERP_LANCZOS3
            ),
            [img],
        )
    mats = [np.eye(2, 3, dtype=np.float32)]
    with pytest.raises(RuntimeError, match=r"`matrix`.*`mtx`"):
        run(lambda x, m: fn.warp_affine(x, m, matrix=[1, 0, 0, 0, 1, 0]), [img], inputs=[mats])


# -- the OpenCV fast path against the numpy kernel ------------------------------------------------


def test_cv2_fast_path_within_one_of_numpy_kernel():
    pytest.importorskip("cv2")
    rng = np.random.default_rng(9)
    noise = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    board = (np.indices((37, 53)).sum(0) % 2 * 255).astype(np.uint8)[..., None].repeat(4, 2)
    for img in (noise, board):
        for angle in (3.0, 33.3, 100.0):
            out_hw = rotated_canvas_size(37, 53, angle)
            m = rotation_matrix_2d((37, 53), out_hw, angle)
            for fill in (None, 5.0):
                fast = W.warp_fast(img, m, out_hw, interp=1, fill=fill, out_dtype=np.uint8)
                ref = W.warp_sample(img, m, out_hw, interp=1, fill=fill, out_dtype=np.uint8)
                assert fast.shape == ref.shape
                assert np.abs(fast.astype(int) - ref).max() <= 1
                fastf = W.warp_fast(img, m, out_hw, interp=1, fill=fill, out_dtype=np.float32)
                reff = W.warp_sample(img, m, out_hw, interp=1, fill=fill, out_dtype=np.float32)
                assert np.abs(fastf - reff).max() < 0.05  # float32 coordinate rounding


def test_kernel_conversions():
    np.testing.assert_array_equal(
        W.convert_sat(np.array([-3.0, 0.5, 1.5, 254.6, 300.0]), np.uint8), [0, 0, 2, 255, 255]
    )
    m = np.array([[2, 0, 1], [0, 4, -1]], np.float32)
    np.testing.assert_allclose(W.invert_affine(m), [[0.5, 0, -0.5], [0, 0.25, 0.25]], atol=1e-7)
    empty = W.warp_sample(_image(3, 3), m, (0, 4), interp=1, fill=None, out_dtype=np.uint8)
    assert empty.shape == (0, 4, 3)
