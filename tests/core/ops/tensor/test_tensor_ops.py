"""Tensor manipulation: cat, stack, squeeze, expand_dims, reinterpret, zeros/ones/full and
their *_like twins, fn.constant: shapes, layouts, dtypes, values, errors, static metadata, and
the GPU backends against the CPU ones."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

RNG = np.random.default_rng(7)


def _run(build, *, batch_size=2, device="cpu"):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id(device), seed=3)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _feed(samples, layout=""):
    return fn.external_source(lambda: [np.asarray(s) for s in samples], layout=layout or None)


def _samples(tl):
    return [np.asarray(s) for s in tl.as_cpu().samples()]


A = [
    RNG.integers(0, 200, (2, 3, 4)).astype(np.uint8),
    RNG.integers(0, 200, (1, 3, 4)).astype(np.uint8),
]
B = [
    RNG.integers(0, 200, (1, 3, 4)).astype(np.uint8),
    RNG.integers(0, 200, (2, 3, 4)).astype(np.uint8),
]
UNI = [RNG.integers(0, 200, (4, 5, 3)).astype(np.uint8) for _ in range(3)]


# -- cat and stack -------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, axis", [({}, 0), ({"axis": -2}, 1), ({"axis_name": "C"}, 2)])
def test_cat_joins_each_sample_along_the_axis(kwargs, axis):
    a = [np.concatenate([x, x], axis=1) for x in A]  # make axis 1 differ too
    (out,) = _run(lambda: fn.cat(_feed(A, "HWC"), _feed(A, "HWC"), **kwargs))
    assert out.layout() == "HWC"
    for got, x in zip(_samples(out), A):
        np.testing.assert_array_equal(got, np.concatenate([x, x], axis=axis))
    del a


def test_cat_of_ragged_samples_and_an_input_empty_in_the_whole_batch():
    empty = [np.zeros((0, 3, 4), np.uint8)] * 2
    (out,) = _run(lambda: fn.cat(_feed(A, "HWC"), _feed(empty, "HWC"), _feed(B, "HWC")))
    assert [s.shape for s in _samples(out)] == [(3, 3, 4), (3, 3, 4)]
    np.testing.assert_array_equal(_samples(out)[1], np.concatenate([A[1], B[1]]))


def test_cat_takes_the_first_inputs_layout_as_dali_does():
    (first, second) = _run(
        lambda: (fn.cat(_feed(A, "HWC"), _feed(B)), fn.cat(_feed(B), _feed(A, "HWC")))
    )
    assert first.layout() == "HWC" and second.layout() == ""


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda: fn.cat(_feed(A, "HWC"), _feed(B, "HWC"), axis=1),
            "only in the concatenation axis",
        ),
        (lambda: fn.cat(_feed(A), _feed([b.astype(np.int32) for b in B])), "same type and number"),
        (lambda: fn.cat(_feed(A, "HWC"), _feed(B, "HWC"), axis=3), "Accepted range is [-3, 2]"),
        (lambda: fn.cat(_feed(A), _feed(B), axis=0, axis_name="H"), "cannot be used together"),
        (lambda: fn.cat(_feed(A), _feed(B), axis_name="H"), "undefined axis 'H' for layout \"\""),
        (lambda: fn.stack(_feed(A), _feed(B)), "equal shape"),
        (lambda: fn.stack(_feed(A), _feed(A), axis_name="CC"), "single character"),
        (lambda: fn.stack(_feed(A), _feed(A), axis_name="N"), "non-empty input layout"),
        (lambda: fn.stack(_feed(A), _feed(A), axis=4), "Accepted range is [-3, 3]"),
    ],
)
def test_join_errors_name_the_operator(build, message):
    with pytest.raises(Exception, match=r"fn\.(cat|stack)") as info:
        _run(build)
    assert message in str(info.value)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_stack_inserts_the_new_axis(axis):
    (out,) = _run(
        lambda: fn.stack(_feed(UNI, "HWC"), _feed(UNI[::-1], "HWC"), axis=axis, axis_name="N"),
        batch_size=3,
    )
    pos = axis % 4
    assert out.layout() == "HWC"[:pos] + "N" + "HWC"[pos:]
    for got, x, y in zip(_samples(out), UNI, UNI[::-1]):
        np.testing.assert_array_equal(got, np.stack([x, y], axis=pos))


@pytest.mark.parametrize("op", ["stack", "cat"])
def test_join_in_a_branch_no_sample_takes(op):
    """An empty batch (a conditional branch no sample took) joins into an empty batch."""

    @dali.pipeline_def(batch_size=3, num_threads=2, device_id=None, enable_conditionals=True)
    def pipe():
        x = _feed(UNI, "HWC")
        if fn.cast(fn.reductions.max(x), dtype=types.INT32) > 1000:  # never: uint8
            y = getattr(fn, op)(x, x)
        else:
            y = getattr(fn, op)(x, fn.flip(x, horizontal=1))
        return y

    (out,) = pipe().run()
    join = np.stack if op == "stack" else np.concatenate
    for got, x in zip(_samples(out), UNI):
        np.testing.assert_array_equal(got, join([x, x[:, ::-1]]))


def test_stack_without_axis_name_has_no_layout_and_scalars_stack_into_vectors():
    scalars = [np.float32(1), np.float32(2)]
    (plain, vec) = _run(
        lambda: (
            fn.stack(_feed(A, "HWC"), _feed(A, "HWC")),
            fn.stack(_feed(scalars), _feed(scalars), axis_name="X"),
        )
    )
    assert plain.layout() == "" and vec.layout() == "X"
    assert [s.tolist() for s in _samples(vec)] == [[1.0, 1.0], [2.0, 2.0]]


# -- squeeze and expand_dims ---------------------------------------------------------------------

ONES = [
    np.arange(3, dtype=np.float32).reshape(1, 3, 1),
    np.arange(5, dtype=np.float32).reshape(1, 5, 1),
]


@pytest.mark.parametrize("kwargs", [{"axes": [0, 2]}, {"axis_names": "HC"}, {"axes": [2, 0]}])
def test_squeeze_removes_unit_dimensions_and_their_layout_letters(kwargs):
    (out,) = _run(lambda: fn.squeeze(_feed(ONES, "HWC"), **kwargs))
    assert out.layout() == "W"
    assert [s.tolist() for s in _samples(out)] == [[0, 1, 2], [0, 1, 2, 3, 4]]


def test_squeeze_per_sample_axes_and_empty_samples():
    axes = [np.array([0], np.int32), np.array([2], np.int32)]
    empty = [np.zeros((2, 0, 1), np.float32)] * 2
    (per, zero) = _run(
        lambda: (
            fn.squeeze(_feed(ONES), axes=_feed(axes)),
            fn.squeeze(_feed(empty, "HWC"), axes=[0]),
        )
    )
    assert [s.shape for s in _samples(per)] == [(3, 1), (1, 5)]
    assert zero.layout() == "WC" and [s.shape for s in _samples(zero)] == [(0, 1)] * 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"axes": [1]}, "volume of the new shape"),
        ({}, "Missing argument ``axes`` or ``axis_names``"),
        ({"axes": [0], "axis_names": "H"}, "both ``axes`` and ``axis_names``"),
        ({"axis_names": "X"}, "Axis 'X' is not present"),
        ({"axes": [0, 0]}, "twice same dimension"),
        ({"axes": [3]}, "out of the bounds"),
        ({"axes": [-1]}, "out of the bounds"),
    ],
)
def test_squeeze_errors(kwargs, message):
    with pytest.raises(Exception, match="fn\\.squeeze") as info:
        _run(lambda: fn.squeeze(_feed(ONES, "HWC"), **kwargs))
    assert message in str(info.value)


@pytest.mark.parametrize(
    "axes, names, shape, layout",
    [
        ([0, 2], "", (1, 1, 1, 3, 1), ""),
        ([0, 4], "FX", (1, 1, 3, 1, 1), "FHWCX"),
        ([3, 0], "AB", (1, 1, 3, 1, 1), "BHWAC"),
        ([3], "N", (1, 3, 1, 1), "HWCN"),
    ],
)
def test_expand_dims_inserts_at_output_positions(axes, names, shape, layout):
    (out,) = _run(lambda: fn.expand_dims(_feed(ONES, "HWC"), axes=axes, new_axis_names=names))
    assert out.layout() == layout and _samples(out)[0].shape == shape
    np.testing.assert_array_equal(_samples(out)[1].ravel(), ONES[1].ravel())


def test_expand_dims_of_scalars_names_without_an_input_layout():
    (out,) = _run(
        lambda: fn.expand_dims(_feed([np.float32(1), np.float32(2)]), axes=0, new_axis_names="A")
    )
    assert out.layout() == "A" and [s.tolist() for s in _samples(out)] == [[1.0], [2.0]]


@pytest.mark.parametrize(
    "kwargs, layout, message",
    [
        ({"axes": [0, 4], "new_axis_names": "F"}, "HWC", "only 1 new dimension names"),
        ({"axes": [6]}, "HWC", "not enough dimensions"),
        ({"axes": [-1]}, "HWC", "can't be negative"),
        ({"axes": [1, 1]}, "HWC", "Duplicate axis"),
        ({"axes": [0], "new_axis_names": "F"}, "", "requires an input with a proper layout"),
    ],
)
def test_expand_dims_errors(kwargs, layout, message):
    with pytest.raises(Exception, match="fn\\.expand_dims") as info:
        _run(lambda: fn.expand_dims(_feed(ONES, layout), **kwargs))
    assert message in str(info.value)


# -- reinterpret ---------------------------------------------------------------------------------


def test_reinterpret_type_rescales_the_innermost_extent_and_keeps_the_bytes():
    (f32, i16, flat, rel) = _run(
        lambda: (
            fn.reinterpret(_feed(A, "HWC"), dtype=types.FLOAT),
            fn.reinterpret(_feed(A, "HWC"), dtype=types.INT16),
            fn.reinterpret(_feed(A, "HWC"), dtype=types.INT16, shape=[-1]),
            fn.reinterpret(_feed(A, "HWC"), rel_shape=[1, -1], dtype=types.UINT16),
        )
    )
    assert f32.layout() == "HWC" and f32.dtype == types.FLOAT
    assert [s.shape for s in _samples(f32)] == [(2, 3, 1), (1, 3, 1)]
    np.testing.assert_array_equal(_samples(f32)[0], A[0].view(np.float32))
    assert [s.shape for s in _samples(i16)] == [(2, 3, 2), (1, 3, 2)]
    assert flat.layout() == "" and [s.shape for s in _samples(flat)] == [(12,), (6,)]
    np.testing.assert_array_equal(_samples(flat)[1], A[1].reshape(-1).view(np.int16))
    assert [s.shape for s in _samples(rel)] == [(2, 6), (1, 6)]


def test_reinterpret_without_type_is_reshape_and_errors():
    (lay,) = _run(lambda: fn.reinterpret(_feed(A, "HWC"), layout="ABC"))
    assert lay.layout() == "ABC"
    with pytest.raises(Exception, match="no-op"):
        _run(lambda: fn.reinterpret(_feed(A, "HWC")))
    with pytest.raises(Exception, match="not divisible"):
        _run(lambda: fn.reinterpret(_feed(A, "HWC"), dtype=types.FLOAT64))
    with pytest.raises(Exception, match="volume"):
        _run(lambda: fn.reinterpret(_feed([A[0], A[0]]), dtype=types.FLOAT, shape=[3, 3]))


# -- zeros, ones, full and *_like ----------------------------------------------------------------


def test_zeros_ones_shapes_types_layouts():
    shapes = [np.array([2], np.int32), np.array([3], np.int32)]
    (z, o, per, scalar) = _run(
        lambda: (
            fn.zeros(shape=[2, 3]),
            fn.ones(shape=[2], dtype=types.FLOAT16, layout="X"),
            fn.ones(shape=_feed(shapes), dtype=types.BOOL),
            fn.zeros(),
        )
    )
    assert z.dtype == types.INT32 and z.as_array().shape == (2, 2, 3) and not z.as_array().any()
    assert o.dtype == types.FLOAT16 and o.layout() == "X" and o.as_array().tolist() == [[1, 1]] * 2
    assert [s.tolist() for s in _samples(per)] == [[True] * 2, [True] * 3]
    assert scalar.as_array().shape == (2,)
    with pytest.raises(Exception, match="Layout 'XY' has 2 dimensions"):
        _run(lambda: fn.ones(shape=[2], layout="XY"))
    with pytest.raises(Exception, match="non-negative"):
        _run(lambda: fn.zeros(shape=[-1]))


def test_full_broadcasts_the_fill_value_numpy_style():
    row = [np.array([1, 2, 3], np.float32)] * 2
    per_sample = [np.float32(1), np.float32(2)]
    (full, each, ragged) = _run(
        lambda: (
            fn.full(_feed(row), shape=[2, 3], layout="HW"),
            fn.full(_feed(per_sample), shape=[2]),
            fn.full(_feed(per_sample), shape=_feed([np.array([1]), np.array([3])])),
        )
    )
    assert full.layout() == "HW" and full.dtype == types.FLOAT
    np.testing.assert_array_equal(_samples(full)[0], [[1, 2, 3], [1, 2, 3]])
    assert each.as_array().tolist() == [[1, 1], [2, 2]]
    assert [s.tolist() for s in _samples(ragged)] == [[1.0], [2.0, 2.0, 2.0]]
    with pytest.raises(Exception, match="Shapes 2 x 2 and 3 can't be broadcast"):
        _run(lambda: fn.full(_feed(row), shape=[2, 2]))


def test_like_operators_take_shape_type_and_layout_of_their_input():
    (z, o, f, f_ragged) = _run(
        lambda: (
            fn.zeros_like(_feed(ONES, "HWC")),
            fn.ones_like(_feed(ONES, "HWC"), dtype=types.INT8),
            fn.full_like(
                _feed([np.zeros((2, 3), np.float32)] * 2, "HW"),
                _feed([np.array([5, 6, 7], np.int32)] * 2),
            ),
            fn.full_like(_feed(ONES, "HWC"), _feed([np.float32(1.6), np.float32(-2.5)])),
        )
    )
    assert (
        z.layout() == "HWC"
        and z.dtype == types.FLOAT
        and [s.shape for s in _samples(z)] == [(1, 3, 1), (1, 5, 1)]
    )
    assert o.dtype == types.INT8 and _samples(o)[1].tolist() == [[[1]] * 5]
    assert (
        f.dtype == types.FLOAT and f.layout() == "HW" and _samples(f)[0].tolist() == [[5, 6, 7]] * 2
    )
    got = [s.ravel() for s in _samples(f_ragged)]
    assert f_ragged.dtype == types.FLOAT and [g.size for g in got] == [3, 5]
    np.testing.assert_array_equal(np.concatenate(got), np.float32([1.6] * 3 + [-2.5] * 5))
    with pytest.raises(Exception, match="can't be broadcast"):
        _run(lambda: fn.full_like(_feed(ONES, "HWC"), _feed([np.array([5, 6], np.int32)] * 2)))


def test_full_like_converts_the_fill_value_like_cast():
    (out,) = _run(
        lambda: fn.full_like(
            _feed([np.zeros(3, np.uint8)] * 2), _feed([np.float32(300.4), np.float32(-1.5)])
        )
    )
    assert out.dtype == types.UINT8 and out.as_array().tolist() == [[255] * 3, [0] * 3]


# -- constant ------------------------------------------------------------------------------------


def test_constant_fdata_idata_shape_dtype():
    (f, i, one, conv) = _run(
        lambda: (
            fn.constant(fdata=[1.0, 2.0, 3.0, 4.0], shape=[2, 2]),
            fn.constant(idata=5, shape=[2, 3], layout="HW"),
            fn.constant(idata=5),
            fn.constant(fdata=[1.7, -2.5], dtype=types.INT32),
        )
    )
    assert f.dtype == types.FLOAT and f.as_array()[0].tolist() == [[1, 2], [3, 4]]
    assert (
        i.dtype == types.INT32 and i.layout() == "HW" and i.as_array()[1].tolist() == [[5] * 3] * 2
    )
    assert one.as_array().tolist() == [[5], [5]]
    assert conv.as_array()[0].tolist() == [2, -3]
    for kwargs, message in [
        ({"fdata": [1.5], "idata": [1]}, "mutually exclusive"),
        ({"shape": [1]}, "either `fdata` or `idata`"),
        ({"fdata": [1.0, 2.0, 3.0], "shape": [2, 2]}, "does not match the shape"),
    ]:
        with pytest.raises(Exception, match=message):
            _run(lambda kwargs=kwargs: fn.constant(**kwargs))


# -- static metadata ------------------------------------------------------------------------------


def test_static_metadata_of_the_graph():
    with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        x = types.Constant(np.zeros((1, 4, 3), np.uint8), layout="HWC")
        st = fn.stack(x, x, axis=3, axis_name="N")
        sq = fn.squeeze(x, axis_names="H")
        ex = fn.expand_dims(x, axes=[0], new_axis_names="F")
        z = fn.zeros(shape=[2, 5], dtype=types.FLOAT)
        ri = fn.reinterpret(x, dtype=types.INT8)
    assert (st.layout, st.ndim) == ("HWCN", 4)
    assert (sq.layout, sq.static_shape) == ("WC", (4, 3))
    assert (ex.layout, ex.static_shape) == ("FHWC", (1, 1, 4, 3))
    assert (z.dtype, z.static_shape) == (types.FLOAT, (2, 5))
    assert (ri.dtype, ri.layout, ri.ndim) == (types.INT8, "HWC", 3)


# -- GPU ------------------------------------------------------------------------------------------

IMG = RNG.integers(0, 256, (6, 8, 3)).astype(np.uint8)

GPU_CASES = {
    "cat": lambda x: fn.cat(x, x, axis=1),
    "cat_name": lambda x: fn.cat(x, fn.flip(x, horizontal=1), axis_name="C"),
    "stack": lambda x: fn.stack(x, x, axis=3, axis_name="N"),
    "stack0": lambda x: fn.stack(x, x),
    "squeeze": lambda x: fn.squeeze(fn.expand_dims(x, axes=[0, 4]), axes=[0, 4]),
    "expand_dims": lambda x: fn.expand_dims(x, axes=[0], new_axis_names="F"),
    "reinterpret": lambda x: fn.reinterpret(fn.pad(x, shape=[6, 8, 4]), dtype=types.FLOAT),
    "reinterpret_shape": lambda x: fn.reinterpret(x, shape=[-1], dtype=types.INT8),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
@cpu_gpu()
def test_gpu_matches_cpu(case, device):
    op = GPU_CASES[case]
    return _run(
        lambda: op(to_device(types.Constant(IMG, layout="HWC"), device)),
        batch_size=3,
        device=device,
    )


@cpu_gpu()
def test_gpu_ragged_joins_match_cpu(device):
    def build():
        a, b = to_device(_feed(A, "HWC"), device), to_device(_feed(B, "HWC"), device)
        return (
            fn.cat(a, b),
            fn.stack(a, a, axis=1),
            fn.squeeze(fn.expand_dims(a, axes=[1]), axes=[1]),
        )

    return _run(build, device=device)


@cpu_gpu()
def test_gpu_constant_matches_cpu(device):
    return _run(
        lambda: fn.constant(fdata=[1.5, 2.5, 3.5], shape=[3], dtype=types.INT16, device=device),
        device=device,
    )
