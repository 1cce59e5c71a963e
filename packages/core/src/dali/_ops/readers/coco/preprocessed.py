"""DALI's preprocessed COCO annotations: a folder of binary tables, written and read byte for byte.

`readers.coco(save_preprocessed_annotations=True, save_preprocessed_annotations_dir=d)`
saves the parsed annotations (`CocoAnnotations`) so that a later reader can start from them
(``preprocessed_annotations=d``) without parsing a large JSON file again. The format is DALI
2.4's own, so folders written by either library are read by both:

* each table ``<name>.dat`` is a little-endian ``uint32`` count of DALI's vector items (floats
  for the boxes, pairs for the vertices, triples for the polygons) followed by the raw
  elements (int32 ``offsets``/``labels``/``counts``/``heights``/``widths``/``original_ids``/
  ``masks_rles_idx``, float32 ``boxes`` (4 per box) and ``vertices`` (2 per vertex), int32
  triples ``polygon_data``, int64 ``*_offset``/``*_count``);
* ``masks_rles.dat``: the count, then per RLE its ``h, w, m`` as uint64 and ``m`` uint32
  counts;
* ``filenames.dat``: one image file name per line (read back split on whitespace, as DALI does:
  a name with a space cannot be saved, and saving one is refused here).

Which tables are written follows DALI: always the boxes, labels, offsets, counts and file
names; the polygon and vertex tables with ``polygon_masks`` or ``pixelwise_masks``; the RLE
tables, heights and widths with ``pixelwise_masks``; ``original_ids`` with ``image_ids``.
**An empty table is not written at all**, and a missing one reads as empty (so a stale file
from an earlier save into the same folder is read back: DALI's behaviour, kept).

Reading goes through `_storage` (local folders and fsspec URLs); writing too (`write_bytes`,
which `_storage` does not have: local files, or the readers' fsspec filesystem for URLs).

Example:
    >>> import tempfile
    >>> from dali._ops.readers.coco.annotations import CocoOptions, parse_coco
    >>> ann = parse_coco('{"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": '
    ...                  '[{"image_id": 1, "category_id": 5, "bbox": [1, 2, 3, 4]}]}',
    ...                  CocoOptions(avoid_class_remapping=True))
    >>> folder = tempfile.mkdtemp()
    >>> save(ann, folder, polygons=False, masks=False, image_ids=False)
    >>> back = load(folder, polygons=False, masks=False, image_ids=False)
    >>> back.filenames, back.sample_boxes(0).tolist(), back.sample_labels(0).tolist()
    (['a.jpg'], [[1.0, 2.0, 3.0, 4.0]], [5])
"""

from __future__ import annotations

import struct

import numpy as np

from dali._ops.readers.coco.annotations import CocoAnnotations, CocoError
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage import remote as _remote

__all__ = ["load", "save", "write_bytes"]

#: table file -> (attribute of CocoAnnotations, element dtype, elements per row, elements per
#: counted item: DALI counts the items of its vector: floats for boxes, vec2 for vertices)
_PLAIN = {
    "offsets.dat": ("offsets", "<i4", 1, 1),
    "boxes.dat": ("boxes", "<f4", 4, 1),
    "labels.dat": ("labels", "<i4", 1, 1),
    "counts.dat": ("counts", "<i4", 1, 1),
}
_POLYGONS = {
    "polygon_data.dat": ("polygons", "<i4", 3, 3),
    "polygon_offset.dat": ("polygon_offset", "<i8", 1, 1),
    "polygons_count.dat": ("polygon_count", "<i8", 1, 1),
    "vertices.dat": ("vertices", "<f4", 2, 2),
    "vertices_offset.dat": ("vertices_offset", "<i8", 1, 1),
    "vertices_count.dat": ("vertices_count", "<i8", 1, 1),
}
_MASKS = {
    "masks_rles_idx.dat": ("rle_objects", "<i4", 1, 1),
    "masks_offset.dat": ("mask_offsets", "<i8", 1, 1),
    "mask_count.dat": ("mask_counts", "<i8", 1, 1),
    "heights.dat": ("heights", "<i4", 1, 1),
    "widths.dat": ("widths", "<i4", 1, 1),
}
_IDS = {"original_ids.dat": ("original_ids", "<i4", 1, 1)}


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to a local file or an fsspec URL (`OSError` when it cannot)."""
    if not _storage.is_url(path):
        with open(path.removeprefix("file://"), "wb") as f:
            f.write(data)
        return
    fs, key = _remote.filesystem(path)  # the readers' own (cached) filesystem of the URL
    fs.pipe_file(key, data)


def _table(array: np.ndarray, dtype: str, counted: int) -> bytes:
    flat = np.ascontiguousarray(array, dtype=dtype).reshape(-1)
    return struct.pack("<I", flat.size // counted) + flat.tobytes()


def save(
    ann: CocoAnnotations, folder: str, *, polygons: bool, masks: bool, image_ids: bool
) -> None:
    """Write ``ann`` into ``folder`` (which must exist) as DALI does (module docstring).

    Raises:
        OSError: A file cannot be written (the message names it).
        CocoError: A file name holds whitespace (the format cannot hold it).
    """
    tables = dict(_PLAIN)
    if polygons or masks:
        tables.update(_POLYGONS)
    if masks:
        tables.update(_MASKS)
    if image_ids:
        tables.update(_IDS)
    for name, (attr, dtype, _, counted) in tables.items():
        array = getattr(ann, attr)
        if len(array):
            write_bytes(_storage.join(folder, name), _table(array, dtype, counted))
    if masks and ann.rles:
        parts = [struct.pack("<I", len(ann.rles))]
        for counts, (h, w) in zip(ann.rles, ann.rle_sizes):
            parts.append(struct.pack("<QQQ", h, w, len(counts)))
            parts.append(np.ascontiguousarray(counts, dtype="<u4").tobytes())
        write_bytes(_storage.join(folder, "masks_rles.dat"), b"".join(parts))
    if ann.filenames:
        encoded = [f.encode("utf-8", "surrogateescape") for f in ann.filenames]
        bad = [f for f, b in zip(ann.filenames, encoded) if b.split() != [b]]
        if bad:
            raise CocoError(
                f"cannot save the image file name {bad[0]!r}: DALI's filenames.dat is read back "
                "split on whitespace"
            )
        write_bytes(_storage.join(folder, "filenames.dat"), b"".join(b + b"\n" for b in encoded))


def _read(folder: str, name: str) -> bytes | None:
    path = _storage.join(folder, name)
    if not _storage.exists(path):
        return None  # DALI: a missing table is empty
    return _storage.read_bytes(path, use_mmap=False).tobytes()


def _parse_table(data: bytes, name: str, dtype: str, per: int, counted: int) -> np.ndarray:
    if len(data) < 4:
        raise CocoError(f"'{name}' is too short for its element count ({len(data)} bytes)")
    (n,) = struct.unpack_from("<I", data)
    item = np.dtype(dtype).itemsize * counted
    if len(data) < 4 + n * item:
        raise CocoError(
            f"'{name}' holds {len(data) - 4} bytes after its count, {n} entries need {n * item}"
        )
    if (n * counted) % per:
        raise CocoError(f"'{name}' holds {n * counted} values, not rows of {per}")
    out = np.frombuffer(data, dtype=dtype, count=n * counted, offset=4).copy()
    return out.reshape(-1, per) if per > 1 else out


def _parse_rles(data: bytes) -> tuple[list[np.ndarray], list[tuple[int, int]]]:
    name = "masks_rles.dat"
    if len(data) < 4:
        raise CocoError(f"'{name}' is too short for its element count")
    (n,) = struct.unpack_from("<I", data)
    pos, rles, sizes = 4, [], []
    for k in range(n):
        if pos + 24 > len(data):
            raise CocoError(f"'{name}' ends inside RLE {k} of {n} (at byte {pos})")
        h, w, m = struct.unpack_from("<QQQ", data, pos)
        pos += 24
        if pos + 4 * m > len(data):
            raise CocoError(f"'{name}' ends inside the counts of RLE {k} of {n} (at byte {pos})")
        rles.append(np.frombuffer(data, dtype="<u4", count=m, offset=pos).astype(np.uint32))
        sizes.append((int(h), int(w)))
        pos += 4 * m
    return rles, sizes


def load(folder: str, *, polygons: bool, masks: bool, image_ids: bool) -> CocoAnnotations:
    """Read the tables that the outputs need from ``folder`` (module docstring).

    Raises:
        CocoError: A table is truncated or does not cover every image.
        OSError: A table cannot be read.
    """
    tables = dict(_PLAIN)
    if polygons or masks:
        tables.update(_POLYGONS)
    if masks:
        tables.update(_MASKS)
    if image_ids:
        tables.update(_IDS)
    names = _read(folder, "filenames.dat")
    filenames = (
        [] if names is None else [n.decode("utf-8", "surrogateescape") for n in names.split()]
    )
    ann = CocoAnnotations(
        filenames=filenames,
        offsets=np.zeros(0, np.int32),
        counts=np.zeros(0, np.int32),
        boxes=np.zeros((0, 4), np.float32),
        labels=np.zeros(0, np.int32),
    )
    for name, (attr, dtype, per, counted) in tables.items():
        data = _read(folder, name)
        if data is not None:
            table = _parse_table(data, name, dtype, per, counted)
            setattr(ann, attr, table.astype(dtype[1:]))
    if masks:
        data = _read(folder, "masks_rles.dat")
        if data is not None:
            ann.rles, ann.rle_sizes = _parse_rles(data)
    try:
        ann.check(polygons=polygons, masks=masks, image_ids=image_ids)
    except CocoError as e:
        why = " (saved without `image_ids`?)" if image_ids and not len(ann.original_ids) else ""
        raise CocoError(f"{e}{why}") from None
    return ann
