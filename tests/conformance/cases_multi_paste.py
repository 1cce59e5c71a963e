"""Conformance cases of `fn.multi_paste` against real DALI 2.4 (see README.md).

All exact: ``in_ids`` (constant, per sample, ragged, empty) and positional inputs (up to 4),
absolute and relative regions (float32 floor/ceil), overlapping regions, the canvas size from
``output_size`` (constant, per sample, with extra elements) or from uniform inputs, channels
taken from the regions, every input and output type (saturating conversions, NaN), inputs
without a layout, sequences (``in_ids`` counting frames, per-frame arguments, images beside
sequences), the source info of the regions, and DALI's errors.

DALI 2.4's CPU backend fails ("The kernel instance is of different type than requested") when
a batch of sequences has more frames than the pipeline's batch size, so the sequence cases keep
the frames within the batch size (their ``batch_size`` is raised to the number of frames).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, NOISE, TREE, Case, Ext, In, Ty, add, op

I32, F32 = np.int32, np.float32
_R = np.random.default_rng(31)


def _batch(arrays: list[np.ndarray], layout: str | None, label: str) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


def _vals(values: list[Any], dtype: Any, label: str, layout: str | None = None) -> Ext:
    return _batch([np.array(v, dtype) for v in values], layout, label)


U8 = _batch([_R.integers(0, 256, (30, 40, 3), dtype=np.uint8) for _ in range(4)], "HWC", "u8")
U8_1 = _batch([_R.integers(0, 256, (30, 40, 1), dtype=np.uint8) for _ in range(4)], "HWC", "u8c1")
NOLAYOUT = _batch([_R.integers(0, 256, (12, 9, 2), dtype=np.uint8) for _ in range(3)], None, "3d")
_FV = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 254.5, 255.5, 300.0, -5.0, np.nan, 4e4, -4e4, 3e9,
                -3e9, np.inf, -np.inf, 0.49999997, 127.5], F32)  # fmt: skip
F32_EDGE = _batch([_FV.reshape(2, 9, 1), (_FV * 3).reshape(2, 9, 1)], "HWC", "f32_edges")
F32_RAND = _batch(
    [(_R.random((16, 20, 3)) * 400 - 100).astype(F32) for _ in range(3)], "HWC", "f32"
)
I16 = _batch([_R.integers(-600, 600, (10, 14, 3)).astype(np.int16) for _ in range(3)], "HWC", "i16")
_IV = np.array([-5, 300, 70000, -70000, 2**31 - 1, -(2**31), 32767, 128], I32)
I32_EDGE = _batch([_IV.reshape(2, 4, 1), _IV[::-1].reshape(2, 4, 1).copy()], "HWC", "i32_edges")
MIXED_C = _batch(
    [_R.integers(0, 256, (20, 20, c), dtype=np.uint8) for c in (3, 1, 3, 4)], "HWC", "mixed_c"
)
SEQ = _batch([_R.integers(0, 256, (2, 12, 15, 3), dtype=np.uint8) for _ in range(2)], "FHWC", "seq")
SEQ1 = _batch([_R.integers(0, 256, (1, 12, 15, 3), dtype=np.uint8) for _ in range(2)], "FHWC",
              "seq_f1")  # fmt: skip
SEQ_IMG = _batch([_R.integers(0, 256, (12, 15, 3), dtype=np.uint8) for _ in range(2)], "HWC",
                 "seq_img")  # fmt: skip
U16 = _batch([np.zeros((4, 5, 3), np.uint16)] * 2, "HWC", "u16")
HW = _batch([np.zeros((4, 5), np.uint8)] * 2, "HW", "hw")
CHW = _batch([np.zeros((3, 4, 5), np.uint8)] * 2, "CHW", "chw")

MP = "multi_paste"


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, separator=",").replace("\n", "").replace(" ", "")
    return repr(v)


def mp(inputs: list[Any], kwargs: dict[str, Any] | None = None, **options: Any) -> Case:
    """`op` for multi_paste, named with the arrays on one line."""
    kwargs = kwargs or {}
    if "name" not in options:
        labels = ",".join(getattr(s, "label", "?") for s in inputs)
        args = ", ".join(f"{k}={_short(v)}" for k, v in kwargs.items())
        options["name"] = f"{MP}({labels}; {args})" if args else f"{MP}({labels})"
    return op(MP, inputs, kwargs, **options)


# -- in_ids -----------------------------------------------------------------------------------
add(mp([U8], {"in_ids": [1, 0]}))
add(mp([U8], {"in_ids": 2}))
add(mp([U8]))  # one input, no ids: every sample onto itself
add(mp([U8], {"in_ids": [], "output_size": [7, 9]}))
add(mp([U8], {"in_ids": []}))
_IDS = _vals([[3, 0, 2], [1], [], [0, 0]], I32, "ids")
_IA = _vals([[[2, 3], [0, 0], [10, 5]], [[4, 4]], np.zeros((0, 2)), [[1, 1], [20, 30]]], I32, "ia")
_SH = _vals([[[10, 12], [5, 5], [20, 30]], [[25, 33]], np.zeros((0, 2)), [[29, 39], [10, 10]]],
            I32, "sh")  # fmt: skip
_OA = _vals([[[0, 0], [4, 6], [6, 8]], [[1, 2]], np.zeros((0, 2)), [[0, 0], [15, 20]]], I32, "oa")
_REG = {"in_ids": In(1), "in_anchors": In(2), "shapes": In(3), "out_anchors": In(4)}
add(mp([U8, _IDS, _IA, _SH, _OA], _REG))  # overlaps: later regions on top
add(mp([U8, _IDS, _IA, _SH, _OA], {**_REG, "output_size": [40, 50]}))
add(mp([U8, _IDS, _IA, _SH, _OA, _vals([[30, 45], [28, 40], [1, 1], [40, 50]], I32, "sz")],
        {**_REG, "output_size": In(5)}, name="multi_paste(u8; ragged size values)"))  # fmt: skip
add(mp([U8, _IDS, _IA, _SH, _OA, _vals([[30, 45, 3], [28, 40, 0], [1, 1, 9], [40, 50, 1]],
        I32, "sz3")], {**_REG, "output_size": In(5)}))  # fmt: skip
add(mp([U8, _IDS, _IA], {"in_ids": In(1), "in_anchors": In(2)}))  # shapes to the end
add(mp([U8, _IDS, _OA, _SH], {"in_ids": In(1), "out_anchors": In(2), "shapes": In(3)}))
add(mp([U8], {"in_ids": [0, 1], "shapes": np.array([[0, 0], [0, 40]], I32),
                  "in_anchors": np.array([[30, 40], [30, 0]], I32),
                  "out_anchors": np.array([[30, 40], [30, 0]], I32)}))  # fmt: skip
add(mp([U8], {"in_ids": [0], "output_size": [0, 0], "shapes": np.zeros((1, 2), I32)}))
add(mp([U8], {"in_ids": [1], "in_anchors": np.array([[5, 7]], np.int64)}))  # int64 constant

# -- relative regions -------------------------------------------------------------------------
_RA = _vals([[[0.0, 0.0], [0.5, 0.25]], [[0.7, 0.35], [0.999, 0.001]], [[1.0, 0.0]],
             [[0.33, 0.66], [0.1, 0.9]]], F32, "ra")  # fmt: skip
_RS = _vals([[[0.5, 0.5], [0.3, 0.7]], [[0.3, 0.3], [0.0, 0.5]], [[0.0, 1.0]],
             [[0.2, 0.1], [0.6, 0.1]]], F32, "rs")  # fmt: skip
_RO = _vals([[[0.5, 0.5], [0.0, 0.1]], [[0.25, 0.6], [0.5, 0.5]], [[0.9, 0.0]],
             [[0.0, 0.0], [0.3, 0.8]]], F32, "ro")  # fmt: skip
_IDS2 = _vals([[0, 1], [2, 3], [1], [3, 0]], I32, "ids2")
_REL = {"in_ids": In(1), "in_anchors_rel": In(2), "shapes_rel": In(3), "out_anchors_rel": In(4)}
add(mp([IMGS, _IDS2, _RA, _RS, _RO], {**_REL, "output_size": [300, 400]}))
add(mp([U8, _IDS2, _RA, _RS, _RO], _REL))
add(mp([U8, _IDS2, _RA], {"in_ids": In(1), "in_anchors_rel": In(2)}))
add(mp([U8, _IDS2, _RS, _OA], {"in_ids": In(1), "shapes_rel": In(2), "out_anchors": In(3)},
       expect_error=True))  # out_anchors has 3 rows for sample 0  # fmt: skip
add(mp([U8], {"in_ids": [0, 3], "shapes_rel": np.array([[0.5, 0.5], [0.5, 0.5]], F32),
                  "out_anchors_rel": np.array([[0.5, 0.5], [0.0, 0.0]], F32),
                  "in_anchors_rel": np.array([[0.5, 0.5], [0.5, 0.5]], F32)}))  # fmt: skip
add(mp([U8], {"in_ids": [2], "shapes_rel": np.array([[0.5, 0.5]], np.float64)}))

# -- positional inputs ------------------------------------------------------------------------


def _positional(fn: Any, types: Any, x: Any) -> Any:
    flipped = fn.flip(x, horizontal=1)
    shifted = fn.permute_batch(x, indices=[1, 2, 3, 0])
    return fn.multi_paste(
        x, flipped, shifted, x,
        shapes=np.array([[30, 40], [10, 20], [12, 12], [5, 5]], I32),
        in_anchors=np.array([[0, 0], [5, 5], [18, 28], [0, 0]], I32),
        out_anchors=np.array([[0, 0], [2, 3], [15, 25], [25, 35]], I32),
    )  # fmt: skip


add(Case("multi_paste(u8, flip, permuted, u8; regions)", _positional, (U8,)))
add(Case("multi_paste(u8 x2; rel)", lambda fn, types, x: fn.multi_paste(
    x, fn.flip(x, vertical=1), shapes_rel=np.array([[1.0, 0.5], [0.5, 0.5]], F32),
    out_anchors_rel=np.array([[0.0, 0.0], [0.5, 0.5]], F32), output_size=[40, 50]), (U8,)))  # fmt: skip

# -- types ------------------------------------------------------------------------------------
for _src in (F32_EDGE, F32_RAND, I16, I32_EDGE, U8):
    for _t in ("UINT8", "INT16", "INT32", "FLOAT"):
        add(mp([_src], {"dtype": Ty(_t)}))
add(mp([F32_RAND], {"in_ids": [2, 0], "dtype": Ty("UINT8"), "output_size": [20, 25],
                        "shapes": np.array([[16, 20], [5, 5]], I32)}))  # fmt: skip

# -- layouts and channels ---------------------------------------------------------------------
add(mp([NOLAYOUT], {"in_ids": [2, 1], "shapes": np.array([[5, 5], [3, 3]], I32)}))
add(mp([MIXED_C], {"in_ids": [1]}))
add(mp([MIXED_C], {"in_ids": np.zeros(0, I32)}))  # no regions: each sample's channels
add(mp([MIXED_C, _vals([[3], [], [0, 2], [1, 1]], I32, "ids_c")], {"in_ids": In(1)}))
add(mp([U8_1], {"in_ids": [3, 1], "shapes": np.array([[9, 9], [4, 4]], I32)}))

# -- sequences --------------------------------------------------------------------------------
add(mp([SEQ], {"in_ids": [1]}, batch_size=4))  # frame 1 of sequence 0, for every frame
add(mp([SEQ, _vals([[3, 0], [2]], I32, "fids")], {"in_ids": In(1)}, batch_size=4))
add(mp([SEQ1], {"in_ids": [1, 0], "shapes": np.array([[4, 4], [2, 2]], I32)}))
add(mp([SEQ], batch_size=4))


def _per_frame(fn: Any, types: Any, seq: Any, img: Any, oa: Any) -> Any:
    return fn.multi_paste(seq, img, shapes=np.array([[6, 7], [3, 3]], I32),
                          out_anchors=fn.per_frame(oa))  # fmt: skip


_PF = _vals([[[[0, 0], [1, 1]], [[5, 6], [9, 12]]], [[[2, 2], [0, 0]]]], I32, "pf")
add(Case("multi_paste(seq, img; per-frame out_anchors)", _per_frame, (SEQ, SEQ_IMG, _PF),
         batch_size=4))  # fmt: skip
add(Case("multi_paste(img, seq)", lambda fn, types, s, i: fn.multi_paste(i, s), (SEQ, SEQ_IMG),
         batch_size=4))  # fmt: skip
_PF_BAD = _vals([np.zeros((3, 1, 2)), np.zeros((3, 1, 2))], I32, "pf_bad")
add(Case("multi_paste(seq; 3 per-frame anchors for 2 frames)", lambda fn, types, s, a:
         fn.multi_paste(s, out_anchors=fn.per_frame(a)), (SEQ, _PF_BAD), batch_size=4,
         expect_error=True))  # fmt: skip
add(Case("multi_paste(seq, seq_f1)", lambda fn, types, a, b: fn.multi_paste(a, b), (SEQ, SEQ1),
         batch_size=4, expect_error=True))  # fmt: skip

# -- source info ------------------------------------------------------------------------------


def _from_files(fn: Any, types: Any, root: str, ids: Any) -> Any:
    files = [f"{i % 3}/img_{i:02d}.jpg" for i in range(4)]
    jpegs, _ = fn.readers.file(file_root=root, files=files)
    images = fn.crop(fn.decoders.image(jpegs), crop=(32, 30))
    return fn.multi_paste(images, in_ids=ids)


add(Case("multi_paste(tree; per-sample in_ids) [source_info]", _from_files,
         (TREE, _vals([[2, 1], [], [0], [3, 3]], I32, "ids")), source_info=(0,)))  # fmt: skip

# -- errors -----------------------------------------------------------------------------------
_ERRORS: list[tuple[list[Any], dict[str, Any]]] = [
    ([U8], {"in_ids": [4]}),
    ([U8], {"in_ids": [-1]}),
    ([U8], {"in_ids": [0], "in_anchors": np.array([[25, 0]], I32),
            "shapes": np.array([[6, 6]], I32)}),
    ([U8], {"in_ids": [0], "shapes": np.array([[-1, 5]], I32)}),
    ([U8], {"in_ids": [0], "in_anchors": np.array([[0, -1]], I32)}),
    ([U8], {"in_ids": [0], "out_anchors": np.array([[1, 0]], I32)}),
    ([U8], {"in_ids": [0], "out_anchors": np.array([[-1, 0]], I32),
            "shapes": np.array([[1, 1]], I32)}),
    ([U8], {"in_ids": [0, 1], "out_anchors": np.array([[0, 0]], I32)}),
    ([U8], {"in_ids": [0], "in_anchors": np.array([[0, 0, 0]], I32)}),
    ([U8], {"in_ids": [0], "in_anchors": np.zeros((1, 2, 1), I32)}),
    ([U8], {"in_ids": [0], "in_anchors": np.array([[1.0, 1.0]], F32)}),
    ([U8], {"in_ids": [0], "in_anchors_rel": np.array([[0, 1]], I32)}),
    ([U8], {"in_ids": [0], "shapes_rel": np.array([[1.5, 0.5]], F32)}),
    ([U8], {"in_ids": [0], "in_anchors_rel": np.array([[-0.1, 0.5]], F32)}),
    ([U8], {"in_ids": [0], "out_anchors_rel": np.array([[0.5, np.nan]], F32)}),
    ([U8], {"in_ids": [0], "shapes_rel": np.array([[0.5, 0.5]], F32),
            "in_anchors_rel": np.array([[0.75, 0.75]], F32)}),
    ([U8], {"in_ids": [0], "output_size": [3]}),
    ([U8], {"in_ids": [0], "output_size": [3, -1]}),
    ([U8], {"in_anchors": np.array([[0, 0]], I32),
            "in_anchors_rel": np.array([[0.5, 0.5]], F32)}),
    ([U8], {"shapes": np.array([[1, 1]], I32), "shapes_rel": np.array([[0.5, 0.5]], F32)}),
    ([U8], {"out_anchors": np.array([[0, 0]], I32),
            "out_anchors_rel": np.array([[0.5, 0.5]], F32)}),
    ([U8], {"dtype": Ty("UINT16")}),
    ([U8], {"dtype": Ty("FLOAT64")}),
    ([IMGS], {"in_ids": [0]}),  # ragged shapes without output_size
    ([MIXED_C], {"in_ids": [0, 1]}),  # regions with different channels
    ([U16], {}),
    ([HW], {}),
    ([CHW], {}),
]  # fmt: skip
for _inputs, _kw in _ERRORS:
    add(mp(_inputs, _kw, expect_error=True))
add(Case("multi_paste(u8, u8; in_ids)", lambda fn, types, x: fn.multi_paste(x, x, in_ids=[0]),
         (U8,), expect_error=True))  # fmt: skip
add(Case("multi_paste(u8, int16)", lambda fn, types, x: fn.multi_paste(
    x, fn.cast(x, dtype=types.INT16)), (U8,), expect_error=True))  # fmt: skip
add(mp([U8, _vals([[[0, 1]]] * 4, I32, "ids_2d")], {"in_ids": In(1)}, expect_error=True))
add(mp([U8, _vals([[1, 2], [1, 2], [1, 2, 3], [1, 2]], I32, "sz_ragged")],
       {"in_ids": [0], "output_size": In(1)}, expect_error=True))  # fmt: skip
add(mp([NOISE], {"in_ids": [1], "output_size": [40, 60], "dtype": Ty("FLOAT")}))
