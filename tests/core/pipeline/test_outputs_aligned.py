"""Every dense CPU output of a pipeline starts on a 64-byte boundary (JAX shares only such
host memory through DLPack; numpy's own results are 16-byte aligned), on threads and on worker
processes; ragged ones are left as they are (views of a reader's memory map stay views)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._tensors.base import HOST_ALIGNMENT, host_aligned


@pytest.mark.parametrize(
    "parallelism",
    [
        "threads",
        pytest.param(
            "processes",
            marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only"),
        ),
    ],
)
def test_every_cpu_output_is_64_byte_aligned(parallelism: str) -> None:
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3, cpu_parallelism=parallelism)
    def pipe():
        u = fn.random.uniform(shape=[3, 5])
        return (
            u,
            fn.transpose(u, perm=[1, 0]) * 2,  # numpy arithmetic's own buffers
            fn.cast(u, dtype=types.INT32),
            fn.random.coin_flip(),  # one byte per sample
        )

    p = pipe()
    try:
        for _ in range(3):
            outs = p.run()
            for tl in outs:
                assert np.asarray(tl.as_tensor()).ctypes.data % HOST_ALIGNMENT == 0
    finally:
        p.close()


def test_host_aligned_copies_only_what_is_not_aligned() -> None:
    raw = np.zeros(100, np.uint8)
    offset = (-raw.ctypes.data) % HOST_ALIGNMENT
    aligned = raw[offset : offset + 32]
    assert host_aligned(aligned) is aligned
    unaligned = raw[offset + 4 : offset + 36]
    unaligned[...] = np.arange(32)
    copy = host_aligned(unaligned)
    assert copy is not unaligned and copy.ctypes.data % HOST_ALIGNMENT == 0
    assert copy.tolist() == list(range(32))


def test_a_no_copy_source_output_stays_the_users_memory() -> None:
    raw = np.zeros(4 * 3 + 16, np.int32)
    offset = (-raw.ctypes.data) % HOST_ALIGNMENT // 4
    unaligned = raw[offset + 1 : offset + 1 + 12].reshape(4, 3)  # 4 bytes past a boundary
    unaligned[...] = np.arange(12).reshape(4, 3)

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, exec_pipelined=False)
    def pipe():
        return fn.external_source(lambda: unaligned, no_copy=True, batch=True)

    (out,) = pipe().run()
    assert np.shares_memory(np.asarray(out.as_tensor()), unaligned)
