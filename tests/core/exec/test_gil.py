"""Batch arithmetic in blocks of rows (`dali._exec.gil`) and the GPU operators' host planning.

Issue 4: numpy gives the GIL up inside operations over more than 500 elements, and each re-take
can wait for the switch interval while another Python thread runs; the GPU stage's planning of a
batch (resize, crop_mirror_normalize, the colour operators) works in blocks of rows. These tests
check that the blocks give exactly what one pass gives, and that no planning step gives the GIL
up (`dali._testing.gil.gives_gil_up`: a probe thread that can run only where the caller releases
the lock, no timing involved). What a release costs is timing, measured by
``benchmarks/gil_held.py`` (with and without a busy Python thread).
"""

from __future__ import annotations

import time
import types

import numpy as np
import pytest
from dali import _options as options
from dali._exec import gil
from dali._ops.gpu import kernels as G
from dali._ops.image.resample import gpu_plan as RG
from dali._ops.image.resize import output_geometry_batch
from dali._ops.window import extract_gpu as WG
from dali._testing.gil import GilProbe, gil_enabled, gives_gil_up, planning_steps


def test_row_blocks_and_by_rows():
    assert gil.row_blocks(0, 2) == [slice(0, 0)]
    assert gil.row_blocks(250, 2) == [slice(0, 250)]
    assert gil.row_blocks(251, 2) == [slice(0, 250), slice(250, 251)]
    assert gil.row_blocks(5, 1000) == [slice(i, i + 1) for i in range(5)]
    a = np.arange(1200.0).reshape(600, 2)
    shared = np.array([10.0, 20.0])  # not n rows: passed whole

    def fn(x, y, z):
        assert len(x) <= 250 and z is None
        return x + y, x.sum(axis=1)

    total, sums = gil.by_rows(fn, 600, 2, a, shared, None)
    assert np.array_equal(total, a + shared) and np.array_equal(sums, a.sum(axis=1))
    assert total.flags.writeable and total.flags.c_contiguous and total.dtype == np.float64
    # blocks of records, and of rows without columns, joined as np.concatenate joins them
    rec = np.dtype([("a", "<u8"), ("b", "<f8", (3,))], align=True)
    recs = np.zeros(600, rec)
    recs["a"] = np.arange(600)
    joined = gil.by_rows(lambda r: (r, np.zeros((len(r), 0))), 600, 2, recs)
    assert joined[0].tobytes() == recs.tobytes() and joined[1].shape == (600, 0)


def test_zeros_is_writable_zeroed_and_shaped():
    z = gil.zeros((3, 4), np.int32)
    assert z.shape == (3, 4) and z.dtype == np.int32 and not z.any()
    z[1, 2] = 7
    assert z.sum() == 7
    assert gil.zeros(np.int64(3), np.int32).shape == (3,)  # a numpy count (len of an array)
    desc = gil.zeros(5, WG._DESC)
    assert desc.shape == (5,) and desc.tobytes() == bytes(5 * WG._DESC.itemsize)


def _blocked_and_whole(plan):
    """``plan()`` in blocks of rows (the default ``options.HELD_ELEMENTS``), then in one pass."""
    blocked = plan()
    held = options.HELD_ELEMENTS
    try:
        options.HELD_ELEMENTS = 10**9
        return blocked, plan()
    finally:
        options.HELD_ELEMENTS = held


def _assert_same(blocked, whole):
    for a, b in zip(blocked, whole, strict=True):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b


def _batch(n, seed=0):
    rng = np.random.default_rng(seed)
    spatial = rng.integers(100, 500, (n, 2))
    shapes = np.concatenate([spatial, np.full((n, 1), 3)], axis=1)
    return spatial, shapes


@pytest.mark.parametrize("n", [256, 1000])
def test_window_descs_in_blocks_equal_one_pass(n):
    _, shapes = _batch(n, seed=1)
    ptrs = np.arange(n, dtype=np.uint64)
    wins = np.tile([224, 224, 3], (n, 1))
    flips = np.zeros((n, 3), bool)
    flips[::2, 1] = True

    def descs():
        return WG.window_descs(shapes, ptrs, ptrs, wins * 0, wins, flips, (2, 0, 1), shapes[:, 2])

    one, whole = _blocked_and_whole(descs)
    assert one.tobytes() == whole.tobytes()


def test_dense_input_batch_rows():
    dense = types.SimpleNamespace(
        shape=(256, 224, 224, 3),
        itemsize=1,
        flags=types.SimpleNamespace(c_contiguous=True),
        data=types.SimpleNamespace(ptr=1 << 30),
    )
    tl = types.SimpleNamespace(held_dense=dense)
    shapes, arr, ptrs, _ = G.input_batch(tl)
    assert shapes == [(224, 224, 3)] * 256
    assert arr.shape == (256, 3) and (arr == [224, 224, 3]).all() and arr.flags.writeable
    assert int(ptrs[1] - ptrs[0]) == 224 * 224 * 3


def test_flat_input_batch_addresses():
    """Samples back to back in one buffer (what the decoders and the kernels return): each
    sample's address is the buffer's plus the elements before it."""
    rng = np.random.default_rng(0)
    shapes = [tuple(s) for s in rng.integers(1, 500, (600, 3)).tolist()]
    flat = types.SimpleNamespace(itemsize=2, data=types.SimpleNamespace(ptr=1 << 30))
    tl = types.SimpleNamespace(held_dense=None, flat=lambda: (flat, shapes), sample_ndim=3)
    got_shapes, arr, ptrs, keep = G.input_batch(tl)
    sizes = np.array([np.prod(s) for s in shapes], np.uint64)
    want = (1 << 30) + 2 * np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.uint64)
    assert got_shapes is shapes and keep == [flat] and ptrs.dtype == np.uint64
    assert arr.tolist() == [list(s) for s in shapes] and ptrs.tolist() == want.tolist()
    # the outputs' addresses: the same rule, and for one shape k times its bytes
    ptrs, total = G.packed_addresses(1 << 30, shapes, 2)
    assert ptrs.tolist() == want.tolist() and total == int(sizes.sum())
    assert G.packed_addresses(5, [], 4)[0].size == 0
    even = G.uniform_addresses(1 << 30, 12, 600)
    assert even.dtype == np.uint64 and even.tolist() == [(1 << 30) + 12 * k for k in range(600)]


def test_host_image_aligns_and_pads():
    a = np.arange(3, dtype=np.uint8)
    b = np.arange(4, dtype=np.int64)
    c = np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::2]  # not contiguous: C order bytes
    host, offsets = G.host_image(a, b, c)
    assert offsets == [0, 16, 48]
    assert host[:3].tolist() == [0, 1, 2] and not host[3:16].any()
    assert host[16:48].view(np.int64).tolist() == [0, 1, 2, 3]
    assert host[48:64].view(np.int32).tolist() == [0, 2, 3, 5]
    assert G.host_image(np.zeros(0, np.uint8))[0].size == 16


def test_resize_planning_in_blocks_equals_one_pass():
    spatial, shapes = _batch(700, seed=2)
    spatial[::7] = 1  # some upscaling rows (another tile need)
    shapes[:, :2] = spatial
    req = np.full((700, 2), 224.0)

    def plan():
        out, lo, hi, rare = output_geometry_batch(spatial, req)
        mins = np.full((700, 1), 1)
        pb = RG.plan_batch(spatial, out, lo, hi, mins, mins, True)
        geo = RG.Images(shapes, (0, 1), pb)
        tiles = RG.choose_tiles(geo)
        ptrs = np.arange(700, dtype=np.uint64)
        desc, blocks = RG.descs_2d(geo, ptrs, ptrs, *tiles[:2])
        return out, lo, hi, rare, *pb, tiles, desc.tobytes(), blocks, geo.out_shapes()

    _assert_same(*_blocked_and_whole(plan))


def test_rng_bits_in_blocks_equal_one_pass():
    from dali._exec.rng import SampleRNG, combine

    rng = SampleRNG(combine(7, np.arange(600)))
    blocked, whole = _blocked_and_whole(lambda: [rng.bits(22), rng.bits(22, stream=3), rng.bits(1)])
    for a, b in zip(blocked, whole):
        assert a.shape == b.shape and np.array_equal(a, b) and a.flags.writeable


@pytest.mark.parametrize("n", [64, 700])
def test_colour_planning_in_blocks_equals_one_pass(n):
    # color_twist's GPU host work (matrices, kernel coefficients, descriptions), in blocks of
    # rows against one pass: the same bytes; a batch mixing scalar and full matrices
    from dali._ops.image import _color_gpu as CG
    from dali._ops.image.color import all_scalar_diag, color_matrices

    rng = np.random.default_rng(n)
    args = [rng.uniform(-180, 180, n), rng.uniform(0, 2, n), rng.uniform(0, 2, n)]
    args += [rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)]
    for a, v in zip(args, (0.0, 1.0, 1.0, 1.0, 1.0)):  # every third: the identity
        a[::3] = v
    ptrs = np.arange(n, dtype=np.uint64) * np.uint64(4096)
    counts = rng.integers(1, 10**6, n)

    def plan():
        mats = color_matrices(*args)
        offs = np.tile((128.0 - 128.0 * args[4])[:, None], (1, 3))
        diag = [all_scalar_diag(mats), all_scalar_diag(mats[::3])]
        mode, coeffs = CG.color_plan(mats, offs, np.dtype(np.uint8))
        return mats, diag, mode, coeffs, CG.color_descs(ptrs, ptrs, counts, coeffs).tobytes()

    blocked, whole = _blocked_and_whole(plan)
    assert blocked[1] == [False, True] and blocked[2] == 2
    _assert_same(blocked, whole)


needs_gil = pytest.mark.skipif(not gil_enabled(), reason="a free-threaded interpreter has no GIL")


@needs_gil
def test_the_probe_runs_only_where_the_gil_is_given_up():
    with GilProbe() as probe:
        sum(range(100_000))
        np.zeros(64)  # (below numpy's thresholds)
        assert not probe.ran
        while not probe.ran:  # each sleep gives the GIL up: the probe runs at one of them
            time.sleep(0.001)
    assert not gives_gil_up(lambda: sum(range(10_000)))


@needs_gil
@pytest.mark.parametrize("batch", [64, 256, 1000])
def test_gpu_planning_keeps_the_gil(batch):
    steps = planning_steps(batch)
    for fn in steps.values():
        fn()  # first-call caches (gil.arange, compiled kernels' tables) filled
    released = [name for name, fn in steps.items() if gives_gil_up(fn, repeat=5)]
    assert released == []


@needs_gil
@pytest.mark.parametrize("shuffle", [None, 1024])
@pytest.mark.parametrize(
    "stream",
    [
        {},
        {"num_shards": 4, "shard_id": 1},
        {"num_shards": 4, "shard_id": 1, "pad_last_batch": True},
        {"num_shards": 4, "shard_id": 2, "stick_to_shard": True},
        {"epoch_shuffle_seed": 3},
    ],
    ids=["one shard", "shards", "padded", "stick to shard", "epoch shuffle"],
)
def test_a_readers_next_batch_keeps_the_gil(stream, shuffle):
    """The sample ids of a reader's batch of 256 (a CPU-stage step of every pipeline), with
    and without a shuffle buffer: no `np.arange`, `np.searchsorted` or `np.unique`, which
    give the GIL up whatever their size."""
    from dali._ops.readers.loader.sharding import ReaderCursor, SampleStream

    cursor = ReaderCursor(SampleStream(100_003, batch_size=256, **stream), shuffle, key=5)
    cursor.next_batch(256)
    assert not gives_gil_up(lambda: cursor.next_batch(256), repeat=5)


def test_span_is_arange():
    for start, count in [(0, 0), (7, 1), (-3, 600), (2**40, 256)]:
        got = gil.span(start, count)
        assert got.dtype == np.int64 and got.flags.writeable
        assert got.tolist() == np.arange(start, start + count, dtype=np.int64).tolist()


@needs_gil
@pytest.mark.parametrize("op", ["image", "image_random_crop"])
def test_mixed_decoder_planning_keeps_the_gil(tmp_path, op):
    # the mixed decoders' host planning of a batch of 256 (headers, windows, the GPU/CPU
    # split), on the thread that hands the batch to nvImageCodec; no GPU needed for it (the
    # random windows' draws, one compiled call with Numba, keep the GIL at this size too)
    pytest.importorskip("PIL")
    from dali import fn, pipeline_def
    from dali._exec.workspace import BatchMeta, Workspace
    from dali._ops.decoders.image import mixed_plan
    from dali._tensors import TensorListCPU
    from dali._testing.images import make_imagenet_like

    files = make_imagenet_like(tmp_path, 8, seed=0, processes=1)
    datas = [np.fromfile(f, dtype=np.uint8) for f in files] * 32
    n = len(datas)

    @pipeline_def(batch_size=n, num_threads=1, device_id=None, seed=3)
    def pipe():
        jpegs, _ = fn.readers.file(files=[str(files[0])])
        return getattr(fn.decoders, op)(jpegs, name="dec")

    p = pipe()
    p.build()
    node = p._plan.by_name["dec"]

    def plan():
        tl = TensorListCPU.wrap(list(datas))
        meta = BatchMeta.stream(0, n, 0)
        ws = Workspace(node.impl, [tl], {}, meta, 0, 0, None, node.key, None, None)
        return mixed_plan.plan_batch(node.impl, ws)

    try:
        assert len(plan().gpu) == n  # every sample planned for the GPU decoder
        assert not gives_gil_up(plan, repeat=5)
    finally:
        p.close()
