"""`fn.readers.file` (listing, sharding, shuffling, determinism, errors)."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import warnings

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn, ops, types
from dali._graph.schema import UNSET, get_schema
from dali._ops.readers.file import parse_file_list, read_file
from dali._ops.readers.loader.sharding import (
    ReaderCursor,
    SampleStream,
    padded_epoch_size,
    shard_range,
)

N = 21  # files in the `image_tree` fixture; file list.txt gives image i the label i


def _pipeline(batch_size=8, *, seed=42, num_threads=2, outputs=None, **reader_kw):
    """A synchronous pipeline (the reader runs only when a batch is consumed)."""
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=num_threads,
        device_id=None,
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
    )
    reader_kw.setdefault("name", "Reader")
    with pipe:
        data, label = fn.readers.file(**reader_kw)
        extra = outputs(data, label) if outputs is not None else ()
        pipe.set_outputs(data, label, *extra)
    return pipe


def _labels(pipe, iterations):
    return [pipe.run()[1].as_array().reshape(-1).tolist() for _ in range(iterations)]


def _list(root):
    return str(root / "list.txt")


def _impl(pipe, name="Reader"):
    pipe.build()
    return pipe._plan.by_name[name].impl


# -- schema ------------------------------------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.file")
    expected = {
        "file_root": UNSET,
        "file_list": UNSET,
        "files": UNSET,
        "labels": UNSET,
        "file_filters": (
            "*.jpg",
            "*.jpeg",
            "*.png",
            "*.bmp",
            "*.tif",
            "*.tiff",
            "*.pnm",
            "*.ppm",
            "*.pgm",
            "*.pbm",
            "*.jp2",
            "*.webp",
            "*.flac",
            "*.ogg",
            "*.wav",
        ),
        "dir_filters": UNSET,
        "case_sensitive_filter": False,
        "random_shuffle": False,
        "initial_fill": 1024,
        "shuffle_after_epoch": False,
        "shuffle_after_epoch_seed": UNSET,
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
    common = {"name", "device", "preserve", "bytes_per_sample_hint"}
    got = {k: a.default for k, a in schema.args.items() if k not in common}
    assert got == expected
    assert schema.devices == ("cpu",)
    assert (schema.min_inputs, schema.max_inputs, schema.num_outputs) == (0, 0, 2)
    assert not any(a.tensor for a in schema.args.values() if a.name not in common)


def test_ops_class_and_legacy_alias(image_tree):
    class Pipe(dali.Pipeline):
        def __init__(self, reader_cls):
            super().__init__(batch_size=3, num_threads=1, device_id=None, seed=1)
            self.input = reader_cls(file_root=str(image_tree))

        def define_graph(self):
            jpegs, labels = self.input(name="Reader")
            return jpegs, labels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        legacy = Pipe(ops.FileReader)
        legacy_out = legacy.run()
    modern_out = Pipe(ops.readers.File).run()
    assert legacy_out[1].as_array().tolist() == modern_out[1].as_array().tolist() == [[0]] * 3
    assert legacy.epoch_size("Reader") == N


# -- outputs -----------------------------------------------------------------------------------


def test_outputs_are_raw_bytes_and_int32_labels(image_tree):
    pipe = _pipeline(4, file_root=str(image_tree))
    data, label = pipe.run()
    assert data.dtype == types.UINT8 and data.layout() == "" and data.ndim == 1
    assert label.dtype == types.INT32 and label.layout() == ""
    assert label.shape() == [(1,)] * 4
    for i in range(4):
        path = image_tree / data[i].source_info()
        assert data.at(i).tobytes() == path.read_bytes()


def test_file_root_order_labels_and_source_info(image_tree):
    pipe = _pipeline(N, file_root=str(image_tree))
    data, label = pipe.run()
    infos = [data[i].source_info() for i in range(N)]
    # [observed] the first files are 0/img_00.jpg, 0/img_03.jpg, 0/img_06.jpg with label 0
    assert infos[:3] == ["0/img_00.jpg", "0/img_03.jpg", "0/img_06.jpg"]
    assert infos == sorted(f"{i % 3}/img_{i:02d}.jpg" for i in range(N))
    assert label.as_array().ravel().tolist() == [int(s[0]) for s in infos]


def test_batches_are_always_full_and_wrap(image_tree):
    pipe = _pipeline(32, file_list=_list(image_tree))
    (labels,) = _labels(pipe, 1)
    assert labels == list(range(21)) + list(range(11))


def test_file_root_filters_and_class_order(tmp_path):
    for d in ("b", "a", "10", "2", "skipme"):
        (tmp_path / d).mkdir()
    (tmp_path / "a" / "x.JPG").write_bytes(b"1")
    (tmp_path / "a" / "y.jpeg").write_bytes(b"2")
    (tmp_path / "a" / "notes.txt").write_bytes(b"3")
    (tmp_path / "a" / "deeper").mkdir()
    (tmp_path / "a" / "deeper" / "z.jpg").write_bytes(b"4")  # not a class: ignored
    (tmp_path / "b" / "q.png").write_bytes(b"5")
    (tmp_path / "10" / "r.webp").write_bytes(b"6")
    (tmp_path / "2" / "s.wav").write_bytes(b"7")
    (tmp_path / "skipme" / "t.jpg").write_bytes(b"8")
    (tmp_path / "top.jpg").write_bytes(b"9")  # files at the root are not samples

    def listed(**kw):
        pipe = _pipeline(1, file_root=str(tmp_path), **kw)
        meta = pipe.reader_meta("Reader")
        out = [pipe.run() for _ in range(meta["epoch_size"])]
        return [(d[0].source_info(), int(lab.as_array()[0, 0])) for d, lab in out]

    # classes in lexicographic order: "10" -> 0, "2" -> 1, "a" -> 2, "b" -> 3, "skipme" -> 4
    assert listed() == [
        ("10/r.webp", 0),
        ("2/s.wav", 1),
        ("a/x.JPG", 2),
        ("a/y.jpeg", 2),
        ("b/q.png", 3),
        ("skipme/t.jpg", 4),
    ]
    assert listed(case_sensitive_filter=True) == [
        ("10/r.webp", 0),
        ("2/s.wav", 1),
        ("a/y.jpeg", 2),
        ("b/q.png", 3),
        ("skipme/t.jpg", 4),
    ]
    assert listed(file_filters=["*.txt", "*.JPG"], case_sensitive_filter=True) == [
        ("a/notes.txt", 2),
        ("a/x.JPG", 2),
    ]
    assert listed(file_filters="*.TXT") == [("a/notes.txt", 2)]
    assert listed(dir_filters=["[ab]", "1*"]) == [
        ("10/r.webp", 0),
        ("a/x.JPG", 1),
        ("a/y.jpeg", 1),
        ("b/q.png", 2),
    ]


def test_file_list_paths_relative_to_list_or_file_root(image_tree, tmp_path):
    # a list in the parent folder: paths (and source_info) include the folder name
    imgs = tmp_path / "imgs"
    shutil.copytree(image_tree / "0", imgs / "0")
    shutil.copytree(image_tree / "1", imgs / "1")
    (imgs / "with space").mkdir()
    shutil.copy(image_tree / "0" / "img_00.jpg", imgs / "with space" / "a b.jpg")
    lst = tmp_path / "list.txt"
    lst.write_text(
        "imgs/0/img_00.jpg 5\n\n  \nimgs/1/img_01.jpg\t7  \r\nimgs/with space/a b.jpg 42\n"
    )
    pipe = _pipeline(3, file_list=str(lst))
    data, label = pipe.run()
    assert [data[i].source_info() for i in range(3)] == [
        "imgs/0/img_00.jpg",
        "imgs/1/img_01.jpg",
        "imgs/with space/a b.jpg",
    ]
    assert label.as_array().ravel().tolist() == [5, 7, 42]
    assert data.at(2).tobytes() == (image_tree / "0" / "img_00.jpg").read_bytes()

    # with file_root, the list's paths are relative to it
    lst2 = tmp_path / "elsewhere.txt"
    lst2.write_text("0/img_03.jpg 1\n1/img_04.jpg 2\n")
    pipe = _pipeline(2, file_list=str(lst2), file_root=str(imgs))
    data, label = pipe.run()
    assert [data[i].source_info() for i in range(2)] == ["0/img_03.jpg", "1/img_04.jpg"]
    assert data.at(1).tobytes() == (image_tree / "1" / "img_04.jpg").read_bytes()


def test_parse_file_list_rules():
    assert parse_file_list("a.jpg 1\n") == [(1, "a.jpg", 1)]
    assert parse_file_list("my file 2.jpg  33 \n") == [(1, "my file 2.jpg", 33)]
    assert parse_file_list("x 1 2\n") == [(1, "x 1", 2)]  # the label is the last number
    assert parse_file_list("\n\n b.jpg 0") == [(3, " b.jpg", 0)]
    for bad in ("a.jpg\n", "a.jpg -1\n", "a.jpg 1x\n", "12\n"):
        with pytest.raises(ValueError, match="line 1"):
            parse_file_list(bad)


def test_files_mode_labels(image_tree):
    files = ["0/img_00.jpg", "1/img_01.jpg"]
    # [observed] without labels the label is the index in `files`: [0, 1, 0]
    pipe = _pipeline(3, files=files, file_root=str(image_tree))
    data, label = pipe.run()
    assert label.as_array().ravel().tolist() == [0, 1, 0]
    assert [data[i].source_info() for i in range(3)] == [*files, files[0]]
    pipe = _pipeline(3, files=files, labels=[7, 9], file_root=str(image_tree))
    assert _labels(pipe, 1) == [[7, 9, 7]]
    # absolute paths, no file_root
    pipe = _pipeline(2, files=[str(image_tree / f) for f in files])
    assert pipe.run()[0].at(1).tobytes() == (image_tree / files[1]).read_bytes()


def test_path_objects_are_accepted(image_tree):
    # DALI converts string arguments with str(): pathlib paths work there too
    pipe = _pipeline(2, file_root=image_tree)
    assert pipe.run()[0][1].source_info() == "0/img_03.jpg"
    pipe = _pipeline(2, files=[image_tree / "1" / "img_01.jpg"], file_list=None)
    assert pipe.run()[0].at(0).tobytes() == (image_tree / "1" / "img_01.jpg").read_bytes()
    pipe = _pipeline(1, file_list=image_tree / "list.txt", num_shards=3, shard_id=2)
    assert _labels(pipe, 1) == [[14]]


def test_io_tuning_arguments_do_not_change_outputs(image_tree):
    def run(**kw):
        pipe = _pipeline(5, file_list=_list(image_tree), **kw)
        return [[d.at(i).tobytes() for i in range(5)] for d, _ in (pipe.run(), pipe.run())]

    base = run()
    assert run(dont_use_mmap=True) == base
    assert run(read_ahead=True) == base
    assert (
        run(
            lazy_init=True,
            prefetch_queue_depth=3,
            skip_cached_images=True,
            tensor_init_bytes=100,
        )
        == base
    )


def test_results_do_not_depend_on_threads(image_tree):
    outs = []
    for threads in (1, 4):
        pipe = _pipeline(8, file_list=_list(image_tree), num_threads=threads, random_shuffle=True)
        outs.append([[d.at(i).tobytes() for i in range(8)] for d, _ in (pipe.run(), pipe.run())])
    assert outs[0] == outs[1]


def test_samples_own_their_memory(image_tree):
    for mmap in (True, False):
        pipe = _pipeline(N, file_list=_list(image_tree), dont_use_mmap=not mmap)
        first, _ = pipe.run()
        kept = [first.at(i) for i in range(N)]
        for _ in range(3):
            pipe.run()
        for i, arr in enumerate(kept):
            assert arr.tobytes() == (image_tree / first[i].source_info()).read_bytes()
            for other in kept[:i]:
                assert not np.shares_memory(arr, other)


def test_read_file_helper(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(bytes(range(256)) * 40)
    mapped = read_file(str(path))
    plain = read_file(str(path), use_mmap=False)
    assert mapped.dtype == np.uint8 and mapped.ndim == 1
    assert mapped.tobytes() == plain.tobytes() == path.read_bytes()
    assert plain.flags.writeable and mapped.flags.writeable
    mapped[:4] = 0  # a private mapping: the file does not change
    assert path.read_bytes() == plain.tobytes()
    del mapped  # unmapped with the last reference
    (tmp_path / "empty").write_bytes(b"")
    assert read_file(str(tmp_path / "empty")).shape == (0,)
    with pytest.raises(FileNotFoundError):
        read_file(str(tmp_path / "nope"))


def test_empty_and_non_image_files_are_read_as_bytes(edge_images):
    files = [str(edge_images["empty"]), str(edge_images["text"])]
    data, _ = _pipeline(2, files=files).run()
    assert data.shape() == [(0,), (edge_images["text"].stat().st_size,)]


def test_vanished_file_error_names_it(image_tree, tmp_path):
    for name in ("a.jpg", "b.jpg"):
        shutil.copy(image_tree / "0" / "img_00.jpg", tmp_path / name)
    pipe = _pipeline(2, files=[str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg")])
    pipe.build()
    os.remove(tmp_path / "b.jpg")
    with pytest.raises(RuntimeError, match=r"dali\.fn\.readers\.file.*b\.jpg"):
        pipe.run()


def _class_tree(root, names_by_class):
    for cls, names in names_by_class.items():
        (root / cls).mkdir(parents=True)
        for name in names:
            (root / cls / name).write_bytes(name.encode())


def _run_in_thread(fn, timeout=30):
    """``fn()`` in a daemon thread; fails (not hangs) the test if it does not return."""
    import threading

    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "hangs (a FIFO opened for reading?)"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_non_regular_entries_of_file_root_are_skipped_and_named(tmp_path, caplog):
    # DALI keeps only regular files and links of a class directory, silently; reading a FIFO
    # blocked forever here before. We skip them too and warn with their names.
    import logging
    import socket

    root = tmp_path / "r"
    _class_tree(root, {"a": ["1.jpg", "3.jpg"], "b": ["2.jpg"]})
    os.mkfifo(root / "a" / "2.jpg")
    os.mkfifo(root / "b" / "pipe.txt")  # not matching file_filters: skipped without a word
    os.symlink(root / "nowhere.jpg", root / "b" / "dangling.jpg")
    os.symlink(root / "a" / "1.jpg", root / "b" / "link.jpg")  # a link to a file: a sample
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(root / "b" / "s.jpg"))
    except OSError:  # a path too long for a socket address
        sock.close()
        sock = None
    with caplog.at_level(logging.WARNING, logger="dali"):
        pipe = _pipeline(4, file_root=str(root))
        pipe.build()
    data, _ = _run_in_thread(pipe.run)
    assert [data[i].source_info() for i in range(4)] == [
        "a/1.jpg",
        "a/3.jpg",
        "b/2.jpg",
        "b/link.jpg",
    ]
    assert data.at(3).tobytes() == b"1.jpg"
    assert pipe.epoch_size("Reader") == 4
    # reader_meta keeps DALI's keys only (compared with DALI by tests/conformance)
    assert "skipped" not in " ".join(pipe.reader_meta("Reader"))
    (warning,) = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert "Reader" in warning and str(root) in warning
    assert "'a/2.jpg' (a FIFO)" in warning and "'b/dangling.jpg' (a broken link)" in warning
    assert "pipe.txt" not in warning
    if sock is not None:
        assert "3 entries" in warning and "'b/s.jpg' (a socket)" in warning
        sock.close()
    else:
        assert "2 entries" in warning


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_only_non_regular_entries_is_an_empty_file_root(tmp_path):
    (tmp_path / "a").mkdir()
    os.mkfifo(tmp_path / "a" / "x.jpg")
    msg = _build_error(file_root=str(tmp_path))
    assert "argument `file_root`" in msg and "file_filters" in msg


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_non_regular_entries_of_files_or_file_list_are_build_errors(image_tree, tmp_path):
    shutil.copy(image_tree / "0" / "img_00.jpg", tmp_path / "ok.jpg")
    os.mkfifo(tmp_path / "fifo.jpg")
    (tmp_path / "dir.jpg").mkdir()
    msg = _build_error(files=[str(tmp_path / "ok.jpg"), str(tmp_path / "fifo.jpg")])
    assert "argument `files`" in msg and f"'{tmp_path / 'fifo.jpg'}' is a FIFO" in msg
    msg = _build_error(files=["ok.jpg", "dir.jpg"], file_root=str(tmp_path))
    assert "argument `files`" in msg and f"'{tmp_path / 'dir.jpg'}' is a directory" in msg
    lst = tmp_path / "list.txt"
    lst.write_text("ok.jpg 0\nfifo.jpg 1\n")
    msg = _build_error(file_list=str(lst))
    assert "argument `file_list`" in msg and "line 2: 'fifo.jpg'" in msg and "a FIFO" in msg
    if os.path.exists("/dev/zero"):  # a character device would be read forever
        msg = _build_error(files=["/dev/zero"])
        assert "argument `files`" in msg and "'/dev/zero' is a character device" in msg


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("worker", [False, True])
def test_a_file_turned_fifo_after_listing_is_an_error_not_a_hang(tmp_path, worker):
    from dali._ops.readers.storage import read_worker as _read_worker

    if worker and not _read_worker.supported():
        pytest.skip("the read worker needs Linux")
    (tmp_path / "a.jpg").write_bytes(b"a")
    (tmp_path / "b.jpg").write_bytes(b"b")
    pipe = _pipeline(2, files=[str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg")])
    _impl(pipe)._worker_wanted = worker
    os.remove(tmp_path / "b.jpg")
    os.mkfifo(tmp_path / "b.jpg")
    with pytest.raises(RuntimeError) as info:
        _run_in_thread(pipe.run)
    msg = str(info.value)
    assert "dali.fn.readers.file" in msg and str(tmp_path / "b.jpg") in msg
    assert "not a regular file (a FIFO)" in msg
    pipe.close()


@pytest.mark.parametrize("worker", [False, True])
def test_a_class_directory_removed_mid_epoch_is_an_error_naming_the_file(tmp_path, worker):
    from dali._ops.readers.storage import read_worker as _read_worker

    if worker and not _read_worker.supported():
        pytest.skip("the read worker needs Linux")
    root = tmp_path / "r"
    _class_tree(root, {"a": ["1.jpg", "2.jpg"], "b": ["3.jpg", "4.jpg"]})
    pipe = _pipeline(2, file_root=str(root))
    _impl(pipe)._worker_wanted = worker
    assert _labels(pipe, 1) == [[0, 0]]
    impl = _impl(pipe)
    if impl._worker is not None:
        impl._worker.wait_pending(10)  # (batches read ahead were read before the removal)
    shutil.rmtree(root / "b")
    with pytest.raises(RuntimeError) as info:
        for _ in range(options.READ_AHEAD + 1):
            pipe.run()
    msg = str(info.value)
    assert "dali.fn.readers.file" in msg and str(root / "b" / "3.jpg") in msg
    assert "No such file or directory" in msg
    pipe.close()
    # a fresh pipeline over the tree as it is now runs (nothing was left broken)
    assert _labels(_pipeline(2, file_root=str(root)), 1) == [[0, 0]]


# -- errors before the first batch -------------------------------------------------------------


def _build_error(**kw):
    pipe = _pipeline(4, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.file" in msg
    return msg


def test_error_missing_and_bad_file_root(tmp_path):
    missing = tmp_path / "nope"
    msg = _build_error(file_root=str(missing))
    assert "file_root" in msg and str(missing) in msg and "does not exist" in msg
    (tmp_path / "f.jpg").write_bytes(b"x")
    msg = _build_error(file_root=str(tmp_path / "f.jpg"))
    assert "file_root" in msg and "not a directory" in msg


def test_error_empty_file_root(tmp_path):
    msg = _build_error(file_root=str(tmp_path))
    assert "file_root" in msg and str(tmp_path) in msg and "no class subdirectories" in msg
    (tmp_path / "0").mkdir()
    (tmp_path / "0" / "a.txt").write_bytes(b"x")
    msg = _build_error(file_root=str(tmp_path))
    assert "file_root" in msg and "file_filters" in msg and str(tmp_path) in msg
    msg = _build_error(file_root=str(tmp_path), file_filters=["*.txt"], dir_filters=["z*"])
    assert "dir_filters" in msg


@pytest.mark.parametrize(
    ("kw", "arg", "text"),
    [
        ({"shard_id": 2, "num_shards": 2}, "shard_id", "got shard_id=2"),
        ({"shard_id": 5, "num_shards": 2}, "shard_id", "got shard_id=5"),
        ({"shard_id": -1, "num_shards": 2}, "shard_id", "got shard_id=-1"),
        ({"num_shards": 0}, "num_shards", "at least 1"),
        ({"num_shards": 22}, "num_shards", "fewer than num_shards=22"),
        ({"initial_fill": 0, "random_shuffle": True}, "initial_fill", "positive"),
        ({"shuffle_after_epoch": True, "random_shuffle": True}, "shuffle_after_epoch", "random"),
        ({"shuffle_after_epoch": True, "stick_to_shard": True}, "shuffle_after_epoch", "stick"),
    ],
)
def test_error_bad_sharding_and_shuffling(image_tree, kw, arg, text):
    msg = _build_error(file_root=str(image_tree), **kw)
    assert f"argument `{arg}`" in msg and text in msg


def test_error_file_list_problems(image_tree, tmp_path):
    msg = _build_error(file_list=str(tmp_path / "missing.txt"))
    assert "file_list" in msg and "missing.txt" in msg
    lst = tmp_path / "list.txt"
    lst.write_text("a.jpg 0\nno_label_here.jpg\n")
    msg = _build_error(file_list=str(lst))
    assert "file_list" in msg and "line 2" in msg and "no_label_here.jpg" in msg
    lst.write_text("0/img_00.jpg 0\n0/ghost.jpg 1\n")
    msg = _build_error(file_list=str(lst), file_root=str(image_tree))
    assert "file_list" in msg and "line 2" in msg and str(image_tree / "0" / "ghost.jpg") in msg
    lst.write_text("\n\n")
    assert "lists no files" in _build_error(file_list=str(lst))


def test_error_files_and_labels(image_tree):
    files = ["0/img_00.jpg", "1/img_01.jpg"]
    msg = _build_error(files=files, file_root=str(image_tree), labels=[1])
    assert "argument `labels`" in msg and "1 entries" in msg and "2" in msg
    msg = _build_error(files=["0/img_00.jpg", "0/ghost.jpg"], file_root=str(image_tree))
    assert "argument `files`" in msg and str(image_tree / "0" / "ghost.jpg") in msg
    msg = _build_error(files=files, file_list=_list(image_tree))
    assert "`file_list` and `files` are mutually exclusive" in msg
    msg = _build_error(file_root=str(image_tree), labels=[1, 2])
    assert "argument `labels`" in msg
    assert "one of `file_root`, `file_list` or `files`" in _build_error()


# -- sharding: DALI's shard streams --------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "shards", "shard", "pad", "stick", "expected"),
    [
        (8, 2, 0, False, False, [[*range(8)], [*range(8, 16)], [16, 17, 18, 19, 20, 0, 1, 2],
                                 [*range(3, 11)]]),
        (8, 2, 1, False, False, [[*range(10, 18)], [18, 19, 20, 0, 1, 2, 3, 4], [*range(5, 13)]]),
        (8, 2, 0, False, True, [[*range(8)], [8, 9, 0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 0, 1, 2, 3]]),
        (8, 2, 0, True, False, [[*range(8)], [8, 9, 9, 9, 9, 9, 9, 9], [*range(10, 18)],
                                [18, 19, 20, 20, 20, 20, 20, 20], [*range(8)]]),
        (8, 2, 1, True, False, [[*range(10, 18)], [18, 19, 20, 20, 20, 20, 20, 20], [*range(8)],
                                [8, 9, 9, 9, 9, 9, 9, 9]]),
        (8, 2, 0, True, True, [[*range(8)], [8, 9, 9, 9, 9, 9, 9, 9], [*range(8)]]),
        (5, 2, 0, True, False, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [9, 9, 9, 9, 9],
                                [10, 11, 12, 13, 14]]),
        (4, 3, 0, True, False, [[0, 1, 2, 3], [4, 5, 6, 6], [7, 8, 9, 10]]),
    ],
)  # fmt: skip
def test_reader_streams(image_tree, batch, shards, shard, pad, stick, expected):
    pipe = _pipeline(
        batch,
        file_list=_list(image_tree),
        num_shards=shards,
        shard_id=shard,
        pad_last_batch=pad,
        stick_to_shard=stick,
    )
    assert _labels(pipe, len(expected)) == expected


@pytest.mark.parametrize(
    ("shards", "starts", "padded"),
    [
        (2, [0, 10], 22),
        (3, [0, 7, 14], 21),
        (4, [0, 5, 10, 15], 24),
        (5, [0, 4, 8, 12, 16], 25),
        (8, [0, 2, 5, 7, 10, 13, 15, 18], 24),
    ],
)
def test_shard_starts_and_reader_meta(image_tree, shards, starts, padded):
    for sid, start in enumerate(starts):
        pipe = _pipeline(1, file_list=_list(image_tree), num_shards=shards, shard_id=sid)
        assert _labels(pipe, 1) == [[start]]
        assert shard_range(sid, shards, N)[0] == start
        meta = pipe.reader_meta("Reader")
        assert meta == {
            "epoch_size": 21,
            "epoch_size_padded": 21,
            "number_of_shards": shards,
            "shard_id": sid,
            "pad_last_batch": 0,
            "stick_to_shard": 0,
        }
    pipe = _pipeline(
        1, file_list=_list(image_tree), num_shards=shards, pad_last_batch=True, stick_to_shard=True
    )
    meta = pipe.reader_meta()["Reader"]
    assert meta["epoch_size_padded"] == padded == padded_epoch_size(N, shards, True)
    assert meta["pad_last_batch"] == 1 and meta["stick_to_shard"] == 1
    assert type(meta["pad_last_batch"]) is int and type(meta["stick_to_shard"]) is int
    assert pipe.epoch_size() == {"Reader": padded} and pipe.epoch_size("Reader") == padded


# -- shuffling ---------------------------------------------------------------------------------


def test_shuffle_after_epoch_is_a_global_permutation_per_epoch(image_tree):
    def shard_epochs(sid, shards=3, epochs=3, **kw):
        pipe = _pipeline(
            7,
            file_list=_list(image_tree),
            shuffle_after_epoch=True,
            num_shards=shards,
            shard_id=sid,
            **kw,
        )
        assert pipe.reader_meta("Reader")["stick_to_shard"] == 1  # [observed]
        return _labels(pipe, epochs)

    shards = [shard_epochs(s) for s in range(3)]
    perms = [shards[0][e] + shards[1][e] + shards[2][e] for e in range(3)]
    for perm in perms:
        assert sorted(perm) == list(range(N))  # shards are contiguous slices of one permutation
    assert perms[0] != list(range(N))  # the first epoch is already permuted
    assert perms[0] != perms[1] != perms[2]
    # without sharding, the reader reads the same permutation, whole
    whole = shard_epochs(0, shards=1, epochs=3)
    assert [x for chunk in whole for x in chunk] == perms[0]
    other = shard_epochs(0, shuffle_after_epoch_seed=123)
    assert other != shards[0]
    assert shard_epochs(0, shuffle_after_epoch_seed=123) == other


def test_random_shuffle_is_deterministic_and_seeded(image_tree):
    def run(seed, **kw):
        pipe = _pipeline(8, file_list=_list(image_tree), random_shuffle=True, seed=seed, **kw)
        return _labels(pipe, 4)

    a = run(1)
    assert run(1) == a
    assert run(2) != a
    assert all(0 <= x < N for batch in a for x in batch)
    # the shuffle buffer never mixes epochs: the first N samples are the epoch, once each
    first = [x for batch in a for x in batch][:N]
    assert sorted(first) == list(range(N))
    # an explicit operator seed decouples the reader from the pipeline seed
    with_op_seed = []
    for pipeline_seed in (1, 2):
        pipe = dali.Pipeline(batch_size=8, num_threads=1, device_id=None, seed=pipeline_seed)
        with pipe:
            pipe.set_outputs(
                *fn.readers.file(file_list=_list(image_tree), random_shuffle=True, seed=77)
            )
        with_op_seed.append(_labels(pipe, 3))
    assert with_op_seed[0] == with_op_seed[1] != a[:3]


def test_random_shuffle_pre_shuffles_once_for_all_shards(image_tree):
    # a buffer of one sample draws nothing at random: the stream shows the fixed pre-shuffle
    seen = []
    for sid in range(2):
        pipe = _pipeline(
            5,
            file_list=_list(image_tree),
            random_shuffle=True,
            initial_fill=1,
            num_shards=2,
            shard_id=sid,
            stick_to_shard=True,
            seed=sid + 10,
        )
        seen.append([x for b in _labels(pipe, 3) for x in b][: 10 + sid])
    assert sorted(seen[0] + seen[1]) == list(range(N))  # disjoint shards of one permutation
    assert seen[0] != sorted(seen[0])


# -- sample identity -------------------------------------------------------------


def _stream_by_hand(batch, shards, shard, pad):
    """``(file, epoch)`` of one shard's stream, from DALI's rules.

    Visit ``e`` of the shard reads shard ``shard + e mod S`` (padded with its last file to
    whole batches of the largest shard); every sample of it is read in epoch ``e``.
    """
    bounds = [i * N // shards for i in range(shards + 1)]
    largest = max(b - a for a, b in itertools.pairwise(bounds))
    padded = -(-largest // batch) * batch
    for epoch in itertools.count():
        s = (shard + epoch) % shards
        files = list(range(bounds[s], bounds[s + 1]))
        if pad:
            files += [files[-1]] * (padded - len(files))
        for k in files:
            yield k, epoch


def _values_by_epoch(image_tree, batch, shards, iterations, pad=False):
    """{(file, epoch in which it is read): (uniform, uniform keyed through the reader)} over
    every shard; checks each shard's stream and that a key always gets the same values."""
    table = {}
    for sid in range(shards):
        pipe = _pipeline(
            batch,
            seed=7,
            file_list=_list(image_tree),
            num_shards=shards,
            shard_id=sid,
            pad_last_batch=pad,
            name=None,  # unnamed: the reader's identity comes from its arguments
            outputs=lambda d, lab: (fn.random.uniform(), fn.random.uniform(lab)),
        )
        expected = _stream_by_hand(batch, shards, sid, pad)
        for _ in range(iterations):
            _, lab, u, v = pipe.run()
            for k, a, b in zip(lab.as_array().ravel(), u.as_array(), v.as_array().ravel()):
                file, epoch = next(expected)
                assert int(k) == file
                values = (float(a), float(b))
                # padding repeats (and nothing else) meet a key again: the same values
                assert table.setdefault((file, epoch), values) == values
    return table


def test_random_values_follow_the_file_not_the_topology(image_tree):
    ref = _values_by_epoch(image_tree, 8, 1, 6)  # 48 samples: epochs 0 and 1 whole
    assert {(k, e) for k in range(N) for e in (0, 1)} <= ref.keys()
    for batch, shards, pad in (
        (4, 1, False),
        (8, 2, False),
        (4, 2, False),
        (5, 3, False),
        (8, 2, True),
        (5, 3, True),
    ):
        other = _values_by_epoch(image_tree, batch, shards, 12, pad)
        common = ref.keys() & other.keys()
        assert {(k, e) for k in range(N) for e in (0, 1)} <= common
        assert all(other[key] == ref[key] for key in common), (batch, shards, pad)
    # a file read again in a new epoch draws new values, whatever the number of shards (with
    # 2 shards, the pass was once `visit // 2`: epochs 0 and 1 gave every file the same values)
    two = _values_by_epoch(image_tree, 8, 2, 3)
    for table in (ref, two):
        assert all(table[(k, 0)][i] != table[(k, 1)][i] for k in range(N) for i in (0, 1))


def test_shuffle_after_epoch_values_follow_the_file_and_epoch(image_tree):
    def table(batch, shards):
        out = {}
        for sid in range(shards):
            pipe = _pipeline(
                batch,
                seed=3,
                file_list=_list(image_tree),
                shuffle_after_epoch=True,
                num_shards=shards,
                shard_id=sid,
                outputs=lambda d, lab: (fn.random.uniform(),),
            )
            for epoch in range(3):  # one batch is one pass over the shard
                _, lab, u = pipe.run()
                for k, value in zip(lab.as_array().ravel().tolist(), u.as_array().tolist()):
                    out[(k, epoch)] = value
        return out

    whole = table(21, 1)
    assert len(whole) == 63
    assert table(7, 3) == whole


def test_padding_repeats_carry_the_values_of_their_sample(image_tree):
    pipe = _pipeline(
        8,
        file_list=_list(image_tree),
        num_shards=2,
        pad_last_batch=True,
        outputs=lambda d, lab: (fn.random.uniform(),),
    )
    pipe.run()
    _, lab, u = pipe.run()
    assert lab.as_array().ravel().tolist() == [8, 9, 9, 9, 9, 9, 9, 9]
    vals = u.as_array()
    assert len(set(vals[1:].tolist())) == 1 and vals[0] != vals[1]


def test_batch_meta_ids_and_passes(image_tree):
    pipe = _pipeline(8, file_list=_list(image_tree), num_shards=2, shard_id=1)
    impl = _impl(pipe)
    metas = []
    orig = impl.run_cpu

    def spy(ws):
        out = orig(ws)
        metas.append(ws.out_meta)
        return out

    impl.run_cpu = spy
    for _ in range(5):
        pipe.run()
    # shard 1 reads 10..20 in epoch 0, then shard 0's 0..9 in epoch 1, 10..20 in epoch 2, ...
    assert [m.ids.tolist() for m in metas] == [
        [*range(10, 18)],
        [18, 19, 20, 0, 1, 2, 3, 4],
        [5, 6, 7, 8, 9, 10, 11, 12],
        [*range(13, 21)],
        [*range(8)],
    ]
    assert [m.epochs.tolist() for m in metas] == [
        [0] * 8,
        [0] * 3 + [1] * 5,
        [1] * 5 + [2] * 3,
        [2] * 8,
        [3] * 8,
    ]
    assert metas[1].source_info[3] == "0/img_00.jpg"


# -- state -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"random_shuffle": True, "initial_fill": 16},
        {"shuffle_after_epoch": True, "num_shards": 2},
        {"num_shards": 3, "shard_id": 2, "stick_to_shard": True},
    ],
)
def test_state_round_trip_continues_exactly(image_tree, kw):
    pipe = _pipeline(5, file_list=_list(image_tree), **kw)
    _labels(pipe, 3)
    state = json.loads(json.dumps(_impl(pipe).get_state()))
    expected = _labels(pipe, 6)
    fresh = _pipeline(5, file_list=_list(image_tree), **kw)
    _impl(fresh).set_state(state)
    assert _labels(fresh, 6) == expected


def _restore_error(pipe, state):
    with pytest.raises(RuntimeError) as info:
        _impl(pipe).set_state(state)
    msg = str(info.value)
    assert "dali.fn.readers.file" in msg and "cannot restore the reader state" in msg
    return msg


def test_state_rejects_another_dataset(image_tree):
    five = [f"{i % 3}/img_{i:02d}.jpg" for i in range(5)]
    small = _pipeline(5, files=five, file_root=str(image_tree))
    big = _pipeline(5, file_list=_list(image_tree))
    for saved, restored in ((small, big), (big, small)):
        saved.run()
        msg = _restore_error(restored, _impl(saved).get_state())
        assert re.search(r"\b5\b", msg) and re.search(r"\b21\b", msg), msg


def test_state_rejects_another_shuffling(image_tree):
    plain = _pipeline(5, file_list=_list(image_tree))
    plain.run()
    state = _impl(plain).get_state()
    for kw in (
        {"random_shuffle": True},
        {"shuffle_after_epoch": True},
        {"random_shuffle": True, "initial_fill": 8},
    ):
        msg = _restore_error(_pipeline(5, file_list=_list(image_tree), **kw), state)
        assert "random_shuffle" in msg and "shuffle_after_epoch" in msg
    shuffled = _pipeline(5, file_list=_list(image_tree), random_shuffle=True, initial_fill=8)
    shuffled.run()
    other_fill = _pipeline(5, file_list=_list(image_tree), random_shuffle=True, initial_fill=9)
    assert "buffer:8" in _restore_error(other_fill, _impl(shuffled).get_state())


def test_state_malformed(image_tree):
    pipe = _pipeline(5, file_list=_list(image_tree))
    state = _impl(pipe).get_state()
    for key in ("n", "position", "batch"):
        broken = {k: v for k, v in state.items() if k != key}
        assert "missing field" in _restore_error(pipe, broken)
    assert "must not be negative" in _restore_error(pipe, {**state, "position": -5})


def test_random_shuffle_state_stays_small_and_rebuilds_the_buffer(image_tree):
    kw = {"file_list": _list(image_tree), "random_shuffle": True, "initial_fill": 1024}
    pipe = _pipeline(8, **kw)
    _labels(pipe, 200)  # 1600 draws: every slot of the buffer refilled, most several times
    state = _impl(pipe).get_state()
    assert len(json.dumps(state)) < 200  # a few integers, never the buffer
    assert state["position"] == 1600 and "draws" not in state
    expected = _labels(pipe, 8)
    fresh = _pipeline(8, **kw)
    _impl(fresh).set_state(json.loads(json.dumps(state)))
    assert _labels(fresh, 8) == expected


def test_elastic_restore_reads_the_rest_of_the_epoch(image_tree):
    # 2 shards of batch 4 read 0..7 and 10..17; one shard of batch 3 reads the rest of
    # epoch 0 (8, 9, 18, 19, 20, padded to whole batches), then epoch 1 from the start
    old = [_pipeline(4, file_list=_list(image_tree), num_shards=2, shard_id=s) for s in (0, 1)]
    assert [_labels(p, 2) for p in old] == [
        [[0, 1, 2, 3], [4, 5, 6, 7]],
        [[10, 11, 12, 13], [14, 15, 16, 17]],
    ]
    state = json.loads(json.dumps(_impl(old[1]).get_state()))
    assert "rest" not in state
    new = _pipeline(3, file_list=_list(image_tree))
    impl = _impl(new)
    assert impl.resume_info() is None
    impl.set_state(state)
    assert impl.resume_info() == {"epoch": 0, "part_sizes": [5], "length": 6, "saved_batch": 4}
    assert _labels(new, 3) == [[8, 9, 18], [19, 20, 20], [0, 1, 2]]
    # mid-remainder, its state carries the remainder: restored as is, or elastically again
    again = _pipeline(3, file_list=_list(image_tree))
    impl.set_state(state)
    _labels(new, 1)
    later = impl.get_state()
    assert later["rest"] == {"epoch": 0, "ranges": [[8, 10], [18, 21]]}
    _impl(again).set_state(later)
    assert _impl(again).resume_info() is None  # the same layout: an exact continuation
    assert _labels(again, 2) == [[19, 20, 20], [0, 1, 2]]
    two = [_pipeline(2, file_list=_list(image_tree), num_shards=2, shard_id=s) for s in (0, 1)]
    for p in two:
        _impl(p).set_state(later)
    # (epoch 1 is visit 1: shard 0 reads shard 1's files, shard 1 shard 0's)
    assert [_labels(p, 2) for p in two] == [[[19, 19], [10, 11]], [[20, 20], [0, 1]]]


def test_cursor_shuffle_buffer_draws_every_sample_once_per_epoch():
    cursor = ReaderCursor(SampleStream(10, batch_size=10), shuffle_buffer=4, key=5)
    batches = [cursor.next_batch(10)[0].tolist() for _ in range(30)]
    assert all(sorted(b) == list(range(10)) for b in batches)  # 30 epochs, each whole
    assert len({tuple(b) for b in batches}) > 20  # and each in an order of its own


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_mapped_samples_hold_no_file_descriptor(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"x" * 10000)

    def mappings():
        with open("/proc/self/maps") as f:
            return sum(str(path) in line for line in f)

    fds = len(os.listdir("/proc/self/fd"))
    kept = [read_file(str(path)) for _ in range(200)]
    assert len(os.listdir("/proc/self/fd")) <= fds + 1  # Python's mmap would keep 200 open
    assert mappings() == 200
    del kept
    assert mappings() == 0
