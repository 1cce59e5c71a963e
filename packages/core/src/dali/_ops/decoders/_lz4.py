"""LZ4 *block* decompression into a caller's buffer, for `fn.decoders.inflate`.

An LZ4 block (what ``lz4.block.compress(data, store_size=False)`` and nvCOMP's batched LZ4
produce, without the frame format's header) is a list of *sequences*. Each starts with a token
byte: its high nibble is the number of literal bytes that follow (15: more length bytes follow,
each added, until one is not 255), its low nibble the match length less 4 (extended the same
way after the offset). After the literals comes a 2-byte little-endian *offset*: the match
copies ``length`` bytes starting ``offset`` bytes back in the output, which may overlap what it
writes (an offset of 1 repeats one byte). The last sequence has literals only.

`decompress_into` fills a buffer of the size the caller expects and reports what happened:

* ``OK``: the block fit; the first ``written`` bytes are its contents (the caller decides what
  the rest holds: `fn.decoders.inflate` zeroes it, as DALI does);
* ``OVERFLOW``: the block holds more than the buffer: the buffer holds its first bytes;
* ``CORRUPT``: the block is malformed (truncated, or a match reaching before the output's
  start): the buffer holds what was decoded before the error.

Two implementations: the ``lz4`` package (the ``inflate`` extra: LZ4's own C decoder, releasing
the GIL), used when it is installed, and `_decode`, a direct transcription of the format above,
compiled by Numba (a default dependency on the main platforms; about 10× slower than ``lz4``).
`_decode` also sorts out the blocks ``lz4`` rejects (corrupt, or larger than the buffer), and
`decompressed_size` walks a block without writing it.

Example:
    >>> import numpy as np
    >>> block = np.frombuffer(b"\\x1fa\\x01\\x00\\x01\\x00", np.uint8)  # "a", then 20 more
    >>> out = np.zeros(24, np.uint8)
    >>> decompress_into(block, out), bytes(out[:21]) == b"a" * 21, decompressed_size(block)
    ((0, 21), True, 21)
    >>> decompress_into(block, out[:8])  # the first 8 bytes: the buffer is full
    (1, 8)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "CORRUPT",
    "OK",
    "OVERFLOW",
    "available",
    "decompress_into",
    "decompressed_size",
]

#: The block fit in the buffer.
OK = 0
#: The block holds more bytes than the buffer: the buffer holds the first ones.
OVERFLOW = 1
#: The block is malformed.
CORRUPT = 2


def _decode(src: Any, dst: Any) -> tuple[int, int]:  # pragma: no cover - compiled by Numba
    """Decode the block ``src`` into ``dst`` (both 1-D uint8): ``(status, bytes written)``.

    Plain Python that Numba compiles as it is (`_kernels`); the ``int()`` casts keep the
    arithmetic off uint8 scalars, which would wrap around when it runs uncompiled.
    """
    n = src.size
    cap = dst.size
    i = 0
    o = 0
    while i < n:
        token = int(src[i])
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if i >= n:
                    return 2, o
                b = int(src[i])
                i += 1
                lit += b
                if b != 255:
                    break
        if i + lit > n:
            return 2, o
        if o + lit > cap:
            dst[o:cap] = src[i : i + cap - o]
            return 1, cap
        dst[o : o + lit] = src[i : i + lit]
        i += lit
        o += lit
        if i == n:  # the last sequence: literals only
            return 0, o
        if i + 2 > n:
            return 2, o
        offset = int(src[i]) | (int(src[i + 1]) << 8)
        i += 2
        if offset == 0 or offset > o:
            return 2, o
        length = token & 15
        if length == 15:
            while True:
                if i >= n:
                    return 2, o
                b = int(src[i])
                i += 1
                length += b
                if b != 255:
                    break
        length += 4
        status = 0
        if o + length > cap:
            length = cap - o
            status = 1
        # The match repeats the ``offset`` bytes before ``o``: copied in chunks that never read
        # what they write, each twice the last (what is written repeats with period offset).
        start = o - offset
        done = 0
        while done < length:
            m = min(offset + done, length - done)
            dst[o + done : o + done + m] = dst[start : start + m]
            done += m
        o += length
        if status:
            return 1, o
    return 2, o  # an empty block, or one that ends after a match: not what LZ4 writes


def _size(src: Any) -> int:  # pragma: no cover - compiled by Numba
    """The number of bytes the block ``src`` decodes to, or -1 when it is malformed."""
    n = src.size
    i = 0
    o = 0
    while i < n:
        token = int(src[i])
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if i >= n:
                    return -1
                b = int(src[i])
                i += 1
                lit += b
                if b != 255:
                    break
        i += lit
        o += lit
        if i == n:
            return o
        if i + 2 > n:
            return -1
        offset = int(src[i]) | (int(src[i + 1]) << 8)
        i += 2
        if offset == 0 or offset > o:
            return -1
        length = token & 15
        if length == 15:
            while True:
                if i >= n:
                    return -1
                b = int(src[i])
                i += 1
                length += b
                if b != 255:
                    break
        o += length + 4
    return -1


@functools.cache
def _numba_kernels() -> tuple[Callable[..., tuple[int, int]], Callable[..., int]] | None:
    """`_decode` and `_size` compiled (releasing the GIL), or None without Numba."""
    try:
        import numba
    except ImportError:
        return None
    jit = numba.njit(nogil=True, cache=True)
    return jit(_decode), jit(_size)


@functools.cache
def _lz4_block() -> Any:
    """The ``lz4.block`` module, or None when the ``lz4`` package is not installed."""
    try:
        import lz4.block  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    return lz4.block


def available() -> bool:
    """Whether a decoder fast enough for data is installed (``lz4``, or Numba)."""
    return _lz4_block() is not None or _numba_kernels() is not None


def decompress_into(src: np.ndarray, dst: np.ndarray) -> tuple[int, int]:
    """Decompress the LZ4 block ``src`` into ``dst`` (1-D uint8 arrays).

    Returns:
        ``(status, written)``: `OK`, `OVERFLOW` or `CORRUPT` (module docstring) and how many
        bytes of ``dst`` were written, from its start.

    Raises:
        ImportError: Neither ``lz4`` nor Numba is installed (`available`).
    """
    block = _lz4_block()
    if block is not None and dst.size:
        try:
            out = block.decompress(src, uncompressed_size=dst.size)
        except block.LZ4BlockError:
            pass  # corrupt, or larger than dst: `_decode` says which and fills what fits
        else:
            dst[: len(out)] = np.frombuffer(out, np.uint8)
            return OK, len(out)
    kernels = _numba_kernels()
    if kernels is None:
        if block is None:
            raise ImportError("LZ4 decompression needs the lz4 package or Numba")
        return _decode(src, dst)  # uncompiled: only for a block lz4 rejected
    return kernels[0](src, dst)


def decompressed_size(src: np.ndarray) -> int:
    """How many bytes the LZ4 block ``src`` decodes to; -1 when it is malformed."""
    kernels = _numba_kernels()
    return int(kernels[1](src) if kernels is not None else _size(src))
