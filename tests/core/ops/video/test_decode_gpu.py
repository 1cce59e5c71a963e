"""The GPU video decoder (`dali._ops.video._decode_gpu.GpuDecoder`): frames by number.

Every frame of each clip is asked for, a few at a time from the last frames backwards (each
request a seek), and the frames that come back are the ones asked for (the number each frame
shows). A stream with leading frames (an open GOP: x265's default) is decoded by FFmpeg and
uploaded; the others by NVDEC, and forcing the FFmpeg path for every request gives the same
bytes as NVDEC (decoding is exact).
"""

from __future__ import annotations

import numpy as np
import pytest
from dali._testing.videos import frame_number, write_clip

pytestmark = pytest.mark.gpu

pytest.importorskip("av")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("decode_gpu")
    return {
        "h264": write_clip(str(root / "a.mp4"), frames=50, width=160, height=144),
        "h264 gop 5": write_clip(str(root / "b.mp4"), frames=23, width=160, height=144, gop=5),
        "hevc": write_clip(
            str(root / "c.mp4"), frames=31, width=160, height=144, codec="hevc", open_gop=False
        ),
        "hevc open gop": write_clip(
            str(root / "d.mp4"), frames=31, width=160, height=144, codec="hevc"
        ),
    }


def _decode_all(path: str, *, on_cpu: bool) -> list[tuple[list[int], np.ndarray]]:
    cp = pytest.importorskip("cupy")
    pytest.importorskip("PyNvVideoCodec")
    from dali._ops.video._container import index_video
    from dali._ops.video._decode_gpu import FileNotes, GpuDecoder

    index = index_video(path)
    notes = FileNotes()
    dec = GpuDecoder(index, 0, notes=notes)
    if on_cpu:  # as if no seek succeeded: every request decoded by FFmpeg
        dec._by_index = lambda wanted: None  # type: ignore[method-assign]
    n = index.num_frames
    out = []
    # the leading frames alone (none outside an open GOP), then every frame a few at a time
    requests = [[f] for f in index.leading_frames]
    requests += [list(range(s, min(s + 4, n))) for s in reversed(range(0, n, 4))]
    for frames in requests:
        nv12 = cp.asnumpy(dec.decode(frames))
        out.append((frames, nv12))
    on_nvdec = dec._dec is not None and not notes.on_cpu
    dec.close()
    return out, on_nvdec


@pytest.mark.parametrize("clip", ["h264", "h264 gop 5", "hevc", "hevc open gop"])
def test_every_frame_by_number_on_nvdec_or_on_the_cpu(clips, clip):
    h = 144
    nvdec, on_nvdec = _decode_all(clips[clip], on_cpu=False)
    # every frame came from NVDEC, except in an open GOP (FFmpeg's from the start)
    assert on_nvdec == (clip != "hevc open gop")
    on_cpu, _ = _decode_all(clips[clip], on_cpu=True)
    for (frames, a), (_, b) in zip(nvdec, on_cpu):
        assert [frame_number(y[:h, :, None]) for y in a] == frames
        np.testing.assert_array_equal(a, b)


def test_an_open_gop_file_keeps_one_ffmpeg_decoder_going_forward(clips, monkeypatch):
    cp = pytest.importorskip("cupy")
    pytest.importorskip("PyNvVideoCodec")
    from dali._ops.video._container import index_video
    from dali._ops.video._decode_cpu import CpuDecoder
    from dali._ops.video._decode_gpu import FileNotes, GpuDecoder

    made, seeks = [], []
    init, seek = CpuDecoder.__init__, CpuDecoder._seek

    def counted_init(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    def counted_seek(self, frame):
        seeks.append(frame)
        seek(self, frame)

    monkeypatch.setattr(CpuDecoder, "__init__", counted_init)
    monkeypatch.setattr(CpuDecoder, "_seek", counted_seek)
    index = index_video(clips["hevc open gop"])
    dec = GpuDecoder(index, 0, notes=FileNotes())
    n = index.num_frames
    for s in range(0, n, 4):  # the file in order, a few frames at a time
        frames = list(range(s, min(s + 4, n)))
        nv12 = cp.asnumpy(dec.decode(frames))
        assert [frame_number(y[:144, :, None]) for y in nv12] == frames
    assert len(made) == 1 and len(seeks) <= 1  # one decoder, going on where it stopped
    dec.close()
