"""``readers.coco``'s build (parsing the annotation file) side by side with NVIDIA DALI.

A COCO-sized annotation file is generated (`synthetic_annotations`: by default 1/10 of COCO
2017 train, 11,829 images and 86,000 annotations, polygons of 10-40 points and a share of RLE
crowd masks, as in the real file) and each library builds a pipeline that reads it with
boxes, labels and the polygons (``polygon_masks=True``), ``skip_empty=True`` and
``ratio=True``: the usual detection training set-up. What is timed is ``Pipeline.build()``,
which parses the file (the images are not read at build: empty files stand in for them),
median of ``--repeats``, the variants alternating. dali's build is timed three ways:

* **first build**: the cache of parsed annotations empty, so the file is parsed and the cache
  entry written (what the first build of a set costs);
* **cached build**: the same file again, read from that entry (every later build: each
  training run, each process of a multi-process job);
* **cache off**: ``DALI_COCO_CACHE=0``, the parse alone.

The cache lives in the benchmark's temporary folder (``DALI_CACHE_DIR``), not in ``~/.cache``.
Wall seconds and the CPU seconds of the process are both shown: on a shared machine the CPU
seconds vary less.

Run: ``python benchmarks/coco_build.py [--images 11829] [--annotations 86000] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import dali
import numpy as np
from _common import CpuSample, load_real_dali, measure_cpu, print_columns


def synthetic_annotations(path: Path, images: int, annotations: int, seed: int = 0) -> None:
    """Write a COCO instances file with ``images`` images and ``annotations`` objects."""
    rng = np.random.default_rng(seed)
    imgs = []
    for i in range(images):
        h, w = (int(v) for v in rng.integers(240, 640, size=2))
        imgs.append({"id": i + 1, "file_name": f"{i + 1:012d}.jpg", "height": h, "width": w})
    cats = [{"id": c, "name": f"class{c}", "supercategory": "thing"} for c in range(1, 91)]
    anns = []
    owner = rng.integers(0, images, size=annotations)
    for a in range(annotations):
        img = imgs[int(owner[a])]
        h, w = img["height"], img["width"]
        x, y = float(rng.uniform(0, w - 20)), float(rng.uniform(0, h - 20))
        bw, bh = float(rng.uniform(4, w - x)), float(rng.uniform(4, h - y))
        crowd = rng.random() < 0.01
        if crowd:
            runs = rng.integers(1, 50, size=int(rng.integers(20, 80))).tolist()
            seg: Any = {"size": [h, w], "counts": runs}
        else:
            k = int(rng.integers(10, 41))
            t = np.sort(rng.uniform(0, 2 * np.pi, size=k))
            px = x + bw / 2 + np.cos(t) * bw / 2
            py = y + bh / 2 + np.sin(t) * bh / 2
            seg = [np.round(np.stack([px, py], 1).reshape(-1), 2).tolist()]
        anns.append(
            {
                "id": a + 1,
                "image_id": img["id"],
                "category_id": int(rng.integers(1, 91)),
                "bbox": [round(x, 2), round(y, 2), round(bw, 2), round(bh, 2)],
                "area": round(bw * bh * 0.7, 2),
                "iscrowd": int(crowd),
                "segmentation": seg,
            }
        )
    path.write_text(json.dumps({"images": imgs, "annotations": anns, "categories": cats}))
    for img in imgs:
        (path.parent / img["file_name"]).touch()


def build_once(lib: ModuleType, annotations: Path, root: Path) -> CpuSample:
    fn = lib.fn

    @lib.pipeline_def(batch_size=32, num_threads=1, device_id=None)
    def pipe() -> Any:
        jpegs, boxes, labels, polys, verts = fn.readers.coco(
            file_root=str(root),
            annotations_file=str(annotations),
            polygon_masks=True,
            skip_empty=True,
            ratio=True,
            name="Reader",
        )
        return jpegs, boxes, labels, polys, verts

    p = pipe()
    with measure_cpu() as m:
        p.build()
    if hasattr(p, "close"):
        p.close()
    return m[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=11829)
    parser.add_argument("--annotations", type=int, default=86000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="coco-build-"))
    path = work / "instances.json"
    synthetic_annotations(path, args.images, args.annotations)
    size = path.stat().st_size / 2**20
    cache = work / "cache"
    os.environ["DALI_CACHE_DIR"] = str(cache)

    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    def cache_off() -> None:
        os.environ["DALI_COCO_CACHE"] = "0"

    # (name, library, what to set before the build)
    variants: list[tuple[str, ModuleType, Callable[[], None]]] = [
        ("dali, first build", dali, empty_cache),
        ("dali, cached build", dali, lambda: None),  # the first build's entry
        ("dali, cache off", dali, cache_off),
    ]
    real = load_real_dali()
    if real is not None:
        variants.append(("NVIDIA DALI", real, lambda: None))
    samples: dict[str, list[CpuSample]] = {name: [] for name, _, _ in variants}
    for _ in range(args.repeats):
        for name, lib, prepare in variants:
            prepare()
            try:
                samples[name].append(build_once(lib, path, work))
            finally:
                os.environ.pop("DALI_COCO_CACHE", None)
    wall = {name: statistics.median(s.wall for s in v) for name, v in samples.items()}
    rows = [
        [
            name,
            f"{wall[name]:.3f}",
            f"{statistics.median(s.cpu for s in v):.3f}",
            " ".join(f"{s.wall:.2f}" for s in v),
        ]
        for name, v in samples.items()
    ]
    if real is not None:
        for row in rows:
            row.append(f"{wall['NVIDIA DALI'] / wall[row[0]]:.2f}x")
    print_columns(
        f"readers.coco build: {args.images} images, {args.annotations} annotations "
        f"({size:.0f} MB), median of {args.repeats}",
        ["build", "seconds", "CPU s", "each", "speed vs DALI"][: 4 + (real is not None)],
        rows,
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
