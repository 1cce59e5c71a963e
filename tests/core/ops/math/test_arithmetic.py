"""Arithmetic on DataNodes: promotion, C integer semantics, broadcasting, errors."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._dtypes import DALIDataType
from dali._ops.math._promotion import promote, result_dtype
from graph_utils import batch, const, one, outputs, run
from parity import cpu_gpu

# -- type promotion (observed in DALI 2.4) ---------------------------------------------------


def test_uint8_plus_uint8_stays_uint8_and_wraps():
    dtype, v = one(lambda: const([250, 3], np.uint8) + const([250, 4], np.uint8))
    assert dtype == types.UINT8
    assert v.tolist() == [244, 7]


@pytest.mark.parametrize(
    ("make_other", "expected"),
    [
        (lambda: 10, types.INT32),  # a Python int is an INT32 constant
        (lambda: 1.5, types.FLOAT),  # a Python float is a FLOAT constant
        (lambda: const([1, 2], np.int32), types.INT32),
        (lambda: const([1, 2], np.int16), types.INT16),
        (lambda: np.uint8(10), types.UINT8),  # numpy scalars keep their type
        (lambda: types.Constant(10).uint8(), types.UINT8),
        (lambda: const([1, 2], np.int8), types.INT16),  # int8 + uint8 -> int16
        (lambda: const([1, 2], np.uint64), types.UINT64),
        (lambda: np.float16(1), types.FLOAT16),
        (lambda: True, types.UINT8),
    ],
)
def test_uint8_promotions(make_other, expected):
    dtype, _ = one(lambda: const([1, 2], np.uint8) + make_other())
    assert dtype == expected


def test_observed_values_of_mixed_types():
    outs = run(
        lambda: (
            const([250, 3], np.uint8) + 10,
            const([250, 3], np.uint8) * 1.5,
            const([7, 3], np.int32) + const([0.5, 0.25], np.float32),
            const([7, 3], np.uint8) / const([2, 4], np.uint8),
            -const([3, 0], np.uint8),
            const([250, 3], np.uint8) + np.uint8(10),
        )
    )
    got = [(dtype, s[0].tolist()) for dtype, _, s in outs]
    assert got == [
        (types.INT32, [260, 13]),
        (types.FLOAT, [375.0, 4.5]),
        (types.FLOAT, [7.5, 3.25]),
        (types.FLOAT, [3.5, 0.75]),
        (types.UINT8, [253, 0]),
        (types.UINT8, [4, 13]),
    ]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # every pair DALI registers explicitly (arithmetic_meta.h), plus the generic rules
        ("float32", "float16", "float32"),
        ("float64", "float16", "float64"),
        ("float64", "float32", "float64"),
        ("int64", "float16", "float16"),
        ("uint64", "float32", "float32"),
        ("bool", "float64", "float64"),
        ("int8", "bool", "int8"),
        ("uint64", "bool", "uint64"),
        ("uint8", "int8", "int16"),
        ("int16", "int8", "int16"),
        ("uint16", "int8", "int32"),
        ("int32", "int8", "int32"),
        ("uint32", "int8", "int64"),
        ("int64", "int8", "int64"),
        ("uint64", "int8", "int64"),
        ("int16", "uint8", "int16"),
        ("uint16", "uint8", "uint16"),
        ("int32", "uint8", "int32"),
        ("uint32", "uint8", "uint32"),
        ("int64", "uint8", "int64"),
        ("uint64", "uint8", "uint64"),
        ("uint16", "int16", "int32"),
        ("int32", "int16", "int32"),
        ("uint32", "int16", "int64"),
        ("int64", "int16", "int64"),
        ("uint64", "int16", "int64"),
        ("int32", "uint16", "int32"),
        ("uint32", "uint16", "uint32"),
        ("int64", "uint16", "int64"),
        ("uint64", "uint16", "uint64"),
        ("uint32", "int32", "int64"),
        ("int64", "int32", "int64"),
        ("uint64", "int32", "int64"),
        ("int64", "uint32", "int64"),
        ("uint64", "uint32", "uint64"),
        ("uint64", "int64", "int64"),
        ("bool", "bool", "bool"),
    ],
)
def test_promotion_table(a, b, expected):
    a, b = np.dtype(a), np.dtype(b)
    assert promote(a, b) == np.dtype(expected)
    assert promote(b, a) == np.dtype(expected)


def test_true_division_is_float_unless_an_operand_is_wider():
    i32, u8, f64, f16 = (np.dtype(t) for t in ("int32", "uint8", "float64", "float16"))
    assert result_dtype("fdiv", [u8, u8]) == np.float32
    assert result_dtype("fdiv", [i32, i32]) == np.float32
    assert result_dtype("fdiv", [i32, f64]) == np.float64
    assert result_dtype("fdiv", [f16, u8]) == np.float16
    assert result_dtype("eq", [f64, u8]) == np.bool_


def test_comparisons_give_bool():
    outs = run(
        lambda: [
            op(const([1, 5, 3], np.int32), 3)
            for op in (
                lambda a, b: a == b,
                lambda a, b: a != b,
                lambda a, b: a < b,
                lambda a, b: a <= b,
                lambda a, b: a > b,
                lambda a, b: a >= b,
            )
        ]
    )
    assert all(dtype == types.BOOL for dtype, _, _ in outs)
    assert [s[0].tolist() for _, _, s in outs] == [
        [False, False, True],
        [True, True, False],
        [True, False, False],
        [True, False, True],
        [False, True, False],
        [False, True, True],
    ]


def test_comparing_signed_with_unsigned_is_by_value():
    dtype, v = one(lambda: const([0, 200], np.uint8) > -1)
    assert dtype == types.BOOL
    assert v.tolist() == [True, True]
    _, v = one(lambda: const([2**63, 1], np.uint64) > const([-1, 2], np.int64))
    assert v.tolist() == [True, False]


def test_python_int_out_of_int32_range_is_an_int64_constant():
    dtype, v = one(lambda: const([1], np.int32) + 2**40)
    assert dtype == types.INT64
    assert v.tolist() == [2**40 + 1]


def test_typed_constant_wraps_like_a_c_cast():
    dtype, v = one(lambda: const([1], np.uint8) + types.Constant(300).uint8())
    assert (dtype, v.tolist()) == (types.UINT8, [45])


# -- rejected operands and operations ---------------------------------------------------------


def test_numpy_float64_scalar_is_rejected():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = const([1.0], np.float32)
        with pytest.raises(TypeError, match="Argument to arithmetic operation not supported"):
            x + np.float64(1.0)
        with pytest.raises(TypeError, match="Argument to arithmetic operation not supported"):
            np.float64(1.0) * x


def test_unsupported_operand_types_are_rejected():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = const([1.0], np.float32)
        with pytest.raises(TypeError, match="not supported"):
            x + "text"
        with pytest.raises(TypeError, match="not supported"):
            x + object()


def test_bool_plus_bool_is_rejected_at_build():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        b = const([True, False], np.bool_)
        pipe.set_outputs(b + b)
    with pytest.raises(
        RuntimeError, match=r"Inputs to arithmetic operator `\+` cannot be booleans"
    ):
        pipe.build()


def test_bool_arithmetic_error_names_the_operator_and_definition():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        b = const([True], np.bool_)
        pipe.set_outputs(-b)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    message = str(info.value)
    assert "dali.fn._arithmetic_generic_op" in message
    assert "Input to arithmetic operator `-` cannot be a boolean" in message
    assert "test_arithmetic.py" in message  # where the expression was written


def test_bool_checks_also_run_when_the_type_is_known_only_at_run_time():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        b = const([True], np.bool_)
        b.dtype = None  # as from a source whose type is not declared
        pipe.set_outputs(b - b)
    pipe.build()
    with pytest.raises(RuntimeError, match=r"arithmetic operator `-` cannot be booleans"):
        pipe.run()


def test_bool_times_bool_is_logical_and():
    dtype, v = one(
        lambda: const([True, True, False], np.bool_) * const([True, False, False], np.bool_)
    )
    assert (dtype, v.tolist()) == (types.BOOL, [True, False, False])


def test_bool_with_number_promotes():
    dtype, v = one(lambda: const([True, False], np.bool_) + 1)
    assert (dtype, v.tolist()) == (types.INT32, [2, 1])


def test_bitwise_on_floats_is_rejected():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(const([1.0], np.float32) & 1)
    with pytest.raises(
        RuntimeError, match="Inputs to bitwise operator `&` must be of integral type"
    ):
        pipe.build()


def test_only_constants_is_an_error():
    from dali._ops.math.arithmetic import arithmetic

    with pytest.raises(TypeError, match="at least one argument must be a DataNode"):
        arithmetic("add", 1, 2)


# -- integer and float semantics --------------------------------------------------------------


def test_integer_floor_division_truncates_toward_zero():
    dtype, v = one(
        lambda: const([-1, -3, 7, -7, 5], np.int32) // const([2, 2, -2, -2, 3], np.int32)
    )
    assert (dtype, v.tolist()) == (types.INT32, [0, -1, -3, 3, 1])


def test_integer_modulo_has_c_semantics():
    dtype, v = one(lambda: const([-1, -2, 7, -7, 5], np.int32) % const([2, 3, -2, 2, 3], np.int32))
    assert (dtype, v.tolist()) == (types.INT32, [-1, -2, 1, -1, 2])


def test_float_floor_division_is_plain_division_and_modulo_is_fmod():
    outs = run(lambda: (const([-1.5, 7.0], np.float32) // 1, const([-5.5, 5.5], np.float32) % 2))
    (d1, _, (a,)), (d2, _, (b,)) = outs
    assert (d1, a.tolist()) == (types.FLOAT, [-1.5, 7.0])
    assert (d2, b.tolist()) == (types.FLOAT, [-1.5, 1.5])


def test_mixed_signedness_division_in_the_promoted_type():
    dtype, v = one(lambda: const([-7, -56, 100], np.int8) // const([2, 3, 200], np.uint8))
    # int8 with uint8 computes in int16: 200 stays 200 (it would be -56 as int8)
    assert (dtype, v.tolist()) == (types.INT16, [-3, -18, 0])


def test_integer_division_by_zero_gives_zero_without_crashing():
    outs = run(
        lambda: (
            const([5, -5, 0], np.int32) // const([0, 0, 0], np.int32),
            const([5, -5, 0], np.int32) % 0,
            const([5, 6], np.uint8) // const([0, 2], np.uint8),
        )
    )
    assert [s[0].tolist() for _, _, s in outs] == [[0, 0, 0], [0, 0, 0], [0, 3]]


def test_float_division_by_zero_gives_inf_and_nan_silently(recwarn):
    dtype, v = one(lambda: const([1.0, -1.0, 0.0], np.float32) / 0)
    assert dtype == types.FLOAT
    assert v[0] == np.inf and v[1] == -np.inf and np.isnan(v[2])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_integer_power():
    outs = run(
        lambda: (
            const([2, -3, 5], np.int32) ** 3,
            const([1, -1, -1, 2, 0], np.int32) ** const([-2, -3, -2, -1, 2], np.int32),
            const([3, 2], np.uint8) ** const([2, 8], np.uint8),
            2 ** const([0, 1, 10], np.int32),
        )
    )
    got = [(dtype, s[0].tolist()) for dtype, _, s in outs]
    assert got == [
        (types.INT32, [8, -27, 125]),
        (types.INT32, [1, -1, 1, 0, 0]),
        (types.UINT8, [9, 0]),  # 2 ** 8 wraps in uint8
        (types.INT32, [1, 2, 1024]),
    ]


def test_float_power():
    dtype, v = one(lambda: const([4, 9], np.int32) ** 0.5)
    assert (dtype, v.tolist()) == (types.FLOAT, [2.0, 3.0])


def test_unary_operators():
    outs = run(
        lambda: (
            -const([1, -2], np.int8),
            abs(const([-128, -3, 4], np.int8)),
            ~const([0, 5], np.uint8),
            ~const([True, False], np.bool_),
            abs(const([-1.5], np.float32)),
        )
    )
    got = [(dtype, s[0].tolist()) for dtype, _, s in outs]
    assert got == [
        (types.INT8, [-1, 2]),
        (types.INT8, [-128, 3, 4]),  # wraps, as in C
        (types.UINT8, [255, 250]),
        (types.BOOL, [False, True]),
        (types.FLOAT, [1.5]),
    ]


def test_unary_plus_is_the_same_node():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = const([1], np.int32)
        assert +x is x


def test_bitwise_and_shifts():
    outs = run(
        lambda: (
            const([12, 10], np.int32) & 6,
            const([12, 10], np.int32) | 1,
            const([12, 10], np.int32) ^ const([5, 10], np.int32),
            const([1, 3], np.uint8) << 2,
            const([-16, 16], np.int32) >> 2,
            const([True, False], np.bool_) | const([False, False], np.bool_),
        )
    )
    got = [(dtype, s[0].tolist()) for dtype, _, s in outs]
    assert got == [
        (types.INT32, [4, 2]),
        (types.INT32, [13, 11]),
        (types.INT32, [9, 0]),
        (types.INT32, [4, 12]),
        (types.INT32, [-4, 4]),
        (types.BOOL, [True, False]),
    ]


def test_reflected_operators():
    outs = run(
        lambda: (
            10 - const([1, 2], np.int32),
            3.0 / const([2, 4], np.int32),
            2 ** const([2, 3], np.int32),
            7 // const([2, -2], np.int32),
            np.uint8(5) + const([1, 2], np.uint8),
            1 < const([0, 2], np.int32),
        )
    )
    got = [(dtype, s[0].tolist()) for dtype, _, s in outs]
    assert got == [
        (types.INT32, [9, 8]),
        (types.FLOAT, [1.5, 0.75]),
        (types.INT32, [4, 8]),
        (types.INT32, [3, -3]),
        (types.UINT8, [6, 7]),
        (types.BOOL, [False, True]),
    ]


# -- graph and static metadata ----------------------------------------------------------------


def test_constants_are_arguments_not_graph_nodes():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = fn.random.uniform(shape=(16,))
        y = 2.0 * x + types.Constant(1).uint8()
    add = y.source
    assert add.schema.class_name == "ArithmeticGenericOp"
    assert len(add.inputs) == 1 and add.inputs[0].source.scalar_args["op"] == "mul"
    assert add.scalar_args["constants"] == ((1, 1, DALIDataType.UINT8),)
    assert add.inputs[0].source.inputs == (x,)


def test_static_dtype_ndim_and_layout():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = types.Constant(np.zeros((2, 3), np.uint8), layout="HW")
        y = x + 1
        z = x / 2
        c = x == 1
        s = dali.math.sqrt(x)
    assert (y.dtype, y.ndim, y.layout) == (types.INT32, 2, "HW")
    assert (z.dtype, c.dtype, s.dtype) == (types.FLOAT, types.BOOL, types.FLOAT)


def test_gpu_operand_puts_the_expression_on_the_gpu():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = fn.random.uniform(shape=(2,))
        y = x + x.gpu()
    assert y.device == "gpu"
    assert all(n.device == "gpu" for n in y.source.inputs)


# -- shapes: broadcasting, ragged batches, layouts --------------------------------------------


def test_broadcasting_between_sample_shapes():
    dtype, v = one(lambda: const([[1], [2]], np.int32) + const([10, 20, 30], np.int32))
    assert dtype == types.INT32
    assert v.tolist() == [[11, 21, 31], [12, 22, 32]]


def test_scalar_and_one_element_operands_broadcast():
    outs = run(
        lambda: (
            const([[1, 2], [3, 4]], np.int32) * const(10, np.int32),
            const([[1, 2], [3, 4]], np.int32) * const([10], np.int32),
        )
    )
    assert [s[0].tolist() for _, _, s in outs] == [[[10, 20], [30, 40]]] * 2


def test_incompatible_shapes_error_names_the_operator_and_shapes():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(const([1, 2, 3], np.int32) + const([1, 2, 3, 4], np.int32))
    pipe.build()
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    message = str(info.value)
    assert "dali.fn._arithmetic_generic_op" in message
    assert "Can't broadcast shapes" in message and "`+`" in message
    assert "(3,)" in message and "(4,)" in message


def test_ragged_batches_are_computed_per_sample():
    samples = [np.arange(6, dtype=np.int16).reshape(2, 3), np.array([[-7]], dtype=np.int16)]
    outs = run(lambda: (batch(*samples) * 3 + 1, batch(*samples) // 2), batch_size=2)
    (d1, _, a), (d2, _, b) = outs
    assert d1 == d2 == types.INT32
    assert [x.tolist() for x in a] == [[[1, 4, 7], [10, 13, 16]], [[-20]]]
    assert [x.tolist() for x in b] == [[[0, 0, 1], [1, 2, 2]], [[-3]]]


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_ragged_batches_held_back_to_back_are_computed_as_one_buffer(device):
    """Inputs whose samples lie back to back in one buffer (what a random generator with a
    ragged `shape_like` returns) are computed at once, the output held the same way; the
    values are the per-sample ones."""
    if device == "gpu":
        pytest.importorskip("cupy")
    shapes = [(2, 3), (1, 1), (4, 1), (0, 2)]
    pipe = dali.Pipeline(
        batch_size=4, num_threads=1, device_id=0 if device == "gpu" else None, seed=3
    )
    with pipe:
        like = fn.external_source(lambda: [np.zeros(s, np.float32) for s in shapes])
        like = like.gpu() if device == "gpu" else like
        a = fn.random.normal(like, device=device)
        b = fn.random.uniform(like, range=[1, 2], device=device)
        pipe.set_outputs(a, b, a * 2 - b, -a)
    pipe.build()
    a, b, mixed, neg = (o.as_cpu() if device == "gpu" else o for o in pipe.run())
    for i, shape in enumerate(shapes):
        x, y = np.asarray(a.at(i)), np.asarray(b.at(i))
        assert mixed.at(i).shape == shape
        np.testing.assert_array_equal(mixed.at(i), x * np.float32(2) - y)
        np.testing.assert_array_equal(neg.at(i), -x)
    out = pipe.run()[2]
    assert out.flat() is not None  # one buffer, not a list of samples


def test_ragged_batch_with_a_per_sample_scalar():
    samples = [np.ones((2, 2), np.float32), np.ones((3,), np.float32)]
    ((dtype, _, out),) = run(
        lambda: batch(*samples) * batch(np.float32(2), np.float32(5)), batch_size=2
    )
    assert dtype == types.FLOAT
    assert [x.tolist() for x in out] == [[[2.0, 2.0], [2.0, 2.0]], [5.0, 5.0, 5.0]]


def test_ragged_shape_mismatch_names_the_sample():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        a = batch(np.ones(2, np.float32), np.ones(3, np.float32))
        b = batch(np.ones(2, np.float32), np.ones(4, np.float32))
        pipe.set_outputs(a - b)
    pipe.build()
    with pytest.raises(RuntimeError, match=r"(?s)sample 1.*Can't broadcast shapes in sample 1"):
        pipe.run()


def test_layout_is_kept_and_mismatching_layouts_fail():
    ((_, layout, _),) = run(lambda: types.Constant(np.zeros((2, 2), np.float32), layout="HW") + 1)
    assert layout == "HW"
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        a = types.Constant(np.zeros((2, 2), np.float32), layout="HW")
        b = types.Constant(np.zeros((2, 2), np.float32), layout="WH")
        pipe.set_outputs(a + b)
    pipe.build()
    with pytest.raises(RuntimeError, match="Layouts of the inputs"):
        pipe.run()


def test_list_operand_becomes_a_constant_node():
    dtype, v = one(lambda: const([1, 2, 3], np.int32) + [10, 20, 30])  # noqa: RUF005 - node + list
    assert (dtype, v.tolist()) == (types.INT32, [11, 22, 33])


def test_works_with_multiple_threads_and_iterations():
    pipe = dali.Pipeline(batch_size=16, num_threads=3, device_id=None, seed=1)
    with pipe:
        x = fn.random.uniform(range=(0, 1), shape=(4,))
        pipe.set_outputs(x, (x + 1.0) * 2.0)
    pipe.build()
    for _ in range(3):
        x, y = (tl.as_array() for tl in pipe.run())
        np.testing.assert_allclose(y, (x + np.float32(1)) * np.float32(2), rtol=0)


def test_comparison_drives_a_conditional():
    # DALI's conditionals example: x = 0, 1, 2, 3; `if x > 1: y = x * 10 else: y = x - 100`
    @dali.pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        x = batch(np.int32(0), np.int32(1), np.int32(2), np.int32(3))
        if x > 1:
            y = x * 10
        else:
            y = x - 100
        return y

    p = pipe()
    p.build()
    (out,) = p.run()
    assert out.as_array().tolist() == [-100, -99, 20, 30]


# -- GPU parity -------------------------------------------------------------------------------


def _parity_graph():
    i32 = const([-7, -1, 0, 3, 250], np.int32)
    u8 = const([250, 1, 0, 3, 7], np.uint8)
    f32 = const([-1.5, 0.25, 2.0, -0.0, 9.0], np.float32)
    b = const([True, False, True, False, True], np.bool_)
    ragged = batch(np.arange(4, dtype=np.int16), np.arange(6, dtype=np.int16).reshape(2, 3))
    return (
        u8 + u8,
        u8 + 10,
        i32 // 2,
        i32 % 3,
        i32 // const([0, 2, 0, -2, 7], np.int32),
        f32 // 2,
        f32 % 2,
        u8 / u8,
        i32**2,
        i32 ** const([-1, -2, 0, 1, 2], np.int32),
        -u8,
        abs(i32),
        ~u8,
        i32 & 6,
        u8 << 1,
        i32 >> 1,
        i32 < u8,
        f32 == 2,
        b * b,
        b | b,
        f32 * i32,
        ragged * 3 - 1,
        ragged / 2,
        const([[1], [2]], np.int32) + const([10, 20, 30], np.int32),
    )


@cpu_gpu()
def test_gpu_matches_cpu(device):
    return outputs(_parity_graph, batch_size=2, device=device)


def test_mixed_int_float_modulo_is_computed_in_double():
    # found by the conformance session against DALI 2.4
    import dali
    from dali import fn, types

    pipe = dali.Pipeline(batch_size=1, num_threads=1)
    with pipe:
        x = types.Constant(np.array([2**31 - 1, 7], dtype=np.int32))
        pipe.set_outputs(x % 8.0, x % types.Constant(2.5), fn.cast(x, dtype=types.FLOAT) % 8.0)
    a, b, c = pipe.run()
    assert a.dtype == types.FLOAT
    assert a.at(0).tolist() == [7.0, 7.0]
    assert b.at(0).tolist() == [2.0, 2.0]
    assert c.at(0).tolist()[1] == 7.0
