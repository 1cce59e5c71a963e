"""fn.nonsilent_region: regions against a float64 reference of the definition (trailing
windows, threshold relative to the maximum or a given power, the start moved back by the
window), DALI's own test signals, the float32 moving sum against a sequential loop, every
input type, reset intervals, errors, CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._ops.audio.nonsilent_region import moving_mean_square, nonsilent_region
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(21)


def _burst(n, a, b, amp=0.5, noise=1e-4, seed=0):
    rng = np.random.default_rng(seed)
    x = noise * rng.standard_normal(n)
    x[a:b] += amp * np.sin(np.arange(b - a) * 0.07)
    return x.astype(np.float32)


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _regions(samples, **kw):
    begin, length = _run(
        lambda: tuple(fn.nonsilent_region(fn.external_source(lambda: samples), **kw)),
        batch_size=len(samples),
    )
    b = [int(np.asarray(s)) for s in begin.as_cpu().samples()]
    n = [int(np.asarray(s)) for s in length.as_cpu().samples()]
    return list(zip(b, n)), begin, length


def _reference(x, cutoff_db=-60.0, window=2048, reference=None):
    """The definition in float64: trailing windows, loud where 10 log10(mms / ref) >= cutoff."""
    x = np.asarray(x, np.float64)
    w = min(window, len(x))
    cs = np.concatenate([[0.0], np.cumsum(x * x)])
    ends = np.arange(len(x))
    mms = (cs[ends + 1] - cs[np.maximum(ends + 1 - w, 0)]) / w
    ref = mms.max() if reference is None else reference
    loud = np.flatnonzero(mms >= ref * 10 ** (cutoff_db / 10))
    if not len(loud):
        return 0, 0
    begin, end = int(loud[0]), int(loud[-1])
    start = max(begin - (w - 1), 0) if begin else 0
    return start, end - start + 1


def test_dalis_own_test_signals():
    spike = np.zeros(21, np.int16)
    spike[10] = 3000
    assert _regions([spike], window_length=1, cutoff_db=-80.0, reset_interval=-1)[0] == [(10, 1)]
    block = spike.copy()
    block[10:15] = 3000
    assert _regions([block], window_length=1, cutoff_db=-10.0)[0] == [(10, 5)]
    assert _regions([block], window_length=5, cutoff_db=-10.0)[0] == [(6, 13)]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"cutoff_db": -20.0},
        # (at -60 dB the float32 running sum's residue after a loud stretch stays "loud" until
        # the next reset, in DALI as here: a float64 reference cannot follow that)
        {"window_length": 256, "reset_interval": 1024, "cutoff_db": -30.0},
        {"window_length": 100, "reset_interval": -1, "cutoff_db": -40.0},
        {"reference_power": 0.01, "cutoff_db": -10.0},
    ],
)
def test_matches_reference(kw):
    xs = [_burst(20000, 5000, 12000, seed=1), _burst(5000, 0, 3000, seed=2), _burst(900, 300, 350)]
    got, begin, length = _regions(xs, **kw)
    assert begin.dtype == types.INT32 and length.dtype == types.INT32
    assert all(np.asarray(s).shape == () for s in begin.samples())
    ref_kw = {"cutoff_db": kw.get("cutoff_db", -60.0), "window": kw.get("window_length", 2048)}
    if "reference_power" in kw:
        ref_kw["reference"] = kw["reference_power"]
    assert got == [_reference(x, **ref_kw) for x in xs]


def test_silent_and_loud_from_the_start():
    silent = np.zeros(1000, np.float32)
    loud = np.ones(500, np.float32)
    got, _, _ = _regions([silent, loud], window_length=64, reference_power=1.0, cutoff_db=-10.0)
    assert got == [(0, 0), (0, 500)]


def test_window_longer_than_the_signal_is_clamped():
    x = _burst(300, 100, 200)
    got, _, _ = _regions([x], window_length=4096, reset_interval=-1)
    assert got == [_reference(x, window=4096)]


def _sequential_mms(x, w, reset):
    """DALI's loop, one value at a time, in float32 (the operator vectorises it)."""
    sq = x.astype(np.float32) ** 2
    n = len(x)
    step = reset if reset != -1 else n
    mean = np.float32(1) / np.float32(w)
    out = np.empty(n, np.float32)
    for start in range(0, n, step):
        s = np.float32(0)
        for q in range(max(start - w + 1, 0), start + 1):
            s = np.float32(s + sq[q])
        out[start] = s * mean
        for p in range(start + 1, min(start + step, n)):
            if p >= w:
                s = np.float32(s - sq[p - w])
            s = np.float32(s + sq[p])
            out[p] = s * mean
    return out


@pytest.mark.parametrize(("w", "reset"), [(16, 64), (16, -1), (7, 7), (1, -1), (50, 100)])
def test_moving_mean_square_is_dalis_float32_loop(w, reset):
    x = (RNG.standard_normal(700) * np.linspace(0.01, 3, 700)).astype(np.float32)
    np.testing.assert_array_equal(moving_mean_square(x, w, reset), _sequential_mms(x, w, reset))


def test_moving_mean_square_of_small_integers_is_exact():
    x = RNG.integers(-32768, 32767, 5000).astype(np.int16)
    got = moving_mean_square(x, 100, 8192)
    sq = x.astype(np.int64) ** 2
    cs = np.concatenate([[0], np.cumsum(sq)])
    sums = cs[np.arange(5000) + 1] - cs[np.maximum(np.arange(5000) + 1 - 100, 0)]
    np.testing.assert_array_equal(got, sums.astype(np.float32) * (np.float32(1) / np.float32(100)))


@pytest.mark.parametrize(
    "dtype", [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64]
)
def test_integer_inputs(dtype):
    x = _burst(8000, 2000, 5000, amp=0.9)
    info = np.iinfo(dtype)
    full = min(float(info.max), 2e15)  # 64-bit squares summed in float32 would overflow
    scaled = x * (full / 2) + (full / 2 if info.min == 0 else 0)
    xi = np.clip(np.round(scaled), info.min, info.max).astype(dtype)
    got, _, _ = _regions([xi], window_length=256, cutoff_db=-20.0)
    assert got == [_reference(xi, window=256, cutoff_db=-20.0)]


def test_integers_ignore_reset_interval():
    x = (np.ones(100) * 1000).astype(np.int16)
    assert _regions([x], window_length=10, reset_interval=33)[0] == [(0, 100)]


def test_empty_signal_is_silent():
    assert _regions([np.zeros(0, np.float32)], window_length=8, reset_interval=-1)[0] == [(0, 0)]


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"reference_power": 0.0}, "`reference_power` has to be positive. Got: 0"),
        ({"reference_power": -1.0}, "`reference_power` has to be positive. Got: -1"),
        ({"reset_interval": 3000}, "`reset_interval` shall be a multiple of `window_length`"),
        ({"window_length": 0}, "`window_length` must be positive"),
        ({"reset_interval": 0}, "`reset_interval` must be positive or -1"),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text):
        _regions([_burst(1000, 100, 200)], **kw)


@pytest.mark.parametrize(
    ("sample", "text"),
    [
        (np.zeros(10, np.float64), "Unsupported input type: double"),
        (np.zeros(10, bool), "Unsupported input type: bool"),
        (np.zeros((3, 2), np.float32), r"Input with dimension \(2\) cannot be converted"),
    ],
)
def test_input_errors(sample, text):
    with pytest.raises(Exception, match=text):
        _regions([sample])


PARITY = {
    "float_reset": (np.float32, {"window_length": 256, "reset_interval": 1024, "cutoff_db": -80.0}),
    "float_no_reset": (
        np.float32,
        {"window_length": 100, "reset_interval": -1, "cutoff_db": -90.0},
    ),
    "int16": (np.int16, {"window_length": 512}),
    "int32": (np.int32, {"window_length": 64, "cutoff_db": -30.0}),
    "reference": (np.float32, {"reference_power": 0.05, "window_length": 128}),
}


@pytest.mark.parametrize("case", sorted(PARITY))
@cpu_gpu()  # the same float32 running sums: bit-exact
def test_gpu_matches_cpu(case, device):
    dtype, kw = PARITY[case]
    xs = [_burst(30000, 7000, 20000, seed=4), _burst(4000, 0, 1000, seed=5), _burst(300, 1, 2)]
    xs.append(np.zeros(0, np.float32))
    if dtype is not np.float32:
        xs = [(x * 2e4 if dtype is np.int16 else x * 2e9).astype(dtype) for x in xs]
    return _run(
        lambda: tuple(fn.nonsilent_region(to_device(fn.external_source(lambda: xs), device), **kw)),
        batch_size=len(xs),
        device_id=device_id(device),
    )


@pytest.mark.parametrize(("w", "reset"), [(2048, 8192), (256, -1), (100, 300), (5, 5)])
def test_compiled_and_numpy_moving_sums_agree(w, reset):
    pytest.importorskip("numba")
    x = (RNG.standard_normal(9000) * np.linspace(0.001, 2, 9000)).astype(np.float32)
    np.testing.assert_array_equal(
        moving_mean_square(x, w, reset, use_numba=True),
        moving_mean_square(x, w, reset, use_numba=False),
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint64, np.int16])
def test_compiled_and_numpy_regions_agree(dtype):
    pytest.importorskip("numba")
    g = np.random.default_rng(7)
    for trial in range(150):
        n = int(g.integers(0, 3000))
        if dtype is np.float32:
            x = (g.standard_normal(n) * 10.0 ** g.uniform(-20, 20)).astype(np.float32)
            if n and trial % 7 == 0:
                x[g.integers(0, n)] = np.nan if trial % 2 else np.inf
        else:
            x = g.integers(-(2**30) if dtype is not np.uint64 else 0, 2**30, n).astype(dtype)
            if dtype is np.int16:
                x = (x >> 16).astype(np.int16)
        if n and trial % 3 == 0:  # silent ends
            a = int(g.integers(0, n))
            x[:a] = 0
            x[int(g.integers(a, n + 1)) :] = 0
        w = int(g.integers(1, 300))
        reset = int(g.choice([-1, w, 3 * w]))
        cutoff = float(g.choice([-60.0, -10.0, 0.0, 2.0]))
        reference = None if trial % 4 else float(np.float32(10.0 ** g.uniform(-5, 5)))
        args = (x, cutoff, w, reference, reset)
        assert nonsilent_region(*args, use_numba=True) == nonsilent_region(*args, use_numba=False)
