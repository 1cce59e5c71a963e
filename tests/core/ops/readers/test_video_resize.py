"""readers.video_resize: readers.video with every sequence resized by fn.resize's arguments.

The operator is defined as the composition ``readers.video`` + ``fn.resize`` with the same
arguments, so every test compares it with that composition, run in the same pipeline: bit for bit
on the CPU (several resize modes, ROIs, filters, FLOAT frames, every output), and on the GPU
(marked ``gpu``) with the GPU composition; CPU against GPU within the resize's usual tolerance.
No case against NVIDIA DALI: its video readers need a GPU, which the conformance runs lack.
Clips come from `dali._testing.videos` (two sizes: batches of sequences of different shapes).
"""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, ops, pipeline_def, types
from dali._testing.videos import frame_number, write_clip
from parity import cpu_gpu, device_id

pytest.importorskip("av")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("videos")
    return {
        "a": write_clip(str(root / "a.mp4"), frames=40, width=160, height=144),
        "b": write_clip(str(root / "b.mp4"), frames=23, width=96, height=80),
        "root": root,
    }


def _reader_args(clips, **extra):
    args = {"filenames": [clips["a"], clips["b"]], "labels": [3, 5], "sequence_length": 4}
    args.update(extra)
    return args


def _both(reader_args, resize_args, device="cpu", batch_size=3, iterations=4):
    """Per iteration: (video_resize outputs, readers.video + fn.resize outputs), as numpy."""

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id(device), seed=9)
    def pipe():
        fused = fn.readers.video_resize(device=device, **reader_args, **resize_args)
        read = fn.readers.video(device=device, **reader_args)
        fused = fused if isinstance(fused, list) else [fused]
        read = read if isinstance(read, list) else [read]
        return (*fused, fn.resize(read[0], **resize_args), *read[1:])

    p = pipe()
    p.build()
    out = []
    for _ in range(iterations):
        o = p.run()
        n = len(o) // 2
        if device == "gpu":
            assert all(type(t).__name__ == "TensorListGPU" for t in o)
        host = [t.as_cpu() if device == "gpu" else t for t in o]
        out.append((host[:n], host[n:]))
    return out


def _assert_equal(fused, composed):
    assert len(fused) == len(composed)
    for k, (f, c) in enumerate(zip(fused, composed)):
        assert f.dtype == c.dtype and f.layout() == c.layout(), k
        assert f.shape() == c.shape(), (k, f.shape(), c.shape())
        for i in range(len(c)):
            assert np.array_equal(np.asarray(f[i]), np.asarray(c[i])), (k, i)


RESIZES = {
    "x_and_y": {"resize_x": 64, "resize_y": 48},
    "x_only": {"resize_x": 50},
    "shorter": {"resize_shorter": 40},
    "longer_cubic": {"resize_longer": 70, "interp_type": types.INTERP_CUBIC},
    "size_not_larger": {"size": (40, 60), "mode": "not_larger"},
    "size_stretch_max": {"size": (50, 200), "mode": "stretch", "max_size": [64, 120]},
    "shorter_max_size": {"resize_shorter": 120, "max_size": 150},
    "roi": {"size": (30, 40), "roi_start": (10, 20), "roi_end": (70, 90)},
    "roi_relative_flip": {
        "resize_x": 48,
        "resize_y": 36,
        "roi_start": (0.9, 0.1),
        "roi_end": (0.1, 0.8),
        "roi_relative": True,
    },
    "negative_flip": {"resize_x": -40, "resize_y": 30},
    "filters": {
        "resize_x": 90,
        "resize_y": 100,
        "min_filter": types.INTERP_LANCZOS3,
        "mag_filter": types.INTERP_NN,
        "antialias": False,
    },
    "no_subpixel": {"resize_x": 33.3, "resize_y": 29.7, "subpixel_scale": False},
}


@pytest.mark.parametrize("case", sorted(RESIZES))
def test_equals_reader_then_resize_on_cpu(clips, case):
    got = _both(_reader_args(clips), RESIZES[case])
    for fused, composed in got:
        _assert_equal(fused, composed)
    # the batches really hold sequences of both files (two input sizes)
    labels = {int(np.asarray(t)[0]) for fused, _ in got for t in fused[1]}
    assert labels == {3, 5}


def test_float_frames_frame_numbers_and_timestamps(clips):
    reader = _reader_args(
        clips,
        dtype=types.FLOAT,
        normalized=True,
        stride=3,
        pad_sequences=True,
        enable_frame_num=True,
        enable_timestamps=True,
    )
    got = _both(reader, {"resize_shorter": 36, "interp_type": types.INTERP_CUBIC}, iterations=5)
    for fused, composed in got:
        assert len(fused) == 4  # video, label, frame_num, timestamps
        _assert_equal(fused, composed)
        video = fused[0]
        assert video.dtype == types.FLOAT and video.layout() == "FHWC"
        assert all(s[0] == 4 and min(s[1:3]) == 36 and s[3] == 3 for s in video.shape())
    stamps = [np.asarray(t) for fused, _ in got for t in fused[3]]
    assert any((s == -1).any() for s in stamps)  # padded sequences came through


def test_shuffled_ycbcr_and_file_root(clips, tmp_path):
    for name, clip in (("x", clips["b"]), ("y", clips["a"])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "v.mp4").symlink_to(clip)
    reader = {
        "file_root": str(tmp_path),
        "sequence_length": 5,
        "step": 3,
        "random_shuffle": True,
        "initial_fill": 8,
        "seed": 11,
        "image_type": types.YCbCr,
    }
    for fused, composed in _both(reader, {"resize_x": 40, "resize_y": 30}):
        assert len(fused) == 2  # video, label (file_root gives labels; no frame numbers)
        _assert_equal(fused, composed)


def test_frames_stay_the_frames_they_name(clips):
    # 2x upscaling keeps the frame-number blocks readable: the sequence is the one it names
    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def pipe():
        return tuple(
            fn.readers.video_resize(
                filenames=[clips["a"]],
                labels=[0],
                sequence_length=3,
                stride=2,
                step=13,
                enable_frame_num=True,
                resize_x=320,
                resize_y=288,
                interp_type=types.INTERP_NN,
            )
        )

    p = pipe()
    p.build()
    video, _, first = p.run()
    for i in range(2):
        frames = np.asarray(video[i])[:, ::2, ::2]
        assert frames.shape == (3, 144, 160, 3)
        start = int(np.asarray(first[i])[0])
        assert start == 13 * i
        assert [frame_number(f) for f in frames] == [start, start + 2, start + 4]


def test_static_shape_and_reader_meta(clips):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        fixed, label = fn.readers.video_resize(
            **_reader_args(clips), resize_x=64, resize_y=48, name="R"
        )
        free, _ = fn.readers.video_resize(**_reader_args(clips), resize_shorter=40)
        plain, _ = fn.readers.video(**_reader_args(clips), name="V")
        return fixed, label, free, plain

    p = pipe()
    p.build()
    shapes = p.output_shape()
    assert shapes[0] == (None, 48, 64, 3) and shapes[1] == (1,)
    assert shapes[2] == (None, None, None, 3)
    assert p.reader_meta("R") == p.reader_meta("V")
    assert [s[1:3] for s in p.run()[0].shape()] == [(48, 64)] * 2


def test_checkpoint_resumes_at_the_same_sequence(clips):
    @pipeline_def(batch_size=2, num_threads=2, device_id=None, enable_checkpointing=True)
    def pipe():
        video, _, first = fn.readers.video_resize(
            **_reader_args(clips), random_shuffle=True, enable_frame_num=True, resize_x=40
        )
        return video, first

    p = pipe()
    p.build()
    p.run()
    state = p.checkpoint()
    expect = [np.asarray(p.run()[1].as_tensor()).ravel().tolist() for _ in range(3)]
    q = pipe(checkpoint=state)
    q.build()
    assert [np.asarray(q.run()[1].as_tensor()).ravel().tolist() for _ in range(3)] == expect


def test_ops_api_and_deprecated_name(clips):
    pipe = pipeline_def(batch_size=1, num_threads=1, device_id=None)
    reader = ops.readers.VideoResize(filenames=[clips["b"]], sequence_length=2, size=(20, 24))

    @pipe
    def with_ops():
        return reader()

    p = with_ops()
    p.build()
    assert p.run()[0].shape() == [(2, 20, 24, 3)]

    @pipe
    def old_name():
        return fn.video_reader_resize(filenames=[clips["b"]], sequence_length=2, resize_x=24)

    with pytest.warns(DeprecationWarning, match="readers.video_resize"):
        p = old_name()
    p.build()
    assert p.run()[0].shape() == [(2, 20, 24, 3)]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({}, "Exactly one method of specifying size must be used"),
        ({"resize_x": 10, "size": (10, 10)}, "Exactly one method of specifying size"),
        ({"resize_shorter": 10, "mode": "stretch"}, "mutually exclusive"),
        ({"size": (10, 10), "roi_start": (0, 0)}, "must be specified together"),
        ({"size": (10, 10), "mode": "bogus"}, "(?i)invalid resize mode"),
        ({"resize_x": 10, "interp_type": 99}, "`interp_type`.*DALIInterpType, got 99"),
        ({"resize_x": 10, "dtype": types.INT16}, "`dtype`: must be UINT8 or FLOAT"),
        ({"resize_x": 10, "enable_frame_num": True, "labels": None}, "is valid only with"),
        ({"resize_x": 10, "sequence_length": 90}, "no valid sequences"),
    ],
)
def test_argument_errors(clips, kwargs, match):
    args = _reader_args(clips, **kwargs)
    if args.get("labels") is None:
        del args["labels"]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.video_resize(**args)

    with pytest.raises(Exception, match=match) as info:
        pipe().build()
    assert "readers.video_resize" in str(info.value)


def test_per_sample_arguments_are_refused(clips):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        width = fn.random.uniform(range=(20, 40))
        return fn.readers.video_resize(filenames=[clips["b"]], sequence_length=2, resize_x=width)

    with pytest.raises(Exception, match=r"argument `resize_x`: per-sample values"):
        pipe().build()


def test_no_save_attrs_argument(clips):
    with pytest.raises(Exception, match="save_attrs"):

        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe():
            return fn.readers.video_resize(
                filenames=[clips["b"]], sequence_length=2, resize_x=10, save_attrs=True
            )

        pipe().build()


# -- GPU ----------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("case", ["x_and_y", "shorter", "roi_relative_flip", "filters"])
def test_gpu_equals_reader_then_resize_on_gpu(clips, case):
    pytest.importorskip("cupy")
    for fused, composed in _both(_reader_args(clips), RESIZES[case], device="gpu"):
        _assert_equal(fused, composed)


@pytest.mark.gpu
def test_gpu_float_frames_equal_the_gpu_composition(clips):
    pytest.importorskip("cupy")
    reader = _reader_args(
        clips, dtype=types.FLOAT, normalized=True, pad_sequences=True, enable_frame_num=True
    )
    for fused, composed in _both(reader, {"resize_longer": 50}, device="gpu"):
        _assert_equal(fused, composed)


def _fused(device, reader_args, resize_args):
    @pipeline_def(batch_size=3, num_threads=2, device_id=device_id(device), seed=5)
    def pipe():
        return tuple(fn.readers.video_resize(device=device, **reader_args, **resize_args))

    p = pipe()
    p.build()
    return [out for _ in range(3) for out in p.run()]


@cpu_gpu(atol=1)
@pytest.mark.parametrize("case", ["x_and_y", "longer_cubic", "roi"])
def test_cpu_gpu_parity(device, clips, case):
    # the reader gives the same bytes on both; the resize within its uint8 tolerance (1)
    return _fused(device, _reader_args(clips, enable_frame_num=True), RESIZES[case])


@cpu_gpu(atol=2e-3)
def test_cpu_gpu_parity_float(device, clips):
    reader = _reader_args(clips, dtype=types.FLOAT, normalized=True, stride=2)
    return _fused(device, reader, {"resize_shorter": 30})
