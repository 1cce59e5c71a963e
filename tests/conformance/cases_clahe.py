"""Conformance cases of `fn.clahe` against real DALI 2.4 (see README.md).

DALI's CPU backend is OpenCV's CLAHE (and ``cvtColor`` RGB <-> Lab for ``luma_only``); ours
makes the same calls, or computes the same bytes in numpy without OpenCV, so every case is
exact: photos (a ragged batch, and the 8 decoded ImageNet-like photos), uniform noise, grey
images, every tile grid shape (1x1, asymmetric, more tiles than pixels), sizes that are and are
not multiples of the grid, clip limits <= 0 (no clipping), fractional and huge, ``luma_only``
both ways, ``bins`` (accepted, unused), inputs without a layout, and the error cases (other
types, 2 and 4 channels, other layouts and dimensions, missing and negative arguments).

Known differences (DALI is not run): ``tiles_x=0`` makes DALI 2.4 crash (a division by zero),
where ``dali`` rejects it at build; an empty grey sample makes DALI's CPU hang and an empty RGB
one makes OpenCV's ``cvtColor`` assert, where ``dali`` returns the empty sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, NOISE, Case, Ext, add, on_photos, op


def _batch(arrays: list[np.ndarray], layout: str | None, label: str) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


_R = np.random.default_rng(23)
_LOW = _R.normal(100, 12, (48, 64, 3)).clip(0, 255).astype(np.uint8)
_LOW2 = _R.normal(60, 20, (37, 29, 3)).clip(0, 255).astype(np.uint8)
LOW = _batch([_LOW, _LOW2], "HWC", "low_contrast")
GREY = _batch([_LOW[..., :1].copy(), _LOW2[..., 1:2].copy()], "HWC", "grey")
MIXED = _batch([_LOW, _LOW2[..., :1].copy()], "HWC", "mixed_channels")
TINY = _batch(
    [
        np.array([[[200, 10, 30]]], np.uint8),
        _R.integers(0, 256, (3, 5, 3), dtype=np.uint8),
        _R.integers(0, 256, (2, 40, 3), dtype=np.uint8),
    ],
    "HWC",
    "tiny",
)
TINY_GREY = _batch(
    [np.array([[[7]]], np.uint8), _R.integers(0, 256, (5, 3, 1), dtype=np.uint8)],
    "HWC",
    "tiny_grey",
)
NOLAYOUT = _batch([_LOW2, _LOW], None, "nolayout_3d")
FLAT = _batch([np.full((16, 16, 3), 77, np.uint8), np.zeros((8, 8, 1), np.uint8)], "HWC", "flat")

F32 = _batch([_LOW.astype(np.float32)], "HWC", "f32")
I16 = _batch([_LOW.astype(np.int16)], "HWC", "i16")
TWO = _batch([_LOW[..., :2].copy()], "HWC", "c2")
FOUR = _batch([np.zeros((8, 8, 4), np.uint8)], "HWC", "c4")
HW = _batch([_LOW[..., 0].copy()], "HW", "hw")
CHW = _batch([np.ascontiguousarray(_LOW.transpose(2, 0, 1))], "CHW", "chw")
PLAIN2 = _batch([_LOW[..., 0].copy()], None, "nolayout_2d")
FHWC = _batch([np.stack([_LOW, _LOW])], "FHWC", "fhwc")

C = "clahe"
_K = {"tiles_x": 8, "tiles_y": 8, "clip_limit": 2.0}
for _src in (IMGS, NOISE, LOW, GREY, MIXED, NOLAYOUT, FLAT):
    add(op(C, [_src], _K))
    add(op(C, [_src], {**_K, "luma_only": False}))
for _kw in (
    {"tiles_x": 4, "tiles_y": 3, "clip_limit": 3.0},
    {"tiles_x": 3, "tiles_y": 7, "clip_limit": 1.5},
    {"tiles_x": 1, "tiles_y": 1, "clip_limit": 2.0},
    {"tiles_x": 16, "tiles_y": 2, "clip_limit": 0.5},
    {"tiles_x": 5, "tiles_y": 5, "clip_limit": 0.0},
    {"tiles_x": 5, "tiles_y": 5, "clip_limit": -1.0},
    {"tiles_x": 6, "tiles_y": 4, "clip_limit": 40.0},
    {"tiles_x": 4, "tiles_y": 4, "clip_limit": 2.0, "bins": 64},
    {"tiles_x": 4, "tiles_y": 4, "clip_limit": 2.0, "bins": 100},
):
    add(op(C, [IMGS], _kw))
    add(op(C, [LOW], {**_kw, "luma_only": False}))
for _src in (TINY, TINY_GREY):
    add(op(C, [_src], {"tiles_x": 8, "tiles_y": 8, "clip_limit": 2.0}))
    add(op(C, [_src], {"tiles_x": 50, "tiles_y": 3, "clip_limit": 4.0, "luma_only": False}))
add(on_photos(C, {"tiles_x": 8, "tiles_y": 8, "clip_limit": 2.0}))
add(on_photos(C, {"tiles_x": 8, "tiles_y": 8, "clip_limit": 2.0, "luma_only": False}))

for _src in (F32, I16, TWO, FOUR, HW, CHW, PLAIN2, FHWC):
    add(op(C, [_src], _K, expect_error=True))
add(op(C, [LOW], {"tiles_x": -1, "tiles_y": 8, "clip_limit": 2.0}, expect_error=True))
add(op(C, [LOW], {"tiles_x": 8, "clip_limit": 2.0}, expect_error=True))
add(op(C, [LOW], {"tiles_x": 8, "tiles_y": 8}, expect_error=True))
add(
    Case(
        name="clahe(low_contrast; tiles_x=0)",
        graph=lambda fn, types, x: fn.clahe(x, tiles_x=0, tiles_y=8, clip_limit=2.0),
        inputs=(LOW,),
        dali_skip="DALI 2.4 divides by tiles_x = 0 and dies of SIGFPE",
        expect_error=True,
        expect_error_text='Argument "tiles_x" must be positive, got 0',
    )
)


def _cv2_clahe(img: np.ndarray, tiles: tuple[int, int], clip: float) -> np.ndarray:
    import cv2

    clahe = cv2.createCLAHE(clipLimit=clip, tileGridSize=tiles)
    if img.shape[2] == 1:
        return clahe.apply(img[..., 0])[..., None]
    lab = cv2.cvtColor(img, cv2.COLOR_RGB2Lab)
    lab[..., 0] = clahe.apply(np.ascontiguousarray(lab[..., 0]))
    return cv2.cvtColor(lab, cv2.COLOR_Lab2RGB)


_EMPTY_GREY = [np.zeros((0, 6, 1), np.uint8), _LOW2[..., :1].copy()]
_EMPTY_RGB = [np.zeros((5, 0, 3), np.uint8), _LOW2]


def _empty_ref(batch: list[np.ndarray]) -> Any:
    return lambda ctx: [batch[0], _cv2_clahe(batch[1], (4, 4), 2.0)]


for _label, _arrays, _why in (
    ("empty_grey", _EMPTY_GREY, "DALI 2.4's CPU hangs on an empty grey sample"),
    ("empty_rgb", _EMPTY_RGB, "OpenCV's cvtColor asserts on DALI 2.4's empty RGB sample"),
):
    add(
        Case(
            name=f"clahe({_label})",
            graph=lambda fn, types, x: fn.clahe(x, tiles_x=4, tiles_y=4, clip_limit=2.0),
            inputs=(_batch(_arrays, "HWC", _label),),
            dali_skip=_why,
            reference=_empty_ref(_arrays),
        )
    )
