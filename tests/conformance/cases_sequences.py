"""Conformance cases of sequences (``FHWC``) against real DALI 2.4 (see README.md).

The inputs are small random uint8 sequences fed by ``external_source(layout="FHWC")``: a
uniform batch (2 sequences of 4 frames, 12×10) and a ragged one (3 and 5 frames, other sizes).
Compared: `fn.element_extract` (outputs, layouts, the error cases), `fn.per_frame` (layouts,
``replace``, errors), and sequences through crop, resize, flip, crop_mirror_normalize, the
colour operators, transpose, rotate and warp_affine, with per-sample and per-frame arguments
(``fn.per_frame``), including the errors for a per-frame argument of the wrong frame count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cases import Ext, In, add, op, per_sample

_GEOMETRY = {"atol": 1, "outliers": 1e-5, "outlier_atol": 4}


def _sequences(shapes: list[tuple[int, ...]], seed: int, label: str, layout: str = "FHWC") -> Ext:
    rng = np.random.default_rng(seed)
    data = [rng.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    return Ext(lambda c: [data], layout, label)


#: Two sequences of 4 frames, 12×10 RGB.
SEQ = _sequences([(4, 12, 10, 3)] * 2, 11, "seq")
#: A ragged batch: 3 frames of 9×14 and 5 frames of 13×8.
RAGGED = _sequences([(3, 9, 14, 3), (5, 13, 8, 3)], 12, "ragged")
#: The uniform batch without a layout / with a non-sequence one.
SEQ_NOLAYOUT = _sequences([(4, 12, 10, 3)] * 2, 11, "seq_nolayout", layout="")
SEQ_HWCF = _sequences([(4, 12, 10, 3)] * 2, 11, "seq_hwcf", layout="HWCF")


def per_frame_values(values: list[list[float]], label: str, dtype: Any = np.float32) -> Ext:
    """One 1-D array of per-frame values per sample (no layout: `fn.per_frame` marks it)."""
    arrays = [np.array(v, dtype=dtype) for v in values]
    return Ext(lambda c: [arrays], None, label)


def _pf(opname: str, kw: dict[str, Any], names: tuple[str, ...]) -> Callable[..., Any]:
    """A graph calling ``fn.<opname>(seq, **kw)`` with ``names`` fed per frame, in order."""

    def graph(fn: Any, types: Any, seq: Any, *values: Any) -> Any:
        marked = {n: fn.per_frame(v) for n, v in zip(names, values)}
        return getattr(fn, opname)(seq, **kw, **marked)

    return graph


def pf_case(
    opname: str,
    data: Ext,
    kw: dict[str, Any],
    per_frame: dict[str, Ext],
    **options: Any,
) -> Any:
    from cases import Case, _short

    shown = ", ".join(
        [f"{k}={_short(v)}" for k, v in kw.items()] + [f"{k}=per_frame" for k in per_frame]
    )
    return Case(
        name=f"seq.{opname}[{data.label}]({shown}) {'+'.join(e.label for e in per_frame.values())}",
        graph=_pf(opname, kw, tuple(per_frame)),
        inputs=(data, *per_frame.values()),
        **options,
    )


# -- element_extract ----------------------------------------------------------------------------
for data in (SEQ, RAGGED, SEQ_NOLAYOUT):
    add(op("element_extract", [data], {"element_map": [0]}, prefix="seq."))
    add(op("element_extract", [data], {"element_map": [2, 0, 1]}, prefix="seq."))
add(op("element_extract", [SEQ], {"element_map": 3}, prefix="seq."))
add(op("element_extract", [SEQ], {"element_map": [-1]}, prefix="seq.", expect_error=True))
add(op("element_extract", [SEQ], {"element_map": [4]}, prefix="seq.", expect_error=True))
add(op("element_extract", [RAGGED], {"element_map": [3]}, prefix="seq.", expect_error=True))
add(op("element_extract", [SEQ_HWCF], {"element_map": [0]}, prefix="seq.", expect_error=True))

# -- per_frame ----------------------------------------------------------------------------------
_PF_2D = Ext(lambda c: [[np.zeros((4, 2), np.float32)] * 2], None, "pf2d")
_PF_XY = Ext(lambda c: [[np.zeros((4, 2), np.float32)] * 2], "XY", "pf_xy")
_PF_FY = Ext(lambda c: [[np.zeros((4, 2), np.float32)] * 2], "FY", "pf_fy")
add(
    op("per_frame", [per_frame_values([[1, 2, 3, 4]] * 2, "pf1d")], prefix="seq."),
    op("per_frame", [_PF_2D], prefix="seq."),
    op("per_frame", [_PF_FY], prefix="seq."),
    op("per_frame", [_PF_XY], {"replace": True}, prefix="seq."),
    op("per_frame", [_PF_XY], prefix="seq.", expect_error=True),
    op("per_frame", [per_sample([1.0, 2.0])], prefix="seq.", expect_error=True),
)

# -- sequences through the operators (per-sample arguments) -------------------------------------
for data in (SEQ, RAGGED):
    add(
        op("crop", [data], {"crop": (5, 6), "crop_pos_x": 0.3, "crop_pos_y": 0.8}, prefix="seq."),
        op("resize", [data], {"size": (7, 5)}, prefix="seq.", atol=1),
        op("resize", [data], {"resize_x": 20}, prefix="seq.", atol=1),
        op("flip", [data], {"horizontal": 1, "vertical": 1}, prefix="seq."),
        op(
            "crop_mirror_normalize",
            [data],
            {
                "crop": (6, 6),
                "mirror": 1,
                "mean": [10.0, 20.0, 30.0],
                "std": [50.0, 60.0, 70.0],
                "output_layout": "FCHW",
            },
            prefix="seq.",
        ),
        op("crop_mirror_normalize", [data], {"output_layout": "CFHW"}, prefix="seq."),
        op("crop_mirror_normalize", [data], {"output_layout": "FCHW", "mirror": 1}, prefix="seq."),
        op(
            "brightness_contrast",
            [data],
            {"brightness": 1.3, "contrast": 0.7},
            prefix="seq.",
            atol=1,
        ),
        op("hsv", [data], {"hue": 40.0, "saturation": 0.6, "value": 1.1}, prefix="seq.", atol=1),
        op("hue", [data], {"hue": -30.0}, prefix="seq.", atol=1),
        op("saturation", [data], {"saturation": 0.4}, prefix="seq.", atol=1),
        op("color_twist", [data], {"hue": 20.0, "contrast": 1.2}, prefix="seq.", atol=1),
        op("transpose", [data], {"perm": (3, 0, 1, 2)}, prefix="seq."),
        op("rotate", [data], {"angle": 30.0, "fill_value": 0.0}, prefix="seq.", **_GEOMETRY),
        op(
            "warp_affine",
            [data],
            {"matrix": [1.0, 0.2, -1.0, 0.1, 0.9, 2.0], "fill_value": 0.0},
            prefix="seq.",
            **_GEOMETRY,
        ),
    )
add(
    op(
        "crop_mirror_normalize",
        [SEQ, per_sample([0, 1], np.int32)],
        {"mirror": In(1), "output_layout": "CFHW"},
        prefix="seq.",
    ),
    op("crop", [SEQ, per_sample([0.0, 1.0])], {"crop": (4, 4), "crop_pos_x": In(1)}, prefix="seq."),
)

# DALI 2.4 applies its default output_layout "CHW" to sequences too, and fails ("not a
# permutation of input layout"); `dali` moves C before the spatial axes (FHWC -> FCHW).
add(
    op(
        "crop_mirror_normalize",
        [SEQ],
        {"crop": (6, 6)},
        prefix="seq.",
        expect_error=True,
        known="default output_layout of a sequence: DALI 2.4 fails, dali gives FCHW",
    )
)

# -- per-frame arguments ------------------------------------------------------------------------
ANGLES = per_frame_values([[0, 90, 180, 30], [10, -20, 45, 270]], "angles")
ANGLES_RAGGED = per_frame_values([[0, 90, 33], [5, 60, -45, 180, 12]], "angles_ragged")
ONE_ANGLE = per_frame_values([[25], [-40]], "one_angle")
BAD_ANGLES = per_frame_values([[0, 90, 180], [1, 2, 3]], "angles3")
add(
    pf_case("rotate", SEQ, {"keep_size": True, "fill_value": 0.0}, {"angle": ANGLES}, **_GEOMETRY),
    pf_case("rotate", SEQ, {"fill_value": 0.0}, {"angle": ANGLES}, **_GEOMETRY),
    pf_case("rotate", RAGGED, {"fill_value": 0.0}, {"angle": ANGLES_RAGGED}, **_GEOMETRY),
    pf_case("rotate", SEQ, {"size": (9, 11)}, {"angle": ANGLES}, **_GEOMETRY),
    pf_case("rotate", SEQ, {"fill_value": 0.0}, {"angle": ONE_ANGLE}, **_GEOMETRY),
    pf_case("rotate", SEQ, {"keep_size": True}, {"angle": BAD_ANGLES}, expect_error=True),
)
_M = [[1, 0, 0, 0, 1, 0], [1, 0.2, -1, 0.1, 0.9, 2], [0.8, 0, 1, 0, 1.1, -2], [1, -0.3, 2, 0, 1, 0]]
MATRICES = Ext(
    lambda c: [
        [np.array(_M, np.float32).reshape(4, 2, 3), np.array(_M[::-1], np.float32).reshape(4, 2, 3)]
    ],
    None,
    "matrices",
)
add(pf_case("warp_affine", SEQ, {"fill_value": 0.0}, {"matrix": MATRICES}, **_GEOMETRY))
add(
    pf_case(
        "warp_affine",
        SEQ,
        {"size": (8, 13)},
        {"matrix": MATRICES},
        **_GEOMETRY,
    )
)
B = per_frame_values([[0.5, 1.0, 1.5, 2.0], [1.2, 0.8, 1.0, 0.1]], "b")
C = per_frame_values([[1.0, 0.5, 2.0, 0.0], [0.9, 1.1, 1.3, 0.7]], "c")
SHIFT = per_frame_values([[0.0, 0.1, -0.1, 0.2], [0.05, 0.0, 0.0, -0.2]], "shift")
H = per_frame_values([[0, 45, 90, -120], [10, 20, 30, 40]], "h")
S = per_frame_values([[1.0, 0.0, 0.5, 2.0], [0.3, 0.6, 0.9, 1.2]], "s")
V = per_frame_values([[1.0, 0.5, 1.5, 0.9], [1.1, 1.0, 0.7, 0.4]], "v")
BR = per_frame_values([[1.0, 0.7, 1.2], [0.6, 0.9, 1.1, 1.3, 0.5]], "b_ragged")
add(
    pf_case("brightness_contrast", SEQ, {}, {"brightness": B, "contrast": C}, atol=1),
    pf_case("brightness_contrast", SEQ, {"contrast": 1.5}, {"brightness_shift": SHIFT}, atol=1),
    pf_case("brightness", SEQ, {}, {"brightness": B}, atol=1),
    pf_case("brightness", RAGGED, {}, {"brightness": BR}, atol=1),
    pf_case("contrast", SEQ, {"contrast_center": 100.0}, {"contrast": C}, atol=1),
    pf_case("hue", SEQ, {}, {"hue": H}, atol=1),
    pf_case("saturation", SEQ, {}, {"saturation": S}, atol=1),
    pf_case("hsv", SEQ, {"saturation": 0.8}, {"hue": H, "value": V}, atol=1),
    pf_case("color_twist", SEQ, {}, {"hue": H, "saturation": S, "brightness": B}, atol=1),
    pf_case("brightness", SEQ, {}, {"brightness": BAD_ANGLES}, expect_error=True),
    # per_frame where DALI 2.4 takes no per-frame values: the (4,)-shaped value is an error
    pf_case(
        "flip",
        SEQ,
        {},
        {"horizontal": per_frame_values([[0, 1, 0, 1]] * 2, "h01", np.int32)},
        expect_error=True,
    ),
)

# -- per_frame on images (not sequences): an ordinary per-sample value, as in DALI ---------------
IMAGES = _sequences([(12, 10, 3)] * 2, 13, "images", layout="HWC")
add(
    pf_case("rotate", IMAGES, {"keep_size": True}, {"angle": ONE_ANGLE}, **_GEOMETRY),
    pf_case("rotate", IMAGES, {"keep_size": True}, {"angle": ANGLES}, expect_error=True),
    pf_case("rotate", SEQ, {}, {"angle": ANGLES}, **_GEOMETRY),  # border replicated
)

# -- other sequence layouts ---------------------------------------------------------------------
SEQ_FCHW = Ext(
    lambda c: [[np.ascontiguousarray(s.transpose(0, 3, 1, 2)) for s in SEQ.make(c)[0]]],
    "FCHW",
    "seq_fchw",
)
SEQ_CFHW = Ext(
    lambda c: [[np.ascontiguousarray(s.transpose(3, 0, 1, 2)) for s in SEQ.make(c)[0]]],
    "CFHW",
    "seq_cfhw",
)
for data in (SEQ_FCHW, SEQ_CFHW):
    add(
        op("crop", [data], {"crop": (5, 6), "crop_pos_x": 0.9, "crop_pos_y": 0.1}, prefix="seq."),
        # flip takes no CFHW (both libraries raise)
        op("flip", [data], {"horizontal": 1}, prefix="seq.", expect_error=data is SEQ_CFHW),
        op("resize", [data], {"size": (7, 5)}, prefix="seq.", atol=1),
    )


# -- sequence_rearrange -------------------------------------------------------------------------
for data in (SEQ, RAGGED, SEQ_NOLAYOUT):
    add(op("sequence_rearrange", [data], {"new_order": [2, 0, 0]}, prefix="seq."))
add(op("sequence_rearrange", [SEQ], {"new_order": [3, 2, 1, 0, 0, 1]}, prefix="seq."))
add(
    op(
        "sequence_rearrange",
        [RAGGED, per_sample([[2, 1], [4]], np.int32, "orders")],
        {"new_order": In(1)},
        prefix="seq.",
    )
)
add(op("sequence_rearrange", [RAGGED], {"new_order": [3]}, prefix="seq.", expect_error=True))
add(op("sequence_rearrange", [SEQ], {"new_order": [-1]}, prefix="seq.", expect_error=True))
add(op("sequence_rearrange", [SEQ], {"new_order": []}, prefix="seq.", expect_error=True))
add(op("sequence_rearrange", [SEQ_HWCF], {"new_order": [0]}, prefix="seq.", expect_error=True))
