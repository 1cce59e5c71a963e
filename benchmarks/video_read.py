"""Throughput of video reading: dali's readers.video (+ resize) vs the raw decoders it uses.

Clips: ``--clips`` generated H.264 MP4s (``--width`` x ``--height``, ``--frames`` each, key frame
every 30, B-frames; `dali._testing.videos`). Every row decodes every frame of every clip once,
in sequences of ``--seq`` frames (``step = sequence_length``: no frame decoded twice), and
reports frames per second:

* ``raw NVDEC, T threads``: PyNvVideoCodec's ``SimpleDecoder`` alone (NV12 out, no colour
  conversion), one decoder per thread, the clips split between ``--threads`` threads — the
  hardware rate the reader can reach with as many sessions; ``raw NVDEC, 1 thread`` beside it;
* ``raw NVDEC, T threads, reader's order``: the same, but the sequences dealt to the threads
  in turn, as a batch of consecutive sequences is (each decoder jumps ahead and seeks);
* ``dali GPU readers.video + resize``: ``fn.readers.video(device="gpu")`` → ``fn.resize`` to
  224x224 on the GPU (NVDEC, the batch's conversion in one launch, the resize), ``--threads``;
* ``dali GPU readers.video alone`` (no resize) and ``..., shuffled`` (``random_shuffle``: each
  sequence from a random place, so each decoder seeks);
* ``NVIDIA DALI GPU readers.video ...``: the same three pipelines with NVIDIA DALI, alternating
  with this library's in the same process, when its GPU build is importable (DALI's reader runs
  on the GPU only; the rows are left out with a note otherwise);
* ``dali CPU readers.video + resize``: the same pipeline on the CPU (PyAV), ``--threads``
  (``--cpu-parallelism``: threads of this process or worker processes, see
  ``Pipeline.cpu_workers``; decoding ahead needs the reader's cursor, so threads); ``dali CPU
  readers.video alone`` without the resize;
* ``PyAV, 1 thread``: the peer most PyTorch video loaders use (``av`` decode to rgb24), as one
  thread of work: FFmpeg's decoder and its rgb24 conversion (swscale) each with one thread, the
  per-thread reference of the CPU reader (whose decoders run one thread each);
* ``PyAV, FFmpeg's threads``: the same with PyAV's defaults, FFmpeg's threads as many as the
  cores: slice threads in the decoder (they help only streams cut into slices, as ``write_clip``'s
  are: libx264 writes a slice per encoding thread) and swscale's threads.
* ``PyAV, T processes``: ``--threads`` worker processes (spawned, one FFmpeg thread each, the
  clips split between them), as a PyTorch ``DataLoader`` with that many workers decodes: the
  rate the same number of cores gives the peer. One thread's rate times ``T`` overstates it: a
  core alone runs at a higher clock than all of them together, and they share the memory.

The reader rows decode ahead at least ``options.VIDEO_DECODE_AHEAD`` batches, more until the
batches ahead give each thread ``options.VIDEO_DECODE_AHEAD_RUNS`` runs; ``--ahead 0,2,4`` runs
each of them at every depth listed (0: each batch decoded when it is read), ``--ahead-runs
0,2,4`` at every number of runs a thread listed (0: the depth alone), a row per pair.
``--epochs`` reads that many epochs per measurement (the first batch, which opens the
decoders and compiles the kernels, is not timed).

The GPU rows need CuPy and PyNvVideoCodec (``pip install 'dali-core[video-gpu]'``).
Run: ``python benchmarks/video_read.py [--gpu] [--ahead 0,2,4]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dali
from _common import load_real_dali, print_columns
from dali import _options as options
from dali._testing.videos import write_clip


def make_clips(args: argparse.Namespace) -> list[str]:
    root = args.clip_dir or tempfile.mkdtemp(prefix="video_bench_")
    os.makedirs(root, exist_ok=True)

    def one(k: int) -> str:
        path = os.path.join(root, f"clip{k}_{args.frames}_{args.width}x{args.height}.mp4")
        if os.path.exists(path):  # written by an earlier run with the same --clip-dir
            return path
        return write_clip(
            path,
            frames=args.frames,
            width=args.width,
            height=args.height,
            gop=30,
            motion=(5 + k, 2),
        )

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        return list(ex.map(one, range(args.clips)))


def raw_nvdec(clips: list[str], args: argparse.Namespace, threads: int) -> float:
    import cupy as cp
    import PyNvVideoCodec as nvc

    def run(part: list[str]) -> int:
        n = 0
        for path in part:
            dec = nvc.SimpleDecoder(path, gpu_id=0, use_device_memory=True)
            total = len(dec)
            for start in range(0, total - args.seq + 1, args.seq):
                frames = dec.get_batch_frames_by_index(list(range(start, start + args.seq)))
                n += len(frames)
            del dec
        cp.cuda.Device(0).synchronize()
        return n

    parts = [clips[k::threads] for k in range(threads)]
    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        n = sum(ex.map(run, parts))
    return n / (time.perf_counter() - t)


def raw_nvdec_strided(clips: list[str], args: argparse.Namespace, threads: int) -> float:
    """The reader's access pattern: consecutive sequences dealt to the threads in turn."""
    import cupy as cp
    import PyNvVideoCodec as nvc

    seqs = []
    for path in clips:
        total = args.frames
        seqs += [(path, s) for s in range(0, total - args.seq + 1, args.seq)]

    def run(k: int) -> int:
        decoders: dict[str, Any] = {}
        n = 0
        for path, start in seqs[k::threads]:
            dec = decoders.get(path) or decoders.setdefault(
                path, nvc.SimpleDecoder(path, gpu_id=0, use_device_memory=True)
            )
            n += len(dec.get_batch_frames_by_index(list(range(start, start + args.seq))))
        cp.cuda.Device(0).synchronize()
        return n

    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        n = sum(ex.map(run, range(threads)))
    return n / (time.perf_counter() - t)


def dali_reader(
    clips: list[str],
    args: argparse.Namespace,
    device: str,
    resize: bool = True,
    shuffle: bool = False,
    lib: ModuleType = dali,
) -> float:
    """Frames per second of ``lib``'s ``readers.video`` (+ resize): this library's, or NVIDIA
    DALI's (the same pipeline; its reader runs on the GPU only)."""
    ours = lib is dali
    fn = lib.fn

    @lib.pipeline_def(
        batch_size=args.batch_size,
        num_threads=args.threads,
        device_id=0 if device == "gpu" else None,
        prefetch_queue_depth=2,
        **({"cpu_parallelism": args.cpu_parallelism} if ours else {}),
    )
    def pipe() -> Any:
        video = fn.readers.video(
            device=device,
            filenames=clips,
            sequence_length=args.seq,
            random_shuffle=shuffle,
            name="R",
        )
        return fn.resize(video, resize_x=224, resize_y=224) if resize else video

    p = pipe()
    p.build()
    n = p.reader_meta("R")["epoch_size"]
    iters = max(1, round(n * args.epochs / args.batch_size))
    p.run()  # warm up: decoders opened, kernels compiled
    t = time.perf_counter()
    for _ in range(iters):
        out = p.run()
    if device == "gpu" and ours:
        import cupy as cp

        out[0].as_tensor()
        cp.cuda.Device(0).synchronize()
    elif device == "gpu":
        out[0].as_cpu()  # waits for the GPU's work (NVIDIA DALI's outputs)
    seconds = time.perf_counter() - t
    if ours:
        p.close()
    del p  # NVIDIA DALI's pipeline has no close(): dropped
    return iters * args.batch_size * args.seq / seconds


def pyav(clips: list[str], args: argparse.Namespace, threads: int | None = 1) -> float:
    """PyAV decoding every frame to rgb24; ``threads`` for FFmpeg (None: PyAV's defaults)."""
    t = time.perf_counter()
    n = _pyav_frames(clips, threads)
    return n / (time.perf_counter() - t)


def _pyav_frames(clips: list[str], threads: int | None) -> int:
    """Decode every frame of ``clips`` to rgb24 with PyAV; the number of frames."""
    import av

    kwargs = {} if threads is None else {"threads": threads}
    n = 0
    for path in clips:
        with av.open(path) as c:
            stream = c.streams.video[0]
            if threads is not None:
                stream.thread_count = threads
            for frame in c.decode(stream):
                frame.to_ndarray(format="rgb24", **kwargs)
                n += 1
    return n


def pyav_processes(clips: list[str], processes: int) -> float:
    """PyAV in ``processes`` spawned workers (one FFmpeg thread each), the clips dealt to them
    in turn; every worker decodes a clip before the clock starts (started, PyAV imported)."""
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=ctx) as ex:
        list(ex.map(_pyav_frames, [clips[:1]] * processes, [1] * processes))
        t = time.perf_counter()
        n = sum(
            ex.map(_pyav_frames, [clips[k::processes] for k in range(processes)], [1] * processes)
        )
        return n / (time.perf_counter() - t)


#: the GPU reader rows: name suffix -> `dali_reader` arguments (both libraries, alternating)
GPU_ROWS: dict[str, dict[str, Any]] = {
    " + resize": {},
    " alone": {"resize": False},
    " + resize, shuffled": {"shuffle": True},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clips", type=int, default=8)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=float, default=1.0, help="epochs per reader measurement")
    ap.add_argument(
        "--ahead",
        default=str(options.VIDEO_DECODE_AHEAD),
        help="comma-separated depths of decoding ahead (options.VIDEO_DECODE_AHEAD)",
    )
    ap.add_argument(
        "--ahead-runs",
        default=str(options.VIDEO_DECODE_AHEAD_RUNS),
        help="comma-separated runs a thread of the window ahead (options.VIDEO_DECODE_AHEAD_RUNS)",
    )
    ap.add_argument(
        "--cpu-parallelism", default="threads", choices=("auto", "threads", "processes")
    )
    ap.add_argument("--clip-dir", help="keep the clips there, and reuse them in later runs")
    ap.add_argument("--gpu", action="store_true", help="add the NVDEC rows")
    ap.add_argument("--skip-cpu", action="store_true", help="leave out the CPU rows")
    args = ap.parse_args()
    t = time.perf_counter()
    clips = make_clips(args)
    print(
        f"{args.clips} clips of {args.frames} frames {args.width}x{args.height} H.264 "
        f"written in {time.perf_counter() - t:.1f} s"
    )
    real = load_real_dali(gpu=True) if args.gpu else None
    if args.gpu and real is None:
        print("NVIDIA DALI's GPU build is not importable here: its rows are left out")
    windows = [(int(d), int(r)) for d in args.ahead.split(",") for r in args.ahead_runs.split(",")]
    rows: dict[str, list[float]] = {}

    def readers(device: str, label: str, **kw: Any) -> None:
        for depth, runs in windows:
            options.VIDEO_DECODE_AHEAD, options.VIDEO_DECODE_AHEAD_RUNS = depth, runs
            name = label if len(windows) == 1 else f"{label}, ahead {depth}/{runs} runs"
            rows.setdefault(name, []).append(dali_reader(clips, args, device, **kw))

    for _ in range(args.repeats):
        if args.gpu:
            rows.setdefault(f"raw NVDEC, {args.threads} threads", []).append(
                raw_nvdec(clips, args, args.threads)
            )
            rows.setdefault("raw NVDEC, 1 thread", []).append(raw_nvdec(clips, args, 1))
            rows.setdefault(f"raw NVDEC, {args.threads} threads, reader's order", []).append(
                raw_nvdec_strided(clips, args, args.threads)
            )
            for name, kw in GPU_ROWS.items():
                readers("gpu", f"dali GPU readers.video{name}", **kw)
                if real is not None:
                    rows.setdefault(f"NVIDIA DALI GPU readers.video{name}", []).append(
                        dali_reader(clips, args, "gpu", lib=real, **kw)
                    )
        if not args.skip_cpu:
            readers("cpu", "dali CPU readers.video + resize")
            readers("cpu", "dali CPU readers.video alone", resize=False)
            rows.setdefault("PyAV, 1 thread", []).append(pyav(clips, args))
            rows.setdefault("PyAV, FFmpeg's threads", []).append(pyav(clips, args, None))
            rows.setdefault(f"PyAV, {args.threads} processes", []).append(
                pyav_processes(clips, args.threads)
            )
    base_key = f"raw NVDEC, {args.threads} threads" if args.gpu else "PyAV, 1 thread"
    base = statistics.median(rows[base_key])
    table = [
        [name, f"{statistics.median(v):,.0f}", f"{statistics.median(v) / base:.2f}x"]
        for name, v in rows.items()
    ]
    print_columns(
        f"frames/s, median of {args.repeats} (ratio to {base_key})",
        ["", "frames/s", "ratio"],
        table,
    )


if __name__ == "__main__":
    main()
