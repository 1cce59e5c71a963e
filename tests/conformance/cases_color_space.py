"""Conformance cases of `fn.color_space_conversion` against real DALI 2.4 (see README.md).

Every supported pair of RGB, BGR, GRAY and YCbCr, exact, on photos (a ragged batch), uniform
noise, all 256 grey levels, every (Y, Cb, Cr) corner, sequences (``FHWC``), volumes (``DHWC``,
``FDHWC``), inputs without a layout, and the error cases (a pair DALI does not convert, the
wrong number of channels, non-uint8 types, other layouts). Known difference: DALI 2.4's CPU
hands an empty sample to OpenCV, which asserts (``!_src.empty()``); ``dali`` returns the empty
sample with the output's channels (what DALI's later releases test for).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, NOISE, Case, Ext, Ty, add, op

_CH = {"RGB": 3, "BGR": 3, "GRAY": 1, "YCbCr": 3}


def _channels(src: Ext, n: int, label: str) -> Ext:
    return Ext(
        lambda c: [[np.ascontiguousarray(a[..., :n]) for a in b] for b in src.make(c)],
        src.layout,
        label,
    )


def _batch(shapes: list[tuple[int, ...]], layout: str | None, label: str, dtype: Any = np.uint8):
    rng = np.random.default_rng(len(label))
    data = [rng.integers(0, 256, s).astype(dtype) for s in shapes]
    return Ext(lambda c: [data], layout, label)


_GREY_LEVELS = np.arange(256, dtype=np.uint8).reshape(16, 16, 1)
GREY = Ext(lambda c: [[_GREY_LEVELS, np.repeat(_GREY_LEVELS, 3, 2)[..., :1].copy()]], "HWC", "grey")
GREY3 = Ext(lambda c: [[np.repeat(_GREY_LEVELS, 3, 2)]], "HWC", "grey3")
_CORNERS = np.stack(
    np.meshgrid(*[np.array([0, 15, 16, 17, 127, 128, 129, 235, 240, 255])] * 3, indexing="ij"), -1
).reshape(10, 100, 3)
CORNERS = Ext(lambda c: [[_CORNERS.astype(np.uint8)]], "HWC", "corners")
SEQ = _batch([(3, 6, 7, 3), (2, 5, 4, 3)], "FHWC", "seq_fhwc")
VOL = _batch([(2, 6, 7, 3), (3, 5, 4, 3)], "DHWC", "vol_dhwc")
SEQVOL = _batch([(2, 2, 6, 7, 3)], "FDHWC", "seqvol_fdhwc")
NOLAYOUT3 = _batch([(6, 7, 3), (5, 4, 3)], None, "nolayout_hwc")
NOLAYOUT4 = _batch([(2, 6, 7, 3)], None, "nolayout_fhwc")
F32 = _batch([(6, 7, 3)], "HWC", "f32", np.float32)
I16 = _batch([(6, 7, 3)], "HWC", "i16", np.int16)
CHW = _batch([(3, 6, 7)], "CHW", "chw")
HW = _batch([(6, 7)], "HW", "hw")
TWO = _batch([(6, 7, 2)], "HWC", "two_channels")
EMPTY = Ext(
    lambda c: [[np.zeros((0, 5, 3), np.uint8), np.ones((2, 2, 3), np.uint8)]], "HWC", "empty"
)


def _kw(a: str, b: str) -> dict[str, Any]:
    return {"image_type": Ty(a), "output_type": Ty(b)}


_PAIRS = [(a, b) for a in _CH for b in _CH if a != b]
for _a, _b in _PAIRS:
    for _src in (IMGS, NOISE):
        add(
            op(
                "color_space_conversion",
                [_channels(_src, _CH[_a], f"{_src.label}_c{_CH[_a]}")],
                _kw(_a, _b),
            )
        )
    if _CH[_a] == 1:
        add(op("color_space_conversion", [GREY], _kw(_a, _b)))
    else:
        add(op("color_space_conversion", [GREY3], _kw(_a, _b)))
        add(op("color_space_conversion", [CORNERS], _kw(_a, _b)))

for _src in (SEQ, VOL, SEQVOL, NOLAYOUT3, NOLAYOUT4):
    add(op("color_space_conversion", [_src], _kw("RGB", "YCbCr")))
    add(op("color_space_conversion", [_src], _kw("BGR", "GRAY")))
    add(op("color_space_conversion", [_src], _kw("YCbCr", "BGR")))

# -- errors --------------------------------------------------------------------------------------
for _a in ("RGB", "BGR", "GRAY", "YCbCr"):
    add(op("color_space_conversion", [IMGS], _kw(_a, _a), expect_error=True))
add(op("color_space_conversion", [IMGS], _kw("ANY_DATA", "RGB"), expect_error=True))
add(op("color_space_conversion", [IMGS], _kw("RGB", "ANY_DATA"), expect_error=True))
add(op("color_space_conversion", [TWO], _kw("RGB", "BGR"), expect_error=True))
add(op("color_space_conversion", [IMGS], _kw("GRAY", "RGB"), expect_error=True))
add(op("color_space_conversion", [GREY], _kw("YCbCr", "RGB"), expect_error=True))
add(op("color_space_conversion", [F32], _kw("RGB", "YCbCr"), expect_error=True))
add(op("color_space_conversion", [I16], _kw("RGB", "BGR"), expect_error=True))
add(op("color_space_conversion", [CHW], _kw("RGB", "BGR"), expect_error=True))
add(op("color_space_conversion", [HW], _kw("GRAY", "RGB"), expect_error=True))


def _empty_ref(ctx: Any) -> list[np.ndarray]:
    return [np.zeros((0, 5, 1), np.uint8), np.full((2, 2, 1), 1, np.uint8)]


add(
    Case(
        name="color_space_conversion(empty sample; RGB->GRAY)",
        graph=lambda fn, types, x: fn.color_space_conversion(
            x, image_type=types.RGB, output_type=types.GRAY
        ),
        inputs=(EMPTY,),
        dali_skip="DALI 2.4's CPU hands the empty sample to OpenCV, which asserts",
        reference=_empty_ref,
    )
)
