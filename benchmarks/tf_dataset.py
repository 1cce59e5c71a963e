"""DALIDataset on the CPU: its overhead over the pipeline, and the quickstart against tf.data.

Two questions, answered in one run on an ImageNet-like JPEG set
(``dali._testing.images.make_imagenet_like``), batch 64, ``num_threads=2``, CPU only:

1. **Overhead.** The seed quickstart pipeline (``readers.file`` → ``decoders.image`` →
   ``resize`` to 256×256, the graph of ``image_cpu.py``) timed per batch when run directly
   (``pipe.run()``) and through ``DALIDataset`` (``next()`` on its iterator: the
   ``py_function``, the checks, the DLPack hand-over and tf.data's own copy of the batch,
   which it makes for buffers that are not 64-byte aligned). The ratio is dataset over
   direct (target ≤ 1.1x). A second row does the same with a pipeline that does almost
   nothing (one small random batch), so its difference is the per-batch cost of the dataset
   in microseconds.
2. **Against plain tf.data.** The same work written with TensorFlow alone:
   ``list_files`` → ``read_file`` → ``tf.io.decode_jpeg`` → ``tf.image.resize`` (256×256,
   antialiased like DALI's resize, cast back to uint8) with ``num_parallel_calls=AUTOTUNE``,
   ``batch(64)`` and ``prefetch(AUTOTUNE)``, against ``DALIDataset`` over the quickstart
   pipeline; images/s and CPU ms per image (all the process's threads). tf.data's AUTOTUNE
   may use every core, our pipeline uses its two threads.

The variants alternate within each repeat and the median of ``--repeats`` is reported.

Run: ``python benchmarks/tf_dataset.py [--images 1024] [--repeats 5] [--quick]``

Measured on the 2-core CI-class machine (AMD EPYC), TensorFlow 2.21 (tensorflow-cpu), 1,024
JPEGs, median of 5, 2026-11-26: quickstart 131.5 ms/batch run directly, 132.3 through
DALIDataset (1.007x); the tiny pipeline +0.83 ms per batch; DALIDataset 499 img/s against
tf.data's 365 (1.37x). The package README (``packages/plugin-tf/README.md``) has the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow starts: less chatter

import dali
import tensorflow as tf
from _common import CpuSample, measure_cpu, print_columns, wait_until_quiet
from dali._testing.images import make_imagenet_like
from dali.plugin.tf import DALIDataset
from image_cpu import BATCH, quickstart

SIZE = 256


def quickstart_pipe(root: str, threads: int, batch: int) -> Any:
    pipe = dali.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    with pipe:
        pipe.set_outputs(quickstart(dali.fn, dali.types, root))
    pipe.build()
    return pipe


def tiny_pipe(threads: int, batch: int) -> Any:
    pipe = dali.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=1)
    with pipe:
        pipe.set_outputs(dali.fn.random.uniform(range=(0, 1), shape=(4,)))
    pipe.build()
    return pipe


def dataset_of(pipe: Any, dtype: Any, shape: tuple[int, ...]) -> Any:
    return DALIDataset(
        pipe,
        output_dtypes=dtype,
        output_shapes=shape,
        batch_size=pipe.max_batch_size,
        device_id=None,
    )


def tf_data_quickstart(root: str, batch: int) -> Any:
    """The quickstart in plain tf.data: decode, antialiased resize, uint8, batch, prefetch."""
    files = tf.data.Dataset.list_files(str(Path(root) / "*" / "*.JPEG"), shuffle=False)

    def load(path: Any) -> Any:
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        image = tf.image.resize(image, (SIZE, SIZE), antialias=True)
        return tf.cast(tf.clip_by_value(tf.round(image), 0, 255), tf.uint8)

    return (
        files.repeat()
        .map(load, num_parallel_calls=tf.data.AUTOTUNE)
        .batch(batch, drop_remainder=True)
        .prefetch(tf.data.AUTOTUNE)
    )


# -- timing ------------------------------------------------------------------------------------

#: A variant: makes a fresh "next batch" callable (its set-up is not timed).
Variant = Callable[[], Callable[[], Any]]


def _next_of(make_iterable: Callable[[], Any]) -> Callable[[], Any]:
    it: Iterator[Any] = iter(make_iterable())
    return lambda: next(it)


def time_variants(
    variants: list[Variant], iterations: int, args: argparse.Namespace
) -> list[list[CpuSample]]:
    """``--repeats`` timed samples of ``iterations`` batches for each variant, alternating.

    As in ``image_cpu.py``, a sample during which other processes kept more than
    ``--max-foreign`` of the machine busy is retried (up to three times the repeats): it
    measures the neighbours. Too few quiet samples: all of them are used.
    """
    clean: list[list[CpuSample]] = [[] for _ in variants]
    noisy: list[list[CpuSample]] = [[] for _ in variants]
    for _ in range(3 * args.repeats):
        if all(len(c) >= args.repeats for c in clean):
            break
        for k, make in enumerate(variants):
            if len(clean[k]) >= args.repeats:
                continue
            step = make()
            for _ in range(args.warmup):
                step()
            if args.wait_quiet > 0:
                wait_until_quiet(args.max_foreign, args.wait_quiet)
            with measure_cpu() as m:
                for _ in range(iterations):
                    step()
            quiet = m[0].foreign is None or m[0].foreign <= args.max_foreign
            (clean if quiet else noisy)[k].append(m[0])
            del step
    return [c if len(c) * 2 > args.repeats else c + n for c, n in zip(clean, noisy)]


def median_wall(samples: list[CpuSample]) -> float:
    return statistics.median(s.wall for s in samples)


def median_cpu(samples: list[CpuSample]) -> float:
    return statistics.median(s.cpu for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1024, help="JPEGs in the set")
    parser.add_argument("--root", default=None, help="where the set is generated and cached")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3, help="batches before timing")
    parser.add_argument("--max-foreign", type=float, default=0.15)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=20.0,
        help="before each sample, wait up to this many seconds for other processes to calm",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 64 small-batch images, one repeat"
    )
    args = parser.parse_args()
    batch = BATCH
    if args.quick:
        args.images, args.repeats, args.warmup, args.wait_quiet, batch = 64, 1, 1, 0.0, 16
    root = args.root or os.environ.get("DALI_BENCH_IMAGES")
    if root is None:
        name = "dali-bench-tf-quick" if args.quick else "dali-bench-imagenet-like"
        root = str(Path(tempfile.gettempdir()) / name)
    t0 = time.perf_counter()
    n = len(make_imagenet_like(root, args.images, seed=0))
    if time.perf_counter() - t0 > 1:
        print(f"generated {n} ImageNet-like JPEGs in {root}")
    iterations = max(n // batch, 2)
    images = iterations * batch
    image_shape = (batch, SIZE, SIZE, 3)

    # 1. overhead over the pipeline run directly
    def direct() -> Callable[[], Any]:
        return quickstart_pipe(root, args.threads, batch).run

    def through_dataset() -> Callable[[], Any]:
        pipe = quickstart_pipe(root, args.threads, batch)
        return _next_of(lambda: dataset_of(pipe, tf.uint8, image_shape))

    def tiny_direct() -> Callable[[], Any]:
        return tiny_pipe(args.threads, batch).run

    def tiny_dataset() -> Callable[[], Any]:
        pipe = tiny_pipe(args.threads, batch)
        return _next_of(lambda: dataset_of(pipe, tf.float32, (batch, 4)))

    quick, tiny = (
        time_variants([direct, through_dataset], iterations, args),
        time_variants([tiny_direct, tiny_dataset], 20 * iterations, args),
    )

    def per_batch(samples: list[CpuSample], n: int) -> tuple[float, float]:
        return median_wall(samples) / n, median_cpu(samples) / n

    (q_wall, q_cpu), (d_wall, d_cpu) = (per_batch(s, iterations) for s in quick)
    (t_wall, t_cpu), (u_wall, u_cpu) = (per_batch(s, 20 * iterations) for s in tiny)
    print_columns(
        f"1. DALIDataset overhead: {n} JPEGs, batch {batch}, {args.threads} threads, CPU; "
        f"median of {args.repeats}",
        [
            "pipeline",
            "pipe.run() ms/batch",
            "DALIDataset ms/batch",
            "DALIDataset / pipeline",
            "CPU ms/batch run / dataset",
        ],
        [
            [
                "quickstart: decode + resize 256",
                f"{1e3 * q_wall:.2f}",
                f"{1e3 * d_wall:.2f}",
                f"{d_wall / q_wall:.3f}x",
                f"{1e3 * q_cpu:.1f} / {1e3 * d_cpu:.1f}",
            ],
            [
                "tiny (per-batch cost)",
                f"{1e3 * t_wall:.3f}",
                f"{1e3 * u_wall:.3f}",
                f"+{1e6 * (u_wall - t_wall):.0f} us",
                f"{1e3 * t_cpu:.2f} / {1e3 * u_cpu:.2f}",
            ],
        ],
    )
    print("target: DALIDataset / pipeline <= 1.1x on the quickstart row (issue 21)")

    # 2. the quickstart against the same work in plain tf.data
    def plain_tf_data() -> Callable[[], Any]:
        return _next_of(lambda: tf_data_quickstart(root, batch))

    both = time_variants([through_dataset, plain_tf_data], iterations, args)
    rows = []
    for name, samples in [
        ("DALIDataset (quickstart pipeline)", both[0]),
        ("tf.data decode_jpeg + resize, AUTOTUNE", both[1]),
    ]:
        rows.append(
            [
                name,
                f"{images / median_wall(samples):.0f}",
                f"{1e3 * median_cpu(samples) / images:.2f}",
            ]
        )
    ratio = median_wall(both[1]) / median_wall(both[0])
    rows[0].append(f"{ratio:.2f}x")
    rows[1].append("1.00x")
    print_columns(
        f"2. quickstart on the CPU: DALIDataset vs plain tf.data ({n} JPEGs, batch {batch}, "
        f"{args.threads} pipeline threads, tf.data AUTOTUNE on {os.cpu_count()} cores)",
        ["input pipeline", "img/s", "CPU ms/img", "speed vs tf.data"],
        rows,
    )
    print(f"TensorFlow {tf.__version__}")


if __name__ == "__main__":
    main()
