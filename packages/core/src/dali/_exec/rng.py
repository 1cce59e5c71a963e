"""Counter-based random numbers keyed by (seed, operator, sample, epoch).

No random stream is shared between samples: every sample's values are a pure function of the
pipeline (or operator) seed, the operator's identity, the sample's identity and the epoch in
which it is seen. That makes results independent of thread count, prefetch depth, batch size
and sharding. The generator is SplitMix64 (a Weyl sequence passed through a 64-bit finaliser;
it passes BigCrush), evaluated for whole batches at once with numpy.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import numpy as np

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

    def bits(self, n: int, *, stream: int = 0) -> np.ndarray:
        """``(batch, n)`` uint64 values; ``stream`` selects an independent sub-stream."""
        with np.errstate(over="ignore"):
            base = self.keys if stream == 0 else _mix(self.keys ^ np.uint64(stream) * _M2)
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
        u = self.uniform(2 * n, stream=stream)
        u1 = 1.0 - u[:, :n]  # (0, 1]: log is finite
        u2 = u[:, n:]
        return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
