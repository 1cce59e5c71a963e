"""dali-torch's iterators: DALI's classes, outputs, dtypes, policies and state.

The epoch arithmetic is the shared base iterator's (tested in tests/core); here it is checked
through the torch iterators with DALI's documented table, PARTIAL trimming included.
"""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
import torch
from dali import fn, pipeline_def, types
from dali.plugin.pytorch import (
    DALIClassificationIterator,
    DALIGenericIterator,
    DALIRaggedIterator,
    LastBatchPolicy,
    feed_ndarray,
    to_torch_type,
)
from dali.plugin.pytorch._convert import batch_to_torch
from dali.plugin.pytorch.torch_utils import to_torch_tensor
from dali.tensors import TensorCPU, TensorListCPU
from iterator_utils import check_save_restore, make_files, reader_pipeline, step

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL
R = "Reader"


def _source_pipe(make_batch, batch_size=2, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, **kwargs)
    def pipe():
        return fn.external_source(make_batch, batch=True)

    return pipe()


def _counter(batch_size=2, dtype=np.int32):
    return _source_pipe(lambda i: np.full((batch_size, 3), i, dtype), batch_size)


def _labels(batch, name="label"):
    return [d[name].ravel().tolist() for d in batch]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("files"), 21)


# -- what next() returns ----------------------------------------------------------------------


def test_a_list_with_one_dict_per_pipeline():
    batch = next(DALIGenericIterator(_counter(), ["x"]))
    assert isinstance(batch, list) and len(batch) == 1 and list(batch[0]) == ["x"]
    x = batch[0]["x"]
    assert isinstance(x, torch.Tensor)
    assert (tuple(x.shape), x.dtype, x.device) == ((2, 3), torch.int32, torch.device("cpu"))

    with pytest.warns(Warning):  # legacy `size`
        it = DALIGenericIterator([_counter(), _counter()], ["x"], size=8)
    two = next(it)
    assert len(two) == 2 and all(tuple(d["x"].shape) == (2, 3) for d in two)


def test_outputs_in_output_map_order():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        a = fn.external_source(lambda: np.zeros((2, 1), np.uint8), batch=True)
        b = fn.external_source(lambda: np.ones((2, 4), np.float32), batch=True)
        return a, b

    (out,) = next(DALIGenericIterator(pipe(), ["first", "second"]))
    assert list(out) == ["first", "second"]
    assert tuple(out["second"].shape) == (2, 4) and out["second"].dtype == torch.float32


def test_classification_iterator_names_data_and_label(files):
    @pipeline_def(batch_size=8, num_threads=1, device_id=None)
    def pipe():
        _, labels = fn.readers.file(files=files, labels=list(range(21)), name=R)
        return fn.cast(labels, dtype=types.FLOAT), labels

    it = DALIClassificationIterator(pipe(), reader_name=R)
    out = next(it)[0]
    assert list(out) == ["data", "label"] and out["label"].ravel().tolist() == list(range(8))
    assert out["data"].dtype == torch.float32


def test_duplicate_names():
    with pytest.raises(AssertionError, match="output_map names should be distinct"):
        DALIGenericIterator(_counter(), ["x", "x"])


def test_more_names_than_outputs():
    with pytest.raises(AssertionError, match="output_map has 2 names, but pipeline 0 has only 1"):
        DALIGenericIterator(_counter(), ["x", "y"])


def test_zero_copy_on_the_cpu():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = batch_to_torch(TensorListCPU(arr), what="x")
    assert t.data_ptr() == arr.ctypes.data
    assert to_torch_tensor(TensorCPU(arr), copy=False).data_ptr() == arr.ctypes.data
    copied = to_torch_tensor(TensorCPU(arr), copy=True)
    assert copied.data_ptr() != arr.ctypes.data and torch.equal(copied, torch.from_numpy(arr))


def test_batches_stay_valid_after_the_next_ones():
    it = DALIGenericIterator(_counter(), ["x"])
    first = next(it)[0]["x"]
    for _ in range(5):
        next(it)
    assert first.ravel().tolist() == [0] * 6


def test_dynamic_shape_is_accepted_and_ignored():
    it = DALIGenericIterator(_counter(), ["x"], dynamic_shape=True)
    assert tuple(next(it)[0]["x"].shape) == (2, 3)


def test_ragged_batch_needs_the_ragged_iterator():
    pipe = _source_pipe(lambda: [np.zeros(2, np.int32), np.zeros(3, np.int32)])
    with pytest.raises(ValueError, match=r"output 'x' is a batch .*DALIRaggedIterator"):
        DALIGenericIterator(pipe, ["x"])


# -- dtypes --------------------------------------------------------------------------------------

SUPPORTED = [
    (types.FLOAT, torch.float32),
    (types.FLOAT64, torch.float64),
    (types.FLOAT16, torch.float16),
    (types.UINT8, torch.uint8),
    (types.INT8, torch.int8),
    (types.BOOL, torch.bool),
    (types.INT16, torch.int16),
    (types.INT32, torch.int32),
    (types.INT64, torch.int64),
]


def _cast_pipe(dtype):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: np.arange(6, dtype=np.int32).reshape(2, 3), batch=True)
        return fn.cast(x, dtype=dtype)

    return pipe()


@pytest.mark.parametrize(("dali_type", "torch_type"), SUPPORTED)
def test_dtype_mapping(dali_type, torch_type):
    assert to_torch_type[dali_type] == torch_type
    x = next(DALIGenericIterator(_cast_pipe(dali_type), ["x"]))[0]["x"]
    assert x.dtype == torch_type
    expected = torch.arange(6).reshape(2, 3).to(torch_type)
    assert torch.equal(x, expected)


@pytest.mark.parametrize("dali_type", [types.UINT16, types.UINT32, types.UINT64])
def test_unsigned_types_are_refused(dali_type):
    with pytest.raises(KeyError, match="not supported"):
        to_torch_type[dali_type]
    with pytest.raises(TypeError, match=r"output 'x' has type .*fn\.cast"):
        DALIGenericIterator(_cast_pipe(dali_type), ["x"])


def test_to_torch_type_is_a_mapping_of_nine():
    assert len(to_torch_type) == 9 and set(to_torch_type) == {d for d, _ in SUPPORTED}


# -- feed_ndarray ------------------------------------------------------------------------------


def test_feed_ndarray_copies_tensors_and_batches():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    dst = torch.zeros(2, 3)
    assert feed_ndarray(TensorCPU(arr), dst) is dst
    assert dst.tolist() == arr.tolist()
    dst2 = torch.zeros(2, 3)
    feed_ndarray(TensorListCPU(arr), dst2)
    assert dst2.tolist() == arr.tolist()


def test_feed_ndarray_checks_dtype_and_shape():
    t = TensorCPU(np.zeros((2, 3), np.float32))
    with pytest.raises(AssertionError, match="doesn't match the element type"):
        feed_ndarray(t, torch.zeros(2, 3, dtype=torch.float64))
    with pytest.raises(AssertionError, match=r"Shapes do not match: DALI tensor has size \[2, 3\]"):
        feed_ndarray(t, torch.zeros(3, 2))


# -- epochs and the last batch (DALI's documented table, dataset [1..7], batch 2) ---------------


@pytest.mark.parametrize(
    ("policy", "pad", "last", "next_first"),
    [
        (PARTIAL, True, [6], [0, 1]),
        (PARTIAL, False, [6], [1, 2]),
        (FILL, True, [6, 6], [0, 1]),
        (FILL, False, [6, 0], [1, 2]),
        (DROP, True, [4, 5], [0, 1]),
        (DROP, False, [4, 5], [1, 2]),
    ],
)
def test_documented_last_batch_table(tmp_path, policy, pad, last, next_first):
    files = make_files(tmp_path, 7)
    it = DALIGenericIterator(
        reader_pipeline(files, 2, pad_last_batch=pad),
        ["label"],
        reader_name=R,
        last_batch_policy=policy,
    )
    epoch = [_labels(b)[0] for b in it]
    assert epoch[-1] == last
    assert len(epoch) == len(it) == (3 if policy == DROP else 4)
    it.reset()
    assert _labels(next(it))[0] == next_first


def test_partial_cuts_each_pipeline_to_its_shard(files):
    pipes = [
        reader_pipeline(files, 8, shard_id=i, num_shards=2, pad_last_batch=True) for i in range(2)
    ]
    it = DALIGenericIterator(pipes, ["label"], reader_name=R, last_batch_policy=PARTIAL)
    epoch = [_labels(b) for b in it]
    # shards of 10 and 11 samples: the last batch keeps 2 and 3
    assert [len(x) for x in epoch[-1]] == [2, 3]
    seen = sorted(v for b in epoch for part in b for v in part)
    assert seen == list(range(21))


def test_partial_with_legacy_size_drops_the_pipelines_past_the_end(files):
    pipes = [reader_pipeline(files, 4, shard_id=i, num_shards=2) for i in range(2)]
    with pytest.warns(Warning):
        it = DALIGenericIterator(pipes, ["label"], size=10, last_batch_policy=PARTIAL)
    epoch = [_labels(b) for b in it]
    assert [sum(len(x) for x in b) for b in epoch] == [8, 2]
    assert len(epoch[-1]) == 1


def test_auto_reset_and_len(files):
    it = DALIGenericIterator(reader_pipeline(files, 8), ["label"], reader_name=R, auto_reset=True)
    assert len(it) == 3
    assert [len(list(it)) for _ in range(2)] == [3, 3]


# -- the ragged iterator -------------------------------------------------------------------------


def _ragged_pipe(batch_size=3):
    lengths = [3, 1, 2, 4]

    def source(info):
        start = info.iteration * batch_size
        return [
            np.arange(lengths[(start + k) % 4], dtype=np.int64) + 10 * ((start + k) % 4)
            for k in range(batch_size)
        ]

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source, batch=True, batch_info=True)
        return x, fn.shapes(x)

    return pipe()


def test_ragged_sparse_list_and_dense():
    it = DALIRaggedIterator(
        _ragged_pipe(),
        ["x", "len"],
        output_types=[DALIRaggedIterator.SPARSE_LIST_TAG, DALIRaggedIterator.DENSE_TAG],
    )
    out = next(it)[0]
    assert isinstance(out["x"], list) and [t.tolist() for t in out["x"]] == [
        [0, 1, 2],
        [10],
        [20, 21],
    ]
    assert out["len"].ravel().tolist() == [3, 1, 2]


def test_ragged_sparse_coo():
    it = DALIRaggedIterator(
        _ragged_pipe(), ["x", "len"], output_types=[DALIRaggedIterator.SPARSE_COO_TAG, "dense"]
    )
    x = next(it)[0]["x"]
    assert x.is_sparse and tuple(x.shape) == (3, 3)
    assert x.to_dense().tolist() == [[0, 1, 2], [10, 0, 0], [20, 21, 0]]
    assert x._indices().tolist() == [[0, 0, 0, 1, 2, 2], [0, 1, 2, 0, 0, 1]]


def test_ragged_partial_cuts_coo_and_lists():
    tags = [DALIRaggedIterator.SPARSE_COO_TAG, DALIRaggedIterator.SPARSE_LIST_TAG]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def two():
        x = fn.external_source(lambda: [np.arange(n, dtype=np.int64) for n in (3, 1, 2)])
        return x, x

    with pytest.warns(Warning):
        it = DALIRaggedIterator(
            [two(), two()], ["x", "y"], output_types=tags, size=4, last_batch_policy=PARTIAL
        )
    (first, second) = next(it)
    assert tuple(first["x"].shape) == (3, 3) and len(first["y"]) == 3
    assert tuple(second["x"].shape) == (1, 3) and second["x"].to_dense().tolist() == [[0, 1, 2]]
    assert [t.tolist() for t in second["y"]] == [[0, 1, 2]]


def test_ragged_tags_are_checked():
    with pytest.raises(AssertionError, match="Only DENSE_TAG, SPARSE_LIST_TAG and SPARSE_COO_TAG"):
        DALIRaggedIterator(_ragged_pipe(), ["x", "len"], output_types=["dense", "csr"])
    with pytest.raises(AssertionError, match="one tag per output_map name"):
        DALIRaggedIterator(_ragged_pipe(), ["x", "len"], output_types=["dense"])


def test_ragged_dense_tag_needs_uniform_samples():
    with pytest.raises(ValueError, match="output 'x' is a batch of samples of different shapes"):
        DALIRaggedIterator(_ragged_pipe(), ["x", "len"])


# -- state_dict / load_state_dict (torchdata's StatefulDataLoader convention) ---------------------


def _factory(files, policy=PARTIAL, num_shards=2, batch_size=4):
    def make(checkpoints=None):
        pipes = [
            reader_pipeline(
                files,
                batch_size,
                shard_id=i,
                num_shards=num_shards,
                pad_last_batch=True,
                enable_checkpointing=True,
                checkpoint=None if checkpoints is None else checkpoints[i],
            )
            for i in range(num_shards)
        ]
        return DALIGenericIterator(
            pipes, ["label"], reader_name=R, last_batch_policy=policy, auto_reset=True
        )

    return make


def _to_numpy(t):
    return t.cpu().numpy()


@pytest.mark.parametrize("policy", [FILL, DROP, PARTIAL])
@pytest.mark.parametrize("n_before", [0, 2, 3, 4])
def test_checkpoints_round_trip(files, policy, n_before):
    check_save_restore(_factory(files, policy), n_before, 7, to_numpy=_to_numpy)


def test_state_dict_round_trip_mid_epoch_through_torch_save(files):
    make = _factory(files)
    it = make()
    next(it)  # mid-epoch: 1 of 3 batches per shard
    buffer = io.BytesIO()
    torch.save(it.state_dict(), buffer)
    expected = [step(it) for _ in range(8)]  # the rest of the epoch, then the next ones

    fresh = make()
    next(fresh), next(fresh)  # anywhere: load_state_dict restores in place
    buffer.seek(0)
    fresh.load_state_dict(torch.load(buffer, weights_only=True))
    for want in expected:
        got = step(fresh)
        if isinstance(want, list):
            assert [_labels(b, "label") for b in [got]] == [_labels(want, "label")]
        else:
            assert got is want


def test_state_dict_restores_elastically(files):
    # saved with 2 shards, restored into one pipeline: the rest of the epoch, then whole epochs
    it = _factory(files)()
    next(it)
    state = it.state_dict()
    seen = {v for part in _labels(next(_factory(files)())) for v in part}
    one = _factory(files, num_shards=1, batch_size=8)()
    one.load_state_dict(state)
    rest = [v for b in one for part in _labels(b) for v in part]
    assert sorted(rest + sorted(seen)) == list(range(21))
    assert sorted(v for b in one for part in _labels(b) for v in part) == list(range(21))


def test_state_dict_needs_checkpointing(files):
    it = DALIGenericIterator(reader_pipeline(files, 8), ["label"], reader_name=R)
    with pytest.raises(ValueError, match="enable_checkpointing=True"):
        it.state_dict()


# -- importing ---------------------------------------------------------------------------------


def test_import_does_not_import_torch():
    code = (
        "import sys, dali.plugin.pytorch as p; "
        "print('torch' in sys.modules, sorted(p.__all__) == p.__all__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_too_old_torch_is_refused(monkeypatch):
    import importlib.metadata

    from dali.plugin.pytorch import _check

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.1.0")
    with pytest.raises(ImportError, match=r"needs torch>=2\.4, but torch 2\.1\.0 is installed"):
        _check.require_torch()
