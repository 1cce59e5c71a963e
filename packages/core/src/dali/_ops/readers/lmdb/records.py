"""What `readers.caffe` and `readers.caffe2` make of one record: its output samples.

The rules are those of DALI 2.4's parsers (``dali/operators/reader/parser/caffe_parser.h`` and
``caffe2_parser.h``), as DALI 2.4 behaves where they are well defined; where DALI reads out of
bounds, leaves an output unwritten or fails on a type, the record is an error here
(`RecordError`, which the reader reports with the record's ``source_info``).

**Caffe** (``Datum``): the image output is the ``data`` bytes, 1-D when the image is encoded
(``encoded`` true or absent), ``(height, width, channels)`` when ``encoded`` is false (raw
pixels, which must fill that shape exactly); the label output is the ``label`` as one int32,
shape ``(1,)``. A record without ``data`` gives an empty image, one without ``label`` an empty
label (what DALI 2.4 returns).

**Caffe2** (``TensorProtos``), its tensors taken in order:

1. with ``image_available``, the image: a ``STRING`` tensor's first string (encoded bytes,
   1-D uint8) or a ``BYTE`` tensor's bytes, shaped ``(H, W, C)`` from ``dims`` ``[H, W, C]``
   (``[H, W]``: ``C = 1``);
2. unless ``label_type`` is 4 (no label), the label tensor, ``FLOAT`` (float32 output) or
   ``INT32`` (int32): type 0 one value, shape ``(1,)``; type 2 the values as they are; type 1
   the indices of the active classes, output as a multi-hot vector of ``num_labels`` values
   (1 at each index, of the tensor's type); type 3 the same with the weights of the *next*
   tensor's ``float_data`` (a float32 vector);
3. with sparse labels (types 1 and 3) the tensor after the label is not an output (type 3:
   the weights; type 1 skips it);
4. ``additional_inputs`` tensors, each ``FLOAT``, ``INT32`` or ``INT64``: its values, 1-D;
5. when exactly one tensor follows, it is the bounding box: ``INT32`` with 4 values.

DALI 2.4 declares one output more for sparse labels than it has labels for, and fills it with
the record's last tensor (step 5): with label types 1 and 3, a record must end with that
tensor and ``bbox`` must be False (DALI then fails on every record). Without sparse labels a
record that ends with a box needs ``bbox=True`` and ``bbox=True`` needs the box (DALI fails on
both). More tensors than that are ignored. DALI 2.4 fails on every record with label type 3
(its weighted label output is never given a type); here it gives the weights.

Example:
    >>> from dali._testing.lmdb_data import encode_tensor, encode_tensor_protos
    >>> spec = Caffe2Spec(image_available=True, label_type=1, num_labels=4)
    >>> record = encode_tensor_protos([encode_tensor(b"jpeg"), encode_tensor([0, 2]),
    ...     encode_tensor(b"(skipped)"), encode_tensor([1, 2, 3, 4])])
    >>> caffe2_sample(memoryview(record), spec)
    [Span(start=6, end=10, shape=(4,)), Numbers(int32, [1, 0, 1, 0]), Numbers(int32, [1, 2, 3, 4])]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._ops.readers.lmdb.protos import (
    BYTE,
    FLOAT,
    INT32,
    INT64,
    STRING,
    DataType,
    TensorProto,
    parse_datum,
    parse_tensor_protos,
)

__all__ = [
    "NO_LABEL",
    "SPARSE_LABELS",
    "Caffe2Spec",
    "Numbers",
    "RecordError",
    "Sample",
    "Span",
    "caffe2_sample",
    "caffe_sample",
]

#: ``label_type`` values: 0 single, 1 sparse, 2 dense, 3 weighted sparse, 4 no label
NO_LABEL = 4
SPARSE_LABELS = (1, 3)


class RecordError(ValueError):
    """A record that does not give the reader's outputs (the message says why)."""


@dataclass(frozen=True, slots=True)
class Span:
    """An image output: bytes ``start:end`` of the record, shaped ``shape`` (uint8)."""

    start: int
    end: int
    shape: tuple[int, ...]


class Numbers:
    """A numeric output sample: 1-D ``values`` (a Python list, or an array when long) of
    ``dtype``. The reader makes a batch of them one array in one call."""

    __slots__ = ("dtype", "values")

    def __init__(self, dtype: np.dtype[Any], values: list[Any] | np.ndarray) -> None:
        self.dtype = dtype
        self.values = values

    def __repr__(self) -> str:
        values = self.values.tolist() if isinstance(self.values, np.ndarray) else self.values
        return f"Numbers({self.dtype.name}, {values})"


Sample = Span | Numbers

_F32, _I32, _I64 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int64)
_EMPTY_IMAGE = Span(0, 0, (0,))


def caffe_sample(record: Any, image: bool, label: bool) -> list[Sample]:
    """The outputs of a Caffe ``Datum`` record (``image``, ``label``: which are wanted).

    Raises:
        ProtoError: Not a valid ``Datum``.
        RecordError: Raw pixels that do not fill the record's ``(height, width, channels)``.
    """
    datum = parse_datum(record)
    out: list[Sample] = []
    if image:
        if datum.data is None:
            out.append(_EMPTY_IMAGE)
        else:
            a, b = datum.data
            if datum.encoded is False:
                shape = (datum.height or 0, datum.width or 0, datum.channels or 0)
                if min(shape) < 0 or shape[0] * shape[1] * shape[2] != b - a:
                    raise RecordError(
                        f"a raw image (encoded: false) of {b - a} bytes does not fill its "
                        f"height x width x channels = {' x '.join(map(str, shape))}"
                    )
                out.append(Span(a, b, shape))
            else:
                out.append(Span(a, b, (b - a,)))
    if label:
        out.append(Numbers(_I32, [] if datum.label is None else [datum.label]))
    return out


@dataclass(frozen=True)
class Caffe2Spec:
    """The ``readers.caffe2`` arguments that decide what a record gives."""

    image_available: bool = True
    label_type: int = 0
    num_labels: int = 1
    additional_inputs: int = 0
    bbox: bool = False

    @property
    def sparse(self) -> bool:
        return self.label_type in SPARSE_LABELS

    def num_outputs(self) -> int:
        """DALI's output count: image, label(s), additional tensors, box."""
        labels = 0 if self.label_type == NO_LABEL else 2 if self.sparse else 1
        return int(self.image_available) + labels + self.additional_inputs + int(self.bbox)


def _type_name(data_type: int) -> str:
    return DataType(data_type).name


def _image(t: TensorProto) -> Span:
    if t.data_type == STRING:
        if not t.string_data:
            raise RecordError("the image tensor (STRING) holds no string")
        a, b = t.string_data[0]
        return Span(a, b, (b - a,))
    if t.data_type == BYTE:
        dims = t.dims
        if len(dims) < 2:
            raise RecordError(f"the image tensor (BYTE) has dims {dims}: [H, W] or [H, W, C]")
        shape = (dims[0], dims[1], dims[2] if len(dims) == 3 else 1)
        a, b = t.byte_data if t.byte_data is not None else (0, 0)
        if min(shape) < 0 or shape[0] * shape[1] * shape[2] != b - a:
            raise RecordError(
                f"the image tensor (BYTE) holds {b - a} bytes, not the "
                f"{' x '.join(map(str, shape))} of its dims {dims}"
            )
        return Span(a, b, shape)
    raise RecordError(
        f"the image tensor is of type {_type_name(t.data_type)}: images are STRING (encoded) "
        "or BYTE (raw pixels)"
    )


def _as_list(values: list[Any] | np.ndarray) -> list[Any]:
    return values.tolist() if isinstance(values, np.ndarray) else values


def _label(record: Any, tensors: list[TensorProto], p: int, spec: Caffe2Spec) -> Numbers:
    t = tensors[p]
    values: list[Any] | np.ndarray
    dtype: np.dtype[Any]
    if t.data_type == FLOAT:
        dtype, values = _F32, t.floats(record)
    elif t.data_type == INT32:
        dtype, values = _I32, t.int32s()
    else:
        raise RecordError(
            f"the label tensor (tensor {p}) is of type {_type_name(t.data_type)}: labels are "
            "FLOAT or INT32"
        )
    kind = spec.label_type
    if kind == 2:
        return Numbers(dtype, values)
    if kind == 0:
        if len(values) != 1:
            raise RecordError(
                f"a single label (label_type=0) is one value; the label tensor (tensor {p}) "
                f"holds {len(values)}"
            )
        return Numbers(dtype, values)
    # sparse: the indices of the active classes (a float index is truncated, as C++ casts)
    k = spec.num_labels
    indices = []
    for v in _as_list(values):
        i = int(v) if math.isfinite(v) else -1
        if not 0 <= i < k:
            raise RecordError(f"the label index {v} (tensor {p}) is not in [0, num_labels={k})")
        indices.append(i)
    if kind == 1:
        hot = [0] * k
        for i in indices:
            hot[i] = 1
        return Numbers(dtype, hot)
    if p + 1 >= len(tensors):
        raise RecordError(
            f"label_type=3 reads the label weights from tensor {p + 1}; the record has "
            f"{len(tensors)} tensors"
        )
    weights = _as_list(tensors[p + 1].floats(record))
    if len(weights) < len(indices):
        raise RecordError(
            f"{len(indices)} label indices (tensor {p}) but {len(weights)} weights (tensor {p + 1})"
        )
    weighted = [0.0] * k
    for i, w in zip(indices, weights):  # (a repeated index: the last wins)
        weighted[i] = w
    return Numbers(_F32, weighted)


def _additional(record: Any, t: TensorProto, j: int, k: int) -> Numbers:
    if t.data_type == FLOAT:
        return Numbers(_F32, t.floats(record))
    if t.data_type == INT32:
        return Numbers(_I32, t.int32s())
    if t.data_type == INT64:
        return Numbers(_I64, t.int64s())
    raise RecordError(
        f"additional tensor {j} (tensor {k}) is of type {_type_name(t.data_type)}: additional "
        "tensors are FLOAT, INT32 or INT64"
    )


def _missing(what: str, k: int, n: int) -> RecordError:
    return RecordError(f"{what} would be tensor {k}, but the record has {n} tensors")


def caffe2_sample(record: Any, spec: Caffe2Spec) -> list[Sample]:
    """The outputs of a Caffe2 ``TensorProtos`` record (module docstring: the rules).

    Raises:
        ProtoError: Not a valid ``TensorProtos``.
        RecordError: A record that does not give ``spec``'s outputs.
    """
    tensors = parse_tensor_protos(record)
    n = len(tensors)
    out: list[Sample] = []
    p = 0
    if spec.image_available:
        if not n:
            raise _missing("the image", 0, n)
        out.append(_image(tensors[0]))
        p = 1
    if spec.label_type != NO_LABEL:
        if p >= n:
            raise _missing("the label", p, n)
        out.append(_label(record, tensors, p, spec))
        p += 1
    start = p + 1 if spec.sparse else p
    end = start + spec.additional_inputs
    if end > n and spec.additional_inputs:
        j = max(0, n - start)
        raise _missing(f"additional tensor {j}", start + j, n)
    for j in range(spec.additional_inputs):
        out.append(_additional(record, tensors[start + j], j, start + j))
    if n == end + 1:  # the box: exactly one tensor more
        t = tensors[end]
        if t.data_type != INT32 or t.count(INT32) != 4:
            count = t.count(t.data_type) if t.data_type in (FLOAT, INT32, INT64) else "?"
            raise RecordError(
                f"the record's last tensor (tensor {end}) is read as the bounding box, which is "
                f"INT32 of 4 values; it is {_type_name(t.data_type)} of {count} values"
            )
        if not (spec.sparse or spec.bbox):
            raise RecordError(
                f"the record has one tensor more ({n} tensors) than the outputs take: set "
                "bbox=True to read it as the bounding box"
            )
        out.append(Numbers(_I32, t.int32s()))
    elif spec.sparse:
        raise RecordError(
            f"with sparse labels (label_type={spec.label_type}) the record must end with one "
            f"tensor after the additional ones (tensor {end}: 4 int32 values, returned as the "
            f"last output, as DALI 2.4 returns it); it has {n} tensors"
        )
    elif spec.bbox:
        raise RecordError(
            f"bbox=True, but the record has no bounding-box tensor: it has {n} tensors, the box "
            f"would be tensor {end}, the last one"
        )
    return out
