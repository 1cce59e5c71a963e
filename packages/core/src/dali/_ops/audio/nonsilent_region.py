"""`fn.nonsilent_region`: where the sound is, between leading and trailing silence.

The short-term power of the signal is its moving mean square: ``mms[p]`` is the sum of the
squares of the ``w`` samples ending at ``p`` (fewer at the start), divided by ``w``
(``window_length``, or the signal's length when shorter). A position is *loud* when
``10 * log10(mms[p] / reference_power) >= cutoff_db``, that is when
``mms[p] >= reference_power * 10 ** (cutoff_db / 10)``, the reference being the largest
``mms`` of the sample unless given. The non-silent region runs from the first loud position to
the last one, its start moved back by ``w - 1`` samples (not before 0; not at all when the
first loud position is 0), since the sound may lie anywhere in that window. The operator
returns its start and length as two int32 scalars per sample, ``(0, 0)`` for a silent signal.

The moving sum is DALI's (``dali/kernels/signal/moving_mean_square.cc``), computed exactly as
it computes it, so that the thresholds fall where DALI's do: for float32 input and 32/64-bit
integers, squares and running sums in float32, per position the square leaving the window
subtracted and the one entering it added (each rounded), the sum recomputed from scratch
every ``reset_interval`` positions (float32 input only); for 8/16-bit integers, an exact int64
sum. On the CPU the running sums are float32 cumulative sums (numpy adds them one after the
other, as DALI's loop does); when Numba is installed one compiled call per sample runs DALI's
loop itself (the squares made on the way), keeps the largest value and looks for the first and
the last loud position from either end, with the same bits and region. The GPU backend runs
one thread per recomputed stretch and one block per sample for the thresholds: two kernel
launches per batch, the outputs stay on the device. (DALI's GPU operator copies the data to the
host and runs the CPU code.)

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> x = np.zeros(21, np.float32)
    >>> x[10:15] = 1.0
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x_in = fn.external_source(lambda: [x])
    ...     return tuple(fn.nonsilent_region(x_in, window_length=5, reset_interval=-1))
    >>> begin, length = pipe().run()
    >>> int(begin.as_array()[0]), int(length.as_array()[0])  # 10 - (5 - 1), 5 + 2 * (5 - 1)
    (6, 13)
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, type_name
from dali._graph.schema import Arg, register
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["NonsilentRegion", "moving_mean_square", "nonsilent_region"]

_F = np.float32
#: DALI's input types (``NONSILENCE_TYPES``)
TYPES = frozenset(
    np.dtype(t)
    for t in (
        np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
        np.float32,
    )
)  # fmt: skip


def _exact(dtype: np.dtype[Any]) -> bool:
    """8- and 16-bit integers: DALI sums their squares exactly, in int64."""
    return dtype.kind in "iu" and dtype.itemsize <= 2


#: Elements gathered at a time for the full window sums of `moving_mean_square`.
_GATHER_LIMIT = 1 << 22


def _chunk(n: int, reset: int) -> int:
    """Positions of the moving sum that follow from one full window sum (DALI's reset
    interval; -1: the whole signal)."""
    return reset if reset != -1 else n


@functools.cache
def _kernels() -> tuple[Any, Any] | None:
    """The compiled float32 moving mean square and the whole region search built on it, or
    None when Numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=True, inline="always")
    def sums(v, square, w, step, mean, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        # DALI's loop as it is: float32 sums, the leaving square subtracted before the
        # entering one is added, a fresh sum every `step` positions; `v` holds the squares,
        # or (square=True) the float32 signal itself. Returns the largest value (NaN if any).
        n = v.shape[0]
        best = np.float32(-np.inf)
        nan = False
        for start in range(0, n, step):
            s = np.float32(0)
            for q in range(max(start - w + 1, 0), start + 1):
                a = v[q]
                s += a * a if square else a
            m = s * mean
            out[start] = m
            nan |= np.isnan(m)
            best = max(best, m)
            for p in range(start + 1, min(start + step, n)):
                if p >= w:
                    a = v[p - w]
                    s -= a * a if square else a
                a = v[p]
                s += a * a if square else a
                m = s * mean
                out[p] = m
                nan |= np.isnan(m)
                best = max(best, m)
        return np.float32(np.nan) if nan else best

    @numba.njit(nogil=True, cache=True)
    def mms(sq, w, step, mean, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        sums(sq, False, w, step, mean, out)

    @numba.njit(nogil=True, cache=True)
    def region(v, square, w, step, mean, ratio, reference, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        # `nonsilent_region` in one call: the moving mean square, its largest value (unless
        # `reference` is given: >= 0), the first and the last position at the threshold
        n = v.shape[0]
        top = sums(v, square, w, step, mean, out)
        threshold = (top if reference < 0 else reference) * ratio
        first = -1
        for p in range(n):
            if out[p] >= threshold:
                first = p
                break
        if first < 0:
            return 0, 0
        last = first
        for p in range(n - 1, first, -1):
            if out[p] >= threshold:
                last = p
                break
        begin, length = first, last - first + 1
        if begin != 0:  # the sound may start anywhere in the window ending at `begin`
            start = max(begin - (w - 1), 0)
            length += begin - start
            begin = start
        return begin, length

    return mms, region


def _kernel() -> Any:
    """The compiled float32 moving mean square, or None when Numba is not installed."""
    kernels = _kernels()
    return None if kernels is None else kernels[0]


def moving_mean_square(
    x: np.ndarray, w: int, reset: int, *, use_numba: bool | None = None
) -> np.ndarray:
    """DALI's moving mean square of ``x``: ``len(x)`` float32 values, bit for bit; value
    ``p`` is the sum of the squares of the window *ending* at ``p`` (fewer values for
    ``p < w - 1``), divided by ``w``.

    Args:
        x: A 1-D signal of one of DALI's types, ``len(x) >= w >= 1``.
        w: The window length.
        reset: Recompute the sum from scratch every ``reset`` positions (float32 input
            only); -1: never.
        use_numba: Force the compiled (True) or the numpy (False) path of the float32 sums;
            None: the compiled one when Numba is installed. Both give the same bits.

    Example:
        >>> moving_mean_square(np.array([1, 2, 3], np.int16), 2, -1).tolist()
        [0.5, 2.5, 6.5]
    """
    n = len(x)
    mean = _F(_F(1) / _F(w))
    if _exact(x.dtype):
        cs = np.cumsum(x.astype(np.int64) ** 2)
        sums = cs.copy()
        sums[w:] -= cs[: n - w]
        out: np.ndarray = sums.astype(_F) * mean
        return out
    sq = x.astype(_F)
    sq *= sq
    step = _chunk(n, reset if x.dtype == np.float32 else -1)
    kernel = _kernel() if use_numba is not False else None
    if kernel is not None:
        result = np.empty(n, _F)
        kernel(sq, w, step, mean, result)
        return result
    if use_numba:
        raise RuntimeError("the compiled moving mean square needs Numba (pip install numba)")
    starts = np.arange(0, n, step)
    # Every stretch starts with its window summed one value after the other (a window of
    # leading zeros adds nothing: 0 + v is v) ...
    padded = np.concatenate([np.zeros(w - 1, _F), sq])
    first = np.empty(len(starts), _F)
    per_block = max(1, _GATHER_LIMIT // w)
    cols = np.arange(w)
    for b in range(0, len(starts), per_block):
        block = starts[b : b + per_block]
        first[b : b + len(block)] = np.cumsum(padded[block[:, None] + cols], axis=1)[:, -1]
    # ... then, position by position, subtracts the square leaving the window and adds the one
    # entering it, each rounded to float32: one cumulative sum over the interleaved terms
    # (-old, +new); -0.0 where nothing leaves (0 - 0 is exact).
    terms = np.empty((n, 2), _F)
    terms[:, 0] = -0.0
    terms[w:, 0] = -sq[: n - w]
    terms[:, 1] = sq
    terms[starts, 0] = first
    terms[starts, 1] = -0.0
    flat = terms.reshape(-1)
    full = n // step
    rows = flat[: full * step * 2].reshape(full, 2 * step)
    np.cumsum(rows, axis=1, out=rows)
    tail = flat[full * step * 2 :]
    np.cumsum(tail, out=tail)
    out = terms[:, 1] * mean
    return out


def db_to_ratio(cutoff_db: float) -> np.float32:
    """``10 ** (cutoff_db / 10)`` in float32, as DALI's ``DecibelToMagnitude`` (``powf``)."""
    e = _F(_F(cutoff_db) * _F(_F(1) / _F(10)))
    try:
        return _F(math.pow(10.0, float(e)))
    except OverflowError:
        return _F(np.inf)


def nonsilent_region(
    x: np.ndarray,
    cutoff_db: float,
    window_length: int,
    reference: float | None,
    reset: int,
    *,
    use_numba: bool | None = None,
) -> tuple[int, int]:
    """``(begin, length)`` of the non-silent region of one signal (``(0, 0)``: silent).

    Args:
        x: The 1-D signal.
        cutoff_db: The threshold in dB below the reference.
        window_length: The window of the short-term power (clamped to the signal's length).
        reference: The reference power; None: the largest short-term power.
        reset: See `moving_mean_square`.
        use_numba: Force the compiled (True: one pass for float32 and 32/64-bit integers) or
            the numpy (False) path; None: the compiled one when Numba is installed. Both give
            the same region.
    """
    n = len(x)
    if n == 0:
        return 0, 0
    w = min(window_length, n)
    kernels = _kernels() if use_numba is not False else None
    if kernels is not None and not _exact(x.dtype):
        # one compiled pass (the squares of float32 input made on the way)
        square = x.dtype == np.float32
        v = np.ascontiguousarray(x) if square else x.astype(_F) ** 2
        step = _chunk(n, reset if square else -1)
        ratio = db_to_ratio(cutoff_db)
        ref = _F(-1) if reference is None else _F(reference)
        begin, length = kernels[1](
            v, square, w, step, _F(_F(1) / _F(w)), ratio, ref, np.empty(n, _F)
        )
        return int(begin), int(length)
    mms = moving_mean_square(x, w, reset, use_numba=use_numba)
    ref = _F(mms.max()) if reference is None else _F(reference)
    loud = np.flatnonzero(mms >= _F(ref * db_to_ratio(cutoff_db)))
    if not len(loud):
        return 0, 0
    begin, length = int(loud[0]), int(loud[-1] - loud[0]) + 1
    if begin != 0:  # the sound may start anywhere in the window ending at `begin`
        start = max(begin - (w - 1), 0)
        length += begin - start
        begin = start
    return begin, length


_GPU_SOURCE = r"""
struct dali_nonsilence_sample {
  unsigned long long in;
  long long n, w, chunk, mms;  // mms: offset of the sample's moving mean square
};

template <typename T> __device__ __forceinline__ long long dali_sq_exact(T v) {
  return (long long)v * (long long)v;
}
template <typename T> __device__ __forceinline__ float dali_sq(T v) {
  const float f = (float)v;
  return __fmul_rn(f, f);
}

// One thread per stretch of positions that follows from one full window sum (DALI's reset
// interval): the window ending at the first position summed, then per position the square
// leaving the window subtracted and the one entering it added, each rounded as DALI rounds.
template <typename T, bool EXACT>
__global__ void dali_moving_mean_square(const dali_nonsilence_sample* __restrict__ samples,
                                        const int* __restrict__ first_chunk, int nsamples,
                                        int nchunks, float* __restrict__ mms) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= nchunks) return;
  const int s = dali_find_sample(first_chunk, nsamples, g);
  const dali_nonsilence_sample d = samples[s];
  const T* x = reinterpret_cast<const T*>(d.in);
  const long long c = (long long)(g - first_chunk[s]) * d.chunk;
  const long long end = c + d.chunk < d.n ? c + d.chunk : d.n;
  const long long from = c - d.w + 1 > 0 ? c - d.w + 1 : 0;
  const float mean = __fdiv_rn(1.f, (float)d.w);
  float* out = mms + d.mms;
  if (EXACT) {
    long long sum = 0;
    for (long long i = from; i <= c; i++) sum += dali_sq_exact(x[i]);
    out[c] = __fmul_rn((float)sum, mean);
    for (long long p = c + 1; p < end; p++) {
      if (p >= d.w) sum -= dali_sq_exact(x[p - d.w]);
      sum += dali_sq_exact(x[p]);
      out[p] = __fmul_rn((float)sum, mean);
    }
  } else {
    float sum = 0.f;
    for (long long i = from; i <= c; i++) sum = __fadd_rn(sum, dali_sq(x[i]));
    out[c] = __fmul_rn(sum, mean);
    for (long long p = c + 1; p < end; p++) {
      if (p >= d.w) sum = __fsub_rn(sum, dali_sq(x[p - d.w]));
      sum = __fadd_rn(sum, dali_sq(x[p]));
      out[p] = __fmul_rn(sum, mean);
    }
  }
}

// One block per sample: the reference (the largest value unless given), then the first and
// the last position at or above the threshold.
extern "C" __global__ void dali_nonsilent_threshold(
    const dali_nonsilence_sample* __restrict__ samples, const float* __restrict__ mms,
    float ratio, float reference, int ref_max, int* __restrict__ begin,
    int* __restrict__ length) {
  __shared__ float fmax_[256];
  __shared__ long long lo_[256], hi_[256];
  const int s = blockIdx.x;
  const dali_nonsilence_sample d = samples[s];
  const long long nout = d.n;
  const float* m = mms + d.mms;
  float ref = reference;
  if (ref_max) {
    float best = -__int_as_float(0x7f800000);  // -inf (NVRTC has no math headers)
    for (long long i = threadIdx.x; i < nout; i += blockDim.x)
      if (m[i] > best) best = m[i];
    fmax_[threadIdx.x] = best;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
      if (threadIdx.x < half && fmax_[threadIdx.x + half] > fmax_[threadIdx.x])
        fmax_[threadIdx.x] = fmax_[threadIdx.x + half];
      __syncthreads();
    }
    ref = fmax_[0];
  }
  const float threshold = __fmul_rn(ref, ratio);
  long long lo = nout, hi = -1;
  for (long long i = threadIdx.x; i < nout; i += blockDim.x) {
    if (m[i] >= threshold) {
      if (i < lo) lo = i;
      hi = i;
    }
  }
  lo_[threadIdx.x] = lo;
  hi_[threadIdx.x] = hi;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      if (lo_[threadIdx.x + half] < lo_[threadIdx.x]) lo_[threadIdx.x] = lo_[threadIdx.x + half];
      if (hi_[threadIdx.x + half] > hi_[threadIdx.x]) hi_[threadIdx.x] = hi_[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    long long b = 0, len = 0;
    if (hi_[0] >= 0) {
      b = lo_[0];
      len = hi_[0] - lo_[0] + 1;
      if (b != 0) {  // the sound may start anywhere in the window ending at b
        const long long start = b - (d.w - 1) > 0 ? b - (d.w - 1) : 0;
        len += b - start;
        b = start;
      }
    }
    begin[s] = (int)b;
    length[s] = (int)len;
  }
}
"""

_SAMPLE = np.dtype(
    [("in", np.uint64), ("n", np.int64), ("w", np.int64), ("chunk", np.int64), ("mms", np.int64)],
    align=True,
)
#: Positions per GPU thread for 8/16-bit input (exact sums: any stretch gives DALI's values).
_EXACT_CHUNK = 2048


@register(
    "nonsilent_region",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=2,
    args=[
        Arg("cutoff_db", "float", default=-60.0,
            doc="The threshold, in dB, below which the signal is considered silent."),
        Arg("window_length", "int", default=2048,
            doc="Size of the sliding window used to calculate the short-term power."),
        Arg("reference_power", "float", default=0.0,
            doc="The reference power (> 0); default: the maximum power of the signal."),
        Arg("reset_interval", "int", default=8192,
            doc="Samples after which the moving mean is recomputed (float input; -1: never)."),
    ],
)  # fmt: skip
class NonsilentRegion(Operator):
    """Performs leading and trailing silence detection in an audio buffer.

    The operator returns the beginning and length of the non-silent region by comparing the
    short term power calculated for ``window_length`` of the signal with a silence cut-off
    threshold. The signal is considered to be silent when the ``short_term_power_db`` is less
    than the ``cutoff_db``. where::

      short_term_power_db = 10 * log10( short_term_power / reference_power )

    Unless specified otherwise, ``reference_power`` is the maximum power of the signal.

    Inputs and outputs:

    * **Input 0** - 1D audio buffer (integers or float32).
    * **Output 0** - Index of the first sample in the nonsilent region (int32 scalar).
    * **Output 1** - Length of nonsilent region (int32 scalar).

    If ``Outputs[1] == 0``, the signal is silent and ``Outputs[0]`` is 0. ``reset_interval``
    (float32 input only) must be a multiple of ``window_length``, or -1.
    """

    def setup(self) -> None:
        w = int(self.arg("window_length"))
        if w <= 0:
            raise self.arg_error("window_length", f"`window_length` must be positive. Got: {w}")
        reset = int(self.arg("reset_interval"))
        if reset != -1 and reset <= 0:
            raise self.arg_error(
                "reset_interval", f"`reset_interval` must be positive or -1. Got: {reset}"
            )
        self._reference: float | None = None
        if self.has_arg("reference_power"):
            ref = float(np.float32(self.arg("reference_power")))
            if not ref > 0:
                raise self.arg_error(
                    "reference_power", f"`reference_power` has to be positive. Got: {ref:g}"
                )
            self._reference = ref
        self._w = w
        self._cutoff = float(np.float32(self.arg("cutoff_db")))

    def _reset(self, tl: Any) -> int:
        """The reset interval for this input type (integers: none), checked as DALI does."""
        if tl.np_dtype not in TYPES:
            raise self.error(
                f"Unsupported input type: {type_name(tl.np_dtype)}\nSupported types are : "
                "uint8, int8, uint16, int16, uint32, int32, uint64, int64, float"
            )
        if tl.sample_ndim != 1:
            raise self.error(
                f"Input with dimension ({tl.sample_ndim}) cannot be converted to dimension (1)."
            )
        if tl.np_dtype.kind != "f":
            return -1
        reset = int(self.arg("reset_interval"))
        if reset != -1 and reset % self._w != 0:
            raise self.arg_error(
                "reset_interval",
                "`reset_interval` shall be a multiple of `window_length`. Got: reset_interval: "
                f"{reset} vs window_length: {self._w}",
            )
        return reset

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        reset = self._reset(tl)
        samples = tl.samples()
        res = ws.map(
            lambda i: nonsilent_region(
                np.asarray(samples[i]), self._cutoff, self._w, self._reference, reset
            )
        )
        arr = np.array(res, np.int32).reshape(len(res), 2)
        return (
            TensorListCPU.wrap(np.ascontiguousarray(arr[:, 0]), ""),
            TensorListCPU.wrap(np.ascontiguousarray(arr[:, 1]), ""),
        )

    def run_gpu(self, ws: Workspace) -> Any:
        import cupy

        from dali._ops.gpu.kernels import (
            BLOCK,
            block_starts,
            c_type,
            device_id,
            input_pointers,
            kernel_module,
            upload,
        )
        from dali._tensors import TensorListGPU

        tl = ws.inputs[0]
        reset = self._reset(tl)
        shapes, ptrs, keep = input_pointers(tl)
        b = len(shapes)
        begin = cupy.zeros(b, np.int32)
        length = cupy.zeros(b, np.int32)
        if b == 0:
            return TensorListGPU.wrap(begin, ""), TensorListGPU.wrap(length, "")
        exact = _exact(tl.np_dtype)
        table = np.zeros(b, _SAMPLE)
        table["in"] = ptrs
        n = np.array([s[0] for s in shapes], np.int64)
        w = np.minimum(n, self._w)
        nout = n
        if exact:
            chunk = np.full(b, _EXACT_CHUNK, np.int64)
        else:
            chunk = np.array([max(_chunk(int(k), reset), 1) for k in n], np.int64)
        table["n"], table["w"], table["chunk"] = n, w, chunk
        offsets = np.zeros(b, np.int64)
        if b > 1:
            np.cumsum(nout[:-1], out=offsets[1:])
        table["mms"] = offsets
        first, nchunks = block_starts(-(-nout // chunk))
        table_d, first_d = upload(table, first)
        t = c_type(tl.np_dtype)
        name = f"dali_moving_mean_square<{t}, {'true' if exact else 'false'}>"
        k = kernel_module(device_id(), _GPU_SOURCE, (name, "dali_nonsilent_threshold"))
        mms = cupy.empty(max(int(nout.sum()), 1), np.float32)
        if nchunks:
            k[name](
                ((nchunks + BLOCK - 1) // BLOCK,),
                (BLOCK,),
                (table_d, first_d, np.int32(b), np.int32(nchunks), mms),
            )
        k["dali_nonsilent_threshold"](
            (b,),
            (BLOCK,),
            (table_d, mms, db_to_ratio(self._cutoff), _F(self._reference or 0),
             np.int32(self._reference is None), begin, length),
        )  # fmt: skip
        del keep
        return TensorListGPU.wrap(begin, ""), TensorListGPU.wrap(length, "")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        meta = {"dtype": DALIDataType.INT32, "ndim": 0, "layout": "", "static_shape": ()}
        return [dict(meta), dict(meta)]
