"""Checkpoints of the ResNet-50 training pipeline, side by side with NVIDIA DALI: size and cost.

The pipeline is the ResNet-50 row of ``image_cpu.py`` (its graph function) (``readers.file(random_shuffle=True)``
→ ``decoders.image_random_crop`` → ``resize`` 224 → ``crop_mirror_normalize`` with
``mirror=coin_flip``), batch 64, CPU, ``enable_checkpointing=True``, on an ImageNet-like JPEG
set. After ``--runs`` iterations (so that the shuffle buffer has been drawn from many times) it
measures, for this library and, when installed, NVIDIA DALI 2.4 in the same process:

* the size of ``pipe.checkpoint()`` in bytes (target: < 1 KB);
* the cost of one ``checkpoint()`` call (median over ``--calls``; target < 1 ms);
* the cost of building a pipeline from the checkpoint less that of the same build without one;
* that the restored pipeline's next batch equals the original's (ours; DALI's too);
* ours alone: rebuilding the reader's 1,024-sample shuffle buffer from its position (what a
  restored reader does before its first batch: it replays the draws of the epoch so far,
  `dali._ops.readers.loader.shuffle.ShuffleBuffer.seek`), 1,280 draws into an ImageNet epoch
  (1,281,167 samples, one shard), in its middle and at its last sample.

The ratio column is DALI over this library (above 1: ours is smaller or faster).

Run: ``python benchmarks/checkpoint.py [--images 256] [--runs 40] [--calls 2000]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import dali
import numpy as np
from _common import load_real_dali, print_columns
from dali._testing.images import make_imagenet_like
from image_cpu import BATCH, resnet50


def make(lib: ModuleType, root: str, threads: int, checkpoint: Any = None) -> Any:
    pipe = lib.Pipeline(
        batch_size=BATCH,
        num_threads=threads,
        device_id=None,
        seed=1,
        enable_checkpointing=True,
        checkpoint=checkpoint,
    )
    with pipe:
        pipe.set_outputs(resnet50(lib.fn, lib.types, root))
    pipe.build()
    return pipe


def first_output(pipe: Any) -> np.ndarray:
    (out,) = pipe.run()
    return np.stack([np.asarray(out[i]) for i in range(len(out))])


def median_seconds(call: Any, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def measure(lib: ModuleType, root: str, args: argparse.Namespace) -> dict[str, Any]:
    pipe = make(lib, root, args.threads)
    for _ in range(args.runs):
        pipe.run()
    cpt = pipe.checkpoint()
    call = median_seconds(pipe.checkpoint, args.calls)
    expected = first_output(pipe)
    build_plain = median_seconds(lambda: make(lib, root, args.threads), 3)
    build_restore = median_seconds(lambda: make(lib, root, args.threads, cpt), 3)
    restored = make(lib, root, args.threads, cpt)
    same = bool(np.array_equal(first_output(restored), expected))
    return {
        "bytes": len(cpt),
        "call_us": call * 1e6,
        "restore_ms": (build_restore - build_plain) * 1e3,
        "same": same,
        "checkpoint": cpt,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=256)
    parser.add_argument("--runs", type=int, default=40, help="iterations before the checkpoint")
    parser.add_argument("--calls", type=int, default=2000, help="checkpoint() calls timed")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--root", type=str, default=None)
    parser.add_argument("--show", action="store_true", help="print our checkpoint")
    args = parser.parse_args()
    root = args.root or tempfile.mkdtemp(prefix="dali-ckpt-bench-")
    if not any(Path(root).rglob("*.jpg")):
        make_imagenet_like(root, args.images)
    libs = [("dali (this library)", dali)]
    real = load_real_dali()
    if real is not None:
        libs.append(("NVIDIA DALI " + getattr(real, "__version__", ""), real))
    results = [(name, measure(lib, root, args)) for name, lib in libs]
    ours = results[0][1]
    rows = []
    for name, r in results:
        rows.append(
            [
                name,
                f"{r['bytes']:,}",
                f"{ours['bytes'] and r['bytes'] / ours['bytes']:.2f}x",
                f"{r['call_us']:.1f}",
                f"{r['call_us'] / ours['call_us']:.2f}x",
                f"{r['restore_ms']:.1f}",
                "yes" if r["same"] else "NO",
            ]
        )
    print_columns(
        f"ResNet-50 pipeline checkpoint after {args.runs} iterations of batch {BATCH} "
        f"(ratio: this row / this library)",
        ["library", "bytes", "ratio", "checkpoint() us", "ratio", "restore ms", "exact"],
        rows,
    )
    rebuild = []
    for draws, repeat in ((1280, 20), (640_000, 3), (1_281_166, 3)):
        seconds = median_seconds(lambda d=draws: rebuild_buffer(1_281_167, 1024, d), repeat)
        rebuild.append([f"{draws:,} draws", f"{seconds * 1e3:.2f}"])
    print_columns("Shuffle buffer (1,024) rebuilt on restore", ["after", "ms"], rebuild)
    if args.show:
        print("\n" + ours["checkpoint"].decode())


def rebuild_buffer(n: int, fill: int, draws: int) -> None:
    """What a restored ``random_shuffle`` reader does before its first batch."""
    from dali._ops.readers.loader.sharding import ReaderCursor, SampleStream

    cursor = ReaderCursor(SampleStream(n, batch_size=BATCH), fill, key=12345)
    cursor.set_state(draws)
    cursor.next_batch(BATCH)


if __name__ == "__main__":
    main()
