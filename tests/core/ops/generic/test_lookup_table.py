"""`fn.lookup_table`: DALI 2.4's documented example, key ranges, every integer input type,
saturating output conversions, shapes and layouts, errors; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from parity import cpu_gpu, device_id, to_device


def _run(graph, samples, layout=None, batch_size=None):
    @pipeline_def(batch_size=batch_size or len(samples), num_threads=2, device_id=None)
    def pipe():
        kw = {"layout": layout} if layout else {}
        return graph(fn.external_source(lambda: samples, **kw))

    out = pipe().run()
    return out[0] if isinstance(out, tuple) else out


DOC = {"keys": [0, 2, 3, 4, 5, 3], "values": [0.2, 0.4, 0.5, 0.6, 0.7, 0.1]}


def test_documented_example():
    x = np.array([1, 4, 1, 0, 100, 2, 3, 4], np.int32)
    out = _run(lambda a: fn.lookup_table(a, **DOC, default_value=0.99), [x])
    assert out.dtype == types.FLOAT and out.layout() == ""
    np.testing.assert_array_equal(
        out.at(0), np.array([0.99, 0.6, 0.99, 0.2, 0.99, 0.4, 0.1, 0.6], np.float32)
    )


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_every_integer_input_type(dtype):
    info = np.iinfo(dtype)
    raw = [0, 1, 5, 127, 255, 65535, 65536, -1, -129, info.max, info.min]
    x = np.array([v for v in raw if info.min <= v <= info.max], dtype)
    out = _run(
        lambda a: fn.lookup_table(
            a, keys=[0, 5, 127, 65535], values=[1, 2, 3, 4], default_value=-7
        ),
        [x],
    ).at(0)
    table = {0: 1, 5: 2, 127: 3, 65535: 4}
    np.testing.assert_array_equal(out, [table.get(int(v), -7) for v in x])


@pytest.mark.parametrize(
    "dali_type,expected",
    [
        (types.UINT8, [2, 0, 255, 255]),
        (types.INT8, [2, -3, 127, 127]),
        (types.INT32, [2, -3, 300, 1000]),
        (types.INT64, [2, -3, 300, 1000]),
        (types.FLOAT16, [1.6, -2.5, 300.0, 1000.0]),
        (types.FLOAT64, [1.600000023841858, -2.5, 300.0, 1000.0]),
        (types.BOOL, [True, True, True, True]),
    ],
)
def test_values_are_float32_converted_with_saturation(dali_type, expected):
    x = np.array([0, 1, 2, 9], np.int32)
    out = _run(
        lambda a: fn.lookup_table(
            a, keys=[0, 1, 2], values=[1.6, -2.5, 300.0], default_value=1000.0, dtype=dali_type
        ),
        [x],
    )
    assert out.dtype == dali_type
    np.testing.assert_array_equal(out.at(0), np.array(expected).astype(out.at(0).dtype))


def test_last_repeated_key_wins_and_empty_table_gives_default():
    x = np.array([0, 1, 2], np.int32)
    assert _run(lambda a: fn.lookup_table(a, keys=[1, 1], values=[5, 6]), [x]).at(0).tolist() == [
        0,
        6,
        0,
    ]
    assert _run(lambda a: fn.lookup_table(a, default_value=3), [x]).at(0).tolist() == [3, 3, 3]


def test_shapes_layouts_and_ragged_batches():
    vol = [
        np.arange(24, dtype=np.uint16).reshape(2, 3, 4),
        np.arange(6, dtype=np.uint16).reshape(1, 2, 3),
    ]
    out = _run(
        lambda a: fn.lookup_table(a, keys=[1, 23], values=[10, 230], output_dtype=types.INT16),
        vol,
        layout="DHW",
    )
    assert out.layout() == "DHW" and out.dtype == types.INT16
    assert [s.shape for s in (out.at(0), out.at(1))] == [(2, 3, 4), (1, 2, 3)]
    assert out.at(0)[1, 2, 3] == 230 and out.at(1)[0, 0, 1] == 10 and out.at(1)[0, 1, 2] == 0


@pytest.mark.parametrize(
    "kw,sample,message",
    [
        ({"keys": [0, 2], "values": [1.0]}, np.zeros(2, np.int32), "size should match"),
        ({"keys": [65536], "values": [1.0]}, np.zeros(2, np.int32), r"\[0, 65535\]"),
        ({"keys": [-1], "values": [1.0]}, np.zeros(2, np.int32), r"\[0, 65535\]"),
        ({"dtype": types.STRING}, np.zeros(2, np.int32), "dtype"),
        ({"dtype": types.INT8, "output_dtype": types.INT8}, np.zeros(2, np.int32), "alias"),
        ({}, np.zeros(2, np.float32), "Unsupported input type"),
        ({}, np.zeros(2, np.bool_), "Unsupported input type"),
    ],
)
def test_errors(kw, sample, message):
    with pytest.raises(Exception, match=message):
        _run(lambda a: fn.lookup_table(a, **kw), [sample])


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
@cpu_gpu()
def test_parity(dtype, device):
    rng = np.random.default_rng(0)
    lo = max(np.iinfo(dtype).min, -70000)
    hi = min(np.iinfo(dtype).max, 70000)
    samples = [rng.integers(lo, hi, size=s).astype(dtype) for s in ((5, 10), (3, 7), (0, 4))]

    @pipeline_def(batch_size=3, num_threads=1, device_id=device_id(device))
    def pipe():
        x = to_device(fn.external_source(lambda: samples), device)
        return fn.lookup_table(
            x,
            keys=list(range(0, 60000, 7)),
            values=[float(k % 97) for k in range(0, 60000, 7)],
            default_value=-1.0,
            dtype=types.INT16,
        )

    return pipe().run()
