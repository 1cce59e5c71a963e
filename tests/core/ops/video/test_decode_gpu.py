"""The GPU video decoder (`dali._ops.video._decode_gpu.GpuDecoder`): frames by number.

Every frame of each clip is asked for, a few at a time from the last frames backwards (each
request a seek), and the frames that come back are the ones asked for (the number each frame
shows). Where PyNvVideoCodec cannot seek (the last frames of an HEVC clip with B-frames), the
decoder decodes those frames with FFmpeg and uploads them; forcing that path for every request
gives the same bytes as NVDEC (decoding is exact).
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
        "hevc": write_clip(str(root / "c.mp4"), frames=31, width=160, height=144, codec="hevc"),
    }


def _decode_all(path: str, *, on_cpu: bool) -> list[tuple[list[int], np.ndarray]]:
    cp = pytest.importorskip("cupy")
    pytest.importorskip("PyNvVideoCodec")
    from dali._ops.video._container import index_video
    from dali._ops.video._decode_gpu import GpuDecoder

    index = index_video(path)
    dec = GpuDecoder(index, 0, offsets={})
    if on_cpu:  # as if no seek succeeded: every request decoded by FFmpeg
        dec._by_index = lambda wanted: None  # type: ignore[method-assign]
    n = index.num_frames
    out = []
    for start in reversed(range(0, n, 4)):
        frames = list(range(start, min(start + 4, n)))
        nv12 = cp.asnumpy(dec.decode(frames))
        out.append((frames, nv12))
    dec.close()
    return out


@pytest.mark.parametrize("clip", ["h264", "h264 gop 5", "hevc"])
def test_every_frame_by_number_on_nvdec_or_on_the_cpu(clips, clip):
    h = 144
    nvdec = _decode_all(clips[clip], on_cpu=False)
    on_cpu = _decode_all(clips[clip], on_cpu=True)
    for (frames, a), (_, b) in zip(nvdec, on_cpu):
        assert [frame_number(y[:h, :, None]) for y in a] == frames
        np.testing.assert_array_equal(a, b)
