"""Readers on object storage: images/s from an S3 server against local disk, in the same run.

One ImageNet-like JPEG set (``dali._testing.images.make_imagenet_like``, ``--images`` of them,
shorter side 300–500 px) is written three ways, the same images each time: a class tree for
``readers.file``, TFRecord files with DALI index files for ``readers.tfrecord``
(``dali._testing.tfrecords``), and tar shards with index files for ``readers.webdataset``. Each
is uploaded to a real S3-protocol server (moto, ``tests/core/ops/readers/s3_server.py``) in a
process of its own on localhost, and every reader reads it from ``s3://`` and from disk:

* ``local``: the files on disk (the page cache: warm after the first epoch);
* ``s3``: the server as it is, a localhost round trip (~1-3 ms of moto's own work per request);
* ``s3 +L ms``: the server waits ``--latency-ms`` before answering each request (a per-request
  sleep on its own thread, so concurrent requests wait concurrently). It models the time to
  first byte of object storage, not a bandwidth limit, TCP slow start or throttling;
* ``s3 +L ms, no read-ahead``: the same without `_storage.prefetch` doing anything
  (``options.REMOTE_PREFETCH_BYTES = 0``): what read-ahead buys;
* ``s3 +L ms, one request at a time``: also without concurrent requests
  (``options.REMOTE_REQUESTS = 1``): what reading a batch's objects at once buys
  (``readers.file`` only: the container readers coalesce a batch into a request or two).

Each pipeline is the reader alone (the bytes; ``--decode`` adds ``decoders.image`` on the CPU),
batch ``--batch``, ``num_threads=2``, CPU only, default prefetching; it is built (the listing is
not timed), warmed up, then whole epochs are timed; the median over ``--repeats`` is reported
with the ratio to ``local`` and the server's requests per epoch. The server runs in its own
process, so its CPU time competes with the pipeline's for the machine's cores but not for the
GIL; on the 2-core development machine that makes ``s3`` rows a lower bound.

Run: ``python benchmarks/remote_read.py [--images 256] [--batch 32] [--latency-ms 10]``
(needs ``pip install "moto[server]" s3fs``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dali
from _common import print_columns
from dali import _options as options
from dali import fn
from dali._testing.images import make_imagenet_like

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "core" / "ops" / "readers"))
import s3_server

BUCKET = "bench"


# -- the datasets ---------------------------------------------------------------------------


def make_sets(root: Path, n: int) -> dict[str, Any]:
    """The three layouts of the same ``n`` JPEGs under ``root`` (cached between runs)."""
    from dali._testing.tfrecords import make_imagenet_tfrecords
    from dali._testing.webdataset import write_tar
    from dali.tools.wds2idx import write_index

    t0 = time.perf_counter()
    jpegs = make_imagenet_like(root / "files", n, seed=0)
    records, indexes = make_imagenet_tfrecords(
        root / "tfrecord", n, files=4, seed=0, imagenet_size=True
    )
    shards = 4
    tars, tar_indexes = [], []
    for s in range(shards):
        tar = root / "wds" / f"shard-{s:06d}.tar"
        idx = root / "wds" / f"shard-{s:06d}.idx"
        members = range(s * n // shards, (s + 1) * n // shards)
        if not (tar.exists() and idx.exists()):
            entries = []
            for i in members:
                entries += [
                    (f"{i:06d}.jpg", jpegs[i].read_bytes()),
                    (f"{i:06d}.cls", str(i % 10).encode()),
                ]
            write_tar(tar, entries)
            write_index(str(tar), str(idx))
        tars.append(tar)
        tar_indexes.append(idx)
    took = time.perf_counter() - t0
    if took > 1:
        print(f"wrote the data sets in {root} ({took:.0f} s, cached)")
    rel = lambda paths: [p.relative_to(root).as_posix() for p in paths]
    return {
        "files": "files",
        "tfrecord": (rel(records), rel(indexes)),
        "webdataset": (rel(tars), rel(tar_indexes)),
    }


def _tfrecord_features() -> dict[str, Any]:
    import dali.tfrecord as tfrec

    return {
        "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
        "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    }


def readers(sets: dict[str, Any]) -> dict[str, Callable[[str], Any]]:
    """Reader name -> a function of the base (local folder or ``s3://`` URL) giving the image
    output of the reader (graph code)."""
    records, indexes = sets["tfrecord"]
    tars, tar_indexes = sets["webdataset"]
    return {
        "readers.file": lambda base: fn.readers.file(
            file_root=f"{base}/{sets['files']}", name="Reader"
        )[0],
        "readers.tfrecord": lambda base: fn.readers.tfrecord(
            path=[f"{base}/{p}" for p in records],
            index_path=[f"{base}/{p}" for p in indexes],
            features=_tfrecord_features(),
            name="Reader",
        )["image/encoded"],
        "readers.webdataset": lambda base: fn.readers.webdataset(
            paths=[f"{base}/{p}" for p in tars],
            index_paths=[f"{base}/{p}" for p in tar_indexes],
            ext=["jpg", "cls"],
            name="Reader",
        )[0],
    }


# -- the server -----------------------------------------------------------------------------


@contextlib.contextmanager
def server_process() -> Iterator[str]:
    """The S3 server in a process of its own; its endpoint."""
    proc = subprocess.Popen(
        [sys.executable, s3_server.__file__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        endpoint = proc.stdout.readline().strip()
        if not endpoint.startswith("http"):
            raise RuntimeError(f"the S3 server did not start (it printed {endpoint!r})")
        yield endpoint
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # it stops when its input closes
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _forget_clients() -> None:
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


# -- timing ---------------------------------------------------------------------------------


def images_per_second(
    graph: Callable[[], Any], n: int, args: argparse.Namespace, count: Callable[[], int]
) -> tuple[float, float, float]:
    """Medians over ``--repeats`` samples of ``--epochs`` epochs: images/s, this process's CPU
    ms per image (all its threads: the pipeline's, fsspec's event loop), and the server's
    requests per epoch (``count`` reads its counter)."""
    pipe = dali.Pipeline(batch_size=args.batch, num_threads=2, device_id=None, seed=1)
    with pipe:
        images = graph()
        if args.decode:
            images = fn.decoders.image(images, device="cpu")
        pipe.set_outputs(images)
    pipe.build()
    iterations = max(1, n // args.batch) * args.epochs
    for _ in range(args.warmup):
        pipe.run()
    rates, cpu, requests = [], [], []
    for _ in range(args.repeats):
        before = count()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iterations):
            pipe.run()
        took, used = time.perf_counter() - t0, time.process_time() - c0
        requests.append((count() - before) / args.epochs)
        rates.append(iterations * args.batch / took)
        cpu.append(1e3 * used / (iterations * args.batch))
    pipe.close()
    return statistics.median(rates), statistics.median(cpu), statistics.median(requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=20.0, help="added per request")
    parser.add_argument("--epochs", type=int, default=1, help="epochs per timed sample")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2, help="iterations before timing")
    parser.add_argument("--decode", action="store_true", help="add decoders.image (CPU)")
    parser.add_argument("--readers", default="file,tfrecord,webdataset")
    parser.add_argument("--root", default=None, help="where the sets are written and cached")
    args = parser.parse_args()
    missing = s3_server.missing()
    if missing:
        parser.exit(1, missing + "\n")

    root = Path(args.root or Path(tempfile.gettempdir()) / "dali-bench-remote")
    sets = make_sets(root, args.images)
    wanted = {f"readers.{r.strip()}" for r in args.readers.split(",")}
    graphs = {k: v for k, v in readers(sets).items() if k in wanted}
    latency = args.latency_ms / 1000

    with server_process() as endpoint:
        os.environ.update(s3_server.environ(endpoint))
        os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN"):
            os.environ.pop(name, None)
        t0 = time.perf_counter()
        uploaded = s3_server.upload(endpoint, BUCKET, root, "")
        print(f"uploaded {uploaded} files to s3://{BUCKET} ({time.perf_counter() - t0:.0f} s)")
        base = f"s3://{BUCKET}"

        def count() -> int:
            return s3_server.requests_served(endpoint)

        settings: list[tuple[str, str, float, dict[str, Any]]] = [
            ("local", str(root), 0.0, {}),
            ("s3", base, 0.0, {}),
            (f"s3 +{args.latency_ms:g} ms", base, latency, {}),
            (
                f"s3 +{args.latency_ms:g} ms, no read-ahead",
                base,
                latency,
                {"REMOTE_PREFETCH_BYTES": 0},
            ),
            (
                f"s3 +{args.latency_ms:g} ms, one request at a time",
                base,
                latency,
                {"REMOTE_PREFETCH_BYTES": 0, "REMOTE_REQUESTS": 1},
            ),
        ]
        for reader, graph in graphs.items():
            rows = []
            local_rate = None
            for label, where, delay, knobs in settings:
                if "one request" in label and reader != "readers.file":
                    continue
                saved = {k: getattr(options, k) for k in knobs}
                for k, v in knobs.items():
                    setattr(options, k, v)
                _forget_clients()  # (the connection pool is sized when a client is made)
                s3_server.set_latency(endpoint, delay)
                try:
                    rate, cpu, requests = images_per_second(
                        lambda graph=graph, where=where: graph(where),
                        args.images,
                        args,
                        count if where != str(root) else lambda: 0,
                    )
                finally:
                    for k, v in saved.items():
                        setattr(options, k, v)
                    s3_server.set_latency(endpoint, 0.0)
                local_rate = local_rate or rate
                rows.append(
                    [
                        label,
                        f"{rate:,.0f}",
                        f"{rate / local_rate:.2f}x",
                        f"{cpu:.2f}",
                        f"{requests:,.0f}",
                    ]
                )
            what = " + decoders.image" if args.decode else " (bytes)"
            print_columns(
                f"{reader}{what}, {args.images} images, batch {args.batch}",
                ["source", "img/s", "vs local", "CPU ms/img", "requests/epoch"],
                rows,
            )


if __name__ == "__main__":
    main()
