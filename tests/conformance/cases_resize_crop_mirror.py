"""Conformance cases of `fn.resize_crop_mirror` against real DALI 2.4 (see README.md).

The resize part is `fn.resize`'s, so the tolerance is resize's: ±1 per value (±1/255 on float
images in [0, 1]). Covered: every way of giving the size, ``max_size``, ``mode``, the crop
(``crop``, ``crop_h``/``crop_w``, positions, ``rounding``, windows larger than the resized
image, whose border repeats), ``mirror`` (constant and per sample), ``dtype``, the filters,
per-sample arguments, CHW, sequences (FHWC) and the errors. Known difference: DALI 2.4 reads
the ``mirror`` bits of inputs whose spatial axes do not come first (CHW, FHWC) from the wrong
axis (bit 1 flips the rows, nothing flips the columns); here bit 1 flips horizontally, as
documented: those cases are `dali_skip` with a numpy reference. `fn.experimental.resize` has
only a GPU backend in DALI 2.4: it is `fn.resize` itself (the unit tests check it).
"""

from __future__ import annotations

import numpy as np
from cases import CHW, FIMGS, IMGS, NOISE, VIDEO, Ext, In, Ty, add, op, per_sample

_TOL = {"atol": 1}
_FTOL = {"atol": 1 / 255}

_RNG = np.random.default_rng(11)
_SMALL = _RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8)
_SMALL_CHW = np.ascontiguousarray(_SMALL.transpose(2, 0, 1))
_SMALL_SEQ = np.stack([_SMALL, _SMALL[::-1]])
SMALL_CHW = Ext(lambda c: [[_SMALL_CHW, _SMALL_CHW]], "CHW", "small_chw")
SMALL_SEQ = Ext(lambda c: [[_SMALL_SEQ]], "FHWC", "small_seq")
VOL = Ext(
    lambda c: [[np.random.default_rng(3).integers(0, 256, (6, 10, 12, 2), dtype=np.uint8)] * 2],
    "DHWC",
    "vol",
)

for kw in (
    {"resize_x": 80, "resize_y": 60, "crop": (30, 40)},
    {"resize_shorter": 50, "crop": (20, 20), "crop_pos_x": 0.2, "crop_pos_y": 0.9, "mirror": 1},
    {"resize_longer": 64, "crop": (32, 32), "mirror": 2},
    {"size": (30, 30), "crop": (25, 31), "mirror": 3},  # wider than the resized image
    {"resize_x": 40, "crop_w": 10, "crop_h": 12, "mirror": 2, "rounding": "truncate"},
    {"resize_x": 40, "crop_w": 10, "crop_h": 12, "crop_pos_x": 0.33, "crop_pos_y": 0.71},
    {"size": (64, 64)},  # no crop: the whole resized image
    {"size": (40, 0), "mode": "not_smaller", "max_size": 70, "crop": (40, 40)},
    {"size": (48, 48), "mode": "stretch", "crop": (16, 16), "crop_pos_x": 1.0},
    {"resize_y": 33, "crop": (20, 20), "interp_type": Ty("INTERP_NN")},
    {"resize_y": 33, "crop": (20, 20), "interp_type": Ty("INTERP_CUBIC"), "antialias": False},
    {"resize_x": 50, "crop": (20, 30), "dtype": Ty("FLOAT")},
    {"size": (90, 90), "crop": (200, 200)},  # larger than the resized image
    {"size": (30, 40), "roi_start": (5, 5), "roi_end": (25, 35), "crop": (20, 20), "mirror": 1},
):
    add(op("resize_crop_mirror", [IMGS], kw, **_TOL))
add(op("resize_crop_mirror", [NOISE], {"size": (25, 41), "crop": (20, 20), "mirror": 1}, **_TOL))
add(op("resize_crop_mirror", [FIMGS], {"resize_x": 70, "crop": (30, 30), "mirror": 3}, **_FTOL))
add(op("resize_crop_mirror", [CHW], {"size": (50, 60), "crop": (20, 20)}, **_TOL))
add(op("resize_crop_mirror", [VIDEO], {"size": (30, 20), "crop": (10, 10)}, **_TOL))
add(op("resize_crop_mirror", [VOL], {"size": (4, 8, 8), "crop": (2, 4, 6), "mirror": 5}, **_TOL))
add(op("resize_crop_mirror", [VOL], {"size": (4, 8, 8), "crop_d": 2, "crop_h": 3, "crop_w": 5}))

# per-sample arguments
_M = per_sample([0, 1, 2, 3], np.int32, "mirror")
_X = per_sample([0.0, 0.25, 0.5, 1.0], np.float32, "pos_x")
_S = per_sample([40, 50, 60, 70], np.float32, "shorter")
_C = per_sample([(10, 20), (20, 10), (15, 15), (30, 5)], np.float32, "crops")
add(
    op(
        "resize_crop_mirror",
        [IMGS, _M],
        {"resize_x": 60, "crop": (20, 20), "mirror": In(1)},
        **_TOL,
    ),
    op(
        "resize_crop_mirror",
        [IMGS, _X, _S],
        {"resize_shorter": In(2), "crop": (24, 24), "crop_pos_x": In(1)},
        **_TOL,
    ),
    op("resize_crop_mirror", [IMGS, _C], {"size": (64, 64), "crop": In(1)}, **_TOL),
)

# DALI 2.4 takes the mirror bits of CHW / FHWC from the wrong axis
add(
    op(
        "resize_crop_mirror",
        [SMALL_CHW],
        {"size": (20, 30), "crop": (20, 30), "mirror": 1},
        dali_skip="DALI 2.4 flips the rows of CHW input for mirror=1 (documented: horizontal)",
        reference=lambda c: [_SMALL_CHW[:, :, ::-1]] * 2,
    ),
    op(
        "resize_crop_mirror",
        [SMALL_CHW],
        {"size": (20, 30), "crop": (20, 30), "mirror": 2},
        dali_skip="DALI 2.4 ignores mirror=2 for CHW input (documented: vertical flip)",
        reference=lambda c: [_SMALL_CHW[:, ::-1]] * 2,
    ),
    op(
        "resize_crop_mirror",
        [SMALL_SEQ],
        {"size": (20, 30), "crop": (20, 30), "mirror": 3},
        dali_skip="DALI 2.4 flips only the rows of FHWC input for mirror=3 (documented: both)",
        reference=lambda c: [_SMALL_SEQ[:, ::-1, ::-1]],
    ),
)

# errors
for kw in (
    {"crop": (20, 20)},  # no size
    {"resize_x": 30, "size": (20, 20), "crop": (10, 10)},
    {"resize_shorter": 30, "resize_longer": 30},
    {"resize_x": 30, "crop": (10, 10, 10, 10)},
    {"resize_x": 30, "crop_w": 10},
    {"resize_x": 30, "crop": (10, 10), "crop_pos_x": 1.5},
    {"resize_x": 30, "crop": (10, 10), "rounding": "floor"},
    {"resize_x": 30, "mode": "bogus"},
    {"resize_x": 30, "dtype": Ty("INT16")},
):
    add(op("resize_crop_mirror", [IMGS], kw, expect_error=True))
