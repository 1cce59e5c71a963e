"""CPU pipelines run their sources (readers, external sources) in a stage of their own.

`dali._exec.stages.split_sources`: the readers of iteration i + 1 run on the
``dali-executor-source`` thread while the operators of iteration i run on ``dali-executor`` and
the pool. Same batches, same order, same errors as with one stage.
"""

from __future__ import annotations

import threading
import time

import dali
import numpy as np
import pytest
from dali import _options as options
from dali import fn, types
from dali._exec import stages
from dali._exec.executor import PipelineError


def _pipe(graph, *, batch=4, threads=2, **kw):
    pipe = dali.Pipeline(batch_size=batch, num_threads=threads, device_id=None, seed=7, **kw)
    with pipe:
        outs = graph()
        pipe.set_outputs(*(outs if isinstance(outs, tuple) else (outs,)))
    pipe.build()
    return pipe


def _names(pipe):
    parts = stages.split_sources(pipe._plan)
    return [[pipe._plan.steps[i].node.schema.fn_path for i in part] for part in parts]


def test_split_puts_readers_and_external_sources_first(image_tree):
    def graph():
        jpegs, labels = fn.readers.file(file_root=str(image_tree), name="Reader")
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        extra = fn.external_source(source=lambda: [np.zeros(2, np.float32)] * 4)
        flip = fn.random.coin_flip()
        return fn.flip(images, horizontal=flip), labels, extra

    sources, rest = _names(_pipe(graph))
    assert sources == ["readers.file", "external_source"]
    assert "decoders.image" in rest and "random.coin_flip" in rest and "flip" in rest


def test_no_split_without_a_source_or_without_operators(image_tree):
    def random_only():
        return fn.random.uniform(range=(0, 1))

    def reader_only():
        return tuple(fn.readers.file(file_root=str(image_tree)))

    assert _names(_pipe(random_only))[0] == []
    assert _names(_pipe(reader_only))[1] == []


def _reader_graph(root, shuffle):
    def graph():
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=shuffle, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=24, resize_y=24)
        return fn.flip(images, horizontal=fn.random.coin_flip()), labels

    return graph


@pytest.mark.parametrize("shuffle", [False, True])
def test_same_batches_with_and_without_the_source_stage(image_tree, monkeypatch, shuffle):
    def batches(split):
        monkeypatch.setattr(options, "SOURCE_STAGE", split)
        pipe = _pipe(_reader_graph(str(image_tree), shuffle), batch=5, prefetch_queue_depth=3)
        out = [[np.array(t.as_tensor()) for t in pipe.run()] for _ in range(12)]  # ~3 epochs
        assert (pipe._executor.stages[0].label == "source") == split
        threads = {t.name for t in pipe._executor._threads}
        pipe.close()
        return out, threads

    split, split_threads = batches(True)
    single, single_threads = batches(False)
    assert split_threads == {"dali-executor", "dali-executor-source"}
    assert single_threads == {"dali-executor"}
    for a, b in zip(split, single):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_readers_run_ahead_on_their_own_thread(image_tree, monkeypatch):
    from dali._ops.readers import file as reader_file

    seen = []
    read_file = reader_file.read_file

    def spy(path, **kw):
        seen.append(("read", threading.current_thread().name))
        return read_file(path, **kw)

    def f(x):
        seen.append(("op", threading.current_thread().name))
        time.sleep(0.01)
        return x

    monkeypatch.setattr(reader_file, "read_file", spy)

    def graph():
        jpegs, _ = fn.readers.file(file_root=str(image_tree))
        return fn.python_function(jpegs, function=f)

    pipe = _pipe(graph, batch=2, prefetch_queue_depth=3)
    pipe.run()
    pipe.run()
    pipe.close()
    assert {t for kind, t in seen if kind == "read"} == {"dali-executor-source"}
    assert {t for kind, t in seen if kind == "op"} == {"dali-executor"}


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_reader_error_comes_in_order_after_the_good_batches(tmp_path, monkeypatch, depth):
    root = tmp_path / "tree"
    (root / "a").mkdir(parents=True)
    for i in range(6):
        (root / "a" / f"{i}.jpg").write_bytes(b"x" * (i + 1))

    def outcomes(split):
        monkeypatch.setattr(options, "SOURCE_STAGE", split)
        graph = lambda: fn.readers.file(file_root=str(root))[0]
        pipe = _pipe(graph, batch=2, prefetch_queue_depth=depth)
        (root / "a" / "3.jpg").rename(root / "3.jpg")  # listed at build, gone when read
        out: list = []
        while not out or not isinstance(out[-1], str):
            try:
                out.append([len(np.array(x)) for x in pipe.run()[0]])
            except PipelineError as e:
                out.append(str(e))
        pipe.close()
        (root / "3.jpg").rename(root / "a" / "3.jpg")
        return out

    split = outcomes(True)
    assert split[0] == [1, 2]  # the batch before the failing one comes first
    assert len(split) == 2 and "readers.file" in split[1] and "3.jpg" in split[1]
    assert split == outcomes(False)


def test_close_while_the_source_stage_runs_ahead(image_tree):
    pipe = _pipe(_reader_graph(str(image_tree), True), batch=5, prefetch_queue_depth=4)
    pipe.run()
    threads = pipe._executor._threads
    assert {t.name for t in threads} == {"dali-executor", "dali-executor-source"}
    t0 = time.monotonic()
    pipe.close()
    assert time.monotonic() - t0 < 30
    assert not any(t.is_alive() for t in threads)


def test_close_from_a_pipeline_thread_hands_off(image_tree):
    # the garbage collector may drop a pipeline on one of its own threads
    pipe = _pipe(_reader_graph(str(image_tree), False), batch=5)
    pipe.run()
    ex = pipe._executor
    ex._state.pool.submit(ex.close).result(timeout=30)  # returns at once, no self-join
    deadline = time.monotonic() + 30
    while any(t.is_alive() for t in ex._threads) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.is_alive() for t in ex._threads)


def _crop_graph(root, **kw):
    def graph():
        jpegs, _ = fn.readers.file(file_root=root)
        return fn.decoders.image_crop(jpegs, output_type=types.RGB, **kw)

    return graph


def test_decoders_fed_by_a_reader_are_planned_in_the_source_stage(image_tree, monkeypatch):
    from dali._ops.decoders.image import mixed_plan as _mixed_plan
    from dali._ops.decoders.nvimgcodec import cpu as _cpu_nvimgcodec

    if not _cpu_nvimgcodec.enabled():
        pytest.skip("needs nvImageCodec's CPU decoder (the nvimgcodec extra)")
    planned = []
    plan_batch = _mixed_plan.plan_batch

    def spy(op, ws):
        planned.append(threading.current_thread().name)
        return plan_batch(op, ws)

    monkeypatch.setattr(_mixed_plan, "plan_batch", spy)
    fed = _pipe(_reader_graph(str(image_tree), False), batch=3)
    assert [
        fed._plan.steps[i].node.schema.fn_path
        for i in stages.cpu_preparable(fed._plan, *stages.split_sources(fed._plan))
    ] == ["decoders.image_random_crop"]
    fed.run()
    fed.close()
    assert set(planned) == {"dali-executor-source"}

    def uniform_crop():  # its crop position comes from an operator: planned with the decoder
        jpegs, _ = fn.readers.file(file_root=str(image_tree))
        pos = fn.random.uniform(range=(0, 1))
        return fn.decoders.image_crop(jpegs, crop=(8, 8), crop_pos_x=pos)

    planned.clear()
    other = _pipe(uniform_crop, batch=3)
    assert stages.cpu_preparable(other._plan, *stages.split_sources(other._plan)) == []
    other.run()
    other.close()
    assert set(planned) == {"dali-executor"}


@pytest.mark.parametrize("depth", [1, 3])
def test_planning_errors_are_the_same_in_the_source_stage(image_tree, monkeypatch, depth):
    def first_error(split):
        monkeypatch.setattr(options, "SOURCE_STAGE", split)
        graph = _crop_graph(str(image_tree), crop=(4000, 30), out_of_bounds_policy="error")
        pipe = _pipe(graph, batch=3, prefetch_queue_depth=depth)
        with pytest.raises(PipelineError) as info:
            pipe.run()
        pipe.close()
        return str(info.value)

    split = first_error(True)
    assert "decoders.image_crop" in split and "sample 0" in split
    assert split == first_error(False)
