"""ResNet-50 training input pipeline on one GPU: raw nvImageCodec, this library, torchvision.

All rows run in one process on the same ImageNet-like JPEGs (`make_imagenet_like`, written into
``--root`` first), batch 256:

1. **raw nvImageCodec batch decode** — the ceiling: lists of 256 encoded files decoded with one
   ``Decoder.decode`` call each (default backends), in a loop; also the region ("ROI") decode of
   random windows, which is what ``image_random_crop`` asks nvImageCodec for.
2. **this library** — ``readers.file(random_shuffle=True)`` → ``decoders.image_random_crop``
   (mixed) → ``resize(224, 224)`` → ``crop_mirror_normalize(FLOAT16, "CHW", mirror=coin_flip)``
   (target: ≥ 20,000 img/s and ≥ 0.9 × row 1), plus decode-only rows and the
   decoder's per-stage time per batch (the profile when a target is missed).
3. **torchvision** — the same work in plain torch: files read by a thread pool,
   ``torchvision.io.decode_jpeg(device="cuda")`` batched, a RandomResizedCrop per image
   (bilinear, antialiased), normalise, random flip, fp16 NCHW.

The pipeline rows run at each ``--depths`` value of ``prefetch_queue_depth`` (default 2, DALI's
default, 4 and 8): the iterations in flight are at most the depth, so by Little's law the rate is
at most depth × 256 / (one iteration's latency: read, plan, decode, resize, normalise), and an
iteration spends ~20 ms in nvImageCodec's decode call alone. ``--sweep`` also measures the raw decode at several ``hw_decoder_load``
values (our backend list: hardware decoder, then CUDA nvJPEG, then hybrid), the numbers behind
``dali._options.DEFAULT_HW_LOAD``. ``--epochs-memory 20`` reports the GPU
memory of the pipeline over 20 epochs (first, peak, final, and what its pool holds per epoch).
``--versus 5`` runs only the ResNet-50 pipeline, with this library and with NVIDIA DALI's GPU
build (when it is importable) in turn, 5 trials each at ``prefetch_queue_depth`` 2, and prints
the medians and their ratio.

Measured (``--epochs-memory 20 --seconds 5``, NVIDIA H100 80GB HBM3, 16 cores, 2,048 JPEGs of
84 KB mean), three runs on three hosts, img/s:

    raw decode (ceiling)           20,347                    21,792                    17,972
    ResNet-50, prefetch 2 / 4 / 8  20,406 / 21,538 / 22,998  22,436 / 22,029 / 23,204  20,397 / 19,025 / 20,820
    torchvision ResNet-50           4,217                     3,972                     4,065

and the pipeline's pool held 840 MiB over the 20 epochs of each (from the second in the third).

Hosts differ: on two others the same day the ceiling itself measured 14,893 and 16,563 and the
pipeline 15,940-19,081 (still ≥ the ceiling). The pipeline is bound by its threads' summed GIL
time (see ``dali/README.md``), so a host's single-thread speed moves every row.

Run: ``python benchmarks/gpu_resnet.py [--images 2048] [--threads 12] [--sweep]``
(``python3 -m nox -s bench-gpu`` installs the GPU extras and runs it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

BATCH = 256
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def sync() -> None:
    import cupy

    cupy.cuda.runtime.deviceSynchronize()


def rate(step: Callable[[], Any], images_per_step: int, seconds: float, warmup: int) -> float:
    """Images per second of ``step`` (device work included), over at least ``seconds``."""
    for _ in range(warmup):
        step()
    sync()
    n = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(4):
            step()
        n += 4
        if time.perf_counter() - t0 >= seconds:
            break
    sync()
    return n * images_per_step / (time.perf_counter() - t0)


# -- raw nvImageCodec ----------------------------------------------------------------------------


def batches(datas: list[np.ndarray]) -> list[list[int]]:
    return [list(range(s, s + BATCH)) for s in range(0, len(datas) - BATCH + 1, BATCH)]


def raw_decoder(load: float | None, adaptive: bool = False) -> Any:
    """Default nvImageCodec decoder (load None) or our backend list with a hardware share."""
    from nvidia import nvimgcodec as nv

    if load is None:
        return nv.Decoder()
    policy = nv.LoadHintPolicy.ADAPTIVE_MINIMIZE_IDLE_TIME if adaptive else nv.LoadHintPolicy.FIXED
    return nv.Decoder(
        backends=[
            nv.Backend(nv.BackendKind.HW_GPU_ONLY, load_hint=load, load_hint_policy=policy),
            nv.Backend(nv.BackendKind.GPU_ONLY, load_hint=1.0),
            nv.Backend(nv.BackendKind.HYBRID_CPU_GPU, load_hint=1.0),
        ],
        options=f"nvjpeg_hw_decoder:preallocate_batch_size={BATCH}",
    )


def random_windows(datas: list[np.ndarray]) -> list[tuple[int, int, int, int]]:
    """One random-crop window per image (DALI's generator), for the region-decode rows."""
    from dali._exec.rng import SampleRNG, combine
    from dali._ops.window.random_crop import random_crop_windows
    from nvidia import nvimgcodec as nv

    shapes = []
    for d in datas:
        cs = nv.CodeStream(d)
        shapes.append((cs.height, cs.width))
    anchors, sizes = random_crop_windows(SampleRNG(combine(0, np.arange(len(datas)))), shapes)
    return [(y, x, h, w) for (y, x), (h, w) in zip(anchors.tolist(), sizes.tolist())]


def raw_rate(dec: Any, datas: list[np.ndarray], windows: Any, seconds: float) -> float:
    from nvidia import nvimgcodec as nv

    order = batches(datas)
    state = {"k": 0}

    def step() -> None:
        idx = order[state["k"] % len(order)]
        state["k"] += 1
        if windows is None:
            streams = [nv.CodeStream(datas[i]) for i in idx]
        else:
            streams = []
            for i in idx:
                y, x, h, w = windows[i]
                cs = nv.CodeStream(datas[i])
                streams.append(cs.get_sub_code_stream(region=nv.Region(y, x, y + h, x + w)))
        images = dec.decode(streams)
        assert all(im is not None for im in images)

    return rate(step, BATCH, seconds, warmup=len(order))


def decode_call_profile(datas: list[np.ndarray], windows: Any) -> str:
    """How long one batch decode call blocks, and whether other Python threads run meanwhile."""
    import threading

    from nvidia import nvimgcodec as nv

    dec = raw_decoder(0.65)
    idx = batches(datas)[0]

    def streams() -> list[Any]:
        out = []
        for i in idx:
            y, x, h, w = windows[i]
            cs = nv.CodeStream(datas[i])
            out.append(cs.get_sub_code_stream(region=nv.Region(y, x, y + h, x + w)))
        return out

    for _ in range(3):
        dec.decode(streams())
    sync()
    t0 = time.perf_counter()
    s = streams()
    t1 = time.perf_counter()
    dec.decode(s)
    t2 = time.perf_counter()
    sync()
    t3 = time.perf_counter()

    count = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            count[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    time.sleep(0.05)
    c0, ta = count[0], time.perf_counter()
    time.sleep(0.05)
    idle_rate = (count[0] - c0) / (time.perf_counter() - ta)
    c0, ta = count[0], time.perf_counter()
    dec.decode(s)
    busy_rate = (count[0] - c0) / (time.perf_counter() - ta)
    stop.set()
    th.join()
    sync()
    return (
        f"one batch of {BATCH} region decodes: code streams {1e3 * (t1 - t0):.1f} ms, decode "
        f"call {1e3 * (t2 - t1):.1f} ms, then GPU tail {1e3 * (t3 - t2):.1f} ms; a Python "
        f"thread ran at {busy_rate / max(idle_rate, 1):.0%} of its idle speed during the call "
        "(~100%: the call releases the GIL)"
    )


# -- this library --------------------------------------------------------------------------------


def dali_pipeline(
    root: Path,
    threads: int,
    kind: str,
    depth: int = 2,
    worker: bool = False,
    lib: ModuleType | None = None,
    **dec_kw: Any,
) -> Any:
    """The pipeline ``kind`` ("decode", "crop" or "full": the ResNet-50 pipeline), built with
    ``lib``: this library (default) or NVIDIA DALI, the same code."""
    if lib is None:
        import dali as lib
    fn, types = lib.fn, lib.types
    extra = {"worker_process": True} if worker else {}

    @lib.pipeline_def(
        batch_size=BATCH,
        num_threads=threads,
        device_id=0,
        seed=1,
        prefetch_queue_depth=depth,
        **extra,
    )
    def pipe() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True, name="reader")
        if kind == "decode":
            return fn.decoders.image(jpegs, device="mixed", name="dec", **dec_kw), labels
        images = fn.decoders.image_random_crop(jpegs, device="mixed", name="dec", **dec_kw)
        if kind == "crop":
            return images, labels
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

    p = pipe()
    p.build()
    return p


def dali_rate(pipe: Any, seconds: float, epoch: int) -> tuple[float, dict[str, float]]:
    """The pipeline's rate and its decoder's profile (none in a worker process: the decoder
    that ran is the worker's)."""
    impl = pipe._plan.by_name["dec"].impl
    r = rate(pipe.run, BATCH, seconds, warmup=epoch)
    stats = {} if pipe.worker_pid else dict(impl.mixed.stats)
    return r, stats


def versus_real_dali(root: Path, threads: int, seconds: float, trials: int, epoch: int) -> str:
    """The ResNet-50 pipeline with this library and with NVIDIA DALI's GPU build, in this
    process, at DALI's default ``prefetch_queue_depth`` (2), trials alternating; the table of
    medians (or why there is none)."""
    from _common import load_real_dali

    real = load_real_dali(gpu=True)
    if real is None:
        return "NVIDIA DALI's GPU build is not installed: no row beside it."
    import dali

    libs = {"dali": dali, f"NVIDIA DALI {real.__version__}": real}
    got: dict[str, list[float]] = {name: [] for name in libs}
    for _ in range(trials):
        for name, lib in libs.items():
            pipe = dali_pipeline(root, threads, "full", 2, lib=lib)
            got[name].append(rate(pipe.run, BATCH, seconds, warmup=epoch))
            if hasattr(pipe, "close"):
                pipe.close()
            del pipe
    real_rate = statistics.median(got[f"NVIDIA DALI {real.__version__}"])
    lines = [f"{'ResNet-50 pipeline, prefetch 2':<40}{'img/s':>10}{'vs DALI':>10}  trials"]
    for name, values in got.items():
        m = statistics.median(values)
        trial_text = " ".join(f"{v:.0f}" for v in values)
        lines.append(f"{name:<40}{m:>10.0f}{m / real_rate:>9.2f}x  {trial_text}")
    return "\n".join(lines)


def operator_alone(
    root: Path, threads: int, datas: list[np.ndarray], kind: str, seconds: float
) -> tuple[float, dict[str, float]]:
    """The mixed decoder operator alone on preloaded bytes (no reader, no other operator)."""
    from dali._exec.workspace import BatchMeta, Workspace
    from dali._tensors import TensorListCPU

    pipe = dali_pipeline(root, threads, kind)
    try:
        step_info = pipe._plan.by_name["dec"]
        impl = step_info.impl
        cuda = pipe._cuda
        tls = [TensorListCPU.wrap([datas[i] for i in idx]) for idx in batches(datas)]
        state = {"k": 0}

        def step() -> None:
            k = state["k"]
            state["k"] += 1
            meta = BatchMeta.stream(k * BATCH, BATCH, 0)
            tl = tls[k % len(tls)]
            ws = Workspace(impl, [tl], {}, meta, k, 0, None, step_info.key, None, cuda)
            with cuda.activate():
                impl.run(ws)

        r = rate(step, BATCH, seconds, warmup=len(tls))
        return r, dict(impl.mixed.stats)
    finally:
        pipe.close()


def plan_costs(datas: list[np.ndarray]) -> str:
    """Microseconds per sample of each piece of the decoder's host work (one thread, no GIL war)."""
    from dali._exec.rng import SampleRNG, combine
    from dali._ops.decoders.nvimgcodec import mixed as _nvimgcodec
    from dali._ops.window.random_crop import random_crop_windows
    from nvidia import nvimgcodec as nv

    sample = datas[:BATCH]
    rng = SampleRNG(combine(7, np.arange(BATCH)))
    infos = [_nvimgcodec.jpeg_info(d) for d in sample]
    shapes = [(f.height, f.width) for f in infos]
    css = [nv.CodeStream(d) for d in sample]
    anchors, sizes = random_crop_windows(rng, shapes)
    wins = [(y, x, h, w) for (y, x), (h, w) in zip(anchors.tolist(), sizes.tolist())]
    pieces = {
        "jpeg_info": lambda: [_nvimgcodec.jpeg_info(d) for d in sample],
        "random_crop_windows (one call per batch)": lambda: random_crop_windows(rng, shapes),
        "CodeStream(data)": lambda: [nv.CodeStream(d) for d in sample],
        "get_sub_code_stream": lambda: [
            c.get_sub_code_stream(region=nv.Region(y, x, y + h, x + w))
            for c, (y, x, h, w) in zip(css, wins)
        ],
    }
    out = []
    for name, fn in pieces.items():
        fn()
        t0 = time.perf_counter()
        for _ in range(5):
            fn()
        out.append(f"{name} {1e6 * (time.perf_counter() - t0) / (5 * BATCH):.1f}")
    return "host work per sample (us): " + ", ".join(out)


def reader_rate(root: Path, threads: int, seconds: float) -> float:
    """The CPU stage alone: readers.file(random_shuffle=True), no GPU work."""
    from dali import fn, pipeline_def

    @pipeline_def(batch_size=BATCH, num_threads=threads, device_id=None, seed=1)
    def pipe() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(root), random_shuffle=True)
        return jpegs, labels

    p = pipe()
    p.build()
    for _ in range(4):
        p.run()
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        p.run()
        n += 1
    return n * BATCH / (time.perf_counter() - t0)


def memory_over_epochs(pipe: Any, epochs: int, per_epoch: int) -> dict[str, Any]:
    import cupy

    used, held, device_used = [], [], []
    for _ in range(epochs):
        for _ in range(per_epoch):
            out = pipe.run()
        del out
        sync()
        stats = pipe.memory_stats()
        used.append(stats["device_used_bytes"])
        held.append(stats["device_total_bytes"])
        free, total = cupy.cuda.runtime.memGetInfo()
        device_used.append(total - free)
    mib = 1 << 20
    return {
        "pool_used_first_MiB": used[0] / mib,
        "pool_used_peak_MiB": max(used) / mib,
        "pool_used_final_MiB": used[-1] / mib,
        # what the pipeline's pool holds (in use or cached for reuse)
        "pool_held_per_epoch_MiB": [round(v / mib) for v in held],
        "device_used_first_MiB": device_used[0] / mib,
        "device_used_peak_MiB": max(device_used) / mib,
        "device_used_final_MiB": device_used[-1] / mib,
        # per epoch, so that a plateau (in-flight iterations) reads apart from a leak
        "device_used_per_epoch_MiB": [round(v / mib) for v in device_used],
    }


# -- torchvision ---------------------------------------------------------------------------------


def torch_rate(files: list[Path], threads: int, seconds: float, full: bool) -> float:
    import torch
    import torch.nn.functional as F
    import torchvision
    from torchvision.io import decode_jpeg
    from torchvision.transforms import RandomResizedCrop

    dev = torch.device("cuda")
    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    inv_std = 1.0 / torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    pool = ThreadPoolExecutor(threads)
    order = list(range(len(files)))
    rng = np.random.default_rng(0)
    state = {"k": 0}

    def read(path: Path) -> Any:
        return torchvision.io.read_file(str(path))

    def step() -> None:
        k = state["k"]
        if (k + 1) * BATCH > len(order):
            rng.shuffle(order)
            state["k"] = k = 0
        state["k"] += 1
        paths = [files[i] for i in order[k * BATCH : (k + 1) * BATCH]]
        datas = list(pool.map(read, paths))
        images = decode_jpeg(datas, device=dev)
        if not full:
            return
        crops = []
        for img in images:
            i, j, h, w = RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))
            crop = img[None, :, i : i + h, j : j + w].float()
            crops.append(F.interpolate(crop, size=(224, 224), mode="bilinear", antialias=True))
        batch = (torch.cat(crops) - mean) * inv_std
        flip = torch.rand(len(crops), device=dev) < 0.5
        batch = torch.where(flip.view(-1, 1, 1, 1), batch.flip(-1), batch)
        batch.half()

    r = rate(step, BATCH, seconds, warmup=4)
    pool.shutdown()
    return r


# -- main ----------------------------------------------------------------------------------------


def gpu_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def attempt(label: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - a row that cannot run is reported, not fatal
        print(f"  [{label}] did not run: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        if os.environ.get("DALI_BENCH_TRACEBACK"):
            traceback.print_exc()
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=2048)
    parser.add_argument("--root", default=os.path.join(tempfile.gettempdir(), "dali_imagenet"))
    parser.add_argument("--threads", type=int, default=min(12, os.cpu_count() or 1))
    parser.add_argument("--seconds", type=float, default=4.0, help="timed seconds per row")
    parser.add_argument("--sweep", action="store_true", help="measure hw_decoder_load values")
    parser.add_argument("--loads", default="0,0.5,0.65,0.8,0.9,1", help="loads for --sweep")
    parser.add_argument("--epochs-memory", type=int, default=0, help="GPU memory over N epochs")
    parser.add_argument(
        "--depths",
        default="2,4,8",
        help="prefetch_queue_depth values of the pipeline rows (2: DALI's default)",
    )
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument(
        "--detail", type=float, default=1.0, help="texture of the JPEGs: 1 ~84 KB, 0.2 ~36 KB"
    )
    parser.add_argument(
        "--worker", action="store_true", help="also the pipeline in a worker process"
    )
    parser.add_argument(
        "--versus",
        type=int,
        default=0,
        metavar="TRIALS",
        help="only the ResNet-50 pipeline beside NVIDIA DALI's GPU build, TRIALS alternating",
    )
    args = parser.parse_args()

    from dali import _options as options
    from dali._testing.images import make_imagenet_like

    root = Path(args.root)
    t0 = time.perf_counter()
    files = make_imagenet_like(
        root, args.images, seed=0, processes=os.cpu_count(), detail=args.detail
    )
    datas = [np.fromfile(f, dtype=np.uint8) for f in files]
    sizes = [d.size for d in datas]
    print(
        f"{len(files)} ImageNet-like JPEGs in {root} ({time.perf_counter() - t0:.0f} s), "
        f"mean {statistics.mean(sizes) / 1e3:.0f} KB; GPU: {gpu_name()}; "
        f"{os.cpu_count()} CPU cores; batch {BATCH}; {args.threads} threads"
    )
    windows = random_windows(datas)
    secs = args.seconds
    per_epoch = len(files) // BATCH
    if args.versus:
        print(versus_real_dali(root, args.threads, secs, args.versus, per_epoch))
        return

    if args.sweep:
        print(attempt("decode call", lambda: decode_call_profile(datas, windows)))

        def sweep() -> None:
            print("\nhw_decoder_load sweep (raw batch decode, our backend list), img/s:")
            print(f"{'load':>22}{'full image':>14}{'random window':>16}")
            for load in (float(v) for v in args.loads.split(",")):
                dec = raw_decoder(load)
                full = raw_rate(dec, datas, None, secs)
                roi = raw_rate(dec, datas, windows, secs)
                print(f"{load:>22.2f}{full:>14.0f}{roi:>16.0f}")
            for load in (0.9,):
                dec = raw_decoder(load, adaptive=True)
                full = raw_rate(dec, datas, None, secs / 2)
                roi = raw_rate(dec, datas, windows, secs / 2)
                print(f"{f'adaptive from {load}':>22}{full:>14.0f}{roi:>16.0f}")

        attempt("sweep", sweep)

    print(attempt("plan costs", lambda: plan_costs(datas)))
    print("\nthe mixed decoder operator alone (preloaded bytes, no reader), img/s:")
    alone: dict[str, float | None] = {}
    for kind, name in (("decode", "decoders.image"), ("crop", "image_random_crop")):
        got = attempt(
            f"alone {kind}",
            lambda kind=kind: operator_alone(root, args.threads, datas, kind, secs),
        )
        alone[kind] = None if got is None else got[0]
        if got is not None:
            r, st = got
            b = max(st["batches"], 1)
            print(
                f"  {name:<18} {r:>6.0f}; ms/batch plan {1e3 * st['plan'] / b:.2f}, decode "
                f"wait {1e3 * st['decode'] / b:.2f}, convert {1e3 * st['convert'] / b:.2f}"
            )

    rows: list[tuple[str, float | None]] = []
    ceiling = attempt("raw", lambda: raw_rate(raw_decoder(None), datas, None, secs))
    rows.append(("raw nvImageCodec batch decode (ceiling)", ceiling))
    load = options.DEFAULT_HW_LOAD
    rows.append(
        (
            f"raw nvImageCodec region decode, load {load}",
            attempt("raw roi", lambda: raw_rate(raw_decoder(load), datas, windows, secs)),
        )
    )
    rows.append(("dali decoders.image mixed, operator alone", alone.get("decode")))
    rows.append(("dali image_random_crop mixed, operator alone", alone.get("crop")))
    rows.append(
        (
            "dali readers.file alone (CPU stage)",
            attempt("reader", lambda: reader_rate(root, args.threads, secs)),
        )
    )
    profiles: dict[str, dict[str, float]] = {}
    depths = [int(d) for d in args.depths.split(",")]
    for kind, label in (
        ("decode", "dali file -> decoders.image mixed"),
        ("crop", "dali file -> image_random_crop mixed"),
        ("full", "dali ResNet-50 pipeline (fp16 NCHW)"),
    ):
        for depth in depths:

            def one(kind: str = kind, depth: int = depth) -> float:
                pipe = dali_pipeline(root, args.threads, kind, depth)
                r, stats = dali_rate(pipe, secs, per_epoch)
                profiles[f"{kind}, prefetch {depth}"] = stats
                pipe.close()
                return r

            name = f"{label}, prefetch {depth}"
            rows.append((name, attempt(name, one)))
    if args.worker:
        for depth in depths:

            def in_worker(depth: int = depth) -> float:
                pipe = dali_pipeline(root, args.threads, "full", depth, worker=True)
                r, _ = dali_rate(pipe, secs, per_epoch)
                pipe.close()
                return r

            name = f"dali ResNet-50 pipeline, worker process, prefetch {depth}"
            rows.append((name, attempt(name, in_worker)))
    if not args.skip_torch:
        rows.append(
            (
                "torchvision decode_jpeg cuda (batched)",
                attempt("tv", lambda: torch_rate(files, args.threads, secs, False)),
            )
        )
        rows.append(
            (
                "torchvision ResNet-50 pipeline (fp16)",
                attempt("tv full", lambda: torch_rate(files, args.threads, secs, True)),
            )
        )

    print(f"\nGPU ResNet-50 input pipeline, {gpu_name()}, batch {BATCH}, {len(files)} JPEGs")
    print(f"{'row':<58}{'img/s':>10}{'vs ceiling':>12}")
    for name, value in rows:
        if value is None:
            print(f"{name:<58}{'n/a':>10}")
            continue
        ratio = f"{value / ceiling:.2f}x" if ceiling else ""
        print(f"{name:<58}{value:>10.0f}{ratio:>12}")
    for kind, stats in profiles.items():
        if not stats:
            continue
        b = max(stats["batches"], 1)
        print(
            f"profile [{kind}] ms/batch in the decoder: plan {1e3 * stats['plan'] / b:.2f}, "
            f"waiting for the decode {1e3 * stats['decode'] / b:.2f} ({stats['ahead']:.0f} "
            f"batches started ahead, each decode call "
            f"{1e3 * stats['decode_call'] / max(stats['ahead'], 1):.2f}), CPU fallback "
            f"{1e3 * stats['cpu'] / b:.2f}, convert {1e3 * stats['convert'] / b:.2f}; "
            f"GPU samples {stats['gpu']:.0f}, CPU samples {stats['cpu_samples']:.0f}"
        )
    if args.epochs_memory:

        def memory() -> dict[str, Any]:
            pipe = dali_pipeline(root, args.threads, "full", max(depths))
            try:
                return memory_over_epochs(pipe, args.epochs_memory, per_epoch)
            finally:
                pipe.close()

        mem = attempt("memory full", memory)
        if mem is None:

            def memory_crop() -> dict[str, Any]:
                pipe = dali_pipeline(root, args.threads, "crop")
                try:
                    return memory_over_epochs(pipe, args.epochs_memory, per_epoch)
                finally:
                    pipe.close()

            mem = attempt("memory crop", memory_crop)
        if mem is not None:
            print(
                f"GPU memory over {args.epochs_memory} epochs: "
                + ", ".join(
                    f"{k} {v}" if isinstance(v, list) else f"{k} {v:.0f}" for k, v in mem.items()
                )
            )


if __name__ == "__main__":
    main()
