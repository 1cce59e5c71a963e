"""`fn.batch_permutation` and `fn.permute_batch`: permutations, derangements, repetitions,
determinism by seed, gathering dense and ragged batches, the index checks; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._exec.rng import SampleRNG, combine
from dali._ops.batch.permute import draw_permutation
from parity import cpu_gpu, device_id, to_device


def _source(batch):
    return lambda: batch


def _perms(batch_size, iters=5, seed=3, **kw):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=seed)
    def pipe():
        return fn.batch_permutation(**kw)

    p = pipe()
    out = []
    for _ in range(iters):
        (tl,) = p.run()
        assert tl.dtype == types.INT32 and tl.layout() == ""
        assert all(np.asarray(tl.at(i)).shape == () for i in range(len(tl)))
        out.append(np.array([int(tl.at(i)) for i in range(len(tl))]))
    return out


@pytest.mark.parametrize("n", [1, 2, 5, 64])
def test_permutations_are_permutations(n):
    perms = _perms(n)
    for p in perms:
        assert sorted(p.tolist()) == list(range(n))
    if n >= 5:  # iterations draw new permutations
        assert len({tuple(p) for p in perms}) > 1


@pytest.mark.parametrize("n", [2, 3, 17])
def test_no_fixed_points(n):
    for p in _perms(n, iters=20, no_fixed_points=True):
        assert sorted(p.tolist()) == list(range(n))
        assert not np.any(p == np.arange(n))


def test_no_fixed_points_is_ignored_for_one_sample():
    assert [p.tolist() for p in _perms(1, iters=2, no_fixed_points=True)] == [[0], [0]]


def test_repetitions():
    perms = _perms(16, iters=10, allow_repetitions=True)
    assert all(((p >= 0) & (p < 16)).all() for p in perms)
    assert any(len(set(p.tolist())) < 16 for p in perms)  # 16 draws: repeats almost surely
    for p in _perms(16, iters=10, allow_repetitions=True, no_fixed_points=True):
        assert ((p >= 0) & (p < 16)).all() and not np.any(p == np.arange(16))


def test_the_seed_decides():
    a, b, c = _perms(32, iters=1, seed=1), _perms(32, iters=1, seed=1), _perms(32, iters=1, seed=2)
    assert a[0].tolist() == b[0].tolist() != c[0].tolist()


def test_derangements_are_uniform():
    """Each of the 9 derangements of 4 elements is drawn about equally often."""
    counts: dict[tuple[int, ...], int] = {}
    for k in range(1800):
        rng = SampleRNG(combine(k, np.arange(4)))
        p = draw_permutation(rng, allow_repetitions=False, no_fixed_points=True)
        counts[tuple(p.tolist())] = counts.get(tuple(p.tolist()), 0) + 1
    assert len(counts) == 9
    assert all(abs(c - 200) < 5 * np.sqrt(200) for c in counts.values())


def _permute(samples, indices, layout=None, per_sample=False):
    @pipeline_def(batch_size=len(samples), num_threads=2, device_id=None)
    def pipe():
        kw = {"layout": layout} if layout else {}
        x = fn.external_source(_source(samples), **kw)
        idx = fn.external_source(_source(indices)) if per_sample else indices
        return fn.permute_batch(x, indices=idx)

    (out,) = pipe().run()
    return out


RAGGED = [np.arange(k + 1, dtype=np.int16) * (k + 1) for k in range(4)]


def test_constant_indices_on_a_ragged_batch():
    out = _permute(RAGGED, [3, 0, 0, 2])
    assert out.dtype == types.INT16
    assert [out.at(i).tolist() for i in range(4)] == [[0, 4, 8, 12], [0], [0], [0, 3, 6]]


def test_per_sample_indices_on_a_dense_batch_keep_the_layout():
    imgs = [np.full((3, 2, 3), k, np.uint8) for k in range(4)]
    idx = [np.int32(v) for v in (1, 1, 3, 0)]
    out = _permute(imgs, idx, layout="HWC", per_sample=True)
    assert out.layout() == "HWC"
    assert [int(out.at(i)[0, 0, 0]) for i in range(4)] == [1, 1, 3, 0]


def test_mixing_with_batch_permutation():
    @pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=5)
    def pipe():
        x = fn.external_source(lambda: [np.array([k], np.int32) for k in range(8)])
        perm = fn.batch_permutation(no_fixed_points=True)
        return fn.permute_batch(x, indices=perm), perm

    mixed, perm = pipe().run()
    assert [int(mixed.at(i)[0]) for i in range(8)] == [int(perm.at(i)) for i in range(8)]


@pytest.mark.parametrize(
    "indices,per_sample,message",
    [
        ([3, 0, 0], False, "does not match the current batch size, which is 4"),
        (2, False, "The number of sample indices 1"),
        ([3, 0, 0, 4], False, r"indices\[3\] = 4 is not a valid index"),
        ([3, 0, -1, 1], False, r"indices\[2\] = -1"),
        ([np.int32(v) for v in (1, 1, 3, 7)], True, r"indices\[3\] = 7"),
        ([np.int64(v) for v in (1, 1, 3, 0)], True, "INT32"),
        ([np.array([v], np.int32) for v in (1, 1, 3, 0)], True, "scalar"),
    ],
)
def test_index_errors(indices, per_sample, message):
    with pytest.raises(Exception, match=message):
        _permute(RAGGED, indices, per_sample=per_sample)


@pytest.mark.parametrize("ragged", [False, True])
@cpu_gpu()
def test_parity(ragged, device):
    rng = np.random.default_rng(2)
    shapes = [(5, 3), (0, 3), (9, 3), (2, 3)] if ragged else [(4, 3)] * 4
    data = [rng.random(s).astype(np.float32) for s in shapes]

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device), seed=3)
    def pipe():
        x = to_device(fn.external_source(lambda: data, layout="NC"), device)
        perm = fn.batch_permutation(allow_repetitions=True)
        return fn.permute_batch(x, indices=perm), fn.permute_batch(x, indices=[3, 2, 2, 0])

    return pipe().run()
