"""Generic operators: cast, cast_like, transpose, reshape, pad, slice,
one_hot, copy, normalize."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(3).integers(0, 256, (6, 8, 3)).astype(np.uint8)


def _run(build, *, batch_size=2, device_id=None, seed=9):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=device_id, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    return pipe.run()


def _const(value, layout=""):
    return types.Constant(np.asarray(value), layout=layout)


def _ragged(arrays, layout=""):
    return fn.external_source(lambda: [np.array(a) for a in arrays], layout=layout)


# -- cast ----------------------------------------------------------------------------------------


def test_cast_float_to_int_rounds_half_away_and_saturates():
    x = np.array([-1.5, 2.5, 0.5, -0.5], np.float32)
    (i32, u8, big) = _run(
        lambda: (
            fn.cast(_const(x), dtype=types.INT32),
            fn.cast(_const(x), dtype=types.UINT8),
            fn.cast(_const(np.array([300.0, -7.0], np.float32)), dtype=types.UINT8),
        )
    )
    assert i32.dtype == types.INT32 and i32.as_array()[0].tolist() == [-2, 3, 1, -1]
    assert u8.dtype == types.UINT8 and u8.as_array()[0].tolist() == [0, 3, 1, 0]
    assert big.as_array()[0].tolist() == [255, 0]


def test_cast_rounding_edge_and_wide_targets():
    below_half = np.nextafter(np.float32(0.5), np.float32(0))
    x = np.array([below_half, 1e30, -1e30, np.nan, 2147483647.0], np.float32)
    (i32, i64, u32) = _run(
        lambda: [fn.cast(_const(x), dtype=t) for t in (types.INT32, types.INT64, types.UINT32)]
    )
    # NaN -> signed integer is the type's minimum, as DALI 2.4 on x86 (conformance session)
    assert i32.as_array()[0].tolist() == [0, 2**31 - 1, -(2**31), -(2**31), 2**31 - 1]
    assert i64.as_array()[0].tolist() == [0, 2**63 - 1, -(2**63), -(2**63), 2147483648]
    assert u32.as_array()[0].tolist() == [0, 2**32 - 1, 0, 0, 2147483648]


def test_cast_to_float16_overflows_to_inf():
    (h, hi) = _run(
        lambda: (
            fn.cast(_const(np.array([70000.0, -70000.0, 1.5], np.float32)), dtype=types.FLOAT16),
            fn.cast(_const(np.array([70000], np.int32)), dtype=types.FLOAT16),
        )
    )
    assert h.dtype == types.FLOAT16
    assert h.as_array()[0].tolist() == [np.inf, -np.inf, 1.5]
    assert hi.as_array()[0].tolist() == [np.inf]


def test_cast_integers_saturate():
    x = np.array([-5, 300, 70000, 2**31 - 1], np.int32)
    (u8, i16, u64, from_u32) = _run(
        lambda: (
            fn.cast(_const(x), dtype=types.UINT8),
            fn.cast(_const(x), dtype=types.INT16),
            fn.cast(_const(x), dtype=types.UINT64),
            fn.cast(_const(np.array([4_000_000_000], np.uint32)), dtype=types.INT32),
        )
    )
    assert u8.as_array()[0].tolist() == [0, 255, 255, 255]
    assert i16.as_array()[0].tolist() == [-5, 300, 32767, 32767]
    assert u64.as_array()[0].tolist() == [0, 300, 70000, 2**31 - 1]
    assert from_u32.as_array()[0].tolist() == [2**31 - 1]


def test_cast_bool_both_ways_and_same_type_copy():
    (b, f, same) = _run(
        lambda: (
            fn.cast(_const(np.array([0.0, 2.5, -1.0], np.float32)), dtype=types.BOOL),
            fn.cast(_const(np.array([True, False])), dtype=types.FLOAT),
            fn.cast(_const(IMG, "HWC"), dtype=types.UINT8),
        )
    )
    assert b.dtype == types.BOOL and b.as_array()[0].tolist() == [False, True, True]
    assert f.as_array()[0].tolist() == [1.0, 0.0]
    assert same.layout() == "HWC"
    np.testing.assert_array_equal(same.as_array()[0], IMG)


def test_cast_ragged_and_cast_like():
    (r, like) = _run(
        lambda: (
            fn.cast(_ragged([np.array([1.5, 2.5]), np.array([-0.5])]), dtype=types.INT16),
            fn.cast_like(
                _const(np.array([1.5, -2.5], np.float32)), _const(np.array([0], np.uint8))
            ),
        )
    )
    assert r.at(0).tolist() == [2, 3] and r.at(1).tolist() == [-1]
    assert like.dtype == types.UINT8 and like.as_array()[0].tolist() == [2, 0]


def test_cast_requires_dtype_and_static_meta():
    with pytest.raises(RuntimeError, match="dtype"):
        _run(lambda: fn.cast(_const(IMG)))
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        c = fn.cast(_const(IMG, "HWC"), dtype=types.FLOAT16)
        cl = fn.cast_like(_const(IMG), _const(np.zeros(1, np.int16)))
    assert (c.dtype, c.ndim, c.layout) == (types.FLOAT16, 3, "HWC")
    assert cl.dtype == types.INT16


# -- transpose -----------------------------------------------------------------------------------


def test_transpose_permutes_data_and_layout():
    (a, b, c) = _run(
        lambda: (
            fn.transpose(_const(IMG, "HWC"), perm=[2, 0, 1]),
            fn.transpose(_const(IMG, "HWC"), perm=[1, 0, 2], transpose_layout=False),
            fn.transpose(_const(IMG, "HWC"), perm=[1, 0, 2], output_layout="XYZ"),
        )
    )
    assert a.layout() == "CHW" and a.as_array()[0].flags.c_contiguous
    np.testing.assert_array_equal(a.as_array()[0], IMG.transpose(2, 0, 1))
    assert b.layout() == "HWC" and c.layout() == "XYZ"
    np.testing.assert_array_equal(b.as_array()[0], IMG.transpose(1, 0, 2))


def test_transpose_ragged_and_errors():
    (r,) = _run(lambda: fn.transpose(_ragged([np.zeros((2, 3)), np.ones((4, 1))]), perm=[1, 0]))
    assert r.at(0).shape == (3, 2) and r.at(1).shape == (1, 4)
    with pytest.raises(Exception, match=r"dali.fn.transpose.*`perm`"):
        _run(lambda: fn.transpose(_const(IMG), perm=[0, 0, 1]))
    with pytest.raises(RuntimeError, match="`perm`"):
        _run(lambda: fn.transpose(_const(IMG), perm=[1, 0]))
    with pytest.raises(Exception, match="`output_layout`"):
        _run(lambda: fn.transpose(_const(IMG), perm=[1, 0, 2], output_layout="AB"))


# -- reshape -------------------------------------------------------------------------------------


def test_reshape_shape_wildcard_and_rel_shape():
    (a, b, c) = _run(
        lambda: (
            fn.reshape(_const(IMG, "HWC"), shape=[3, -1]),
            fn.reshape(_const(IMG, "HWC"), rel_shape=[0.5, -1]),
            fn.reshape(_const(IMG, "HWC"), shape=[8, 6, 3]),
        )
    )
    assert a.shape()[0] == (3, 48) and a.layout() == ""  # fewer dims: layout cleared
    np.testing.assert_array_equal(a.as_array()[0], IMG.reshape(3, 48))
    assert b.shape()[0] == (3, 48)
    assert c.layout() == "HWC"  # same number of dims: layout kept


def test_reshape_src_dims():
    x = np.arange(6 * 4, dtype=np.int32).reshape(6, 4, 1)
    (a, b) = _run(
        lambda: (
            fn.reshape(_const(x), src_dims=[-1, 1, 0]),
            fn.reshape(_const(x), src_dims=[-1, 1, 0], rel_shape=[-1, 0.5, 2]),
        )
    )
    assert a.shape()[0] == (1, 4, 6) and b.shape()[0] == (1, 2, 12)
    np.testing.assert_array_equal(a.as_array()[0].reshape(-1), x.reshape(-1))


def test_reshape_layout_argument_and_shape_input():
    (a, b, c) = _run(
        lambda: (
            fn.reshape(_const(IMG, "HWC"), layout="XYZ"),
            fn.reshape(_const(IMG), _const(np.array([24, 6], np.int32))),
            fn.reshape(_const(IMG, "HWC"), shape=[6, 8, 3], layout=""),
        )
    )
    assert a.layout() == "XYZ" and a.shape()[0] == IMG.shape
    assert b.shape()[0] == (24, 6)
    assert c.layout() == ""


def test_reshape_per_sample_shape():
    def build():
        x = _ragged([np.arange(12), np.arange(8)])
        shp = _ragged([np.array([3, 4]), np.array([2, 4])])
        return fn.reshape(x, shape=shp)

    (out,) = _run(build)
    assert out.shape() == [(3, 4), (2, 4)]


def test_reshape_volume_mismatch_names_sample_and_sizes():
    with pytest.raises(RuntimeError) as e:
        _run(lambda: fn.reshape(_const(IMG), shape=[5, 5]))
    msg = str(e.value)
    assert "dali.fn.reshape" in msg and "sample 0" in msg and "`shape`" in msg
    assert "25" in msg and "144" in msg


@pytest.mark.parametrize(
    ("kwargs", "arg"),
    [
        ({"shape": [-1, -1]}, "shape"),
        ({"shape": [0, 144]}, "shape"),
        ({"shape": [144], "rel_shape": [1.0]}, "rel_shape"),
        ({"rel_shape": [1.0, 1.0, 1.0, 1.0]}, "rel_shape"),
        ({"src_dims": [0, 5]}, "src_dims"),
        ({"shape": [6, 8, 3], "layout": "AB"}, "layout"),
    ],
)
def test_reshape_argument_errors(kwargs, arg):
    with pytest.raises(Exception) as e:
        _run(lambda: fn.reshape(_const(IMG), **kwargs))
    assert "dali.fn.reshape" in str(e.value) and f"`{arg}`" in str(e.value)


def test_reshape_without_arguments_is_an_error():
    with pytest.raises(Exception, match=r"dali.fn.reshape.*no-op"):
        _run(lambda: fn.reshape(_const(IMG)))


# -- pad -----------------------------------------------------------------------------------------


def _pad_batch():
    return _ragged([np.array([3, 4, 2, 5, 4]), np.array([2, 2]), np.array([3, 199, 5])])


def test_pad_to_batch_max_and_minimum_shape_and_align():
    def build():
        return (
            fn.pad(_pad_batch(), fill_value=-1),
            fn.pad(_pad_batch(), fill_value=-1, shape=[7]),
            fn.pad(_pad_batch(), fill_value=-1, align=4),
        )

    a, b, c = _run(build, batch_size=3)
    assert a.at(1).tolist() == [2, 2, -1, -1, -1]
    assert a.at(2).tolist() == [3, 199, 5, -1, -1]
    assert b.at(0).tolist() == [3, 4, 2, 5, 4, -1, -1]
    assert c.at(1).tolist() == [2, 2, -1, -1, -1, -1, -1, -1]
    (big,) = _run(lambda: fn.pad(_ragged([np.arange(8), np.arange(2)]), shape=[7]))
    assert big.at(0).shape == (8,) and big.at(1).shape == (7,)  # shape is a minimum


def test_pad_selected_axes_and_names():
    x = [np.ones((2, 3), np.float32), np.ones((4, 1), np.float32)]
    (a, b, c) = _run(
        lambda: (
            fn.pad(_ragged(x), axes=[1]),
            fn.pad(_ragged(x, "HW"), axis_names="H", shape=[-1], align=[3]),
            fn.pad(_ragged(x), axes=[-1], fill_value=9),
        )
    )
    assert a.shape() == [(2, 3), (4, 3)]
    assert b.shape() == [(6, 3), (6, 1)] and b.layout() == "HW"
    assert c.at(1)[0].tolist() == [1, 9, 9]


def test_pad_dense_batch_and_per_sample_fill():
    def build():
        fill = fn.random.uniform(range=(10, 20), dtype=types.INT32)
        return fn.pad(_const(np.zeros((2, 2), np.int32)), shape=[3, 3], fill_value=fill), fill

    out, fill = _run(build, batch_size=3)
    for i in range(3):
        a = out.at(i)
        assert a.shape == (3, 3) and a[2, 2] == fill.at(i) and a[0, 0] == 0


def test_pad_errors():
    with pytest.raises(Exception, match="`axis_names`"):
        _run(lambda: fn.pad(_const(IMG), axes=[0], axis_names="H"))
    with pytest.raises(Exception, match="`align`"):
        _run(lambda: fn.pad(_const(IMG), align=[0]))
    with pytest.raises(RuntimeError, match="`shape`"):
        _run(lambda: fn.pad(_const(IMG), shape=[1, 2]))


# -- slice ---------------------------------------------------------------------------------------


def test_slice_named_arguments_default_to_width_height():
    (a, b, c, d) = _run(
        lambda: (
            fn.slice(_const(IMG, "HWC"), start=[1, 2], shape=[3, 2]),
            fn.slice(_const(IMG, "HWC"), start=[1, 2], end=[4, 4]),
            fn.slice(_const(IMG, "HWC"), rel_start=[0.5, 0.5], rel_end=[1, 1]),
            fn.slice(_const(IMG, "HWC"), rel_start=[0.25, 0.5], rel_shape=[0.5, 0.5]),
        )
    )
    np.testing.assert_array_equal(a.as_array()[0], IMG[2:4, 1:4])
    np.testing.assert_array_equal(b.as_array()[0], IMG[2:4, 1:4])
    np.testing.assert_array_equal(c.as_array()[0], IMG[3:, 4:])
    np.testing.assert_array_equal(d.as_array()[0], IMG[3:6, 2:6])
    assert a.layout() == "HWC"


def test_slice_axes_and_rounding():
    x = np.arange(10, dtype=np.int32)
    (a, b) = _run(
        lambda: (
            fn.slice(_const(x), start=[2], end=[5], axes=[0]),
            fn.slice(_const(x), rel_start=[0.25], rel_end=[0.75], axes=[0]),  # 2.5 -> 3, 7.5 -> 8
        )
    )
    assert a.as_array()[0].tolist() == [2, 3, 4]
    assert b.as_array()[0].tolist() == [3, 4, 5, 6, 7]


def test_slice_positional_inputs():
    (rel, absolute, mixed) = _run(
        lambda: (
            fn.slice(
                _const(IMG, "HWC"),
                _const(np.array([0.25, 0.5], np.float32)),
                _const(np.array([0.5, 0.5], np.float32)),
            ),
            fn.slice(
                _const(IMG, "HWC"),
                _const(np.array([1, 2], np.int32)),
                _const(np.array([3, 2], np.int32)),
            ),
            fn.slice(
                _const(IMG, "HWC"),
                _const(np.array([1.0, 2.0], np.float32)),
                _const(np.array([0.5, 0.5], np.float32)),
                normalized_anchor=False,
            ),
        )
    )
    np.testing.assert_array_equal(rel.as_array()[0], IMG[3:6, 2:6])
    np.testing.assert_array_equal(absolute.as_array()[0], IMG[2:4, 1:4])
    np.testing.assert_array_equal(mixed.as_array()[0], IMG[2:5, 1:5])


def test_slice_out_of_bounds_policies_and_dtype():
    (pad, trim, f) = _run(
        lambda: (
            fn.slice(
                _const(IMG, "HWC"),
                start=[6, 4],
                shape=[4, 4],
                out_of_bounds_policy="pad",
                fill_values=[1, 2, 3],
            ),
            fn.slice(
                _const(IMG, "HWC"), start=[6, 4], shape=[4, 4], out_of_bounds_policy="trim_to_shape"
            ),
            fn.slice(_const(IMG, "HWC"), start=[0, 0], shape=[2, 2], dtype=types.FLOAT),
        )
    )
    p = pad.as_array()[0]
    assert p.shape == (4, 4, 3) and p[3, 3].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(p[:2, :2], IMG[4:6, 6:8])
    np.testing.assert_array_equal(trim.as_array()[0], IMG[4:6, 6:8])
    assert f.dtype == types.FLOAT
    with pytest.raises(RuntimeError, match=r"(?s)dali.fn.slice.*sample 0.*does not fit"):
        _run(lambda: fn.slice(_const(IMG, "HWC"), start=[6, 4], shape=[4, 4]))


def test_slice_per_sample_start():
    def build():
        start = fn.random.uniform(range=(0, 3), shape=(2,), dtype=types.INT32)
        return fn.slice(_const(IMG, "HWC"), start=start, shape=[2, 2]), start

    out, start = _run(build, batch_size=4)
    for i in range(4):
        x0, y0 = start.at(i).tolist()
        np.testing.assert_array_equal(out.at(i), IMG[y0 : y0 + 2, x0 : x0 + 2])


@pytest.mark.parametrize("policy", ["pad", "trim_to_shape", "error"])
@pytest.mark.parametrize(
    ("dtype", "normalized"),
    [(np.float32, True), (np.float32, False), (np.int32, False), (np.float64, True)],
)
def test_slice_windows_of_a_batch_equal_the_per_sample_ones(monkeypatch, policy, dtype, normalized):
    """The windows of anchor/shape inputs are computed for the whole batch at once; the same
    windows (halves, windows outside the image, ragged images) as sample by sample."""
    from dali._ops.window.slice_attr import SliceAttr

    rng = np.random.default_rng(5)
    images = [IMG, IMG[1:, 2:], IMG[:3], IMG[2:5, :4]] * 4
    if normalized:
        anchors = rng.choice([-0.5, -0.25, 0.0, 0.125, 0.25, 0.5, 0.75], (16, 2))
        sizes = rng.choice([0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 1.5], (16, 2))
    else:
        anchors = rng.integers(-3, 8, (16, 2)) + rng.choice([0, 0.5], (16, 2))
        sizes = rng.integers(0, 9, (16, 2)) + rng.choice([0, 0.5], (16, 2))
    if policy == "error":  # windows inside every image, at halves
        anchors, sizes = np.full((16, 2), 0.5 if normalized else 1.5), np.full((16, 2), 0.25)
    anchors, sizes = anchors.astype(dtype), sizes.astype(dtype)

    def build():
        return fn.slice(
            _ragged(images, "HWC"),
            fn.external_source(lambda: list(anchors)),
            fn.external_source(lambda: list(sizes)),
            normalized_anchor=normalized,
            normalized_shape=normalized,
            out_of_bounds_policy=policy,
        )

    calls = []
    batched = SliceAttr._positional_batch

    def counting(self, *args):
        result = batched(self, *args)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(SliceAttr, "_positional_batch", counting)
    (fast,) = _run(build, batch_size=16)
    assert calls and all(calls)  # (each batch the pipeline computed)
    monkeypatch.setattr(SliceAttr, "_positional_batch", lambda self, *args: None)
    (slow,) = _run(build, batch_size=16)
    for i in range(16):
        assert fast.at(i).shape == slow.at(i).shape
        np.testing.assert_array_equal(fast.at(i), slow.at(i))


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda x: fn.slice(x, start=[0, 0], rel_start=[0, 0]), "`rel_start`"),
        (lambda x: fn.slice(x, start=[0, 0], end=[1, 1], shape=[1, 1]), "`shape`"),
        (lambda x: fn.slice(x), "named slice arguments"),
        (lambda x: fn.slice(x, _const(np.array([0.0, 0.0], np.float32))), "two extra inputs"),
        (lambda x: fn.slice(x, start=[0, 0], axes=[0, 1], axis_names="HW"), "`axis_names`"),
        (lambda x: fn.slice(x, start=[0, 0, 0], shape=[1, 1, 1]), "`start`"),
        (lambda x: fn.slice(fn.reshape(x, layout=""), start=[0, 0], shape=[1, 1]), "`axis_names`"),
        (lambda x: fn.slice(x, start=[3, 3], end=[1, 1]), "before start"),
    ],
)
def test_slice_errors(make, pattern):
    with pytest.raises(Exception, match=pattern):
        _run(lambda: make(_const(IMG, "HWC")))


@pytest.mark.parametrize(
    ("kw", "arg", "shown"),
    [
        ({"start": [0, 0], "shape": [-3, 2]}, "shape", "[-3.0, 2.0]"),
        ({"rel_start": [0, 0], "rel_shape": [0.5, -0.25]}, "rel_shape", "[0.5, -0.25]"),
    ],
)
def test_slice_negative_constant_shape_is_a_build_error(kw, arg, shown):
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.slice(_const(IMG, "HWC"), **kw))
    with pytest.raises(RuntimeError) as e:
        pipe.build()  # before any data
    msg = str(e.value)
    assert "dali.fn.slice" in msg and f"argument `{arg}`" in msg
    assert "negative" in msg and shown in msg


def test_slice_negative_per_sample_shape_names_argument_and_sample():
    shapes = [np.array([2, 2], np.int32), np.array([2, -1], np.int32)]
    with pytest.raises(RuntimeError) as e:
        _run(
            lambda: fn.slice(
                _const(IMG, "HWC"), start=[0, 0], shape=fn.external_source(lambda: shapes)
            )
        )
    msg = str(e.value)
    assert "dali.fn.slice" in msg and "argument `shape`" in msg and "sample 1" in msg
    assert "[2.0, -1.0]" in msg


def test_slice_negative_shape_input_names_the_input_and_sample():
    anchors = [np.array([0.0, 0.0], np.float32)] * 2
    shapes = [np.array([0.5, 0.5], np.float32), np.array([0.5, -0.5], np.float32)]
    with pytest.raises(RuntimeError) as e:
        _run(
            lambda: fn.slice(
                _const(IMG, "HWC"),
                fn.external_source(lambda: anchors),
                fn.external_source(lambda: shapes),
            )
        )
    msg = str(e.value)
    assert "dali.fn.slice" in msg and "the `shape` input" in msg and "sample 1" in msg
    assert "[0.5, -0.5]" in msg


# -- one_hot and copy ------------------------------------------------------------------------------


def test_one_hot_scalars_and_axes():
    x = np.array([[0, 3], [1, 9]], np.int32)
    (s, last, first) = _run(
        lambda: (
            fn.one_hot(_const(np.array([2], np.int32)), num_classes=4),
            fn.one_hot(_const(x), num_classes=4),
            fn.one_hot(_const(x), num_classes=4, axis=0),
        )
    )
    assert s.dtype == types.FLOAT and s.as_array()[0].tolist() == [0, 0, 1, 0]
    a = last.as_array()[0]
    assert a.shape == (2, 2, 4) and a[0, 1].tolist() == [0, 0, 0, 1]
    assert a[1, 1].tolist() == [0, 0, 0, 0]  # out of range: all off
    b = first.as_array()[0]
    assert b.shape == (4, 2, 2) and b[:, 1, 0].tolist() == [0, 1, 0, 0]


def test_one_hot_values_dtype_layout_and_float_input():
    (a, b, c) = _run(
        lambda: (
            fn.one_hot(
                _const(np.array(1, np.int64)),
                num_classes=3,
                dtype=types.INT32,
                on_value=7,
                off_value=-1,
            ),
            fn.one_hot(_const(np.array([0, 2], np.int32), "X"), num_classes=3, axis_name="C"),
            fn.one_hot(_const(np.array([2.7], np.float32)), num_classes=3, axis=0),
        )
    )
    assert a.dtype == types.INT32 and a.as_array()[0].tolist() == [-1, 7, -1]
    assert b.layout() == "XC" and b.shape()[0] == (2, 3)
    assert c.shape()[0] == (3, 1) and c.as_array()[0][:, 0].tolist() == [0, 0, 1]


def test_one_hot_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        a = fn.one_hot(_const(np.array([[1, 2]], np.int32)), num_classes=3, axis=1)
        b = fn.one_hot(_const(np.array(1, np.int32)), num_classes=3, dtype=types.UINT8)
    assert (a.dtype, a.ndim, a.layout) == (types.FLOAT, 3, "")
    assert (b.dtype, b.ndim) == (types.UINT8, 1)


def test_one_hot_errors():
    with pytest.raises(Exception, match="`axis`"):
        _run(lambda: fn.one_hot(_const(np.array([1, 2])), num_classes=3, axis=3))
    with pytest.raises(Exception, match="`axis_name`"):
        _run(lambda: fn.one_hot(_const(np.array([1])), num_classes=3, axis_name="AB"))
    with pytest.raises(Exception, match="`dtype`"):
        _run(lambda: fn.one_hot(_const(np.array([1])), num_classes=3, dtype=types.FLOAT16))


def test_copy_is_equal_but_new():
    (a, r) = _run(
        lambda: (fn.copy(_const(IMG, "HWC")), fn.copy(_ragged([np.arange(3), np.arange(2)])))
    )
    assert a.layout() == "HWC" and a.dtype == types.UINT8
    arr = a.as_array()
    np.testing.assert_array_equal(arr[0], IMG)
    arr[0, 0, 0, 0] = arr[0, 0, 0, 0] + 1  # writable: not the constant's read-only memory
    assert r.at(1).tolist() == [0, 1]


# -- normalize -----------------------------------------------------------------------------------


def test_normalize_all_axes_per_sample():
    (out,) = _run(lambda: fn.normalize(_const(np.array([1.0, 2.0, 3.0], np.float32))))
    assert out.dtype == types.FLOAT
    np.testing.assert_allclose(out.as_array()[0], [-1.2247449, 0.0, 1.2247449], rtol=1e-6)


def test_normalize_axes_and_axis_names():
    (a, b) = _run(
        lambda: (
            fn.normalize(_const(IMG, "HWC"), axes=[0, 1]),
            fn.normalize(_const(IMG, "HWC"), axis_names="HW"),
        )
    )
    x = IMG.astype(np.float64)
    ref = (x - x.mean(axis=(0, 1))) / x.std(axis=(0, 1))
    np.testing.assert_allclose(a.as_array()[0], ref, atol=1e-5)
    np.testing.assert_array_equal(a.as_array(), b.as_array())


def test_normalize_given_mean_stddev_scale_shift_and_uint8_output():
    (a, b) = _run(
        lambda: (
            fn.normalize(_const(IMG), mean=100, stddev=50, scale=2, shift=1),
            fn.normalize(_const(IMG), mean=128, stddev=64, scale=64, shift=128, dtype=types.UINT8),
        )
    )
    np.testing.assert_allclose(a.as_array()[0], (IMG - 100.0) / 50 * 2 + 1, rtol=1e-6)
    np.testing.assert_array_equal(b.as_array()[0], IMG)


def test_normalize_ddof_epsilon_and_zero_variance():
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    (a, b, c) = _run(
        lambda: (
            fn.normalize(_const(x), ddof=1),
            fn.normalize(_const(x), epsilon=1.0),
            fn.normalize(_const(np.full(4, 5.0, np.float32)), shift=3),
        )
    )
    np.testing.assert_allclose(a.as_array()[0], (x - 2.5) / x.std(ddof=1), rtol=1e-6)
    np.testing.assert_allclose(b.as_array()[0], (x - 2.5) / np.sqrt(x.var() + 1), rtol=1e-6)
    assert c.as_array()[0].tolist() == [3.0] * 4  # zero stddev maps to shift


def test_normalize_batch_statistics():
    a = np.array([[1.0, 2.0]], np.float32)
    b = np.array([[3.0, 4.0], [5.0, 6.0]], np.float32)
    (out,) = _run(lambda: fn.normalize(_ragged([a, b]), batch=True, axes=[0]))
    allv = np.concatenate([a, b])
    m, s = allv.mean(0), allv.std(0)
    np.testing.assert_allclose(out.at(0), (a - m) / s, rtol=1e-6)
    np.testing.assert_allclose(out.at(1), (b - m) / s, rtol=1e-6)


def test_normalize_tensor_mean_infers_axes():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    mean = np.arange(4, dtype=np.float32).reshape(1, 4)
    (out,) = _run(lambda: fn.normalize(_const(x), mean=mean, stddev=2.0))
    np.testing.assert_allclose(out.as_array()[0], (x - mean) / 2, rtol=1e-6)


def test_normalize_errors():
    with pytest.raises(Exception, match="`axis_names`"):
        _run(lambda: fn.normalize(_const(IMG, "HWC"), axes=[0], axis_names="H"))
    with pytest.raises(Exception, match="`mean`"):
        _run(lambda: fn.normalize(_const(IMG), batch=True, mean=np.zeros((1, 1, 3), np.float32)))
    with pytest.raises(Exception, match="`dtype`"):
        _run(lambda: fn.normalize(_const(IMG), dtype=types.BOOL))


# -- flip ----------------------------------------------------------------------------------------


def test_flip_defaults_to_horizontal():
    (a, b) = _run(lambda: (fn.flip(_const(IMG, "HWC")), fn.flip(_const(IMG))))
    np.testing.assert_array_equal(a.as_array()[0], IMG[:, ::-1])
    assert a.layout() == "HWC" and a.dtype == types.UINT8
    assert b.layout() == "HWC"  # no layout: taken as HWC
    np.testing.assert_array_equal(b.as_array()[0], IMG[:, ::-1])


def test_flip_vertical_depthwise_and_channel_first_layouts():
    vol = np.arange(2 * 3 * 4 * 2, dtype=np.int16).reshape(2, 3, 4, 2)
    chw = np.ascontiguousarray(IMG.transpose(2, 0, 1))
    (v, d, c, seq) = _run(
        lambda: (
            fn.flip(_const(IMG, "HWC"), horizontal=0, vertical=1),
            fn.flip(_const(vol, "DHWC"), horizontal=0, depthwise=1),
            fn.flip(_const(chw, "CHW"), vertical=1),
            fn.flip(_const(vol, "FHWC"), depthwise=1),  # no D axis: depthwise does nothing
        )
    )
    np.testing.assert_array_equal(v.as_array()[0], IMG[::-1])
    np.testing.assert_array_equal(d.as_array()[0], vol[::-1])
    np.testing.assert_array_equal(c.as_array()[0], chw[:, ::-1, ::-1])
    np.testing.assert_array_equal(seq.as_array()[0], vol[:, :, ::-1])


def test_flip_per_sample_coin_flip_and_ragged():
    def build():
        h = fn.random.coin_flip()
        v = fn.random.coin_flip()
        return fn.flip(_const(IMG, "HWC"), horizontal=h, vertical=v), h, v

    out, h, v = _run(build, batch_size=12)
    for i in range(12):
        ref = IMG[:, ::-1] if h.at(i) else IMG
        ref = ref[::-1] if v.at(i) else ref
        np.testing.assert_array_equal(out.at(i), ref)
    (r,) = _run(lambda: fn.flip(_ragged([IMG[:2], IMG[:, :3]], "HWC")))
    np.testing.assert_array_equal(r.at(1), IMG[:, :3][:, ::-1])


def test_flip_without_opencv_matches(monkeypatch):
    vol = np.arange(2 * 3 * 4 * 2, dtype=np.float64).reshape(2, 3, 4, 2)

    def build():
        h = fn.random.coin_flip()
        return (
            fn.flip(_const(IMG, "HWC"), horizontal=h, vertical=1),
            fn.flip(_const(vol, "FHWC")),
            fn.flip(_ragged([IMG[:2], IMG[:, :3]], "HWC"), vertical=1),
        )

    with_cv2 = _run(build, batch_size=6)
    import importlib

    common = importlib.import_module("dali._ops.image._common")
    monkeypatch.setattr(common, "_CV2", [None])  # as if OpenCV were missing
    without = _run(build, batch_size=6)
    for a, b in zip(with_cv2, without):
        assert len(a) == len(b)
        for i in range(len(a)):
            np.testing.assert_array_equal(a.at(i), b.at(i))


def test_flip_rejects_unknown_layout():
    with pytest.raises(RuntimeError, match=r"dali.fn.flip.*'XYZ'"):
        _run(lambda: fn.flip(_const(IMG, "XYZ")))


# -- CPU / GPU parity -------------------------------------------------------------------------------

GPU_CASES = {
    "cast_u8": lambda x: fn.cast(x * 1.7 - 20.5, dtype=types.UINT8),
    "cast_f16": lambda x: fn.cast(x, dtype=types.FLOAT16),
    "transpose": lambda x: fn.transpose(x, perm=[2, 0, 1]),
    "reshape": lambda x: fn.reshape(x, shape=[-1, 3]),
    "pad": lambda x: fn.pad(x, shape=[8, 10, 4], fill_value=3),
    "slice": lambda x: fn.slice(x, start=[1, 2], shape=[6, 2], out_of_bounds_policy="pad"),
    "flip": lambda x: fn.flip(x, horizontal=fn.random.coin_flip(), vertical=1),
    "one_hot": lambda x: fn.one_hot(x, num_classes=300, axis=0),
    "copy": lambda x: fn.copy(x),
    "normalize": lambda x: fn.normalize(x, axes=[0, 1]),
    "normalize_batch": lambda x: fn.normalize(x, batch=True, axis_names="HW", ddof=1),
    "normalize_given": lambda x: fn.normalize(x, mean=100, stddev=20, dtype=types.INT16),
    "cast_like": lambda x: fn.cast_like(x * 0.3, x),
    "reshape_rel": lambda x: fn.reshape(x, rel_shape=[0.5, 2, 1]),
    "pad_align": lambda x: fn.pad(x, axes=[0], align=[4], fill_value=-1),
    "flip_vertical": lambda x: fn.flip(x, horizontal=0, vertical=fn.random.coin_flip()),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
@cpu_gpu(atol=1e-6, rtol=1e-6)  # integer outputs: exact
def test_gpu_matches_cpu(case, device):
    op = GPU_CASES[case]
    build = lambda: op(to_device(_const(IMG, "HWC"), device))
    return _run(build, batch_size=4, device_id=device_id(device))


_RNG = np.random.default_rng(11)
#: Ragged 2-D samples (a mel spectrogram's frequency x time), one with a constant row.
SPECS = [_RNG.normal(3, 2, (5, t)).astype(np.float32) for t in (7, 1, 12, 0)]
SPECS[2][1] = 4.0
#: Ragged HWC images.
IMAGES = [IMG, IMG[1:, 2:], IMG[:3], IMG[2:5, :4]]

NORMALIZE_RAGGED_CASES = {
    "time_axis": (SPECS, "", lambda x: fn.normalize(x, axes=[1])),
    "all_axes": (SPECS, "", lambda x: fn.normalize(x)),
    "frequency_axis_ddof": (SPECS, "", lambda x: fn.normalize(x, axes=[0], ddof=1, scale=3)),
    "epsilon_shift": (SPECS, "", lambda x: fn.normalize(x, axes=[1], epsilon=0.5, shift=-2)),
    "per_channel_u8": (IMAGES, "HWC", lambda x: fn.normalize(x, axis_names="HW")),
    "mean_given_to_int16": (
        IMAGES,
        "HWC",
        lambda x: fn.normalize(x, mean=100, scale=50, dtype=types.INT16, axes=[0, 1]),
    ),
    "stddev_given": (IMAGES, "HWC", lambda x: fn.normalize(x, stddev=40, axes=[1])),
    "tensor_mean_stddev": (
        IMAGES,
        "HWC",
        lambda x: fn.normalize(
            x,
            mean=fn.random.uniform(range=[90, 140], shape=[1, 1, 3]),
            stddev=fn.random.uniform(range=[20, 60], shape=[1, 1, 3]),
        ),
    ),
    "tensor_mean_one_value": (
        SPECS,
        "",
        lambda x: fn.normalize(x, axes=[1], mean=fn.random.uniform(range=[-1, 1], shape=[1, 1])),
    ),
}


@pytest.mark.parametrize("case", sorted(NORMALIZE_RAGGED_CASES))
@cpu_gpu(atol=1e-5, rtol=1e-5)  # float64 sums in another order: the mean may differ by an ulp
def test_normalize_ragged_gpu_matches_cpu(case, device):
    samples, layout, op = NORMALIZE_RAGGED_CASES[case]
    return _run(
        lambda: op(to_device(_ragged(samples, layout), device)),
        batch_size=len(samples),
        device_id=device_id(device),
    )


def _windows():
    """Per-sample relative anchors and shapes that reach outside the samples on any side."""
    return (
        fn.random.uniform(range=[-0.4, 0.9], shape=[2]),
        fn.random.uniform(range=[0.1, 1.2], shape=[2]),
    )


SLICE_GPU_CASES = {
    "trim": lambda x: fn.slice(x, *_windows(), out_of_bounds_policy="trim_to_shape"),
    "pad_per_channel": lambda x: fn.slice(
        x, *_windows(), out_of_bounds_policy="pad", fill_values=[7, 200, 31]
    ),
    "pad_to_float16": lambda x: fn.slice(
        x, *_windows(), out_of_bounds_policy="pad", fill_values=-1.5, dtype=types.FLOAT16
    ),
    "to_int16": lambda x: fn.slice(
        x * 2.7 - 100, *_windows(), out_of_bounds_policy="trim_to_shape", dtype=types.INT16
    ),
    "one_axis": lambda x: fn.slice(
        x,
        fn.cast(fn.random.uniform(range=[-2, 4]), dtype=types.INT32),
        types.Constant(np.int32(4)),
        axes=[0],
        out_of_bounds_policy="pad",
    ),
    "inside_uniform": lambda x: fn.slice(x, start=[1, 1], shape=[3, 2]),
}


@pytest.mark.parametrize("case", sorted(SLICE_GPU_CASES))
@pytest.mark.parametrize("ragged", [False, True])
@cpu_gpu()  # exact: one kernel launch on the GPU, numpy copies on the CPU
def test_slice_gpu_matches_cpu(case, ragged, device):
    op = SLICE_GPU_CASES[case]
    samples = [IMG, IMG[1:, 2:], IMG[:3], IMG[2:5, :4]] if ragged else [IMG] * 4

    def build():
        x = fn.external_source(lambda: [np.array(a) for a in samples], layout="HWC")
        return op(to_device(x, device))

    return _run(build, batch_size=4, device_id=device_id(device))


def test_cast_float_to_bool_rounds_first_like_dali():
    x = np.array([1e-8, 0.3, 0.49, -0.3, 0.5, -0.51, np.nan, np.inf, 0.0], np.float32)
    (b,) = _run(lambda: [fn.cast(_const(x), dtype=types.BOOL)])
    assert b.as_array()[0].tolist() == [False] * 4 + [True] * 4 + [False]


def test_crop_and_slice_truncate_float_to_uint8_like_dali():
    x = np.array([[[0.99], [1.5], [2.5], [254.5], [300.7], [-3.2]]], np.float32)  # 1x6x1 HWC
    (c, s) = _run(
        lambda: [
            fn.crop(_const(x, "HWC"), crop=(1, 6), dtype=types.UINT8),
            fn.slice(_const(x, "HWC"), 0.0, 1.0, axes=[1], dtype=types.UINT8),
        ]
    )
    assert c.as_array()[0].ravel().tolist() == [0, 1, 2, 254, 255, 0]
    assert s.as_array()[0].ravel().tolist() == [0, 1, 2, 254, 255, 0]


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_trim_to_shape_clamps_both_ends_of_a_window_starting_before_the_input(device):
    """DALI's ApplySliceBoundsPolicy clamps the start and the end: start -2 and shape 5 along
    an axis keep [0, 3), not [0, 5) (seen with NVIDIA DALI 2.4: output shape (1, 3, 1))."""
    data = np.arange(10 * 8, dtype=np.uint8).reshape(10, 8, 1)

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=0 if device == "gpu" else None)
    def pipe():
        x = types.Constant(data, layout="HWC", device=device)
        return fn.slice(
            x, start=[-2, -3], shape=[5, 4], axis_names="WH", out_of_bounds_policy="trim_to_shape"
        )

    p = pipe()
    (out,) = p.run()
    p.close()
    got = out.as_cpu() if device == "gpu" else out
    np.testing.assert_array_equal(np.asarray(got.as_tensor())[0], data[0:1, 0:3])
