"""`fn.coord_transform`: results observed in DALI 2.4 (the argument forms, rounding and
saturation, float32 accumulation), empty samples, errors; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, pipeline_def, types
from detection_helpers import run1
from parity import cpu_gpu, device_id, to_device

F = np.float32
PTS = np.array([[1, 2], [3, 4], [5, 7]], np.int32)
PF = PTS.astype(F)


def _one(graph, *inputs):
    return run1(graph, *inputs)[0][0]


@pytest.mark.parametrize(
    "inp,kw,expected,dtype",
    [
        # observed in DALI 2.4
        (PTS, {"M": 0.5, "dtype": types.INT32}, [[1, 1], [2, 2], [3, 4]], np.int32),
        (PTS, {"M": -0.5, "dtype": types.INT32}, [[-1, -1], [-2, -2], [-3, -4]], np.int32),
        (PTS, {"M": 0.5}, [[0.5, 1.0], [1.5, 2.0], [2.5, 3.5]], F),
        (
            PTS.astype(np.uint8),
            {"M": 100, "dtype": types.UINT8},
            [[100, 200], [255, 255], [255, 255]],
            np.uint8,
        ),
        (PTS.astype(np.uint8), {"M": -1, "T": 0.5, "dtype": types.UINT8}, [[0, 0]] * 3, np.uint8),
        (PF, {"MT": 2.0}, [[2, 4], [6, 8], [10, 14]], F),
        (PF, {"MT": [1, 2, 3, 4, 5, 6]}, [[8, 20], [14, 38], [22, 61]], F),
        (PF, {"MT": [1, 2, 3]}, [[8], [14], [22]], F),
        (
            PF,
            {"M": [1, 2, 3, 4, 5, 6], "T": [1, 2, 3]},
            [[6, 13, 20], [12, 27, 42], [20, 45, 70]],
            F,
        ),
        (
            PF,
            {"M": [1, 2, 3, 4, 5, 6], "T": 0.5},
            [[5.5, 11.5, 17.5], [11.5, 25.5, 39.5], [19.5, 43.5, 67.5]],
            F,
        ),
        (PF, {"T": [1, 2]}, [[2, 4], [4, 6], [6, 9]], F),
        (
            PF.astype(np.int16),
            {"M": [0, 1, 1, 0], "dtype": types.INT16},
            [[2, 1], [4, 3], [7, 5]],
            np.int16,
        ),
        (PF.astype(np.uint16), {"M": [1, 1]}, [[3], [7], [12]], F),
    ],
)
def test_observed_results(inp, kw, expected, dtype):
    out = _one(lambda x: fn.coord_transform(x, **kw), [inp])
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.array(expected, dtype))


def test_points_of_higher_rank_keep_their_leading_shape():
    x = np.arange(12, dtype=F).reshape(2, 3, 2)
    out = _one(lambda p: fn.coord_transform(p, M=[1, 2, 3, 4, 5, 6], T=[1, 2, 3]), [x])
    expected = [[[3, 6, 9], [9, 20, 31], [15, 34, 53]], [[21, 48, 75], [27, 62, 97], [33, 76, 119]]]
    np.testing.assert_array_equal(out, np.array(expected, F))


def test_float32_accumulated_left_to_right():
    """DALI 2.4 computes ``((m0·x0 + m1·x1) + m2·x2 + ...) + t`` in float32, observed bit for bit
    on 1000 random points (a float64 product rounded once differs)."""
    rng = np.random.default_rng(1)
    p = rng.standard_normal((1000, 4)).astype(F) * F(100)
    m = rng.standard_normal(12).astype(F)
    t = rng.standard_normal(3).astype(F)
    out = _one(lambda x: fn.coord_transform(x, M=m.tolist(), T=t.tolist()), [p])
    mm = m.reshape(3, 4)
    acc = mm[None, :, 0] * p[:, None, 0]
    for j in range(1, 4):
        acc = acc + mm[None, :, j] * p[:, None, j]
    np.testing.assert_array_equal(out, acc + t)
    assert not np.array_equal(out, (p.astype(np.float64) @ mm.T + t).astype(F))


def test_per_sample_arguments():
    pts = [PF, PF[:2]]
    m = [np.eye(2, dtype=F) * 2, np.ones((2, 2), F)]
    out = run1(lambda x, mm: fn.coord_transform(x, M=mm), pts, m)[0]
    np.testing.assert_array_equal(out[0], PF * 2)
    np.testing.assert_array_equal(out[1], [[3, 3], [7, 7]])
    s = [F(2), F(3)]
    out = run1(lambda x, mm: fn.coord_transform(x, M=mm), pts, s)[0]
    np.testing.assert_array_equal(out[1], PF[:2] * 3)
    t = [np.array([1, 2], F), np.array([2, 2], F)]
    out = run1(lambda x, tt: fn.coord_transform(x, T=tt), pts, t)[0]
    np.testing.assert_array_equal(out[0], PF + np.array([1, 2], F))
    mt = [np.ones((1, 3), F), np.full((1, 3), 2, F)]
    out = run1(lambda x, mm: fn.coord_transform(x, MT=mm), pts, mt)[0]
    np.testing.assert_array_equal(out[1], [[8], [16]])
    ts = [F(1), F(2)]  # a per-sample scalar T is broadcast to every row of M
    out = run1(lambda x, tt: fn.coord_transform(x, T=tt, M=[1, 0, 0, 1, 1, 1]), pts, ts)[0]
    np.testing.assert_array_equal(out[1], [[3, 4, 5], [5, 6, 9]])


def test_per_sample_scalar_mt_is_the_documented_diagonal():
    """DALI 2.4 gives D + 1 components there, garbage beyond sample 0 (a known difference)."""
    out = run1(lambda x, mm: fn.coord_transform(x, MT=mm), [PF] * 3, [F(2), F(3), F(5)])[0]
    for o, s in zip(out, (2, 3, 5)):
        np.testing.assert_array_equal(o, PF * s)


def test_empty_samples():
    # every sample empty: nothing is read, the points get 0 components (as DALI 2.4)
    out = run1(lambda x: fn.coord_transform(x, M=[1, 2, 3, 4, 5, 6]), [np.zeros((0, 2), F)])[0]
    assert out[0].shape == (0, 0)
    out = run1(
        lambda x: fn.coord_transform(x, M=[1, 2, 3, 4, 5, 6]),
        [np.zeros((0, 3), F), np.ones((2, 2), F)],
    )[0]
    assert [o.shape for o in out] == [(0, 3), (2, 3)]
    np.testing.assert_array_equal(out[1], [[3, 7, 11]] * 2)


def test_layout_dtype_and_ops_class():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [PTS.astype(np.uint8)], layout="NC")
        a = ops.CoordTransform(M=2, dtype=types.UINT8)(x)
        assert a.dtype == types.UINT8
        return a, fn.coord_transform(x, M=2)

    a, b = pipe().run()
    assert a.layout() == "NC" and a.dtype == types.UINT8 and b.dtype == types.FLOAT


@pytest.mark.parametrize(
    "inp,kw,message",
    [
        (PTS.astype(np.int64), {"M": 2}, "unsupported input type"),
        (PF.astype(np.float64), {"M": 2}, "unsupported input type"),
        (PTS, {"M": 2, "dtype": types.INT16}, "FLOAT or the input's type"),
        (PF.reshape(-1), {"M": 2}, "at least 2 dimensions"),
        (PF, {"M": 2, "MT": 2}, "cannot be used together"),
        (PF, {"T": 2, "MT": 2}, "cannot be used together"),
        (PF, {"MT": [1, 2, 3, 4]}, "4 elements and 3 columns"),
        (PF, {"M": [1, 2, 3]}, "3 elements and 2 columns"),
        (PF, {"M": []}, "empty"),
        (PF, {"M": [1, 2, 3, 4, 5, 6], "T": [1, 2]}, "list of 3 elements"),
        (PF, {"T": [1, 2, 3]}, "list of 2 elements"),
        (np.zeros((2, 7), F), {"M": 2}, "dimensionality 7"),
        (np.zeros((1, 3), F), {"M": np.ones(21).tolist()}, "dimensionality 7"),
    ],
)
def test_errors(inp, kw, message):
    with pytest.raises(Exception, match=message):
        run1(lambda x: fn.coord_transform(x, **kw), [inp])


@pytest.mark.parametrize(
    "m,message",
    [
        ([np.eye(2, dtype=F), np.ones((3, 2), F)], "same shape"),
        ([np.ones(4, F), np.ones(4, F)], "2-D matrices or scalars"),
        ([np.float64(2), np.float64(3)], "FLOAT"),
        ([np.ones((2, 3), F)] * 2, "3 columns|2 columns"),
    ],
)
def test_per_sample_errors(m, message):
    with pytest.raises(Exception, match=message):
        run1(lambda x, mm: fn.coord_transform(x, M=mm), [PF, PF], m)


def test_ragged_point_dimensions_are_an_error():
    with pytest.raises(Exception, match="same for all samples"):
        run1(lambda x: fn.coord_transform(x, M=2), [np.zeros((1, 3), F), np.ones((2, 2), F)])


def _points(dtype):
    rng = np.random.default_rng(4)
    out = [rng.standard_normal((n, 3)) * 60 + 100 for n in (50, 0, 1, 333)]
    return [np.clip(p, 0, 250).astype(dtype) if dtype != F else p.astype(F) for p in out]


@pytest.mark.parametrize(
    "dtype,kw",
    [
        (F, {"M": [0.5, 1.5, -2.0, 0.25, 1.0, 3.0], "T": [0.125, -7.0]}),
        (np.uint8, {"MT": [0.7, 0.2, 0.1, 3.0, -0.5, 1.2, 0.3, -1.0], "dtype": types.UINT8}),
        (np.int16, {"M": 1.5, "dtype": types.INT16}),
        (np.int32, {"T": [1, 2, 3]}),
    ],
)
@cpu_gpu()
def test_parity(dtype, kw, device):
    pts = _points(dtype)

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device))
    def pipe():
        x = to_device(fn.external_source(source=lambda: pts), device)
        return fn.coord_transform(x, **kw)

    return pipe().run()


@cpu_gpu()
def test_parity_per_sample_matrices(device):
    pts = _points(F)
    m = [np.arange(6, dtype=F).reshape(2, 3) * F(i + 1) / F(7) for i in range(4)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device))
    def pipe():
        x = to_device(fn.external_source(source=lambda: pts), device)
        mm = fn.external_source(source=lambda: m)
        return fn.coord_transform(x, M=mm, T=[1.0, -1.0])

    return pipe().run()
