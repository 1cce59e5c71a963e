"""audio_resample and the windowed-sinc resampler (values against DALI 2.4's bits and an
independent float64 sinc reference, Numba = numpy, lengths, types, per-sample arguments,
errors, CPU/GPU parity)."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._graph.schema import UNSET, get_schema
from dali._ops.audio import _resampling as R
from dali._ops.audio import _resampling_numba
from dali._testing.audio import audio_signal
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(5)
X = (np.sin(np.arange(64) * 0.37) * 0.8).astype(np.float32)
X2 = np.stack([X, X[::-1] * 0.5], 1).copy()

#: DALI 2.4's outputs (float32 bits) for X with scale=0.73 (every 5th of 47) and for X2 with
#: in_rate=3, out_rate=5, quality=0 (every 7th value of the flattened (107, 2) output).
DALI_A = [859743497, 1055474851, 3208638360, 1061576790, 3204831214, 1034650448, 1053115245,
          3208080404, 1061790121, 3204890545]  # fmt: skip
DALI_B = [2971235584, 3195558472, 1061982810, 1050710602, 1020916655, 1048681499, 3209433368,
          3197887149, 3176993296, 3196503681, 1061950471, 1050114244, 1034159176, 1049371733,
          3209358489, 3197297029, 3185271762, 3197154670, 1061830892, 1049475777, 1040774127,
          1050002197, 3209241017, 3196653325, 3189992884, 3197780179, 1061648147, 1048812278,
          1044316819, 1050578513, 3209058132]  # fmt: skip


def _run(build, *, batch_size=1, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _resample(samples, layout=None, **kw):
    (out,) = _run(
        lambda: fn.audio_resample(fn.external_source(lambda: samples, layout=layout), **kw),
        batch_size=len(samples),
    )
    return out


def _sinc_reference(x, in_rate, out_rate, n_out, lobes):
    """out[o] = sum_i x[i] · sinc(i - p) · hann((i - p) / lobes), p = o · in / out (float64)."""
    x = np.asarray(x, np.float64)
    x = x[:, None] if x.ndim == 1 else x
    out = np.zeros((n_out, x.shape[1]))
    for o in range(n_out):
        p = o * in_rate / out_rate
        i = np.arange(max(0, math.ceil(p) - lobes), min(len(x), math.ceil(p) + lobes))
        d = i - p
        w = np.sinc(d) * 0.5 * (1 + np.cos(np.pi * d / lobes))
        out[o] = w @ x[i]
    return out


# -- the kernel -------------------------------------------------------------------------------


def test_quality_gives_dalis_lobes_and_tables():
    assert [R.lobes_for_quality(q) for q in (0, 25, 50, 75, 100)] == [3, 5, 16, 36, 64]
    w = R.window_for_quality(50)
    assert w.lobes == 16 and w.lookup.size == 16 * 64 + 1 + 5
    assert w.lookup[0] == 0 and w.lookup[int(w.center)] == 1.0
    body = w.lookup[1 : 16 * 64 + 2]
    np.testing.assert_array_equal(body, body[::-1])  # symmetric
    assert not w.lookup.flags.writeable


def test_window_entries_are_dalis_bits():
    # table entries read from DALI 2.4 (impulse responses at multiples of 1/64 sample); the
    # ones at ±3/64 and ±35/64 come out one bit different unless sin() is the C library's sinf
    w = R.window_for_quality(50)
    c = int(w.center)
    assert w.lookup[c + 3] == np.float32(0.9855218529701233)
    assert w.lookup[c - 35] == np.float32(-0.08351198583841324)
    assert w.lookup[c + 259] == np.float32(0.005611912347376347)
    assert w.lookup[c + 510] == np.float32(-2.287633975583958e-07)


def test_values_are_dalis_bits():
    a = R.resample_numpy(X, 1.0, float(np.float32(0.73)), 47, R.window_for_quality(50))
    assert a.view(np.uint32)[::5].tolist() == DALI_A
    b = R.resample_numpy(X2, 3.0, 5.0, 107, R.window_for_quality(0))
    assert b.reshape(-1).view(np.uint32)[::7].tolist() == DALI_B


@pytest.mark.parametrize("quality", [0, 50, 100])
@pytest.mark.parametrize("rates", [(44100, 16000), (16000, 44100), (12999, 16000), (1, 1)])
@pytest.mark.parametrize("channels", [0, 1, 3])
def test_matches_a_float64_windowed_sinc(quality, rates, channels):
    shape = (900,) if channels == 0 else (900, channels)
    # the case's own input (a shared generator made it depend on which tests ran before)
    rng = np.random.default_rng([quality, *rates, channels])
    x = (rng.random(shape) * 2 - 1).astype(np.float32)
    n = R.resampled_length(900, *rates)
    w = R.window_for_quality(quality)
    got = R.resample_numpy(x, float(rates[0]), float(rates[1]), n, w)
    assert got.shape == ((n,) if channels == 0 else (n, channels))
    ref = _sinc_reference(x, rates[0], rates[1], n, w.lobes)
    # the tabulated window is interpolated linearly between 1/64-sample steps
    np.testing.assert_allclose(got.reshape(n, -1), ref, atol=2e-3 * w.lobes**0.5)


@pytest.mark.skipif(_resampling_numba.kernel() is None, reason="no numba")
@pytest.mark.parametrize("quality", [0, 37, 100])
@pytest.mark.parametrize("rates", [(48000, 16000), (8000, 44100), (1.0, 0.37), (3, 2)])
@pytest.mark.parametrize("channels", [0, 1, 2, 9])
def test_numba_and_numpy_give_the_same_bits(quality, rates, channels):
    shape = (3000,) if channels == 0 else (3000, channels)
    x = RNG.standard_normal(shape).astype(np.float32)
    w = R.window_for_quality(quality)
    for n in (R.resampled_length(3000, *rates), 7, 5000):  # longer than the signal too
        a = R.resample_numpy(x, float(rates[0]), float(rates[1]), n, w)
        b = _resampling_numba.resample(
            _resampling_numba.kernel(), x, float(rates[0]), float(rates[1]), n, w
        )
        np.testing.assert_array_equal(a, b)


def test_lengths_follow_ceil_of_the_ratio():
    assert R.resampled_length(1000, 44100, 16000) == math.ceil(1000 * 16000 / 44100)
    assert R.resampled_length(10, 3, 3) == 10
    assert R.resampled_length(0, 1, 5) == 0
    assert R.resampled_length(7, 1, 0) == 0


def test_conversions_follow_dalis_normalisation():
    f = np.array([-1.0, 0.0, 1.0, 0.25], np.float32)
    assert R.to_output(R.normalize_input(f, np.dtype(np.uint8)), np.dtype(np.uint8)).tolist() == [
        0,
        128,
        255,
        159,
    ]
    u8 = np.array([0, 127, 128, 255], np.uint8)
    norm = R.normalize_input(u8, np.dtype(np.int16))
    assert R.to_output(norm, np.dtype(np.int16)).tolist() == [-32767, -128, 128, 32767]
    u16 = np.array([0, 32767, 32768, 65535], np.uint16)
    out = R.normalize_input(u16, np.dtype(np.float32))
    np.testing.assert_allclose(out, [-1, -0.000015, 0.000015, 1], atol=1e-6)
    i16 = np.array([-32768, 0, 32767], np.int16)
    assert R.to_output(R.normalize_input(i16, np.dtype(np.int16)), np.dtype(np.int16)).tolist() == [
        -32768,
        0,
        32767,
    ]


# -- the operator -----------------------------------------------------------------------------


def test_schema_matches_dali():
    schema = get_schema("audio_resample")
    expected = {
        "in_rate": UNSET,
        "out_rate": UNSET,
        "scale": UNSET,
        "out_length": UNSET,
        "quality": 50.0,
        "dtype": UNSET,
    }
    assert {k: schema.args[k].default for k in expected} == expected
    assert {k for k, a in schema.args.items() if a.tensor} == {
        "in_rate",
        "out_rate",
        "scale",
        "out_length",
    }
    assert schema.devices == ("cpu", "gpu")


@pytest.mark.parametrize(
    "kw, lengths",
    [
        ({"in_rate": 44100.0, "out_rate": 16000.0}, [363, 1, 0]),
        ({"scale": 2.5}, [2500, 3, 0]),
        ({"out_length": 77}, None),
        ({"scale": 0.0}, [0, 0, 0]),
        ({"in_rate": 1.0, "out_rate": 0.0}, [0, 0, 0]),
    ],
)
def test_output_lengths(kw, lengths):
    xs = [RNG.random(1000).astype(np.float32), np.ones(1, np.float32), np.zeros(0, np.float32)]
    if "out_length" in kw:
        xs = xs[:2]
        lengths = [77, 77]
    out = _resample(xs, **kw)
    assert [s.shape[0] for s in out.samples()] == lengths


def test_values_equal_the_kernel_and_layout_is_kept():
    x = RNG.random((500, 2)).astype(np.float32) - 0.5
    out = _resample([x], layout="TC", in_rate=16000.0, out_rate=22050.0, quality=25.0)
    assert out.layout() == "TC" and out.dtype == types.FLOAT
    n = R.resampled_length(500, 16000, 22050)
    ref = R.resample_numpy(x, 16000.0, 22050.0, n, R.window_for_quality(25))
    np.testing.assert_array_equal(out.at(0), ref)


def test_rates_are_read_as_float32():
    # DALI's in_rate/out_rate/scale are float arguments: 0.1 is float32(0.1) as a double, so
    # 1000 samples give ceil(100.0000015) = 101
    x = RNG.random(1000).astype(np.float32)
    out = _resample([x], scale=0.1)
    assert out.at(0).shape == (101,)
    ref = R.resample_numpy(x, 1.0, float(np.float32(0.1)), 101, R.window_for_quality(50))
    np.testing.assert_array_equal(out.at(0), ref)


def test_per_sample_arguments():
    xs = [RNG.random(n).astype(np.float32) for n in (400, 300, 200)]

    def build():
        src = fn.external_source(lambda: xs)
        ins = fn.external_source(lambda: [np.float32(r) for r in (16000, 8000, 3)])
        outs = fn.external_source(lambda: [np.float32(r) for r in (8000, 16000, 7)])
        lens = fn.external_source(lambda: [np.int64(m) for m in (5, 0, 333)])
        scales = fn.external_source(lambda: [np.float32(s) for s in (0.5, 1.0, 2.0)])
        return (
            fn.audio_resample(src, in_rate=ins, out_rate=outs),
            fn.audio_resample(src, out_length=lens),
            fn.audio_resample(src, scale=scales),
        )

    a, b, c = _run(build, batch_size=3)
    assert [s.shape[0] for s in a.samples()] == [200, 600, math.ceil(200 * 7 / 3)]
    assert [s.shape[0] for s in b.samples()] == [5, 0, 333]
    assert [s.shape[0] for s in c.samples()] == [200, 300, 400]
    w = R.window_for_quality(50)
    np.testing.assert_array_equal(b.at(2), R.resample_numpy(xs[2], 200.0, 333.0, 333, w))


@pytest.mark.parametrize(
    "src, dst",
    [
        (np.float32, np.int16),
        (np.float32, np.uint8),
        (np.int16, np.float32),
        (np.uint8, np.int16),
        (np.int16, np.uint8),
        (np.uint16, np.int32),
        (np.int32, np.uint32),
        (np.int8, np.int8),
    ],
)
def test_types_are_normalised_and_converted(src, dst):
    t = np.arange(600)
    if np.dtype(src).kind == "f":
        x = (0.9 * np.sin(t * 0.05)).astype(src)
    else:
        info = np.iinfo(src)
        x = np.round((info.max + info.min) / 2 + 0.45 * (info.max - info.min) * np.sin(t * 0.05))
        x = x.astype(src)
    out = _resample([x], scale=1.3, dtype=types.to_dali_type(dst))
    assert out.at(0).dtype == dst
    w = R.window_for_quality(50)
    f = R.resample_numpy(R.normalize_input(x, np.dtype(dst)), 1.0, float(np.float32(1.3)), 780, w)
    np.testing.assert_array_equal(out.at(0), R.to_output(f, np.dtype(dst)))
    # a slow sine keeps its shape: compare in [-1, 1] units (unsigned types centred) against
    # the float64 reference
    ref = _sinc_reference(R.normalize_input(x, np.dtype(np.float32)), 1, 1.3, 780, w.lobes)[:, 0]
    if np.dtype(dst).kind == "f":
        got = out.at(0).astype(np.float64)
    else:
        info = np.iinfo(dst)
        got = out.at(0).astype(np.float64) / info.max
        if info.min == 0:
            got = got * 2 - 1
    np.testing.assert_allclose(got[20:-20], ref[20:-20], atol=0.02)


def test_experimental_alias_warns_and_works():
    x = RNG.random(100).astype(np.float32)
    with pytest.warns(DeprecationWarning, match="audio_resample"):
        (out,) = _run(
            lambda: fn.experimental.audio_resample(fn.external_source(lambda: [x]), scale=2.0)
        )
    assert out.at(0).shape == (200,)


@pytest.mark.parametrize(
    "kw, text",
    [
        ({}, "No resampling factor specified"),
        ({"in_rate": 1.0}, "must be specified together"),
        ({"out_rate": 1.0}, "must be specified together"),
        ({"scale": 1.0, "out_length": 3}, "cannot be used together"),
        ({"scale": 1.0, "quality": -1.0}, r"``quality`` out of range: -1"),
        ({"scale": 1.0, "quality": 100.5}, "out of range"),
        ({"scale": 1.0, "dtype": types.FLOAT64}, "Unsupported output type: double"),
        ({"scale": 1.0, "dtype": types.INT64}, "Unsupported output type: int64"),
    ],
)
def test_build_errors(kw, text):
    with pytest.raises(Exception, match=text) as info:
        _resample([np.zeros(10, np.float32)], **kw)
    assert "audio_resample" in str(info.value)


@pytest.mark.parametrize(
    "x, kw, text",
    [
        (np.zeros(10, np.float64), {"scale": 2.0}, "Unsupported input type: double"),
        (np.zeros(10, np.int64), {"scale": 2.0}, "Unsupported input type: int64"),
        (np.zeros((2, 3, 4), np.float32), {"scale": 2.0}, "only time series data"),
        (np.zeros((), np.float32), {"scale": 2.0}, "only time series data"),
        (np.zeros(10, np.float32), {"in_rate": 0.0, "out_rate": 1.0}, "must be positive"),
        (np.zeros(10, np.float32), {"in_rate": math.nan, "out_rate": 1.0}, "in_rate == nan"),
        (np.zeros(10, np.float32), {"in_rate": 1.0, "out_rate": -1.0}, "non-negative"),
        (np.zeros(10, np.float32), {"scale": -2.0}, "scale == -2"),
        (np.zeros(0, np.float32), {"out_length": 4}, "non-empty signal from an empty input"),
    ],
)
def test_run_errors(x, kw, text):
    with pytest.raises(Exception, match=text):
        _resample([x], **kw)


def test_per_sample_error_names_the_sample():
    def build():
        src = fn.external_source(lambda: [np.zeros(5, np.float32)] * 3)
        scales = fn.external_source(lambda: [np.float32(s) for s in (1.0, -1.0, 2.0)])
        return fn.audio_resample(src, scale=scales)

    with pytest.raises(Exception, match="scale == -1 for sample 1"):
        _run(build, batch_size=3)


def test_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [np.zeros((5, 2), np.int16)], dtype=types.INT16, ndim=2)
        out = fn.audio_resample(src, scale=2.0, dtype=types.FLOAT)
        assert out.dtype == types.FLOAT and out.ndim == 2
        pipe.set_outputs(out)
    assert pipe.run()[0].at(0).shape == (10, 2)


# -- GPU ----------------------------------------------------------------------------------------

#: the parity bodies run twice (CPU, GPU): their data is made once, here. Speech-like signals
#: (`audio_signal`: tones under an envelope, a little noise) as in DALI's own tests.
_GPU_RNG = np.random.default_rng(11)
_NOISE = [audio_signal(3000, seed=1)[:, 0], audio_signal(17, seed=2)[:, 0], np.zeros(0, np.float32)]
_NOISE_CH = [audio_signal(2000, channels=c, seed=c) for c in (2, 20, 1)]
_WHITE = [_GPU_RNG.standard_normal(4000).astype(np.float32) * 0.3]
_LEVELS = audio_signal(1500, seed=4)[:, 0]


def _gpu_body(device, samples, layout=None, **kw):
    @dali.pipeline_def(batch_size=len(samples), num_threads=1, device_id=device_id(device))
    def pipe():
        src = fn.external_source(lambda: samples, layout=layout)
        return fn.audio_resample(to_device(src, device), **kw)

    return pipe().run()


# CPU and GPU place the taps with float32 positions rounded differently (the CPU accumulates
# the ratio along a block of 256 outputs, the GPU multiplies it by the thread index, as in
# DALI), so the weights differ by ~1e-5 relative: DALI's own GPU/CPU tests allow 1e-4 on sine
# waves; these speech-like signals differ by up to 1.1e-4 (H200, 44.1 -> 16 kHz).
@cpu_gpu(atol=2e-4)
@pytest.mark.parametrize(
    "kw",
    [
        {"in_rate": 44100.0, "out_rate": 16000.0},
        {"scale": 3.3, "quality": 0.0},
        {"out_length": 1000, "quality": 100.0},
    ],
)
def test_gpu_matches_cpu_float(kw, device):
    samples = list(_NOISE)
    if "out_length" in kw:
        samples = samples[:2]
    return _gpu_body(device, samples, **kw)


@cpu_gpu(atol=2e-4)
def test_gpu_matches_cpu_channels(device):
    return _gpu_body(device, _NOISE_CH, layout="TC", scale=0.61)


@cpu_gpu(atol=2e-3)  # white noise: every weight's error counts, none averages out
def test_gpu_matches_cpu_white_noise(device):
    return _gpu_body(device, _WHITE, in_rate=44100.0, out_rate=16000.0)


@cpu_gpu(atol=2)  # 1e-4 of the range, and halves: the GPU rounds to even, the CPU away from 0
@pytest.mark.parametrize(
    "src, dst", [(np.int16, types.INT16), (np.float32, types.UINT8), (np.uint8, types.INT16)]
)
def test_gpu_matches_cpu_integers(src, dst, device):
    x = _LEVELS
    if np.dtype(src).kind != "f":
        info = np.iinfo(src)
        x = np.round((x + 0.5) * (info.max - info.min) + info.min).astype(src)
    return _gpu_body(device, [x, x[:700]], scale=0.8, dtype=dst)


# -- DALI's dynamic-range tests (test_audio_resample.py), on both backends ---------------------

_DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _convert(device, src, in_values, dst, out_values, eps):
    if device == "gpu":
        pytest.importorskip("cupy")
    in_data = [np.full((100 + 10 * i,), x, src) for i, x in enumerate(in_values)]
    out = _gpu_body(device, in_data, dtype=types.to_dali_type(dst), scale=1.0, quality=0.0)[0]
    out = out.as_cpu() if hasattr(out, "as_cpu") else out
    for i, v in enumerate(out_values):
        got = np.asarray(out.at(i))
        assert got.dtype == dst
        np.testing.assert_allclose(
            got.astype(np.float64), np.full(got.shape, v), rtol=1e-6, atol=eps
        )


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize(
    "dtype, values, eps",
    [
        (
            np.float32,
            [-1.0e30, -1 - 1.0e-6, -1, -0.5, -1.0e-30, 0, 1.0e-30, 0.5, 1, 1 + 1e-6, 1e30],
            0,
        ),
        (np.uint8, [0, 1, 128, 254, 255], 0),
        (np.int8, [-128, -127, -1, 0, 1, 127], 0),
        (np.uint16, [0, 1, 32767, 32768, 65534, 65535], 0),
        (np.int16, [-32768, -32767, -100, -1, 0, 1, 100, 32767], 0),
        (np.uint32, [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF], 128),
        (np.int32, [-0x80000000, -0x7FFFFFFF, -100, -1, 0, 1, 0x7FFFFFFF], 128),
    ],
)
def test_dynamic_ranges(device, dtype, values, eps):
    _convert(device, dtype, values, dtype, values, eps)


_RANGES = [
    (np.float32, (-1, 1)),
    (np.uint8, (0, 255)),
    (np.int8, (-127, 127)),
    (np.uint16, (0, 65535)),
    (np.int16, (-32767, 32767)),
    (np.int32, (-0x7FFFFFFF, 0x7FFFFFFF)),
    (np.uint32, (0, 0xFFFFFFFF)),
]


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("src, src_range", _RANGES)
@pytest.mark.parametrize("dst, dst_range", _RANGES)
def test_type_conversion(device, src, src_range, dst, dst_range):
    i_lo, i_hi = src_range
    o_lo, o_hi = dst_range
    if i_lo == -i_hi:
        in_values = [i_lo, 0, i_hi]
        out_values = [o_lo, (o_hi + o_lo + 1) / 2, o_hi] if o_lo != -o_hi else [o_lo, 0, o_hi]
    else:
        in_values = [i_lo, (i_lo + i_hi) // 2, (i_lo + i_hi + 1) // 2, i_hi]
        out_values = [
            o_lo,
            o_lo + (o_hi - o_lo) * in_values[1] / (i_hi - i_lo),
            o_lo + (o_hi - o_lo) * in_values[2] / (i_hi - i_lo),
            o_hi,
        ]
    if np.dtype(dst).kind != "f":
        out_values = [int(v) for v in out_values]
    eps = (o_hi - o_lo) / 2**24 + (i_hi - i_lo) / 2**24
    if eps < 1 and (o_lo != -o_hi or (i_hi != i_lo and np.dtype(dst).kind != "f")):
        eps = 1  # the result is halfway: one unit either way
    _convert(device, src, in_values, dst, out_values, eps)
