"""Deterministic Caffe and Caffe2 LMDB databases, written without Caffe, Caffe2 or protobuf.

Caffe's ``convert_imageset`` and Caffe2's ``make_image_db`` store one protobuf record per image
in an LMDB database (a directory holding ``data.mdb``), keyed by a string; readers go through
the records in key order. The two messages are small enough to write by hand:

* Caffe, ``Datum``: the image bytes (``data``; encoded JPEG/PNG, or raw HWC pixels with
  ``encoded=False`` and ``channels``/``height``/``width``) and an ``int32`` ``label``
  (`encode_datum`).
* Caffe2, ``TensorProtos``: a list of ``TensorProto`` tensors: the image (``STRING`` of encoded
  bytes, or ``BYTE`` raw pixels with ``dims`` ``[H, W(, C)]``), the label tensor(s), any
  additional tensors and a bounding box (`encode_tensor`, `encode_tensor_protos`).

`write_lmdb` writes any records (with the ``lmdb`` package); `make_caffe_lmdb` and
`make_caffe2_lmdb` write whole databases of small photo-like JPEGs (or raw images) with their
labels, and `caffe_sample` / `caffe2_sample` give what ``fn.readers.caffe`` / ``caffe2`` return
for a record, for checks. The same databases are read by NVIDIA DALI 2.4 identically (the
conformance cases compare them), which is what validates this writer.

Caffe2 records are laid out as DALI 2.4's parser reads them (`Caffe2Layout`): ``[image]``,
the label, then with sparse labels (``label_type`` 1 and 3) one more tensor (the weights of
type 3; type 1 skips it), the ``additional_inputs`` tensors, and a last ``INT32`` tensor of 4
values (the box) when ``bbox`` is set, and always with sparse labels: DALI 2.4 declares one
output more for them, which its parser fills with the record's last tensor.

The ``odd`` encodings (``odd=True``) are legal but unusual protobuf, which real writers rarely
produce and parsers must accept: unknown fields of every wire type (a group too), numbers
packed and unpacked, optional fields written twice (the last wins), a known field number with
another wire type (an unknown field), an enum value ``DataType`` does not list.

Example:
    >>> import tempfile
    >>> path = make_caffe_lmdb(tempfile.mkdtemp(), n=4)
    >>> image, label = caffe_sample(2)
    >>> image.dtype, image.ndim, label.tolist()
    (dtype('uint8'), 1, [2])
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "BYTE",
    "FLOAT",
    "INT32",
    "INT64",
    "STRING",
    "Caffe2Layout",
    "caffe2_sample",
    "caffe_key",
    "caffe_sample",
    "encode_caffe2_sample",
    "encode_caffe_sample",
    "encode_datum",
    "encode_tensor",
    "encode_tensor_protos",
    "make_caffe2_lmdb",
    "make_caffe_lmdb",
    "write_lmdb",
]

#: Bump when the generated content changes, so cached databases are rewritten.
_GENERATOR_VERSION = 1

#: ``caffe2.TensorProto.DataType`` values used here
FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10

# -- the protobuf wire format -------------------------------------------------------------------


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1  # negative values take ten bytes (two's complement)
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _tag(number, 2) + _varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    """A varint field (wire type 0)."""
    return _tag(number, 0) + _varint(int(value))


def _unknown(first: int) -> bytes:
    """Fields of numbers ``first..first+4`` that the messages do not define, one per wire
    type: a varint, a fixed64, a length-delimited value, a group (holding a field), a fixed32."""
    return (
        _int_field(first, 300)
        + _tag(first + 1, 1)
        + b"\x01" * 8
        + _field(first + 2, b"unknown")
        + _tag(first + 3, 3)
        + _int_field(1, 5)
        + _tag(first + 3, 4)
        + _tag(first + 4, 5)
        + b"\x02" * 4
    )


def encode_datum(
    *,
    data: bytes | None = None,
    label: int | None = None,
    channels: int | None = None,
    height: int | None = None,
    width: int | None = None,
    encoded: bool | None = None,
    float_data: Sequence[float] = (),
    odd: bool = False,
) -> bytes:
    """A serialized ``caffe.Datum``; a field left None is not written.

    Args:
        data: The image bytes (encoded, or raw HWC pixels).
        label: The label (int32).
        channels, height, width: The raw image's shape.
        encoded: Whether ``data`` is encoded (absent: DALI treats it as encoded).
        float_data: Float values (Caffe's alternative to ``data``; DALI ignores them).
        odd: Write the legal but unusual encodings (module docstring).
    """
    out = b""
    if odd:  # decoys that the later fields replace, and unknown fields
        out += _int_field(5, 12345) + _field(4, b"decoy") + _unknown(20)
        out += _tag(5, 5) + b"\x03" * 4  # `label` as a fixed32: an unknown field
    for number, value in ((1, channels), (2, height), (3, width)):
        if value is not None:
            out += _int_field(number, value)
    if float_data:
        raw = np.asarray(float_data, dtype="<f4").tobytes()
        if odd:
            out += b"".join(_tag(6, 5) + raw[k : k + 4] for k in range(0, len(raw), 4))
        else:
            out += _field(6, raw)
    if data is not None:
        out += _field(4, bytes(data))
    if label is not None:
        out += _int_field(5, label)
    if encoded is not None:
        out += _int_field(7, int(encoded))
    if odd:
        out += _unknown(30)
    return out


def _packed(number: int, values: Sequence[int], packed: bool) -> bytes:
    if packed:
        return _field(number, b"".join(_varint(int(v)) for v in values)) if len(values) else b""
    return b"".join(_int_field(number, int(v)) for v in values)


def encode_tensor(
    value: Any = None,
    *,
    data_type: int | str | None = "auto",
    dims: Sequence[int] | None = None,
    float_data: Sequence[float] | None = None,
    int32_data: Sequence[int] | None = None,
    int64_data: Sequence[int] | None = None,
    byte_data: bytes | None = None,
    string_data: Sequence[bytes] | None = None,
    name: str | None = None,
    odd: bool = False,
) -> bytes:
    """A serialized ``caffe2.TensorProto``.

    ``value`` fills the usual fields from a Python value: ``bytes`` a ``STRING`` tensor of one
    string (an encoded image), a uint8 array of 2 or 3 dimensions a ``BYTE`` tensor with its
    ``dims`` (raw pixels), a float array or list a ``FLOAT`` tensor, an int64 array an
    ``INT64`` tensor, other ints an ``INT32`` tensor. The keyword fields are written as given
    (after ``value``'s).

    Args:
        value: See above.
        data_type: The ``data_type`` field; ``"auto"``: ``value``'s, None: not written (the
            field's default, ``FLOAT``).
        dims, float_data, int32_data, int64_data, byte_data, string_data, name: The fields.
        odd: Legal but unusual encodings: numbers unpacked and split, unknown fields, the
            ``data_type`` written twice (an unknown enum value first).
    """
    inferred: int | None = None
    if value is not None:
        if isinstance(value, (bytes, bytearray)):
            inferred, string_data = STRING, [bytes(value), *(string_data or ())]
        else:
            arr = np.asarray(value)
            if arr.dtype == np.uint8 and arr.ndim in (2, 3):
                inferred, byte_data = BYTE, arr.tobytes()
                dims = list(arr.shape) if dims is None else dims
            elif arr.dtype.kind == "f":
                inferred, float_data = FLOAT, arr.ravel().tolist()
            elif arr.dtype == np.int64 and not isinstance(value, (list, tuple)):
                inferred, int64_data = INT64, arr.ravel().tolist()
            else:
                inferred, int32_data = INT32, arr.ravel().astype(np.int64).tolist()
    dtype = inferred if data_type == "auto" else data_type
    out = b""
    if odd:
        out += _unknown(20) + _int_field(2, 11)  # 11: not a DataType (ignored)
    if dims is not None:
        out += _packed(1, list(dims), packed=not odd)
    if dtype is not None:
        out += _int_field(2, int(dtype))
    if float_data is not None and len(float_data):
        raw = np.asarray(float_data, dtype="<f4").tobytes()
        if odd:  # one unpacked value, then the rest packed
            out += _tag(3, 5) + raw[:4] + (_field(3, raw[4:]) if len(raw) > 4 else b"")
        else:
            out += _field(3, raw)
    for number, values in ((4, int32_data), (10, int64_data)):
        if values is not None and len(values):
            if odd:  # the first value unpacked, the rest packed
                out += _int_field(number, int(values[0])) + _packed(number, values[1:], True)
            else:
                out += _packed(number, values, True)
    if byte_data is not None:
        if odd:
            out += _field(5, b"decoy")  # (replaced by the next one)
        out += _field(5, bytes(byte_data))
    for s in string_data or ():
        out += _field(6, bytes(s))
    if name is not None:
        out += _field(7, name.encode())
    if odd:
        out += _field(11, _int_field(1, 0) + _int_field(2, 4)) + _unknown(40)
    return out


def encode_tensor_protos(tensors: Iterable[bytes], *, odd: bool = False) -> bytes:
    """A serialized ``caffe2.TensorProtos`` of serialized ``TensorProto`` messages."""
    out = _unknown(20) if odd else b""
    return out + b"".join(_field(1, t) for t in tensors)


# -- writing a database ---------------------------------------------------------------------------


def _lmdb() -> Any:
    try:
        import lmdb
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("dali._testing.lmdb_data needs the lmdb package: pip install lmdb") from e
    return lmdb


def write_lmdb(
    path: str | os.PathLike[str],
    records: Mapping[str | bytes, bytes] | Iterable[tuple[str | bytes, bytes]],
) -> Path:
    """Write ``records`` (key -> value; ``str`` keys are UTF-8) as a new LMDB database.

    ``path`` becomes a directory holding ``data.mdb`` and ``lock.mdb`` (what ``lmdb.open``
    and Caffe write); an existing one is replaced. Readers see the records in key order
    (bytewise), whatever the order they were written in.

    Returns:
        ``path``.
    """
    lmdb = _lmdb()
    items = list(records.items() if isinstance(records, Mapping) else records)
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    # every value may take its own overflow pages, and the tree's pages besides
    size = 2 * sum(len(v) + len(k) + 4096 for k, v in items) + (2 << 20)
    env = lmdb.open(str(path), map_size=size, subdir=True)
    try:
        with env.begin(write=True) as txn:
            for key, value in items:
                txn.put(key.encode() if isinstance(key, str) else bytes(key), bytes(value))
    finally:
        env.close()
    return path


def _cached(root: Path, params: dict[str, Any]) -> bool:
    manifest = root / "manifest.json"
    return (
        manifest.exists()
        and json.loads(manifest.read_text()) == params
        and (root / "data.mdb").exists()
    )


# -- the content ----------------------------------------------------------------------------------


def _small_photo(i: int, seed: int) -> np.ndarray:
    """Record ``i``'s small photo-like picture (8..23 px a side, RGB)."""
    from dali._testing.images import photo

    rng = np.random.default_rng([seed, 5, i])
    h, w = 8 + int(rng.integers(0, 16)), 8 + int(rng.integers(0, 16))
    return photo(h, w, rng)


def _jpeg(pixels: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "JPEG", quality=85)
    return buf.getvalue()


def caffe_key(i: int) -> str:
    """Record ``i``'s key in `make_caffe_lmdb`'s databases (``convert_imageset``'s form)."""
    return f"{i:08d}_img{i:05d}.jpg"


def caffe_sample(
    i: int, *, seed: int = 0, classes: int = 10, raw: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """What ``fn.readers.caffe`` returns for record ``i`` of `make_caffe_lmdb` (small images):
    the image (1-D JPEG bytes, or raw ``(H, W, 3)`` pixels with ``raw``) and the label
    (int32, shape ``(1,)``, ``i % classes``)."""
    pixels = _small_photo(i, seed)
    image = pixels if raw else np.frombuffer(_jpeg(pixels), np.uint8)
    return image, np.array([i % classes], dtype=np.int32)


def encode_caffe_sample(
    i: int, *, seed: int = 0, classes: int = 10, raw: bool = False, odd: bool = False
) -> bytes:
    """The ``Datum`` record ``i`` of `make_caffe_lmdb` (see `caffe_sample`)."""
    image, label = caffe_sample(i, seed=seed, classes=classes, raw=raw)
    if raw:
        h, w, c = image.shape
        return encode_datum(
            data=image.tobytes(),
            label=int(label[0]),
            channels=c,
            height=h,
            width=w,
            encoded=False,
            odd=odd,
        )
    # Caffe's convert_imageset --encoded writes `encoded: true`; records without the field
    # are read as encoded too (every third record here)
    return encode_datum(
        data=image.tobytes(), label=int(label[0]), encoded=True if i % 3 else None, odd=odd
    )


def make_caffe_lmdb(
    root: str | os.PathLike[str],
    n: int = 32,
    *,
    seed: int = 0,
    classes: int = 10,
    raw: bool = False,
    odd: bool = False,
    imagenet_size: bool = False,
    processes: int | None = None,
) -> Path:
    """Write a Caffe LMDB of ``n`` records (`encode_caffe_sample`) at ``root``, keys
    `caffe_key` (written in reverse: the database sorts them). A manifest records the
    parameters; calling again with the same ones returns at once.

    Args:
        root: The database directory.
        n: Number of records.
        seed: Seed of the content.
        classes: Labels are ``i % classes``.
        raw: Raw HWC pixels (``encoded=False``) instead of JPEGs.
        odd: The legal but unusual encodings (module docstring).
        imagenet_size: ImageNet-sized JPEGs (the cached set of
            `dali._testing.images.make_imagenet_like` under ``<root>.jpeg``; 80-110 KB), for
            benchmarks; otherwise small ones (8-23 px), for tests.
        processes: Worker processes for the ImageNet-sized JPEGs.

    Returns:
        ``root``.
    """
    root = Path(root)
    params = {"kind": "caffe", "n": n, "seed": seed, "classes": classes, "raw": raw, "odd": odd}
    params.update(imagenet_size=imagenet_size, version=_GENERATOR_VERSION)
    if _cached(root, params):
        return root
    if imagenet_size:
        from dali._testing.images import make_imagenet_like

        jpegs = make_imagenet_like(f"{root}.jpeg", n, seed, classes=classes, processes=processes)
        records = [
            (caffe_key(i), encode_datum(data=jpegs[i].read_bytes(), label=i % classes))
            for i in reversed(range(n))
        ]
    else:
        records = [
            (caffe_key(i), encode_caffe_sample(i, seed=seed, classes=classes, raw=raw, odd=odd))
            for i in reversed(range(n))
        ]
    write_lmdb(root, records)
    (root / "manifest.json").write_text(json.dumps(params))
    return root


@dataclass(frozen=True)
class Caffe2Layout:
    """What a Caffe2 database holds, and so how ``fn.readers.caffe2`` is called to read it.

    Attributes:
        label_type: 0 a single label, 1 sparse label indices (multi-hot output), 2 a dense
            label vector, 3 sparse indices with weights, 4 no label.
        num_labels: Classes (the multi-hot length of types 1 and 3; the dense vector's length).
        additional_inputs: Extra tensors per record (FLOAT, INT32, INT64 in turn, of 1-5
            values).
        bbox: A box tensor (4 int32 values) ends every record.
        image: ``"encoded"`` (a ``STRING`` tensor of JPEG bytes), ``"raw"`` (a ``BYTE`` tensor
            of HWC pixels), ``"gray"`` (``BYTE`` with 2 dims: read as ``(H, W, 1)``) or None
            (no image tensor).
        label_dtype: ``"int32"`` or ``"float"`` label tensors.
    """

    label_type: int = 0
    num_labels: int = 10
    additional_inputs: int = 0
    bbox: bool = False
    image: str | None = "encoded"
    label_dtype: str = "int32"

    @property
    def sparse(self) -> bool:
        return self.label_type in (1, 3)

    def reader_args(self) -> dict[str, Any]:
        """The arguments of ``fn.readers.caffe2`` that read this layout."""
        return {
            "image_available": self.image is not None,
            "label_type": self.label_type,
            "num_labels": self.num_labels,
            "additional_inputs": self.additional_inputs,
            # (sparse labels: DALI 2.4 returns the box in its second label output)
            "bbox": self.bbox and not self.sparse,
        }

    def writes_box(self) -> bool:
        return self.bbox or self.sparse


def _label_values(i: int, layout: Caffe2Layout, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Record ``i``'s label tensor values and (type 3) weights, as written."""
    rng = np.random.default_rng([seed, 9, i])
    k = layout.num_labels
    dtype = np.float32 if layout.label_dtype == "float" else np.int32
    weights = np.empty(0, np.float32)
    if layout.label_type == 0:
        values = np.array([i % k], dtype=dtype)
    elif layout.label_type == 2:
        values = rng.integers(-5, 6, k).astype(dtype)
        if dtype == np.float32:
            values = values * np.float32(0.25)
    elif layout.sparse:
        count = 1 + i % min(3, k)
        values = np.sort(rng.choice(k, size=count, replace=False)).astype(dtype)
        weights = rng.uniform(0, 1, count).astype(np.float32)
    else:
        values = np.empty(0, dtype)
    return values, weights


def _additional(i: int, j: int) -> np.ndarray:
    """Additional tensor ``j`` of record ``i`` (FLOAT, INT32, INT64 in turn)."""
    count = 1 + (i + j) % 5
    base = np.arange(count) + 10 * i + 100 * j
    kind = j % 3
    if kind == 0:
        return (base * 0.5 - 3).astype(np.float32)
    if kind == 1:
        return (base - 40).astype(np.int32)
    return (base + 2**40).astype(np.int64)


def _box(i: int) -> np.ndarray:
    return np.array([i, 2 * i, i + 10, 2 * i + 20], dtype=np.int32)


def _caffe2_image(i: int, layout: Caffe2Layout, seed: int) -> np.ndarray:
    pixels = _small_photo(i, seed)
    if layout.image == "raw":
        return pixels
    if layout.image == "gray":
        gray: np.ndarray = pixels[:, :, 0].copy()
        return gray
    return np.frombuffer(_jpeg(pixels), np.uint8)


def caffe2_sample(i: int, layout: Caffe2Layout, *, seed: int = 0) -> list[np.ndarray]:
    """What ``fn.readers.caffe2(**layout.reader_args())`` returns for record ``i`` of
    `make_caffe2_lmdb`: ``[image], [label], *additional, [box]``."""
    out = []
    if layout.image is not None:
        image = _caffe2_image(i, layout, seed)
        out.append(image[:, :, None] if image.ndim == 2 else image)
    values, weights = _label_values(i, layout, seed)
    if layout.label_type in (0, 2):
        out.append(values)
    elif layout.sparse:
        dtype = np.float32 if layout.label_type == 3 else values.dtype
        label = np.zeros(layout.num_labels, dtype=dtype)
        label[values.astype(np.int64)] = weights if layout.label_type == 3 else 1
        out.append(label)
    out += [_additional(i, j) for j in range(layout.additional_inputs)]
    if layout.writes_box():
        out.append(_box(i))
    return out


def encode_caffe2_sample(
    i: int, layout: Caffe2Layout, *, seed: int = 0, odd: bool = False
) -> bytes:
    """The ``TensorProtos`` record ``i`` of `make_caffe2_lmdb` (module docstring: the layout)."""
    tensors = []
    if layout.image is not None:
        image = _caffe2_image(i, layout, seed)
        value = image.tobytes() if layout.image == "encoded" else image
        tensors.append(encode_tensor(value, odd=odd))
    values, weights = _label_values(i, layout, seed)
    if layout.label_type != 4:
        tensors.append(encode_tensor(values, odd=odd))
    if layout.label_type == 3:
        tensors.append(encode_tensor(weights, odd=odd))
    elif layout.label_type == 1:  # skipped by DALI's parser
        tensors.append(encode_tensor(np.array([-1.0], np.float32), name="unused", odd=odd))
    tensors += [encode_tensor(_additional(i, j), odd=odd) for j in range(layout.additional_inputs)]
    if layout.writes_box():
        tensors.append(encode_tensor(_box(i), odd=odd))
    return encode_tensor_protos(tensors, odd=odd)


def make_caffe2_lmdb(
    root: str | os.PathLike[str],
    n: int = 32,
    layout: Caffe2Layout | None = None,
    *,
    seed: int = 0,
    odd: bool = False,
) -> Path:
    """Write a Caffe2 LMDB of ``n`` records (`encode_caffe2_sample`) at ``root``, keys
    ``"{i:06d}"``. A manifest records the parameters; calling again with the same ones returns
    at once.

    Returns:
        ``root``.
    """
    layout = Caffe2Layout() if layout is None else layout
    root = Path(root)
    params = {"kind": "caffe2", "n": n, "seed": seed, "odd": odd, **asdict(layout)}
    params["version"] = _GENERATOR_VERSION
    if _cached(root, params):
        return root
    write_lmdb(
        root,
        [(f"{i:06d}", encode_caffe2_sample(i, layout, seed=seed, odd=odd)) for i in range(n)],
    )
    (root / "manifest.json").write_text(json.dumps(params))
    return root
