"""dali-torch on a GPU: placement on ``cuda:<device_id>``, zero-copy, ordering on torch's
current stream, and the same values as the CPU pipeline (run with ``pytest -m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from dali import fn, pipeline_def, types
from dali.plugin.pytorch import (
    DALIClassificationIterator,
    DALIGenericIterator,
    DALIRaggedIterator,
    LastBatchPolicy,
    feed_ndarray,
)
from dali.plugin.pytorch.torch_utils import to_torch_tensor

pytestmark = pytest.mark.gpu


def _gpu_pipe(make_batch, batch_size=4, device_id=0, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, **kwargs)
    def pipe():
        return fn.external_source(make_batch, batch=True, device="gpu")

    return pipe()


def test_gpu_outputs_land_on_the_pipelines_device_without_a_copy():
    pipe = _gpu_pipe(lambda i: np.full((4, 8, 8, 3), i, np.uint8))
    it = DALIGenericIterator(pipe, ["x"])
    x = next(it)[0]["x"]
    assert x.device == torch.device("cuda", 0) and x.dtype == torch.uint8
    assert tuple(x.shape) == (4, 8, 8, 3) and int(x.sum()) == 0
    assert int(next(it)[0]["x"].float().mean()) == 1


def test_zero_copy_shares_the_pipelines_buffer():
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        return fn.external_source(lambda: np.ones((2, 1024), np.float32), batch=True).gpu()

    p = pipe()
    (tl,) = p.run()
    t = to_torch_tensor(tl.as_tensor(), copy=False)
    assert t.data_ptr() == tl.as_tensor().data_ptr()
    copied = to_torch_tensor(tl.as_tensor(), copy=True)
    assert copied.data_ptr() != t.data_ptr() and torch.equal(copied, t)


def test_ordered_on_torchs_current_stream():
    # A long GPU computation in the pipeline, consumed on a side stream of torch: without the
    # DLPack stream handshake the side stream would read the buffer before it is written.
    @pipeline_def(batch_size=8, num_threads=2, device_id=0, prefetch_queue_depth=1)
    def pipe():
        x = fn.external_source(lambda i: np.full((8, 512, 512), i + 1, np.float32), batch=True)
        x = x.gpu()
        for _ in range(20):
            x = fn.cast(x * 1.0001 + 0.0, dtype=types.FLOAT)
        return x

    it = DALIGenericIterator(pipe(), ["x"])
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        means = [float(next(it)[0]["x"].mean()) for _ in range(4)]
    side.synchronize()
    ref = []
    for i in range(4):
        v = np.float32(i + 1)
        for _ in range(20):
            v = np.float32(v * np.float32(1.0001))
        ref.append(float(v))
    assert np.allclose(means, ref, rtol=1e-5)


def test_feed_ndarray_on_torchs_stream():
    pipe = _gpu_pipe(lambda: np.arange(12, dtype=np.float32).reshape(4, 3))
    (tl,) = pipe.run()
    dst = torch.zeros(4, 3, device="cuda:0")
    feed_ndarray(tl, dst, cuda_stream=torch.cuda.current_stream())
    assert dst.cpu().numpy().tolist() == np.arange(12).reshape(4, 3).tolist()
    with pytest.raises(AssertionError, match="on the GPU, the target PyTorch Tensor on cpu"):
        feed_ndarray(tl, torch.zeros(4, 3))


def test_ragged_gpu_outputs():
    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(lambda: [np.arange(n, dtype=np.int64) for n in (3, 1, 2)])
        return x.gpu()

    tags = [DALIRaggedIterator.SPARSE_LIST_TAG]
    (out,) = next(DALIRaggedIterator(pipe(), ["x"], output_types=tags))
    assert [t.device.type for t in out["x"]] == ["cuda"] * 3
    assert [t.tolist() for t in out["x"]] == [[0, 1, 2], [0], [0, 1]]
    coo = next(DALIRaggedIterator(pipe(), ["x"], output_types=["sparse_coo"]))[0]["x"]
    assert coo.device.type == "cuda" and coo.to_dense().cpu().tolist() == [
        [0, 1, 2],
        [0, 0, 0],
        [0, 1, 0],
    ]


def test_decode_pipeline_gpu_matches_cpu(image_tree):
    def make(device):
        @pipeline_def(batch_size=8, num_threads=2, device_id=0 if device == "gpu" else None)
        def pipe():
            jpegs, labels = fn.readers.file(file_root=str(image_tree), name="Reader")
            images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu")
            images = fn.resize(images, resize_x=64, resize_y=64)
            out = fn.crop_mirror_normalize(
                images, dtype=types.FLOAT, output_layout="CHW", mean=[128.0] * 3, std=[64.0] * 3
            )
            return out, labels

        return DALIClassificationIterator(
            pipe(), reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL
        )

    cpu = [b[0] for b in make("cpu")]
    gpu = [b[0] for b in make("gpu")]
    assert [tuple(b["data"].shape) for b in gpu] == [(8, 3, 64, 64), (8, 3, 64, 64), (5, 3, 64, 64)]
    for c, g in zip(cpu, gpu):
        assert g["data"].device == torch.device("cuda", 0) and g["label"].device.type == "cpu"
        assert torch.equal(c["label"], g["label"])
        # nvImageCodec's GPU decoder and the CPU decoder round a few pixels differently
        diff = (c["data"] - g["data"].cpu()).abs()
        assert float(diff.mean()) < 0.02, float(diff.max())
