"""Two ``torch.distributed`` ranks (gloo, CPU) read disjoint shards of one dataset, the same
number of batches each, and restore their own position from ``state_dict()``."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed_utils import run_job
from iterator_utils import make_files

WORKER = Path(__file__).with_name("_torch_distributed_worker.py")


@pytest.mark.parametrize("pad", [True, False])
def test_two_gloo_ranks_read_disjoint_shards(tmp_path, pad):
    pytest.importorskip("torch.distributed")
    n = 21
    make_files(tmp_path, n)
    args = (str(tmp_path), str(n), "1" if pad else "0")
    reports = run_job(WORKER, *args, packages=["core", "plugin-torch"])
    assert [r["shard"] for r in reports] == [[0, 2], [1, 2]]
    assert all(r["device_id"] is None for r in reports)  # no CUDA here: a CPU pipeline
    # shards of 10 and 11 samples, padded or not: both ranks take 3 batches (no DDP hang)
    assert [r["len"] for r in reports] == [3, 3]
    first, second = (r["labels"] for r in reports)
    assert first == list(range(10)) and second == list(range(10, 21))
    assert reports[0]["all"] == reports[1]["all"] == [first, second]
    assert all(r["replay_ok"] for r in reports)


def test_shard_info_from_torchrun_environment(monkeypatch):
    from dali.plugin.pytorch.distributed import ShardInfo, shard_info

    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    info = shard_info()
    assert isinstance(info, ShardInfo) and info[:2] == (3, 4)
    monkeypatch.setenv("RANK", "4")
    with pytest.raises(ValueError, match=r"rank 4 is outside \[0, 4\)"):
        shard_info()
    monkeypatch.setenv("RANK", "x")
    with pytest.raises(ValueError, match="RANK='x' is not an int"):
        shard_info()
    monkeypatch.delenv("RANK")
    monkeypatch.delenv("WORLD_SIZE")
    assert shard_info()[:2] == (0, 1)
