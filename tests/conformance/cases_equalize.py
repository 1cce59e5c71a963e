"""Conformance cases of `fn.equalize` (and `fn.experimental.equalize`, its deprecated alias)
against real DALI 2.4 (see README.md).

Exact comparisons: photos (a ragged batch), uniform noise, low-contrast images, flat images,
float32 ties, every layout (``HW``, ``HWC``, ``CHW``, ``FHW``, ``FHWC``, ``FCHW``, and inputs
without a layout), empty samples, and the error cases (non-uint8 types, more than 128
channels, other layouts). Known difference: DALI 2.4's CPU hands an empty multi-channel sample
to OpenCV's ``merge``, which asserts; ``dali`` returns the empty sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, NOISE, VIDEO, Case, Ext, add, op


def _batch(arrays: list[np.ndarray], layout: str | None, label: str) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


_R = np.random.default_rng(11)
_LOW = _R.normal(100, 12, (31, 45, 3)).clip(0, 255).astype(np.uint8)
_LOW2 = _R.normal(60, 5, (20, 17, 3)).clip(0, 255).astype(np.uint8)
LOW = _batch([_LOW, _LOW2], "HWC", "low_contrast")
GREY = _batch([_LOW[..., 0].copy(), _LOW2[..., 1].copy()], "HW", "grey_hw")
CHW = _batch([np.ascontiguousarray(_LOW.transpose(2, 0, 1))], "CHW", "chw")
FHW = _batch([np.stack([_LOW[..., 0], _LOW[..., 1]]), _LOW2[None, ..., 2].copy()], "FHW", "fhw")
FCHW = _batch([np.ascontiguousarray(np.stack([_LOW.transpose(2, 0, 1)] * 2))], "FCHW", "fchw")
NOLAYOUT = _batch([_LOW2[..., 0].copy(), _LOW[..., 1].copy()], None, "nolayout_2d")
NOLAYOUT3 = _batch([_LOW, _LOW2], None, "nolayout_3d")
NOLAYOUT4 = _batch([np.stack([_LOW, _LOW[::-1]])], None, "nolayout_4d")
FLAT = _batch([np.full((5, 6, 3), 9, np.uint8), np.zeros((4, 4, 1), np.uint8)], "HWC", "flat")
TIES = _batch(
    [np.arange(7, dtype=np.uint8)[None], np.arange(11, dtype=np.uint8)[None]], "HW", "ties"
)
TWO = _batch([np.array([[0, 0, 255], [255, 255, 3]], np.uint8)], "HW", "two_values")
MANY = _batch([_R.integers(0, 256, (6, 7, 128), dtype=np.uint8)], "HWC", "c128")
EMPTY = _batch([np.zeros((0, 4, 3), np.uint8), _LOW2], "HWC", "empty")
F32 = _batch([_LOW.astype(np.float32)], "HWC", "f32")
I16 = _batch([_LOW.astype(np.int16)], "HWC", "i16")
TOO_MANY = _batch([np.zeros((4, 5, 129), np.uint8)], "HWC", "c129")
DHW = _batch([_LOW], "DHW", "dhw")
FIVE = _batch([_LOW[None, None]], None, "five_dims")

_OK: list[Any] = [IMGS, NOISE, VIDEO, LOW, GREY, CHW, FHW, FCHW, NOLAYOUT, NOLAYOUT3, NOLAYOUT4]
_OK += [FLAT, TIES, TWO, MANY]
for _src in _OK:
    add(op("equalize", [_src]))
for _src in (IMGS, GREY, FCHW):
    add(op("experimental.equalize", [_src]))
for _src in (F32, I16, TOO_MANY, DHW, FIVE):
    add(op("equalize", [_src], expect_error=True))


def _empty_ref(ctx: Any) -> list[np.ndarray]:
    import cv2

    chans = [cv2.equalizeHist(np.ascontiguousarray(_LOW2[..., c])) for c in range(3)]
    return [np.zeros((0, 4, 3), np.uint8), np.stack(chans, -1)]


add(
    Case(
        name="equalize(empty)",
        graph=lambda fn, types, x: fn.equalize(x),
        inputs=(EMPTY,),
        dali_skip="DALI 2.4's CPU hands the empty 3-channel sample to OpenCV's merge, which asserts",
        reference=_empty_ref,
    )
)
