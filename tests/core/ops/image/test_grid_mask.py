"""fn.grid_mask: the grid against an independent float64 model, DALI's float32 edges, types,
per-sample arguments, errors, and CPU/GPU parity."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from parity import cpu_gpu, device_id, to_device

IMG = np.random.default_rng(2).integers(1, 256, (40, 60, 3)).astype(np.uint8)


def _run(data, layout="HWC", batch_size=2, dev=None, **kw):
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=dev)
    with pipe:
        x = fn.external_source(lambda: [data] * batch_size, layout=layout)
        pipe.set_outputs(fn.grid_mask(x, **kw))
    return pipe.run()[0]


def _model(h, w, tile, ratio, angle, sx, sy):
    """The mask in float64 (may differ from DALI's float32 only on the squares' edges)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    fx = (-sx - y * math.sin(angle) + x * math.cos(angle)) / tile
    fy = (-sy + y * math.cos(angle) + x * math.sin(angle)) / tile
    return ((fx % 1) >= ratio) | ((fy % 1) >= ratio)


@pytest.mark.parametrize(
    "kw",
    [{}, {"tile": 10}, {"tile": 16, "ratio": 0.25}, {"tile": 12, "ratio": 0.5, "angle": 0.4},
     {"tile": 9, "ratio": 0.6, "angle": -1.0, "shift_x": 2.5, "shift_y": -4.0}],
)  # fmt: skip
def test_matches_model_but_edges(kw):
    out = _run(IMG, **kw)
    assert out.layout() == "HWC" and out.dtype == types.UINT8
    y = out.samples()[0]
    p = {"tile": 100, "ratio": 0.5, "angle": 0.0, "shift_x": 0.0, "shift_y": 0.0, **kw}
    keep = _model(40, 60, p["tile"], p["ratio"], p["angle"], p["shift_x"], p["shift_y"])
    got = (y == IMG).all(-1)
    assert (y[~got] == 0).all()
    assert np.mean(got != keep) < 0.02


def test_float32_edge_like_dali():
    # 23 * float32(1/10) rounds below 2.3: DALI masks x = 23 at ratio 0.3 (float32 arithmetic)
    y = _run(np.ones((1, 30, 1), np.uint8), tile=10, ratio=0.3).samples()[0][0, :, 0]
    assert y[20:24].tolist() == [0, 0, 0, 0] and y[13] == 1


def test_ratio_bounds_types_and_nan():
    assert (_run(IMG, tile=10, ratio=2.0).samples()[0] == 0).all()
    assert (_run(IMG, tile=10, ratio=-1.0).samples()[0] == IMG).all()
    for dt in (np.int16, np.int32, np.float32):
        assert _run(IMG.astype(dt), tile=10).samples()[0].dtype == dt
    f = np.full((4, 4, 1), np.nan, np.float32)
    assert np.isnan(_run(f, tile=4).samples()[0]).all()  # DALI multiplies by the mask


def test_per_sample_arguments():
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(lambda: [IMG, IMG], layout="HWC")
        t = fn.external_source(lambda: [np.int32(10), np.int32(20)])
        r = fn.external_source(lambda: [np.float32(0.2), np.float32(0.7)])
        pipe.set_outputs(fn.grid_mask(x, tile=t, ratio=r))
    s0, s1 = pipe.run()[0].samples()
    a = _run(IMG, tile=10, ratio=0.2).samples()[0]
    b = _run(IMG, tile=20, ratio=0.7).samples()[0]
    np.testing.assert_array_equal(s0, a)
    np.testing.assert_array_equal(s1, b)


@pytest.mark.parametrize(
    ("data", "kw", "match"),
    [
        (IMG, {"tile": 0}, "Tile argument must be positive"),
        (IMG.astype(np.int8), {}, "Unsupported input type: int8"),
        (IMG.astype(np.float64), {}, "Unsupported input type: double"),
        (IMG[..., 0].copy(), {}, "3 dimensions"),
    ],
)
def test_errors(data, kw, match):
    with pytest.raises(Exception, match=match):
        _run(data, None, **kw)


@cpu_gpu()
def test_gpu_matches_cpu(device):
    pipe = dali.Pipeline(batch_size=2, num_threads=2, device_id=device_id(device))
    with pipe:
        x = to_device(fn.external_source(lambda: [IMG, IMG[:30]], layout="HWC"), device)
        u = to_device(fn.external_source(lambda: [IMG, IMG], layout="HWC"), device)
        pipe.set_outputs(fn.grid_mask(x, tile=13, angle=0.7, shift_x=3.0),
                         fn.grid_mask(u, tile=9, ratio=0.3, angle=-0.2))  # fmt: skip
    return pipe.run()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_compiled_kernel_is_the_numpy_expression(dtype):
    # the Numba pass against `grid_mask`'s numpy arithmetic: the same mask, the same products
    # (a float pixel keeps its sign, inf and NaN times 0 give NaN)
    pytest.importorskip("numba")
    from dali._ops.image import grid_mask as gm

    f = np.float32
    rng = np.random.default_rng(5)
    x = rng.normal(0, 100, (57, 83, 3)).astype(dtype)
    if dtype == np.float32:
        x[0, 0, 0], x[0, 1, 0], x[1, 1, 1] = np.inf, np.nan, -3.0
    for tile, ratio, angle, shift_x, shift_y in [
        (40, 0.3, 0.3, 0.0, 0.0),
        (7, 0.6, -1.2, 3.5, -2.25),
        (1, 0.99, 2.0, 0.1, 0.1),
        (13, 0.0, 0.7, 0.0, 5.0),
    ]:
        t = f(tile)
        with np.errstate(invalid="ignore"):
            want = gm.grid_mask(np, x, t, f(ratio), f(angle), f(shift_x), f(shift_y))
        got = np.empty_like(x)
        ca, sa = (f(g(np.float64(angle))) / t for g in (np.cos, np.sin))
        gm._kernel()(x, ca, sa, f(shift_x) / t, f(shift_y) / t, f(ratio), got)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))
