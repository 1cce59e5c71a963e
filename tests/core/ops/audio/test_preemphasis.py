"""fn.preemphasis_filter: values against a numpy reference (every border, per-sample
coefficients, output types, DALI's direct conversion for a zero coefficient), shapes and
layouts, edge cases, errors, CPU/GPU parity."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)
SIG = [RNG.normal(0, 0.5, n).astype(np.float32) for n in (1000, 37, 2)]


def _run(build, *, batch_size, device_id=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _samples(tl):
    tl = tl.as_cpu() if hasattr(tl, "as_cpu") else tl
    return [np.asarray(s) for s in tl.samples()]


def _filter(samples, layout=None, **kw):
    (out,) = _run(
        lambda: fn.preemphasis_filter(fn.external_source(lambda: samples, layout=layout), **kw),
        batch_size=len(samples),
    )
    return out


def _reference(x, coeff, border):
    """Y[t] = X[t] - coeff * X[t-1] in float32, X[-1] by the border rule."""
    x = np.asarray(x, np.float32).reshape(-1)
    c = np.float32(coeff)
    prev = np.empty_like(x)
    prev[1:] = x[:-1]
    if len(x):
        prev[0] = {"zero": 0, "clamp": x[0], "reflect": x[1] if len(x) > 1 else x[0]}[border]
    return x - c * prev


@pytest.mark.parametrize("border", ["clamp", "zero", "reflect"])
def test_float_signals_match_reference(border):
    out = _filter(SIG, border=border)
    assert out.dtype == types.FLOAT
    for x, y in zip(SIG, _samples(out)):
        np.testing.assert_array_equal(y, _reference(x, 0.97, border))


def test_default_is_clamp_with_097():
    y = _samples(_filter([np.array([1, 2, 4], np.float32)]))[0]
    np.testing.assert_array_equal(
        y, np.float32([1, 2, 4]) - np.float32(0.97) * np.float32([1, 1, 2])
    )


def test_per_sample_coefficients():
    coeffs = [np.float32(0.5), np.float32(0.0), np.float32(-1.25)]

    def build():
        x = fn.external_source(lambda: SIG)
        c = fn.external_source(lambda: coeffs)
        return fn.preemphasis_filter(x, preemph_coeff=c, border="zero")

    (out,) = _run(build, batch_size=3)
    for x, c, y in zip(SIG, coeffs, _samples(out)):
        np.testing.assert_array_equal(y, _reference(x, c, "zero"))


def test_integer_output_rounds_half_away_and_saturates():
    x = np.array([10, 20, 30, 200, -100], np.int32)
    y = _samples(_filter([x], preemph_coeff=0.5, border="zero", dtype=types.INT8))[0]
    # 10, 20 - 5, 30 - 10, 200 - 15, -100 - 100 -> 10, 15, 20, 185 -> 127, -200 -> -128
    assert y.dtype == np.int8
    assert y.tolist() == [10, 15, 20, 127, -128]
    halves = np.array([1, 3, 5], np.int16)
    y = _samples(_filter([halves], preemph_coeff=0.5, border="zero", dtype=types.INT16))[0]
    assert y.tolist() == [1, 3, 4]  # 3 - 0.5 = 2.5 -> 3; 5 - 1.5 = 3.5 -> 4


def test_zero_coefficient_converts_directly():
    # 16777217 is not a float32: a float32 round trip would give 16777216
    x = np.array([16777217, 3, -5], np.int32)
    y = _samples(_filter([x], preemph_coeff=0.0, dtype=types.INT32))[0]
    assert y.tolist() == [16777217, 3, -5]
    y = _samples(_filter([x], preemph_coeff=0.0, border="zero", dtype=types.INT32))[0]
    assert y.tolist() == [16777217, 3, -5]


def test_zero_border_keeps_the_first_value_exactly():
    x = np.array([16777217, 0], np.int64)
    y = _samples(_filter([x], border="zero", dtype=types.INT64))[0]
    assert y[0] == 16777217


def test_double_input_computes_in_double():
    x = np.array([0.1, 0.2, 0.3], np.float64)
    y = _samples(_filter([x], dtype=types.FLOAT64, border="zero", preemph_coeff=0.3))[0]
    c = np.float64(np.float32(0.3))
    np.testing.assert_array_equal(y, [0.1, 0.2 - c * 0.1, 0.3 - c * 0.2])


def test_unsigned_input_and_output():
    x = np.array([0, 255, 10], np.uint8)
    y = _samples(_filter([x], dtype=types.UINT8, border="clamp", preemph_coeff=1.0))[0]
    assert y.tolist() == [0, 255, 0]  # 0, 255, 10 - 255 -> saturates at 0


def test_nd_samples_are_filtered_flat_and_keep_layout():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = _filter([x], layout="ab", border="zero", preemph_coeff=1.0)
    assert out.layout() == "ab"
    y = _samples(out)[0]
    assert y.shape == (3, 4)
    assert y.reshape(-1).tolist() == [0.0] + [1.0] * 11


def test_edge_lengths():
    out = _filter([np.zeros(0, np.float32), np.array([2.0], np.float32)], border="reflect")
    empty, one = _samples(out)
    assert empty.shape == (0,)
    # a one-sample signal has no X[1]: X[0] is the border value
    np.testing.assert_array_equal(one, np.float32([2.0]) - np.float32(0.97) * np.float32(2.0))


def test_uniform_batch_and_empty_batch():
    batch = [SIG[0][:10].copy(), SIG[0][10:20].copy()]
    out = _filter(batch, border="reflect")
    for x, y in zip(batch, _samples(out)):
        np.testing.assert_array_equal(y, _reference(x, 0.97, "reflect"))


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"border": "foo"}, '``border`` mode "foo" is not supported.'),
        ({"dtype": types.FLOAT16}, "Unsupported output type: float16"),
        ({"dtype": types.BOOL}, "Unsupported output type: bool"),
    ],
)
def test_argument_errors(kw, text):
    with pytest.raises(Exception, match=text.replace("(", r"\(").replace(")", r"\)")):
        _filter(SIG, **kw)


@pytest.mark.parametrize("dtype", [np.float16, np.bool_])
def test_unsupported_input_types(dtype):
    with pytest.raises(Exception, match="Unsupported input type"):
        _filter([np.zeros(5, dtype)])


def test_static_metadata():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [np.zeros(3, np.int16)], layout="t", dtype=types.INT16)
        y = fn.preemphasis_filter(x, dtype=types.INT32)
        assert y.dtype == types.INT32
        pipe.set_outputs(y)


@pytest.mark.parametrize("border", ["clamp", "zero", "reflect"])
@pytest.mark.parametrize("dtype", [types.FLOAT, types.INT16])
@cpu_gpu()  # the same float32 operations: bit-exact
def test_gpu_matches_cpu(border, dtype, device):
    batch = [(s * 20000).astype(np.int16) for s in SIG]
    coeffs = [np.float32(0.9), np.float32(0.0), np.float32(0.5)]

    def build():
        x = to_device(fn.external_source(lambda: batch), device)
        c = fn.external_source(lambda: coeffs)
        return fn.preemphasis_filter(x, preemph_coeff=c, border=border, dtype=dtype)

    return _run(build, batch_size=3, device_id=device_id(device))


@cpu_gpu()
def test_gpu_matches_cpu_uniform_float(device):
    batch = [SIG[0][:100].copy(), SIG[0][100:200].copy()]
    return _run(
        lambda: fn.preemphasis_filter(to_device(fn.external_source(lambda: batch), device)),
        batch_size=2,
        device_id=device_id(device),
    )


@pytest.mark.parametrize("border", ["clamp", "zero", "reflect"])
@pytest.mark.parametrize(
    ("dtype", "out"),
    [
        (np.float32, np.float32),
        (np.int32, np.int16),
        (np.float64, np.float64),
        (np.uint8, np.float32),
    ],
)
def test_compiled_and_numpy_paths_agree(border, dtype, out):
    pytest.importorskip("numba")
    from dali._ops.audio.preemphasis import preemphasis

    sizes = np.array([300, 0, 1, 57], np.int64)
    flat = (RNG.normal(0, 1, int(sizes.sum())) * 100).astype(dtype)
    coeffs = np.float32([0.97, 0.5, -0.3, 0.0])
    a = preemphasis(np, flat, coeffs, sizes, border, np.dtype(out), use_numba=True)
    b = preemphasis(np, flat, coeffs, sizes, border, np.dtype(out), use_numba=False)
    assert a.dtype == b.dtype == np.dtype(out)
    np.testing.assert_array_equal(a, b)
