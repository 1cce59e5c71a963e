"""`fn.decoders.audio` (``fn.audio_decoder``, its deprecated alias): encoded audio to waveforms.

Each input sample is the bytes of one audio file (1-D uint8, as `fn.readers.file` reads them)
in any format libsndfile reads: WAV (PCM, float, A-law...), FLAC, OGG/Vorbis and Opus, AIFF and
more. The decoder gives two outputs per sample:

* the waveform: ``(frames, channels)`` (interleaved channels, mono files too), or
  ``(frames,)`` with ``downmix=True`` (the channels averaged); type ``dtype`` (FLOAT in
  [-1, 1], INT16 or INT32 spanning the type's range); layout ``""``;
* the sampling rate in Hz, a float32 scalar: the file's, or ``sample_rate`` when it is given.

With ``sample_rate`` (a constant or one value per sample) every clip whose rate differs is
resampled to it with the windowed-sinc resampler of `fn.audio_resample` (``quality`` picks its
sinc lobes); the output then has ``ceil(frames · sample_rate / file_rate)`` frames. The
decoding rules (which type libsndfile decodes to, the downmix weights, the order of downmix,
resampling and conversion) are DALI's, in `dali._ops.audio.codecs`; decoded values equal
DALI 2.4's bit for bit for WAV and FLAC (OGG/Vorbis to the last bit of float32: the Vorbis
decoder libraries differ).

Decoding runs on the pipeline's threads, one clip each (libsndfile works without the GIL).

Example:
    >>> import io, numpy as np, soundfile
    >>> from dali import fn, pipeline_def, types
    >>> buf = io.BytesIO()
    >>> soundfile.write(buf, np.full((4, 2), 0.5, np.float32), 8000, format="WAV", subtype="PCM_16")
    >>> wav = np.frombuffer(buf.getvalue(), np.uint8)
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    ... def pipe():
    ...     audio, rate = fn.decoders.audio(fn.external_source(lambda: [wav]), dtype=types.INT16)
    ...     return audio, rate
    >>> audio, rate = pipe().run()
    >>> audio.at(0).tolist(), float(rate.at(0))
    ([[16384, 16384], [16384, 16384], [16384, 16384], [16384, 16384]], 8000.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType, np_dtype, type_name
from dali._graph.schema import Arg, register
from dali._ops.audio.codecs import SUPPORTED_DTYPES, AudioError, decode_clip, open_clip
from dali._ops.base import Operator
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["AudioDecoder", "check_output_dtype", "check_quality"]


def check_output_dtype(op: Operator) -> np.dtype[Any]:
    """The ``dtype`` argument as a numpy type, one of INT16, INT32, FLOAT (DALI's rule)."""
    dtype = np.dtype(np_dtype(op.arg("dtype")))
    if dtype not in SUPPORTED_DTYPES:
        raise op.arg_error(
            "dtype",
            f"Unsupported output type: {type_name(dtype)}. Supported types are int16, int32, "
            "and float.",
        )
    return dtype


def check_quality(op: Operator) -> float:
    """The ``quality`` argument, checked to lie in [0, 100]."""
    q = float(op.arg("quality"))
    if not 0 <= q <= 100:
        raise op.arg_error("quality", f"Resampling quality must be in [0..100] range, got {q:g}")
    return q


@register(
    "decoders.audio",
    devices=("cpu",),
    inputs=1,
    outputs=2,
    input_names=("input",),
    args=[
        Arg("downmix", "bool", default=False, doc="Average all channels into one (1-D output)."),
        Arg("dtype", "dtype", default=DALIDataType.FLOAT, doc="Output type: INT16, INT32, FLOAT."),
        Arg(
            "sample_rate",
            "float",
            default=0.0,
            tensor=True,
            doc="If given, the target rate in Hz the audio is resampled to.",
        ),
        Arg("quality", "float", default=50.0, doc="Resampling quality 0..100 (3..64 sinc lobes)."),
    ],
)
class AudioDecoder(Operator):
    """Decodes waveforms from encoded audio data.

    It supports the following audio formats: WAV, FLAC, and OGG (including both OGG Vorbis
    and OGG Opus), and the other formats libsndfile reads.

    This operator produces the following outputs:

    * output[0]: A batch of decoded data: ``(frames, channels)``, or ``(frames,)`` with
      ``downmix=True``.
    * output[1]: A batch of sampling rates [Hz] (float scalars): the files', or
      ``sample_rate`` when it is given.

    ``sample_rate`` resamples each clip whose rate differs with a Hann-windowed sinc filter
    (``quality``: 0 gives 3 lobes, 50 gives 16 lobes, 100 gives 64 lobes), the filter of
    `fn.audio_resample`.
    """

    def setup(self) -> None:
        self._dtype = check_output_dtype(self)
        self._downmix = bool(self.arg("downmix"))
        #: DALI resamples (and reports the target rate) whenever ``sample_rate`` is given
        self._resample = self.has_arg("sample_rate")
        self._quality = check_quality(self) if self._resample else 50.0

    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, TensorListCPU]:
        tl = ws.inputs[0]
        if tl.np_dtype != np.uint8:
            raise self.error(
                f"Raw files must be stored as uint8 data, got {type_name(tl.np_dtype)}"
            )
        if tl.sample_ndim != 1:
            raise self.error(
                f"Raw input must be 1D encoded byte data, got {tl.sample_ndim}-D samples"
            )
        samples = tl.samples()
        n = len(samples)
        targets = ws.arg_scalars("sample_rate", np.float32) if self._resample else None
        infos = tl.source_infos

        def one(i: int) -> tuple[np.ndarray, float]:
            name = infos[i] if infos else ""
            try:
                with open_clip(samples[i], name) as clip:
                    target = float(targets[i]) if targets is not None else 0.0
                    audio = decode_clip(
                        clip,
                        dtype=self._dtype,
                        downmix=self._downmix,
                        target_rate=target,
                        quality=self._quality,
                    )
                    rate = target if targets is not None else float(clip.rate)
            except AudioError as e:
                where = f" {name}" if name else ""
                raise self.error(f"Error decoding file{where}: {e}") from e
            return audio, rate

        results = ws.map(one, n)
        audio = [a for a, _ in results]
        rates = np.array([r for _, r in results], np.float32)
        ndim = 1 if self._downmix else 2
        out = TensorListCPU.wrap(audio, "", dtype=self._dtype, ndim=ndim)
        return out, TensorListCPU.wrap(rates, "")

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        downmix = bool(node.scalar_args.get("downmix", False))
        dtype = node.scalar_args.get("dtype", DALIDataType.FLOAT)
        shape = (None,) if downmix else (None, None)
        return [
            {"dtype": dtype, "static_shape": shape, "layout": ""},
            {"dtype": DALIDataType.FLOAT, "static_shape": (), "layout": ""},
        ]
