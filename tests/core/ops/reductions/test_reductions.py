"""`fn.reductions.*`: min, max, sum, mean, mean_square, rms, std_dev, variance.

The expected values marked "DALI 2.4" were read from NVIDIA DALI 2.4's CPU backend (the
conformance session, ``tests/conformance/cases_reductions.py``, compares the rest).
"""

from __future__ import annotations

import itertools

import dali
import numpy as np
import pytest
from dali import fn, ops, types
from dali._ops.reductions import arith
from parity import cpu_gpu, device_id, to_device

R = fn.reductions
OPS = ("min", "max", "sum", "mean", "mean_square", "rms")


def _run(build, samples, *, layout="", device="cpu", batch_size=None, extra=()):
    """Run ``build(node, *extra_nodes)`` on ``samples`` fed by external_source."""
    pipe = dali.Pipeline(
        batch_size=batch_size or len(samples), num_threads=2, device_id=device_id(device)
    )
    with pipe:
        x = to_device(fn.external_source(lambda: list(samples), layout=layout or None), device)
        more = [fn.external_source(_source(e)) for e in extra]
        outs = build(x, *more)
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _source(samples):
    return lambda: list(samples)


def _values(tl):
    tl = tl.as_cpu() if hasattr(tl, "as_cpu") else tl
    return [np.asarray(tl.at(i)) for i in range(len(tl))]


X = [
    np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
    (np.arange(12, dtype=np.uint8) * 2).reshape(1, 3, 4),
]


# -- axes, shapes, layouts -------------------------------------------------------------------------


def test_all_axes_by_default_give_0d_samples_without_layout():
    (out,) = _run(lambda x: R.sum(x), X, layout="HWC")
    assert out.layout() == "" and [v.shape for v in _values(out)] == [(), ()]
    assert [int(v) for v in _values(out)] == [276, 132]


@pytest.mark.parametrize(
    ("kw", "shape0", "layout"),
    [
        ({"axis_names": "HC"}, (3,), "W"),
        ({"axes": -1}, (2, 3), "HW"),
        ({"axes": (2, 0)}, (3,), "W"),
        ({"axis_names": "HC", "keep_dims": True}, (1, 3, 1), "HWC"),
        ({"keep_dims": True}, (1, 1, 1), "HWC"),
        ({"axes": ()}, (2, 3, 4), "HWC"),
        ({"axis_names": ""}, (2, 3, 4), "HWC"),
    ],
)
def test_axes_shapes_and_layouts(kw, shape0, layout):
    (out,) = _run(lambda x: R.max(x, **kw), X, layout="HWC")
    assert out.layout() == layout
    assert _values(out)[0].shape == shape0
    axes = tuple(range(3)) if not ({"axes", "axis_names"} & kw.keys()) else None
    if kw.get("axis_names") == "HC":
        axes = (0, 2)
    elif "axes" in kw:
        axes = tuple(np.atleast_1d(kw["axes"]).tolist())
    elif kw.get("axis_names") == "":
        axes = ()
    want = X[0] if axes == () else X[0].max(axis=axes, keepdims=bool(kw.get("keep_dims")))
    np.testing.assert_array_equal(_values(out)[0], want)


def test_no_layout_stays_empty():
    (out,) = _run(lambda x: R.sum(x, axes=1), X)
    assert out.layout() == "" and _values(out)[1].tolist() == [[24, 30, 36, 42]]


def test_empty_axes_pass_values_through_the_element_step():
    x = [np.array([-3.0, np.inf, np.nan], np.float32)]
    mn, ms, rms = _run(
        lambda v: (R.min(v, axes=[]), R.mean_square(v, axes=[]), R.rms(v, axis_names="")), x
    )
    np.testing.assert_array_equal(_values(mn)[0], x[0])  # no FLT_MAX clamp: nothing reduced
    np.testing.assert_array_equal(_values(ms)[0], [9.0, np.inf, np.nan])
    np.testing.assert_array_equal(_values(rms)[0], [3.0, np.inf, np.nan])


# -- types (DALI 2.4) ----------------------------------------------------------------------------

_DEFAULTS = {
    "uint8": ("UINT8", "UINT64"),
    "int8": ("INT8", "INT64"),
    "uint16": ("UINT16", "UINT64"),
    "int16": ("INT16", "INT64"),
    "uint32": ("UINT32", "UINT64"),
    "int32": ("INT32", "INT64"),
    "uint64": ("UINT64", "UINT64"),
    "int64": ("INT64", "INT64"),
    "float32": ("FLOAT", "FLOAT"),
}


@pytest.mark.parametrize("name", sorted(_DEFAULTS))
def test_default_output_types(name):
    outs = _run(lambda x: [getattr(R, k)(x) for k in OPS] + [R.std_dev(x, 0.0)], [np.ones(3, name)])
    same, wide = _DEFAULTS[name]
    got = [o.dtype.name for o in outs]
    assert got == [same, same, wide, "FLOAT", "FLOAT", "FLOAT", "FLOAT"]


@pytest.mark.parametrize("dtype", [np.bool_, np.float16, np.float64])
@pytest.mark.parametrize("kind", OPS)
def test_unsupported_input_types(kind, dtype):
    with pytest.raises(Exception, match="Unsupported input type"):
        _run(lambda x: getattr(R, kind)(x), [np.ones(3, dtype)])


@pytest.mark.parametrize(
    ("kind", "data", "dtype"),
    [
        ("sum", np.uint64, types.FLOAT),
        ("sum", np.uint8, types.INT64),
        ("sum", np.float32, types.INT32),
        ("mean", np.uint8, types.INT32),
        ("mean_square", np.uint8, types.UINT8),
        ("rms", np.int16, types.INT64),
    ],
)
def test_dtype_not_allowed_for_the_input(kind, data, dtype):
    # a type no input allows fails at build, one this input does not allow when it runs
    with pytest.raises(Exception, match=r"Unsupported types|not an output type"):
        _run(lambda x: getattr(R, kind)(x, dtype=dtype), [np.ones(3, data)])


def test_dtype_that_no_input_allows_fails_at_build():
    with pytest.raises(Exception, match="not an output type"):
        _run(lambda x: R.sum(x, dtype=types.FLOAT64), [np.ones(3, np.uint8)])


def test_integer_accumulators_wrap_and_means_truncate_like_dali():
    """DALI 2.4: sum(uint8 [200, 100], UINT8) = 44, mean of it = 22 (44 * 0.5), [1, 2, 2] ->
    1 (truncated), INT8 [100, 100] -> -28, INT32 [2**31-1]*2 -> -1."""
    u8 = [np.array([200, 100], np.uint8), np.array([1, 2, 2], np.uint8)]
    s, m = _run(lambda x: (R.sum(x, dtype=types.UINT8), R.mean(x, dtype=types.UINT8)), u8)
    assert [int(v) for v in _values(s)] == [44, 5] and [int(v) for v in _values(m)] == [22, 1]
    i8 = [np.array([100, 100], np.int8), np.array([-1, -2], np.int8)]
    (m8,) = _run(lambda x: R.mean(x, dtype=types.INT8), i8)
    assert [int(v) for v in _values(m8)] == [-28, -1]
    (m32,) = _run(lambda x: R.mean(x, dtype=types.INT32), [np.array([2**31 - 1] * 2, np.int32)])
    assert int(_values(m32)[0]) == -1


def test_squares_use_dalis_types():
    """DALI 2.4: 16-bit squares are C ints (46341**2 wraps negative), 32-bit squares 64-bit,
    64-bit squares wrap; rms(uint8 [200, 200], UINT8) squares into the uint8 accumulator."""
    (u16,) = _run(lambda x: R.mean_square(x), [np.array([46341], np.uint16)])
    assert float(_values(u16)[0]) == -2147479040.0
    (i32,) = _run(lambda x: R.mean_square(x, dtype=types.INT64), [np.array([100000], np.int32)])
    assert int(_values(i32)[0]) == 10**10
    (i64,) = _run(lambda x: R.mean_square(x), [np.array([2**33], np.int64)])
    assert float(_values(i64)[0]) == 0.0
    (r8,) = _run(lambda x: R.rms(x, dtype=types.UINT8), [np.array([200, 200], np.uint8)])
    assert int(_values(r8)[0]) == 8


def test_float_to_integer_conversion_is_cpps():
    x = np.array([np.nan, 2.0**31, 2.0**32, 2.0**64, -3.7, 300.9], np.float32)
    got = {
        t: arith.to_int_like_cpp(np, x, t).tolist()
        for t in ("uint8", "int32", "uint32", "uint64", "int64")
    }
    assert got["int32"] == [-(2**31), -(2**31), -(2**31), -(2**31), -3, 300]
    assert got["uint8"] == [0, 0, 0, 0, 253, 44]
    assert got["uint32"] == [0, 2**31, 0, 0, 2**32 - 3, 300]
    assert got["uint64"] == [2**63, 2**31, 2**32, 0, 2**64 - 3, 300]
    assert got["int64"] == [-(2**63), 2**31, 2**32, -(2**63), -3, 300]


# -- min and max ---------------------------------------------------------------------------------


def test_min_max_skip_nan_and_start_from_the_finite_limits():
    big = float(np.finfo(np.float32).max)
    x = [
        np.array([1.0, np.nan, 0.0], np.float32),
        np.array([np.inf, np.inf], np.float32),
        np.array([np.nan, np.nan], np.float32),
        np.array([-np.inf, 5.0], np.float32),
    ]
    mn, mx = _run(lambda v: (R.min(v), R.max(v)), x)
    assert [float(v) for v in _values(mn)] == [0.0, big, big, -np.inf]
    assert [float(v) for v in _values(mx)] == [1.0, np.inf, -big, 5.0]


def test_empty_reductions():
    x = [np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32)]
    mn, s, m, sd = _run(lambda v: (R.min(v), R.sum(v), R.mean(v), R.std_dev(v, 0.0)), x)
    assert [float(v) for v in _values(mn)] == [float(np.finfo(np.float32).max)] * 2
    assert [float(v) for v in _values(s)] == [0.0, 0.0]
    assert all(np.isnan(v) for v in _values(m) + _values(sd))
    (col,) = _run(lambda v: R.max(v, axes=0), x)
    assert [v.shape for v in _values(col)] == [(3,), (0,)]
    (mi,) = _run(lambda v: R.mean(v, dtype=types.INT32), [np.zeros(0, np.int32)])
    assert int(_values(mi)[0]) == -(2**31)  # 0 * inf = NaN, converted as x86 does (DALI 2.4)


# -- std_dev and variance ------------------------------------------------------------------------


def test_std_dev_and_variance_against_numpy():
    rng = np.random.default_rng(0)
    x = [rng.random((5, 6, 3), dtype=np.float32), rng.random((7, 2, 3), dtype=np.float32)]
    sd, var = _run(
        lambda v: (
            R.std_dev(v, R.mean(v, axis_names="HW"), axis_names="HW", ddof=1),
            R.variance(v, R.mean(v, axis_names="HW", keep_dims=True), axis_names="HW"),
        ),
        x,
        layout="HWC",
    )
    assert sd.layout() == "C"
    for s, v, got_s, got_v in zip(x, x, _values(sd), _values(var)):
        np.testing.assert_allclose(got_s, s.std(axis=(0, 1), ddof=1), rtol=1e-5)
        np.testing.assert_allclose(got_v, v.var(axis=(0, 1)), rtol=1e-5)


def test_ddof_at_and_past_n():
    """DALI 2.4: N - ddof = 0 gives inf (NaN for a zero sum), below 0 negative variances."""
    x = [np.array([[1.0], [3.0]], np.float32), np.array([[2.0], [2.0]], np.float32)]
    v2, v3, s3 = _run(
        lambda v: (
            R.variance(v, R.mean(v, axes=0), axes=0, ddof=2),
            R.variance(v, R.mean(v, axes=0), axes=0, ddof=3),
            R.std_dev(v, R.mean(v, axes=0), axes=0, ddof=3),
        ),
        x,
    )
    assert _values(v2)[0].tolist() == [np.inf] and np.isnan(_values(v2)[1]).all()
    assert _values(v3)[0].tolist() == [-2.0] and np.isnan(_values(s3)[0]).all()


def test_explicit_empty_axes_give_zeros_but_0d_input_reduces_nothing():
    z, a = _run(
        lambda v: (R.std_dev(v, 1.0, axes=[]), R.std_dev(v, 1.0)),
        [np.array(3.0, np.float32), np.array(-2.0, np.float32)],
    )
    assert [float(v) for v in _values(z)] == [0.0, 0.0]
    assert [float(v) for v in _values(a)] == [2.0, 3.0]  # |x - mean| (DALI 2.4)


def test_per_sample_means_and_their_shape_rules():
    x = [np.ones((2, 3), np.float32), np.full((4, 3), 2.0, np.float32)]
    for means in (  # the reduced axis dropped, or kept with extent 1
        [np.zeros(3, np.float32), np.full(3, 3.0, np.float32)],
        [np.zeros((1, 3), np.float32), np.full((1, 3), 3.0, np.float32)],
    ):
        (var,) = _run(lambda v, m: R.variance(v, m, axes=0), x, extra=[means])
        assert [v.tolist() for v in _values(var)] == [[1.0] * 3, [1.0] * 3]
    with pytest.raises(Exception, match=r"the mean \(input 1\) has shape \(2,\)"):
        _run(lambda v, m: R.variance(v, m, axes=0), x, extra=[[np.zeros(2, np.float32)] * 2])
    with pytest.raises(Exception, match="must be FLOAT, got int32"):
        _run(lambda v: R.std_dev(v, 1), x)


def test_std_dev_needs_the_mean_input():
    with pytest.raises(ValueError, match="expects 2 inputs"):
        _run(lambda v: R.std_dev(v), X)


# -- argument errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"axes": 3}, "out of range"),
        ({"axes": -4}, "out of range"),
        ({"axes": (1, -2)}, "more than once"),
        ({"axis_names": "F"}, "not present in the input layout"),
        ({"axis_names": "HH"}, "more than once"),
        ({"axes": 0, "axis_names": "H"}, "mutually exclusive"),
        ({"axes": [], "axis_names": ""}, "mutually exclusive"),
    ],
)
@pytest.mark.parametrize("kind", ["min", "mean", "std_dev"])
def test_axis_errors(kind, kw, message):
    def build(v):
        op = getattr(R, kind)
        return op(v, 0.5, **kw) if kind == "std_dev" else op(v, **kw)

    with pytest.raises(Exception, match=message):
        _run(build, [np.ones((2, 3, 4), np.float32)], layout="HWC")


# -- the batch strategies give the same values ------------------------------------------------------


def _reference(kind, s, ax):
    """numpy's value of ``kind`` over ``ax`` (float64 statistics)."""
    if not ax:
        return {"std_dev": np.zeros(s.shape), "variance": np.zeros(s.shape)}.get(
            kind, s.astype(np.float64) ** 2 if kind == "mean_square" else s
        )
    f = s.astype(np.float64)
    return {
        "min": lambda: s.min(axis=ax),
        "max": lambda: s.max(axis=ax),
        "sum": lambda: s.sum(axis=ax, dtype=np.uint64),
        "mean": lambda: f.mean(axis=ax),
        "mean_square": lambda: (f**2).mean(axis=ax),
        "rms": lambda: np.sqrt((f**2).mean(axis=ax)),
        "std_dev": lambda: f.std(axis=ax),
        "variance": lambda: f.var(axis=ax),
    }[kind]()


@pytest.mark.parametrize("kind", [*OPS, "std_dev", "variance"])
@pytest.mark.parametrize("axes", [None, (0, 1), (2,), (0, 2), ()])
def test_dense_split_and_per_sample_paths_agree(kind, axes):
    rng = np.random.default_rng(1)
    # more than 2**16 elements a sample: a listed batch goes sample by sample (ws.map), a dense
    # one is split over the threads; small samples are stacked for one call; ragged ones map
    big = [rng.integers(0, 256, (160, 150, 3), dtype=np.uint8) for _ in range(6)]
    small = [b[:9, :7] for b in big]
    ragged = [b[: 40 + 7 * i, : 150 - 9 * i] for i, b in enumerate(big)]

    def build(v):
        kw = {} if axes is None else {"axes": list(axes)}
        if kind in ("std_dev", "variance"):
            return getattr(R, kind)(v, R.mean(v, **kw), **kw)
        return getattr(R, kind)(v, **kw)

    for data in (big, small, ragged):
        uniform = data is not ragged
        (dense,) = _run(build, np.stack(data) if uniform else data, batch_size=len(data))
        (listed,) = _run(build, data)
        ax = tuple(range(3)) if axes is None else axes
        for a, b, s in zip(_values(dense), _values(listed), data):
            np.testing.assert_allclose(a, b, rtol=1e-6)
            ref = _reference(kind, s, ax)
            np.testing.assert_allclose(a, ref, rtol=2e-6, atol=1e-4)


@pytest.mark.parametrize("seed", range(12))
def test_reduce_np_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(1, 40, ndim))
    a = rng.integers(-100, 100, shape).astype(np.int16)
    for k in range(1, ndim + 1):
        for axes in itertools.combinations(range(ndim), k):
            got = arith.reduce_np(np.add, a, axes, np.int64)
            np.testing.assert_array_equal(got, a.sum(axis=axes, dtype=np.int64, keepdims=True))
            got = arith.reduce_np(np.minimum, a, axes)
            np.testing.assert_array_equal(got, a.min(axis=axes, keepdims=True))


def test_volumes():
    rng = np.random.default_rng(4)
    x = [rng.random((4, 5, 6, 2), dtype=np.float32), rng.random((3, 7, 2, 2), dtype=np.float32)]
    (out,) = _run(lambda v: R.mean(v, axis_names="DHW"), x, layout="DHWC")
    assert out.layout() == "C"
    for got, s in zip(_values(out), x):
        np.testing.assert_allclose(got, s.mean(axis=(0, 1, 2)), rtol=1e-6)


# -- graph API -----------------------------------------------------------------------------------


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(
            lambda: [np.ones((2, 3, 4), np.uint8)], layout="HWC", dtype=types.UINT8, ndim=3
        )
        s = R.sum(x, axis_names="HW")
        k = R.mean(x, keep_dims=True)
        v = R.variance(x, R.mean(x))
        assert (s.dtype, s.ndim, s.layout) == (types.UINT64, 1, "C")
        assert (k.dtype, k.ndim, k.layout) == (types.FLOAT, 3, "HWC")
        assert (v.dtype, v.ndim) == (types.FLOAT, 0)
        pipe.set_outputs(s)


def test_ops_classes():
    assert {"Min", "Max", "Sum", "Mean", "MeanSquare", "RMS", "StdDev", "Variance"} <= set(
        dir(ops.reductions)
    )
    op = ops.reductions.RMS(axes=[0])
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(op(fn.external_source(lambda: [np.array([[3.0], [4.0]], np.float32)])))
    (out,) = pipe.run()
    np.testing.assert_allclose(_values(out)[0], [np.sqrt(12.5)], rtol=1e-6)


# -- GPU -------------------------------------------------------------------------------------------

_GPU_CASES = {
    f"{kind}-{name}": (kind, kw)
    for kind in (*OPS, "std_dev", "variance")
    for name, kw in {
        "all": {},
        "hw": {"axis_names": "HW"},
        "c": {"axis_names": "C"},
        "keep": {"axes": [0], "keep_dims": True},
        "none": {"axes": []},
    }.items()
}


def _gpu_data(dtype):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        return [
            rng.standard_normal((9, 11, 3)).astype(dtype),
            rng.standard_normal((5, 4, 3)).astype(dtype),
        ]
    info = np.iinfo(dtype)
    return [
        rng.integers(info.min, info.max, s, dtype=dtype, endpoint=True)
        for s in ((9, 11, 3), (5, 4, 3))
    ]


@pytest.mark.parametrize("case", sorted(_GPU_CASES))
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "uint64", "float32"])
@cpu_gpu(atol=0, rtol=1e-6)
def test_gpu_matches_cpu(case, dtype, device):
    kind, kw = _GPU_CASES[case]
    if kind in ("std_dev", "variance"):
        build = lambda v: getattr(R, kind)(v, R.mean(v, **kw), **kw)
    else:
        build = lambda v: getattr(R, kind)(v, **kw)
    return _run(build, _gpu_data(dtype), layout="HWC", device=device)


@pytest.mark.parametrize("dtype", [types.UINT8, types.FLOAT])
@cpu_gpu()
def test_gpu_wrapping_types_and_specials(dtype, device):
    x = [np.array([200, 100, 250], np.uint8), np.array([1, 2, 2], np.uint8)]
    f = [
        np.array([np.nan, np.inf, 1.0], np.float32),
        np.array([np.nan, np.nan, np.nan], np.float32),
    ]
    data = x if dtype == types.UINT8 else f
    if dtype == types.UINT8:
        build = lambda v: (R.sum(v, dtype=dtype), R.mean(v, dtype=dtype), R.rms(v, dtype=dtype))
    else:
        build = lambda v: (R.min(v), R.max(v), R.sum(v))
    return _run(build, data, device=device)
