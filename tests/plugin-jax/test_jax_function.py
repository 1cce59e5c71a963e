"""`dali.plugin.jax.fn.jax_function` (seed 003).

The CPU tests run here; `test_gpu_matches_cpu` runs the same functions on GPU batches where a
GPU, CuPy and a CUDA JAX are present, and compares.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from dali import fn, pipeline_def
from dali.plugin import jax as dax
from dali.plugin.jax.fn import jax_function
from parity import assert_same, to_device

IMAGES = np.arange(2 * 4 * 6 * 3, dtype=np.uint8).reshape(2, 4, 6, 3)


def _run(graph, batch_size=2, device_id=None):
    pipe = pipeline_def(graph, batch_size=batch_size, num_threads=1, device_id=device_id)()
    return pipe.run()


def _images(device="cpu"):
    return to_device(fn.external_source(lambda: IMAGES, batch=True, layout="HWC"), device)


def test_flip_as_in_the_documentation():
    seen = []

    @dax.fn.jax_function
    def flip_horizontal(image_batch: jax.Array):
        seen.append((type(image_batch), image_batch.shape, image_batch.dtype))
        return image_batch[:, :, ::-1, :]  # batch of HWC images

    (out,) = _run(lambda: flip_horizontal(_images()))
    assert issubclass(seen[0][0], jax.Array)
    assert seen[0][1:] == ((2, 4, 6, 3), np.uint8)  # the whole batch at once
    np.testing.assert_array_equal(out.as_array(), IMAGES[:, :, ::-1, :])
    assert out.layout() == "HWC"  # same ndim as the input: its layout is copied


def test_jit_and_vmap_compose():
    @jax_function
    @jax.jit
    @jax.vmap
    def flip_horizontal(image: jax.Array):
        return image[:, ::-1, :]  # one HWC image

    (out,) = _run(lambda: flip_horizontal(_images()))
    np.testing.assert_array_equal(out.as_array(), IMAGES[:, :, ::-1, :])


def test_two_outputs_types_shapes_and_layouts():
    @jax_function(num_outputs=2)
    def two(x):
        return x + 1, jnp.sum(x, axis=(1, 2, 3), dtype=jnp.uint32)

    plus, total = _run(lambda: two(_images()))
    assert str(plus.dtype) == "DALIDataType.UINT8" and plus.layout() == "HWC"
    assert str(total.dtype) == "DALIDataType.UINT32" and total.layout() == ""
    assert total.shape() == [(), ()]
    np.testing.assert_array_equal(plus.as_array(), IMAGES + 1)
    assert total.as_array().tolist() == IMAGES.reshape(2, -1).sum(axis=1).tolist()


def test_output_layouts_string_and_list():
    @jax_function(output_layouts="CHW")
    def to_chw(x):
        return jnp.transpose(x, (0, 3, 1, 2))

    @jax_function(num_outputs=2, output_layouts=["WHC", "X"])
    def two(x):
        return jnp.transpose(x, (0, 2, 1, 3)), x.reshape(x.shape[0], -1)

    chw, whc, flat = _run(lambda: (to_chw(_images()), *two(_images())))
    assert (chw.layout(), whc.layout(), flat.layout()) == ("CHW", "WHC", "X")
    assert chw.shape()[0] == (3, 4, 6)


def test_several_inputs_and_argument_free_functions():
    @jax_function
    def add(a, b):
        return a + b

    @jax_function
    def ones():
        return jnp.ones((2, 3), jnp.float32)

    (out, one) = _run(lambda: (add(_images(), _images()), ones()))
    np.testing.assert_array_equal(out.as_array(), IMAGES + IMAGES)
    assert one.as_array().tolist() == [[1.0] * 3] * 2


def test_side_effects_with_preserve_and_pruning_without():
    calls = []

    @jax_function(num_outputs=0)
    def kept(x):
        calls.append("kept")

    @jax_function(num_outputs=0, preserve=False)
    def pruned(x):
        calls.append("pruned")

    def graph():
        x = _images()
        assert kept(x) is None and pruned(x) is None
        return x

    _run(graph)
    assert set(calls) == {"kept"}  # once per prefetched iteration


def test_in_a_data_iterator():
    @jax_function
    def double(x):
        return x * 2

    @dax.data_iterator(output_map=["x"])
    def iterator_fn():
        return double(fn.external_source(lambda: IMAGES, batch=True))

    batch = next(iterator_fn(batch_size=2))
    np.testing.assert_array_equal(np.asarray(batch["x"]), IMAGES * 2)


def test_sharding_presents_a_global_array():
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    device = jax.devices("cpu")[0]
    sharding = NamedSharding(Mesh(np.array([device]), ("batch",)), PartitionSpec("batch"))
    seen = []

    @jax_function(sharding=sharding)
    def f(x):
        seen.append(x.sharding)
        return x + 1

    (out,) = _run(lambda: f(_images()))
    assert seen and all(s == sharding for s in seen)
    np.testing.assert_array_equal(out.as_array(), IMAGES + 1)


# -- errors name the operator ----------------------------------------------------------------


def test_ragged_input_is_a_run_time_error():
    @jax_function
    def f(x):
        return x

    def graph():
        return f(
            fn.external_source(lambda: [np.zeros(2, np.uint8), np.zeros(3, np.uint8)], batch=True)
        )

    with pytest.raises(Exception, match=r"(?s)dali.plugin.jax.fn.jax_function.*different shapes"):
        _run(graph)


def test_wrong_number_of_outputs():
    @jax_function(num_outputs=2)
    def f(x):
        return x

    with pytest.raises(Exception, match=r"(?s)jax_function.*tuple of 2 arrays"):
        _run(lambda: f(_images()))


def test_wrong_batch_size_of_an_output():
    @jax_function
    def f(x):
        return x[:1]

    with pytest.raises(Exception, match=r"(?s)jax_function.*has 1 samples.*batch has 2"):
        _run(lambda: f(_images()))


def test_numpy_output_is_rejected():
    @jax_function
    def f(x):
        return np.zeros((2, 1))

    with pytest.raises(Exception, match=r"(?s)jax_function.*must be a jax.Array"):
        _run(lambda: f(_images()))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_outputs": -1}, "argument `num_outputs`"),
        ({"output_layouts": 3}, "argument `output_layouts`"),
        ({"num_outputs": 2, "output_layouts": ["A"]}, "got 1 layouts for 2 output"),
        ({"device": "mixed"}, "argument `device`"),
        ({"sharding": "batch"}, "argument `sharding`"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=f"dali.plugin.jax.fn.jax_function`, {match}|{match}"):
        jax_function(lambda x: x, **kwargs)


def test_hidden_from_dali_fn():
    import dali.fn

    assert not any("jax" in name for name in dir(dali.fn))


# -- GPU ----------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_matches_cpu():
    pytest.importorskip("cupy")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("this JAX has no GPU backend")

    @jax_function(num_outputs=2)
    @jax.jit
    def f(x):
        return x[:, :, ::-1, :] + 1, jnp.sum(x, axis=(1, 2, 3), dtype=jnp.uint32)

    cpu, gpu = (_run(lambda d=device: f(_images(d)), device_id=0) for device in ("cpu", "gpu"))
    assert cpu[0].layout() == "HWC"
    assert_same(cpu, gpu)
