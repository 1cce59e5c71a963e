"""Conformance cases of the image filters against real DALI 2.4 (see README.md).

`fn.gaussian_blur` and `fn.laplacian` are bit-exact: DALI's CPU kernels add the window's taps
in order in float32 and ours do the same (every integer and float output compared exactly,
``float_exact``: no ulp allowance needed, though the 4-ulp rule would apply). `fn.filter` runs
OpenCV's ``filter2D`` in both libraries (DALI's CPU operator calls it), so it is exact too.
Cases cover images (HWC, CHW, HW), sequences (FHWC) with per-sample and per-frame arguments,
volumes (DHWC) and 1-D data, every input type DALI's CPU backends take, and the error cases.

The morphology operators (`fn.experimental.median_blur`, `erode`, `dilate`) exist only in
DALI's GPU build (CV-CUDA), which cannot run here: their cases are `dali_skip` cases with
references computed independently with numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import CHW, FIMGS, IMGS, NOISE, VIDEO, Case, Ext, In, Ty, add, op, per_sample


def _rand(
    shapes: list[tuple[int, ...]], seed: int, label: str, layout: str | None, dtype: Any
) -> Ext:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        data = [(rng.random(s) * 100 - 20).astype(dt) for s in shapes]
    else:
        info = np.iinfo(dt)
        lo, hi = max(int(info.min), -(1 << 40)), min(int(info.max), 1 << 40)
        data = [rng.integers(lo, hi, s, endpoint=True).astype(dt) for s in shapes]
    return Ext(lambda c: [data], layout, label)


_HWC_SHAPES = [(21, 17, 3), (9, 30, 3), (2, 5, 3)]
TYPED = {
    np.dtype(t).name: _rand(_HWC_SHAPES, 3 + k, f"hwc_{np.dtype(t).name}", "HWC", t)
    for k, t in enumerate(
        (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
         np.float16, np.float32, np.float64)
    )
}  # fmt: skip
VOL = _rand([(6, 9, 11, 2), (4, 7, 5, 2)], 20, "vol_dhwc", "DHWC", np.uint8)
VOL_F = _rand([(6, 9, 11), (4, 7, 5)], 21, "vol_dhw_f32", "DHW", np.float32)
HW = _rand([(13, 19), (25, 8)], 22, "hw_u8", "HW", np.uint8)
PLAIN2 = _rand([(13, 19), (25, 8)], 23, "plain2d_f32", None, np.float32)
LINE = _rand([(40,), (7,)], 24, "line_f32", None, np.float32)
TINY = _rand([(1, 3, 3), (2, 1, 3)], 25, "tiny_u8", "HWC", np.uint8)
CFHW = _rand([(3, 2, 10, 12)], 26, "cfhw_u8", "CFHW", np.uint8)
BAD_LAYOUT = _rand([(5, 6, 3)], 27, "hcw", "HCW", np.uint8)
FOUR_D = _rand([(3, 4, 5, 6)], 28, "plain4d", None, np.uint8)
VIDEO_SIGMAS = Ext(lambda c: [[np.array([1.0, 2.5, 0.5], np.float32)]], "F", "per_frame_sigma")

# -- gaussian_blur --------------------------------------------------------------------------
G = "gaussian_blur"
for _name, _ext in TYPED.items():
    add(op(G, [_ext], {"sigma": 1.3}))
add(op(G, [TYPED["uint8"]], {"sigma": 1.3, "dtype": Ty("FLOAT")}))
add(op(G, [TYPED["int16"]], {"window_size": 5, "dtype": Ty("FLOAT")}))
add(op(G, [IMGS], {"sigma": 2.0}))
add(op(G, [NOISE], {"sigma": 0.7}))
add(op(G, [NOISE], {"window_size": 7}))
add(op(G, [NOISE], {"window_size": 9, "sigma": 3.0}))
add(op(G, [NOISE], {"sigma": [0.5, 3.0]}))
add(op(G, [NOISE], {"window_size": [3, 11]}))
add(op(G, [NOISE], {"window_size": [1, 5], "sigma": [0.0, 1.0]}))
add(op(G, [FIMGS], {"sigma": 1.5}))
add(op(G, [CHW], {"sigma": 1.0}))
add(op(G, [HW], {"sigma": 4.0}))
add(op(G, [PLAIN2], {"sigma": [1.0, 0.6]}))
add(op(G, [LINE], {"sigma": 2.2}))
add(op(G, [TINY], {"sigma": 3.0}))  # windows much wider than the sample
add(op(G, [VOL], {"sigma": 1.0}))
add(op(G, [VOL], {"sigma": [0.5, 1.0, 2.0]}))
add(op(G, [VOL_F], {"window_size": [3, 5, 7]}))
add(op(G, [VIDEO], {"sigma": 1.2}))
add(op(G, [CFHW], {"sigma": 1.0}))
add(op(G, [IMGS, per_sample([0.5, 1.0, 2.0, 3.0])], {"sigma": In(1)}))
add(
    op(
        G,
        [IMGS, per_sample([[0.5, 1.0], [1.0, 0.5], [2.0, 1.0], [3.0, 3.0]])],
        {"sigma": In(1)},
        name="gaussian_blur(imgs; sigma=<per-sample, per-axis>)",
    )
)
add(op(G, [IMGS, per_sample([3, 5, 7, 9], np.int32)], {"window_size": In(1)}))
add(
    Case(
        "gaussian_blur(video; sigma=per_frame)",
        lambda fn, types, v, s: fn.gaussian_blur(v, sigma=fn.per_frame(s)),
        (VIDEO, VIDEO_SIGMAS),
    )
)
add(op(G, [NOISE], {}, expect_error=True))  # neither sigma nor window_size
add(op(G, [NOISE], {"sigma": -1.0}, expect_error=True))
add(op(G, [NOISE], {"window_size": -3}, expect_error=True))
add(op(G, [NOISE], {"window_size": 4}, expect_error=True))
add(op(G, [NOISE], {"sigma": [1.0, 2.0, 3.0]}, expect_error=True))
add(op(G, [NOISE], {"sigma": 1.0, "dtype": Ty("INT32")}, expect_error=True))
add(op(G, [BAD_LAYOUT], {"sigma": 1.0}, expect_error=True))
add(op(G, [FOUR_D], {"sigma": 1.0}, expect_error=True))

# -- laplacian --------------------------------------------------------------------------------
L = "laplacian"
for _name, _ext in TYPED.items():
    if _name != "float64":
        add(op(L, [_ext], {}))
add(op(L, [TYPED["float64"]], {}, expect_error=True))
add(op(L, [TYPED["uint8"]], {"dtype": Ty("FLOAT")}))
add(op(L, [TYPED["int32"]], {"window_size": 5, "dtype": Ty("FLOAT")}))
add(op(L, [NOISE], {"window_size": 5}))
add(op(L, [NOISE], {"window_size": 7, "smoothing_size": 1}))
add(op(L, [NOISE], {"window_size": [5, 3], "smoothing_size": [3, 1]}))
add(op(L, [NOISE], {"window_size": [3, 9], "smoothing_size": [5, 7]}))
add(op(L, [NOISE], {"window_size": 5, "normalized_kernel": True}))
add(op(L, [NOISE], {"window_size": 3, "scale": [0.3, 0.7]}))
add(op(L, [NOISE], {"window_size": 31}))
add(op(L, [IMGS], {"window_size": 5, "normalized_kernel": True, "dtype": Ty("FLOAT")}))
add(op(L, [FIMGS], {"window_size": 3}))
add(op(L, [CHW], {"window_size": 3, "smoothing_size": 5}))
add(op(L, [HW], {}))
add(op(L, [PLAIN2], {"scale": 0.5}))
add(op(L, [LINE], {"window_size": 7}))
add(op(L, [TINY], {"window_size": 5}))
add(op(L, [VOL], {}))
add(op(L, [VOL], {"window_size": [3, 5, 3], "smoothing_size": [1, 3, 5], "dtype": Ty("FLOAT")}))
add(op(L, [VOL_F], {"window_size": 5, "normalized_kernel": True}))
add(op(L, [VIDEO], {"window_size": 5, "dtype": Ty("FLOAT")}))
add(op(L, [IMGS, per_sample([3, 5, 7, 9], np.int32)], {"window_size": In(1)}))
add(op(L, [IMGS, per_sample([0.5, 1.0, 2.0, 0.1])], {"scale": In(1)}))
add(
    op(
        L,
        [IMGS, per_sample([[3, 5], [5, 3], [7, 7], [3, 3]], np.int32)],
        {"window_size": In(1), "normalized_kernel": True, "dtype": Ty("FLOAT")},
    )
)
add(op(L, [NOISE], {"window_size": 1}, expect_error=True))
add(op(L, [NOISE], {"window_size": 4}, expect_error=True))
add(op(L, [NOISE], {"window_size": 33}, expect_error=True))
add(op(L, [NOISE], {"smoothing_size": 2}, expect_error=True))
add(op(L, [NOISE], {"scale": 2.0, "normalized_kernel": True}, expect_error=True))
add(op(L, [NOISE], {"dtype": Ty("INT16")}, expect_error=True))
add(op(L, [BAD_LAYOUT], {}, expect_error=True))

# -- filter -----------------------------------------------------------------------------------
F = "filter"


def _filters(shapes: list[tuple[int, ...]], seed: int, label: str, dtype: Any = np.float32) -> Ext:
    rng = np.random.default_rng(seed)
    data = [(rng.random(s) - 0.3).astype(dtype) for s in shapes]
    return Ext(lambda c: [data], None, label)


K3 = _filters([(3, 3)] * 4, 40, "k3x3")
K_RAGGED = _filters([(3, 5), (1, 7), (4, 2), (5, 5)], 41, "k_ragged")
K_BIG = _filters([(13, 13)] * 4, 42, "k13x13")
K3_2 = _filters([(3, 3)] * 2, 43, "k3x3_2")
K3_3 = _filters([(3, 3)] * 3, 44, "k3x3_3")
K3_1 = _filters([(3, 3)], 45, "k3x3_1")
K3D = _filters([(3, 3, 3)] * 2, 46, "k3x3x3")
K_F64 = _filters([(3, 3)] * 2, 47, "k_f64", np.float64)
K_VIDEO = Ext(
    lambda c: [[(np.random.default_rng(48).random((3, 3, 3)) - 0.3).astype(np.float32)]],
    "FHW",
    "k_per_frame",
)
FILL_U8 = Ext(lambda c: [[np.array(v, np.uint8) for v in (7, 200, 0, 255)]], None, "fill_u8")
FILL_F32 = Ext(lambda c: [[np.array(v, np.float32) for v in (0.5, -2.0, 3.0)]], None, "fill_f32")
FILL_I32 = Ext(lambda c: [[np.array(v, np.int32) for v in (1, 2, 3, 4)]], None, "fill_i32")

for _border in ("reflect_101", "reflect_1001", "wrap", "clamp", "constant"):
    add(op(F, [IMGS, K3], {"border": _border}))
    add(op(F, [IMGS, K_RAGGED], {"border": _border}))
add(op(F, [IMGS, K3, FILL_U8], {"border": "constant"}))
add(op(F, [IMGS, K_RAGGED, FILL_U8], {"border": "constant", "anchor": [0, 1]}))
add(op(F, [IMGS, K_RAGGED], {"anchor": [0, 0]}))
add(
    op(
        F,
        [IMGS, K_RAGGED, per_sample([[2, 4], [0, 3], [3, 1], [1, 1]], np.int32)],
        {"anchor": In(2)},
    )
)
add(op(F, [IMGS, K_BIG]))
add(op(F, [IMGS, K_RAGGED], {"mode": "valid"}))
add(op(F, [IMGS, K3], {"mode": "VALID", "anchor": [0, 0]}))
add(op(F, [IMGS, K3], {"dtype": Ty("FLOAT")}))
add(op(F, [NOISE, K3_2], {"border": "wrap", "dtype": Ty("FLOAT")}))
add(op(F, [TYPED["uint16"], K3_3]))
add(op(F, [TYPED["int16"], K3_3], {"border": "clamp"}))
add(op(F, [TYPED["float32"], K3_3]))
add(op(F, [TYPED["float32"], K3_3, FILL_F32], {"border": "constant"}))
add(op(F, [CHW, K3_2]))
add(op(F, [HW, K3_2], {"border": "reflect_1001"}))
add(op(F, [PLAIN2, K3_2]))
add(op(F, [VIDEO, K3_1]))
add(op(F, [VIDEO, K3_1], {"mode": "valid"}))
add(
    Case(
        "filter(video, k_per_frame)",
        lambda fn, types, v, k: fn.filter(v, fn.per_frame(k)),
        (VIDEO, K_VIDEO),
    )
)
add(op(F, [IMGS, K3], {"border": "mirror"}, expect_error=True))
add(op(F, [IMGS, K3], {"border": "foo"}, expect_error=True))
add(op(F, [IMGS, K3], {"mode": "full"}, expect_error=True))
add(op(F, [IMGS, K3], {"anchor": [3, 0]}, expect_error=True))
add(op(F, [IMGS, K3], {"anchor": [-2, 0]}, expect_error=True))
add(op(F, [IMGS, K3], {"dtype": Ty("INT32")}, expect_error=True))
add(
    op(F, [IMGS, K_BIG], {"mode": "valid"}, expect_error=True)
    if False
    else op(F, [TINY, K3_2], {"mode": "valid"}, expect_error=True)
)
add(op(F, [IMGS, K3, FILL_I32], {"border": "constant"}, expect_error=True))
add(op(F, [TYPED["int8"], K3_3], expect_error=True))
add(op(F, [TYPED["float16"], K3_3], expect_error=True))
add(op(F, [TYPED["int32"], K3_3], expect_error=True))
add(op(F, [VOL, K3D], expect_error=True))  # the CPU filter is 2-D only
add(op(F, [NOISE, K_F64], expect_error=True))
add(op(F, [IMGS, K3D], expect_error=True))  # a 3-D filter for images
add(op(F, [FOUR_D, K3_1], expect_error=True))
add(op(F, [BAD_LAYOUT, K3_1], expect_error=True))

# -- morphology (GPU-only in DALI 2.4: references computed with numpy) ------------------------
_GPU_ONLY = "DALI 2.4 has this operator only on the GPU (CV-CUDA); its CPU build cannot run it"
_MORPH_IMGS = [np.random.default_rng(60).integers(0, 256, (19, 23, 3), dtype=np.uint8)] * 2
MORPH = Ext(lambda c: [_MORPH_IMGS], "HWC", "morph_u8")


def _stack(x: np.ndarray, kh: int, kw: int, top: int, left: int, mode: str, fill: int = 0) -> Any:
    pads = [(top, kh - top - 1), (left, kw - left - 1), (0, 0)]
    kwargs = {"constant_values": fill} if mode == "constant" else {}
    p = np.pad(x, pads, mode=mode, **kwargs)
    h, w = x.shape[:2]
    return np.stack([p[i : i + h, j : j + w] for i in range(kh) for j in range(kw)])


def _median_ref(c: Any) -> list[np.ndarray]:
    return [np.median(_stack(x, 3, 5, 1, 2, "edge"), axis=0).astype(np.uint8) for x in _MORPH_IMGS]


def _erode_ref(c: Any) -> list[np.ndarray]:
    return [_stack(x, 3, 3, 1, 1, "constant", 255).min(axis=0) for x in _MORPH_IMGS]


def _dilate_ref(c: Any) -> list[np.ndarray]:
    return [_stack(x, 3, 5, 0, 1, "edge").max(axis=0) for x in _MORPH_IMGS]


add(
    op(
        "experimental.median_blur",
        [MORPH],
        {"window_size": [5, 3]},
        dali_skip=_GPU_ONLY,
        reference=_median_ref,
    )
)
add(op("experimental.erode", [MORPH], {}, dali_skip=_GPU_ONLY, reference=_erode_ref))
add(
    op(
        "experimental.dilate",
        [MORPH],
        {"mask_size": [5, 3], "anchor": [1, 0], "border_mode": "replicate"},
        dali_skip=_GPU_ONLY,
        reference=_dilate_ref,
    )
)
add(
    op(
        "experimental.median_blur",
        [MORPH],
        {"window_size": 4},
        expect_error=True,
        dali_skip=_GPU_ONLY,
        expect_error_text="odd integer greater than one",
    )
)
