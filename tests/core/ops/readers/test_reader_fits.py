"""`fn.experimental.readers.fits`: listing, HDUs, types, compression, loader, errors.

The files come from `dali._testing.fits`, whose plain files are written byte by byte (not with
the library the reader uses): the outputs are compared with the arrays that were written.
"""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, ops, types
from dali._testing.checkpoints import check_pipeline_save_restore
from dali._testing.fits import COMPRESSIONS, HduSpec, make_fits_tree, write_fits
from parity import cpu_gpu, device_id

pytest.importorskip("fitsio")

N = 5
ALL_HDUS = list(range(2, 12))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return make_fits_tree(tmp_path_factory.mktemp("fits"), n=N, compressed=True)


def _pipeline(batch_size=3, *, device="cpu", seed=7, checkpoint=None, **kw):
    pipe = dali.Pipeline(
        batch_size=batch_size,
        num_threads=2,
        device_id=device_id(device),
        seed=seed,
        exec_async=False,
        exec_pipelined=False,
        enable_checkpointing=kw.pop("checkpointing", False) or checkpoint is not None,
        checkpoint=checkpoint,
    )
    kw.setdefault("name", "Reader")
    with pipe:
        out = fn.experimental.readers.fits(device=device, **kw)
        pipe.set_outputs(*(out if isinstance(out, list) else [out]))
    return pipe


def _host(tl):
    return tl.as_cpu() if hasattr(tl, "as_cpu") else tl


# -- HDUs, types, shapes ----------------------------------------------------------------------


def test_every_type_and_shape(tree):
    pipe = _pipeline(N, file_root=str(tree.root), hdu_indices=ALL_HDUS)
    outs = pipe.run()
    assert len(outs) == len(ALL_HDUS)
    for k, out in enumerate(outs):
        assert out.layout() == ""
        for i in range(N):
            want = tree.arrays[i][k]
            got = out.at(i)
            assert got.dtype == want.dtype, (k, got.dtype, want.dtype)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    dtypes = [outs[k].at(0).dtype.name for k in range(len(ALL_HDUS))]
    assert dtypes == [
        "int16", "float32", "uint16", "uint8", "int32",
        "float64", "int64", "uint32", "int8", "float32",
    ]  # fmt: skip


def test_default_is_the_first_extension(tree):
    (out,) = _pipeline(2, file_root=str(tree.root)).run()
    np.testing.assert_array_equal(out.at(0), tree.arrays[0][0])
    assert out[0].source_info() == ""  # as DALI 2.4: none


def test_primary_hdu_and_repeated_indices(tmp_path):
    primary = np.arange(12, dtype=np.float64).reshape(3, 4)
    write_fits(tmp_path / "p.fits", [np.ones(2, np.int32)], primary=primary)
    a, b, c = _pipeline(1, file_root=str(tmp_path), hdu_indices=[1, 2, 1]).run()
    np.testing.assert_array_equal(a.at(0), primary)
    np.testing.assert_array_equal(b.at(0), [1, 1])
    np.testing.assert_array_equal(c.at(0), primary)


def test_scaling_as_cfitsio(tmp_path):
    raw = np.array([[-3, 0, 7]], np.int16)
    write_fits(tmp_path / "s.fits", [HduSpec(raw, scale=(0.25, -1.5))])
    (out,) = _pipeline(1, file_root=str(tmp_path)).run()
    assert out.at(0).dtype == np.float32
    np.testing.assert_array_equal(out.at(0), (raw * 0.25 - 1.5).astype(np.float32))


@pytest.mark.parametrize("name", sorted(COMPRESSIONS))
def test_tile_compressed_images(tree, name):
    path, want = tree.compressed[name]
    (out,) = _pipeline(1, files=[str(path)]).run()
    assert out.at(0).dtype == want.dtype
    np.testing.assert_array_equal(out.at(0), want)


def test_dtypes_checked_not_applied(tree):
    (out,) = _pipeline(1, file_root=str(tree.root), hdu_indices=[3], dtypes=[types.UINT8]).run()
    assert out.at(0).dtype == np.float32  # DALI 2.4: the file's type


# -- listing ----------------------------------------------------------------------------------


def test_listing_modes_agree(tree):
    rel = [str(p.relative_to(tree.root)) for p in tree.files]
    runs = {
        "root": _pipeline(N, file_root=str(tree.root)),
        "list": _pipeline(N, file_list=str(tree.root / "list.txt")),
        "files": _pipeline(N, files=[str(p) for p in tree.files]),
        "files_root": _pipeline(N, file_root=str(tree.root), files=rel),
    }
    for name, pipe in runs.items():
        assert pipe.epoch_size("Reader") == N, name
        (out,) = pipe.run()
        for i in range(N):
            np.testing.assert_array_equal(out.at(i), tree.arrays[i][0], err_msg=name)


def test_file_filter(tree):
    pipe = _pipeline(2, file_root=str(tree.root), file_filter="img_0[13].fits")
    assert pipe.epoch_size("Reader") == 2
    (out,) = pipe.run()
    np.testing.assert_array_equal(out.at(1), tree.arrays[3][0])


# -- the loader -------------------------------------------------------------------------------


@pytest.mark.parametrize(("shards", "pad"), [(2, False), (2, True), (3, True)])
def test_sharding_and_padding(tree, shards, pad):
    for shard in range(shards):
        pipe = _pipeline(
            2, file_root=str(tree.root), num_shards=shards, shard_id=shard, pad_last_batch=pad
        )
        meta = pipe.reader_meta("Reader")
        assert meta["epoch_size"] == N and meta["pad_last_batch"] == int(pad)
        lo, hi = N * shard // shards, N * (shard + 1) // shards
        (out,) = pipe.run()
        np.testing.assert_array_equal(out.at(0), tree.arrays[lo][0])
        if hi - lo == 1:
            # the second sample: the next shard's first (no padding) or this one again (padded)
            follow = lo if pad else hi % N
            np.testing.assert_array_equal(out.at(1), tree.arrays[follow][0])


def _index_of(tree, a):
    return next(i for i in range(N) if np.array_equal(tree.arrays[i][0], a))


@pytest.mark.parametrize(
    "kw", [{"random_shuffle": True, "initial_fill": 3}, {"shuffle_after_epoch": True}]
)
def test_shuffles_visit_every_file_once_per_epoch(tree, kw):
    pipe = _pipeline(N, file_root=str(tree.root), **kw)
    epochs = []
    for _ in range(3):
        (out,) = pipe.run()
        epochs.append([_index_of(tree, out.at(i)) for i in range(N)])
    assert all(sorted(e) == list(range(N)) for e in epochs)
    assert any(e != list(range(N)) for e in epochs)


def test_checkpoint_round_trip(tree):
    def make(checkpoint=None):
        return _pipeline(
            2,
            file_root=str(tree.root),
            hdu_indices=[2, 3],
            shuffle_after_epoch=True,
            checkpoint=checkpoint,
            checkpointing=True,
        )

    check_pipeline_save_restore(make, 4, 5)


def test_ops_api(tree):
    pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        a, b = ops.experimental.readers.Fits(file_root=str(tree.root), hdu_indices=[2, 4])()
        pipe.set_outputs(a, b)
    a, b = pipe.run()
    np.testing.assert_array_equal(b.at(1), tree.arrays[1][2])


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({}, "file_root.*is required"),
        ({"file_root": "R", "hdu_indices": [0]}, "hdu_indices.*numbered from 1"),
        ({"file_root": "R", "hdu_indices": []}, "hdu_indices.*at least one"),
        ({"file_root": "R", "dtypes": [types.BOOL]}, "Unsupported output dtype bool"),
        (
            {"file_root": "R", "hdu_indices": [2, 3], "dtypes": [types.INT16]},
            "Number of extensions does not match the number of provided types",
        ),
        ({"file_root": "R", "file_filter": "*.nothing"}, "no files found"),
        ({"file_root": "R", "num_shards": 6}, "fewer than num_shards=6"),
        ({"file_root": "R", "shuffle_after_epoch": True, "random_shuffle": True}, "random_shuffle"),
        ({"files": ["s3://bucket/a.fits"]}, "local paths only"),
    ],
)
def test_argument_errors(tree, kw, match):
    kw = {k: (str(tree.root) if v == "R" else v) for k, v in kw.items()}
    with pytest.raises(Exception, match=match):
        _pipeline(2, **kw).build()


@pytest.mark.parametrize(
    ("broken", "match"),
    [
        ("table", "Only IMAGE_HDUs are supported! HDU 2 of '.*table.fits' is a BINARY_TBL"),
        ("primary_only", "has 1 HDU\\(s\\): there is no HDU 2"),
        ("no_axes", "NAXIS \\(image dimensions\\) value for each HDU has to be greater than 0"),
        ("text", "Failed to open a file: .*text.fits"),
    ],
)
def test_broken_files(tree, broken, match):
    pipe = _pipeline(1, files=[str(tree.broken[broken])])
    with pytest.raises(Exception, match=match):
        pipe.run()


@pytest.mark.parametrize(
    ("broken", "match"),
    [
        ("other_type", "same data type .*int16.*float32"),
        ("other_ndim", "same number of dimensions .* 2 dimensions and .* 3 dimensions"),
    ],
)
def test_inconsistent_batches(tree, broken, match):
    pipe = _pipeline(2, files=[str(tree.files[0]), str(tree.broken[broken])])
    with pytest.raises(Exception, match=match):
        pipe.run()


# -- GPU ----------------------------------------------------------------------------------------


@cpu_gpu()
def test_cpu_gpu_parity(device, tree):
    pipe = _pipeline(3, device=device, file_root=str(tree.root), hdu_indices=[2, 3, 6, 11])
    return pipe.run()


@cpu_gpu()
def test_cpu_gpu_parity_compressed(device, tree):
    files = [str(tree.compressed[k][0]) for k in ("rice_i16", "rice_tiles", "gzip2", "hcompress")]
    return _pipeline(4, device=device, files=files).run()
