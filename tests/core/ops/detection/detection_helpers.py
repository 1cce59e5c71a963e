"""What the detection operators' tests share: a pipeline over fixed per-sample batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import dali
import numpy as np
from dali import fn


def run(
    graph: Callable[..., Any],
    *inputs: Sequence[Any],
    batch_size: int | None = None,
    seed: int = 7,
    device: str = "cpu",
    iters: int = 1,
    layouts: Sequence[str | None] | None = None,
) -> list[list[list[np.ndarray]]]:
    """Run ``graph(*nodes)`` where each node is an ``external_source`` cycling over ``inputs[k]``
    (one list of per-sample arrays per batch, or one list of arrays for a single batch).

    ``device="gpu"`` moves the nodes to the GPU first (``device_id=0``). Returns, per iteration,
    per output, the samples as numpy arrays.
    """
    batches = [_as_batches(x) for x in inputs]
    bs = batch_size or len(batches[0][0])

    @dali.pipeline_def(
        batch_size=bs, num_threads=2, device_id=0 if device == "gpu" else None, seed=seed
    )
    def pipe():
        nodes = []
        for k, b in enumerate(batches):
            layout = layouts[k] if layouts and k < len(layouts) else None
            kw = {"layout": layout} if layout else {}
            node = fn.external_source(source=_cycle(b), batch=True, **kw)
            nodes.append(node.gpu() if device == "gpu" and k == 0 else node)
        out = graph(*nodes)
        return tuple(out) if isinstance(out, (list, tuple)) else out

    p = pipe()
    p.build()
    try:
        results = []
        for _ in range(iters):
            outs = p.run()
            results.append([[np.array(o.as_cpu().at(i)) for i in range(len(o))] for o in outs])
        return results
    finally:
        p.close()


def run1(graph: Callable[..., Any], *inputs: Sequence[Any], **kw: Any) -> list[list[np.ndarray]]:
    """`run` for one iteration: per output, the samples."""
    return run(graph, *inputs, **kw)[0]


def _as_batches(x: Sequence[Any]) -> list[list[np.ndarray]]:
    """A list of arrays is one batch; a list of lists of arrays is several."""
    if len(x) and isinstance(x[0], (list, tuple)):
        return [[np.asarray(a) for a in b] for b in x]
    return [[np.asarray(a) for a in x]]


def _cycle(batches: list[list[np.ndarray]]) -> Callable[[], list[np.ndarray]]:
    state = {"i": 0}

    def next_batch() -> list[np.ndarray]:
        b = batches[state["i"] % len(batches)]
        state["i"] += 1
        return b

    return next_batch
