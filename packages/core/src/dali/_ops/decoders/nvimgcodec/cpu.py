"""The CPU backend's JPEG decoding through nvImageCodec's libjpeg-turbo decoder, regions only.

DALI's own CPU decoders are nvImageCodec's CPU backends (libjpeg-turbo for JPEG), and its
``image_random_crop`` / ``image_crop`` / ``image_slice`` ask them for the window's region only:
libjpeg-turbo then entropy-decodes the rows above the window's bottom but runs the inverse DCT,
upsampling and colour conversion only for the window's blocks (``jpeg_crop_scanline`` and
``jpeg_skip_scanlines``). OpenCV and Pillow cannot do that with the same pixels, so when the
``nvidia-nvimgcodec-cu13`` (or ``-cu12``) wheel is installed the CPU backend decodes JPEGs the
same way, through our ctypes binding (`_nvimgcodec_c`) and without a GPU or CUDA driver. The
pixels are those of a whole decode with OpenCV cut to the window (both are libjpeg-turbo with
fancy upsampling; checked by the tests on every test image, and against DALI 2.4 by the
conformance session), so which decoder ran is invisible in the output.

One batch (`run_cpu`):

1. The mixed backend's planning (`_mixed_plan.plan_batch`; in a CPU pipeline whose decoder reads
   straight from a reader, done ahead in the source stage, `ImageDecoderBase.prepare_cpu`): the
   JPEG headers of the batch, the windows (the same functions as the whole-image path), each
   window's part inside the image as a region, and the split between the JPEGs nvImageCodec
   takes (8-bit baseline, extended or progressive, 1 or 3 components, complete) and the rest.
2. The JPEGs are decoded by nvImageCodec calls of a few samples each (at most `options.CALL_SAMPLES`,
   fewer towards the end of the batch, `call_sizes`: the CPU-only decoder runs a call's samples
   one after another, so the pool's threads take the calls in turn), each sample into its own
   host array, RGB or (for ``GRAY``, and ``ANY_DATA`` of a grayscale JPEG) the luma plane, the
   EXIF orientation applied by nvImageCodec (unless ``adjust_orientation=False``).
3. On the thread pool: everything else (other formats, CMYK, truncated or corrupt data, and
   any JPEG nvImageCodec failed on, a failed call's too) goes through the whole-image path
   (`ImageDecoderBase.cpu_sample`), so its pixels, errors (naming the file) and
   ``on_error="skip"`` are unchanged; decoded regions that need it are converted (BGR, YCbCr,
   the output type) and padded (``out_of_bounds_policy="pad"``).

It is faster than OpenCV for random-crop decodes and as fast for whole images, and calls of
several samples cost less than a call per sample, hence `options.CALL_SAMPLES`
(``benchmarks/RESULTS.md``, "CPU JPEG decoding with nvImageCodec").

``DALI_CPU_JPEG_DECODER=opencv`` turns this off (every image through OpenCV/Pillow), as does a
machine without the wheel.

Example:
    >>> import tempfile
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> from dali._testing.images import make_image_tree
    >>> root = tempfile.mkdtemp()
    >>> _ = make_image_tree(root)  # 21 small JPEGs in class folders 0, 1, 2
    >>> @pipeline_def(batch_size=16, num_threads=2, device_id=None)
    ... def pipe():
    ...     jpegs, _ = fn.readers.file(file_root=root)
    ...     return fn.decoders.image_random_crop(jpegs)
    >>> (images,) = pipe().run()
    >>> len(images), images.shape()[0][2]
    (16, 3)
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from dali import _options as options
from dali._ops.decoders.image import codecs as _codecs

if TYPE_CHECKING:
    from dali._ops.decoders.image.decoder import ImageDecoderBase
    from dali._ops.decoders.image.mixed_plan import GpuSample
    from dali.author import Workspace

__all__ = ["ENV", "HostDecoders", "call_sizes", "enabled", "run_cpu"]

_log = logging.getLogger("dali")

#: Environment variable choosing the CPU backend's JPEG decoder: ``nvimgcodec`` (the default
#: when the wheel is installed) or ``opencv``.
ENV = "DALI_CPU_JPEG_DECODER"


def call_sizes(n: int, threads: int, most: int | None = None) -> list[int]:
    """How many samples each call takes, in order, for ``n`` samples sorted largest first.

    With several threads a call takes a ``2 * threads``-th of the samples still left, between 1
    and ``most`` (default ``options.CALL_SAMPLES``; OpenMP's *guided* schedule): full calls while much is left, then ever smaller
    ones, so that the last calls, which decide how long the threads wait for each other at the
    end of the batch, are single samples: a little faster than equal calls
    (``benchmarks/RESULTS.md``, "CPU JPEG decoding with nvImageCodec"). One thread: equal calls
    of ``most``.

    Example:
        >>> call_sizes(64, 2)
        [8, 8, 8, 8, 8, 6, 5, 4, 3, 2, 1, 1, 1, 1]
        >>> call_sizes(20, 1)
        [8, 8, 4]
    """
    most = options.CALL_SAMPLES if most is None else most
    sizes = []
    while n > 0:
        size = min(most, n) if threads <= 1 else max(1, min(most, -(-n // (2 * threads))))
        sizes.append(size)
        n -= size
    return sizes


_state_lock = threading.Lock()
#: whether nvImageCodec's CPU decoder could be created (None: not tried yet)
_usable: bool | None = None


def enabled() -> bool:
    """Whether the CPU backend decodes JPEGs with nvImageCodec (installed, its CPU-only
    instance created, and not turned off with `ENV`)."""
    global _usable
    choice = os.environ.get(ENV, "").strip().lower()
    if choice == "opencv":
        return False
    if choice not in ("", "nvimgcodec"):
        raise ValueError(f"{ENV} must be 'nvimgcodec' or 'opencv', got {choice!r}")
    if _usable is None:
        with _state_lock:
            if _usable is None:
                _usable = _try_create()
    return _usable


def _try_create() -> bool:
    from dali._ops.decoders.nvimgcodec import binding as nvc

    if not nvc.available():
        return False
    try:
        nvc.Decoder(nvc.CPU_ONLY_DEVICE, [("cpu", 1.0)], num_threads=1).close()
    except (OSError, nvc.CodecError) as e:
        _log.info("nvImageCodec's CPU decoder is not usable (%s); decoding JPEGs with OpenCV", e)
        return False
    return True


class HostDecoders:
    """The CPU-only nvImageCodec decoders of one operator: one per concurrent call, created
    when first needed and reused (a decoder decodes one call at a time)."""

    def __init__(self) -> None:
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._all: list[Any] = []
        self._lock = threading.Lock()

    def decode(
        self,
        datas: list[np.ndarray],
        regions: list[Any],
        outs: list[np.ndarray],
        gray: bool,
        orient: bool,
    ) -> np.ndarray:
        """Decode ``datas`` (their ``regions``) into the host arrays ``outs``, luma only when
        ``gray``, in display orientation when ``orient``; per sample, whether it was decoded (see `_nvimgcodec_c.Decoder.decode`)."""
        from dali._ops.decoders.nvimgcodec import binding as nvc

        try:
            dec = self._idle.get_nowait()
        except queue.Empty:
            dec = nvc.Decoder(nvc.CPU_ONLY_DEVICE, [("cpu", 1.0)], num_threads=1)
            with self._lock:
                self._all.append(dec)
        try:
            return dec.decode(
                datas,
                regions,
                [(o.ctypes.data, o.strides[0]) for o in outs],
                [o.shape for o in outs],
                gray=gray,
                apply_orientation=orient,
                device=False,
            )
        finally:
            self._idle.put(dec)

    def close(self) -> None:
        with self._lock:
            decoders, self._all = self._all, []
        for dec in decoders:
            dec.close()


def run_cpu(op: ImageDecoderBase, ws: Workspace, decoders: HostDecoders) -> list[Any]:
    """Decode a batch on the CPU (the module docstring's steps); per sample, the output array
    or the operator's skip marker (``on_error="skip"``)."""
    from dali._exec.workspace import SampleFailure
    from dali._ops.decoders.image.mixed_plan import plan_batch

    plan = ws.prepared  # planned ahead in the source stage (`ImageDecoderBase.prepare_cpu`)
    if isinstance(plan, BaseException):
        raise plan  # planning failed there: the error, now, in order
    if plan is None:
        plan = plan_batch(op, ws)
    samples, windows = plan.samples, plan.windows
    n = len(samples)
    results: list[Any] = [None] * n
    name, dtype = op.out_name, op.out_dtype
    # decoded straight into the output: uint8 RGB, GRAY or ANY_DATA, not padded
    direct = dtype == np.uint8 and name in ("RGB", "GRAY", "ANY_DATA")
    rows: list[GpuSample] = []
    bufs: list[np.ndarray] = []
    # (sample, None: decode it on the CPU path, or its decoded region and buffer)
    todo: list[tuple[int, tuple[GpuSample, np.ndarray] | None]] = [(i, None) for i in plan.cpu]
    for row in plan.gpu:
        try:
            buf = np.empty((row.ih, row.iw, row.oc), dtype=np.uint8)
        except MemoryError:  # the whole-image path fails (or skips) it, naming the file
            todo.append((row.sample, None))
            continue
        rows.append(row)
        bufs.append(buf)
    ok = _decode(op, ws, rows, bufs, plan.heads, decoders)
    for row, buf, good in zip(rows, bufs, ok.tolist()):
        if not good:
            todo.append((row.sample, None))
        elif direct and row.oh == row.ih and row.ow == row.iw:
            results[row.sample] = buf
        else:
            todo.append((row.sample, (row, buf)))

    todo.sort(key=lambda item: item[0])  # sample order: the first failure is the OpenCV path's

    def one(k: int) -> Any:
        i, decoded = todo[k]
        if decoded is None:
            return op.cpu_sample(ws, i, samples[i], None if windows is None else windows[i])
        try:
            return _finish(op, *decoded, name, dtype)
        except MemoryError as e:
            return op.failed(ws, i, _codecs.out_of_memory(e))

    try:
        outs = ws.map(one, len(todo))
    except SampleFailure as f:  # name the sample, not its place in the list
        raise SampleFailure(todo[f.index][0], f.error) from f.error
    for (i, _), out in zip(todo, outs):
        results[i] = out
    return results


def _decode(
    op: ImageDecoderBase,
    ws: Workspace,
    rows: list[GpuSample],
    bufs: list[np.ndarray],
    heads: list[Any],
    decoders: HostDecoders,
) -> np.ndarray:
    """Decode every planned row into its buffer, in calls of `call_sizes` samples
    (RGB and luma rows apart) that the pool's threads take in turn, the largest regions first
    so that the calls left at the end are short; per row, whether it was decoded."""
    ok = np.zeros(len(rows), dtype=bool)
    if not rows:
        return ok
    orient = op.orientation
    gray = np.fromiter((row.oc == 1 for row in rows), dtype=bool, count=len(rows))
    pixels = np.fromiter((row.ih * row.iw for row in rows), dtype=np.int64, count=len(rows))
    calls: list[tuple[np.ndarray, bool]] = []
    for flag in (False, True):
        idx = np.flatnonzero(gray == flag)
        if idx.size:
            idx = idx[np.argsort(-pixels[idx], kind="stable")]
            bounds = itertools.accumulate(call_sizes(idx.size, ws.num_threads), initial=0)
            calls.extend((idx[a:b], flag) for a, b in itertools.pairwise(bounds))

    def call(k: int) -> None:
        idx, flag = calls[k]
        sel = idx.tolist()
        try:
            ok[idx] = decoders.decode(
                [heads[rows[j].sample][0] for j in sel],
                [rows[j].region for j in sel],
                [bufs[j] for j in sel],
                flag,
                orient,
            )
        except Exception as e:  # noqa: BLE001 - its samples go the whole-image way instead
            _log.warning("nvImageCodec's CPU decode call failed (%s); using OpenCV for it", e)

    ws.map(call, len(calls))
    return ok


def _finish(
    op: ImageDecoderBase, row: GpuSample, buf: np.ndarray, name: str, dtype: np.dtype
) -> np.ndarray:
    """A decoded region as the operator's output: colour space, type and padding."""
    img = buf
    if name == "BGR":
        img = img[:, :, ::-1]
    out = _codecs.to_output(img, name, dtype)
    if row.oh != row.ih or row.ow != row.iw:
        out = op.pad_window(out, (row.iy, row.ix, row.oh, row.ow))
    return np.ascontiguousarray(out)
