"""A COCO file's ``annotations`` list read straight from its bytes by one compiled pass.

`polygon_text` keeps a JSON parser for all but the polygons: ~90,000 annotation objects in a
tenth of COCO 2017 train, a Python dict each (with its box, a list of Python floats), which
the reader then takes apart again column by column. Here a scanner compiled with Numba
(`scan`) walks the bytes once and writes the columns the reader needs straight into arrays:
each object's ``image_id``, ``category_id``, ``iscrowd``, ``bbox`` and polygons. The text
left for the JSON parser (`Scanned.rest`) is the file with the whole ``annotations`` value
replaced by the integer `PLACEHOLDER`: the images and categories, ~2 % of a COCO file.

* **Structure.** The top-level object is walked key by key (other values skipped, strings
  and brackets matched); the value of its one ``"annotations"`` key must be a list of
  objects, each with ``image_id``, ``category_id`` and ``bbox``. A member is read by its
  key: ``image_id``, ``category_id`` and ``iscrowd`` an integer of int32, ``bbox`` a list of
  4 numbers, ``segmentation`` a list of lists of numbers (each an even count), ``null`` or an
  object (an RLE: its text is handed to the JSON parser, one call for all). The value of any
  other key (``id``, ``area``, ...) is checked against JSON's grammar and skipped.
* **Numbers.** Each is checked against JSON's grammar and converted where the conversion is
  exact (Clinger's fast path): its digits make an integer ``M <= 2**53`` and its decimal
  exponent ``e`` is within ``[-22, 22]``, so that ``M * 10**e`` or ``M / 10**-e`` divides or
  multiplies two exactly represented doubles, one rounding: the correctly rounded value of
  the text, the double a JSON parser gives. The others (17 digits, large exponents) go to
  the JSON parser, one call for all. A JSON integer ``-0`` is the integer 0 (``0.0``, not
  ``-0.0``), as a JSON parser reads it.

What the scanner does not read plainly (an object without those keys, a repeated key, a key
or string with a character beyond ASCII, nesting deeper than `_DEPTH`, a value of another
type, ``NaN``, a second top-level ``annotations`` key, ...) makes `scan` return None: the
caller then reads the file as before, for the same result or the same error. Without Numba
`scan` returns None too.

Example:
    >>> import json
    >>> text = b'''{"images": [], "annotations": [
    ...     {"id": 5, "image_id": 1, "category_id": 2, "bbox": [1, 2, 3.5, 4],
    ...      "segmentation": [[1, 2.5, -3, 4e1]]}]}'''
    >>> s = scan(text, json.loads)
    >>> s.rest, s.image_ids.tolist(), s.boxes.tolist()
    (b'{"images": [], "annotations": 0}', [1], [[1.0, 2.0, 3.5, 4.0]])
    >>> s.polygons.per_value.tolist(), s.polygons.sizes.tolist(), s.polygons.coords.tolist()
    ([1], [4], [1.0, 2.5, -3.0, 40.0])
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from dali._ops.readers.coco.polygon_text import Polygons

__all__ = ["PLACEHOLDER", "Scanned", "available", "jit_kernels", "scan"]

#: What stands for the ``annotations`` value in `Scanned.rest`.
PLACEHOLDER = 0

# `_jit.scan`'s statuses (`_jit` needs Numba)
_OK, _FULL = 0, 2
#: Nesting of a value skipped (an ``id`` or ``area`` is not nested at all)
_DEPTH = 64


@dataclass(frozen=True)
class Scanned:
    """The ``annotations`` list of a COCO text as columns (`scan`).

    Attributes:
        rest: The text with the ``annotations`` value replaced by `PLACEHOLDER`.
        image_ids, category_ids, iscrowd: int64 per object.
        boxes: float64 ``[N, 4]``, the file's ``bbox`` values.
        value: int64 per object: its polygon value in ``polygons`` (its segmentation was a
            list), -1 for none (``null``, missing, or an object).
        polygons: The polygon values (coordinates in float32, as the reader keeps them).
        objects: The segmentations that are JSON objects (RLEs), parsed, by object index.
    """

    rest: bytes
    image_ids: np.ndarray
    category_ids: np.ndarray
    iscrowd: np.ndarray
    boxes: np.ndarray
    value: np.ndarray
    polygons: Polygons
    objects: dict[int, Any]


def available() -> bool:
    """Whether `scan` can read files (Numba is installed)."""
    return jit_kernels() is not None


def scan(text: bytes | str, loads: Callable[[bytes], Any]) -> Scanned | None:
    """The ``annotations`` of the COCO ``text`` as columns, or None where the scanner does not
    read it plainly (module docstring) or Numba is not installed. ``loads`` (a JSON parser)
    reads the numbers the scanner does not convert and the RLE objects."""
    kernels = jit_kernels()
    if kernels is None or sys.byteorder != "little":  # `_jit.scan` reads little-endian words
        return None
    if isinstance(text, str):
        try:
            text = text.encode()
        except UnicodeEncodeError:
            return None
    buf = np.frombuffer(text, np.uint8)
    n = len(buf)
    # words[j]: the 8 bytes from j as a little-endian uint64 (an unaligned view)
    words = np.ndarray((max(n - 7, 0),), "<u8", text, strides=(1,))
    # room for 4x what a COCO file holds (~550 bytes an object, ~10 a coordinate, few numbers
    # of 17 digits); where a file has more, the scanner counts what did not fit and a second
    # pass has room for that
    out = _Columns(n // 128 + 16, n // 32 + 16, n // 4 + 16, n // 1024 + 16)
    status, start, end, *counts = kernels.scan(buf, words, *out.arrays())
    if status == _FULL:
        m, _, n_polygons, n_coords, n_slow, _ = counts
        out = _Columns(m, n_polygons, n_coords, n_slow)
        status, start, end, *counts = kernels.scan(buf, words, *out.arrays())
    if status != _OK:
        return None
    m, n_values, n_polygons, n_coords, n_slow, n_objects = counts
    coords = out.coords[:n_coords]
    boxes = out.boxes[: 4 * m]
    if n_slow and not _convert_slow(text, out, n_slow, coords, boxes, loads):
        return None
    objects: dict[int, Any] = {}
    if n_objects:
        spans = out.spans[:n_objects].tolist()
        parsed = _load_list([text[a:b] for a, b, _ in spans], loads)
        if parsed is None:
            return None
        objects = dict(zip([k for _, _, k in spans], parsed))
    return Scanned(
        rest=b"%b%d%b" % (text[:start], PLACEHOLDER, text[end:]),
        image_ids=out.ints[0, :m],
        category_ids=out.ints[1, :m],
        iscrowd=out.ints[2, :m],
        boxes=boxes.reshape(m, 4),
        value=out.ints[3, :m],
        polygons=Polygons(
            out.per_value[:n_values], out.sizes[:n_polygons].astype(np.int64), coords
        ),
        objects=objects,
    )


class _Columns:
    """The arrays `_jit.scan` writes into, with room for so many objects, polygons,
    coordinates and numbers it does not convert."""

    def __init__(self, objects: int, polygons: int, numbers: int, slow: int) -> None:
        self.ints = np.empty((4, objects), np.int64)  # image_id, category_id, iscrowd, value
        self.boxes = np.empty(4 * objects)
        self.per_value = np.empty(objects, np.int64)
        self.sizes = np.empty(polygons, np.int32)
        self.coords = np.empty(numbers, np.float32)
        self.slow = np.empty((slow, 3), np.int64)  # start, end, where: coords[k] or boxes[~k]
        self.spans = np.empty((objects, 3), np.int64)  # start, end, object of an RLE's text
        self.stack = np.empty(_DEPTH, np.uint8)  # the nesting of a value skipped

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.ints,
            self.boxes,
            self.per_value,
            self.sizes,
            self.coords,
            self.slow,
            self.spans,
            self.stack,
        )


def _convert_slow(
    text: bytes,
    out: _Columns,
    n_slow: int,
    coords: np.ndarray,
    boxes: np.ndarray,
    loads: Callable[[bytes], Any],
) -> bool:
    """The numbers the scanner left (``out.slow``), converted by ``loads`` and put in place
    (coordinates rounded to float32, as the reader does); False where ``loads`` fails."""
    slow = out.slow[:n_slow]
    values = _load_list([text[a:b] for a, b in slow[:, :2].tolist()], loads)
    if values is None or not {int, float}.issuperset(map(type, values)):
        return False
    try:
        numbers = np.fromiter(values, np.float64, len(values))
    except OverflowError:  # an integer beyond a double (json only): its error then
        return False
    where = slow[:, 2]
    coord = where >= 0
    with np.errstate(over="ignore"):  # beyond float32: inf, as the compiled cast gives
        coords[where[coord]] = numbers[coord]
    boxes[~where[~coord]] = numbers[~coord]
    return True


def _load_list(texts: list[bytes], loads: Callable[[bytes], Any]) -> list[Any] | None:
    """The JSON values ``texts`` (each a whole value), by one call of ``loads``; None where it
    fails."""
    try:
        values = loads(b"[" + b",".join(texts) + b"]")
    except (ValueError, TypeError, RecursionError):
        return None
    return values if isinstance(values, list) and len(values) == len(texts) else None


@functools.cache
def jit_kernels() -> ModuleType | None:
    """The module of the compiled kernels (`_jit`), or None without Numba (then `scan`
    returns None and `annotations` uses numpy alone)."""
    try:
        from dali._ops.readers.coco import _jit
    except ImportError:
        return None
    return _jit
