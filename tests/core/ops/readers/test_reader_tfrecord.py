"""`fn.readers.tfrecord` (DALI's ``readers.tfrecord``) and `dali.tfrecord`.

The files come from `dali._testing.tfrecords`; values are checked against the features the
generator wrote (`imagenet_record`) and, where google.protobuf is installed, the parser against
protobuf's own decoding of random ``tf.train.Example`` messages.
"""

from __future__ import annotations

import itertools
import json
import uuid
import warnings

import dali
import dali.tfrecord as tfrec
import numpy as np
import pytest
from dali import fn, ops
from dali._graph.schema import REQUIRED, UNSET, get_schema
from dali._ops.readers.tfrecord.example import ExampleError, ExampleParser, decode_varints
from dali._ops.readers.tfrecord.format import frame
from dali._testing import tfrecords
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.tfrecords import (
    bytes_feature,
    encode_example,
    float_feature,
    imagenet_record,
    int64_feature,
    write_tfrecord,
)

N = 13  # records of the ImageNet-style set, in 3 files (5, 4, 4)
FILE_OF = [0] * 5 + [1] * 4 + [2] * 4

FEATURES = {
    "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
    "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    "image/height": tfrec.FixedLenFeature([], tfrec.int64, 0),
    "image/object/bbox/xmin": tfrec.VarLenFeature(tfrec.float32, 0.0),
    "image/object/bbox/label": tfrec.VarLenFeature(tfrec.int64, 0),
    "image/class/text": tfrec.FixedLenFeature([], tfrec.string, "no text"),
}


@pytest.fixture(scope="module")
def inet(tmp_path_factory):
    pytest.importorskip("PIL")
    root = tmp_path_factory.mktemp("tfrecord")
    paths, indexes = tfrecords.make_imagenet_tfrecords(root, n=N, files=3)
    records = [imagenet_record(i) for i in range(N)]
    return [str(p) for p in paths], [str(p) for p in indexes], records


def _pipeline(batch_size=4, *, seed=7, features=None, **reader_kw):
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
        out = fn.readers.tfrecord(features=FEATURES if features is None else features, **reader_kw)
        pipe.set_outputs(*out.values())
    return pipe


def _read(pipe, iterations=1):
    """Per iteration, the outputs as lists of arrays; and every sample's source_info."""
    batches, infos = [], []
    for _ in range(iterations):
        outs = pipe.run()
        batches.append([[np.array(o.at(i)) for i in range(len(o))] for o in outs])
        infos += [outs[0][i].source_info() for i in range(len(outs[0]))]
    return batches, infos


def _offsets(index_path):
    return [int(line.split()[0]) for line in open(index_path).read().splitlines()]


def _info(inet, i):
    paths, indexes, _ = inet
    file = FILE_OF[i]
    return f"{paths[file]} at index {_offsets(indexes[file])[i - FILE_OF.index(file)]}"


def _build_error(**kw):
    pipe = _pipeline(2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.tfrecord" in msg
    return msg


def _run_error(pipe):
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    return str(info.value)


# -- schema and the tfrecord module -----------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.tfrecord")
    expected = {
        "path": REQUIRED,
        "index_path": UNSET,
        "features": REQUIRED,
        "use_o_direct": False,
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
    assert schema.devices == ("cpu",) and schema.class_name == "TFRecord"


def test_feature_constructors_values_and_reprs():
    assert (tfrec.int64, tfrec.string, tfrec.float32) == (0, 1, 2)  # DALI's values
    f = tfrec.FixedLenFeature([2, 3], tfrec.float32, 1)
    assert repr(f) == "FixedLenFeature([2, 3], float32, 1.0)"
    assert (f.fixed, f.shape, f.default_value) == (True, (2, 3), 1.0)
    assert repr(tfrec.FixedLenFeature((), tfrec.string, b"x")) == "FixedLenFeature([], string, 'x')"
    assert repr(tfrec.VarLenFeature(tfrec.int64, 0)) == "VarLenFeature(int64, 0)"
    v = tfrec.VarLenFeature([4], tfrec.float32, 0.0)
    assert repr(v) == "VarLenFeature([4], float32, 0.0)" and v.partial_shape == (4,)
    assert v == tfrec.VarLenFeature((4,), tfrec.float32, 0.0) and hash(v) == hash(
        tfrec.VarLenFeature([4], tfrec.float32, 0.0)
    )
    assert sorted(tfrec.__all__) == tfrec.__all__
    with pytest.raises(TypeError, match="int64 feature"):
        tfrec.FixedLenFeature([1], tfrec.int64, 0.5)
    with pytest.raises(TypeError, match="float32 feature"):
        tfrec.FixedLenFeature([1], tfrec.float32, "a")
    with pytest.raises(TypeError, match="string feature"):
        tfrec.FixedLenFeature([1], tfrec.string, 3)
    with pytest.raises(TypeError, match="invalid feature type 7"):
        tfrec.FixedLenFeature([1], 7, 0)
    with pytest.raises(TypeError, match="shape must be a list of int"):
        tfrec.FixedLenFeature(3, tfrec.int64, 0)
    with pytest.raises(ValueError, match="dimensions >= 0"):
        tfrec.FixedLenFeature([-1], tfrec.int64, 0)
    with pytest.raises(ValueError, match="dimensions >= 1"):
        tfrec.VarLenFeature([0], tfrec.int64, 0)
    with pytest.raises(TypeError, match="takes"):
        tfrec.VarLenFeature(tfrec.int64)


# -- outputs ----------------------------------------------------------------------------------


def test_outputs_are_a_dict_in_feature_order_with_dali_types(inet):
    paths, indexes, records = inet
    pipe = dali.Pipeline(batch_size=N, num_threads=1, device_id=None)
    with pipe:
        out = fn.readers.tfrecord(path=paths, index_path=indexes, features=FEATURES)
        assert isinstance(out, dict) and list(out) == list(FEATURES)
        assert [out[k].dtype for k in out] == [
            dali.types.UINT8,
            dali.types.INT64,
            dali.types.INT64,
            dali.types.FLOAT,
            dali.types.INT64,
            dali.types.UINT8,
        ]
        assert [out[k].ndim for k in out] == [1, 1, 0, 1, 1, 1]
        assert out["image/class/label"].static_shape == (1,)
        pipe.set_outputs(*out.values())
    (batch,), infos = _read(pipe)
    encoded, label, height, xmin, box_label, text = batch
    for i, rec in enumerate(records):
        assert encoded[i].tobytes() == rec["image/encoded"]
        assert label[i].dtype == np.int64 and label[i].tolist() == rec["image/class/label"]
        assert height[i].shape == () and int(height[i]) == rec["image/height"][0]
        assert xmin[i].dtype == np.float32 and xmin[i].shape == (i % 4,)
        np.testing.assert_array_equal(xmin[i], rec["image/object/bbox/xmin"].values)
        assert box_label[i].tolist() == rec["image/object/bbox/label"].values
        # record 3 of every 10 has no text: the default value
        expected = rec.get("image/class/text", b"no text")
        assert text[i].tobytes() == expected
    assert infos == [_info(inet, i) for i in range(N)]
    assert infos[0].endswith("train-00000-of-00003 at index 0")


def test_one_feature_and_the_ops_api(inet):
    paths, indexes, records = inet
    label = {"image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1)}
    for make in (
        lambda: fn.readers.tfrecord(path=paths, index_path=indexes, features=label),
        lambda: ops.readers.TFRecord(path=paths, index_path=indexes, features=label)(),
        lambda: ops.readers.TFRecord(paths, indexes, label)(),  # DALI's positional form
        lambda: ops.TFRecordReader(path=paths, index_path=indexes, features=label)(),
    ):
        pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None)
        with pipe, warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (the legacy alias)
            out = make()
            assert list(out) == ["image/class/label"]
            pipe.set_outputs(out["image/class/label"])
        (labels,) = pipe.run()
        assert labels.as_array().ravel().tolist() == [
            r["image/class/label"][0] for r in records[:3]
        ]


def test_reading_without_an_index_gives_the_same_samples(inet):
    paths, indexes, _ = inet
    with_index, infos = _read(_pipeline(5, path=paths, index_path=indexes), 3)
    without, infos2 = _read(_pipeline(5, path=paths), 3)
    assert infos == infos2
    for a, b in zip(with_index, without):
        for x, y in zip(a, b):
            for s, t in zip(x, y):
                np.testing.assert_array_equal(s, t)


def test_single_path_string_and_epoch_order_across_files(inet):
    paths, indexes, _ = inet
    pipe = _pipeline(3, path=paths[1], index_path=indexes[1], features={"t": _LABEL_F})
    # a missing feature name: every record gets the default
    (batch,), infos = _read(pipe)
    assert [b.tolist() for b in batch[0]] == [[-5]] * 3
    assert infos == [_info(inet, i) for i in range(5, 8)]
    # the stream wraps from the last file's last record to the first file's first
    pipe = _pipeline(5, path=paths, index_path=indexes)
    _, infos = _read(pipe, 3)
    assert infos == [_info(inet, i % N) for i in range(15)]
    assert pipe.epoch_size("Reader") == N


_LABEL_F = tfrec.FixedLenFeature([1], tfrec.int64, -5)


def _write(tmp_path, examples, name=None):
    path = tmp_path / (name or f"{uuid.uuid4().hex}.tfrecord")
    write_tfrecord(path, examples)
    return str(path)


def _read_one_file(path, features, n, **kw):
    pipe = _pipeline(n, path=path, index_path=path + ".idx", features=features, **kw)
    (batch,), _ = _read(pipe)
    return batch


def test_missing_features_get_defaults_or_empty_arrays(tmp_path):
    path = _write(tmp_path, [{"other": [1]}, {"x": None}])
    features = {
        "x": tfrec.FixedLenFeature([2, 2], tfrec.float32, 1.5),
        "s": tfrec.FixedLenFeature([1], tfrec.string, "dflt"),
        "v": tfrec.VarLenFeature(tfrec.int64, 0),
        "p": tfrec.VarLenFeature([4], tfrec.float32, 0.0),
        "k": tfrec.FixedLenFeature([], tfrec.int64, 9),
    }
    # record 0 has no entry of these names, record 1 an empty Feature message for "x"
    x, s, v, p, k = _read_one_file(path, features, 2)
    for j in range(2):
        assert x[j].tolist() == [[1.5, 1.5], [1.5, 1.5]] and x[j].dtype == np.float32
        assert s[j].tobytes() == b"dflt" and s[j].dtype == np.uint8
        assert v[j].shape == (0,) and v[j].dtype == np.int64
        assert p[j].shape == (0, 4) and p[j].dtype == np.float32
        assert k[j].shape == () and int(k[j]) == 9


def test_values_shapes_and_partial_shape(tmp_path):
    path = _write(
        tmp_path,
        [
            {"m": list(range(6)), "b": [0.5] * 8, "one": [7], "big": [2**62, -(2**63), -1]},
            {"m": list(range(6, 12)), "b": float_feature([]), "one": [-7], "big": [0]},
        ],
    )
    features = {
        "m": tfrec.FixedLenFeature([2, 3], tfrec.int64, 0),
        "b": tfrec.VarLenFeature([2, 2], tfrec.float32, 0.0),
        "one": tfrec.FixedLenFeature([], tfrec.int64, 0),
        "big": tfrec.VarLenFeature(tfrec.int64, 0),
    }
    m, b, one, big = _read_one_file(path, features, 2)
    assert m[0].tolist() == [[0, 1, 2], [3, 4, 5]] and m[1].shape == (2, 3)
    assert b[0].shape == (2, 2, 2) and b[1].shape == (0, 2, 2)
    assert one[0].shape == () and one[1].tolist() == -7
    assert big[0].tolist() == [2**62, -(2**63), -1] and big[1].tolist() == [0]


def test_every_legal_protobuf_encoding_is_read(tmp_path):
    want = {"i": list(range(-3, 40, 3)), "f": [1.5, -2.25, 3.0], "s": "text"}
    plain = encode_example(want)
    odd = encode_example(
        {
            "i": int64_feature(want["i"], packed=False, pieces=3),
            "f": float_feature(want["f"], packed=False, pieces=2),
            "s": bytes_feature([want["s"]]),
        },
        unknown_fields=True,
    )
    # a map entry given twice (the later one wins)
    first = encode_example({"i": [99], "f": [0.0], "s": "old"})
    later = encode_example({"i": want["i"], "s": want["s"]})
    f_entry = encode_example({"f": want["f"]})
    # a oneof member (int64_list) replaced by another (float_list) in one Feature message
    feature = int64_feature([9, 9]).encode() + float_feature(want["f"]).encode()
    switched = _ld(1, _ld(1, _ld(1, b"f") + _ld(2, feature)))  # Example{Features{entry}}
    path = _write(tmp_path, [plain, odd, first + later + f_entry, later + switched])
    features = {
        "i": tfrec.VarLenFeature(tfrec.int64, 0),
        "f": tfrec.FixedLenFeature([3], tfrec.float32, 0.0),
        "s": tfrec.FixedLenFeature([], tfrec.string, ""),
    }
    i, f, s = _read_one_file(path, features, 4)
    for k in range(4):
        assert i[k].tolist() == want["i"], k
        assert f[k].tolist() == want["f"], k
        assert s[k].tobytes() == b"text", k


def test_a_feature_that_does_not_fit_its_spec_is_an_error_naming_it(tmp_path):
    path = _write(tmp_path, [{"a": [1, 2, 3], "f": [1.0], "s": [b"x", b"y"]}], "bad.tfrecord")
    cases = [
        ({"a": tfrec.FixedLenFeature([2], tfrec.int64, 0)}, "'a' holds 3 values", "needs 2"),
        ({"a": tfrec.VarLenFeature(tfrec.float32, 0.0)}, "'a' holds int64 values", "float32"),
        ({"f": tfrec.FixedLenFeature([1], tfrec.int64, 0)}, "'f' holds float32", "as int64"),
        ({"a": tfrec.VarLenFeature([2], tfrec.int64, 0)}, "whole rows", "[2]"),
        ({"s": tfrec.FixedLenFeature([], tfrec.string, "")}, "'s' holds 2 strings", "exactly"),
        ({"f": tfrec.FixedLenFeature([], tfrec.string, "")}, "float32 values", "string"),
    ]
    for features, *texts in cases:
        pipe = _pipeline(1, path=path, index_path=path + ".idx", features=features)
        msg = _run_error(pipe)
        assert "bad.tfrecord' at index 0" in msg, msg
        for text in texts:
            assert text in msg, (text, msg)


def test_malformed_records_and_mismatching_indexes_are_errors_naming_the_offset(tmp_path):
    good = encode_example({"a": [1]})
    path = tmp_path / "broken.tfrecord"
    garbage = b"\x0a\x7f" + b"\x00" * 5  # a field claiming 127 bytes in a 7-byte message
    data = frame(good) + frame(garbage) + frame(b"\x0f")  # wire type 7: invalid
    path.write_bytes(data)
    n0, n1 = len(frame(good)), len(frame(garbage))
    features = {"a": tfrec.VarLenFeature(tfrec.int64, 0)}
    for offset, size, text in ((n0, n1, "past the end"), (n0 + n1, 17, "wire type 7")):
        index = tmp_path / f"at{offset}.idx"
        index.write_text(f"0 {n0}\n{offset} {size}\n")
        pipe = _pipeline(1, path=str(path), index_path=str(index), features=features)
        assert pipe.run()[0].at(0).tolist() == [1]
        msg = _run_error(pipe)
        assert f"broken.tfrecord' at index {offset}" in msg and text in msg, msg
        assert "malformed record" in msg
    # an index entry that does not frame a record
    (tmp_path / "shifted.idx").write_text(f"0 {n0 + 1}\n")
    pipe = _pipeline(1, path=str(path), index_path=str(tmp_path / "shifted.idx"), features=features)
    msg = _run_error(pipe)
    assert "broken.tfrecord' at index 0" in msg and "index does not match" in msg


def test_a_file_truncated_after_the_build_is_a_read_error_naming_it(tmp_path):
    path = _write(tmp_path, [{"a": [i]} for i in range(4)], "shrinks.tfrecord")
    pipe = _pipeline(2, path=path, index_path=path + ".idx", features={"a": _LABEL_F})
    pipe.build()
    with open(path, "r+b") as f:
        f.truncate(40)
    msg = _run_error(pipe)
    assert "cannot read the record at offset" in msg and "shrinks.tfrecord" in msg


def test_a_failed_read_of_a_run_of_records_names_the_record_that_fails(tmp_path):
    # the batch's two records are contiguous, read as one extent; the error names the second
    path = _write(tmp_path, [{"a": [i]} for i in range(4)], "shrinks.tfrecord")
    pipe = _pipeline(2, path=path, index_path=path + ".idx", features={"a": _LABEL_F})
    pipe.build()
    second = _offsets(path + ".idx")[1]
    with open(path, "r+b") as f:
        f.truncate(second + 3)
    msg = _run_error(pipe)
    assert f"cannot read the record at offset {second} of" in msg and "shrinks.tfrecord" in msg


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("shuffle", [False, True])
def test_batches_read_as_runs_of_records_give_every_record(inet, monkeypatch, threads, shuffle):
    """A batch of the whole set: runs cut at file ends, at shuffled gaps and into parts for
    the read threads; every sample is its record's values, in place in its run's array."""
    from dali import _options

    monkeypatch.setattr(_options, "READ_THREADS", threads)
    paths, indexes, records = inet
    pipe = _pipeline(N, path=paths, index_path=indexes, random_shuffle=shuffle, initial_fill=3)
    (batch,), infos = _read(pipe)
    where = [_info(inet, i) for i in range(N)]
    assert set(infos) <= set(where) and (infos != where) == shuffle
    for k, info in enumerate(infos):
        rec = records[where.index(info)]
        assert batch[0][k].tobytes() == rec["image/encoded"]
        assert batch[1][k].tolist() == rec["image/class/label"]
        np.testing.assert_array_equal(batch[3][k], rec["image/object/bbox/xmin"].values)
        assert batch[4][k].tolist() == rec["image/object/bbox/label"].values


# -- build errors ------------------------------------------------------------------------------


def test_build_errors_name_the_argument_and_the_file(inet, tmp_path):
    paths, indexes, _ = inet
    msg = _build_error(path=paths, index_path=indexes[:2])
    assert "argument `index_path`: has 2 entries but `path` has 3" in msg
    msg = _build_error(path=[*paths[:2], str(tmp_path / "ghost")], index_path=indexes)
    assert "argument `path`" in msg and "ghost' does not exist" in msg
    msg = _build_error(path=paths, index_path=[*indexes[:2], str(tmp_path / "ghost.idx")])
    assert "argument `index_path`" in msg and "ghost.idx' does not exist" in msg
    assert "argument `path`: no files specified" in _build_error(path=[], index_path=[])
    assert "a directory" in _build_error(path=str(tmp_path))
    bad = tmp_path / "bad.idx"
    bad.write_text("0 100\n\nnot numbers\n")
    msg = _build_error(path=paths[0], index_path=str(bad))
    assert "bad.idx', line 3 is 'not numbers'" in msg
    bad.write_text("0 3\n")
    assert "at least 16 bytes" in _build_error(path=paths[0], index_path=str(bad))
    bad.write_text("0 100\n100 100000000\n")
    msg = _build_error(path=paths[0], index_path=str(bad))
    assert "does not match" in msg and "record 1 (offset 100" in msg
    empty = tmp_path / "empty.idx"
    empty.write_text("")
    msg = _build_error(path=paths[0], index_path=str(empty))
    assert "the index files list no records" in msg
    msg = _build_error(path=paths, index_path=indexes, use_o_direct=True)
    assert "argument `use_o_direct`" in msg
    _pipeline(2, path=paths, index_path=indexes, use_o_direct=True, dont_use_mmap=True).run()
    msg = _build_error(path=paths, index_path=indexes, num_shards=N + 1)
    assert "argument `num_shards`" in msg


def test_files_without_an_index_are_checked_while_scanned(tmp_path, inet):
    paths, _, _ = inet
    empty = tmp_path / "empty.tfrecord"
    empty.write_bytes(b"")
    assert "the files hold no records" in _build_error(path=str(empty))
    with open(paths[0], "rb") as f:
        data = f.read()
    cut = tmp_path / "cut.tfrecord"
    cut.write_bytes(data[:-3])
    msg = _build_error(path=str(cut))
    assert "cut.tfrecord' is not a valid TFRecord file" in msg and "truncated" in msg
    corrupt = tmp_path / "corrupt.tfrecord"
    corrupt.write_bytes(data[:8] + b"\0\0\0\0" + data[12:])
    msg = _build_error(path=str(corrupt))
    assert "bad length checksum" in msg and "offset 0" in msg
    text = tmp_path / "text.tfrecord"
    text.write_text("not a tfrecord file at all\n")
    assert "is not a valid TFRecord file" in _build_error(path=str(text))


def test_feature_errors_are_raised_at_the_call_or_the_build(inet):
    paths, indexes, _ = inet
    kw = {"path": paths, "index_path": indexes}
    with pytest.raises(TypeError, match="must be a dict"):
        fn.readers.tfrecord(features=[_LABEL_F], **kw)
    with pytest.raises(ValueError, match="`features` is empty"):
        fn.readers.tfrecord(features={}, **kw)
    with pytest.raises(TypeError, match=r'Expected `dali\.tfrecord\.Feature` for the "x"'):
        fn.readers.tfrecord(features={"x": 3}, **kw)
    with pytest.raises(TypeError, match="missing the required argument"):
        fn.readers.tfrecord(index_path=indexes, features={"x": _LABEL_F})
    msg = _build_error(features={"t": tfrec.VarLenFeature(tfrec.string, "")}, **kw)
    assert "argument `features`" in msg and "VarLenFeature of strings" in msg
    msg = _build_error(features={"t": tfrec.FixedLenFeature([2], tfrec.string, "")}, **kw)
    assert "holds one string" in msg


# -- the loader: sharding, padding, shuffling, state ------------------------------------------


def test_two_shards_cover_the_dataset_disjointly(inet):
    paths, indexes, _ = inet
    seen = []
    for shard in range(2):
        pipe = _pipeline(3, path=paths, index_path=indexes, num_shards=2, shard_id=shard)
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["number_of_shards"] == 2
        size = (shard + 1) * N // 2 - shard * N // 2
        seen.append(_read(pipe, 3)[1][:size])
    assert not set(seen[0]) & set(seen[1])
    assert sorted(seen[0] + seen[1]) == sorted(_info(inet, i) for i in range(N))


def test_pad_last_batch_repeats_the_last_record(inet):
    paths, indexes, _ = inet
    pipe = _pipeline(4, path=paths, index_path=indexes, pad_last_batch=True)
    _, infos = _read(pipe, 4)
    assert infos == [_info(inet, i) for i in range(N)] + [_info(inet, N - 1)] * 3
    assert pipe.reader_meta("Reader")["epoch_size_padded"] == N


def test_random_shuffle_draws_the_records_read_in_order(inet):
    paths, indexes, records = inet
    every = [_info(inet, i) for i in range(N)]
    pipe = _pipeline(N, path=paths, index_path=indexes, random_shuffle=True, initial_fill=4)
    (batch,), infos = _read(pipe)
    assert infos != every and sorted(infos) == sorted(every)  # the epoch, each record once
    for k, info in enumerate(infos):
        # the buffer reads the records in file order (no shuffle of the list first, as DALI):
        # the k-th record returned is one of the first 4 + k
        assert every.index(info) < 4 + k
        assert batch[1][k].tolist() == records[every.index(info)]["image/class/label"]
    # a buffer of one record reads in order
    pipe = _pipeline(N, path=paths, index_path=indexes, random_shuffle=True, initial_fill=1)
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
    paths, indexes, _ = inet
    every = sorted(_info(inet, i) for i in range(N))
    pipe = _pipeline(N, path=paths, index_path=indexes, shuffle_after_epoch=True)
    epochs = [_read(pipe)[1] for _ in range(4)]
    assert all(sorted(e) == every for e in epochs)
    orders = [_files_in_order(e) for e in epochs]
    assert len({tuple(o) for o in orders}) > 1  # a new order of the files in some epoch
    # with a shuffle buffer on top (allowed, as in DALI): every epoch is each record once
    pipe = _pipeline(
        N, path=paths, index_path=indexes, shuffle_after_epoch=True, random_shuffle=True
    )
    assert all(sorted(_read(pipe)[1]) == every for _ in range(3))


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
    paths, indexes, _ = inet

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
            out = fn.readers.tfrecord(
                path=paths, index_path=indexes, features=FEATURES, name="Reader", **kw
            )
            pipe.set_outputs(*out.values())
        return pipe

    check_pipeline_save_restore(make, 5, 6)


def test_state_is_small_json(inet):
    paths, indexes, _ = inet
    pipe = _pipeline(3, path=paths, index_path=indexes, random_shuffle=True)
    pipe.run()
    state = pipe._plan.by_name["Reader"].impl.get_state()
    assert len(json.dumps(state)) < 400


# -- remote files (fsspec's memory filesystem) --------------------------------------------------


def test_urls_are_read_through_storage_with_and_without_an_index(inet):
    fsspec = pytest.importorskip("fsspec")
    paths, indexes, _ = inet
    fs = fsspec.filesystem("memory")
    base = f"memory://dali-tfrecord-{uuid.uuid4().hex}"
    try:
        urls, idx_urls = [], []
        for p, ix in zip(paths, indexes):
            urls.append(f"{base}/{p.rsplit('/', 1)[-1]}")
            idx_urls.append(urls[-1] + ".idx")
            for url, local_path in ((urls[-1], p), (idx_urls[-1], ix)):
                with open(local_path, "rb") as f:
                    fs.pipe_file(url.removeprefix("memory://"), f.read())
        local, _ = _read(_pipeline(5, path=paths, index_path=indexes), 3)
        for kw in ({"index_path": idx_urls}, {}):
            pipe = _pipeline(5, path=urls, **kw)
            remote, infos = _read(pipe, 3)
            assert infos[0] == f"{urls[0]} at index 0"
            for a, b in zip(local, remote):
                for x, y in zip(a, b):
                    assert all(np.array_equal(s, t) for s, t in zip(x, y))
            pipe._plan.by_name["Reader"].impl.close()
    finally:
        fs.rm(base.removeprefix("memory://"), recursive=True)


# -- the parser ---------------------------------------------------------------------------------


def test_decode_varints_matches_a_python_decoder():
    rng = np.random.default_rng(1)
    values = np.concatenate(
        [rng.integers(-(2**63), 2**63 - 1, 200, dtype=np.int64), [0, 1, 127, 128, -1, 2**63 - 1]]
    )
    payload = np.frombuffer(b"".join(_varint(v) for v in values.tolist()), np.uint8)
    np.testing.assert_array_equal(decode_varints(payload.copy()), values)
    with pytest.raises(ExampleError, match="ends inside a varint"):
        decode_varints(np.array([1, 0x80], np.uint8))
    with pytest.raises(ExampleError, match="longer than 10"):
        decode_varints(np.array([0x80] * 11 + [1], np.uint8))


def _ld(number, payload):
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(v):
    """The protobuf varint of an int64 (two's complement: negative values take 10 bytes)."""
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    return bytes([*out, v])


def _example_class():
    """``tf.train.Example`` built from descriptors with google.protobuf (no TensorFlow)."""
    pytest.importorskip("google.protobuf")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    t = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(
        name=f"example_{uuid.uuid4().hex}.proto", package="tensorflow", syntax="proto3"
    )
    lists = (("BytesList", t.TYPE_BYTES), ("FloatList", t.TYPE_FLOAT), ("Int64List", t.TYPE_INT64))
    for name, typ in lists:
        m = fdp.message_type.add(name=name)
        m.field.add(name="value", number=1, type=typ, label=t.LABEL_REPEATED)
    feature = fdp.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, name in ((1, "bytes_list"), (2, "float_list"), (3, "int64_list")):
        kind = name.title().replace("_", "")
        feature.field.add(
            name=name,
            number=number,
            type=t.TYPE_MESSAGE,
            label=t.LABEL_OPTIONAL,
            type_name=f".tensorflow.{kind}",
            oneof_index=0,
        )
    features = fdp.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=t.TYPE_STRING, label=t.LABEL_OPTIONAL)
    entry.field.add(
        name="value",
        number=2,
        type=t.TYPE_MESSAGE,
        label=t.LABEL_OPTIONAL,
        type_name=".tensorflow.Feature",
    )
    features.field.add(
        name="feature",
        number=1,
        type=t.TYPE_MESSAGE,
        label=t.LABEL_REPEATED,
        type_name=".tensorflow.Features.FeatureEntry",
    )
    example = fdp.message_type.add(name="Example")
    example.field.add(
        name="features",
        number=1,
        type=t.TYPE_MESSAGE,
        label=t.LABEL_OPTIONAL,
        type_name=".tensorflow.Features",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))


def test_parser_and_writer_agree_with_protobuf():
    example_class = _example_class()
    rng = np.random.default_rng(5)
    features = [
        ("ints", tfrec.VarLenFeature(tfrec.int64, 0)),
        ("floats", tfrec.VarLenFeature(tfrec.float32, 0.0)),
        ("blob", tfrec.FixedLenFeature([], tfrec.string, "")),
    ]
    parser = ExampleParser(features)
    for k in range(30):
        ints = rng.integers(-(2**63), 2**63 - 1, int(rng.integers(0, 50))).tolist()
        floats = rng.normal(size=int(rng.integers(0, 20))).astype(np.float32).tolist()
        blob = rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8).tobytes()
        # protobuf's bytes, read by our parser
        msg = example_class()
        msg.features.feature["ints"].int64_list.value.extend(ints)
        msg.features.feature["floats"].float_list.value.extend(floats)
        msg.features.feature["blob"].bytes_list.value.append(blob)
        msg.features.feature[f"noise{k}"].bytes_list.value.append(b"x" * k)
        data = msg.SerializeToString()
        got = parser.parse(data, np.frombuffer(data, np.uint8), 0, len(data))
        assert got[0].tolist() == ints and got[1].tolist() == floats
        assert got[2].tobytes() == blob
        # our bytes, read by protobuf
        ours = encode_example(
            {"ints": int64_feature(ints, packed=k % 2 == 0), "floats": floats, "blob": blob},
            unknown_fields=k % 3 == 0,
        )
        back = example_class.FromString(ours)
        assert list(back.features.feature["ints"].int64_list.value) == ints
        assert list(back.features.feature["floats"].float_list.value) == floats
        assert back.features.feature["blob"].bytes_list.value[0] == blob
