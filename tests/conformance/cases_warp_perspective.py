"""Conformance cases of `fn.experimental.warp_perspective` against real DALI 2.4 (README.md).

DALI 2.4's CPU backend calls OpenCV's ``warpPerspective``, as `dali` does, so every value is
compared exactly: the interpolations (NN, LINEAR, CUBIC), the five border modes, both pixel
origins, ``inverse_map``, ``size``, per-sample and per-frame matrices, the matrix as an input,
planar (CHW) and sequence layouts, every input type, and the error cases.
"""

from __future__ import annotations

import numpy as np
from cases import CHW, FIMGS, IMGS, NOISE, VIDEO, Ext, In, Ty, add, arrays, op, per_sample

_M = [1.1, 0.1, -2.0, 0.05, 0.9, 1.0, 0.001, 0.002, 1.0]
_M2 = [0.8, -0.2, 10.0, 0.15, 1.2, -4.0, -0.0015, 0.0008, 1.05]
_SHIFT = [1.0, 0.0, 5.0, 0.0, 1.0, 3.0, 0.0, 0.0, 1.0]
_WP = "experimental.warp_perspective"


def _typed(dtype: type, scale: float, label: str) -> Ext:
    rng = np.random.default_rng(3)
    data = [
        (rng.random((h, w, c)) * scale).astype(dtype)
        for h, w, c in ((23, 31, 3), (17, 12, 3), (30, 30, 3))  # DALI reads sample 0's channels
    ]
    return Ext(lambda c: [data], "HWC", label)


U16 = _typed(np.uint16, 65535, "u16")
I16 = _typed(np.int16, 30000, "i16")
F32 = _typed(np.float32, 1.0, "f32")
I32 = _typed(np.int32, 100, "i32")
GRAY = Ext(lambda c: [[c.tree_image(i)[..., 0].copy() for i in (0, 6)]], "HW", "gray_hw")
NOLAYOUT = Ext(lambda c: [[c.tree_image(i) for i in (0, 1)]], None, "imgs_nolayout")
FIVE = Ext(lambda c: [[np.zeros((5, 6, 5), np.uint8)] * 2], "HWC", "five_channels")
FCHW = Ext(
    lambda c: [[np.ascontiguousarray(np.stack([c.tree_image(0)] * 2).transpose(0, 3, 1, 2))]],
    "FCHW",
    "video_fchw",
)
MATS = arrays([np.reshape(_M, (3, 3)), np.reshape(_M2, (3, 3))] * 2, np.float32, label="mats")
MATS64 = arrays([np.reshape(_M, (3, 3))] * 4, np.float64, label="mats_f64")
MATS23 = arrays([np.reshape(_M, (3, 3))[:2]] * 4, np.float32, label="mats_2x3")
PER_FRAME = Ext(
    lambda c: [
        [np.stack([np.reshape(_M, (3, 3)), np.reshape(_M2, (3, 3)), np.eye(3)]).astype(np.float32)]
    ],
    "F**",
    "per_frame_mats",
)

for interp in ("INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC"):
    for border in ("constant", "replicate", "reflect", "reflect_101", "wrap"):
        add(op(_WP, [IMGS], {"matrix": _M2, "interp_type": Ty(interp), "border_mode": border}))
add(op(_WP, [IMGS], {"matrix": _M}))
add(op(_WP, [IMGS], {"matrix": _SHIFT}))
add(op(_WP, [NOISE], {"matrix": _M, "pixel_origin": "center"}))
add(op(_WP, [NOISE], {"matrix": _M, "inverse_map": False}))
add(op(_WP, [NOISE], {"matrix": _M2, "inverse_map": False, "pixel_origin": "center"}))
add(op(_WP, [IMGS], {"matrix": _M, "size": (37.5, 20.4)}))
add(op(_WP, [IMGS], {"matrix": _M, "size": (0.2, -3.0)}))
add(
    op(
        _WP,
        [IMGS, per_sample([(30, 40), (10, 90), (64, 64), (1, 1)])],
        {"matrix": _M, "size": In(1)},
    )
)
add(op(_WP, [IMGS], {"matrix": _M2, "fill_value": 77.0}))
add(op(_WP, [IMGS], {"matrix": _M2, "fill_value": [10.0, 200.0, 300.0]}))
add(op(_WP, [FIMGS], {"matrix": _M2, "fill_value": 0.5, "interp_type": Ty("INTERP_CUBIC")}))
add(op(_WP, [U16], {"matrix": _M2, "fill_value": 1000.0}))
add(op(_WP, [I16], {"matrix": _M2, "fill_value": -7.6, "interp_type": Ty("INTERP_CUBIC")}))
add(op(_WP, [F32], {"matrix": _M2, "border_mode": "reflect"}))
add(op(_WP, [GRAY], {"matrix": _M2, "fill_value": 9.0}))
add(op(_WP, [NOLAYOUT], {"matrix": _M2}))
add(op(_WP, [CHW], {"matrix": _M2, "fill_value": 50.0, "size": (30, 50)}))
add(op(_WP, [VIDEO], {"matrix": _M2, "border_mode": "replicate"}))
add(op(_WP, [FCHW], {"matrix": _M2}))
add(op(_WP, [VIDEO, PER_FRAME], {"matrix": In(1)}, name=f"{_WP}(video; matrix=per frame)"))
add(op(_WP, [IMGS, MATS]))
add(op(_WP, [IMGS, MATS], {"interp_type": Ty("INTERP_NN"), "pixel_origin": "center"}))
_PER_SAMPLE = [np.reshape(m, (3, 3)) for m in (_M, _M2, _SHIFT, _M)]
add(
    op(
        _WP,
        [IMGS, per_sample(_PER_SAMPLE)],
        {"matrix": In(1)},
        name=f"{_WP}(matrix=3x3 per sample)",
    )
)

# errors
add(
    op(
        _WP,
        [IMGS, per_sample([_M] * 4)],
        {"matrix": In(1)},
        name=f"{_WP}(matrix=9 values per sample)",
        expect_error=True,
    )
)
add(op(_WP, [IMGS], expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M[:6]}, expect_error=True))
add(op(_WP, [IMGS, MATS], {"matrix": _M}, expect_error=True))
add(op(_WP, [IMGS, MATS64], expect_error=True))
add(op(_WP, [IMGS, MATS23], expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M, "size": (10, 10, 3)}, expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M, "border_mode": "mirror"}, expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M, "pixel_origin": "middle"}, expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M, "interp_type": Ty("INTERP_LANCZOS3")}, expect_error=True))
add(op(_WP, [IMGS], {"matrix": _M, "fill_value": [1.0, 2.0]}, expect_error=True))
add(op(_WP, [CHW], {"matrix": _M, "fill_value": [1.0, 2.0, 3.0]}, expect_error=True))
add(op(_WP, [FIVE], {"matrix": _M}, expect_error=True))
add(op(_WP, [I32], {"matrix": _M}, expect_error=True))
