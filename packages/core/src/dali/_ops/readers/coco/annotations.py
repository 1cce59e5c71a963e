"""A COCO annotations file turned into `readers.coco`'s samples, as DALI 2.4 does it.

A COCO ``instances_*.json`` holds three lists: ``images`` (``id``, ``file_name``, ``width``,
``height``), ``categories`` (``id``, ``name``) and ``annotations`` (``image_id``,
``category_id``, ``bbox`` as ``[x, y, w, h]`` in pixels, ``iscrowd``, ``segmentation`` as
polygons or an RLE). `parse_coco` reads it with DALI's rules (its ``CocoLoader``):

* **Samples** are the images in increasing ``id`` order (a stable sort here, where DALI's is
  not), or, with ``images=[...]``, the named files in that order, duplicates repeated and
  names the file does not list skipped; with ``skip_empty`` an image left with no object is
  dropped.
* **Objects** keep the file's order. One is dropped when its box is narrower or lower than
  ``size_threshold`` (compared in float32, before ``ltrb``) or, without ``include_iscrowd``,
  when ``iscrowd`` is not 0.
* **Labels** are 1..N in the order of the ``categories`` list (not sorted by id; a repeated id
  keeps its first place but still uses up a number), 0 for an id the list lacks; with
  ``avoid_class_remapping`` the category ids themselves.
* **Boxes** are float32 ``[x, y, w, h]``, or ``[l, t, r, b]`` with ``ltrb`` (``r = x + w`` in
  float32), divided by the image's width and height with ``ratio`` (float32). Polygon vertices
  are divided the same way.
* **Segmentations** are read only when masks are asked for: polygons always, RLEs (a
  ``{"size": [h, w], "counts": ...}`` object) only for ``pixelwise_masks``.

The result, `CocoAnnotations`, is flat arrays in the layout of DALI's loader (per-sample offsets
and counts into shared box, label, polygon, vertex and RLE tables), which is also the layout of
DALI's preprocessed-annotation files (`_coco_preprocessed`).

Where DALI reads uninitialised memory or crashes (an entry without ``id``, ``image_id``,
``category_id`` or ``bbox``, a ``bbox`` of other than 4 numbers, an odd number of polygon
coordinates, a ``width``/``height`` missing where ``ratio`` or masks need it, an RLE of another
size than its image), this raises `CocoError` naming the entry instead.

The polygons are most of the file (~80 % of its bytes), and a Python float per coordinate
made of them was most of the parse; the annotation objects, a Python dict each, most of the
rest. So where Numba is installed, a compiled scanner reads the whole ``annotations`` list
from the text into columns (`annotations_text`) and only the rest, an integer standing for
the list, is parsed as JSON (`_parse_scanned`). Where it is not, or the scanner does not read
the list plainly, the polygon values are cut out of the text and read by numpy
(`polygon_text`), and the rest, an integer standing for each value, is parsed as JSON
(`_parse_cut`); `_check_cut` then makes sure that these integers are exactly the
annotations' segmentations, in order. Where anything is not plainly so (a polygon that is
not a list of lists of JSON numbers, a ``segmentation`` key elsewhere, an error to report),
the whole text is parsed as JSON instead: the result, and any error, is always that of the
whole text's parse.

Example:
    >>> text = '''{"images": [{"id": 7, "file_name": "b.jpg", "width": 10, "height": 20},
    ...                       {"id": 3, "file_name": "a.jpg", "width": 8, "height": 8}],
    ...            "categories": [{"id": 18}, {"id": 3}],
    ...            "annotations": [{"image_id": 7, "category_id": 3, "bbox": [1, 2, 3, 4]},
    ...                            {"image_id": 7, "category_id": 18, "bbox": [0, 0, 5, 5]}]}'''
    >>> ann = parse_coco(text, CocoOptions(ltrb=True))
    >>> ann.filenames, ann.sample_labels(1).tolist(), ann.sample_boxes(1).tolist()
    (['a.jpg', 'b.jpg'], [2, 1], [[1.0, 2.0, 4.0, 6.0], [0.0, 0.0, 5.0, 5.0]])
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, compress
from operator import itemgetter, methodcaller
from typing import Any, NoReturn

import numpy as np

from dali._ops.readers.coco import annotations_text, polygon_text
from dali._ops.readers.coco.masks import rle_from_string

__all__ = ["CocoAnnotations", "CocoError", "CocoOptions", "parse_coco"]

_INT32 = (-(2**31), 2**31 - 1)


class CocoError(ValueError):
    """The annotations cannot be read (the message names the entry)."""


@dataclass(frozen=True)
class CocoOptions:
    """The arguments of `readers.coco` that decide what `parse_coco` keeps (DALI's names)."""

    ltrb: bool = False
    ratio: bool = False
    skip_empty: bool = False
    size_threshold: float = 0.1
    avoid_class_remapping: bool = False
    include_iscrowd: bool = True
    images: tuple[str, ...] | None = None
    polygons: bool = False  # read polygon segmentations (polygon or pixelwise masks)
    rles: bool = False  # read RLE segmentations too (pixelwise masks)


@dataclass
class CocoAnnotations:
    """The samples of a COCO set: per-sample offsets into flat tables, as DALI's loader keeps
    them (and as its preprocessed files store them).

    Attributes:
        filenames: The image file of each sample (relative to ``file_root``).
        offsets, counts: int32 per sample: its objects are ``boxes[offsets[i]:][:counts[i]]``.
        boxes: float32 ``[T, 4]``; labels: int32 ``[T]``.
        original_ids: int32 per sample: the image ids of the file.
        heights, widths: int32 per sample (the file's ``height``/``width``).
        polygons: int32 ``[P, 3]``: ``(object, first vertex, end vertex)``, both relative to the
            sample's vertices; polygon_offset, polygon_count: int64 per sample.
        vertices: float32 ``[V, 2]``; vertices_offset, vertices_count: int64 per sample.
        rles: The RLE counts (uint32) of objects segmented by an RLE; rle_sizes: their
            ``(h, w)``; rle_objects: int32, the object of each within its sample;
            mask_offsets, mask_counts: int64 per sample.
    """

    filenames: list[str]
    offsets: np.ndarray
    counts: np.ndarray
    boxes: np.ndarray
    labels: np.ndarray
    original_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    heights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    widths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    polygons: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    polygon_offset: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    polygon_count: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    vertices_offset: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    vertices_count: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    rles: list[np.ndarray] = field(default_factory=list)
    rle_sizes: list[tuple[int, int]] = field(default_factory=list)
    rle_objects: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    mask_offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    mask_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.filenames)

    # -- one sample (fresh arrays: the caller may keep or change them) ------------------------
    def sample_boxes(self, i: int) -> np.ndarray:
        o, n = int(self.offsets[i]), int(self.counts[i])
        return self.boxes[o : o + n].copy()

    def sample_labels(self, i: int) -> np.ndarray:
        o, n = int(self.offsets[i]), int(self.counts[i])
        return self.labels[o : o + n].copy()

    def sample_polygons(self, i: int) -> np.ndarray:
        if not (len(self.polygons) and len(self.polygon_offset)):
            return np.zeros((0, 3), np.int32)
        o, n = int(self.polygon_offset[i]), int(self.polygon_count[i])
        return self.polygons[o : o + n].copy()

    def sample_vertices(self, i: int) -> np.ndarray:
        if not (len(self.vertices) and len(self.vertices_offset)):
            return np.zeros((0, 2), np.float32)
        o, n = int(self.vertices_offset[i]), int(self.vertices_count[i])
        return self.vertices[o : o + n].copy()

    def sample_rles(self, i: int) -> tuple[list[np.ndarray], list[int]]:
        """The RLEs of sample ``i`` and the object (index within the sample) of each."""
        if not len(self.mask_offsets):
            return [], []
        o, n = int(self.mask_offsets[i]), int(self.mask_counts[i])
        return self.rles[o : o + n], self.rle_objects[o : o + n].tolist()

    def check(self, *, polygons: bool, masks: bool, image_ids: bool) -> None:
        """Raise `CocoError` unless every table the outputs read covers every sample."""
        n = len(self)

        def per_sample(name: str) -> np.ndarray:
            a = getattr(self, name)
            if len(a) != n:
                raise CocoError(f"'{name}' has {len(a)} entries for {n} images")
            return np.asarray(a, dtype=np.int64)

        def within(offsets: np.ndarray, counts: np.ndarray, size: int, what: str) -> None:
            if n and ((offsets < 0).any() or (counts < 0).any() or (offsets + counts).max() > size):
                raise CocoError(f"the per-image ranges of {what} go past its {size} entries")

        within(
            per_sample("offsets"),
            per_sample("counts"),
            min(len(self.boxes), len(self.labels)),
            "boxes and labels",
        )
        if image_ids:
            per_sample("original_ids")
        if (polygons or masks) and len(self.polygons) and len(self.polygon_offset):
            within(
                per_sample("polygon_offset"),
                per_sample("polygon_count"),
                len(self.polygons),
                "polygons",
            )
        if (polygons or masks) and len(self.vertices) and len(self.vertices_offset):
            within(
                per_sample("vertices_offset"),
                per_sample("vertices_count"),
                len(self.vertices),
                "vertices",
            )
        if masks:
            per_sample("heights")
            per_sample("widths")
            if len(self.mask_offsets) or len(self.rles):
                within(
                    per_sample("mask_offsets"),
                    per_sample("mask_counts"),
                    len(self.rles),
                    "RLE masks",
                )
                if len(self.rle_objects) != len(self.rles):
                    raise CocoError(
                        f"{len(self.rle_objects)} RLE object indices for {len(self.rles)} RLEs"
                    )
            self._check_mask_references()

    def _check_mask_references(self) -> None:
        """The masks' references (objects, vertices, RLE sizes) stay within their image: the
        rasterisation indexes with them (tables read from a folder may not)."""
        counts = np.asarray(self.counts, dtype=np.int64)
        n_verts = np.zeros(len(self), np.int64)
        if len(self.vertices) and len(self.vertices_offset):
            n_verts = np.asarray(self.vertices_count, dtype=np.int64)
        for i in range(len(self)):
            polys = self.sample_polygons(i).astype(np.int64)
            bad = (
                (polys[:, 0] < 0)
                | (polys[:, 0] >= counts[i])
                | (polys[:, 1] < 0)
                | (polys[:, 1] > polys[:, 2])
                | (polys[:, 2] > n_verts[i])
            )
            if bad.any():
                row = polys[int(np.argmax(bad))].tolist()
                raise CocoError(
                    f"image {i} ('{self.filenames[i]}'): polygon {row} refers to an object or "
                    f"vertices it does not have ({counts[i]} objects, {n_verts[i]} vertices)"
                )
            rles, objects = self.sample_rles(i)
            area = int(self.heights[i]) * int(self.widths[i])
            for counts_, obj in zip(rles, objects):
                if not 0 <= obj < counts[i] or int(counts_.astype(np.int64).sum()) != area:
                    raise CocoError(
                        f"image {i} ('{self.filenames[i]}'): an RLE of object {obj} does not fit "
                        f"the image ({counts[i]} objects, {area} pixels)"
                    )


# -- parsing ----------------------------------------------------------------------------------
#
# The checks and conversions work on whole columns: one C loop (`map`, `min`, `max`,
# `frozenset.issuperset`, `np.fromiter`) per field over every entry, numpy for the grouping and
# the arithmetic. Made entry by entry in Python they took three times the JSON parse. A column
# that fails its check is gone through again entry by entry, in the file's order, only to raise
# the exact error that names the first bad entry.


def _where(kind: str, k: int, entry: dict[str, Any]) -> str:
    ident = f" (id {entry['id']})" if isinstance(entry.get("id"), int) else ""
    return f"{kind} #{k}{ident}"


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CocoError(f"{what} must be an integer, got {value!r}")
    if not _INT32[0] <= value <= _INT32[1]:
        raise CocoError(f"{what} = {value} does not fit int32")
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CocoError(f"{what} must be a number, got {value!r}")
    return float(value)


#: The JSON number types (``bool`` is not one, though a subclass of ``int``), and the other
#: exact types the column checks accept.
_NUMBER_TYPES = frozenset({int, float})
_INT_TYPE = frozenset({int})
_STR_TYPE = frozenset({str})
_LIST_TYPE = frozenset({list})
_DICT_TYPE = frozenset({dict})
_SEGMENTATION_TYPES = frozenset({list, dict, type(None)})
_FOUR = frozenset({4})


def _int32s(values: list[Any]) -> bool:
    """Whether every value is an ``int`` (not a ``bool``) within int32."""
    return _int32_array(values) is not None


def _int32_array(values: list[Any]) -> np.ndarray | None:
    """``values`` as int64 where every one is an ``int`` (not a ``bool``) within int32, else
    None."""
    if not _INT_TYPE.issuperset(map(type, values)):
        return None
    try:
        array = np.fromiter(values, np.int64, len(values))
    except OverflowError:
        return None
    if len(array) and (array.min() < _INT32[0] or array.max() > _INT32[1]):
        return None
    return array


def _column(entries: list[dict[str, Any]], key: str, default: Any = None) -> list[Any]:
    """``entry.get(key, default)`` of every entry (``entry[key]`` while every entry has the
    key: less than half the time)."""
    try:
        return list(map(itemgetter(key), entries))
    except KeyError:
        return list(map(methodcaller("get", key, default), entries))


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise CocoError(f"'{key}' must be a list, got {type(value).__name__}")
    return value


@dataclass
class _Images:
    """The ``images`` list as columns: its entries that are objects, in the file's order."""

    ids: list[int]
    names: list[str]
    widths: list[int | None]  # None: the entry has no width
    heights: list[int | None]


def _images(doc: dict[str, Any]) -> _Images:
    raw = _list(doc, "images")
    entries = [e for e in raw if isinstance(e, dict)]  # DALI skips entries that are not objects
    columns = _Images(
        _column(entries, "id"),
        _column(entries, "file_name", ""),
        _column(entries, "width"),
        _column(entries, "height"),
    )
    if (
        _int32s(columns.ids)
        and _STR_TYPE.issuperset(map(type, columns.names))
        and _int32s(columns.widths)
        and _int32s(columns.heights)
    ):
        return columns
    # entry by entry: the exact error, or the columns of a file where some sizes are missing
    columns = _Images([], [], [], [])
    for k, e in enumerate(raw):
        if not isinstance(e, dict):
            continue
        where = _where("images", k, e)
        if "id" not in e:
            raise CocoError(f"{where} has no 'id'")
        name = e.get("file_name", "")
        if not isinstance(name, str):
            raise CocoError(f"{where}: 'file_name' must be a string, got {name!r}")
        columns.ids.append(_int(e["id"], f"{where}: 'id'"))
        columns.names.append(name)
        columns.widths.append(_int(e["width"], f"{where}: 'width'") if "width" in e else None)
        columns.heights.append(_int(e["height"], f"{where}: 'height'") if "height" in e else None)
    return columns


def _categories(doc: dict[str, Any]) -> dict[int, int]:
    """Category id -> label 1..N in the list's order (DALI: a repeated id keeps its first
    label, but still takes a number)."""
    mapping: dict[int, int] = {}
    new_id = 1
    for k, e in enumerate(_list(doc, "categories")):
        if not isinstance(e, dict):
            continue
        if "id" not in e:
            raise CocoError(f"{_where('categories', k, e)} has no 'id' (a category ID)")
        mapping.setdefault(_int(e["id"], f"{_where('categories', k, e)}: 'id'"), new_id)
        new_id += 1
    return mapping


@dataclass
class _Objects:
    """The ``annotations`` list as columns: its entries that are objects, in the file's order.

    Every entry is read and checked, kept or not: the filters apply to all (DALI's parser)."""

    entries: list[dict[str, Any]]  # empty where ``scanned``
    positions: Sequence[int]  # each entry's index in the file's list (for errors)
    image_ids: np.ndarray  # int64
    category_ids: np.ndarray  # int64
    crowd: np.ndarray  # bool: ``iscrowd`` is not 0
    boxes: np.ndarray  # float32 [N, 4], the file's [x, y, w, h]
    #: the list read from the text by `annotations_text` (its segmentations too), not parsed
    scanned: annotations_text.Scanned | None = None

    def where(self, a: int) -> str:
        """The words naming entry ``a`` in errors (``annotations #k (id n)``; without the id
        where ``scanned``: `_parse_scanned` leaves the error to the whole text's parse)."""
        entry = self.entries[a] if self.entries else {}
        return _where("annotations", self.positions[a], entry)

    @cached_property
    def segmentations(self) -> list[Any]:
        """The ``segmentation`` of each entry (None where it has none)."""
        return _column(self.entries, "segmentation")


def _objects(doc: dict[str, Any]) -> _Objects:
    raw = _list(doc, "annotations")
    positions: Sequence[int] = range(len(raw))
    entries = raw
    if not _DICT_TYPE.issuperset(map(type, raw)):
        positions = [k for k, e in enumerate(raw) if isinstance(e, dict)]
        entries = [raw[k] for k in positions]
    image_ids = _int32_array(_column(entries, "image_id"))
    category_ids = _int32_array(_column(entries, "category_id"))
    crowds = _int32_array(_column(entries, "iscrowd", 0))
    boxes = _column(entries, "bbox")
    if (
        image_ids is None
        or category_ids is None
        or crowds is None
        or not _LIST_TYPE.issuperset(map(type, boxes))
        or not _FOUR.issuperset(map(len, boxes))
        or not _NUMBER_TYPES.issuperset(map(type, chain.from_iterable(boxes)))
    ):
        for k, entry in zip(positions, entries):
            _check_annotation(k, entry)
        raise AssertionError("every annotation passes the checks")  # pragma: no cover
    n = len(entries)
    return _Objects(
        entries,
        positions,
        image_ids=image_ids,
        category_ids=category_ids,
        crowd=crowds != 0,
        # float64 first, as each number was a Python float or int, then float32 (DALI's rounding)
        boxes=np.fromiter(chain.from_iterable(boxes), np.float64, 4 * n)
        .reshape(n, 4)
        .astype(np.float32),
    )


def _scanned_objects(scanned: annotations_text.Scanned) -> _Objects:
    """`_objects` of the list `annotations_text` read (its scanner checked what `_objects`
    checks: every entry an object, int32 ids and ``iscrowd``, 4 numbers of ``bbox``)."""
    return _Objects(
        [],
        range(len(scanned.image_ids)),
        image_ids=scanned.image_ids,
        category_ids=scanned.category_ids,
        crowd=scanned.iscrowd != 0,
        boxes=scanned.boxes.astype(np.float32),  # float64 first, as in `_objects`
        scanned=scanned,
    )


def _check_annotation(k: int, entry: dict[str, Any]) -> None:
    """Raise the `CocoError` of an annotation that fails a column check of `_objects`, with
    words that name the entry and the field (the checks one by one, in order)."""
    where = _where("annotations", k, entry)
    for key in ("image_id", "category_id", "bbox"):
        if key not in entry:
            raise CocoError(f"{where} has no '{key}'")
    if "iscrowd" in entry:
        _int(entry["iscrowd"], f"{where}: 'iscrowd'")
    box = entry["bbox"]
    if not isinstance(box, list) or len(box) != 4:
        raise CocoError(f"{where}: 'bbox' must hold exactly 4 numbers, got {box!r}")
    _int(entry["image_id"], f"{where}: 'image_id'")
    _int(entry["category_id"], f"{where}: 'category_id'")
    for v in box:
        _number(v, f"{where}: 'bbox'")


def _loads() -> Callable[[str | bytes], Any]:
    """orjson's parser where installed (3x faster than ``json``'s on a COCO-sized file), else
    ``json``'s."""
    try:
        import orjson
    except ImportError:
        return json.loads
    return orjson.loads


def _load_json(text: str | bytes) -> Any:
    """The JSON document, parsed by `_loads`'s parser. What orjson rejects (``NaN``, integers
    beyond 64 bits, invalid text) goes to ``json``, so that the result, or the error, is
    ``json``'s."""
    try:
        return _loads()(text)
    except (ValueError, TypeError):
        pass
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise CocoError(f"not valid JSON: {e}") from e


@dataclass
class _Samples:
    """The samples, in order, and the objects of each (in the file's order)."""

    images: list[int]  # per sample: its entry in `_Images`
    counts: np.ndarray  # int64 per sample: its number of objects
    offsets: np.ndarray  # int64 per sample: where its objects start in `order`
    order: np.ndarray  # int64: every sample's objects (entries of `_Objects`), concatenated


def _samples(
    images: _Images, objects: _Objects, keep: np.ndarray, options: CocoOptions
) -> _Samples:
    ids = np.asarray(images.ids, dtype=np.int64)
    # the file names in id order (or as asked), each naming its image entry: for a repeated
    # file name, the last entry (in id order, or in the file's with `images`)
    if options.images is None:
        by_id = np.argsort(ids, kind="stable").tolist()  # stable (DALI's std::sort is not)
        names = [images.names[i] for i in by_id]
        entry_of = dict(zip(names, by_id))
    else:
        names = list(options.images)
        entry_of = dict(zip(images.names, range(len(ids))))
    picked = [i for i in map(entry_of.get, names) if i is not None]
    sample_ids = ids[np.asarray(picked, dtype=np.int64)]

    # the kept objects of the samples' images, grouped by image (`slot`: its rank among them)
    image_ids = np.unique(sample_ids)
    kept = np.flatnonzero(keep)
    slot = _slots(image_ids, objects.image_ids[kept])
    hit = slot < len(image_ids)
    kept, slot = kept[hit], slot[hit]
    # a stable sort of 16-bit keys is a radix sort (7x faster than of int64 keys)
    keys = slot.astype(np.uint16) if len(image_ids) <= 1 << 16 else slot
    grouped = kept[np.argsort(keys, kind="stable")]
    per_image = np.bincount(slot, minlength=len(image_ids))
    first = np.cumsum(per_image) - per_image

    sample_slot = np.searchsorted(image_ids, sample_ids)
    counts = per_image[sample_slot]
    if options.skip_empty:
        chosen = np.flatnonzero(counts)
        picked = [picked[s] for s in chosen.tolist()]
        sample_slot, counts = sample_slot[chosen], counts[chosen]
    offsets = np.cumsum(counts) - counts
    order = grouped[np.repeat(first[sample_slot] - offsets, counts) + np.arange(counts.sum())]
    return _Samples(picked, counts, offsets, order)


def _slots(keys: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The index of each of ``ids`` in ``keys`` (sorted, distinct int64), ``len(keys)`` for
    one it lacks: by a table of the keys' range where that is not much longer than the keys
    (one look-up an id, 8x faster than the binary searches)."""
    n = len(keys)
    if n and int(keys[-1]) - int(keys[0]) < 8 * n + (1 << 16):
        lo = keys[0]
        table = np.full(int(keys[-1] - lo) + 1, n, np.int64)
        table[keys - lo] = np.arange(n)
        at = ids - lo
        inside = (at >= 0) & (at < len(table))
        return np.where(inside, table[np.where(inside, at, 0)], n)
    slot = np.searchsorted(keys, ids)
    hit = slot < n
    hit[hit] = keys[slot[hit]] == ids[hit]
    return np.where(hit, slot, n)


def _labels(categories: dict[int, int], category_ids: np.ndarray) -> np.ndarray:
    """Each category id's label (``categories``), 0 for an id the list lacks."""
    if not categories:
        return np.zeros(len(category_ids), np.int64)
    keys = np.fromiter(categories.keys(), np.int64, len(categories))
    values = np.fromiter(categories.values(), np.int64, len(categories))
    by_key = np.argsort(keys)
    keys, values = keys[by_key], values[by_key]
    at = _slots(keys, category_ids)
    return np.where(at < len(keys), values[np.minimum(at, len(keys) - 1)], 0)


def parse_coco(text: str | bytes, options: CocoOptions) -> CocoAnnotations:
    """The samples of the COCO annotations ``text`` under ``options`` (module docstring).

    Raises:
        CocoError: The text is not JSON, or an entry cannot be read.
    """
    with _collector_paused():
        ann = _parse_cut(text, options)
        return ann if ann is not None else _parse(_load_json(text), options)


class _NotCut(Exception):
    """The text with its polygons cut out (`polygon_text`) is not the text's document: the
    whole text is parsed instead."""


def _parse_cut(text: str | bytes, options: CocoOptions) -> CocoAnnotations | None:
    """`parse_coco` with the ``annotations`` list read by the compiled scanner
    (`annotations_text`), else with the polygon values cut out of the text and read by
    numpy (`polygon_text`), or None where that does not give the whole text's result or
    error (a text that is not plainly valid, an error to report, an integer where it should
    not be): the caller parses the whole text then."""
    loads = _loads()
    scanned = annotations_text.scan(text, loads)
    if scanned is not None:
        return _parse_scanned(scanned, options, loads)
    doc_text, values = polygon_text.cut(text)
    if not values:
        return None
    polygons = polygon_text.read(values, loads)
    del values  # most of the text, copied
    if polygons is None:
        return None
    try:
        doc = loads(doc_text)
    except (ValueError, TypeError):
        return None
    try:
        return _parse(doc, options, polygons)
    except (CocoError, _NotCut):
        return None


def _parse_scanned(
    scanned: annotations_text.Scanned, options: CocoOptions, loads: Callable[[bytes], Any]
) -> CocoAnnotations | None:
    """`parse_coco` of a text whose ``annotations`` list `annotations_text` read, or None
    where that does not give the whole text's result or error (the rest of the text not
    JSON, or not a document with the list where it was, an error to report)."""
    try:
        doc = loads(scanned.rest)
    except (ValueError, TypeError):
        return None
    if not isinstance(doc, dict):
        return None
    placeholder = doc.get("annotations")
    if type(placeholder) is not int or placeholder != annotations_text.PLACEHOLDER:
        return None
    try:
        return _parse(doc, options, scanned=scanned)
    except (CocoError, _NotCut):
        return None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while the document is made and read: its millions of
    objects hold no cycle, and the collector's passes over them took a third of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse(
    doc: Any,
    options: CocoOptions,
    cut: polygon_text.Polygons | None = None,
    *,
    scanned: annotations_text.Scanned | None = None,
) -> CocoAnnotations:
    """The samples of the document ``doc``; ``cut``: the polygon values cut out of its text,
    each replaced by its index in ``cut``; ``scanned``: its ``annotations`` list, read from
    its text (`annotations_text`; the document holds a placeholder)."""
    if not isinstance(doc, dict):
        raise CocoError(f"the top level must be a JSON object, got {type(doc).__name__}")
    images = _images(doc)
    categories = _categories(doc)
    objects = _objects(doc) if scanned is None else _scanned_objects(scanned)
    # the cut polygon values, and each entry's among them
    listed = None if cut is None else (cut, _check_cut(objects, len(cut.per_value)))
    boxes = objects.boxes
    threshold = np.float32(options.size_threshold)
    keep = (boxes[:, 2] >= threshold) & (boxes[:, 3] >= threshold)
    if not options.include_iscrowd:
        keep &= ~objects.crowd
    if options.ltrb:
        boxes[:, 2:] += boxes[:, :2]

    samples = _samples(images, objects, keep, options)
    picked = samples.images
    widths = np.asarray([images.widths[i] or 0 for i in picked], dtype=np.int64)
    heights = np.asarray([images.heights[i] or 0 for i in picked], dtype=np.int64)
    # the masks' shape is the image's; `ratio` divides its objects by it
    if options.rles or options.ratio:
        needs = np.full(len(picked), True) if options.rles else samples.counts > 0
        unsized = np.flatnonzero(needs & ((widths == 0) | (heights == 0)))
        if len(unsized):
            i = picked[int(unsized[0])]
            why = "pixelwise masks" if options.rles else "`ratio`"
            raise CocoError(
                f"image '{images.names[i]}' (id {images.ids[i]}) needs a positive width and "
                f"height for {why}, got {images.widths[i]}x{images.heights[i]}"
            )
    order = samples.order
    out_boxes: np.ndarray = boxes[order]
    if options.ratio and len(order):
        w = np.repeat(widths.astype(np.float32), samples.counts)
        h = np.repeat(heights.astype(np.float32), samples.counts)
        out_boxes = out_boxes / np.stack([w, h, w, h], axis=1)
    labels = objects.category_ids[order]
    if not options.avoid_class_remapping:
        labels = _labels(categories, labels)
    ann = CocoAnnotations(
        filenames=[images.names[i] for i in picked],
        offsets=samples.offsets.astype(np.int32),
        counts=samples.counts.astype(np.int32),
        boxes=np.ascontiguousarray(out_boxes, dtype=np.float32),
        labels=labels.astype(np.int32),
        original_ids=np.asarray([images.ids[i] for i in picked], dtype=np.int32),
        heights=heights.astype(np.int32),
        widths=widths.astype(np.int32),
    )
    if options.polygons or options.rles:
        _segmentations(ann, objects, samples, options, listed)
    return ann


def _check_cut(objects: _Objects, n_values: int) -> np.ndarray:
    """Each entry's value among the ``n_values`` polygon values cut out of the text (-1 for
    none).

    Raises:
        _NotCut: The integers among the segmentations are not exactly 0, 1, ...,
            ``n_values - 1`` in order. When they are, each value cut out was one of theirs
            (not another object's, nor text in a string), and none of theirs was an integer
            in the text.
    """
    segs = objects.segmentations
    is_value = np.fromiter(map(_INT_TYPE.__contains__, map(type, segs)), bool, len(segs))
    if list(compress(segs, is_value)) != list(range(n_values)):
        raise _NotCut
    return np.where(is_value, np.cumsum(is_value) - 1, -1)


def _rle(seg: dict[str, Any], where: str) -> tuple[np.ndarray, tuple[int, int]]:
    size = seg.get("size")
    h = w = -1
    if isinstance(size, list) and len(size) >= 2:
        h, w = _int(size[0], f"{where}: RLE 'size'"), _int(size[1], f"{where}: RLE 'size'")
    if h <= 0 or w <= 0:
        raise CocoError(f"{where}: invalid or missing RLE 'size' (got {size!r})")
    counts = seg.get("counts")
    if isinstance(counts, str) and counts:
        return rle_from_string(counts), (h, w)
    if isinstance(counts, list) and counts:
        # all int32s (`bool` is not `int` here), checked with C loops; else the exact error
        if not _int32s(counts):
            for c in counts:
                _int(c, f"{where}: RLE 'counts'")
        values = np.asarray(counts, dtype=np.int64)
        if values.min() < 0:
            raise CocoError(f"{where}: RLE 'counts' must not be negative")
        return values.astype(np.uint32), (h, w)
    raise CocoError(f"{where}: missing or invalid RLE 'counts'")


def _check_polygons(seg: list[Any], where: str) -> None:
    """Raise the `CocoError` of the first polygon of ``seg`` that is not a list of an even
    number of JSON numbers."""
    for j, poly in enumerate(seg):
        if not isinstance(poly, list):
            raise CocoError(f"{where}: polygon {j} must be a list of coordinates, got {poly!r}")
        for c in poly:
            _number(c, f"{where}: polygon {j}")
        if len(poly) % 2:
            raise CocoError(f"{where}: polygon {j} has an odd number of coordinates ({len(poly)})")


def _segmentations(
    ann: CocoAnnotations,
    objects: _Objects,
    samples: _Samples,
    options: CocoOptions,
    cut: tuple[polygon_text.Polygons, np.ndarray] | None,
) -> None:
    """Fill the polygon, vertex and RLE tables of ``ann`` (DALI's layout): from the number of
    polygons of each object, of vertices of each polygon and the vertices in order
    (`_listed_polygons`, or `_cut_polygons` with ``cut``: the values cut out of the text and
    each entry's among them), the tables are cumulative counts."""
    total = len(samples.order)
    n = len(samples.counts)
    # `ratio`: the vertices divided by their image's width and height (float32)
    sizes_wh = np.stack([ann.widths, ann.heights], axis=1).astype(np.float32)
    divisors = np.repeat(sizes_wh, samples.counts, axis=0) if options.ratio else None
    if objects.scanned is not None:
        per_object, n_vertices, vertices = _value_polygons(
            objects.scanned.polygons, objects.scanned.value[samples.order], divisors
        )
        rle_at, rle_segs = _scanned_rles(objects.scanned, samples) if options.rles else ([], [])
    else:
        order = samples.order.tolist()
        segs = list(map(objects.segmentations.__getitem__, order))
        kinds = list(map(type, segs))
        if cut is None:
            per_object, n_vertices, vertices = _listed_polygons(
                ann, objects, samples, options, segs, kinds
            )
        else:
            per_object, n_vertices, vertices = _cut_polygons(
                segs, kinds, cut[0], cut[1][samples.order], divisors
            )
        rle_at = [j for j, k in enumerate(kinds) if k is dict] if options.rles else []
        rle_segs = [segs[j] for j in rle_at]

    # cumulative counts over the objects (`order`) and over the polygons
    polygons_before = np.concatenate([[0], np.cumsum(per_object)])
    vertices_before_polygon = np.concatenate([[0], np.cumsum(n_vertices)])
    vertices_before = vertices_before_polygon[polygons_before]
    starts, ends = samples.offsets, samples.offsets + samples.counts
    poly_off = polygons_before[starts]
    vert_off = vertices_before[starts]
    vert_cnt = vertices_before[ends] - vert_off
    # each polygon: its object within the sample, its vertices within the sample's
    sample_of = np.repeat(np.arange(n), samples.counts)
    object_in_sample = np.arange(total) - samples.offsets[sample_of]
    first = vertices_before_polygon[:-1] - np.repeat(vert_off[sample_of], per_object)
    ann.polygons = np.stack(
        [np.repeat(object_in_sample, per_object), first, first + n_vertices], axis=1
    ).astype(np.int32)
    if options.ratio and len(vertices) and cut is None and objects.scanned is None:
        vertices = vertices / np.repeat(sizes_wh, vert_cnt, axis=0)  # float32, as per sample
    ann.vertices = vertices
    ann.polygon_offset = poly_off
    ann.polygon_count = polygons_before[ends] - poly_off
    ann.vertices_offset = vert_off
    ann.vertices_count = vert_cnt
    if options.rles:
        for j, seg in zip(rle_at, rle_segs):
            a = int(samples.order[j])
            counts, size = _sample_rle(ann, objects, a, int(sample_of[j]), seg)
            ann.rles.append(counts)
            ann.rle_sizes.append(size)
        ann.rle_objects = object_in_sample[rle_at].astype(np.int32)
        is_rle = np.zeros(total, np.int64)
        is_rle[rle_at] = 1
        rles_before = np.concatenate([[0], np.cumsum(is_rle)])
        ann.mask_offsets = rles_before[starts]
        ann.mask_counts = rles_before[ends] - ann.mask_offsets


def _listed_polygons(
    ann: CocoAnnotations,
    objects: _Objects,
    samples: _Samples,
    options: CocoOptions,
    segs: list[Any],
    kinds: list[type],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The polygons of the objects' segmentations ``segs`` (their ``kinds``) of the document:
    per object its number of polygons, per polygon its number of vertices, and the vertices
    (float32 ``[V, 2]``).

    The polygons are checked as columns (their types, their lengths, the types of every
    coordinate) and the coordinates converted by one `np.fromiter`: per polygon, in Python,
    that took 10x DALI's time on a COCO-sized file."""
    polygon_lists: list[Any] = [s if k is list else [] for s, k in zip(segs, kinds)]
    polygons = list(chain.from_iterable(polygon_lists))
    readable = _SEGMENTATION_TYPES.issuperset(kinds) and _LIST_TYPE.issuperset(map(type, polygons))
    sizes = np.fromiter(map(len, polygons), np.int64, len(polygons)) if readable else None
    if (
        sizes is None
        or (sizes % 2).any()
        or not _NUMBER_TYPES.issuperset(map(type, chain.from_iterable(polygons)))
    ):
        _segmentation_error(ann, objects, samples, segs, options)
    per_object = np.fromiter(map(len, polygon_lists), np.int64, len(segs))
    # float64 first, as each coordinate was a Python float, then float32 (DALI's rounding)
    coords = np.fromiter(chain.from_iterable(polygons), np.float64, int(sizes.sum()))
    return per_object, sizes // 2, coords.astype(np.float32).reshape(-1, 2)


#: What an object's segmentation may be after the cut (`_cut_polygons`)
_CUT_TYPES = frozenset({int, dict, list, type(None)})


def _cut_polygons(
    segs: list[Any],
    kinds: list[type],
    cut: polygon_text.Polygons,
    value: np.ndarray,
    divisors: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_listed_polygons` for a document whose polygon values were cut out of its text: the
    objects' segmentations ``segs`` (their ``kinds``), their ``value`` in ``cut`` (-1 for
    none). `_NotCut` where the document's checks would fail (a list left in the document,
    an odd number of coordinates): the whole text's parse then gives the error."""
    lists = compress(segs, map(_LIST_TYPE.__contains__, kinds))
    if not _CUT_TYPES.issuperset(kinds) or (list in kinds and any(map(len, lists))):
        raise _NotCut
    if (cut.sizes % 2).any():
        raise _NotCut
    return _value_polygons(cut, value, divisors)


def _value_polygons(
    cut: polygon_text.Polygons, value: np.ndarray, divisors: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_listed_polygons` of objects whose polygons are values of ``cut`` (``value``: each
    object's, -1 for none; every polygon of an even number of coordinates), the vertices
    divided by ``divisors`` (float32 ``[x, y]`` per object) where given."""
    listed = value >= 0
    value = value[listed]
    polygons_before = np.concatenate([[0], np.cumsum(cut.per_value)])
    vertices_before = np.concatenate([[0], np.cumsum(cut.sizes // 2)])[polygons_before]
    per_object = np.zeros(len(listed), np.int64)
    per_object[listed] = cut.per_value[value]
    n_vertices = cut.sizes[_ranges(polygons_before[value], per_object[listed])] // 2
    # float64 first, as each coordinate was a float, then float32 (DALI's rounding)
    coords = cut.coords.astype(np.float32, copy=False)
    first = vertices_before[value]
    counts = vertices_before[value + 1] - first
    kernels = annotations_text.jit_kernels()
    by_value = None if kernels is None else _placed(cut, value, counts)
    if kernels is not None and by_value is not None:
        # each value's vertices written to their place, read in the text's order: the reads
        # in the objects' order (the samples', by image) jumped about the whole table
        scale = np.ones((len(cut.per_value), 2), np.float32)
        if divisors is not None:
            scale[value] = divisors[listed]
        out = np.empty((int(counts.sum()), 2), np.float32)
        kernels.place_vertices(
            coords.reshape(-1, 2), vertices_before, by_value, scale, divisors is not None, out
        )
        return per_object, n_vertices, out
    # the vertices of each value in order, gathered as pairs
    pairs = coords.view(np.uint64)
    if not np.array_equal(value, np.arange(len(cut.per_value))):
        pairs = pairs[_ranges(first, counts)]
    vertices = pairs.view(np.float32).reshape(-1, 2)
    if divisors is not None and len(vertices):
        vertices = vertices / np.repeat(divisors[listed], counts, axis=0)
    return per_object, n_vertices, vertices


def _placed(cut: polygon_text.Polygons, value: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Where the vertices of each value of ``cut`` go among those of ``value`` (``counts``
    each; -1 for a value not there), or None where a value is there twice (an image named
    twice in ``images``)."""
    at = np.full(len(cut.per_value), -1, np.int64)
    at[value] = np.cumsum(counts) - counts
    return at if np.count_nonzero(at >= 0) == len(value) else None


def _scanned_rles(
    scanned: annotations_text.Scanned, samples: _Samples
) -> tuple[list[int], list[Any]]:
    """The objects of ``samples.order`` segmented by an object (an RLE): their places in the
    order and their segmentations."""
    is_rle = np.zeros(len(scanned.value), bool)
    is_rle[list(scanned.objects)] = True
    at = np.flatnonzero(is_rle[samples.order]).tolist()
    return at, [scanned.objects[a] for a in samples.order[at].tolist()]


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[i], starts[i] + 1, ..., starts[i] + counts[i] - 1`` for each i, concatenated."""
    before = np.cumsum(counts) - counts
    return np.repeat(starts - before, counts) + np.arange(int(counts.sum()))


def _sample_rle(
    ann: CocoAnnotations, objects: _Objects, a: int, s: int, seg: dict[str, Any]
) -> tuple[np.ndarray, tuple[int, int]]:
    """The RLE ``seg`` of object ``a``, of sample ``s``: its counts and size, which must be
    the image's."""
    where = objects.where(a)
    counts, size = _rle(seg, where)
    n = int(counts.astype(np.int64).sum())
    h, w = int(ann.heights[s]), int(ann.widths[s])
    if n != h * w:
        raise CocoError(
            f"{where}: its RLE covers {n} pixels ({size[0]}x{size[1]}), its image "
            f"'{ann.filenames[s]}' has {h}x{w}"
        )
    return counts, size


def _segmentation_error(
    ann: CocoAnnotations,
    objects: _Objects,
    samples: _Samples,
    segs: list[Any],
    options: CocoOptions,
) -> NoReturn:
    """Raise the `CocoError` of the first object, in the samples' order, whose segmentation
    fails the column checks of `_segmentations` (the checks one by one)."""
    order = samples.order.tolist()
    sample_of = np.repeat(np.arange(len(samples.counts)), samples.counts).tolist()
    for j, seg in enumerate(segs):
        a = order[j]
        if isinstance(seg, dict):
            if options.rles:  # polygon masks only: DALI skips RLEs
                _sample_rle(ann, objects, a, sample_of[j], seg)
        elif isinstance(seg, list):
            _check_polygons(seg, objects.where(a))
        elif seg is not None:
            raise CocoError(f"{objects.where(a)}: 'segmentation' must be a list or an object")
    raise AssertionError("every segmentation passes the checks")  # pragma: no cover
