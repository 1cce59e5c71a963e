"""Data-parallel scaling of the JAX iterator: the ResNet-50 input pipeline on 1, 2, ... GPUs.

One process, one pipeline per GPU (what ``data_iterator`` with a ``NamedSharding`` over a
1-D mesh builds): ``readers.file(shard_id, num_shards, random_shuffle=True)`` →
``decoders.image_random_crop`` (mixed) → ``resize(224, 224)`` → ``crop_mirror_normalize``
(fp16, NCHW, random mirror), batch 256 per GPU, on the same ImageNet-like JPEGs
(`make_imagenet_like`). Each step yields one global ``jax.Array`` of ``256 × n`` images
sharded over the ``n`` GPUs; the rate counts images of finished global batches (the last
batch is waited for with ``block_until_ready``). Issue 5's target: 2 GPUs ≥ 1.9 × 1 GPU.

``--layouts`` names the layouts measured, each for every GPU count, alternating:

* ``threads``: one process, the pipelines in it (``worker_process=False``): they share its GIL;
* ``workers``: one process, each pipeline in a worker process of its own
  (``worker_process=True``, what the iterator chooses for several GPU pipelines;
  `dali._exec.process`): the consumer only wraps the CUDA IPC buffers into ``jax.Array``s;
* ``processes``: one process per GPU (``jax.distributed`` on localhost, each process's
  iterator feeding its own GPU's shard of the same global array), the multi-host layout on
  one host. The rate is the sum of the processes' rates.

``--pin`` passes ``set_affinity=True`` (pipeline threads on the GPU's NUMA cores);
``--repeat N`` measures every GPU count N times, alternating, and reports medians.

Run: ``python benchmarks/jax_scaling.py [--images 4096] [--gpus 1,2] [--threads 8]
[--layouts threads,workers,processes] [--pin] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

BATCH = 256
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def make_iterator(
    root: Path, n: int, threads: int, pin: bool = False, worker: bool | None = None, depth: int = 2
) -> Any:
    import jax
    import numpy as np
    from dali import fn, types
    from dali.plugin.jax import data_iterator
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:n]), axis_names=("batch",))  # global devices
    sharding = NamedSharding(mesh, PartitionSpec("batch"))

    @data_iterator(
        output_map=["images", "labels"],
        reader_name="reader",
        sharding=sharding,
        auto_reset=True,
    )
    def resnet50(num_shards: int = 1, shard_id: int = 0) -> Any:
        jpegs, labels = fn.readers.file(
            file_root=str(root),
            random_shuffle=True,
            num_shards=num_shards,
            shard_id=shard_id,
            name="reader",
        )
        images = fn.decoders.image_random_crop(jpegs, device="mixed")
        images = fn.resize(images, resize_x=224, resize_y=224)
        images = fn.crop_mirror_normalize(
            images,
            dtype=types.FLOAT16,
            output_layout="CHW",
            mean=MEAN,
            std=STD,
            mirror=fn.random.coin_flip(),
        )
        return images, labels.gpu()

    return resnet50(
        batch_size=BATCH * n,
        num_threads=threads,
        seed=1,
        set_affinity=pin,
        worker_process=worker,
        prefetch_queue_depth=depth,
    )


def step(iterator: Any) -> Any:
    """The next global batch; an epoch's end (auto_reset restarts the reader) is skipped."""
    try:
        return next(iterator)
    except StopIteration:
        return next(iterator)


def rate(iterator: Any, seconds: float, warmup: int) -> tuple[float, Any]:
    batch = None
    for _ in range(warmup):
        batch = step(iterator)
    batch["images"].block_until_ready()
    images = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        batch = step(iterator)
        images += batch["images"].shape[0]
    batch["images"].block_until_ready()
    return images / (time.perf_counter() - t0), batch


def worker(
    rank: int, n: int, port: int, root: Path, images: int, threads: int, seconds: float, pin: bool
) -> None:
    """One process of a ``--processes`` run: its GPU's shard; prints its rate."""
    import jax

    jax.distributed.initialize(
        coordinator_address=f"localhost:{port}",
        num_processes=n,
        process_id=rank,
        local_device_ids=[rank],
    )
    it = make_iterator(root, n, threads, pin)
    warmup = max(2, images // (BATCH * n) // 2)
    r, batch = rate(it, seconds, warmup)
    local = [s.data.shape for s in batch["images"].addressable_shards]
    cores = getattr(getattr(it._pipes[0]._executor, "_state", None), "affinity", None)
    pinned = f"pinned to {len(cores)} cores" if cores else "not pinned"
    print(f"RATE {rank} {r / n:.1f} {pinned}; {batch['images'].shape} {local}", flush=True)


def processes(n: int, root: Path, images: int, threads: int, seconds: float, pin: bool) -> float:
    """Run ``n`` worker processes (one GPU each); the sum of their local image rates."""
    import socket
    import subprocess
    import sys

    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, __file__, "--worker", "--root", str(root), "--threads", str(threads)]
    cmd += ["--seconds", str(seconds), "--port", str(port), "--world", str(n)]
    cmd += ["--images", str(images)] + (["--pin"] if pin else [])
    procs = [
        subprocess.Popen([*cmd, "--rank", str(k)], stdout=subprocess.PIPE, text=True)
        for k in range(n)
    ]
    total = 0.0
    for k, proc in enumerate(procs):
        out, _ = proc.communicate(timeout=600)
        lines = [line for line in out.splitlines() if line.startswith("RATE")]
        if proc.returncode or not lines:
            raise RuntimeError(f"worker {k} failed ({proc.returncode}): {out[-2000:]}")
        _, _, local_rate, *shape = lines[-1].split(" ", 3)
        print(f"    process {k}: {float(local_rate):.0f} img/s of its shard; {shape[-1]}")
        total += float(local_rate)
    return total


LAYOUTS = {
    "threads": "one process, pipelines in-process (threads)",
    "workers": "one process, a worker process per pipeline",
    "processes": "one process per GPU (jax.distributed)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=4096)
    parser.add_argument("--root", default=os.path.join(tempfile.gettempdir(), "dali_imagenet"))
    parser.add_argument("--gpus", default="1,2", help="GPU counts to measure")
    parser.add_argument("--threads", type=int, default=8, help="num_threads per pipeline")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--depth", type=int, default=2, help="prefetch_queue_depth")
    parser.add_argument("--layouts", default="workers,processes", help=f"of {', '.join(LAYOUTS)}")
    parser.add_argument("--processes", action="store_true", help="--layouts processes")
    parser.add_argument(
        "--pin", action="store_true", help="set_affinity=True: threads on the GPU's NUMA cores"
    )
    parser.add_argument("--repeat", type=int, default=1, help="measure every GPU count N times")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--world", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        worker(
            args.rank,
            args.world,
            args.port,
            Path(args.root),
            args.images,
            args.threads,
            args.seconds,
            args.pin,
        )
        return

    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    from dali._testing.images import make_imagenet_like

    layouts = ["processes"] if args.processes else args.layouts.split(",")
    root = Path(args.root)
    files = make_imagenet_like(root, args.images, seed=0, processes=os.cpu_count())
    gpus = [int(v) for v in args.gpus.split(",") if int(v) <= len(jax.devices())]
    print(
        f"{len(files)} ImageNet-like JPEGs; devices: {jax.devices()}; {os.cpu_count()} CPU "
        f"cores; batch {BATCH} per GPU; {args.threads} threads per pipeline"
    )
    rows: dict[tuple[str, int], list[float]] = {(lay, n): [] for lay in layouts for n in gpus}
    for _trial in range(args.repeat):
        for lay in layouts:
            for n in gpus:
                rows[(lay, n)].append(measure(lay, n, root, len(files), args))
    pinned = ", set_affinity=True" if args.pin else ""
    print(
        f"\nJAX sharded iterator, ResNet-50 pipeline{pinned} ({jax.devices()[0].device_kind}); "
        f"trials in the order run, alternating layouts and GPU counts"
    )
    print(f"{'layout':<46}{'GPUs':>5}{'median img/s':>14}{'vs 1 GPU':>10}  trials")
    for lay in layouts:
        base = statistics.median(rows[(lay, 1)]) if (lay, 1) in rows else None
        for n in gpus:
            rates = rows[(lay, n)]
            r = statistics.median(rates)
            ratio = f"{r / base:.2f}x" if base else ""
            trials = ", ".join(f"{v:.0f}" for v in rates)
            print(f"{LAYOUTS[lay]:<46}{n:>5}{r:>14.0f}{ratio:>10}  {trials}")
        if base and args.repeat > 1:
            per_trial = [
                rows[(lay, n)][t] / rows[(lay, 1)][t]
                for n in gpus
                for t in range(args.repeat)
                if n > 1
            ]
            print(
                "  per-trial ratios (each against the 1-GPU trial just before it): "
                + ", ".join(f"{v:.2f}x" for v in per_trial)
            )


def measure(layout: str, n: int, root: Path, images: int, args: argparse.Namespace) -> float:
    """One measurement of ``n`` GPUs in ``layout``: total img/s."""
    if layout == "processes":
        print(f"  {n} process(es), one GPU each:")
        r = processes(n, root, images, args.threads, args.seconds, args.pin)
        print(f"  {n} GPU(s): {r:8.0f} img/s")
        return r
    it = make_iterator(
        root, n, args.threads, args.pin, worker=layout == "workers", depth=args.depth
    )
    warmup = max(2, images // (BATCH * n) // 2)
    r, batch = rate(it, args.seconds, warmup)
    shards = {s.device.id: s.data.shape for s in batch["images"].addressable_shards}
    pids = [p.worker_pid for p in it._pipes]
    print(
        f"  [{layout}] {n} GPU(s): {r:8.0f} img/s; global batch {batch['images'].shape}, "
        f"shards {shards}; worker pids {pids}"
    )
    del batch
    for p in it._pipes:
        p.close()
    del it
    return r


if __name__ == "__main__":
    main()
