"""`fn.gaussian_blur` and `fn.color_space_conversion` on the GPU beside raw CuPy references.

Each row is a batch of uint8 HWC images already on the GPU (as a decoder leaves them). The dali
column runs ``external_source(device="gpu") → op`` end to end (ms per batch, the source-only
pipeline's time subtracted); the reference column is what a user would write with CuPy alone
for the same result on the same batch: `cupyx.scipy.ndimage.gaussian_filter` over the dense
batch (sigma 0 on the batch and channel axes), and the colour conversion as one float32
elementwise expression per pixel. Both are timed to the GPU's completion (median of repeats).

Run on a GPU machine::

    PYTHONPATH=packages/core/src python3 benchmarks/filters_gpu.py [--batch 32] [--size 224]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_columns


def _timed(step: Callable[[], Any], iters: int, repeats: int) -> float:
    """Median ms per call of ``step`` (each repeat synchronised with the GPU at its end)."""
    import cupy as cp

    step()
    cp.cuda.runtime.deviceSynchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            step()
        cp.cuda.runtime.deviceSynchronize()
        times.append((time.perf_counter() - t0) / iters * 1e3)
    return statistics.median(times)


def _pipeline_ms(op: Callable[[Any], Any] | None, batch: Any, iters: int, repeats: int) -> float:
    import dali
    from dali import fn

    pipe = dali.Pipeline(batch_size=len(batch), num_threads=4, device_id=0, seed=1)
    with pipe:
        x = fn.external_source(lambda: batch, device="gpu", layout="HWC")
        pipe.set_outputs(op(x) if op is not None else x)
    pipe.build()

    try:
        return _timed(pipe.run, iters, repeats)
    finally:
        pipe.close()


_YCBCR = np.array(
    [[0.257, 0.504, 0.098], [-0.148, -0.291, 0.439], [0.439, -0.368, -0.071]], np.float32
)
_YCBCR_OFFSET = np.array([16.0, 128.0, 128.0], np.float32)
_GRAY = np.array([0.299, 0.587, 0.114], np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import cupy as cp
    from cupyx.scipy import ndimage
    from dali import fn, types

    rng = np.random.default_rng(0)
    host = rng.integers(0, 256, (args.batch, args.size, args.size, 3), dtype=np.uint8)
    dense = cp.asarray(host)
    batch = [dense[i] for i in range(args.batch)]
    source = _pipeline_ms(None, batch, args.iters, args.repeats)

    def ycbcr() -> Any:
        f = dense.astype(cp.float32) @ cp.asarray(_YCBCR.T) + cp.asarray(_YCBCR_OFFSET)
        return cp.clip(cp.rint(f), 0, 255).astype(cp.uint8)

    def gray() -> Any:
        f = dense.astype(cp.float32) @ cp.asarray(_GRAY)
        return cp.clip(cp.rint(f), 0, 255).astype(cp.uint8)[..., None]

    cases: list[tuple[str, Callable[[Any], Any], Callable[[], Any]]] = [
        (
            "gaussian_blur(sigma=1.5)",
            lambda x: fn.gaussian_blur(x, sigma=1.5),
            lambda: ndimage.gaussian_filter(dense, sigma=(0, 1.5, 1.5, 0), truncate=3.0),
        ),
        (
            "gaussian_blur(window_size=3)",
            lambda x: fn.gaussian_blur(x, window_size=3),
            lambda: ndimage.gaussian_filter(dense, sigma=(0, 0.8, 0.8, 0), truncate=1.25),
        ),
        (
            "color_space_conversion(RGB->YCbCr)",
            lambda x: fn.color_space_conversion(x, image_type=types.RGB, output_type=types.YCbCr),
            ycbcr,
        ),
        (
            "color_space_conversion(RGB->GRAY)",
            lambda x: fn.color_space_conversion(x, image_type=types.RGB, output_type=types.GRAY),
            gray,
        ),
    ]
    rows = []
    for name, op, raw in cases:
        ours = _pipeline_ms(op, batch, args.iters, args.repeats) - source
        ref = _timed(raw, args.iters, args.repeats)
        rows.append([name, f"{ours:.3f}", f"{ref:.3f}", f"{ref / ours:.2f}x"])
    print_columns(
        f"{args.batch}x{args.size}x{args.size}x3 uint8 on the GPU ({cp.cuda.Device().id}: "
        f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}), ms per batch, median of "
        f"{args.repeats} x {args.iters}; source-only pipeline {source:.3f} ms subtracted",
        ["operator", "dali", "raw CuPy", "dali speed vs CuPy"],
        rows,
    )


if __name__ == "__main__":
    main()
