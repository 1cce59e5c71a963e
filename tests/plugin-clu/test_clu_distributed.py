"""Two processes on localhost, 2 fake CPU devices each, one `peekable_data_iterator` job.

Each process runs `_clu_distributed_worker.py`: it joins a `jax.distributed` job and makes a
`peekable_data_iterator` sharded over the 4 devices of both processes, so it builds pipelines
for its own two devices only (shards 0, 1 in process 0 and 2, 3 in process 1) and gets global
arrays of 8 samples whose addressable shards are its own. The tests check, from what both
processes report:

* the global batches: the four devices' shards together are the right samples, laid out by
  the sharding, epoch after epoch (the shards move on by one device every epoch);
* ``element_spec``: the global batch, the same on both processes, known before any data;
* ``is_nonpadding``: a global ``(8,)`` array, False exactly for the padding of the last batch;
* ``save``/``restore``: each process writes its own file (with a peek pending) and a fresh
  iterator restored from it continues exactly (labels and random values).

As in tests/plugin-jax/test_distributed.py, the job is skipped where JAX's CPU backend cannot
run multi-process programs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed_utils import run_job

WORKER = Path(__file__).with_name("_clu_distributed_worker.py")
#: Shards of the 29 label files over 4 devices: first label and size of each.
_SHARDS = [(0, 7), (7, 7), (14, 7), (21, 8)]


@pytest.fixture(scope="module")
def job(label_files, tmp_path_factory) -> list[dict]:
    """Run both workers once for the module; their JSON reports, process 0 first."""
    files_dir = Path(label_files[0]).parent
    assert len(list(files_dir.iterdir())) == len(label_files) == 29
    state_dir = tmp_path_factory.mktemp("states")
    reports = run_job(
        WORKER,
        str(files_dir),
        str(state_dir),
        packages=["core", "plugin-jax", "plugin-clu"],
    )
    assert sorted(p.name for p in state_dir.iterdir()) == ["process_0.json", "process_1.json"]
    return reports


def _expected_labels(epoch: int, k: int) -> list[list[int]]:
    """Batch ``k`` of ``epoch``: per device, the 2 labels it reads (the shards move on by one
    device every epoch; ``pad_last_batch`` repeats a shard's last sample)."""
    out = []
    for device in range(4):
        start, size = _SHARDS[(device + epoch) % 4]
        out.append([start + min(2 * k + j, size - 1) for j in range(2)])
    return out


def _expected_mask(epoch: int, k: int) -> list[list[bool]]:
    return [[2 * k + j < _SHARDS[(device + epoch) % 4][1] for j in range(2)] for device in range(4)]


def _steps(report: dict, part: str = "all") -> list:
    """A report's steps: all of them (2 before the save, 6 after), or those of the
    restored iterator (the 6 after)."""
    if part == "restored":
        return report["restored_after"]
    return report["before"] + report["after"]


def _global(reports: list[dict], n: int, key: str, part: str = "all") -> list[list]:
    """Output ``key`` of step ``n`` as the 4 devices hold it, from both reports:
    ``[values of device 0, ..., values of device 3]``; checks the rows each device holds."""
    shards = sorted(s for r in reports for s in _steps(r, part)[n][key])
    assert [device for device, _, _ in shards] == [0, 1, 2, 3]
    assert [row for _, row, _ in shards] == [0, 2, 4, 6]  # 2 rows of the global batch each
    return [values for _, _, values in shards]


def test_each_process_holds_its_part_of_one_global_array(job):
    for process, r in enumerate(job):
        assert r["process"] == process
        assert r["device_count"] == 4 and r["local_device_count"] == 2
        assert r["pipelines"] == 2  # its own devices only
        assert r["shape"] == [8, 1]
        assert r["fully_addressable"] is False and r["sharding_ok"] is True
        # its shards are on its own devices, 2k and 2k+1
        devices = [device for device, _, _ in r["before"][0]["labels"]]
        assert devices == [2 * process, 2 * process + 1]


def test_element_spec_is_the_global_batch_on_both_processes(job):
    first, second = job
    assert first["spec"] == second["spec"]
    assert first["spec"] == {"labels": [[8, 1], "int32"], "random": [[8], "float32"]}


#: (epoch, batch) of each step: 4 batches, StopIteration (None), 3 batches.
_POSITIONS = [(0, 0), (0, 1), (0, 2), (0, 3), None, (1, 0), (1, 1), (1, 2)]


def test_global_batches(job):
    assert all(r["peek_is_next"] and r["pending_is_next"] for r in job)
    for n, where in enumerate(_POSITIONS):
        if where is None:
            assert all(_steps(r)[n] == "STOP" for r in job)
            continue
        assert _global(job, n, "labels") == _expected_labels(*where), where


def test_is_nonpadding_is_a_global_mask(job):
    for n, where in enumerate(_POSITIONS):
        if where is None or n == 0:  # (the first element's mask is not reported)
            continue
        assert all(_steps(r)[n]["mask_shape"] == [8] for r in job)
        assert _global(job, n, "mask") == _expected_mask(*where), where
    # the padded batch: one repeat of their last sample in the shards of 7
    assert _expected_mask(0, 3) == [[True, False]] * 3 + [[True, True]]


def test_each_process_restores_its_own_file_and_continues_exactly(job):
    for r in job:
        assert r["state_file"] == f"process_{r['process']}.json"
        assert r["state_bytes"] < 2048  # two checkpoints of a few hundred bytes
        assert r["restored_after"] == r["after"]  # labels, random values, masks
    # and together the restored processes give the global batches
    for n, where in enumerate(_POSITIONS[2:]):
        if where is not None:
            assert _global(job, n, "labels", "restored") == _expected_labels(*where)
