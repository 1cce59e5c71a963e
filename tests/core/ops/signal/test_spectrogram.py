"""fn.spectrogram: values against an independent float64 STFT (DALI's Hann window, centred and
not centred windows, reflect and zero padding, nfft > window_length, power 1 and 2, custom
windows), window counts, layouts, degenerate input shapes, errors, CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.signal._windows import frame_indices, hann_window, num_windows
from parity import cpu_gpu, device_id, to_device

RATE = 16000


def _tone(n, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / RATE
    x = np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3000 * t)
    return (x + 0.05 * rng.standard_normal(n)).astype(np.float32)


SIGS = [_tone(4000, 1), _tone(1234, 2), _tone(300, 3)]


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _spec(samples, **kw):
    (out,) = _run(
        lambda: fn.spectrogram(fn.external_source(lambda: samples), **kw),
        batch_size=len(samples),
    )
    return out


def _samples(tl):
    tl = tl.as_cpu() if hasattr(tl, "as_cpu") else tl
    return [np.asarray(s) for s in tl.samples()]


def _reference(x, nfft, wl, step, *, center=True, reflect=True, power=2, window=None):
    """A float64 STFT written from the definition (no code shared with the operator)."""
    x = np.asarray(x, np.float64).reshape(-1)
    n = len(x)
    if window is None:
        window = np.array([0.5 * (1 - math.cos(2 * math.pi * (t + 0.5) / wl)) for t in range(wl)])
    if center:
        pad = wl // 2
        if reflect:
            ext = np.pad(x, (pad, wl), mode="reflect") if n > 1 else np.full(n + pad + wl, x[0])
        else:
            ext = np.pad(x, (pad, wl))
        count = n // step + 1
    else:
        ext = np.pad(x, (0, wl))
        count = int((n - wl) / step) + 1
    frames = np.stack([ext[w * step : w * step + wl] * window for w in range(count)])
    spec = np.fft.rfft(frames, n=nfft, axis=1)
    out = np.abs(spec) ** 2 if power == 2 else np.abs(spec)
    return out.T  # ft


def _close(actual, expected, rel=2e-6):
    """Within ``rel`` of the largest value (the FFT's float32 rounding)."""
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, atol=rel * float(np.abs(expected).max()), rtol=0)


def test_hann_window_is_dalis_periodic_half_shifted_window():
    w = hann_window(8)
    ref = 0.5 * (1 - np.cos(2 * np.pi * (np.arange(8) + 0.5) / 8))
    np.testing.assert_allclose(w, ref, rtol=1e-7)
    assert w.dtype == np.float32
    assert not np.allclose(w, np.hanning(8))


def test_window_counts():
    assert num_windows(1000, 512, 256, centered=True) == 4
    assert num_windows(1000, 512, 256, centered=False) == 2
    assert num_windows(1000, 1010, 20, centered=False) == 1  # C truncation: (-10) / 20 == 0
    assert num_windows(1000, 1030, 20, centered=False) == 0
    idx, outside = frame_indices(5, 4, 2, centered=True, reflect=False)
    assert idx.shape == (3, 4) and outside is not None and outside[0].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize(
    "kw",
    [
        {"nfft": 256, "window_length": 256, "window_step": 128},
        {"nfft": 512, "window_length": 400, "window_step": 160},
        {"nfft": 100, "window_length": 100, "window_step": 33, "center_windows": False},
        {"nfft": 64, "window_length": 64, "window_step": 20, "reflect_padding": False},
        {"nfft": 300, "window_length": 120, "window_step": 50, "power": 1},
    ],
)
def test_matches_reference(kw):
    out = _spec(SIGS, **kw)
    assert out.layout() == "ft" and out.dtype == types.FLOAT
    for x, y in zip(SIGS, _samples(out)):
        ref = _reference(
            x,
            kw["nfft"],
            kw["window_length"],
            kw["window_step"],
            center=kw.get("center_windows", True),
            reflect=kw.get("reflect_padding", True),
            power=kw.get("power", 2),
        )
        _close(y, ref)


def test_defaults_and_time_major_layout():
    x = _tone(3000)
    ft = _samples(_spec([x]))[0]
    assert ft.shape == (257, 3000 // 256 + 1)
    tf_out = _spec([x], layout="tf")
    assert tf_out.layout() == "tf"
    np.testing.assert_array_equal(_samples(tf_out)[0], ft.T)
    _close(ft, _reference(x, 512, 512, 256))


def test_nfft_defaults_to_window_length():
    y = _samples(_spec([SIGS[0]], window_length=100, window_step=50))[0]
    assert y.shape == (51, 4000 // 50 + 1)


def test_custom_window():
    win = np.kaiser(32, 5).astype(np.float32)
    y = _samples(_spec([SIGS[1]], window_length=32, window_step=16, window_fn=win.tolist()))[0]
    _close(y, _reference(SIGS[1], 32, 32, 16, window=win.astype(np.float64)))


def test_windows_wider_than_the_signal():
    short = SIGS[2][:100].copy()
    y = _samples(_spec([short], window_length=256, window_step=64))[0]
    _close(y, _reference(short, 256, 256, 64))
    y = _samples(_spec([short], window_length=256, window_step=64, reflect_padding=False))[0]
    _close(y, _reference(short, 256, 256, 64, reflect=False))
    # not centred: a signal shorter than the window by less than a step still gives a window
    y = _samples(_spec([short], window_length=110, window_step=20, center_windows=False))[0]
    assert y.shape == (56, 1)
    _close(y, _reference(short, 110, 110, 20, center=False))


def test_one_sample_signal_reflects_to_itself():
    y = _samples(_spec([np.array([2.0], np.float32)], window_length=4, window_step=2))[0]
    assert y.shape == (3, 1)
    win = hann_window(4).astype(np.float64)
    np.testing.assert_allclose(y[:, 0], np.abs(np.fft.rfft(2.0 * win)) ** 2, rtol=1e-6)


@pytest.mark.parametrize("shape", [(1, 500), (500, 1), (1, 1, 500, 1)])
def test_degenerate_dimensions_are_accepted(shape):
    x = _tone(500).reshape(shape)
    y = _samples(_spec([x], window_length=64, window_step=32))[0]
    _close(y, _reference(x, 64, 64, 32))


def test_ragged_batch_shapes():
    out = _spec(SIGS, window_length=64, window_step=32, layout="tf")
    assert [s.shape for s in _samples(out)] == [(126, 33), (39, 33), (10, 33)]


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"nfft": 20, "window_length": 30}, r"Window length \(30\) can't be bigger than the FFT"),
        ({"power": 3}, "`power` can be only 1 .energy. or 2 .power., received 3"),
        ({"layout": "xy"}, "Unexpected layout: xy"),
        ({"window_length": 0}, "Invalid window length: 0"),
        ({"window_step": 0}, "Invalid window step: 0"),
        ({"window_fn": [1.0, 2.0], "window_length": 3}, "Window function should match"),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text):
        _spec(SIGS, **kw)


@pytest.mark.parametrize(
    ("sample", "kw", "text"),
    [
        (np.zeros((3, 4), np.float32), {}, "all but one dimensions must be degenerate"),
        (np.zeros(0, np.float32), {}, r"does not support empty \(0-volume\) samples"),
        (np.zeros(10, np.float32), {"center_windows": False}, r"Signal is too short \(10\)"),
        (np.zeros(400, np.float64), {}, "Unsupported input type: double"),
        (np.zeros(400, np.int16), {}, "Unsupported input type: int16"),
    ],
)
def test_input_errors(sample, kw, text):
    with pytest.raises(Exception, match=text):
        _spec([sample], **kw)


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [SIGS[0]])
        y = fn.spectrogram(x, nfft=100, window_length=80, layout="tf")
        assert y.dtype == types.FLOAT
        assert (y.layout, y.ndim, y.static_shape) == ("tf", 2, (None, 51))
        pipe.set_outputs(y)


COMPILED = {
    "jasper": {"nfft": 512, "window_length": 320, "window_step": 160},
    "tf_power1": {"window_length": 100, "window_step": 40, "layout": "tf", "power": 1},
    "zero_padding": {"nfft": 64, "window_length": 50, "window_step": 7, "reflect_padding": False},
    "not_centred": {"window_length": 33, "window_step": 100, "center_windows": False},
    "wider_than_signals": {"nfft": 40, "window_length": 31, "window_step": 3},
    "custom_window": {"window_length": 16, "window_step": 5, "window_fn": list(-np.arange(16.0))},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(COMPILED))
@pytest.mark.parametrize("same_lengths", [False, True])
def test_compiled_path_gives_the_numpy_paths_values(monkeypatch, case, same_lengths):
    pytest.importorskip("numba")
    from dali._ops.signal import spectrogram as module

    rng = np.random.default_rng(3)
    lengths = [700] * 4 if same_lengths else [2500, 1, 40, 6001]
    batch = [
        (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4)).astype(np.float32) for n in lengths
    ]
    compiled = _samples(_spec(batch, **COMPILED[case]))
    monkeypatch.setattr(module, "stft_numba_available", lambda: False)
    reference = _samples(_spec(batch, **COMPILED[case]))
    for a, b in zip(compiled, reference):
        assert a.shape == b.shape and a.tobytes() == b.tobytes()


PARITY = {
    "default": {},
    "tf_power1": {"window_length": 100, "window_step": 40, "layout": "tf", "power": 1},
    "nfft_zero_pad": {"nfft": 512, "window_length": 300, "window_step": 128,
                      "reflect_padding": False},
    "not_centred": {"window_length": 256, "window_step": 100, "center_windows": False},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(PARITY))
@cpu_gpu(atol=0.05)  # numpy's FFT and cuFFT round differently: ~1e-6 of the largest bin (~10^4)
def test_gpu_matches_cpu(case, device):
    batch = [SIGS[0], SIGS[1], SIGS[2].reshape(1, -1)[:, :300].reshape(-1)]
    return _run(
        lambda: fn.spectrogram(to_device(fn.external_source(lambda: batch), device),
                               **PARITY[case]),
        batch_size=3,
        device_id=device_id(device),
    )  # fmt: skip
