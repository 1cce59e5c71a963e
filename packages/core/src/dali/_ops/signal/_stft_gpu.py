"""The short-time Fourier transform of a GPU batch: two kernel launches and one cuFFT call.

1. ``dali_stft_frames`` cuts the windows of every signal of the batch into one
   ``(total windows, nfft)`` float32 buffer (one block per window; the window function applied
   with the same float32 product as the CPU, the elements past ``window_length`` zero);
2. ``cupy.fft.rfft`` transforms all the windows at once (one batched cuFFT plan);
3. ``dali_stft_spectrum`` turns each bin into its power or magnitude and writes it straight
   into the sample's output, frequency-major (``ft``: transposed on the way) or time-major
   (``tf``).

The per-sample tables (signal addresses, lengths, first window, output offsets) and the window
function travel to the device in one copy (`dali._ops.gpu.kernels.upload`); nothing waits for
the GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu.kernels import (
    BLOCK,
    alloc_outputs,
    device_id,
    input_pointers,
    kernel_module,
    make_output,
    upload,
)

__all__ = ["stft_gpu"]

_SOURCE = r"""
// DALI's idx_reflect_101, repeated for windows wider than the signal; one sample: index 0
__device__ __forceinline__ long long dali_reflect_101(long long i, long long n) {
  if (n < 2) return 0;
  const long long period = 2 * (n - 1);
  long long m = i % period;
  if (m < 0) m += period;
  return m >= n ? period - m : m;
}

extern "C" __global__ void dali_stft_frames(
    const unsigned long long* __restrict__ ptrs, const long long* __restrict__ lengths,
    const int* __restrict__ first_window, int nsamples, const float* __restrict__ window,
    int window_length, int step, int offset, int reflect, int nfft,
    float* __restrict__ frames) {
  const int w = blockIdx.x;
  const int s = dali_find_sample(first_window, nsamples, w);
  const long long n = lengths[s];
  const float* x = reinterpret_cast<const float*>(ptrs[s]);
  const long long start = (long long)(w - first_window[s]) * step - offset;
  float* out = frames + (long long)w * nfft;
  for (int t = threadIdx.x; t < nfft; t += blockDim.x) {
    float v = 0.f;
    if (t < window_length) {
      const long long i = start + t;
      if (reflect)
        v = __fmul_rn(window[t], x[dali_reflect_101(i, n)]);
      else if (i >= 0 && i < n)
        v = __fmul_rn(window[t], x[i]);
    }
    out[t] = v;
  }
}

extern "C" __global__ void dali_stft_spectrum(
    const float2* __restrict__ spec, const int* __restrict__ first_window, int nsamples,
    const int* __restrict__ nwindows, const long long* __restrict__ out_offsets,
    float* __restrict__ out, int nbins, int power, int time_major, long long total) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int w = (int)(idx / nbins);
  const int k = (int)(idx - (long long)w * nbins);
  const int s = dali_find_sample(first_window, nsamples, w);
  const int lw = w - first_window[s];
  const float2 c = spec[idx];
  // no fused multiply-add: the CPU rounds each product
  const float v = power == 2 ? __fadd_rn(__fmul_rn(c.x, c.x), __fmul_rn(c.y, c.y))
                             : hypotf(c.x, c.y);
  float* dst = out + out_offsets[s];
  if (time_major)
    dst[(long long)lw * nbins + k] = v;
  else
    dst[(long long)k * nwindows[s] + lw] = v;
}
"""

_NAMES = ("dali_stft_frames", "dali_stft_spectrum")


def stft_gpu(
    tl: Any,
    counts: list[int],
    window: np.ndarray,
    *,
    step: int,
    nfft: int,
    centered: bool,
    reflect: bool,
    power: int,
    time_major: bool,
) -> Any:
    """The spectrograms of a TensorListGPU of float32 signals (each a 1-D signal, possibly
    with extra dimensions of extent 1), as a TensorListGPU.

    Args:
        tl: The batch (validated by the operator: non-empty 1-D float32 signals).
        counts: The number of windows of each signal (> 0).
        window: The window function, float32.
        step: Samples between window starts.
        nfft: The transform size (>= the window length).
        centered: Windows centred on ``w * step`` (``center_windows``).
        reflect: Mirror the signal outside its bounds (centered windows only), else zeros.
        power: 2 (power) or 1 (magnitude).
        time_major: ``tf`` output, else ``ft``.
    """
    import cupy

    shapes, ptrs, keep = input_pointers(tl)
    n = len(shapes)
    lengths = np.array([int(np.prod(s)) for s in shapes], np.int64)
    nwin = np.asarray(counts, np.int32)
    first = gil.zeros(n, np.int32)
    if n > 1:
        np.cumsum(nwin[:-1], out=first[1:])
    total = int(nwin.sum())
    nbins = nfft // 2 + 1
    out_shapes = [((c, nbins) if time_major else (nbins, c)) for c in counts]
    sizes = nwin.astype(np.int64) * nbins
    offsets = gil.zeros(n, np.int64)
    if n > 1:
        np.cumsum(sizes[:-1], out=offsets[1:])
    ptrs_d, len_d, first_d, nwin_d, off_d, win_d = upload(
        ptrs.astype(np.uint64), lengths, first, nwin, offsets, np.asarray(window, np.float32)
    )
    k = kernel_module(device_id(), _SOURCE, _NAMES)
    frames = cupy.empty((total, nfft), np.float32)
    offset = len(window) // 2 if centered else 0
    k["dali_stft_frames"](
        (total,),
        (BLOCK,),
        (
            ptrs_d, len_d, first_d, np.int32(n), win_d, np.int32(len(window)), np.int32(step),
            np.int32(offset), np.int32(1 if (centered and reflect) else 0), np.int32(nfft),
            frames,
        ),
    )  # fmt: skip
    del keep  # the inputs are read by the queued kernel; the stream orders their reuse
    spec = cupy.fft.rfft(frames, axis=1)
    flat, _ = alloc_outputs(out_shapes, np.float32)
    elements = total * nbins
    k["dali_stft_spectrum"](
        ((elements + BLOCK - 1) // BLOCK,),
        (BLOCK,),
        (
            spec, first_d, np.int32(n), nwin_d, off_d, flat, np.int32(nbins), np.int32(power),
            np.int32(1 if time_major else 0), np.int64(elements),
        ),
    )  # fmt: skip
    return make_output(flat, out_shapes, "tf" if time_major else "ft", np.float32, 2)
