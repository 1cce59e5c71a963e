"""Conformance cases of `fn.jpeg_compression_distortion` against real DALI 2.4 (see README.md).

DALI's CPU backend encodes and decodes with OpenCV (libjpeg-turbo), as `dali` does: measured on
these inputs (photos, noise, sequences, qualities 1..100 and clamped values) the outputs are
equal bit for bit, so the comparison is exact. Covered: constant and per-sample ``quality``,
values outside 1..100 (clamped), FHWC sequences, inputs without a layout, and the errors (4
channels, a float input, a CHW layout).
"""

from __future__ import annotations

import numpy as np
from cases import CHW, FIMGS, IMGS, NOISE, VIDEO, Ext, In, add, op, per_sample

_RGBA = Ext(lambda c: [[np.zeros((8, 8, 4), np.uint8)] * 2], "HWC", "rgba")
_NOLAYOUT = Ext(lambda c: [[c.tree_image(0), c.tree_image(1)]], None, "nolayout")

for q in (1, 10, 50, 95, 100, 0, 150, -5):
    add(op("jpeg_compression_distortion", [IMGS], {"quality": q}))
add(op("jpeg_compression_distortion", [IMGS]))
add(op("jpeg_compression_distortion", [NOISE], {"quality": 30}))
add(op("jpeg_compression_distortion", [VIDEO], {"quality": 20}))
add(op("jpeg_compression_distortion", [_NOLAYOUT], {"quality": 70}))
add(
    op(
        "jpeg_compression_distortion",
        [IMGS, per_sample([5, 40, 80, 100], np.int32, "qualities")],
        {"quality": In(1)},
    )
)
add(
    op("jpeg_compression_distortion", [_RGBA], expect_error=True),
    op("jpeg_compression_distortion", [FIMGS], expect_error=True),
    op("jpeg_compression_distortion", [CHW], expect_error=True),
)
