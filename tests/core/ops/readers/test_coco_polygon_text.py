"""`readers.coco`'s polygons read from the JSON text (`polygon_text`) and `parse_coco`'s path
through it: the same numbers, tables and errors as parsing the whole text as JSON. The tests
of `parse_coco` run through the compiled scanner (`annotations_text`) too."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest
from dali._ops.readers.coco import annotations, annotations_text, polygon_text
from dali._ops.readers.coco.annotations import CocoError, CocoOptions, parse_coco

LOADERS = [pytest.param(json.loads, id="json")]
try:
    import orjson
except ImportError:  # pragma: no cover
    pass
else:
    LOADERS.append(pytest.param(orjson.loads, id="orjson"))


def _read(values, loads=json.loads):
    return polygon_text.read(values, loads)


def _bits(a):
    return np.asarray(a, np.float64).view(np.uint64)


# -- cut ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [str, bytes])
def test_cut_replaces_each_polygon_value_by_its_index(kind):
    text = (
        '{"annotations": [{"segmentation": [[1, 2], [3, 4]], "id": 1},'
        ' {"segmentation" :\n [ [5,6]\n ] , "id": 2},'
        ' {"segmentation": {"size": [1, 1], "counts": [1]}},'
        ' {"segmentation": []},'
        ' {"name": "\\"segmentation\\": [[7, 8]]"},'
        ' {"segmentation": [[9, 10]]}]}'
    )
    if kind is bytes:
        text = text.encode()
    doc, values = polygon_text.cut(text)
    assert type(doc) is kind and all(type(v) is kind for v in values)
    dec = (lambda t: t) if kind is str else bytes.decode
    assert [dec(v) for v in values] == ["[[1, 2], [3, 4]]", "[ [5,6]\n ]", "[[9, 10]]"]
    segs = [a.get("segmentation") for a in json.loads(doc)["annotations"]]
    assert segs == [0, 1, {"size": [1, 1], "counts": [1]}, [], None, 2]


# -- read: numbers ------------------------------------------------------------------------------


def _random_numbers(rng, n):
    out = []
    for _ in range(n):
        decimals = rng.randint(0, 7)
        whole = str(rng.randint(0, 10 ** rng.randint(1, 8 - decimals if decimals < 7 else 1)))
        s = (
            whole
            if decimals == 0
            else whole + "." + str(rng.randint(0, 10**decimals - 1)).zfill(decimals)
        )
        out.append("-" + s if rng.random() < 0.3 else s)
    # the edges of the bit operations, and what goes to the JSON parser
    out += ["0", "-0", "0.0", "-0.0", "0.5", "-0.05", "7", "99999999", "-99999999", "9999999.9"]
    out += ["0.0000001", "123456789", "1234567.891", "0.30000000000000004", "1e5", "-1.5E-3"]
    out += ["2.5e+2", "1e-05", "-0e0", "12345678901234567", "4.9e-324", "1.7976931348623157e308"]
    return out


@pytest.mark.parametrize("loads", LOADERS)
def test_numbers_are_bit_identical_to_the_json_parsers(loads):
    numbers = _random_numbers(random.Random(5), 20000)
    text = "[[" + ", ".join(numbers) + "]]"
    p = _read([text], loads)
    assert p is not None
    assert p.per_value.tolist() == [1] and p.sizes.tolist() == [len(numbers)]
    expected = np.fromiter(loads("[" + ",".join(numbers) + "]"), np.float64, len(numbers))
    assert _bits(p.coords).tolist() == _bits(expected).tolist()


def test_negative_zero_as_the_json_parsers_give_it():
    p = _read(["[[-0, -0.0, 0, -0.00, -0e0]]"])
    # "-0" is an integer (0), the others floats (-0.0)
    assert _bits(p.coords).tolist() == _bits([0.0, -0.0, 0.0, -0.0, -0.0]).tolist()


def test_structure_counts_polygons_and_coordinates():
    values = ["[[1, 2, 3, 4], [5, 6]]", "[[7]]", "[ [ 8 , 9 ] ,\n\t[10,11],[12,13,14] ]"]
    p = _read(values)
    assert p.per_value.tolist() == [2, 1, 3]
    assert p.sizes.tolist() == [4, 2, 1, 2, 2, 3]
    assert p.coords.tolist() == list(range(1, 15))


def test_values_spread_over_many_chunks(monkeypatch):
    monkeypatch.setattr(polygon_text, "_CHUNK", 64)
    rng = random.Random(3)
    lists = [
        [[round(rng.uniform(-500, 500), rng.randint(0, 3)) for _ in range(rng.randint(1, 12))]]
        * rng.randint(1, 3)
        for _ in range(300)
    ]
    values = [json.dumps(v, separators=rng.choice([(",", ":"), (", ", ": ")])) for v in lists]
    p = _read(values)
    assert p.per_value.tolist() == [len(v) for v in lists]
    assert p.sizes.tolist() == [len(poly) for v in lists for poly in v]
    flat = [float(c) for v in lists for poly in v for c in poly]
    assert _bits(p.coords).tolist() == _bits(flat).tolist()


@pytest.mark.parametrize(
    "value",
    [
        # numbers JSON does not have
        "[[.5]]",
        "[[01]]",
        "[[-01.5]]",
        "[[00]]",
        "[[+1]]",
        "[[1.]]",
        "[[-.5]]",
        "[[1..2]]",
        "[[1.2.3]]",
        "[[--1]]",
        "[[-]]",
        "[[1-2]]",
        "[[1e]]",
        "[[0x10]]",
        "[[NaN]]",
        "[[Infinity]]",
        "[[-Infinity]]",
        "[[1/2]]",
        "[[1 2]]",
        "[[1\f]]",
        "[[1\v, 2]]",
        # structure
        "[[]]",
        "[[1], []]",
        "[[[1]]]",
        "[[1, [2]]]",
        "[[1, [2]]",  # as `cut` cuts "[[1, [2]]]"
        "[[1], [2, [3]]",
        "[[1,,2]]",
        "[[,1]]",
        "[[1,]]",
        "[[1], 2]",
        "[[1]2]",
        "[[1],,[2]]",
        "[[1] [2]]",
        # other JSON values
        '[["1"]]',
        "[[true]]",
        "[[null]]",
        "[[{}]]",
        '[[1, "a,b", 2]]',
        "[[1Y2]]",
        "[[1_2]]",
        "[[1é]]",
    ],
)
def test_what_is_not_plainly_a_polygon_list_gives_none(value):
    loads = LOADERS[-1].values[0]
    assert _read([value], loads) is None
    assert _read(["[[1, 2]]", value, "[[3]]"], loads) is None


@pytest.mark.parametrize(
    "value", ["[[1e5]]", "[[-1.5E-3, 2e+2]]", "[[123456789.123]]", "[[12345678901234567890123]]"]
)
@pytest.mark.parametrize("loads", LOADERS)
def test_long_numbers_and_exponents_go_to_the_json_parser(value, loads):
    expected = np.fromiter(loads(value)[0], np.float64)
    assert _bits(_read([value], loads).coords).tolist() == _bits(expected).tolist()


def test_none_for_a_value_with_a_character_beyond_ascii():
    assert _read(["[[1, 2]]", "[[1,\u00a02]]"]) is None


# -- parse_coco: the same result as the whole text's parse ---------------------------------


@pytest.fixture(params=["numpy", "scanner"])
def path(request):
    """`parse_coco` through `polygon_text` (as without Numba) or the compiled scanner."""
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "numpy":
            patch.setattr(annotations_text, "jit_kernels", lambda: None)
        elif not annotations_text.available():
            pytest.skip("the scanner needs Numba")
        yield request.param


def _full(text, options):
    with annotations._collector_paused():
        return annotations._parse(annotations._load_json(text), options)


def _assert_same(a, b):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "rles":
            assert len(x) == len(y)
            for p, q in zip(x, y):
                assert p.dtype == q.dtype and p.tobytes() == q.tobytes()
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, f.name
            assert x.tobytes() == y.tobytes(), f.name
        else:
            assert x == y, f.name


def _same_outcome(text, options):
    """`parse_coco` gives the whole text's result, or raises its error."""
    try:
        expected = _full(text, options)
    except CocoError as e:
        with pytest.raises(CocoError) as got:
            parse_coco(text, options)
        assert str(got.value) == str(e)
    else:
        _assert_same(parse_coco(text, options), expected)


def _document(seed, *, images=30, annotations=200):
    rng = random.Random(seed)
    imgs = [
        {
            "id": int(i),
            "file_name": f"{i:06d}_ünï.jpg",
            "width": rng.randint(50, 700),
            "height": rng.randint(50, 700),
        }
        for i in rng.sample(range(1, 10 * images), images)
    ]
    cats = [{"id": c, "name": f"cat {c} \u6f22"} for c in rng.sample(range(1, 99), 12)]
    anns = []
    for a in range(annotations):
        img = rng.choice(imgs)
        crowd = rng.random() < 0.08
        if crowd:
            runs = [rng.randint(0, 40) for _ in range(rng.randint(2, 9))]
            runs.append(img["width"] * img["height"] - sum(runs))
            seg = {"size": [img["height"], img["width"]], "counts": runs}
        elif rng.random() < 0.05:
            seg = []
        else:
            seg = [
                [
                    rng.choice(
                        [
                            round(rng.uniform(-20, img["width"]), rng.randint(0, 4)),
                            rng.randint(-5, 800),
                            float(f"{rng.uniform(0, 3):.3e}"),
                            rng.uniform(0, 500),  # 17 digits
                            rng.uniform(-1, 1) * 1e-5,  # an exponent
                        ]
                    )
                    for _ in range(2 * rng.randint(1, 12))
                ]
                for _ in range(rng.choice([1, 1, 1, 2, 3]))
            ]
        w, h = rng.uniform(0, 80), rng.uniform(0, 80)
        entry = {
            "id": a + 1,
            "image_id": img["id"],
            "category_id": rng.choice(cats)["id"],
            "bbox": [round(rng.uniform(0, 300), 2), rng.randint(0, 300), w, h],
            "iscrowd": int(crowd),
            "segmentation": seg,
            "note": 'a "segmentation": [[1, 2]] in a string',
        }
        if rng.random() < 0.5:  # keys in another order
            entry = dict(reversed(entry.items()))
        anns.append(entry)
    rng.shuffle(anns)
    return {
        "info": {"segmentation": "none"},
        "images": imgs,
        "annotations": anns,
        "categories": cats,
    }


_LAYOUTS = {
    "default": {},
    "compact": {"separators": (",", ":")},
    "indented": {"indent": 2},
    "tabs": {"indent": "\t", "ensure_ascii": False},
}

_OPTIONS = [
    {},
    {"polygons": True},
    {"polygons": True, "ratio": True, "skip_empty": True},
    {"polygons": True, "ltrb": True, "include_iscrowd": False},
    {"polygons": True, "rles": True, "ratio": True},
    {"polygons": True, "size_threshold": 20.0, "avoid_class_remapping": True},
]


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
@pytest.mark.parametrize("seed", [0, 1])
def test_parse_is_the_whole_texts_parse(layout, seed, monkeypatch):
    doc = _document(seed)
    text = json.dumps(doc, **_LAYOUTS[layout])
    calls = []
    monkeypatch.setattr(annotations, "_load_json", lambda t: calls.append(t))
    fast = {i: parse_coco(text, CocoOptions(**kw)) for i, kw in enumerate(_OPTIONS)}
    assert calls == []  # no option sent the text to the whole parse
    monkeypatch.undo()
    for i, kw in enumerate(_OPTIONS):
        _assert_same(fast[i], _full(text, CocoOptions(**kw)))
    names = tuple(im["file_name"] for im in doc["images"][::3])
    opts = CocoOptions(polygons=True, images=names)
    _assert_same(parse_coco(text.encode(), opts), _full(text, opts))


@pytest.mark.usefixtures("path")
def test_parse_of_annotations_in_the_images_order(monkeypatch):
    doc = _document(2)
    doc["annotations"].sort(key=lambda a: (a["image_id"], a["id"]))
    text = json.dumps(doc)
    opts = CocoOptions(polygons=True)
    _assert_same(parse_coco(text, opts), _full(text, opts))


def _with_segmentation(seg, *, extra=None):
    doc = _document(3, images=3, annotations=6)
    doc["annotations"][4]["segmentation"] = seg
    if extra:
        doc["annotations"][1].update(extra)
    return json.dumps(doc)


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize(
    "text",
    [
        # an integer where a polygon list was cut, or a list cut that was no annotation's
        _with_segmentation(7),
        _with_segmentation(1).replace('"segmentation": 1', '"segmentation": [[1, 2]]', 1),
        _with_segmentation([[1, 2]], extra={"more": {"segmentation": [[1, 2]]}}),
        # what the document's checks refuse, or the cut polygons cannot read
        _with_segmentation([1, 2]),
        _with_segmentation([[1, 2, 3]]),
        _with_segmentation([[1, 2]]).replace("[[1, 2]]", "[[1, NaN]]", 1),
        _with_segmentation([[1, 2]]).replace("[[1, 2]]", "[[1, 1e400]]", 1),
        _with_segmentation([[1, 2]]).replace("[[1, 2]]", '[[1, "2"]]', 1),
        _with_segmentation([[1, 2]]).replace("[[1, 2]]", "[[1, 2], []]", 1),
    ],
)
@pytest.mark.parametrize("polygons", [False, True])
def test_what_the_cut_cannot_read_is_the_whole_texts_parse(text, polygons):
    _same_outcome(text, CocoOptions(polygons=polygons))


@pytest.mark.usefixtures("path")
def test_duplicate_segmentation_keys_keep_the_last():
    text = _with_segmentation([[1, 2]]).replace(
        '"segmentation": [[1, 2]]', '"segmentation": [[5, 6, 7, 8]], "segmentation": [[1, 2]]'
    )
    opts = CocoOptions(polygons=True)
    _assert_same(parse_coco(text, opts), _full(text, opts))


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize(
    ("seg", "message"),
    [
        ([[1, 2, 3]], "polygon 0 has an odd number of coordinates (3)"),
        ([[1, 2], [1, 2, 3, 4, 5]], "polygon 1 has an odd number of coordinates (5)"),
        ([[1, 2], [1, True]], "polygon 1 must be a number, got True"),
        (["1 2"], "polygon 0 must be a list of coordinates, got '1 2'"),
        ("1 2", "'segmentation' must be a list or an object"),
        (7, "'segmentation' must be a list or an object"),
    ],
)
def test_segmentation_errors_are_the_whole_texts(seg, message):
    base = {"images": [{"id": 1, "file_name": "a", "width": 4, "height": 3}]}
    ok = {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "segmentation": [[1, 2]]}
    bad = {"id": 8, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "segmentation": seg}
    text = json.dumps({**base, "annotations": [ok, bad, ok]})
    with pytest.raises(CocoError) as e:
        parse_coco(text, CocoOptions(polygons=True))
    assert str(e.value) == f"annotations #1 (id 8): {message}"
    assert len(parse_coco(text, CocoOptions())) == 1  # nothing checked without masks


@pytest.mark.usefixtures("path")
def test_json_errors_are_the_whole_texts():
    text = json.dumps({"annotations": [{"segmentation": [[1, 2]], "a": "é"}]})
    utf8 = text.encode()
    for broken in [
        text[:-1],
        text.replace("[[1, 2]]", "[[1, 2]"),
        text + "x",
        utf8.replace("é".encode(), b"\xff"),
    ]:
        with pytest.raises(CocoError) as e:
            parse_coco(broken, CocoOptions(polygons=True))
        with pytest.raises(CocoError) as whole:
            _full(broken, CocoOptions(polygons=True))
        assert str(e.value) == str(whole.value)


@pytest.mark.usefixtures("path")
def test_parse_without_orjson_is_the_whole_texts_parse(monkeypatch):
    monkeypatch.setattr(annotations, "_loads", lambda: json.loads)
    doc = _document(4)
    doc["annotations"][0]["segmentation"] = [[1, 2, 3, 4]]
    text = json.dumps(doc).replace("[[1, 2, 3, 4]]", "[[1, NaN, 3, 4]]", 1)
    for t in [json.dumps(doc), text]:  # json reads NaN, where orjson fails
        opts = CocoOptions(polygons=True, ratio=True)
        _assert_same(parse_coco(t, opts), _full(t, opts))
