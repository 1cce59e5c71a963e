"""Conformance cases of `fn.readers.coco` against real DALI 2.4 (see README.md).

The files (the ``coco`` folder) are `dali._testing.coco.make_coco`'s set (12 photo-like JPEGs,
unsorted non-consecutive category ids, shuffled image ids, polygons, RLE crowds and strings,
an image without annotations, tiny boxes) and ``edge.json``, a hand-written annotations file
over the same images for DALI's corner cases: a repeated category id, an unknown category (label 0), a repeated file name, integer boxes, a negative width,
an image whose smallest label has no mask (DALI then leaves its whole pixelwise mask at 0), one
label with both an RLE and polygons (the polygons win), two RLEs of one label (the last wins),
overlapping labels reaching the end of the last column (where DALI keeps the older label), an
RLE with an empty run in the middle (DALI's run-by-run merge), polygons reaching outside the
image, and an annotation of an image the file does not list.

Compared: the samples and their order, every output exactly (images, boxes, labels, polygons,
vertices, pixelwise masks, image ids), layouts, dtypes, ``source_info`` (the images' only),
``reader_meta`` and ``epoch_size`` (sharding, padding); shuffled readers by their invariants;
the preprocessed-annotation files byte for byte (a `driver` saves and reloads them with each
library); and that both libraries raise on the error cases.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from cases import GENERATORS, Case, Iters, Value, _short, add, epoch_problems, random_checks

N_IMAGES = 12  # of the generated set


def _edge_document(main: dict[str, Any]) -> dict[str, Any]:
    """The corner-case annotations over the generated images (module docstring)."""
    from dali._ops.readers.coco.masks import rle_encode, rle_to_string

    by_name = {im["file_name"]: im for im in main["images"]}
    names = sorted(by_name)
    images, anns = [], []

    def image(k: int, image_id: int) -> tuple[str, int, int]:
        im = by_name[names[k]]
        images.append(
            {
                "id": image_id,
                "file_name": im["file_name"],
                "width": im["width"],
                "height": im["height"],
                "extra": {"ignored": True},
            }
        )
        return im["file_name"], im["height"], im["width"]

    def ann(image_id: int, cat: int, box: list[Any], seg: Any = None, **kw: Any) -> None:
        a = {"id": len(anns) + 1, "image_id": image_id, "category_id": cat, "bbox": box, **kw}
        if seg is not None:
            a["segmentation"] = seg
        anns.append(a)

    def rect(x0: float, y0: float, x1: float, y1: float) -> list[float]:
        return [x0, y0, x1, y0, x1, y1, x0, y1]

    # 40: the smallest label (1: category 5) has no mask -> DALI's whole mask is 0
    _, h, w = image(0, 40)
    ann(40, 5, [1, 1, 4, 4], [], iscrowd=0)
    ann(40, 2, [2.5, 3.5, 10, 8], [rect(2.5, 3.5, 12.5, 11.5)], iscrowd=0)
    # 7: an RLE and then polygons on label 2 (the polygons win), two RLEs on label 4 (the last
    # wins: the right half), label 2 at the bottom right under label 4 (the end of the last
    # column keeps label 2), a negative width (dropped)
    _, h, w = image(1, 7)
    quarter = np.zeros((h, w), dtype=bool)
    quarter[: h // 2, : w // 2] = True
    ann(
        7,
        2,
        [0, 0, w / 2, h / 2],
        {"size": [h, w], "counts": rle_encode(quarter).tolist()},
        iscrowd=1,
    )
    ann(7, 2, [w - 9, h - 7, 10, 8], [rect(w - 9, h - 7, w + 1, h + 1)])
    band = np.zeros((h, w), dtype=bool)
    band[:, 2:5] = True
    ann(7, 9, [2, 0, 3, h], {"size": [h, w], "counts": rle_to_string(rle_encode(band))}, iscrowd=0)
    half = np.zeros((h, w), dtype=bool)
    half[:, w // 2 :] = True
    ann(7, 9, [w / 2, 0, w / 2, h], {"size": [h, w], "counts": rle_to_string(rle_encode(half))})
    ann(7, 5, [5, 5, -2, 4], [rect(5, 5, 3, 9)])
    # 13: an RLE with an empty run in the middle (DALI's run-by-run merge), integer boxes, an
    # unknown category (label 0) and a polygon reaching outside the image
    _, h, w = image(2, 13)
    n = h * w
    counts = [5, 0, 7, h * 2, 11, n - (5 + 7 + h * 2 + 11)]
    ann(13, 9, [0, 0, 3, 3], {"size": [h, w], "counts": counts}, iscrowd=1)
    ann(13, 5, [1, 2, 5, 6], [rect(1, 2, 6, 8), rect(w - 6, h - 6, w - 2, h - 2)])
    ann(13, 2, [4, 1, 7, 7], [[4, 1, 11, 1, 11, 8]], iscrowd=1)
    ann(13, 77, [3, 3, 6, 6], [[3.2, 3.1, 9.7, 4.4, 5.5, 9.9]])
    ann(13, 2, [w / 2, 0, w / 2, h], [rect(w / 2, -3.7, w + 2.2, h + 1.6)])
    # 2 and 90: one file name twice (both samples get the later id's objects); 90 has none
    image(3, 2)
    ann(2, 5, [1, 1, 3, 3], [rect(1, 1, 4, 4)])
    image(3, 90)
    ann(90, 2, [2, 2, 5, 5], [rect(2, 2, 7, 7)])
    # 61: no annotations; 3: a tiny box and an ordinary one
    image(4, 61)
    image(5, 3)
    ann(3, 9, [1.0, 1.0, 0.05, 2.0], [rect(1, 1, 1.05, 3)])
    ann(3, 5, [2.25, 1.75, 6.5, 4.125], [rect(2.25, 1.75, 8.75, 5.875)])
    ann(12345, 5, [1, 1, 2, 2], [rect(1, 1, 3, 3)])  # an image the file does not list
    return {
        "info": {"what": "corner cases"},
        "images": images,
        "annotations": anns,
        "categories": [{"id": 5}, {"id": 2, "name": "x"}, {"id": 5}, {"id": 9}],
    }


def _polygons_document(main: dict[str, Any]) -> dict[str, Any]:
    """60 random polygons, one image entry each (image sizes are the JSON's, the file is one
    of the set's): corners inside and outside the image, integer, half and odd coordinates,
    repeated vertices, some objects of two polygons."""
    rng = np.random.default_rng(11)
    name = min(im["file_name"] for im in main["images"])
    images, anns = [], []
    for i in range(60):
        h, w = int(rng.integers(5, 60)), int(rng.integers(5, 60))
        images.append({"id": i + 1, "file_name": name, "height": h, "width": w})
        k = int(rng.integers(1, 9))
        side = max(h, w)
        pts = [
            rng.uniform(-5, side + 5, size=2 * k),
            np.round(rng.uniform(0, side, size=2 * k), 1),
            rng.integers(-2, side + 2, size=2 * k).astype(float),
            np.round(rng.uniform(0, side, size=2 * k) * 2) / 2,
        ][i % 4]
        if i % 7 == 3 and k >= 2:
            pts[2:4] = pts[0:2]  # a repeated vertex: a zero-length edge
        segs = [pts.tolist()]
        if i % 5 == 0:
            segs.append(rng.uniform(0, side, size=8).tolist())
        anns.append(
            {
                "id": i + 1,
                "image_id": i + 1,
                "category_id": 1 + i % 3,
                "bbox": [0, 0, 1, 1],
                "segmentation": segs,
            }
        )
    cats = [{"id": 1}, {"id": 2}, {"id": 3}]
    return {"images": images, "annotations": anns, "categories": cats}


def _generate(folder: Path) -> None:
    from dali._testing.coco import make_coco

    data = make_coco(folder, n_images=N_IMAGES)
    main = json.loads(Path(data.annotations_file).read_text())
    (folder / "edge.json").write_text(json.dumps(_edge_document(main)))
    (folder / "polygons.json").write_text(json.dumps(_polygons_document(main)))


GENERATORS["coco"] = _generate

COCO = Value(lambda c: c.folder("coco"), "coco")


def _coco(kw: dict[str, Any], annotations: str) -> Callable[..., Any]:
    def graph(fn: Any, types: Any, root: str) -> Any:
        args = dict(kw)
        args.setdefault("file_root", str(Path(root) / "images"))
        if annotations:
            args.setdefault("annotations_file", str(Path(root) / annotations))
        out = fn.readers.coco(**args)
        return tuple(out)

    return graph


def coco_case(
    kw: dict[str, Any],
    *,
    annotations: str = "annotations/instances.json",
    batch_size: int = 4,
    iters: int = 4,
    suffix: str = "",
    **opts: Any,
) -> Case:
    where = "" if annotations == "annotations/instances.json" else f"[{Path(annotations).stem}]"
    name = f"readers.coco{where}(" + ", ".join(f"{k}={_short(v)}" for k, v in kw.items())
    name += f") b{batch_size}{suffix}"
    opts.setdefault("source_info", (0,))
    return Case(
        name=name,
        graph=_coco(kw, annotations),
        inputs=(COCO,),
        batch_size=batch_size,
        iters=iters,
        **opts,
    )


EDGE = "edge.json"

# -- outputs and order ------------------------------------------------------------------------
add(
    coco_case({"name": "Reader"}, iters=4, meta="Reader"),
    coco_case(
        {"polygon_masks": True, "image_ids": True},
        iters=1,
        source_info=(0, 1, 2, 3, 4, 5),
        suffix=" [source_info of every output]",
    ),
    coco_case(
        {"pixelwise_masks": True}, iters=1, source_info=(0, 1, 2, 3), suffix=" [source_info]"
    ),
    coco_case({"ltrb": True}, batch_size=5, iters=3),
    coco_case({"ratio": True}, batch_size=5, iters=3),
    coco_case({"ltrb": True, "ratio": True, "image_ids": True}, batch_size=6, iters=2),
    coco_case({"skip_empty": True, "name": "Reader"}, batch_size=3, iters=5, meta="Reader"),
    coco_case({"size_threshold": 0.0, "skip_empty": True}, batch_size=4, iters=3),
    coco_case({"size_threshold": 6.5}, batch_size=4, iters=3),
    coco_case({"avoid_class_remapping": True}, batch_size=4, iters=3),
    coco_case({"include_iscrowd": False, "image_ids": True}, batch_size=4, iters=3),
    coco_case({"polygon_masks": True, "image_ids": True}, batch_size=4, iters=3),
    coco_case({"polygon_masks": True, "ratio": True, "ltrb": True}, batch_size=4, iters=3),
    coco_case({"masks": True}, batch_size=4, iters=3, suffix=" [deprecated, legacy indices]"),
    coco_case({"save_img_ids": True}, batch_size=4, iters=1, suffix=" [deprecated alias]"),
    coco_case({"pixelwise_masks": True, "image_ids": True}, batch_size=4, iters=3),
    coco_case({"pixelwise_masks": True, "size_threshold": 0.0}, batch_size=6, iters=2),
    coco_case({"pixelwise_masks": True, "ratio": True}, batch_size=6, iters=2),
    coco_case(
        {
            "images": ["000000000007.jpg", "000000000003.jpg", "nope.jpg", "000000000007.jpg"],
            "image_ids": True,
            "name": "Reader",
        },
        batch_size=2,
        iters=3,
        meta="Reader",
    ),
    coco_case({"images": []}, batch_size=5, iters=3, suffix=" [all of them]"),
    coco_case(
        {"dont_use_mmap": True, "read_ahead": True, "lazy_init": True, "prefetch_queue_depth": 2},
        batch_size=7,
        iters=2,
    ),
)
# the corner cases of edge.json
for kw in (
    {"image_ids": True, "name": "Reader"},
    {"image_ids": True, "skip_empty": True, "ltrb": True, "ratio": True},
    {"avoid_class_remapping": True, "include_iscrowd": False, "size_threshold": 0.0},
    {"polygon_masks": True, "image_ids": True},
    {"polygon_masks": True, "ratio": True},
    {"pixelwise_masks": True, "image_ids": True},
    {"pixelwise_masks": True, "image_ids": True, "ratio": True},
    {"pixelwise_masks": True, "avoid_class_remapping": True, "include_iscrowd": False},
):
    add(coco_case(kw, annotations=EDGE, batch_size=3, iters=3, meta=kw.get("name")))

# the rasterisation of random polygons (pixelwise masks), and their vertices
add(
    coco_case(
        {"pixelwise_masks": True, "image_ids": True},
        annotations="polygons.json",
        batch_size=20,
        iters=3,
    ),
    coco_case(
        {"polygon_masks": True, "ratio": True}, annotations="polygons.json", batch_size=20, iters=1
    ),
)

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 4), (2, 1, 3), (3, 2, 4), (5, 4, 2)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                coco_case(
                    {
                        "num_shards": shards,
                        "shard_id": shard_id,
                        "pad_last_batch": pad,
                        "stick_to_shard": stick,
                        "skip_empty": True,
                        "name": "Reader",
                    },
                    batch_size=batch,
                    iters=6,
                    meta="Reader",
                )
            )


# -- shuffled readers: orders differ by design; compare invariants -----------------------------


def _ids_of(iters: Iters) -> list[int]:
    return [int(s.ravel()[0]) for it in iters for s in it[-1].samples]


def _boxes_by_id(iters: Iters) -> dict[int, bytes]:
    return {
        int(i.ravel()[0]): b.tobytes()
        for it in iters
        for b, i in zip(it[1].samples, it[-1].samples)
    }


def _shuffled_check(epoch: int) -> Callable[[Iters, Iters], list[str]]:
    """Every epoch (``epoch`` samples) a permutation, a shuffle buffer's too; the same boxes
    behind each image id."""

    def predicate(iters: Iters) -> list[str]:
        return epoch_problems(_ids_of(iters), epoch)

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = random_checks(predicate)(ours, theirs)
        o, t = _boxes_by_id(ours), _boxes_by_id(theirs)
        if epoch == N_IMAGES and set(o) != set(t):
            problems.append(f"image sets differ: dali {sorted(o)}, DALI {sorted(t)}")
        for k in set(o) & set(t):
            if o[k] != t[k]:
                problems.append(f"image id {k}: different boxes")
        return problems

    return check


add(
    coco_case(
        {"shuffle_after_epoch": True, "image_ids": True},
        batch_size=4,
        iters=6,
        check=_shuffled_check(N_IMAGES),
    ),
    coco_case(
        {"random_shuffle": True, "initial_fill": 5, "image_ids": True},
        batch_size=4,
        iters=6,
        check=_shuffled_check(N_IMAGES),
    ),
)

# -- errors both libraries raise ---------------------------------------------------------------
for kw, ann_file in (
    ({"file_root": "/nonexistent/dali-coco"}, ""),
    ({}, "annotations/nope.json"),
    ({"images": ["nope.jpg"]}, "annotations/instances.json"),
    ({"skip_cached_images": True}, "annotations/instances.json"),
    ({"polygon_masks": True, "pixelwise_masks": True}, "annotations/instances.json"),
    ({"save_preprocessed_annotations": True}, "annotations/instances.json"),
    ({"save_preprocessed_annotations": False}, "annotations/instances.json"),
    ({"save_preprocessed_annotations_dir": "/tmp"}, "annotations/instances.json"),
    (
        {
            "save_preprocessed_annotations": True,
            "save_preprocessed_annotations_dir": "/nonexistent/dali-coco",
        },
        "annotations/instances.json",
    ),
    ({"preprocessed_annotations": "/nonexistent/dali-coco"}, ""),
    ({"num_shards": 3, "shard_id": 3}, "annotations/instances.json"),
    ({"shuffle_after_epoch": True, "random_shuffle": True}, "annotations/instances.json"),
    ({}, "images/000000000000.jpg"),  # not JSON
):
    add(coco_case(kw, annotations=ann_file, iters=1, expect_error=True))
add(
    Case(
        name="readers.coco() without annotations_file",
        graph=lambda fn, types, root: tuple(fn.readers.coco(file_root=str(Path(root) / "images"))),
        inputs=(COCO,),
        batch_size=2,
        expect_error=True,
    ),
    Case(
        name="readers.coco() without file_root",
        graph=lambda fn, types, root: tuple(
            fn.readers.coco(annotations_file=str(Path(root) / "annotations/instances.json"))
        ),
        inputs=(COCO,),
        batch_size=2,
        expect_error=True,
    ),
)


# -- preprocessed annotations: saved with each library, compared byte for byte, read back -----


def _preprocessed(kw: dict[str, Any], *, alias: bool = False) -> Callable[..., dict[str, Any]]:
    """A driver: make the set, save its preprocessed annotations (``kw`` chooses the tables),
    report the files' bytes, then read the folder back and hand the outputs over."""

    def driver(lib: Any, keep: Callable[[Any], None]) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="dali-coco-conf-") as name:
            return _save_and_load(lib, keep, Path(name), kw, alias)

    return driver


for kw in (
    {},
    {"ratio": True, "ltrb": True, "skip_empty": True, "image_ids": True},
    {"polygon_masks": True, "image_ids": True},
    {"pixelwise_masks": True},
):
    add(
        Case(
            name=f"readers.coco preprocessed annotations {kw}",
            graph=None,
            driver=_preprocessed(kw),
        )
    )
add(
    Case(
        name="readers.coco preprocessed annotations (deprecated dump_meta_files, meta_files_path)",
        graph=None,
        driver=_preprocessed({"polygon_masks": True}, alias=True),
    )
)


def _save_and_load(
    lib: Any, keep: Callable[[Any], None], tmp: Path, kw: dict[str, Any], alias: bool
) -> dict[str, Any]:
    from dali._testing.coco import make_coco

    data = make_coco(tmp / "set", n_images=N_IMAGES)
    (tmp / "pre").mkdir()
    save = (
        {"dump_meta_files": True, "dump_meta_files_path": str(tmp / "pre")}
        if alias
        else {
            "save_preprocessed_annotations": True,
            "save_preprocessed_annotations_dir": str(tmp / "pre"),
        }
    )
    pipe = lib.Pipeline(batch_size=4, num_threads=1, device_id=None)
    with pipe:
        out = lib.fn.readers.coco(
            file_root=data.file_root, annotations_file=data.annotations_file, **save, **kw
        )
        pipe.set_outputs(*out)
    pipe.build()
    keep(pipe.run())
    del pipe
    # each saved file by size and digest (equal digests: byte-identical files)
    files = {
        p.name: (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest()[:16])
        for p in sorted((tmp / "pre").iterdir())
    }
    load_kw = {k: v for k, v in kw.items() if k not in ("ratio", "ltrb", "skip_empty")}
    where = {"meta_files_path" if alias else "preprocessed_annotations": str(tmp / "pre")}
    pipe = lib.Pipeline(batch_size=4, num_threads=1, device_id=None)
    with pipe:
        out = lib.fn.readers.coco(file_root=data.file_root, name="Reader", **where, **load_kw)
        pipe.set_outputs(*out)
    pipe.build()
    for _ in range(4):
        keep(pipe.run())
    meta = {k: int(v) for k, v in sorted(pipe.reader_meta("Reader").items())}
    del pipe
    return {"files": files, "meta": meta}
