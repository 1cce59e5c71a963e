"""``dali.math``: element-wise functions, their output types and values."""

from __future__ import annotations

import dali
import graph_utils
import numpy as np
import pytest
from dali import math, types
from graph_utils import const, one, outputs
from parity import cpu_gpu


def run(build, *, device="cpu"):
    """[(dtype, first sample)] for each output of ``build``."""
    return [(dtype, samples[0]) for dtype, _, samples in graph_utils.run(build, device=device)]


EXPECTED_ALL = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "exp",
    "fabs",
    "floor",
    "fpow",
    "log",
    "log10",
    "log2",
    "max",
    "min",
    "pow",
    "rsqrt",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
]


def test_public_surface():
    assert math.__all__ == EXPECTED_ALL
    assert all(callable(getattr(math, name)) for name in math.__all__)


def test_floor_of_an_integer_gives_a_float():
    dtype, v = one(lambda: math.floor(const([3, -2], np.int32)))
    assert dtype == types.FLOAT
    assert v.tolist() == [3.0, -2.0]


def test_floor_and_ceil_keep_a_float_type():
    outs = run(
        lambda: (
            math.floor(const([1.5, -1.5], np.float64)),
            math.ceil(const([1.5, -1.5], np.float32)),
        )
    )
    assert [(d, v.tolist()) for d, v in outs] == [
        (types.FLOAT64, [1.0, -2.0]),
        (types.FLOAT, [2.0, -1.0]),
    ]


def test_rsqrt_is_approximate_like_dali():
    dtype, v = one(lambda: math.rsqrt(const([1.0, 4.0, 0.25], np.float32)))
    assert dtype == types.FLOAT
    assert v[0] == np.float32(0.99999994)
    assert v[1] == np.float32(0.49999997)
    np.testing.assert_allclose(v, [1.0, 0.5, 2.0], rtol=2e-7)


def test_rsqrt_of_an_integer_is_float():
    dtype, v = one(lambda: math.rsqrt(const([16], np.int32)))
    assert dtype == types.FLOAT
    np.testing.assert_allclose(v, [0.25], rtol=2e-7)


def test_clamp_keeps_int32():
    dtype, v = one(lambda: math.clamp(const([-5, 0, 1, 9], np.int32), 0, 1))
    assert dtype == types.INT32
    assert v.tolist() == [0, 0, 1, 1]


def test_clamp_promotes_all_three_arguments():
    outs = run(
        lambda: (
            math.clamp(const([3, 200], np.uint8), 10, 100),
            math.clamp(const([3, 200], np.uint8), np.uint8(10), np.uint8(100)),
            math.clamp(const([0.5, 3.0], np.float32), 1, 2),
            math.clamp(const([1, 5, 9], np.int32), const([2, 2, 2], np.int32), 6.5),
        )
    )
    assert [(d, v.tolist()) for d, v in outs] == [
        (types.INT32, [10, 100]),
        (types.UINT8, [10, 100]),
        (types.FLOAT, [1.0, 2.0]),
        (types.FLOAT, [2.0, 5.0, 6.5]),
    ]


def test_clamp_with_lo_above_hi_is_c_semantics():
    # value < lo ? lo : value > hi ? hi : value
    _dtype, v = one(lambda: math.clamp(const([5, 20], np.int32), 10, 0))
    assert v.tolist() == [10, 0]


def test_min_max_promote_and_use_c_comparison():
    outs = run(
        lambda: (
            math.min(const([1, 7], np.uint8), const([3, -2], np.int8)),
            math.max(const([1, 7], np.int32), 2.5),
            math.min(const([np.nan, 1.0], np.float32), const([1.0, np.nan], np.float32)),
        )
    )
    (d1, v1), (d2, v2), (d3, v3) = outs
    assert (d1, v1.tolist()) == (types.INT16, [1, -2])
    assert (d2, v2.tolist()) == (types.FLOAT, [2.5, 7.0])
    # l < r ? l : r  -- NaN on the left gives the right operand, on the right the NaN
    assert d3 == types.FLOAT and v3[0] == 1.0 and np.isnan(v3[1])


def test_abs_and_fabs():
    outs = run(
        lambda: (
            math.abs(const([-3, 4], np.int32)),
            math.fabs(const([-3, 4], np.int32)),
            math.abs(const([-128], np.int8)),
            math.abs(const([-2.5], np.float64)),
        )
    )
    assert [(d, v.tolist()) for d, v in outs] == [
        (types.INT32, [3, 4]),
        (types.FLOAT, [3.0, 4.0]),
        (types.INT8, [-128]),
        (types.FLOAT64, [2.5]),
    ]


def test_pow_and_fpow():
    outs = run(
        lambda: (
            math.pow(const([2, 3], np.int32), 3),
            math.fpow(const([2, 4], np.int32), const([3, -1], np.int32)),
            math.fpow(const([4.0], np.float64), 0.5),
        )
    )
    assert [(d, v.tolist()) for d, v in outs] == [
        (types.INT32, [8, 27]),
        (types.FLOAT, [8.0, 0.25]),
        (types.FLOAT64, [2.0]),
    ]


def test_atan2_argument_order_and_type():
    dtype, v = one(lambda: math.atan2(const([1, -1], np.int32), const([0, 0], np.int32)))
    assert dtype == types.FLOAT
    np.testing.assert_allclose(v, [np.pi / 2, -np.pi / 2], rtol=1e-6)


@pytest.mark.parametrize(
    ("name", "reference", "values"),
    [
        ("sqrt", np.sqrt, [0.0, 2.0, 9.0]),
        ("cbrt", np.cbrt, [-8.0, 2.0, 27.0]),
        ("exp", np.exp, [-1.0, 0.0, 2.0]),
        ("log", np.log, [0.5, 1.0, 10.0]),
        ("log2", np.log2, [0.5, 1.0, 10.0]),
        ("log10", np.log10, [0.5, 1.0, 1000.0]),
        ("sin", np.sin, [-1.0, 0.0, 2.0]),
        ("cos", np.cos, [-1.0, 0.0, 2.0]),
        ("tan", np.tan, [-1.0, 0.0, 1.2]),
        ("asin", np.arcsin, [-1.0, 0.0, 0.5]),
        ("acos", np.arccos, [-1.0, 0.0, 0.5]),
        ("atan", np.arctan, [-10.0, 0.0, 0.5]),
        ("sinh", np.sinh, [-1.0, 0.0, 2.0]),
        ("cosh", np.cosh, [-1.0, 0.0, 2.0]),
        ("tanh", np.tanh, [-1.0, 0.0, 2.0]),
        ("asinh", np.arcsinh, [-1.0, 0.0, 2.0]),
        ("acosh", np.arccosh, [1.0, 2.0, 10.0]),
        ("atanh", np.arctanh, [-0.5, 0.0, 0.9]),
    ],
)
def test_float_functions(name, reference, values):
    f = getattr(math, name)
    outs = run(lambda: (f(const(values, np.float32)), f(const(values, np.float64))))
    (d32, v32), (d64, v64) = outs
    assert (d32, d64) == (types.FLOAT, types.FLOAT64)
    np.testing.assert_allclose(v32, reference(np.float32(values)), rtol=2e-6)
    np.testing.assert_allclose(v64, reference(np.float64(values)), rtol=1e-14)


def test_integer_inputs_of_float_functions_give_float():
    outs = run(lambda: [getattr(math, n)(const([1, 2], np.uint8)) for n in ("sqrt", "exp", "sin")])
    assert [d for d, _ in outs] == [types.FLOAT] * 3
    np.testing.assert_allclose(outs[0][1], [1.0, np.sqrt(np.float32(2))])


def test_out_of_domain_gives_nan_silently(recwarn):
    _dtype, v = one(lambda: math.log(const([-1.0, 0.0], np.float32)))
    assert np.isnan(v[0]) and v[1] == -np.inf
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_boolean_inputs_are_rejected():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(math.sqrt(const([True], np.bool_)))
    with pytest.raises(
        RuntimeError, match="Input to arithmetic operator `sqrt` cannot be a boolean"
    ):
        pipe.build()


def test_constants_only_is_a_type_error():
    with pytest.raises(TypeError, match="at least one argument must be a DataNode"):
        math.sqrt(4.0)
    with pytest.raises(TypeError, match="at least one argument must be a DataNode"):
        math.clamp(1, 0, 2)


def test_constant_in_any_position():
    dtype, v = one(lambda: math.clamp(5, const([0, 7], np.int32), const([3, 9], np.int32)))
    assert (dtype, v.tolist()) == (types.INT32, [3, 7])


# -- GPU parity -------------------------------------------------------------------------------


def _parity_graph():
    f = const([-2.5, -0.5, 0.25, 1.0, 4.0], np.float32)
    pos = const([0.25, 0.5, 1.0, 4.0, 9.0], np.float32)
    i = const([-3, -1, 0, 2, 100], np.int32)
    return (
        math.abs(i),
        math.fabs(i),
        math.floor(f),
        math.ceil(i),
        math.pow(i, 2),
        math.fpow(pos, 1.5),
        math.min(i, f),
        math.max(i, 1),
        math.clamp(i, 0, 10),
        math.sqrt(pos),
        math.rsqrt(pos),
        math.cbrt(f),
        math.exp(f),
        math.log(pos),
        math.log2(pos),
        math.log10(pos),
        math.sin(f),
        math.cos(f),
        math.tan(f),
        math.asin(const([-1, -0.5, 0, 0.5, 1], np.float32)),
        math.acos(const([-1, -0.5, 0, 0.5, 1], np.float32)),
        math.atan(f),
        math.atan2(f, pos),
        math.sinh(f),
        math.cosh(f),
        math.tanh(f),
        math.asinh(f),
        math.acosh(const([1, 2, 3, 4, 5], np.float32)),
        math.atanh(const([-0.5, 0, 0.25, 0.5, 0.75], np.float32)),
    )


@cpu_gpu(atol=1e-7, rtol=2e-6)
def test_gpu_matches_cpu(device):
    return outputs(_parity_graph, device=device)
