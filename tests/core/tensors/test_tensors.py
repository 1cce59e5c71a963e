"""TensorListCPU/GPU and TensorCPU/GPU against DALI 2.4's observed behaviour."""

from __future__ import annotations

import ctypes
import textwrap

import numpy as np
import pytest
from dali import types
from dali._tensors import BatchMismatchError
from dali.tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU


def dense_batch() -> TensorListCPU:
    return TensorListCPU(np.arange(12, dtype=np.int32).reshape(2, 2, 3), "HW")


def ragged_batch() -> TensorListCPU:
    return TensorListCPU(
        [np.zeros((2, 3), np.float32), np.arange(3, dtype=np.float32).reshape(1, 3)], "HW"
    )


class DLPackOnly:
    """A CPU tensor that speaks only DLPack (like a torch or jax CPU tensor)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class FakeGPUArray:
    """Something in GPU memory (only its interface matters: it is never read)."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": (2,), "typestr": "<f4", "data": (0, False), "version": 3}


# -- TensorListCPU: dense ----------------------------------------------------------------------


def test_dense_batch_basics():
    tl = dense_batch()
    assert len(tl) == 2
    assert tl.shape() == [(2, 3), (2, 3)]
    assert tl.dtype is types.INT32
    assert tl.layout() == "HW"
    assert tl.ndim == 2 and tl.ndim() == 2
    assert tl.is_dense_tensor()
    assert tl.as_cpu() is tl


def test_dense_batch_shares_memory_with_the_source():
    src = np.arange(12, dtype=np.int32).reshape(2, 2, 3)
    tl = TensorListCPU(src)
    assert tl.layout() == ""
    assert np.shares_memory(tl.as_array(), src)
    assert np.shares_memory(tl.at(1), src)
    assert np.shares_memory(np.asarray(tl[0]), src)


def test_at_returns_numpy():
    tl = dense_batch()
    sample = tl.at(1)
    assert isinstance(sample, np.ndarray)
    assert sample.tolist() == [[6, 7, 8], [9, 10, 11]]
    assert tl.at(-1).tolist() == sample.tolist()
    with pytest.raises(IndexError):
        tl.at(2)


def test_indexing_and_iteration():
    tl = dense_batch()
    t = tl[0]
    assert isinstance(t, TensorCPU)
    assert t.shape() == [2, 3]
    assert t.layout() == "HW"
    assert tl[-1].shape() == [2, 3] and np.array(tl[-1])[0, 0] == 6
    assert tl[np.int64(1)].shape() == [2, 3]
    for bad in (2, -3, 100):
        with pytest.raises(IndexError, match=r"^TensorListCPU index out of range$"):
            tl[bad]
    with pytest.raises(TypeError):
        tl["0"]
    samples = list(tl)
    assert len(samples) == 2 and all(isinstance(s, TensorCPU) for s in samples)
    assert [np.array(s).sum() for s in samples] == [15, 51]


def test_samples_share_memory_with_the_batch():
    tl = dense_batch()
    np.asarray(tl[1])[0, 0] = 100
    assert tl.at(1)[0, 0] == 100
    assert tl.as_array()[1, 0, 0] == 100


def test_as_array_as_tensor_and_reshape():
    tl = dense_batch()
    arr = tl.as_array()
    assert arr.shape == (2, 2, 3) and arr.dtype == np.int32
    t = tl.as_tensor()
    assert isinstance(t, TensorCPU)
    assert t.shape() == [2, 2, 3]
    assert t.layout() == "NHW"
    assert np.shares_memory(np.asarray(t), arr)
    r = tl.as_reshaped_tensor([4, 3])
    assert r.shape() == [4, 3] and r.layout() == ""
    assert tl.as_reshaped_tensor((3, 2, 2)).layout() == "NHW"
    with pytest.raises(RuntimeError, match="requested: 10 expected: 12"):
        tl.as_reshaped_tensor([10])


def test_batch_of_scalars():
    tl = TensorListCPU(np.array([1, 2, 3], np.uint8))
    assert tl.shape() == [(), (), ()]
    assert tl.ndim == 0
    assert isinstance(tl.at(0), np.ndarray) and tl.at(0).shape == ()
    assert tl[2].shape() == []
    assert tl.as_tensor().layout() == "N"  # DALI adds N when ndim(layout) + 1 == ndim


def test_array_protocols():
    tl = dense_batch()
    assert np.array(tl).tolist() == tl.as_array().tolist()
    assert np.from_dlpack(tl).tolist() == tl.as_array().tolist()
    assert tl.__dlpack_device__() == (1, 0)
    ragged = ragged_batch()
    assert not hasattr(ragged, "__array_interface__")
    with pytest.raises(RuntimeError, match="do not all have the same shape"):
        np.asarray(ragged)


def test_zero_dim_array_is_rejected():
    with pytest.raises(RuntimeError, match="Cannot create TensorList from 0-dim array"):
        TensorListCPU(np.array(5))


def test_layout_must_match_ndim():
    with pytest.raises(ValueError) as e:
        TensorListCPU(np.zeros((2, 3, 4)), "HWC")
    assert str(e.value) == (
        "A non-empty layout must have the same number of dimensions as the number of dimensions "
        "of the TensorList.\nGot: 3 (HWC)\nExpected: 2."
    )
    tl = dense_batch()
    with pytest.raises(ValueError):
        tl.set_layout("X")
    tl.set_layout("AB")
    assert tl.layout() == "AB" and tl[0].layout() == "AB"
    tl.set_layout(None)
    assert tl.layout() == ""
    tl.set_layout(types.TensorLayout("HW"))
    assert tl.layout() == "HW"


def test_other_inputs():
    assert TensorListCPU(DLPackOnly(np.ones((2, 2), np.float32))).shape() == [(2,), (2,)]
    assert TensorListCPU([[1, 2], [3, 4]]).dtype is types.INT64  # nested lists: one per sample
    src = np.ones((4, 3))[:, ::2]  # strided: copied to contiguous memory
    assert TensorListCPU(src).shape() == [(2,)] * 4
    with pytest.raises(TypeError):
        TensorListCPU(FakeGPUArray())
    with pytest.raises(TypeError):
        TensorListCPU(np.zeros((2, 2), np.complex64))
    shared = TensorListCPU(dense_batch(), layout="XY")
    assert shared.layout() == "XY" and shared.shape() == [(2, 3), (2, 3)]
    assert TensorListCPU(dense_batch()).layout() == "HW"


# -- TensorListCPU: ragged ---------------------------------------------------------------------


def test_ragged_batch():
    tl = ragged_batch()
    assert len(tl) == 2
    assert tl.shape() == [(2, 3), (1, 3)]
    assert not tl.is_dense_tensor()
    assert tl.dtype is types.FLOAT
    assert tl.at(1).tolist() == [[0.0, 1.0, 2.0]]
    assert tl[0].shape() == [2, 3]


def test_ragged_as_array_and_as_tensor_fail():
    tl = ragged_batch()
    with pytest.raises(RuntimeError) as e:
        tl.as_array()
    assert str(e.value).startswith(
        'Assert on "tl.IsDenseTensor()" failed: Cannot produce a numpy array: the tensors in the '
        "list do not all have the same shape."
    )
    with pytest.raises(RuntimeError, match="must have uniform shape"):
        tl.as_tensor()
    flat = tl.as_reshaped_tensor([9])  # the samples are contiguous: this works, as in DALI
    assert np.array(flat).tolist() == [0.0] * 6 + [0.0, 1.0, 2.0]


def test_list_input_is_copied():
    a = np.zeros((2, 2), np.uint8)
    tl = TensorListCPU([a, a])
    a[0, 0] = 9
    assert tl.at(0)[0, 0] == 0
    assert tl.is_dense_tensor()


def test_list_samples_must_agree():
    with pytest.raises(TypeError) as e:
        TensorListCPU([np.zeros(2, np.float32), np.zeros(2, np.int32)])
    assert isinstance(e.value, ValueError) and isinstance(e.value, BatchMismatchError)
    assert str(e.value) == (
        "Tensors cannot have different data types. Tensor at position 1 has type 'int32' "
        "expected to have type 'float'."
    )
    with pytest.raises(ValueError, match="different numbers of dimensions"):
        TensorListCPU([np.zeros((2, 2)), np.zeros(2)])
    with pytest.raises(ValueError, match="non-empty layout"):
        TensorListCPU([np.zeros((2, 2))], "HWC")
    with pytest.raises(TypeError, match="Object at position 1 cannot be converted to TensorCPU"):
        TensorListCPU([np.zeros(2), object()])


def test_list_of_tensors_keeps_their_layout_and_source_info():
    t = TensorCPU.wrap(np.zeros((2, 2)), "HW", "imgs/0/a.jpg")
    tl = TensorListCPU([t, TensorCPU(np.ones((3, 2)), "HW")])
    assert tl.layout() == "HW"
    assert tl[0].source_info() == "imgs/0/a.jpg"
    assert tl[1].source_info() == ""
    assert TensorListCPU([t], "XY").layout() == "XY"


def test_empty_list():
    tl = TensorListCPU([], "HWC")
    assert len(tl) == 0 and tl.shape() == [] and tl.ndim == 3 and tl.layout() == "HWC"
    assert tl.is_dense_tensor()
    assert tl.as_tensor().shape() == [0, 0, 0, 0]
    assert list(tl) == []


# -- TensorListCPU: other methods --------------------------------------------------------------


def test_copy_to_external_and_data_ptr():
    for tl in (dense_batch(), ragged_batch()):
        expected = np.concatenate([tl.at(i).ravel() for i in range(len(tl))])
        out = np.zeros_like(expected)
        tl.copy_to_external(ctypes.c_void_p(out.ctypes.data))
        assert out.tolist() == expected.tolist()
        out2 = np.zeros_like(expected)
        tl.copy_to_external(out2.ctypes.data)
        assert out2.tolist() == expected.tolist()
        ptr = tl.data_ptr()
        assert isinstance(ptr, int) and ptr == tl.samples()[0].ctypes.data


def test_reset():
    tl = dense_batch()
    tl.reset()
    assert len(tl) == 0 and tl.layout() == "" and tl.shape() == []


def test_broadcast():
    t = TensorCPU(np.arange(3, dtype=np.int16), "X")
    tl = TensorListCPU.broadcast(t, 4)
    assert len(tl) == 4 and tl.shape() == [(3,)] * 4 and tl.layout() == "X"
    assert tl.dtype is types.INT16
    assert tl.as_array().tolist() == [[0, 1, 2]] * 4


def test_from_dlpack_list():
    tl = TensorListCPU.from_dlpack_list(
        [DLPackOnly(np.ones((2, 2), np.float32)), DLPackOnly(np.zeros((3, 2), np.float32))], "HW"
    )
    assert tl.shape() == [(2, 2), (3, 2)] and tl.layout() == "HW"


def test_str_dense():
    expected = """\
    TensorListCPU(
        [[[0 1 2]
         [3 4 5]],

        [[ 6  7  8]
         [ 9 10 11]]],
        dtype=DALIDataType.INT32,
        layout="HW",
        device="cpu",
        num_samples=2,
        shape=[(2, 3), (2, 3)])"""
    assert str(dense_batch()) == textwrap.dedent(expected)


def test_repr_has_no_data():
    expected = """\
    TensorListCPU(
        dtype=DALIDataType.FLOAT,
        layout="HW",
        device="cpu",
        num_samples=2,
        shape=[(2, 3), (1, 3)])"""
    assert repr(ragged_batch()) == textwrap.dedent(expected)


def test_str_of_scalars_and_empty():
    tl = TensorListCPU(np.array([1, 2, 3], np.uint8))
    assert str(tl) == (
        'TensorListCPU(\n    [1, 2, 3],\n    dtype=DALIDataType.UINT8,\n    device="cpu",\n'
        "    num_samples=3,\n    shape=[(), (), ()])"
    )
    empty = TensorListCPU.wrap([], dtype=np.float32, ndim=1)
    assert str(empty) == (
        'TensorListCPU(\n    [],\n    dtype=DALIDataType.FLOAT,\n    device="cpu",\n'
        "    num_samples=0,\n    shape=[])"
    )


def test_str_summarises_large_batches():
    tl = TensorListCPU(np.zeros((8, 300), np.uint8))
    text = str(tl)
    assert text.count(",\n    ...,\n    ") == 1  # samples 2..5 left out
    assert text.count("[0 0 0") == 4
    assert "num_samples=8" in text
    many = TensorListCPU(np.zeros((20, 1), np.uint8))
    assert "shape=[(1,), (1,), ..., (1,), (1,)])" in str(many)
    wide = TensorListCPU([np.zeros((i + 100, 200), np.uint8) for i in range(7)])
    assert "shape=[(100, 200), \n           (101, 200)," in repr(wide)


# -- TensorCPU ---------------------------------------------------------------------------------


def test_tensor_cpu_basics():
    src = np.ones((2, 3), np.float32)
    t = TensorCPU(src, "HW")
    assert t.shape() == [2, 3] and isinstance(t.shape(), list)
    assert t.dtype is types.FLOAT
    assert t.layout() == "HW"
    assert t.ndim == 2 and t.ndim() == 2
    assert t.source_info() == ""
    assert t.get_property("layout") == "HW"
    assert t.get_property("source_info") is None
    assert t.get_property("anything") is None
    assert TensorCPU(src).layout() == "" and TensorCPU(src).get_property("layout") is None
    assert np.shares_memory(np.asarray(t), src)
    assert np.array(t).tolist() == src.tolist()
    assert t.as_cpu() is t
    with pytest.raises(ValueError, match=r"of the Tensor.\nGot: 1 \(H\)\nExpected: 2."):
        TensorCPU(src, "H")


def test_tensor_cpu_inputs():
    src = np.arange(4, dtype=np.int64)
    assert np.shares_memory(np.asarray(TensorCPU(DLPackOnly(src))), src)
    assert TensorCPU([1.0, 2.0]).dtype is types.FLOAT64
    assert TensorCPU(np.float32(3)).shape() == []
    assert np.array(TensorCPU(np.ones((3, 4))[:, 1])).tolist() == [1.0] * 3
    with pytest.raises(TypeError):
        TensorCPU(FakeGPUArray())
    with pytest.raises(TypeError):
        TensorCPU(np.array(["a"]))


def test_tensor_cpu_dlpack():
    t = TensorCPU(np.arange(6, dtype=np.uint8).reshape(2, 3))
    assert t.__dlpack_device__() == (1, 0)
    out = np.from_dlpack(t)
    assert out.tolist() == [[0, 1, 2], [3, 4, 5]]
    readonly = np.arange(3)
    readonly.flags.writeable = False
    assert np.from_dlpack(TensorCPU(readonly)).tolist() == [0, 1, 2]


def test_tensor_cpu_source_info_from_batch():
    tl = TensorListCPU.wrap(np.zeros((2, 1)), "", ["a.jpg", "b.jpg"])
    assert [t.source_info() for t in tl] == ["a.jpg", "b.jpg"]
    assert tl[1].get_property("source_info") == "b.jpg"


def test_squeeze():
    t = TensorCPU(np.zeros((1, 3, 1)), "ABC")
    assert t.squeeze(0) is True
    assert t.shape() == [3, 1] and t.layout() == "BC"
    assert t.squeeze(0) is False
    assert t.squeeze(-1) is True
    assert t.shape() == [3] and t.layout() == "B"
    assert t.squeeze() is False
    u = TensorCPU(np.zeros((1, 2, 1, 1)), "ABCD")
    assert u.squeeze() is True and u.shape() == [2] and u.layout() == "B"
    with pytest.raises(RuntimeError, match="axis 5 is out of bound for a tensor with 1 dimensions"):
        u.squeeze(5)


def test_tensor_str_and_repr():
    t = TensorCPU(np.array([[1, 2], [3, 4]], np.int32), "HW")
    assert str(t) == (
        "TensorCPU(\n    [[1 2]\n     [3 4]],\n    dtype=DALIDataType.INT32,\n"
        '    layout="HW",\n    device="cpu",\n    shape=(2, 2))'
    )
    assert repr(TensorCPU(np.zeros(3, np.uint8))) == (
        'TensorCPU(\n    dtype=DALIDataType.UINT8,\n    device="cpu",\n    shape=(3,))'
    )


def test_tensor_copy_to_external_and_data_ptr():
    t = TensorCPU(np.arange(5, dtype=np.float64))
    out = np.zeros(5)
    t.copy_to_external(ctypes.c_void_p(out.ctypes.data))
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert t.data_ptr() == np.asarray(t).ctypes.data


# -- internal fast API -------------------------------------------------------------------------


def test_make_dense():
    dense = np.zeros((3, 2, 2), np.uint8)
    tl = TensorListCPU.wrap(dense, "HW")
    assert tl.dense() is dense
    samples = tl.samples()
    assert samples is tl.samples()  # cached
    assert len(samples) == 3 and all(np.shares_memory(s, dense) for s in samples)
    assert tl.np_dtype == np.uint8 and tl._layout == "HW" and tl._source_info is None
    assert tl[0].source_info() == ""


def test_make_list_stacks_once():
    samples = [np.full((2,), i, np.int32) for i in range(3)]
    tl = TensorListCPU.wrap(samples)
    assert tl.samples() is samples  # no copy until a dense view is needed
    dense = tl.dense()
    assert dense.shape == (3, 2) and tl.dense() is dense
    assert all(np.shares_memory(s, dense) for s in tl.samples())
    assert tl.np_dtype == np.int32


def test_make_ragged():
    samples = [np.zeros((2,)), np.zeros((3,))]
    tl = TensorListCPU.wrap(samples, None, ["x", "y"])
    assert tl.dense() is None
    assert tl.samples() is samples
    assert tl._layout == ""
    assert tl[1].source_info() == "y"


def test_make_empty_and_scalars():
    tl = TensorListCPU.wrap([], dtype=types.UINT8, ndim=2)
    assert len(tl) == 0 and tl.dtype is types.UINT8 and tl.ndim == 2
    assert tl.dense().shape == (0, 0, 0)
    assert tl.samples() == []
    tl = TensorListCPU.wrap([], dtype=np.dtype(np.int16))
    assert tl.np_dtype == np.int16 and tl.ndim == 0
    scalars = TensorListCPU.wrap(np.arange(3, dtype=np.float32))
    assert [s.shape for s in scalars.samples()] == [(), (), ()]
    assert all(isinstance(s, np.ndarray) for s in scalars.samples())


def test_make_read_only_broadcast():
    value = np.arange(3, dtype=np.float32)
    value.flags.writeable = False
    dense = np.broadcast_to(value, (4, 3))
    tl = TensorListCPU.wrap(dense, "X")
    assert tl.shape() == [(3,)] * 4
    assert tl.as_array() is dense
    assert np.array(tl).tolist() == [[0.0, 1.0, 2.0]] * 4
    out = np.zeros(12, np.float32)
    tl.copy_to_external(out.ctypes.data)
    assert out.tolist() == [0.0, 1.0, 2.0] * 4
    assert np.from_dlpack(tl).shape == (4, 3)


# -- interop with frameworks (skipped when they are not installed) -----------------------------


def test_torch_cpu_interop():
    torch = pytest.importorskip("torch")
    src = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    tl = TensorListCPU(src, "X")
    assert tl.dtype is types.INT32 and tl.shape() == [(3,), (3,)]
    back = torch.from_dlpack(tl[1])
    assert back.tolist() == [3, 4, 5]
    assert torch.from_dlpack(tl).shape == (2, 3)
    assert types.to_dali_type(torch.float16) is types.FLOAT16


def test_jax_cpu_interop():
    jnp = pytest.importorskip("jax.numpy")
    t = TensorCPU(jnp.arange(4, dtype=jnp.float32))
    assert t.dtype is types.FLOAT and np.array(t).tolist() == [0.0, 1.0, 2.0, 3.0]


# -- GPU ---------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_tensor_list_gpu_dense():
    cp = pytest.importorskip("cupy")
    src = cp.arange(12, dtype=cp.float32).reshape(2, 2, 3)
    tl = TensorListGPU(src, "HW")
    assert len(tl) == 2 and tl.shape() == [(2, 3), (2, 3)]
    assert tl.dtype is types.FLOAT and tl.layout() == "HW" and tl.ndim == 2
    assert not hasattr(tl, "as_array")
    with pytest.warns(DeprecationWarning):
        sample = tl.at(1)
    assert isinstance(sample, TensorGPU)
    assert cp.asnumpy(cp.asarray(sample)).tolist() == [[6, 7, 8], [9, 10, 11]]
    assert isinstance(tl[0], TensorGPU)
    with pytest.raises(IndexError, match="TensorListCPU index out of range"):
        tl[2]
    cpu = tl.as_cpu()
    assert isinstance(cpu, TensorListCPU) and cpu.layout() == "HW"
    assert cpu.as_array().tolist() == cp.asnumpy(src).tolist()
    t = tl.as_tensor()
    assert isinstance(t, TensorGPU) and t.shape() == [2, 2, 3] and t.layout() == "NHW"
    assert cp.asarray(tl).data.ptr == src.data.ptr  # __cuda_array_interface__, no copy
    assert cp.from_dlpack(tl).shape == (2, 2, 3)
    assert tl.__dlpack_device__()[0] == 2
    assert tl.device_id() == 0 and tl.stream is None
    assert 'device="gpu"' in str(tl)


@pytest.mark.gpu
def test_tensor_list_gpu_ragged_and_make():
    cp = pytest.importorskip("cupy")
    tl = TensorListGPU([cp.zeros((2, 3), cp.uint8), cp.ones((1, 3), cp.uint8)], "HW")
    assert tl.shape() == [(2, 3), (1, 3)] and not tl.is_dense_tensor()
    with pytest.raises(RuntimeError):
        tl.as_tensor()
    assert not hasattr(tl, "__cuda_array_interface__")
    cpu = tl.as_cpu()
    assert cpu.shape() == [(2, 3), (1, 3)] and cpu.at(1).tolist() == [[1, 1, 1]]
    out = cp.zeros(9, cp.uint8)
    tl.copy_to_external(out.data.ptr)
    assert cp.asnumpy(out).tolist() == [0] * 6 + [1] * 3
    made = TensorListGPU.wrap(cp.zeros((3, 4), cp.int32), "X", ["a", "b", "c"])
    assert made.dense().shape == (3, 4) and len(made.samples()) == 3
    assert made[2].source_info() == "c"
    empty = TensorListGPU.wrap([], dtype=np.float32, ndim=1)
    assert len(empty) == 0 and empty.as_cpu().shape() == []


@pytest.mark.gpu
def test_transfers_between_devices():
    cp = pytest.importorskip("cupy")
    cpu = ragged_batch()
    gpu = cpu._as_gpu()
    assert isinstance(gpu, TensorListGPU) and gpu.shape() == cpu.shape()
    assert gpu.as_cpu().at(1).tolist() == cpu.at(1).tolist()
    t = TensorCPU(np.arange(3, dtype=np.int16), "X")._as_gpu()
    assert isinstance(t, TensorGPU) and t.layout() == "X"
    assert t.as_cpu().shape() == [3] and np.array(t.as_cpu()).tolist() == [0, 1, 2]
    assert TensorGPU(cp.ones(2)).dtype is types.FLOAT64
    with pytest.raises(RuntimeError):
        TensorGPU(np.ones(2))
    assert TensorListGPU.broadcast(t, 3).shape() == [(3,)] * 3


@pytest.mark.gpu
def test_torch_gpu_interop():
    cp = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    src = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
    tl = TensorListGPU(src, "X")
    assert tl.dtype is types.FLOAT and tl.shape() == [(3,), (3,)]
    assert tl.data_ptr() == src.data_ptr()  # shared, not copied
    back = torch.from_dlpack(tl[1])
    assert back.device.type == "cuda" and back.tolist() == [3.0, 4.0, 5.0]
    t = TensorGPU(src[0])
    assert cp.asnumpy(cp.asarray(t)).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError):
        TensorCPU(src)


def test_stacked_host_batches_are_64_byte_aligned():
    # XLA shares host memory only when it is 64-byte aligned (else JAX copies the batch)
    for n in (1, 3, 7):
        samples = [np.full((5, 3), i, dtype=np.uint8) for i in range(n)]
        dense = TensorListCPU(samples).dense()
        assert dense.ctypes.data % 64 == 0
        np.testing.assert_array_equal(dense[:, 0, 0], np.arange(n))


# -- lazy flat batches (`_make_flat`: samples back to back, views made on demand) ---------------


@pytest.mark.parametrize(
    "shapes", [[(2, 3, 3), (4, 1, 3), (1, 5, 3)], [(2, 2, 3)] * 3, [(0, 2, 3), (1, 1, 3)]]
)
def test_a_lazy_flat_batch_behaves_like_its_samples(shapes):
    from dali._tensors import TensorListCPU, _split_flat

    total = sum(int(np.prod(s)) for s in shapes)
    flat = np.arange(total, dtype=np.float32)
    eager = TensorListCPU([v.copy() for v in _split_flat(flat, shapes)], layout="HWC")
    lazy = TensorListCPU.wrap_flat(flat, list(shapes), layout="HWC")
    assert lazy._slist is None  # nothing made yet
    assert len(lazy) == len(shapes) and lazy.shape() == eager.shape()
    assert lazy.is_dense_tensor() == eager.is_dense_tensor()
    assert lazy.flat()[1] == list(shapes) and lazy._slist is None
    assert lazy.layout() == "HWC" and lazy.dtype == eager.dtype and lazy.ndim == 3
    for i in range(len(shapes)):
        assert np.array_equal(lazy.at(i), eager.at(i))
        assert np.shares_memory(lazy.at(i), flat) or lazy.at(i).size == 0
    if eager.is_dense_tensor():
        assert np.array_equal(lazy.as_array(), eager.as_array())
        assert np.array_equal(np.asarray(lazy.as_tensor()), np.asarray(eager.as_tensor()))
    else:
        for tl in (lazy, eager):
            with pytest.raises(RuntimeError, match="uniform shape"):
                tl.as_tensor()


def test_a_lazy_flat_batch_makes_its_views_once_and_shares_like_any_batch():
    from dali._tensors import TensorListCPU

    flat = np.arange(10, dtype=np.int32)
    lazy = TensorListCPU.wrap_flat(flat, [(2, 2), (3, 2)], layout="HW")
    shared = TensorListCPU(lazy)  # shares, still lazy
    assert shared._slist is None and shared.shape() == [(2, 2), (3, 2)]
    first = lazy.samples()
    assert lazy.samples() is first and lazy._lazy_shapes is None
    assert [s.tolist() for s in first] == [[[0, 1], [2, 3]], [[4, 5], [6, 7], [8, 9]]]
    lazy._sample_list = None  # setting the samples ends the laziness
    assert lazy._lazy_shapes is None


@pytest.mark.parametrize(
    "gpu", [False, pytest.param(True, marks=pytest.mark.gpu)], ids=["cpu", "gpu"]
)
def test_take_gathers_samples_in_order(gpu: bool) -> None:
    """`take` (author API): the samples asked for, repeats and order kept, with their infos."""
    from dali._tensors import TensorListCPU

    dense = TensorListCPU.wrap(np.arange(24, dtype=np.int16).reshape(4, 2, 3), "HW")
    dense.source_infos = ["a", "b", "c", "d"]
    ragged = TensorListCPU.wrap([np.full((n, 2), n, np.float32) for n in (1, 2, 3)], "XY")
    if gpu:
        dense, ragged = dense.to_gpu(), ragged.to_gpu()
    picked = dense.take([3, 0, 0])
    assert type(picked) is type(dense) and picked.layout() == "HW"
    assert picked.source_infos == ["d", "a", "a"]
    assert np.asarray(picked.as_cpu().as_array()).tolist() == [
        np.arange(18, 24).reshape(2, 3).tolist(),
        np.arange(6).reshape(2, 3).tolist(),
        np.arange(6).reshape(2, 3).tolist(),
    ]
    picked = ragged.take(np.array([2, 0]))
    assert picked.shape() == [(3, 2), (1, 2)] and picked.source_infos is None
    empty = ragged.take([])
    assert len(empty) == 0 and empty.dtype == ragged.dtype and empty.layout() == "XY"
