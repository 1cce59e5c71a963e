"""The CLU iterator contract of `DALIGenericPeekableIterator`.

* It is a real ``clu.data.dataset_iterator.DatasetIterator`` (DALI's is not), so T5X's
  ``isinstance`` check and CLU's ``PeekableDatasetIterator`` accept it.
* ``peek()`` / ``peek_async()`` / ``next()`` / ``get_next()``: order and object identity, from
  one thread and from eight at once (every element delivered exactly once, in order; a peek
  returns the element that a later ``next()`` returns).
* ``element_spec``: from the graph without reading a file (the files are deleted before it is
  asked), laid out as the elements are (one pipeline, a ``sharding``, ``devices=``); from one
  peek where the graph leaves a shape to the data; a later change of shape or dtype is a
  ValueError.
* ``reset()`` and ``__iter__`` with and without a pending peek, and ``peek`` at an epoch's end.
* ``is_nonpadding``: False exactly for the padding of FILL's last batch, on one pipeline and
  sharded over the four fake CPU devices.

Most iterators here read the ``label_files`` (29 files, file ``i`` has label ``i``), so a
label names its sample.
"""

from __future__ import annotations

import logging
import random
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from clu.data.dataset_iterator import ArraySpec, DatasetIterator, PeekableDatasetIterator
from dali import fn, pipeline_def
from dali.plugin.jax import DALIGenericIterator, data_iterator
from dali.plugin.jax.clu import DALIGenericPeekableIterator, peekable_data_iterator
from iterator_utils import STOP, step
from jax.sharding import Mesh, NamedSharding, PartitionSpec

READER = "reader"


def _label_pipe(files, batch_size, *, pad=False, num_shards=1, shard_id=0, **kwargs):
    """A CPU pipeline of the labels of ``files`` (file i: label i), its reader named READER."""

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, **kwargs)
    def pipe():
        _, labels = fn.readers.file(
            files=files,
            labels=list(range(len(files))),
            name=READER,
            pad_last_batch=pad,
            num_shards=num_shards,
            shard_id=shard_id,
        )
        return labels

    return pipe()


def _labels_iterator(files, batch_size=4, **kwargs):
    kwargs.setdefault("reader_name", READER)
    pad = kwargs.pop("pad", False)
    return DALIGenericPeekableIterator(
        _label_pipe(files, batch_size, pad=pad), ["labels"], **kwargs
    )


def _labels(element):
    return np.asarray(element["labels"]).ravel().tolist()


def _batch_sharding(devices):
    return NamedSharding(Mesh(np.array(devices), ("batch",)), PartitionSpec("batch"))


# -- the class ----------------------------------------------------------------------------------


def test_is_a_clu_dataset_iterator(label_files):
    it = _labels_iterator(label_files)
    assert isinstance(it, DatasetIterator)
    assert isinstance(it, DALIGenericIterator)
    assert issubclass(DALIGenericPeekableIterator, DatasetIterator)
    # the decorator makes them too
    iterator_fn = peekable_data_iterator(
        lambda: fn.readers.file(files=label_files, name=READER)[1],
        output_map=["labels"],
        reader_name=READER,
    )
    made = iterator_fn(batch_size=4, device_id=None)
    assert type(made) is DALIGenericPeekableIterator
    assert isinstance(made, DatasetIterator)


def test_clu_peekable_wrapper_accepts_it(label_files):
    """CLU's own wrapper (what T5X's prepare_train_iter puts around a DatasetIterator)."""
    it = _labels_iterator(label_files)
    spec = it.element_spec
    wrapped = PeekableDatasetIterator(it)
    assert wrapped.element_spec == spec == {"labels": ArraySpec(np.dtype(np.int32), (4, 1))}
    first = wrapped.peek()
    assert next(wrapped) is first and _labels(first) == [0, 1, 2, 3]
    assert _labels(next(wrapped)) == [4, 5, 6, 7]


# -- peek, peek_async, next, get_next -----------------------------------------------------------


def test_peek_next_order_and_identity(label_files):
    it = _labels_iterator(label_files)
    first = it.peek()
    assert it.peek() is first  # cached
    assert next(it) is first
    assert _labels(first) == [0, 1, 2, 3]
    assert _labels(next(it)) == [4, 5, 6, 7]  # no element lost or repeated

    future = it.peek_async()
    third = future.result(timeout=30)
    assert _labels(third) == [8, 9, 10, 11]
    assert it.peek() is third
    assert it.get_next() is third  # get_next is next
    # several futures before any next(): one element, the one next() returns
    futures = [it.peek_async() for _ in range(3)]
    fourth = futures[0].result(timeout=30)
    assert all(f.result(timeout=30) is fourth for f in futures)
    assert next(it) is fourth and _labels(fourth) == [12, 13, 14, 15]
    assert _labels(it.get_next()) == [16, 17, 18, 19]


def test_get_next_logs_no_deprecation_error(label_files, caplog):
    # CLU's base get_next logs an error ("Please use next()"); Pax calls get_next
    it = _labels_iterator(label_files)
    with caplog.at_level(logging.INFO):
        assert _labels(it.get_next()) == [0, 1, 2, 3]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_eight_threads_peek_and_next_concurrently(label_files):
    """Batches of one sample, so 29 elements an epoch; each thread mixes next, get_next,
    peek and peek_async until the epoch ends."""
    n = len(label_files)
    it = _labels_iterator(label_files, batch_size=1)
    start = threading.Barrier(8)
    taken = [[] for _ in range(8)]  # per thread: the elements next()/get_next() gave
    peeked = [[] for _ in range(8)]  # per thread: (element, index in taken when peeked)
    errors = []

    def worker(k):
        rng = random.Random(k)
        start.wait()
        try:
            while True:
                op = rng.choice(["next", "next", "get_next", "peek", "peek_async"])
                try:
                    if op == "next":
                        taken[k].append(next(it))
                    elif op == "get_next":
                        taken[k].append(it.get_next())
                    elif op == "peek":
                        peeked[k].append((it.peek(), len(taken[k])))
                    else:
                        peeked[k].append((it.peek_async().result(timeout=60), len(taken[k])))
                except StopIteration:
                    return
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hangs"
    assert not errors, errors

    # every element exactly once, each thread's in increasing order
    labels = sorted(_labels(e)[0] for got in taken for e in got)
    assert labels == list(range(n))
    for got in taken:
        mine = [_labels(e)[0] for e in got]
        assert mine == sorted(mine)
    # a peek returned the element a next() returned (that very object), not yet taken by
    # this thread's earlier next() calls and at most its next one
    by_id = {id(e): e for got in taken for e in got}
    for k in range(8):
        for element, position in peeked[k]:
            assert by_id.get(id(element)) is element, "a peeked element no next() returned"
            label = _labels(element)[0]
            before = [_labels(e)[0] for e in taken[k][:position]]
            assert all(b < label for b in before)
            if position < len(taken[k]):
                assert _labels(taken[k][position])[0] >= label
    assert sum(len(p) for p in peeked) > 0
    with pytest.raises(StopIteration):  # the epoch is over, nothing cached
        it.peek()


# -- element_spec -------------------------------------------------------------------------------


def _image_files(image_tree, tmp_path, n=8):
    """Copies of the first ``n`` images of the tree (to delete them without harm)."""
    files = []
    for i in range(n):
        src = image_tree / str(i % 3) / f"img_{i:02d}.jpg"
        dst = tmp_path / f"img_{i:02d}.jpg"
        shutil.copy(src, dst)
        files.append(str(dst))
    return files


def _image_graph(files, **resize):
    def iterator_fn(num_shards=1, shard_id=0):
        jpegs, labels = fn.readers.file(
            files=files,
            labels=list(range(len(files))),
            name=READER,
            num_shards=num_shards,
            shard_id=shard_id,
        )
        images = fn.decoders.image(jpegs, device="cpu")
        return fn.resize(images, **resize), labels

    return iterator_fn


@pytest.mark.parametrize(
    ("layout", "batch_axes"),
    [
        pytest.param("one-pipeline", (8,), id="one-pipeline"),
        pytest.param("sharding", (8,), id="sharding-4-devices"),
        pytest.param("devices", (4, 2), id="devices-4-pmap"),
    ],
)
def test_element_spec_from_the_graph_reads_no_file(
    image_tree, tmp_path, cpu_devices, layout, batch_axes
):
    files = _image_files(image_tree, tmp_path)
    placement = {
        "one-pipeline": {},
        "sharding": {"sharding": _batch_sharding(cpu_devices)},
        "devices": {"devices": cpu_devices},
    }[layout]
    iterator_fn = peekable_data_iterator(
        _image_graph(files, resize_x=16, resize_y=12),
        output_map=["images", "labels"],
        reader_name=READER,
        prepare_first_batch=False,
        **placement,
    )
    kwargs = {"device_id": None} if layout == "one-pipeline" else {}
    it = iterator_fn(batch_size=8, num_threads=1, **kwargs)
    for f in files:  # nothing read so far, and nothing can be read now
        Path(f).unlink()
    expected = {
        "images": ArraySpec(np.dtype(np.uint8), (*batch_axes, 12, 16, 3)),
        "labels": ArraySpec(np.dtype(np.int32), (*batch_axes, 1)),
    }
    assert it.element_spec == expected
    assert it.element_spec == expected  # asked again: the same, still nothing read
    with pytest.raises(Exception, match="cannot read file"):  # the reader's error
        next(it)


def test_static_element_spec_matches_the_elements(image_tree, tmp_path, cpu_devices):
    files = _image_files(image_tree, tmp_path)
    iterator_fn = peekable_data_iterator(
        _image_graph(files, resize_x=16, resize_y=12),
        output_map=["images", "labels"],
        reader_name=READER,
        sharding=_batch_sharding(cpu_devices),
    )
    it = iterator_fn(batch_size=8, num_threads=1)
    spec = it.element_spec
    element = next(it)
    assert {k: ArraySpec(np.dtype(v.dtype), tuple(v.shape)) for k, v in element.items()} == spec
    assert spec["images"].shape == (8, 12, 16, 3)  # the global batch
    assert element["images"].sharding == _batch_sharding(cpu_devices)
    # the data agrees with the spec, so next() goes on
    assert sorted(_labels(element)) == list(range(8))


def test_element_spec_returns_a_copy(label_files):
    it = _labels_iterator(label_files)
    spec = it.element_spec
    spec.clear()
    assert list(it.element_spec) == ["labels"]


def test_element_spec_from_one_peek_then_a_shape_change_is_a_value_error(image_tree, tmp_path):
    # images 0 (60×40) and 6 (264×356) with their shorter side resized to 16: (24, 16) and
    # (16, 22); the graph cannot know either, so the spec comes from the first element
    files = [str(image_tree / "0" / "img_00.jpg"), str(image_tree / "0" / "img_06.jpg")]
    iterator_fn = peekable_data_iterator(
        _image_graph(files, resize_shorter=16),
        output_map=["images", "labels"],
        reader_name=READER,
    )
    it = iterator_fn(batch_size=1, device_id=None, num_threads=1)
    assert it.pipelines[0].output_shape()[0] == (None, None, 3)  # not static
    spec = it.element_spec
    assert spec == {
        "images": ArraySpec(np.dtype(np.uint8), (1, 24, 16, 3)),
        "labels": ArraySpec(np.dtype(np.int32), (1, 1)),
    }
    # that peek is pending: the next element is the one it read
    first = it.peek()
    assert next(it) is first and _labels(first) == [0]
    with pytest.raises(ValueError, match=r"changed between iterations.*output: images") as e:
        next(it)
    assert "Expected: uint8[1, 24, 16, 3], got: uint8[1, 16, 22, 3]" in str(e.value)


def test_a_dtype_change_is_a_value_error():
    # batch i holds the value i; from batch 2 on, python_function gives float32 for int32
    def cast(x):
        return x.astype(np.float32 if x.flat[0] >= 2 else np.int32)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        counter = fn.external_source(lambda i: np.full((2, 3), i, np.int32), batch=True)
        return fn.python_function(counter, function=cast)

    it = DALIGenericPeekableIterator(pipe(), ["x"])
    assert it.element_spec == {"x": ArraySpec(np.dtype(np.int32), (2, 3))}
    assert np.asarray(next(it)["x"]).tolist() == [[0] * 3] * 2
    next(it)
    with pytest.raises(
        ValueError, match=r"Expected: int32\[2, 3\], got: float32\[2, 3\] for output: x"
    ):
        it.peek()


# -- reset and __iter__ ------------------------------------------------------------------------


def _epoch_labels(it):
    """The labels of the batches up to the epoch's end (StopIteration)."""
    out = []
    while (batch := step(it)) is not STOP:
        out.append(_labels(batch))
    return out


def test_for_loops_reset_between_epochs(label_files):
    reference = _labels_iterator(label_files, auto_reset=True)
    epochs = [_epoch_labels(reference) for _ in range(2)]
    assert epochs[0][0] == [0, 1, 2, 3] and epochs[0][-1] == [28, 0, 1, 2]  # FILL carries on

    it = _labels_iterator(label_files)
    assert [_labels(b) for b in it] == epochs[0]
    assert [_labels(b) for b in it] == epochs[1]  # iter() reset it


def test_iter_keeps_a_pending_peek(label_files, caplog):
    it = _labels_iterator(label_files)
    next(it)
    pending = it.peek()
    with caplog.at_level(logging.WARNING):
        assert iter(it) is it  # no reset mid-epoch (and no "resetting while ..." warning)
    assert not caplog.records, caplog.text
    assert next(it) is pending and _labels(pending) == [4, 5, 6, 7]
    # a for loop started with a pending peek begins with it
    it2 = _labels_iterator(label_files)
    first = it2.peek()
    loop = iter(it2)
    assert next(loop) is first


def test_peek_at_the_end_of_an_epoch(label_files):
    it = _labels_iterator(label_files)  # auto_reset=False
    batches = _epoch_labels(it)
    assert len(batches) == 8
    with pytest.raises(StopIteration):
        it.peek()  # nothing to cache
    with pytest.raises(StopIteration):
        next(it)  # still at the end until reset
    it.reset()
    first = it.peek()
    assert next(it) is first and _labels(first) == [3, 4, 5, 6]  # after FILL's [28, 0, 1, 2]

    auto = _labels_iterator(label_files, auto_reset=True)
    assert [_labels(next(auto)) for _ in range(8)] == batches
    with pytest.raises(StopIteration):
        auto.peek()  # the epoch's end: raised once, and the iterator reset itself
    assert _labels(auto.peek()) == [3, 4, 5, 6]
    assert _labels(next(auto)) == [3, 4, 5, 6]


def test_reset_mid_epoch_keeps_the_pending_peek(label_files, caplog):
    # as DALI's reset: ignored (with a warning) before the epoch's end
    it = _labels_iterator(label_files)
    pending = it.peek()
    with caplog.at_level(logging.WARNING):
        it.reset()
    assert "not finished" in caplog.text
    assert next(it) is pending and _labels(pending) == [0, 1, 2, 3]
    assert _labels(next(it)) == [4, 5, 6, 7]


# -- is_nonpadding ------------------------------------------------------------------------------


def _label_graph_fn(files, *, pad=False):
    def iterator_fn(num_shards=1, shard_id=0):
        _, labels = fn.readers.file(
            files=files,
            labels=list(range(len(files))),
            name=READER,
            num_shards=num_shards,
            shard_id=shard_id,
            pad_last_batch=pad,
        )
        return labels

    return iterator_fn


@pytest.mark.parametrize("pad", [True, False], ids=["pad_last_batch", "no-padding"])
def test_is_nonpadding_one_pipeline(label_files, pad):
    """29 samples in batches of 4: each epoch's samples, then padding up to the batch end
    (the last sample again with ``pad_last_batch``; without, the next samples, which FILL
    reads from the next epoch, which then starts after them)."""
    it = _labels_iterator(label_files, pad=pad, auto_reset=True)
    start = 0
    for epoch in range(3):
        labels, masks = [], []
        while (batch := step(it)) is not STOP:
            mask = it.is_nonpadding
            assert isinstance(mask, np.ndarray) and mask.dtype == bool and mask.shape == (4,)
            labels += _labels(batch)
            masks += mask.tolist()
        end = labels.index(28) + 1
        assert labels[:end] == list(range(start, 29)), epoch
        assert end < len(labels), epoch  # 29 - start is never a multiple of 4 here
        assert masks == [True] * end + [False] * (len(labels) - end), epoch
        tail = labels[end:]
        if pad:
            assert tail == [28] * len(tail)
        else:
            assert tail == list(range(len(tail)))
            start = len(tail)


def test_is_nonpadding_sharded_over_four_devices(label_files, cpu_devices):
    """Shards of 7, 7, 7 and 8 samples, 2 per device and batch, ``pad_last_batch``: the last
    batch of an epoch pads the shards of 7 with one repeat of their last sample. The shards
    move on by one device every epoch (``stick_to_shard=False``)."""
    sharding = _batch_sharding(cpu_devices)
    iterator_fn = peekable_data_iterator(
        _label_graph_fn(label_files, pad=True),
        output_map=["labels"],
        reader_name=READER,
        sharding=sharding,
        auto_reset=True,
    )
    it = iterator_fn(batch_size=8, num_threads=1)
    sizes = [7, 7, 7, 8]
    starts = [0, 7, 14, 21]
    for epoch in range(3):
        for k in range(4):
            batch = next(it)
            mask = it.is_nonpadding
            assert mask.shape == (8,) and mask.dtype == bool
            assert mask.sharding == sharding
            labels = np.asarray(batch["labels"]).reshape(4, 2)
            want = []
            for device in range(4):
                shard = (device + epoch) % 4
                read = [starts[shard] + min(2 * k + j, sizes[shard] - 1) for j in range(2)]
                assert labels[device].tolist() == read, (epoch, k, device)
                want += [2 * k + j < sizes[shard] for j in range(2)]
            assert np.asarray(mask).tolist() == want, (epoch, k)
            if k == 3:
                assert not all(want)  # the padded batch
        assert step(it) is STOP


def test_is_nonpadding_describes_the_element_next_returned(label_files):
    """A peek pending after the element returned last does not change that element's mask."""
    it = _labels_iterator(label_files, pad=True)
    for _ in range(6):
        next(it)
    next(it)  # the 7th batch: all real
    assert it.is_nonpadding.tolist() == [True] * 4
    it.peek()  # the 8th, padded, pending
    assert it.is_nonpadding.tolist() == [True] * 4


# -- peekable_data_iterator with a sharding ----------------------------------------------------


def test_peekable_data_iterator_with_sharding(label_files, cpu_devices):
    sharding = _batch_sharding(cpu_devices)
    iterator_fn = peekable_data_iterator(
        _label_graph_fn(label_files),
        output_map=["labels"],
        reader_name=READER,
        sharding=sharding,
    )
    it = iterator_fn(batch_size=8, num_threads=1)
    assert len(it.pipelines) == 4 and it.batch_size == 2
    assert it.element_spec == {"labels": ArraySpec(np.dtype(np.int32), (8, 1))}
    first = it.peek()
    assert next(it) is first
    assert first["labels"].sharding == sharding and first["labels"].shape == (8, 1)
    assert not first["labels"].is_fully_replicated
    # device k holds its shard's first samples (shard k starts at floor(29k/4))
    shards = sorted(
        (cpu_devices.index(s.device), np.asarray(s.data).ravel().tolist())
        for s in first["labels"].addressable_shards
    )
    assert shards == [(0, [0, 1]), (1, [7, 8]), (2, [14, 15]), (3, [21, 22])]


def test_peekable_data_iterator_takes_data_iterators_arguments():
    import inspect

    ours = inspect.signature(peekable_data_iterator).parameters
    theirs = inspect.signature(data_iterator).parameters
    assert list(ours)[: len(theirs)] == list(theirs)
    for name, param in theirs.items():
        assert ours[name].default == param.default, name
    assert not set(ours) - set(theirs) - {"pad_to", "buckets", "pad_value"}
