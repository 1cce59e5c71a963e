"""Throughput of the slides' SSD training pipeline: dali vs NVIDIA DALI on the CPU, and on a GPU.

The pipeline is `examples/ssd/ssd_pipeline.ssd_graph` (COCO reader → decode → zoom out with
paste/bbox_paste → random_bbox_crop → slice → flip/bb_flip → resize 300×300 → color_twist →
crop_mirror_normalize → box_encoder against the 8,732 SSD300 default boxes), built from the same
code with each library, over a generated COCO-style set of photo-like JPEGs (300–500 px,
`dali._testing.coco.make_coco`). The CPU rows alternate the libraries (median of repeats);
the GPU rows (``--gpu``, need CuPy and nvImageCodec) run dali's pipeline with the images decoded
(``mixed``) and augmented on the GPU, and NVIDIA DALI's where its GPU build is installed,
alternating.

A second table gives, per row, the time between consecutive batches (median, 90th and 99th
percentiles, maximum, mean): a mean well above the median means the pipeline stalls now and
then rather than running slowly throughout.

Run: ``python benchmarks/ssd_pipeline.py`` (``python3 -m nox -s bench`` installs NVIDIA DALI
2.4 for the comparison); ``--gpu`` adds the GPU row.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "ssd"))

import dali
from _common import load_real_dali, print_columns
from dali._testing.coco import make_coco
from ssd_pipeline import ssd300_default_boxes, ssd_graph


def make_pipeline(
    lib: ModuleType, data: Any, device: str, args: argparse.Namespace, **kwargs: Any
) -> Any:
    """The full SSD training pipeline of ``lib`` (``device``: "cpu" or "gpu")."""
    pipe = lib.Pipeline(
        batch_size=args.batch_size,
        num_threads=args.threads,
        device_id=0 if device == "gpu" else None,
        seed=1,
        **kwargs,
    )
    with pipe:
        pipe.set_outputs(
            *ssd_graph(
                lib.fn,
                lib.types,
                data.file_root,
                data.annotations_file,
                device=device,
                anchors=ANCHORS,
            )
        )
    pipe.build()
    return pipe


#: per row: the milliseconds between consecutive batches of every timed run (`images_per_s`)
INTERVALS: dict[str, list[float]] = {}


def images_per_s(
    lib: ModuleType,
    data: Any,
    device: str,
    args: argparse.Namespace,
    row: str | None = None,
    **kwargs: Any,
) -> float:
    """Images per second of one fresh pipeline over ``args.iterations`` batches, after warm-up;
    the time between consecutive batches is added to ``INTERVALS[row]`` when ``row`` is given.
    """
    pipe = make_pipeline(lib, data, device, args, **kwargs)
    try:
        for _ in range(args.warmup):
            outs = pipe.run()
        _sync(outs)
        t0 = time.perf_counter()
        stamps = [t0]
        for _ in range(args.iterations):
            outs = pipe.run()
            stamps.append(time.perf_counter())
        _sync(outs)
        seconds = time.perf_counter() - t0
        if row is not None:
            INTERVALS.setdefault(row, []).extend(
                (b - a) * 1e3 for a, b in itertools.pairwise(stamps)
            )
        return args.iterations * args.batch_size / seconds
    finally:
        if hasattr(pipe, "close"):  # this library's: its threads and processes stop here
            pipe.close()
        del pipe
        gc.collect()


def _sync(outs: Any) -> None:
    """Wait for GPU outputs to be computed (the timing must include the GPU's work)."""
    for out in outs:
        if hasattr(out, "as_cpu"):
            out.as_cpu()  # synchronize!


ANCHORS = ssd300_default_boxes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=256, help="images in the generated set")
    parser.add_argument("--root", default=None, help="where the set is generated (cached)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=48, help="timed batches per repeat")
    parser.add_argument(
        "--warmup",
        type=int,
        default=16,
        help="batches run before the timing: at least one per worker process, whose first "
        "batch loads its compiled kernels (the steady rate is what training sees)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gpu", action="store_true", help="add dali's GPU pipeline")
    parser.add_argument("--no-cpu", action="store_true", help="only the GPU row")
    parser.add_argument(
        "--cpu-stage",
        default="auto,threads",
        help="the GPU rows' cpu_parallelism values (auto: worker processes from 4 threads on)",
    )
    args = parser.parse_args()

    root = args.root or os.path.join(tempfile.gettempdir(), f"dali-bench-coco-{args.images}")
    data = make_coco(root, n_images=args.images, photo_size=(300, 500))

    rows: list[list[str]] = []
    if not args.no_cpu:
        libs: list[tuple[str, ModuleType]] = [("dali", dali)]
        real = load_real_dali()
        if real is not None:
            libs.append((f"NVIDIA DALI {real.__version__}", real))
        else:
            print("NVIDIA DALI is not installed: run `python3 -m nox -s bench` to compare.")
        samples: list[list[float]] = [[] for _ in libs]
        names = [f"{name}, CPU ({args.threads} threads)" for name, _ in libs]
        for _ in range(args.repeats):
            for k, (_, lib) in enumerate(libs):
                samples[k].append(images_per_s(lib, data, "cpu", args, names[k]))
        medians = [statistics.median(s) for s in samples]
        for name, m in zip(names, medians):
            rows.append([name, f"{m:.0f}", f"{m / medians[0]:.2f}x"])
    if args.gpu:
        # the CPU stage (reader, boxes, random draws) on worker processes (the default from 4
        # threads on) and on threads of the GPU's process, and NVIDIA DALI's GPU pipeline where
        # its GPU build is installed, alternating
        ways = args.cpu_stage.split(",")
        runs: dict[str, Any] = {
            f"dali, GPU (CPU stage: cpu_parallelism={w!r})": (dali, {"cpu_parallelism": w})
            for w in ways
        }
        real = load_real_dali(gpu=True)
        if real is not None:
            runs[f"NVIDIA DALI {real.__version__}, GPU"] = (real, {})
        else:
            print("NVIDIA DALI's GPU build is not installed: no NVIDIA DALI GPU row.")
        gpu_samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, (lib, kwargs) in runs.items():
                gpu_samples[name].append(images_per_s(lib, data, "gpu", args, name, **kwargs))
        first = statistics.median(next(iter(gpu_samples.values())))
        for name, got in gpu_samples.items():
            m = statistics.median(got)
            rows.append([name, f"{m:.0f}", f"{m / first:.2f}x"])
    print_columns(
        f"SSD300 training pipeline: {args.images} COCO-style JPEGs (300-500 px), batch "
        f"{args.batch_size}, median of {args.repeats} runs of {args.iterations} batches",
        ["pipeline", "img/s", "vs first row"],
        rows,
    )
    # a rate below the median batch's says the pipeline stalls now and then: which row, how long
    print_columns(
        "ms between consecutive batches (every timed batch of every run): a mean well above the "
        "median means stalls",
        ["pipeline", "median", "p90", "p99", "max", "mean"],
        [
            [name, *(f"{q:.1f}" for q in _quantiles(v)), f"{statistics.fmean(v):.1f}"]
            for name, v in INTERVALS.items()
        ],
    )


def _quantiles(values: list[float]) -> list[float]:
    """The median, 90th and 99th percentiles and the maximum."""
    ordered = sorted(values)
    at = [round(q * (len(ordered) - 1)) for q in (0.5, 0.9, 0.99, 1.0)]
    return [ordered[k] for k in at]


if __name__ == "__main__":
    main()
