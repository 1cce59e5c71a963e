"""fn.to_decibels: values against the formula in float64 (default reference = the sample's
maximum, given references, cut-off, multipliers), edge values (zeros, negatives, NaN, inf,
empty samples), layouts, errors, CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.signal.to_decibels import decibel_constants
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(5)
POWER = [
    (10 ** RNG.uniform(-6, 3, (20, 30))).astype(np.float32),
    (10 ** RNG.uniform(-3, 1, (7, 30))).astype(np.float32),
]


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _db(samples, layout=None, **kw):
    (out,) = _run(
        lambda: fn.to_decibels(fn.external_source(lambda: samples, layout=layout), **kw),
        batch_size=len(samples),
    )
    return out


def _reference(x, multiplier=10.0, reference=None, cutoff_db=-200.0):
    x = np.asarray(x, np.float64)
    ref = max(float(np.nanmax(x, initial=0.0)), 0.0) if reference is None else reference
    ref = 1.0 if ref == 0 else ref
    min_ratio = 10 ** (cutoff_db / multiplier)
    return multiplier * np.log10(np.maximum(min_ratio, x / ref))


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=2e-5)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"cutoff_db": -80.0},
        {"multiplier": 20.0, "reference": 1.0},
        {"multiplier": 20.0, "reference": 1e-6, "cutoff_db": -120.0},
        {"multiplier": float(np.log(10)), "reference": 1.0},
    ],
)
def test_matches_formula(kw):
    out = _db(POWER, **kw)
    assert out.dtype == types.FLOAT
    for x, y in zip(POWER, out.samples()):
        _close(np.asarray(y), _reference(x, **kw))


def test_default_reference_is_each_samples_maximum():
    a = np.array([1.0, 0.1, 0.01], np.float32)
    out = _db([a, a * 100])  # both peak at 0 dB
    for y in out.samples():
        _close(np.asarray(y), [0.0, -10.0, -20.0])


def test_edge_values():
    samples = [
        np.zeros(3, np.float32),  # the maximum is 0: the reference becomes 1
        np.array([-1.0, 0.5], np.float32),  # negatives saturate at the cut-off
        np.array([np.nan, 1.0, np.inf], np.float32),
        np.zeros(0, np.float32),
    ]
    out = [np.asarray(s) for s in _db(samples, cutoff_db=-80.0).samples()]
    np.testing.assert_allclose(out[0], [-80.0] * 3, rtol=1e-6)
    _close(out[1], [-80.0, 0.0])
    # the reference is inf: 1 / inf = 0, so every ratio is 0 (or NaN: NaN * 0, inf * 0), and
    # a NaN ratio gives the floor (DALI's max keeps min_ratio)
    assert out[2].tolist() == [-80.0, -80.0, -80.0]
    assert out[3].shape == (0,)


def test_tiny_cutoff_never_takes_log_of_zero():
    _, min_ratio = decibel_constants(10.0, -1000.0)
    assert min_ratio == np.float32(np.nextafter(np.float32(0), np.float32(1)))
    y = np.asarray(_db([np.zeros(2, np.float32)], cutoff_db=-1000.0).samples()[0])
    assert np.isfinite(y).all()


def test_layout_and_shapes_are_kept():
    x = (10 ** RNG.uniform(-2, 2, (2, 3, 4))).astype(np.float32)
    out = _db([x], layout="abc")
    assert out.layout() == "abc"
    assert np.asarray(out.samples()[0]).shape == (2, 3, 4)
    scalar = _db([np.array(4.0, np.float32)])
    assert np.asarray(scalar.samples()[0]).shape == ()


def test_ragged_batch():
    out = _db([POWER[0], POWER[1][:3, :5].copy()])
    _close(np.asarray(out.samples()[1]), _reference(POWER[1][:3, :5]))


def test_reference_zero_is_an_error():
    with pytest.raises(Exception, match="`reference` argument can't be zero"):
        _db(POWER, reference=0.0)


@pytest.mark.parametrize("dtype", [np.float64, np.int16])
def test_unsupported_types(dtype):
    with pytest.raises(Exception, match="Unsupported data type"):
        _db([np.ones(4, dtype)])


@pytest.mark.parametrize("kw", [{}, {"reference": 2.0, "cutoff_db": -30.0, "multiplier": 20.0}])
@cpu_gpu(atol=3e-5, rtol=2e-7)  # CUDA's log2f and numpy's float32 log2 may differ by an ulp
def test_gpu_matches_cpu(kw, device):
    batch = [POWER[0], POWER[1], np.array([0.0, -1.0, 3.0], np.float32).reshape(1, 3)[:, :3]]
    batch = [b.reshape(-1) for b in batch]
    return _run(
        lambda: fn.to_decibels(to_device(fn.external_source(lambda: batch), device), **kw),
        batch_size=3,
        device_id=device_id(device),
    )
