"""fn.multi_paste: in_ids and positional inputs, absolute and relative regions, overlaps,
the canvas size, types, sequences and per-frame arguments, source info, static metadata, DALI's
errors, and CPU/GPU parity. Values are checked against an independent numpy reference."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

_R = np.random.default_rng(7)
IMGS = [_R.integers(1, 256, (8, 10, 3)).astype(np.uint8) for _ in range(3)]
I32 = np.int32
F32 = np.float32


def _run(build, *, batch_size=3, dev=None):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, tuple) else (outs,)))
    return pipe.run()


def _src(data=IMGS, layout="HWC"):
    return fn.external_source(lambda: list(data), layout=layout, batch=True)


def _paste(data=IMGS, layout="HWC", **kw):
    return _run(lambda: fn.multi_paste(_src(data, layout), **kw), batch_size=len(data))[0]


def _per_sample(values, dtype=I32):
    return fn.external_source(lambda: [np.array(v, dtype) for v in values], batch=True)


def reference(sources, regions, size, channels, dtype):
    """The canvas: zeros, then every region ``(src, (iy, ix), (h, w), (oy, ox))`` copied in
    order, converted as DALI's ConvertSat (round half away from zero, saturate)."""
    out = np.zeros((*size, channels), np.float64)
    for src, (iy, ix), (h, w), (oy, ox) in regions:
        out[oy : oy + h, ox : ox + w] = sources[src][iy : iy + h, ix : ix + w]
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        out = np.clip(np.sign(out) * np.floor(np.abs(out) + 0.5), info.min, info.max)
    return out.astype(dtype)


def test_in_ids_overlap_and_default_size():
    ids = [[2, 0], [1], []]
    ia = [[[1, 2], [0, 0]], [[3, 3]], np.zeros((0, 2))]
    sh = [[[4, 5], [3, 3]], [[5, 7]], np.zeros((0, 2))]
    oa = [[[0, 0], [2, 3]], [[3, 1]], np.zeros((0, 2))]
    out = _paste(
        in_ids=_per_sample(ids),
        in_anchors=_per_sample(ia),
        shapes=_per_sample(sh),
        out_anchors=_per_sample(oa),
    )
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    assert out.shape() == [(8, 10, 3)] * 3
    for i in range(3):
        regions = [
            (ids[i][r], ia[i][r], sh[i][r], oa[i][r]) for r in range(len(ids[i]))
        ]  # the second region of sample 0 covers part of the first one
        np.testing.assert_array_equal(
            out.samples()[i], reference(IMGS, regions, (8, 10), 3, np.uint8)
        )


def test_defaults_span_to_the_end():
    out = _paste(in_ids=[1], in_anchors=np.array([[2, 3]], I32), output_size=[9, 9])
    expect = reference(IMGS, [(1, (2, 3), (6, 7), (0, 0))], (9, 9), 3, np.uint8)
    for s in out.samples():
        np.testing.assert_array_equal(s, expect)
    ident = _paste()  # one input, no in_ids: each sample onto itself
    for s, x in zip(ident.samples(), IMGS):
        np.testing.assert_array_equal(s, x)


def test_large_canvases_on_threads():
    # canvases of 1 MiB and more are pasted on the pipeline's threads
    out = _paste(in_ids=[2, 0], out_anchors=np.array([[0, 0], [590, 700]], I32),
                 output_size=[600, 710], dtype=types.INT32)  # fmt: skip
    expect = reference(IMGS, [(2, (0, 0), (8, 10), (0, 0)), (0, (0, 0), (8, 10), (590, 700))],
                       (600, 710), 3, np.int32)  # fmt: skip
    for s in out.samples():
        np.testing.assert_array_equal(s, expect)


def test_scalar_in_ids_per_sample():
    ids = fn.external_source(lambda: [np.int32(2), np.int32(0), np.int32(0)], batch=True)
    out = _run(lambda: fn.multi_paste(_src(), in_ids=ids))[0]
    for s, i in zip(out.samples(), (2, 0, 0)):
        np.testing.assert_array_equal(s, IMGS[i])


def test_positional_inputs():
    def build():
        a = _src()
        b = fn.flip(_src(), horizontal=1)
        return fn.multi_paste(
            a,
            b,
            shapes=np.array([[4, 4], [3, 6]], I32),
            out_anchors=np.array([[1, 1], [3, 2]], I32),
        )

    out = _run(build)[0]
    for i, s in enumerate(out.samples()):
        srcs = [IMGS[i], IMGS[i][:, ::-1]]
        regions = [(0, (0, 0), (4, 4), (1, 1)), (1, (0, 0), (3, 6), (3, 2))]
        np.testing.assert_array_equal(s, reference(srcs, regions, (8, 10), 3, np.uint8))


def test_relative_arguments_round_in_float32():
    # anchor = floor(extent * rel), shape = ceil(extent * rel), in float32
    rel_in = np.array([[0.7, 0.35]], F32)
    rel_shape = np.array([[0.3, 0.3]], F32)
    rel_out = np.array([[0.5, 0.1]], F32)
    out = _paste(
        in_ids=[0],
        in_anchors_rel=rel_in,
        shapes_rel=rel_shape,
        out_anchors_rel=rel_out,
        output_size=[7, 11],
    )
    src = np.float32([8, 10])
    ia = np.floor(src * rel_in[0]).astype(int)
    sh = np.ceil(src * rel_shape[0]).astype(int)
    oa = np.floor(np.float32([7, 11]) * rel_out[0]).astype(int)
    assert (ia.tolist(), sh.tolist(), oa.tolist()) == ([5, 3], [3, 3], [3, 1])
    expect = reference(IMGS, [(0, ia, sh, oa)], (7, 11), 3, np.uint8)
    np.testing.assert_array_equal(out.samples()[1], expect)


def test_per_sample_output_size_and_channels():
    data = [IMGS[0], IMGS[1][..., :1], IMGS[2][..., :2]]
    out = _paste(
        data,
        in_ids=_per_sample([[0], [1, 1], []]),
        output_size=_per_sample([[3, 4, 0], [12, 5, 99], [2, 2, 7]]),
        shapes=_per_sample([[[3, 4]], [[2, 2], [1, 1]], np.zeros((0, 2))]),
    )
    # channels come from the regions; without regions from the sample at the output's index
    assert out.shape() == [(3, 4, 3), (12, 5, 1), (2, 2, 2)]
    np.testing.assert_array_equal(out.samples()[0], IMGS[0][:3, :4])
    assert not out.samples()[2].any()


@pytest.mark.parametrize(
    ("src", "dtype", "expect"),
    [
        ([0.5, 1.5, -0.5, 300.0, -5.0, np.nan, 254.5], types.UINT8, [1, 2, 0, 255, 0, 0, 255]),
        ([0.5, -1.5, 4e4, -4e4, np.nan, np.inf], types.INT16, [1, -2, 32767, -32768, 0, 32767]),
        ([2.5, -2.5, 3e9, np.nan], types.INT32, [3, -3, 2**31 - 1, -(2**31)]),
    ],
)
def test_conversion_saturates(src, dtype, expect):
    x = np.array(src, F32).reshape(1, -1, 1)
    out = _paste([x], dtype=dtype)
    assert out.dtype == dtype
    assert out.samples()[0].ravel().tolist() == expect


def test_integer_conversions():
    x = np.array([-5, 300, 70000, -70000, 2**31 - 1], I32).reshape(1, -1, 1)
    assert _paste([x], dtype=types.UINT8).samples()[0].ravel().tolist() == [0, 255, 255, 0, 255]
    assert _paste([x], dtype=types.INT16).samples()[0].ravel().tolist() == [
        -5, 300, 32767, -32768, 32767,
    ]  # fmt: skip
    f = _paste([x], dtype=types.FLOAT).samples()[0].ravel()
    assert f.dtype == np.float32 and f.tolist() == [-5.0, 300.0, 70000.0, -70000.0, 2**31]
    u = _paste([IMGS[0]], dtype=types.INT16, in_ids=[0], output_size=[9, 11]).samples()[0]
    assert u.dtype == np.int16
    np.testing.assert_array_equal(u[:8, :10], IMGS[0])
    assert not u[8:].any() and not u[:, 10:].any()


def test_no_layout_is_hwc():
    out = _paste(layout=None, in_ids=[1])
    assert out.layout() == "HWC"
    np.testing.assert_array_equal(out.samples()[0], IMGS[1])


SEQ = [_R.integers(1, 256, (2, 4, 5, 1)).astype(np.uint8) for _ in range(2)]


def test_sequences_in_ids_count_frames():
    # the frames of the batch form one batch: id 3 is frame 1 of sequence 1
    out = _paste(SEQ, "FHWC", in_ids=_per_sample([[1], [3, 0]]))
    assert out.layout() == "FHWC" and out.shape() == [(2, 4, 5, 1)] * 2
    s0, s1 = out.samples()
    np.testing.assert_array_equal(s0[0], SEQ[0][1])
    np.testing.assert_array_equal(s0[1], SEQ[0][1])
    np.testing.assert_array_equal(s1[1], SEQ[0][0])  # id 0 pasted last covers id 3


def test_per_frame_arguments_and_image_inputs():
    def build():
        seq = _src(SEQ, "FHWC")
        img = _src([s[0] + 1 for s in SEQ], "HWC")
        oa = fn.per_frame(_per_sample([[[[0, 0], [1, 1]], [[2, 3], [3, 4]]]] * 2))
        return fn.multi_paste(seq, img, shapes=np.array([[2, 2], [1, 1]], I32), out_anchors=oa)

    out = _run(build, batch_size=2)[0]
    assert out.layout() == "FHWC"
    for i, s in enumerate(out.samples()):
        for f, anchors in enumerate((([0, 0], [1, 1]), ([2, 3], [3, 4]))):
            regions = [(0, (0, 0), (2, 2), anchors[0]), (1, (0, 0), (1, 1), anchors[1])]
            srcs = [SEQ[i][f], SEQ[i][0] + 1]  # the image serves every frame
            np.testing.assert_array_equal(s[f], reference(srcs, regions, (4, 5), 1, np.uint8))


def test_source_info_joins_the_regions_sources(tmp_path):
    files = []
    for k in range(3):
        files.append(str(tmp_path / f"x{k}.npy"))
        np.save(files[-1], np.full((4, 5, 1), k, np.uint8))

    def build():
        data = fn.readers.numpy(files=files)
        return fn.multi_paste(data, in_ids=_per_sample([[2, 1], [], [0]]))

    out = _run(build)[0]
    infos = [out[i].source_info() for i in range(3)]
    assert infos == [f"{files[2]};{files[1]}", "", files[0]]


def test_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [IMGS[0]], layout="HWC", dtype=types.UINT8, ndim=3)
        y = fn.multi_paste(x, dtype=types.FLOAT)
        s = fn.external_source(lambda: [SEQ[0]], layout="FHWC", ndim=4)
        z = fn.multi_paste(x, s)
    assert y.dtype == types.FLOAT and y.layout == "HWC" and y.ndim == 3
    assert z.layout == "FHWC" and z.ndim == 4


_A = np.array


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"in_ids": [3]}, (r"The `in_idx` must be in range \[0, .., batch_size - 1\]\. Got "
         r"in_idx: 3\. Input batch size is: 3\.")),
        ({"in_ids": [-1]}, r"Got in_idx: -1\."),
        ({"in_ids": [0], "in_anchors": _A([[6, 0]], I32), "shapes": _A([[3, 3]], I32)},
         (r"The pasted region must be within input sample\. Got input anchor: 6 x 0, pasted "
         r"region shape: 3 x 3, input shape: 8 x 10, for the region at index 0, pasted into "
         r"output sample at index 0\.")),
        ({"in_ids": [0], "shapes": _A([[-1, 2]], I32)}, r"pasted region shape: -1 x 2"),
        ({"in_ids": [0], "out_anchors": _A([[1, 1]], I32)},
         (r"The pasted region must be within output bounds\. Got output anchor: 1 x 1, pasted "
         r"region shape: 8 x 10, output shape: 8 x 10, for the region at index 0")),
        ({"in_ids": [0, 1], "out_anchors": _A([[1, 1]], I32)},
         (r"Unexpected shape for argument `out_anchors` for output sample at index 0\. It should "
         r"be a 2D tensor of shape `number of pasted regions` x 2, i\.e\. 2 x 2\. Got tensor of "
         r"shape: 1 x 2\.")),
        ({"in_ids": [0], "in_anchors": _A([1, 1], I32)},
         r"Input with dimension \(1\) cannot be converted to dimension \(2\)"),
        ({"in_ids": [0], "shapes_rel": _A([[1.5, 0.5]], F32)},
         (r"The `shapes_rel` must be float in \[0, 1\] range, got 1\.5 for region at index 0 "
         r"pasted into output sample at index 0\.")),
        ({"in_ids": [0], "in_anchors_rel": _A([[-0.5, 0.5]], F32)},
         r"The `in_anchor_rel` must be float in \[0, 1\] range, got -0\.5"),
        ({"in_ids": [0], "out_anchors_rel": _A([[0.5, np.nan]], F32)},
         r"The `out_anchor_rel` must be float in \[0, 1\] range, got nan"),
        ({"in_ids": [0], "output_size": [3]},
         r"The `output_size` should be a tuple \(H, W\), got 1 elements for a sample at index 0"),
        ({"in_ids": [0], "output_size": [3, -1]},
         r"The `output_size` must be non-negative, got a shape with negative extent: 3 x -1"),
        ({"in_ids": [0], "in_anchors": _A([[1, 1]], F32)}, r"must be of an integer type"),
        ({"in_ids": [0], "in_anchors_rel": _A([[0, 1]], I32)}, r"floating point type"),
        ({"in_ids": [0], "in_anchors": 1}, r"expected a 2D tensor"),
        ({"in_anchors": _A([[1, 1]], I32), "in_anchors_rel": _A([[0.5, 0.5]], F32)},
         r"The `in_anchors` and `in_anchors_rel` cannot be specified together"),
        ({"dtype": types.UINT16}, (r"Unsupported output type: uint16\nSupported types: uint8, "
         r"int16, int32, float")),
    ],
)  # fmt: skip
def test_errors(kw, match):
    with pytest.raises(Exception, match=match):
        _paste(**kw)


def test_input_errors():
    ragged = [IMGS[0], IMGS[1][:5]]
    with pytest.raises(Exception, match=r"all the input samples must have the same shape\. Got "
                       r"samples of different shapes: 8 x 10 and 5 x 10\."):  # fmt: skip
        _paste(ragged, in_ids=[0])
    assert _paste(ragged, in_ids=[1], output_size=[8, 10]).shape() == [(8, 10, 3)] * 2
    mixed = [IMGS[0], IMGS[1][..., :1]]
    with pytest.raises(Exception, match=r"All regions pasted into given output sample must have "
                       r"the same number of channels\. Got different number of channels: 3, 1 "
                       r"for output sample at index 0\."):  # fmt: skip
        _paste(mixed, in_ids=[0, 1])
    for data, layout, match in (
        ([x[..., 0] for x in IMGS], "HW", r'The layout "HW" does not match any of the allowed'),
        (IMGS, "CHW", r'The layout "CHW" does not match'),
        ([x[..., 0] for x in IMGS], None, r"The number of dimensions 2 does not match"),
        ([x.astype(np.uint16) for x in IMGS], "HWC", r"Unsupported input type: uint16"),
    ):
        with pytest.raises(Exception, match=match):
            _paste(data, layout)
    with pytest.raises(Exception, match=r"accepts exactly one positional input batch\. Got: 2"):
        _run(lambda: fn.multi_paste(_src(), _src(), in_ids=[0]))
    with pytest.raises(Exception, match=r"All input batches must have the same data type\. Got "
                       r"uint8 and int16 at indicies 0 and 1\."):  # fmt: skip
        _run(lambda: fn.multi_paste(_src(), fn.cast(_src(), dtype=types.INT16)))


def test_sequence_errors():
    with pytest.raises(Exception, match=r"have different number of frames for sample 0, "
                       r"respectively: 2 and 1"):  # fmt: skip
        _run(lambda: fn.multi_paste(_src(SEQ, "FHWC"), _src([s[:1] for s in SEQ], "FHWC")),
             batch_size=2)  # fmt: skip
    oa = fn.per_frame(_per_sample([np.zeros((3, 1, 2))] * 2))
    with pytest.raises(Exception, match=r"The sample 0 of tensor argument `out_anchors` contains "
                       r"3 per-frame parameters, but there are 2 frames"):  # fmt: skip
        _run(lambda: fn.multi_paste(_src(SEQ, "FHWC"), out_anchors=oa), batch_size=2)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    def build():
        x = to_device(_src(), device)
        f = to_device(fn.cast(_src(), dtype=types.FLOAT) * 1.7 - 40, device)
        a = fn.multi_paste(
            x,
            in_ids=_per_sample([[2, 0, 1], [1], []]),
            in_anchors=_per_sample([[[1, 2], [0, 0], [4, 4]], [[3, 3]], np.zeros((0, 2))]),
            shapes=_per_sample([[[4, 5], [3, 3], [4, 6]], [[5, 7]], np.zeros((0, 2))]),
            out_anchors=_per_sample([[[0, 0], [2, 3], [5, 1]], [[3, 1]], np.zeros((0, 2))]),
            output_size=_per_sample([[9, 12], [9, 12], [3, 4]]),
        )
        b = fn.multi_paste(
            x, x, shapes_rel=_A([[0.5, 0.5], [0.3, 0.7]], F32),
            out_anchors_rel=_A([[0.5, 0.5], [0.1, 0.2]], F32),
        )  # fmt: skip
        c = fn.multi_paste(f, in_ids=[2, 1], dtype=types.UINT8,
                           shapes=_A([[8, 10], [3, 3]], I32), output_size=[10, 10])  # fmt: skip
        d = fn.multi_paste(f, in_ids=[0], dtype=types.INT16)
        return a, b, c, d

    return _run(build, dev=device_id(device))


@cpu_gpu()
def test_gpu_matches_cpu_sequences(device):
    def build():
        seq = to_device(_src(SEQ, "FHWC"), device)
        img = to_device(_src([s[0] for s in SEQ], "HWC"), device)
        oa = fn.per_frame(_per_sample([[[[0, 0], [1, 1]], [[2, 3], [3, 4]]]] * 2))
        a = fn.multi_paste(seq, img, shapes=_A([[2, 2], [1, 1]], I32), out_anchors=oa)
        b = fn.multi_paste(seq, in_ids=[3, 1], shapes=_A([[4, 5], [2, 2]], I32))
        return a, b

    return _run(build, batch_size=2, dev=device_id(device))


@pytest.mark.parametrize(
    ("regions", "expect"),
    [
        ([], False),
        ([((0, 0), (8, 10))], True),  # one region the size of the canvas
        ([((0, 0), (8, 10)), ((2, 2), (3, 3))], True),
        ([((0, 0), (4, 10)), ((4, 0), (4, 10))], True),  # a tiling
        ([((0, 0), (4, 5)), ((0, 5), (4, 5)), ((4, 0), (4, 5)), ((4, 5), (4, 5))], True),
        ([((0, 0), (4, 10)), ((3, 0), (4, 10))], False),  # overlap: a row uncovered
        ([((0, 0), (5, 10)), ((3, 0), (3, 10))], False),  # areas add up, but overlapping
        ([((0, 0), (4, 10)), ((4, 0), (4, 9))], False),
        ([((0, 0), (0, 10)), ((0, 0), (8, 10))], True),
    ],
)
def test_uncovered_canvas_is_zeroed(regions, expect):
    # the CPU canvas is zeroed only where the regions might not cover it: prefilled with 255
    # here, every pixel no region covers must read 0
    from dali._ops.image import multi_paste as mp

    ids = [0] * len(regions)
    sh = np.array([s for _, s in regions], I32).reshape(-1, 2)
    oa = np.array([a for a, _ in regions], I32).reshape(-1, 2)
    src = [np.full((8, 10, 1), 255, np.uint8)]
    plan = mp.PastePlan(
        [(8, 10, 1)], np.array([0, len(ids)]), np.zeros(len(ids), np.int64),
        np.zeros(len(ids), np.int64), np.zeros_like(oa, np.int64), sh.astype(np.int64),
        oa.astype(np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), [False], None,
        np.dtype(np.uint8),
    )  # fmt: skip
    assert mp._covered(plan).tolist() == [expect]
    out = _paste(src, in_ids=ids, shapes=sh, out_anchors=oa) if regions else _paste(src, in_ids=[])
    covered = np.zeros((8, 10), bool)
    for (y, x), (h, w) in regions:
        covered[y : y + h, x : x + w] = True
    np.testing.assert_array_equal(out.samples()[0][..., 0], np.where(covered, 255, 0))
