"""``readers.mxnet`` alone, side by side with NVIDIA DALI: samples/s on ImageNet-style RecordIO.

The set is `dali._testing.recordio.make_imagenet_recordio` with ImageNet-sized JPEGs (records of
~80-110 KB, as ``im2rec.py`` packs them), in ``--files`` ``.rec`` files with one index of them
all, cached under ``--root``. The pipeline reads the images and labels and nothing else, CPU
only (``device_id=None``), through `dali` and NVIDIA DALI 2.4 (when installed) in the same
process, for batch 64 and 256 and 1 and 2 threads. Each sample builds a fresh pipeline, warms
it up and times ``--epochs`` epochs; the libraries alternate between samples so that a slow
spell of a shared machine hits both; the median over ``--repeats`` samples is reported, with the
ratio (this project over NVIDIA DALI) and the CPU time of the whole process per sample.
``--dont-use-mmap`` reads the records (one ``preadv`` per run of records) instead of viewing the
files mapped in memory (both libraries' default).

Run: ``python benchmarks/recordio_read.py [--records 1024] [--root DIR] [--repeats 5]``

Measured on the 2-core CI-class machine shared with other jobs (load 3-5), 1,024 records (82 MB
in 4 files), 2026-12-02, median of 5 samples of 2 epochs; samples/s dali vs NVIDIA DALI 2.4
(ratio), CPU us/sample dali vs DALI:

=====================  ===============================  ===============================
batch, threads         mapped (default)                 ``--dont-use-mmap``
=====================  ===============================  ===============================
64, 1 thread           46661 vs 15006 (3.11x), 12 vs 35  14306 vs 8948 (1.60x), 34 vs 57
64, 2 threads          45276 vs 15715 (2.88x), 12 vs 40  25130 vs 18955 (1.33x), 34 vs 54
256, 1 thread          50270 vs 12163 (4.13x), 12 vs 54  18107 vs 6563 (2.76x), 31 vs 80
256, 2 threads         25478 vs 9624 (2.65x), 15 vs 53   19756 vs 8887 (2.22x), 28 vs 86
=====================  ===============================  ===============================

The reader as first written read every run of records with ``preadv`` and parsed the headers
through numpy views (30-33 us/sample, 0.7-1.6x); mapping the files (as DALI does by default)
and parsing with ``struct.unpack_from`` brought it to 12-15. Neither library touches the image
bytes here: a decoder downstream pays the page faults of mapped records, in both.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import dali
from _common import (
    CpuSample,
    alternate,
    load_real_dali,
    measure_cpu,
    print_columns,
)
from dali._testing.recordio import make_imagenet_recordio


def make_pipeline(
    lib: ModuleType, paths: list[str], index: str, batch: int, threads: int, dont_use_mmap: bool
) -> Any:
    pipe = lib.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    with pipe:
        images, labels = lib.fn.readers.mxnet(
            path=paths, index_path=[index], dont_use_mmap=dont_use_mmap, name="Reader"
        )
        pipe.set_outputs(images, labels)
    pipe.build()
    return pipe


def time_one(
    lib: ModuleType, files: tuple[list[str], str], batch: int, threads: int, args: Any
) -> tuple[CpuSample, int]:
    """``(timing, samples read)`` of ``--epochs`` epochs of a fresh pipeline, after a warm-up.

    The pipeline is deleted before returning: both libraries keep iterations in flight after
    ``run()`` returns, and that work must not run while the other library is being timed.
    """
    pipe = make_pipeline(lib, *files, batch, threads, args.dont_use_mmap)
    try:
        iterations = max(1, args.records // batch) * args.epochs
        for _ in range(args.warmup):
            pipe.run()
        with measure_cpu() as m:
            for _ in range(iterations):
                pipe.run()
        return m[0], iterations * batch
    finally:
        del pipe
        gc.collect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1024, help="records in the set")
    parser.add_argument("--files", type=int, default=4, help=".rec files in the set")
    parser.add_argument("--root", default=None, help="where the set is generated and cached")
    parser.add_argument("--batches", default="64,256")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per timed sample")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3, help="iterations before timing")
    parser.add_argument(
        "--dont-use-mmap", action="store_true", help="read the records instead of mapping files"
    )
    parser.add_argument("--max-foreign", type=float, default=0.15)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        help="before each sample, wait up to this many seconds for other processes to calm",
    )
    args = parser.parse_args()
    root = (
        args.root
        or os.environ.get("DALI_BENCH_RECORDIO")
        or str(Path(tempfile.gettempdir()) / "dali-bench-recordio")
    )
    paths, index = make_imagenet_recordio(root, args.records, args.files, imagenet_size=True)
    files = ([str(p) for p in paths], str(index))
    mb = sum(p.stat().st_size for p in paths) / 2**20
    libs: list[tuple[str, ModuleType]] = [("dali", dali)]
    real = load_real_dali()
    if real is not None:
        libs.append((f"NVIDIA DALI {real.__version__}", real))
    else:
        print("NVIDIA DALI is not installed: run `python3 -m nox -s bench` for the comparison.")
    rows = []
    for batch in (int(b) for b in args.batches.split(",")):
        for threads in (int(t) for t in args.threads.split(",")):
            results = alternate(
                libs,
                partial(time_one, files=files, batch=batch, threads=threads, args=args),
                args.repeats,
                wait_quiet=args.wait_quiet,
                max_foreign=args.max_foreign,
            )
            row = [f"batch {batch}, {threads} thread(s)", *(f"{r[0]:.0f}" for r in results)]
            if len(results) > 1:
                row.append(f"{results[0][0] / results[1][0]:.2f}x")
            row += [f"{r[1]:.0f}" for r in results]
            rows.append(row)
    names = [name for name, _ in libs]
    headers = ["pipeline", *(f"{n} samples/s" for n in names)]
    if len(libs) > 1:
        headers.append("ratio")
    headers += [f"{n} CPU us/sample" for n in names]
    print_columns(
        f"readers.mxnet: {args.records} ImageNet-style records ({mb:.0f} MB, {args.files} "
        f"files), images and labels, device_id=None"
        f"{', dont_use_mmap' if args.dont_use_mmap else ''}; median of {args.repeats} samples "
        f"of {args.epochs} epoch(s)",
        headers,
        rows,
    )


if __name__ == "__main__":
    main()
