"""`fn.readers.webdataset` (DALI's ``readers.webdataset``): samples of tar shards.

The shards come from `dali._testing.webdataset`; the bytes are checked against what was written
and against Python's `tarfile`.
"""

from __future__ import annotations

import io
import json
import logging
import os
import tarfile

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn, ops, types
from dali._graph.schema import UNSET, get_schema
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.webdataset import tar as _wds_tar
from dali._ops.readers.webdataset.index import parse_index, split_name
from dali._ops.readers.webdataset.tar import TarFormatError, TarSource, parse_header, scan
from dali._testing import webdataset as wds
from dali._testing.checkpoints import check_pipeline_save_restore

N = 20
SHARDS = 3


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    return wds.make_wds_dataset(tmp_path_factory.mktemp("wds"), n=N, shards=SHARDS)


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    return wds.make_wds_edge_cases(tmp_path_factory.mktemp("wds_edge"))


def _pipeline(batch_size=4, *, seed=7, **reader_kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=None,
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
    )
    reader_kw.setdefault("name", "Reader")
    with pipe:
        out = fn.readers.webdataset(**reader_kw)
        pipe.set_outputs(*(out if isinstance(out, list) else [out]))
    return pipe


def _epoch(pipe, n):
    """The first ``n`` samples as (per output: bytes, per output: source_info) tuples."""
    out = []
    while len(out) < n:
        batch = pipe.run()
        for i in range(len(batch[0])):
            out.append(
                (
                    tuple(bytes(tl.at(i).view(np.uint8)) for tl in batch),
                    tuple(tl[i].source_info() for tl in batch),
                )
            )
    return out[:n]


def _build_error(**kw):
    pipe = _pipeline(2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.webdataset" in msg
    return msg


def _member_bytes(tar_path, offset, size):
    with open(tar_path, "rb") as f:
        f.seek(offset)
        return f.read(size)


# -- schema -----------------------------------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.webdataset")
    expected = {
        "paths": UNSET,
        "ext": UNSET,
        "index_paths": (),
        "missing_component_behavior": "",
        "dtypes": UNSET,
        "case_sensitive_extensions": True,
        "dont_use_mmap": False,
        "shuffle_after_epoch": False,
        "shuffle_after_epoch_seed": UNSET,
        "random_shuffle": False,
        "initial_fill": 1024,
        "shard_id": 0,
        "num_shards": 1,
        "pad_last_batch": False,
        "stick_to_shard": False,
        "read_ahead": False,
        "lazy_init": False,
        "prefetch_queue_depth": 1,
        "skip_cached_images": False,
        "tensor_init_bytes": 1048576,
        "seed": -1,
    }
    got = {k: schema.args[k].default for k in expected}
    got["paths"] = UNSET if got["paths"] is not None and not got["paths"] else got["paths"]
    got["ext"] = UNSET if not got["ext"] else got["ext"]
    assert got == expected
    assert schema.devices == ("cpu",)
    assert schema.outputs_for({"ext": ("jpg", "cls", "json")}) == 3


def test_ops_class(ds):
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        _, cls = ops.readers.Webdataset(paths=ds.tars, ext=["jpg", "cls"])()
        pipe.set_outputs(cls)
    (out,) = pipe.run()
    assert [bytes(out.at(i)) for i in range(2)] == [b"0", b"1"]


# -- the samples ------------------------------------------------------------------------------


@pytest.mark.parametrize("with_index", [True, False])
def test_outputs_are_the_components_bytes_in_shard_order(ds, with_index):
    kw = {"index_paths": ds.indices} if with_index else {}
    pipe = _pipeline(6, paths=ds.tars, ext=["jpg", "cls", "json"], **kw)
    assert pipe.epoch_size("Reader") == N
    got = _epoch(pipe, N)
    for i, (data, infos) in enumerate(got):
        comps = ds.samples[i]
        for ext, d, info in zip(("jpg", "cls", "json"), data, infos):
            assert d == comps.get(ext, b"")
            if ext not in comps:
                assert info == ""
                continue
            tar, offset, name = info.rsplit(":", 2)
            assert name == f"{ds.keys[i]}.{ext}" and tar in ds.tars
            assert _member_bytes(tar, int(offset), len(d)) == d


def test_types_shapes_layouts_and_static_meta(ds):
    pipe = _pipeline(5, paths=ds.tars, ext=["jpg", "json"], dtypes=[types.UINT8, types.INT8])
    jpg, js = pipe.run()
    assert jpg.dtype == types.UINT8 and js.dtype == types.INT8
    assert jpg.layout() == "" and js.layout() == ""
    assert js.at(4).shape == (len(ds.samples[4]["json"]),)
    assert jpg.at(0).shape == (len(ds.samples[0]["jpg"]),)
    with dali.Pipeline(batch_size=1, num_threads=1, device_id=None):
        a, b = fn.readers.webdataset(
            paths=ds.tars, ext=["a", "b"], dtypes=[types.FLOAT, types.INT64]
        )
    assert (a.dtype, b.dtype) == (types.FLOAT, types.INT64)
    assert a.layout == ""


def test_index_and_scan_list_the_same_samples(ds):
    a = _epoch(_pipeline(7, paths=ds.tars, index_paths=ds.indices, ext=["jpg", "cls;json"]), N)
    b = _epoch(_pipeline(7, paths=ds.tars, ext=["jpg", "cls;json"]), N)
    assert a == b


def test_random_values_downstream_do_not_depend_on_the_index(ds):
    def values(**kw):
        pipe = dali.Pipeline(batch_size=4, num_threads=1, device_id=None, seed=5)
        with pipe:
            cls = fn.readers.webdataset(paths=ds.tars, ext=["cls"], **kw)
            pipe.set_outputs(fn.random.uniform(cls, range=[0.0, 1.0]))
        return [[out.at(i).tolist() for i in range(4)] for (out,) in (pipe.run(), pipe.run())]

    assert values() == values(index_paths=ds.indices)
    assert values() != values(case_sensitive_extensions=False)  # a semantic argument


def test_extension_alternatives_take_the_first_component_of_the_shard(edge, caplog):
    with caplog.at_level(logging.WARNING, logger="dali"):
        pipe = _pipeline(3, paths=[str(edge["both"])], ext=["cls;json", "json;cls"])
        got = _epoch(pipe, 3)
    assert [d for d, _ in got] == [
        (b"0", b"0"),  # 000.cls comes first in the shard, whatever the order in `ext`
        (b'{"l": 1}', b'{"l": 1}'),
        (b'{"l": 2}', b'{"l": 2}'),
    ]
    warnings = [r for r in caplog.records if "several components" in r.getMessage()]
    assert len(warnings) == 1  # once, as DALI warns
    assert "000" in warnings[0].getMessage() and "both.tar" in warnings[0].getMessage()


def test_extensions_match_case_sensitively_by_default(edge):
    path = [str(edge["case"])]
    got = _epoch(_pipeline(3, paths=path, ext=["jpg", "cls"]), 3)
    assert [d for d, _ in got] == [(b"", b"0"), (b"J1", b""), (b"", b"")]
    got = _epoch(_pipeline(3, paths=path, ext=["JPG", "cls"], case_sensitive_extensions=False), 3)
    assert [d for d, _ in got] == [(b"J0", b"0"), (b"J1", b"1"), (b"J2", b"")]
    # the names in source_info keep their case
    assert got[0][1][0].endswith(":000.JPG")


def test_multi_dot_extensions_and_a_v11_index(edge):
    kw = {"paths": [str(edge["multi_dot"])], "ext": ["left.png", "right.png", "cls"]}
    scanned = _epoch(_pipeline(3, **kw), 3)
    assert [d for d, _ in scanned] == [(b"L0", b"R0", b"0"), (b"L1", b"", b"1"), (b"", b"R2", b"")]
    v11 = _epoch(_pipeline(3, index_paths=[str(edge["multi_dot_v11.idx"])], **kw), 3)
    assert [d for d, _ in v11] == [d for d, _ in scanned]
    # DALI's source_info of a v1.1 index: the member name is unknown, left empty
    assert v11[0][1][0] == f"{edge['multi_dot']}:512:"
    assert scanned[0][1][0] == f"{edge['multi_dot']}:512:000.left.png"


def test_hidden_files_directories_and_special_entries_are_not_components(edge):
    got = _epoch(_pipeline(3, paths=[str(edge["hidden"])], ext=["jpg", "cls"]), 3)
    assert [d for d, _ in got] == [(b"J0", b"0"), (b"J1", b"1"), (b"J2", b"")]
    assert got[1][1][0].endswith(":sub/001.jpg")
    got = _epoch(_pipeline(2, paths=[str(edge["hidden_first"])], ext=["jpg"]), 2)
    assert [d for d, _ in got] == [(b"J0",), (b"J1",)]
    # links, the FIFO and the device are skipped; "001.jpg" is a hard link, not a file
    pipe = _pipeline(2, paths=[str(edge["special"])], ext=["jpg", "lnk"])
    assert pipe.epoch_size("Reader") == 2
    assert [d for d, _ in _epoch(pipe, 2)] == [(b"J0", b""), (b"J4", b"")]


def test_samples_are_runs_of_one_key_and_undotted_names_are_their_own_extension(edge):
    got = _epoch(_pipeline(3, paths=[str(edge["regroup"])], ext=["jpg", "cls"]), 3)
    assert [d for d, _ in got] == [(b"J0", b""), (b"J1", b""), (b"", b"0")]
    got = _epoch(_pipeline(3, paths=[str(edge["no_dot"])], ext=["README", "jpg"]), 3)
    assert [d for d, _ in got] == [(b"", b"J0"), (b"read me", b""), (b"", b"J1")]
    assert split_name("a/b.c/d") == ("a/b.c/d", "a/b.c/d")
    assert split_name("x/y.tar.gz") == ("x/y", "tar.gz")


@pytest.mark.parametrize("name", ["gnu_long", "pax", "ustar", "typed", "special", "hidden"])
def test_scan_agrees_with_tarfile(edge, name):
    with tarfile.open(edge[name]) as tar:
        expected = [(m.name, m.offset_data, m.size, m.isreg()) for m in tar]
    got = [(m.name.rstrip("/"), m.offset, m.size, m.regular) for m in scan(str(edge[name]))]
    assert got == expected


def test_long_and_non_ascii_names(edge):
    for name in ("gnu_long", "pax"):
        got = _epoch(_pipeline(2, paths=[str(edge[name])], ext=["jpg", "cls"]), 2)
        assert got[0][0] == (b"J0", b"0")
        assert got[0][1][0].endswith("e" * 60 + "/000.jpg")
    got = _epoch(_pipeline(3, paths=[str(edge["pax"])], ext=["jpg"]), 3)
    assert got[2][1][0].endswith(":caf\u00e9/002.jpg")
    got = _epoch(_pipeline(1, paths=[str(edge["ustar"])], ext=["jpg", "cls"]), 1)
    assert got[0][1][0].endswith(f"{'p' * 90}/{'q' * 20}/000.jpg")


def test_zero_length_components(edge):
    pipe = _pipeline(2, paths=[str(edge["zero_size"])], ext=["jpg", "cls"])
    jpg, cls = pipe.run()
    assert jpg.at(0).shape == (0,) and jpg[0].source_info().endswith(":000.jpg")
    assert cls.at(1).shape == (0,) and cls[1].source_info().endswith(":001.cls")


# -- missing components and dtypes ------------------------------------------------------------


def test_missing_component_behavior(ds):
    ext = ["jpg", "cls"]
    has_cls = [i for i in range(N) if "cls" in ds.samples[i]]
    for value in ("skip", "SKIP"):
        pipe = _pipeline(4, paths=ds.tars, ext=ext, missing_component_behavior=value)
        assert pipe.epoch_size("Reader") == len(has_cls)
        got = _epoch(pipe, len(has_cls))
        assert [d[1] for d, _ in got] == [ds.samples[i]["cls"] for i in has_cls]
    for value in ("", "empty", "Empty"):
        pipe = _pipeline(4, paths=ds.tars, ext=ext, missing_component_behavior=value)
        assert pipe.epoch_size("Reader") == N
    msg = _build_error(paths=ds.tars, ext=ext, missing_component_behavior="error")
    assert "missing_component_behavior" in msg and "'000004'" in msg
    assert "shard-000000.tar" in msg and "output 1 (ext 'cls')" in msg
    msg = _build_error(
        paths=ds.tars, index_paths=ds.indices, ext=ext, missing_component_behavior="error"
    )
    assert "shard-000000.idx' line 6" in msg
    msg = _build_error(paths=ds.tars, ext=ext, missing_component_behavior="ignore")
    assert "invalid value 'ignore'" in msg and "empty, skip, error" in msg
    msg = _build_error(
        paths=[ds.tars[0]], ext=["jpg", "nothing"], missing_component_behavior="skip"
    )
    assert "no samples" in msg and "skipped" in msg


def test_an_extension_matching_nothing_warns(ds, caplog):
    with caplog.at_level(logging.WARNING, logger="dali"):
        _pipeline(2, paths=ds.tars, ext=["jpg", "JPG"]).build()
    msgs = [r.getMessage() for r in caplog.records if "matches no component" in r.getMessage()]
    assert len(msgs) == 1 and "'JPG'" in msgs[0] and "cls, jpg, json" in msgs[0]


def test_dtypes_reinterpret_the_bytes(edge):
    payloads = wds._payloads()
    pipe = _pipeline(
        2,
        paths=[str(edge["typed"])],
        ext=["f32", "i16", "f64"],
        dtypes=[types.FLOAT, types.INT16, types.FLOAT64],
    )
    f32, i16, f64 = pipe.run()
    np.testing.assert_array_equal(f32.at(0), np.frombuffer(payloads["f32"], "<f4"))
    np.testing.assert_array_equal(i16.at(0), np.frombuffer(payloads["i16"], "<i2"))
    np.testing.assert_array_equal(f64.at(0), np.frombuffer(payloads["f64"], "<f8"))
    np.testing.assert_array_equal(f32.at(1), np.frombuffer(payloads["f32"][:8], "<f4"))
    assert f64.at(1).shape == (0,) and f64.at(1).dtype == np.float64
    # one component for two outputs of different types: read once, seen twice
    pipe = _pipeline(
        2, paths=[str(edge["typed"])], ext=["f32", "f32"], dtypes=[types.UINT8, types.FLOAT]
    )
    raw, floats = pipe.run()
    assert raw.at(0).tobytes() == floats.at(0).tobytes() == payloads["f32"]


def test_dtype_errors_name_the_component(edge):
    typed = str(edge["typed"])
    msg = _build_error(paths=[typed], ext=["odd"], dtypes=[types.INT16])
    assert "argument `dtypes`" in msg and "'000.odd'" in msg and "typed.tar" in msg
    assert "3 bytes" in msg and "2-byte" in msg
    msg = _build_error(paths=[typed], ext=["f32"], dtypes=[types.BOOL])
    assert "unsupported output type" in msg and "float16" in msg
    msg = _build_error(paths=[typed], ext=["f32", "i16"], dtypes=[types.FLOAT])
    assert "has 1 types but `ext` has 2" in msg


# -- errors of the listing --------------------------------------------------------------------


def test_archive_errors_name_the_file(edge, tmp_path):
    msg = _build_error(paths=[str(tmp_path / "nope.tar")], ext=["jpg"])
    assert "argument `paths`" in msg and "nope.tar" in msg
    msg = _build_error(paths=[str(edge["not_tar"])], ext=["jpg"])
    assert "not_tar.tar' is not a tar archive" in msg and "byte 0" in msg
    gz = tmp_path / "s.tar.gz"
    with tarfile.open(gz, "w:gz") as tar:
        tar.add(edge["typed"], "000.tar")
    msg = _build_error(paths=[str(gz)], ext=["jpg"])
    assert "s.tar.gz' is not a tar archive" in msg and "gzip-compressed" in msg
    msg = _build_error(paths=[str(edge["truncated_header"])], ext=["jpg"])
    assert "truncated_header.tar' is truncated" in msg and "header at byte 4096" in msg
    msg = _build_error(paths=[str(edge["truncated_data"])], ext=["jpg"])
    assert "member '000.jpg'" in msg and "ends at byte 1512" in msg
    for name in ("empty", "only_dirs"):
        msg = _build_error(paths=[str(edge[name])], ext=["jpg"])
        assert "hold no samples" in msg and f"{name}.tar" in msg
    msg = _build_error(paths=[], ext=["jpg"])
    assert "argument `paths`" in msg and "empty" in msg
    msg = _build_error(ext=["jpg"])
    assert "required arguments" in msg and "paths" in msg
    msg = _build_error(paths=[str(edge["typed"])], ext=["jpg"], num_shards=3)
    assert "argument `num_shards`" in msg


def test_index_errors_name_the_file_and_line(edge, tmp_path):
    tar = str(edge["multi_dot"])
    cases = {
        "bad_version.idx": "line 1: unsupported version 'v9.9'",
        "bad_offset.idx": "line 2: component 'jpg': offset 513 is not a multiple",
        "short.idx": "announces 3 samples but 1 lines follow",
        "bad_field.idx": "line 2: component 1 ('jpg'): offset '512' and size 'two' must be",
        "wrong.idx": "the index does not match the archive",
    }
    for name, text in cases.items():
        msg = _build_error(paths=[tar], index_paths=[str(edge[name])], ext=["jpg"])
        assert "argument `index_paths`" in msg and name in msg and text in msg, msg
    msg = _build_error(paths=[tar], index_paths=[str(edge["wrong.idx"]) + "x"], ext=["jpg"])
    assert "cannot read" in msg and "wrong.idxx" in msg
    msg = _build_error(paths=[tar, tar], index_paths=[str(edge["multi_dot.idx"])], ext=["jpg"])
    assert "has 1 entries but `paths` has 2" in msg
    # an index of another archive: its first member has another size
    msg = _build_error(paths=[str(edge["case"])], index_paths=[str(edge["typed.idx"])], ext=["f32"])
    assert "typed.idx', line 2: component 'f32' at offset 512" in msg and "case.tar" in msg
    assert "the member there has 2 bytes, the index says 24" in msg
    # an index whose components lie past the end of the archive
    idx = tmp_path / "far.idx"
    idx.write_text("v1.2 2\njpg 512 2 000.JPG\njpg 1048576 2 001.jpg\n")
    msg = _build_error(paths=[str(edge["case"])], index_paths=[str(idx)], ext=["jpg"])
    assert "far.idx', line 3" in msg and "lies outside" in msg and "case.tar" in msg


def test_parse_index_rejects_malformed_lines():
    good = "v1.2 1\njpg 512 3 a.jpg\n"
    assert parse_index(good, "i") == parse_index(good + "\n\n", "i")
    for text, why in (
        ("", "no version signature"),
        ("v1.2\n", "no sample count"),
        ("v1.2 x\n", "not an integer"),
        ("v1.2 0\n", "must be positive"),
        ("v1.2 1\n\n", "0 lines follow"),
        ("v1.2 3\njpg 512 3 a\n \njpg 1024 1 b\n", "line 3: no components"),
        ("v1.2 1\njpg 512 3\n", "are not whole components"),
        ("v1.1 1\njpg 512 3 a.jpg\n", "are not whole components"),
        ("v1.2 1\njpg -512 3 a\n", "negative"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_index(text, "i")


def test_a_shard_truncated_after_the_listing_is_a_read_error_naming_it(tmp_path):
    path = tmp_path / "s.tar"
    wds.write_tar(path, [("000.jpg", b"J" * 2000), ("001.jpg", b"K" * 100)])
    pipe = _pipeline(2, paths=[str(path)], ext=["jpg"])
    pipe.build()
    with open(path, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    msg = str(info.value)
    assert "cannot read component '000.jpg'" in msg and "s.tar" in msg and "offset 512" in msg


# -- I/O: what is read ------------------------------------------------------------------------


def test_scanning_reads_only_the_headers(tmp_path, monkeypatch):
    # a 1 GiB shard of 8 members, sparse on disk: only the headers are ever read
    path = tmp_path / "big.tar"
    member = 128 << 20
    with open(path, "wb") as f:
        for k in range(8):
            info = tarfile.TarInfo(f"{k:06d}.bin")
            info.size = member
            info.mtime = 0
            f.seek(k * (member + 512))
            f.write(info.tobuf(format=tarfile.GNU_FORMAT))
        f.truncate(8 * (member + 512))
    reads = []
    original = TarSource.read

    def counted(self, offset, length):
        reads.append((offset, length))
        return original(self, offset, length)

    monkeypatch.setattr(TarSource, "read", counted)
    pipe = _pipeline(2, paths=[str(path)], ext=["bin"])
    monkeypatch.setattr(_storage, "read_extents", lambda *a, **k: pytest.fail("read data"))
    pipe.build()
    assert pipe.epoch_size("Reader") == 8
    assert reads == [(k * (member + 512), 512) for k in range(8)]


def test_a_batch_reads_one_extent_per_component_and_prefetches_the_next(ds, monkeypatch):
    calls, hints = [], []
    original = _storage.read_extents

    def recorded(extents, **kw):
        calls.append(list(extents))
        return original(extents, **kw)

    monkeypatch.setattr(_storage, "read_extents", recorded)
    monkeypatch.setattr(_storage, "prefetch", lambda extents: hints.append(list(extents)))
    pipe = _pipeline(4, paths=ds.tars, index_paths=ds.indices, ext=["jpg", "cls", "jpg"])
    pipe.run()
    pipe.run()
    first = calls[0]
    expected = sum(1 + ("cls" in ds.samples[i]) for i in range(4))  # jpg read once for 2 outputs
    assert len(first) == expected
    assert all(e.length is not None for e in first)
    assert hints == []  # local shards: the OS reads ahead
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    with open(ds.tars[0], "rb") as f:
        mem.pipe("/wds-hint/a.tar", f.read())
    calls.clear()
    pipe = _pipeline(3, paths=["memory://wds-hint/a.tar"], ext=["jpg"])
    pipe.run()
    pipe.run()
    # the hint named the next batches' extents (`options.READ_AHEAD` of them), in order
    assert hints[0][: len(calls[1])] == calls[1]
    assert len(hints[0]) == len(calls[1]) * options.READ_AHEAD


def test_samples_are_fresh_arrays(ds):
    pipe = _pipeline(2, paths=ds.tars, ext=["jpg"])
    a = pipe.run()[0].at(0)
    a[:] = 0
    b = _pipeline(2, paths=ds.tars, ext=["jpg"]).run()[0].at(0)
    assert bytes(b) == ds.samples[0]["jpg"]


def test_remote_shards_through_fsspec(ds, tmp_path):
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    urls, idx_urls = [], []
    for k, (tar, idx) in enumerate(zip(ds.tars, ds.indices)):
        with open(tar, "rb") as f:
            mem.pipe(f"/wds-test/shard-{k}.tar", f.read())
        with open(idx, "rb") as f:
            mem.pipe(f"/wds-test/shard-{k}.idx", f.read())
        urls.append(f"memory://wds-test/shard-{k}.tar")
        idx_urls.append(f"memory://wds-test/shard-{k}.idx")
    local = _epoch(_pipeline(5, paths=ds.tars, ext=["jpg", "cls"]), N)
    for kw in ({}, {"index_paths": idx_urls}):
        remote = _epoch(_pipeline(5, paths=urls, ext=["jpg", "cls"], **kw), N)
        assert [d for d, _ in remote] == [d for d, _ in local]
        assert remote[0][1][0] == "memory://wds-test/shard-0.tar:" + local[0][1][0].split(":", 1)[1]


# -- the loader: sharding, padding, shuffling, state ------------------------------------------


def test_two_shards_cover_the_dataset_disjointly(ds):
    seen = []
    for shard in range(2):
        pipe = _pipeline(3, paths=ds.tars, ext=["jpg"], num_shards=2, shard_id=shard)
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["number_of_shards"] == 2
        size = (shard + 1) * N // 2 - shard * N // 2
        seen.append([info[0] for _, info in _epoch(pipe, size)])
    assert not set(seen[0]) & set(seen[1])
    assert len(set(seen[0]) | set(seen[1])) == N


def test_pad_last_batch_repeats_the_last_sample(ds):
    pipe = _pipeline(8, paths=ds.tars, ext=["cls"], pad_last_batch=True)
    assert pipe.reader_meta("Reader")["epoch_size_padded"] == N
    got = _epoch(pipe, 32)
    assert [d for d, _ in got[N:24]] == [got[N - 1][0]] * 4  # the last batch is padded
    assert got[24:] == got[:8]  # then the next epoch starts


def test_random_shuffle_draws_the_samples_read_in_order(ds):
    pipe = _pipeline(N, paths=ds.tars, ext=["jpg", "json"], random_shuffle=True, initial_fill=4)
    got = _epoch(pipe, N)
    order = [ds.samples.index(next(s for s in ds.samples if s["jpg"] == d[0])) for d, _ in got]
    assert order != list(range(N)) and sorted(order) == list(range(N))
    for k, (i, (d, _)) in enumerate(zip(order, got)):
        assert i < 4 + k  # read in order (no shuffle of the list first, as DALI)
        assert d[1] == ds.samples[i].get("json", b"")


def test_shuffle_after_epoch_permutes_whole_archives(ds):
    pipe = _pipeline(N, paths=ds.tars, ext=["jpg"], shuffle_after_epoch=True)
    index = {s["jpg"]: i for i, s in enumerate(ds.samples)}
    orders = []
    for _ in range(4):
        epoch = [index[d[0]] for d, _ in _epoch(pipe, N)]
        assert sorted(epoch) == list(range(N))
        tars = [info[0].split(":")[0] for _, info in _epoch_infos(epoch, ds)]
        runs = [t for k, t in enumerate(tars) if k == 0 or tars[k - 1] != t]
        assert len(runs) == len(set(runs)) == SHARDS  # each archive whole, in one run
        assert all(a < b for a, b, ta, tb in zip(epoch, epoch[1:], tars, tars[1:]) if ta == tb)
        orders.append(runs)
    assert len({tuple(o) for o in orders}) > 1
    # with a shuffle buffer on top (allowed, as in DALI): every epoch is each sample once
    pipe = _pipeline(N, paths=ds.tars, ext=["jpg"], shuffle_after_epoch=True, random_shuffle=True)
    for _ in range(3):
        assert sorted(index[d[0]] for d, _ in _epoch(pipe, N)) == list(range(N))


def _epoch_infos(order, ds):
    """``(sample, (source_info,))`` of samples ``order`` read in order (by a plain reader)."""
    pipe = _pipeline(N, paths=ds.tars, ext=["jpg"])
    plain = _epoch(pipe, N)
    return [plain[i] for i in order]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"random_shuffle": True, "initial_fill": 5},
        {"shuffle_after_epoch": True, "random_shuffle": True, "initial_fill": 3},
        {"missing_component_behavior": "skip"},
    ],
)
def test_checkpoint_round_trip(ds, kw):
    def make(checkpoint=None):
        pipe = dali.Pipeline(
            batch_size=3,
            num_threads=1,
            device_id=None,
            seed=3,
            enable_checkpointing=True,
            checkpoint=checkpoint,
        )
        with pipe:
            out = fn.readers.webdataset(
                paths=ds.tars, index_paths=ds.indices, ext=["jpg", "cls"], name="Reader", **kw
            )
            pipe.set_outputs(*out)
        return pipe

    check_pipeline_save_restore(make, 5, 6)


def test_state_is_small_json(ds):
    pipe = _pipeline(3, paths=ds.tars, ext=["jpg"], random_shuffle=True)
    pipe.run()
    state = pipe._plan.by_name["Reader"].impl.get_state()
    assert len(json.dumps(state)) < 400


# -- the tar headers --------------------------------------------------------------------------


def _header(**kw):
    info = tarfile.TarInfo(kw.pop("name", "a.jpg"))
    for k, v in kw.items():
        setattr(info, k, v)
    return info.tobuf(format=tarfile.GNU_FORMAT)[:512]


def test_parse_header_fields_checksums_and_numbers():
    assert parse_header(bytes(512)) is None
    h = parse_header(_header(size=1234))
    assert (h.name, h.size, chr(h.typeflag)) == ("a.jpg", 1234, "0")
    big = _header(size=10 << 30)  # 10 GiB: base-256 in GNU tars
    assert big[124] & 0x80 and parse_header(big).size == 10 << 30
    broken = bytearray(_header())
    broken[0] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        parse_header(bytes(broken))
    # a checksum summed over signed chars (old writers) is accepted
    raw = bytearray(_header(name="caf\u00e9.jpg"))
    raw[148:156] = b"        "
    signed = sum(b - 256 if b >= 128 else b for b in raw)
    raw[148:156] = f"{signed:06o}\0 ".encode()
    assert parse_header(bytes(raw)).name == "caf\u00e9.jpg"
    assert _wds_tar._number(b"\x80" + (5).to_bytes(11, "big")) == 5
    assert _wds_tar._number(b"\xff" * 12) == -1
    assert _wds_tar._number(b"0000644 \0") == 0o644


def test_pax_records():
    data = b"30 path=some/long/name.jpg\n11 size=42\n"
    data = data.replace(b"30 ", f"{len(b'xx path=some/long/name.jpg') + 1} ".encode())
    assert _wds_tar._pax_records(data + b"\0" * 10) == {"path": "some/long/name.jpg", "size": "42"}
    with pytest.raises(ValueError, match="pax"):
        _wds_tar._pax_records(b"99 path=x\n")


def test_pax_size_overrides_the_header(tmp_path):
    path = tmp_path / "p.tar"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("000.bin")
        info.size = 5
        info.pax_headers = {"comment": "x" * 300}
        tar.addfile(info, io.BytesIO(b"hello"))
    path.write_bytes(buf.getvalue())
    assert [(m.name, m.size, m.regular) for m in scan(str(path))] == [("000.bin", 5, True)]


def test_scan_never_hangs_on_garbage(tmp_path):
    rng = np.random.default_rng(3)
    base = tmp_path / "ok.tar"
    wds.write_tar(
        base, [(f"{k:03d}.x", bytes(rng.integers(0, 256, 700, np.uint8))) for k in range(5)]
    )
    good = base.read_bytes()
    for trial in range(20):
        bad = bytearray(good)
        for _ in range(4):
            bad[int(rng.integers(0, len(bad)))] = int(rng.integers(0, 256))
        p = tmp_path / f"bad{trial}.tar"
        p.write_bytes(bytes(bad))
        try:
            members = list(scan(str(p)))
        except TarFormatError as e:
            assert str(p) in str(e)
        else:
            assert all(m.offset + m.size <= len(bad) for m in members if m.regular)
    assert os.path.getsize(base) == len(good)
