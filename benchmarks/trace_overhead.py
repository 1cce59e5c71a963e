"""What ``DALI_TRACE`` costs: the CPU ResNet-50 pipeline with the trace off and on, side by side.

The ResNet-50 training pipeline of ``cpu_scaling.py`` (file reader with shuffling, random-crop
decode, resize 224, crop-mirror-normalise) on ImageNet-like JPEGs, ``--threads`` threads; each
trial builds a fresh pipeline (``DALI_TRACE`` is read when a pipeline starts), warms it up and
times ``--batches`` batches; trials alternate between off and on so that a slow spell of a
shared machine hits both; the table gives the median img/s of each and the ratio on / off.

Run: ``python benchmarks/trace_overhead.py [--images 512] [--trials 7] [--threads 2]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import dali
from _common import print_columns
from cpu_scaling import BATCH, pipeline_loader, resnet50
from dali._testing.images import make_imagenet_like


def trial(root: str, threads: int, batches: int, trace: str | None) -> float:
    if trace is None:
        os.environ.pop("DALI_TRACE", None)
    else:
        os.environ["DALI_TRACE"] = trace
    try:
        pipe, run = pipeline_loader(dali, resnet50, root, threads)
        for _ in run(2):
            pass
        t0 = time.perf_counter()
        for _ in run(batches):
            pass
        rate = batches * BATCH / (time.perf_counter() - t0)
        pipe.close()
    finally:
        os.environ.pop("DALI_TRACE", None)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, default=6)
    args = parser.parse_args()
    root = str(Path(tempfile.gettempdir()) / "dali-bench-imagenet-like")
    make_imagenet_like(root, args.images, seed=0)
    trace = str(Path(tempfile.mkdtemp()) / "trace.json")
    off, on = [], []
    for _ in range(args.trials):
        off.append(trial(root, args.threads, args.batches, None))
        on.append(trial(root, args.threads, args.batches, trace))
    m_off, m_on = statistics.median(off), statistics.median(on)
    print_columns(
        f"ResNet-50 CPU pipeline, {args.threads} threads, batch {BATCH}, median of "
        f"{args.trials} trials of {args.batches} batches (img/s)",
        ["DALI_TRACE", "img/s", "each", "on / off"],
        [
            ["off", f"{m_off:.0f}", " ".join(f"{v:.0f}" for v in off), ""],
            ["on", f"{m_on:.0f}", " ".join(f"{v:.0f}" for v in on), f"{m_on / m_off:.3f}"],
        ],
    )
    print(f"trace file: {trace} ({Path(trace).stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
