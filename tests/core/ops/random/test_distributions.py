"""`fn.random.choice` and `fn.random.beta`: output types and shapes (``shape``, ``shape_like``,
per-sample shapes), the allowed values, frequencies against ``p`` and the beta law's moments
over large samples (5-sigma bounds), determinism by seed, and DALI's errors."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._exec.rng import SampleRNG, combine
from dali._ops.random.distributions import log_gamma_variates


def _source(batch):
    return lambda: batch


def _run(graph, *batches, batch_size=None, seed=11, iters=1):
    @pipeline_def(
        batch_size=batch_size or len(batches[0]), num_threads=2, device_id=None, seed=seed
    )
    def pipe():
        return graph(*[fn.external_source(_source(b)) for b in batches])

    p = pipe()
    outs = [p.run() for _ in range(iters)]
    return outs[0][0] if iters == 1 else [o[0] for o in outs]


def _all(tl):
    return np.concatenate([np.asarray(tl.at(i)).ravel() for i in range(len(tl))])


def _freq_ok(draws, values, p):
    n = draws.size
    for v, q in zip(values, p):
        f = np.count_nonzero(draws == v) / n
        assert abs(f - q) <= 5 * np.sqrt(q * (1 - q) / n) + 1e-12, (v, f, q)


# -- choice -------------------------------------------------------------------------------------


def test_scalar_input_draws_a_range_of_its_type():
    out = _run(lambda: fn.random.choice(5, shape=(20, 50)), batch_size=4)
    assert out.dtype == types.INT32 and out.layout() == ""
    assert out.shape() == [(20, 50)] * 4
    _freq_ok(_all(out), range(5), [0.2] * 5)
    u8 = _run(lambda: fn.random.choice(types.Constant(3, dtype=types.UINT8)), batch_size=2)
    assert u8.dtype == types.UINT8 and u8.shape() == [(), ()]


def test_values_with_probabilities():
    words = [np.array([10, 20, 30, 40], np.int16)] * 4
    out = _run(lambda a: fn.random.choice(a, p=[0.1, 0.2, 0.3, 0.4], shape=2000), words)
    assert out.dtype == types.INT16
    _freq_ok(_all(out), [10, 20, 30, 40], [0.1, 0.2, 0.3, 0.4])
    zero = _run(lambda a: fn.random.choice(a, p=[0.0, 0.5, 0.0, 0.5], shape=2000), words)
    assert set(_all(zero).tolist()) == {20, 40}


def test_per_sample_probabilities_and_ragged_inputs():
    a = [np.array([1, 2, 3], np.int8), np.array([4, 5], np.int8)]
    p = [np.array([0, 0, 1], np.float32), np.array([0.5, 0.5], np.float32)]
    out = _run(lambda x, q: fn.random.choice(x, p=q, shape=500), a, p)
    assert set(np.asarray(out.at(0)).tolist()) == {3}
    _freq_ok(np.asarray(out.at(1)), [4, 5], [0.5, 0.5])


def test_rows_of_a_2d_input_and_float_values():
    rows = [np.array([[1, 2], [3, 4], [5, 6]], np.int32)] * 2
    out = _run(lambda a: fn.random.choice(a, shape=(7, 5)), rows)
    assert out.shape() == [(7, 5, 2)] * 2
    s = np.asarray(out.at(0))
    assert np.all(s[..., 1] == s[..., 0] + 1) and set(s[..., 0].ravel()) <= {1, 3, 5}
    f = _run(lambda a: fn.random.choice(a), [np.array([1.5, 2.5], np.float64)] * 3)
    assert f.dtype == types.FLOAT64 and f.shape() == [(), (), ()]
    assert set(_all(f).tolist()) <= {1.5, 2.5}


def test_shape_like_and_per_sample_shapes():
    words = [np.array([1, 2, 3], np.uint8)] * 2
    like = [np.zeros((2, 3), np.float32), np.zeros((4, 1), np.float32)]
    out = _run(lambda a, s: fn.random.choice(a, s), words, like)
    assert out.shape() == [(2, 3), (4, 1)] and out.layout() == ""
    shapes = [np.array([2, 2], np.int32), np.array([3, 1], np.int32)]
    out = _run(lambda a, s: fn.random.choice(a, shape=s), words, shapes)
    assert out.shape() == [(2, 2), (3, 1)]


def test_choice_is_deterministic_by_seed():
    a = _run(lambda: fn.random.choice(100, shape=50), batch_size=3, seed=1)
    b = _run(lambda: fn.random.choice(100, shape=50), batch_size=3, seed=1)
    c = _run(lambda: fn.random.choice(100, shape=50), batch_size=3, seed=2)
    assert np.array_equal(_all(a), _all(b)) and not np.array_equal(_all(a), _all(c))


@pytest.mark.parametrize(
    "graph,batches,message",
    [
        (lambda: fn.random.choice(0), (), "positive number of elements"),
        (lambda: fn.random.choice(5.0), (), "not supported for 0D inputs"),
        (lambda: fn.random.choice(3, p=[0.5, 0.5]), (), "expected shape 3 but got 2"),
        (lambda: fn.random.choice(3, p=[0.5, 0.6, 0.1]), (), "Sum of probabilities"),
        (lambda: fn.random.choice(3, p=[0.5, 0.6, -0.1]), (), r"range \[0, 1\]"),
        (lambda: fn.random.choice(3, shape=(-1,)), (), "less than zero"),
        (lambda a: fn.random.choice(3, a, shape=2), ([np.zeros(3)] * 2,), "incompatible"),
        (
            lambda a: fn.random.choice(a, p=[0.5, 0.5]),
            ([np.arange(2), np.arange(3)],),
            "not uniform",
        ),
        (lambda a: fn.random.choice(a), ([np.zeros(0, np.int32)] * 2,), "positive number"),
        (
            lambda a, p: fn.random.choice(a, p=p),
            ([np.arange(3)] * 2, [np.array([0.5, 0.5], np.float32)] * 2),
            "Unexpected shape",
        ),
        (
            lambda a, p: fn.random.choice(a, p=p),
            ([np.arange(3)] * 2, [np.array([0.5, 0.5, 0.0])] * 2),
            "FLOAT",
        ),
    ],
)
def test_choice_errors(graph, batches, message):
    with pytest.raises(Exception, match=message):
        _run(graph, *batches, batch_size=2)


# -- beta ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 5.0), (0.5, 0.5), (0.05, 0.2), (30, 3)])
def test_beta_moments(alpha, beta):
    out = _run(lambda: fn.random.beta(alpha=alpha, beta=beta, shape=5000), batch_size=4)
    assert out.dtype == types.FLOAT and out.shape() == [(5000,)] * 4
    x = _all(out).astype(np.float64)
    assert np.all((x >= 0) & (x <= 1))
    mean = alpha / (alpha + beta)
    var = alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1))
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / x.size)
    assert abs(x.var() - var) < 0.1 * var + 1e-4


def test_beta_default_is_one_float_per_sample_and_float64_is_kept():
    out = _run(lambda: fn.random.beta(), batch_size=3)
    assert out.dtype == types.FLOAT and out.shape() == [(), (), ()]
    f64 = _run(lambda: fn.random.beta(dtype=types.FLOAT64, shape=(2, 3)), batch_size=2)
    assert f64.dtype == types.FLOAT64 and f64.shape() == [(2, 3)] * 2


def test_beta_tiny_parameters_give_zeros_and_ones():
    x = _all(_run(lambda: fn.random.beta(alpha=1e-3, beta=1e-3, shape=400), batch_size=2))
    # P(1e-6 < X < 1 - 1e-6) is about 2 * 0.001 * ln(1e6) = 2.8 % for Beta(0.001, 0.001)
    assert np.isfinite(x).all() and np.mean((x > 1e-6) & (x < 1 - 1e-6)) < 0.1
    assert 0.3 < np.mean(x > 0.5) < 0.7


def test_beta_per_sample_parameters_and_shape_like():
    a = [np.float32(50.0), np.float32(0.5)]
    b = [np.float32(0.5), np.float32(50.0)]
    out = _run(lambda x, y: fn.random.beta(alpha=x, beta=y, shape=500), a, b)
    assert np.asarray(out.at(0)).mean() > 0.9 and np.asarray(out.at(1)).mean() < 0.1
    like = [np.zeros((3, 4), np.uint8), np.zeros((7, 1), np.uint8)]
    assert _run(lambda s: fn.random.beta(s), like).shape() == [(3, 4), (7, 1)]


def test_gamma_variates_mean_and_variance():
    rng = SampleRNG(combine(9, np.arange(3)))
    g = np.exp(log_gamma_variates(rng, np.array([[0.3], [1.0], [7.5]]), 40000, base=1))
    for row, a in zip(g, (0.3, 1.0, 7.5)):
        assert abs(row.mean() - a) < 5 * np.sqrt(a / row.size)
        assert abs(row.var() - a) < 0.1 * a


@pytest.mark.parametrize(
    "graph,batches,message",
    [
        (lambda: fn.random.beta(dtype=types.INT32), (), "Supported types are : float, double"),
        (lambda: fn.random.beta(dtype=types.FLOAT16), (), "float16 is not supported"),
        (lambda: fn.random.beta(alpha=0.0), (), "must be a positive float32"),
        (lambda: fn.random.beta(beta=float("inf")), (), "must be a positive float32"),
        (
            lambda a: fn.random.beta(alpha=a),
            ([np.float32(2), np.float32(-3)],),
            "got `-3` for sample at index 1",
        ),
        (lambda a: fn.random.beta(alpha=a), ([np.float64(2)] * 2,), "FLOAT"),
        (lambda s: fn.random.beta(s, shape=3), ([np.zeros(2)] * 2,), "shape"),
    ],
)
def test_beta_errors(graph, batches, message):
    with pytest.raises(Exception, match=message):
        _run(graph, *batches, batch_size=2)
