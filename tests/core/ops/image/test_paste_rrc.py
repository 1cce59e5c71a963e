"""`fn.paste` and `fn.random_resized_crop`."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image import random_resized_crop as rrc_module
from dali._ops.image.paste import paste_geometry
from dali._ops.image.resample import reference as R
from dali._ops.image.resize import axis_plans


def _image(h: int = 40, w: int = 60, c: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (h, w, c), dtype=np.uint8)


def run(op, batch, layout="HWC", *, args=None, seed=7, num_threads=2):
    batch = list(batch)

    def feeder(values):
        arrays = [np.asarray(x) for x in values]
        return lambda: arrays

    @dali.pipeline_def(batch_size=len(batch), num_threads=num_threads, device_id=None, seed=seed)
    def pipe():
        data = fn.external_source(source=feeder(batch), layout=layout)
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in (args or {}).items()}
        return op(data, **nodes)

    p = pipe()
    p.build()
    try:
        return p.run()[0]
    finally:
        # joins the executor: the iteration it runs ahead must not reach a test's spy later
        p.close()


def run1(op, img, layout="HWC", **kw):
    return np.asarray(run(op, [img], layout, **kw).at(0))


# -- paste ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hw,kwargs,expected",
    [
        ((40, 60), {"ratio": 1.5}, (60, 90, 10, 15)),
        ((40, 60), {"ratio": 1.55}, (62, 93, 11, 16)),
        ((40, 60), {"ratio": 2}, (80, 120, 20, 30)),
        ((40, 60), {"ratio": 1.55, "paste_x": 0, "paste_y": 1}, (62, 93, 22, 0)),
        ((90, 90), {"ratio": 1.3}, (116, 116, 13, 13)),  # float32: int(90 * 1.3) = 116
        ((40, 60), {"ratio": 1, "min_canvas_size": 100.7}, (100, 100, 30, 20)),
    ],
)
def test_paste_geometry_and_placement(hw, kwargs, expected):
    assert paste_geometry(*hw, **kwargs) == expected
    img = _image(*hw)
    out = run1(lambda x: fn.paste(x, fill_value=(1, 2, 3), **kwargs), img)
    ch, cw, y, x = expected
    assert out.shape == (ch, cw, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out[y : y + hw[0], x : x + hw[1]], img)
    mask = np.ones((ch, cw), bool)
    mask[y : y + hw[0], x : x + hw[1]] = False
    assert (out[mask] == [1, 2, 3]).all()


def test_paste_per_sample_arguments_and_single_fill_value():
    imgs = [_image(seed=s) for s in range(2)]
    out = run(
        lambda x, r, px: fn.paste(x, ratio=r, paste_x=px, fill_value=9),
        imgs,
        args={"r": [np.float32(2), np.float32(1.5)], "px": [np.float32(0), np.float32(1)]},
    )
    assert out.shape() == [(80, 120, 3), (60, 90, 3)]
    a1 = np.asarray(out.at(1))
    np.testing.assert_array_equal(a1[10:50, 30:90], imgs[1])
    assert (a1[0, 0] == 9).all()
    gray = run1(lambda x: fn.paste(x, ratio=2, fill_value=5, n_channels=1), _image(c=1))
    assert gray.shape == (80, 120, 1) and gray[0, 0, 0] == 5


def test_paste_errors():
    img = _image()
    with pytest.raises(RuntimeError, match=r'Not all required arguments.*"ratio"'):
        run(lambda x: fn.paste(x, fill_value=(0, 0, 0)), [img])
    with pytest.raises(RuntimeError, match=r'Not all required arguments.*"fill_value"'):
        run(lambda x: fn.paste(x, ratio=2), [img])
    with pytest.raises(RuntimeError, match=r"`ratio`.*>= 1") as e:
        run(lambda x: fn.paste(x, ratio=0.5, fill_value=(0, 0, 0)), [img])
    assert "dali.fn.paste" in str(e.value)
    with pytest.raises(RuntimeError, match=r"`ratio`.*sample 0.*>= 1"):
        run(lambda x, r: fn.paste(x, ratio=r, fill_value=0), [img], args={"r": [np.float32(0.9)]})
    with pytest.raises(RuntimeError, match=r"`paste_x`.*in \[0.0, 1.0\]"):
        run(lambda x: fn.paste(x, ratio=2, fill_value=0, paste_x=1.5), [img])
    with pytest.raises(RuntimeError, match=r"`fill_value`.*one per channel"):
        run(lambda x: fn.paste(x, ratio=2, fill_value=(0, 0)), [img])
    with pytest.raises(RuntimeError, match="`n_channels`"):
        run(lambda x: fn.paste(x, ratio=2, fill_value=0, n_channels=4), [img])
    with pytest.raises(RuntimeError, match="UINT8"):
        run(lambda x: fn.paste(x, ratio=2, fill_value=0), [img.astype(np.float32)])
    with pytest.raises(RuntimeError, match="HWC"):
        run(lambda x: fn.paste(x, ratio=2, fill_value=0), [img.transpose(2, 0, 1).copy()], "CHW")


# -- random_resized_crop --------------------------------------------------------------------------


def test_rrc_output_is_exactly_size():
    imgs = [_image(40, 60), _image(100, 30, seed=1), _image(7, 300, seed=2)]
    out = run(lambda x: fn.random_resized_crop(x, size=(24, 32)), imgs)
    assert out.shape() == [(24, 32, 3)] * 3
    assert out.dtype == types.UINT8 and out.layout() == "HWC"
    out = run(lambda x: fn.random_resized_crop(x, size=[16]), imgs)
    assert out.shape() == [(16, 16, 3)] * 3


def test_rrc_crops_the_generated_window_and_resizes_it(monkeypatch):
    windows = {}
    real = rrc_module.random_crop_windows

    def spy(source, shapes, *args, **kw):
        anchors, sizes = real(source, shapes, *args, **kw)
        for (h, w), a, s in zip(np.asarray(shapes).tolist(), anchors, sizes):
            # the first iteration (the executor runs ahead)
            windows.setdefault((h, w), (*a.tolist(), *s.tolist()))
        return anchors, sizes

    monkeypatch.setattr(rrc_module, "random_crop_windows", spy)
    imgs = [_image(40, 60), _image(50, 70, seed=1)]
    for interp in (types.INTERP_LINEAR, types.INTERP_CUBIC, types.INTERP_NN):
        windows.clear()
        out = run(lambda x, i=interp: fn.random_resized_crop(x, size=(24, 32), interp_type=i), imgs)
        for k, img in enumerate(imgs):
            y, x, h, w = windows[img.shape[:2]]
            assert 0 <= y <= img.shape[0] - h and 0 <= x <= img.shape[1] - w
            plans = axis_plans(
                img.shape[:2], (24, 32), (y, x), (y + h, x + w), int(interp), int(interp), True
            )
            ref = R.resample_reference(img, (0, 1), plans, np.uint8)
            assert np.abs(np.asarray(out.at(k)).astype(int) - ref).max() <= 1


def test_rrc_full_window_equals_resize():
    img = _image(60, 80, seed=3)
    kw = {"random_area": (1.0, 1.0), "random_aspect_ratio": (4 / 3, 4 / 3)}
    crop = run1(lambda x: fn.random_resized_crop(x, size=(24, 32), **kw), img)
    resized = run1(lambda x: fn.resize(x, size=(24, 32)), img)
    np.testing.assert_array_equal(crop, resized)


def test_rrc_is_deterministic_per_seed_and_sample():
    imgs = [_image(60, 80, seed=s) for s in range(4)]
    a = run(lambda x: fn.random_resized_crop(x, size=(20, 20)), imgs, seed=1)
    b = run(lambda x: fn.random_resized_crop(x, size=(20, 20)), imgs, seed=1, num_threads=1)
    c = run(lambda x: fn.random_resized_crop(x, size=(20, 20)), imgs, seed=2)
    np.testing.assert_array_equal(a.as_array(), b.as_array())
    assert not np.array_equal(a.as_array(), c.as_array())
    # a sample's window does not depend on the batch size (it is keyed by the sample)
    half = run(lambda x: fn.random_resized_crop(x, size=(20, 20)), imgs[:2], seed=1)
    np.testing.assert_array_equal(half.as_array(), a.as_array()[:2])
    op_seed = run(lambda x: fn.random_resized_crop(x, size=(20, 20), seed=5), imgs, seed=1)
    op_seed2 = run(lambda x: fn.random_resized_crop(x, size=(20, 20), seed=5), imgs, seed=2)
    np.testing.assert_array_equal(op_seed.as_array(), op_seed2.as_array())


def test_rrc_layouts_dtype_and_sequences(monkeypatch):
    img = _image(40, 60, seed=4)
    kw = {"random_area": (1.0, 1.0), "random_aspect_ratio": (1.5, 1.5)}
    hwc = run1(lambda x: fn.random_resized_crop(x, size=(10, 12), **kw), img)
    chw = run1(
        lambda x: fn.random_resized_crop(x, size=(10, 12), **kw),
        img.transpose(2, 0, 1).copy(),
        "CHW",
    )
    np.testing.assert_array_equal(chw.transpose(1, 2, 0), hwc)
    f = run1(lambda x: fn.random_resized_crop(x, size=(10, 12), dtype=types.FLOAT, **kw), img)
    assert f.dtype == np.float32 and np.abs(f - hwc).max() <= 1.0
    frames = np.stack([img, img[::-1].copy(), img[:, ::-1].copy()])
    calls = []
    real = rrc_module.random_crop_windows
    monkeypatch.setattr(
        rrc_module,
        "random_crop_windows",
        lambda src, shapes, *a: calls.append(np.asarray(shapes).tolist()) or real(src, shapes, *a),
    )
    seq = run1(lambda x: fn.random_resized_crop(x, size=(10, 12)), frames, "FHWC")
    assert seq.shape == (3, 10, 12, 3)
    assert calls[0] == [[40, 60]]  # one window per sequence, one call per batch (iteration)
    assert len(calls) <= 2  # the executor may run one iteration ahead
    one = run1(lambda x: fn.random_resized_crop(x, size=(10, 12)), frames[:1].copy(), "FHWC")
    np.testing.assert_array_equal(seq[0], one[0])


def test_rrc_errors():
    img = _image()
    with pytest.raises(RuntimeError, match=r'Not all required arguments.*"size"'):
        run(lambda x: fn.random_resized_crop(x), [img])
    with pytest.raises(TypeError, match=r"`size`.*random_resized_crop.*DataNode"):
        run(lambda x, s: fn.random_resized_crop(x, size=s), [img], args={"s": [np.int32(3)]})
    with pytest.raises(RuntimeError, match=r"`size`.*\(height, width\)"):
        run(lambda x: fn.random_resized_crop(x, size=(1, 2, 3)), [img])
    with pytest.raises(RuntimeError, match=r"`size`.*positive"):
        run(lambda x: fn.random_resized_crop(x, size=(0, 2)), [img])
    # a negative size has no meaning here (DALI hands it to its kernel): named at build
    for size in ((-5, 10), -3, (4, -1)):
        with pytest.raises(RuntimeError, match=r"`size`.*positive") as e:
            run(lambda x, size=size: fn.random_resized_crop(x, size=size), [img])
        assert "dali.fn.random_resized_crop" in str(e.value)
    with pytest.raises(RuntimeError, match="`num_attempts`"):
        run(lambda x: fn.random_resized_crop(x, size=4, num_attempts=0), [img])
    with pytest.raises(RuntimeError, match="`random_area`"):
        run(lambda x: fn.random_resized_crop(x, size=4, random_area=(0.9, 0.1)), [img])
    with pytest.raises(RuntimeError, match="`dtype`"):
        run(lambda x: fn.random_resized_crop(x, size=4, dtype=types.INT32), [img])
    with pytest.raises(RuntimeError, match='unsupported layout "DHWC"'):
        run(lambda x: fn.random_resized_crop(x, size=4), [_image(4, 5, 6)[None]], "DHWC")
