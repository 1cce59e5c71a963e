"""A batch of clips (frames of video files, by number) decoded on the CPU or the GPU.

What the video readers and decoders share once they know, per sample, which file and which
frames (`Clip`): frame numbers in any order with repeats, ``-1`` for a padding frame filled
with a constant colour. `VideoFrames` decodes them with pooled decoders (`_pool`), one sample
per task of the pipeline's threads:

* CPU: `_decode_cpu.CpuDecoder` (PyAV) converts each frame to RGB as it comes out
  (`_color.i420_to_rgb`);
* GPU: `_decode_gpu.GpuDecoder` (NVDEC) returns NV12; the valid frames of the whole batch are
  converted by ONE kernel launch (`_color.nv12_batch_to_rgb`) when the batch's frames share a
  size (else one per size), and a batch of equal sequences without padding is the converted
  buffer itself (no copy).

The output of a sample is ``(F, H, W, 3)`` uint8, layout ``FHWC``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._ops.video._color import nv12_batch_to_rgb
from dali._ops.video._container import VideoIndex
from dali._ops.video._decode_cpu import CpuDecoder
from dali._ops.video._decode_gpu import GpuDecoder
from dali._ops.video._pool import DecoderPool

__all__ = ["PAD_MODES", "Clip", "VideoFrames", "conversion_for", "pad_frames"]


#: how frames past the end of a video are padded (DALI's ``pad_mode``)
PAD_MODES = ("none", "constant", "edge", "reflect_1001", "reflect_101")


def pad_frames(frames: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Frame numbers at or past ``n`` replaced as ``pad_mode`` says (-1: a constant frame).

    Example:
        >>> pad_frames(np.array([3, 4, 5, 6]), 5, "reflect_101").tolist()
        [3, 4, 3, 2]
    """
    frames = np.array(frames, np.int64)
    over = frames >= n
    if mode == "constant":
        frames[over] = -1
    elif mode == "edge":
        frames[over] = n - 1
    elif mode == "reflect_1001":
        frames[over] = np.maximum(2 * n - 1 - frames[over], 0)
    elif mode == "reflect_101":
        frames[over] = np.maximum(2 * n - 2 - frames[over], 0)
    return frames


@dataclasses.dataclass(frozen=True)
class Clip:
    """One output sample: frames of one video."""

    index: VideoIndex
    #: frame numbers (int64); -1 is a padding frame
    frames: np.ndarray
    #: the file's bytes when it is decoded from memory (`decoders.video`), else None
    data: bytes | None = None

    @property
    def valid(self) -> np.ndarray:
        return self.frames[self.frames >= 0]


def conversion_for(index: VideoIndex, ycbcr: bool) -> str:
    """The `_color` conversion of a file: upsampled YCbCr, or RGB from its YUV range."""
    if ycbcr:
        return "ycbcr"
    return "rgb_full" if index.full_range else "rgb"


class VideoFrames:
    """Decodes batches of `Clip` for one operator; holds its decoder pools."""

    def __init__(self, *, ycbcr: bool = False) -> None:
        self._ycbcr = ycbcr
        self._cpu: DecoderPool[CpuDecoder] | None = None
        self._gpu: DecoderPool[GpuDecoder] | None = None

    def close(self) -> None:
        for pool in (self._cpu, self._gpu):
            if pool is not None:
                pool.close()

    # -- CPU --------------------------------------------------------------------------------
    def _cpu_pool(self) -> DecoderPool[CpuDecoder]:
        if self._cpu is None:
            from dali._ops.video._container import index_video

            self._cpu = DecoderPool(
                lambda path: CpuDecoder(index_video(path)),
                lambda d: d.position,
                lambda d: d.close(),
            )
        return self._cpu

    def decode_cpu(self, clip: Clip, fill: np.ndarray) -> np.ndarray:
        """One sample ``(F, H, W, 3)`` uint8 on the CPU."""
        index = clip.index
        valid = clip.valid
        if clip.data is not None:
            decoder = CpuDecoder(index, clip.data)
            try:
                frames = decoder.decode(
                    valid, decoder.rgb_converter(conversion_for(index, self._ycbcr))
                )
            finally:
                decoder.close()
        else:
            pool = self._cpu_pool()
            first = int(valid.min()) if len(valid) else 0
            decoder = pool.take(index.path, first)
            try:
                frames = decoder.decode(
                    valid, decoder.rgb_converter(conversion_for(index, self._ycbcr))
                )
            except BaseException:
                decoder.close()
                raise
            pool.give(index.path, decoder)
        out = np.empty((len(clip.frames), index.height, index.width, 3), np.uint8)
        it = iter(frames)
        for k, f in enumerate(clip.frames.tolist()):
            out[k] = next(it) if f >= 0 else fill
        return out

    # -- GPU --------------------------------------------------------------------------------
    def _gpu_pool(self, device_id: int) -> DecoderPool[GpuDecoder]:
        if self._gpu is None:
            from dali._ops.video._container import index_video

            self._gpu = DecoderPool(
                lambda path: GpuDecoder(index_video(path), device_id),
                lambda d: d.position,
                lambda d: d.close(),
            )
        return self._gpu

    def decode_nv12(self, clip: Clip, device_id: int) -> Any:
        """The valid frames of one sample as NV12 on the GPU (a worker thread's part)."""
        valid = clip.valid
        if clip.data is not None:
            decoder = GpuDecoder(clip.index, device_id, clip.data)
            try:
                return decoder.decode(valid)
            finally:
                decoder.close()
        pool = self._gpu_pool(device_id)
        path = clip.index.path
        decoder = pool.take(path, int(valid.min()) if len(valid) else 0)
        try:
            nv12 = decoder.decode(valid)
        except BaseException:
            decoder.close()
            raise
        pool.give(path, decoder)
        return nv12

    def batch_gpu(
        self, clips: Sequence[Clip], nv12: Sequence[Any], fill: np.ndarray
    ) -> list[Any] | Any:
        """RGB samples from the NV12 frames of `decode_nv12`, one conversion launch per size.

        Returns a dense ``(N, F, H, W, 3)`` CuPy array when every sample has the same shape
        and no padding, else a list of per-sample arrays.
        """
        import cupy as cp

        groups: dict[tuple[int, int, str], list[int]] = {}
        for i, clip in enumerate(clips):
            key = (clip.index.height, clip.index.width, conversion_for(clip.index, self._ycbcr))
            groups.setdefault(key, []).append(i)
        converted: dict[int, Any] = {}
        for (h, w, conversion), members in groups.items():
            stacked = (
                nv12[members[0]]
                if len(members) == 1
                else cp.concatenate([nv12[i] for i in members])
            )
            rgb = nv12_batch_to_rgb(stacked, h, w, conversion)
            if len(groups) == 1 and all(
                len(c.valid) == len(c.frames) == len(clips[0].frames) for c in clips
            ):
                return rgb.reshape(len(clips), len(clips[0].frames), h, w, 3)
            start = 0
            for i in members:
                n = len(clips[i].valid)
                converted[i] = rgb[start : start + n]
                start += n
        samples = []
        fill_dev = cp.asarray(fill, cp.uint8)
        for i, clip in enumerate(clips):
            if len(clip.valid) == len(clip.frames):
                samples.append(converted[i])
                continue
            h, w = clip.index.height, clip.index.width
            out = cp.empty((len(clip.frames), h, w, 3), cp.uint8)
            valid = clip.frames >= 0
            out[cp.asarray(np.flatnonzero(valid))] = converted[i]
            out[cp.asarray(np.flatnonzero(~valid))] = fill_dev
            samples.append(out)
        return samples
