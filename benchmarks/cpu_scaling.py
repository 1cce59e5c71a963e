"""CPU pipelines on 1..N cores: this library beside torchvision's DataLoader and NVIDIA DALI.

Two workloads on ImageNet-like JPEGs (`dali._testing.images.make_imagenet_like`, ``--detail``
0.2: smooth photos of ~36 KB, shorter side 300–500 px), batch 64, CPU only:

1. **quickstart** (the seed tutorial's): read → decode → resize to 256×256, uint8 HWC out;
2. **ResNet-50 training**: read (shuffled) → decode → random-resized-crop → 224×224 → random
   horizontal flip → normalise with ImageNet's mean and std, float32 NCHW out.

Every row does that work its way, at ``--threads`` 1, 2, 4, 8, 16 (as many as the machine has):

* **dali**: ``num_threads=W``, ``cpu_parallelism="auto"`` (worker processes from
  ``options.POOL_MIN_THREADS`` threads on as many cores: ``Pipeline.cpu_workers``);
* **dali, threads**: ``num_threads=W`` forced onto threads of one process (what the automatic
  rule chooses against);
* **torchvision DataLoader**: a ``Dataset`` of the files whose ``__getitem__`` decodes with
  Pillow and applies torchvision's transforms (``Resize((256, 256))``; ``RandomResizedCrop
  (224)``, ``RandomHorizontalFlip``, ``ToTensor``, ``Normalize``), ``num_workers=W``,
  ``persistent_workers=True``, default collate;
* **NVIDIA DALI** (when ``nvidia.dali`` is installed): the same graph as the dali row,
  ``num_threads=W``, ``device_id=None``.

Each loader is built once per thread count, warmed up (its workers started, one pass), then
timed over ``--epochs`` passes of the set; ``--repeats`` trials alternate between the rows, so
a slow spell of the machine hits all of them, and the table gives the median img/s, the
spread, and the ratio to the DataLoader row of the same thread count and to one dali thread.

Run: ``python benchmarks/cpu_scaling.py [--images 2048] [--threads 1,2,4,8,16] [--repeats 3]``
(torchvision for the DataLoader rows, ``nvidia-dali-cuda130`` for DALI's; each is skipped when
missing.)
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from _common import load_real_dali, print_columns

BATCH = 64
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

#: a loader: called once per trial, returns an iterator over that trial's batches
Loader = Callable[[int], Iterator[Any]]


# -- the graphs (dali and NVIDIA DALI: the same program) --------------------------------------


def quickstart(fn: ModuleType, types: ModuleType, root: str) -> Any:
    jpegs, _ = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=256, resize_y=256)


def resnet50(fn: ModuleType, types: ModuleType, root: str) -> Any:
    jpegs, _ = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=224, resize_y=224)
    return fn.crop_mirror_normalize(
        images,
        dtype=types.FLOAT,
        output_layout="CHW",
        mean=MEAN,
        std=STD,
        mirror=fn.random.coin_flip(),
    )


GRAPHS = {"quickstart": quickstart, "ResNet-50": resnet50}


def pipeline_loader(
    lib: ModuleType, graph: Callable[..., Any], root: str, threads: int, **kw: Any
) -> Any:
    pipe = lib.Pipeline(batch_size=BATCH, num_threads=threads, device_id=None, seed=1, **kw)
    with pipe:
        pipe.set_outputs(graph(lib.fn, lib.types, root))
    pipe.build()

    def batches(n: int) -> Iterator[Any]:
        for _ in range(n):
            (out,) = pipe.run()
            yield out

    return pipe, batches


# -- torchvision ------------------------------------------------------------------------------


def torchvision_loader(workload: str, files: list[str], threads: int) -> Any:
    import torch
    from PIL import Image
    from torchvision import transforms

    if workload == "quickstart":
        transform = transforms.Compose(
            [transforms.Resize((256, 256)), transforms.PILToTensor()]  # uint8 CHW ...
        )
    else:
        transform = transforms.Compose(
            [
                transforms.RandomResizedCrop(224),
                transforms.RandomHorizontalFlip(),
                transforms.ToTensor(),
                transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD]),
            ]
        )

    class Files(torch.utils.data.Dataset):  # type: ignore[type-arg]
        def __len__(self) -> int:
            return len(files)

        def __getitem__(self, i: int) -> Any:
            with Image.open(files[i]) as img:
                out = transform(img.convert("RGB"))
            # ... and HWC for the quickstart, as the pipelines give it
            return out.permute(1, 2, 0) if workload == "quickstart" else out

    loader = torch.utils.data.DataLoader(
        Files(),
        batch_size=BATCH,
        shuffle=workload != "quickstart",
        num_workers=threads,
        persistent_workers=True,
        drop_last=True,
    )
    state: dict[str, Any] = {"it": iter(loader)}

    def batches(n: int) -> Iterator[Any]:
        for _ in range(n):
            try:
                yield next(state["it"])
            except StopIteration:
                state["it"] = iter(loader)
                yield next(state["it"])

    return loader, batches


# -- running ----------------------------------------------------------------------------------


def trial(batches: Loader, n: int) -> float:
    """Seconds for ``n`` batches."""
    t0 = time.perf_counter()
    for out in batches(n):
        del out
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=2048)
    parser.add_argument("--root", default=None, help="where the JPEGs are made (cached)")
    parser.add_argument("--detail", type=float, default=0.2, help="0.2: ~36 KB JPEGs")
    parser.add_argument("--threads", default="1,2,4,8,16")
    parser.add_argument("--epochs", type=float, default=1.0, help="passes timed per trial")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workloads", default="quickstart,ResNet-50")
    parser.add_argument("--no-threads-row", action="store_true", help="skip 'dali, threads'")
    args = parser.parse_args()

    import dali
    from dali._testing.images import make_imagenet_like

    root = args.root or str(Path(tempfile.gettempdir()) / f"dali-bench-scaling-{args.detail}")
    files = [str(p) for p in make_imagenet_like(root, args.images, seed=0, detail=args.detail)]
    size_kb = sum(os.path.getsize(f) for f in files) / len(files) / 1024
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    counts = [t for t in map(int, args.threads.split(",")) if t <= (cores or 1)]
    real = load_real_dali()
    try:
        import torchvision  # noqa: F401

        have_tv = True
    except ImportError:
        have_tv = False
    n = max(1, int(args.images * args.epochs) // BATCH)
    print(
        f"{len(files)} JPEGs of {size_kb:.0f} KB on average, batch {BATCH}, {n} batches a "
        f"trial, {cores} usable cores, median of {args.repeats}"
    )
    for workload in args.workloads.split(","):
        graph = GRAPHS[workload]
        rows = []
        one_thread = None
        for threads in counts:
            makers: list[tuple[str, Callable[[], Any]]] = [
                ("dali", lambda t=threads, g=graph: pipeline_loader(dali, g, root, t)),
            ]
            if not args.no_threads_row and threads > 1:
                makers.append(
                    (
                        "dali, threads",
                        lambda t=threads, g=graph: pipeline_loader(
                            dali, g, root, t, cpu_parallelism="threads"
                        ),
                    )
                )
            if have_tv:
                makers.append(
                    (
                        "torchvision DataLoader",
                        lambda t=threads, w=workload: torchvision_loader(w, files, t),
                    )
                )
            if real is not None:
                makers.append(
                    (
                        "NVIDIA DALI " + real.__version__,
                        lambda t=threads, g=graph: pipeline_loader(real, g, root, t),
                    )
                )
            loaders = []
            for name, make in makers:
                owner, batches = make()
                trial(batches, max(2, min(n, 2 * threads)))  # warm up: start its workers
                loaders.append((name, owner, batches))
            times: dict[str, list[float]] = {name: [] for name, _, _ in loaders}
            for _ in range(args.repeats):
                for name, _, batches in loaders:
                    times[name].append(trial(batches, n))
            rates = {k: [n * BATCH / t for t in v] for k, v in times.items()}
            med = {k: statistics.median(v) for k, v in rates.items()}
            if threads == 1:
                one_thread = med["dali"]
            base = med.get("torchvision DataLoader")
            for name, _, _ in loaders:
                lo, hi = min(rates[name]), max(rates[name])
                rows.append(
                    [
                        f"{threads:>2}  {name}",
                        f"{med[name]:,.0f}",
                        f"{lo:,.0f}-{hi:,.0f}",
                        f"{med[name] / base:.2f}x" if base else "",
                        f"{med[name] / one_thread:.1f}x" if one_thread else "",
                    ]
                )
            for _, owner, _ in loaders:
                if hasattr(owner, "close"):
                    owner.close()
                elif getattr(owner, "_iterator", None) is not None:
                    owner._iterator._shutdown_workers()  # (a DataLoader's persistent workers)
            del loaders
            gc.collect()
        print_columns(
            f"{workload}: img/s (median, range), vs the DataLoader, vs one dali thread",
            ["threads  loader", "img/s", "range", "vs DL", "vs 1 thread"],
            rows,
        )


if __name__ == "__main__":
    main()
