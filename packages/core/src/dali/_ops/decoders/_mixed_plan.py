"""The host planning of the mixed image decoders: headers, windows, the GPU/CPU split.

`plan_batch` reads each sample's JPEG header (`jpeg_info`), works out its display size, asks
the operator for its window (the *same* window functions as the CPU backend, so CPU and mixed
cut the same windows) and splits the batch: the samples nvImageCodec's GPU decoders take, each
with its region and output geometry (`_Gpu`), and the samples left to the CPU backend. No CUDA
here: `_nvimgcodec` runs it in a decoder's worker thread, or in the mixed stage.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._ops.decoders import _codecs
from dali._ops.decoders._jpeg_header import JpegInfo, jpeg_info

if TYPE_CHECKING:
    from dali._ops.decoders.image import _ImageDecoder

__all__ = ["Prepared", "plan_batch"]

#: SOF markers of the Huffman-coded, 8/12-bit DCT processes nvJPEG decodes (baseline, extended,
#: progressive); lossless and arithmetic-coded JPEGs go to the CPU backend.
_GPU_SOF = frozenset({0xC0, 0xC1, 0xC2})


class _Gpu:
    """A sample planned for the GPU: its region and where its pixels go."""

    __slots__ = ("ih", "iw", "ix", "iy", "oc", "oh", "ow", "region", "sample")

    def __init__(
        self, sample: int, region: tuple | None, oh: int, ow: int, oc: int, inner: tuple, off: tuple
    ) -> None:
        self.sample = sample
        self.region = region
        self.oh, self.ow, self.oc = oh, ow, oc
        self.iy, self.ix = off
        self.ih, self.iw = inner


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

    def __init__(self, samples, heads, windows, gpu, cpu, seconds, thread_seconds) -> None:
        self.samples, self.heads, self.windows = samples, heads, windows
        self.gpu, self.cpu = gpu, cpu
        self.seconds, self.thread_seconds = seconds, thread_seconds
        self.decoded: tuple[Any, Any, list[int], int] | None = None


def plan_batch(op: _ImageDecoder, ws: Any) -> Prepared:
    """Step 1 of `_nvimgcodec`'s docstring: headers, windows and the GPU/CPU split; no CUDA."""
    c0 = time.thread_time()
    t0 = time.perf_counter()
    samples = ws.inputs[0]._samples()
    heads, shapes = _headers(op, samples)
    windows = op.windows(ws, len(samples), shapes if op.needs_shapes else None) if samples else None
    gpu, cpu = _plan(op, heads, windows)
    return Prepared(
        samples,
        heads,
        windows,
        gpu,
        cpu,
        time.perf_counter() - t0,
        time.thread_time() - c0,
    )


def _headers(
    op: _ImageDecoder, samples: list[np.ndarray]
) -> tuple[list[tuple[np.ndarray, JpegInfo | None]], np.ndarray]:
    """Each sample's bytes and header, and the display sizes the windows are computed from.

    The header is None for the samples nvImageCodec's GPU decoders do not take (they go to the
    CPU backend); the sizes are ``(n, 2)`` ``(height, width)``, ``-1`` where not known, as
    `image.header_shapes` gives them to the CPU backend.
    """
    from dali._exec.workspace import SampleFailure
    from dali._ops.decoders.image import size_hint

    orient_on = op._orientation
    heads: list[tuple[np.ndarray, JpegInfo | None]] = []
    shapes = np.full((len(samples), 2), -1, dtype=np.int64)
    for i, sample in enumerate(samples):
        try:
            data = op.check_encoded(sample)
            info = None
            if data.size > 4 and data[0] == 0xFF and data[1] == 0xD8:
                info = jpeg_info(data)
            elif data.size > 4:
                size = size_hint(data)
                if size is not None:
                    shapes[i] = size
            if info is not None and info.height > 0 and info.width > 0:
                swap = orient_on and info.orientation >= 5
                shapes[i] = (info.width, info.height) if swap else (info.height, info.width)
            if info is not None and (
                info.sof not in _GPU_SOF
                or info.ncomp not in (1, 3)
                or info.precision != 8
                or info.height == 0
                or info.width == 0
            ):
                info = None
            if info is not None:
                try:
                    _codecs._check_jpeg_complete(data, info.sos)
                except _codecs.DecodeError:
                    info = None  # the CPU backend raises (or skips) with its own message
        except SampleFailure:
            raise
        except Exception as e:
            raise SampleFailure(i, e) from e
        heads.append((data, info))
    return heads, shapes


def _plan(
    op: _ImageDecoder,
    heads: list[tuple[np.ndarray, JpegInfo | None]],
    windows: list[Any] | None,
) -> tuple[list[_Gpu], list[int]]:
    """Split the samples: those for nvImageCodec (with their regions), those for the CPU."""
    from dali._exec.workspace import SampleFailure

    orient_on = op._orientation
    out_name = op._out_name
    gpu: list[_Gpu] = []
    cpu: list[int] = []
    for i, (_, info) in enumerate(heads):
        if info is None:
            cpu.append(i)
            continue
        try:
            H, W = info.height, info.width
            if orient_on and info.orientation >= 5:
                H, W = W, H
            if out_name == "GRAY" or (out_name == "ANY_DATA" and info.ncomp == 1):
                oc = 1
            else:
                oc = 3
            if windows is None:
                inner, pad = (0, 0, H, W), None
            else:
                inner, pad = op.clip(H, W, windows[i](H, W))
            y, x, h, w = inner
            if h <= 0 or w <= 0:
                cpu.append(i)
                continue
            region = None if (y, x, h, w) == (0, 0, H, W) else (y, x, y + h, x + w)
            if pad is None:
                gpu.append(_Gpu(i, region, h, w, oc, (h, w), (0, 0)))
            else:
                oy, ox, ph, pw = pad
                gpu.append(_Gpu(i, region, ph, pw, oc, (h, w), (oy, ox)))
        except SampleFailure:
            raise
        except Exception as e:
            raise SampleFailure(i, e) from e
    return gpu, cpu
