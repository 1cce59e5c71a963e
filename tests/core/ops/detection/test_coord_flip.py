"""`fn.coord_flip`: values observed in DALI 2.4, layouts and the axis rule, per-sample flags
and centres, shapes and errors; CPU/GPU parity."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from parity import cpu_gpu, device_id, to_device

F = np.float32
PTS3 = [np.array([[0.1, 0.2, 0.3], [0.9, 0.5, -1.0]], F), np.array([[0.25, 0.75, 0.0]], F)]


def _source(batch):
    return lambda: batch


def _run(graph, *batches, layout=None):
    @pipeline_def(batch_size=len(batches[0]), num_threads=2, device_id=None)
    def pipe():
        nodes = [fn.external_source(_source(b)) for b in batches]
        if layout:
            nodes[0] = fn.external_source(_source(batches[0]), layout=layout)
        return graph(*nodes)

    out = pipe().run()
    return out[0] if isinstance(out, tuple) else out


def _samples(tl):
    return [np.asarray(tl.at(i)) for i in range(len(tl))]


def test_default_flips_x_about_half():
    out = _run(lambda p: fn.coord_flip(p), PTS3)
    assert out.dtype == types.FLOAT
    # observed in DALI 2.4: 1 - 0.9 in float32 is 0.100000024 (printed 0.10000002)
    np.testing.assert_array_equal(
        _samples(out)[0], np.array([[F(1) - F(0.1), 0.2, 0.3], [F(1) - F(0.9), 0.5, -1.0]], F)
    )
    assert _samples(out)[0][1, 0] == np.float32(0.100000024)
    np.testing.assert_array_equal(_samples(out)[1], [[0.75, 0.75, 0.0]])


def test_every_axis_with_centres():
    out = _run(
        lambda p: fn.coord_flip(
            p, layout="xyz", flip_y=1, flip_z=1, center_x=0.0, center_y=2.0, center_z=1.0
        ),
        PTS3,
    )
    np.testing.assert_allclose(_samples(out)[0], [[-0.1, 3.8, 1.7], [-0.9, 3.5, 3.0]], 1e-6)
    np.testing.assert_allclose(_samples(out)[1], [[-0.25, 3.25, 2.0]], 1e-6)


def test_layout_orders_the_coordinates():
    out = _run(lambda p: fn.coord_flip(p, layout="zyx", flip_x=1, flip_z=1, center_z=0.0), PTS3)
    np.testing.assert_allclose(_samples(out)[0], [[-0.1, 0.2, 0.7], [-0.9, 0.5, 2.0]], 1e-6)
    pts2 = [np.array([[0.1, 0.2]], F)]
    yx = _run(lambda p: fn.coord_flip(p, layout="yx", flip_x=0, flip_y=1), pts2)
    np.testing.assert_allclose(_samples(yx)[0], [[0.9, 0.2]], 1e-6)
    # a longer layout is fine: only the first D axes must be found
    xyz = _run(lambda p: fn.coord_flip(p, layout="xyz", flip_z=1), pts2)
    np.testing.assert_allclose(_samples(xyz)[0], [[0.9, 0.2]], 1e-6)


def test_one_dimensional_points_and_empty_samples():
    out = _run(lambda p: fn.coord_flip(p), [np.array([[0.3]], F), np.zeros((0, 1), F)])
    np.testing.assert_allclose(_samples(out)[0], [[0.7]], 1e-6)
    assert _samples(out)[1].shape == (0, 1)


def test_per_sample_flags_and_centres():
    flags = [np.int32(0), np.int32(1)]
    centres = [np.float32(0.0), np.float32(1.0)]
    out = _run(lambda p, f, c: fn.coord_flip(p, flip_x=f, center_x=c), PTS3, flags, centres)
    np.testing.assert_array_equal(_samples(out)[0], PTS3[0])
    np.testing.assert_allclose(_samples(out)[1], [[1.75, 0.75, 0.0]], 1e-6)


def test_dense_batch_keeps_layout():
    pts = [np.array([[0.1, 0.2], [0.3, 0.4]], F)] * 3
    out = _run(lambda p: fn.coord_flip(p, flip_y=1), pts, layout="NX")
    assert out.layout() == "NX"
    for s in _samples(out):
        np.testing.assert_allclose(s, [[0.9, 0.8], [0.7, 0.6]], 1e-6)


@pytest.mark.parametrize(
    "batch,kw,message",
    [
        ([np.zeros((2, 2), F)], {"layout": "xw"}, 'Dimension "y" not found'),
        ([np.zeros((2, 3), F)], {"layout": "xy"}, 'Dimension "z" not found'),
        ([np.zeros((2, 4), F)], {}, "Unexpected number of dimensions 4"),
        ([np.zeros(2, F)], {}, r"\[N, D\]"),
        ([np.zeros((2, 2), np.float64)], {}, "expected to be float"),
        ([np.zeros((2, 2), F), np.zeros((2, 3), F)], {}, "same number of dimensions"),
    ],
)
def test_errors(batch, kw, message):
    with pytest.raises(Exception, match=message):
        _run(lambda p: fn.coord_flip(p, **kw), batch)


def test_per_sample_flags_must_be_integers():
    with pytest.raises(Exception, match=r"flip_x.*integer flag"):
        _run(lambda p, f: fn.coord_flip(p, flip_x=f), PTS3, [np.float32(1)] * 2)


@pytest.mark.parametrize("ragged", [False, True])
@cpu_gpu()
def test_parity(ragged, device):
    rng = np.random.default_rng(4)
    counts = (5, 0, 130, 1) if ragged else (7, 7, 7, 7)
    pts = [rng.random((n, 3)).astype(F) for n in counts]

    @pipeline_def(batch_size=4, num_threads=1, device_id=device_id(device))
    def pipe():
        p = to_device(fn.external_source(lambda: pts), device)
        f = fn.external_source(lambda: [np.int32(v) for v in (1, 0, 1, 0)])
        c = fn.external_source(lambda: [np.float32(v) for v in (0.5, 0.0, 2.0, -1.0)])
        return fn.coord_flip(p, flip_x=f, flip_z=1, center_x=c, center_z=0.25, layout="zxy")

    return pipe().run()
