"""fn.mfcc: values against float64 DCT formulas written from the definitions (types 1-4,
orthonormal or not), liftering, n_mfcc larger than the axis, every axis and dimensionality
DALI accepts, layouts, errors, CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.audio.mfcc import dct_table
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(13)
MEL = [
    RNG.normal(0, 10, (40, 30)).astype(np.float32),
    RNG.normal(0, 10, (40, 3)).astype(np.float32),
]


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _mfcc(samples, layout=None, **kw):
    (out,) = _run(
        lambda: fn.mfcc(fn.external_source(lambda: samples, layout=layout), **kw),
        batch_size=len(samples),
    )
    return out


def _dct(x, dct_type, normalize):
    """Wikipedia's DCT-I..IV along the first axis, in float64 (loops, no shared code)."""
    x = np.asarray(x, np.float64)
    n = x.shape[0]
    out = np.zeros_like(x)
    for k in range(n):
        for i in range(n):
            if dct_type == 1:
                c = (
                    0.5 * (1 if i == 0 else (-1) ** k)
                    if i in (0, n - 1)
                    else math.cos(math.pi / (n - 1) * i * k)
                )
            elif dct_type == 2:
                c = math.cos(math.pi / n * (i + 0.5) * k)
                if normalize:
                    c *= math.sqrt(1 / n) if k == 0 else math.sqrt(2 / n)
            elif dct_type == 3:
                c = (
                    (0.5 if not normalize else math.sqrt(1 / n))
                    if i == 0
                    else math.cos(math.pi / n * i * (k + 0.5))
                    * (math.sqrt(2 / n) if normalize else 1)
                )
            else:
                c = math.cos(math.pi / n * (i + 0.5) * (k + 0.5)) * (
                    math.sqrt(2 / n) if normalize else 1
                )
            out[k] += c * x[i]
    return out


def _close(actual, expected):
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, atol=5e-6 * float(np.abs(expected).max()), rtol=0)


@pytest.mark.parametrize(
    ("dct_type", "normalize"),
    [(1, False), (2, False), (2, True), (3, False), (3, True), (4, False), (4, True)],
)
def test_dct_types(dct_type, normalize):
    out = _mfcc(MEL, dct_type=dct_type, normalize=normalize, n_mfcc=40)
    assert out.dtype == types.FLOAT
    for x, y in zip(MEL, out.samples()):
        _close(np.asarray(y), _dct(x, dct_type, normalize))


def test_default_keeps_20_coefficients_of_axis_0():
    y = np.asarray(_mfcc(MEL).samples()[0])
    assert y.shape == (20, 30)
    _close(y, _dct(MEL[0], 2, False)[:20])


def test_orthonormal_dct2_is_orthogonal():
    t = dct_table(2, 16, 16, True).astype(np.float64)
    np.testing.assert_allclose(t @ t.T, np.eye(16), atol=1e-6)


@pytest.mark.parametrize("lifter", [22.0, 2.0, -3.0])
def test_lifter(lifter):
    y = np.asarray(_mfcc(MEL[:1], n_mfcc=13, lifter=lifter).samples()[0])
    coeffs = 1 + (lifter / 2) * np.sin(np.pi * (np.arange(13) + 1) / lifter)
    _close(y, _dct(MEL[0], 2, False)[:13] * coeffs[:, None])


def test_n_mfcc_larger_than_the_axis_keeps_them_all():
    xs = [RNG.normal(0, 1, (6, 4)).astype(np.float32), RNG.normal(0, 1, (30, 4)).astype(np.float32)]
    out = _mfcc(xs, n_mfcc=10)
    assert [np.asarray(s).shape for s in out.samples()] == [(6, 4), (10, 4)]


@pytest.mark.parametrize(
    ("shape", "axis"), [((30, 40), 1), ((2, 40, 5), 1), ((2, 3, 40), 2), ((2, 2, 40, 3), 2)]
)
def test_other_axes_and_dimensions(shape, axis):
    x = RNG.normal(0, 5, shape).astype(np.float32)
    out = _mfcc([x], layout="abcd"[: len(shape)], axis=axis, n_mfcc=12, dct_type=3)
    assert out.layout() == "abcd"[: len(shape)]
    y = np.asarray(out.samples()[0])
    ref = np.moveaxis(_dct(np.moveaxis(x, axis, 0), 3, False)[:12], 0, axis)
    _close(y, ref)


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"n_mfcc": 0}, "number of MFCCs should be > 0"),
        ({"dct_type": 5}, "Unsupported DCT type: 5. Supported types are: 1, 2, 3, 4."),
        ({"dct_type": 1, "normalize": True}, "Ortho-normalization is not supported for DCT type I"),
        ({"axis": -1}, "Provided axis cannot be negative."),
        ({"axis": 2}, r"Axis 2 is out of bounds \[0,2\)"),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text):
        _mfcc(MEL, **kw)


@pytest.mark.parametrize(
    ("sample", "kw", "text"),
    [
        (np.zeros(10, np.float32), {}, "Unsupported number of dimensions 1"),
        (np.zeros((2, 2, 2, 10, 5), np.float32), {}, "Unsupported number of dimensions 5"),
        (np.zeros((10, 5), np.float64), {}, "Unsupported data type: double"),
        (np.zeros((1, 5), np.float32), {"dct_type": 1}, "DCT type I requires an input length > 1"),
    ],
)
def test_input_errors(sample, kw, text):
    with pytest.raises(Exception, match=text):
        _mfcc([sample], **kw)


PARITY = {
    "dct2": {"n_mfcc": 13},
    "dct2_ortho_lifter": {"normalize": True, "lifter": 22.0},
    "dct1": {"dct_type": 1, "n_mfcc": 40},
    "dct4_axis1": {"dct_type": 4, "axis": 1, "n_mfcc": 2},
    "short_axis": {"n_mfcc": 35, "lifter": 3.0},
}


@pytest.mark.parametrize("case", sorted(PARITY))
@cpu_gpu()  # the same float32 sums in the same order: bit-exact
def test_gpu_matches_cpu(case, device):
    # the same data for both runs: a generator of its own, not the module's
    xs = [MEL[0], MEL[1], np.random.default_rng(3).normal(0, 3, (30, 8)).astype(np.float32)]
    return _run(
        lambda: fn.mfcc(to_device(fn.external_source(lambda: xs), device), **PARITY[case]),
        batch_size=3,
        device_id=device_id(device),
    )
