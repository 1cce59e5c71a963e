"""`readers.coco`'s ``annotations`` list read from the JSON text by the compiled scanner
(`annotations_text`) and `parse_coco`'s path through it: the same numbers, tables and errors
as parsing the whole text as JSON, and the numpy path where Numba is not installed."""

from __future__ import annotations

import json
import random
import types

import numpy as np
import pytest
from dali._ops.readers.coco import annotations, annotations_text, polygon_text
from dali._ops.readers.coco.annotations import CocoOptions, parse_coco

# the whole-text parse, the JSON loaders and the reader options it is run with
from test_coco_polygon_text import _OPTIONS, LOADERS, _assert_same, _full, _same_outcome

needs_numba = pytest.mark.skipif(not annotations_text.available(), reason="the scanner needs Numba")


@pytest.fixture
def no_numpy_path(monkeypatch):
    """The numpy path (`polygon_text`) fails the test where it is taken."""

    def cut(text):
        raise AssertionError("the scanner did not read the text")

    monkeypatch.setattr(polygon_text, "cut", cut)


# -- numbers ------------------------------------------------------------------------------------


def _digits(rng, n, *, lead=True):
    first = rng.choice("123456789") if lead else rng.choice("0123456789")
    return first + "".join(rng.choice("0123456789") for _ in range(n - 1))


def _number_text(rng):
    """A JSON number in one of the forms a file may write it."""
    kind = rng.randrange(12)
    sign = "-" if rng.random() < 0.3 else ""
    if kind < 4:  # a coordinate: up to 4 digits, up to 3 decimals
        body = str(rng.randrange(0, 5000))
        if rng.random() < 0.8:
            body += "." + _digits(rng, rng.randint(1, 3), lead=False)
    elif kind == 4:  # zeros
        body = rng.choice(["0", "0.0", "0.000", "0e0", "0E+5", "0.0e-7"])
    elif kind == 5:  # an integer of up to 22 digits (beyond 2**53 from 16)
        body = _digits(rng, rng.randint(1, 22))
    elif kind == 6:  # 17 significant digits, as Python writes a double
        body = repr(rng.uniform(0, 1000))
    elif kind == 7:  # long fractions, small values
        body = "0." + "0" * rng.randint(0, 8) + _digits(rng, rng.randint(1, 20))
    elif kind == 8:  # trailing zeros
        body = _digits(rng, rng.randint(1, 4)) + "." + "5" + "0" * rng.randint(1, 20)
    else:  # exponents
        mantissa = _digits(rng, rng.randint(1, 18))
        if rng.random() < 0.5:
            mantissa = mantissa[:1] + "." + (mantissa[1:] or "0")
        e_sign = rng.choice(["", "+", "-"])
        # up to 1e38 (float32's largest is 3.4e38), down to below float32's subnormals
        e = rng.choice("eE") + e_sign + str(rng.randint(0, 40 if e_sign == "-" else 20))
        body = mantissa + e
    return sign + body


def _annotation(rng, polygons, *, blank=" "):
    s = blank
    seg = "[" + f",{s}".join("[" + f",{s}".join(p) + "]" for p in polygons) + "]"
    box = "[" + f",{s}".join(_number_text(rng) for _ in range(4)) + "]"
    return (
        f'{{"id":{s}{rng.randrange(10**6)},{s}"image_id":{s}{rng.randrange(1, 5)},'
        f'{s}"category_id":{s}{rng.randrange(1, 4)},{s}"bbox":{s}{box},'
        f'{s}"area":{s}{_number_text(rng)},{s}"iscrowd":{s}0,{s}"segmentation":{s}{seg}}}'
    )


def _text(anns, *, blank=" "):
    images = ", ".join(
        f'{{"id": {i}, "file_name": "{i}.jpg", "width": {40 + i}, "height": {30 + i}}}'
        for i in range(1, 5)
    )
    categories = '[{"id": 1}, {"id": 2}, {"id": 3}]'
    return (
        f'{{"images": [{images}],{blank}"annotations":{blank}[{f",{blank}".join(anns)}],'
        f'{blank}"categories": {categories}}}'
    )


def _bits32(values):
    with np.errstate(over="ignore"):  # beyond float32: inf, as numpy's cast gives
        return np.asarray(values, np.float64).astype(np.float32).view(np.uint32)


@needs_numba
@pytest.mark.parametrize("loads", LOADERS)
@pytest.mark.parametrize("seed", range(4))
def test_numbers_are_bit_identical_to_the_json_parse(seed, loads):
    rng = random.Random(seed)
    anns = []
    for _ in range(60):
        polygons = [
            [_number_text(rng) for _ in range(2 * rng.randint(0, 12))]
            for _ in range(rng.randint(0, 3))
        ]
        anns.append(_annotation(rng, polygons))
    text = _text(anns).encode()
    scanned = annotations_text.scan(text, loads)
    assert scanned is not None
    doc = json.loads(text)
    entries = doc["annotations"]
    boxes = [b for e in entries for b in e["bbox"]]
    assert scanned.boxes.dtype == np.float64
    assert scanned.boxes.reshape(-1).view(np.uint64).tolist() == (
        np.asarray(boxes, np.float64).view(np.uint64).tolist()
    )
    coords = [c for e in entries for p in e["segmentation"] for c in p]
    assert scanned.polygons.coords.view(np.uint32).tolist() == _bits32(coords).tolist()
    assert scanned.polygons.per_value.tolist() == [len(e["segmentation"]) for e in entries]
    sizes = [len(p) for e in entries for p in e["segmentation"]]
    assert scanned.polygons.sizes.tolist() == sizes
    assert scanned.value.tolist() == list(range(len(entries)))
    assert scanned.image_ids.tolist() == [e["image_id"] for e in entries]
    assert scanned.category_ids.tolist() == [e["category_id"] for e in entries]
    assert scanned.iscrowd.tolist() == [0] * len(entries)
    assert json.loads(scanned.rest)["annotations"] == annotations_text.PLACEHOLDER
    assert {k: v for k, v in json.loads(scanned.rest).items() if k != "annotations"} == {
        k: v for k, v in doc.items() if k != "annotations"
    }


@needs_numba
@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("0", 0.0),
        ("-0", 0.0),  # the integer 0
        ("-0.0", -0.0),
        ("-0.000", -0.0),
        ("-0e0", -0.0),
        ("-0E+3", -0.0),
        ("1", 1.0),
        ("-7", -7.0),
        ("0.5", 0.5),
        ("1234567", 1234567.0),
        ("12345678", 12345678.0),
        ("123456.7", 123456.7),
        ("0.1", 0.1),
        ("4.35", 4.35),
        ("1e22", 1e22),
        ("1e23", 1e23),  # beyond Clinger's fast path: the JSON parser's
        ("9007199254740993", 9007199254740993.0),  # 2**53 + 1
        ("123456789012345678901234", 1.2345678901234568e23),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ("5e-324", 5e-324),
        ("2.2250738585072011e-308", 2.2250738585072011e-308),
        ("0.30000000000000004", 0.30000000000000004),
        ("1E-5", 1e-5),
        ("1e+005", 1e5),
    ],
)
def test_single_numbers(number, expected):
    ann = (
        f'{{"image_id": 1, "category_id": 1, "bbox": [{number}, 0, 0, 0],'
        f' "segmentation": [[{number}, {number}]]}}'
    )
    scanned = annotations_text.scan(_text([ann]).encode(), json.loads)
    assert scanned is not None
    assert scanned.boxes[0, 0].view(np.uint64) == np.float64(expected).view(np.uint64)
    got = scanned.polygons.coords
    assert got.view(np.uint32).tolist() == _bits32([expected, expected]).tolist()


@needs_numba
@pytest.mark.parametrize("number", ["-0", "0", "7", "-3", "-12"])
def test_numbers_in_the_last_8_bytes(number):
    """Where 8 bytes do not follow its first digit, a number is read byte by byte
    (`_jit._number`)."""
    text = (
        '{"annotations":[{"image_id":1,"category_id":1,"bbox":[0,0,1,1],'
        f'"segmentation":[[{number},{number}]]}}]}}'
    )
    assert len(text) - text.rindex(number.lstrip("-")) < 8
    scanned = annotations_text.scan(text, json.loads)
    assert scanned is not None
    expected = _bits32([json.loads(number)] * 2)
    assert scanned.polygons.coords.view(np.uint32).tolist() == expected.tolist()


@needs_numba
@pytest.mark.parametrize("blank", ["", " ", "\n", "\t", "\r\n  ", " \t\n\r "])
def test_json_whitespace_anywhere(blank):
    rng = random.Random(1)
    polygons = [[_number_text(rng) for _ in range(6)], [_number_text(rng) for _ in range(4)]]
    anns = [_annotation(rng, polygons, blank=blank) for _ in range(3)]
    text = _text(anns, blank=blank)
    # around the brackets too
    text = text.replace("[[", f"[{blank}[{blank}").replace("]]", f"{blank}]{blank}]")
    scanned = annotations_text.scan(text, json.loads)
    assert scanned is not None
    coords = [c for e in json.loads(text)["annotations"] for p in e["segmentation"] for c in p]
    assert scanned.polygons.coords.view(np.uint32).tolist() == _bits32(coords).tolist()
    _same_outcome(text, CocoOptions(polygons=True, ratio=True))


def _plain():
    return json.loads(_text([_annotation(random.Random(2), [["1", "2", "3", "4"]])]))


def _with(change, **dumps):
    doc = _plain()
    change(doc, doc["annotations"][0])
    return json.dumps(doc, **dumps)


@needs_numba
@pytest.mark.parametrize(
    "text",
    [
        # numbers JSON does not write so (json reads NaN and Infinity: their result then)
        _text(
            ['{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "segmentation": [[N]]}']
        ).replace("N", n)
        for n in ["01, 1", ".5, 1", "1., 1", "1e, 1", "-, 1", "+1, 1", "NaN, 1", "Infinity, 1"]
    ]
    + [
        _text(
            ['{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "segmentation": S}']
        ).replace("S", s)
        for s in [
            "[[1, 2,]]",
            "[[1, 2]",
            "[[1 2]]",
            '[["1", 2]]',
            "[[true, 2]]",
            "[[[1, 2]]]",
            "[[1, 2, 3]]",  # odd
            "[1, 2]",
            "7",
            '"1 2"',
            "[[1,\f2]]",  # not JSON's whitespace
            "[[1,\u00a02]]",
        ]
    ]
    + [
        _with(lambda d, a: a.update(image_id=1.0)),
        _with(lambda d, a: a.update(image_id=2**31)),
        _with(lambda d, a: a.update(category_id=-(2**31) - 1)),
        _with(lambda d, a: a.update(iscrowd=True)),
        _with(lambda d, a: a.update(iscrowd=None)),
        _with(lambda d, a: a.update(bbox=[1, 2, 3])),
        _with(lambda d, a: a.update(bbox=[1, 2, 3, 4, 5])),
        _with(lambda d, a: a.update(bbox=[1, 2, 3, "4"])),
        _with(lambda d, a: a.pop("bbox")),
        _with(lambda d, a: a.pop("image_id")),
        _with(lambda d, a: a.pop("category_id")),
        _with(lambda d, a: a.update(note="caf\u00e9"), ensure_ascii=False),  # beyond ASCII
        _with(lambda d, a: a.update(note="x")).replace('"x"', '"\x01"'),
        _with(lambda d, a: d["annotations"].append(None)),
        _with(lambda d, a: d["annotations"].append([])),
        _with(lambda d, a: d.update(annotations={"0": a})),
        _with(lambda d, a: d.update(annotations=7)),
        _with(lambda d, a: d.pop("annotations")),
        _with(lambda d, a: a.update(deep=0)).replace('"deep": 0', '"deep": ' + "[" * 70 + "]" * 70),
    ]
    + [
        # a key spelt with an escape, a key twice, the list twice
        _with(lambda d, a: None).replace('"image_id"', '"image\\u005fid"', 1),
        _with(lambda d, a: None).replace('"category_id"', '"image_id": 2, "category_id"', 1),
        _with(lambda d, a: None).replace(
            '"segmentation": [[1', '"segmentation": [[5, 6]], "segmentation": [[1', 1
        ),
        _with(lambda d, a: None).replace('"annotations"', '"annot\\u0061tions"', 1),
        _with(lambda d, a: None)[:-1] + ', "annotations": 0}',
        _with(lambda d, a: None)[:-1] + ', "annotations": []}',
        "[" + _with(lambda d, a: None) + "]",
        "\ufeff" + _with(lambda d, a: None),
    ],
)
@pytest.mark.parametrize("loads", LOADERS)
def test_what_the_scanner_does_not_read_plainly_is_the_whole_texts(text, loads, monkeypatch):
    assert annotations_text.scan(text, loads) is None
    monkeypatch.setattr(annotations, "_loads", lambda: loads)
    for options in [
        CocoOptions(),
        CocoOptions(polygons=True),
        CocoOptions(polygons=True, rles=True),
    ]:
        _same_outcome(text, options)


@needs_numba
@pytest.mark.parametrize(
    "change",
    [
        # what the scanner reads: other members of any JSON type, escapes, null, RLEs, ...
        lambda d, a: a.update(
            note='a "segmentation": [[1, 2]] in a string \\ \u0001',
            attributes={"occluded": False, "tags": ["a", 1, 2.5e3, None, True, {}]},
            keypoints=[1, 2, 2, 0, 0, 0],
            annotations=[1, 2],
        ),
        lambda d, a: a.update(segmentation=None),
        lambda d, a: a.pop("segmentation"),
        lambda d, a: a.pop("iscrowd"),
        lambda d, a: a.update(segmentation=[]),
        lambda d, a: a.update(segmentation=[[]]),
        lambda d, a: a.update(segmentation=[[], [1, 2], []]),
        lambda d, a: a.update(iscrowd=1, segmentation={"size": [31, 41], "counts": [3, 5, 1263]}),
        lambda d, a: a.update(segmentation={"size": [31, 41], "counts": "0\\1]\\\\"}),
        lambda d, a: a.update(image_id=-(2**31), category_id=2**31 - 1),
        lambda d, a: d.update(info={"annotations": "not these"}, licenses=[]),
        lambda d, a: d.update(annotations=[]),
        lambda d, a: d.update(annotations=[a] * 300),
    ],
)
@pytest.mark.parametrize("loads", LOADERS)
def test_what_the_scanner_reads_is_the_whole_texts(change, loads, monkeypatch, no_numpy_path):
    text = _with(change)
    assert annotations_text.scan(text, loads) is not None
    monkeypatch.setattr(annotations, "_loads", lambda: loads)
    for options in [
        CocoOptions(),
        CocoOptions(polygons=True, ratio=True),
        CocoOptions(polygons=True, rles=True, ltrb=True),
        CocoOptions(polygons=True, include_iscrowd=False, skip_empty=True),
    ]:
        _same_outcome(text, options)


# -- parse_coco ---------------------------------------------------------------------------------


def _document(seed, annotations=300):
    rng = random.Random(seed)
    images = [
        {
            "id": i,
            "file_name": f"{i:04d}_\u00fc.jpg",
            "width": rng.randint(20, 900),
            "height": rng.randint(20, 900),
        }
        for i in rng.sample(range(1, 5000), 40)
    ]
    anns = []
    for a in range(annotations):
        img = rng.choice(images)
        if rng.random() < 0.05:
            runs = [rng.randint(0, 40) for _ in range(rng.randint(2, 9))]
            runs.append(img["width"] * img["height"] - sum(runs))
            seg = {"size": [img["height"], img["width"]], "counts": runs}
        else:
            seg = [
                [json.loads(_number_text(rng)) for _ in range(2 * rng.randint(1, 15))]
                for _ in range(rng.choice([1, 1, 2, 3]))
            ]
        anns.append(
            {
                "id": a,
                "image_id": img["id"],
                "category_id": rng.randint(1, 12),
                "bbox": [json.loads(_number_text(rng)) for _ in range(2)]
                + [rng.uniform(0, 90), rng.randint(0, 90)],
                "area": rng.uniform(0, 1e4),
                "iscrowd": int(isinstance(seg, dict)),
                "segmentation": seg,
            }
        )
    cats = [{"id": c, "name": f"c{c}"} for c in rng.sample(range(1, 13), 10)]
    return {"info": {}, "images": images, "annotations": anns, "categories": cats}


@needs_numba
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("indent", [None, 1])
def test_parse_is_the_whole_texts_parse(seed, indent, no_numpy_path, monkeypatch):
    doc = _document(seed)
    text = json.dumps(doc, indent=indent)
    # named images: in the order given, one named twice (its vertices gathered twice)
    names = [im["file_name"] for im in doc["images"][::3]]
    options = [CocoOptions(**kw) for kw in _OPTIONS]
    options.append(CocoOptions(polygons=True, ratio=True, images=(*names, names[0])))

    def whole(text):
        raise AssertionError("the whole text was parsed")

    monkeypatch.setattr(annotations, "_load_json", whole)
    fast = [parse_coco(text.encode(), o) for o in options]
    monkeypatch.undo()
    for o, ann in zip(options, fast):
        _assert_same(ann, _full(text, o))


_SMALL = {"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1]}


@needs_numba
@pytest.mark.parametrize(
    ("anns", "table", "room"),
    [
        # more per byte than a COCO file has (and `scan`'s first tables hold)
        ([_SMALL] * 2000, "objects", 128),
        ([{**_SMALL, "segmentation": [[0, 0]] * 5000}], "polygons", 32),
        ([{**_SMALL, "segmentation": [[1] * 10000]}], "coordinates", 4),
        # 17 digits: more than 2**53, numbers for the JSON parser
        ([{**_SMALL, "segmentation": [[123.45678901234568] * 400]}], "long numbers", 1024),
    ],
)
def test_tables_out_of_room_are_made_larger(anns, table, room, no_numpy_path, monkeypatch):
    """The scanner counts what did not fit; one more pass, with room for that, reads it."""
    doc = {"images": [{"id": 1, "file_name": "a", "width": 3, "height": 3}], "annotations": anns}
    text = json.dumps(doc, separators=(",", ":"))
    kernels = annotations_text.jit_kernels()
    passes = []

    def scan(*args):
        passes.append(1)
        return kernels.scan(*args)

    monkeypatch.setattr(annotations_text, "jit_kernels", lambda: types.SimpleNamespace(scan=scan))
    scanned = annotations_text.scan(text, json.loads)
    monkeypatch.undo()
    assert scanned is not None and len(passes) == 2
    polygons = [p for a in anns for p in a.get("segmentation", [])]
    count = {
        "objects": len(anns),
        "polygons": len(polygons),
        "coordinates": sum(map(len, polygons)),
        "long numbers": sum(map(len, polygons)),
    }[table]
    assert count > len(text) // room + 16  # more than the first pass had room for
    assert len(scanned.image_ids) == len(anns)
    assert scanned.polygons.sizes.tolist() == [len(p) for p in polygons]
    coords = [c for p in polygons for c in p]
    assert scanned.polygons.coords.view(np.uint32).tolist() == _bits32(coords).tolist()
    _same_outcome(text, CocoOptions(polygons=True, ratio=True))


@pytest.mark.parametrize("seed", range(2))
def test_without_numba_the_numpy_path_is_the_whole_texts_parse(seed, monkeypatch):
    monkeypatch.setattr(annotations_text, "jit_kernels", lambda: None)
    cuts = []
    cut = polygon_text.cut
    monkeypatch.setattr(polygon_text, "cut", lambda text: cuts.append(1) or cut(text))
    text = json.dumps(_document(seed))
    assert annotations_text.scan(text, json.loads) is None
    for kw in _OPTIONS:
        _same_outcome(text, CocoOptions(**kw))
    assert cuts  # the numpy path read the polygons
    names = [im["file_name"] for im in _document(seed)["images"][::3]]
    _same_outcome(text, CocoOptions(polygons=True, ratio=True, images=(*names, names[0])))


@needs_numba
def test_json_errors_are_the_whole_texts():
    text = _with(lambda d, a: None)
    for broken in [
        text[:-1],
        text + "x",
        text.replace('"images": [', '"images": [,', 1),
        text.replace('"images": [', '"images": [NaN, ', 1),  # json reads it: its result
        text.encode().replace(b'"1.jpg"', b'"\xff.jpg"'),
        text.replace('"file_name": "1.jpg"', '"file_name": "1\x01.jpg"', 1),
    ]:
        _same_outcome(broken, CocoOptions(polygons=True))
