"""decoders.video: in-memory videos to frame sequences, frame selection and padding, CPU/GPU."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def
from dali._testing.videos import frame_number, write_clip
from parity import cpu_gpu, device_id

pytest.importorskip("av")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("dec")
    return [
        write_clip(str(root / "a.mp4"), frames=20, width=160, height=144),
        write_clip(str(root / "b.webm"), frames=13, codec="vp9", width=192, height=144),
    ]


def _decode(clips, device="cpu", decoder=None, **kwargs):
    decoder = decoder or fn.decoders.video

    @pipeline_def(batch_size=len(clips), num_threads=2, device_id=device_id(device))
    def pipe():
        enc, _ = fn.readers.file(files=clips)
        return decoder(enc, device="mixed" if device == "gpu" else "cpu", **kwargs)

    p = pipe()
    p.build()
    return p.run()[0]


def _numbers(video):
    return [frame_number(f) for f in np.asarray(video)]


@pytest.mark.parametrize(
    "kwargs, a, b",
    [
        ({}, list(range(20)), list(range(13))),
        ({"frames": [5, 0, 5, 12]}, [5, 0, 5, 12], [5, 0, 5, 12]),
        ({"start_frame": 2, "end_frame": 11, "stride": 4}, [2, 6, 10], [2, 6, 10]),
        (
            {"start_frame": 8, "sequence_length": 4, "stride": 2, "pad_mode": "edge"},
            [8, 10, 12, 14],
            [8, 10, 12, 12],
        ),
        (
            {"start_frame": 9, "sequence_length": 4, "stride": 2, "pad_mode": "reflect_101"},
            [9, 11, 13, 15],
            [9, 11, 11, 9],
        ),
    ],
)
def test_frame_selection(clips, kwargs, a, b):
    out = _decode(clips, **kwargs)
    assert out.layout() == "FHWC"
    assert _numbers(out[0]) == a and _numbers(out[1]) == b
    assert np.asarray(out[1]).shape == (len(b), 144, 192, 3)


def test_constant_padding_and_the_deprecated_name(clips):
    with pytest.warns(DeprecationWarning, match=r"experimental\.decoders\.video` is now deprec"):
        out = _decode(
            clips,
            decoder=fn.experimental.decoders.video,
            start_frame=10,
            sequence_length=5,
            fill_value=[1, 2, 3],
        )
    video = np.asarray(out[1])
    assert _numbers(video[:3]) == [10, 11, 12]
    assert (video[3:] == [1, 2, 3]).all()


def test_per_sample_frames(clips):
    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def pipe():
        enc, _ = fn.readers.file(files=clips)
        start = fn.external_source(lambda: [np.int32(3), np.int32(7)], batch=True)
        return fn.decoders.video(enc, start_frame=start, sequence_length=2)

    p = pipe()
    p.build()
    out = p.run()[0]
    assert _numbers(out[0]) == [3, 4] and _numbers(out[1]) == [7, 8]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"frames": [3], "start_frame": 1}, "cannot be used with"),
        ({"end_frame": 3, "sequence_length": 2}, "cannot be used together"),
        ({"pad_mode": "none", "frames": [30]}, r"past the end of '.*a\.mp4' \(20 frames\)"),
        ({"pad_mode": "zero"}, "pad_mode"),
    ],
)
def test_errors(clips, kwargs, match):
    with pytest.raises(Exception, match=match) as info:
        _decode(clips, **kwargs)
    assert "decoders.video" in str(info.value)


def test_not_a_video_names_the_sample(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a video at all" * 20)
    with pytest.raises(Exception, match=r"notes\.txt"):
        _decode([str(bad)])


@cpu_gpu()
def test_decoder_cpu_gpu_same_bytes(device, clips):
    return _decode(clips, device, frames=[0, 7, 3, 12, 12])
