"""Random operators and topology-independent determinism."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types


def _run(build, *, batch_size=8, seed=42, iterations=1, **kw):
    kw.setdefault("num_threads", 1)
    pipe = dali.Pipeline(batch_size=batch_size, seed=seed, **kw)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return [[tl for tl in pipe.run()] for _ in range(iterations)]


def _arrays(results):
    return [[tl.as_array() for tl in it] for it in results]


# -- shapes, dtypes, distributions -------------------------------------------------------------


def test_uniform_defaults():
    ((out,),) = _run(lambda: fn.random.uniform(), batch_size=5)
    assert out.dtype == types.FLOAT
    assert out.shape() == [()] * 5
    assert out.as_array().shape == (5,)
    assert out.layout() == ""
    a = out.as_array()
    assert np.all((a >= -1) & (a < 1))


def test_uniform_range_statistics_and_bounds():
    ((out,),) = _run(lambda: fn.random.uniform(range=(2, 4)), batch_size=1000)
    a = out.as_array()
    assert a.min() >= 2.0 and a.max() < 4.0
    assert abs(a.mean() - 3.0) < 0.05


def test_uniform_shape_and_dtype():
    ((a, b, c),) = _run(
        lambda: (
            fn.random.uniform(shape=[1]),
            fn.random.uniform(shape=(2, 3), dtype=types.FLOAT64),
            fn.random.uniform(range=(0, 10), dtype=types.INT32),
        )
    )
    assert a.shape()[0] == (1,)
    assert b.shape()[0] == (2, 3) and b.dtype == types.FLOAT64
    assert c.dtype == types.INT32 and set(c.as_array().tolist()) <= set(range(11))


def test_uniform_values():
    ((out,),) = _run(lambda: fn.random.uniform(values=[1, 2, 3]), batch_size=300)
    a = out.as_array()
    assert out.dtype == types.FLOAT
    assert set(a.tolist()) == {1.0, 2.0, 3.0}


def test_uniform_range_and_values_exclusive():
    pipe = dali.Pipeline(batch_size=1, num_threads=1)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1), values=[1, 2]))
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        pipe.build()


def test_shape_like_input():
    ((u, n),) = _run(
        lambda: (
            fn.random.uniform(fn.random.normal(shape=(4, 2))),
            fn.random.normal(fn.random.uniform(shape=(3,))),
        )
    )
    assert u.shape()[0] == (4, 2) and n.shape()[0] == (3,)


def test_per_sample_shape_gives_ragged_batch():
    def graph():
        shape = fn.random.uniform(range=(1, 6), shape=(1,), dtype=types.INT32)
        return shape, fn.random.uniform(shape=shape)

    ((shape, out),) = _run(graph, batch_size=16)
    assert [s for s in out.shape()] == [(int(n),) for n in shape.as_array()[:, 0]]
    assert len(set(out.shape())) > 1
    with pytest.raises(RuntimeError, match="same shape"):
        out.as_array()


def test_per_sample_arguments():
    def graph():
        m = fn.random.uniform(range=(0, 100))
        return m, fn.random.normal(mean=m, stddev=0.0)

    ((m, out),) = _run(graph)
    np.testing.assert_array_equal(m.as_array(), out.as_array())


def test_coin_flip_defaults_and_dtypes():
    ((a, b, c),) = _run(
        lambda: (
            fn.random.coin_flip(),
            fn.random.coin_flip(dtype=types.BOOL, probability=1.0),
            fn.random.coin_flip(dtype=types.UINT8, probability=0.0, shape=(3,)),
        ),
        batch_size=200,
    )
    assert a.dtype == types.INT32 and a.shape()[0] == ()
    assert set(a.as_array().tolist()) == {0, 1}
    assert b.dtype == types.BOOL and b.as_array().all()
    assert c.dtype == types.UINT8 and not c.as_array().any()


def test_coin_flip_float_dtype_rejected():
    pipe = dali.Pipeline(batch_size=1, num_threads=1)
    with pipe:
        pipe.set_outputs(fn.random.coin_flip(dtype=types.FLOAT))
    with pytest.raises(RuntimeError, match="Data type float is currently not supported"):
        pipe.build()


def test_coin_flip_probability_statistics():
    ((out,),) = _run(lambda: fn.random.coin_flip(probability=0.2), batch_size=4000)
    assert abs(out.as_array().mean() - 0.2) < 0.03


def test_normal_statistics():
    ((out,),) = _run(lambda: fn.random.normal(mean=5, stddev=2, shape=(100,)), batch_size=50)
    a = out.as_array()
    assert out.dtype == types.FLOAT
    assert abs(a.mean() - 5) < 0.1 and abs(a.std() - 2) < 0.1


def _ragged_normals(num_threads, dtype=types.FLOAT):
    # ragged shape_like input; 20k+ values per sample: split over the threads
    lengths = [30000, 0, 12345, 1, 25000, 40000]
    like = [np.zeros(n, np.float32) for n in lengths]

    def graph():
        data = fn.external_source(lambda: like)
        mean = fn.random.uniform(range=(-5, 5))
        return fn.random.normal(data, mean=mean, stddev=3.0, dtype=dtype)

    ((out,),) = _run(graph, batch_size=len(lengths), num_threads=num_threads)
    assert out.shape() == [(n,) for n in lengths]
    return [np.asarray(s) for s in out.samples()]


@pytest.mark.parametrize("dtype", [types.FLOAT, types.FLOAT64, types.INT32])
def test_normal_values_do_not_depend_on_numba_nor_threads(monkeypatch, dtype):
    from dali._exec import rng as rng_module

    ref = _ragged_normals(1, dtype)
    for got in (_ragged_normals(4, dtype), _ragged_normals(2, dtype)):
        for a, b in zip(ref, got):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    monkeypatch.setattr(rng_module, "_kernels", lambda: None)  # the numpy passes
    for a, b in zip(ref, _ragged_normals(2, dtype)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


# -- determinism --------------------------------------------------------------------------------


def _graph():
    return (
        fn.random.uniform(range=(0, 1), shape=(3,)),
        fn.random.coin_flip(),
        fn.random.normal(),
    )


@pytest.mark.parametrize("num_threads", [1, 2, 4])
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_independent_of_threads_and_prefetch(num_threads, depth):
    ref = _arrays(_run(_graph, iterations=3))
    got = _arrays(_run(_graph, iterations=3, num_threads=num_threads, prefetch_queue_depth=depth))
    for r, g in zip(ref, got):
        for a, b in zip(r, g):
            np.testing.assert_array_equal(a, b)


def test_first_samples_equal_smaller_batch():
    big = _arrays(_run(_graph, batch_size=8))
    small = _arrays(_run(_graph, batch_size=4))
    for a, b in zip(big[0], small[0]):
        np.testing.assert_array_equal(a[:4], b)


def test_stream_position_is_the_sample_identity():
    # without sources, sample k of the stream has the same values whatever the batch size
    big = _arrays(_run(_graph, batch_size=8, iterations=1))
    small = _arrays(_run(_graph, batch_size=4, iterations=2))
    for j in range(3):
        np.testing.assert_array_equal(big[0][j], np.concatenate([small[0][j], small[1][j]]))


def test_same_seed_same_values_different_seed_different():
    a = _arrays(_run(_graph, seed=1))
    b = _arrays(_run(_graph, seed=1))
    c = _arrays(_run(_graph, seed=2))
    np.testing.assert_array_equal(a[0][0], b[0][0])
    assert not np.array_equal(a[0][0], c[0][0])


def test_unseeded_pipelines_differ():
    a = _arrays(_run(_graph, seed=None))
    b = _arrays(_run(_graph, seed=None))
    assert not np.array_equal(a[0][0], b[0][0])


def test_iterations_differ():
    (first, second) = _arrays(_run(_graph, iterations=2))
    assert not np.array_equal(first[0], second[0])


def test_explicit_operator_seed_is_independent_of_pipeline_seed():
    vals = [_arrays(_run(lambda: fn.random.uniform(seed=7), seed=s))[0][0] for s in (1, 2, None)]
    np.testing.assert_array_equal(vals[0], vals[1])
    np.testing.assert_array_equal(vals[0], vals[2])


def test_identity_independent_of_other_outputs_and_creation_order():
    def one():
        return fn.random.uniform(range=(0, 1))

    def with_more():
        extra = fn.random.normal(shape=(5,))
        u = fn.random.uniform(range=(0, 1))
        return extra, fn.random.coin_flip(), u

    def other_order():
        flip = fn.random.coin_flip()
        u = fn.random.uniform(range=(0, 1))
        return u, flip

    base = _arrays(_run(one))[0][0]
    np.testing.assert_array_equal(_arrays(_run(with_more))[0][2], base)
    np.testing.assert_array_equal(_arrays(_run(other_order))[0][0], base)


def test_twin_operators_get_different_values():
    ((a, b),) = _arrays(_run(lambda: (fn.random.uniform(), fn.random.uniform())))
    assert not np.array_equal(a, b)


def test_named_operators_keep_identity_when_arguments_change():
    a = _arrays(_run(lambda: fn.random.uniform(range=(0, 1), name="aug")))[0][0]
    b = _arrays(_run(lambda: fn.random.uniform(range=(0, 2), name="aug")))[0][0]
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)


def test_same_values_with_ops_api():
    from dali import ops

    class P(dali.Pipeline):
        def __init__(self):
            super().__init__(batch_size=8, num_threads=1, seed=42)
            self.u = ops.random.Uniform(range=(0, 1), shape=(3,))

        def define_graph(self):
            return self.u()

    (out,) = P().run()
    ref = _arrays(_run(lambda: fn.random.uniform(range=(0, 1), shape=(3,))))[0][0]
    np.testing.assert_array_equal(out.as_array(), ref)


def test_same_explicit_seed_gives_same_values_like_dali():
    ((a, b, c),) = _arrays(
        _run(
            lambda: (
                fn.random.uniform(seed=7),
                fn.random.uniform(seed=7),
                fn.random.uniform(seed=8),
            )
        )
    )
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
