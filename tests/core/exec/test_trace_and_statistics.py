"""DALI_TRACE (a Chrome trace per pipeline), executor_statistics and stage_statistics."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dali import fn, pipeline_def, types


def _pipe(**kw):
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=1, **kw)
    def pipe():
        data = fn.external_source(
            lambda: [np.full((8, 8, 3), i, np.uint8) for i in range(4)], name="src"
        )
        flip = fn.random.coin_flip(name="flip")
        out = fn.crop_mirror_normalize(data, mirror=flip, dtype=types.FLOAT, name="cmn")
        return out, fn.cast(data, dtype=types.INT32, name="cast")

    return pipe()


def test_trace_has_a_track_per_thread_and_a_slice_per_operator_run(tmp_path, monkeypatch):
    path = tmp_path / "trace.json"
    monkeypatch.setenv("DALI_TRACE", str(path))
    p = _pipe()
    for _ in range(5):
        p.run()
    p.close()
    trace = json.loads(path.read_text())
    assert not list(tmp_path.glob("*.partial")), "the trace is written whole, then renamed"
    events = trace["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert "dali-executor" in names and "dali-executor-source" in names
    slices = [e for e in events if e["ph"] == "X"]
    assert all(e["dur"] >= 0 and e["pid"] == events[0]["pid"] for e in slices)
    runs = {}
    for e in slices:
        runs.setdefault((e["cat"], e["name"]), set()).add(e["args"]["iteration"])
    # every operator once per iteration it ran (the pipeline ran ahead: at least the 5 taken)
    for op, stage in (("src", "source"), ("flip", "cpu"), ("cmn", "cpu"), ("cast", "cpu")):
        assert set(range(5)) <= runs[stage, op]
    # the consumer's run() calls on a track of their own (this thread)
    assert runs["consumer", "run"] == set(range(5))
    consumer_tid = {e["tid"] for e in slices if e["cat"] == "consumer"}
    assert len(consumer_tid) == 1
    assert consumer_tid.isdisjoint({e["tid"] for e in slices if e["cat"] == "cpu"})


def test_trace_of_a_worker_process_goes_to_its_own_file(tmp_path, monkeypatch):
    path = tmp_path / "trace.json"
    monkeypatch.setenv("DALI_TRACE", str(path))
    p = _pipe(worker_process=True)
    p.run()
    pid = p.worker_pid
    p.close()
    worker = json.loads((tmp_path / f"trace.{pid}.json").read_text())
    assert {e["name"] for e in worker["traceEvents"] if e["ph"] == "X"} >= {"cmn", "cast"}
    consumer = json.loads(path.read_text())
    assert [e["name"] for e in consumer["traceEvents"] if e["ph"] == "X"] == ["run"]


def test_nothing_is_recorded_by_default(monkeypatch):
    monkeypatch.delenv("DALI_TRACE", raising=False)
    monkeypatch.delenv("DALI_PROFILE", raising=False)
    p = _pipe()
    p.run()
    assert p.executor_statistics() == {}  # as DALI without enable_memory_stats
    assert p.stage_statistics() == {}
    p.close()


def test_executor_statistics_as_dali_reports_them():
    p = _pipe(enable_memory_stats=True)
    p.run()
    first = p.executor_statistics()
    assert set(first) == {"CPU_src", "CPU_flip", "CPU_cmn", "CPU_cast"}
    cmn = first["CPU_cmn"]
    # 4 samples of 3x8x8 float32 (CHW by default): DALI's per-output lists
    assert cmn["real_memory_size"] == [4 * 8 * 8 * 3 * 4]
    assert cmn["max_real_memory_size"] == [8 * 8 * 3 * 4]
    assert cmn["reserved_memory_size"] == cmn["real_memory_size"]
    assert cmn["max_reserved_memory_size"] == cmn["max_real_memory_size"]
    assert first["CPU_flip"]["real_memory_size"] == [4 * 4]  # one int32 per sample
    assert first["CPU_flip"]["max_real_memory_size"] == [4]
    assert cmn["stage"] == "cpu" and cmn["runs"] >= 1
    assert cmn["mean_ms"] > 0 and cmn["mean_cpu_ms"] >= 0
    runs = cmn["runs"]
    for _ in range(3):
        p.run()
    assert p.executor_statistics()["CPU_cmn"]["runs"] > runs  # counters only grow
    p.close()


def test_stage_statistics():
    p = _pipe(enable_memory_stats=True)
    for _ in range(4):
        p.run()
    stats = p.stage_statistics()
    assert {"source", "cpu", "consumer"} <= set(stats)
    assert stats["consumer"]["iterations"] == 4
    for entry in stats.values():
        assert entry["mean_busy_ms"] >= 0 and entry["mean_wait_ms"] >= 0
        assert entry["mean_queued"] >= 0
    p.close()


@pytest.mark.parametrize("value", ["1", "gil"])
def test_profile_report_is_printed_once(value, monkeypatch, capsys):
    monkeypatch.setenv("DALI_PROFILE", value)
    p = _pipe()
    p.run()
    p.close()
    p.close()
    err = capsys.readouterr().err
    assert err.count("dali profile") == 1 and "cmn" in err
