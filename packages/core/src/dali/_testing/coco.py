"""A deterministic COCO-style detection set: photo-like JPEGs with drawn objects and their annotations.

`make_coco` writes ``<root>/images/*.jpg`` and ``<root>/annotations/instances.json`` in the real
COCO format (``images``, ``annotations``, ``categories``, plus ``info`` and ``licenses``). Each
image is a photo-like background (`dali._testing.images.photo`) with objects drawn on it
(rectangles, ellipses, polygons, two-part objects), each in its category's colour, so that the
boxes and masks match what a decoder shows. The file exercises what a COCO reader must get
right:

* category ids that are not 1..N and a ``categories`` list that is not sorted (`CATEGORIES`:
  18, 3, 7, 1, 44), so labels 1..N follow the list's order;
* image ids that follow neither the file names nor the order of the ``images`` list;
* polygon segmentations (some objects in two polygons), RLE segmentations (``iscrowd=1`` with
  a list of counts, as COCO's crowds; some ``iscrowd=0`` with a compressed string);
* an image with no annotation (``EMPTY_IMAGE``), an image whose only object is a tiny box below
  the default ``size_threshold`` (``TINY_IMAGE``), tiny boxes of 1-2 pixels, and an annotation of
  an image id that the ``images`` list lacks (readers ignore it).

Everything is a pure function of ``seed`` and the image index; a manifest records the
parameters, so asking again for the same set returns at once (benchmarks keep theirs in a temp
folder). Large sets (a few hundred 300-500 px images, ``photo_size=(300, 500)``) are written
by several processes.

Example:
    >>> import json, tempfile
    >>> data = make_coco(tempfile.mkdtemp(), n_images=6, photo_size=(40, 60))
    >>> doc = json.load(open(data.annotations_file))
    >>> [c["id"] for c in doc["categories"]], len(doc["images"])
    ([18, 3, 7, 1, 44], 6)
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dali._testing.images import photo

__all__ = ["CATEGORIES", "EMPTY_IMAGE", "TINY_IMAGE", "CocoSet", "make_coco"]

#: ``(id, name, RGB colour)`` in the order of the file's ``categories`` list (not sorted by id).
CATEGORIES = (
    (18, "dog", (230, 40, 40)),
    (3, "car", (40, 200, 60)),
    (7, "train", (40, 80, 240)),
    (1, "person", (240, 220, 30)),
    (44, "bottle", (200, 40, 220)),
)
#: The index (in file-name order) of the image without annotations.
EMPTY_IMAGE = 1
#: The index of the image whose only object is narrower than the default size_threshold (0.1).
TINY_IMAGE = 2

#: Bump when the generated content changes, so cached sets are rewritten.
_VERSION = 1


@dataclass(frozen=True)
class CocoSet:
    """Where `make_coco` wrote a set.

    Attributes:
        root: The set's folder.
        file_root: The images' folder (``readers.coco(file_root=...)``).
        annotations_file: The JSON file (``readers.coco(annotations_file=...)``).
        n_images: Number of images.
    """

    root: str
    file_root: str
    annotations_file: str
    n_images: int


def _round(v: float) -> float:
    return round(float(v), 2)


def _shape(kind: str, cx: float, cy: float, rx: float, ry: float, rng: Any) -> list[list[float]]:
    """The polygon(s) of one object: ``[[x0, y0, x1, y1, ...], ...]`` in pixels."""
    if kind == "rect":
        return [[cx - rx, cy - ry, cx + rx, cy - ry, cx + rx, cy + ry, cx - rx, cy + ry]]
    if kind == "ellipse":
        a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        pts = np.stack([cx + rx * np.cos(a), cy + ry * np.sin(a)], axis=1)
        return [pts.ravel().tolist()]
    if kind == "polygon":
        k = int(rng.integers(3, 8))
        a = np.sort(rng.uniform(0, 2 * np.pi, size=k))
        r = rng.uniform(0.6, 1.0, size=k)
        pts = np.stack([cx + rx * r * np.cos(a), cy + ry * r * np.sin(a)], axis=1)
        return [pts.ravel().tolist()]
    # "split": two rectangles side by side, one object (like an occluded car)
    gap = rx * 0.2
    return [
        [cx - rx, cy - ry, cx - gap, cy - ry, cx - gap, cy + ry, cx - rx, cy + ry],
        [cx + gap, cy - ry * 0.6, cx + rx, cy - ry * 0.6, cx + rx, cy + ry, cx + gap, cy + ry],
    ]


def _image_size(rng: Any, lo: int, hi: int) -> tuple[int, int]:
    short = int(rng.integers(lo, hi + 1))
    aspect = float(rng.choice([4 / 3, 4 / 3, 3 / 2, 1.0, 3 / 4]))
    if aspect >= 1:
        return short, round(short * aspect)
    return round(short / aspect), short


def _objects(i: int, h: int, w: int, rng: Any) -> list[dict[str, Any]]:
    """The objects of image ``i``: category index, polygons, and how the mask is stored."""
    if i == EMPTY_IMAGE:
        return []
    if i == TINY_IMAGE:  # only a box narrower than 0.1 px: empty under the default threshold
        x, y = _round(w * 0.3), _round(h * 0.4)
        return [{"cat": 0, "polys": [[x, y, x + 0.05, y, x + 0.05, y + 3, x, y + 3]]}]
    out = []
    for j in range(int(rng.integers(1, 6))):
        cat = int(rng.integers(0, len(CATEGORIES)))
        kind = ("rect", "ellipse", "polygon", "split")[int(rng.integers(0, 4))]
        if j == 0 and i % 4 == 3:  # a tiny (1-2 px) object
            rx = ry = float(rng.uniform(0.5, 1.0))
            kind = "rect"
        else:
            rx = float(rng.uniform(0.08, 0.3)) * w
            ry = float(rng.uniform(0.08, 0.3)) * h
        cx = float(rng.uniform(rx + 1, max(rx + 1.5, w - rx - 1)))
        cy = float(rng.uniform(ry + 1, max(ry + 1.5, h - ry - 1)))
        polys = [
            [_round(min(max(v, 0.0), lim)) for v, lim in zip(p, [w, h] * (len(p) // 2))]
            for p in _shape(kind, cx, cy, rx, ry, rng)
        ]
        # every fifth object stores its mask as an RLE: a crowd (list of counts) or a string
        rle = None
        if (i + j) % 5 == 4 and rx > 2:
            rle = "crowd" if (i + j) % 2 else "string"
        out.append({"cat": cat, "polys": polys, "rle": rle})
    return out


def _write_images(args: tuple[str, list[int], int, int, int, int]) -> list[dict[str, Any]]:
    """Write the JPEGs of ``indices``; return their image entries and annotations."""
    from PIL import Image, ImageDraw

    from dali._ops.readers.coco.masks import (
        decode,
        rle_encode,
        rle_from_polygon,
        rle_to_string,
    )

    file_root, indices, seed, lo, hi, quality = args
    records = []
    for i in indices:
        rng = np.random.default_rng([seed, i])
        h, w = _image_size(rng, lo, hi)
        canvas = Image.fromarray(photo(h, w, rng, detail=float(rng.uniform(0.5, 1.0))))
        draw = ImageDraw.Draw(canvas)
        anns = []
        for obj in _objects(i, h, w, rng):
            colour = CATEGORIES[obj["cat"]][2]
            for p in obj["polys"]:
                draw.polygon([(p[k], p[k + 1]) for k in range(0, len(p), 2)], fill=colour)
            xs = np.concatenate([p[0::2] for p in obj["polys"]])
            ys = np.concatenate([p[1::2] for p in obj["polys"]])
            box = [_round(xs.min()), _round(ys.min())]
            box += [_round(xs.max() - box[0]), _round(ys.max() - box[1])]
            ann: dict[str, Any] = {"category_id": CATEGORIES[obj["cat"]][0], "bbox": box}
            if obj.get("rle"):
                mask = np.zeros((h, w), dtype=bool)
                for p in obj["polys"]:
                    mask |= decode(rle_from_polygon(np.asarray(p), h, w), h, w)
                counts = rle_encode(mask)
                crowd = obj["rle"] == "crowd"
                ann["segmentation"] = {
                    "size": [h, w],
                    "counts": counts.tolist() if crowd else rle_to_string(counts),
                }
                ann["iscrowd"] = int(crowd)
                ann["area"] = int(mask.sum())
            else:
                ann["segmentation"] = obj["polys"]
                ann["iscrowd"] = 0
                ann["area"] = _round(sum(_polygon_area(p) for p in obj["polys"]))
            anns.append(ann)
        name = f"{i:012d}.jpg"
        tmp = Path(file_root) / (name + ".tmp")
        canvas.save(tmp, "JPEG", quality=quality)
        os.replace(tmp, Path(file_root) / name)  # never leave a half-written file behind
        records.append({"index": i, "file_name": name, "height": h, "width": w, "anns": anns})
    return records


def _polygon_area(p: list[float]) -> float:
    x, y = np.asarray(p[0::2]), np.asarray(p[1::2])
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def make_coco(
    root: str | os.PathLike[str],
    n_images: int = 12,
    seed: int = 0,
    *,
    photo_size: tuple[int, int] = (48, 96),
    quality: int = 90,
    processes: int | None = None,
) -> CocoSet:
    """Write a COCO-style set of ``n_images`` photo-like JPEGs and its annotations.

    Args:
        root: The folder to fill (``images/``, ``annotations/instances.json``).
        n_images: Number of images (at least 3: `EMPTY_IMAGE` and `TINY_IMAGE` are special).
        seed: Seed of the content (image ``i`` depends only on ``seed`` and ``i``).
        photo_size: Range of the images' shorter side in pixels (``(300, 500)``: ImageNet-like).
        quality: JPEG quality.
        processes: Worker processes (default: the CPU count, at most 8, for sets of more than 16
            images; 1 writes inline).

    Returns:
        Where the set is (`CocoSet`).
    """
    if n_images < 3:
        raise ValueError(f"make_coco needs n_images >= 3, got {n_images}")
    root = Path(root)
    file_root = root / "images"
    annotations = root / "annotations" / "instances.json"
    out = CocoSet(str(root), str(file_root), str(annotations), n_images)
    params = {
        "n_images": n_images,
        "seed": seed,
        "photo_size": list(photo_size),
        "quality": quality,
        "version": _VERSION,
    }
    manifest = root / "manifest.json"
    cached = manifest.exists() and annotations.exists()
    if cached and json.loads(manifest.read_text()) == params:
        return out
    file_root.mkdir(parents=True, exist_ok=True)
    annotations.parent.mkdir(parents=True, exist_ok=True)
    lo, hi = photo_size
    if processes is None:
        processes = min(os.cpu_count() or 1, 8) if n_images > 16 else 1
    per = max(1, min(32, n_images // max(1, processes * 4)))
    jobs = [
        (str(file_root), list(range(s, min(s + per, n_images))), seed, lo, hi, quality)
        for s in range(0, n_images, per)
    ]
    if processes <= 1 or len(jobs) <= 1:
        records = [r for job in jobs for r in _write_images(job)]
    else:
        with ProcessPoolExecutor(processes) as pool:
            records = [r for part in pool.map(_write_images, jobs) for r in part]
    annotations.write_text(json.dumps(_document(records, seed)))
    manifest.write_text(json.dumps(params))
    return out


def _document(records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """The COCO JSON of the written images: ids and list order both shuffled."""
    rng = np.random.default_rng([seed, 7777])
    n = len(records)
    ids = rng.choice(np.arange(1, 10 * n + 100), size=n, replace=False).tolist()
    images, anns = [], []
    ann_id = 1
    for r in records:
        image_id = int(ids[r["index"]])
        images.append(
            {
                "id": image_id,
                "file_name": r["file_name"],
                "height": r["height"],
                "width": r["width"],
                "license": 1,
                "date_captured": "2024-06-01 12:00:00",
            }
        )
        for a in r["anns"]:
            anns.append({"id": ann_id, "image_id": image_id, **a})
            ann_id += 1
    # an annotation of an image the list lacks (readers ignore it)
    missing_id = max(ids) + 1
    anns.append(
        {
            "id": ann_id,
            "image_id": missing_id,
            "category_id": CATEGORIES[0][0],
            "bbox": [1.0, 1.0, 5.0, 5.0],
            "segmentation": [[1.0, 1.0, 6.0, 1.0, 6.0, 6.0]],
            "iscrowd": 0,
            "area": 12.5,
        }
    )
    images = [images[k] for k in rng.permutation(n).tolist()]
    anns_order = rng.permutation(len(anns)).tolist()
    return {
        "info": {"description": "dali._testing.coco", "version": "1.0", "year": 2024},
        "licenses": [{"id": 1, "name": "CC0", "url": ""}],
        "images": images,
        "annotations": [anns[k] for k in anns_order],
        "categories": [
            {"id": cid, "name": name, "supercategory": "thing"} for cid, name, _ in CATEGORIES
        ],
    }
