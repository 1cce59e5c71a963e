"""The mixed (GPU) backend of the image decoders: nvImageCodec batch decoding into device memory.

A batch is decoded with **one** nvImageCodec decode call (`_nvimgcodec_c.MAX_CALL` samples at
most per call), made through its C API (`_nvimgcodec_c`, ctypes) so that the call runs without
the GIL. In a pipelined executor the CPU stage hands each batch, as soon as it has it, to the
next free of the operator's `options.PARALLEL_DECODES` decoders (`prepare`, `MixedDecoder.submit`),
whose worker thread plans and decodes it while the CPU stage reads the next batch, so that
several batches decode at once; `run_mixed` then only collects the result and converts.
Otherwise `run_mixed` does every step itself, the decode cut into parts on the thread pool.

1. **Plan (host, `plan_batch`).** Each sample's JPEG header is read (`jpeg_info`, a fast
   walk over the markers that falls back to the CPU backend's exact parser), its display size
   worked out (EXIF orientations 5–8 swap height and width) and its window chosen with the
   *same* window functions as the CPU backend (`image.py`: crop, slice, and the random windows,
   computed for the whole batch in one vectorised call from these sizes, as the CPU backend
   computes them from the same headers), so CPU and mixed cut the same windows. The part of the
   window inside the image becomes an nvImageCodec region in display coordinates, which
   nvImageCodec applies after the EXIF orientation.
2. **Decode (GPU).** Baseline/extended/progressive 8-bit JPEGs with 1 or 3 components go to
   nvImageCodec's GPU backends in one call, straight into one device buffer of ours (from the
   pipeline's pool, each image interleaved and unpadded): the hardware JPEG decoder (the NVJPG
   engines of A100/H100-class GPUs) takes a share ``hw_decoder_load`` of the batch, CUDA nvJPEG
   the rest and the hybrid backend what neither can take. The work is ordered on the pipeline's
   CUDA stream (``ws.stream`` when the executor provides one, else CuPy's current stream), or,
   with `options.DECODER_STREAMS`, on the decoder's own stream, joined to the pipeline's by an
   event before and a host wait after (`MixedDecoder.side`).
3. **Fallback (CPU, thread pool).** Every other image — PNG, TIFF, WebP, BMP, PNM, JPEG 2000,
   CMYK/YCCK, 12-bit or lossless JPEG, truncated or corrupt data, zero-size windows, and any
   image nvImageCodec reports it could not decode — is decoded by the CPU backend's own
   per-sample function (`ImageDecoderBase.cpu_sample`) and copied to the device. Its pixels, its
   errors (naming the file) and ``on_error="skip"`` are therefore exactly the CPU backend's.
4. **Output.** For uint8 RGB/GRAY without padding and without CPU samples (the training case)
   the decode buffer *is* the output batch. Otherwise one CuPy ``RawKernel`` reads every decoded
   image (by pointer and row pitch, from a per-sample table) and writes the batch into one flat
   device buffer: channel order (RGB/BGR/GRAY/ANY_DATA), BT.601 YCbCr, DALI's
   ``ConvertSatNorm`` to the output type and the ``fill_values`` padding of out-of-bounds
   windows, with float32 arithmetic rounded exactly like the CPU backend (no fused
   multiply-add). The output is a ``TensorListGPU`` of per-sample views into that buffer (dense
   when all shapes agree).

JPEG decoders differ in their inverse DCT and chroma upsampling, so mixed and CPU pixels of a
JPEG differ by a few levels (``jpeg_fancy_upsampling=True`` brings nvJPEG's upsampling closer to
libjpeg-turbo's); the windows, shapes, types and every other format are identical.

Why the C API: nvImageCodec's Python binding releases and re-takes the GIL twice per sample
inside one batch ``decode`` call. Each re-take waits behind whichever Python thread holds the
GIL, up to Python's switch interval (5 ms): one other busy Python thread slows a batch decode
by two orders of magnitude (``benchmarks/RESULTS.md``, "nvImageCodec C API"). A pipeline always
has other Python threads (the reader, the GPU operators' planning), so the binding made the
decoder wait on them; a ctypes call releases the GIL once for the whole batch.

``hw_decoder_load``: when the argument is not given, `options.DEFAULT_HW_LOAD` (0.9) is used instead of
DALI's 0.65: in ``benchmarks/gpu_resnet.py --sweep`` it was the best or within the noise of the
best for region decodes (what the training pipeline's ``image_random_crop`` asks for) and within
the noise for whole images (``benchmarks/RESULTS.md``, "hw_decoder_load").

Host cost (Python, in a decoder's worker thread, with the GIL): the planning is vectorised over
the batch (`_mixed_plan`; less of it when the batch comes from `fn.readers.file`'s worker
processes, which walk the JPEG headers for it), then the per-sample C calls before and after
the decode (code streams, regions, images: compiled and without the GIL where Numba is
installed, `binding`); ``benchmarks/RESULTS.md``, "nvImageCodec C
API", has the numbers. ``DALI_PROFILE=1`` and `MixedDecoder.stats` show the rest per batch.

Example:
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @pipeline_def(batch_size=256, num_threads=8, device_id=0)
    ... def pipe():
    ...     jpegs, labels = fn.readers.file(file_root="train", random_shuffle=True)
    ...     images = fn.decoders.image_random_crop(jpegs, device="mixed")
    ...     return images, labels
"""

from __future__ import annotations

import itertools
import logging
import math
import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._exec import held
from dali._ops.decoders.headers.jpeg_header import JpegInfo, jpeg_info
from dali._ops.decoders.image.mixed_plan import GpuSample, Prepared, plan_batch
from dali._ops.decoders.image.to_output_gpu import (
    MODES,
    TABLE_COLS,
    conversion,
    convert_kernel,
    ycc_coefficients,
)

if TYPE_CHECKING:
    from dali._ops.decoders.image.decoder import ImageDecoderBase
    from dali._ops.window.image_windows import Windows
    from dali.author import Workspace

__all__ = [
    "Ahead",
    "MixedDecoder",
    "Prepared",
    "jpeg_info",
    "plan_batch",
    "prepare",
    "run_mixed",
]

_log = logging.getLogger("dali")


# -- the per-operator decoder ------------------------------------------------------------------


class MixedDecoder:
    """The nvImageCodec decoder of one operator, created lazily on the pipeline's device.

    Attributes:
        stats: Seconds spent per stage, summed over the operator's runs (profiling): ``plan``
            (headers, windows, code streams), ``decode`` (waiting for nvImageCodec), ``cpu``
            (the CPU fallback), ``convert`` (the kernel launch and the output batch); the
            calling thread's CPU seconds in three of them (``plan_thread_cpu``,
            ``decode_thread_cpu``, ``convert_thread_cpu``: well below the wall time means the
            thread waited, for the GIL or for nvImageCodec); and the counts ``gpu`` and
            ``cpu_samples`` of samples each way, ``batches``, ``ahead`` (batches whose
            decode `prepare` started, `submit`) and ``decode_call`` (seconds those decodes
            took in the decoders' workers, summed: several run at once).
    """

    def __init__(self, op: ImageDecoderBase) -> None:
        info = op.pipeline
        self.device_id = int(getattr(info, "device_id", 0) or 0)
        self.num_threads = max(1, int(getattr(info, "num_threads", 1) or 1))
        self.max_batch_size = max(1, int(getattr(info, "max_batch_size", 1) or 1))
        if op.has_arg("hw_decoder_load"):
            self.hw_load = float(op.arg("hw_decoder_load"))
        else:
            self.hw_load = options.DEFAULT_HW_LOAD
        fancy = int(bool(op.arg("jpeg_fancy_upsampling")))
        opts = [
            f"nvjpeg_cuda_decoder:fancy_upsampling={fancy}",
            f"nvjpeg_hw_decoder:fancy_upsampling={fancy}",
            f"nvjpeg_cuda_decoder:hybrid_huffman_threshold={int(op.arg('hybrid_huffman_threshold'))}",
            f"nvjpeg_hw_decoder:preallocate_batch_size={self.max_batch_size}",
        ]
        for arg, opt in (
            ("preallocate_width_hint", "preallocate_width_hint"),
            ("preallocate_height_hint", "preallocate_height_hint"),
        ):
            if int(op.arg(arg)) > 0:
                opts.append(f"nvjpeg_hw_decoder:{opt}={int(op.arg(arg))}")
        self.options = " ".join(opts)
        self._decoders: list[Any] = []
        self._ycc: Any = None
        #: `submit`'s worker threads and the decoders not in use by one of them
        self._ahead: ThreadPoolExecutor | None = None
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        #: each decoder's own CUDA stream and event (`options.DECODER_STREAMS`), by decoder
        self._sides: dict[int, tuple[Any, Any]] = {}
        #: on the same stream, so their memory is never reused before the conversion kernel ran
        self.stats: dict[str, float] = dict.fromkeys(
            (
                "plan",
                "decode",
                "cpu",
                "convert",
                "gpu",
                "cpu_samples",
                "batches",
                "ahead",
                "decode_call",
                "plan_thread_cpu",
                "decode_thread_cpu",
                "convert_thread_cpu",
            ),
            0.0,
        )

    def threads_per_decoder(self) -> int:
        """nvImageCodec's own threads per decoder: the pipeline's ``num_threads`` shared by
        the `options.PARALLEL_DECODES` decoders, so that they start ``num_threads`` in all, not that
        many each, which ran slower (``benchmarks/RESULTS.md``, "nvImageCodec C API")."""
        return max(1, self.num_threads // max(1, options.PARALLEL_DECODES))

    def decoder(self, k: int = 0) -> Any:
        """The ``k``-th C-API decoder (`_nvimgcodec_c.Decoder`), created on first use."""
        while len(self._decoders) <= k:
            from dali._ops.decoders.nvimgcodec import binding as _nvimgcodec_c

            backends = [("hw_gpu", self.hw_load), ("gpu", 1.0), ("hybrid", 1.0)]
            threads = self.threads_per_decoder()
            try:
                dec = _nvimgcodec_c.Decoder(self.device_id, backends, threads, self.options)
            except _nvimgcodec_c.CodecError as e:  # an option this version does not know
                _log.warning("nvImageCodec rejected the options %r (%s)", self.options, e)
                dec = _nvimgcodec_c.Decoder(self.device_id, backends, threads)
            self._decoders.append(dec)
        return self._decoders[k]

    def decode(
        self,
        ws: Workspace,
        datas: list[Any],
        regions: list[Any],
        outputs: Any,
        shapes: Any,
        **kw: Any,
    ) -> np.ndarray:
        """Decode a batch as `options.PARALLEL_DECODES` parts on the thread pool; ok per sample."""
        n = len(datas)
        parts = max(1, min(options.PARALLEL_DECODES, n // 16 or 1))
        if parts == 1 or ws.num_threads <= 1:
            return self.decoder().decode(datas, regions, outputs, shapes, **kw)
        bounds = [n * k // parts for k in range(parts + 1)]
        for k in range(parts):
            self.decoder(k)  # created here, in order, not racing in the pool

        def one(k: int) -> Any:
            a, b = bounds[k], bounds[k + 1]
            return self._decoders[k].decode(
                datas[a:b], regions[a:b], outputs[a:b], shapes[a:b], **kw
            )

        return np.concatenate(ws.map(one, parts))

    def submit(self, cuda: Any, job: Any) -> Future[Any]:
        """Run ``job(decoder)`` on the next free decoder in a worker thread of this operator,
        with the pipeline's device, stream and memory pool current (``cuda.activate()``).

        There are `options.PARALLEL_DECODES` workers and as many decoders, so that many batches
        decode at once; more jobs wait in submission order.
        """
        with self._lock:
            if self._ahead is None:
                for k in range(options.PARALLEL_DECODES):
                    self._idle.put(self.decoder(k))
                self._ahead = ThreadPoolExecutor(
                    options.PARALLEL_DECODES, thread_name_prefix="dali-nvimgcodec"
                )
            return self._ahead.submit(self._job, cuda, job)

    def _job(self, cuda: Any, job: Any) -> Any:
        dec = self._idle.get()
        try:
            with cuda.activate():
                return job(dec)
        finally:
            self._idle.put(dec)

    def side(self, dec: Any) -> tuple[Any, Any]:
        """The CUDA stream of the decoder ``dec`` and an event to join it to the pipeline's
        stream (`options.DECODER_STREAMS`), made on first use in the worker's CUDA context."""
        side = self._sides.get(id(dec))
        if side is None:
            import cupy as cp

            side = (cp.cuda.Stream(non_blocking=True), cp.cuda.Event(disable_timing=True))
            self._sides[id(dec)] = side
        return side

    def ycc(self, dtype: np.dtype) -> Any:
        import cupy as cp

        if self._ycc is None or self._ycc[0] != dtype:
            self._ycc = (dtype, cp.asarray(ycc_coefficients(dtype)))
        return self._ycc[1]

    def close(self) -> None:
        with self._lock:
            ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.shutdown(wait=True)  # the decodes in flight finish before their decoder goes
        decs, self._decoders = self._decoders, []
        self._idle = queue.SimpleQueue()
        self._sides = {}  # (the decodes on them finished: each waited for its stream)
        for dec in decs:
            try:
                dec.close()
            except Exception:  # noqa: BLE001,S110 - best effort on shutdown
                pass


_MIXED_LOCK = threading.Lock()


def mixed_of(op: ImageDecoderBase) -> MixedDecoder:
    """The operator's `MixedDecoder` (made once, by whichever of the CPU-stage and mixed-stage
    threads asks first)."""
    mixed = op.mixed
    if mixed is None:
        with _MIXED_LOCK:
            mixed = op.mixed
            if mixed is None:
                mixed = op.mixed = MixedDecoder(op)
    return mixed


# -- running a batch ---------------------------------------------------------------------------


class _Decoded:
    """A sample nvImageCodec decoded: its plan and where its pixels are on the device."""

    __slots__ = ("g", "pitch", "ptr", "px", "sc")

    def __init__(self, g: GpuSample, ptr: int, pitch: int, px: int, sc: int) -> None:
        self.g, self.ptr, self.pitch, self.px, self.sc = g, ptr, pitch, px, sc


def _stream_of(ws: Workspace) -> Any:
    """The CUDA stream to work on: the executor's per-pipeline stream, else CuPy's current one."""
    import cupy as cp

    stream = getattr(ws, "stream", None)
    if stream is None:
        return cp.cuda.get_current_stream()
    if isinstance(stream, (cp.cuda.Stream, cp.cuda.ExternalStream)):
        return stream
    ptr = getattr(stream, "ptr", None)
    if ptr is None:
        ptr = getattr(stream, "cuda_stream", stream)
    return cp.cuda.ExternalStream(int(ptr))


def run_mixed(op: ImageDecoderBase, ws: Workspace) -> Any:
    """Decode the batch of ``ws`` on the GPU; see the module docstring for the steps."""
    import cupy as cp

    from dali._tensors import TensorListGPU

    prepared = getattr(ws, "prepared", None)
    if isinstance(prepared, BaseException):
        raise prepared  # `prepare` failed in the CPU stage: the error, now, in order
    if isinstance(prepared, Ahead):
        prepared = prepared.future.result()  # a planning error is raised here, in order
    elif prepared is None:
        prepared = plan_batch(op, ws)
    mixed = mixed_of(op)
    stream = _stream_of(ws)
    with cp.cuda.Device(mixed.device_id), stream:
        out = _run(op, mixed, ws, stream, prepared)
    if out is None:
        return TensorListGPU.wrap([], layout="HWC", dtype=op.out_dtype, ndim=3)
    return out


class Ahead:
    """What `prepare` gives when a decoder's worker plans and decodes the batch: the future
    of its `Prepared`."""

    __slots__ = ("future",)

    def __init__(self, future: Future[Prepared]) -> None:
        self.future = future


def prepare(op: ImageDecoderBase, ws: Workspace) -> Prepared | Ahead:
    """Start the batch's host planning and decode ahead of the mixed stage.

    The executor calls it in the CPU stage (`dali._exec.stages.preparable`), with the
    pipeline's CUDA context in the workspace. The batch then goes to the next free decoder
    (`MixedDecoder.submit`), whose worker thread plans it (`plan_batch`) and decodes its GPU
    samples, while the CPU stage reads the next batch: the decodes of consecutive batches
    overlap, and the mixed stage only waits for the result and converts. Without a CUDA
    context the plan is made here.
    """
    cuda = ws.cuda
    if cuda is None:
        return plan_batch(op, ws)
    mixed = mixed_of(op)
    return Ahead(mixed.submit(cuda, lambda dec: _plan_and_decode(op, ws, dec, mixed)))


def _plan_and_decode(
    op: ImageDecoderBase, ws: Workspace, dec: Any, mixed: MixedDecoder
) -> Prepared:
    prep = plan_batch(op, ws)
    if prep.gpu:
        t0 = time.perf_counter()
        side = mixed.side(dec) if options.DECODER_STREAMS else None
        prep.decoded = _decode_gpu(op, prep.heads, prep.gpu, dec.decode, side)
        mixed.stats["decode_call"] += time.perf_counter() - t0
    return prep


def _cpu_samples(
    op: ImageDecoderBase,
    ws: Workspace,
    samples: list[np.ndarray],
    windows: Windows | None,
    idx: list[int],
) -> dict[int, Any]:
    """The CPU backend's result for the samples ``idx`` (arrays or skips), on the thread pool."""
    from dali._exec.workspace import SampleFailure

    def one(i: int) -> Any:
        return op.cpu_sample(ws, i, samples[i], None if windows is None else windows[i])

    if len(idx) <= 1:
        out = {}
        for i in idx:
            try:
                out[i] = one(i)
            except Exception as e:
                raise SampleFailure(i, e) from e
        return out
    wanted = set(idx)
    results = ws.map(lambda i: one(i) if i in wanted else None, len(samples))
    return {i: results[i] for i in idx}


def _decode_gpu(
    op: ImageDecoderBase,
    heads: list[tuple[np.ndarray, JpegInfo | None]],
    gpu: list[GpuSample],
    decode: Any,
    side: tuple[Any, Any] | None = None,
) -> tuple[Any, Any, list[int], int]:
    """Decode the GPU samples with ``decode`` (a decoder's, or `MixedDecoder.decode`) on CuPy's
    current stream: (the buffer, ok per sample or None when the call failed, each image's
    address in the buffer, channels).

    Every image decodes, interleaved and unpadded, into one buffer from the pipeline's pool
    (ordered on its stream, like everything else the pipeline allocates). With ``side`` (a
    decoder's own stream and event, `MixedDecoder.side`) the decode runs on that stream instead:
    after the pipeline stream's work queued so far (the buffer's earlier users), and finished
    before this returns, so that the pipeline stream may read the pixels without waiting.
    """
    import cupy as cp

    sc = 1 if op.out_name == "GRAY" else 3
    # the addresses in Python integers: numpy's zeroed offsets and stacked columns of a large
    # batch give the GIL up (`dali._exec.gil`) in the thread that is about to decode
    shapes_hwc = [(g.ih, g.iw, sc) for g in gpu]
    starts = list(itertools.accumulate((h * w * sc for h, w, _ in shapes_hwc), initial=0))
    buf = cp.empty(starts.pop(), dtype=np.uint8)
    base = buf.data.ptr
    ptrs = [base + start for start in starts]
    stream = cp.cuda.get_current_stream().ptr
    if side is not None:
        side_stream, joined = side
        held.record(joined.ptr, stream)
        held.wait_event(side_stream.ptr, joined.ptr)
        stream = side_stream.ptr
    ok = None
    try:
        ok = decode(
            [heads[g.sample][0] for g in gpu],
            [g.region for g in gpu],
            [(ptr, w * sc) for ptr, (_, w, _) in zip(ptrs, shapes_hwc)],
            shapes_hwc,
            gray=sc == 1,
            apply_orientation=op.orientation,
            device=True,
            cuda_stream=stream,
        )
    except Exception as e:  # noqa: BLE001 - never fail a batch the CPU backend can decode
        _log.warning("%s: nvImageCodec batch decode failed (%s); using the CPU", op.name, e)
    finally:
        if side is not None:
            side[0].synchronize()  # synchronize! (without the GIL: the pixels are on the device)
    return buf, ok, ptrs, sc


def _run(
    op: ImageDecoderBase, mixed: MixedDecoder, ws: Workspace, stream: Any, prep: Prepared
) -> Any:
    stats = mixed.stats
    samples, heads, windows, gpu, cpu = prep.samples, prep.heads, prep.windows, prep.gpu, prep.cpu
    if not samples:
        return None
    t1 = time.perf_counter()
    c1 = time.thread_time()
    decoded: dict[int, _Decoded] = {}
    buf = None
    whole = None
    if gpu:
        if prep.decoded is not None:
            buf, ok, ptr_list, sc = prep.decoded
            prep.decoded = None
            stats["ahead"] += 1
        else:
            buf, ok, ptr_list, sc = _decode_gpu(
                op, heads, gpu, lambda *a, **kw: mixed.decode(ws, *a, **kw)
            )
        whole = _whole_batch(op, gpu, ok, sc, len(samples))
        if whole is None:
            for k, g in enumerate(gpu):
                if ok is not None and ok[k]:
                    decoded[g.sample] = _Decoded(g, ptr_list[k], g.iw * sc, sc, sc)
                else:
                    cpu.append(g.sample)
    t2 = time.perf_counter()
    c2 = time.thread_time()
    cpu_time = stats["cpu"]
    if gpu and whole is not None:
        stats["gpu"] += len(gpu)
        out = _batch(buf, whole)
    else:
        out = _assemble(op, ws, stream, samples, windows, decoded, cpu, buf)
    t3 = time.perf_counter()
    stats["plan"] += prep.seconds
    stats["decode"] += t2 - t1
    stats["convert"] += (t3 - t2) - (stats["cpu"] - cpu_time)
    stats["batches"] += 1
    # this thread's CPU time in each stage: far below the wall time = it waited (for the GIL
    # or for nvImageCodec's threads and the GPU)
    stats["plan_thread_cpu"] += prep.thread_seconds
    stats["decode_thread_cpu"] += c2 - c1
    stats["convert_thread_cpu"] += time.thread_time() - c2
    return out


def _whole_batch(
    op: ImageDecoderBase, gpu: list[GpuSample], ok: Any, sc: int, n: int
) -> list[tuple[int, ...]] | None:
    """The output shapes when the decode buffer is the whole output batch as it is (the training
    case, found without a per-sample object); else None, and `_assemble` makes the batch.

    That is: every sample decoded by nvImageCodec, nothing padded, uint8 RGB/GRAY output.
    """
    if len(gpu) != n or ok is None or not ok.all():
        return None
    if op.out_dtype != np.uint8 or MODES[op.out_name] != 0:
        return None
    shapes: list[tuple[int, ...]] = [(g.ih, g.iw, sc) for g in gpu]
    if [(g.oh, g.ow, g.oc) for g in gpu] != shapes:
        return None
    return shapes


def _assemble(
    op: ImageDecoderBase,
    ws: Workspace,
    stream: Any,
    samples: list[np.ndarray],
    windows: Windows | None,
    decoded: dict[int, _Decoded],
    cpu: list[int],
    buf: Any,
) -> Any:
    """The output batch when the decode buffer is not already it (`_whole_batch`): one
    conversion kernel over the decoded images plus copies of the CPU backend's results."""
    import cupy as cp

    mixed = op.mixed
    assert mixed is not None  # made by `mixed_of` before any batch runs
    stats = mixed.stats
    n = len(samples)
    stats["gpu"] += len(decoded)
    stats["cpu_samples"] += len(cpu)
    cpu.sort()
    ta = time.perf_counter()
    host = _cpu_samples(op, ws, samples, windows, cpu) if cpu else {}
    stats["cpu"] += time.perf_counter() - ta

    results: list[Any] = [decoded[i] if i in decoded else host[i] for i in range(n)]
    results = op.drop_skipped(ws, results)
    if not results:
        return None
    dtype = op.out_dtype
    mode = MODES[op.out_name]
    shapes = [(r.g.oh, r.g.ow, r.g.oc) if isinstance(r, _Decoded) else r.shape for r in results]
    sizes = [math.prod(s) for s in shapes]
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    flat = cp.empty(int(offsets[-1]), dtype=dtype)

    rows = []
    padded = False
    max_pix = 1
    for k, r in enumerate(results):
        if isinstance(r, _Decoded):
            g = r.g
            padded |= (g.oh, g.ow) != (g.ih, g.iw)
            max_pix = max(max_pix, g.oh * g.ow)
            rows.append(
                (r.ptr, r.pitch, r.sc, offsets[k], g.oh, g.ow, g.oc, g.iy, g.ix, g.ih, g.iw, r.px)
            )
        elif sizes[k]:
            flat[offsets[k] : offsets[k + 1]].set(r.reshape(-1), stream=stream)
    if rows:
        fill = np.zeros(4, dtype=dtype)
        if padded:
            if any(r[6] == 1 for r in rows):
                fill[0] = op.fill_for(1, dtype)[0]
            if any(r[6] == 3 for r in rows):
                fill[1:] = op.fill_for(3, dtype)
        table = cp.asarray(np.asarray(rows, dtype=np.int64).reshape(-1, TABLE_COLS))
        _, factor = conversion(dtype)
        ycc = mixed.ycc(dtype) if mode == 2 else table  # unused unless YCbCr
        blocks = min(max(1, -(-max_pix // 256)), 128)
        convert_kernel(dtype)(
            (blocks, len(rows)),
            (256,),
            (table, flat, cp.asarray(fill), ycc, np.int32(mode), np.float32(factor)),
        )
    del buf  # back to the pool after the kernel above (stream-ordered)
    return _batch(flat, shapes)


def _batch(flat: Any, shapes: list[tuple[int, ...]]) -> Any:
    """The HWC ``TensorListGPU`` of samples of ``shapes`` back to back in ``flat`` (dense when
    all shapes agree)."""
    from dali._tensors import TensorListGPU

    if shapes.count(shapes[0]) == len(shapes):
        dense = flat[: len(shapes) * math.prod(shapes[0])]
        return TensorListGPU.wrap(dense.reshape(len(shapes), *shapes[0]), layout="HWC")
    # the next operator's kernel reads the buffer plus offsets: views only when asked for
    return TensorListGPU.wrap_flat(flat, shapes, layout="HWC")
