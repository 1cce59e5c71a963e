"""`fn.decoders.video` (also under its deprecated name `fn.experimental.decoders.video`).

Decodes whole video files held in memory (1-D uint8 samples, e.g. from ``readers.file``) into
``FHWC`` uint8 sequences: on the CPU with PyAV, with the ``mixed`` backend on the GPU with NVDEC,
frame-exactly and with the same bytes on both (`_ops.video._clips`). DALI 2.4's CPU backend
decodes only VP8, VP9 and MJPEG; this one every codec of `_container.CODECS`.

Which frames (per sample; the arguments may be per-sample inputs):

* none of the arguments: every frame;
* ``frames``: those frame numbers, in that order, repeats allowed;
* ``start_frame`` (0), ``stride`` (1) and ``end_frame`` (exclusive) or ``sequence_length``.

Frames past the end of a video are padded as ``pad_mode`` says ("constant" with
``fill_value`` — the default —, "edge", "reflect_1001", "reflect_101"), or are an error naming
the sample with ``pad_mode="none"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.base import Operator
from dali._ops.video._clips import Clip, VideoFrames, pad_frames, padding_colour
from dali._ops.video._container import VideoError, index_video
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["VideoDecoder"]

_ARGS = [
    Arg("frames", "int_vec", tensor=True, doc="Frame numbers to decode (any order)."),
    Arg("start_frame", "int", tensor=True, doc="First frame (default 0)."),
    Arg("end_frame", "int", tensor=True, doc="End of the frames (exclusive)."),
    Arg("sequence_length", "int", tensor=True, doc="Number of frames from start_frame."),
    Arg("stride", "int", tensor=True, doc="Distance between frames (default 1)."),
    Arg("pad_mode", "str", default="constant", doc="none, constant, edge, reflect_*."),
    Arg("fill_value", "int_vec", default=[0], doc="Colour of constant padding frames."),
    Arg("build_index", "bool", default=True, doc="Accepted (an index is always built)."),
    Arg("affine", "bool", default=True, doc="Accepted (thread pinning; no effect)."),
]


def _register(fn_path: str) -> Any:
    return register(
        fn_path,
        devices=("cpu", "mixed"),
        inputs=1,
        outputs=1,
        class_name="Video",
        input_names=("encoded",),
        args=_ARGS,
    )


@_register("decoders.video")
class VideoDecoder(Operator):
    """Decodes in-memory video files into frame sequences (CPU: PyAV; mixed: NVDEC)."""

    def setup(self) -> None:
        if self.has_arg("frames") and any(
            self.has_arg(n) for n in ("start_frame", "end_frame", "sequence_length", "stride")
        ):
            raise self.arg_error(
                "frames",
                "cannot be used with `start_frame`, `end_frame`, `sequence_length` or `stride`",
            )
        if self.has_arg("end_frame") and self.has_arg("sequence_length"):
            raise self.arg_error("end_frame", "cannot be used together with `sequence_length`")
        self._fill = padding_colour(self)
        self._frames = VideoFrames(threads=self.pipeline.num_threads)

    def _clips(self, ws: Workspace) -> list[Clip]:
        samples = ws.inputs[0].samples()
        n = len(samples)

        def per_sample(name: str) -> list[Any]:
            if not self.has_arg(name):
                return [None] * n
            return [np.asarray(v).reshape(-1) for v in ws.arg_samples(name)]

        frames_arg = per_sample("frames")
        start, end = per_sample("start_frame"), per_sample("end_frame")
        length, stride = per_sample("sequence_length"), per_sample("stride")
        clips = []
        for i, data in enumerate(samples):
            data = np.asarray(data)
            if data.dtype != np.uint8 or data.ndim != 1:
                raise SampleFailure(
                    i,
                    self.error(
                        "expects encoded videos as 1-D uint8 arrays (file bytes), got "
                        f"{data.dtype} of shape {tuple(data.shape)}"
                    ),
                )
            name = ws.source_info(i) or f"<sample {i}>"
            try:
                index = index_video(name, data.tobytes())
            except VideoError as e:
                raise SampleFailure(i, self.error(str(e))) from e
            count = index.num_frames
            if frames_arg[i] is not None:
                wanted = frames_arg[i].astype(np.int64)
            else:
                s = int(start[i][0]) if start[i] is not None else 0
                st = int(stride[i][0]) if stride[i] is not None else 1
                if st < 1:
                    raise SampleFailure(i, self.arg_error("stride", f"must be >= 1, got {st}"))
                if length[i] is not None:
                    wanted = s + st * np.arange(int(length[i][0]), dtype=np.int64)
                else:
                    stop = int(end[i][0]) if end[i] is not None else count
                    wanted = np.arange(s, stop, st, dtype=np.int64)
            if (wanted < 0).any():
                raise SampleFailure(i, self.arg_error("frames", "frame numbers must be >= 0"))
            if (wanted >= count).any() and self.arg("pad_mode") == "none":
                raise SampleFailure(
                    i,
                    self.error(
                        f"frame {int(wanted.max())} is past the end of '{name}' ({count} frames) "
                        "and pad_mode is 'none'"
                    ),
                )
            clips.append(
                Clip(index, pad_frames(wanted, count, self.arg("pad_mode")), data.tobytes())
            )
        return clips

    def _fail(self, i: int, clip: Clip, e: BaseException) -> SampleFailure:
        err = self.error(f"cannot decode '{clip.index.path}': {e}")
        err.__cause__ = e
        return SampleFailure(i, err)

    def run_cpu(self, ws: Workspace) -> TensorListCPU:
        videos = self._frames.read_cpu(ws, self._clips(ws), self._fill, self._fail)
        return TensorListCPU.wrap(videos, "FHWC", dtype=DALIDataType.UINT8, ndim=4)

    def run_mixed(self, ws: Workspace) -> Any:
        from dali._ops.gpu.kernels import device_id
        from dali._tensors import TensorListGPU

        rgb = self._frames.read_gpu(ws, self._clips(ws), self._fill, device_id(), self._fail)
        return TensorListGPU.wrap(rgb, "FHWC", dtype=DALIDataType.UINT8, ndim=4)

    def close(self) -> None:
        frames = getattr(self, "_frames", None)
        if frames is not None:
            frames.close()

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return [
            {"dtype": DALIDataType.UINT8, "static_shape": (None, None, None, 3), "layout": "FHWC"}
        ]
