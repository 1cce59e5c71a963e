"""The GTC slides' two video pipelines, written as the slides write them (the ``ops`` API).

* `VideoCropPipeline`: ``ops.VideoReader(device=..., filenames=data, sequence_length=len)``
  then ``ops.Crop``: sequences of frames (``FHWC``), every frame cropped the same way;
* `OpticalFlowPipeline`: ``ops.VideoReader(file_root=..., sequence_length, step)`` then
  ``ops.OpticalFlow`` and ``ops.ElementExtract(element_map=[0])``: the flow between consecutive
  frames and the first frame of each sequence.

With ``nvidia.dali`` in place of ``dali`` they are the slides' code; the ``device`` argument is
the only addition (the slides run them on the GPU; here they also run on the CPU).
"""

from __future__ import annotations

from typing import Any

from dali import ops
from dali.pipeline import Pipeline


class VideoCropPipeline(Pipeline):
    """Sequences of ``length`` frames from ``data`` (video files), cropped to ``crop``."""

    def __init__(
        self,
        batch_size: int,
        num_threads: int,
        device_id: int | None,
        data: list[str],
        length: int,
        crop: tuple[int, int],
        device: str = "gpu",
    ) -> None:
        super().__init__(batch_size, num_threads, device_id, seed=16)
        self.input = ops.VideoReader(device=device, filenames=data, sequence_length=length)
        self.Crop = ops.Crop(device=device, crop=crop, crop_pos_x=0.0, crop_pos_y=0.0)

    def define_graph(self) -> Any:
        frames = self.input(name="Reader")
        output_frames = self.Crop(frames)
        return output_frames


class OpticalFlowPipeline(Pipeline):
    """The optical flow of sequences read from a class tree, and each sequence's first frame."""

    def __init__(
        self,
        batch_size: int,
        num_threads: int,
        device_id: int | None,
        video_files: str,
        length: int,
        step: int,
        device: str = "gpu",
    ) -> None:
        super().__init__(batch_size, num_threads, device_id, seed=16)
        self.input = ops.VideoReader(
            device=device, file_root=video_files, sequence_length=length, step=step
        )
        self.opticalFlow = ops.OpticalFlow(device=device)
        self.takeFirst = ops.ElementExtract(device=device, element_map=[0])

    def define_graph(self) -> Any:
        frames, labels = self.input(name="Reader")
        flow = self.opticalFlow(frames)
        first = self.takeFirst(frames)
        return first, flow, labels
