"""`dali.tools.tfrecord2idx` and the TFRecord container (framing, CRC-32C, index files).

The files come from `dali._testing.tfrecords`. Where DALI's own ``tfrecord2idx`` script is
installed (it comes with the ``nvidia-dali`` wheel), the index files are compared with its
output; where TensorFlow is installed, it reads the generated files (it checks every CRC).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
import zlib

import numpy as np
import pytest
from dali._ops.readers.tfrecord.format import (
    TFRecordError,
    crc32c,
    format_index,
    frame,
    masked_crc,
    parse_header,
    parse_index,
    scan_records,
)
from dali._testing.tfrecords import write_tfrecord
from dali.tools import tfrecord2idx
from dali.tools.tfrecord2idx import main, write_index


def _crc32c_bitwise(data: bytes) -> int:
    """CRC-32C, one bit at a time (the definition)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


@pytest.fixture
def records(tmp_path):
    """A file of 40 records of various sizes (4 of them over a 1 KiB scan chunk)."""
    rng = np.random.default_rng(3)
    examples = [
        {"label": [i], "blob": rng.integers(0, 256, int(rng.integers(0, 1500)), np.uint8).tobytes()}
        for i in range(40)
    ]
    path = tmp_path / "data.tfrecord"
    spans = write_tfrecord(path, examples)
    return path, spans


# -- CRC-32C and framing --------------------------------------------------------------------


def test_crc32c_check_values_and_the_vectorized_path():
    assert crc32c(b"") == 0
    assert crc32c(b"123456789") == 0xE3069283  # the standard check value
    assert crc32c(b"\0" * 32) == 0x8A9136AA  # RFC 3720 (iSCSI) test vectors
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    rng = np.random.default_rng(0)
    for n in (1, 511, 512, 513, 1000, 4096, 70_001):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        if n < 5000:
            assert crc32c(data) == _crc32c_bitwise(data), n
        half = n // 2
        assert crc32c(data[half:], crc32c(data[:half])) == crc32c(data), n
        assert crc32c(np.frombuffer(data, np.uint8)) == crc32c(data)
    # not CRC-32 (zlib's polynomial)
    assert crc32c(b"123456789") != zlib.crc32(b"123456789")


def test_frame_layout_and_masked_crcs():
    record = frame(b"abc")
    assert len(record) == 3 + 16 and record[12:15] == b"abc"
    assert int.from_bytes(record[:8], "little") == 3
    c = crc32c(record[:8])
    assert int.from_bytes(record[8:12], "little") == (((c >> 15) | (c << 17)) + 0xA282EAD8) & (
        2**32 - 1
    )
    assert int.from_bytes(record[15:], "little") == masked_crc(b"abc")
    assert parse_header(record, 0) == 3
    with pytest.raises(TFRecordError, match="bad length checksum"):
        parse_header(record[:8] + b"\0\0\0\0" + record[12:], 0)
    assert parse_header(record[:8] + b"\0\0\0\0", 0, check_crc=False) == 3


def test_scan_finds_every_record_in_any_chunk_size(records):
    path, spans = records
    data = path.read_bytes()
    reads = []

    def read_range(offset, n):
        reads.append((offset, n))
        return np.frombuffer(data[offset : offset + n], np.uint8)

    for chunk in (1 << 22, 4096, 1024, 12):
        reads.clear()
        offsets, sizes = scan_records(len(data), read_range, chunk=chunk)
        assert list(zip(offsets.tolist(), sizes.tolist())) == spans
        assert all(n <= chunk for _, n in reads)
        if chunk == 1 << 22:
            assert len(reads) == 1
    # records larger than the chunk are skipped over, not read
    reads.clear()
    scan_records(len(data), read_range, chunk=64)
    assert sum(n for _, n in reads) < len(data) // 2


def test_scan_reports_where_a_file_goes_wrong(records):
    path, spans = records
    data = path.read_bytes()

    def scan(blob):
        return scan_records(len(blob), lambda o, n: np.frombuffer(blob[o : o + n], np.uint8))

    with pytest.raises(TFRecordError, match=f"offset {spans[-1][0]} claims"):
        scan(data[:-1])
    with pytest.raises(TFRecordError, match=f"header at offset {len(data)}"):
        scan(data + b"\0" * 5)
    o = spans[7][0]
    with pytest.raises(TFRecordError, match=f"header at offset {o} has a bad length checksum"):
        scan(data[: o + 3] + b"\xee" + data[o + 4 :])
    assert scan(b"")[0].size == 0


def test_parse_and_format_index():
    offsets, sizes = parse_index("0 20\n\n  20   30  \n50 16\n")
    assert offsets.tolist() == [0, 20, 50] and sizes.tolist() == [20, 30, 16]
    assert format_index(offsets, sizes) == "0 20\n20 30\n50 16\n"
    for text, where in (
        ("0 20\n20\n", "line 2 is '20'"),
        ("0 20 1\n", "line 1"),
        ("0 x\n", "line 1"),
        ("-1 20\n", "non-negative"),
        ("0 15\n", "at least 16 bytes"),
    ):
        with pytest.raises(TFRecordError, match=where):
            parse_index(text)


# -- the tool ---------------------------------------------------------------------------------


def test_write_index_matches_the_writer(records, tmp_path):
    path, spans = records
    idx = tmp_path / "out.idx"
    assert write_index(str(path), str(idx)) == len(spans)
    assert idx.read_text() == "".join(f"{o} {s}\n" for o, s in spans)
    assert idx.read_text() == (path.parent / "data.tfrecord.idx").read_text()


def test_main_writes_the_index_and_reports_errors(records, tmp_path, capsys):
    path, spans = records
    idx = tmp_path / "cli.idx"
    assert main([str(path), str(idx)]) == 0
    assert f"{len(spans)} records" in capsys.readouterr().out
    assert parse_index(idx.read_text())[0].tolist() == [o for o, _ in spans]
    assert main(["-q", str(path), str(idx)]) == 0 and capsys.readouterr().out == ""
    bad = tmp_path / "bad.tfrecord"
    bad.write_text("this is not a TFRecord file\n")
    assert main([str(bad), str(tmp_path / "bad.idx")]) == 1
    err = capsys.readouterr().err
    assert "bad.tfrecord" in err and "bad length checksum" in err
    assert not (tmp_path / "bad.idx").exists()
    assert main([str(tmp_path / "ghost"), str(tmp_path / "g.idx")]) == 1
    assert "ghost" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(path)])  # the index path is required, as in DALI's script


def test_module_runs_as_a_script(records, tmp_path):
    path, spans = records
    idx = tmp_path / "m.idx"
    out = subprocess.run(
        [sys.executable, "-m", "dali.tools.tfrecord2idx", str(path), str(idx)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "40 records" in out.stdout and len(idx.read_text().splitlines()) == len(spans)
    assert tfrecord2idx.__all__ == sorted(tfrecord2idx.__all__)


def test_urls_are_read_and_written_through_fsspec(records):
    fsspec = pytest.importorskip("fsspec")
    path, spans = records
    fs = fsspec.filesystem("memory")
    base = f"memory://tfrecord2idx-{uuid.uuid4().hex}"
    try:
        fs.pipe_file(f"{base}/data.tfrecord".removeprefix("memory://"), path.read_bytes())
        assert write_index(f"{base}/data.tfrecord", f"{base}/data.idx") == len(spans)
        text = fs.cat_file(f"{base}/data.idx".removeprefix("memory://")).decode()
        assert text == (path.parent / "data.tfrecord.idx").read_text()
    finally:
        fs.rm(base.removeprefix("memory://"), recursive=True)


def test_same_index_as_dalis_script(records, tmp_path):
    script = shutil.which("tfrecord2idx")
    if script is None:
        pytest.skip("DALI's tfrecord2idx script is not installed")
    path, _ = records
    theirs, ours = tmp_path / "theirs.idx", tmp_path / "ours.idx"
    subprocess.run([script, str(path), str(theirs)], check=True, capture_output=True)
    write_index(str(path), str(ours))
    assert ours.read_text() == theirs.read_text()


def _tf_values(feature):
    """``(kind, values)`` of a ``tf.train.Feature`` (kind None: no value set)."""
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None, []
    return kind, list(getattr(feature, kind).value)


def _written(value):
    """``(kind, values)`` that `write_tfrecord` wrote for a plain or `*_feature` value."""
    from dali._testing.tfrecords import _as_feature

    feature = _as_feature(value)
    if feature is None:
        return None, []
    kind = {"bytes": "bytes_list", "float": "float_list", "int64": "int64_list"}[feature.kind]
    values = list(feature.values)
    if feature.kind == "bytes":
        values = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
    elif feature.kind == "float":
        values = np.asarray(values, np.float32).tolist()
    return kind, values


def test_tensorflow_reads_the_generated_files(records, tmp_path):
    """TensorFlow's reader takes the files (it checks every CRC) and its ``tf.train.Example``
    parses every record to the values written: every feature kind and encoding of the writer
    (packed and unpacked numbers, lists split into pieces, negative int64s, empty lists, an
    empty ``Feature``, unknown fields), and the ImageNet-style set of the benchmarks."""
    tf = pytest.importorskip("tensorflow")
    from dali._testing.tfrecords import (
        bytes_feature,
        encode_example,
        float_feature,
        imagenet_record,
        int64_feature,
    )

    path, spans = records
    data = path.read_bytes()
    got = [r.numpy() for r in tf.data.TFRecordDataset(str(path))]
    assert got == [data[o + 12 : o + s - 4] for o, s in spans]
    example = tf.train.Example.FromString(got[3])
    assert list(example.features.feature["label"].int64_list.value) == [3]

    rng = np.random.default_rng(5)
    examples = [
        {
            "i": [i, -i, -(2**63), 2**63 - 1],
            "ints": int64_feature(rng.integers(-(2**40), 2**40, i).tolist(), packed=i % 2 == 0),
            "floats": float_feature(
                rng.normal(size=i).tolist(), packed=i % 3 != 0, pieces=1 + i % 3
            ),
            "strings": bytes_feature([f"s{k}" * k for k in range(i % 4)], pieces=1 + i % 2),
            "blob": rng.integers(0, 256, 10 * i, np.uint8).tobytes(),
            "empty": None,
            "none": [],
        }
        for i in range(12)
    ]
    examples += [imagenet_record(i, jpeg=(b"\xff\xd8" * (100 + i), 20 + i, 30)) for i in range(12)]
    # the last 6 records (half the ImageNet-style ones) with fields `Example` does not define,
    # and an empty file after them
    kinds, empty = tmp_path / "kinds.tfrecord", tmp_path / "empty.tfrecord"
    write_tfrecord(
        kinds, [encode_example(e, unknown_fields=i >= 18) for i, e in enumerate(examples)]
    )
    assert write_tfrecord(empty, []) == []
    got = [r.numpy() for r in tf.data.TFRecordDataset([str(kinds), str(empty)])]
    assert len(got) == len(examples)
    for e, record in zip(examples, got):
        parsed = tf.train.Example.FromString(record).features.feature
        assert sorted(parsed) == sorted(e)
        for name, value in e.items():
            assert _tf_values(parsed[name]) == _written(value), name
