"""Every tuning knob of the library, in one place, each with the reason for its value.

These are not user options (DALI has no such arguments): they are the decisions the measurements
in ``benchmarks/RESULTS.md`` led to, gathered so that a reader finds every one of them here
rather than as constants scattered over the modules that use them. Code reads them at the time
of use (``options.READ_AHEAD``, not ``from dali._options import READ_AHEAD``), so that a test or
a benchmark can change one with ``monkeypatch.setattr(options, "READ_AHEAD", 1)``.

Each entry says what it controls, its value's reason in a line, and where the numbers behind it
are (a section of ``benchmarks/RESULTS.md``).

Example:
    >>> from dali import _options as options
    >>> options.HELD_ELEMENTS
    500
"""

from __future__ import annotations

import os

__all__ = [
    "CALL_SAMPLES",
    "CONVOLUTION_KERNEL",
    "DECODER_STREAMS",
    "DEFAULT_HW_LOAD",
    "HELD_CUDA",
    "HELD_ELEMENTS",
    "JOIN_TIMEOUT",
    "MAX_CALL",
    "MMAP_MIN_BYTES",
    "ONE_THREAD_MACS",
    "PARALLEL_DECODES",
    "POOL_DEPTH_PER_WORKER",
    "POOL_MIN_THREADS",
    "PREFETCH_BYTES",
    "READ_AHEAD",
    "READ_PROCESSES",
    "READ_THREADS",
    "READ_WORKER",
    "REMOTE_COALESCE_BYTES",
    "REMOTE_PART_BYTES",
    "REMOTE_PREFETCH_BYTES",
    "REMOTE_PREFETCH_SECONDS",
    "REMOTE_REQUESTS",
    "ROI_GAP_BYTES",
    "ROI_MAX_EXTENTS",
    "ROI_REMOTE_GAP_BYTES",
    "SOURCE_STAGE",
    "STAGE_WORKER_SHARE",
    "VIDEO_CONVERT_BATCH",
    "VIDEO_DECODE_AHEAD",
    "VIDEO_DECODE_AHEAD_BYTES",
    "VIDEO_DECODE_AHEAD_RUNS",
    "WALK_HEADERS",
    "WORKER_EXTRA_DEPTH",
    "WORKER_PROCESS_PIPELINES",
]

# -- the executor (dali._exec) -----------------------------------------------------------------

#: Whether CPU-only pipelines run their readers and sources on a thread of their own, ahead of
#: the operators (`dali._exec.stages.split_sources`): the pool waits less for the reader.
#: RESULTS.md "Source stage".
SOURCE_STAGE = True

#: Seconds to wait for one pipeline's threads, or for the closing thread, to stop
#: (`dali._exec.closer`): long enough for any batch in progress, short enough not to hang exit.
JOIN_TIMEOUT = 60.0

#: The most elements a numpy operation may cover and keep the GIL (numpy's
#: ``NPY_BEGIN_THREADS_THRESHOLDED``); per-batch arithmetic on the stage threads works in blocks
#: of this size (`dali._exec.gil`). RESULTS.md "GIL-held numpy".
HELD_ELEMENTS = 500

#: Whether short CUDA calls (staging copies, events, their queries, kernel launches) go
#: through the driver with the GIL held (`dali._exec.held`) rather than CuPy's calls, which give
#: it up and wait to take it back. RESULTS.md "GIL-held CUDA calls".
HELD_CUDA = True

# -- readers.file (dali._ops.readers) ----------------------------------------------------------

#: Files of this size or more are memory-mapped instead of read: below it, mapping and
#: unmapping costs more GIL time than the copy. RESULTS.md "Reading files".
MMAP_MIN_BYTES = 1 << 20

#: From how many GPU pipelines on a framework iterator each runs in a worker process of its own
#: (`dali._exec.process`; None: never): their host work shares no GIL then. Two pipelines in
#: one process ran at 0.98x one; in worker processes at ~2x. RESULTS.md "One process, several
#: GPUs".
WORKER_PROCESS_PIPELINES: int | None = 2

#: How many iterations more than ``prefetch_queue_depth`` a pipeline in a worker process keeps
#: in flight: the one on its way to the consumer, whose next request comes a round trip later.
#: Two GPUs at depth 2: 1.71x one GPU; with one more, 2.06x. RESULTS.md "One process, several
#: GPUs".
WORKER_EXTRA_DEPTH = 1

#: From how many threads (``num_threads``, and usable cores) a CPU pipeline runs on worker
#: processes instead of threads (`dali._exec.process.pool`, ``Pipeline.cpu_workers``): one
#: interpreter lock holds threads to a few cores, and processes cost a start (~1 s each, in
#: parallel) and a copy of each batch into shared memory. RESULTS.md "CPU pipelines on many
#: cores".
POOL_MIN_THREADS = 4

#: The share of the usable cores a GPU pipeline's CPU-stage worker processes take at most
#: (``Pipeline.cpu_workers``): the GPU's process keeps the rest busy (the mixed and GPU stages'
#: host work, the decoders' threads, the readers). On the 16-core H200 host the SSD pipeline
#: gave 9,299 img/s with 8 workers, 7,671 with 12 and 7,191 with 16. RESULTS.md "SSD".
STAGE_WORKER_SHARE = 0.5

#: Iterations each CPU worker process keeps in flight beyond the pipeline's
#: ``prefetch_queue_depth``: one, so that a worker starts its next batch while the consumer
#: takes the last one. RESULTS.md "CPU pipelines on many cores".
POOL_DEPTH_PER_WORKER = 1

#: At most this many threads read the files of one batch: one, like DALI's file loader, since
#: a pool of threads mostly queues for the GIL. RESULTS.md "Reading files".
READ_THREADS = 1

#: Whether worker processes read the files (`dali._ops.readers.storage.read_worker`; no GIL time in
#: this process): True, False, or None for "where it pays and the platform allows it" (Linux,
#: pipelines with a ``device_id``). RESULTS.md "Read worker processes".
READ_WORKER: bool | None = None

#: How many worker processes read one batch, when `READ_WORKER`: each copies its files into
#: fresh memory, so one caps the pipeline; a quarter of the cores, up to four.
#: RESULTS.md "Read worker processes".
READ_PROCESSES = max(1, min(4, (os.cpu_count() or 1) // 4))

#: How many batches the worker processes are asked for ahead of the one being read: with two,
#: reading one batch overlaps mapping the last. RESULTS.md "Read worker processes".
READ_AHEAD = 2

#: Whether the worker processes also walk each file's JPEG markers, so that the GPU decoders'
#: planning does not walk them with the GIL held. RESULTS.md "Read worker processes".
WALK_HEADERS = True

# -- decoders (dali._ops.decoders) -------------------------------------------------------------

#: Samples per nvImageCodec call of the CPU decoder: small calls taken by the pool's threads as
#: they finish keep the threads equally busy. RESULTS.md "CPU JPEG decoding".
CALL_SAMPLES = 8

#: Samples per nvImageCodec call of the GPU decoder's C binding: its vectorised host side keeps
#: the GIL below `HELD_ELEMENTS`-sized arrays. RESULTS.md "GPU JPEG decoding".
MAX_CALL = 256

#: The separable convolutions (gaussian_blur, laplacian) on the GPU: one kernel launch per
#: axis rather than two CuPy expressions per tap, with the same values: 2.7x on 32 224x224
#: images. RESULTS.md "Filters and colour on the GPU beside raw CuPy".
CONVOLUTION_KERNEL = True

#: GPU decoders per operator, each a GIL-free nvImageCodec call at a time: concurrent decoders
#: fill the host gaps of one; two of six threads were ahead of three of four on the H200 host.
#: RESULTS.md "GPU JPEG decoding", "Where the ResNet-50 pipeline's time goes".
PARALLEL_DECODES = 2

#: Each of those decoders decodes on a CUDA stream of its own, joined to the pipeline's stream
#: by an event before the decode and a host wait after it, instead of on the pipeline's one
#: stream, where a decode's GPU work is ordered after every decode and kernel queued before it
#: (the in-flight batches of the other decoders among them). Off: on the H200 host it gained
#: nothing on the ResNet-50 rows and cost the SSD pipeline 3-13 % (RESULTS.md "Decoder streams
#: measured, and where the SSD pipeline's time goes").
DECODER_STREAMS = False

#: ``hw_decoder_load`` used when the argument is not given: the share of each batch's JPEGs that
#: goes to the hardware decoder (``benchmarks/gpu_resnet.py --sweep``). RESULTS.md "GPU JPEG
#: decoding".
DEFAULT_HW_LOAD = 0.9

# -- video (dali._ops.video) -------------------------------------------------------------------

#: Decoded frames the CPU video decoder converts to RGB in one call of its compiled kernel,
#: which gives the GIL up (`dali._ops.video._decode_cpu.CpuDecoder.decode_into`): a call per
#: frame held the GIL ~16 us a frame, a call per 8 ~5 us. RESULTS.md "Video".
VIDEO_CONVERT_BATCH = 8

#: The fewest batches after the one being read that the video readers decode ahead, on threads
#: of their own (`dali._ops.video._ahead`; 0: none, each batch decoded when it is read): a
#: batch of consecutive sequences comes from one or two files, whose frames decode in order,
#: so only the next batches' files keep the other decoders busy. Memory: each batch ahead holds
#: its decoded frames, on the CPU as RGB (a batch of 8 sequences of 16 720p frames: 354 MB), on
#: the GPU as NV12 (half that, in the pipeline's device memory pool). RESULTS.md "Video".
VIDEO_DECODE_AHEAD = 2

#: Past ``VIDEO_DECODE_AHEAD`` batches, the window ahead grows batch by batch until its runs
#: (a decoder's stretch of one file) give each decoding thread this many
#: (`dali._ops.video._clips.window_ahead`): a batch of consecutive sequences is a few runs, so
#: a window counted in batches leaves most threads of a many-core host idle.
VIDEO_DECODE_AHEAD_RUNS = 2

#: ... and while the decoded frames of the batches ahead stay within this many bytes.
VIDEO_DECODE_AHEAD_BYTES = 2 << 30

# -- image kernels (dali._ops.image) -----------------------------------------------------------

#: Cold sources from this size on are read in order before `transpose_hw` transposes them
#: (a sequential pass warms the cache for the strided one).
PREFETCH_BYTES = 32 << 10

#: The most multiply-adds (``M·N·K``) of one banded-BLAS resampling product: OpenBLAS goes
#: multi-threaded above 4 × 65536 (``GEMM_MULTITHREAD_THRESHOLD``), and the pipeline's threads
#: already fill the cores, so wider products are cut into column chunks below it.
ONE_THREAD_MACS = 4 * 65536 - 1

# -- object storage (dali._ops.readers.storage.remote) ------------------------------------------------

#: Ranges of one object at most this far apart are fetched as one request, the gap read and
#: dropped: a request costs a round trip of tens of ms, 256 KiB about 3 ms at 100 MB/s (the
#: records of a TFRecord file and the members of a tar shard are 16 and 512 bytes apart).
#: RESULTS.md "Object storage".
REMOTE_COALESCE_BYTES = 256 << 10

#: The largest request: longer spans are fetched as parts of this size in parallel (one stream
#: from S3 tops out near 100 MB/s; AWS advises 8–16 MB byte-range requests).
REMOTE_PART_BYTES = 8 << 20

#: Requests in flight at once, and the size of S3's connection pool (botocore's default of 10
#: would queue a batch of 256 small objects in 26 round trips). RESULTS.md "Object storage".
REMOTE_REQUESTS = 64

#: The memory the read-ahead of remote extents may hold: a few batches of 256 ImageNet JPEGs
#: (~28 MB each) for every reader of a process; beyond it the oldest entries go (0: no
#: read-ahead). RESULTS.md "Object storage".
REMOTE_PREFETCH_BYTES = 256 << 20

#: Extents read ahead and not read within this many seconds are dropped: the guess was wrong
#: (a seek, a restored checkpoint) or the reader is gone.
REMOTE_PREFETCH_SECONDS = 60.0

# -- readers.numpy (dali._ops.readers.numpy.box) ------------------------------------------------

#: `readers.numpy` ROI reads (`_ops/readers/numpy/box.py`), local files: two runs closer than this are read as one range, gap included. Measured on the
#: 2-core machine (page cache, 64-128 MiB float32 arrays): one more ``read_range`` (open, fstat,
#: pread, close and the Python around them) costs ~9 µs; one covering range won for gaps up to
#: 16 KiB (1024 runs of 64 B-24 KiB: 5.8-9.2 ms against 9.7-17 ms; 128 runs of 496 KiB: 40 ms
#: against 47 ms), one extent per run from 32 KiB on for large runs (128 runs of 480 KiB: 30 ms
#: against 45 ms; of 384 KiB with 128 KiB gaps: 18 ms against 32 ms).
ROI_GAP_BYTES = 32 << 10

#: The same for URLs: one request costs tens of milliseconds, several MiB of transfer.
ROI_REMOTE_GAP_BYTES = 8 << 20

#: The most extents one ROI sample is read in (~9 ms of overhead at ~9 µs each): past that the plan
#: moves to a coarser level.
ROI_MAX_EXTENTS = 1024
