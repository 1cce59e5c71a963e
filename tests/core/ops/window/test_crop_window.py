"""The batched random crop-window generator (`dali._ops.window.random_crop`).

`random_crop_windows` evaluates every attempt of every sample at once. It is checked against a
direct, sequential port of DALI's ``RandomCropGenerator`` loop (`reference_window`) fed with the
same draws: the windows must be identical, bit for bit, over random shapes (1×1, 1×N, very
elongated, empty, large) and argument values. On top of that, structural properties: every window
lies inside its image, an accepted attempt obeys the area and aspect-ratio rules, the fallback
respects the area limit, and a sample's window depends on its identity alone (not on the batch).
"""

from __future__ import annotations

import numpy as np
import pytest
from dali._exec.rng import SampleRNG, combine
from dali._ops.window.random_crop import CROP_WINDOW_STREAM, random_crop_windows

f32 = np.float32


def reference_window(
    H: int, W: int, area: tuple, aspect: tuple, attempts: int, bits: np.ndarray
) -> tuple[tuple[int, int, int, int], str]:
    """DALI's generator, one attempt after the other, drawing from ``bits`` in order.

    Returns the window ``(y, x, h, w)`` and how it was found: "empty", "wide", "tall",
    "attempt" or "fallback".
    """
    if H <= 0 or W <= 0:
        return (0, 0, 0, 0), "empty"
    draws = iter(f32((int(b) >> 40) * 2.0**-24) for b in bits[: 2 * attempts])
    area_lo, area_hi = f32(area[0]), f32(area[1])
    min_wh, max_wh = f32(aspect[0]), f32(aspect[1])
    max_hw = f32(1) / min_wh
    min_area = f32(W * H) * area_lo
    max_w = max(1, int(f32(H) * max_wh))
    max_h = max(1, int(f32(W) * max_hw))
    if f32(H * max_w) < min_area:
        h, w, kind = H, max_w, "wide"
    elif f32(W * max_h) < min_area:
        h, w, kind = max_h, W, "tall"
    else:
        log_lo, log_hi = np.log(min_wh), np.log(max_wh)
        kind = "fallback"
        for _ in range(attempts):
            u_area, u_ratio = next(draws), next(draws)
            target_area = (area_lo + (area_hi - area_lo) * u_area) * f32(H * W)
            ratio = np.exp(log_lo + (log_hi - log_lo) * u_ratio)
            w = max(1, int(np.floor(float(np.sqrt(target_area * ratio)) + 0.5)))
            h = max(1, int(np.floor(float(np.sqrt(target_area / ratio)) + 0.5)))
            if w <= W and h <= H and min_wh <= f32(w) / f32(h) <= max_wh:
                kind = "attempt"
                break
        if kind == "fallback":
            r = f32(W) / f32(H)
            if r > max_wh:
                h, w = H, max_w
            elif r < min_wh:
                h, w = max_h, W
            else:
                h, w = H, W
            s = np.sqrt(min(f32(1), area_hi * f32(W) * f32(H) / f32(w * h)))
            h, w = max(1, int(f32(h) * s)), max(1, int(f32(w) * s))
    h, w = min(h, H), min(w, W)
    y = (int(bits[-2]) >> 32) * (H - h + 1) >> 32
    x = (int(bits[-1]) >> 32) * (W - w + 1) >> 32
    return (y, x, h, w), kind


def random_shapes(rng: np.random.Generator, n: int) -> np.ndarray:
    """A mix of ordinary, tiny, 1-pixel-wide, very elongated, empty and large images."""
    kinds = rng.integers(0, 6, n)
    h = np.where(kinds == 0, rng.integers(20, 1200, n), 0)
    w = np.where(kinds == 0, rng.integers(20, 1200, n), 0)
    h = np.where(kinds == 1, rng.integers(1, 6, n), h)
    w = np.where(kinds == 1, rng.integers(1, 6, n), w)
    long, short = rng.integers(200, 20000, n), rng.integers(1, 5, n)
    flip = rng.random(n) < 0.5
    h = np.where(kinds == 2, np.where(flip, long, short), h)
    w = np.where(kinds == 2, np.where(flip, short, long), w)
    h = np.where(kinds == 3, rng.integers(0, 3, n), h)
    w = np.where(kinds == 3, rng.integers(0, 3, n), w)
    h = np.where(kinds == 4, rng.integers(3000, 30000, n), h)
    w = np.where(kinds == 4, rng.integers(3000, 30000, n), w)
    h = np.where(kinds == 5, 1, h)
    w = np.where(kinds == 5, 1, w)
    return np.stack([h, w], axis=1)


def check_window(H, W, area, aspect, win, kind) -> None:
    """The structural rules of one window."""
    y, x, h, w = win
    if kind == "empty":
        assert win == (0, 0, 0, 0)
        return
    assert 1 <= h <= H and 1 <= w <= W and 0 <= y <= H - h and 0 <= x <= W - w
    if kind == "attempt":
        r = f32(w) / f32(h)
        assert f32(aspect[0]) <= r <= f32(aspect[1])
        slack = (h + w) / 2 + 1  # w and h are each rounded to the nearest integer
        assert area[0] * H * W - slack <= h * w <= area[1] * H * W + slack
    elif kind == "fallback":
        # shrunk to the largest area allowed, unless a side had to be raised to 1 pixel
        assert h * w <= area[1] * H * W * (1 + 1e-6) or min(h, w) == 1
    elif kind == "wide":
        assert h == H and w < W
    else:
        assert w == W and h < H


PARAMS = [
    ((0.08, 1.0), (3 / 4, 4 / 3), 10),
    ((0.08, 1.0), (3 / 4, 4 / 3), 1),
    ((0.5, 0.5), (1.0, 1.0), 3),
    ((1.0, 1.0), (1.0, 1.0), 10),
    ((0.01, 0.2), (0.1, 10.0), 10),
    ((0.9, 1.0), (2.0, 3.0), 5),
    ((0.3, 0.6), (0.2, 0.5), 10),
]


@pytest.mark.parametrize("area,aspect,attempts", PARAMS)
def test_batched_windows_are_the_sequential_generators(area, aspect, attempts) -> None:
    shapes = random_shapes(np.random.default_rng(attempts), 400)
    rng = SampleRNG(combine(17, np.arange(len(shapes))))
    anchors, sizes = random_crop_windows(rng, shapes, area, aspect, attempts)
    assert anchors.dtype == sizes.dtype == np.int64
    bits = rng.bits(2 * attempts + 2, stream=CROP_WINDOW_STREAM)
    kinds = set()
    for i, (H, W) in enumerate(shapes.tolist()):
        want, kind = reference_window(H, W, area, aspect, attempts, bits[i])
        got = (*anchors[i].tolist(), *sizes[i].tolist())
        assert got == want, (H, W, kind)
        check_window(H, W, area, aspect, got, kind)
        kinds.add(kind)
    assert {"empty", "wide", "tall"} <= kinds
    assert "attempt" in kinds or area[0] == 1.0


def test_windows_properties_hypothesis() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    dims = st.one_of(st.integers(0, 4), st.integers(1, 100_000))
    pairs = st.tuples(st.floats(0.01, 1.0), st.floats(0.01, 1.0)).map(sorted)
    ratios = st.tuples(st.floats(0.05, 20.0), st.floats(0.05, 20.0)).map(sorted)

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(
        st.lists(st.tuples(dims, dims), min_size=1, max_size=8),
        pairs,
        ratios,
        st.integers(1, 12),
        st.integers(0, 2**63 - 1),
    )
    def check(shapes, area, aspect, attempts, seed):
        shapes = np.array(shapes, dtype=np.int64)
        rng = SampleRNG(combine(seed, np.arange(len(shapes))))
        anchors, sizes = random_crop_windows(rng, shapes, area, aspect, attempts)
        bits = rng.bits(2 * attempts + 2, stream=CROP_WINDOW_STREAM)
        for i, (H, W) in enumerate(shapes.tolist()):
            want, kind = reference_window(H, W, area, aspect, attempts, bits[i])
            got = (*anchors[i].tolist(), *sizes[i].tolist())
            assert got == want
            check_window(H, W, area, aspect, got, kind)

    check()


def test_the_mean_area_is_dalis() -> None:
    # DALI's mean area fraction on the reference's 21 test images is about 0.385
    from dali._testing.images import tree_image_size

    shapes = np.repeat([tree_image_size(i) for i in range(21)], 5000, axis=0)
    rng = SampleRNG(combine(3, np.arange(len(shapes))))
    _, sizes = random_crop_windows(rng, shapes)
    mean = (sizes.prod(axis=1) / shapes.prod(axis=1)).mean()
    assert 0.378 < mean < 0.392


def test_a_sample_window_depends_on_its_identity_only() -> None:
    shapes = random_shapes(np.random.default_rng(5), 64)
    keys = combine(9, np.arange(64), 0)
    anchors, sizes = random_crop_windows(SampleRNG(keys), shapes)
    # another batch: a permuted subset of the samples
    idx = np.random.default_rng(6).permutation(64)[:20]
    a2, s2 = random_crop_windows(SampleRNG(keys[idx]), shapes[idx])
    np.testing.assert_array_equal(a2, anchors[idx])
    np.testing.assert_array_equal(s2, sizes[idx])
    a1, s1 = random_crop_windows(SampleRNG(keys).subset([7]), shapes[7:8])
    assert (*a1[0], *s1[0]) == (*anchors[7], *sizes[7])
    # another epoch, or another sub-stream, gives other windows
    ordinary = (shapes.min(axis=1) >= 20) & (shapes.max(axis=1) < 2000)
    other = random_crop_windows(SampleRNG(combine(9, np.arange(64), 1)), shapes)
    assert not np.array_equal(other[1][ordinary], sizes[ordinary])
    stream = random_crop_windows(SampleRNG(keys), shapes, stream=CROP_WINDOW_STREAM + 1)
    assert not np.array_equal(stream[1][ordinary], sizes[ordinary])


def test_per_sample_arguments() -> None:
    shapes = np.repeat([(300, 400)], 6, axis=0)
    rng = SampleRNG(combine(2, np.arange(6)))
    area = np.array([(0.08, 1.0)] * 3 + [(0.5, 0.5)] * 3)
    aspect = np.array([(0.75, 4 / 3)] * 3 + [(1.0, 1.0)] * 3)
    anchors, sizes = random_crop_windows(rng, shapes, area, aspect)
    a0, s0 = random_crop_windows(rng.subset(slice(0, 3)), shapes[:3], (0.08, 1.0))
    a1, s1 = random_crop_windows(rng.subset(slice(3, 6)), shapes[3:], 0.5, 1.0)
    np.testing.assert_array_equal(anchors, np.concatenate([a0, a1]))
    np.testing.assert_array_equal(sizes, np.concatenate([s0, s1]))
    assert np.all(sizes[3:] == 245)  # sqrt(0.5 * 120000) = 244.9


def test_arguments_are_checked() -> None:
    rng = SampleRNG(combine(0, np.arange(2)))
    with pytest.raises(ValueError, match="2 random streams"):
        random_crop_windows(rng, [(10, 10)])
    with pytest.raises(ValueError, match="num_attempts"):
        random_crop_windows(rng, [(10, 10)] * 2, num_attempts=-1)
    anchors, sizes = random_crop_windows(rng.subset(slice(0, 0)), np.zeros((0, 2)))
    assert anchors.shape == sizes.shape == (0, 2)


def test_unknown_sizes_get_empty_windows() -> None:
    rng = SampleRNG(combine(0, np.arange(4)))
    anchors, sizes = random_crop_windows(rng, [(-1, -1), (-1, 50), (40, 0), (40, 50)])
    assert anchors[:3].tolist() == sizes[:3].tolist() == [[0, 0]] * 3
    assert (sizes[3] > 0).all()


def test_a_workspace_is_a_source() -> None:
    class Ws:
        rng = SampleRNG(combine(4, np.arange(3)))

    a, s = random_crop_windows(Ws(), [(50, 60)] * 3)
    b, t = random_crop_windows(Ws.rng, [(50, 60)] * 3)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(s, t)
