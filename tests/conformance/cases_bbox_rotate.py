"""Conformance cases of `fn.bbox_rotate` against real DALI 2.4 (see README.md).

The operator is deterministic and computed in DALI's float32 order, so its outputs (boxes and
labels) are compared exactly: every mode and layout, relative and absolute boxes, the three
canvases (fitted, ``keep_size``, ``size``), removal thresholds, per-sample ``angle``,
``input_shape`` (of several integer types, or an image's ``shape()``) and ``size`` (of every
accepted type), ``shape_layout``, labels ``[N]`` and ``[N, 1]``, samples without boxes; and both
libraries must raise on the same bad arguments and inputs.

Known difference: boxes that are not ``[N, 4]`` (``[2, 5]``, a flat ``[8]``). DALI 2.4 logs
"First input to fn.bbox_rotate should be [N,4]" and goes on (its output is then garbage); `dali`
raises that message. DALI is not run on them (``dali_skip``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import IMGS, Case, Ext, In, add, arrays, op, per_sample

F = np.float32


def _boxes(seed: int, counts: tuple[int, ...], ltrb: bool = True, scale=(1, 1)) -> list[Any]:
    """Random boxes around [0, 1] (some partly outside), one array per sample."""
    rng = np.random.default_rng(seed)
    out = []
    for n in counts:
        lo = rng.random((n, 2)) * 1.1 - 0.05
        ext = 0.02 + rng.random((n, 2)) * 0.5
        b = np.concatenate([lo, lo + ext if ltrb else ext], axis=1) * [*scale, *scale]
        out.append(b.astype(F))
    return out


def _ext(samples: list[Any], label: str) -> Ext:
    data = [np.asarray(s) for s in samples]
    return Ext(lambda c: [data], None, label)


COUNTS = (6, 0, 1, 13)
BOX = _ext(_boxes(1, COUNTS), "boxes")
XYWH = _ext(_boxes(1, COUNTS, ltrb=False), "boxes_xywh")
PIX = _ext(_boxes(2, COUNTS, scale=(200, 100)), "boxes_px")
LAB = _ext([np.arange(n, dtype=np.int32) + 10 * i for i, n in enumerate(COUNTS)], "labels")
LAB2 = _ext([np.arange(n, dtype=np.int32).reshape(-1, 1) + 3 for n in COUNTS], "labels_n1")
ONE = arrays([[[0.1, 0.2, 0.5, 0.6], [0.7, 0.7, 0.99, 0.95]]], F, label="two")
SHAPE = {"input_shape": [100, 200]}
ANGLES = per_sample([30.0, -45.0, 200.0, 90.0], F, "angles")
SHAPES = per_sample([[100, 200, 3], [64, 48, 1], [17, 300, 3], [480, 640, 3]], np.int64, "shapes")


def _op(inputs: list[Any], kwargs: dict[str, Any], **options: Any) -> Case:
    """`op` for ``fn.bbox_rotate``, named with the labels of the per-sample arguments too."""
    shown = ", ".join(
        f"{k}={inputs[v.index].label if isinstance(v, In) else repr(v)}" for k, v in kwargs.items()
    )
    used = {v.index for v in kwargs.values() if isinstance(v, In)}
    positional = ",".join(x.label for k, x in enumerate(inputs) if k not in used)
    return op("bbox_rotate", inputs, kwargs, name=f"bbox_rotate({positional}; {shown})", **options)


# -- constant arguments -----------------------------------------------------------------------

for angle in (0.0, 30.0, -45.0, 45.0, 90.0, 135.0, 180.0, -270.0, 1e-3, 377.7):
    add(_op([BOX], {"angle": angle, **SHAPE}))
for kw in (
    {"keep_size": True},
    {"size": [120.9, 80.2]},
    {"size": [50, 60]},
    {"mode": "halfway"},
    {"mode": "fixed"},
    {"mode": "fixed", "keep_size": True},
    {"remove_threshold": 0.0},
    {"remove_threshold": 0.5, "keep_size": True},
    {"remove_threshold": 0.99, "keep_size": True},
    {"shape_layout": "WH", "input_shape": [200, 100]},
    {"shape_layout": "CHW", "input_shape": [3, 100, 200]},
    {"shape_layout": "HWC", "input_shape": [100, 200, 3]},
):
    for angle in (33.0, -120.0):
        add(_op([BOX], {"angle": angle, **SHAPE, **kw}))
for kw in ({}, {"mode": "halfway", "keep_size": True}, {"mode": "fixed"}):
    add(_op([XYWH], {"angle": 63.0, **SHAPE, "bbox_layout": "xyWH", **kw}))
    add(_op([PIX], {"angle": -20.0, **SHAPE, "bbox_normalized": False, **kw}))
add(
    _op(
        [PIX],
        {"angle": 100.0, **SHAPE, "bbox_normalized": False, "bbox_layout": "xyWH"},
    ),
    _op([ONE], {"angle": 30.0, **SHAPE}),
)

# -- labels -----------------------------------------------------------------------------------

for labels in (LAB, LAB2):
    for kw in ({}, {"keep_size": True}, {"keep_size": True, "remove_threshold": 0.6}):
        add(_op([BOX, labels], {"angle": 41.0, **SHAPE, **kw}))

# -- per-sample arguments ---------------------------------------------------------------------

add(
    _op([BOX, ANGLES], {"angle": In(1), **SHAPE}),
    _op([BOX, ANGLES, SHAPES], {"angle": In(1), "input_shape": In(2)}),
    _op(
        [BOX, LAB, ANGLES, SHAPES],
        {"angle": In(2), "input_shape": In(3), "keep_size": True, "mode": "halfway"},
    ),
    _op(
        [BOX, per_sample([[100, 200]] * 4, np.uint8, "shapes_u8")],
        {"angle": 10.0, "input_shape": In(1)},
    ),
    _op(
        [BOX, per_sample([[100, 200]] * 4, np.int32, "shapes_i32")],
        {"angle": 10.0, "input_shape": In(1)},
    ),
)
for dtype in (np.int32, np.int64, np.uint32, np.float32):
    size = per_sample(
        [[50.7, 60.2], [100, 90], [33.9, 12.5], [480, 640]], dtype, f"size_{np.dtype(dtype).name}"
    )
    add(_op([BOX, ANGLES, size], {"angle": In(1), **SHAPE, "size": In(2)}))


def _with_images(fn: Any, types: Any, images: Any, boxes: Any, labels: Any) -> Any:
    """The documented use: the image's shape, the same angle as its `fn.rotate`."""
    angle = fn.external_source(
        source=lambda: [np.array(a, F) for a in (12.5, -80.0, 150.0, 45.0)], batch=True
    )
    out = fn.bbox_rotate(boxes, labels, angle=angle, input_shape=images.shape(), keep_size=True)
    return (*out, fn.bbox_rotate(boxes, angle=angle, input_shape=fn.shapes(images)))


add(
    Case(
        "bbox_rotate(imgs.shape(), boxes, labels; per-sample angle)", _with_images, (IMGS, BOX, LAB)
    )
)

# -- errors -----------------------------------------------------------------------------------

_ERR = {"expect_error": True}
add(
    _op([BOX], {**SHAPE}, **_ERR),  # angle is required
    _op([BOX], {"angle": 1.0}, **_ERR),  # input_shape is required
    _op([BOX], {"angle": 1.0, **SHAPE, "mode": "foo"}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "bbox_layout": "xyXZ"}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "bbox_layout": "XYxy"}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "shape_layout": "HC"}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "remove_threshold": 1.0}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "remove_threshold": -0.1}, **_ERR),
    _op([BOX], {"angle": 1.0, "input_shape": [100]}, **_ERR),
    _op([BOX], {"angle": 1.0, "input_shape": [3, 1], "shape_layout": "CHW"}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "keep_size": True, "size": [5, 6]}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "size": [5, 6, 3]}, **_ERR),
    _op([BOX], {"angle": 1.0, **SHAPE, "size": 5.0}, **_ERR),
    _op(
        [arrays([[[0.1, 0.2, 0.3, 0.4]]], np.float64, label="f64")],
        SHAPE | {"angle": 1.0},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[1.0, 2.0]] * 4, F, "angle2")],
        {"angle": In(1), **SHAPE},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([30.0] * 4, np.float64, "angle_f64")],
        {"angle": In(1), **SHAPE},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([30] * 4, np.int32, "angle_i32")],
        {"angle": In(1), **SHAPE},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[100.0, 200.0]] * 4, F, "shape_f32")],
        {"angle": 1.0, "input_shape": In(1)},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[100]] * 4, np.int32, "shape1")],
        {"angle": 1.0, "input_shape": In(1)},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[50, 60]] * 4, np.float64, "size_f64")],
        {"angle": 1.0, **SHAPE, "size": In(1)},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[50, 60]] * 4, np.uint8, "size_u8")],
        {"angle": 1.0, **SHAPE, "size": In(1)},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[50, 60, 3]] * 4, F, "size3")],
        {"angle": 1.0, **SHAPE, "size": In(1)},
        **_ERR,
    ),
    _op(
        [BOX, per_sample([[50, 60]] * 4, F, "size")],
        {"angle": 1.0, **SHAPE, "size": In(1), "keep_size": True},
        **_ERR,
    ),
    _op(
        [ONE, arrays([[1, 2]], np.int64, label="lab_i64")],
        {"angle": 1.0, **SHAPE},
        **_ERR,
    ),
    _op(
        [ONE, arrays([[[1, 2]]], np.int32, label="lab_1x2")],
        {"angle": 1.0, **SHAPE},
        **_ERR,
    ),
    _op(
        [ONE, arrays([[1, 2, 3]], np.int32, label="lab3")],
        {"angle": 1.0, **SHAPE},
        **_ERR,
    ),
)

# DALI 2.4 only logs the shape error and goes on with garbage: ours raises
for bad, label, shape in ((np.zeros((2, 5)), "2x5", "2 x 5"), (np.zeros(8), "flat8", "8")):
    add(
        _op(
            [arrays([bad], F, label=label)],
            {"angle": 1.0, **SHAPE},
            dali_skip="DALI 2.4 logs the error and returns garbage",
            expect_error=True,
            expect_error_text=f"First input to fn.bbox_rotate should be [N,4], got {shape}",
        )
    )
