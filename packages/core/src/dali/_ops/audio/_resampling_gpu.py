"""The GPU backend of `audio_resample`: DALI's ``ResampleGPUKernel``, one launch per batch.

Each thread computes one output sample, as DALI's kernel does (``dali/kernels/signal/
resampling_gpu.cuh``): a block of 256 threads takes 256 consecutive outputs, finds its input
origin in double precision (``floor(first_output · in_rate / out_rate)``), and each thread
places itself at ``origin_offset + ratio · thread`` in float32, then accumulates its taps with
fused multiply-adds, the window read from shared memory. The input is normalised to float
(``ConvertInput``) as it is read and the sum converted to the output type with the GPU's
``ConvertSatNorm`` (round half to even, saturated). Because the CPU backend rounds every
product and sums four lanes, CPU and GPU results differ by float rounding (a few units in the
last place); DALI's tests compare its own backends the same way.

The batch is one launch: the samples' descriptors (pointers, lengths, channels, ratio) and the
first block of every sample travel in one upload (`dali._ops.gpu.kernels.upload`), blocks find
their sample by binary search, and the outputs are carved from one buffer.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._exec import gil
from dali._ops.gpu import kernels as gk

if TYPE_CHECKING:
    from dali._ops.audio._resampling import Window

__all__ = ["resample_batch_gpu"]

#: Channels accumulated at once by a thread (DALI's ``SHM_NCHANNELS``).
_CHUNK_CHANNELS = 16

_DESC = np.dtype(
    [
        ("in_ptr", np.uint64),
        ("out_ptr", np.uint64),
        ("in_len", np.int64),
        ("out_len", np.int64),
        ("scale", np.float64),
        ("nchannels", np.int32),
        ("pad", np.int32),
    ],
    align=True,
)

_SOURCE = r"""
struct dali_resample_desc {
  unsigned long long in_ptr, out_ptr;
  long long in_len, out_len;
  double scale;
  int nchannels, pad;
};

// DALI's ResamplingWindow::operator(): the tabulated window, linearly interpolated
__device__ __forceinline__ float dali_resample_window(const float* lut, float wscale,
                                                      float wcenter, float x) {
  float fi = x * wscale + wcenter;
  float floori = floorf(fi);
  float di = fi - floori;
  int k = (int)floori;
  return lut[k] + di * (lut[k + 1] - lut[k]);
}

// DALI's ConvertInput<Out, In>: normalised, squeezed to 0..1 for an unsigned output of a
// signed input (mode 1), or centred for a signed output of an unsigned input (mode 2)
template <typename In>
__device__ __forceinline__ float dali_resample_in(In v, float in_scale, int mode) {
  float f = dali_same<In, float>::value ? dali_to_float(v) : dali_to_float(v) * in_scale;
  if (mode == 1) return (f + 1.0f) * 0.5f;
  if (mode == 2) return f * 2.0f - 1.0f;
  return f;
}

template <typename Out>
__device__ __forceinline__ Out dali_resample_out(float v, float out_max) {
  if (dali_same<Out, float>::value) return dali_round_even<Out>(v);
  return dali_round_even<Out>(v * out_max);
}

template <typename In, typename Out>
__global__ void dali_audio_resample(const dali_resample_desc* __restrict__ descs,
                                    const int* __restrict__ block_start, int nsamples,
                                    const float* __restrict__ lookup, int lookup_size,
                                    float wscale, float wcenter, int lobes,
                                    float in_scale, int in_mode, float out_max) {
  extern __shared__ float lut[];
  for (int k = threadIdx.x; k < lookup_size; k += blockDim.x) lut[k] = lookup[k];
  __syncthreads();

  const int s = dali_find_sample(block_start, nsamples, blockIdx.x);
  const dali_resample_desc d = descs[s];
  const long long out_block_start = (long long)(blockIdx.x - block_start[s]) * blockDim.x;
  const long long out_pos = out_block_start + threadIdx.x;
  if (out_pos >= d.out_len) return;

  const double scale = d.scale;
  const float fscale = scale;
  const int nch = d.nchannels;
  // the block's input origin in double, the thread's offset from it in float32
  double in_block_f = out_block_start * scale;
  long long in_block_i = floor(in_block_f);
  float in_pos_start = in_block_f - in_block_i;
  float in_pos = in_pos_start + fscale * threadIdx.x;

  int xc = ceilf(in_pos);
  int i0 = xc - lobes;
  int i1 = xc + lobes;
  if (i0 + in_block_i < 0) i0 = -in_block_i;
  if (i1 + in_block_i > d.in_len) i1 = d.in_len - in_block_i;

  const In* in = reinterpret_cast<const In*>(d.in_ptr) + in_block_i * nch;
  Out* out = reinterpret_cast<Out*>(d.out_ptr) + out_pos * nch;
  if (nch == 1) {
    float acc = 0;
    for (int i = i0; i < i1; i++) {
      float v = dali_resample_in<In>(in[i], in_scale, in_mode);
      float x = i - in_pos;
      float w = dali_resample_window(lut, wscale, wcenter, x);
      acc = fmaf(v, w, acc);
    }
    out[0] = dali_resample_out<Out>(acc, out_max);
    return;
  }
  for (int c0 = 0; c0 < nch; c0 += CHUNK) {
    const int nc = min(CHUNK, nch - c0);
    float acc[CHUNK];
    for (int c = 0; c < CHUNK; c++) acc[c] = 0;
    for (int i = i0; i < i1; i++) {
      float x = i - in_pos;
      float w = dali_resample_window(lut, wscale, wcenter, x);
      const In* px = in + (long long)i * nch + c0;
      for (int c = 0; c < nc; c++)
        acc[c] = fmaf(dali_resample_in<In>(px[c], in_scale, in_mode), w, acc[c]);
    }
    for (int c = 0; c < nc; c++) out[c0 + c] = dali_resample_out<Out>(acc[c], out_max);
  }
}
""".replace("CHUNK", str(_CHUNK_CHANNELS))


def _kernel(in_dtype: np.dtype[Any], out_dtype: np.dtype[Any]) -> Any:
    name = f"dali_audio_resample<{gk.c_type(in_dtype)}, {gk.c_type(out_dtype)}>"
    return gk.kernel_module(gk.device_id(), _SOURCE, (name,))[name]


@functools.cache
def _device_lookup(device: int, lobes: int) -> Any:
    """The window's table on ``device`` (uploaded once per device and quality)."""
    import cupy

    from dali._ops.audio._resampling import window_for_lobes

    return cupy.asarray(window_for_lobes(lobes).lookup)


def _input_mode(in_dtype: np.dtype[Any], out_dtype: np.dtype[Any]) -> tuple[float, int]:
    """``ConvertInput``'s scale and mode (1: squeeze to 0..1, 2: half-range to 0)."""
    scale = (
        1.0 if in_dtype.kind == "f" else float(np.float32(1) / np.float32(np.iinfo(in_dtype).max))
    )
    if out_dtype.kind == "u" and in_dtype.kind in "if":
        return scale, 1
    if out_dtype.kind != "u" and in_dtype.kind == "u":
        return scale, 2
    return scale, 0


def resample_batch_gpu(
    tl: Any,
    rates: list[tuple[float, float]],
    out_lengths: list[int],
    window: Window,
    out_dtype: np.dtype[Any],
) -> Any:
    """Resample a TensorListGPU of ``(n,)`` or ``(n, channels)`` samples in one launch.

    Args:
        tl: The input batch (types of `dali._ops.audio.resample.SUPPORTED`).
        rates: ``(in_rate, out_rate)`` per sample (doubles, as DALI's kernel arguments).
        out_lengths: The output length of every sample.
        window: The resampling window.
        out_dtype: The output type.

    Returns:
        A TensorListGPU with the input's layout.
    """
    in_dtype = np.dtype(tl.np_dtype)
    shapes, shape_arr, in_ptrs, keep = gk.input_batch(tl)
    n = len(shapes)
    ndim = tl.sample_ndim
    out_shapes = [(int(m), *s[1:]) for m, s in zip(out_lengths, shapes)]
    flat, out_ptrs = gk.alloc_outputs(out_shapes, out_dtype)
    if n:
        descs = gil.zeros(n, _DESC)
        descs["in_ptr"] = in_ptrs
        descs["out_ptr"] = out_ptrs
        descs["in_len"] = shape_arr[:, 0] if ndim else 0
        descs["out_len"] = out_lengths
        descs["nchannels"] = shape_arr[:, 1] if ndim == 2 else 1
        descs["scale"] = [a / b if b else math.inf for a, b in rates]
        blocks = [-(-int(m) // gk.BLOCK) for m in out_lengths]
        starts, total = gk.block_starts(blocks)
        if total:
            dev_descs, dev_starts = gk.upload(descs, starts)
            lookup = _device_lookup(gk.device_id(), window.lobes)
            in_scale, mode = _input_mode(in_dtype, out_dtype)
            out_max = 1.0 if out_dtype.kind == "f" else float(np.iinfo(out_dtype).max)
            _kernel(in_dtype, out_dtype)(
                (total,),
                (gk.BLOCK,),
                (
                    dev_descs,
                    dev_starts,
                    np.int32(n),
                    lookup,
                    np.int32(lookup.size),
                    np.float32(window.scale),
                    np.float32(window.center),
                    np.int32(window.lobes),
                    np.float32(in_scale),
                    np.int32(mode),
                    np.float32(out_max),
                ),
                shared_mem=int(lookup.size) * 4,
            )
    del keep  # the inputs stay alive until the launch is queued
    return gk.make_output(flat, out_shapes, tl.layout(), out_dtype, ndim)
