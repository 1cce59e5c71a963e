"""CPU/GPU parity: one test body run on the CPU and on the GPU, and the outputs compared.

``tests/`` is on ``sys.path`` (pytest puts the directory of ``tests/conftest.py`` there), so any
test module can ``from parity import ...``. The pattern is CuPy's ``numpy_cupy_allclose``
(``cupy/testing/_loops.py``): the test body takes a ``device`` argument, builds its
pipeline for that device and returns the outputs; the decorator runs it with ``"cpu"`` and with
``"gpu"`` and compares the two.

* `cpu_gpu`: the decorator. The test is marked ``gpu`` (skipped where no CUDA device is visible)
  and skipped without CuPy.
* `assert_same`: the comparison itself, for tests that run the two pipelines on their own (over
  several iterations, or several cases with their own tolerances in one test).
* `to_device` and `device_id`: the two things a body changes with the device, the data moved to
  the GPU after the source and the pipeline's ``device_id``.
* `jax_gpu_count`: how many GPUs JAX and dali can both use, for the JAX tutorials' tests (0 on
  a CPU-only machine: their ``device="mixed"`` becomes ``"cpu"``).

"The same" means: as many outputs; every CPU output a ``TensorListCPU`` and every GPU output a
``TensorListGPU`` (the GPU really ran); equal dtypes, layouts and sample shapes; every value
within ``atol + rtol * |cpu value|`` (the CPU output is the reference, as in
``np.testing.assert_allclose``), and in floating point NaN and ±inf at the same places. The
defaults, 0, ask for equal values.

Example (a test module; pytest runs ``test_flip`` once, on both devices):
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @cpu_gpu()
    ... def test_flip(device):
    ...     @pipeline_def(batch_size=2, num_threads=1, device_id=device_id(device))
    ...     def pipe():
    ...         data = fn.external_source(lambda: [np.zeros((4, 6, 3), np.uint8)] * 2)
    ...         return fn.flip(to_device(data, device), horizontal=1)
    ...
    ...     return pipe().run()
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

__all__ = ["assert_same", "cpu_gpu", "device_id", "jax_gpu_count", "to_device"]

DEVICES = ("cpu", "gpu")


def to_device(node: Any, device: str) -> Any:
    """``node`` moved to the GPU when ``device`` is ``"gpu"``; ``node`` itself on the CPU."""
    return node.gpu() if device == "gpu" else node


def jax_gpu_count() -> int:
    """How many GPUs JAX's default backend has, where CuPy (so dali) sees them too."""
    import jax

    if jax.default_backend() != "gpu":
        return 0
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy or no driver
        return 0


def device_id(device: str) -> int | None:
    """The pipeline's ``device_id`` for a run on ``device``: GPU 0, or none for the CPU run."""
    return 0 if device == "gpu" else None


def _outputs(outputs: Any) -> list[Any]:
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _sample_diff(name: str, a: np.ndarray, b: np.ndarray, rtol: float) -> float:
    """The largest ``|b - a| - rtol * |a|`` of one sample (``a`` is the CPU's)."""
    assert a.dtype == b.dtype, f"{name}: dtype {b.dtype} on the GPU, {a.dtype} on the CPU"
    assert a.shape == b.shape, f"{name}: shape {b.shape} on the GPU, {a.shape} on the CPU"
    if not a.size:
        return 0.0
    if a.dtype.kind not in "fc":
        return float(np.abs(a.astype(np.int64) - b.astype(np.int64)).max())
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    nan = np.isnan(a64)
    assert np.array_equal(nan, np.isnan(b64)), f"{name}: NaN at other places"
    a64, b64 = a64[~nan], b64[~nan]
    inf = np.isinf(a64) | np.isinf(b64)
    assert np.array_equal(a64[inf], b64[inf]), f"{name}: inf at other places"
    d = np.abs(a64[~inf] - b64[~inf]) - rtol * np.abs(a64[~inf])
    return float(d.max(initial=0.0))


def assert_same(
    cpu: Any, gpu: Any, *, atol: float = 0.0, rtol: float = 0.0, name: str = "outputs"
) -> float:
    """Check that the outputs of a pipeline run on the GPU are those of its run on the CPU.

    Prints ``PARITY <name> max_diff=<d>`` (``pytest -s`` shows it): the tolerance a test needs
    is read from there.

    Args:
        cpu: The CPU run's outputs: a ``TensorListCPU`` or a sequence of them (``run()``'s tuple).
        gpu: The GPU run's outputs (``TensorListGPU``), in the same order.
        atol: Largest absolute difference allowed.
        rtol: Largest difference allowed relative to the CPU value, on top of ``atol``.
        name: What is compared, for the messages.

    Returns:
        The largest difference found beyond ``rtol * |cpu value|``.

    Raises:
        AssertionError: when the outputs differ (backend, dtype, layout, shapes or values).
    """
    cpu, gpu = _outputs(cpu), _outputs(gpu)
    assert len(cpu) == len(gpu), f"{name}: {len(gpu)} outputs on the GPU, {len(cpu)} on the CPU"
    worst = 0.0
    for k, (c, g) in enumerate(zip(cpu, gpu)):
        where = f"{name}, output {k}"
        assert type(c).__name__ == "TensorListCPU", f"{where}: {type(c).__name__} on the CPU"
        assert type(g).__name__ == "TensorListGPU", f"{where}: {type(g).__name__} on the GPU"
        g = g.as_cpu()
        assert g.dtype == c.dtype, f"{where}: dtype {g.dtype} on the GPU, {c.dtype} on the CPU"
        assert g.layout() == c.layout(), f"{where}: layout {g.layout()!r}, {c.layout()!r}"
        assert g.shape() == c.shape(), f"{where}: shapes {g.shape()} on the GPU, {c.shape()}"
        for i in range(len(c)):
            a, b = np.asarray(c.at(i)), np.asarray(g.at(i))
            worst = max(worst, _sample_diff(f"{where}, sample {i}", a, b, rtol))
    print(f"PARITY {name} max_diff={worst:g}")
    assert worst <= atol, f"{name}: CPU and GPU differ by {worst} (allowed {atol})"
    return worst


def cpu_gpu(*, atol: float = 0.0, rtol: float = 0.0) -> Callable[[Callable], Callable]:
    """Decorate a test body ``f(..., device)`` to run on the CPU and the GPU and compare.

    The body returns its pipeline's outputs; `assert_same` compares them with ``atol`` and
    ``rtol``. The test is marked ``gpu`` and takes the body's other arguments (fixtures,
    ``parametrize``), without ``device``.
    """

    def decorate(body: Callable) -> Callable:
        @functools.wraps(body)
        def test(*args: Any, **kwargs: Any) -> None:
            pytest.importorskip("cupy")
            cpu, gpu = (body(*args, device=device, **kwargs) for device in DEVICES)
            # the test's id, parameters included: "path::test_x[case] (call)" -> "test_x[case]"
            test_id = os.environ.get("PYTEST_CURRENT_TEST", body.__name__)
            name = test_id.rsplit("::", 1)[-1].split(" ")[0]
            assert_same(cpu, gpu, atol=atol, rtol=rtol, name=name)

        signature = inspect.signature(body)
        params = [p for p in signature.parameters.values() if p.name != "device"]
        test.__signature__ = signature.replace(parameters=params)  # pytest's fixtures: no `device`
        return pytest.mark.gpu(test)

    return decorate
