"""Indexing DataNodes, ``fn.shapes`` / ``.shape()`` and ``fn.get_property``."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._exec.workspace import BatchMeta, Workspace
from dali._tensors import TensorListCPU
from graph_utils import batch, outputs, run
from parity import cpu_gpu

M = np.arange(12, dtype=np.int32).reshape(3, 4)


def matrix(layout=""):
    return types.Constant(M, dtype=types.INT32, layout=layout or None)


def first(build, **kw):
    return [s[0].tolist() for _, _, s in run(build, **kw)]


def failure(build, *, batch_size=1):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(build())
    pipe.build()
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    return str(info.value)


# -- indexing ---------------------------------------------------------------------------------


def test_observed_indexing():
    assert first(lambda: (matrix()[0], matrix()[:, 1])) == [[0, 1, 2, 3], [1, 5, 9]]


def test_negative_indices_and_slices():
    got = first(
        lambda: (
            matrix()[-1],
            matrix()[1:, -2:],
            matrix()[:-1, 1:3],
            matrix()[-5:10, 0],  # clamped like Python slices
            matrix()[2, 3],
        )
    )
    assert got == [[8, 9, 10, 11], [[6, 7], [10, 11]], [[1, 2], [5, 6]], [0, 4, 8], 11]


def test_slices_with_steps():
    got = first(
        lambda: (
            matrix()[::2, ::3],
            matrix()[::-1, 0],
            matrix()[0, -1:0:-2],
            matrix()[0, 3:1],  # empty
        )
    )
    assert got == [[[0, 3], [8, 11]], [8, 4, 0], [3, 1], []]


def test_zero_step_is_an_error():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(matrix()[::0])
    with pytest.raises(RuntimeError, match="slice step cannot be zero"):
        pipe.build()


def test_output_type_ndim_and_shape():
    ((dtype, _, (row,)), (_, _, (scalar,))) = run(lambda: (matrix()[1], matrix()[1, 2]))
    assert dtype == types.INT32
    assert row.shape == (4,) and scalar.shape == ()
    with dali.Pipeline(batch_size=1, device_id=None):
        x = matrix("HW")
        assert (x[0].ndim, x[0].dtype, x[0].layout) == (1, types.INT32, "W")
        assert (x[:, 0].layout, x[1:].layout, x[1, 2].ndim) == ("H", "HW", 0)


def test_newaxis_inserts_a_dimension():
    got = run(
        lambda: (
            matrix()[dali.newaxis],
            matrix()[:, dali.newaxis, 1],
            matrix()[0, dali.newaxis],
            matrix("HW")[dali.newaxis("C"), 0],
            matrix("HW")[dali.newaxis],
        )
    )
    shapes = [s[0].shape for _, _, s in got]
    assert shapes == [(1, 3, 4), (3, 1), (1, 4), (1, 4), (1, 3, 4)]
    np.testing.assert_array_equal(got[1][2][0], M[:, None, 1])
    assert [layout for _, layout, _ in got] == ["", "", "", "CW", ""]  # unnamed: layout cleared


def test_named_newaxis_rules():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = matrix("HW")
        assert x[dali.newaxis("N"), :, dali.newaxis("C")].layout == "NHCW"
        with pytest.raises(ValueError, match="for all axes or none"):
            x[dali.newaxis("N"), dali.newaxis]
        with pytest.raises(ValueError, match="single-character"):
            x[dali.newaxis("NC")]
        with pytest.raises(TypeError, match="single-character"):
            x[dali.newaxis(3)]


def test_none_is_a_full_range_slice_as_in_dali():
    ((_, _, (v,)),) = run(lambda: matrix()[None, 1])
    np.testing.assert_array_equal(v, M[:, 1])


def test_ellipsis_and_invalid_index_types_are_rejected():
    with dali.Pipeline(batch_size=1, device_id=None):
        x = matrix()
        with pytest.raises(NotImplementedError, match="Ellipsis"):
            x[..., 0]
        with pytest.raises(TypeError, match="Invalid type for an index"):
            x[1.5]
        with pytest.raises(TypeError, match="Invalid type for an index"):
            x["a"]
        with pytest.raises(TypeError, match="Invalid type for an index"):
            x[0:2.5]


def test_numpy_integer_indices():
    assert first(lambda: matrix()[np.int64(1), np.array(2)]) == [6]


def test_out_of_range_index_names_operator_axis_and_sample():
    message = failure(lambda: matrix()[3])
    assert "dali.fn._tensor_subscript" in message
    assert "Index 3 is out of range for axis 0 of length 3" in message
    assert "sample #0 of shape (3, 4)" in message
    assert "Index -5 is out of range for axis 1 of length 4" in failure(lambda: matrix()[0, -5])


def test_too_many_indices_and_scalar_indexing():
    assert "Too many indices (3) for a 2D tensor." in failure(lambda: matrix()[0, 0, 0])
    message = failure(lambda: batch(np.int32(5))[0])
    assert "Cannot apply an index to a scalar." in message


def test_ragged_batch_is_indexed_per_sample():
    samples = [np.arange(6).reshape(2, 3), np.arange(4).reshape(4, 1)]
    ((_, _, out),) = run(lambda: batch(*samples)[-1, ::-1], batch_size=2)
    assert [s.tolist() for s in out] == [[5, 4, 3], [3]]


def test_ragged_out_of_range_names_the_sample():
    samples = [np.zeros((3, 2)), np.zeros((1, 2))]
    message = failure(lambda: batch(*samples)[2], batch_size=2)
    assert "sample 1" in message
    assert "Index 2 is out of range for axis 0 of length 1" in message


def test_per_sample_datanode_indices():
    samples = [np.arange(5, dtype=np.int16), np.arange(10, 15, dtype=np.int16)]
    at = lambda: batch(np.int32(4), np.int64(-2))
    lo = lambda: batch(np.uint8(1), np.uint8(3))
    got = run(lambda: (batch(*samples)[at()], batch(*samples)[lo() :]), batch_size=2)
    (dtype, _, a), (_, _, b) = got
    assert dtype == types.INT16
    assert [s.tolist() for s in a] == [4, 13]
    assert [s.tolist() for s in b] == [[1, 2, 3, 4], [13, 14]]


def test_per_sample_index_must_be_a_0d_integer():
    data = lambda: batch(np.arange(3), np.arange(3))
    message = failure(lambda: data()[batch(np.array([1]), np.array([1]))], batch_size=2)
    assert "Array indices must be scalar (0D). Got 1D tensor." in message
    message = failure(lambda: data()[batch(np.float32(1), np.float32(0))], batch_size=2)
    assert "Array index must be of integral type" in message


def test_uniform_batch_slices_match_numpy_and_are_contiguous():
    with dali.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=1) as pipe:
        x = fn.random.uniform(shape=(3, 4))
        pipe.set_outputs(x, x[:, 1:3])
    pipe.build()
    x, y = pipe.run()
    np.testing.assert_array_equal(y.as_array(), x.as_array()[:, :, 1:3])
    assert y.as_array().flags.c_contiguous


# -- shapes -----------------------------------------------------------------------------------


def test_shape_method_gives_int64_per_sample_shapes():
    samples = [np.zeros((2, 3)), np.zeros((4, 1))]
    ((dtype, layout, out),) = run(lambda: batch(*samples).shape(), batch_size=2)
    assert (dtype, layout) == (types.INT64, "")
    assert [s.tolist() for s in out] == [[2, 3], [4, 1]]


def test_shapes_dtype_argument_and_static_meta():
    with dali.Pipeline(batch_size=1, device_id=None):
        s = matrix().shape(dtype=types.INT32)
        assert (s.dtype, s.ndim, s.device) == (types.INT32, 1, "cpu")
    got = run(
        lambda: (fn.shapes(matrix(), dtype=types.INT32), fn.shapes(matrix(), dtype=types.FLOAT))
    )
    assert [(d, s[0].tolist()) for d, _, s in got] == [
        (types.INT32, [3, 4]),
        (types.FLOAT, [3.0, 4.0]),
    ]


def test_shapes_of_scalars_are_empty():
    ((_, _, out),) = run(lambda: fn.random.uniform().shape(), batch_size=2)
    assert [s.shape for s in out] == [(0,), (0,)]


def test_shapes_rejects_bool_dtype():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.shapes(matrix(), dtype=types.BOOL))
    with pytest.raises(RuntimeError, match=r"dali.fn.shapes.*dtype"):
        pipe.build()


def test_shape_of_a_gpu_node_can_stay_on_the_cpu():
    with dali.Pipeline(batch_size=1, device_id=None):
        s = fn.random.uniform(shape=(2,)).gpu().shape()
        assert s.device == "cpu"
        assert fn.shapes(fn.random.uniform(shape=(2,)).gpu()).device == "gpu"


# -- properties -------------------------------------------------------------------------------


def test_layout_property():
    ((dtype, _, out),) = run(lambda: matrix("HW").property("layout"), batch_size=2)
    assert dtype == types.UINT8
    assert [bytes(s).decode() for s in out] == ["HW", "HW"]


def test_source_info_of_generated_data_is_empty():
    ((dtype, _, out),) = run(lambda: matrix().source_info(), batch_size=2)
    assert dtype == types.UINT8
    assert [s.shape for s in out] == [(0,), (0,)]


def test_source_info_comes_from_the_batch():
    from dali._ops.generic.metadata import GetProperty

    with dali.Pipeline(batch_size=2, device_id=None):
        node = matrix().source_info()
    op = GetProperty(node.source, None)
    op.setup()
    meta = BatchMeta(np.arange(2), np.zeros(2, np.int64), ("imgs/0/a.jpg", "imgs/1/b.jpg"))
    tl = TensorListCPU.wrap(np.zeros((2, 3)))
    out = op.run(Workspace(op, [tl], {}, meta, 0, 0, None, None))
    assert [bytes(s).decode() for s in out.samples()] == ["imgs/0/a.jpg", "imgs/1/b.jpg"]
    tl._source_info = ["x.png", "ü.png"]  # a batch's own source info wins; UTF-8 bytes
    out = op.run(Workspace(op, [tl], {}, meta, 0, 0, None, None))
    assert [bytes(s).decode() for s in out.samples()] == ["x.png", "ü.png"]


def test_unknown_property_key():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(matrix().property("bogus"))
    with pytest.raises(RuntimeError, match=r'dali.fn.get_property.*Unknown property key "bogus"'):
        pipe.build()


# -- GPU parity -------------------------------------------------------------------------------


def _parity_graph():
    ragged = batch(
        np.arange(6, dtype=np.int16).reshape(2, 3), np.arange(4, dtype=np.int16).reshape(1, 4)
    )
    return (
        matrix()[0],
        matrix()[:, 1],
        matrix()[::-1, 1::2],
        matrix("HW")[dali.newaxis("C"), -1],
        ragged[0, ::-1],
        ragged[batch(np.int32(1), np.int32(0))],
        ragged.shape(),
        fn.shapes(ragged, dtype=types.INT32),
        matrix("HW").property("layout"),
    )


@cpu_gpu()
def test_gpu_matches_cpu(device):
    return outputs(_parity_graph, batch_size=2, device=device)


@pytest.mark.gpu
def test_shape_of_a_gpu_node_on_the_cpu_runs():
    pytest.importorskip("cupy")
    build = lambda: fn.random.uniform(shape=(2, 5)).gpu().shape()
    ((dtype, _, out),) = run(build, batch_size=2, device_id=0)
    assert dtype == types.INT64 and [s.tolist() for s in out] == [[2, 5], [2, 5]]
