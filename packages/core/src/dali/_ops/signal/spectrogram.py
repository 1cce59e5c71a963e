"""`fn.spectrogram`: the short-time Fourier transform of a 1-D signal (audio).

A spectrogram shows how the spectrum of a signal changes over time. The signal is cut into
windows of ``window_length`` samples, ``window_step`` apart (`dali._ops.signal._windows`:
centred on multiples of the step and padded by mirroring or with zeros, or only the windows
inside the signal), each window is multiplied by the window function (DALI's Hann window by
default) and transformed with an FFT of ``nfft`` points (``nfft >= window_length``; a longer
transform zero-pads the window), and the ``nfft // 2 + 1`` bins of the positive frequencies are
kept as power ``re² + im²`` (``power=2``) or magnitude (``power=1``).

The output is float32, 2-D: ``(nfft // 2 + 1, windows)`` with layout ``"ft"`` (frequency
major, the default) or ``(windows, nfft // 2 + 1)`` with layout ``"tf"``. The input is one
channel of float32: ``(n,)``, or any shape whose other extents are 1 (``(n, 1)``,
``(1, n)``).

On the CPU numpy's FFT transforms the windows in double precision and the spectrum is rounded
to float32. With Numba (`dali._ops.signal._stft_cpu`) the batch's windows go through in blocks
that stay in the cache: a compiled pass cuts and weights them, numpy's FFT transforms the
block and a second pass writes the power into each sample's output (transposed on the way),
the blocks spread over the pipeline's threads. Without it each signal's windows are strided
views of the padded signal, copied (multiplied by the window) into one buffer for the batch,
whose rows numpy's FFT transforms in one call per thread; both give the same values. On the
GPU the windows of the whole batch are one cuFFT call (`dali._ops.signal._stft_gpu`). The
bins agree with DALI's FFTS/cuFFT results to about 1e-6 of the sample's largest bin, not bit
for bit (DALI's tests allow 1e-4).

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> tone = np.sin(2 * np.pi * np.arange(64) / 8).astype(np.float32)  # 1/8 of the rate
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.spectrogram(fn.external_source(lambda: [tone]), nfft=16,
    ...                           window_length=16, window_step=8)
    >>> out, = pipe().run()
    >>> spec = out.as_array()[0]
    >>> out.layout(), spec.shape, int(spec[:, 4].argmax())  # the tone is in bin 16 / 8 = 2
    ('ft', (9, 9), 2)
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.numeric import array_module
from dali._ops.signal._fft import rfft_spectrum
from dali._ops.signal._stft_cpu import numba_available as stft_numba_available
from dali._ops.signal._stft_cpu import stft_cpu
from dali._ops.signal._windows import hann_window, num_windows, signal_frames

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Spectrogram", "check_power", "signal_lengths"]

#: Fewest windows per FFT call when a batch's transform is split over the pipeline's threads.
_ROWS_PER_TASK = 256


def check_power(op: Operator, power: int, message: str) -> None:
    """Reject a ``power`` other than 1 (magnitude) or 2 (power), with ``message``."""
    if power not in (1, 2):
        raise op.arg_error("power", message)


def _shape_text(shape: tuple[int, ...]) -> str:
    return " x ".join(str(e) for e in shape) if shape else "()"


def signal_lengths(op: Operator, tl: Any) -> list[int]:
    """The length of every signal of a batch of 1-D signals (extra extents must be 1), in
    the order DALI checks them: the shapes first, then empty samples.

    Raises:
        OperatorError: Not float32, a sample with two extents above 1, or an empty one.
    """
    from dali._dtypes import type_name

    if tl.np_dtype != np.float32:
        raise op.error(
            f"Unsupported input type: {type_name(tl.np_dtype)}. The input must be float32."
        )
    shapes = [tuple(int(e) for e in s) for s in tl.shape()]
    lengths = [int(np.prod(s)) for s in shapes]
    for s, n in zip(shapes, lengths):
        if any(e not in (1, n) for e in s):
            raise op.error(
                "Input data must be 1D or all but one dimensions must be degenerate (extent 1). "
                f"Got: {_shape_text(s)}"
            )
    for i, (s, n) in enumerate(zip(shapes, lengths)):
        if n == 0:
            raise op.error(
                "Spectogram does not support empty (0-volume) samples. "
                f"The sample {i} shape is {_shape_text(s)}"
            )
    return lengths


@register(
    "spectrogram",
    devices=("cpu", "gpu"),
    inputs=1,
    args=[
        Arg("nfft", "int",
            doc="Size of the FFT (default: `window_length`); the output has nfft // 2 + 1 bins."),
        Arg("window_length", "int", default=512, doc="Window size in number of samples."),
        Arg("window_step", "int", default=256,
            doc="Step between the STFT windows in number of samples."),
        Arg("window_fn", "float_vec",
            doc="Samples of the window function (window_length values); default: Hann."),
        Arg("power", "int", default=2,
            doc="Exponent of the magnitude of the spectrum: 1 (amplitude) or 2 (power)."),
        Arg("center_windows", "bool", default=True,
            doc="Pad the signal so that the windows are centred at multiples of window_step."),
        Arg("reflect_padding", "bool", default=True,
            doc="Pad by mirroring the signal (True) or with zeros; ignored without "
            "center_windows."),
        Arg("layout", "layout", default="ft",
            doc='Output layout: "ft" (frequency-major) or "tf" (time-major).'),
    ],
)  # fmt: skip
class Spectrogram(Operator):
    """Produces a spectrogram from a 1D signal (for example, audio).

    Input data is expected to be one channel (shape being ``(nsamples,)``, ``(nsamples, 1)``, or
    ``(1, nsamples)``) of type float32.

    The signal is cut into windows of ``window_length`` samples, ``window_step`` apart, each
    multiplied by ``window_fn`` (DALI's Hann window, ``0.5 * (1 - cos(2π (t + 0.5) / N))``,
    by default) and transformed by an FFT of ``nfft`` points (``nfft >= window_length``). With
    ``center_windows`` (the default) window ``w`` is centred on sample ``w * window_step``,
    there are ``n // window_step + 1`` windows and the signal is extended by mirroring
    (``reflect_padding``) or with zeros; otherwise only windows inside the signal are taken,
    ``(n - window_length) // window_step + 1`` of them. The output has ``nfft // 2 + 1``
    frequency bins, float32, as ``"ft"`` (bins x windows) or ``"tf"`` (windows x bins).

    The FFT is numpy's (CPU) or cuFFT (GPU): values agree with DALI's to about 1e-6 of the
    sample's largest bin, not bit for bit.
    """

    def setup(self) -> None:
        layout = self.arg("layout")
        if layout not in ("tf", "ft"):
            raise self.arg_error("layout", f"Unexpected layout: {layout}")
        wl = int(self.arg("window_length"))
        step = int(self.arg("window_step"))
        if wl <= 0:
            raise self.arg_error("window_length", f"Invalid window length: {wl}")
        if step <= 0:
            raise self.arg_error("window_step", f"Invalid window step: {step}")
        if self.has_arg("window_fn") and len(self.arg("window_fn")) > 0:
            window = np.asarray(self.arg("window_fn"), np.float32)
        else:
            window = hann_window(wl)
        if len(window) != wl:
            raise self.arg_error(
                "window_fn", "Window function should match the specified `window_length`"
            )
        nfft = int(self.arg("nfft")) if self.has_arg("nfft") else wl
        if wl > nfft:
            raise self.arg_error(
                "nfft", f"Window length ({wl}) can't be bigger than the FFT size ({nfft})"
            )
        power = int(self.arg("power"))
        check_power(self, power, f"`power` can be only 1 (energy) or 2 (power), received {power}")
        self._window = window
        self._nfft = nfft
        self._step = step
        self._power = power
        self._time_major = layout == "tf"
        self._centered = bool(self.arg("center_windows"))
        self._reflect = self._centered and bool(self.arg("reflect_padding"))

    def _counts(self, lengths: list[int]) -> list[int]:
        counts = []
        for i, n in enumerate(lengths):
            c = num_windows(n, len(self._window), self._step, centered=self._centered)
            if c <= 0:
                raise self.error(f"Signal is too short ({n}) for sample {i}")
            counts.append(c)
        return counts

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        xp, cls = array_module(tl)
        layout = "tf" if self._time_major else "ft"
        lengths = signal_lengths(self, tl)
        if not lengths:
            return cls.wrap([], layout, dtype=np.float32, ndim=2)
        counts = self._counts(lengths)
        if xp is np and stft_numba_available():
            return self._run_compiled(ws, tl, cls, lengths, counts, layout)
        bounds = np.cumsum([0, *counts]).tolist()
        wl, nfft = len(self._window), self._nfft
        # the windows of the batch, zero-padded to nfft, in one buffer: one FFT call per thread
        # (in double: numpy's double transform is faster than its float32 one)
        buf = (np.zeros if nfft > wl else np.empty)((bounds[-1], nfft), np.float32)
        samples = tl.samples()

        def frames(i: int) -> None:
            x = np.asarray(samples[i]).reshape(-1)
            signal_frames(
                x,
                self._window,
                self._step,
                centered=self._centered,
                reflect=self._reflect,
                out=buf[bounds[i] : bounds[i + 1], :wl],
            )

        ws.map(frames)
        spec = np.empty((bounds[-1], nfft // 2 + 1), np.float32)
        parts = max(1, min(ws.num_threads, bounds[-1] // _ROWS_PER_TASK))
        rows = np.linspace(0, bounds[-1], parts + 1).astype(int).tolist()

        def transform(j: int) -> None:
            a, b = rows[j], rows[j + 1]
            rfft_spectrum(buf[a:b], nfft, power=self._power, out=spec[a:b])

        ws.map(transform, parts)
        if counts.count(counts[0]) == len(counts):  # one array for the batch
            dense = spec.reshape(len(counts), counts[0], -1)
            if not self._time_major:
                dense = np.ascontiguousarray(dense.transpose(0, 2, 1))
            return cls.wrap(dense, layout)
        out = [spec[a:b] for a, b in itertools.pairwise(bounds)]
        if not self._time_major:
            out = [np.ascontiguousarray(o.T) for o in out]
        return cls.wrap(out, layout)

    def _run_compiled(
        self,
        ws: Workspace,
        tl: Any,
        cls: Any,
        lengths: list[int],
        counts: list[int],
        layout: str,
    ) -> Any:
        """`run_cpu` with the compiled passes (`dali._ops.signal._stft_cpu`): the same values."""
        dense = tl.dense()
        if dense is not None:
            x = np.ascontiguousarray(dense).reshape(-1)
        else:
            packed = tl.flat()
            x = (
                packed[0]
                if packed is not None
                else np.concatenate([np.asarray(s).reshape(-1) for s in tl.samples()])
            )
        out = stft_cpu(
            x,
            lengths,
            self._window,
            step=self._step,
            nfft=self._nfft,
            centered=self._centered,
            reflect=self._reflect,
            power=self._power,
            time_major=self._time_major,
            counts=counts,
            run=ws.map,
            threads=ws.num_threads,
        )
        assert out is not None  # only called when Numba is installed
        bins = self._nfft // 2 + 1
        shapes = [(c, bins) if self._time_major else (bins, c) for c in counts]
        if counts.count(counts[0]) == len(counts):  # one array for the batch
            return cls.wrap(out.reshape(len(counts), *shapes[0]), layout)
        return cls.wrap_flat(out, shapes, layout)

    def run_gpu(self, ws: Workspace) -> Any:
        from dali._ops.signal._stft_gpu import stft_gpu

        tl = ws.inputs[0]
        _, cls = array_module(tl)
        lengths = signal_lengths(self, tl)
        if not lengths:
            return cls.wrap([], "tf" if self._time_major else "ft", dtype=np.float32, ndim=2)
        return stft_gpu(
            tl,
            self._counts(lengths),
            self._window,
            step=self._step,
            nfft=self._nfft,
            centered=self._centered,
            reflect=self._reflect,
            power=self._power,
            time_major=self._time_major,
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        layout = args.get("layout", "ft")
        nfft = args.get("nfft", args.get("window_length", 512))
        bins = int(nfft) // 2 + 1
        shape = (None, bins) if layout == "tf" else (bins, None)
        return [{"dtype": DALIDataType.FLOAT, "ndim": 2, "layout": layout, "static_shape": shape}]
