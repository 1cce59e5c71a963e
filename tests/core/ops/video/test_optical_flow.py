"""`fn.optical_flow`: accuracy on synthetic motion, DALI's shapes and errors, hints, CPU/GPU parity.

The frames are an analytic texture (a sum of random plane waves, wavelengths 8 to 48 px), so a
sub-pixel translation is exact: frame 1 is the texture sampled at ``(x - dx, y - dy)``. The
error is the mean end-point error (EPE) over the cells whose window stays inside both frames.
"""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._ops.video._flow import PRESETS, level_sizes
from parity import cpu_gpu, device_id, to_device


def texture(h: int, w: int, dx: float = 0.0, dy: float = 0.0, seed: int = 0) -> np.ndarray:
    """``(h, w)`` uint8 texture moved by ``(dx, dy)`` pixels."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    x, y = x - dx, y - dy
    out = np.full((h, w), 128.0)
    for _ in range(16):
        wl = np.exp(rng.uniform(np.log(8), np.log(48)))
        th, ph = rng.uniform(0, 2 * np.pi, 2)
        out += rng.uniform(10, 25) * np.sin(2 * np.pi / wl * (np.cos(th) * x + np.sin(th) * y) + ph)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def sequence(h: int, w: int, moves: list[tuple[float, float]], seed: int = 0) -> np.ndarray:
    """RGB frames ``(len(moves) + 1, h, w, 3)``: each frame moved by the next motion."""
    frames, px, py = [texture(h, w, seed=seed)], 0.0, 0.0
    for dx, dy in moves:
        px, py = px + dx, py + dy
        frames.append(texture(h, w, px, py, seed=seed))
    g = np.stack(frames)
    return np.stack([g, g // 2 + 40, 255 - g], axis=-1)  # colour: luma still textured


def epe(flow: np.ndarray, dx: float, dy: float, grid: int, region: tuple[int, int, int, int]):
    """Mean end-point error over cells whose centre and target lie in ``region`` (y0, y1, x0, x1)."""
    y0, y1, x0, x1 = region
    ys, xs = np.mgrid[0 : flow.shape[0], 0 : flow.shape[1]] * grid + grid // 2
    ok = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
    ok &= (xs + dx >= x0) & (xs + dx < x1) & (ys + dy >= y0) & (ys + dy < y1)
    assert ok.sum() > 4
    return float(np.hypot(flow[..., 0] - dx, flow[..., 1] - dy)[ok].mean())


def interior(h: int, w: int, m: int = 8) -> tuple[int, int, int, int]:
    return m, h - m, m, w - m


def run(seqs, device="cpu", hints=None, **kwargs):
    """fn.optical_flow over one batch of sequences; the outputs as numpy (or the raw batch)."""

    @pipeline_def(batch_size=len(seqs), num_threads=1, device_id=device_id(device))
    def pipe():
        layout = "FHWC"[-seqs[0].ndim :]
        x = to_device(fn.external_source(lambda: seqs, layout=layout), device)
        if hints is None:
            return fn.optical_flow(x, device=device, **kwargs)
        h = to_device(fn.external_source(lambda: hints), device)
        return fn.optical_flow(x, h, device=device, enable_external_hints=True, **kwargs)

    return pipe().run()


def flows(seqs, **kwargs) -> list[np.ndarray]:
    (out,) = run(seqs, **kwargs)
    return [np.asarray(out.at(i)) for i in range(len(out))]


# -- accuracy on known motion ------------------------------------------------------------------


@pytest.mark.parametrize("motion", [(3, -2), (16, -16), (-12, 7), (-16, 16), (0, 9)])
def test_integer_shifts_default_preset(motion):
    h, w = 96, 128
    (f,) = flows([sequence(h, w, [motion])])
    assert f.shape == (1, 24, 32, 2)
    assert epe(f[0], *motion, 4, interior(h, w)) < 0.5
    # the flow is NVOF's fixed point: multiples of 1/32 pixel
    assert np.array_equal(f * 32, np.rint(f * 32))


@pytest.mark.parametrize("motion", [(2.5, -1.25), (0.3, 0.6), (-7.75, 3.5)])
@pytest.mark.parametrize("grid", [1, 4])
def test_subpixel_shifts(motion, grid):
    h, w = 48, 64
    (f,) = flows([sequence(h, w, [motion])], output_grid=grid)
    assert epe(f[0], *motion, grid, interior(h, w)) < 0.35


def test_two_halves_move_differently():
    h, w = 64, 128
    left, right = (5, -3), (-4, 2)
    a = texture(h, w, seed=1)
    b = np.concatenate(
        [texture(h, w, *left, seed=1)[:, :64], texture(h, w, *right, seed=1)[:, 64:]], 1
    )
    seq = np.stack([a, b])[..., None]
    (f,) = flows([seq], image_type=types.GRAY)
    # away from the seam (windows straddling it see both motions)
    assert epe(f[0], *left, 4, (8, h - 8, 8, 64 - 14)) < 0.5
    assert epe(f[0], *right, 4, (8, h - 8, 64 + 14, w - 8)) < 0.5


def test_textureless_frames_do_not_move():
    seq = np.full((3, 20, 28, 3), 90, np.uint8)
    seq[2] = 91  # a brightness change, no texture: no motion either
    (f,) = flows([seq], output_grid=2)
    assert f.shape == (2, 10, 14, 2) and not f.any()


@pytest.mark.parametrize("preset", [0.0, 0.5, 1.0])
def test_presets(preset):
    h, w = 48, 64
    (f,) = flows([sequence(h, w, [(4, 3)])], preset=preset)
    assert epe(f[0], 4, 3, 4, interior(h, w)) < 0.5


def test_colour_spaces_agree_on_motion():
    seq = sequence(48, 64, [(2, 1)])
    rgb, bgr = flows([seq])[0], flows([seq[..., ::-1].copy()], image_type=types.BGR)[0]
    assert np.array_equal(rgb, bgr)  # BGR is read as the reversed RGB
    rgba = np.concatenate([seq, np.zeros_like(seq[..., :1])], -1)
    assert np.array_equal(flows([rgba])[0], rgb)  # alpha is ignored
    gray = flows([seq[..., :1].copy()])[0]  # one channel: that channel, whatever image_type
    assert epe(gray[0], 2, 1, 4, interior(48, 64)) < 0.5


# -- shapes, layout, dtype ---------------------------------------------------------------------


@pytest.mark.parametrize("grid", [1, 2, 4])
def test_shapes_odd_sizes_ragged(grid):
    seqs = [sequence(17, 23, [(1, 0)] * 2), sequence(30, 41, [(0, 1)]), sequence(16, 16, [(1, 1)])]
    (out,) = run(seqs, output_grid=grid)
    assert out.layout() == "FHWC"
    for i, s in enumerate(seqs):
        f, h, w = s.shape[:3]
        o = np.asarray(out.at(i))
        assert o.dtype == np.float32
        assert o.shape == (f - 1, -(-h // grid), -(-w // grid), 2)


def test_static_meta_and_defaults():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: [sequence(16, 20, [(1, 0)])], layout="FHWC")
        flow = fn.optical_flow(x)
        assert flow.dtype == types.FLOAT and flow.ndim == 4 and flow.layout == "FHWC"
        return flow

    (out,) = pipe().run()
    assert np.asarray(out.at(0)).shape == (1, 4, 5, 2)  # output_grid defaults to 4


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"output_grid": 3}, "Output grid size: 3 is not supported, supported are: 1, 2, 4"),
        ({"output_grid": 8}, "Output grid size: 8 is not supported"),
        ({"hint_grid": 3}, "Hint grid size: 3 is not supported, supported are: 1, 2, 4, 8"),
        ({"preset": 1.5}, "argument `preset`: must be between 0.0 and 1.0"),
        ({"image_type": types.YCbCr}, "argument `image_type`: YCbCr is not supported"),
        ({"enable_external_hints": True}, "Incorrect number of inputs. Expected: 2, Obtained: 1"),
    ],
)
def test_argument_errors(kwargs, match):
    with pytest.raises(RuntimeError, match=match) as e:
        run([sequence(16, 16, [(1, 0)])], **kwargs)
    assert "optical_flow" in str(e.value)


@pytest.mark.parametrize(
    ("sample", "match"),
    [
        (np.zeros((16, 16, 3), np.uint8), "must be a sequence of frames"),
        (np.zeros((1, 16, 16, 3), np.uint8), "One-frame sequence encountered"),
        (np.zeros((0, 16, 16, 3), np.uint8), "Empty sequence encountered"),
        (np.zeros((2, 16, 16, 2), np.uint8), "1, 3 or 4 channels, got 2"),
        (np.zeros((2, 16, 16, 3), np.float32), "must be uint8"),
    ],
)
def test_input_errors(sample, match):
    with pytest.raises(RuntimeError, match=match):
        run([sample])


def test_hint_shape_error():
    seq = sequence(16, 24, [(1, 0)])
    bad = [np.zeros((1, 4, 5, 2), np.float32)]  # hint_grid 4 needs (1, 4, 6, 2)
    with pytest.raises(
        RuntimeError, match=r"input `hints`, sample 0: expected \(1 or 2, 4, 6, 2\)"
    ):
        run([seq], hints=bad)


# -- hints -------------------------------------------------------------------------------------

#: Small frames (two pyramid levels) and the fast preset reach about 7 px: more needs a hint.
FAST = 1.0


def test_reach_needs_hints():
    assert len(level_sizes(40, 64, PRESETS["fast"].max_levels)) == 2


def test_temporal_hints_follow_accelerating_motion():
    h, w = 40, 64
    seq = sequence(h, w, [(6, 0), (11, 0)])  # pair 1 alone is beyond reach; from pair 0's 6 not
    (plain,) = flows([seq], preset=FAST)
    (hinted,) = flows([seq], preset=FAST, enable_temporal_hints=True)
    region = interior(h, w)
    assert np.array_equal(plain[0], hinted[0])  # the first pair has no hint
    assert epe(plain[1], 11, 0, 4, region) > 2.0
    assert epe(hinted[1], 11, 0, 4, region) < 0.5


@pytest.mark.parametrize("hint_grid", [1, 4, 8])
def test_external_hints_reach_large_motion(hint_grid):
    h, w = 40, 64
    seq = sequence(h, w, [(-14, 3)])
    hh, hw = -(-h // hint_grid), -(-w // hint_grid)
    rough = np.empty((1, hh, hw, 2), np.float32)
    rough[..., 0], rough[..., 1] = -13.0, 2.25  # a rough guess is enough
    (plain,) = flows([seq], preset=FAST)
    (hinted,) = flows([seq], preset=FAST, hints=[rough], hint_grid=hint_grid)
    region = interior(h, w)
    assert epe(plain[0], -14, 3, 4, region) > 2.0
    assert epe(hinted[0], -14, 3, 4, region) < 0.5
    # DALI's F fields: field i hints pair (i - 1, i), field 0 unused
    dali_style = np.concatenate([np.full_like(rough, 50.0), rough])
    (same,) = flows([seq], preset=FAST, hints=[dali_style], hint_grid=hint_grid)
    assert np.array_equal(same, hinted)


def test_second_input_ignored_without_external_hints():
    seq = sequence(24, 32, [(2, 1)])
    junk = np.zeros_like(seq)  # DALI's own test passes such a second input: it is not read

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x, h = fn.external_source(lambda: ([seq], [junk]), num_outputs=2, layout="FHWC")
        return fn.optical_flow(x, h)

    (out,) = pipe().run()
    assert np.array_equal(np.asarray(out.at(0)), flows([seq])[0])


# -- CPU/GPU parity: the same integer arithmetic gives EQUAL flows -----------------------------


@cpu_gpu()
@pytest.mark.parametrize("grid", [1, 2, 4])
@pytest.mark.parametrize("preset", [0.0, 1.0])
def test_parity(grid, preset, device):
    seqs = [sequence(40, 56, [(3, -2), (-1.5, 2.25)]), sequence(33, 47, [(5, 1)], seed=2)]
    seqs.append(np.ascontiguousarray(sequence(64, 96, [(16, -16)], seed=3)[..., :1]))
    return run(seqs, device, output_grid=grid, preset=preset, image_type=types.BGR)


@cpu_gpu()
def test_parity_hints(device):
    h, w = 40, 64
    seqs = [sequence(h, w, [(6, 0), (14, 0), (-3, 1)]), sequence(h, w, [(-14, 3)], seed=4)]
    hints = [
        np.random.default_rng(5).normal(0, 6, (s.shape[0] - 1, 5, 8, 2)).astype(np.float32)
        for s in seqs
    ]
    return run(seqs, device, hints=hints, hint_grid=8, preset=FAST, enable_temporal_hints=True)


@cpu_gpu()
def test_parity_large_batch(device):
    seqs = [sequence(72, 128, [(k - 4, 4 - k), (1, 1)], seed=k) for k in range(8)]
    return run(seqs, device, output_grid=2, enable_temporal_hints=True)
