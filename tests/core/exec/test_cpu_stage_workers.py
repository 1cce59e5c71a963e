"""A GPU pipeline's CPU stage on worker processes (`dali._exec.process.stage`).

Without a GPU: the executor runs the mixed stage with a stand-in CUDA context and mixed test
operators that only read what the CPU stage made, so the CPU stage's batches, their sample
identities and the readers' states are compared between the stage on worker processes and on
the executor's thread. The tests marked ``gpu`` run whole pipelines (SSD-like) both ways.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda_stand_in import NoCuda
from dali import Pipeline, fn, pipeline_def
from dali._exec.executor import Executor, IterationRequest, PipelineError
from dali._exec.process.spec import WorkerSpec, dump
from dali._exec.process.stage import CpuStageWorkers, has_operators, stage_of
from dali._graph.build import build_plan
from dali._graph.schema import Arg, register
from dali._graph.trace import call_operator
from dali._ops.base import Operator
from dali._tensors import TensorListCPU
from processes import wait_gone, worker_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

BATCH = 4


@register(
    "_test.stage_sink",
    devices=("mixed",),
    inputs=1,
    outputs=2,
    args=[Arg("add", "float", 0.0, True)],
)
class _Sink(Operator):
    """A mixed operator that reads a CPU-stage batch (plus a per-sample argument) on the host,
    and records the sample identities it ran on."""

    def run_mixed(self, ws: Any) -> TensorListCPU:
        add = ws.arg_scalars("add")
        samples = [
            np.asarray(s, np.float64) + float(a) for s, a in zip(ws.inputs[0].samples(), add)
        ]
        ids = TensorListCPU.wrap(np.stack([ws.meta.ids, ws.meta.epochs], axis=1))
        return TensorListCPU.wrap(samples), ids


def _sink(x: Any, **kwargs: Any) -> Any:
    return call_operator(_Sink.schema, (x,), {"device": "mixed", **kwargs})


def _pipe(root: Path, fail_on: str | None = None) -> Pipeline:
    pipe = Pipeline(batch_size=BATCH, num_threads=4, device_id=None, seed=11)
    files = sorted(str(p) for p in root.rglob("*.jpg"))
    if fail_on is not None:
        files[3] = fail_on
    with pipe:
        jpegs, labels = fn.readers.file(files=files, random_shuffle=True, initial_fill=5, name="r")
        shape = fn.peek_image_shape(jpegs)
        boxes = fn.random.uniform(range=[0.0, 1.0], shape=[3, 4])
        flipped = fn.bb_flip(boxes, horizontal=fn.random.coin_flip(), ltrb=True)
        shift = fn.random.uniform(range=[0.0, 10.0])
        a, a_ids = _sink(flipped, add=shift)
        b, _ = _sink(shape)
        pipe.set_outputs(a, a_ids, b, labels, shift)
    return pipe


def _run(pipe: Pipeline, workers: int, iterations: int) -> list[list[Any]]:
    """``iterations`` batches of the pipeline's graph through an executor whose CPU stage runs
    on ``workers`` processes (0: on its thread), with the readers' states after each."""
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=11)
    stage = None
    if workers:
        steps, slots, nodes = stage_of(plan)
        spec = WorkerSpec.of(pipe._ops, nodes, plan, pipe._info(), {}, stage=True)
        stage = CpuStageWorkers(plan, dump(spec), steps, slots, workers, "the test's CPU stage")
    ex = Executor(plan, num_threads=2, cuda=NoCuda(), depth=2, cpu_stage=stage)
    got = []
    try:
        for k in range(iterations):
            ex.submit(IterationRequest(k, 0, {}, BATCH, BATCH * k))
        for _ in range(iterations):
            try:
                outs = ex.get()
            except PipelineError as e:
                got.append([str(e)])
                continue
            assert ex.taken is not None
            got.append([[np.array(s) for s in tl.samples()] for tl in outs] + [ex.taken[1]])
    finally:
        ex.close()
    return got


def _same(a: list[list[Any]], b: list[list[Any]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            if isinstance(u, list):
                assert len(u) == len(v) and all(np.array_equal(p, q) for p, q in zip(u, v))
            else:
                assert str(u) == str(v)


def test_the_stage_is_what_the_gpu_stage_reads(image_tree: Path) -> None:
    pipe = _pipe(image_tree)
    plan = build_plan(pipe._graph_outputs, pipe._ops, pipeline_info=pipe._info(), seed=11)
    steps, slots, nodes = stage_of(plan)
    names = {plan.steps[si].node.schema.fn_path for si in steps}
    assert names == {
        "readers.file",
        "peek_image_shape",
        "random.uniform",
        "random.coin_flip",
        "bb_flip",
    }
    assert has_operators(plan, steps)
    # the reader's files first (the iteration's identity), then every slot the rest reads
    assert nodes[0].source.schema.fn_path == "readers.file" and nodes[0].index == 0
    assert all(n.device == "cpu" for n in nodes) and len(set(slots)) == len(slots)


@pytest.mark.parametrize("workers", [1, 3])
def test_same_batches_identities_and_states_as_on_the_thread(
    image_tree: Path, workers: int
) -> None:
    pipe = _pipe(image_tree)
    n = 14  # over an epoch of the tree's images
    there, here = _run(pipe, workers, n), _run(pipe, 0, n)
    assert all(len(x) == 6 for x in here)  # every iteration made its 5 outputs and states
    _same(there, here)


def test_an_operator_error_names_the_operator_and_the_file(
    image_tree: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg at all")
    pipe = _pipe(image_tree, fail_on=str(bad))
    here, there = _run(pipe, 0, 10), _run(pipe, 2, 10)
    errors = [x[0] for x in there if len(x) == 1]
    assert 0 < len(errors) < len(there)
    assert all("peek_image_shape" in e and "broken.jpg" in e for e in errors)
    _same(here, there)


def _host(batch: Any) -> list[np.ndarray]:
    batch = batch.as_cpu() if hasattr(batch, "as_cpu") else batch
    return [np.array(s) for s in batch.samples()]


def _ssd(tmp_path: Path, parallelism: str, **kwargs: Any) -> Pipeline:
    """The SSD training pipeline (decode and image work on the GPU; reader, boxes and random
    draws in the CPU stage)."""
    import dali

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "ssd"))
    from dali._testing.coco import make_coco
    from ssd_pipeline import ssd300_default_boxes, ssd_graph

    data = make_coco(tmp_path / "coco", n_images=40, photo_size=(60, 120))

    @pipeline_def(batch_size=6, num_threads=4, device_id=0, seed=5, cpu_parallelism=parallelism)
    def pipe() -> Any:
        return ssd_graph(
            fn,
            dali.types,
            data.file_root,
            data.annotations_file,
            device="gpu",
            anchors=ssd300_default_boxes(),
        )

    return pipe(**kwargs)


def _equal(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    for x, y in zip(a, b, strict=True):
        u, v = _host(x), _host(y)
        assert len(u) == len(v) and all(np.array_equal(p, q) for p, q in zip(u, v))


@pytest.mark.gpu
def test_ssd_pipeline_same_batches_and_checkpoints_gpu(tmp_path: Path) -> None:
    threads = _ssd(tmp_path, "threads", enable_checkpointing=True)
    processes = _ssd(tmp_path, "auto", enable_checkpointing=True)
    assert threads.cpu_workers() == (0, "cpu_parallelism='threads'")
    assert processes.cpu_workers()[0] == 4
    restored = None
    try:
        for _ in range(9):  # over an epoch of the 40 images
            _equal(threads.run(), processes.run())
        pids = [p for p in processes._executor.cpu_stage.pids if p is not None]
        assert len(pids) == 4
        # a checkpoint of the processes' layout restored into threads, and the other way
        cpt = processes.checkpoint()
        restored = _ssd(tmp_path, "threads", enable_checkpointing=True, checkpoint=cpt)
        back = _ssd(tmp_path, "auto", enable_checkpointing=True, checkpoint=threads.checkpoint())
        for _ in range(4):
            expected = threads.run()
            _equal(expected, processes.run())
            _equal(expected, restored.run())
            _equal(expected, back.run())
        back.close()
    finally:
        threads.close()
        processes.close()
        if restored is not None:
            restored.close()
    assert not set(pids) & set(worker_pids())


@pytest.mark.gpu
def test_which_gpu_pipelines_get_stage_workers(image_tree: Path) -> None:
    @pipeline_def(batch_size=4, num_threads=4, device_id=0)
    def resnet_like() -> Any:
        jpegs, labels = fn.readers.file(file_root=str(image_tree))
        images = fn.decoders.image_random_crop(jpegs, device="mixed")
        return fn.flip(images, horizontal=fn.random.coin_flip()), labels

    workers, why = resnet_like().cpu_workers()
    assert workers == 0 and "no operator with inputs" in why
    assert resnet_like(cpu_parallelism="processes").cpu_workers()[0] == 4
    assert resnet_like(num_threads=2, cpu_parallelism="processes").cpu_workers()[0] == 2


@pytest.mark.gpu
def test_a_killed_stage_worker_is_an_error_at_once_gpu(tmp_path: Path) -> None:
    import os
    import signal

    from dali._exec.process.executor import WorkerDied

    pipe = _ssd(tmp_path, "processes")
    try:
        pipe.run()
        pids = list(pipe._executor.cpu_stage.pids)
        os.kill(pids[1], signal.SIGKILL)
        with pytest.raises(WorkerDied, match="killed by signal 9"):
            for _ in range(20):
                pipe.run()
        with pytest.raises(WorkerDied):
            pipe.run()
    finally:
        pipe.close()
    assert all(wait_gone(pid) for pid in pids)


@pytest.mark.parametrize(
    ("threads", "cores", "workers"),
    [(4, 16, 4), (8, 16, 8), (12, 16, 8), (16, 16, 8), (32, 16, 8), (6, 6, 4), (64, 128, 64)],
)
def test_a_gpu_pipelines_stage_takes_at_most_half_the_cores(
    threads: int, cores: int, workers: int
) -> None:
    """A GPU pipeline's CPU stage runs on at most half the usable cores' worker processes,
    whatever ``num_threads`` asks (its own process needs the others: decoders, the GPU stage);
    a CPU pipeline on one per core."""
    from dali._pipeline.pipeline import worker_count

    got, why = worker_count(threads, cores, gpu=True)
    assert got == workers
    assert ("at most 50% of them" in why) == (threads > workers)
    assert worker_count(threads, cores, gpu=False)[0] == min(threads, cores)
