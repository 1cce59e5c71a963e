"""`fn.readers.caffe` and `fn.readers.caffe2` (DALI's ``readers.caffe`` / ``readers.caffe2``).

The databases come from `dali._testing.lmdb_data`; values are checked against what the writer
wrote (`caffe_sample`, `caffe2_sample`) and, where google.protobuf is installed, the record
decoder against protobuf's own parsing of random ``Datum`` and ``TensorProtos`` messages.
"""

from __future__ import annotations

import json
import os
import uuid
import warnings

import dali
import numpy as np
import pytest
from dali import fn, ops
from dali._graph.schema import REQUIRED, get_schema
from dali._ops.readers.lmdb import reader as lmdb_reader
from dali._ops.readers.lmdb.caffe2_batch import decode
from dali._ops.readers.lmdb.database import Databases, LMDBError
from dali._ops.readers.lmdb.protos import (
    DataType,
    ProtoError,
    parse_datum,
    parse_tensor_protos,
)
from dali._ops.readers.lmdb.records import Caffe2Spec, caffe2_sample
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.lmdb_data import (
    Caffe2Layout,
    caffe_key,
    caffe_sample,
    encode_caffe2_sample,
    encode_datum,
    encode_tensor,
    encode_tensor_protos,
    make_caffe2_lmdb,
    make_caffe_lmdb,
    write_lmdb,
)
from dali._testing.lmdb_data import (
    caffe2_sample as expected_caffe2,
)

pytest.importorskip("lmdb")

N = 11  # records of the Caffe JPEG database
N2 = 5  # records of the second one (seed 1, 3 classes)


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    pytest.importorskip("PIL")
    root = tmp_path_factory.mktemp("caffe")
    return (
        str(make_caffe_lmdb(root / "jpeg", N)),
        str(make_caffe_lmdb(root / "jpeg2", N2, seed=1, classes=3)),
    )


def _expected(i):
    """Sample ``i`` of the two databases read together: (image, label, source_info)."""
    image, label = caffe_sample(i) if i < N else caffe_sample(i - N, seed=1, classes=3)
    return image, label, caffe_key(i if i < N else i - N)


def _pipeline(op="caffe", batch_size=4, *, seed=7, **reader_kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=1,
        device_id=None,
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
    )
    reader_kw.setdefault("name", "Reader")
    with pipe:
        out = getattr(fn.readers, op)(**reader_kw)
        pipe.set_outputs(*(out if isinstance(out, list) else [out]))
    return pipe


def _read(pipe, iterations=1):
    """Per output, the samples of ``iterations`` batches (arrays); and the first output's
    source_info of every sample."""
    outs, infos = None, []
    for _ in range(iterations):
        batch = pipe.run()
        if outs is None:
            outs = [[] for _ in batch]
        for k, tl in enumerate(batch):
            outs[k] += [np.array(tl.at(i)) for i in range(len(tl))]
        infos += [batch[0][i].source_info() for i in range(len(batch[0]))]
    return outs, infos


def _build_error(op="caffe", **kw):
    pipe = _pipeline(op, 2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert f"dali.fn.readers.{op}" in msg
    return msg


def _run_error(pipe):
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    return str(info.value)


# -- schemas --------------------------------------------------------------------------------------

LOADER_DEFAULTS = {
    "random_shuffle": False,
    "initial_fill": 1024,
    "shard_id": 0,
    "num_shards": 1,
    "pad_last_batch": False,
    "stick_to_shard": False,
    "dont_use_mmap": False,
    "read_ahead": False,
    "lazy_init": False,
    "prefetch_queue_depth": 1,
    "skip_cached_images": False,
    "tensor_init_bytes": 1048576,
    "seed": -1,
}


@pytest.mark.parametrize(
    ("op", "own"),
    [
        ("caffe", {"path": REQUIRED, "image_available": True, "label_available": True}),
        (
            "caffe2",
            {
                "path": REQUIRED,
                "image_available": True,
                "label_type": 0,
                "num_labels": 1,
                "additional_inputs": 0,
                "bbox": False,
            },
        ),
    ],
)
def test_schema_arguments_and_defaults_match_dali(op, own):
    schema = get_schema(f"readers.{op}")
    expected = {**own, **LOADER_DEFAULTS}
    got = {name: schema.args[name].default for name in expected}
    assert got == expected
    # DALI 2.4's own arguments, and no shuffle_after_epoch (DALI's LMDB readers lack it)
    assert "shuffle_after_epoch" not in schema.args
    assert set(schema.args) - set(expected) <= {
        "bytes_per_sample_hint",
        "preserve",
        "name",
        "device",
    }


def test_ops_classes_and_deprecated_aliases(dbs):
    assert ops.readers.Caffe is not None and ops.readers.Caffe2 is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            pipe.set_outputs(*fn.caffe_reader(path=dbs[0]))
    assert any("readers.caffe" in str(w.message) for w in caught)
    pipe.build()
    assert np.array(pipe.run()[1].as_array()).ravel().tolist() == [0, 1]
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        _, labels = ops.readers.Caffe(path=dbs[0])()
        pipe.set_outputs(labels)
    pipe.build()
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 1]


# -- readers.caffe -----------------------------------------------------------------------------


def test_caffe_outputs_values_dtypes_and_source_info(dbs):
    pipe = _pipeline(path=dbs[0], batch_size=5)
    pipe.build()
    images, labels = pipe.run()
    assert (images.dtype, labels.dtype) == (dali.types.UINT8, dali.types.INT32)
    assert images.layout() == "" and labels.layout() == ""
    assert labels.as_array().shape == (5, 1)
    for i in range(5):
        image, label = caffe_sample(i)
        np.testing.assert_array_equal(np.array(images.at(i)), image)
        assert np.array(labels.at(i)).tolist() == label.tolist()
        assert images[i].source_info() == f"{dbs[0]} at key {caffe_key(i)}"
        assert labels[i].source_info() == ""  # (DALI: only the image carries it)
    assert pipe.epoch_size("Reader") == N
    assert pipe.reader_meta("Reader")["epoch_size_padded"] == N


def test_databases_in_path_order_each_in_key_order_over_epochs(dbs):
    pipe = _pipeline(path=list(dbs), batch_size=4)
    pipe.build()
    (images, labels), infos = _read(pipe, 9)  # 36 samples: two epochs of 16, and 4 more
    for k in range(36):
        image, label, key = _expected(k % (N + N2))
        np.testing.assert_array_equal(images[k], image)
        assert labels[k].tolist() == label.tolist()
        assert infos[k].endswith(f" at key {key}")
        assert infos[k].startswith(dbs[0] if k % (N + N2) < N else dbs[1])


def test_key_order_not_insertion_order(tmp_path):
    keys = ["b", "a", "aa", "B", "0", "ab"]
    path = write_lmdb(
        tmp_path / "db", {k: encode_datum(data=k.encode(), label=j) for j, k in enumerate(keys)}
    )
    pipe = _pipeline(path=str(path), batch_size=6)
    pipe.build()
    (images, _), infos = _read(pipe)
    order = sorted(k.encode() for k in keys)  # bytewise: "0" < "B" < "a" < "aa" < "ab" < "b"
    assert [bytes(x) for x in images] == order
    assert [info.rsplit(" ", 1)[-1] for info in infos] == [k.decode() for k in order]


def test_raw_images_are_height_width_channels(tmp_path):
    path = make_caffe_lmdb(tmp_path / "raw", 4, raw=True)
    pipe = _pipeline(path=str(path), batch_size=4)
    pipe.build()
    (images, labels), _ = _read(pipe)
    for i in range(4):
        image, label = caffe_sample(i, raw=True)
        assert images[i].shape == image.shape and image.ndim == 3
        np.testing.assert_array_equal(images[i], image)
        assert labels[i].tolist() == label.tolist()


@pytest.mark.parametrize(("image", "label", "count"), [(True, False, 1), (False, True, 1)])
def test_image_and_label_available_choose_the_outputs(dbs, image, label, count):
    pipe = _pipeline(path=dbs[0], batch_size=3, image_available=image, label_available=label)
    pipe.build()
    out = pipe.run()
    assert len(out) == count
    assert out[0].dtype == (dali.types.UINT8 if image else dali.types.INT32)
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        assert fn.readers.caffe(path=dbs[0], image_available=False, label_available=False) is None


def test_records_without_image_or_label_give_empty_samples(tmp_path):
    path = write_lmdb(
        tmp_path / "db",
        {
            "a": encode_datum(data=b"xyz", label=1),
            "b": encode_datum(label=2),
            "c": encode_datum(data=b"pq"),
            "d": encode_datum(data=b"q", label=-7, encoded=True),
        },
    )
    pipe = _pipeline(path=str(path), batch_size=4)
    pipe.build()
    (images, labels), infos = _read(pipe)
    assert [bytes(x) for x in images] == [b"xyz", b"", b"pq", b"q"]
    assert [x.tolist() for x in labels] == [[1], [2], [], [-7]]
    assert infos[1].endswith(" at key b")


def test_unusual_encodings_read_as_the_usual_ones(tmp_path):
    usual = make_caffe_lmdb(tmp_path / "usual", 6, raw=True)
    odd = make_caffe_lmdb(tmp_path / "odd", 6, raw=True, odd=True)
    a, _ = _read(_pipeline(path=str(usual), batch_size=6, name="A"))
    b, _ = _read(_pipeline(path=str(odd), batch_size=6, name="B"))
    for x, y in zip(a, b):
        for s, t in zip(x, y):
            np.testing.assert_array_equal(s, t)
    assert os.path.getsize(odd / "data.mdb") >= os.path.getsize(usual / "data.mdb")


def test_outputs_are_writable_and_outlive_the_pipeline(dbs):
    pipe = _pipeline(path=dbs[0], batch_size=3)
    pipe.build()
    images, labels = pipe.run()
    first = np.array(images.at(0), copy=False)
    first[:] = 0  # (fresh memory, not the database's map)
    pipe._plan.by_name["Reader"].impl.close()
    del pipe
    assert not first.any() and labels.as_array().ravel().tolist() == [0, 1, 2]
    again = _pipeline(path=dbs[0], batch_size=3, name="Again")
    again.build()
    np.testing.assert_array_equal(np.array(again.run()[0].at(0)), caffe_sample(0)[0])


# -- readers.caffe2 ----------------------------------------------------------------------------

LAYOUTS = [
    Caffe2Layout(0, 10, 0, False, "encoded", "int32"),
    Caffe2Layout(0, 10, 2, True, "raw", "float"),
    Caffe2Layout(1, 6, 2, False, "encoded", "int32"),
    Caffe2Layout(1, 4, 0, False, "gray", "float"),
    Caffe2Layout(2, 5, 3, True, None, "float"),
    Caffe2Layout(2, 3, 1, False, "raw", "int32"),
    Caffe2Layout(3, 6, 1, False, "encoded", "int32"),
    Caffe2Layout(3, 5, 0, False, None, "float"),
    Caffe2Layout(4, 1, 0, False, "encoded"),
    Caffe2Layout(4, 1, 3, True, None),
]


@pytest.mark.parametrize("path_taken", ["batch", "records"])
@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_caffe2_every_label_type_and_tensor_kind(tmp_path, monkeypatch, layout, odd, path_taken):
    if path_taken == "records":  # the Python decoder alone (as without Numba)
        monkeypatch.setattr(lmdb_reader, "decode", lambda records, spec: None)
    path = make_caffe2_lmdb(tmp_path / "db", 7, layout, odd=odd)
    pipe = _pipeline("caffe2", batch_size=4, path=str(path), **layout.reader_args())
    pipe.build()
    outs, infos = _read(pipe, 2)  # 8 samples: one epoch and the first again
    expected = [expected_caffe2(i % 7, layout) for i in range(8)]
    assert len(outs) == len(expected[0]) == Caffe2Spec(**layout.reader_args()).num_outputs()
    for k, out in enumerate(outs):
        for i, got in enumerate(out):
            want = expected[i][k]
            assert got.dtype == want.dtype and got.shape == want.shape, (k, i)
            np.testing.assert_array_equal(got, want)
    if layout.image is not None:
        assert infos[1] == f"{path} at key 000001"
    assert pipe.epoch_size("Reader") == 7


@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_the_batch_decoder_takes_the_usual_records(layout, odd):
    pytest.importorskip("numba")
    records = [encode_caffe2_sample(i, layout, odd=odd) for i in range(6)]
    fast = decode(records, Caffe2Spec(**layout.reader_args()))
    # unusual encodings (unpacked numbers, groups, segments) and weighted labels: Python
    assert (fast is None) == (odd or layout.label_type == 3)
    for k, out in enumerate(fast or []):
        for i in range(6):
            want, got = expected_caffe2(i, layout)[k], np.asarray(out[i])
            assert (got.dtype, got.shape) == (want.dtype, want.shape)
            np.testing.assert_array_equal(got, want)


def test_the_batch_decoder_agrees_with_the_record_decoder_on_damaged_records():
    pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    layouts = [lay for lay in LAYOUTS if lay.label_type != 3]
    taken = 0
    for trial in range(400):
        layout = layouts[trial % len(layouts)]
        spec = Caffe2Spec(**layout.reader_args())
        records = []
        for i in range(int(rng.integers(1, 4))):
            data = bytearray(encode_caffe2_sample(i, layout))
            for _ in range(int(rng.integers(0, 3))):  # flip bytes, cut the end
                data[int(rng.integers(0, len(data)))] = int(rng.integers(0, 256))
            if rng.random() < 0.2:
                data = data[: int(rng.integers(0, len(data)))]
            records.append(bytes(data))
        fast = decode(records, spec)
        try:
            slow = [caffe2_sample(r, spec) for r in records]
        except ValueError:
            assert fast is None  # (an error: the batch decoder hands it to the Python one)
            continue
        if fast is None:
            continue
        taken += 1
        for k, out in enumerate(fast):
            for i, sample in enumerate(slow):
                s = sample[k]
                want = (
                    np.frombuffer(records[i], np.uint8)[s.start : s.end].reshape(s.shape)
                    if hasattr(s, "shape")
                    else np.array(s.values, dtype=s.dtype)
                )
                got = np.asarray(out[i])
                assert got.dtype == want.dtype and got.shape == want.shape, (trial, k, i)
                np.testing.assert_array_equal(got, want)
    assert taken > 50  # (most damage hits the image bytes: still valid records)


def test_caffe2_label_values(tmp_path):
    t, image, box = encode_tensor, encode_tensor(b"jpeg"), encode_tensor([1, 2, 3, 4])
    skipped = t([-1.0])  # (sparse labels: the tensor after the indices is not an output)
    records = {
        "0": encode_tensor_protos([image, t([2, 0]), skipped, box]),
        "1": encode_tensor_protos([image, t([3.9]), skipped, box]),
    }
    path = str(write_lmdb(tmp_path / "db", records))
    # sparse: multi-hot of the indices; a float index is truncated (3.9 -> 3)
    pipe = _pipeline("caffe2", batch_size=2, path=path, label_type=1, num_labels=4)
    pipe.build()
    with pytest.raises(RuntimeError, match="one type"):  # (int32 and float labels: one batch)
        pipe.run()
    pipe = _pipeline("caffe2", batch_size=1, path=path, label_type=1, num_labels=4, name="One")
    pipe.build()
    (img, label, last), _ = _read(pipe, 2)
    assert label[0].tolist() == [1, 0, 1, 0] and label[0].dtype == np.int32
    assert label[1].tolist() == [0, 0, 0, 1] and label[1].dtype == np.float32
    assert last[0].tolist() == [1, 2, 3, 4] and bytes(img[0]) == b"jpeg"
    # dense: the values as stored, each record its own length and type
    pipe = _pipeline("caffe2", batch_size=1, path=path, label_type=2, name="Dense")
    pipe.build()
    assert pipe.run()[1].as_array().tolist() == [[2, 0]]
    out = pipe.run()[1]
    assert out.dtype == dali.types.FLOAT
    assert np.array(out.at(0)).tolist() == [np.float32(3.9).item()]


def test_caffe2_weighted_sparse_labels(tmp_path):
    protos = encode_tensor_protos(
        [encode_tensor([3, 1, 3]), encode_tensor([0.5, 0.25, 0.75]), encode_tensor([0, 0, 1, 1])]
    )
    path = str(write_lmdb(tmp_path / "db", {"k": protos}))
    pipe = _pipeline(
        "caffe2", batch_size=1, path=path, image_available=False, label_type=3, num_labels=5
    )
    pipe.build()
    label, box = pipe.run()
    # the weights at their indices (a repeated index: the last weight), float32
    assert label.dtype == dali.types.FLOAT
    assert np.array(label.at(0)).tolist() == [0.0, 0.25, 0.0, 0.75, 0.0]
    assert np.array(box.at(0)).tolist() == [0, 0, 1, 1]


def test_caffe2_extra_tensors_after_the_outputs_are_ignored(tmp_path):
    t = encode_tensor
    protos = encode_tensor_protos([t(b"i"), t([4]), t([1.5]), t([1, 2]), t([3, 4])])
    path = str(write_lmdb(tmp_path / "db", {"k": protos}))
    pipe = _pipeline("caffe2", batch_size=1, path=path, additional_inputs=1)
    pipe.build()
    _, _, extra = pipe.run()
    assert np.array(extra.at(0)).tolist() == [1.5]  # (two tensors more than one box: ignored)


# -- errors -----------------------------------------------------------------------------------


def test_build_errors_name_the_argument_and_the_database(dbs, tmp_path):
    missing = str(tmp_path / "missing")
    assert "'path'" in _build_error(path=missing) or "`path`" in _build_error(path=missing)
    assert "does not exist" in _build_error(path=[dbs[0], missing])
    (tmp_path / "file").write_bytes(b"x")
    assert "is not a directory" in _build_error(path=str(tmp_path / "file"))
    (tmp_path / "folder").mkdir()
    assert "cannot open the LMDB database" in _build_error(path=str(tmp_path / "folder"))
    empty = write_lmdb(tmp_path / "empty", {})
    assert "hold no records" in _build_error(path=str(empty))
    assert "no LMDB databases" in _build_error(path=[])
    assert "not URLs: s3://bucket/db" in _build_error(path="s3://bucket/db")
    assert "shard_id" in _build_error(path=dbs[0], num_shards=2, shard_id=2)


def test_caffe2_argument_errors(dbs):
    assert "label_type" in _build_error("caffe2", path=dbs[0], label_type=5)
    msg = _build_error("caffe2", path=dbs[0], label_type=1, bbox=True)
    assert "`bbox`" in msg and "sparse labels" in msg
    assert "num_labels" in _build_error("caffe2", path=dbs[0], label_type=1, num_labels=0)
    assert "additional_inputs" in _build_error("caffe2", path=dbs[0], additional_inputs=-1)


def test_a_malformed_record_is_an_error_naming_the_database_and_key(tmp_path):
    path = str(
        write_lmdb(tmp_path / "db", {"a": encode_datum(data=b"x", label=1), "b": b"\xff\xff"})
    )
    pipe = _pipeline(path=path, batch_size=2)
    pipe.build()
    msg = _run_error(pipe)
    assert f"{path} at key b" in msg and "Caffe record" in msg and "raw data length: 2" in msg


def test_caffe_record_errors(tmp_path):
    short = encode_datum(data=bytes(10), label=1, channels=1, height=3, width=4, encoded=False)
    path = str(write_lmdb(tmp_path / "short", {"a": short}))
    pipe = _pipeline(path=path, batch_size=1)
    pipe.build()
    assert "does not fill its height x width x channels = 3 x 4 x 1" in _run_error(pipe)
    raw = encode_datum(data=bytes(12), label=1, channels=1, height=3, width=4, encoded=False)
    path = str(write_lmdb(tmp_path / "mixed", {"a": encode_datum(data=b"j", label=0), "b": raw}))
    pipe = _pipeline(path=path, batch_size=2, name="Mixed")
    pipe.build()
    msg = _run_error(pipe)
    assert "one number of dimensions" in msg and "1-D" in msg and "3-D" in msg


def _caffe2_error(tmp_path, tensors, **kw):
    records = {f"{k}": encode_tensor_protos(t) for k, t in enumerate(tensors)}
    path = str(write_lmdb(tmp_path / uuid.uuid4().hex, records))
    pipe = _pipeline("caffe2", batch_size=len(records), path=path, **kw)
    pipe.build()
    return _run_error(pipe)


def test_caffe2_record_errors(tmp_path):
    t, image = encode_tensor, encode_tensor(b"jpeg")
    cases = [
        ([[image, t([1]), t([1, 2, 3, 4])]], {}, "set bbox=True"),
        ([[image, t([1])]], {"bbox": True}, "no bounding-box tensor"),
        ([[image, t([1]), t([1.0, 2.0, 3.0, 4.0])]], {"bbox": True}, "INT32 of 4 values"),
        ([[image, t([1, 2])]], {"label_type": 1, "num_labels": 3}, "must end with one tensor"),
        (
            [[image, t([5]), t([0]), t([1, 2, 3, 4])]],
            {"label_type": 1, "num_labels": 3},
            "not in [0, num_labels=3)",
        ),
        ([[image, t([1, 2])]], {}, "holds 2"),
        ([[image, t(np.array([1], np.int64))]], {}, "labels are FLOAT or INT32"),
        ([[t([1]), t([1])]], {}, "images are STRING (encoded) or BYTE"),
        ([[image, t([1])]], {"additional_inputs": 2}, "additional tensor 0 would be tensor 2"),
        ([[image]], {}, "the label would be tensor 1"),
        ([[image, t([1]), t(b"s")]], {"additional_inputs": 1}, "FLOAT, INT32 or INT64"),
        ([[image, t([1])], [image, t([1.0])]], {}, "one type"),
        (
            [[t(data_type=DataType.BYTE, dims=[2, 2], byte_data=b"abc"), t([1])]],
            {},
            "holds 3 bytes",
        ),
        ([[t(data_type=DataType.STRING), t([1])]], {}, "holds no string"),
        ([[image, t([0]), t([])]], {"label_type": 3, "num_labels": 2}, "but 0 weights"),
    ]
    for tensors, kw, text in cases:
        msg = _caffe2_error(tmp_path, tensors, **kw)
        assert text in msg, (text, msg)
        assert " at key 0" in msg or " at key 1" in msg


# -- loader: sharding, shuffling, checkpoints -----------------------------------------------------


def test_shards_cover_the_dataset_disjointly_with_dali_meta(dbs):
    seen = []
    for shard in range(3):
        pipe = _pipeline(
            path=list(dbs), num_shards=3, shard_id=shard, batch_size=2, name=f"S{shard}"
        )
        pipe.build()
        meta = pipe.reader_meta(f"S{shard}")
        assert meta["epoch_size"] == N + N2 and meta["number_of_shards"] == 3
        size = (shard + 1) * (N + N2) // 3 - shard * (N + N2) // 3
        _, infos = _read(pipe, -(-size // 2))
        seen += infos[:size]
    expected = [f"{dbs[0] if i < N else dbs[1]} at key {_expected(i)[2]}" for i in range(N + N2)]
    assert seen == expected


def test_pad_last_batch_repeats_the_last_record(dbs):
    pipe = _pipeline(path=dbs[1], batch_size=3, pad_last_batch=True)
    pipe.build()
    _, infos = _read(pipe, 2)
    keys = [info.rsplit(" ", 1)[-1] for info in infos]
    assert keys == [caffe_key(i) for i in (0, 1, 2, 3, 4, 4)]
    assert pipe.reader_meta("Reader")["epoch_size_padded"] == 5  # (DALI's: one shard)


def test_random_shuffle_draws_the_records_read_in_order(dbs):
    pipe = _pipeline(path=list(dbs), batch_size=4, random_shuffle=True, initial_fill=3)
    pipe.build()
    (_, labels), infos = _read(pipe, 8)  # two epochs of 16
    order = [f"{dbs[0] if i < N else dbs[1]} at key {_expected(i)[2]}" for i in range(N + N2)]
    index = [order.index(info) for info in infos]
    for e in range(2):
        epoch = index[16 * e : 16 * (e + 1)]
        assert sorted(epoch) == list(range(16))
        # the k-th drawn record is among the first initial_fill + k read
        assert all(r < 3 + k for k, r in enumerate(epoch))
    assert index[:16] != list(range(16))
    for info, label in zip(infos, labels):  # each record keeps its label
        assert label.tolist() == _expected(order.index(info))[1].tolist()


@pytest.mark.parametrize(
    ("op", "kw"),
    [
        ("caffe", {}),
        ("caffe", {"num_shards": 2, "shard_id": 1, "pad_last_batch": True}),
        ("caffe", {"random_shuffle": True, "initial_fill": 5}),
        (
            "caffe2",
            {"random_shuffle": True, "initial_fill": 3, "stick_to_shard": True, "num_shards": 2},
        ),
    ],
)
def test_checkpoint_round_trip(dbs, tmp_path, op, kw):
    if op == "caffe":
        path = list(dbs)
        args = {}
    else:
        layout = Caffe2Layout(1, 6, 1)
        path = str(make_caffe2_lmdb(tmp_path / "c2", 9, layout))
        args = layout.reader_args()

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
            out = getattr(fn.readers, op)(path=path, name="Reader", **args, **kw)
            pipe.set_outputs(*out)
        return pipe

    check_pipeline_save_restore(make, 5, 7)


def test_state_is_small_json(dbs):
    pipe = _pipeline(path=list(dbs), batch_size=3, random_shuffle=True)
    pipe.build()
    pipe.run()
    state = pipe._plan.by_name["Reader"].impl.get_state()
    assert len(json.dumps(state)) < 400


# -- the databases ------------------------------------------------------------------------------


def test_two_pipelines_share_one_database(dbs):
    a = _pipeline(path=dbs[0], batch_size=2, name="A")
    b = _pipeline(path=dbs[0], batch_size=3, name="B")
    a.build()
    b.build()
    assert a.run()[1].as_array().ravel().tolist() == [0, 1]
    assert b.run()[1].as_array().ravel().tolist() == [0, 1, 2]
    a._plan.by_name["A"].impl.close()  # (b still reads: the environment stays open)
    assert b.run()[1].as_array().ravel().tolist() == [3, 4, 5]


def test_databases_reopen_in_another_process_and_after_close(dbs):
    d = Databases([dbs[1]])
    assert d.list_records() == N2
    assert d.key(2) == caffe_key(2).encode()
    first = [bytes(v) for v in d.read([4, 0])]
    d._pid = -1  # as if this process were a fork of the one that opened it
    assert [bytes(v) for v in d.read([4, 0])] == first
    d.close()
    assert [bytes(v) for v in d.read([4, 0])] == first  # (read reopens)
    d.close()
    with pytest.raises(LMDBError, match="does not exist"):
        Databases(["/nonexistent/db"]).list_records()


def test_a_database_finalised_while_another_opens_does_not_deadlock(dbs, tmp_path, monkeypatch):
    # a garbage collection inside py-lmdb's open may finalise a `Databases` (its `close`
    # releases an environment) in the thread that holds the table: it hung the test suite
    import threading

    from dali._ops.readers.lmdb import database

    write_lmdb(tmp_path, {"k": encode_datum(data=b"x", label=1)})
    dying = Databases([dbs[0]])
    dying.list_records()
    lmdb = database._lmdb()
    real_open = lmdb.open

    def open_and_collect(*args, **kwargs):
        dying.__del__()  # what the collector runs
        return real_open(*args, **kwargs)

    def users(path):  # the readers holding a database's environment
        entry = database._ENVIRONMENTS._open.get(os.path.realpath(path))
        return 0 if entry is None else entry[1]

    before = users(dbs[0])
    monkeypatch.setattr(lmdb, "open", open_and_collect)
    fresh = Databases([str(tmp_path)])  # (not open in this process: py-lmdb's open runs)
    done = threading.Thread(target=fresh.list_records, daemon=True)
    done.start()
    done.join(60)  # a deadlock never ends; the open itself takes milliseconds
    assert not done.is_alive()
    assert users(dbs[0]) == before - 1 and users(tmp_path) == 1
    fresh.close()


def test_another_environment_of_the_process_is_named(tmp_path):
    import lmdb

    path = str(write_lmdb(tmp_path / "db", {"a": encode_datum(data=b"x", label=1)}))
    env = lmdb.open(path, readonly=True, lock=False)
    try:
        msg = _build_error(path=path)
        assert "close the lmdb.Environment" in msg
    finally:
        env.close()


# -- the record decoder against protobuf --------------------------------------------------------


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    return bytes([*out, v])


def test_malformed_messages_are_refused_as_protobuf_refuses_them():
    cases = [
        (b"\x22\x05ab", "runs past the end"),  # data: 5 bytes announced, 2 there
        (b"\x28\xff\xff", "cut off"),  # label: a truncated varint
        (b"\x28" + b"\xff" * 10 + b"\x01", "longer than 10 bytes"),
        (b"\x00\x01", "field number 0"),
        (b"\x0e", "invalid wire type 6"),
        (b"\x2c", "end-group tag"),  # field 5, wire 4
        (b"\x2b\x08\x01", "no end-group tag"),  # a group never closed
        (b"\x2b\x08\x01\x34", "closes group 5"),  # closed by another number's end-group tag
        (b"\x32\x03abc", "not of 4-byte values"),  # packed float_data of 3 bytes
        (b"\x35ab", "cut off"),  # an unknown fixed32 cut off
    ]
    for record, text in cases:
        with pytest.raises(ProtoError, match=text.replace("(", r"\(")):
            parse_datum(record)
    segment_without_end = b"\x0a\x04" + b"\x5a\x02\x08\x00"
    with pytest.raises(ProtoError, match="lacks its required end"):
        parse_tensor_protos(segment_without_end)
    with pytest.raises(ProtoError, match="not of 8-byte values"):
        parse_tensor_protos(b"\x0a\x05" + b"\x4a\x03abc")  # packed double_data of 3 bytes


def test_unknown_fields_groups_and_odd_forms_are_skipped():
    group = b"\x53" + b"\x08\x01" + b"\x54"  # field 10, a group holding a varint
    record = group + b"\x28\x07" + b"\x2d\x01\x02\x03\x04" + b"\x38\x02" + b"\x88\x01\x05"
    datum = parse_datum(record)  # label 7; label as fixed32 (unknown); encoded 2 -> True
    assert (datum.label, datum.encoded, datum.data) == (7, True, None)
    # a tag written in two bytes (0x8a 0x00: field 1, wire 2) is still field 1
    tensors = parse_tensor_protos(b"\x8a\x00\x02\x10\x02")
    assert len(tensors) == 1 and tensors[0].data_type == DataType.INT32
    # an enum value DataType lacks is ignored: the field keeps its default (FLOAT)
    assert parse_tensor_protos(b"\x0a\x02\x10\x0b")[0].data_type == DataType.FLOAT


def test_int32_values_are_truncated_as_protobuf_reads_them():
    big = encode_tensor(int32_data=[2**33 + 5, -1, 2**31], data_type=DataType.INT32)
    (t,) = parse_tensor_protos(encode_tensor_protos([big]))
    assert list(t.int32s()) == [5, -1, -(2**31)]
    long_run = list(range(-50, 50))  # (a long run: decoded with numpy)
    (t,) = parse_tensor_protos(encode_tensor_protos([encode_tensor(long_run)]))
    assert list(t.int32s()) == long_run


def _proto_classes():
    """``Datum`` and ``TensorProtos`` built from descriptors with google.protobuf (proto2)."""
    pytest.importorskip("google.protobuf")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    t = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(
        name=f"caffe_{uuid.uuid4().hex}.proto", package="dalitest", syntax="proto2"
    )
    opt, rep = t.LABEL_OPTIONAL, t.LABEL_REPEATED
    datum = fdp.message_type.add(name="Datum")
    for number, name, typ, label in (
        (1, "channels", t.TYPE_INT32, opt),
        (2, "height", t.TYPE_INT32, opt),
        (3, "width", t.TYPE_INT32, opt),
        (4, "data", t.TYPE_BYTES, opt),
        (5, "label", t.TYPE_INT32, opt),
        (6, "float_data", t.TYPE_FLOAT, rep),
        (7, "encoded", t.TYPE_BOOL, opt),
    ):
        datum.field.add(name=name, number=number, type=typ, label=label)
    tensor = fdp.message_type.add(name="TensorProto")
    dtype = tensor.enum_type.add(name="DataType")
    for member in DataType:
        dtype.value.add(name=member.name, number=int(member))
    segment = tensor.nested_type.add(name="Segment")
    segment.field.add(name="begin", number=1, type=t.TYPE_INT64, label=t.LABEL_REQUIRED)
    segment.field.add(name="end", number=2, type=t.TYPE_INT64, label=t.LABEL_REQUIRED)
    for number, name, typ, label, packed in (
        (1, "dims", t.TYPE_INT64, rep, False),
        (3, "float_data", t.TYPE_FLOAT, rep, True),
        (4, "int32_data", t.TYPE_INT32, rep, True),
        (5, "byte_data", t.TYPE_BYTES, opt, False),
        (6, "string_data", t.TYPE_BYTES, rep, False),
        (7, "name", t.TYPE_STRING, opt, False),
        (9, "double_data", t.TYPE_DOUBLE, rep, True),
        (10, "int64_data", t.TYPE_INT64, rep, True),
    ):
        f = tensor.field.add(name=name, number=number, type=typ, label=label)
        if packed:
            f.options.packed = True
    tensor.field.add(
        name="data_type",
        number=2,
        type=t.TYPE_ENUM,
        label=opt,
        type_name=".dalitest.TensorProto.DataType",
        default_value="FLOAT",
    )
    tensor.field.add(
        name="segment",
        number=11,
        type=t.TYPE_MESSAGE,
        label=opt,
        type_name=".dalitest.TensorProto.Segment",
    )
    protos = fdp.message_type.add(name="TensorProtos")
    protos.field.add(
        name="protos", number=1, type=t.TYPE_MESSAGE, label=rep, type_name=".dalitest.TensorProto"
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    get = message_factory.GetMessageClass
    return get(pool.FindMessageTypeByName("dalitest.Datum")), get(
        pool.FindMessageTypeByName("dalitest.TensorProtos")
    )


def test_decoder_and_writer_agree_with_protobuf():
    datum_class, protos_class = _proto_classes()
    rng = np.random.default_rng(3)
    for k in range(40):
        data = rng.integers(0, 256, int(rng.integers(0, 200)), dtype=np.uint8).tobytes()
        label = int(rng.integers(-(2**31), 2**31))
        # protobuf's bytes, read by our decoder
        msg = datum_class(data=data, label=label, channels=3, encoded=k % 2 == 0)
        msg.float_data.extend(rng.normal(size=k % 4).astype(np.float32).tolist())
        raw = msg.SerializeToString()
        got = parse_datum(raw)
        assert (got.label, got.channels, got.encoded) == (label, 3, k % 2 == 0)
        assert raw[got.data[0] : got.data[1]] == data
        # our bytes (usual and odd), read by protobuf
        ours = encode_datum(data=data, label=label, height=k, encoded=bool(k % 3), odd=k % 2 == 1)
        back = datum_class.FromString(ours)
        assert (back.data, back.label, back.height, back.encoded) == (data, label, k, bool(k % 3))

        ints = rng.integers(-(2**31), 2**31, int(rng.integers(0, 40))).tolist()
        floats = rng.normal(size=int(rng.integers(0, 40))).astype(np.float32).tolist()
        longs = rng.integers(-(2**63), 2**63 - 1, int(rng.integers(0, 30))).tolist()
        msg = protos_class()
        a = msg.protos.add(data_type=2, dims=[len(ints)])
        a.int32_data.extend(ints)
        b = msg.protos.add(name="floats")
        b.float_data.extend(floats)
        c = msg.protos.add(data_type=10, byte_data=data)
        c.int64_data.extend(longs)
        c.string_data.extend([b"x", data])
        c.segment.begin, c.segment.end = 0, 1
        raw = msg.SerializeToString()
        ta, tb, tc = parse_tensor_protos(raw)
        assert (ta.data_type, ta.dims, list(ta.int32s())) == (2, [len(ints)], ints)
        assert tb.data_type == DataType.FLOAT
        assert np.array(tb.floats(raw), np.float32).tolist() == floats
        assert list(tc.int64s()) == longs and raw[slice(*tc.byte_data)] == data
        assert [raw[slice(*s)] for s in tc.string_data] == [b"x", data]
        # ours, read by protobuf (and by ours)
        ours = encode_tensor_protos(
            [
                encode_tensor(int32_data=ints, data_type=DataType.INT32, odd=k % 2 == 1),
                encode_tensor(int64_data=longs, data_type=DataType.INT64, odd=k % 3 == 0),
            ],
            odd=k % 2 == 1,
        )
        back = protos_class.FromString(ours)
        assert list(back.protos[0].int32_data) == ints and back.protos[0].data_type == 2
        assert list(back.protos[1].int64_data) == longs and back.protos[1].data_type == 10
        mine = parse_tensor_protos(ours)
        assert list(mine[0].int32s()) == ints and list(mine[1].int64s()) == longs


def test_record_rules_on_a_view():
    spec = Caffe2Spec(image_available=False, label_type=0, additional_inputs=1)
    record = encode_tensor_protos(
        [encode_tensor([7]), encode_tensor(np.arange(40, dtype=np.int64))]
    )
    label, extra = caffe2_sample(memoryview(record), spec)
    assert list(label.values) == [7] and label.dtype == np.int32
    assert list(extra.values) == list(range(40)) and extra.dtype == np.int64
