"""`fn.readers.mxnet` (DALI's ``readers.mxnet``) and the RecordIO container it reads.

The files come from `dali._testing.recordio`; values are checked against the images and labels
the generator wrote (`imagenet_image`, `imagenet_label`), and the container against a reader and
a writer written here from dmlc-core's ``RecordIOReader::NextRecord`` and
``RecordIOWriter::WriteRecord`` (a byte loop each, independent of the library's).
"""

from __future__ import annotations

import itertools
import json
import re
import struct
import uuid
import warnings
from pathlib import Path

import dali
import numpy as np
import pytest
from dali import fn, ops
from dali._graph.schema import REQUIRED, UNSET, get_schema
from dali._ops.readers.recordio.format import (
    MAGIC,
    IRHeader,
    RecordIOError,
    decode_lrec,
    frame,
    pack,
    read_payload,
    scan_records,
    split_image_record,
    unpack_header,
)
from dali._ops.readers.recordio.index import format_index, locate, parse_index
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.recordio import (
    imagenet_image,
    imagenet_label,
    magic_payload,
    make_imagenet_recordio,
    pack_img,
    write_recordio,
)

N = 13  # records of the ImageNet-style set, in 3 files (5, 4, 4)
FILE_OF = [0] * 5 + [1] * 4 + [2] * 4


@pytest.fixture(scope="module")
def inet(tmp_path_factory):
    """13 records in 3 files, multi-label and multi-part ones among them; their global index."""
    pytest.importorskip("PIL")
    root = tmp_path_factory.mktemp("recordio")
    paths, index = make_imagenet_recordio(root, n=N, files=3, multi_label=True, multi_part=True)
    return [str(p) for p in paths], str(index)


def _image(i):
    return imagenet_image(i, multi_part=True)


def _label(i):
    return imagenet_label(i, multi_label=True)


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
        images, labels = fn.readers.mxnet(**reader_kw)
        pipe.set_outputs(images, labels)
    return pipe


def _read(pipe, iterations=1):
    """Per iteration ``(images, labels)`` as lists of arrays; and every image's source_info."""
    batches, infos = [], []
    for _ in range(iterations):
        images, labels = pipe.run()
        batches.append(
            (
                [np.array(images.at(i)) for i in range(len(images))],
                [np.array(labels.at(i)) for i in range(len(labels))],
            )
        )
        infos += [images[i].source_info() for i in range(len(images))]
    return batches, infos


def _file_offsets(inet):
    """Each record's ``(file, offset within it)``, from the per-file index files."""
    paths, _ = inet
    out = []
    for p in paths:
        text = Path(p[: -len(".rec")] + ".idx").read_text()
        out += [(p, int(line.split()[1])) for line in text.splitlines()]
    return out


def _info(inet, i):
    path, offset = _file_offsets(inet)[i]
    return f"{path} at index {offset}"


def _build_error(**kw):
    pipe = _pipeline(2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.mxnet" in msg
    return msg


def _run_error(pipe):
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    return str(info.value)


# -- an independent reference: dmlc-core's reader and writer, byte by byte ----------------------


def _next_record(data, pos):
    """dmlc's ``RecordIOReader::NextRecord``: ``(payload, next position)``."""
    out = b""
    while True:
        magic, lrec = struct.unpack_from("<II", data, pos)
        assert magic == MAGIC
        cflag, length = lrec >> 29, lrec & ((1 << 29) - 1)
        out += data[pos + 8 : pos + 8 + length]
        pos += 8 + ((length + 3) >> 2 << 2)
        if cflag in (0, 3):
            return out, pos
        out += struct.pack("<I", MAGIC)


def _write_record(payload):
    """dmlc's ``RecordIOWriter::WriteRecord``, as a byte loop."""
    magic = struct.pack("<I", MAGIC)
    out, dptr, n = b"", 0, len(payload)
    for i in range(0, n >> 2 << 2, 4):
        if payload[i : i + 4] == magic:
            out += magic + struct.pack("<I", (1 if dptr == 0 else 2) << 29 | (i - dptr))
            out += payload[dptr:i]
            dptr = i + 4
    out += magic + struct.pack("<I", (3 if dptr else 0) << 29 | (n - dptr)) + payload[dptr:]
    return out + b"\0" * (((n + 3) >> 2 << 2) - n)


def _image_record(payload):
    """MXNet's ``recordio.unpack``: ``(labels, image)`` as DALI's parser returns them."""
    flag, label, _, _ = struct.unpack_from("<IfQQ", payload)
    if flag == 0:
        return [label], payload[24:]
    return list(struct.unpack_from(f"<{flag}f", payload, 24)), payload[24 + 4 * flag :]


# -- the container ------------------------------------------------------------------------------


def _payloads():
    rng = np.random.default_rng(4)
    magic = struct.pack("<I", MAGIC)
    out = [b"", b"a", b"abcd", magic, magic * 3, b"ab" + magic + b"cd", magic + b"xyz"]
    for n in (1, 5, 100, 4099):
        body = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        out += [body, magic_payload(body, every=3), body[:8] + magic + body[8:]]
    return out


def test_frame_is_dmlcs_writer_and_read_payload_its_reader():
    for payload in _payloads():
        record = frame(payload)
        assert record == _write_record(payload), payload[:16]
        assert len(record) % 4 == 0
        assert _next_record(record, 0) == (payload, len(record))
        got = read_payload(np.frombuffer(record + b"trailing", np.uint8))
        assert got.tobytes() == payload
    # parts: first 1, then 2..., last 3; a single part 0
    magic = struct.pack("<I", MAGIC)
    parts = frame(b"abcd" + magic + b"efgh" + magic + b"ij").split(magic)[1:]
    assert [decode_lrec(int.from_bytes(p[:4], "little")) for p in parts] == [
        (1, 4),
        (2, 4),
        (3, 2),
    ]
    # a magic number at an unaligned place is plain data
    assert frame(b"a" + magic)[:8] == magic + struct.pack("<I", 5)


def test_a_single_part_payload_is_a_view_and_a_multi_part_one_is_joined():
    record = np.frombuffer(frame(b"0123456789"), np.uint8)
    payload = read_payload(record)
    assert payload.base is not None and np.shares_memory(payload, record)
    joined = read_payload(np.frombuffer(frame(magic_payload(b"01234567", every=1)), np.uint8))
    assert joined.tobytes() == magic_payload(b"01234567", every=1)


def test_read_payload_reports_broken_records_with_their_offset():
    magic = struct.pack("<I", MAGIC)
    good = frame(b"ab" * 10)
    cases = [
        (b"\0" * 12, "no RecordIO magic number at offset 100"),
        (good[:5], "ends inside the part header at offset 100"),
        (good[:20], "at offset 100 claims 20 data bytes but only 12 follow"),
        (magic + struct.pack("<I", 3 << 29 | 4) + b"abcd", "continuation (cflag 3)"),
        (frame(b"abcd" + magic + b"ef")[:16], "ends inside the part header at offset 112"),
        (
            magic + struct.pack("<I", 1 << 29) + magic + struct.pack("<I", 0),
            "part at offset 108 has cflag 0 inside a multi-part record",
        ),
    ]
    for data, text in cases:
        with pytest.raises(RecordIOError, match=re.escape(text)) as info:
            read_payload(np.frombuffer(data, np.uint8), 100)
        assert info.value.offset is not None


def test_scan_records_finds_every_record_in_any_chunk_size():
    payloads = _payloads()
    data = b"".join(frame(p) for p in payloads)
    offsets, pos = [], 0
    while pos < len(data):
        offsets.append(pos)
        pos = _next_record(data, pos)[1]
    reads = []

    def read_range(offset, n):
        reads.append((offset, n))
        return np.frombuffer(data[offset : offset + n], np.uint8)

    for chunk in (1 << 22, 4096, 64, 8):
        reads.clear()
        assert scan_records(len(data), read_range, chunk=chunk).tolist() == offsets
        assert all(n <= max(chunk, 8) for _, n in reads)
    # the very last pad may be missing
    short = data[: offsets[-1]] + frame(b"abc")[:-1]
    assert scan_records(len(short), lambda o, n: np.frombuffer(short[o : o + n], np.uint8)).size
    assert scan_records(0, read_range).size == 0
    # parts longer than the chunk are skipped over, not read
    data = b"".join(frame(bytes(5000)) for _ in range(5))
    reads.clear()
    assert scan_records(len(data), read_range, chunk=64).tolist() == [5008 * k for k in range(5)]
    assert len(reads) == 5 and sum(n for _, n in reads) == 5 * 64


def test_scan_records_reports_where_the_data_goes_wrong():
    data = frame(b"x" * 10) + frame(b"y" * 3)

    def scan(blob):
        return scan_records(len(blob), lambda o, n: np.frombuffer(blob[o : o + n], np.uint8))

    with pytest.raises(RecordIOError, match="offset 20 claims 3 data bytes but only 2"):
        scan(data[:-2])
    with pytest.raises(RecordIOError, match="header at offset 32"):
        scan(data + b"\0\0")
    with pytest.raises(RecordIOError, match="no RecordIO magic number at offset 0"):
        scan(b"not a RecordIO file at all")
    magic = struct.pack("<I", MAGIC)
    with pytest.raises(RecordIOError, match="ends inside the part header at offset 12"):
        scan(frame(b"abcd" + magic + b"ef")[:12])


def test_pack_and_the_image_record_header_are_mxnets():
    payload = pack(IRHeader(0, 2.5, 7, 9), b"img")
    assert payload == struct.pack("<IfQQ", 0, 2.5, 7, 9) + b"img"
    assert unpack_header(payload) == IRHeader(0, 2.5, 7, 9)
    # a list label: flag = its size, label 0, the labels after the header (whatever flag said)
    payload = pack(IRHeader(5, [1, 2.5, -3], 1, 0), b"img")
    assert payload == struct.pack("<IfQQ3f", 3, 0.0, 1, 0, 1, 2.5, -3) + b"img"
    label, image = split_image_record(np.frombuffer(payload, np.uint8))
    assert label.dtype == np.float32 and label.tolist() == [1, 2.5, -3]
    assert image.tobytes() == b"img"
    label, image = split_image_record(np.frombuffer(pack((0, np.float32(4), 0, 0), b""), np.uint8))
    assert label.tolist() == [4.0] and image.size == 0
    with pytest.raises(RecordIOError, match="fewer than an image record header's 24"):
        split_image_record(np.zeros(20, np.uint8))
    bad = struct.pack("<IfQQ", 4, 0, 0, 0) + b"\0" * 12
    with pytest.raises(RecordIOError, match="says 4 labels \\(16 bytes\\) but only 12"):
        split_image_record(np.frombuffer(bad, np.uint8))


def test_pack_img_encodes_with_opencv_as_mxnet():
    cv2 = pytest.importorskip("cv2")
    img = np.arange(12 * 10 * 3, dtype=np.uint8).reshape(12, 10, 3)
    for fmt, quality, params in (
        (".jpg", 80, [cv2.IMWRITE_JPEG_QUALITY, 80]),
        (".png", 3, [cv2.IMWRITE_PNG_COMPRESSION, 3]),
    ):
        payload = pack_img((0, 1.0, 3, 0), img, quality, fmt)
        assert payload[24:] == cv2.imencode(fmt, img, params)[1].tobytes()
        decoded = cv2.imdecode(np.frombuffer(payload[24:], np.uint8), cv2.IMREAD_COLOR)
        assert decoded.shape == img.shape


def test_index_files_parse_format_and_locate():
    assert parse_index("0\t0\n\n  5   32 \n-3 68\n").tolist() == [0, 32, 68]
    assert format_index([0, 32], [7, 9]) == "7\t0\n9\t32\n"
    assert format_index(np.array([0, 32])) == "0\t0\n1\t32\n"
    for text, where in (
        ("0\t0\n1\n", "line 2 is '1'"),
        ("0 0 5\n", "line 1"),
        ("a 0\n", "line 1 is 'a 0'"),
        ("0 -4\n", "negative offset"),
    ):
        with pytest.raises(RecordIOError, match=where):
            parse_index(text)
    records = locate(np.array([50, 0, 20, 20, 100]), [60, 0, 70])  # an empty middle file
    assert records.starts.tolist() == [0, 20, 50, 100]
    assert records.sizes.tolist() == [20, 30, 50, 30]
    assert records.files.tolist() == [0, 0, 0, 2]
    assert records.offsets.tolist() == [0, 20, 50, 40]
    with pytest.raises(RecordIOError, match="offset 130, but the files hold 130 bytes"):
        locate(np.array([0, 130]), [60, 70])


# -- schema -------------------------------------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.mxnet")
    expected = {
        "path": REQUIRED,
        "index_path": UNSET,
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
    assert {k: schema.args[k].default for k in expected} == expected
    assert set(schema.args) - set(expected) == {"name", "device", "preserve"} | {
        "bytes_per_sample_hint"
    }
    assert schema.devices == ("cpu",) and schema.class_name == "MXNet"
    assert schema.doc.startswith("Reads the data from an MXNet RecordIO.")


# -- outputs ------------------------------------------------------------------------------------


def test_images_labels_and_source_info(inet):
    paths, index = inet
    pipe = dali.Pipeline(batch_size=N, num_threads=1, device_id=None)
    with pipe:
        images, labels = fn.readers.mxnet(path=paths, index_path=[index])
        assert (images.dtype, labels.dtype) == (dali.types.UINT8, dali.types.FLOAT)
        assert images.ndim == 1 and labels.ndim == 1
        pipe.set_outputs(images, labels)
    images, labels = pipe.run()
    assert images.layout() == "" and labels.layout() == ""
    multi_part = 0
    for i in range(N):
        image, label = np.array(images.at(i)), np.array(labels.at(i))
        assert image.dtype == np.uint8 and image.tobytes() == _image(i)
        assert label.dtype == np.float32 and label.tolist() == _label(i)
        assert images[i].source_info() == _info(inet, i)
        assert labels[i].source_info() == ""  # as DALI: the image carries it
        multi_part += MAGIC.to_bytes(4, "little") in _image(i)
    assert multi_part >= 3 and {len(_label(i)) for i in range(N)} == {1, 2, 3, 4}
    assert images[0].source_info().endswith("train-0.rec at index 0")
    assert images[5].source_info().endswith("train-1.rec at index 0")


def test_every_record_matches_dmlcs_reader(inet):
    """The whole set, against the reference reader on the concatenated files."""
    paths, index = inet
    data = b"".join(Path(p).read_bytes() for p in paths)
    (batch,), _ = _read(_pipeline(N, path=paths, index_path=index))
    pos = 0
    for i in range(N):
        payload, pos = _next_record(data, pos)
        label, image = _image_record(payload)
        assert batch[0][i].tobytes() == image and batch[1][i].tolist() == label
    assert pos == len(data)


def test_single_label_batches_are_one_array_and_mixed_ones_a_list(tmp_path):
    path = tmp_path / "l.rec"
    write_recordio(path, [((0, float(i), i, 0), b"x") for i in range(4)])
    pipe = _pipeline(4, path=str(path), index_path=str(tmp_path / "l.idx"))
    images, labels = pipe.run()
    assert labels.is_dense_tensor() and labels.as_array().tolist() == [[0], [1], [2], [3]]
    write_recordio(path, [((0, [1.0, 2.0], 0, 0), b"x"), ((0, 3.0, 1, 0), b"yy")])
    pipe = _pipeline(2, path=str(path), index_path=str(tmp_path / "l.idx"))
    images, labels = pipe.run()
    assert [np.array(labels.at(i)).tolist() for i in range(2)] == [[1.0, 2.0], [3.0]]
    assert [bytes(images.at(i)) for i in range(2)] == [b"x", b"yy"]


def test_ops_api_and_the_deprecated_aliases(inet):
    paths, index = inet
    for make in (
        lambda: ops.readers.MXNet(path=paths, index_path=[index])(),
        lambda: ops.MXNetReader(path=paths, index_path=[index])(),
        lambda: fn.mxnet_reader(path=paths, index_path=[index]),
    ):
        pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None)
        with pipe, warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (the legacy aliases)
            images, labels = make()
            pipe.set_outputs(images, labels)
        images, labels = pipe.run()
        assert [np.array(labels.at(i)).tolist() for i in range(3)] == [_label(i) for i in range(3)]
    with pytest.warns(DeprecationWarning):
        fn.mxnet_reader(path=paths, index_path=[index])


def test_reading_without_an_index_gives_the_same_samples(inet):
    paths, index = inet
    with_index, infos = _read(_pipeline(5, path=paths, index_path=[index]), 3)
    without, infos2 = _read(_pipeline(5, path=paths), 3)
    assert infos == infos2
    for (a, b), (c, d) in zip(with_index, without):
        assert [x.tobytes() for x in a] == [x.tobytes() for x in c]
        assert [x.tolist() for x in b] == [x.tolist() for x in d]


def test_a_single_path_string_and_the_stream_wrapping_around(inet):
    paths, _ = inet
    single = paths[1][: -len(".rec")] + ".idx"  # the file's own index
    (batch,), infos = _read(_pipeline(4, path=paths[1], index_path=single))
    assert [b.tolist() for b in batch[1]] == [_label(i) for i in range(5, 9)]
    assert infos == [_info(inet, i) for i in range(5, 9)]
    pipe = _pipeline(5, path=paths, index_path=inet[1])
    _, infos = _read(pipe, 3)
    assert infos == [_info(inet, i % N) for i in range(15)]
    assert pipe.epoch_size("Reader") == N


def _one_file(tmp_path, n=9):
    records = [((0, float(i), i, 0), bytes([65 + i]) * (3 * i + 1)) for i in range(n)]
    path = tmp_path / "one.rec"
    offsets = write_recordio(path, records)
    return str(path), offsets, records


def test_index_lines_in_any_order_with_repeats_or_gaps(tmp_path):
    path, offsets, records = _one_file(tmp_path)
    lines = Path(path[:-4] + ".idx").read_text().splitlines()
    idx = tmp_path / "x.idx"
    for text, expected in (
        ("\n".join(lines[::-1]), list(range(9))),  # sorted by offset, as DALI
        ("\n".join(lines + lines[2:5]), list(range(9))),  # repeats: one record
        # only some records listed: each spans to the next listed one (DALI reads the first)
        ("\n".join(lines[::3]), [0, 3, 6]),
        ("\n".join(f"{1000 - k}\t{o}" for k, o in enumerate(offsets)), list(range(9))),
    ):
        idx.write_text(text + "\n")
        pipe = _pipeline(len(expected), path=path, index_path=str(idx))
        (batch,), infos = _read(pipe)
        assert [b.tolist() for b in batch[1]] == [[float(i)] for i in expected]
        assert [b.tobytes() for b in batch[0]] == [records[i][1] for i in expected]
        assert infos == [f"{path} at index {offsets[i]}" for i in expected]
        assert pipe.epoch_size("Reader") == len(expected)


def test_a_record_cut_between_two_files_is_read_across_them(tmp_path):
    path, offsets, records = _one_file(tmp_path)
    data = Path(path).read_bytes()
    for cut in (offsets[4] + 3, offsets[4] + 12, offsets[5]):  # in the header, the data, between
        parts = [str(tmp_path / f"part{k}.rec") for k in range(2)]
        Path(parts[0]).write_bytes(data[:cut])
        Path(parts[1]).write_bytes(data[cut:])
        for kw in ({"index_path": path[:-4] + ".idx"}, {}):
            (batch,), infos = _read(_pipeline(9, path=parts, **kw))
            assert [b.tobytes() for b in batch[0]] == [r[1] for r in records]
            where = [(parts[0], o) if o < cut else (parts[1], o - cut) for o in offsets]
            assert infos == [f"{p} at index {o}" for p, o in where]


def test_empty_files_among_the_paths_are_skipped(tmp_path):
    path, _, records = _one_file(tmp_path, 4)
    empty = tmp_path / "empty.rec"
    empty.write_bytes(b"")
    (batch,), infos = _read(_pipeline(4, path=[str(empty), path, str(empty)]))
    assert [b.tobytes() for b in batch[0]] == [r[1] for r in records]
    assert infos[0] == f"{path} at index 0"


# -- errors -------------------------------------------------------------------------------------


def test_build_errors_name_the_argument_and_the_file(inet, tmp_path):
    paths, index = inet
    msg = _build_error(path=paths, index_path=[index, index])
    assert "argument `index_path`: has 2 entries" in msg and "single index" in msg
    msg = _build_error(path=[*paths[:2], str(tmp_path / "ghost.rec")], index_path=index)
    assert "argument `path`" in msg and "ghost.rec' does not exist" in msg
    msg = _build_error(path=paths, index_path=str(tmp_path / "ghost.idx"))
    assert "argument `index_path`" in msg and "ghost.idx' does not exist" in msg
    assert "argument `path`: no files specified" in _build_error(path=[], index_path=index)
    assert "a directory" in _build_error(path=str(tmp_path), index_path=index)
    bad = tmp_path / "bad.idx"
    bad.write_text("0\t0\n\nnot numbers\n")
    msg = _build_error(path=paths, index_path=str(bad))
    assert "bad.idx', line 3 is 'not numbers'" in msg
    bad.write_text("0\t0\n1\t99999999\n")
    msg = _build_error(path=paths, index_path=str(bad))
    assert "does not match `path`" in msg and "offset 99999999" in msg
    bad.write_text("")
    assert "bad.idx' lists no records" in _build_error(path=paths, index_path=str(bad))
    msg = _build_error(path=paths, index_path=index, num_shards=N + 1)
    assert "argument `num_shards`" in msg
    msg = _build_error(path=paths, index_path=index, shuffle_after_epoch=True, stick_to_shard=True)
    assert "argument `shuffle_after_epoch`" in msg
    msg = _build_error(index_path=index)  # (DALI's message)
    assert "Not all required arguments were specified" in msg and '"path"' in msg


def test_files_without_an_index_are_checked_while_scanned(tmp_path, inet):
    paths, _ = inet
    empty = tmp_path / "empty.rec"
    empty.write_bytes(b"")
    assert "the files hold no records" in _build_error(path=str(empty))
    data = Path(paths[0]).read_bytes()
    cut = tmp_path / "cut.rec"
    cut.write_bytes(data[:-40])
    msg = _build_error(path=str(cut))
    assert "cut.rec' is not a valid RecordIO file" in msg and "truncated" in msg
    text = tmp_path / "text.rec"
    text.write_text("not a RecordIO file at all\n")
    msg = _build_error(path=[paths[0], str(text)])
    assert "text.rec' (offset 0 of it" in msg and f"magic number at offset {len(data)}" in msg


def test_broken_records_are_errors_naming_the_file_and_offset(tmp_path):
    path, offsets, _ = _one_file(tmp_path, 4)
    data = bytearray(Path(path).read_bytes())
    data[offsets[2]] ^= 0xFF
    Path(path).write_bytes(bytes(data))
    pipe = _pipeline(2, path=path, index_path=path[:-4] + ".idx")
    pipe.run()  # records 0 and 1
    msg = _run_error(pipe)
    assert f"one.rec' at index {offsets[2]}" in msg and "no RecordIO magic number" in msg
    # an index entry that does not point at a record
    idx = tmp_path / "shifted.idx"
    idx.write_text(f"0\t{offsets[1] + 4}\n")
    msg = _run_error(_pipeline(1, path=path, index_path=str(idx)))
    assert f"one.rec' at index {offsets[1] + 4}" in msg and "index does not match" in msg


def test_records_too_short_for_their_header_or_labels(tmp_path):
    path = tmp_path / "short.rec"
    write_recordio(path, [b"short", struct.pack("<IfQQ", 3, 0, 0, 0) + b"\0" * 4])
    index = str(tmp_path / "short.idx")
    msg = _run_error(_pipeline(1, path=str(path), index_path=index))
    assert "short.rec' at index 0" in msg and "fewer than an image record header" in msg
    msg = _run_error(_pipeline(1, path=str(path), index_path=index, num_shards=2, shard_id=1))
    assert "short.rec' at index 16" in msg and "says 3 labels" in msg


def test_a_file_truncated_after_the_build_is_a_read_error_naming_the_record(tmp_path):
    path, offsets, _ = _one_file(tmp_path, 4)
    pipe = _pipeline(2, path=path, index_path=path[:-4] + ".idx")
    pipe.build()
    with open(path, "r+b") as f:
        f.truncate(offsets[1] + 3)
    # the batch's two records are one read; the error names the second
    msg = _run_error(pipe)
    assert f"cannot read the record at offset {offsets[1]} of" in msg and "one.rec" in msg


def _mapped(array):
    """Whether ``array`` is a view of a file mapped in memory."""
    from dali._ops.readers.storage.mapping import Mapping

    while array is not None:
        if isinstance(array, Mapping):
            return True
        array = getattr(array, "base", None)
    return False


def test_large_local_files_are_mapped_not_copied(inet, monkeypatch, tmp_path):
    from dali import _options
    from dali._ops.readers.storage.mapping import LIBC

    if LIBC is None:
        pytest.skip("no mmap through libc here")
    paths, index = inet
    monkeypatch.setattr(_options, "MMAP_MIN_BYTES", 0)
    for dont_use_mmap in (False, True):
        pipe = _pipeline(N, path=paths, index_path=index, dont_use_mmap=dont_use_mmap)
        images, labels = pipe.run()
        for i in range(N):
            image = images.at(i)
            assert np.asarray(image).tobytes() == _image(i)
            assert np.asarray(labels.at(i)).tolist() == _label(i)
            # single-part records are views of the mapping; multi-part ones are joined
            single = MAGIC.to_bytes(4, "little") not in _image(i)
            assert _mapped(image) == (single and not dont_use_mmap), i
    # a mapped file truncated after the build: an error naming the record, not a crash
    path, offsets, _ = _one_file(tmp_path, 4)
    pipe = _pipeline(2, path=path, index_path=path[:-4] + ".idx")
    pipe.build()
    with open(path, "r+b") as f:
        f.truncate(offsets[1] + 3)
    msg = _run_error(pipe)
    assert f"cannot read the record at offset {offsets[1]} of" in msg and "truncated" in msg


# -- the loader: sharding, padding, shuffling, state ------------------------------------------


def test_two_shards_cover_the_dataset_disjointly(inet):
    paths, index = inet
    seen = []
    for shard in range(2):
        pipe = _pipeline(3, path=paths, index_path=index, num_shards=2, shard_id=shard)
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["number_of_shards"] == 2
        size = (shard + 1) * N // 2 - shard * N // 2
        seen.append(_read(pipe, 3)[1][:size])
    assert not set(seen[0]) & set(seen[1])
    assert sorted(seen[0] + seen[1]) == sorted(_info(inet, i) for i in range(N))


def test_pad_last_batch_repeats_the_last_record(inet):
    paths, index = inet
    pipe = _pipeline(4, path=paths, index_path=index, pad_last_batch=True)
    _, infos = _read(pipe, 4)
    assert infos == [_info(inet, i) for i in range(N)] + [_info(inet, N - 1)] * 3
    assert pipe.reader_meta("Reader")["epoch_size_padded"] == N


def test_random_shuffle_draws_the_records_read_in_order(inet):
    paths, index = inet
    every = [_info(inet, i) for i in range(N)]
    pipe = _pipeline(N, path=paths, index_path=index, random_shuffle=True, initial_fill=4)
    (batch,), infos = _read(pipe)
    assert infos != every and sorted(infos) == sorted(every)  # the epoch, each record once
    for k, info in enumerate(infos):
        # the buffer reads the records in order: the k-th returned is one of the first 4 + k
        assert every.index(info) < 4 + k
        assert batch[1][k].tolist() == _label(every.index(info))
        assert batch[0][k].tobytes() == _image(every.index(info))
    pipe = _pipeline(N, path=paths, index_path=index, random_shuffle=True, initial_fill=1)
    assert _read(pipe)[1] == every


def _files_in_order(infos):
    """The files of an epoch's ``source_info``s, each in one run of increasing offsets."""
    runs = [infos[0]]
    for a, b in itertools.pairwise(infos):
        (fa, oa), (fb, ob) = (x.rsplit(" at index ", 1) for x in (a, b))
        if fa == fb:
            assert int(ob) > int(oa)
        else:
            runs.append(b)
    files = [r.rsplit(" at index ", 1)[0] for r in runs]
    assert len(files) == len(set(files)), infos
    return files


def test_shuffle_after_epoch_permutes_whole_files(inet):
    paths, index = inet
    every = sorted(_info(inet, i) for i in range(N))
    pipe = _pipeline(N, path=paths, index_path=index, shuffle_after_epoch=True)
    epochs = [_read(pipe)[1] for _ in range(4)]
    assert all(sorted(e) == every for e in epochs)
    orders = [_files_in_order(e) for e in epochs]
    assert len({tuple(o) for o in orders}) > 1  # a new order of the files in some epoch
    pipe = _pipeline(N, path=paths, index_path=index, shuffle_after_epoch=True, random_shuffle=True)
    assert all(sorted(_read(pipe)[1]) == every for _ in range(3))


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("shuffle", [False, True])
def test_batches_read_as_runs_of_records_give_every_record(inet, monkeypatch, threads, shuffle):
    """A batch of the whole set: runs cut at file ends, at shuffled gaps and into parts for
    the read threads; every sample is its record's image and labels."""
    from dali import _options

    monkeypatch.setattr(_options, "READ_THREADS", threads)
    paths, index = inet
    pipe = _pipeline(N, path=paths, index_path=index, random_shuffle=shuffle, initial_fill=3)
    (batch,), infos = _read(pipe)
    where = [_info(inet, i) for i in range(N)]
    assert set(infos) <= set(where) and (infos != where) == shuffle
    for k, info in enumerate(infos):
        i = where.index(info)
        assert batch[0][k].tobytes() == _image(i) and batch[1][k].tolist() == _label(i)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"random_shuffle": True, "initial_fill": 5},
        {"shuffle_after_epoch": True},
        {"shuffle_after_epoch": True, "random_shuffle": True, "initial_fill": 4},
    ],
)
def test_checkpoint_round_trip(inet, kw):
    paths, index = inet

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
            images, labels = fn.readers.mxnet(path=paths, index_path=index, name="Reader", **kw)
            pipe.set_outputs(images, labels)
        return pipe

    check_pipeline_save_restore(make, 5, 6)


def test_state_is_small_json(inet):
    paths, index = inet
    pipe = _pipeline(3, path=paths, index_path=index, random_shuffle=True)
    pipe.run()
    state = pipe._plan.by_name["Reader"].impl.get_state()
    assert len(json.dumps(state)) < 400


# -- remote files (fsspec's memory filesystem) --------------------------------------------------


def test_urls_are_read_through_storage_with_and_without_an_index(inet):
    fsspec = pytest.importorskip("fsspec")
    paths, index = inet
    fs = fsspec.filesystem("memory")
    base = f"memory://dali-recordio-{uuid.uuid4().hex}"
    try:
        urls = []
        for p in [*paths, index]:
            urls.append(f"{base}/{p.rsplit('/', 1)[-1]}")
            with open(p, "rb") as f:
                fs.pipe_file(urls[-1].removeprefix("memory://"), f.read())
        local, _ = _read(_pipeline(5, path=paths, index_path=index), 3)
        for kw in ({"index_path": urls[-1]}, {}):
            pipe = _pipeline(5, path=urls[:-1], **kw)
            remote, infos = _read(pipe, 3)
            assert infos[0] == f"{urls[0]} at index 0"
            for (a, b), (c, d) in zip(local, remote):
                assert [x.tobytes() for x in a] == [x.tobytes() for x in c]
                assert [x.tolist() for x in b] == [x.tolist() for x in d]
            pipe._plan.by_name["Reader"].impl.close()
    finally:
        fs.rm(base.removeprefix("memory://"), recursive=True)


def test_mxnet_reads_the_generated_files(inet):
    """Where MXNet is installed, its indexed reader takes the files and index."""
    mx = pytest.importorskip("mxnet")
    paths, _ = inet
    for path in paths:
        record = mx.recordio.MXIndexedRecordIO(path[:-4] + ".idx", path, "r")
        for key in record.keys:
            header, image = mx.recordio.unpack(record.read_idx(key))
            assert image == _image(key)
            label = header.label if header.flag else [header.label]
            assert np.asarray(label, np.float32).ravel().tolist() == _label(key)
