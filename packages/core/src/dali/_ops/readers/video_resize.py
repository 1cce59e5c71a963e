"""`fn.readers.video_resize`: the legacy video reader with every sequence resized.

DALI's ``readers.video_resize`` (C++ ``VideoReaderResize``) is ``readers.video`` — the legacy
NVDEC reader, with all its arguments and outputs — whose sequences go through the resize of
``fn.resize`` before they leave the operator: the schema is the reader's, plus the resize's size
arguments (``resize_x``, ``resize_y``, ``resize_z``, ``size``, ``resize_shorter``,
``resize_longer``, ``mode``, ``max_size``, ``roi_start``/``roi_end``/``roi_relative``,
``subpixel_scale``) and filter arguments (``interp_type``, ``min_filter``, ``mag_filter``,
``antialias``, ``minibatch_size``, ``temp_buffer_hint``). One sequence (``FHWC``) is one
sample of the resize: one output size and one input region for all of its frames, as
``fn.resize`` gives an ``FHWC`` input. ``dtype`` and ``image_type`` are the reader's (UINT8 or
FLOAT frames, RGB or YCbCr): the resize keeps the type it is given, and ``save_attrs`` is not
an argument.

So the operator is `LegacyVideoReader` and `Resize` in one class: the reader lists, shards,
decodes and makes the labels, frame numbers and timestamps; its video batch is then resized by
`Resize.resize_cpu` / `Resize.resize_gpu`, over a workspace holding that batch (the samples
named by their files, for errors). The outputs are exactly those of ``readers.video`` followed
by ``fn.resize`` with the same arguments, on either backend: ``video`` (``FHWC``, resized),
then ``label``, ``frame_num`` and ``timestamps`` as the reader gives them.

DALI has this operator on the GPU only; the CPU backend here (PyAV decoding, the resize's CPU
path) is this library's extension, as for ``readers.video``.

Tests: ``tests/core/ops/readers/test_video_resize.py`` compares the operator with
``readers.video`` + ``fn.resize`` bit for bit on the CPU, and the GPU backend with the GPU
composition. No conformance case against NVIDIA DALI exists: DALI's video readers need a GPU
(and NVDEC), which the conformance runs (DALI's CPU build) do not have.

Example:
    >>> import os, tempfile
    >>> from dali import fn, pipeline_def
    >>> from dali._testing.videos import write_clip
    >>> clip = write_clip(os.path.join(tempfile.mkdtemp(), "c.mp4"), frames=8)
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     return fn.readers.video_resize(
    ...         filenames=[clip], sequence_length=4, resize_x=32, resize_y=24
    ...     )
    >>> (video,) = pipe().run()
    >>> video.shape()
    [(4, 24, 32, 3), (4, 24, 32, 3)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dali._graph.schema import register
from dali._ops.image.resize import Resize, static_sizes
from dali._ops.readers.video import LegacyVideoReader

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["VideoResize"]

_READER = LegacyVideoReader.schema

#: The resize's arguments the reader lacks (``dtype`` and ``image_type`` are the reader's;
#: ``save_attrs`` is no argument of DALI's operator).
_RESIZE_ARGS = [
    a for a in Resize.schema.args.values() if a.name not in _READER.args and a.name != "save_attrs"
]


@register(
    "readers.video_resize",
    devices=("cpu", "gpu"),
    inputs=0,
    outputs=_READER.num_outputs,
    source=True,
    random=True,
    non_semantic=(*_READER.extra["non_semantic"], "minibatch_size", "temp_buffer_hint"),
    args=[*_READER.args.values(), *_RESIZE_ARGS],
)
class VideoResize(LegacyVideoReader, Resize):
    """DALI's ``readers.video_resize``: ``readers.video`` with every sequence resized.

    Takes the arguments of ``readers.video`` and the size and filter arguments of
    ``fn.resize`` (exactly one way of giving the size); each sequence is resized as one
    ``FHWC`` sample of ``fn.resize``. The outputs are those of ``readers.video`` (the video,
    then ``label``, ``frame_num`` and ``timestamps`` where enabled). DALI runs it on the GPU
    only; the CPU backend is this library's.
    """

    def check_reader_arguments(self) -> None:
        for name in self.node.arg_inputs:
            # a reader runs first: the sample identities every other operator keys its
            # values on are the ones it reads
            raise self.arg_error(
                name,
                "per-sample values (a DataNode) are not supported here: the reader runs "
                "before any other operator; give a constant",
            )
        super().check_reader_arguments()
        Resize.setup(self)

    def _frames_ws(self, ws: Workspace, video: Any) -> Workspace:
        """The workspace of the resize: the video batch, named by the samples' files."""
        assert ws.out_meta is not None, "the reader has not read the batch yet"
        return ws.with_batch([video], ws.arg_inputs, ws.out_meta)

    def run_cpu(self, ws: Workspace) -> tuple[Any, ...]:
        video, *extras = super().run_cpu(ws)
        return (self.resize_cpu(self._frames_ws(ws, video)), *extras)

    def run_gpu(self, ws: Workspace) -> tuple[Any, ...]:
        video, *extras = super().run_gpu(ws)
        return (self.resize_gpu(self._frames_ws(ws, video)), *extras)

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        """The reader's outputs; the height and width that the size arguments fix."""
        metas = LegacyVideoReader.static_meta(node)
        height, width = static_sizes(node.scalar_args, node.arg_inputs, [None, None])
        metas[0]["static_shape"] = (None, height, width, 3)
        return metas
