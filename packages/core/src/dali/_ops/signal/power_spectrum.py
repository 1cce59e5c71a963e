"""`fn.power_spectrum`: the power (or magnitude) spectrum of a signal along one axis.

Every 1-D slice of a sample along ``axis`` (the last by default, and for any negative value, as
in DALI) is replaced by the
``nfft // 2 + 1`` bins of its real FFT: ``re² + im²`` (``power=2``) or ``|re + i·im|``
(``power=1``), float32 (`dali._ops.signal._fft`). ``nfft`` defaults to the sample's extent
along the axis; a longer transform zero-pads the data, a shorter one uses its first ``nfft``
values. Samples have 1 to 3 dimensions, float32. DALI 2.4 has this operator on the CPU only.

The bins agree with DALI's (FFTS) to about 1e-6 of the slice's largest bin, not bit for bit.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> x = np.array([[1, 0, -1, 0], [1, 1, 1, 1]], np.float32)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.power_spectrum(fn.external_source(lambda: [x]))
    >>> out, = pipe().run()
    >>> out.as_array()[0].tolist()
    [[0.0, 4.0, 0.0], [16.0, 0.0, 0.0]]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.signal._fft import rfft_spectrum
from dali._ops.signal.spectrogram import check_power

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["PowerSpectrum"]

_MAX_NDIM = 3
#: Fewest slices per FFT call when a transform is split over the pipeline's threads.
_ROWS_PER_TASK = 256


@register(
    "power_spectrum",
    devices=("cpu",),
    inputs=1,
    args=[
        Arg("nfft", "int",
            doc="Size of the FFT (default: the data's extent along `axis`); nfft // 2 + 1 bins."),
        Arg("axis", "int", default=-1,
            doc="Index of the dimension to be transformed to the frequency domain."),
        Arg("power", "int", default=2,
            doc="Exponent of the FFT magnitude: 2 (power spectrum) or 1 (complex magnitude)."),
    ],
)  # fmt: skip
class PowerSpectrum(Operator):
    """Calculates power spectrum of the signal.

    Each slice of the input along ``axis`` (default: the last dimension; any negative value
    means the last dimension, as in DALI) becomes the
    ``nfft // 2 + 1`` bins of its FFT: the power ``real*real + imag*imag`` (``power=2``) or the
    complex magnitude ``sqrt(real*real + imag*imag)`` (``power=1``). ``nfft`` defaults to the
    extent of the transformed axis; a larger ``nfft`` zero-pads the data, a smaller one uses its
    first ``nfft`` values. The input is float32 with 1 to 3 dimensions; the output is float32.
    """

    def setup(self) -> None:
        power = int(self.arg("power"))
        check_power(
            self,
            power,
            "Power argument should be either `2` for power spectrum or `1` for complex "
            f"magnitude. Received: {power}",
        )
        self._power = power
        nfft = int(self.arg("nfft")) if self.has_arg("nfft") else -1
        self._nfft = nfft if nfft > 0 else None  # DALI: nfft <= 0 means the data's extent

    def run_cpu(self, ws: Workspace) -> Any:
        from dali._dtypes import type_name
        from dali._tensors import TensorListCPU

        tl = ws.inputs[0]
        ndim = tl.sample_ndim
        if tl.np_dtype != np.float32:
            raise self.error(
                f"Unsupported input type: {type_name(tl.np_dtype)}. The input must be float32."
            )
        if not 1 <= ndim <= _MAX_NDIM:
            raise self.error(f"Unsupported number of dimensions {ndim}")
        axis = int(self.arg("axis"))
        axis = axis if axis >= 0 else ndim - 1  # DALI: any negative axis is the last one
        if not 0 <= axis < ndim:
            raise self.arg_error(
                "axis", f"Transform axis {self.arg('axis')} is out of bounds [0, {ndim})"
            )
        if len(tl) == 0:
            return TensorListCPU.wrap([], tl.layout(), dtype=np.float32, ndim=ndim)
        for i, shape in enumerate(tl.shape()):
            if shape[axis] == 0 and self._nfft is None:
                raise self.error(f"Sample {i}: cannot transform an empty axis (shape {shape})")

        samples = [np.asarray(x) for x in tl.samples()]
        # the slices of all samples with one extent (so one nfft) in one float64 buffer: one
        # FFT call per thread for the group
        groups: dict[int, list[int]] = {}
        for i, x in enumerate(samples):
            groups.setdefault(x.shape[axis], []).append(i)
        out: list[Any] = [None] * len(samples)
        for n, members in groups.items():
            moved = [np.moveaxis(samples[i], axis, -1) for i in members]
            counts = [math.prod(m.shape[:-1]) for m in moved]
            rows = np.concatenate([m.reshape(-1, n) for m in moved]).astype(np.float64)
            spec = self._spectrum(ws, rows, self._nfft or n)
            start = 0
            for i, m, c in zip(members, moved, counts):
                part = spec[start : start + c].reshape(*m.shape[:-1], spec.shape[1])
                out[i] = np.ascontiguousarray(np.moveaxis(part, -1, axis))
                start += c
        return TensorListCPU.wrap(out, tl.layout())

    def _spectrum(self, ws: Workspace, rows: np.ndarray, nfft: int) -> np.ndarray:
        """The spectra of ``rows``, the rows split over the pipeline's threads."""
        spec = np.empty((len(rows), nfft // 2 + 1), np.float32)
        parts = max(1, min(ws.num_threads, len(rows) // _ROWS_PER_TASK))
        cuts = np.linspace(0, len(rows), parts + 1).astype(int).tolist()

        def transform(j: int) -> None:
            a, b = cuts[j], cuts[j + 1]
            rfft_spectrum(rows[a:b], nfft, power=self._power, out=spec[a:b])

        ws.map(transform, parts)
        return spec

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        src = node.inputs[0]
        return [{"dtype": DALIDataType.FLOAT, "ndim": src.ndim, "layout": src.layout}]
