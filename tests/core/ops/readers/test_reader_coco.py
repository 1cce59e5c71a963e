"""`fn.readers.coco` (DALI 2.4's ``readers.COCO``), its annotation parser, masks and saved form.

The dataset is `dali._testing.coco.make_coco`'s; expectations are computed here from its JSON
with the rules DALI documents and shows (the conformance cases compare with DALI itself), and
small hand-written annotation files pin down the pixelwise masks' rules.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import warnings

import dali
import numpy as np
import pytest
from dali import fn, ops
from dali._graph.schema import UNSET, get_schema
from dali._ops.readers.coco import masks
from dali._ops.readers.coco import preprocessed as pre
from dali._ops.readers.coco.annotations import CocoError, CocoOptions, parse_coco
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.coco import CATEGORIES, EMPTY_IMAGE, TINY_IMAGE, make_coco

N = 12  # images of the set


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    return make_coco(tmp_path_factory.mktemp("coco"), n_images=N)


@pytest.fixture(scope="module")
def doc(coco):
    with open(coco.annotations_file) as f:
        return json.load(f)


def _pipeline(coco, batch_size=4, *, seed=7, **kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=None,
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
    )
    kw.setdefault("name", "Reader")
    kw.setdefault("file_root", coco.file_root)
    if "preprocessed_annotations" not in kw and "meta_files_path" not in kw:
        kw.setdefault("annotations_file", coco.annotations_file)
    with pipe:
        out = fn.readers.coco(**kw)
        pipe.set_outputs(*out)
    return pipe


def _samples(pipe, n):
    """The first ``n`` samples: per sample, the tuple of its outputs' arrays and its info."""
    out = []
    while len(out) < n:
        batch = pipe.run()
        for i in range(len(batch[0])):
            out.append((tuple(np.array(o.at(i)) for o in batch), batch[0][i].source_info()))
    return out[:n]


def _build_error(coco, **kw):
    pipe = _pipeline(coco, 2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.coco" in msg
    return msg


def _expected(doc, *, threshold=0.1, ltrb=False, ratio=False, crowd=True, remap=True):
    """``[(file_name, image_id, boxes, labels)]`` in id order, computed from the JSON."""
    label_of = {c["id"]: k + 1 for k, c in enumerate(doc["categories"])}
    out = []
    for im in sorted(doc["images"], key=lambda im: im["id"]):
        boxes, labels = [], []
        for a in doc["annotations"]:
            box = np.asarray(a["bbox"], dtype=np.float32)
            if a["image_id"] != im["id"] or min(box[2], box[3]) < np.float32(threshold):
                continue
            if a.get("iscrowd", 0) and not crowd:
                continue
            if ltrb:
                box[2:] += box[:2]
            if ratio:
                box /= np.asarray([im["width"], im["height"]] * 2, dtype=np.float32)
            boxes.append(box)
            labels.append(label_of[a["category_id"]] if remap else a["category_id"])
        boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
        out.append((im["file_name"], im["id"], boxes, np.asarray(labels, dtype=np.int32)))
    return out


# -- schema -----------------------------------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.coco")
    expected = {
        "file_root": UNSET,
        "annotations_file": UNSET,
        "preprocessed_annotations": UNSET,
        "ltrb": False,
        "ratio": False,
        "skip_empty": False,
        "size_threshold": 0.1,
        "avoid_class_remapping": False,
        "include_iscrowd": True,
        "image_ids": False,
        "images": UNSET,
        "polygon_masks": False,
        "pixelwise_masks": False,
        "save_preprocessed_annotations": False,
        "save_preprocessed_annotations_dir": UNSET,
        "masks": False,
        "save_img_ids": UNSET,
        "dump_meta_files": UNSET,
        "dump_meta_files_path": UNSET,
        "meta_files_path": UNSET,
        "shuffle_after_epoch": False,
        "random_shuffle": False,
        "shard_id": 0,
        "num_shards": 1,
        "pad_last_batch": False,
        "stick_to_shard": False,
        "skip_cached_images": False,
        "seed": -1,
    }
    assert {k: schema.args[k].default for k in expected} == expected
    assert schema.devices == ("cpu",)
    assert not any(a.tensor for a in schema.args.values())
    outputs = schema.outputs_for
    assert outputs({}) == 3
    assert outputs({"polygon_masks": True, "image_ids": True}) == 6
    assert outputs({"masks": True}) == 5
    assert outputs({"pixelwise_masks": True, "save_img_ids": True}) == 5


@pytest.mark.filterwarnings("ignore:ops.COCOReader is a deprecated alias")
def test_ops_class_and_legacy_alias(coco):
    for cls in (ops.readers.COCO, ops.COCOReader):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            reader = cls(file_root=coco.file_root, annotations_file=coco.annotations_file)
            pipe.set_outputs(*reader())
        images, boxes, _ = pipe.run()
        assert len(images) == 2 and boxes.at(0).shape[1:] == (4,)


# -- the generated set ------------------------------------------------------------------------


def test_make_coco_is_deterministic_and_cached(coco, doc, tmp_path):
    again = make_coco(tmp_path / "again", n_images=N)
    with open(again.annotations_file) as f:
        assert json.load(f) == doc
    for name in sorted(os.listdir(coco.file_root)):
        with (
            open(os.path.join(coco.file_root, name), "rb") as a,
            open(os.path.join(again.file_root, name), "rb") as b,
        ):
            assert a.read() == b.read(), name
    stamp = os.stat(again.annotations_file).st_mtime_ns
    assert make_coco(tmp_path / "again", n_images=N) == again  # the manifest: no rewrite
    assert os.stat(again.annotations_file).st_mtime_ns == stamp
    # what the set is made to exercise
    ids = [c["id"] for c in doc["categories"]]
    assert ids == [c[0] for c in CATEGORIES] and ids != sorted(ids)
    listed = [im["id"] for im in doc["images"]]
    by_name = [im["id"] for im in sorted(doc["images"], key=lambda im: im["file_name"])]
    assert listed != sorted(listed) and by_name != sorted(by_name)
    segs = [a["segmentation"] for a in doc["annotations"]]
    assert any(isinstance(s, dict) and isinstance(s["counts"], str) for s in segs)
    assert any(isinstance(s, dict) and isinstance(s["counts"], list) for s in segs)
    assert any(isinstance(s, list) and len(s) == 2 for s in segs)
    assert any(a["iscrowd"] for a in doc["annotations"])
    assert any(min(a["bbox"][2:]) < 3 for a in doc["annotations"])
    known = {im["id"] for im in doc["images"]}
    assert any(a["image_id"] not in known for a in doc["annotations"])
    empty = {im["file_name"]: im["id"] for im in doc["images"]}[f"{EMPTY_IMAGE:012d}.jpg"]
    assert not any(a["image_id"] == empty for a in doc["annotations"])


# -- outputs ----------------------------------------------------------------------------------


def test_outputs_follow_the_image_ids_with_labels_in_the_categories_order(coco, doc):
    pipe = _pipeline(coco, 5, image_ids=True)
    got = _samples(pipe, N)
    expected = _expected(doc)
    assert pipe.epoch_size("Reader") == N
    for ((image, boxes, labels, ids), info), (name, image_id, e_boxes, e_labels) in zip(
        got, expected
    ):
        assert info == name
        with open(os.path.join(coco.file_root, name), "rb") as f:
            assert image.tobytes() == f.read()
        assert image.dtype == np.uint8 and image.ndim == 1
        assert boxes.dtype == np.float32 and labels.dtype == np.int32 and ids.dtype == np.int32
        np.testing.assert_array_equal(boxes, e_boxes)
        np.testing.assert_array_equal(labels, e_labels)
        assert ids.tolist() == [image_id]
    batch = pipe.run()
    assert [o.layout() for o in batch] == ["", "", "", ""]
    assert batch[0][0].source_info() == expected[15 % N][0]  # only the images carry it (DALI)
    assert all(o[0].source_info() == "" for o in batch[1:])


@pytest.mark.parametrize(
    "kw",
    [
        {"ltrb": True},
        {"ratio": True},
        {"ltrb": True, "ratio": True},
        {"include_iscrowd": False},
        {"avoid_class_remapping": True},
        {"size_threshold": 0.0},
        {"size_threshold": 6.5},
    ],
)
def test_box_and_label_arguments(coco, doc, kw):
    expected = _expected(
        doc,
        threshold=kw.get("size_threshold", 0.1),
        ltrb=kw.get("ltrb", False),
        ratio=kw.get("ratio", False),
        crowd=kw.get("include_iscrowd", True),
        remap=not kw.get("avoid_class_remapping", False),
    )
    for ((_, boxes, labels), info), (name, _, e_boxes, e_labels) in zip(
        _samples(_pipeline(coco, 6, **kw), N), expected
    ):
        assert info == name
        np.testing.assert_array_equal(boxes, e_boxes)  # float32 arithmetic, exactly
        np.testing.assert_array_equal(labels, e_labels)


def test_skip_empty_drops_images_left_without_objects(coco, doc):
    expected = [e for e in _expected(doc) if len(e[3])]
    assert f"{TINY_IMAGE:012d}.jpg" not in [e[0] for e in expected]  # its only box is tiny
    pipe = _pipeline(coco, 3, skip_empty=True)
    assert pipe.epoch_size("Reader") == len(expected) == N - 2
    assert [info for _, info in _samples(pipe, len(expected))] == [e[0] for e in expected]
    pipe = _pipeline(coco, 3, skip_empty=True, size_threshold=0.0)
    assert pipe.epoch_size("Reader") == N - 1


def test_images_restricts_and_orders_the_samples(coco, doc):
    ids = {im["file_name"]: im["id"] for im in doc["images"]}
    wanted = ["000000000007.jpg", "000000000003.jpg", "missing.jpg", "000000000007.jpg"]
    pipe = _pipeline(coco, 2, images=wanted, image_ids=True)
    assert pipe.epoch_size("Reader") == 3  # the name the file lacks is skipped
    got = _samples(pipe, 4)
    assert [info for _, info in got] == [wanted[0], wanted[1], wanted[3], wanted[0]]
    assert [int(s[3][0]) for s, _ in got[:3]] == [ids[wanted[0]], ids[wanted[1]], ids[wanted[3]]]
    everything = _pipeline(coco, 2, images=[])  # an empty list: every image (DALI)
    assert everything.epoch_size("Reader") == N


def test_polygon_masks_hold_the_segmentations(coco, doc):
    pipe = _pipeline(coco, 4, polygon_masks=True, ratio=True, image_ids=True)
    anns = {}
    for a in doc["annotations"]:
        anns.setdefault(a["image_id"], []).append(a)
    sizes = {im["id"]: (im["width"], im["height"]) for im in doc["images"]}
    seen_rle = False
    for (_, boxes, _, polygons, vertices, ids), _ in _samples(pipe, N):
        assert polygons.dtype == np.int32 and polygons.shape[1:] == (3,)
        assert vertices.dtype == np.float32 and vertices.shape[1:] == (2,)
        image_id = int(ids[0])
        kept = [a for a in anns.get(image_id, []) if min(a["bbox"][2:]) >= np.float32(0.1)]
        assert len(kept) == len(boxes)
        w, h = sizes[image_id]
        rows = []
        for obj, a in enumerate(kept):
            if isinstance(a["segmentation"], dict):
                seen_rle = True  # polygon masks skip RLEs, as DALI does
                continue
            for poly in a["segmentation"]:
                xy = np.asarray(poly, dtype=np.float32).reshape(-1, 2)
                rows.append((obj, xy / np.asarray([w, h], dtype=np.float32)))
        assert polygons[:, 0].tolist() == [obj for obj, _ in rows]
        starts = np.cumsum([0] + [len(xy) for _, xy in rows])
        assert polygons[:, 1].tolist() == starts[:-1].tolist()
        assert polygons[:, 2].tolist() == starts[1:].tolist()
        expected = np.concatenate([xy for _, xy in rows]) if rows else np.zeros((0, 2))
        np.testing.assert_array_equal(vertices, expected)
    assert seen_rle


def test_deprecated_arguments_warn_and_keep_their_meaning(coco):
    new = _samples(_pipeline(coco, 4, polygon_masks=True, image_ids=True), 4)
    with pytest.warns(DeprecationWarning, match="`masks` is deprecated"):
        old = _samples(_pipeline(coco, 4, masks=True, image_ids=True), 4)
    for (n, _), (o, _) in zip(new, old):
        np.testing.assert_array_equal(o[3][:, 0], n[3][:, 0])
        np.testing.assert_array_equal(o[3][:, 1:], 2 * n[3][:, 1:])  # coordinate indices
        np.testing.assert_array_equal(o[4], n[4])
    with pytest.warns(DeprecationWarning, match="`save_img_ids` is deprecated"):
        alias = _samples(_pipeline(coco, 4, save_img_ids=True), 4)
    assert [s[3].tolist() for s, _ in alias] == [s[5].tolist() for s, _ in new]
    msg = _build_error(coco, save_img_ids=True, image_ids=True)
    assert "argument `save_img_ids`: is a deprecated alias of `image_ids`" in msg


# -- pixelwise masks --------------------------------------------------------------------------


def _tiny_set(tmp_path, annotations, h=6, w=8):
    from PIL import Image

    Image.fromarray(np.zeros((h, w, 3), np.uint8)).save(tmp_path / "a.jpg")
    doc = {
        "images": [{"id": 1, "file_name": "a.jpg", "height": h, "width": w}],
        "categories": [{"id": 1}, {"id": 2}, {"id": 3}],
        "annotations": [
            {"image_id": 1, "category_id": c, "bbox": [0, 0, 1, 1], "segmentation": s}
            for c, s in annotations
        ],
    }
    (tmp_path / "ann.json").write_text(json.dumps(doc))
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        out = fn.readers.coco(
            file_root=str(tmp_path),
            annotations_file=str(tmp_path / "ann.json"),
            pixelwise_masks=True,
        )
        pipe.set_outputs(*out)
    batch = pipe.run()
    assert batch[3].layout() == "HWC"
    mask = np.array(batch[3].at(0))
    assert mask.dtype == np.int32 and mask.shape == (h, w, 1)
    return mask[..., 0]


def _rect(x0, y0, x1, y1):
    return [[x0, y0, x1, y0, x1, y1, x0, y1]]


def test_pixelwise_masks_rasterise_like_the_coco_api(tmp_path):
    mask = _tiny_set(tmp_path, [(2, _rect(1, 1, 5, 4))])
    expected = np.zeros((6, 8), np.int32)
    expected[1:4, 1:5] = 2  # pixels whose centres the outline encloses
    np.testing.assert_array_equal(mask, expected)


def test_pixelwise_masks_larger_labels_cover_smaller_ones(tmp_path):
    mask = _tiny_set(tmp_path, [(2, _rect(2, 1, 6, 4)), (1, _rect(0, 0, 4, 3))])
    expected = np.zeros((6, 8), np.int32)
    expected[0:3, 0:4] = 1
    expected[1:4, 2:6] = 2
    np.testing.assert_array_equal(mask, expected)


def test_pixelwise_masks_keep_the_older_label_at_the_end_of_the_last_column(tmp_path):
    # DALI's merge: in the stretch where neither mask changes any more (the last column, rows
    # 3-5) the smaller label stays under the larger one
    mask = _tiny_set(tmp_path, [(1, _rect(6, 3, 8, 6)), (2, _rect(4, 0, 8, 6))])
    expected = np.zeros((6, 8), np.int32)
    expected[:, 4:] = 2
    expected[3:, 7] = 1
    np.testing.assert_array_equal(mask, expected)


def test_pixelwise_masks_are_zero_when_the_smallest_label_has_no_mask(tmp_path):
    assert not _tiny_set(tmp_path, [(1, []), (2, _rect(1, 1, 5, 4))]).any()
    mask = _tiny_set(tmp_path, [(1, _rect(1, 1, 5, 4)), (2, [])])
    assert set(np.unique(mask)) == {0, 1}


def test_pixelwise_masks_rle_and_polygons_of_one_label(tmp_path):
    h, w = 6, 8
    full = np.ones((h, w), bool)
    left = np.zeros((h, w), bool)
    left[:, :3] = True
    rle = {"size": [h, w], "counts": masks.rle_encode(full).tolist()}
    # the polygons replace the label's RLE
    mask = _tiny_set(tmp_path, [(1, rle), (1, _rect(1, 1, 5, 4))])
    expected = np.zeros((h, w), np.int32)
    expected[1:4, 1:5] = 1
    np.testing.assert_array_equal(mask, expected)
    # of two RLEs, the last
    rle2 = {"size": [h, w], "counts": masks.rle_to_string(masks.rle_encode(left))}
    np.testing.assert_array_equal(_tiny_set(tmp_path, [(1, rle), (1, rle2)]), left.astype(int))


def test_merge_on_arrays_matches_dalis_run_loop():
    rng = np.random.default_rng(3)
    for trial in range(200):
        h, w = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        n = h * w
        labels = sorted(set(rng.integers(0, 6, size=int(rng.integers(1, 5))).tolist()))
        rles = {}
        for label in labels:
            if rng.random() < 0.15:
                continue  # a label without a mask
            m = rng.random((h, w)) < rng.uniform(0, 1)
            if trial % 3 == 0:  # blocks: long runs, ends of columns
                m = np.zeros((h, w), bool)
                m[int(rng.integers(0, h)) :, int(rng.integers(0, w)) :] = True
            rles[label] = masks.rle_encode(m)
        fast = masks._merge_masks(labels, rles, n)
        slow = masks._merge_runs(labels, rles, n)
        np.testing.assert_array_equal(fast, slow, err_msg=f"trial {trial}")


def test_rle_strings_round_trip():
    rng = np.random.default_rng(5)
    for _ in range(50):
        counts = rng.integers(0, 5000, size=int(rng.integers(1, 30))).astype(np.uint32)
        text = masks.rle_to_string(counts)
        assert all(48 <= ord(c) < 112 for c in text)
        np.testing.assert_array_equal(masks.rle_from_string(text), counts)
    assert masks.rle_from_string("").size == 0


def test_odd_rles_go_through_the_run_loop():
    # an empty run in the middle: DALI's loop stops at it, leaving the rest 0
    counts = np.asarray([2, 0, 3, 4, 3], np.uint32)
    base = np.asarray([4, 8], np.uint32)
    out = masks.pixelwise_mask(
        3, 4, np.asarray([1, 2]), np.zeros((0, 3)), np.zeros((0, 2)), [base, counts], [0, 1]
    )
    assert out.shape == (3, 4, 1)
    expected = masks._merge_runs([1, 2], {1: base, 2: counts}, 12)
    np.testing.assert_array_equal(out[..., 0], expected.reshape(4, 3).T)


# -- the annotations file ---------------------------------------------------------------------


def _parse(doc, **kw):
    return parse_coco(json.dumps(doc), CocoOptions(**kw))


def test_parser_follows_dalis_rules():
    doc = {
        "images": [
            {"id": 9, "file_name": "b.jpg", "width": 10, "height": 10},
            {"id": 4, "file_name": "a.jpg", "width": 10, "height": 10},
            {"id": 7, "file_name": "a.jpg", "width": 20, "height": 20},
            "not an object",
        ],
        "categories": [{"id": 5}, {"id": 2}, {"id": 5}, {"id": 9}],
        "annotations": [
            {"image_id": 7, "category_id": 9, "bbox": [1, 1, 2, 2]},
            {"image_id": 7, "category_id": 5, "bbox": [1, 1, 2, 2]},
            {"image_id": 7, "category_id": 77, "bbox": [1, 1, 2, 2]},
            {"image_id": 4, "category_id": 2, "bbox": [1, 1, 2, 2]},
            {"image_id": 123, "category_id": 2, "bbox": [1, 1, 2, 2]},
        ],
    }
    ann = _parse(doc)
    # id order; a repeated file name maps to its last entry (id 7) for both of its samples
    assert ann.filenames == ["a.jpg", "a.jpg", "b.jpg"]
    assert ann.original_ids.tolist() == [7, 7, 9]
    # 9 -> 4 (the repeated 5 used up 3), unknown -> 0
    assert ann.sample_labels(0).tolist() == [4, 1, 0]
    assert ann.sample_labels(2).tolist() == []
    assert _parse(doc, skip_empty=True).filenames == ["a.jpg", "a.jpg"]
    assert _parse(doc, avoid_class_remapping=True).sample_labels(1).tolist() == [9, 5, 77]
    only = _parse(doc, images=("b.jpg", "zzz.jpg", "b.jpg"))
    assert only.filenames == ["b.jpg", "b.jpg"]


@pytest.mark.parametrize(
    ("doc", "text"),
    [
        ("[]", "the top level must be a JSON object"),
        ("{", "not valid JSON"),
        ('{"images": {}}', "'images' must be a list"),
        ('{"images": [{"file_name": "a"}]}', "images #0 has no 'id'"),
        ('{"images": [{"id": 1.5}]}', "images #0: 'id' must be an integer"),
        ('{"categories": [{"name": "x"}]}', "categories #0 has no 'id'"),
        ('{"annotations": [{"id": 3, "category_id": 1, "bbox": [1]}]}', "(id 3) has no 'image_id'"),
        ('{"annotations": [{"image_id": 1, "category_id": 1, "bbox": [1]}]}', "exactly 4"),
        ('{"annotations": [{"image_id": 1, "category_id": 1, "bbox": [1, 1, "a", 1]}]}', "number"),
        # what the fast type checks must send to the exact error, too
        ('{"annotations": [{"image_id": 1, "category_id": 1, "bbox": [1, 1, true, 1]}]}', "number"),
        (
            '{"annotations": [{"image_id": true, "category_id": 1, "bbox": [1, 1, 1, 1]}]}',
            "'image_id' must be an integer",
        ),
        (
            '{"annotations": [{"image_id": 1, "category_id": 2.0, "bbox": [1, 1, 1, 1]}]}',
            "'category_id' must be an integer",
        ),
        (
            '{"annotations": [{"image_id": 4294967296, "category_id": 1, "bbox": [1, 1, 1, 1]}]}',
            "does not fit int32",
        ),
        (
            '{"annotations": [{"image_id": 1, "category_id": 1, "bbox": [1, 1, 1, 1], "iscrowd": "0"}]}',
            "'iscrowd' must be an integer",
        ),
        ('{"annotations": [{"image_id": 1, "category_id": 1, "bbox": "1 1 1 1"}]}', "exactly 4"),
        ('{"annotations": [{"image_id": 1, "bbox": [1, 1, 1, 1]}]}', "has no 'category_id'"),
    ],
)
def test_parser_errors_name_the_entry(doc, text):
    with pytest.raises(CocoError, match=text.replace("(", r"\(").replace(")", r"\)")):
        parse_coco(doc, CocoOptions())


def test_segmentation_errors_name_the_annotation():
    base = {"images": [{"id": 1, "file_name": "a", "width": 4, "height": 3}]}

    def seg(s):
        return {
            **base,
            "annotations": [
                {"id": 8, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "segmentation": s}
            ],
        }

    with pytest.raises(CocoError, match=r"\(id 8\): polygon 0 has an odd number"):
        _parse(seg([[1, 2, 3]]), polygons=True)
    with pytest.raises(CocoError, match=r"\(id 8\): polygon 1 must be a number, got True"):
        _parse(seg([[1, 2, 3, 4], [1, True, 3, 4]]), polygons=True)
    with pytest.raises(CocoError, match=r"\(id 8\): polygon 0 must be a list of coordinates"):
        _parse(seg(["1 2 3 4"]), polygons=True)
    with pytest.raises(CocoError, match="RLE 'counts' must be an integer, got True"):
        _parse(seg({"size": [3, 4], "counts": [5, True]}), polygons=True, rles=True)
    with pytest.raises(CocoError, match="RLE 'counts' must not be negative"):
        _parse(seg({"size": [3, 4], "counts": [13, -1]}), polygons=True, rles=True)
    with pytest.raises(CocoError, match="does not fit int32"):
        _parse(seg({"size": [3, 4], "counts": [2**40, 1]}), polygons=True, rles=True)
    with pytest.raises(CocoError, match="covers 11 pixels"):
        _parse(seg({"size": [3, 4], "counts": [5, 6]}), polygons=True, rles=True)
    with pytest.raises(CocoError, match="invalid or missing RLE 'size'"):
        _parse(seg({"counts": [12]}), polygons=True, rles=True)
    with pytest.raises(CocoError, match="missing or invalid RLE 'counts'"):
        _parse(seg({"size": [3, 4], "counts": ""}), polygons=True, rles=True)
    # polygon masks skip RLEs, and nothing is checked without masks
    assert _parse(seg({"size": [3, 4], "counts": [5, 6]}), polygons=True).polygons.size == 0
    assert len(_parse(seg([[1, 2, 3]]))) == 1
    no_size = {**seg([[0, 0, 1, 0, 1, 1]]), "images": [{"id": 1, "file_name": "a"}]}
    with pytest.raises(CocoError, match="needs a positive width and height for `ratio`"):
        _parse(no_size, ratio=True)


# -- preprocessed annotations -----------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"ratio": True, "ltrb": True, "skip_empty": True, "image_ids": True},
        {"polygon_masks": True, "image_ids": True},
        {"pixelwise_masks": True},
    ],
)
def test_preprocessed_annotations_round_trip(coco, tmp_path, kw):
    direct = _samples(_pipeline(coco, 4, **kw), N)
    folder = tmp_path / "pre"
    folder.mkdir()
    saving = _pipeline(
        coco,
        4,
        save_preprocessed_annotations=True,
        save_preprocessed_annotations_dir=str(folder),
        **kw,
    )
    saving.build()
    files = set(os.listdir(folder))
    assert {"offsets.dat", "boxes.dat", "labels.dat", "counts.dat", "filenames.dat"} <= files
    assert ("vertices.dat" in files) == bool(kw.get("polygon_masks") or kw.get("pixelwise_masks"))
    assert ("masks_rles.dat" in files) == bool(kw.get("pixelwise_masks"))
    assert ("original_ids.dat" in files) == bool(kw.get("image_ids"))
    load_kw = {k: v for k, v in kw.items() if k not in ("ratio", "ltrb", "skip_empty")}
    loaded = _samples(_pipeline(coco, 4, preprocessed_annotations=str(folder), **load_kw), N)
    for (a, ia), (b, ib) in zip(direct, loaded):
        assert ia == ib
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_preprocessed_format_is_dalis(coco, tmp_path):
    folder = tmp_path / "pre"
    folder.mkdir()
    ann = _parse_set(coco, ltrb=True)
    pre.save(ann, str(folder), polygons=False, masks=False, image_ids=True)
    raw = (folder / "boxes.dat").read_bytes()
    (count,) = struct.unpack_from("<I", raw)
    assert count == ann.boxes.size  # DALI counts floats, not boxes
    np.testing.assert_array_equal(np.frombuffer(raw[4:], "<f4").reshape(-1, 4), ann.boxes)
    assert (folder / "filenames.dat").read_text().splitlines() == ann.filenames
    raw = (folder / "offsets.dat").read_bytes()
    assert raw == struct.pack("<I", len(ann)) + ann.offsets.astype("<i4").tobytes()
    # a table cut short, or one that does not cover every image, is an error naming it
    (folder / "labels.dat").write_bytes(raw[:-2])
    with pytest.raises(CocoError, match=r"'labels\.dat' holds"):
        pre.load(str(folder), polygons=False, masks=False, image_ids=False)
    os.remove(folder / "labels.dat")
    with pytest.raises(CocoError, match="ranges of boxes and labels"):
        pre.load(str(folder), polygons=False, masks=False, image_ids=False)
    pre.save(ann, str(folder), polygons=False, masks=False, image_ids=False)
    os.remove(folder / "original_ids.dat")
    with pytest.raises(CocoError, match=r"'original_ids' has 0 entries.*image_ids"):
        pre.load(str(folder), polygons=False, masks=False, image_ids=True)
    ann.filenames[0] = "a b.jpg"
    with pytest.raises(CocoError, match="split on whitespace"):
        pre.save(ann, str(folder), polygons=False, masks=False, image_ids=False)


def test_preprocessed_masks_must_refer_within_their_image(coco, tmp_path):
    ann = _parse_set(coco, polygons=True, rles=True)
    pre.save(ann, str(tmp_path), polygons=False, masks=True, image_ids=False)
    back = pre.load(str(tmp_path), polygons=False, masks=True, image_ids=False)
    np.testing.assert_array_equal(back.polygons, ann.polygons)
    assert [r.tolist() for r in back.rles] == [r.tolist() for r in ann.rles]
    assert back.rle_sizes == ann.rle_sizes
    raw = bytearray((tmp_path / "polygon_data.dat").read_bytes())
    raw[4:8] = struct.pack("<i", 99)  # the first polygon's object
    (tmp_path / "polygon_data.dat").write_bytes(bytes(raw))
    with pytest.raises(CocoError, match="refers to an object or vertices it does not have"):
        pre.load(str(tmp_path), polygons=False, masks=True, image_ids=False)
    # polygon outputs pass the tables through, as DALI does
    pre.load(str(tmp_path), polygons=True, masks=False, image_ids=False)


def _parse_set(coco, **kw):
    with open(coco.annotations_file) as f:
        return parse_coco(f.read(), CocoOptions(**kw))


def test_preprocessed_argument_errors(coco, tmp_path):
    msg = _build_error(coco, preprocessed_annotations=str(tmp_path), ratio=False)
    assert "argument `ratio`: is not supported when reading `preprocessed_annotations`" in msg
    msg = _build_error(coco, preprocessed_annotations=str(tmp_path / "none"))
    assert "argument `preprocessed_annotations`: no images found in preprocessed_annot" in msg
    msg = _build_error(coco, save_preprocessed_annotations=False)
    assert "must be given together" in msg
    msg = _build_error(coco, save_preprocessed_annotations_dir=str(tmp_path))
    assert "must be given together" in msg
    msg = _build_error(
        coco,
        save_preprocessed_annotations=True,
        save_preprocessed_annotations_dir=str(tmp_path / "none"),
    )
    assert "argument `save_preprocessed_annotations_dir`: cannot save" in msg
    pipe = _pipeline(coco, dump_meta_files=True, dump_meta_files_path=str(tmp_path))
    with pytest.warns(DeprecationWarning) as record:
        pipe.build()
    assert len(record) == 2 and "`dump_meta_files` is deprecated" in str(record[0].message)
    pipe = _pipeline(coco, meta_files_path=str(tmp_path))
    with pytest.warns(DeprecationWarning, match="`meta_files_path` is deprecated"):
        pipe.build()
    assert pipe.epoch_size("Reader") == N


# -- the loader: sharding, padding, shuffling, state ------------------------------------------


def test_two_shards_cover_the_set_disjointly(coco, doc):
    names = [e[0] for e in _expected(doc)]
    seen = []
    for shard in range(2):
        pipe = _pipeline(coco, 4, num_shards=2, shard_id=shard)
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["number_of_shards"] == 2
        seen.append([info for _, info in _samples(pipe, N // 2)])
    assert not set(seen[0]) & set(seen[1])
    assert seen[0] + seen[1] == names


def test_pad_last_batch_repeats_the_last_sample(coco, doc):
    names = [e[0] for e in _expected(doc)]
    pipe = _pipeline(coco, 5, pad_last_batch=True)
    assert [info for _, info in _samples(pipe, 15)] == names + [names[-1]] * 3


def test_random_shuffle_and_shuffle_after_epoch_permute_the_images(coco, doc):
    by_name = {e[0]: e for e in _expected(doc)}
    pipe = _pipeline(coco, N, random_shuffle=True, initial_fill=4)
    got = _samples(pipe, N)
    assert [info for _, info in got] != list(by_name)
    for (_, boxes, labels), info in got:
        np.testing.assert_array_equal(boxes, by_name[info][2])
        np.testing.assert_array_equal(labels, by_name[info][3])
    pipe = _pipeline(coco, N, shuffle_after_epoch=True)
    epochs = [[info for _, info in _samples(pipe, N)] for _ in range(3)]
    for epoch in epochs:
        assert sorted(epoch) == sorted(by_name)
    assert epochs[0] != epochs[1]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True, "skip_empty": True},
        {"random_shuffle": True, "initial_fill": 5, "polygon_masks": True},
        {"shuffle_after_epoch": True, "image_ids": True},
    ],
)
def test_checkpoint_round_trip(coco, kw):
    def make(checkpoint=None):
        pipe = dali.Pipeline(
            batch_size=5,
            num_threads=1,
            device_id=None,
            seed=3,
            enable_checkpointing=True,
            checkpoint=checkpoint,
        )
        with pipe:
            out = fn.readers.coco(
                file_root=coco.file_root,
                annotations_file=coco.annotations_file,
                name="Reader",
                **kw,
            )
            pipe.set_outputs(*out)
        return pipe

    check_pipeline_save_restore(make, 3, 4)


# -- errors -----------------------------------------------------------------------------------


def test_build_errors(coco, tmp_path):
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(*fn.readers.coco(annotations_file=coco.annotations_file))
    with pytest.raises(RuntimeError, match="argument `file_root`: is required"):
        pipe.build()
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(*fn.readers.coco(file_root=coco.file_root))
    with pytest.raises(RuntimeError, match="either `annotations_file` or `preprocessed_annot"):
        pipe.build()
    msg = _build_error(coco, file_root=str(tmp_path / "nope"))
    assert "argument `file_root`: '" in msg and "does not exist" in msg
    msg = _build_error(coco, annotations_file=str(tmp_path / "nope.json"))
    assert "argument `annotations_file`: cannot read" in msg and "nope.json" in msg
    bad = tmp_path / "bad.json"
    bad.write_text('{"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": [{"id": 4}]}')
    msg = _build_error(coco, annotations_file=str(bad))
    assert "bad.json" in msg and "annotations #0 (id 4) has no 'image_id'" in msg
    msg = _build_error(coco, images=["nope.jpg"])
    assert "argument `annotations_file`: no images found in annotations_file '" in msg
    msg = _build_error(coco, skip_cached_images=True)
    assert "argument `skip_cached_images`: is not supported" in msg
    msg = _build_error(coco, polygon_masks=True, pixelwise_masks=True)
    assert "mutually exclusive" in msg
    msg = _build_error(coco, num_shards=2, shard_id=2)
    assert "shard_id" in msg
    msg = _build_error(coco, shuffle_after_epoch=True, random_shuffle=True)
    assert "argument `shuffle_after_epoch`" in msg
    ghost = tmp_path / "ghost.json"
    ghost.write_text('{"images": [{"id": 1, "file_name": "ghost.jpg"}]}')
    msg = _build_error(coco, annotations_file=str(ghost))
    assert "argument `file_root`: 1 image file(s)" in msg and "ghost.jpg" in msg
    negative = tmp_path / "negative.json"
    negative.write_text(
        '{"images": [{"id": 1, "file_name": "000000000000.jpg", "width": 9, "height": 9}], '
        '"annotations": [{"image_id": 1, "category_id": -3, "bbox": [1, 1, 2, 2]}]}'
    )
    msg = _build_error(
        coco, annotations_file=str(negative), avoid_class_remapping=True, pixelwise_masks=True
    )
    assert "argument `pixelwise_masks`: label -3 is negative" in msg


def test_an_image_removed_after_listing_is_an_error_naming_it(coco, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(coco.file_root, root)
    pipe = _pipeline(coco, 2, file_root=str(root))
    victim = _samples(pipe, 2)[0][1]
    os.remove(root / victim)
    pipe2 = _pipeline(coco, 2, file_root=str(root))
    with pytest.raises(RuntimeError, match="1 image file"):
        pipe2.build()
    # listed, then gone: the read names the file
    shutil.copy(os.path.join(coco.file_root, victim), root / victim)
    pipe3 = _pipeline(coco, 12, file_root=str(root))
    pipe3.build()
    os.remove(root / victim)
    with pytest.raises(RuntimeError, match=f"cannot read image '.*{victim}'"):
        pipe3.run()


def test_no_warning_without_deprecated_arguments(coco):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _samples(_pipeline(coco, 4, polygon_masks=True), 4)


# -- object storage ---------------------------------------------------------------------------


def test_file_root_and_annotations_on_s3_equal_local(coco, tmp_path):
    s3_server = pytest.importorskip("s3_server")
    missing = s3_server.missing()
    if missing:
        pytest.skip(missing)
    import s3fs
    from dali._ops.readers.storage import access as _storage

    server = s3_server.start()
    try:
        with pytest.MonkeyPatch.context() as mp:
            for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN"):
                mp.delenv(name, raising=False)
            for name, value in s3_server.environ(server.endpoint).items():
                mp.setenv(name, value)
            mp.setenv("AWS_EC2_METADATA_DISABLED", "true")
            s3fs.S3FileSystem.clear_instance_cache()
            s3_server.upload(server.endpoint, "coco", coco.root, "set")
            kw = {"polygon_masks": True, "image_ids": True, "ratio": True}
            remote_kw = {
                "file_root": "s3://coco/set/images",
                "annotations_file": "s3://coco/set/annotations/instances.json",
            }
            local = _samples(_pipeline(coco, 5, **kw), N)
            remote = _samples(_pipeline(coco, 5, **remote_kw, **kw), N)
            # preprocessed annotations saved to and read from the bucket
            saving = _pipeline(
                coco,
                5,
                save_preprocessed_annotations=True,
                save_preprocessed_annotations_dir="s3://coco/pre",
                **remote_kw,
                **kw,
            )
            saving.build()
            load_kw = {"polygon_masks": True, "image_ids": True}
            loaded = _samples(
                _pipeline(
                    coco,
                    5,
                    file_root="s3://coco/set/images",
                    preprocessed_annotations="s3://coco/pre",
                    **load_kw,
                ),
                N,
            )
            for other in (remote, loaded):
                for (a, ia), (b, ib) in zip(local, other):
                    assert ia == ib
                    for x, y in zip(a, b):
                        np.testing.assert_array_equal(x, y)
            msg = _build_error(
                coco, file_root="s3://coco/nope", annotations_file=remote_kw["annotations_file"]
            )
            assert "argument `file_root`: 's3://coco/nope' does not exist" in msg
            _storage.drop_prefetched()
            s3fs.S3FileSystem.clear_instance_cache()
    finally:
        server.stop()
