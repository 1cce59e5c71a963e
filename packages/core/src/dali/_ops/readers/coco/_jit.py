"""The compiled kernels of the COCO reader's parse (importing this module needs Numba).

`scan` walks a COCO file's bytes once: the top-level object key by key, the ``annotations``
list object by object, each member by its key, each number checked against JSON's grammar and
converted where that is exact. What it reads, and why the result is the JSON parser's, is
explained in `annotations_text`; a text `scan` does not read plainly makes it return
`NOT_PLAIN`, never a guess. `place_vertices` puts the polygon vertices in the samples' order
and divides them by their image's size (`annotations`) in one pass.

The inner loops of `scan` (a coordinate, a member) call only functions of scalars: a call
that passes an array counts references to it (two atomic operations), which cost more than the
loop's own work where it ran per number. Functions of arrays (`_number`, `_value`, ...) serve
what is rare: numbers of 8 characters or more, strings, nested values, the text's top level.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["FULL", "NOT_PLAIN", "OK", "place_vertices", "scan"]

#: What `scan` returns first: done, a text it does not read plainly, or read but a table out
#: of room (then only counted: the counts say how much room a second pass needs).
OK, NOT_PLAIN, FULL = 0, 1, 2

#: Exactly represented powers of ten: a double holds 10**22 exactly, not 10**23
_POW10 = np.array([float(10**k) for k in range(23)])
_TWO53 = 1 << 53
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1

# `_short`'s bit operations on 8 characters at a time (the first in the lowest byte)
_U = np.uint64
_ZEROS = _U(0x3030303030303030)  # "0" in each byte
_ABOVE_9 = _U(0x7676767676767676)  # added to a byte of 10-137, sets its bit 7
_BIT7 = _U(0x8080808080808080)
_BYTE_INDEX = _U(0x0001020304050607)  # byte j holds 7 - j
_POINT = _U(ord(".") ^ ord("0"))
_LANE16, _LANE32 = _U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF)
_PAIRS, _FOURS, _EIGHTS = _U(10 << 8 | 1), _U(100 << 16 | 1), _U(10000 << 32 | 1)


def _key_words(key: bytes) -> tuple[int, int]:
    """The first and the last 8 bytes of ``key`` as little-endian integers (`_key`)."""
    first = int.from_bytes(key[:8], "little")
    return first, int.from_bytes(key[-8:], "little") if len(key) >= 8 else first


# the keys `_key` tells apart: the members read (their numbers: bits of `scan`'s ``have``,
# rows 0-2 of its ``ints``) and the top level's list
_KEYS = (b"image_id", b"category_id", b"iscrowd", b"bbox", b"segmentation", b"annotations")
_IMAGE_ID, _CATEGORY_ID, _ISCROWD, _BBOX, _SEGMENTATION, _ANNOTATIONS = range(len(_KEYS))
_KEY_SIZE = tuple(len(k) for k in _KEYS)
_KEY_FIRST = tuple(_U(_key_words(k)[0]) for k in _KEYS)
_KEY_LAST = tuple(_U(_key_words(k)[1]) for k in _KEYS)

_jit = numba.njit(nogil=True, cache=True)


@_jit
def _blank(c):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # JSON's whitespace
    return c == 32 or c == 10 or c == 13 or c == 9


@_jit
def _key(first, last, size):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # which of `_KEYS` the key of ``size`` bytes is (-1: another), from its first and last 8
    # bytes (the first only where it is shorter, the bytes past it included)
    if size < 8:
        first &= (_U(1) << _U(8 * size)) - _U(1)
        last = first
    for k in range(len(_KEY_SIZE)):
        if size == _KEY_SIZE[k] and first == _KEY_FIRST[k] and last == _KEY_LAST[k]:
            return k
    return -1


@_jit
def _byte_of(bit):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # the byte of the lowest set bit of ``bit`` (a word with bits 7 of bytes only)
    lowest = bit & (~bit + _U(1))
    return np.int64(((lowest >> _U(7)) * _BYTE_INDEX) >> _U(56))


@_jit
def _short(w):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # (size, value, is_float) of the unsigned number the 8 bytes ``w`` start with where it
    # has at most 7 characters, digits and a point ("123.45": nearly every coordinate),
    # followed by no exponent; size -1 for anything else (`_number` reads it then). Its
    # digits make M < 10**7 and f < 7 digits follow the point: M / 10**f divides two
    # exactly represented doubles, one rounding.
    x = w ^ _ZEROS
    other = ((x + _ABOVE_9) | x) & _BIT7  # bit 7 of the bytes that are no digit
    if other & _U(0xFF) or not other:  # no digit first, or 8 digits
        return -1, 0.0, False
    p = _byte_of(other)
    if p > 1 and not x & _U(0xFF):  # a leading zero
        return -1, 0.0, False
    shift = _U(8 * p)
    is_float = (x >> shift) & _U(0xFF) == _POINT
    if is_float:
        rest = other & (other - _U(1))
        if not rest:
            return -1, 0.0, False
        q = _byte_of(rest)
        if q == p + 1:  # no digit after the point
            return -1, 0.0, False
        x = (x & ((_U(1) << shift) - _U(1))) | ((x >> (shift + _U(8))) << shift)
        digits, size, f = q - 1, q, q - p - 1
    else:
        digits, size, f = p, p, 0
    if ((w >> _U(8 * size)) & _U(0xFF)) | _U(32) == _U(101):  # an exponent follows
        return -1, 0.0, False
    # the digits in the highest bytes, zeros below, added up: pairs, fours, eights
    x = (x & ((_U(1) << _U(8 * digits)) - _U(1))) << _U(8 * (8 - digits))
    x = (x * _PAIRS) >> _U(8)
    x = ((x & _LANE16) * _FOURS) >> _U(16)
    x = ((x & _LANE32) * _EIGHTS) >> _U(32)
    return size, float(x) / _POW10[f], is_float


@_jit
def _number(b, i):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # (end, value, exact, is_float) of the JSON number at i, end -1 where there is none;
    # value is the number where exact (Clinger's fast path: M <= 2**53 and a decimal
    # exponent within [-22, 22]), else to be read by the JSON parser
    n = len(b)
    j = i
    negative = j < n and b[j] == 45
    if negative:
        j += 1
    c = b[j] if j < n else 0
    mantissa = 0
    digits = 0  # those in the mantissa (from the first that is not 0)
    exact = True
    exponent = 0
    if c == 48:
        j += 1
    elif 49 <= c <= 57:
        while j < n and 48 <= b[j] <= 57:
            if digits < 18:
                mantissa = mantissa * 10 + (b[j] - 48)
                digits += 1
            else:
                exact = False
            j += 1
    else:
        return -1, 0.0, False, False
    is_float = j < n and b[j] == 46
    if is_float:
        j += 1
        first = j
        while j < n and 48 <= b[j] <= 57:
            d = b[j] - 48
            if mantissa == 0 and d == 0:
                exponent -= 1
            elif digits < 18:
                mantissa = mantissa * 10 + d
                digits += 1
                exponent -= 1
            else:
                exact = False
            j += 1
        if j == first:
            return -1, 0.0, False, False
    if j < n and b[j] | 32 == 101:  # e or E
        is_float = True
        j += 1
        sign = b[j] if j < n else 0
        if sign == 43 or sign == 45:
            j += 1
        first = j
        e = 0
        while j < n and 48 <= b[j] <= 57:
            if e < 100000:
                e = e * 10 + (b[j] - 48)
            j += 1
        if j == first:
            return -1, 0.0, False, False
        exponent += -e if sign == 45 else e
    value = 0.0
    if mantissa == 0:
        pass  # 0, whatever the exponent
    elif not exact or mantissa > _TWO53 or exponent < -22 or exponent > 22:
        exact = False
    elif exponent >= 0:
        value = float(mantissa) * _POW10[exponent]
    else:
        value = float(mantissa) / _POW10[-exponent]
    if negative and (is_float or mantissa != 0):  # "-0" is the integer 0
        value = -value
    return j, value, exact, is_float


@_jit
def _string(b, i):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # past the JSON string at i, of printable ASCII and JSON's escapes, or -1
    n = len(b)
    i += 1
    while i < n:
        c = b[i]
        if c == 34:
            return i + 1
        if c < 32 or c > 126:
            return -1
        if c == 92:
            c = b[i + 1] if i + 1 < n else 0
            if c == 117:  # \uXXXX
                if i + 6 > n:
                    return -1
                for k in range(i + 2, i + 6):
                    h = b[k] | 32
                    if not (48 <= h <= 57 or 97 <= h <= 102):
                        return -1
                i += 6
                continue
            if not (c == 34 or c == 92 or c == 47 or c == 98 or c == 102) and not (
                c == 110 or c == 114 or c == 116
            ):  # " \ / b f n r t
                return -1
            i += 2
            continue
        i += 1
    return -1


@_jit
def _literal(b, i):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # past the true, false or null at i, or -1
    n = len(b)
    c = b[i] if i < n else 0
    if c == 116:  # true
        ok = i + 4 <= n and b[i + 1] == 114 and b[i + 2] == 117 and b[i + 3] == 101
        return i + 4 if ok else -1
    if c == 110:  # null
        ok = i + 4 <= n and b[i + 1] == 117 and b[i + 2] == 108 and b[i + 3] == 108
        return i + 4 if ok else -1
    if c == 102:  # false
        ok = i + 5 <= n and b[i + 1] == 97 and b[i + 2] == 108 and b[i + 3] == 115
        return i + 5 if ok and b[i + 4] == 101 else -1
    return -1


@_jit
def _member_key(b, i):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # past the ``"key":`` at i and the whitespace after it, or -1
    n = len(b)
    if not (i < n and b[i] == 34):
        return -1
    i = _string(b, i)
    if i < 0:
        return -1
    while i < n and _blank(b[i]):
        i += 1
    if not (i < n and b[i] == 58):
        return -1
    i += 1
    while i < n and _blank(b[i]):
        i += 1
    return i


@_jit
def _value(b, i, stack):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # past the JSON value at i, checked against the grammar (strings `_string`'s, nesting
    # up to len(stack)), or -1
    n = len(b)
    depth = 0
    while True:
        c = b[i] if i < n else 0
        if c == 123 or c == 91:  # { [
            if depth == len(stack):
                return -1
            i += 1
            while i < n and _blank(b[i]):
                i += 1
            if i < n and b[i] == c + 2:  # {} []
                i += 1
            else:
                stack[depth] = c
                depth += 1
                if c == 123:
                    i = _member_key(b, i)
                    if i < 0:
                        return -1
                continue
        elif c == 34:
            i = _string(b, i)
        elif c == 45 or 48 <= c <= 57:
            i = _number(b, i)[0]
        else:
            i = _literal(b, i)
        if i < 0:
            return -1
        # a value is complete: the containers it closes, then the next value
        while depth:
            while i < n and _blank(b[i]):
                i += 1
            c = b[i] if i < n else 0
            if c == 44:  # ,
                i += 1
                while i < n and _blank(b[i]):
                    i += 1
                if stack[depth - 1] == 123:
                    i = _member_key(b, i)
                    if i < 0:
                        return -1
                break
            if c != stack[depth - 1] + 2:
                return -1
            i += 1
            depth -= 1
        if not depth:
            return i


@_jit
def _skip(b, i):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # past the value at i, strings and brackets matched but nothing else checked (the JSON
    # parser reads this text), or -1
    n = len(b)
    depth = 0
    while i < n:
        c = b[i]
        if c == 34:
            i += 1
            while i < n and b[i] != 34:
                i += 2 if b[i] == 92 else 1
            i += 1
            if not depth:
                return i if i <= n else -1
            continue
        if c == 91 or c == 123:
            depth += 1
        elif c == 93 or c == 125:
            if not depth:
                return i
            depth -= 1
            if not depth:
                return i + 1
        elif not depth and (c == 44 or _blank(c)):
            return i
        i += 1
    return -1 if depth else i


@_jit
def scan(b, words, ints, boxes, per_value, sizes, coords, slow, spans, stack):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """Read the ``annotations`` of the JSON text ``b`` (uint8; ``words[j]``: its 8 bytes from
    j as a little-endian uint64, for j up to ``len(b) - 8``) into the tables of
    `annotations_text._Columns`: ``ints`` (image_id, category_id, iscrowd and polygon value
    per object), ``boxes`` (4 per object), ``per_value`` (polygons per value), ``sizes``
    (coordinates per polygon), ``coords`` (float32), ``slow`` (start, end and place of each
    number the JSON parser is to read: ``coords[k]``, or ``boxes[~k]``) and ``spans``
    (start, end and object of each segmentation that is an object); ``stack``: room for
    `_value`'s nesting.

    Returns:
        ``(status, start, end, objects, values, polygons, coordinates, slow, spans)``: `OK`,
        `NOT_PLAIN` or `FULL` (a table had too little room: what did not fit was counted,
        not written); the span of the ``annotations`` value; how many of each there are.
    """
    n = len(b)
    m8 = len(words)
    m = n_values = n_polygons = n_coords = n_slow = n_objects = 0
    start = end = -1
    not_plain = (NOT_PLAIN, 0, 0, 0, 0, 0, 0, 0, 0)
    i = 0
    while i < n and _blank(b[i]):
        i += 1
    if not (i < n and b[i] == 123):
        return not_plain
    i += 1
    while i < n and _blank(b[i]):
        i += 1
    # the top-level members
    while True:
        if not (i < n and b[i] == 34):
            return not_plain
        k0 = i + 1
        k = k0
        while k < n and b[k] != 34:
            if b[k] == 92:  # an escape could spell "annotations"
                return not_plain
            k += 1
        size = k - k0
        is_list = (
            size == _KEY_SIZE[_ANNOTATIONS]
            and k < n
            and _key(words[k0], words[k - 8], size) == _ANNOTATIONS
        )
        i = k + 1
        while i < n and _blank(b[i]):
            i += 1
        if not (i < n and b[i] == 58):
            return not_plain
        i += 1
        while i < n and _blank(b[i]):
            i += 1
        if not is_list:
            i = _skip(b, i)
            if i < 0:
                return not_plain
        elif start >= 0 or not (i < n and b[i] == 91):  # a second one, or no list
            return not_plain
        else:
            start = i
            i += 1
            while i < n and _blank(b[i]):
                i += 1
            more = not (i < n and b[i] == 93)
            if not more:
                i += 1
            # the objects
            while more:
                if not (i < n and b[i] == 123):
                    return not_plain
                fits = m < ints.shape[1]  # room for this object (else only counted)
                i += 1
                while i < n and _blank(b[i]):
                    i += 1
                have = 0
                if fits:
                    ints[_ISCROWD, m] = 0
                    ints[3, m] = -1  # no polygon value
                while True:
                    # a member: its key (printable ASCII, no escape)
                    if not (i < n and b[i] == 34):
                        return not_plain
                    k0 = i + 1
                    k = k0
                    while k < n and 32 <= b[k] <= 126 and b[k] != 34 and b[k] != 92:
                        k += 1
                    if not (k < n and b[k] == 34) or k0 >= m8:
                        return not_plain
                    size = k - k0
                    key = _key(words[k0], words[k - 8] if size >= 8 else _U(0), size)
                    if key == _ANNOTATIONS:
                        key = -1
                    if key >= 0:
                        if have & (1 << key):
                            return not_plain
                        have |= 1 << key
                    i = k + 1
                    while i < n and _blank(b[i]):
                        i += 1
                    if not (i < n and b[i] == 58):
                        return not_plain
                    i += 1
                    while i < n and _blank(b[i]):
                        i += 1
                    c = b[i] if i < n else 0
                    # its value
                    if key == _BBOX:  # 4 numbers
                        if c != 91:
                            return not_plain
                        for q in range(4):
                            i += 1
                            while i < n and _blank(b[i]):
                                i += 1
                            c = b[i] if i < n else 0
                            j = i + 1 if c == 45 else i
                            e = -1
                            if j < m8:
                                e, v, is_float = _short(words[j])
                            if e > 0:
                                e += j
                                exact = True
                                if c == 45 and (is_float or v != 0.0):
                                    v = -v
                            else:
                                e, v, exact, is_float = _number(b, i)
                                if e < 0:
                                    return not_plain
                            if fits:
                                boxes[4 * m + q] = v
                            if not exact:
                                if n_slow < len(slow):
                                    slow[n_slow, 0] = i
                                    slow[n_slow, 1] = e
                                    slow[n_slow, 2] = ~(4 * m + q)
                                n_slow += 1
                            i = e
                            while i < n and _blank(b[i]):
                                i += 1
                            if not (i < n and b[i] == (93 if q == 3 else 44)):
                                return not_plain
                        i += 1
                    elif key == _SEGMENTATION and c == 91:  # polygons
                        first_polygon = n_polygons
                        i += 1
                        while i < n and _blank(b[i]):
                            i += 1
                        if i < n and b[i] == 93:
                            i += 1
                        else:
                            while True:
                                if not (i < n and b[i] == 91):
                                    return not_plain
                                first = n_coords
                                i += 1
                                while i < n and _blank(b[i]):
                                    i += 1
                                if i < n and b[i] == 93:
                                    i += 1
                                else:
                                    while True:
                                        c = b[i] if i < n else 0
                                        j = i + 1 if c == 45 else i
                                        e = -1
                                        if j < m8:
                                            e, v, is_float = _short(words[j])
                                        if e > 0:
                                            e += j
                                            exact = True
                                            if c == 45 and (is_float or v != 0.0):
                                                v = -v
                                        else:
                                            e, v, exact, is_float = _number(b, i)
                                            if e < 0:
                                                return not_plain
                                        if n_coords < len(coords):
                                            coords[n_coords] = np.float32(v)
                                        if not exact:
                                            if n_slow < len(slow):
                                                slow[n_slow, 0] = i
                                                slow[n_slow, 1] = e
                                                slow[n_slow, 2] = n_coords
                                            n_slow += 1
                                        n_coords += 1
                                        i = e
                                        while i < n and _blank(b[i]):
                                            i += 1
                                        c = b[i] if i < n else 0
                                        i += 1
                                        if c == 93:
                                            break
                                        if c != 44:
                                            return not_plain
                                        while i < n and _blank(b[i]):
                                            i += 1
                                if (n_coords - first) & 1:
                                    return not_plain
                                if n_polygons < len(sizes):
                                    sizes[n_polygons] = n_coords - first
                                n_polygons += 1
                                while i < n and _blank(b[i]):
                                    i += 1
                                c = b[i] if i < n else 0
                                i += 1
                                if c == 93:
                                    break
                                if c != 44:
                                    return not_plain
                                while i < n and _blank(b[i]):
                                    i += 1
                        if fits:
                            per_value[n_values] = n_polygons - first_polygon
                            ints[3, m] = n_values
                        n_values += 1
                    elif key == _SEGMENTATION and c == 123:  # an RLE: its text
                        e = _value(b, i, stack)
                        if e < 0:
                            return not_plain
                        if fits:
                            spans[n_objects, 0] = i
                            spans[n_objects, 1] = e
                            spans[n_objects, 2] = m
                        n_objects += 1
                        i = e
                    elif key == _SEGMENTATION:  # null (anything else: the document's error)
                        i = _literal(b, i) if c == 110 else -1
                    elif key >= 0 or c == 45 or 48 <= c <= 57:  # an integer (key 0-2), a number
                        j = i + 1 if c == 45 else i
                        e = -1
                        if j < m8:
                            e, v, is_float = _short(words[j])
                        if e > 0:
                            e += j
                            exact = True
                            if c == 45 and (is_float or v != 0.0):
                                v = -v
                        else:
                            e, v, exact, is_float = _number(b, i)
                        if key >= 0:
                            if e < 0 or not exact or is_float:
                                return not_plain
                            if v < _INT32_MIN or v > _INT32_MAX:
                                return not_plain
                            if fits:
                                ints[key, m] = np.int64(v)
                        i = e
                    else:
                        i = _value(b, i, stack)
                    if i < 0:
                        return not_plain
                    while i < n and _blank(b[i]):
                        i += 1
                    c = b[i] if i < n else 0
                    i += 1
                    if c == 125:
                        break
                    if c != 44:
                        return not_plain
                    while i < n and _blank(b[i]):
                        i += 1
                need = (1 << _IMAGE_ID) | (1 << _CATEGORY_ID) | (1 << _BBOX)
                if have & need != need:
                    return not_plain
                m += 1
                while i < n and _blank(b[i]):
                    i += 1
                c = b[i] if i < n else 0
                i += 1
                if c == 93:
                    more = False
                elif c != 44:
                    return not_plain
                else:
                    while i < n and _blank(b[i]):
                        i += 1
            end = i
        while i < n and _blank(b[i]):
            i += 1
        c = b[i] if i < n else 0
        if c == 125:
            break
        if c != 44:
            return not_plain
        i += 1
        while i < n and _blank(b[i]):
            i += 1
    if start < 0:
        return not_plain
    full = (
        m > ints.shape[1] or n_polygons > len(sizes) or n_coords > len(coords) or n_slow > len(slow)
    )
    return FULL if full else OK, start, end, m, n_values, n_polygons, n_coords, n_slow, n_objects


@_jit
def place_vertices(source, first, at, scale, divide, out):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """The vertices ``source[first[k]:first[k + 1]]`` of each value k to ``out[at[k]:]``
    (none where ``at[k]`` is -1), divided by ``scale[k]`` where ``divide`` (float32
    ``[N, 2]``: numpy's float32 quotients, a quotient of two floats rounded once)."""
    for k in range(len(at)):
        d = at[k]
        if d < 0:
            continue
        w = scale[k, 0]
        h = scale[k, 1]
        for j in range(first[k], first[k + 1]):
            if divide:
                out[d, 0] = source[j, 0] / w
                out[d, 1] = source[j, 1] / h
            else:
                out[d, 0] = source[j, 0]
                out[d, 1] = source[j, 1]
            d += 1
