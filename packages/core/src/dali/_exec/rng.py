"""Counter-based random numbers keyed by (seed, operator, sample, epoch).

No random stream is shared between samples: every sample's values are a pure function of the
pipeline (or operator) seed, the operator's identity, the sample's identity and the epoch in
which it is seen. That makes results independent of thread count, prefetch depth, batch size
and sharding. The generator is SplitMix64 (a Weyl sequence passed through a 64-bit finaliser;
it passes BigCrush), evaluated for whole batches at once with numpy.

Normal values (`SampleRNG.normal_rows`) come from compiled passes when Numba is installed:
the counters, SplitMix64 and the uniforms of Box–Muller in one pass, numpy's ``log`` and
``cos`` next (numpy's SIMD ``log`` is not the C library's: the last bit of some values differs,
and the values must not depend on whether Numba is installed), then the square root and the
products in a second pass, in blocks that stay in the cache. They are the numpy expressions'
values bit for bit, about 4x faster (most of what is left is the C library's ``cos``, which
numpy calls), and only the values asked for are computed, not a rectangle padded to the
longest sample.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import numpy as np

from dali import _options as options
from dali._exec import gil

__all__ = ["SampleRNG", "combine", "stable_hash"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@functools.lru_cache(maxsize=32)
def _counters(n: int) -> np.ndarray:
    """The ``(1, n)`` counters of `SampleRNG.bits` (read-only, made once per ``n``)."""
    with np.errstate(over="ignore"):
        out: np.ndarray = (np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN)[None, :]
    out.flags.writeable = False
    return out


def _mix(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser, element-wise on uint64 (wrapping arithmetic)."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    x = x ^ (x >> _S31)
    return x


#: Normal values computed per block of `SampleRNG.normal_rows` (two float64 temporaries of
#: 256 KB: they stay in the cache between the passes).
_NORMAL_BLOCK = 1 << 15


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled passes of `SampleRNG.normal_rows`, or None when Numba is not installed.

    They do the numpy expressions' float64 operations one by one, in the same order (Numba does
    not fuse a multiplication and an addition without fast-math), so the values are the same.
    """
    try:
        import numba
    except ImportError:
        return None

    golden, m1, m2 = _GOLDEN, _M1, _M2
    s27, s30, s31, s11 = _S27, _S30, _S31, np.uint64(11)
    ulp = 2.0**-53
    two_pi = 2.0 * np.pi

    @numba.njit(nogil=True, cache=True)
    def uniforms(base, offsets, n, k0, k1, u1, angle):  # type: ignore[no-untyped-def]  # pragma: no cover
        # values k0 .. k1 of the rows back to back (row i from offsets[i]); value j of row i:
        # 1 - u(counter j + 1) and 2π · u(counter n + j + 1), the halves of `uniform(2 * n)`
        i = np.searchsorted(offsets, k0, side="right") - 1
        second = np.uint64(n)
        k = k0
        while k < k1:
            while offsets[i + 1] <= k:  # empty rows
                i += 1
            key = base[i]
            j0 = k - offsets[i]
            j1 = min(offsets[i + 1], k1) - offsets[i]
            at = k - k0 - j0
            for j in range(j0, j1):
                c = np.uint64(j + 1)
                z = key + c * golden
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                z = z ^ (z >> s31)
                u1[at + j] = 1.0 - np.float64(z >> s11) * ulp
                z = key + (second + c) * golden
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                z = z ^ (z >> s31)
                angle[at + j] = two_pi * (np.float64(z >> s11) * ulp)
            k += j1 - j0
            i += 1

    @numba.njit(nogil=True, cache=True)
    def box_muller(log_u1, cos_angle, offsets, k0, k1, loc, scale, affine, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        # sqrt(-2 log u1) · cos(angle), then loc + scale · that (`normal_rows`' order)
        i = np.searchsorted(offsets, k0, side="right") - 1
        k = k0
        while k < k1:
            while offsets[i + 1] <= k:
                i += 1
            m, s = loc[i], scale[i]
            end = min(offsets[i + 1], k1)
            for q in range(k, end):
                z = np.sqrt(-2.0 * log_u1[q - k0]) * cos_angle[q - k0]
                out[q] = m + s * z if affine else z
            k = end
            i += 1

    return uniforms, box_muller


#: Most values `SampleRNG.bits` draws in a compiled call that keeps the GIL (tens of
#: microseconds): giving the GIL up costs a re-take afterwards, which waits up to the switch
#: interval (5 ms) while another Python thread is busy; larger draws release it.
HELD_DRAW = 1 << 16


@functools.cache
def _bits_kernel() -> tuple[Any, Any] | None:
    """`SampleRNG.bits` compiled (the same SplitMix64 values: wrapping uint64 arithmetic): the
    call that keeps the GIL (up to `HELD_DRAW` values) and the one that releases it; or None
    without Numba. One call for the batch; the numpy expressions hold the GIL only in blocks of
    rows (`dali._exec.gil`), a call per row for a few hundred values a row (what a detection
    crop's search draws each round). Two functions: Numba's disk cache does not tell one
    function compiled with and without ``nogil`` apart."""
    try:
        import numba
    except ImportError:
        return None

    golden, m1, m2 = _GOLDEN, _M1, _M2
    s27, s30, s31 = _S27, _S30, _S31

    @numba.njit(cache=True)
    def bits_held(base, n, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        for i in range(base.shape[0]):
            key = base[i]
            for j in range(n):
                z = key + np.uint64(j + 1) * golden
                z = (z ^ (z >> s30)) * m1
                z = (z ^ (z >> s27)) * m2
                out[i, j] = z ^ (z >> s31)

    @numba.njit(nogil=True, cache=True)
    def bits_free(base, n, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        bits_held(base, n, out)

    return bits_held, bits_free


def numba_available() -> bool:
    """Whether `SampleRNG.normal_rows` can use its compiled passes (Numba is installed)."""
    return _kernels() is not None


def stable_hash(text: str) -> int:
    """A 64-bit hash of a string that is the same in every process and Python version."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def combine(*parts: Any) -> np.ndarray:
    """Hash integers (scalars or arrays, broadcast together) into uint64 keys."""
    with np.errstate(over="ignore"):
        h = np.full((), 0x2545F4914F6CDD1D, dtype=np.uint64)
        for p in parts:
            v = np.asarray(p)
            if v.dtype != np.uint64:
                v = v.astype(np.int64).astype(np.uint64)
            h = _mix(h ^ (v + _GOLDEN))
        return h


class SampleRNG:
    """Random numbers for a batch, one independent counter-based stream per sample.

    Args:
        keys: uint64 array with one key per sample (from `combine`).

    Example:
        >>> rng = SampleRNG(combine(42, np.arange(4)))
        >>> rng.uniform(3).shape
        (4, 3)
    """

    def __init__(self, keys: np.ndarray) -> None:
        self.keys = np.asarray(keys, dtype=np.uint64).reshape(-1)

    def __len__(self) -> int:
        return len(self.keys)

    def subset(self, index: Any) -> SampleRNG:
        return SampleRNG(self.keys[index])

    def _base(self, stream: int) -> np.ndarray:
        """The per-sample keys of sub-stream ``stream``."""
        if stream == 0:
            return self.keys
        with np.errstate(over="ignore"):
            return _mix(self.keys ^ np.uint64(stream) * _M2)

    def bits(self, n: int, *, stream: int = 0) -> np.ndarray:
        """``(batch, n)`` uint64 values; ``stream`` selects an independent sub-stream."""
        with np.errstate(over="ignore"):
            base = self._base(stream)
            count = len(base) * n
            kernels = _bits_kernel() if count > options.HELD_ELEMENTS else None
            if kernels is not None:
                kernel = kernels[0] if count <= HELD_DRAW else kernels[1]
                out = np.empty((len(base), n), np.uint64)
                kernel(np.ascontiguousarray(base, np.uint64).reshape(-1), n, out)
                return out
            counters = _counters(n)
            # in blocks of rows small enough for numpy to keep the GIL (`dali._exec.gil`): the
            # decoders' random windows draw (256, 22) values per batch in their threads
            return gil.by_rows(
                lambda b: (_mix(b[:, None] + counters),), len(base), max(1, n), base
            )[0]

    def uniform(self, n: int, *, stream: int = 0) -> np.ndarray:
        """``(batch, n)`` float64 values in [0, 1) with 53 random bits each."""
        out: np.ndarray = (self.bits(n, stream=stream) >> np.uint64(11)).astype(np.float64)
        return out * (2.0**-53)

    def normal(self, n: int, *, stream: int = 0) -> np.ndarray:
        """``(batch, n)`` standard normal float64 values (Box–Muller)."""
        b = len(self.keys)
        return self.normal_rows(np.full(b, n, np.int64), n, stream=stream).reshape(b, n)

    def normal_rows(
        self,
        sizes: Any,
        n: int,
        *,
        stream: int = 0,
        loc: np.ndarray | None = None,
        scale: np.ndarray | None = None,
        out: np.ndarray | None = None,
        use_numba: bool | None = None,
    ) -> np.ndarray:
        """The first ``sizes[i]`` values of row ``i`` of `normal` ``(n)``, the rows back to back.

        A sample's values depend on ``n`` (its second uniforms follow the first ``n``), so a
        ragged batch asks for the prefixes of rows of its longest sample's length without
        computing the rest.

        Args:
            sizes: Values per row (``0 <= sizes[i] <= n``), one per sample.
            n: The row length of `normal`.
            stream: See `bits`.
            loc: With ``scale``: one float64 per row; the values are ``loc + scale * z``.
            scale: See ``loc``.
            out: Where to write the ``sum(sizes)`` values (float64, or float32: rounded once);
                a new float64 array when None.
            use_numba: Force the compiled (True) or the numpy (False) passes; None: the
                compiled ones from `options.HELD_ELEMENTS` values on when Numba is installed
                (below, numpy keeps the GIL; Numba releases it). Both give the same bits.

        Example:
            >>> rng = SampleRNG(combine(3, np.arange(2)))
            >>> full = rng.normal(4)
            >>> bool((rng.normal_rows([4, 1], 4) == np.concatenate([full[0], full[1, :1]])).all())
            True
        """
        sizes = np.asarray(sizes, dtype=np.int64).reshape(-1)
        total = int(sizes.sum())
        if out is None:
            out = np.empty(total, np.float64)
        affine = loc is not None and scale is not None
        kernels = None
        if use_numba or (use_numba is None and total >= options.HELD_ELEMENTS):
            kernels = _kernels()
            if kernels is None and use_numba:
                raise RuntimeError("the compiled normal values need Numba (pip install numba)")
        if kernels is None or out.dtype not in (np.float32, np.float64):
            z = self._normal_numpy(n, stream)
            if loc is not None and scale is not None:
                z = np.reshape(loc, (-1, 1)) + np.reshape(scale, (-1, 1)) * z
            out[...] = z.reshape(-1) if (sizes == n).all() else z[gil.arange(n) < sizes[:, None]]
            return out
        uniforms, box_muller = kernels
        offsets = np.zeros(len(sizes) + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        base = self._base(stream)
        if loc is not None and scale is not None:
            loc64 = np.ascontiguousarray(loc, np.float64).reshape(-1)
            scale64 = np.ascontiguousarray(scale, np.float64).reshape(-1)
        else:
            loc64 = scale64 = np.zeros(len(sizes), np.float64)
        # in blocks that stay in the cache, numpy's log and cos in between
        block = min(total, _NORMAL_BLOCK)
        u1 = np.empty(block, np.float64)
        angle = np.empty(block, np.float64)
        for k0 in range(0, total, block):
            k1 = min(k0 + block, total)
            a, c = u1[: k1 - k0], angle[: k1 - k0]
            uniforms(base, offsets, n, k0, k1, a, c)
            np.log(a, out=a)
            np.cos(c, out=c)
            box_muller(a, c, offsets, k0, k1, loc64, scale64, affine, out)
        return out

    def _normal_numpy(self, n: int, stream: int) -> np.ndarray:
        """`normal` in numpy: the reference of the compiled passes."""
        u = self.uniform(2 * n, stream=stream)
        u1 = 1.0 - u[:, :n]  # (0, 1]: log is finite
        u2 = u[:, n:]
        out: np.ndarray = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        return out
