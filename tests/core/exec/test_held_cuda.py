"""CUDA calls that keep the GIL (`dali._exec.held`): the same effects as CuPy's own calls.

Kernels of `kernel_module` launch through the driver with the GIL held: their results are those
of CuPy's launch, with arrays and numpy scalars of every kind as arguments; an argument the
driver path does not pass (a Python int) goes through CuPy's launch instead. The staging copy
(pinned host to device), its event and the event's query give the bytes CuPy's copy gives.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

_SOURCE = r"""
extern "C" __global__ void dali_test_axpb(const float* x, float* y, int n, float a, double b,
                                          unsigned char c, long long d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + (float)b + (float)c + (float)d;
}
"""


def test_a_held_launch_computes_what_cupys_launch_does():
    cp = pytest.importorskip("cupy")
    from dali._exec import held
    from dali._ops.gpu.kernels import HeldKernel, kernel_module

    kernel = kernel_module(0, _SOURCE, ("dali_test_axpb",))["dali_test_axpb"]
    assert isinstance(kernel, HeldKernel)
    x = cp.arange(1000, dtype=cp.float32)
    args = (np.int32(1000), np.float32(2.5), np.float64(0.25), np.uint8(3), np.int64(-7))
    want = 2.5 * cp.asnumpy(x) + 0.25 + 3 - 7
    held_out = cp.zeros_like(x)
    kernel((4,), (256,), (x, held_out, *args))
    np.testing.assert_array_equal(cp.asnumpy(held_out), want)
    assert held._cuda() is not None  # the driver path ran (libcuda is there on a GPU host)
    # a Python int is not passed by the driver path: CuPy's launch takes the call
    assert not held.launch(kernel._function, (4,), (256,), (x, held_out, 1000), 0, 0)
    plain = cp.zeros_like(x)
    kernel.kernel((4,), (256,), (x, plain, *args))
    np.testing.assert_array_equal(cp.asnumpy(plain), cp.asnumpy(held_out))


def test_staged_copies_events_and_queries():
    cp = pytest.importorskip("cupy")
    from dali._exec import held

    stream = cp.cuda.Stream(non_blocking=True)
    host = cp.cuda.alloc_pinned_memory(1 << 20)
    src = np.frombuffer(host, np.uint8, 1 << 20)
    src[:] = np.arange(1 << 20) % 251
    dst = cp.empty(1 << 20, cp.uint8)
    held.copy_to_device_async(dst.data.ptr, host.ptr, 1 << 20, stream.ptr)
    event = cp.cuda.Event(disable_timing=True)
    held.record(event.ptr, stream.ptr)
    event.synchronize()
    assert held.query(event.ptr)
    np.testing.assert_array_equal(cp.asnumpy(dst), src)


_SLOW_WRITE = r"""
extern "C" __global__ void dali_test_slow_write(int* out, long long spins) {
  long long t = clock64();
  while (clock64() - t < spins) {}
  out[0] = 42;
}
"""


@pytest.mark.parametrize("driver", [True, False])
def test_a_stream_made_to_wait_for_an_event_sees_the_work_before_it(monkeypatch, driver):
    """`held.wait_event`: a copy queued on stream B after B waits for an event recorded on
    stream A behind a slow kernel reads what the kernel wrote (through the driver, and through
    CuPy's call where the driver library is not loaded)."""
    cp = pytest.importorskip("cupy")
    from dali._exec import held
    from dali._ops.gpu.kernels import kernel_module

    if not driver:
        monkeypatch.setattr(held, "_cuda", lambda: None)
    kernel = kernel_module(0, _SLOW_WRITE, ("dali_test_slow_write",))["dali_test_slow_write"]
    a, b = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    out = cp.zeros(1, cp.int32)
    seen = cp.full(1, -1, cp.int32)
    with a:
        kernel((1,), (1,), (out, np.int64(50_000_000)), stream=a)
    event = cp.cuda.Event(disable_timing=True)
    held.record(event.ptr, a.ptr)
    held.wait_event(b.ptr, event.ptr)
    seen.data.copy_from_device_async(out.data, 4, stream=b)
    b.synchronize()
    assert int(seen.get()[0]) == 42
