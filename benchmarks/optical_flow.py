"""Speed and accuracy of `fn.optical_flow` on 720p frame pairs, CPU vs GPU, beside OpenCV.

Frames: a 1280x720 analytic texture (random plane waves, wavelengths 8 to 48 px) and the same
texture moved by a known sub-pixel motion, ``--motion`` (default 5.5, -3.25 px), in RGB. Rows:

* ``dali GPU, grid G, preset P``: ``fn.optical_flow(device="gpu")``, ``--batch`` two-frame
  sequences per batch (one launch per pyramid level for the batch), frames copied to the GPU
  inside the pipeline;
* ``dali CPU, grid 4, preset P``: the same estimator on the CPU (numpy), ``--threads`` threads;
* ``cv2 Farneback`` and ``cv2 DIS (medium)``: OpenCV's dense flows on the luma, one thread
  per call, as peers (their flow is per pixel; the error is read at the same points).

Columns: frame pairs per second, and the mean end-point error (EPE, pixels) over the points whose
16-pixel neighbourhood stays inside both frames. Run: ``python benchmarks/optical_flow.py``
(the GPU rows need CuPy and a CUDA device; ``--no-cpu`` skips the slow CPU rows).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_columns
from dali import fn, pipeline_def


def texture(h: int, w: int, dx: float = 0.0, dy: float = 0.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = x - np.float32(dx), y - np.float32(dy)
    out = np.full((h, w), 128.0, np.float32)
    for _ in range(16):
        wl = np.exp(rng.uniform(np.log(8), np.log(48)))
        th, ph = rng.uniform(0, 2 * np.pi, 2)
        k = np.float32(2 * np.pi / wl)
        out += np.float32(rng.uniform(10, 25)) * np.sin(
            k * (np.float32(np.cos(th)) * x + np.float32(np.sin(th)) * y) + np.float32(ph)
        )
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def pair(h: int, w: int, dx: float, dy: float) -> np.ndarray:
    g = np.stack([texture(h, w), texture(h, w, dx, dy)])
    return np.stack([g, g // 2 + 40, 255 - g], axis=-1)


def epe_at(flow: np.ndarray, grid: int, dx: float, dy: float, m: int = 16) -> float:
    """Mean EPE of a ``(ny, nx, 2)`` field whose cell ``(i, j)`` is at ``(j, i) * grid + g/2``."""
    h, w = flow.shape[0] * grid, flow.shape[1] * grid
    ys, xs = np.mgrid[0 : flow.shape[0], 0 : flow.shape[1]] * grid + grid // 2
    ok = (xs >= m) & (xs < w - m) & (ys >= m) & (ys < h - m)
    ok &= (xs + dx >= m) & (xs + dx < w - m) & (ys + dy >= m) & (ys + dy < h - m)
    return float(np.hypot(flow[..., 0] - dx, flow[..., 1] - dy)[ok].mean())


def bench_dali(seq: np.ndarray, device: str, batch: int, grid: int, preset: float, args: Any):
    @pipeline_def(
        batch_size=batch,
        num_threads=args.threads,
        device_id=0 if device == "gpu" else None,
        prefetch_queue_depth=2,
    )
    def pipe():
        x = fn.external_source(lambda: [seq] * batch, layout="FHWC")
        if device == "gpu":
            x = x.gpu()
        return fn.optical_flow(x, device=device, output_grid=grid, preset=preset)

    p = pipe()
    (out,) = p.run()  # warm-up: kernels compiled, pools filled
    flow = np.asarray(out.as_cpu().at(0) if device == "gpu" else out.at(0))[0]
    iters = args.iters if device == "gpu" else 1
    t0 = time.perf_counter()
    for _ in range(iters):
        (out,) = p.run()
        if device == "gpu":
            out.as_cpu()  # synchronize! the timing covers the GPU work
    dt = time.perf_counter() - t0
    return batch * iters / dt, epe_at(flow, grid, args.motion[0], args.motion[1])


def bench_cv2(seq: np.ndarray, kind: str, args: Any) -> tuple[float, float] | None:
    try:
        import cv2
    except ImportError:
        return None
    a, b = (cv2.cvtColor(np.ascontiguousarray(f), cv2.COLOR_RGB2GRAY) for f in seq)
    if kind == "farneback":

        def step():
            return cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 5, 15, 3, 5, 1.2, 0)
    else:
        dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)

        def step():
            return dis.calc(a, b, None)

    flow = step()
    n = 3
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    fps = n / (time.perf_counter() - t0)
    return fps, epe_at(flow, 1, args.motion[0], args.motion[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--motion", type=float, nargs=2, default=(5.5, -3.25))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-cpu", action="store_true", help="skip the (slow) CPU rows")
    args = ap.parse_args()
    seq = pair(args.height, args.width, *args.motion)

    rows = []
    try:
        import cupy

        has_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy or no driver: CPU rows only
        has_gpu = False
    if has_gpu:
        for grid in (4, 2, 1):
            for preset in (0.0, 0.5, 1.0):
                fps, err = bench_dali(seq, "gpu", args.batch, grid, preset, args)
                rows.append([f"dali GPU, grid {grid}, preset {preset}", f"{fps:.1f}", f"{err:.3f}"])
    if not args.no_cpu:
        for preset in (0.0, 1.0):
            fps, err = bench_dali(seq, "cpu", args.threads, 4, preset, args)
            rows.append([f"dali CPU, grid 4, preset {preset}", f"{fps:.2f}", f"{err:.3f}"])
    for kind, name in (("farneback", "cv2 Farneback"), ("dis", "cv2 DIS (medium)")):
        r = bench_cv2(seq, kind, args)
        if r is not None:
            rows.append([name, f"{r[0]:.2f}", f"{r[1]:.3f}"])
    title = (
        f"optical flow, {args.width}x{args.height} RGB pairs, motion {tuple(args.motion)} px "
        f"(GPU batch {args.batch})"
    )
    print_columns(title, ["method", "pairs/s", "EPE px"], rows)


if __name__ == "__main__":
    main()
