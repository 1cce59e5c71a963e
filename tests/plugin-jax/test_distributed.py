"""Two processes on localhost, 2 fake CPU devices each, build one global array.

Each process runs `_distributed_worker.py`: it joins a `jax.distributed` job, builds pipelines
for its own two devices only (shards 0, 1 in process 0 and 2, 3 in process 1 of 4) and gets
global arrays of 8 samples whose addressable shards are its own; a replicated per-output
sharding makes every device hold all 8 labels (gathered from both processes), and a jitted
sum runs over both processes' shards (the last two only where the JAX CPU backend's
collectives are reliable: not JAX 0.4.26, see the worker).
"""

from __future__ import annotations

from pathlib import Path

from distributed_utils import run_job

WORKER = Path(__file__).with_name("_distributed_worker.py")


def test_two_processes_build_one_global_array(image_tree):
    first, second = run_job(WORKER, str(image_tree), packages=["core", "plugin-jax"])
    for proc, r in enumerate((first, second)):
        assert r["process"] == proc
        assert r["device_count"] == 4 and r["local_device_count"] == 2
        # one pipeline per local device, device_id 0..1, batch 8 // 4 devices
        assert r["pipelines"] == [[0, 2], [1, 2]]
        assert r["len"] == 3
        assert r["shape"] == [8, 1] and r["images_shape"] == [8, 8, 8, 3]
        assert r["fully_addressable"] is False and r["sharding_ok"] is True
        # None where this JAX's CPU backend cannot move data or compute across processes
        # reliably (see the worker); then neither is checked
        assert (r["all_labels"] is None) == (r["total"] is None)
        if r["total"] is not None:
            assert r["all_labels"] == [
                [2 * proc + k, 0, [0, 1, 5, 6, 10, 11, 15, 16]] for k in range(2)
            ]
            # 0+1+5+6+10+11+15+16, computed over both processes' shards
            assert r["total"] == 64
    # [global device index, first row, labels]: shard k (files from floor(21k/4)) on device k
    assert first["labels"] == [[0, 0, [0, 1]], [1, 2, [5, 6]]]
    assert second["labels"] == [[2, 4, [10, 11]], [3, 6, [15, 16]]]
