"""`fn.audio_resample` (``fn.experimental.audio_resample``, its deprecated alias): resampling
of time series with a Hann-windowed sinc filter.

A sample is a signal ``(time,)`` or ``(time, channels)`` (any layout; it is kept). The ratio of
output to input rate is given one of three ways, each a constant or one value per sample:

* ``in_rate`` and ``out_rate`` (any unit, the same for both): ``ceil(n · out_rate / in_rate)``
  output samples;
* ``scale`` (``out_rate / in_rate``): ``ceil(n · scale)`` samples;
* ``out_length``: exactly that many samples (the ratio ``out_length / n``).

Output sample ``o`` is the sum of the input samples within ``lobes`` of position
``o · in_rate / out_rate``, weighted by a Hann-windowed sinc tabulated at 64 points per lobe
(``quality`` 0..100: 3 to 64 lobes, 16 at the default 50); `dali._ops.audio._resampling` has the
arithmetic, which gives DALI 2.4's CPU values bit for bit.

Types: int8, uint8, int16, uint16, int32, uint32 and float32 in and out. Integers are
normalised to [-1, 1] ([0, 1] unsigned) for the filter and ``dtype`` (default: the input's) is
filled to its range: float → uint8 maps -1, 0, 1 to 0, 128, 255; uint8 → int16 maps 0, 255 to
-32767, 32767.

The GPU backend is one kernel launch per batch (DALI's GPU kernel: one thread per output,
fused multiply-adds), equal to the CPU's to float rounding.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> x = np.sin(np.arange(16, dtype=np.float32) / 2)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.audio_resample(fn.external_source(lambda: [x]), scale=0.5)
    >>> out, = pipe().run()
    >>> out.at(0).shape
    (8,)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.audio._resampling import (
    normalize_input,
    resample_cpu,
    resampled_length,
    to_output,
    window_for_quality,
)
from dali._ops.base import Operator
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["SUPPORTED", "AudioResample"]

#: The element types DALI resamples (``AUDIO_RESAMPLE_TYPES``), in its order.
SUPPORTED = tuple(
    np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.float32)
)
_SUPPORTED_NAMES = ", ".join(type_name(t) for t in SUPPORTED)


@register(
    "audio_resample",
    devices=("cpu", "gpu"),
    inputs=1,
    outputs=1,
    input_names=("input",),
    args=[
        Arg("in_rate", "float", tensor=True, doc="Input sampling rate (with `out_rate`)."),
        Arg("out_rate", "float", tensor=True, doc="Output sampling rate (with `in_rate`)."),
        Arg("scale", "float", tensor=True, doc="Ratio of output to input sampling rate."),
        Arg("out_length", "int", tensor=True, doc="The requested output length, in samples."),
        Arg("quality", "float", default=50.0, doc="Resampling quality 0..100 (3..64 lobes)."),
        Arg("dtype", "dtype", doc="Output type (default: the input's); values are rescaled."),
    ],
)
class AudioResample(Operator):
    """Resamples an audio signal.

    The resampling is achieved by applying a sinc filter with Hann window with an extent
    controlled by the `quality` argument.

    The resampling ratio can be specified directly or as a ratio of target to source sampling
    rate, or calculated from the ratio of the requested output length to the input length.
    Samples are ``(time,)`` or ``(time, channels)``; the layout is kept. When the type changes
    the values are normalized to fill the dynamic range of the target type (floats are taken
    to be in -1..1; between signed and unsigned types, 0 maps to half of the unsigned range).
    """

    def setup(self) -> None:
        has = self.has_arg
        if has("in_rate") != has("out_rate"):
            raise self.arg_error(
                "in_rate" if has("out_rate") else "out_rate",
                "The parameters ``in_rate`` and ``out_rate`` must be specified together.",
            )
        given = [name for name in ("in_rate", "scale", "out_length") if has(name)]
        if len(given) > 1:
            raise self.arg_error(
                given[1],
                "The sampling rates, ``scale`` and ``out_length`` cannot be used together.",
            )
        if not given:
            raise self.error(
                "No resampling factor specified! Please supply either the scale, the output "
                "length or the input and output sampling rates."
            )
        self._mode = given[0]
        q = float(self.arg("quality"))
        if not 0 <= q <= 100:
            raise self.arg_error(
                "quality", f"``quality`` out of range: {q:g}\nValid range is [0..100]."
            )
        self._window = window_for_quality(q)
        self._dtype: np.dtype[Any] | None = None
        if self.arg("dtype"):
            dtype = np.dtype(np_dtype(self.arg("dtype")))
            if dtype not in SUPPORTED:
                raise self.arg_error(
                    "dtype",
                    f"Unsupported output type: {type_name(dtype)}\n"
                    f"Supported types are : {_SUPPORTED_NAMES}",
                )
            self._dtype = dtype

    # -- the per-sample plan -------------------------------------------------------------
    def _rates(
        self, ws: Workspace, lengths: list[int]
    ) -> tuple[list[tuple[float, float]], list[int]]:
        """``(in_rate, out_rate)`` (doubles, as DALI's kernel gets them) and the output length
        of every sample (DALI's ``ResampleBase::CalculateShapeAndArgs``)."""
        n = len(lengths)
        rates: list[tuple[float, float]] = []
        out_lengths: list[int] = []
        per_sample = self.is_tensor_arg
        if self._mode == "in_rate":
            # DALI reads the rates as float32 (ArgValue<float>)
            ins = ws.arg_scalars("in_rate", np.float32).astype(np.float64)
            outs = ws.arg_scalars("out_rate", np.float32).astype(np.float64)
            for s in range(n):
                a, b = float(ins[s]), float(outs[s])
                if not a > 0:
                    where = f" for sample {s}" if per_sample("in_rate") else ""
                    raise self.error(
                        f"Input sampling rates must be positive. Got in_rate == {a:g}{where}"
                    )
                if not b >= 0:
                    where = f" for sample {s}" if per_sample("out_rate") else ""
                    raise self.error(
                        f"Output sampling rates must be non-negative. Got out_rate == {b:g}{where}"
                    )
                rates.append((a, b))
                out_lengths.append(resampled_length(lengths[s], a, b))
        elif self._mode == "scale":
            scales = ws.arg_scalars("scale", np.float32).astype(np.float64)
            for s in range(n):
                k = float(scales[s])
                if not k >= 0:
                    where = f" for sample {s}" if per_sample("scale") else ""
                    raise self.error(
                        f"The scaling factor must be non-negative. Got scale == {k:g}{where}"
                    )
                rates.append((1.0, k))
                out_lengths.append(resampled_length(lengths[s], 1.0, k))
        else:
            wanted = ws.arg_scalars("out_length", np.int64)
            for s in range(n):
                m, length = int(wanted[s]), lengths[s]
                if m < 0:
                    raise self.arg_error(
                        "out_length", f"must be non-negative, got {m} for sample {s}"
                    )
                if length == 0 and m != 0:
                    raise self.error(
                        "Cannot produce a non-empty signal from an empty input.\n"
                        f"Error at sample {s}"
                    )
                rates.append((float(length or 1), float(m or 1)))  # no division by 0
                out_lengths.append(m)
        return rates, out_lengths

    def _check_input(self, tl: Any) -> np.dtype[Any]:
        if tl.sample_ndim not in (1, 2):
            raise self.error(
                "Audio resampling supports only time series data, with an optional innermost "
                f"channel dimension; got {tl.sample_ndim}-D samples."
            )
        in_dtype = np.dtype(tl.np_dtype)
        if in_dtype not in SUPPORTED:
            raise self.error(
                f"Unsupported input type: {type_name(in_dtype)}\n"
                f"Supported types are : {_SUPPORTED_NAMES}"
            )
        return self._dtype or in_dtype

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        tl = ws.inputs[0]
        out_dtype = self._check_input(tl)
        samples = tl.samples()
        rates, out_lengths = self._rates(ws, [int(s.shape[0]) for s in samples])
        window = self._window

        def one(i: int) -> np.ndarray:
            x = samples[i]
            if out_lengths[i] == 0 or x.shape[0] == 0:
                shape = (out_lengths[i], *x.shape[1:])
                return np.zeros(shape, out_dtype)
            a, b = rates[i]
            y = resample_cpu(normalize_input(x, out_dtype), a, b, out_lengths[i], window)
            return to_output(y, out_dtype)

        out = ws.map(one, len(samples))
        return TensorListCPU.wrap(out, tl.layout(), dtype=out_dtype, ndim=tl.sample_ndim)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.audio._resampling_gpu import resample_batch_gpu

        tl = ws.inputs[0]
        out_dtype = self._check_input(tl)
        packed = tl.flat()
        if tl.held_dense is not None:
            lengths = [int(tl.held_dense.shape[1])] * int(tl.held_dense.shape[0])
        elif packed is not None:
            lengths = [int(s[0]) for s in packed[1]]
        else:
            lengths = [int(s.shape[0]) for s in tl.samples()]
        rates, out_lengths = self._rates(ws, lengths)
        return resample_batch_gpu(tl, rates, out_lengths, self._window, out_dtype)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        dtype = node.scalar_args.get("dtype") or src.dtype
        shape = src.static_shape
        if shape is not None and len(shape) in (1, 2):
            shape = (None, *shape[1:])
        return [{"dtype": dtype, "ndim": src.ndim, "layout": src.layout, "static_shape": shape}]
