"""Conformance cases of `fn.debayer` (and `fn.experimental.debayer`, its deprecated alias)
against real DALI 2.4's CPU backend (see README.md).

Exact comparisons: the four ``blue_position`` patterns with every CPU algorithm
(``bilinear_ocv``, the default, ``edgeaware_ocv``, ``vng_ocv``, ``gray_ocv``), uint8 and uint16
mosaics, mosaics made from photos, 2-pixel images, sequences (``FHW``, ``FHWC``), ``HWC`` with
one channel, inputs without a layout, a single ``blue_position`` value, per-sample positions,
and the error cases (odd sizes, several channels, positions outside the tile, unknown and
GPU-only algorithms, VNG on uint16, other types, empty samples). DALI 2.4's CPU backend
rejects an empty sample (OpenCV asserts ``!src.empty()``) and ``dali`` returns it empty: a known
difference, compared with the empty output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, Case, Ext, In, add, op, per_sample

_R = np.random.default_rng(21)


def _batch(arrays: list[np.ndarray], layout: str | None, label: str) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


def _mosaic(c: Any) -> list[list[np.ndarray]]:
    """Bayer (RG) mosaics of photos, cropped to even sizes."""
    out = []
    for img in IMGS.make(c)[0]:
        h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
        m = np.empty((h, w), np.uint8)
        m[0::2, 0::2] = img[0:h:2, 0:w:2, 0]
        m[0::2, 1::2] = img[0:h:2, 1:w:2, 1]
        m[1::2, 0::2] = img[1:h:2, 0:w:2, 1]
        m[1::2, 1::2] = img[1:h:2, 1:w:2, 2]
        out.append(m)
    return [out]


PHOTOS = Ext(_mosaic, "HW", "photo_mosaics")
U8 = _batch(
    [_R.integers(0, 256, (12, 18), dtype=np.uint8), _R.integers(0, 256, (6, 4), dtype=np.uint8)],
    "HW",
    "u8",
)
U16 = _batch([_R.integers(0, 65536, (10, 8), dtype=np.uint16)], "HW", "u16")
TINY = _batch(
    [np.full((2, 2), 9, np.uint8), _R.integers(0, 256, (2, 6), dtype=np.uint8)], "HW", "tiny"
)
_SEQ = _R.integers(0, 256, (3, 8, 10), dtype=np.uint8)
FHW = _batch([_SEQ, _SEQ[:1].copy()], "FHW", "fhw")
FHWC = _batch([_SEQ[..., None].copy()], "FHWC", "fhwc")
HWC = _batch([_SEQ[0][..., None].copy()], "HWC", "hwc1")
NOLAYOUT = _batch([_SEQ[0].copy()], None, "nolayout_2d")
NOLAYOUT4 = _batch([_SEQ[..., None].copy()], None, "nolayout_4d")
ODD = _batch([_SEQ[0][:7].copy()], "HW", "odd")
TWO_CH = _batch([np.stack([_SEQ[0]] * 2, -1)], "HWC", "two_channels")
SEQ_NO_F = _batch([_SEQ], None, "seq_without_layout")
F32 = _batch([_SEQ[0].astype(np.float32)], "HW", "f32")
I16 = _batch([_SEQ[0].astype(np.int16)], "HW", "i16")
EMPTY = _batch([np.zeros((0, 4), np.uint8), _SEQ[0].copy()], "HW", "empty")

_POSITIONS = [(0, 0), (0, 1), (1, 0), (1, 1)]
for _pos in _POSITIONS:
    add(op("debayer", [U8], {"blue_position": _pos}))
    add(op("debayer", [U16], {"blue_position": _pos}))
    add(op("debayer", [PHOTOS], {"blue_position": _pos}))
    for _alg in ("bilinear_ocv", "edgeaware_ocv", "vng_ocv", "gray_ocv"):
        add(op("debayer", [U8], {"blue_position": _pos, "algorithm": _alg}))
    add(op("debayer", [U16], {"blue_position": _pos, "algorithm": "edgeaware_ocv"}))
    add(op("debayer", [U16], {"blue_position": _pos, "algorithm": "gray_ocv"}))
add(op("debayer", [PHOTOS], {"blue_position": (1, 1), "algorithm": "vng_ocv"}))
add(op("debayer", [PHOTOS], {"blue_position": (1, 1), "algorithm": "EdgeAware_OCV"}))
for _src in (TINY, FHW, FHWC, HWC, NOLAYOUT, NOLAYOUT4):
    add(op("debayer", [_src], {"blue_position": (0, 1)}))
add(op("debayer", [FHW], {"blue_position": (1, 0), "algorithm": "gray_ocv"}))
add(op("debayer", [U8], {"blue_position": 1}))
add(op("debayer", [U8], {"blue_position": [0]}))
_PER = per_sample([[0, 1], [1, 1]], np.int32, "pos_per_sample")
add(op("debayer", [U8, _PER], {"blue_position": In(1)}))
add(op("debayer", [U8, _PER], {"blue_position": In(1), "algorithm": "edgeaware_ocv"}))
add(op("experimental.debayer", [U8], {"blue_position": (1, 0)}))

# -- errors --------------------------------------------------------------------------------------
for _src, _kw in [
    (ODD, {"blue_position": (0, 0)}),
    (TWO_CH, {"blue_position": (0, 0)}),
    (SEQ_NO_F, {"blue_position": (0, 0)}),
    (F32, {"blue_position": (0, 0)}),
    (I16, {"blue_position": (0, 0)}),
    (U8, {"blue_position": (0, 2)}),
    (U8, {"blue_position": (-1, 0)}),
    (U8, {"blue_position": (0, 0), "algorithm": "foo"}),
    (U8, {"blue_position": (0, 0), "algorithm": "bilinear_npp"}),
    (U8, {"blue_position": (0, 0), "algorithm": "default_npp"}),
    (U16, {"blue_position": (0, 0), "algorithm": "vng_ocv"}),
]:
    add(op("debayer", [_src], _kw, expect_error=True))


def _empty_ref(ctx: Any) -> list[np.ndarray]:
    import cv2

    return [np.zeros((0, 4, 3), np.uint8), cv2.demosaicing(_SEQ[0], cv2.COLOR_BayerBG2RGB)]


add(
    Case(
        name="debayer(empty; blue_position=(0, 0))",
        graph=lambda fn, types, x: fn.debayer(x, blue_position=(0, 0)),
        inputs=(EMPTY,),
        dali_skip="DALI 2.4's CPU hands the empty sample to OpenCV, which asserts",
        reference=_empty_ref,
    )
)
