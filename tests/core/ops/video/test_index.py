"""A video file's frame index (`dali._ops.video._container.index_video`): frames numbered in
presentation order, the key frames and the leading frames (an open GOP's frames shown before a
key frame but stored after it), checked against the file's packets as PyAV demuxes them; and
the CPU decoder reaches every frame of an open-GOP stream by number."""

from __future__ import annotations

import pytest
from dali._ops.video._container import index_video
from dali._ops.video._decode_cpu import CpuDecoder
from dali._testing.videos import frame_number, write_clip

av = pytest.importorskip("av")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("index")
    return {
        "h264": write_clip(str(root / "a.mp4"), frames=31, width=160, height=144),
        "hevc open gop": write_clip(
            str(root / "b.mp4"), frames=31, width=160, height=144, codec="hevc"
        ),
        "hevc closed gop": write_clip(
            str(root / "c.mp4"), frames=31, width=160, height=144, codec="hevc", open_gop=False
        ),
    }


def _packets(path):
    """(presentation timestamp, key) of each packet, in the order they are stored."""
    with av.open(path) as c:
        return [(int(p.pts), bool(p.is_keyframe)) for p in c.demux(c.streams.video[0]) if p.size]


@pytest.mark.parametrize("clip", ["h264", "hevc open gop", "hevc closed gop"])
def test_frames_keys_and_leading_frames_follow_the_packets(clips, clip):
    index = index_video(clips[clip])
    packets = _packets(clips[clip])
    assert index.pts.tolist() == sorted(t for t, _ in packets)
    number = {t: k for k, t in enumerate(index.pts.tolist())}
    assert list(index.key_frames) == sorted(number[t] for t, key in packets if key)
    leading, last_key = [], -1
    for t, key in packets:
        if key:
            last_key = number[t]
        elif number[t] < last_key:
            leading.append(number[t])
    assert list(index.leading_frames) == sorted(leading)
    # x265 opens its groups of pictures by default (with B-frames); x264 closes them
    assert bool(index.leading_frames) == (clip == "hevc open gop")


def test_every_frame_of_an_open_gop_by_number_on_the_cpu(clips):
    index = index_video(clips["hevc open gop"])
    dec = CpuDecoder(index)
    got: dict[int, int] = {}

    def take(number, frame):
        got[number] = frame_number(frame.to_ndarray(format="rgb24"))

    n = index.num_frames
    # the leading frames alone, then every frame a few at a time from the end (each a seek)
    requests = [[f] for f in index.leading_frames]
    requests += [list(range(s, min(s + 4, n))) for s in reversed(range(0, n, 4))]
    for frames in requests:
        got.clear()
        dec.decode(frames, take)
        assert got == {f: f for f in frames}
    dec.close()
