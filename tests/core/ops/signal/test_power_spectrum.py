"""fn.power_spectrum: values against numpy's float64 FFT (power and magnitude, every axis,
nfft longer and shorter than the data), shapes, layouts, errors. DALI 2.4 has it on the CPU
only."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types

RNG = np.random.default_rng(11)


def _ps(samples, layout=None, **kw):
    pipe = dali.Pipeline(batch_size=len(samples), num_threads=2, device_id=None)
    with pipe:
        pipe.set_outputs(
            fn.power_spectrum(fn.external_source(lambda: samples, layout=layout), **kw)
        )
    (out,) = pipe.run()
    return out


def _reference(x, axis, nfft=None, power=2):
    x = np.asarray(x, np.float64)
    n = nfft or x.shape[axis]
    spec = np.fft.rfft(x, n=n, axis=axis)  # zero-pads or cuts at the end, as the operator
    return np.abs(spec) ** 2 if power == 2 else np.abs(spec)


def _close(actual, expected):
    assert actual.shape == expected.shape
    scale = float(np.abs(expected).max())
    np.testing.assert_allclose(actual, expected, atol=2e-6 * scale, rtol=0)


@pytest.mark.parametrize("shape", [(64,), (3, 50), (2, 3, 17)])
@pytest.mark.parametrize("power", [1, 2])
def test_last_axis(shape, power):
    x = RNG.normal(0, 1, shape).astype(np.float32)
    out = _ps([x], power=power)
    assert out.dtype == types.FLOAT
    _close(np.asarray(out.samples()[0]), _reference(x, -1, power=power))


@pytest.mark.parametrize("nfft", [16, 100, 31])
def test_nfft_pads_or_cuts(nfft):
    x = RNG.normal(0, 1, (3, 40)).astype(np.float32)
    y = np.asarray(_ps([x], nfft=nfft).samples()[0])
    assert y.shape == (3, nfft // 2 + 1)
    _close(y, _reference(x, -1, nfft))


def test_axis_and_ragged_batch():
    xs = [RNG.normal(0, 1, (12, 3)).astype(np.float32), RNG.normal(0, 1, (7, 2)).astype(np.float32)]
    out = _ps(xs, layout="ab", axis=0)
    assert out.layout() == "ab"
    for x, y in zip(xs, out.samples()):
        _close(np.asarray(y), _reference(x, 0))


def test_negative_axis_is_the_last_one():
    # DALI 2.4 takes any negative axis as the last one (not Python's counting from the end)
    x = RNG.normal(0, 1, (6, 10)).astype(np.float32)
    y = np.asarray(_ps([x], axis=-2).samples()[0])
    _close(y, _reference(x, -1))


def test_nonpositive_nfft_means_the_data_extent():
    x = RNG.normal(0, 1, (2, 20)).astype(np.float32)
    _close(np.asarray(_ps([x], nfft=0).samples()[0]), _reference(x, -1))


def test_uniform_batch_in_one_pass_matches_per_sample():
    xs = [RNG.normal(0, 1, (4, 32)).astype(np.float32) for _ in range(3)]
    out = _ps(xs)
    for x, y in zip(xs, out.samples()):
        _close(np.asarray(y), _reference(x, -1))


@pytest.mark.parametrize(
    ("sample", "kw", "text"),
    [
        (np.zeros((2, 8), np.float32), {"power": 3}, "should be either `2` for power spectrum"),
        (np.zeros((2, 8), np.float32), {"axis": 2}, r"Transform axis 2 is out of bounds \[0, 2\)"),
        (np.zeros((2, 2, 2, 2), np.float32), {}, "Unsupported number of dimensions 4"),
        (np.zeros(4, np.float64), {}, "Unsupported input type: double"),
    ],
)
def test_errors(sample, kw, text):
    with pytest.raises(Exception, match=text):
        _ps([sample], **kw)


def test_cpu_only_like_dali():
    from dali._graph.schema import get_schema

    assert get_schema("power_spectrum").devices == ("cpu",)
