"""What the batched CuPy kernels of the image operators share (GPU backend).

Every GPU image operator here makes ONE kernel launch per batch (the separable fallback of
`resample.gpu` makes one per spatial axis), whatever the shapes of the samples:

* the geometry (sizes, regions, filters, matrices) is computed on the host with the CPU
  backend's arithmetic — over the whole batch with numpy where a per-sample Python loop would
  cost more than the kernel (resize, crop_mirror_normalize) — then packed into one array of
  per-sample C structs (``numpy`` structured dtypes with ``align=True`` mirror the CUDA structs;
  each kernel asserts the size);
* that array, the per-sample first block numbers and any small extra table travel to the device
  in ONE host-to-device copy (`upload`), on the current stream;
* the grid is one-dimensional: sample ``s`` owns blocks ``block_start[s]`` to
  ``block_start[s + 1] - 1``, and each block finds its sample with a binary search
  (``dali_find_sample``), so ragged batches waste no blocks;
* the outputs of all samples are carved out of one buffer (`alloc_outputs`) and returned as a
  `TensorListGPU` (dense when the shapes agree).

Nothing here waits for the GPU: kernels are queued on CuPy's current stream (the executor makes
the pipeline's stream current), the upload is staged through pinned memory by CuPy, and
temporary device buffers go back to CuPy's stream-ordered pool.

Kernels that vary by element type are C++ templates compiled per type pair by a factory memoised
per device (`kernel_module`); kernel names start with ``dali_`` so that profiles read well.

Example:
    >>> import numpy as np
    >>> starts, total = block_starts([3, 0, 2])
    >>> starts.tolist(), total
    ([0, 3, 3], 5)
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dali._exec import gil

__all__ = [
    "BLOCK",
    "C_TYPES",
    "PRELUDE",
    "HeldKernel",
    "alloc_outputs",
    "block_starts",
    "c_type",
    "device_id",
    "field_words",
    "host_image",
    "input_batch",
    "input_pointers",
    "is_uniform",
    "kernel_module",
    "make_output",
    "packed_addresses",
    "uniform_addresses",
    "upload",
]

#: Threads per block of every kernel here.
BLOCK = 256

#: numpy dtype -> the C type the kernels use for it (float16 is a 16-bit struct: no headers).
C_TYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int16): "short",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int32): "int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.int64): "long long",
    np.dtype(np.float16): "dali_half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}

#: CUDA source shared by every module: element types, conversions, the sample search.
PRELUDE = r"""
typedef long long i64;

// float16 as raw bits: NVRTC then needs no CUDA headers
struct dali_half { unsigned short bits; };

__device__ __forceinline__ int dali_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// The sample that owns `block`: the last s with block_start[s] <= block (empty samples own none).
__device__ __forceinline__ int dali_find_sample(const int* __restrict__ block_start, int n,
                                                int block) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (block_start[mid] <= block) lo = mid; else hi = mid - 1;
  }
  return lo;
}

__device__ __forceinline__ float dali_half_to_float(unsigned short h) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  return dali_emu_half_to_float(h);
#endif
}

__device__ __forceinline__ unsigned short dali_float_to_half(float f) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  return dali_emu_float_to_half(f);
#endif
}

// element -> float32, as numpy's astype(float32) (round to nearest for wide integers)
__device__ __forceinline__ float dali_to_float(bool v) { return v ? 1.f : 0.f; }
__device__ __forceinline__ float dali_to_float(unsigned char v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(signed char v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(unsigned short v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(short v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(unsigned int v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(int v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(unsigned long long v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(long long v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(float v) { return v; }
__device__ __forceinline__ float dali_to_float(double v) { return (float)v; }
__device__ __forceinline__ float dali_to_float(dali_half v) { return dali_half_to_float(v.bits); }

// float32 -> element. dali_round_trunc: resampling's trunc(v + 0.5), saturated
// (`resample.reference.convert_output`); dali_round_even: warping's rint, saturated
// (`convert_sat`).
template <typename T> __device__ T dali_round_trunc(float v);
template <typename T> __device__ T dali_round_even(float v);

#define DALI_INT_CONVERSIONS(T, LO, HI)                                          \
  template <> __device__ __forceinline__ T dali_round_trunc<T>(float v) {        \
    const float t = truncf(__fadd_rn(v, 0.5f));                                  \
    return (T)fminf(fmaxf(t, LO), HI);                                           \
  }                                                                              \
  template <> __device__ __forceinline__ T dali_round_even<T>(float v) {         \
    return (T)fminf(fmaxf(rintf(v), LO), HI);                                    \
  }

DALI_INT_CONVERSIONS(unsigned char, 0.f, 255.f)
DALI_INT_CONVERSIONS(signed char, -128.f, 127.f)
DALI_INT_CONVERSIONS(unsigned short, 0.f, 65535.f)
DALI_INT_CONVERSIONS(short, -32768.f, 32767.f)
DALI_INT_CONVERSIONS(unsigned int, 0.f, 4294967295.f)
DALI_INT_CONVERSIONS(int, -2147483648.f, 2147483647.f)
DALI_INT_CONVERSIONS(unsigned long long, 0.f, 18446744073709551615.f)
DALI_INT_CONVERSIONS(long long, -9223372036854775808.f, 9223372036854775807.f)

template <> __device__ __forceinline__ bool dali_round_trunc<bool>(float v) { return v >= 0.5f; }
template <> __device__ __forceinline__ bool dali_round_even<bool>(float v) { return v != 0.f; }
template <> __device__ __forceinline__ float dali_round_trunc<float>(float v) { return v; }
template <> __device__ __forceinline__ float dali_round_even<float>(float v) { return v; }
template <> __device__ __forceinline__ double dali_round_trunc<double>(float v) { return v; }
template <> __device__ __forceinline__ double dali_round_even<double>(float v) { return v; }
template <> __device__ __forceinline__ dali_half dali_round_trunc<dali_half>(float v) {
  dali_half h; h.bits = dali_float_to_half(v); return h;
}
template <> __device__ __forceinline__ dali_half dali_round_even<dali_half>(float v) {
  dali_half h; h.bits = dali_float_to_half(v); return h;
}

template <typename A, typename B> struct dali_same { static const bool value = false; };
template <typename A> struct dali_same<A, A> { static const bool value = true; };
"""


def c_type(dtype: Any) -> str:
    """The kernels' C type for a numpy dtype.

    Raises:
        TypeError: For types the kernels do not handle.
    """
    try:
        return C_TYPES[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"unsupported element type {np.dtype(dtype)} on the GPU") from None


def device_id() -> int:
    """The current CUDA device (kernels are compiled and cached per device)."""
    import cupy

    return int(cupy.cuda.Device().id)


@functools.cache
def kernel_module(device: int, source: str, name_expressions: tuple[str, ...]) -> dict[str, Any]:
    """Compile ``PRELUDE + source`` for ``device`` once; returns ``{name: kernel}``.

    ``name_expressions`` names the kernels to fetch: plain ``extern "C"`` names or template
    instantiations such as ``"dali_warp<unsigned char, float>"``. The cache is keyed by the
    device, so a pipeline on another GPU gets its own module (CuPy loads a module on the
    device that is current when it is first used).
    """
    import cupy

    module = cupy.RawModule(
        code=PRELUDE + source,
        options=("--std=c++17",),
        name_expressions=list(dict.fromkeys(n for n in name_expressions if "<" in n)),
    )
    return {name: HeldKernel(module.get_function(name)) for name in name_expressions}


class HeldKernel:
    """A CuPy raw kernel launched without giving up the GIL (`dali._exec.held.launch`).

    Called as CuPy's: ``kernel(grid, block, args, shared_mem=0, stream=None)``, on the current
    stream by default. A launch that gives the GIL up waits to take it back behind the threads
    running Python meanwhile (up to the interpreter's switch interval); the pipeline's GPU
    stage launches a few kernels per operator and batch. Arguments other than CuPy arrays and
    numpy scalars, and failures, go through CuPy's own launch (which raises its error).
    """

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self._function: int | None = None

    def __getattr__(self, name: str) -> Any:  # the raw kernel's attributes (attributes, ...)
        return getattr(self.kernel, name)

    def __call__(
        self,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: tuple[Any, ...],
        *,
        shared_mem: int = 0,
        stream: Any = None,
    ) -> None:
        import cupy

        from dali._exec import held

        if self._function is None:
            # loaded for the device current at the first launch: a kernel is made (and cached)
            # per device (`kernel_module`)
            self._function = int(self.kernel.kernel.ptr)
        s = cupy.cuda.get_current_stream() if stream is None else stream
        if not held.launch(self._function, grid, block, args, shared_mem, s.ptr):
            self.kernel(grid, block, args, shared_mem=shared_mem, stream=stream)


def field_words(dtype: np.dtype[Any]) -> list[int]:
    """Where each field of a record dtype starts, in 4-byte words (the compiled planners write
    records through an int32 view, and check their offsets with this)."""
    fields, names = dtype.fields, dtype.names
    assert fields is not None and names is not None, f"{dtype} is not a record dtype"
    return [fields[name][1] // 4 for name in names]


def block_starts(blocks: Sequence[int] | np.ndarray) -> tuple[np.ndarray, int]:
    """First block of every sample (int32) and the total number of blocks.

    Summed in Python integers: numpy's zeroed array and running sum of a large batch give the
    GIL up (`dali._exec.gil`)."""
    counts = np.asarray(blocks, dtype=np.int64).reshape(-1).tolist()
    starts = list(itertools.accumulate(counts, initial=0))
    total = starts.pop()
    if total >= 2**31:
        raise ValueError("the batch is too large for one kernel launch")
    return np.array(starts, np.int32), total


def upload(*arrays: np.ndarray) -> list[Any]:
    """Copy host arrays to the device in ONE transfer; returns a device view of each.

    The views are uint8 slices of one buffer (each starts 16-byte aligned); kernels take them as
    typed pointers. The copy is staged through pinned memory on the current stream (the
    pipeline's staging inside a pipeline, CuPy's outside), so the host does not wait for the GPU.
    """
    import cupy

    from dali._exec import device

    host, offsets = host_image(*arrays)
    ctx = device.current()
    if ctx is None:  # (outside a pipeline)
        dev = cupy.asarray(host)
    else:  # through the pipeline's pinned staging (`CudaContext.upload_bytes`)
        dev = cupy.empty(host.nbytes, np.uint8)
        ctx.upload_bytes(dev.data.ptr, host)
    return [dev[off : off + max(a.nbytes, 1)] for a, off in zip(arrays, offsets)]


def host_image(*arrays: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The bytes `upload` sends: the arrays back to back, each 16-byte aligned, and where each
    starts.

    Made of Python bytes (``tobytes`` copies with the GIL held), not by zeroing a numpy buffer
    and copying into it: numpy gives the GIL up for both above a few hundred elements, and each
    re-take can wait for the switch interval (`dali._exec.gil`).
    """
    parts: list[bytes] = []
    offsets = []
    size = 0
    for a in arrays:
        pad = -size % 16
        if pad:
            parts.append(bytes(pad))
            size += pad
        offsets.append(size)
        data = a.tobytes()  # C order, whatever the array's strides
        parts.append(data)
        size += len(data)
    if size < 16:
        parts.append(bytes(16 - size))
    return np.frombuffer(b"".join(parts), np.uint8), offsets


def input_pointers(tl: Any) -> tuple[list[tuple[int, ...]], np.ndarray, list[Any]]:
    """Shapes, device addresses (uint64) and the C-contiguous arrays of a TensorListGPU's samples.

    A dense contiguous batch is addressed as one buffer plus offsets; other samples are made
    contiguous first when needed (a device copy, queued on the current stream). The returned
    arrays must stay referenced until the kernel is queued.
    """
    shapes, _, ptrs, keep = input_batch(tl)
    return shapes, ptrs, keep


def input_batch(tl: Any) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, list[Any]]:
    """`input_pointers`, plus the shapes as one ``(n, ndim)`` int64 array.

    Per-sample work is kept to reading each shape: a dense batch and a batch whose samples lie
    back to back in one buffer (``flat()``: what the decoders and these kernels return) are
    addressed as that buffer plus offsets, without touching the samples.

    The arrays only need ``shape``, ``itemsize``, ``flags.c_contiguous`` and ``data.ptr``
    (CuPy's); CuPy itself is imported only to copy a non-contiguous sample.
    """
    dense = tl.held_dense
    if dense is not None:
        if not dense.flags.c_contiguous:
            dense = _contiguous(dense)
        n = int(dense.shape[0])
        shape = tuple(int(v) for v in dense.shape[1:])
        ptrs = uniform_addresses(dense.data.ptr, math.prod(shape) * dense.itemsize, n)
        # the rows from bytes: filling an array gives the GIL up (`dali._exec.gil`)
        row = np.array(shape, np.int64).tobytes()
        arr = np.frombuffer(bytearray(row * n), np.int64).reshape(n, len(shape))
        return [shape] * n, arr, ptrs, [dense]
    packed = tl.flat()
    if packed is not None:  # the samples lie back to back in one buffer, in order
        flat, shapes = packed
        arr = np.array(shapes, np.int64).reshape(len(shapes), tl.sample_ndim)
        ptrs, _ = packed_addresses(flat.data.ptr, shapes, flat.itemsize)
        return shapes, arr, ptrs, [flat]
    samples = tl.samples()
    shapes = [s.shape for s in samples]
    arr = np.array(shapes, np.int64).reshape(len(shapes), tl.sample_ndim)
    samples = [s if s.flags.c_contiguous else _contiguous(s) for s in samples]
    ptrs = np.array([s.data.ptr for s in samples], dtype=np.uint64)
    return shapes, arr, ptrs, samples


def _contiguous(a: Any) -> Any:
    """A C-contiguous copy of a device array (queued on the current stream)."""
    import cupy

    return cupy.ascontiguousarray(a)


def is_uniform(shapes: Sequence[tuple[int, ...]]) -> bool:
    """Whether every shape equals the first (``list.count`` compares in C: no Python loop)."""
    if not isinstance(shapes, (list, tuple)):
        shapes = list(shapes)
    return bool(shapes) and shapes.count(shapes[0]) == len(shapes)


def alloc_outputs(shapes: Sequence[tuple[int, ...]], dtype: Any) -> tuple[Any, np.ndarray]:
    """One device buffer for all outputs; returns it and each sample's address (uint64)."""
    import cupy

    dtype = np.dtype(dtype)
    if is_uniform(shapes):
        size = math.prod(shapes[0])
        flat = cupy.empty(size * len(shapes), dtype=dtype)
        return flat, uniform_addresses(flat.data.ptr, size * dtype.itemsize, len(shapes))
    total = sum(map(math.prod, shapes))
    flat = cupy.empty(total, dtype=dtype)
    return flat, packed_addresses(flat.data.ptr, shapes, dtype.itemsize)[0]


def uniform_addresses(base: int, step: int, n: int) -> np.ndarray:
    """``base + k * step`` for k < n, uint64, computed in blocks of rows that keep the GIL
    (`dali._exec.gil`: numpy gives it up in operations over more than 500 values)."""
    base64, step64 = np.uint64(base), np.uint64(step)
    return gil.by_rows(lambda k: (base64 + k * step64,), n, 1, gil.arange(n, np.uint64))[0]


def packed_addresses(
    base: int, shapes: Sequence[tuple[int, ...]], itemsize: int
) -> tuple[np.ndarray, int]:
    """The address (uint64) of each sample of ``shapes`` back to back from ``base``, and the
    elements of all of them; Python integers, so that the GIL is kept (numpy's products,
    zeroed offsets and sums of a large batch give it up, `dali._exec.gil`)."""
    starts = list(itertools.accumulate(map(math.prod, shapes), initial=0))
    base, itemsize = int(base), int(itemsize)
    ptrs = np.array([base + start * itemsize for start in starts[:-1]], np.uint64)
    return ptrs, starts[-1]


def make_output(
    flat: Any, shapes: Sequence[tuple[int, ...]], layout: str, dtype: Any, ndim: int
) -> Any:
    """The TensorListGPU over ``flat``: dense when all shapes agree, else per-sample views."""
    from dali._tensors import TensorListGPU

    if not shapes:
        return TensorListGPU.wrap([], layout=layout, dtype=dtype, ndim=ndim)
    if is_uniform(shapes):
        return TensorListGPU.wrap(flat.reshape((len(shapes), *shapes[0])), layout=layout)
    # back to back: kernels address it as the buffer plus offsets, views only when asked for
    return TensorListGPU.wrap_flat(flat, list(shapes), layout=layout)
