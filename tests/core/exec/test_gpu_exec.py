"""GPU execution: stages, the pipeline stream, events, DLPack/CAI, memory pools.

The tests marked ``gpu`` need a CUDA device (skipped elsewhere); the others check the parts that
need none (stage split, argument checks, CUDA staying untouched by CPU pipelines).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import ClassVar

import numpy as np
import pytest
from cuda_stand_in import NoCuda

# jax must not grab most of the GPU memory before the torch/CuPy tests run in this session.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import dali
from dali import fn
from dali._exec.executor import PipelineError, split_gpu_stage, split_stages
from dali._graph.build import BuildError, build_plan
from dali._graph.schema import Arg, register
from dali._graph.trace import call_operator
from dali._ops.base import Operator
from dali._tensors import TensorListCPU, TensorListGPU
from parity import assert_same

# -- test operators ----------------------------------------------------------------------------

_SPIN_SOURCE = r"""
__device__ unsigned long long dali_test_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
extern "C" __global__ void dali_test_spin(const float* x, float* y, long long n,
                                          unsigned long long ns) {
    unsigned long long start = dali_test_now();
    while (dali_test_now() - start < ns) { __nanosleep(1000); }
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        y[i] = x[i] + 1.0f;
    }
}
"""


def _spin_kernel():
    import cupy as cp

    return cp.RawKernel(_SPIN_SOURCE, "dali_test_spin")


_GATE_SOURCE = r"""
extern "C" __global__ void dali_test_gate(const float* x, float* y, long long n,
                                          const volatile int* gate) {
    while (*gate == 0) { __nanosleep(1000); }
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        y[i] = x[i] + 1.0f;
    }
}
"""


class Gate:
    """A flag in pinned host memory that `_GpuGate`'s kernels wait on, on the GPU: their
    work (and the iteration's event) cannot finish before the test opens it."""

    def __init__(self) -> None:
        import cupy as cp

        self.memory = cp.cuda.alloc_pinned_memory(4)
        self.flag = np.frombuffer(self.memory, np.int32, 1)
        self.flag[0] = 0

    @property
    def ptr(self) -> int:
        return int(self.memory.ptr)  # (pinned memory: the device reads it at this address)

    def open(self) -> None:
        self.flag[0] = 1

    def close(self) -> None:
        self.flag[0] = 0


#: the gate of `_GpuGate` (one at a time: made by the test that uses it)
GATE: list[Gate] = []


@register(
    "_test.gpu_spin",
    devices=("gpu",),
    inputs=1,
    args=[Arg("ms", "float", default=50.0), Arg("sync", "bool", default=False)],
)
class _GpuSpin(Operator):
    """``y = x + 1`` (float32), written after the GPU spun for ``ms`` milliseconds."""

    def run_gpu(self, ws):
        import cupy as cp

        x = ws.inputs[0].dense()
        y = cp.empty_like(x)
        n = x.size
        _spin_kernel()((1,), (256,), (x, y, np.int64(n), np.uint64(self.arg("ms") * 1e6)))
        if self.arg("sync"):
            ws.stream.synchronize()  # an operator that must read results back, say
        return TensorListGPU.wrap(y)


@register("_test.gpu_gate", devices=("gpu",), inputs=1)
class _GpuGate(Operator):
    """``y = x + 1`` (float32), written once the test opens ``GATE[0]``."""

    def run_gpu(self, ws):
        import cupy as cp

        x = ws.inputs[0].dense()
        y = cp.empty_like(x)
        kernel = cp.RawKernel(_GATE_SOURCE, "dali_test_gate")
        kernel((1,), (256,), (x, y, np.int64(x.size), np.uint64(GATE[0].ptr)))
        return TensorListGPU.wrap(y)


@register("_test.cpu_sleep", devices=("cpu",), inputs=1, args=[Arg("ms", "float", default=50.0)])
class _CpuSleep(Operator):
    """Passes its input through after ``ms`` milliseconds of CPU work (a sleep)."""

    def run_cpu(self, ws):
        time.sleep(self.arg("ms") / 1000)
        return ws.inputs[0]


@register("_test.gpu_probe", devices=("gpu",), inputs=1)
class _GpuProbe(Operator):
    """Records the CUDA stream and device it runs on (also in the thread pool)."""

    seen: ClassVar[list[dict]] = []

    def run_gpu(self, ws):
        import cupy as cp

        def one(i):
            return cp.cuda.get_current_stream().ptr

        type(self).seen.append(
            {
                "current": cp.cuda.get_current_stream().ptr,
                "ws": ws.stream.ptr,
                "device": cp.cuda.Device().id,
                "pool_threads": set(ws.map(one)),
            }
        )
        return TensorListGPU.wrap(ws.inputs[0].dense() * 2)


@register("_test.fail_at_iteration", devices=("cpu",), inputs=1, args=[Arg("at", "int")])
class _FailAt(Operator):
    def run_cpu(self, ws):
        if ws.iteration == self.arg("at"):
            raise ValueError("CPU stage failed on purpose")
        return ws.inputs[0]


@register("_test.stage_probe", devices=("mixed", "gpu"), inputs=1, args=[Arg("ms", "float")])
class _StageProbe(Operator):
    """Sleeps ``ms`` and records (iteration, thread); fails where the input says so."""

    seen: ClassVar[list[tuple[str, int, str]]] = []

    def _probe(self, ws):
        import threading

        time.sleep(self.arg("ms") / 1000)
        type(self).seen.append((self.device, ws.iteration, threading.current_thread().name))
        if ws.iteration == 2 and self.device == "mixed":
            raise ValueError("mixed stage failed on purpose")
        return ws.inputs[0]

    run_mixed = run_gpu = _probe


@register("_test.prepared", devices=("mixed",), inputs=1)
class _Prepared(Operator):
    """A mixed op whose CPU part (``prepare``) runs in the CPU stage; fails there at iter. 1."""

    seen: ClassVar[list[tuple[str, int, str, object]]] = []

    def prepare(self, ws):
        import threading

        type(self).seen.append(("prepare", ws.iteration, threading.current_thread().name, None))
        if ws.iteration == 1:
            raise ValueError("prepare failed on purpose")
        return ("planned", ws.iteration, len(ws.inputs[0]))

    def run_mixed(self, ws):
        import threading

        if isinstance(ws.prepared, BaseException):
            raise ws.prepared
        name = threading.current_thread().name
        type(self).seen.append(("run", ws.iteration, name, ws.prepared))
        return ws.inputs[0]


@register("_test.gpu_source", devices=("gpu",), inputs=0, source=True)
class _GpuSource(Operator):
    """A source that runs in the GPU stage (only planned, never run)."""


def _call(op, *inputs, **kwargs):
    return call_operator(op.schema, inputs, kwargs)


def _pipe(graph, **kw):
    kw.setdefault("batch_size", 4)
    kw.setdefault("num_threads", 2)
    kw.setdefault("seed", 7)
    kw.setdefault("device_id", 0)
    pipe = dali.Pipeline(**kw)
    with pipe:
        out = graph()
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    return pipe


# -- no GPU needed ----------------------------------------------------------------------------


def test_split_stages_keeps_cpu_work_off_the_gpu_thread():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [np.zeros(3, np.float32)] * 2, name="src")
        gsrc = fn.external_source(lambda: [np.zeros(3, np.float32)] * 2, device="gpu")
        a = fn.random.uniform(src, range=(0, 1))  # CPU, on a CPU source
        g = fn.random.uniform(a.gpu(), range=(0, 1))  # copy + GPU op
        back = g.cpu()  # a CPU step fed by the GPU
        pipe.set_outputs(a, g, back, gsrc)
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    cpu, gpu = split_stages(plan)

    def names(idx):
        return [plan.steps[i].node.schema.fn_path for i in idx]

    assert sorted(cpu + gpu) == list(range(len(plan.steps)))
    assert names(cpu) == ["external_source", "external_source", "random.uniform"]
    assert names(gpu) == ["_transfer", "random.uniform", "_transfer"]
    assert [plan.steps[i].device for i in gpu] == ["gpu", "gpu", "cpu"]


def test_the_gpu_stage_is_cut_after_the_last_mixed_operator():
    # CPU -> mixed -> GPU, as DALI: the decode of iteration i+1 overlaps the GPU ops of i.
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        jpegs = fn.external_source(lambda: [np.zeros(3, np.uint8)] * 2, name="src")
        images = fn.decoders.image(jpegs, device="mixed")
        flip = fn.random.coin_flip()
        out = fn.crop_mirror_normalize(fn.resize(images, size=8), mirror=flip)
        pipe.set_outputs(out, fn.random.uniform(device="gpu"))
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    _, gpu = split_stages(plan)
    parts = split_gpu_stage(plan, gpu)

    def names(idx):
        return [plan.steps[i].node.schema.fn_path for i in idx]

    assert len(parts) == 2 and parts[0] + parts[1] == gpu
    assert names(parts[0])[-1] == "decoders.image"
    assert all(plan.steps[i].device != "mixed" for i in parts[1])
    assert set(names(parts[1])) >= {"resize", "crop_mirror_normalize"}
    # no mixed operator, or nothing after it: one GPU thread
    assert split_gpu_stage(plan, parts[0]) == [parts[0]]
    assert split_gpu_stage(plan, parts[1]) == [parts[1]]


def test_mixed_and_gpu_parts_run_on_their_own_threads_in_order():
    from dali._exec.executor import Executor, IterationRequest

    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [np.zeros(3, np.float32)] * 2, name="src")
        x = _call(_StageProbe, src, ms=30.0, device="mixed")
        pipe.set_outputs(_call(_StageProbe, x, ms=30.0, device="gpu"))
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    _StageProbe.seen.clear()
    ex = Executor(plan, num_threads=1, cuda=NoCuda())
    batch = TensorListCPU.wrap(np.zeros((2, 3), np.float32))
    from dali._exec.workspace import BatchMeta

    src_step = next(i for i, st in enumerate(plan.steps) if st.device == "cpu")
    n = 6
    start = time.perf_counter()
    for k in range(n):
        fed = {src_step: (batch, BatchMeta.stream(2 * k, 2, 0))}
        ex.submit(IterationRequest(k, 0, fed, 2, 2 * k))
    got = []
    for _ in range(n):
        try:
            ex.get()
            got.append("ok")
        except PipelineError as e:
            got.append(str(e.__cause__))
    elapsed = time.perf_counter() - start
    ex.close()
    assert got == ["ok", "ok", "mixed stage failed on purpose", "ok", "ok", "ok"]
    seen = _StageProbe.seen
    assert [k for d, k, _ in seen if d == "mixed"] == list(range(n))
    assert [k for d, k, _ in seen if d == "gpu"] == [0, 1, 3, 4, 5]  # 2 failed before it
    assert {t for d, _, t in seen if d == "mixed"} == {"dali-executor-mixed"}
    assert {t for d, _, t in seen if d == "gpu"} == {"dali-executor-gpu"}
    # the two parts overlap: ~ (n + 1) x 30 ms, not 2n x 30 ms
    assert elapsed < (2 * n - 2) * 0.030, elapsed
    assert not any(t.is_alive() for t in ex._threads)


def test_a_mixed_operators_prepare_runs_in_the_cpu_stage():
    from dali._exec.executor import Executor, IterationRequest, preparable
    from dali._exec.workspace import BatchMeta

    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        src = fn.external_source(lambda: [np.zeros(3, np.float32)] * 2, name="src")
        x = _call(_Prepared, src, device="mixed")
        pipe.set_outputs(_call(_StageProbe, x, ms=1.0, device="gpu"))
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    cpu, gpu = split_stages(plan)
    assert [plan.steps[i].node.schema.fn_path for i in preparable(plan, cpu, gpu)] == [
        "_test.prepared"
    ]
    _Prepared.seen.clear()
    ex = Executor(plan, num_threads=1, cuda=NoCuda())
    batch = TensorListCPU.wrap(np.zeros((2, 3), np.float32))
    src_step = next(i for i, st in enumerate(plan.steps) if st.device == "cpu")
    for k in range(3):
        fed = {src_step: (batch, BatchMeta.stream(2 * k, 2, 0))}
        ex.submit(IterationRequest(k, 0, fed, 2, 2 * k))
    ex.get()
    with pytest.raises(PipelineError, match="prepare failed on purpose") as info:
        ex.get()
    assert "_test.prepared" in str(info.value) or "Prepared" in str(info.value)
    ex.get()
    ex.close()
    seen = _Prepared.seen
    assert {t for kind, _, t, _ in seen if kind == "prepare"} == {"dali-executor"}
    assert [(k, p) for kind, k, _, p in seen if kind == "run"] == [
        (0, ("planned", 0, 2)),
        (2, ("planned", 2, 2)),
    ]


def test_input_less_cpu_ops_follow_a_gpu_identity_source():
    # The sample identity comes from the first source: a CPU op with no input that follows a
    # source run in the GPU stage must run there too, after it.
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(
            _call(_GpuSource, device="gpu"), fn.random.uniform(), fn.random.normal(name="n")
        )
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=1)
    cpu, gpu = split_stages(plan)
    assert cpu == [] and len(gpu) == 3


def test_large_requests_come_in_few_size_classes():
    from dali._exec.device import size_class

    rng = np.random.default_rng(0)
    sizes = [*rng.integers(1, 1 << 30, 2000).tolist(), 1, 1 << 20, (1 << 20) + 1, 3 << 28]
    for n in sizes:
        c = size_class(n)
        assert n <= c <= max(n, 1 << 20) * 1.25
        assert c == n or c % (1 << 18) == 0
    assert [size_class(n) for n in (1000, 1 << 20, (1 << 20) + 1)] == [1000, 1 << 20, 5 << 18]
    # ragged batches (sums of 256 random crop sizes) fall into one or two classes
    batches = [int(rng.integers(40_000, 250_000, 256).sum()) * 3 for _ in range(500)]
    assert len({size_class(b) for b in batches}) <= 2


def test_workspace_map_runs_on_the_calling_thread_once_the_pool_is_shut_down():
    from concurrent.futures import ThreadPoolExecutor

    from dali._exec.workspace import BatchMeta, Workspace

    pool = ThreadPoolExecutor(3)
    pool.shutdown()
    ws = Workspace(None, [], {}, BatchMeta.stream(0, 5, 0), 0, 0, pool, None)
    assert ws.map(lambda i: i * i, 5) == [0, 1, 4, 9, 16]


def test_memory_limits_are_checked_and_cpu_pipelines_have_no_pools():
    for bad in (-1, 1.5, "1G", True):
        with pytest.raises(ValueError, match="device_memory_limit"):
            dali.Pipeline(batch_size=1, num_threads=1, device_memory_limit=bad)
    with pytest.raises(ValueError, match="pinned_memory_limit"):
        dali.Pipeline(batch_size=1, num_threads=1, pinned_memory_limit=-5)
    pipe = _pipe(lambda: fn.random.uniform(), device_id=None, device_memory_limit=1 << 20)
    pipe.run()
    pipe.release_memory()  # no CUDA: nothing to do
    assert pipe.memory_stats()["device_total_bytes"] == 0


def test_a_cpu_pipeline_with_a_device_id_never_touches_cuda():
    code = (
        "import sys, dali\n"
        "from dali import fn\n"
        "pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=0)\n"
        "with pipe:\n"
        "    pipe.set_outputs(fn.random.uniform())\n"
        "pipe.run(); pipe.release_memory(); print(pipe.memory_stats()['device_total_bytes'],\n"
        "    'cupy' in sys.modules, pipe._cuda.initialized)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False", "False"]


# -- GPU ---------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_operators_and_copies_run_on_the_pipeline_stream():
    cp = pytest.importorskip("cupy")
    _GpuProbe.seen.clear()
    pipe = _pipe(
        lambda: _call(_GpuProbe, fn.random.uniform(shape=(16,), device="gpu")),
        num_threads=3,
        prefetch_queue_depth=1,  # nothing runs ahead: the staging checks below are exact
    )
    outs = [pipe.run()[0] for _ in range(3)]
    seen = _GpuProbe.seen
    assert len(seen) == 3
    stream = seen[0]["ws"]
    assert stream not in (0, cp.cuda.Stream.null.ptr)  # not the default stream
    assert all(s["current"] == s["ws"] == stream for s in seen)  # one stream per pipeline
    assert all(s["pool_threads"] == {stream} for s in seen)  # ws.map threads too
    assert all(s["device"] == 0 for s in seen)
    assert pipe._cuda.stream.ptr == stream
    other = _pipe(lambda: fn.random.uniform(device="gpu"))
    other.run()
    assert other._cuda.stream.ptr != stream  # another pipeline, another stream
    # The outputs carry the iteration's event and live in the pipeline's pool; the host-to-
    # device copy of random.uniform went through a pinned staging buffer, now back in its pool.
    assert all(o._event is not None for o in outs)
    assert all(isinstance(o[0]._event, type(outs[0]._event)) for o in outs)
    pipe._cuda.stream.synchronize()
    stats = pipe.memory_stats()
    assert stats["device_used_bytes"] > 0
    assert pipe._cuda.pinned_pool.n_free_blocks() >= 1
    assert stats["pinned_staged_bytes"] == 0


@pytest.mark.gpu
def test_cpu_and_gpu_stages_overlap():
    pytest.importorskip("cupy")

    def graph():
        x = _call(_CpuSleep, fn.random.uniform(shape=(1024,)), ms=40.0)
        return _call(_GpuSpin, x.gpu(), ms=40.0, sync=True)

    def time_per_iteration(**kw):
        pipe = _pipe(graph, **kw)
        for _ in range(2):
            pipe.run()[0].as_cpu()  # warm-up (kernel compilation, pools)
        n = 10
        start = time.perf_counter()
        for _ in range(n):
            pipe.run()[0].as_cpu()
        return (time.perf_counter() - start) / n

    serial = time_per_iteration(exec_pipelined=False, exec_async=False)
    staged = time_per_iteration()
    speedup = serial / staged
    print(
        f"\n[overlap] 40 ms CPU stage + 40 ms GPU stage: serial {serial * 1e3:.1f} ms/iter, "
        f"two stages {staged * 1e3:.1f} ms/iter, speedup {speedup:.2f}x"
    )
    assert serial > 0.075  # both stages' work
    assert speedup > 1.4  # ideal 2.0: the stages run at the same time


@pytest.mark.gpu
def test_outputs_are_returned_before_the_gpu_finishes_and_consumers_wait_on_the_event():
    cp = pytest.importorskip("cupy")

    def graph():
        x = fn.random.uniform(shape=(1 << 16,), range=(0.0, 1.0))
        return x, _call(_GpuGate, x.gpu())

    gate = Gate()
    GATE[:] = [gate]
    try:
        pipe = _pipe(graph, prefetch_queue_depth=1)
        x, y = pipe.run()
        assert not y._event.done  # run() did not wait for the GPU (the kernel waits for us)
        gate.open()
        expected = x.as_array() + 1
        side = cp.cuda.Stream(non_blocking=True)
        with side:
            got = cp.from_dlpack(y.as_tensor())  # DLPack: `side` waits for the event
            total = got.sum()
        side.synchronize()
        np.testing.assert_allclose(float(total), expected.sum(), rtol=1e-5)
        np.testing.assert_array_equal(cp.asnumpy(got, stream=side), expected)

        x, y = pipe.run()
        expected = x.as_array() + 1
        with side:
            cai = y.__cuda_array_interface__  # CAI v3: names the stream that now waits
            assert cai["version"] == 3 and cai["stream"] == side.ptr
            assert cp.asnumpy(cp.asarray(y), stream=side).tolist() == expected.tolist()

        side.synchronize()
        gate.close()  # (the iterations scheduled from here wait again)
        x, y = pipe.run(side)  # run(cuda_stream=...): the stream waits, on the GPU
        expected = x.as_array() + 1
        assert not y._event.done
        gate.open()
        raw = y.as_tensor()._array  # the bare CuPy array: no protocol waits for us here
        np.testing.assert_array_equal(cp.asnumpy(raw, stream=side), expected)
        # Samples and the host copy wait too.
        np.testing.assert_array_equal(y[1].as_cpu(), expected[1])
        np.testing.assert_array_equal(y.as_cpu().as_array(), expected)
    finally:
        gate.open()  # (a failure must not leave a kernel waiting for ever)


@pytest.mark.gpu
def test_dlpack_into_torch_and_jax_is_zero_copy_and_ordered():
    pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")

    def graph():
        x = fn.random.uniform(shape=(256,), range=(0.0, 1.0))
        return x, _call(_GpuSpin, x.gpu(), ms=100.0)

    pipe = _pipe(graph)
    x, y = pipe.run()
    t = torch.from_dlpack(y)  # torch's current stream waits for the event
    assert t.is_cuda and t.data_ptr() == y.data_ptr()
    np.testing.assert_array_equal(t.cpu().numpy(), x.as_array() + 1)
    x, y = pipe.run()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t2 = torch.from_dlpack(y[2]) * 1
    side.synchronize()
    np.testing.assert_array_equal(t2.cpu().numpy(), x.as_array()[2] + 1)
    try:
        import jax
        import jax.dlpack

        if not any(d.platform == "gpu" for d in jax.devices()):
            pytest.skip("jax has no GPU")
    except ImportError:
        pytest.skip("jax is not installed")
    x, y = pipe.run()
    j = jax.dlpack.from_dlpack(y.as_tensor())
    assert j.unsafe_buffer_pointer() == y.data_ptr()
    np.testing.assert_array_equal(np.asarray(j), x.as_array() + 1)


@pytest.mark.gpu
def test_device_memory_limit_raises_a_clear_error():
    pytest.importorskip("cupy")
    small = _pipe(lambda: fn.random.uniform(shape=(1 << 18,), device="gpu"))
    (_held,) = small.run()
    assert small.memory_stats()["device_used_bytes"] >= 4 * (1 << 20)  # 4 samples x 1 MiB
    limit = 1 << 20
    pipe = _pipe(
        lambda: fn.random.uniform(shape=(1 << 18,), device="gpu"), device_memory_limit=limit
    )
    with pytest.raises(PipelineError, match=r"dali.fn.random.uniform") as info:
        pipe.run()
    message = str(info.value)
    assert "device_memory_limit=1,048,576" in message and "Out of memory" in message
    print(f"\n[limit] {message.splitlines()[0]}")
    ok = _pipe(lambda: fn.random.uniform(shape=(1 << 10,), device="gpu"), device_memory_limit=limit)
    ok.run()
    assert 0 < ok.memory_stats()["device_total_bytes"] <= limit


@pytest.mark.gpu
def test_pinned_memory_limit_bounds_the_staging_in_flight():
    pytest.importorskip("cupy")
    batch_bytes = 4 * 1024 * 4  # 4 samples of 1024 float32, staged as one buffer

    def graph(device):
        return lambda: fn.random.uniform(shape=(1024,), device=device)

    cpu = _pipe(graph("cpu"))
    bounded = _pipe(graph("gpu"), pinned_memory_limit=batch_bytes)  # one copy in flight
    for _ in range(5):
        assert_same(cpu.run(), bounded.run())
        assert bounded.memory_stats()["pinned_staged_bytes"] <= batch_bytes
    too_small = _pipe(graph("gpu"), pinned_memory_limit=batch_bytes // 2)
    with pytest.raises(PipelineError, match="pinned_memory_limit=8,192") as info:
        too_small.run()
    assert "dali.fn.random.uniform" in str(info.value)


@pytest.mark.gpu
def test_release_memory_frees_cached_blocks():
    pytest.importorskip("cupy")
    pipe = _pipe(
        lambda: fn.random.normal(shape=(1 << 16,), device="gpu") * 2, prefetch_queue_depth=1
    )
    for _ in range(4):
        pipe.run()
    before = pipe.memory_stats()
    pipe.release_memory()
    after = pipe.memory_stats()
    print(f"\n[release] pool bytes {before['device_total_bytes']} -> {after['device_total_bytes']}")
    assert after["device_total_bytes"] < before["device_total_bytes"]
    assert after["device_used_bytes"] == before["device_used_bytes"]


@pytest.mark.gpu
def test_memory_stays_flat_over_20_epochs():
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(0)
    data = [
        [rng.random((int(rng.integers(20, 40)), 3), dtype=np.float32) for _ in range(8)]
        for _ in range(5)
    ]

    def graph():
        x = fn.external_source(source=data)  # host data, ragged, 5 batches an epoch
        g = fn.external_source(source=data, device="gpu")  # staged by the source
        return (x.gpu() + g) * 0.5, fn.random.uniform(device="gpu")

    pipe = _pipe(graph, batch_size=8)
    side = cp.cuda.Stream(non_blocking=True)
    totals, used = [], []
    for _ in range(20):
        while True:
            try:
                out, _ = pipe.run()
            except StopIteration:
                break
            with side:  # a consumer on another stream: its memory comes back after it is done
                cp.asarray(out[0]).sum()
            host = out.as_cpu()
            assert len(host) == 8
        pipe.reset()
        stats = pipe.memory_stats()
        totals.append(stats["device_total_bytes"])
        used.append(stats["device_used_bytes"])
    side.synchronize()
    print(
        f"\n[memory] 20 epochs: pool peak {max(totals)} B, final {totals[-1]} B; in use peak "
        f"{max(used)} B, final {used[-1]} B"
    )
    assert totals[-1] <= max(totals[:3])  # no growth after warm-up
    assert max(used[2:]) <= max(used[:2]) * 2 + 4096


@pytest.mark.gpu
def test_random_operators_give_the_same_values_on_cpu_and_gpu():
    pytest.importorskip("cupy")

    def graph(device):
        def g():
            return (
                fn.random.uniform(range=(-2.0, 5.0), shape=(5,), device=device),
                fn.random.normal(mean=1.0, stddev=3.0, shape=(2, 3), device=device),
                fn.random.coin_flip(probability=0.3, shape=(7,), device=device),
                fn.random.uniform(values=[1.0, 2.0, 4.0], device=device),
            )

        return g

    cpu = _pipe(graph("cpu"), seed=123)
    gpu = _pipe(graph("gpu"), seed=123)
    for _ in range(2):
        assert_same(cpu.run(), gpu.run())


@pytest.mark.gpu
def test_device_id_selects_the_device_and_a_bad_one_fails_clearly():
    cp = pytest.importorskip("cupy")
    pipe = _pipe(lambda: fn.random.uniform(device="gpu"), device_id=0)
    (out,) = pipe.run()
    assert out.device_id() == 0 and out.as_tensor()._array.device.id == 0
    count = cp.cuda.runtime.getDeviceCount()
    bad = _pipe(lambda: fn.random.uniform(device="gpu"), device_id=count)
    with pytest.raises(BuildError, match=f"device_id={count} is not a visible CUDA device"):
        bad.build()


@pytest.mark.gpu
def test_gpu_external_source_takes_cuda_arrays_without_copies():
    cp = pytest.importorskip("cupy")
    data = cp.arange(12, dtype=cp.float32).reshape(4, 3)
    pipe = _pipe(lambda: fn.external_source(lambda: data, device="gpu", no_copy=True))
    (out,) = pipe.run()
    assert out.data_ptr() == data.data.ptr  # zero-copy
    copied = _pipe(lambda: fn.external_source(name="x", device="gpu"), prefetch_queue_depth=1)
    buf = cp.arange(12, dtype=cp.float32).reshape(4, 3)
    copied.feed_input("x", buf)
    buf += 100  # after feed_input: in stream order after the pipeline's copy
    (out,) = copied.run()
    assert out.data_ptr() != buf.data.ptr
    assert out.as_cpu().as_array().tolist() == np.arange(12).reshape(4, 3).tolist()
    torch = pytest.importorskip("torch")
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(4, 3)
    pipe = _pipe(lambda: fn.external_source(lambda: t, device="gpu", no_copy=True))
    (out,) = pipe.run()
    assert out.data_ptr() == t.data_ptr()
    assert out.as_cpu().as_array().tolist() == t.cpu().tolist()


@pytest.mark.gpu
def test_errors_from_either_stage_surface_in_order():
    pytest.importorskip("cupy")

    def graph():
        x = _call(_FailAt, fn.random.uniform(shape=(4,)), at=2)
        return fn.random.uniform(x.gpu(), range=(0, 1))

    pipe = _pipe(graph, prefetch_queue_depth=3)
    assert len(pipe.run()[0]) == 4
    assert len(pipe.run()[0]) == 4
    with pytest.raises(PipelineError, match=r"_test.fail_at_iteration"):
        pipe.run()
