"""`fn.decoders.inflate` (LZ4 blocks) and the block decoder behind it (`_lz4`).

The operator's cases follow DALI's own tests of it (single chunks, scalar and empty shapes,
sequences of chunks given by offsets, sizes or both, oversized shapes padded with zeros, the
validation messages); DALI 2.4 runs it on the GPU only, so the CPU backend (an extension here)
is the reference and the GPU backend is compared with it (`parity.cpu_gpu`).
"""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, pipeline_def, types
from dali._ops.decoders import _lz4
from dali._ops.decoders.inflate import lz4_block
from parity import cpu_gpu, device_id, to_device

lz4 = pytest.importorskip("lz4.block")


def compress(array: np.ndarray) -> np.ndarray:
    return np.frombuffer(lz4.compress(array.tobytes(), store_size=False), np.uint8)


def _constant(batch):
    return lambda: batch  # no parameter: external_source would pass the iteration


def run(sources, graph, *, batch_size=None, device="cpu"):
    """Run ``graph(*nodes)`` over external sources of fixed batches (the first one to
    ``device``), return the outputs as lists of numpy samples and the layouts."""
    n = batch_size or len(sources[0])

    @pipeline_def(batch_size=n, num_threads=2, device_id=device_id(device))
    def pipe():
        nodes = [fn.external_source(_constant(b)) for b in sources]
        nodes[0] = to_device(nodes[0], device)
        out = graph(*nodes)
        return out if isinstance(out, tuple) else (out,)

    outs = pipe().run()
    return [([np.asarray(s) for s in o.as_cpu().samples()], o.layout()) for o in outs]


def inflate(data, device="cpu", **kwargs):
    """Decode one batch of compressed samples with constant arguments."""
    ((samples, layout),) = run([data], lambda d: fn.decoders.inflate(d, device=device, **kwargs))
    return samples, layout


RNG = np.random.default_rng(42)


def _frames(n: int, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return (RNG.standard_normal((n, *shape)) * 40).astype(dtype)


# -- the block decoder -------------------------------------------------------------------------


def _raw_samples():
    rng = np.random.default_rng(7)
    yield b""
    yield b"a"
    yield bytes(100_000)  # long matches of offset 1
    yield rng.integers(0, 256, 70_000, dtype=np.uint8).tobytes()  # incompressible
    yield rng.integers(0, 3, 20_000, dtype=np.uint8).tobytes()
    yield np.repeat(rng.integers(0, 256, 3000, dtype=np.uint8), 5).tobytes()
    yield b"abcdefgh" * 1000 + bytes(range(256)) * 40


@pytest.mark.parametrize("kernel", ["numba", "python"])
def test_the_decoder_matches_lz4(kernel):
    if kernel == "numba":
        kernels = _lz4._numba_kernels()
        if kernels is None:
            pytest.skip("no Numba")
        decode, size = kernels
    else:
        decode, size = _lz4._decode, _lz4._size
    for raw in _raw_samples():
        block = np.frombuffer(lz4.compress(raw, store_size=False), np.uint8)
        out = np.full(len(raw) + 5, 7, np.uint8)
        assert decode(block, out) == (_lz4.OK, len(raw))
        assert out[: len(raw)].tobytes() == raw and (out[len(raw) :] == 7).all()
        assert size(block) == len(raw)
        if raw:
            k = len(raw) * 2 // 3
            part = np.zeros(k, np.uint8)
            assert decode(block, part) == (_lz4.OVERFLOW, k)
            assert part.tobytes() == raw[:k]


def test_malformed_blocks_are_corrupt():
    good = np.frombuffer(lz4.compress(b"abcabcabcabcabcabcabc" * 4, store_size=False), np.uint8)
    cases = [
        good[:-3],  # truncated literals
        np.frombuffer(b"\x10a\x05\x00", np.uint8),  # offset 5 before the output's start
        np.frombuffer(b"\x10a\x00\x00", np.uint8),  # offset 0
        np.frombuffer(b"\xf0", np.uint8),  # a literal length that never ends
        np.frombuffer(b"\x1fa\x01\x00\xff", np.uint8),  # a match length that never ends
        np.frombuffer(b"\x1fa\x01\x00\x01", np.uint8),  # ends after a match
        np.frombuffer(b"\x10a\x01", np.uint8),  # half an offset
    ]
    for block in cases:
        out = np.zeros(200, np.uint8)
        assert _lz4.decompress_into(block, out)[0] == _lz4.CORRUPT, block.tobytes()
        assert _lz4.decompressed_size(block) == -1
        assert _lz4._decode(block, out)[0] == _lz4.CORRUPT


def test_literal_only_writer_is_valid_lz4():
    for n in (0, 14, 15, 16, 269, 270, 271, 1000):
        raw = bytes(range(256)) * 4
        assert lz4.decompress(lz4_block(raw[:n]), uncompressed_size=n) == raw[:n]


def test_without_the_lz4_package_numba_decodes(monkeypatch):
    if _lz4._numba_kernels() is None:
        pytest.skip("no Numba")
    monkeypatch.setattr(_lz4, "_lz4_block", lambda: None)
    frames = _frames(3, (8, 9), np.int16)
    got, _ = inflate([compress(f) for f in frames], shape=[8, 9], dtype=types.INT16)
    for g, f in zip(got, frames):
        np.testing.assert_array_equal(g, f)


def test_without_lz4_and_numba_the_error_names_the_extra(monkeypatch):
    monkeypatch.setattr(_lz4, "_lz4_block", lambda: None)
    monkeypatch.setattr(_lz4, "_numba_kernels", lambda: None)
    with pytest.raises(
        RuntimeError, match=r'decoders\.inflate.*pip install "dali-core\[inflate\]"'
    ):
        inflate([compress(np.zeros(4, np.uint8))], shape=4)


# -- the operator ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64,
     np.float16, np.float32, np.bool_],
)  # fmt: skip
def test_one_chunk_per_sample_of_every_type(dtype):
    sizes = [1, 17, 300, 65521]
    samples = [(np.arange(n) % 2048).astype(dtype) for n in sizes]
    ((got, layout),) = run(
        [[compress(s) for s in samples], [np.array(n, np.int32) for n in sizes]],
        lambda d, shape: fn.decoders.inflate(d, shape=shape, dtype=types.to_dali_type(dtype)),
    )
    assert layout == ""
    for g, s in zip(got, samples):
        assert g.dtype == s.dtype
        np.testing.assert_array_equal(g, s)


@pytest.mark.parametrize(
    ("shape", "layout"),
    [(65521, "X"), (262147, None), ([3, 5, 7], "ABC"), ([3, 5, 7], ""), ([100, 10], "WW"),
     ([4, 8, 16, 2], "FGNH"), ([], None)],
)  # fmt: skip
def test_constant_shapes_and_layouts(shape, layout):
    shp = tuple(np.atleast_1d(np.array(shape, np.int64)).tolist())
    samples = [np.arange(int(np.prod(shp)), dtype=np.float32).reshape(shp) * k for k in (1, 2)]
    kwargs = {"layout": layout} if layout is not None else {}
    got, out_layout = inflate(
        [compress(s) for s in samples], shape=shape, dtype=types.FLOAT, **kwargs
    )
    assert out_layout == (layout or "")
    for g, s in zip(got, samples):
        assert g.shape == s.shape
        np.testing.assert_array_equal(g, s)


def _sequences(mode: str, rng: np.random.Generator, ndim: int, oversized: bool, permute: bool):
    """Per sample: the frames, the compressed bytes, the shape to request and the arguments."""
    data, frames_all, shapes, offsets, sizes = [], [], [], [], []
    for _ in range(3):
        n = int(rng.integers(1, 8))
        shape = tuple(int(e) for e in rng.integers(1, 12, ndim))
        frames = (rng.standard_normal((n, *shape)) * 100).astype(np.int16)
        chunks = [compress(f) for f in frames]
        size = np.array([len(c) for c in chunks], np.int32)
        offset = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int32)
        if permute:
            keep = rng.permutation(n)[: max(1, n - 2)]
            frames, size, offset = frames[keep], size[keep], offset[keep]
        req = tuple(int(e * 1.5) + 1 for e in shape) if oversized else shape
        data.append(np.concatenate(chunks))
        frames_all.append(frames)
        shapes.append(np.array(req, np.int32))
        offsets.append(offset)
        sizes.append(size)
    return data, frames_all, shapes, offsets, sizes


@pytest.mark.parametrize("mode", ["offsets", "sizes", "both", "both_permuted"])
@pytest.mark.parametrize(("ndim", "oversized"), [(0, False), (1, False), (1, True), (3, True)])
def test_sequences_of_chunks(mode, ndim, oversized):
    rng = np.random.default_rng(ndim * 10 + oversized)
    data, frames, shapes, offsets, sizes = _sequences(
        mode, rng, ndim, oversized, mode == "both_permuted"
    )
    layout = "ABC"[:ndim]

    def graph(d, shape, off, size):
        kw = {}
        if mode != "sizes":
            kw["chunk_offsets"] = off
        if mode != "offsets":
            kw["chunk_sizes"] = size
        return fn.decoders.inflate(
            d, shape=shape, dtype=types.INT16, layout=layout, sequence_axis_name="Q", **kw
        )

    ((got, out_layout),) = run([data, shapes, offsets, sizes], graph)
    assert out_layout == ("Q" + layout if layout else "")
    for g, f, req in zip(got, frames, shapes):
        assert g.shape == (len(f), *req.tolist())
        for gf, ff in zip(g, f):
            flat = gf.reshape(-1)
            np.testing.assert_array_equal(flat[: ff.size].reshape(ff.shape), ff)
            assert not flat[ff.size :].any()  # the tail of an oversized chunk: zeros


@pytest.mark.parametrize("arg", ["chunk_offsets", "chunk_sizes"])
def test_no_chunks_gives_empty_sequences(arg):
    frame = np.full((16, 16, 3), 42, np.uint8)
    data = np.concatenate([compress(frame)] * 7)
    got, layout = inflate([data, data], shape=(16, 16, 3), layout="HWC", **{arg: []})
    assert layout == "FHWC"
    assert [g.shape for g in got] == [(0, 16, 16, 3)] * 2


def test_a_scalar_per_sample_shape_is_one_extent():
    samples = [np.arange(5, dtype=np.uint8), np.arange(9, dtype=np.uint8)]
    ((got, _),) = run(
        [[compress(s) for s in samples], [np.array(5, np.int32), np.array(9, np.int32)]],
        lambda d, s: fn.decoders.inflate(d, shape=s),
    )
    assert [g.tolist() for g in got] == [s.tolist() for s in samples]


def test_a_larger_chunk_is_cut_to_the_shape_or_refused_with_check_output_size():
    raw = np.arange(100, dtype=np.uint8)
    (got,), _ = inflate([compress(raw)], shape=[40])
    assert got.tolist() == raw[:40].tolist()
    with pytest.raises(RuntimeError) as e:
        inflate([compress(raw)], shape=[40], check_output_size=True)
    assert (
        "argument `check_output_size`: Output buffer for inflated chunk 0 has 40 bytes, but the "
        "compressed input expands to 100 bytes. Check the `shape` and `dtype` arguments."
    ) in str(e.value)
    (ok,), _ = inflate([compress(raw)], shape=[120], check_output_size=True)
    assert ok[:100].tolist() == raw.tolist() and not ok[100:].any()


def test_corrupt_data_is_an_error_naming_sample_and_chunk():
    good = compress(np.arange(50, dtype=np.uint8))
    bad = np.frombuffer(b"\x10a\x09\x00\x00", np.uint8)
    with pytest.raises(
        RuntimeError, match=r"(?s)sample 1.*chunk 1 \(bytes \d+\.\.\d+ of the sample\)"
    ):
        run(
            [[good, np.concatenate([good, bad])], [np.array([len(good)] * 1, np.int32),
             np.array([len(good), len(bad)], np.int32)]],
            lambda d, s: fn.decoders.inflate(d, shape=50, chunk_sizes=s),
        )  # fmt: skip


def test_ops_api_and_static_metadata():
    dec = ops.decoders.Inflate(shape=[2, 2], dtype=types.INT32, layout="HW", chunk_sizes=[])

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        out = dec(fn.external_source(lambda: [compress(np.zeros(4, np.int32))]), device="cpu")
        assert (out.dtype, out.ndim, out.layout) == (types.INT32, 3, "FHW")
        return out

    (out,) = pipe().run()
    assert out.as_cpu().samples()[0].shape == (0, 2, 2)


def test_experimental_alias_warns():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        data = fn.external_source(lambda: [compress(np.arange(3, dtype=np.uint8))])
        with pytest.warns(DeprecationWarning):
            return fn.experimental.inflate(data, shape=3, device="cpu")

    (out,) = pipe().run()
    assert out.as_cpu().samples()[0].tolist() == [0, 1, 2]


# -- validation (DALI's messages) ----------------------------------------------------------------

FIVE = np.array([1, 2, 3, 4, 5], np.uint8)


@pytest.mark.parametrize(
    ("data", "kwargs", "message"),
    [
        (FIVE, {"shape": 4, "dtype": types.STRING}, "floating point or integral type, got `string`"),
        (FIVE, {"shape": 4, "dtype": types.FLOAT64}, "GPU inflate LZ4 operator: `double`"),
        (FIVE.astype(np.float32), {"shape": 42}, "Got tensor of type `float` instead"),
        (np.array(1, np.uint8), {"shape": 42}, "Got input with 0 dimensions instead"),
        (np.zeros(0, np.uint8), {"shape": 42}, "the sample at index 0 has volume 0"),
        (FIVE, {"shape": 42, "algorithm": ""}, 'Unknown inflate algorithm ""'),
        (FIVE, {"shape": 42, "algorithm": "Deflate"}, 'Unknown inflate algorithm "deflate"'),
        (FIVE, {"shape": 42, "chunk_sizes": [6]}, "Input chunk size cannot exceed the sample size"),
        (FIVE, {"shape": 42, "chunk_sizes": [3, 3]},
         "The sum of chunk sizes for sample of idx 0 exceeds the total size of the sample."),
        (FIVE, {"shape": 42, "chunk_sizes": [0]}, "Got chunk size 0 for sample of idx 0"),
        (FIVE, {"shape": 42, "chunk_sizes": [3, -1]}, "Got chunk size -1 for sample of idx 0"),
        (FIVE, {"shape": 42, "chunk_offsets": [0, 5]},
         "Got chunk offset 5 while the sample size is 5 for sample of idx 0"),
        (FIVE, {"shape": 42, "chunk_offsets": [1, 1]},
         "The inferred size of a chunk would be non-positive for sample of idx 0"),
        (FIVE, {"shape": 42, "chunk_offsets": [1, 1], "chunk_sizes": [1, 1, 1]},
         "for sample of idx 0 there are 2 offsets and 3 sizes"),
        (FIVE, {"shape": 42, "chunk_offsets": [-5, 0], "chunk_sizes": [5, 5]},
         "Input chunks offsets must be non-negative"),
        (FIVE, {"shape": 42, "chunk_offsets": [2], "chunk_sizes": [4]},
         "Input chunk cannot exceed the sample size"),
        (FIVE, {"shape": 5, "sequence_axis_name": ""},
         'The `sequence_axis_name` must be a single character, got ""'),
        (FIVE, {"shape": 5, "sequence_axis_name": "AB"},
         'The `sequence_axis_name` must be a single character, got "AB"'),
        (FIVE, {"shape": [5, 1], "layout": "X"},
         r'The layout "X" has a different number of dimensions \(1\) than the requested output'),
        (FIVE, {"shape": [5, -1]}, "Extents of the output shape must be non-negative"),
    ],
)  # fmt: skip
def test_validation(data, kwargs, message):
    with pytest.raises(RuntimeError, match=rf"decoders\.inflate.*{message}"):
        inflate([data], **kwargs)


def test_a_2d_shape_argument_is_an_error():
    with pytest.raises(RuntimeError, match="must be a scalar or a 1D tensor, got tensor with 2"):
        run(
            [[FIVE], [np.array([[1, 5], [4, 5]], np.int32)]],
            lambda d, s: fn.decoders.inflate(d, shape=s, device="cpu"),
        )


def test_per_sample_shapes_must_have_one_rank():
    with pytest.raises(
        RuntimeError, match="same number of extents: sample 0 has 1, sample 1 has 2"
    ):
        run(
            [[FIVE, FIVE], [np.array([5], np.int32), np.array([5, 1], np.int32)]],
            lambda d, s: fn.decoders.inflate(d, shape=s),
        )


# -- the GPU backend: the CPU's output, on the device ----------------------------------------------

GPU_CASES = {
    "single": ([2, 3, 4], {}),
    "scalar_shape": (24, {"layout": "X"}),
    "sizes": ([3, 4], {"chunk_sizes": "sizes", "layout": "HW"}),
    "offsets": ([3, 4], {"chunk_offsets": "offsets", "sequence_axis_name": "T", "layout": "HW"}),
    "oversized": ([5, 5], {"chunk_sizes": "sizes"}),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
@cpu_gpu()
def test_gpu_matches_cpu(case, device):
    shape, kw = GPU_CASES[case]
    frames = np.arange(3 * 24, dtype=np.float32).reshape(3, 24)
    chunked = "chunk_sizes" in kw or "chunk_offsets" in kw
    if chunked:
        chunks = [compress(f) for f in frames]
        data = [np.concatenate(chunks)] * 2
        sizes = np.array([len(c) for c in chunks], np.int32)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        extra = [[sizes] * 2, [offsets] * 2]
    else:
        data = [compress(frames[0]), compress(frames[1])]
        extra = [[sizes := np.zeros(1, np.int32)] * 2, [sizes] * 2]

    def graph(d, sz, off):
        args = {k: {"sizes": sz, "offsets": off}.get(v, v) for k, v in kw.items()}
        return fn.decoders.inflate(d, shape=shape, dtype=types.FLOAT, device=device, **args)

    @pipeline_def(batch_size=2, num_threads=2, device_id=device_id(device))
    def pipe():
        d, sz, off = (fn.external_source(_constant(b)) for b in (data, *extra))
        return graph(to_device(d, device), sz, off)

    return pipe().run()
