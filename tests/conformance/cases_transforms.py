"""Conformance cases of the affine transform generators against real DALI 2.4 (see README.md).

`fn.transforms.translation`, ``scale``, ``rotation``, ``shear``, ``crop`` and ``combine`` are
deterministic float32 matrix computations: their outputs (layout ``"**"``/``"F**"``, FLOAT,
shapes ``(n, n + 1)``) are compared value by value with the default float tolerance of the
"exact" operators: 4 float32 ulps of the sample's magnitude (``4 · 2⁻²³ · max(1, max|x|)``).
Only one computation needs it: DALI's 3-D rotation normalises its axis with the SSE
reciprocal-square-root estimate and one Newton step (processor-dependent; within ~2 ulps of the
exact ``1 / sqrt`` this library uses). Everything else is bit-exact (the cosine, sine and
tangent are the C library's float32 functions, as in DALI).

Covered: every argument in 1-D to 6-D where DALI allows it, constants and per-sample argument
inputs (scalars broadcast, ``(2, 1)`` and ``(3, 2)`` shear matrices), chaining through the
positional input and ``reverse_order``, ``combine`` of 2 to 4 inputs, sequences (an ``"F**"``
input, ``fn.per_frame`` arguments, ragged frame counts, one frame broadcast), the transforms fed
to ``fn.warp_affine`` (``matrix=``, the ``mtx`` input, ``inverse_map=False``, per frame) and to
``fn.coord_transform`` (``MT=``), and both libraries raising on DALI's error cases.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import SMALL, Case, Ext, In, _short, add, op, per_sample

F = np.float32
T = "transforms."


def _ext(samples: list[Any], label: str, layout: str | None = None) -> Ext:
    data = [np.asarray(s, F) for s in samples]
    return Ext(lambda c: [data], layout, label)


def _op(opname: str, inputs: list[Any], kwargs: dict[str, Any] | None = None, **opts: Any) -> Case:
    """`op` of ``fn.transforms.<opname>``, named with the labels of every input (argument
    inputs too: the cases differ only there)."""
    kw = dict(kwargs or {})
    labels = ",".join(getattr(s, "label", "?") for s in inputs)
    shown = ", ".join(f"{k}={_short(v)}" for k, v in kw.items())
    prefix = opts.pop("prefix", "")
    name = f"{prefix}transforms.{opname}[{labels}]({shown})"
    return op(T + opname, inputs, kw, name=name, **opts)


def _mats(n: int, count: int, seed: int, frames: tuple[int, ...] | None = None) -> list[Any]:
    """Random ``(n, n + 1)`` transforms (per sample, or ``(frames, n, n + 1)`` sequences)."""
    rng = np.random.default_rng(seed)
    if frames is None:
        return [rng.uniform(-2, 2, (n, n + 1)).astype(F) for _ in range(count)]
    return [rng.uniform(-2, 2, (f, n, n + 1)).astype(F) for f in frames]


ANGLES = per_sample([0.0, 30.0, 45.0, 90.0, -60.0, 180.0, 270.0, 12.345], label="angles8")
ANGLES4 = per_sample([10.0, -135.0, 77.7, 360.0], label="angles4")
M2 = _ext(_mats(2, 4, 1), "m2")
M3 = _ext(_mats(3, 4, 2), "m3")
M2B = _ext(_mats(2, 4, 3), "m2b")
M2C = _ext(_mats(2, 4, 4), "m2c")
M1 = _ext(_mats(1, 4, 5), "m1")
M6 = _ext(_mats(6, 4, 6), "m6")
SEQ2 = _ext(_mats(2, 2, 7, frames=(3, 3)), "seq2", "F**")
SEQ2R = _ext(_mats(2, 2, 8, frames=(3, 5)), "seq2_ragged", "F**")
SEQ2R_B = _ext(_mats(2, 2, 9, frames=(3, 5)), "seq2_ragged_b", "F**")
SEQ2_OTHER = _ext(_mats(2, 2, 10, frames=(3, 4)), "seq2_other", "F**")
M2_PAIR = _ext(_mats(2, 2, 11), "m2_pair")

# -- translation -----------------------------------------------------------------------------
add(
    _op("translation", [], {"offset": [1.5, -2.25]}),
    _op("translation", [], {"offset": [1.0, 2.0, 3.0]}),
    _op("translation", [], {"offset": 3.0}),
    _op("translation", [], {"offset": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
    _op("translation", [M2], {"offset": [0.5, 7.0]}),
    _op("translation", [M2], {"offset": [0.5, 7.0], "reverse_order": True}),
    _op("translation", [M6], {"offset": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
    _op("translation", [M1], {"offset": 4.5}),
    _op(
        "translation",
        [_ext([[1, 2], [3, 4], [-5, 6.5], [0, 0]], "offsets")],
        {"offset": In(0)},
    ),
    _op("translation", [per_sample([1.0, -2.0, 3.5, 4.0])], {"offset": In(0)}),
    _op("translation", [], {"offset": [1.0] * 7}, expect_error=True),
    _op("translation", [M3], {"offset": [1.0, 2.0]}, expect_error=True),
    _op("translation", [M3], {"offset": 3.0}, expect_error=True),
    _op(
        "translation",
        [_ext([[1, 2], [3, 4, 5], [1, 2], [1, 2]], "ragged_offsets")],
        {"offset": In(0)},
        expect_error=True,
    ),
    _op(
        "translation",
        [_ext([[[1, 2]]] * 4, "offsets_2d")],
        {"offset": In(0)},
        expect_error=True,
    ),
)

# -- scale ---------------------------------------------------------------------------------------
add(
    _op("scale", [], {"scale": [2.0, 3.0]}),
    _op("scale", [], {"scale": [2.0, 3.0], "center": [1.0, 1.5]}),
    _op("scale", [], {"scale": [2.0, 0.5, -1.0], "center": [10.0, 20.0, 30.0]}),
    _op("scale", [], {"scale": 2.0}),
    _op("scale", [], {"scale": 2.0, "ndim": 3}),
    _op("scale", [], {"scale": 2.0, "ndim": 2, "center": [1.0, 2.0]}),
    _op("scale", [], {"scale": [2.0], "ndim": 3, "center": 5.0}),
    _op("scale", [], {"scale": [1.0, 2.0], "ndim": 3}),
    _op("scale", [], {"scale": 1.5, "ndim": 0}),
    _op("scale", [M3], {"scale": 3.0}),
    _op("scale", [M3], {"scale": 3.0, "ndim": 2}),
    _op("scale", [M2], {"scale": [0.5, 4.0], "center": [3.0, -1.0], "reverse_order": True}),
    _op("scale", [M6], {"scale": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "center": 0.5}),
    _op("scale", [per_sample([2.0, 3.0, 0.5, -1.0])], {"scale": In(0), "ndim": 3}),
    _op(
        "scale",
        [_ext([[2, 3], [1, 1], [0.5, 4], [-1, 2]], "scales"), per_sample([1.0, 2.0, 3.0, 4.0])],
        {"scale": In(0), "center": In(1)},
    ),
    _op(
        "scale",
        [_ext([[1, 2], [3, 4], [5, 6], [7, 8]], "centers")],
        {"scale": [2.0, 0.25], "center": In(0)},
    ),
    _op("scale", [], {"scale": [1.0, 2.0], "center": [1.0, 2.0, 3.0]}, expect_error=True),
    _op("scale", [], {"scale": 2.0, "center": [1.0, 2.0, 3.0]}, expect_error=True),
    _op("scale", [], {"scale": [1.0] * 7}, expect_error=True),
    _op("scale", [], {"scale": 1.0, "ndim": 7}, expect_error=True),
    _op("scale", [M3], {"scale": [3.0, 3.0]}, expect_error=True),
    _op(
        "scale",
        [per_sample([1.0, 2.0, 3.0, 4.0])],
        {"scale": [1.0, 2.0], "center": In(0)},
    ),
    _op(
        "scale",
        [_ext([[1], [2], [3], [4]], "centers_1")],
        {"scale": [1.0, 2.0], "center": In(0)},
        expect_error=True,
    ),
)

# -- rotation -------------------------------------------------------------------------------------
add(
    _op("rotation", [ANGLES], {"angle": In(0)}),
    _op("rotation", [ANGLES], {"angle": In(0), "center": [10.0, -20.0]}),
    _op("rotation", [ANGLES], {"angle": In(0), "center": 3.5}),
    _op("rotation", [], {"angle": 30.0}),
    _op("rotation", [], {"angle": 90.0, "center": [100.0, 50.0]}),
    _op("rotation", [], {"angle": 30.0, "axis": [1.0, 1.0, 1.0]}),
    _op("rotation", [], {"angle": 30.0, "axis": [1.0, 1.0, 1.0], "center": [1.0, 2.0, 3.0]}),
    _op("rotation", [ANGLES], {"angle": In(0), "axis": [0.0, 0.0, 1.0]}),
    _op("rotation", [ANGLES], {"angle": In(0), "axis": [3.0, -4.0, 12.0]}),
    _op("rotation", [], {"angle": 25.0, "axis": 2.0}),
    _op(
        "rotation",
        [ANGLES4, _ext([[1, 0, 0], [0, 1, 0], [0.3, 0.4, 0.5], [-1, 2, -3]], "axes")],
        {"angle": In(0), "axis": In(1), "center": [5.0, 6.0, 7.0]},
    ),
    _op(
        "rotation",
        [ANGLES4, _ext([[1, 2], [3, 4], [5, 6], [7, 8]], "centers")],
        {"angle": In(0), "center": In(1)},
    ),
    _op("rotation", [], {"angle": 10.0, "axis": [0.0, 0.0, 0.0]}),
    _op("rotation", [], {"angle": 0.0, "axis": [0.0, 0.0, 0.0], "center": [1.0, 2.0, 3.0]}),
    _op("rotation", [M2, ANGLES4], {"angle": In(1)}),
    _op("rotation", [M2, ANGLES4], {"angle": In(1), "reverse_order": True}),
    _op("rotation", [M3, ANGLES4], {"angle": In(1), "axis": [1.0, -2.0, 0.5]}),
    _op("rotation", [], {"angle": 10.0, "axis": [1.0, 2.0]}, expect_error=True),
    _op("rotation", [], {"angle": 10.0, "center": [1.0, 2.0, 3.0]}, expect_error=True),
    _op("rotation", [M3], {"angle": 10.0}, expect_error=True),
    _op("rotation", [M2], {"angle": 10.0, "axis": [0.0, 0.0, 1.0]}, expect_error=True),
    _op("rotation", [], {}, expect_error=True),
    _op(
        "rotation",
        [_ext([[10], [20], [30], [40]], "angles_1")],
        {"angle": In(0)},
        expect_error=True,
    ),
    _op(
        "rotation",
        [_ext([[1, 0], [0, 1], [1, 1], [1, 0]], "axes_2")],
        {"angle": 10.0, "axis": In(0)},
        expect_error=True,
    ),
)

# -- shear ---------------------------------------------------------------------------------------
add(
    _op("shear", [], {"shear": [0.5, 0.25]}),
    _op("shear", [], {"shear": [0.5, 0.25], "center": [1.0, 2.0]}),
    _op("shear", [], {"shear": [0.5, 0.25], "center": 3.0}),
    _op("shear", [], {"angles": [10.0, 20.0]}),
    _op("shear", [], {"angles": [-45.0, 89.5], "center": [4.0, -4.0]}),
    _op("shear", [], {"angles": [90.0, -90.0]}),
    _op("shear", [], {"shear": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
    _op("shear", [], {"shear": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "center": 2.0}),
    _op("shear", [], {"angles": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0], "center": [1.0, 2.0, 3.0]}),
    _op("shear", [M2], {"shear": [0.1, -0.2]}),
    _op("shear", [M3], {"angles": [5.0, -5.0, 10.0, -10.0, 15.0, -15.0], "reverse_order": True}),
    _op("shear", [_ext([[1, 2], [3, 4], [0, 0], [-1, 0.5]], "shears")], {"shear": In(0)}),
    _op(
        "shear",
        [_ext([[[1], [2]], [[3], [4]], [[0], [0]], [[-1], [0.5]]], "shears_2x1")],
        {"shear": In(0)},
    ),
    _op(
        "shear",
        [_ext([np.arange(6).reshape(3, 2) * (k + 1) for k in range(4)], "shears_3x2")],
        {"shear": In(0), "center": [1.0, -1.0, 2.0]},
    ),
    _op(
        "shear",
        [_ext([[10, 20], [-30, 40], [0, 0], [89, -89]], "shear_angles")],
        {"angles": In(0)},
    ),
    _op("shear", [], {"shear": [1.0, 2.0], "angles": [1.0, 2.0]}, expect_error=True),
    _op("shear", [], {}, expect_error=True),
    _op("shear", [], {"shear": [1.0, 2.0, 3.0]}, expect_error=True),
    _op("shear", [], {"shear": 1.0}, expect_error=True),
    _op("shear", [], {"angles": [100.0, 0.0]}, expect_error=True),
    _op("shear", [M3], {"shear": [1.0, 2.0]}, expect_error=True),
    _op(
        "shear",
        [_ext([[1, 2, 3, 4, 5, 6]] * 4, "shears_6")],
        {"shear": In(0)},
        expect_error=True,
    ),
    _op(
        "shear",
        [_ext([[10, 20], [-30, 100], [0, 0], [1, 1]], "bad_angles")],
        {"angles": In(0)},
        expect_error=True,
    ),
)

# -- crop -----------------------------------------------------------------------------------------
add(
    _op("crop", []),
    _op("crop", [], {"from_start": [1.0, 2.0], "from_end": [5.0, 8.0]}),
    _op(
        "crop",
        [],
        {"from_start": [0.1, 0.2], "from_end": [0.7, 0.9], "to_start": [10.0, 20.0], "to_end": 0},
    ),
    _op("crop", [], {"from_start": [5.0, 2.0], "from_end": [1.0, 8.0], "absolute": True}),
    _op(
        "crop",
        [],
        {
            "from_start": [4.0, 1.0, 3.0],
            "from_end": [2.0, 3.0, 0.5],
            "to_start": [0.0, 1.0, 1.0],
            "to_end": [1.0, 0.0, 2.0],
            "absolute": True,
        },
    ),
    _op("crop", [], {"from_start": [5.0, 2.0, 0.0], "from_end": [1.0, 8.0, 3.0], "to_start": 2}),
    _op("crop", [], {"from_start": 1.0, "from_end": 1.0}),
    _op("crop", [], {"from_end": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "to_end": 0.5}),
    _op("crop", [M2], {"from_start": [1.0, 2.0], "from_end": [3.0, 7.0]}),
    _op("crop", [M2], {"to_start": [1.0, 2.0], "reverse_order": True}),
    _op(
        "crop",
        [_ext([[1, 2], [3, 4], [0, 0], [-1, -2]], "starts")],
        {"from_start": In(0), "from_end": 10.0},
    ),
    _op("crop", [per_sample([1.0, 3.0, 0.0, -2.0])], {"from_start": In(0), "to_end": [2, 2]}),
    _op("crop", [], {"from_start": [1.0, 2.0], "to_end": [1.0, 2.0, 3.0]}, expect_error=True),
    _op("crop", [M2], {"from_end": 2.0}, expect_error=True),
    _op("crop", [], {"from_end": [1.0] * 7}, expect_error=True),
    _op(
        "crop",
        [_ext([[1, 2], [3], [1, 2], [1, 2]], "ragged_starts")],
        {"from_start": In(0)},
        expect_error=True,
    ),
)


# -- chains and combine -------------------------------------------------------------------------
def _chain(fn: Any, types: Any, angles: Any) -> Any:
    mt = fn.transforms.scale(scale=[2.0, 3.0], center=[1.0, 1.0])
    mt = fn.transforms.rotation(mt, angle=angles)
    mt = fn.transforms.shear(mt, shear=[0.1, 0.2], reverse_order=True)
    mt = fn.transforms.translation(mt, offset=[5.0, -5.0])
    return fn.transforms.crop(mt, from_end=[100.0, 50.0], to_start=-1.0)


def _chain3d(fn: Any, types: Any, angles: Any) -> Any:
    mt = fn.transforms.translation(offset=[1.0, 2.0, 3.0])
    mt = fn.transforms.rotation(mt, angle=angles, axis=[0.0, 1.0, 1.0], center=[1, 1, 1])
    mt = fn.transforms.scale(mt, scale=0.5, reverse_order=True)
    return fn.transforms.shear(mt, angles=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


def _combine(reverse: bool) -> Any:
    def graph(fn: Any, types: Any, angles: Any) -> Any:
        t = fn.transforms
        parts = [
            t.translation(offset=[1.0, 2.0]),
            t.rotation(angle=angles),
            t.scale(scale=[2.0, 3.0]),
            t.shear(shear=[0.5, -0.5]),
        ]
        return (
            t.combine(parts[0], parts[1], reverse_order=reverse),
            t.combine(*parts[:3], reverse_order=reverse),
            t.combine(*parts, reverse_order=reverse),
        )

    return graph


add(
    Case("transforms chain 2-D (scale, rotation, shear, translation, crop)", _chain, (ANGLES4,)),
    Case("transforms chain 3-D (translation, rotation, scale, shear)", _chain3d, (ANGLES4,)),
    Case("transforms.combine of 2, 3, 4", _combine(False), (ANGLES4,)),
    Case("transforms.combine of 2, 3, 4, reverse_order", _combine(True), (ANGLES4,)),
    _op("combine", [M2, M2B, M2C]),
    _op("combine", [M3, M3], {"reverse_order": True}),
    _op("combine", [M1, M1, M1, M1]),
    _op("combine", [M6, M6]),
    _op("combine", [M2, M3], expect_error=True),
    _op("combine", [M2], expect_error=True),
    _op(
        "combine",
        [_ext([np.eye(2)] * 4, "square"), _ext([np.eye(2)] * 4, "square")],
        expect_error=True,
    ),
)


# -- sequences ------------------------------------------------------------------------------------
def _pf(opname: str, names: tuple[str, ...], kw: dict[str, Any], with_input: bool) -> Any:
    def graph(fn: Any, types: Any, *nodes: Any) -> Any:
        inputs = nodes[:1] if with_input else ()
        values = nodes[1:] if with_input else nodes
        marked = {n: fn.per_frame(v) for n, v in zip(names, values)}
        return getattr(fn.transforms, opname)(*inputs, **kw, **marked)

    return graph


PF_ANGLES = _ext([[10, 20, 30], [40, 50, 60]], "pf_angles")
PF_ANGLES_R = _ext([[10, 20, 30], [40, 50, 60, 70, 80]], "pf_angles_ragged")
PF_ANGLES_1 = _ext([[10], [40, 50, 60, 70, 80]], "pf_angles_one")
PF_ANGLES_BAD = _ext([[10, 20], [40, 50, 60]], "pf_angles_bad")
PF_CENTERS_1 = _ext([[[1, 2]], [[1, 2], [3, 4], [5, 6]]], "pf_centers")
PF_OFFSETS = _ext([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "pf_offsets")
PF_SHEAR = _ext([[[0.1, 0.2], [0.3, 0.4]], [[0.5, 0.6], [0.7, 0.8]]], "pf_shear")
PF_AXES = _ext([[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 1, 0], [0, 1, 1], [1, 0, 1]]], "pf_axes")
PF_STARTS = _ext([[[0, 0], [1, 1], [2, 2]], [[3, 3], [4, 4], [5, 5]]], "pf_starts")

add(
    Case(
        "seq.transforms.rotation(angle=per_frame)",
        _pf("rotation", ("angle",), {}, False),
        (PF_ANGLES,),
    ),
    Case(
        "seq.transforms.rotation(angle=per_frame ragged)",
        _pf("rotation", ("angle",), {}, False),
        (PF_ANGLES_R,),
    ),
    Case(
        "seq.transforms.rotation(angle=per_frame, center=per_frame one frame)",
        _pf("rotation", ("angle", "center"), {}, False),
        (PF_ANGLES, PF_CENTERS_1),
    ),
    Case(
        "seq.transforms.rotation(m2_pair, angle=per_frame)",
        _pf("rotation", ("angle",), {}, True),
        (M2_PAIR, PF_ANGLES),
    ),
    Case(
        "seq.transforms.rotation(seq2_ragged, angle=per_frame one frame)",
        _pf("rotation", ("angle",), {"reverse_order": True}, True),
        (SEQ2R, PF_ANGLES_1),
    ),
    Case(
        "seq.transforms.rotation(seq2_ragged, angle=per_frame)",
        _pf("rotation", ("angle",), {}, True),
        (SEQ2R, PF_ANGLES_R),
    ),
    Case(
        "seq.transforms.rotation(angle=per_frame, axis=per_frame)",
        _pf("rotation", ("angle", "axis"), {}, False),
        (PF_ANGLES, PF_AXES),
    ),
    Case(
        "seq.transforms.translation(offset=per_frame)",
        _pf("translation", ("offset",), {}, False),
        (PF_OFFSETS,),
    ),
    Case(
        "seq.transforms.shear(shear=per_frame)",
        _pf("shear", ("shear",), {"center": [1.0, 2.0]}, False),
        (PF_SHEAR,),
    ),
    Case(
        "seq.transforms.crop(from_start=per_frame)",
        _pf("crop", ("from_start",), {"from_end": 10.0}, False),
        (PF_STARTS,),
    ),
    Case(
        "seq.transforms.scale(seq2, scale=per_frame)",
        _pf("scale", ("scale",), {"center": [1.0, 1.0]}, True),
        (SEQ2, _ext([[[2, 3], [4, 5], [6, 7]], [[1, 1], [2, 2], [3, 3]]], "pf_scales")),
    ),
    _op("translation", [SEQ2], {"offset": [1.0, 2.0]}, prefix="seq."),
    _op("rotation", [SEQ2R, per_sample([30.0, 60.0])], {"angle": In(1)}, prefix="seq."),
    _op("combine", [SEQ2, M2_PAIR], prefix="seq."),
    _op("combine", [M2_PAIR, SEQ2R, SEQ2R_B], {"reverse_order": True}, prefix="seq."),
    _op("combine", [SEQ2, SEQ2_OTHER], prefix="seq.", expect_error=True),
    Case(
        "seq.transforms.rotation(seq2, angle=per_frame bad count)",
        _pf("rotation", ("angle",), {}, True),
        (SEQ2, PF_ANGLES_BAD),
        expect_error=True,
    ),
    Case(
        "seq.transforms.rotation(angle=per_frame, center=per_frame bad count)",
        _pf("rotation", ("angle", "center"), {}, False),
        (PF_ANGLES_BAD, _ext([[[1, 2]] * 3, [[1, 2]] * 3], "pf_centers3")),
        expect_error=True,
    ),
    _op(
        "rotation",
        [_ext(_mats(2, 2, 12, frames=(3, 3)), "seq_nolayout")],
        {"angle": 5.0},
        prefix="seq.",
        expect_error=True,
    ),
)


# -- into warp_affine and coord_transform ---------------------------------------------------------
def _warp(how: str) -> Any:
    def graph(fn: Any, types: Any, images: Any, angles: Any) -> Any:
        mt = fn.transforms.rotation(angle=angles, center=[20.0, 30.0])
        mt = fn.transforms.scale(mt, scale=[1.25, 0.8], center=[20.0, 30.0])
        mt = fn.transforms.translation(mt, offset=[3.0, -2.0])
        if how == "mtx":
            return mt, fn.warp_affine(images, mt, fill_value=0)
        inverse = how == "inverse"
        return mt, fn.warp_affine(images, matrix=mt, inverse_map=not inverse, fill_value=0)

    return graph


def _warp_seq(fn: Any, types: Any, video: Any, angles: Any) -> Any:
    mt = fn.transforms.rotation(angle=fn.per_frame(angles), center=[20.0, 30.0])
    return mt, fn.warp_affine(video, matrix=mt, inverse_map=False, size=(50, 40))


def _points(fn: Any, types: Any, points: Any, angles: Any) -> Any:
    mt = fn.transforms.rotation(angle=angles, center=[0.5, 0.5])
    mt = fn.transforms.crop(mt, from_start=[0.1, 0.2], from_end=[0.9, 0.7], to_end=[300, 200])
    return fn.coord_transform(points, MT=mt)


def _points3d(fn: Any, types: Any, points: Any, angles: Any) -> Any:
    mt = fn.transforms.rotation(angle=angles, axis=[1.0, 2.0, 3.0])
    mt = fn.transforms.translation(mt, offset=[1.0, -1.0, 0.5])
    return fn.coord_transform(points, MT=mt)


_rng = np.random.default_rng(13)
POINTS = _ext([_rng.random((n, 2)) for n in (5, 1, 17, 3)], "points")
POINTS3 = _ext([_rng.random((n, 3)) * 10 for n in (4, 6, 1, 2)], "points3d")
VIDEO = Ext(
    lambda c: [[np.stack([c.tree_image(0)] * 3), np.stack([c.tree_image(1)[:60, :40]] * 2)]],
    "FHWC",
    "video",
)
_GEOMETRY = {"atol": 1, "outliers": 1e-5, "outlier_atol": 4}
TWO_ANGLES = per_sample([12.5, -40.0], label="angles2")

add(
    Case("warp_affine(matrix=transforms chain)", _warp("matrix"), (SMALL, TWO_ANGLES), **_GEOMETRY),
    Case("warp_affine(mtx=transforms chain)", _warp("mtx"), (SMALL, TWO_ANGLES), **_GEOMETRY),
    Case(
        "warp_affine(matrix=transforms chain, inverse_map=False)",
        _warp("inverse"),
        (SMALL, TWO_ANGLES),
        **_GEOMETRY,
    ),
    Case(
        "seq.warp_affine(matrix=transforms.rotation(angle=per_frame), inverse_map=False)",
        _warp_seq,
        (VIDEO, _ext([[0, 15, 30], [-20, 20]], "pf_video_angles")),
        **_GEOMETRY,
    ),
    Case("coord_transform(MT=transforms chain)", _points, (POINTS, ANGLES4)),
    Case("coord_transform(MT=transforms 3-D chain)", _points3d, (POINTS3, ANGLES4)),
)
