"""`_storage` and `_remote` without a server: coalescing, read-ahead, errors, local paths.

The remote paths here are ``memory://`` URLs: fsspec's in-memory filesystem, a real (and
synchronous) fsspec filesystem, so they also cover the thread-pool path that filesystems
without an event loop take. The S3 tests against a real server are in ``test_storage_s3.py``.
"""

from __future__ import annotations

import errno
import sys
import threading
import time
import uuid

import numpy as np
import pytest
from dali import _options as options
from dali._ops.readers.storage import access as _storage
from dali._ops.readers.storage import remote as _remote
from dali._ops.readers.storage.access import Extent

fsspec = pytest.importorskip("fsspec", reason="remote paths need fsspec (dali-core[remote])")


@pytest.fixture
def mem():
    """A fresh ``memory://`` folder, emptied afterwards; the read-ahead is left empty."""
    fs = fsspec.filesystem("memory")
    base = f"memory://dali-test-{uuid.uuid4().hex}"
    yield fs, base
    _storage.drop_prefetched()
    if fs.exists(base.removeprefix("memory://")):
        fs.rm(base.removeprefix("memory://"), recursive=True)


def _put(fs, url: str, data: bytes) -> None:
    fs.pipe_file(url.removeprefix("memory://"), data)


BLOB = bytes(np.random.default_rng(0).integers(0, 256, 100_000, dtype=np.uint8))


# -- coalescing ------------------------------------------------------------------------------


def test_plan_coalesces_nearby_ranges_of_one_object(monkeypatch):
    monkeypatch.setattr(options, "REMOTE_COALESCE_BYTES", 100)
    monkeypatch.setattr(options, "REMOTE_PART_BYTES", 1 << 20)
    ext = [
        Extent("s3://b/a", 0, 10),
        Extent("s3://b/a", 10, 10),  # contiguous (tfrecord records)
        Extent("s3://b/a", 120, 5),  # 100 bytes after: still one request
        Extent("s3://b/a", 226, 5),  # 101 bytes after: a new one
        Extent("s3://b/c", 0, 10),  # another object: its own
        Extent("s3://b/a", 5, 3),  # inside the first
        Extent("s3://b/a", 0, 0),  # empty: no request
    ]
    spans, where = _remote._plan(ext)
    assert sorted((s.url, s.start, s.end) for s in spans) == [
        ("s3://b/a", 0, 125),
        ("s3://b/a", 226, 231),
        ("s3://b/c", 0, 10),
    ]
    assert [(w.start, w.end) if w else None for w in where] == [
        (0, 125),
        (0, 125),
        (0, 125),
        (226, 231),
        (0, 10),
        (0, 125),
        None,
    ]


def test_plan_open_ended_extents_share_one_request(monkeypatch):
    monkeypatch.setattr(options, "REMOTE_COALESCE_BYTES", 100)
    ext = [
        Extent("s3://b/a"),  # the whole object
        Extent("s3://b/a", 50, 10),
        Extent("s3://b/x", 1000, None),  # to the end
        Extent("s3://b/x", 950, 10),  # ends within the gap: joins it
        Extent("s3://b/x", 0, 10),  # far before: its own
    ]
    spans, where = _remote._plan(ext)
    assert sorted((s.url, s.start, s.end) for s in spans) == [
        ("s3://b/a", 0, None),
        ("s3://b/x", 0, 10),
        ("s3://b/x", 950, None),
    ]
    assert where[0] is where[1]
    assert where[2] is where[3]
    assert where[4] is not where[2]


def test_plan_cuts_long_spans_into_parts(monkeypatch):
    monkeypatch.setattr(options, "REMOTE_PART_BYTES", 1000)
    spans, _ = _remote._plan([Extent("s3://b/a", 500, 2500)])
    assert [(p.start, p.end) for p in spans[0].parts] == [(500, 1500), (1500, 2500), (2500, 3000)]


def test_reads_across_parts_and_coalesced_spans(mem, monkeypatch):
    fs, base = mem
    url = f"{base}/blob.bin"
    _put(fs, url, BLOB)
    monkeypatch.setattr(options, "REMOTE_PART_BYTES", 1000)
    ext = [
        Extent(url, 0, 10),
        Extent(url, 990, 2020),  # across three parts
        Extent(url, 5000, None),  # to the end
        Extent(url),  # whole
        Extent(url, 7, 0),
        Extent(url, 10, 10),
    ]
    got = _storage.read_extents(ext)
    want = [BLOB[0:10], BLOB[990:3010], BLOB[5000:], BLOB, b"", BLOB[10:20]]
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray) and g.dtype == np.uint8 and g.flags.writeable
        assert g.tobytes() == w
    # each a fresh array: writing one changes no other
    got[0][:] = 0
    assert got[3][:10].tobytes() == BLOB[:10]


# -- errors ----------------------------------------------------------------------------------


def test_missing_object_and_short_ranges_name_the_url(mem):
    fs, base = mem
    url = f"{base}/small.bin"
    _put(fs, url, b"0123456789")
    missing = f"{base}/nope.bin"
    with pytest.raises(FileNotFoundError) as info:
        _storage.read_bytes(missing)
    assert info.value.filename == missing and missing in str(info.value)
    with pytest.raises(FileNotFoundError, match=r"nope\.bin"):
        _storage.read_range(missing, 0, 4)
    with pytest.raises(OSError, match="cannot read 20 bytes at offset 5") as info:
        _storage.read_range(url, 5, 20)
    assert info.value.errno == errno.EIO and info.value.filename == url
    got = _storage.read_extents([Extent(missing), Extent(url, 2, 3)])
    assert isinstance(got[0], FileNotFoundError) and got[0].filename == missing
    assert got[1].tobytes() == b"234"
    with pytest.raises(FileNotFoundError):
        _storage.size(missing)
    assert _storage.read_text(url) == "0123456789"


def test_translate_maps_statuses_and_credentials():
    url = "s3://b/k"

    class Refused(Exception):
        status = 403

    class NoCredentialsError(Exception):
        pass

    class Gone(Exception):
        def __init__(self) -> None:
            super().__init__("gone")
            self.response = {"ResponseMetadata": {"HTTPStatusCode": 404}}

    e = _remote.translate(Refused("Forbidden"), url)
    assert isinstance(e, PermissionError) and e.filename == url and "Forbidden" in e.strerror
    e = _remote.translate(NoCredentialsError("Unable to locate credentials"), url)
    assert isinstance(e, PermissionError) and "AWS_ACCESS_KEY_ID" in e.strerror
    assert isinstance(_remote.translate(Gone(), url), FileNotFoundError)
    e = _remote.translate(OSError(errno.EINVAL, "The requested range is not satisfiable"), url)
    assert e.errno == errno.EIO and "past the end" in e.strerror
    e = _remote.translate(RuntimeError("boom"), url)
    assert type(e) is OSError and "RuntimeError: boom" in str(e) and url in str(e)


def test_missing_fsspec_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(ImportError, match=r"dali-core\[s3\]"):
        _storage.read_bytes("s3://bucket/key")
    with pytest.raises(ImportError, match=r"dali-core\[gcs\]"):
        _storage.size("gs://bucket/key")
    with pytest.raises(ImportError, match=r"dali-core\[remote\]"):
        _storage.read_extents([Extent("https://example.com/a.jpg")])


def test_missing_scheme_package_names_the_extra(monkeypatch):
    pytest.importorskip("s3fs")  # (with it missing the message comes from fsspec's registry)
    monkeypatch.setitem(sys.modules, "s3fs", None)
    registry = sys.modules["fsspec.registry"]._registry  # the classes imported so far
    monkeypatch.delitem(registry, "s3", raising=False)
    with pytest.raises(ImportError, match=r"'s3' filesystem.*dali-core\[s3\]"):
        _storage.read_bytes("s3://bucket/key")


# -- read-ahead ------------------------------------------------------------------------------


class _Counting:
    """Counts the object reads fsspec's memory filesystem serves (by wrapping its class)."""

    def __init__(self, monkeypatch, delay: float = 0.0):
        cls = type(fsspec.filesystem("memory"))
        original = cls.cat_file
        self.calls: list[tuple[str, int | None, int | None]] = []
        lock = threading.Lock()

        def cat_file(fs, path, start=None, end=None, **kw):
            with lock:
                self.calls.append((path, start, end))
            if delay:
                time.sleep(delay)
            return original(fs, path, start=start, end=end, **kw)

        monkeypatch.setattr(cls, "cat_file", cat_file)


def test_prefetched_extents_are_read_once_and_dropped(mem, monkeypatch):
    fs, base = mem
    urls = [f"{base}/{i}.bin" for i in range(6)]
    for i, u in enumerate(urls):
        _put(fs, u, BLOB[i * 100 : i * 100 + 50])
    count = _Counting(monkeypatch)
    ext = [Extent(u) for u in urls]
    _storage.prefetch(ext)
    assert len(_remote.read_ahead) == 6
    got = _storage.read_extents(ext)
    assert [g.tobytes() for g in got] == [BLOB[i * 100 : i * 100 + 50] for i in range(6)]
    assert len(count.calls) == 6  # fetched ahead, not again
    assert len(_remote.read_ahead) == 0 and _remote.read_ahead.nbytes == 0
    _storage.read_extents(ext)
    assert len(count.calls) == 12  # read ahead once only


def test_an_extent_inside_a_prefetched_span_is_read_from_it(mem, monkeypatch):
    fs, base = mem
    url = f"{base}/blob.bin"
    _put(fs, url, BLOB)
    count = _Counting(monkeypatch)
    _storage.prefetch([Extent(url, 1000, 5000)])
    assert _storage.read_range(url, 1200, 100).tobytes() == BLOB[1200:1300]
    assert len(count.calls) == 1
    assert len(_remote.read_ahead) == 1  # a header read does not consume the payload's entry
    assert _storage.read_extents([Extent(url, 1000, 5000)])[0].tobytes() == BLOB[1000:6000]
    assert len(count.calls) == 1 and len(_remote.read_ahead) == 0


def test_prefetch_errors_are_raised_when_read(mem):
    _, base = mem
    missing = f"{base}/missing.bin"
    _storage.prefetch([Extent(missing), Extent(missing, 0, 4)])  # no error here
    assert len(_remote.read_ahead) == 2
    got = _storage.read_extents([Extent(missing)])
    assert isinstance(got[0], FileNotFoundError) and got[0].filename == missing
    with pytest.raises(FileNotFoundError, match=r"missing\.bin"):
        _storage.read_range(missing, 0, 4)
    assert len(_remote.read_ahead) == 0


def test_prefetch_is_bounded_oldest_first(mem, monkeypatch):
    fs, base = mem
    urls = [f"{base}/{i}.bin" for i in range(8)]
    for u in urls:
        _put(fs, u, BLOB[:1000])
    monkeypatch.setattr(options, "REMOTE_PREFETCH_BYTES", 3500)
    for u in urls:
        _storage.prefetch([Extent(u, 0, 1000)])
        assert _remote.read_ahead.nbytes <= 3500
    kept = [e.path for e in _remote.read_ahead._entries]
    assert kept == urls[-3:]
    # one hint larger than the whole cache is ignored
    _storage.prefetch([Extent(urls[0], 0, 4000)])
    assert [e.path for e in _remote.read_ahead._entries] == urls[-3:]
    # whole objects are counted once they arrive
    _storage.drop_prefetched()
    _storage.prefetch([Extent(u) for u in urls[:5]])
    deadline = time.monotonic() + 5
    while len(_remote.read_ahead) > 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _remote.read_ahead.nbytes <= 3500 and len(_remote.read_ahead) == 3
    got = _storage.read_extents([Extent(u) for u in urls])  # dropped or not: all correct
    assert all(g.tobytes() == BLOB[:1000] for g in got)
    assert len(_remote.read_ahead) == 0 and _remote.read_ahead.nbytes == 0


def test_unread_prefetches_expire_and_can_be_dropped(mem, monkeypatch):
    fs, base = mem
    urls = [f"{base}/{i}.bin" for i in range(3)]
    for u in urls:
        _put(fs, u, b"abc")
    _storage.prefetch([Extent(urls[0])])
    monkeypatch.setattr(options, "REMOTE_PREFETCH_SECONDS", 0.0)
    _storage.prefetch([Extent(urls[1])])  # the first has expired; this one expires next call
    assert [e.path for e in _remote.read_ahead._entries] == [urls[1]]
    monkeypatch.setattr(options, "REMOTE_PREFETCH_SECONDS", 60.0)
    _storage.prefetch([Extent(u) for u in urls])
    _storage.drop_prefetched([urls[0], urls[2]])
    assert [e.path for e in _remote.read_ahead._entries] == [urls[1]]
    _storage.drop_prefetched()
    assert len(_remote.read_ahead) == 0 and _remote.read_ahead.nbytes == 0


def test_dropping_cancels_requests_not_yet_sent(mem, monkeypatch):
    fs, base = mem
    urls = [f"{base}/{i}.bin" for i in range(40)]
    for u in urls:
        _put(fs, u, b"x")
    monkeypatch.setattr(options, "REMOTE_REQUESTS", 2)
    monkeypatch.setattr(_remote, "_POOL", None)  # a pool of 2 threads for this test
    count = _Counting(monkeypatch, delay=0.02)
    _storage.prefetch([Extent(u) for u in urls])
    _storage.drop_prefetched()
    time.sleep(0.8)  # twice the time all 40 take on 2 threads
    assert len(count.calls) < 10  # the queued ones never went out
    pool = _remote._POOL
    monkeypatch.setattr(_remote, "_POOL", None)
    pool.shutdown(wait=True)


def test_concurrent_readers_and_prefetchers_stay_consistent(mem, monkeypatch):
    fs, base = mem
    urls = [f"{base}/{i}.bin" for i in range(32)]
    for i, u in enumerate(urls):
        _put(fs, u, BLOB[i : i + 300])
    monkeypatch.setattr(options, "REMOTE_PREFETCH_BYTES", 2000)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(30):
                pick = rng.choice(32, 4)
                _storage.prefetch([Extent(urls[k], 10, 200) for k in rng.choice(32, 4)])
                got = _storage.read_extents([Extent(urls[k], 10, 200) for k in pick])
                for k, g in zip(pick, got):
                    assert g.tobytes() == BLOB[k + 10 : k + 210]
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert _remote.read_ahead.nbytes <= 2000
    _storage.drop_prefetched()
    assert _remote.read_ahead.nbytes == 0


# -- local paths -----------------------------------------------------------------------------


def test_local_paths_ignore_prefetch_and_read_as_before(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(BLOB[:1000])
    _storage.prefetch([Extent(str(path)), Extent(str(path), 5, 5)])
    assert len(_remote.read_ahead) == 0
    got = _storage.read_extents([Extent(str(path)), Extent(str(path), 5, 5)])
    assert got[0].tobytes() == BLOB[:1000] and got[1].tobytes() == BLOB[5:10]
    with pytest.raises(FileNotFoundError):
        _storage.read_bytes(str(tmp_path / "nope"))


def test_mixed_local_and_remote_extents(mem, tmp_path):
    fs, base = mem
    url = f"{base}/r.bin"
    _put(fs, url, b"remote")
    path = tmp_path / "l.bin"
    path.write_bytes(b"local")
    got = _storage.read_extents(
        [Extent(str(path)), Extent(url), Extent(str(path), 1, 2), Extent(url, 2, 2)],
        parallel_map=lambda f, k: [f(i) for i in range(k)],
    )
    assert [g.tobytes() for g in got] == [b"local", b"remote", b"oc", b"mo"]
