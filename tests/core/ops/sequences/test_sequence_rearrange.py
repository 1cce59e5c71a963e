"""fn.sequence_rearrange: frames reordered, repeated or dropped per sample; errors; GPU twin."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn
from parity import cpu_gpu, device_id, to_device

SEQ = [
    np.arange(4 * 2 * 2, dtype=np.uint8).reshape(4, 2, 2),
    np.arange(12, dtype=np.uint8).reshape(3, 2, 2),
]
UNIFORM = [np.arange(5 * 3 * 2, dtype=np.float32).reshape(5, 3, 2) + k for k in range(3)]


def _run(build, *, batch_size=2, device="cpu"):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id(device))
    with pipe:
        pipe.set_outputs(build())
    return pipe.run()[0]


def _feed(samples, layout="FHW"):
    return fn.external_source(lambda: list(samples), layout=layout or None)


@pytest.mark.parametrize("data", [SEQ, UNIFORM], ids=["ragged", "uniform"])
def test_frames_follow_new_order(data):
    out = _run(
        lambda: fn.sequence_rearrange(_feed(data), new_order=[2, 0, 0]), batch_size=len(data)
    )
    assert out.layout() == "FHW"
    for got, x in zip(out.samples(), data):
        np.testing.assert_array_equal(np.asarray(got), x[[2, 0, 0]])


def test_new_order_per_sample_and_no_layout():
    orders = [np.array([3, 1], np.int32), np.array([0], np.int32)]
    out = _run(lambda: fn.sequence_rearrange(_feed(SEQ, ""), new_order=_feed(orders, "")))
    assert out.layout() == ""
    assert [np.asarray(s).shape for s in out.samples()] == [(2, 2, 2), (1, 2, 2)]
    np.testing.assert_array_equal(np.asarray(out.samples()[0]), SEQ[0][[3, 1]])


@pytest.mark.parametrize(
    "order, layout, data, message",
    [
        ([3], "FHW", SEQ, "must be between 0 and input_sequence_length = 3 for sample 1"),
        ([-1], "FHW", SEQ, "but it is: -1"),
        ([], "FHW", SEQ, "Empty result sequences"),
        ([1], "HWC", SEQ, "Expected sequence as the input"),
        ([0], "F", [np.arange(3, dtype=np.uint8)] * 2, "at least 1 dim"),
    ],
)
def test_errors(order, layout, data, message):
    with pytest.raises(Exception, match=r"fn\.sequence_rearrange") as info:
        _run(lambda: fn.sequence_rearrange(_feed(data, layout), new_order=order))
    assert message in str(info.value)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    def build():
        return fn.sequence_rearrange(to_device(_feed(UNIFORM), device), new_order=[4, 4, 1, 0])

    return _run(build, batch_size=3, device=device)


@cpu_gpu()
def test_gpu_ragged_per_sample_matches_cpu(device):
    orders = [np.array([3, 1, 1], np.int32), np.array([2], np.int32)]

    def build():
        return fn.sequence_rearrange(to_device(_feed(SEQ), device), new_order=_feed(orders, ""))

    return _run(build, device=device)
