"""Caffe ``Datum`` and Caffe2 ``TensorProtos`` records: a protobuf wire-format decoder.

The messages (DALI's ``dali/operators/reader/parser/proto/caffe.proto`` and ``caffe2.proto``,
both ``proto2``)::

    Datum        { optional int32 channels = 1; optional int32 height = 2;
                   optional int32 width = 3; optional bytes data = 4;
                   optional int32 label = 5; repeated float float_data = 6;
                   optional bool encoded = 7 [default = false]; }
    TensorProtos { repeated TensorProto protos = 1; }
    TensorProto  { repeated int64 dims = 1;
                   optional DataType data_type = 2 [default = FLOAT];
                   repeated float float_data = 3 [packed = true];
                   repeated int32 int32_data = 4 [packed = true];
                   optional bytes byte_data = 5; repeated bytes string_data = 6;
                   optional string name = 7; repeated double double_data = 9 [packed = true];
                   repeated int64 int64_data = 10 [packed = true];
                   optional Segment segment = 11; }        // Segment { required int64 begin = 1;
                                                            //           required int64 end = 2; }

Why a decoder of our own rather than ``protobuf``'s generated classes: the records are a
handful of flat fields, and what a reader needs from them is *where* the image bytes are, so
that they are returned as views of the record that LMDB handed over (no copy), and a few small
numbers. A generic protobuf library would build every field as a Python object (the image
bytes copied once more), would need the two ``.proto`` files compiled and shipped, and would
add a dependency whose runtime and generated code must agree in version. The decoder here is
~300 lines, reads exactly what protobuf's C++ parser (DALI's) accepts, and is checked against
``google.protobuf`` in the tests where it is installed.

What protobuf's parser accepts, this one does: fields in any order and repeated (the last
value of an ``optional`` field wins, ``repeated`` values accumulate); ``repeated`` numbers
packed or not, or both mixed; unknown fields of any wire type, groups included (skipped); a
known field number with another wire type (an unknown field, skipped, as protobuf does); an
enum value that ``DataType`` does not list (ignored: ``proto2`` enums are closed); ``int32``
values written as 10-byte varints (negative numbers; truncated to 32 bits). What it rejects,
as protobuf's parser fails: a truncated field or varint, a length past the end of its message,
a varint longer than 10 bytes, field number 0, wire types 6 and 7, an end-group tag without
its start, a packed ``float``/``double`` run whose length is not a multiple of 4/8 bytes, and a
``Segment`` without its ``required`` ``begin`` or ``end``. Those raise `ProtoError`; the
reader adds the database and the key.

Numbers are decoded in Python when the runs are short (a label, dims), with numpy otherwise
(`dali._ops.readers.tfrecord.example.decode_varints`, shared with the TFRecord reader's
``Example`` decoder). Byte fields are returned as ``(start, end)`` spans of the record.

Example:
    >>> from dali._testing.lmdb_data import encode_datum
    >>> datum = parse_datum(encode_datum(data=b"\\xff\\xd8jpeg", label=7))
    >>> datum.label, datum.data, datum.encoded
    (7, (2, 8), None)
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from dali._ops.readers.tfrecord.example import decode_varints

__all__ = [
    "BYTE",
    "FLOAT",
    "INT32",
    "INT64",
    "STRING",
    "DataType",
    "Datum",
    "ProtoError",
    "TensorProto",
    "parse_datum",
    "parse_tensor_protos",
]

_MASK64 = (1 << 64) - 1


class ProtoError(ValueError):
    """A record that protobuf's parser would refuse (the message says where and why)."""


class DataType(enum.IntEnum):
    """``caffe2.TensorProto.DataType``: the element type of a Caffe2 tensor."""

    UNDEFINED = 0
    FLOAT = 1
    INT32 = 2
    BYTE = 3
    STRING = 4
    BOOL = 5
    UINT8 = 6
    INT8 = 7
    UINT16 = 8
    INT16 = 9
    INT64 = 10
    FLOAT16 = 12
    DOUBLE = 13


_DATA_TYPES = {int(t): t for t in DataType}

#: the `DataType` values the readers use, as plain ints (compared per record)
FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


# -- the wire format ----------------------------------------------------------------------------


def _varint(buf: Any, pos: int, end: int) -> tuple[int, int]:
    """The varint at ``buf[pos]`` (as an unsigned 64-bit value) and the position after it."""
    result = 0
    shift = 0
    while pos < end:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise ProtoError(f"a varint longer than 10 bytes at byte {pos - 10}")
    raise ProtoError(f"a varint is cut off by the end of its message (byte {end})")


def _tag(buf: Any, pos: int, end: int) -> tuple[int, int, int]:
    """``(field number, wire type, position after the tag)`` of the tag at ``pos``."""
    tag = buf[pos]
    if tag < 0x80:
        pos += 1
    else:
        tag, pos = _varint(buf, pos, end)
        if tag >> 32:
            raise ProtoError(f"a tag of more than 32 bits before byte {pos}")
    number = tag >> 3
    if number == 0:
        raise ProtoError(f"field number 0 before byte {pos}")
    return number, tag & 7, pos


def _length(buf: Any, pos: int, end: int) -> tuple[int, int]:
    """The ``(start, end)`` of the length-delimited value whose length is at ``pos``."""
    n = buf[pos] if pos < end else 0x80
    if n < 0x80:
        pos += 1
    else:
        n, pos = _varint(buf, pos, end)
    stop = pos + n
    if stop > end:
        raise ProtoError(
            f"a field of {n} bytes at byte {pos} runs past the end of its message (byte {end})"
        )
    return pos, stop


def _skip(buf: Any, pos: int, end: int, number: int, wire: int) -> int:
    """The position after the value (of wire type ``wire``) of an unknown field at ``pos``."""
    if wire == 0:
        return _varint(buf, pos, end)[1]
    if wire == 2:
        return _length(buf, pos, end)[1]
    if wire in (1, 5):
        pos += 8 if wire == 1 else 4
        if pos > end:
            raise ProtoError(f"a fixed-size field is cut off by the end of its message ({end})")
        return pos
    if wire == 3:  # a group: fields up to its end-group tag of the same number
        while pos < end:
            inner, inner_wire, pos = _tag(buf, pos, end)
            if inner_wire == 4:
                if inner != number:
                    raise ProtoError(f"an end-group tag of field {inner} closes group {number}")
                return pos
            pos = _skip(buf, pos, end, inner, inner_wire)
        raise ProtoError(f"group {number} has no end-group tag")
    if wire == 4:
        raise ProtoError(f"an end-group tag of field {number} without its start, byte {pos}")
    raise ProtoError(f"invalid wire type {wire} (field {number}) before byte {pos}")


def _int32(value: int) -> int:
    """A varint read as ``int32``: the low 32 bits, signed (as protobuf truncates)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


#: packed varint runs up to this many bytes are decoded in Python (numpy's calls cost more)
_SHORT_RUN = 24


def _packed_varints(buf: Any, a: int, b: int) -> list[int] | np.ndarray:
    """The values (int64) of the packed varint run ``buf[a:b]``."""
    if b - a > _SHORT_RUN:
        try:
            return decode_varints(np.frombuffer(buf, np.uint8, b - a, a))
        except ValueError as e:  # (its own message: a cut-off or over-long varint)
            raise ProtoError(f"a packed list of varints at byte {a}: {e}") from None
    run = buf[a:b]
    if b == a or max(run) < 0x80:  # small non-negative values: one byte each
        return list(run)
    values = []
    while a < b:
        v = buf[a]
        if v < 0x80:
            a += 1
        else:
            v, a = _varint(buf, a, b)
            v = _int64(v)
        values.append(v)
    return values


def _fixed_run(a: int, b: int, size: int) -> tuple[int, int]:
    if (b - a) % size:
        raise ProtoError(f"a packed list of {b - a} bytes at byte {a} is not of {size}-byte values")
    return a, b


# -- Caffe: Datum -------------------------------------------------------------------------------


@dataclass(slots=True)
class Datum:
    """The fields of a ``caffe.Datum`` that DALI reads (None: the field is absent).

    Attributes:
        channels, height, width: The raw image's shape (``int32``).
        data: The ``(start, end)`` of the ``data`` bytes in the record.
        label: The label (``int32``).
        encoded: Whether ``data`` is an encoded image (JPEG, PNG...) or raw HWC pixels.
    """

    channels: int | None = None
    height: int | None = None
    width: int | None = None
    data: tuple[int, int] | None = None
    label: int | None = None
    encoded: bool | None = None


def parse_datum(buf: Any, start: int = 0, end: int | None = None) -> Datum:
    """Decode the ``caffe.Datum`` in ``buf[start:end]`` (bytes, or a memoryview).

    Raises:
        ProtoError: A record protobuf's parser would refuse.
    """
    end = len(buf) if end is None else end
    out = Datum()
    pos = start
    while pos < end:
        tag = buf[pos]
        if tag < 0x80:
            pos += 1
            number, wire = tag >> 3, tag & 7
            if number == 0:
                raise ProtoError(f"field number 0 before byte {pos}")
        else:
            number, wire, pos = _tag(buf, pos, end)
        if wire == 0 and number in (1, 2, 3, 5, 7):
            v = buf[pos] if pos < end else 0x80
            if v < 0x80:
                pos += 1
            else:
                v, pos = _varint(buf, pos, end)
            if number == 5:
                out.label = _int32(v)
            elif number == 7:
                out.encoded = v != 0
            elif number == 1:
                out.channels = _int32(v)
            elif number == 2:
                out.height = _int32(v)
            else:
                out.width = _int32(v)
        elif wire == 2 and number == 4:
            out.data = _length(buf, pos, end)
            pos = out.data[1]
        elif wire == 2 and number == 6:  # packed float_data (DALI does not read it)
            pos = _fixed_run(*_length(buf, pos, end), 4)[1]
        else:  # unknown, unpacked float_data, or a known number of another wire type
            pos = _skip(buf, pos, end, number, wire)
    return out


# -- Caffe2: TensorProtos -------------------------------------------------------------------------

#: float_data runs up to this many values are read with `struct` (numpy's calls cost more)
_SHORT_FLOATS = 16
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def _join(parts: list[Any]) -> list[Any] | np.ndarray:
    """The values of a repeated field from its parts (Python lists or arrays), in order."""
    if len(parts) == 1:
        out: list[Any] | np.ndarray = parts[0]
        return out
    if any(isinstance(p, np.ndarray) for p in parts):
        return np.concatenate([np.asarray(p, dtype=np.int64) for p in parts])
    return [v for p in parts for v in p]


class TensorProto:
    """A decoded ``caffe2.TensorProto``: the fields DALI reads.

    Numbers are kept as found until asked for (`floats`, `int32s`, `int64s`): short lists as
    Python lists (a batch of them becomes one array in one call), long ones as numpy arrays.
    Byte fields are spans of the record, ``(start, end)``.

    Attributes:
        dims: The dimensions.
        data_type: The element type, a `DataType` value (``FLOAT`` when absent, the field's
            default).
        byte_data: The ``byte_data`` span, or None.
        string_data: The spans of the ``string_data`` values.
    """

    # (class-level defaults, never mutated: a field found gets the instance its own value or
    # list (`_add`); most tensors set two or three fields, and a record makes several tensors)
    dims: list[int] = []  # noqa: RUF012 - never mutated: replaced
    data_type = FLOAT
    byte_data: tuple[int, int] | None = None
    string_data: list[tuple[int, int]] = []  # noqa: RUF012
    _floats: list[tuple[int, int]] = []  # noqa: RUF012
    _int32: list[Any] = []  # noqa: RUF012
    _int64: list[Any] = []  # noqa: RUF012

    def floats(self, buf: Any) -> list[float] | np.ndarray:
        """``float_data``: float32 values (Python floats, or a float32 array when long)."""
        spans = self._floats
        if not spans:
            return []
        if len(spans) == 1:
            a, b = spans[0]
        else:
            buf = b"".join(bytes(buf[a:b]) for a, b in spans)
            a, b = 0, len(buf)
        n = (b - a) // 4
        if n <= _SHORT_FLOATS:
            return list(struct.unpack_from(f"<{n}f", buf, a))
        return np.frombuffer(buf, "<f4", n, a).astype(np.float32)

    def int32s(self) -> list[int] | np.ndarray:
        """``int32_data``: each value its varint's low 32 bits, signed (as protobuf reads it)."""
        if not self._int32:
            return []
        values = _join(self._int32)
        if isinstance(values, np.ndarray):
            return values.astype(np.int32)
        if values and (min(values) < _INT32_MIN or max(values) > _INT32_MAX):
            return [_int32(v) for v in values]
        return values

    def int64s(self) -> list[int] | np.ndarray:
        """``int64_data``."""
        return _join(self._int64) if self._int64 else []

    def count(self, data_type: int) -> int:
        """How many values the field of ``data_type`` (FLOAT, INT32 or INT64) holds."""
        if data_type == FLOAT:
            return sum(b - a for a, b in self._floats) // 4
        parts = self._int32 if data_type == INT32 else self._int64
        return sum(len(p) for p in parts)


def _add(tensor: TensorProto, name: str, value: Any) -> None:
    """Append ``value`` to the repeated field ``name`` of ``tensor`` (its own list is made at
    the first value: until then the attribute is the class's empty default)."""
    values = getattr(tensor, name)
    if values:
        values.append(value)
    else:
        setattr(tensor, name, [value])


def _parse_segment(buf: Any, pos: int, end: int, seen: set[int]) -> None:
    """Walk a ``Segment`` message, adding the required fields it sets to ``seen``."""
    while pos < end:
        number, wire, pos = _tag(buf, pos, end)
        if wire == 0 and number in (1, 2):
            pos = _varint(buf, pos, end)[1]
            seen.add(number)
        else:
            pos = _skip(buf, pos, end, number, wire)


def _parse_tensor(buf: Any, pos: int, end: int) -> TensorProto:
    # the usual encoding (one-byte tags and lengths) is decoded inline: this loop is the
    # reader's cost per record
    out = TensorProto()
    segment: set[int] | None = None
    while pos < end:
        tag = buf[pos]
        if tag < 0x80:
            pos += 1
            if tag < 8:
                raise ProtoError(f"field number 0 before byte {pos}")
        else:
            number, wire, pos = _tag(buf, pos, end)
            tag = number << 3 | wire
        wire = tag & 7
        if wire == 2:
            n = buf[pos] if pos < end else 0x80
            if n < 0x80 and pos + 1 + n <= end:
                a = pos + 1
                b = pos = a + n
            else:
                a, b = _length(buf, pos, end)
                pos = b
            number = tag >> 3
            if number == 6:
                _add(out, "string_data", (a, b))
            elif number == 4:
                _add(out, "_int32", _packed_varints(buf, a, b))
            elif number == 3:
                _add(out, "_floats", _fixed_run(a, b, 4))
            elif number == 5:
                out.byte_data = (a, b)
            elif number == 1:
                for d in _packed_varints(buf, a, b):
                    _add(out, "dims", int(d))
            elif number == 10:
                _add(out, "_int64", _packed_varints(buf, a, b))
            elif number == 9:
                _fixed_run(a, b, 8)
            elif number == 11:
                segment = set() if segment is None else segment  # (pieces merge)
                _parse_segment(buf, a, b, segment)
            # (7, the name: proto2 strings are not checked for UTF-8; others: unknown)
        elif wire == 0:
            v = buf[pos] if pos < end else 0x80
            if v < 0x80:
                pos += 1
            else:
                v, pos = _varint(buf, pos, end)
            number = tag >> 3
            if number == 2:
                if v in _DATA_TYPES:  # (an unknown value of a closed enum: ignored)
                    out.data_type = v
            elif number == 4:
                _add(out, "_int32", [_int64(v)])
            elif number == 10:
                _add(out, "_int64", [_int64(v)])
            elif number == 1:
                _add(out, "dims", _int64(v))
        elif tag == 0x1D:  # float_data (3), one unpacked fixed32
            if pos + 4 > end:
                raise ProtoError(f"a float at byte {pos} is cut off by the end of its message")
            _add(out, "_floats", (pos, pos + 4))
            pos += 4
        else:  # unknown, unpacked double_data, or a known number of another wire type
            pos = _skip(buf, pos, end, tag >> 3, wire)
    if segment is not None and segment != {1, 2}:
        missing = " and ".join(n for k, n in ((1, "begin"), (2, "end")) if k not in segment)
        raise ProtoError(f"the tensor's segment lacks its required {missing}")
    return out


def parse_tensor_protos(buf: Any, start: int = 0, end: int | None = None) -> list[TensorProto]:
    """Decode the ``caffe2.TensorProtos`` in ``buf[start:end]``: its tensors, in order.

    Raises:
        ProtoError: A record protobuf's parser would refuse.

    Example:
        >>> from dali._testing.lmdb_data import encode_tensor, encode_tensor_protos
        >>> record = encode_tensor_protos([encode_tensor(b"jpeg"), encode_tensor([3])])
        >>> image, label = parse_tensor_protos(record)
        >>> DataType(image.data_type).name, image.string_data, label.int32s()
        ('STRING', [(6, 10)], [3])
    """
    end = len(buf) if end is None else end
    out = []
    pos = start
    while pos < end:
        if buf[pos] == 0x0A:  # protos (1), length-delimited: one tensor
            a, pos = _length(buf, pos + 1, end)
            out.append(_parse_tensor(buf, a, pos))
            continue
        number, wire, pos = _tag(buf, pos, end)
        if number == 1 and wire == 2:  # (a tag written in more bytes than it needs)
            a, pos = _length(buf, pos, end)
            out.append(_parse_tensor(buf, a, pos))
        else:
            pos = _skip(buf, pos, end, number, wire)
    return out
