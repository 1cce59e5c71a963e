"""Readers on object storage: a real S3 server (moto, `s3_server`) on localhost.

The datasets the other reader tests use are copied into a bucket; each reader reads them from
``s3://`` and from disk and must give the same batches (bytes, labels, ``source_info``). The
server is reached the standard way (``AWS_ENDPOINT_URL_S3`` and credentials in the
environment), so the code under test sees nothing but URLs. Permission failures are real
``403``s: moto's IAM checks switched on (`s3_server.enforce_auth`).

Skipped, saying which package is missing, without moto[server], s3fs or boto3 (the nox
``core`` session installs them).
"""

from __future__ import annotations

import concurrent.futures
import gc
import os
import threading

import dali
import numpy as np
import pytest
import s3_server
from dali import _options as options
from dali import fn
from dali._exec import closer
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage import remote as _remote
from dali._ops.readers.storage.access import Extent
from dali._testing.checkpoints import check_pipeline_save_restore

_MISSING = s3_server.missing()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")

BUCKET = "data"
N = 21  # images of the `image_tree` fixture


def _forget_clients() -> None:
    """Drop fsspec's cached S3 filesystems: they keep the endpoint and credentials they were
    made with (the environment is read when one is made)."""
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


@pytest.fixture(scope="module")
def s3(image_tree, tmp_path_factory):
    """The server with the datasets in ``s3://data/``, the environment pointing at it."""
    server = s3_server.start()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN"):
            mp.delenv(name, raising=False)
        for name, value in s3_server.environ(server.endpoint).items():
            mp.setenv(name, value)
        mp.setenv("AWS_EC2_METADATA_DISABLED", "true")  # no instance-metadata lookups
        _forget_clients()
        s3_server.upload(server.endpoint, BUCKET, image_tree, "tree")
        yield server
        _storage.drop_prefetched()
        _forget_clients()
    server.stop()


@pytest.fixture(autouse=True)
def _no_earlier_read_ahead():
    """Each test starts without the read-ahead of earlier tests (of other modules too, in
    this process): pipelines dropped without `close()` are closed first (the closing thread
    runs its queue in order), their requests finished, what they fetched forgotten. The
    request counts and read-ahead sizes below are then this test's own."""
    gc.collect()
    closer.start()
    closed = threading.Event()
    closer.defer(closed.set)
    assert closed.wait(30)
    _settled()
    _storage.drop_prefetched()


def _url(*parts: str) -> str:
    return "/".join([f"s3://{BUCKET}", *parts])


def _batches(reader, batches, batch_size=4, **kw):
    """``batches`` batches of ``reader(**kw)``'s outputs: per batch, per output, the samples'
    arrays, and the batch's source_info."""
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=5)
    with pipe:
        out = reader(name="Reader", **kw)
        out = list(out.values()) if isinstance(out, dict) else out
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    result = []
    for _ in range(batches):
        outs = pipe.run()
        arrays = [[np.asarray(o[i]) for i in range(len(o))] for o in outs]
        result.append((arrays, [outs[0][i].source_info() for i in range(len(outs[0]))]))
    meta = pipe.reader_meta("Reader")
    pipe.close()
    return result, meta


def _assert_same(remote, local):
    (r_batches, r_meta), (l_batches, l_meta) = remote, local
    assert r_meta == l_meta
    assert len(r_batches) == len(l_batches)
    for b, ((r_arrays, r_info), (l_arrays, l_info)) in enumerate(zip(r_batches, l_batches)):
        assert r_info == l_info, f"batch {b}: source_info"
        for o, (r_out, l_out) in enumerate(zip(r_arrays, l_arrays)):
            for i, (r, l_) in enumerate(zip(r_out, l_out)):
                assert r.dtype == l_.dtype and r.shape == l_.shape, f"batch {b} output {o} #{i}"
                np.testing.assert_array_equal(r, l_, err_msg=f"batch {b} output {o} #{i}")


# -- readers.file ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"random_shuffle": True, "initial_fill": 8},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"shuffle_after_epoch": True},
        {"file_filters": ["*_0[0-5].jpg"], "dir_filters": ["[01]"]},
    ],
    ids=["plain", "random_shuffle", "shard", "shuffle_after_epoch", "filters"],
)
def test_file_root_from_s3_equals_local(s3, image_tree, kw):
    remote = _batches(fn.readers.file, 7, file_root=_url("tree"), **kw)
    local = _batches(fn.readers.file, 7, file_root=str(image_tree), **kw)
    _assert_same(remote, local)
    assert remote[0][0][0][1][0].shape == (1,)  # labels are there


def test_file_list_and_files_from_s3_equal_local(s3, image_tree):
    _assert_same(
        _batches(fn.readers.file, 6, file_list=_url("tree", "list.txt")),
        _batches(fn.readers.file, 6, file_list=str(image_tree / "list.txt")),
    )
    files = ["2/img_02.jpg", "0/img_00.jpg", "1/img_10.jpg"]
    _assert_same(
        _batches(fn.readers.file, 3, file_root=_url("tree"), files=files, labels=[7, 8, 9]),
        _batches(fn.readers.file, 3, file_root=str(image_tree), files=files, labels=[7, 8, 9]),
    )
    # a list's entries may be URLs themselves (source_info: the entry as written)
    full = [_url("tree", f) for f in files]
    ((arrays, info),), _ = _batches(fn.readers.file, 1, batch_size=3, files=full)
    assert info == full
    assert [a.tobytes() for a in arrays[0]] == [(image_tree / f).read_bytes() for f in files]


def _settled() -> None:
    """Wait for the requests the read-ahead has in flight."""
    for span, _ in list(_remote.read_ahead._entries.values()):
        concurrent.futures.wait([p.future for p in span.parts])


def test_next_batches_are_read_ahead(s3, monkeypatch):
    """After a batch, the next `READ_AHEAD` batches' objects are being fetched: reading them
    takes them from the read-ahead (no object is fetched twice), and nothing is left behind
    at close.

    The fetches are counted where the reader makes them: the server's own count also holds
    the transport's retries, which a loaded machine makes now and then."""
    asked: list[str] = []
    cat, cat_sync = _remote._cat, _remote._cat_sync

    async def counted(fs, path, start, end):
        asked.append(path)
        return await cat(fs, path, start, end)

    def counted_sync(fs, path, start, end):
        asked.append(path)
        return cat_sync(fs, path, start, end)

    monkeypatch.setattr(_remote, "_cat", counted)
    monkeypatch.setattr(_remote, "_cat_sync", counted_sync)
    pipe = dali.Pipeline(
        batch_size=4, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        pipe.set_outputs(*fn.readers.file(file_root=_url("tree"), name="Reader"))
    pipe.build()
    asked.clear()
    runs = 5
    for _ in range(runs):
        pipe.run()
        assert len(_remote.read_ahead) == 4 * options.READ_AHEAD
    _settled()
    # batch 0 read, batches 1 .. runs - 1 + READ_AHEAD asked for ahead, each sample's object
    # once: the stream's first 28 samples, the tree's files in listing order (sorted) and
    # the first 7 of them again (the second epoch)
    listing = sorted(set(asked))
    assert len(listing) == N
    wanted = [listing[i % N] for i in range(4 * (runs + options.READ_AHEAD))]
    assert sorted(asked) == sorted(wanted)
    pipe.close()
    assert len(_remote.read_ahead) == 0 and _remote.read_ahead.nbytes == 0


def test_a_run_of_prefetched_extents_is_read_as_one(s3, image_tree):
    """Records asked for one by one and read as one run (tfrecord does): one request, and
    the records count as read."""
    url = _url("tree", "0", "img_06.jpg")
    blob = (image_tree / "0" / "img_06.jpg").read_bytes()
    before = s3.requests
    _storage.prefetch([Extent(url, k * 100, 100) for k in range(10)])
    (run,) = _storage.read_extents([Extent(url, 0, 1000)])
    assert run.tobytes() == blob[:1000]
    assert s3.requests - before == 1
    assert len(_remote.read_ahead) == 0 and _remote.read_ahead.nbytes == 0


def test_batches_after_a_seek_are_right(s3, image_tree):
    """Restoring an earlier state makes the batch read ahead the wrong one: the next batches
    must still be those of the restored position."""

    def make():
        pipe = dali.Pipeline(
            batch_size=4, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
        )
        with pipe:
            data, label = fn.readers.file(file_root=_url("tree"), name="Reader")
            pipe.set_outputs(data, label)
        pipe.build()
        return pipe, pipe._plan.by_name["Reader"].impl

    def take(pipe, n):
        out = []
        for _ in range(n):
            data, label = pipe.run()
            out.append(([np.asarray(data[i]).tobytes() for i in range(4)], label.as_array()))
        return out

    pipe, reader = make()
    take(pipe, 2)
    state = reader.get_state()
    expected = take(pipe, 4)
    take(pipe, 1)
    reader.set_state(state)
    got = take(pipe, 4)
    for (e_data, e_label), (g_data, g_label) in zip(expected, got):
        assert e_data == g_data
        np.testing.assert_array_equal(e_label, g_label)
    pipe.close()


@pytest.mark.parametrize("shuffle", [False, True])
def test_checkpoint_round_trip_from_s3(s3, shuffle):
    def make(checkpoint=None):
        pipe = dali.Pipeline(
            batch_size=4,
            num_threads=2,
            device_id=None,
            seed=3,
            enable_checkpointing=True,
            checkpoint=checkpoint,
        )
        with pipe:
            pipe.set_outputs(
                *fn.readers.file(
                    file_root=_url("tree"), random_shuffle=shuffle, initial_fill=6, name="Reader"
                )
            )
        return pipe

    check_pipeline_save_restore(make, 3, 4)


# -- readers.numpy ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def numpy_tree(s3, tmp_path_factory):
    from dali._testing import numpy_files

    root = tmp_path_factory.mktemp("npy")
    numpy_files.make_numpy_tree(root)
    s3_server.upload(s3.endpoint, BUCKET, root / "tree", "npy")
    return root / "tree"


@pytest.mark.parametrize("kw", [{}, {"roi_start": [1, 0], "roi_end": [3, 2]}], ids=["whole", "roi"])
def test_numpy_from_s3_equals_local(s3, numpy_tree, kw):
    if "roi_start" in kw:
        kw = {**kw, "file_filter": "a*.npy"}
    _assert_same(
        _batches(fn.readers.numpy, 4, batch_size=2, file_root=_url("npy"), **kw),
        _batches(fn.readers.numpy, 4, batch_size=2, file_root=str(numpy_tree), **kw),
    )


def test_numpy_reads_each_sample_once(s3, numpy_tree):
    """The payload asked for ahead is the one read (not the whole object again)."""
    pipe = dali.Pipeline(
        batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        pipe.set_outputs(fn.readers.numpy(file_root=_url("npy")))
    pipe.build()
    for _ in range(3):  # every header read once
        pipe.run()
    _settled()
    before = s3.requests
    for _ in range(4):
        pipe.run()
    _settled()
    # at most one request per sample (a small file's header probe may hold its payload too)
    assert 0 < s3.requests - before <= 4 * 2
    pipe.close()


# -- concurrency -----------------------------------------------------------------------------


def test_a_batch_goes_out_as_concurrent_coalesced_requests(s3, image_tree, monkeypatch):
    urls = [_url("tree", f"{i % 3}/img_{i:02d}.jpg") for i in range(12)]
    s3.latency = 0.25
    try:
        s3.peak = 0
        got = _storage.read_extents([Extent(u) for u in urls])
        # twelve objects at once, not one after another: while each request waits out the
        # server's latency, the others are already there (as many as the pool sends at once)
        assert s3.peak >= min(12, options.REMOTE_REQUESTS) // 2, s3.peak
        assert [g.tobytes() for g in got] == [
            (image_tree / f"{i % 3}/img_{i:02d}.jpg").read_bytes() for i in range(12)
        ]
        # contiguous ranges of one object (records of a shard): one request
        blob = (image_tree / "0/img_06.jpg").read_bytes()  # 37 KB
        before = s3.requests
        ranges = [Extent(urls[6], k * 100, 100) for k in range(20)]
        got = _storage.read_extents(ranges)
        assert s3.requests - before == 1
        assert b"".join(g.tobytes() for g in got) == blob[:2000]
        # a long span is fetched as parallel parts
        monkeypatch.setattr(options, "REMOTE_PART_BYTES", 512)
        before = s3.requests
        (whole,) = _storage.read_extents([Extent(urls[6], 0, 2048)])
        assert s3.requests - before == 4 and whole.tobytes() == blob[:2048]
    finally:
        s3.latency = 0.0


# -- errors ----------------------------------------------------------------------------------


def test_missing_objects_name_the_url(s3):
    missing = _url("tree", "0", "nope.jpg")
    with pytest.raises(FileNotFoundError) as info:
        _storage.read_bytes(missing)
    assert info.value.filename == missing and "no such object" in str(info.value)
    (err,) = _storage.read_extents([Extent(missing, 10, 20)])
    assert isinstance(err, FileNotFoundError) and err.filename == missing
    with pytest.raises(FileNotFoundError):
        _storage.size(missing)
    assert not _storage.exists(missing)
    assert _storage.isdir(_url("tree")) and not _storage.isdir(_url("tree", "list.txt"))
    assert _storage.listdir(_url("tree")) == [
        ("0", True),
        ("1", True),
        ("2", True),
        ("list.txt", False),
    ]


def test_reader_build_errors_name_the_url(s3):
    def build(**kw):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            pipe.set_outputs(*fn.readers.file(**kw))
        pipe.build()

    with pytest.raises(Exception, match=r"file_root.*s3://data/nowhere.*does not exist"):
        build(file_root=_url("nowhere"))
    with pytest.raises(Exception, match=r"files.*1 file\(s\) do not exist.*s3://data/tree/0/x"):
        build(file_root=_url("tree"), files=["0/img_00.jpg", "0/x.jpg"])
    with pytest.raises(Exception, match=r"file_list.*cannot read 's3://data/tree/none.txt'"):
        build(file_list=_url("tree", "none.txt"))
    with pytest.raises(Exception, match=r"file_list.*names 1 missing file"):
        s3_server.client(s3.endpoint).put_object(
            Bucket=BUCKET, Key="lists/bad.txt", Body=b"a.jpg 0\n"
        )
        build(file_list=_url("lists", "bad.txt"))


def test_object_gone_after_build_is_a_read_error_naming_it(s3, image_tree):
    client = s3_server.client(s3.endpoint)
    client.put_object(Bucket=BUCKET, Key="gone/0/a.jpg", Body=b"x")
    client.put_object(Bucket=BUCKET, Key="gone/0/b.jpg", Body=b"y")
    pipe = dali.Pipeline(
        batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        pipe.set_outputs(*fn.readers.file(file_root=_url("gone")))
    pipe.build()
    client.delete_object(Bucket=BUCKET, Key="gone/0/b.jpg")
    with pytest.raises(RuntimeError, match=r"readers\.file.*s3://data/gone/0/b\.jpg.*no such obj"):
        pipe.run()
    pipe.close()


@pytest.fixture(scope="module")
def reader_keys(s3):
    """An IAM user that may list and read the bucket, except ``secret/``."""
    client = s3_server.client(s3.endpoint)
    client.put_object(Bucket=BUCKET, Key="secret/0/a.jpg", Body=b"hidden")
    client.put_object(Bucket=BUCKET, Key="open/0/a.jpg", Body=b"shown")
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:ListBucket"],
                "Resource": [f"arn:aws:s3:::{BUCKET}", f"arn:aws:s3:::{BUCKET}/*"],
            },
            {
                "Effect": "Deny",
                "Action": ["s3:GetObject"],
                "Resource": [f"arn:aws:s3:::{BUCKET}/secret/*"],
            },
        ],
    }
    return s3_server.iam_user(s3.endpoint, "reader", policy)


@pytest.fixture
def as_user(s3, reader_keys, monkeypatch):
    """Inside: IAM enforced, the environment holding ``keys`` (set them with the function)."""

    def use(key: str | None, secret: str | None) -> None:
        for name, value in (("AWS_ACCESS_KEY_ID", key), ("AWS_SECRET_ACCESS_KEY", secret)):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        _forget_clients()

    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/config")
    use(reader_keys["key"], reader_keys["secret"])
    with s3_server.enforce_auth(s3.endpoint):
        yield use
    _storage.drop_prefetched()
    monkeypatch.undo()
    _forget_clients()


def test_permission_failures_name_the_url(as_user):
    assert _storage.read_bytes(_url("open", "0", "a.jpg")).tobytes() == b"shown"
    secret = _url("secret", "0", "a.jpg")
    with pytest.raises(PermissionError) as info:
        _storage.read_bytes(secret)
    assert info.value.filename == secret and "access denied" in str(info.value)
    _storage.prefetch([Extent(secret, 0, 3)])  # refused in the background: raised when read
    (err,) = _storage.read_extents([Extent(secret, 0, 3)])
    assert isinstance(err, PermissionError) and err.filename == secret

    as_user("AKIAIOSFODNN7EXAMPLX", "wrong")  # keys the server does not know
    with pytest.raises(PermissionError, match=r"access denied.*open/0/a\.jpg"):
        _storage.read_range(_url("open", "0", "a.jpg"), 0, 2)
    as_user(None, None)  # no credentials anywhere
    with pytest.raises(PermissionError, match=r"no credentials.*AWS_ACCESS_KEY_ID"):
        _storage.read_bytes(_url("open", "0", "a.jpg"))


def test_refused_read_is_a_reader_error_naming_the_url(s3, reader_keys, monkeypatch):
    pipe = dali.Pipeline(
        batch_size=1, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        pipe.set_outputs(*fn.readers.file(file_root=_url("secret")))
    pipe.build()  # listed with the test keys, before IAM is enforced
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", reader_keys["key"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", reader_keys["secret"])
    _forget_clients()
    try:
        refused = r"readers\.file.*s3://data/secret/0/a\.jpg.*access denied"
        with s3_server.enforce_auth(s3.endpoint), pytest.raises(RuntimeError, match=refused):
            pipe.run()
    finally:
        pipe.close()
        _storage.drop_prefetched()
        monkeypatch.undo()
        _forget_clients()


# -- containers: readers.tfrecord and readers.webdataset ---------------------------------------


def _with_local_prefix(result, remote_base: str, local_base: str):
    """``result`` (of `_batches`) with ``remote_base`` replaced by ``local_base`` in its
    source_info (container readers name the file in it)."""
    batches, meta = result
    return [
        (arrays, [s.replace(remote_base, local_base) for s in info]) for arrays, info in batches
    ], meta


@pytest.fixture(scope="module")
def tfrecords(s3, tmp_path_factory):
    from dali._testing.tfrecords import make_imagenet_tfrecords

    root = tmp_path_factory.mktemp("tfrecord")
    paths, indexes = make_imagenet_tfrecords(root, n=30, files=2)
    s3_server.upload(s3.endpoint, BUCKET, root, "tfrecord")
    return (
        root,
        [p.relative_to(root).as_posix() for p in paths],
        [p.relative_to(root).as_posix() for p in indexes],
    )


def _tfrecord_features():
    import dali.tfrecord as tfrec

    return {
        "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
        "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
        "image/object/bbox/xmin": tfrec.VarLenFeature(tfrec.float32, 0.0),
    }


@pytest.mark.parametrize(
    ("indexed", "kw"),
    [(True, {}), (False, {"random_shuffle": True, "initial_fill": 8})],
    ids=["index", "scan-shuffle"],
)
def test_tfrecord_from_s3_equals_local(s3, tfrecords, indexed, kw):
    pytest.importorskip("dali.tfrecord")
    root, paths, indexes = tfrecords

    def run(base, join):
        args = {"path": [join(base, p) for p in paths], **kw}
        if indexed:
            args["index_path"] = [join(base, p) for p in indexes]
        return _batches(fn.readers.tfrecord, 9, features=_tfrecord_features(), **args)

    remote = run(_url("tfrecord"), lambda b, p: f"{b}/{p}")
    local = run(str(root), lambda b, p: f"{b}/{p}")
    _assert_same(_with_local_prefix(remote, _url("tfrecord"), str(root)), local)


def test_tfrecord_batch_is_few_requests(s3, tfrecords, monkeypatch):
    """A batch of consecutive records of one file is one request (coalesced), fetched ahead."""
    pytest.importorskip("dali.tfrecord")
    # one batch read ahead at a time, so each run asks for exactly one batch
    monkeypatch.setattr(options, "READ_AHEAD", 1)
    _, paths, indexes = tfrecords
    pipe = dali.Pipeline(
        batch_size=5, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        out = fn.readers.tfrecord(
            path=[_url("tfrecord", p) for p in paths],
            index_path=[_url("tfrecord", p) for p in indexes],
            features=_tfrecord_features(),
        )
        pipe.set_outputs(*out.values())
    pipe.build()
    pipe.run()
    _settled()  # (the first run's read-ahead: counted before, whenever it lands)
    before = s3.requests
    pipe.run()  # records 5-9 of the first file: read ahead as one request
    pipe.run()
    _settled()
    assert s3.requests - before == 2
    pipe.close()
    assert len(_remote.read_ahead) == 0


@pytest.fixture(scope="module")
def shards(s3, tmp_path_factory):
    from dali._testing.webdataset import make_wds_dataset

    root = tmp_path_factory.mktemp("wds")
    ds = make_wds_dataset(root, n=24, shards=3)
    s3_server.upload(s3.endpoint, BUCKET, root, "wds")
    rel = [os.path.relpath(p, root) for p in ds.tars]
    idx = [os.path.relpath(p, root) for p in ds.indices]
    return root, rel, idx


@pytest.mark.parametrize(
    ("indexed", "kw"),
    [
        (True, {}),
        (False, {"random_shuffle": True, "initial_fill": 6}),
        (True, {"num_shards": 2, "shard_id": 1, "pad_last_batch": True}),
    ],
    ids=["index", "scan-shuffle", "index-shard"],
)
def test_webdataset_from_s3_equals_local(s3, shards, indexed, kw):
    root, tars, indices = shards

    def run(base):
        args = {"paths": [f"{base}/{t}" for t in tars], "ext": ["jpg", "cls;json"], **kw}
        if indexed:
            args["index_paths"] = [f"{base}/{i}" for i in indices]
        return _batches(fn.readers.webdataset, 8, **args)

    remote = run(_url("wds"))
    local = run(str(root))
    _assert_same(_with_local_prefix(remote, _url("wds"), str(root)), local)


# -- readers.coco ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def coco(s3, tmp_path_factory):
    from dali._testing.coco import make_coco

    data = make_coco(tmp_path_factory.mktemp("coco"), n_images=8, processes=1)
    s3_server.upload(s3.endpoint, BUCKET, data.root, "coco")
    return data


@pytest.mark.parametrize(
    "kw", [{}, {"polygon_masks": True, "image_ids": True}], ids=["boxes", "polygons"]
)
def test_coco_from_s3_equals_local(s3, coco, kw):
    remote = _batches(
        fn.readers.coco,
        4,
        batch_size=3,
        file_root=_url("coco", "images"),
        annotations_file=_url("coco", "annotations", "instances.json"),
        **kw,
    )
    local = _batches(
        fn.readers.coco,
        4,
        batch_size=3,
        file_root=coco.file_root,
        annotations_file=coco.annotations_file,
        **kw,
    )
    _assert_same(_with_local_prefix(remote, _url("coco", "images"), coco.file_root), local)


# -- the environment and other schemes -------------------------------------------------------


def test_endpoint_from_the_global_variable(s3, image_tree, monkeypatch):
    """``AWS_ENDPOINT_URL`` (all services) points s3fs at the server as ``_S3`` does."""
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3")
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    _forget_clients()
    try:
        got = _storage.read_bytes(_url("tree", "1", "img_01.jpg"))
        assert got.tobytes() == (image_tree / "1" / "img_01.jpg").read_bytes()
    finally:
        monkeypatch.undo()
        _forget_clients()


def test_http_urls(s3, image_tree):
    """``http://`` through fsspec's HTTP filesystem (anonymous GETs of the server's objects):
    the same bytes and ranges; a missing object (404) and a private one (403) are errors
    naming the URL."""
    pytest.importorskip("aiohttp")
    blob = (image_tree / "0" / "img_06.jpg").read_bytes()
    client = s3_server.client(s3.endpoint)
    client.put_object(Bucket=BUCKET, Key="public/a.jpg", Body=blob, ACL="public-read")
    base = f"{s3.endpoint}/{BUCKET}"
    url = f"{base}/public/a.jpg"
    got = _storage.read_extents([Extent(url), Extent(url, 100, 50)])
    assert got[0].tobytes() == blob and got[1].tobytes() == blob[100:150]
    with pytest.raises(FileNotFoundError) as info:
        _storage.read_bytes(f"{base}/public/none.jpg")
    assert info.value.filename == f"{base}/public/none.jpg"
    private = f"{base}/tree/0/img_06.jpg"  # no ACL: only signed requests may read it
    with pytest.raises(PermissionError) as info:
        _storage.read_range(private, 0, 10)
    assert info.value.filename == private and "access denied" in str(info.value)
