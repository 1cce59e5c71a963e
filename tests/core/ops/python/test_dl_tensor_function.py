"""fn.dl_tensor_python_function: DLPack capsules in and out, per batch (the default) and per
sample, several outputs, layouts, fn.python_function's checks, and the GPU backend."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def
from parity import cpu_gpu, device_id, to_device

SAMPLES = [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((1, 3), np.float32)]


def _run(function, device="cpu", **kw):
    @pipeline_def(batch_size=2, num_threads=1, device_id=device_id(device))
    def pipe():
        x = to_device(fn.external_source(lambda: SAMPLES), device)
        return fn.dl_tensor_python_function(x, function=function, **kw)

    return pipe().run()


def test_torch_batch_function_as_in_dalis_documentation():
    torch = pytest.importorskip("torch")
    from torch.utils.dlpack import from_dlpack, to_dlpack

    seen = []

    def scale(batch):
        seen.append([type(c).__name__ for c in batch])
        return [to_dlpack(from_dlpack(c) * 3 + 1) for c in batch]

    (out,) = _run(scale)
    # one call per batch (the pipeline may have started the next), with a list of capsules
    assert seen and all(call == ["PyCapsule", "PyCapsule"] for call in seen)
    for got, x in zip(out.samples(), SAMPLES):
        np.testing.assert_array_equal(np.asarray(got), x * 3 + 1)
    assert torch.is_tensor(from_dlpack(to_dlpack(torch.zeros(1))))


def test_per_sample_and_several_outputs_with_layouts():
    def split(capsule):  # per sample: one capsule in, two arrays (with __dlpack__) out
        x = np.from_dlpack(_Wrap(capsule))
        return x.sum(axis=1), x.T.copy()

    sums, transposed = _run(split, batch_processing=False, num_outputs=2, output_layouts=["", "XY"])
    assert [np.asarray(s).tolist() for s in sums.samples()] == [[3.0, 12.0], [3.0]]
    assert transposed.layout() == "XY"
    np.testing.assert_array_equal(np.asarray(transposed.samples()[0]), SAMPLES[0].T)


class _Wrap:
    """A capsule as numpy imports it (what a framework's from_dlpack does with a capsule)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_the_function_must_return_a_batch_per_output():
    with pytest.raises(Exception, match="multi-output Python function operator must be a tuple"):
        _run(lambda batch: batch, num_outputs=2)
    with pytest.raises(Exception, match="Unexpected number of outputs"):
        _run(lambda batch: (batch, batch), num_outputs=1)


def test_a_capsule_is_imported_once():
    with pytest.raises(Exception, match="dl_tensor_python_function"):
        _run(lambda batch: batch[:1] * 2)  # the same capsule twice: DLPack forbids it


def test_needs_a_current_pipeline_and_a_callable():
    with pytest.raises(Exception, match="function"):

        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe():
            return fn.dl_tensor_python_function(fn.random.uniform(shape=[1]), function=3)

        pipe().build()


@cpu_gpu()
def test_parity(device):
    def reverse(batch):
        return batch[::-1]

    return _run(reverse, device)
