"""fn.noise.gaussian, fn.noise.salt_and_pepper, fn.noise.shot: statistics, types, layouts,
per-sample arguments, reproducibility, errors, and CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._exec.rng import SampleRNG, combine
from dali._ops.noise.generators import c_cast, poisson
from parity import cpu_gpu, device_id, to_device


def _run(build, *, batch_size=2, seed=5, dev=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _src(samples, layout="HWC"):
    return fn.external_source(lambda: list(samples), layout=layout)


FLAT = [np.full((120, 100, 3), 100, np.uint8), np.full((90, 80, 3), 60, np.uint8)]


def test_gaussian_moments_type_layout():
    (out,) = _run(lambda: fn.noise.gaussian(_src(FLAT), mean=2.0, stddev=10.0))
    assert out.dtype == types.UINT8 and out.layout() == "HWC"
    for x, y in zip(FLAT, out.samples()):
        d = y.astype(float) - x
        assert y.shape == x.shape
        assert abs(d.mean() - 2.0) < 0.3 and abs(d.std() - 10.0) < 0.3


def test_gaussian_rounds_half_away_and_saturates():
    x = [np.array([0, 10, 250], np.uint8), np.array([0, 10, 250], np.uint8)]
    (a, b, c) = _run(lambda: (
        fn.noise.gaussian(_src(x, None), mean=2.5, stddev=0.0),
        fn.noise.gaussian(_src(x, None), mean=-2.5, stddev=0.0),
        fn.noise.gaussian(_src(x, None), mean=1000.0, stddev=0.0),
    ))  # fmt: skip
    assert a.samples()[0].tolist() == [3, 13, 253]
    assert b.samples()[0].tolist() == [0, 8, 248]
    assert c.samples()[0].tolist() == [255, 255, 255]


def test_gaussian_per_sample_arguments_and_float():
    f = [np.zeros((50, 60, 3), np.float32)] * 2
    (out,) = _run(lambda: fn.noise.gaussian(
        _src(f), mean=fn.external_source(lambda: [np.float32(1), np.float32(-1)]),
        stddev=fn.external_source(lambda: [np.float32(0.5), np.float32(2)])))  # fmt: skip
    s0, s1 = out.samples()
    assert out.dtype == types.FLOAT
    assert abs(s0.mean() - 1) < 0.05 and abs(s0.std() - 0.5) < 0.05
    assert abs(s1.mean() + 1) < 0.1 and abs(s1.std() - 2) < 0.1


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int16, np.uint32, np.int32, np.int64])
def test_all_integer_types_keep_type(dtype):
    x = [np.full((20, 30, 3), 50, dtype)] * 2
    outs = _run(lambda: (
        fn.noise.gaussian(_src(x), stddev=3),
        fn.noise.salt_and_pepper(_src(x)),
        fn.noise.shot(_src(x), factor=2.0),
    ))  # fmt: skip
    for o in outs:
        assert o.samples()[0].dtype == np.dtype(dtype) and o.layout() == "HWC"


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.bool_])
@pytest.mark.parametrize("name", ["gaussian", "salt_and_pepper", "shot"])
def test_unsupported_types(name, dtype):
    x = [np.ones((4, 4, 3), dtype)] * 2
    with pytest.raises(Exception, match=r"is currently not supported\. Supported types are"):
        _run(lambda: getattr(fn.noise, name)(_src(x)))


def test_same_values_whatever_the_batch_and_threads():
    img = np.full((30, 40, 3), 128, np.uint8)
    (a,) = _run(lambda: fn.noise.gaussian(_src([img, img]), stddev=20), batch_size=2)
    (b,) = _run(lambda: fn.noise.gaussian(_src([img] * 3), stddev=20), batch_size=3)
    np.testing.assert_array_equal(a.samples()[0], b.samples()[0])
    assert not np.array_equal(a.samples()[0], a.samples()[1])  # independent streams


def _sp_fractions(y, salt, pepper):
    return np.mean(y == salt), np.mean(y == pepper)


def test_salt_and_pepper_fractions_and_pixels():
    (out,) = _run(lambda: fn.noise.salt_and_pepper(_src(FLAT), prob=0.3, salt_vs_pepper=0.8))
    y = out.samples()[0]
    changed = y != 100
    assert (changed == changed[..., :1]).all()  # every channel of a pixel alike
    n = changed[..., 0].size
    s, p = _sp_fractions(y[..., 0], 255, 0)
    assert abs(s - 0.24) < 6 * math.sqrt(0.24 * 0.76 / n)
    assert abs(p - 0.06) < 6 * math.sqrt(0.06 * 0.94 / n)


def test_salt_and_pepper_per_channel_chw_and_values():
    chw = [np.full((3, 60, 50), 7, np.int16)] * 2
    (a, b) = _run(lambda: (
        fn.noise.salt_and_pepper(_src(chw, "CHW"), prob=0.5),
        fn.noise.salt_and_pepper(_src(FLAT), prob=0.5, per_channel=True, salt_val=300.0,
                                 pepper_val=-3.7),
    ))  # fmt: skip
    y = a.samples()[0]
    assert a.layout() == "CHW" and set(np.unique(y).tolist()) == {-32768, 7, 32767}
    assert ((y != 7) == (y[:1] != 7)).all()
    z = b.samples()[0]
    assert set(np.unique(z).tolist()) == {44, 100, 253}  # C++ casts: wrapped, truncated
    assert not ((z != 100) == (z[..., :1] != 100)).all()


def test_salt_and_pepper_float_defaults_and_per_sample():
    f = [np.zeros((40, 40, 3), np.float32)] * 2
    (out,) = _run(lambda: fn.noise.salt_and_pepper(
        _src(f), prob=fn.external_source(lambda: [np.float32(0), np.float32(1)])))  # fmt: skip
    s0, s1 = out.samples()
    assert (s0 == 0).all() and set(np.unique(s1).tolist()) == {-1.0, 1.0}


def test_salt_and_pepper_errors():
    hw = [np.zeros((5, 6), np.uint8)] * 2
    with pytest.raises(Exception, match="'C' should be the first or the last dimension"):
        _run(lambda: fn.noise.salt_and_pepper(_src(hw, "HW")))
    (ok,) = _run(lambda: fn.noise.salt_and_pepper(_src(hw, "HW"), per_channel=True))
    assert ok.layout() == "HW"
    with pytest.raises(Exception, match=r"`prob`.*within \[0.0, 1.0\]. Got: 1.5"):
        _run(lambda: fn.noise.salt_and_pepper(_src(FLAT), prob=1.5))
    with pytest.raises(Exception, match=r"`salt_vs_pepper`.*Salt-vs-pepper probability"):
        _run(lambda: fn.noise.salt_and_pepper(_src(FLAT), salt_vs_pepper=-0.5))


def test_shot_poisson_statistics():
    x = [np.full((200, 200, 3), 10, np.uint16), np.full((200, 200, 3), 400, np.uint16)]
    (out,) = _run(lambda: fn.noise.shot(_src(x), factor=2.0))
    for src, y in zip(x, out.samples()):
        k = y.astype(float) / 2
        lam = src[0, 0, 0] / 2
        assert (k == np.round(k)).all()
        assert abs(k.mean() - lam) < 6 * math.sqrt(lam / k.size)
        assert abs(k.var() - lam) < 6 * lam * math.sqrt(2 / k.size) + 0.01


def test_shot_factor_zero_is_identity_and_negative_input():
    x = [np.arange(24, dtype=np.int8).reshape(2, 4, 3) - 12] * 2
    (a, b) = _run(lambda: (fn.noise.shot(_src(x), factor=0.0), fn.noise.shot(_src(x), factor=0.5)))
    np.testing.assert_array_equal(a.samples()[0], x[0])
    assert (b.samples()[0][x[0] <= 0] == 0).all()


def test_poisson_sampler_small_and_large_means():
    rng = SampleRNG(combine(3, [0]))
    for lam in (0.0, 0.3, 4.0, 9.9, 10.0, 55.0, 3000.0):
        k = poisson(rng, np.full(40000, lam))
        assert abs(k.mean() - lam) <= 6 * math.sqrt(max(lam, 1e-9) / k.size) + 1e-9
        assert abs(k.var() - lam) <= 6 * lam * math.sqrt(2 / k.size) + 1e-3


def test_c_cast():
    assert [int(c_cast(v, np.dtype(np.int32))) for v in (2.5, -1.7)] == [2, -1]
    assert float(c_cast(0.1, np.dtype(np.float32))) == float(np.float32(0.1))


@pytest.mark.parametrize("name", ["gaussian", "salt_and_pepper", "shot"])
@cpu_gpu()
def test_gpu_matches_cpu(name, device):
    x = [np.full((30, 40, 3), 90, np.uint8), np.full((30, 40, 3), 200, np.uint8)]
    return _run(lambda: getattr(fn.noise, name)(to_device(_src(x), device)), dev=device_id(device))
