"""One registry generates `fn` and `ops`; calls are checked against the schema."""

from __future__ import annotations

import inspect

import dali
import numpy as np
import pytest
from dali import fn, ops
from dali._graph.schema import all_schemas


def test_public_modules_keep_sorted_all():
    import dali.testing

    for mod in (
        dali,
        dali.fn,
        dali.ops,
        dali.types,
        dali.tensors,
        dali.math,
        dali.pipeline,
        dali.testing,
    ):
        assert list(mod.__all__) == sorted(mod.__all__), mod.__name__


def test_fn_and_ops_come_from_the_registry():
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        target = fn
        for part in schema.module_path:
            target = getattr(target, part)
        assert callable(getattr(target, schema.fn_name)), schema.fn_path
        cls = ops
        for part in schema.module_path:
            cls = getattr(cls, part)
        assert isinstance(getattr(cls, schema.class_name), type), schema.fn_path


def test_nested_namespaces_are_importable_modules():
    import importlib

    mod = importlib.import_module("dali.fn.random")
    assert mod.uniform is fn.random.uniform
    assert fn.random.uniform.__module__ == "dali.fn.random"
    assert "range" in inspect.signature(fn.random.uniform).parameters
    assert "Uniformly distributed" in fn.random.uniform.__doc__


def test_hidden_operators_are_not_public():
    assert not any(name.startswith("_") for name in fn.__all__)


def test_unknown_argument_lists_valid_names():
    with pytest.raises(KeyError) as info:
        fn.random.uniform(bogus=1)
    msg = str(info.value)
    assert 'Argument "bogus" is not defined for operator "dali.fn.random.uniform"' in msg
    assert "range" in msg and "shape" in msg
    assert isinstance(info.value, TypeError)  # also a TypeError, like Python's own kwargs check


def test_unknown_argument_in_ops_constructor():
    with pytest.raises(KeyError, match="bogus"):
        ops.random.Uniform(bogus=2)


def test_datanode_for_scalar_only_argument_is_type_error():
    with pytest.raises(
        TypeError, match=r"`dtype` for operator `dali.fn.random.uniform` should not be a 'DataNode'"
    ):
        fn.random.uniform(dtype=fn.random.uniform())


def test_wrong_scalar_type_names_operator_and_argument():
    with pytest.raises(TypeError, match=r"`range` for operator `dali.fn.random.uniform`"):
        fn.random.uniform(range="a")


def test_none_argument_means_not_given():
    outs = []
    for kwargs in ({"range": None, "shape": None}, {}):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, seed=3)
        with pipe:
            pipe.set_outputs(fn.random.uniform(**kwargs))
        outs.append(pipe.run()[0])
    x, y = outs
    assert x.shape() == [(), ()]
    np.testing.assert_array_equal(x.as_array(), y.as_array())


def test_array_argument_is_a_per_sample_constant_input():
    node = fn.random.uniform(range=np.array([2.0, 3.0]))
    assert "range" in node.source.arg_inputs
    scalar = fn.random.uniform(range=[2.0, 3.0])
    assert scalar.source.scalar_args["range"] == (2.0, 3.0)
    pipe = dali.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=np.array([2.0, 3.0])))
    (out,) = pipe.run()
    assert np.all((out.as_array() >= 2) & (out.as_array() < 3))


def test_scalar_numpy_values_are_scalar_arguments():
    node = fn.random.uniform(range=[np.float32(0), np.float64(2)], shape=np.array([3]))
    assert node.source.scalar_args["shape"] == (3,)


def test_gpu_node_as_argument_input_is_rejected():
    with pytest.raises(ValueError, match="Named arguments must be on CPU"):
        fn.random.coin_flip(probability=fn.random.uniform().gpu())


def test_input_count_checked():
    with pytest.raises(ValueError, match="expects from 0 to 1 inputs"):
        fn.random.uniform(fn.random.uniform(), fn.random.uniform())


def test_invalid_device():
    with pytest.raises(ValueError, match="invalid device"):
        fn.random.uniform(device="tpu")


def test_multiple_input_sets():
    outs = fn.random.normal([fn.random.uniform(shape=(2,)), fn.random.uniform(shape=(3,))])
    assert isinstance(outs, list) and len(outs) == 2


def test_positional_tuples_and_lists_of_numbers_are_constants():
    """DALI's rule: only a list holding DataNodes is a multiple input set; a tuple or a list of
    numbers is a constant input (``fn.slice(x, (0.1, 0.2), (0.5, 0.5))``)."""
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [np.arange(300, dtype=np.uint8).reshape(10, 10, 3)] * 2)
        tupled = fn.slice(x, (0.1, 0.2), (0.5, 0.5), axes=(0, 1))
        listed = fn.slice(x, [0.1, 0.2], [0.5, 0.5], axes=(0, 1))
        assert not isinstance(tupled, list) and not isinstance(listed, list)
        pipe.set_outputs(tupled, listed)
    tupled, listed = (o.as_array() for o in pipe.run())
    np.testing.assert_array_equal(tupled, listed)
    want = np.arange(300, dtype=np.uint8).reshape(10, 10, 3)[1:6, 2:7]
    np.testing.assert_array_equal(tupled[0], want)


def test_ops_api_define_graph():
    class P(dali.Pipeline):
        def __init__(self):
            super().__init__(batch_size=4, num_threads=1, seed=11)
            self.u = ops.random.Uniform(range=(0, 10))
            self.flip = ops.random.CoinFlip(probability=0.5)

        def define_graph(self):
            return self.u(), self.flip()

    u, flip = P().run()
    assert u.dtype == dali.types.FLOAT and flip.dtype == dali.types.INT32
    # the same configuration through fn gives the same values (same op identity)
    pipe = dali.Pipeline(batch_size=4, num_threads=1, seed=11)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=(0, 10)), fn.random.coin_flip(probability=0.5))
    u2, flip2 = pipe.run()
    np.testing.assert_array_equal(u.as_array(), u2.as_array())
    np.testing.assert_array_equal(flip.as_array(), flip2.as_array())


def test_ops_call_time_tensor_arguments():
    op = ops.random.Uniform()
    pipe = dali.Pipeline(batch_size=4, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(op(range=np.array([5.0, 6.0])))
    (out,) = pipe.run()
    assert np.all(out.as_array() >= 5)


def test_legacy_ops_aliases_warn():
    with pytest.warns(DeprecationWarning):
        ops.Uniform(range=(0, 1))


def test_multi_output_names():
    from dali._graph.schema import register
    from dali._graph.trace import call_operator
    from dali._ops.base import Operator

    @register("_test.two_outputs", inputs=0, outputs=2)
    class Two(Operator):
        pass

    pipe = dali.Pipeline(batch_size=1)
    with pipe:
        a, b = call_operator(Two.schema, (), {"name": "R"})
    assert (a.name, b.name) == ("R[0]", "R[1]")
    assert a.source is b.source and (a.index, b.index) == (0, 1)


def test_datanode_repr_gpu_and_guards():
    node = fn.random.uniform(name="src")
    assert repr(node) == 'DataNode(name="src", device="cpu", source="src", index="0")'
    g = node.gpu()
    assert (g.name, g.device, g.source, g.index) == ("src", "gpu", node.source, 0)
    assert g.gpu() is g
    with pytest.raises(TypeError, match="conditional context"):
        bool(node)
    with pytest.raises(TypeError, match="not iterable"):
        iter(node)


def test_import_dali_loads_no_framework_cuda_or_codec():
    # `import dali` (which registers every operator) needs numpy alone
    import subprocess
    import sys

    heavy = ["cupy", "torch", "jax", "cv2", "PIL", "nvidia"]
    code = f"import dali, dali.fn, dali.ops, sys; print(sorted(set({heavy!r}) & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ["Resize", "Paste", "Rotate", "WarpAffine", "RandomResizedCrop"])
def test_an_operator_listing_its_own_class_name_as_alias_does_not_warn(name):
    """DALI lists e.g. ``Resize`` among resize's aliases; ``ops.Resize`` is the class itself,
    not a deprecated twin that replaces it."""
    import warnings

    from dali import ops

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(ops, name)()
