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

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dali._ops.readers.coco.masks import rle_from_string
from dali._progress import bar

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


#: The JSON number types (``bool`` is not one, though a subclass of ``int``).
_NUMBER_TYPES = frozenset({int, float})
_INT_TYPE = frozenset({int})


def _check_annotation(k: int, entry: dict[str, Any]) -> None:
    """Raise the `CocoError` for an annotation the fast checks of `parse_coco` rejected (the
    checks again, one by one, in order, with words that name the entry and the field)."""
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
    raise AssertionError(f"{where} passes every check")  # pragma: no cover


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise CocoError(f"'{key}' must be a list, got {type(value).__name__}")
    return value


@dataclass
class _Image:
    filename: str
    image_id: int
    width: int | None
    height: int | None


def _images(doc: dict[str, Any]) -> list[_Image]:
    out = []
    for k, e in enumerate(_list(doc, "images")):
        if not isinstance(e, dict):
            continue  # DALI skips entries that are not objects
        where = _where("images", k, e)
        if "id" not in e:
            raise CocoError(f"{where} has no 'id'")
        name = e.get("file_name", "")
        if not isinstance(name, str):
            raise CocoError(f"{where}: 'file_name' must be a string, got {name!r}")
        dims = [_int(e[d], f"{where}: '{d}'") if d in e else None for d in ("width", "height")]
        out.append(_Image(name, _int(e["id"], f"{where}: 'id'"), dims[0], dims[1]))
    return out


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
        if not (
            _INT_TYPE.issuperset(map(type, counts))
            and _INT32[0] <= min(counts)
            and max(counts) <= _INT32[1]
        ):
            for c in counts:
                _int(c, f"{where}: RLE 'counts'")
        values = np.asarray(counts, dtype=np.int64)
        if values.min() < 0:
            raise CocoError(f"{where}: RLE 'counts' must not be negative")
        return values.astype(np.uint32), (h, w)
    raise CocoError(f"{where}: missing or invalid RLE 'counts'")


def _polygons(seg: list[Any], where: Any, coords: list[Any]) -> list[int]:
    """Append the coordinates of every polygon of ``seg`` to ``coords``; their vertex counts.
    ``where()`` names the annotation in errors."""
    sizes = []
    for j, poly in enumerate(seg):
        # one pass of C loops for the usual polygon: a list of an even number of JSON numbers
        if type(poly) is list and not len(poly) % 2 and _NUMBER_TYPES.issuperset(map(type, poly)):
            coords.extend(poly)
            sizes.append(len(poly) // 2)
            continue
        if not isinstance(poly, list):
            raise CocoError(f"{where()}: polygon {j} must be a list of coordinates, got {poly!r}")
        for c in poly:
            _number(c, f"{where()}: polygon {j}")
        raise CocoError(f"{where()}: polygon {j} has an odd number of coordinates ({len(poly)})")
    return sizes


def _load_json(text: str | bytes) -> Any:
    """The JSON document, parsed by orjson where installed (3x faster than ``json`` on a
    COCO-sized file: the largest part of the reader's build), else by ``json``. What orjson
    rejects (``NaN``, integers beyond 64 bits, invalid text) goes to ``json``, so that the
    result, or the error, is ``json``'s."""
    try:
        import orjson
    except ImportError:
        pass
    else:
        try:
            return orjson.loads(text)
        except (ValueError, TypeError):
            pass
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise CocoError(f"not valid JSON: {e}") from e


class _Wheres:
    """The words naming each kept annotation (``annotations #k (id n)``), made on demand."""

    def __init__(self, raw: list[Any], positions: list[int]) -> None:
        self._raw, self._positions = raw, positions

    def __getitem__(self, a: int) -> str:
        k = self._positions[a]
        return _where("annotations", k, self._raw[k])


def parse_coco(text: str | bytes, options: CocoOptions) -> CocoAnnotations:
    """The samples of the COCO annotations ``text`` under ``options`` (module docstring).

    Raises:
        CocoError: The text is not JSON, or an entry cannot be read.
    """
    doc = _load_json(text)
    if not isinstance(doc, dict):
        raise CocoError(f"the top level must be a JSON object, got {type(doc).__name__}")
    infos = _images(doc)
    categories = _categories(doc)
    raw_annotations = _list(doc, "annotations")

    # every annotation's fields (the filters apply to all of them, as DALI's parser does),
    # checked with a few type tests per entry; the words of an error are made only for an entry
    # that fails them (`_check_annotation`): made for every entry, they took as long as the rest
    entries: list[dict[str, Any]] = []
    positions: list[int] = []  # each entry's index in the file's list, for `wheres`
    allowed: list[bool] = []  # iscrowd filter
    image_ids: list[int] = []
    category_ids: list[int] = []
    raw_boxes: list[list[float]] = []
    lo, hi = _INT32
    numbers = _NUMBER_TYPES
    with bar(len(raw_annotations), "COCO annotations", "annotations", 200_000) as update:
        for k, entry in enumerate(raw_annotations):
            if not k & 0x3FFF:
                update(min(0x4000, len(raw_annotations) - k))
            if not isinstance(entry, dict):
                continue
            image_id: Any = entry.get("image_id")
            category_id: Any = entry.get("category_id")
            box: Any = entry.get("bbox")
            crowd: Any = entry.get("iscrowd", 0)
            if not (
                type(image_id) is int
                and type(category_id) is int
                and type(crowd) is int
                and type(box) is list
                and len(box) == 4
                and numbers.issuperset(map(type, box))
                and lo <= image_id <= hi
                and lo <= category_id <= hi
                and lo <= crowd <= hi
            ):
                _check_annotation(k, entry)
            image_ids.append(image_id)
            category_ids.append(category_id)
            raw_boxes.append(box)
            entries.append(entry)
            positions.append(k)
            allowed.append(crowd == 0 or options.include_iscrowd)
    wheres = _Wheres(raw_annotations, positions)
    boxes = np.asarray(raw_boxes, dtype=np.float64).reshape(-1, 4).astype(np.float32)
    threshold = np.float32(options.size_threshold)
    keep = (boxes[:, 2] >= threshold) & (boxes[:, 3] >= threshold)
    keep &= np.asarray(allowed, dtype=bool).reshape(-1)
    if options.ltrb:
        boxes[:, 2] += boxes[:, 0]
        boxes[:, 3] += boxes[:, 1]

    # the samples: file names in id order (or as asked), each with its image entry
    if options.images is None:
        infos.sort(key=lambda info: info.image_id)  # stable (DALI's std::sort is not)
        names = [info.filename for info in infos]
    else:
        names = list(options.images)
    wanted = set(names)
    info_of: dict[str, _Image] = {}
    objects_of: dict[int, list[int]] = {}
    for info in infos:
        if info.filename in wanted:
            info_of[info.filename] = info  # a repeated file name: the last entry wins
            objects_of[info.image_id] = []
    for a in np.flatnonzero(keep).tolist():
        objs = objects_of.get(image_ids[a])
        if objs is not None:
            objs.append(a)

    remap = not options.avoid_class_remapping
    samples: list[_Image] = []
    order: list[int] = []  # the annotations of every sample, concatenated
    offsets, counts = [], []
    for name in names:
        image = info_of.get(name)
        if image is None:
            continue
        objs = objects_of[image.image_id]
        if options.skip_empty and not objs:
            continue
        # the masks' shape is the image's; `ratio` divides its objects by it
        if (options.rles or (options.ratio and objs)) and not (image.width and image.height):
            why = "pixelwise masks" if options.rles else "`ratio`"
            raise CocoError(
                f"image '{name}' (id {image.image_id}) needs a positive width and height for "
                f"{why}, got {image.width}x{image.height}"
            )
        samples.append(image)
        offsets.append(len(order))
        counts.append(len(objs))
        order.extend(objs)
    idx = np.asarray(order, dtype=np.int64)
    out_boxes: np.ndarray = boxes[idx]
    if options.ratio and len(idx):
        per_obj = np.repeat(np.arange(len(samples)), counts)
        w = np.asarray([s.width or 0 for s in samples], dtype=np.float32)[per_obj]
        h = np.asarray([s.height or 0 for s in samples], dtype=np.float32)[per_obj]
        out_boxes = out_boxes / np.stack([w, h, w, h], axis=1)
    labels = [categories.get(category_ids[a], 0) if remap else category_ids[a] for a in order]
    ann = CocoAnnotations(
        filenames=[s.filename for s in samples],
        offsets=np.asarray(offsets, dtype=np.int32),
        counts=np.asarray(counts, dtype=np.int32),
        boxes=np.ascontiguousarray(out_boxes, dtype=np.float32),
        labels=np.asarray(labels, dtype=np.int32),
        original_ids=np.asarray([s.image_id for s in samples], dtype=np.int32),
        heights=np.asarray([s.height or 0 for s in samples], dtype=np.int32),
        widths=np.asarray([s.width or 0 for s in samples], dtype=np.int32),
    )
    if options.polygons or options.rles:
        _segmentations(ann, samples, counts, order, entries, wheres, options)
    return ann


def _segmentations(
    ann: CocoAnnotations,
    samples: list[_Image],
    counts: list[int],
    order: list[int],
    entries: list[dict[str, Any]],
    wheres: _Wheres,
    options: CocoOptions,
) -> None:
    """Fill the polygon, vertex and RLE tables of ``ann`` (DALI's layout).

    The coordinates of every polygon are gathered in one list and converted, checked and
    divided by the image sizes (``ratio``) as whole arrays: per polygon, that took 10x DALI's
    time on a COCO-sized file."""
    polys: list[tuple[int, int, int]] = []
    coords: list[Any] = []  # every polygon's x, y, x, y, ... in order
    n_verts = 0
    poly_off, poly_cnt, vert_off, vert_cnt, mask_off, mask_cnt = [], [], [], [], [], []
    rle_objects: list[int] = []
    pos = 0
    for s, info in enumerate(samples):
        poly_off.append(len(polys))
        vert_off.append(n_verts)
        mask_off.append(len(ann.rles))
        first_vertex = n_verts
        for obj in range(counts[s]):
            a = order[pos + obj]
            seg = entries[a].get("segmentation")
            if isinstance(seg, dict):
                where = wheres[a]
                if not options.rles:
                    continue  # polygon masks only: DALI skips RLEs
                counts_, size = _rle(seg, where)
                n = int(counts_.astype(np.int64).sum())
                h, w = info.height or 0, info.width or 0
                if n != h * w:
                    raise CocoError(
                        f"{where}: its RLE covers {n} pixels ({size[0]}x{size[1]}), its image "
                        f"'{info.filename}' has {h}x{w}"
                    )
                ann.rles.append(counts_)
                ann.rle_sizes.append(size)
                rle_objects.append(obj)
            elif isinstance(seg, list):
                for n_xy in _polygons(seg, lambda a=a: wheres[a], coords):
                    start = n_verts - first_vertex
                    polys.append((obj, start, start + n_xy))
                    n_verts += n_xy
            elif seg is not None:
                raise CocoError(f"{wheres[a]}: 'segmentation' must be a list or an object")
        pos += counts[s]
        poly_cnt.append(len(polys) - poly_off[-1])
        vert_cnt.append(n_verts - vert_off[-1])
        mask_cnt.append(len(ann.rles) - mask_off[-1])
    ann.polygons = np.asarray(polys, dtype=np.int32).reshape(-1, 3)
    # float64 first, as each coordinate was a Python float, then float32 (DALI's rounding)
    vertices: np.ndarray = np.asarray(coords, dtype=np.float64).astype(np.float32).reshape(-1, 2)
    if options.ratio and len(vertices):
        sizes = np.asarray([[i.width or 0, i.height or 0] for i in samples], dtype=np.float32)
        vertices = vertices / np.repeat(sizes, vert_cnt, axis=0)  # float32, as per sample
    ann.vertices = vertices
    ann.polygon_offset = np.asarray(poly_off, dtype=np.int64)
    ann.polygon_count = np.asarray(poly_cnt, dtype=np.int64)
    ann.vertices_offset = np.asarray(vert_off, dtype=np.int64)
    ann.vertices_count = np.asarray(vert_cnt, dtype=np.int64)
    if options.rles:
        ann.rle_objects = np.asarray(rle_objects, dtype=np.int32)
        ann.mask_offsets = np.asarray(mask_off, dtype=np.int64)
        ann.mask_counts = np.asarray(mask_cnt, dtype=np.int64)
