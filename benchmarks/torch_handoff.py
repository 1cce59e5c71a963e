"""Handing batches to PyTorch: the iterator's cost over the bare pipeline, beside NVIDIA DALI.

The ResNet-50 training pipeline of ``image_cpu.py`` (random crop decode, 224x224, CMN to
FLOAT16 CHW, batch 64, CPU, ``device_id=None``; ``--device gpu``: ``decoders`` "mixed" and
the GPU operators on GPU 0) runs one epoch at a time through:

* ``pipe.run()`` — the bare pipeline, the batch left as DALI TensorLists;
* ``DALIGenericIterator`` of the library's PyTorch plugin — the batch as ``torch.Tensor``\\ s.

The two libraries (this project and, when installed with torch, NVIDIA DALI 2.4 and its
``nvidia.dali.plugin.pytorch``) run the same program in the same process, alternating. The
table gives img/s and the iterator/run ratio of each; the ``hand-off`` column is the
conversion alone — the iterator's conversion of one batch (TensorLists to tensors) timed on
its own, in µs and as a share of the pipeline's time per batch (target: zero-copy,
≤ 2 %).

Run: ``python benchmarks/torch_handoff.py [--images 1024] [--device cpu|gpu] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import time
from types import ModuleType
from typing import Any

import dali
from _common import load_real_dali, print_columns
from image_cpu import BATCH, MEAN, STD, dataset


def resnet50(fn: ModuleType, types: ModuleType, root: str, device: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    decoder = "mixed" if device == "gpu" else "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder, output_type=types.RGB)
    images = fn.resize(images, resize_x=224, resize_y=224)
    images = fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT16,
        output_layout="CHW",
        mean=MEAN,
        std=STD,
        mirror=fn.random.coin_flip(),
    )
    return images, labels


def make_pipeline(lib: ModuleType, root: str, threads: int, device: str) -> Any:
    pipe = lib.Pipeline(
        batch_size=BATCH,
        num_threads=threads,
        device_id=0 if device == "gpu" else None,
        seed=1,
    )
    with pipe:
        pipe.set_outputs(*resnet50(lib.fn, lib.types, root, device))
    pipe.build()
    return pipe


def plugin_of(lib: ModuleType) -> ModuleType:
    return importlib.import_module(f"{lib.__name__}.plugin.pytorch")


def epoch_run(lib: ModuleType, root: str, batches: int, args: argparse.Namespace) -> float:
    """Seconds for ``batches`` bare ``run()`` calls of a fresh pipeline (after a warm-up)."""
    pipe = make_pipeline(lib, root, args.threads, args.device)
    try:
        for _ in range(3):
            pipe.run()
        t0 = time.perf_counter()
        for _ in range(batches):
            outs = pipe.run()
        _sync(outs[0])
        return time.perf_counter() - t0
    finally:
        del pipe
        gc.collect()


def epoch_iterator(lib: ModuleType, root: str, batches: int, args: argparse.Namespace) -> float:
    """Seconds for ``batches`` batches of the plugin's iterator over a fresh pipeline."""
    import torch

    pipe = make_pipeline(lib, root, args.threads, args.device)
    it = plugin_of(lib).DALIGenericIterator(pipe, ["data", "label"], auto_reset=True)
    try:
        for _ in range(3):
            next(it)
        t0 = time.perf_counter()
        for _ in range(batches):
            batch = next(it)
        if args.device == "gpu":
            torch.cuda.synchronize()
        del batch
        return time.perf_counter() - t0
    finally:
        del it, pipe
        gc.collect()


def _sync(tl: Any) -> None:
    if hasattr(tl, "as_cpu") and type(tl).__name__.endswith("GPU"):
        import torch

        torch.cuda.synchronize()


def handoff_us(lib: ModuleType, root: str, args: argparse.Namespace) -> float:
    """Median µs to turn one batch of TensorLists into tensors, the iterator's way (copies
    included where the library makes them)."""
    import torch

    pipe = make_pipeline(lib, root, args.threads, args.device)
    it = plugin_of(lib).DALIGenericIterator(
        pipe, ["data", "label"], auto_reset=True, prepare_first_batch=False
    )
    try:
        outs = it._get_outputs()  # one batch, held by the pipelines while we convert it
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            if lib is dali:
                it._convert(outs)
            else:  # NVIDIA DALI converts inside __next__: the same calls, written out
                for tl, name in zip(outs[0], it.output_map):
                    tensor = tl.as_tensor()
                    device = "cuda" if type(tensor).__name__ == "TensorGPU" else "cpu"
                    dtype = plugin_of(lib).to_torch_type[tensor.dtype]
                    out = torch.empty(tensor.shape(), dtype=dtype, device=device)
                    if pipe.exec_dynamic:
                        out = torch.from_dlpack(tensor)
                    else:
                        plugin_of(lib).feed_ndarray(tensor, out)
                    del name, out
            if args.device == "gpu":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        return 1e6 * statistics.median(times)
    finally:
        del it, pipe
        gc.collect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1024)
    parser.add_argument("--root", default=None)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    args = parser.parse_args()

    root, n_images = dataset(args.root, args.images)
    batches = n_images // BATCH
    libs: list[tuple[str, ModuleType]] = [("dali", dali)]
    real = load_real_dali()
    if real is not None and args.device == "cpu":
        try:
            plugin_of(real)
            libs.append((f"NVIDIA DALI {real.__version__}", real))
        except ImportError as e:
            print(f"NVIDIA DALI's PyTorch plugin is unavailable ({e}): dali only.")
    runs: dict[str, list[float]] = {name: [] for name, _ in libs}
    iters: dict[str, list[float]] = {name: [] for name, _ in libs}
    for _ in range(args.repeats):
        for name, lib in libs:
            runs[name].append(batches * BATCH / epoch_run(lib, root, batches, args))
            iters[name].append(batches * BATCH / epoch_iterator(lib, root, batches, args))
    rows = []
    for name, lib in libs:
        run_rate, it_rate = statistics.median(runs[name]), statistics.median(iters[name])
        us = handoff_us(lib, root, args)
        share = us * 1e-6 / (BATCH / run_rate)
        rows.append(
            [
                name,
                f"{run_rate:.0f}",
                f"{it_rate:.0f}",
                f"{it_rate / run_rate:.2f}x",
                f"{us:.0f} µs ({100 * share:.2f} %)",
            ]
        )
    print_columns(
        f"ResNet-50 pipeline to torch tensors, {args.device.upper()}: {n_images} JPEGs, batch "
        f"{BATCH}, {args.threads} threads; median of {args.repeats} epochs",
        ["library", "run() img/s", "iterator img/s", "iterator/run", "hand-off per batch"],
        rows,
    )
    print("target: hand-off zero-copy and ≤ 2 % of the pipeline's time per batch")


if __name__ == "__main__":
    main()
