"""fn.mel_filter_bank: the filters against an independent float64 construction (librosa's
formulas: Slaney and HTK scales, normalised and not, frequency ranges), the application along
the frequency axis of every layout (ft, tf, f, Cft, none), ragged batches and several FFT
sizes in one batch, errors, CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(9)


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _mel(samples, layout=None, **kw):
    (out,) = _run(
        lambda: fn.mel_filter_bank(fn.external_source(lambda: samples, layout=layout), **kw),
        batch_size=len(samples),
    )
    return out


def _hz_to_mel(f, htk):
    if htk:
        return 2595.0 * math.log10(1.0 + f / 700.0)
    return f / (200.0 / 3) if f < 1000 else 15.0 + math.log(f / 1000.0) / (math.log(6.4) / 27)


def _mel_to_hz(m, htk):
    if htk:
        return 700.0 * (10 ** (m / 2595.0) - 1.0)
    return m * (200.0 / 3) if m < 15.0 else 1000.0 * math.exp((m - 15.0) * math.log(6.4) / 27)


def _filters(nfilter, nbins, rate, lo, hi, htk, normalize):
    """librosa.filters.mel's construction, in float64."""
    nfft = 2 * (nbins - 1)
    freqs = np.arange(nbins) * rate / nfft
    mels = np.linspace(_hz_to_mel(lo, htk), _hz_to_mel(hi, htk), nfilter + 2)
    corners = np.array([_mel_to_hz(m, htk) for m in mels])
    w = np.zeros((nfilter, nbins))
    for m in range(nfilter):
        lower = (freqs - corners[m]) / (corners[m + 1] - corners[m])
        upper = (corners[m + 2] - freqs) / (corners[m + 2] - corners[m + 1])
        w[m] = np.maximum(0, np.minimum(lower, upper))
        if normalize:
            w[m] *= 2.0 / (corners[m + 2] - corners[m])
    return w


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"nfilter": 40, "sample_rate": 16000.0},
        {"nfilter": 64, "sample_rate": 16000.0, "mel_formula": "htk"},
        {"nfilter": 32, "sample_rate": 16000.0, "normalize": False},
        {"nfilter": 80, "sample_rate": 48000.0, "freq_low": 4000.0, "freq_high": 20000.0},
        {"nfilter": 20, "sample_rate": 22050.0, "freq_low": 300.0, "mel_formula": "htk",
         "normalize": False},
    ],
)  # fmt: skip
def test_filters_match_librosa_construction(kw):
    eye = np.eye(257, dtype=np.float32)  # frequency-major: column k is filter weights of bin k
    w = np.asarray(_mel([eye], layout="ft", **kw).samples()[0])
    rate = kw.get("sample_rate", 44100.0)
    ref = _filters(
        kw.get("nfilter", 128),
        257,
        rate,
        kw.get("freq_low", 0.0),
        kw.get("freq_high", rate / 2),
        kw.get("mel_formula") == "htk",
        kw.get("normalize", True),
    )
    assert w.shape == ref.shape
    # DALI converts Hz <-> mel in float32: corners off by ~1e-7 relative move the weights of a
    # narrow filter by up to ~5e-6 of its peak (DALI's own test allows 1e-3 against librosa)
    np.testing.assert_allclose(w, ref, atol=2e-5 * ref.max(), rtol=0)


def test_nyquist_bin_has_no_weight():
    eye = np.eye(257, dtype=np.float32)
    w = np.asarray(_mel([eye], layout="ft", nfilter=64, sample_rate=16000.0).samples()[0])
    assert not w[:, 256].any()  # DALI 2.4 leaves out the bin at exactly freq_high


@pytest.mark.parametrize(
    ("shape", "layout", "axis"),
    [
        ((129, 20), "ft", 0),
        ((20, 129), "tf", 1),
        ((129,), "f", 0),
        ((129,), None, 0),
        ((129, 7), None, 0),
        ((3, 129, 5), None, 1),
        ((2, 5, 129), "Ctf", 2),
        ((2, 129, 4), "Cft", 1),
        ((129, 1), "ft", 0),
    ],
)
def test_applies_along_the_frequency_axis(shape, layout, axis):
    x = (10 ** RNG.uniform(-3, 2, shape)).astype(np.float32)
    kw = {"nfilter": 24, "sample_rate": 16000.0}
    out = _mel([x], layout=layout, **kw)
    assert out.layout() == (layout or "")
    assert out.dtype == types.FLOAT
    y = np.asarray(out.samples()[0])
    w = _filters(24, 129, 16000.0, 0.0, 8000.0, False, True)
    w[:, -1] = 0  # the Nyquist bin
    ref = np.moveaxis(np.tensordot(w, x.astype(np.float64), axes=([1], [axis])), 0, axis)
    assert y.shape == ref.shape
    np.testing.assert_allclose(y, ref, rtol=2e-4, atol=2e-5 * float(np.abs(ref).max()))


def test_ragged_batch_with_two_fft_sizes():
    xs = [RNG.random((257, 10)).astype(np.float32), RNG.random((129, 4)).astype(np.float32)]
    out = _mel(xs, layout="ft", nfilter=16, sample_rate=8000.0)
    shapes = [np.asarray(s).shape for s in out.samples()]
    assert shapes == [(16, 10), (16, 4)]
    for x, y in zip(xs, out.samples()):
        w = _filters(16, x.shape[0], 8000.0, 0.0, 4000.0, False, True)
        w[:, -1] = 0
        np.testing.assert_allclose(np.asarray(y), w @ x, rtol=2e-4, atol=1e-5)


def test_normalised_filters_integrate_to_one_in_hz():
    eye = np.eye(513, dtype=np.float32)
    w = np.asarray(_mel([eye], layout="ft", nfilter=20, sample_rate=16000.0).samples()[0])
    hz_step = 16000.0 / 1024
    np.testing.assert_allclose(w.sum(axis=1) * hz_step, 1.0, rtol=0.02)


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"nfilter": 0}, "number of filters should be > 0"),
        ({"sample_rate": 0.0}, "sample rate should be > 0"),
        ({"freq_low": -1.0}, "freq_low should be >= 0"),
        ({"freq_high": 30000.0, "sample_rate": 16000.0}, r"freq_high should be within the range"),
        ({"freq_low": 5000.0, "freq_high": 4000.0, "sample_rate": 16000.0}, "freq_high should"),
        ({"mel_formula": "foo"}, 'Unsupported mel_formula value "foo"'),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text):
        _mel([np.ones((17, 3), np.float32)], **kw)


def test_layout_without_f_and_wrong_type():
    with pytest.raises(Exception, match=r"'f' axis not present in the layout\. Got: `ab`"):
        _mel([np.ones((5, 17), np.float32)], layout="ab")
    with pytest.raises(Exception, match="Unsupported data type: double"):
        _mel([np.ones((17, 5), np.float64)])


PARITY = {
    "ft_ragged": ("ft", [(257, 30), (257, 7), (129, 12)]),
    "tf": ("tf", [(30, 257), (5, 257)]),
    "f": ("f", [(257,), (257,)]),
    "cft": ("Cft", [(2, 129, 9), (3, 129, 1)]),
}


@pytest.mark.parametrize("case", sorted(PARITY))
@pytest.mark.parametrize("normalize", [True, False])
@cpu_gpu()  # the same float32 sums in the same order: bit-exact
def test_gpu_matches_cpu(case, normalize, device):
    layout, shapes = PARITY[case]
    rng = np.random.default_rng(4)  # the same data for both runs
    xs = [(10 ** rng.uniform(-3, 2, s)).astype(np.float32) for s in shapes]
    return _run(
        lambda: fn.mel_filter_bank(
            to_device(fn.external_source(lambda: xs, layout=layout), device),
            nfilter=40,
            sample_rate=16000.0,
            normalize=normalize,
        ),
        batch_size=len(xs),
        device_id=device_id(device),
    )


@pytest.mark.parametrize(("shape", "axis"), [((257, 40), 0), ((40, 257), 1), ((3, 257, 5), 1)])
@pytest.mark.parametrize("time_major", [True, False])
def test_compiled_and_numpy_sums_agree(shape, axis, time_major):
    pytest.importorskip("numba")
    from dali._ops.audio.mel_filter_bank import _prescaled, mel_filters
    from dali._ops.signal._linear import apply_matrix_cpu

    x = (10 ** RNG.uniform(-5, 3, shape)).astype(np.float32)
    w, norms = mel_filters(64, 257, 16000.0, 0.0, 8000.0, "slaney", True)
    if not time_major:
        w, norms = _prescaled(64, 257, 16000.0, 0.0, 8000.0, "slaney"), None
    a = apply_matrix_cpu(x, w, axis, norms, use_numba=True)
    b = apply_matrix_cpu(x, w, axis, norms, use_numba=False)
    np.testing.assert_array_equal(a, b)
