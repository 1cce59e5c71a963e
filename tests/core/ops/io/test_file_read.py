"""`fn.io.file.read`: files named by the data, read whole (DALI 2.4's behaviour, checked against
real DALI by the conformance session: ``cases_io.py``)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
from dali import _options as options
from dali import fn, ops, pipeline_def, types
from dali._ops.io.file_read import decode_path


def _enc(path: str | Path, dtype: type = np.uint8) -> np.ndarray:
    return np.frombuffer(os.fsencode(str(path)), dtype=dtype)


def _read(samples: list[np.ndarray], **kwargs: object) -> list[np.ndarray]:
    @pipeline_def(batch_size=len(samples), num_threads=2, device_id=None)
    def pipe():
        return fn.io.file.read(fn.external_source(lambda: samples), **kwargs)

    (out,) = pipe().run()
    assert out.layout() == ""
    return [np.asarray(s) for s in out.as_cpu().samples()]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Files of many sizes: empty, tiny, one page, and above the mapping threshold."""
    root = tmp_path_factory.mktemp("files")
    rng = np.random.default_rng(0)
    sizes = {"empty.bin": 0, "one.bin": 1, "page.bin": 4096, "big.bin": options.MMAP_MIN_BYTES * 3}
    out = {}
    for name, n in sizes.items():
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        (root / name).write_bytes(data)
        out[str(root / name)] = data
    return out


@pytest.mark.parametrize("dont_use_mmap", [False, True])
def test_reads_every_file_whole_in_order(files, dont_use_mmap):
    paths = list(files)
    got = _read([_enc(p) for p in paths], dont_use_mmap=dont_use_mmap)
    assert [g.tobytes() for g in got] == [files[p] for p in paths]
    assert all(g.dtype == np.uint8 and g.ndim == 1 for g in got)


def test_o_direct_is_accepted(files):
    path = next(p for p in files if p.endswith("page.bin"))
    (got,) = _read([_enc(path)], dont_use_mmap=True, use_o_direct=True)
    assert got.tobytes() == files[path]


def test_int8_paths_nul_terminators_and_file_urls(files):
    path = next(p for p in files if p.endswith("one.bin"))
    samples = [
        np.concatenate([_enc(path), np.frombuffer(b"\0garbage", np.uint8)]),
        _enc("file://" + path),
    ]
    assert [g.tobytes() for g in _read(samples)] == [files[path]] * 2
    assert [g.tobytes() for g in _read([_enc(path, np.int8)])] == [files[path]]


def test_relative_paths_are_relative_to_the_working_directory(files, monkeypatch):
    path = Path(next(p for p in files if p.endswith("page.bin")))
    monkeypatch.chdir(path.parent)
    (got,) = _read([_enc(path.name)])
    assert got.tobytes() == files[str(path)]


def test_the_samples_are_private_and_writable(files):
    path = next(p for p in files if p.endswith("big.bin"))
    (a, b) = _read([_enc(path), _enc(path)])  # mapped: copy-on-write
    a[:4] = 0
    assert b.tobytes() == files[path]
    assert Path(path).read_bytes() == files[path]


def test_fsspec_urls_are_read_through_storage():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe_file("/io_test/a.bin", b"remote bytes")
    fs.pipe_file("/io_test/b.bin", b"")
    try:
        got = _read([_enc("memory://io_test/a.bin"), _enc("memory://io_test/b.bin")])
    finally:
        fs.rm("/io_test", recursive=True)
    assert [g.tobytes() for g in got] == [b"remote bytes", b""]


def test_a_chain_with_decoders_numpy(tmp_path):
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((4, 3), np.float32)]
    names = []
    for k, a in enumerate(arrays):
        np.save(tmp_path / f"{k}.npy", a)
        names.append(_enc(tmp_path / f"{k}.npy"))

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.decoders.numpy(fn.io.file.read(fn.external_source(lambda: names)))

    (out,) = pipe().run()
    for got, want in zip(out.as_cpu().samples(), arrays):
        np.testing.assert_array_equal(got, want)


def test_ops_api_and_static_metadata(files):
    path = next(p for p in files if p.endswith("one.bin"))
    reader = ops.io.file.Read(dont_use_mmap=True)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        out = reader(fn.external_source(lambda: [_enc(path)]))
        assert out.dtype == types.UINT8 and out.ndim == 1 and out.layout == ""
        return out

    (out,) = pipe().run()
    assert out.as_cpu().samples()[0].tobytes() == files[path]


def test_decode_path():
    assert decode_path(np.frombuffer("/d/ż.jpg".encode(), np.uint8)) == "/d/ż.jpg"
    assert decode_path(np.frombuffer(b"/d/a\0b", np.int8)) == "/d/a"
    assert decode_path(np.zeros(0, np.uint8)) == ""


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dont_use_mmap", [False, True])
def test_a_missing_file_is_named(tmp_path, dont_use_mmap):
    missing = tmp_path / "nope.bin"
    (tmp_path / "ok.bin").write_bytes(b"x")
    with pytest.raises(RuntimeError) as e:
        _read([_enc(tmp_path / "ok.bin"), _enc(missing)], dont_use_mmap=dont_use_mmap)
    text = str(e.value)
    assert "dali.fn.io.file.read" in text and str(missing) in text
    assert "No such file" in text and "sample 1" in text


def test_a_folder_and_an_empty_path_are_errors(tmp_path):
    with pytest.raises(RuntimeError, match=rf"io.file.read.*'{tmp_path}'"):
        _read([_enc(tmp_path)])
    with pytest.raises(RuntimeError, match=r"io.file.read.*cannot read file ''"):
        _read([np.zeros(0, np.uint8)])


@pytest.mark.parametrize(
    ("sample", "message"),
    [
        (np.frombuffer(b"/tmp", np.uint8).astype(np.int32), "Unexpected input data type.*int32"),
        (np.frombuffer(b"/tmp", np.uint8).reshape(1, -1), "1-D arrays of bytes, got 2-dim"),
        (np.array(47, np.uint8), "1-D arrays of bytes, got 0-dim"),
    ],
)
def test_the_input_must_be_1d_bytes(sample, message):
    with pytest.raises(RuntimeError, match=rf"io\.file\.read.*{message}"):
        _read([sample])


def test_cpu_only_as_in_dali():
    with pytest.raises(ValueError, match=r'io\.file\.read` does not support device="gpu"'):

        @pipeline_def(batch_size=1, num_threads=1, device_id=0)
        def pipe():
            data = fn.external_source(lambda: [np.zeros(1, np.uint8)], device="gpu")
            return fn.io.file.read(data, device="gpu")

        pipe().build()


def test_a_batch_is_read_on_the_pipeline_threads(tmp_path):
    """64 files through the parallel path (more samples than threads): order is kept."""
    blobs = {}
    for k in range(64):
        buf = io.BytesIO()
        buf.write(k.to_bytes(2, "little") * (k + 1))
        (tmp_path / f"{k}.bin").write_bytes(buf.getvalue())
        blobs[k] = buf.getvalue()
    got = _read([_enc(tmp_path / f"{k}.bin") for k in range(64)], dont_use_mmap=True)
    assert [g.tobytes() for g in got] == [blobs[k] for k in range(64)]
