"""`enable_conditionals=True`: per-sample `if`, `and`/`or`/`not` on DataNodes."""

from __future__ import annotations

import sys
import traceback
import warnings

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu

_BATCH = 4


def _source(values, dtype=np.int32, layout=None):
    """An external source giving the same batch every iteration (one value per sample)."""
    batch = [np.array(v, dtype=dtype) for v in values]
    kw = {} if layout is None else {"layout": layout}
    return fn.external_source(source=lambda: batch, **kw)


def _x(n=_BATCH):
    """0, 1, 2, ... as 0-d int32 samples."""
    return _source(range(n))


def _run(pipe_fn, *, batch_size=_BATCH, iterations=1, **kw):
    kw.setdefault("num_threads", 1)
    kw.setdefault("device_id", None)
    kw.setdefault("seed", 7)
    pipe = pipe_fn(batch_size=batch_size, **kw)
    pipe.build()
    outs = [pipe.run() for _ in range(iterations)]
    return outs[0] if iterations == 1 else outs


def _arrays(outs):
    return [o.as_array() for o in outs]


cond_def = dali.pipeline_def(enable_conditionals=True)


# -- the observed example and the basic forms ----------------------------------------------------


def test_observed_if_else():
    # observed in DALI: x = 0,1,2,3 gives [-100, -99, 20, 30]
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = x * 10
        else:
            y = x - 100
        return y

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [-100, -99, 20, 30]
    assert y.dtype == types.INT32
    assert y.shape() == [()] * 4


def test_enable_conditionals_at_call_time():
    @dali.pipeline_def
    def pipe():
        x = _x()
        if x > 1:
            y = x * 10
        else:
            y = x - 100
        return y

    (y,) = _run(pipe, enable_conditionals=True)
    assert y.as_array().tolist() == [-100, -99, 20, 30]


def test_without_conditionals_bool_raises():
    @dali.pipeline_def
    def pipe():
        x = _x()
        if x > 1:
            return x
        return x

    with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_if_without_else_keeps_value_defined_before():
    @cond_def
    def pipe():
        x = _x()
        y = x
        if x > 1:
            y = x * 10
        return y

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 20, 30]


def test_elif_chain():
    @cond_def
    def pipe():
        x = _x(6)
        if x < 2:
            y = x
        elif x < 4:
            y = x * 10
        else:
            y = x * 100
        return y

    (y,) = _run(pipe, batch_size=6)
    assert y.as_array().tolist() == [0, 1, 20, 30, 400, 500]


def test_nested_ifs():
    @cond_def
    def pipe():
        x = _x(6)
        outer = x > 0
        inner = x > 3  # computed outside both ifs: split twice on the way in
        if outer:
            if inner:
                y = x * 100
            else:
                y = x * 10 + (x > 2)  # a node of the outer scope used in the inner one
        else:
            y = x - 1
        return y, x

    y, x = _run(pipe, batch_size=6)
    assert y.as_array().tolist() == [-1, 10, 20, 31, 400, 500]
    assert x.as_array().tolist() == list(range(6))


def test_nested_three_levels_and_reassignment_chain():
    @cond_def
    def pipe():
        x = _x(8)
        y = x
        if x >= 2:
            y = y + 100
            if x >= 4:
                y = y + 1000
                if x >= 6:
                    y = y + 10000
        return y

    (y,) = _run(pipe, batch_size=8)
    assert y.as_array().tolist() == [0, 1, 102, 103, 1104, 1105, 11106, 11107]


def test_non_bool_conditions_are_truthy():
    @cond_def
    def pipe():
        i = _source([0, 3, -1, 0])
        f = _source([0.0, 0.5, 0.0, -2.0], dtype=np.float32)
        x = _x()
        if i:
            a = x + 10
        else:
            a = x
        if f:
            b = x + 10
        else:
            b = x
        return a, b

    a, b = _run(pipe)
    assert a.as_array().tolist() == [0, 11, 12, 3]
    assert b.as_array().tolist() == [0, 11, 2, 13]


def test_python_constants_are_merged_as_batches():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = 1
            z = 2.5
        else:
            y = 2
            z = -1.0
        return y, z

    y, z = _run(pipe)
    assert y.as_array().tolist() == [2, 2, 1, 1] and y.dtype == types.INT32
    assert z.as_array().tolist() == [-1.0, -1.0, 2.5, 2.5] and z.dtype == types.FLOAT


def test_structures_are_merged_elementwise():
    kept = []

    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            pair = (x * 10, x)
            d = {"a": x, "b": 1}
        else:
            pair = (x, x * 10)
            d = {"a": -x, "b": 1}
        kept.append(d["b"])
        return pair[0], pair[1], d["a"]

    p0, p1, a = _run(pipe)
    assert p0.as_array().tolist() == [0, 1, 20, 30]
    assert p1.as_array().tolist() == [0, 10, 2, 3]
    assert a.as_array().tolist() == [0, -1, 2, 3]
    assert kept == [1]  # the same Python value in both branches is kept as it is


def test_different_structures_cannot_be_merged():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            pair = (x, x)
        else:
            pair = x
        return pair

    with pytest.raises(TypeError, match=r"(?s)Divergent data found.*Variable 'pair'"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_sources_inside_a_branch_produce_the_whole_batch():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = _source([10, 20, 30, 40]) + x
        else:
            y = x
        return y

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 32, 43]


def test_identities_downstream_do_not_depend_on_names_or_lines():
    # random operators after a split/merge draw the same values whatever the variable names
    # and the line of the `if` (the messages' details are not part of the operator identity)
    @cond_def
    def first():
        x = _x(8)
        if x > 3:
            y = x * 2
        else:
            y = x
        return fn.random.normal(y), fn.random.normal(fn.random.normal(x) if x > 5 else x * 1.0)

    @cond_def
    def second():
        value = _x(8)

        if value > 3:
            other = value * 2
        else:
            other = value
        return fn.random.normal(other), fn.random.normal(
            fn.random.normal(value) if value > 5 else value * 1.0
        )

    a = _arrays(_run(first, batch_size=8))
    b = _arrays(_run(second, batch_size=8))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_ragged_samples_are_merged_in_order():
    data = [np.arange(n, dtype=np.int32) for n in (1, 2, 3, 4)]

    @cond_def
    def pipe():
        x = fn.external_source(source=lambda: data)
        c = _source([1, 0, 0, 1])
        if c:
            y = x * 2
        else:
            y = x + 100
        return y

    (y,) = _run(pipe)
    got = [y.at(i).tolist() for i in range(4)]
    assert got == [[0], [100, 101], [100, 101, 102], [0, 2, 4, 6]]


def test_layout_is_kept_when_equal():
    @cond_def
    def pipe():
        x = _source([[1, 2], [3, 4], [5, 6], [7, 8]], layout="W")
        if _x() > 1:
            y = x * 2
        else:
            y = x
        return y

    (y,) = _run(pipe)
    assert y.layout() == "W"
    assert y.as_array().tolist() == [[1, 2], [3, 4], [10, 12], [14, 16]]


@pytest.mark.parametrize("values", [[0, 0, 0, 0], [5, 5, 5, 5]], ids=["none", "all"])
def test_empty_branch(values):
    # no sample (or every sample) takes the `if` branch: one branch runs on 0 samples
    @cond_def
    def pipe():
        x = _source(values)
        if x > 1:
            y = x * 10
            r = fn.random.normal() + 100.0
        else:
            y = x - 100
            r = fn.random.normal() - 100.0
        return y, r

    y, r = _run(pipe)
    expected = [v * 10 if v > 1 else v - 100 for v in values]
    assert y.as_array().tolist() == expected
    assert np.all(r.as_array() > 0) == (values[0] > 1)


def test_empty_branch_uniform():
    @cond_def
    def pipe():
        x = _source([0, 0, 0, 0])
        if x > 1:
            r = fn.random.uniform(range=(0, 1))
        else:
            r = fn.random.uniform(range=(5, 6))
        return r

    (r,) = _run(pipe)
    assert np.all(r.as_array() >= 5)


def test_several_iterations():
    it = iter(range(100))

    def batch():
        k = next(it)
        return [np.int32(k + i) for i in range(4)]

    @cond_def
    def pipe():
        x = fn.external_source(source=batch)
        if x % 2 == 0:
            y = x * 10
        else:
            y = -x
        return y, x

    outs = _run(pipe, iterations=3)
    for y, x in outs:
        xs = x.as_array()
        assert y.as_array().tolist() == [v * 10 if v % 2 == 0 else -v for v in xs]


# -- variables defined in one branch ------------------------------------------------------------


def test_variable_defined_in_one_branch_errors_when_used():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            z = x * 2
        else:
            pass
        return z

    with pytest.raises(RuntimeError, match="Variable 'z' must also be initialized in the `else`"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_variable_defined_in_else_only_errors_in_arithmetic():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            pass
        else:
            z = x
        return z + 1

    with pytest.raises(RuntimeError, match="Variable 'z' must also be initialized in the `if`"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_variable_defined_in_one_branch_passed_to_operator():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            z = x * 2
        return fn.python_function(z, function=lambda v: v)

    with pytest.raises(RuntimeError, match="must also be initialized in the `else` branch"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_unused_one_branch_variable_is_fine():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            tmp = x * 2
            y = tmp + 1
        else:
            y = x
        return y

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 5, 7]


def test_divergent_types_error_names_the_variable():
    # the types are known only when the data arrives: the merge reports it at run time
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = x * 1.5
        else:
            y = x
        return y

    with pytest.raises(Exception, match=r"(?s)Divergent data.*variable `y`.*float.*int32"):
        _run(pipe)


def test_divergent_static_types_are_reported_at_build():
    @cond_def
    def pipe():
        if fn.random.coin_flip():
            y = fn.random.uniform()
        else:
            y = fn.random.coin_flip()
        return y

    pipe_ = pipe(batch_size=4, num_threads=1, device_id=None)
    with pytest.raises(
        Exception, match=r"(?s)Variable 'y'.*type float in the `if` branch and int32"
    ):
        pipe_.build()


def test_divergent_types_of_an_unused_variable_are_fine():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            _t = x * 1.5
            y = x * 2
        else:
            _t = x
            y = x
        return y

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 4, 6]


def test_divergent_ndim_is_an_error():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = x
        else:
            y = _source([[1], [2], [3], [4]])
        return y

    with pytest.raises(Exception, match=r"(?s)variable `y`.*0 dimensions.*1 dimensions"):
        _run(pipe)


def test_different_layouts_are_an_error():
    @cond_def
    def pipe():
        a = _source([[1, 2]] * 4, layout="W")
        b = _source([[1, 2]] * 4, layout="H")
        if _x() > 1:
            y = a
        else:
            y = b
        return y

    with pytest.raises(Exception, match=r"different layouts.*'W'.*'H'"):
        _run(pipe)


def test_divergent_python_values_error_only_when_used():
    @cond_def
    def pipe(use):
        x = _x()
        if x > 1:
            name = "big"
            y = x
        else:
            name = "small"
            y = x
        return (y, name) if use else y

    (y,) = _run(lambda **kw: pipe(False, **kw))
    assert y.as_array().tolist() == [0, 1, 2, 3]
    with pytest.raises(TypeError, match=r"(?s)Divergent data found.*Variable 'name'"):
        pipe(True, batch_size=4, num_threads=1, device_id=None)


def test_node_leaked_out_of_a_branch_is_an_error():
    @cond_def
    def pipe():
        x = _x()
        box = []
        if x > 1:
            box.append(x * 2)
            y = x
        else:
            y = x
        return box[0] + y

    with pytest.raises(RuntimeError, match="produced in the `if` branch of the `if` at"):
        pipe(batch_size=4, num_threads=1, device_id=None)


# -- Python semantics for Python values ---------------------------------------------------------


def test_python_conditions_keep_python_semantics():
    calls = []

    @cond_def
    def pipe(mode):
        x = _x()
        if mode == "double":
            y = x * 2
        elif mode == "neg":
            y = -x
        else:
            calls.append(mode)
            return x
        for i in range(3):
            if i == 1:
                continue
            if i == 2:
                break
            y = y + 1
        k = 0
        while k < 2:
            k += 1
        if not calls and (mode or None):
            y = y + k
        return y

    assert _run(lambda **kw: pipe("double", **kw))[0].as_array().tolist() == [3, 5, 7, 9]
    assert _run(lambda **kw: pipe("neg", **kw))[0].as_array().tolist() == [3, 2, 1, 0]
    assert _run(lambda **kw: pipe("x", **kw))[0].as_array().tolist() == [0, 1, 2, 3]
    assert calls == ["x"]


def test_python_if_unbound_variable_is_a_name_error():
    @cond_def
    def pipe():
        x = _x()
        if False:
            never = 1
        return x + never

    with pytest.raises(NameError):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_python_short_circuit_is_kept():
    @cond_def
    def pipe(opt):
        x = _x()
        if opt is not None and opt["scale"] > 1:  # the right side would fail for None
            x = x * opt["scale"]
        y = opt or x  # `or` returns the first truthy operand
        z = opt is not None and x.missing_attribute  # the right side is never evaluated
        return y, z

    y, z = _run(lambda **kw: pipe(None, **kw))
    assert y.as_array().tolist() == [0, 1, 2, 3]
    assert z.as_array().tolist() == [False] * 4


def test_python_value_and_node_follows_python():
    @cond_def
    def pipe():
        x = _x()
        c = True and x > 1  # Python `and`: gives the node
        if c:
            y = x * 10
        else:
            y = x
        return y, c

    y, c = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 20, 30]
    assert c.dtype == types.BOOL


# -- and / or / not on DataNodes ---------------------------------------------------------------


def test_and_or_not_on_nodes():
    @cond_def
    def pipe():
        x = _x(6)
        if x > 0 and x < 3:
            a = x * 10
        else:
            a = x
        if x < 1 or x > 4:
            b = x * 10
        else:
            b = x
        if not x > 2:
            c = x * 10
        else:
            c = x
        d = (x > 1) and (x < 5) and (x != 3)
        e = not (x > 1)
        return a, b, c, d, e

    a, b, c, d, e = _run(pipe, batch_size=6)
    assert a.as_array().tolist() == [0, 10, 20, 3, 4, 5]
    assert b.as_array().tolist() == [0, 1, 2, 3, 4, 50]
    assert c.as_array().tolist() == [0, 10, 20, 3, 4, 5]
    assert d.as_array().tolist() == [False, False, True, False, True, False]
    assert d.dtype == types.BOOL
    assert e.as_array().tolist() == [True, True, False, False, False, False]


def test_and_or_evaluate_the_right_side_only_where_needed():
    seen_and, seen_or = [], []

    def record(seen):
        def f(v):
            seen.append(int(v))
            return np.bool_(True)

        return f

    @cond_def
    def pipe():
        x = _x(6)
        a = (x > 2) and fn.python_function(x, function=record(seen_and))
        o = (x > 2) or fn.python_function(x, function=record(seen_or))
        return a, o

    a, o = _run(pipe, batch_size=6, prefetch_queue_depth=1, exec_async=False, exec_pipelined=False)
    assert a.as_array().tolist() == [False, False, False, True, True, True]
    assert o.as_array().tolist() == [True] * 6
    assert sorted(set(seen_and)) == [3, 4, 5]
    assert sorted(set(seen_or)) == [0, 1, 2]


def test_logical_operand_must_be_scalar():
    @cond_def
    def pipe():
        v = _source([[1, 2]] * 4)
        if _x() > 1 and v:
            y = 1
        else:
            y = 0
        return y

    with pytest.raises(Exception, match=r"Logical expression ``and`` is restricted to scalar"):
        _run(pipe)


def test_not_of_a_gpu_node_is_rejected_at_definition():
    @cond_def
    def pipe():
        x = _x()
        return not (x > 1).gpu()

    with pytest.raises(RuntimeError, match=r"placed on CPU. Got a GPU input"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_chained_comparison_on_nodes():
    @cond_def
    def pipe():
        x = _x(6)
        if 0 < x <= 3:
            y = x * 10
        else:
            y = x
        return y, 1 < x < 4 != x

    y, c = _run(pipe, batch_size=6)
    assert y.as_array().tolist() == [0, 10, 20, 30, 4, 5]
    assert c.as_array().tolist() == [False, False, True, True, False, False]


def test_chained_comparison_on_python_values_short_circuits():
    evaluated = []

    def value(v):
        evaluated.append(v)
        return v

    @cond_def
    def pipe():
        ok = value(1) < value(0) < value(5)  # the third operand is never evaluated
        return _x() + int(ok)

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 2, 3]
    assert evaluated == [1, 0]


def test_exception_leaving_a_branch_closes_its_scope():
    @cond_def
    def pipe():
        x = _x()
        try:
            if x > 1:
                raise KeyError("leave the branch")
            else:
                _unused = x
        except KeyError:
            pass
        return x * 2  # traced outside of any branch again: the whole batch

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 2, 4, 6]


def test_conditional_expression():
    @cond_def
    def pipe():
        x = _x()
        return x * 10 if x > 1 else x - 100

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [-100, -99, 20, 30]


# -- conditions: scalar, CPU ------------------------------------------------------------------


def test_one_dim_condition_fails_at_run_time():
    @cond_def
    def pipe():
        x = _x()
        c = _source([[1], [0], [1], [0]])
        if c:
            y = x
        else:
            y = x * 2
        return y

    pipe_ = pipe(batch_size=4, num_threads=1, device_id=None)  # tracing works
    pipe_.build()
    with pytest.raises(
        Exception,
        match=r"Conditions inside `if` statements are restricted to scalar \(0-d tensors\) inputs",
    ):
        pipe_.run()


def test_gpu_condition_is_rejected():
    @cond_def
    def pipe():
        x = _x()
        if (x > 1).gpu():
            y = x
        else:
            y = x * 2
        return y

    with pytest.raises(RuntimeError, match=r"placed on CPU. Got a GPU input as a condition"):
        pipe(batch_size=4, num_threads=1, device_id=None)


# -- random numbers follow the samples --------------------------------------------------------


def test_random_values_in_a_branch_match_the_same_op_outside():
    @cond_def
    def in_branch():
        c = fn.random.coin_flip(seed=123)
        if c:
            r = fn.random.uniform(range=(0, 1))
        else:
            r = types.Constant(-1.0, device="cpu")
        return c, r

    @cond_def
    def outside():
        return fn.random.uniform(range=(0, 1))

    for bs in (8, 16):
        c, r = _run(in_branch, batch_size=bs, seed=99)
        (ref,) = _run(outside, batch_size=bs, seed=99)
        mask = c.as_array().astype(bool)
        assert 0 < mask.sum() < bs
        np.testing.assert_array_equal(r.as_array()[mask], ref.as_array()[mask])
        assert np.all(r.as_array()[~mask] == -1.0)


def test_random_values_in_nested_and_else_branches_match():
    @cond_def
    def in_branch():
        c1 = fn.random.coin_flip(seed=1)
        c2 = fn.random.coin_flip(seed=2)
        if c1:
            if c2:
                r = fn.random.normal()
            else:
                r = types.Constant(100.0, device="cpu")
        else:
            r = types.Constant(200.0, device="cpu")
        return c1, c2, r

    @cond_def
    def outside():
        return fn.random.normal()

    c1, c2, r = _run(in_branch, batch_size=32, seed=5)
    (ref,) = _run(outside, batch_size=32, seed=5)
    both = c1.as_array().astype(bool) & c2.as_array().astype(bool)
    assert 0 < both.sum() < 32
    assert np.all(r.as_array()[~c1.as_array().astype(bool)] == 200.0)
    np.testing.assert_array_equal(r.as_array()[both], ref.as_array()[both])


# -- return inside if --------------------------------------------------------------------------


def test_return_in_both_branches():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            return x * 10
        else:
            return x - 100

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [-100, -99, 20, 30]


def test_early_return_then_code_after_the_if():
    @cond_def
    def pipe():
        x = _x(6)
        if x > 3:
            return x * 10, x
        y = x - 100
        if x > 1:
            return y, x + 1
        return y * 2, x

    y, x = _run(pipe, batch_size=6)
    assert y.as_array().tolist() == [-200, -198, -98, -97, 40, 50]
    assert x.as_array().tolist() == [0, 1, 3, 4, 4, 5]


def test_return_in_one_branch_only_is_an_error():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            return x

    with pytest.raises(RuntimeError, match="The `else` branch must also have a return statement"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_return_inside_a_loop_in_a_node_if_is_rejected():
    @cond_def
    def pipe():
        x = _x()
        for _ in range(2):
            if x > 1:
                return x
        return x

    with pytest.raises(NotImplementedError, match=r"cannot contain.*return"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_break_in_a_node_if_is_rejected():
    @cond_def
    def pipe():
        x = _x()
        y = x
        for _ in range(2):
            if x > 1:
                y = y + 1
                break
        return y

    with pytest.raises(NotImplementedError, match="`break` or `continue`"):
        pipe(batch_size=4, num_threads=1, device_id=None)


# -- loops ---------------------------------------------------------------------------------------


def test_while_on_a_node_is_an_error():
    @cond_def
    def pipe():
        x = _x()
        while x < 3:
            x = x + 1
        return x

    with pytest.raises(TypeError, match=r"`while` loop .* depends on a DataNode"):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_for_over_a_node_is_an_error():
    @cond_def
    def pipe():
        x = _x()
        for v in x:
            x = v
        return x

    with pytest.raises(TypeError, match=r"`for` loop .* iterates over a DataNode"):
        pipe(batch_size=4, num_threads=1, device_id=None)


# -- helper functions ----------------------------------------------------------------------------


def _helper_scale(x):
    if x > 1:
        return x * 10
    return x - 100


def _helper_outer(x):
    return _helper_scale(x) + 1


@dali.do_not_convert
def _helper_not_converted(x):
    if x > 1:
        return x
    return x


class _Base:
    def offset(self, x):
        return x + 1


class _Augment(_Base):
    def __init__(self, scale):
        self.__scale = scale  # a private (mangled) name

    def apply(self, x):
        if x > 1:
            x = x * self.__scale
        return x

    def __call__(self, x):
        if x > 2:
            return super().offset(x) + 1000
        return x


def test_helper_functions_are_converted_recursively():
    @cond_def
    def pipe():
        x = _x()
        return _helper_outer(x)

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [-99, -98, 21, 31]


def test_do_not_convert_excludes_a_helper():
    @cond_def
    def pipe():
        return _helper_not_converted(_x())

    with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_methods_and_callable_objects_are_converted():
    @cond_def
    def pipe():
        aug = _Augment(7)
        x = _x()
        return aug.apply(x), aug(x)

    a, b = _run(pipe)
    assert a.as_array().tolist() == [0, 1, 14, 21]
    assert b.as_array().tolist() == [0, 1, 2, 1004]


def test_nested_function_and_closure():
    offset = 5
    counter = [0]

    @cond_def
    def pipe():
        nonlocal offset
        x = _x()

        def inner(v):
            counter[0] += 1
            if v > 1:
                return v + offset
            return v

        offset = 50  # the closure cell is shared with the original function
        return inner(x)

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [0, 1, 52, 53]
    assert offset == 50 and counter == [1]


def test_pipeline_def_do_not_convert_on_the_pipeline_function():
    @cond_def
    @dali.do_not_convert
    def pipe():
        x = _x()
        if x > 1:
            return x
        return x

    with pytest.raises(TypeError, match='"DataNode" was used in conditional context'):
        pipe(batch_size=4, num_threads=1, device_id=None)


def test_function_without_source_falls_back_with_a_warning():
    ns = {"_x": _x}
    exec("def pipe_fn():\n    return _x() * 2\n", ns)  # noqa: S102 - no source on purpose
    pipe = cond_def(ns["pipe_fn"])
    with pytest.warns(UserWarning, match="is used as is"):
        p = pipe(batch_size=4, num_threads=1, device_id=None)
    p.build()
    assert p.run()[0].as_array().tolist() == [0, 2, 4, 6]


def test_errors_point_at_the_user_source_line():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = x
        else:
            y = x
        raise ValueError("boom")  # the line the traceback must show
        return y

    try:
        pipe(batch_size=4, num_threads=1, device_id=None)
    except ValueError:
        frame = traceback.extract_tb(sys.exc_info()[2])[-1]
    assert frame.filename == __file__
    assert frame.line == 'raise ValueError("boom")  # the line the traceback must show'


def test_definition_site_of_operators_in_branches():
    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = fn.random.normal(x, name="op_in_branch")
        else:
            y = x * 1.0
        return y

    p = pipe(batch_size=4, num_threads=1, device_id=None)
    op = next(o for o in p._ops if o.name == "op_in_branch")
    assert __file__ in op.definition and "fn.random.normal(x" in op.definition
    p.build()
    assert p.run()[0].as_array()[:2].tolist() == [0.0, 1.0]


def test_split_and_merge_are_hidden_from_fn():
    assert not hasattr(fn, "_conditional")
    assert "_conditional" not in dir(fn)


def test_no_warning_for_regular_functions():
    @cond_def
    def pipe():
        return _x()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pipe(batch_size=4, num_threads=1, device_id=None)


# -- GPU -----------------------------------------------------------------------------------------


_GPU_DATA = {
    "dense": [np.arange(4, dtype=np.float32) * (i + 1) for i in range(4)],
    "ragged": [np.arange(n, dtype=np.float32) * (i + 1) for i, n in enumerate((3, 3, 5, 5))],
}


@pytest.mark.parametrize("kind", ["dense", "ragged"])
@pytest.mark.parametrize("conds", [[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1]], ids=["mix", "F", "T"])
@cpu_gpu(rtol=1e-6)
def test_gpu_branches_match_cpu(kind, conds, device):
    data = _GPU_DATA[kind]

    @cond_def
    def pipe():
        x = fn.external_source(source=lambda: data, layout="W")
        if device == "gpu":
            x = x.gpu()
        c = _source(conds)
        if c:
            y = x * 2.0
            r = fn.random.normal(device=device)
        else:
            y = x + fn.random.normal(x)  # a random op with an input, split on the device
            r = fn.random.normal(device=device) + 10.0
        z = y if c else x  # a conditional expression on device data
        return y, r, z

    return _run(pipe, device_id=0)


@pytest.mark.gpu
def test_gpu_and_cpu_values_merge_on_the_gpu():
    pytest.importorskip("cupy")

    @cond_def
    def pipe():
        x = _x()
        if x > 1:
            y = (x * 10).gpu()
        else:
            y = x - 100
        return y

    (y,) = _run(pipe, device_id=0)
    assert type(y).__name__ == "TensorListGPU"
    assert y.as_cpu().as_array().tolist() == [-100, -99, 20, 30]


# -- recursion; operators in a branch no sample takes ----------------------------------------------


def _split_sum(lo, hi, x):
    """Recursive: a binary search of the ``if``s, as ``dali.auto_aug.core.select`` does."""
    if lo == hi:
        return x * 0 + lo * 10
    mid = (lo + hi) // 2
    if x <= mid:
        return _split_sum(lo, mid, x)
    else:
        return _split_sum(mid + 1, hi, x)


def test_recursive_module_level_function_is_converted():
    # the converted function calls itself by its global name (not a name of the factory)
    @cond_def
    def pipe():
        return _split_sum(0, 7, _source([6, 0, 3, 7]))

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [60, 0, 30, 70]


def test_recursive_nested_function_is_converted():
    @cond_def
    def pipe():
        def countdown(x, k):
            if x > k:
                return x + 100
            return countdown(x, k - 1) if k > 0 else x - 100

        return countdown(_x(), 2)

    (y,) = _run(pipe)
    assert y.as_array().tolist() == [-100, 101, 102, 103]


def test_the_library_s_auto_aug_is_converted():
    """`dali.auto_aug` is library code that branches on DataNodes: it is converted (as DALI
    converts ``nvidia.dali.auto_aug``), while the rest of the library is not."""
    from dali._pipeline.conditionals import functions
    from dali.auto_aug.core import _select

    assert functions._user_function(_select.split_samples_among_ops)
    assert not functions._user_function(fn.external_source)


def test_operators_in_a_branch_without_samples():
    # transforms, per-sample scalar arguments and arithmetic whose inputs' empty batches have
    # shapes that do not broadcast ((0, 0, 0, 0) and (0, 4, 5, 3)) run on 0 samples
    images = [np.full((4, 5, 3), i, np.uint8) for i in range(_BATCH)]

    @cond_def
    def pipe():
        img = fn.external_source(source=lambda: images, batch=True, layout="HWC")
        x = _x()
        if x > 10:
            angle = fn.cast(x, dtype=types.FLOAT)
            vector = types.Constant(np.float32([[0.5, 0], [0, 0.5]]))[x % 2]
            mt = fn.transforms.shear(shear=vector)
            mt = fn.transforms.translation(mt, offset=vector * angle)
            img = fn.warp_affine(img, matrix=mt, inverse_map=False)
            img = fn.rotate(img, angle=angle, keep_size=True)
            low = fn.reductions.min(img, axis_names="HW", keep_dims=True)
            img = fn.cast_like((img - low) * 2, img)
        return img

    (out,) = _run(pipe)
    assert [np.asarray(out.at(i)).tolist() for i in range(_BATCH)] == [i.tolist() for i in images]
