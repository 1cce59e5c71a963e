"""`fn.to_decibels`: magnitudes (real, positive) to the decibel scale.

``out = multiplier * log10(max(min_ratio, x / reference))`` with
``min_ratio = 10 ** (cutoff_db / multiplier)``: ``multiplier`` is 10 for a power, 20 for an
amplitude; without ``reference`` each sample's maximum is the reference (1 when the maximum
is 0 or below, so that nothing is divided by 0), and ``cutoff_db`` is the floor of the output.

The arithmetic is DALI's float32 one (``MagnitudeToDecibel`` in
``dali/kernels/signal/decibel/decibel_calculator.h``): ``x * (1 / reference)``, then
``(multiplier * log10(2)) * log2(max(min_ratio, ratio))``, a ``min_ratio`` that would be 0
raised to the smallest positive float, and NaN ratios replaced by ``min_ratio`` (DALI's
``max``). The float32 ``log2`` of numpy (CPU) and CUDA (GPU) may differ from glibc's by an
ulp. The GPU backend runs one kernel launch per batch (one block per sample: the maximum,
then the conversion).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> power = np.array([1.0, 0.1, 0.01, 0.0], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.to_decibels(fn.external_source(lambda: [power]), cutoff_db=-30.0)
    >>> out, = pipe().run()
    >>> np.round(out.as_array()[0], 4).tolist()
    [0.0, -10.0, -20.0, -30.0]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import batch_array

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["ToDecibels", "decibel_constants"]

_F32 = np.float32
#: log10(2) as DALI's float constant ``kLog2Factor``
_LOG10_2 = _F32(0.3010299956639812)


def decibel_constants(multiplier: float, cutoff_db: float) -> tuple[np.float32, np.float32]:
    """``(multiplier * log10(2), min_ratio)`` in float32, as DALI computes them (``powf``:
    correctly rounded; a ratio that underflows to 0 becomes the smallest positive float)."""
    mul = _F32(multiplier)
    exponent = _F32(_F32(cutoff_db) / mul) if mul != 0 else _F32(math.copysign(np.inf, cutoff_db))
    try:
        min_ratio = _F32(math.pow(10.0, float(exponent)))
    except OverflowError:
        min_ratio = _F32(np.inf)
    if min_ratio == 0 or math.isnan(min_ratio):
        min_ratio = _F32(np.nextafter(_F32(0), _F32(1)))
    return _F32(mul * _LOG10_2), min_ratio


def _to_db(x: np.ndarray, mul_log2: np.float32, inv_ref: Any, min_ratio: np.float32) -> Any:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # inf * 0: NaN
        ratio = x * inv_ref
        out = np.fmax(ratio, min_ratio, out=ratio)  # NaN -> min_ratio, as DALI's max
        np.log2(out, out=out)
        out *= mul_log2
    return out


def _ref_max(x: np.ndarray, axes: Any) -> Any:
    """DALI's running maximum from 0 (NaN ignored; 1 where it stays 0)."""
    with np.errstate(invalid="ignore"):
        m = np.max(np.where(np.isnan(x), _F32(0), x), axis=axes, initial=_F32(0))
    return np.where(m == 0, _F32(1), m).astype(_F32)


def _inverse(ref: Any) -> Any:
    """``1 / reference`` as DALI keeps it (exactly 1 for a reference of 1)."""
    return np.where(ref == 1, _F32(1), _F32(1) / ref).astype(_F32)


_GPU_SOURCE = r"""
extern "C" __global__ void dali_to_decibels(
    const unsigned long long* __restrict__ in_ptrs, const unsigned long long* __restrict__ out_ptrs,
    const long long* __restrict__ sizes, float mul_log2, float inv_ref, float min_ratio,
    int ref_max) {
  const int s = blockIdx.x;
  const long long n = sizes[s];
  const float* in = reinterpret_cast<const float*>(in_ptrs[s]);
  float* out = reinterpret_cast<float*>(out_ptrs[s]);
  __shared__ float partial[256];
  float inv = inv_ref;
  if (ref_max) {
    float m = 0.f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
      const float v = in[i];
      if (v > m) m = v;  // NaN never wins, as in DALI's loop
    }
    partial[threadIdx.x] = m;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
      if (threadIdx.x < half && partial[threadIdx.x + half] > partial[threadIdx.x])
        partial[threadIdx.x] = partial[threadIdx.x + half];
      __syncthreads();
    }
    const float ref = partial[0] == 0.f ? 1.f : partial[0];
    inv = ref == 1.f ? 1.f : __fdiv_rn(1.f, ref);
  }
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const float ratio = __fmul_rn(in[i], inv);
    out[i] = __fmul_rn(mul_log2, log2f(fmaxf(ratio, min_ratio)));
  }
}
"""


@register(
    "to_decibels",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("multiplier", "float", default=10.0,
            doc="Factor by which the logarithm is multiplied (10 for power, 20 for amplitude)."),
        Arg("reference", "float", default=0.0,
            doc="Reference magnitude; default: the maximum of each sample."),
        Arg("cutoff_db", "float", default=-200.0,
            doc="Minimum or cut-off ratio in dB; lower values saturate."),
    ],
)  # fmt: skip
class ToDecibels(Operator):
    """Converts a magnitude (real, positive) to the decibel scale.

    Conversion is done according to the following formula::

      min_ratio = pow(10, cutoff_db / multiplier)
      out[i] = multiplier * log10( max(min_ratio, input[i] / reference) )

    ``reference`` defaults to the maximum of each sample (1 when that is not positive); a
    ``reference`` of 0 is an error. The input is float32 of any shape; the output has its
    shape and layout.
    """

    def setup(self) -> None:
        self._ref_max = not self.has_arg("reference")
        if not self._ref_max and float(self.arg("reference")) == 0:
            raise self.arg_error("reference", "`reference` argument can't be zero")
        self._mul_log2, self._min_ratio = decibel_constants(
            float(self.arg("multiplier")), float(self.arg("cutoff_db"))
        )

    def _check(self, tl: Any) -> None:
        from dali._dtypes import type_name

        if tl.np_dtype != np.float32:
            raise self.error(f"Unsupported data type: {type_name(tl.np_dtype)}")

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._tensors import TensorListCPU as cls

        tl = ws.inputs[0]
        self._check(tl)
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=np.float32, ndim=tl.sample_ndim)
        fixed = None if self._ref_max else _inverse(_F32(self.arg("reference")))
        dense = batch_array(tl, np)
        if dense is not None:  # one pass for the batch
            if fixed is None:
                axes = tuple(range(1, dense.ndim))
                ref = _ref_max(dense, axes) if axes else _ref_max(dense[:, None], 1)
                inv = _inverse(ref).reshape((-1,) + (1,) * (dense.ndim - 1))
            else:
                inv = fixed
            return cls.wrap(_to_db(dense, self._mul_log2, inv, self._min_ratio), layout)
        samples = tl.samples()

        def one(i: int) -> Any:
            x = samples[i]
            inv = fixed if fixed is not None else _inverse(_ref_max(x, None))
            return _to_db(x, self._mul_log2, inv, self._min_ratio)

        return cls.wrap(ws.map(one), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.gpu.kernels import (
            BLOCK,
            alloc_outputs,
            device_id,
            input_pointers,
            kernel_module,
            make_output,
            upload,
        )

        tl = ws.inputs[0]
        self._check(tl)
        layout = tl.layout()
        shapes, ptrs, keep = input_pointers(tl)
        if not shapes:
            return make_output(None, [], layout, np.float32, tl.sample_ndim)
        flat, out_ptrs = alloc_outputs(shapes, np.float32)
        sizes = np.array([math.prod(s) for s in shapes], np.int64)
        in_d, out_d, sizes_d = upload(ptrs.astype(np.uint64), out_ptrs, sizes)
        inv = _F32(1) if self._ref_max else _inverse(_F32(self.arg("reference")))
        kernel = kernel_module(device_id(), _GPU_SOURCE, ("dali_to_decibels",))
        kernel["dali_to_decibels"](
            (len(shapes),),
            (BLOCK,),
            (in_d, out_d, sizes_d, self._mul_log2, _F32(inv), self._min_ratio,
             np.int32(self._ref_max)),
        )  # fmt: skip
        del keep
        return make_output(flat, shapes, layout, np.float32, tl.sample_ndim)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
