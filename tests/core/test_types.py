"""dali.types and dali._dtypes against DALI 2.4's observed behaviour."""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np
import pytest
from dali import types
from dali._constants import _constant_array
from dali._dtypes import dali_dtype, np_dtype, type_name
from dali.types import (
    BatchInfo,
    Constant,
    DALIDataType,
    DALIImageType,
    DALIInterpType,
    PipelineAPIType,
    SampleInfo,
    ScalarConstant,
    TensorLayout,
)

DATA_TYPES = {
    "NO_TYPE": -1,
    "UINT8": 0,
    "UINT16": 1,
    "UINT32": 2,
    "UINT64": 3,
    "INT8": 4,
    "INT16": 5,
    "INT32": 6,
    "INT64": 7,
    "FLOAT16": 8,
    "FLOAT": 9,
    "FLOAT64": 10,
    "BOOL": 11,
    "STRING": 12,
    "_BOOL_VEC": 13,
    "_INT32_VEC": 14,
    "_STRING_VEC": 15,
    "_FLOAT_VEC": 16,
    "FEATURE": 17,
    "_FEATURE_VEC": 18,
    "_FEATURE_DICT": 19,
    "IMAGE_TYPE": 20,
    "DATA_TYPE": 21,
    "INTERP_TYPE": 22,
    "TENSOR_LAYOUT": 23,
    "PYTHON_OBJECT": 24,
    "_TENSOR_LAYOUT_VEC": 25,
    "_DATA_TYPE_VEC": 26,
    "_INT64_VEC": 27,
}

NUMERIC = [
    (DALIDataType.UINT8, np.uint8, "uint8"),
    (DALIDataType.UINT16, np.uint16, "uint16"),
    (DALIDataType.UINT32, np.uint32, "uint32"),
    (DALIDataType.UINT64, np.uint64, "uint64"),
    (DALIDataType.INT8, np.int8, "int8"),
    (DALIDataType.INT16, np.int16, "int16"),
    (DALIDataType.INT32, np.int32, "int32"),
    (DALIDataType.INT64, np.int64, "int64"),
    (DALIDataType.FLOAT16, np.float16, "float16"),
    (DALIDataType.FLOAT, np.float32, "float"),
    (DALIDataType.FLOAT64, np.float64, "double"),
    (DALIDataType.BOOL, np.bool_, "bool"),
]


# -- enums --------------------------------------------------------------------------------------


def test_data_type_members_and_values():
    assert {k: v.value for k, v in DALIDataType.__members__.items()} == DATA_TYPES
    for name, value in DATA_TYPES.items():
        member = getattr(DALIDataType, name)
        assert member.name == name
        assert member.value == value
        assert member == value and value == member
        assert hash(member) == hash(value)
        assert int(member) == value
        assert DALIDataType(value) is member


def test_image_and_interp_types():
    assert {k: v.value for k, v in DALIImageType.__members__.items()} == {
        "RGB": 0,
        "BGR": 1,
        "GRAY": 2,
        "YCbCr": 3,
        "ANY_DATA": 4,
    }
    assert {k: v.value for k, v in DALIInterpType.__members__.items()} == {
        "INTERP_NN": 0,
        "INTERP_LINEAR": 1,
        "INTERP_CUBIC": 2,
        "INTERP_LANCZOS3": 3,
        "INTERP_TRIANGULAR": 4,
        "INTERP_GAUSSIAN": 5,
    }


def test_enum_str_and_repr():
    assert str(DALIDataType.FLOAT) == "DALIDataType.FLOAT"
    assert repr(DALIDataType.FLOAT) == "<DALIDataType.FLOAT: 9>"
    assert f"{DALIDataType.UINT8}" == "DALIDataType.UINT8"
    assert repr(DALIImageType.RGB) == "<DALIImageType.RGB: 0>"
    assert str(DALIInterpType.INTERP_LINEAR) == "DALIInterpType.INTERP_LINEAR"


@pytest.mark.parametrize("cls", [DALIDataType, DALIImageType, DALIInterpType])
def test_enum_class_is_not_iterable(cls):
    with pytest.raises(TypeError):
        iter(cls)
    with pytest.raises(TypeError):
        list(cls)
    with pytest.raises(TypeError):
        len(cls)
    assert len(cls.__members__) > 0


def test_enum_members_behave_like_pybind():
    assert bool(DALIDataType.UINT8)  # a pybind member is truthy even when its value is 0
    assert DALIDataType.FLOAT != 8
    assert DALIDataType.FLOAT != "FLOAT"
    assert DALIDataType.FLOAT != 9.0
    assert DALIDataType.INT32 == np.int32(6)
    assert {DALIDataType.FLOAT: "x"}[9] == "x"
    assert [0, 1, 2][DALIImageType.GRAY] == 2  # __index__
    with pytest.raises(TypeError):
        DALIDataType.FLOAT < DALIDataType.FLOAT64  # noqa: B015
    with pytest.raises(ValueError):
        DALIDataType(100)


def test_enum_members_pickle_and_copy_to_themselves():
    for member in (DALIDataType.FLOAT, DALIImageType.BGR, DALIInterpType.INTERP_CUBIC):
        assert pickle.loads(pickle.dumps(member)) is member
        assert copy.deepcopy(member) is member


def test_members_are_exported_at_module_level():
    assert types.UINT8 is DALIDataType.UINT8
    assert types.FLOAT is DALIDataType.FLOAT
    assert types.NO_TYPE is DALIDataType.NO_TYPE
    assert types.STRING is DALIDataType.STRING
    assert types.RGB is DALIImageType.RGB
    assert types.YCbCr is DALIImageType.YCbCr
    assert types.ANY_DATA is DALIImageType.ANY_DATA
    assert types.INTERP_LINEAR is DALIInterpType.INTERP_LINEAR
    assert types.INTERP_GAUSSIAN is DALIInterpType.INTERP_GAUSSIAN
    for name in DALIDataType.__members__:
        if not name.startswith("_"):
            assert getattr(types, name) is getattr(DALIDataType, name)


def test_module_constants():
    assert types.NCHW == "CHW" and type(types.NCHW) is str
    assert types.NHWC == "HWC"
    assert types.NFHWC == "FHWC"
    assert types.NFCHW == "FCHW"
    assert types.SAME == ""
    assert types.CPU_ONLY_DEVICE_ID == -99999


def test_pipeline_api_type():
    assert [m.name for m in PipelineAPIType] == ["BASIC", "ITERATOR", "SCHEDULED"]


def test_public_names():
    assert types.__all__ == sorted(types.__all__)
    assert len(set(types.__all__)) == len(types.__all__)
    for name in types.__all__:
        assert hasattr(types, name), name
    import dali.tensors

    assert dali.tensors.__all__ == sorted(dali.tensors.__all__)


def test_no_framework_is_imported():
    import subprocess

    code = "import dali.types, dali.tensors, sys; print(sorted({'cupy', 'torch', 'jax'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- layouts, sample and batch info ------------------------------------------------------------


def test_tensor_layout():
    layout = TensorLayout("HWC")
    assert layout == "HWC" and "HWC" == layout
    assert layout == TensorLayout("HWC")
    assert layout != "CHW"
    assert layout != None
    assert len(layout) == 3
    assert str(layout) == "HWC"
    assert repr(layout) == "dali.types.TensorLayout('HWC')"
    assert hash(layout) == hash("HWC")
    assert TensorLayout("CHW") < "HWC"
    assert TensorLayout("CHW") < TensorLayout("HWC") <= "HWC"
    assert (layout == None) is False
    assert layout < None  # as in DALI's bindings
    assert layout != 3
    with pytest.raises(TypeError):
        layout[0]


def test_sample_and_batch_info():
    info = SampleInfo(10, 2, 1, 0)
    assert (info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx) == (10, 2, 1, 0)
    assert repr(info) == "SampleInfo(idx_in_epoch=10, idx_in_batch=2, iteration=1, epoch_idx=0)"
    assert SampleInfo(idx_in_epoch=1, idx_in_batch=1, iteration=0, epoch_idx=3).epoch_idx == 3
    batch = BatchInfo(4, 1)
    assert (batch.iteration, batch.epoch_idx) == (4, 1)
    assert repr(batch) == "BatchInfo(iteration=4, epoch_idx=1)"


# -- dtype conversion ---------------------------------------------------------------------------


@pytest.mark.parametrize(("dali", "numpy", "name"), NUMERIC)
def test_conversions_round_trip(dali, numpy, name):
    assert np_dtype(dali) == np.dtype(numpy)
    assert np_dtype(int(dali)) == np.dtype(numpy)
    assert np_dtype(numpy) == np.dtype(numpy)
    assert np_dtype(np.dtype(numpy)) == np.dtype(numpy)
    assert dali_dtype(numpy) is dali
    assert dali_dtype(np.dtype(numpy)) is dali
    assert dali_dtype(dali) is dali
    assert type_name(dali) == name
    assert types.to_numpy_type(dali) is numpy
    assert types.to_dali_type(np.dtype(numpy)) is dali


def test_names():
    assert np_dtype("float32") == np.float32
    assert np_dtype("uint8") == np.uint8
    assert np_dtype("float") == np.float32  # DALI's (and torch's) spelling, not numpy's
    assert np_dtype("double") == np.float64
    assert np_dtype("half") == np.float16
    assert np_dtype("bool") == np.bool_
    assert np_dtype("f8") == np.float64
    assert np_dtype(np.dtype(">i4")) == np.dtype("<i4")
    assert dali_dtype("torch.int64") is DALIDataType.INT64
    assert types.to_dali_type("long") is DALIDataType.INT64


def test_torch_like_dtypes_by_name():
    class FakeTorchDtype:  # torch.float16 prints as "torch.float16"
        def __str__(self):
            return "torch.float16"

    assert types.to_dali_type(FakeTorchDtype()) is DALIDataType.FLOAT16
    assert dali_dtype(FakeTorchDtype()) is DALIDataType.FLOAT16


def test_type_names_of_internal_types():
    assert type_name(DALIDataType.NO_TYPE) == "<no_type>"
    assert type_name(DALIDataType.STRING) == "string"
    assert type_name(DALIDataType._INT32_VEC) == "list of int"
    assert type_name(DALIDataType.DATA_TYPE) == "DALIDataType"


@pytest.mark.parametrize(
    "bad",
    [
        DALIDataType.NO_TYPE,
        DALIDataType.STRING,
        DALIDataType._FLOAT_VEC,
        DALIDataType.IMAGE_TYPE,
        np.complex64,
        object,
        "complex",
        "nonsense",
        100,
        True,
        None,
        DALIImageType.RGB,
    ],
)
def test_np_dtype_rejects(bad):
    with pytest.raises(TypeError):
        np_dtype(bad)


def test_to_dali_type_inputs():
    assert types.to_dali_type(np.float32) is DALIDataType.FLOAT
    assert types.to_dali_type("float") is DALIDataType.FLOAT
    for bad in (9, DALIDataType.FLOAT, "f4"):
        with pytest.raises(TypeError, match="could not be converted into any known DALIDataType"):
            types.to_dali_type(bad)


def test_to_dali_type_error_message():
    with pytest.raises(TypeError, match="'complex64' could not be converted into any known"):
        types.to_dali_type(np.dtype(np.complex64))
    with pytest.raises(TypeError):
        types.to_numpy_type(DALIDataType.STRING)


# -- ScalarConstant -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype", "stored"),
    [
        (True, DALIDataType.BOOL, True),
        (5, DALIDataType.INT32, 5),
        (2.5, DALIDataType.FLOAT, 2.5),
        (np.uint8(7), DALIDataType.UINT8, 7),
        (np.float64(1.5), DALIDataType.FLOAT64, 1.5),
        (np.int64(3), DALIDataType.INT64, 3),
        (np.bool_(False), DALIDataType.BOOL, False),
        (np.array(4, dtype=np.int16), DALIDataType.INT16, 4),
    ],
)
def test_scalar_constant_types(value, dtype, stored):
    c = ScalarConstant(value)
    assert c.dtype is dtype
    assert c.value == stored and type(c.value) is type(stored)


def test_scalar_constant_casts():
    c = ScalarConstant(10)
    casts = {
        "uint8": DALIDataType.UINT8,
        "uint16": DALIDataType.UINT16,
        "uint32": DALIDataType.UINT32,
        "uint64": DALIDataType.UINT64,
        "int8": DALIDataType.INT8,
        "int16": DALIDataType.INT16,
        "int32": DALIDataType.INT32,
        "int64": DALIDataType.INT64,
        "float16": DALIDataType.FLOAT16,
        "float32": DALIDataType.FLOAT,
        "float64": DALIDataType.FLOAT64,
        "bool": DALIDataType.BOOL,
    }
    for method, dtype in casts.items():
        out = getattr(c, method)()
        assert isinstance(out, ScalarConstant) and out is not c
        assert out.dtype is dtype
    assert c.float32().value == 10.0 and type(c.float32().value) is float
    assert c.bool().value is True
    assert ScalarConstant(2.7).int32().value == 2
    assert c.dtype is DALIDataType.INT32  # unchanged


def test_scalar_constant_str_repr_eq():
    c = ScalarConstant(10)
    assert repr(c) == "10"
    assert str(c) == "10:DALIDataType.INT32"
    assert str(ScalarConstant(1.5).float64()) == "1.5:DALIDataType.FLOAT64"
    assert c == ScalarConstant(10)
    assert c != c.uint8()
    assert hash(c) == hash(ScalarConstant(10))
    assert ScalarConstant(3, DALIDataType.UINT8) == c.uint8().__class__(3, types.UINT8)


def test_scalar_constant_conversions():
    assert int(ScalarConstant(7)) == 7
    assert bool(ScalarConstant(0)) is False
    assert float(ScalarConstant(2.5)) == 2.5
    with pytest.raises(TypeError):
        float(ScalarConstant(2))
    with pytest.raises(TypeError):
        int(ScalarConstant(2.0))
    with pytest.raises(TypeError):
        bool(ScalarConstant(2.0))


def test_scalar_constant_rejects():
    with pytest.raises(TypeError, match="Expected scalar value of type 'bool', 'int' or 'float'"):
        ScalarConstant("x")
    with pytest.raises(TypeError, match="can only hold one of"):
        ScalarConstant(1, DALIDataType.STRING)


# -- Constant -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(True, DALIDataType.BOOL), (3, DALIDataType.INT32), (1.5, DALIDataType.FLOAT)],
)
def test_constant_of_python_scalar_is_scalar_constant(value, dtype):
    c = Constant(value)
    assert isinstance(c, ScalarConstant)
    assert c.dtype is dtype and c.value == value


def test_constant_scalar_variants():
    assert Constant(np.float32(2)).dtype is DALIDataType.FLOAT
    assert Constant(np.uint8(2)).dtype is DALIDataType.UINT8
    assert Constant(np.array(2.0)).dtype is DALIDataType.FLOAT64  # 0-d numpy keeps its dtype
    assert Constant(5, dtype=types.UINT8).dtype is DALIDataType.UINT8
    assert isinstance(Constant(5, shape=[1]), ScalarConstant)  # legacy pseudo-scalar shape
    assert isinstance(Constant(5, shape=()), ScalarConstant)
    assert Constant(10).uint8().dtype is DALIDataType.UINT8


def test_constant_node_path(monkeypatch):
    calls = []

    def fake_constant_node(array, *, layout="", device="cpu", **kwargs):
        calls.append((array, layout, device, kwargs))
        return "node"

    from dali._graph import trace

    monkeypatch.setattr(trace, "constant_node", fake_constant_node, raising=False)
    assert Constant(np.array([1.0, 2.0])) == "node"
    arr, layout, device, _ = calls[-1]
    assert arr.dtype == np.float32 and arr.tolist() == [1.0, 2.0]
    assert (layout, device) == ("", "cpu")
    Constant(5, device="gpu")
    assert calls[-1][0].dtype == np.int32 and calls[-1][0].shape == () and calls[-1][2] == "gpu"
    Constant([[1, 2], [3, 4]], layout="HW")
    assert calls[-1][0].shape == (2, 2) and calls[-1][1] == "HW"
    Constant(1.0, shape=(2, 3))
    assert calls[-1][0].shape == (2, 3) and calls[-1][0].dtype == np.float32
    Constant(types.FLOAT)
    assert calls[-1][0].tolist() == 9


@pytest.mark.parametrize(
    ("value", "kwargs", "dtype", "shape"),
    [
        (np.array([1.5, 2.5]), {}, np.float32, (2,)),  # float64 narrowed
        (np.array([1, 2], np.int64), {}, np.int32, (2,)),  # int64 narrowed
        (np.array([1, 2], np.uint64), {}, np.uint32, (2,)),  # uint64 narrowed
        (np.array([1, 2], np.int64), {"dtype": types.INT64}, np.int64, (2,)),  # unless a dtype
        (np.array([1, 2], np.uint8), {}, np.uint8, (2,)),
        (np.array([1.5], np.float64), {"dtype": types.FLOAT64}, np.float64, (1,)),
        (np.array([1, 2], np.int16), {"dtype": types.FLOAT}, np.float32, (2,)),
        ([1, 2, 3], {}, np.int32, (3,)),
        ([1, 2.5], {}, np.float32, (2,)),
        ((True, False), {}, np.bool_, (2,)),
        ([], {}, np.float32, (0,)),
        ([1, 2, 3, 4], {"shape": (2, 2)}, np.int32, (2, 2)),
        (7, {"shape": [2, 2]}, np.int32, (2, 2)),
        (2.0, {}, np.float32, ()),
        (np.arange(6, dtype=np.int32), {"shape": (3, 2)}, np.int32, (3, 2)),
        ([1, 2], {"dtype": types.UINT8}, np.uint8, (2,)),
    ],
)
def test_constant_array_promotion(value, kwargs, dtype, shape):
    arr = _constant_array(value, **kwargs)
    assert arr.dtype == dtype
    assert arr.shape == shape
    assert arr.flags.c_contiguous


def test_constant_array_values():
    assert _constant_array(7, shape=(2, 2)).tolist() == [[7, 7], [7, 7]]
    assert _constant_array([1, 2.5]).tolist() == [1.0, 2.5]
    big = np.array([2**40], np.int64)
    assert _constant_array(big, dtype=types.INT64).tolist() == [2**40]
    assert _constant_array([types.RGB, types.GRAY]).tolist() == [0, 2]


def test_constant_array_errors():
    with pytest.raises(ValueError, match="Cannot make a constant of shape"):
        _constant_array([1, 2, 3], shape=(2, 2))
    with pytest.raises(TypeError, match="Unexpected type"):
        _constant_array(["a"])
    with pytest.raises(TypeError):
        _constant_array([types.RGB, types.FLOAT])
