"""`fn.dump_image`: write every image of the batch to disk as a PPM file, and pass it on.

A debugging aid, as DALI's: each run writes sample ``i`` of the batch to
``<i>-<suffix>-0.ppm`` in the current directory (files of earlier runs are overwritten, as in
DALI), in the plain-text ("ASCII") Netpbm formats DALI writes: ``P3`` for 3-channel images,
``P2`` for 1-channel ones, the header ``<width> <height>`` and ``255``, then one line per row of
space-separated values (each followed by a space, as DALI writes them). The output is the input.
A pipeline that runs ahead writes the next batch's files while you read this one's: read them
with ``exec_pipelined=False``, or after the pipeline is closed.

The images must be uint8 ``HWC`` with 1 or 3 channels: DALI's checks and messages. On the GPU
the batch is copied to the host (the stream is waited for), then written the same way.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=1, num_threads=1, device_id=None, exec_pipelined=False)
    ... def pipe():
    ...     image = fn.external_source(lambda: [np.zeros((1, 2, 3), np.uint8)], layout="HWC")
    ...     return fn.dump_image(image, suffix="check")
    >>> old = os.getcwd(); os.chdir(tempfile.mkdtemp())
    >>> _ = pipe().run()
    >>> open("0-check-0.ppm").read().splitlines()
    ['P3', '2 1', '255', '0 0 0 0 0 0 ']
    >>> os.chdir(old)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dali._graph.schema import Arg, register
from dali._ops._static_shapes import like_input
from dali._ops.base import Operator

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["DumpImage", "ppm_text"]


def ppm_text(image: np.ndarray) -> str:
    """An ``(h, w, c)`` uint8 image (c of 1 or 3) as DALI writes it: plain PPM/PGM text."""
    h, w, c = image.shape
    rows = image.reshape(h, w * c)
    lines = [f"P{3 if c == 3 else 2}", f"{w} {h}", "255"]
    lines += ["".join(f"{v} " for v in row.tolist()) for row in rows]
    return "\n".join(lines) + "\n"


@register(
    "dump_image",
    devices=("cpu", "gpu"),
    inputs=1,
    input_names=("input",),
    args=[
        Arg("suffix", "str", default="", doc="Suffix to be added to output file names."),
        Arg("input_layout", "layout", default="HWC", doc="Layout of input images."),
    ],
)
class DumpImage(Operator):
    """Save images in batch to disk in PPM format.

    Useful for debugging.
    """

    def setup(self) -> None:
        if str(self.arg("input_layout")) != "HWC":
            raise self.arg_error("input_layout", "CHW not supported yet.")
        self._suffix = str(self.arg("suffix"))

    def _write(self, samples: list[np.ndarray]) -> None:
        for i, image in enumerate(samples):
            if image.ndim != 3:
                raise self.error(
                    "Input images must have three dimensions, got input with "
                    f"`{image.ndim}` dimensions."
                )
            if image.shape[2] not in (1, 3):
                raise self.error(
                    "Only 3-channel and gray images are supported, got input with "
                    f"`{image.shape[2]}` channels."
                )
            if image.dtype != np.uint8:
                raise self.error(
                    f"The images must be uint8 (DALI writes 8-bit PPM files), got {image.dtype}."
                )
            with open(f"{i}-{self._suffix}-0.ppm", "w") as f:
                f.write(ppm_text(image))

    def run_cpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        self._write([np.asarray(s) for s in tl.samples()])
        return tl

    def run_gpu(self, ws: Workspace) -> Any:
        tl = ws.inputs[0]
        host = tl.as_cpu()  # synchronize! (the images are read on the host)
        self._write([np.asarray(s) for s in host.samples()])
        return tl

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        return like_input(node)
