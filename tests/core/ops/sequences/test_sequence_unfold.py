"""`dali._ops._sequences`: the frame batch of sequences with per-frame arguments, and back."""

from __future__ import annotations

import numpy as np
import pytest
from dali._exec.workspace import BatchMeta, SampleFailure, Workspace
from dali._ops._sequences import is_sequence, unfold
from dali._tensors import TensorListCPU


class _Op:
    """An operator's argument constants and errors."""

    def arg(self, name):
        return {"gain": 2.0}[name]

    def arg_error(self, name, message):
        return ValueError(f"argument `{name}`: {message}")


def _batches():
    a = np.arange(3 * 2 * 2, dtype=np.uint8).reshape(3, 2, 2)
    b = np.arange(100, 100 + 2 * 2 * 2, dtype=np.uint8).reshape(2, 2, 2)
    flat = np.concatenate([a.ravel(), b.ravel()])
    return {
        "list": TensorListCPU.wrap([a, b], "FHW"),
        "flat": TensorListCPU.wrap_flat(flat, [a.shape, b.shape], "FHW"),
        "dense": TensorListCPU.wrap(np.stack([a, a + 1]), "FHW"),
    }


def _ws(tl, args):
    return Workspace(_Op(), [tl], args, BatchMeta.stream(0, len(tl), 0), 0, 0, None, None)


@pytest.mark.parametrize("kind", ["list", "flat", "dense"])
def test_unfold_and_fold(kind):
    tl = _batches()[kind]
    n0, n1 = (s[0] for s in tl.shape())
    angle = TensorListCPU.wrap(
        [np.arange(n0, dtype=np.float32), np.array([7.0], np.float32)], "F"
    )  # sample 1: one value for all its frames
    shift = TensorListCPU.wrap([np.array(1.0), np.array(2.0)], "")  # per sample
    frames = unfold(_Op(), _ws(tl, {"angle": angle, "shift": shift}), ("angle",))
    assert frames is not None
    fws = frames.ws
    assert fws.batch_size == n0 + n1 and fws.inputs[0].layout() == "HW"
    assert fws.arg_scalars("angle").tolist() == [*range(n0), *[7.0] * n1]
    assert fws.arg_scalars("shift").tolist() == [1.0] * n0 + [2.0] * n1
    assert fws.arg_scalars("gain").tolist() == [2.0] * (n0 + n1)  # constants stay
    assert fws.meta.ids.tolist() == [0] * n0 + [1] * n1
    doubled = TensorListCPU.wrap([f * 2 for f in fws.inputs[0].samples()], "HW")
    out = frames.fold(doubled)
    assert out.layout() == "FHW" and out.shape() == tl.shape()
    for i in range(2):
        np.testing.assert_array_equal(out.at(i), np.asarray(tl.at(i)) * 2)
    if kind == "flat":  # the frames are the input's buffer: no copy
        assert np.shares_memory(fws.inputs[0].samples()[0], tl.flat()[0])


def test_no_unfolding_without_per_frame_or_sequence():
    tl = _batches()["list"]
    per_sample = TensorListCPU.wrap([np.array(1.0), np.array(2.0)], "")
    assert unfold(_Op(), _ws(tl, {"angle": per_sample}), ("angle",)) is None
    per_frame = TensorListCPU.wrap([np.zeros(3), np.zeros(2)], "F")
    assert unfold(_Op(), _ws(tl, {"angle": per_frame}), ("other",)) is None
    images = TensorListCPU.wrap([np.zeros((2, 2))] * 2, "HW")
    assert unfold(_Op(), _ws(images, {"angle": per_frame}), ("angle",)) is None
    assert is_sequence("FHWC") and not is_sequence("CFHW") and not is_sequence("")


def test_frame_count_mismatch_names_argument_and_sample():
    tl = _batches()["list"]
    angle = TensorListCPU.wrap([np.zeros(3), np.zeros(3)], "F")  # sample 1 has 2 frames
    with pytest.raises(ValueError, match=r"argument `angle`: sample 1 has 3 per-frame values"):
        unfold(_Op(), _ws(tl, {"angle": angle}), ("angle",))


def test_failure_of_a_frame_is_its_sequence():
    tl = _batches()["list"]
    angle = TensorListCPU.wrap([np.zeros(3), np.zeros(2)], "F")
    frames = unfold(_Op(), _ws(tl, {"angle": angle}), ("angle",))

    def fail_frame_4(ws):
        raise SampleFailure(4, RuntimeError("bad frame"))

    with pytest.raises(SampleFailure) as info:
        frames.run(fail_frame_4)
    assert info.value.index == 1  # frame 4 is the second frame of sequence 1
