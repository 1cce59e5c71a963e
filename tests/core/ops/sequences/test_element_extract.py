"""`fn.element_extract` and `fn.per_frame` (`dali._ops.generic.sequence`): outputs, layouts,
static metadata and errors, on the CPU and (parity) on the GPU."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(3)
#: a uniform batch: 2 sequences of 4 frames, 5×6 RGB
SEQ = [RNG.integers(0, 256, (4, 5, 6, 3), dtype=np.uint8) for _ in range(2)]
#: a ragged batch: 3 frames of 4×7, 5 frames of 6×3
RAGGED = [
    RNG.integers(0, 256, (3, 4, 7, 3), dtype=np.uint8),
    RNG.integers(0, 256, (5, 6, 3, 3), dtype=np.uint8),
]


def _run(build, data, layout="FHWC", device="cpu"):
    """Run ``build(node)`` on one external_source batch of ``data``; all outputs, a tuple."""

    @dali.pipeline_def(batch_size=len(data), num_threads=1, device_id=device_id(device))
    def pipe():
        x = fn.external_source(lambda: data, layout=layout, batch=True)
        return build(to_device(x, device))

    out = pipe().run()
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("data", [SEQ, RAGGED], ids=["uniform", "ragged"])
def test_element_extract_outputs(data):
    outs = _run(lambda x: tuple(fn.element_extract(x, element_map=[2, 0, 1])), data)
    assert len(outs) == 3
    for out, e in zip(outs, (2, 0, 1)):
        assert out.layout() == "HWC"
        for i, s in enumerate(data):
            np.testing.assert_array_equal(out.at(i), s[e])


def test_element_extract_single_output_and_scalar_map():
    (out,) = _run(lambda x: fn.element_extract(x, element_map=3), SEQ)
    assert out.layout() == "HWC" and out.shape() == [(5, 6, 3)] * 2
    np.testing.assert_array_equal(out.at(1), SEQ[1][3])


@pytest.mark.parametrize(("layout", "expected"), [("", ""), ("FXYZ", "XYZ")])
def test_element_extract_layouts(layout, expected):
    (out,) = _run(lambda x: fn.element_extract(x, element_map=[1]), SEQ, layout)
    assert out.layout() == expected
    np.testing.assert_array_equal(out.at(0), SEQ[0][1])


def test_element_extract_static_meta():
    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: SEQ, layout="FHWC", batch=True, ndim=4)
        a, b = fn.element_extract(x, element_map=[0, 1])
        assert (a.layout, a.ndim, b.layout) == ("HWC", 3, "HWC")
        return a, b

    pipe().run()


@pytest.mark.parametrize(
    ("kwargs", "data", "layout", "words"),
    [
        ({"element_map": [-1]}, SEQ, "FHWC", ("element_map", "negative", "-1")),
        ({"element_map": [4]}, SEQ, "FHWC", ("element_map", "index 4", "4 elements")),
        ({"element_map": [3]}, RAGGED, "FHWC", ("element_map", "sample 0", "3 elements")),
        ({"element_map": [0]}, SEQ, "HWCF", ("sequence", "'F'", "HWCF")),
        ({"element_map": []}, SEQ, "FHWC", ("element_map", "at least one")),
        ({"element_map": [0]}, [np.zeros(3, np.uint8)] * 2, "F", ("two dimensions",)),
    ],
)
def test_element_extract_errors(kwargs, data, layout, words):
    with pytest.raises(Exception, match="element_extract") as info:
        _run(lambda x: fn.element_extract(x, **kwargs), data, layout)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize(
    ("value", "layout", "replace", "expected"),
    [
        (np.zeros((4,), np.float32), None, False, "F"),
        (np.zeros((4, 2), np.float32), None, False, "F*"),
        (np.zeros((4, 2), np.float32), "FY", False, "FY"),
        (np.zeros((4, 2), np.float32), "XY", True, "FY"),
    ],
)
def test_per_frame_layout(value, layout, replace, expected):
    (out,) = _run(lambda x: fn.per_frame(x, replace=replace), [value, value + 1], layout)
    assert out.layout() == expected
    np.testing.assert_array_equal(out.at(1), value + 1)  # the data is untouched


@pytest.mark.parametrize(
    ("value", "layout", "words"),
    [
        (np.zeros((4, 2), np.float32), "XY", ("start with 'F'", "'XY'", "replace=True")),
        (np.zeros((), np.float32), None, ("zero-dimensional",)),
    ],
)
def test_per_frame_errors(value, layout, words):
    with pytest.raises(Exception, match="per_frame") as info:
        _run(lambda x: fn.per_frame(x), [value, value], layout)
    for w in words:
        assert w in str(info.value)


def test_per_frame_static_layout():
    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        data = [np.zeros((4, 2), np.float32)] * 2
        x = fn.external_source(lambda: data, batch=True, ndim=2, layout="XY")
        marked = fn.per_frame(x, replace=True)
        assert marked.layout == "FY"
        return marked

    assert pipe().run()[0].layout() == "FY"


@pytest.mark.parametrize("data", [SEQ, RAGGED], ids=["uniform", "ragged"])
@cpu_gpu()
def test_element_extract_gpu(data, device):
    outs = _run(lambda x: tuple(fn.element_extract(x, element_map=[2, 0])), data, device=device)
    for out, e in zip(outs, (2, 0)):
        host = out.as_cpu() if device == "gpu" else out
        for i, s in enumerate(data):
            np.testing.assert_array_equal(host.at(i), s[e])
    return outs


@cpu_gpu()
def test_per_frame_gpu(device):
    values = [np.arange(8, dtype=np.float32).reshape(4, 2)] * 2
    return _run(lambda x: fn.per_frame(x, replace=True), values, "XY", device)
