"""`@pipeline_def` (unknown kwargs are a TypeError, not DALI's AssertionError)."""

from __future__ import annotations

import inspect

import dali
import numpy as np
import pytest
from dali import fn, pipeline_def


def test_bare_decorator_returns_unbuilt_pipeline():
    @pipeline_def
    def pipe():
        return fn.random.uniform()

    p = pipe(batch_size=2, num_threads=1, seed=1)
    assert isinstance(p, dali.Pipeline)
    assert not p._built
    assert len(p.run()[0]) == 2


def test_decorator_with_arguments_and_call_time_override():
    @pipeline_def(batch_size=4, num_threads=1)
    def pipe():
        return fn.random.uniform()

    assert pipe().max_batch_size == 4
    assert pipe(batch_size=6).max_batch_size == 6


def test_wraps_keeps_name_signature_and_marker():
    @pipeline_def
    def my_pipe(a, b=2):
        return fn.random.uniform()

    assert my_pipe.__name__ == "my_pipe"
    assert list(inspect.signature(my_pipe).parameters) == ["a", "b"]
    assert my_pipe._is_pipeline_def is True


def test_kwargs_split_between_function_and_constructor():
    seen = {}

    @pipeline_def(num_threads=1)
    def pipe(lo, hi=1.0):
        seen["lo"], seen["hi"] = lo, hi
        return fn.random.uniform(range=(lo, hi))

    p = pipe(0.5, hi=0.75, batch_size=3, seed=9)
    assert seen == {"lo": 0.5, "hi": 0.75}
    assert p.max_batch_size == 3 and p.seed == 9
    a = p.run()[0].as_array()
    assert np.all((a >= 0.5) & (a < 0.75))


def test_shadowing_parameter_goes_to_function_with_printed_warning(capsys):
    got = {}

    @pipeline_def(batch_size=1, num_threads=1)
    def pipe(device_id=None):
        got["device_id"] = device_id
        return fn.random.uniform()

    p = pipe(device_id=3)
    assert got["device_id"] == 3
    assert p.device_id is None
    assert (
        "the argument `device_id` shadows a Pipeline constructor argument"
        in capsys.readouterr().out
    )


def test_unknown_kwarg_is_type_error_naming_it():
    @pipeline_def(batch_size=1, num_threads=1)
    def pipe():
        return fn.random.uniform()

    with pytest.raises(TypeError, match="`bogus`"):
        pipe(bogus=1)


def test_unknown_decorator_kwarg_is_type_error():
    with pytest.raises(TypeError, match="`bogus`"):
        pipeline_def(bogus=1)


def test_variadic_kwargs_rejected():
    with pytest.raises(TypeError, match=r"variadic keyword argument `\*\*kw`"):

        @pipeline_def
        def pipe(**kw):
            return fn.random.uniform()


def test_current_pipeline_inside_function():
    seen = {}

    @pipeline_def(batch_size=5, num_threads=1, seed=4)
    def pipe():
        cur = dali.Pipeline.current()
        seen["bs"], seen["seed"] = cur.max_batch_size, cur.seed
        return fn.random.uniform()

    pipe()
    assert seen == {"bs": 5, "seed": 4}


def test_return_none_single_and_tuple():
    @pipeline_def(batch_size=1, num_threads=1)
    def none():
        fn.random.uniform()

    @pipeline_def(batch_size=1, num_threads=1)
    def single():
        return fn.random.uniform()

    @pipeline_def(batch_size=1, num_threads=1)
    def two():
        return fn.random.uniform(), fn.random.coin_flip()

    assert none().num_outputs == 0
    assert single().num_outputs == 1
    assert two().num_outputs == 2


def test_enable_conditionals_is_dropped_unless_declared():
    @pipeline_def(batch_size=1, num_threads=1)
    def pipe():
        return fn.random.uniform()

    p = pipe(enable_conditionals=False)
    assert isinstance(p, dali.Pipeline)

    got = {}

    @pipeline_def(batch_size=1, num_threads=1)
    def declares(enable_conditionals=None):
        got["value"] = enable_conditionals
        return fn.random.uniform()

    declares(enable_conditionals=True)
    assert got["value"] is True


def test_positional_arguments_go_to_function():
    @pipeline_def(batch_size=2, num_threads=1, seed=0)
    def pipe(lo, hi):
        return fn.random.uniform(range=(lo, hi))

    a = pipe(10, 11).run()[0].as_array()
    assert np.all((a >= 10) & (a < 11))


def test_each_call_gives_an_independent_pipeline():
    @pipeline_def(batch_size=2, num_threads=1, seed=0)
    def pipe():
        return fn.random.uniform()

    a, b = pipe(), pipe()
    assert a is not b
    np.testing.assert_array_equal(a.run()[0].as_array(), b.run()[0].as_array())
