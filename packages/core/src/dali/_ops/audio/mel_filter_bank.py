"""`fn.mel_filter_bank`: a spectrogram's frequency bins gathered into mel bands.

The mel scale spaces pitches as people hear them: about linearly below 1 kHz, logarithmically
above. A mel filter bank is ``nfilter`` triangular filters whose corners are equally spaced on
that scale between ``freq_low`` and ``freq_high``; filter ``m`` rises from corner ``m`` to
corner ``m + 1`` and falls to corner ``m + 2``. Applied to a spectrogram of ``nfft // 2 + 1``
bins (``nfft = 2 * (bins - 1)``, bin ``k`` at ``k * sample_rate / nfft`` Hz) it gives
``nfilter`` mel bands. With ``normalize`` every filter is divided by its width in Hz
(times 2: the area under it is 1, librosa's ``norm="slaney"``); otherwise its peak is 1.

Two formulas convert Hz to mel: ``"slaney"`` (librosa's default: linear below 1 kHz,
logarithmic above) and ``"htk"`` (``2595 * log10(1 + f / 700)``).

The weights are built as DALI builds them (``dali/kernels/audio/mel_scale/mel_scale.h``):
the mel conversions in float32, the corners and slopes in double, each weight stored as
float32 (`mel_filters`), and the bands are DALI's float32 sums in DALI's order
(`dali._ops.signal._linear`), the normalisation applied to the weights (frequency-major data)
or to the sums (time-major data: nothing after the frequency axis) as DALI's two kernels do:
the outputs are DALI's bit for bit. The frequency axis is the ``f`` of the input's layout;
without a layout, the second-to-last axis (the only one of a 1-D input).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> spec = np.ones((9, 2), np.float32)  # 9 bins (nfft = 16), 2 windows
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: [spec], layout="ft")
    ...     return fn.mel_filter_bank(x, nfilter=3, sample_rate=16000, normalize=False)
    >>> out, = pipe().run()
    >>> out.layout(), out.as_array()[0].shape
    ('ft', (3, 2))
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import type_name
from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator
from dali._ops.numeric import array_module, batch_array
from dali._ops.signal._linear import apply_matrix_cpu, apply_matrix_gpu

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["MelFilterBank", "hz_to_mel", "mel_filters", "mel_to_hz"]

_F = np.float32
# Slaney's scale as DALI's float constants (`SlaneyMelScale<float>`)
_FSP = _F(200.0 / 3.0)
_MIN_LOG_HZ = _F(1000.0)
_MIN_LOG_MEL = _F(_MIN_LOG_HZ / _FSP)
_STEP_LOG = _F(0.068751777)  # log(6.4) / 27


def _logf(x: np.float32) -> np.float32:
    """``logf`` (correctly rounded, as glibc's): the double logarithm rounded to float32."""
    return _F(math.log(float(x))) if x > 0 else _F(-np.inf if x == 0 else np.nan)


def _expf(x: np.float32) -> np.float32:
    try:
        return _F(math.exp(float(x)))
    except OverflowError:
        return _F(np.inf)


def hz_to_mel(hz: float, formula: str) -> np.float32:
    """Hz to mel in float32, as DALI's ``HtkMelScale<float>`` / ``SlaneyMelScale<float>``.

    Example:
        >>> [round(float(hz_to_mel(1000.0, f)), 3) for f in ("slaney", "htk")]
        [15.0, 999.991]
    """
    f = _F(hz)
    if formula == "htk":
        return _F(_F(1127) * _logf(_F(_F(1) + _F(f / _F(700)))))
    if f >= _MIN_LOG_HZ:
        return _F(_MIN_LOG_MEL + _F(_logf(_F(f / _MIN_LOG_HZ)) / _STEP_LOG))
    return _F(f / _FSP)


def mel_to_hz(mel: float, formula: str) -> np.float32:
    """Mel to Hz in float32 (the inverse of `hz_to_mel`), as DALI computes it."""
    m = _F(mel)
    if formula == "htk":
        return _F(_F(700) * _F(_expf(_F(m / _F(1127))) - _F(1)))
    if m >= _MIN_LOG_MEL:
        return _F(_MIN_LOG_HZ * _expf(_F(_STEP_LOG * _F(m - _MIN_LOG_MEL))))
    return _F(m * _FSP)


@functools.lru_cache(maxsize=32)
def mel_filters(
    nfilter: int,
    nbins: int,
    sample_rate: float,
    freq_low: float,
    freq_high: float,
    formula: str,
    normalize: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The ``(nfilter, nbins)`` float32 filter bank DALI applies to ``nbins`` FFT bins
    (``MelFilterImplBase`` and ``MelFilterBankCpu`` in ``dali/kernels/audio/mel_scale/``),
    unnormalised, and the normalisation factors (``2 / filter width``; None without
    ``normalize``), both read-only, bit for bit DALI's.

    Every bin outside ``[freq_low, freq_high)`` has no weight (a bin at exactly ``freq_high``,
    such as the Nyquist bin with the default ``freq_high``, has none, as in DALI 2.4).
    """
    nfft = 2 * (nbins - 1)
    w = np.zeros((nfilter, nbins), np.float32)
    norms = np.ones(nfilter, np.float32)
    if nfft > 0:
        _fill(w, norms, nfft, sample_rate, freq_low, freq_high, formula, normalize)
    w.flags.writeable = False
    norms.flags.writeable = False
    return w, (norms if normalize else None)


def _fill(
    w: np.ndarray,
    norms: np.ndarray,
    nfft: int,
    sample_rate: float,
    freq_low: float,
    freq_high: float,
    formula: str,
    normalize: bool,
) -> None:
    """DALI's construction: the corners equally spaced in mel (double), the mel conversions in
    float32, each bin's falling weight ``(f1 - f) / (f1 - f0)`` rounded to float32 and its
    rising weight ``1 - falling`` in float32."""
    nfilter, nbins = w.shape
    f_low, f_high = _F(freq_low), _F(freq_high)
    mel_low = float(hz_to_mel(f_low, formula))
    mel_high = float(hz_to_mel(f_high, formula))
    hz_step = float(_F(sample_rate)) / nfft
    mel_delta = (mel_high - mel_low) / (nfilter + 1)
    inv_step = 1.0 / hz_step
    start = math.ceil(float(f_low) * inv_step)
    end = math.floor(float(f_high) * inv_step)
    if end * hz_step >= float(f_high):  # DALI 2.4 leaves out a bin at freq_high itself
        end -= 1
    end = min(end, nbins - 1)
    fftbin = start
    f = fftbin * hz_step
    mel0, mel1 = mel_low, mel_low + mel_delta
    for interval in range(nfilter + 1):
        if interval == nfilter:
            mel1 = mel_high
        f0 = float(mel_to_hz(mel0, formula))
        f1 = float(mel_to_hz(mel1, formula))
        if normalize and interval < nfilter:
            f2 = float(mel_to_hz(mel1 + mel_delta, formula))
            norms[interval] = _F(2.0 / (f2 - f0))
        slope = 1.0 / (f1 - f0)
        while fftbin <= end and f < f1:
            down = _F((f1 - f) * slope)
            if interval > 0:  # the falling edge of filter interval - 1
                w[interval - 1, fftbin] = down
            if interval < nfilter:  # the rising edge of filter interval
                w[interval, fftbin] = _F(_F(1) - down)
            fftbin += 1
            f = fftbin * hz_step
        mel0, mel1 = mel1, mel1 + mel_delta


@functools.lru_cache(maxsize=32)
def _prescaled(
    nfilter: int,
    nbins: int,
    sample_rate: float,
    freq_low: float,
    freq_high: float,
    formula: str,
) -> np.ndarray:
    """The normalised weights as DALI's frequency-major kernel multiplies them
    (``weight * norm`` in float32), read-only."""
    w, norms = mel_filters(nfilter, nbins, sample_rate, freq_low, freq_high, formula, True)
    assert norms is not None
    out = w * norms[:, None]
    out.flags.writeable = False
    return out


def _time_major(shape: tuple[int, ...], axis: int) -> bool:
    """Whether DALI runs its time-major kernel on a sample: the frequencies are the last axis,
    or every axis after them has extent 1 (``MelFilterBankCpu::Run``)."""
    return math.prod(shape[axis + 1 :]) == 1


_SUPPORTED = ("slaney", "htk")


@register(
    "mel_filter_bank",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("nfilter", "int", default=128, doc="Number of mel filters."),
        Arg("sample_rate", "float", default=44100.0, doc="Sampling rate of the audio signal."),
        Arg("freq_low", "float", default=0.0, doc="The minimum frequency."),
        Arg("freq_high", "float", default=0.0,
            doc="The maximum frequency; default (0): sample_rate / 2."),
        Arg("normalize", "bool", default=True,
            doc="Normalize the filters by their width (integral 1) instead of peak 1."),
        Arg("mel_formula", "str", default="slaney",
            doc='Hz <-> mel formula: "slaney" (librosa\'s default) or "htk".'),
    ],
)  # fmt: skip
class MelFilterBank(Operator):
    """Converts a spectrogram to a mel spectrogram by applying a bank of
    triangular filters.

    The frequency ('f') dimension is selected from the input layout.
    In case of no layout, "f", "ft", or "\\*ft" is assumed, depending on the number of dimensions.

    ``nfilter`` triangular filters, equally spaced on the mel scale (``mel_formula``:
    ``"slaney"``, linear under 1 kHz and logarithmic above, as librosa's default, or ``"htk"``,
    ``m = 2595 * log10(1 + f / 700)``) between ``freq_low`` and ``freq_high`` (default:
    ``sample_rate / 2``), are applied to the frequency axis, whose ``nfft // 2 + 1`` bins
    span 0 to ``sample_rate / 2``. With ``normalize`` (the default) each filter's integral is
    1, otherwise its peak is 1. The input is float32; the output has ``nfilter`` values along
    the frequency axis and the input's layout.
    """

    def setup(self) -> None:
        nfilter = int(self.arg("nfilter"))
        if nfilter <= 0:
            raise self.arg_error("nfilter", "number of filters should be > 0")
        rate = float(_F(self.arg("sample_rate")))
        if not rate > 0:
            raise self.arg_error("sample_rate", "sample rate should be > 0")
        low = float(_F(self.arg("freq_low")))
        if not low >= 0:
            raise self.arg_error("freq_low", "freq_low should be >= 0")
        high = float(_F(self.arg("freq_high")))
        if high <= 0:
            high = float(_F(_F(0.5) * _F(rate)))
        if not (high > low and high <= rate):
            raise self.arg_error(
                "freq_high", "freq_high should be within the range (freq_low, sample_rate/2]"
            )
        formula = self.arg("mel_formula")
        if formula not in _SUPPORTED:
            raise self.arg_error(
                "mel_formula",
                f'Unsupported mel_formula value "{formula}". Supported values are: "slaney", "htk"',
            )
        self._params = (nfilter, rate, low, high, formula, bool(self.arg("normalize")))

    def _axis(self, tl: Any) -> int:
        if tl.np_dtype != np.float32:
            raise self.error(f"Unsupported data type: {type_name(tl.np_dtype)}")
        layout = tl.layout()
        ndim = tl.sample_ndim
        axis = max(0, ndim - 2) if not layout else layout.find("f")
        if not 0 <= axis < ndim:
            raise self.error(f"'f' axis not present in the layout. Got: `{layout}`")
        return axis

    def _filters(self, nbins: int, time_major: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The matrix and the factors applied after the sums: DALI normalises the weights
        first in its frequency-major kernel, the sums in its time-major one."""
        nfilter, rate, low, high, formula, normalize = self._params
        if normalize and not time_major:
            return _prescaled(nfilter, nbins, rate, low, high, formula), None
        return mel_filters(nfilter, nbins, rate, low, high, formula, normalize)

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        axis = self._axis(tl)
        _, cls = array_module(tl)
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=np.float32, ndim=tl.sample_ndim)
        dense = batch_array(tl, np)
        if dense is not None:  # the batch axis joins the outer axes: one pass
            w, scale = self._filters(dense.shape[axis + 1], _time_major(dense.shape[1:], axis))
            return cls.wrap(apply_matrix_cpu(dense, w, axis + 1, scale), layout)
        samples = tl.samples()

        def one(i: int) -> np.ndarray:
            x = np.asarray(samples[i])
            w, scale = self._filters(x.shape[axis], _time_major(x.shape, axis))
            return apply_matrix_cpu(x, w, axis, scale)

        return cls.wrap(ws.map(one), layout)

    def run_gpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        axis = self._axis(tl)
        _, cls = array_module(tl)
        layout = tl.layout()
        if len(tl) == 0:
            return cls.wrap([], layout, dtype=np.float32, ndim=tl.sample_ndim)
        # one (matrix, factors) pair per distinct number of bins and kernel kind
        keys = [(int(s[axis]), _time_major(tuple(s), axis)) for s in tl.shape()]
        distinct = sorted(set(keys))
        pairs = [self._filters(n, tm) for n, tm in distinct]
        which = [distinct.index(k) for k in keys]
        return apply_matrix_gpu(tl, axis, pairs, which, layout)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node, static_shape=None)
