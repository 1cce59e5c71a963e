"""A batch of Caffe2 records decoded at once: a compiled scan of the wire format, numpy after.

`dali._ops.readers.lmdb.records.caffe2_sample` decodes a record in Python: ~20 us for a
record of six small tensors, about twice what DALI's C++ parser costs, and all of a
``readers.caffe2`` pipeline's time when the records are small. This module is the fast path
for the usual records: one Numba call (`_scan`) walks every record of the batch and writes,
per tensor, its type, dims and where its fields lie (a table of spans); numpy then makes each
output of the whole batch in a few calls (the varint runs of one output, across the batch,
are gathered and decoded at once).

It handles the records that usual writers produce: every repeated field in at most one packed
run, no group, no ``segment``, no weighted labels (``label_type=3``). Anything else, and every
record that is not valid or does not give the outputs asked for, makes `decode` return None:
the reader then decodes the batch with `caffe2_sample`, which gives the same outputs, or the
error that names the record. So the results never depend on which path ran (the tests run
both on every layout and encoding), and without Numba the Python path runs alone.

Example:
    >>> from dali._ops.readers.lmdb.records import caffe2_sample
    >>> from dali._testing.lmdb_data import Caffe2Layout, encode_caffe2_sample
    >>> layout = Caffe2Layout(label_type=1, num_labels=5)
    >>> records = [encode_caffe2_sample(i, layout) for i in range(3)]
    >>> spec = Caffe2Spec(**layout.reader_args())
    >>> out = decode(records, spec)  # (None without Numba)
    >>> labels = [caffe2_sample(r, spec)[1].values for r in records]  # one by one
    >>> out is None or (out[1].tolist() == labels and out[1].shape == (3, 5))
    True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._ops.readers.lmdb.protos import BYTE, FLOAT, INT32, INT64, STRING
from dali._ops.readers.lmdb.records import NO_LABEL, Caffe2Spec
from dali._ops.readers.tfrecord.example import decode_varints

__all__ = ["decode"]

# columns of the scan's table, one row per (record, tensor)
_TYPE, _NDIMS, _D0, _D1, _D2 = 0, 1, 2, 3, 4
_BYTES_A, _BYTES_B, _NSTR, _STR_A, _STR_B = 5, 6, 7, 8, 9
_F_A, _F_B, _I32_A, _I32_B, _I64_A, _I64_B = 10, 11, 12, 13, 14, 15
_COLUMNS = 16
_VALID_TYPES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13)


@functools.cache
def _scan_kernel() -> Any:
    """The compiled scan, or None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True)
    def varint(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:  # pragma: no cover
        # (value, position after it); position -1: cut off or longer than 10 bytes
        result = 0
        shift = 0
        while pos < end and shift < 70:
            b = buf[pos]
            pos += 1
            result |= (int(b) & 0x7F) << shift
            if b < 0x80:
                return result, pos
            shift += 7
        return 0, -1

    @numba.njit(nogil=True, cache=True)
    def run_ok(buf: np.ndarray, a: int, b: int) -> bool:  # pragma: no cover
        # a packed varint run: ends on a last byte, no varint longer than 10 bytes
        if a < b and buf[b - 1] >= 0x80:
            return False
        length = 0
        for k in range(a, b):
            length += 1
            if buf[k] < 0x80:
                length = 0
            elif length >= 10:
                return False
        return True

    @numba.njit(nogil=True, cache=True)
    def skip(buf: np.ndarray, pos: int, end: int, wire: int) -> int:  # pragma: no cover
        # the position after an unknown field's value; -1: malformed or unusual (a group)
        if wire == 0:
            return varint(buf, pos, end)[1]
        if wire == 1 or wire == 5:
            pos += 8 if wire == 1 else 4
            return pos if pos <= end else -1
        if wire == 2:
            n, pos = varint(buf, pos, end)
            if pos < 0 or pos + n > end:
                return -1
            return pos + n
        return -1

    @numba.njit(nogil=True, cache=True)
    def tensor(
        buf: np.ndarray, pos: int, end: int, row: np.ndarray, store: bool, valid: np.ndarray
    ) -> bool:  # pragma: no cover
        if store:
            for c in range(row.size):
                row[c] = -1
            row[_TYPE] = 1  # FLOAT, the default
            row[_NDIMS] = 0
            row[_NSTR] = 0
        while pos < end:
            tag, pos = varint(buf, pos, end)
            if pos < 0 or tag >> 32:
                return False
            number = tag >> 3
            wire = tag & 7
            if number == 0:
                return False
            if wire == 2 and number in (1, 3, 4, 5, 6, 9, 10, 11):
                n, pos = varint(buf, pos, end)
                if pos < 0 or pos + n > end:
                    return False
                a = pos
                b = pos = a + n
                if number == 11:
                    return False  # (a segment: its required fields are checked in Python)
                if number == 3 or number == 9:
                    if n % (4 if number == 3 else 8):
                        return False
                    if number == 3:
                        if row[_F_A] >= 0 and store:
                            return False  # (two runs: Python)
                        if store:
                            row[_F_A], row[_F_B] = a, b
                elif number in (1, 4, 10):
                    if not run_ok(buf, a, b):
                        return False
                    if number == 1:
                        k = a
                        while k < b:
                            v, k = varint(buf, k, b)
                            if store:
                                if row[_NDIMS] < 3:
                                    row[_D0 + row[_NDIMS]] = v
                                row[_NDIMS] += 1
                    else:
                        col = _I32_A if number == 4 else _I64_A
                        if store and row[col] >= 0:
                            return False  # (two runs: Python)
                        if store:
                            row[col], row[col + 1] = a, b
                elif number == 5:
                    if store:
                        row[_BYTES_A], row[_BYTES_B] = a, b
                elif store:  # 6: a string
                    if row[_NSTR] == 0:
                        row[_STR_A], row[_STR_B] = a, b
                    row[_NSTR] += 1
            elif wire == 0 and number in (1, 2, 4, 10):
                v, pos = varint(buf, pos, end)
                if pos < 0:
                    return False
                if number == 2:
                    if 0 <= v < valid.size and valid[v] and store:
                        row[_TYPE] = v
                else:
                    return False  # (an unpacked number: Python)
            elif wire == 5 and number == 3:
                return False  # (an unpacked float: Python)
            else:
                pos = skip(buf, pos, end, wire)
                if pos < 0:
                    return False
        return True

    @numba.njit(nogil=True, cache=True)
    def scan(
        buf: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        table: np.ndarray,
        counts: np.ndarray,
        valid: np.ndarray,
    ) -> int:  # pragma: no cover
        # 1 when every record was described, 0 when one needs the Python path
        width = table.shape[1]
        for r in range(starts.size):
            pos = starts[r]
            end = ends[r]
            n = 0
            while pos < end:
                tag, pos = varint(buf, pos, end)
                if pos < 0 or tag >> 32 or tag >> 3 == 0:
                    return 0
                if tag == 0x0A:
                    size, pos = varint(buf, pos, end)
                    if pos < 0 or pos + size > end:
                        return 0
                    store = n < width
                    row = table[r, min(n, width - 1)]
                    if not tensor(buf, pos, pos + size, row, store, valid):
                        return 0
                    pos += size
                    n += 1
                else:
                    pos = skip(buf, pos, end, tag & 7)
                    if pos < 0:
                        return 0
            counts[r] = n
        return 1

    return scan


def _gather(buf: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes of the spans ``[a, b)`` (-1: none) back to back, and each span's length."""
    lengths = np.where(a >= 0, b - a, 0)
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, np.uint8), lengths
    first = np.cumsum(lengths) - lengths
    index = np.arange(total) + np.repeat(np.where(a >= 0, a, 0) - first, lengths)
    return buf[index], lengths


def _varints(buf: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The varint runs ``[a, b)`` decoded (int64, back to back) and each run's count."""
    data, lengths = _gather(buf, a, b)
    if data.size == 0:
        return np.empty(0, np.int64), np.zeros(len(a), np.int64)
    last = np.concatenate([[0], np.cumsum(data < 0x80)])
    ends = np.cumsum(lengths)
    return decode_varints(data), last[ends] - last[ends - lengths]


def _floats(buf: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    data, lengths = _gather(buf, a, b)
    return data.view("<f4").astype(np.float32), lengths // 4


def _numbers(buf: np.ndarray, rows: np.ndarray, dtype: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The values of one tensor position across the batch (all of ``dtype``) and counts."""
    if dtype == FLOAT:
        return _floats(buf, rows[:, _F_A], rows[:, _F_B])
    if dtype == INT32:
        values, counts = _varints(buf, rows[:, _I32_A], rows[:, _I32_B])
        return values.astype(np.int32), counts
    if dtype == INT64:
        return _varints(buf, rows[:, _I64_A], rows[:, _I64_B])
    return None


def _split(values: np.ndarray, counts: np.ndarray) -> np.ndarray | list[np.ndarray]:
    """One ``(B, n)`` array when every sample has ``n`` values, else the samples."""
    if np.all(counts == counts[0]):
        return values.reshape(len(counts), int(counts[0]))
    ends = np.cumsum(counts).tolist()
    return [values[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def _one_type(rows: np.ndarray) -> int | None:
    types = rows[:, _TYPE]
    return int(types[0]) if np.all(types == types[0]) else None


def _images(buf: np.ndarray, rows: np.ndarray) -> np.ndarray | list[np.ndarray] | None:
    kind = _one_type(rows)
    if kind == STRING:
        if np.any(rows[:, _NSTR] < 1):
            return None
        a, b = rows[:, _STR_A], rows[:, _STR_B]
        if np.all(b - a == b[0] - a[0]):
            return _gather(buf, a, b)[0].reshape(len(a), int(b[0] - a[0]))
        return [buf[x:y] for x, y in zip(a.tolist(), b.tolist())]
    if kind != BYTE or np.any(rows[:, _NDIMS] < 2):
        return None
    h, w = rows[:, _D0], rows[:, _D1]
    c = np.where(rows[:, _NDIMS] == 3, rows[:, _D2], 1)
    a, b = rows[:, _BYTES_A], rows[:, _BYTES_B]
    size = np.where(a >= 0, b - a, 0)
    if np.any((h < 0) | (w < 0) | (c < 0)) or np.any(h * w * c != size):
        return None
    if np.all(h == h[0]) and np.all(w == w[0]) and np.all(c == c[0]):
        shape = (len(a), int(h[0]), int(w[0]), int(c[0]))
        return _gather(buf, a, b)[0].reshape(shape)
    return [
        buf[x : x + int(s)].reshape(int(hh), int(ww), int(cc))
        for x, s, hh, ww, cc in zip(a.tolist(), size.tolist(), h, w, c)
    ]


def _label(buf: np.ndarray, rows: np.ndarray, spec: Caffe2Spec) -> Any:
    kind = _one_type(rows)
    if kind not in (FLOAT, INT32):
        return None
    got = _numbers(buf, rows, kind)
    assert got is not None
    values, counts = got
    if spec.label_type == 2:
        return _split(values, counts)
    if spec.label_type == 0:
        return values.reshape(-1, 1) if np.all(counts == 1) else None
    # 1: sparse indices, a multi-hot vector of the tensor's type
    if not np.all(np.isfinite(values)):
        return None
    indices = np.trunc(values).astype(np.int64) if kind == FLOAT else values.astype(np.int64)
    if np.any((indices < 0) | (indices >= spec.num_labels)):
        return None
    out = np.zeros((len(rows), spec.num_labels), dtype=values.dtype)
    out[np.repeat(np.arange(len(rows)), counts), indices] = 1
    return out


def decode(records: Sequence[Any], spec: Caffe2Spec) -> list[Any] | None:
    """The outputs of a batch of ``TensorProtos`` records (buffers), or None when the batch
    needs the Python path (no Numba, unusual encodings, an invalid record or one that does
    not give ``spec``'s outputs: the Python path raises the error that names it).

    Returns:
        Per output, a ``(B, ...)`` array or a list of per-sample arrays; images first (uint8).
    """
    scan = _scan_kernel()
    if scan is None or spec.label_type == 3 or not records:
        return None
    parts = [np.frombuffer(r, np.uint8) for r in records]
    lengths = np.fromiter((p.size for p in parts), np.int64, len(parts))
    buf = np.concatenate(parts)  # (a fresh, writable copy: the outputs are views of it)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    image = int(spec.image_available)
    label = 0 if spec.label_type == NO_LABEL else 1
    start = image + label + int(spec.sparse)
    end = start + spec.additional_inputs
    width = end + 1  # (and the box)
    table = np.empty((len(parts), width, _COLUMNS), np.int64)
    counts = np.empty(len(parts), np.int64)
    valid = np.zeros(16, np.bool_)
    valid[list(_VALID_TYPES)] = True
    if not scan(buf, starts, ends, table, counts, valid) or np.any(counts < end):
        return None
    out: list[Any] = []
    if image:
        images = _images(buf, table[:, 0])
        if images is None:
            return None
        out.append(images)
    if label:
        values = _label(buf, table[:, image], spec)
        if values is None:
            return None
        out.append(values)
    for j in range(start, end):
        kind = _one_type(table[:, j])
        got = None if kind is None else _numbers(buf, table[:, j], kind)
        if got is None:
            return None
        out.append(_split(*got))
    has_box = counts == end + 1
    if np.any(has_box):
        if not np.all(has_box) or not (spec.bbox or spec.sparse):
            return None
        rows = table[:, end]
        if _one_type(rows) != INT32:
            return None
        values, box_counts = _varints(buf, rows[:, _I32_A], rows[:, _I32_B])
        if np.any(box_counts != 4):
            return None
        out.append(values.astype(np.int32).reshape(-1, 4))
    elif spec.bbox or spec.sparse:
        return None
    return out
