"""The CPU decoder's batched path: frames converted a batch per call, straight from the decoder's
planes into the sample (`CpuDecoder.decode_into`, `_color.i420_frames_to_rgb`), giving the bytes
of the numpy reference and of the frame-by-frame path, with repeats, padding and any order."""

from __future__ import annotations

import fractions

import numpy as np
import pytest
from dali import _options as options
from dali._ops.video import _color, _decode_cpu
from dali._ops.video._container import index_video
from dali._ops.video._decode_cpu import CpuDecoder
from dali._testing.videos import frame_image, frame_number, write_clip

av = pytest.importorskip("av")


def _planes(rng, n, height, width, pad=(13, 5, 3)):
    """``n`` random 4:2:0 frames, each plane in a wider buffer (rows padded as decoders pad)."""
    ch, cw = (height + 1) // 2, (width + 1) // 2
    frames = []
    for _ in range(n):
        y = rng.integers(0, 256, (height, width + pad[0]), dtype=np.uint8)[:, :width]
        u = rng.integers(0, 256, (ch, cw + pad[1]), dtype=np.uint8)[:, :cw]
        v = rng.integers(0, 256, (ch, cw + pad[2]), dtype=np.uint8)[:, :cw]
        y.flat[0], u.flat[0], v.flat[0] = 0, 0, 255  # the clamps
        frames.append((y, u, v))
    return frames


def _table(frames):
    return np.array(
        [[a for p in f for a in (p.ctypes.data, p.strides[0])] for f in frames], np.int64
    )


def _reference(frame, conversion):
    return _color.i420_to_rgb_numpy(
        *frame, full_range=conversion == "rgb_full", ycbcr=conversion == "ycbcr"
    )


@pytest.mark.parametrize("jit", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("conversion", _color.CONVERSIONS)
@pytest.mark.parametrize(("height", "width"), [(36, 64), (33, 47), (1, 1), (5, 2), (2, 7)])
def test_a_batch_of_frames_goes_to_its_places_with_the_reference_bytes(
    conversion, height, width, jit, monkeypatch
):
    if jit and _color._jit_kernel() is None:
        pytest.skip("needs Numba")
    if not jit:
        monkeypatch.setattr(_color, "_jit_kernel", lambda: None)
    rng = np.random.default_rng(height * 131 + width)
    frames = _planes(rng, 4, height, width)
    out = np.full((6, height, width, 3), 7, np.uint8)
    dest = np.array([5, 0, 3, 1])
    _color.i420_frames_to_rgb(_table(frames), conversion, out, dest)
    for frame, k in zip(frames, dest.tolist()):
        np.testing.assert_array_equal(out[k], _reference(frame, conversion))
    assert (out[[2, 4]] == 7).all()  # places no frame was sent to are untouched


def test_one_frame_from_strided_planes_into_a_strided_output():
    rng = np.random.default_rng(3)
    y, u, v = _planes(rng, 1, 34, 50)[0]
    wide = np.zeros((34, 60, 3), np.uint8)
    out = wide[:, 5:55]  # not contiguous
    every_other = np.repeat(y, 2, axis=1)[:, ::2]  # y again, its samples two bytes apart
    got = _color.i420_to_rgb(every_other, u, v, full_range=False, out=out)
    assert got is out
    np.testing.assert_array_equal(out, _reference((y, u, v), "rgb"))
    assert (wide[:, :5] == 0).all() and (wide[:, 55:] == 0).all()


def test_shapes_and_places_are_checked():
    y = np.zeros((4, 6), np.uint8)
    with pytest.raises(ValueError, match="chroma planes"):
        _color.i420_to_rgb(
            y, np.zeros((2, 2), np.uint8), np.zeros((2, 3), np.uint8), full_range=False
        )
    with pytest.raises(ValueError, match="output"):
        u = np.zeros((2, 3), np.uint8)
        _color.i420_to_rgb(y, u, u, full_range=False, out=np.zeros((4, 5, 3), np.uint8))
    table = _table([(y, np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.uint8))])
    with pytest.raises(ValueError, match="places"):
        _color.i420_frames_to_rgb(table, "rgb", np.zeros((1, 4, 6, 3), np.uint8), np.array([1]))
    with pytest.raises(ValueError, match="C-contiguous"):
        _color.i420_frames_to_rgb(table, "rgb", np.zeros((1, 4, 6, 3), np.uint8)[:, :, ::2])


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    # key frames every 10: the frames asked for below need seeks backwards and forwards
    path = str(tmp_path_factory.mktemp("batch") / "a.mp4")
    return write_clip(path, frames=40, width=176, height=144, gop=10)


def _frame_by_frame(path, frames, fill):
    """The frame-by-frame path: ``decode`` and ``to_rgb`` (what decode_into must equal)."""
    decoder = CpuDecoder(index_video(path))
    out = np.empty((len(frames), 144, 176, 3), np.uint8)
    for k, f in enumerate(frames):
        if f < 0:
            out[k] = fill
    places = {}
    for k, f in enumerate(frames):
        if f >= 0:
            places.setdefault(f, []).append(k)

    def store(number, frame):
        for k in places[number]:
            decoder.to_rgb(frame, "rgb", out[k])

    decoder.decode(list(places), store)
    decoder.close()
    return out


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_decode_into_gives_the_frame_by_frame_bytes(clip, batch, monkeypatch):
    frames = np.array([31, 2, -1, 2, 17, 18, 39, 0, -1, 31, 5, 6, 7])
    fill = np.array([1, 2, 3], np.uint8)
    want = _frame_by_frame(clip, frames, fill)
    monkeypatch.setattr(options, "VIDEO_CONVERT_BATCH", batch)
    calls = []
    convert = _decode_cpu.i420_frames_to_rgb

    def counting(table, conversion, out, dest=None):
        calls.append(len(table))
        return convert(table, conversion, out, dest)

    monkeypatch.setattr(_decode_cpu, "i420_frames_to_rgb", counting)
    decoder = CpuDecoder(index_video(clip))
    out = np.zeros((len(frames), 144, 176, 3), np.uint8)
    decoder.decode_into(frames, "rgb", fill, out)
    np.testing.assert_array_equal(out, want)
    assert [frame_number(f) for f, n in zip(out, frames) if n >= 0] == [
        n for n in frames.tolist() if n >= 0
    ]
    assert (out[frames < 0] == fill).all()
    distinct = len(set(frames.tolist()) - {-1})
    assert calls == [batch] * (distinct // batch) + ([distinct % batch] if distinct % batch else [])
    # the decoder goes on where it stopped: the next frames come without a seek
    assert decoder.position == 40
    decoder.close()


def test_decode_into_only_padding(clip):
    decoder = CpuDecoder(index_video(clip))
    out = np.zeros((2, 144, 176, 3), np.uint8)
    decoder.decode_into(np.array([-1, -1]), "rgb", np.array([9, 8, 7], np.uint8), out)
    assert (out == [9, 8, 7]).all() and decoder.position == -1
    decoder.close()


def test_a_decoder_is_one_ffmpeg_thread(clip):
    decoder = CpuDecoder(index_video(clip))
    assert decoder._stream.codec_context.thread_count == 1
    decoder.close()


def test_frames_in_another_pixel_format_are_converted_to_420_first(tmp_path):
    # a 4:4:4 H.264 stream: FFmpeg converts each frame to yuv420p, then the shared arithmetic
    path = str(tmp_path / "c444.mp4")
    with av.open(path, "w") as out:
        stream = out.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv444p"
        stream.options = {"g": "4", "crf": "18", "preset": "veryfast"}
        stream.codec_context.time_base = fractions.Fraction(1, 25)
        for k in range(6):
            frame = av.VideoFrame.from_ndarray(frame_image(k, 64, 48), "rgb24")
            frame.pts = k
            for packet in stream.encode(frame.reformat(format="yuv444p")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    index = index_video(path)
    want = []
    with av.open(path) as c:
        for frame in c.decode(video=0):
            assert frame.format.name == "yuv444p"
            i420 = frame.reformat(format="yuv420p")
            planes = [np.frombuffer(p, np.uint8).reshape(-1, p.line_size) for p in i420.planes]
            y, u, v = planes[0][:48, :64], planes[1][:24, :32], planes[2][:24, :32]
            want.append(_reference((y, u, v), "rgb"))
    out = np.empty((3, 48, 64, 3), np.uint8)
    decoder = CpuDecoder(index)
    decoder.decode_into(np.array([4, 1, 5]), "rgb", np.zeros(3, np.uint8), out)
    decoder.close()
    for got, k in zip(out, (4, 1, 5)):
        np.testing.assert_array_equal(got, want[k])
