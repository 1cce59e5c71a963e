"""``readers.caffe`` and ``readers.caffe2`` alone, beside NVIDIA DALI: samples/s on LMDB databases.

The sets are `dali._testing.lmdb_data`'s, cached under ``--root``: a Caffe LMDB of ImageNet-sized
JPEGs (``make_caffe_lmdb(imagenet_size=True)``: records of ~80-110 KB, ``Datum`` with the JPEG
and its label, the JPEGs of `dali._testing.images.make_imagenet_like`), and a Caffe2 LMDB of
small JPEGs with sparse labels, two additional tensors and a box
(``Caffe2Layout(label_type=1, additional_inputs=2)``: records of ~1 KB, where the per-record
parsing is the cost rather than the copy). The pipelines are the reader alone, CPU only
(``device_id=None``), through `dali` and NVIDIA DALI 2.4 (when installed) in the same process,
for batch 64 and 256 and 1 and 2 threads. Each sample builds a fresh pipeline, warms it up and
times ``--epochs`` epochs; the libraries alternate between samples so that a slow spell of a
shared machine hits both; the median over ``--repeats`` samples is reported, with the ratio
(this project over NVIDIA DALI) and the CPU time of the whole process per sample.

Run: ``python benchmarks/lmdb_read.py [--records 1024] [--root DIR] [--repeats 5]``

Measured on the 2-core CI-class machine shared with other jobs (load 6-8 during the runs: the
wall-clock rates move by 2-3x between runs, the CPU time per sample much less), 1,024 records
each, 2026-12-02, median of 5 samples of 2 epochs; samples/s dali vs NVIDIA DALI 2.4 (ratio),
then CPU us/sample dali vs DALI:

=====================  ================================  ================================
batch, threads         caffe (84 MB, ImageNet JPEGs)     caffe2 (1 MB, small records)
=====================  ================================  ================================
64, 1 thread           19031 vs 6718 (2.83x); 27 vs 75   45028 vs 35122 (1.28x); 12 vs 16
64, 2 threads          11394 vs 6244 (1.82x); 26 vs 71   27512 vs 40782 (0.67x); 13 vs 14
256, 1 thread          13887 vs 3470 (4.00x); 30 vs 127  62337 vs 53871 (1.16x); 7 vs 13
256, 2 threads         12802 vs 2401 (5.33x); 31 vs 106  53362 vs 77119 (0.69x); 9 vs 16
=====================  ================================  ================================

Caffe records are mostly their JPEG: the reader copies each image once out of the database's
memory map (DALI copies each record once too) and parses the small ``Datum`` around it in
Python (~5 us). Caffe2 records of ~800 bytes are all parsing: the record-by-record Python
decoder cost ~25-30 us a record (0.3-0.4x DALI); the batch decoder (a Numba scan of every
record, then numpy per output: `dali._ops.readers.lmdb.caffe2_batch`) brought it to 7-13 us,
below DALI's CPU time in every row. With 2 threads DALI's wall-clock rate is ahead: its loader
reads in a thread of its own beside the pipeline's, ours in the pipeline's source stage.
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
from dali._testing.lmdb_data import Caffe2Layout, make_caffe2_lmdb, make_caffe_lmdb

#: the Caffe2 set: sparse labels (multi-hot output), 2 additional tensors, the box
CAFFE2_LAYOUT = Caffe2Layout(label_type=1, num_labels=20, additional_inputs=2)


def make_pipeline(lib: ModuleType, kind: str, path: str, batch: int, threads: int) -> Any:
    pipe = lib.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    with pipe:
        if kind == "caffe":
            out = lib.fn.readers.caffe(path=path, name="Reader")
        else:
            out = lib.fn.readers.caffe2(path=path, name="Reader", **CAFFE2_LAYOUT.reader_args())
        pipe.set_outputs(*out)
    pipe.build()
    return pipe


def time_one(
    lib: ModuleType, kind: str, path: str, records: int, batch: int, threads: int, args: Any
) -> tuple[CpuSample, int]:
    """``(timing, samples read)`` of ``--epochs`` epochs of a fresh pipeline, after a warm-up.

    The pipeline is deleted before returning: both libraries keep iterations in flight after
    ``run()`` returns, and that work must not run while the other library is being timed.
    """
    pipe = make_pipeline(lib, kind, path, batch, threads)
    try:
        iterations = max(1, records // batch) * args.epochs
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
    parser.add_argument("--records", type=int, default=1024, help="records in each set")
    parser.add_argument("--root", default=None, help="where the sets are generated and cached")
    parser.add_argument("--sets", default="caffe,caffe2")
    parser.add_argument("--batches", default="64,256")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per timed sample")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3, help="iterations before timing")
    parser.add_argument("--max-foreign", type=float, default=0.15)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        help="before each sample, wait up to this many seconds for other processes to calm",
    )
    args = parser.parse_args()
    root = Path(
        args.root
        or os.environ.get("DALI_BENCH_LMDB")
        or str(Path(tempfile.gettempdir()) / "dali-bench-lmdb")
    )
    paths = {
        "caffe": make_caffe_lmdb(root / "caffe", args.records, imagenet_size=True),
        "caffe2": make_caffe2_lmdb(root / "caffe2", args.records, CAFFE2_LAYOUT),
    }
    libs: list[tuple[str, ModuleType]] = [("dali", dali)]
    real = load_real_dali()
    if real is not None:
        libs.append((f"NVIDIA DALI {real.__version__}", real))
    else:
        print("NVIDIA DALI is not installed: run `python3 -m nox -s bench` for the comparison.")
    names = [name for name, _ in libs]
    headers = ["pipeline", *(f"{n} samples/s" for n in names)]
    if len(libs) > 1:
        headers.append("ratio")
    headers += [f"{n} CPU us/sample" for n in names]
    for kind in args.sets.split(","):
        path = str(paths[kind])
        mb = (Path(path) / "data.mdb").stat().st_size / 2**20
        rows = []
        for batch in (int(b) for b in args.batches.split(",")):
            for threads in (int(t) for t in args.threads.split(",")):
                results = alternate(
                    libs,
                    partial(
                        time_one,
                        kind=kind,
                        path=path,
                        records=args.records,
                        batch=batch,
                        threads=threads,
                        args=args,
                    ),
                    args.repeats,
                    wait_quiet=args.wait_quiet,
                    max_foreign=args.max_foreign,
                )
                row = [f"batch {batch}, {threads} thread(s)", *(f"{r[0]:.0f}" for r in results)]
                if len(results) > 1:
                    row.append(f"{results[0][0] / results[1][0]:.2f}x")
                row += [f"{r[1]:.0f}" for r in results]
                rows.append(row)
        print_columns(
            f"readers.{kind}: {args.records} records ({mb:.0f} MB LMDB), device_id=None; "
            f"median of {args.repeats} samples of {args.epochs} epoch(s)",
            headers,
            rows,
        )


if __name__ == "__main__":
    main()
