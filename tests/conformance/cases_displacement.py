"""Conformance cases of the displacement filters (`fn.water`, `fn.sphere`, `fn.jitter`) and of
`fn.experimental.remap` against real DALI 2.4 (see README.md).

`water` and `sphere` are bit-exact with DALI's CPU backend: the same float32 positions (glibc's
``sinf``/``cosf`` for the waves), DALI's sampler (NN at ``floor(p)``, LINEAR around ``p − 0.5``
in its operation order), fill values converted as C++ casts them, rounding half away from zero.
Cases: photos (a ragged batch), uniform noise, float images, one and five channels, inputs
without a layout, both interpolations, fill values that wrap (300 → 44, −1 → 255), wave
arguments, per-sample and constant masks, positions beyond int32, empty and 1×1 images, and
the error cases (other layouts, types, CUBIC).

`jitter` and `experimental.remap` exist only in DALI's GPU build, which cannot run here: their
cases are `dali_skip` cases with references computed independently. Remap's follow DALI's
documentation and DALI's own test (OpenCV's ``cv2.remap`` with ``BORDER_CONSTANT`` 0 and the
``"center"`` origin; ``"corner"`` is the maps shifted by −0.5): nearest neighbour through
``cv2.remap`` on random maps (no ties), linear through a float64 numpy bilinear on maps of a
1/32 grid (exact weights), rounded half away from zero. Jitter is random (our counter-based
streams, not DALI's Philox): its exact cases are those with one outcome (``nDegree=1``, masked
samples, a flat image); its distribution is tested in the unit tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import FIMGS, IMGS, NOISE, SMALL, VIDEO, Context, Ext, In, Ty, add, op, per_sample

_GPU_ONLY = "DALI 2.4 has this operator only on the GPU; its CPU build cannot run it"
_MASK0 = (
    "DALI 2.4 reads `mask` only when it is given per sample and displaces every sample for a "
    "constant mask=0; `dali` leaves them unchanged, as documented"
)
_R = np.random.default_rng(21)


def _batch(arrays: list[np.ndarray], layout: str | None, label: str) -> Ext:
    return Ext(lambda c: [arrays], layout, label)


C1 = _batch([_R.integers(0, 256, (33, 47, 1), dtype=np.uint8)], "HWC", "c1")
C5 = _batch([_R.integers(0, 256, (19, 23, 5), dtype=np.uint8)], "HWC", "c5")
NOLAYOUT = _batch([_R.integers(0, 256, (25, 30, 3), dtype=np.uint8)] * 2, None, "nolayout")
TINY = _batch([np.full((1, 1, 3), 9, np.uint8), _R.integers(0, 256, (2, 7, 3), np.uint8)],
              "HWC", "tiny")  # fmt: skip
EMPTY = _batch([np.zeros((0, 5, 3), np.uint8), _R.integers(0, 256, (6, 4, 3), np.uint8)],
               "HWC", "empty")  # fmt: skip
BIGF = _batch([(_R.random((300, 257, 3)) * 100).astype(np.float32)], "HWC", "f32_300x257")
CHW = _batch([_R.integers(0, 256, (3, 20, 30), dtype=np.uint8)], "CHW", "chw")
HW = _batch([_R.integers(0, 256, (20, 30), dtype=np.uint8)], "HW", "hw")
I16 = _batch([_R.integers(-300, 300, (20, 30, 3)).astype(np.int16)], "HWC", "i16")
F64 = _batch([_R.random((20, 30, 3))], "HWC", "f64")
MASK = per_sample([0, 1, 1, 0], np.int32, "mask[0,1,1,0]")

_LIN = {"interp_type": Ty("INTERP_LINEAR")}
_WAVE = {"ampl_x": 3.3, "ampl_y": -7.1, "freq_x": 0.3, "freq_y": 0.11, "phase_x": 1.2,
         "phase_y": -0.4}  # fmt: skip
_BIG_WAVE = {"ampl_x": 40.0, "ampl_y": 25.0, "freq_x": 0.05, "freq_y": 0.02}
_FAR = {"ampl_x": 1e10, "ampl_y": 0.0, "freq_x": 0.0, "phase_x": float(np.float32(np.pi / 2)),
        "fill_value": 50.0}  # fmt: skip

# -- water and sphere: exact against DALI's CPU -------------------------------------------------
for _op in ("water", "sphere"):
    for _src in (IMGS, NOISE, FIMGS, SMALL, C1, C5, NOLAYOUT, TINY, EMPTY):
        add(op(_op, [_src]))
        add(op(_op, [_src], _LIN))
    add(op(_op, [BIGF], _LIN))
    for _fill in (77.7, 300.0, -1.0, 255.9):
        add(op(_op, [IMGS], {"fill_value": _fill}))
        add(op(_op, [NOISE], {"fill_value": _fill, **_LIN}))
    add(op(_op, [FIMGS], {"fill_value": -2.5, **_LIN}))
    add(op(_op, [IMGS, MASK], {"mask": In(1)}))
    add(op(_op, [IMGS, MASK], {"mask": In(1), **_LIN}))
    add(op(_op, [IMGS], {"mask": 0}, dali_skip=_MASK0, reference=lambda c: c.batches(IMGS)[0]))
    for _bad in (CHW, HW, VIDEO, I16, F64):
        add(op(_op, [_bad], expect_error=True))
    add(op(_op, [IMGS], {"interp_type": Ty("INTERP_CUBIC")}, expect_error=True))
for _kw in (_WAVE, _BIG_WAVE):
    for _src in (IMGS, NOISE, FIMGS):
        add(op("water", [_src], _kw))
        add(op("water", [_src], {**_kw, **_LIN}))
add(op("water", [FIMGS], _FAR))
add(op("water", [FIMGS], {**_FAR, **_LIN}))
add(op("water", [IMGS], {"ampl_x": 0.0, "ampl_y": 0.0, **_LIN}))

# -- jitter: GPU-only in DALI; the cases with one outcome -----------------------------------------
_J = "jitter"
add(op(_J, [IMGS], {"nDegree": 1}, dali_skip=_GPU_ONLY, reference=lambda c: c.batches(IMGS)[0]))
add(op(_J, [FIMGS], {"nDegree": 1, **_LIN}, dali_skip=_GPU_ONLY,
       reference=lambda c: c.batches(FIMGS)[0]))  # fmt: skip
add(op(_J, [IMGS, per_sample([0] * 4, np.int32, "mask0")], {"mask": In(1), "nDegree": 7},
       dali_skip=_GPU_ONLY, reference=lambda c: c.batches(IMGS)[0]))  # fmt: skip
_FLAT = [np.full((31, 29, 3), 77, np.uint8), np.full((8, 50, 1), 3, np.uint8)]
add(op(_J, [_batch(_FLAT, "HWC", "flat")], {"nDegree": 9}, dali_skip=_GPU_ONLY,
       reference=lambda c: _FLAT))  # fmt: skip
for _bad in (CHW, VIDEO, I16):
    add(op(_J, [_bad], dali_skip=_GPU_ONLY, expect_error=True,
           expect_error_text="allowed layouts" if _bad is not I16 else "Unexpected input type"))  # fmt: skip
add(op(_J, [IMGS], {"interp_type": Ty("INTERP_CUBIC")}, dali_skip=_GPU_ONLY, expect_error=True,
       expect_error_text="only NN and LINEAR"))  # fmt: skip

# -- remap: GPU-only in DALI; independent references ------------------------------------------------


def _images(c: Context, spec: Ext) -> list[np.ndarray]:
    return c.batches(spec)[0]


def _maps(shapes: list[tuple[int, ...]], grid: bool, seed: int) -> tuple[list[Any], list[Any]]:
    """Per image, random ``(mapx, mapy)`` reaching 3 pixels beyond each side; on a 1/32 grid
    with ``grid`` (exact bilinear weights), else random floats (no nearest-neighbour ties)."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for s in shapes:
        h, w = s[-3], s[-2]
        mx = rng.uniform(-3, w + 3, (h, w))
        my = rng.uniform(-3, h + 3, (h, w))
        if grid:
            mx, my = np.round(mx * 32) / 32, np.round(my * 32) / 32
        mx, my = mx.astype(np.float32), my.astype(np.float32)
        if not grid:  # float32 rounding makes a few ties (halves for "center", integers
            # for "corner", whose maps DALI shifts by -0.5): NPP's tie rule is its own
            for m in (mx, my):
                frac = m - np.floor(m)
                tie = (frac == np.float32(0.5)) | (frac == 0)
                m[tie] = np.nextafter(m[tie], np.float32(np.inf))
        xs.append(mx)
        ys.append(my)
    return xs, ys


def _cv_nn(img: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    import cv2

    out = cv2.remap(img, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=0)  # fmt: skip
    return out.reshape(img.shape)


def _bilinear(img: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    """Bilinear in float64 (pixel centres on integers, zeros outside), rounded half away from
    zero and saturated for integer types."""
    h, w, _ = img.shape
    x0, y0 = np.floor(mx).astype(int), np.floor(my).astype(int)
    qx, qy = (mx - x0)[..., None], (my - y0)[..., None]

    def tap(y: Any, x: Any) -> Any:
        ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        return np.where(ok[..., None], img[y.clip(0, h - 1), x.clip(0, w - 1)], 0).astype(float)

    top = tap(y0, x0) * (1 - qx) + tap(y0, x0 + 1) * qx
    bottom = tap(y0 + 1, x0) * (1 - qx) + tap(y0 + 1, x0 + 1) * qx
    v = top * (1 - qy) + bottom * qy
    if img.dtype.kind == "f":
        return v.astype(img.dtype)
    info = np.iinfo(img.dtype)
    return np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), info.min, info.max).astype(img.dtype)


def _typed(dtype: Any, scale: float, offset: float, label: str) -> Ext:
    rng = np.random.default_rng(31)
    data = [(rng.random(s) * scale + offset).astype(dtype) for s in ((23, 31, 3), (17, 12, 1))]
    return Ext(lambda c: [data], "HWC", label)


# values below 2**14: with 1/32-grid weights every float32 product and sum is exact
U16 = _typed(np.uint16, 16000, 0, "u16")
S16 = _typed(np.int16, 16000, -8000, "i16")
F32 = _typed(np.float32, 10, -5, "f32")
GRAY = Ext(lambda c: [[c.tree_image(i)[..., :1].copy() for i in (0, 6)]], "HWC", "gray")
_SHAPES = {  # the shapes of each source's samples (for the maps), from the context
    "imgs": lambda c: [x.shape for x in _images(c, IMGS)],
    "u16": lambda c: [x.shape for x in _images(c, U16)],
    "i16": lambda c: [x.shape for x in _images(c, S16)],
    "f32": lambda c: [x.shape for x in _images(c, F32)],
    "gray": lambda c: [x.shape for x in _images(c, GRAY)],
    "video": lambda c: [x.shape for x in _images(c, VIDEO)],
    "c5": lambda c: [x.shape for x in _images(c, C5)],
}


def _map_spec(label: str, grid: bool, axis: int, seed: int, frames: int = 0) -> Ext:
    """``mapx`` (axis 0) or ``mapy`` (axis 1) for the samples of source ``label``; with
    ``frames``, one map per frame (``FHW``)."""

    def make(c: Context) -> list[list[np.ndarray]]:
        shapes = _SHAPES[label](c)
        if frames:
            per = [_maps([s] * frames, grid, seed + k) for k, s in enumerate(shapes)]
            return [[np.stack(p[axis]) for p in per]]
        return [_maps(shapes, grid, seed)[axis]]

    return Ext(make, "FHW" if frames else None, f"map{'xy'[axis]}_{label}{'_grid' if grid else ''}")


def _remap_ref(src: Ext, label: str, grid: bool, seed: int, interp: str, origin: str,
               frames: int = 0) -> Any:  # fmt: skip
    shift = 0.5 if origin == "corner" else 0.0

    def ref(c: Context) -> list[np.ndarray]:
        images = _images(c, src)
        shapes = _SHAPES[label](c)
        if frames:
            per = [_maps([s] * frames, grid, seed + k) for k, s in enumerate(shapes)]
            maps = [(np.stack(p[0]), np.stack(p[1])) for p in per]
        else:
            xs, ys = _maps(shapes, grid, seed)
            maps = [(x[None], y[None]) for x, y in zip(xs, ys)]
        out = []
        for img, (mx, my) in zip(images, maps):
            seq = img if img.ndim == 4 else img[None]
            f = _cv_nn if interp == "INTERP_NN" else _bilinear
            res = [
                f(x, (mx[min(k, len(mx) - 1)] - shift).astype(np.float32),
                  (my[min(k, len(my) - 1)] - shift).astype(np.float32))
                for k, x in enumerate(seq)
            ]  # fmt: skip
            out.append(np.stack(res) if img.ndim == 4 else res[0])
        return out

    return ref


_RM = "experimental.remap"


def _remap_case(src: Ext, label: str, interp: str, origin: str, frames: int = 0) -> None:
    grid = interp != "INTERP_NN"
    seed = 5 + len(label)
    mx, my = (_map_spec(label, grid, a, seed, frames) for a in (0, 1))
    add(op(_RM, [src, mx, my], {"interp": Ty(interp), "pixel_origin": origin},
           dali_skip=_GPU_ONLY,
           reference=_remap_ref(src, label, grid, seed, interp, origin, frames)))  # fmt: skip


for _interp in ("INTERP_NN", "INTERP_LINEAR"):
    for _origin in ("corner", "center"):
        _remap_case(IMGS, "imgs", _interp, _origin)
        _remap_case(U16, "u16", _interp, _origin)
        _remap_case(S16, "i16", _interp, _origin)
        _remap_case(GRAY, "gray", _interp, _origin)
        _remap_case(VIDEO, "video", _interp, _origin)
        _remap_case(VIDEO, "video", _interp, _origin, frames=3)
    _remap_case(F32, "f32", "INTERP_NN", "center")
_MX = _map_spec("imgs", False, 0, 1)
_MY = _map_spec("imgs", False, 1, 1)
add(op(_RM, [IMGS, _MX, _MY], {"pixel_origin": "middle"}, dali_skip=_GPU_ONLY, expect_error=True,
       expect_error_text="Undefined pixel_origin"))  # fmt: skip
add(op(_RM, [C5, _map_spec("c5", False, 0, 1), _map_spec("c5", False, 1, 1)], {},
       dali_skip=_GPU_ONLY, expect_error=True, expect_error_text="Incorrect number of channels"))  # fmt: skip
_MX16, _MY16 = _map_spec("u16", False, 0, 1), _map_spec("u16", False, 1, 1)
add(op(_RM, [_typed(np.int32, 100, 0, "i32"), _MX16, _MY16], {}, dali_skip=_GPU_ONLY,
       expect_error=True, expect_error_text="Unsupported input type: int32"))  # fmt: skip
add(op(_RM, [NOISE, _MX16, _MY16], {}, dali_skip=_GPU_ONLY, expect_error=True,
       expect_error_text="Output and maps shapes do not match"))  # fmt: skip
