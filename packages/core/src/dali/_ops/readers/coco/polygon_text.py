"""COCO polygon segmentations read straight from the JSON text, without a Python float each.

The polygons are most of a COCO annotations file (~80 % of its bytes, ~4.3 M coordinates in a
tenth of COCO 2017 train). A JSON parser makes each coordinate a Python float, which the reader
then checks and converts to one array: most of the reader's build. Here each polygon value
(``"segmentation": [[x, y, ...], ...]``) is cut out of the text (`cut`), the rest is parsed as
JSON (a fifth of the text: an integer stands for each value), and numpy reads the values
(`read`), a chunk of whole values at a time (`_CHUNK` bytes, so that its arrays stay in the
CPU's cache):

* **Structure.** One search finds the marks ``,`` ``[`` ``]``; between two neighbouring marks
  stands one number or nothing (JSON whitespace trimmed). Each pair of neighbouring marks
  must have a number between them or not, as the grammar ``[[n, n, ...], [n, ...], ...]``
  says, and the pairs where values and polygons meet (``[[`` ``]]`` ``][`` ``],[``) must be
  as many as the values and polygons. The marks between a polygon's ``[`` and ``]`` count its
  coordinates.
* **Numbers.** The 8 bytes that end a number, read as one little-endian ``uint64``, hold the
  whole number when it has at most 8 characters after its sign (``-1234.567``: nearly every
  coordinate). Bit operations on all of a chunk's numbers at once check JSON's grammar
  (digits, at most one point with digits on both sides, no leading zero), drop the point and
  add up the digits (`_digits`): ``M / 10**f`` with ``M < 10**8`` and ``f <= 7`` divides two
  exactly represented doubles, so it is the correctly rounded value of the text (Clinger's
  fast path), the double a JSON parser gives. The other numbers (longer ones, exponents) go
  to the JSON parser.

A value that is not plainly a list of lists of JSON numbers (a string, a nested or empty
list, ``NaN``, ``01``, ``.5``, ``1.``, two numbers without a comma, ...) makes `read` return
None: the caller then parses the whole text as JSON, as without this module, for the same
result or the same error.

Example:
    >>> doc, values = cut('{"a": 1, "segmentation": [[1, 2.5], [-3, 4e1]]}')
    >>> doc, values
    ('{"a": 1, "segmentation": 0}', ['[[1, 2.5], [-3, 4e1]]'])
    >>> import json
    >>> p = read(values, json.loads)
    >>> p.per_value.tolist(), p.sizes.tolist(), p.coords.tolist()
    ([2], [2, 2], [1.0, 2.5, -3.0, 40.0])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Polygons", "cut", "read"]

_WS = "[ \t\n\r]*"  # JSON's whitespace (``\s`` has more)
_LIST = r"\[[^\]]*\]"  # one polygon; `read` checks what is inside
_VALUE = rf'("segmentation"{_WS}:{_WS})(\[{_WS}{_LIST}(?:{_WS},{_WS}{_LIST})*{_WS}\])'
_PATTERN = re.compile(_VALUE)
_PATTERN_BYTES = re.compile(_VALUE.encode())


def cut(text: str | bytes) -> tuple[str | bytes, list[str] | list[bytes]]:
    """``text`` with its k-th polygon value replaced by ``k``, and the values cut out.

    A value is cut where the text reads ``"segmentation"``, ``:``, ``[`` and ``[`` (JSON
    whitespace between), up to the first ``]`` and ``]``. In valid JSON only the value of a
    ``segmentation`` key starts so; the caller checks that the integers stand where polygon
    values stood (as the ``segmentation`` of its annotations, 0, 1, ... in order)."""
    if isinstance(text, str):
        parts = _PATTERN.split(text)
        values = parts[2::3]
        parts[2::3] = list(map(str, range(len(values))))
        return "".join(parts), values
    parts_b = _PATTERN_BYTES.split(text)
    values_b = parts_b[2::3]
    parts_b[2::3] = list(map(b"%d".__mod__, range(len(values_b))))
    return b"".join(parts_b), values_b


@dataclass(frozen=True)
class Polygons:
    """Polygon values (`cut`) as flat arrays.

    Attributes:
        per_value: int64 per value: its number of polygons.
        sizes: int64 per polygon: its number of coordinates.
        coords: float64 (float32 where `annotations_text` read them), every coordinate, in
            the text's order.
    """

    per_value: np.ndarray
    sizes: np.ndarray
    coords: np.ndarray


#: Bytes of text read at a time: the arrays of a chunk stay in a core's level-2 cache; much
#: smaller chunks spend more time in numpy's per-call overhead.
_CHUNK = 1 << 17

# the marks: "," "[" "]" (and "Y" "_", which the search finds too), by their 3 lowest bits
_OPEN, _COMMA, _CLOSE = ord("[") & 7, ord(",") & 7, ord("]") & 7  # 3, 4, 5
_CONTROL_SPACES = np.frombuffer(b"\t\n\r", np.uint8)  # JSON's whitespace other than " "


_U = np.uint64
_ZEROS = _U(0x3030303030303030)  # "0" in each byte
_ABOVE_9 = _U(0x7676767676767676)  # added to a byte of 10-127, sets its bit 7
_BIT7 = _U(0x8080808080808080)
_BYTE_INDEX = _U(0x0706050403020100)  # byte j holds j
_LANES = (_U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF))
_POW10 = 10.0 ** np.arange(8)
_N = np.arange(9, dtype=_U)
#: by number of characters (after the sign), clipped to 8: the lowest bit of the first
#: character's byte in the word (0 for none)
_FIRST = np.where(_N == 0, _U(0), _U(1) << (_U(8) * (_U(8) - _N)))
#: 8 bytes of padding (spaces: no number)
_PAD = b" " * 8


def read(values: list[str] | list[bytes], loads: Callable[[bytes], Any]) -> Polygons | None:
    """The numbers of the polygon values (`cut`), or None where a value is not plainly a list
    of lists of JSON numbers (the caller then parses the whole text as before). ``loads``
    (a JSON parser) reads the numbers the bit operations do not take."""
    if not values:
        return Polygons(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    # 8 bytes before the values and 16 after: `_last_8` reads the 16 around each end
    if isinstance(values[0], str):
        try:
            text = "".join([_PAD.decode(), *values, 2 * _PAD.decode()]).encode("ascii")
        except UnicodeEncodeError:
            return None
    else:
        text = b"".join([_PAD, *values, 2 * _PAD])
    end = len(text) - 2 * len(_PAD)
    buf = np.frombuffer(text, np.uint8)
    words = np.frombuffer(text, _U, len(text) // 8)
    per_value, sizes, coords = [], [], []
    lo = len(_PAD)
    while lo < end:
        # whole values, about _CHUNK bytes: up to a "][", which only the values' ends and
        # starts make (`cut`: a value ends with the first "]" and "]")
        hi = text.find(b"][", lo + _CHUNK, end) + 1 or end
        chunk = _read_chunk(text, buf, words, lo, hi, loads)
        if chunk is None:
            return None
        per_value.append(chunk[0])
        sizes.append(chunk[1])
        coords.append(chunk[2])
        lo = hi
    polygons = Polygons(np.concatenate(per_value), np.concatenate(sizes), np.concatenate(coords))
    return polygons if len(polygons.per_value) == len(values) else None


def _read_chunk(
    text: bytes,
    buf: np.ndarray,
    words: np.ndarray,
    lo: int,
    hi: int,
    loads: Callable[[bytes], Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The polygons per value, coordinates per polygon and coordinates of the whole values
    in ``buf[lo:hi]``, or None."""
    x = buf[lo:hi]
    at = np.flatnonzero((x == ord(",")) | ((x & np.uint8(0xF9)) == ord("[") & 0xF9)) + lo
    code = buf.take(at) & np.uint8(7)
    if len(code) < 4 or not ((code - np.uint8(_OPEN)) <= np.uint8(2)).all():  # "Y" or "_"
        return None
    # what stands between two marks, whitespace trimmed: a number (checked by `_numbers`)
    start, end = at[:-1] + 1, at[1:]
    space = x <= np.uint8(32)
    if (spaces := int(np.count_nonzero(space))) and _trim(x, space, spaces, start, end, lo):
        return None
    number = end > start
    # a number stands between "[" or "," and "," or "]"; nothing between the other pairs
    left, right = code[:-1], code[1:]
    if not np.array_equal((left != _CLOSE) & (right != _OPEN), number):
        return None
    # the pairs "[[" "]]" "][" "]," ",[" occur only where values and polygons meet: values
    # start with the first pair, end with the last
    starts = np.flatnonzero((left == _OPEN) & (right == _OPEN))
    between = np.flatnonzero((left == _CLOSE) & (right == _COMMA))
    n_values = len(starts)
    if (
        not n_values
        or starts[0] != 0
        or left[-1] != _CLOSE
        or right[-1] != _CLOSE
        or np.count_nonzero((left == _CLOSE) & (right == _CLOSE)) != n_values
        or np.count_nonzero((left == _CLOSE) & (right == _OPEN)) != n_values - 1
        or np.count_nonzero((left == _COMMA) & (right == _OPEN)) != len(between)
        or not (code.take(between + 2, mode="clip") == _OPEN).all()
    ):
        return None
    # a polygon's "[" is followed by a number, its "]" preceded by one
    opens = np.flatnonzero((left == _OPEN) & number)
    sizes = np.flatnonzero((right == _CLOSE) & number) + 1 - opens
    per_value = np.diff(np.searchsorted(opens, starts), append=len(opens))
    coords = _numbers(text, buf, words, start[number], end[number], loads)
    if coords is None:
        return None
    return per_value, sizes, coords


def _trim(
    x: np.ndarray, space: np.ndarray, spaces: int, start: np.ndarray, end: np.ndarray, lo: int
) -> bool:
    """Move ``start`` and ``end`` (indices of ``x``'s buffer: ``x`` starts at ``lo``) past the
    whitespace after and before them; True where ``x`` has whitespace that is not JSON's."""
    control = x < np.uint8(32)
    if control.any() and not np.isin(x[control], _CONTROL_SPACES).all():
        return True
    while (more := space.take(start - lo)).any():
        start += more
        spaces -= np.count_nonzero(more)
        if not spaces:  # all whitespace follows marks (as in ", ")
            return False
    while (more := space.take(end - 1 - lo) & (end > start)).any():
        end -= more
    return False


def _last_8(words: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The 8 bytes before each of ``ends`` as little-endian uint64 (``words``: the text as
    uint64, 8 bytes past the last end)."""
    first = ends - 8
    shift = ((first & 7) << 3).view(_U)
    first >>= 3
    return (words.take(first) >> shift) | (words.take(first + 1) << (_U(64) - shift))


def _numbers(
    text: bytes,
    buf: np.ndarray,
    words: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    loads: Callable[[bytes], Any],
) -> np.ndarray | None:
    """The JSON numbers ``text[starts[i]:ends[i]]`` (``buf``: ``text`` as bytes, ``words``: as
    uint64; ``starts >= 8``), or None where one is not a JSON number."""
    minus = buf.take(starts) == ord("-")
    n = ends - starts - minus  # characters after the sign
    first = _FIRST.take(n, mode="clip")
    word = (_last_8(words, ends) ^ _ZEROS) & -first  # the bytes from the first character
    value, point, ok = _digits(word, first)
    ok &= n <= 8
    # "-0" is the integer 0, which a JSON parser gives as 0.0, not -0.0
    np.negative(value, out=value, where=minus & ((value != 0) | point))
    if not ok.all():
        slow = np.flatnonzero(~ok)
        parsed = _parse_slow(text, starts[slow], ends[slow], loads)
        if parsed is None:
            return None
        value[slow] = parsed
    return value


def _digits(word: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The values of the unsigned decimal numbers in ``word``: their characters (up to 8) xor
    ``"0"`` in the highest bytes (the last character in the highest; ``first``: the lowest
    bit of the first character's byte, 0 for none), zero bytes below; whether each has a
    point; and whether each is a JSON number (digits, at most one point with digits on both
    sides, no leading zero but before the point)."""
    # bit 7 of each byte that is not a digit (a byte from 128 has it; only such a byte
    # carries into the next, which can then be marked too: either way not a number)
    other = ((word + _ABOVE_9) | word) & _BIT7
    dot = other >> _U(7)  # the lowest bit of that byte, if there is one
    dot_byte = dot * _U(0xFF)
    ok = (other & (other - _U(1))) == 0  # at most one byte that is not a digit
    word ^= dot * _U(ord(".") ^ ord("0"))  # the point (if that byte is one) to 0
    ok &= (word & dot_byte) == 0
    ok &= (dot < _U(1 << 56)) & (dot != first)  # not last, not first (nor the only one)
    # no leading zero, but "0" and "0.x"
    ok &= ((word & (first * _U(0xFF))) != 0) | (dot == first << _U(8))
    # the point out: the digits before it move up a byte
    low = word & np.minimum(dot - _U(1), dot_byte)  # 0 without a point
    word += (low << _U(8)) - low
    # add up the digits: pairs, fours, eights (the first digit is in the lowest byte)
    word = (word * _U(10 << 8 | 1)) >> _U(8)
    word = ((word & _LANES[0]) * _U(100 << 16 | 1)) >> _U(16)
    word = ((word & _LANES[1]) * _U(10000 << 32 | 1)) >> _U(32)
    f = (dot * _BYTE_INDEX) >> _U(56)  # digits after the point (0-7 where ok)
    return word.astype(np.float64) / _POW10.take(f & _U(7)), dot != 0, ok


def _parse_slow(
    text: bytes, starts: np.ndarray, ends: np.ndarray, loads: Callable[[bytes], Any]
) -> np.ndarray | None:
    """The numbers the bit operations do not take (long ones, exponents), by the JSON parser
    ``loads``; None where one is not a JSON number."""
    joined = b",".join([text[a:b] for a, b in zip(starts.tolist(), ends.tolist())])
    try:
        values = loads(b"[" + joined + b"]")
    except ValueError:
        return None
    if len(values) != len(starts) or not {int, float}.issuperset(map(type, values)):
        return None
    return np.fromiter(values, np.float64, len(values))
