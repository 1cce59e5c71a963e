"""Conformance cases of the tensor-manipulation operators against real DALI 2.4 (see README.md).

`fn.cat`, `fn.stack`, `fn.squeeze`, `fn.expand_dims`, `fn.reinterpret`, `fn.zeros`, `fn.ones`,
`fn.full` and the ``*_like`` variants, `fn.constant`: exact comparisons (they move or fill
values), on uniform and ragged batches, 2-D, 3-D and volumetric (DHWC) samples, with layouts
and without, and the error cases. Known differences: DALI 2.4's squeeze ignores axes outside
``[0, ndim)`` (its documentation says they must be valid; we raise), and its ``full``/
``full_like`` fill values that do not broadcast to the output instead of rejecting them (its
documentation says they must broadcast; we raise).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import Case, Ext, In, Ty, add, op


def _batch(
    shapes: list[tuple[int, ...]],
    seed: int,
    label: str,
    layout: str | None = None,
    dtype: Any = np.uint8,
) -> Ext:
    rng = np.random.default_rng(seed)
    data = [rng.integers(0, 200, s).astype(dtype) for s in shapes]
    return Ext(lambda c: [data], layout, label)


A = _batch([(2, 3, 4), (1, 3, 4)], 1, "a_hwc", "HWC")
B = _batch([(1, 3, 4), (2, 3, 4)], 2, "b_hwc", "HWC")
B_NOLAYOUT = _batch([(1, 3, 4), (2, 3, 4)], 2, "b", None)
B_ABC = _batch([(1, 3, 4), (2, 3, 4)], 2, "b_abc", "ABC")
B_I32 = _batch([(1, 3, 4), (2, 3, 4)], 2, "b_i32", "HWC", np.int32)
B_2D = _batch([(3, 4), (3, 4)], 3, "b_2d", "HW")
UNI = _batch([(4, 5, 3)] * 3, 4, "uni_hwc", "HWC")
UNI2 = _batch([(4, 5, 3)] * 3, 5, "uni2_hwc", "HWC")
F32 = _batch([(4, 5, 3)] * 3, 6, "f32_hwc", "HWC", np.float32)
S = _batch([(2, 3), (4, 1)], 7, "s_hw", "HW")
T = _batch([(2, 3), (4, 1)], 8, "t_hw", "HW")
T_BAD = _batch([(2, 3), (4, 2)], 8, "t_bad", "HW")
T_WH = _batch([(2, 3), (4, 1)], 8, "t_wh", "WH")
VOL = _batch([(3, 4, 5, 2), (2, 4, 5, 2)], 9, "vol_dhwc", "DHWC")
VOL2 = _batch([(1, 4, 5, 2), (3, 4, 5, 2)], 10, "vol2_dhwc", "DHWC")
SCALARS = Ext(lambda c: [[np.float32(1), np.float32(2)]], None, "scalars")
SCALARS2 = Ext(lambda c: [[np.float32(3), np.float32(4)]], None, "scalars2")
ONES = _batch([(1, 3, 1), (1, 5, 1)], 11, "ones_hwc", "HWC", np.float32)
ZERO_VOL = Ext(lambda c: [[np.zeros((0, 3, 0), np.float32)] * 2], "HWC", "zero_vol")
ZERO_VOL2 = Ext(lambda c: [[np.zeros((2, 0, 1), np.float32)] * 2], "HWC", "zero_vol2")
EMPTY = Ext(lambda c: [[np.zeros((0, 3, 4), np.uint8)] * 2], "HWC", "empty")

# -- cat ----------------------------------------------------------------------------------------
add(op("cat", [A, B]))
add(op("cat", [A, B], {"axis_name": "H"}))
add(op("cat", [A, B], {"axis": -3}))
add(op("cat", [UNI, UNI2], {"axis": 2}))
add(op("cat", [UNI, UNI2, UNI], {"axis": 1}))
add(op("cat", [UNI, UNI2], {"axis_name": "W"}))
add(op("cat", [VOL, VOL2], {"axis_name": "D"}))
add(op("cat", [A]))
add(op("cat", [A, B_NOLAYOUT]))  # the first input's layout counts
add(op("cat", [B_NOLAYOUT, A]))
add(op("cat", [A, B_ABC]))
add(op("cat", [A, EMPTY, B]))  # inputs empty in the whole batch are skipped
add(op("cat", [A, B], {"axis": 1}, expect_error=True))
add(op("cat", [A, B_I32], expect_error=True))
add(op("cat", [A, B_2D], expect_error=True))
add(op("cat", [A, B], {"axis": 3}, expect_error=True))
add(op("cat", [A, B], {"axis": 0, "axis_name": "H"}, expect_error=True))
add(op("cat", [B_NOLAYOUT, B_NOLAYOUT], {"axis_name": "H"}, expect_error=True))
add(op("cat", [A, B], {"axis_name": "X"}, expect_error=True))
add(op("cat", [SCALARS, SCALARS2], expect_error=True))

# -- stack --------------------------------------------------------------------------------------
add(op("stack", [S, T]))
add(op("stack", [S, T], {"axis": 2, "axis_name": "C"}))
add(op("stack", [S, T], {"axis": 1, "axis_name": "C"}))
add(op("stack", [S, T], {"axis": -1}))
add(op("stack", [UNI, UNI2, UNI], {"axis": 3, "axis_name": "N"}))
add(op("stack", [VOL, VOL], {"axis": 0, "axis_name": "F"}))
add(op("stack", [S, T_WH]))
add(op("stack", [SCALARS, SCALARS2]))
add(op("stack", [SCALARS, SCALARS2], {"axis_name": "X"}))
add(op("stack", [B_NOLAYOUT, B_NOLAYOUT], {"axis_name": "C"}, expect_error=True))
add(op("stack", [S, T], {"axis_name": "CC"}, expect_error=True))
add(op("stack", [S, T_BAD], expect_error=True))
add(op("stack", [S, T], {"axis": 3}, expect_error=True))

# -- squeeze ------------------------------------------------------------------------------------
add(op("squeeze", [ONES], {"axes": [0, 2]}))
add(op("squeeze", [ONES], {"axis_names": "HC"}))
add(op("squeeze", [ONES], {"axes": [0]}))
add(op("squeeze", [ZERO_VOL], {"axes": [0]}))
add(op("squeeze", [ZERO_VOL2], {"axes": [0]}))
add(op("squeeze", [_batch([(1, 3, 1, 4, 1)] * 2, 12, "vol1", "DHWCX")], {"axis_names": "DWX"}))
add(op("squeeze", [_batch([(1, 3, 1)] * 2, 13, "nolayout")], {"axes": [2]}))
add(op("squeeze", [ONES], {"axes": [1]}, expect_error=True))
add(op("squeeze", [ONES], {}, expect_error=True))
add(op("squeeze", [ONES], {"axes": [0], "axis_names": "H"}, expect_error=True))
add(op("squeeze", [ONES], {"axis_names": "X"}, expect_error=True))
add(op("squeeze", [ONES], {"axes": [0, 0]}, expect_error=True))
_IGNORES = (
    "DALI 2.4 ignores axes outside [0, ndim) (no-op); its documentation says they must be valid"
)
for _axes in ([3], [-1]):
    add(
        op(
            "squeeze",
            [ONES],
            {"axes": _axes},
            expect_error=True,
            dali_skip=_IGNORES,
            expect_error_text="Dimension passed in axes is out of the bounds",
        )
    )

# -- expand_dims --------------------------------------------------------------------------------
add(op("expand_dims", [ONES], {"axes": [0, 2]}))
add(op("expand_dims", [ONES], {"axes": [0, 4], "new_axis_names": "FX"}))
add(op("expand_dims", [ONES], {"axes": [3, 0], "new_axis_names": "AB"}))
add(op("expand_dims", [B_2D], {"axes": [0], "new_axis_names": "F"}))
add(op("expand_dims", [VOL], {"axes": [4], "new_axis_names": "N"}))
add(op("expand_dims", [SCALARS], {"axes": 0, "new_axis_names": "A"}))
add(op("expand_dims", [SCALARS], {"axes": [0, 1]}))
add(op("expand_dims", [ONES], {"axes": [0, 4], "new_axis_names": "F"}, expect_error=True))
add(op("expand_dims", [ONES], {"axes": [6]}, expect_error=True))
add(op("expand_dims", [ONES], {"axes": [-1]}, expect_error=True))
add(op("expand_dims", [ONES], {"axes": [1, 1]}, expect_error=True))
add(op("expand_dims", [B_NOLAYOUT], {"axes": [0], "new_axis_names": "F"}, expect_error=True))

# -- reinterpret --------------------------------------------------------------------------------
_R = _batch([(2, 3, 4), (1, 3, 4)], 14, "r_hwc", "HWC")
_R2 = _batch([(2, 3, 4), (2, 3, 4)], 15, "r2_hwc", "HWC")
add(op("reinterpret", [_R], {"dtype": Ty("FLOAT")}))
add(op("reinterpret", [_R], {"dtype": Ty("INT16")}))
add(op("reinterpret", [_R], {"dtype": Ty("INT16"), "shape": [-1]}))
add(op("reinterpret", [_R2], {"dtype": Ty("FLOAT"), "shape": [3, 2]}))
add(op("reinterpret", [_R], {"layout": "ABC"}))
add(op("reinterpret", [_R], {"rel_shape": [1, -1], "dtype": Ty("UINT16")}))
add(op("reinterpret", [_R], {"shape": [-1, 4]}))
add(op("reinterpret", [F32], {"dtype": Ty("UINT8")}))
add(op("reinterpret", [F32], {"dtype": Ty("INT32"), "layout": "XYZ"}))
add(op("reinterpret", [_R2], {"dtype": Ty("FLOAT"), "shape": [3, 3]}, expect_error=True))
add(op("reinterpret", [_R], {"dtype": Ty("FLOAT64")}, expect_error=True))
add(op("reinterpret", [_R], {}, expect_error=True))

# -- zeros, ones, full and *_like ---------------------------------------------------------------
_SHAPES = Ext(lambda c: [[np.array([2], np.int32), np.array([3], np.int32)]], None, "shapes")
_FILL = Ext(lambda c: [[np.array([1, 2, 3], np.float32)] * 2], None, "fill3")
_FILL_ROW = Ext(lambda c: [[np.array([[1, 2, 3]], np.float32)] * 2], None, "fill1x3")
_FILL_S = Ext(lambda c: [[np.float32(1), np.float32(2)]], None, "fill_per_sample")
_FILL_I = Ext(lambda c: [[np.array([5], np.int32)] * 2], None, "fill_i32")
_FILL_I2 = Ext(lambda c: [[np.array([5, 6], np.int32)] * 2], None, "fill_i32x2")
_FILL_LIKE = Ext(lambda c: [[np.array([5, 6, 7], np.int32)] * 2], "X", "fill_x")
_HW = _batch([(2, 3), (2, 3)], 16, "hw_f32", "HW", np.float32)
_NO_INPUT = {"batch_size": 2}
add(op("zeros", [], {"shape": [2, 3]}, **_NO_INPUT))
add(op("zeros", [], {}, **_NO_INPUT))
add(op("zeros", [], {"shape": 2, "dtype": Ty("FLOAT64")}, **_NO_INPUT))
add(op("zeros", [_SHAPES], {"shape": In(0)}))
add(op("ones", [], {"shape": [2], "dtype": Ty("FLOAT"), "layout": "X"}, **_NO_INPUT))
add(op("ones", [], {"shape": [2, 2, 2], "dtype": Ty("BOOL")}, **_NO_INPUT))
add(op("ones", [], {"shape": [2], "dtype": Ty("FLOAT16")}, **_NO_INPUT))
add(op("ones", [], {"shape": [2], "layout": "XY"}, expect_error=True, **_NO_INPUT))
add(op("zeros", [], {"shape": [-1]}, expect_error=True, **_NO_INPUT))
add(op("full", [_FILL], {"shape": [2, 3]}))
add(op("full", [_FILL], {"shape": [2, 3], "layout": "HW"}))
add(op("full", [_FILL_ROW], {"shape": [2, 2, 3]}))
add(op("full", [_FILL_S], {"shape": [2]}))
add(op("full", [_FILL_S], {"shape": [0, 2]}))
add(op("full", [_FILL_S]))
add(op("full", [_FILL], {"shape": [2, 2]}, expect_error=True))
add(
    op(
        "full",
        [_FILL],
        {},
        expect_error=True,
        dali_skip="DALI 2.4 fills a scalar with the first value of a fill value that does not "
        "broadcast to it; its documentation says the fill value must broadcast",
        expect_error_text="Shapes scalar and 3 can't be broadcast",
    )
)
add(op("zeros_like", [ONES]))
add(op("ones_like", [ONES], {"dtype": Ty("INT8")}))
add(op("zeros_like", [_HW], {"dtype": Ty("BOOL")}))
add(op("ones_like", [VOL]))
add(op("full_like", [ONES, _FILL_I]))
add(op("full_like", [_HW, _FILL_LIKE]))
add(op("full_like", [ONES, _FILL_S]))
add(
    op(
        "full_like",
        [ONES, _FILL_I2],
        expect_error=True,
        dali_skip="DALI 2.4 repeats a fill value that does not broadcast to the shape (5, 6, 5); "
        "its documentation says the fill value must broadcast",
        expect_error_text="Shapes 1 x 3 x 1 and 2 can't be broadcast",
    )
)

# -- constant -----------------------------------------------------------------------------------
add(op("constant", [], {"fdata": [1.0, 2.0, 3.0, 4.0], "shape": [2, 2]}, **_NO_INPUT))
add(op("constant", [], {"idata": 5, "shape": [2, 3], "layout": "HW"}, **_NO_INPUT))
add(op("constant", [], {"idata": [5, 6]}, **_NO_INPUT))
add(op("constant", [], {"idata": 5}, **_NO_INPUT))
add(op("constant", [], {"fdata": [1.5, 2.5], "dtype": Ty("UINT8")}, **_NO_INPUT))
add(op("constant", [], {"fdata": [1.0, 2.0], "dtype": Ty("FLOAT16")}, **_NO_INPUT))
add(op("constant", [], {"idata": [1, 0, 2], "dtype": Ty("BOOL")}, **_NO_INPUT))
add(op("constant", [], {"fdata": [1.7, -2.5], "dtype": Ty("INT32")}, **_NO_INPUT))
add(op("constant", [], {"fdata": [1.5], "idata": [1]}, expect_error=True, **_NO_INPUT))
add(op("constant", [], {"shape": [1]}, expect_error=True, **_NO_INPUT))
add(op("constant", [], {"fdata": [1.0, 2.0, 3.0], "shape": [2, 2]}, expect_error=True, **_NO_INPUT))

# the operators side by side in one graph: a stacked pair of squeezed and re-expanded images
add(
    Case(
        name="tensor.chain(stack(squeeze(expand_dims(x))), cat)",
        graph=lambda fn, types, x, y: fn.cat(
            fn.stack(
                fn.squeeze(fn.expand_dims(x, axes=[0], new_axis_names="F"), axes=[0]),
                y,
                axis=3,
                axis_name="N",
            ),
            fn.stack(y, x, axis=3, axis_name="N"),
            axis_name="N",
        ),
        inputs=(UNI, UNI2),
    )
)
