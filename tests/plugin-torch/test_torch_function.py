"""`dali.plugin.pytorch.fn.torch_python_function` and `TorchPythonFunction`:
torch tensors in and out, zero-copy inputs, DALI's errors, CPU/GPU parity and, on the GPU, the
operator's own torch stream ordered against the pipeline's stream."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dali import fn, pipeline_def, types
from dali.pipeline import Pipeline
from dali.plugin.pytorch import TorchPythonFunction
from dali.plugin.pytorch.fn import torch_python_function
from parity import cpu_gpu, device_id, to_device

DISPLAY = "dali.plugin.pytorch.fn.torch_python_function"


def run(graph, batch_size=2, device="cpu", iterations=1, **kwargs):
    """The outputs of ``iterations`` runs of a pipeline returning ``graph()``."""
    kwargs.setdefault("num_threads", 1)
    kwargs.setdefault("device_id", device_id(device))
    kwargs.setdefault("prefetch_queue_depth", 1)  # the function runs for the batches asked for

    @pipeline_def(batch_size=batch_size, seed=1, **kwargs)
    def pipe():
        return graph()

    p = pipe()
    try:
        outs = [p.run() for _ in range(iterations)]
    finally:
        p.close()
    return outs[0] if iterations == 1 else outs


def source():
    """Sample i of iteration t is ``[t, i, i]`` (int32)."""
    return fn.external_source(
        lambda info: np.array([info.iteration, info.idx_in_batch, info.idx_in_batch], np.int32),
        batch=False,
    )


# -- CPU: tensors in and out -------------------------------------------------------------------
def test_per_sample_torch_tensors_in_and_out():
    seen = []

    def f(t):
        seen.append((type(t), t.dtype, t.device.type))
        return t.to(torch.float32) * 2

    (out,) = run(lambda: torch_python_function(source(), function=f))
    assert out.dtype == types.FLOAT
    assert out.as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert seen == [(torch.Tensor, torch.int32, "cpu")] * 2


def test_inputs_share_the_batchs_memory():
    ptrs = []

    def f(t):
        ptrs.append(t.data_ptr())
        return t

    def graph():
        x = fn.external_source(lambda: [np.arange(4, dtype=np.int64) + i for i in range(3)])
        return x, torch_python_function(x, function=f)

    x, y = run(graph, batch_size=3)
    assert ptrs == [x.at(i).ctypes.data for i in range(3)]  # no copy on the way in
    assert y.as_array().tolist() == x.as_array().tolist()
    assert all(y.at(i).ctypes.data != x.at(i).ctypes.data for i in range(3))  # outputs: copies


def test_ragged_samples_and_views():
    def graph():
        x = fn.external_source(lambda: [np.arange(n, dtype=np.int16) for n in (3, 6)])
        return torch_python_function(x, function=lambda t: t[::2])  # a strided view

    (out,) = run(graph)
    assert out.shape() == [(2,), (3,)] and out.dtype == types.INT16
    assert [s.tolist() for s in out.samples()] == [[0, 2], [0, 2, 4]]


def test_batch_processing_lists_in_list_or_tensor_out():
    seen = []

    def as_list(batch):
        seen.append((type(batch), len(batch), type(batch[0])))
        return [t * 10 for t in batch]

    (out,) = run(lambda: torch_python_function(source(), function=as_list, batch_processing=True))
    assert out.as_array().tolist() == [[0, 0, 0], [0, 10, 10]]
    assert seen == [(list, 2, torch.Tensor)]
    (dense,) = run(
        lambda: torch_python_function(
            source(), function=lambda b: torch.stack(b) + 1, batch_processing=True
        )
    )
    assert dense.as_array().tolist() == [[1, 1, 1], [1, 2, 2]]


def test_several_inputs_and_outputs():
    def f(a, b):
        return a + b, (a * b).sum(), a.flip(0)

    def graph():
        x = source()
        return torch_python_function(x, x, function=f, num_outputs=3)

    total, dot, flipped = run(graph)
    assert total.as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert dot.shape() == [(), ()] and dot.as_array().tolist() == [0, 2]
    assert flipped.as_array().tolist() == [[0, 0, 0], [1, 1, 0]]


def test_zero_outputs_for_side_effects_never_pruned():
    calls = []

    def graph():
        x = source()
        node = torch_python_function(x, function=lambda t: calls.append(t.tolist()), num_outputs=0)
        assert node is None
        return x

    run(graph)
    assert calls == [[0, 0, 0], [0, 1, 1]]


def test_output_layouts():
    def graph():
        x = source()
        return torch_python_function(
            x, function=lambda t: (t, t[None]), num_outputs=2, output_layouts=["W", "HW"]
        )

    a, b = run(graph)
    assert (a.layout(), b.layout()) == ("W", "HW")
    (c,) = run(lambda: torch_python_function(source(), function=lambda t: t, output_layouts="X"))
    assert c.layout() == "X"
    with pytest.raises(RuntimeError, match=r"output_layouts.*'HW' cannot describe the 1-dim"):
        run(lambda: torch_python_function(source(), function=lambda t: t, output_layouts="HW"))


@pytest.mark.parametrize(
    ("np_type", "dali_type"),
    [
        (np.float16, types.FLOAT16),
        (np.float32, types.FLOAT),
        (np.float64, types.FLOAT64),
        (np.bool_, types.BOOL),
        (np.uint8, types.UINT8),
        (np.int8, types.INT8),
        (np.int16, types.INT16),
        (np.int32, types.INT32),
        (np.int64, types.INT64),
    ],
)
def test_dtypes_round_trip(np_type, dali_type):
    data = np.array([[0, 1, 0], [1, 1, 0]], np_type)
    torch_types = []

    def f(t):
        torch_types.append(t.dtype)
        return t.clone()

    def graph():
        return torch_python_function(fn.external_source(lambda: list(data)), function=f)

    (out,) = run(graph)
    assert out.dtype == dali_type
    np.testing.assert_array_equal(out.as_array(), data)
    assert torch_types == [torch.from_numpy(data).dtype] * 2


def test_tensors_that_need_grad_numpy_and_scalars_are_accepted():
    def f(t):
        return t.float().requires_grad_() * 2, t.numpy() + 1, 7

    a, b, c = run(lambda: torch_python_function(source(), function=f, num_outputs=3))
    assert a.dtype == types.FLOAT and a.as_array().tolist() == [[0, 0, 0], [0, 2, 2]]
    assert b.as_array().tolist() == [[1, 1, 1], [1, 2, 2]]
    assert c.shape() == [(), ()] and c.as_array().tolist() == [7, 7]


def test_outputs_are_copies():
    buf = torch.zeros(1, dtype=torch.int64)

    def f(t):
        buf[0] = t[0]
        return buf  # the same tensor every time

    outs = run(lambda: torch_python_function(source(), function=f), iterations=3)
    assert [o.as_array().ravel().tolist() for (o,) in outs] == [[0, 0], [1, 1], [2, 2]]


def test_the_pipeline_is_current_inside_the_function():
    seen = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        x = source()
        torch_python_function(x, function=lambda t: seen.append(Pipeline.current()), num_outputs=0)
        return x

    p = pipe()
    p.run()
    assert seen == [p, p]


def test_ops_class():
    double = TorchPythonFunction(function=lambda t: (t * 2, t + 1), num_outputs=2)
    assert repr(double).startswith("TorchPythonFunction(function=")
    a, b = run(lambda: double(source(), output_layouts="W"))
    assert a.as_array().tolist() == [[0, 0, 0], [0, 2, 2]] and a.layout() == "W"
    assert b.as_array().tolist() == [[1, 1, 1], [1, 2, 2]]
    per_batch = TorchPythonFunction(lambda b: torch.stack(b).sum(1), batch_processing=True)
    (total,) = run(lambda: per_batch(source()))
    assert total.as_array().tolist() == [0, 2]


def test_importing_the_operator_does_not_import_torch():
    code = (
        "import sys, dali.plugin.pytorch.fn, dali.plugin.pytorch._torch_function;"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- CPU: errors -------------------------------------------------------------------------------
def test_needs_a_current_pipeline():
    msg = r"Current Pipeline not set!\nTorchPythonFunction operator must be used"
    with pytest.raises(RuntimeError, match=msg):
        torch_python_function(function=lambda: torch.zeros(1))
    with pytest.raises(RuntimeError, match=msg):
        TorchPythonFunction(function=lambda: torch.zeros(1))()


def test_argument_errors_name_the_operator_and_the_argument():
    with Pipeline(batch_size=1, num_threads=1, device_id=None):
        x = fn.external_source(lambda: [np.zeros(1)])
        with pytest.raises(TypeError, match=rf"`{DISPLAY}`: the argument `function` should be "):
            torch_python_function(x, function=3)
        with pytest.raises(TypeError, match="function"):
            torch_python_function(x)  # type: ignore[call-arg]
        with pytest.raises(ValueError, match=rf"`{DISPLAY}`: `num_outputs` must be a non-neg"):
            torch_python_function(x, function=lambda t: t, num_outputs=-1)
        with pytest.raises(TypeError, match=rf"`{DISPLAY}`: `output_layouts` should be a str"):
            torch_python_function(x, function=lambda t: t, output_layouts=3)
        with pytest.raises(ValueError, match=rf"`{DISPLAY}` does not support device=\"mixed\""):
            torch_python_function(x, function=lambda t: t, device="mixed")
        with pytest.raises(TypeError, match="do not support Multiple Input Sets"):
            torch_python_function([x, x], function=lambda t: t)


def test_gpu_inputs_need_device_gpu():
    with Pipeline(batch_size=1, num_threads=1, device_id=0):
        x = fn.external_source(lambda: [np.zeros(1)]).gpu()
        with pytest.raises(ValueError, match=rf"`{DISPLAY}`: input 0 is on the GPU"):
            torch_python_function(x, function=lambda t: t)


def test_wrong_number_of_outputs_names_the_operator_and_sample():
    def graph():
        return torch_python_function(
            source(), function=lambda t: (t, t, t), num_outputs=2, name="tpf"
        )

    with pytest.raises(RuntimeError, match=rf"`{DISPLAY}` \(tpf\), sample 0") as e:
        run(graph)
    assert isinstance(e.value.__cause__, ValueError) and "got 3, expected 2" in str(e.value)
    with pytest.raises(RuntimeError, match="must be a tuple"):
        run(lambda: torch_python_function(source(), function=lambda t: t, num_outputs=2))
    with pytest.raises(RuntimeError, match="returned None"):
        run(lambda: torch_python_function(source(), function=lambda t: None))


def test_an_exception_in_the_function_names_the_operator_and_sample():
    def f(t):
        if t[1] == 1:
            raise ArithmeticError("bad sample")
        return t

    with pytest.raises(RuntimeError, match=rf"CPU operator `{DISPLAY}` \(\w+\), sample 1") as e:
        run(lambda: torch_python_function(source(), function=f))
    assert isinstance(e.value.__cause__, ArithmeticError) and "bad sample" in str(e.value)
    # the user's line (this test), not the plugin's module that traced the operator
    site = str(e.value).split("used in the pipeline definition at:", 1)[1].splitlines()[1]
    assert "test_torch_function.py" in site and "torch_python_function(source()" in str(e.value)


def test_a_type_dali_cannot_hold_is_an_error():
    with pytest.raises(RuntimeError, match=r"(?s)sample 0.*torch.bfloat16, which DALI cannot hold"):
        run(lambda: torch_python_function(source(), function=lambda t: t.bfloat16()))


# -- GPU ---------------------------------------------------------------------------------------
@cpu_gpu()
def test_parity_per_sample_several_outputs(device):
    def f(a, b):
        return (a.float() * 0.5 + b.float()).sqrt(), a.flip(-1), (a > 2)

    def graph():
        x = to_device(
            fn.external_source(lambda: [np.arange(12, dtype=np.int32).reshape(3, 4)] * 3), device
        )
        return torch_python_function(x, x + 1, function=f, num_outputs=3, device=device)

    return run(graph, batch_size=3, device=device)


@cpu_gpu()
def test_parity_batch_processing_and_dtypes(device):
    def f(halves, flags):
        stacked = torch.stack(halves)
        return stacked * 2, [~t for t in flags], torch.stack(halves).to(torch.int64).sum(1)

    def graph():
        h = fn.external_source(lambda: [np.linspace(0, 1, 5).astype(np.float16)] * 2)
        b = fn.external_source(lambda: [np.array([True, False]), np.array([False, False])])
        return torch_python_function(
            to_device(h, device),
            to_device(b, device),
            function=f,
            num_outputs=3,
            batch_processing=True,
            device=device,
        )

    return run(graph, device=device)


@pytest.mark.gpu
def test_gpu_tensors_on_the_pipelines_device_and_the_operators_own_stream():
    seen = []

    def record(t):
        stream = torch.cuda.current_stream()
        seen.append((t.device, stream.cuda_stream, torch.cuda.default_stream().cuda_stream))
        return t

    def graph():
        x = fn.external_source(lambda: [np.ones(4, np.float32)] * 2).gpu()
        a = torch_python_function(x, function=record, device="gpu")
        b = torch_python_function(x, function=record, device="gpu")
        return a, b

    run(graph, device="gpu", iterations=2)
    assert len(seen) == 8  # 2 operators x 2 samples x 2 iterations
    assert {device for device, _, _ in seen} == {torch.device("cuda", 0)}
    streams = [stream for _, stream, _ in seen]
    assert all(stream != default for _, stream, default in seen)  # never torch's default
    # one stream per operator, made once: a's calls are seen first in each iteration
    a_streams, b_streams = {streams[0], streams[1], streams[4], streams[5]}, {streams[2]}
    assert len(a_streams) == 1 and a_streams != b_streams


@pytest.mark.gpu
def test_gpu_long_work_in_the_function_is_ordered_both_ways():
    # Long GPU work on both sides of the function: big matrix products on the pipeline's
    # stream just before it (a CuPy python_function), and on the torch stream in it before it
    # writes its output. Without the event waits the function would read an unwritten input,
    # or the pipeline would copy an unwritten output; every iteration has other values, so
    # either shows.
    cupy = pytest.importorskip("cupy")
    n = 2048

    def on_pipeline_stream(a):  # CuPy's current stream is the pipeline's here
        m = cupy.eye(n, dtype=cupy.float32)
        z = m
        for _ in range(30):
            z = z @ m  # stays the identity: a lot of GPU work with a known result
        return a * z[0, 0]

    def on_torch_stream(x):
        m = torch.eye(n, device=x.device)
        z = m
        for _ in range(30):
            z = z @ m
        return x * z[0, 0] + z[1, 1]

    def graph():
        x = fn.external_source(lambda i: np.full((2, 256, 256), i + 1, np.float32), batch=True)
        x = fn.python_function(x.gpu(), function=on_pipeline_stream, device="gpu")
        return torch_python_function(x, function=on_torch_stream, device="gpu")

    outs = run(graph, device="gpu", iterations=5)
    for i, (out,) in enumerate(outs):
        values = out.as_cpu().as_array()
        assert values.min() == values.max() == i + 2, f"iteration {i}"


@pytest.mark.gpu
def test_gpu_identity_batch_processing_and_side_effects():
    sums = []

    def graph():
        x = fn.external_source(lambda i: np.full((2, 3), i, np.int64), batch=True).gpu()
        same = torch_python_function(x, function=lambda t: t, device="gpu")  # a view of x
        torch_python_function(
            x,
            function=lambda b: sums.append(int(torch.stack(b).sum())),
            batch_processing=True,
            num_outputs=0,
            device="gpu",
        )
        return same

    outs = run(graph, device="gpu", iterations=3)
    assert [o.as_cpu().as_array().tolist() for (o,) in outs] == [[[i] * 3] * 2 for i in range(3)]
    assert sums == [0, 6, 12]
