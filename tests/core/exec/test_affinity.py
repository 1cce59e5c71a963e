"""`Pipeline(set_affinity=True)`: pipeline threads pinned to the cores nearest the GPU."""

from __future__ import annotations

import os
import threading

import dali
import numpy as np
import pytest
from dali import fn
from dali._exec import affinity
from dali._exec.executor import Executor, IterationRequest
from dali._exec.workspace import BatchMeta
from dali._graph.build import build_plan

linux_only = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="thread affinity is Linux-only"
)


def test_cpulists_parse_ranges_and_single_cores():
    assert affinity.parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert affinity.parse_cpulist("5") == {5}
    assert affinity.parse_cpulist("") == frozenset()
    with pytest.raises(ValueError):
        affinity.parse_cpulist("0-x")


def _fake_gpu(tmp_path, monkeypatch, cpulist):
    bus = "0000:18:00.0"
    (tmp_path / bus).mkdir()
    (tmp_path / bus / "local_cpulist").write_text(cpulist)
    monkeypatch.setattr(affinity, "pci_bus_id", lambda device_id: bus)


@linux_only
def test_the_gpus_numa_cores_are_limited_to_what_the_process_may_use(tmp_path, monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    everything = f"0-{max(allowed) + 64}"
    _fake_gpu(tmp_path, monkeypatch, everything)
    assert affinity.gpu_local_cpus(0, sysfs=tmp_path) == frozenset(allowed)
    cpulist = tmp_path / "0000:18:00.0" / "local_cpulist"
    cpulist.write_text(f"{allowed[0]}")
    assert affinity.gpu_local_cpus(0, sysfs=tmp_path) == {allowed[0]}
    # a NUMA node the process may not use, and a GPU with no sysfs entry: no pinning
    cpulist.write_text(f"{max(allowed) + 1}")
    assert affinity.gpu_local_cpus(0, sysfs=tmp_path) is None
    monkeypatch.setattr(affinity, "pci_bus_id", lambda device_id: "0000:99:00.0")
    assert affinity.gpu_local_cpus(0, sysfs=tmp_path) is None


@linux_only
def test_pinning_affects_only_the_calling_thread():
    before = os.sched_getaffinity(0)
    core = min(before)
    seen = []

    def body():
        affinity.pin_current_thread(frozenset({core}))
        seen.append(os.sched_getaffinity(0))

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [{core}]
    assert os.sched_getaffinity(0) == before
    affinity.pin_current_thread(None)  # no set: nothing changes
    assert os.sched_getaffinity(0) == before


@linux_only
def test_the_executor_pins_its_stage_worker_and_pool_threads():
    core = min(os.sched_getaffinity(0))
    seen: set[tuple[str, frozenset[int]]] = set()

    def record(x):
        name = threading.current_thread().name.split("_")[0]
        seen.add((name, frozenset(os.sched_getaffinity(0))))
        return x

    pipe = dali.Pipeline(batch_size=4, num_threads=3, device_id=None)
    with pipe:
        src = fn.external_source(name="src")
        pipe.set_outputs(fn.python_function(src, function=record))
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    ex = Executor(plan, num_threads=3, affinity=frozenset({core}))
    src_step = next(i for i, st in enumerate(plan.steps) if st.device == "cpu")
    batch = dali.tensors.TensorListCPU.wrap(np.zeros((4, 2), np.float32))
    ex.submit(IterationRequest(0, 0, {src_step: (batch, BatchMeta.stream(0, 4, 0))}, 4, 0))
    ex.get()
    ex.close()
    assert seen and all(cpus == {core} for _, cpus in seen), seen


def test_cpu_pipelines_and_the_default_pin_nothing():
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=0, set_affinity=True)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 1)))
    pipe.build()
    pipe.run()
    assert pipe._executor._state.affinity is None  # no GPU work: CUDA is never touched


@pytest.mark.gpu
@linux_only
def test_a_gpu_pipeline_pins_its_threads_to_the_gpus_numa_node():
    local = affinity.gpu_local_cpus(0)
    assert local, "no NUMA cores found for GPU 0 (sysfs local_cpulist)"
    seen: set[frozenset[int]] = set()

    def record(x):
        seen.add(frozenset(os.sched_getaffinity(0)))
        return x

    for flag, expected in ((True, local), (False, None)):
        seen.clear()
        pipe = dali.Pipeline(batch_size=4, num_threads=3, device_id=0, set_affinity=flag)
        with pipe:
            x = fn.python_function(fn.random.uniform(range=(0, 1), shape=2), function=record)
            pipe.set_outputs(x.gpu() * 2)
        pipe.build()
        pipe.run()
        assert pipe._executor._state.affinity == expected
        if flag:
            assert seen == {local}
