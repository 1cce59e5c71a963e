"""Deterministic TFRecord files of ``tf.train.Example`` records, written without TensorFlow.

A ``tf.train.Example`` is a protobuf message; its wire format is small enough to write by hand
(`encode_example`): a map from feature name to one list of int64 (varints), float32 or bytes
values. Records are framed with their masked CRC-32C checksums (`frame`), so TensorFlow reads
the files too, and every function writes the same bytes on every run.

* `encode_example` / `write_tfrecord`: any records, for tests and edge cases; the encoding can be
  unpacked or split into several pieces (both legal protobuf), which real writers rarely do
  but parsers must accept.
* `make_imagenet_tfrecords`: an ImageNet-style set as TensorFlow's ``build_imagenet_data.py``
  writes it (``image/encoded`` JPEG bytes, ``image/class/label``, ``image/class/text``, the
  size, and bounding boxes as variable-length float lists), in several files with their DALI
  index files. Small images for tests, ImageNet-sized ones (the cached JPEGs of
  `dali._testing.images.make_imagenet_like`) for benchmarks. `imagenet_record` gives the
  features of record ``i`` for checks.

Example:
    >>> import tempfile, os
    >>> root = tempfile.mkdtemp()
    >>> path = os.path.join(root, "small.tfrecord")
    >>> write_tfrecord(path, [{"label": [3], "name": b"a"}, {"label": [4], "name": b"bc"}])
    [(0, 49), (49, 50)]
    >>> open(path + ".idx").read()
    '0 49\\n49 50\\n'
"""

from __future__ import annotations

import itertools
import json
import os
import struct
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dali._ops.readers.tfrecord.format import format_index, frame

__all__ = [
    "bytes_feature",
    "encode_example",
    "float_feature",
    "imagenet_record",
    "int64_feature",
    "make_imagenet_tfrecords",
    "write_tfrecord",
]

#: Bump when the generated content changes, so cached sets are rewritten.
_GENERATOR_VERSION = 1

# -- the protobuf wire format -----------------------------------------------------------------


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1  # negative int64 values take ten bytes (two's complement)
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


class _Feature:
    """One feature's values and their encoding (see `int64_feature` and its siblings)."""

    def __init__(self, kind: str, values: Any, packed: bool = True, pieces: int = 1) -> None:
        self.kind = kind
        self.values = values
        self.packed = packed
        self.pieces = pieces

    def encode(self) -> bytes:
        """The serialized ``Feature`` message (its ``oneof kind`` field)."""
        number = {"bytes": 1, "float": 2, "int64": 3}[self.kind]
        values = list(self.values)
        # several pieces: the list split into messages that a parser merges (concatenates)
        bounds = np.linspace(0, len(values), self.pieces + 1).astype(int).tolist()
        out = b""
        for lo, hi in itertools.pairwise(bounds):
            out += _field(number, self._encode_list(values[lo:hi]))
        return out

    def _encode_list(self, values: list[Any]) -> bytes:
        if self.kind == "bytes":
            return b"".join(
                _field(1, v.encode() if isinstance(v, str) else bytes(v)) for v in values
            )
        if self.kind == "float":
            raw = np.asarray(values, dtype="<f4").tobytes()
            if self.packed:
                return _field(1, raw) if values else b""
            return b"".join(b"\x0d" + raw[4 * i : 4 * i + 4] for i in range(len(values)))
        ints = [_varint(int(v)) for v in values]
        if self.packed:
            return _field(1, b"".join(ints)) if values else b""
        return b"".join(b"\x08" + v for v in ints)


def int64_feature(values: Iterable[int], *, packed: bool = True, pieces: int = 1) -> _Feature:
    """An ``Int64List`` feature; ``packed=False`` writes one field per value (legacy form)."""
    return _Feature("int64", [int(v) for v in values], packed, pieces)


def float_feature(values: Iterable[float], *, packed: bool = True, pieces: int = 1) -> _Feature:
    """A ``FloatList`` feature (float32 values); ``packed=False`` writes one field per value."""
    return _Feature("float", [float(v) for v in values], packed, pieces)


def bytes_feature(values: Iterable[bytes | str], *, pieces: int = 1) -> _Feature:
    """A ``BytesList`` feature (``str`` values are UTF-8 encoded)."""
    return _Feature("bytes", list(values), True, pieces)


def _as_feature(value: Any) -> _Feature | None:
    """A feature from a plain value: bytes/str (one value), or a list/array of int, float or
    bytes; None writes an empty ``Feature`` (no kind set)."""
    if value is None or isinstance(value, _Feature):
        return value
    if isinstance(value, (bytes, bytearray, str)):
        return bytes_feature([value if isinstance(value, str) else bytes(value)])
    arr = np.asarray(value) if not isinstance(value, (list, tuple)) else None
    if arr is not None and arr.dtype.kind in "iu":
        return int64_feature(arr.ravel().tolist())
    if arr is not None and arr.dtype.kind == "f":
        return float_feature(arr.ravel().tolist())
    items = list(value)
    if items and all(isinstance(v, (bytes, str)) for v in items):
        return bytes_feature(items)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        return int64_feature(items)  # (an empty list: an empty int64 list)
    return float_feature(items)


def encode_example(features: Mapping[str, Any], *, unknown_fields: bool = False) -> bytes:
    """A serialized ``tf.train.Example`` with ``features`` (name -> values), in their order.

    Values are `int64_feature`, `float_feature`, `bytes_feature`, None (an empty ``Feature``
    message) or plain values: ``bytes``/``str`` (one string), lists or arrays of ints
    (int64), floats (float32) or strings.

    Args:
        features: The features, by name.
        unknown_fields: Add fields that ``Example`` does not define (a parser must skip them:
            a varint, a fixed64, a fixed32 and a length-delimited field) in the ``Example``,
            ``Features`` and ``Feature`` messages.
    """
    extra = b""
    if unknown_fields:
        extra = _varint(7 << 3 | 0) + _varint(300) + _varint(8 << 3 | 1) + b"\x01" * 8
        extra += _varint(9 << 3 | 5) + b"\x02" * 4 + _field(10, b"unknown")
    entries = b""
    for name, value in features.items():
        feature = _as_feature(value)
        body = b"" if feature is None else feature.encode()
        # (not inside the map entry itself: protobuf parsers drop such an entry whole)
        entries += _field(1, _field(1, name.encode()) + _field(2, extra + body))
    return _field(1, entries + extra) + extra


def write_tfrecord(
    path: str | os.PathLike[str],
    examples: Iterable[Mapping[str, Any] | bytes],
    *,
    index_path: str | os.PathLike[str] | None = None,
    index: bool = True,
) -> list[tuple[int, int]]:
    """Write a TFRecord file of ``examples`` and, with ``index``, its DALI index file.

    Args:
        path: The file to write.
        examples: Feature mappings (`encode_example`) or already serialized records.
        index_path: Where the index goes (default: ``path + ".idx"``).
        index: Write the index file.

    Returns:
        Each record's ``(offset, size)``, as the index lists them.
    """
    spans: list[tuple[int, int]] = []
    offset = 0
    with open(path, "wb") as f:
        for example in examples:
            data = example if isinstance(example, bytes) else encode_example(example)
            record = frame(data)
            f.write(record)
            spans.append((offset, len(record)))
            offset += len(record)
    if index:
        idx = Path(index_path) if index_path is not None else Path(f"{os.fspath(path)}.idx")
        offsets = np.array([o for o, _ in spans], dtype=np.int64)
        sizes = np.array([s for _, s in spans], dtype=np.int64)
        idx.write_text(format_index(offsets, sizes))
    return spans


# -- an ImageNet-style set --------------------------------------------------------------------


def _small_jpeg(i: int, seed: int) -> tuple[bytes, int, int]:
    """A small photo-like JPEG (16..47 px a side) for record ``i``: ``(bytes, height, width)``."""
    import io

    from PIL import Image

    from dali._testing.images import photo

    rng = np.random.default_rng([seed, 7, i])
    h, w = 16 + int(rng.integers(0, 32)), 16 + int(rng.integers(0, 32))
    buf = io.BytesIO()
    Image.fromarray(photo(h, w, rng)).save(buf, "JPEG", quality=85)
    return buf.getvalue(), h, w


def imagenet_record(
    i: int, *, seed: int = 0, classes: int = 10, jpeg: tuple[bytes, int, int] | None = None
) -> dict[str, Any]:
    """The features of record ``i`` of `make_imagenet_tfrecords` (plain values, by name).

    Record ``i`` is of class ``k = i % classes`` and holds ``i % 4`` boxes (relative ``ltrb``
    coordinates in ``[0, 1]``, with labels ``k``); record 3 of every 10 has no
    ``image/class/text`` feature at all (a missing fixed-length feature).

    Args:
        i: The record.
        seed: The set's seed.
        classes: The set's number of classes.
        jpeg: The record's ``(JPEG bytes, height, width)``; default: the small image.
    """
    data, h, w = jpeg if jpeg is not None else _small_jpeg(i, seed)
    k = i % classes
    rng = np.random.default_rng([seed, 11, i])
    boxes = np.sort(rng.uniform(0, 1, size=(i % 4, 2, 2)), axis=1).astype(np.float32)
    record: dict[str, Any] = {
        "image/height": [h],
        "image/width": [w],
        "image/colorspace": b"RGB",
        "image/channels": [3],
        "image/class/label": [k],
        "image/class/synset": f"n{k:08d}".encode(),
        "image/class/text": f"class {k}".encode(),
        "image/object/bbox/xmin": float_feature(boxes[:, 0, 0].tolist()),
        "image/object/bbox/ymin": float_feature(boxes[:, 0, 1].tolist()),
        "image/object/bbox/xmax": float_feature(boxes[:, 1, 0].tolist()),
        "image/object/bbox/ymax": float_feature(boxes[:, 1, 1].tolist()),
        "image/object/bbox/label": int64_feature([k] * (i % 4)),
        "image/format": b"JPEG",
        "image/filename": f"n{k:08d}_{i:06d}.JPEG".encode(),
        "image/encoded": data,
    }
    if i % 10 == 3:
        del record["image/class/text"]
    return record


def make_imagenet_tfrecords(
    root: str | os.PathLike[str],
    n: int = 32,
    files: int = 2,
    *,
    seed: int = 0,
    classes: int = 10,
    imagenet_size: bool = False,
    processes: int | None = None,
) -> tuple[list[Path], list[Path]]:
    """Write ``n`` ImageNet-style records in ``files`` TFRecord files, with DALI index files.

    Files are ``<root>/train-<j:05d>-of-<files:05d>`` (the records in order, split into
    near-equal contiguous parts, the larger ones first) and their indexes ``<root>/idx/train-<j:05d>-of-<files:05d>.idx``. A manifest
    records the parameters; calling again with the same ones returns at once.

    Args:
        root: The folder to fill.
        n: Number of records.
        files: Number of TFRecord files.
        seed: Seed of the content.
        classes: Number of classes.
        imagenet_size: ImageNet-sized JPEGs (300–500 px; the cached set of
            `dali._testing.images.make_imagenet_like` under ``<root>/jpeg``), for benchmarks;
            otherwise small images (16–47 px), for tests.
        processes: Worker processes for the ImageNet-sized JPEGs.

    Returns:
        ``(tfrecord paths, index paths)``.
    """
    if not 1 <= files <= n:
        raise ValueError(f"need 1 <= files <= n, got files={files}, n={n}")
    root = Path(root)
    names = [f"train-{j:05d}-of-{files:05d}" for j in range(files)]
    paths = [root / name for name in names]
    indexes = [root / "idx" / f"{name}.idx" for name in names]
    manifest = root / "manifest.json"
    params = {
        "n": n,
        "files": files,
        "seed": seed,
        "classes": classes,
        "imagenet_size": imagenet_size,
        "version": _GENERATOR_VERSION,
    }
    cached = manifest.exists() and json.loads(manifest.read_text()) == params
    if cached and all(p.exists() for p in (*paths, *indexes)):
        return paths, indexes
    (root / "idx").mkdir(parents=True, exist_ok=True)
    jpegs: Sequence[Path] | None = None
    if imagenet_size:
        from dali._testing.images import make_imagenet_like

        jpegs = make_imagenet_like(root / "jpeg", n, seed, classes=classes, processes=processes)

    def record(i: int) -> dict[str, Any]:
        if jpegs is None:
            return imagenet_record(i, seed=seed, classes=classes)
        data = jpegs[i].read_bytes()
        h, w = _jpeg_size(data)
        return imagenet_record(i, seed=seed, classes=classes, jpeg=(data, h, w))

    for j, (path, index) in enumerate(zip(paths, indexes)):
        lo, hi = -(-j * n // files), -(-(j + 1) * n // files)
        write_tfrecord(path, (record(i) for i in range(lo, hi)), index_path=index)
    manifest.write_text(json.dumps(params))
    return paths, indexes


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """``(height, width)`` from a baseline or progressive JPEG's start-of-frame marker."""
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            raise ValueError("not a JPEG marker")
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return h, w
        pos += 2 + length
    raise ValueError("no start-of-frame marker")
