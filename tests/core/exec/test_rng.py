"""The counter RNG's normal values: the compiled passes give the numpy expressions' bits (many
keys, streams, ragged sizes, block boundaries, loc/scale, float32 and float64 outputs), and
`normal_rows` gives the prefixes of `normal`'s rows."""

from __future__ import annotations

import numpy as np
import pytest
from dali._exec import rng as rng_module
from dali._exec.rng import SampleRNG, combine

needs_numba = pytest.mark.skipif(not rng_module.numba_available(), reason="needs Numba")


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@needs_numba
@pytest.mark.parametrize("seed", range(12))
def test_compiled_normal_values_are_the_numpy_values_bit_for_bit(seed):
    g = np.random.default_rng(seed)
    for trial in range(6):
        b = int(g.integers(1, 12))
        n = int(g.integers(1, 9000))
        sizes = g.integers(0, n + 1, b)
        if trial % 2:
            sizes[int(g.integers(0, b))] = n  # n is the longest row
        rng = SampleRNG(combine(int(g.integers(0, 2**62)), np.arange(b), seed))
        stream = int(g.integers(0, 4))
        affine = trial % 3 != 0
        loc = g.normal(size=b) * 100 if affine else None
        scale = np.abs(g.normal(size=b)) * 10 if affine else None
        for dtype in (np.float64, np.float32):
            got, want = (
                rng.normal_rows(
                    sizes,
                    n,
                    stream=stream,
                    loc=loc,
                    scale=scale,
                    out=np.empty(int(sizes.sum()), dtype),
                    use_numba=use,
                )
                for use in (True, False)
            )
            _same_bits(got, want)


@needs_numba
def test_compiled_normal_values_across_blocks(monkeypatch):
    # blocks much smaller than the rows, and empty rows: a block starts and ends mid-row
    monkeypatch.setattr(rng_module, "_NORMAL_BLOCK", 37)
    rng = SampleRNG(combine(9, np.arange(5)))
    sizes = np.array([0, 100, 0, 3, 250])
    got = rng.normal_rows(sizes, 250, use_numba=True)
    _same_bits(got, rng.normal_rows(sizes, 250, use_numba=False))


def test_normal_rows_are_prefixes_of_normal():
    rng = SampleRNG(combine(4, np.arange(3)))
    full = rng.normal(600, stream=2)
    sizes = [600, 0, 17]
    got = rng.normal_rows(sizes, 600, stream=2)
    _same_bits(got, np.concatenate([full[i, :k] for i, k in enumerate(sizes)]))
    # the same rows through the numpy passes when Numba is missing
    _same_bits(rng.normal_rows(sizes, 600, stream=2, use_numba=False), got)


def test_normal_rows_with_loc_and_scale_round_once_to_float32():
    rng = SampleRNG(combine(8, np.arange(2)))
    loc, scale = np.array([1.5, -3.0]), np.array([2.0, 0.25])
    want = (loc[:, None] + scale[:, None] * rng.normal(700)).astype(np.float32).reshape(-1)
    got = rng.normal_rows([700, 700], 700, loc=loc, scale=scale, out=np.empty(1400, np.float32))
    _same_bits(got, want)


def test_subsets_give_the_rows_of_the_batch():
    # a row's values depend on its key and the row length only: splitting the batch over
    # threads (`fn.random.normal`) gives the same values
    rng = SampleRNG(combine(1, np.arange(6)))
    sizes = np.array([900, 5, 0, 1200, 77, 1200])
    whole = rng.normal_rows(sizes, 1200)
    parts = [rng.subset(slice(a, b)).normal_rows(sizes[a:b], 1200) for a, b in [(0, 2), (2, 6)]]
    _same_bits(np.concatenate(parts), whole)


@needs_numba
@pytest.mark.parametrize(
    ("batch", "n"), [(40, 13), (3, 301), (64, 1), (2, 5000), (0, 50), (256, 22), (300, 300)]
)
def test_compiled_bits_are_the_numpy_bits(monkeypatch, batch, n):
    """`bits` of a batch of more values than numpy computes while holding the GIL comes from
    one compiled call (keeping the GIL up to `HELD_DRAW` values, releasing it above); the
    values are the numpy blocks' (any stream)."""
    rng = SampleRNG(combine(7, np.arange(batch)))
    for stream in (0, 3, 0x62626F78_00000001):
        got = rng.bits(n, stream=stream)
        with monkeypatch.context() as m:
            m.setattr(rng_module, "_bits_kernel", lambda: None)
            want = rng.bits(n, stream=stream)
        _same_bits(got, want)
