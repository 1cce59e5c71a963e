"""decoders.audio (and its alias audio_decoder): WAV, FLAC and OGG clips against libsndfile's
own reads and float64 references, downmixing, resampling, per-sample rates, types, errors."""

from __future__ import annotations

import math

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._graph.schema import get_schema
from dali._ops.audio import _resampling as R
from dali._ops.audio.codecs import decode_clip, downmix_channels, open_clip
from dali._testing.audio import audio_signal, write_clip

sf = pytest.importorskip("soundfile")

#: name -> (frames, rate, channels, subtype)
CLIPS = {
    "m16.wav": (1000, 16000, 1, None),
    "s16.wav": (1234, 22050, 2, None),
    "q4.wav": (777, 12347, 4, None),
    "s24.flac": (900, 44100, 2, "PCM_24"),
    "m.flac": (1500, 16000, 1, None),
    "f32.wav": (800, 8000, 2, "FLOAT"),
    "u8.wav": (600, 8000, 1, "PCM_U8"),
    "s.ogg": (3000, 44100, 2, None),
}


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("audio")
    paths = {}
    for k, (name, (frames, rate, channels, subtype)) in enumerate(CLIPS.items()):
        paths[name] = write_clip(
            root / name, length=frames, rate=rate, channels=channels, subtype=subtype, seed=k
        )
    return paths


def _bytes(path):
    return np.fromfile(path, np.uint8)


def _decode(data, *, batch_size=None, **kw):
    data = list(data)
    pipe = dali.Pipeline(batch_size=batch_size or len(data), num_threads=2, device_id=None)
    with pipe:
        audio, rate = fn.decoders.audio(fn.external_source(lambda: data), **kw)
        pipe.set_outputs(audio, rate)
    return pipe.run()


def _read(path, dtype="float32"):
    x, rate = sf.read(str(path), dtype=dtype, always_2d=True)
    return x, rate


# -- plain decoding ---------------------------------------------------------------------------


def test_schema_matches_dali():
    schema = get_schema("decoders.audio")
    defaults = {k: schema.args[k].default for k in ("downmix", "dtype", "sample_rate", "quality")}
    assert defaults == {
        "downmix": False,
        "dtype": types.FLOAT,
        "sample_rate": 0.0,
        "quality": 50.0,
    }
    assert schema.args["sample_rate"].tensor and not schema.args["quality"].tensor
    assert schema.devices == ("cpu",) and schema.num_outputs == 2


@pytest.mark.parametrize(
    "dtype, sf_dtype", [(types.FLOAT, "float32"), (types.INT16, "int16"), (types.INT32, "int32")]
)
def test_frames_are_libsndfiles_in_the_output_type(clips, dtype, sf_dtype):
    names = list(CLIPS)
    audio, rate = _decode([_bytes(clips[n]) for n in names], dtype=dtype)
    assert audio.layout() == "" and rate.dtype == types.FLOAT
    for i, name in enumerate(names):
        ref, sr = _read(clips[name], sf_dtype)
        got = audio.at(i)
        assert got.shape == (CLIPS[name][0], CLIPS[name][2]) and got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
        assert rate.at(i).shape == () and float(rate.at(i)) == sr


def test_values_are_the_written_signal(clips):
    # the 24-bit FLAC and the float WAV keep the signal to their precision (independent of
    # libsndfile's reading: the generator's own samples)
    audio, _ = _decode([_bytes(clips["s24.flac"]), _bytes(clips["f32.wav"])])
    sig24 = audio_signal(900, 44100, 2, seed=3)
    np.testing.assert_allclose(audio.at(0), sig24, atol=2**-23)
    np.testing.assert_array_equal(audio.at(1), audio_signal(800, 8000, 2, seed=5))


def test_downmix_averages_the_channels(clips):
    names = list(CLIPS)
    audio, rate = _decode([_bytes(clips[n]) for n in names], downmix=True)
    for i, name in enumerate(names):
        x, sr = _read(clips[name])
        got = audio.at(i)
        assert got.shape == (CLIPS[name][0],)
        np.testing.assert_allclose(got, x.astype(np.float64).mean(axis=1), atol=3e-7)
        np.testing.assert_array_equal(got, downmix_channels(x) if x.shape[1] > 1 else x[:, 0])
        assert float(rate.at(i)) == sr


def test_downmix_to_integers_converts_the_float_mean(clips):
    # DALI decodes float, averages, then rounds (not an average of rounded integers)
    audio, _ = _decode([_bytes(clips["s16.wav"])], downmix=True, dtype=types.INT16)
    x, _ = _read(clips["s16.wav"])
    mean = (x[:, 0] * np.float32(0.5) + x[:, 1] * np.float32(0.5)).astype(np.float64)
    expected = np.clip(np.sign(mean) * np.floor(np.abs(mean) * 32767 + 0.5), -32768, 32767)
    np.testing.assert_array_equal(audio.at(0), expected.astype(np.int16))


# -- resampling -------------------------------------------------------------------------------


@pytest.mark.parametrize("target, quality", [(16000.0, 50.0), (12999.0, 0.0), (8000.0, 100.0)])
@pytest.mark.parametrize("downmix", [False, True])
def test_sample_rate_resamples_with_the_sinc_filter(clips, target, quality, downmix):
    names = ["m16.wav", "s16.wav", "q4.wav", "s24.flac"]
    audio, rate = _decode(
        [_bytes(clips[n]) for n in names], sample_rate=target, quality=quality, downmix=downmix
    )
    w = R.window_for_quality(quality)
    for i, name in enumerate(names):
        x, sr = _read(clips[name])
        assert float(rate.at(i)) == target
        n = math.ceil(x.shape[0] * target / sr) if sr != target else x.shape[0]
        got = audio.at(i)
        assert got.shape == ((n,) if downmix else (n, x.shape[1]))
        src = downmix_channels(x) if downmix and x.shape[1] > 1 else (x[:, 0] if downmix else x)
        if sr == target:
            np.testing.assert_array_equal(got, src)
            continue
        np.testing.assert_array_equal(got, R.resample_numpy(src, float(sr), target, n, w))
        # against a float64 windowed sinc: within the tabulated window's interpolation error
        s64 = np.asarray(src, np.float64).reshape(x.shape[0], -1)
        o = np.arange(0, n, max(1, n // 40))
        for k in o:
            p = k * sr / target
            j = np.arange(max(0, math.ceil(p) - w.lobes), min(len(s64), math.ceil(p) + w.lobes))
            d = j - p
            ref = (np.sinc(d) * 0.5 * (1 + np.cos(np.pi * d / w.lobes))) @ s64[j]
            np.testing.assert_allclose(got.reshape(n, -1)[k], ref, atol=2e-3)


def test_per_sample_rates_and_int_output(clips):
    data = [_bytes(clips["s16.wav"]), _bytes(clips["m16.wav"]), _bytes(clips["m.flac"])]

    def build():
        enc = fn.external_source(lambda: data)
        rates = fn.external_source(lambda: [np.float32(r) for r in (11025, 16000, 44100)])
        return tuple(fn.decoders.audio(enc, sample_rate=rates, dtype=types.INT16))

    pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(*build())
    audio, rate = pipe.run()
    assert [float(rate.at(i)) for i in range(3)] == [11025.0, 16000.0, 44100.0]
    assert audio.at(0).shape == (617, 2) and audio.at(1).shape == (1000, 1)
    assert audio.at(2).shape == (math.ceil(1500 * 44100 / 16000), 1)
    x, _ = _read(clips["m16.wav"], "int16")
    np.testing.assert_array_equal(audio.at(1), x)  # the same rate: decoded as int16 directly


def test_sample_rate_zero_or_negative_reports_it_and_keeps_the_clip(clips):
    for target in (0.0, -5.0):
        audio, rate = _decode([_bytes(clips["s16.wav"])], sample_rate=target)
        assert float(rate.at(0)) == target
        np.testing.assert_array_equal(audio.at(0), _read(clips["s16.wav"])[0])


def test_quality_is_checked_only_when_resampling(clips):
    _decode([_bytes(clips["m16.wav"])], quality=101.0)
    with pytest.raises(
        Exception, match=r"argument `quality`: Resampling quality must be in \[0..100\]"
    ):
        _decode([_bytes(clips["m16.wav"])], quality=101.0, sample_rate=8000.0)


def test_decode_clip_offset_and_length(clips):
    with open_clip(str(clips["s16.wav"])) as clip:
        part = decode_clip(clip, dtype=np.dtype(np.int16), downmix=False, offset=100, frames=50)
    np.testing.assert_array_equal(part, _read(clips["s16.wav"], "int16")[0][100:150])


# -- the legacy name, readers, errors ---------------------------------------------------------


def test_alias_and_reader_source_info(clips):
    files = [str(clips["s16.wav"]), str(clips["m.flac"])]
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        enc, _ = fn.readers.file(files=files)
        with pytest.warns(DeprecationWarning, match="audio_decoder"):
            audio, rate = fn.audio_decoder(enc, downmix=True, dtype=types.INT32)
        pipe.set_outputs(audio, rate)
    audio, rate = pipe.run()
    assert audio.dtype == types.INT32 and audio.at(0).ndim == 1
    assert float(rate.at(1)) == 16000.0


@pytest.mark.parametrize(
    "data, kw, text",
    [
        ([np.zeros(100, np.float32)], {}, "Raw files must be stored as uint8 data, got float"),
        ([np.zeros((2, 50), np.uint8)], {}, "Raw input must be 1D encoded byte data"),
        (
            [np.arange(100, dtype=np.uint8)],
            {},
            "Failed to open encoded data: Format not recognised",
        ),
        ([np.zeros(0, np.uint8)], {}, "Failed to open encoded data"),
        ([np.zeros(10, np.uint8)], {"dtype": types.UINT8}, "Unsupported output type: uint8"),
        ([np.zeros(10, np.uint8)], {"dtype": types.FLOAT64}, "Unsupported output type: double"),
    ],
)
def test_errors(data, kw, text):
    with pytest.raises(Exception, match=text) as info:
        _decode(data, **kw)
    assert "decoders.audio" in str(info.value)


def test_a_broken_file_is_named(tmp_path, clips):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF....WAVEjunk" * 4)
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        enc, _ = fn.readers.file(files=[str(clips["m16.wav"]), str(bad)])
        pipe.set_outputs(*fn.decoders.audio(enc))
    with pytest.raises(Exception, match=r"broken\.wav"):
        pipe.run()


def test_truncated_file_decodes_what_is_there(clips):
    data = _bytes(clips["s16.wav"])[:200]  # 44-byte header, 156 bytes of frames
    audio, _ = _decode([data])
    assert audio.at(0).shape == (39, 2)
    np.testing.assert_array_equal(audio.at(0), _read(clips["s16.wav"])[0][:39])


def test_static_meta():
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        audio, rate = fn.decoders.audio(
            fn.external_source(lambda: [np.zeros(1, np.uint8)]), downmix=True, dtype=types.INT16
        )
        assert audio.dtype == types.INT16 and audio.ndim == 1
        assert rate.dtype == types.FLOAT and rate.ndim == 0


# -- the numpy WAV reader ---------------------------------------------------------------------

from dali._ops.audio import _wav


def _wav_bytes(x, rate, subtype, fmt="WAV"):
    import io

    buf = io.BytesIO()
    sf.write(buf, x, rate, format=fmt, subtype=subtype)
    return np.frombuffer(buf.getvalue(), np.uint8)


@pytest.mark.parametrize("subtype", ["PCM_16", "PCM_24", "PCM_32", "PCM_U8", "FLOAT"])
@pytest.mark.parametrize("channels", [1, 2, 3, 6])
@pytest.mark.parametrize("fmt", ["WAV", "WAVEX"])
def test_wav_reader_gives_libsndfiles_values(subtype, channels, fmt):
    import io

    rng = np.random.default_rng(channels)
    x = np.clip(rng.standard_normal((1001, channels)) * 0.4, -1, 1).astype(np.float32)
    x[:4, 0] = [-1.0, 1.0, 0.0, -0.5]
    data = _wav_bytes(x, 22050, subtype, fmt)
    info = _wav.parse_header(data)
    assert info is not None and (info.frames, info.rate, info.channels) == (1001, 22050, channels)
    for dtype in ("float32", "int16", "int32"):
        ref = sf.read(io.BytesIO(data.tobytes()), dtype=dtype, always_2d=True)[0]
        got = _wav.read_frames(data, info, 0, 1001, np.dtype(dtype))
        if subtype == "FLOAT" and dtype != "float32":
            assert got is None  # libsndfile converts those
            continue
        np.testing.assert_array_equal(got, ref)
        part = _wav.read_frames(data, info, 300, 17, np.dtype(dtype))
        np.testing.assert_array_equal(part, ref[300:317])


def test_wav_reader_every_16_bit_value():
    import io

    v = np.arange(-32768, 32768, dtype=np.int16).reshape(-1, 1)
    data = _wav_bytes(v, 8000, "PCM_16")
    info = _wav.parse_header(data)
    for dtype in ("float32", "int16", "int32"):
        ref = sf.read(io.BytesIO(data.tobytes()), dtype=dtype, always_2d=True)[0]
        np.testing.assert_array_equal(_wav.read_frames(data, info, 0, 65536, np.dtype(dtype)), ref)


def test_wav_reader_skips_chunks_and_clips_truncated_data():
    x = audio_signal(500, 8000, 2, seed=1)
    data = _wav_bytes(x, 8000, "PCM_16").tobytes()
    # a LIST chunk of odd size (padded) between fmt and data
    extra = b"LIST" + (5).to_bytes(4, "little") + b"abcde\x00"
    patched = data[:36] + extra + data[36:]
    patched = patched[:4] + (len(patched) - 8).to_bytes(4, "little") + patched[8:]
    info = _wav.parse_header(np.frombuffer(patched, np.uint8))
    assert info is not None and info.frames == 500 and info.data_offset == 44 + len(extra)
    audio, _ = _decode([np.frombuffer(patched, np.uint8)])
    np.testing.assert_array_equal(audio.at(0), _decode([np.frombuffer(data, np.uint8)])[0].at(0))
    truncated = _wav.parse_header(np.frombuffer(data[:1001], np.uint8))
    assert truncated is not None and truncated.frames == (1001 - 44) // 4


@pytest.mark.parametrize(
    "subtype, fmt", [("ALAW", "WAV"), ("IMA_ADPCM", "WAV"), ("PCM_16", "RF64"), ("PCM_16", "AIFF")]
)
def test_other_wav_kinds_go_to_libsndfile(subtype, fmt):
    import io

    x = audio_signal(400, 8000, 1, seed=2)
    data = _wav_bytes(x, 8000, subtype, fmt)
    assert _wav.parse_header(data) is None
    audio, rate = _decode([data], dtype=types.INT16)
    ref, sr = sf.read(io.BytesIO(data.tobytes()), dtype="int16", always_2d=True)
    np.testing.assert_array_equal(audio.at(0), ref)
    assert float(rate.at(0)) == sr
