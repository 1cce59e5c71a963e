"""experimental.inputs.video: fed videos streamed as batches of sequences (DALI 2.4's rules)."""

from __future__ import annotations

import numpy as np
import pytest
from dali import fn, pipeline_def
from dali._testing.videos import frame_number, write_clip
from parity import cpu_gpu, device_id

pytest.importorskip("av")


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    return [
        np.fromfile(write_clip(str(root / "a.mp4"), frames=23, width=160, height=144), np.uint8),
        np.fromfile(write_clip(str(root / "b.mp4"), frames=12, width=192, height=144), np.uint8),
    ]


def _pipe(policy="partial", device="cpu", blocking=False):
    @pipeline_def(batch_size=2, num_threads=2, device_id=device_id(device), prefetch_queue_depth=1)
    def pipe():
        return fn.experimental.inputs.video(
            sequence_length=5,
            name="V",
            last_sequence_policy=policy,
            blocking=blocking,
            device="mixed" if device == "gpu" else "cpu",
        )

    p = pipe()
    p.build()
    return p


def _numbers(batch):
    return [
        [frame_number(f) if f.max() > 0 else -1 for f in np.asarray(batch.as_cpu()[i])]
        for i in range(len(batch))
    ]


@pytest.mark.parametrize(
    "policy, tail", [("partial", [[20, 21, 22]]), ("pad", [[20, 21, 22, -1, -1]])]
)
def test_streams_each_video_then_the_next(videos, policy, tail):
    # the batches real DALI 2.4 gives for the same feeds (VP9 there, same rules)
    p = _pipe(policy)
    p.feed_input("V", [videos[0]])
    p.feed_input("V", [videos[1]])
    got = [_numbers(p.run()[0]) for _ in range(5)]
    assert got == [
        [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
        [[10, 11, 12, 13, 14], [15, 16, 17, 18, 19]],
        tail,
        [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]],
        [[10, 11] if policy == "partial" else [10, 11, -1, -1, -1]],
    ]
    with pytest.raises(Exception, match=r"no video to decode.*feed_input\('V'"):
        p.run()


def test_bad_feeds_are_errors_naming_the_operator(videos):
    p = _pipe()
    with pytest.raises(Exception, match=r"inputs\.video.*one encoded video per feed_input"):
        p.feed_input("V", [videos[0], videos[1]])
    with pytest.raises(Exception, match=r"inputs\.video.*cannot open video file"):
        p.feed_input("V", [np.frombuffer(b"not a video" * 50, np.uint8)])
    with pytest.raises(Exception, match=r"1-D uint8"):
        p.feed_input("V", [np.zeros((4, 4), np.float32)])


def test_policy_is_checked():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.experimental.inputs.video(sequence_length=5, last_sequence_policy="drop")

    with pytest.raises(Exception, match="last_sequence_policy"):
        pipe().build()


@cpu_gpu()
def test_inputs_video_cpu_gpu_same_bytes(device, videos):
    p = _pipe("pad", device)
    p.feed_input("V", [videos[0]])
    return [out for _ in range(3) for out in p.run()]
