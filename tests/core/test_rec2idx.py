"""`dali.tools.rec2idx`: index files of MXNet RecordIO files.

The files come from `dali._testing.recordio`, whose writer records every offset it writes (the
expected index). DALI's own ``rec2idx`` script needs MXNet to read the records; where MXNet is
installed, it reads the index written here.
"""

from __future__ import annotations

import subprocess
import sys
import uuid

import numpy as np
import pytest
from dali._ops.readers.recordio.format import MAGIC
from dali._ops.readers.recordio.index import parse_index
from dali._testing.recordio import make_imagenet_recordio, write_recordio
from dali.tools import rec2idx
from dali.tools.rec2idx import main, write_index


@pytest.fixture
def records(tmp_path):
    """A file of 40 records of various sizes, some of them written in several parts."""
    rng = np.random.default_rng(3)
    magic = MAGIC.to_bytes(4, "little")
    items = []
    for i in range(40):
        image = rng.integers(0, 256, int(rng.integers(0, 1500)), np.uint8).tobytes()
        if i % 5 == 1:
            image = image[: len(image) // 4 * 4] + magic + b"tail"  # aligned: several parts
        label = float(i) if i % 3 else [float(i), -1.0]
        items.append(((0, label, i, 0), image))
    path = tmp_path / "data.rec"
    offsets = write_recordio(path, items)
    return path, offsets


def test_write_index_matches_the_writer(records, tmp_path):
    path, offsets = records
    idx = tmp_path / "out.idx"
    assert write_index(str(path), str(idx)) == len(offsets)
    assert idx.read_text() == "".join(f"{k}\t{o}\n" for k, o in enumerate(offsets))
    assert idx.read_text() == (tmp_path / "data.idx").read_text()
    # (the multi-part records hold more part headers than there are records)
    assert path.read_bytes().count(MAGIC.to_bytes(4, "little")) >= len(offsets) + 8


def test_several_files_give_one_index_of_offsets_in_the_files_concatenated(tmp_path):
    paths, index = make_imagenet_recordio(tmp_path / "set", n=11, files=3, multi_part=True)
    idx = tmp_path / "all.idx"
    assert write_index([str(p) for p in paths], str(idx)) == 11
    assert idx.read_text() == index.read_text()
    # a file cut inside a record: the record is found across the cut
    data = b"".join(p.read_bytes() for p in paths)
    offsets = parse_index(index.read_text()).tolist()
    cut = offsets[4] + 5
    parts = [tmp_path / "a.rec", tmp_path / "b.rec"]
    parts[0].write_bytes(data[:cut])
    parts[1].write_bytes(data[cut:])
    assert write_index([str(p) for p in parts], str(idx)) == 11
    assert parse_index(idx.read_text()).tolist() == offsets


def test_main_writes_the_index_and_reports_errors(records, tmp_path, capsys):
    path, offsets = records
    idx = tmp_path / "cli.idx"
    assert main([str(path), str(idx)]) == 0
    assert f"{len(offsets)} records" in capsys.readouterr().out
    assert parse_index(idx.read_text()).tolist() == offsets
    assert main(["-q", str(path), str(idx)]) == 0 and capsys.readouterr().out == ""
    assert main([str(path), str(path), str(tmp_path / "two.idx")]) == 0
    assert "80 records" in capsys.readouterr().out
    bad = tmp_path / "bad.rec"
    bad.write_text("this is not a RecordIO file\n")
    assert main([str(bad), str(tmp_path / "bad.idx")]) == 1
    err = capsys.readouterr().err
    assert "bad.rec" in err and "no RecordIO magic number at offset 0" in err
    assert not (tmp_path / "bad.idx").exists()
    cut = tmp_path / "cut.rec"
    cut.write_bytes(path.read_bytes()[:-5])  # (past the pad, into the data)
    assert main([str(cut), str(tmp_path / "cut.idx")]) == 1
    assert "truncated" in capsys.readouterr().err
    # several files: the message names the file and where in it
    assert main([str(path), str(bad), str(tmp_path / "x.idx")]) == 1
    assert "bad.rec' (offset 0 of it" in capsys.readouterr().err
    assert main([str(tmp_path / "ghost.rec"), str(tmp_path / "g.idx")]) == 1
    assert "ghost" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(path)])  # the index path is required, as in DALI's script


def test_module_runs_as_a_script(records, tmp_path):
    path, offsets = records
    idx = tmp_path / "m.idx"
    out = subprocess.run(
        [sys.executable, "-m", "dali.tools.rec2idx", str(path), str(idx)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "40 records" in out.stdout and len(idx.read_text().splitlines()) == len(offsets)
    assert rec2idx.__all__ == sorted(rec2idx.__all__)


def test_urls_are_read_and_written_through_fsspec(records):
    fsspec = pytest.importorskip("fsspec")
    path, _ = records
    fs = fsspec.filesystem("memory")
    base = f"memory://rec2idx-{uuid.uuid4().hex}"
    try:
        fs.pipe_file(f"{base}/data.rec".removeprefix("memory://"), path.read_bytes())
        assert write_index(f"{base}/data.rec", f"{base}/data.idx") == 40
        text = fs.cat_file(f"{base}/data.idx".removeprefix("memory://")).decode()
        assert text == (path.parent / "data.idx").read_text()
    finally:
        fs.rm(base.removeprefix("memory://"), recursive=True)


def test_mxnet_reads_the_index(records, tmp_path):
    mx = pytest.importorskip("mxnet")
    path, offsets = records
    idx = tmp_path / "mx.idx"
    write_index(str(path), str(idx))
    reader = mx.recordio.MXIndexedRecordIO(str(idx), str(path), "r")
    assert reader.keys == list(range(len(offsets)))
    header, _ = mx.recordio.unpack(reader.read_idx(7))
    assert header.id == 7
