"""Data types, enums and constants of the DALI API (``nvidia.dali.types`` -> ``dali.types``).

The enum members are also available at module level (``types.UINT8``, ``types.FLOAT``,
``types.RGB``, ``types.INTERP_LINEAR``, ...). Layout constants are plain strings.

Example:
    >>> from dali import types
    >>> types.FLOAT == 9, str(types.FLOAT), types.NHWC
    (True, 'DALIDataType.FLOAT', 'HWC')
    >>> types.Constant(10).uint8().dtype
    <DALIDataType.UINT8: 0>
"""

from __future__ import annotations

from dali._constants import Constant, ScalarConstant
from dali._dtypes import (
    BatchInfo,
    DALIDataType,
    DALIImageType,
    DALIInterpType,
    PipelineAPIType,
    SampleInfo,
    TensorLayout,
    to_dali_type,
    to_numpy_type,
)

__all__ = [  # noqa: RUF022 - plain sorted() order, as every public __all__
    "ANY_DATA",
    "BGR",
    "BOOL",
    "BatchInfo",
    "CPU_ONLY_DEVICE_ID",
    "Constant",
    "DALIDataType",
    "DALIImageType",
    "DALIInterpType",
    "DATA_TYPE",
    "FEATURE",
    "FLOAT",
    "FLOAT16",
    "FLOAT64",
    "GRAY",
    "IMAGE_TYPE",
    "INT16",
    "INT32",
    "INT64",
    "INT8",
    "INTERP_CUBIC",
    "INTERP_GAUSSIAN",
    "INTERP_LANCZOS3",
    "INTERP_LINEAR",
    "INTERP_NN",
    "INTERP_TRIANGULAR",
    "INTERP_TYPE",
    "NCHW",
    "NFCHW",
    "NFHWC",
    "NHWC",
    "NO_TYPE",
    "PYTHON_OBJECT",
    "PipelineAPIType",
    "RGB",
    "SAME",
    "STRING",
    "SampleInfo",
    "ScalarConstant",
    "TENSOR_LAYOUT",
    "TensorLayout",
    "UINT16",
    "UINT32",
    "UINT64",
    "UINT8",
    "YCbCr",
    "to_dali_type",
    "to_numpy_type",
]

# Layouts (plain strings, as in DALI).
NCHW = "CHW"
NHWC = "HWC"
NFHWC = "FHWC"
NFCHW = "FCHW"
SAME = ""

#: The ``device_id`` of a pipeline that runs on the CPU only.
CPU_ONLY_DEVICE_ID = -99999

# Enum members at module level, as DALI's pybind11 enums export them (the internal
# ``_``-prefixed DALIDataType members are reachable through the enum only).
NO_TYPE = DALIDataType.NO_TYPE
UINT8 = DALIDataType.UINT8
UINT16 = DALIDataType.UINT16
UINT32 = DALIDataType.UINT32
UINT64 = DALIDataType.UINT64
INT8 = DALIDataType.INT8
INT16 = DALIDataType.INT16
INT32 = DALIDataType.INT32
INT64 = DALIDataType.INT64
FLOAT16 = DALIDataType.FLOAT16
FLOAT = DALIDataType.FLOAT
FLOAT64 = DALIDataType.FLOAT64
BOOL = DALIDataType.BOOL
STRING = DALIDataType.STRING
FEATURE = DALIDataType.FEATURE
IMAGE_TYPE = DALIDataType.IMAGE_TYPE
DATA_TYPE = DALIDataType.DATA_TYPE
INTERP_TYPE = DALIDataType.INTERP_TYPE
TENSOR_LAYOUT = DALIDataType.TENSOR_LAYOUT
PYTHON_OBJECT = DALIDataType.PYTHON_OBJECT
RGB = DALIImageType.RGB
BGR = DALIImageType.BGR
GRAY = DALIImageType.GRAY
YCbCr = DALIImageType.YCbCr
ANY_DATA = DALIImageType.ANY_DATA
INTERP_NN = DALIInterpType.INTERP_NN
INTERP_LINEAR = DALIInterpType.INTERP_LINEAR
INTERP_CUBIC = DALIInterpType.INTERP_CUBIC
INTERP_LANCZOS3 = DALIInterpType.INTERP_LANCZOS3
INTERP_TRIANGULAR = DALIInterpType.INTERP_TRIANGULAR
INTERP_GAUSSIAN = DALIInterpType.INTERP_GAUSSIAN
