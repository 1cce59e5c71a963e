"""Rows of `operators.py`: the segmentation operators (random_object_bbox, random_mask_pixel,
select_masks) and the ROI windows (roi_random_crop, random_crop_generator), each on a batch of
realistic size: 16 label maps of 256x256 with a dozen objects of 4 classes."""

from __future__ import annotations

import numpy as np
from operators import Bench

_B = 16


def _label_maps() -> np.ndarray:
    """16 uint8 label maps, 256x256, 12 rectangles of classes 1-4 each (some overlapping)."""
    rng = np.random.default_rng(7)
    maps = np.zeros((_B, 256, 256), np.uint8)
    for m in maps:
        for _ in range(12):
            y, x = rng.integers(0, 220, 2)
            h, w = rng.integers(8, 60, 2)
            m[y : y + h, x : x + w] = rng.integers(1, 5)
    return maps


def _masks() -> list[list[np.ndarray]]:
    return [list(_label_maps())]


def _volumes() -> list[list[np.ndarray]]:
    """4 int32 volumes of 64x128x128 with 8 boxes of classes 1-2."""
    rng = np.random.default_rng(8)
    vols = []
    for _ in range(4):
        v = np.zeros((64, 128, 128), np.int32)
        for _ in range(8):
            lo = rng.integers(0, 48, 3)
            ext = rng.integers(4, 30, 3)
            v[tuple(slice(a, a + e) for a, e in zip(lo, ext))] = rng.integers(1, 3)
        vols.append(v)
    return [vols]


def _polygons() -> list[list[np.ndarray]]:
    """16 samples of 30 masks (polygons of 10-40 vertices) and the ids of 6 to keep."""
    rng = np.random.default_rng(9)
    ids, polys, verts = [], [], []
    for _ in range(_B):
        sizes = rng.integers(10, 41, 30)
        ends = np.cumsum(sizes)
        polys.append(np.stack([np.arange(30), ends - sizes, ends], axis=1).astype(np.int32))
        verts.append(rng.random((int(ends[-1]), 2)).astype(np.float32))
        ids.append(rng.permutation(30)[:6].astype(np.int32))
    return [ids, polys, verts]


def _shapes() -> list[list[np.ndarray]]:
    """16 image shapes (HWC), ImageNet-like."""
    rng = np.random.default_rng(10)
    return [[np.array([h, w, 3], np.int64) for h, w in rng.integers(300, 600, (_B, 2))]]


BENCHES = [
    Bench(
        "segmentation.random_object_bbox 16x256x256 u8",
        lambda fn, t, m: tuple(fn.segmentation.random_object_bbox(m, output_class=True)),
        _masks,
    ),
    Bench(
        "segmentation.random_object_bbox(ignore_class, k_largest=3) 16x256x256 u8",
        lambda fn, t, m: tuple(
            fn.segmentation.random_object_bbox(m, ignore_class=True, k_largest=3)
        ),
        _masks,
    ),
    Bench(
        "segmentation.random_object_bbox 4x64x128x128 i32 (3-D)",
        lambda fn, t, m: fn.segmentation.random_object_bbox(m, format="box"),
        _volumes,
    ),
    Bench(
        "segmentation.random_mask_pixel(foreground=1) 16x256x256 u8",
        lambda fn, t, m: fn.segmentation.random_mask_pixel(m, foreground=1),
        _masks,
    ),
    Bench(
        "segmentation.random_mask_pixel(value=2) 16x256x256 u8",
        lambda fn, t, m: fn.segmentation.random_mask_pixel(m, foreground=1, value=2),
        _masks,
    ),
    Bench(
        "segmentation.select_masks 16x(30 polygons, 6 kept)",
        lambda fn, t, i, p, v: tuple(fn.segmentation.select_masks(i, p, v, reindex_masks=True)),
        _polygons,
    ),
    Bench(
        "segmentation.roi_random_crop(input) 16x256x256",
        lambda fn, t, m: fn.roi_random_crop(
            m, crop_shape=[128, 128], roi_start=[40, 60], roi_shape=[30, 150]
        ),
        _masks,
    ),
    Bench(
        "segmentation.random_crop_generator 16 shapes",
        lambda fn, t, s: tuple(fn.random_crop_generator(s)),
        _shapes,
    ),
]
