"""GPU time of the batched window and colour kernels: crop_mirror_normalize, crop, flip, colour.

Two tables, for batches already on the GPU (as a decoder or resize leaves them):

* **kernels**: the launch of `dali._ops.window.extract_gpu` / `_color_gpu` alone — ``gpu ms``
  from CUDA events around replays of the captured launch, the bytes it reads and writes as
  GB/s, and ``host ms``, what packing, upload and launch cost the calling thread;
* **dense A/B**: on a uniform 224×224 batch, the batched kernel against the former CuPy
  expressions (host and GPU ms per call, ``cupyx.profiler.benchmark``);
* **pipelines**: ``external_source(device="gpu") → op`` run end to end, ms per batch, with the
  batched kernels (``new``) and with the former CuPy-expression path (``old``: `run_cpu` on CuPy
  arrays, one set of launches per sample for ragged batches). ``source only`` is the pipeline
  without the operator.

The headline case is ResNet-50's: 256 uint8 224×224 HWC images → float16 CHW normalised with a
random mirror; and the same from ragged ~400×500 images with a random 224×224 crop.

Run on a GPU machine::

    PYTHONPATH=packages/core/src python3 benchmarks/image_kernels_gpu.py --batch 256
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

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@contextlib.contextmanager
def _capture() -> Iterator[list[tuple[Any, tuple[Any, ...]]]]:
    """Record the kernel launches made through `dali._ops.gpu.kernels.kernel_module`."""
    from dali._ops.gpu import kernels as G

    launches: list[tuple[Any, tuple[Any, ...]]] = []
    original = G.kernel_module

    def recording(device: int, source: str, names: tuple[str, ...]) -> dict[str, Any]:
        kernels = original(device, source, names)

        def wrap(k: Any) -> Any:
            def call(*args: Any) -> Any:
                launches.append((k, args))
                return k(*args)

            return call

        return {name: wrap(k) for name, k in kernels.items()}

    G.kernel_module = recording  # type: ignore[assignment]
    try:
        yield launches
    finally:
        G.kernel_module = original  # type: ignore[assignment]


def _gpu_ms(launches: list[tuple[Any, tuple[Any, ...]]], reps: int) -> float:
    import cupy

    for kernel, args in launches:
        kernel(*args)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(reps):
        for kernel, args in launches:
            kernel(*args)
    end.record()
    end.synchronize()  # synchronize! (timing)
    return cupy.cuda.get_elapsed_time(start, end) / reps


def _host_ms(step: Callable[[], Any], reps: int) -> float:
    import cupy

    step()
    cupy.cuda.get_current_stream().synchronize()  # synchronize! (timing)
    t0 = time.perf_counter()
    for _ in range(reps):
        step()
    elapsed = time.perf_counter() - t0
    cupy.cuda.get_current_stream().synchronize()  # synchronize! (timing)
    return 1e3 * elapsed / reps


def _pipeline_ms(op: Callable[[Any], Any] | None, source: Any, batch: int, iters: int) -> float:
    import cupy
    import dali
    from dali import fn

    @dali.pipeline_def(batch_size=batch, num_threads=4, device_id=0, seed=1)
    def pipe() -> Any:
        data = fn.external_source(source=lambda: source, device="gpu", layout="HWC")
        return data if op is None else op(data)

    p = pipe()
    p.build()
    for _ in range(3):
        p.run()
    cupy.cuda.Device().synchronize()  # synchronize! (timing)
    t0 = time.perf_counter()
    for _ in range(iters):
        p.run()
    cupy.cuda.Device().synchronize()  # synchronize! (timing)
    return 1e3 * (time.perf_counter() - t0) / iters


@contextlib.contextmanager
def _old_paths() -> Iterator[None]:
    """The former GPU implementations: the xp-generic `run_cpu` on CuPy arrays."""
    from dali._ops.image import color
    from dali._ops.image.crop import Crop
    from dali._ops.image.crop_mirror_normalize import CropMirrorNormalize
    from dali._ops.image.flip import Flip

    classes = [CropMirrorNormalize, Crop, Flip, color._ColorBase]
    saved = [(c, c.__dict__.get("run_gpu")) for c in classes]
    for c in classes:
        c.run_gpu = c.run_cpu  # type: ignore[method-assign]
    try:
        yield
    finally:
        for c, f in saved:
            c.run_gpu = f  # type: ignore[method-assign]


def _dense_ab(
    dense: Any, mirror: np.ndarray, mean: np.ndarray, inv: np.ndarray, mats: np.ndarray, reps: int
) -> dict[str, Any]:
    """Op-level A/B on a dense uniform batch: host and GPU ms per call (cupyx.profiler)."""
    import cupy
    from cupyx.profiler import benchmark
    from dali._ops.image import _color_gpu, color
    from dali._ops.image.crop_mirror_normalize import _CmnPlan
    from dali._ops.window import extract_gpu
    from dali._ops.window.extract import extract_window
    from dali._tensors import TensorListGPU

    b = dense.shape[0]
    tl = TensorListGPU.wrap(dense, layout="HWC")

    class _Stub:  # what _CmnPlan reads from the operator
        _dtype = np.dtype(np.float16)

        def arg(self, name: str) -> Any:
            return {"pad_output": False, "fill_values": (0.0,)}[name]

    plan = _CmnPlan(_Stub(), "HWC", (2, 0, 1), 2, 1)  # type: ignore[arg-type]
    whole = ([0, 0, 0], [224, 224, 3])

    def cmn_new() -> Any:
        return extract_gpu.cmn_batch(
            extract_gpu.gpu_batch(tl),
            [whole] * b,
            in_layout="HWC",
            out_layout="CHW",
            out_dtype=np.float16,
            mirror=mirror,
            mean=np.broadcast_to(mean, (b, 3)),
            inv=np.broadcast_to(inv, (b, 3)),
            uniform_norm=True,
            out_channels=[3] * b,
            fill=np.zeros(1, np.float16),
        )

    def cmn_old() -> Any:
        return plan.normalize(cupy, dense, whole, mean[0], inv[0], mirror, 3, lead=1)

    flags = np.zeros((b, 3), bool)
    flags[:, 1] = mirror

    def flip_new() -> Any:
        return extract_gpu.flip_batch(extract_gpu.gpu_batch(tl), flags, layout="HWC")

    def flip_old() -> Any:  # Flip.run_cpu's dense path on CuPy
        out = cupy.empty_like(dense)
        for g in {tuple(r) for r in flags.tolist()}:
            idx = cupy.asarray(np.flatnonzero((flags == np.array(g)).all(axis=1)))
            sl: list[Any] = [slice(None)] * 4
            for a, on in enumerate(g):
                if on:
                    sl[a + 1] = slice(None, None, -1)
            out[idx] = dense[idx][tuple(sl)]
        return out

    win = ([12, 12, 0], [200, 200, 3])

    def crop_new() -> Any:
        return extract_gpu.crop_batch(
            extract_gpu.gpu_batch(tl), [win] * b, layout="HWC", out_dtype=np.uint8,
            fill=np.zeros(1, np.uint8),
        )  # fmt: skip

    def crop_old() -> Any:
        return extract_window(cupy, dense, win[0], win[1], None, np.uint8, lead=1)

    offs = np.zeros((b, 3))
    u8 = np.dtype(np.uint8)

    def twist_new() -> Any:
        mode, coeffs = _color_gpu.color_plan(mats, offs, u8)
        return _color_gpu.color_batch(tl, mode, coeffs, u8, "HWC")

    def twist_old() -> Any:
        return color._ColorBase._apply(None, cupy, dense, mats, offs, u8)  # type: ignore[arg-type]

    mul, add = np.full(b, 1.2), np.full(b, -20.0)

    def bc_new() -> Any:
        mode, coeffs = _color_gpu.color_plan(mul, add, u8)
        return _color_gpu.color_batch(tl, mode, coeffs, u8, "HWC")

    def bc_old() -> Any:
        return color._ColorBase._apply(None, cupy, dense, mul, add, u8)  # type: ignore[arg-type]

    cases = {
        "cmn f16 CHW mirror": (cmn_new, cmn_old),
        "crop 200x200": (crop_new, crop_old),
        "flip random": (flip_new, flip_old),
        "color_twist matrix": (twist_new, twist_old),
        "brightness_contrast": (bc_new, bc_old),
    }
    out: dict[str, Any] = {}
    print(f"\n{'dense 224x224 batch, ms per call':36s} {'host new':>9s} {'gpu new':>8s}"
          f" {'host old':>9s} {'gpu old':>8s}")  # fmt: skip
    for name, (new, old) in cases.items():
        row: dict[str, float] = {}
        try:
            for label, fn_ in (("new", new), ("old", old)):
                r = benchmark(fn_, (), n_repeat=reps, n_warmup=3)
                row[f"host_{label}"] = 1e3 * float(np.median(r.cpu_times))
                row[f"gpu_{label}"] = 1e3 * float(np.median(r.gpu_times[0]))
            print(
                f"{name:36s} {row['host_new']:9.3f} {row['gpu_new']:8.3f}"
                f" {row['host_old']:9.3f} {row['gpu_old']:8.3f}",
                flush=True,
            )
        except Exception as e:  # noqa: BLE001 - report, keep measuring the others
            row = {"error": f"{type(e).__name__}: {e}"[:300]}  # type: ignore[dict-item]
            print(f"{name:36s} error: {row['error']}", flush=True)
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--old-iters", type=int, default=5)
    opts = parser.parse_args()

    import cupy
    from dali import fn, types
    from dali._ops.image import _color_gpu
    from dali._ops.image.color import color_matrices
    from dali._ops.window import extract_gpu
    from dali._tensors import TensorListGPU

    b = opts.batch
    rng = np.random.default_rng(0)
    dense = cupy.asarray(rng.integers(0, 256, (b, 224, 224, 3), dtype=np.uint8))
    shapes = [(int(rng.integers(350, 451)), int(rng.integers(450, 551)), 3) for _ in range(b)]
    ragged = [cupy.asarray(rng.integers(0, 256, s, dtype=np.uint8)) for s in shapes]
    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    dev = dev.decode() if isinstance(dev, bytes) else str(dev)
    print(f"batch {b} on {dev}", flush=True)

    # -- the kernels alone -----------------------------------------------------------------
    mirror = rng.random(b) < 0.5
    mean = (np.asarray(MEAN, np.float64)).astype(np.float32)[None]
    inv = (1.0 / np.asarray(STD, np.float64)).astype(np.float32)[None]
    dense_tl = TensorListGPU.wrap(dense, layout="HWC")
    ragged_tl = TensorListGPU.wrap(ragged, layout="HWC")
    whole = [([0, 0, 0], [224, 224, 3])] * b
    crops = [
        ([int(rng.integers(0, h - 223)), int(rng.integers(0, w - 223)), 0], [224, 224, 3])
        for h, w, _ in shapes
    ]

    def cmn(tl: Any, wins: Any) -> Callable[[], Any]:
        def step() -> Any:
            return extract_gpu.cmn_batch(
                extract_gpu.gpu_batch(tl),
                wins,
                in_layout="HWC",
                out_layout="CHW",
                out_dtype=np.float16,
                mirror=mirror,
                mean=np.broadcast_to(mean, (b, 3)),
                inv=np.broadcast_to(inv, (b, 3)),
                uniform_norm=True,
                out_channels=[3] * b,
                fill=np.zeros(1, np.float16),
            )

        return step

    flips = np.zeros((b, 3), bool)
    flips[:, 1] = mirror
    hue = rng.uniform(-30, 30, b)
    mats = color_matrices(hue, rng.uniform(0.5, 1.5, b), np.ones(b), np.ones(b), np.ones(b))
    mode, coeffs = _color_gpu.color_plan(mats, np.zeros((b, 3)), np.dtype(np.uint8))
    px = b * 224 * 224 * 3
    kernel_cases = {
        "cmn u8 HWC -> f16 CHW, mirror (224x224)": (cmn(dense_tl, whole), px * 3),
        "cmn crop 224 -> f16 CHW, mirror (ragged ~400x500)": (cmn(ragged_tl, crops), px * 3),
        "flip horizontal per sample (224x224)": (
            lambda: extract_gpu.flip_batch(extract_gpu.gpu_batch(dense_tl), flips, layout="HWC"),
            px * 2,
        ),
        "color matrix per sample, u8 (224x224)": (
            lambda: _color_gpu.color_batch(dense_tl, mode, coeffs, np.uint8, "HWC"),
            px * 2,
        ),
    }
    results: dict[str, Any] = {"device": dev, "batch": b, "kernels": {}, "pipelines": {}}
    print(f"{'kernel':52s} {'gpu ms':>8s} {'GB/s':>7s} {'host ms':>8s}")
    for name, (step, nbytes) in kernel_cases.items():
        try:
            with _capture() as launches:
                keep = step()
            gpu = _gpu_ms(launches, opts.reps)
            host = _host_ms(step, 10)
            row = {"gpu_ms": gpu, "gb_s": nbytes / gpu / 1e6, "host_ms": host}
            row["launches"] = len(launches)
            del keep
        except Exception as e:  # noqa: BLE001 - report, keep measuring the others
            row = {"error": f"{type(e).__name__}: {e}"[:300]}
        results["kernels"][name] = row
        if "error" in row:
            print(f"{name:52s} error: {row['error']}", flush=True)
        else:
            print(
                f"{name:52s} {row['gpu_ms']:8.3f} {row['gb_s']:7.0f} {row['host_ms']:8.2f}",
                flush=True,
            )

    # -- dense uniform batches: the batched kernel vs the former CuPy expressions -------------
    results["dense_ab"] = _dense_ab(dense, mirror, mean, inv, mats, opts.reps)

    # -- pipelines: new kernels vs the former CuPy path --------------------------------------
    coin = lambda: fn.random.coin_flip()
    pos = lambda: fn.random.uniform(range=(0.0, 1.0))
    norm = {"mean": MEAN, "std": STD, "dtype": types.FLOAT16, "output_layout": "CHW"}
    dense_list = list(dense)
    pipe_cases: dict[str, tuple[Any, Any]] = {
        "source only (224x224)": (None, dense_list),
        "source only (ragged)": (None, ragged),
        "cmn f16 CHW mirror (224x224)": (
            lambda x: fn.crop_mirror_normalize(x, mirror=coin(), **norm),
            dense_list,
        ),
        "cmn crop 224 f16 CHW mirror (ragged)": (
            lambda x: fn.crop_mirror_normalize(
                x, crop=(224, 224), crop_pos_x=pos(), crop_pos_y=pos(), mirror=coin(), **norm
            ),
            ragged,
        ),
        "crop 224 (ragged)": (
            lambda x: fn.crop(x, crop=(224, 224), crop_pos_x=pos(), crop_pos_y=pos()),
            ragged,
        ),
        "flip random (224x224)": (lambda x: fn.flip(x, horizontal=coin()), dense_list),
        "flip random (ragged)": (lambda x: fn.flip(x, horizontal=coin()), ragged),
        "color_twist random (224x224)": (
            lambda x: fn.color_twist(
                x, hue=fn.random.uniform(range=(-30.0, 30.0)), saturation=1.2, contrast=0.9
            ),
            dense_list,
        ),
        "brightness_contrast (224x224)": (
            lambda x: fn.brightness_contrast(x, brightness=1.2, contrast=0.8),
            dense_list,
        ),
    }
    print(f"\n{'pipeline, ms per batch':52s} {'new':>8s} {'old':>8s}")
    for name, (op, source) in pipe_cases.items():
        row = {}
        for label, ctx, iters in (
            ("new", contextlib.nullcontext(), opts.iters),
            ("old", _old_paths(), opts.old_iters),
        ):
            if op is None and label == "old":
                continue
            try:
                with ctx:
                    row[label] = _pipeline_ms(op, source, b, iters)
            except Exception as e:  # noqa: BLE001 - report, keep measuring the others
                row[f"{label}_error"] = f"{type(e).__name__}: {e}"[:300]
        results["pipelines"][name] = row
        cells = [f"{row[k]:8.2f}" if k in row else f"{'-':>8s}" for k in ("new", "old")]
        print(f"{name:52s} {cells[0]} {cells[1]}", flush=True)
        for k in ("new_error", "old_error"):
            if k in row:
                print(f"   {k}: {row[k]}", flush=True)
    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "image_kernels_gpu.json"), "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
