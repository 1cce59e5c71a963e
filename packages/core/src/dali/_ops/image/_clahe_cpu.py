"""The CPU arithmetic of `fn.clahe`: OpenCV's CLAHE and its 8-bit sRGB <-> L*a*b* conversions.

DALI 2.4's CPU backend (``dali/operators/image/clahe/clahe_cpu.cc``) calls OpenCV: a 1-channel
image goes through ``cv::CLAHE::apply``; a 3-channel one either through ``cvtColor(RGB2Lab)``,
CLAHE on the L* plane and ``cvtColor(Lab2RGB)`` (``luma_only``), or through CLAHE on each
channel. `clahe_sample` makes those same calls when OpenCV is installed; without it, the numpy
functions here give the same bytes:

* `clahe_plane` is ``CLAHE_Impl::apply`` for 8-bit images (``modules/imgproc/src/clahe.cpp``):
  an image whose sides are not multiples of the grid is extended at the bottom and right by
  ``tiles - side % tiles`` rows/columns (a whole extra tile row when only the other side is
  uneven) with ``BORDER_REFLECT_101``; each tile's 256-bin histogram is clipped at
  ``max(int(clip · area / 256), 1)`` (no clipping for ``clip <= 0``), the excess spread evenly
  and its remainder one by one every ``256 // remainder`` bins; the table is
  ``rint(cdf · (255 / area))`` in float32; every pixel blends the tables of its four nearest
  tile centres with float32 weights, evaluated in OpenCV's order, and rounds half to even.
* `rgb_to_lab` / `lab_to_rgb` are OpenCV's bit-exact integer paths (``RGB2Lab_b`` and
  ``Lab2RGBinteger`` in ``modules/imgproc/src/color_lab.cpp``): fixed-point matrices and
  tables built once from OpenCV's constants. OpenCV builds the tables with its software float
  type, whose cube root at 324/2040 is one ulp below the correctly rounded one; that entry is
  an exact tie after scaling and rounds down there. With that, both conversions equal OpenCV's
  on all 2^24 colours (checked against ``cv2.cvtColor``).

Example:
    >>> import numpy as np
    >>> img = np.tile(np.arange(0, 64, 4, dtype=np.uint8), (16, 1))
    >>> clahe_plane(img, 2, 2, 2.0)[0].tolist()  # as cv2.createCLAHE(2.0, (2, 2)).apply(img)
    [8, 16, 24, 32, 40, 45, 49, 52, 54, 57, 61, 66, 72, 80, 88, 96]
"""

from __future__ import annotations

import functools
import struct
from typing import Any

import numpy as np

__all__ = ["clahe_plane", "clahe_sample", "lab_to_rgb", "rgb_to_lab"]

BINS = 256


def clip_limit_of(clip_limit: float, area: int) -> int:
    """OpenCV's absolute clip limit for a tile of ``area`` pixels (0: no clipping).

    The relative limit is DALI's float32 argument, widened to double as OpenCV takes it.
    """
    c = float(np.float32(clip_limit))
    if c <= 0.0:
        return 0
    return max(int(c * area / BINS), 1)


def _reflect_101(idx: np.ndarray, n: int) -> np.ndarray:
    """OpenCV's ``borderInterpolate`` with ``BORDER_REFLECT_101``, for any distance out."""
    if n == 1:
        return np.zeros_like(idx)
    period = 2 * (n - 1)
    m = np.mod(idx, period)
    return np.where(m < n, m, period - m)


def clip_histograms(hist: np.ndarray, limit: int) -> np.ndarray:
    """Clip ``(T, 256)`` tile histograms at ``limit`` and hand the excess out as OpenCV does
    (evenly, then one by one every ``256 // remainder`` bins from bin 0)."""
    if limit <= 0:
        return hist
    clipped = np.maximum(hist - limit, 0).sum(axis=1)
    hist = np.minimum(hist, limit)
    batch = clipped // BINS
    residual = clipped - batch * BINS
    step = np.maximum(BINS // np.maximum(residual, 1), 1)
    i = np.arange(BINS)[None, :]
    extra = (
        (residual[:, None] > 0)
        & (i % step[:, None] == 0)
        & (i // step[:, None] < residual[:, None])
    )
    return hist + batch[:, None] + extra


def clahe_plane(plane: np.ndarray, tiles_x: int, tiles_y: int, clip_limit: float) -> np.ndarray:
    """OpenCV's CLAHE of one ``(H, W)`` uint8 plane (``cv2.createCLAHE(...).apply``).

    Args:
        plane: The plane, ``H, W >= 1``.
        tiles_x: Tiles along the width (>= 1).
        tiles_y: Tiles along the height (>= 1).
        clip_limit: The relative clip limit (``<= 0``: no clipping).

    Returns:
        A new ``(H, W)`` uint8 array.
    """
    h, w = plane.shape
    if w % tiles_x == 0 and h % tiles_y == 0:
        ext = plane
    else:  # OpenCV extends by `tiles - side % tiles` on both sides, even an even one
        rows = _reflect_101(np.arange(h + tiles_y - h % tiles_y), h)
        cols = _reflect_101(np.arange(w + tiles_x - w % tiles_x), w)
        ext = plane[rows[:, None], cols[None, :]]
    th, tw = ext.shape[0] // tiles_y, ext.shape[1] // tiles_x
    area = th * tw
    ntiles = tiles_x * tiles_y
    tiles = ext[: th * tiles_y, : tw * tiles_x].reshape(tiles_y, th, tiles_x, tw)
    keys = tiles.transpose(0, 2, 1, 3).reshape(ntiles, area).astype(np.int64)
    keys += (np.arange(ntiles, dtype=np.int64) * BINS)[:, None]
    hist = np.bincount(keys.ravel(), minlength=ntiles * BINS).reshape(ntiles, BINS)
    hist = clip_histograms(hist, clip_limit_of(clip_limit, area))
    scale = np.float32(BINS - 1) / np.float32(area)
    lut = np.rint(np.cumsum(hist, axis=1).astype(np.float32) * scale)
    luts = lut.clip(0, 255).reshape(tiles_y, tiles_x, BINS)  # float32 values 0..255

    def axis(n: int, size: int, tiles: int) -> tuple[Any, Any, Any, Any]:
        f = np.arange(n, dtype=np.float32) * (np.float32(1) / np.float32(size)) - np.float32(0.5)
        t1 = np.floor(f).astype(np.int64)
        a = f - t1.astype(np.float32)
        return np.maximum(t1, 0), np.minimum(t1 + 1, tiles - 1), a, np.float32(1) - a

    x1, x2, xa, xa1 = axis(w, tw, tiles_x)
    y1, y2, ya, ya1 = axis(h, th, tiles_y)
    v = plane.astype(np.intp)
    top, bottom = luts[y1], luts[y2]  # (H, tiles_x, 256)
    rows = np.arange(h)[:, None]
    res = (top[rows, x1, v] * xa1 + top[rows, x2, v] * xa) * ya1[:, None]
    res += (bottom[rows, x1, v] * xa1 + bottom[rows, x2, v] * xa) * ya[:, None]
    return np.rint(res).clip(0, 255).astype(np.uint8)


# -- OpenCV's 8-bit sRGB <-> L*a*b* -----------------------------------------------------------


def _raw(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", bits))[0])


#: OpenCV's sRGB -> XYZ and XYZ -> sRGB matrices (D65) and white point, bit for bit.
SRGB_TO_XYZ = np.array(
    [_raw(b) for b in (0x3FDA65A14488C60D, 0x3FD6E297396D0918, 0x3FC71819D2391D58,
                       0x3FCB38CDA6E75FF6, 0x3FE6E297396D0918, 0x3FB279AAE6C8F755,
                       0x3F93CC4AC6CDAF4B, 0x3FBE836EB4E98138, 0x3FEE68427418D691)]
).reshape(3, 3)  # fmt: skip
XYZ_TO_SRGB = np.array(
    [_raw(b) for b in (0x4009EC804102FF8F, 0xBFF8982A9930BE0E, 0xBFDFE7FF583A53B9,
                       0xBFEF042528AE74F3, 0x3FFE040F23897204, 0x3FA546D3F9E7B80B,
                       0x3FAC7DE5082CF52C, 0xBFCA1E14BDFD2631, 0x3FF0EABEF06B3786)]
).reshape(3, 3)  # fmt: skip
D65 = np.array([_raw(0x3FEE6A22B3892EE8), 1.0, _raw(0x3FF16B8950763A19)])

_LAB_SHIFT = 12  # fixed-point bits of the matrices
_LAB_SHIFT2 = 15  # _LAB_SHIFT + 3 (the gamma table's extra bits)
_LUT_BASE = 1 << 14
_MIN_AB = -8145
#: The one cube-root table entry where OpenCV's software float differs (see the module doc).
_CBRT_TIE_DOWN = 324


def _descale(x: np.ndarray, n: int) -> np.ndarray:
    return (x + (1 << (n - 1))) >> n


def _gamma(x: np.ndarray) -> np.ndarray:
    """sRGB -> linear of float32 values, in double, rounded to float32 (OpenCV's applyGamma)."""
    xd = x.astype(np.float64)
    lin = ((xd + 11.0 / 200.0) / (1.0 + 11.0 / 200.0)) ** (12.0 / 5.0)
    return np.where(xd <= 809.0 / 20000.0, xd / (323.0 / 25.0), lin).astype(np.float32)


def _inv_gamma(x: np.ndarray) -> np.ndarray:
    """linear -> sRGB (OpenCV's applyInvGamma)."""
    xd = x.astype(np.float64)
    srgb = xd ** (1.0 / (12.0 / 5.0)) * (1.0 + 11.0 / 200.0) - 11.0 / 200.0
    return np.where(xd <= 7827.0 / 2500000.0, xd * (323.0 / 25.0), srgb).astype(np.float32)


@functools.cache
def _lab_tables() -> dict[str, np.ndarray]:
    """OpenCV's ``initLabTabs`` tables and fixed-point matrices (int64)."""
    f32 = np.float32
    t: dict[str, np.ndarray] = {}
    x = np.arange(256, dtype=f32) / f32(255)
    t["gamma"] = np.rint(f32(255 * 8) * _gamma(x)).astype(np.int64)
    xi = f32(1) / f32(4096) * np.arange(4096, dtype=f32)
    t["inv_gamma"] = np.rint(f32(255) * _inv_gamma(xi)).astype(np.int64)
    lthresh, lscale, lbias = f32(216) / f32(24389), f32(841) / f32(108), f32(16) / f32(116)
    xc = f32(1) / (f32(255) * f32(8)) * np.arange(3 * 256 // 2 * 8, dtype=f32)
    linear = (xc.astype(np.float64) * float(lscale) + float(lbias)).astype(f32)  # fused
    cube = np.cbrt(xc.astype(np.float64)).astype(f32)
    cbrt = f32(1 << _LAB_SHIFT2) * np.where(xc < lthresh, linear, cube)
    t["cbrt"] = np.rint(cbrt).astype(np.int64)
    t["cbrt"][_CBRT_TIE_DOWN] = np.floor(cbrt[_CBRT_TIE_DOWN])
    # L -> (y, f(y)) in LUT_BASE units
    ys, ify = np.zeros(256, np.int64), np.zeros(256, np.int64)
    for i in range(256):
        if i <= 20:
            ys[i] = np.rint(f32(i * _LUT_BASE * 20 * 9) / f32(17 * 29 * 29 * 29))
            ify[i] = np.rint(f32(_LUT_BASE) * (f32(16) / f32(116) + f32(i * 5) / f32(3 * 17 * 29)))
        else:
            fy = f32(i * 100 * _LUT_BASE) / f32(255 * 116) + f32(16 * _LUT_BASE) / f32(116)
            ify[i] = np.rint(fy)
            ys[i] = np.rint(fy * fy * fy / f32(_LUT_BASE * _LUT_BASE))
    t["y"], t["ify"] = ys, ify
    ab = np.arange(_MIN_AB, _LUT_BASE * 9 // 4 + _MIN_AB, dtype=np.int64)
    num = ab * 108
    low = np.sign(num) * (np.abs(num) // 841) - (_LUT_BASE * 16 // 116 * 108 // 841)  # C's /
    t["ab_to_xz"] = np.where(ab <= 3390, low, ab * ab // _LUT_BASE * ab // _LUT_BASE)
    # the matrices: RGB -> XYZ / white, and (XYZ -> RGB) * white, rows in output order R, G, B
    t["to_lab"] = np.rint(4096.0 * SRGB_TO_XYZ / D65[:, None]).astype(np.int64)
    t["to_rgb"] = np.rint(4096.0 * XYZ_TO_SRGB * D65[None, :]).astype(np.int64)
    return t


def rgb_to_lab(img: np.ndarray) -> np.ndarray:
    """``cv2.cvtColor(img, cv2.COLOR_RGB2Lab)`` of a ``(..., 3)`` uint8 array, bit for bit."""
    t = _lab_tables()
    rgb = t["gamma"][img]  # (..., 3) int64
    xyz = _descale(rgb @ t["to_lab"].T, _LAB_SHIFT)
    f = t["cbrt"][xyz]
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    lscale = (116 * 255 + 50) // 100
    lshift = -((16 * 255 * (1 << _LAB_SHIFT2) + 50) // 100)
    mid = 128 * (1 << _LAB_SHIFT2)
    lab = np.stack(
        [
            _descale(lscale * fy + lshift, _LAB_SHIFT2),
            _descale(500 * (fx - fy) + mid, _LAB_SHIFT2),
            _descale(200 * (fy - fz) + mid, _LAB_SHIFT2),
        ],
        axis=-1,
    )
    return lab.clip(0, 255).astype(np.uint8)


def lab_to_rgb(lab: np.ndarray) -> np.ndarray:
    """``cv2.cvtColor(lab, cv2.COLOR_Lab2RGB)`` of a ``(..., 3)`` uint8 array, bit for bit."""
    t = _lab_tables()
    big_l = lab[..., 0].astype(np.int64)
    aa = lab[..., 1].astype(np.int64)
    bb = lab[..., 2].astype(np.int64)
    ify = t["ify"][big_l]
    adiv = ((5 * aa * 53687 + (1 << 7)) >> 13) - 128 * _LUT_BASE // 500
    bdiv = ((bb * 41943 + (1 << 4)) >> 9) - 128 * _LUT_BASE // 200 + 1
    xyz = np.stack(
        [
            t["ab_to_xz"][ify + adiv - _MIN_AB],
            t["y"][big_l],
            t["ab_to_xz"][ify - bdiv - _MIN_AB],
        ],
        axis=-1,
    )
    shift = _LAB_SHIFT + 2  # + (base_shift 14 - inv_gamma_shift 12)
    rgb = _descale(xyz @ t["to_rgb"].T, shift).clip(0, 4095)
    return t["inv_gamma"][rgb].clip(0, 255).astype(np.uint8)


# -- one sample -------------------------------------------------------------------------------


def _cv2_sample(
    cv2: Any, x: np.ndarray, dst: np.ndarray, tiles: tuple[int, int], clip: float, luma: bool
) -> None:
    clahe = cv2.createCLAHE(clipLimit=clip, tileGridSize=tiles)  # not thread-safe: one per call
    if x.shape[2] == 1:
        clahe.apply(x[:, :, 0], dst=dst[:, :, 0])
    elif luma:  # as DALI: Lab, CLAHE on L*, back to RGB
        lab = cv2.cvtColor(x, cv2.COLOR_RGB2Lab)
        cv2.insertChannel(clahe.apply(cv2.extractChannel(lab, 0)), lab, 0)
        cv2.cvtColor(lab, cv2.COLOR_Lab2RGB, dst=dst)
    else:
        for c in range(3):
            cv2.insertChannel(clahe.apply(cv2.extractChannel(x, c)), dst, c)


def clahe_sample(
    x: np.ndarray,
    dst: np.ndarray,
    tiles_x: int,
    tiles_y: int,
    clip_limit: float,
    luma_only: bool,
    cv2: Any,
) -> np.ndarray:
    """CLAHE of one ``(H, W, 1 | 3)`` uint8 sample into ``dst``, as DALI 2.4's CPU backend.

    Args:
        x: The sample (RGB order for 3 channels).
        dst: The output, C-contiguous, ``x``'s shape.
        tiles_x, tiles_y: The tile grid.
        clip_limit: The relative clip limit.
        luma_only: 3 channels: equalize L* only (else every channel on its own).
        cv2: OpenCV, or None for the numpy implementation (the same bytes).

    Returns:
        ``dst``.
    """
    if x.size == 0:
        return dst
    clip = float(np.float32(clip_limit))  # DALI's argument is a float
    if cv2 is not None:
        _cv2_sample(cv2, np.ascontiguousarray(x), dst, (tiles_x, tiles_y), clip, luma_only)
        return dst
    if x.shape[2] == 1:
        dst[:, :, 0] = clahe_plane(x[:, :, 0], tiles_x, tiles_y, clip)
    elif luma_only:
        lab = rgb_to_lab(x)
        lab[:, :, 0] = clahe_plane(lab[:, :, 0], tiles_x, tiles_y, clip)
        dst[...] = lab_to_rgb(lab)
    else:
        for c in range(3):
            dst[:, :, c] = clahe_plane(x[:, :, c], tiles_x, tiles_y, clip)
    return dst
