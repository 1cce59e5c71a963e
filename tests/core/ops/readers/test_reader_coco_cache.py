"""`readers.coco`'s cache of parsed annotation files (`dali._ops.readers.coco.cache`).

Each test points ``DALI_CACHE_DIR`` at a folder of its own. Whether a build parsed the file or
read the cache is told by counting the reader's calls of `parse_coco`.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap

import dali
import numpy as np
import pytest
from dali import fn
from dali._ops.readers.coco import cache
from dali._ops.readers.coco import reader as coco_reader
from dali._ops.readers.coco.annotations import CocoOptions, parse_coco
from dali._testing.coco import make_coco

N = 12  # images of the set


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    return make_coco(tmp_path_factory.mktemp("coco"), n_images=N)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The cache's folder for this test (its entries are ``folder / "coco" / <entry>``)."""
    monkeypatch.setenv("DALI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DALI_COCO_CACHE", raising=False)
    return tmp_path / "cache"


@pytest.fixture
def parses(monkeypatch):
    """The number of times readers parsed an annotation file (a list: ``len(parses)``)."""
    calls = []

    def counted(text, options):
        calls.append(options)
        return parse_coco(text, options)

    monkeypatch.setattr(coco_reader, "parse_coco", counted)
    return calls


def _entries(folder):
    root = folder / "coco"
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


def _run(annotations_file, file_root, n=N, **kw):
    """The first ``n`` samples of a reader of the set: per sample, its outputs and its info."""
    pipe = dali.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=7)
    with pipe:
        out = fn.readers.coco(
            file_root=file_root, annotations_file=annotations_file, name="Reader", **kw
        )
        pipe.set_outputs(*out)
    pipe.build()
    got = []
    while len(got) < n:
        batch = pipe.run()
        for i in range(len(batch[0])):
            got.append(([np.array(o.at(i)) for o in batch], batch[0][i].source_info()))
    return got[:n]


def _assert_same(a, b):
    assert len(a) == len(b)
    for (xs, ia), (ys, ib) in zip(a, b):
        assert ia == ib and len(xs) == len(ys)
        for x, y in zip(xs, ys):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


#: The output and argument combinations of the reader's tests.
COMBINATIONS = [
    {},
    {"ltrb": True, "ratio": True},
    {"include_iscrowd": False, "avoid_class_remapping": True},
    {"size_threshold": 6.5, "skip_empty": True},
    {"images": ["000000000007.jpg", "000000000003.jpg", "missing.jpg", "000000000007.jpg"]},
    {"polygon_masks": True, "ratio": True, "image_ids": True},
    {"masks": True},
    {"pixelwise_masks": True},
    {"pixelwise_masks": True, "ratio": True, "skip_empty": True, "image_ids": True},
]


@pytest.mark.filterwarnings("ignore:.*argument `masks` is deprecated")
@pytest.mark.parametrize("kw", COMBINATIONS, ids=lambda kw: ",".join(kw) or "plain")
def test_cached_builds_give_the_batches_of_a_parse(coco, folder, parses, monkeypatch, kw):
    n = 4 if "images" in kw else N
    monkeypatch.setenv("DALI_COCO_CACHE", "0")
    parsed = _run(coco.annotations_file, coco.file_root, n, **kw)
    assert len(parses) == 1 and not _entries(folder)
    monkeypatch.delenv("DALI_COCO_CACHE")
    first = _run(coco.annotations_file, coco.file_root, n, **kw)  # parses, writes the entry
    assert len(parses) == 2 and len(_entries(folder)) == 1
    cached = _run(coco.annotations_file, coco.file_root, n, **kw)
    assert len(parses) == 2  # read from the entry
    _assert_same(first, parsed)
    _assert_same(cached, parsed)


@pytest.mark.filterwarnings("ignore:.*argument `masks` is deprecated")
def test_an_entry_per_table_and_the_tables_kept(coco, folder, parses):
    _run(coco.annotations_file, coco.file_root, 4)
    _run(coco.annotations_file, coco.file_root, 4, polygon_masks=True)
    # image ids and legacy polygons change the outputs, not the tables: the entry is shared
    _run(coco.annotations_file, coco.file_root, 4, polygon_masks=True, image_ids=True)
    _run(coco.annotations_file, coco.file_root, 4, masks=True)
    assert len(parses) == 2 and len(_entries(folder)) == 2
    entry = next((folder / "coco").iterdir())
    files = {p.name for p in entry.iterdir()}
    assert "meta.json" in files and "boxes.npy" in files and "filenames.npy" in files
    for name in files - {"meta.json"}:
        np.load(entry / name, allow_pickle=False)  # plain .npy files, no pickle
    meta = json.loads((entry / "meta.json").read_text())
    assert meta["source"] == os.path.realpath(coco.annotations_file)
    assert meta["size"] == os.stat(coco.annotations_file).st_size


def test_a_changed_file_is_parsed_again(coco, folder, parses, tmp_path):
    path = tmp_path / "instances.json"
    shutil.copy(coco.annotations_file, path)
    before = _run(str(path), coco.file_root, 4)
    (old,) = _entries(folder)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # touched
    _assert_same(_run(str(path), coco.file_root, 4), before)
    assert len(parses) == 2
    (new,) = _entries(folder)  # the entry of the file's earlier version is gone
    assert new != old
    # another content: its own labels
    doc = json.loads(path.read_text())
    for a in doc["annotations"]:
        a["category_id"] = doc["categories"][0]["id"]
    path.write_text(json.dumps(doc))
    after = _run(str(path), coco.file_root, 4)
    assert len(parses) == 3
    for (outs, _), (old_outs, _) in zip(after, before):
        np.testing.assert_array_equal(outs[2], np.ones_like(old_outs[2]))


@pytest.mark.parametrize("damage", ["flipped", "truncated", "meta", "missing table", "not json"])
def test_a_damaged_entry_is_parsed_again(coco, folder, parses, damage):
    kw = {"polygon_masks": True}
    first = _run(coco.annotations_file, coco.file_root, N, **kw)
    (name,) = _entries(folder)
    entry = folder / "coco" / name
    table = entry / "vertices.npy"
    raw = bytearray(table.read_bytes())
    if damage == "flipped":
        raw[-3] ^= 0x40  # a vertex, same size: only the checksum tells
        table.write_bytes(bytes(raw))
    elif damage == "truncated":
        table.write_bytes(bytes(raw[: len(raw) // 2]))
    elif damage == "meta":
        meta = json.loads((entry / "meta.json").read_text())
        meta["size"] += 1
        (entry / "meta.json").write_text(json.dumps(meta))
    elif damage == "missing table":
        table.unlink()
    else:
        (entry / "meta.json").write_text("{not json")
    _assert_same(_run(coco.annotations_file, coco.file_root, N, **kw), first)
    assert len(parses) == 2
    # the damaged entry was replaced by a good one
    assert _entries(folder) == [name]
    _assert_same(_run(coco.annotations_file, coco.file_root, N, **kw), first)
    assert len(parses) == 2


@pytest.mark.parametrize("value", ["0", "off", "False", "no"])
def test_the_off_switch(coco, folder, parses, monkeypatch, value):
    _run(coco.annotations_file, coco.file_root, 4)  # an entry exists...
    monkeypatch.setenv("DALI_COCO_CACHE", value)
    _run(coco.annotations_file, coco.file_root, 4)  # ...and is not read
    _run(coco.annotations_file, coco.file_root, 4, ratio=True)  # nor one written
    assert len(parses) == 3 and len(_entries(folder)) == 1


def test_saving_preprocessed_annotations_leaves_the_cache_alone(coco, folder, parses, tmp_path):
    kw = {"save_preprocessed_annotations": True, "save_preprocessed_annotations_dir": str(tmp_path)}
    _run(coco.annotations_file, coco.file_root, 4, **kw)
    _run(coco.annotations_file, coco.file_root, 4, **kw)
    assert len(parses) == 2 and not _entries(folder)
    assert (tmp_path / "boxes.dat").is_file()


def test_a_cache_that_cannot_be_written_costs_only_the_parse(coco, tmp_path, monkeypatch, parses):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("DALI_CACHE_DIR", str(blocker))  # its coco/ cannot be made
    monkeypatch.delenv("DALI_COCO_CACHE", raising=False)
    first = _run(coco.annotations_file, coco.file_root, 4)
    _assert_same(_run(coco.annotations_file, coco.file_root, 4), first)
    assert len(parses) == 2


def test_where_the_cache_lives(monkeypatch, tmp_path):
    monkeypatch.setenv("DALI_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine" / "coco"
    monkeypatch.delenv("DALI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "dali" / "coco"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored (XDG)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "dali" / "coco"


def test_saving_what_another_process_saved_first(coco, tmp_path):
    options = CocoOptions(polygons=True, rles=True)
    with open(coco.annotations_file) as f:
        ann = parse_coco(f.read(), options)
    cache.save(coco.annotations_file, options, ann, folder=tmp_path)
    (entry,) = tmp_path.iterdir()
    before = {p.name: p.read_bytes() for p in entry.iterdir()}
    cache.save(coco.annotations_file, options, ann, folder=tmp_path)  # the rename loses
    assert [p.name for p in tmp_path.iterdir()] == [entry.name]  # no temporary folder left
    assert {p.name: p.read_bytes() for p in entry.iterdir()} == before
    back = cache.load(coco.annotations_file, options, folder=tmp_path)
    assert back is not None and back.filenames == ann.filenames
    assert [r.tolist() for r in back.rles] == [r.tolist() for r in ann.rles]
    assert back.rle_sizes == ann.rle_sizes and back.rles
    for name in ("boxes", "labels", "polygons", "vertices", "mask_offsets", "rle_objects"):
        np.testing.assert_array_equal(getattr(back, name), getattr(ann, name))
        assert not getattr(back, name).flags.writeable  # mapped read-only: never changed


_CHILD = textwrap.dedent(
    """
    import os, pickle, sys, time

    import dali
    import numpy as np
    from dali import fn
    from dali._ops.readers.coco import cache

    gate, out, file_root, annotations_file = sys.argv[1:]
    save = cache.save

    def gated_save(*args, **kwargs):
        # both processes have parsed before either saves: they race for the entry
        open(os.path.join(gate, str(os.getpid())), "w").close()
        deadline = time.monotonic() + 120
        while len(os.listdir(gate)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        save(*args, **kwargs)

    cache.save = gated_save
    pipe = dali.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=7)
    with pipe:
        pipe.set_outputs(*fn.readers.coco(
            file_root=file_root, annotations_file=annotations_file, name="Reader",
            polygon_masks=True, image_ids=True, ratio=True))
    pipe.build()
    got = []
    for _ in range(3):
        batch = pipe.run()
        for i in range(len(batch[0])):
            got.append(([np.array(o.at(i)) for o in batch], batch[0][i].source_info()))
    with open(out, "wb") as f:
        pickle.dump(got, f)
    """
)


def test_two_processes_building_at_once(coco, folder, tmp_path, monkeypatch):
    gate = tmp_path / "gate"
    gate.mkdir()
    outs = [tmp_path / f"out{k}.pkl" for k in range(2)]
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _CHILD,
                str(gate),
                str(out),
                coco.file_root,
                coco.annotations_file,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for out in outs
    ]
    for child in children:
        log, _ = child.communicate(timeout=300)
        assert child.returncode == 0, log.decode()
    assert len(os.listdir(gate)) == 2  # both parsed: neither found an entry
    assert len(_entries(folder)) == 1  # one entry, no temporary folder left
    monkeypatch.setenv("DALI_COCO_CACHE", "0")
    expected = _run(
        coco.annotations_file, coco.file_root, N, polygon_masks=True, image_ids=True, ratio=True
    )
    for out in outs:
        with open(out, "rb") as f:
            _assert_same(pickle.load(f), expected)
    monkeypatch.delenv("DALI_COCO_CACHE")
    assert cache.load(coco.annotations_file, CocoOptions(ratio=True, polygons=True)) is not None
