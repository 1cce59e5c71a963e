"""`fn.crop` and `fn.crop_mirror_normalize` (DALI's crop anchor)."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(7).integers(0, 256, (40, 60, 3)).astype(np.uint8)
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def _run(build, *, batch_size=2, device_id=None, seed=3, num_threads=2):
    pipe = dali.Pipeline(
        batch_size=batch_size, num_threads=num_threads, device_id=device_id, seed=seed
    )
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _img(layout="HWC", value=IMG):
    return types.Constant(value, layout=layout)


def _ragged(arrays, layout="HWC"):
    """An external source giving the same ragged batch every iteration."""
    return fn.external_source(lambda: [np.array(a) for a in arrays], layout=layout)


def _cmn_reference(img, mean, std, scale=1.0, shift=0.0):
    """DALI's float32 formula: (in - mean') * inv, mean' = mean - shift*std/scale, inv = scale/std."""
    mean = np.asarray(mean, np.float64)
    std = np.asarray(std, np.float64)
    m = (mean - shift * (std / scale)).astype(np.float32)
    inv = (scale / std).astype(np.float32)
    return (img.astype(np.float32) - m) * inv


# -- crop: window position -----------------------------------------------------------------------


def test_crop_centre_window_keeps_layout_and_type():
    (out,) = _run(lambda: fn.crop(_img(), crop=(20, 30)))
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    assert out.shape() == [(20, 30, 3)] * 2
    np.testing.assert_array_equal(out.as_array()[0], IMG[10:30, 15:45])


def test_crop_start_rounds_half_away_from_zero():
    (out,) = _run(lambda: fn.crop(_img(), crop=(21, 31)))  # round(9.5)=10, round(14.5)=15
    np.testing.assert_array_equal(out.as_array()[0], IMG[10:31, 15:46])


def test_crop_truncate_rounding():
    (out,) = _run(lambda: fn.crop(_img(), crop=(21, 31), rounding="truncate"))
    np.testing.assert_array_equal(out.as_array()[0], IMG[9:30, 14:45])


def test_crop_corner_positions():
    (out,) = _run(lambda: fn.crop(_img(), crop=(20, 30), crop_pos_x=0, crop_pos_y=1))
    np.testing.assert_array_equal(out.as_array()[0], IMG[20:40, 0:30])


def test_crop_anchor_uses_float32_position():
    # float32(0.7) * 75 = 52.49999... -> row 52 (a float64 computation gives 53)
    tall = np.arange(100 * 4 * 1, dtype=np.uint8).reshape(100, 4, 1)
    (out,) = _run(lambda: fn.crop(_img(value=tall), crop_h=25, crop_w=4, crop_pos_y=0.7))
    np.testing.assert_array_equal(out.as_array()[0], tall[52:77])


def test_crop_sizes_are_truncated_and_crop_h_w_work():
    (a, b) = _run(
        lambda: (
            fn.crop(_img(), crop=(20.9, 30.7)),
            fn.crop(_img(), crop_h=20.5, crop_w=30.2),
        )
    )
    assert a.shape()[0] == (20, 30, 3) and b.shape()[0] == (20, 30, 3)
    np.testing.assert_array_equal(a.as_array()[0], IMG[10:30, 15:45])


def test_crop_chw_and_no_layout():
    chw = np.ascontiguousarray(IMG.transpose(2, 0, 1))
    (a, b) = _run(
        lambda: (
            fn.crop(_img("CHW", chw), crop=(20, 30)),
            fn.crop(types.Constant(IMG), crop=(20, 30)),
        )
    )
    assert a.layout() == "CHW"
    np.testing.assert_array_equal(a.as_array()[0], chw[:, 10:30, 15:45])
    assert b.layout() == "HWC"  # an input without a layout is taken as HWC
    np.testing.assert_array_equal(b.as_array()[0], IMG[10:30, 15:45])


def test_crop_volume_and_sequence():
    vol = np.arange(6 * 8 * 10 * 1, dtype=np.uint8).reshape(6, 8, 10, 1)
    (a, b, c) = _run(
        lambda: (
            fn.crop(_img("DHWC", vol), crop=(2, 4, 6), crop_pos_z=0, crop_pos_y=1, crop_pos_x=0.5),
            fn.crop(_img("FHWC", vol), crop=(4, 6)),
            fn.crop(_img("DHWC", vol), crop_d=3, crop_h=4, crop_w=6),
        )
    )
    np.testing.assert_array_equal(a.as_array()[0], vol[0:2, 4:8, 2:8])
    np.testing.assert_array_equal(b.as_array()[0], vol[:, 2:6, 2:8])
    np.testing.assert_array_equal(c.as_array()[0], vol[2:5, 2:6, 2:8])  # round(1.5) = 2


def test_crop_dtype_converts_without_rescaling():
    (f, h) = _run(
        lambda: (
            fn.crop(_img(), crop=(20, 30), dtype=types.FLOAT),
            fn.crop(_img(), crop=(20, 30), output_dtype=types.FLOAT16),
        )
    )
    assert f.dtype == types.FLOAT and h.dtype == types.FLOAT16
    np.testing.assert_array_equal(f.as_array()[0], IMG[10:30, 15:45].astype(np.float32))


def test_crop_per_sample_size_and_position():
    def build():
        size = fn.random.uniform(range=(10, 20), shape=(2,))
        pos = fn.random.uniform(range=(0, 1))
        return fn.crop(_img(), crop=size, crop_pos_x=pos), size, pos

    out, size, pos = _run(build, batch_size=6)
    shapes = set()
    for i in range(6):
        h, w = (int(v) for v in size.at(i))  # truncated, as DALI's float -> int
        p = float(np.float32(pos.at(i)))
        y0 = int(np.floor(0.5 * (40 - h) + 0.5))
        x0 = int(np.trunc(p * (60 - w) + 0.5))
        np.testing.assert_array_equal(out.at(i), IMG[y0 : y0 + h, x0 : x0 + w])
        shapes.add(out.at(i).shape)
    assert len(shapes) > 1


def test_crop_ragged_batch():
    a = np.arange(30 * 40 * 3, dtype=np.uint8).reshape(30, 40, 3)
    b = np.arange(50 * 20 * 3, dtype=np.uint8).reshape(50, 20, 3)
    (out,) = _run(lambda: fn.crop(_ragged([a, b]), crop=(10, 10)))
    np.testing.assert_array_equal(out.at(0), a[10:20, 15:25])
    np.testing.assert_array_equal(out.at(1), b[20:30, 5:15])


# -- crop: out of bounds ---------------------------------------------------------------------------


def test_crop_window_larger_than_image_is_an_error():
    with pytest.raises(RuntimeError) as e:
        _run(lambda: fn.crop(_img(), crop=(50, 70)))
    msg = str(e.value)
    assert "dali.fn.crop" in msg and "sample 0" in msg and "`crop`" in msg
    assert "(50, 70, 3)" in msg and "(40, 60, 3)" in msg


@pytest.mark.parametrize("policy", ["pad", "constant"])
def test_crop_pad_fills(policy):
    (out,) = _run(
        lambda: fn.crop(_img(), crop=(50, 70), out_of_bounds_policy=policy, fill_values=7)
    )
    a = out.as_array()[0]
    assert a.shape == (50, 70, 3)
    assert a[0, 0].tolist() == [7, 7, 7] and a[-1, -1].tolist() == [7, 7, 7]
    np.testing.assert_array_equal(a[5:45, 5:65], IMG)  # start round(-5) = -5


def test_crop_pad_per_channel_fill_and_count_check():
    (out,) = _run(
        lambda: fn.crop(_img(), crop=(50, 70), out_of_bounds_policy="pad", fill_values=[1, 2, 3])
    )
    assert out.as_array()[0][0, 0].tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match="fill_values"):
        _run(lambda: fn.crop(_img(), crop=(50, 70), out_of_bounds_policy="pad", fill_values=[1, 2]))


def test_crop_trim_to_shape():
    (out,) = _run(lambda: fn.crop(_img(), crop=(50, 30), out_of_bounds_policy="trim_to_shape"))
    np.testing.assert_array_equal(out.as_array()[0], IMG[:, 15:45])


@pytest.mark.parametrize(
    ("kwargs", "arg"),
    [
        ({"crop_w": 10}, "crop_w"),
        ({"crop_h": 10}, "crop_h"),
        ({"crop": (10, 10), "crop_w": 5, "crop_h": 5}, "crop"),
        ({"crop_d": 3}, "crop_d"),
        ({"crop": (1, 2, 3, 4)}, "crop"),
        ({"crop": (10, 10), "rounding": "floor"}, "rounding"),
        ({"crop": (10, 10), "out_of_bounds_policy": "wrap"}, "out_of_bounds_policy"),
        ({"crop": (10, 10), "crop_pos_x": 1.5}, "crop_pos_x"),
        ({"crop": (10, 10), "dtype": types.INT32}, "dtype"),
    ],
)
def test_crop_argument_errors_name_operator_and_argument(kwargs, arg):
    with pytest.raises(Exception) as e:
        _run(lambda: fn.crop(_img(), **kwargs))
    assert "dali.fn.crop" in str(e.value) and f"`{arg}`" in str(e.value)


def test_crop_per_sample_position_out_of_range():
    with pytest.raises(RuntimeError, match="crop_pos_y"):
        _run(lambda: fn.crop(_img(), crop=(10, 10), crop_pos_y=fn.random.uniform(range=(2, 3))))


# -- negative window sizes: DALI takes them as "the whole extent", silently; an error here -------

NEGATIVE_SIZES = [
    ({"crop": (-10, 10)}, "crop", "[-10.0, 10.0]"),
    ({"crop": (5, -0.5)}, "crop", "[5.0, -0.5]"),
    ({"crop": (2, 10, -1)}, "crop", "[2.0, 10.0, -1.0]"),
    ({"crop_h": -5, "crop_w": 10}, "crop_h", "-5.0"),
    ({"crop_h": 5, "crop_w": float("nan")}, "crop_w", "nan"),
    ({"crop_h": 5, "crop_w": 10, "crop_d": -2}, "crop_d", "-2.0"),
]


@pytest.mark.parametrize("op", ["crop", "crop_mirror_normalize"])
@pytest.mark.parametrize(("kwargs", "arg", "shown"), NEGATIVE_SIZES)
def test_negative_crop_sizes_are_build_errors(op, kwargs, arg, shown):
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(getattr(fn, op)(_img(), **kwargs))
    with pytest.raises(RuntimeError) as e:
        pipe.build()  # before any data
    msg = str(e.value)
    assert f"dali.fn.{op}" in msg and f"argument `{arg}`" in msg
    assert ">= 0" in msg and shown in msg


def test_zero_crop_size_keeps_the_whole_extent():
    # DALI's meaning of 0 (the default of crop_h/crop_w): the whole extent of that axis
    (a, b) = _run(lambda: (fn.crop(_img(), crop=(0, 30)), fn.crop(_img(), crop_h=20, crop_w=0)))
    np.testing.assert_array_equal(a.as_array()[0], IMG[:, 15:45])
    np.testing.assert_array_equal(b.as_array()[0], IMG[10:30])


@pytest.mark.parametrize("op", ["crop", "crop_mirror_normalize"])
def test_negative_per_sample_crop_sizes_name_the_sample(op):
    sizes = [np.array([10, 10], np.float32), np.array([10, -3], np.float32)]
    heights = [np.float32(10), np.float32(-7)]
    cases = [
        ({"crop": fn.external_source(lambda: sizes)}, "crop", "[10.0, -3.0]"),
        (
            {"crop_h": fn.external_source(lambda: heights), "crop_w": 5},
            "crop_h",
            "-7.0",
        ),
    ]
    for kw, arg, shown in cases:
        with pytest.raises(RuntimeError) as e:
            _run(lambda kw=kw: getattr(fn, op)(_img(), **kw))
        msg = str(e.value)
        assert f"dali.fn.{op}" in msg and f"argument `{arg}`" in msg
        assert "sample 1" in msg and shown in msg


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["crop", "crop_mirror_normalize"])
def test_negative_per_sample_crop_sizes_on_gpu(op):
    pytest.importorskip("cupy")
    heights = [np.float32(10), np.float32(-7)]
    with pytest.raises(RuntimeError) as e:
        _run(
            lambda: getattr(fn, op)(
                _img().gpu(), crop_h=fn.external_source(lambda: heights), crop_w=5
            ),
            device_id=0,
        )
    msg = str(e.value)
    assert f"dali.fn.{op}" in msg and "argument `crop_h`" in msg and "sample 1" in msg


def test_crop_rejects_unknown_layout():
    with pytest.raises(RuntimeError, match="layout 'HW'"):
        _run(lambda: fn.crop(_img("HW", IMG[..., 0]), crop=(10, 10)))


def test_crop_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        c = fn.crop(_img(), crop=(2, 2), dtype=types.FLOAT)
        m = fn.crop_mirror_normalize(_img(), dtype=types.FLOAT16)
        h = fn.crop_mirror_normalize(_img(), output_layout="HWC")
    assert (c.dtype, c.ndim, c.layout) == (types.FLOAT, 3, "HWC")
    assert (m.dtype, m.ndim, m.layout) == (types.FLOAT16, 3, "CHW")
    assert h.layout == "HWC"


# -- crop_mirror_normalize ---------------------------------------------------------------------


def test_cmn_defaults_float_chw():
    (out,) = _run(lambda: fn.crop_mirror_normalize(_img()))
    assert out.dtype == types.FLOAT and out.layout() == "CHW"
    assert out.as_array().shape == (2, 3, 40, 60)
    np.testing.assert_array_equal(out.as_array()[0], IMG.transpose(2, 0, 1).astype(np.float32))


def test_cmn_normalizes_like_numpy():
    (chw, hwc) = _run(
        lambda: (
            fn.crop_mirror_normalize(_img(), mean=MEAN, std=STD),
            fn.crop_mirror_normalize(_img(), mean=MEAN, std=STD, output_layout="HWC"),
        )
    )
    ref = _cmn_reference(IMG, MEAN, STD)
    np.testing.assert_array_equal(hwc.as_array()[0], ref)
    np.testing.assert_array_equal(chw.as_array()[0], ref.transpose(2, 0, 1))
    plain = (IMG.astype(np.float64) - np.array(MEAN)) / np.array(STD)
    np.testing.assert_allclose(hwc.as_array()[0], plain, atol=2e-6)


def test_cmn_scale_shift_identity_uint8():
    (chw, hwc) = _run(
        lambda: [
            fn.crop_mirror_normalize(
                _img(), mean=128, std=64, scale=64, shift=128, dtype=types.UINT8, output_layout=lay
            )
            for lay in ("CHW", "HWC")
        ]
    )
    assert hwc.dtype == types.UINT8
    np.testing.assert_array_equal(hwc.as_array()[0], IMG)
    np.testing.assert_array_equal(chw.as_array()[0], IMG.transpose(2, 0, 1))


def test_cmn_mirror_after_crop():
    (out,) = _run(
        lambda: fn.crop_mirror_normalize(
            _img(), crop=(20, 30), crop_pos_x=0, crop_pos_y=0, mirror=1, output_layout="HWC"
        )
    )
    np.testing.assert_array_equal(out.as_array()[0], IMG[0:20, 0:30][:, ::-1].astype(np.float32))


def test_cmn_per_sample_mirror_coin_flip():
    def build():
        flip = fn.random.coin_flip()
        return fn.crop_mirror_normalize(_img(), mirror=flip, dtype=types.FLOAT16), flip

    out, flip = _run(build, batch_size=16)
    flips = flip.as_array().tolist()
    assert 0 < sum(flips) < 16
    ref = IMG.transpose(2, 0, 1).astype(np.float16)
    for i, f in enumerate(flips):
        np.testing.assert_array_equal(out.at(i), ref[:, :, ::-1] if f else ref)


def test_cmn_float16_and_int8_outputs_round_and_saturate():
    (h, i8, u8) = _run(
        lambda: (
            fn.crop_mirror_normalize(_img(), mean=MEAN, std=STD, dtype=types.FLOAT16),
            fn.crop_mirror_normalize(_img(), mean=100, std=0.5, dtype=types.INT8),
            fn.crop_mirror_normalize(_img(), mean=0.25, std=2, dtype=types.UINT8),
        )
    )
    ref = _cmn_reference(IMG, MEAN, STD).transpose(2, 0, 1)
    assert h.dtype == types.FLOAT16
    np.testing.assert_array_equal(h.as_array()[0], ref.astype(np.float16))
    v = (IMG.astype(np.float32) - 100) * 2
    exp = np.clip(np.trunc(v + np.copysign(0.5, v)), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(i8.as_array()[0], exp.transpose(2, 0, 1))
    v = (IMG.astype(np.float32) - 0.25) * 0.5
    exp = np.clip(np.trunc(v + 0.5), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(u8.as_array()[0], exp.transpose(2, 0, 1))


def test_cmn_uint8_lookup_path_matches_float_arithmetic():
    # uint8 input takes the lookup-table path; the same values as float32 take the array path
    f32 = IMG.astype(np.float32)
    outs = _run(
        lambda: [
            fn.crop_mirror_normalize(
                _img(value=v), crop=(31, 45), mean=MEAN, std=STD, mirror=1, dtype=dt
            )
            for v in (IMG, f32)
            for dt in (types.FLOAT, types.FLOAT16, types.INT8)
        ]
    )
    for a, b in zip(outs[:3], outs[3:]):
        np.testing.assert_array_equal(a.as_array(), b.as_array())


def test_cmn_without_opencv_matches(monkeypatch):
    def build():
        flip = fn.random.coin_flip()
        return [
            fn.crop_mirror_normalize(_img(), crop=(31, 45), mean=MEAN, std=STD, mirror=flip, **kw)
            for kw in ({}, {"dtype": types.FLOAT16, "output_layout": "HWC"})
        ]

    with_cv2 = _run(build, batch_size=6)
    import importlib

    common = importlib.import_module("dali._ops.image._common")
    monkeypatch.setattr(common, "_CV2", [None])  # as if OpenCV were missing
    without = _run(build, batch_size=6)
    for a, b in zip(with_cv2, without):
        np.testing.assert_array_equal(a.as_array(), b.as_array())


def test_cmn_pad_output_and_fill_values():
    (p, q) = _run(
        lambda: (
            fn.crop_mirror_normalize(_img(), pad_output=True),
            fn.crop_mirror_normalize(_img(), pad_output=True, output_layout="HWC", fill_values=5),
        )
    )
    a = p.as_array()[0]
    assert a.shape == (4, 40, 60)
    np.testing.assert_array_equal(a[:3], IMG.transpose(2, 0, 1))
    assert np.all(a[3] == 0)
    b = q.as_array()[0]
    # DALI 2.4 writes 0 into padded channels; fill_values is for out-of-bounds areas only
    # (observed by the conformance session against real DALI)
    assert b.shape == (40, 60, 4) and np.all(b[..., 3] == 0)


def test_cmn_out_of_bounds_fill_is_not_normalized():
    (out,) = _run(
        lambda: fn.crop_mirror_normalize(
            _img(),
            crop=(50, 70),
            mean=10,
            std=2,
            out_of_bounds_policy="pad",
            fill_values=7,
            output_layout="HWC",
        )
    )
    a = out.as_array()[0]
    assert a.shape == (50, 70, 3) and a[0, 0].tolist() == [7.0, 7.0, 7.0]
    np.testing.assert_array_equal(a[5:45, 5:65], (IMG.astype(np.float32) - 10) * 0.5)


def test_cmn_out_of_bounds_error_by_default():
    with pytest.raises(RuntimeError, match=r"dali.fn.crop_mirror_normalize.*sample 0"):
        _run(lambda: fn.crop_mirror_normalize(_img(), crop=(50, 70)))


def test_cmn_per_sample_mean_and_ragged_batch():
    a = np.arange(30 * 40 * 3, dtype=np.uint8).reshape(30, 40, 3)
    b = np.arange(50 * 20 * 3, dtype=np.uint8).reshape(50, 20, 3)

    def build():
        mean = fn.random.uniform(range=(0, 100), shape=(3,))
        return fn.crop_mirror_normalize(_ragged([a, b]), crop=(10, 10), mean=mean, std=4), mean

    out, mean = _run(build)
    for i, img in enumerate((a, b)):
        h, w = img.shape[:2]
        y0, x0 = (h - 10 + 1) // 2, (w - 10 + 1) // 2
        ref = _cmn_reference(img[y0 : y0 + 10, x0 : x0 + 10], mean.at(i), [4, 4, 4])
        np.testing.assert_array_equal(out.at(i), ref.transpose(2, 0, 1))


def test_cmn_sequence_default_layout():
    seq = np.stack([IMG, IMG[::-1]])
    (out,) = _run(lambda: fn.crop_mirror_normalize(_img("FHWC", seq), crop=(20, 30)))
    assert out.layout() == "FCHW"
    np.testing.assert_array_equal(
        out.as_array()[0], seq[:, 10:30, 15:45].transpose(0, 3, 1, 2).astype(np.float32)
    )


@pytest.mark.parametrize(
    ("kwargs", "arg"),
    [
        ({"mean": [1.0, 2.0]}, "mean"),
        ({"std": [1.0, 0.0, 1.0]}, "std"),
        ({"dtype": types.INT32}, "dtype"),
        ({"output_layout": "HWD"}, "output_layout"),
        ({"scale": 0.0}, "scale"),
        ({"dtype": types.FLOAT, "output_dtype": types.FLOAT}, "output_dtype"),
    ],
)
def test_cmn_argument_errors(kwargs, arg):
    with pytest.raises(Exception) as e:
        _run(lambda: fn.crop_mirror_normalize(_img(), **kwargs))
    assert "dali.fn.crop_mirror_normalize" in str(e.value) and f"`{arg}`" in str(e.value)


# -- CPU / GPU parity -------------------------------------------------------------------------------

GPU_CASES = {
    "crop": lambda x: fn.crop(x, crop=(21, 31)),
    "crop_pad": lambda x: fn.crop(x, crop=(50, 70), out_of_bounds_policy="pad", fill_values=7),
    "crop_per_sample": lambda x: fn.crop(
        x, crop=(20, 30), crop_pos_x=fn.random.uniform(range=(0, 1))
    ),
    "cmn": lambda x: fn.crop_mirror_normalize(x, mean=MEAN, std=STD),
    "cmn_fp16_mirror": lambda x: fn.crop_mirror_normalize(
        x, crop=(32, 32), mean=MEAN, std=STD, dtype=types.FLOAT16, mirror=fn.random.coin_flip()
    ),
    "cmn_u8": lambda x: fn.crop_mirror_normalize(
        x, mean=128, std=64, scale=64, shift=128, dtype=types.UINT8, pad_output=True
    ),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
@cpu_gpu()
def test_gpu_matches_cpu(case, device):
    op = GPU_CASES[case]
    return _run(lambda: op(to_device(_img(), device)), batch_size=8, device_id=device_id(device))


def test_dense_host_outputs_are_64_byte_aligned():
    # the batches handed to frameworks: XLA shares host memory only when 64-byte aligned
    imgs = [np.full((40, 60, 3), i, np.uint8) for i in range(3)]
    (cmn, crop) = _run(
        lambda: (
            fn.crop_mirror_normalize(fn.external_source(lambda: imgs, layout="HWC")),
            fn.crop(fn.external_source(lambda: imgs, layout="HWC"), crop=(20, 30)),
        ),
        batch_size=3,
    )
    assert cmn.dense().ctypes.data % 64 == 0
    assert crop.dense().ctypes.data % 64 == 0


def test_cmn_jit_kernel_matches_opencv(monkeypatch):
    """The Numba kernel (`_cmn_jit`, jit extra) and the OpenCV calls write the same arrays."""
    from dali._ops.image import _cmn_jit

    if not _cmn_jit.available():
        pytest.skip("Numba is not installed")
    imgs = [
        np.random.default_rng(k).integers(0, 256, (37, 53, 3)).astype(np.uint8) for k in range(5)
    ]
    imgs.append(imgs[0][:, :, :1].copy())  # one channel
    imgs[2] = np.ascontiguousarray(imgs[2][:, :, ::-1])  # (a copy: kernels take any strides)

    def build():
        flip = fn.random.coin_flip()
        src = fn.external_source(lambda: [np.array(a) for a in imgs], layout="HWC")
        return [
            fn.crop_mirror_normalize(
                src, crop=(31, 45), mean=MEAN[0], std=STD[0], mirror=flip, **kw
            )
            for kw in (
                {},
                {"dtype": types.FLOAT16},
                {"dtype": types.FLOAT16, "output_layout": "HWC"},
                {"dtype": types.INT8, "output_layout": "HWC"},
                {"dtype": types.UINT8, "crop_pos_x": 0.9},
            )
        ]

    with_jit = _run(build, batch_size=6, seed=11)
    monkeypatch.setattr(_cmn_jit, "available", lambda: False)
    with_cv2 = _run(build, batch_size=6, seed=11)
    for a, b in zip(with_jit, with_cv2):
        for i in range(6):
            np.testing.assert_array_equal(a.at(i), b.at(i))
