"""`dali.tools.wds2idx`: the index files of webdataset shards (DALI's ``tools/wds2idx.py``).

The shards come from `dali._testing.webdataset`. Where DALI's own script is installed (it comes
with the ``nvidia-dali`` wheel as the module ``wds2idx``), the files are compared with its output.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from dali._ops.readers.webdataset.index import (
    Component,
    format_index,
    parse_index,
    scan_samples,
)
from dali._testing import webdataset as wds
from dali.tools import wds2idx
from dali.tools.wds2idx import default_index_path, main, write_index


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    return wds.make_wds_dataset(tmp_path_factory.mktemp("wds"), n=8, shards=2, index=False)


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    return wds.make_wds_edge_cases(tmp_path_factory.mktemp("wds_edge"))


def test_write_index_lists_every_sample_in_the_v12_format(ds, tmp_path):
    idx = tmp_path / "0.idx"
    assert write_index(ds.tars[0], str(idx)) == 4
    lines = idx.read_text().splitlines()
    assert lines[0] == "v1.2 4"
    # shard 0 writes jpg, cls, json; sample 4 is in shard 1; the hidden file and the
    # directory entry are not listed
    first = lines[1].split()
    assert first[0::4] == ["jpg", "cls", "json"]
    assert first[3::4] == ["000000.jpg", "000000.cls", "000000.json"]
    assert all(int(o) % 512 == 0 for o in first[1::4])
    with open(ds.tars[0], "rb") as f:
        f.seek(int(first[1]))
        assert f.read(int(first[2])) == ds.samples[0]["jpg"]
    assert not any(".meta" in line or "_dir" in line for line in lines)


def test_format_and_parse_round_trip(edge):
    for name in ("multi_dot", "gnu_long", "pax", "typed"):
        samples = scan_samples(str(edge[name]))
        assert parse_index(format_index(samples), "x.idx") == samples


def test_same_index_as_dalis_script(ds, edge, tmp_path):
    dali_tool = pytest.importorskip("wds2idx", reason="DALI's wds2idx script is not installed")
    if shutil.which("tar") is None:
        pytest.skip("DALI's script needs GNU tar")
    tars = [*ds.tars, *(str(edge[k]) for k in ("multi_dot", "hidden", "special", "pax", "ustar"))]
    for k, tar in enumerate(tars):
        theirs, ours = tmp_path / f"{k}.dali.idx", tmp_path / f"{k}.idx"
        dali_tool.IndexCreator(tar, str(theirs), verbose=False).create_index()
        write_index(tar, str(ours))
        assert ours.read_text() == theirs.read_text(), tar
    # GNU long names: DALI's script gives the offset of the @LongLink header, not of the data
    # (a bug of its `tar --block-num` parsing); ours gives the data's, as its reader needs
    theirs, ours = tmp_path / "long.dali.idx", tmp_path / "long.idx"
    dali_tool.IndexCreator(str(edge["gnu_long"]), str(theirs), verbose=False).create_index()
    write_index(str(edge["gnu_long"]), str(ours))
    assert theirs.read_text().split()[3] == "512" and ours.read_text().split()[3] == "1536"


def test_unindexable_archives_are_errors(edge, tmp_path):
    with pytest.raises(ValueError, match="white space"):
        write_index(str(edge["spaces"]), str(tmp_path / "s.idx"))
    with pytest.raises(ValueError, match="no samples"):
        write_index(str(edge["only_dirs"]), str(tmp_path / "d.idx"))
    with pytest.raises(ValueError, match="not a tar archive"):
        write_index(str(edge["not_tar"]), str(tmp_path / "n.idx"))
    with pytest.raises(FileNotFoundError):
        write_index(str(tmp_path / "nope.tar"), str(tmp_path / "x.idx"))
    assert not (tmp_path / "s.idx").exists()
    with pytest.raises(ValueError, match="white space"):
        format_index([[Component("my ext", 512, 1, "a.my ext")]])


def test_default_index_path():
    assert default_index_path("data/train-000.tar") == "data/train-000.idx"
    assert default_index_path("data/train.000.tar.gz") == "data/train.idx"
    assert default_index_path("data.v2/shard") == "data.v2/shard.idx"
    assert default_index_path(".hidden.tar") == ".hidden.idx"
    assert default_index_path("s3://bucket/a.tar") == "s3://bucket/a.idx"


def test_main(ds, edge, tmp_path, capsys):
    tar = tmp_path / "shard.tar"
    shutil.copyfile(ds.tars[1], tar)
    assert main([str(tar)]) == 0
    out = capsys.readouterr().out
    assert "4 samples" in out and "shard.idx" in out
    assert (tmp_path / "shard.idx").read_text().startswith("v1.2 4\n")
    assert main([str(tar), str(tmp_path / "other.idx"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert (tmp_path / "other.idx").read_text() == (tmp_path / "shard.idx").read_text()
    assert main([str(edge["truncated_data"]), str(tmp_path / "t.idx")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("wds2idx: error:") and "truncated_data.tar' is truncated" in err
    assert main([str(tmp_path / "nope.tar")]) == 1
    assert "nope.tar" in capsys.readouterr().err


def test_runs_as_a_module(ds, tmp_path):
    idx = tmp_path / "m.idx"
    done = subprocess.run(
        [sys.executable, "-m", "dali.tools.wds2idx", ds.tars[0], str(idx)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert idx.read_text().startswith("v1.2 4\n")


def test_remote_archive_and_index(ds):
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    with open(ds.tars[0], "rb") as f:
        mem.pipe("/wds-tool/a.tar", f.read())
    assert write_index("memory://wds-tool/a.tar", "memory://wds-tool/a.idx") == 4
    remote = mem.cat_file("/wds-tool/a.idx").decode()
    assert remote == format_index(scan_samples(ds.tars[0]))


def test_module_surface():
    assert wds2idx.__all__ == sorted(wds2idx.__all__)
