"""The header of a ``.npy`` file: what `fn.readers.numpy` needs to read an array without numpy's
loader.

A ``.npy`` file is a header and the raw array bytes (the *payload*) right after it::

    \\x93NUMPY  major minor  header_len  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
    6 bytes    1     1      2 or 4 (LE) header_len bytes of a Python dict literal, space-padded

Version 1.0 has a 2-byte header length; 2.0 a 4-byte one (headers over 64 KiB); 3.0 is 2.0 with
a UTF-8 header (field names in structured types). The payload is ``prod(shape)`` items of
``descr`` in C order, or in Fortran order (``fortran_order``: the C-order array of the reversed
shape, transposed). `parse_header` reads all three versions; the reader reads the payload
itself (byte ranges, so that a region of interest reads only its bytes).

Supported element types are DALI's: ``bool``, ``(u)int8..64`` and ``float16/32/64``, in either
byte order; a big-endian payload is byte-swapped to native when read (DALI 2.4 rejects such
files, numpy reads them). Complex, string, object and structured types are errors.

Example:
    >>> import io
    >>> import numpy as np
    >>> buf = io.BytesIO()
    >>> np.save(buf, np.zeros((2, 3), ">i2"))
    >>> h = parse_header(buf.getvalue()[:header_span(buf.getvalue())], 140)
    >>> h.dtype.str, h.shape, h.fortran_order, h.data_offset, h.nbytes
    ('>i2', (2, 3), False, 128, 12)
"""

from __future__ import annotations

import ast
import math
from typing import Any, NamedTuple

import numpy as np

__all__ = ["MAGIC", "NpyFormatError", "NpyHeader", "header_span", "parse_header"]

#: The first six bytes of every ``.npy`` file.
MAGIC = b"\x93NUMPY"

#: The element types DALI's numpy reader produces, by kind and size (``descr`` less its byte
#: order): DALI's ``TypeFromNumpyStr``.
_SUPPORTED = {"b1", "u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "f2", "f4", "f8"}

#: The bytes before the header text: magic, version, and the 2- (v1) or 4-byte (v2, v3) length.
_PREAMBLE = {1: 10, 2: 12, 3: 12}


class NpyFormatError(ValueError):
    """A file is not a ``.npy`` file DALI can read (the message says why)."""


class NpyHeader(NamedTuple):
    """What a ``.npy`` header says about its array."""

    #: the element type as stored, byte order included (``>i2`` for big-endian int16)
    dtype: np.dtype[Any]
    #: the array's shape (its logical shape, also for ``fortran_order`` files)
    shape: tuple[int, ...]
    #: the payload is in Fortran order: the C-order array of ``shape[::-1]``, transposed
    fortran_order: bool
    #: where the payload starts in the file
    data_offset: int
    #: the payload's size in bytes
    nbytes: int

    @property
    def stored_shape(self) -> tuple[int, ...]:
        """The shape of the payload read as a C-order array (``shape`` reversed for Fortran)."""
        return self.shape[::-1] if self.fortran_order else self.shape


def _version(prefix: bytes) -> int:
    if len(prefix) < 8 or prefix[:6] != MAGIC:
        raise NpyFormatError("not a numpy file (no '\\x93NUMPY' magic at its start)")
    major, minor = prefix[6], prefix[7]
    if major not in _PREAMBLE or minor != 0:
        raise NpyFormatError(f"unsupported .npy format version {major}.{minor} (1.0 to 3.0 are)")
    return major


def header_span(prefix: bytes | np.ndarray) -> int:
    """The size of the whole header (where the payload starts), from the file's first bytes.

    Needs the first 12 bytes (10 for version 1.0); a file's first 4 KiB always suffice unless
    its header is larger.

    Raises:
        NpyFormatError: Not a ``.npy`` file, an unknown version, or fewer bytes than needed.
    """
    prefix = bytes(prefix[:12])
    version = _version(prefix)
    pre = _PREAMBLE[version]
    if len(prefix) < pre:
        raise NpyFormatError(f"the file ends inside its header ({len(prefix)} bytes)")
    return pre + int.from_bytes(prefix[8:pre], "little")


def _dtype(descr: Any) -> np.dtype[Any]:
    if not isinstance(descr, str):
        raise NpyFormatError(f"unsupported element type {descr!r} (structured arrays are not)")
    try:
        dtype = np.dtype(descr)
    except TypeError as e:
        raise NpyFormatError(f"unknown element type {descr!r}") from e
    code = f"{dtype.kind}{dtype.itemsize}"
    if code not in _SUPPORTED or dtype.fields is not None:
        raise NpyFormatError(
            f"unsupported element type {descr!r} ({dtype.name}); supported are bool, "
            "int8..int64, uint8..uint64, float16, float32 and float64"
        )
    return dtype


def parse_header(head: bytes | np.ndarray, file_size: int | None = None) -> NpyHeader:
    """Parse a ``.npy`` header from the file's first `header_span` (or more) bytes.

    Args:
        head: The file's first bytes, at least `header_span` of them.
        file_size: The file's size, to check that the payload is all there (None: unchecked).

    Raises:
        NpyFormatError: The header is malformed, names an unsupported type, or the file is
            shorter than its header says.
    """
    head = bytes(head)
    span = header_span(head)
    if len(head) < span:
        raise NpyFormatError(f"the file ends inside its header ({len(head)} of {span} bytes)")
    version = _version(head)
    raw = head[_PREAMBLE[version] : span]
    try:
        text = raw.decode("utf-8" if version == 3 else "latin1")
        fields = ast.literal_eval(text)
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError) as e:
        raise NpyFormatError(
            f"the header is not a Python dict literal: {text.strip()[:80]!r}"
        ) from e
    if not isinstance(fields, dict) or set(fields) != {"descr", "fortran_order", "shape"}:
        raise NpyFormatError(
            "the header must be a dict of exactly 'descr', 'fortran_order' and 'shape', got "
            f"{text.strip()[:120]!r}"
        )
    shape = fields["shape"]
    if not isinstance(shape, tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise NpyFormatError(f"'shape' must be a tuple of non-negative ints, got {shape!r}")
    order = fields["fortran_order"]
    if not isinstance(order, bool):
        raise NpyFormatError(f"'fortran_order' must be True or False, got {order!r}")
    dtype = _dtype(fields["descr"])
    header = NpyHeader(dtype, shape, order, span, math.prod(shape) * dtype.itemsize)
    if file_size is not None and span + header.nbytes > file_size:
        raise NpyFormatError(
            f"the file is truncated: its header says {header.nbytes} bytes of data from byte "
            f"{span} ({header.dtype.name} {shape}), the file has {file_size} bytes"
        )
    return header
