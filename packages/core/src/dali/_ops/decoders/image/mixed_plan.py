"""The host planning of the mixed image decoders: headers, windows, the GPU/CPU split.

`plan_batch` reads the batch's JPEG headers (`jpeg_headers`), works out each sample's display
size, asks the operator for the windows (the *same* window functions as the CPU backend, so CPU
and mixed cut the same windows) and splits the batch: the samples nvImageCodec's GPU decoders
take, each with its region and output geometry (`GpuSample`), and the samples left to the CPU
backend. No CUDA here: `_nvimgcodec` runs it in a decoder's worker thread, or in the mixed stage.

The planning holds the GIL, which a training pipeline is bound by, so it is vectorised over the
batch: the headers are walked together, the sizes, the GPU/CPU split, the windows of a
`BatchWindows` (``image_random_crop``'s), their regions and padding are numpy arrays of one
value per sample. Per sample, Python only slices the bytes the walk reads and builds the records
(`JpegInfo`, `GpuSample`) from lists; other window functions (crop, slice) are called one by one, as
the CPU backend calls them. That takes less than half the time of the per-sample planning it
replaced (``benchmarks/RESULTS.md``, "nvImageCodec C API").
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dali._exec import gil
from dali._ops.decoders.headers.jpeg_header import JpegInfo, headers_from_rows, jpeg_headers
from dali._ops.decoders.image import codecs as _codecs

if TYPE_CHECKING:
    from dali._ops.decoders.image.decoder import ImageDecoderBase
    from dali._ops.window.image_windows import Windows
    from dali.author import Workspace

__all__ = [
    "GpuSample",
    "Prepared",
    "plan_batch",
]

#: SOF markers of the Huffman-coded, 8/12-bit DCT processes nvJPEG decodes (baseline, extended,
#: progressive: 0xC0-0xC2); lossless and arithmetic-coded JPEGs go to the CPU backend.
_GPU_SOF = range(0xC0, 0xC3)


class GpuSample(NamedTuple):
    """A sample planned for the GPU: its region and where its pixels go.

    ``region``: ``(y0, x0, y1, x1)`` for nvImageCodec (None: the whole image); the decoded
    ``ih×iw`` image goes at ``(iy, ix)`` of the ``oh×ow×oc`` output (larger when padded).
    """

    sample: int
    region: tuple[int, int, int, int] | None
    oh: int
    ow: int
    oc: int
    ih: int
    iw: int
    iy: int
    ix: int


#: `GpuSample` from a row of its fields (what ``GpuSample._make`` does, without the length check)
_gpu_row = partial(tuple.__new__, GpuSample)


class _Headers(NamedTuple):
    """What `_headers` read from a batch: ``heads``, each sample's bytes and header (None for
    the samples the GPU does not take); ``shapes``, the ``(n, 2)`` display sizes (``-1`` where
    not known); ``gpu``, ``(n,)`` bool, the samples nvImageCodec's GPU decoders take, and
    ``ncomp``, their components."""

    heads: list[tuple[np.ndarray, JpegInfo | None]]
    shapes: np.ndarray
    gpu: np.ndarray
    ncomp: np.ndarray


class Prepared:
    """The host planning of one batch (`plan_batch`); ``decoded``: `_decode_gpu`'s result
    when the GPU samples were already decoded (`prepare`), else None."""

    __slots__ = (
        "cpu",
        "decoded",
        "gpu",
        "heads",
        "samples",
        "seconds",
        "thread_seconds",
        "windows",
    )

    def __init__(
        self,
        samples: list[np.ndarray],
        heads: list[tuple[np.ndarray, JpegInfo | None]],
        windows: Windows | None,
        gpu: list[GpuSample],
        cpu: list[int],
        seconds: float,
        thread_seconds: float,
    ) -> None:
        self.samples, self.heads, self.windows = samples, heads, windows
        self.gpu, self.cpu = gpu, cpu
        self.seconds, self.thread_seconds = seconds, thread_seconds
        self.decoded: tuple[Any, Any, list[int], int] | None = None


def plan_batch(op: ImageDecoderBase, ws: Workspace) -> Prepared:
    """Step 1 of `_nvimgcodec`'s docstring: headers, windows and the GPU/CPU split; no CUDA."""
    c0 = time.thread_time()
    t0 = time.perf_counter()
    batch = ws.inputs[0]
    samples = batch.samples()
    derived = batch.derived
    hd = _headers(op, samples, derived.get("jpeg_header_rows") if derived else None)
    windows = None
    if samples:
        windows = op.windows(ws, len(samples), hd.shapes if op.needs_shapes else None)
    gpu, cpu = _plan(op, hd, windows)
    return Prepared(
        samples,
        hd.heads,
        windows,
        gpu,
        cpu,
        time.perf_counter() - t0,
        time.thread_time() - c0,
    )


def _headers(
    op: ImageDecoderBase, samples: list[np.ndarray], rows: np.ndarray | None = None
) -> _Headers:
    """Each sample's bytes and header, and the display sizes the windows are computed from.

    The header is None for the samples nvImageCodec's GPU decoders do not take (they go to the
    CPU backend); the sizes are ``(n, 2)`` ``(height, width)``, ``-1`` where not known, as
    `image.header_shapes` gives them to the CPU backend. The JPEG headers of the batch are read
    together (`jpeg_headers`), or taken from ``rows`` when the batch carries them for every
    sample (`fn.readers.file`'s worker processes walk them: `headers_from_rows`).
    """
    from dali._exec.workspace import SampleFailure
    from dali._ops.decoders.headers.image_sizes import size_hint

    check = op.check_encoded
    try:
        datas = [check(sample) for sample in samples]
    except Exception:
        for i, sample in enumerate(samples):  # again, to name the sample
            try:
                check(sample)
            except Exception as e:
                raise SampleFailure(i, e) from e
        raise
    n = len(datas)
    if rows is not None and rows.shape[0] == n and rows[:, 0].all():
        hd = headers_from_rows(rows[:, 1:])
    else:
        hd = jpeg_headers(datas, ends=True)
    shapes = gil.full((n, 2), -1, np.int64)
    for i in np.flatnonzero(~hd.jpeg).tolist():
        if datas[i].size > 4:
            size = size_hint(datas[i])
            if size is not None:
                shapes[i] = size
    known = hd.found & (hd.height > 0) & (hd.width > 0)
    h, w = hd.height, hd.width
    if op.orientation:
        swap = hd.orientation >= 5
        h, w = np.where(swap, w, h), np.where(swap, h, w)
    shapes[:, 0] = np.where(known, h, shapes[:, 0])
    shapes[:, 1] = np.where(known, w, shapes[:, 1])
    gpu = (
        known
        & (hd.sof >= _GPU_SOF.start)
        & (hd.sof < _GPU_SOF.stop)
        & ((hd.ncomp == 1) | (hd.ncomp == 3))
        & (hd.precision == 8)
        # a declared size over the limit (as RGB, the most decoded here) is never allocated
        # here: the CPU backend refuses it, naming the file, or skips it (`_codecs.check_size`,
        # which also decodes a GRAY image that fits as one channel)
        & ~_codecs.too_large(hd.height, hd.width, 3)
    )
    assert hd.ends is not None  # asked for above (the workers' rows have it too)
    for i in np.flatnonzero(gpu & ~hd.ends).tolist():  # no end-of-image marker at the end
        try:
            _codecs.check_jpeg_complete(datas[i], int(hd.sos[i]))
        except _codecs.DecodeError:
            gpu[i] = False  # the CPU backend raises (or skips) with its own message
    sel = np.flatnonzero(gpu)
    fields = (hd.sof, hd.precision, hd.height, hd.width, hd.ncomp, hd.orientation, hd.sos)
    infos: list[JpegInfo | None] = list(map(_info_row, zip(*(a[sel].tolist() for a in fields))))
    if len(infos) < n:  # in their places, None for the others
        got, infos = infos, [None] * n
        for i, info in zip(sel.tolist(), got):
            infos[i] = info
    return _Headers(list(zip(datas, infos)), shapes, gpu, hd.ncomp)


#: `JpegInfo` from a row of its fields
_info_row = partial(tuple.__new__, JpegInfo)


def _plan(
    op: ImageDecoderBase, hd: _Headers, windows: Windows | None
) -> tuple[list[GpuSample], list[int]]:
    """Split the samples: those for nvImageCodec (with their regions), those for the CPU.

    Vectorised over the batch: the windows of a `BatchWindows` are read from its arrays where
    the header's size is the one they were computed for, and only windows reaching outside
    the image are clipped one by one (`ImageDecoderBase.clip`, which raises for policy "error");
    other window functions are called per sample, as the CPU backend calls them.
    """
    from dali._exec.workspace import SampleFailure
    from dali._ops.window.image_windows import BatchWindows, Window

    idx = np.flatnonzero(hd.gpu)
    m = idx.size
    # (a column, then a 1-D gather: a 2-D fancy index gives the GIL up, `dali._exec.gil`)
    H, W = hd.shapes[:, 0][idx], hd.shapes[:, 1][idx]
    # the part of each window inside the image (y, x, h, w), and where it goes in the output
    # (iy, ix, oh, ow): larger than the part when padded
    if windows is None:
        y = x = iy = ix = gil.zeros(m, np.int64)
        h, w, oh, ow = H, W, H, W
    elif isinstance(windows, BatchWindows):
        y, x, h, w = windows.boxes_for(idx, H, W)  # (its functions never raise)
        iy = ix = gil.zeros(m, np.int64)
        oh, ow = h, w
        outside = ~((y >= 0) & (x >= 0) & (y + h <= H) & (x + w <= W))
        if np.count_nonzero(outside):
            iy, ix, oh, ow = iy.copy(), ix.copy(), h.copy(), w.copy()
            for k in np.flatnonzero(outside).tolist():
                win = Window(int(y[k]), int(x[k]), int(h[k]), int(w[k]))
                try:
                    inner, pad = op.clip(int(H[k]), int(W[k]), win)
                except Exception as e:
                    raise SampleFailure(int(idx[k]), e) from e
                y[k], x[k], h[k], w[k] = inner
                iy[k], ix[k], oh[k], ow[k] = pad or (0, 0, inner[2], inner[3])
    else:
        rows = []
        for i, Hi, Wi in zip(idx.tolist(), H.tolist(), W.tolist()):
            try:  # the window and its clipping, in sample order (the first error is raised)
                inner, pad = op.clip(Hi, Wi, windows[i](Hi, Wi))
            except Exception as e:
                raise SampleFailure(i, e) from e
            rows.append((*inner, *(pad or (0, 0, inner[2], inner[3]))))
        y, x, h, w, iy, ix, oh, ow = np.asarray(rows, dtype=np.int64).reshape(m, 8).T
    keep = (h > 0) & (w > 0)
    if np.count_nonzero(keep) < m:  # nothing to decode: the CPU backend's result
        cpu_mask = ~hd.gpu
        cpu_mask[idx[~keep]] = True
        cpu = np.flatnonzero(cpu_mask).tolist()
        idx, H, W = idx[keep], H[keep], W[keep]
        y, x, h, w, iy, ix, oh, ow = (a[keep] for a in (y, x, h, w, iy, ix, oh, ow))
    else:
        cpu = np.flatnonzero(~hd.gpu).tolist()
    whole = (y == 0) & (x == 0) & (h == H) & (w == W)
    n_whole = np.count_nonzero(whole)
    if n_whole == idx.size:
        regions: list[Any] = [None] * idx.size
    else:
        regions = list(zip(y.tolist(), x.tolist(), (y + h).tolist(), (x + w).tolist()))
        if n_whole:
            for k in np.flatnonzero(whole).tolist():
                regions[k] = None
    if op.out_name == "GRAY":
        oc: list[int] = [1] * idx.size
    elif op.out_name == "ANY_DATA":
        oc = np.where(hd.ncomp[idx] == 1, 1, 3).tolist()
    else:
        oc = [3] * idx.size
    geometry = (oh.tolist(), ow.tolist(), oc, h.tolist(), w.tolist(), iy.tolist(), ix.tolist())
    return list(map(_gpu_row, zip(idx.tolist(), regions, *geometry))), cpu
