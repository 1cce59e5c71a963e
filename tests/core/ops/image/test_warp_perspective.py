"""`fn.experimental.warp_perspective`: OpenCV's arithmetic, layouts, sizes, borders, errors."""

from __future__ import annotations

import cv2
import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import warp_perspective as WP
from parity import cpu_gpu, device_id, to_device

M = np.array([[1.1, 0.1, -2.0], [0.05, 0.9, 1.0], [0.001, 0.002, 1.0]], np.float32)
M2 = np.array([[0.8, -0.2, 10.0], [0.15, 1.2, -4.0], [-0.0015, 0.0008, 1.05]], np.float32)
IMG = np.random.default_rng(0).integers(0, 256, (20, 30, 3), dtype=np.uint8)
SHIFT = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], np.float32)
BACK = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], np.float32)


def _const(values):
    return lambda: values


def run(batch, layout="HWC", *, extra=None, args=None, device="cpu", **kw):
    batch = [np.asarray(x) for x in batch]

    @dali.pipeline_def(
        batch_size=len(batch), num_threads=2, device_id=device_id(device) if device else None
    )
    def pipe():
        x = to_device(fn.external_source(source=lambda: batch, layout=layout), device)
        ins = [x]
        if extra is not None:
            ins.append(fn.external_source(source=lambda: extra))
        nodes = {k: fn.external_source(source=_const(v)) for k, v in (args or {}).items()}
        return fn.experimental.warp_perspective(*ins, **nodes, **kw)

    p = pipe()
    p.build()
    return p.run()[0]


def cv_ref(img, m, size=None, flags=cv2.INTER_LINEAR, border=cv2.BORDER_CONSTANT, value=0.0):
    h, w = img.shape[:2] if size is None else size
    return cv2.warpPerspective(
        img,
        m,
        (w, h),
        flags=flags | cv2.WARP_INVERSE_MAP,
        borderMode=border,
        borderValue=(value,) * 4,
    )


def test_corner_origin_is_shifted_opencv():
    out = run([IMG], matrix=M.ravel().tolist()).as_array()[0]
    np.testing.assert_array_equal(out, cv_ref(IMG, BACK @ (M @ SHIFT)))


def test_center_origin_is_opencv():
    out = run([IMG], matrix=M.ravel().tolist(), pixel_origin="center").as_array()[0]
    np.testing.assert_array_equal(out, cv_ref(IMG, M))


def test_integer_shift_moves_pixels():
    m = [1, 0, 5, 0, 1, 3, 0, 0, 1]
    out = run([IMG], matrix=m, interp_type=types.INTERP_NN).as_array()[0]
    np.testing.assert_array_equal(out[:-3, :-5], IMG[3:, 5:])
    assert (out[-3:] == 0).all()


def test_inverse_map_false_inverts():
    fwd = np.linalg.inv(M.astype(np.float64)).astype(np.float32)
    a = run([IMG], matrix=fwd.ravel().tolist(), inverse_map=False).as_array()[0]
    b = run([IMG], matrix=M.ravel().tolist()).as_array()[0]
    assert np.abs(a.astype(int) - b).max() <= 1


@pytest.mark.parametrize("border", ["constant", "replicate", "reflect", "reflect_101", "wrap"])
@pytest.mark.parametrize("interp", [types.INTERP_NN, types.INTERP_LINEAR, types.INTERP_CUBIC])
def test_array_fallback_matches_opencv(border, interp, monkeypatch):
    # without OpenCV the array body runs: OpenCV's arithmetic with float weights (±1)
    ref = run([IMG], matrix=M2.ravel().tolist(), border_mode=border, interp_type=interp)
    monkeypatch.setattr(WP, "optional_cv2", lambda: None)
    out = run([IMG], matrix=M2.ravel().tolist(), border_mode=border, interp_type=interp)
    assert np.abs(out.as_array().astype(int) - ref.as_array()).max() <= 1


@pytest.mark.parametrize("dtype", [np.uint16, np.float32])
def test_array_fallback_types_and_fill(dtype, monkeypatch):
    img = (IMG.astype(np.float32) * (100 if dtype != np.float32 else 1 / 255)).astype(dtype)
    kw = {"matrix": M2.ravel().tolist(), "fill_value": [7.0, 8.0, 9.0]}
    ref = run([img], **kw).as_array()
    monkeypatch.setattr(WP, "optional_cv2", lambda: None)
    out = run([img], **kw).as_array()
    assert out.dtype == np.dtype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1
    assert np.abs(out.astype(np.float64) - ref).max() <= tol


def test_border_index_matches_opencv():
    p = np.arange(-9, 12)
    for border, flag in [
        ("replicate", cv2.BORDER_REPLICATE),
        ("reflect", cv2.BORDER_REFLECT),
        ("reflect_101", cv2.BORDER_REFLECT_101),
        ("wrap", cv2.BORDER_WRAP),
    ]:
        got = WP.border_index(np, p, 4, border)
        assert got.tolist() == [cv2.borderInterpolate(int(q), 4, flag) for q in p]


def test_size_rounds_half_away_and_at_least_one():
    out = run([IMG, IMG], matrix=M.ravel().tolist(), size=[10.5, 0.2])
    assert out.shape() == [(11, 1, 3)] * 2
    out = run([IMG], matrix=M.ravel().tolist(), size=[-3, 5])
    assert out.shape() == [(1, 5, 3)]


def test_per_sample_size_and_matrix():
    sizes = [np.array([7, 9], np.float32), np.array([12, 4], np.float32)]
    flipped = IMG[::-1].copy()
    out = run([IMG, flipped], args={"size": sizes, "matrix": [M, M2]})
    assert out.shape() == [(7, 9, 3), (12, 4, 3)]
    np.testing.assert_array_equal(out[1], cv_ref(flipped, BACK @ (M2 @ SHIFT), (12, 4)))


def test_matrix_input():
    out = run([IMG, IMG], extra=[M, M2]).as_array()
    np.testing.assert_array_equal(out[1], cv_ref(IMG, BACK @ (M2 @ SHIFT)))


def test_planar_and_gray_layouts():
    chw = np.ascontiguousarray(IMG.transpose(2, 0, 1))
    out = run([chw], "CHW", matrix=M.ravel().tolist(), size=[7, 9])
    assert out.layout() == "CHW" and out.shape() == [(3, 7, 9)]
    hwc = run([IMG], matrix=M.ravel().tolist(), size=[7, 9]).as_array()[0]
    np.testing.assert_array_equal(out.as_array()[0].transpose(1, 2, 0), hwc)
    gray = run([IMG[..., 0].copy()], "HW", matrix=M.ravel().tolist())
    assert gray.layout() == "HW" and gray.shape() == [(20, 30)]
    np.testing.assert_array_equal(
        gray.as_array()[0], hwc_full := run([IMG], matrix=M.ravel().tolist()).as_array()[0][..., 0]
    )
    assert hwc_full.shape == (20, 30)


def test_no_layout_defaults():
    out = run([IMG], "", matrix=M.ravel().tolist())
    assert out.layout() == "HWC"


def test_sequences_and_per_frame_matrix():
    clip = np.stack([IMG, IMG[::-1].copy()])
    out = run([clip], "FHWC", matrix=M.ravel().tolist()).as_array()[0]
    np.testing.assert_array_equal(out[1], cv_ref(IMG[::-1].copy(), BACK @ (M @ SHIFT)))

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [clip], layout="FHWC")
        m = fn.external_source(source=lambda: [np.stack([M, M2])])
        return fn.experimental.warp_perspective(x, matrix=fn.per_frame(m))

    p = pipe()
    p.build()
    got = p.run()[0].as_array()[0]
    np.testing.assert_array_equal(got[1], cv_ref(IMG[::-1].copy(), BACK @ (M2 @ SHIFT)))


@pytest.mark.parametrize(
    "kw,text",
    [
        ({}, "expected shape 3 x 3"),
        ({"matrix": [1.0] * 6}, "expected shape 3 x 3 but got 6"),
        ({"matrix": [1.0] * 9, "size": [1, 2, 3]}, 'Argument "size" expected shape 2'),
        ({"matrix": [1.0] * 9, "border_mode": "mirror"}, "Invalid border_mode argument: mirror"),
        ({"matrix": [1.0] * 9, "pixel_origin": "mid"}, "Invalid pixel_origin argument: mid"),
        ({"matrix": [1.0] * 9, "interp_type": types.INTERP_LANCZOS3}, "Unknown interpolation"),
        ({"matrix": [1.0] * 9, "fill_value": [1.0, 2.0]}, "should match the number of channels"),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text) as e:
        run([IMG], **kw)
    assert "warp_perspective" in str(e.value)


def test_input_errors():
    with pytest.raises(Exception, match="more than 4 channels"):
        run([np.zeros((4, 4, 5), np.uint8)], matrix=M.ravel().tolist())
    with pytest.raises(Exception, match="uint8, int16, uint16, float"):
        run([IMG.astype(np.int32)], matrix=M.ravel().tolist())
    with pytest.raises(Exception, match="planar"):
        run([IMG.transpose(2, 0, 1).copy()], "CHW", matrix=M.ravel().tolist(), fill_value=[1, 2, 3])
    with pytest.raises(Exception, match="does not match any of the allowed layouts"):
        run([IMG], "ABC", matrix=M.ravel().tolist())
    with pytest.raises(Exception, match="float32"):
        run([IMG], extra=[M.astype(np.float64)])
    with pytest.raises(Exception, match="3x3 matrices"):
        run([IMG], extra=[M[:2].copy()])
    with pytest.raises(Exception, match="should not be provided at the same time"):
        run([IMG], extra=[M], matrix=M.ravel().tolist())
    with pytest.raises(Exception, match="3x3 tensor"):
        run([IMG], args={"matrix": [M.ravel()]})


@pytest.mark.parametrize("interp", [types.INTERP_NN, types.INTERP_LINEAR, types.INTERP_CUBIC])
@pytest.mark.parametrize("border", ["constant", "reflect_101"])
@cpu_gpu(atol=1)
def test_gpu_matches_cpu(interp, border, device):
    batch = [IMG, IMG[:13, :17].copy()]
    return run(
        batch,
        device=device,
        matrix=M2.ravel().tolist(),
        interp_type=interp,
        border_mode=border,
        fill_value=33.0,
    )
