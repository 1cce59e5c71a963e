"""Rows of `operators.py`: `fn.multi_paste` on a batch of 32 images 224x224x3 uint8.

A mosaic (four quadrants of four images per output, the detection augmentation), four
overlapping regions per output from per-sample tensors, two positional inputs onto a larger
canvas, and a conversion to FLOAT.
"""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 32


def _images() -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(_B)]


def _mosaic() -> list[list[np.ndarray]]:
    ids = [np.array([i, (i + 1) % _B, (i + 2) % _B, (i + 3) % _B], np.int32) for i in range(_B)]
    return [_images(), ids]


def _regions() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(2)
    ids, ia, sh, oa = [], [], [], []
    for _ in range(_B):
        shape = rng.integers(40, 160, (4, 2))
        ids.append(rng.integers(0, _B, 4).astype(np.int32))
        sh.append(shape.astype(np.int32))
        ia.append((rng.random((4, 2)) * (224 - shape)).astype(np.int32))
        oa.append((rng.random((4, 2)) * (224 - shape)).astype(np.int32))
    return [_images(), ids, ia, sh, oa]


_HALF = np.full((4, 2), 0.5, np.float32)
_QUADS = np.array([[0, 0], [0, 0.5], [0.5, 0], [0.5, 0.5]], np.float32)


def _mosaic_graph(fn, t, x, ids):  # type: ignore[no-untyped-def]
    return fn.multi_paste(x, in_ids=ids, shapes_rel=_HALF, in_anchors_rel=_QUADS,
                          out_anchors_rel=_QUADS)  # fmt: skip


def _regions_graph(fn, t, x, ids, ia, sh, oa):  # type: ignore[no-untyped-def]
    return fn.multi_paste(x, in_ids=ids, in_anchors=ia, shapes=sh, out_anchors=oa)


def _two_inputs(fn, t, x, y):  # type: ignore[no-untyped-def]
    return fn.multi_paste(x, y, output_size=[256, 320],
                          out_anchors=np.array([[0, 0], [32, 96]], np.int32))  # fmt: skip


_S = " 32x224x224x3 u8"
BENCHES = [
    Bench("multi_paste(mosaic: 4 quadrants, rel)" + _S, _mosaic_graph, _mosaic, ("HWC", "")),
    Bench("multi_paste(4 overlapping regions, per-sample)" + _S, _regions_graph, _regions,
          ("HWC", "", "", "", "")),
    Bench("multi_paste(2 inputs, output_size=[256, 320])" + _S, _two_inputs,
          lambda: [_images(), _images()[::-1]], ("HWC", "HWC")),
    Bench("multi_paste(mosaic, dtype=FLOAT)" + _S,
          lambda fn, t, x, ids: fn.multi_paste(x, in_ids=ids, shapes_rel=_HALF,
                                               in_anchors_rel=_QUADS, out_anchors_rel=_QUADS,
                                               dtype=t.FLOAT), _mosaic, ("HWC", "")),
]  # fmt: skip
