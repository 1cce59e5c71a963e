"""readers.video and experimental.readers.video: DALI's sequence rules, frame-exact decoding on
the CPU (PyAV) and the GPU (NVDEC), outputs, errors, sharding and checkpoints.

Clips are written by `dali._testing.videos`: every frame shows its number, so each test checks
that a sequence holds exactly the frames it names. The expected sample lists of the
experimental reader are the ones real DALI 2.4 produced on the same clips (VP9, its CPU
backend; tests/conformance/cases_video.py compares them live).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from dali import fn, pipeline_def, types
from dali._testing.videos import frame_number, write_clip
from parity import cpu_gpu, device_id

pytest.importorskip("av")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("videos")
    return {
        "a50": write_clip(str(root / "a50.mp4"), frames=50, width=160, height=144),
        "b23": write_clip(str(root / "b23.mp4"), frames=23, width=160, height=144),
        "hevc": write_clip(str(root / "c.mp4"), frames=24, codec="hevc", width=160, height=144),
        "vp9": write_clip(str(root / "d.webm"), frames=24, codec="vp9", width=160, height=144),
        "mjpeg": write_clip(str(root / "e.avi"), frames=12, codec="mjpeg", width=160, height=144),
        "vfr": write_clip(str(root / "vfr.mp4"), frames=12, vfr=True, width=160, height=144),
        "root": str(root),
    }


def _all_samples(reader_kwargs, device="cpu", batch_size=1, experimental=True):
    reader = fn.experimental.readers.video if experimental else fn.readers.video

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id(device))
    def pipe():
        return tuple(reader(device=device, name="R", **reader_kwargs))

    p = pipe()
    p.build()
    meta = p.reader_meta("R")
    n = meta["epoch_size"] // meta["number_of_shards"]  # the shard's samples (divisible here)
    out = []
    for _ in range((n + batch_size - 1) // batch_size):
        o = p.run()
        for i in range(batch_size):
            out.append(tuple(np.asarray(o[k].as_cpu()[i]) for k in range(len(o))))
    return out[:n]


def _check_frames(video, numbers):
    for frame, k in zip(video, numbers):
        if k >= 0:
            assert frame_number(frame) == k


@pytest.mark.parametrize(
    "extra, expected",
    [
        # (label, frame numbers) of every sample, as real DALI 2.4 gives them
        (
            {"sequence_length": 8, "stride": 3},
            [(0, list(range(0, 24, 3))), (0, list(range(24, 48, 3)))],
        ),
        (
            {"sequence_length": 8, "stride": 2, "step": 5, "pad_mode": "edge"},
            [(0, list(range(s, s + 16, 2))) for s in range(0, 40, 5)]
            + [
                (1, list(range(0, 16, 2))),
                (1, list(range(5, 21, 2))),
                (1, [*range(10, 24, 2), 22]),
            ],
        ),
        (
            {"sequence_length": 8, "stride": 2, "step": 20, "pad_mode": "reflect_1001"},
            [
                (0, list(range(0, 16, 2))),
                (0, list(range(20, 36, 2))),
                (0, [40, 42, 44, 46, 48, 49, 47, 45]),
                (1, list(range(0, 16, 2))),
                (1, [20, 22, 21, 19, 17, 15, 13, 11]),
            ],
        ),
        (
            {"sequence_length": 4, "uniform_sample": True},
            [(0, [0, 16, 33, 49]), (1, [0, 7, 15, 22])],
        ),
    ],
)
def test_experimental_sequences_follow_dali(clips, extra, expected):
    got = _all_samples(
        dict(
            filenames=[clips["a50"], clips["b23"]],
            labels=[0, 1],
            enable_frame_num="sequence",
            enable_timestamps=True,
            **extra,
        )
    )
    assert [(int(s[1][0]), s[2].tolist()) for s in got] == expected
    for video, _label, nums, stamps in got:
        assert video.shape == (len(nums), 144, 160, 3) and video.dtype == np.uint8
        _check_frames(video, nums.tolist())
        np.testing.assert_allclose(stamps, np.where(nums >= 0, nums * 0.04, -1.0), atol=1e-9)


def test_constant_padding_fills_and_marks_frames(clips):
    got = _all_samples(
        {
            "filenames": [clips["b23"]],
            "sequence_length": 8,
            "stride": 2,
            "step": 5,
            "pad_mode": "constant",
            "fill_value": [7, 8, 9],
            "enable_frame_num": "sequence",
        }
    )
    video, nums = got[-1]
    assert nums.tolist() == [10, 12, 14, 16, 18, 20, 22, -1]
    assert (video[-1] == [7, 8, 9]).all()
    assert len(got) == 3  # no labels output without labels


def test_legacy_reader_rules_and_outputs(clips):
    got = _all_samples(
        {
            "filenames": [clips["a50"], clips["b23"]],
            "labels": [3, 4],
            "sequence_length": 8,
            "stride": 3,
            "pad_sequences": True,
            "enable_frame_num": True,
            "enable_timestamps": True,
            "dtype": types.FLOAT,
            "normalized": True,
        },
        experimental=False,
    )
    # span (8 - 1) * 3 + 1 = 22, step 8: a50 -> 0, 8, 16, 24 full, then 32..48 padded
    starts = [(int(s[1][0]), int(s[2][0])) for s in got]
    assert starts == [
        (3, 0),
        (3, 8),
        (3, 16),
        (3, 24),
        (3, 32),
        (3, 40),
        (3, 48),
        (4, 0),
        (4, 8),
        (4, 16),
    ]
    video, _, _, stamps = got[5]  # start 40: frames 40, 43, 46, 49, then padding
    assert video.dtype == np.float32 and video.max() <= 1.0
    assert (video[4:] == 0).all() and (stamps[4:] == -1).all()
    _check_frames((video[:4] * 255).round().astype(np.uint8), [40, 43, 46, 49])


def test_file_root_and_file_list(clips, tmp_path):
    for name, _label in (("a", 0), ("b", 1)):
        os.makedirs(tmp_path / name)
    os.symlink(clips["b23"], tmp_path / "a" / "x.mp4")
    os.symlink(clips["a50"], tmp_path / "b" / "y.mp4")
    got = _all_samples({"file_root": str(tmp_path), "sequence_length": 10})
    assert [int(s[1][0]) for s in got] == [0, 0, 1, 1, 1, 1, 1]
    lst = tmp_path / "list.txt"
    lst.write_text(f"{clips['a50']} 7 0.4 1.2\n{clips['b23']} 9\n")
    got = _all_samples(
        {
            "file_list": str(lst),
            "sequence_length": 4,
            "file_list_format": "timestamps",
            "enable_frame_num": True,
        }
    )
    # 0.4 s .. 1.2 s at 25 fps: frames 10..30 inclusive -> starts 10, 14, 18, 22, 26
    assert [(int(s[1][0]), int(s[2][0])) for s in got] == [
        (7, 10),
        (7, 14),
        (7, 18),
        (7, 22),
        (7, 26),
        (9, 0),
        (9, 4),
        (9, 8),
        (9, 12),
        (9, 16),
    ]


def test_every_codec_is_frame_exact_on_cpu(clips):
    for key in ("hevc", "vp9", "mjpeg"):
        got = _all_samples(
            {
                "filenames": [clips[key]],
                "sequence_length": 5,
                "stride": 2,
                "enable_frame_num": "sequence",
            }
        )
        for video, nums in got:
            _check_frames(video, nums.tolist())


def test_shards_split_the_sequences(clips):
    kwargs = {"filenames": [clips["a50"]], "sequence_length": 5, "enable_frame_num": True}
    whole = sorted(int(s[1][0]) for s in _all_samples(kwargs))
    parts = [
        int(s[1][0])
        for shard in range(2)
        for s in _all_samples(dict(kwargs, num_shards=2, shard_id=shard))
    ]
    assert sorted(parts) == whole == list(range(0, 50, 5))


def test_checkpoint_resumes_at_the_same_sequence(clips):
    @pipeline_def(batch_size=2, num_threads=2, device_id=None, enable_checkpointing=True)
    def pipe():
        v, n = fn.experimental.readers.video(
            filenames=[clips["a50"]],
            sequence_length=3,
            random_shuffle=True,
            enable_frame_num=True,
            name="R",
        )
        return v, n

    p = pipe()
    p.build()
    p.run()
    state = p.checkpoint()
    expect = [np.asarray(p.run()[1].as_tensor()).ravel().tolist() for _ in range(3)]
    q = pipe(checkpoint=state)
    q.build()
    assert [np.asarray(q.run()[1].as_tensor()).ravel().tolist() for _ in range(3)] == expect


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"filenames": ["/no/such/video.mp4"]}, "/no/such/video.mp4"),
        ({"filenames": ["CORRUPT"]}, "cannot open video file"),
        ({"filenames": ["a50"], "sequence_length": 60}, "no valid sequences"),
        ({"filenames": ["a50"], "pad_mode": "wrap"}, "pad_mode"),
        ({"filenames": ["a50"], "fill_value": [1, 2]}, "fill_value"),
        ({"filenames": ["a50"], "labels": [1, 2]}, "2 labels for 1 files"),
        ({"filenames": ["a50"], "file_root": "/tmp"}, "exactly one of"),
        ({"filenames": ["a50"], "enable_frame_num": "all"}, "enable_frame_num"),
    ],
)
def test_errors_name_the_argument_and_file(clips, tmp_path, kwargs, match):
    corrupt = tmp_path / "corrupt.mp4"
    corrupt.write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(2000))
    names = {"a50": clips["a50"], "CORRUPT": str(corrupt)}
    kwargs = dict(kwargs)
    kwargs["filenames"] = [names.get(f, f) for f in kwargs["filenames"]]
    kwargs.setdefault("sequence_length", 4)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.experimental.readers.video(**kwargs)  # one output: the video

    with pytest.raises(Exception, match=match) as info:
        pipe().build()
    assert "readers.video" in str(info.value)


def test_unsupported_codec_names_the_codec_and_file(tmp_path):
    import av

    path = str(tmp_path / "lossless.mkv")
    with av.open(path, "w") as out:
        stream = out.add_stream("ffv1", rate=25)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for k in range(3):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), k * 40, np.uint8), "rgb24")
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.video(filenames=[path], sequence_length=2)

    with pytest.raises(Exception, match=r"unsupported video codec 'ffv1' in '.*lossless\.mkv'"):
        pipe().build()


def test_legacy_refuses_variable_frame_rate(clips):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe(skip):
        return fn.readers.video(filenames=[clips["vfr"]], sequence_length=3, skip_vfr_check=skip)

    with pytest.raises(Exception, match=r"variable frame rate.*vfr\.mp4"):
        pipe(False).build()
    p = pipe(True)
    p.build()
    video = np.asarray(p.run()[0][0])
    _check_frames(video, [0, 1, 2])


@cpu_gpu()
def test_reader_cpu_gpu_same_bytes(device, clips):
    # h264 with B-frames, HEVC and VP9: NVDEC and FFmpeg decode the same frames and the shared
    # conversion gives the same bytes
    @pipeline_def(batch_size=3, num_threads=2, device_id=device_id(device), seed=3)
    def pipe():
        v, n = fn.experimental.readers.video(
            device=device,
            filenames=[clips["a50"], clips["hevc"], clips["vp9"]],
            sequence_length=4,
            stride=3,
            step=7,
            random_shuffle=True,
            enable_frame_num=True,
        )
        return v, n

    p = pipe()
    p.build()
    return [out for _ in range(4) for out in p.run()]


@cpu_gpu()
def test_legacy_reader_with_crop_on_both(device, clips):
    # the slides' pipeline: VideoReader -> Crop
    @pipeline_def(batch_size=2, num_threads=2, device_id=device_id(device))
    def pipe():
        frames = fn.readers.video(
            device=device, filenames=[clips["a50"]], sequence_length=6, name="Reader"
        )
        return fn.crop(frames, crop=(64, 96))

    p = pipe()
    p.build()
    return [out for _ in range(2) for out in p.run()]


@cpu_gpu()
def test_padding_float_and_ycbcr_on_both(device, clips):
    # padded sequences (constant frames), FLOAT output and YCbCr: the GPU's per-sample path
    @pipeline_def(batch_size=4, num_threads=2, device_id=device_id(device))
    def pipe():
        legacy = fn.readers.video(
            device=device,
            filenames=[clips["b23"]],
            sequence_length=5,
            stride=2,
            step=7,
            pad_sequences=True,
            dtype=types.FLOAT,
            normalized=True,
        )
        ycc = fn.experimental.readers.video(
            device=device,
            filenames=[clips["b23"]],
            sequence_length=6,
            step=9,
            pad_mode="constant",
            fill_value=[9, 99, 199],
            image_type=types.YCbCr,
        )
        return legacy, ycc

    p = pipe()
    p.build()
    return [out for _ in range(2) for out in p.run()]


def test_samples_held_stay_intact_and_dropped_ones_lend_their_memory(clips, monkeypatch):
    # the CPU samples come from `dali._exec.host_buffers` (every size, here)
    from dali._exec import host_buffers

    monkeypatch.setattr(host_buffers, "MIN_BYTES", 0)
    reused = []
    take = host_buffers.RecycledArrays._take

    def counted_take(self, nbytes):
        found = take(self, nbytes)
        reused.append(found is not None)
        return found

    monkeypatch.setattr(host_buffers.RecycledArrays, "_take", counted_take)

    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def pipe():
        return fn.experimental.readers.video(
            filenames=[clips["a50"]], sequence_length=4, step=4, enable_frame_num="sequence"
        )

    p = pipe()
    p.build()
    video, nums = p.run()
    kept = [(np.asarray(video[i]), np.asarray(nums[i])) for i in range(2)]
    del video, nums
    for _ in range(16):
        p.run()  # dropped at once
    p.close()
    for frames, numbers in kept:  # never written over while held
        assert [frame_number(f) for f in frames] == numbers.tolist()
    assert len(reused) >= 34 and sum(reused) >= 16  # later samples took dropped ones' memory
