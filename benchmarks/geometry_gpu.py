"""GPU time of the batched geometry kernels: resize, random_resized_crop, rotate, paste.

For a batch of ragged ~400×500 RGB uint8 images already on the GPU (as a decoder leaves them:
one CuPy array per sample) it reports, per operator:

* ``gpu ms``: the kernels alone (CUDA events around replays of the captured launches);
* ``host ms``: what the operator costs the executor thread per batch (geometry, packing,
  upload and launch; nothing waits for the GPU);
* ``pipe img/s``: a pipeline ``external_source(device="gpu") → op`` run end to end.

Run on a GPU machine::

    PYTHONPATH=packages/core/src python3 benchmarks/geometry_gpu.py --batch 256
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np


class _Recorder:
    """Calls a CuPy kernel and remembers the call, so that it can be replayed and timed."""

    def __init__(self, kernel: Any, launches: list[tuple[Any, tuple[Any, ...], dict[str, Any]]]):
        self.kernel = kernel
        self.launches = launches

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.launches.append((self.kernel, args, kwargs))
        return self.kernel(*args, **kwargs)


@contextlib.contextmanager
def _capture() -> Iterator[list[tuple[Any, tuple[Any, ...], dict[str, Any]]]]:
    from dali._ops.gpu import kernels as G

    launches: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []
    original = G.kernel_module

    def recording(device: int, source: str, names: tuple[str, ...]) -> dict[str, Any]:
        return {k: _Recorder(v, launches) for k, v in original(device, source, names).items()}

    G.kernel_module = recording  # type: ignore[assignment]
    try:
        yield launches
    finally:
        G.kernel_module = original  # type: ignore[assignment]


def _gpu_ms(launches: list[tuple[Any, tuple[Any, ...], dict[str, Any]]], reps: int) -> float:
    import cupy

    for kernel, args, kwargs in launches:  # warm
        kernel(*args, **kwargs)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(reps):
        for kernel, args, kwargs in launches:
            kernel(*args, **kwargs)
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) / reps


def _host_ms(step: Callable[[], Any], reps: int) -> float:
    import cupy

    step()
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        step()
    elapsed = time.perf_counter() - t0
    cupy.cuda.get_current_stream().synchronize()
    return 1e3 * elapsed / reps


def _pipeline_rate(op: Callable[[Any], Any], samples: list[Any], iters: int) -> float:
    import dali
    from dali import fn

    @dali.pipeline_def(batch_size=len(samples), num_threads=4, device_id=0, seed=1)
    def pipe() -> Any:
        data = fn.external_source(source=lambda: samples, device="gpu", layout="HWC")
        return op(data)

    p = pipe()
    p.build()
    for _ in range(3):
        p.run()
    t0 = time.perf_counter()
    for _ in range(iters):
        (out,) = p.run()
    out.as_cpu()  # the last batch is complete
    return iters * len(samples) / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--iters", type=int, default=30)
    parser.add_argument("--scale", type=float, default=1.0, help="image size factor (smoke tests)")
    opts = parser.parse_args()

    import cupy
    from dali import fn
    from dali._exec.rng import SampleRNG, combine
    from dali._ops.gpu import kernels
    from dali._ops.image import _warp_gpu
    from dali._ops.image.paste import paste_geometry
    from dali._ops.image.resample import gpu as resample_gpu
    from dali._ops.image.resample.gpu_plan import plan_batch
    from dali._ops.image.resample.reference import LINEAR, TRIANGULAR
    from dali._ops.image.rotate import rotated_canvas_size, rotation_matrix_2d
    from dali._ops.window.random_crop import random_crop_windows
    from dali._tensors import TensorListGPU

    rng = np.random.default_rng(0)
    b = opts.batch
    k = opts.scale
    shapes = [
        (int(rng.integers(350, 451) * k), int(rng.integers(450, 551) * k), 3) for _ in range(b)
    ]
    samples = [cupy.asarray(rng.integers(0, 256, s, dtype=np.uint8)) for s in shapes]
    tl = TensorListGPU.wrap(samples, layout="HWC")
    axes = (0, 1)
    results: dict[str, dict[str, float]] = {}

    tri, lin = TRIANGULAR, LINEAR  # the operators' default filters

    def resize_step() -> Any:  # what Resize.run_gpu does for size=(224, 224): no per-sample loop
        inputs = kernels.input_batch(tl)
        hw = inputs[1][:, [0, 1]]
        plans = plan_batch(hw, [[224, 224]], np.zeros_like(hw), hw, tri, lin, True)
        return resample_gpu.resample_batch(tl, axes, plans, np.uint8, "HWC", inputs=inputs)

    crop_rng = SampleRNG(combine(0, np.arange(b)))

    def rrc_step() -> Any:  # what RandomResizedCrop.run_gpu does for size=(224, 224)
        inputs = kernels.input_batch(tl)
        hw = inputs[1][:, [0, 1]]
        anchors, sizes = random_crop_windows(crop_rng, hw)
        plans = plan_batch(hw, [[224, 224]], anchors, anchors + sizes, tri, lin, True)
        return resample_gpu.resample_batch(tl, axes, plans, np.uint8, "HWC", inputs=inputs)

    angles = rng.uniform(-30, 30, b)

    def rotate_step() -> Any:
        outs = [rotated_canvas_size(h, w, a) for (h, w, _), a in zip(shapes, angles)]
        mats = [rotation_matrix_2d(s[:2], o, a) for s, o, a in zip(shapes, outs, angles)]
        return _warp_gpu.warp_batch(
            tl, mats, outs, nsp=2, frames=False, interp=1, fill=0.0, out_dtype=np.uint8,
            layout="HWC",
        )  # fmt: skip

    def paste_step() -> Any:
        geo = [paste_geometry(h, w, ratio=1.5) for h, w, _ in shapes]
        return _warp_gpu.paste_batch(tl, geo, np.zeros(3, np.uint8))

    steps = {
        "resize 224x224 (linear, antialias)": (resize_step, lambda x: fn.resize(x, size=224)),
        "random_resized_crop 224x224": (
            rrc_step,
            lambda x: fn.random_resized_crop(x, size=224),
        ),
        "rotate ±30° linear, fill": (rotate_step, None),
        "paste ratio 1.5": (paste_step, None),
    }
    for name, (step, op) in steps.items():
        with _capture() as launches:
            keep = step()
        gpu = _gpu_ms(launches, opts.reps)
        host = _host_ms(step, 10)
        row = {
            "gpu_ms": gpu,
            "gpu_img_per_s": b / gpu * 1e3,
            "host_ms": host,
            "launches": len(launches),
        }
        if op is not None:
            try:
                row["pipe_img_per_s"] = _pipeline_rate(op, samples, opts.iters)
            except Exception as e:  # noqa: BLE001 - report, keep measuring the others
                row["pipe_error"] = f"{type(e).__name__}: {e}"[:300]
        results[name] = row
        del keep
    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    dev = dev.decode() if isinstance(dev, bytes) else str(dev)
    print(f"{b} ragged images ~400x500x3 uint8 on {dev}")
    print(f"{'operator':40s} {'gpu ms':>8s} {'gpu img/s':>11s} {'host ms':>8s} {'pipe img/s':>11s}")
    for name, r in results.items():
        pipe = f"{r['pipe_img_per_s']:11.0f}" if "pipe_img_per_s" in r else f"{'-':>11s}"
        print(
            f"{name:40s} {r['gpu_ms']:8.3f} {r['gpu_img_per_s']:11.0f} {r['host_ms']:8.2f} {pipe}"
        )
        if "pipe_error" in r:
            print("   pipeline error:", r["pipe_error"])
    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "geometry_gpu.json"), "w") as f:
            json.dump({"device": dev, "batch": b, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
