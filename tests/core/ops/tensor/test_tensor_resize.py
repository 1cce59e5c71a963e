"""`fn.tensor_resize`: sizes/scales over chosen axes, rounding, alignment, ROI, modes, the
resized block, ranks 1-5, types, per-sample arguments, errors, and CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.image.resample import jit as resample_jit
from dali._ops.image.resample import reference as R
from dali._ops.image.resample.geometry import axis_plans, output_geometry
from dali._ops.tensor.tensor_resize import resized_block
from parity import cpu_gpu, device_id, to_device


def run(op, batch, layout=None, *, args=None, device="cpu"):
    """``op(data, **arg_nodes)`` on one batch fed by external_source; the first output as a
    list of numpy arrays, and the batch itself."""
    batch = [np.asarray(x) for x in batch]
    args = {k: [np.asarray(v) for v in vs] for k, vs in (args or {}).items()}

    def feeder(values):
        return lambda: values

    @dali.pipeline_def(batch_size=len(batch), num_threads=2, device_id=device_id(device))
    def pipe():
        data = fn.external_source(source=feeder(batch), layout=layout)
        nodes = {k: fn.external_source(source=feeder(v)) for k, v in args.items()}
        return op(to_device(data, device), **nodes)

    p = pipe()
    p.build()
    return p.run()


def arrays(out):
    out = out[0] if isinstance(out, tuple) else out
    if hasattr(out, "as_cpu"):
        out = out.as_cpu()
    return [np.array(out[i]) for i in range(len(out))]


def _noise(shape, seed=0, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.float32:
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, 256, shape).astype(dtype)


# -- shapes -------------------------------------------------------------------------------------

SHAPES = [
    ({"sizes": [3], "axes": [1]}, [(4, 3, 5), (8, 3, 5)]),
    ({"scales": [0.5, 2.0], "axes": [0, 2]}, [(2, 6, 10), (4, 3, 10)]),
    ({"sizes": [3], "axes": [-1]}, [(4, 6, 3), (8, 3, 3)]),
    ({"sizes": 3}, [(3, 3, 3), (3, 3, 3)]),
    ({"scales": 0.5}, [(2, 3, 3), (4, 2, 3)]),  # 2.5 and 1.5 round away from zero
    ({"scales": 0.5, "size_rounding": "truncate"}, [(2, 3, 2), (4, 1, 2)]),
    ({"scales": 0.5, "size_rounding": "ceil"}, [(2, 3, 3), (4, 2, 3)]),
    ({"sizes": [0, 3, 3]}, [(2, 3, 3), (6, 3, 3)]),  # 0: the (geometric) mean scale
    ({"sizes": [0, 3, 3], "mode": "stretch"}, [(4, 3, 3), (8, 3, 3)]),
    ({"sizes": [2, 100, 100], "mode": "not_larger"}, [(2, 3, 3), (2, 1, 1)]),
    ({"sizes": [30, 3, 3], "max_size": 5}, [(5, 3, 3), (5, 3, 3)]),
    ({"sizes": [-3, 3, 3]}, [(3, 3, 3), (3, 3, 3)]),
    ({"sizes": [3.7], "axes": [0], "size_rounding": "truncate"}, [(3, 6, 5), (3, 3, 5)]),
]


@pytest.mark.parametrize("kwargs,expected", SHAPES, ids=[str(k) for k, _ in SHAPES])
def test_output_shapes(kwargs, expected):
    batch = [_noise((4, 6, 5), dtype=np.float32), _noise((8, 3, 5), 1, np.float32)]
    out = run(lambda x: fn.tensor_resize(x, **kwargs), batch)[0]
    assert out.shape() == expected
    assert out.dtype == types.FLOAT and out.layout() == ""


def test_axis_names_follow_the_layout():
    out = run(lambda x: fn.tensor_resize(x, scales=[0.5, 2.0], axis_names="AC"),
              [_noise((4, 6, 5), dtype=np.float32)], "ABC")[0]  # fmt: skip
    assert out.shape() == [(2, 6, 10)] and out.layout() == "ABC"


@pytest.mark.parametrize(
    "shape,layout,kwargs,expected",
    [
        ((9,), "", {"sizes": 13}, (13,)),  # 1-D: a (1, n) image
        ((9,), "", {"scales": 0.5}, (5,)),
        ((2, 4, 6, 5, 2), "", {"sizes": [3, 3], "axes": [1, 3]}, (2, 3, 6, 3, 2)),
        ((6, 8, 10, 2), "DHWC", {"sizes": [4, 5, 6], "axis_names": "DHW"}, (4, 5, 6, 2)),
        ((3, 10, 12, 3), "FHWC", {"sizes": [5], "axis_names": "F"}, (5, 10, 12, 3)),
        ((3, 10, 12, 3), "FHWC", {"sizes": [5, 7], "axis_names": "HW"}, (3, 5, 7, 3)),
        ((0, 4), "", {"sizes": [3, 3]}, (0, 3)),  # empty stays empty
    ],
)
def test_ranks_layouts_and_empty_samples(shape, layout, kwargs, expected):
    out = run(lambda x: fn.tensor_resize(x, **kwargs), [np.ones(shape, np.uint8)], layout)[0]
    assert out.shape() == [expected] and out.layout() == layout


def test_experimental_alias():
    batch = [_noise((6, 8, 3))]
    a = arrays(run(lambda x: fn.tensor_resize(x, sizes=[3, 5], axes=[0, 1]), batch))
    b = arrays(run(lambda x: fn.experimental.tensor_resize(x, sizes=[3, 5], axes=[0, 1]), batch))
    np.testing.assert_array_equal(a[0], b[0])


# -- values: DALI's own test expectations (ONNX Resize) -------------------------------------------

D2x2 = np.array([[[[1, 2], [3, 4]]]], np.float32)
D2x4 = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8]]]], np.float32)
D4x4 = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
NN = types.INTERP_NN
ONNX = [
    (D2x2, {"scales": [1, 1, 2, 3], "interp_type": NN},
     [[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4], [3, 3, 3, 4, 4, 4]]),
    (D2x4, {"scales": [1, 1, 0.6, 0.6], "interp_type": NN}, [[1, 3]]),
    (D2x2, {"sizes": [1, 1, 7, 8], "interp_type": NN},
     [[1, 1, 1, 1, 2, 2, 2, 2]] * 3 + [[3, 3, 3, 3, 4, 4, 4, 4]] * 4),
    (D2x2, {"scales": [1, 1, 2, 2], "antialias": False},
     [[1.0, 1.25, 1.75, 2.0], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5],
      [3.0, 3.25, 3.75, 4.0]]),
    (D2x4, {"scales": [1, 1, 0.6, 0.6], "antialias": False}, [[2.6666665, 4.3333331]]),
    (D4x4, {"scales": [1, 1, 0.8, 0.8], "interp_type": types.INTERP_CUBIC, "antialias": False},
     [[1.38574215, 2.68359369, 4.00683586], [6.57714832, 7.87499986, 9.19824203],
      [11.87011699, 13.16796853, 14.4912107]]),
    (D4x4, {"sizes": [1, 1, 3, 3], "interp_type": types.INTERP_CUBIC, "antialias": False},
     [[1.54398148, 2.93518519, 4.32638889], [7.1087963, 8.5, 9.8912037],
      [12.67361111, 14.06481481, 15.45601852]]),
]  # fmt: skip


@pytest.mark.parametrize("data,kwargs,expected", ONNX)
def test_onnx_expectations(data, kwargs, expected):
    out = arrays(run(lambda x: fn.tensor_resize(x, alignment=0, **kwargs), [data]))[0]
    np.testing.assert_allclose(out[0, 0], np.array(expected, np.float32), rtol=1e-3, atol=1e-7)


@pytest.mark.parametrize("alignment,expected", [(0, 2.6666665), (0.5, 3.6666665), (1, 4.6666665)])
def test_alignment_keeps_that_point_in_place(alignment, expected):
    out = arrays(run(lambda x: fn.tensor_resize(x, scales=[1, 1, 0.6, 0.6], alignment=alignment,
                                                antialias=False), [D2x4]))[0]  # fmt: skip
    np.testing.assert_allclose(out[0, 0], [[expected, expected + 5 / 3]], rtol=1e-5)


def _reference(x, axes, sizes, interp=R.LINEAR, dtype=None):
    """The engine's reference: ``axes`` resized to ``sizes`` over their whole extent."""
    in_sp = [x.shape[a] for a in axes]
    plans = axis_plans(in_sp, sizes, [0.0] * len(axes), [float(s) for s in in_sp],
                       interp if interp != R.LINEAR else R.TRIANGULAR, interp, True)  # fmt: skip
    return R.resample_reference(x, axes, plans, dtype or x.dtype)


def test_equals_resize_on_image_axes():
    img = _noise((37, 53, 3), 3)
    a = arrays(run(lambda x: fn.tensor_resize(x, sizes=[17, 29], axis_names="HW"), [img], "HWC"))
    b = arrays(run(lambda x: fn.resize(x, size=[17, 29]), [img], "HWC"))
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("interp", [types.INTERP_LINEAR, types.INTERP_CUBIC, types.INTERP_NN])
def test_axes_apart_equal_the_reference(interp):
    """Two resized axes with an untouched one between them: moved together for the fast path,
    the same values as resampling the whole block."""
    x = _noise((12, 5, 14, 2), 4, np.float32)
    out = arrays(run(lambda d: fn.tensor_resize(d, sizes=[7, 20], axes=[0, 2],
                                                interp_type=interp), [x]))[0]  # fmt: skip
    ref = _reference(x, (0, 1, 2), (7, 5, 20), int(interp))
    if resample_jit.available():  # the Numba fast path: the same bits
        np.testing.assert_array_equal(out, ref)
    else:  # banded BLAS products sum in another order: a value may differ by an ulp or two
        np.testing.assert_allclose(out, ref, rtol=5e-7, atol=1e-7)


def test_volume_equals_the_reference():
    x = _noise((6, 8, 10, 2), 5)
    out = arrays(run(lambda d: fn.tensor_resize(d, sizes=[4, 11, 6], axis_names="DHW"), [x],
                     "DHWC"))[0]  # fmt: skip
    np.testing.assert_array_equal(out, _reference(x, (0, 1, 2), (4, 11, 6)))


def test_one_dimensional_samples():
    x = np.array([0, 10, 20, 30], np.float32)
    out = arrays(run(lambda d: fn.tensor_resize(d, sizes=8, antialias=False), [x]))[0]
    np.testing.assert_allclose(out, [0, 2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 30])


def test_unchanged_tensor_is_returned_as_is():
    x = _noise((5, 6, 3), 6)
    out = arrays(run(lambda d: fn.tensor_resize(d, scales=1.0, dtype=types.FLOAT), [x]))[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x.astype(np.float32))


def test_roi_and_flip():
    x = _noise((10, 12), 7, np.float32)
    crop = arrays(run(lambda d: fn.tensor_resize(d, sizes=[6, 6], roi_start=[2, 3],
                                                 roi_end=[8, 9]), [x]))[0]  # fmt: skip
    np.testing.assert_allclose(crop, x[2:8, 3:9], rtol=1e-6)
    flipped = arrays(run(lambda d: fn.tensor_resize(d, sizes=[-10, 12]), [x]))[0]
    np.testing.assert_allclose(flipped, x[::-1], rtol=1e-6)
    rel = arrays(run(lambda d: fn.tensor_resize(d, sizes=[5, 6], roi_start=[0.5, 0.5],
                                                roi_end=[1.0, 1.0], roi_relative=True),
                     [x]))[0]  # fmt: skip
    np.testing.assert_allclose(rel, x[5:, 6:], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.float32])
def test_input_types(dtype):
    x = _noise((10, 12), 8).astype(dtype)
    out = run(lambda d: fn.tensor_resize(d, sizes=[5, 7]), [x])[0]
    assert np.array(out[0]).dtype == np.dtype(dtype) and out.shape() == [(5, 7)]
    f = arrays(run(lambda d: fn.tensor_resize(d, sizes=[5, 7], dtype=types.FLOAT), [x]))[0]
    assert f.dtype == np.float32
    assert np.abs(f - np.array(out[0]).astype(np.float32)).max() <= 0.5 + 1e-3


# -- per-sample arguments -------------------------------------------------------------------------


def test_per_sample_sizes_scales_and_alignment():
    batch = [_noise((4, 6, 5), 1, np.float32), _noise((8, 3, 5), 2, np.float32),
             _noise((2, 2, 2), 3, np.float32)]  # fmt: skip
    sizes = [np.array(v, np.float32) for v in ([3, 7], [5, 2], [1, 9])]
    out = run(lambda x, s: fn.tensor_resize(x, sizes=s, axes=[0, 2]), batch,
              args={"s": sizes})[0]  # fmt: skip
    assert out.shape() == [(3, 6, 7), (5, 3, 2), (1, 2, 9)]
    scales = [np.array(v, np.float32) * np.float32(0.3) for v in ([3, 7], [5, 2], [1, 9])]
    out = run(lambda x, s: fn.tensor_resize(x, scales=s, axes=[0, 2]), batch,
              args={"s": scales})[0]  # fmt: skip
    assert out.shape() == [(4, 6, 11), (12, 3, 3), (1, 2, 5)]
    one = [np.array([v], np.float32) for v in (3, 5, 1)]  # one value for both axes
    out = run(lambda x, s: fn.tensor_resize(x, sizes=s, axes=[0, 2]), batch, args={"s": one})[0]
    assert out.shape() == [(3, 6, 3), (5, 3, 5), (1, 2, 1)]
    # alignment per sample: the same as each sample alone with that alignment
    al = [np.array(v, np.float32) for v in ([0, 1], [1, 0], [0.5, 0.5])]
    got = arrays(
        run(
            lambda x, a: fn.tensor_resize(x, scales=[0.7, 1.3], axes=[0, 2], alignment=a),
            batch,
            args={"a": al},
        )
    )
    for i, x in enumerate(batch):
        a = al[i].tolist()
        alone = arrays(run(lambda d: fn.tensor_resize(
            d, scales=[0.7, 1.3], axes=[0, 2], alignment=a), [x]))[0]  # noqa: B023  # fmt: skip
        np.testing.assert_array_equal(got[i], alone)


def test_per_sample_roi_and_interp():
    batch = [_noise((10, 12), 1, np.float32), _noise((10, 12), 2, np.float32)]
    starts = [np.array(v, np.float32) for v in ([2, 3], [0, 0])]
    ends = [np.array(v, np.float32) for v in ([8, 9], [5, 6])]
    got = arrays(run(lambda x, a, b: fn.tensor_resize(x, sizes=[6, 6], roi_start=a, roi_end=b),
                     batch, args={"a": starts, "b": ends}))  # fmt: skip
    np.testing.assert_allclose(got[0], batch[0][2:8, 3:9], rtol=1e-6)
    assert got[1].shape == (6, 6)
    interps = [np.array(types.INTERP_NN, np.int32), np.array(types.INTERP_CUBIC, np.int32)]
    got = arrays(run(lambda x, t: fn.tensor_resize(x, sizes=[17, 29], interp_type=t), batch,
                     args={"t": interps}))  # fmt: skip
    for i, interp in enumerate((types.INTERP_NN, types.INTERP_CUBIC)):
        alone = arrays(
            run(lambda d, t=interp: fn.tensor_resize(d, sizes=[17, 29], interp_type=t), [batch[i]])
        )
        np.testing.assert_array_equal(got[i], alone[0])


# -- the resized block ------------------------------------------------------------------------------


def test_resized_block_trims_unchanged_ends():
    def geo(shape, out):
        return tuple(out), (0.0,) * len(shape), tuple(float(s) for s in shape)

    shape = (2, 4, 6, 5, 2)
    assert resized_block([shape], [geo(shape, (2, 3, 6, 3, 2))]) == (1, 3)
    assert resized_block([shape], [geo(shape, (2, 4, 6, 3, 2))]) == (3, 2)  # leading first
    assert resized_block([shape], [geo(shape, shape)]) == (3, 2)  # nothing: the last two
    # a dimension changed in one sample only belongs to the block for the whole batch
    assert resized_block([shape, shape], [geo(shape, (2, 4, 6, 3, 2)),
                                          geo(shape, (2, 3, 6, 5, 2))]) == (1, 3)  # fmt: skip
    # the ROI counts as a change unless its integer part is [0, extent)
    moved = ((2, 4, 6, 5, 2), (0.0, 1.0, 0.0, 0.0, 0.0), (2.0, 5.0, 6.0, 5.0, 2.0))
    assert resized_block([shape], [moved]) == (1, 2)
    slight = ((2, 4, 6, 5, 2), (0.0, 0.4, 0.0, 0.0, 0.0), (2.0, 4.4, 6.0, 5.0, 2.0))
    assert resized_block([shape], [slight]) == (3, 2)


def test_output_geometry_alignment_and_rounding():
    # 4 * 0.6 = 2.4 -> 2: the region shrinks to 10/3, kept at its start, centre or end
    for alignment, lo, hi in ((0.0, 0.0, 10 / 3), (0.5, 1 / 3, 11 / 3), (1.0, 2 / 3, 4.0)):
        out, los, his = output_geometry([4], [2.4], alignment=[alignment])
        assert out == [2]
        np.testing.assert_allclose([los[0], his[0]], [lo, hi], rtol=1e-6)
    assert output_geometry([4], [2.4], rounding="ceil")[0] == [3]
    assert output_geometry([4], [2.9], rounding="truncate")[0] == [2]
    assert output_geometry([4], [2.5])[0] == [3]  # halves away from zero
    assert output_geometry([4], [2.4], subpixel_scale=False, alignment=[0.0])[1:] == (
        [0.0],
        [4.0],
    )


# -- errors -----------------------------------------------------------------------------------------

ERRORS = [
    ({"sizes": [3, 3, 3], "scales": [1, 1, 1]}, "Need one of ``scales`` or ``sizes``"),
    ({}, "Need one of ``scales`` or ``sizes``"),
    ({"sizes": [3, 3, 3], "roi_start": [0, 0, 0]}, "must be specified together"),
    ({"scales": [1, 1, 1], "mode": "not_smaller"}, "incompatible with not-smaller"),
    ({"sizes": [3, 3, 3], "mode": "foo"}, "Invalid resize mode: foo"),
    ({"scales": [1, 1, 1], "size_rounding": "floor"}, "``rounding`` value floor"),
    ({"sizes": [3], "axes": [3]}, "axis 3 is out of range"),
    ({"sizes": [3], "axes": [-4]}, "axis -4 is out of range"),
    ({"sizes": [3, 3], "axes": [1, 1]}, "Duplicate axis index 1"),
    ({"sizes": [3], "axes": [1], "axis_names": "H"}, "mutually exclusive"),
    ({"sizes": [3], "axis_names": "H"}, "axis 'H' is not present"),
    ({"sizes": [3, 3]}, "expected 1 or 3 values"),
    ({"sizes": [30, 3, 3], "max_size": [5, 5]}, "a list of 3 elements. 2 given"),
    ({"scales": [0.7, 0.7, 1], "alignment": [0.0, 0.0]}, "expected 1 or 3 values"),
    ({"sizes": [3, 3, 3], "roi_start": [0, 0], "roi_end": [1, 1]}, "expected 1 or 3 values"),
    ({"sizes": [3, 3, 3], "dtype": types.INT32}, "the output type must be the input type"),
    ({"sizes": [3, 3, 3], "interp_type": 99}, "interp_type"),
    ({"sizes": [float("nan"), 3, 3]}, "must be finite numbers"),
]


@pytest.mark.parametrize("kwargs,text", ERRORS, ids=[t for _, t in ERRORS])
def test_errors(kwargs, text):
    with pytest.raises(Exception, match="tensor_resize") as e:
        run(lambda x: fn.tensor_resize(x, **kwargs), [np.ones((4, 6, 5), np.float32)])
    assert text in str(e.value)


@pytest.mark.parametrize(
    "data,kwargs,text",
    [
        (np.ones((2, 4, 6, 5), np.float32), {"sizes": [3, 3, 3, 3]}, "more than 3 consecutive"),
        (np.ones((2, 4, 6, 5), np.float32), {"sizes": [3, 3], "axes": [0, 3]},
         "Got: 4 spatial dimensions starting at dim 0"),
        (np.float32(1), {"sizes": []}, "Input must be at least 1D"),
        (np.ones((4, 4), np.int32), {"sizes": [3, 3]}, "Unsupported type: int32"),
        (np.ones((4, 4), np.float64), {"sizes": [3, 3]}, "Supported types are: uint8, int16"),
        (np.ones((4, 4), np.float32), {"sizes": [3, 3], "roi_start": [1, 1], "roi_end": [1, 1],
                                       "subpixel_scale": False, "roi_relative": False}, None),
    ],
)  # fmt: skip
def test_input_errors(data, kwargs, text):
    if text is None:  # an empty ROI samples one point: no error
        out = run(lambda x: fn.tensor_resize(x, **kwargs), [data])[0]
        assert out.shape() == [(3, 3)]
        return
    with pytest.raises(Exception, match="tensor_resize") as e:
        run(lambda x: fn.tensor_resize(x, **kwargs), [data])
    assert text in str(e.value)


def test_per_sample_argument_errors():
    batch = [np.ones((4, 6, 5), np.float32)] * 2
    sizes = [np.array([5, 7, 1], np.float32)] * 2
    with pytest.raises(Exception, match="sample 0: expected 1 or 2 values"):
        run(lambda x, s: fn.tensor_resize(x, sizes=s, axes=[0, 1]), batch, args={"s": sizes})
    nan = [np.array([5, 7], np.float32), np.array([np.nan, 7], np.float32)]
    with pytest.raises(Exception, match="sample 1: must be finite numbers"):
        run(lambda x, s: fn.tensor_resize(x, sizes=s, axes=[0, 1]), batch, args={"s": nan})


def test_static_shape():
    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = types.Constant(np.ones((4, 6, 5), np.float32))
        a = fn.tensor_resize(x, sizes=[3], axes=[1])
        b = fn.tensor_resize(x, sizes=[3], axes=[1], mode="not_larger")
        assert (a.static_shape, a.ndim, a.dtype) == ((4, None, 5), 3, types.FLOAT)
        assert b.static_shape in (None, (None, None, None))
        return a, b

    pipe().build()


# -- CPU/GPU parity (GPU machines) ------------------------------------------------------------------

PARITY = [
    ((37, 53, 3), "HWC", {"sizes": [17, 29], "axis_names": "HW"}),
    ((37, 53, 3), "HWC", {"scales": [0.7, 1.3], "axes": [0, 1], "alignment": 0.0}),
    ((37, 53, 3), "HWC", {"sizes": [17, 29], "axes": [0, 1], "interp_type": types.INTERP_NN}),
    ((37, 53, 3), "HWC", {"sizes": [17, 29], "axes": [0, 1],
                          "interp_type": types.INTERP_LANCZOS3}),
    ((12, 5, 14, 2), "", {"sizes": [7, 20], "axes": [0, 2]}),
    ((6, 8, 10, 2), "DHWC", {"sizes": [4, 11, 6], "axis_names": "DHW"}),
    ((3, 10, 12, 3), "FHWC", {"sizes": [5], "axis_names": "F"}),
    ((9,), "", {"sizes": 13}),
    ((10, 12), "", {"sizes": [5, 7], "roi_start": [2, 3], "roi_end": [8, 9]}),
]  # fmt: skip


@pytest.mark.parametrize("shape,layout,kwargs", PARITY, ids=[str(k) for *_, k in PARITY])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@cpu_gpu(atol=1)
def test_cpu_gpu_parity(shape, layout, kwargs, dtype, device):
    batch = [_noise(shape, 1, dtype), _noise(shape, 2, dtype)]
    return run(lambda x: fn.tensor_resize(x, **kwargs), batch, layout or None, device=device)


@cpu_gpu(atol=1)
def test_cpu_gpu_parity_per_sample(device):
    batch = [_noise((10, 12, 3), 1), _noise((7, 9, 3), 2)]
    sizes = [np.array(v, np.float32) for v in ([5, 7], [9, 3])]
    return run(lambda x, s: fn.tensor_resize(x, sizes=s, axes=[0, 1]), batch, "HWC",
               args={"s": sizes}, device=device)  # fmt: skip
