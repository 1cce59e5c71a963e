"""`fn.readers.numpy` (DALI's ``readers.numpy``): listing, arrays, regions, loader.

The files come from `dali._testing.numpy_files`; values are checked against ``np.load``.
"""

from __future__ import annotations

import itertools
import json
import os

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn, ops, types
from dali._graph.schema import UNSET, get_schema
from dali._ops.readers.numpy.box import assemble, plan_box
from dali._ops.readers.numpy.header import NpyFormatError, header_span, parse_header
from dali._ops.readers.storage import access as _storage
from dali._testing import numpy_files
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.numpy_files import TREE_FILES, tree_array
from parity import cpu_gpu, device_id

N = len(TREE_FILES)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("npy")
    numpy_files.make_numpy_tree(root)
    edge = numpy_files.make_numpy_edge_cases(root)
    return root / "tree", edge


@pytest.fixture(scope="module")
def tree(data):
    return data[0]


@pytest.fixture(scope="module")
def edge(data):
    return data[1]


def _pipeline(batch_size=4, *, device="cpu", outputs=None, seed=7, **reader_kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=device_id(device),
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
    )
    reader_kw.setdefault("name", "Reader")
    with pipe:
        out = fn.readers.numpy(device=device, **reader_kw)
        extra = outputs(out) if outputs is not None else ()
        pipe.set_outputs(out, *extra)
    return pipe


def _run(pipe):
    return pipe.run()[0]


def _infos(pipe, iterations):
    return [_run(pipe).source_infos for _ in range(iterations)]


def _build_error(**kw):
    pipe = _pipeline(2, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.build()
    msg = str(info.value)
    assert "dali.fn.readers.numpy" in msg
    return msg


def _run_error(batch_size=2, **kw):
    pipe = _pipeline(batch_size, **kw)
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    msg = str(info.value)
    assert "dali.fn.readers.numpy" in msg
    return msg


# -- schema -----------------------------------------------------------------------------------


def test_schema_arguments_and_defaults_match_dali():
    schema = get_schema("readers.numpy")
    expected = {
        "file_root": UNSET,
        "file_filter": "*.npy",
        "file_list": UNSET,
        "files": UNSET,
        "roi_start": UNSET,
        "rel_roi_start": UNSET,
        "roi_end": UNSET,
        "rel_roi_end": UNSET,
        "roi_shape": UNSET,
        "rel_roi_shape": UNSET,
        "roi_axes": (),
        "out_of_bounds_policy": "error",
        "fill_value": 0.0,
        "use_o_direct": False,
        "cache_header_information": False,
        "register_buffers": True,
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
    tensor = {k for k, a in schema.args.items() if a.tensor}
    assert tensor == {"roi_start", "rel_roi_start", "roi_end", "rel_roi_end"} | {
        "roi_shape",
        "rel_roi_shape",
    }
    assert schema.devices == ("cpu", "gpu")


@pytest.mark.filterwarnings("ignore:ops.NumpyReader is a deprecated alias")
def test_ops_class_and_legacy_alias(tree):
    for cls in (ops.readers.Numpy, ops.NumpyReader):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            pipe.set_outputs(cls(file_root=str(tree))())
        assert _run(pipe).source_infos == ["./a00.npy", "./a01.npy"]


# -- listing ----------------------------------------------------------------------------------


def test_file_root_lists_the_root_first_then_each_subfolder_one_level_deep(tree):
    pipe = _pipeline(N, file_root=str(tree))
    out = _run(pipe)
    assert out.source_infos == list(TREE_FILES)
    assert out.layout() == "" and out.dtype == types.FLOAT
    for i in range(N):
        # odd files are stored in Fortran order: they come out transposed to C order
        np.testing.assert_array_equal(out.at(i), tree_array(i))
        assert out.at(i).flags.c_contiguous
    assert pipe.epoch_size("Reader") == N


def test_order_is_per_folder_not_a_global_sort(tmp_path):
    # DALI lists "." first, then each subfolder in sorted order: "-x/" (0x2d) before "./"
    # would win a global sort, and "a-b/" would come before "a/".
    for rel in ("zz.npy", "a/x.npy", "a/b.npy", "a-b/q.npy", "-x/r.npy"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        np.save(tmp_path / rel, np.zeros(1))
    out = _run(_pipeline(5, file_root=str(tmp_path)))
    assert out.source_infos == ["./zz.npy", "-x/r.npy", "a/b.npy", "a/x.npy", "a-b/q.npy"]


def test_file_filter_is_case_sensitive_glob(tree):
    out = _run(_pipeline(1, file_root=str(tree), file_filter="*.NPY"))
    assert out.source_infos == ["b/UPPER.NPY"]
    np.testing.assert_array_equal(out.at(0), tree_array(98))
    out = _run(_pipeline(3, file_root=str(tree), file_filter="a0[3-5].npy"))
    assert out.source_infos == ["b/a03.npy", "b/a04.npy", "b/a05.npy"]


def test_file_list_relative_to_the_list_or_file_root(tree, tmp_path):
    listed = [p.removeprefix("./") for p in TREE_FILES[::-2]]
    out = _run(_pipeline(len(listed), file_list=str(tree / "list.txt")))
    assert out.source_infos == listed
    for k, i in enumerate(range(N - 1, -1, -2)):
        np.testing.assert_array_equal(out.at(k), tree_array(i))
    # elsewhere, with file_root; empty lines are skipped, CRLF endings accepted
    lst = tmp_path / "other.txt"
    lst.write_text("b/a04.npy\r\n\n\nc/a07.npy\n")
    out = _run(_pipeline(2, file_list=str(lst), file_root=str(tree)))
    assert out.source_infos == ["b/a04.npy", "c/a07.npy"]
    np.testing.assert_array_equal(out.at(1), tree_array(7))


def test_files_relative_to_file_root_or_as_given(tree):
    out = _run(_pipeline(2, files=["c/a09.npy", "a02.npy"], file_root=str(tree)))
    assert out.source_infos == ["c/a09.npy", "a02.npy"]
    np.testing.assert_array_equal(out.at(0), tree_array(9))
    absolute = [str(tree / "b" / "a05.npy")]
    out = _run(_pipeline(1, files=absolute))
    assert out.source_infos == absolute
    np.testing.assert_array_equal(out.at(0), tree_array(5))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_non_regular_entries_of_file_root_are_skipped_and_named(tmp_path, caplog):
    np.save(tmp_path / "a.npy", np.zeros(2))
    os.mkfifo(tmp_path / "f.npy")
    with caplog.at_level("WARNING", logger="dali"):
        out = _run(_pipeline(2, file_root=str(tmp_path)))
    assert out.source_infos == ["./a.npy", "./a.npy"]
    assert "'./f.npy' (a FIFO)" in caplog.text


# -- arrays -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "scalar.npy",
        "empty.npy",
        "bool.npy",
        "f16.npy",
        "u64.npy",
        "big_endian.npy",
        "big_endian_fortran.npy",
        "fortran3d.npy",
        "v2.npy",
        "v3.npy",
        "long_header.npy",
    ],
)
def test_arrays_come_out_as_numpy_loads_them_in_native_c_order(edge, name):
    expected = np.load(edge[name])
    out = _run(_pipeline(2, files=[str(edge[name])]))
    for i in range(2):
        got = out.at(i)
        # 0-d arrays stay 0-d, as DALI 2.4 gives them (checked by the conformance cases)
        assert got.shape == expected.shape
        assert got.dtype == expected.dtype.newbyteorder("=")
        assert got.dtype.isnative and got.flags.c_contiguous
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("truncated.npy", "truncated"),
        ("not_numpy.npy", "not a numpy file"),
        ("bad_header.npy", "not a Python dict literal"),
        ("complex.npy", "unsupported element type '<c8'"),
        ("structured.npy", "structured arrays are not"),
    ],
)
def test_broken_and_unsupported_files_are_errors_naming_them(edge, name, text):
    msg = _run_error(files=[str(edge[name])])
    assert str(edge[name]) in msg and text in msg


def test_a_batch_must_have_one_type_and_number_of_dimensions(edge, tree):
    msg = _run_error(files=[str(tree / "a00.npy"), str(edge["fortran3d.npy"])])
    assert "same number of dimensions" in msg and "sample 1" in msg and "has 2 and" in msg
    msg = _run_error(files=[str(tree / "a00.npy"), str(edge["bool.npy"])])
    assert "same type" in msg and "float32" in msg and "bool" in msg


def test_samples_are_fresh_arrays_and_io_arguments_change_nothing(tree, monkeypatch):
    expected = [_run(_pipeline(N, file_root=str(tree))).at(i) for i in range(N)]
    for kw, mmap_min in itertools.product(
        [{}, {"dont_use_mmap": True}, {"dont_use_mmap": True, "use_o_direct": True}],
        [1 << 20, 0],  # 0: every file is mapped
    ):
        monkeypatch.setattr(options, "MMAP_MIN_BYTES", mmap_min)
        kw = {**kw, "read_ahead": True, "cache_header_information": True, "lazy_init": True}
        pipe = _pipeline(N, file_root=str(tree), **kw)
        a, b = _run(pipe), _run(pipe)
        for i in range(N):
            np.testing.assert_array_equal(a.at(i), expected[i])
            assert not np.shares_memory(a.at(i), b.at(i))


def test_reading_on_several_threads_gives_the_same_batches(tree, volumes, monkeypatch):
    expected = [_run(_pipeline(N, file_root=str(tree))) for _ in range(2)]
    regions = _run(_pipeline(3, files=volumes[0], roi_start=[1, 2, 3], roi_end=[5, 9, 6]))
    monkeypatch.setattr(options, "READ_THREADS", 3)
    pipe = _pipeline(N, file_root=str(tree))
    for batch in expected:  # the first batch reads the headers on the threads too
        got = _run(pipe)
        assert got.source_infos == batch.source_infos
        for i in range(N):
            np.testing.assert_array_equal(got.at(i), batch.at(i))
    got = _run(_pipeline(3, files=volumes[0], roi_start=[1, 2, 3], roi_end=[5, 9, 6]))
    for i in range(3):
        np.testing.assert_array_equal(got.at(i), regions.at(i))


def test_each_header_is_read_once(tree, monkeypatch):
    calls = []
    real = _storage.read_range

    def spy(path, offset, length):
        calls.append((os.path.basename(path), offset))
        return real(path, offset, length)

    monkeypatch.setattr(_storage, "read_range", spy)
    pipe = _pipeline(4, file_root=str(tree), dont_use_mmap=True)
    for _ in range(3 * N // 4 + 1):  # three epochs and more
        _run(pipe)
    headers = [c for c in calls if c[1] == 0]
    assert sorted(headers) == sorted((os.path.basename(p), 0) for p in TREE_FILES)
    assert len(calls) - len(headers) >= 3 * N  # one payload read per sample


def test_a_file_removed_after_listing_is_an_error_naming_it(tmp_path):
    for k in range(3):
        np.save(tmp_path / f"x{k}.npy", np.zeros(3))
    pipe = _pipeline(3, file_root=str(tmp_path))
    pipe.build()
    os.remove(tmp_path / "x1.npy")
    with pytest.raises(RuntimeError) as info:
        pipe.run()
    assert "x1.npy" in str(info.value) and "sample 1" in str(info.value)


# -- regions of interest ----------------------------------------------------------------------


def _window(a, start, end, fill):
    """``a[start:end]`` per axis, reaching outside ``a`` filled with ``fill`` (the reference)."""
    shape = [e - s for s, e in zip(start, end)]
    out = np.full(shape, fill, a.dtype)
    src = tuple(slice(max(s, 0), min(e, n)) for s, e, n in zip(start, end, a.shape))
    dst = tuple(slice(max(s, 0) - s, min(e, n) - s) for s, e, n in zip(start, end, a.shape))
    if all(x.stop > x.start for x in src):
        out[dst] = a[src]
    return out


@pytest.fixture(scope="module")
def volumes(tmp_path_factory):
    """Three 3-D arrays: C order, Fortran order, big-endian Fortran, each (12, 9, 7) int16."""
    root = tmp_path_factory.mktemp("vol")
    base = np.arange(12 * 9 * 7, dtype=np.int16).reshape(12, 9, 7)
    arrays = [base, np.asfortranarray(base + 1000), np.asfortranarray(base - 1000).astype(">i2")]
    arrays[2] = np.asfortranarray(arrays[2])
    paths = []
    for k, a in enumerate(arrays):
        paths.append(str(root / f"v{k}.npy"))
        np.save(paths[-1], a)
    return paths, [np.load(p) for p in paths]


@pytest.mark.parametrize(
    ("kw", "start", "end"),
    [
        ({"roi_start": [1, 2, 3], "roi_end": [5, 9, 6]}, [1, 2, 3], [5, 9, 6]),
        ({"roi_start": [2, 0, 1], "roi_shape": [3, 9, 5]}, [2, 0, 1], [5, 9, 6]),
        ({"roi_start": [4]}, [4, 4, 4], [12, 9, 7]),  # one value: every axis (DALI)
        ({"roi_axes": [2], "roi_end": [3]}, [0, 0, 0], [12, 9, 3]),
        ({"roi_axes": [-2, 0], "roi_start": [1, 10]}, [10, 1, 0], [12, 9, 7]),
        (
            {"rel_roi_start": [0.25, 0.5, 0.0], "rel_roi_shape": [0.5, 0.25, 1.0]},
            [3, 5, 0],  # 4.5 rounds half away from zero
            [9, 7, 7],  # (0.5 + 0.25) * 9 = 6.75 -> 7
        ),
        ({"rel_roi_start": [0.5, 0, 0], "rel_roi_end": [1, 1, 0.3]}, [6, 0, 0], [12, 9, 2]),
        ({"roi_start": [0, 0, 0], "roi_end": [12, 9, 7]}, [0, 0, 0], [12, 9, 7]),
        ({"roi_start": [11, 8, 6], "roi_end": [11, 8, 7]}, [11, 8, 6], [11, 8, 7]),  # empty
    ],
)
def test_regions_inside_the_arrays(volumes, kw, start, end):
    paths, arrays = volumes
    out = _run(_pipeline(3, files=paths, **kw))
    for i, a in enumerate(arrays):
        expected = _window(a, start, end, 0)
        assert out.at(i).dtype == np.dtype(np.int16)
        np.testing.assert_array_equal(out.at(i), expected)


@pytest.mark.parametrize(
    ("policy", "fill", "start", "end", "expected_window"),
    [
        ("pad", -7.6, [-2, 3, 5], [4, 12, 9], ([-2, 3, 5], [4, 12, 9])),
        ("constant", 3.0, [10, -1, -3], [14, 2, 2], ([10, -1, -3], [14, 2, 2])),
        ("pad", 0.0, [20, 0, 0], [22, 9, 7], ([20, 0, 0], [22, 9, 7])),  # nothing inside
        ("trim_to_shape", 5.0, [-2, 3, 5], [4, 12, 9], ([0, 3, 5], [4, 9, 7])),
    ],
)
def test_regions_outside_the_arrays_follow_the_policy(
    volumes, policy, fill, start, end, expected_window
):
    paths, arrays = volumes
    kw = {"roi_start": start, "roi_end": end, "out_of_bounds_policy": policy, "fill_value": fill}
    out = _run(_pipeline(3, files=paths, **kw))
    lo, hi = expected_window
    for i, a in enumerate(arrays):
        # the fill value is converted as DALI converts it: rounded, saturated (-7.6 -> -8)
        np.testing.assert_array_equal(out.at(i), _window(a, lo, hi, round(fill)))


def test_per_sample_regions_from_an_input(volumes):
    paths, arrays = volumes
    starts = [np.array([1, 2, 3], np.int32), np.array([], np.int32), np.array([5, 0, 3], np.int32)]
    pipe = dali.Pipeline(
        batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False
    )
    with pipe:
        start = fn.external_source(lambda: starts)
        rel = fn.external_source(lambda: [np.array([0.5, 0.5, 0.5], np.float32)] * 3)
        pipe.set_outputs(fn.readers.numpy(files=paths, roi_start=start, rel_roi_shape=rel))
    out = _run(pipe)
    # end = start + 0.5 * (12, 9, 7), rounded half away from zero; an empty per-sample value
    # counts as not given (start 0)
    windows = [([1, 2, 3], [7, 7, 7]), ([0, 0, 0], [6, 5, 4]), ([5, 0, 3], [11, 5, 7])]
    for i, (a, (lo, hi)) in enumerate(zip(arrays, windows)):
        np.testing.assert_array_equal(out.at(i), _window(a, lo, hi, 0))


@pytest.mark.parametrize("mmap_min", [1 << 20, 0])  # 0: one-range regions map the file
def test_random_regions_match_numpy(volumes, monkeypatch, mmap_min):
    monkeypatch.setattr(options, "MMAP_MIN_BYTES", mmap_min)
    paths, arrays = volumes
    rng = np.random.default_rng(3)
    for _ in range(12):
        start = rng.integers(-3, 10, size=3)
        end = start + rng.integers(0, 8, size=3)
        kw = {"roi_start": start.tolist(), "roi_end": end.tolist(), "fill_value": 9}
        out = _run(_pipeline(3, files=paths, out_of_bounds_policy="pad", **kw))
        for i, a in enumerate(arrays):
            np.testing.assert_array_equal(out.at(i), _window(a, start, end, 9))


def test_region_reads_only_its_bytes(tmp_path, monkeypatch):
    big = np.arange(64 * 1024 * 4, dtype=np.float32).reshape(64, 4096)  # rows of 16 KiB
    path = str(tmp_path / "big.npy")
    np.save(path, big)
    seen = []
    real = _storage.read_extents

    def spy(extents, **kw):
        seen.extend(e for e in extents if e.offset)  # (the header reads are not extents)
        return real(extents, **kw)

    monkeypatch.setattr(_storage, "read_extents", spy)
    # 10 rows x 8 columns: runs of 32 B 16 KiB apart: under ROI_GAP_BYTES, one covering range
    out = _run(_pipeline(1, files=[path], roi_start=[3, 100], roi_end=[13, 108]))
    np.testing.assert_array_equal(out.at(0), big[3:13, 100:108])
    assert len(seen) == 1 and seen[0].length == 9 * 16384 + 32
    # with a smaller threshold, one extent per run: 10 x 32 bytes
    seen.clear()
    monkeypatch.setattr(options, "ROI_GAP_BYTES", 1024)
    out = _run(_pipeline(1, files=[path], roi_start=[3, 100], roi_end=[13, 108]))
    np.testing.assert_array_equal(out.at(0), big[3:13, 100:108])
    assert [e.length for e in seen] == [32] * 10
    assert [e.offset - seen[0].offset for e in seen] == [16384 * k for k in range(10)]
    # whole rows are one contiguous extent
    seen.clear()
    out = _run(_pipeline(1, files=[path], roi_axes=[0], roi_start=[60]))
    np.testing.assert_array_equal(out.at(0), big[60:])
    assert [e.length for e in seen] == [4 * 16384]


@pytest.mark.parametrize(
    ("kw", "arg", "text"),
    [
        ({"roi_start": [0, 0], "rel_roi_start": [0.0, 0.0]}, "rel_roi_start", "mutually"),
        ({"roi_end": [1, 1], "roi_shape": [1, 1]}, "roi_shape", "mutually exclusive"),
        ({"roi_shape": [-1, 2]}, "roi_shape", "negative"),
        ({"out_of_bounds_policy": "bogus"}, "out_of_bounds_policy", "unsupported value"),
        ({"use_o_direct": True}, "use_o_direct", "dont_use_mmap=True"),
    ],
)
def test_build_errors_of_the_region_arguments(tree, kw, arg, text):
    msg = _build_error(file_root=str(tree), **kw)
    assert f"argument `{arg}`" in msg and text in msg


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"roi_start": [-1, 0], "roi_end": [2, 2]}, 'out_of_bounds_policy="error"'),
        ({"roi_start": [0, 0], "roi_end": [6, 99]}, "does not fit in the input of shape (5, 7)"),
        ({"roi_start": [3, 3], "roi_end": [2, 4]}, "before start"),
        ({"roi_start": [1, 2, 3]}, "argument `roi_start`: has 3 values for 2 sliced axes"),
        ({"roi_axes": [2], "roi_start": [1]}, "argument `roi_axes`: axis 2 is out of range"),
    ],
)
def test_run_errors_of_the_regions(tree, kw, text):
    msg = _run_error(files=[str(tree / "a00.npy")], **kw)
    assert text in msg


# -- planning the reads -----------------------------------------------------------------------


def test_plan_box_levels_and_assembly_match_numpy_slicing():
    rng = np.random.default_rng(0)
    for _ in range(200):
        ndim = int(rng.integers(1, 5))
        shape = tuple(int(x) for x in rng.integers(1, 7, size=ndim))
        a = rng.integers(0, 1000, size=shape).astype(np.int32)
        lo = [int(rng.integers(0, n)) for n in shape]
        bounds = [(l, int(rng.integers(l + 1, n + 1))) for l, n in zip(lo, shape)]
        raw = a.tobytes()
        for gap in (0, 8, 64, 1 << 30):
            plan = plan_box(shape, 4, bounds, gap_bytes=gap, max_extents=int(rng.integers(1, 50)))
            parts = [np.frombuffer(raw[o : o + plan.length], np.uint8) for o in plan.offsets]
            assert all(len(p) == plan.length for p in parts)
            box = assemble(plan, parts, np.dtype(np.int32))
            np.testing.assert_array_equal(box, a[tuple(slice(l, h) for l, h in bounds)])


def test_plan_box_special_cases():
    assert plan_box((3, 4), 2, [(0, 3), (0, 4)], gap_bytes=0).offsets.tolist() == [0]
    assert plan_box((3, 4), 2, [(0, 3), (0, 4)], gap_bytes=0).length == 24
    empty = plan_box((3, 4), 2, [(1, 1), (0, 4)], gap_bytes=0)
    assert empty.offsets.size == 0 and assemble(empty, [], np.dtype("<i2")).shape == (0, 4)
    scalar = plan_box((), 8, [], gap_bytes=0)
    assert scalar.offsets.tolist() == [0] and scalar.length == 8
    # 100 runs, but at most 10 extents: the plan moves one level up
    capped = plan_box((100, 10, 100), 1, [(0, 100), (0, 10), (0, 5)], gap_bytes=0, max_extents=10)
    assert capped.level == 0 and len(capped.offsets) == 1
    capped = plan_box((100, 10, 100), 1, [(0, 10), (0, 10), (0, 5)], gap_bytes=0, max_extents=10)
    assert capped.level == 1 and len(capped.offsets) == 10


def test_header_parser_versions_and_errors(edge):
    for name, version in (("v2.npy", 2), ("v3.npy", 3), ("bool.npy", 1)):
        raw = edge[name].read_bytes()
        h = parse_header(raw[: header_span(raw)], len(raw))
        assert raw[6] == version and h.data_offset == header_span(raw)
        assert h.shape == np.load(edge[name]).shape
    raw = edge["big_endian_fortran.npy"].read_bytes()
    h = parse_header(raw, len(raw))
    assert h.dtype == np.dtype(">f8") and h.fortran_order and h.stored_shape == (4, 3, 2)

    def npy(text):
        return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text

    bad = {
        b"\x93NUMPY\x04\x00": "version 4.0",
        npy(b"{'descr': '<f4'}"): "exactly 'descr'",
        npy(b"{'descr':'<f4','fortran_order':0,'shape':(1,)}"): "True or False",
        npy(b"{'descr':'<f4','fortran_order':False,'shape':(-1,)}"): "non-negative",
        npy(b"{'descr':'<U3','fortran_order':False,'shape':(1,)}"): "'<U3'",
        npy(b"{'descr':'<f4','fortran_order':False,'shape':(3,)}"): "truncated",
        b"\x93NUMPY\x01\x00\xff\x00{": "ends inside its header",
    }
    for raw, text in bad.items():
        with pytest.raises(NpyFormatError, match=text):
            parse_header(raw, len(raw))


# -- the loader: sharding, padding, shuffling, state ------------------------------------------


def test_two_shards_cover_the_dataset_disjointly(tree):
    seen = []
    for shard in range(2):
        pipe = _pipeline(3, file_root=str(tree), num_shards=2, shard_id=shard)
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["number_of_shards"] == 2
        size = (shard + 1) * N // 2 - shard * N // 2
        infos = [s for batch in _infos(pipe, 4) for s in batch][:size]
        seen.append(infos)
    assert not set(seen[0]) & set(seen[1])
    assert sorted(seen[0] + seen[1]) == sorted(TREE_FILES)


def test_pad_last_batch_repeats_the_last_sample(tree):
    pipe = _pipeline(4, file_root=str(tree), pad_last_batch=True)
    infos = [s for batch in _infos(pipe, 3) for s in batch]
    assert infos == [*TREE_FILES, TREE_FILES[-1]]


def test_random_shuffle_and_shuffle_after_epoch_permute_the_files(tree):
    pipe = _pipeline(N, file_root=str(tree), random_shuffle=True, initial_fill=4)
    first = _run(pipe)
    assert first.source_infos != list(TREE_FILES)
    for i, info in enumerate(first.source_infos):
        np.testing.assert_array_equal(first.at(i), tree_array(TREE_FILES.index(info)))
    pipe = _pipeline(N, file_root=str(tree), shuffle_after_epoch=True)
    epochs = _infos(pipe, 3)
    for epoch in epochs:
        assert sorted(epoch) == sorted(TREE_FILES)
    assert epochs[0] != epochs[1]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"num_shards": 2, "shard_id": 1, "pad_last_batch": True},
        {"random_shuffle": True, "initial_fill": 5},
        {"shuffle_after_epoch": True},
        {"roi_start": [1, 1], "roi_shape": [3, 4]},
    ],
)
def test_checkpoint_round_trip(tree, kw):
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
            pipe.set_outputs(fn.readers.numpy(file_root=str(tree), name="Reader", **kw))
        return pipe

    check_pipeline_save_restore(make, 5, 6)


def test_state_is_small_json(tree):
    pipe = _pipeline(3, file_root=str(tree), random_shuffle=True)
    _run(pipe)
    pipe.build()
    state = pipe._plan.by_name["Reader"].impl.get_state()
    assert len(json.dumps(state)) < 400


# -- errors of the listing --------------------------------------------------------------------


def test_listing_errors(tree, tmp_path):
    assert "argument `file_root`: is required" in _build_error()
    msg = _build_error(files=["a.npy"], file_list=str(tree / "list.txt"))
    assert "argument `files`" in msg and "mutually exclusive" in msg
    msg = _build_error(file_root=str(tmp_path / "nope"))
    assert "argument `file_root`" in msg and "does not exist" in msg
    msg = _build_error(file_root=str(tmp_path))
    assert "no files found" in msg and "'*.npy'" in msg
    msg = _build_error(file_root=str(tree), file_filter="*.xyz")
    assert "no files found" in msg and "'*.xyz'" in msg
    assert "argument `files`: the list of files is empty" in _build_error(files=[])
    msg = _build_error(files=["a00.npy", "ghost.npy"], file_root=str(tree))
    assert "argument `files`" in msg and "1 missing" in msg and "ghost.npy" in msg
    msg = _build_error(file_list=str(tmp_path / "nope.txt"))
    assert "argument `file_list`: cannot read" in msg and "nope.txt" in msg
    lst = tmp_path / "l.txt"
    lst.write_text("a00.npy\n b/a03.npy\n")  # a leading space is part of the name (DALI)
    msg = _build_error(file_list=str(lst), file_root=str(tree))
    assert "line 2: ' b/a03.npy'" in msg
    lst.write_text("\n\n")
    assert "lists no files" in _build_error(file_list=str(lst))
    msg = _build_error(file_root=str(tree), num_shards=N + 1)
    assert "argument `num_shards`" in msg


def test_static_meta_sets_no_layout(tree):
    pipe = dali.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        out = fn.readers.numpy(file_root=str(tree))
    assert out.layout == ""
    assert out.dtype is None and out.ndim is None


# -- GPU --------------------------------------------------------------------------------------


@cpu_gpu()
def test_gpu_reader_matches_cpu(tree, device):
    pipe = _pipeline(4, device=device, file_root=str(tree))
    return [_run(pipe) for _ in range(3)][-1]


@cpu_gpu()
def test_gpu_reader_regions_match_cpu(volumes, device):
    paths, _ = volumes
    kw = {"roi_start": [-1, 2, 3], "roi_end": [5, 9, 9], "out_of_bounds_policy": "pad"}
    return _run(_pipeline(3, device=device, files=paths, fill_value=-3, **kw))


@pytest.mark.gpu
def test_gpu_reader_outputs_on_the_device_with_source_info(tree):
    pytest.importorskip("cupy")
    pipe = _pipeline(N, device="gpu", file_root=str(tree), outputs=lambda x: (x.cpu(),))
    out, host = pipe.run()
    assert type(out).__name__ == "TensorListGPU"
    assert out.source_infos == list(TREE_FILES) == host.source_infos
    for i in range(N):
        np.testing.assert_array_equal(host.at(i), tree_array(i))
    assert pipe.reader_meta("Reader")["epoch_size"] == N
